//! PR risk level (docs/SPEC.md [SPEC-TASKS-TIER3]), from the PR's captured files and patch
//! (`pulls/N/files`: `filename`, `status`, `additions`, `deletions`, `patch`), for every PR an
//! agent output opened or pushed to:
//!
//! - **critical**: breaking public API changes (a public item's line removed), database
//!   schema or migration files, CI/CD pipeline files, or security-sensitive paths;
//! - **high**: a large change surface (files, lines or modules touched), public API changes
//!   (added), new external dependencies (told from version changes by the manifest's diff:
//!   [`super::dependencies`]; a manifest whose diff is not captured counts, as it may add
//!   one), shared infrastructure (a container, Terraform, or a deployment folder: `infra`,
//!   `deploy`, `k8s`, `helm`, `charts`, `terraform`), or shared code (a `utils`, `util`,
//!   `common`, `shared` or `helpers` folder; a base class; configuration files), or many
//!   files outside the PR importing the changed code (`large_dependents`);
//! - **medium**: a moderate change surface, source changed with no test file touched (or
//!   partial coverage of the changed lines), dependency versions changed, a lock file
//!   changed, or some files outside the PR importing the changed code
//!   (`moderate_dependents`; the dependents are read from the captured base tree and its
//!   files' text: [`super::dependents`]; without them they are unknown, said in
//!   `not_captured`, and raise nothing);
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
use hindsight_core::coverage::FileLines;
use super::dependents::Graphs;
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
    /// Modules touched ([`module_of`]) at or above which the surface is moderate (medium).
    pub moderate_modules: i64,
    /// Modules touched at or above which the surface is large (high).
    pub large_modules: i64,
    /// Share of the changed lines a coverage report instruments that its tests ran, below
    /// which coverage is low (high).
    pub low_coverage: f64,
    /// The share below which coverage is partial (medium).
    pub partial_coverage: f64,
    /// Path fragments (lower case) of security-sensitive code (critical).
    pub security_paths: Vec<String>,
    /// Files not in the PR that import a changed file (up to `dependents_distance`), at or
    /// above which some downstream code depends on the change (medium).
    pub moderate_dependents: i64,
    /// Such files at or above which much downstream code depends on it (high).
    pub large_dependents: i64,
    /// How many imports away a file may be from a changed file and count as a dependent
    /// (1: it imports a changed file itself).
    pub dependents_distance: i64,
}

/// Default `moderate_dependents`: a handful of files depend on the change.
pub const MODERATE_DEPENDENTS: i64 = 5;
/// Default `large_dependents`.
pub const LARGE_DEPENDENTS: i64 = 25;
/// Default `dependents_distance`: a file that imports one that imports one that imports a
/// changed file still counts.
pub const DEPENDENTS_DISTANCE: i64 = 3;
/// The dependents `pr_risk.dependent_files` lists, nearest first; the rest are counted.
const LISTED_DEPENDENTS: usize = 20;

