//! The evaluate stage on a dataset directory: threads, Parquet and the manifest around
//! [`Evaluation`] (convert's driver is `pipeline.rs`).

use std::collections::HashMap;
use std::path::Path;

use rayon::prelude::*;

use super::spill::OutcomeParts;
use super::{ci_gate, coverage, quality, risk, Evaluation, OutcomeRows, Policy, Window};
use crate::dataset::manifest::Manifest;
use crate::error::{Error, Result};
use crate::phases::Phases;
use crate::dataset::read::{ColumnsRead, RepoGroup, RepoIndexes, ResponseRow, SafeOutputTable};
use crate::runs::SafeOutput;
use crate::snapshot::SnapshotIndex;
use crate::time;

/// Body bytes read per step of the evaluate stage: whole repositories, so the parsed snapshot
/// in memory stays near a few times this, whatever the study's size.
pub const CHUNK_BYTES: usize = 32 << 20;

/// Bytes of outcome rows evaluate holds in memory before it spills a sorted part to disk
/// (while one part is written the next is held: twice this at most).
pub const OUTCOME_ROWS_HELD_BYTES: usize = 64 << 20;

/// Outputs judged per step at most: the rows of one step are what can pass the budget.
const STEP_OUTPUTS: usize = 16 * 1024;

/// Outputs whose rows are held together as one part: the same at any thread count, so the
/// rows held do not grow with threads; a step of 16k outputs is 256 pieces to share out.
const PIECE_OUTPUTS: usize = 64;

/// The evaluate stage on a dataset directory: reads `safe_outputs`, then `responses` one
/// repository at a time (each repository's outputs are judged against its captures, with
/// the paths of no repository shared by all), writes `outcomes.parquet` and updates the
/// manifest. Returns the number of outcome rows. (On a cluster, the binary's pipeline calls
/// [`evaluate_judged`] with the cluster's judge instead: evaluate never chooses.)
pub fn evaluate_dataset(dataset: &Path, settings: &Settings, progress: &crate::progress::Progress) -> Result<usize> {
    crate::memory::give_back();
    crate::memory::retain(crate::memory::EVALUATE);
    evaluate_with(dataset, settings, progress, CHUNK_BYTES, OUTCOME_ROWS_HELD_BYTES)
}

/// `evaluate_dataset` reading about `chunk_bytes` of bodies per step and holding about
/// `rows_held_bytes` of outcome rows before it spills (the outcomes depend on neither;
/// tests check that, through `crate::testing`). The steps: read the outputs (the captures
/// arrive meanwhile, a chunk of repositories at a time), index each chunk's repositories,
/// judge their outputs with the CI gate and PR risk beside, then the outputs no capture
/// names, and write the tables and the manifest.
pub fn evaluate_with(dataset: &Path, settings: &Settings, progress: &crate::progress::Progress, chunk_bytes: usize, rows_held_bytes: usize) -> Result<usize> {
    evaluate_in_bands(dataset, settings, progress, Budgets { chunk_bytes, rows_held_bytes, band_outputs: super::bands::BAND_OUTPUTS })
}

/// The memory budgets of an evaluation (no outcome depends on them).
#[derive(Clone, Copy, Debug)]
pub struct Budgets {
    /// Body bytes read per step ([`CHUNK_BYTES`]).
    pub chunk_bytes: usize,
    /// Bytes of outcome rows held before a part is spilled ([`OUTCOME_ROWS_HELD_BYTES`]).
    pub rows_held_bytes: usize,
    /// Outputs judged per band of repositories at most (`bands`).
    pub band_outputs: usize,
}

/// `evaluate_with`, a band of repositories at a time when the study has more outputs than
/// `budgets.band_outputs` (`bands.rs`), else all at once.
pub fn evaluate_in_bands(dataset: &Path, settings: &Settings, progress: &crate::progress::Progress, budgets: Budgets) -> Result<usize> {
    match super::bands::plan(dataset, budgets.band_outputs)? {
        Some(plan) => evaluate_banded(dataset, settings, progress, budgets, plan),
        None => evaluate_whole(dataset, settings, progress, budgets.chunk_bytes, budgets.rows_held_bytes),
    }
}

/// The number of bands a study is judged in with at most `band_outputs` outputs per band.
pub fn bands(dataset: &Path, band_outputs: usize) -> Result<usize> {
    Ok(super::bands::plan(dataset, band_outputs)?.map_or(1, |p| p.ranges.len()))
}

/// The bands a study is split into with at most `band_outputs` outputs per band, and the
/// bytes their parts take on disk together (the parts are removed again, as they drop).
pub fn band_part_bytes(dataset: &Path, band_outputs: usize) -> Result<(usize, u64)> {
    let Some(plan) = super::bands::plan(dataset, band_outputs)? else { return Ok((1, 0)) };
    let parts = super::bands::Parts::new(dataset)?;
    parts.split(dataset, &plan)?;
    Ok((plan.ranges.len(), parts.bytes()))
}

/// Every output judged at once, its table held.
fn evaluate_whole(dataset: &Path, settings: &Settings, progress: &crate::progress::Progress, chunk_bytes: usize, rows_held_bytes: usize) -> Result<usize> {
    let (windows, policy) = (settings.windows.as_slice(), &settings.policy);
    let mut phases = Phases::from_env();
    let inputs = read(dataset, chunk_bytes, &mut phases)?;
    let mut parts = OutcomeParts::new(&dataset.join(".spill"), rows_held_bytes);
    let mut found = GateAndRisk::default();
    let bar = progress.bar("evaluate", inputs.band.outputs.len() as u64);
    let Judged { mut manifest, outputs, held } = judge_repositories(dataset, inputs, settings, &bar, rows_held_bytes, &mut parts, &mut found, &mut phases)?;
    bar.finish_and_clear();
    let outcomes = write_tables(dataset, parts, &outputs, || gate_and_risk_tables(&found), &mut manifest, settings)?;
    phases.mark("tables and outcomes written");
    let coverage = std::mem::take(&mut found.coverage).finish();
    // What the run held (a million outputs' columns, their gates and risks) is freed beside
    // the manifest's writing, which waited for it before.
    let held = (outputs, found, held);
    let freed = std::thread::Builder::new().name("free".into()).spawn(move || drop(held));
    save_manifest(dataset, manifest, &outcomes, policy, windows, coverage)?;
    phases.mark("manifest saved");
    if let Ok(freed) = freed {
        let _ = freed.join();
    }
    phases.mark("freed");
    Ok(outcomes.rows)
}

