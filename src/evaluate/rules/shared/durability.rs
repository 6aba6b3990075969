//! Durability: did merged agent work survive? A merge later undone by a revert is
//! rejected once the revert falls inside the window (and within the policy's
//! `durability_hours` of the merge: by default [`DEFAULT_DURABILITY_HOURS`](crate::evaluate::policy::DEFAULT_DURABILITY_HOURS), 30
//! days). A reverted commit is matched to the PR's by `snapshot::sha`.
//!
//! Reverts are found in what the snapshot holds, indexed once per repository:
//! - commits (`commits`, `commits/SHA`, `pulls/N/commits`) whose message says
//!   `This reverts commit <sha>` of the PR's merge commit or one of its commits;
//! - merged PRs titled `Revert "<title>"` of the PR, or whose body says
//!   `Reverts OWNER/REPO#N` (GitHub's revert button writes both).

use std::collections::HashMap;

use crate::evaluate::case::Case;
use crate::snapshot::github::{Actor, Commit, PullRequest};
use crate::snapshot::paths::{self, Resource};
use crate::snapshot::sha::Sha;
use crate::snapshot::SnapshotIndex;
use crate::time::Instant;

/// Something in the snapshot that reverts earlier work.
#[derive(Clone, Debug)]
pub struct RevertMark {
    /// The reverted commit, as the revert's message names it.
    pub(crate) sha: Option<Sha>,
    pub pr: Option<i64>,
    pub title: Option<String>,
    pub at: Option<Instant>,
    pub by: Actor,
    /// `commit <sha>` or `pull request #M`.
    pub source: String,
    /// The capture it was found in.
    pub path: String,
}

impl RevertMark {
    pub fn describe(&self) -> String {
        self.source.clone()
    }
}

/// What git writes in a revert's message, before the reverted commit's SHA.
const REVERTS_COMMIT: &str = "This reverts commit ";

/// What every word that marks a revert holds (`This reverts commit`, `Revert "`, `Reverts `).
const EVERY_REVERT_WORD: &str = "evert";

fn reverted_sha(message: &str) -> Option<Sha> {
    let i = message.find(REVERTS_COMMIT)?;
    let rest = &message[i + REVERTS_COMMIT.len()..];
    let hex = rest.find(|c: char| !c.is_ascii_hexdigit()).unwrap_or(rest.len());
    Sha::parse(&rest[..hex])
}

fn reverted_pr(body: &str, repo: &str) -> Option<i64> {
    let key = format!("Reverts {repo}#");
    let i = body.find(&key)?;
    body[i + key.len()..].chars().take_while(char::is_ascii_digit).collect::<String>().parse().ok()
}

/// Revert marks per repository, built from one index on first use and shared by every
/// output and window judged against it.
pub type RevertMarks = std::sync::OnceLock<HashMap<String, Vec<RevertMark>>>;

/// Every revert mark of every repository, built by scanning the index once.
pub(crate) fn build(index: &SnapshotIndex) -> HashMap<String, Vec<RevertMark>> {
    let mut out: HashMap<String, Vec<RevertMark>> = HashMap::new();
    for (path, e) in &index.entries {
        // Only pulls and commits can hold a revert (a look at the path before parsing it).
        if !e.ok() || !(path.contains("/pulls/") || path.contains("/commits")) {
            continue;
        }
        // Nor can a body that does not say so: a commit's message says `This reverts commit`,
        // a merged revert PR's title starts `Revert "` or its body says `Reverts`, and each
        // holds `evert` (one look for it rather than three). Most bodies are then never
        // parsed here (`may_hold` is exact: text that could spell a word in escapes is
        // parsed; a body that only mentions a revert is parsed and finds none).
        if !e.may_hold(&[EVERY_REVERT_WORD]) {
            continue;
        }
        let Some((repo, res)) = paths::parse(path) else { continue };
        let one;
        let commits: &[Commit] = match &res {
            Resource::PullCommits(_) => e.commits(),
            Resource::Other(t) if t == "commits" => e.commits(),
            Resource::Other(t) if t.starts_with("commits/") && !t.contains("/check-runs") => {
                one = [Commit::from(e.body())];
                &one
            }
            _ => &[],
        };
        for c in commits {
            if let Some(sha) = c.message.as_deref().and_then(reverted_sha) {
                out.entry(repo.clone()).or_default().push(RevertMark {
                    sha: Some(sha),
                    pr: None,
                    title: None,
                    at: c.committed_at.or(c.authored_at),
                    by: if c.author.login.is_some() { c.author.clone() } else { c.committer.clone() },
                    source: format!("commit {}", c.sha.clone().unwrap_or_default()),
                    path: path.clone(),
                });
            }
        }
        if let Resource::Pull(m) = res {
            let pr = e.pull();
            if pr.merged != Some(true) {
                continue;
            }
            let title = pr.title.as_deref().and_then(|t| t.strip_prefix("Revert \"")).and_then(|t| t.strip_suffix('"')).map(str::to_string);
            // Most PR bodies cannot hold the reference; those are not parsed as JSON for it.
            let body_ref = if e.may_hold(&["Reverts "]) { crate::json::str_at(e.body(), "body").and_then(|b| reverted_pr(b, &repo)) } else { None };
            if title.is_some() || body_ref.is_some() {
                out.entry(repo.clone()).or_default().push(RevertMark {
                    sha: None,
                    pr: body_ref,
                    title,
                    at: pr.merged_at,
                    by: pr.merged_by.clone(),
                    source: format!("pull request #{m}"),
                    path: path.clone(),
                });
            }
        }
    }
    // In the order of their paths, as the index was read; a path's own marks keep theirs.
    out.values_mut().for_each(|marks| marks.sort_by(|a, b| a.path.cmp(&b.path)));
    out
}

/// The first revert of merged PR `n` (or of `extra_shas`) after its merge, inside the
/// window and within `durability_hours` of the merge.
pub fn find_revert_of(case: &Case, n: i64, pr: &PullRequest, extra_shas: &[String]) -> Option<RevertMark> {
    let repo = case.repo()?;
    let marks = case.reverts.get_or_init(|| build(case.index)).get(repo)?;
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
        .filter(|m| match (m.at, merged_at) {
            (Some(t), Some(mt)) => t > mt && t <= case.as_of && (t - mt).num_hours() <= limit,
            (Some(t), None) => t <= case.as_of,
            (None, _) => case.window.is_snapshot(),
        })
        .collect();
    hits.sort_by_key(|m| m.at);
    hits.first().map(|m| (*m).clone())
}

pub fn find_revert(case: &Case, n: i64, pr: &PullRequest) -> Option<RevertMark> {
    find_revert_of(case, n, pr, &[])
}
