//! The promises every rule keeps (docs/EVIDENCE.md, "Promises every rule keeps"), one test
//! per class of broken promise, each on one-output studies of the rules that broke it. The
//! property test in `evaluate::promises` covers every row of every rule; these show the
//! rules' own reading of real-shaped captures reaching the judge.

use hindsight::evaluate::Window;
use serde_json::{json, Value};

use crate::support::evaluate_case;

/// The identity the workflow wrote as, and acted as.
const WORKFLOW: &str = "agent-app[bot]";

fn workflow() -> Value {
    json!({"login": WORKFLOW, "type": "Bot"})
}

/// (status, strength, rule) of `case` in `window`.
fn judged(case: &Value, window: Window) -> (String, String, String) {
    let o = evaluate_case(case, &[window]).remove(0);
    (o.verdict.status.as_str().to_string(), o.verdict.strength.as_str().to_string(), o.verdict.rule_id.to_string())
}

fn expect(cases: &[(&str, Value, Window, (&str, &str))]) {
    let mut wrong = Vec::new();
    for (name, case, w, (status, strength)) in cases {
        let (s, st, rule) = judged(case, *w);
        if (s.as_str(), st.as_str()) != (*status, *strength) {
            wrong.push(format!("{name} [{w}]: {s}/{st} ({rule}), want {status}/{strength}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The workflow's own merge or close is no response from the repository, in every rule
/// (before: accepted/strong or rejected/strong in all but `create_pull_request`).
#[test]
fn own_acts_never_decide() {
    let merged_by_workflow = json!({"state": "closed", "merged": true, "merged_at": "2026-01-02T00:00:00Z", "merged_by": workflow()});
    let closed_by_workflow = json!([{"event": "closed", "actor": workflow(), "created_at": "2026-01-02T00:00:00Z"}]);
    let t = "2026-01-01T00:00:00Z";
    expect(&[
        (
            "push_to_pull_request_branch, merged by the workflow",
            json!({"item": {"type": "push_to_pull_request_branch", "number": 1, "actor": WORKFLOW, "timestamp": t, "metadata": {"commit_sha": "abcdef123"}},
                   "responses": {"pulls/1": merged_by_workflow, "pulls/1/commits": [{"sha": "abcdef123"}]}}),
            Window::Snapshot,
            ("ignored", "weak"),
        ),
        (
            "mark_pull_request_as_ready_for_review, merged by the workflow",
            json!({"item": {"type": "mark_pull_request_as_ready_for_review", "number": 1, "actor": WORKFLOW, "timestamp": t},
                   "responses": {"pulls/1": merged_by_workflow, "pulls/1/reviews": []}}),
            Window::Snapshot,
            ("ignored", "weak"),
        ),
        (
            "update_pull_request, merged by the workflow",
            json!({"item": {"type": "update_pull_request", "number": 1, "actor": WORKFLOW, "timestamp": t, "before_state": {"title": "old"}, "after_state": {"title": "new"}},
                   "responses": {"pulls/1": {"title": "new", "state": "closed", "merged": true, "merged_by": workflow()}}}),
            Window::Snapshot,
            ("ignored", "weak"),
        ),
        (
            "submit_pull_request_review, approved and merged by the workflow",
            json!({"item": {"type": "submit_pull_request_review", "number": 1, "actor": WORKFLOW, "timestamp": t, "metadata": {"review_id": 4}},
                   "responses": {"pulls/1": merged_by_workflow, "pulls/1/reviews": [{"id": 4, "state": "APPROVED", "user": workflow(), "submitted_at": t}]}}),
            Window::Snapshot,
            ("ignored", "weak"),
        ),
        (
            "assign_to_agent, the agent's PR merged by the agent",
            json!({"item": {"type": "assign_to_agent", "number": 1, "timestamp": t},
                   "responses": {"issues/1": {"state": "open"},
                                 "issues/1/timeline": [{"event": "cross-referenced", "created_at": "2026-01-01T01:00:00Z", "source": {"issue": {"number": 2, "pull_request": {}, "user": {"login": "copilot-swe-agent[bot]"}}}}],
                                 "pulls/2": {"state": "closed", "merged": true, "merged_at": "2026-01-02T00:00:00Z", "user": {"login": "copilot-swe-agent[bot]", "type": "Bot"}, "merged_by": {"login": "copilot-swe-agent[bot]", "type": "Bot"}}}}),
            Window::Snapshot,
            ("ignored", "weak"),
        ),
        (
            "resolve_pull_request_review_thread, PR merged by the workflow",
            json!({"item": {"type": "resolve_pull_request_review_thread", "thread_id": "T1", "actor": WORKFLOW, "timestamp": t},
                   "responses": {"pulls/1": merged_by_workflow},
                   "responses_graphql": {"pulls/1/review_threads": {"nodes": [{"id": "T1", "isResolved": true}]}}}),
            Window::Snapshot,
            ("ignored", "weak"),
        ),
        (
            "autofix_code_scanning_alert, its PR merged by the workflow",
            json!({"item": {"type": "autofix_code_scanning_alert", "alert_number": 42, "actor": WORKFLOW, "timestamp": t, "metadata": {"pull_request_number": 3}},
                   "responses": {"code-scanning/alerts/42": {"state": "fixed"}, "pulls/3": merged_by_workflow}}),
            Window::Snapshot,
            ("ignored", "weak"),
        ),
        (
            "assign_milestone, completed: closed by the workflow",
            json!({"item": {"type": "assign_milestone", "number": 1, "milestone_number": 2, "actor": WORKFLOW, "timestamp": t},
                   "responses": {"issues/1": {"state": "closed", "state_reason": "completed", "milestone": {"number": 2}}, "issues/1/events": closed_by_workflow}}),
            Window::Snapshot,
            ("ignored", "weak"),
        ),
        (
            "assign_to_user, completed: closed by the workflow",
            json!({"item": {"type": "assign_to_user", "number": 1, "assignee": "alice", "actor": WORKFLOW, "timestamp": t},
                   "responses": {"issues/1": {"state": "closed", "state_reason": "completed", "assignees": [{"login": "alice"}]}, "issues/1/events": closed_by_workflow}}),
            Window::Snapshot,
            ("ignored", "weak"),
        ),
        // The same act by a person still decides.
        (
            "push_to_pull_request_branch, merged by a maintainer",
            json!({"item": {"type": "push_to_pull_request_branch", "number": 1, "actor": WORKFLOW, "timestamp": t, "metadata": {"commit_sha": "abcdef123"}},
                   "responses": {"pulls/1": {"state": "closed", "merged": true, "merged_at": "2026-01-02T00:00:00Z", "merged_by": {"login": "maintainer", "type": "User"}}, "pulls/1/commits": [{"sha": "abcdef123"}]}}),
            Window::Snapshot,
            ("accepted", "strong"),
        ),
    ]);
}

/// A 404 carries no time: it settles the snapshot window only (before: accepted/medium,
/// rejected/strong or rejected/medium at 1h).
#[test]
fn undated_404s_settle_the_snapshot_only() {
    let t = "2026-01-01T00:00:00Z";
    let cases = |w| {
        vec![
            ("hide_comment, the hidden comment gone", json!({"item": {"type": "hide_comment", "comment_id": 7, "timestamp": t}, "errors": {"issues/comments/7": 404}}), w),
            (
                "create_pull_request_review_comment, gone",
                json!({"item": {"type": "create_pull_request_review_comment", "url": "https://github.com/acme/repo/pull/1#discussion_r55", "timestamp": t}, "errors": {"pulls/comments/55": 404}}),
                w,
            ),
            (
                "create_code_scanning_alert, gone",
                json!({"item": {"type": "create_code_scanning_alert", "timestamp": t, "metadata": {"alert_number": 7}}, "errors": {"code-scanning/alerts/7": 404}}),
                w,
            ),
            ("dispatch_workflow, the run gone", json!({"item": {"type": "dispatch_workflow", "timestamp": t, "metadata": {"run_id": 9}}, "errors": {"actions/runs/9": 404}}), w),
        ]
    };
    for (name, case, w) in cases(Window::Hours(1)) {
        let (s, st, rule) = judged(&case, w);
        assert_eq!((s.as_str(), st.as_str(), rule.as_str()), ("unknown", "none", "common/history_missing"), "{name} [{w}]");
    }
    // At capture the 404 decides, and names nobody: at most medium.
    for (name, case, w) in cases(Window::Snapshot) {
        let (s, st, rule) = judged(&case, w);
        assert!(s != "unknown" && st == "medium", "{name} [{w}]: {s}/{st} ({rule})");
    }
}

/// Rows that say "changed or removed by a person" need a person (before: a bot's change was
/// a rejection).
#[test]
fn person_rows_need_a_person() {
    let t = "2026-01-01T00:00:00Z";
    let bot = json!({"login": "stale[bot]", "type": "Bot"});
    let person = json!({"login": "maintainer", "type": "User"});
    let milestone = |who: &Value| {
        json!({"item": {"type": "assign_milestone", "number": 1, "milestone_number": 2, "timestamp": t},
               "responses": {"issues/1": {"state": "open", "milestone": {"number": 3}}, "issues/1/events": [{"event": "milestoned", "actor": who, "created_at": "2026-01-01T02:00:00Z"}]}})
    };
    let unassigned = |who: &Value| {
        json!({"item": {"type": "assign_to_user", "number": 1, "assignees": ["alice"], "timestamp": t},
               "responses": {"issues/1": {"state": "open", "assignees": []}, "issues/1/events": [{"event": "unassigned", "actor": who, "assignee": {"login": "alice"}, "created_at": "2026-01-01T02:00:00Z"}]}})
    };
    let retyped = |who: &Value| {
        json!({"item": {"type": "set_issue_type", "number": 1, "issue_type": "Bug", "timestamp": t},
               "responses": {"issues/1": {"state": "open", "type": {"name": "Task"}, "updated_at": "2026-01-01T02:00:00Z"}, "issues/1/events": [{"event": "issue_type_changed", "actor": who, "created_at": "2026-01-01T02:00:00Z"}]}})
    };
    expect(&[
        ("assign_milestone, a bot set another milestone", milestone(&bot), Window::Snapshot, ("ignored", "weak")),
        ("assign_milestone, a person set another milestone", milestone(&person), Window::Snapshot, ("rejected", "medium")),
        ("assign_to_user, a bot unassigned", unassigned(&bot), Window::Snapshot, ("ignored", "weak")),
        ("assign_to_user, a person unassigned", unassigned(&person), Window::Snapshot, ("rejected", "medium")),
        ("set_issue_type, a bot changed the type", retyped(&bot), Window::Snapshot, ("ignored", "weak")),
        ("set_issue_type, a person changed the type", retyped(&person), Window::Snapshot, ("rejected", "medium")),
    ]);
}

/// A review comment or reply removed with nobody named is at most medium, as every other
/// unattributed act (before: rejected/strong for any removal).
#[test]
fn removals_without_an_actor_are_medium() {
    expect(&[
        (
            "create_pull_request_review_comment, deleted",
            json!({"item": {"type": "create_pull_request_review_comment", "url": "https://github.com/acme/repo/pull/1#discussion_r55"}, "errors": {"pulls/comments/55": 404}}),
            Window::Snapshot,
            ("rejected", "medium"),
        ),
        (
            "reply_to_pull_request_review_comment, minimized",
            json!({"item": {"type": "reply_to_pull_request_review_comment", "number": 1, "comment_id": 56},
                   "responses": {"pulls/comments/56": {"id": 56, "pull_request_url": "https://api.github.com/repos/acme/repo/pulls/1", "user": {"login": "github-actions[bot]"}, "isMinimized": true}}}),
            Window::Snapshot,
            ("rejected", "medium"),
        ),
    ]);
}

/// Rows that rely on what GitHub's API does not give (`reopenedBy`, `unresolvedBy`,
/// `unminimizedBy`, a discussion's conversions and links, who edited a discussion) are
/// marked not observable in the catalogue, with the reason, rather than listed as if they
/// worked.
#[test]
fn rows_that_cannot_fire_are_marked_not_observable() {
    let rows: Vec<Value> = serde_json::from_str(&hindsight::evaluate::catalogue::render(true)).unwrap();
    let mut marked: Vec<&str> = rows.iter().filter(|r| r["not_observable"].is_string()).map(|r| r["rule_id"].as_str().unwrap()).collect();
    marked.sort();
    assert_eq!(
        marked,
        [
            "close_discussion/reopened_by_person",
            "create_discussion/converted_or_linked",
            "hide_comment/unhidden_by_person",
            "resolve_pull_request_review_thread/unresolved_by_person",
            "update_discussion/replaced",
            "update_discussion/reverted",
        ]
    );
    for r in rows.iter().filter(|r| r["not_observable"].is_string()) {
        assert!(r["not_observable"].as_str().unwrap().contains("GitHub"), "{r}: the reason names what GitHub lacks");
    }
}
