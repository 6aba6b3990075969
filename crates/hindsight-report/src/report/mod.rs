//! Reporting: DataFusion SQL over the dataset's Parquet. Every table is registered under
//! its file name without `.parquet`. Queries live in `queries/*.sql`, one statement per
//! file, and are embedded in the binary so a report needs no source checkout.

mod bounded;
mod checked;
mod dates;
mod json_text;
mod operator;
mod spans;
mod types;
pub mod charts;
mod comparisons;
pub mod coverage;
pub mod check;
pub mod diff;
mod figure;
pub mod format;
pub mod html;
pub mod print;
pub mod shell;
mod section;
pub mod terminal;
pub mod views;
pub mod wilson;

use std::path::{Path, PathBuf};

use arrow::record_batch::RecordBatch;
use datafusion::execution::runtime_env::RuntimeEnvBuilder;
use datafusion::prelude::{ParquetReadOptions, SQLOptions, SessionConfig, SessionContext};

use crate::error::{Error, Result};
pub use crate::location::{self, DatasetLocation, ObjectUrl};

pub use coverage::Coverage;
pub use format::Format;

/// One bundled query, everything said about it in one declaration: its name, its statement
/// (the file `queries/NAME.sql`, embedded by `bundled!`), and where the dashboard shows it.
/// [`CATALOGUE`] holds them all; every list by query name is derived from it.
#[derive(Debug)]
pub struct BundledQuery {
    /// The name: `report --query NAME`, the JSON report's key, and the file `queries/NAME.sql`.
    pub name: &'static str,
    /// The statement, one per file.
    pub sql: &'static str,
    /// Its section's title on the dashboard of a study hindsight evaluated ([`sections`]);
    /// `None`: not there.
    pub title: Option<&'static str>,
    /// Its section's title on the dashboard of an AIDev import (a dataset with the table
    /// [`AIDEV_TABLE`]); `None`: not there.
    pub aidev_title: Option<&'static str>,
    /// A table written by a command not every study runs: the section is shown only when the
    /// dataset has it.
    pub needs_table: Option<&'static str>,
    /// On an AIDev import, an input the study may lack: the section is left out, with a
    /// note, when the probe counts none of it.
    pub(crate) needs_input: Option<&'static NeedsInput>,
    /// What the dashboard makes of the query's rows before showing them; `None`: shown as
    /// they are.
    pub(crate) shaping: Option<Shaping>,
}

/// What the dashboard makes of a bundled query's rows ([`BundledQuery::shaping`]).
#[derive(Debug)]
pub(crate) enum Shaping {
    /// Each row's 2x2 table tested, and the p-values adjusted across its family
    /// ([`comparisons::complete`]): the tests are not portable SQL, so the query gives the
    /// counts and the report the tests.
    Compared(&'static comparisons::Comparison),
    /// Only the rows of the cluster unit the researcher chose (`--cluster-by`; column
    /// `cluster_by`): the query gives every unit.
    OneClusterUnit,
}

/// How `acceptance_clustered`'s dashboard section clusters outputs (`report --cluster-by`):
/// the outputs of one repository, of one developer, or of one run as correlated.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ClusterUnit {
    /// The output's target repository.
    #[default]
    Repository,
    /// The person the output acted for.
    Developer,
    /// The workflow run that wrote it.
    Run,
}

impl ClusterUnit {
    /// The value of the query's `cluster_by` column for this unit.
    pub fn name(self) -> &'static str {
        match self {
            ClusterUnit::Repository => "repository",
            ClusterUnit::Developer => "developer",
            ClusterUnit::Run => "run",
        }
    }
}

/// The bundled query `queries/NAME.sql`, named `NAME`: on no dashboard until said otherwise.
macro_rules! bundled {
    ($name:literal) => {
        BundledQuery::new($name, include_str!(concat!("../../../../queries/", $name, ".sql")))
    };
}

impl BundledQuery {
    const fn new(name: &'static str, sql: &'static str) -> BundledQuery {
        BundledQuery { name, sql, title: None, aidev_title: None, needs_table: None, needs_input: None, shaping: None }
    }

    /// On the dashboard of a study hindsight evaluated, under `title`.
    const fn on_dashboard(self, title: &'static str) -> BundledQuery {
        BundledQuery { title: Some(title), ..self }
    }

    /// On the dashboard of an AIDev import, under `title`.
    const fn on_aidev_dashboard(self, title: &'static str) -> BundledQuery {
        BundledQuery { aidev_title: Some(title), ..self }
    }

    /// Shown only when the dataset has `table`.
    const fn needs_table(self, table: &'static str) -> BundledQuery {
        BundledQuery { needs_table: Some(table), ..self }
    }

    /// On an AIDev import, shown only when the study has `input`.
    const fn needs_input(self, input: &'static NeedsInput) -> BundledQuery {
        BundledQuery { needs_input: Some(input), ..self }
    }

    /// Its rows shaped by `shaping` on the dashboard.
    const fn shaped(self, shaping: Shaping) -> BundledQuery {
        BundledQuery { shaping: Some(shaping), ..self }
    }
}

