//! Task records and events (docs/SPEC.md [SPEC-TASKS]): reading with quarantine, failure categorization by
//! rule (one fixture task per rule), the policy's precedence switch, and `convert --tasks`.

use std::path::Path;

use hindsight::tasks::categorize::{categorize_all, CiStates, FailureCategory, RULES};
use hindsight::tasks::TaskPolicy;
use serde_json::Value;

use crate::support::{fixture, ok, Study};

/// The categories of `fixtures/tasks/study`, one task per rule, one no rule decides; the
/// COMPLETED task `t12-completed` gets none.
const EXPECTED: &[(&str, &str, &str)] = &[
    ("t01-timed-out-status", "running_out_of_time", "timed_out_status"),
    ("t02-timed-out-event", "running_out_of_time", "timed_out_event"),
    ("t03-timeout-message", "running_out_of_time", "timeout_error_message"),
    ("t04-guardrail", "tool_or_environment_failure", "guardrail_blocked"),
    ("t05-env-message", "tool_or_environment_failure", "environment_error_message"),
    ("t06-env-tool-result", "tool_or_environment_failure", "environment_tool_result"),
    ("t07-scope-guardrail", "failure_to_follow_instructions", "scope_guardrail"),
    ("t08-outside-scope", "failure_to_follow_instructions", "change_outside_scope"),
    ("t09-no-tests", "missing_testing_or_verification", "no_test_run"),
    ("t10-tests-failing", "reasoning_error", "tests_failing"),
    ("t11-uncategorized", "uncategorized", ""),
    ("t13-ci-no-tests", "missing_testing_or_verification", "no_test_run_ci_failed"),
    ("t14-ci-after-tests", "reasoning_error", "ci_failed_after_tests"),
    ("t15-tests-skipped", "failure_to_follow_instructions", "tests_skipped_or_deleted"),
    ("t16-named-files", "failure_to_follow_instructions", "change_outside_named_files"),
    ("t17-linter-not-run", "missing_testing_or_verification", "linter_not_run"),
    ("t18-no-verification", "missing_testing_or_verification", "no_verification_notes"),
];

/// What the snapshot holds of the fixture tasks t15 to t18 (`fixtures/tasks/study-captures.jsonl`,
/// cassette lines): their PRs' files and description, and acme/tools' top-level files.
fn study_evidence(tasks: &[hindsight::tasks::Task]) -> hindsight::tasks::evidence::Evidence {
    let text = std::fs::read_to_string(fixture("tasks/study-captures.jsonl")).unwrap();
    let bodies = text.lines().map(|l| {
        let v: Value = serde_json::from_str(l).unwrap();
        (v["path"].as_str().unwrap().to_string(), v["body"].to_string())
    });
    hindsight::tasks::evidence::from_bodies(tasks, demo_ci(), bodies.collect::<Vec<_>>())
}

/// The CI states of the demo snapshot the fixture tasks t13 and t14 point at.
fn demo_ci() -> CiStates {
    let failed = |sha: &str| ("acme/webapp".to_string(), sha.to_string(), "failure".to_string(), Some("typecheck|TS2339".to_string()));
    CiStates::from_rows([
        failed("31000000000000000000000000000000000000c1"),
        failed("32000000000000000000000000000000000000c1"),
        failed("32010000000000000000000000000000000000c1"),
    ])
}

fn expected() -> Vec<(String, String, String)> {
    let mut v: Vec<(String, String, String)> = EXPECTED.iter().map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string())).collect();
    v.sort();
    v
}

#[test]
fn every_rule_fires_on_its_fixture_task() {
    let read = hindsight::tasks::read(&fixture("tasks/study")).unwrap();
    assert!(read.quarantined.is_empty(), "{:?}", read.quarantined);
    assert_eq!((read.tasks.len(), read.events.len()), (18, 34));
    let failures = categorize_all(&read.tasks, &read.events, &TaskPolicy::default(), &study_evidence(&read.tasks));
    let mut got: Vec<(String, String, String)> =
        failures.iter().map(|f| (f.task_id.clone(), f.category.as_str().to_string(), f.rule_id.unwrap_or("").to_string())).collect();
    got.sort();
    assert_eq!(got, expected());
    // Every rule of the table is exercised by the fixtures.
    for r in RULES {
        assert!(EXPECTED.iter().any(|e| e.2 == r.id), "rule {} has no fixture task", r.id);
    }
    // The evidence names what matched.
    let evidence = |id: &str| failures.iter().find(|f| f.task_id == id).and_then(|f| f.evidence.clone()).unwrap_or_default();
    assert_eq!(evidence("t05-env-message"), "error_message matches \"command not found\"");
    assert_eq!(evidence("t08-outside-scope"), "event e11: src/cli.rs is outside the scope");
    assert_eq!(evidence("t10-tests-failing"), "event e19: test run failed (exit_code 101)");
    assert_eq!(evidence("t02-timed-out-event"), "event e04");
    assert_eq!(evidence("t15-tests-skipped"), "repos/acme/api/pulls/304/files: tests/parse.rs adds a skipped test (\"#[ignore]\")");
    // src/lexer.rs is not named; the test file and Cargo.lock are never outside; "Node.js"
    // names no file the PR changed.
    assert_eq!(evidence("t16-named-files"), "repos/acme/api/pulls/305/files: src/lexer.rs is not among the files the task names (src/parse.rs)");
    assert_eq!(evidence("t17-linter-not-run"), ".eslintrc.json configures a linter or type checker in acme/tools (repos/acme/tools/contents); no agent_tool_call runs one");
    assert_eq!(evidence("t18-no-verification"), "no agent_tool_call runs tests, and the PR description (repos/acme/tools/pulls/7) says nothing of how the change was verified");
    // A 7-character head SHA finds the one commit it abbreviates.
    assert_eq!(evidence("t14-ci-after-tests"), "CI failed on acme/webapp@32000000000000000000000000000000000000c1 (typecheck|TS2339)");
    // Without the snapshot's CI (switched off), the CI rules do not fire.
    let p = TaskPolicy { use_snapshot_ci: false, ..TaskPolicy::default() };
    let off = categorize_all(&read.tasks, &read.events, &p, &demo_ci().into());
    assert!(off.iter().filter(|f| f.task_id.starts_with("t13") || f.task_id.starts_with("t14")).all(|f| f.category == FailureCategory::Uncategorized));
    assert!(failures.iter().find(|f| f.task_id == "t11-uncategorized").is_some_and(|f| f.evidence.is_none()));
}

