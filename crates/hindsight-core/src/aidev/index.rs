//! The index of a Parquet release's PRs, held through the import: what a row of another
//! table needs to find its PR and agent, and what the second pass records of each PR's safe
//! output. AIDev-7.6M has millions of PRs, so the index is sorted arrays of fixed-size
//! entries (40 bytes a PR) and names are interned, not maps of strings.

use super::{ALL_AGENTS, BASELINE};
use crate::intern::Interner;

/// The agents a PR row can belong to: the release's, numbered by their place in
/// [`ALL_AGENTS`], and the human baseline after them.
pub(super) fn agent_no(agent: &str) -> u8 {
    ALL_AGENTS.iter().position(|a| *a == agent).unwrap_or(ALL_AGENTS.len()) as u8
}

pub(super) fn agent_name(no: u8) -> &'static str {
    ALL_AGENTS.get(no as usize).copied().unwrap_or(BASELINE)
}

/// The repository or login not read (no interned name has this number).
pub(super) const NONE: u32 = u32::MAX;

/// One PR id of the release.
#[derive(Clone, Copy)]
pub(super) struct PrEntry {
    pub(super) id: i64,
    /// The safe output's PR number (with `made == Made::Full`).
    pub(super) number: i64,
    /// The safe output's repository as its row writes it, interned in [`PrIndex::repos`]
    /// (with `made == Made::Full`).
    pub(super) repo: u32,
    /// The agent of the id's first claim (its folder, or its `agent` column).
    pub(super) agent: u8,
    pub(super) made: Made,
}

/// What the second pass made of a PR id.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Made {
    /// No safe output (yet, or ever: a human PR, a collision).
    Nothing,
    /// A safe output without a repository or number: its PR has no lists.
    Bare,
    /// A safe output with its repository and number: its lists are found.
    Full,
}

/// (repository, lowercase, interned; number) -> the PR of its first claim.
#[derive(Clone, Copy)]
struct ByNumber {
    number: i64,
    repo: u32,
    /// Position in [`PrIndex::prs`].
    pr: u32,
}

/// How the rows of PR-keyed tables find their PR and agent.
#[derive(Default)]
pub(super) struct PrIndex {
    /// One entry per PR id, sorted by id.
    prs: Vec<PrEntry>,
    /// Sorted by (repository, number), one per pair.
    by_number: Vec<ByNumber>,
    /// Repository names: lowercase (for lookups by name) and as the PR rows write them
    /// (for capture paths). A name already lowercase is one entry.
    pub(super) repos: Interner,
    /// (review id, PR id), sorted by review id, the first seen of each kept.
    review: Vec<(i64, i64)>,
}

impl PrIndex {
    /// The index of PR ids `prs` (sorted by id, distinct) and of (repository, number)
    /// pairs `by_number` (sorted, distinct; each with its PR's id).
    pub(super) fn new(prs: Vec<PrEntry>, pairs: impl Iterator<Item = (u32, i64, i64)>, count: usize, repos: Interner) -> PrIndex {
        let mut by_number = Vec::with_capacity(count);
        for (repo, number, id) in pairs {
            if let Ok(k) = prs.binary_search_by_key(&id, |p| p.id) {
                // Positions fit: there is at most one PR per claim, and `claim` refuses more than u32::MAX.
                by_number.push(ByNumber { number, repo, pr: k as u32 });
            }
        }
        PrIndex { prs, by_number, repos, review: Vec::new() }
    }

    pub(super) fn get(&self, id: i64) -> Option<&PrEntry> {
        self.prs.binary_search_by_key(&id, |p| p.id).ok().map(|k| &self.prs[k])
    }

    pub(super) fn get_mut(&mut self, id: i64) -> Option<&mut PrEntry> {
        self.prs.binary_search_by_key(&id, |p| p.id).ok().map(|k| &mut self.prs[k])
    }

    /// The PR id of (repository, lowercase, interned; number).
    pub(super) fn by_number(&self, repo: u32, number: i64) -> Option<i64> {
        let k = self.by_number.binary_search_by_key(&(repo, number), |b| (b.repo, b.number)).ok()?;
        self.prs.get(self.by_number[k].pr as usize).map(|p| p.id)
    }

    /// The PR of a review.
    pub(super) fn review(&self, review: i64) -> Option<i64> {
        self.review.binary_search_by_key(&review, |r| r.0).ok().map(|k| self.review[k].1)
    }

    /// Reviews read (review id, PR id), in reading order: a review id seen before keeps
    /// its first PR.
    pub(super) fn add_reviews(&mut self, reviews: Vec<(i64, i64)>) {
        let before = self.review.len();
        self.review.extend(reviews);
        // Stable: of equal review ids, the earlier read stays first, and dedup keeps it.
        self.review[before..].sort_by_key(|r| r.0);
        if before > 0 {
            self.review.sort_by_key(|r| r.0);
        }
        self.review.dedup_by_key(|r| r.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(id: i64, agent: u8) -> PrEntry {
        PrEntry { id, number: 0, repo: NONE, agent, made: Made::Nothing }
    }

    #[test]
    fn finds_prs_by_id_by_number_and_by_review() {
        let mut repos = Interner::default();
        let r = repos.id("octo/cat").expect("numbered");
        let prs = vec![entry(3, 0), entry(7, 1), entry(9, 2)];
        let mut index = PrIndex::new(prs, vec![(r, 1, 7), (r, 2, 9), (r, 3, 4)].into_iter(), 3, repos);
        assert_eq!(index.get(7).map(|p| p.agent), Some(1));
        assert!(index.get(4).is_none());
        assert_eq!(index.by_number(r, 2), Some(9));
        // A pair whose id is not a PR of the index is not kept.
        assert_eq!(index.by_number(r, 3), None);
        index.add_reviews(vec![(100, 7), (50, 3), (100, 9)]);
        index.add_reviews(vec![(50, 9), (60, 9)]);
        assert_eq!(index.review(100), Some(7));
        assert_eq!(index.review(50), Some(3));
        assert_eq!(index.review(60), Some(9));
        assert_eq!(index.review(1), None);
        if let Some(p) = index.get_mut(9) {
            p.made = Made::Full;
        }
        assert_eq!(index.get(9).map(|p| p.made), Some(Made::Full));
    }
}