/// The bundled queries, in the order the dashboard of a study hindsight evaluated shows
/// them (the JSON report's order too: docs/REPORT.md). An AIDev import's dashboard shows
/// its own `aidev/` sections first, then the others it has a title for ([`sections`]).
pub const CATALOGUE: &[BundledQuery] = &[
    bundled!("summary").on_dashboard("Outcomes by window").on_aidev_dashboard("Outcomes by window, all agents"),
    bundled!("acceptance_by_window").on_dashboard("Acceptance rates by window (denominator: evaluable outputs; terms in docs/DATASET.md)"),
    bundled!("accepted_over_time")
        .on_dashboard("Accepted at 24h, at 7d, and durably at 30d, on one cohort: outputs observable in all three windows (n: cohort_outputs)"),
    bundled!("acceptance_by_type").on_dashboard("By safe-output type and window"),
    bundled!("by_workflow").on_dashboard("By workflow and window"),
    bundled!("acceptance_clustered")
        .on_dashboard("By workflow, type and window, outputs clustered by repository (or the developer or run --cluster-by names; cluster_by): each rate's Wilson interval beside a cluster-robust (CR1) one and the design effect; NULL: one cluster, or a rate of 0 or 1")
        .on_aidev_dashboard("By agent, type and window, PRs clustered by repository (or the developer or run --cluster-by names; cluster_by): each rate's Wilson interval beside a cluster-robust (CR1) one and the design effect; NULL: one cluster, or a rate of 0 or 1")
        .shaped(Shaping::OneClusterUnit),
    bundled!("acceptance_weighting")
        .on_dashboard("How much the rates by workflow rest on a few repositories or people: per output, the mean of per-repository and per-developer rates, the busiest 1, 5 and 10 repositories' share of the outputs and the rates without them (n: evaluable outputs)")
        .on_aidev_dashboard("How much the rates by agent rest on a few repositories or people: per PR, the mean of per-repository and per-developer rates, the busiest 1, 5 and 10 repositories' share of the PRs and the rates without them (n: evaluable PRs)"),
    bundled!("acceptance_comparisons")
        .on_dashboard("Each workflow and type against the rest of its window: strictly accepted or not, the odds ratio, Fisher's exact p-value, and p adjusted across the window's cells (Holm: family-wise error; Benjamini-Hochberg: false discovery rate)")
        .on_aidev_dashboard("Each agent and type against the rest of its window: strictly accepted or not, the odds ratio, Fisher's exact p-value, and p adjusted across the window's cells (Holm: family-wise error; Benjamini-Hochberg: false discovery rate)")
        .shaped(Shaping::Compared(&comparisons::BY_WINDOW)),
    bundled!("caveats")
        .on_dashboard("Caveats: what the rates rest on, by workflow (snapshot): decisions whose actor was not captured, merged work reverted, captures missing")
        .on_aidev_dashboard("Caveats: what the rates rest on, by agent (snapshot): decisions whose actor was not captured, merged work reverted, captures missing"),
    bundled!("time_to_outcome_summary")
        .on_dashboard("Time to acceptance by workflow and type, outputs still open at capture censored (not failures): Kaplan-Meier median and restricted mean with 95% intervals, beside the naive median over accepted outputs alone")
        .on_aidev_dashboard("Time to acceptance by agent and type, PRs still open at capture censored (not failures): Kaplan-Meier median and restricted mean with 95% intervals, beside the naive median over merged PRs alone"),
    // The curves are a row per distinct time, as many as the outputs: asked for by name
    // (`report --query time_to_outcome`), never a dashboard section.
    bundled!("time_to_outcome"),
    bundled!("by_run").on_dashboard("By run and window"),
    bundled!("gh_aw_summary").on_dashboard(
        "gh-aw's own summary, for comparison: its rates, closes by a bot, zero-touch rate, median seconds to resolution (mixes evidence strengths; each rate's n beside it)",
    ),
    bundled!("ci_gate")
        .on_dashboard("CI gate replay: autoloop iterations (a program push to autoloop/{program} by the loop), first-push pass rate, fixes per accepted iteration, pauses, disagreements with the loop's state file")
        .on_aidev_dashboard("CI gate replay: autoloop iterations, first-push pass rate, fixes per accepted iteration, pauses, accepted while CI red")
        .needs_input(&CI_GATE_REPLAY),
    bundled!("ci_gate_outcomes")
        .on_dashboard("CI gate replay: how the outputs that pushed code ended, by count (pause reasons among them; not_an_iteration: no push to autoloop/{program} by the loop)")
        .on_aidev_dashboard("CI gate replay: how the outputs that pushed code ended, by count")
        .needs_input(&CI_GATE_REPLAY),
    bundled!("ci_gate_loop_state")
        .on_dashboard("CI gate replay against the loop's state file: its recorded status, pause and pause reason beside the gate's conclusion"),
    bundled!("risk_by_outcome")
        .on_dashboard("PR risk level against the PR's outcome in the snapshot window: acceptance by evidence strength (n: evaluable_prs)")
        .on_aidev_dashboard("PR risk level against the PR's outcome in the snapshot window")
        .needs_input(&PR_RISK),
    bundled!("review_time_by_risk")
        .on_dashboard("Do risky PRs take longer to review? Hours to the first review by PR risk level (n: prs_reviewed; not yet reviewed: prs_unreviewed)")
        .needs_table("pr_feedback"),
    bundled!("risk_over_time").on_dashboard("PR risk levels by repository and month opened").needs_table("pr_feedback"),
    bundled!("quality_findings")
        .on_dashboard("Code-quality findings (tier 2) by rule and severity: findings, blocking ones, PRs with one (n: prs_assessed, the PRs whose files were captured; prs_not_captured were not looked at)")
        .needs_table("quality_findings"),
    bundled!("failure_categories")
        .on_dashboard("Why tasks failed: failure categories of failed, cancelled and timed-out tasks (with --tasks)")
        .needs_table("task_failures"),
    bundled!("prompt_versions")
        .on_dashboard(
            "Tasks by prompt version: first-review merge rate (decided PRs; open ones counted in prs_open), revision cycles, first-push CI, review comments, repeated mistakes, time to PR (with --tasks)",
        )
        .needs_table("tasks"),
    bundled!("prompt_versions_by_repo")
        .on_dashboard(
            "Did merge rates improve after a prompt version reached a repository? Merge rate by repository and prompt version, with the month each version first ran there (n: prs_decided; open PRs in prs_open; with --tasks)",
        )
        .needs_table("tasks"),
    bundled!("prompt_versions_over_time")
        .on_dashboard("Prompt versions over time: tasks and their PRs by repository, month and prompt version (with --tasks)")
        .needs_table("tasks"),
    bundled!("prompt_variants")
        .on_dashboard(
            "Prompt variants compared (A/B): failure rate, merge rate, tokens, duration and cost per prompt version (n: tasks for the failure rate, prs_decided for the merge rate; with --tasks)",
        )
        .needs_table("tasks"),
    bundled!("by_user")
        .on_dashboard("By user: failure and merge rates, first-review merge rate, revision cycles, review comments, time to PR, cost (with --tasks)")
        .needs_table("tasks"),
    bundled!("failure_insights")
        .on_dashboard("What each failure would teach the prompt: failed tasks by prompt version, category and the section of the prompt they point at (with --tasks; each task's insight in table insights, `export --insights` for a platform's memory)")
        .needs_table("insights"),
    bundled!("self_feedback_themes")
        .on_dashboard("What agents said was missing: self-feedback by repository, the share repeating an earlier task's, and the most repeated (with --tasks)")
        .needs_table("insights"),
    bundled!("prompt_changes")
        .on_dashboard("How the prompt changed: consecutive prompt versions, lines added and removed, sections changed (with --tasks and prompts.jsonl; the diffs in table prompt_changes)")
        .needs_table("prompt_changes"),
    bundled!("memory_state")
        .on_dashboard("Outcomes by the memory state tasks ran with: failure and merge rates, first-review merges, hydration score (tasks.memory_version as recorded; n: tasks, prs_decided; with --tasks)")
        .needs_table("tasks"),
    bundled!("hydration_quality")
        .on_dashboard("Outcomes by context hydration quality: failure and merge rates by quarter of the platform's hydration score (n: tasks, prs_decided; with --tasks)")
        .needs_table("tasks"),
    bundled!("task_risk_by_outcome")
        .on_dashboard("Do high-risk task PRs get rejected more often? Task PRs by risk level against what the repository decided (n: prs_decided; open ones in prs_open; with --tasks)")
        .needs_table("tasks"),
    bundled!("risk_by_prompt_version").on_dashboard("PR risk levels of task PRs by prompt version (with --tasks)").needs_table("tasks"),
    bundled!("risk_by_user").on_dashboard("PR risk levels of task PRs by user (with --tasks)").needs_table("tasks"),
    bundled!("memory_over_time")
        .on_dashboard("Agent PRs by repository and month: the same figures over time, time to PR among them (open PRs counted in prs_open, out of the first-review merge rate)")
        .needs_table("pr_feedback"),
    bundled!("commit_protocol").on_dashboard("Commit protocol results by terminal state (after `hindsight gate --dataset`)").needs_table("commit_protocol"),
    bundled!("commit_protocol_violations")
        .on_dashboard("Commit protocol violations by kind (after `hindsight gate --dataset`)")
        .needs_table("commit_protocol_violations"),
    bundled!("aidev/overview"),
    bundled!("aidev/turnaround"),
    bundled!("aidev/merge_rate_by_type"),
    bundled!("aidev/reviewer_mix"),
    bundled!("aidev/languages"),
    bundled!("aidev/merged_within"),
    bundled!("aidev/acceptance"),
    bundled!("aidev/merged_by"),
    // The definitions the follow-up studies of AIDev use (docs/AIDEV.md), on any release.
    bundled!("aidev/merge_rates"),
    bundled!("aidev/acceptance_by_task"),
    bundled!("aidev/fix_prs"),
    bundled!("aidev/inline_review"),
    bundled!("aidev/human_baseline"),
    bundled!("aidev/weekly_acceptance"),
    bundled!("aidev/by_agent")
        .on_aidev_dashboard("Pull requests by agent: merged, rejected, median hours to merge (snapshot; n: prs, and evaluable_prs for rejection_rate)"),
    bundled!("aidev/rates_by_window")
        .on_aidev_dashboard("Acceptance rates by agent and window (n: evaluable_prs, the PRs neither skipped nor unknown in the window)"),
    bundled!("aidev/accepted_over_time").on_aidev_dashboard(
        "Accepted at 24h, at 7d, and durably at 30d by agent, on one cohort per agent: PRs observable in all three windows (n: cohort_prs)",
    ),
    bundled!("aidev/task_comparisons")
        .on_aidev_dashboard("Each agent and task type against every other of the study: merged or not, the odds ratio, Fisher's exact p-value, and p adjusted across the study's cells (Holm: family-wise error; Benjamini-Hochberg: false discovery rate); a PR with several labels counts under each")
        .shaped(Shaping::Compared(&comparisons::ACROSS_TASKS)),
];

