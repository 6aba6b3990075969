//! A commit's SHA as records give it, whole or abbreviated, and the one rule by which two
//! of them name the same commit. Every place that matches commits uses it: reverts against
//! a PR's commits (durability), pushed commits against a PR's commit list, a trace's commits
//! against the snapshot's PRs (attach), the CI gate replay's commits against what a loop
//! recorded, and a task's head against the snapshot's CI.
//!
//! The rule:
//! - hex digits only, in either case: git prints lower case, but records and people copy
//!   SHAs in either (`ABCDEF1` and `abcdef1` are one commit);
//! - at least [`MIN_ABBREV`] digits: 7 is the shortest abbreviation git prints unless asked
//!   for less (`core.abbrev`'s floor; git 2.11 and later grow it with the repository) and
//!   what GitHub shows, so every short SHA a record copied from git or GitHub is that long;
//!   fewer digits would let a fragment of text (a word such as `decade`) name a commit;
//! - a full SHA ([`SHA1_LEN`] digits, or [`SHA256_LEN`] in a SHA-256 repository) matches
//!   only the same full SHA, compared exactly; an abbreviated one matches every SHA that
//!   starts with it (and a full one is never an abbreviation of a longer one).

/// Git's shortest abbreviated SHA by default (`core.abbrev`): shorter is no commit name.
pub const MIN_ABBREV: usize = 7;
/// A full SHA-1 commit name.
pub(crate) const SHA1_LEN: usize = 40;
/// A full SHA-256 commit name (a repository in git's SHA-256 object format).
pub(crate) const SHA256_LEN: usize = 64;

/// A commit's name: lower-case hex, [`MIN_ABBREV`] to [`SHA256_LEN`] digits. Ordered as
/// its text, so SHAs that start with one another sort together.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Sha(String);

impl Sha {
    /// `s` as a commit name, or `None` when it is not one: not hex, shorter than
    /// [`MIN_ABBREV`] or longer than [`SHA256_LEN`].
    pub fn parse(s: &str) -> Option<Sha> {
        is_name(s).then(|| Sha(s.to_ascii_lowercase()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Its own abbreviations, shortest first: every shorter commit name it starts with.
    pub fn abbreviations(&self) -> impl Iterator<Item = Sha> + '_ {
        (MIN_ABBREV..self.0.len()).map(|end| Sha(self.0[..end].to_string()))
    }

    /// Whether the two name the same commit: the same full name, or one an abbreviation of
    /// the other.
    pub fn matches(&self, other: &Sha) -> bool {
        same_commit(&self.0, &other.0)
    }
}

/// Hex, [`MIN_ABBREV`] to [`SHA256_LEN`] digits.
fn is_name(s: &str) -> bool {
    (MIN_ABBREV..=SHA256_LEN).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// A whole name (SHA-1 or SHA-256), not an abbreviation.
fn is_full(s: &str) -> bool {
    matches!(s.len(), SHA1_LEN | SHA256_LEN)
}

/// Whether two SHAs as records give them name the same commit: the rule of this module,
/// in one place ([`Sha::matches`] is this). Text that is no commit name matches nothing.
pub fn same_commit(a: &str, b: &str) -> bool {
    if !is_name(a) || !is_name(b) {
        return false;
    }
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    if is_full(short) {
        short.len() == long.len() && short.eq_ignore_ascii_case(long)
    } else {
        long[..short.len()].eq_ignore_ascii_case(short)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FULL: &str = "0123456789abcdef0123456789abcdef01234567";

    #[test]
    fn an_abbreviation_of_seven_or_more_matches_either_way_in_any_case() {
        assert!(same_commit(FULL, "0123456"));
        assert!(same_commit("0123456", FULL));
        assert!(same_commit(&FULL.to_uppercase(), "0123456789AbCdEf"));
        assert!(same_commit("ABCDEF1234", "abcdef1"));
        assert!(!same_commit("abcdef1", "abcdef2"));
        // Six digits name no commit, even an equal six.
        assert!(!same_commit(FULL, "012345"));
        assert!(!same_commit("abcdef", "abcdef"));
    }

    #[test]
    fn full_names_compare_exactly() {
        let other = format!("{}89", &FULL[..38]);
        assert!(same_commit(FULL, FULL) && !same_commit(FULL, &other));
        // A full SHA-1 is no abbreviation of a SHA-256 that happens to start with it.
        let sha256 = format!("{FULL}{}", "0".repeat(SHA256_LEN - SHA1_LEN));
        assert!(!same_commit(FULL, &sha256));
        assert!(same_commit(&sha256[..41], &sha256) && same_commit(&sha256.to_uppercase(), &sha256));
    }

    #[test]
    fn text_that_is_no_commit_name_matches_nothing() {
        for bad in ["", "main", "0123456-", " 0123456", "g123456789", "0123456789\u{e9}", &"0".repeat(SHA256_LEN + 1)] {
            assert_eq!(Sha::parse(bad), None, "{bad:?}");
            assert!(!same_commit(bad, bad), "{bad:?}");
        }
        assert_eq!(Sha::parse("ABCDEF1").map(|s| s.as_str().to_string()).as_deref(), Some("abcdef1"));
    }

    #[test]
    fn abbreviations_are_the_shorter_names_it_matches() {
        let sha = Sha::parse("ABCDEF123").unwrap();
        let abbrev: Vec<String> = sha.abbreviations().map(|a| a.as_str().to_string()).collect();
        assert_eq!(abbrev, ["abcdef1", "abcdef12"]);
        assert!(sha.abbreviations().all(|a| a.matches(&sha) && !is_full(a.as_str())));
    }
}
