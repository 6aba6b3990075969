//! `create_code_scanning_alert` (docs/SPEC.md [SPEC-WORKFLOWS]): what a person checks, why, and an example are in [`super::shared::code_scanning_alert`],
//! which holds what it shares with the other `autofix_code_scanning_alert` rule.

use crate::evaluate::rule::Decision as D;
use super::shared::code_scanning_alert::load;
use crate::evaluate::case::{Case, Missing};
use crate::evaluate::outcome::{EvidenceStrength as E, Status as S};
use crate::evaluate::{rows, RowSpec, Rule, Verdict};
use crate::runs::output_type::OutputType;

pub(crate) struct CreateAlert;

rows! {
    pub(crate) enum CreateAlertRow {
        Fixed => RowSpec { id: "fixed", when: "The alert was fixed", status: S::Accepted, strength: E::Strong, signal: "alert_fixed", seed: "Alert fixed", policy: None, decision: D::State },
        Triaged => RowSpec {
            id: "triaged",
            when: "The alert was assigned (acknowledged)",
            status: S::Accepted,
            strength: E::Medium,
            signal: "alert_triaged",
            seed: "Alert acknowledged or triaged",
            policy: None,
            decision: D::Act,
        },
        DismissedWithReason => RowSpec {
            id: "dismissed_with_reason",
            when: "Dismissed with a reason by a visible non-bot actor",
            status: S::Accepted,
            strength: E::Medium,
            signal: "alert_dismissed_with_reason",
            seed: "Alert dismissed with reason by visible non-bot (accepted or rejected, depending expected semantics)",
            policy: Some("alert_dismissed_with_reason"),
            decision: D::PersonAct,
        },
        Invalid => RowSpec {
            id: "invalid",
            when: "The alert is gone (deleted or invalid)",
            status: S::Rejected,
            strength: E::Medium,
            signal: "alert_deleted_or_invalid",
            seed: "Alert deleted or invalid",
            policy: None,
            decision: D::Gone,
        },
        NoActivity => RowSpec {
            id: "no_activity",
            when: "Open with no activity after ignore_after_hours",
            status: S::Ignored,
            strength: E::Weak,
            signal: "no_activity",
            seed: "Alert open with no activity (pending or ignored)",
            policy: Some("ignore_after_hours"),
            decision: D::State,
        },
        Open => RowSpec {
            id: "open",
            when: "Open with no activity yet",
            status: S::Pending,
            strength: E::Weak,
            signal: "target_exists_only",
            seed: "Alert open with no activity (pending or ignored)",
            policy: Some("ignore_after_hours"),
            decision: D::State,
        },
    }
}

impl Rule for CreateAlert {
    type Row = CreateAlertRow;
    fn output_type(&self) -> OutputType {
        OutputType::CreateCodeScanningAlert
    }
    fn human_check(&self) -> &'static str {
        "Was the alert triaged, fixed, or dismissed with reason?"
    }
    fn targets_number(&self) -> bool {
        false
    }
    fn evaluate(&self, case: &Case) -> Result<Verdict, Verdict> {
        let alert = load(case, |look| match look {
            Missing::Gone(_) => self.row(CreateAlertRow::Invalid),
            other => super::missing(case, other),
        })?;
        let done = |v: Verdict| v.resolved(true).detail("alert_state", alert.state.clone());
        Ok(match alert.state.as_str() {
            "fixed" => done(self.row(CreateAlertRow::Fixed).at(alert.fixed_at)),
            "dismissed" if case.actors.classify(&alert.dismissed_by).is_person() && alert.dismissed_reason.is_some() => done(
                self.row(CreateAlertRow::DismissedWithReason)
                    .status(case.policy.alert_dismissed_with_reason.status())
                    .at(alert.dismissed_at)
                    .by_actor(case, &alert.dismissed_by, alert.dismissed_at)
                    .detail("reason", alert.dismissed_reason.clone()),
            ),
            _ if alert.assigned => done(self.row(CreateAlertRow::Triaged)),
            _ if case.long_enough() => done(self.row(CreateAlertRow::NoActivity)),
            _ => done(self.row(CreateAlertRow::Open)),
        })
    }
}