/// A band of repositories at a time (`bands.rs`): each band's outputs and captures judged as
/// [`evaluate_whole`] judges the study's, their rows into the same spilled parts; each band's
/// CI-gate and risk tables kept, and merged by their keys at the end, beside the outcome
/// rows' merge (which reads the outputs' columns forward through `safe_outputs`).
fn evaluate_banded(dataset: &Path, settings: &Settings, progress: &crate::progress::Progress, budgets: Budgets, plan: super::bands::Plan) -> Result<usize> {
    let (windows, policy) = (settings.windows.as_slice(), &settings.policy);
    crate::memory::retain(crate::memory::EVALUATE_BANDS);
    let mut phases = Phases::from_env();
    let mut manifest = Manifest::load(dataset)?;
    let bands = super::bands::Parts::new(dataset)?;
    // Side by side: each was one thread's work (the facts read the runs and coverage
    // tables; the split reads every output).
    let (facts, split) = rayon::join(|| study_facts(dataset, &manifest), || bands.split(dataset, &plan));
    let (captured_at, run_starts, task_prs, coverage) = facts?;
    split?;
    let coverage = std::sync::Arc::new(coverage);
    phases.mark("outputs split into bands");
    // Each band's task PRs, by the band their repository is in.
    let mut tasks_of: Vec<HashMap<String, Vec<TaskPr>>> = plan.ranges.iter().map(|_| HashMap::new()).collect();
    for (repo, prs) in task_prs {
        tasks_of[plan.band_of(Some(&repo))].insert(repo, prs);
    }
    let super::bands::Plan { ranges, outputs, run_ends } = plan;
    let (run_ends, run_starts) = (std::sync::Arc::new(run_ends), std::sync::Arc::new(run_starts));
    let mut parts = OutcomeParts::new(&dataset.join(".spill"), budgets.rows_held_bytes);
    let mut counted = coverage::Tally::default();
    let bar = progress.bar("evaluate", outputs as u64);
    for (k, (range, task_prs)) in ranges.iter().zip(tasks_of).enumerate() {
        let (chunks, reader) = captures(dataset, budgets.chunk_bytes, range.clone())?;
        let super::bands::BandRead { outputs, positions, ranks, .. } = bands.band(k)?;
        let band = Band { outputs, places: Places::Band { ranks, positions }, task_prs, chunks, reader };
        let inputs = Inputs { manifest, captured_at, run_ends: run_ends.clone(), run_starts: run_starts.clone(), coverage: coverage.clone(), band };
        let mut found = GateAndRisk::default();
        manifest = judge_repositories(dataset, inputs, settings, &bar, budgets.rows_held_bytes, &mut parts, &mut found, &mut phases)?.manifest;
        counted = counted.add(std::mem::take(&mut found.coverage));
        bands.keep_tables(k, gate_and_risk_tables(&found)?)?;
    }
    bar.finish_and_clear();
    phases.mark("bands judged");
    let (written, outcomes) = rayon::join(
        || GATE_AND_RISK_KEYS.iter().map(|(name, keys)| bands.merge_table(dataset, name, keys, ranges.len()).map(|w| (*name, w))).collect::<Result<Vec<_>>>(),
        || parts.write(dataset, crate::dataset::stream::OutputStream::open(dataset)?),
    );
    for (name, w) in written? {
        manifest.record_table(name, &w);
    }
    record_policies(&mut manifest, settings);
    let outcomes = outcomes?;
    phases.mark("tables and outcomes written");
    save_manifest(dataset, manifest, &outcomes, policy, windows, counted.finish())?;
    Ok(outcomes.rows)
}

/// What an evaluation judges under: its windows, its policy, its PR-risk and quality
/// policies. One value, made once from the command line, for every stage that judges (a
/// run, an import, an evaluation, a cluster's partitions).
#[derive(Clone, Debug)]
pub struct Settings {
    pub windows: Vec<Window>,
    pub policy: Policy,
    pub risk_policy: risk::RiskPolicy,
    pub quality_policy: quality::QualityPolicy,
}

impl Default for Settings {
    /// The default windows and policies.
    fn default() -> Settings {
        Settings { windows: super::window::DEFAULT.to_vec(), policy: Policy::default(), risk_policy: risk::RiskPolicy::default(), quality_policy: quality::QualityPolicy::default() }
    }
}

/// What judging leaves for the writing: the manifest read, the outputs (their columns fill
/// the outcome rows in) and what is freed after the writing (the ranks and indexes).
struct Judged {
    manifest: Manifest,
    outputs: SafeOutputTable,
    held: Box<dyn Send>,
}

