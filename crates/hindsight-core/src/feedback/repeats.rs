//! Repeated mistakes: for each reviewer comment, the comment of an earlier PR it repeats best.
//!
//! The definition compares every pair: a comment `r` repeats a comment `e` when `e` is on
//! another PR of the same repository (by the same author under `scope: same_author`), `e` was
//! written before `r`'s PR was opened, and their word sets reach the threshold
//! ([`similarity::overlap`]). Of those, `r` repeats the one of highest overlap; on a tie the
//! earliest by (time, PR number, source, comment id).
//!
//! The search gives that answer without comparing every pair:
//! 1. Comments are grouped by repository (and PR author under `same_author`): only comments
//!    of one group are compared, and groups are searched in parallel.
//! 2. A group lines its comments up in the tie-break order. The comments written before a
//!    PR was opened are then a prefix of the line, and a search that walks the line forward
//!    can stop at the first overlap of 1: nothing scores higher, and later ones lose a tie.
//! 3. Words are ranked rarest first in the group, and each comment is indexed under its
//!    first words twice ([`similarity::prefix_len`]): enough of them to find the smallest
//!    comment it may be compared with (long), and enough to find one of its own size or
//!    larger (short). A pair that reaches the threshold shares a word of the larger's long
//!    prefix and the smaller's short one. A comment is compared with the earlier comments
//!    these words lead to, or with the line's whole prefix when that is fewer (in a small
//!    vocabulary most words are in most comments).
//! 4. Shared words are counted on ranks: the group's [`COMMON`] most frequent words as bits,
//!    the others by merging two sorted lists.

use std::collections::{BTreeMap, HashMap};

use rayon::prelude::*;

use super::similarity;
use super::{FeedbackPolicy, Pr, Remark, RepeatScope};
use crate::time::Instant;

/// Set `repeats` of every comment that repeats an earlier PR's comment.
pub(super) fn find_repeats(prs: &[Pr], remarks: &mut [Remark], policy: &FeedbackPolicy) {
    let (found, _) = search(prs, remarks, policy);
    for (k, e, score) in found {
        remarks[k].repeats = Some((e, score));
    }
}

/// (comment, the comment it repeats, overlap) for each comment that repeats one, in the
/// groups' order whatever the thread count, and the number of pairs compared.
fn search(prs: &[Pr], remarks: &[Remark], policy: &FeedbackPolicy) -> (Vec<(usize, usize, f64)>, u64) {
    let groups: Vec<Vec<usize>> = groups(prs, remarks, policy.scope).into_values().collect();
    let results: Vec<(Vec<(usize, usize, f64)>, u64)> = groups.into_par_iter().map(|members| Group::new(prs, remarks, members, policy).search()).collect();
    let compared = results.iter().map(|(_, n)| n).sum();
    (results.into_iter().flat_map(|(found, _)| found).collect(), compared)
}

/// The comments that can be compared (words and a time), by repository and, under
/// `same_author`, by the PR author's login in lower case (a PR without one repeats nothing).
fn groups<'a>(prs: &'a [Pr], remarks: &[Remark], scope: RepeatScope) -> BTreeMap<(&'a str, Option<String>), Vec<usize>> {
    let mut groups: BTreeMap<(&str, Option<String>), Vec<usize>> = BTreeMap::new();
    for (k, r) in remarks.iter().enumerate() {
        if r.tokens.is_none() || r.created_at.is_none() {
            continue;
        }
        let pr = &prs[r.pr];
        let author = match scope {
            RepeatScope::Repository => None,
            RepeatScope::SameAuthor => match &pr.author {
                Some(a) => Some(a.to_ascii_lowercase()),
                None => continue,
            },
        };
        groups.entry((pr.repo.as_str(), author)).or_default().push(k);
    }
    groups
}

