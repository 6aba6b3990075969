//! `hindsight gate`: the evaluation and commit protocol (docs/SPEC.md [SPEC-GATE]), rule by rule, over the
//! fixtures in fixtures/gate/. Each line of results.jsonl carries a `case` field naming what
//! it exercises: a field the input contract does not know, so the gate keeps it and judges
//! the line as usual (which every test here shows, as no line is quarantined).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::support::{demo, fixture, ok, run};

const TERMINAL_STATES: [&str; 7] = ["success", "rejected", "failed", "timeout", "governance_violation", "environment_invalid", "commit_error"];

fn results_file() -> PathBuf {
    fixture("gate/results.jsonl")
}

fn policy_file() -> PathBuf {
    fixture("gate/policy.json")
}

fn gate_text(results: &Path, policy: &Path, format: &str, cwd: &Path) -> String {
    ok(&["gate", "--results", &results.to_string_lossy(), "--policy", &policy.to_string_lossy(), "--format", format, "--quiet"], cwd)
}

fn gate_json(results: &Path, policy: &Path) -> Value {
    let text = gate_text(results, policy, "json", &crate::support::root());
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("gate printed no JSON ({e}):\n{text}"))
}

/// The gate's report with a way to find each fixture case's evaluation.
struct Gated {
    report: Value,
    /// `case` -> 1-based line of the results file.
    lines: BTreeMap<String, u64>,
}

impl Gated {
    fn over(results: &Path, policy: &Path) -> Gated {
        let text = std::fs::read_to_string(results).unwrap();
        let lines = text
            .lines()
            .enumerate()
            .filter_map(|(i, l)| serde_json::from_str::<Value>(l).ok()?.get("case")?.as_str().map(|c| (c.to_string(), i as u64 + 1)))
            .collect();
        Gated { report: gate_json(results, policy), lines }
    }

    fn fixture() -> Gated {
        Gated::over(&results_file(), &policy_file())
    }

    fn case(&self, name: &str) -> &Value {
        let line = self.lines.get(name).unwrap_or_else(|| panic!("no case `{name}` in the fixture"));
        let results = self.report["results"].as_array().expect("results");
        results.iter().find(|r| r["line"] == *line).unwrap_or_else(|| panic!("case `{name}` (line {line}) not evaluated"))
    }

    /// Assert the case's terminal state, the protocol's result fields that follow from it, and
    /// its violation kinds in order.
    fn expect(&self, name: &str, state: &str, kinds: &[&str]) -> &Value {
        let r = self.case(name);
        assert_eq!(r["terminal_state"], state, "{name}: {r:#}");
        let evaluation_result = match state {
            "success" => "success",
            "commit_error" => "failed",
            _ => "rejected",
        };
        assert_eq!(r["evaluation_result"], evaluation_result, "{name}");
        assert_eq!(r["commit_performed"], state == "success", "{name}");
        assert_eq!(violation_kinds(r), kinds, "{name}: {r:#}");
        if state == "success" {
            assert_eq!(r["rejection_reason"], Value::Null, "{name}");
        } else {
            assert!(r["rejection_reason"].as_str().is_some_and(|s| !s.is_empty()), "{name}: a rejection says why");
        }
        r
    }
}

fn violation_kinds(r: &Value) -> Vec<String> {
    r["violations"].as_array().expect("violations").iter().map(|v| v["kind"].as_str().expect("kind").to_string()).collect()
}

fn violation_paths(r: &Value, kind: &str) -> Vec<String> {
    r["violations"].as_array().unwrap().iter().filter(|v| v["kind"] == kind).map(|v| v["path"].as_str().expect("path").to_string()).collect()
}

/// The fixture policy with `change` applied to its JSON, written in `dir`.
fn policy_with(dir: &Path, change: impl FnOnce(&mut Value)) -> PathBuf {
    let mut p: Value = serde_json::from_str(&std::fs::read_to_string(policy_file()).unwrap()).unwrap();
    change(&mut p);
    let path = dir.join("policy.json");
    std::fs::write(&path, serde_json::to_string_pretty(&p).unwrap()).unwrap();
    path
}

