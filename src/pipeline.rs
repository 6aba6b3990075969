//! The stages strung together: convert (inputs -> dataset), evaluate, report.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use arrow::record_batch::RecordBatch;

use crate::dataset::manifest::{InputFileEntry, Manifest, RecordCount};
use crate::dataset::staging::{OutDir, Staging};
use crate::dataset::{write_table, TableWriter};
use crate::error::{Error, Result};
use crate::evaluate::{Settings, Window};
use crate::progress::Progress;
use crate::quarantine::{self, Quarantined};
use crate::report::Engine;
use crate::snapshot;

/// Where a study's inputs are.
#[derive(Clone, Debug)]
pub struct Study {
    pub snapshot: PathBuf,
    pub runs: PathBuf,
    /// opentraces JSONL files or directories (optional).
    pub traces: Vec<PathBuf>,
    /// A directory of task records and events (`tasks.jsonl`, `events.jsonl`; optional).
    pub tasks: Option<PathBuf>,
    /// The failure-categorization policy file (JSON, see `docs/TASKS.md`); the defaults
    /// when absent.
    pub task_policy: Option<PathBuf>,
}

/// What convert did, for the terminal and for tests.
#[derive(Clone, Debug)]
pub struct Converted {
    pub records: BTreeMap<String, RecordCount>,
    pub quarantined: Vec<Quarantined>,
    pub safe_outputs: usize,
    pub responses: usize,
    /// Types with no rule (custom safe jobs, newer gh-aw types), with their output counts:
    /// they are kept and evaluated as `unknown`, never dropped.
    pub types_without_rule: BTreeMap<String, usize>,
    /// Files under the input directories no reader reads, with why.
    pub skipped: Vec<crate::inputs::Skipped>,
    /// Run directories with no file holding safe outputs.
    pub empty_runs: Vec<crate::runs::EmptyRun>,
}

/// An input directory that is there, or what it is instead.
fn check_dir(p: &Path, what: &str) -> Result<()> {
    let why = match std::fs::metadata(p) {
        Ok(m) if m.is_dir() => return Ok(()),
        Ok(_) => "is a file; a directory is expected".to_string(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => "does not exist".to_string(),
        Err(e) => format!("cannot be read ({e})"),
    };
    Err(Error::Usage(format!("--{what} {}: {why}", p.display())))
}

/// `--snapshot` and `--runs` given the wrong way round: snapshot.json is in the runs
/// directory and not in the snapshot's.
fn check_not_swapped(study: &Study) -> Result<()> {
    let info = "snapshot.json";
    if !study.snapshot.join(info).exists() && study.runs.join(info).is_file() {
        return Err(Error::Usage(format!(
            "--snapshot {} and --runs {} look swapped: {info} is in the --runs directory and not in the --snapshot one",
            study.snapshot.display(),
            study.runs.display()
        )));
    }
    Ok(())
}

/// What a dataset was made from. `run`, `convert` and `import` refuse to replace a dataset
/// made from another kind of input unless told to (`--force`): a mistyped --out must not
/// silently replace a study's results with another study's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DatasetKind {
    /// A gh-aw study: a snapshot and runs (`run`, `convert`).
    Study,
    /// A published dataset imported (`import aidev`).
    Aidev,
}

impl DatasetKind {
    fn held(self) -> &'static str {
        match self {
            DatasetKind::Study => "a gh-aw study's dataset (written by `hindsight run` or `convert`)",
            DatasetKind::Aidev => "an AIDev import (written by `hindsight import aidev`)",
        }
    }
}

/// Refuse to replace the dataset at `out` with one of another kind, unless `force`. A
/// folder that holds no readable manifest is left to the staging's own checks.
pub fn check_replaces(out: &Path, kind: DatasetKind, force: bool) -> Result<()> {
    let Ok(text) = std::fs::read_to_string(out.join("manifest.json")) else { return Ok(()) };
    let Ok(m) = serde_json::from_str::<serde_json::Value>(&text) else { return Ok(()) };
    // The report's test too: an AIDev import holds AIDev's PR table.
    let aidev = m.get("tables").and_then(|t| t.get(crate::aidev::PR_TABLE)).is_some();
    let was = if aidev { DatasetKind::Aidev } else { DatasetKind::Study };
    if force || was == kind {
        return Ok(());
    }
    Err(Error::Usage(format!(
        "--out {} holds {}; this would replace it with {}: give another --out, or --force to replace it",
        out.display(),
        was.held(),
        kind.held()
    )))
}

/// Bytes of captures convert holds in memory before it spills a sorted run to disk.
const CAPTURES_HELD_BYTES: usize = 64 << 20;
/// Bytes of captures turned into table rows per step (whole repositories at a time).
const BATCH_BYTES: usize = 32 << 20;
/// Text bytes per row group of the tables convert writes as it reads: a step's bodies make
/// two groups or more, compressed side by side, and each table holds at most this much
/// waiting to be written, however many rows the study has.
const GROUP_BYTES: usize = 16 << 20;

