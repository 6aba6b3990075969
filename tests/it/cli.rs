//! The command line: defaults, formats, usage errors, the rules catalogue.

use crate::support::{demo, ok, root, run};

#[test]
fn run_with_no_arguments_runs_the_demo_from_any_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let out = run(&["run"], tmp.path());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8_lossy(&out.stdout);
    for field in ["strict_acceptance_rate", "human_check_acceptance_rate", "sticky_artifact_rate", "total_safe_outputs"] {
        assert!(stdout.contains(field), "dashboard lacks {field}:\n{stdout}");
    }
    for table in ["outcomes", "safe_outputs", "responses", "quarantine", "issues", "pull_requests"] {
        assert!(tmp.path().join("hindsight-out").join(format!("{table}.parquet")).is_file(), "no {table}.parquet");
    }
    assert!(String::from_utf8_lossy(&out.stderr).contains("bundled demo"));
}

#[test]
fn report_formats() {
    let tmp = tempfile::tempdir().unwrap();
    demo(tmp.path());
    let sql = "SELECT eval_window, COUNT(*) AS n FROM outcomes GROUP BY eval_window, window_order ORDER BY window_order";
    let csv = ok(&["report", "--dataset", "ds", "--sql", sql, "--format", "csv"], tmp.path());
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], "eval_window,n");
    assert_eq!(lines.len(), 6);
    let n: Vec<&str> = lines[1..].iter().map(|l| l.split(',').nth(1).unwrap()).collect();
    assert!(n.windows(2).all(|w| w[0] == w[1]), "every window has one row per output: {n:?}");
    let json: serde_json::Value = serde_json::from_str(&ok(&["report", "--dataset", "ds", "--sql", sql, "--format", "json"], tmp.path())).unwrap();
    assert_eq!(json[4]["eval_window"], "snapshot");
    let md = ok(&["report", "--dataset", "ds", "--sql", sql, "--format", "markdown"], tmp.path());
    assert!(md.starts_with("| eval_window | n |\n|---|---|\n| 1h |"), "{md}");
    let dash: serde_json::Value = serde_json::from_str(&ok(&["report", "--dataset", "ds", "--format", "json"], tmp.path())).unwrap();
    assert!(dash["acceptance_by_type"].as_array().is_some_and(|a| !a.is_empty()));
    let named = ok(&["report", "--dataset", "ds", "--query", "summary", "--format", "csv"], tmp.path());
    assert!(named.starts_with("eval_window,total_safe_outputs,evaluable_outputs"));
}

