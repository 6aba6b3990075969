//! `create_pull_request_review_comment` (docs/SPEC.md [SPEC-PR]): what a person checks, why, and an example are in [`super::shared::review_comments`],
//! which holds what it shares with the other `reply_to_pull_request_review_comment` and `resolve_pull_request_review_thread` rules.

use crate::evaluate::rule::Decision as D;
use super::shared::review_comments::{comment, judge_comment, CommentRows};
use crate::evaluate::case::Case;
use crate::evaluate::outcome::{EvidenceStrength as E, Status as S};
use crate::evaluate::{common, rows, Common, RowSpec, Rule, Verdict};
use crate::runs::output_type::OutputType;
use crate::time::Instant;

pub(crate) struct CreateReviewComment;

rows! {
    pub(crate) enum CreateReviewCommentRow {
        Resolved => RowSpec {
            id: "resolved",
            when: "Its thread was resolved by a visible non-bot actor (snapshot window)",
            status: S::Accepted,
            strength: E::Strong,
            signal: "thread_resolved",
            seed: "Thread resolved by visible non-bot",
            policy: None,
            decision: D::PersonAct,
        },
        Replied => RowSpec {
            id: "replied",
            when: "A visible non-bot actor replied",
            status: S::Accepted,
            strength: E::Medium,
            signal: "review_comment_replied",
            seed: "Comment replied to by visible non-bot",
            policy: None,
            decision: D::PersonAct,
        },
        FollowupCommit => RowSpec {
            id: "followup_commit",
            when: "A later commit touched the commented file",
            status: S::Accepted,
            strength: E::Medium,
            signal: "followup_commit_touched_file",
            seed: "Follow-up commit touches commented lines or files",
            policy: None,
            decision: D::Act,
        },
        OutdatedMerged => RowSpec {
            id: "outdated_merged",
            when: "Outdated by later changes, and the PR merged",
            status: S::Accepted,
            strength: E::Medium,
            signal: "outdated_by_change_and_merged",
            seed: "Comment marked outdated due to changes and PR merged",
            policy: None,
            decision: D::Act,
        },
        Removed => RowSpec {
            id: "removed",
            when: "Deleted, or minimized",
            status: S::Rejected,
            strength: E::Strong,
            signal: "review_comment_removed",
            seed: "Comment deleted or minimized as abuse/off-topic",
            policy: None,
            decision: D::Act,
        },
        NoResponse => RowSpec {
            id: "no_response",
            when: "PR closed or merged with no reply or resolution",
            status: S::Ignored,
            strength: E::Weak,
            signal: "no_response_before_pr_closed",
            seed: "No reply or no resolution after PR closed or merged",
            policy: None,
            decision: D::State,
        },
        Open => RowSpec {
            id: "open",
            when: "PR open, thread unresolved",
            status: S::Pending,
            strength: E::Weak,
            signal: "thread_open",
            seed: "PR still open and thread unresolved",
            policy: None,
            decision: D::State,
        },
    }
}

impl Rule for CreateReviewComment {
    type Row = CreateReviewCommentRow;
    fn output_type(&self) -> OutputType {
        OutputType::CreatePullRequestReviewComment
    }
    fn human_check(&self) -> &'static str {
        "Did the inline comment lead to resolution, reply, code change, or review action?"
    }
    fn action_time(&self, case: &Case) -> Option<Instant> {
        let id = case.output.target_comment_id?;
        case.output.created_at.or_else(|| comment(case, case.output.target_number, id).ok().and_then(Result::ok).and_then(|c| c.created_at))
    }
    fn evaluate(&self, case: &Case) -> Result<Verdict, Verdict> {
        let Some(id) = case.output.target_comment_id else {
            return Err(common(Common::MissingReference).note("no review comment id recorded (URL or comment_id)"));
        };
        judge_comment(
            self,
            CommentRows {
                resolved: CreateReviewCommentRow::Resolved,
                replied: CreateReviewCommentRow::Replied,
                followup_commit: Some(CreateReviewCommentRow::FollowupCommit),
                outdated_merged: Some(CreateReviewCommentRow::OutdatedMerged),
                removed: CreateReviewCommentRow::Removed,
                no_response: CreateReviewCommentRow::NoResponse,
                open: CreateReviewCommentRow::Open,
            },
            case,
            id,
        )
    }
}

/// The comment, and each commit the PR's captured list names (whether it touched the file).
pub(crate) fn reads_after(o: &crate::runs::SafeOutput, rec: &crate::evaluate::case::Recorded, known: &crate::snapshot::SnapshotIndex) -> Vec<super::Read> {
    let mut out = super::shared::review_comments::reads_after(o, rec, known);
    if let (Some(repo), Some(n)) = (o.target_repo.as_deref(), o.target_number) {
        let list = known.get(&crate::snapshot::paths::rest(repo, &format!("pulls/{n}/commits"))).filter(|e| e.ok());
        out.extend(list.into_iter().flat_map(|e| e.commits()).filter_map(|c| c.sha.as_deref()).map(|sha| super::Read::Target(format!("commits/{sha}"))));
    }
    out
}
