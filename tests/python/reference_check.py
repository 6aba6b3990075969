"""hindsight's figures against the reference implementations researchers use, on one dataset.

Usage: reference_check.py DATASET_DIR JSON_DIR

JSON_DIR holds what `hindsight report --format json` printed for the dataset: the bundled
queries time_to_outcome.json, time_to_outcome_summary.json and acceptance_clustered.json, and,
when present, the dashboard sections' rows acceptance_comparisons.json (and, on an AIDev import,
aidev_task_comparisons.json). Compared, per workflow and safe-output type on the snapshot
window's curve (study_tables.survival_subjects):

- lifelines KaplanMeierFitter (acceptance as the event, rejection and still open as censoring):
  S(t) at every time on the curve, its 95% interval (lifelines' "exponential Greenwood", the
  log-log band hindsight draws), the median (median_survival_time_) and its interval
  (median_survival_times of the band), and the restricted mean to tau
  (utils.restricted_mean_survival_time). lifelines' variance of the restricted mean is another
  quantity (of a subject's restricted time, not of the estimate), so it is not compared.
- lifelines AalenJohansenFitter: the cumulative incidence of acceptance and of rejection at
  every time. lifelines jitters tied times apart by default (at random); its formula handles
  ties as the textbook does, so it is fitted with them kept (Fitter below).
- statsmodels proportion_confint(method="wilson") for each rate's Wilson interval in
  acceptance_clustered, at hindsight's z = 1.96 (alpha = 2 * norm.sf(1.96)).
- scipy.stats.fisher_exact (two-sided) for each comparison's p-value and odds ratio (the cell's
  2x2 table against the rest of its family), and statsmodels multipletests (holm, fdr_bh) for
  the p-values adjusted across the family (a window's cells; on an AIDev import's task types,
  the study's).

Prints JSON: how many values were compared per figure, the largest absolute difference of each
(and the largest relative difference of the p-values above 1e-300), and every value that
differs by more than 1e-9 (the test wants none).
"""

import json
import math
import os
import sys
import warnings

import numpy as np
import pandas as pd
from lifelines import AalenJohansenFitter, KaplanMeierFitter
from lifelines.utils import median_survival_times, restricted_mean_survival_time
from scipy import stats
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import proportion_confint

from study_tables import TOL, load, survival_subjects

RATES = ("strict_acceptance_rate", "human_check_acceptance_rate", "sticky_artifact_rate")


class AalenJohansenTiesKept(AalenJohansenFitter):
    """lifelines' Aalen-Johansen, ties kept: its estimate at a time with several events is the
    textbook's (each event weighted by the overall survival just before it)."""

    def _check_for_duplicates(self, durations, events):
        return False


class Tally:
    def __init__(self):
        self.compared, self.max_diff, self.max_rel, self.mismatches = {}, {}, {}, []

    def relative(self, figure, got, want):
        """The relative difference, recorded (a tiny p-value agrees to 1e-9 whatever its digits)."""
        if got is not None and want:
            self.max_rel[figure] = max(self.max_rel.get(figure, 0.0), abs(got - want) / abs(want))

    def check(self, figure, got, want, where):
        """One value: hindsight's `got` against the reference's `want` (None and inf: NULL)."""
        if want is not None and isinstance(want, float) and (math.isinf(want) or math.isnan(want)):
            want = None
        self.compared[figure] = self.compared.get(figure, 0) + 1
        if got is None or want is None:
            if (got is None) != (want is None):
                self.mismatches.append(f"{figure} {where}: {got}, reference {want}")
            return
        d = abs(float(got) - float(want))
        self.max_diff[figure] = max(self.max_diff.get(figure, 0.0), d)
        if d > TOL:
            self.mismatches.append(f"{figure} {where}: {got}, reference {want}")


def by_group(rows):
    out = {}
    for r in rows:
        out.setdefault((r["workflow_name"], r["safe_output_type"]), []).append(r)
    return out


