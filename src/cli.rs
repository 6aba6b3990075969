//! Command-line definitions. They become a validated [`Config`] before any work starts.

use std::path::PathBuf;

use clap::{Args, CommandFactory, Parser, Subcommand, ValueEnum};

use hindsight::evaluate::Settings;
use hindsight::commands::{Config, Task};
use hindsight::evaluate::quality::QualityPolicy;
use hindsight::evaluate::risk::RiskPolicy;
use hindsight::evaluate::{window, Policy};
use hindsight::pipeline::{DatasetKind, Study};
use hindsight::report::{DatasetLocation, Format};
use hindsight::{Error, Result};

#[derive(Parser, Debug)]
#[command(name = "hindsight", version = hindsight::VERSION, about = "What became of AI agents' actions in GitHub repositories, judged offline on frozen snapshots.")]
pub struct Cli {
    /// No progress bars or summaries on stderr.
    #[arg(long, short, global = true)]
    quiet: bool,
    /// What to do.
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Convert, evaluate and print the dashboard. With no inputs: the bundled demo study.
    Run {
        #[command(flatten)]
        inputs: Inputs,
        /// Dataset directory to write, or s3://BUCKET/PREFIX in an S3-compatible object store.
        #[arg(long, default_value = "hindsight-out")]
        out: PathBuf,
        #[command(flatten)]
        eval: EvalArgs,
        /// How the dashboard is printed.
        #[arg(long, value_enum, default_value_t = Format::Table)]
        format: Format,
        /// Print each dashboard section as one table however wide, instead of fitting the
        /// terminal's width.
        #[arg(long)]
        wide: bool,
        /// Replace the dataset at --out even when it was made from another kind of input
        /// (an AIDev import by a gh-aw study, or the other way round).
        #[arg(long)]
        force: bool,
        #[command(flatten)]
        engine: EngineArgs,
        #[command(flatten)]
        threads: ThreadArgs,
    },
    /// Read a snapshot and runs into a Parquet dataset.
    Convert {
        #[command(flatten)]
        inputs: Inputs,
        /// Dataset directory to write.
        #[arg(long)]
        out: PathBuf,
        /// Replace the dataset at --out even when it was made from another kind of input
        /// (an AIDev import by a gh-aw study, or the other way round).
        #[arg(long)]
        force: bool,
        #[command(flatten)]
        threads: ThreadArgs,
    },
    /// Judge every safe output in every window; writes outcomes.parquet.
    Evaluate {
        /// The dataset directory (written by `run`, `convert` or `import`), or
        /// s3://BUCKET/PREFIX in an S3-compatible object store (copied here, evaluated, and
        /// written back as a new version); default ./hindsight-out, where `hindsight run`
        /// writes, when it exists.
        #[arg(long)]
        dataset: Option<PathBuf>,
        #[command(flatten)]
        eval: EvalArgs,
        #[command(flatten)]
        engine: EngineArgs,
        #[command(flatten)]
        threads: ThreadArgs,
    },
    /// Run the dashboard, a bundled query, a .sql file, or one SELECT over the dataset.
    Report {
        /// The dataset directory (written by `run`, `convert` or `import`), or
        /// s3://BUCKET/PREFIX in an S3-compatible object store; default ./hindsight-out,
        /// where `hindsight run` writes, when it exists.
        #[arg(long)]
        dataset: Option<PathBuf>,
        #[arg(long, conflicts_with = "sql", help = query_help(), value_name = "NAME|FILE.sql", value_parser = QueryName, hide_possible_values = true)]
        query: Option<String>,
        /// One SQL statement over the dataset's tables.
        #[arg(long)]
        sql: Option<String>,
        /// How results are printed.
        #[arg(long, value_enum, default_value_t = Format::Table)]
        format: Format,
        /// Show only this section of the dashboard (its query's name; repeat for more).
        #[arg(long, value_name = "NAME", conflicts_with_all = ["query", "sql"])]
        section: Vec<String>,
        /// Print each dashboard section as one table however wide, instead of fitting the
        /// terminal's width (split into parts, label columns repeated).
        #[arg(long)]
        wide: bool,
        /// Which outputs the dashboard's clustered intervals (acceptance_clustered) treat as
        /// correlated: those acting on one repository, those for one developer, or those of
        /// one workflow run. Pick the level at which acceptance is decided together; the
        /// interval is wider the more acceptance differs between these clusters.
        #[arg(long, value_enum, value_name = "UNIT", default_value_t = ClusterBy::Repo, conflicts_with_all = ["query", "sql"])]
        cluster_by: ClusterBy,
        /// Draw the result of --query or --sql as a standalone figure at FILE (a group of bars
        /// per row, a bar per number column, intervals from COL_ci_low/COL_ci_high) instead
        /// of printing it: SVG, PNG or PDF as FILE's name ends.
        #[arg(long, value_name = "FILE.svg|.png|.pdf", conflicts_with = "figures")]
        figure: Option<PathBuf>,
        /// With --figure: the kind of chart: bars (a group per row), or lines over the rows
        /// in order (weeks, windows) or over a numeric first column (hours), each row a
        /// marker, intervals as bands (default: bar).
        #[arg(long, value_enum, value_name = "KIND", requires = "figure")]
        chart: Option<hindsight::report::charts::ChartKind>,
        /// With --figure: the number columns drawn, comma-separated (default: every one that
        /// is not an interval's end or a count).
        #[arg(long, value_name = "COL,...", requires = "figure", value_delimiter = ',')]
        series: Vec<String>,
        /// With --figure: a JSON object of display text for column names and labels
        /// (`{"Claude_Code": "Claude Code", "strict_acceptance_rate": "strict"}`).
        #[arg(long, value_name = "FILE.json", requires = "figure")]
        labels: Option<PathBuf>,
        /// With --figure: its caption.
        #[arg(long, value_name = "TEXT", requires = "figure")]
        title: Option<String>,
        /// Write each of the dashboard's charts alone into DIR, one standalone file per chart
        /// named after its query (for a paper; SVG unless --figure-format), and print their
        /// paths instead of the dashboard.
        #[arg(long, value_name = "DIR", conflicts_with_all = ["query", "sql"])]
        figures: Option<PathBuf>,
        #[command(flatten)]
        look: FigureArgs,
        #[command(flatten)]
        rows: RowArgs,
        #[command(flatten)]
        limits: LimitArgs,
        #[command(flatten)]
        engine: EngineArgs,
        /// The study's locked analysis plan (`plan lock`): whether the study matches it, and
        /// each way it departs, is said on stderr before the figures.
        #[arg(long, value_name = "FILE")]
        plan: Option<PathBuf>,
        #[command(flatten)]
        threads: ThreadArgs,
    },
    /// An SQL shell over the dataset's tables (history, multi-line statements, \d); reads
    /// --file or standard input instead when given one or when it is not a terminal.
    Sql {
        /// The dataset directory (written by `run`, `convert` or `import`), or
        /// s3://BUCKET/PREFIX in an S3-compatible object store; default ./hindsight-out,
        /// where `hindsight run` writes, when it exists.
        #[arg(long)]
        dataset: Option<PathBuf>,
        /// Run the statements of this file, then leave.
        #[arg(long, value_name = "FILE.sql")]
        file: Option<PathBuf>,
        /// How results are printed (`.mode` changes it in the shell).
        #[arg(long, value_enum, default_value_t = Format::Table)]
        format: Format,
        #[command(flatten)]
        rows: RowArgs,
        #[command(flatten)]
        limits: LimitArgs,
        #[command(flatten)]
        engine: EngineArgs,
    },
    /// Print the SQL that registers every table of the dataset in DuckDB or DataFusion, and
    /// the views the queries read, so queries/*.sql run there unchanged (`hindsight views
    /// --dataset DS > views.sql`, then `.read views.sql` in duckdb).
    Views {
        /// The dataset directory (written by `run`, `convert` or `import`); default
        /// ./hindsight-out, where `hindsight run` writes, when it exists.
        #[arg(long)]
        dataset: Option<PathBuf>,
        /// The engine the statements are for.
        #[arg(long, value_enum, default_value = "duckdb")]
        dialect: hindsight::report::views::Dialect,
        /// Write absolute paths (default: the paths as --dataset gives them).
        #[arg(long)]
        absolute: bool,
    },
    /// What a table's rows and columns mean (the data dictionary; docs/DATASET.md).
    Describe {
        /// The table (with no table: every table and what its rows are).
        table: Option<String>,
        /// Describe the table as this dataset has it: every column with its type.
        #[arg(long)]
        dataset: Option<PathBuf>,
        /// Print the whole dictionary as markdown (docs/DATASET.md).
        #[arg(long, conflicts_with_all = ["table", "dataset"])]
        markdown: bool,
        /// With --dataset: how the columns are printed.
        #[arg(long, value_enum, default_value_t = Format::Table)]
        format: Format,
    },
    /// Why a safe output got its verdict in each window: the rule row, the evidence, who
    /// acted, and the captures of its target the rules could read.
    Explain {
        /// The safe output's id (`safe_output_id`, as the outcomes and the dashboard name it).
        output: String,
        /// The dataset directory (written by `run`, `convert` or `import`); default
        /// ./hindsight-out, where `hindsight run` writes, when it exists.
        #[arg(long)]
        dataset: Option<PathBuf>,
        /// How the explanation is printed: table (text for reading) or json.
        #[arg(long, value_enum, default_value_t = Format::Table)]
        format: Format,
    },
    /// Run hindsight's SQL and evaluation on an Apache DataFusion Ballista cluster: its
    /// scheduler, or an executor, served from this process until it is stopped. Clients then
    /// give `sql`, `report`, `evaluate` and `run` --cluster df://HOST:PORT; every machine runs
    /// this same hindsight and sees the dataset at the same path, or reaches the object store
    /// it is in (s3://BUCKET/PREFIX) with its own AWS environment variables.
    #[cfg(feature = "cluster")]
    Cluster {
        #[command(subcommand)]
        role: ClusterRole,
    },
    /// Print a shell's completion script: `hindsight completions bash > /etc/bash_completion.d/hindsight`.
    Completions {
        /// The shell to complete in.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the manual page (roff) on stdout, or with --dir write one per command there.
    Man {
        /// Write hindsight.1 and hindsight-COMMAND.1 for every command into this directory.
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
    },
    /// Write a deterministic synthetic study (snapshot/, runs/, traces/) for benchmarks, or
    /// with --aidev an AIDev release of any size.
    Synth {
        /// Repositories the outputs act on.
        #[arg(long, default_value_t = 100)]
        repos: u64,
        /// Safe outputs in all.
        #[arg(long, default_value_t = 10_000)]
        outputs: u64,
        /// Random seed: the same seed writes the same bytes.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Directory to write the study into (with --aidev: a new or empty one).
        #[arg(long)]
        out: PathBuf,
        /// Write an AIDev release instead, with that release's tables and columns
        /// (docs/AIDEV.md): v1's CSV folders per agent, or v3's, v4's or v5's Parquet tables;
        /// synthetic PRs that `import aidev` tells as that release.
        #[arg(long, value_enum, value_name = "RELEASE", requires = "prs", conflicts_with_all = ["repos", "outputs"])]
        aidev: Option<AidevRelease>,
        /// Agent PRs in the AIDev release (about 12 per repository, each with its reviews,
        /// comments, commits, timeline and task type).
        #[arg(long, value_name = "N", requires = "aidev")]
        prs: Option<u64>,
        /// Write small bodies with only the keys hindsight reads, instead of every key
        /// GitHub's API sends: a smaller, faster study with the same outcomes.
        #[arg(long, conflicts_with = "aidev")]
        compact: bool,
    },
    /// Link traces to safe outputs and write opentraces outcome and attribution blocks.
    Attach {
        /// The dataset directory (written by `run`, `convert` or `import`); default
        /// ./hindsight-out, where `hindsight run` writes, when it exists.
        #[arg(long)]
        dataset: Option<PathBuf>,
        /// Where to write the enriched JSONL (default DATASET/traces.enriched.jsonl; `-` for
        /// standard output).
        #[arg(long)]
        out: Option<PathBuf>,
        /// The window whose outcomes fill the blocks.
        #[arg(long, default_value_t = hindsight::evaluate::Window::ONE_WEEK.to_string())]
        window: String,
        /// Replace attribution blocks the traces already have.
        #[arg(long)]
        rebuild_attribution: bool,
        /// Let --out replace an existing file (never one of the study's inputs or the
        /// dataset's own tables and manifest).
        #[arg(long)]
        force: bool,
        #[command(flatten)]
        threads: ThreadArgs,
    },
    /// Compare the dataset's figures with published ones; exit 1, with a table, on any difference.
    Check {
        /// The dataset directory (written by `run`, `convert` or `import`), or
        /// s3://BUCKET/PREFIX in an S3-compatible object store; default ./hindsight-out,
        /// where `hindsight run` writes, when it exists.
        #[arg(long)]
        dataset: Option<PathBuf>,
        /// A JSON object of query name (dashboard, bundled such as aidev/overview, or a .sql
        /// file) -> rows, any subset of `report --query NAME --format json` (docs/REPORT.md).
        #[arg(long)]
        expected: PathBuf,
        /// Compare numbers exactly, not at the precision they are written with.
        #[arg(long)]
        exact: bool,
        /// Largest extra absolute difference accepted between numbers.
        #[arg(long, default_value_t = 0.0)]
        tolerance: f64,
        #[command(flatten)]
        threads: ThreadArgs,
    },
    /// What changed from dataset A to dataset B (two captures, releases or policies of a
    /// study): outputs whose verdict changed per window, outputs only one has, and every
    /// dashboard figure that moved; exit 1 when anything did.
    Diff {
        /// The earlier dataset.
        a: PathBuf,
        /// The later dataset.
        b: PathBuf,
        /// markdown or json.
        #[arg(long, value_enum, default_value = "markdown")]
        format: hindsight::commands::DiffFormat,
        /// A file of published figures (as `check --expected` takes it): each of its figures
        /// whose value moved from A to B, with both (repeat for several files).
        #[arg(long, value_name = "FILE")]
        expected: Vec<PathBuf>,
        #[command(flatten)]
        threads: ThreadArgs,
    },
    /// A locked analysis plan: the windows, policies and queries a study is to be analysed
    /// with, fixed before its outcomes are seen, and every way a dataset departs from it.
    Plan {
        #[command(subcommand)]
        action: PlanAction,
    },
    /// Hand a study on: the dataset under DIR/data, with a Frictionless datapackage.json, an
    /// RO-Crate (Process Run Crate) naming the inputs and settings, CITATION.cff, .zenodo.json
    /// and a README with the study's figures.
    Package {
        /// The dataset directory (written by `run`, `convert` or `import`); default
        /// ./hindsight-out, where `hindsight run` writes, when it exists.
        #[arg(long)]
        dataset: Option<PathBuf>,
        /// The package's folder; it must not exist.
        #[arg(long)]
        out: PathBuf,
        /// An author, "Family, Given" (repeat for several; at least one).
        #[arg(long = "author", value_name = "NAME")]
        authors: Vec<String>,
        /// The package's title (default: one naming the capture date).
        #[arg(long)]
        title: Option<String>,
        /// A paragraph on what the study is (default: one saying what the tables hold).
        #[arg(long)]
        description: Option<String>,
        /// The data's licence, an SPDX identifier.
        #[arg(long, default_value = "CC-BY-4.0")]
        license: String,
        /// The study's locked analysis plan (`plan lock`): the package carries it, and its
        /// README says whether the study matches it.
        #[arg(long, value_name = "FILE")]
        plan: Option<PathBuf>,
        #[command(flatten)]
        threads: ThreadArgs,
    },
    /// Write the dataset as one SQLite database, for datasette or the sqlite3 shell: every
    /// table with its rows in order, `hindsight_manifest` and `hindsight_columns` (how each
    /// column was stored; docs/SQLITE.md). No SQLite library is needed.
    Export {
        /// The dataset directory (written by `run`, `convert` or `import`); default
        /// ./hindsight-out, where `hindsight run` writes, when it exists.
        #[arg(long)]
        dataset: Option<PathBuf>,
        /// The database file to write (`datasette FILE` then opens it).
        #[arg(long, value_name = "FILE", required_unless_present_any = ["insights", "otlp"])]
        sqlite: Option<PathBuf>,
        /// Write the insights (agent self-feedback, failure summaries with the prompt section
        /// they point at) as JSON Lines, the shape a platform's memory loads.
        #[arg(long, value_name = "FILE", conflicts_with_all = ["sqlite", "otlp"])]
        insights: Option<PathBuf>,
        /// Write one window's outcomes as OpenTelemetry spans (OTLP/JSON lines, gh-aw's
        /// `gh-aw.outcome.*` attribute names), for an observability stack to chart.
        #[arg(long, value_name = "FILE", conflicts_with = "sqlite", requires = "window")]
        otlp: Option<PathBuf>,
        /// With --otlp: the window whose verdicts are exported (1h, 24h, 7d, 30d, snapshot).
        #[arg(long, value_name = "WINDOW")]
        window: Option<String>,
        /// Replace FILE when it exists.
        #[arg(long)]
        force: bool,
    },
    /// Recompute the manifest's sizes, sha256s and row counts; exit 1 on any drift.
    Verify {
        /// The dataset directory (written by `run`, `convert` or `import`); default
        /// ./hindsight-out, where `hindsight run` writes, when it exists.
        #[arg(long)]
        dataset: Option<PathBuf>,
        /// Also check the input files against the manifest.
        #[command(flatten)]
        inputs: Inputs,
        #[command(flatten)]
        threads: ThreadArgs,
    },
    /// Print the rules catalogue: every (type, condition, status, strength, signal) from the code.
    Rules {
        /// markdown or json.
        #[arg(long, default_value = "markdown")]
        format: String,
    },
    /// Make the snapshot a study's runs need, from GitHub's REST API (the one networked command);
    /// exit 1 when some request failed (what succeeded is written; a re-run asks again).
    Capture {
        /// Runs directory (one sub-directory per workflow run).
        #[arg(long)]
        runs: PathBuf,
        /// Snapshot directory to write (capture.jsonl, snapshot.json); a re-run resumes it.
        #[arg(long, required_unless_present = "plan")]
        out: Option<PathBuf>,
        /// Print the requests as `gh api` lines, without touching the network.
        #[arg(long)]
        plan: bool,
        /// With --plan: answer the rules from this snapshot, so the plan goes as deep as a
        /// capture would (a PR found, then its reviews, timeline, commits...).
        #[arg(long, requires = "plan")]
        snapshot: Option<PathBuf>,
        /// REST API root (GitHub Enterprise Server: https://HOST/api/v3).
        #[arg(long, default_value = hindsight::capture::DEFAULT_API)]
        api_url: String,
        /// Requests in flight at once.
        #[arg(long, default_value_t = 4)]
        concurrency: usize,
        /// Ask again for what is captured (conditionally: unchanged answers cost no download).
        #[arg(long)]
        refresh: bool,
        /// Pages followed per list.
        #[arg(long, default_value_t = 100)]
        max_pages: usize,
        /// First retry delay in milliseconds (doubled at each retry).
        #[arg(long, default_value_t = 1000, hide = true)]
        retry_base_ms: u64,
        #[command(flatten)]
        threads: ThreadArgs,
    },
    /// Import a published study's data as a dataset, and evaluate it.
    Import {
        /// The published data set to import.
        #[command(subcommand)]
        source: ImportSource,
    },
    /// Print the policy in force (defaults, or FILE merged over them).
    Policy {
        /// A policy file (JSON) whose keys replace the defaults.
        #[arg(long)]
        policy: Option<PathBuf>,
    },
    /// The commit protocol over recorded execution results: evaluate each, then commit or
    /// reject it, with its violations and the compliance report (docs/GATE.md).
    Gate {
        /// Execution results, one JSON object per line.
        #[arg(long, value_name = "FILE.jsonl")]
        results: PathBuf,
        /// The gate policy (JSON): allowed files, expected outcomes, protected files, commit types.
        #[arg(long, value_name = "POLICY.json")]
        policy: PathBuf,
        /// json or table.
        #[arg(long, default_value = "json")]
        format: String,
        /// Also write the results into this dataset (tables commit_protocol and
        /// commit_protocol_violations), where the dashboard shows them.
        #[arg(long)]
        dataset: Option<PathBuf>,
        #[command(flatten)]
        threads: ThreadArgs,
    },
}

#[derive(Subcommand, Debug)]
enum PlanAction {
    /// Write the plan of evaluating with these windows and policies and this hindsight's
    /// queries to a new file (never replaced); prints its sha256, the plan's citation.
    Lock {
        /// The plan file to write; it must not exist.
        #[arg(long)]
        out: PathBuf,
        #[command(flatten)]
        eval: EvalArgs,
    },
    /// Every way a dataset departs from a plan (windows, each policy switch, each query's
    /// SQL); exit 1 when it does.
    Check {
        /// The plan file (`plan lock`).
        #[arg(long)]
        plan: PathBuf,
        /// The dataset directory (written by `run`, `convert` or `import`), or
        /// s3://BUCKET/PREFIX in an S3-compatible object store; default ./hindsight-out,
        /// where `hindsight run` writes, when it exists.
        #[arg(long)]
        dataset: Option<PathBuf>,
    },
}

#[derive(Subcommand, Debug)]
enum ImportSource {
    /// AIDev (Li, Zhang and Hassan, arXiv 2507.15003): v1's folders of CSV tables per agent,
    /// or a v3, v4 or v5 Parquet release as a Hugging Face snapshot lays it out.
    Aidev {
        /// The AIDev folder: v1's Claude_Code/, Copilot/, ..., Human/, or a Parquet release's
        /// <table>.parquet files (pull_request.parquet, pr_reviews.parquet, ...).
        dir: PathBuf,
        /// Dataset directory to write.
        #[arg(long)]
        out: PathBuf,
        #[command(flatten)]
        eval: EvalArgs,
        /// When the data was collected (RFC 3339). AIDev does not record it; by default the
        /// latest timestamp in its PR tables is used, the earliest it can have been.
        #[arg(long, value_name = "TIME")]
        captured_at: Option<String>,
        /// Which release the folder holds. Told from its tables and columns by default; needed
        /// only when they fit more than one (a subset of the tables every release has).
        #[arg(long, value_enum)]
        release: Option<AidevRelease>,
        /// The Hugging Face revision (commit) of the release, recorded in the manifest; found in
        /// the folder where huggingface_hub left it.
        #[arg(long, value_name = "COMMIT")]
        revision: Option<String>,
        /// The PR set of a Parquet release: AIDev-pop (pull_request, repositories with more
        /// than 100 stars; the default where present) or AIDev full (all_pull_request).
        #[arg(long, value_enum)]
        subset: Option<AidevSubset>,
        /// Replace the dataset at --out even when it was made from another kind of input
        /// (an AIDev import by a gh-aw study, or the other way round).
        #[arg(long)]
        force: bool,
        #[command(flatten)]
        threads: ThreadArgs,
    },
}

/// An AIDev release (`import aidev --release`, `synth --aidev`).
#[derive(Clone, Copy, Debug, ValueEnum)]
enum AidevRelease {
    /// The CSV replication package on GitHub, cut off 2025-06-22.
    V1,
    /// hao-li/AIDev tag v3, the MSR 2026 Mining Challenge version, cut off 2025-08-01.
    V3,
    /// AIDev-2.7M: hao-li/AIDev main since 2026-08-21, cut off November 2025.
    V4,
    /// AIDev-7.6M: hao-li/AIDev-7.6M, cut off 2026-03-31.
    V5,
}

impl From<AidevRelease> for hindsight::aidev::release::Release {
    fn from(r: AidevRelease) -> Self {
        use hindsight::aidev::release::Release;
        match r {
            AidevRelease::V1 => Release::V1,
            AidevRelease::V3 => Release::V3,
            AidevRelease::V4 => Release::V4,
            AidevRelease::V5 => Release::V5,
        }
    }
}

/// The cluster unit of the dashboard's clustered intervals (`report --cluster-by`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum ClusterBy {
    /// Outputs acting on one repository (its maintainers, rules and CI).
    Repo,
    /// Outputs for one person: the run's triggering actor, else the account the output was written as.
    Developer,
    /// Outputs of one workflow run (one task, one prompt).
    Run,
}