/// Judge the outputs of a band (the whole study, or a band of repositories): each chunk of
/// repositories the reader sends indexed and judged (the CI gate and PR risk beside), then
/// the outputs and task PRs of those with no capture and the outputs of no repository. Rows
/// go to `sink`, gates and risks to `found`. The one judging of a dataset: the local run's,
/// a banded run's and a cluster's partitions' ([`judge_partition`]).
#[allow(clippy::too_many_arguments)]
fn judge_repositories(
    dataset: &Path,
    inputs: Inputs,
    settings: &Settings,
    bar: &indicatif::ProgressBar,
    rows_held_bytes: usize,
    sink: &mut (dyn RowSink + Send),
    found: &mut GateAndRisk,
    phases: &mut Phases,
) -> Result<Judged> {
    let Inputs { manifest, captured_at, run_ends, run_starts, coverage, band } = inputs;
    let Band { outputs, places, task_prs, chunks, reader } = band;
    let (windows, policy) = (settings.windows.as_slice(), &settings.policy);
    let (risk_policy, quality_policy) = (&settings.risk_policy, &settings.quality_policy);
    let Targets { by_repo, no_repo } = Targets::of(&outputs);
    phases.mark("ranks");
    let (empty, indexes) = {
        // A small budget takes small steps, so the rows held stay near it.
        let step = (rows_held_bytes / (windows.len().max(1) * 1024)).clamp(1, STEP_OUTPUTS);
        let judging = Judging {
            outputs: &outputs,
            places: &places,
            windows,
            policy,
            risk_policy,
            quality_policy,
            captured_at,
            run_ends: &run_ends,
            run_starts: &run_starts,
            coverage: &coverage,
            step,
            bar,
        };
        let mut indexes = RepoIndexes::default();
        let mut waiting = Waiting { outputs: by_repo, task_prs };
        judging.every_chunk(chunks, &mut waiting, &mut indexes, sink, found, phases)?;
        Error::joined(reader.join(), dataset.join("responses.parquet"), "the reader thread failed")?;
        phases.mark("chunks");
        phases.steps();
        let empty = indexes.empty();
        judging.rest(waiting, no_repo, &empty, sink, found)?;
        phases.mark("rest");
        (empty, indexes)
    };
    Ok(Judged { manifest, outputs, held: Box::new((places, empty, indexes)) })
}

/// Where judged rows go: the local run's parts (spilled past the budget), or a cluster
/// partition's rows, all held for the client.
pub(crate) trait RowSink {
    fn extend(&mut self, rows: Vec<OutcomeRows>) -> Result<()>;
}

impl RowSink for OutcomeParts {
    fn extend(&mut self, rows: Vec<OutcomeRows>) -> Result<()> {
        OutcomeParts::extend(self, rows)
    }
}

impl RowSink for Vec<OutcomeRows> {
    fn extend(&mut self, rows: Vec<OutcomeRows>) -> Result<()> {
        Extend::extend(self, rows.into_iter().filter(|r| !r.is_empty()));
        Ok(())
    }
}

/// How [`judge_partition`] reads a table of the dataset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BandRead {
    /// Only the rows of the band's repositories: the row groups
    /// [`crate::dataset::stream::RepoRange::row_groups`] names, and the footer.
    Repositories,
    /// Every row.
    Whole,
}

/// The tables of the dataset [`judge_partition`] reads, and how: a partition that has no
/// dataset at hand (an executor reading an object store) fetches these and only these
/// (`tests/it` judges bands from a folder holding them alone). The staging folder's plan and
/// the band's outputs are read besides.
pub const BAND_READS: [(&str, BandRead); 4] =
    [("responses", BandRead::Repositories), ("runs", BandRead::Whole), ("tasks", BandRead::Whole), ("coverage", BandRead::Whole)];

/// The repositories of band `k` of the evaluation planned in `staging`.
pub fn band_range(staging: &Path, k: usize) -> Result<crate::dataset::stream::RepoRange> {
    super::partitions::Plan::load(staging)?.range(staging, k)
}

/// One partition of a cluster's evaluation, on an executor: band `k` of the evaluation the
/// client planned in `staging` ([`evaluate_judged`]) judged by [`judge_repositories`] from
/// the dataset at `dataset`, reading only its repositories' rows of the captures and its
/// band's outputs. Its tables are written to the staging folder
/// ([`super::partitions::write_result`]): `outcomes` in [`super::outcomes::to_wire`]'s form
/// (keyed by the outputs' positions), then the CI gate's and risk tables as the local run
/// builds them, and the capture plan's counts (`coverage::TABLE`). Returns its outcome rows.
pub fn judge_partition(dataset: &Path, staging: &Path, k: usize, settings: &Settings) -> Result<usize> {
    let mut phases = Phases::from_env();
    let plan = super::partitions::Plan::load(staging)?;
    let range = plan.range(staging, k)?;
    let (captured_at, run_starts, mut task_prs, coverage) = facts(dataset, &staging.join("plan.json"), &plan.captured_at, plan.tasks)?;
    task_prs.retain(|repo, _| range.holds(Some(repo)));
    let (chunks, reader) = captures(dataset, CHUNK_BYTES, range)?;
    let super::bands::BandRead { outputs, positions, ranks, run_ends } = super::bands::Parts::written_in(staging).band(k)?;
    let band = Band { outputs, places: Places::Band { ranks, positions }, task_prs, chunks, reader };
    let (run_ends, run_starts, coverage) = (std::sync::Arc::new(run_ends), std::sync::Arc::new(run_starts), std::sync::Arc::new(coverage));
    let inputs = Inputs { manifest: Manifest::default(), captured_at, run_ends, run_starts, coverage, band };
    let mut rows: Vec<OutcomeRows> = Vec::new();
    let mut found = GateAndRisk::default();
    let hidden = crate::progress::Progress::hidden().bar("evaluate", 0);
    judge_repositories(dataset, inputs, settings, &hidden, OUTCOME_ROWS_HELD_BYTES, &mut rows, &mut found, &mut phases)?;
    let wire = super::outcomes::to_wire(rows)?;
    let judged = wire.num_rows();
    let counted = (coverage::TABLE, std::mem::take(&mut found.coverage).to_batch()?);
    let tables: Vec<_> = std::iter::once(("outcomes", wire)).chain(gate_and_risk_tables(&found)?).chain([counted]).collect();
    super::partitions::write_result(staging, k, &tables)?;
    Ok(judged)
}