impl Default for RiskPolicy {
    fn default() -> Self {
        RiskPolicy {
            large_files: 20,
            large_lines: 500,
            moderate_files: 5,
            moderate_lines: 100,
            moderate_modules: 4,
            large_modules: 8,
            low_coverage: 0.5,
            partial_coverage: 0.8,
            security_paths: ["auth", "crypto", "security", "secret", "password", "permission", "token", ".pem", "sandbox"].map(String::from).to_vec(),
            moderate_dependents: MODERATE_DEPENDENTS,
            large_dependents: LARGE_DEPENDENTS,
            dependents_distance: DEPENDENTS_DISTANCE,
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
            ("moderate_modules", self.moderate_modules),
            ("large_modules", self.large_modules),
            ("moderate_dependents", self.moderate_dependents),
            ("large_dependents", self.large_dependents),
            ("dependents_distance", self.dependents_distance),
        ] {
            if v < 1 {
                return Err(format!("`{key}` must be at least 1 (it is {v})"));
            }
        }
        for (moderate, large, m, l) in
            [
            ("moderate_files", "large_files", self.moderate_files, self.large_files),
            ("moderate_lines", "large_lines", self.moderate_lines, self.large_lines),
            ("moderate_modules", "large_modules", self.moderate_modules, self.large_modules),
            ("moderate_dependents", "large_dependents", self.moderate_dependents, self.large_dependents),
        ]
        {
            if m > l {
                return Err(format!("`{moderate}` ({m}) must not exceed `{large}` ({l}): a surface that large is already high risk"));
            }
        }
        if !(0.0..=1.0).contains(&self.low_coverage) || !(0.0..=1.0).contains(&self.partial_coverage) || self.low_coverage > self.partial_coverage {
            return Err(format!(
                "`low_coverage` ({}) and `partial_coverage` ({}) must be shares from 0 to 1, low at most partial",
                self.low_coverage, self.partial_coverage
            ));
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
    /// The modules touched ([`module_of`]), sorted.
    pub(crate) modules: Vec<String>,
    /// `path: name` of each dependency a manifest's diff adds.
    pub(crate) new_dependencies: Vec<String>,
    /// Of the code lines the PR adds that the run's coverage report instruments, the share
    /// its tests ran; `None` without a report or such a line.
    pub(crate) changed_lines_covered: Option<f64>,
    /// Files not in the PR that import a changed file, with their distance (1: directly),
    /// nearest first ([`super::dependents`]); `None` when the repository's tree or the text
    /// of its files was not captured.
    pub(crate) dependents: Option<Vec<(String, u32)>>,
    /// Of the dependents' code lines the coverage report instruments, the share the tests ran;
    /// `None` without dependents, a report, or such a line.
    pub(crate) dependents_lines_covered: Option<f64>,
    /// What the level could not rest on: a coverage report, a file's patch.
    pub(crate) not_captured: Vec<String>,
    pub(crate) reasons: Vec<String>,
}

/// Assess the PR of output `o` (types that open or push to a PR, executed).
pub(crate) fn assess(index: &SnapshotIndex, o: &SafeOutput, policy: &RiskPolicy, coverage: &CoverageByRun, graphs: &Graphs) -> Option<Risk> {
    if !matches!(o.output_type.as_ref(), "create_pull_request" | "push_to_pull_request_branch") || o.execution != crate::runs::Execution::Executed {
        return None;
    }
    let (repo, n) = (o.target_repo.as_deref()?, o.target_number?);
    let report = coverage.get(o.run_id.as_ref()).map(Vec::as_slice);
    Some(Risk { safe_output_id: Some(o.safe_output_id.to_string()), ..assess_pr(index, repo, n, policy, report, graphs) })
}

/// Per run, the files of the coverage report it uploaded (table `coverage`).
pub(crate) type CoverageByRun = std::collections::HashMap<String, Vec<FileLines>>;

/// The dataset's coverage reports by run; none when it has no `coverage` table (an import,
/// a dataset written before it existed).
pub(crate) fn coverage_by_run(dataset: &std::path::Path) -> crate::Result<CoverageByRun> {
    let mut out = CoverageByRun::new();
    if !dataset.join("coverage.parquet").is_file() {
        return Ok(out);
    }
    for batch in crate::dataset::read::columns(dataset, "coverage", &["run_id", "source_file", "covered_lines", "uncovered_lines"])? {
        let c = crate::dataset::read::Cols::new("coverage", &batch);
        let (run, file, covered, uncovered) = (c.str("run_id")?, c.str("source_file")?, c.str("covered_lines")?, c.str("uncovered_lines")?);
        for k in 0..batch.num_rows() {
            let (Some(run), Some(path)) = (run[k].clone(), file[k].clone()) else { continue };
            let lines = |r: &Option<String>| r.as_deref().map(hindsight_core::coverage::from_ranges).unwrap_or_default();
            out.entry(run).or_default().push(FileLines { path, covered: lines(&covered[k]), uncovered: lines(&uncovered[k]) });
        }
    }
    Ok(out)
}

/// The new-side line numbers a patch adds (read as the quality rules read patches).
fn added_lines(patch: &str) -> Vec<u32> {
    use super::quality::patch::{hunks, Side};
    hunks(patch).iter().flat_map(|h| &h.lines).filter(|l| l.side == Side::Added).filter_map(|l| l.new).filter_map(|n| u32::try_from(n).ok()).collect()
}

/// Of the lines `patch` adds to `path`, those a report instruments and those it ran.
fn covered_lines(report: &[FileLines], path: &str, patch: &str) -> (usize, usize) {
    let Some(f) = report.iter().find(|f| hindsight_core::coverage::names(&f.path, path)) else { return (0, 0) };
    let added = added_lines(patch);
    let ran = added.iter().filter(|l| f.covered.binary_search(l).is_ok()).count();
    let missed = added.iter().filter(|l| f.uncovered.binary_search(l).is_ok()).count();
    (ran + missed, ran)
}

/// A task's PR ([SPEC-TASKS-TIER3] stores the risk level in the task record): the same
/// assessment, for the task `task_id` whose `pr_url` names `repo`#`n`, with the coverage
/// report `report` of a run on the same PR ([`pr_reports`]) when there is one.
pub(crate) fn assess_task(index: &SnapshotIndex, task_id: &str, repo: &str, n: i64, policy: &RiskPolicy, report: Option<&[FileLines]>, graphs: &Graphs) -> Risk {
    Risk { task_id: Some(task_id.to_string()), ..assess_pr(index, repo, n, policy, report, graphs) }
}

/// The coverage report of each PR (by repository and number) that a run's executed output
/// opened or pushed to, for the task PRs (T-R06): a task has no run, but a run on the same PR
/// may have uploaded one (table `coverage`). Of such runs with a report, the one of the
/// latest output (by its time, then run id): the report nearest the PR's last state. One pass
/// over the outputs, so a repository's task PRs each look theirs up rather than scan them.
pub(crate) fn pr_reports<'a, 'o: 'a>(outputs: impl Iterator<Item = &'a SafeOutput<'o>>, coverage: &'a CoverageByRun) -> PrReports<'a> {
    let mut best: std::collections::HashMap<(&'a str, i64), (&'a SafeOutput<'o>, &'a [FileLines])> = std::collections::HashMap::new();
    let opened = outputs.filter(|o| matches!(o.output_type.as_ref(), "create_pull_request" | "push_to_pull_request_branch") && o.execution == crate::runs::Execution::Executed);
    for o in opened {
        let (Some(repo), Some(n), Some(report)) = (o.target_repo.as_deref(), o.target_number, coverage.get(o.run_id.as_ref())) else { continue };
        let e = best.entry((repo, n)).or_insert((o, report));
        if (o.created_at, o.run_id.as_ref()) > (e.0.created_at, e.0.run_id.as_ref()) {
            *e = (o, report);
        }
    }
    PrReports(best.into_iter().map(|(k, (_, report))| (k, report)).collect())
}

