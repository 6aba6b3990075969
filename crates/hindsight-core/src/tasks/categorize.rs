//! Failure categorization (docs/SPEC.md [SPEC-TASKS-FAILURES]): the evaluation pipeline's
//! "categorize why tasks fail".
//!
//! ## What it checks
//! Each FAILED, CANCELLED or TIMED_OUT task gets one primary category of the pipeline's
//! five (running out of time, tool or environment failure, missing testing or verification,
//! failure to follow instructions, reasoning error), decided by the first rule of [`RULES`]
//! that fires, categories taken in the policy's `precedence` order. The rule's id and the
//! evidence (the pattern matched, the event id) are recorded with the category.
//!
//! ## Why
//! The pipeline lists the categories but not how to tell them apart, nor which wins when
//! several apply (a task that timed out while its tests were failing). Deterministic rules
//! over recorded fields make the category reproducible and checkable; where the pipeline
//! leaves a choice (the precedence, the pattern lists, whether missing tests needs a failed
//! build or lint to count) it is a [`TaskPolicy`] switch with a default, written into the
//! manifest. A task no rule decides is `uncategorized`: never forced into a category.
//!
//! ## Example
//! A FAILED task whose error message reads `bash: cargo: command not found` is
//! `tool_or_environment_failure` by rule `environment_error_message`, evidence
//! `error_message matches "command not found"`.

use serde::{Deserialize, Serialize};

use super::evidence::Evidence;
use super::{Task, TaskEvent};
use crate::error::{Error, Result};
use crate::snapshot::sha::{same_commit, Sha};

/// The pipeline's failure categories ([SPEC-TASKS-FAILURES]), and `uncategorized` for what
/// no rule decides.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureCategory {
    RunningOutOfTime,
    ToolOrEnvironmentFailure,
    MissingTestingOrVerification,
    FailureToFollowInstructions,
    ReasoningError,
    Uncategorized,
}

impl FailureCategory {
    pub(crate) const DECIDED: [FailureCategory; 5] = [
        FailureCategory::RunningOutOfTime,
        FailureCategory::ToolOrEnvironmentFailure,
        FailureCategory::FailureToFollowInstructions,
        FailureCategory::MissingTestingOrVerification,
        FailureCategory::ReasoningError,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            FailureCategory::RunningOutOfTime => "running_out_of_time",
            FailureCategory::ToolOrEnvironmentFailure => "tool_or_environment_failure",
            FailureCategory::MissingTestingOrVerification => "missing_testing_or_verification",
            FailureCategory::FailureToFollowInstructions => "failure_to_follow_instructions",
            FailureCategory::ReasoningError => "reasoning_error",
            FailureCategory::Uncategorized => "uncategorized",
        }
    }
}

/// The choices the evaluation pipeline leaves open. Patterns match case-insensitively as
/// whole phrases: a pattern's ends must not touch a letter or digit of the text (`jest`
/// matches `npx jest`, not `suggest`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TaskPolicy {
    /// Which category wins when rules of several would fire, first wins. Default: time,
    /// environment, instructions, testing, reasoning: a task stopped by the clock or the
    /// environment was never free to finish its work, so what it left undone says less
    /// than what stopped it; a change out of scope is a fault whatever the tests did.
    pub precedence: Vec<FailureCategory>,
    /// Error-message phrases that mean the task ran out of time.
    pub timeout_patterns: Vec<String>,
    /// Phrases in an error message or a tool result that mean the tool or environment
    /// failed (not the agent's reasoning).
    pub environment_patterns: Vec<String>,
    /// Phrases in a `guardrail_blocked` event's `reason` that mean the guardrail kept the
    /// agent inside the task's scope (a failure to follow instructions, not of the
    /// environment).
    pub scope_guardrail_patterns: Vec<String>,
    /// Phrases in an `agent_tool_call`'s command that run tests.
    pub test_command_patterns: Vec<String>,
    /// Phrases in an `agent_tool_call`'s command that run a linter, formatter check or type
    /// checker.
    pub lint_command_patterns: Vec<String>,
    /// Phrases in an `agent_tool_call`'s command that run a type checker.
    pub typecheck_command_patterns: Vec<String>,
    /// Phrases in an `agent_tool_call`'s command that run a static security scanner.
    pub security_scan_command_patterns: Vec<String>,
    /// File names at the top of a repository that configure a linter or type checker (a
    /// trailing `*` matches any ending: `.eslintrc*`).
    pub linter_configs: Vec<String>,
    /// Phrases in a PR's description that tell how the change was or can be verified.
    pub verification_note_patterns: Vec<String>,
    /// Phrases on a line a PR adds to a test file that skip a test.
    pub test_skip_patterns: Vec<String>,
    /// Phrases on a line of a test file that declare a test: more of them removed than
    /// added is a test deleted.
    pub test_declaration_patterns: Vec<String>,
    /// Whether `no_test_run` needs evidence the change was wrong (`build_passed` or
    /// `lint_passed` false). Default true: a task that failed for another reason and ran no
    /// tests is not shown to have failed for want of them.
    pub missing_tests_needs_failed_check: bool,
    /// Whether the CI state of the task's PR head in the snapshot (`ci_commits`, linked by
    /// `pr_url`'s repository, else `repo`, and `head_sha`) is read by
    /// `no_test_run_ci_failed` and `ci_failed_after_tests`. Default true: CI is the tier-1
    /// signal ([SPEC-TASKS-TIER1]) recorded outside the task itself.
    pub use_snapshot_ci: bool,
    /// Review feedback: repeated mistakes and reviewer comments (`pr_feedback`,
    /// `review_feedback`).
    pub feedback: crate::feedback::FeedbackPolicy,
}

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

