//! The PR risk level (docs/SPEC.md [SPEC-TASKS-TIER3]) on the demo's CI-gate PRs (fixtures/make_demo.py `ci_loop`: one
//! PR per level), a PR whose files were not captured, and risk against outcome in the
//! dashboard.

use serde_json::{json, Value};

use super::support::{demo, ok};

#[test]
fn every_risk_level_with_its_reasons_and_the_dashboard_section() {
    let tmp = tempfile::tempdir().unwrap();
    demo(tmp.path());
    let q = "SELECT pull_number, risk_level, files, additions, deletions, reasons FROM pr_risk WHERE pull_number >= 130 AND safe_output_id IS NOT NULL ORDER BY pull_number";
    let rows: Vec<Value> = serde_json::from_str(&ok(&["report", "--dataset", "ds", "--sql", q, "--format", "json"], tmp.path())).unwrap();
    let got: Vec<(i64, &str)> = rows.iter().map(|r| (r["pull_number"].as_i64().unwrap(), r["risk_level"].as_str().unwrap())).collect();
    // As laid out in the demo: a small change with tests; six files (moderate surface); an
    // exported function added; a migration; a dependency replaced by a new one; a CI
    // workflow changed.
    assert_eq!(got, [(130, "low"), (131, "medium"), (132, "high"), (133, "critical"), (134, "high"), (135, "critical")]);
    let reasons = |i: usize| -> Vec<String> { serde_json::from_str(rows[i]["reasons"].as_str().unwrap()).unwrap() };
    let q = "SELECT pull_number, modules, new_dependencies FROM pr_risk WHERE pull_number >= 130 AND safe_output_id IS NOT NULL ORDER BY pull_number";
    let rows_modules: Vec<Value> = serde_json::from_str(&ok(&["report", "--dataset", "ds", "--sql", q, "--format", "json"], tmp.path())).unwrap();
    assert_eq!(reasons(0), Vec::<String>::new());
    // Five files of +10/-2 and a test file of +6: 6 files, 56 + 10 = 66 lines.
    assert_eq!(reasons(1), ["medium: moderate change surface (6 files, 66 lines)"]);
    assert_eq!(reasons(2), ["high: public API added in `src/stats/frame.ts`"]);
    assert_eq!(reasons(3), ["critical: database schema or migration `db/migrations/0042_add_index.sql`"]);
    // The manifest's diff tells the new dependency (date-fns) from the one it removes.
    assert_eq!(reasons(4), ["high: new dependencies in `package.json`: date-fns", "low: dependencies removed from `package.json`: left-pad"]);
    let modules = |i: usize| rows_modules[i]["modules"].as_str().unwrap().to_string();
    assert_eq!((modules(0), modules(3), modules(4)), ("src/stats\ntests/stats".to_string(), "db/migrations\ntests/db".to_string(), ".\ntests".to_string()));
    assert_eq!(rows_modules[4]["new_dependencies"], "package.json: date-fns");
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
    // The demo's task PRs (140-147) are assessed too, by task: their files were not captured.
    let tasks: Vec<Value> = serde_json::from_str(&ok(
        &[
            "report",
            "--dataset",
            "ds",
            "--sql",
            "SELECT task_id, pull_number, risk_level FROM pr_risk WHERE task_id IS NOT NULL ORDER BY task_id",
            "--format",
            "json",
        ],
        tmp.path(),
    ))
    .unwrap();
    assert_eq!(tasks.iter().map(|r| r["pull_number"].as_i64().unwrap()).collect::<Vec<_>>(), (140..=147).collect::<Vec<_>>());
    assert!(tasks.iter().all(|r| r["risk_level"].is_null() && r["task_id"].as_str().unwrap().starts_with("task-")));
    // The dashboard (JSON too) has risk against outcome, every output's PR counted once.
    let dash: Value = serde_json::from_str(&ok(&["report", "--dataset", "ds", "--format", "json"], tmp.path())).unwrap();
    let section = dash["risk_by_outcome"].as_array().unwrap();
    let levels: Vec<&str> = section.iter().map(|r| r["risk_level"].as_str().unwrap()).collect();
    assert_eq!(levels, ["low", "medium", "high", "critical", "(unknown)"]);
    let total: i64 = section.iter().map(|r| r["prs"].as_i64().unwrap()).sum();
    let prs: Vec<Value> = serde_json::from_str(&ok(
        &["report", "--dataset", "ds", "--sql", "SELECT COUNT(*) AS n FROM pr_risk WHERE safe_output_id IS NOT NULL", "--format", "json"],
        tmp.path(),
    ))
    .unwrap();
    assert_eq!(Some(total), prs[0]["n"].as_i64());
}

