//! `assign_to_user` (docs/SPEC.md [SPEC-ASSIGNMENT]): what a person checks, why, and an example are in [`super::shared::assignees`],
//! which holds what it shares with the other `unassign_from_user` rule.

use crate::evaluate::rule::Decision as D;
use super::shared::assignees::{assignees_at, users};
use super::{issue_final, load_issue};
use crate::evaluate::case::HistoryGap;
use crate::evaluate::case::{ActKind, Case};
use crate::evaluate::outcome::{EvidenceStrength as E, Status as S};
use crate::evaluate::{common, rows, Common, RowSpec, Rule, Verdict};
use crate::runs::output_type::OutputType;

pub(crate) struct AssignToUser;

rows! {
    pub(crate) enum AssignToUserRow {
        Acted => RowSpec {
            id: "acted",
            when: "An assigned user commented, reviewed, committed or closed the item after the assignment",
            status: S::Accepted,
            strength: E::Strong,
            signal: "assignee_acted",
            seed: "Assigned user comments, reviews, commits, or closes item",
            policy: None,
            decision: D::Act,
        },
        Completed => RowSpec {
            id: "completed",
            when: "The item was completed (closed as completed or merged) while the user was assigned",
            status: S::Accepted,
            strength: E::Medium,
            signal: "completed_while_assigned",
            seed: "Item completed while user assigned",
            policy: None,
            decision: D::Act,
        },
        Removed => RowSpec {
            id: "removed",
            when: "The user is no longer assigned",
            status: S::Rejected,
            strength: E::Medium,
            signal: "assignee_removed",
            seed: "User removed by visible non-bot",
            policy: None,
            decision: D::PersonAct,
        },
        Pending => RowSpec {
            id: "pending",
            when: "Still assigned, item open, no action yet",
            status: S::Pending,
            strength: E::Weak,
            signal: "assignment_pending",
            seed: "Assignment remains while item open",
            policy: None,
            decision: D::State,
        },
        ClosedWithoutAction => RowSpec {
            id: "closed_without_action",
            when: "Item closed (not completed) without the assignee acting",
            status: S::Ignored,
            strength: E::Weak,
            signal: "closed_without_assignee_action",
            seed: "Item closed without assignee action",
            policy: None,
            decision: D::State,
        },
    }
}

impl Rule for AssignToUser {
    type Row = AssignToUserRow;
    fn output_type(&self) -> OutputType {
        OutputType::AssignToUser
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
        let (entry, issue) = load_issue(case, n)?;
        let body = entry.body();
        let activity = case.activity(n, issue.is_pull_request);
        let is_assignee = |login: &Option<String>| login.as_ref().is_some_and(|l| want.contains(&l.to_lowercase()));
        let acted = case.inside(&activity).find(|a| {
            is_assignee(&a.actor.login) && matches!(&a.kind, ActKind::Comment | ActKind::Review(_) | ActKind::ReviewComment | ActKind::Commit)
                || (is_assignee(&a.actor.login) && matches!(&a.kind, ActKind::Event(e) if e == "closed" || e == "merged"))
        });
        let (h, b) = case.count_actors(&activity);
        let done = |v: Verdict| v.resolved(true).actors(h, b).detail("assignees_intended", want.clone());
        if let Some(a) = acted {
            return Ok(done(self.row(AssignToUserRow::Acted).acted(a).detail("acted_by", a.actor.login.clone())));
        }
        let now = assignees_at(case, body, issue.updated_at, activity.events.as_deref())?;
        let lc = case.lifecycle(&issue_final(issue), activity.events.as_deref()).map_err(HistoryGap::verdict)?;
        if !want.iter().any(|u| now.contains(u)) {
            let who = case.events_inside(activity.events.as_deref(), &["unassigned"]).last();
            let v = self.row(AssignToUserRow::Removed);
            return Ok(done(match who {
                Some(e) if case.actors.classify(&e.actor).is_person() => v.event_by(case, e).detail("removed_by", e.actor.login.clone()),
                Some(e) => v.event_by(case, e).detail("removed_by", e.actor.login.clone()).note("removed by a bot"),
                None => super::unattributed(case, v, "who removed the assignment was not captured"),
            }));
        }
        if lc.closed {
            let completed = lc.merged || lc.state_reason.as_deref() == Some("completed");
            let v = self.row(if completed { AssignToUserRow::Completed } else { AssignToUserRow::ClosedWithoutAction });
            return Ok(done(if lc.merged { v.merged_by(case, &lc) } else { v.closed_by(case, &lc) }));
        }
        Ok(done(self.row(AssignToUserRow::Pending)))
    }
}
