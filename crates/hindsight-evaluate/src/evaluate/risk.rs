//! PR risk level (docs/SPEC.md [SPEC-TASKS-TIER3]), from the PR's captured files and patch
//! (`pulls/N/files`: `filename`, `status`, `additions`, `deletions`, `patch`), for every PR an
//! agent output opened or pushed to:
//!
//! - **critical**: breaking public API changes (a public item's line removed), database
//!   schema or migration files, CI/CD pipeline files, or security-sensitive paths;
//! - **high**: a large change surface, public API changes (added), new or changed external
//!   dependencies (a dependency manifest), or shared infrastructure (a container, Terraform,
//!   or a deployment folder: `infra`, `deploy`, `k8s`, `helm`, `charts`, `terraform`);
//! - **medium**: a moderate change surface, or source changed with no test file touched;
//! - **low**: everything else.
//!
//! The highest level any reason reaches wins; every reason is listed. Without a capture of
//! the PR's files the level is unknown (`NULL`), never low. Thresholds and patterns are
//! [`RiskPolicy`] switches with defaults, written into the manifest.
//!
//! Public API, by language, on a patch line: Rust `pub fn|struct|enum|trait|type|const|mod`
//! (not `pub(crate)`); TypeScript/JavaScript `export `; Python a top-level `def`/`class`
//! whose name does not start with `_`; Go `func`/`type` of a capitalized name; Java, C#,
//! Kotlin, Swift `public `. Test files never count.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::runs::SafeOutput;
use crate::snapshot::SnapshotIndex;
use crate::table::{self, Kind};
use arrow::record_batch::RecordBatch;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum RiskLevel {
    Low,
    Medium,
    High,
    Critical,
}

impl RiskLevel {
    pub fn as_str(&self) -> &'static str {
        match self {
            RiskLevel::Low => "low",
            RiskLevel::Medium => "medium",
            RiskLevel::High => "high",
            RiskLevel::Critical => "critical",
        }
    }
}

/// The open choices of the PR risk table ([SPEC-TASKS-TIER3]): read from `--risk-policy
/// FILE` (`schemas/risk-policy.schema.json`), recorded in the manifest as `risk_policy`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct RiskPolicy {
    /// Files changed at or above which the surface is large (high).
    pub large_files: i64,
    /// Lines added + deleted at or above which the surface is large (high).
    pub large_lines: i64,
    /// Files changed at or above which the surface is moderate (medium).
    pub moderate_files: i64,
    /// Lines added + deleted at or above which the surface is moderate (medium).
    pub moderate_lines: i64,
    /// Path fragments (lower case) of security-sensitive code (critical).
    pub security_paths: Vec<String>,
}

impl Default for RiskPolicy {
    fn default() -> Self {
        RiskPolicy {
            large_files: 20,
            large_lines: 500,
            moderate_files: 5,
            moderate_lines: 100,
            security_paths: ["auth", "crypto", "security", "secret", "password", "permission", "token", ".pem", "sandbox"].map(String::from).to_vec(),
        }
    }
}

impl RiskPolicy {
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    /// A risk policy file (`--risk-policy FILE`; `schemas/risk-policy.schema.json`): any
    /// subset of the switches merged over the defaults, read as every policy file is
    /// (unknown keys and wrong types refused, naming the key), then checked.
    pub fn load(path: &std::path::Path) -> crate::error::Result<RiskPolicy> {
        let p: RiskPolicy = crate::evaluate::policy::load_switches(path, "see schemas/risk-policy.schema.json")?;
        p.check().map_err(|message| crate::error::Error::Policy { path: path.to_path_buf(), message })?;
        Ok(p)
    }