impl From<ClusterBy> for hindsight::report::ClusterUnit {
    fn from(c: ClusterBy) -> Self {
        use hindsight::report::ClusterUnit;
        match c {
            ClusterBy::Repo => ClusterUnit::Repository,
            ClusterBy::Developer => ClusterUnit::Developer,
            ClusterBy::Run => ClusterUnit::Run,
        }
    }
}

/// The PR set of a Parquet AIDev release (`import aidev --subset`).
#[derive(Clone, Copy, Debug, ValueEnum)]
enum AidevSubset {
    /// AIDev-pop: pull_request, the PRs the review, comment, commit and timeline tables cover.
    Pop,
    /// AIDev full: all_pull_request.
    All,
}

#[derive(Args, Debug)]
struct Inputs {
    /// Snapshot directory (snapshot.json + captures).
    #[arg(long, requires = "runs")]
    snapshot: Option<PathBuf>,
    /// Runs directory (one sub-directory per workflow run).
    #[arg(long, requires = "snapshot")]
    runs: Option<PathBuf>,
    /// opentraces JSONL: a file or a directory of them; may be repeated.
    #[arg(long, requires = "snapshot")]
    traces: Vec<PathBuf>,
    /// Task records and events: a directory holding tasks.jsonl and events.jsonl.
    #[arg(long, requires = "snapshot", value_name = "DIR")]
    tasks: Option<PathBuf>,
    /// The task policy (JSON; keys of docs/TASKS.md, absent keys keep their defaults):
    /// failure categorization with --tasks, and review feedback (key `feedback`) always.
    #[arg(long, requires = "snapshot", value_name = "FILE")]
    task_policy: Option<PathBuf>,
}