impl Study {
    /// Every input path, for checking that an output stays clear of them.
    fn paths(&self) -> Vec<&Path> {
        let mut p = vec![self.snapshot.as_path(), self.runs.as_path()];
        p.extend(self.traces.iter().map(PathBuf::as_path));
        p.extend(self.tasks.as_deref());
        p
    }
}

/// A new dataset at `out`, staged beside it; leftovers of dead writers are reported.
fn stage_new(study: &Study, out: &Path, progress: &Progress) -> Result<Staging> {
    check_not_swapped(study)?;
    check_dir(&study.snapshot, "snapshot")?;
    check_dir(&study.runs, "runs")?;
    let staging = Staging::new(&OutDir::resolve(out, &study.paths())?)?;
    report_removed(&staging, progress);
    Ok(staging)
}

/// A change to the dataset at `dataset` by `command`, staged beside it. Only a dataset
/// of this hindsight's own format is changed: a command writing new tables into an older one
/// would leave a dataset of neither format.
fn stage_change(dataset: &Path, command: &str, progress: &Progress) -> Result<Staging> {
    Manifest::load_current(dataset, command)?;
    let staging = Staging::modify(&OutDir::existing(dataset)?)?;
    report_removed(&staging, progress);
    Ok(staging)
}

/// A cluster named by `--cluster` is checked before any work (a build without the cluster,
/// a scheduler nobody listens at): never after a long convert.
fn check_engine(engine: &Engine) -> Result<()> {
    match engine {
        Engine::Local => Ok(()),
        Engine::Cluster(at) => Ok(crate::cluster::check(at)?),
    }
}

fn report_removed(staging: &Staging, progress: &Progress) {
    for p in &staging.removed {
        progress.note(&format!("removed {}, left by a hindsight process that did not finish", p.display()));
    }
}

pub fn convert(study: &Study, out: &Path, progress: &Progress) -> Result<Converted> {
    convert_with_budget(study, out, progress, CAPTURES_HELD_BYTES)
}

/// `convert`, spilling sorted runs of captures to disk beyond `budget` bytes, and turning at
/// most that many bytes of captures into rows a step (whole repositories, so at least one a
/// step). The dataset's bytes depend on neither; tests check that, through `crate::testing`.
pub(crate) fn convert_with_budget(study: &Study, out: &Path, progress: &Progress, budget: usize) -> Result<Converted> {
    let staging = stage_new(study, out, progress)?;
    let c = convert_into(study, &staging.dir, progress, budget)?;
    staging.commit()?;
    Ok(c)
}

/// Convert into `dir`, an empty staging folder: read the snapshot, and beside it the runs,
/// traces and tasks -> write the snapshot's tables -> account for every input -> build the tables
/// derived from them -> write those and the manifest.
fn convert_into(study: &Study, dir: &Path, progress: &Progress, budget: usize) -> Result<Converted> {
    // A bad policy file stops convert before any input is read.
    let task_policy = study.task_policy.as_deref().map(crate::tasks::TaskPolicy::load).transpose()?.unwrap_or_default();
    crate::memory::retain(crate::memory::CONVERT);
    let mut phases = crate::phases::Phases::from_env();
    let bar = progress.steps("convert", 4);
    bar.set_message("reading the snapshot, runs, traces and tasks");
    let dir = dir.to_path_buf();
    // A bad snapshot.json stops convert at once; then the snapshot and the other inputs are
    // read side by side: neither needs the other.
    let (info, info_bytes) = snapshot::read_info(&study.snapshot)?;
    let (snap, others) = std::thread::scope(|scope| {
        let others = crate::phases::spawn_named(scope, "inputs", || read_inputs(study, &dir));
        let snap = snapshot::scan_files(&study.snapshot, info, &info_bytes, &dir.join(".spill"), budget);
        (snap, Error::joined(others.join(), &study.runs, "the thread reading runs, traces and tasks stopped"))
    });
    let snap = snap?;
    let (mut inputs, run_tables) = others?;
    phases.mark("snapshot, runs, traces and tasks read");
    bar.inc(2);
    bar.set_message("writing responses and the snapshot's tables");
    let snapshot::SnapshotScan { info, quarantined, files, runs: captures } = snap;
    let captures = write_captures(&dir, captures, BATCH_BYTES.min(budget))?;
    phases.mark("captures merged into responses and typed tables");
    let mut manifest = Manifest::new(crate::time::format(&info.captured_at));
    manifest.inputs = input_files(&files, &inputs);
    manifest.empty_runs = inputs.runs.empty.clone();
    manifest.empty_runs.sort();
    let quarantined = all_quarantined(quarantined, &inputs);
    let records = record_counts(study, &manifest, &quarantined, &inputs, &captures.counts);
    // Review feedback is read from every snapshot, so the policy is always recorded.
    manifest.task_policy = Some(task_policy.to_json());
    manifest.records = records.clone();
    // Each table is its own file, finished (last row groups, footer, hash) side by side. The
    // snapshot's tables first: the derived tables are read from them, while the runs' tables
    // are finished and the inputs' folders searched for files no reader read.
    let (mut snapshot_tables, runs_tables) = (captures.typed, vec![run_tables.outputs, run_tables.requests]);
    snapshot_tables.push(captures.responses);
    let mut tables = Vec::new();
    let ((finished, skipped), derived) = rayon::join(
        || rayon::join(|| finish_all(runs_tables), || skipped_files(study, &manifest.inputs)),
        || -> Result<_> {
            let typed = finish_all(snapshot_tables)?;
            // Tables are held as Arrow batches from here, not as cells: the largest of them
            // are built after the others, beside what they were built from.
            tables.push(named_batch(crate::runs::tables::runs(&inputs.runs.runs))?);
            tables.push(named_batch(crate::runs::tables::coverage(&inputs.runs.coverage))?);
            tables.push(named_batch(quarantine::table(&quarantined))?);
            tables.extend(derived_tables(study, &dir, &task_policy, &mut inputs)?);
            Ok(typed)
        },
    );
    for (name, w) in finished?.into_iter().chain(derived?) {
        manifest.record_table(&name, &w);
    }
    manifest.skipped = skipped?;
    phases.mark("tables finished and derived tables built");
    bar.inc(1);
    bar.set_message("writing the run and trace tables");
    // Each table is its own file, so the bytes do not depend on the order they are written in.
    let written: Vec<Result<crate::dataset::Written>> = tables.par_iter().map(|(name, batch)| crate::dataset::write_batch(&dir, name, batch)).collect();
    for ((name, _), w) in tables.iter().zip(written) {
        manifest.record_table(name, &w?);
    }
    manifest.save(&dir)?;
    phases.mark("tables written");
    bar.finish_and_clear();
    Ok(Converted {
        types_without_rule: inputs.types_without_rule,
        records,
        quarantined,
        safe_outputs: inputs.safe_outputs,
        responses: captures.counts.used,
        skipped: manifest.skipped.clone(),
        empty_runs: manifest.empty_runs.clone(),
    })
}

