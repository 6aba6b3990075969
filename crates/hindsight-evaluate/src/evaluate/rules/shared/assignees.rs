//! `assign_to_user` and `unassign_from_user`: docs/SPEC.md [SPEC-ASSIGNMENT], user
//! assignment.
//!
//! ## What a person checks
//! assign: did the assignment stick or lead the user to act? unassign: did the user stay
//! unassigned?
//!
//! ## Why
//! An assignee who then comments, reviews, commits or closes the item took the work; an
//! item completed while they were assigned is medium evidence; an assignment a person
//! removed is rejected. For an unassignment, a person assigning the user back undoes it.
//! The users come from the request (`assignees`, `assignee`) or the after/before state.
//!
//! ## Example
//! `alice` assigned at T, comments at T+3h -> `accepted`/`strong`/`assignee_acted` from
//! the 24h window on.
//!
//! What `assign_to_user` and `unassign_from_user` share; each type's rule is in its own file.

use crate::evaluate::case::Case;
use crate::evaluate::case::HistoryGap;
use crate::evaluate::{common, Common, Verdict};
use crate::json::names;
use serde_json::Value;

/// Users named by the record, lower case.
pub(crate) fn users(case: &Case, state_key: &str) -> Vec<String> {
    let p = case.recorded.payload();
    let mut u = p
        .get("assignees")
        .and_then(names)
        .or_else(|| p.get("assignee").and_then(Value::as_str).map(|a| vec![a.to_string()]))
        .or_else(|| case.recorded.expected().get("metadata.assignees").and_then(names))
        .unwrap_or_default();
    if u.is_empty() {
        let a = case.recorded.after().as_ref().and_then(|a| a.get("assignees").and_then(names)).unwrap_or_default();
        let b = case.recorded.before().as_ref().and_then(|b| b.get("assignees").and_then(names)).unwrap_or_default();
        u = if state_key == "added" { a.iter().filter(|x| !b.contains(x)).cloned().collect() } else { b.iter().filter(|x| !a.contains(x)).cloned().collect() };
    }
    u.into_iter().map(|x| x.to_lowercase()).collect()
}

/// Assignees (lower case) at the window's end, or why unknown.
pub(crate) fn assignees_at(
    case: &Case,
    body: &Value,
    updated_at: Option<crate::time::Instant>,
    events: Option<&[crate::snapshot::github::Event]>,
) -> Result<Vec<String>, Verdict> {
    let Some(list) = body.get("assignees").and_then(names) else {
        return Err(common(Common::CaptureFailed).resolved(true).note("the target's assignees were not captured"));
    };
    if !case.current_holds(updated_at, events, &["assigned", "unassigned"]) {
        return Err(HistoryGap::HistoryMissing.verdict());
    }
    Ok(list.into_iter().map(|x| x.to_lowercase()).collect())
}
