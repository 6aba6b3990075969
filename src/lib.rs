//! hindsight: what became of AI agents' actions ("safe outputs") in GitHub repositories,
//! judged offline on frozen snapshots so a study re-runs bit-for-bit.
//!
//! Data flow, one module per stage: [`snapshot`] and [`runs`] read the inputs, [`dataset`]
//! writes and reads the Parquet dataset, [`evaluate`] judges every output in every window,
//! [`report`] runs the dashboard SQL. [`pipeline`] strings them together. Beside that flow,
//! [`gate`] is the commit-or-reject protocol (docs/SPEC.md [SPEC-GATE]) over recorded
//! execution results.

// Rules return `Result<_, Verdict>`: an early verdict (target missing, capture failed) is an
// answer, not an error, and is built once per output and window, so its size does not matter.
#![allow(clippy::result_large_err)]

pub mod aidev;
pub mod attach;
pub mod capture;
pub mod cluster;
pub mod commands;
pub mod dataset;
pub(crate) mod demo;
pub mod error;
pub mod evaluate;
pub(crate) mod feedback;
pub mod gate;
pub mod inputs;
pub(crate) mod interrupt;
pub mod json;
pub mod memory;
pub mod output;
pub(crate) mod phases;
pub mod pipeline;
pub mod progress;
pub(crate) mod quarantine;
pub mod report;
pub mod runs;
pub mod snapshot;
mod spill;
pub mod synth;
pub(crate) mod table;
pub mod tasks;
#[doc(hidden)]
pub mod testing;
pub mod text;
pub mod time;
pub mod traces;

pub use error::{Error, Result};
