//! `create_pull_request`: docs/SPEC.md [SPEC-PR], pull requests.
//!
//! ## What a person checks
//! Was the PR merged, closed unmerged, reviewed, or is it still pending?
//!
//! ## Why
//! A merge by the repository is the strongest acceptance a code change can get; a PR that
//! merely still exists is not acceptance ([SPEC-EXISTS]), so an open PR is `pending` until
//! someone acts on it, and `ignored` once it has sat untouched for the policy's
//! `ignore_after_hours` (default [`DEFAULT_IGNORE_AFTER_HOURS`](crate::evaluate::policy::DEFAULT_IGNORE_AFTER_HOURS), 7 days). Activity counts only when it comes strictly after the PR was
//! opened and from someone other than the workflow itself. When PR creation fell back to
//! an issue (the recorded target is an issue URL, or `fallback: "issue"`), the output is
//! evaluated by `create_issue`'s rows and marked `fallback_subtype = issue`.
//!
//! A merged PR that a later commit (`This reverts commit <sha>`) or a merged `Revert "<title>"`
//! PR undoes, inside the window and within the policy's `durability_hours` of the merge
//! (default [`DEFAULT_DURABILITY_HOURS`](crate::evaluate::policy::DEFAULT_DURABILITY_HOURS), 30 days), is not durable: rejected
//! (`reverted_after_merge`), accepted at 24h and rejected at 30d when the revert came in
//! between.
//!
//! ## Example
//! A PR opened at 10:00 and merged 30 hours later is `pending` at 1h and 24h and
//! `accepted`/`strong`/`pull_request_merged` at 7d, with `time_to_outcome_hours = 30`.

use crate::evaluate::rule::Decision as D;
use super::shared::gh_aw;
use super::{load_pull, pull_final};
use crate::evaluate::actors::ActorClass;
use crate::evaluate::case::HistoryGap;
use crate::evaluate::case::{ActKind, Case};
use crate::evaluate::outcome::{EvidenceStrength as E, Status as S};
use crate::evaluate::{common, rows, Common, RowSpec, Rule, Verdict};
use crate::runs::output_type::OutputType;
use crate::time::Instant;

pub(crate) struct CreatePullRequest;

