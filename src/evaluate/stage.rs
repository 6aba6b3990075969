//! The evaluate stage on a dataset directory: threads, Parquet and the manifest around
//! [`Evaluation`] (convert's driver is `pipeline.rs`).

use std::collections::HashMap;
use std::path::Path;

use rayon::prelude::*;

use super::spill::OutcomeParts;
use super::{ci_gate, risk, Evaluation, OutcomeRows, Policy, Window};
use crate::dataset::manifest::Manifest;
use crate::error::{Error, Result};
use crate::phases::Phases;
use crate::dataset::read::{ColumnsRead, RepoGroup, RepoIndexes, ResponseRow, SafeOutputTable};
use crate::runs::SafeOutput;
use crate::snapshot::SnapshotIndex;
use crate::time;

/// Body bytes read per step of the evaluate stage: whole repositories, so the parsed snapshot
/// in memory stays near a few times this, whatever the study's size.
pub(crate) const CHUNK_BYTES: usize = 32 << 20;

/// Bytes of outcome rows evaluate holds in memory before it spills a sorted part to disk
/// (while one part is written the next is held: twice this at most).
pub(crate) const OUTCOME_ROWS_HELD_BYTES: usize = 64 << 20;

/// Outputs judged per step at most: the rows of one step are what can pass the budget.
const STEP_OUTPUTS: usize = 16 * 1024;

/// The evaluate stage on a dataset directory: reads `safe_outputs`, then `responses` one
/// repository at a time (each repository's outputs are judged against its captures, with
/// the paths of no repository shared by all), writes `outcomes.parquet` and updates the
/// manifest. Returns the number of outcome rows.
pub fn evaluate_dataset(
    dataset: &Path,
    windows: &[Window],
    policy: &Policy,
    risk_policy: &risk::RiskPolicy,
    progress: &crate::progress::Progress,
) -> Result<usize> {
    evaluate_with(dataset, windows, policy, risk_policy, progress, CHUNK_BYTES, OUTCOME_ROWS_HELD_BYTES)
}

/// `evaluate_dataset` reading about `chunk_bytes` of bodies per step and holding about
/// `rows_held_bytes` of outcome rows before it spills (the outcomes depend on neither;
/// tests check that, through `crate::testing`). The steps: read the outputs (the captures
/// arrive meanwhile, a chunk of repositories at a time), index each chunk's repositories,
/// judge their outputs with the CI gate and PR risk beside, then the outputs no capture
/// names, and write the tables and the manifest.
pub(crate) fn evaluate_with(
    dataset: &Path,
    windows: &[Window],
    policy: &Policy,
    risk_policy: &risk::RiskPolicy,
    progress: &crate::progress::Progress,
    chunk_bytes: usize,
    rows_held_bytes: usize,
) -> Result<usize> {
    let mut phases = Phases::from_env();
    let Inputs { mut manifest, captured_at, outputs, run_ends, task_prs, chunks, reader } = read(dataset, chunk_bytes, &mut phases)?;
    let Targets { ranks, by_repo, no_repo } = Targets::of(&outputs);
    phases.mark("ranks");
    let bar = progress.bar("evaluate", outputs.len() as u64);
    // A small budget takes small steps, so the rows held stay near it.
    let step = (rows_held_bytes / (windows.len().max(1) * 1024)).clamp(1, STEP_OUTPUTS);
    let judging = Judging { outputs: &outputs, ranks: &ranks, windows, policy, risk_policy, captured_at, run_ends: &run_ends, step, bar: &bar };
    let mut parts = OutcomeParts::new(&dataset.join(".spill"), rows_held_bytes);
    let mut found = GateAndRisk::default();
    let mut indexes = RepoIndexes::default();
    let mut waiting = Waiting { outputs: by_repo, task_prs };
    judging.every_chunk(chunks, &mut waiting, &mut indexes, &mut parts, &mut found, &mut phases)?;
    Error::joined(reader.join(), dataset.join("responses.parquet"), "the reader thread failed")?;
    phases.mark("chunks");
    phases.steps();
    let empty = indexes.empty();
    judging.rest(waiting, no_repo, &empty, &mut parts, &mut found)?;
    bar.finish_and_clear();
    phases.mark("rest");
    let outcomes = write_tables(dataset, parts, &outputs, &found, &mut manifest, risk_policy)?;
    phases.mark("tables and outcomes written");
    // What the run held (a million outputs' columns, their gates and risks) is freed beside
    // the manifest's writing, which waited for it before.
    let held = (outputs, ranks, found, empty, indexes);
    let freed = std::thread::Builder::new().name("free".into()).spawn(move || drop(held));
    save_manifest(dataset, manifest, &outcomes, policy, windows)?;
    phases.mark("manifest saved");
    if let Ok(freed) = freed {
        let _ = freed.join();
    }
    phases.mark("freed");
    Ok(outcomes.rows)
}

