//! hindsight's lowest layer: the inputs a study is made of and the dataset they become.
//!
//! Readers turn each kind of input into typed records and quarantine rows ([`snapshot`],
//! [`runs`], [`traces`], [`aidev`], [`tasks`], [`gate`]); [`dataset`] writes and reads the
//! Parquet dataset; the rest are utilities every layer shares. Nothing here knows about SQL:
//! this crate does not depend on DataFusion (ARCHITECTURE.md).

pub mod actors;
pub mod coverage;
pub mod aidev;
pub mod dataset;
pub mod error;
pub mod feedback;
pub mod files;
pub mod gate;
pub mod inputs;
pub mod intern;
pub mod interrupt;
pub mod json;
pub mod memory;
pub mod output;
pub mod phases;
pub mod progress;
pub mod quarantine;
pub mod runs;
pub mod snapshot;
pub mod spill;
pub mod table;
pub mod tasks;
pub mod text;
pub mod time;
pub mod traces;

pub use error::{Error, Result};

/// hindsight's version, and the git commit it was built from when built in its own checkout:
/// what `--version` says and what every report names as its maker.
pub const VERSION: &str = env!("HINDSIGHT_VERSION");