/// What convert read besides the snapshot: the runs (their outputs and requests written
/// as they came, see [`RunTables`]), traces and tasks, and what was noted of the outputs on
/// the way.
struct Inputs {
    runs: crate::runs::RunsRead,
    traces: crate::traces::TracesRead,
    tasks: Option<crate::tasks::TasksRead>,
    safe_outputs: usize,
    types_without_rule: BTreeMap<String, usize>,
    agent_prs: crate::feedback::AgentPrs,
}

/// The `safe_outputs` and `requests` tables, written as the runs are read, not finished.
struct RunTables {
    outputs: TableWriter,
    requests: TableWriter,
}

/// Read the runs (writing their outputs and requests to `dir`), the traces and the tasks.
fn read_inputs(study: &Study, dir: &Path) -> Result<(Inputs, RunTables)> {
    // Outputs and requests arrive a few runs at a time in the tables' order: written as
    // they come, never all held.
    let mut outputs = TableWriter::create(dir, "safe_outputs", crate::runs::tables::safe_outputs(&[]).arrow_schema())?.with_group_bytes(GROUP_BYTES);
    let mut requests = TableWriter::create(dir, "requests", crate::runs::tables::requests(&[]).arrow_schema())?.with_group_bytes(GROUP_BYTES);
    let mut safe_outputs = 0usize;
    let mut types_without_rule: BTreeMap<String, usize> = BTreeMap::new();
    let mut agent_prs = crate::feedback::AgentPrs::new();
    let runs = crate::runs::read_in_order(&study.runs, |o, r| {
        safe_outputs += o.len();
        for o in &o {
            crate::feedback::note_output(&mut agent_prs, o);
            // Every type of the registry has a rule (or is a system output).
            if crate::runs::output_type::OutputType::parse(&o.output_type).is_none() {
                *types_without_rule.entry(o.output_type.to_string()).or_insert(0) += 1;
            }
        }
        outputs.write(&crate::runs::tables::safe_outputs(&o).to_batch()?)?;
        requests.write(&crate::runs::tables::requests(&r).to_batch()?)
    })?;
    let traces = crate::traces::read(&study.traces)?;
    let tasks = study.tasks.as_deref().map(crate::tasks::read).transpose()?;
    Ok((Inputs { runs, traces, tasks, safe_outputs, types_without_rule, agent_prs }, RunTables { outputs, requests }))
}

/// The snapshot's tables as written, not finished, and how many captures are in use or
/// superseded.
struct CapturesWritten {
    responses: TableWriter,
    typed: Vec<TableWriter>,
    counts: CaptureCounts,
}

/// How many captures are in use, and how many were superseded by a later copy.
struct CaptureCounts {
    used: usize,
    superseded: usize,
}

/// Tables finished side by side: each one's name and what was written.
fn finish_all(writers: Vec<TableWriter>) -> Result<Vec<(String, crate::dataset::Written)>> {
    writers.into_par_iter().map(|w| Ok((w.name().to_string(), w.finish()?))).collect()
}