/// The coverage report of a PR a run was on, by repository and number ([`pr_reports`]).
pub(crate) struct PrReports<'a>(std::collections::HashMap<(&'a str, i64), &'a [FileLines]>);

impl<'a> PrReports<'a> {
    pub(crate) fn of(&self, repo: &str, n: i64) -> Option<&'a [FileLines]> {
        self.0.get(&(repo, n)).copied()
    }
}

/// The PR `repo`#`n` assessed from its captured files; no subject set.
fn assess_pr(index: &SnapshotIndex, repo: &str, n: i64, policy: &RiskPolicy, report: Option<&[FileLines]>, graphs: &Graphs) -> Risk {
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
        modules: Vec::new(),
        new_dependencies: Vec::new(),
        changed_lines_covered: None,
        dependents: None,
        dependents_lines_covered: None,
        not_captured: Vec::new(),
        reasons: Vec::new(),
    };
    // Read where it is: a PR's files can run to thousands, each with its patch.
    let Some(files) = index.get(&format!("repos/{repo}/pulls/{n}/files")).filter(|e| e.ok()).and_then(|e| e.body().as_array()) else {
        r.reasons.push("the PR's files were not captured (pulls/N/files)".into());
        return r;
    };
    let mut raised = Raised { level: RiskLevel::Low, reasons: Vec::new() };
    let (mut tests_touched, mut source_changed) = (false, false);
    let mut modules = std::collections::BTreeSet::new();
    // Of the lines the PR adds to code, those the run's coverage report instruments and runs.
    let (mut instrumented, mut ran) = (0usize, 0usize);
    for f in files {
        let path = f.get("filename").and_then(Value::as_str).unwrap_or_default();
        r.files += 1;
        r.additions += f.get("additions").and_then(Value::as_i64).unwrap_or(0);
        r.deletions += f.get("deletions").and_then(Value::as_i64).unwrap_or(0);
        modules.insert(module_of(path));
        if is_test(path) {
            tests_touched = true;
            continue;
        }
        let patch = f.get("patch").and_then(Value::as_str);
        if patch.is_none() {
            // GitHub leaves out the patch of a binary or very large file.
            r.not_captured.push(format!("patch of `{path}`"));
        }
        let code = assess_file(path, patch, policy, &mut raised, &mut r.new_dependencies);
        source_changed |= code;
        if let (true, Some(report), Some(patch)) = (code, report, patch) {
            let (i, c) = covered_lines(report, path, patch);
            instrumented += i;
            ran += c;
        }
    }
    r.modules = modules.into_iter().collect();
    surface(&r, policy, &mut raised);
    let changed: Vec<&str> = files.iter().filter_map(|f| f.get("filename").and_then(Value::as_str)).collect();
    downstream(index, graphs, &changed, policy, &mut r, &mut raised);
    dependents_covered(&mut r, report);
    let covered = Covered { report, instrumented, ran, source_changed, tests_touched };
    covered.raise(&mut r, policy, &mut raised);
    r.level = Some(raised.level);
    r.reasons = raised.reasons;
    r
}