def survival(subjects_by_group, curve, summary, t):
    curves = by_group(curve)
    for s in summary:
        key = (s["workflow_name"], s["safe_output_type"])
        on = [(h, k) for h, k in subjects_by_group[key] if h is not None]
        if not on:
            continue
        hours = np.array([h for h, _ in on], dtype=float)
        accepted = np.array([k == "accepted" for _, k in on])
        kmf = KaplanMeierFitter().fit(hours, event_observed=accepted)
        sf = kmf.survival_function_.iloc[:, 0]
        band = kmf.confidence_interval_
        code = np.array([{"accepted": 1, "rejected": 2}.get(k, 0) for _, k in on])
        cif = {}
        for event, name in ((1, "cif_accepted"), (2, "cif_rejected")):
            ajf = AalenJohansenTiesKept(calculate_variance=False).fit(hours, code, event_of_interest=event)
            cif[name] = ajf.cumulative_density_.iloc[:, 0]
        for r in curves.get(key, []):
            where = f"{key} t={r['hours']}"
            t.check("km_not_accepted", r["km_not_accepted"], float(sf.loc[r["hours"]]), where)
            t.check("km_lower_95", r["km_lower_95"], float(band.iloc[:, 0].loc[r["hours"]]), where)
            t.check("km_upper_95", r["km_upper_95"], float(band.iloc[:, 1].loc[r["hours"]]), where)
            for name, c in cif.items():
                t.check(name, r[name], float(c.loc[r["hours"]]), where)
        t.check("median_hours", s["median_hours"], float(kmf.median_survival_time_), key)
        ci = median_survival_times(band)
        t.check("median_lower_95", s["median_lower_95"], float(ci.iloc[0, 0]), key)
        t.check("median_upper_95", s["median_upper_95"], float(ci.iloc[0, 1]), key)
        t.check("rmst_hours", s["rmst_hours"], float(restricted_mean_survival_time(kmf, t=float(hours.max()))), key)


def wilson(clustered, t):
    """Each rate's Wilson interval, once per group (the same on every cluster unit)."""
    alpha = 2 * stats.norm.sf(1.96)
    for r in clustered:
        if r["cluster_by"] != "repository" or not r["evaluable_outputs"]:
            continue
        n = r["evaluable_outputs"]
        for rate in RATES:
            k = round(r[rate] * n)
            lo, hi = proportion_confint(k, n, alpha=alpha, method="wilson")
            where = (r["workflow_name"], r["safe_output_type"], r["eval_window"], rate)
            t.check("wilson_low", r[f"{rate}_ci_low"], float(lo), where)
            t.check("wilson_high", r[f"{rate}_ci_high"], float(hi), where)


def comparisons(rows, family_keys, counts, t):
    """Each row's p-value and odds ratio from its 2x2 table (scipy), and the family's adjusted
    p-values (statsmodels); `counts` names the table's columns, `family_keys` the family's."""
    families = {}
    for r in rows:
        families.setdefault(tuple(r[k] for k in family_keys), []).append(r)
    for fam, members in families.items():
        tested = [r for r in members if r["p_value"] is not None]
        for r in members:
            a, b, c, d = (r[k] for k in counts)
            where = (fam, a, b, c, d)
            if r["test"] == "fisher":
                odds, p = stats.fisher_exact([[a, b], [c, d]], alternative="two-sided")
                t.check("p_value", r["p_value"], float(p), where)
                if p > 1e-300:
                    t.relative("p_value", r["p_value"], float(p))
                # scipy's ratio is infinite or undefined where hindsight's is NULL.
                t.check("odds_ratio", r["odds_ratio"], float(odds), where)
            else:
                # No test: no other cell in the family.
                t.check("untested rows", r["p_value"], None, where)
                if c + d != 0:
                    t.mismatches.append(f"untested {where}: the family has other cells")
        if tested:
            ps = [r["p_value"] for r in tested]
            for method, col in (("holm", "p_holm"), ("fdr_bh", "p_bh")):
                adjusted = multipletests(ps, method=method)[1]
                for r, a in zip(tested, adjusted):
                    t.check(col, r[col], float(a), fam)


def main():
    dataset, jdir = sys.argv[1:3]
    warnings.simplefilter("ignore")
    t = Tally()
    survival(survival_subjects(f"{dataset}/outcomes.parquet"), load(f"{jdir}/time_to_outcome.json"), load(f"{jdir}/time_to_outcome_summary.json"), t)
    wilson(load(f"{jdir}/acceptance_clustered.json"), t)
    tables = {
        "acceptance_comparisons": (("eval_window",), ("accepted", "not_accepted", "rest_accepted", "rest_not_accepted")),
        "aidev_task_comparisons": ((), ("merged", "not_merged", "rest_merged", "rest_not_merged")),
    }
    for name, (keys, counts) in tables.items():
        if os.path.exists(f"{jdir}/{name}.json"):
            comparisons(load(f"{jdir}/{name}.json"), keys, counts, t)
    print(json.dumps({"compared": t.compared, "max_abs_diff": t.max_diff, "max_rel_diff": t.max_rel, "mismatches": t.mismatches[:50]}))


if __name__ == "__main__":
    main()