    /// Thresholds of at least 1, the moderate ones no higher than the large ones (a
    /// moderate threshold above its large one could never decide), and security paths that
    /// are non-empty and lower case (they are looked for in the lower-cased path).
    pub fn check(&self) -> std::result::Result<(), String> {
        for (key, v) in [
            ("large_files", self.large_files),
            ("large_lines", self.large_lines),
            ("moderate_files", self.moderate_files),
            ("moderate_lines", self.moderate_lines),
        ] {
            if v < 1 {
                return Err(format!("`{key}` must be at least 1 (it is {v})"));
            }
        }
        for (moderate, large, m, l) in
            [("moderate_files", "large_files", self.moderate_files, self.large_files), ("moderate_lines", "large_lines", self.moderate_lines, self.large_lines)]
        {
            if m > l {
                return Err(format!("`{moderate}` ({m}) must not exceed `{large}` ({l}): a surface that large is already high risk"));
            }
        }
        for (k, s) in self.security_paths.iter().enumerate() {
            if s.trim().is_empty() {
                return Err(format!("`security_paths[{k}]` is empty: it would match every path"));
            }
            if s.to_lowercase() != *s {
                return Err(format!("`security_paths[{k}]` ({s:?}) must be lower case: it is looked for in the lower-cased path"));
            }
        }
        Ok(())
    }
}

const DEPENDENCY_MANIFESTS: &[&str] = &[
    "cargo.toml",
    "cargo.lock",
    "package.json",
    "package-lock.json",
    "yarn.lock",
    "pnpm-lock.yaml",
    "requirements.txt",
    "pyproject.toml",
    "pipfile",
    "pipfile.lock",
    "poetry.lock",
    "go.mod",
    "go.sum",
    "gemfile",
    "gemfile.lock",
    "pom.xml",
    "build.gradle",
    "build.gradle.kts",
    "composer.json",
    "composer.lock",
];

use hindsight_core::files::base;
pub(crate) use hindsight_core::files::is_test;

fn is_dependency_manifest(path: &str) -> bool {
    let b = base(path).to_lowercase();
    DEPENDENCY_MANIFESTS.contains(&b.as_str()) || (b.starts_with("requirements") && b.ends_with(".txt"))
}

fn is_ci(path: &str) -> bool {
    let p = path.to_lowercase();
    p.starts_with(".github/workflows/")
        || p.starts_with(".circleci/")
        || p == ".gitlab-ci.yml"
        || base(&p) == "jenkinsfile"
        || p.starts_with(".buildkite/")
        || p == "azure-pipelines.yml"
}

fn is_schema(path: &str) -> bool {
    let p = path.to_lowercase();
    p.split('/').any(|s| matches!(s, "migrations" | "migrate" | "migration" | "alembic"))
        || p.ends_with(".sql")
        || base(&p) == "schema.rb"
        || p.ends_with(".prisma")
}

fn is_shared_infrastructure(path: &str) -> bool {
    let p = path.to_lowercase();
    let b = base(&p);
    b == "dockerfile"
        || b.starts_with("docker-compose")
        || p.ends_with(".tf")
        || p.split('/').any(|s| matches!(s, "infra" | "deploy" | "k8s" | "helm" | "charts" | "terraform"))
}

/// A patch line (without its `+`/`-`) that declares a public item of `path`'s language.
pub(crate) fn public_api(path: &str, line: &str) -> bool {
    let l = line.trim_start();
    let indent = line.len() - l.len();
    let ext = path.rsplit_once('.').map(|(_, e)| e.to_lowercase()).unwrap_or_default();
    match ext.as_str() {
        "rs" => ["pub fn ", "pub struct ", "pub enum ", "pub trait ", "pub type ", "pub const ", "pub mod ", "pub async fn ", "pub static "]
            .iter()
            .any(|k| l.starts_with(k)),
        "ts" | "tsx" | "js" | "jsx" | "mjs" | "cjs" => l.starts_with("export "),
        "py" => indent == 0 && ["def ", "class ", "async def "].iter().any(|k| l.strip_prefix(k).is_some_and(|rest| !rest.starts_with('_'))),
        "go" => {
            let name = l.strip_prefix("func ").or_else(|| l.strip_prefix("type ")).map(|r| r.trim_start_matches(|c: char| c == '(' || c.is_whitespace()));
            // A method `func (r *T) Name(...)`: the name after the receiver.
            let name = match (l.starts_with("func ("), name) {
                (true, Some(_)) => l.split_once(')').map(|(_, rest)| rest.trim_start()),
                (_, n) => n,
            };
            name.and_then(|n| n.chars().next()).is_some_and(|c| c.is_ascii_uppercase())
        }
        "java" | "cs" | "kt" | "swift" => l.starts_with("public "),
        _ => false,
    }
}

