//! Dashboard SQL on a dataset small enough to count by eye, compared as pretty-printed
//! tables.

use crate::support::outcomes_batch;
use hindsight::evaluate::Window;
use hindsight::report::{query_text, Session};
use serde_json::json;

use crate::support::{evaluate_case, rate_fields};
use hindsight::report::format::json_rows;

/// Six outputs, snapshot window: merged PR (accepted/strong), labels retained
/// (accepted/medium), PR open a day with no activity (pending/weak/target_exists_only),
/// noop (skipped), PR not captured (unknown), PR closed unmerged (rejected/strong).
/// Evaluable = 6 - skipped - unknown = 4: strict = 1/4, human-check = 2/4, sticky = 1/4.
fn tiny_dataset(dir: &std::path::Path) {
    let t = "2026-01-01T00:00:00Z";
    let cases = [
        json!({"item": {"type": "create_pull_request", "number": 1, "timestamp": t}, "responses": {"pulls/1": {"state": "closed", "merged": true, "merged_by": {"login": "alice", "type": "User"}}}}),
        json!({"item": {"type": "add_labels", "number": 1, "labelsAdded": ["bug"]}, "responses": {"issues/1/labels": [{"name": "bug"}]}}),
        json!({"captured_at": "2026-01-02T00:00:00Z", "item": {"type": "create_pull_request", "number": 1, "timestamp": t}, "responses": {"pulls/1": {"state": "open"}, "pulls/1/reviews": []}}),
        json!({"item": {"type": "noop"}}),
        json!({"item": {"type": "create_pull_request", "number": 1, "timestamp": t}}),
        json!({"item": {"type": "create_pull_request", "number": 1, "timestamp": t}, "responses": {"pulls/1": {"state": "closed", "merged": false}, "issues/1/events": [{"event": "closed", "actor": {"login": "alice", "type": "User"}, "created_at": "2026-01-01T05:00:00Z"}]}}),
    ];
    let mut outcomes = Vec::new();
    for (i, c) in cases.iter().enumerate() {
        let mut o = evaluate_case(c, &[Window::Snapshot]).remove(0);
        o.output.safe_output_id = format!("1:{i}").into();
        o.output.item_index = i as i64;
        outcomes.push(o);
    }
    crate::support::write_recorded(dir, "outcomes", &outcomes_batch(&outcomes));
}

fn pretty(session: &Session, query: &str) -> String {
    let batches = session.sql(&query_text(query).unwrap()).unwrap();
    arrow::util::pretty::pretty_format_batches(&batches).unwrap().to_string()
}

/// strict 1/4, human-check 2/4, sticky 1/4, each with its 95% Wilson interval.
#[test]
fn acceptance_rates_by_window() {
    let tmp = tempfile::tempdir().unwrap();
    tiny_dataset(tmp.path());
    let s = Session::open(tmp.path()).unwrap();
    let rows = json_rows(&s.sql(&query_text("acceptance_by_window").unwrap()).unwrap()).unwrap();
    let mut want = serde_json::Map::new();
    want.insert("eval_window".into(), json!("snapshot"));
    want.insert("evaluable_outputs".into(), json!(4));
    for (rate, k) in [("strict_acceptance_rate", 1.0), ("human_check_acceptance_rate", 2.0), ("sticky_artifact_rate", 1.0)] {
        want.extend(rate_fields(rate, k, 4.0));
    }
    assert_eq!(rows, json!([want]));
    // The columns in the query's order: each rate followed by its interval.
    let header = pretty(&s, "acceptance_by_window").lines().nth(1).unwrap().split('|').map(str::trim).filter(|c| !c.is_empty()).collect::<Vec<_>>().join(",");
    let mut order = vec!["eval_window".to_string(), "evaluable_outputs".to_string()];
    for rate in ["strict_acceptance_rate", "human_check_acceptance_rate", "sticky_artifact_rate"] {
        order.extend([rate.to_string(), format!("{rate}_ci_low"), format!("{rate}_ci_high")]);
    }
    assert_eq!(header, order.join(","));
}

#[test]
fn summary_counts() {
    let tmp = tempfile::tempdir().unwrap();
    tiny_dataset(tmp.path());
    let s = Session::open(tmp.path()).unwrap();
    let expected = "\
+-------------+--------------------+-------------------+-----------------+-----------------+---------------+----------+---------+---------+---------+---------+----------------------------+----------------------------------+------------------------+
| eval_window | total_safe_outputs | evaluable_outputs | accepted_strong | accepted_medium | accepted_weak | rejected | pending | ignored | unknown | skipped | fallback_exists_only_count | missing_type_specific_rule_count | durable_reversal_count |
+-------------+--------------------+-------------------+-----------------+-----------------+---------------+----------+---------+---------+---------+---------+----------------------------+----------------------------------+------------------------+
| snapshot    | 6                  | 4                 | 1               | 1               | 0             | 1        | 1       | 0       | 1       | 1       | 1                          | 0                                | 0                      |
+-------------+--------------------+-------------------+-----------------+-----------------+---------------+----------+---------+---------+---------+---------+----------------------------+----------------------------------+------------------------+";
    assert_eq!(pretty(&s, "summary"), expected);
}

/// Per type: create_pull_request has 4 outputs (merged, open, not captured, closed):
/// evaluable 3, strict 1/3, rejection 1/3, pending 1/3, unknown 1/4 (of non-skipped).
#[test]
fn rates_by_type() {
    let tmp = tempfile::tempdir().unwrap();
    tiny_dataset(tmp.path());
    let s = Session::open(tmp.path()).unwrap();
    let by_type = pretty(&s, "acceptance_by_type");
    let pr = by_type.lines().find(|l| l.contains("create_pull_request")).unwrap();
    let cells: Vec<&str> = pr.split('|').map(str::trim).filter(|c| !c.is_empty()).collect();
    assert_eq!(cells[..4], ["create_pull_request", "snapshot", "4", "3"]);
    assert_eq!(cells[4], "0.3333", "strict");
    // Each of the three rates is followed by its interval; then the other rates.
    assert_eq!(cells[13], "0.3333", "rejection");
    assert_eq!(cells[14], "0.3333", "pending");
    assert_eq!(cells[15], "0.25", "unknown");
    // The median time's n: the accepted outputs with a time, none here (the merged PR's
    // merge has no time captured), so no median (an empty cell).
    assert_eq!(cells[16], "0", "accepted_with_time");
    assert_eq!(cells.len(), 17, "{pr}");
}