#[test]
fn a_result_meeting_every_condition_is_committed() {
    let g = Gated::fixture();
    for name in ["success", "success_docs", "success_offset_timestamp", "commit_type_chore", "duration_at_limit", "spec_changed_allowed"] {
        let r = g.expect(name, "success", &[]);
        assert_eq!(r["violations"], json!([]), "{name}");
    }
    assert_eq!(g.report["quarantined"], json!([]), "the `case` field is kept, not refused");
    assert_eq!(g.report["compliance"]["quarantined"], 0);
}

#[test]
fn exit_code_and_builder_status_must_be_success() {
    let g = Gated::fixture();
    let r = g.expect("exit_code_nonzero", "failed", &["nonzero_exit_code"]);
    assert_eq!(r["violations"][0]["detail"], "1");
    assert_eq!(r["rejection_reason"], "exit code not 0: 1");
    g.expect("builder_failure", "failed", &["builder_failed"]);
    g.expect("builder_timeout", "timeout", &["builder_timeout", "nonzero_exit_code"]);
    let r = g.expect("duration_exceeded", "timeout", &["duration_exceeded"]);
    assert_eq!(r["violations"][0]["detail"], "900.5s, over 600s");
    g.expect("duration_at_limit", "success", &[]);
}

#[test]
fn changed_files_must_lie_within_the_task_scope() {
    let g = Gated::fixture();
    let r = g.expect("file_outside_scope", "rejected", &["file_outside_scope", "file_outside_scope"]);
    assert_eq!(violation_paths(r, "file_outside_scope"), ["Cargo.toml", "tests/unit/deep.rs"], "`tests/*.rs` does not reach into sub-directories");
    assert_eq!(r["rejection_reason"], "file outside the task's allowed files: Cargo.toml");
    let r = g.expect("file_path_invalid", "rejected", &["file_path_invalid"]);
    assert_eq!(violation_paths(r, "file_path_invalid"), ["src/../Cargo.toml"]);
    assert_eq!(r["violations"][0]["detail"], "a `..` segment");
}

#[test]
fn each_protected_file_must_remain_unchanged() {
    let g = Gated::fixture();
    // In changed_files: a breach even where the task's scope (docs/*.md) allows the path.
    for (name, file) in [
        ("governance_md_changed", "docs/governance.md"),
        ("environment_json_changed", "agents/state/environment.json"),
        ("spec_changed_not_allowed", "docs/protocol-spec.md"),
        ("extra_protected_changed", "schemas/result.json"),
    ] {
        let r = g.case(name);
        assert_eq!(r["terminal_state"], "governance_violation", "{name}");
        assert_eq!(violation_paths(r, "protected_file_changed"), [file], "{name}");
        assert_eq!(r["rejection_reason"], format!("protected file changed: {file} (in changed_files)"), "{name}");
    }
    g.expect("governance_md_changed", "governance_violation", &["protected_file_changed"]);
    g.expect("spec_changed_not_allowed", "governance_violation", &["protected_file_changed"]);
    g.expect("environment_json_changed", "governance_violation", &["protected_file_changed", "file_outside_scope"]);
    // `./docs/governance.md` names the governance file: not merely an odd path.
    let r = g.expect("governance_md_changed_dot_path", "governance_violation", &["protected_file_changed", "file_path_invalid"]);
    assert_eq!(violation_paths(r, "protected_file_changed"), ["./docs/governance.md"]);
    // Not listed as changed, but hashing otherwise than the policy expects.
    for (name, file) in [
        ("protected_sha_mismatch", "docs/governance.md"),
        ("environment_json_sha_mismatch", "agents/state/environment.json"),
        ("spec_sha_mismatch", "docs/protocol-spec.md"),
    ] {
        let r = g.expect(name, "governance_violation", &["protected_file_changed"]);
        assert_eq!(violation_paths(r, "protected_file_changed"), [file], "{name}");
        assert!(r["violations"][0]["detail"].as_str().unwrap().starts_with("sha256 "), "{name}: {r:#}");
    }
    // No observed hashes while the policy expects some: integrity is not proven.
    let r = g.expect("protected_sha_unrecorded", "rejected", &["protected_file_unverified"; 3]);
    assert_eq!(violation_paths(r, "protected_file_unverified"), ["agents/state/environment.json", "docs/governance.md", "docs/protocol-spec.md"]);
}

