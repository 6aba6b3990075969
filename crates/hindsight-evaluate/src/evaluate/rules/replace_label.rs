//! `replace_label` (a gh-aw type the specification's tables do not list; mirrors
//! `add_labels` both ways: docs/SPEC.md [SPEC-EXTRA-TYPES]).
//!
//! ## What a person checks
//! Did the new label stay and the old one stay gone?
//!
//! ## Why
//! A replacement is two changes: labels in the after state that were not before must stay,
//! labels before that are not after must stay gone. Labels neither touched are ignored.
//!
//! ## Example
//! `old` -> `new`; at T+7d the issue carries `new` and `unrelated` -> `accepted`/`medium`/
//! `state_retained`.

use crate::evaluate::rule::Decision as D;
use super::add_labels::{label_changer, labels_at};
use crate::evaluate::case::Case;
use crate::evaluate::outcome::{EvidenceStrength as E, Status as S};
use crate::evaluate::{common, rows, Common, RowSpec, Rule, Verdict};
use crate::json::names;
use crate::runs::output_type::OutputType;

pub(crate) struct ReplaceLabel;

rows! {
    pub(crate) enum ReplaceLabelRow {
        Retained => RowSpec {
            id: "retained",
            when: "New labels present and replaced labels absent",
            status: S::Accepted,
            strength: E::Medium,
            signal: "state_retained",
            seed: "(add_labels) All labels retained after triage window",
            policy: None,
            decision: D::State,
        },
        Partial => RowSpec {
            id: "partial",
            when: "Part of the replacement undone",
            status: S::Accepted,
            strength: E::Medium,
            signal: "labels_partially_retained",
            seed: "(add_labels) Some labels retained, some removed",
            policy: Some("partial_labels"),
            decision: D::State,
        },
        RevertedByPerson => RowSpec {
            id: "reverted_by_person",
            when: "The replacement fully undone by a visible non-bot actor",
            status: S::Rejected,
            strength: E::Strong,
            signal: "state_reverted",
            seed: "(add_labels) All labels removed by visible non-bot",
            policy: None,
            decision: D::PersonAct,
        },
        Reverted => RowSpec {
            id: "reverted",
            when: "The replacement fully undone; by a bot or someone not captured",
            status: S::Rejected,
            strength: E::Medium,
            signal: "state_reverted",
            seed: "",
            policy: None,
            decision: D::Act,
        },
    }
}

impl Rule for ReplaceLabel {
    type Row = ReplaceLabelRow;
    fn output_type(&self) -> OutputType {
        OutputType::ReplaceLabel
    }
    fn human_check(&self) -> &'static str {
        "Did the new label stay and the old one stay gone?"
    }
    fn evaluate(&self, case: &Case) -> Result<Verdict, Verdict> {
        let Some(n) = case.output.target_number else { return Err(common(Common::MissingReference)) };
        let lower = |v: Option<Vec<String>>| v.unwrap_or_default().into_iter().map(|l| l.to_lowercase()).collect::<Vec<_>>();
        let before = lower(case.recorded.before().as_ref().and_then(|b| b.get("labels").and_then(names)));
        let after = lower(case.recorded.after().as_ref().and_then(|a| a.get("labels").and_then(names)));
        if after.is_empty() && before.is_empty() {
            return Err(common(Common::MissingExecutionState).note("no before/after labels recorded"));
        }
        let added: Vec<String> = after.iter().filter(|l| !before.contains(l)).cloned().collect();
        let removed: Vec<String> = before.iter().filter(|l| !after.contains(l)).cloned().collect();
        let touched: Vec<String> = added.iter().chain(removed.iter()).cloned().collect();
        let (labels, activity, _) = labels_at(case, n, &touched)?;
        let ok = added.iter().filter(|l| labels.contains(l)).count() + removed.iter().filter(|l| !labels.contains(l)).count();
        let total = added.len() + removed.len();
        let score = if total == 0 { 1.0 } else { ok as f64 / total as f64 };
        let v = if ok == total {
            self.row(ReplaceLabelRow::Retained)
        } else if ok > 0 {
            self.row(ReplaceLabelRow::Partial).status(case.policy.partial_labels.status())
        } else {
            let touched: Vec<&String> = added.iter().chain(removed.iter()).collect();
            let who = label_changer(case, &activity, "unlabeled", &touched).or_else(|| label_changer(case, &activity, "labeled", &touched));
            match who {
                Some(e) if case.actors.classify(&e.actor).is_person() => self.row(ReplaceLabelRow::RevertedByPerson).event_by(case, e),
                Some(e) => self.row(ReplaceLabelRow::Reverted).event_by(case, e),
                None => super::unattributed(case, self.row(ReplaceLabelRow::Reverted), "who undid it was not captured"),
            }
        };
        let (h, b) = case.count_actors(&activity);
        Ok(v.resolved(true).actors(h, b).partial(score).detail("labels_added", added).detail("labels_removed", removed))
    }
}