/// Precedence is a policy switch: a task that timed out while its tests were failing is
/// `running_out_of_time` by default, `reasoning_error` when reasoning comes first.
#[test]
fn precedence_decides_between_categories_that_both_apply() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("tasks.jsonl"), "{\"task_id\":\"t\",\"status\":\"TIMED_OUT\",\"build_passed\":true}\n").unwrap();
    std::fs::write(
        dir.path().join("events.jsonl"),
        concat!(
            "{\"event_id\":\"c\",\"task_id\":\"t\",\"event_type\":\"agent_tool_call\",\"timestamp\":\"2026-01-01T00:00:00Z\",\"metadata\":{\"command\":\"go test ./...\"}}\n",
            "{\"event_id\":\"r\",\"task_id\":\"t\",\"event_type\":\"agent_tool_result\",\"timestamp\":\"2026-01-01T00:01:00Z\",\"metadata\":{\"command\":\"go test ./...\",\"exit_code\":1}}\n",
        ),
    )
    .unwrap();
    let read = hindsight::tasks::read(dir.path()).unwrap();
    let by = |p: &TaskPolicy| {
        let f = categorize_all(&read.tasks, &read.events, p, &CiStates::default().into());
        (f[0].category, f[0].rule_id)
    };
    assert_eq!(by(&TaskPolicy::default()), (FailureCategory::RunningOutOfTime, Some("timed_out_status")));
    let mut p = TaskPolicy::default();
    p.precedence.retain(|c| *c != FailureCategory::ReasoningError);
    p.precedence.insert(0, FailureCategory::ReasoningError);
    assert!(p.check().is_ok());
    assert_eq!(by(&p), (FailureCategory::ReasoningError, Some("tests_failing")));
}

/// `missing_tests_needs_failed_check` off: a failed task with no test run is missing
/// verification even when no check failed.
#[test]
fn missing_tests_switch() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("tasks.jsonl"), "{\"task_id\":\"t\",\"status\":\"FAILED\"}\n").unwrap();
    let read = hindsight::tasks::read(dir.path()).unwrap();
    let f = categorize_all(&read.tasks, &read.events, &TaskPolicy::default(), &CiStates::default().into());
    assert_eq!(f[0].category, FailureCategory::Uncategorized);
    let p = TaskPolicy { missing_tests_needs_failed_check: false, ..TaskPolicy::default() };
    let f = categorize_all(&read.tasks, &read.events, &p, &CiStates::default().into());
    assert_eq!((f[0].category, f[0].rule_id), (FailureCategory::MissingTestingOrVerification, Some("no_test_run")));
}

#[test]
fn a_policy_file_keeps_defaults_and_refuses_unknown_keys() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("p.json");
    std::fs::write(&p, "{\"missing_tests_needs_failed_check\": false}").unwrap();
    let policy = TaskPolicy::load(&p).unwrap();
    assert!(!policy.missing_tests_needs_failed_check);
    assert_eq!(policy.precedence, TaskPolicy::default().precedence);
    std::fs::write(&p, "{\"precedense\": []}").unwrap();
    assert!(TaskPolicy::load(&p).is_err());
    std::fs::write(&p, "{\"precedence\": [\"reasoning_error\"]}").unwrap();
    assert!(TaskPolicy::load(&p).is_err());
}

/// Bad lines are quarantined with file, line and field; the rest are read; records read =
/// used + quarantined.
#[test]
fn bad_lines_are_quarantined_and_counted() {
    let read = hindsight::tasks::read(&fixture("tasks/bad")).unwrap();
    let read_lines: usize = read.files.iter().map(|f| f.records).sum();
    assert_eq!(read_lines, 13);
    assert_eq!(read.used() + read.quarantined.len(), read_lines);
    assert_eq!((read.tasks.len(), read.events.len()), (1, 1));
    let mut got: Vec<(String, Option<i64>, Option<String>)> = read.quarantined.iter().map(|q| (q.file.clone(), q.line, q.field.clone())).collect();
    got.sort();
    let f = |s: &str| Some(s.to_string());
    assert_eq!(
        got,
        vec![
            ("events.jsonl".into(), Some(2), f("timestamp")),
            ("events.jsonl".into(), Some(3), f("event_id")),
            ("events.jsonl".into(), Some(4), f("metadata")),
            ("events.jsonl".into(), Some(5), None),
            ("tasks.jsonl".into(), Some(2), f("status")),
            ("tasks.jsonl".into(), Some(3), f("task_id")),
            ("tasks.jsonl".into(), Some(4), None),
            ("tasks.jsonl".into(), Some(5), f("build_passed")),
            ("tasks.jsonl".into(), Some(6), f("task_id")),
            ("tasks.jsonl".into(), Some(7), None),
            ("tasks.jsonl".into(), Some(8), f("created_at")),
        ]
    );
    // The cut-off last line says so; a duplicate keeps its raw text.
    assert!(read.quarantined.iter().any(|q| q.line == Some(5) && q.file == "events.jsonl" && q.reason.starts_with("truncated line")));
    assert!(read.quarantined.iter().any(|q| q.line == Some(6) && q.raw.contains("COMPLETED")));
}

