//! opentraces: reading, hashing as the real package does, Parquet tables, linking, the
//! outcome merge rule, and validation of enriched records by the real package.

use std::process::Command;

use hindsight::traces::hash;
use serde_json::Value;

use crate::support::{demo, fixture, ok, root, Study};

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
    let out = Study::demo().traces(fixture("traces/bad-and-unknown.jsonl")).cmd("run", &["--out", "ds"], tmp.path());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let q =
        ok(&["report", "--dataset", "ds", "--format", "csv", "--sql", "SELECT line, field FROM quarantine WHERE input = 'traces' ORDER BY line"], tmp.path());
    assert_eq!(q, "line,field\n2,\n3,schema_version\n4,agent\n5,schema_version\n");
    // A version after the newest hindsight knows (0.9) is refused, not written by guess.
    let reason = ok(&["report", "--dataset", "ds", "--format", "csv", "--sql", "SELECT reason FROM quarantine WHERE line = 5"], tmp.path());
    assert!(reason.contains("`0.10.0` is newer than 0.9.x"), "{reason}");
    let m = hindsight::dataset::manifest::Manifest::load(&tmp.path().join("ds")).unwrap();
    let r = &m.records["traces"];
    assert_eq!((r.input, r.used, r.quarantined), (5, 1, 4));
    let enriched = std::fs::read_to_string(tmp.path().join("ds/traces.enriched.jsonl")).unwrap();
    let v: Value = serde_json::from_str(enriched.lines().next().unwrap()).unwrap();
    assert_eq!(v["future_field"]["kept"], true, "an unknown field was dropped");
    assert_eq!(v["metadata"]["hindsight"]["unlinked_reason"], "no run id, commit SHA or pull request in the trace");
}

/// The demo's traces: one per link kind and one that cannot be linked; the merge rule
/// fills, keeps and records disagreements; the enriched records pass the real package.
#[test]
fn demo_traces_are_linked_enriched_and_valid() {
    if !crate::support::have(&[crate::support::Tool::Python]) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    demo(tmp.path());
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
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "5 records valid (schema 0.2.0)");

    // A notebook question as one join: which tools did sessions whose PR was merged use?
    let sql = "SELECT DISTINCT c.tool_name FROM trace_tool_calls c JOIN trace_links l ON c.trace_id = l.trace_id \
               JOIN outcomes o ON o.safe_output_id = l.safe_output_id \
               WHERE o.eval_window = 'snapshot' AND o.human_check_signal = 'pull_request_merged' ORDER BY c.tool_name";
    assert_eq!(ok(&["report", "--dataset", "ds", "--format", "csv", "--sql", sql], tmp.path()), "tool_name\nEdit\nRead\nWrite\n");
}

/// Attach finds a trace's PR by commit SHA in every copy of the PR the snapshot holds, as
/// evaluate reads them: one captured only in the repository's list of pull requests (as
/// `capture` asks for it) links the trace by its head SHA, though the `pull_requests` table
/// (the PRs captured at their own path) has no row for it.
#[test]
fn a_pr_captured_only_in_a_list_links_its_trace_by_commit() {
    let tmp = tempfile::tempdir().unwrap();
    let demo = fixture("demo");
    crate::support::copy_dir(&demo, &tmp.path().join("demo"));
    let cassette = tmp.path().join("demo/snapshot/capture-0001.jsonl");
    let text = std::fs::read_to_string(&cassette).unwrap();
    let mut moved = 0;
    let lines: Vec<String> = text
        .lines()
        .map(|l| {
            let mut v: Value = serde_json::from_str(l).unwrap();
            if v["path"] == "repos/acme/webapp/pulls/110" {
                moved += 1;
                v["path"] = "repos/acme/webapp/pulls".into();
                v["body"] = Value::Array(vec![v["body"].take()]);
            }
            v.to_string()
        })
        .collect();
    assert_eq!(moved, 1, "the demo's PR 110 is no longer captured at its own path");
    std::fs::write(&cassette, lines.join("\n") + "\n").unwrap();
    let d = |p: &str| tmp.path().join("demo").join(p).to_string_lossy().to_string();
    ok(&["run", "--snapshot", &d("snapshot"), "--runs", &d("runs"), "--traces", &d("traces"), "--out", "ds", "--quiet"], tmp.path());
    let sql = |q: &str| ok(&["report", "--dataset", "ds", "--format", "csv", "--sql", q], tmp.path());
    assert_eq!(sql("SELECT count(*) AS n FROM pull_requests WHERE number = 110"), "n\n0\n");
    let links = sql("SELECT DISTINCT trace_id, link_kind FROM trace_links ORDER BY trace_id");
    let kinds: Vec<&str> = links.lines().skip(1).map(|l| l.split(',').nth(1).unwrap()).collect();
    assert_eq!(kinds[1], "commit_sha", "{links}");
}

