//! Knobs for the tests alone, not part of hindsight's interface: memory budgets and chunk
//! sizes that no output may depend on, set small so that tests reach the paths a large
//! study takes (spilling to disk, many chunks). The integration tests call these; nothing
//! else should.

use std::path::Path;

use crate::evaluate::Settings;
use crate::pipeline::{Converted, Study};
use crate::progress::Progress;
use crate::error::Result;

/// `pipeline::convert`, spilling sorted runs of captures to disk beyond `captures_held_bytes`.
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