fn sql_json(dataset: &Path, sql: &str) -> Vec<Value> {
    let out = ok(&["report", "--dataset", dataset.to_str().unwrap(), "--sql", sql, "--format", "json"], dataset.parent().unwrap());
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

/// `convert --tasks`: the three tables, the counts and the policy in the manifest, the
/// README in the tasks directory listed as skipped, and `verify` content with it all.
#[test]
fn convert_with_tasks_writes_the_tables() {
    let tmp = tempfile::tempdir().unwrap();
    let tasks = tmp.path().join("tasks");
    crate::support::copy_dir(&fixture("tasks/study"), &tasks);
    std::fs::write(tasks.join("README.md"), "notes\n").unwrap();
    // The demo snapshot with the captures of tasks t15 to t18 as one more cassette: convert
    // reads them from the dataset's responses.
    let snapshot = tmp.path().join("snapshot");
    crate::support::copy_dir(&Study::demo().snapshot, &snapshot);
    std::fs::copy(fixture("tasks/study-captures.jsonl"), snapshot.join("capture-9001.jsonl")).unwrap();
    let study = Study { snapshot, ..Study::demo() }.tasks(&tasks);
    let ds = study.convert(tmp.path(), "ds");

    let rows = sql_json(&ds, "SELECT task_id, failure_category, rule_id FROM task_failures ORDER BY task_id");
    let mut got: Vec<(String, String, String)> = rows
        .iter()
        .map(|r| {
            (r["task_id"].as_str().unwrap().to_string(), r["failure_category"].as_str().unwrap().to_string(), r["rule_id"].as_str().unwrap_or("").to_string())
        })
        .collect();
    got.sort();
    assert_eq!(got, expected());

    let t = sql_json(&ds, "SELECT task_id, pr_repo, pr_number, prompt_version, head_sha FROM tasks WHERE pr_number IS NOT NULL ORDER BY task_id");
    let got: Vec<String> = t
        .iter()
        .map(|r| format!("{} {} {} {}", r["task_id"].as_str().unwrap(), r["pr_repo"].as_str().unwrap(), r["pr_number"], r["prompt_version"].as_str().unwrap()))
        .collect();
    assert_eq!(
        got,
        vec![
            "t08-outside-scope acme/api 301 v2",
            "t09-no-tests acme/api 302 v2",
            "t12-completed acme/api 303 v2",
            "t13-ci-no-tests acme/webapp 31 v2",
            "t15-tests-skipped acme/api 304 v2",
            "t16-named-files acme/api 305 v2",
            "t18-no-verification acme/tools 7 v2"
        ]
    );
    let n = sql_json(&ds, "SELECT COUNT(*) AS n FROM task_events");
    assert_eq!(n[0]["n"], 34);
    // The tasks' own tier-1 runs: t15 ran `cargo test` once and it failed (exit 101); t17 ran
    // `npm test`, which passed, and no linter.
    let v = sql_json(&ds, "SELECT task_id, test_runs, test_runs_failed, lint_runs FROM tasks WHERE task_id IN ('t15-tests-skipped', 't17-linter-not-run') ORDER BY task_id");
    let v: Vec<String> = v.iter().map(|r| format!("{} {} {} {}", r["task_id"].as_str().unwrap(), r["test_runs"], r["test_runs_failed"], r["lint_runs"])).collect();
    assert_eq!(v, ["t15-tests-skipped 1 1 0", "t17-linter-not-run 1 0 0"]);
    // t16 ran a type checker (`mypy src`, passed) and a security scanner (`semgrep`, exit 1).
    let c = sql_json(&ds, "SELECT typecheck_runs, typecheck_runs_failed, security_scan_runs, security_scan_runs_failed FROM tasks WHERE task_id = 't16-named-files'");
    assert_eq!(
        (c[0]["typecheck_runs"].as_i64(), c[0]["typecheck_runs_failed"].as_i64(), c[0]["security_scan_runs"].as_i64(), c[0]["security_scan_runs_failed"].as_i64()),
        (Some(1), Some(0), Some(1), Some(1))
    );

    let m = hindsight::dataset::manifest::Manifest::load(&ds).unwrap();
    let r = &m.records["tasks"];
    assert_eq!((r.input, r.used, r.quarantined), (52, 52, 0));
    assert_eq!(m.task_policy, Some(TaskPolicy::default().to_json()));
    assert_eq!(m.inputs.iter().filter(|f| f.input == "tasks").map(|f| f.path.as_str()).collect::<Vec<_>>(), vec!["events.jsonl", "tasks.jsonl"]);
    assert!(m.skipped.iter().any(|s| s.input == "tasks" && s.path == "README.md"));

    let out = study.ok("verify", &["--dataset", ds.to_str().unwrap()], tmp.path());
    assert!(out.contains("every file matches"), "{out}");
}

/// Quarantined task lines reach the dataset's quarantine table under input `tasks`.
#[test]
fn convert_quarantines_bad_task_lines() {
    let tmp = tempfile::tempdir().unwrap();
    let ds = Study::demo().tasks(fixture("tasks/bad")).convert(tmp.path(), "ds");
    let m = hindsight::dataset::manifest::Manifest::load(&ds).unwrap();
    let r = &m.records["tasks"];
    assert_eq!((r.input, r.used, r.quarantined), (13, 2, 11));
    let q = sql_json(&ds, "SELECT COUNT(*) AS n FROM quarantine WHERE input = 'tasks'");
    assert_eq!(q[0]["n"], 11);
    let f = sql_json(&ds, "SELECT task_id, failure_category, rule_id FROM task_failures");
    assert_eq!(f.len(), 1);
    assert_eq!((f[0]["task_id"].as_str(), f[0]["rule_id"].as_str()), (Some("b01"), Some("environment_error_message")));
    ok(&["verify", "--dataset", ds.to_str().unwrap()], tmp.path());
}

/// `--task-policy`: a precedence with testing first moves the task that ran no tests and
/// failed its build from the environment rule to `no_test_run`; the manifest records it.
#[test]
fn convert_reads_a_task_policy_file() {
    let tmp = tempfile::tempdir().unwrap();
    let ds = tmp.path().join("ds");
    let policy = tmp.path().join("task-policy.json");
    let precedence =
        ["missing_testing_or_verification", "running_out_of_time", "tool_or_environment_failure", "failure_to_follow_instructions", "reasoning_error"];
    std::fs::write(&policy, serde_json::json!({ "precedence": precedence }).to_string()).unwrap();
    let study = Study::demo().tasks(fixture("tasks/study"));
    let args = ["--task-policy", policy.to_str().unwrap(), "--out", ds.to_str().unwrap(), "--quiet"];
    study.ok("convert", &args, tmp.path());
    let f = sql_json(&ds, "SELECT failure_category, rule_id FROM task_failures WHERE task_id = 't06-env-tool-result'");
    assert_eq!((f[0]["failure_category"].as_str(), f[0]["rule_id"].as_str()), (Some("missing_testing_or_verification"), Some("no_test_run")));
    let m = hindsight::dataset::manifest::Manifest::load(&ds).unwrap();
    assert_eq!(m.task_policy.as_ref().and_then(|p| p.get("precedence")), Some(&serde_json::json!(precedence)));

    // A policy file that names a category twice stops convert, naming the file.
    std::fs::write(&policy, r#"{"precedence": ["reasoning_error", "reasoning_error"]}"#).unwrap();
    let out = study.cmd("convert", &args, tmp.path());
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("task-policy.json"), "{}", String::from_utf8_lossy(&out.stderr));
}

/// docs/TASKS.md names every rule, its category, every policy switch and every default
/// pattern; schemas/tasks.md every column of the three tables.
#[test]
fn the_docs_follow_the_code() {
    let docs = std::fs::read_to_string(crate::support::root().join("docs/TASKS.md")).unwrap();
    for r in RULES {
        let row = format!("| `{}` | `{}` |", r.id, r.category.as_str());
        assert!(docs.contains(&row), "docs/TASKS.md lacks {row}");
    }
    let policy = TaskPolicy::default().to_json();
    for (key, value) in policy.as_object().unwrap() {
        assert!(docs.contains(&format!("| `{key}` |")), "docs/TASKS.md lacks switch {key}");
        for sub in value.as_object().into_iter().flat_map(|o| o.keys()) {
            assert!(docs.contains(&format!("| `{key}.{sub}` |")), "docs/TASKS.md lacks switch {key}.{sub}");
        }
        for v in value.as_array().into_iter().flatten() {
            assert!(docs.contains(&format!("`{}`", v.as_str().unwrap())), "docs/TASKS.md lacks {key} default {v}");
        }
    }
    let schema = std::fs::read_to_string(crate::support::root().join("schemas/tasks.md")).unwrap();
    let read = hindsight::tasks::read(&fixture("tasks/study")).unwrap();
    let failures = categorize_all(&read.tasks, &read.events, &TaskPolicy::default(), &CiStates::default().into());
    for t in [
        hindsight::tasks::tables::tasks(
            &read.tasks,
            &hindsight::tasks::timings(&read.tasks, &read.events),
            &hindsight::tasks::categorize::validations(&read.tasks, &read.events, &TaskPolicy::default()),
        ),
        hindsight::tasks::tables::task_events(&read.events),
        hindsight::tasks::tables::task_failures(&failures),
        hindsight::tasks::tables::insights(&[]),
        hindsight::tasks::tables::prompt_changes(&[]),
        hindsight::tasks::tables::prompts(&[]),
    ] {
        for f in t.arrow_schema().fields() {
            assert!(schema.contains(&format!("`{}`", f.name())), "schemas/tasks.md lacks column {}.{}", t.name, f.name());
        }
    }
}

/// The dashboard's task sections on a small study whose every figure is counted by hand:
/// two v1 tasks whose PRs merged (one after a review asked for changes), two v2 tasks (one
/// failed on a missing command with an open PR twice asked for changes on one commit, one
/// timed out).
#[test]
fn failure_categories_and_prompt_versions_in_the_dashboard() {
    let tmp = tempfile::tempdir().unwrap();
    let tasks = tmp.path().join("tasks");
    std::fs::create_dir_all(&tasks).unwrap();
    let study = Study::write(tmp.path(), "2026-02-01T00:00:00Z").tasks("tasks");
    let pull = |n: i64, merged: bool| {
        serde_json::json!({"path": format!("repos/acme/x/pulls/{n}"), "body": {"number": n, "state": if merged { "closed" } else { "open" }, "merged": merged,
            "merged_at": if merged { Some("2026-01-02T00:00:00Z") } else { None }, "closed_at": if merged { Some("2026-01-02T00:00:00Z") } else { None },
            "created_at": "2026-01-01T00:00:00Z", "user": {"login": "agent[bot]", "type": "Bot"}}})
    };
    let reviews = |n: i64, states: &[&str]| {
        let list: Vec<serde_json::Value> = states
            .iter()
            .enumerate()
            .map(|(i, s)| {
                serde_json::json!({"id": n * 10 + i as i64, "user": {"login": "maria"}, "state": s, "commit_id": format!("c{n}"), "submitted_at": "2026-01-01T12:00:00Z"})
            })
            .collect();
        serde_json::json!({"path": format!("repos/acme/x/pulls/{n}/reviews"), "body": list})
    };
    let lines = [
        pull(1, true),
        reviews(1, &["APPROVED"]),
        pull(2, true),
        reviews(2, &["CHANGES_REQUESTED", "APPROVED"]),
        pull(3, false),
        reviews(3, &["CHANGES_REQUESTED", "CHANGES_REQUESTED"]),
    ];
    for l in &lines {
        study.line("c.jsonl", &l.to_string());
    }
    let pr = |n: i64| format!("https://github.com/acme/x/pull/{n}");
    let t = [
        serde_json::json!({"task_id": "a1", "status": "COMPLETED", "repo": "acme/x", "prompt_version": "v1", "pr_url": pr(1)}),
        serde_json::json!({"task_id": "a2", "status": "COMPLETED", "repo": "acme/x", "prompt_version": "v1", "pr_url": pr(2)}),
        serde_json::json!({"task_id": "b1", "status": "FAILED", "repo": "acme/x", "prompt_version": "v2", "pr_url": pr(3), "error_message": "sh: cargo: command not found"}),
        serde_json::json!({"task_id": "b2", "status": "TIMED_OUT", "repo": "acme/x", "prompt_version": "v2"}),
    ];
    std::fs::write(tasks.join("tasks.jsonl"), t.iter().map(|l| l.to_string() + "\n").collect::<String>()).unwrap();
    let ev = |id: &str, task: &str, kind: &str, at: &str| {
        serde_json::json!({"event_id": id, "task_id": task, "event_type": kind, "timestamp": at}).to_string() + "\n"
    };
    let events = [
        ev("e1", "a1", "task_created", "2026-01-01T00:00:00Z"),
        ev("e2", "a1", "pr_created", "2026-01-01T02:00:00Z"),
        ev("e3", "a2", "task_created", "2026-01-01T00:00:00Z"),
        ev("e4", "a2", "pr_created", "2026-01-01T04:00:00Z"),
        ev("e5", "b1", "task_created", "2026-01-01T00:00:00Z"),
        ev("e6", "b1", "pr_created", "2026-01-01T01:00:00Z"),
        ev("e7", "b2", "task_created", "2026-01-01T00:00:00Z"),
    ];
    std::fs::write(tasks.join("events.jsonl"), events.concat()).unwrap();
    study.run(tmp.path(), "ds");
    let dash: serde_json::Value = serde_json::from_str(&ok(&["report", "--dataset", "ds", "--format", "json"], tmp.path())).unwrap();
    // v1: both PRs captured and merged, one with no request for changes: 1/2; revision
    // cycles of merged PRs (0 + 1) / 2; hours to PR (2 + 4) / 2. v2: one PR captured, open:
    // undecided, so no first-review merge rate (not 0/1); no merged PR, so no revision
    // cycles; one hour to its PR (b2 opened none). No commits, inline or conversation
    // comments were captured: first-push CI, comment density and repeated mistakes are
    // unknown (null), not zero.
    assert_eq!(
        dash["prompt_versions"],
        serde_json::json!([
            {"prompt_version": "v1", "tasks": 2, "completed": 2, "failed": 0, "prs_captured": 2, "prs_open": 0, "first_review_merge_rate": 0.5, "mean_revision_cycles": 0.5,
             "first_push_ci_pass_rate": null, "review_comment_density": null, "repeated_mistake_count": null, "mean_hours_to_pr": 3.0},
            {"prompt_version": "v2", "tasks": 2, "completed": 0, "failed": 2, "prs_captured": 1, "prs_open": 1, "first_review_merge_rate": null, "mean_revision_cycles": null,
             "first_push_ci_pass_rate": null, "review_comment_density": null, "repeated_mistake_count": null, "mean_hours_to_pr": 1.0}
        ])
    );
    assert_eq!(
        dash["failure_categories"],
        serde_json::json!([
            {"failure_category": "running_out_of_time", "tasks": 1, "share": 0.5},
            {"failure_category": "tool_or_environment_failure", "tasks": 1, "share": 0.5}
        ])
    );
}

/// The evaluation study (fixtures/tasks/make_evaluation.py): eight tasks of users alice and
/// bob (and one of no user) on acme/api and acme/web, prompt v1 in January and v2 in February,
/// with their PRs, reviews and changed files in the snapshot.
fn evaluation_dashboard() -> (tempfile::TempDir, Value) {
    let tmp = tempfile::tempdir().unwrap();
    Study::fixture("tasks/evaluation").tasks(fixture("tasks/evaluation/tasks")).run(tmp.path(), "ds");
    let dash: Value = serde_json::from_str(&ok(&["report", "--dataset", "ds", "--format", "json"], tmp.path())).unwrap();
    (tmp, dash)
}

fn round4(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

/// "Did merge rates improve after prompt version X was deployed for repo Y?": a plain merge
/// rate per repository and prompt version, with the month the version first ran there, and
/// the same per month. On acme/api, v1 (January: t1 merged, t2 closed unmerged, t3 failed with
/// no PR) merged 1 of its 2 decided PRs; v2 (February: t4 merged, t5 still open) 1 of 1, the
/// open PR counted apart, not as unmerged. On acme/web, v1's one task (t7) timed out with no
/// PR: no rate; v2 merged both (t6, t8).
#[test]
fn merge_rate_by_repository_prompt_version_and_month() {
    let (_tmp, dash) = evaluation_dashboard();
    let row = |repo: &str, v: &str, month: i64, tasks: i64, decided: i64, merged: i64, open: i64| {
        let rate = if decided == 0 { Value::Null } else { serde_json::json!(round4(merged as f64 / decided as f64)) };
        serde_json::json!({"repo": repo, "prompt_version": v, "first_task_month": month, "tasks": tasks, "prs_decided": decided,
                           "merged": merged, "merge_rate": rate, "prs_open": open})
    };
    assert_eq!(
        dash["prompt_versions_by_repo"],
        serde_json::json!([
            row("acme/api", "v1", 202601, 3, 2, 1, 0),
            row("acme/api", "v2", 202602, 2, 1, 1, 1),
            row("acme/web", "v1", 202601, 1, 0, 0, 0),
            row("acme/web", "v2", 202602, 2, 2, 2, 0),
        ])
    );
    // Over time: each version ran in one month here, so the months are the rows above, with
    // the review figures. acme/api v2: t4's PR asked for a revision (a round of comments),
    // then merged: revision cycles 1 and no first-review merge (0 of 1: t5's is open).
    // Hours to PR: t1 1, t2 2 (January); t4 1, t5 0.5 (February); t6 1, t8 2 on acme/web.
    let over = dash["prompt_versions_over_time"].as_array().unwrap();
    let get = |repo: &str, month: i64| over.iter().find(|r| r["repo"] == repo && r["month"] == month).unwrap().clone();
    assert_eq!(over.len(), 4);
    assert_eq!(
        get("acme/api", 2),
        serde_json::json!({"repo": "acme/api", "year": 2026, "month": 2, "prompt_version": "v2", "tasks": 2, "failed": 0, "prs_decided": 1,
                           "merge_rate": 1.0, "prs_open": 1, "first_review_merge_rate": 0.0, "mean_revision_cycles": 1.0, "mean_hours_to_pr": (1.0 + 0.5) / 2.0})
    );
    assert_eq!(
        get("acme/api", 1),
        serde_json::json!({"repo": "acme/api", "year": 2026, "month": 1, "prompt_version": "v1", "tasks": 3, "failed": 1, "prs_decided": 2,
                           "merge_rate": 0.5, "prs_open": 0, "first_review_merge_rate": 0.5, "mean_revision_cycles": 0.0, "mean_hours_to_pr": (1.0 + 2.0) / 2.0})
    );
    assert_eq!(get("acme/web", 2)["mean_hours_to_pr"], serde_json::json!((1.0 + 2.0) / 2.0));
    assert_eq!(get("acme/web", 1)["merge_rate"], Value::Null);
}

/// The A/B comparison of prompt variants on merge rate, failure rate, tokens, duration and
/// cost, each mean over the tasks that recorded it: v1 is t1, t2, t3 (failed) and t7 (timed
/// out); v2 is t4, t5 (no tokens recorded), t6 and t8.
#[test]
fn prompt_variants_compared_on_outcomes_tokens_duration_and_cost() {
    let (_tmp, dash) = evaluation_dashboard();
    let mean = |xs: &[f64]| round4(xs.iter().sum::<f64>() / xs.len() as f64);
    assert_eq!(
        dash["prompt_variants"],
        serde_json::json!([
            {"prompt_version": "v1", "tasks": 4, "failure_rate": 0.5, "prs_decided": 2, "merge_rate": 0.5, "prs_open": 0,
             "mean_tokens": mean(&[1000.0 + 200.0, 3000.0 + 500.0, 500.0 + 100.0, 4000.0 + 1000.0]),
             "mean_duration_s": mean(&[600.0, 1800.0, 300.0, 28800.0]), "mean_cost_usd": mean(&[0.5, 1.5, 0.2, 3.0])},
            {"prompt_version": "v2", "tasks": 4, "failure_rate": 0.0, "prs_decided": 3, "merge_rate": 1.0, "prs_open": 1,
             "mean_tokens": mean(&[1200.0 + 300.0, 800.0 + 200.0, 900.0 + 100.0]),
             "mean_duration_s": mean(&[500.0, 700.0, 400.0, 800.0]), "mean_cost_usd": mean(&[0.6, 0.7, 0.4, 0.8])}
        ])
    );
}

/// The figures by user: alice ran t1, t3 (failed), t4, t8; bob t2, t5, t6; t7 records no user.
#[test]
fn figures_by_user() {
    let (_tmp, dash) = evaluation_dashboard();
    let rows = dash["by_user"].as_array().unwrap();
    assert_eq!(rows.iter().map(|r| r["user_id"].as_str().unwrap()).collect::<Vec<_>>(), ["(none)", "alice", "bob"]);
    // alice: PRs api#1 (approved, merged), api#3 (a round of comments, merged), web#2
    // (approved, merged): 3 of 3 merged; merged on first review 2 of 3; revision cycles
    // (0 + 1 + 0) / 3; hours to PR (1 + 1 + 2) / 3; cost (0.5 + 0.2 + 0.6 + 0.8) / 4.
    assert_eq!(
        rows[1],
        serde_json::json!({"user_id": "alice", "tasks": 4, "failure_rate": 0.25, "prs_decided": 3, "merge_rate": 1.0, "prs_open": 0,
                           "first_review_merge_rate": round4(2.0 / 3.0), "mean_revision_cycles": round4(1.0 / 3.0), "first_push_ci_pass_rate": null, "review_comment_density": null,
                           "repeated_mistake_count": null, "mean_hours_to_pr": round4(4.0 / 3.0), "mean_cost_usd": round4(2.1 / 4.0)})
    );
    // bob: api#2 closed unmerged after changes were asked, api#4 open, web#1 merged: 1 of 2
    // decided merged, first-review merges 1 of 2, revision cycles of merged web#1 0.
    assert_eq!(
        rows[2],
        serde_json::json!({"user_id": "bob", "tasks": 3, "failure_rate": 0.0, "prs_decided": 2, "merge_rate": 0.5, "prs_open": 1,
                           "first_review_merge_rate": 0.5, "mean_revision_cycles": 0.0, "first_push_ci_pass_rate": null, "review_comment_density": null,
                           "repeated_mistake_count": null, "mean_hours_to_pr": round4((2.0 + 0.5 + 1.0) / 3.0), "mean_cost_usd": round4((1.5 + 0.7 + 0.4) / 3.0)})
    );
    assert_eq!((rows[0]["tasks"].as_i64(), rows[0]["failure_rate"].as_f64(), &rows[0]["merge_rate"]), (Some(1), Some(1.0), &Value::Null));
}

/// Task PRs get a risk level, and its distribution is shown over time (per repository),
/// per prompt version and per user. Levels as laid out: api#1 low (small, tested), api#2
/// critical (a migration), api#3 medium (seven files), api#4 high (package.json adds a dependency), web#1
/// unknown (files not captured), web#2 low.
#[test]
fn risk_levels_of_task_prs_by_month_prompt_version_and_user() {
    let (tmp, dash) = evaluation_dashboard();
    let levels: Vec<Value> = serde_json::from_str(&ok(
        &["report", "--dataset", "ds", "--sql", "SELECT task_id, risk_level FROM pr_risk ORDER BY task_id", "--format", "json"],
        tmp.path(),
    ))
    .unwrap();
    let level = |id: &str| levels.iter().find(|r| r["task_id"] == id).map(|r| r["risk_level"].clone()).unwrap();
    for (id, want) in [("t1", "low"), ("t2", "critical"), ("t4", "medium"), ("t5", "high"), ("t8", "low")] {
        assert_eq!(level(id), serde_json::json!(want), "{id}");
    }
    assert_eq!(level("t6"), Value::Null);
    let dist = |prs: i64, low: i64, medium: i64, high: i64, critical: i64, unknown: i64| serde_json::json!({"low": low, "medium": medium, "high": high, "critical": critical, "risk_unknown": unknown, "n": prs});
    let as_dist = |r: &Value, n: &str| serde_json::json!({"low": r["low"], "medium": r["medium"], "high": r["high"], "critical": r["critical"], "risk_unknown": r["risk_unknown"], "n": r[n]});
    let over: Vec<Value> = dash["risk_over_time"].as_array().unwrap().iter().map(|r| as_dist(r, "prs")).collect();
    // acme/api January: api#1, api#2; February: api#3, api#4; acme/web February: web#1, web#2.
    assert_eq!(over, [dist(2, 1, 0, 0, 1, 0), dist(2, 0, 1, 1, 0, 0), dist(2, 1, 0, 0, 0, 1)]);
    let keys: Vec<(String, i64)> =
        dash["risk_over_time"].as_array().unwrap().iter().map(|r| (r["repo"].as_str().unwrap().to_string(), r["month"].as_i64().unwrap())).collect();
    assert_eq!(keys, [("acme/api".to_string(), 1), ("acme/api".to_string(), 2), ("acme/web".to_string(), 2)]);
    // v1: t1, t2; v2: t4, t5, t6, t8.
    let by_version: Vec<Value> = dash["risk_by_prompt_version"].as_array().unwrap().iter().map(|r| as_dist(r, "task_prs")).collect();
    assert_eq!(by_version, [dist(2, 1, 0, 0, 1, 0), dist(4, 1, 1, 1, 0, 1)]);
    // alice: t1, t4, t8; bob: t2, t5, t6.
    let by_user: Vec<Value> = dash["risk_by_user"].as_array().unwrap().iter().map(|r| as_dist(r, "task_prs")).collect();
    assert_eq!(by_user, [dist(3, 2, 1, 0, 0, 0), dist(3, 0, 0, 1, 1, 1)]);
    // Against the outcome: low api#1 and web#2 merged; medium api#3 merged; high api#4 still
    // open (undecided, out of both rates); critical api#2 closed unmerged; unknown web#1 merged.
    let row = |level: &str, prs: i64, decided: i64, open: i64, merge: Option<f64>, reject: Option<f64>| {
        serde_json::json!({"risk_level": level, "prs": prs, "prs_decided": decided, "prs_open": open, "merge_rate": merge, "rejection_rate": reject})
    };
    assert_eq!(
        dash["task_risk_by_outcome"],
        serde_json::json!([
            row("low", 2, 2, 0, Some(1.0), Some(0.0)),
            row("medium", 1, 1, 0, Some(1.0), Some(0.0)),
            row("high", 1, 0, 1, None, None),
            row("critical", 1, 1, 0, Some(0.0), Some(1.0)),
            row("(unknown)", 1, 1, 0, Some(1.0), Some(0.0)),
        ])
    );
}

/// "Do risky PRs take longer to review?": hours from a PR's opening to its first review, per
/// risk level. Low: api#1 after 2 h and web#2 after 4 h (median and mean 3); medium: api#3
/// after 1 h; critical: api#2 after 10 h; high: api#4, open and not yet reviewed, is counted
/// apart rather than given a time; unknown: web#1 after 1 h.
#[test]
fn time_to_first_review_by_risk_level() {
    let (_tmp, dash) = evaluation_dashboard();
    let row = |level: &str, prs: i64, reviewed: i64, unreviewed: i64, hours: Option<f64>| {
        serde_json::json!({"risk_level": level, "prs": prs, "prs_reviewed": reviewed, "prs_unreviewed": unreviewed,
                           "median_hours_to_first_review": hours, "mean_hours_to_first_review": hours})
    };
    assert_eq!(
        dash["review_time_by_risk"],
        serde_json::json!([
            row("low", 2, 2, 0, Some((2.0 + 4.0) / 2.0)),
            row("medium", 1, 1, 0, Some(1.0)),
            row("high", 1, 0, 1, None),
            row("critical", 1, 1, 0, Some(10.0)),
            row("(unknown)", 1, 1, 0, Some(1.0)),
        ])
    );
}

/// The new sections carry the researcher's titles, and a study without task records has none
/// of the task sections (nor an error).
#[test]
fn evaluation_sections_titled_and_shown_only_with_their_tables() {
    let (tmp, _dash) = evaluation_dashboard();
    let table = ok(&["report", "--dataset", "ds"], tmp.path());
    for title in [
        "Did merge rates improve after a prompt version reached a repository?",
        "Prompt versions over time",
        "Prompt variants compared (A/B)",
        "By user:",
        "Do risky PRs take longer to review?",
        "PR risk levels by repository and month opened",
        "PR risk levels of task PRs by prompt version",
        "PR risk levels of task PRs by user",
    ] {
        assert!(table.contains(title), "no section titled {title:?}");
    }
    // In the researcher's words, not the specification's numbering.
    let touched = [
        "risk_by_outcome",
        "review_time_by_risk",
        "risk_over_time",
        "failure_categories",
        "prompt_versions",
        "prompt_versions_by_repo",
        "prompt_versions_over_time",
        "prompt_variants",
        "by_user",
        "risk_by_prompt_version",
        "risk_by_user",
        "memory_over_time",
    ];
    for (name, title) in hindsight::report::sections(false).into_iter().filter(|(n, _)| touched.contains(n)) {
        assert!(!title.contains("seed 0"), "{name}: {title}");
    }
    Study::demo().run(tmp.path(), "plain");
    let plain: Value = serde_json::from_str(&ok(&["report", "--dataset", "plain", "--format", "json"], tmp.path())).unwrap();
    for section in ["prompt_versions_by_repo", "prompt_versions_over_time", "prompt_variants", "by_user", "risk_by_prompt_version", "risk_by_user"] {
        assert!(plain.get(section).is_none(), "{section} shown without task records");
    }
    assert!(plain.get("review_time_by_risk").is_some() && plain.get("risk_over_time").is_some());
}

/// The feedback loop as data, on `fixtures/tasks/feedback-loop` read by hand:
/// - **Records.** 6 task lines (w2's `risk_level` "extreme" is no level: quarantined), 6
///   events, 7 prompt lines (a second default `p1` and `p3` without `text` quarantined):
///   19 read = 16 used + 3 quarantined.
/// - **Failure summaries.** a1 (`command not found`: environment) points at p1's "Setup"
///   (its heading, and "tools" in its text); a3 (TIMED_OUT) at p2's "Time budget"; w1
///   (build failed, no tests run) at acme/web's own `w2`, "Testing". a4 decides nothing
///   (uncategorized): no insight.
/// - **Self-feedback.** a1-fb, a2-done (marked by `insight_type`, its answer in `content`),
///   a2-fb2 and w1-fb; a3-fb has no answer and a4-note is not marked. a2-fb2 says a1-fb's
///   words exactly (overlap 1); a2-done shares 7 of its 9 words with a1-fb (0.78, under the
///   0.8 threshold) and is the same task as a2-fb2; w1-fb is a1-fb's text in another
///   repository: none of those three repeats.
/// - **Prompt changes.** p1 -> p2 by release time (4 lines added: a Setup line and the Time
///   budget section); acme/web's versions have no release times, so by name as numbers:
///   w1 -> w2 -> w10.
#[test]
fn insights_and_prompt_changes_from_task_records() {
    let tmp = tempfile::tempdir().unwrap();
    let ds = Study::demo().tasks(fixture("tasks/feedback-loop")).convert(tmp.path(), "ds");
    let m = hindsight::dataset::manifest::Manifest::load(&ds).unwrap();
    let r = &m.records["tasks"];
    assert_eq!((r.input, r.used, r.quarantined), (19, 16, 3));
    let q = sql_json(&ds, "SELECT file, line, field FROM quarantine WHERE input = 'tasks' ORDER BY file, line");
    let q: Vec<String> = q.iter().map(|r| format!("{}:{} {}", r["file"].as_str().unwrap(), r["line"], r["field"].as_str().unwrap_or(""))).collect();
    assert_eq!(q, ["prompts.jsonl:6 prompt_version", "prompts.jsonl:7 text", "tasks.jsonl:6 risk_level"]);
    let levels = sql_json(&ds, "SELECT task_id, platform_risk_level FROM tasks WHERE platform_risk_level IS NOT NULL");
    assert_eq!((levels[0]["task_id"].as_str(), levels[0]["platform_risk_level"].as_str(), levels.len()), (Some("a2"), Some("high"), 1));

    let rows = sql_json(&ds, "SELECT insight_id, repo, insight_type, prompt_section, failure_category, repeats_insight_id FROM insights");
    let got: Vec<String> = rows
        .iter()
        .map(|r| {
            let s = |k: &str| r[k].as_str().unwrap_or("-").to_string();
            format!("{} {} {} {} {} {}", s("insight_id"), s("repo"), s("insight_type"), s("prompt_section"), s("failure_category"), s("repeats_insight_id"))
        })
        .collect();
    assert_eq!(
        got,
        [
            "failure:a1 acme/api failure_summary Setup tool_or_environment_failure -",
            "self_feedback:a1-fb acme/api agent_self_feedback - - -",
            "self_feedback:a2-done acme/api agent_self_feedback - - -",
            "self_feedback:a2-fb2 acme/api agent_self_feedback - - self_feedback:a1-fb",
            "failure:a3 acme/api failure_summary Time budget running_out_of_time -",
            "failure:w1 acme/web failure_summary Testing missing_testing_or_verification -",
            "self_feedback:w1-fb acme/web agent_self_feedback - - -",
        ]
    );
    let text = sql_json(&ds, "SELECT text FROM insights WHERE insight_id = 'failure:a1'");
    assert_eq!(text[0]["text"], "A tool or the environment failed: error_message matches \"command not found\"");

    let changes = sql_json(&ds, "SELECT repo, from_version, to_version, ordered_by, lines_added, lines_removed, sections_changed FROM prompt_changes ORDER BY repo NULLS FIRST, step");
    let got: Vec<String> = changes
        .iter()
        .map(|r| {
            let s = |k: &str| r[k].as_str().unwrap_or("-").replace('\n', "|");
            format!("{} {}->{} {} +{} -{} {}", s("repo"), s("from_version"), s("to_version"), s("ordered_by"), r["lines_added"], r["lines_removed"], s("sections_changed"))
        })
        .collect();
    assert_eq!(
        got,
        ["- p1->p2 released_at +4 -0 Setup|Time budget", "acme/web w1->w2 version_name +4 -1 Testing|Web", "acme/web w2->w10 version_name +1 -1 Testing"]
    );
    let diff = sql_json(&ds, "SELECT diff FROM prompt_changes WHERE to_version = 'w10'");
    assert!(diff[0]["diff"].as_str().unwrap().contains("-Run pnpm test.\n+Run pnpm test and pnpm lint.\n"), "{}", diff[0]["diff"]);

    // `export --insights`: a line per row of the table, keys sorted, the working columns left out.
    let file = tmp.path().join("insights.jsonl");
    ok(&["export", "--quiet", "--dataset", ds.to_str().unwrap(), "--insights", file.to_str().unwrap()], tmp.path());
    let lines: Vec<Value> = std::fs::read_to_string(&file).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), rows.len());
    let keys: Vec<&str> = lines[0].as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        ["failure_category", "insight_id", "insight_type", "prompt_section", "prompt_version", "repeats_insight_id", "repo", "source", "task_id", "text", "timestamp"]
    );
    assert_eq!((lines[3]["insight_id"].as_str(), lines[3]["timestamp"].as_str()), (Some("self_feedback:a2-fb2"), Some("2026-03-02T10:06:00Z")));
    let again = crate::support::run(&["export", "--quiet", "--dataset", ds.to_str().unwrap(), "--insights", file.to_str().unwrap()], tmp.path());
    assert!(!again.status.success() && String::from_utf8_lossy(&again.stderr).contains("--force replaces it"));
}