#[test]
fn bad_usage_exits_2() {
    let tmp = tempfile::tempdir().unwrap();
    for args in [
        vec!["evaluate", "--dataset", "ds", "--windows", "7x"],
        vec!["report", "--dataset", "nowhere", "--format", "yaml"],
        vec!["report", "--dataset", "nowhere"],
        vec!["frobnicate"],
    ] {
        let out = run(&args, tmp.path());
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    }
    let out = run(&["run", "--out", "ds", "--quiet"], tmp.path());
    assert!(out.status.success());
    let out = run(&["report", "--dataset", "ds", "--sql", "SELECT 1; SELECT 2"], tmp.path());
    assert_eq!(out.status.code(), Some(2));
    let out = run(&["report", "--dataset", "ds", "--sql", "SELECT nope FROM outcomes"], tmp.path());
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn policy_file_changes_the_outcome_and_is_recorded() {
    let tmp = tempfile::tempdir().unwrap();
    let defaults: serde_json::Value = serde_json::from_str(&ok(&["policy"], tmp.path())).unwrap();
    assert_eq!(defaults["open_issue_engagement"], "pending");
    std::fs::write(tmp.path().join("p.json"), r#"{"open_issue_engagement": "accepted"}"#).unwrap();
    ok(&["run", "--out", "ds", "--policy", "p.json", "--quiet"], tmp.path());
    let m = hindsight::dataset::manifest::Manifest::load(&tmp.path().join("ds")).unwrap();
    assert_eq!(m.policy.as_ref().unwrap()["open_issue_engagement"], "accepted");
    let engaged = ok(
        &[
            "report",
            "--dataset",
            "ds",
            "--format",
            "csv",
            "--sql",
            "SELECT outcome_status FROM outcomes WHERE human_check_signal = 'non_bot_engagement' AND eval_window = 'snapshot'",
        ],
        tmp.path(),
    );
    assert_eq!(engaged, "outcome_status\naccepted\n");
    std::fs::write(tmp.path().join("bad.json"), r#"{"open_issue_engagement": "rejected"}"#).unwrap();
    let out = run(&["policy", "--policy", "bad.json"], tmp.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("open_issue_engagement"));
    std::fs::write(tmp.path().join("typo.json"), r#"{"open_issue_engagment": "accepted"}"#).unwrap();
    assert_eq!(run(&["policy", "--policy", "typo.json"], tmp.path()).status.code(), Some(2));
}

/// docs/RULES.md is the catalogue printed from the code; it must not go stale.
#[test]
fn rules_catalogue_is_current() {
    let tmp = tempfile::tempdir().unwrap();
    let printed = ok(&["rules", "--format", "markdown"], tmp.path());
    let committed = std::fs::read_to_string(root().join("docs/RULES.md")).unwrap_or_default();
    assert!(printed == committed, "docs/RULES.md is stale: run `cargo run -q -- rules --format markdown > docs/RULES.md`");
    for r in hindsight::evaluate::rules::all() {
        for row in r.rows() {
            assert!(printed.contains(&format!("`{}/{}`", r.output_type(), row.id)));
        }
    }
}

/// schemas/policy.schema.json documents every switch, with the default the code has.
#[test]
fn policy_schema_matches_the_code() {
    let schema: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(root().join("schemas/policy.schema.json")).unwrap()).unwrap();
    let props = schema["properties"].as_object().unwrap();
    let defaults = hindsight::evaluate::Policy::default().to_json();
    let defaults = defaults.as_object().unwrap();
    let mut a: Vec<&String> = props.keys().collect();
    let mut b: Vec<&String> = defaults.keys().collect();
    a.sort();
    b.sort();
    assert_eq!(a, b, "schema properties vs Policy fields");
    for (k, v) in defaults {
        assert_eq!(&props[k]["default"], v, "default of `{k}`");
    }
}

/// Built without the cargo feature `cluster`, `--cluster` says how to get it (the address
/// checked first) on report, evaluate and run, before any work (the dataset untouched, no
/// new one), and there is no `cluster` command.
#[cfg(not(feature = "cluster"))]
#[test]
fn without_the_cluster_feature_cluster_says_how_to_build_it() {
    let tmp = tempfile::tempdir().unwrap();
    demo(tmp.path());
    let outcomes = std::fs::read(tmp.path().join("ds/outcomes.parquet")).unwrap();
    for args in [&["report", "--dataset", "ds"][..], &["evaluate", "--dataset", "ds"], &["run", "--out", "new"]] {
        let o = run(&[args, &["--cluster", "df://127.0.0.1:50050"]].concat(), tmp.path());
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let said = String::from_utf8_lossy(&o.stderr);
        assert!(said.contains("built without cluster support") && said.contains("--features cluster") && said.lines().count() == 1, "{args:?}: {said}");
    }
    assert!(std::fs::read(tmp.path().join("ds/outcomes.parquet")).unwrap() == outcomes);
    assert!(!tmp.path().join("new").exists());
    let o = run(&["evaluate", "--dataset", "ds", "--cluster", "http://h:1"], tmp.path());
    assert!(String::from_utf8_lossy(&o.stderr).contains("expected df://HOST:PORT"), "{}", String::from_utf8_lossy(&o.stderr));
    let o = run(&["cluster", "scheduler"], tmp.path());
    assert_eq!(o.status.code(), Some(2), "{}", String::from_utf8_lossy(&o.stderr));
}

/// A query or table name a letter off, or a bundled query's name without its folder, is
/// answered with the name meant.
#[test]
fn misspelt_query_and_table_names_get_the_name_meant() {
    let tmp = tempfile::tempdir().unwrap();
    demo(tmp.path());
    for (args, meant) in [
        (vec!["report", "--dataset", "ds", "--query", "overview"], "did you mean `aidev/overview`?"),
        (vec!["report", "--dataset", "ds", "--query", "acceptance_by_windw"], "did you mean `acceptance_by_window`?"),
        (vec!["describe", "outcome"], "did you mean `outcomes`?"),
        (vec!["describe", "outcome", "--dataset", "ds"], "did you mean `outcomes`?"),
    ] {
        let out = run(&args, tmp.path());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && err.contains(meant), "{args:?}: {err}");
    }
}

/// Right after `hindsight run`, the readers find its dataset without --dataset and say so
/// on stderr; where there is none, they say --dataset is needed.
#[test]
fn readers_default_to_the_dataset_run_wrote_and_say_so() {
    let tmp = tempfile::tempdir().unwrap();
    let none = run(&["report"], tmp.path());
    assert_eq!(none.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&none.stderr).contains("--dataset DIR is needed"), "{}", String::from_utf8_lossy(&none.stderr));
    ok(&["run", "--quiet"], tmp.path());
    let named = ok(&["report", "--dataset", "hindsight-out", "--query", "summary"], tmp.path());
    let out = run(&["report", "--query", "summary"], tmp.path());
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout), named);
    assert!(String::from_utf8_lossy(&out.stderr).contains("reading the dataset in ./hindsight-out"), "{}", String::from_utf8_lossy(&out.stderr));
    for args in [&["verify"][..], &["views"], &["evaluate", "--quiet"]] {
        let out = run(args, tmp.path());
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    }
}