/// Write every capture to `responses`, and the copies in use to the typed tables.
fn write_captures(dir: &Path, captures: snapshot::spill::Runs, batch_bytes: usize) -> Result<CapturesWritten> {
    // Captures come back in order, whole repositories at a time: `responses` and the typed
    // tables are written as they fill, so memory holds a few batches and a row group per table.
    let merge = captures.merge()?;
    let responses = TableWriter::create(dir, "responses", snapshot::tables::responses(&[]).arrow_schema())?.with_group_bytes(GROUP_BYTES);
    let mut typed: Vec<TableWriter> =
        snapshot::tables::typed(&[]).iter().map(|t| Ok(TableWriter::create(dir, t.name, t.arrow_schema())?.with_group_bytes(GROUP_BYTES))).collect::<Result<_>>()?;
    let (mut used, mut superseded) = (0usize, 0usize);
    // A pipeline of three, each a batch ahead of the next: the merge (one ordered stream, its
    // own thread), the typed rows (on every worker), and `responses` (its own thread: the
    // bodies copied into a column, compressed a row group per worker). With `responses`
    // inside each step, the copy and the last group's compression ran on one core while the
    // others waited for the next batch (HINDSIGHT_PHASES: 9% of the merge's CPU serial at
    // two threads, against 4-5%). Batches are handed over, not queued, so memory holds one
    // batch per stage, as many as before the pipeline (BENCHMARKS.md, "Threads on two cores").
    let responses = std::thread::scope(|scope| -> Result<TableWriter> {
        let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<snapshot::Capture>>(0);
        let (to_responses, for_responses) = std::sync::mpsc::sync_channel::<std::sync::Arc<Vec<snapshot::Capture>>>(0);
        let merger = crate::phases::spawn_named(scope, "merge captures", move || -> Result<()> {
            let mut merge = merge;
            loop {
                let batch = merge.next_batch(batch_bytes)?;
                if batch.is_empty() || tx.send(batch).is_err() {
                    break;
                }
            }
            Ok(())
        });
        let writer = crate::phases::spawn_named(scope, "responses", move || -> Result<TableWriter> {
            let mut responses = responses;
            // On an error here the receiver is dropped, which stops the steps that feed it.
            for batch in for_responses {
                responses.write(&snapshot::tables::responses_batch(&batch)?)?;
            }
            Ok(responses)
        });
        let consume = || -> Result<()> {
            let mut pending = TypedParts::new();
            for batch in rx {
                // Every copy goes to `responses`; only the copies in use make typed rows.
                let old = batch.iter().filter(|c| c.superseded_by.is_some()).count();
                used += batch.len() - old;
                superseded += old;
                let batch = std::sync::Arc::new(batch);
                if to_responses.send(batch.clone()).is_err() {
                    // The writer stopped: its error is the one to report.
                    break;
                }
                write_batch(&batch, old, &mut typed, &mut pending)?;
                // Freed on a worker, beside the next step, whichever of the two drops it last.
                rayon::spawn(move || drop(batch));
            }
            drop(to_responses);
            write_typed(&mut typed, pending)
        };
        // On an error here the receivers are dropped, which stops the merger and the writer.
        let consumed = consume();
        let merged = Error::joined(merger.join(), dir, "the snapshot merge thread stopped");
        let written = Error::joined(writer.join(), dir, "the thread writing responses stopped");
        consumed?;
        merged?;
        written
    })?;
    Ok(CapturesWritten { responses, typed, counts: CaptureCounts { used, superseded } })
}

/// The typed tables' rows of a batch (one batch per table), not yet written.
type TypedParts = Vec<Vec<RecordBatch>>;

/// The copies in use of one batch of captures (`old` of them superseded) into typed rows,
/// read a few paths at a time in parallel. The typed rows of the batch before (`pending`)
/// are written meanwhile, and this batch's take their place: no step waits for the typed
/// tables' writing.
fn write_batch(batch: &[snapshot::Capture], old: usize, typed: &mut [TableWriter], pending: &mut TypedParts) -> Result<()> {
    let earlier = std::mem::take(pending);
    let (written, tables) = rayon::join(
        || write_typed(typed, earlier),
        || -> Result<TypedParts> {
            let kept: Vec<snapshot::Capture>;
            let current: &[snapshot::Capture] = if old == 0 {
                batch
            } else {
                kept = batch.iter().filter(|c| c.superseded_by.is_none()).cloned().collect();
                &kept
            };
            // Read in pieces on every thread, finished once: a batch holds whole
            // repositories, and often one large one.
            let pieces: Vec<snapshot::tables::TypedRows> = split_at_paths(current).par_iter().map(|piece| snapshot::tables::typed_rows(piece)).collect();
            let Some(rows) = pieces.into_iter().reduce(|mut all, later| {
                all.append(later);
                all
            }) else {
                return Ok(Vec::new());
            };
            let tables: Vec<RecordBatch> = rows.finish().par_iter().map(|t| t.to_batch()).collect::<std::result::Result<_, _>>()?;
            Ok(vec![tables])
        },
    );
    written?;
    *pending = tables?;
    Ok(())
}

/// Typed rows, part after part, into their tables.
fn write_typed(typed: &mut [TableWriter], parts: TypedParts) -> Result<()> {
    for part in parts {
        for (w, b) in typed.iter_mut().zip(part) {
            w.write(&b)?;
        }
    }
    Ok(())
}