/// The PR rules on a real recorded `pulls/N/files` body (github3.py PR 286, verbatim:
/// fixtures/real/pull-files/README.md): it changes `github3/pulls.py`, adds two cassettes
/// and extends two test files (101 lines added, 1 removed, no test declaration among the
/// removed). A task naming `github3/pulls.py` changed nothing else (tests aside); one naming
/// `github3/models.py` changed `github3/pulls.py` outside it; no test was skipped or deleted.
#[test]
fn named_files_and_skipped_tests_on_a_real_pull_files_body() {
    let body = std::fs::read_to_string(fixture("real/pull-files/github3py-pulls-286-files-2015.json")).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let write = |description: &str| {
        let dir = tmp.path().join(description.len().to_string());
        std::fs::create_dir_all(&dir).unwrap();
        let task = serde_json::json!({"task_id": "t", "status": "FAILED", "pr_url": "https://github.com/sigmavirus24/github3.py/pull/286", "description": description});
        std::fs::write(dir.join("tasks.jsonl"), format!("{task}\n")).unwrap();
        hindsight::tasks::read(&dir).unwrap()
    };
    let judge = |description: &str| {
        let read = write(description);
        let evidence = hindsight::tasks::evidence::from_bodies(&read.tasks, CiStates::default(), [("repos/sigmavirus24/github3.py/pulls/286/files".to_string(), body.clone())]);
        let f = categorize_all(&read.tasks, &read.events, &TaskPolicy::default(), &evidence);
        (f[0].rule_id.unwrap_or("").to_string(), f[0].evidence.clone().unwrap_or_default())
    };
    assert_eq!(judge("Add create_review_comment to github3/pulls.py"), (String::new(), String::new()));
    assert_eq!(
        judge("Add a helper to github3/models.py"),
        ("change_outside_named_files".to_string(), "repos/sigmavirus24/github3.py/pulls/286/files: github3/pulls.py is not among the files the task names (github3/models.py)".to_string())
    );
}