/// The evaluate stage with the judging done elsewhere (`source`, a cluster): the study is
/// cut into about `partitions` bands of whole repositories ([`super::bands::plan_partitions`]),
/// each band's outputs written to the dataset's staging folder with the plan; `judge` is
/// handed the folder and the number of bands, and has each judged
/// ([`judge_partition`], which writes its tables beside them). The bands' rows are then
/// sorted and written by the local run's own writers (`write_tables`, the same spill
/// parts), so the files are those a local evaluate writes; the folder is removed whatever
/// happened. Returns the number of outcome rows.
pub fn evaluate_judged(
    dataset: &Path,
    settings: &Settings,
    source: &str,
    partitions: usize,
    judge: impl FnOnce(&Path, usize) -> Result<()>,
) -> Result<usize> {
    let (windows, policy) = (settings.windows.as_slice(), &settings.policy);
    let mut manifest = Manifest::load(dataset)?;
    let plan = super::bands::plan_partitions(dataset, partitions)?;
    let staging = super::bands::Parts::new_in(&dataset.join(super::partitions::STAGING), true)?;
    staging.split(dataset, &plan)?;
    let bands = plan.ranges.len();
    super::partitions::Plan::new(&manifest, plan.ranges).save(staging.dir())?;
    judge(staging.dir(), bands)?;
    let outputs = SafeOutputTable::read(dataset, ColumnsRead::Judged)?;
    let ranks = OutcomeRows::ranks(&(0..outputs.len()).map(|i| outputs.key(i)).collect::<Vec<_>>());
    let mut parts = OutcomeParts::new(&dataset.join(".spill"), OUTCOME_ROWS_HELD_BYTES);
    let mut tables: Vec<(String, Vec<arrow::record_batch::RecordBatch>)> = Vec::new();
    let mut rows = 0usize;
    let mut counted = coverage::Tally::default();
    for k in 0..bands {
        for (name, batch) in super::partitions::read_result(staging.dir(), k, source)? {
            if name == coverage::TABLE {
                counted = counted.add(coverage::Tally::from_batch(&batch).map_err(|message| Error::Dataset { path: dataset.to_path_buf(), message })?);
                continue;
            }
            if name == "outcomes" {
                let held = OutcomeRows::from_wire(&batch, &ranks).map_err(|message| Error::Dataset { path: dataset.to_path_buf(), message })?;
                rows += held.len();
                parts.extend(vec![held])?;
                continue;
            }
            match tables.iter_mut().find(|(n, _)| *n == name) {
                Some((_, batches)) => batches.push(batch),
                None => tables.push((name, vec![batch])),
            }
        }
    }
    // Every output in every window, once: a partition lost or run twice is an error.
    if rows != outputs.len() * windows.len() {
        return Err(Error::Usage(format!("{source} returned {rows} outcome rows for {} outputs in {} windows; nothing was written", outputs.len(), windows.len())));
    }
    let merged = || -> Result<Vec<(&'static str, arrow::record_batch::RecordBatch)>> {
        let mut out = Vec::new();
        for (name, keys) in GATE_AND_RISK_KEYS {
            let batches = tables.iter().find(|(n, _)| n == name).map(|(_, b)| b.as_slice()).unwrap_or_default();
            out.push((*name, sorted_by(batches, keys).map_err(|e| Error::Dataset { path: dataset.to_path_buf(), message: format!("the cluster's {name} rows: {e}") })?));
        }
        Ok(out)
    };
    let outcomes = write_tables(dataset, parts, &outputs, merged, &mut manifest, settings)?;
    save_manifest(dataset, manifest, &outcomes, policy, windows, counted.finish())?;
    Ok(outcomes.rows)
}

/// The CI gate's, risk and quality tables and the columns each is sorted by (see
/// `ci_gate::tables`, `risk::table` and `quality::table`, whose sorts are stable): a
/// cluster's partitions' rows, and a banded evaluation's bands, are merged in this order.
const GATE_AND_RISK_KEYS: &[(&str, &[&str])] = &[
    ("ci_gate", &["safe_output_id"]),
    ("ci_gate_steps", &["safe_output_id", "step"]),
    ("ci_gate_loop_state", &["repo", "state_file"]),
    ("pr_risk", &["safe_output_id", "task_id"]),
    ("quality_findings", quality::KEYS),
];

/// `batches` (of one schema) as one batch stably sorted by the text or integer columns
/// `keys`, an absent value first (as `Option`'s order has it).
fn sorted_by(batches: &[arrow::record_batch::RecordBatch], keys: &[&str]) -> std::result::Result<arrow::record_batch::RecordBatch, String> {
    use arrow::array::{Array, AsArray};
    use arrow::datatypes::{DataType, Int64Type};
    let Some(first) = batches.first() else { return Err("no partition returned the table".into()) };
    let all = arrow::compute::concat_batches(&first.schema(), batches).map_err(|e| e.to_string())?;
    #[derive(PartialEq, Eq, PartialOrd, Ord)]
    enum Cell<'b> {
        Text(Option<&'b str>),
        Int(Option<i64>),
    }
    let columns = keys
        .iter()
        .map(|k| all.column_by_name(k).cloned().ok_or_else(|| format!("no column `{k}`")))
        .collect::<std::result::Result<Vec<_>, _>>()?;
    for (k, c) in keys.iter().zip(&columns) {
        if !matches!(c.data_type(), DataType::Utf8 | DataType::Int64) {
            return Err(format!("column `{k}` is {}, not text or an integer", c.data_type()));
        }
    }
    fn cell(c: &arrow::array::ArrayRef, r: usize) -> Cell<'_> {
        match c.data_type() {
            DataType::Utf8 => Cell::Text(c.is_valid(r).then(|| c.as_string::<i32>().value(r))),
            _ => Cell::Int(c.is_valid(r).then(|| c.as_primitive::<Int64Type>().value(r))),
        }
    }
    let mut order: Vec<u32> = (0..all.num_rows() as u32).collect();
    order.sort_by(|&a, &b| columns.iter().map(|c| cell(c, a as usize)).cmp(columns.iter().map(|c| cell(c, b as usize))));
    arrow::compute::take_record_batch(&all, &arrow::array::UInt32Array::from(order)).map_err(|e| e.to_string())
}