/// risk_by_outcome labels its acceptance by evidence strength, as the other sections do:
/// strict (strong), human-check (strong or medium) and sticky (weak, or target exists only),
/// each over the level's evaluable PRs; no unlabeled rate that mixes them. Every figure is
/// recomputed here from the PR risk and outcome rows themselves.
#[test]
fn risk_by_outcome_splits_acceptance_by_evidence_strength() {
    use std::collections::BTreeMap;
    let tmp = tempfile::tempdir().unwrap();
    demo(tmp.path());
    let q = "SELECT COALESCE(r.risk_level, '(unknown)') AS level, o.outcome_status AS s, o.evidence_strength AS e, o.human_check_signal AS g \
             FROM pr_risk r JOIN outcomes o ON o.safe_output_id = r.safe_output_id AND o.eval_window = 'snapshot'";
    let rows: Vec<Value> = serde_json::from_str(&ok(&["report", "--dataset", "ds", "--sql", q, "--format", "json"], tmp.path())).unwrap();
    let mut by_level: BTreeMap<String, Vec<(String, String, String)>> = BTreeMap::new();
    for r in &rows {
        let f = |k: &str| r[k].as_str().unwrap_or_default().to_string();
        by_level.entry(f("level")).or_default().push((f("s"), f("e"), f("g")));
    }
    let round4 = |x: f64| (x * 10_000.0).round() / 10_000.0;
    let dash: Value = serde_json::from_str(&ok(&["report", "--dataset", "ds", "--format", "json"], tmp.path())).unwrap();
    let section = dash["risk_by_outcome"].as_array().unwrap();
    assert_eq!(section.len(), by_level.len());
    let mut strengths_differ = false;
    for row in section {
        let level = row["risk_level"].as_str().unwrap();
        assert!(row.get("acceptance_rate").is_none(), "an unlabeled acceptance rate is back: {row}");
        let outs = &by_level[level];
        let count = |f: &dyn Fn(&(String, String, String)) -> bool| outs.iter().filter(|o| f(o)).count() as i64;
        let evaluable = count(&|o| o.0 != "skipped" && o.0 != "unknown");
        let accepted = |strengths: &[&str]| count(&|o| o.0 == "accepted" && strengths.contains(&o.1.as_str()));
        let sticky = count(&|o| (o.0 == "accepted" && o.1 == "weak") || o.2 == "target_exists_only");
        assert_eq!(row["prs"].as_i64(), Some(outs.len() as i64), "{level}");
        assert_eq!(row["evaluable_prs"].as_i64(), Some(evaluable), "{level}");
        for (col, strength) in [("accepted_strong", "strong"), ("accepted_medium", "medium"), ("accepted_weak", "weak")] {
            assert_eq!(row[col].as_i64(), Some(accepted(&[strength])), "{level} {col}");
        }
        let rate = |n: i64| json!(round4(n as f64 / evaluable as f64));
        assert_eq!(row["strict_acceptance_rate"], rate(accepted(&["strong"])), "{level}");
        assert_eq!(row["human_check_acceptance_rate"], rate(accepted(&["strong", "medium"])), "{level}");
        assert_eq!(row["sticky_artifact_rate"], rate(sticky), "{level}");
        strengths_differ |= row["strict_acceptance_rate"] != row["sticky_artifact_rate"] && sticky > 0;
    }
    // The demo has a level where the strict and sticky rates part: the labels matter.
    assert!(strengths_differ);
}

