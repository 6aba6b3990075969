//! The commands: each one's work on its validated configuration ([`Config`], which the
//! command line makes), and what it says on stderr. [`execute`] runs one and answers how it
//! ended; the binary turns that (or an error) into the exit code.

use std::path::{Path, PathBuf};

use crate::evaluate::Settings;
use crate::demo::DemoStudy;
use crate::{Error, Result};
use crate::evaluate::Policy;
use crate::output;
use crate::pipeline::{self, Converted, Study};
use crate::progress::Progress;
use crate::report::{self, Format};
use crate::text::printable;

/// Validated configuration: what to do, and how much to say about it.
pub struct Config {
    pub quiet: bool,
    pub threads: Option<usize>,
    pub task: Task,
}

/// A command with its arguments checked.
pub enum Task {
    Run {
        study: Option<Study>,
        out: PathBuf,
        /// Where the dataset written at `out`, a temporary folder then, is uploaded.
        upload: Option<report::ObjectUrl>,
        settings: Settings,
        format: Format,
        /// The dashboard's width on a terminal.
        view: report::View,
        /// Where the evaluation and the dashboard's queries run.
        engine: report::Engine,
    },
    Convert {
        study: Study,
        out: PathBuf,
    },
    Evaluate {
        dataset: PathBuf,
        /// Where the dataset at `dataset`, a temporary folder then, was downloaded from and
        /// is written back to.
        upload: Option<report::ObjectUrl>,
        settings: Settings,
        /// Where the outputs are judged.
        engine: report::Engine,
    },
    Report {
        dataset: report::DatasetLocation,
        figures: Option<PathBuf>,
        sql: Option<String>,
        display: report::print::Display,
        limits: report::Limits,
        engine: report::Engine,
        plan: Option<PathBuf>,
        /// The dashboard's sections shown and its width on a terminal.
        view: report::View,
        /// `--figure FILE`: the statement's result drawn there (with the query's name, and
        /// how), not printed.
        figure: Option<(PathBuf, String, report::charts::FigureSpec)>,
        /// Figures' style, and how they are written (format, PNG's scale).
        figure_look: (report::charts::Style, report::charts::Encoding),
    },
    Sql {
        dataset: report::DatasetLocation,
        source: report::shell::Source,
        display: report::print::Display,
        limits: report::Limits,
        engine: report::Engine,
    },
    /// `hindsight cluster scheduler`.
    #[cfg(feature = "cluster")]
    Scheduler {
        options: crate::cluster::SchedulerOptions,
    },
    /// `hindsight cluster executor`.
    #[cfg(feature = "cluster")]
    Executor {
        options: crate::cluster::ExecutorOptions,
    },
    Rules {
        json: bool,
    },
    /// `cli` is the command line's definition, which the script completes.
    Completions {
        shell: clap_complete::Shell,
        cli: clap::Command,
    },
    Explain {
        output: String,
        dataset: PathBuf,
        format: Format,
    },
    Describe {
        table: Option<String>,
        dataset: Option<PathBuf>,
        markdown: bool,
        format: Format,
    },
    /// `cli` is the command line's definition, which the pages describe.
    Man {
        dir: Option<PathBuf>,
        cli: clap::Command,
    },
    Views {
        dataset: PathBuf,
        dialect: report::views::Dialect,
        absolute: bool,
    },
    Policy {
        policy: Policy,
    },
    Check {
        dataset: report::DatasetLocation,
        expected: PathBuf,
        precision: report::check::Precision,
    },
    Attach {
        dataset: PathBuf,
        out: Option<PathBuf>,
        options: crate::attach::Options,
    },
    Synth {
        spec: crate::synth::Spec,
        out: PathBuf,
    },
    SynthAidev {
        spec: crate::synth::aidev::Spec,
        out: PathBuf,
    },
    Diff {
        a: PathBuf,
        b: PathBuf,
        format: DiffFormat,
        expected: Vec<PathBuf>,
    },
    Package {
        dataset: PathBuf,
        out: PathBuf,
        options: crate::package::Options,
    },
    LockPlan {
        out: PathBuf,
        settings: Settings,
    },
    CheckPlan {
        plan: PathBuf,
        dataset: report::DatasetLocation,
    },
    Export {
        dataset: PathBuf,
        to: ExportTo,
        force: bool,
    },
    Verify {
        dataset: PathBuf,
        study: Option<Study>,
    },
    Capture {
        options: crate::capture::Options,
    },
    Plan {
        runs: PathBuf,
        snapshot: Option<PathBuf>,
    },
    ImportAidev {
        dir: PathBuf,
        out: PathBuf,
        settings: Settings,
        captured_at: Option<crate::time::Instant>,
        release: crate::aidev::release::Options,
    },
    Gate {
        results: PathBuf,
        policy: crate::gate::Policy,
        format: crate::gate::Format,
        dataset: Option<PathBuf>,
    },
}