/// Every file read, of every input, sorted by input and path.
fn input_files(snapshot_files: &[crate::inputs::InputFile], inputs: &Inputs) -> Vec<InputFileEntry> {
    let mut files: Vec<InputFileEntry> = snapshot_files
        .iter()
        .chain(inputs.runs.files.iter())
        .chain(inputs.traces.files.iter())
        .chain(inputs.tasks.iter().flat_map(|t| t.files.iter()))
        .map(InputFileEntry::from)
        .collect();
    files.sort_by(|a, b| (&a.input, &a.path).cmp(&(&b.input, &b.path)));
    files
}

/// Every record quarantined, the snapshot's (`snapshot`) and the other inputs', sorted.
fn all_quarantined(snapshot: Vec<Quarantined>, inputs: &Inputs) -> Vec<Quarantined> {
    let mut quarantined = snapshot;
    quarantined.extend(inputs.runs.quarantined.iter().cloned());
    quarantined.extend(inputs.traces.quarantined.iter().cloned());
    if let Some(t) = &inputs.tasks {
        quarantined.extend(t.quarantined.iter().cloned());
    }
    quarantined.sort();
    quarantined
}

/// Per input: the records its files hold, used, quarantined and superseded.
fn record_counts(
    study: &Study,
    manifest: &Manifest,
    quarantined: &[Quarantined],
    inputs: &Inputs,
    captures: &CaptureCounts,
) -> BTreeMap<String, RecordCount> {
    let count = |input: &str, used: usize, superseded: usize| RecordCount {
        input: manifest.inputs.iter().filter(|f| f.input == input).map(|f| f.records).sum(),
        used,
        quarantined: quarantined.iter().filter(|q| q.input == input).count(),
        superseded,
    };
    let mut records: BTreeMap<String, RecordCount> =
        [("snapshot".to_string(), count("snapshot", captures.used, captures.superseded)), ("runs".to_string(), count("runs", inputs.runs.used, 0))]
            .into_iter()
            .collect();
    if !study.traces.is_empty() {
        records.insert("traces".to_string(), count("traces", inputs.traces.records.len(), 0));
    }
    if let Some(t) = &inputs.tasks {
        records.insert(crate::tasks::INPUT.to_string(), count(crate::tasks::INPUT, t.used(), 0));
    }
    records
}

/// The tables built from what was read and the snapshot's tables just written in `dir`:
/// review feedback, the traces' tables, and the tasks' with their failures categorized.
fn derived_tables(study: &Study, dir: &Path, task_policy: &crate::tasks::TaskPolicy, inputs: &mut Inputs) -> Result<Vec<(&'static str, RecordBatch)>> {
    let mut tables = Vec::new();
    // Review feedback ([SPEC-TASKS-MEMORY]), from the typed tables just written.
    for t in inputs.tasks.iter().flat_map(|t| &t.tasks) {
        if let Some(pr) = t.pull_request() {
            inputs.agent_prs.insert(&pr.0, pr.1, crate::feedback::OpenedBy::Task);
        }
    }
    let tasks = &inputs.tasks;
    let timings = tasks.as_ref().map(|t| crate::tasks::timings(&t.tasks, &t.events)).unwrap_or_default();
    let hours_to_pr = tasks.as_ref().map(|t| crate::tasks::hours_to_pr(&t.tasks, &timings)).unwrap_or_default();
    let opened = std::mem::take(&mut inputs.agent_prs).finish();
    tables.extend(crate::feedback::tables(dir, &task_policy.feedback, &opened, &hours_to_pr)?);
    if !study.traces.is_empty() {
        tables.extend(crate::traces::tables(&inputs.traces.records).into_iter().map(named_batch).collect::<Result<Vec<_>>>()?);
    }
    if let Some(t) = tasks {
        // The snapshot's CI states, from the `ci_commits` table just written.
        let ci = crate::tasks::categorize::CiStates::from_rows(snapshot::ci::read_commits(dir)?);
        // And the tasks' PRs and repositories as captured, from the `responses` just written.
        let evidence = crate::tasks::evidence::read(dir, &t.tasks, ci)?;
        // The tasks' own events, and what the traces naming them lend (tool calls,
        // self-feedback): evidence for the categories, counts and insights, never written
        // as task events.
        let mut events = t.events.clone();
        events.extend(crate::tasks::traced::events(&inputs.traces.records));
        let failures = crate::tasks::categorize::categorize_all(&t.tasks, &events, task_policy, &evidence);
        let insights = crate::tasks::insights::insights(&t.tasks, &events, &failures, &t.prompts, &task_policy.feedback);
        let changes = crate::tasks::insights::prompt_changes(&t.prompts);
        let built = [
            crate::tasks::tables::tasks(&t.tasks, &timings, &crate::tasks::categorize::validations(&t.tasks, &events, task_policy)),
            crate::tasks::tables::task_events(&t.events),
            crate::tasks::tables::task_failures(&failures),
            crate::tasks::tables::insights(&insights),
            crate::tasks::tables::prompt_changes(&changes),
            crate::tasks::tables::prompts(&t.prompts),
        ];
        tables.extend(built.into_iter().map(named_batch).collect::<Result<Vec<_>>>()?);
    }
    Ok(tables)
}