/// The default `timeout_patterns`.
const TIMEOUT_PATTERNS: &[&str] = &["timed out", "timeout", "deadline exceeded", "time limit", "max duration", "idle for"];
/// The default `environment_patterns`.
const ENVIRONMENT_PATTERNS: &[&str] = &[
                "command not found",
                "no such file or directory",
                "permission denied",
                "npm err!",
                "network",
                "firewall",
                "blocked by",
                "connection refused",
                "connection reset",
                "could not resolve host",
                "econnrefused",
                "enotfound",
                "rate limit",
                "secondary rate limit",
                "out of memory",
                "oom",
                "killed",
                "sandbox",
                "clone failed",
                "could not read from remote repository",
                "api error",
                "502 bad gateway",
                "503 service unavailable",
            ];
/// The default `scope_guardrail_patterns`.
const SCOPE_GUARDRAIL_PATTERNS: &[&str] = &["scope", "outside", "not allowed path", "protected path", "forbidden path"];
/// The default `test_command_patterns`.
const TEST_COMMAND_PATTERNS: &[&str] = &[
                "cargo test",
                "cargo nextest",
                "pytest",
                "python -m unittest",
                "tox",
                "npm test",
                "npm run test",
                "yarn test",
                "pnpm test",
                "go test",
                "jest",
                "vitest",
                "mocha",
                "make test",
                "mvn test",
                "gradle test",
                "dotnet test",
                "rspec",
                "ctest",
            ];
/// The default `lint_command_patterns`.
const LINT_COMMAND_PATTERNS: &[&str] = &[
                "eslint",
                "npm run lint",
                "yarn lint",
                "pnpm lint",
                "ruff",
                "flake8",
                "pylint",
                "black --check",
                "cargo clippy",
                "cargo fmt --check",
                "golangci-lint",
                "go vet",
                "rubocop",
                "prettier --check",
                "biome",
                "stylelint",
                "pre-commit",
                "make lint",
            ];
/// The default `typecheck_command_patterns`.
const TYPECHECK_COMMAND_PATTERNS: &[&str] = &["tsc", "vue-tsc", "mypy", "pyright", "pyre check", "flow check", "cargo check", "sorbet", "phpstan", "psalm"];
/// The default `security_scan_command_patterns`.
const SECURITY_SCAN_COMMAND_PATTERNS: &[&str] = &[
                "semgrep",
                "bandit",
                "gosec",
                "govulncheck",
                "trivy",
                "snyk",
                "npm audit",
                "yarn audit",
                "pnpm audit",
                "cargo audit",
                "cargo deny",
                "pip-audit",
                "safety check",
                "brakeman",
                "gitleaks",
                "osv-scanner",
                "codeql",
            ];
/// The default `linter_configs`.
const LINTER_CONFIGS: &[&str] = &[
                ".eslintrc*",
                "eslint.config.*",
                "ruff.toml",
                ".ruff.toml",
                ".flake8",
                ".pylintrc",
                "pylintrc",
                "mypy.ini",
                ".mypy.ini",
                "pyrightconfig.json",
                "clippy.toml",
                ".clippy.toml",
                ".golangci.*",
                "tsconfig.json",
                ".rubocop.yml",
                "biome.json",
                ".stylelintrc*",
                ".pre-commit-config.yaml",
            ];
/// The default `verification_note_patterns`.
const VERIFICATION_NOTE_PATTERNS: &[&str] = &[
                "how to verify",
                "how to test",
                "how was this tested",
                "test plan",
                "testing",
                "tested",
                "verification",
                "verified",
                "steps to reproduce",
                "to reproduce",
                "validation",
            ];
/// The default `test_skip_patterns`.
const TEST_SKIP_PATTERNS: &[&str] = &[
                "#[ignore]",
                "@pytest.mark.skip",
                "@unittest.skip",
                "pytest.skip(",
                "it.skip(",
                "describe.skip(",
                "test.skip(",
                "xit(",
                "xdescribe(",
                "t.skip(",
                "@disabled",
                "@ignore",
            ];
/// The default `test_declaration_patterns`.
const TEST_DECLARATION_PATTERNS: &[&str] = &["#[test]", "#[tokio::test]", "def test_", "func test", "@test", "it(", "test(", "describe("];

