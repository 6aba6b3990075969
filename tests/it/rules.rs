//! Every rule against its fixture cases (`fixtures/rules/<type>.json`), and a check that
//! every row of every rule table is exercised by at least one case.

use std::collections::BTreeSet;

use hindsight::evaluate::{rules, Status, Window, COMMON};
use serde_json::Value;

use crate::support::{evaluate_case, fixture};

fn cases(file: &str) -> Vec<Value> {
    let p = fixture(&format!("rules/{file}.json"));
    let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    serde_json::from_str::<Vec<Value>>(&text).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// Run the cases of one file; return the rule ids they cover.
fn check(file: &str) -> BTreeSet<String> {
    let mut covered = BTreeSet::new();
    let mut failures = Vec::new();
    for case in cases(file) {
        let name = case["name"].as_str().unwrap_or("?").to_string();
        let expects = case["expect"].as_array().expect("expect");
        let windows: Vec<Window> = expects.iter().map(|e| e["window"].as_str().unwrap().parse().unwrap()).collect();
        let outcomes = evaluate_case(&case, &windows);
        for (e, o) in expects.iter().zip(&outcomes) {
            let v = &o.verdict;
            let got = (v.status.as_str(), v.strength.as_str(), v.signal);
            let want = (e["status"].as_str().unwrap(), e["strength"].as_str().unwrap(), e["signal"].as_str().unwrap());
            if got != want {
                failures.push(format!("{file}: {name} [{}]: got {got:?}, want {want:?} (rule {}, notes {:?})", o.window, v.rule_id, v.notes));
            }
            if let Some(rule) = e.get("rule").and_then(Value::as_str) {
                if v.rule_id != rule {
                    failures.push(format!("{file}: {name} [{}]: decided by {}, want {rule}", o.window, v.rule_id));
                }
            }
            if let Some(score) = e.get("partial_score").and_then(Value::as_f64) {
                if v.partial_score != Some(score) {
                    failures.push(format!("{file}: {name} [{}]: partial_score {:?}, want {score}", o.window, v.partial_score));
                }
            }
            if let Some(h) = e.get("time_to_outcome_hours").and_then(Value::as_f64) {
                let got = match (o.output.created_at, v.decided_at) {
                    (Some(a), Some(b)) => Some(hindsight::time::hours_between(&a, &b)),
                    _ => None,
                };
                if got != Some(h) {
                    failures.push(format!("{file}: {name} [{}]: time to outcome {got:?}, want {h}", o.window));
                }
            }
            // seed 000 §8: existence alone is never acceptance.
            if v.signal == "target_exists_only" {
                assert_ne!(v.status, Status::Accepted, "{name}: target_exists_only counted as accepted");
            }
            covered.insert(v.rule_id.clone());
        }
    }
    assert!(failures.is_empty(), "{} case(s) differ:\n{}", failures.len(), failures.join("\n"));
    covered
}

fn assert_rows_covered(ty: &str, rows: &[hindsight::evaluate::Row], covered: &BTreeSet<String>) {
    let missing: Vec<String> = rows
        .iter()
        .map(|r| format!("{ty}/{}", r.id))
        .filter(|id| !covered.iter().any(|c| c == id || c.ends_with(&format!(">{id}"))))
        .collect();
    assert!(missing.is_empty(), "rows without a fixture case: {missing:?}");
}

fn rule_file(ty: &str) {
    let covered = check(ty);
    let rule = rules::find(ty).unwrap_or_else(|| panic!("no rule {ty}"));
    assert_rows_covered(ty, rule.rows(), &covered);
}

#[test]
fn create_pull_request() {
    rule_file("create_pull_request");
}

#[test]
fn push_to_pull_request_branch() {
    rule_file("push_to_pull_request_branch");
}

#[test]
fn create_issue() {
    rule_file("create_issue");
}

#[test]
fn add_comment() {
    rule_file("add_comment");
}

#[test]
fn add_labels() {
    rule_file("add_labels");
}

#[test]
fn system_outputs_and_execution_states() {
    let covered = check("system");
    assert_rows_covered("system", rules::system::ROWS, &covered);
}

/// Every common row is exercised by some rule file's cases.
#[test]
fn common_rows_are_covered() {
    let mut covered = BTreeSet::new();
    for f in ["create_pull_request", "push_to_pull_request_branch", "create_issue", "add_comment", "add_labels", "system"] {
        covered.extend(check(f));
    }
    assert_rows_covered("common", COMMON, &covered);
}

/// Every rule file on disk has a rule, and every rule has a file.
#[test]
fn each_rule_has_a_fixture_file() {
    for r in rules::all() {
        assert!(fixture(&format!("rules/{}.json", r.output_type())).is_file(), "no fixtures/rules/{}.json", r.output_type());
    }
}

/// A target that exists but shows no response is never `accepted`, for any type with a
/// rule, in any window.
#[test]
fn existence_alone_is_never_acceptance() {
    for r in rules::all() {
        let ty = r.output_type();
        let item = serde_json::json!({
            "type": ty, "number": 1, "timestamp": "2026-01-01T00:00:00Z",
            "url": if ty == "add_comment" { "https://github.com/acme/repo/issues/1#issuecomment-7" } else { "https://github.com/acme/repo/issues/1" },
            "labelsAdded": [], "metadata": {"commit_sha": "abcdef1234567"}
        });
        let case = serde_json::json!({
            "item": item,
            "responses": {
                "issues/1": {"number": 1, "state": "open", "created_at": "2026-01-01T00:00:00Z", "labels": []},
                "pulls/1": {"number": 1, "state": "open", "created_at": "2026-01-01T00:00:00Z"},
                "issues/comments/7": {"id": 7, "created_at": "2026-01-01T00:00:00Z"},
                "issues/1/comments": [], "issues/1/events": [], "pulls/1/reviews": [], "issues/1/labels": []
            }
        });
        for o in evaluate_case(&case, hindsight::evaluate::window::DEFAULT) {
            assert_ne!(o.verdict.status, Status::Accepted, "{ty} [{}]: accepted on existence alone ({})", o.window, o.verdict.rule_id);
        }
    }
}
