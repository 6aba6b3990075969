//! Review threads: `create_pull_request_review_comment`,
//! `reply_to_pull_request_review_comment`, `resolve_pull_request_review_thread` (seed 000
//! §7, Pull Requests). Comments come from REST (`pulls/N/comments`,
//! `pulls/comments/ID`); thread state only from GraphQL
//! (`graphql/repos/OWNER/REPO/pulls/N/review_threads`, shape in `schemas/graphql.md`).
//!
//! ## What a person checks
//! Did the inline comment lead to resolution, a reply, a code change or review action? Did
//! the reply advance the thread? Did the resolved thread stay resolved?
//!
//! ## Why
//! A thread resolved by a visible non-bot actor is the reviewer's acceptance; a reply from
//! one is engagement; a later commit touching the commented file is the code changing in
//! response (when `commits/SHA` with its `files` was captured). GraphQL gives no time for
//! a resolution, so thread state counts only in the snapshot window; earlier windows say
//! so rather than borrow it.
//!
//! ## Example
//! Inline comment at T; the author replies at T+2h and resolves the thread -> `accepted`/
//! `medium`/`review_comment_replied` at 24h, `accepted`/`strong`/`thread_resolved` in the
//! snapshot window.

use serde_json::Value;

use super::{load_pull, pull_final};
use crate::evaluate::actors::ActorClass;
use crate::evaluate::case::HistoryGap;
use crate::evaluate::case::{Case, Lookup, Placement};
use crate::evaluate::outcome::{EvidenceStrength as E, Status as S};
use crate::evaluate::{common, rows, Common, RowId, RowSpec, Rule, Verdict};
use crate::json::str_at;
use crate::snapshot::github::{list, Comment, Commit};
use crate::snapshot::graphql::{nodes, ReviewThread};
use crate::time::Instant;

/// The review comment (REST), or why it cannot be read. `Ok(None)`: deleted.
fn comment(case: &Case, n: Option<i64>, id: i64) -> Result<Option<(Comment, Value)>, Verdict> {
    match case.lookup(&format!("pulls/comments/{id}")) {
        Lookup::Found(v) => return Ok(Some((Comment::from(v), v.clone()))),
        Lookup::Gone(_) => return Ok(None),
        l @ Lookup::Failed(_) => return Err(super::missing(case, &l)),
        Lookup::NotCaptured => {}
    }
    if let Some(n) = n {
        if let Some(v) = case.lookup(&format!("pulls/{n}/comments")).found() {
            if let Some(c) = v.as_array().and_then(|a| a.iter().find(|c| crate::json::int_at(c, "id") == Some(id))) {
                return Ok(Some((Comment::from(c), c.clone())));
            }
        }
    }
    Err(common(Common::TargetNotCaptured).detail("comment_id", id))
}

/// Threads of PR `n`, or of every captured PR of the repository when `n` is unknown.
fn threads(case: &Case, n: Option<i64>) -> Vec<(i64, ReviewThread)> {
    let Some(repo) = case.repo() else { return vec![] };
    let mut out = Vec::new();
    let prefix = format!("graphql/repos/{repo}/pulls/");
    let mut paths: Vec<&String> = case.index.entries.keys().filter(|k| k.starts_with(&prefix) && k.ends_with("/review_threads")).collect();
    paths.sort();
    for p in paths {
        let num = p[prefix.len()..].split('/').next().and_then(|x| x.parse::<i64>().ok());
        let Some(num) = num else { continue };
        if n.is_some_and(|n| n != num) {
            continue;
        }
        if let Some(Lookup::Found(v)) = Some(case.lookup_path(p)) {
            out.extend(nodes(Some(v)).into_iter().map(|t| (num, ReviewThread::from(t))));
        }
    }
    out
}