impl Task {
    /// The dataset directory the task writes (staged, swapped in when complete).
    pub(crate) fn writes(&self) -> Option<&Path> {
        match self {
            Task::Run { out, .. } | Task::Convert { out, .. } | Task::ImportAidev { out, .. } => Some(out),
            Task::Evaluate { dataset, .. } | Task::Attach { dataset, .. } => Some(dataset),
            Task::Gate { dataset, .. } => dataset.as_deref(),
            _ => None,
        }
    }
}

/// How a command that did not fail ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    Success,
    /// It ran, and found what a script must not take for success: figures that differ from
    /// the published ones (`check`), drift from the manifest (`verify`), requests that failed
    /// (`capture`).
    Failure,
}

/// Run the configured command: progress and summaries on stderr unless quiet, results on
/// stdout.
pub fn execute(config: Config) -> Result<Status> {
    let quiet = config.quiet;
    let progress = Progress::new(quiet);
    // What an interrupt leaves behind is said, for every command that writes a dataset.
    if let Some(out) = config.task.writes() {
        crate::interrupt::on_interrupt(crate::interrupt::message(out));
    }
    match config.task {
        Task::Run { study, out, upload, settings, format, view, engine } => run(study, (&out, upload.as_ref()), &settings, format, &view, &engine, quiet, &progress)?,
        Task::Convert { study, out } => {
            let c = pipeline::convert(&study, &out, &progress)?;
            summarize(&c, &out, quiet, false);
        }
        Task::Evaluate { dataset, upload, settings, engine } => {
            let (n, to) = match upload {
                None => (pipeline::evaluate(&dataset, &settings, &engine, &progress)?, dataset.join("outcomes.parquet").display().to_string()),
                Some(url) => evaluate_there(&dataset, &url, &settings, &engine, &progress)?,
            };
            say(quiet, &format!("evaluated: {n} outcomes -> {to}"));
        }
        Task::Report { dataset, figures, sql, display, limits, engine, plan, view, figure, figure_look } => {
            if let Some(plan) = plan {
                eprint!("{}", plan_verdict(&plan, &dataset)?);
            }
            match (figure, sql) {
                (Some((file, name, spec)), Some(sql)) => draw(&dataset, &sql, (&file, figure_look.1), &name, &spec, limits, &engine)?,
                (Some(_), None) => return Err(Error::usage("--figure draws the result of --query or --sql (the dashboard's charts: --figures DIR)")),
                (None, sql) => report(&dataset, figures.as_deref().map(|d| (d, figure_look)), sql, display, limits, &engine, &view)?,
            }
        }
        Task::Sql { dataset, source, display, limits, engine } => {
            let session = report::Session::open_at(&dataset, limits, &engine)?;
            report::shell::run(&session, source, display)?;
        }
        #[cfg(feature = "cluster")]
        Task::Scheduler { options } => crate::cluster::scheduler(&options, quiet)?,
        #[cfg(feature = "cluster")]
        Task::Executor { options } => crate::cluster::executor(&options, quiet)?,
        Task::Views { dataset, dialect, absolute } => views(&dataset, dialect, absolute)?,
        Task::Describe { table, dataset, markdown, format } => describe(table, dataset, markdown, format)?,
        Task::Explain { output: id, dataset, format } => output::print(&crate::explain::explain(&dataset, &id, format)?)?,
        Task::Completions { shell, mut cli } => {
            let mut out = Vec::new();
            clap_complete::generate(shell, &mut cli, "hindsight", &mut out);
            output::print(&String::from_utf8_lossy(&out))?;
        }
        Task::Man { dir, cli } => man(dir.as_deref(), cli)?,
        Task::Rules { json } => output::print(&crate::evaluate::catalogue::render(json))?,
        Task::Policy { policy } => output::print(&(serde_json::to_string_pretty(&policy.to_json())? + "\n"))?,
        Task::Check { dataset, expected, precision } => return check(&dataset, &expected, precision),
        Task::Plan { runs, snapshot } => {
            let plan = crate::capture::plan(&runs, snapshot.as_deref())?;
            output::print(&crate::capture::render_plan(&plan))?;
        }
        Task::Capture { options } => return capture(&options, quiet, &progress),
        Task::ImportAidev { dir, out, settings, captured_at, release } => {
            let i = pipeline::import_aidev(&dir, &out, &settings, captured_at, &release, &progress)?;
            if !quiet {
                summarize_import(&i, &out);
            }
        }
        Task::Synth { spec, out } => synth(&spec, &out, quiet)?,
        Task::SynthAidev { spec, out } => synth_aidev(&spec, &out, quiet)?,
        Task::Attach { dataset, out, options } => {
            let a = pipeline::attach(&dataset, out.as_deref(), &options, &progress)?;
            let to = if a.out == std::path::Path::new("-") { "standard output".to_string() } else { a.out.display().to_string() };
            say(quiet, &format!("attached: {} traces, {} linked -> {to}", a.traces, a.linked));
        }
        Task::Gate { results, policy, format, dataset } => gate(&results, &policy, format, dataset.as_deref(), quiet, &progress)?,
        Task::Export { dataset, to, force } => export(&dataset, &to, force, quiet)?,
        Task::Verify { dataset, study } => return verify(&dataset, study.as_ref()),
        Task::Diff { a, b, format, expected } => return diff(&a, &b, format, &expected),
        Task::LockPlan { out, settings } => output::print(&format!("{}  {}\n", crate::plan::Plan::of(&settings).lock(&out)?, out.display()))?,
        Task::CheckPlan { plan, dataset } => return check_plan(&plan, &dataset),
        Task::Package { dataset, out, options } => package(&dataset, &out, &options, quiet)?,
    }
    Ok(Status::Success)
}