#[test]
fn the_protocols_files_are_protected_without_any_policy_entry() {
    let tmp = tempfile::tempdir().unwrap();
    let policy = policy_with(tmp.path(), |p| {
        let o = p.as_object_mut().unwrap();
        o.remove("protected_files");
        o.remove("protected_file_sha256");
    });
    let g = Gated::over(&results_file(), &policy);
    g.expect("governance_md_changed", "governance_violation", &["protected_file_changed"]);
    g.expect("environment_json_changed", "governance_violation", &["protected_file_changed", "file_outside_scope"]);
    g.expect("spec_changed_not_allowed", "governance_violation", &["protected_file_changed"]);
    g.expect("spec_changed_allowed", "success", &[]);
    // With no expected hashes, only changed_files can show a change, and the added pattern is gone.
    g.expect("protected_sha_mismatch", "success", &[]);
    g.expect("protected_sha_unrecorded", "success", &[]);
    g.expect("extra_protected_changed", "rejected", &["file_outside_scope"]);
}

#[test]
fn spec_changes_pass_only_for_a_task_that_allows_them() {
    let g = Gated::fixture();
    // Changed, and hashing otherwise than the policy's sha256: both fine for update-spec.
    g.expect("spec_changed_allowed", "success", &[]);
    g.expect("spec_changed_not_allowed", "governance_violation", &["protected_file_changed"]);
    g.expect("spec_sha_mismatch", "governance_violation", &["protected_file_changed"]);
    // The allowance lifts the spec pattern only.
    let r = g.expect("spec_task_changes_governance", "governance_violation", &["protected_file_changed"]);
    assert_eq!(violation_paths(r, "protected_file_changed"), ["docs/governance.md"]);
}

#[test]
fn environment_drift_is_rejected() {
    let g = Gated::fixture();
    let r = g.expect("environment_invalid", "environment_invalid", &["environment_invalid"]);
    assert_eq!(r["rejection_reason"], "environment invalid");
    let r = g.expect("governance_hash_changed", "governance_violation", &["governance_hash_changed"]);
    assert!(r["violations"][0]["detail"].as_str().unwrap().contains(" -> "));
    // Not recorded: drift cannot be ruled out, so no commit (a plain rejection).
    g.expect("environment_unrecorded", "rejected", &["environment_unverified"]);
    let r = g.expect("governance_hash_unrecorded", "rejected", &["governance_hash_unverified"]);
    assert_eq!(r["violations"][0]["detail"], "governance_hash_after");
}

#[test]
fn commit_messages_must_be_exactly_type_scope_summary() {
    let g = Gated::fixture();
    for (name, reason) in [
        ("commit_missing_scope", "no `(scope)` after the type"),
        ("commit_space_before_scope", "white space between the type and `(`"),
        ("commit_no_space_after_colon", "no space after `:`"),
        ("commit_uppercase_type", "the type is not lowercase letters"),
        ("commit_empty_scope", "an empty scope"),
        ("commit_empty_summary", "an empty summary"),
        ("commit_with_body", "more than one line (a line break; no body is allowed)"),
    ] {
        let r = g.expect(name, "rejected", &["commit_message_invalid"]);
        let detail = r["violations"][0]["detail"].as_str().unwrap();
        assert!(detail.ends_with(reason), "{name}: {detail}");
    }
    let r = g.expect("commit_type_not_allowed", "rejected", &["commit_type_not_allowed"]);
    assert_eq!(r["violations"][0]["detail"], "`feature` (allowed: feat, fix, docs, chore)");
    g.expect("commit_message_missing", "rejected", &["commit_message_missing"]);
    // Each of the protocol's four types passes.
    for name in ["success", "success_offset_timestamp", "success_docs", "commit_type_chore"] {
        g.expect(name, "success", &[]);
    }
}