/// The change surface: files, lines and modules against the policy's thresholds.
fn surface(r: &Risk, policy: &RiskPolicy, raised: &mut Raised) {
    let lines = r.additions + r.deletions;
    let m = r.modules.len() as i64;
    if r.files >= policy.large_files || lines >= policy.large_lines {
        raised.raise(RiskLevel::High, format!("large change surface ({} files, {lines} lines)", r.files));
    } else if r.files >= policy.moderate_files || lines >= policy.moderate_lines {
        raised.raise(RiskLevel::Medium, format!("moderate change surface ({} files, {lines} lines)", r.files));
    }
    if m >= policy.large_modules {
        raised.raise(RiskLevel::High, format!("{m} modules touched"));
    } else if m >= policy.moderate_modules {
        raised.raise(RiskLevel::Medium, format!("{m} modules touched"));
    }
}

/// The dependents of the changed files (T-R03) against the policy's thresholds; what the
/// capture lacked for them, said.
fn downstream(index: &SnapshotIndex, graphs: &Graphs, changed: &[&str], policy: &RiskPolicy, r: &mut Risk, raised: &mut Raised) {
    let distance = u32::try_from(policy.dependents_distance).unwrap_or(u32::MAX);
    let Some(found) = super::dependents::find(index, graphs, &r.repo, r.pull_number, changed, distance) else {
        r.not_captured.push("repository tree and file contents (dependents of the changed files)".into());
        return;
    };
    if found.truncated {
        r.not_captured.push("the whole repository tree (GitHub cut its listing short: dependents may be missing)".into());
    }
    if found.read < found.sources {
        r.not_captured.push(format!("contents of {} of the {} source files read for dependents", found.sources - found.read, found.sources));
    }
    let d = &found.dependents;
    let n = d.len() as i64;
    let direct = d.iter().filter(|(_, k)| *k == 1).count();
    let farthest = d.iter().map(|(_, k)| *k).max().unwrap_or(0);
    let why = format!(
        "{n} files outside the PR import the changed code ({direct} directly, the farthest {farthest} imports away; within {})",
        policy.dependents_distance
    );
    if n >= policy.large_dependents {
        raised.raise(RiskLevel::High, why);
    } else if n >= policy.moderate_dependents {
        raised.raise(RiskLevel::Medium, why);
    }
    r.dependents = Some(found.dependents);
}

