"""What the Python checks of the bundled queries share: reading a dataset's tables the way
docs/DATASET.md defines them (not through hindsight's views), and comparing figures.

- survival_subjects: the snapshot window's outputs on the time-to-outcome curves, per workflow
  and safe-output type, each its hours on the curve and how it left the risk set.
- output_flags: one row per output and window with the three rates' flags and the cluster keys.
- differ: whether two figures differ by more than TOL (NULL equals only NULL).
"""

import json

import numpy as np
import pandas as pd
import pyarrow.parquet as pq

TOL = 1e-9


def survival_subjects(outcomes_path):
    """{(workflow, type): [(hours, kind)]}: kind accepted, rejected or censored (pending or
    ignored at capture, at its follow-up); hours and kind None for an output left off the curve
    (unknown, skipped, or decided with no date)."""
    out = {}
    for r in pq.read_table(outcomes_path).to_pylist():
        if r["eval_window"] != "snapshot":
            continue
        key = (r["workflow_name"] or "(unknown)", r["safe_output_type"] or "(unknown)")
        s = r["outcome_status"]
        if s in ("accepted", "rejected"):
            hours, kind = r["time_to_outcome_hours"], s
        elif s in ("pending", "ignored") and r["evaluated_at"] is not None and r["created_at"] is not None:
            hours, kind = (r["evaluated_at"] - r["created_at"]).total_seconds() / 3600.0, "censored"
        else:
            hours, kind = None, None
        if hours is None:
            kind = None
        out.setdefault(key, []).append((hours, kind))
    return out


def output_flags(dataset):
    """One row per output and window: its flags (evaluable, strict, human_check, sticky_artifact,
    set from the statuses as docs/DATASET.md defines them) and cluster keys (repository, developer,
    run_id)."""
    o = pd.read_parquet(f"{dataset}/outcomes.parquet")
    s = pd.read_parquet(f"{dataset}/safe_outputs.parquet", columns=["safe_output_id", "run_actor", "actor"])
    o = o.merge(s, on="safe_output_id", how="left", validate="many_to_one")
    status, strength, signal = o["outcome_status"], o["evidence_strength"], o["human_check_signal"]
    accepted = status == "accepted"
    o["evaluable"] = (~status.isin(["skipped", "unknown"])).astype(np.int64)
    o["strict"] = (accepted & (strength == "strong")).astype(np.int64)
    o["human_check"] = (accepted & strength.isin(["strong", "medium"])).astype(np.int64)
    o["sticky_artifact"] = ((accepted & (strength == "weak")) | (signal == "target_exists_only")).astype(np.int64)
    o["workflow_name"] = o["workflow_name"].where(o["workflow_name"].notna(), "(unknown)")
    o["repository"] = o["target_repo"].where(o["target_repo"].notna(), "(unknown)")
    person = o["run_actor"].where(o["run_actor"].notna(), o["actor"])
    o["developer"] = person.where(person.notna(), "(unknown)")
    return o


def load(path):
    with open(path) as f:
        return json.load(f)


def differ(a, b, tol=TOL):
    if a is None or b is None:
        return a is not b
    if isinstance(a, str) or isinstance(b, str):
        return a != b
    return abs(float(a) - float(b)) > tol