#[test]
fn allowed_commit_types_come_from_the_policy() {
    let tmp = tempfile::tempdir().unwrap();
    let policy = policy_with(tmp.path(), |p| p["allowed_commit_types"] = json!(["fix"]));
    let g = Gated::over(&results_file(), &policy);
    let r = g.expect("success", "rejected", &["commit_type_not_allowed"]);
    assert_eq!(r["violations"][0]["detail"], "`feat` (allowed: fix)");
    g.expect("success_offset_timestamp", "success", &[]);
}

#[test]
fn the_expected_outcome_must_be_proven() {
    let g = Gated::fixture();
    let r = g.expect("expected_file_not_created", "rejected", &["expected_file_not_created"]);
    assert_eq!(violation_paths(r, "expected_file_not_created"), ["src/parser.rs"]);
    let r = g.expect("expected_log_missing", "rejected", &["expected_log_missing"]);
    assert_eq!(r["violations"][0]["detail"], "test result: ok");
    g.expect("tests_failed", "rejected", &["tests_failed"]);
    g.expect("tests_unrecorded", "rejected", &["tests_unverified"]);
    // No success condition defined: it cannot be proven, so it is not reached.
    let r = g.expect("no_expected_outcome", "rejected", &["expected_outcome_undefined"]);
    assert_eq!(r["rejection_reason"], "no expected outcome defined, so success cannot be proven: no-outcome");
    // A task the policy does not know: no scope, no outcome.
    let r = g.expect("task_not_in_policy", "rejected", &["task_not_in_policy", "file_outside_scope", "file_outside_scope", "file_outside_scope"]);
    assert_eq!(r["rejection_reason"], "task not in the policy: mystery-task");
}

#[test]
fn a_result_without_a_timestamp_is_rejected_and_the_clock_is_never_read() {
    let g = Gated::fixture();
    let r = g.expect("timestamp_missing", "rejected", &["timestamp_missing"]);
    assert_eq!(r["rejection_reason"], "timestamp missing");
    assert_eq!(r["timestamp"], Value::Null);
    let r = g.expect("timestamp_invalid", "rejected", &["timestamp_invalid"]);
    assert_eq!(r["timestamp"], Value::Null);
    // Every other result is dated by its own timestamp, in UTC.
    assert_eq!(g.case("success")["timestamp"], "2026-03-01T10:00:00Z");
    assert_eq!(g.case("success_offset_timestamp")["timestamp"], "2026-03-01T10:00:00.250Z");
    for r in g.report["results"].as_array().unwrap() {
        assert!(r["timestamp"].is_null() || r["timestamp"].as_str().unwrap().starts_with("2026-03-01T10:00:00"), "{r:#}");
    }
}

#[test]
fn a_failed_commit_is_a_commit_error_and_never_performed() {
    let g = Gated::fixture();
    let r = g.expect("commit_error", "commit_error", &["commit_failed"]);
    assert_eq!(r["evaluation_result"], "failed");
    assert_eq!(r["rejection_reason"], "commit failed and was rolled back: push rejected: non-fast-forward");
    // A commit error beside a failed condition: the condition decides the state.
    g.expect("commit_error_after_failure", "failed", &["nonzero_exit_code", "commit_failed"]);
}

#[test]
fn the_most_severe_state_wins_and_violations_are_in_a_fixed_order() {
    let g = Gated::fixture();
    let r = g.expect(
        "breach_and_failure",
        "governance_violation",
        &["protected_file_changed", "governance_hash_changed", "nonzero_exit_code", "builder_failed", "file_outside_scope", "file_outside_scope"],
    );
    assert_eq!(violation_paths(r, "file_outside_scope"), ["Cargo.toml", "docs/governance.md"]);
    assert_eq!(r["rejection_reason"], "protected file changed: docs/governance.md (in changed_files)");
}