/// Traces that name their task (`metadata.task_id`) lend it their tool calls and
/// self-feedback (fixtures/tasks/feedback-loop-traces with fixtures/tasks/feedback-loop):
/// a4, which its own records leave uncategorized, ran `cargo test --workspace` in its trace
/// and the call ended in error: tests were run and failed, a reasoning error, counted in its
/// tier-1 runs. Its trace's self-feedback step is a4's insight; a trace naming no task keeps
/// its own (`trace:ID`), with the repository its task names. Nothing of the traces is written
/// as a task event.
#[test]
fn traces_lend_their_tasks_tool_calls_and_self_feedback() {
    let tmp = tempfile::tempdir().unwrap();
    let ds = Study::demo().tasks(fixture("tasks/feedback-loop")).traces(fixture("tasks/feedback-loop-traces")).convert(tmp.path(), "ds");
    let f = sql_json(&ds, "SELECT failure_category, rule_id, evidence FROM task_failures WHERE task_id = 'a4'");
    assert_eq!(
        (f[0]["failure_category"].as_str(), f[0]["rule_id"].as_str(), f[0]["evidence"].as_str()),
        (Some("reasoning_error"), Some("tests_failing"), Some("event trace:tr-a4:2:0:result: test run failed (exit_code 1)"))
    );
    let v = sql_json(&ds, "SELECT test_runs, test_runs_failed FROM tasks WHERE task_id = 'a4'");
    assert_eq!((v[0]["test_runs"].as_i64(), v[0]["test_runs_failed"].as_i64()), (Some(1), Some(1)));
    let i = sql_json(&ds, "SELECT insight_id, task_id, repo, source FROM insights WHERE source LIKE 'trace_steps%' ORDER BY insight_id");
    let got: Vec<String> = i.iter().map(|r| format!("{} {} {} {}", r["insight_id"].as_str().unwrap(), r["task_id"].as_str().unwrap(), r["repo"].as_str().unwrap(), r["source"].as_str().unwrap())).collect();
    assert_eq!(got, ["self_feedback:trace:tr-a4:3 a4 acme/api trace_steps tr-a4:3", "self_feedback:trace:tr-free:1 trace:tr-free acme/web trace_steps tr-free:1"]);
    let e = sql_json(&ds, "SELECT COUNT(*) AS n FROM task_events WHERE event_id LIKE 'trace:%'");
    assert_eq!(e[0]["n"], 0);
}

