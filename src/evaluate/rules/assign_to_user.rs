//! `assign_to_user` and `unassign_from_user`: seed 000 §7, User Assignment.
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

use serde_json::Value;

use super::{issue_final, load_issue};
use crate::evaluate::actors::ActorClass;
use crate::evaluate::case::HistoryGap;
use crate::evaluate::case::{ActKind, Case};
use crate::evaluate::outcome::{EvidenceStrength as E, Status as S};
use crate::evaluate::{common, rows, Common, RowSpec, Rule, Verdict};
use crate::json::names;

/// Users named by the record, lower case.
fn users(case: &Case, state_key: &str) -> Vec<String> {
    let p = &case.recorded.payload;
    let mut u = p
        .get("assignees")
        .and_then(names)
        .or_else(|| p.get("assignee").and_then(Value::as_str).map(|a| vec![a.to_string()]))
        .or_else(|| case.recorded.expected.get("metadata.assignees").and_then(names))
        .unwrap_or_default();
    if u.is_empty() {
        let a = case.recorded.after.as_ref().and_then(|a| a.get("assignees").and_then(names)).unwrap_or_default();
        let b = case.recorded.before.as_ref().and_then(|b| b.get("assignees").and_then(names)).unwrap_or_default();
        u = if state_key == "added" { a.iter().filter(|x| !b.contains(x)).cloned().collect() } else { b.iter().filter(|x| !a.contains(x)).cloned().collect() };
    }
    u.into_iter().map(|x| x.to_lowercase()).collect()
}

/// Assignees (lower case) at the window's end, or why unknown.
fn assignees_at(
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

pub struct AssignToUser;

rows! {
    pub enum AssignToUserRow {
        Acted => RowSpec {
            id: "acted",
            when: "An assigned user commented, reviewed, committed or closed the item after the assignment",
            status: S::Accepted,
            strength: E::Strong,
            signal: "assignee_acted",
            seed: "Assigned user comments, reviews, commits, or closes item",
            policy: None,
        },
        Completed => RowSpec {
            id: "completed",
            when: "The item was completed (closed as completed or merged) while the user was assigned",
            status: S::Accepted,
            strength: E::Medium,
            signal: "completed_while_assigned",
            seed: "Item completed while user assigned",
            policy: None,
        },
        Removed => RowSpec {
            id: "removed",
            when: "The user is no longer assigned",
            status: S::Rejected,
            strength: E::Medium,
            signal: "assignee_removed",
            seed: "User removed by visible non-bot",
            policy: None,
        },
        Pending => RowSpec {
            id: "pending",
            when: "Still assigned, item open, no action yet",
            status: S::Pending,
            strength: E::Weak,
            signal: "assignment_pending",
            seed: "Assignment remains while item open",
            policy: None,
        },
        ClosedWithoutAction => RowSpec {
            id: "closed_without_action",
            when: "Item closed (not completed) without the assignee acting",
            status: S::Ignored,
            strength: E::Weak,
            signal: "closed_without_assignee_action",
            seed: "Item closed without assignee action",
            policy: None,
        },
    }
}

impl Rule for AssignToUser {
    type Row = AssignToUserRow;
    fn output_type(&self) -> &'static str {
        "assign_to_user"
    }
    fn human_check(&self) -> &'static str {
        "Did the assignment stick or result in user action?"
    }
    fn evaluate(&self, case: &Case) -> Result<Verdict, Verdict> {
        let want = users(case, "added");
        if want.is_empty() {
            return Err(common(Common::MissingExecutionState).note("no record of which users were assigned"));
        }
        let Some(n) = case.output.target_number else { return Err(common(Common::MissingReference)) };
        let (body, issue) = load_issue(case, n)?;
        let activity = case.activity(n, issue.is_pull_request);
        let is_assignee = |login: &Option<String>| login.as_ref().is_some_and(|l| want.contains(&l.to_lowercase()));
        let acted = case.inside(&activity).find(|a| {
            is_assignee(&a.actor.login) && matches!(&a.kind, ActKind::Comment | ActKind::Review(_) | ActKind::ReviewComment | ActKind::Commit)
                || (is_assignee(&a.actor.login) && matches!(&a.kind, ActKind::Event(e) if e == "closed" || e == "merged"))
        });
        let (h, b) = case.count_actors(&activity);
        let done = |v: Verdict| v.resolved(true).actors(h, b).detail("assignees_intended", want.clone());
        if let Some(a) = acted {
            return Ok(done(self.row(AssignToUserRow::Acted).at(a.at).detail("acted_by", a.actor.login.clone())));
        }
        let now = assignees_at(case, body, issue.updated_at, activity.events.as_deref())?;
        let lc = case.lifecycle(&issue_final(&issue), activity.events.as_deref()).map_err(HistoryGap::verdict)?;
        if !want.iter().any(|u| now.contains(u)) {
            let who = case.events_inside(activity.events.as_deref(), &["unassigned"]).last();
            let v = self.row(AssignToUserRow::Removed);
            return Ok(done(match who {
                Some(e) if case.actors.classify(&e.actor) == ActorClass::VisibleNonBot => v.at(e.created_at).detail("removed_by", e.actor.login.clone()),
                Some(e) => v.at(e.created_at).detail("removed_by", e.actor.login.clone()).note("removed by a bot"),
                None => super::unattributed(case, v, "who removed the assignment was not captured"),
            }));
        }
        if lc.closed {
            let completed = lc.merged || lc.state_reason.as_deref() == Some("completed");
            return Ok(done(self.row(if completed { AssignToUserRow::Completed } else { AssignToUserRow::ClosedWithoutAction }).at(lc.closed_at)));
        }
        Ok(done(self.row(AssignToUserRow::Pending)))
    }
}

