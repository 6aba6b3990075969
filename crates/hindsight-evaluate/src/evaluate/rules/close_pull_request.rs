//! `close_pull_request`: docs/SPEC.md [SPEC-PR], pull requests.
//!
//! ## What a person checks
//! Did the PR stay closed, or was the close undone?
//!
//! ## Why
//! Closing a PR unmerged is a decision against the change; a reopen, and even more a
//! merge after reopening, undoes it. A comment after the close saying it was premature
//! (matched against `CHALLENGE_PHRASES`) rejects it with medium evidence.
//!
//! ## Example
//! Closed at T, still closed and unmerged at T+7d -> `accepted`/`medium`/
//! `pull_request_stayed_closed`. Reopened and merged -> `rejected`/`strong`/
//! `pull_request_merged_after_close`.

use crate::evaluate::rule::Decision as D;
use super::shared::gh_aw;
use super::{challenge, pull_state, PullState};
use crate::evaluate::case::Case;
use crate::evaluate::outcome::{EvidenceStrength as E, Status as S};
use crate::evaluate::{common, rows, Common, RowSpec, Rule, Verdict};
use crate::runs::output_type::OutputType;

pub(crate) struct ClosePullRequest;

rows! {
    pub(crate) enum ClosePullRequestRow {
        StayedClosed => RowSpec {
            id: "stayed_closed",
            when: "Still closed unmerged at the window's end",
            status: S::Accepted,
            strength: E::Medium,
            signal: "pull_request_stayed_closed",
            seed: "Still closed unmerged after window",
            policy: None,
            decision: D::State,
        },
        ReopenedByPerson => RowSpec {
            id: "reopened_by_person",
            when: "Reopened by a visible non-bot actor (open at the window's end)",
            status: S::Rejected,
            strength: E::Strong,
            signal: "pull_request_reopened",
            seed: "Reopened by visible non-bot",
            policy: None,
            decision: D::PersonAct,
        },
        Reopened => RowSpec {
            id: "reopened",
            when: "Open again; who reopened it is not visible",
            status: S::Rejected,
            strength: E::Medium,
            signal: "pull_request_reopened",
            seed: "Reopened by visible non-bot (actor not visible)",
            policy: None,
            decision: D::Act,
        },
        Merged => RowSpec {
            id: "merged",
            when: "Merged (after reopening)",
            status: S::Rejected,
            strength: E::Strong,
            signal: "pull_request_merged_after_close",
            seed: "Later merged after reopening",
            policy: None,
            decision: D::Act,
        },
        Challenged => RowSpec {
            id: "challenged",
            when: "Still closed, but a visible non-bot comment says the close was premature",
            status: S::Rejected,
            strength: E::Medium,
            signal: "close_challenged",
            seed: "Comment indicates premature close",
            policy: None,
            decision: D::PersonAct,
        },
    }
}

impl Rule for ClosePullRequest {
    type Row = ClosePullRequestRow;
    fn output_type(&self) -> OutputType {
        OutputType::ClosePullRequest
    }
    fn human_check(&self) -> &'static str {
        "Did the PR stay closed, or was the close undone?"
    }

    fn evaluate(&self, case: &Case) -> Result<Verdict, Verdict> {
        let Some(n) = case.output.target_number else { return Err(common(Common::MissingReference)) };
        let PullState { activity, lc, .. } = pull_state(case, n)?;
        let (humans, bots) = case.count_actors(&activity);
        let done = |v: Verdict| v.resolved(true).actors(humans, bots).detail("state_basis", lc.basis);
        if lc.merged {
            return Ok(done(self.row(ClosePullRequestRow::Merged).merged_by(case, &lc).detail("merged_by", lc.merger.login.clone())));
        }
        if !lc.closed {
            let reopen = case.events_inside(activity.events.as_deref(), &["reopened"]).last();
            return Ok(done(match reopen {
                Some(e) if case.actors.classify(&e.actor).is_person() => self.row(ClosePullRequestRow::ReopenedByPerson).event_by(case, e),
                Some(e) => self.row(ClosePullRequestRow::Reopened).event_by(case, e),
                None => super::unattributed(case, self.row(ClosePullRequestRow::Reopened), "open again; no reopened event captured"),
            }));
        }
        // Still closed and not merged: who closed it last, as gh-aw's own summary counts it
        // (see `shared::gh_aw`).
        let done = |v: Verdict| gh_aw::closed_by_bot(done(v), &lc.closer);
        if let Some(a) = challenge(case, &activity) {
            return Ok(done(self.row(ClosePullRequestRow::Challenged).acted(a).detail("challenged_by", a.actor.login.clone())));
        }
        Ok(done(self.row(ClosePullRequestRow::StayedClosed)))
    }
}
