//! `mark_pull_request_as_ready_for_review`: docs/SPEC.md [SPEC-PR], pull requests.
//!
//! ## What a person checks
//! Did readiness lead to actual review or merge activity?
//!
//! ## Why
//! Marking a draft ready asks for review; a review by a visible non-bot actor strictly
//! after the mark, or a merge, shows it worked. A review at the same instant (whatever its
//! time zone) is not a response. Converted back to draft by a person undoes it. Closed
//! unmerged with no review is, by policy `ready_closed_unreviewed`, rejected (default) or
//! ignored; open with no review is pending until `ignore_after_hours` (default
//! [`DEFAULT_IGNORE_AFTER_HOURS`](crate::evaluate::policy::DEFAULT_IGNORE_AFTER_HOURS), 7 days), then ignored.
//!
//! ## Example
//! Marked ready at T, approved by a maintainer at T+1d -> `accepted`/`strong`/
//! `reviewed_after_ready` from the 7d window on.

use crate::evaluate::rule::Decision as D;
use super::{capture_problem, pull_final};
use crate::evaluate::case::HistoryGap;
use crate::evaluate::case::{ActKind, Case};
use crate::evaluate::outcome::{EvidenceStrength as E, Status as S};
use crate::evaluate::{common, rows, Common, RowSpec, Rule, Verdict};
use crate::runs::output_type::OutputType;

pub(crate) struct MarkReady;

rows! {
    pub(crate) enum MarkPullRequestAsReadyForReviewRow {
        Reviewed => RowSpec {
            id: "reviewed",
            when: "Reviewed by a visible non-bot actor after the mark",
            status: S::Accepted,
            strength: E::Strong,
            signal: "reviewed_after_ready",
            seed: "Reviewed by visible non-bot after mark-ready",
            policy: None,
            decision: D::PersonAct,
        },
        Merged => RowSpec {
            id: "merged",
            when: "Merged after the mark",
            status: S::Accepted,
            strength: E::Strong,
            signal: "merged_after_ready",
            seed: "Merged after mark-ready",
            policy: None,
            decision: D::Act,
        },
        BackToDraft => RowSpec {
            id: "back_to_draft",
            when: "Converted back to draft by a visible non-bot actor",
            status: S::Rejected,
            strength: E::Strong,
            signal: "converted_to_draft",
            seed: "Converted back to draft by visible non-bot",
            policy: None,
            decision: D::PersonAct,
        },
        ClosedUnreviewed => RowSpec {
            id: "closed_unreviewed",
            when: "Closed unmerged with no review",
            status: S::Rejected,
            strength: E::Medium,
            signal: "closed_without_review",
            seed: "Closed unmerged with no review (rejected or ignored)",
            policy: Some("ready_closed_unreviewed"),
            decision: D::Act,
        },
        NoReview => RowSpec {
            id: "no_review",
            when: "Open with no review after ignore_after_hours",
            status: S::Ignored,
            strength: E::Weak,
            signal: "no_review",
            seed: "Open with no review after window (pending or ignored)",
            policy: Some("ignore_after_hours"),
            decision: D::State,
        },
        AwaitingReview => RowSpec {
            id: "awaiting_review",
            when: "Open with no review yet",
            status: S::Pending,
            strength: E::Weak,
            signal: "awaiting_review",
            seed: "Open with no review after window (pending or ignored)",
            policy: Some("ignore_after_hours"),
            decision: D::State,
        },
    }
}

impl Rule for MarkReady {
    type Row = MarkPullRequestAsReadyForReviewRow;
    fn output_type(&self) -> OutputType {
        OutputType::MarkPullRequestAsReadyForReview
    }
    fn human_check(&self) -> &'static str {
        "Did readiness lead to actual review or merge activity?"
    }
    fn evaluate(&self, case: &Case) -> Result<Verdict, Verdict> {
        let Some(n) = case.output.target_number else { return Err(common(Common::MissingReference)) };
        let activity = case.activity(n, true);
        let (h, b) = case.count_actors(&activity);
        let done = |v: Verdict| v.resolved(true).actors(h, b);
        if let Some(a) = super::person_act(case, &activity, |a| matches!(a.kind, ActKind::Review(_))) {
            return Ok(done(self.row(MarkPullRequestAsReadyForReviewRow::Reviewed).acted(a).detail("reviewed_by", a.actor.login.clone())));
        }
        let look = case.lookup_entry(&crate::snapshot::paths::numbered("pulls/", n, ""));
        let entry = match look {
            Ok(entry) => entry,
            Err(_) if activity.any_read() => return Ok(common(Common::TargetNotCaptured).note("reviews captured, but not the PR's state")),
            Err(m) => return Ok(super::missing(case, m)),
        };
        if let Some(v) = capture_problem(&activity, &["reviews", "timeline", "events"]) {
            return Ok(v);
        }
        let lc = case.lifecycle(&pull_final(entry.pull()), activity.events.as_deref()).map_err(HistoryGap::verdict)?;
        if lc.merged {
            return Ok(done(self.row(MarkPullRequestAsReadyForReviewRow::Merged).merged_by(case, &lc)));
        }
        let draft = case.events_inside(activity.events.as_deref(), &["convert_to_draft"]).find(|e| case.actors.classify(&e.actor).is_person());
        if let Some(e) = draft {
            return Ok(done(self.row(MarkPullRequestAsReadyForReviewRow::BackToDraft).event_by(case, e)));
        }
        if lc.closed {
            return Ok(done(
                self.row(MarkPullRequestAsReadyForReviewRow::ClosedUnreviewed).status(case.policy.ready_closed_unreviewed.status()).closed_by(case, &lc),
            ));
        }
        Ok(done(self.row(if case.long_enough() { MarkPullRequestAsReadyForReviewRow::NoReview } else { MarkPullRequestAsReadyForReviewRow::AwaitingReview })))
    }
}
