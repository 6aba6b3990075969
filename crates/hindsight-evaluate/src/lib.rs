//! hindsight's judging layer: every safe output judged in every window by its type's rule,
//! the promises every rule keeps applied in one place ([`evaluate`]), and the outcome and
//! attribution blocks written onto agent traces ([`attach`]). No SQL engine: this crate
//! depends on `hindsight-core` alone (ARCHITECTURE.md).

// Rules return `Result<_, Verdict>`: an early verdict (target missing, capture failed) is an
// answer, not an error, and is built once per output and window, so its size does not matter.
#![allow(clippy::result_large_err)]

// The layer below, under the names the code has always used (`crate::snapshot::...`).
#[allow(unused_imports)]
pub(crate) use hindsight_core::{actors, aidev, dataset, error, feedback, inputs, json, memory, output, phases, progress, quarantine, runs, snapshot, spill, table, tasks, text, time, traces};
pub use hindsight_core::{Error, Result};

pub mod attach;
pub mod evaluate;