/// A table's rows as one Arrow batch, named; the cells are let go.
fn named_batch(table: crate::table::Table) -> Result<(&'static str, RecordBatch)> {
    Ok((table.name, table.to_batch()?))
}

/// Files under the snapshot and runs directories (and traces directories) that no reader
/// read or refused, each with the reason: what a reader of that input looks for.
fn skipped_files(study: &Study, inputs: &[InputFileEntry]) -> Result<Vec<crate::inputs::Skipped>> {
    use std::collections::BTreeSet;
    let of = |input: &str| -> BTreeSet<&str> { inputs.iter().filter(|f| f.input == input).map(|f| f.path.as_str()).collect() };
    let mut out = crate::inputs::unread("snapshot", &study.snapshot, &of("snapshot"), |p| {
        if p.contains('/') {
            "not a capture: a snapshot holds .jsonl cassettes, and .json files in a directory tree (repos/O/R/pulls/1.json)".into()
        } else {
            "not a capture: at the snapshot's top level only snapshot.json and .jsonl cassettes are read".into()
        }
    })?;
    let runs_read = of("runs");
    out.extend(crate::inputs::unread("runs", &study.runs, &runs_read, |p| {
        let (run, rest) = p.split_once('/').unwrap_or(("", p));
        let name = rest.rsplit('/').next().unwrap_or(rest);
        if run.is_empty() {
            return "not in a run directory: the runs directory holds one directory per workflow run".into();
        }
        // A second copy of a file the run has (a backup artifact, two downloads).
        if let Some(role) = crate::runs::RunFile::ALL.into_iter().find(|f| f.names().contains(&name)) {
            let prefix = format!("{run}/");
            if let Some(read) = runs_read.iter().find(|r| r.starts_with(&prefix) && role.names().iter().any(|n| r.ends_with(n))) {
                return format!("another copy of the run's {}: {read} was read", role.names()[0]);
            }
            return format!("below the {} artifact-folder levels searched for {}", crate::runs::ARTIFACT_DEPTH, role.names()[0]);
        }
        let names: Vec<&str> = crate::runs::RunFile::ALL.iter().flat_map(|f| f.names().iter().copied()).collect();
        format!("not a file hindsight reads in a run directory (it reads {}, at the top level or in artifact folders)", names.join(", "))
    })?);
    for t in study.traces.iter().filter(|t| t.is_dir()) {
        out.extend(crate::inputs::unread("traces", t, &of("traces"), |_| "not a trace file: a traces directory holds .jsonl files at its top level".into())?);
    }
    if let Some(t) = &study.tasks {
        out.extend(crate::inputs::unread(crate::tasks::INPUT, t, &of(crate::tasks::INPUT), |_| {
            format!("not a task file: a tasks directory holds {} and {} at its top level", crate::tasks::TASKS_FILE, crate::tasks::EVENTS_FILE)
        })?);
    }
    out.sort();
    out.dedup();
    Ok(out)
}

/// A batch cut into a few pieces, each with every page of its paths, for reading typed rows
/// in parallel; the pieces are taken back in order.
fn split_at_paths(batch: &[snapshot::Capture]) -> Vec<&[snapshot::Capture]> {
    let parts = rayon::current_num_threads().max(1) * 2;
    let target = batch.len().div_ceil(parts).max(1);
    let mut out = Vec::new();
    let mut start = 0;
    while start < batch.len() {
        let mut end = (start + target).min(batch.len());
        while end < batch.len() && batch[end - 1].path == batch[end].path {
            end += 1;
        }
        out.push(&batch[start..end]);
        start = end;
    }
    out
}

/// Evaluate the dataset at `dataset`, judged by `engine` (`--cluster`: the cluster's
/// executors read the staging folder the tables are written into, at its absolute path):
/// the new outcomes and manifest replace the old ones together, or not at all.
pub fn evaluate(dataset: &Path, settings: &Settings, engine: &Engine, progress: &Progress) -> Result<usize> {
    evaluate_copy(dataset, None, settings, engine, progress)
}

/// [`evaluate`] of `dataset`, or, with `remote`, of a copy here of a dataset in an object
/// store whose cluster reads the tables there (the copy lacks those only the executors read).
pub fn evaluate_copy(dataset: &Path, remote: Option<&crate::report::location::OnCluster>, settings: &Settings, engine: &Engine, progress: &Progress) -> Result<usize> {
    check_engine(engine)?;
    let staging = stage_change(dataset, "hindsight evaluate", progress)?;
    let n = judge_on(&staging.dir, remote, settings, engine, progress)?;
    staging.commit()?;
    Ok(n)
}

