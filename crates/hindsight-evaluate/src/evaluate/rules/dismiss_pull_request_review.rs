//! `dismiss_pull_request_review` (docs/SPEC.md [SPEC-EXTRA-TYPES]): what a person checks, why, and an example are in [`super::shared::pull_request_review`],
//! which holds what it shares with the other `submit_pull_request_review` rule.

use crate::evaluate::rule::Decision as D;
use super::shared::pull_request_review::{find_review, review_id};
use crate::evaluate::case::Case;
use crate::evaluate::outcome::{EvidenceStrength as E, Status as S};
use crate::evaluate::{common, rows, Common, RowSpec, Rule, Verdict};
use crate::runs::output_type::OutputType;

pub(crate) struct DismissReview;

rows! {
    pub(crate) enum DismissReviewRow {
        Stands => RowSpec { id: "stands", when: "The review is still dismissed", status: S::Accepted, strength: E::Medium, signal: "dismissal_stands", seed: "", policy: None, decision: D::State },
        NotDismissed => RowSpec {
            id: "not_dismissed",
            when: "The review is not dismissed at the window's end",
            status: S::Rejected,
            strength: E::Medium,
            signal: "dismissal_undone",
            seed: "",
            policy: None,
            decision: D::State,
        },
        ReviewMissing => RowSpec {
            id: "review_missing",
            when: "No review with the recorded id",
            status: S::Unknown,
            strength: E::Weak,
            signal: "review_missing",
            seed: "",
            policy: None,
            decision: D::State,
        },
    }
}

impl Rule for DismissReview {
    type Row = DismissReviewRow;
    fn output_type(&self) -> OutputType {
        OutputType::DismissPullRequestReview
    }
    fn human_check(&self) -> &'static str {
        "Did the dismissal stand?"
    }
    fn evaluate(&self, case: &Case) -> Result<Verdict, Verdict> {
        let Some(id) = review_id(case) else { return Err(common(Common::MissingExecutionState).note("no review id recorded")) };
        let Some(n) = case.output.target_number else { return Err(common(Common::MissingReference)) };
        if !case.window.is_snapshot() {
            return Err(common(Common::HistoryMissing).note("review state has no captured history; only the snapshot window can be judged"));
        }
        Ok(match find_review(case, n, id) {
            Ok(Some(r)) if r.state.as_deref() == Some("DISMISSED") => self.row(DismissReviewRow::Stands).resolved(true),
            Ok(Some(_)) => self.row(DismissReviewRow::NotDismissed).resolved(true),
            Ok(None) => self.row(DismissReviewRow::ReviewMissing),
            Err(v) => v,
        })
    }
}