/// One group's comments, lined up and indexed.
struct Group<'a> {
    prs: &'a [Pr],
    remarks: &'a [Remark],
    policy: &'a FeedbackPolicy,
    /// The comments (indices into `remarks`) by (time, PR number, source, id, index).
    line: Vec<usize>,
    /// When each comment of the line was written.
    written: Vec<Instant>,
    /// Each comment's words as ranks in the group (rarest first), ascending.
    words: Vec<Vec<u32>>,
    /// Each comment's words among the group's [`COMMON`] most frequent, as bits; its other
    /// words are the first `rare[k]` of `words[k]`.
    common: Vec<u64>,
    rare: Vec<usize>,
    /// How many of its first words find the comments it may repeat that are no larger
    /// (`long`) and larger (`short`) ([`similarity::prefix_len`]).
    long: Vec<usize>,
    short: Vec<usize>,
    /// By rank: the line positions of the comments whose long (`in_long`) or short
    /// (`in_short`) prefix holds the word, ascending.
    in_long: Vec<Vec<u32>>,
    in_short: Vec<Vec<u32>>,
}

/// How many of a group's most frequent words are compared as bits, one machine word: a
/// small vocabulary (or the common words of a large one) costs a pair one AND.
const COMMON: usize = 64;

impl<'a> Group<'a> {
    /// Line up a group's comments, rank their words and index each under its first words.
    fn new(prs: &'a [Pr], remarks: &'a [Remark], mut line: Vec<usize>, policy: &'a FeedbackPolicy) -> Self {
        line.sort_by_key(|&k| {
            let r = &remarks[k];
            (r.created_at, prs[r.pr].number, r.source, r.id, k)
        });
        let written: Vec<Instant> = line.iter().filter_map(|&k| remarks[k].created_at).collect();
        let sets: Vec<_> = line.iter().filter_map(|&k| remarks[k].tokens.as_ref()).collect();
        // foldhash, not SipHash: every word of every comment is counted and ranked here.
        let mut df: HashMap<&str, u32, foldhash::fast::FixedState> = HashMap::default();
        for w in sets.iter().flat_map(|s| s.iter()) {
            *df.entry(w).or_insert(0) += 1;
        }
        let mut vocabulary: Vec<(u32, &str)> = df.iter().map(|(w, n)| (*n, *w)).collect();
        vocabulary.sort_unstable();
        let rank: HashMap<&str, u32, foldhash::fast::FixedState> = vocabulary.iter().enumerate().map(|(k, (_, w))| (*w, k as u32)).collect();
        let words: Vec<Vec<u32>> = sets
            .iter()
            .map(|set| {
                let mut ranks: Vec<u32> = set.iter().map(|w| rank[w]).collect();
                ranks.sort_unstable();
                ranks
            })
            .collect();
        let first_common = vocabulary.len().saturating_sub(COMMON) as u32;
        let rare: Vec<usize> = words.iter().map(|w| w.partition_point(|&r| r < first_common)).collect();
        let common: Vec<u64> = words.iter().zip(&rare).map(|(w, &n)| w[n..].iter().fold(0u64, |bits, &r| bits | 1 << (r - first_common))).collect();
        let long: Vec<usize> = words
            .iter()
            .map(|w| similarity::prefix_len(w.len(), similarity::smallest_partner(w.len(), policy.min_tokens, policy.min_size_ratio), policy.threshold))
            .collect();
        let short: Vec<usize> = words.iter().map(|w| similarity::prefix_len(w.len(), w.len(), policy.threshold)).collect();
        let postings = |prefix: &[usize]| {
            let mut lists: Vec<Vec<u32>> = vec![Vec::new(); vocabulary.len()];
            for (at, w) in words.iter().enumerate() {
                for &word in &w[..prefix[at]] {
                    lists[word as usize].push(at as u32);
                }
            }
            lists
        };
        let (in_long, in_short) = (postings(&long), postings(&short));
        Group { prs, remarks, policy, line, written, words, common, rare, long, short, in_long, in_short }
    }

    /// The best repeat of every comment of the group, in line order, and the number of
    /// pairs compared.
    fn search(&self) -> (Vec<(usize, usize, f64)>, u64) {
        let each: Vec<(Option<(usize, usize, f64)>, u64)> = (0..self.line.len()).into_par_iter().map(|at| self.repeat(at)).collect();
        let compared = each.iter().map(|(_, n)| n).sum();
        (each.into_iter().filter_map(|(found, _)| found).collect(), compared)
    }

