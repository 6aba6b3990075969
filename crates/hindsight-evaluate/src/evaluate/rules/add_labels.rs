//! `add_labels`: docs/SPEC.md [SPEC-METADATA], labels, metadata and planning.
//!
//! ## What a person checks
//! Did the label classification stick?
//!
//! ## Why
//! A label that survives triage is a classification the repository kept; labels removed
//! by a person are a correction. The comparison is with the labels the workflow recorded
//! adding (`labelsAdded`, `expected_state.labels_added`, or after minus before state), by
//! name, case-insensitively as GitHub compares them. Without that record the output cannot
//! be judged (`missing_execution_state`). For windows before capture, the label set is
//! rebuilt from `labeled`/`unlabeled` events; without them the window says so.
//!
//! ## Example
//! `labelsAdded: ["bug"]`, and the issue still carries `bug` at T+7d ->
//! `accepted`/`medium`/`labels_retained`. Added `["bug", "p1"]`, `p1` removed by a
//! maintainer -> `accepted`/`medium`/`labels_partially_retained`, `partial_score` 0.5.

use crate::evaluate::rule::Decision as D;
use super::{issue_final, missing, pull_final};
use crate::evaluate::case::{Case, Missing};
use crate::evaluate::outcome::{EvidenceStrength as E, Status as S};
use crate::evaluate::{common, rows, Common, RowSpec, Rule, Verdict};
use crate::json::names;
use crate::runs::output_type::OutputType;
use crate::snapshot::Entry;

pub(crate) struct AddLabels;

rows! {
    pub(crate) enum AddLabelsRow {
        Retained => RowSpec {
            id: "retained",
            when: "Every added label still set at the window's end",
            status: S::Accepted,
            strength: E::Medium,
            signal: "labels_retained",
            seed: "All labels retained after triage window",
            policy: None,
            decision: D::State,
        },
        RetainedClosed => RowSpec {
            id: "retained_closed",
            when: "Every added label still set, and the target closed or merged",
            status: S::Accepted,
            strength: E::Medium,
            signal: "labels_retained_target_closed",
            seed: "Target closed or merged while labels retained",
            policy: None,
            decision: D::State,
        },
        Partial => RowSpec {
            id: "partial",
            when: "Some added labels still set, some removed",
            status: S::Accepted,
            strength: E::Medium,
            signal: "labels_partially_retained",
            seed: "Some labels retained, some removed (mixed)",
            policy: Some("partial_labels"),
            decision: D::State,
        },
        RemovedByPerson => RowSpec {
            id: "removed_by_person",
            when: "Every added label removed, by a visible non-bot actor",
            status: S::Rejected,
            strength: E::Strong,
            signal: "labels_removed",
            seed: "All labels removed by visible non-bot",
            policy: None,
            decision: D::PersonAct,
        },
        Removed => RowSpec {
            id: "removed",
            when: "Every added label removed, by a bot or by someone not captured",
            status: S::Rejected,
            strength: E::Medium,
            signal: "labels_removed",
            seed: "All labels removed by visible non-bot (actor not visible)",
            policy: None,
            decision: D::Act,
        },
        Unreadable => RowSpec {
            id: "unreadable",
            when: "The labels could not be read (capture failed)",
            status: S::Unknown,
            strength: E::None,
            signal: "labels_unreadable",
            seed: "No permission to read labels",
            policy: None,
            decision: D::State,
        },
    }
}

impl Rule for AddLabels {
    type Row = AddLabelsRow;
    fn output_type(&self) -> OutputType {
        OutputType::AddLabels
    }
    fn human_check(&self) -> &'static str {
        "Did the label classification stick?"
    }

    fn evaluate(&self, case: &Case) -> Result<Verdict, Verdict> {
        let Some(n) = case.output.target_number else { return Err(common(Common::MissingReference)) };
        let added: Vec<String> =
            case.recorded.expected().get("labels_added").and_then(names).unwrap_or_default().into_iter().map(|l| l.to_lowercase()).collect();
        if added.is_empty() {
            return Err(common(Common::MissingExecutionState).note("no record of which labels were added"));
        }
        let (labels, activity, closed) = labels_at(case, n, &added)?;
        // Labels known only from the agent's request: gh-aw may have applied fewer.
        let requested_only = case.recorded.expected().get("labels_added_source").and_then(|s| s.as_str()).is_some_and(|s| s.starts_with("request "));
        let (humans, bots) = case.count_actors(&activity);
        let kept: Vec<&String> = added.iter().filter(|l| labels.contains(l)).collect();
        let removed: Vec<&String> = added.iter().filter(|l| !labels.contains(l)).collect();
        let score = kept.len() as f64 / added.len() as f64;
        let done = |v: Verdict| {
            let v = if requested_only {
                v.confidence(crate::evaluate::Confidence::Medium)
                    .note("the labels added are the ones the agent requested; the manifest does not confirm which were applied")
            } else {
                v
            };
            v.resolved(true)
                .actors(humans, bots)
                .detail("labels_added", added.clone())
                .detail("labels_kept", kept.iter().map(|s| s.to_string()).collect::<Vec<_>>())
                .detail("labels_removed", removed.iter().map(|s| s.to_string()).collect::<Vec<_>>())
        };
        if removed.is_empty() {
            return Ok(done(self.row(if closed { AddLabelsRow::RetainedClosed } else { AddLabelsRow::Retained }).partial(1.0)));
        }
        let remover = label_changer(case, &activity, "unlabeled", &removed);
        let remover_class = remover.map(|e| case.actors.classify(&e.actor));
        if kept.is_empty() {
            let v = if remover_class.is_some_and(|c| c.is_person()) {
                self.row(AddLabelsRow::RemovedByPerson)
            } else {
                let v = self.row(AddLabelsRow::Removed);
                if remover.is_none() {
                    super::unattributed(case, v, "who removed the labels was not captured")
                } else {
                    v
                }
            };
            let v = match remover {
                Some(e) => v.event_by(case, e),
                None => v,
            };
            return Ok(done(v.detail("removed_by", remover.and_then(|e| e.actor.login.clone())).partial(0.0)));
        }
        Ok(done(self.row(AddLabelsRow::Partial).status(case.policy.partial_labels.status()).partial(score)))
    }
}

