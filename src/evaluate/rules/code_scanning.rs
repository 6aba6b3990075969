//! `autofix_code_scanning_alert` and `create_code_scanning_alert`: seed 000 §7, Security
//! and Code Scanning. The alert is `code-scanning/alerts/N` (REST).
//!
//! ## What a person checks
//! autofix: was the alert actually fixed? create: was it triaged, fixed, or dismissed?
//!
//! ## Why
//! Fixed, triaged, rejected and pending stay distinct. An autofix counts when the alert is
//! fixed; a dismissal by a person is triage, not a fix (medium); an alert still open after
//! the policy's `alert_sla_hours` is rejected (medium), before it pending. For an alert the
//! agent raised, a person dismissing it with a reason is triage (policy
//! `alert_dismissed_with_reason`, default accepted); an alert that is gone was invalid
//! (seed 000: rejected, medium).
//!
//! ## Example
//! Alert 42 fixed at T+2d -> `accepted`/`strong`/`alert_fixed` from 7d on.

use serde_json::Value;

use crate::evaluate::actors::ActorClass;
use crate::evaluate::case::HistoryGap;
use crate::evaluate::case::{Case, Lookup};
use crate::evaluate::outcome::{EvidenceStrength as E, Status as S};
use crate::evaluate::{common, rows, Common, RowSpec, Rule, Verdict};
use crate::json::{as_int, int_at, str_at};
use crate::snapshot::github::Actor;
use crate::time::{self, Instant};

struct Alert {
    state: String,
    fixed_at: Option<Instant>,
    dismissed_at: Option<Instant>,
    dismissed_by: Actor,
    dismissed_reason: Option<String>,
    assigned: bool,
}

fn alert_number(case: &Case) -> Option<i64> {
    let p = &case.recorded.payload;
    p.get("alert_number").and_then(as_int).or(case.recorded.expected.get("metadata.alert_number").and_then(as_int)).or(case.output.target_number)
}

/// The alert as of the window's end, or the verdict why it cannot be read; `not_found`
/// gives the rule's own reading of an alert that is not in the snapshot.
fn load(case: &Case, not_found: impl FnOnce(&Lookup) -> Verdict) -> Result<Alert, Verdict> {
    let Some(n) = alert_number(case) else { return Err(common(Common::MissingReference).note("no alert number recorded")) };
    let look = case.lookup(&format!("code-scanning/alerts/{n}"));
    let Some(v) = look.found() else { return Err(not_found(&look)) };
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

pub struct AutofixAlert;

rows! {
    pub enum AutofixAlertRow {
        Fixed => RowSpec {
            id: "fixed",
            when: "The alert is fixed",
            status: S::Accepted,
            strength: E::Strong,
            signal: "alert_fixed",
            seed: "Alert fixed or closed by code change",
            policy: None,
        },
        FixedViaPr => RowSpec {
            id: "fixed_via_pr",
            when: "The autofix PR merged and the alert is fixed",
            status: S::Accepted,
            strength: E::Strong,
            signal: "autofix_pr_merged_alert_fixed",
            seed: "Linked PR merged and alert fixed",
            policy: None,
        },
        DismissedByPerson => RowSpec {
            id: "dismissed_by_person",
            when: "Dismissed (false positive, won't fix) by a visible non-bot actor: triage, not a fix",
            status: S::Accepted,
            strength: E::Medium,
            signal: "alert_dismissed_triaged",
            seed: "Alert dismissed as false positive or won't fix by visible non-bot",
            policy: None,
        },
        OpenPastSla => RowSpec {
            id: "open_past_sla",
            when: "Still open after alert_sla_hours",
            status: S::Rejected,
            strength: E::Medium,
            signal: "alert_open_past_sla",
            seed: "Alert remains open after window (pending or rejected, depending SLA)",
            policy: Some("alert_sla_hours"),
        },
        Open => RowSpec {
            id: "open",
            when: "Still open, within alert_sla_hours",
            status: S::Pending,
            strength: E::Weak,
            signal: "alert_open",
            seed: "Alert remains open after window (pending)",
            policy: Some("alert_sla_hours"),
        },
        PrClosed => RowSpec {
            id: "pr_closed",
            when: "The autofix PR closed unmerged",
            status: S::Rejected,
            strength: E::Strong,
            signal: "autofix_pr_closed_unmerged",
            seed: "Autofix PR closed unmerged",
            policy: None,
        },
        Gone => RowSpec {
            id: "gone",
            when: "The alert is gone or inaccessible",
            status: S::Unknown,
            strength: E::None,
            signal: "alert_inaccessible",
            seed: "Alert disappeared or inaccessible",
            policy: None,
        },
    }
}

impl Rule for AutofixAlert {
    type Row = AutofixAlertRow;
    fn output_type(&self) -> &'static str {
        "autofix_code_scanning_alert"
    }
    fn human_check(&self) -> &'static str {
        "Was the alert actually fixed?"
    }
    fn targets_number(&self) -> bool {
        false
    }
    fn evaluate(&self, case: &Case) -> Result<Verdict, Verdict> {
        let alert = load(case, |look| match look {
            Lookup::Failed(s) => common(Common::CaptureFailed).detail("http_status", *s),
            _ => self.row(AutofixAlertRow::Gone),
        })?;
        let p = &case.recorded.payload;
        let pr_num = int_at(p, "pull_request_number").or(case.recorded.expected.get("metadata.pull_request_number").and_then(as_int));
        let pr = pr_num.and_then(|n| case.lookup(&format!("pulls/{n}")).found()).map(crate::snapshot::github::PullRequest::from);
        let done = |v: Verdict| v.resolved(true).detail("alert_state", alert.state.clone());
        Ok(match alert.state.as_str() {
            "fixed" if pr.as_ref().is_some_and(|p| p.merged == Some(true)) => done(self.row(AutofixAlertRow::FixedViaPr).at(alert.fixed_at)),
            "fixed" => done(self.row(AutofixAlertRow::Fixed).at(alert.fixed_at)),
            "dismissed" if case.actors.classify(&alert.dismissed_by) == ActorClass::VisibleNonBot => {
                done(self.row(AutofixAlertRow::DismissedByPerson).at(alert.dismissed_at).detail("reason", alert.dismissed_reason.clone()))
            }
            _ if pr.as_ref().is_some_and(|p| p.state.as_deref() == Some("closed") && p.merged != Some(true)) => done(self.row(AutofixAlertRow::PrClosed)),
            _ if case.elapsed_hours().is_some_and(|h| h >= case.policy.alert_sla_hours as f64) => done(self.row(AutofixAlertRow::OpenPastSla)),
            _ => done(self.row(AutofixAlertRow::Open)),
        })
    }
}

