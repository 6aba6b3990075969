//! `submit_pull_request_review` (docs/SPEC.md [SPEC-PR]): what a person checks, why, and an example are in [`super::shared::pull_request_review`],
//! which holds what it shares with the other `dismiss_pull_request_review` rule.

use crate::evaluate::rule::Decision as D;
use super::shared::pull_request_review::{find_review, review_id};
use super::{load_pull, pull_final};
use crate::evaluate::actors::ActorClass;
use crate::evaluate::case::HistoryGap;
use crate::evaluate::case::{ActKind, Case};
use crate::evaluate::outcome::{EvidenceStrength as E, Status as S};
use crate::evaluate::{common, rows, Common, RowSpec, Rule, Verdict};
use crate::runs::output_type::OutputType;
use crate::time::Instant;

pub(crate) struct SubmitReview;

rows! {
    pub(crate) enum SubmitReviewRow {
        ApprovedAndMerged => RowSpec {
            id: "approved_and_merged",
            when: "The review approved and the PR merged",
            status: S::Accepted,
            strength: E::Strong,
            signal: "approved_and_merged",
            seed: "Review approved and PR merged",
            policy: None,
            decision: D::Act,
        },
        Addressed => RowSpec {
            id: "addressed",
            when: "Changes requested, then commits by someone other than the reviewer",
            status: S::Accepted,
            strength: E::Medium,
            signal: "changes_addressed",
            seed: "Changes requested and later addressed by commits",
            policy: None,
            decision: D::Act,
        },
        DismissedByPerson => RowSpec {
            id: "dismissed_by_person",
            when: "The review was dismissed by a visible non-bot actor",
            status: S::Rejected,
            strength: E::Strong,
            signal: "review_dismissed",
            seed: "Review dismissed by visible non-bot",
            policy: None,
            decision: D::PersonAct,
        },
        Dismissed => RowSpec {
            id: "dismissed",
            when: "The review was dismissed by a bot or by someone not captured; by the workflow itself (its own stale review), `ignored`/weak (own act)",
            status: S::Rejected,
            strength: E::Medium,
            signal: "review_dismissed",
            seed: "Review dismissed by visible non-bot (actor not visible)",
            policy: None,
            decision: D::Act,
        },
        Contradicted => RowSpec {
            id: "contradicted",
            when: "A later review by a visible non-bot actor gave the opposite verdict",
            status: S::Rejected,
            strength: E::Medium,
            signal: "review_contradicted",
            seed: "Review contradicted by later human review (rejected or mixed)",
            policy: Some("review_contradicted"),
            decision: D::PersonAct,
        },
        PrClosed => RowSpec {
            id: "pr_closed",
            when: "The PR closed (or merged against the review) without addressing it",
            status: S::Ignored,
            strength: E::Medium,
            signal: "pr_closed_without_addressing",
            seed: "PR closed without addressing review (contextual)",
            policy: Some("review_pr_closed"),
            decision: D::State,
        },
        Pending => RowSpec {
            id: "pending",
            when: "The PR is still open",
            status: S::Pending,
            strength: E::Medium,
            signal: "review_pending",
            seed: "PR still open with review pending",
            policy: None,
            decision: D::State,
        },
        ReviewMissing => RowSpec {
            id: "review_missing",
            when: "No review with the recorded id in the PR's reviews",
            status: S::Unknown,
            strength: E::Weak,
            signal: "review_missing",
            seed: "",
            policy: None,
            decision: D::State,
        },
    }
}

impl Rule for SubmitReview {
    type Row = SubmitReviewRow;
    fn output_type(&self) -> OutputType {
        OutputType::SubmitPullRequestReview
    }
    fn human_check(&self) -> &'static str {
        "Did the submitted review affect the PR lifecycle?"
    }
    fn action_time(&self, case: &Case) -> Option<Instant> {
        let n = case.output.target_number?;
        let id = review_id(case)?;
        case.output.created_at.or_else(|| find_review(case, n, id).ok().flatten().and_then(|r| r.submitted_at))
    }
    fn evaluate(&self, case: &Case) -> Result<Verdict, Verdict> {
        let Some(id) = review_id(case) else { return Err(common(Common::MissingExecutionState).note("no review id recorded")) };
        let Some(n) = case.output.target_number else { return Err(common(Common::MissingReference)) };
        let Some(review) = find_review(case, n, id)? else { return Ok(self.row(SubmitReviewRow::ReviewMissing).detail("review_id", id)) };
        let state = review.state.clone().unwrap_or_default();
        let activity = case.activity(n, true);
        let (h, b) = case.count_actors(&activity);
        let done = |v: Verdict| v.resolved(true).actors(h, b).detail("review_id", id).detail("review_state", state.clone());
        let dismissal = case.events_inside(activity.events.as_deref(), &["review_dismissed"]).find(|e| e.dismissed_review_id.is_none_or(|r| r == id));
        if state == "DISMISSED" && (case.window.is_snapshot() || dismissal.is_some()) {
            // Only a person's dismissal is the repository setting the review aside; a bot's,
            // the workflow's own (gh-aw's `dismiss_pull_request_review` of its stale
            // review), or one whose actor was not captured is weaker.
            let v = match dismissal {
                Some(e) => {
                    let by = case.actors.classify_at(&e.actor, e.created_at);
                    let row = if by.is_person() { SubmitReviewRow::DismissedByPerson } else { SubmitReviewRow::Dismissed };
                    self.row(row).event_by(case, e).detail("dismissed_by", e.actor.login.clone()).detail("dismissed_by_type", by.as_str())
                }
                None => {
                    super::unattributed(case, self.row(SubmitReviewRow::Dismissed), "who dismissed the review was not captured (no review_dismissed event)")
                }
            };
            return Ok(done(v));
        }
        let reviewer = review.user.login.clone().unwrap_or_default().to_lowercase();
        let opposite = |s: &str| match state.as_str() {
            "APPROVED" => s == "CHANGES_REQUESTED",
            "CHANGES_REQUESTED" => s == "APPROVED",
            _ => false,
        };
        if let Some(a) = case.inside(&activity).find(|a| {
            a.class.is_person()
                && a.actor.login.as_deref().is_some_and(|l| l.to_lowercase() != reviewer)
                && matches!(&a.kind, ActKind::Review(s) if opposite(s))
        }) {
            return Ok(done(self.row(SubmitReviewRow::Contradicted).status(case.policy.review_contradicted.status()).acted(a)));
        }
        if state == "CHANGES_REQUESTED" {
            let fix = case
                .inside(&activity)
                .find(|a| a.kind == ActKind::Commit && a.actor.login.as_deref().is_none_or(|l| l.to_lowercase() != reviewer) && a.class != ActorClass::Unknown);
            if let Some(a) = fix {
                return Ok(done(self.row(SubmitReviewRow::Addressed).acted(a)));
            }
        }
        // The review was found; what is missing is the PR's own state.
        let (_, pr) = load_pull(case, n).map_err(|v| v.detail("review_id", id).detail("review_state", state.clone()))?;
        let lc = case.lifecycle(&pull_final(pr), activity.events.as_deref()).map_err(HistoryGap::verdict)?;
        if lc.merged && state == "APPROVED" {
            return Ok(done(self.row(SubmitReviewRow::ApprovedAndMerged).merged_by(case, &lc)));
        }
        if lc.closed {
            return Ok(done(self.row(SubmitReviewRow::PrClosed).status(case.policy.review_pr_closed.status()).closed_by(case, &lc)));
        }
        Ok(done(self.row(SubmitReviewRow::Pending)))
    }
}
