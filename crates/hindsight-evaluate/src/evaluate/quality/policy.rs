//! The quality policy (`--quality-policy FILE`, `schemas/quality-policy.schema.json`):
//! thresholds, the blocking severity and the repository's own rules, as global defaults
//! with per-repository overrides. An override's key replaces the global value whole (a list
//! is not merged), so what a repository is judged by is read off one place.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::Severity;

/// A text the added lines must not contain (`repository_rule`).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ForbiddenPattern {
    /// The text looked for on each added line: a substring, or a regular expression when
    /// `regex` is true.
    pub pattern: String,
    #[serde(default)]
    pub regex: bool,
    #[serde(default = "warning")]
    pub severity: Severity,
    /// Why the repository forbids it: the finding's message.
    #[serde(default)]
    pub message: String,
    /// Paths it applies to (prefixes or globs); empty: every file.
    #[serde(default)]
    pub paths: Vec<String>,
}

/// A text the first lines of a new file must contain, for matching paths (`repository_rule`).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RequiredHeader {
    pub header: String,
    /// Paths it applies to (prefixes or globs); empty: every new file.
    #[serde(default)]
    pub paths: Vec<String>,
    /// How many of the file's first lines are searched.
    #[serde(default = "ten")]
    pub within_lines: i64,
    #[serde(default = "warning")]
    pub severity: Severity,
}

fn warning() -> Severity {
    Severity::Warning
}

fn ten() -> i64 {
    10
}

/// The open choices of the quality findings; read from `--quality-policy FILE`, recorded in
/// the manifest as `quality_policy`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct QualityPolicy {
    /// Findings at or above this severity are blocking.
    pub blocking_severity: Severity,
    /// Consecutive added non-blank lines that make a duplicated block.
    pub duplicate_lines: i64,
    /// Whether blocks that repeat but for their names and literals count too (near
    /// duplicates). Default false: repetitive code of one shape (field-by-field mappings)
    /// would read as copies.
    pub near_duplicates: bool,
    /// Cyclomatic complexity above which a function is a `warning` (above twice it, `error`).
    pub complexity_threshold: i64,
    /// Nesting depth of control flow above which a function is a `warning`.
    pub nesting_threshold: i64,
    /// Cognitive complexity above which a function is a `warning`.
    pub cognitive_threshold: i64,
    pub forbidden_patterns: Vec<ForbiddenPattern>,
    pub required_headers: Vec<RequiredHeader>,
    /// Path prefixes or globs an agent's PR must not change (an `error` each).
    pub forbidden_paths: Vec<String>,
    /// Per repository (`owner/name`), the keys above that differ.
    pub repositories: BTreeMap<String, RepositoryQuality>,
}

/// One repository's overrides: any key of [`QualityPolicy`] but `repositories`.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RepositoryQuality {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocking_severity: Option<Severity>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duplicate_lines: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub near_duplicates: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub complexity_threshold: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nesting_threshold: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cognitive_threshold: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forbidden_patterns: Option<Vec<ForbiddenPattern>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required_headers: Option<Vec<RequiredHeader>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forbidden_paths: Option<Vec<String>>,
}

impl Default for QualityPolicy {
    fn default() -> Self {
        QualityPolicy {
            blocking_severity: Severity::Error,
            duplicate_lines: 6,
            near_duplicates: false,
            complexity_threshold: 10,
            nesting_threshold: 4,
            cognitive_threshold: 15,
            forbidden_patterns: Vec::new(),
            required_headers: Vec::new(),
            forbidden_paths: Vec::new(),
            repositories: BTreeMap::new(),
        }
    }
}

/// What one repository is judged by: the global policy with its overrides applied.
#[derive(Clone, Debug)]
pub(crate) struct Effective<'p> {
    pub(crate) blocking_severity: Severity,
    pub(crate) duplicate_lines: usize,
    pub(crate) near_duplicates: bool,
    pub(crate) complexity_threshold: i64,
    pub(crate) nesting_threshold: i64,
    pub(crate) cognitive_threshold: i64,
    pub(crate) forbidden_patterns: &'p [ForbiddenPattern],
    pub(crate) required_headers: &'p [RequiredHeader],
    pub(crate) forbidden_paths: &'p [String],
}

