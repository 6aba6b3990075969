//! hindsight's figures against the reference implementations a reviewer would reach for, on the
//! demo and on a synthetic study of 3,000 outputs in 30 repositories (tests/python/reference_check.py):
//! lifelines' Kaplan-Meier (survival, its log-log band, the median and its interval, the restricted
//! mean) and Aalen-Johansen (each outcome's cumulative incidence), statsmodels' Wilson interval, and
//! for the comparisons scipy's Fisher exact test (p-value, odds ratio) and statsmodels' Holm and
//! Benjamini-Hochberg adjustments (also on the AIDev fixture, its task types), each to 1e-9.

use std::path::Path;

use serde_json::Value;

use crate::support::{demo, have, ok, python, root, Tool};

/// The bundled queries the reference check reads.
const QUERIES: &[&str] = &["time_to_outcome", "time_to_outcome_summary", "acceptance_clustered"];

/// The dashboard sections with tests, and the file reference_check.py reads each from.
const SECTIONS: &[(&str, &str)] = &[("acceptance_comparisons", "acceptance_comparisons"), ("aidev/task_comparisons", "aidev_task_comparisons")];

/// `report --query NAME --format json` for each of [`QUERIES`] on `ds`, and the dashboard's
/// [`SECTIONS`] it has (`report --format json`), written into `out`, then reference_check.py's verdict: how many values it compared per figure, the largest
/// difference of each, and every value that differs by more than 1e-9 (asserted none).
pub(crate) fn reference_check(ds: &Path, out: &Path) -> Value {
    std::fs::create_dir_all(out).unwrap();
    let d = ds.to_str().unwrap();
    for q in QUERIES {
        std::fs::write(out.join(format!("{q}.json")), ok(&["report", "--dataset", d, "--query", q, "--format", "json"], out)).unwrap();
    }
    let dashboard: Value = serde_json::from_str(&ok(&["report", "--dataset", d, "--format", "json"], out)).unwrap();
    for (section, file) in SECTIONS {
        if let Some(rows) = dashboard.get(*section) {
            std::fs::write(out.join(format!("{file}.json")), rows.to_string()).unwrap();
        }
    }
    let run = std::process::Command::new(python()).arg(root().join("tests/python/reference_check.py")).arg(ds).arg(out).output().unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let got: Value = serde_json::from_slice(&run.stdout).unwrap();
    assert_eq!(got["mismatches"], serde_json::json!([]), "{}: {got}", ds.display());
    got
}

fn compared(got: &Value, figure: &str) -> u64 {
    got["compared"][figure].as_u64().unwrap_or(0)
}

/// On the demo and a synthetic study, every survival figure equals lifelines', every Wilson
/// interval statsmodels', and every comparison's p-value and odds ratio scipy's and its adjusted
/// p-values statsmodels', to 1e-9 (the p-values to 1e-9 of their own size too, however small);
/// enough of each is compared that a figure left out would show.
#[test]
fn the_figures_agree_with_lifelines_scipy_and_statsmodels() {
    if !have(&[Tool::Python]) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let ds = demo(dir);
    ok(&["synth", "--quiet", "--repos", "30", "--outputs", "3000", "--seed", "7", "--out", "synth-in"], dir);
    ok(&["run", "--quiet", "--snapshot", "synth-in/snapshot", "--runs", "synth-in/runs", "--out", "synth"], dir);
    let demo = reference_check(&ds, &dir.join("demo-json"));
    let synth = reference_check(&dir.join("synth"), &dir.join("synth-json"));
    for (got, curve, groups) in [(&demo, 20, 10), (&synth, 1000, 20)] {
        for figure in ["km_not_accepted", "km_lower_95", "km_upper_95", "cif_accepted", "cif_rejected"] {
            assert!(compared(got, figure) >= curve, "{figure}: {got}");
        }
        for figure in ["median_hours", "median_lower_95", "median_upper_95", "rmst_hours"] {
            assert!(compared(got, figure) >= groups, "{figure}: {got}");
        }
        assert!(compared(got, "wilson_low") >= 200 && compared(got, "wilson_high") >= 200, "{got}");
        for figure in ["p_value", "odds_ratio", "p_holm", "p_bh"] {
            assert!(compared(got, figure) >= 50, "{figure}: {got}");
        }
        assert!(got["max_rel_diff"]["p_value"].as_f64().unwrap() < 1e-9, "{got}");
    }
    // The synthetic study's comparisons reach p-values far below 1e-9, where only the relative
    // difference tells.
    assert!(synth["max_rel_diff"]["p_value"].is_number(), "{synth}");
}

/// On the AIDev fixture, the comparisons by agent and type and by agent and task type agree with
/// scipy and statsmodels.
#[test]
fn an_aidev_imports_comparisons_agree_with_scipy_and_statsmodels() {
    if !have(&[Tool::Python]) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let fx = root().join("fixtures/aidev");
    ok(&["import", "aidev", fx.to_str().unwrap(), "--out", "aidev", "--captured-at", "2025-07-31T00:00:00Z", "--quiet"], dir);
    let got = reference_check(&dir.join("aidev"), &dir.join("aidev-json"));
    assert!(dir.join("aidev-json/aidev_task_comparisons.json").is_file(), "{got}");
    assert!(compared(&got, "p_value") >= 10 && compared(&got, "p_holm") >= 10, "{got}");
}