/// One PR's assessment, for the agent output or the task whose PR it is.
#[derive(Clone, Debug)]
pub(crate) struct Risk {
    /// The output that opened or pushed to the PR; `None` for a task's PR.
    pub safe_output_id: Option<String>,
    /// The task whose `pr_url` names the PR; `None` for an output's PR.
    pub(crate) task_id: Option<String>,
    pub(crate) repo: String,
    pub(crate) pull_number: i64,
    /// `None` when the PR's files were not captured.
    pub(crate) level: Option<RiskLevel>,
    pub(crate) files: i64,
    pub(crate) additions: i64,
    pub(crate) deletions: i64,
    pub(crate) reasons: Vec<String>,
}

/// Assess the PR of output `o` (types that open or push to a PR, executed).
pub(crate) fn assess(index: &SnapshotIndex, o: &SafeOutput, policy: &RiskPolicy) -> Option<Risk> {
    if !matches!(o.output_type.as_ref(), "create_pull_request" | "push_to_pull_request_branch") || o.execution != crate::runs::Execution::Executed {
        return None;
    }
    let (repo, n) = (o.target_repo.as_deref()?, o.target_number?);
    Some(Risk { safe_output_id: Some(o.safe_output_id.to_string()), ..assess_pr(index, repo, n, policy) })
}

/// A task's PR ([SPEC-TASKS-TIER3] stores the risk level in the task record): the same
/// assessment, for the task `task_id` whose `pr_url` names `repo`#`n`.
pub(crate) fn assess_task(index: &SnapshotIndex, task_id: &str, repo: &str, n: i64, policy: &RiskPolicy) -> Risk {
    Risk { task_id: Some(task_id.to_string()), ..assess_pr(index, repo, n, policy) }
}

