//! `update_issue`: docs/SPEC.md [SPEC-ISSUES], issues and discussions.
//!
//! ## What a person checks
//! Did the agent's edit stick?
//!
//! ## Why
//! An edit is judged field by field against the recorded before and after state (title,
//! body by normalized hash, state, labels, assignees, milestone): every field still equal
//! to what the workflow set is kept; a field back to its before value was reverted; any
//! other value replaced it. Who changed it comes from the timeline (`renamed`, `closed`,
//! `labeled`, ...). Without a recorded after state there is nothing to compare.
//!
//! ## Example
//! Title changed from "old" to "new"; at T+7d the title is "old" again, renamed by a
//! maintainer -> `rejected`/`strong`/`state_reverted`, `partial_score` 0.

use crate::evaluate::rule::Decision as D;
use super::load_issue;
use super::shared::fields::update_verdict;
use super::shared::fields::UpdateRows;
use crate::evaluate::case::Case;
use crate::evaluate::outcome::{EvidenceStrength as E, Status as S};
use crate::evaluate::{common, rows, Common, RowSpec, Rule, Verdict};
use crate::runs::output_type::OutputType;

pub(crate) struct UpdateIssue;

rows! {
    pub(crate) enum UpdateIssueRow {
        Retained => RowSpec {
            id: "retained",
            when: "Every edited field still equals the intended value",
            status: S::Accepted,
            strength: E::Medium,
            signal: "state_retained",
            seed: "Edited fields still equal intended values after window",
            policy: None,
            decision: D::State,
        },
        RetainedAfterEdit => RowSpec {
            id: "retained_after_edit",
            when: "Every edited field kept, after a later edit by a visible non-bot actor",
            status: S::Accepted,
            strength: E::Medium,
            signal: "state_retained_after_edit",
            seed: "Later visible non-bot edit preserves core change",
            policy: None,
            decision: D::State,
        },
        Reverted => RowSpec {
            id: "reverted",
            when: "An edited field is back to its before value (strong when a visible non-bot actor did it)",
            status: S::Rejected,
            strength: E::Strong,
            signal: "state_reverted",
            seed: "Later visible non-bot reverts or replaces the change",
            policy: None,
            decision: D::Act,
        },
        Replaced => RowSpec {
            id: "replaced",
            when: "An edited field holds a third value (strong when a visible non-bot actor did it)",
            status: S::Rejected,
            strength: E::Strong,
            signal: "state_replaced",
            seed: "Later visible non-bot reverts or replaces the change",
            policy: None,
            decision: D::Act,
        },
    }
}

const UPDATE_ROWS: UpdateRows<UpdateIssueRow> = UpdateRows {
    retained: UpdateIssueRow::Retained,
    retained_after_edit: Some(UpdateIssueRow::RetainedAfterEdit),
    reverted: UpdateIssueRow::Reverted,
    replaced: UpdateIssueRow::Replaced,
};

impl Rule for UpdateIssue {
    type Row = UpdateIssueRow;
    fn output_type(&self) -> OutputType {
        OutputType::UpdateIssue
    }
    fn human_check(&self) -> &'static str {
        "Did the agent's edit stick?"
    }

    fn evaluate(&self, case: &Case) -> Result<Verdict, Verdict> {
        let Some(n) = case.output.target_number else { return Err(common(Common::MissingReference)) };
        let (entry, issue) = load_issue(case, n)?;
        let body = entry.body();
        let activity = case.activity(n, issue.is_pull_request);
        let (humans, bots) = case.count_actors(&activity);
        Ok(update_verdict(self, UPDATE_ROWS, case, body, issue.updated_at, &activity).actors(humans, bots))
    }
}
