//! `remove_labels` (a gh-aw type the specification's tables do not list; the rule mirrors
//! `add_labels`: docs/SPEC.md [SPEC-EXTRA-TYPES]).
//!
//! ## What a person checks
//! Did the labels stay removed?
//!
//! ## Why
//! A removal that sticks is a classification the repository kept; labels added back by a
//! person undo it. The removed labels come from the record (`labelsRemoved`, `labels`, or
//! before minus after state).
//!
//! ## Example
//! Removed `needs-triage`; still absent at T+7d -> `accepted`/`medium`/
//! `labels_stay_removed`.

use crate::evaluate::rule::Decision as D;
use super::add_labels::{label_changer, labels_at};
use crate::evaluate::case::Case;
use crate::evaluate::outcome::{EvidenceStrength as E, Status as S};
use crate::evaluate::{common, rows, Common, RowSpec, Rule, Verdict};
use crate::json::names;
use crate::runs::output_type::OutputType;

pub(crate) struct RemoveLabels;

rows! {
    pub(crate) enum RemoveLabelsRow {
        StayRemoved => RowSpec {
            id: "stay_removed",
            when: "Every removed label still absent",
            status: S::Accepted,
            strength: E::Medium,
            signal: "labels_stay_removed",
            seed: "(add_labels) All labels retained after triage window",
            policy: None,
            decision: D::State,
        },
        Partial => RowSpec {
            id: "partial",
            when: "Some removed labels back, some still absent",
            status: S::Accepted,
            strength: E::Medium,
            signal: "labels_partially_retained",
            seed: "(add_labels) Some labels retained, some removed",
            policy: Some("partial_labels"),
            decision: D::State,
        },
        ReaddedByPerson => RowSpec {
            id: "readded_by_person",
            when: "Every removed label added back by a visible non-bot actor",
            status: S::Rejected,
            strength: E::Strong,
            signal: "labels_readded",
            seed: "(add_labels) All labels removed by visible non-bot",
            policy: None,
            decision: D::PersonAct,
        },
        Readded => RowSpec {
            id: "readded",
            when: "Every removed label back; by a bot or someone not captured",
            status: S::Rejected,
            strength: E::Medium,
            signal: "labels_readded",
            seed: "",
            policy: None,
            decision: D::Act,
        },
    }
}

pub(crate) fn removed_labels(case: &Case) -> Vec<String> {
    let p = case.recorded.payload();
    let from_states = || {
        let b = case.recorded.before().as_ref()?.get("labels").and_then(names)?;
        let a = case.recorded.after().as_ref().and_then(|a| a.get("labels").and_then(names)).unwrap_or_default();
        Some(b.into_iter().filter(|l| !a.contains(l)).collect::<Vec<_>>())
    };
    p.get("labelsRemoved")
        .or(p.get("labels_removed"))
        .and_then(names)
        .or_else(from_states)
        .or_else(|| p.get("labels").and_then(names))
        .unwrap_or_default()
        .into_iter()
        .map(|l| l.to_lowercase())
        .collect()
}

impl Rule for RemoveLabels {
    type Row = RemoveLabelsRow;
    fn output_type(&self) -> OutputType {
        OutputType::RemoveLabels
    }
    fn human_check(&self) -> &'static str {
        "Did the labels stay removed?"
    }
    fn evaluate(&self, case: &Case) -> Result<Verdict, Verdict> {
        let Some(n) = case.output.target_number else { return Err(common(Common::MissingReference)) };
        let gone = removed_labels(case);
        if gone.is_empty() {
            return Err(common(Common::MissingExecutionState).note("no record of which labels were removed"));
        }
        let (labels, activity, _) = labels_at(case, n, &gone)?;
        let back: Vec<&String> = gone.iter().filter(|l| labels.contains(l)).collect();
        let score = 1.0 - back.len() as f64 / gone.len() as f64;
        let v = if back.is_empty() {
            self.row(RemoveLabelsRow::StayRemoved)
        } else if back.len() < gone.len() {
            self.row(RemoveLabelsRow::Partial).status(case.policy.partial_labels.status())
        } else {
            let who = label_changer(case, &activity, "labeled", &back);
            match who {
                Some(e) if case.actors.classify(&e.actor).is_person() => self.row(RemoveLabelsRow::ReaddedByPerson).event_by(case, e),
                Some(e) => self.row(RemoveLabelsRow::Readded).event_by(case, e),
                None => super::unattributed(case, self.row(RemoveLabelsRow::Readded), "who added them back was not captured"),
            }
        };
        let (h, b) = case.count_actors(&activity);
        Ok(v.resolved(true).actors(h, b).partial(score).detail("labels_removed", gone.clone()))
    }
}