/// The PR `repo`#`n` assessed from its captured files; no subject set.
fn assess_pr(index: &SnapshotIndex, repo: &str, n: i64, policy: &RiskPolicy) -> Risk {
    let repo = repo.to_string();
    let mut r = Risk {
        safe_output_id: None,
        task_id: None,
        repo: repo.clone(),
        pull_number: n,
        level: None,
        files: 0,
        additions: 0,
        deletions: 0,
        reasons: Vec::new(),
    };
    // Read where it is: a PR's files can run to thousands, each with its patch.
    let Some(files) = index.get(&format!("repos/{repo}/pulls/{n}/files")).filter(|e| e.ok()).and_then(|e| e.body().as_array()) else {
        r.reasons.push("the PR's files were not captured (pulls/N/files)".into());
        return r;
    };
    let mut level = RiskLevel::Low;
    let mut raise = |l: RiskLevel, why: String, reasons: &mut Vec<String>| {
        level = level.max(l);
        reasons.push(format!("{}: {why}", l.as_str()));
    };
    let mut tests_touched = false;
    let mut source_changed = false;
    for f in files {
        let path = f.get("filename").and_then(Value::as_str).unwrap_or_default();
        r.files += 1;
        r.additions += f.get("additions").and_then(Value::as_i64).unwrap_or(0);
        r.deletions += f.get("deletions").and_then(Value::as_i64).unwrap_or(0);
        let lower = path.to_lowercase();
        if is_test(path) {
            tests_touched = true;
            continue;
        }
        let (schema, ci, dependency, infrastructure) = (is_schema(path), is_ci(path), is_dependency_manifest(path), is_shared_infrastructure(path));
        if schema {
            raise(RiskLevel::Critical, format!("database schema or migration `{path}`"), &mut r.reasons);
        }
        if ci {
            raise(RiskLevel::Critical, format!("CI/CD pipeline `{path}`"), &mut r.reasons);
        }
        if policy.security_paths.iter().any(|s| lower.contains(s.as_str())) {
            raise(RiskLevel::Critical, format!("security-sensitive path `{path}`"), &mut r.reasons);
        }
        if dependency {
            raise(RiskLevel::High, format!("dependency manifest `{path}`"), &mut r.reasons);
        } else if infrastructure {
            raise(RiskLevel::High, format!("shared infrastructure `{path}`"), &mut r.reasons);
        }
        // Code, as opposed to schema, pipelines, manifests and infrastructure: what tests cover.
        source_changed |= !(schema || ci || dependency || infrastructure);
        let patch = f.get("patch").and_then(Value::as_str).unwrap_or_default();
        let removed = patch.lines().filter(|l| l.starts_with('-') && !l.starts_with("---")).any(|l| public_api(path, &l[1..]));
        let added = patch.lines().filter(|l| l.starts_with('+') && !l.starts_with("+++")).any(|l| public_api(path, &l[1..]));
        if removed {
            raise(RiskLevel::Critical, format!("public API removed or changed in `{path}`"), &mut r.reasons);
        } else if added {
            raise(RiskLevel::High, format!("public API added in `{path}`"), &mut r.reasons);
        }
    }
    let lines = r.additions + r.deletions;
    if r.files >= policy.large_files || lines >= policy.large_lines {
        raise(RiskLevel::High, format!("large change surface ({} files, {lines} lines)", r.files), &mut r.reasons);
    } else if r.files >= policy.moderate_files || lines >= policy.moderate_lines {
        raise(RiskLevel::Medium, format!("moderate change surface ({} files, {lines} lines)", r.files), &mut r.reasons);
    }
    if source_changed && !tests_touched {
        raise(RiskLevel::Medium, "source changed, no test file touched".into(), &mut r.reasons);
    }
    r.level = Some(level);
    r
}

/// The `pr_risk` table's columns.
const RISK_COLUMNS: [(&str, Kind); 9] = [
    ("safe_output_id", Kind::Str),
    ("task_id", Kind::Str),
    ("repo", Kind::Str),
    ("pull_number", Kind::Int),
    ("risk_level", Kind::Str),
    ("files", Kind::Int),
    ("additions", Kind::Int),
    ("deletions", Kind::Int),
    ("reasons", Kind::Str),
];

