//! `repository_rule` (the repository's own rules).
//!
//! **What it checks.** The rules of the quality policy (`--quality-policy FILE`, global or
//! for the repository under `repositories`):
//!
//! - `forbidden_patterns`: an added line that contains a pattern (a substring, or a regular
//!   expression with `"regex": true`), in the files its `paths` match (every file when
//!   none), at the pattern's severity (default `warning`), with its message;
//! - `required_headers`: a file the PR adds (status `added`) whose path a header's `paths`
//!   match, and whose first `within_lines` lines (default 10) do not contain the header: a
//!   licence line, a generated-code marker;
//! - `forbidden_paths`: a file changed, added, removed or renamed under a path the agent
//!   must not touch (prefixes or globs): an `error`.
//!
//! **Why.** What a codebase requires beyond a language's conventions is written down by
//! its maintainers ("no `any` types", "every source file carries the licence"); a PR is
//! measured against those words, not a general taste.
//!
//! **Example.** With `{"forbidden_patterns": [{"pattern": ": any", "message": "repo policy
//! requires explicit types"}]}`, `handler.ts` adding `function h(e: any) {` at line 23:
//! "Line 23 of `handler.ts` contains `: any`: repo policy requires explicit types".

use super::patch::Side;
use super::policy::{path_matches, Effective, ForbiddenPattern};
use super::{File, Found, Rule, Severity};

/// A forbidden pattern ready to look for.
enum Matcher<'p> {
    Text(&'p str),
    Regex(regex::Regex),
}

impl Matcher<'_> {
    fn of(p: &ForbiddenPattern) -> Option<Matcher<'_>> {
        // The policy was checked when loaded: a pattern that does not compile is not there.
        if p.regex {
            regex::Regex::new(&p.pattern).ok().map(Matcher::Regex)
        } else {
            Some(Matcher::Text(&p.pattern))
        }
    }

    fn finds(&self, line: &str) -> bool {
        match self {
            Matcher::Text(t) => line.contains(t),
            Matcher::Regex(r) => r.is_match(line),
        }
    }
}

fn applies(paths: &[String], path: &str) -> bool {
    paths.is_empty() || paths.iter().any(|p| path_matches(p, path))
}

pub(crate) fn check(file: &File<'_>, policy: &Effective<'_>, out: &mut Vec<Found>) {
    let mut found = |severity: Severity, line: Option<i64>, message: String, suggestion: String| {
        out.push(Found { rule: Rule::RepositoryRule, severity, file: file.path.to_string(), line, message, suggestion });
    };
    for prefix in policy.forbidden_paths {
        if let Some(path) = [Some(file.path), file.previous].into_iter().flatten().find(|p| path_matches(prefix, p)) {
            found(
                Severity::Error,
                file.first_line(),
                format!("`{path}` is under `{prefix}`, which the repository's policy forbids an agent to change ({})", file.status),
                format!("Revert the change to `{path}` and leave it to a maintainer, or ask for `{prefix}` to be lifted from forbidden_paths."),
            );
            break;
        }
    }
    for p in policy.forbidden_patterns.iter().filter(|p| applies(&p.paths, file.path)) {
        let Some(m) = Matcher::of(p) else { continue };
        let why = if p.message.is_empty() { "forbidden by the repository's policy".to_string() } else { p.message.clone() };
        for l in file.hunks.iter().flat_map(|h| &h.lines).filter(|l| l.side == Side::Added && m.finds(l.text)) {
            let at = l.new.map_or(String::new(), |n| format!("Line {n} of "));
            found(p.severity, l.new, format!("{at}`{}` contains `{}`: {why}", file.path, p.pattern), format!("Rewrite the line without `{}` ({why}).", p.pattern));
        }
    }
    if file.status != "added" {
        return;
    }
    for h in policy.required_headers.iter().filter(|h| applies(&h.paths, file.path)) {
        let first: Vec<&str> = file.hunks.iter().flat_map(|h| h.new_side()).take(h.within_lines.max(1) as usize).map(|l| l.text).collect();
        if !first.join("\n").contains(h.header.as_str()) {
            found(
                h.severity,
                file.first_line(),
                format!("New file `{}` lacks the required header {:?} in its first {} lines", file.path, h.header, h.within_lines),
                format!("Add {:?} at the top of `{}`.", h.header, file.path),
            );
        }
    }
}
