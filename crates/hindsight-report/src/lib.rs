//! hindsight's SQL layer: DataFusion over a dataset ([`report`]: the bundled queries, the
//! dashboard, the shell, `check`, figures and the functions hindsight adds to SQL) and the
//! Ballista cluster that runs the same SQL and evaluation on many machines ([`cluster`]).

#[allow(unused_imports)]
pub(crate) use hindsight_core::{dataset, inputs, json, output, progress, runs, snapshot, table, text, time};
#[allow(unused_imports)]
pub(crate) use hindsight_evaluate::evaluate;

pub mod cluster;
pub mod error;
pub mod location;
pub mod mirror;
pub mod report;

pub use error::{Error, Result};