    /// The best repeat of the comment at `at`, and the number of pairs compared.
    fn repeat(&self, at: usize) -> (Option<(usize, usize, f64)>, u64) {
        let Some(opened) = self.prs[self.remarks[self.line[at]].pr].created_at else { return (None, 0) };
        // The comments written before the PR was opened.
        let before = self.written.partition_point(|&w| w < opened);
        // An earlier comment no larger shares a word of this one's long prefix and its own
        // short prefix; a larger one, a word of this one's short prefix and its long prefix.
        let words = &self.words[at];
        let mut indexed: Vec<&[u32]> = Vec::new();
        for (prefix, lists) in [(&words[..self.long[at]], &self.in_short), (&words[..self.short[at]], &self.in_long)] {
            for &word in prefix {
                let list = &lists[word as usize];
                indexed.push(&list[..list.partition_point(|&p| (p as usize) < before)]);
            }
        }
        let (best, compared) = if indexed.iter().map(|l| l.len()).sum::<usize>() < before {
            let mut candidates: Vec<u32> = indexed.into_iter().flatten().copied().collect();
            candidates.sort_unstable();
            candidates.dedup();
            self.best(at, candidates.into_iter().map(|p| p as usize))
        } else {
            self.best(at, 0..before)
        };
        (best.map(|(score, e)| (self.line[at], self.line[e], score)), compared)
    }

    /// Among `earlier` (line positions, ascending), the comment of another PR that the
    /// comment at `at` repeats best: highest overlap reaching the threshold, the first on a
    /// tie; and the number of pairs compared.
    fn best(&self, at: usize, earlier: impl Iterator<Item = usize>) -> (Option<(f64, usize)>, u64) {
        let policy = self.policy;
        let pr = self.remarks[self.line[at]].pr;
        let size = self.words[at].len();
        let mut best: Option<(f64, usize)> = None;
        let mut compared = 0;
        for e in earlier {
            let other = self.words[e].len();
            if self.remarks[self.line[e]].pr == pr || !similarity::comparable(size, other, policy.min_tokens, policy.min_size_ratio) {
                continue;
            }
            compared += 1;
            let score = similarity::coefficient(self.shared(at, e), size, other);
            if score + 1e-12 < policy.threshold {
                continue;
            }
            if best.is_none_or(|(s, _)| score > s + 1e-12) {
                best = Some((score, e));
                if score >= 1.0 {
                    break;
                }
            }
        }
        (best, compared)
    }