/// What the evaluate stage reads before judging, and the captures on their way.
struct Inputs {
    manifest: Manifest,
    /// The snapshot's time: the end of the snapshot window.
    captured_at: time::Instant,
    outputs: SafeOutputTable,
    /// Per run, the time of its last output ([`super::judge::run_ends`]).
    run_ends: HashMap<String, time::Instant>,
    /// The PRs of task records, by repository.
    task_prs: HashMap<String, Vec<TaskPr>>,
    /// The captures, a chunk of whole repositories at a time, as the reader reads them.
    chunks: std::sync::mpsc::Receiver<Vec<RepoGroup>>,
    reader: std::thread::JoinHandle<Result<()>>,
}

/// Read: the outputs, the manifest and the task records' PRs, while the captures are read
/// on a thread of their own from the start (the first chunk is ready when judging can begin).
fn read(dataset: &Path, chunk_bytes: usize, phases: &mut Phases) -> Result<Inputs> {
    // A large study's manifest (its list of inputs) takes a while to parse: it is read
    // beside the outputs, and only its snapshot time is needed before judging.
    let manifest = {
        let dir = dataset.to_path_buf();
        std::thread::Builder::new().name("manifest".into()).spawn(move || Manifest::load(&dir)).map_err(|e| Error::io(dataset, e))?
    };
    // The reader stops at its next chunk if the judging side has gone.
    let (tx, chunks) = std::sync::mpsc::sync_channel::<Vec<RepoGroup>>(1);
    let reader = {
        let dir = dataset.to_path_buf();
        std::thread::Builder::new()
            .name("responses".into())
            .spawn(move || {
                crate::dataset::read::response_groups(&dir, chunk_bytes, |groups| {
                    tx.send(groups).map_err(|_| Error::Dataset { path: dir.join("responses.parquet"), message: "evaluation stopped".into() })
                })
            })
            .map_err(|e| Error::io(dataset, e))?
    };
    let outputs = SafeOutputTable::read(dataset, ColumnsRead::Judged)?;
    let run_ends = super::judge::run_ends((0..outputs.len()).map(|i| outputs.acting(i)));
    phases.mark("outputs read");
    let manifest = Error::joined(manifest.join(), dataset.join("manifest.json"), "the thread reading it failed")?;
    phases.mark("manifest read");
    let captured_at = time::parse(&manifest.captured_at).ok_or_else(|| Error::Dataset {
        path: dataset.join("manifest.json"),
        message: format!("captured_at `{}` is not an RFC 3339 time", manifest.captured_at),
    })?;
    // The PRs of task records (with --tasks), by repository: their risk level is assessed
    // from the same captures as the outputs' PRs.
    let task_prs = task_prs(dataset, &manifest)?;
    Ok(Inputs { manifest, captured_at, outputs, run_ends, task_prs, chunks, reader })
}

/// Which outputs each repository's captures judge, and where each output's rows go.
struct Targets<'o> {
    /// Each output's rank in the order of (run id, item index): its rows' place.
    ranks: Vec<usize>,
    /// The outputs of each repository, by position in the table.
    by_repo: HashMap<&'o str, Vec<usize>>,
    /// The outputs that name no repository.
    no_repo: Vec<usize>,
}

