//! Policy: the choices the per-type rules leave open (docs/SPEC.md [SPEC-POLICY]: "pending
//! or accepted_medium, depending policy", "unknown or rejected, depending audit
//! availability", "mixed"). Each is a named switch with a documented default; the policy in
//! force is written into the manifest.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::evaluate::outcome::Status;
use crate::evaluate::window::MAX_HOURS;

/// Hours in a day: the policy's durations are whole hours (`*_hours`), chosen in days.
pub(crate) const HOURS_PER_DAY: i64 = 24;

/// Default [`Policy::ignore_after_hours`]: 7 days. An open PR or issue no one has answered
/// is `pending` until then and `ignored` after ([SPEC-WINDOWS]: a PR open after 24h is
/// usually still pending).
pub(crate) const DEFAULT_IGNORE_AFTER_HOURS: i64 = 7 * HOURS_PER_DAY;

/// Default [`Policy::alert_sla_hours`]: 30 days. A code-scanning alert still open this long
/// after its autofix is `rejected`, before it `pending`.
pub(crate) const DEFAULT_ALERT_SLA_HOURS: i64 = 30 * HOURS_PER_DAY;

/// Default [`Policy::durability_hours`]: 30 days, the long-term window of [SPEC-WINDOWS]
/// (the `30d` evaluation window). A merged PR reverted within 30 days of its merge is not
/// durable: it is `rejected` (`reverted_after_merge`) in every window that sees the revert.
pub const DEFAULT_DURABILITY_HOURS: i64 = 30 * HOURS_PER_DAY;

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Policy {
    /// An open PR or issue with no response is `pending` until it has been open this many
    /// hours, then `ignored`. Default [`DEFAULT_IGNORE_AFTER_HOURS`] (7 days).
    pub(crate) ignore_after_hours: i64,
    /// create_issue, "Open with non-bot comment, reaction, or triage: pending or
    /// accepted_medium, depending policy". Default `pending`: engagement is not yet a
    /// decision.
    pub(crate) open_issue_engagement: Choice,
    /// A target that answered 404/410 at capture: "unknown or rejected, depending audit
    /// availability". Default `unknown`: the capture says it is gone, not who removed it.
    pub(crate) deleted_target: Choice,
    /// add_labels, "Some labels retained, some removed: mixed". Default `accepted` (medium,
    /// with `partial_score` = share retained); `rejected` is the other choice.
    pub(crate) partial_labels: Choice,
    /// create_issue closed as not planned by a bot (stale/lifecycle): default `ignored`, as
    /// no person decided; `rejected` is the other choice.
    pub(crate) bot_closed_not_planned: Choice,
    /// add_comment with no response in the window. The rule says `ignored`; `pending` is
    /// the other choice for studies that read short windows as too early to tell.
    pub(crate) comment_without_response: Choice,
    /// Count the run's triggering actor (aw_info.json `actor`) as the workflow's own, so
    /// their later actions are not independent evidence. Default false: a maintainer who
    /// started a workflow and later merged its PR still made a decision; the classifier
    /// always treats the identity the output was written as (and the created object's
    /// author) as the workflow's own.
    pub(crate) triggering_actor_is_workflow: bool,
    /// [SPEC-ACTORS]: a signal counts when it comes from someone other than the workflow. A
    /// merge or close by the workflow's own identity of what it created (auto-merge, a
    /// report issue closed by the next run) is therefore no response from the repository:
    /// by default (`false`) it is `ignored`/weak under a `*_by_workflow` signal, in every
    /// rule alike. `true` counts it in its direction (merged accepted, closed as its reason
    /// says) at weak strength.
    #[serde(default)]
    pub(crate) own_act_counts: bool,
    /// The requester: the person an agent worked for, when the agent acted under their
    /// account (an AIDev Codex, Claude Code or Cursor PR opened as the person; a gh-aw run
    /// with a person's token). Their acts after the agent's own are, by default (`person`),
    /// a person's decision about the agent's work, as a careful reader takes them: a merge
    /// accepts the PR and a close unmerged rejects it, at the row's strength, under their
    /// own signals (`pull_request_merged_by_requester`, ...). `weak` counts them at weak
    /// strength; `workflow` treats them as the workflow's own acts (the own-act rule).
    #[serde(default)]
    pub(crate) requester_acts: RequesterActs,
    /// An act whose actor was not captured (a close with `closed_by: null` and no event, a
    /// label removed with no `unlabeled` event) is decided the same way in every rule: by
    /// default (`false`) at most `medium` strength, with medium confidence, since who
    /// decided is unknown. `true` keeps the strength the act would have from a visible
    /// person.
    #[serde(default)]
    pub(crate) unattributed_full_strength: bool,
    /// close_issue closed by a stale or lifecycle bot: "accepted_weak or ignored".
    /// Default `accepted` (with weak evidence: it counts only in the sticky rate).
    pub(crate) lifecycle_close: Choice,
    /// Milestone, issue type, issue field or project field changed to another value:
    /// "rejected or mixed". Default `rejected`; `accepted` reads it as re-planning.
    pub(crate) metadata_changed: Choice,
    /// unassign_from_user, item closed after the unassignment ("contextual"). Default
    /// `ignored`; `accepted` is the other choice.
    pub(crate) closed_after_unassignment: Choice,
    /// add_reviewer, PR merged without the requested reviewer acting: "ignored or
    /// accepted_weak". Default `ignored`.
    pub(crate) merged_without_reviewer: Choice,
    /// mark_pull_request_as_ready_for_review, closed unmerged with no review: "rejected or
    /// ignored". Default `rejected`.
    pub(crate) ready_closed_unreviewed: Choice,
    /// submit_pull_request_review contradicted by a later review: "rejected or mixed".
    /// Default `rejected`; `ignored` is the other choice.
    pub(crate) review_contradicted: Choice,
    /// submit_pull_request_review, PR closed without addressing the review ("contextual").
    /// Default `ignored`; `rejected` is the other choice.
    pub(crate) review_pr_closed: Choice,
    /// reply_to_pull_request_review_comment, thread unresolved and PR closed: "ignored or
    /// rejected, depending context". Default `ignored`.
    pub(crate) unresolved_reply_pr_closed: Choice,
    /// resolve_pull_request_review_thread, PR closed unmerged after the resolution
    /// ("contextual"). Default `ignored`; `accepted` or `rejected` are the others.
    pub(crate) resolved_pr_closed: Choice,
    /// link_sub_issue, sub-issue closed as duplicate or not planned: "rejected or ignored,
    /// depending context". Default `rejected`.
    pub(crate) sub_issue_closed_invalid: Choice,
    /// assign_to_agent, issue completed without the agent's PR: "accepted_other_actor or
    /// neutral". Default `ignored` (neutral); `accepted` credits the assignment.
    pub(crate) solved_by_other: Choice,
    /// dispatch_workflow succeeded without an expected artifact: "accepted_weak or mixed".
    /// Default `accepted` (weak).
    pub(crate) run_without_artifact: Choice,
    /// autofix_code_scanning_alert: an alert still open this many hours after the autofix
    /// is rejected ("pending or rejected, depending SLA"). Default [`DEFAULT_ALERT_SLA_HOURS`]
    /// (30 days).
    pub(crate) alert_sla_hours: i64,
    /// create_code_scanning_alert dismissed with a reason by a person: "accepted or
    /// rejected, depending expected semantics". Default `accepted` (the alert was triaged).
    pub(crate) alert_dismissed_with_reason: Choice,
    /// A revert counts against merged work only within this many hours of the merge.
    /// Default [`DEFAULT_DURABILITY_HOURS`] (30 days).
    pub(crate) durability_hours: i64,
}

