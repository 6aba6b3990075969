//! What the evaluation derives once from a repository's captures and shares with every
//! output and window judged there, read by the rules through the case
//! ([`Case::revert_marks`](super::case::Case::revert_marks)).
//!
//! Revert marks: what in the snapshot reverts earlier work, indexed once per repository:
//! - commits (`commits`, `commits/SHA`, `pulls/N/commits`) whose message says
//!   `This reverts commit <sha>`;
//! - merged PRs titled `Revert "<title>"`, or whose body says `Reverts OWNER/REPO#N`
//!   (GitHub's revert button writes both).

use std::collections::HashMap;

use crate::snapshot::github::Commit;
pub use crate::snapshot::paths::{self, Resource};
use crate::snapshot::sha::Sha;
use crate::snapshot::SnapshotIndex;
use crate::time::Instant;

/// The facts derived from one index's captures, repository by repository, each found on
/// first use and shared by every output and window judged against that index.
#[derive(Default)]
pub struct RepositoryFacts {
    /// Revert marks per repository.
    reverts: std::sync::OnceLock<HashMap<String, Vec<RevertMark>>>,
}

impl RepositoryFacts {
    /// The revert marks of `repo` in `index` (every repository's are found at the first ask).
    pub(crate) fn reverts<'f>(&'f self, index: &SnapshotIndex, repo: &str) -> Option<&'f [RevertMark]> {
        self.reverts.get_or_init(|| revert_marks(index)).get(repo).map(Vec::as_slice)
    }
}

/// Something in the snapshot that reverts earlier work.
#[derive(Clone, Debug)]
pub(crate) struct RevertMark {
    /// The reverted commit, as the revert's message names it.
    pub(crate) sha: Option<Sha>,
    pub(crate) pr: Option<i64>,
    pub(crate) title: Option<String>,
    pub(crate) at: Option<Instant>,
    /// `commit <sha>` or `pull request #M`.
    pub(crate) source: String,
    /// Who reverted: the revert commit's author, or whoever merged the revert PR (none
    /// when the capture does not name them).
    pub(crate) by: crate::snapshot::github::Actor,
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

/// Every revert mark of every repository, built by scanning the index once.
fn revert_marks(index: &SnapshotIndex) -> HashMap<String, Vec<RevertMark>> {
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
                out.entry(repo.to_string()).or_default().push(RevertMark {
                    sha: Some(sha),
                    pr: None,
                    title: None,
                    at: c.committed_at.or(c.authored_at),
                    source: format!("commit {}", c.sha.clone().unwrap_or_default()),
                    path: path.clone(),
                    by: c.author.clone(),
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
            let body_ref = if e.may_hold(&["Reverts "]) { crate::json::str_at(e.body(), "body").and_then(|b| reverted_pr(b, repo)) } else { None };
            if title.is_some() || body_ref.is_some() {
                out.entry(repo.to_string()).or_default().push(RevertMark {
                    sha: None,
                    pr: body_ref,
                    title,
                    at: pr.merged_at,
                    source: format!("pull request #{m}"),
                    path: path.clone(),
                    by: pr.merged_by.clone(),
                });
            }
        }
    }
    // In the order of their paths, as the index was read; a path's own marks keep theirs.
    out.values_mut().for_each(|marks| marks.sort_by(|a, b| a.path.cmp(&b.path)));
    out
}