rows! {
    pub(crate) enum CreatePullRequestRow {
        Merged => RowSpec {
            id: "merged",
            when: "Merged by the window's end",
            status: S::Accepted,
            strength: E::Strong,
            signal: "pull_request_merged",
            seed: "Merged",
            policy: None,
            decision: D::Act,
        },
        MergedByWorkflow => RowSpec {
            id: "merged_by_workflow",
            when: "Merged by the workflow's own identity",
            status: S::Ignored,
            strength: E::Weak,
            signal: "pull_request_merged_by_workflow",
            seed: "SPEC-ACTORS: a signal counts when it comes from someone other than the workflow",
            policy: Some("own_act_counts"),
            decision: D::State,
        },
        MergedByRequester => RowSpec {
            id: "merged_by_requester",
            when: "Merged by the requester: the person whose account the agent opened the PR under, after the agent's own acts",
            status: S::Accepted,
            strength: E::Strong,
            signal: "pull_request_merged_by_requester",
            seed: "Merged (SPEC-ACTORS: the requester is a person, not the workflow)",
            policy: Some("requester_acts"),
            decision: D::Act,
        },
        ClosedByRequester => RowSpec {
            id: "closed_by_requester",
            when: "Closed unmerged by the requester, after the agent's own acts",
            status: S::Rejected,
            strength: E::Strong,
            signal: "pull_request_closed_by_requester",
            seed: "Closed unmerged (SPEC-ACTORS: the requester is a person, not the workflow)",
            policy: Some("requester_acts"),
            decision: D::Act,
        },
        ClosedByWorkflow => RowSpec {
            id: "closed_by_workflow",
            when: "Closed unmerged by the workflow's own identity",
            status: S::Ignored,
            strength: E::Weak,
            signal: "pull_request_closed_by_workflow",
            seed: "SPEC-ACTORS: a signal counts when it comes from someone other than the workflow",
            policy: Some("own_act_counts"),
            decision: D::State,
        },
        Reverted => RowSpec {
            id: "reverted",
            when: "Merged, then reverted inside the window (within durability_hours of the merge)",
            status: S::Rejected,
            strength: E::Strong,
            signal: "reverted_after_merge",
            seed: "Merged then reverted within durability window",
            policy: Some("durability_hours"),
            decision: D::Act,
        },
        ApprovedOpen => RowSpec {
            id: "approved_open",
            when: "Open, approved by a visible non-bot reviewer, not merged yet",
            status: S::Pending,
            strength: E::Medium,
            signal: "pull_request_approved",
            seed: "Approved by visible non-bot but not merged yet",
            policy: None,
            decision: D::State,
        },
        ReviewActivity => RowSpec {
            id: "review_activity",
            when: "Open, with reviews or comments from a visible non-bot actor",
            status: S::Pending,
            strength: E::Medium,
            signal: "pull_request_review_activity",
            seed: "Open with review activity",
            policy: None,
            decision: D::State,
        },
        ClosedUnmerged => RowSpec {
            id: "closed_unmerged",
            when: "Closed without merge",
            status: S::Rejected,
            strength: E::Strong,
            signal: "pull_request_closed_unmerged",
            seed: "Closed unmerged",
            policy: None,
            decision: D::Act,
        },
        NoActivity => RowSpec {
            id: "no_activity",
            when: "Open with no non-bot activity after ignore_after_hours",
            status: S::Ignored,
            strength: E::Weak,
            signal: "no_activity",
            seed: "Open with no activity after long window",
            policy: Some("ignore_after_hours"),
            decision: D::State,
        },
        ExistsOnly => RowSpec {
            id: "exists_only",
            when: "Open with no non-bot activity yet, window shorter than ignore_after_hours (or activity not captured)",
            status: S::Pending,
            strength: E::Weak,
            signal: "target_exists_only",
            seed: "SPEC-EXISTS: target exists only",
            policy: Some("ignore_after_hours"),
            decision: D::State,
        },
    }
}

impl CreatePullRequest {
    fn fell_back_to_issue(case: &Case) -> bool {
        case.output.target_kind.as_deref() == Some("issue") || case.recorded.expected().get("fallback").and_then(|f| f.as_str()) == Some("issue")
    }
}