/// The `pr_risk` table by (`safe_output_id`, `task_id`): the tasks' PRs (no output id)
/// first, by task id, then the outputs', by output id (a stable sort, as `Table`'s was), built column by column from the risks (see
/// `ci_gate::tables`).
pub(crate) fn table(risks: &[Risk]) -> Result<(&'static str, RecordBatch), arrow::error::ArrowError> {
    let mut order: Vec<&Risk> = risks.iter().collect();
    order.sort_by(|a, b| (&a.safe_output_id, &a.task_id).cmp(&(&b.safe_output_id, &b.task_id)));
    let reasons: Vec<String> = order.iter().map(|r| serde_json::to_string(&r.reasons).unwrap_or_default()).collect();
    let o = &order;
    let batch = RecordBatch::try_new(
        table::arrow_schema(&RISK_COLUMNS),
        vec![
            table::str_column(o.iter().map(|r| r.safe_output_id.as_deref())),
            table::str_column(o.iter().map(|r| r.task_id.as_deref())),
            table::str_column(o.iter().map(|r| Some(r.repo.as_str()))),
            table::int_column(o.iter().map(|r| Some(r.pull_number))),
            table::str_column(o.iter().map(|r| r.level.map(|l| l.as_str()))),
            table::int_column(o.iter().map(|r| Some(r.files))),
            table::int_column(o.iter().map(|r| Some(r.additions))),
            table::int_column(o.iter().map(|r| Some(r.deletions))),
            table::str_column(reasons.iter().map(|r| Some(r.as_str()))),
        ],
    )?;
    Ok(("pr_risk", batch))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Risks out of order, one id twice, a level missing, reasons to escape: the batch a
    /// `Table` of the same rows made (a cell per value, a stable sort by id), the definition
    /// the column-by-column build keeps.
    #[test]
    fn the_table_built_by_column_is_the_table_cells_made() {
        use crate::table::{i, os, s, Table};
        let risk = |id: &str, n: i64, level: Option<RiskLevel>, reasons: &[&str]| Risk {
            safe_output_id: id.strip_prefix("task:").is_none().then(|| id.to_string()),
            task_id: id.strip_prefix("task:").map(str::to_string),
            repo: "o/r".into(),
            pull_number: n,
            level,
            files: n * 3,
            additions: n * 10,
            deletions: n,
            reasons: reasons.iter().map(|r| r.to_string()).collect(),
        };
        let risks = vec![
            risk("o7", 7, Some(RiskLevel::High), &["large change surface (\"40\" files)"]),
            risk("o3", 3, None, &[]),
            risk("o7", 8, Some(RiskLevel::Low), &[]),
            risk("task:b", 9, Some(RiskLevel::Low), &[]),
            risk("o1", 1, Some(RiskLevel::Medium), &["source changed, no test file touched", "é"]),
            risk("task:a", 10, None, &[]),
        ];
        let mut cells = Table::new("pr_risk", &RISK_COLUMNS);
        for r in &risks {
            cells.push(vec![
                os(r.safe_output_id.as_ref()),
                os(r.task_id.as_ref()),
                s(&r.repo),
                i(r.pull_number),
                os(r.level.map(|l| l.as_str())),
                i(r.files),
                i(r.additions),
                i(r.deletions),
                s(serde_json::to_string(&r.reasons).unwrap_or_default()),
            ]);
        }
        // Tasks' rows (no output id) first, by task id; then outputs', by id.
        cells.sort_by_columns(&["safe_output_id", "task_id"]);
        let (name, built) = table(&risks).unwrap();
        assert_eq!(name, "pr_risk");
        assert_eq!(built, cells.to_batch().unwrap());
        let numbers = built.column(3).as_any().downcast_ref::<arrow::array::Int64Array>().unwrap();
        assert_eq!(numbers.values().to_vec(), [10, 9, 1, 3, 7, 8]);
    }

    #[test]
    fn public_api_by_language() {
        assert!(public_api("src/lib.rs", "pub fn parse(x: &str) -> u8 {"));
        assert!(!public_api("src/lib.rs", "pub(crate) fn parse() {"));
        assert!(!public_api("src/lib.rs", "fn parse() {"));
        assert!(public_api("src/a.ts", "export function f() {}"));
        assert!(public_api("m.py", "def handler(event):"));
        assert!(!public_api("m.py", "def _private():"));
        assert!(!public_api("m.py", "    def method(self):"));
        assert!(public_api("a.go", "func Parse(s string) error {"));
        assert!(public_api("a.go", "func (p *Parser) Next() bool {"));
        assert!(!public_api("a.go", "func parse() {"));
        assert!(public_api("A.java", "public int size() {"));
    }

    #[test]
    fn file_kinds() {
        assert!(is_test("tests/it/main.rs") && is_test("src/a.test.ts") && is_test("pkg/a_test.go") && is_test("test_x.py"));
        assert!(!is_test("src/latest.rs"));
        assert!(is_dependency_manifest("Cargo.toml") && is_dependency_manifest("web/package.json") && is_dependency_manifest("requirements-dev.txt"));
        assert!(is_ci(".github/workflows/ci.yml") && is_ci(".gitlab-ci.yml"));
        assert!(is_schema("db/migrations/001_init.sql") && is_schema("prisma/schema.prisma"));
        assert!(is_shared_infrastructure("Dockerfile") && is_shared_infrastructure("deploy/app.yaml"));
    }
}