#[test]
fn every_terminal_state_is_reached_and_the_compliance_report_adds_up() {
    let g = Gated::fixture();
    let results = g.report["results"].as_array().unwrap();
    let c = &g.report["compliance"];
    let lines_in_file = std::fs::read_to_string(results_file()).unwrap().lines().count();
    assert_eq!(results.len(), lines_in_file);
    assert_eq!(c["records_read"], lines_in_file);
    assert_eq!(c["evaluated"], lines_in_file);
    let states: Vec<&str> = c["by_terminal_state"].as_object().unwrap().keys().map(String::as_str).collect();
    let mut specified: Vec<&str> = TERMINAL_STATES.to_vec();
    specified.sort();
    assert_eq!(states, specified, "exactly the protocol's seven terminal states ([SPEC-GATE-RESULT])");
    for s in TERMINAL_STATES {
        let n = results.iter().filter(|r| r["terminal_state"] == s).count();
        assert!(n > 0, "no fixture case ends in `{s}`");
        assert_eq!(c["by_terminal_state"][s], n, "{s}");
    }
    for s in ["success", "rejected", "failed"] {
        assert_eq!(c["by_evaluation_result"][s], results.iter().filter(|r| r["evaluation_result"] == s).count(), "{s}");
    }
    assert_eq!(c["commits_performed"], results.iter().filter(|r| r["commit_performed"] == true).count());
    // The protocol's three fields per result ([SPEC-GATE-RESULT]).
    let per = c["per_result"].as_array().unwrap();
    assert_eq!(per.len(), results.len());
    for (p, r) in per.iter().zip(results) {
        assert_eq!(p["line"], r["line"]);
        assert_eq!(p["task_id"], r["task_id"]);
        assert_eq!(p["evaluation_result"], r["evaluation_result"]);
        assert_eq!(p["commit_performed"], r["commit_performed"]);
        assert_eq!(p["violation_count"], r["violations"].as_array().unwrap().len());
    }
    // Totals by kind; the fixture reaches every kind.
    for (kind, n) in c["by_violation_kind"].as_object().unwrap() {
        let counted: usize = results.iter().map(|r| violation_kinds(r).iter().filter(|k| *k == kind).count()).sum();
        assert_eq!(n, counted, "{kind}");
        assert!(counted > 0, "no fixture case shows `{kind}`");
    }
    // The protocol's structured result fields, in every result.
    for r in results {
        for f in ["task_id", "evaluation_result", "commit_performed", "rejection_reason", "violations", "timestamp", "terminal_state"] {
            assert!(r.get(f).is_some(), "{f} missing: {r:#}");
        }
    }
}

#[test]
fn the_output_is_the_same_bytes_every_time_and_anywhere() {
    let root = crate::support::root();
    let first = gate_text(&results_file(), &policy_file(), "json", &root);
    assert_eq!(first, gate_text(&results_file(), &policy_file(), "json", &root));
    assert_eq!(gate_text(&results_file(), &policy_file(), "table", &root), gate_text(&results_file(), &policy_file(), "table", &root));
    // Copies elsewhere, named relative to another directory, under another time zone.
    let tmp = tempfile::tempdir().unwrap();
    std::fs::copy(results_file(), tmp.path().join("r.jsonl")).unwrap();
    std::fs::copy(policy_file(), tmp.path().join("p.json")).unwrap();
    let out = std::process::Command::new(crate::support::bin())
        .args(["gate", "--results", "r.jsonl", "--policy", "p.json", "--quiet"])
        .current_dir(tmp.path())
        .env("TZ", "Pacific/Kiritimati")
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(String::from_utf8(out.stdout).unwrap(), first, "json is the default format, and nothing depends on where or when");
}

