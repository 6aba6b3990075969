"""An independent computation of the clustered intervals and the weighting of the acceptance rates, to check the
bundled queries acceptance_clustered and acceptance_weighting value by value.

Usage: rates_check.py DATASET_DIR CLUSTERED.json WEIGHTING.json

Reads the dataset's outcomes and safe_outputs (study_tables.output_flags), which sets the rates' flags from the statuses as
docs/DATASET.md defines them (not from the view output_flags), and computes per group with numpy:
each rate, its Wilson interval in the textbook's centre and half-width form, the cluster-robust
variance as the sum over clusters of each output's influence (y_i - p e_i) / N with CR1's factor,
the design effect as that variance without the factor over p(1-p)/N, and the weighting figures
(means of per-repository and per-developer rates, the busiest repositories' shares and the rates
without them). Prints JSON: the rows checked, how many clustered intervals were not NULL, and every
value that differs by more than 1e-9 or is NULL on one side only (the test wants none).
"""

import json
import math
import sys

import numpy as np
import pandas as pd

from study_tables import differ, load, output_flags

Z = 1.96
RATES = (("strict", "strict_acceptance_rate"), ("human_check", "human_check_acceptance_rate"), ("sticky_artifact", "sticky_artifact_rate"))
UNITS = (("repository", "repository"), ("developer", "developer"), ("run", "run_id"))


def wilson(k, n):
    """Wilson 1927: (p + z^2/2n -/+ z sqrt(p(1-p)/n + z^2/4n^2)) / (1 + z^2/n)."""
    if n == 0:
        return None, None
    p = k / n
    centre = p + Z * Z / (2 * n)
    half = Z * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n))
    return (centre - half) / (1 + Z * Z / n), (centre + half) / (1 + Z * Z / n)


def clustered(rows, flag, key):
    """The rate's CR1 interval and design effect over the clusters `key`, NULL where degenerate."""
    n = int(rows["evaluable"].sum())
    k = int(rows[flag].sum())
    clusters = rows.loc[rows["evaluable"] == 1, key].nunique()
    if clusters < 2 or k == 0 or k == n:
        return None, None, None
    p = k / n
    # Each output's influence on the ratio, summed within its cluster.
    influence = (rows[flag].to_numpy(float) - p * rows["evaluable"].to_numpy(float)) / n
    totals = pd.Series(influence).groupby(rows[key].to_numpy()).sum().to_numpy()
    raw = float(np.sum(totals**2))
    var = clusters / (clusters - 1) * raw
    se = math.sqrt(var)
    return max(0.0, p - Z * se), min(1.0, p + Z * se), raw / (p * (1 - p) / n)


def sort_key(value):
    return (value is None, value or "")


def clustered_rows(o):
    out = []
    keys = ["workflow_name", "safe_output_type", "eval_window"]
    groups = o.groupby(keys, dropna=False, sort=False)
    order = sorted(groups.groups.keys(), key=lambda g: (sort_key(g[0]), sort_key(None if pd.isna(g[1]) else g[1]), int(groups.get_group(g)["window_order"].iloc[0])))
    counted = 0
    for g in order:
        rows = groups.get_group(g)
        n = int(rows["evaluable"].sum())
        for unit, key in UNITS:
            row = {"workflow_name": g[0], "safe_output_type": None if pd.isna(g[1]) else g[1], "eval_window": g[2], "cluster_by": unit,
                   "evaluable_outputs": n, "clusters": int(rows.loc[rows["evaluable"] == 1, key].nunique())}
            for short, rate in RATES:
                k = int(rows[short].sum())
                lo, hi = wilson(k, n)
                c_lo, c_hi, deff = clustered(rows, short, key)
                counted += c_lo is not None
                row.update({rate: k / n if n else None, f"{rate}_ci_low": lo, f"{rate}_ci_high": hi,
                            f"{short}_clustered_ci_low": c_lo, f"{short}_clustered_ci_high": c_hi, f"{short}_design_effect": deff})
            out.append(row)
    return out, counted


def weighting_rows(o):
    out = []
    groups = o.groupby(["workflow_name", "eval_window"], sort=False)
    order = sorted(groups.groups.keys(), key=lambda g: (g[0], int(groups.get_group(g)["window_order"].iloc[0])))
    for g in order:
        rows = groups.get_group(g)
        n = int(rows["evaluable"].sum())
        flags = [short for short, _ in RATES]
        repos = rows.groupby("repository")[["evaluable", *flags]].sum()
        people = rows.groupby("developer")[["evaluable", *flags]].sum()
        # Busiest first, ties by name.
        ranked = sorted(repos.index, key=lambda r: (-int(repos.loc[r, "evaluable"]), r))
        row = {"workflow_name": g[0], "eval_window": g[1], "evaluable_outputs": n,
               "repositories": int((repos["evaluable"] > 0).sum()), "developers": int((people["evaluable"] > 0).sum())}
        top = {t: repos.loc[ranked[:t]] for t in (1, 5, 10)}
        for t, name in ((1, "top_1_repository_share"), (5, "top_5_repositories_share"), (10, "top_10_repositories_share")):
            row[name] = int(top[t]["evaluable"].sum()) / n if n else None
        for short, rate in RATES:
            k = int(rows[short].sum())
            row[rate] = k / n if n else None
            for what, by in (("repository_mean", repos), ("developer_mean", people)):
                judged = by[by["evaluable"] > 0]
                row[f"{rate}_{what}"] = float(np.mean(judged[short] / judged["evaluable"])) if len(judged) else None
            for t in (1, 5, 10):
                left = n - int(top[t]["evaluable"].sum())
                row[f"{rate}_without_top_{t}"] = (k - int(top[t][short].sum())) / left if left else None
        out.append(row)
    return out


def compare(name, got, want, mismatches):
    if len(got) != len(want):
        mismatches.append(f"{name}: {len(got)} rows, want {len(want)}")
        return
    for i, (g, w) in enumerate(zip(got, want)):
        if list(g) != list(w):
            mismatches.append(f"{name} row {i}: columns {list(g)}, want {list(w)}")
        for k in w:
            if differ(g.get(k), w[k]):
                mismatches.append(f"{name} row {i} ({w['workflow_name']}, {w['eval_window']}) {k}: {g.get(k)}, want {w[k]}")


def main():
    dataset, clustered_json, weighting_json = sys.argv[1:4]
    o = output_flags(dataset)
    want_clustered, intervals = clustered_rows(o)
    want_weighting = weighting_rows(o)
    mismatches = []
    compare("acceptance_clustered", load(clustered_json), want_clustered, mismatches)
    compare("acceptance_weighting", load(weighting_json), want_weighting, mismatches)
    print(json.dumps({"clustered_rows": len(want_clustered), "clustered_intervals": intervals, "weighting_rows": len(want_weighting), "mismatches": mismatches[:50]}))


if __name__ == "__main__":
    main()
