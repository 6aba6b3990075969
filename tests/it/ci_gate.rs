//! Seed 002's CI gate replayed: each gate outcome on captures in GitHub's check-run shape
//! (shared/formats/github-rest/commits_SHA_check-runs.json), the demo's CI-gate run, and the
//! figures in the dashboard.

use hindsight::evaluate::ci_gate::{self, GateOutcome};
use hindsight::runs::item::{self, RunContext};
use hindsight::snapshot::SnapshotIndex;
use serde_json::{json, Value};

use super::support::ok;

const REPO: &str = "o/r";

/// The real check-run shape with the fields a case changes.
fn check_run(sha: &str, name: &str, status: &str, conclusion: Option<&str>, completed: &str, text: &str) -> Value {
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(super::support::root().join("../shared/formats/github-rest/commits_SHA_check-runs.json")).unwrap_or_else(|_| {
        // Where ../shared is absent: the same shape, trimmed.
        r#"{"total_count": 1, "check_runs": [{"id": 4, "status": "completed", "conclusion": "neutral", "output": {"title": "", "summary": "", "text": ""}, "name": "x"}]}"#.to_string()
    }))
    .unwrap();
    let run = &mut v["check_runs"][0];
    run["head_sha"] = json!(sha);
    run["name"] = json!(name);
    run["status"] = json!(status);
    run["conclusion"] = json!(conclusion);
    run["started_at"] = json!("2026-01-01T00:00:00Z");
    run["completed_at"] = if conclusion.is_some() { json!(completed) } else { Value::Null };
    run["output"]["summary"] = json!("");
    run["output"]["text"] = json!(text);
    v
}

/// A PR opened at 00:00 with one push per entry: (sha, minutes after, CI of that commit or
/// None when not captured).
fn replay(pushes: &[(&str, i64, Option<Value>)]) -> ci_gate::Replay {
    let t = |m: i64| format!("2026-01-01T{:02}:{:02}:00Z", m / 60, m % 60);
    let commits: Vec<Value> = pushes.iter().map(|(sha, m, _)| json!({"sha": sha, "commit": {"message": "x", "committer": {"date": t(*m)}}})).collect();
    let mut rows = vec![(format!("repos/{REPO}/pulls/1/commits"), 1, 200u16, None, Value::Array(commits).to_string())];
    for (sha, _, ci) in pushes {
        if let Some(ci) = ci {
            rows.push((format!("repos/{REPO}/commits/{sha}/check-runs"), 1, 200, None, ci.to_string()));
        }
    }
    let index = SnapshotIndex::build(rows);
    let ctx = RunContext { run_id: "1".into(), workflow_name: None, repository: Some(REPO.into()), actor: None, staged: false, temp_ids: Default::default() };
    let o = item::from_record(
        &ctx,
        &json!({"type": "create_pull_request", "target": {"repo": REPO, "number": 1}, "timestamp": "2026-01-01T00:00:00Z"}),
        0,
        item::Format::GhAw,
        "f",
        1,
    )
    .unwrap();
    ci_gate::replay(&index, &o).expect("a PR output is replayed")
}

fn green(sha: &str, done: &str) -> Value {
    check_run(sha, "test", "completed", Some("success"), done, "")
}

fn red(sha: &str, done: &str, code: &str) -> Value {
    check_run(sha, "typecheck", "completed", Some("failure"), done, &format!("src/a.ts(1,1): error {code}: Property 'fromArrays' missing"))
}

