//! Comparisons corrected for testing many (queries/acceptance_comparisons.sql and the dashboard
//! section of that name, queries/aidev/task_comparisons.sql): a 2x2 table worked by hand, Fisher's
//! p from the hypergeometric probabilities summed here, Holm's and Benjamini-Hochberg's
//! adjustments of two p-values; the reference check against scipy and statsmodels is in
//! reference.rs.

use serde_json::Value;

use crate::rates::{study, Pr};

/// n choose k as a float (small n only).
fn choose(n: u64, k: u64) -> f64 {
    (1..=k).map(|i| (n - k + i) as f64 / i as f64).product()
}

/// Fisher's two-sided p of [[a, b], [c, d]], summed here from the hypergeometric probabilities
/// of every table with the same margins no more probable than the observed one.
fn fisher_by_enumeration(a: u64, b: u64, c: u64, d: u64) -> f64 {
    let (row1, row2, col1) = (a + b, c + d, a + c);
    let prob = |x: u64| choose(row1, x) * choose(row2, col1 - x) / choose(row1 + row2, col1);
    let observed = prob(a);
    (col1.saturating_sub(row2)..=row1.min(col1)).map(prob).filter(|q| *q <= observed * (1.0 + 1e-7)).sum()
}

fn prs(workflow: &'static str, n: usize, merged: usize) -> impl Iterator<Item = Pr> {
    (0..n).map(move |i| Pr { workflow, repo: format!("acme/{workflow}{i}"), run: format!("{workflow}-{i}"), person: "ana", merged: i < merged })
}

fn num(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("{v} is not a number"))
}

/// Two workflows in the snapshot window: `fixer` 9 of 10 PRs merged, `other` 2 of 10. Each row's
/// table is its workflow against the other: [[9, 1], [2, 8]] and [[2, 8], [9, 1]], the same
/// margins, so one p-value (Fisher, two-sided); odds ratios 9*8/(1*2) = 36 and its inverse.
/// With two tests in the family, Holm doubles the smaller p (here both: 2p) and
/// Benjamini-Hochberg leaves the largest as it is (p, and the other no more than it: p).
#[test]
fn two_workflows_each_against_the_other() {
    let tmp = tempfile::tempdir().unwrap();
    study(tmp.path(), &prs("fixer", 10, 9).chain(prs("other", 10, 2)).collect::<Vec<_>>());
    let figures = hindsight::report::figures(&tmp.path().into(), &["acceptance_comparisons"], Default::default()).unwrap();
    let rows = figures["acceptance_comparisons"].as_array().unwrap().clone();
    assert_eq!(rows.len(), 2, "{rows:?}");
    let p = fisher_by_enumeration(9, 1, 2, 8);
    assert!(p > 0.001 && p < 0.01, "{p}");
    for (r, (workflow, table, odds)) in rows.iter().zip([("fixer", [9, 1, 2, 8], 36.0), ("other", [2, 8, 9, 1], 1.0 / 36.0)]) {
        assert_eq!(r["workflow_name"], workflow, "{r}");
        let got: Vec<i64> = ["accepted", "not_accepted", "rest_accepted", "rest_not_accepted"].iter().map(|k| r[*k].as_i64().unwrap()).collect();
        assert_eq!(got, table, "{r}");
        assert!((num(&r["odds_ratio"]) - odds).abs() < 1e-9, "{r}");
        assert_eq!(r["test"], "fisher", "{r}");
        assert!((num(&r["p_value"]) - p).abs() < 1e-12, "{r}: want p {p}");
        assert!((num(&r["p_holm"]) - 2.0 * p).abs() < 1e-12, "{r}");
        assert!((num(&r["p_bh"]) - p).abs() < 1e-12, "{r}");
    }
}

/// A workflow alone in its window has nothing to be compared with: no test, no p-value, no
/// place in a family, and no rest to have a rate or an odds ratio against.
#[test]
fn a_workflow_alone_is_not_tested() {
    let tmp = tempfile::tempdir().unwrap();
    study(tmp.path(), &prs("solo", 5, 0).collect::<Vec<_>>());
    let figures = hindsight::report::figures(&tmp.path().into(), &["acceptance_comparisons"], Default::default()).unwrap();
    let rows = figures["acceptance_comparisons"].as_array().unwrap();
    assert_eq!(rows.len(), 1, "{rows:?}");
    for k in ["test", "p_value", "p_holm", "p_bh", "rest_strict_acceptance_rate", "odds_ratio"] {
        assert!(rows[0][k].is_null(), "{k}: {}", rows[0]);
    }
    assert_eq!(rows[0]["not_accepted"], 5);
}