/// Where the queries and the evaluation run.
#[derive(Args, Debug)]
struct EngineArgs {
    /// Run on the Apache DataFusion Ballista cluster whose scheduler is at this address
    /// (`hindsight cluster scheduler`): the queries, and the evaluation partitioned by
    /// repository. Its executors read a dataset on disk at its absolute path, so every
    /// machine must see it there, or one in an object store (s3://BUCKET/PREFIX) from the
    /// store. Results and tables are those of a run in this process.
    #[arg(long, value_name = "df://HOST:PORT")]
    cluster: Option<String>,
}

impl EngineArgs {
    fn engine(self) -> Result<hindsight::report::Engine> {
        Ok(match self.cluster {
            Some(at) => hindsight::report::Engine::Cluster(at.parse()?),
            None => hindsight::report::Engine::Local,
        })
    }
}

/// `hindsight cluster`: which part of the cluster this process serves. Defaults are
/// Ballista's.
#[cfg(feature = "cluster")]
#[derive(Subcommand, Debug)]
enum ClusterRole {
    /// The scheduler: plans each query into stages and hands their tasks to executors.
    Scheduler {
        /// The address to listen on.
        #[arg(long, default_value_t = hindsight::cluster::SchedulerOptions::default().bind_host)]
        bind_host: String,
        /// The port to listen on (0: one the system picks, said on stderr).
        #[arg(long, default_value_t = hindsight::cluster::SchedulerOptions::default().port)]
        port: u16,
        /// The host name executors and clients reach the scheduler by.
        #[arg(long, default_value_t = hindsight::cluster::SchedulerOptions::default().external_host)]
        external_host: String,
        /// Seconds without a heartbeat after which an executor is taken for lost: its tasks
        /// run again on the others (longer than the executors' --heartbeat-interval).
        #[arg(long, value_name = "SECONDS", default_value_t = hindsight::cluster::SchedulerOptions::default().executor_timeout)]
        executor_timeout: u64,
    },
    /// An executor: takes tasks from the scheduler and runs them, reading the dataset's files.
    Executor {
        /// The scheduler to take tasks from.
        #[arg(long, value_name = "df://HOST:PORT", default_value_t = hindsight::cluster::ExecutorOptions::default().scheduler.to_string())]
        scheduler: String,
        /// The address to listen on.
        #[arg(long, default_value_t = hindsight::cluster::ExecutorOptions::default().bind_host)]
        bind_host: String,
        /// The host name the scheduler and clients reach this executor by (default: the
        /// address the scheduler sees it connect from).
        #[arg(long)]
        external_host: Option<String>,
        /// The Arrow Flight port results and shuffled partitions are fetched from.
        #[arg(long, default_value_t = hindsight::cluster::ExecutorOptions::default().port)]
        port: u16,
        /// The gRPC port (the scheduler's calls to this executor).
        #[arg(long, default_value_t = hindsight::cluster::ExecutorOptions::default().grpc_port)]
        grpc_port: u16,
        /// Where shuffle files are written (default: a temporary directory).
        #[arg(long, value_name = "DIR")]
        work_dir: Option<PathBuf>,
        /// Tasks run at once (0: one a core).
        #[arg(long, default_value_t = 0, value_name = "N")]
        concurrency: usize,
        /// Seconds between the heartbeats that tell the scheduler this executor is alive.
        #[arg(long, value_name = "SECONDS", default_value_t = hindsight::cluster::ExecutorOptions::default().heartbeat_interval)]
        heartbeat_interval: u64,
    },
}

