//! Review threads: `create_pull_request_review_comment`,
//! `reply_to_pull_request_review_comment`, `resolve_pull_request_review_thread`
//! (docs/SPEC.md [SPEC-PR], pull requests). Comments come from REST (`pulls/N/comments`,
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
//! so rather than borrow it. A thread the agent resolved that is unresolved again is
//! rejected: strongly when the capture names a visible non-bot actor who unresolved it
//! (`unresolvedBy`, which GraphQL lacks and a capture tool adds from the
//! `pull_request_review_thread` webhook), at medium strength otherwise.
//!
//! ## Example
//! Inline comment at T; the author replies at T+2h and resolves the thread -> `accepted`/
//! `medium`/`review_comment_replied` at 24h, `accepted`/`strong`/`thread_resolved` in the
//! snapshot window.
//!
//! What `create_pull_request_review_comment`, `reply_to_pull_request_review_comment` and
//! `resolve_pull_request_review_thread` share; each type's rule is in its own file.

use crate::evaluate::actors::ActorClass;
use crate::evaluate::outcome::Decider;
use crate::evaluate::case::{Case, Missing};
use crate::evaluate::rules::{pull_state, PullState};
use crate::evaluate::{common, Common, RowId, Rule, Verdict};
use crate::json::str_at;
use crate::snapshot::github::Comment;
use crate::snapshot::graphql::{nodes, ReviewThread};
use crate::time::Instant;
use serde_json::Value;

/// The review comment (REST), or why it cannot be read. `Ok(None)`: deleted.
/// `Ok(Err(status))` when it answered 404/410.
pub fn comment<'a>(case: &Case<'a>, n: Option<i64>, id: i64) -> Result<Result<&'a Comment, u16>, Verdict> {
    match case.lookup_entry(&crate::snapshot::paths::numbered("pulls/comments/", id, "")) {
        Ok(e) => return Ok(Ok(e.comment())),
        Err(Missing::Gone(s)) => return Ok(Err(s)),
        Err(m @ Missing::Failed(_)) => return Err(crate::evaluate::rules::missing(case, m)),
        Err(Missing::NotCaptured) => {}
    }
    if let Some(n) = n {
        if let Ok(e) = case.lookup_entry(&crate::snapshot::paths::numbered("pulls/", n, "/comments")) {
            if let Some(c) = e.comments().iter().find(|c| c.id == Some(id)) {
                return Ok(Ok(c));
            }
        }
    }
    Err(common(Common::TargetNotCaptured).detail("comment_id", id))
}

/// Threads of PR `n`, or of every captured PR of the repository when `n` is unknown.
pub(crate) fn threads(case: &Case, n: Option<i64>) -> Vec<(i64, ReviewThread)> {
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
        if let Ok(v) = case.lookup_path(p) {
            out.extend(nodes(Some(v)).into_iter().map(|t| (num, ReviewThread::from(t))));
        }
    }
    out
}

/// Replies to `id` by visible non-bot actors inside the window (REST `in_reply_to_id`,
/// or later comments of its GraphQL thread).
pub(crate) fn person_reply(case: &Case, n: i64, id: i64, thread: Option<&ReviewThread>) -> Option<(Option<Instant>, ActorClass)> {
    let rest = case.lookup_entry(&crate::snapshot::paths::numbered("pulls/", n, "/comments")).map(|e| e.comments()).unwrap_or_default();
    let r = rest
        .iter()
        .filter(|c| c.in_reply_to_id == Some(id) || (thread.is_some_and(|t| t.holds_comment(c.id.unwrap_or(-1))) && c.id != Some(id)))
        .find(|c| case.actors.classify(&c.user).is_person() && case.is_inside(c.created_at))
        .map(|c| (c.created_at, case.actors.classify(&c.user)));
    r.or_else(|| {
        thread?
            .comments
            .iter()
            .filter(|c| c.id != Some(id))
            .find(|c| case.actors.classify(&c.author).is_person() && case.is_inside(c.created_at))
            .map(|c| (c.created_at, case.actors.classify(&c.author)))
    })
}