/// The bundled query named `name`.
pub fn bundled_query(name: &str) -> Option<&'static BundledQuery> {
    CATALOGUE.iter().find(|q| q.name == name)
}

/// A dashboard's sections, in order, each a query name and its title: an AIDev import's
/// (`aidev`: its own `aidev/` sections, then the others it has a title for) or that of a
/// study hindsight evaluated. Every section whatever the dataset has; [`dashboard_sections`]
/// leaves out those it lacks.
pub fn sections(aidev: bool) -> Vec<(&'static str, &'static str)> {
    let title = |q: &BundledQuery| if aidev { q.aidev_title } else { q.title };
    let mut sections: Vec<(bool, &'static str, &'static str)> =
        CATALOGUE.iter().filter_map(|q| title(q).map(|t| (!q.name.starts_with("aidev/"), q.name, t))).collect();
    // A stable sort: catalogue order within each group.
    sections.sort_by_key(|(general, _, _)| *general);
    sections.into_iter().map(|(_, name, title)| (name, title)).collect()
}

/// The table whose presence marks a dataset written by `hindsight import aidev`.
pub(crate) const AIDEV_TABLE: &str = hindsight_core::aidev::PR_TABLE;

/// An input not every study has, that an AIDev import's dashboard sections need
/// ([`BundledQuery::needs_input`]): they are shown only when `probe` (one row, one count)
/// counts at least one row of it in `table`; otherwise left out, and the dashboard says so
/// with `note`.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct NeedsInput {
    pub table: &'static str,
    pub(crate) probe: &'static str,
    pub(crate) note: &'static str,
}

/// The CI gate replay's input: an autoloop iteration with its CI state captured.
const CI_GATE_REPLAY: NeedsInput = NeedsInput {
    table: "ci_gate",
    probe: "SELECT COUNT(*) AS n FROM ci_gate WHERE first_push_ci IN ('success', 'failure', 'pending')",
    note: "CI gate replay: left out, no autoloop iteration of this study has a CI state captured (no PR's head branch is autoloop/{program}, or no CI of one was captured)",
};

/// PR risk's input: a PR whose risk level is known (its changed files recorded).
const PR_RISK: NeedsInput = NeedsInput {
    table: "pr_risk",
    probe: "SELECT COUNT(*) AS n FROM pr_risk WHERE risk_level IS NOT NULL",
    note: "PR risk: left out, every PR's risk level is unknown (the study records no PR's changed files)",
};

/// The inputs the AIDev dashboard's sections need, each once, in catalogue order, with the
/// sections that need it.
pub(crate) fn needs_inputs() -> Vec<(&'static NeedsInput, Vec<&'static str>)> {
    let mut out: Vec<(&'static NeedsInput, Vec<&'static str>)> = Vec::new();
    for q in CATALOGUE.iter().filter(|q| q.aidev_title.is_some()) {
        let Some(need) = q.needs_input else { continue };
        match out.iter_mut().find(|(n, _)| *n == need) {
            Some((_, sections)) => sections.push(q.name),
            None => out.push((need, vec![q.name])),
        }
    }
    out
}

/// A section left out of the dashboard, and why (one line).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct LeftOut {
    pub(crate) sections: Vec<&'static str>,
    pub(crate) note: String,
}

pub fn query_text(name_or_file: &str) -> Result<String> {
    if let Some(q) = bundled_query(name_or_file) {
        return Ok(q.sql.to_string());
    }
    let p = Path::new(name_or_file);
    if p.extension().is_some_and(|e| e == "sql") {
        return std::fs::read_to_string(p).map_err(|e| Error::io(p, e));
    }
    let names: Vec<&str> = CATALOGUE.iter().map(|q| q.name).collect();
    let hint = suggest(name_or_file, &names).map(|s| format!(" (did you mean `{s}`?)")).unwrap_or_default();
    Err(Error::usage(format!("no query `{name_or_file}`{hint}: give a .sql file or one of {}", names.join(", "))))
}

/// What a query may do: write (DDL, DML, `COPY`, `SET`) or only read, and how much memory
/// it may hold. Queries come from papers and other people's repositories, often run in CI,
/// so the default is read-only and bounded.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    pub allow_write: bool,
    /// Bytes for the query engine's operators, and separately for the collected result.
    pub memory: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { allow_write: false, memory: default_memory_limit() }
    }
}

/// Half the machine's memory (Linux `/proc/meminfo`), or 4 GiB where it cannot be read.
pub fn default_memory_limit() -> usize {
    let total = std::fs::read_to_string("/proc/meminfo").ok().and_then(|t| {
        let line = t.lines().find(|l| l.starts_with("MemTotal:"))?;
        let kib: usize = line.split_whitespace().nth(1)?.parse().ok()?;
        kib.checked_mul(1024)
    });
    total.map(|b| b / 2).unwrap_or(4 << 30)
}

/// The smallest `--memory-limit`: below it DataFusion fails with internal errors rather
/// than the query's own "needs more" (measured: 1 byte, 64 KiB and 1 MiB all did).
pub(crate) const MIN_MEMORY: usize = 16 << 20;

/// A size such as `512M`, `2G`, `1.5GiB` or a number of bytes.
pub fn parse_size(s: &str) -> Result<usize> {
    let t = s.trim();
    let bad = || Error::usage(format!("memory limit `{s}`: expected a size such as 512M, 2G or 1073741824"));
    let split = t.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let n: f64 = num.parse().map_err(|_| bad())?;
    let scale: f64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "k" | "kb" | "kib" => 1024.0,
        "m" | "mb" | "mib" => 1024.0 * 1024.0,
        "g" | "gb" | "gib" => 1024.0 * 1024.0 * 1024.0,
        "t" | "tb" | "tib" => 1024.0 * 1024.0 * 1024.0 * 1024.0,
        _ => return Err(bad()),
    };
    let bytes = n * scale;
    if !(bytes >= 1.0 && bytes < usize::MAX as f64) {
        return Err(bad());
    }
    if (bytes as usize) < MIN_MEMORY {
        return Err(Error::usage(format!(
            "memory limit `{s}` is below {} MiB, the least the SQL engine needs to run any query (its buffers and sort space); give at least {}M",
            MIN_MEMORY >> 20,
            MIN_MEMORY >> 20
        )));
    }
    Ok(bytes as usize)
}

/// Where a session's queries run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Engine {
    /// In this process.
    #[default]
    Local,
    /// On an Apache DataFusion Ballista cluster, through its scheduler (`--cluster`).
    Cluster(crate::cluster::Address),
}