/// Replies to `id` by visible non-bot actors inside the window (REST `in_reply_to_id`,
/// or later comments of its GraphQL thread).
fn person_reply(case: &Case, n: i64, id: i64, thread: Option<&ReviewThread>) -> Option<Option<Instant>> {
    let rest = case.lookup(&format!("pulls/{n}/comments")).found().map(|v| list(v, Comment::from)).unwrap_or_default();
    let r = rest
        .iter()
        .filter(|c| c.in_reply_to_id == Some(id) || (thread.is_some_and(|t| t.holds_comment(c.id.unwrap_or(-1))) && c.id != Some(id)))
        .find(|c| case.actors.classify(&c.user) == ActorClass::VisibleNonBot && case.place(c.created_at) == Placement::Inside)
        .map(|c| c.created_at);
    r.or_else(|| {
        thread?
            .comments
            .iter()
            .filter(|c| c.id != Some(id))
            .find(|c| case.actors.classify(&c.author) == ActorClass::VisibleNonBot && case.place(c.created_at) == Placement::Inside)
            .map(|c| c.created_at)
    })
}

/// A commit after T, inside the window, whose captured file list touches `path`.
fn touching_commit(case: &Case, n: i64, path: &str) -> Option<Option<Instant>> {
    let v = case.lookup(&format!("pulls/{n}/commits")).found()?;
    list(v, Commit::from).into_iter().find_map(|c| {
        let at = c.committed_at.or(c.authored_at);
        if case.place(at) != Placement::Inside {
            return None;
        }
        let detail = case.lookup(&format!("commits/{}", c.sha.as_deref()?)).found()?;
        let touches = detail.get("files").and_then(Value::as_array)?.iter().any(|f| str_at(f, "filename") == Some(path));
        touches.then_some(at)
    })
}

pub struct CreateReviewComment;

rows! {
    pub enum CreateReviewCommentRow {
        Resolved => RowSpec {
            id: "resolved",
            when: "Its thread was resolved by a visible non-bot actor (snapshot window)",
            status: S::Accepted,
            strength: E::Strong,
            signal: "thread_resolved",
            seed: "Thread resolved by visible non-bot",
            policy: None,
        },
        Replied => RowSpec {
            id: "replied",
            when: "A visible non-bot actor replied",
            status: S::Accepted,
            strength: E::Medium,
            signal: "review_comment_replied",
            seed: "Comment replied to by visible non-bot",
            policy: None,
        },
        FollowupCommit => RowSpec {
            id: "followup_commit",
            when: "A later commit touched the commented file",
            status: S::Accepted,
            strength: E::Medium,
            signal: "followup_commit_touched_file",
            seed: "Follow-up commit touches commented lines or files",
            policy: None,
        },
        OutdatedMerged => RowSpec {
            id: "outdated_merged",
            when: "Outdated by later changes, and the PR merged",
            status: S::Accepted,
            strength: E::Medium,
            signal: "outdated_by_change_and_merged",
            seed: "Comment marked outdated due to changes and PR merged",
            policy: None,
        },
        Removed => RowSpec {
            id: "removed",
            when: "Deleted, or minimized",
            status: S::Rejected,
            strength: E::Strong,
            signal: "review_comment_removed",
            seed: "Comment deleted or minimized as abuse/off-topic",
            policy: None,
        },
        NoResponse => RowSpec {
            id: "no_response",
            when: "PR closed or merged with no reply or resolution",
            status: S::Ignored,
            strength: E::Weak,
            signal: "no_response_before_pr_closed",
            seed: "No reply or no resolution after PR closed or merged",
            policy: None,
        },
        Open => RowSpec {
            id: "open",
            when: "PR open, thread unresolved",
            status: S::Pending,
            strength: E::Weak,
            signal: "thread_open",
            seed: "PR still open and thread unresolved",
            policy: None,
        },
    }
}

/// Shared course of the comment and reply rules.
/// The rows the shared review-comment verdict answers with, in a rule's own row type.
struct CommentRows<R> {
    resolved: R,
    replied: R,
    /// Only for the agent's own comments: a later commit touching the file answers them.
    followup_commit: Option<R>,
    outdated_merged: Option<R>,
    removed: R,
    no_response: R,
    open: R,
}

