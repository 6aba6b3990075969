"""How often the intervals hindsight reports cover the truth, over seeded synthetic studies whose
truth is known: the bundled queries run through DuckDB over generated `outcomes`-shaped tables
(they are portable SQL; tests/it/slt.rs checks DuckDB gives hindsight's rows).

Usage: coverage_study.py MACROS.sql QUERIES_DIR STUDIES SEED

MACROS.sql: the DuckDB macros the queries call (wilson_low, wilson_high). Every study is one
workflow of one table, so each query runs once over all of them.

- Time to outcome: each study has 200 outputs; an output would be accepted after an exponential
  time (hazard 0.05 an hour) and rejected after another (0.02 an hour), whichever comes first,
  unless capture comes first (an independent exponential follow-up, 0.02 an hour): then it is
  pending, censored. The truth at t0 = 10 hours: Kaplan-Meier with rejection as censoring
  estimates exp(-0.05 t0); the cumulative incidence of acceptance is 0.05/0.07 (1 - exp(-0.07 t0)),
  of rejection 0.02/0.07 of the same. Counted: how often time_to_outcome's 95% band
  (km_lower_95, km_upper_95) at t0 (the step at the last time <= t0) holds exp(-0.05 t0); and the
  Aalen-Johansen estimates' mean error at t0, in standard errors of that mean (hindsight reports
  no interval of the cumulative incidence, so there is none to cover).
- Clustered acceptance: each study has 50 repositories of 4 to 40 outputs each; a repository
  accepts each output with its own probability, drawn from Beta(1.5, 3.5) (mean 0.3, so outputs
  of one repository are alike), independent of its size. The truth, the rate per output in the
  population, is 0.3. Counted: how often acceptance_clustered's CR1 interval
  (strict_clustered_ci_low, _high; cluster_by repository) holds 0.3, and, beside it, how often the
  Wilson interval does, which takes the outputs as independent and should fall short.

Prints JSON: studies, and for each figure covered (a count) and rate, or the mean error.
"""

import json
import math
import sys
from datetime import datetime, timedelta, timezone

import duckdb
import numpy as np
import pandas as pd

ACCEPT, REJECT, CAPTURE = 0.05, 0.02, 0.02
T0 = 10.0
OUTPUTS = 200
CLUSTERS = 50


def survival_table(rng, studies):
    rows = []
    base = datetime(2026, 1, 1, tzinfo=timezone.utc)
    for s in range(studies):
        ta = rng.exponential(1 / ACCEPT, OUTPUTS)
        tr = rng.exponential(1 / REJECT, OUTPUTS)
        tc = rng.exponential(1 / CAPTURE, OUTPUTS)
        for a, r, c in zip(ta, tr, tc):
            ended = min(a, r)
            if ended <= c:
                status, hours, follow = ("accepted" if a < r else "rejected"), ended, c
            else:
                status, hours, follow = "pending", None, c
            rows.append({"eval_window": "snapshot", "workflow_name": f"study{s:03}", "safe_output_type": "create_pull_request",
                         "outcome_status": status, "time_to_outcome_hours": hours, "created_at": base,
                         "evaluated_at": base + timedelta(microseconds=round(follow * 3600e6))})
    return pd.DataFrame(rows)


def clustered_table(rng, studies):
    rows = []
    for s in range(studies):
        for c in range(CLUSTERS):
            p = rng.beta(1.5, 3.5)
            size = int(rng.integers(4, 41))
            for i, accepted in enumerate(rng.random(size) < p):
                rows.append({"safe_output_id": f"s{s}-r{c}-{i}", "workflow_name": f"study{s:03}", "safe_output_type": "create_pull_request",
                             "eval_window": "snapshot", "window_order": 4, "target_repo": f"acme/r{c}", "run_id": f"run-{s}-{c}-{i}",
                             "outcome_status": "accepted" if accepted else "rejected", "evidence_strength": "strong",
                             "human_check_signal": "pull_request_merged" if accepted else "pull_request_closed"})
    return pd.DataFrame(rows)


def run(con, path):
    cur = con.execute(open(path).read())
    cols = [d[0] for d in cur.description]
    return pd.DataFrame(cur.fetchall(), columns=cols)


def survival_coverage(con, queries, studies):
    curve = run(con, f"{queries}/time_to_outcome.sql")
    truth = {"km": math.exp(-ACCEPT * T0),
             "cif_accepted": ACCEPT / (ACCEPT + REJECT) * (1 - math.exp(-(ACCEPT + REJECT) * T0)),
             "cif_rejected": REJECT / (ACCEPT + REJECT) * (1 - math.exp(-(ACCEPT + REJECT) * T0))}
    covered, errors = 0, {"cif_accepted": [], "cif_rejected": []}
    for _, g in curve.groupby("workflow_name"):
        before = g[g["hours"] <= T0]
        at = before.iloc[-1] if len(before) else None
        lo, hi = (1.0, 1.0) if at is None else (at["km_lower_95"], at["km_upper_95"])
        covered += lo <= truth["km"] <= hi
        for k in errors:
            errors[k].append((0.0 if at is None else at[k]) - truth[k])
    out = {"km_band": {"covered": int(covered), "rate": covered / studies, "truth": truth["km"]}}
    for k, e in errors.items():
        e = np.array(e)
        out[k] = {"mean_error": float(e.mean()), "mean_error_in_se": float(e.mean() / (e.std(ddof=1) / math.sqrt(len(e)))), "truth": truth[k]}
    return out


def clustered_coverage(con, queries, studies):
    rows = run(con, f"{queries}/acceptance_clustered.sql")
    rows = rows[rows["cluster_by"] == "repository"]
    truth = 1.5 / (1.5 + 3.5)
    out = {}
    for name, lo, hi in (("cr1", "strict_clustered_ci_low", "strict_clustered_ci_high"), ("wilson", "strict_acceptance_rate_ci_low", "strict_acceptance_rate_ci_high")):
        covered = int(((rows[lo] <= truth) & (truth <= rows[hi])).sum())
        out[name] = {"covered": covered, "rate": covered / studies, "intervals": int(rows[lo].notna().sum())}
    out["clusters"] = sorted(set(int(c) for c in rows["clusters"]))
    return out


def main():
    macros, queries, studies, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    rng = np.random.default_rng(seed)
    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    con.execute(open(macros).read())
    outcomes = survival_table(rng, studies)
    con.register("outcomes", outcomes)
    result = {"studies": studies, **survival_coverage(con, queries, studies)}
    con.unregister("outcomes")
    flags = clustered_table(rng, studies)
    con.register("outcomes", flags)
    con.register("safe_outputs", pd.DataFrame({"safe_output_id": flags["safe_output_id"], "run_actor": None, "actor": "github-actions[bot]"}))
    con.execute(f"CREATE VIEW output_flags AS {open(f'{queries}/views/output_flags.sql').read()}")
    result.update(clustered_coverage(con, queries, studies))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