/// The evaluate stage on `dir`, judged in this process or on a cluster's executors: the one
/// place that chooses (the tables written are the same bytes either way).
fn judge_on(dir: &Path, remote: Option<&crate::report::location::OnCluster>, settings: &Settings, engine: &Engine, progress: &Progress) -> Result<usize> {
    match engine {
        Engine::Local => crate::evaluate::evaluate_dataset(dir, settings, progress),
        Engine::Cluster(at) => {
            crate::memory::retain(crate::memory::EVALUATE);
            let bar = progress.spinner("evaluate", &format!("on the cluster at {at}"));
            let source = format!("the cluster at {at}");
            let partitions = crate::cluster::PARTITIONS;
            let n = crate::evaluate::stage::evaluate_judged(dir, settings, &source, partitions, |staging, bands| Ok(crate::cluster::judge(at, dir, staging, bands, settings, remote)?));
            bar.finish_and_clear();
            n
        }
    }
}

/// Attach outcome blocks to the dataset's traces (`traces.enriched.jsonl` in the dataset,
/// or `out`), committed with the dataset's new `trace_links` and manifest.
pub fn attach(dataset: &Path, out: Option<&Path>, opts: &crate::attach::Options, progress: &Progress) -> Result<crate::attach::Attached> {
    // Checked here first, so the error names the dataset rather than its staging copy.
    let manifest = Manifest::load_current(dataset, "hindsight attach")?;
    opts.check_evaluated(dataset, &manifest)?;
    let target = match out {
        Some(o) => Some(crate::attach::Target::check(o, dataset, &manifest, opts.force)?),
        None => None,
    };
    let staging = stage_change(dataset, "hindsight attach", progress)?;
    // A file named inside the dataset is written in the staging folder, with the rest.
    let written = match &target {
        Some(crate::attach::Target::InDataset(name)) => Some(staging.dir.join(name)),
        Some(crate::attach::Target::Outside(path)) => Some(path.clone()),
        Some(crate::attach::Target::Stdout) => Some(std::path::PathBuf::from(crate::attach::STDOUT)),
        None => None,
    };
    let mut a = crate::attach::attach(&staging.dir, written.as_deref(), opts, progress)?;
    staging.commit()?;
    a.out = out.map(Path::to_path_buf).unwrap_or_else(|| dataset.join(crate::attach::ENRICHED));
    Ok(a)
}

/// convert + evaluate (+ attach when there are traces), committed once at the end: a run
/// stopped at any point leaves the previous dataset as it was. The evaluation is judged by
/// `engine` (convert and attach stay in this process). The caller prints the dashboard.
pub fn run(study: &Study, out: &Path, settings: &Settings, engine: &Engine, progress: &Progress) -> Result<Converted> {
    check_engine(engine)?;
    let staging = stage_new(study, out, progress)?;
    let c = convert_into(study, &staging.dir, progress, CAPTURES_HELD_BYTES)?;
    judge_on(&staging.dir, None, settings, engine, progress)?;
    if !study.traces.is_empty() {
        let window = if settings.windows.contains(&Window::ONE_WEEK) { Window::ONE_WEEK } else { Window::Snapshot };
        crate::attach::attach(&staging.dir, None, &crate::attach::Options { window, rebuild_attribution: false, force: false }, progress)?;
    }
    staging.commit()?;
    Ok(c)
}

/// What `import aidev` did, for the terminal and for tests.
#[derive(Debug)]
pub struct Imported {
    /// Per file (`Agent/file.csv`): records used, quarantined.
    pub files: BTreeMap<String, (usize, usize)>,
    pub records: RecordCount,
    pub quarantined: Vec<Quarantined>,
    pub absent: Vec<String>,
    pub skipped: Vec<crate::inputs::Skipped>,
    /// Header columns the layout does not define, per file.
    pub extra_columns: BTreeMap<String, Vec<String>>,
    pub safe_outputs: usize,
    pub captures: usize,
    /// The release read, as the manifest records it.
    pub release: serde_json::Value,
    pub captured_at: String,
    pub captured_at_basis: String,
    pub duplicate_prs: usize,
    pub duplicate_events: usize,
    pub orphan_rows: usize,
    pub without_repo: usize,
    pub outcomes: usize,
}

