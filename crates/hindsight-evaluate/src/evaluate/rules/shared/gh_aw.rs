//! The per-output facts gh-aw's own outcome evaluator (github/gh-aw,
//! `actions/setup/js/outcome_action_evaluators.cjs`) sums into its summary, recorded in a
//! verdict's `details` so the gh-aw comparison (`queries/gh_aw_summary.sql`) counts them as
//! gh-aw does. They are facts beside the verdict, never the verdict: hindsight's rows decide
//! the outcome.
//!
//! - `zero_touch` (accepted `create_pull_request`): every comment, review and commit of the
//!   PR was captured with who and when, and none after the action came from a visible
//!   non-bot account (for commits, one other than the PR's author).
//! - `resolution_sec` (`create_issue` closed as completed or not planned, `create_pull_request`
//!   merged or closed): whole seconds from the action to the merge or close.
//! - `closed_by_bot` (`create_issue`, `close_issue`, `close_pull_request` closed and not
//!   merged): whether the latest close was by an automation account.
//!
//! "Non-bot" and "automation" are [`is_automation`]'s, hindsight's one test of an account
//! by its type and login.

use crate::evaluate::actors::is_automation;
use crate::evaluate::case::Case;
use crate::evaluate::Verdict;
use crate::snapshot::github::Actor;
use crate::time::Instant;

/// Whether an account names someone (a non-empty login).
fn has_login(a: &Actor) -> bool {
    a.login.as_deref().is_some_and(|l| !l.is_empty())
}

/// A login gh-aw counts as a person's: present, and not an automation account.
fn non_bot(a: &Actor) -> bool {
    has_login(a) && !is_automation(a)
}

/// `closed_by_bot`, when who closed it last is known.
pub(crate) fn closed_by_bot(v: Verdict, closer: &Actor) -> Verdict {
    if has_login(closer) {
        v.detail("closed_by_bot", is_automation(closer))
    } else {
        v
    }
}

/// `resolution_sec`: whole seconds from the recorded action time to `at`, when both are known.
pub(crate) fn resolution_sec(v: Verdict, case: &Case, at: Option<Instant>) -> Verdict {
    match (case.output.created_at, at) {
        (Some(t), Some(at)) => v.detail("resolution_sec", (at - t).num_seconds()),
        _ => v,
    }
}

/// Whether PR `n` was left untouched by people after the action, inside the window: its
/// comments, reviews and commits all captured and readable (who, when), and none by a
/// non-bot account after the recorded action time (commits: by one other than `author`).
pub(crate) fn zero_touch(case: &Case, n: i64, author: &Actor) -> bool {
    use crate::snapshot::paths::numbered;
    let Some(t0) = case.output.created_at else { return false };
    let after = |at: Option<Instant>| at.is_some_and(|at| at > t0 && at <= case.as_of);
    let (Ok(comments), Ok(reviews), Ok(commits)) = (
        case.lookup_entry(&numbered("issues/", n, "/comments")),
        case.lookup_entry(&numbered("pulls/", n, "/reviews")),
        case.lookup_entry(&numbered("pulls/", n, "/commits")),
    ) else {
        return false;
    };
    let (comments, reviews, commits) = (comments.comments(), reviews.reviews(), commits.commits());
    let pending = |s: &Option<String>| s.as_deref() == Some("PENDING");
    let readable = comments.iter().all(|c| has_login(&c.user) && c.created_at.is_some())
        && reviews.iter().all(|r| pending(&r.state) || (has_login(&r.user) && r.submitted_at.is_some()))
        && commits.iter().all(|c| has_login(&c.author) && (c.committed_at.is_some() || c.authored_at.is_some()));
    let author = author.login.as_deref().unwrap_or_default();
    readable
        && !comments.iter().any(|c| non_bot(&c.user) && after(c.created_at))
        && !reviews.iter().any(|r| !pending(&r.state) && non_bot(&r.user) && after(r.submitted_at))
        && !commits.iter().any(|c| {
            non_bot(&c.author) && !c.author.login.as_deref().unwrap_or_default().eq_ignore_ascii_case(author) && (after(c.committed_at) || after(c.authored_at))
        })
}