impl Default for TaskPolicy {
    fn default() -> Self {
        TaskPolicy {
            precedence: FailureCategory::DECIDED.to_vec(),
            timeout_patterns: strings(TIMEOUT_PATTERNS),
            environment_patterns: strings(ENVIRONMENT_PATTERNS),
            scope_guardrail_patterns: strings(SCOPE_GUARDRAIL_PATTERNS),
            test_command_patterns: strings(TEST_COMMAND_PATTERNS),
            lint_command_patterns: strings(LINT_COMMAND_PATTERNS),
            typecheck_command_patterns: strings(TYPECHECK_COMMAND_PATTERNS),
            security_scan_command_patterns: strings(SECURITY_SCAN_COMMAND_PATTERNS),
            linter_configs: strings(LINTER_CONFIGS),
            verification_note_patterns: strings(VERIFICATION_NOTE_PATTERNS),
            test_skip_patterns: strings(TEST_SKIP_PATTERNS),
            test_declaration_patterns: strings(TEST_DECLARATION_PATTERNS),
            missing_tests_needs_failed_check: true,
            use_snapshot_ci: true,
            feedback: crate::feedback::FeedbackPolicy::default(),
        }
    }
}

impl TaskPolicy {
    /// The policy as the manifest records it.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or(serde_json::Value::Null)
    }

    /// A policy from a JSON file; absent keys keep their defaults, unknown keys are errors.
    pub fn load(p: &std::path::Path) -> Result<TaskPolicy> {
        let text = std::fs::read_to_string(p).map_err(|e| Error::io(p, e))?;
        let policy: TaskPolicy = crate::json::from_str_unique(&text).map_err(|e| Error::Policy { path: p.to_path_buf(), message: e.to_string() })?;
        policy.check().map_err(|message| Error::Policy { path: p.to_path_buf(), message })?;
        Ok(policy)
    }

    /// `precedence` names each decided category once (`uncategorized` is no rule's).
    pub fn check(&self) -> std::result::Result<(), String> {
        for c in FailureCategory::DECIDED {
            let n = self.precedence.iter().filter(|p| **p == c).count();
            if n != 1 {
                return Err(format!("precedence must name {} once (it names it {n} times)", c.as_str()));
            }
        }
        if self.precedence.contains(&FailureCategory::Uncategorized) {
            return Err("precedence must not name uncategorized: it is what no rule decides".into());
        }
        self.feedback.check()
    }
}

/// One rule of the table: documentation and code from one place.
#[derive(Clone, Copy, Debug)]
pub struct FailureRule {
    pub id: &'static str,
    pub category: FailureCategory,
    /// What fires it, in words.
    pub when: &'static str,
    /// The policy switch it reads, if any.
    pub policy: Option<&'static str>,
}

/// The rules, in their order within a category (categories are taken in the policy's
/// precedence).
pub const RULES: &[FailureRule] = &[
    FailureRule { id: "timed_out_status", category: FailureCategory::RunningOutOfTime, when: "status is TIMED_OUT", policy: None },
    FailureRule { id: "timed_out_event", category: FailureCategory::RunningOutOfTime, when: "a task_timed_out event", policy: None },
    FailureRule {
        id: "timeout_error_message",
        category: FailureCategory::RunningOutOfTime,
        when: "error_message matches a timeout pattern",
        policy: Some("timeout_patterns"),
    },
    FailureRule {
        id: "guardrail_blocked",
        category: FailureCategory::ToolOrEnvironmentFailure,
        when: "a guardrail_blocked event whose reason is not about scope",
        policy: Some("scope_guardrail_patterns"),
    },
    FailureRule {
        id: "environment_error_message",
        category: FailureCategory::ToolOrEnvironmentFailure,
        when: "error_message matches an environment pattern",
        policy: Some("environment_patterns"),
    },
    FailureRule {
        id: "environment_tool_result",
        category: FailureCategory::ToolOrEnvironmentFailure,
        when: "an agent_tool_result whose output or error matches an environment pattern",
        policy: Some("environment_patterns"),
    },
    FailureRule {
        id: "scope_guardrail",
        category: FailureCategory::FailureToFollowInstructions,
        when: "a guardrail_blocked event whose reason matches a scope pattern",
        policy: Some("scope_guardrail_patterns"),
    },
    FailureRule {
        id: "change_outside_scope",
        category: FailureCategory::FailureToFollowInstructions,
        when: "a changed file (an event's metadata.path or metadata.changed_files) outside the task's metadata.scope",
        policy: None,
    },
    FailureRule {
        id: "tests_skipped_or_deleted",
        category: FailureCategory::FailureToFollowInstructions,
        when: "the task's PR (pulls/N/files) adds a line skipping a test to a test file, removes a test file, or removes more test declarations from a test file than it adds",
        policy: Some("test_skip_patterns, test_declaration_patterns"),
    },
    FailureRule {
        id: "change_outside_named_files",
        category: FailureCategory::FailureToFollowInstructions,
        when: "the task declares no scope, its description names files, and its PR changes a file it does not name (nor one below a named folder; test and lock files aside)",
        policy: None,
    },
    FailureRule {
        id: "linter_not_run",
        category: FailureCategory::MissingTestingOrVerification,
        when: "the repository configures a linter or type checker (repos/O/R/contents) and no agent_tool_call runs one, while lint_passed or build_passed is false",
        policy: Some("linter_configs, lint_command_patterns, typecheck_command_patterns, missing_tests_needs_failed_check"),
    },
    FailureRule {
        id: "no_test_run",
        category: FailureCategory::MissingTestingOrVerification,
        when: "no agent_tool_call whose command runs tests, while build_passed or lint_passed is false",
        policy: Some("test_command_patterns, missing_tests_needs_failed_check"),
    },
    FailureRule {
        id: "no_test_run_ci_failed",
        category: FailureCategory::MissingTestingOrVerification,
        when: "no agent_tool_call whose command runs tests, and CI failed on the task's PR head in the snapshot",
        policy: Some("test_command_patterns, use_snapshot_ci"),
    },
    FailureRule {
        id: "no_verification_notes",
        category: FailureCategory::MissingTestingOrVerification,
        when: "no agent_tool_call runs tests, and the task's PR description (pulls/N) says nothing of how the change was verified",
        policy: Some("test_command_patterns, verification_note_patterns"),
    },
    FailureRule {
        id: "tests_failing",
        category: FailureCategory::ReasoningError,
        when: "tests were run, and a test run's result failed (exit_code not 0) or build_passed or lint_passed is false",
        policy: Some("test_command_patterns"),
    },
    FailureRule {
        id: "ci_failed_after_tests",
        category: FailureCategory::ReasoningError,
        when: "tests were run, and CI failed on the task's PR head in the snapshot",
        policy: Some("test_command_patterns, use_snapshot_ci"),
    },
];