/// The label set (lower case) as of the window's end, the target's activity, and whether
/// it was closed then. The set comes from `issues/N/labels`, else the issue's or PR's own
/// `labels`; windows before capture undo later `labeled`/`unlabeled` events.
///
/// `relevant` are the labels the output touched: one of them whose history cannot be
/// settled in a timed window (see [`Case::labels_as_of`]) makes the answer
/// `history_missing`, never the final state.
pub(crate) fn labels_at(case: &Case, n: i64, relevant: &[String]) -> Result<(Vec<String>, std::rc::Rc<crate::evaluate::case::Activity>, bool), Verdict> {
    let issue_look = case.lookup_entry(&crate::snapshot::paths::numbered("issues/", n, ""));
    let pull_look = case.lookup_entry(&crate::snapshot::paths::numbered("pulls/", n, ""));
    let labels_look = case.lookup_entry(&crate::snapshot::paths::numbered("issues/", n, "/labels"));
    let miss = |l: &Result<&Entry, Missing>| match l {
        Ok(_) => common(Common::TargetNotCaptured),
        Err(m) => missing(case, *m),
    };
    let final_labels: Vec<String> = match &labels_look {
        Ok(e) => e.names().cloned().unwrap_or_default(),
        Err(Missing::Failed(s)) => return Err(AddLabels.row(AddLabelsRow::Unreadable).detail("http_status", *s)),
        _ => match (issue_look.ok().and_then(|e| e.issue().labels.clone()), pull_look.ok().and_then(|e| e.pull().labels.clone())) {
            (Some(l), _) | (None, Some(l)) => l,
            _ => {
                return Err(match (&issue_look, &labels_look) {
                    (Err(Missing::NotCaptured), Err(Missing::Gone(s))) => missing(case, Missing::Gone(*s)),
                    (Err(Missing::NotCaptured), _) => miss(&pull_look),
                    (l, _) => miss(l),
                });
            }
        },
    }
    .into_iter()
    .map(|l| l.to_lowercase())
    .collect();
    let activity = case.activity(n, pull_look.is_ok());
    let labels = if case.window.is_snapshot() {
        final_labels
    } else {
        match &activity.events {
            Some(evs) => {
                let at = case.labels_as_of(final_labels, evs);
                let unsettled: Vec<&String> = at.unsettled.iter().filter(|l| relevant.contains(l)).collect();
                if !unsettled.is_empty() {
                    let names: Vec<&str> = unsettled.iter().map(|l| l.as_str()).collect();
                    return Err(common(Common::HistoryMissing).resolved(true).detail("labels_unsettled", names.clone()).note(format!(
                        "the recorded label events do not explain the captured labels ({}): a change was not recorded, so when it happened is unknown",
                        names.join(", ")
                    )));
                }
                at.labels
            }
            None => return Err(common(Common::HistoryMissing).resolved(true).note("no labeled/unlabeled events captured")),
        }
    };
    let closed = issue_look
        .ok()
        .map(|e| issue_final(e.issue()))
        .or_else(|| pull_look.ok().map(|e| pull_final(e.pull())))
        .and_then(|f| case.lifecycle(&f, activity.events.as_deref()).ok())
        .is_some_and(|lc| lc.closed);
    Ok((labels, activity, closed))
}

/// The latest `labeled`/`unlabeled` event inside the window that touched one of `labels`.
pub(crate) fn label_changer<'b>(
    case: &Case,
    activity: &'b crate::evaluate::case::Activity,
    kind: &str,
    labels: &[&String],
) -> Option<&'b crate::snapshot::github::Event> {
    activity.events.as_deref().unwrap_or(&[]).iter().rev().find(|e| {
        e.event.as_deref() == Some(kind) && e.label.as_ref().is_some_and(|l| labels.iter().any(|x| **x == l.to_lowercase())) && case.is_inside(e.created_at)
    })
}

/// The target's labels (shared by the label rules).
pub(crate) const READS: &[super::reads::Fixed] = &[super::reads::Fixed::Target("issues/", "/labels")];