/// How the requester's acts count (see [`Policy::requester_acts`]); who acted is told apart
/// in the layer below.
pub use crate::actors::RequesterActs;

/// A status a policy switch may choose.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Choice {
    Accepted,
    Rejected,
    Pending,
    Ignored,
    Unknown,
}

impl Choice {
    pub(crate) fn status(self) -> Status {
        match self {
            Choice::Accepted => Status::Accepted,
            Choice::Rejected => Status::Rejected,
            Choice::Pending => Status::Pending,
            Choice::Ignored => Status::Ignored,
            Choice::Unknown => Status::Unknown,
        }
    }
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            ignore_after_hours: DEFAULT_IGNORE_AFTER_HOURS,
            open_issue_engagement: Choice::Pending,
            deleted_target: Choice::Unknown,
            partial_labels: Choice::Accepted,
            bot_closed_not_planned: Choice::Ignored,
            comment_without_response: Choice::Ignored,
            triggering_actor_is_workflow: false,
            own_act_counts: false,
            requester_acts: RequesterActs::Person,
            unattributed_full_strength: false,
            lifecycle_close: Choice::Accepted,
            metadata_changed: Choice::Rejected,
            closed_after_unassignment: Choice::Ignored,
            merged_without_reviewer: Choice::Ignored,
            ready_closed_unreviewed: Choice::Rejected,
            review_contradicted: Choice::Rejected,
            review_pr_closed: Choice::Ignored,
            unresolved_reply_pr_closed: Choice::Ignored,
            resolved_pr_closed: Choice::Ignored,
            sub_issue_closed_invalid: Choice::Rejected,
            solved_by_other: Choice::Ignored,
            run_without_artifact: Choice::Accepted,
            alert_sla_hours: DEFAULT_ALERT_SLA_HOURS,
            alert_dismissed_with_reason: Choice::Accepted,
            durability_hours: DEFAULT_DURABILITY_HOURS,
        }
    }
}

