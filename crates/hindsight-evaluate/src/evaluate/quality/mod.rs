//! Code-quality findings (tier 2 of task evaluation, docs/TASKS.md "Code-quality findings"):
//! structural quality of the code an agent's PR adds, read from the PR's captured files and
//! their `patch` (`pulls/N/files`), for the same PRs as the risk table (`risk.rs`): every
//! PR an agent output opened or pushed to, and every task's PR.
//!
//! One rule per file (a [`Rule`] each), each with what it checks, why, and an example:
//!
//! - `duplicated_block.rs`: a block of added lines repeated within the PR or in the code
//!   around it;
//! - `complex_function.rs`: cyclomatic complexity and nesting of the functions the PR
//!   touches, from a tree-sitter parse;
//! - `naming_convention.rs`: names the PR declares against the language's convention;
//! - `repository_rule.rs`: the repository's own rules from the quality policy.
//!
//! A PR whose files were not captured gets no finding: its `pr_risk` row (level `NULL`)
//! says so, and the dashboard counts those PRs. `patch.rs` reads the hunks, `syntax.rs`
//! parses their new side, `policy.rs` is the `--quality-policy` file.

mod complex_function;
mod duplicated_block;
mod naming_convention;
pub(crate) mod patch;
pub mod policy;
mod repository_rule;
pub(crate) mod syntax;

use arrow::record_batch::RecordBatch;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::risk::Risk;
use crate::snapshot::SnapshotIndex;
use crate::table::{self, Kind};
pub use policy::QualityPolicy;

/// The tier the findings belong to in task evaluation (tier 1: tools, 3: risk).
const TIER: i64 = 2;

/// A finding's severity, in the spec's words, lowest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Info,
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// The rules, by the name the table's `rule` column gives them.
// `RepositoryRule` ends with the enum's name because the rule is called that (the table's
// `repository_rule`); renaming the variant would only part it from its name.
#[allow(clippy::enum_variant_names)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Rule {
    DuplicatedBlock,
    ComplexFunction,
    NamingConvention,
    RepositoryRule,
}

impl Rule {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Rule::DuplicatedBlock => "duplicated_block",
            Rule::ComplexFunction => "complex_function",
            Rule::NamingConvention => "naming_convention",
            Rule::RepositoryRule => "repository_rule",
        }
    }
}

/// What a rule found in one file of a PR.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Found {
    pub(crate) rule: Rule,
    pub(crate) severity: Severity,
    pub(crate) file: String,
    /// The line in the new file; `None` when the file has no new side (it was removed).
    pub(crate) line: Option<i64>,
    pub(crate) message: String,
    pub(crate) suggestion: String,
}

/// One row of `quality_findings`: a finding, for the output or task whose PR it is in.
#[derive(Clone, Debug)]
pub(crate) struct Finding {
    pub(crate) task_id: Option<String>,
    pub(crate) safe_output_id: Option<String>,
    pub(crate) repo: String,
    pub(crate) pr_number: i64,
    pub(crate) found: Found,
    pub(crate) blocking: bool,
}

/// One changed file of a PR, its patch read into hunks.
pub(crate) struct File<'f> {
    pub(crate) path: &'f str,
    /// `added`, `modified`, `removed`, `renamed` (GitHub's words).
    pub(crate) status: &'f str,
    /// The path before a rename.
    pub(crate) previous: Option<&'f str>,
    pub(crate) hunks: Vec<patch::Hunk<'f>>,
}

impl File<'_> {
    /// The first line of the new file the patch shows, for a finding about the whole file.
    pub(crate) fn first_line(&self) -> Option<i64> {
        self.hunks.iter().flat_map(|h| h.new_side()).find_map(|l| l.new)
    }

    /// Whether the file says in its first lines that a tool wrote it (`Code generated ...
    /// DO NOT EDIT.`, `@generated`): its names, size and repeats are the tool's, so the
    /// code rules leave it alone (the repository's own rules still apply).
    pub(crate) fn generated(&self) -> bool {
        let mut head = self.hunks.first().into_iter().flat_map(|h| h.new_side()).take_while(|l| l.new.is_some_and(|n| n <= 5));
        head.any(|l| l.text.contains("DO NOT EDIT") || l.text.contains("@generated") || l.text.contains("Code generated"))
    }
}

/// The findings of the PR `risk` assessed (same PR, same subject: an output's or a task's),
/// from its captured files; none when they were not captured.
pub(crate) fn assess(index: &SnapshotIndex, risk: &Risk, policy: &QualityPolicy) -> Vec<Finding> {
    let (repo, n) = (risk.repo.as_str(), risk.pull_number);
    let Some(files) = index.get(&format!("repos/{repo}/pulls/{n}/files")).filter(|e| e.ok()).and_then(|e| e.body().as_array()) else {
        return Vec::new();
    };
    let effective = policy.for_repo(repo);
    let found = find(files, &effective);
    found
        .into_iter()
        .map(|found| Finding {
            task_id: risk.task_id.clone(),
            safe_output_id: risk.safe_output_id.clone(),
            repo: repo.to_string(),
            pr_number: n,
            blocking: found.severity >= effective.blocking_severity,
            found,
        })
        .collect()
}