/// The functions hindsight's SQL has beyond DataFusion's own, registered in every session
/// and on a cluster's scheduler and executors alike: the JSON functions
/// (`json_get_str(payload, 'title')`, `payload->>'title'`, `json_length` ... over JSON
/// text), and the functions whose result can outgrow their arguments bounded by `memory`
/// bytes (`bounded`), integer `+ - *` that fail on overflow instead of wrapping (`checked`),
/// DuckDB's `date_diff(part, start, end)` and `epoch(x)` ([`dates`]), and the 95% Wilson
/// score interval of k of n, `wilson_low(k, n)` and `wilson_high(k, n)` ([`wilson`]).
pub(crate) fn register_functions(registry: &mut dyn datafusion::execution::FunctionRegistry, memory: usize) -> datafusion::common::Result<()> {
    datafusion_functions_json::register_all(registry)?;
    bounded::register(registry, memory)?;
    checked::register(registry)?;
    dates::register(registry)?;
    wilson::register(registry)
}

/// A query session over one dataset: a directory, or a prefix in an object store.
pub struct Session {
    rt: tokio::runtime::Runtime,
    ctx: SessionContext,
    limits: Limits,
    /// The manifest's tables and their rows, by name.
    tables: Vec<(String, usize)>,
    /// The dataset's format version (an older one lacks tables and columns).
    pub(crate) format_version: u32,
    /// The dataset's directory, when it is on this machine: the shell never writes into it.
    pub dir: Option<PathBuf>,
    /// The manifest the session read (the dashboard's provenance).
    pub(crate) manifest: crate::dataset::manifest::Manifest,
    /// The version the session reads, kept until it ends (`dataset::pin`).
    _pinned: Option<crate::dataset::pin::Pinned>,
}

/// The tables a session registers: each name, where the SQL engine reads it (a path or an
/// object's URL), and how that place is said in an error.
type Registered = Vec<(String, String, PathBuf)>;

impl Session {
    pub fn open(dataset: &Path) -> Result<Session> {
        Session::open_with(dataset, Limits::default())
    }

    /// A session over the tables `manifest.json` records (a stray `.parquet` file in the
    /// directory is not a table of the dataset).
    pub fn open_with(dataset: &Path, limits: Limits) -> Result<Session> {
        Session::open_on(dataset, limits, &Engine::Local)
    }

    /// [`Session::open_with`], its queries run by `engine`: in this process, or on a cluster
    /// whose executors read the dataset's files at its absolute path.
    pub fn open_on(dataset: &Path, limits: Limits, engine: &Engine) -> Result<Session> {
        Session::open_at(&DatasetLocation::Local(dataset.to_path_buf()), limits, engine)
    }

    /// [`Session::open_on`] wherever the dataset is: a directory, or an object store's
    /// prefix (on a cluster, the scheduler and each executor open the bucket from their own
    /// AWS environment, `location::Buckets`).
    pub fn open_at(location: &DatasetLocation, limits: Limits, engine: &Engine) -> Result<Session> {
        // Workers run whole queries side by side (the dashboard's); within a query one
        // partition keeps result order and float sums independent of the core count.
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(rayon::current_num_threads().max(1))
            .thread_name(SQL_THREAD)
            .enable_all()
            .build()
            .map_err(|e| Error::while_doing(format!("starting the SQL engine for {location}"), e))?;
        let mut cfg = SessionConfig::new().with_target_partitions(1).with_information_schema(true);
        // PostgreSQL's grammar binds `->>` tighter than `=` and `IS`, as researchers expect
        // (the generic dialect reads `payload->>'id' = 'x'` as `payload->>('id' = 'x')`).
        cfg.options_mut().sql_parser.dialect = datafusion::config::Dialect::PostgreSQL;
        let runtime = RuntimeEnvBuilder::new().with_memory_limit(limits.memory, 1.0).build_arc()?;
        let mut ctx = match engine {
            Engine::Local => SessionContext::new_with_config_rt(cfg, runtime),
            Engine::Cluster(at) => crate::cluster::remote(&rt, at, cfg, runtime)?,
        };
        register_functions(&mut ctx, limits.memory)?;
        let (manifest, registered, pinned) = match location {
            DatasetLocation::Local(dataset) => local_tables(dataset, engine)?,
            DatasetLocation::ObjectStore(url) => {
                let (manifest, registered) = object_tables(&rt, &ctx, url)?;
                (manifest, registered, None)
            }
        };
        for (name, at, said) in registered {
            rt.block_on(ctx.register_parquet(name.as_str(), at.as_str(), ParquetReadOptions::default()))
                .map_err(|e| Error::dataset(said, format!("cannot be read as a table: {e}")))?;
        }
        // The views the bundled queries read; one over a table or column an older dataset
        // lacks is left out (a query reading it is then left out, `lacks` says for what).
        for (name, sql) in views::VIEWS {
            if let Err(e) = rt.block_on(ctx.sql(&views::create_view(name, sql))) {
                if missing(&e.to_string()).is_none() {
                    return Err(Error::dataset(PathBuf::from(location.to_string()), format!("the view {name} cannot be defined on it: {e}")));
                }
            }
        }
        let tables = manifest.tables.iter().map(|(n, t)| (n.clone(), t.rows)).collect();
        let dir = location.local().map(Path::to_path_buf);
        Ok(Session { rt, ctx, limits, tables, format_version: manifest.format_version(), dir, manifest, _pinned: pinned })
    }

    /// Whether SQL and the shell may write (`--allow-write`).
    pub(crate) fn allows_writes(&self) -> bool {
        self.limits.allow_write
    }

    pub fn sql(&self, sql: &str) -> Result<Vec<RecordBatch>> {
        if shell::statements(sql).len() > 1 {
            return Err(Error::usage("one SQL statement at a time"));
        }
        self.statement(sql)
    }

    /// One statement's result printed on stdout as `display` says, streamed: a preview holds
    /// only the rows it shows, a written format only the batch being written.
    pub fn print(&self, sql: &str, display: print::Display) -> Result<print::Printed> {
        if shell::statements(sql).len() > 1 {
            return Err(Error::usage("one SQL statement at a time"));
        }
        let mut stdout = std::io::stdout().lock();
        self.print_to(sql, print::Printer::new(&mut stdout, display))
    }

    /// One statement's result through `p`. A preview reads rows only until it is full; the
    /// rest are counted apart, from the Parquet footers when the statement is a plain scan.
    pub(crate) fn print_to(&self, sql: &str, mut p: print::Printer<'_>) -> Result<print::Printed> {
        self.stream(sql, &mut |b| p.batch(b))?;
        if p.counting() {
            let n = match self.count(sql) {
                Some(n) => n,
                None => {
                    let mut n = 0;
                    self.stream(sql, &mut |b| {
                        n += b.num_rows();
                        Ok(true)
                    })?;
                    n
                }
            };
            p.set_rows(n);
        }
        p.finish()
    }

    /// The rows `sql` returns, counted without fetching them. `None` for a statement that is
    /// not a plain read (counting would run it again) or one the engine cannot count.
    fn count(&self, sql: &str) -> Option<usize> {
        if let Some(table) = described(sql) {
            return self.describe(&table).ok().map(|b| b.iter().map(RecordBatch::num_rows).sum());
        }
        let (ctx, sql) = (self.ctx.clone(), sql.to_string());
        let task = self.rt.spawn(async move {
            let plan = ctx.state().create_logical_plan(&sql).await.ok()?;
            read_only().verify_plan(&plan).ok()?;
            datafusion::dataframe::DataFrame::new(ctx.state(), plan).count().await.ok()
        });
        self.rt.block_on(task).ok().flatten()
    }