/// A commit's CI as found for a task: repository, SHA, (state, failure signature).
pub(crate) type CiHit<'a> = (&'a str, &'a str, &'a (String, Option<String>));

/// CI states of commits in the snapshot (`ci_commits`): (repo, sha) -> (state, failure
/// signature).
#[derive(Clone, Debug, Default)]
pub struct CiStates(pub(crate) std::collections::HashMap<(String, String), (String, Option<String>)>);

impl CiStates {
    /// The CI state of the task's head commit: in the PR's repository (from `pr_url`),
    /// else the task's `repo`. A SHA matches a commit as `snapshot::sha` says (an
    /// abbreviation of 7 or more hex digits, any case), when exactly one commit does.
    pub(crate) fn of(&self, task: &Task) -> Option<CiHit<'_>> {
        let sha = task.head_sha.as_deref().map(str::trim).filter(|s| Sha::parse(s).is_some())?;
        let repo = task.pr_url.as_deref().and_then(|u| crate::snapshot::paths::parse_url(u).repo).or_else(|| task.repo.clone())?;
        if let Some((k, v)) = self.0.get_key_value(&(repo.clone(), sha.to_string())) {
            return Some((&k.0, &k.1, v));
        }
        let mut found = self.0.iter().filter(|((r, s), _)| *r == repo && same_commit(s, sha));
        match (found.next(), found.next()) {
            (Some((k, v)), None) => Some((&k.0, &k.1, v)),
            _ => None,
        }
    }

    /// From the rows of `ci_commits`.
    pub fn from_rows(rows: impl IntoIterator<Item = (String, String, String, Option<String>)>) -> Self {
        CiStates(rows.into_iter().map(|(repo, sha, state, sig)| ((repo, sha), (state, sig))).collect())
    }
}

/// A categorized task.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    pub task_id: String,
    pub category: FailureCategory,
    /// The rule that fired; `None` for `uncategorized`.
    pub rule_id: Option<&'static str>,
    /// What the rule saw: the pattern matched and where, or the event id.
    pub evidence: Option<String>,
}

/// Whether `pattern` occurs in `text` as a whole phrase, ignoring ASCII case: at a place
/// where the characters on either side (if any) are not letters or digits.
pub(crate) fn matches_phrase(text: &str, pattern: &str) -> bool {
    let hay = text.to_ascii_lowercase();
    let needle = pattern.trim().to_ascii_lowercase();
    if needle.is_empty() {
        return false;
    }
    let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    // A pattern's end that is punctuation (`npm err!`) may touch anything.
    let first_is_word = needle.chars().next().is_some_and(char::is_alphanumeric);
    let last_is_word = needle.chars().last().is_some_and(char::is_alphanumeric);
    let mut from = 0;
    while let Some(at) = hay[from..].find(&needle) {
        let start = from + at;
        let end = start + needle.len();
        let glued = (first_is_word && word(hay[..start].chars().next_back())) || (last_is_word && word(hay[end..].chars().next()));
        if !glued {
            return true;
        }
        from = start + needle.chars().next().map_or(1, char::len_utf8);
    }
    false
}

/// The first of `patterns` found in `text`.
pub(crate) fn first_match<'a>(text: &str, patterns: &'a [String]) -> Option<&'a str> {
    patterns.iter().find(|p| matches_phrase(text, p)).map(String::as_str)
}

/// Whether `file` is one of the `scope` paths or lies below one.
pub(crate) fn in_scope(file: &str, scope: &[String]) -> bool {
    let file = file.trim_start_matches("./");
    scope.iter().any(|s| {
        let s = s.trim_start_matches("./").trim_end_matches('/');
        s.is_empty() || file == s || file.strip_prefix(s).is_some_and(|rest| rest.starts_with('/'))
    })
}

