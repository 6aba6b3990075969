//! When two reviewer comments say the same thing: a deterministic text similarity over
//! normalized word sets ([SPEC-TASKS-MEMORY] asks for semantic duplicates; hindsight stays
//! offline and reproducible, so no embedding model).
//!
//! Normalization, in order:
//! 1. Lines quoting earlier text (`> ...`), HTML comments (`<!-- ... -->`) and fenced
//!    blocks (```` ``` ````, pasted logs and suggestions) are dropped: they repeat someone
//!    else's words or a tool's. Links (`http://`, `https://`) and mentions (`@name`) are
//!    dropped: they say where or to whom, not what.
//! 2. Lower-cased, the text is cut into words: runs of letters and digits (`_` counts as a
//!    letter, so `snake_case` names stay whole); everything else separates. Words of digits
//!    only (line numbers, ids) are dropped.
//! 3. Words of one character and [`STOPWORDS`] are dropped: function words, negations,
//!    politeness and praise. Review feedback names a practice whether it is phrased
//!    "don't X" or "use Y instead of X", so the practice's words carry the meaning;
//!    "looks good, thanks" is no feedback at all. Quantifiers such as `any` and `all` are
//!    kept: in code review they often name things (TypeScript's `any`, Python's `all`).
//! 4. A plural `s` is cut from words of four letters or more (not after `s`, `u`, `i`;
//!    not from identifiers with `_` or digits): `types` and `type` are one word.
//!
//! Two comments say the same thing when both keep at least `min_tokens` words, the shorter
//! has at least `min_size_ratio` times the words of the longer, and the overlap coefficient
//! of their word sets, |A ∩ B| / min(|A|, |B|), reaches the threshold. The overlap
//! coefficient, not Jaccard or cosine, because feedback repeated later is often a short
//! form of the first (or the first a short form of the later): "don't use any" is all
//! contained in "please use proper TypeScript types instead of any". The size ratio,
//! because two words found somewhere in a long comment are usually there by chance.
//!
//! A comment whose first line starts with `/` and a letter (`/azp run`, `/check-enforcer
//! override`) is a command to a bot, not a reviewer's words: [`is_command`].

use std::collections::BTreeSet;

/// Function words, negations, politeness and praise (lower case, whole words).
pub(crate) const STOPWORDS: &[&str] = &[
    "a",
    "about",
    "above",
    "after",
    "again",
    "against",
    "also",
    "am",
    "an",
    "and",
    "are",
    "aren",
    "as",
    "at",
    "be",
    "because",
    "been",
    "before",
    "being",
    "below",
    "between",
    "both",
    "but",
    "by",
    "can",
    "cannot",
    "could",
    "couldn",
    "did",
    "didn",
    "do",
    "does",
    "doesn",
    "doing",
    "don",
    "down",
    "during",
    "each",
    "else",
    "etc",
    "few",
    "for",
    "from",
    "further",
    "had",
    "hadn",
    "has",
    "hasn",
    "have",
    "haven",
    "having",
    "he",
    "her",
    "here",
    "hers",
    "herself",
    "him",
    "himself",
    "his",
    "how",
    "i",
    "if",
    "in",
    "into",
    "is",
    "isn",
    "it",
    "its",
    "itself",
    "just",
    "let",
    "ll",
    "me",
    "might",
    "more",
    "most",
    "must",
    "mustn",
    "my",
    "myself",
    "need",
    "needn",
    "no",
    "nor",
    "not",
    "now",
    "of",
    "off",
    "on",
    "once",
    "only",
    "or",
    "other",
    "our",
    "ours",
    "ourselves",
    "out",
    "over",
    "own",
    "re",
    "same",
    "shall",
    "shan",
    "she",
    "should",
    "shouldn",
    "so",
    "some",
    "such",
    "than",
    "that",
    "the",
    "their",
    "theirs",
    "them",
    "themselves",
    "then",
    "there",
    "these",
    "they",
    "this",
    "those",
    "through",
    "to",
    "too",
    "under",
    "until",
    "up",
    "ve",
    "very",
    "was",
    "wasn",
    "we",
    "were",
    "weren",
    "what",
    "when",
    "where",
    "which",
    "while",
    "who",
    "whom",
    "why",
    "will",
    "with",
    "won",
    "would",
    "wouldn",
    "you",
    "your",
    "yours",
    "yourself",
    "yourselves",
    // politeness and praise
    "please",
    "pls",
    "thanks",
    "thank",
    "thx",
    "lgtm",
    "looks",
    "look",
    "good",
    "great",
    "nice",
    "awesome",
    "cool",
    "ok",
    "okay",
    "sure",
    "yes",
    "yeah",
    "nit",
    "nits",
    "maybe",
    "perhaps",
    "think",
    "probably",
    "hi",
    "hey",
    "hello",
];