    /// One statement, already split from others.
    pub(crate) fn statement(&self, sql: &str) -> Result<Vec<RecordBatch>> {
        if let Some(table) = described(sql) {
            return self.describe(&table);
        }
        let task = self.rt.spawn(run_query(self.ctx.clone(), sql.to_string(), self.limits));
        self.rt.block_on(task).map_err(stopped)?.map_err(|e| self.explained(e))
    }

    /// One statement, its batches handed to `each` as the engine produces them, until the
    /// result ends or `each` says it wants no more: a preview of a million rows holds only
    /// what it shows.
    pub(crate) fn stream(&self, sql: &str, each: &mut dyn FnMut(RecordBatch) -> Result<bool>) -> Result<()> {
        if let Some(table) = described(sql) {
            for b in self.describe(&table)? {
                if !each(b)? {
                    break;
                }
            }
            return Ok(());
        }
        let (tx, mut rx) = tokio::sync::mpsc::channel(2);
        let task = self.rt.spawn(stream_query(self.ctx.clone(), sql.to_string(), self.limits, tx));
        while let Some(batch) = rx.blocking_recv() {
            if !each(batch.map_err(|e| self.explained(e))?)? {
                break;
            }
        }
        // Dropping the receiver stops the query at its next batch.
        drop(rx);
        self.rt.block_on(task).map_err(stopped)?
    }

    /// What `sql` needs that the dataset does not have (`table ci_gate`, `column
    /// outcomes.x`), when planning it fails for that reason. A view of [`views::VIEWS`] the
    /// dataset could not have (an older format's) stands for what the view lacks.
    pub(crate) fn lacks(&self, sql: &str) -> Option<String> {
        let planned = self.rt.block_on(self.ctx.state().create_logical_plan(sql));
        let what = missing(&planned.err()?.to_string())?;
        match views::VIEWS.iter().find(|(name, _)| what.strip_prefix("table ") == Some(*name)) {
            Some((_, view)) => self.lacks(view),
            None => Some(what),
        }
    }

    /// The dataset's tables (the manifest's), with their rows, by name.
    pub(crate) fn tables(&self) -> &[(String, usize)] {
        &self.tables
    }

    /// A table's columns: name and type, in the table's order.
    pub fn columns(&self, table: &str) -> Result<Vec<(String, arrow::datatypes::DataType)>> {
        let df = self.rt.block_on(self.ctx.table(table)).map_err(|_| self.no_table(table))?;
        Ok(df.schema().fields().iter().map(|f| (f.name().clone(), f.data_type().clone())).collect())
    }

    /// A table's or view's columns as `DESCRIBE`, `\d TABLE` and `describe TABLE --dataset`
    /// print them: `column_name`, `data_type` (SQL's name, as DuckDB spells it:
    /// [`types::sql_type`]), `is_nullable` (`YES` or `NO`) and `description` (the data
    /// dictionary's meaning).
    pub fn describe(&self, table: &str) -> Result<Vec<RecordBatch>> {
        use arrow::array::{ArrayRef, StringArray};
        use arrow::datatypes::{DataType, Field, Schema};
        if !self.has_table(table) {
            return Err(self.no_table(table));
        }
        let reference = datafusion::common::TableReference::bare(table);
        let df = self.rt.block_on(self.ctx.table(reference)).map_err(|_| self.no_table(table))?;
        let fields = df.schema().fields();
        let names: StringArray = fields.iter().map(|f| Some(f.name().as_str())).collect();
        let types: StringArray = fields.iter().map(|f| Some(types::sql_type(f.data_type()))).collect();
        let nullable: StringArray = fields.iter().map(|f| Some(if f.is_nullable() { "YES" } else { "NO" })).collect();
        let meanings: StringArray = fields.iter().map(|f| crate::dataset::dictionary::column(table, f.name())).collect();
        let schema = Schema::new(vec![
            Field::new("column_name", DataType::Utf8, false),
            Field::new("data_type", DataType::Utf8, false),
            Field::new("is_nullable", DataType::Utf8, false),
            Field::new("description", DataType::Utf8, true),
        ]);
        let columns: Vec<ArrayRef> = vec![std::sync::Arc::new(names), std::sync::Arc::new(types), std::sync::Arc::new(nullable), std::sync::Arc::new(meanings)];
        Ok(vec![RecordBatch::try_new(std::sync::Arc::new(schema), columns)?])
    }

    fn no_table(&self, table: &str) -> Error {
        if let Some((_, sql)) = views::VIEWS.iter().find(|(name, _)| *name == table) {
            let what = self.lacks(sql).unwrap_or_else(|| "what it reads".into());
            return Error::usage(format!("no view `{table}` on this dataset: it reads {what}, which the dataset lacks (docs/DATASET.md, Views)"));
        }
        let names: Vec<&str> = self.tables.iter().map(|(n, _)| n.as_str()).collect();
        let hint = crate::text::closest(table, names.iter().copied()).map(|c| format!(" (did you mean `{c}`?)")).unwrap_or_default();
        Error::usage(format!("no table `{table}`{hint}: the dataset has {}", names.join(", ")))
    }

    /// The engine's "table not found" in the dataset's terms: the closest table's name and
    /// the tables there are.
    fn explained(&self, e: Error) -> Error {
        if let Error::Query(q) = &e {
            if let Some(name) = missing_table(&q.to_string()) {
                return self.no_table(name);
            }
        }
        e
    }

    /// Several statements at once, results in the order given.
    pub(crate) fn sql_all(&self, sqls: &[String]) -> Result<Vec<Vec<RecordBatch>>> {
        self.rt.block_on(async {
            let tasks: Vec<_> = sqls.iter().map(|sql| tokio::spawn(run_query(self.ctx.clone(), sql.clone(), self.limits))).collect();
            let mut out = Vec::with_capacity(tasks.len());
            for t in tasks {
                out.push(t.await.map_err(stopped)??);
            }
            Ok(out)
        })
    }

    pub(crate) fn has_table(&self, name: &str) -> bool {
        self.ctx.table_exist(name).unwrap_or(false)
    }

    /// The views of [`views::VIEWS`] defined on this dataset (an older one lacks some).
    pub fn views(&self) -> Vec<(&'static str, &'static str)> {
        views::VIEWS.iter().filter(|(name, _)| self.has_table(name)).copied().collect()
    }
}

/// A directory's manifest and tables, pinned: a session reads the version it opened,
/// whatever a writer swaps in meanwhile (`dataset::pin`); a cluster's executors read the
/// pinned links at their absolute path, beside the dataset on the filesystem they share.
fn local_tables(dataset: &Path, engine: &Engine) -> Result<(crate::dataset::manifest::Manifest, Registered, Option<crate::dataset::pin::Pinned>)> {
    let cluster = matches!(engine, Engine::Cluster(_));
    let pinned = crate::dataset::pin::pin(dataset)?;
    let (manifest, dir) = match &pinned {
        Some(p) if cluster => (p.manifest.clone(), std::fs::canonicalize(&p.dir).map_err(|e| Error::io(&p.dir, e))?),
        Some(p) => (p.manifest.clone(), p.dir.clone()),
        None if cluster => (crate::dataset::manifest::Manifest::load(dataset)?, std::fs::canonicalize(dataset).map_err(|e| Error::io(dataset, e))?),
        None => (crate::dataset::manifest::Manifest::load(dataset)?, dataset.to_path_buf()),
    };
    let mut registered = Vec::with_capacity(manifest.tables.len());
    for name in manifest.tables.keys() {
        let p = dir.join(format!("{name}.parquet"));
        if !p.is_file() {
            return Err(Error::dataset(p, "recorded in manifest.json, missing on disk (see `hindsight verify`)"));
        }
        registered.push((name.clone(), p.to_string_lossy().to_string(), p));
    }
    Ok((manifest, registered, pinned))
}