/// The command an `agent_tool_call` or `agent_tool_result` ran: `metadata.command`, else
/// `metadata.input` when a string.
fn command(e: &TaskEvent) -> Option<&str> {
    e.meta_str("command").or_else(|| e.meta_str("input"))
}

/// Files an event says were changed: `metadata.path` of an `agent_tool_call`,
/// `metadata.changed_files` of any event.
fn changed_files(e: &TaskEvent) -> Vec<&str> {
    let mut out = Vec::new();
    if e.event_type == "agent_tool_call" {
        out.extend(e.meta_str("path"));
    }
    if let Some(a) = e.metadata.get("changed_files").and_then(serde_json::Value::as_array) {
        out.extend(a.iter().filter_map(serde_json::Value::as_str));
    }
    out
}

/// The snapshot path of the task's PR (`repos/O/R/pulls/N`).
fn pr_path(task: &Task) -> Option<String> {
    task.pull_request().map(|(r, n)| format!("repos/{r}/pulls/{n}"))
}

/// The lines a patch adds (`+`) or removes (`-`), without the marker, hunk headers aside.
fn patch_lines(patch: &str, marker: char) -> impl Iterator<Item = &str> {
    patch.lines().filter(move |l| l.starts_with(marker) && !l.starts_with("+++") && !l.starts_with("---")).map(|l| &l[1..])
}

/// A test skipped, or deleted, by the PR: the first such file, with what was seen.
fn tests_skipped_or_deleted(pr: &str, files: &[super::evidence::PrFile], p: &TaskPolicy) -> Option<String> {
    for f in files.iter().filter(|f| crate::files::is_test(&f.filename)) {
        if f.status == "removed" {
            return Some(format!("{pr}/files: test file {} removed", f.filename));
        }
        let Some(patch) = f.patch.as_deref() else { continue };
        if let Some(m) = patch_lines(patch, '+').find_map(|l| first_match_anywhere(l, &p.test_skip_patterns)) {
            return Some(format!("{pr}/files: {} adds a skipped test ({m:?})", f.filename));
        }
        let count = |marker| patch_lines(patch, marker).filter(|l| first_match_anywhere(l, &p.test_declaration_patterns).is_some()).count();
        let (added, removed) = (count('+'), count('-'));
        if removed > added {
            return Some(format!("{pr}/files: {} removes {removed} test declarations and adds {added}", f.filename));
        }
    }
    None
}

/// The first of `patterns` found anywhere in `text`, ignoring ASCII case: code markers
/// (`#[ignore]`, `it.skip(`) sit inside other code, not between words.
fn first_match_anywhere<'a>(text: &str, patterns: &'a [String]) -> Option<&'a str> {
    let t = text.trim_start().to_ascii_lowercase();
    patterns.iter().find(|p| !p.is_empty() && t.contains(&p.to_ascii_lowercase())).map(String::as_str)
}

/// The files a task's description names: words holding a `/` (paths and folders), and file
/// names with an extension (`parse.rs`); links and e-mail addresses are not files.
pub(crate) fn named_files(description: &str) -> Vec<String> {
    let trim = |w: &str| w.trim_matches(|c: char| matches!(c, '`' | '"' | '\'' | '(' | ')' | '[' | ']' | ',' | ';' | ':' | '.' | '!' | '?' | '<' | '>' | '*')).to_string();
    let mut out: Vec<String> = description
        .split_whitespace()
        .map(trim)
        .filter(|w| !w.contains("://") && !w.contains('@') && !w.is_empty())
        .filter(|w| {
            let ext = w.rsplit_once('.').map(|(stem, ext)| !stem.is_empty() && ext.len() <= 6 && ext.starts_with(|c: char| c.is_ascii_alphabetic()) && ext.chars().all(|c| c.is_ascii_alphanumeric()));
            w.contains('/') || ext == Some(true)
        })
        .map(|w| w.trim_start_matches("./").to_string())
        .collect();
    out.sort();
    out.dedup();
    out
}

/// A changed file the task's description does not name, when it names files and declares
/// no scope (a declared scope is `change_outside_scope`'s).
fn change_outside_named_files(task: &Task, pr: &str, files: &[super::evidence::PrFile]) -> Option<String> {
    if !task.scope.is_empty() {
        return None;
    }
    let named = named_files(task.description.as_deref()?);
    let changed: Vec<&str> = files.iter().map(|f| f.filename.as_str()).collect();
    // A bare name counts as naming a file only when a changed file has it ("Node.js" in a
    // sentence names nothing the PR changed).
    let naming: Vec<&String> = named.iter().filter(|n| n.contains('/') || changed.iter().any(|c| crate::files::base(c) == n.as_str())).collect();
    if naming.is_empty() {
        return None;
    }
    let covered = |file: &str| {
        naming.iter().any(|n| {
            let n = n.trim_end_matches('/');
            file == n || file.strip_prefix(n).is_some_and(|rest| rest.starts_with('/')) || (!n.contains('/') && crate::files::base(file) == n)
        })
    };
    let outside = changed.into_iter().find(|f| !covered(f) && !crate::files::is_test(f) && !crate::files::is_lock_file(f))?;
    let list = naming.iter().map(|n| n.as_str()).collect::<Vec<_>>().join(", ");
    Some(format!("{pr}/files: {outside} is not among the files the task names ({list})"))
}

