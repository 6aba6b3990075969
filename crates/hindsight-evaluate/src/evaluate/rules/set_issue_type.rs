//! `set_issue_type`: docs/SPEC.md [SPEC-METADATA], labels, metadata and planning.
//!
//! ## What a person checks
//! Did the issue type remain set?
//!
//! ## Why
//! The intended type (request `issue_type`, or after state `type`) is compared with the
//! issue's `type` at the window's end. An issue without a `type` key in its capture was
//! captured without issue types: unknown, not cleared. A type cleared by a visible non-bot
//! actor (the `issue_type_removed` event names who) is a strong rejection; cleared by a bot,
//! by the workflow itself, or by someone not captured, a medium one. An output that cleared
//! the type (`issue_type: ""`) is retained while no type is set.
//!
//! ## Example
//! Type set to `Bug`; the issue closed as completed still typed `Bug` -> `accepted`/
//! `strong`/`completed_with_type`.

use crate::evaluate::rule::Decision as D;
use super::{issue_final, load_issue};
use crate::evaluate::case::Case;
use crate::evaluate::case::HistoryGap;
use crate::evaluate::outcome::{EvidenceStrength as E, Status as S};
use crate::evaluate::{common, rows, Common, RowSpec, Rule, Verdict};
use crate::json::str_at;
use crate::runs::output_type::OutputType;

pub(crate) struct SetIssueType;

rows! {
    pub(crate) enum SetIssueTypeRow {
        Retained => RowSpec {
            id: "retained",
            when: "The type still equals the intended type",
            status: S::Accepted,
            strength: E::Medium,
            signal: "issue_type_retained",
            seed: "Type still equals intended type",
            policy: None,
            decision: D::State,
        },
        Completed => RowSpec {
            id: "completed",
            when: "Issue completed with the type retained",
            status: S::Accepted,
            strength: E::Strong,
            signal: "completed_with_type",
            seed: "Issue completed with type retained",
            policy: None,
            decision: D::Act,
        },
        Changed => RowSpec {
            id: "changed",
            when: "Another type is set",
            status: S::Rejected,
            strength: E::Medium,
            signal: "issue_type_changed",
            seed: "Type changed by visible non-bot (rejected or mixed)",
            policy: Some("metadata_changed"),
            decision: D::PersonAct,
        },
        ClearedByPerson => RowSpec {
            id: "cleared_by_person",
            when: "No type is set; a visible non-bot actor cleared it",
            status: S::Rejected,
            strength: E::Strong,
            signal: "issue_type_cleared",
            seed: "Type cleared by visible non-bot",
            policy: None,
            decision: D::PersonAct,
        },
        Cleared => RowSpec {
            id: "cleared",
            when: "No type is set; cleared by a bot or by someone not captured; by the workflow itself, `ignored`/weak (own act)",
            status: S::Rejected,
            strength: E::Medium,
            signal: "issue_type_cleared",
            seed: "Type cleared by visible non-bot (actor not visible)",
            policy: None,
            decision: D::Act,
        },
        Unreadable => RowSpec {
            id: "unreadable",
            when: "The capture carries no issue type field",
            status: S::Unknown,
            strength: E::None,
            signal: "issue_type_unreadable",
            seed: "Cannot read issue type",
            policy: None,
            decision: D::State,
        },
    }
}

impl Rule for SetIssueType {
    type Row = SetIssueTypeRow;
    fn output_type(&self) -> OutputType {
        OutputType::SetIssueType
    }
    fn human_check(&self) -> &'static str {
        "Did the issue type remain set?"
    }
    fn evaluate(&self, case: &Case) -> Result<Verdict, Verdict> {
        let o = case.output;
        let p = case.recorded.payload();
        let want = str_at(p, "issue_type")
            .map(str::to_string)
            .or_else(|| case.recorded.after().as_ref().and_then(|a| a.get("type").and_then(|t| t.as_str().or_else(|| str_at(t, "name")).map(str::to_string))));
        let Some(want) = want else { return Err(common(Common::MissingExecutionState).note("no record of the intended issue type")) };
        let Some(n) = o.target_number else { return Err(common(Common::MissingReference)) };
        let (entry, issue) = load_issue(case, n)?;
        let body = entry.body();
        let Some(t) = body.get("type") else { return Ok(self.row(SetIssueTypeRow::Unreadable).resolved(true)) };
        let activity = case.activity(n, false);
        if !case.current_holds(issue.updated_at, activity.events.as_deref(), &["issue_type_added", "issue_type_changed", "issue_type_removed"]) {
            return Ok(HistoryGap::HistoryMissing.verdict());
        }
        let done = |v: Verdict| v.resolved(true).detail("intended", want.clone());
        // An empty type name is no type: GitHub's `null`, or gh-aw's `""` for clearing.
        let now = t.as_str().or_else(|| str_at(t, "name")).filter(|n| !n.is_empty());
        Ok(match now {
            None if want.is_empty() => done(self.row(SetIssueTypeRow::Retained)),
            None => {
                let removal = case.events_inside(activity.events.as_deref(), &["issue_type_removed"]).last();
                done(match removal {
                    Some(e) => {
                        let by = case.actors.classify_at(&e.actor, e.created_at);
                        let row = if by.is_person() { SetIssueTypeRow::ClearedByPerson } else { SetIssueTypeRow::Cleared };
                        self.row(row).event_by(case, e).detail("cleared_by", e.actor.login.clone()).detail("cleared_by_type", by.as_str())
                    }
                    None => {
                        super::unattributed(case, self.row(SetIssueTypeRow::Cleared), "who cleared the type was not captured (no issue_type_removed event)")
                    }
                })
            }
            Some(n) if n.eq_ignore_ascii_case(&want) => {
                let lc = case.lifecycle(&issue_final(issue), activity.events.as_deref()).ok();
                match lc.filter(|lc| lc.closed && lc.state_reason.as_deref() == Some("completed")) {
                    Some(lc) => done(self.row(SetIssueTypeRow::Completed).closed_by(case, &lc)),
                    None => done(self.row(SetIssueTypeRow::Retained)),
                }
            }
            Some(n) => {
                // Who changed it: the last change of type inside the window (none captured:
                // the judge counts the change as unattributed).
                let v = self.row(SetIssueTypeRow::Changed).status(case.policy.metadata_changed.status()).detail("now", n);
                done(match case.events_inside(activity.events.as_deref(), &["issue_type_added", "issue_type_changed"]).last() {
                    Some(e) => v.event_by(case, e).detail("changed_by", e.actor.login.clone()),
                    None => v,
                })
            }
        })
    }
}