#[cfg(feature = "cluster")]
impl ClusterRole {
    fn into_task(self) -> Result<Task> {
        Ok(match self {
            ClusterRole::Scheduler { bind_host, port, external_host, executor_timeout } => {
                if executor_timeout == 0 {
                    return Err(Error::usage("--executor-timeout 0: expected a number of seconds from 1"));
                }
                Task::Scheduler { options: hindsight::cluster::SchedulerOptions { bind_host, port, external_host, executor_timeout } }
            }
            ClusterRole::Executor { scheduler, bind_host, external_host, port, grpc_port, work_dir, concurrency, heartbeat_interval } => {
                if heartbeat_interval == 0 {
                    return Err(Error::usage("--heartbeat-interval 0: expected a number of seconds from 1"));
                }
                Task::Executor {
                    options: hindsight::cluster::ExecutorOptions {
                        scheduler: scheduler.parse()?,
                        bind_host,
                        external_host,
                        port,
                        grpc_port,
                        work_dir,
                        concurrency,
                        heartbeat_interval,
                    },
                }
            }
        })
    }
}

/// `--threads`, taken only by the commands whose work runs on the worker threads: reading
/// and writing Parquet, judging outputs, queries side by side. The others (one query at a
/// time, or no data at all) would ignore it.
#[derive(Args, Debug, Default)]
struct ThreadArgs {
    /// Worker threads (default: all cores). Outputs are identical at any count. Evaluate also
    /// reads captures and writes spilled rows on a thread each beside them (~0.2 of a core).
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
}

