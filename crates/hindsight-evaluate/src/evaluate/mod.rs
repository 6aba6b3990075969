//! Outcome evaluation: for every safe output and window, what the repository did with it.
//!
//! - `rule.rs`: the rule contract (a rule's rows are an enum; `evaluate` answers with one).
//! - `rules/<type>.rs`: one rule per safe-output type; `rules/shared/` what several share.
//! - `judge.rs`: what is common to every type (outputs never executed, windows not
//!   observable yet, unknown action times, types without a rule) around the rules.
//! - `case.rs`: one output in one window, with the lookups rules make (`lookup_entry` gives
//!   a capture's typed views, `lookup` its JSON); `activity.rs`, what was done to the target
//!   after the action; `history.rs`, its state rebuilt as of the window's end;
//!   `repository.rs`, what is derived once from a repository's captures (revert marks).
//! - `stage.rs`: the evaluate stage on a dataset (threads, Parquet, manifest); its judging
//!   of a set of repositories is also what a cluster's executor runs on its partition
//!   (`judge_partition`), the client writing the rows (`evaluate_judged`).
//! - `outcomes.rs`: outcome rows, held compact while judging and made whole (the output's
//!   and window's columns filled in) as `outcomes.parquet` is written.
//! - `spill.rs`: rows past the memory budget, sorted and written in parts on a thread of
//!   their own, merged at the end.
//! - `quality/`: code-quality findings (tier 2), a rule per file, from the PRs' patches.
//! - `bands.rs`: a study of more than `BAND_OUTPUTS` outputs judged a band of whole
//!   repositories at a time (memory bounded by the band), the same bytes written.

mod activity;
mod bands;
pub use hindsight_core::actors;
pub(crate) mod case;
pub mod catalogue;
pub mod ci_gate;
mod coverage;
pub(crate) mod dependencies;
pub(crate) mod dependents;
mod history;
mod judge;
pub(crate) mod outcome;
pub(crate) mod outcomes;
pub mod policy;
pub(crate) mod promises;
pub mod quality;
pub mod repository;
pub mod risk;
pub(crate) mod rule;
pub mod rules;
pub mod partitions;
mod spill;
pub mod stage;
pub mod window;

pub(crate) use case::Case;
pub use judge::{run_ends, Evaluation};
pub use outcome::{Confidence, EvidenceStrength, Status, Verdict};
pub use outcomes::OutcomeRows;
pub use policy::Policy;
pub(crate) use rule::rows;
pub use rule::{Common, Decision, Evaluator, Promise, RowId, RowSpec};
pub(crate) use rule::{common, deleted, undated, verdict, Rule};
pub use stage::{evaluate_dataset, Settings};
pub use stage::{evaluate_with, CHUNK_BYTES, OUTCOME_ROWS_HELD_BYTES};
pub use window::Window;