/// `pr_risk.dependent_files`: `path (distance)` per line, nearest first, the first
/// [`LISTED_DEPENDENTS`]; then how many more.
fn dependent_lines(d: &[(String, u32)]) -> String {
    let mut lines: Vec<String> = d.iter().take(LISTED_DEPENDENTS).map(|(p, k)| format!("{p} ({k})")).collect();
    if d.len() > LISTED_DEPENDENTS {
        lines.push(format!("and {} more", d.len() - LISTED_DEPENDENTS));
    }
    lines.join("\n")
}

/// The coverage of the dependents' code (T-R06) from the run's report: the share of their
/// instrumented lines the tests ran. Reported beside the level, which rests on the changed
/// lines' coverage: code that imports the change is run by its tests only through its own
/// lines, which say little of whether the changed behaviour is exercised. A report that
/// lists none of the dependents is said in `not_captured`.
fn dependents_covered(r: &mut Risk, report: Option<&[FileLines]>) {
    let (Some(report), Some(dependents)) = (report, r.dependents.as_deref()) else { return };
    if dependents.is_empty() {
        return;
    }
    let (mut instrumented, mut ran) = (0usize, 0usize);
    for (path, _) in dependents {
        if let Some(f) = report.iter().find(|f| hindsight_core::coverage::names(&f.path, path)) {
            instrumented += f.covered.len() + f.uncovered.len();
            ran += f.covered.len();
        }
    }
    match instrumented {
        0 => r.not_captured.push("coverage of the dependents (the run's report lists none of them)".into()),
        i => r.dependents_lines_covered = Some((ran as f64 / i as f64 * 10_000.0).round() / 10_000.0),
    }
}

/// What is known of the tests' reach over a PR's changed code.
struct Covered<'a> {
    /// The run's coverage report, when it uploaded one.
    report: Option<&'a [FileLines]>,
    /// Changed code lines the report instruments, and of those, ran.
    instrumented: usize,
    ran: usize,
    source_changed: bool,
    tests_touched: bool,
}

impl Covered<'_> {
    /// Coverage of the changed lines from the report; without it (or without a changed line
    /// in it), the proxy: code changed and no test file touched. What was missing is said.
    fn raise(&self, r: &mut Risk, policy: &RiskPolicy, raised: &mut Raised) {
        let (ran, i) = (self.ran, self.instrumented);
        let proxy = self.source_changed && !self.tests_touched;
        match self.report {
            // The run's tests ran (or not) the changed lines: coverage, not its proxy, decides.
            Some(_) if i > 0 => {
                let share = ran as f64 / i as f64;
                r.changed_lines_covered = Some((share * 10_000.0).round() / 10_000.0);
                if share < policy.low_coverage {
                    raised.raise(RiskLevel::High, format!("low coverage of the changed lines ({ran} of {i} run by the tests)"));
                } else if share < policy.partial_coverage {
                    raised.raise(RiskLevel::Medium, format!("partial coverage of the changed lines ({ran} of {i} run by the tests)"));
                }
                return;
            }
            Some(_) if self.source_changed => r.not_captured.push("coverage of the changed lines (the run's report lists none of them)".into()),
            None if self.source_changed => r.not_captured.push("coverage report (coverage judged by whether a test file was touched)".into()),
            _ => {}
        }
        if proxy {
            raised.raise(RiskLevel::Medium, "source changed, no test file touched".into());
        }
    }
}

