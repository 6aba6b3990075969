//! The evaluate stage on a dataset directory: threads, Parquet and the manifest around
//! [`Evaluation`] (convert's driver is `pipeline.rs`).

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use rayon::prelude::*;

use super::spill::OutcomeParts;
use super::{ci_gate, risk, Evaluation, OutcomeRows, Policy, Window};
use crate::dataset::manifest::Manifest;
use crate::error::{Error, Result};
use crate::snapshot::SnapshotIndex;
use crate::time;

/// Body bytes read per step of the evaluate stage: whole repositories, so the parsed snapshot
/// in memory stays near a few times this, whatever the study's size.
const CHUNK_BYTES: usize = 64 << 20;

/// Bytes of outcome rows evaluate holds in memory before it spills a sorted part to disk.
const SPILL_BYTES: usize = 256 << 20;

/// Outputs judged per step at most: the rows of one step are what can pass the budget.
const STEP_OUTPUTS: usize = 16 * 1024;

/// The evaluate stage on a dataset directory: reads `safe_outputs`, then `responses` one
/// repository at a time (each repository's outputs are judged against its captures, with
/// the paths of no repository shared by all), writes `outcomes.parquet` and updates the
/// manifest. Returns the number of outcome rows.
pub fn evaluate_dataset(dataset: &Path, windows: &[Window], policy: &Policy, progress: &crate::progress::Progress) -> Result<usize> {
    evaluate_with(dataset, windows, policy, progress, CHUNK_BYTES, SPILL_BYTES)
}

/// `evaluate_dataset`, spilling sorted parts of outcome rows to disk beyond `budget` bytes
/// (in the dataset's `.spill` folder, removed at the end; the outcomes do not depend on it,
/// tests check that).
pub fn evaluate_dataset_with_budget(dataset: &Path, windows: &[Window], policy: &Policy, progress: &crate::progress::Progress, budget: usize) -> Result<usize> {
    evaluate_with(dataset, windows, policy, progress, CHUNK_BYTES, budget)
}

/// `evaluate_dataset`, reading about `chunk_bytes` of bodies per step (the verdicts do not
/// depend on it; tests check that).
pub fn evaluate_dataset_in_chunks(
    dataset: &Path,
    windows: &[Window],
    policy: &Policy,
    progress: &crate::progress::Progress,
    chunk_bytes: usize,
) -> Result<usize> {
    evaluate_with(dataset, windows, policy, progress, chunk_bytes, SPILL_BYTES)
}

