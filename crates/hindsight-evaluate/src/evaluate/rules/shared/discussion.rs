//! Discussions: `create_discussion`, `update_discussion`, `close_discussion` (docs/SPEC.md
//! [SPEC-ISSUES], issues and discussions). Discussions exist only in GraphQL; the capture
//! is `graphql/repos/OWNER/REPO/discussions/N` (shape in `schemas/graphql.md`).
//!
//! ## What a person checks
//! create: did the discussion get an accepted answer or meaningful engagement?
//! update: did the edit stick (as `update_issue`)? close: did it stay closed?
//!
//! ## Why
//! A chosen answer is the strongest sign a discussion was useful; replies and reactions
//! from visible non-bot actors are engagement. Closed as duplicate or outdated is
//! rejection, and so is a discussion locked as spam or off-topic (`activeLockReason`) or
//! hidden as such (its own `minimizedReason`, when captured). GraphQL keeps no reopen history, so a discussion open again after the
//! agent closed it was reopened by someone not visible (medium).
//!
//! ## Example
//! A discussion whose answer was chosen by a maintainer at T+5h is
//! `accepted`/`strong`/`discussion_answered` from the 24h window on.
//!
//! What `create_discussion`, `update_discussion` and `close_discussion` share; each type's rule is in its own file.

use crate::evaluate::case::Case;
use crate::evaluate::case::HistoryGap;
use crate::evaluate::rules::missing;
use crate::evaluate::{common, Common, Verdict};
use crate::snapshot::graphql::{Discussion, GqlComment};
use serde_json::Value;

pub(crate) fn load<'a>(case: &Case<'a>) -> Result<(&'a Value, Discussion), Verdict> {
    let Some(n) = case.output.target_number else { return Err(common(Common::MissingReference)) };
    let look = case.graphql(&format!("discussions/{n}"));
    match look {
        Ok(v) => Ok((v, Discussion::from(v))),
        Err(m) => Err(missing(case, m)),
    }
}

/// Comments and replies by visible non-bot actors inside the window, oldest first.
pub(crate) fn people<'d>(case: &Case, d: &'d Discussion) -> Vec<&'d GqlComment> {
    let mut out: Vec<&GqlComment> = d
        .comments
        .iter()
        .flat_map(|c| std::iter::once(c).chain(c.replies.iter()))
        .filter(|c| case.actors.classify(&c.author).is_person() && case.is_inside(c.created_at))
        .collect();
    out.sort_by_key(|c| c.created_at);
    out
}

/// Whether the discussion is closed at the window's end, if that can be known: GraphQL
/// gives only the final state and `closedAt`.
pub(crate) fn closed_as_of(case: &Case, d: &Discussion) -> Result<bool, HistoryGap> {
    let closed = d.closed.ok_or(HistoryGap::StateMissing)?;
    if case.window.is_snapshot() {
        return Ok(closed);
    }
    match (closed, d.closed_at) {
        (true, Some(t)) if t <= case.as_of => Ok(true),
        _ if d.updated_at.is_some_and(|u| u <= case.as_of) => Ok(closed),
        _ => Err(HistoryGap::HistoryMissing),
    }
}

/// The discussion (GraphQL).
pub(crate) const READS: &[crate::evaluate::rules::reads::Fixed] = &[crate::evaluate::rules::reads::Fixed::Graphql("discussions/", "")];