/// An object store's manifest and tables: the bucket's store registered with the SQL
/// engine, each table by its object's URL. Not pinned: see [`crate::location`].
fn object_tables(rt: &tokio::runtime::Runtime, ctx: &SessionContext, url: &ObjectUrl) -> Result<(crate::dataset::manifest::Manifest, Registered)> {
    let store = url.store()?;
    let manifest = rt.block_on(crate::location::read_manifest(&store, url))?;
    let bucket = datafusion::execution::object_store::ObjectStoreUrl::parse(url.bucket_url())?;
    ctx.runtime_env().register_object_store(bucket.as_ref(), store);
    let registered = manifest
        .tables
        .keys()
        .map(|name| {
            let at = url.object(&crate::location::in_version(&manifest, &format!("{name}.parquet")));
            (name.clone(), at.clone(), PathBuf::from(at))
        })
        .collect();
    Ok((manifest, registered))
}

/// The table or view a `DESCRIBE t` (or `DESC t`) statement names, as the engine resolves
/// the name: [`Session::describe`] answers it, so that it prints SQL type names and the
/// columns' meanings, the same as `\d t` and `describe t --dataset`.
fn described(sql: &str) -> Option<String> {
    use datafusion::sql::parser::{DFParser, Statement};
    use datafusion::sql::sqlparser::ast::{DescribeAlias, Statement as Sql};
    let mut statements = DFParser::parse_sql_with_dialect(sql, &datafusion::sql::sqlparser::dialect::PostgreSqlDialect {}).ok()?;
    if statements.len() != 1 {
        return None;
    }
    let Statement::Statement(statement) = statements.pop_front()? else { return None };
    let Sql::ExplainTable { describe_alias: DescribeAlias::Describe | DescribeAlias::Desc, table_name, .. } = *statement else { return None };
    let reference = datafusion::sql::planner::object_name_to_table_reference(table_name, true).ok()?;
    Some(reference.table().to_string())
}

/// What a planning error says the dataset lacks: `table ci_gate`, `column x`.
fn missing(text: &str) -> Option<String> {
    if let Some(name) = missing_table(text) {
        return Some(format!("table {name}"));
    }
    let rest = text.split("No field named ").nth(1)?;
    let field: String = rest.chars().take_while(|c| !c.is_whitespace()).collect();
    let field = field.trim_end_matches(['.', ',']).trim_matches('"');
    // `p.state`: the query's alias says nothing to the reader; the column's name does.
    Some(format!("column {}", field.rsplit('.').next().unwrap_or(field)))
}

/// The table an engine error says is not found (`table 'datafusion.public.x' not found`:
/// `x`).
fn missing_table(text: &str) -> Option<&str> {
    let rest = text.split("table '").nth(1).filter(|_| text.contains("' not found"))?;
    let name = rest.split('\'').next().unwrap_or_default();
    Some(name.rsplit('.').next().unwrap_or(name))
}

/// What a read-only session allows: queries, no DDL, DML or settings.
fn read_only() -> SQLOptions {
    SQLOptions::new().with_allow_ddl(false).with_allow_dml(false).with_allow_statements(false)
}

/// Plan `sql`, refuse anything but a read unless writes are allowed, and start it.
async fn start_query(ctx: &SessionContext, sql: &str, limits: Limits) -> Result<datafusion::physical_plan::SendableRecordBatchStream> {
    let plan = ctx.state().create_logical_plan(sql).await?;
    if !limits.allow_write {
        if let Err(e) = read_only().verify_plan(&plan) {
            let what = e.strip_backtrace().trim_start_matches("Error during planning: ").to_string();
            return Err(Error::usage(format!(
                "SQL is read-only unless --allow-write is given: {what} (queries may not create, change or drop tables, write files (COPY) or change settings (SET))"
            )));
        }
    }
    Ok(ctx.execute_logical_plan(plan).await?.execute_stream().await?)
}

/// The engine's error for a batch, with the memory limit said in hindsight's words.
fn batch_error(e: datafusion::error::DataFusionError, limits: Limits) -> Error {
    match e {
        datafusion::error::DataFusionError::ResourcesExhausted(m) => memory_exceeded(limits.memory, &m),
        e => Error::Query(e),
    }
}

/// [`start_query`], its batches sent to `tx` until the receiver goes away.
async fn stream_query(ctx: SessionContext, sql: String, limits: Limits, tx: tokio::sync::mpsc::Sender<Result<RecordBatch>>) -> Result<()> {
    use futures::StreamExt;
    let mut stream = match start_query(&ctx, &sql, limits).await {
        Ok(s) => s,
        Err(e) => {
            let _ = tx.send(Err(e)).await;
            return Ok(());
        }
    };
    while let Some(batch) = stream.next().await {
        let batch = batch.map_err(|e| batch_error(e, limits));
        let failed = batch.is_err();
        if tx.send(batch).await.is_err() || failed {
            break;
        }
    }
    Ok(())
}

/// [`start_query`], the whole result collected within the memory limit.
async fn run_query(ctx: SessionContext, sql: String, limits: Limits) -> Result<Vec<RecordBatch>> {
    use futures::StreamExt;
    let mut stream = start_query(&ctx, &sql, limits).await?;
    let (mut out, mut held) = (Vec::new(), 0usize);
    while let Some(batch) = stream.next().await {
        let batch = batch.map_err(|e| batch_error(e, limits))?;
        held += batch.get_array_memory_size();
        if held > limits.memory {
            return Err(memory_exceeded(limits.memory, "the result itself is larger"));
        }
        out.push(batch);
    }
    Ok(out)
}

/// The name of the threads queries run on: a panic there is reported as the query's error
/// (see [`stopped`]), not printed as a crash.
pub const SQL_THREAD: &str = "hindsight-sql";

/// A query task that did not finish: a panic inside the SQL engine (an arrow array past its
/// 2 GiB offsets, an internal assertion) becomes the query's error, with the engine's words.
fn stopped(e: tokio::task::JoinError) -> Error {
    if !e.is_panic() {
        return Error::usage(format!("the query was cancelled: {e}"));
    }
    let payload = e.into_panic();
    let what = payload.downcast_ref::<String>().map(String::as_str).or_else(|| payload.downcast_ref::<&str>().copied()).unwrap_or("no message");
    Error::usage(format!(
        "the SQL engine could not compute this query ({}); a value it builds is probably too large (a string or list column holds at most 2 GiB per batch): narrow it (WHERE, LIMIT, shorter values)",
        what.lines().next().unwrap_or_default()
    ))
}

pub(crate) fn memory_exceeded(limit: usize, detail: &str) -> Error {
    Error::usage(format!(
        "the query needs more than its memory limit of {} MiB ({}); narrow it (WHERE, LIMIT, fewer joins) or raise the limit with --memory-limit",
        limit >> 20,
        detail.trim()
    ))
}

/// The whole dashboard, formatted.
pub fn dashboard(dataset: &Path, fmt: Format) -> Result<String> {
    dashboard_with(dataset, fmt, Limits::default(), &Engine::Local)
}

