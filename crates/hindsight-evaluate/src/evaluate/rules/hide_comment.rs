//! `hide_comment`: docs/SPEC.md [SPEC-MODERATION], comment moderation.
//!
//! ## What a person checks
//! Did the hidden (minimized) state persist?
//!
//! ## Why
//! Minimized state is GraphQL-only (`isMinimized`): read from
//! `graphql/repos/OWNER/REPO/comments/ID`, or from a REST capture of the comment that
//! carries it. A comment deleted after hiding is "often accepted for moderation"
//! ([SPEC-MODERATION]): medium. Unhiding leaves no actor in the API, so it is rejected with
//! medium evidence unless the capture names the person (`unminimizedBy`).
//!
//! ## Example
//! Comment 7 hidden at T, still minimized at capture -> `accepted`/`medium`/
//! `comment_still_hidden`.

use crate::evaluate::rule::Decision as D;
use crate::evaluate::case::{Case, Missing};
use crate::evaluate::outcome::{EvidenceStrength as E, Status as S};
use crate::evaluate::{common, rows, Common, RowSpec, Rule, Verdict};
use crate::json::{bool_at, int_at};
use crate::runs::output_type::OutputType;

pub(crate) struct HideComment;

rows! {
    pub(crate) enum HideCommentRow {
        StillHidden => RowSpec {
            id: "still_hidden",
            when: "The comment is still minimized",
            status: S::Accepted,
            strength: E::Medium,
            signal: "comment_still_hidden",
            seed: "Comment still hidden or minimized",
            policy: None,
            decision: D::State,
        },
        UnhiddenByPerson => RowSpec {
            id: "unhidden_by_person",
            when: "Unhidden, and the capture names a visible non-bot actor who did it",
            status: S::Rejected,
            strength: E::Strong,
            signal: "comment_unhidden",
            seed: "Comment unhidden by visible non-bot",
            policy: None,
            decision: D::PersonAct,
        },
        Unhidden => RowSpec {
            id: "unhidden",
            when: "No longer minimized; who unhid it is not visible",
            status: S::Rejected,
            strength: E::Medium,
            signal: "comment_unhidden",
            seed: "Comment unhidden by visible non-bot (actor not visible)",
            policy: None,
            decision: D::Act,
        },
        Deleted => RowSpec {
            id: "deleted",
            when: "The comment was deleted after hiding",
            status: S::Accepted,
            strength: E::Medium,
            signal: "deleted_after_hiding",
            seed: "Comment deleted after hiding",
            policy: None,
            decision: D::Gone,
        },
    }
}

impl Rule for HideComment {
    type Row = HideCommentRow;
    fn output_type(&self) -> OutputType {
        OutputType::HideComment
    }
    fn not_observable(&self, row: Self::Row) -> Option<&'static str> {
        match row {
            HideCommentRow::UnhiddenByPerson => Some("GitHub's API names nobody who unhid a comment (no `unminimizedBy`, no timeline event): it fires only on a capture that adds them"),
            _ => None,
        }
    }
    fn human_check(&self) -> &'static str {
        "Did the hidden or minimized state persist?"
    }
    fn targets_number(&self) -> bool {
        false
    }
    fn evaluate(&self, case: &Case) -> Result<Verdict, Verdict> {
        let p = case.recorded.payload();
        let Some(id) = case.output.target_comment_id.or(int_at(p, "comment_id")) else {
            return Err(common(Common::MissingReference).note("no comment id recorded"));
        };
        let gql = case.graphql(&format!("comments/{id}"));
        let rest = case.lookup(&crate::snapshot::paths::numbered("issues/comments/", id, ""));
        let state = match (&gql, &rest) {
            (Ok(v), _) => Some((*v).clone()),
            (_, Ok(v)) if bool_at(*v, "isMinimized").is_some() => Some((*v).clone()),
            _ => None,
        };
        if matches!(gql, Err(Missing::Gone(_))) || matches!(rest, Err(Missing::Gone(_))) {
            return Ok(self.row(HideCommentRow::Deleted).resolved(true));
        }
        let Some(state) = state else {
            return Ok(match (&gql, &rest) {
                (Err(m @ Missing::Failed(_)), _) => super::missing(case, *m),
                (_, Ok(_)) => {
                    common(Common::TargetNotCaptured).resolved(true).note("the REST capture carries no minimized state; capture graphql/.../comments/ID")
                }
                (_, Err(m)) => super::missing(case, *m),
            });
        };
        if !case.window.is_snapshot() {
            return Err(common(Common::HistoryMissing).resolved(true).note("minimized state has no timestamp; only the snapshot window can be judged"));
        }
        if bool_at(&state, "isMinimized") == Some(true) {
            return Ok(self.row(HideCommentRow::StillHidden).resolved(true).detail("reason", state.get("minimizedReason").cloned()));
        }
        let by = crate::snapshot::graphql::actor(state.get("unminimizedBy"));
        if case.actors.classify(&by).is_person() {
            return Ok(self.row(HideCommentRow::UnhiddenByPerson).resolved(true).by_actor(case, &by, None).detail("unhidden_by", by.login));
        }
        Ok(self.row(HideCommentRow::Unhidden).resolved(true).by_actor(case, &by, None))
    }
}

/// The comment, by REST and by GraphQL (its minimized state).
pub(crate) fn reads_after(o: &crate::runs::SafeOutput, rec: &crate::evaluate::case::Recorded, _: &crate::snapshot::SnapshotIndex) -> Vec<super::Read> {
    let Some(id) = o.target_comment_id.or(int_at(rec.payload(), "comment_id")) else { return Vec::new() };
    vec![super::Read::Target(format!("issues/comments/{id}")), super::Read::Graphql(format!("comments/{id}"))]
}