#[derive(Args, Debug)]
struct LimitArgs {
    /// Let SQL create, change or drop tables, write files (COPY) and change settings (SET).
    /// Without it, only queries run.
    #[arg(long)]
    allow_write: bool,
    /// Memory a query may use, e.g. 512M or 4G (default: half the machine's memory).
    #[arg(long, value_name = "SIZE")]
    memory_limit: Option<String>,
}

impl LimitArgs {
    fn limits(self) -> Result<hindsight::report::Limits> {
        Ok(hindsight::report::Limits {
            allow_write: self.allow_write,
            memory: match self.memory_limit {
                Some(m) => hindsight::report::parse_size(&m)?,
                None => hindsight::report::default_memory_limit(),
            },
        })
    }
}

/// Where the SQL shell keeps its history: $HINDSIGHT_HISTORY, else ~/.hindsight_history.
fn history_file() -> Option<PathBuf> {
    if let Some(h) = std::env::var_os("HINDSIGHT_HISTORY") {
        return Some(PathBuf::from(h));
    }
    std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".hindsight_history"))
}

#[derive(Args, Debug)]
struct EvalArgs {
    /// Windows after each output, comma-separated (`snapshot` is always added).
    #[arg(long, default_value = "1h,24h,7d,30d")]
    windows: String,
    /// Policy file (JSON); see `hindsight policy`.
    #[arg(long)]
    policy: Option<PathBuf>,
    /// Risk policy (JSON; schemas/risk-policy.schema.json): the PR risk level's change-surface
    /// thresholds and security-sensitive path patterns; absent keys keep their defaults. The
    /// thresholds in force are recorded in the dataset's manifest (`risk_policy`).
    #[arg(long, value_name = "FILE")]
    risk_policy: Option<PathBuf>,
    /// Quality policy (JSON; schemas/quality-policy.schema.json): the code-quality findings'
    /// thresholds, blocking severity and the repositories' own rules (forbidden patterns and
    /// paths, required headers), globally and per repository; absent keys keep their
    /// defaults. The policy in force is recorded in the dataset's manifest (`quality_policy`).
    #[arg(long, value_name = "FILE")]
    quality_policy: Option<PathBuf>,
}

/// How much of a query's result is printed, and whether it is timed.
#[derive(Args, Debug)]
struct RowArgs {
    /// Rows a result shows (0: all). Default: a preview of 40 for table (and markdown on a
    /// terminal), with the row count under it; every row for csv, json, ndjson and html.
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    max_rows: Option<String>,
    /// Decimals shown of floating-point numbers in table and markdown output (17: every
    /// digit); JSON, NDJSON and CSV keep every digit the query computed.
    #[arg(long, value_name = "N", default_value_t = 4, value_parser = clap::value_parser!(u32).range(0..=17))]
    digits: u32,
    /// Print each statement's elapsed time (stderr for csv, json and ndjson).
    #[arg(long)]
    timer: bool,
}

impl RowArgs {
    fn display(self, format: Format, limits: &hindsight::report::Limits) -> Result<hindsight::report::print::Display> {
        use std::io::IsTerminal;
        Ok(hindsight::report::print::Display {
            format,
            max_rows: self.max_rows.as_deref().map(hindsight::report::print::MaxRows::parse).transpose()?,
            timer: self.timer,
            terminal: std::io::stdout().is_terminal(),
            memory: limits.memory,
            digits: self.digits,
        })
    }
}

/// Threads allowed on any machine; more only on machines with over a quarter as many cores.
const MAX_THREADS: usize = 256;

/// The command line, parsed; on a mistake clap's message, with a "did you mean" wherever a
/// command or flag is a typo away from one (clap's own threshold misses `rnu` and `--ouput`).
pub(crate) fn parse() -> Cli {
    match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => suggest(e, std::env::args().skip(1)).exit(),
    }
}

fn suggest(mut e: clap::Error, args: impl Iterator<Item = String>) -> clap::Error {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    let cmd = Cli::command();
    let bad = |e: &clap::Error, kind| match e.get(kind) {
        Some(ContextValue::String(s)) => Some(s.clone()),
        _ => None,
    };
    match e.kind() {
        ErrorKind::InvalidSubcommand if e.get(ContextKind::SuggestedSubcommand).is_none() => {
            let names: Vec<String> = cmd.get_subcommands().map(|c| c.get_name().to_string()).collect();
            if let Some(c) = bad(&e, ContextKind::InvalidSubcommand).and_then(|b| hindsight::text::closest(&b, names.iter().map(String::as_str)).map(str::to_string)) {
                e.insert(ContextKind::SuggestedSubcommand, ContextValue::String(c));
            }
        }
        ErrorKind::UnknownArgument if e.get(ContextKind::SuggestedArg).is_none() => {
            // The flags of the subcommand given (the first word that names one) and the global ones.
            let args: Vec<String> = args.collect();
            let sub = args.iter().find_map(|a| cmd.find_subcommand(a));
            let flags: Vec<String> = cmd
                .get_arguments()
                .chain(sub.into_iter().flat_map(|s| s.get_arguments()))
                .filter_map(|a| a.get_long().map(|l| format!("--{l}")))
                .collect();
            if let Some(c) = bad(&e, ContextKind::InvalidArg).and_then(|b| {
                let flag = b.split('=').next().unwrap_or(&b).to_string();
                hindsight::text::closest(&flag, flags.iter().map(String::as_str)).map(str::to_string)
            }) {
                e.insert(ContextKind::SuggestedArg, ContextValue::String(c));
            }
        }
        _ => {}
    }
    e
}

/// `report --query`: any text (a bundled query's name or a .sql file, checked when the
/// configuration is made), offering the bundled names to shell completion.
#[derive(Clone)]
struct QueryName;

impl clap::builder::TypedValueParser for QueryName {
    type Value = String;

    fn parse_ref(&self, cmd: &clap::Command, arg: Option<&clap::Arg>, value: &std::ffi::OsStr) -> std::result::Result<String, clap::Error> {
        clap::builder::StringValueParser::new().parse_ref(cmd, arg, value)
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        Some(Box::new(hindsight::report::CATALOGUE.iter().map(|q| clap::builder::PossibleValue::new(q.name))))
    }
}