/// What the evaluate stage reads before judging, and the captures on their way.
struct Inputs {
    manifest: Manifest,
    /// The snapshot's time: the end of the snapshot window.
    captured_at: time::Instant,
    /// Per run, the time of its last output ([`super::judge::run_ends`]).
    run_ends: std::sync::Arc<HashMap<String, time::Instant>>,
    /// Per run, when it began: the CI gate's clock ([`ci_gate::run_starts`]).
    run_starts: std::sync::Arc<ci_gate::RunStarts>,
    /// Per run, the coverage report it uploaded ([`risk::coverage_by_run`]).
    coverage: std::sync::Arc<risk::CoverageByRun>,
    band: Band,
}

/// The outputs judged together (every one, or a band's), their task PRs, and the captures
/// of their repositories on their way.
struct Band {
    outputs: SafeOutputTable,
    places: Places,
    /// The PRs of task records, by repository.
    task_prs: HashMap<String, Vec<TaskPr>>,
    /// The captures, a chunk of whole repositories at a time, as the reader reads them.
    chunks: std::sync::mpsc::Receiver<Vec<RepoGroup>>,
    reader: std::thread::JoinHandle<Result<()>>,
}

/// Where each output's rows go in the table (`RowKey`'s rank and position).
enum Places {
    /// Every output of the study is in the table: its ranks, by position.
    Whole(Vec<usize>),
    /// A band's outputs: each one's rank and position in the study's table.
    Band { ranks: Vec<usize>, positions: Vec<usize> },
}

impl Places {
    fn of(&self, i: usize) -> (usize, usize) {
        match self {
            Places::Whole(ranks) => (ranks[i], i),
            Places::Band { ranks, positions } => (ranks[i], positions[i]),
        }
    }
}

/// The reader of the captures of `range`'s repositories, on a thread of its own from the
/// start (the first chunk is ready when judging can begin); it stops at its next chunk if
/// the judging side has gone.
fn captures(dataset: &Path, chunk_bytes: usize, range: crate::dataset::stream::RepoRange) -> Result<(std::sync::mpsc::Receiver<Vec<RepoGroup>>, std::thread::JoinHandle<Result<()>>)> {
    let (tx, chunks) = std::sync::mpsc::sync_channel::<Vec<RepoGroup>>(1);
    let dir = dataset.to_path_buf();
    let reader = std::thread::Builder::new()
        .name("responses".into())
        .spawn(move || {
            crate::dataset::read::response_groups_in(&dir, chunk_bytes, &range, |groups| {
                tx.send(groups).map_err(|_| Error::Dataset { path: dir.join("responses.parquet"), message: "evaluation stopped".into() })
            })
        })
        .map_err(|e| Error::io(dataset, e))?;
    Ok((chunks, reader))
}

/// Read: the outputs, the manifest and the task records' PRs, while the captures are read
/// on a thread of their own from the start.
fn read(dataset: &Path, chunk_bytes: usize, phases: &mut Phases) -> Result<Inputs> {
    // A large study's manifest (its list of inputs) takes a while to parse: it is read
    // beside the outputs, and only its snapshot time is needed before judging.
    let manifest = {
        let dir = dataset.to_path_buf();
        std::thread::Builder::new().name("manifest".into()).spawn(move || Manifest::load(&dir)).map_err(|e| Error::io(dataset, e))?
    };
    let (chunks, reader) = captures(dataset, chunk_bytes, Default::default())?;
    let outputs = SafeOutputTable::read(dataset, ColumnsRead::Judged)?;
    let run_ends = super::judge::run_ends((0..outputs.len()).map(|i| outputs.acting(i)));
    let places = Places::Whole(OutcomeRows::ranks(&(0..outputs.len()).map(|i| outputs.key(i)).collect::<Vec<_>>()));
    phases.mark("outputs read");
    let manifest = Error::joined(manifest.join(), dataset.join("manifest.json"), "the thread reading it failed")?;
    phases.mark("manifest read");
    let (captured_at, run_starts, task_prs, coverage) = study_facts(dataset, &manifest)?;
    let band = Band { outputs, places, task_prs, chunks, reader };
    let (run_ends, run_starts, coverage) = (std::sync::Arc::new(run_ends), std::sync::Arc::new(run_starts), std::sync::Arc::new(coverage));
    Ok(Inputs { manifest, captured_at, run_ends, run_starts, coverage, band })
}

/// What every band of a study shares, read once: the snapshot's time, when each run began
/// and the PRs of task records (with --tasks), by repository (their risk level is assessed
/// from the same captures as the outputs' PRs).
fn study_facts(dataset: &Path, manifest: &Manifest) -> Result<StudyFacts> {
    facts(dataset, &dataset.join("manifest.json"), &manifest.captured_at, manifest.tables.contains_key("tasks"))
}

/// The snapshot's time, when each run began, the task records' PRs and the coverage reports.
type StudyFacts = (time::Instant, ci_gate::RunStarts, HashMap<String, Vec<TaskPr>>, risk::CoverageByRun);

/// [`study_facts`] from what a manifest or a cluster's plan (`said_in`) says: the snapshot's
/// time and whether the study has task records.
fn facts(dataset: &Path, said_in: &Path, captured_at: &str, tasks: bool) -> Result<StudyFacts> {
    let at = time::parse(captured_at)
        .ok_or_else(|| Error::Dataset { path: said_in.to_path_buf(), message: format!("captured_at `{captured_at}` is not an RFC 3339 time") })?;
    let run_starts = ci_gate::run_starts(crate::dataset::read::run_infos(dataset)?.into_iter());
    let task_prs = if tasks { task_prs(dataset)? } else { HashMap::new() };
    Ok((at, run_starts, task_prs, risk::coverage_by_run(dataset)?))
}

/// Which outputs each repository's captures judge, and where each output's rows go.
struct Targets<'o> {
    /// The outputs of each repository, by position in the table.
    by_repo: HashMap<&'o str, Vec<usize>>,
    /// The outputs that name no repository.
    no_repo: Vec<usize>,
}