fn judge_comment<R: Rule>(rule: &R, rows: CommentRows<R::Row>, case: &Case, id: i64) -> Result<Verdict, Verdict> {
    let n = case.output.target_number;
    let Some((c, raw)) = comment(case, n, id)? else { return Ok(rule.row(rows.removed).resolved(true).detail("comment_id", id)) };
    let Some(n) = n.or_else(|| str_at(&raw, "pull_request_url").and_then(|u| u.rsplit('/').next()).and_then(|x| x.parse().ok())) else {
        return Err(common(Common::MissingReference).note("the comment's PR is not recorded"));
    };
    let case = case.with_workflow_actor(c.user.login.as_deref());
    let all = threads(&case, Some(n));
    let thread = all.iter().map(|(_, t)| t).find(|t| t.holds_comment(id));
    if thread.and_then(|t| t.comments.iter().find(|x| x.id == Some(id))).and_then(|x| x.minimized) == Some(true) || c.minimized == Some(true) {
        return Ok(rule.row(rows.removed).resolved(true).note("minimized"));
    }
    let snap = case.window.is_snapshot();
    if snap {
        if let Some(t) = thread.filter(|t| t.resolved == Some(true)) {
            if case.actors.classify(&t.resolved_by) == ActorClass::VisibleNonBot {
                return Ok(rule.row(rows.resolved).resolved(true).detail("resolved_by", t.resolved_by.login.clone()));
            }
        }
    }
    if let Some(at) = person_reply(&case, n, id, thread) {
        return Ok(rule.row(rows.replied).resolved(true).at(at));
    }
    if let Some(row) = rows.followup_commit {
        if let Some(at) = c.path.as_deref().and_then(|p| touching_commit(&case, n, p)) {
            return Ok(rule.row(row).resolved(true).at(at));
        }
    }
    let (_, pr) = load_pull(&case, n)?;
    let activity = case.activity(n, true);
    let lc = case.lifecycle(&pull_final(&pr), activity.events.as_deref()).map_err(HistoryGap::verdict)?;
    let outdated = thread.and_then(|t| t.outdated).unwrap_or(false)
        || (raw.get("position").is_some_and(Value::is_null) && raw.get("original_position").is_some_and(|p| !p.is_null()));
    let note = |v: Verdict| if snap { v } else { v.note("thread resolution has no timestamp; it is judged only in the snapshot window") };
    if lc.closed {
        if let Some(row) = rows.outdated_merged.filter(|_| lc.merged && outdated) {
            return Ok(note(rule.row(row).resolved(true).at(lc.merged_at)));
        }
        let v = rule.row(rows.no_response).resolved(true).at(lc.closed_at);
        return Ok(note(match rows.no_response.spec().policy {
            Some(_) => v.status(case.policy.unresolved_reply_pr_closed.status()),
            None => v,
        }));
    }
    Ok(note(rule.row(rows.open).resolved(true)))
}