pub struct CreateAlert;

rows! {
    pub enum CreateAlertRow {
        Fixed => RowSpec { id: "fixed", when: "The alert was fixed", status: S::Accepted, strength: E::Strong, signal: "alert_fixed", seed: "Alert fixed", policy: None },
        Triaged => RowSpec {
            id: "triaged",
            when: "The alert was assigned (acknowledged)",
            status: S::Accepted,
            strength: E::Medium,
            signal: "alert_triaged",
            seed: "Alert acknowledged or triaged",
            policy: None,
        },
        DismissedWithReason => RowSpec {
            id: "dismissed_with_reason",
            when: "Dismissed with a reason by a visible non-bot actor",
            status: S::Accepted,
            strength: E::Medium,
            signal: "alert_dismissed_with_reason",
            seed: "Alert dismissed with reason by visible non-bot (accepted or rejected, depending expected semantics)",
            policy: Some("alert_dismissed_with_reason"),
        },
        Invalid => RowSpec {
            id: "invalid",
            when: "The alert is gone (deleted or invalid)",
            status: S::Rejected,
            strength: E::Medium,
            signal: "alert_deleted_or_invalid",
            seed: "Alert deleted or invalid",
            policy: None,
        },
        NoActivity => RowSpec {
            id: "no_activity",
            when: "Open with no activity after ignore_after_hours",
            status: S::Ignored,
            strength: E::Weak,
            signal: "no_activity",
            seed: "Alert open with no activity (pending or ignored)",
            policy: Some("ignore_after_hours"),
        },
        Open => RowSpec {
            id: "open",
            when: "Open with no activity yet",
            status: S::Pending,
            strength: E::Weak,
            signal: "target_exists_only",
            seed: "Alert open with no activity (pending or ignored)",
            policy: Some("ignore_after_hours"),
        },
    }
}

impl Rule for CreateAlert {
    type Row = CreateAlertRow;
    fn output_type(&self) -> &'static str {
        "create_code_scanning_alert"
    }
    fn human_check(&self) -> &'static str {
        "Was the alert triaged, fixed, or dismissed with reason?"
    }
    fn targets_number(&self) -> bool {
        false
    }
    fn evaluate(&self, case: &Case) -> Result<Verdict, Verdict> {
        let alert = load(case, |look| match look {
            Lookup::Gone(_) => self.row(CreateAlertRow::Invalid),
            other => super::missing(case, other),
        })?;
        let done = |v: Verdict| v.resolved(true).detail("alert_state", alert.state.clone());
        Ok(match alert.state.as_str() {
            "fixed" => done(self.row(CreateAlertRow::Fixed).at(alert.fixed_at)),
            "dismissed" if case.actors.classify(&alert.dismissed_by) == ActorClass::VisibleNonBot && alert.dismissed_reason.is_some() => done(
                self.row(CreateAlertRow::DismissedWithReason)
                    .status(case.policy.alert_dismissed_with_reason.status())
                    .at(alert.dismissed_at)
                    .detail("reason", alert.dismissed_reason.clone()),
            ),
            _ if alert.assigned => done(self.row(CreateAlertRow::Triaged)),
            _ if case.long_enough() => done(self.row(CreateAlertRow::NoActivity)),
            _ => done(self.row(CreateAlertRow::Open)),
        })
    }
}