/// Tables show 4 decimals unless --digits says otherwise; JSON keeps every digit.
#[test]
fn tables_show_four_decimals_unless_told() {
    let tmp = tempfile::tempdir().unwrap();
    demo(tmp.path());
    let sql = "SELECT 1.0/3 AS third, CAST(-0.00001 AS DOUBLE) AS tiny";
    let shown = |extra: &[&str]| {
        let mut args = vec!["report", "--dataset", "ds", "--sql", sql];
        args.extend_from_slice(extra);
        ok(&args, tmp.path())
    };
    assert!(shown(&[]).contains("| 0.3333 | 0.0  |"), "{}", shown(&[]));
    assert!(shown(&["--digits", "1"]).contains("| 0.3   | 0.0  |"), "{}", shown(&["--digits", "1"]));
    assert!(shown(&["--digits", "17"]).contains(&format!("| {} |", 1.0f64 / 3.0)), "{}", shown(&["--digits", "17"]));
    assert!(shown(&["--format", "markdown"]).contains("| 0.3333 |"), "{}", shown(&["--format", "markdown"]));
    let json: serde_json::Value = serde_json::from_str(&shown(&["--format", "json"])).unwrap();
    assert_eq!(json[0]["third"], serde_json::json!(1.0f64 / 3.0));
    assert_eq!(run(&["report", "--dataset", "ds", "--sql", sql, "--digits", "18"], tmp.path()).status.code(), Some(2));
}

/// Inputs that are not there, are files, or are given the wrong way round are named as such;
/// a dataset of another kind at --out is not replaced without --force.
#[test]
fn wrong_inputs_are_named_and_another_kind_of_dataset_is_kept() {
    let tmp = tempfile::tempdir().unwrap();
    let demo_dir = root().join("fixtures/demo");
    let (snap, runs) = (demo_dir.join("snapshot"), demo_dir.join("runs"));
    let err = |args: &[&str]| {
        let out = run(args, tmp.path());
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    assert!(err(&["convert", "--snapshot", "nowhere", "--runs", runs.to_str().unwrap(), "--out", "x"]).contains("--snapshot nowhere: does not exist"));
    std::fs::write(tmp.path().join("f"), "").unwrap();
    assert!(err(&["convert", "--snapshot", snap.to_str().unwrap(), "--runs", "f", "--out", "x"]).contains("--runs f: is a file"));
    let swapped = err(&["convert", "--snapshot", runs.to_str().unwrap(), "--runs", snap.to_str().unwrap(), "--out", "x"]);
    assert!(swapped.contains("look swapped"), "{swapped}");
    assert!(!tmp.path().join("x").exists());
    // An AIDev import where the demo's dataset is: refused, the dataset untouched; --force replaces it.
    ok(&["run", "--quiet"], tmp.path());
    let manifest = std::fs::read(tmp.path().join("hindsight-out/manifest.json")).unwrap();
    let aidev = root().join("fixtures/aidev");
    let refused = err(&["import", "aidev", aidev.to_str().unwrap(), "--out", "hindsight-out"]);
    assert!(refused.contains("holds a gh-aw study's dataset") && refused.contains("--force"), "{refused}");
    assert_eq!(std::fs::read(tmp.path().join("hindsight-out/manifest.json")).unwrap(), manifest);
    ok(&["import", "aidev", aidev.to_str().unwrap(), "--out", "hindsight-out", "--force"], tmp.path());
    // And back: the demo's run refuses to replace the import.
    assert!(err(&["run", "--quiet"]).contains("holds an AIDev import"));
    ok(&["run", "--quiet", "--force"], tmp.path());
    // The same kind is replaced as before.
    ok(&["run", "--quiet"], tmp.path());
}

/// `--threads` is an option of the commands whose work runs on the worker threads, listed
/// in their help; the others neither list it nor take it (clap's usual error, exit 2), and
/// a count out of bounds is refused by the commands that take it.
#[test]
fn threads_is_an_option_only_where_work_runs_side_by_side() {
    let tmp = tempfile::tempdir().unwrap();
    let help = |command: &[&str]| {
        let mut args = command.to_vec();
        args.push("--help");
        ok(&args, tmp.path())
    };
    for command in [&["run"][..], &["convert"], &["evaluate"], &["report"], &["import", "aidev"], &["capture"], &["check"], &["package"]] {
        assert!(help(command).contains("--threads <N>"), "{command:?} lists --threads");
    }
    for command in [&["rules"][..], &["describe"], &["explain"], &["sql"], &["views"], &["synth"], &["policy"], &["plan", "lock"]] {
        assert!(!help(command).contains("--threads"), "{command:?} does not list --threads");
    }
    assert!(!help(&[]).contains("--threads"), "not a global option");
    for args in [&["rules", "--threads", "2"][..], &["--threads", "2", "rules"], &["describe", "outcomes", "--threads", "2"]] {
        let out = run(args, tmp.path());
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("unexpected argument '--threads'"), "{args:?}: {err}");
    }
}