impl Rule for CreatePullRequest {
    type Row = CreatePullRequestRow;
    fn output_type(&self) -> OutputType {
        OutputType::CreatePullRequest
    }
    fn human_check(&self) -> &'static str {
        "Was the PR merged, closed unmerged, reviewed, or still pending? (A PR that fell back to an issue is judged as create_issue.)"
    }

    fn action_time(&self, case: &Case) -> Option<Instant> {
        if Self::fell_back_to_issue(case) {
            return super::create_issue::CreateIssue.action_time(case);
        }
        case.output
            .created_at
            .or_else(|| case.lookup_entry(&crate::snapshot::paths::numbered("pulls/", case.output.target_number?, "")).ok()?.pull().created_at)
    }

    fn evaluate(&self, case: &Case) -> Result<Verdict, Verdict> {
        if Self::fell_back_to_issue(case) {
            let (Ok(mut v) | Err(mut v)) = Rule::evaluate(&super::create_issue::CreateIssue, case);
            v.rule_id = format!("create_pull_request/fallback_issue>{}", v.rule_id).into();
            return Ok(v.detail("fallback_subtype", "issue"));
        }
        let Some(n) = case.output.target_number else { return Err(common(Common::MissingReference)) };
        let (_, pr) = load_pull(case, n)?;
        let case = case.with_author(&pr.user);
        let activity = case.activity(n, true);
        let (humans, bots) = case.count_actors(&activity);
        let lc = case.lifecycle(&pull_final(pr), activity.events.as_deref()).map_err(HistoryGap::verdict)?;
        let v = if lc.merged {
            if let Some(r) = super::shared::durability::find_revert(&case, n, pr) {
                let v = self
                    .row(CreatePullRequestRow::Reverted)
                    .resolved(true)
                    .actors(humans, bots)
                    .at(r.at).by_actor(&case, &r.by, r.at)
                    .detail("reverted_by", r.describe())
                    .detail("merged_at", lc.merged_at.map(|t| crate::time::format(&t)));
                return Ok(gh_aw::resolution_sec(v, &case, lc.merged_at.or(lc.closed_at)));
            }
            let class = case.actors.classify_at(&lc.merger, lc.merged_at);
            let v = match class {
                ActorClass::SameWorkflow => super::own_act(&case, self.row(CreatePullRequestRow::Merged), self.row(CreatePullRequestRow::MergedByWorkflow)),
                ActorClass::Requester => super::requester_act(&case, self.row(CreatePullRequestRow::MergedByRequester)),
                ActorClass::Unknown => super::unattributed(&case, self.row(CreatePullRequestRow::Merged), "who merged it was not captured"),
                _ => self.row(CreatePullRequestRow::Merged),
            };
            v.merged_by(&case, &lc).detail("merged", true).detail("merged_by", lc.merger.login.clone()).detail("merged_by_type", class.as_str())
        } else if lc.closed {
            let class = case.actors.classify_at(&lc.closer, lc.closed_at);
            let v = match class {
                ActorClass::SameWorkflow => {
                    super::own_act(&case, self.row(CreatePullRequestRow::ClosedUnmerged), self.row(CreatePullRequestRow::ClosedByWorkflow))
                }
                ActorClass::Requester => super::requester_act(&case, self.row(CreatePullRequestRow::ClosedByRequester)),
                ActorClass::Unknown => super::unattributed(&case, self.row(CreatePullRequestRow::ClosedUnmerged), "who closed it was not captured"),
                _ => self.row(CreatePullRequestRow::ClosedUnmerged),
            };
            v.closed_by(&case, &lc).detail("merged", false).detail("closed_by", lc.closer.login.clone()).detail("closed_by_type", class.as_str())
        } else {
            if let Some(v) = super::any_capture_problem(&activity) {
                return Err(v);
            }
            let human = |k: &dyn Fn(&ActKind) -> bool| super::person_act(&case, &activity, |a| k(&a.kind)).map(|a| a.at);
            if let Some(at) = human(&|k| matches!(k, ActKind::Review(s) if s == "APPROVED")) {
                self.row(CreatePullRequestRow::ApprovedOpen).at(at)
            } else if let Some(at) = human(&|k| matches!(k, ActKind::Review(_) | ActKind::Comment | ActKind::ReviewComment)) {
                self.row(CreatePullRequestRow::ReviewActivity).at(at)
            } else if activity.any_read() && case.long_enough() {
                self.row(CreatePullRequestRow::NoActivity)
            } else {
                let v = self.row(CreatePullRequestRow::ExistsOnly);
                if activity.any_read() {
                    v
                } else {
                    v.note("no activity lists captured: cannot tell ignored from engaged")
                }
            }
        };
        // What gh-aw's own summary counts (see `shared::gh_aw`): time to the merge or close,
        // and, for a merged PR accepted, whether no person touched it.
        let v = if lc.merged || lc.closed { gh_aw::resolution_sec(v, &case, lc.merged_at.or(lc.closed_at)) } else { v };
        let v = if lc.merged && v.status == S::Accepted { v.detail("zero_touch", gh_aw::zero_touch(&case, n, &pr.user)) } else { v };
        Ok(v.resolved(true).actors(humans, bots).detail("state_basis", lc.basis))
    }
}