/// Whether `name` is one of the linter configurations (`pattern*`: any ending).
fn configures_linter(name: &str, configs: &[String]) -> bool {
    configs.iter().any(|c| match c.strip_suffix('*') {
        Some(prefix) => name.starts_with(prefix),
        None => name == c,
    })
}

/// A linter configured at the top of the repository that no tool call ran.
fn linter_not_run(task: &Task, events: &[&TaskEvent], p: &TaskPolicy, evidence: &Evidence) -> Option<String> {
    let (repo, names) = evidence.root(task)?;
    let config = names.iter().find(|n| configures_linter(n, &p.linter_configs))?;
    let checks = |c: &str| first_match(c, &p.lint_command_patterns).or_else(|| first_match(c, &p.typecheck_command_patterns)).is_some();
    let ran = events.iter().any(|e| e.event_type == "agent_tool_call" && command(e).is_some_and(checks));
    (!ran).then(|| format!("{config} configures a linter or type checker in {repo} (repos/{repo}/contents); no agent_tool_call runs one"))
}

/// A task's own tier-1 validation as its events record it: for tests, linters, type
/// checkers and security scanners, the tool calls running one and their results that failed
/// (a non-zero `exit_code`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Validation {
    /// (runs, failed) per [`Check`], in its order.
    pub runs: [(i64, i64); 4],
}

/// A kind of tier-1 check a tool call runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Check {
    Tests,
    Lint,
    Typecheck,
    SecurityScan,
}

impl Check {
    pub const ALL: [Check; 4] = [Check::Tests, Check::Lint, Check::Typecheck, Check::SecurityScan];

    fn patterns(self, p: &TaskPolicy) -> &[String] {
        match self {
            Check::Tests => &p.test_command_patterns,
            Check::Lint => &p.lint_command_patterns,
            Check::Typecheck => &p.typecheck_command_patterns,
            Check::SecurityScan => &p.security_scan_command_patterns,
        }
    }
}

/// Each task's [`Validation`], in the order of `tasks` (`events` in any order).
pub fn validations(tasks: &[Task], events: &[TaskEvent], p: &TaskPolicy) -> Vec<Validation> {
    let mut by_task: std::collections::HashMap<&str, Validation> = std::collections::HashMap::new();
    for e in events {
        let Some(c) = command(e) else { continue };
        let failed = e.metadata.get("exit_code").and_then(serde_json::Value::as_i64).is_some_and(|x| x != 0);
        for (k, check) in Check::ALL.iter().enumerate() {
            if first_match(c, check.patterns(p)).is_none() {
                continue;
            }
            let v = by_task.entry(e.task_id.as_str()).or_default();
            match e.event_type.as_str() {
                "agent_tool_call" => v.runs[k].0 += 1,
                "agent_tool_result" if failed => v.runs[k].1 += 1,
                _ => {}
            }
        }
    }
    tasks.iter().map(|t| by_task.get(t.task_id.as_str()).copied().unwrap_or_default()).collect()
}

/// Whether the task's status asks for a category.
pub(crate) fn needs_category(task: &Task) -> bool {
    matches!(task.status.as_str(), "FAILED" | "CANCELLED" | "TIMED_OUT")
}

/// Tests were run (`first` the first test call) and failed: a test run's result with a
/// non-zero exit code, else `failed_check` (the checks recorded as failed).
fn tests_failing(events: &[&TaskEvent], p: &TaskPolicy, first: &TaskEvent, failed_check: Option<String>) -> Option<String> {
    let failed_run = events.iter().find(|e| {
        e.event_type == "agent_tool_result"
            && command(e).is_some_and(|c| first_match(c, &p.test_command_patterns).is_some())
            && e.metadata.get("exit_code").and_then(serde_json::Value::as_i64).is_some_and(|c| c != 0)
    });
    match (failed_run, failed_check) {
        (Some(e), _) => Some(format!("event {}: test run failed (exit_code {})", e.event_id, e.metadata.get("exit_code").map_or(String::new(), |c| c.to_string()))),
        (None, Some(checks)) => Some(format!("event {}: tests run; {checks}", first.event_id)),
        (None, None) => None,
    }
}

/// The task's PR description, captured, says nothing of how the change was verified.
fn no_verification_notes(task: &Task, p: &TaskPolicy, evidence: &Evidence) -> Option<String> {
    let body = evidence.pr(task)?.body.as_deref()?;
    first_match(body, &p.verification_note_patterns)
        .is_none()
        .then(|| format!("no agent_tool_call runs tests, and the PR description ({}) says nothing of how the change was verified", pr_path(task).unwrap_or_default()))
}

