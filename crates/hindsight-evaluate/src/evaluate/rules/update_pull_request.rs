//! `update_pull_request`: docs/SPEC.md [SPEC-PR], pull requests.
//!
//! ## What a person checks
//! Did the edit stick, and did the PR merge with it?
//!
//! ## Why
//! As `update_issue` (fields compared with the recorded before and after state), and
//! stronger when the PR later merged with the edit in place; a PR closed unmerged after the
//! edit is "often rejected" ([SPEC-PR]), medium.
//!
//! ## Example
//! Title set to "new"; the PR merged with title "new" -> `accepted`/`strong`/
//! `state_retained_and_merged`.

use crate::evaluate::rule::Decision as D;
use super::shared::fields::update_verdict;
use super::shared::fields::UpdateRows;
use super::update_issue::UpdateIssueRow;
use super::{load_pull, pull_final};
use crate::evaluate::case::Case;
use crate::evaluate::outcome::{EvidenceStrength as E, Status as S};
use crate::evaluate::{common, rows, Common, RowSpec, Rule, Verdict};
use crate::runs::output_type::OutputType;

pub(crate) struct UpdatePullRequest;

rows! {
    pub(crate) enum UpdatePullRequestRow {
        Retained => UpdateIssueRow::ROWS[0],
        RetainedAfterEdit => UpdateIssueRow::ROWS[1],
        Reverted => UpdateIssueRow::ROWS[2],
        Replaced => UpdateIssueRow::ROWS[3],
        RetainedAndMerged => RowSpec {
            id: "retained_and_merged",
            when: "Every edited field kept and the PR merged",
            status: S::Accepted,
            strength: E::Strong,
            signal: "state_retained_and_merged",
            seed: "PR merged after update and update remained relevant",
            policy: None,
            decision: D::Act,
        },
        ClosedUnmerged => RowSpec {
            id: "closed_unmerged",
            when: "Every edited field kept, but the PR closed unmerged",
            status: S::Rejected,
            strength: E::Medium,
            signal: "closed_unmerged_after_update",
            seed: "PR closed unmerged after update",
            policy: None,
            decision: D::Act,
        },
    }
}

impl Rule for UpdatePullRequest {
    type Row = UpdatePullRequestRow;
    fn output_type(&self) -> OutputType {
        OutputType::UpdatePullRequest
    }
    fn human_check(&self) -> &'static str {
        "Did the edit stick, and did the PR merge with it?"
    }

    fn evaluate(&self, case: &Case) -> Result<Verdict, Verdict> {
        let Some(n) = case.output.target_number else { return Err(common(Common::MissingReference)) };
        let (entry, pr) = load_pull(case, n)?;
        let body = entry.body();
        let activity = case.activity(n, true);
        let (humans, bots) = case.count_actors(&activity);
        let v = update_verdict(
            self,
            UpdateRows {
                retained: UpdatePullRequestRow::Retained,
                retained_after_edit: Some(UpdatePullRequestRow::RetainedAfterEdit),
                reverted: UpdatePullRequestRow::Reverted,
                replaced: UpdatePullRequestRow::Replaced,
            },
            case,
            body,
            pr.updated_at,
            &activity,
        )
        .actors(humans, bots);
        if v.status != S::Accepted {
            return Ok(v);
        }
        Ok(match case.lifecycle(&pull_final(pr), activity.events.as_deref()) {
            Ok(lc) if lc.merged => {
                let mut m = self.row(UpdatePullRequestRow::RetainedAndMerged).merged_by(case, &lc).resolved(true).actors(humans, bots);
                m.details = v.details;
                m.partial_score = v.partial_score;
                m
            }
            Ok(lc) if lc.closed => {
                let mut c = self.row(UpdatePullRequestRow::ClosedUnmerged).closed_by(case, &lc).resolved(true).actors(humans, bots);
                c.details = v.details;
                c.partial_score = v.partial_score;
                c
            }
            _ => v,
        })
    }
}
