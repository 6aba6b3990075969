//! Glob patterns for a task's file scope and for protected files. Three wildcards only, so a
//! pattern means one thing to its reader and to the gate:
//!
//! - `*` any run of characters within one path segment (never `/`), dot files included;
//! - `?` exactly one character within a segment;
//! - `**` a whole segment: any number of segments (`a/**/b` matches `a/b` and `a/x/y/b`);
//!   at the end of a pattern, one or more (`src/**` is everything under `src`, not `src`).
//!
//! No character classes, braces or escapes: `[`, `{` and `\` are literal characters.

/// A compiled pattern.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Glob {
    text: String,
    segments: Vec<Segment>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Segment {
    /// `**`.
    AnyDepth,
    /// A segment's characters, `*` and `?` among them.
    Chars(Vec<char>),
}

impl Glob {
    /// Compile `pattern`, refusing one that could never match a plain relative path (see
    /// [`path_problem`]) or that holds `**` inside a segment (`a**b` would read as `a*b` to
    /// some tools and as a path wildcard to others).
    pub(crate) fn new(pattern: &str) -> Result<Glob, String> {
        let mut segments = Vec::new();
        for seg in split_checked(pattern).map_err(|e| format!("`{}`: {e}", pattern.escape_debug()))? {
            if seg == "**" {
                segments.push(Segment::AnyDepth);
            } else if seg.contains("**") {
                return Err(format!("`{pattern}`: `**` is not a whole path segment"));
            } else {
                segments.push(Segment::Chars(seg.chars().collect()));
            }
        }
        Ok(Glob { text: pattern.to_string(), segments })
    }

    /// Whether `path` (a plain relative path, `/`-separated) matches the whole pattern.
    pub(crate) fn matches(&self, path: &str) -> bool {
        let parts: Vec<&str> = path.split('/').collect();
        match_segments(&self.segments, &parts)
    }

    pub(crate) fn as_str(&self) -> &str {
        &self.text
    }
}

/// Why `path` is not a plain relative path (`docs/a.md`), if it is not (the reason alone,
/// without the path): empty, absolute, a
/// backslash, a control character, or an empty, `.` or `..` segment. Such a path could name
/// a file that a pattern does not see, so the gate refuses to judge it.
pub(crate) fn path_problem(path: &str) -> Option<String> {
    split_checked(path).err()
}

/// The segments of a plain relative path or pattern.
fn split_checked(text: &str) -> Result<Vec<&str>, String> {
    if text.is_empty() {
        return Err("an empty path".into());
    }
    if text.starts_with('/') {
        return Err("an absolute path (expected one relative to the repository root)".into());
    }
    if text.contains('\\') {
        return Err("a backslash (paths are `/`-separated)".into());
    }
    if text.chars().any(char::is_control) {
        return Err("a control character".into());
    }
    let segments: Vec<&str> = text.split('/').collect();
    if let Some(bad) = segments.iter().find(|s| s.is_empty() || **s == "." || **s == "..") {
        return Err(if bad.is_empty() { "an empty segment (`//` or a trailing `/`)".to_string() } else { format!("a `{bad}` segment") });
    }
    Ok(segments)
}

/// `path` resolved lexically (`./`, `//` and `x/..` removed), or `None` when nothing is left
/// or `..` climbs above the root. Only the protected-file check uses it, so `./docs/governance.md`
/// is still seen as the governance file it names.
pub(crate) fn resolve(path: &str) -> Option<String> {
    let mut out: Vec<&str> = Vec::new();
    for seg in path.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                out.pop()?;
            }
            s => out.push(s),
        }
    }
    (!out.is_empty()).then(|| out.join("/"))
}

/// The whole pattern against the path's segments, in time proportional to their product
/// (the agent's result names the path, so no pattern may make it exponential): `next[j]`
/// says whether the pattern's segments after the current one match `path[j..]`, built from
/// the last pattern segment back to the first.
fn match_segments(pattern: &[Segment], path: &[&str]) -> bool {
    let n = path.len();
    let mut next = vec![false; n + 1];
    next[n] = true;
    for (i, seg) in pattern.iter().enumerate().rev() {
        let mut cur = vec![false; n + 1];
        match seg {
            Segment::AnyDepth => {
                // Any number of segments; at the end of the pattern, one or more.
                let least = usize::from(i + 1 == pattern.len());
                let mut any = false;
                for j in (0..=n).rev() {
                    step();
                    if let Some(k) = j.checked_add(least).filter(|k| *k <= n) {
                        any = any || next[k];
                        cur[j] = any;
                    }
                }
            }
            Segment::Chars(p) => {
                for j in 0..n {
                    step();
                    cur[j] = next[j + 1] && match_chars(p, path[j]);
                }
            }
        }
        next = cur;
    }
    next[0]
}

