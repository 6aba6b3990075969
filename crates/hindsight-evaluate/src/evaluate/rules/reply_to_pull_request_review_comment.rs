//! `reply_to_pull_request_review_comment` (docs/SPEC.md [SPEC-PR]): what a person checks, why, and an example are in [`super::shared::review_comments`],
//! which holds what it shares with the other `create_pull_request_review_comment` and `resolve_pull_request_review_thread` rules.

use crate::evaluate::rule::Decision as D;
use super::create_pull_request_review_comment::CreateReviewComment;
use super::shared::review_comments::{judge_comment, CommentRows};
use crate::evaluate::case::Case;
use crate::evaluate::outcome::{EvidenceStrength as E, Status as S};
use crate::evaluate::{common, rows, Common, RowSpec, Rule, Verdict};
use crate::runs::output_type::OutputType;
use crate::time::Instant;

pub(crate) struct ReplyToReviewComment;

rows! {
    pub(crate) enum ReplyToReviewCommentRow {
        Resolved => RowSpec {
            id: "resolved",
            when: "The thread was resolved after the reply by a visible non-bot actor (snapshot window)",
            status: S::Accepted,
            strength: E::Strong,
            signal: "thread_resolved",
            seed: "Thread resolved after reply",
            policy: None,
            decision: D::PersonAct,
        },
        Replied => RowSpec {
            id: "replied",
            when: "A visible non-bot actor continued the thread",
            status: S::Accepted,
            strength: E::Medium,
            signal: "review_comment_replied",
            seed: "Visible non-bot replies positively or continues constructively",
            policy: None,
            decision: D::PersonAct,
        },
        Removed => RowSpec {
            id: "removed",
            when: "The reply was deleted or minimized",
            status: S::Rejected,
            strength: E::Strong,
            signal: "review_comment_removed",
            seed: "Reply is deleted or minimized",
            policy: None,
            decision: D::Act,
        },
        NoResponse => RowSpec {
            id: "no_response",
            when: "Thread unresolved and the PR closed without action",
            status: S::Ignored,
            strength: E::Weak,
            signal: "no_response_before_pr_closed",
            seed: "Thread remains unresolved and PR closes without action (ignored or rejected)",
            policy: Some("unresolved_reply_pr_closed"),
            decision: D::State,
        },
        Open => RowSpec { id: "open", when: "PR still open", status: S::Pending, strength: E::Weak, signal: "thread_open", seed: "PR still open", policy: None, decision: D::State },
    }
}

impl Rule for ReplyToReviewComment {
    type Row = ReplyToReviewCommentRow;
    fn output_type(&self) -> OutputType {
        OutputType::ReplyToPullRequestReviewComment
    }
    fn human_check(&self) -> &'static str {
        "Did the reply advance or resolve the thread?"
    }
    fn action_time(&self, case: &Case) -> Option<Instant> {
        CreateReviewComment.action_time(case)
    }
    fn evaluate(&self, case: &Case) -> Result<Verdict, Verdict> {
        let Some(id) = case.output.target_comment_id else {
            return Err(common(Common::MissingReference).note("no id recorded for the reply (URL or metadata comment_id)"));
        };
        judge_comment(
            self,
            CommentRows {
                resolved: ReplyToReviewCommentRow::Resolved,
                replied: ReplyToReviewCommentRow::Replied,
                followup_commit: None,
                outdated_merged: None,
                removed: ReplyToReviewCommentRow::Removed,
                no_response: ReplyToReviewCommentRow::NoResponse,
                open: ReplyToReviewCommentRow::Open,
            },
            case,
            id,
        )
    }
}