/// Whether a comment is a command to a bot: its first non-blank line starts with `/` and a
/// letter.
pub(crate) fn is_command(text: &str) -> bool {
    let first = text.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("");
    first.strip_prefix('/').and_then(|r| r.chars().next()).is_some_and(|c| c.is_ascii_alphabetic())
}

/// The normalized word set of a comment, sorted.
pub(crate) fn tokens(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut fenced = false;
    for line in without_html_comments(text).lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            fenced = !fenced;
            continue;
        }
        if fenced || trimmed.starts_with('>') {
            continue;
        }
        let lower = line.to_lowercase();
        for piece in lower.split_whitespace() {
            // A link or a mention anywhere in the piece (`(https://…)`, `@name,`) drops it.
            if piece.contains("http://") || piece.contains("https://") || piece.trim_start_matches(|c: char| !c.is_alphanumeric() && c != '@').starts_with('@')
            {
                continue;
            }
            for word in piece.split(|c: char| !(c.is_alphanumeric() || c == '_')) {
                if word.chars().count() < 2 || is_stopword(word) || word.chars().all(|c| c.is_ascii_digit()) {
                    continue;
                }
                let word = stem(word);
                // Most words of a comment come again: a copy is made for a new one only.
                if !out.contains(word) {
                    out.insert(word.to_string());
                }
            }
        }
    }
    out
}

/// Whether `word` is one of [`STOPWORDS`]: a binary search of them sorted once, as every
/// word of every comment is looked up.
fn is_stopword(word: &str) -> bool {
    static SORTED: std::sync::LazyLock<Vec<&'static str>> = std::sync::LazyLock::new(|| {
        let mut words = STOPWORDS.to_vec();
        words.sort_unstable();
        words
    });
    SORTED.binary_search(&word).is_ok()
}

fn without_html_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("<!--") {
        out.push_str(&rest[..start]);
        match rest[start..].find("-->") {
            Some(end) => rest = &rest[start + end + 3..],
            None => return out,
        }
    }
    out.push_str(rest);
    out
}

fn stem(word: &str) -> &str {
    // Identifiers (`parse_args`, `utf8s`) are names, not plurals.
    if word.len() >= 4
        && word.chars().all(char::is_alphabetic)
        && word.ends_with('s')
        && !word.ends_with("ss")
        && !word.ends_with("us")
        && !word.ends_with("is")
    {
        &word[..word.len() - 1]
    } else {
        word
    }
}

/// A comment's word set as kept: its words in order, joined by single spaces (the
/// `tokens` column as written). One string instead of a set of strings, because a study
/// holds every comment's words at once (a million outputs: 3.3M words, ~200 MB as sets).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Words {
    joined: Box<str>,
}

impl Words {
    /// The words, in order (no word holds a space: [`tokens`] splits on them).
    pub(crate) fn iter(&self) -> impl Iterator<Item = &str> {
        self.joined.split(' ').filter(|w| !w.is_empty())
    }

    /// The words joined by single spaces.
    pub(crate) fn as_str(&self) -> &str {
        &self.joined
    }
}

impl<S: AsRef<str>> FromIterator<S> for Words {
    /// From words already sorted and distinct (a set's order).
    fn from_iter<I: IntoIterator<Item = S>>(words: I) -> Self {
        let mut joined = String::new();
        for w in words {
            if !joined.is_empty() {
                joined.push(' ');
            }
            joined.push_str(w.as_ref());
        }
        Words { joined: joined.into_boxed_str() }
    }
}

/// The overlap coefficient of two word sets; `None` when either has fewer than `min_tokens`
/// words (too little said to compare) or the shorter has fewer than `min_size_ratio` times
/// the words of the longer.
#[cfg(test)]
pub(crate) fn overlap(a: &Words, b: &Words, min_tokens: usize, min_size_ratio: f64) -> Option<f64> {
    let (x, y): (BTreeSet<&str>, BTreeSet<&str>) = (a.iter().collect(), b.iter().collect());
    comparable(x.len(), y.len(), min_tokens, min_size_ratio).then(|| coefficient(x.intersection(&y).count(), x.len(), y.len()))
}