impl<'o> Targets<'o> {
    /// The outputs grouped by the repository they target, and ranked.
    fn of(outputs: &'o SafeOutputTable) -> Targets<'o> {
        let ranks = OutcomeRows::ranks(&(0..outputs.len()).map(|i| outputs.key(i)).collect::<Vec<_>>());
        let mut by_repo: HashMap<&str, Vec<usize>> = HashMap::new();
        let mut no_repo = Vec::new();
        for i in 0..outputs.len() {
            match outputs.target_repo(i) {
                Some(r) => by_repo.entry(r).or_default().push(i),
                None => no_repo.push(i),
            }
        }
        Targets { ranks, by_repo, no_repo }
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

/// The CI gate's replays and the PR risk levels found so far.
#[derive(Default)]
struct GateAndRisk {
    replays: ci_gate::Replays,
    risks: Vec<risk::Risk>,
}

impl GateAndRisk {
    fn extend(&mut self, (replays, risks): (ci_gate::Replays, Vec<risk::Risk>)) {
        self.replays.extend(replays);
        self.risks.extend(risks);
    }
}

/// What judging every chunk shares: the outputs and their ranks, the windows and policies.
struct Judging<'a> {
    outputs: &'a SafeOutputTable,
    ranks: &'a [usize],
    windows: &'a [Window],
    policy: &'a Policy,
    risk_policy: &'a risk::RiskPolicy,
    captured_at: time::Instant,
    run_ends: &'a HashMap<String, time::Instant>,
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
        parts: &mut OutcomeParts,
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
    fn judge_chunk(&self, indexed: Indexed<'a>, parts: &mut OutcomeParts, found: &mut GateAndRisk, phases: &mut Phases) -> Result<()> {
        let t = std::time::Instant::now();
        let evaluations: Vec<(&[(usize, SafeOutput)], Evaluation)> = indexed.iter().map(|(ids, _, index)| (ids.as_slice(), self.evaluation(index))).collect();
        let (rows, gated) = rayon::join(
            || self.judge(parts, evaluations.iter().flat_map(|(ids, ev)| ids.iter().map(move |(i, o)| (*i, o, ev))).collect()),
            || self.gate_and_risk(&indexed),
        );
        rows?;
        drop(evaluations);
        found.extend(gated);
        let t = phases.add("judge, ci gate and risk", t);
        // Freed here, not beside the next chunk's judging: that was no faster (BENCHMARKS.md,
        // twelfth step) and held more memory.
        SnapshotIndex::free(indexed.into_iter().map(|(_, _, index)| index));
        phases.add("drop indexes", t);
        Ok(())
    }

    /// Judge: each output in every window, its rows added to `parts` (each worker fills its
    /// own rows; they are sorted when spilled or written).
    fn judge(&self, parts: &mut OutcomeParts, jobs: Vec<(usize, &SafeOutput, &Evaluation)>) -> Result<()> {
        for jobs in jobs.chunks(self.step) {
            let judged: Vec<OutcomeRows> = jobs
                .par_iter()
                .fold(OutcomeRows::default, |mut rows, &(i, o, ev)| {
                    for (w, (v, at)) in self.windows.iter().zip(ev.judge_all(o)) {
                        rows.push(o, self.ranks[i], i, *w, at, &v);
                    }
                    rows
                })
                .collect();
            // Counted per step, not per output: every thread's count of every output was
            // one shared counter, and a clock read, each time.
            self.bar.inc(jobs.len() as u64);
            parts.extend(judged)?;
        }
        Ok(())
    }

    /// Gate and risk: seed 002's CI gate, replayed for the outputs that push code, and seed
    /// 004's PR risk level, from the PRs' captured files. Split by output, not only by
    /// repository: a chunk holds a few repositories, often of very different sizes.
    fn gate_and_risk(&self, indexed: &Indexed<'_>) -> (ci_gate::Replays, Vec<risk::Risk>) {
        rayon::join(
            || {
                indexed.par_iter().map(|(ids, _, index)| ci_gate::replay_all(index, &ids.iter().map(|(_, o)| o).collect::<Vec<_>>())).reduce(
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
                        let outputs = ids.par_iter().filter_map(|(_, o)| risk::assess(index, o, self.risk_policy));
                        outputs.chain(tasks.par_iter().map(|t| risk::assess_task(index, &t.task_id, &t.repo, t.number, self.risk_policy)))
                    })
                    .collect()
            },
        )
    }

    /// The outputs and task PRs of repositories with no capture at all (still `waiting`) and
    /// the outputs with no repository, gated, assessed and judged against the captures of
    /// no repository alone (`empty`).
    fn rest(&self, waiting: Waiting<'a>, no_repo: Vec<usize>, empty: &SnapshotIndex, parts: &mut OutcomeParts, found: &mut GateAndRisk) -> Result<()> {
        let Waiting { outputs, task_prs } = waiting;
        let mut rest: Vec<usize> = outputs.into_values().flatten().chain(no_repo).collect();
        rest.sort_unstable();
        let rest: Vec<(usize, SafeOutput)> = rest.into_par_iter().map(|i| (i, self.outputs.get(i))).collect();
        found.replays.extend(ci_gate::replay_all(empty, &rest.iter().map(|(_, o)| o).collect::<Vec<_>>()));
        found.risks.extend(rest.iter().filter_map(|(_, o)| risk::assess(empty, o, self.risk_policy)));
        found.risks.extend(task_prs.values().flatten().map(|t| risk::assess_task(empty, &t.task_id, &t.repo, t.number, self.risk_policy)));
        let ev = self.evaluation(empty);
        self.judge(parts, rest.iter().map(|(i, o)| (*i, o, &ev)).collect())
    }
}

/// Write: the CI-gate and risk tables while the outcome rows are merged into
/// `outcomes.parquet` (both are mostly one thread's work, and neither reads the other; each
/// table is dropped by the task that wrote it: a million rows of cells take a while to
/// free). The gate and risk tables and the risk policy are recorded in the manifest.
fn write_tables(
    dataset: &Path,
    parts: OutcomeParts,
    outputs: &SafeOutputTable,
    found: &GateAndRisk,
    manifest: &mut Manifest,
    risk_policy: &risk::RiskPolicy,
) -> Result<crate::dataset::Written> {
    let (written, outcomes) = rayon::join(
        || {
            let (gate, risk) = rayon::join(|| ci_gate::tables(&found.replays), || risk::table(&found.risks));
            let tables: Vec<(&str, arrow::record_batch::RecordBatch)> = gate?.into_iter().chain([risk?]).collect();
            tables.into_par_iter().map(|(name, t)| crate::dataset::write_batch(dataset, name, &t).map(|w| (name, w))).collect::<Result<Vec<_>>>()
        },
        || parts.write(dataset, outputs),
    );
    for (name, w) in written? {
        manifest.record_table(name, &w);
    }
    manifest.risk_policy = Some(risk_policy.to_json());
    outcomes
}

/// Write the manifest: the outcomes table, and the policy and windows it was judged under.
fn save_manifest(dataset: &Path, mut manifest: Manifest, outcomes: &crate::dataset::Written, policy: &Policy, windows: &[Window]) -> Result<()> {
    manifest.record_table("outcomes", outcomes);
    manifest.policy = Some(policy.to_json());
    manifest.windows = windows.iter().map(|w| w.to_string()).collect();
    manifest.save(dataset)
}

/// A task record's PR (`tasks.pr_repo`, `pr_number`).
struct TaskPr {
    task_id: String,
    repo: String,
    number: i64,
}

/// The PRs of the dataset's task records, by repository (none without a `tasks` table).
fn task_prs(dataset: &Path, manifest: &Manifest) -> Result<HashMap<String, Vec<TaskPr>>> {
    let mut out: HashMap<String, Vec<TaskPr>> = HashMap::new();
    if !manifest.tables.contains_key("tasks") {
        return Ok(out);
    }
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