/// `line` on stderr, unless `quiet`.
fn say(quiet: bool, line: &str) {
    if !quiet {
        eprintln!("{line}");
    }
}

/// The temporary folder a dataset is written into before it is uploaded: removed when
/// dropped, the upload done or not.
struct Staging(PathBuf);

impl Staging {
    /// The folder holding `out`.
    fn make(out: &Path) -> Result<Staging> {
        let dir = out.parent().unwrap_or(out).to_path_buf();
        std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
        Ok(Staging(dir))
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// `evaluate` of the dataset at `url`: copied into the temporary folder `dir`, evaluated
/// there, and written back as a new version (the tables evaluate left as they were copied
/// inside the object store), the manifest switched last and only if no other command
/// switched it meanwhile. On a cluster, the tables only its executors read (the captures)
/// are not copied: they read their share where it is. Returns the number of outcome rows
/// and where they are.
fn evaluate_there(dir: &Path, url: &report::ObjectUrl, settings: &Settings, engine: &report::Engine, progress: &Progress) -> Result<(usize, String)> {
    let _staging = Staging::make(dir)?;
    let on_cluster = *engine != report::Engine::Local;
    let left: Vec<&str> = crate::evaluate::stage::BAND_READS.iter().filter(|(_, r)| on_cluster && *r == crate::evaluate::stage::BandRead::Repositories).map(|(t, _)| *t).collect();
    let bar = progress.spinner("download", &format!("the dataset at {url}"));
    let base = report::location::download(url, dir, &left)?;
    bar.finish_and_clear();
    let remote = on_cluster.then(|| base.on_cluster(url));
    let n = pipeline::evaluate_copy(dir, remote.as_ref(), settings, engine, progress)?;
    let bar = progress.spinner("upload", &format!("the evaluated dataset to {url}"));
    let under = report::location::upload_over(dir, url, &base)?;
    bar.finish_and_clear();
    Ok((n, format!("{url}/{under}/outcomes.parquet")))
}

/// `run`: convert and evaluate the study (the bundled demo without one), then print the
/// dashboard.
///
/// With `upload`, `out` is a temporary folder, uploaded to the object store before the
/// dashboard is printed (from `out`, the same tables).
#[allow(clippy::too_many_arguments)]
fn run(
    study: Option<Study>,
    (out, upload): (&Path, Option<&report::ObjectUrl>),
    settings: &Settings,
    format: Format,
    view: &report::View,
    engine: &report::Engine,
    quiet: bool,
    progress: &Progress,
) -> Result<()> {
    let _staging = upload.map(|_| Staging::make(out)).transpose()?;
    // The demo's files live as long as `demo`; they are removed when it drops.
    let (study, demo) = match study {
        Some(s) => (s, None),
        None => {
            let d = DemoStudy::extract()?;
            (d.study.clone(), Some(d))
        }
    };
    let c = pipeline::run(&study, out, settings, engine, progress)?;
    match upload {
        None => summarize(&c, out, quiet, demo.is_some()),
        Some(url) => {
            let under = report::location::upload(out, url)?;
            summarize(&c, Path::new(&format!("{url} (tables under {under}/)")), quiet, demo.is_some());
        }
    }
    let view = report::View { coverage: crate::capture::coverage(out)?, ..view.clone() };
    Ok(output::print(&report::dashboard_view(&out.into(), format, report::Limits::default(), engine, &view)?)?)
}

/// Every way the dataset (here or in an object store) departs from the plan: read from its
/// manifest, wherever it is.
fn departures(plan: &Path, dataset: &report::DatasetLocation) -> Result<Vec<String>> {
    Ok(crate::plan::Plan::load(plan)?.deviations(&dataset.manifest()?))
}

/// `report --plan`: how the dataset departs from the plan, said before the report.
fn plan_verdict(plan: &Path, dataset: &report::DatasetLocation) -> Result<String> {
    Ok(crate::plan::verdict(plan, &departures(plan, dataset)?))
}

/// `report`: the dashboard's figures written as files, one statement's result, or the
/// whole dashboard.
fn report(
    dataset: &report::DatasetLocation,
    figures: Option<(&Path, (report::charts::Style, report::charts::Encoding))>,
    sql: Option<String>,
    display: report::print::Display,
    limits: report::Limits,
    engine: &report::Engine,
    view: &report::View,
) -> Result<()> {
    if let Some((dir, (style, encoding))) = figures {
        let (written, notes) = report::write_figures(dataset, dir, limits, engine, &style, encoding)?;
        for note in notes {
            eprintln!("{note}");
        }
        return Ok(output::print(&written.iter().map(|p| format!("{}\n", p.display())).collect::<String>())?);
    }
    match sql {
        None => {
            let view = report::View { coverage: crate::capture::coverage_of(dataset.manifest()?), ..view.clone() };
            Ok(output::print(&report::dashboard_view(dataset, display.format, limits, engine, &view)?)?)
        }
        Some(sql) => report::Session::open_at(dataset, limits, engine)?.print(&sql, display).map(drop),
    }
}

/// `report --figure`: one statement's result drawn as a standalone file (SVG, PNG or PDF);
/// prints its path.
fn draw(
    dataset: &report::DatasetLocation,
    sql: &str,
    (file, encoding): (&Path, report::charts::Encoding),
    name: &str,
    spec: &report::charts::FigureSpec,
    limits: report::Limits,
    engine: &report::Engine,
) -> Result<()> {
    let batches = report::Session::open_at(dataset, limits, engine)?.sql(sql)?;
    report::charts::query_figure(name, &batches, spec)?.write_to(file, encoding)?;
    Ok(output::print(&format!("{}\n", file.display()))?)
}

/// `views`: the statements that register the dataset's tables in another SQL engine, then
/// hindsight's functions the queries call (DuckDB) and the views the bundled queries read, as
/// hindsight's session has them on this dataset.
fn views(dataset: &Path, dialect: report::views::Dialect, absolute: bool) -> Result<()> {
    let tables = report::views::tables(dataset, dialect, absolute)?;
    let defined = report::Session::open(dataset)?.views();
    Ok(output::print(&(tables + &report::views::definitions(dialect, &defined)))?)
}

/// `describe`: the data dictionary as markdown, one table as a dataset has it, or one table
/// (or every table) as the dictionary says.
fn describe(table: Option<String>, dataset: Option<PathBuf>, markdown: bool, format: Format) -> Result<()> {
    use crate::dataset::dictionary;
    match (table, dataset) {
        _ if markdown => Ok(output::print(&dictionary::markdown())?),
        (Some(t), Some(ds)) => {
            let session = report::Session::open_with(&ds, report::Limits::default())?;
            Ok(output::print(&report::format::render(&session.describe(&t)?, format)?)?)
        }
        (t, _) => match dictionary::text(t.as_deref()) {
            Some(text) => Ok(output::print(&text)?),
            None => {
                let t = t.unwrap_or_default();
                let hint = crate::text::closest(&t, dictionary::names()).map(|c| format!(" (did you mean `{c}`?)")).unwrap_or_default();
                Err(Error::usage(format!("no table `{t}` in the data dictionary{hint} (`hindsight describe` lists them)")))
            }
        },
    }
}

/// `man`: the manual page on stdout, or one per command written into `dir`.
fn man(dir: Option<&Path>, cli: clap::Command) -> Result<()> {
    match dir {
        None => {
            let mut out = Vec::new();
            clap_mangen::Man::new(cli).render(&mut out).map_err(|e| while_doing("writing the manual page".into(), e))?;
            Ok(output::print(&String::from_utf8_lossy(&out))?)
        }
        Some(dir) => {
            // A page is never written through a symlink planted under its name.
            if let Ok(entries) = std::fs::read_dir(dir) {
                for e in entries.flatten() {
                    let p = e.path();
                    if p.extension().is_some_and(|x| x == "1") {
                        if let Some(why) = output::unwritable(&p, None) {
                            return Err(Error::usage(format!("man --dir: {why}")));
                        }
                    }
                }
            }
            std::fs::create_dir_all(dir)
                .and_then(|()| clap_mangen::generate_to(cli, dir))
                .map_err(|e| while_doing(format!("writing manual pages into {}", dir.display()), e))
        }
    }
}

/// `error`, said after what hindsight was doing when it came.
fn while_doing(doing: String, error: impl std::error::Error + Send + Sync + 'static) -> Error {
    Error::while_doing(doing, Box::new(error))
}

/// A file of expected figures, read and parsed.
fn expected_figures(expected: &Path) -> Result<report::check::Expected> {
    let text = crate::inputs::read_text_file(expected, "file of expected figures")?;
    // A byte-order mark some editors write is no part of the JSON.
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    report::check::Expected::parse(text).map_err(|e| while_doing(expected.display().to_string(), e))
}

/// `check`: the dataset's figures against the published ones; a table of the differences.
fn check(dataset: &report::DatasetLocation, expected: &Path, precision: report::check::Precision) -> Result<Status> {
    let want = expected_figures(expected)?;
    let have = report::figures(dataset, &want.names(), report::Limits::default())?;
    let c = report::check::compare(&want, &have, precision).map_err(|e| while_doing(expected.display().to_string(), e))?;
    let how = if precision.exact { "exactly" } else { "at their printed precision" };
    let compared = format!("{} figures in {} rows of {} queries compared {how}, tolerance {}", c.figures, c.rows, c.queries, precision.tolerance);
    if c.differences.is_empty() {
        output::print(&format!("check: every expected figure matches: {compared}\n"))?;
        return Ok(Status::Success);
    }
    output::print(&format!("check: {} difference(s) from {}: {compared}\n", c.differences.len(), expected.display()))?;
    output::print(&report::check::table(&c.differences))?;
    Ok(Status::Failure)
}

/// `capture`: ask GitHub for what the runs need; what succeeded is written, and the command
/// fails when some request did, so that a script does not take a snapshot with holes for a
/// whole one.
fn capture(options: &crate::capture::Options, quiet: bool, progress: &Progress) -> Result<Status> {
    let token = crate::capture::token()?;
    if token.is_none() {
        progress.note("no token (GITHUB_TOKEN, GH_TOKEN or `gh auth token`): unauthenticated requests, 60 an hour");
    }
    let c = crate::capture::capture(options, token, progress)?;
    if !quiet {
        summarize_capture(&c, &options.out);
    }
    if !c.failed.is_empty() {
        let some: Vec<String> = c.failed.iter().take(5).map(|(p, s)| format!("{} ({s})", printable(p))).collect();
        let more = if c.failed.len() > 5 { format!(" and {} more", c.failed.len() - 5) } else { String::new() };
        eprintln!(
            "hindsight: capture: {} of {} paths fetched failed: {}{more}; the others are written to {}; run capture again to ask for the failed ones",
            c.failed.len(),
            c.fetched,
            some.join(", "),
            options.out.display()
        );
        return Ok(Status::Failure);
    }
    Ok(Status::Success)
}

/// What capture asked, fetched, failed to fetch and did not ask for, on stderr.
fn summarize_capture(c: &crate::capture::Captured, out: &Path) {
    eprintln!(
        "capture: {} requests in {} rounds; {} paths fetched ({} failed), {} unchanged, {} kept from an earlier run -> {}",
        c.requests,
        c.rounds,
        c.fetched,
        c.failed.len(),
        c.unchanged,
        c.resumed,
        out.display()
    );
    for (p, s) in c.failed.iter().take(20) {
        eprintln!("  failed {} ({s}): recorded as a failed capture; a re-run asks again", printable(p));
    }
    for p in c.not_captured.iter().take(20) {
        eprintln!("  not captured {}: no request for it (a comment whose REST capture has no node_id, or a path outside repositories)", printable(p));
    }
}

/// `synth`: write a synthetic study and say how big it is.
fn synth(spec: &crate::synth::Spec, out: &Path, quiet: bool) -> Result<()> {
    let w = crate::synth::generate(spec, out)?;
    if !quiet {
        eprintln!("synth: {} outputs in {} runs, {} responses, {} traces, {} bytes -> {}", w.outputs, w.runs, w.responses, w.traces, w.bytes, out.display());
    }
    Ok(())
}

/// `synth --aidev`: write a synthetic AIDev release and say how big it is.
fn synth_aidev(spec: &crate::synth::aidev::Spec, out: &Path, quiet: bool) -> Result<()> {
    let w = crate::synth::aidev::generate(spec, out)?;
    if !quiet {
        eprintln!("synth: AIDev {} with {} PRs, {} rows in {} files, {} bytes -> {}", spec.release.name(), w.prs, w.rows, w.files, w.bytes, out.display());
    }
    Ok(())
}

/// `gate`: the commit protocol over recorded results, written into the dataset if one is
/// given, its report printed.
fn gate(results: &Path, policy: &crate::gate::Policy, format: crate::gate::Format, dataset: Option<&Path>, quiet: bool, progress: &Progress) -> Result<()> {
    let report = crate::gate::run(results, policy)?;
    if let Some(ds) = dataset {
        pipeline::gate_into(ds, &report, progress)?;
    }
    if !quiet {
        let c = &report.compliance;
        eprintln!(
            "gate: {} records read = {} evaluated + {} quarantined; {} commit(s) performed",
            c.records_read, c.evaluated, c.quarantined, c.commits_performed
        );
    }
    Ok(output::print(&report.render(format)?)?)
}

/// `verify`: the dataset (and the study's inputs, when given) against its manifest.
fn verify(dataset: &Path, study: Option<&Study>) -> Result<Status> {
    // A package (`hindsight package`) holds its dataset under data/.
    let data = dataset.join("data");
    let dataset = if crate::package::is_package(dataset) { data.as_path() } else { dataset };
    let inputs = study.map(|s| (s.snapshot.as_path(), s.runs.as_path(), s.traces.as_slice(), s.tasks.as_deref()));
    let found = crate::dataset::verify::verify(dataset, inputs)?;
    // An input not given is not drift: what was given is checked, and the rest said.
    let (unchecked, drift): (Vec<_>, Vec<_>) = found.into_iter().partition(|d| matches!(d, crate::dataset::verify::Drift::NotGiven { .. }));
    if drift.is_empty() {
        let given = if inputs.is_some() { ", the inputs given included" } else { "" };
        output::print(&format!("verify: every file matches manifest.json{given}\n"))?;
    } else {
        output::print(&format!("verify: {} difference(s) from manifest.json\n", drift.len()))?;
    }
    for d in drift.iter().chain(&unchecked) {
        output::print(&format!("  {}\n", printable(&d.to_string())))?;
    }
    Ok(if drift.is_empty() { Status::Success } else { Status::Failure })
}

/// `plan check`: every way the dataset (here or in an object store) departs from the plan;
/// exit 1 when it does.
fn check_plan(plan: &Path, dataset: &report::DatasetLocation) -> Result<Status> {
    let deviations = departures(plan, dataset)?;
    output::print(&crate::plan::verdict(plan, &deviations))?;
    Ok(if deviations.is_empty() { Status::Success } else { Status::Failure })
}

/// `export --sqlite`: the dataset as a SQLite database; what was written said on stderr.
/// What `export` writes.
pub enum ExportTo {
    /// The whole dataset as one SQLite database.
    Sqlite(PathBuf),
    /// The insights as JSON Lines.
    Insights(PathBuf),
    /// One window's outcomes as OTLP/JSON spans.
    Otlp { file: PathBuf, window: String },
}

fn export(dataset: &Path, to: &ExportTo, force: bool, quiet: bool) -> Result<()> {
    match to {
        ExportTo::Sqlite(file) => {
            let e = crate::export::sqlite(dataset, file, force)?;
            if !quiet {
                let rows: u64 = e.tables.iter().map(|(_, n)| n).sum();
                eprintln!("exported {} tables, {rows} rows, {} bytes -> {} (open it with `datasette {}`)", e.tables.len(), e.bytes, file.display(), file.display());
            }
        }
        ExportTo::Insights(file) => {
            let n = crate::export::insights(dataset, file, force)?;
            if !quiet {
                eprintln!("exported {n} insights -> {}", file.display());
            }
        }
        ExportTo::Otlp { file, window } => {
            let n = crate::export::otlp(dataset, window, file, force)?;
            if !quiet {
                eprintln!("exported {n} outcome spans of window {window} -> {}", file.display());
            }
        }
    }
    Ok(())
}

/// `package`: the study handed on, what was written said on stderr unless quiet.
fn package(dataset: &Path, out: &Path, options: &crate::package::Options, quiet: bool) -> Result<()> {
    let p = crate::package::package(dataset, out, options)?;
    if !quiet {
        eprintln!("packaged {} files -> {}", p.files.len(), out.display());
    }
    Ok(())
}

/// How `diff` prints what changed.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum DiffFormat {
    Markdown,
    Json,
}

/// `diff`: what changed from dataset `a` to dataset `b`; exit 1 when anything did.
fn diff(a: &Path, b: &Path, format: DiffFormat, expected: &[PathBuf]) -> Result<Status> {
    let mut d = report::diff::diff(a, b)?;
    for file in expected {
        let want = expected_figures(file)?;
        d.checked.push((file.display().to_string(), report::diff::checked_figures(a, b, &want).map_err(|e| while_doing(file.display().to_string(), e))?));
    }
    match format {
        DiffFormat::Markdown => output::print(&report::diff::markdown(&d, a, b))?,
        DiffFormat::Json => output::print(&(serde_json::to_string_pretty(&report::diff::to_json(&d))? + "\n"))?,
    }
    Ok(if d.is_empty() { Status::Success } else { Status::Failure })
}

/// What convert read, used and quarantined, on stderr.
fn summarize(c: &Converted, out: &Path, quiet: bool, demo: bool) {
    if quiet {
        return;
    }
    if demo {
        eprintln!("no --snapshot/--runs given: running the bundled demo study");
    }
    for (input, r) in &c.records {
        if r.superseded > 0 {
            eprintln!(
                "{input:>9}: {} records read = {} used + {} quarantined + {} superseded by a later capture",
                r.input, r.used, r.quarantined, r.superseded
            );
        } else {
            eprintln!("{input:>9}: {} records read = {} used + {} quarantined", r.input, r.used, r.quarantined);
        }
    }
    for q in c.quarantined.iter().take(20) {
        eprintln!("  quarantined {}", printable(&q.describe()));
    }
    if c.quarantined.len() > 20 {
        eprintln!("  ... and {} more (see quarantine.parquet)", c.quarantined.len() - 20);
    }
    for f in c.skipped.iter().take(10) {
        eprintln!("  skipped {}/{}: {}", f.input, printable(&f.path), f.reason);
    }
    if c.skipped.len() > 10 {
        eprintln!("  ... and {} more files not read (listed in manifest.json, `skipped`)", c.skipped.len() - 10);
    }
    for e in &c.empty_runs {
        eprintln!("  run {}: {}", printable(&e.dir), printable(&e.reason));
    }
    for (ty, n) in &c.types_without_rule {
        eprintln!("  no rule for type `{}` ({n} output(s)): evaluated as unknown, never accepted", printable(ty));
    }
    eprintln!("{:>9}: {} safe outputs, {} responses -> {}", "dataset", c.safe_outputs, c.responses, out.display());
}

/// What `import aidev` read, used, quarantined and left aside, on stderr.
fn summarize_import(i: &pipeline::Imported, out: &Path) {
    let said = |k: &str| i.release[k].as_str().unwrap_or_default().to_string();
    eprintln!("  release {} ({}), recognised by {}", said("release"), said("description"), said("recognised_by"));
    if let Some(rev) = i.release["revision"].as_str() {
        eprintln!("  revision {rev} ({})", said("revision_basis"));
    }
    for (file, (used, quarantined)) in &i.files {
        eprintln!("{file:>40}: {} records = {used} used + {quarantined} quarantined", used + quarantined);
    }
    if !i.absent.is_empty() {
        eprintln!("  absent (not in this copy of the layout; queries over them have nothing for that group): {}", printable(&i.absent.join(", ")));
    }
    for (file, cols) in &i.extra_columns {
        eprintln!("  {file}: columns not imported: {}", printable(&cols.join(", ")));
    }
    for q in i.quarantined.iter().take(20) {
        eprintln!("  quarantined {}", printable(&q.describe()));
    }
    if i.quarantined.len() > 20 {
        eprintln!("  ... and {} more (see quarantine.parquet)", i.quarantined.len() - 20);
    }
    for f in i.skipped.iter().take(10) {
        eprintln!("  skipped {}: {}", printable(&f.path), f.reason);
    }
    if i.duplicate_prs + i.duplicate_events + i.orphan_rows + i.without_repo > 0 {
        eprintln!(
            "  kept as read: {} repeated PR rows, {} repeated timeline rows, {} review/comment/commit/timeline rows of PRs not in prs.csv, {} PRs with no readable repository",
            i.duplicate_prs, i.duplicate_events, i.orphan_rows, i.without_repo
        );
    }
    eprintln!("  captured_at {} ({})", i.captured_at, i.captured_at_basis);
    eprintln!(
        "{:>40}: {} records read = {} used + {} quarantined; {} agent PRs as safe outputs, {} rebuilt captures, {} outcomes -> {}",
        "aidev",
        i.records.input,
        i.records.used,
        i.records.quarantined,
        i.safe_outputs,
        i.captures,
        i.outcomes,
        out.display()
    );
}
