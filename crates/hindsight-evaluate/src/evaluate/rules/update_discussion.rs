//! `update_discussion` (docs/SPEC.md [SPEC-ISSUES]): what a person checks, why, and an example are in [`super::shared::discussion`],
//! which holds what it shares with the other `create_discussion` and `close_discussion` rules.

use super::shared::discussion::load;
use super::shared::fields::update_verdict;
use super::shared::fields::UpdateRows;
use super::update_issue::UpdateIssueRow;
use crate::evaluate::case::{Activity, Case};
use crate::evaluate::{rows, Rule, Verdict};
use crate::runs::output_type::OutputType;

pub(crate) struct UpdateDiscussion;

rows! {
    /// update_issue's rows but the one that needs edit history, which discussions lack.
    pub(crate) enum UpdateDiscussionRow {
        Retained => UpdateIssueRow::ROWS[0],
        Reverted => UpdateIssueRow::ROWS[2],
        Replaced => UpdateIssueRow::ROWS[3],
    }
}

impl Rule for UpdateDiscussion {
    type Row = UpdateDiscussionRow;
    fn output_type(&self) -> OutputType {
        OutputType::UpdateDiscussion
    }
    fn not_observable(&self, row: Self::Row) -> Option<&'static str> {
        match row {
            UpdateDiscussionRow::Reverted => Some("at strong only: GitHub's API records no edit events for discussions, so who changed a field back is never known and the row fires at medium"),
            UpdateDiscussionRow::Replaced => Some("at strong only: GitHub's API records no edit events for discussions, so who replaced a field is never known and the row fires at medium"),
            _ => None,
        }
    }
    fn human_check(&self) -> &'static str {
        "Did the agent's edit stick? (mirrors update_issue)"
    }
    fn evaluate(&self, case: &Case) -> Result<Verdict, Verdict> {
        let (body, d) = load(case)?;
        Ok(update_verdict(
            self,
            UpdateRows {
                retained: UpdateDiscussionRow::Retained,
                retained_after_edit: None,
                reverted: UpdateDiscussionRow::Reverted,
                replaced: UpdateDiscussionRow::Replaced,
            },
            case,
            body,
            d.updated_at,
            &Activity::default(),
        ))
    }
}