impl<'o> Targets<'o> {
    /// The outputs grouped by the repository they target.
    fn of(outputs: &'o SafeOutputTable) -> Targets<'o> {
        let mut by_repo: HashMap<&str, Vec<usize>> = HashMap::new();
        let mut no_repo = Vec::new();
        for i in 0..outputs.len() {
            match outputs.target_repo(i) {
                Some(r) => by_repo.entry(r).or_default().push(i),
                None => no_repo.push(i),
            }
        }
        Targets { by_repo, no_repo }
    }
}

/// The outputs (by position) and task PRs of each repository, until a chunk of its
/// captures takes them: what is left at the end has no capture.
struct Waiting<'o> {
    outputs: HashMap<&'o str, Vec<usize>>,
    task_prs: HashMap<String, Vec<TaskPr>>,
}

/// A chunk's repositories, indexed: each one's outputs made whole, its task PRs and its index.
type Indexed<'o> = Vec<(Vec<(usize, SafeOutput<'o>)>, Vec<TaskPr>, SnapshotIndex)>;

/// A chunk's repositories as read: each one's outputs (by position), task PRs and captures.
type ChunkRepos = Vec<(Vec<usize>, Vec<TaskPr>, Vec<ResponseRow>)>;

/// The CI gate's replays, the PR risk levels, the PRs' quality findings and the capture
/// plan's counts found so far.
#[derive(Default)]
struct GateAndRisk {
    replays: ci_gate::Replays,
    risks: Vec<risk::Risk>,
    findings: Vec<quality::Finding>,
    coverage: coverage::Tally,
}

impl GateAndRisk {
    fn extend(&mut self, (replays, assessed): (ci_gate::Replays, Vec<(risk::Risk, Vec<quality::Finding>)>), counted: coverage::Tally) {
        self.replays.extend(replays);
        self.add(assessed);
        self.coverage = std::mem::take(&mut self.coverage).add(counted);
    }

    /// PRs assessed: each one's risk, and its quality findings.
    fn add(&mut self, assessed: Vec<(risk::Risk, Vec<quality::Finding>)>) {
        for (risk, findings) in assessed {
            self.risks.push(risk);
            self.findings.extend(findings);
        }
    }
}

/// What judging every chunk shares: the outputs and their ranks, the windows and policies.
struct Judging<'a> {
    outputs: &'a SafeOutputTable,
    places: &'a Places,
    windows: &'a [Window],
    policy: &'a Policy,
    risk_policy: &'a risk::RiskPolicy,
    quality_policy: &'a quality::QualityPolicy,
    captured_at: time::Instant,
    run_ends: &'a HashMap<String, time::Instant>,
    run_starts: &'a ci_gate::RunStarts,
    coverage: &'a risk::CoverageByRun,
    /// Outputs judged per step at most.
    step: usize,
    bar: &'a indicatif::ProgressBar,
}

impl<'a> Judging<'a> {
    /// Every chunk the reader sends, two in flight with more than one thread: one judged
    /// while the next one's outputs are made whole and its index built (mostly one thread's
    /// work per repository, which alone left the other thread idle), both on the pool's
    /// threads. The reader reads the chunk after meanwhile. The outputs and task PRs of each
    /// chunk's repositories are taken from `waiting`.
    fn every_chunk(
        &self,
        chunks: std::sync::mpsc::Receiver<Vec<RepoGroup>>,
        waiting: &mut Waiting<'a>,
        indexes: &mut RepoIndexes,
        parts: &mut (dyn RowSink + Send),
        found: &mut GateAndRisk,
        phases: &mut Phases,
    ) -> Result<()> {
        let mut ready: Option<Indexed<'a>> = None;
        let mut waited = std::time::Instant::now();
        for groups in chunks {
            phases.add("wait for the reader", waited);
            let (_, groups) = indexes.take(groups);
            let mut repos: ChunkRepos =
                groups.into_iter().map(|(r, rows)| (waiting.outputs.remove(r.as_str()).unwrap_or_default(), waiting.task_prs.remove(r.as_str()).unwrap_or_default(), rows)).collect();
            // Repositories no output targets and no task's PR is in are not parsed at all.
            repos.retain(|(ids, tasks, _)| !ids.is_empty() || !tasks.is_empty());
            let t = std::time::Instant::now();
            let indexes = &*indexes;
            let next = match ready.take() {
                None => {
                    let next = self.index(repos, indexes);
                    phases.add("make the first chunk's outputs whole and build its indexes", t);
                    next
                }
                // One thread gains nothing by it, and holds two chunks' memory.
                Some(current) if rayon::current_num_threads() == 1 => {
                    self.judge_chunk(current, parts, found, phases)?;
                    self.index(repos, indexes)
                }
                Some(current) => {
                    let (judged, next) = rayon::join(|| self.judge_chunk(current, parts, found, phases), || self.index(repos, indexes));
                    judged?;
                    next
                }
            };
            ready = Some(next);
            waited = std::time::Instant::now();
        }
        if let Some(last) = ready.take() {
            self.judge_chunk(last, parts, found, phases)?;
        }
        Ok(())
    }