#[test]
fn each_gate_outcome() {
    // Green on the first push.
    let r = replay(&[("a1", 0, Some(green("a1", "2026-01-01T00:10:00Z")))]);
    assert_eq!((r.outcome, r.fix_attempts, r.accepted_sha.as_deref()), (GateOutcome::Accepted, 0, Some("a1")));
    // Red, then fixed on attempt 1.
    let r = replay(&[("b1", 0, Some(red("b1", "2026-01-01T00:10:00Z", "TS2339"))), ("b2", 20, Some(green("b2", "2026-01-01T00:30:00Z")))]);
    assert_eq!((r.outcome, r.fix_attempts), (GateOutcome::Accepted, 1));
    assert_eq!(r.steps[0].decision, "fix attempt 1");
    // The same signature twice in a row: stuck.
    let r = replay(&[("c1", 0, Some(red("c1", "2026-01-01T00:10:00Z", "TS2339"))), ("c2", 20, Some(red("c2", "2026-01-01T00:30:00Z", "TS2339")))]);
    assert_eq!(r.outcome, GateOutcome::Stuck);
    assert_eq!(r.pause_reason.as_deref(), Some("stuck in CI fix loop: typecheck|TS2339:fromArrays:src/a.ts"));
    // Five fixes, each failing differently, the fifth still red: exhausted.
    let shas = ["d0", "d1", "d2", "d3", "d4", "d5"];
    let pushes: Vec<(&str, i64, Option<Value>)> = shas
        .iter()
        .enumerate()
        .map(|(i, s)| (*s, i as i64 * 8, Some(red(s, &format!("2026-01-01T00:{:02}:00Z", i * 8 + 5), &format!("TS{}", 2300 + i)))))
        .collect();
    let r = replay(&pushes);
    assert_eq!((r.outcome, r.fix_attempts), (GateOutcome::CiFixExhausted, 5));
    assert_eq!(r.pause_reason.as_deref(), Some("ci-fix-exhausted: typecheck|TS2305:fromArrays:src/a.ts"));
    // Four pushes are not five fixes: red with nothing after is unresolved, not exhausted.
    assert_eq!(replay(&pushes[..5]).outcome, GateOutcome::RedUnresolved);
    // A verdict 75 minutes after the first push: ci-timeout, whatever the colour.
    let r = replay(&[("e1", 0, Some(red("e1", "2026-01-01T00:10:00Z", "TS1"))), ("e2", 50, Some(green("e2", "2026-01-01T01:15:00Z")))]);
    assert_eq!((r.outcome, r.pause_reason.as_deref()), (GateOutcome::CiTimeout, Some("ci-timeout")));
    // No CI captured is missing, never success; a check still running is pending.
    assert_eq!(replay(&[("f1", 0, None)]).outcome, GateOutcome::CiMissing);
    assert_eq!(replay(&[("g1", 0, Some(check_run("g1", "test", "in_progress", None, "", "")))]).outcome, GateOutcome::CiPending);
}

#[test]
fn the_demo_has_every_gate_outcome_and_the_dashboard_shows_them() {
    let tmp = tempfile::tempdir().unwrap();
    ok(&["run", "--out", "ds", "--quiet"], tmp.path());
    let q = "SELECT pull_number, gate_outcome, fix_attempts, pause_reason, accepted_while_ci_red FROM ci_gate WHERE pull_number >= 130 ORDER BY pull_number";
    let rows: Vec<Value> = serde_json::from_str(&ok(&["report", "--dataset", "ds", "--sql", q, "--format", "json"], tmp.path())).unwrap();
    let got: Vec<(i64, &str, i64, bool)> = rows
        .iter()
        .map(|r| {
            (
                r["pull_number"].as_i64().unwrap(),
                r["gate_outcome"].as_str().unwrap(),
                r["fix_attempts"].as_i64().unwrap(),
                r["accepted_while_ci_red"].as_bool().unwrap(),
            )
        })
        .collect();
    // As fixtures/make_demo.py's ci_loop lays them out.
    assert_eq!(
        got,
        [
            (130, "accepted", 0, false),
            (131, "accepted", 1, false),
            (132, "stuck", 1, false),
            (133, "ci-fix-exhausted", 5, false),
            (134, "ci-timeout", 2, false),
            (135, "red_unresolved", 0, true),
        ]
    );
    assert_eq!(rows[2]["pause_reason"], "stuck in CI fix loop: typecheck|TS2339:fromArrays:tests/stats/eval_query.test.ts");
    // The dashboard, in JSON too, carries the figures.
    let dash: Value = serde_json::from_str(&ok(&["report", "--dataset", "ds", "--format", "json"], tmp.path())).unwrap();
    let g = &dash["ci_gate"][0];
    assert_eq!((g["accepted_while_ci_red"].as_i64(), g["paused"].as_i64(), g["accepted"].as_i64()), (Some(1), Some(3), Some(2)));
    let outcomes: Vec<&str> = dash["ci_gate_outcomes"].as_array().unwrap().iter().map(|r| r["gate_outcome"].as_str().unwrap()).collect();
    for o in ["accepted", "ci-fix-exhausted", "stuck", "ci-timeout"] {
        assert!(outcomes.contains(&o), "{outcomes:?}");
    }
    let table = ok(&["report", "--dataset", "ds", "--format", "markdown"], tmp.path());
    assert!(table.contains("accepted_while_ci_red"));
}