/// One rule applied to one task: the evidence when it fires.
fn fire(rule: &str, task: &Task, events: &[&TaskEvent], p: &TaskPolicy, evidence: &Evidence) -> Option<String> {
    let ci = &evidence.ci;
    let error = task.error_message.as_deref().unwrap_or("");
    let guardrail_reason = |e: &&&TaskEvent| e.event_type == "guardrail_blocked";
    let reason_of = |e: &TaskEvent| e.meta_str("reason").or_else(|| e.meta_str("rule")).unwrap_or("").to_string();
    let test_calls =
        || events.iter().filter(|e| e.event_type == "agent_tool_call" && command(e).is_some_and(|c| first_match(c, &p.test_command_patterns).is_some()));
    let failed_check = task.build_passed == Some(false) || task.lint_passed == Some(false);
    let check_words = || {
        let mut w = Vec::new();
        if task.build_passed == Some(false) {
            w.push("build_passed false");
        }
        if task.lint_passed == Some(false) {
            w.push("lint_passed false");
        }
        w.join(", ")
    };
    match rule {
        "timed_out_status" => (task.status == "TIMED_OUT").then(|| "status TIMED_OUT".to_string()),
        "timed_out_event" => events.iter().find(|e| e.event_type == "task_timed_out").map(|e| format!("event {}", e.event_id)),
        "timeout_error_message" => first_match(error, &p.timeout_patterns).map(|m| format!("error_message matches {m:?}")),
        "guardrail_blocked" => events
            .iter()
            .filter(guardrail_reason)
            .find(|e| first_match(&reason_of(e), &p.scope_guardrail_patterns).is_none())
            .map(|e| format!("event {}: guardrail_blocked {:?}", e.event_id, reason_of(e))),
        "environment_error_message" => first_match(error, &p.environment_patterns).map(|m| format!("error_message matches {m:?}")),
        "environment_tool_result" => events.iter().filter(|e| e.event_type == "agent_tool_result").find_map(|e| {
            let text = [e.meta_str("output"), e.meta_str("error")].into_iter().flatten().collect::<Vec<_>>().join("\n");
            first_match(&text, &p.environment_patterns).map(|m| format!("event {}: tool result matches {m:?}", e.event_id))
        }),
        "scope_guardrail" => events
            .iter()
            .filter(guardrail_reason)
            .find_map(|e| first_match(&reason_of(e), &p.scope_guardrail_patterns).map(|m| format!("event {}: guardrail reason matches {m:?}", e.event_id))),
        "change_outside_scope" => {
            if task.scope.is_empty() {
                return None;
            }
            events.iter().find_map(|e| {
                changed_files(e).into_iter().find(|f| !in_scope(f, &task.scope)).map(|f| format!("event {}: {f} is outside the scope", e.event_id))
            })
        }
        "tests_skipped_or_deleted" => tests_skipped_or_deleted(&pr_path(task)?, evidence.pr(task)?.files.as_deref()?, p),
        "change_outside_named_files" => change_outside_named_files(task, &pr_path(task)?, evidence.pr(task)?.files.as_deref()?),
        "linter_not_run" => {
            if p.missing_tests_needs_failed_check && !failed_check {
                return None;
            }
            linter_not_run(task, events, p, evidence)
        }
        "no_verification_notes" => (test_calls().next().is_none()).then(|| no_verification_notes(task, p, evidence)).flatten(),
        "no_test_run" => {
            if test_calls().next().is_some() || (p.missing_tests_needs_failed_check && !failed_check) {
                return None;
            }
            let why = if failed_check { check_words() } else { "no check recorded as failed".into() };
            Some(format!("no agent_tool_call runs tests; {why}"))
        }
        "no_test_run_ci_failed" | "ci_failed_after_tests" => {
            if !p.use_snapshot_ci || (rule == "no_test_run_ci_failed") == test_calls().next().is_some() {
                return None;
            }
            let (repo, sha, (state, signature)) = ci.of(task)?;
            (state == "failure").then(|| {
                let sig = signature.as_deref().map(|s| format!(" ({s})")).unwrap_or_default();
                format!("CI failed on {repo}@{sha}{sig}")
            })
        }
        "tests_failing" => tests_failing(events, p, test_calls().next()?, failed_check.then(check_words)),
        _ => None,
    }
}

/// The category of one task, from its events (any order). `None` for a task whose status
/// asks for none (COMPLETED).
pub(crate) fn categorize(task: &Task, events: &[&TaskEvent], policy: &TaskPolicy, evidence: &Evidence) -> Option<Failure> {
    if !needs_category(task) {
        return None;
    }
    let mut events = events.to_vec();
    events.sort_by(|a, b| (a.timestamp, &a.event_id).cmp(&(b.timestamp, &b.event_id)));
    for category in &policy.precedence {
        for rule in RULES.iter().filter(|r| r.category == *category) {
            if let Some(seen) = fire(rule.id, task, &events, policy, evidence) {
                return Some(Failure { task_id: task.task_id.clone(), category: *category, rule_id: Some(rule.id), evidence: Some(seen) });
            }
        }
    }
    Some(Failure { task_id: task.task_id.clone(), category: FailureCategory::Uncategorized, rule_id: None, evidence: None })
}

