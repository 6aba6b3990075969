//! Durability: did merged agent work survive? A merge later undone by a revert is
//! rejected once the revert falls inside the window (and within the policy's
//! `durability_hours` of the merge: by default [`DEFAULT_DURABILITY_HOURS`](crate::evaluate::policy::DEFAULT_DURABILITY_HOURS), 30
//! days). A reverted commit is matched to the PR's by `snapshot::sha`.
//!
//! Reverts are the repository's revert marks (`evaluate::repository`, found once per
//! repository and read through the case): a commit whose message says `This reverts commit
//! <sha>` of the PR's merge commit or one of its commits, or a merged PR titled `Revert
//! "<title>"` of the PR, or whose body says `Reverts OWNER/REPO#N`. A revert by the
//! workflow's own identity (an agent undoing its own merged PR) is not the repository's
//! response: it is passed over, and the merge stands as the decision.

use crate::evaluate::case::Case;
use crate::evaluate::repository::RevertMark;
use crate::snapshot::github::PullRequest;
use crate::snapshot::sha::Sha;

/// The first revert of merged PR `n` (or of `extra_shas`) after its merge, inside the
/// window and within `durability_hours` of the merge.
pub(crate) fn find_revert_of(case: &Case, n: i64, pr: &PullRequest, extra_shas: &[String]) -> Option<RevertMark> {
    let marks = case.revert_marks()?;
    let merged_at = pr.merged_at;
    let mut shas: Vec<Sha> = extra_shas.iter().filter_map(|s| Sha::parse(s)).collect();
    shas.extend(pr.merge_commit_sha.as_deref().and_then(Sha::parse));
    if let Ok(e) = case.lookup_entry(&crate::snapshot::paths::numbered("pulls/", n, "/commits")) {
        shas.extend(e.commits().iter().filter_map(|c| c.sha.as_deref().and_then(Sha::parse)));
    }
    let limit = case.policy.durability_hours;
    let mut hits: Vec<&RevertMark> = marks
        .iter()
        .filter(|m| m.sha.as_ref().is_some_and(|s| shas.iter().any(|x| x.matches(s))) || m.pr == Some(n) || (m.title.is_some() && m.title == pr.title))
        .filter(|m| case.actors.classify_at(&m.by, m.at) != crate::evaluate::actors::ActorClass::SameWorkflow)
        .filter(|m| match (m.at, merged_at) {
            (Some(t), Some(mt)) => t > mt && t <= case.as_of && (t - mt).num_hours() <= limit,
            (Some(t), None) => t <= case.as_of,
            (None, _) => case.window.is_snapshot(),
        })
        .collect();
    hits.sort_by_key(|m| m.at);
    hits.first().map(|m| (*m).clone())
}

pub(crate) fn find_revert(case: &Case, n: i64, pr: &PullRequest) -> Option<RevertMark> {
    find_revert_of(case, n, pr, &[])
}