#[test]
fn attach_alone_writes_where_asked_and_keeps_existing_attribution() {
    let tmp = tempfile::tempdir().unwrap();
    demo(tmp.path());
    ok(&["attach", "--dataset", "ds", "--out", "custom.jsonl", "--window", "24h", "--quiet"], tmp.path());
    let text = std::fs::read_to_string(tmp.path().join("custom.jsonl")).unwrap();
    let first: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(first["metadata"]["hindsight"]["window"], "24h");
    // Attribution the record already has is kept unless asked to rebuild.
    let mut rec = first.clone();
    rec["attribution"] = serde_json::json!({"experimental": true, "files": [{"path": "kept.txt", "conversations": []}]});
    rec["metadata"] = serde_json::json!({"run_id": "9001"});
    std::fs::write(tmp.path().join("t.jsonl"), format!("{rec}\n")).unwrap();
    Study::demo().traces("t.jsonl").run(tmp.path(), "ds2");
    let v: Value = serde_json::from_str(std::fs::read_to_string(tmp.path().join("ds2/traces.enriched.jsonl")).unwrap().lines().next().unwrap()).unwrap();
    assert_eq!(v["attribution"]["files"][0]["path"], "kept.txt");
    ok(&["attach", "--dataset", "ds2", "--rebuild-attribution", "--quiet"], tmp.path());
    let v: Value = serde_json::from_str(std::fs::read_to_string(tmp.path().join("ds2/traces.enriched.jsonl")).unwrap().lines().next().unwrap()).unwrap();
    assert_eq!(v["attribution"]["files"][0]["path"], "src/session.js");
    assert_eq!(v["metadata"]["hindsight"]["attribution"]["rule"], "rebuilt");
}