/// `report --query`'s help: every bundled query by name.
fn query_help() -> String {
    let names: Vec<&str> = hindsight::report::CATALOGUE.iter().map(|q| q.name).collect();
    format!("A bundled query ({}; see docs/REPORT.md) or a .sql file", names.join(", "))
}

fn study(i: Inputs) -> Option<Study> {
    match (i.snapshot, i.runs) {
        (Some(snapshot), Some(runs)) => Some(Study { snapshot, runs, traces: i.traces, tasks: i.tasks, task_policy: i.task_policy }),
        _ => None,
    }
}

fn policy(p: Option<PathBuf>) -> Result<Policy> {
    Ok(p.map(|p| Policy::load(&p)).transpose()?.unwrap_or_default())
}

fn risk_policy(p: Option<PathBuf>) -> Result<RiskPolicy> {
    Ok(p.map(|p| RiskPolicy::load(&p)).transpose()?.unwrap_or_default())
}

fn quality_policy(p: Option<PathBuf>) -> Result<QualityPolicy> {
    Ok(p.map(|p| QualityPolicy::load(&p)).transpose()?.unwrap_or_default())
}

impl Cli {
    /// The command line checked: every value parsed and every file it names for the work
    /// (policies) read, before any work starts.
    pub fn into_config(self) -> Result<Config> {
        let threads = self.command.threads();
        check_threads(threads)?;
        Ok(Config { quiet: self.quiet, threads, task: self.command.into_task()? })
    }
}

/// `--threads`: at least one, and no more than the machine can start.
fn check_threads(threads: Option<usize>) -> Result<()> {
    if let Some(n) = threads {
        // Thousands of threads only cost memory and start-up (10000 aborted after minutes).
        let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
        let most = MAX_THREADS.max(4 * cores);
        if n == 0 || n > most {
            return Err(Error::usage(format!("--threads {n}: expected 1 to {most} (this machine has {cores} cores)")));
        }
    }
    Ok(())
}

impl EvalArgs {
    /// The windows parsed and the policy files read.
    fn read(self) -> Result<Settings> {
        Ok(Settings {
            windows: window::parse_list(&self.windows)?,
            policy: policy(self.policy)?,
            risk_policy: risk_policy(self.risk_policy)?,
            quality_policy: quality_policy(self.quality_policy)?,
        })
    }
}

impl Command {
    /// `--threads` of a command that takes it ([`ThreadArgs`]).
    fn threads(&self) -> Option<usize> {
        let given = match self {
            Command::Run { threads, .. }
            | Command::Convert { threads, .. }
            | Command::Evaluate { threads, .. }
            | Command::Report { threads, .. }
            | Command::Attach { threads, .. }
            | Command::Check { threads, .. }
            | Command::Diff { threads, .. }
            | Command::Package { threads, .. }
            | Command::Verify { threads, .. }
            | Command::Capture { threads, .. }
            | Command::Gate { threads, .. }
            | Command::Import { source: ImportSource::Aidev { threads, .. } } => threads,
            _ => return None,
        };
        given.threads
    }

    /// The command as a task, its arguments checked.
    fn into_task(self) -> Result<Task> {
        Ok(match self {
            Command::Run { inputs, out, eval, format, wide, force, engine, .. } => run_task(inputs, out, eval, format, wide, force, engine)?,
            Command::Convert { inputs, out, force, .. } => Task::Convert {
                study: study(inputs).ok_or_else(|| Error::usage("convert needs --snapshot DIR and --runs DIR"))?,
                out: replacing(out, DatasetKind::Study, force)?,
            },
            Command::Evaluate { dataset, eval, engine, .. } => evaluate_task(dataset, eval, engine)?,
            Command::Report { dataset, query, sql, format, section, wide, cluster_by, figure, chart, series, labels, title, figures, look, rows, limits, engine, plan, .. } => {
                let name = query.clone().unwrap_or_else(|| "sql".into());
                let (style, encoding) = look.read(figure.as_deref(), figures.is_some())?;
                let figure = figure.map(|f| Ok::<_, Error>((f, name, figure_spec(chart.unwrap_or_default(), series, labels, title, style)?))).transpose()?;
                let mut task = report_task(dataset_anywhere(dataset)?, query, sql, format, figures, rows, limits, engine)?;
                if let Task::Report { plan: p, view, figure: f, figure_look, .. } = &mut task {
                    *p = plan;
                    *view = hindsight::report::View { fit: dashboard_fit(wide), sections: section, cluster_by: cluster_by.into(), ..Default::default() };
                    *f = figure;
                    *figure_look = (style, encoding);
                }
                task
            }
            Command::Sql { dataset, file, format, rows, limits, engine } => sql_task(dataset_anywhere(dataset)?, file, format, rows, limits, engine)?,
            #[cfg(feature = "cluster")]
            Command::Cluster { role } => role.into_task()?,
            Command::Rules { format } => Task::Rules { json: rules_json(&format)? },
            Command::Completions { shell } => Task::Completions { shell, cli: Cli::command() },
            Command::Describe { table, dataset, markdown, format } => {
                if dataset.is_some() && table.is_none() {
                    return Err(Error::usage("describe --dataset needs a TABLE (`hindsight sql --dataset DS` then \\d lists them)"));
                }
                Task::Describe { table, dataset: dataset.map(|d| here(d, "--dataset")).transpose()?, markdown, format }
            }
            Command::Man { dir } => Task::Man { dir, cli: Cli::command() },
            Command::Explain { output, dataset, format } => Task::Explain { output, dataset: dataset_or_default(dataset)?, format },
            Command::Views { dataset, dialect, absolute } => Task::Views { dataset: dataset_or_default(dataset)?, dialect, absolute },
            Command::Policy { policy: p } => Task::Policy { policy: policy(p)? },
            // The format first: a usage error is said before the policy file is read.
            Command::Gate { results, policy: p, format, dataset, .. } => {
                let format = format.parse()?;
                Task::Gate { results, policy: hindsight::gate::Policy::load(&p)?, format, dataset: dataset.map(|d| here(d, "--dataset")).transpose()? }
            }
            Command::Check { dataset, expected, exact, tolerance, .. } => {
                if !(tolerance >= 0.0 && tolerance.is_finite()) {
                    return Err(Error::usage("--tolerance must be a number >= 0"));
                }
                Task::Check { dataset: dataset_anywhere(dataset)?, expected, precision: hindsight::report::check::Precision { exact, tolerance } }
            }
            Command::Capture { runs, plan: true, snapshot, .. } => Task::Plan { runs, snapshot },
            Command::Capture { runs, out, api_url, concurrency, refresh, max_pages, retry_base_ms, .. } => {
                Task::Capture { options: capture_options(runs, out, api_url, concurrency, refresh, max_pages, retry_base_ms)? }
            }
            Command::Import { source } => import_task(source)?,
            Command::Export { dataset, sqlite, insights, otlp, window, force } => Task::Export { dataset: dataset_or_default(dataset)?, to: match (sqlite, insights, otlp) {
                (_, Some(file), _) => hindsight::commands::ExportTo::Insights(file),
                (_, _, Some(file)) => hindsight::commands::ExportTo::Otlp { file, window: window.unwrap_or_default() },
                (Some(file), None, None) => hindsight::commands::ExportTo::Sqlite(file),
                (None, None, None) => return Err(hindsight::Error::usage("export: give --sqlite FILE, --insights FILE or --otlp FILE").into()),
            }, force },
            Command::Verify { dataset, inputs, .. } => Task::Verify { dataset: dataset_or_default(dataset)?, study: study(inputs) },
            Command::Diff { a, b, format, expected, .. } => Task::Diff { a, b, format, expected },
            Command::Package { dataset, out, authors, title, description, license, plan, .. } => {
                Task::Package { dataset: dataset_or_default(dataset)?, out, options: hindsight::package::Options { title, authors, license, description, plan } }
            }
            Command::Plan { action: PlanAction::Lock { out, eval } } => Task::LockPlan { out, settings: eval.read()? },
            Command::Plan { action: PlanAction::Check { plan, dataset } } => Task::CheckPlan { plan, dataset: dataset_anywhere(dataset)? },
            Command::Synth { repos, outputs, seed, out, aidev, prs, compact } => synth_task(repos, outputs, seed, out, aidev, prs, compact)?,
            Command::Attach { dataset, out, window, rebuild_attribution, force, .. } => {
                Task::Attach { dataset: dataset_or_default(dataset)?, out, options: hindsight::attach::Options { window: window.parse()?, rebuild_attribution, force } }
            }
        })
    }
}

