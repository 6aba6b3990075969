//! Not rules: what several rules share (the row tables and judging of sibling types, field
//! comparison, revert detection). Each safe-output type's rule is `rules/<type>.rs`.

pub(crate) mod assignees;
pub(crate) mod code_scanning_alert;
pub(crate) mod discussion;
pub(crate) mod durability;
pub(crate) mod fields;
pub(crate) mod gh_aw;
pub(crate) mod project;
pub(crate) mod pull_request_review;
pub(crate) mod review_comments;
pub(crate) mod workflow_run;
