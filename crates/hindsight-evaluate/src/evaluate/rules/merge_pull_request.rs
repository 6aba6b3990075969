//! `merge_pull_request` (a gh-aw type the specification's tables do not list: docs/SPEC.md
//! [SPEC-EXTRA-TYPES]).
//!
//! ## What a person checks
//! Did the merge the agent made stand?
//!
//! ## Why
//! The agent merging a PR is its own act, so the merge itself is no human evidence; what
//! a person can show is that it stood: not reverted within the window and the policy's
//! `durability_hours` of the merge (default [`DEFAULT_DURABILITY_HOURS`](crate::evaluate::policy::DEFAULT_DURABILITY_HOURS),
//! 30 days; see the revert detection of `create_pull_request`). A PR that is not merged means the merge did not
//! happen: unknown, as the record says it executed.
//!
//! ## Example
//! PR #5 merged by the workflow at T, no revert by T+30d -> `accepted`/`medium`/
//! `merge_stood`.

use crate::evaluate::rule::Decision as D;
use super::shared::durability::find_revert;
use super::{pull_state, PullState};
use crate::evaluate::case::Case;
use crate::evaluate::outcome::{EvidenceStrength as E, Status as S};
use crate::evaluate::{common, rows, Common, RowSpec, Rule, Verdict};
use crate::runs::output_type::OutputType;

pub(crate) struct MergePullRequest;

rows! {
    pub(crate) enum MergePullRequestRow {
        Stood => RowSpec {
            id: "stood",
            when: "Merged and not reverted by the window's end",
            status: S::Accepted,
            strength: E::Medium,
            signal: "merge_stood",
            seed: "",
            policy: None,
            decision: D::State,
        },
        Reverted => RowSpec {
            id: "reverted",
            when: "Merged, then reverted within the window",
            status: S::Rejected,
            strength: E::Strong,
            signal: "reverted_after_merge",
            seed: "(create_pull_request) Merged then reverted within durability window",
            policy: None,
            decision: D::Act,
        },
        NotMerged => RowSpec { id: "not_merged", when: "The PR is not merged", status: S::Unknown, strength: E::Weak, signal: "merge_not_observed", seed: "", policy: None, decision: D::State },
    }
}

impl Rule for MergePullRequest {
    type Row = MergePullRequestRow;
    fn output_type(&self) -> OutputType {
        OutputType::MergePullRequest
    }
    fn human_check(&self) -> &'static str {
        "Did the merge the agent made stand?"
    }
    fn dated_at_action(&self) -> bool {
        true
    }
    fn evaluate(&self, case: &Case) -> Result<Verdict, Verdict> {
        let Some(n) = case.output.target_number else { return Err(common(Common::MissingReference)) };
        let PullState { pr, lc, .. } = pull_state(case, n)?;
        if !lc.merged {
            return Ok(self.row(MergePullRequestRow::NotMerged).resolved(true));
        }
        if let Some(r) = find_revert(case, n, &pr) {
            return Ok(self.row(MergePullRequestRow::Reverted).resolved(true).at(r.at).by_actor(case, &r.by, r.at).detail("reverted_by", r.describe()));
        }
        Ok(self.row(MergePullRequestRow::Stood).resolved(true).merged_by(case, &lc))
    }
}