impl Rule for CreateReviewComment {
    type Row = CreateReviewCommentRow;
    fn output_type(&self) -> &'static str {
        "create_pull_request_review_comment"
    }
    fn human_check(&self) -> &'static str {
        "Did the inline comment lead to resolution, reply, code change, or review action?"
    }
    fn action_time(&self, case: &Case) -> Option<Instant> {
        let id = case.output.target_comment_id?;
        case.output.created_at.or_else(|| comment(case, case.output.target_number, id).ok().flatten().and_then(|(c, _)| c.created_at))
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

pub struct ReplyToReviewComment;

rows! {
    pub enum ReplyToReviewCommentRow {
        Resolved => RowSpec {
            id: "resolved",
            when: "The thread was resolved after the reply by a visible non-bot actor (snapshot window)",
            status: S::Accepted,
            strength: E::Strong,
            signal: "thread_resolved",
            seed: "Thread resolved after reply",
            policy: None,
        },
        Replied => RowSpec {
            id: "replied",
            when: "A visible non-bot actor continued the thread",
            status: S::Accepted,
            strength: E::Medium,
            signal: "review_comment_replied",
            seed: "Visible non-bot replies positively or continues constructively",
            policy: None,
        },
        Removed => RowSpec {
            id: "removed",
            when: "The reply was deleted or minimized",
            status: S::Rejected,
            strength: E::Strong,
            signal: "review_comment_removed",
            seed: "Reply is deleted or minimized",
            policy: None,
        },
        NoResponse => RowSpec {
            id: "no_response",
            when: "Thread unresolved and the PR closed without action",
            status: S::Ignored,
            strength: E::Weak,
            signal: "no_response_before_pr_closed",
            seed: "Thread remains unresolved and PR closes without action (ignored or rejected)",
            policy: Some("unresolved_reply_pr_closed"),
        },
        Open => RowSpec { id: "open", when: "PR still open", status: S::Pending, strength: E::Weak, signal: "thread_open", seed: "PR still open", policy: None },
    }
}

impl Rule for ReplyToReviewComment {
    type Row = ReplyToReviewCommentRow;
    fn output_type(&self) -> &'static str {
        "reply_to_pull_request_review_comment"
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

pub struct ResolveThread;

rows! {
    pub enum ResolveThreadRow {
        MergedAfter => RowSpec {
            id: "merged_after",
            when: "Still resolved, and the PR merged",
            status: S::Accepted,
            strength: E::Strong,
            signal: "resolved_and_merged",
            seed: "PR merged after resolution",
            policy: None,
        },
        StillResolved => RowSpec {
            id: "still_resolved",
            when: "Still resolved",
            status: S::Accepted,
            strength: E::Medium,
            signal: "thread_still_resolved",
            seed: "Thread still resolved after window",
            policy: None,
        },
        Unresolved => RowSpec {
            id: "unresolved",
            when: "Unresolved again (GraphQL does not say by whom)",
            status: S::Rejected,
            strength: E::Medium,
            signal: "thread_unresolved",
            seed: "Thread reopened by visible non-bot (actor not visible)",
            policy: None,
        },
        PrClosed => RowSpec {
            id: "pr_closed",
            when: "Still resolved, but the PR closed unmerged",
            status: S::Ignored,
            strength: E::Medium,
            signal: "resolved_pr_closed_unmerged",
            seed: "PR closed unmerged after resolution (contextual)",
            policy: Some("resolved_pr_closed"),
        },
        Inaccessible => RowSpec {
            id: "inaccessible",
            when: "The thread is not in any captured review_threads",
            status: S::Unknown,
            strength: E::None,
            signal: "thread_inaccessible",
            seed: "Thread inaccessible",
            policy: None,
        },
    }
}

impl Rule for ResolveThread {
    type Row = ResolveThreadRow;
    fn output_type(&self) -> &'static str {
        "resolve_pull_request_review_thread"
    }
    fn human_check(&self) -> &'static str {
        "Did the thread stay resolved?"
    }
    fn targets_number(&self) -> bool {
        false
    }
    fn evaluate(&self, case: &Case) -> Result<Verdict, Verdict> {
        let p = &case.recorded.payload;
        let Some(tid) =
            str_at(p, "thread_id").map(str::to_string).or_else(|| case.recorded.expected.get("metadata.thread_id").and_then(Value::as_str).map(str::to_string))
        else {
            return Err(common(Common::MissingReference).note("no thread id recorded"));
        };
        let found = threads(case, case.output.target_number).into_iter().find(|(_, t)| t.node_id.as_deref() == Some(tid.as_str()));
        let Some((n, t)) = found else { return Ok(self.row(ResolveThreadRow::Inaccessible).detail("thread_id", tid)) };
        if !case.window.is_snapshot() {
            return Err(common(Common::HistoryMissing).resolved(true).note("thread resolution has no timestamp; only the snapshot window can be judged"));
        }
        if t.resolved != Some(true) {
            return Ok(self.row(ResolveThreadRow::Unresolved).resolved(true));
        }
        let pr = load_pull(case, n).ok().map(|(_, p)| p);
        Ok(match pr.map(|p| (p.merged == Some(true), p.state.as_deref() == Some("closed"))) {
            Some((true, _)) => self.row(ResolveThreadRow::MergedAfter).resolved(true),
            Some((false, true)) => self.row(ResolveThreadRow::PrClosed).status(case.policy.resolved_pr_closed.status()).resolved(true),
            _ => self.row(ResolveThreadRow::StillResolved).resolved(true),
        })
    }
}
