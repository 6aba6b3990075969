//! Do the intervals cover the truth as often as they say? Over 200 seeded synthetic studies whose
//! truth is known (tests/python/coverage_study.py: exponential times to acceptance and rejection
//! competing, independent censoring at capture; clustered binary acceptance in 50 repositories),
//! the bundled queries run through DuckDB (portable SQL: slt.rs checks DuckDB gives hindsight's
//! rows) and the 95% intervals are counted. 200 studies give a coverage of 0.95 within about
//! ±0.03 (two binomial standard errors, 0.015 each), so each rate must fall in 0.91 to 0.985.

use serde_json::Value;

use crate::support::{have, python, root, Tool};

const STUDIES: u32 = 200;
const SEED: u32 = 61;

fn rate(got: &Value, figure: &str) -> f64 {
    got[figure]["rate"].as_f64().unwrap_or_else(|| panic!("{figure}: {got}"))
}

/// The Kaplan-Meier log-log band at 10 hours and the CR1 clustered interval each cover the truth
/// about 95% of the time; the Wilson interval, which takes clustered outputs as independent,
/// clearly less (so the study can tell a too-narrow interval); the Aalen-Johansen estimates
/// (hindsight gives no interval of them) are unbiased: their mean error over the studies is
/// within 3.5 standard errors of that mean.
#[test]
fn the_95_percent_intervals_cover_the_truth_about_95_percent_of_the_time() {
    if !have(&[Tool::Python]) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let macros = tmp.path().join("macros.sql");
    std::fs::write(&macros, hindsight::report::wilson::duckdb_macros()).unwrap();
    let out = std::process::Command::new(python())
        .arg(root().join("tests/python/coverage_study.py"))
        .arg(&macros)
        .arg(root().join("queries"))
        .args([STUDIES.to_string(), SEED.to_string()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let got: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(got["studies"], STUDIES, "{got}");
    for figure in ["km_band", "cr1"] {
        let r = rate(&got, figure);
        assert!((0.91..=0.985).contains(&r), "{figure} covers the truth in {r} of {STUDIES} studies, want about 0.95: {got}");
    }
    // Every study has its 50 repositories and a clustered interval.
    assert_eq!(got["clusters"], serde_json::json!([50]), "{got}");
    assert_eq!(got["cr1"]["intervals"], STUDIES, "{got}");
    assert!(rate(&got, "wilson") < 0.85, "Wilson on clustered outputs should fall short of 95%: {got}");
    for figure in ["cif_accepted", "cif_rejected"] {
        let z = got[figure]["mean_error_in_se"].as_f64().unwrap();
        assert!(z.abs() < 3.5, "{figure}: mean error {z} standard errors from the truth: {got}");
    }
}