/// The highest level raised so far and every reason, with the level it reaches.
struct Raised {
    level: RiskLevel,
    reasons: Vec<String>,
}

impl Raised {
    fn raise(&mut self, l: RiskLevel, why: String) {
        self.level = self.level.max(l);
        self.reasons.push(format!("{}: {why}", l.as_str()));
    }
}

/// The module a file belongs to: its folder, cut to its first two levels (`src/parser`,
/// `crates/core`); a file at the top is in `.`.
pub(crate) fn module_of(path: &str) -> String {
    let dirs: Vec<&str> = path.split('/').collect();
    let dirs = &dirs[..dirs.len().saturating_sub(1)];
    if dirs.is_empty() {
        ".".into()
    } else {
        dirs[..dirs.len().min(2)].join("/")
    }
}

/// One changed file (not a test) assessed: reasons raised, new dependencies noted; whether
/// it is code that tests would cover.
fn assess_file(path: &str, patch: Option<&str>, policy: &RiskPolicy, raised: &mut Raised, new_dependencies: &mut Vec<String>) -> bool {
    let lower = path.to_lowercase();
    let (schema, ci, dependency, infrastructure) = (is_schema(path), is_ci(path), is_dependency_manifest(path), is_shared_infrastructure(path));
    if schema {
        raised.raise(RiskLevel::Critical, format!("database schema or migration `{path}`"));
    }
    if ci {
        raised.raise(RiskLevel::Critical, format!("CI/CD pipeline `{path}`"));
    }
    if policy.security_paths.iter().any(|s| lower.contains(s.as_str())) {
        raised.raise(RiskLevel::Critical, format!("security-sensitive path `{path}`"));
    }
    if dependency {
        assess_dependencies(path, patch, raised, new_dependencies);
    } else if infrastructure {
        raised.raise(RiskLevel::High, format!("shared infrastructure `{path}`"));
    } else if let Some(what) = shared_code(path) {
        raised.raise(RiskLevel::High, format!("{what} `{path}`"));
    }
    let patch = patch.unwrap_or_default();
    let removed = patch.lines().filter(|l| l.starts_with('-') && !l.starts_with("---")).any(|l| public_api(path, &l[1..]));
    let added = patch.lines().filter(|l| l.starts_with('+') && !l.starts_with("+++")).any(|l| public_api(path, &l[1..]));
    if removed {
        raised.raise(RiskLevel::Critical, format!("public API removed or changed in `{path}`"));
    } else if added {
        raised.raise(RiskLevel::High, format!("public API added in `{path}`"));
    }
    // Code, as opposed to schema, pipelines, manifests and infrastructure: what tests cover.
    !(schema || ci || dependency || infrastructure)
}

/// A dependency manifest or lock file: new dependencies are high, versions moved medium; a
/// manifest whose diff was not captured (or not read here) cannot be told apart: high, as
/// a new dependency may be among its changes.
fn assess_dependencies(path: &str, patch: Option<&str>, raised: &mut Raised, new_dependencies: &mut Vec<String>) {
    if hindsight_core::files::is_lock_file(path) {
        raised.raise(RiskLevel::Medium, format!("lock file `{path}`: resolved versions changed"));
        return;
    }
    match patch.and_then(|p| super::dependencies::diff(path, p)) {
        Some(d) => {
            if !d.added.is_empty() {
                raised.raise(RiskLevel::High, format!("new dependencies in `{path}`: {}", d.added.join(", ")));
                new_dependencies.extend(d.added.iter().map(|a| format!("{path}: {a}")));
            }
            if !d.changed.is_empty() {
                raised.raise(RiskLevel::Medium, format!("dependency versions changed in `{path}`: {}", d.changed.join(", ")));
            }
            if !d.removed.is_empty() {
                raised.raise(RiskLevel::Low, format!("dependencies removed from `{path}`: {}", d.removed.join(", ")));
            }
        }
        None => raised.raise(RiskLevel::High, format!("dependency manifest `{path}` (its diff does not tell a new dependency from an update)")),
    }
}