#[test]
fn the_input_file_is_never_modified() {
    let tmp = tempfile::tempdir().unwrap();
    for name in ["results.jsonl", "mixed.jsonl", "policy.json"] {
        std::fs::copy(fixture(&format!("gate/{name}")), tmp.path().join(name)).unwrap();
    }
    let before: Vec<Vec<u8>> = ["results.jsonl", "mixed.jsonl", "policy.json"].iter().map(|n| std::fs::read(tmp.path().join(n)).unwrap()).collect();
    for results in ["results.jsonl", "mixed.jsonl"] {
        for format in ["json", "table"] {
            gate_text(&tmp.path().join(results), &tmp.path().join("policy.json"), format, tmp.path());
        }
    }
    let after: Vec<Vec<u8>> = ["results.jsonl", "mixed.jsonl", "policy.json"].iter().map(|n| std::fs::read(tmp.path().join(n)).unwrap()).collect();
    assert_eq!(before, after);
    let mut names: Vec<String> = std::fs::read_dir(tmp.path()).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    assert_eq!(names, ["mixed.jsonl", "policy.json", "results.jsonl"], "nothing written beside the inputs");
    // Each result names the exact line it judged.
    let report = gate_json(&tmp.path().join("results.jsonl"), &tmp.path().join("policy.json"));
    let text = String::from_utf8(before[0].clone()).unwrap();
    for (r, line) in report["results"].as_array().unwrap().iter().zip(text.lines()) {
        assert_eq!(r["input_sha256"], hindsight::json::sha256_hex(line.as_bytes()));
    }
}

#[test]
fn malformed_lines_are_quarantined_and_the_rest_evaluated() {
    let mixed = fixture("gate/mixed.jsonl");
    let report = gate_json(&mixed, &policy_file());
    let c = &report["compliance"];
    let bytes = std::fs::read(&mixed).unwrap();
    let non_blank = bytes.split(|&b| b == b'\n').filter(|l| !l.iter().all(u8::is_ascii_whitespace)).count();
    assert_eq!(c["records_read"], non_blank, "blank lines are not records");
    assert_eq!(c["records_read"].as_u64().unwrap(), c["evaluated"].as_u64().unwrap() + c["quarantined"].as_u64().unwrap(), "read = evaluated + quarantined");
    let results = report["results"].as_array().unwrap();
    let q = report["quarantined"].as_array().unwrap();
    assert_eq!(results.len() as u64, c["evaluated"].as_u64().unwrap());
    assert_eq!(q.len() as u64, c["quarantined"].as_u64().unwrap());
    assert_eq!(results.iter().map(|r| r["line"].as_u64().unwrap()).collect::<Vec<_>>(), [1, 11]);
    let expected = [
        (2, Value::Null, "not JSON"),
        (3, Value::Null, "not a JSON object"),
        (4, json!("task_id"), "missing"),
        (5, json!("exit_code"), "expected an integer, found \"0\""),
        (6, json!("builder_status"), "`passed`: expected success, failure or timeout"),
        (7, json!("exit_code"), "repeated key"),
        (10, json!("changed_files"), "expected an array of paths"),
        (12, Value::Null, "not UTF-8"),
    ];
    assert_eq!(q.len(), expected.len(), "{q:#?}");
    for (entry, (line, field, reason)) in q.iter().zip(expected) {
        assert_eq!(entry["file"], mixed.to_string_lossy().as_ref());
        assert_eq!(entry["line"], line);
        assert_eq!(entry["field"], field, "line {line}");
        assert!(entry["reason"].as_str().unwrap().starts_with(reason), "line {line}: {entry:#}");
    }
    assert_eq!(q[0]["raw"], "this is not json", "the raw text is kept");
    let text = String::from_utf8_lossy(&bytes);
    for entry in q {
        let n = entry["line"].as_u64().unwrap() as usize;
        assert_eq!(entry["raw"], text.split('\n').nth(n - 1).unwrap().trim_end_matches('\r'), "line {n}");
    }
    // A CRLF line is read without its carriage return.
    assert_eq!(results[1]["terminal_state"], "success");
}