/// A commit after T, inside the window, whose captured file list touches `path`.
pub(crate) fn touching_commit(case: &Case, n: i64, path: &str) -> Option<Option<Instant>> {
    let e = case.lookup_entry(&crate::snapshot::paths::numbered("pulls/", n, "/commits")).ok()?;
    e.commits().iter().find_map(|c| {
        let at = c.committed_at.or(c.authored_at);
        if !case.is_inside(at) {
            return None;
        }
        let detail = case.lookup(&format!("commits/{}", c.sha.as_deref()?)).ok()?;
        let touches = detail.get("files").and_then(Value::as_array)?.iter().any(|f| str_at(f, "filename") == Some(path));
        touches.then_some(at)
    })
}

/// Shared course of the comment and reply rules.
/// The rows the shared review-comment verdict answers with, in a rule's own row type.
pub(crate) struct CommentRows<R> {
    pub(crate) resolved: R,
    pub(crate) replied: R,
    /// Only for the agent's own comments: a later commit touching the file answers them.
    pub(crate) followup_commit: Option<R>,
    pub(crate) outdated_merged: Option<R>,
    pub(crate) removed: R,
    pub(crate) no_response: R,
    pub(crate) open: R,
}

pub(crate) fn judge_comment<R: Rule>(rule: &R, rows: CommentRows<R::Row>, case: &Case, id: i64) -> Result<Verdict, Verdict> {
    let n = case.output.target_number;
    let c = match comment(case, n, id)? {
        Ok(c) => c,
        Err(status) => return Ok(rule.row(rows.removed).resolved(true).by(Decider::Gone(status)).detail("comment_id", id).detail("http_status", status)),
    };
    let Some(n) = n.or(c.pull_number) else {
        return Err(common(Common::MissingReference).note("the comment's PR is not recorded"));
    };
    let case = case.with_author(&c.user);
    let all = threads(&case, Some(n));
    let thread = all.iter().map(|(_, t)| t).find(|t| t.holds_comment(id));
    if thread.and_then(|t| t.comments.iter().find(|x| x.id == Some(id))).and_then(|x| x.minimized) == Some(true) || c.minimized == Some(true) {
        return Ok(rule.row(rows.removed).resolved(true).note("minimized"));
    }
    let snap = case.window.is_snapshot();
    if snap {
        if let Some(t) = thread.filter(|t| t.resolved == Some(true)) {
            if case.actors.classify(&t.resolved_by).is_person() {
                return Ok(rule.row(rows.resolved).resolved(true).by_actor(&case, &t.resolved_by, None).detail("resolved_by", t.resolved_by.login.clone()));
            }
        }
    }
    if let Some((at, class)) = person_reply(&case, n, id, thread) {
        return Ok(rule.row(rows.replied).resolved(true).at(at).by(Decider::Act(class)));
    }
    if let Some(row) = rows.followup_commit {
        if let Some(at) = c.path.as_deref().and_then(|p| touching_commit(&case, n, p)) {
            return Ok(rule.row(row).resolved(true).at(at));
        }
    }
    let PullState { lc, .. } = pull_state(&case, n)?;
    let outdated = thread.and_then(|t| t.outdated).unwrap_or(false) || c.outdated;
    let note = |v: Verdict| if snap { v } else { v.note("thread resolution has no timestamp; it is judged only in the snapshot window") };
    if lc.closed {
        if let Some(row) = rows.outdated_merged.filter(|_| lc.merged && outdated) {
            return Ok(note(rule.row(row).resolved(true).merged_by(&case, &lc)));
        }
        let v = rule.row(rows.no_response).resolved(true).closed_by(&case, &lc);
        return Ok(note(match rows.no_response.spec().policy {
            Some(_) => v.status(case.policy.unresolved_reply_pr_closed.status()),
            None => v,
        }));
    }
    Ok(note(rule.row(rows.open).resolved(true)))
}

/// The PR's review threads (GraphQL).
pub(crate) const READS: &[crate::evaluate::rules::reads::Fixed] = &[crate::evaluate::rules::reads::Fixed::Graphql("pulls/", "/review_threads")];

/// The review comment, by the id the output recorded.
pub(crate) fn reads_after(o: &crate::runs::SafeOutput, _: &crate::evaluate::case::Recorded, _: &crate::snapshot::SnapshotIndex) -> Vec<crate::evaluate::rules::Read> {
    o.target_comment_id.map(|id| vec![crate::evaluate::rules::Read::Target(format!("pulls/comments/{id}"))]).unwrap_or_default()
}