/// Code many modules share: shared utilities, base classes, configuration.
fn shared_code(path: &str) -> Option<&'static str> {
    let p = path.to_lowercase();
    let b = base(&p);
    let stem = b.split('.').next().unwrap_or(b);
    let dirs: Vec<&str> = p.split('/').collect();
    let dirs = &dirs[..dirs.len().saturating_sub(1)];
    if dirs.iter().any(|s| matches!(*s, "utils" | "util" | "common" | "shared" | "helpers")) {
        return Some("shared utility");
    }
    let original = base(path);
    if stem == "base" || stem.starts_with("base_") || (original.starts_with("Base") && original[4..].starts_with(|c: char| c.is_ascii_uppercase())) {
        return Some("base class");
    }
    let config = dirs.iter().any(|s| matches!(*s, "config" | "configs" | "conf" | "settings"))
        || b.starts_with(".env")
        || (matches!(stem, "settings" | "config" | "application") && [".py", ".yml", ".yaml", ".json", ".toml", ".ini", ".properties"].iter().any(|e| b.ends_with(e)))
        || b.contains(".config.");
    config.then_some("configuration")
}

/// The `pr_risk` table's columns.
const RISK_COLUMNS: [(&str, Kind); 16] = [
    ("safe_output_id", Kind::Str),
    ("task_id", Kind::Str),
    ("repo", Kind::Str),
    ("pull_number", Kind::Int),
    ("risk_level", Kind::Str),
    ("files", Kind::Int),
    ("additions", Kind::Int),
    ("deletions", Kind::Int),
    ("modules", Kind::Str),
    ("new_dependencies", Kind::Str),
    ("changed_lines_covered", Kind::Float),
    ("dependents", Kind::Int),
    ("dependent_files", Kind::Str),
    ("dependents_lines_covered", Kind::Float),
    ("not_captured", Kind::Str),
    ("reasons", Kind::Str),
];