    /// How many words the comments at line positions `a` and `b` share.
    fn shared(&self, a: usize, b: usize) -> usize {
        let common = (self.common[a] & self.common[b]).count_ones() as usize;
        let (a, b) = (&self.words[a][..self.rare[a]], &self.words[b][..self.rare[b]]);
        let (mut i, mut j, mut n) = (0, 0, common);
        while i < a.len() && j < b.len() {
            match a[i].cmp(&b[j]) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    n += 1;
                    i += 1;
                    j += 1;
                }
            }
        }
        n
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::super::Source;
    use super::*;

    /// The definition: every comment compared with every other comment, the best kept (highest
    /// overlap; on a tie the earliest by time, PR number, source, id, then the first seen).
    fn all_pairs(prs: &[Pr], remarks: &[Remark], policy: &FeedbackPolicy) -> Vec<Option<(usize, f64)>> {
        let order = |k: usize| (remarks[k].created_at, prs[remarks[k].pr].number, remarks[k].source, remarks[k].id);
        remarks
            .iter()
            .map(|r| {
                let pr = &prs[r.pr];
                let (Some(words), Some(_), Some(opened)) = (&r.tokens, r.created_at, pr.created_at) else { return None };
                let mut best: Option<(f64, usize)> = None;
                for (e, earlier) in remarks.iter().enumerate() {
                    let epr = &prs[earlier.pr];
                    if epr.repo != pr.repo || earlier.pr == r.pr || earlier.created_at.is_none_or(|at| at >= opened) {
                        continue;
                    }
                    if policy.scope == RepeatScope::SameAuthor && !matches!((&epr.author, &pr.author), (Some(a), Some(b)) if a.eq_ignore_ascii_case(b)) {
                        continue;
                    }
                    let Some(score) = earlier.tokens.as_ref().and_then(|other| similarity::overlap(words, other, policy.min_tokens, policy.min_size_ratio))
                    else {
                        continue;
                    };
                    if score + 1e-12 < policy.threshold {
                        continue;
                    }
                    if best.is_none_or(|(s, b)| score > s + 1e-12 || ((score - s).abs() <= 1e-12 && order(e) < order(b))) {
                        best = Some((score, e));
                    }
                }
                best.map(|(score, e)| (e, score))
            })
            .collect()
    }

    /// The search's answer in the same shape, and the pairs it compared.
    fn searched(prs: &[Pr], remarks: &[Remark], policy: &FeedbackPolicy) -> (Vec<Option<(usize, f64)>>, u64) {
        let (found, compared) = search(prs, remarks, policy);
        let mut out = vec![None; remarks.len()];
        for (k, e, score) in found {
            assert!(out[k].is_none(), "comment {k} answered twice");
            out[k] = Some((e, score));
        }
        (out, compared)
    }

    struct Rng(u64);

    impl Rng {
        fn below(&mut self, m: u64) -> u64 {
            self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (self.0 >> 33) % m.max(1)
        }
        fn chance(&mut self, percent: u64) -> bool {
            self.below(100) < percent
        }
    }

    fn hour(h: u64) -> Instant {
        crate::time::from_micros(1_700_000_000_000_000 + h as i64 * 3_600_000_000).expect("a time")
    }

    fn pr(repo: &str, number: i64, author: Option<&str>, created_at: Option<Instant>) -> Pr {
        Pr { repo: repo.into(), number, author: author.map(Into::into), created_at, state: None, merged: None, merged_at: None }
    }

    fn remark(pr: usize, source: Source, id: Option<i64>, created_at: Option<Instant>, words: Option<&[&str]>) -> Remark {
        let tokens = words.map(|w| w.iter().collect::<BTreeSet<_>>().into_iter().collect());
        Remark { pr, source, id, author: None, created_at, tokens, repeats: None }
    }

    /// A random study: up to three repositories, PR authors differing in case or missing,
    /// times on a few hours (ties), missing times and ids, empty and identical word sets,
    /// words from a vocabulary of `vocabulary`, comments in no particular order.
    fn study(rng: &mut Rng, vocabulary: u64, comments: u64) -> (Vec<Pr>, Vec<Remark>) {
        let authors = [Some("agent"), Some("AGENT"), Some("Agent-2"), Some("bob"), None];
        let prs: Vec<Pr> = (0..1 + rng.below(12))
            .map(|n| {
                let author = authors[rng.below(authors.len() as u64) as usize];
                let opened = (!rng.chance(8)).then(|| hour(rng.below(30)));
                pr(["r0", "r1", "r2"][rng.below(3) as usize], n as i64 % 7, author, opened)
            })
            .collect();
        let mut remarks: Vec<Remark> = Vec::new();
        for _ in 0..comments {
            let tokens: Option<similarity::Words> = match rng.below(20) {
                0 | 1 => None,
                2 => Some(similarity::Words::from_iter(BTreeSet::<String>::new())),
                3..=6 if !remarks.is_empty() => remarks[rng.below(remarks.len() as u64) as usize].tokens.clone(),
                _ => Some((0..1 + rng.below(14)).map(|_| format!("w{}", rng.below(vocabulary))).collect::<BTreeSet<_>>().into_iter().collect()),
            };
            let source = Source::ALL[rng.below(3) as usize];
            let id = (!rng.chance(10)).then(|| rng.below(6) as i64);
            let at = (!rng.chance(8)).then(|| hour(rng.below(30)));
            remarks.push(Remark { pr: rng.below(prs.len() as u64) as usize, source, id, author: None, created_at: at, tokens, repeats: None });
        }
        (prs, remarks)
    }

    fn policies() -> Vec<FeedbackPolicy> {
        let mut out = Vec::new();
        for (threshold, min_tokens, min_size_ratio) in
            [(0.8, 2, 1.0 / 3.0), (2.0 / 3.0, 1, 1.0 / 3.0), (0.75, 2, 0.5), (1.0, 1, 0.0), (0.5, 1, 0.0), (0.34, 3, 0.25), (0.6, 2, 1.0), (0.2, 1, 0.6)]
        {
            for scope in [RepeatScope::SameAuthor, RepeatScope::Repository] {
                out.push(FeedbackPolicy { threshold, min_tokens, min_size_ratio, scope, ..FeedbackPolicy::default() });
            }
        }
        out
    }

    /// The search answers what comparing every pair answers, on random studies over dense
    /// and sparse vocabularies (fewer and more words than [`COMMON`]), thresholds at and
    /// between the steps word sets move in, both scopes; and it compares fewer pairs.
    #[test]
    fn the_search_finds_what_every_pair_finds() {
        let mut rng = Rng(42);
        let (mut found, mut compared, mut all) = (0, 0, 0);
        for case in 0..600 {
            let vocabulary = [3, 8, 25, 200][case % 4];
            let comments = if case % 10 == 0 { 400 } else { rng.below(80) };
            let (prs, remarks) = study(&mut rng, vocabulary, comments);
            for policy in policies().iter().filter(|_| rng.chance(25)) {
                let expected = all_pairs(&prs, &remarks, policy);
                let (got, n) = searched(&prs, &remarks, policy);
                assert_eq!(got, expected, "case {case}, vocabulary {vocabulary}, {policy:?}");
                found += expected.iter().flatten().count();
                compared += n;
                all += (remarks.len() * remarks.len()) as u64;
            }
        }
        assert!(found > 1000, "too few repeats to judge: {found}");
        assert!(compared < all, "{compared} pairs compared, all pairs {all}");
    }

    /// Edge cases by hand: identical comments (the earliest wins), a threshold met exactly, a
    /// higher overlap found after a lower one,
    /// too few words, comments of the same PR, comments written once the PR was opened.
    #[test]
    fn ties_boundaries_and_what_never_counts() {
        let policy = FeedbackPolicy::default();
        let prs = vec![
            pr("o/r", 1, Some("agent"), Some(hour(0))),
            pr("o/r", 2, Some("Agent"), Some(hour(10))),
            pr("o/r", 3, Some("agent"), Some(hour(20))),
            pr("o/r", 4, Some("other"), Some(hour(20))),
            pr("o/x", 5, Some("agent"), Some(hour(20))),
            pr("o/r", 6, Some("agent"), Some(hour(30))),
        ];
        let ten: &[&str] = &["k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7", "k8", "k9"];
        let nine_of_ten: &[&str] = &["k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7", "k8", "other"];
        let five: &[&str] = &["add", "test", "empty", "input", "case"];
        let remarks = vec![
            // On PR 1: identical comments, the later first in the list.
            remark(0, Source::Review, Some(2), Some(hour(2)), Some(five)),
            remark(0, Source::Review, Some(1), Some(hour(2)), Some(five)),
            // On PR 2: four of its five words, 4/5 = 0.8 exactly; and one word alone.
            remark(1, Source::Review, Some(3), Some(hour(12)), Some(&["add", "test", "empty", "input", "parser"])),
            remark(1, Source::Conversation, Some(4), Some(hour(12)), Some(&["test"])),
            // On PR 3: three of five of PR 1's and PR 2's words, 0.6; and the same words as
            // on PR 1, which repeat PR 1's earliest (id 1).
            remark(2, Source::Review, Some(5), Some(hour(22)), Some(&["add", "test", "empty", "rename", "module"])),
            remark(2, Source::ReviewComment, Some(6), Some(hour(22)), Some(five)),
            // Written on PR 1 after PR 3 was opened: no earlier comment for PR 3.
            remark(0, Source::Conversation, Some(7), Some(hour(21)), Some(&["rename", "module", "add", "test", "empty"])),
            // Another author; another repository.
            remark(3, Source::Review, Some(8), Some(hour(22)), Some(five)),
            remark(4, Source::Review, Some(9), Some(hour(22)), Some(five)),
            // For PR 6: 0.9 on PR 1, then 1.0 on PR 2, which is better although later.
            remark(0, Source::Review, Some(10), Some(hour(3)), Some(nine_of_ten)),
            remark(1, Source::Review, Some(11), Some(hour(13)), Some(ten)),
            remark(5, Source::Review, Some(12), Some(hour(31)), Some(ten)),
        ];
        let (got, _) = searched(&prs, &remarks, &policy);
        assert_eq!(got, all_pairs(&prs, &remarks, &policy));
        let repeat = |k: usize| got[k].map(|(e, score)| (remarks[e].id, score));
        assert_eq!(repeat(0), None, "identical comments of one PR repeat nothing");
        assert_eq!(repeat(2), Some((Some(1), 0.8)), "0.8 meets the threshold 0.8");
        assert_eq!(repeat(3), None, "one word is too little to compare");
        assert_eq!(repeat(4), None, "three of five is 0.6, and its own words came after PR 3 was opened");
        assert_eq!(repeat(5), Some((Some(1), 1.0)), "the earliest of the identical comments");
        assert_eq!(repeat(7), None, "another author's PRs are not compared");
        assert_eq!(repeat(8), None, "another repository's PRs are not compared");
        assert_eq!(repeat(10), Some((Some(10), 0.9)));
        assert_eq!(repeat(11), Some((Some(11), 1.0)), "a higher overlap wins over an earlier comment");
        let everyone = FeedbackPolicy { scope: RepeatScope::Repository, ..FeedbackPolicy::default() };
        let (got, _) = searched(&prs, &remarks, &everyone);
        assert_eq!(got, all_pairs(&prs, &remarks, &everyone));
        assert_eq!(got[7].map(|(e, _)| remarks[e].id), Some(Some(1)), "any author's PRs under scope repository");
        // Above the step: 4/5 misses 0.81.
        let strict = FeedbackPolicy { threshold: 0.81, ..FeedbackPolicy::default() };
        let (got, _) = searched(&prs, &remarks, &strict);
        assert_eq!(got, all_pairs(&prs, &remarks, &strict));
        assert_eq!(got[2], None);
    }

    /// The same answer at any thread count.
    #[test]
    fn the_answer_does_not_depend_on_threads() {
        let mut rng = Rng(9);
        let (prs, remarks) = study(&mut rng, 25, 600);
        let policy = FeedbackPolicy { scope: RepeatScope::Repository, ..FeedbackPolicy::default() };
        let expected = all_pairs(&prs, &remarks, &policy);
        for threads in [1, 2, 3, 8] {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("a thread pool");
            let (got, _) = pool.install(|| searched(&prs, &remarks, &policy));
            assert_eq!(got, expected, "{threads} threads");
        }
    }

    /// Work grows with the comments, not with their pairs, when most of a comment's words
    /// are rare, as in prose (a repository's vocabulary grows with its comments): four times
    /// the comments cost about four times the pairs compared, where comparing every pair
    /// costs sixteen times.
    #[test]
    fn work_grows_with_the_comments_when_words_are_rare() {
        let work = |comments: u64| {
            let mut rng = Rng(comments);
            let prs: Vec<Pr> = (0..comments / 4).map(|n| pr("o/r", n as i64, Some("agent"), Some(hour(n)))).collect();
            let common = ["test", "use", "add", "fix"];
            let remarks: Vec<Remark> = (0..comments)
                .map(|k| {
                    let mut words: BTreeSet<String> = (0..2).map(|_| common[rng.below(4) as usize].to_string()).collect();
                    words.extend((0..3 + rng.below(6)).map(|_| format!("w{}", rng.below(comments * 3))));
                    let pr = rng.below(prs.len() as u64) as usize;
                    Remark {
                        pr,
                        source: Source::Review,
                        id: Some(k as i64),
                        author: None,
                        created_at: Some(hour(pr as u64)),
                        tokens: Some(words.iter().collect()),
                        repeats: None,
                    }
                })
                .collect();
            let policy = FeedbackPolicy::default();
            let (got, compared) = searched(&prs, &remarks, &policy);
            assert_eq!(got, all_pairs(&prs, &remarks, &policy));
            compared
        };
        let (small, large) = (work(500), work(2000));
        assert!(large < small * 8, "{small} pairs for 500 comments, {large} for 2000: more than linear");
    }
}
