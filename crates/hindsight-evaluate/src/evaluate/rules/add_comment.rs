//! `add_comment`: docs/SPEC.md [SPEC-EXTRA-TYPES]. The specification lists it among the top
//! five but gives it no table, so the rule is written down here.
//!
//! ## What a person checks
//! Did anyone respond to the comment: a reply or a reaction from a visible non-bot actor
//! after it was posted? Was it hidden or deleted?
//!
//! ## Rule
//! - minimized (hidden) -> `rejected`, strong: someone judged it unwanted;
//! - deleted (its URL answers 404/410) -> `rejected`, medium: removed, by whom unknown;
//! - a later reply on the same thread by a visible non-bot actor -> `accepted`, medium;
//! - a reaction by a visible non-bot actor -> `accepted`, medium (a reaction known only
//!   as a count, without who or when, counts in the snapshot window at low confidence);
//! - nothing within the window -> `ignored`, weak (policy `comment_without_response` can
//!   make it `pending`).
//!
//! Bot replies, and the workflow's own follow-ups, are not responses.
//!
//! ## Example
//! A comment posted at 10:00 that a maintainer answers at 10:40 is
//! `accepted`/`medium`/`comment_replied` in every window from 1h on.

use crate::evaluate::rule::Decision as D;
use std::borrow::Cow;

use super::missing;
use crate::evaluate::case::{ActKind, Case, Missing};
use crate::evaluate::outcome::{Confidence, EvidenceStrength as E, Status as S};
use crate::evaluate::{common, rows, Common, RowSpec, Rule, Verdict};
use crate::runs::output_type::OutputType;
use crate::snapshot::github::Comment;
use crate::time::Instant;

pub(crate) struct AddComment;

rows! {
    pub(crate) enum AddCommentRow {
        Minimized => RowSpec {
            id: "minimized",
            when: "Comment minimized (hidden)",
            status: S::Rejected,
            strength: E::Strong,
            signal: "comment_minimized",
            seed: "(hide_comment, reply) Reply is deleted or minimized",
            policy: None,
            decision: D::Act,
        },
        Deleted => RowSpec {
            id: "deleted",
            when: "Comment gone at capture (404/410)",
            status: S::Rejected,
            strength: E::Medium,
            signal: "comment_deleted",
            seed: "(reply) Reply is deleted or minimized",
            policy: None,
            decision: D::Gone,
        },
        Replied => RowSpec {
            id: "replied",
            when: "A visible non-bot actor commented on the same thread after it",
            status: S::Accepted,
            strength: E::Medium,
            signal: "comment_replied",
            seed: "",
            policy: None,
            decision: D::PersonAct,
        },
        Reacted => RowSpec {
            id: "reacted",
            when: "A visible non-bot actor reacted to it",
            status: S::Accepted,
            strength: E::Medium,
            signal: "comment_reacted",
            seed: "",
            policy: None,
            decision: D::PersonAct,
        },
        ReactionCountOnly => RowSpec {
            id: "reaction_count_only",
            when: "Reactions counted but who and when not captured (snapshot window only)",
            status: S::Accepted,
            strength: E::Medium,
            signal: "comment_reacted",
            seed: "",
            policy: None,
            decision: D::Act,
        },
        NoResponse => RowSpec {
            id: "no_response",
            when: "No non-bot reply or reaction within the window",
            status: S::Ignored,
            strength: E::Weak,
            signal: "no_response",
            seed: "",
            policy: Some("comment_without_response"),
            decision: D::State,
        },
    }
}

impl AddComment {
    /// The comment itself: `issues/comments/ID`, else found by id in its thread's list.
    fn comment<'a>(case: &Case<'a>) -> Result<Cow<'a, Comment>, Verdict> {
        let o = case.output;
        let Some(id) = o.target_comment_id else {
            return Err(common(Common::MissingReference).note("no comment id recorded (URL fragment or comment_id)"));
        };
        let look = case.lookup_entry(&crate::snapshot::paths::numbered("issues/comments/", id, ""));
        match &look {
            Ok(e) => return Ok(Cow::Borrowed(e.comment())),
            Err(Missing::Gone(s)) => {
                return Err(
                    crate::evaluate::undated(case, AddComment.row(AddCommentRow::Deleted), &format!("the comment answered {s}")).detail("comment_id", id)
                )
            }
            Err(m @ Missing::Failed(_)) => return Err(missing(case, *m)),
            Err(Missing::NotCaptured) => {}
        }
        if let Some(n) = o.target_number {
            if let Ok(e) = case.lookup_entry(&crate::snapshot::paths::numbered("issues/", n, "/comments")) {
                if let Some(c) = e.comments().iter().find(|c| c.id == Some(id)) {
                    // Borrowed: a thread's comments are long, their bodies longer.
                    return Ok(Cow::Borrowed(c));
                }
            }
            // A thread captured only as its timeline: the comment is its `commented` event
            // (same id, author and time), evidence like any other capture of it.
            if let Ok(e) = case.lookup_entry(&crate::snapshot::paths::numbered("issues/", n, "/timeline")) {
                if let Some(ev) = e.events().iter().find(|ev| ev.event.as_deref() == Some("commented") && ev.id == Some(id)) {
                    return Ok(Cow::Owned(Comment {
                        id: Some(id),
                        user: ev.actor.clone(),
                        created_at: ev.created_at,
                        issue_number: Some(n),
                        ..Comment::default()
                    }));
                }
            }
        }
        Err(common(Common::TargetNotCaptured).detail("comment_id", id))
    }
}