impl QualityPolicy {
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    /// A quality policy file: any subset of the keys merged over the defaults, read as every
    /// policy file is (unknown keys and wrong types refused, naming the key), then checked.
    pub fn load(path: &std::path::Path) -> crate::error::Result<QualityPolicy> {
        let p: QualityPolicy = crate::evaluate::policy::load_switches(path, "see schemas/quality-policy.schema.json")?;
        p.check().map_err(|message| crate::error::Error::Policy { path: path.to_path_buf(), message })?;
        Ok(p)
    }

    /// The policy repository `repo` is judged by.
    pub(crate) fn for_repo(&self, repo: &str) -> Effective<'_> {
        let o = self.repositories.get(repo);
        Effective {
            blocking_severity: o.and_then(|o| o.blocking_severity).unwrap_or(self.blocking_severity),
            duplicate_lines: o.and_then(|o| o.duplicate_lines).unwrap_or(self.duplicate_lines).max(1) as usize,
            near_duplicates: o.and_then(|o| o.near_duplicates).unwrap_or(self.near_duplicates),
            complexity_threshold: o.and_then(|o| o.complexity_threshold).unwrap_or(self.complexity_threshold),
            nesting_threshold: o.and_then(|o| o.nesting_threshold).unwrap_or(self.nesting_threshold),
            cognitive_threshold: o.and_then(|o| o.cognitive_threshold).unwrap_or(self.cognitive_threshold),
            forbidden_patterns: o.and_then(|o| o.forbidden_patterns.as_deref()).unwrap_or(&self.forbidden_patterns),
            required_headers: o.and_then(|o| o.required_headers.as_deref()).unwrap_or(&self.required_headers),
            forbidden_paths: o.and_then(|o| o.forbidden_paths.as_deref()).unwrap_or(&self.forbidden_paths),
        }
    }

    /// Thresholds of at least 2 (a one-line "block" repeats everywhere; a threshold of 1
    /// flags every function), patterns and paths that are not empty (they would match
    /// everything), regular expressions that compile, and repository keys `owner/name`.
    pub fn check(&self) -> std::result::Result<(), String> {
        check_values("", self.duplicate_lines, self.complexity_threshold, self.nesting_threshold)?;
        check_values("", self.duplicate_lines, self.cognitive_threshold, self.nesting_threshold).map_err(|e| e.replace("complexity_threshold", "cognitive_threshold"))?;
        check_rules("", &self.forbidden_patterns, &self.required_headers, &self.forbidden_paths)?;
        for (repo, o) in &self.repositories {
            let at = format!("repositories.{repo}.");
            if repo.split('/').filter(|s| !s.is_empty()).count() != 2 || repo.matches('/').count() != 1 {
                return Err(format!("`repositories` key {repo:?} is not `owner/name`"));
            }
            let d = self.for_repo(repo);
            check_values(&at, o.duplicate_lines.unwrap_or(self.duplicate_lines), d.complexity_threshold, d.nesting_threshold)?;
            check_values(&at, o.duplicate_lines.unwrap_or(self.duplicate_lines), d.cognitive_threshold, d.nesting_threshold)
                .map_err(|e| e.replace("complexity_threshold", "cognitive_threshold"))?;
            check_rules(&at, d.forbidden_patterns, d.required_headers, d.forbidden_paths)?;
        }
        Ok(())
    }
}

fn check_values(at: &str, duplicate_lines: i64, complexity: i64, nesting: i64) -> std::result::Result<(), String> {
    for (key, v) in [("duplicate_lines", duplicate_lines), ("complexity_threshold", complexity), ("nesting_threshold", nesting)] {
        if v < 2 {
            return Err(format!("`{at}{key}` must be at least 2 (it is {v})"));
        }
    }
    Ok(())
}

fn check_rules(at: &str, patterns: &[ForbiddenPattern], headers: &[RequiredHeader], paths: &[String]) -> std::result::Result<(), String> {
    for (k, p) in patterns.iter().enumerate() {
        if p.pattern.is_empty() {
            return Err(format!("`{at}forbidden_patterns[{k}].pattern` is empty: it would match every line"));
        }
        if p.regex {
            regex::Regex::new(&p.pattern).map_err(|e| format!("`{at}forbidden_patterns[{k}].pattern` is not a regular expression: {e}"))?;
        }
        check_paths(&format!("{at}forbidden_patterns[{k}].paths"), &p.paths)?;
    }
    for (k, h) in headers.iter().enumerate() {
        if h.header.trim().is_empty() {
            return Err(format!("`{at}required_headers[{k}].header` is empty: every file would have it"));
        }
        if h.within_lines < 1 {
            return Err(format!("`{at}required_headers[{k}].within_lines` must be at least 1 (it is {})", h.within_lines));
        }
        check_paths(&format!("{at}required_headers[{k}].paths"), &h.paths)?;
    }
    check_paths(&format!("{at}forbidden_paths"), paths)
}