/// `dashboard` under the given limits, its queries run by `engine`.
pub fn dashboard_with(dataset: &Path, fmt: Format, limits: Limits, engine: &Engine) -> Result<String> {
    dashboard_view(&dataset.into(), fmt, limits, engine, &View::default())
}

/// What of the dashboard is shown, and how wide: every section, or those named; the
/// terminal table fitted to a width or not.
#[derive(Clone, Debug, Default)]
pub struct View {
    pub fit: terminal::Fit,
    /// Sections by query name (`--section`); empty: all.
    pub sections: Vec<String>,
    /// Whether the snapshot holds the captures the rules asked for, said before the figures.
    pub coverage: Coverage,
    /// The cluster unit of `acceptance_clustered`'s section (`--cluster-by`).
    pub cluster_by: ClusterUnit,
}

/// `dashboard_with`, showing `view`'s sections at its width. A section name the dashboard
/// does not have is refused with the names it has.
pub fn dashboard_view(dataset: &DatasetLocation, fmt: Format, limits: Limits, engine: &Engine, view: &View) -> Result<String> {
    let (mut sections, mut left_out, provenance) = dashboard_results(dataset, limits, engine, view.cluster_by, fmt == Format::Html)?;
    if !view.sections.is_empty() {
        let names: Vec<&str> = sections.iter().map(|(n, _, _)| *n).filter(|n| *n != charts::CURVES).collect();
        if let Some(bad) = view.sections.iter().find(|s| !names.contains(&s.as_str())) {
            let hint = suggest(bad, &names).map(|s| format!(" (did you mean `{s}`?)")).unwrap_or_default();
            return Err(Error::usage(format!("--section `{bad}` is not a section of this dashboard{hint}; its sections: {}", names.join(", "))));
        }
        // The curves' figures go with the summary they draw.
        sections.retain(|(n, _, _)| view.sections.iter().any(|s| s == n || (*n == charts::CURVES && s == charts::CURVES_SUMMARY)));
        left_out.clear();
    }
    format::sections_with_notes(&sections, &left_out, fmt, Some(&provenance), view.fit, &view.coverage)
}

/// The name of `names` a mistyped `given` meant: one whose last part it is (`overview` for
/// `aidev/overview`), else the nearest a typo away.
pub fn suggest<'a>(given: &str, names: &[&'a str]) -> Option<&'a str> {
    names.iter().find(|n| n.rsplit('/').next() == Some(given)).copied().or_else(|| crate::text::closest(given, names.iter().copied()))
}

/// A dashboard section: query name, title, result.
pub(crate) type SectionResult = (&'static str, &'static str, Vec<RecordBatch>);

/// The dashboard's sections on this dataset, run, and those left out. With `curves` (the
/// HTML page and `--figures`, which draw them) and where the dashboard shows
/// `time_to_outcome_summary`, the curves behind it ([`charts::CURVES`], a query on no
/// dashboard) come last: for the figures only, never a table.
fn dashboard_results(
    dataset: &DatasetLocation,
    limits: Limits,
    engine: &Engine,
    cluster_by: ClusterUnit,
    curves: bool,
) -> Result<(Vec<SectionResult>, Vec<LeftOut>, html::Provenance)> {
    let session = Session::open_at(dataset, limits, engine)?;
    if !session.has_table("outcomes") {
        return Err(Error::dataset(PathBuf::from(dataset.to_string()), "no outcomes table: run `hindsight evaluate` first"));
    }
    let (mut shown, left_out) = dashboard_sections(&session)?;
    if curves && shown.iter().any(|(name, _)| *name == charts::CURVES_SUMMARY) {
        shown.push((charts::CURVES, ""));
    }
    let sqls: Vec<String> = shown.iter().map(|(name, _)| query_text(name)).collect::<Result<_>>()?;
    let results = session.sql_all(&sqls)?;
    let sections = shown.iter().zip(results).map(|((name, title), batches)| Ok((*name, *title, shaped(name, batches, cluster_by)?))).collect::<Result<_>>()?;
    Ok((sections, left_out, html::Provenance::of(dataset, &session.manifest)))
}

/// A dashboard section's rows as the dashboard shows them ([`BundledQuery::shaping`]).
fn shaped(name: &str, batches: Vec<RecordBatch>, cluster_by: ClusterUnit) -> Result<Vec<RecordBatch>> {
    match bundled_query(name).and_then(|q| q.shaping.as_ref()) {
        None => Ok(batches),
        Some(Shaping::Compared(how)) => comparisons::complete(&batches, how),
        Some(Shaping::OneClusterUnit) => batches.iter().map(|b| one_cluster_unit(b, cluster_by)).collect(),
    }
}

/// The rows of `batch` whose `cluster_by` is `unit`.
fn one_cluster_unit(batch: &RecordBatch, unit: ClusterUnit) -> Result<RecordBatch> {
    use arrow::array::{AsArray, BooleanArray};
    let column = batch.column_by_name("cluster_by").ok_or_else(|| Error::usage("acceptance_clustered has no column cluster_by"))?;
    let column = arrow::compute::cast(column, &arrow::datatypes::DataType::Utf8)?;
    let keep: BooleanArray = column.as_string::<i32>().iter().map(|v| Some(v == Some(unit.name()))).collect();
    Ok(arrow::compute::filter_record_batch(batch, &keep)?)
}

/// The dashboard's charts, each written alone into `dir` (created if need be) in
/// `encoding`'s format and named after its query ([`charts::Figure::file_name`]), as the
/// HTML report draws them (in `style`); the files written, in the page's order, and the
/// notes the page has for figures it does not draw ([`charts::notes`]).
pub fn write_figures(
    dataset: &DatasetLocation,
    dir: &Path,
    limits: Limits,
    engine: &Engine,
    style: &charts::Style,
    encoding: charts::Encoding,
) -> Result<(Vec<std::path::PathBuf>, Vec<String>)> {
    let (sections, _, _) = dashboard_results(dataset, limits, engine, ClusterUnit::default(), true)?;
    let sections = format::html_sections(&sections)?;
    let (figures, notes) = (charts::figures(&sections, style), charts::notes(&sections));
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let mut written = Vec::with_capacity(figures.len());
    for f in figures {
        let path = dir.join(f.file_name(encoding.format));
        if let Some(why) = crate::output::unwritable(&path, dataset.local()) {
            return Err(Error::usage(format!("--figures: {why}")));
        }
        f.write_to(&path, encoding)?;
        written.push(path);
    }
    Ok((written, notes))
}

/// A dashboard section: its query's name and its title.
type Section = (&'static str, &'static str);

/// The sections the dashboard shows on this dataset, in order, and those it leaves out with
/// a note: an AIDev import's [`sections`] on an AIDev import, the other otherwise; a
/// section that needs a table only with it ([`BundledQuery::needs_table`]), and on an AIDev
/// import one that needs an input only with it ([`BundledQuery::needs_input`]).
pub(crate) fn dashboard_sections(session: &Session) -> Result<(Vec<Section>, Vec<LeftOut>)> {
    let aidev = session.has_table(AIDEV_TABLE);
    let mut left_out = Vec::new();
    if aidev {
        for (need, sections) in needs_inputs() {
            let has = session.has_table(need.table) && probe_count(session, need.probe)? > 0;
            if !has {
                left_out.push(LeftOut { sections, note: need.note.to_string() });
            }
        }
    }
    let mut shown: Vec<(&'static str, &'static str)> = sections(aidev)
        .into_iter()
        .filter(|(name, _)| bundled_query(name).and_then(|q| q.needs_table).is_none_or(|table| session.has_table(table)))
        .filter(|(name, _)| !left_out.iter().any(|l| l.sections.contains(name)))
        .collect();
    if session.format_version < crate::dataset::manifest::FORMAT_VERSION {
        left_out.extend(older_dataset(session, &mut shown)?);
    }
    Ok((shown, left_out))
}

