//! hindsight's judging layer: every safe output judged in every window by its type's rule,
//! the promises every rule keeps applied in one place ([`evaluate`]), and the outcome and
//! attribution blocks written onto agent traces ([`attach`]). No SQL engine: this crate
//! depends on `hindsight-core` alone (ARCHITECTURE.md).

// The layer below, under the names the code has always used (`crate::snapshot::...`).
#[allow(unused_imports)]
pub(crate) use hindsight_core::{actors, aidev, dataset, error, feedback, inputs, json, memory, output, phases, progress, quarantine, runs, snapshot, spill, table, tasks, text, time, traces};
pub use hindsight_core::{Error, Result};

pub mod attach;
pub mod evaluate;