impl Rule for AddComment {
    type Row = AddCommentRow;
    fn output_type(&self) -> OutputType {
        OutputType::AddComment
    }
    fn human_check(&self) -> &'static str {
        "Did a visible non-bot actor reply or react after the comment? Was it hidden or deleted?"
    }

    fn action_time(&self, case: &Case) -> Option<Instant> {
        case.output.created_at.or_else(|| Self::comment(case).ok().and_then(|c| c.created_at))
    }

    fn evaluate(&self, case: &Case) -> Result<Verdict, Verdict> {
        let comment = Self::comment(case)?;
        let id = comment.id.or(case.output.target_comment_id);
        if comment.minimized == Some(true) {
            // Minimization carries no time: it settles the snapshot window only.
            return Ok(crate::evaluate::undated(case, self.row(AddCommentRow::Minimized), "the comment was minimized").resolved(true));
        }
        let Some(n) = case.output.target_number.or(comment.issue_number) else {
            return Err(common(Common::MissingReference).note("the comment's issue or PR number is not recorded"));
        };
        let case = case.with_author(&comment.user);
        let is_pull = case.lookup_entry(&crate::snapshot::paths::numbered("pulls/", n, "")).is_ok();
        // The output's activity is shared by its windows; the reactions to the comment itself
        // are this rule's own, counted after it (not copied into it window by window).
        let activity = case.activity(n, is_pull);
        let mut own: Vec<crate::evaluate::case::Act> = Vec::new();
        let reactions_path = crate::snapshot::paths::numbered("issues/comments/", id.unwrap_or_default(), "/reactions");
        let reactions_listed = match case.lookup_entry(&reactions_path) {
            Ok(e) => {
                for r in e.reactions() {
                    let class = case.actors.classify(&r.user);
                    own.push(crate::evaluate::case::Act {
                        actor: r.user.clone(),
                        class,
                        at: r.created_at,
                        kind: ActKind::Reaction,
                        detail: Some("comment".into()),
                        challenges_close: false,
                    });
                }
                true
            }
            _ => false,
        };
        let acts = || activity.acts.iter().chain(&own);
        let (humans, bots) = case.count_acting(acts());
        let done = |v: Verdict| v.resolved(true).actors(humans, bots);
        let id_text = id.map(|i| i.to_string());
        let is_self = |a: &crate::evaluate::case::Act| a.detail.is_some() && a.detail == id_text;
        let reply = super::person_act_among(&case, acts(), |a| !is_self(a) && matches!(a.kind, ActKind::Comment | ActKind::Review(_) | ActKind::ReviewComment));
        if let Some(a) = reply {
            return Ok(done(self.row(AddCommentRow::Replied).acted(a).detail("replied_by", a.actor.login.clone())));
        }
        let reaction = super::person_act_among(&case, acts(), |a| a.kind == ActKind::Reaction && a.detail.as_deref() == Some("comment"));
        if let Some(a) = reaction {
            return Ok(done(self.row(AddCommentRow::Reacted).acted(a).detail("reacted_by", a.actor.login.clone())));
        }
        if !reactions_listed && comment.reactions_total.unwrap_or(0) > 0 {
            if case.window.is_snapshot() {
                return Ok(done(
                    self.row(AddCommentRow::ReactionCountOnly)
                        .confidence(Confidence::Low)
                        .detail("reactions_total", comment.reactions_total)
                        .note("reactions known only as a count; who reacted and when are not captured"),
                ));
            }
            return Err(common(Common::HistoryMissing).resolved(true).note("reactions known only as a count: cannot place them in this window"));
        }
        if let Some(v) = super::any_capture_problem(&activity) {
            return Err(v);
        }
        if !activity.any_read() && !reactions_listed {
            return Err(common(Common::HistoryMissing).resolved(true).note("neither the thread nor the comment's reactions were captured"));
        }
        Ok(done(self.row(AddCommentRow::NoResponse).status(case.policy.comment_without_response.status())))
    }
}

/// The comment and its reactions, by the id the output recorded.
pub(crate) fn reads_after(o: &crate::runs::SafeOutput, _: &crate::evaluate::case::Recorded, _: &crate::snapshot::SnapshotIndex) -> Vec<super::Read> {
    o.target_comment_id.map(|id| vec![super::Read::Target(format!("issues/comments/{id}")), super::Read::Target(format!("issues/comments/{id}/reactions"))]).unwrap_or_default()
}