impl Policy {
    /// A policy file: one JSON object of switches, any subset, merged over the defaults.
    /// Anything else (an array, which serde would read field by field in declaration
    /// order; an unknown key; a value of the wrong type) is refused, naming the key.
    pub fn load(path: &Path) -> Result<Policy> {
        let p: Policy = load_switches(path, "see `hindsight policy`")?;
        p.validate(path)?;
        Ok(p)
    }

    fn validate(&self, path: &Path) -> Result<()> {
        let bad = |field: &str, allowed: &str| Error::Policy { path: path.to_path_buf(), message: format!("`{field}` must be one of {allowed}") };
        use Choice::*;
        let check = |field: &str, c: Choice, allowed: &[Choice]| {
            if allowed.contains(&c) {
                Ok(())
            } else {
                Err(bad(field, &format!("{allowed:?}").to_lowercase()))
            }
        };
        check("open_issue_engagement", self.open_issue_engagement, &[Pending, Accepted])?;
        check("deleted_target", self.deleted_target, &[Unknown, Rejected])?;
        check("partial_labels", self.partial_labels, &[Accepted, Rejected])?;
        check("bot_closed_not_planned", self.bot_closed_not_planned, &[Ignored, Rejected])?;
        check("comment_without_response", self.comment_without_response, &[Ignored, Pending])?;
        check("lifecycle_close", self.lifecycle_close, &[Accepted, Ignored])?;
        check("metadata_changed", self.metadata_changed, &[Rejected, Accepted])?;
        check("closed_after_unassignment", self.closed_after_unassignment, &[Ignored, Accepted])?;
        check("merged_without_reviewer", self.merged_without_reviewer, &[Ignored, Accepted])?;
        check("ready_closed_unreviewed", self.ready_closed_unreviewed, &[Rejected, Ignored])?;
        check("review_contradicted", self.review_contradicted, &[Rejected, Ignored])?;
        check("review_pr_closed", self.review_pr_closed, &[Ignored, Rejected])?;
        check("unresolved_reply_pr_closed", self.unresolved_reply_pr_closed, &[Ignored, Rejected])?;
        check("resolved_pr_closed", self.resolved_pr_closed, &[Ignored, Accepted, Rejected])?;
        check("sub_issue_closed_invalid", self.sub_issue_closed_invalid, &[Rejected, Ignored])?;
        check("solved_by_other", self.solved_by_other, &[Ignored, Accepted])?;
        check("run_without_artifact", self.run_without_artifact, &[Accepted, Ignored])?;
        check("alert_dismissed_with_reason", self.alert_dismissed_with_reason, &[Accepted, Rejected])?;
        for (name, v) in
            [("ignore_after_hours", self.ignore_after_hours), ("alert_sla_hours", self.alert_sla_hours), ("durability_hours", self.durability_hours)]
        {
            if v <= 0 || v > MAX_HOURS {
                return Err(Error::Policy { path: path.to_path_buf(), message: format!("`{name}` must be positive and at most {MAX_HOURS} (100 years)") });
            }
        }
        Ok(())
    }

    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or_default()
    }
}