/// `hindsight import aidev`: read the AIDev layout under `dir` into a dataset at `out`
/// (its own `aidev_*` tables, plus safe outputs and rebuilt captures of every agent PR),
/// evaluate it, and commit once.
pub fn import_aidev(
    dir: &Path,
    out: &Path,
    settings: &Settings,
    captured_at: Option<crate::time::Instant>,
    options: &crate::aidev::release::Options,
    progress: &Progress,
) -> Result<Imported> {
    let staging = Staging::new(&OutDir::resolve(out, &[dir])?)?;
    report_removed(&staging, progress);
    // The import's phases free what the one before held, as convert's do.
    crate::memory::retain(crate::memory::CONVERT);
    let bar = progress.steps("import", 3);
    bar.set_message("reading AIDev's tables, rebuilding captures");
    let d = staging.dir.as_path();
    // Captures go to convert's spill sink as they are built, safe outputs to their table:
    // memory holds a budget of them, not the study.
    let mut captures = snapshot::spill::Runs::new(&d.join(".spill"), CAPTURES_HELD_BYTES);
    let mut outputs = crate::aidev::Outputs::new(&d.join(".safe-outputs"));
    let crate::aidev::Imported { read, study, written } = crate::aidev::import(dir, options, d, captured_at, &mut captures, &mut outputs)?;
    bar.inc(1);
    bar.set_message("writing tables");
    let at = study.captured_at.map(|t| crate::time::format(&t)).unwrap_or_else(|| "1970-01-01T00:00:00Z".into());
    let basis =
        if study.captured_at.is_some() { study.captured_at_basis.clone() } else { "no timestamp in the PR tables: every timed window is unobservable".into() };

    let mut manifest = Manifest::new(at.clone());
    manifest.inputs = read.files.iter().map(InputFileEntry::from).collect();
    manifest.skipped = read.skipped.clone();
    manifest.absent = read.absent.clone();
    manifest.captured_at_basis = Some(basis.clone());
    manifest.source_release = Some(read.release.to_json());
    let records = RecordCount { input: read.records, used: read.used, quarantined: read.quarantined.len(), superseded: 0 };
    manifest.records.insert(crate::aidev::INPUT.to_string(), records.clone());
    for (name, w) in &written {
        manifest.record_table(name, w);
    }

    let files = crate::aidev::summary(&read);
    let extra_columns = read.tables.iter().filter(|r| !r.extra_columns.is_empty()).map(|r| (r.origin.clone(), r.extra_columns.clone())).collect();
    write_aidev_tables(d, &read, &study, captures, outputs, &mut manifest)?;
    manifest.save(d)?;
    bar.inc(1);
    bar.set_message("evaluating");
    let outcomes = crate::evaluate::evaluate_dataset(d, settings, progress)?;
    bar.finish_and_clear();
    staging.commit()?;
    Ok(Imported {
        files,
        records,
        quarantined: read.quarantined.clone(),
        absent: read.absent.clone(),
        skipped: read.skipped.clone(),
        extra_columns,
        safe_outputs: study.safe_outputs,
        captures: study.captures,
        release: read.release.to_json(),
        captured_at: at,
        captured_at_basis: basis,
        duplicate_prs: study.duplicate_prs,
        duplicate_events: study.duplicate_events,
        orphan_rows: study.orphan_rows,
        without_repo: study.without_repo,
        outcomes,
    })
}

/// The tables of an AIDev import into `d`, recorded in `manifest`: AIDev's own, the safe
/// outputs and rebuilt captures of its agent PRs, and the review feedback on them.
///
/// One table at a time, each let go once written, and AIDev's rows let go once theirs are:
/// the peak is the study and one table, not every table at once (nor one per thread).
fn write_aidev_tables(
    d: &Path,
    read: &crate::aidev::Read,
    study: &crate::aidev::study::Study,
    captures: snapshot::spill::Runs,
    mut outputs: crate::aidev::Outputs,
    manifest: &mut Manifest,
) -> Result<()> {
    let mut phases = crate::phases::Phases::from_env();
    let agent_prs = std::mem::take(&mut outputs.agent_prs).finish();
    manifest.record_table("safe_outputs", &outputs.finish(d)?);
    phases.mark("safe_outputs written");
    let small = [
        crate::runs::tables::requests(&[]),
        crate::runs::tables::runs(&study.runs),
        quarantine::table(&read.quarantined),
        crate::aidev::source_tables(read),
    ];
    for t in small {
        manifest.record_table(t.name, &write_table(d, &t)?);
    }
    // The same writer as convert's: responses and the typed tables a batch of whole
    // repositories at a time.
    let written = write_captures(d, captures, BATCH_BYTES)?;
    let mut tables = written.typed;
    tables.push(written.responses);
    for (name, w) in finish_all(tables)? {
        manifest.record_table(&name, &w);
    }
    phases.mark("captures written");
    // AIDev records no inline review comments (no `pulls/N/comments` list): its reviewer
    // comments are review bodies and conversation comments.
    let mut task_policy = crate::tasks::TaskPolicy::default();
    task_policy.feedback.sources = vec![crate::feedback::Source::Review, crate::feedback::Source::Conversation];
    // A band of repositories at a time: AIDev full is millions of PRs.
    for (name, w) in crate::feedback::write_in_bands(d, &task_policy.feedback, &agent_prs, &Default::default(), crate::feedback::BAND_PRS)? {
        manifest.record_table(name, &w);
    }
    phases.mark("review feedback written");
    manifest.task_policy = Some(task_policy.to_json());
    Ok(())
}

/// `hindsight gate --dataset`: the commit protocol's results become tables of the dataset,
/// committed with its manifest (the dashboard then shows them).
pub fn gate_into(dataset: &Path, report: &crate::gate::Report, progress: &Progress) -> Result<()> {
    let staging = stage_change(dataset, "hindsight gate --dataset", progress)?;
    let mut manifest = Manifest::load(&staging.dir)?;
    for t in report.tables() {
        let w = write_table(&staging.dir, &t)?;
        manifest.record_table(t.name, &w);
    }
    manifest.save(&staging.dir)?;
    staging.commit()
}
