//! `unassign_from_user` (docs/SPEC.md [SPEC-ASSIGNMENT]): what a person checks, why, and an example are in [`super::shared::assignees`],
//! which holds what it shares with the other `assign_to_user` rule.

use crate::evaluate::rule::Decision as D;
use super::shared::assignees::{assignees_at, users};
use super::{issue_final, load_issue};
use crate::evaluate::case::Case;
use crate::evaluate::outcome::{EvidenceStrength as E, Status as S};
use crate::evaluate::{common, rows, Common, RowSpec, Rule, Verdict};
use crate::runs::output_type::OutputType;

pub(crate) struct UnassignFromUser;

rows! {
    pub(crate) enum UnassignFromUserRow {
        StaysUnassigned => RowSpec {
            id: "stays_unassigned",
            when: "The user is still unassigned",
            status: S::Accepted,
            strength: E::Medium,
            signal: "user_stays_unassigned",
            seed: "User remains unassigned after window",
            policy: None,
            decision: D::State,
        },
        ReassignedByPerson => RowSpec {
            id: "reassigned_by_person",
            when: "A visible non-bot actor assigned the user again",
            status: S::Rejected,
            strength: E::Strong,
            signal: "user_reassigned",
            seed: "User re-assigned by visible non-bot",
            policy: None,
            decision: D::PersonAct,
        },
        Reassigned => RowSpec {
            id: "reassigned",
            when: "The user is assigned again; by a bot or someone not captured",
            status: S::Rejected,
            strength: E::Medium,
            signal: "user_reassigned",
            seed: "",
            policy: None,
            decision: D::Act,
        },
        Closed => RowSpec {
            id: "closed",
            when: "Still unassigned, and the item closed after the unassignment",
            status: S::Ignored,
            strength: E::Medium,
            signal: "closed_after_unassignment",
            seed: "Item closed after unassignment (contextual)",
            policy: Some("closed_after_unassignment"),
            decision: D::State,
        },
    }
}

impl Rule for UnassignFromUser {
    type Row = UnassignFromUserRow;
    fn output_type(&self) -> OutputType {
        OutputType::UnassignFromUser
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
        let (entry, issue) = load_issue(case, n)?;
        let body = entry.body();
        let activity = case.activity(n, issue.is_pull_request);
        let now = assignees_at(case, body, issue.updated_at, activity.events.as_deref())?;
        let done = |v: Verdict| v.resolved(true).detail("users_unassigned", gone.clone());
        if gone.iter().any(|u| now.contains(u)) {
            let who = case
                .events_inside(activity.events.as_deref(), &["assigned"])
                .filter(|e| e.assignee.as_ref().is_some_and(|a| gone.contains(&a.to_lowercase())))
                .last();
            return Ok(done(match who {
                Some(e) if case.actors.classify(&e.actor).is_person() => self.row(UnassignFromUserRow::ReassignedByPerson).event_by(case, e),
                Some(e) => self.row(UnassignFromUserRow::Reassigned).event_by(case, e),
                None => super::unattributed(case, self.row(UnassignFromUserRow::Reassigned), "who assigned them again was not captured"),
            }));
        }
        let closed = case.lifecycle(&issue_final(issue), activity.events.as_deref()).is_ok_and(|lc| lc.closed);
        if closed {
            return Ok(done(self.row(UnassignFromUserRow::Closed).status(case.policy.closed_after_unassignment.status())));
        }
        Ok(done(self.row(UnassignFromUserRow::StaysUnassigned)))
    }
}