fn evaluate_with(
    dataset: &Path,
    windows: &[Window],
    policy: &Policy,
    progress: &crate::progress::Progress,
    chunk_bytes: usize,
    spill_bytes: usize,
) -> Result<usize> {
    let mut manifest = Manifest::load(dataset)?;
    let captured_at = time::parse(&manifest.captured_at).ok_or_else(|| Error::Dataset {
        path: dataset.join("manifest.json"),
        message: format!("captured_at `{}` is not an RFC 3339 time", manifest.captured_at),
    })?;
    let outputs = crate::dataset::read::safe_outputs(dataset)?;
    let ranks = OutcomeRows::ranks(&outputs.iter().map(|o| (o.run_id.as_str(), o.item_index)).collect::<Vec<_>>());
    let mut by_repo: HashMap<&str, Vec<usize>> = HashMap::new();
    let mut no_repo = Vec::new();
    for (i, o) in outputs.iter().enumerate() {
        match o.target_repo.as_deref() {
            Some(r) => by_repo.entry(r).or_default().push(i),
            None => no_repo.push(i),
        }
    }
    let bar = progress.bar("evaluate", outputs.len() as u64);
    let mut parts = OutcomeParts::new(&dataset.join(".spill"), spill_bytes);
    // A small budget takes small steps, so the rows held stay near it.
    let step = (spill_bytes / (windows.len().max(1) * 1024)).clamp(1, STEP_OUTPUTS);
    let mut replays: Vec<ci_gate::Replay> = Vec::new();
    let mut risks: Vec<risk::Risk> = Vec::new();
    let risk_policy = risk::RiskPolicy::default();
    let mut shared: Option<Arc<SnapshotIndex>> = None;
    // Each worker fills its own rows; they are sorted when spilled or written.
    let judge = |parts: &mut OutcomeParts, jobs: Vec<(usize, &Evaluation)>| -> Result<()> {
        for jobs in jobs.chunks(step) {
            let judged: Vec<OutcomeRows> = jobs
                .par_iter()
                .fold(OutcomeRows::default, |mut rows, &(i, ev)| {
                    let o = &outputs[i];
                    for (w, (v, at)) in windows.iter().zip(ev.judge_all(o)) {
                        rows.push(o, ranks[i], i, *w, at, &v);
                    }
                    bar.inc(1);
                    rows
                })
                .collect();
            parts.extend(judged)?;
        }
        Ok(())
    };
    // The next chunk is read while this one is judged.
    std::thread::scope(|scope| -> Result<()> {
        let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<crate::dataset::read::RepoGroup>>(1);
        let reader = scope.spawn(move || {
            crate::dataset::read::response_groups(dataset, chunk_bytes, |groups| {
                // A closed channel means the judging side stopped; its error is the one reported.
                let _ = tx.send(groups);
                Ok(())
            })
        });
        for groups in rx {
            let mut repos = Vec::new();
            for g in groups {
                match g.repo {
                    None => shared = Some(Arc::new(SnapshotIndex::build(g.rows))),
                    Some(r) => repos.push((by_repo.remove(r.as_str()).unwrap_or_default(), g.rows)),
                }
            }
            // Repositories no output targets are not parsed at all.
            repos.retain(|(ids, _)| !ids.is_empty());
            let indexes: Vec<(Vec<usize>, SnapshotIndex)> =
                repos.into_par_iter().map(|(ids, captures)| (ids, SnapshotIndex::build(captures).with_shared(shared.clone()))).collect();
            // One evaluation per repository: what is derived from its captures is shared by its outputs.
            let evaluations: Vec<(&[usize], Evaluation)> =
                indexes.iter().map(|(ids, index)| (ids.as_slice(), Evaluation::new(index, captured_at, policy, windows))).collect();
            judge(&mut parts, evaluations.iter().flat_map(|(ids, ev)| ids.iter().map(move |&i| (i, ev))).collect())?;
            drop(evaluations);
            // Seed 002's CI gate, replayed for the outputs that push code.
            let r: Vec<ci_gate::Replay> = indexes
                .par_iter()
                .flat_map_iter(|(ids, index)| {
                    let mut rs: Vec<ci_gate::Replay> = ids.iter().filter_map(|&i| ci_gate::replay(index, &outputs[i])).collect();
                    if let Some(repo) = rs.first().map(|r| r.repo.clone()) {
                        for (pr, v) in ci_gate::loop_states(index, &repo) {
                            rs.iter_mut().filter(|r| r.pull_number == pr).for_each(|r| ci_gate::compare(r, &v));
                        }
                    }
                    rs
                })
                .collect();
            replays.extend(r);
            // Seed 004's PR risk level, from the PRs' captured files.
            let k: Vec<risk::Risk> = indexes
                .par_iter()
                .flat_map_iter(|(ids, index)| ids.iter().filter_map(|&i| risk::assess(index, &outputs[i], &risk_policy)).collect::<Vec<_>>())
                .collect();
            risks.extend(k);
            indexes.into_par_iter().for_each(drop);
        }
        reader.join().unwrap_or_else(|_| Err(Error::Dataset { path: dataset.join("responses.parquet"), message: "the reader thread failed".into() }))
    })?;
    // Outputs of repositories with no capture at all, and outputs with no repository.
    let empty = SnapshotIndex::default().with_shared(shared.clone());
    let mut rest: Vec<usize> = by_repo.into_values().flatten().chain(no_repo).collect();
    rest.sort_unstable();
    replays.extend(rest.iter().filter_map(|&i| ci_gate::replay(&empty, &outputs[i])));
    risks.extend(rest.iter().filter_map(|&i| risk::assess(&empty, &outputs[i], &risk_policy)));
    let ev = Evaluation::new(&empty, captured_at, policy, windows);
    judge(&mut parts, rest.into_iter().map(|i| (i, &ev)).collect())?;
    bar.finish_and_clear();
    for t in ci_gate::tables(&replays).into_iter().chain([risk::table(&risks)]) {
        let w = crate::dataset::write_table(dataset, &t)?;
        manifest.record_table(t.name, &w);
    }
    manifest.risk_policy = Some(risk_policy.to_json());
    let w = parts.write(dataset)?;
    let n = w.rows;
    manifest.record_table("outcomes", &w);
    manifest.policy = Some(policy.to_json());
    manifest.windows = windows.iter().map(|w| w.to_string()).collect();
    manifest.save(dataset)?;
    Ok(n)
}