/// Whether sets of `a` and `b` words are compared at all ([`overlap`]'s size conditions).
pub(crate) fn comparable(a: usize, b: usize, min_tokens: usize, min_size_ratio: f64) -> bool {
    let (min, max) = (a.min(b), a.max(b));
    // A share written as a fraction (1/3) is met exactly, not missed by rounding.
    min >= min_tokens.max(1) && (min as f64) + 1e-9 >= min_size_ratio * max as f64
}

/// The overlap coefficient of sets of `a` and `b` words sharing `shared`.
pub(crate) fn coefficient(shared: usize, a: usize, b: usize) -> f64 {
    shared as f64 / a.min(b) as f64
}

/// The fewest words a set of `n` words is compared with: `min_tokens`, and `min_size_ratio`
/// of `n` ([`overlap`]'s size conditions).
pub(crate) fn smallest_partner(n: usize, min_tokens: usize, min_size_ratio: f64) -> usize {
    min_tokens.max((min_size_ratio * n as f64 - 1e-9).ceil() as usize).min(n)
}

/// How many of a set's `n` words, ordered the same way for every set (rarest first), find
/// every set of `partner` words or more that it reaches `threshold` with (prefix filtering).
/// Such a pair shares at least `o` = ⌈threshold × partner⌉ words, and two sets sharing `o`
/// words share one among the first `n - o + 1` words of each. So with the larger set's
/// prefix for its smallest partner ([`smallest_partner`]) and the smaller's for itself
/// (`partner` = `n`), every pair that reaches the threshold shares a word of the two
/// prefixes (a test checks it against every pair).
pub(crate) fn prefix_len(n: usize, partner: usize, threshold: f64) -> usize {
    let needed = ((threshold * partner as f64 - 1e-9).ceil() as usize).max(1);
    (n + 1).saturating_sub(needed).min(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sim(a: &str, b: &str) -> Option<f64> {
        overlap(&tokens(a).iter().collect(), &tokens(b).iter().collect(), 2, 1.0 / 3.0)
    }

    fn words(t: &str) -> Vec<String> {
        tokens(t).into_iter().collect()
    }

    /// A comment's words as held give back the set they were made from, in its order, and
    /// are written as the `tokens` column was: sorted, joined by single spaces.
    #[test]
    fn words_as_held_are_the_set_in_order() {
        for text in ["Please use proper TypeScript types instead of any.", "LGTM", "", "rename parse_args, rename it"] {
            let set = tokens(text);
            let held: Words = set.iter().collect();
            assert_eq!(held.iter().collect::<Vec<_>>(), set.iter().map(String::as_str).collect::<Vec<_>>(), "{text}");
            assert_eq!(held.as_str(), set.iter().map(String::as_str).collect::<Vec<_>>().join(" "), "{text}");
        }
        assert_eq!(tokens("").iter().collect::<Words>().iter().count(), 0, "no words: an empty list, not one empty word");
    }

    /// Every stop word, and only those, reads as one (the list stays grouped by kind).
    #[test]
    fn every_stopword_and_no_other_word_is_found() {
        assert!(STOPWORDS.iter().all(|w| is_stopword(w)));
        for word in ["type", "any", "all", "rename", "", "zzz", "aa"] {
            assert_eq!(is_stopword(word), STOPWORDS.contains(&word), "{word}");
        }
    }

    #[test]
    fn normalization() {
        assert_eq!(words("Don't use `any` here!"), ["any", "use"]);
        assert_eq!(words("Please use proper TypeScript types instead of any."), ["any", "instead", "proper", "type", "typescript", "use"]);
        assert_eq!(words("> don't use any\n<!-- bot marker -->Rename `parse_args` please"), ["parse_args", "rename"]);
        // `class` and `status` keep their s; a one-letter word is no word.
        assert_eq!(words("class status x"), ["class", "status"]);
        assert!(words("LGTM, thanks!").is_empty());
        assert!(words("Looks good to me").is_empty());
        // Mentions, links, numbers and fenced blocks say to whom, where and what a tool said.
        assert_eq!(words("@copilot fix the linting error in #123 (see https://example.com/x)"), ["error", "fix", "linting", "see"]);
        assert_eq!(words("Tests fail:\n```\nerror TS2339: Property 'x'\n```\nplease fix"), ["fail", "fix", "test"]);
    }

    /// Prefix filtering loses no pair that reaches the threshold: random sets of 0 to 12 words
    /// over dense and sparse vocabularies, thresholds and size ratios at and between the steps
    /// word sets move in (4/5, 2/3, 3/4, 1/3), against every pair.
    #[test]
    fn prefixes_keep_every_similar_pair() {
        let mut seed = 7u64;
        let mut next = |m: u64| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) % m
        };
        let configs =
            [(0.8, 2, 1.0 / 3.0), (0.5, 1, 0.0), (1.0, 2, 0.5), (0.34, 3, 0.25), (2.0 / 3.0, 1, 1.0 / 3.0), (0.75, 2, 1.0), (0.2, 1, 0.0), (0.6, 2, 0.6)];
        for vocabulary in [6, 14, 40] {
            for (threshold, min_tokens, ratio) in configs {
                let sets: Vec<BTreeSet<String>> = (0..150).map(|_| (0..next(13)).map(|_| format!("w{}", next(vocabulary))).collect()).collect();
                let mut df: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
                for w in sets.iter().flatten() {
                    *df.entry(w.as_str()).or_insert(0) += 1;
                }
                // Each set's words rarest first, and its prefixes for its smallest partner
                // (long) and for itself (short).
                let prefixes: Vec<(BTreeSet<&str>, BTreeSet<&str>)> = sets
                    .iter()
                    .map(|set| {
                        let mut words: Vec<&str> = set.iter().map(String::as_str).collect();
                        words.sort_by_key(|w| (df[w], *w));
                        let n = words.len();
                        let long = prefix_len(n, smallest_partner(n, min_tokens, ratio), threshold);
                        let short = prefix_len(n, n, threshold);
                        assert!(short <= long, "{n} words: the prefix for itself is the shorter");
                        (words[..long].iter().copied().collect(), words[..short].iter().copied().collect())
                    })
                    .collect();
                let (mut similar, mut sharing, mut pairs) = (0, 0, 0);
                for i in 0..sets.len() {
                    for j in i + 1..sets.len() {
                        // The larger set's long prefix meets the smaller's short one.
                        let (large, small) = if sets[i].len() >= sets[j].len() { (i, j) } else { (j, i) };
                        let share = !prefixes[large].0.is_disjoint(&prefixes[small].1);
                        pairs += 1;
                        sharing += usize::from(share);
                        if overlap(&sets[i].iter().collect(), &sets[j].iter().collect(), min_tokens, ratio).is_some_and(|s| s + 1e-12 >= threshold) {
                            assert!(share, "{threshold} {min_tokens} {ratio}: {:?} ~ {:?} lost", sets[i], sets[j]);
                            similar += 1;
                        }
                    }
                }
                assert!(similar > 0, "{vocabulary} {threshold}: no similar pair to lose");
                // And it prunes over a vocabulary larger than a set: fewer pairs than all.
                if vocabulary > 12 && threshold > 0.5 {
                    assert!(sharing < pairs, "{vocabulary} {threshold}: nothing pruned");
                }
            }
        }
    }

    #[test]
    fn commands_to_bots() {
        assert!(is_command("/azp run"));
        assert!(is_command("\n  /check-enforcer override"));
        assert!(!is_command("// TODO is not a command"));
        assert!(!is_command("/ 2 is division"));
        assert!(!is_command("Use /tmp instead"));
    }

    #[test]
    fn the_same_feedback_in_other_words_is_similar() {
        assert_eq!(sim("don't use any", "please use proper TypeScript types instead of any"), Some(1.0));
        assert_eq!(sim("Add a test for the empty input case.", "add a test for the empty input case please"), Some(1.0));
        assert_eq!(sim("Please add tests", "add a test for the parser"), Some(1.0));
    }

    #[test]
    fn different_feedback_is_not() {
        // One shared word of two.
        assert_eq!(sim("don't use any", "use a map instead of a list"), Some(0.5));
        assert_eq!(sim("Split this into smaller PRs.", "don't use any"), Some(0.0));
        // Too little said to compare.
        assert_eq!(sim("LGTM", "LGTM"), None);
        assert_eq!(sim("Why?", "Why?"), None);
        // Two words found inside a longer comment: below a third of its words (real, AIDev-pop
        // Devin reviews on airbytehq/airbyte 53607 and 55244, fixtures/real/aidev-feedback).
        assert_eq!(words("If/when tests pass, this looks good."), ["pass", "test"]);
        let words = |t: &str| tokens(t).iter().collect::<Words>();
        assert_eq!(overlap(&words("If/when tests pass, this looks good."), &words("a b c merge review correct incline know pass test"), 2, 1.0 / 3.0), None);
    }
}