/// The opentraces-schema releases the tests check against: 0.2.0 (in .venv) and those
/// tests/opentraces-versions.txt lists (in .venv-opentraces/VERSION), all made by scripts/test.
fn package_versions() -> Vec<String> {
    let list = std::fs::read_to_string(root().join("tests/opentraces-versions.txt")).unwrap();
    std::iter::once("0.2.0".to_string()).chain(list.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')).map(str::to_string)).collect()
}

/// `tests/python/validate_traces.py` over `file` with the real package of `version`: its
/// stdout (`N records valid (schema V)`), or the failure.
fn package_validates(file: &std::path::Path, version: &str) -> String {
    let mut cmd = Command::new(crate::support::python());
    if version != "0.2.0" {
        let dir = root().join(".venv-opentraces").join(version);
        assert!(dir.join("opentraces_schema").is_dir(), "no {}: run the tests with scripts/test", dir.display());
        cmd.env("PYTHONPATH", dir);
    }
    let out = cmd.arg(root().join("tests/python/validate_traces.py")).arg(file).output().unwrap();
    assert!(out.status.success(), "opentraces-schema {version}: {}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// The same four sessions as each release writes them (fixtures/traces/written-by-V.jsonl,
/// by tests/python/make_version_fixtures.py with that release), run through attach at once.
/// Returns the enriched records by version, and the folder holding them one file per version.
fn enriched_by_version() -> (tempfile::TempDir, std::collections::BTreeMap<String, Vec<Value>>) {
    let tmp = tempfile::tempdir().unwrap();
    let study = package_versions().iter().fold(Study::demo(), |s, v| s.traces(fixture(&format!("traces/written-by-{v}.jsonl"))));
    study.run(tmp.path(), "ds");
    let mut by: std::collections::BTreeMap<String, (Vec<Value>, String)> = Default::default();
    for line in std::fs::read_to_string(tmp.path().join("ds/traces.enriched.jsonl")).unwrap().lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        let e = by.entry(v["schema_version"].as_str().unwrap().to_string()).or_default();
        e.0.push(v);
        e.1.push_str(line);
        e.1.push('\n');
    }
    for (v, (_, text)) in &by {
        std::fs::write(tmp.path().join(format!("enriched-{v}.jsonl")), text).unwrap();
    }
    (tmp, by.into_iter().map(|(v, (recs, _))| (v, recs)).collect())
}

fn keys(v: &Value) -> Vec<&str> {
    let mut k: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    k.sort();
    k
}

/// Issue 39, item 1: a trace of any version 0.2.0 to 0.9.x gets blocks in its own version's
/// shape, and that version's real package accepts every record (its models make exactly the
/// blocks written; its content_hash is the one written): 0.2.0 through the newest release.
#[test]
fn each_version_gets_blocks_its_own_package_accepts() {
    if !crate::support::have(&[crate::support::Tool::Python, crate::support::Tool::OpentracesReleases]) {
        return;
    }
    let (tmp, by) = enriched_by_version();
    let versions = package_versions();
    assert_eq!(by.keys().cloned().collect::<Vec<_>>(), versions);
    assert!(versions.contains(&"0.9.0".to_string()), "the newest release is checked");
    for v in &versions {
        assert_eq!(package_validates(&tmp.path().join(format!("enriched-{v}.jsonl")), v), format!("4 records valid (schema {v})"));
        let minor: u32 = v.split('.').nth(1).unwrap().parse().unwrap();
        let session = &by[v][0];
        // outcome.patch until 0.5; gone from 0.6 (patches[] instead).
        assert_eq!(session["outcome"].as_object().unwrap().contains_key("patch"), minor < 6, "{v}");
        let a = &session["attribution"];
        let range = &a["files"][0]["conversations"][0]["ranges"][0];
        if minor >= 3 {
            assert_eq!(keys(a), ["experimental", "files", "revision", "unaccounted_files"], "{v}");
            assert_eq!(keys(range), ["change_type", "confidence", "content_hash", "contributor", "end_line", "original", "start_line"], "{v}");
            assert!(range["content_hash"].as_str().unwrap().starts_with("murmur3:"), "{v}");
            // The file changed with no tool call (outcome.patch up to 0.5, patches[] from 0.6).
            assert_eq!(a["unaccounted_files"], serde_json::json!(["docs/notes.md"]), "{v}");
            assert_eq!(a["experimental"], false, "{v}: every edit placed");
        } else {
            assert_eq!(keys(a), ["experimental", "files"], "{v}");
            assert_eq!(keys(range), ["confidence", "content_hash", "end_line", "start_line"], "{v}");
            assert_eq!(range["content_hash"].as_str().unwrap().len(), 8, "{v}");
            assert_eq!(session["metadata"]["hindsight"]["attribution"]["unexplained_patch_files"], serde_json::json!(["docs/notes.md"]));
        }
        // The Edit of step 3 rewrote line 2 of src/session.js, whatever the version.
        assert_eq!((a["files"][0]["path"].as_str(), range["start_line"].as_i64(), range["end_line"].as_i64()), (Some("src/session.js"), Some(2), Some(2)));
    }
}

/// Issue 39, item 2 ([SPEC-TRACES-ATTRIBUTION]): each conversation's contributor carries the
/// `model_id` of the step that made its ranges (two models in one session).
#[test]
fn contributor_model_id_is_the_steps_model() {
    let (_tmp, by) = enriched_by_version();
    for (v, recs) in &by {
        let files = recs[0]["attribution"]["files"].as_array().unwrap();
        let by_file: Vec<(&str, &Value)> = files.iter().map(|f| (f["path"].as_str().unwrap(), &f["conversations"][0]["contributor"])).collect();
        assert_eq!(
            by_file,
            vec![
                ("src/session.js", &serde_json::json!({"type": "ai", "model_id": "anthropic/claude-sonnet-4-20250514"})),
                ("test/session.test.js", &serde_json::json!({"type": "ai", "model_id": "anthropic/claude-opus-4-1-20250805"})),
            ],
            "{v}"
        );
    }
}

/// Issue 39, item 2 ([SPEC-TRACES-OUTCOME]): `signal_source` is the specified `deterministic`;
/// `terminal_state` takes all four of the specified values: `goal_reached` (the comment was
/// answered), `interrupted` (the trace's last tool call has opentraces' `no_result`), `error`
/// (its last tool call failed), and `abandoned` (attach's unit tests: rejected, ignored, or
/// the agent's missing_tool / missing_data / report_incomplete).
#[test]
fn outcome_words_are_the_specs() {
    let (_tmp, by) = enriched_by_version();
    for (v, recs) in &by {
        assert_eq!(recs[0]["outcome"]["signal_source"], "deterministic", "{v}");
        assert_eq!(recs[0]["metadata"]["hindsight"]["filled"].as_array().unwrap().iter().filter(|f| *f == "signal_source").count(), 1, "{v}");
        let states: Vec<(&str, &str)> = recs[1..]
            .iter()
            .map(|r| (r["outcome"]["terminal_state"].as_str().unwrap(), r["metadata"]["hindsight"]["terminal_state_evidence"].as_str().unwrap()))
            .collect();
        assert_eq!(
            states,
            vec![
                ("goal_reached", "add_comment 9004:0: accepted (comment_replied)"),
                ("interrupted", "trace: step 2 ends on tool call b1 with no result"),
                ("error", "trace: step 2 ends on tool call g1 failing: HTTP 502 from api.github.com"),
            ],
            "{v}"
        );
    }
}

/// OpenTelemetry spans and logs read as a trace beside opentraces records
/// (fixtures/traces/otlp/README.md): the agent's model calls are steps with their model and
/// tokens, its tool spans tool calls of the step before with their results and errors, its
/// user-message log a step of the user; an HTTP span is counted, not a step. A span without
/// a trace is quarantined; OpenTelemetry's own example trace and logs (fixtures/real/otlp,
/// one trace id) read as one trace of one span and one log record. Every record is used or
/// quarantined.
#[test]
fn otlp_spans_and_logs_are_read_as_traces() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("otlp");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(fixture("traces/otlp/session.jsonl"), dir.join("session.jsonl")).unwrap();
    let mut real = String::new();
    for f in ["trace.json", "logs.json"] {
        let v: Value = serde_json::from_str(&std::fs::read_to_string(root().join("fixtures/real/otlp").join(f)).unwrap()).unwrap();
        real.push_str(&format!("{v}\n"));
    }
    std::fs::write(dir.join("real.jsonl"), real).unwrap();
    let ds = Study::demo().traces(&dir).convert(tmp.path(), "ds");
    let sql = |q: &str| -> Vec<Value> { serde_json::from_str(&ok(&["report", "--dataset", ds.to_str().unwrap(), "--sql", q, "--format", "json"], tmp.path())).unwrap() };
    let t = sql("SELECT trace_id, session_id, agent_name, agent_model, step_count, tool_call_count, timestamp_start, timestamp_end FROM traces ORDER BY trace_id");
    assert_eq!(t.len(), 2);
    assert_eq!(
        (t[0]["trace_id"].as_str(), t[0]["session_id"].as_str(), t[0]["agent_name"].as_str(), t[0]["agent_model"].as_str()),
        (Some("4bf92f3577b34da6a3ce929d0e0e4736"), Some("conv-77"), Some("fixer"), Some("gpt-4.1-2025-04-14"))
    );
    assert_eq!((t[0]["step_count"].as_i64(), t[0]["tool_call_count"].as_i64()), (Some(3), Some(2)));
    assert_eq!((t[0]["timestamp_start"].as_str(), t[0]["timestamp_end"].as_str()), (Some("2026-01-01T10:00:00Z"), Some("2026-01-01T10:01:00Z")));
    assert_eq!((t[1]["trace_id"].as_str(), t[1]["agent_name"].as_str(), t[1]["step_count"].as_i64()), (Some("5B8EFFF798038103D269B633813FC60C"), Some("my.service"), Some(0)));
    let steps = sql("SELECT step_index, role, model, content, input_tokens, output_tokens FROM trace_steps WHERE trace_id LIKE '4bf9%' ORDER BY step_index");
    let got: Vec<String> = steps.iter().map(|s| format!("{} {} {} {} {}", s["step_index"], s["role"].as_str().unwrap(), s["model"].as_str().unwrap_or("-"), s["input_tokens"], s["content"].as_str().unwrap_or("-"))).collect();
    assert_eq!(got, ["1 user - null Fix the off-by-one in src/parse.rs", "2 agent gpt-4.1-2025-04-14 1200 -", "3 agent gpt-4.1 1500 -"]);
    let calls = sql("SELECT step_index, tool_call_id, tool_name, input, duration_ms, observation, observation_error FROM trace_tool_calls ORDER BY step_index");
    let got: Vec<String> = calls
        .iter()
        .map(|c| format!("{} {} {} {} {} {}", c["step_index"], c["tool_name"].as_str().unwrap(), c["input"].as_str().unwrap(), c["duration_ms"], c["observation"].as_str().unwrap_or("-"), c["observation_error"].as_str().unwrap_or("-")))
        .collect();
    assert_eq!(got, ["2 read_file \"{\\\"path\\\": \\\"src/parse.rs\\\"}\" 250 fn parse() {} -", "3 bash \"{\\\"command\\\": \\\"cargo test\\\"}\" 7000 - exit status 101"]);
    let q = sql("SELECT file, line, reason FROM quarantine WHERE input = 'traces'");
    assert_eq!((q.len(), q[0]["file"].as_str(), q[0]["line"].as_i64()), (1, Some("session.jsonl"), Some(4)));
    assert!(q[0]["reason"].as_str().unwrap().contains("without a `traceId`"));
    let m: Value = serde_json::from_str(&std::fs::read_to_string(ds.join("manifest.json")).unwrap()).unwrap();
    let r = &m["records"]["traces"];
    assert_eq!((r["input"].as_i64(), r["used"].as_i64(), r["quarantined"].as_i64()), (Some(3), Some(2), Some(1)));
}
