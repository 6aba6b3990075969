//! `update_pull_request`: seed 000 §7, Pull Requests.
//!
//! ## What a person checks
//! Did the edit stick, and did the PR merge with it?
//!
//! ## Why
//! As `update_issue` (fields compared with the recorded before and after state), and
//! stronger when the PR later merged with the edit in place; a PR closed unmerged after the
//! edit is "often rejected" (seed 000), medium.
//!
//! ## Example
//! Title set to "new"; the PR merged with title "new" -> `accepted`/`strong`/
//! `state_retained_and_merged`.

use super::fields::update_verdict;
use super::update_issue::UPDATE_ROWS;
use super::{load_pull, pull_final};
use crate::evaluate::case::Case;
use crate::evaluate::outcome::{EvidenceStrength as E, Status as S};
use crate::evaluate::{common, Row, Rule, Verdict};

pub struct UpdatePullRequest;

const ROWS: &[Row] = &[
    UPDATE_ROWS[0],
    UPDATE_ROWS[1],
    UPDATE_ROWS[2],
    UPDATE_ROWS[3],
    Row {
        id: "retained_and_merged",
        when: "Every edited field kept and the PR merged",
        status: S::Accepted,
        strength: E::Strong,
        signal: "state_retained_and_merged",
        seed: "PR merged after update and update remained relevant",
        policy: None,
    },
    Row {
        id: "closed_unmerged",
        when: "Every edited field kept, but the PR closed unmerged",
        status: S::Rejected,
        strength: E::Medium,
        signal: "closed_unmerged_after_update",
        seed: "PR closed unmerged after update",
        policy: None,
    },
];

impl Rule for UpdatePullRequest {
    fn output_type(&self) -> &'static str {
        "update_pull_request"
    }
    fn human_check(&self) -> &'static str {
        "Did the edit stick, and did the PR merge with it?"
    }
    fn rows(&self) -> &'static [Row] {
        ROWS
    }

    fn evaluate(&self, case: &Case) -> Verdict {
        let Some(n) = case.output.target_number else { return common("missing_reference") };
        let (body, pr) = match load_pull(case, n) {
            Ok(x) => x,
            Err(v) => return v,
        };
        let activity = case.activity(n, true);
        let (humans, bots) = case.count_actors(&activity);
        let v = update_verdict(self, case, body, pr.updated_at, &activity).actors(humans, bots);
        if v.status != S::Accepted {
            return v;
        }
        match case.lifecycle(&pull_final(&pr), activity.events.as_deref()) {
            Ok(lc) if lc.merged => {
                let mut m = self.row("retained_and_merged").at(lc.merged_at).resolved(true).actors(humans, bots);
                m.details = v.details;
                m.partial_score = v.partial_score;
                m
            }
            Ok(lc) if lc.closed => {
                let mut c = self.row("closed_unmerged").at(lc.closed_at).resolved(true).actors(humans, bots);
                c.details = v.details;
                c.partial_score = v.partial_score;
                c
            }
            _ => v,
        }
    }
}
