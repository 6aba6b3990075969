//! One evaluator per safe-output type. Each file documents, in fixed sections, what a
//! person checks, why, and an example; its `ROWS` table is the seed table it implements,
//! and `hindsight rules` prints the catalogue from those tables.

pub mod add_comment;
pub mod add_labels;
pub mod create_issue;
pub mod create_pull_request;
pub mod push_to_pull_request_branch;
pub mod system;

use super::case::{Case, Final, Lookup};
use super::{common, deleted, Rule, Verdict};
use crate::snapshot::github::{Issue, PullRequest};

/// Every rule, in seed 000 §13 priority order.
pub fn all() -> &'static [&'static dyn Rule] {
    &[
        &create_pull_request::CreatePullRequest,
        &push_to_pull_request_branch::PushToPullRequestBranch,
        &create_issue::CreateIssue,
        &add_comment::AddComment,
        &add_labels::AddLabels,
    ]
}

pub fn find(output_type: &str) -> Option<&'static dyn Rule> {
    all().iter().copied().find(|r| r.output_type() == output_type)
}

/// A lookup that is not `Found`, as the verdict it implies.
pub fn missing(case: &Case, l: &Lookup) -> Verdict {
    match l {
        Lookup::Found(_) => common("target_not_captured"),
        Lookup::Gone(s) => deleted(case, *s),
        Lookup::Failed(s) => common("capture_failed").detail("http_status", *s),
        Lookup::NotCaptured => common("target_not_captured"),
    }
}

pub fn issue_final(i: &Issue) -> Final {
    Final {
        state: i.state.clone(),
        state_reason: i.state_reason.clone(),
        closed_at: i.closed_at,
        closed_by: i.closed_by.clone(),
        merged: None,
        merged_at: None,
        merged_by: Default::default(),
    }
}

pub fn pull_final(p: &PullRequest) -> Final {
    Final {
        state: p.state.clone(),
        state_reason: None,
        closed_at: p.closed_at,
        closed_by: Default::default(),
        merged: p.merged,
        merged_at: p.merged_at,
        merged_by: p.merged_by.clone(),
    }
}

/// The verdict for a lifecycle that could not be rebuilt.
pub fn no_history(why: &str) -> Verdict {
    match why {
        "state_missing" => common("target_not_captured").note("the target's state field was not captured"),
        _ => common("history_missing").note(format!("cannot rebuild the state as of the window's end: {why}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn row_ids_are_unique_per_rule() {
        for r in all() {
            let mut ids: Vec<_> = r.rows().iter().map(|x| x.id).collect();
            ids.sort();
            let n = ids.len();
            ids.dedup();
            assert_eq!(ids.len(), n, "duplicate row id in {}", r.output_type());
        }
    }
}