#[test]
fn the_table_format_summarizes() {
    let table = gate_text(&fixture("gate/mixed.jsonl"), &policy_file(), "table", &crate::support::root());
    assert!(table.starts_with("gate: 10 records read = 2 evaluated + 8 quarantined; 2 commit(s) performed\n"), "{table}");
    assert!(table.contains("line  task_id     terminal_state  result   commit  violations  reason\n"), "{table}");
    assert!(table.contains("terminal states: success 2, rejected 0, failed 0, timeout 0, governance_violation 0, environment_invalid 0, commit_error 0\n"));
    assert!(table.contains("violations: none\n"));
    assert!(table.contains("mixed.jsonl:4: field `task_id`: missing\n"), "{table}");
    let full = gate_text(&results_file(), &policy_file(), "table", &crate::support::root());
    assert!(full.contains("commit failed and was rolled back: push rejected: non-fast-forward"));
    assert!(full.contains(r#""feat(parser): add the parser\n\nWith a body.""#), "line breaks stay on one visible line");
}

#[test]
fn bad_policies_and_options_exit_2_naming_the_file_and_key() {
    let tmp = tempfile::tempdir().unwrap();
    let results = results_file();
    let results = results.to_string_lossy();
    let refused = |args: &[&str], fragments: &[&str]| {
        let out = run(args, tmp.path());
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?}: nothing printed on a refusal");
        for f in fragments {
            assert!(err.contains(f), "{args:?}: `{err}` lacks `{f}`");
        }
    };
    let policy = policy_with(tmp.path(), |p| p["tasks"]["add-parser"]["timeout"] = json!(60));
    refused(&["gate", "--results", &results, "--policy", &policy.to_string_lossy()], &["policy.json", "`tasks.add-parser.timeout`: unknown key"]);
    let policy = policy_with(tmp.path(), |p| p["tasks"]["add-parser"]["allowed_files"][1] = json!(7));
    refused(
        &["gate", "--results", &results, "--policy", &policy.to_string_lossy()],
        &["policy.json", "`tasks.add-parser.allowed_files[1]`: expected a string"],
    );
    std::fs::write(tmp.path().join("list.json"), "[]").unwrap();
    refused(&["gate", "--results", &results, "--policy", "list.json"], &["list.json", "expected a JSON object"]);
    refused(&["gate", "--results", &results, "--policy", "absent.json"], &["absent.json"]);
    let policy = policy_file();
    refused(&["gate", "--results", "absent.jsonl", "--policy", &policy.to_string_lossy()], &["absent.jsonl"]);
    refused(&["gate", "--results", &results, "--policy", &policy.to_string_lossy(), "--format", "yaml"], &["--format `yaml`", "json or table"]);
}

/// `gate --dataset` writes the results into a dataset; its dashboard then has the
/// commit-protocol sections (JSON included), counted from the same results; a dataset
/// without them has no such sections.
#[test]
fn results_written_into_a_dataset_appear_in_its_dashboard() {
    let tmp = tempfile::tempdir().unwrap();
    demo(tmp.path());
    let before: serde_json::Value = serde_json::from_str(&super::support::ok(&["report", "--dataset", "ds", "--format", "json"], tmp.path())).unwrap();
    assert!(before.get("commit_protocol").is_none());
    let (results, policy) = (super::support::fixture("gate/results.jsonl"), super::support::fixture("gate/policy.json"));
    let printed: serde_json::Value = serde_json::from_str(&super::support::ok(
        &["gate", "--results", results.to_str().unwrap(), "--policy", policy.to_str().unwrap(), "--dataset", "ds", "--quiet"],
        tmp.path(),
    ))
    .unwrap();
    let dash: serde_json::Value = serde_json::from_str(&super::support::ok(&["report", "--dataset", "ds", "--format", "json"], tmp.path())).unwrap();
    let by_state = dash["commit_protocol"].as_array().unwrap();
    let results_in = printed["results"].as_array().unwrap();
    for row in by_state {
        let state = row["terminal_state"].as_str().unwrap();
        let n = results_in.iter().filter(|r| r["terminal_state"] == state).count() as i64;
        assert_eq!(row["results"].as_i64(), Some(n), "{state}");
    }
    let total: i64 = by_state.iter().map(|r| r["results"].as_i64().unwrap()).sum();
    assert_eq!(total as usize, results_in.len());
    let violations: usize = results_in.iter().map(|r| r["violations"].as_array().unwrap().len()).sum();
    let by_kind: i64 = dash["commit_protocol_violations"].as_array().unwrap().iter().map(|r| r["violations"].as_i64().unwrap()).sum();
    assert_eq!(by_kind as usize, violations);
    super::support::ok(&["verify", "--dataset", "ds"], tmp.path());
}
