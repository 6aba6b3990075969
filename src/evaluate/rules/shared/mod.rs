//! Not rules: what several rules share (the row tables and judging of sibling types, field
//! comparison, revert detection). Each safe-output type's rule is `rules/<type>.rs`.

pub mod assignees;
pub mod code_scanning_alert;
pub mod discussion;
pub mod durability;
pub mod fields;
pub mod gh_aw;
pub mod project;
pub mod pull_request_review;
pub mod review_comments;
pub mod workflow_run;
