//! hindsight: what became of AI agents' actions ("safe outputs") in GitHub repositories,
//! judged offline on frozen snapshots so a study re-runs bit-for-bit.
//!
//! Four crates, in the order they depend on each other (ARCHITECTURE.md):
//! `hindsight-core` reads the inputs ([`snapshot`], [`runs`], [`traces`], [`aidev`],
//! [`tasks`], [`gate`]) and writes and reads the Parquet [`dataset`]; `hindsight-evaluate`
//! judges every output in every window ([`evaluate`]) and writes outcome blocks onto traces
//! ([`attach`]); `hindsight-report` runs the SQL ([`report`], [`cluster`]); this crate strings
//! them together into commands ([`pipeline`], [`commands`]) and talks to GitHub ([`capture`]).
//! The modules of the crates below are re-exported here under the names they have always had.

pub use hindsight_core::{aidev, dataset, gate, inputs, json, memory, output, progress, runs, snapshot, tasks, text, time, traces};
#[allow(unused_imports)]
pub(crate) use hindsight_core::{actors, error, feedback, interrupt, phases, quarantine, spill, table};
pub use hindsight_evaluate::{attach, evaluate};
pub use hindsight_report::{cluster, mirror, report};
/// The top layer's error: anything the layers below report, or a query's.
pub use hindsight_report::{Error, Result};
pub use hindsight_core::VERSION;

pub mod capture;
pub mod commands;
pub(crate) mod demo;
pub mod explain;
pub mod export;
pub mod package;
pub mod plan;
pub mod pipeline;
pub mod synth;
#[doc(hidden)]
pub mod testing;