/// `--risk-policy FILE`: the thresholds and patterns it sets decide the levels, the rest keep
/// their defaults, and the policy in force is in the manifest. On the demo: PR 131 (six
/// files, 66 lines, a test touched) is medium by its moderate surface under the default
/// (5 files); with 7 files and 100 lines it is low. PR 132's `src/stats/frame.ts` becomes
/// security-sensitive, so critical, when `frame` is a security path.
#[test]
fn a_risk_policy_file_sets_the_thresholds_and_is_recorded() {
    let tmp = tempfile::tempdir().unwrap();
    let p = tmp.path().join("risk.json");
    std::fs::write(&p, r#"{"moderate_files": 7, "security_paths": ["auth", "frame"]}"#).unwrap();
    ok(&["run", "--out", "ds", "--quiet", "--risk-policy", p.to_str().unwrap()], tmp.path());
    let q = "SELECT pull_number, risk_level, files, additions + deletions AS lines FROM pr_risk WHERE pull_number IN (131, 132) ORDER BY pull_number";
    let rows: Vec<Value> = serde_json::from_str(&ok(&["report", "--dataset", "ds", "--sql", q, "--format", "json"], tmp.path())).unwrap();
    let policy = hindsight::evaluate::risk::RiskPolicy { moderate_files: 7, security_paths: vec!["auth".into(), "frame".into()], ..Default::default() };
    // The surface is below both moderate thresholds: 131 has nothing else to raise it.
    assert!(rows[0]["files"].as_i64().unwrap() < policy.moderate_files && rows[0]["lines"].as_i64().unwrap() < policy.moderate_lines);
    assert_eq!((rows[0]["risk_level"].as_str(), rows[1]["risk_level"].as_str()), (Some("low"), Some("critical")));
    let m = hindsight::dataset::manifest::Manifest::load(&tmp.path().join("ds")).unwrap();
    assert_eq!(m.risk_policy, Some(policy.to_json()));
    // `evaluate` again without it: the defaults, recorded as such.
    ok(&["evaluate", "--dataset", "ds", "--quiet"], tmp.path());
    let m = hindsight::dataset::manifest::Manifest::load(&tmp.path().join("ds")).unwrap();
    assert_eq!(m.risk_policy, Some(hindsight::evaluate::risk::RiskPolicy::default().to_json()));
}

/// A bad risk policy stops before any work, with an error naming the file and the field.
#[test]
fn a_bad_risk_policy_names_the_file_and_the_field() {
    let tmp = tempfile::tempdir().unwrap();
    let cases = [
        (r#"{"large_line": 400}"#, "`large_line`"),
        (r#"{"large_lines": "400"}"#, "`large_lines`"),
        (r#"{"moderate_lines": 0}"#, "`moderate_lines`"),
        (r#"{"moderate_files": 30}"#, "`moderate_files` (30) must not exceed `large_files` (20)"),
        (r#"{"security_paths": ["auth", "Secrets"]}"#, "`security_paths[1]`"),
        (r#"{"security_paths": [""]}"#, "`security_paths[0]`"),
        (r#"{"moderate_dependents": 30}"#, "`moderate_dependents` (30) must not exceed `large_dependents` (25)"),
        (r#"{"dependents_distance": 0}"#, "`dependents_distance` must be at least 1"),
        (r#"[20, 500]"#, "expected a JSON object"),
    ];
    for (i, (text, field)) in cases.iter().enumerate() {
        let p = tmp.path().join(format!("risk-{i}.json"));
        std::fs::write(&p, text).unwrap();
        let out = crate::support::run(&["run", "--out", &format!("ds{i}"), "--quiet", "--risk-policy", p.to_str().unwrap()], tmp.path());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{text} was accepted");
        assert!(err.contains(&format!("risk-{i}.json")) && err.contains(field), "{text}: {err}");
        assert!(!tmp.path().join(format!("ds{i}")).exists(), "{text}: a dataset was written");
    }
}

/// schemas/risk-policy.schema.json documents every switch with the default the code has.
#[test]
fn risk_policy_schema_matches_the_code() {
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(crate::support::root().join("schemas/risk-policy.schema.json")).unwrap()).unwrap();
    let props = schema["properties"].as_object().unwrap();
    let defaults = hindsight::evaluate::risk::RiskPolicy::default().to_json();
    let defaults = defaults.as_object().unwrap();
    let (mut a, mut b): (Vec<&String>, Vec<&String>) = (props.keys().collect(), defaults.keys().collect());
    a.sort();
    b.sort();
    assert_eq!(a, b, "schema properties vs RiskPolicy fields");
    for (k, v) in defaults {
        assert_eq!(&props[k]["default"], v, "default of `{k}`");
    }
    assert_eq!(schema["additionalProperties"], json!(false));
}

/// A run's coverage report decides coverage of the lines its PRs change. The demo's
/// autoloop run (run-9009, PRs 130 to 135) with an LCOV report in an artifact folder:
/// `src/stats/query.ts` line 2 (the line PR 130 adds) ran; of PR 131's added lines (line 1
/// of `src/stats/a.ts` to `e.ts`) the report lists a.ts's, not run, and b.ts's, run: 1 of 2,
/// partial (medium; it was medium by its surface already). PR 132's file is not in the
/// report: said in `not_captured`, and the test-file proxy decides as before. A report that
/// is no report (run-9008's `coverage.xml`, not Cobertura) is quarantined, and every record
/// is used or quarantined.
#[test]
fn a_runs_coverage_report_decides_the_coverage_of_its_prs_changed_lines() {
    let tmp = tempfile::tempdir().unwrap();
    let lcov = "TN:\nSF:/home/runner/work/webapp/src/stats/query.ts\nDA:1,4\nDA:2,4\nend_of_record\nSF:/home/runner/work/webapp/src/stats/a.ts\nDA:1,0\nend_of_record\nSF:/home/runner/work/webapp/src/stats/b.ts\nDA:1,2\nend_of_record\n";
    let runs = demo_runs_with_lcov(&tmp.path().join("runs"), lcov);
    std::fs::write(runs.join("run-9008/coverage.xml"), "<?xml version=\"1.0\"?>\n<report><counter/></report>\n").unwrap();
    let study = super::support::Study { runs, ..super::support::Study::demo() };
    let ds = study.run(tmp.path(), "ds");
    let q = "SELECT pull_number, risk_level, changed_lines_covered, not_captured, reasons FROM pr_risk WHERE pull_number BETWEEN 130 AND 132 AND safe_output_id IS NOT NULL ORDER BY pull_number";
    let rows: Vec<Value> = serde_json::from_str(&ok(&["report", "--dataset", ds.to_str().unwrap(), "--sql", q, "--format", "json"], tmp.path())).unwrap();
    // The demo captured no tree: dependents are what its rows lack, beside coverage.
    const NO_TREE: &str = "repository tree and file contents (dependents of the changed files)";
    assert_eq!((rows[0]["risk_level"].as_str(), rows[0]["changed_lines_covered"].as_f64(), rows[0]["not_captured"].as_str()), (Some("low"), Some(1.0), Some(NO_TREE)));
    assert_eq!((rows[1]["risk_level"].as_str(), rows[1]["changed_lines_covered"].as_f64()), (Some("medium"), Some(0.5)));
    let reasons: Vec<String> = serde_json::from_str(rows[1]["reasons"].as_str().unwrap()).unwrap();
    assert!(reasons.contains(&"medium: partial coverage of the changed lines (1 of 2 run by the tests)".to_string()), "{reasons:?}");
    assert_eq!((rows[2]["changed_lines_covered"].clone(), rows[2]["not_captured"].as_str()), (Value::Null, Some(format!("{NO_TREE}\ncoverage of the changed lines (the run's report lists none of them)").as_str())));
    let cov = ok(&["report", "--dataset", ds.to_str().unwrap(), "--sql", "SELECT run_id, source_file, lines_found, lines_hit, covered_lines, uncovered_lines FROM coverage", "--format", "json"], tmp.path());
    let cov: Vec<Value> = serde_json::from_str(&cov).unwrap();
    assert_eq!(cov.len(), 3);
    assert_eq!((cov[0]["run_id"].as_str(), cov[0]["covered_lines"].as_str(), cov[0]["uncovered_lines"].as_str()), (Some("9009"), Some(""), Some("1")));
    let q = ok(&["report", "--dataset", ds.to_str().unwrap(), "--sql", "SELECT file, reason FROM quarantine WHERE input = 'runs' AND file LIKE '%coverage.xml'", "--format", "json"], tmp.path());
    let q: Vec<Value> = serde_json::from_str(&q).unwrap();
    assert_eq!(q.len(), 1);
    assert!(q[0]["reason"].as_str().unwrap().starts_with("coverage report: "), "{q:?}");
    let m: Value = serde_json::from_str(&std::fs::read_to_string(ds.join("manifest.json")).unwrap()).unwrap();
    let r = &m["records"]["runs"];
    assert_eq!(r["input"].as_i64(), Some(r["used"].as_i64().unwrap() + r["quarantined"].as_i64().unwrap()));
}

/// The demo's snapshot with a capture of its PRs' base tree (every demo PR has base
/// `ffff...`) where `importers` import PR 130's `src/stats/query.ts`: each file's text as
/// its blob, except `src/app.ts`, as its contents (the two shapes read).
fn snapshot_with_tree(dir: &std::path::Path, files: &[(&str, &str)]) -> std::path::PathBuf {
    let snap = dir.join("snapshot");
    super::support::copy_dir(&super::support::root().join("fixtures/demo/snapshot"), &snap);
    let repo = "repos/acme/webapp";
    let sha = |i: usize| format!("{:040x}", i + 1);
    let entries: Vec<Value> = files.iter().enumerate().map(|(i, (p, _))| json!({"path": p, "mode": "100644", "type": "blob", "sha": sha(i)})).collect();
    let folders = json!({"path": "src", "mode": "040000", "type": "tree", "sha": sha(99)});
    let tree = json!({"sha": "ffffffffffffffffffffffffffffffffffffffff", "tree": entries.into_iter().chain([folders]).collect::<Vec<_>>(), "truncated": false});
    let mut lines = vec![json!({"path": format!("{repo}/git/trees/ffffffffffffffffffffffffffffffffffffffff"), "status": 200, "body": tree})];
    for (i, (p, text)) in files.iter().enumerate() {
        let content = json!({"encoding": "base64", "content": super::ci_gate::base64(text.as_bytes())});
        let path = if *p == "src/app.ts" { format!("{repo}/contents/{p}") } else { format!("{repo}/git/blobs/{}", sha(i)) };
        lines.push(json!({"path": path, "status": 200, "body": content}));
    }
    std::fs::write(snap.join("capture-9999.jsonl"), lines.iter().map(Value::to_string).collect::<Vec<_>>().join("\n") + "\n").unwrap();
    snap
}

/// T-R03 and T-R10: the dependents of a PR's changed files, from the captured base tree and
/// its files' text. PR 130 changes `src/stats/query.ts` and `summary.ts` (and a test);
/// `report.ts` imports `./query` (distance 1), `app.ts` imports `./stats/report.js`
/// (distance 2), `other.ts` nothing, and the PR's own test is not a dependent. Under the
/// default policy two dependents leave PR 130 low; with `moderate_dependents` at two it is
/// medium, the reason saying how many and how far; with `large_dependents` at two, high;
/// with `dependents_distance` 1 only `report.ts` counts. Without the tree the column is NULL and `not_captured` says why.
#[test]
fn dependents_of_the_changed_files_at_their_distance_raise_the_level() {
    let tmp = tempfile::tempdir().unwrap();
    let files = [
        ("src/stats/query.ts", "export const x = 1;\n"),
        ("src/stats/summary.ts", "export const s = 2;\n"),
        ("src/stats/report.ts", "import { x } from './query';\nexport const report = x;\n"),
        ("src/app.ts", "import { report } from './stats/report.js';\n"),
        ("src/other.ts", "export const o = 0;\n"),
        ("tests/stats/eval_query.test.ts", "import { x } from '../../src/stats/query';\n"),
        ("README.md", "# webapp\n"),
    ];
    // What the files above lay out: (dependent, distance), nearest first.
    let expected = [("src/stats/report.ts", 1), ("src/app.ts", 2)];
    let listed = expected.iter().map(|(p, k)| format!("{p} ({k})")).collect::<Vec<_>>().join("\n");
    let study = super::support::Study { snapshot: snapshot_with_tree(tmp.path(), &files), ..super::support::Study::demo() };
    let q = "SELECT pull_number, risk_level, dependents, dependent_files, not_captured, reasons FROM pr_risk WHERE pull_number IN (101, 130, 132) AND safe_output_id IS NOT NULL ORDER BY pull_number";
    let query = |ds: &str| -> Vec<Value> { serde_json::from_str(&ok(&["report", "--dataset", ds, "--sql", q, "--format", "json"], tmp.path())).unwrap() };
    study.run(tmp.path(), "ds");
    let rows = query("ds");
    let defaults = hindsight::evaluate::risk::RiskPolicy::default();
    assert!((expected.len() as i64) < defaults.moderate_dependents);
    assert_eq!((rows[1]["risk_level"].as_str(), rows[1]["dependents"].as_i64(), rows[1]["dependent_files"].as_str()), (Some("low"), Some(expected.len() as i64), Some(listed.as_str())));
    assert!(!rows[1]["not_captured"].as_str().unwrap_or_default().contains("dependents of the changed files"), "{:?}", rows[1]);
    // PR 132's `src/stats/frame.ts` is in no tree file's imports: none, counted, not unknown.
    assert_eq!((rows[2]["dependents"].as_i64(), &rows[2]["dependent_files"]), (Some(0), &json!("")));
    // PR 101's files were not captured: no level, no dependents.
    assert!(rows[0]["dependents"].is_null() && rows[0]["risk_level"].is_null());

    let policy = tmp.path().join("risk.json");
    std::fs::write(&policy, r#"{"moderate_dependents": 2}"#).unwrap();
    study.ok("run", &["--quiet", "--out", "ds2", "--risk-policy", policy.to_str().unwrap()], tmp.path());
    let rows = query("ds2");
    let reasons: Vec<String> = serde_json::from_str(rows[1]["reasons"].as_str().unwrap()).unwrap();
    assert_eq!(rows[1]["risk_level"].as_str(), Some("medium"));
    let direct = expected.iter().filter(|(_, k)| *k == 1).count();
    let farthest = expected.iter().map(|(_, k)| *k).max().unwrap();
    let why = format!("medium: {} files outside the PR import the changed code ({direct} directly, the farthest {farthest} imports away; within {})", expected.len(), defaults.dependents_distance);
    assert_eq!(reasons, [why]);

    std::fs::write(&policy, format!(r#"{{"moderate_dependents": 1, "large_dependents": {}}}"#, expected.len())).unwrap();
    study.ok("run", &["--quiet", "--out", "ds4", "--risk-policy", policy.to_str().unwrap()], tmp.path());
    let rows = query("ds4");
    let reasons: Vec<String> = serde_json::from_str(rows[1]["reasons"].as_str().unwrap()).unwrap();
    assert_eq!((rows[1]["risk_level"].as_str(), reasons.len()), (Some("high"), 1), "{reasons:?}");
    assert!(reasons[0].starts_with(&format!("high: {} files outside the PR import the changed code", expected.len())), "{reasons:?}");

    std::fs::write(&policy, r#"{"moderate_dependents": 2, "dependents_distance": 1}"#).unwrap();
    study.ok("run", &["--quiet", "--out", "ds3", "--risk-policy", policy.to_str().unwrap()], tmp.path());
    let rows = query("ds3");
    assert_eq!((rows[1]["risk_level"].as_str(), rows[1]["dependents"].as_i64()), (Some("low"), Some(direct as i64)));

    // Capture asks for the tree with its folders, and the text of the source files in the
    // changed files' languages by their blobs (the README is not asked for); `app.ts`, whose
    // contents were captured, is planned as those.
    let plan = study.ok("capture", &["--plan"], tmp.path());
    assert!(plan.contains("'repos/acme/webapp/git/trees/ffffffffffffffffffffffffffffffffffffffff?recursive=1'"), "{plan}");
    for (i, (p, _)) in files.iter().enumerate() {
        let blob = format!("# repos/acme/webapp/git/blobs/{:040x}\n", i + 1);
        assert_eq!(plan.contains(&blob), p.ends_with(".ts") && *p != "src/app.ts", "{p}: {plan}");
    }
    assert!(plan.contains("# repos/acme/webapp/contents/src/app.ts\n"), "{plan}");

    // The demo as it is: no tree captured.
    super::support::Study::demo().run(tmp.path(), "bare");
    let rows = query("bare");
    assert!(rows[1]["dependents"].is_null() && rows[1]["dependent_files"].is_null(), "{:?}", rows[1]);
    let said = rows[1]["not_captured"].as_str().unwrap_or_default();
    assert!(said.contains("repository tree and file contents (dependents of the changed files)"), "{said}");
}

/// The demo's run folders copied to `runs`, run-9009 (PRs 130 to 135) with the LCOV report
/// `lcov` as it would upload it.
fn demo_runs_with_lcov(runs: &std::path::Path, lcov: &str) -> std::path::PathBuf {
    super::support::copy_dir(&super::support::root().join("fixtures/demo/runs"), runs);
    std::fs::create_dir_all(runs.join("run-9009/coverage")).unwrap();
    std::fs::write(runs.join("run-9009/coverage/lcov.info"), lcov).unwrap();
    runs.to_path_buf()
}

/// T-R06 for a task PR: a task has no run, but the run whose output opened its PR may have
/// uploaded a coverage report. The demo's run-9009 (PRs 130 to 135) with the LCOV report of
/// `a_runs_coverage_report_decides_the_coverage_of_its_prs_changed_lines`, and a task whose
/// `pr_url` is PR 130: the task's row has the coverage the output's row has, from the same
/// report, and says no report is missing; the demo's own task PRs, with no run on them, keep
/// none.
#[test]
fn a_task_pr_takes_the_coverage_report_of_a_run_on_the_same_pr() {
    let tmp = tempfile::tempdir().unwrap();
    let runs = demo_runs_with_lcov(&tmp.path().join("runs"), "TN:\nSF:/home/runner/work/webapp/src/stats/query.ts\nDA:1,4\nDA:2,4\nend_of_record\n");
    let tasks = tmp.path().join("tasks");
    super::support::copy_dir(&super::support::root().join("fixtures/demo/tasks"), &tasks);
    let records = std::fs::read_to_string(tasks.join("tasks.jsonl")).unwrap();
    let mut task: Value = serde_json::from_str(records.lines().next().unwrap()).unwrap();
    task["task_id"] = json!("task-on-130");
    task["pr_url"] = json!("https://github.com/acme/webapp/pull/130");
    std::fs::write(tasks.join("tasks.jsonl"), format!("{records}{task}\n")).unwrap();
    let study = super::support::Study { runs, ..super::support::Study::demo() }.tasks(&tasks);
    let ds = study.run(tmp.path(), "ds");
    let q = "SELECT task_id, pull_number, changed_lines_covered, not_captured FROM pr_risk WHERE pull_number = 130 OR task_id IS NOT NULL ORDER BY task_id NULLS FIRST, safe_output_id";
    let rows: Vec<Value> = serde_json::from_str(&ok(&["report", "--dataset", ds.to_str().unwrap(), "--sql", q, "--format", "json"], tmp.path())).unwrap();
    let output = rows.iter().find(|r| r["task_id"].is_null()).unwrap();
    let on_130 = rows.iter().find(|r| r["task_id"] == "task-on-130").unwrap();
    assert!(output["changed_lines_covered"].as_f64().is_some(), "{output:?}");
    assert_eq!((&on_130["pull_number"], &on_130["changed_lines_covered"]), (&json!(130), &output["changed_lines_covered"]));
    assert!(!on_130["not_captured"].as_str().unwrap_or_default().contains("coverage report"), "{on_130:?}");
    let others: Vec<&Value> = rows.iter().filter(|r| r["task_id"].as_str().is_some_and(|t| t != "task-on-130")).collect();
    assert!(!others.is_empty() && others.iter().all(|r| r["changed_lines_covered"].is_null()), "{others:?}");
}

/// T-R06, the dependents: with the base tree captured (PR 130's dependents `report.ts` at
/// distance 1 and `app.ts` at 2) and run-9009's LCOV report instrumenting `report.ts` (two
/// of its three lines run) but not `app.ts`, `dependents_lines_covered` is the share of the
/// dependents' instrumented lines the tests ran; a report that lists none of the dependents
/// leaves it NULL and says so in `not_captured`. The level still rests on the changed lines.
#[test]
fn the_dependents_coverage_comes_from_the_runs_report() {
    let tmp = tempfile::tempdir().unwrap();
    let files = [
        ("src/stats/query.ts", "export const x = 1;\n"),
        ("src/stats/report.ts", "import { x } from './query';\nexport const report = x;\n"),
        ("src/app.ts", "import { report } from './stats/report.js';\n"),
    ];
    let snapshot = snapshot_with_tree(tmp.path(), &files);
    let q = "SELECT dependents, dependents_lines_covered, changed_lines_covered, not_captured FROM pr_risk WHERE pull_number = 130 AND safe_output_id IS NOT NULL";
    let with_report = |name: &str, lcov: &str| -> Value {
        let runs = demo_runs_with_lcov(&tmp.path().join(format!("runs-{name}")), lcov);
        let study = super::support::Study { snapshot: snapshot.clone(), runs, ..super::support::Study::demo() };
        let ds = study.run(tmp.path(), name);
        let rows: Vec<Value> = serde_json::from_str(&ok(&["report", "--dataset", ds.to_str().unwrap(), "--sql", q, "--format", "json"], tmp.path())).unwrap();
        rows[0].clone()
    };
    let report_lines = [(1, 3), (2, 0), (3, 1)];
    let body: String = report_lines.iter().map(|(l, hits)| format!("DA:{l},{hits}\n")).collect();
    let lcov = format!("TN:\nSF:/home/runner/work/webapp/src/stats/query.ts\nDA:1,4\nDA:2,4\nend_of_record\nSF:/home/runner/work/webapp/src/stats/report.ts\n{body}end_of_record\n");
    let row = with_report("listed", &lcov);
    let ran = report_lines.iter().filter(|(_, hits)| *hits > 0).count() as f64;
    let share = (ran / report_lines.len() as f64 * 10_000.0).round() / 10_000.0;
    assert_eq!((row["dependents"].as_i64(), row["dependents_lines_covered"].as_f64()), (Some(2), Some(share)), "{row:?}");
    assert!(!row["not_captured"].as_str().unwrap_or_default().contains("dependents"), "{row:?}");
    let row = with_report("unlisted", "TN:\nSF:/home/runner/work/webapp/src/stats/query.ts\nDA:1,4\nDA:2,4\nend_of_record\n");
    assert!(row["dependents_lines_covered"].is_null() && row["changed_lines_covered"].as_f64().is_some(), "{row:?}");
    assert!(row["not_captured"].as_str().unwrap_or_default().contains("coverage of the dependents (the run's report lists none of them)"), "{row:?}");
}
