//! opentraces: reading, hashing as the real package does, Parquet tables, linking, the
//! outcome merge rule, and validation of enriched records by the real package.

use std::process::Command;

use hindsight::traces::hash;
use serde_json::Value;

use crate::support::{fixture, ok, root, run};

/// Records written by the real opentraces-schema 0.2.0 package (tests/python/
/// make_trace_fixture.py): non-ASCII text, floats in Python's repr, nested metadata.
#[test]
fn record_hash_equals_the_packages() {
    let text = std::fs::read_to_string(fixture("traces/package-written.jsonl")).unwrap();
    let mut n = 0;
    for line in text.lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        assert_eq!(hash::record_hash(&v), v["content_hash"].as_str().unwrap(), "{}", v["trace_id"]);
        n += 1;
    }
    assert_eq!(n, 2);
}

#[test]
fn bad_lines_are_quarantined_and_unknown_fields_survive() {
    let tmp = tempfile::tempdir().unwrap();
    let demo = fixture("demo");
    let bad = fixture("traces/bad-and-unknown.jsonl");
    let out = run(
        &[
            "run",
            "--snapshot",
            demo.join("snapshot").to_str().unwrap(),
            "--runs",
            demo.join("runs").to_str().unwrap(),
            "--traces",
            bad.to_str().unwrap(),
            "--out",
            "ds",
        ],
        tmp.path(),
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let q =
        ok(&["report", "--dataset", "ds", "--format", "csv", "--sql", "SELECT line, field FROM quarantine WHERE input = 'traces' ORDER BY line"], tmp.path());
    assert_eq!(q, "line,field\n2,\n3,schema_version\n4,agent\n");
    let m = hindsight::dataset::manifest::Manifest::load(&tmp.path().join("ds")).unwrap();
    let r = &m.records["traces"];
    assert_eq!((r.input, r.used, r.quarantined), (4, 1, 3));
    let enriched = std::fs::read_to_string(tmp.path().join("ds/traces.enriched.jsonl")).unwrap();
    let v: Value = serde_json::from_str(enriched.lines().next().unwrap()).unwrap();
    assert_eq!(v["future_field"]["kept"], true, "an unknown field was dropped");
    assert_eq!(v["metadata"]["hindsight"]["unlinked_reason"], "no run id, commit SHA or pull request in the trace");
}

/// The demo's traces: one per link kind and one that cannot be linked; the merge rule
/// fills, keeps and records disagreements; the enriched records pass the real package.
#[test]
fn demo_traces_are_linked_enriched_and_valid() {
    let tmp = tempfile::tempdir().unwrap();
    ok(&["run", "--out", "ds", "--quiet"], tmp.path());
    let links =
        ok(&["report", "--dataset", "ds", "--format", "csv", "--sql", "SELECT DISTINCT trace_id, link_kind FROM trace_links ORDER BY trace_id"], tmp.path());
    let kinds: Vec<&str> = links.lines().skip(1).map(|l| l.split(',').nth(1).unwrap()).collect();
    assert_eq!(kinds, vec!["run_id", "commit_sha", "repository_pr", "run_id", ""]);

    let text = std::fs::read_to_string(tmp.path().join("ds/traces.enriched.jsonl")).unwrap();
    let recs: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    // Linked by run: a merged PR decides: success, committed with the merge commit, derived.
    let o = &recs[0]["outcome"];
    assert_eq!((o["success"].as_bool(), o["committed"].as_bool(), o["signal_confidence"].as_str()), (Some(true), Some(true), Some("derived")));
    assert_eq!(o["commit_sha"], "m101000000000000000000000000000000000000");
    // The trace's own commit is kept; success is filled from the pushed commits' merge.
    assert_eq!(recs[1]["outcome"]["commit_sha"], "b".repeat(40));
    assert_eq!(recs[1]["outcome"]["success"], true);
    // The trace said success; the repository closed the PR unmerged: kept, disagreement recorded.
    assert_eq!(recs[2]["outcome"]["success"], true);
    let c = &recs[2]["metadata"]["hindsight"]["conflicts"][0];
    assert_eq!((c["field"].as_str(), c["trace"].as_bool(), c["hindsight"].as_bool()), (Some("success"), Some(true), Some(false)));
    // Runtime: accepted with medium evidence.
    let o = &recs[3]["outcome"];
    assert_eq!((o["terminal_state"].as_str(), o["reward"].as_f64(), o["reward_source"].as_str()), (Some("goal_reached"), Some(0.5), Some("human_annotation")));
    // Unlinked: nothing filled, and why.
    assert_eq!(recs[4]["outcome"]["success"], Value::Null);
    assert!(recs[4]["metadata"]["hindsight"]["unlinked_reason"].as_str().unwrap().contains("no run id"));
    // Attribution from the trace's own edits.
    assert_eq!(recs[0]["attribution"]["files"][0]["path"], "src/session.js");
    assert_eq!(recs[0]["attribution"]["files"][0]["conversations"][0]["ranges"][0]["start_line"], 2);

    // The real opentraces-schema 0.2.0 package accepts every record and computes the same hash.
    let py = root().join(".venv/bin/python");
    assert!(py.is_file(), "no .venv: run the tests with scripts/test");
    let out = Command::new(py).arg(root().join("tests/python/validate_traces.py")).arg(tmp.path().join("ds/traces.enriched.jsonl")).output().unwrap();
    assert!(out.status.success(), "{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "5 records valid");

    // A notebook question as one join: which tools did sessions whose PR was merged use?
    let sql = "SELECT DISTINCT c.tool_name FROM trace_tool_calls c JOIN trace_links l ON c.trace_id = l.trace_id \
               JOIN outcomes o ON o.safe_output_id = l.safe_output_id \
               WHERE o.eval_window = 'snapshot' AND o.human_check_signal = 'pull_request_merged' ORDER BY c.tool_name";
    assert_eq!(ok(&["report", "--dataset", "ds", "--format", "csv", "--sql", sql], tmp.path()), "tool_name\nEdit\nRead\nWrite\n");
}

#[test]
fn attach_alone_writes_where_asked_and_keeps_existing_attribution() {
    let tmp = tempfile::tempdir().unwrap();
    ok(&["run", "--out", "ds", "--quiet"], tmp.path());
    ok(&["attach", "--dataset", "ds", "--out", "custom.jsonl", "--window", "24h", "--quiet"], tmp.path());
    let text = std::fs::read_to_string(tmp.path().join("custom.jsonl")).unwrap();
    let first: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(first["metadata"]["hindsight"]["window"], "24h");
    // Attribution the record already has is kept unless asked to rebuild.
    let mut rec = first.clone();
    rec["attribution"] = serde_json::json!({"experimental": true, "files": [{"path": "kept.txt", "conversations": []}]});
    rec["metadata"] = serde_json::json!({"run_id": "9001"});
    std::fs::write(tmp.path().join("t.jsonl"), format!("{rec}\n")).unwrap();
    let demo = fixture("demo");
    let (snap, runs) = (demo.join("snapshot").to_string_lossy().to_string(), demo.join("runs").to_string_lossy().to_string());
    ok(&["run", "--snapshot", &snap, "--runs", &runs, "--traces", "t.jsonl", "--out", "ds2", "--quiet"], tmp.path());
    let v: Value = serde_json::from_str(std::fs::read_to_string(tmp.path().join("ds2/traces.enriched.jsonl")).unwrap().lines().next().unwrap()).unwrap();
    assert_eq!(v["attribution"]["files"][0]["path"], "kept.txt");
    ok(&["attach", "--dataset", "ds2", "--rebuild-attribution", "--quiet"], tmp.path());
    let v: Value = serde_json::from_str(std::fs::read_to_string(tmp.path().join("ds2/traces.enriched.jsonl")).unwrap().lines().next().unwrap()).unwrap();
    assert_eq!(v["attribution"]["files"][0]["path"], "src/session.js");
    assert_eq!(v["metadata"]["hindsight"]["attribution"]["rule"], "rebuilt");
}