/// Outcomes against memory state and hydration quality, on the demo's platform tasks
/// (fixtures/make_demo.py): v1's tasks 140-143 ran with memory `mem-2026-01` (PRs 140, 141
/// merged, 142 closed unmerged, 143 open), v2's 144-147 with `mem-2026-02` (144-146 merged,
/// 147 closed); the three failed tasks record no memory and no score. Hydration scores
/// 0.2, 0.4, 0.6, 0.9 for 140-143 and 0.8 for 144-147.
#[test]
fn outcomes_by_memory_state_and_hydration_quality() {
    let tmp = tempfile::tempdir().unwrap();
    let ds = crate::support::demo(tmp.path());
    let dash: Value = serde_json::from_str(&ok(&["report", "--dataset", ds.to_str().unwrap(), "--format", "json"], tmp.path())).unwrap();
    let row = |v: &str, tasks: i64, failure: f64, decided: i64, merge: Option<f64>, open: i64| {
        serde_json::json!({"memory_version": v, "tasks": tasks, "failure_rate": failure, "prs_decided": decided, "merge_rate": merge, "prs_open": open})
    };
    let got: Vec<Value> = dash["memory_state"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| serde_json::json!({"memory_version": r["memory_version"], "tasks": r["tasks"], "failure_rate": r["failure_rate"], "prs_decided": r["prs_decided"], "merge_rate": r["merge_rate"], "prs_open": r["prs_open"]}))
        .collect();
    assert_eq!(got, [row("(none)", 3, 1.0, 0, None, 0), row("mem-2026-01", 4, 0.0, 3, Some(round4(2.0 / 3.0)), 1), row("mem-2026-02", 4, 0.0, 4, Some(0.75), 0)]);
    assert_eq!(dash["memory_state"][1]["mean_hydration_score"], serde_json::json!(round4((0.2 + 0.4 + 0.6 + 0.9) / 4.0)));
    let bands: Vec<(String, i64, i64, Value)> = dash["hydration_quality"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["hydration_band"].as_str().unwrap().to_string(), r["tasks"].as_i64().unwrap(), r["prs_decided"].as_i64().unwrap(), r["merge_rate"].clone()))
        .collect();
    assert_eq!(
        bands,
        [
            ("(unscored)".to_string(), 3, 0, Value::Null),
            ("[0, 0.25)".to_string(), 1, 1, serde_json::json!(1.0)),
            ("[0.25, 0.5)".to_string(), 1, 1, serde_json::json!(1.0)),
            ("[0.5, 0.75)".to_string(), 1, 1, serde_json::json!(0.0)),
            ("[0.75, 1]".to_string(), 5, 4, serde_json::json!(0.75)),
        ]
    );
    let issue = sql_json(&ds, "SELECT issue_repo, issue_number FROM tasks WHERE task_id = 'task-140'");
    assert_eq!((issue[0]["issue_repo"].as_str(), issue[0]["issue_number"].as_i64()), (Some("acme/webapp"), Some(12)));
}
