//! Seed 004's PR risk level on the demo's CI-gate PRs (fixtures/make_demo.py `ci_loop`: one
//! PR per level), a PR whose files were not captured, and risk against outcome in the
//! dashboard.

use serde_json::Value;

use super::support::ok;

#[test]
fn every_risk_level_with_its_reasons_and_the_dashboard_section() {
    let tmp = tempfile::tempdir().unwrap();
    ok(&["run", "--out", "ds", "--quiet"], tmp.path());
    let q = "SELECT pull_number, risk_level, files, additions, deletions, reasons FROM pr_risk WHERE pull_number >= 130 ORDER BY pull_number";
    let rows: Vec<Value> = serde_json::from_str(&ok(&["report", "--dataset", "ds", "--sql", q, "--format", "json"], tmp.path())).unwrap();
    let got: Vec<(i64, &str)> = rows.iter().map(|r| (r["pull_number"].as_i64().unwrap(), r["risk_level"].as_str().unwrap())).collect();
    // As laid out in the demo: a small change with tests; six files (moderate surface); an
    // exported function added; a migration; a dependency bumped; a CI workflow changed.
    assert_eq!(got, [(130, "low"), (131, "medium"), (132, "high"), (133, "critical"), (134, "high"), (135, "critical")]);
    let reasons = |i: usize| -> Vec<String> { serde_json::from_str(rows[i]["reasons"].as_str().unwrap()).unwrap() };
    assert_eq!(reasons(0), Vec::<String>::new());
    // Five files of +10/-2 and a test file of +6: 6 files, 56 + 10 = 66 lines.
    assert_eq!(reasons(1), ["medium: moderate change surface (6 files, 66 lines)"]);
    assert_eq!(reasons(2), ["high: public API added in `src/stats/frame.ts`"]);
    assert_eq!(reasons(3), ["critical: database schema or migration `db/migrations/0042_add_index.sql`"]);
    assert_eq!(reasons(4), ["high: dependency manifest `package.json`"]);
    assert_eq!(reasons(5), ["critical: CI/CD pipeline `.github/workflows/ci.yml`"]);
    assert_eq!((rows[1]["files"].as_i64(), rows[1]["additions"].as_i64(), rows[1]["deletions"].as_i64()), (Some(6), Some(56), Some(10)));
    // A PR whose files were not captured has no level, never `low`.
    let unknown: Vec<Value> = serde_json::from_str(&ok(
        &["report", "--dataset", "ds", "--sql", "SELECT risk_level, reasons FROM pr_risk WHERE pull_number = 101", "--format", "json"],
        tmp.path(),
    ))
    .unwrap();
    assert!(unknown[0]["risk_level"].is_null());
    assert!(unknown[0]["reasons"].as_str().unwrap().contains("not captured"));
    // The thresholds in force are in the manifest.
    let m: Value = serde_json::from_str(&std::fs::read_to_string(tmp.path().join("ds/manifest.json")).unwrap()).unwrap();
    assert_eq!(m["risk_policy"]["large_lines"], 500);
    // The dashboard (JSON too) has risk against outcome, every PR counted once.
    let dash: Value = serde_json::from_str(&ok(&["report", "--dataset", "ds", "--format", "json"], tmp.path())).unwrap();
    let section = dash["risk_by_outcome"].as_array().unwrap();
    let levels: Vec<&str> = section.iter().map(|r| r["risk_level"].as_str().unwrap()).collect();
    assert_eq!(levels, ["low", "medium", "high", "critical", "(unknown)"]);
    let total: i64 = section.iter().map(|r| r["prs"].as_i64().unwrap()).sum();
    let prs: Vec<Value> =
        serde_json::from_str(&ok(&["report", "--dataset", "ds", "--sql", "SELECT COUNT(*) AS n FROM pr_risk", "--format", "json"], tmp.path())).unwrap();
    assert_eq!(Some(total), prs[0]["n"].as_i64());
}