/// `synth`: a synthetic study, or with --aidev an AIDev release, its size checked.
/// `import aidev`: the release options, and the output checked before any reading.
fn import_task(source: ImportSource) -> Result<Task> {
    use hindsight::aidev::release::{Options, Release, Subset};
    let ImportSource::Aidev { dir, out, eval, captured_at, release, revision, subset, force, .. } = source;
    let release = release.map(Release::from);
    let subset = subset.map(|s| match s {
        AidevSubset::Pop => Subset::Pop,
        AidevSubset::All => Subset::All,
    });
    let release = Options { release, revision, subset };
    let out = replacing(out, DatasetKind::Aidev, force)?;
    Ok(Task::ImportAidev { dir, out, settings: eval.read()?, captured_at: captured_at.map(|t| capture_time(&t)).transpose()?, release })
}

/// `report --figure`'s drawing: the series, the label file read, the caption, the style.
fn figure_spec(chart: hindsight::report::charts::ChartKind, series: Vec<String>, labels: Option<PathBuf>, title: Option<String>, style: hindsight::report::charts::Style) -> Result<hindsight::report::charts::FigureSpec> {
    let labels = match labels {
        None => Default::default(),
        Some(p) => {
            let text = std::fs::read_to_string(&p).map_err(|e| Error::usage(format!("--labels {}: {e}", p.display())))?;
            serde_json::from_str(&text).map_err(|e| Error::usage(format!("--labels {}: expected a JSON object of strings ({e})", p.display())))?
        }
    };
    Ok(hindsight::report::charts::FigureSpec { chart, series, labels, title, style })
}

/// How figures look and are written (`report --figure FILE`, `report --figures DIR`).
#[derive(Args, Debug)]
struct FigureArgs {
    /// With --figure or --figures: shares (rates, intervals, the outcome mix) in percent,
    /// 0-100, rather than 0-1, the default of every figure, the dashboard's and a query's.
    #[arg(long)]
    percent: bool,
    /// With --figure or --figures: the figure's width, in px (SVG), points (PDF) or px
    /// times --scale (PNG); its height follows from what it shows. Default 860.
    #[arg(long, value_name = "PX", value_parser = clap::value_parser!(u32).range(300..=4000))]
    width: Option<u32>,
    /// With --figure or --figures: the size of the labels' text (ticks, legend and values
    /// in proportion, bars and spacing with it). Default 12.
    #[arg(long, value_name = "PT", value_parser = clap::value_parser!(u32).range(6..=32))]
    font_size: Option<u32>,
    /// PNG figures: pixels per px of the figure (default 2: sharp on screens and in print).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=8))]
    scale: Option<u32>,
    /// With --figures: the files' format (with --figure, FILE's name says it).
    #[arg(long, value_enum, value_name = "FORMAT", requires = "figures")]
    figure_format: Option<hindsight::report::charts::FigureFormat>,
}

impl FigureArgs {
    /// The figures' style and encoding; a usage error when there is no figure to shape or
    /// --scale is given for a figure that is not a PNG.
    fn read(self, figure: Option<&std::path::Path>, figures: bool) -> Result<(hindsight::report::charts::Style, hindsight::report::charts::Encoding)> {
        use hindsight::report::charts::{Encoding, FigureFormat, Style};
        let shaped = self.percent || self.width.is_some() || self.font_size.is_some() || self.scale.is_some();
        if shaped && figure.is_none() && !figures {
            return Err(Error::usage("--percent, --width, --font-size and --scale shape figures: give --figure FILE or --figures DIR"));
        }
        let format = match figure {
            Some(_) if self.figure_format.is_some() => {
                return Err(Error::usage("--figure-format is for --figures DIR: --figure FILE's name says its format (.svg, .png, .pdf)"));
            }
            Some(file) => FigureFormat::of_path(file)?,
            None => self.figure_format.unwrap_or_default(),
        };
        if self.scale.is_some() && format != FigureFormat::Png {
            return Err(Error::usage(format!("--scale sets a PNG's pixels; this figure is written as {}", format.extension().to_uppercase())));
        }
        let base = Style::default();
        let style = Style { width: self.width.map_or(base.width, f64::from), font_size: self.font_size.map_or(base.font_size, f64::from), percent: self.percent };
        Ok((style, Encoding { format, scale: self.scale.map_or(Encoding::default().scale, f64::from) }))
    }
}

/// The folder, under the system's temporary folder, where a dataset in an object store is
/// made or changed before it is uploaded (`commands::Staging` removes it).
fn upload_folder() -> PathBuf {
    std::env::temp_dir().join(hindsight::report::location::fresh_name("hindsight-upload")).join("ds")
}

/// `evaluate`: the dataset judged. An object store's URL: copied into a folder of its own
/// under the system's temporary folder, evaluated there (on a cluster, its executors read
/// the captures in the object store), and written back as a new version.
fn evaluate_task(dataset: Option<PathBuf>, eval: EvalArgs, engine: EngineArgs) -> Result<Task> {
    let (dataset, upload) = match dataset {
        Some(d) if hindsight::report::location::is_url(&d) => match DatasetLocation::parse(&d)? {
            DatasetLocation::ObjectStore(url) => (upload_folder(), Some(url)),
            DatasetLocation::Local(d) => (d, None),
        },
        given => (dataset_or_default(given)?, None),
    };
    Ok(Task::Evaluate { dataset, upload, settings: eval.read()?, engine: engine.engine()? })
}

/// `run`: where the dataset goes. An object store's URL: written into a folder of its own
/// under the system's temporary folder, uploaded from there, and removed.
fn run_task(inputs: Inputs, out: PathBuf, eval: EvalArgs, format: Format, wide: bool, force: bool, engine: EngineArgs) -> Result<Task> {
    let (out, upload) = match DatasetLocation::parse(&out)? {
        DatasetLocation::ObjectStore(url) => (upload_folder(), Some(url)),
        DatasetLocation::Local(out) => (replacing(out, DatasetKind::Study, force)?, None),
    };
    let engine = engine.engine()?;
    if upload.is_some() && engine != hindsight::report::Engine::Local {
        return Err(Error::usage(
            "run --out s3://... with --cluster: the dataset is made in a temporary folder here, which the executors do not see; run --out s3://... here, then evaluate --dataset s3://... --cluster",
        ));
    }
    Ok(Task::Run {
        study: study(inputs),
        out,
        upload,
        settings: eval.read()?,
        format,
        view: hindsight::report::View { fit: dashboard_fit(wide), ..Default::default() },
        engine,
    })
}