pub struct UnassignFromUser;

rows! {
    pub enum UnassignFromUserRow {
        StaysUnassigned => RowSpec {
            id: "stays_unassigned",
            when: "The user is still unassigned",
            status: S::Accepted,
            strength: E::Medium,
            signal: "user_stays_unassigned",
            seed: "User remains unassigned after window",
            policy: None,
        },
        ReassignedByPerson => RowSpec {
            id: "reassigned_by_person",
            when: "A visible non-bot actor assigned the user again",
            status: S::Rejected,
            strength: E::Strong,
            signal: "user_reassigned",
            seed: "User re-assigned by visible non-bot",
            policy: None,
        },
        Reassigned => RowSpec {
            id: "reassigned",
            when: "The user is assigned again; by a bot or someone not captured",
            status: S::Rejected,
            strength: E::Medium,
            signal: "user_reassigned",
            seed: "",
            policy: None,
        },
        Closed => RowSpec {
            id: "closed",
            when: "Still unassigned, and the item closed after the unassignment",
            status: S::Ignored,
            strength: E::Medium,
            signal: "closed_after_unassignment",
            seed: "Item closed after unassignment (contextual)",
            policy: Some("closed_after_unassignment"),
        },
    }
}

impl Rule for UnassignFromUser {
    type Row = UnassignFromUserRow;
    fn output_type(&self) -> &'static str {
        "unassign_from_user"
    }
    fn human_check(&self) -> &'static str {
        "Did the user remain unassigned?"
    }
    fn evaluate(&self, case: &Case) -> Result<Verdict, Verdict> {
        let gone = users(case, "removed");
        if gone.is_empty() {
            return Err(common(Common::MissingExecutionState).note("no record of which users were unassigned"));
        }
        let Some(n) = case.output.target_number else { return Err(common(Common::MissingReference)) };
        let (body, issue) = load_issue(case, n)?;
        let activity = case.activity(n, issue.is_pull_request);
        let now = assignees_at(case, body, issue.updated_at, activity.events.as_deref())?;
        let done = |v: Verdict| v.resolved(true).detail("users_unassigned", gone.clone());
        if gone.iter().any(|u| now.contains(u)) {
            let who = case
                .events_inside(activity.events.as_deref(), &["assigned"])
                .filter(|e| e.assignee.as_ref().is_some_and(|a| gone.contains(&a.to_lowercase())))
                .last();
            return Ok(done(match who {
                Some(e) if case.actors.classify(&e.actor) == ActorClass::VisibleNonBot => self.row(UnassignFromUserRow::ReassignedByPerson).at(e.created_at),
                Some(e) => self.row(UnassignFromUserRow::Reassigned).at(e.created_at),
                None => super::unattributed(case, self.row(UnassignFromUserRow::Reassigned), "who assigned them again was not captured"),
            }));
        }
        let closed = case.lifecycle(&issue_final(&issue), activity.events.as_deref()).is_ok_and(|lc| lc.closed);
        if closed {
            return Ok(done(self.row(UnassignFromUserRow::Closed).status(case.policy.closed_after_unassignment.status())));
        }
        Ok(done(self.row(UnassignFromUserRow::StaysUnassigned)))
    }
}