    /// Index: a chunk's repositories made ready to judge, each one's outputs made whole and
    /// its index built from its captures.
    fn index(&self, repos: ChunkRepos, indexes: &RepoIndexes) -> Indexed<'a> {
        repos
            .into_par_iter()
            .map(|(ids, tasks, captures)| {
                // Side by side: building an index is mostly one thread's work.
                let (ids, index) = rayon::join(|| ids.into_par_iter().map(|i| (i, self.outputs.get(i))).collect(), || indexes.build(captures));
                (ids, tasks, index)
            })
            .collect()
    }

    /// One evaluation per index: what is derived from its captures is shared by its outputs.
    fn evaluation<'i>(&'i self, index: &'i SnapshotIndex) -> Evaluation<'i> {
        Evaluation::new(index, self.captured_at, self.policy, self.windows).with_run_ends(self.run_ends)
    }

    /// Judge a chunk: each repository's outputs against its index, the CI gate and PR risk
    /// beside (they only read the indexes); its indexes are freed after.
    fn judge_chunk(&self, indexed: Indexed<'a>, parts: &mut (dyn RowSink + Send), found: &mut GateAndRisk, phases: &mut Phases) -> Result<()> {
        let t = std::time::Instant::now();
        let evaluations: Vec<(&[(usize, SafeOutput)], Evaluation)> = indexed.iter().map(|(ids, _, index)| (ids.as_slice(), self.evaluation(index))).collect();
        let (rows, (gated, counted)) = rayon::join(
            || self.judge(parts, evaluations.iter().flat_map(|(ids, ev)| ids.iter().map(move |(i, o)| (*i, o, ev))).collect()),
            || rayon::join(|| self.gate_and_risk(&indexed), || Self::coverage(&evaluations)),
        );
        rows?;
        drop(evaluations);
        found.extend(gated, counted);
        let t = phases.add("judge, ci gate and risk", t);
        // Freed here, not beside the next chunk's judging: that was no faster (BENCHMARKS.md,
        // twelfth step) and held more memory.
        SnapshotIndex::free(indexed.into_iter().map(|(_, _, index)| index));
        phases.add("drop indexes", t);
        Ok(())
    }

    /// Judge: each output in every window, its rows added to `parts` (each worker fills its
    /// own rows; they are sorted when spilled or written).
    fn judge(&self, parts: &mut (dyn RowSink + Send), jobs: Vec<(usize, &SafeOutput, &Evaluation)>) -> Result<()> {
        for jobs in jobs.chunks(self.step) {
            let judged = in_pieces(jobs, self.windows.len(), |&(i, o, ev), rows| {
                let (rank, seq) = self.places.of(i);
                for (w, (v, at)) in self.windows.iter().zip(ev.judge_all(o)) {
                    rows.push(o, rank, seq, *w, at, &v);
                }
            });
            // Counted per step, not per output: every thread's count of every output was
            // one shared counter, and a clock read, each time.
            self.bar.inc(jobs.len() as u64);
            parts.extend(judged)?;
        }
        Ok(())
    }

    /// The capture plan of a chunk's repositories, each against its index (read as the
    /// judging reads it: the same facts).
    fn coverage(evaluations: &[(&[(usize, SafeOutput)], Evaluation)]) -> coverage::Tally {
        evaluations
            .par_iter()
            .map(|(ids, ev)| coverage::repository(&ids.iter().map(|(_, o)| o).collect::<Vec<_>>(), ev.index, ev.facts()))
            .reduce(coverage::Tally::default, coverage::Tally::add)
    }

    /// Gate and risk: the CI gate ([SPEC-CIGATE]), replayed for the outputs that push code,
    /// and the PR risk level ([SPEC-TASKS-TIER3]), from the PRs' captured files. Split by
    /// output, not only by repository: a chunk holds a few repositories, often of very
    /// different sizes.
    /// Each PR's quality findings are read from the same captures, for the same subject.
    fn gate_and_risk(&self, indexed: &Indexed<'_>) -> (ci_gate::Replays, Vec<(risk::Risk, Vec<quality::Finding>)>) {
        rayon::join(
            || {
                indexed.par_iter().map(|(ids, _, index)| ci_gate::replay_all(index, &ids.iter().map(|(_, o)| o).collect::<Vec<_>>(), self.run_starts)).reduce(
                    ci_gate::Replays::default,
                    |mut a, b| {
                        a.extend(b);
                        a
                    },
                )
            },
            || {
                indexed
                    .par_iter()
                    .flat_map(|(ids, tasks, index)| {
                        // The import graph of a base tree, built once for the PRs on it.
                        let graphs = std::sync::Arc::new(super::dependents::Graphs::default());
                        let g = graphs.clone();
                        let outputs = ids.par_iter().filter_map(move |(_, o)| risk::assess(index, o, self.risk_policy, self.coverage, &g));
                        // A task PR's coverage: the report of a run on the same PR, if any.
                        let reports = risk::pr_reports(ids.iter().map(|(_, o)| o), self.coverage);
                        let assess = move |t: &TaskPr| risk::assess_task(index, &t.task_id, &t.repo, t.number, self.risk_policy, reports.of(&t.repo, t.number), &graphs);
                        let risks = outputs.chain(tasks.par_iter().map(assess));
                        risks.map(|r| {
                            let findings = quality::assess(index, &r, self.quality_policy);
                            (r, findings)
                        })
                    })
                    .collect()
            },
        )
    }

    /// The outputs and task PRs of repositories with no capture at all (still `waiting`) and
    /// the outputs with no repository, gated, assessed and judged against the captures of
    /// no repository alone (`empty`).
    fn rest(&self, waiting: Waiting<'a>, no_repo: Vec<usize>, empty: &SnapshotIndex, parts: &mut (dyn RowSink + Send), found: &mut GateAndRisk) -> Result<()> {
        let Waiting { outputs, task_prs } = waiting;
        let mut rest: Vec<usize> = outputs.into_values().flatten().chain(no_repo).collect();
        rest.sort_unstable();
        let rest: Vec<(usize, SafeOutput)> = rest.into_par_iter().map(|i| (i, self.outputs.get(i))).collect();
        found.replays.extend(ci_gate::replay_all(empty, &rest.iter().map(|(_, o)| o).collect::<Vec<_>>(), self.run_starts));
        let graphs = super::dependents::Graphs::default();
        let risks = rest.iter().filter_map(|(_, o)| risk::assess(empty, o, self.risk_policy, self.coverage, &graphs));
        let reports = risk::pr_reports(rest.iter().map(|(_, o)| o), self.coverage);
        let risks = risks.chain(task_prs.values().flatten().map(|t| risk::assess_task(empty, &t.task_id, &t.repo, t.number, self.risk_policy, reports.of(&t.repo, t.number), &graphs)));
        // No repository's captures: no PR's files, so no finding; assessed all the same.
        found.add(
            risks
                .map(|r| {
                    let findings = quality::assess(empty, &r, self.quality_policy);
                    (r, findings)
                })
                .collect(),
        );
        let ev = self.evaluation(empty);
        // Their reads are missing but for captures of no repository (a team, a project).
        let counted = coverage::each_repository(&rest.iter().map(|(_, o)| o).collect::<Vec<_>>(), empty, ev.facts());
        found.coverage = std::mem::take(&mut found.coverage).add(counted);
        self.judge(parts, rest.iter().map(|(i, o)| (*i, o, &ev)).collect())
    }
}