/// A dataset of an older format: the sections whose tables or columns it does not have
/// yet leave `shown`, named in one note with the command that brings the dataset up to date.
fn older_dataset(session: &Session, shown: &mut Vec<(&'static str, &'static str)>) -> Result<Option<LeftOut>> {
    let mut sections = Vec::new();
    let mut missing: Vec<String> = Vec::new();
    let mut keep = Vec::with_capacity(shown.len());
    for (name, title) in shown.drain(..) {
        match session.lacks(&query_text(name)?) {
            Some(what) => {
                sections.push(name);
                if !missing.contains(&what) {
                    missing.push(what);
                }
            }
            None => keep.push((name, title)),
        }
    }
    *shown = keep;
    if sections.is_empty() {
        return Ok(None);
    }
    let note = format!(
        "Written by an older hindsight (format {}{}; this one writes {}): {} left out, the dataset has no {}. Re-run `hindsight run` (or `convert`, then `evaluate`) on its inputs with this hindsight to bring it up to date",
        crate::dataset::manifest::FORMAT_PREFIX,
        session.format_version,
        crate::dataset::manifest::FORMAT,
        sections.join(", "),
        missing.join(", ")
    );
    Ok(Some(LeftOut { sections, note }))
}

/// The count a [`NeedsInput`] probe returns (its first column of its first row).
fn probe_count(session: &Session, sql: &str) -> Result<i64> {
    use arrow::array::{Array, Int64Array};
    let batches = session.statement(sql)?;
    Ok(batches
        .first()
        .filter(|b| b.num_rows() > 0)
        .and_then(|b| b.column(0).as_any().downcast_ref::<Int64Array>().map(|a| if a.is_null(0) { 0 } else { a.value(0) }))
        .unwrap_or(0))
}

/// The rows of each named query (a bundled query or a `.sql` file), as JSON: what `check`
/// compares published figures with.
pub fn figures(dataset: &DatasetLocation, names: &[&str], limits: Limits) -> Result<std::collections::BTreeMap<String, serde_json::Value>> {
    let session = Session::open_at(dataset, limits, &Engine::Local)?;
    let sqls: Vec<String> = names.iter().map(|n| query_text(n)).collect::<Result<_>>()?;
    let results = session.sql_all(&sqls)?;
    // A comparison's tests are figures a paper publishes: checked as the dashboard shows them.
    let complete = |n: &str, batches: Vec<RecordBatch>| match bundled_query(n).and_then(|q| q.shaping.as_ref()) {
        Some(Shaping::Compared(how)) => comparisons::complete(&batches, how),
        _ => Ok(batches),
    };
    names.iter().zip(results).map(|(n, batches)| Ok((n.to_string(), format::json_rows(&complete(n, batches)?)?))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The catalogue names each query once, and every file of `queries/` (but the views,
    /// `views::VIEWS`) is a bundled query: a query file added without its declaration fails
    /// here (a declaration without its file does not compile).
    #[test]
    fn the_catalogue_is_every_query_file_once() {
        let names: Vec<&str> = CATALOGUE.iter().map(|q| q.name).collect();
        for (i, name) in names.iter().enumerate() {
            assert!(!names[..i].contains(name), "`{name}` declared twice");
        }
        fn walk(dir: &Path, prefix: &str, out: &mut Vec<String>) {
            for e in std::fs::read_dir(dir).unwrap() {
                let p = e.unwrap().path();
                let file = p.file_name().unwrap().to_string_lossy().to_string();
                if p.is_dir() && file != "views" {
                    walk(&p, &format!("{prefix}{file}/"), out);
                } else if let Some(stem) = file.strip_suffix(".sql") {
                    out.push(format!("{prefix}{stem}"));
                }
            }
        }
        let mut files = Vec::new();
        walk(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../queries"), "", &mut files);
        let mut declared: Vec<String> = names.iter().map(|n| n.to_string()).collect();
        files.sort();
        declared.sort();
        assert_eq!(declared, files);
    }

    /// General queries on no dashboard: their rows grow with the outputs.
    const QUERY_ONLY: &[&str] = &["time_to_outcome"];

    /// What a declaration says about the dashboard holds together: every query but the
    /// `aidev/` ones is a section of a study's dashboard, and an `aidev/` one is not; a
    /// section needs a table only where it is shown, and an input only on the AIDev
    /// dashboard (where its probe runs).
    #[test]
    fn each_declaration_is_consistent() {
        for q in CATALOGUE {
            let aidev = q.name.starts_with("aidev/");
            let general = !aidev && !QUERY_ONLY.contains(&q.name);
            assert_eq!(q.title.is_some(), general, "{}: on the dashboard of a study hindsight evaluated exactly when not aidev/ nor asked for by name only", q.name);
            assert!(q.needs_table.is_none() || q.title.is_some() || q.aidev_title.is_some(), "{}: needs a table but is on no dashboard", q.name);
            assert!(q.needs_input.is_none() || q.aidev_title.is_some(), "{}: needs an input but is not on the AIDev dashboard", q.name);
            assert!(!q.sql.trim().is_empty(), "{}: no statement", q.name);
        }
    }

    /// The dashboards derived from the catalogue: a study's in catalogue order; an AIDev
    /// import's own sections first, then the general ones it shows; each input once, with
    /// the sections it holds back.
    #[test]
    fn the_dashboards_are_derived_in_order() {
        let general: Vec<&str> = sections(false).into_iter().map(|(n, _)| n).collect();
        let want: Vec<&str> = CATALOGUE.iter().filter(|q| !q.name.starts_with("aidev/") && !QUERY_ONLY.contains(&q.name)).map(|q| q.name).collect();
        assert_eq!(general, want);
        assert_eq!(sections(false)[0], ("summary", "Outcomes by window"));
        let aidev: Vec<&str> = sections(true).into_iter().map(|(n, _)| n).collect();
        assert_eq!(
            aidev,
            [
                "aidev/by_agent",
                "aidev/rates_by_window",
                "aidev/accepted_over_time",
                "aidev/task_comparisons",
                "summary",
                "acceptance_clustered",
                "acceptance_weighting",
                "acceptance_comparisons",
                "caveats",
                "time_to_outcome_summary",
                "ci_gate",
                "ci_gate_outcomes",
                "risk_by_outcome"
            ]
        );
        assert_eq!(sections(true)[4], ("summary", "Outcomes by window, all agents"));
        let needs: Vec<(&str, Vec<&str>)> = needs_inputs().into_iter().map(|(n, s)| (n.table, s)).collect();
        assert_eq!(needs, [("ci_gate", vec!["ci_gate", "ci_gate_outcomes"]), ("pr_risk", vec!["risk_by_outcome"])]);
    }

    /// A panic on a query thread (arrow's offset overflow, an engine assertion) reaches the
    /// caller as the query's error with the engine's words, not as a crash.
    #[test]
    fn a_panic_inside_a_query_is_the_querys_error() {
        let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(1).thread_name(SQL_THREAD).build().unwrap();
        let task = rt.spawn(async { panic!("offset overflow") });
        let e = rt.block_on(task).map_err(stopped).unwrap_err().to_string();
        assert!(e.contains("could not compute this query (offset overflow)"), "{e}");
    }
}