/// Every task that needs a category, categorized, in task-id order (`tasks` and `events`
/// as [`super::read`] sorts them), from what `evidence` found in the snapshot.
pub fn categorize_all(tasks: &[super::Task], events: &[TaskEvent], policy: &TaskPolicy, evidence: &Evidence) -> Vec<Failure> {
    let mut by_task: std::collections::HashMap<&str, Vec<&TaskEvent>> = std::collections::HashMap::new();
    for e in events {
        by_task.entry(e.task_id.as_str()).or_default().push(e);
    }
    tasks.iter().filter_map(|t| categorize(t, by_task.get(t.task_id.as_str()).map_or(&[][..], Vec::as_slice), policy, evidence)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Paths and file names are named; links, e-mail addresses, versions and sentences are not.
    #[test]
    fn the_files_a_description_names() {
        let d = "Fix `src/parse.rs` and the docs/ folder (see https://example.com/a/b.html, v1.2, e.g. README.md; mail a@b.io).";
        assert_eq!(named_files(d), ["README.md", "docs/", "e.g", "src/parse.rs"]);
        // "e.g" looks like a file name; it names no file a PR changes, so it never counts
        // (a bare name counts only when a changed file has it).
    }

    /// A task's head SHA finds its commit's CI as every SHA match in hindsight does
    /// (`snapshot::sha`): an abbreviation of 7 or more, and, since that rule is shared, in
    /// either case (a head copied in upper case used to find nothing here).
    #[test]
    fn a_head_sha_finds_its_commit_in_any_case_when_one_commit_matches() {
        let full = "abcdef0000000000000000000000000000000001";
        let row = |sha: &str| ("o/r".to_string(), sha.to_string(), "failure".to_string(), None);
        let ci = CiStates::from_rows([row(full), row("abcdef1000000000000000000000000000000002")]);
        let found = |head: &str| ci.of(&Task { repo: Some("o/r".into()), head_sha: Some(head.into()), ..Task::default() }).map(|(_, s, _)| s.to_string());
        assert_eq!(found(full).as_deref(), Some(full));
        assert_eq!(found(&full.to_uppercase()).as_deref(), Some(full));
        assert_eq!(found("ABCDEF0").as_deref(), Some(full));
        // Shorter than 7, or the start of two commits: no commit is named.
        assert_eq!(found("abcde"), None);
        assert_eq!(found("abcdef"), None);
        assert_eq!(found("ABCDEF"), None);
        let both = CiStates::from_rows([row(full), row("abcdef0000000000000000000000000000000002")]);
        assert_eq!(both.of(&Task { repo: Some("o/r".into()), head_sha: Some("abcdef0".into()), ..Task::default() }), None);
    }

    #[test]
    fn phrases_match_whole_words_ignoring_case() {
        assert!(matches_phrase("npx JEST --ci", "jest"));
        assert!(!matches_phrase("I suggest a fix", "jest"));
        assert!(matches_phrase("bash: cargo: Command Not Found", "command not found"));
        assert!(matches_phrase("npm ERR! code E404", "npm err!"));
        assert!(matches_phrase("run cargo test --all", "cargo test"));
        assert!(!matches_phrase("cargo testing", "cargo test"));
        assert!(!matches_phrase("zoom in", "oom"));
        assert!(matches_phrase("process OOM-killed", "oom"));
        assert!(!matches_phrase("anything", ""));
        assert!(matches_phrase("pytest", "pytest"));
    }

    #[test]
    fn the_default_test_patterns_find_test_commands() {
        let p = TaskPolicy::default();
        for c in ["cargo test -p x", "python -m pytest tests/", "npm test", "go test ./...", "npx vitest run", "yarn jest"] {
            assert!(first_match(c, &p.test_command_patterns).is_some(), "{c}");
        }
        for c in ["cargo build", "npm install", "ls tests/", "git commit -m 'add tests'"] {
            assert!(first_match(c, &p.test_command_patterns).is_none(), "{c}");
        }
    }

    #[test]
    fn scope_is_a_path_or_what_lies_below_it() {
        let scope = vec!["src/parser/".to_string(), "README.md".to_string()];
        assert!(in_scope("src/parser/lex.rs", &scope));
        assert!(in_scope("./README.md", &scope));
        assert!(!in_scope("src/parserx/a.rs", &scope));
        assert!(!in_scope("Cargo.toml", &scope));
    }

    #[test]
    fn the_default_policy_is_valid_and_round_trips() {
        let p = TaskPolicy::default();
        assert!(p.check().is_ok());
        let back: TaskPolicy = serde_json::from_value(p.to_json()).unwrap();
        assert_eq!(back, p);
        let bad = TaskPolicy { precedence: vec![FailureCategory::ReasoningError], ..TaskPolicy::default() };
        assert!(bad.check().is_err());
    }

    #[test]
    fn every_category_has_a_rule() {
        for c in FailureCategory::DECIDED {
            assert!(RULES.iter().any(|r| r.category == c), "{}", c.as_str());
        }
    }
}
