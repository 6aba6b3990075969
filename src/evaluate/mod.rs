//! Outcome evaluation: for every safe output and window, what the repository did with it.
//!
//! One rule per safe-output type (`rules/<type>.rs`), each a table of rows that map a
//! repository state to (status, evidence strength, signal). The framework handles what is
//! common: outputs that were never executed, windows that cannot be observed yet, action
//! times that are unknown, and types without a rule.

pub mod actors;
pub mod case;
pub mod catalogue;
pub mod ci_gate;
mod judge;
pub mod outcome;
pub mod outcomes;
pub mod policy;
pub mod risk;
pub mod rule;
pub mod rules;
mod stage;
pub mod window;

pub use case::Case;
pub use judge::Evaluation;
pub use outcome::{Confidence, EvidenceStrength, Status, Verdict};
pub use outcomes::OutcomeRows;
pub use policy::Policy;
pub(crate) use rule::rows;
pub use rule::{common, deleted, undated, verdict, Common, Evaluator, RowId, RowSpec, Rule};
pub use stage::{evaluate_dataset, evaluate_dataset_in_chunks};
pub use window::Window;