#[cfg(test)]
thread_local! {
    /// Cells of the segment table visited, counted for the test that holds matching linear.
    static STEPS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

#[inline]
fn step() {
    #[cfg(test)]
    STEPS.with(|s| s.set(s.get() + 1));
}

/// One segment against `*` and `?`: the linear greedy match with backtracking to the last
/// `*` (a `*` can always stretch, so the last one is the only one worth revisiting).
fn match_chars(p: &[char], s: &str) -> bool {
    let s: Vec<char> = s.chars().collect();
    let (mut pi, mut si) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while si < s.len() {
        match p.get(pi) {
            Some('*') => {
                star = Some((pi, si));
                pi += 1;
            }
            Some(&c) if c == '?' || c == s[si] => {
                pi += 1;
                si += 1;
            }
            _ => match star {
                Some((sp, ss)) => {
                    pi = sp + 1;
                    si = ss + 1;
                    star = Some((sp, ss + 1));
                }
                None => return false,
            },
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(pattern: &str, path: &str) -> bool {
        Glob::new(pattern).unwrap().matches(path)
    }

    #[test]
    fn literal_patterns_match_only_themselves() {
        assert!(m("docs/governance.md", "docs/governance.md"));
        assert!(!m("docs/governance.md", "docs/governance.md.bak"));
        assert!(!m("docs/governance.md", "x/docs/governance.md"));
        assert!(!m("docs/governance.md", "docs/Governance.md"));
        assert!(m("a[1]{b}.md", "a[1]{b}.md"), "classes and braces are literal");
        assert!(!m("a[1].md", "a1.md"));
    }

    #[test]
    fn star_stays_within_a_segment() {
        assert!(m("docs/*spec*.md", "docs/spec.md"));
        assert!(m("docs/*spec*.md", "docs/evaluation-spec-v2.md"));
        assert!(!m("docs/*spec*.md", "docs/sub/spec.md"));
        assert!(!m("docs/*spec*.md", "docs/spec.txt"));
        assert!(m("src/*.rs", "src/.hidden.rs"), "dot files are not special");
        assert!(m("*", "README.md"));
        assert!(!m("*", "src/a.rs"));
        assert!(m("a*b*c", "abc"));
        assert!(m("a*b*c", "axxbyyc"));
        assert!(!m("a*b*c", "axxbyy"));
        assert!(m("*a", "aaaa"));
        assert!(m("**/x", "x"));
    }

    #[test]
    fn question_mark_is_one_character() {
        assert!(m("v?.txt", "v1.txt"));
        assert!(m("v?.txt", "vé.txt"), "a character, not a byte");
        assert!(!m("v?.txt", "v.txt"));
        assert!(!m("v?.txt", "v12.txt"));
        assert!(!m("a?b", "a/b"));
    }

    #[test]
    fn double_star_spans_whole_segments() {
        assert!(m("src/**", "src/a.rs"));
        assert!(m("src/**", "src/a/b/c.rs"));
        assert!(!m("src/**", "src"), "a trailing ** needs at least one segment");
        assert!(!m("src/**", "srcx/a.rs"));
        assert!(m("**/*.md", "README.md"));
        assert!(m("**/*.md", "docs/a/b.md"));
        assert!(!m("**/*.md", "docs/a/b.rs"));
        assert!(m("a/**/b", "a/b"));
        assert!(m("a/**/b", "a/x/y/b"));
        assert!(!m("a/**/b", "a/x/y/c"));
        assert!(m("a/**/**/b", "a/b"));
        assert!(m("**", "anything/at/all"));
    }

    /// Matching visits each (pattern segment, path position) once: eight `**` against a
    /// 1,000-segment path is about 9,000 cells, not 1,000^8 paths.
    #[test]
    fn matching_is_linear_in_pattern_and_path() {
        let pattern = ["**"; 8].join("/") + "/x";
        let path = vec!["a"; 1000].join("/");
        STEPS.with(|s| s.set(0));
        assert!(!m(&pattern, &path));
        assert!(m(&pattern, &(path.clone() + "/x")));
        let steps = STEPS.with(|s| s.get());
        assert!((1000..=2 * 9 * 1002).contains(&steps), "{steps} cells visited");
    }

    #[test]
    fn bad_patterns_and_paths_are_refused() {
        for bad in ["", "/etc/passwd", "a//b", "a/", "./a", "a/../b", "a\\b", "a\u{1b}b", "a/**b", "x**"] {
            assert!(Glob::new(bad).is_err(), "{bad:?} accepted");
        }
        assert!(path_problem("docs/a.md").is_none());
        assert!(path_problem("./docs/a.md").unwrap().contains("`.` segment"));
        assert!(path_problem("/docs/a.md").unwrap().contains("absolute"));
        assert_eq!(Glob::new("src//*.rs").unwrap_err(), "`src//*.rs`: an empty segment (`//` or a trailing `/`)");
    }

    #[test]
    fn resolve_removes_dots_and_refuses_climbing_out() {
        assert_eq!(resolve("./docs//governance.md").as_deref(), Some("docs/governance.md"));
        assert_eq!(resolve("/docs/x/../governance.md").as_deref(), Some("docs/governance.md"));
        assert_eq!(resolve("../docs/governance.md"), None);
        assert_eq!(resolve("./"), None);
    }
}