/// The `pr_risk` table by (`safe_output_id`, `task_id`): the tasks' PRs (no output id)
/// first, by task id, then the outputs', by output id (a stable sort, as `Table`'s was), built column by column from the risks (see
/// `ci_gate::tables`).
pub(crate) fn table(risks: &[Risk]) -> Result<(&'static str, RecordBatch), arrow::error::ArrowError> {
    let mut order: Vec<&Risk> = risks.iter().collect();
    order.sort_by(|a, b| (&a.safe_output_id, &a.task_id).cmp(&(&b.safe_output_id, &b.task_id)));
    let reasons: Vec<String> = order.iter().map(|r| serde_json::to_string(&r.reasons).unwrap_or_default()).collect();
    // Unknown (files not captured): no modules, rather than none touched.
    let lines = |r: &Risk, v: &[String]| r.level.map(|_| v.join("\n"));
    let modules: Vec<Option<String>> = order.iter().map(|r| lines(r, &r.modules)).collect();
    let new_dependencies: Vec<Option<String>> = order.iter().map(|r| lines(r, &r.new_dependencies)).collect();
    let not_captured: Vec<Option<String>> = order.iter().map(|r| lines(r, &r.not_captured).filter(|t| !t.is_empty())).collect();
    let dependent_files: Vec<Option<String>> = order.iter().map(|r| r.dependents.as_deref().map(dependent_lines)).collect();
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
            table::str_column(modules.iter().map(|m| m.as_deref())),
            table::str_column(new_dependencies.iter().map(|d| d.as_deref())),
            table::float_column(o.iter().map(|r| r.changed_lines_covered)),
            table::int_column(o.iter().map(|r| r.dependents.as_ref().map(|d| d.len() as i64))),
            table::str_column(dependent_files.iter().map(|d| d.as_deref())),
            table::float_column(o.iter().map(|r| r.dependents_lines_covered)),
            table::str_column(not_captured.iter().map(|d| d.as_deref())),
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
            modules: vec!["src".into(), format!("m{n}")],
            new_dependencies: if n == 7 { vec!["package.json: left-pad".into()] } else { Vec::new() },
            changed_lines_covered: (n == 3).then_some(0.25),
            dependents: (n == 7).then(|| vec![("src/a.rs".to_string(), 1), ("src/b.rs".to_string(), 2)]),
            dependents_lines_covered: (n == 7).then_some(0.5),
            not_captured: if n == 8 { vec!["coverage report".into()] } else { Vec::new() },
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
                os(r.level.map(|_| r.modules.join("\n"))),
                os(r.level.map(|_| r.new_dependencies.join("\n"))),
                crate::table::of(r.changed_lines_covered),
                crate::table::oi(r.dependents.as_ref().map(|d| d.len() as i64)),
                os(r.dependents.as_deref().map(dependent_lines)),
                crate::table::of(r.dependents_lines_covered),
                os(r.level.map(|_| r.not_captured.join("\n")).filter(|t| !t.is_empty())),
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

    /// Modules are folders cut to two levels; shared code by folder and name, not by
    /// anything in its text.
    #[test]
    fn modules_and_shared_code_by_path() {
        assert_eq!([module_of("src/parser/lex/a.rs"), module_of("src/lib.rs"), module_of("README.md")], ["src/parser", "src", "."]);
        assert_eq!(shared_code("src/utils/dates.ts"), Some("shared utility"));
        assert_eq!(shared_code("app/models/BaseModel.java"), Some("base class"));
        assert_eq!(shared_code("config/database.yml"), Some("configuration"));
        assert_eq!(shared_code("src/main/resources/application.properties"), Some("configuration"));
        assert_eq!(shared_code("src/Application.java"), None);
        assert_eq!(shared_code("src/Basement.java"), None);
        assert_eq!(shared_code("src/parser.rs"), None);
    }

    /// A public item removed (or its line changed) is a breaking change: critical; added
    /// alone, high.
    #[test]
    fn a_public_item_removed_is_critical() {
        let mut raised = Raised { level: RiskLevel::Low, reasons: Vec::new() };
        let patch = "@@ -1,3 +1,3 @@\n-pub fn parse(s: &str) -> u8 {\n+pub fn parse(s: &str, strict: bool) -> u8 {\n     0";
        assess_file("src/lib.rs", Some(patch), &RiskPolicy::default(), &mut raised, &mut Vec::new());
        assert_eq!((raised.level, raised.reasons), (RiskLevel::Critical, vec!["critical: public API removed or changed in `src/lib.rs`".to_string()]));
    }

    /// The new-side numbers of added lines, from the hunk headers; a report's lines matched
    /// to them: instrumented and run.
    #[test]
    fn changed_lines_against_a_coverage_report() {
        let patch = "@@ -1,3 +1,4 @@\n a\n+b\n c\n-d\n+e\n@@ -10,2 +11,3 @@ fn x\n x\n+y\n z";
        assert_eq!(added_lines(patch), [2, 4, 12]);
        let report = [FileLines { path: "/ci/build/src/a.rs".into(), covered: vec![2, 12], uncovered: vec![4, 7] }];
        assert_eq!(covered_lines(&report, "src/a.rs", patch), (3, 2));
        assert_eq!(covered_lines(&report, "src/b.rs", patch), (0, 0));
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