fn check_paths(at: &str, paths: &[String]) -> std::result::Result<(), String> {
    match paths.iter().position(|p| p.trim().is_empty()) {
        Some(k) => Err(format!("`{at}[{k}]` is empty: it would match every path")),
        None => Ok(()),
    }
}

/// Whether `path` is matched by `pattern`: a glob when it has `*` or `?` (`*` within one
/// folder, `**` across folders, `**/` also none, `?` one character), else a path prefix.
pub(crate) fn path_matches(pattern: &str, path: &str) -> bool {
    if !pattern.contains(['*', '?']) {
        return path.starts_with(pattern);
    }
    glob(pattern.as_bytes(), path.as_bytes())
}

/// Glob matching by dynamic programming over (pattern, path) positions: linear in their
/// product, never exponential (a backtracking matcher is, on `*a*a*a*b`).
fn glob(p: &[u8], s: &[u8]) -> bool {
    // can[j]: the pattern so far matches s[..j].
    let mut can = vec![false; s.len() + 1];
    can[0] = true;
    let mut i = 0;
    while i < p.len() {
        let mut next = vec![false; s.len() + 1];
        if p[i..].starts_with(b"**/") {
            // `**/`: no folder at all, or any run of characters that ends a folder.
            let mut seen = false;
            for j in 0..=s.len() {
                next[j] = can[j] || (seen && s[j - 1] == b'/');
                seen |= can[j];
            }
            i += 3;
        } else if p[i] == b'*' {
            let across = p.get(i + 1) == Some(&b'*');
            // `*` (or `**`) matches any run of characters, `/` only for `**`.
            for j in 0..=s.len() {
                next[j] = can[j] || (j > 0 && next[j - 1] && (across || s[j - 1] != b'/'));
            }
            i += if across { 2 } else { 1 };
        } else {
            for j in 1..=s.len() {
                next[j] = can[j - 1] && ((p[i] == b'?' && s[j - 1] != b'/') || p[i] == s[j - 1]);
            }
            i += 1;
        }
        can = next;
    }
    can[s.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_and_prefixes() {
        assert!(path_matches("src/", "src/a/b.rs"));
        assert!(!path_matches("src/", "lib/src/a.rs"));
        assert!(path_matches("src/*.ts", "src/a.ts") && !path_matches("src/*.ts", "src/x/a.ts"));
        assert!(path_matches("**/*.ts", "src/x/a.ts") && path_matches("src/**", "src/x/a.ts"));
        assert!(path_matches("src/**/*.ts", "src/a.ts") && path_matches("src/**/*.ts", "src/x/y/a.ts") && !path_matches("src/**/*.ts", "srcx/a.ts"));
        assert!(path_matches("a?c.py", "abc.py") && !path_matches("a?c.py", "a/c.py"));
        assert!(!path_matches("*a*a*a*a*a*b", &"a".repeat(60)));
    }

    #[test]
    fn an_override_replaces_the_global_value() {
        let mut p = QualityPolicy { forbidden_paths: vec!["vendor/".into()], ..Default::default() };
        p.repositories.insert("o/r".into(), RepositoryQuality { blocking_severity: Some(Severity::Warning), forbidden_paths: Some(vec![]), ..Default::default() });
        let (global, over) = (p.for_repo("o/x"), p.for_repo("o/r"));
        assert_eq!((global.blocking_severity, global.forbidden_paths.len()), (Severity::Error, 1));
        assert_eq!((over.blocking_severity, over.forbidden_paths.len(), over.complexity_threshold), (Severity::Warning, 0, 10));
        assert!(p.check().is_ok());
        p.repositories.insert("nope".into(), RepositoryQuality::default());
        assert!(p.check().unwrap_err().contains("owner/name"));
    }
}