/// A JSON file of switches (any subset of `T`'s keys) merged over `T::default()`: the one
/// way every policy file is read. Anything else (an array, which serde would read field by
/// field in declaration order; an unknown key; a value of the wrong type) is refused with an
/// error naming the file and the key; `hint` says where the keys are listed.
pub(crate) fn load_switches<T: Serialize + serde::de::DeserializeOwned + Default>(path: &Path, hint: &str) -> Result<T> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    let err = |message: String| Error::Policy { path: path.to_path_buf(), message };
    let given: serde_json::Value = crate::json::from_str_unique(&text).map_err(|e| err(format!("line {}: {e}", e.line())))?;
    let serde_json::Value::Object(given) = given else {
        return Err(err(format!("expected a JSON object of switches ({hint}), found {}", crate::json::kind(&given))));
    };
    let defaults = serde_json::to_value(T::default()).map_err(|e| err(e.to_string()))?;
    let mut merged = defaults.as_object().cloned().unwrap_or_default();
    let known: Vec<&str> = merged.keys().map(String::as_str).collect();
    for key in given.keys() {
        if !merged.contains_key(key) {
            return Err(err(format!("unknown key `{key}`; known keys: {}", known.join(", "))));
        }
    }
    for (key, value) in given {
        // Each key on its own over the defaults, so a type error names its key.
        let mut one = defaults.clone();
        one[&key] = value.clone();
        serde_json::from_value::<T>(one).map_err(|e| err(format!("`{key}`: {e}")))?;
        merged.insert(key, value);
    }
    serde_json::from_value(serde_json::Value::Object(merged)).map_err(|e| err(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evaluate::Window;

    /// The defaults are the named durations, and read as the days they were chosen in: a PR
    /// unanswered for 7 days is ignored; a revert within 30 days of the merge (the `30d`
    /// window) makes merged work not durable; an alert open 30 days past its autofix is
    /// rejected.
    #[test]
    fn default_durations_are_the_named_days() {
        let p = Policy::default();
        assert_eq!(
            (p.ignore_after_hours, p.durability_hours, p.alert_sla_hours),
            (DEFAULT_IGNORE_AFTER_HOURS, DEFAULT_DURABILITY_HOURS, DEFAULT_ALERT_SLA_HOURS)
        );
        let days = |h: i64| Window::Hours(h).to_string();
        assert_eq!(
            (days(DEFAULT_IGNORE_AFTER_HOURS), days(DEFAULT_DURABILITY_HOURS), days(DEFAULT_ALERT_SLA_HOURS)),
            ("7d".into(), "30d".into(), "30d".into())
        );
        assert!(crate::evaluate::window::DEFAULT.contains(&Window::Hours(DEFAULT_DURABILITY_HOURS)));
    }
}
