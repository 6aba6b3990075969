//! `submit_pull_request_review` and `dismiss_pull_request_review`: docs/SPEC.md [SPEC-PR]
//! (submit) and a gh-aw type the specification's tables do not list ([SPEC-EXTRA-TYPES],
//! dismiss).
//!
//! ## What a person checks
//! submit: did the review affect the PR lifecycle? dismiss: did the dismissal stand?
//!
//! ## Why
//! The review is found by its recorded id (`review_id`); another review on the same PR is
//! never borrowed (`review_missing`). An approval followed by a merge is strong; changes
//! requested and then commits by others after the review are the review being addressed;
//! a dismissal by a visible non-bot actor undoes it (strong; the `review_dismissed` event
//! names who), one by a bot, by the workflow itself or by someone not captured is weaker
//! (medium); a later review by a person with the opposite verdict contradicts
//! it (policy `review_contradicted`, default rejected). A PR closed without addressing the
//! review is contextual (policy `review_pr_closed`, default ignored).
//!
//! ## Example
//! Review 4 (APPROVED) at T, PR merged at T+1d -> `accepted`/`strong`/
//! `approved_and_merged` from the 7d window on.
//!
//! What `submit_pull_request_review` and `dismiss_pull_request_review` share; each type's rule is in its own file.

use crate::evaluate::case::Case;
use crate::evaluate::Verdict;
use crate::json::int_at;
use crate::snapshot::github::Review;

/// The review's id, wherever the artifacts recorded it: the manifest's metadata, a
/// normalized record's `expected_state.review_id`, the request's `review_id`, or the
/// `#pullrequestreview-<id>` fragment of the item's URL.
pub(crate) fn review_id(case: &Case) -> Option<i64> {
    let p = case.recorded.payload();
    let e = case.recorded.expected();
    let from_url = case.output.target_url.as_deref().and_then(|u| u.split_once("#pullrequestreview-")).and_then(|(_, id)| id.trim().parse().ok());
    e.get("metadata.review_id").and_then(crate::json::as_int).or_else(|| int_at(e, "review_id")).or(int_at(p, "review_id")).or(from_url)
}

pub(crate) fn find_review(case: &Case, n: i64, id: i64) -> Result<Option<Review>, Verdict> {
    let look = case.lookup_entry(&crate::snapshot::paths::numbered("pulls/", n, "/reviews"));
    match look {
        Ok(e) => Ok(e.reviews().iter().find(|r| r.id == Some(id)).cloned()),
        Err(m) => Err(crate::evaluate::rules::missing(case, m).note("the PR's reviews were not captured")),
    }
}
