//! `autofix_code_scanning_alert` (docs/SPEC.md [SPEC-WORKFLOWS]): what a person checks, why, and an example are in [`super::shared::code_scanning_alert`],
//! which holds what it shares with the other `create_code_scanning_alert` rule.

use crate::evaluate::rule::Decision as D;
use super::shared::code_scanning_alert::load;
use crate::evaluate::case::{Case, Missing};
use crate::evaluate::outcome::{EvidenceStrength as E, Status as S};
use crate::evaluate::{common, rows, Common, RowSpec, Rule, Verdict};
use crate::json::{as_int, int_at};
use crate::runs::output_type::OutputType;

pub(crate) struct AutofixAlert;

rows! {
    pub(crate) enum AutofixAlertRow {
        Fixed => RowSpec {
            id: "fixed",
            when: "The alert is fixed",
            status: S::Accepted,
            strength: E::Strong,
            signal: "alert_fixed",
            seed: "Alert fixed or closed by code change",
            policy: None,
            decision: D::State,
        },
        FixedViaPr => RowSpec {
            id: "fixed_via_pr",
            when: "The autofix PR merged and the alert is fixed",
            status: S::Accepted,
            strength: E::Strong,
            signal: "autofix_pr_merged_alert_fixed",
            seed: "Linked PR merged and alert fixed",
            policy: None,
            decision: D::Act,
        },
        DismissedByPerson => RowSpec {
            id: "dismissed_by_person",
            when: "Dismissed (false positive, won't fix) by a visible non-bot actor: triage, not a fix",
            status: S::Accepted,
            strength: E::Medium,
            signal: "alert_dismissed_triaged",
            seed: "Alert dismissed as false positive or won't fix by visible non-bot",
            policy: None,
            decision: D::PersonAct,
        },
        OpenPastSla => RowSpec {
            id: "open_past_sla",
            when: "Still open after alert_sla_hours",
            status: S::Rejected,
            strength: E::Medium,
            signal: "alert_open_past_sla",
            seed: "Alert remains open after window (pending or rejected, depending SLA)",
            policy: Some("alert_sla_hours"),
            decision: D::State,
        },
        Open => RowSpec {
            id: "open",
            when: "Still open, within alert_sla_hours",
            status: S::Pending,
            strength: E::Weak,
            signal: "alert_open",
            seed: "Alert remains open after window (pending)",
            policy: Some("alert_sla_hours"),
            decision: D::State,
        },
        PrClosed => RowSpec {
            id: "pr_closed",
            when: "The autofix PR closed unmerged",
            status: S::Rejected,
            strength: E::Strong,
            signal: "autofix_pr_closed_unmerged",
            seed: "Autofix PR closed unmerged",
            policy: None,
            decision: D::Act,
        },
        Gone => RowSpec {
            id: "gone",
            when: "The alert is gone or inaccessible",
            status: S::Unknown,
            strength: E::None,
            signal: "alert_inaccessible",
            seed: "Alert disappeared or inaccessible",
            policy: None,
            decision: D::State,
        },
    }
}

impl Rule for AutofixAlert {
    type Row = AutofixAlertRow;
    fn output_type(&self) -> OutputType {
        OutputType::AutofixCodeScanningAlert
    }
    fn human_check(&self) -> &'static str {
        "Was the alert actually fixed?"
    }
    fn targets_number(&self) -> bool {
        false
    }
    fn evaluate(&self, case: &Case) -> Result<Verdict, Verdict> {
        let alert = load(case, |look| match look {
            Missing::Failed(s) => common(Common::CaptureFailed).detail("http_status", s),
            _ => self.row(AutofixAlertRow::Gone),
        })?;
        let p = case.recorded.payload();
        let pr_num = int_at(p, "pull_request_number").or(case.recorded.expected().get("metadata.pull_request_number").and_then(as_int));
        let pr = pr_num.and_then(|n| super::load_pull(case, n).ok()).map(|(_, p)| p);
        let done = |v: Verdict| v.resolved(true).detail("alert_state", alert.state.clone());
        Ok(match alert.state.as_str() {
            "fixed" if pr.as_ref().is_some_and(|p| p.merged == Some(true)) => {
                let by = pr.as_ref().map(|p| (&p.merged_by, p.merged_at));
                let v = self.row(AutofixAlertRow::FixedViaPr).at(alert.fixed_at);
                done(match by {
                    Some((who, at)) => v.by_actor(case, who, at),
                    None => v,
                })
            }
            "fixed" => done(self.row(AutofixAlertRow::Fixed).at(alert.fixed_at)),
            "dismissed" if case.actors.classify(&alert.dismissed_by).is_person() => {
                done(self.row(AutofixAlertRow::DismissedByPerson).at(alert.dismissed_at).by_actor(case, &alert.dismissed_by, alert.dismissed_at).detail("reason", alert.dismissed_reason.clone()))
            }
            _ if pr.as_ref().is_some_and(|p| p.state.as_deref() == Some("closed") && p.merged != Some(true)) => done(self.row(AutofixAlertRow::PrClosed)),
            _ if case.elapsed_hours().is_some_and(|h| h >= case.policy.alert_sla_hours as f64) => done(self.row(AutofixAlertRow::OpenPastSla)),
            _ => done(self.row(AutofixAlertRow::Open)),
        })
    }
}
