"""An independent computation of time to outcome with censoring, to check the bundled queries
time_to_outcome and time_to_outcome_summary value by value.

Usage: survival_check.py OUTCOMES.parquet CURVE.json SUMMARY.json

Reads the snapshot window's outcomes (study_tables.survival_subjects) and computes, per workflow and safe-output
type, with plain Python loops over each time (no window functions, no logarithms: products as
products): who is at risk, Kaplan-Meier with rejection as censoring, Greenwood's variance and
its log-log band, the Aalen-Johansen cumulative incidence of each outcome, the median from KM
and its Brookmeyer-Crowley interval, and the restricted mean. Prints JSON: the rows checked and
every value that differs by more than 1e-9 (the test wants none).
"""

import json
import math
import statistics
import sys
from fractions import Fraction

from study_tables import TOL, differ, load, survival_subjects

Z = 1.959963984540054


def curve(subjects):
    """One dict per distinct time, in time order."""
    on = [(h, k) for h, k in subjects if h is not None]
    times = sorted({h for h, _ in on})
    km, km_exact, s_all, greenwood = 1.0, Fraction(1), 1.0, 0.0
    cif = {"accepted": 0.0, "rejected": 0.0}
    seen_acceptance = False
    rows = []
    for t in times:
        n = sum(1 for h, _ in on if h >= t)
        d = {k: sum(1 for h, kk in on if h == t and kk == k) for k in ("accepted", "rejected", "censored")}
        # Aalen-Johansen: weighted by overall survival just before t.
        for k in ("accepted", "rejected"):
            cif[k] += s_all * d[k] / n
        s_all *= 1 - (d["accepted"] + d["rejected"]) / n
        km *= 1 - d["accepted"] / n
        km_exact *= 1 - Fraction(d["accepted"], n)
        if d["accepted"] < n:
            greenwood += d["accepted"] / (n * (n - d["accepted"]))
        seen_acceptance = seen_acceptance or d["accepted"] > 0
        if km_exact == 0:
            lo = hi = 0.0
        elif not seen_acceptance:
            lo = hi = 1.0
        else:
            se = math.sqrt(greenwood) / abs(math.log(km))
            lo, hi = km ** math.exp(Z * se), km ** math.exp(-Z * se)
        rows.append(dict(hours=t, n_at_risk=n, accepted_events=d["accepted"], rejected_events=d["rejected"],
                         censored=d["censored"], km_not_accepted=km, km_exact=km_exact, km_lower_95=lo,
                         km_upper_95=hi, cif_accepted=cif["accepted"], cif_rejected=cif["rejected"]))
    return rows


def summary(subjects, rows):
    first = lambda pred: next((r["hours"] for r in rows if pred(r)), None)
    out = dict(outputs=len(subjects), excluded=sum(1 for h, _ in subjects if h is None),
               accepted=sum(r["accepted_events"] for r in rows), rejected=sum(r["rejected_events"] for r in rows),
               censored=sum(r["censored"] for r in rows))
    # The median from the exact product, so an exact 0.5 is 0.5.
    out["median_hours"] = first(lambda r: r["km_exact"] <= Fraction(1, 2))
    out["median_lower_95"] = first(lambda r: r["km_lower_95"] <= 0.5 + 1e-12)
    out["median_upper_95"] = first(lambda r: r["km_upper_95"] <= 0.5 + 1e-12)
    accepted = [h for h, k in subjects if k == "accepted" and h is not None]
    out["naive_median_accepted_hours"] = statistics.median(accepted) if accepted else None
    if not rows:
        for k in ("tau_hours", "rmst_hours", "rmst_lower_95", "rmst_upper_95", "cif_accepted_at_tau", "cif_rejected_at_tau"):
            out[k] = None
        return out
    tau = rows[-1]["hours"]
    # The area under the step function S from 0 to tau, and from each time to tau.
    edges = [0.0] + [r["hours"] for r in rows]
    levels = [1.0] + [r["km_not_accepted"] for r in rows]
    pieces = [levels[i] * (edges[i + 1] - edges[i]) for i in range(len(rows))]
    rmst = sum(pieces)
    var = 0.0
    for i, r in enumerate(rows):
        ahead = sum(pieces[i + 1:])
        d, n = r["accepted_events"], r["n_at_risk"]
        if 0 < d < n:
            var += ahead * ahead * d / (n * (n - d))
    half = Z * math.sqrt(var)
    out.update(tau_hours=tau, rmst_hours=rmst, rmst_lower_95=max(0.0, rmst - half), rmst_upper_95=min(tau, rmst + half),
               cif_accepted_at_tau=rows[-1]["cif_accepted"], cif_rejected_at_tau=rows[-1]["cif_rejected"])
    return out


def main():
    outcomes, curve_json, summary_json = sys.argv[1:4]
    got_curve = load(curve_json)
    got_summary = load(summary_json)
    want_curve, want_summary = [], []
    for key, subjects in sorted(survival_subjects(outcomes).items()):
        rows = curve(subjects)
        excluded = sum(1 for h, _ in subjects if h is None)
        for r in rows:
            row = {"workflow_name": key[0], "safe_output_type": key[1], **r, "excluded": excluded}
            row.pop("km_exact")
            want_curve.append(row)
        want_summary.append({"workflow_name": key[0], "safe_output_type": key[1], **summary(subjects, rows)})
    mismatches = []
    for name, got, want in (("time_to_outcome", got_curve, want_curve), ("time_to_outcome_summary", got_summary, want_summary)):
        if len(got) != len(want):
            mismatches.append(f"{name}: {len(got)} rows, want {len(want)}")
            continue
        for i, (g, w) in enumerate(zip(got, want)):
            if set(g) != set(w):
                mismatches.append(f"{name} row {i}: columns {sorted(g)}, want {sorted(w)}")
            for k in w:
                if differ(g.get(k), w[k]):
                    mismatches.append(f"{name} row {i} ({w['workflow_name']}, {w['safe_output_type']}) {k}: {g.get(k)}, want {w[k]}")
    print(json.dumps({"curve_rows": len(want_curve), "summary_rows": len(want_summary), "mismatches": mismatches}))


if __name__ == "__main__":
    main()