/// Every rule over a PR's files (the JSON array of `pulls/N/files`).
pub(crate) fn find(files: &[Value], policy: &policy::Effective<'_>) -> Vec<Found> {
    let files: Vec<File> = files
        .iter()
        .map(|f| {
            let text = |k: &str| f.get(k).and_then(Value::as_str);
            File {
                path: text("filename").unwrap_or_default(),
                status: text("status").unwrap_or_default(),
                previous: text("previous_filename"),
                hunks: patch::hunks(text("patch").unwrap_or_default()),
            }
        })
        .collect();
    let mut out = Vec::new();
    let (generated, written): (Vec<&File>, Vec<&File>) = files.iter().partition(|f| f.generated());
    duplicated_block::check(&written, policy, &mut out);
    for f in written {
        if let Some(language) = syntax::Language::of(f.path) {
            let parsed = syntax::parse(language, &f.hunks);
            complex_function::check(f, language, &parsed, policy, &mut out);
            naming_convention::check(f, language, &parsed, &mut out);
        }
        repository_rule::check(f, policy, &mut out);
    }
    for f in generated {
        repository_rule::check(f, policy, &mut out);
    }
    out
}

/// One finding of a PR as its row has it (without the PR and subject columns), for tests
/// (`hindsight::testing::quality_findings`).
#[derive(Clone, Debug, PartialEq)]
pub struct FindingRow {
    pub rule: &'static str,
    pub severity: Severity,
    pub blocking: bool,
    pub file: String,
    pub line: Option<i64>,
    pub message: String,
    pub suggestion: String,
}

/// The findings of a PR of `repo` whose `pulls/N/files` body is `files`, under `policy`, in
/// the table's order.
pub fn findings_of(files: &[Value], repo: &str, policy: &QualityPolicy) -> Vec<FindingRow> {
    let effective = policy.for_repo(repo);
    let mut rows: Vec<FindingRow> = find(files, &effective)
        .into_iter()
        .map(|f| FindingRow {
            rule: f.rule.as_str(),
            blocking: f.severity >= effective.blocking_severity,
            severity: f.severity,
            file: f.file,
            line: f.line,
            message: f.message,
            suggestion: f.suggestion,
        })
        .collect();
    rows.sort_by(|a, b| (a.file.as_str(), a.line, a.rule, a.message.as_str()).cmp(&(b.file.as_str(), b.line, b.rule, b.message.as_str())));
    rows
}

/// The `quality_findings` table's columns.
const COLUMNS: [(&str, Kind); 12] = [
    ("task_id", Kind::Str),
    ("safe_output_id", Kind::Str),
    ("repo", Kind::Str),
    ("pr_number", Kind::Int),
    ("tier", Kind::Int),
    ("rule", Kind::Str),
    ("severity", Kind::Str),
    ("blocking", Kind::Bool),
    ("file", Kind::Str),
    ("line", Kind::Int),
    ("message", Kind::Str),
    ("suggestion", Kind::Str),
];

/// The columns the table is sorted by, an absent value first: what a band's or a cluster
/// partition's rows are merged by (`stage::GATE_AND_RISK_KEYS`). The message ends the key
/// so that no two rows of one PR tie.
pub(crate) const KEYS: &[&str] = &["repo", "pr_number", "task_id", "safe_output_id", "file", "line", "rule", "message"];

/// The `quality_findings` table, sorted by [`KEYS`] (the rule by its name, as the merges
/// compare it).
pub(crate) fn table(findings: &[Finding]) -> Result<(&'static str, RecordBatch), arrow::error::ArrowError> {
    let mut o: Vec<&Finding> = findings.iter().collect();
    fn key(f: &Finding) -> (&str, i64, Option<&str>, Option<&str>, &str, Option<i64>, &str, &str) {
        let x = &f.found;
        (f.repo.as_str(), f.pr_number, f.task_id.as_deref(), f.safe_output_id.as_deref(), x.file.as_str(), x.line, x.rule.as_str(), x.message.as_str())
    }
    o.sort_by(|a, b| key(a).cmp(&key(b)));
    let batch = RecordBatch::try_new(
        table::arrow_schema(&COLUMNS),
        vec![
            table::str_column(o.iter().map(|f| f.task_id.as_deref())),
            table::str_column(o.iter().map(|f| f.safe_output_id.as_deref())),
            table::str_column(o.iter().map(|f| Some(f.repo.as_str()))),
            table::int_column(o.iter().map(|f| Some(f.pr_number))),
            table::int_column(o.iter().map(|_| Some(TIER))),
            table::str_column(o.iter().map(|f| Some(f.found.rule.as_str()))),
            table::str_column(o.iter().map(|f| Some(f.found.severity.as_str()))),
            table::bool_column(o.iter().map(|f| Some(f.blocking))),
            table::str_column(o.iter().map(|f| Some(f.found.file.as_str()))),
            table::int_column(o.iter().map(|f| f.found.line)),
            table::str_column(o.iter().map(|f| Some(f.found.message.as_str()))),
            table::str_column(o.iter().map(|f| Some(f.found.suggestion.as_str()))),
        ],
    )?;
    Ok(("quality_findings", batch))
}