/// `--out`, once it is clear it does not replace a dataset of another kind (unless `force`).
fn replacing(out: PathBuf, kind: DatasetKind, force: bool) -> Result<PathBuf> {
    let out = here(out, "--out")?;
    hindsight::pipeline::check_replaces(&out, kind, force)?;
    Ok(out)
}

fn synth_task(repos: u64, outputs: u64, seed: u64, out: PathBuf, aidev: Option<AidevRelease>, prs: Option<u64>, compact: bool) -> Result<Task> {
    if let Some(release) = aidev {
        // clap requires --prs with --aidev.
        let prs = prs.ok_or_else(|| Error::usage("synth --aidev needs --prs N"))?;
        let spec = hindsight::synth::aidev::Spec { release: release.into(), prs, seed };
        spec.validate()?;
        return Ok(Task::SynthAidev { spec, out });
    }
    let spec = hindsight::synth::Spec { repos, outputs, seed, compact };
    spec.validate()?;
    Ok(Task::Synth { spec, out })
}

/// `report`: the limits, the statement (a bundled query's text, a .sql file's, or --sql)
/// and how its result is printed.
#[allow(clippy::too_many_arguments)]
fn report_task(
    dataset: DatasetLocation,
    query: Option<String>,
    sql: Option<String>,
    format: Format,
    figures: Option<PathBuf>,
    rows: RowArgs,
    limits: LimitArgs,
    engine: EngineArgs,
) -> Result<Task> {
    let limits = limits.limits()?;
    let engine = engine.engine()?;
    let sql = match (query, sql) {
        (Some(q), _) => Some(hindsight::report::query_text(&q)?),
        (None, s) => s,
    };
    Ok(Task::Report { dataset, figures, sql, display: rows.display(format, &limits)?, limits, engine, plan: None, view: Default::default(), figure: None, figure_look: Default::default() })
}

/// `sql`: where the statements come from (a file, the terminal with its history, or
/// standard input) and how results are printed; html is a report's format, not the shell's.
fn sql_task(dataset: DatasetLocation, file: Option<PathBuf>, format: Format, rows: RowArgs, limits: LimitArgs, engine: EngineArgs) -> Result<Task> {
    use hindsight::report::shell::Source;
    use std::io::IsTerminal;
    if format == Format::Html {
        return Err(Error::usage("sql --format html: expected table, json, ndjson, csv or markdown (html is a report's format)"));
    }
    let limits = limits.limits()?;
    let engine = engine.engine()?;
    let source = match file {
        Some(f) => Source::File(f),
        None if std::io::stdin().is_terminal() => Source::Terminal { history: history_file() },
        None => Source::Stdin,
    };
    Ok(Task::Sql { dataset, source, display: rows.display(format, &limits)?, limits, engine })
}

/// Where `hindsight run` writes its dataset by default.
const DEFAULT_DATASET: &str = "hindsight-out";

/// `--dataset`, or ./hindsight-out when it is a dataset (said on stderr, so a figure is never
/// read from a dataset the user did not name without a word).
fn dataset_or_default(given: Option<PathBuf>) -> Result<PathBuf> {
    if let Some(d) = given {
        return here(d, "--dataset");
    }
    let d = PathBuf::from(DEFAULT_DATASET);
    if d.join("manifest.json").is_file() {
        eprintln!("hindsight: reading the dataset in ./{DEFAULT_DATASET} (what `hindsight run` wrote here); --dataset DIR reads another");
        return Ok(d);
    }
    Err(Error::usage(format!("--dataset DIR is needed: no dataset in ./{DEFAULT_DATASET} here (`hindsight run` writes one there)")))
}

/// `--dataset` for a command that reads a dataset wherever it is (`sql`, `report`,
/// `check`, `plan check`): an object store's URL, else [`dataset_or_default`].
fn dataset_anywhere(given: Option<PathBuf>) -> Result<DatasetLocation> {
    match given {
        Some(d) if hindsight::report::location::is_url(&d) => Ok(DatasetLocation::parse(&d)?),
        given => Ok(dataset_or_default(given)?.into()),
    }
}

/// A path given to `option` of a command that reads or writes a dataset on this machine
/// only: a URL is refused, rather than taken for a folder named `s3:`.
fn here(given: PathBuf, option: &str) -> Result<PathBuf> {
    if hindsight::report::location::is_url(&given) {
        return Err(Error::usage(format!(
            "{option} `{}`: this command works on a dataset on this machine; `sql`, `report`, `check` and `plan check` read one in an object store (s3://BUCKET/PREFIX), `run --out` writes one, `evaluate` changes one",
            given.display()
        )));
    }
    Ok(given)
}

/// How wide the terminal dashboard is: `COLUMNS` when set, else the terminal's width, else
/// unbounded (output that is not a terminal, or `--wide`, keeps each section one table).
fn dashboard_fit(wide: bool) -> hindsight::report::terminal::Fit {
    if wide {
        return Default::default();
    }
    let env = std::env::var("COLUMNS").ok().and_then(|c| c.trim().parse::<usize>().ok()).filter(|w| *w > 0);
    hindsight::report::terminal::Fit { width: env.or_else(terminal_columns) }
}

/// The columns of the terminal standard output is, if it is one.
#[cfg(unix)]
fn terminal_columns() -> Option<usize> {
    use std::io::IsTerminal;
    if !std::io::stdout().is_terminal() {
        return None;
    }
    let mut size = libc::winsize { ws_row: 0, ws_col: 0, ws_xpixel: 0, ws_ypixel: 0 };
    // SAFETY: TIOCGWINSZ fills the winsize it is given and touches nothing else.
    let r = unsafe { libc::ioctl(libc::STDOUT_FILENO, libc::TIOCGWINSZ, &mut size) };
    (r == 0 && size.ws_col > 0).then_some(usize::from(size.ws_col))
}

#[cfg(not(unix))]
fn terminal_columns() -> Option<usize> {
    None
}

/// `rules --format`: json, or markdown.
fn rules_json(format: &str) -> Result<bool> {
    match format {
        "json" => Ok(true),
        "markdown" | "md" => Ok(false),
        other => Err(Error::usage(format!("rules --format `{other}`: expected markdown or json"))),
    }
}

/// `capture`: the requests' bounds and the API checked, the snapshot directory required.
fn capture_options(
    runs: PathBuf,
    out: Option<PathBuf>,
    api_url: String,
    concurrency: usize,
    refresh: bool,
    max_pages: usize,
    retry_base_ms: u64,
) -> Result<hindsight::capture::Options> {
    if !(1..=64).contains(&concurrency) {
        return Err(Error::usage(format!("--concurrency {concurrency}: expected 1 to 64")));
    }
    hindsight::capture::http::check_api_url(&api_url)?;
    let out = out.ok_or_else(|| Error::usage("capture needs --out DIR (or --plan)"))?;
    Ok(hindsight::capture::Options {
        runs,
        out,
        api_url,
        concurrency,
        refresh,
        max_pages: max_pages.max(1),
        retry: hindsight::capture::http::Retry { base: std::time::Duration::from_millis(retry_base_ms), ..Default::default() },
    })
}

/// `import aidev --captured-at`: an RFC 3339 time.
fn capture_time(t: &str) -> Result<hindsight::time::Instant> {
    hindsight::time::parse(t).ok_or_else(|| Error::usage(format!("--captured-at `{t}`: expected an RFC 3339 time such as 2025-07-31T00:00:00Z")))
}
