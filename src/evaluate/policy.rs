//! Policy: the choices seed 000 leaves open ("pending or accepted_medium, depending
//! policy", "unknown or rejected, depending audit availability", "mixed"). Each is a named
//! switch with a documented default; the policy in force is written into the manifest.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::evaluate::outcome::Status;

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Policy {
    /// An open PR or issue with no response is `pending` until it has been open this many
    /// hours, then `ignored`. Default 168 (7 days): seed 000 §5 says a PR open after 24h is
    /// usually still pending.
    pub ignore_after_hours: i64,
    /// create_issue, "Open with non-bot comment, reaction, or triage: pending or
    /// accepted_medium, depending policy". Default `pending`: engagement is not yet a
    /// decision.
    pub open_issue_engagement: Choice,
    /// A target that answered 404/410 at capture: "unknown or rejected, depending audit
    /// availability". Default `unknown`: the capture says it is gone, not who removed it.
    pub deleted_target: Choice,
    /// add_labels, "Some labels retained, some removed: mixed". Default `accepted` (medium,
    /// with `partial_score` = share retained); `rejected` is the other choice.
    pub partial_labels: Choice,
    /// create_issue closed as not planned by a bot (stale/lifecycle): default `ignored`, as
    /// no person decided; `rejected` is the other choice.
    pub bot_closed_not_planned: Choice,
    /// add_comment with no response in the window. The rule says `ignored`; `pending` is
    /// the other choice for studies that read short windows as too early to tell.
    pub comment_without_response: Choice,
    /// Count the run's triggering actor (aw_info.json `actor`) as the workflow's own, so
    /// their later actions are not independent evidence. Default false: a maintainer who
    /// started a workflow and later merged its PR still made a decision; the classifier
    /// always treats the identity the output was written as (and the created object's
    /// author) as the workflow's own.
    pub triggering_actor_is_workflow: bool,
}

/// A status a policy switch may choose.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Choice {
    Accepted,
    Rejected,
    Pending,
    Ignored,
    Unknown,
}

impl Choice {
    pub fn status(self) -> Status {
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
            ignore_after_hours: 168,
            open_issue_engagement: Choice::Pending,
            deleted_target: Choice::Unknown,
            partial_labels: Choice::Accepted,
            bot_closed_not_planned: Choice::Ignored,
            comment_without_response: Choice::Ignored,
            triggering_actor_is_workflow: false,
        }
    }
}

impl Policy {
    pub fn load(path: &Path) -> Result<Policy> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        let p: Policy = serde_json::from_str(&text).map_err(|e| Error::Policy {
            path: path.to_path_buf(),
            message: format!("line {}: {e}", e.line()),
        })?;
        p.validate(path)?;
        Ok(p)
    }

    fn validate(&self, path: &Path) -> Result<()> {
        let bad = |field: &str, allowed: &str| Error::Policy {
            path: path.to_path_buf(),
            message: format!("`{field}` must be one of {allowed}"),
        };
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
        if self.ignore_after_hours <= 0 {
            return Err(Error::Policy {
                path: path.to_path_buf(),
                message: "`ignore_after_hours` must be positive".into(),
            });
        }
        Ok(())
    }

    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or_default()
    }
}
