//! Knobs for the tests alone, not part of hindsight's interface: memory budgets and chunk
//! sizes that no output may depend on, set small so that tests reach the paths a large
//! study takes (spilling to disk, many chunks). The integration tests call these; nothing
//! else should.

use std::path::Path;

use crate::evaluate::Settings;
use crate::pipeline::{Converted, Study};
use crate::progress::Progress;
use crate::error::Result;

/// `pipeline::convert`, spilling sorted runs of captures to disk beyond `captures_held_bytes`
/// and turning at most that many bytes of captures into rows a step (small: a repository a
/// step, each handed from the merge to the typed rows to `responses`' writer in turn).
pub fn convert_with_budget(study: &Study, out: &Path, progress: &Progress, captures_held_bytes: usize) -> Result<Converted> {
    crate::pipeline::convert_with_budget(study, out, progress, captures_held_bytes)
}

/// `evaluate::evaluate_dataset`, spilling sorted parts of outcome rows to disk beyond
/// `rows_held_bytes` (in the dataset's `.spill` folder, removed at the end).
pub fn evaluate_with_budget(dataset: &Path, settings: &Settings, progress: &Progress, rows_held_bytes: usize) -> Result<usize> {
    crate::evaluate::evaluate_with(dataset, settings, progress, crate::evaluate::CHUNK_BYTES, rows_held_bytes)
}

/// `evaluate::evaluate_dataset`, reading about `chunk_bytes` of bodies per step.
pub fn evaluate_in_chunks(dataset: &Path, settings: &Settings, progress: &Progress, chunk_bytes: usize) -> Result<usize> {
    crate::evaluate::evaluate_with(dataset, settings, progress, chunk_bytes, crate::evaluate::OUTCOME_ROWS_HELD_BYTES)
}

/// The index, noting in `seen` every path looked up (found or not): the test that every
/// rule declares what it reads compares them with [`paths_read`].
pub fn observing(index: crate::snapshot::SnapshotIndex, seen: std::sync::Arc<std::sync::Mutex<std::collections::BTreeSet<String>>>) -> crate::snapshot::SnapshotIndex {
    index.observed_by(seen)
}

/// The paths the rules declare they read for `o` given `known` (what `capture` asks for).
pub fn paths_read(o: &crate::runs::SafeOutput, known: &crate::snapshot::SnapshotIndex) -> Vec<String> {
    let repo = o.target_repo.as_deref();
    crate::evaluate::rules::reads(o, known, &crate::evaluate::repository::RepositoryFacts::default()).into_iter().filter_map(|r| r.path(repo)).collect()
}

/// `evaluate::evaluate_dataset` judging at most `band_outputs` outputs per band of
/// repositories, spilling outcome rows beyond `rows_held_bytes`.
pub fn evaluate_in_bands(dataset: &Path, settings: &Settings, progress: &Progress, band_outputs: usize, rows_held_bytes: usize) -> Result<usize> {
    let budgets = crate::evaluate::stage::Budgets { chunk_bytes: crate::evaluate::CHUNK_BYTES, rows_held_bytes, band_outputs };
    crate::evaluate::stage::evaluate_in_bands(dataset, settings, progress, budgets)
}

/// The number of bands `evaluate_in_bands` judges the dataset in (one: all at once).
pub fn bands(dataset: &Path, band_outputs: usize) -> Result<usize> {
    crate::evaluate::stage::bands(dataset, band_outputs)
}

/// The bands `evaluate_in_bands` splits the dataset into, and the bytes their parts take.
pub fn band_part_bytes(dataset: &Path, band_outputs: usize) -> Result<(usize, u64)> {
    crate::evaluate::stage::band_part_bytes(dataset, band_outputs)
}

/// The review-feedback tables of `dataset` written (to `out`) a band of about `band_prs`
/// PRs at a time, under the default policy, the PRs of `create_pull_request` outputs as
/// the agents'.
pub fn feedback_in_bands(dataset: &Path, out: &Path, band_prs: usize) -> Result<Vec<&'static str>> {
    let (policy, prs) = feedback_inputs(dataset)?;
    copy_tables(dataset, out)?;
    Ok(crate::feedback::write_in_bands(out, &policy, &prs, &Default::default(), band_prs)?.into_iter().map(|(n, _)| n).collect())
}

/// The review-feedback tables of `dataset` computed at once (as convert does), written to `out`.
pub fn feedback_at_once(dataset: &Path, out: &Path) -> Result<Vec<&'static str>> {
    let (policy, prs) = feedback_inputs(dataset)?;
    copy_tables(dataset, out)?;
    let mut names = Vec::new();
    for (name, batch) in crate::feedback::tables(out, &policy, &prs, &Default::default())? {
        crate::dataset::write_batch(out, name, &batch)?;
        names.push(name);
    }
    Ok(names)
}

fn feedback_inputs(dataset: &Path) -> Result<(crate::feedback::FeedbackPolicy, crate::feedback::OpenedPrs)> {
    let mut prs = crate::feedback::AgentPrs::new();
    for o in crate::dataset::read::safe_outputs(dataset)? {
        crate::feedback::note_output(&mut prs, &o);
    }
    Ok((Default::default(), prs.finish()))
}

/// The dataset's Parquet tables copied to `out`, a fresh folder.
fn copy_tables(dataset: &Path, out: &Path) -> Result<()> {
    std::fs::create_dir_all(out).map_err(|e| crate::error::Error::io(out, e))?;
    for e in std::fs::read_dir(dataset).map_err(|e| crate::error::Error::io(dataset, e))? {
        let p = e.map_err(|e| crate::error::Error::io(dataset, e))?.path();
        if p.extension().is_some_and(|x| x == "parquet") {
            let to = out.join(p.file_name().unwrap_or_default());
            std::fs::copy(&p, &to).map_err(|e| crate::error::Error::io(&to, e))?;
        }
    }
    Ok(())
}