/// `jobs` judged in parallel, the rows of each `PIECE_OUTPUTS` of them (`rows_each` rows a
/// job, about) into a part of their own. Pieces of a fixed size, not rayon's own split of a
/// fold: that made a part per steal, so more threads held more parts, each with room for
/// 1,024 rows (24,665 parts of ~20 rows at 16 threads against 155 at 2, for 100k outputs:
/// 0.36 -> 1.9 GB resident).
fn in_pieces<J: Sync>(jobs: &[J], rows_each: usize, judge: impl Fn(&J, &mut OutcomeRows) + Sync) -> Vec<OutcomeRows> {
    jobs.par_chunks(PIECE_OUTPUTS)
        .map(|piece| {
            let mut rows = OutcomeRows::with_capacity(piece.len() * rows_each);
            for job in piece {
                judge(job, &mut rows);
            }
            rows.done()
        })
        .collect()
}

/// Write: the CI-gate and risk tables while the outcome rows are merged into
/// `outcomes.parquet` (both are mostly one thread's work, and neither reads the other; each
/// table is dropped by the task that wrote it: a million rows of cells take a while to
/// free). The gate, risk and quality tables and the policies are recorded in the manifest.
fn write_tables(
    dataset: &Path,
    parts: OutcomeParts,
    outputs: &SafeOutputTable,
    tables: impl FnOnce() -> Result<Vec<(&'static str, arrow::record_batch::RecordBatch)>> + Send,
    manifest: &mut Manifest,
    settings: &Settings,
) -> Result<crate::dataset::Written> {
    let (written, outcomes) = rayon::join(
        || {
            let tables = tables()?;
            tables.into_par_iter().map(|(name, t)| crate::dataset::write_batch(dataset, name, &t).map(|w| (name, w))).collect::<Result<Vec<_>>>()
        },
        || parts.write(dataset, outputs),
    );
    for (name, w) in written? {
        manifest.record_table(name, &w);
    }
    record_policies(manifest, settings);
    outcomes
}

/// The PR risk and quality policies in force, into the manifest.
fn record_policies(manifest: &mut Manifest, settings: &Settings) {
    manifest.risk_policy = Some(settings.risk_policy.to_json());
    manifest.quality_policy = Some(settings.quality_policy.to_json());
}

/// The CI gate's tables, the risk table and the quality table of what was found, built
/// side by side.
fn gate_and_risk_tables(found: &GateAndRisk) -> Result<Vec<(&'static str, arrow::record_batch::RecordBatch)>> {
    let (gate, (risk, quality)) = rayon::join(|| ci_gate::tables(&found.replays), || rayon::join(|| risk::table(&found.risks), || quality::table(&found.findings)));
    Ok(gate?.into_iter().chain([risk?, quality?]).collect())
}

/// Write the manifest: the outcomes table, the policy and windows it was judged under, and
/// the capture plan's counts (an AIDev import has none: its captures are rebuilt from its
/// own tables).
fn save_manifest(
    dataset: &Path,
    mut manifest: Manifest,
    outcomes: &crate::dataset::Written,
    policy: &Policy,
    windows: &[Window],
    coverage: crate::dataset::manifest::CaptureCoverage,
) -> Result<()> {
    manifest.record_table("outcomes", outcomes);
    manifest.policy = Some(policy.to_json());
    manifest.windows = windows.iter().map(|w| w.to_string()).collect();
    manifest.capture_coverage = (!manifest.tables.contains_key(crate::aidev::PR_TABLE)).then_some(coverage);
    manifest.save(dataset)
}

/// A task record's PR (`tasks.pr_repo`, `pr_number`).
struct TaskPr {
    task_id: String,
    repo: String,
    number: i64,
}

/// The PRs of the dataset's task records (its `tasks` table), by repository.
fn task_prs(dataset: &Path) -> Result<HashMap<String, Vec<TaskPr>>> {
    let mut out: HashMap<String, Vec<TaskPr>> = HashMap::new();
    for batch in crate::dataset::read::columns(dataset, "tasks", &["task_id", "pr_repo", "pr_number"])? {
        let c = crate::dataset::read::Cols::new("tasks", &batch);
        let (id, repo, number) = (c.str("task_id")?, c.str("pr_repo")?, c.int("pr_number")?);
        for ((id, repo), number) in id.into_iter().zip(repo).zip(number) {
            if let (Some(task_id), Some(repo), Some(number)) = (id, repo, number) {
                out.entry(repo.clone()).or_default().push(TaskPr { task_id, repo, number });
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evaluate::rule::{common, Common};
    use crate::evaluate::spill::tests::output;

    /// The parts judged rows are held in are the same at any thread count: a piece of
    /// outputs each, in order, so the memory held does not grow with threads.
    #[test]
    fn judged_rows_are_held_in_the_same_parts_at_any_thread_count() {
        let outputs: Vec<_> = (0..1000).map(output).collect();
        let verdict = common(Common::Staged);
        let windows = [Window::Hours(24), Window::Snapshot];
        let parts = |threads: usize| -> Vec<(usize, usize)> {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            let judged = pool.install(|| {
                in_pieces(&outputs, windows.len(), |o, rows| {
                    let seq = o.item_index as usize;
                    for w in windows {
                        rows.push(o, seq, seq, w, None, &verdict);
                    }
                })
            });
            judged.iter().map(|p| (p.len(), p.first_position())).collect()
        };
        let one = parts(1);
        let expected: Vec<(usize, usize)> = (0..outputs.len()).step_by(PIECE_OUTPUTS).map(|s| (2 * PIECE_OUTPUTS.min(outputs.len() - s), s)).collect();
        assert_eq!(one, expected, "one thread");
        assert_eq!(parts(16), expected, "sixteen threads");
    }
}
