//! `autofix_code_scanning_alert` and `create_code_scanning_alert`: docs/SPEC.md
//! [SPEC-WORKFLOWS], security and code scanning. The alert is `code-scanning/alerts/N`
//! (REST).
//!
//! ## What a person checks
//! autofix: was the alert actually fixed? create: was it triaged, fixed, or dismissed?
//!
//! ## Why
//! Fixed, triaged, rejected and pending stay distinct. An autofix counts when the alert is
//! fixed; a dismissal by a person is triage, not a fix (medium); an alert still open after
//! the policy's `alert_sla_hours` (default [`DEFAULT_ALERT_SLA_HOURS`](crate::evaluate::policy::DEFAULT_ALERT_SLA_HOURS), 30
//! days) is rejected (medium), before it pending. For an alert the
//! agent raised, a person dismissing it with a reason is triage (policy
//! `alert_dismissed_with_reason`, default accepted); an alert that is gone was invalid
//! ([SPEC-WORKFLOWS]: rejected, medium).
//!
//! ## Example
//! Alert 42 fixed at T+2d -> `accepted`/`strong`/`alert_fixed` from 7d on.
//!
//! What `autofix_code_scanning_alert` and `create_code_scanning_alert` share; each type's rule is in its own file.

use crate::evaluate::case::HistoryGap;
use crate::evaluate::case::{Case, Missing};
use crate::evaluate::{common, Common, Verdict};
use crate::json::{as_int, str_at};
use crate::snapshot::github::Actor;
use crate::time::{self, Instant};
use serde_json::Value;

pub(crate) struct Alert {
    pub(crate) state: String,
    pub(crate) fixed_at: Option<Instant>,
    pub(crate) dismissed_at: Option<Instant>,
    pub(crate) dismissed_by: Actor,
    pub(crate) dismissed_reason: Option<String>,
    pub(crate) assigned: bool,
}

pub(crate) fn alert_number(case: &Case) -> Option<i64> {
    let p = case.recorded.payload();
    p.get("alert_number").and_then(as_int).or(case.recorded.expected().get("metadata.alert_number").and_then(as_int)).or(case.output.target_number)
}

/// The alert as of the window's end, or the verdict why it cannot be read; `not_found`
/// gives the rule's own reading of an alert that is not in the snapshot.
pub(crate) fn load(case: &Case, not_found: impl FnOnce(Missing) -> Verdict) -> Result<Alert, Verdict> {
    let Some(n) = alert_number(case) else { return Err(common(Common::MissingReference).note("no alert number recorded")) };
    let look = case.lookup(&format!("code-scanning/alerts/{n}"));
    let v = look.map_err(not_found)?;
    let mut a = Alert {
        state: str_at(v, "state").unwrap_or_default().to_lowercase(),
        fixed_at: time::at(v, "fixed_at"),
        dismissed_at: time::at(v, "dismissed_at"),
        dismissed_by: Actor::from(v.get("dismissed_by")),
        dismissed_reason: str_at(v, "dismissed_reason").map(str::to_string),
        assigned: v.get("assignees").and_then(Value::as_array).is_some_and(|x| !x.is_empty()),
    };
    if !case.window.is_snapshot() {
        let when = match a.state.as_str() {
            "fixed" => a.fixed_at,
            "dismissed" => a.dismissed_at,
            _ => time::at(v, "updated_at"),
        };
        match when {
            Some(t) if t <= case.as_of => {}
            Some(_) if a.state != "open" => a.state = "open".into(),
            _ => return Err(HistoryGap::HistoryMissing.verdict()),
        }
    }
    Ok(a)
}

/// The alert.
pub(crate) fn reads_after(o: &crate::runs::SafeOutput, rec: &crate::evaluate::case::Recorded, _: &crate::snapshot::SnapshotIndex) -> Vec<crate::evaluate::rules::Read> {
    let n = rec.payload().get("alert_number").and_then(as_int).or(rec.expected().get("metadata.alert_number").and_then(as_int)).or(o.target_number);
    n.map(|n| vec![crate::evaluate::rules::Read::Target(format!("code-scanning/alerts/{n}"))]).unwrap_or_default()
}
