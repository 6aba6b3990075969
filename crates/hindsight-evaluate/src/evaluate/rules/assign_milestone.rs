//! `assign_milestone`: docs/SPEC.md [SPEC-METADATA], labels, metadata and planning.
//!
//! ## What a person checks
//! Did the milestone remain assigned?
//!
//! ## Why
//! The intended milestone (metadata `milestone_number`, the request's `milestone_number`,
//! or the after state) is compared with the target's milestone at the window's end. Work
//! completed under it is the strongest sign; another milestone is a change of plan
//! (policy `metadata_changed`, default rejected); no milestone is a removal.
//!
//! ## Example
//! Milestone 2 set; at T+7d the issue is closed as completed in milestone 2 ->
//! `accepted`/`strong`/`completed_under_milestone`.

use crate::evaluate::rule::Decision as D;
use serde_json::Value;

use super::{issue_final, load_issue};
use crate::evaluate::case::Case;
use crate::evaluate::case::HistoryGap;
use crate::evaluate::outcome::{EvidenceStrength as E, Status as S};
use crate::evaluate::{common, rows, Common, RowSpec, Rule, Verdict};
use crate::json::{as_int, int_at};
use crate::runs::output_type::OutputType;

pub(crate) struct AssignMilestone;

rows! {
    pub(crate) enum AssignMilestoneRow {
        Retained => RowSpec {
            id: "retained",
            when: "The intended milestone is still set",
            status: S::Accepted,
            strength: E::Medium,
            signal: "milestone_retained",
            seed: "Same milestone still set after window",
            policy: None,
            decision: D::State,
        },
        Completed => RowSpec {
            id: "completed",
            when: "Closed as completed (or merged) under the intended milestone",
            status: S::Accepted,
            strength: E::Strong,
            signal: "completed_under_milestone",
            seed: "Issue or PR completed under milestone",
            policy: None,
            decision: D::Act,
        },
        Changed => RowSpec {
            id: "changed",
            when: "Another milestone is set",
            status: S::Rejected,
            strength: E::Medium,
            signal: "milestone_changed",
            seed: "Milestone changed by visible non-bot (rejected or mixed)",
            policy: Some("metadata_changed"),
            decision: D::PersonAct,
        },
        Removed => RowSpec {
            id: "removed",
            when: "No milestone is set",
            status: S::Rejected,
            strength: E::Strong,
            signal: "milestone_removed",
            seed: "Milestone removed",
            policy: None,
            decision: D::PersonAct,
        },
    }
}

fn intended(case: &Case) -> Option<Value> {
    let e = case.recorded.expected();
    let p = case.recorded.payload();
    e.get("metadata.milestone_number")
        .or(e.get("metadata.milestone"))
        .or(p.get("milestone_number"))
        .or(p.get("milestone"))
        .cloned()
        .or_else(|| case.recorded.after().as_ref().and_then(|a| a.get("milestone").cloned()))
        .filter(|v| !v.is_null())
}

fn same(intended: &Value, milestone: &Value) -> bool {
    match as_int(intended) {
        Some(n) => int_at(milestone, "number") == Some(n),
        None => intended.as_str().is_some_and(|t| crate::json::str_at(milestone, "title") == Some(t)),
    }
}

impl Rule for AssignMilestone {
    type Row = AssignMilestoneRow;
    fn output_type(&self) -> OutputType {
        OutputType::AssignMilestone
    }
    fn human_check(&self) -> &'static str {
        "Did the milestone remain assigned?"
    }
    fn evaluate(&self, case: &Case) -> Result<Verdict, Verdict> {
        let Some(want) = intended(case) else {
            return Err(common(Common::MissingExecutionState).note("no record of which milestone was set"));
        };
        let Some(n) = case.output.target_number else { return Err(common(Common::MissingReference)) };
        let (entry, issue) = load_issue(case, n)?;
        let body = entry.body();
        let activity = case.activity(n, issue.is_pull_request);
        if !case.current_holds(issue.updated_at, activity.events.as_deref(), &["milestoned", "demilestoned"]) {
            return Ok(HistoryGap::HistoryMissing.verdict());
        }
        let done = |v: Verdict| v.resolved(true).detail("intended", want.clone());
        // Who changed the milestone: the last such event inside the window (none captured:
        // the judge counts the change as unattributed).
        let changed_by = |v: Verdict, kind: &str| match case.events_inside(activity.events.as_deref(), &[kind]).last() {
            Some(e) => v.event_by(case, e).detail("changed_by", e.actor.login.clone()),
            None => v,
        };
        Ok(match body.get("milestone").filter(|m| !m.is_null()) {
            None => done(changed_by(self.row(AssignMilestoneRow::Removed), "demilestoned")),
            Some(m) if same(&want, m) => {
                let lc = case.lifecycle(&issue_final(issue), activity.events.as_deref()).ok();
                match lc.filter(|lc| lc.closed && (lc.merged || lc.state_reason.as_deref() == Some("completed"))) {
                    Some(lc) if lc.merged => done(self.row(AssignMilestoneRow::Completed).merged_by(case, &lc)),
                    Some(lc) => done(self.row(AssignMilestoneRow::Completed).closed_by(case, &lc)),
                    None => done(self.row(AssignMilestoneRow::Retained)),
                }
            }
            Some(m) => done(changed_by(self.row(AssignMilestoneRow::Changed), "milestoned").status(case.policy.metadata_changed.status()).detail("now", m.get("number").cloned())),
        })
    }
}
