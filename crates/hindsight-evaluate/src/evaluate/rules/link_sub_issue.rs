//! `link_sub_issue`: docs/SPEC.md [SPEC-ISSUES], issues and discussions.
//!
//! ## What a person checks
//! Did the sub-issue relationship stick?
//!
//! ## Why
//! The link is read from `issues/PARENT/sub_issues` (the children) or `issues/CHILD/parent`
//! (REST). Removal by a person shows in the timeline (`sub_issue_removed`,
//! `parent_issue_removed`). A child closed as duplicate or not planned makes the link moot:
//! policy `sub_issue_closed_invalid` reads it as rejected (default) or ignored.
//!
//! ## Example
//! #12 linked under #10; `issues/10/sub_issues` still lists #12 at capture ->
//! `accepted`/`medium`/`sub_issue_link_present`.

use crate::evaluate::rule::Decision as D;
use crate::evaluate::case::{Case, Missing};
use crate::evaluate::outcome::{EvidenceStrength as E, Status as S};
use crate::evaluate::{common, rows, Common, RowSpec, Rule, Verdict};
use crate::json::{as_int, int_at};
use crate::runs::output_type::OutputType;

pub(crate) struct LinkSubIssue;

rows! {
    pub(crate) enum LinkSubIssueRow {
        Present => RowSpec {
            id: "present",
            when: "The parent/sub-issue link is still present",
            status: S::Accepted,
            strength: E::Medium,
            signal: "sub_issue_link_present",
            seed: "Parent/sub-issue link still present",
            policy: None,
            decision: D::State,
        },
        RemovedByPerson => RowSpec {
            id: "removed_by_person",
            when: "The link was removed by a visible non-bot actor",
            status: S::Rejected,
            strength: E::Strong,
            signal: "sub_issue_link_removed",
            seed: "Link removed by visible non-bot",
            policy: None,
            decision: D::PersonAct,
        },
        Removed => RowSpec {
            id: "removed",
            when: "The link is gone; who removed it is not visible",
            status: S::Rejected,
            strength: E::Medium,
            signal: "sub_issue_link_removed",
            seed: "Link removed by visible non-bot (actor not visible)",
            policy: None,
            decision: D::Act,
        },
        ChildClosedInvalid => RowSpec {
            id: "child_closed_invalid",
            when: "The sub-issue was closed as duplicate or not planned",
            status: S::Rejected,
            strength: E::Medium,
            signal: "sub_issue_closed_invalid",
            seed: "Target issue closed as duplicate or invalid (rejected or ignored)",
            policy: Some("sub_issue_closed_invalid"),
            decision: D::Act,
        },
        Inaccessible => RowSpec {
            id: "inaccessible",
            when: "Neither the parent's sub-issues nor the child's parent could be read",
            status: S::Unknown,
            strength: E::None,
            signal: "sub_issue_link_inaccessible",
            seed: "Parent or child inaccessible",
            policy: None,
            decision: D::State,
        },
    }
}

fn numbers(case: &Case) -> (Option<i64>, Option<i64>) {
    numbers_of(case.output, case.recorded)
}

/// The parent and sub-issue numbers the output recorded.
fn numbers_of(o: &crate::runs::SafeOutput, rec: &crate::evaluate::case::Recorded) -> (Option<i64>, Option<i64>) {
    let p = rec.payload();
    let e = rec.expected();
    let get = |k: &str| p.get(k).and_then(as_int).or_else(|| e.get(format!("metadata.{k}")).and_then(as_int));
    (get("parent_issue_number"), get("sub_issue_number").or(o.target_number))
}

/// The timeline events that add or remove a sub-issue link, seen from either issue.
const LINK_EVENTS: &[&str] = &["sub_issue_added", "sub_issue_removed", "parent_issue_added", "parent_issue_removed"];

impl LinkSubIssue {
    /// A timed window: the link as of its end, from the captured timelines' dated link
    /// events. The output linked the issues at T; the last link event inside (T, T+W]
    /// says whether it still held then. Without a timeline, or with an undated link event,
    /// `history_missing`.
    fn as_of_window_end(&self, case: &Case, parent: i64, child: i64) -> Result<Verdict, Verdict> {
        let timelines = [crate::snapshot::paths::numbered("issues/", parent, "/timeline"), crate::snapshot::paths::numbered("issues/", child, "/timeline")];
        let captured: Vec<&crate::snapshot::Entry> = timelines.iter().filter_map(|p| case.lookup_entry(p).ok()).collect();
        if captured.is_empty() {
            return Err(common(Common::HistoryMissing).note("neither issue's timeline was captured: the link cannot be placed in this window"));
        }
        let events: Vec<&crate::snapshot::github::Event> =
            captured.iter().flat_map(|e| e.events()).filter(|e| e.event.as_deref().is_some_and(|k| LINK_EVENTS.contains(&k))).collect();
        if events.iter().any(|e| e.created_at.is_none()) {
            return Err(common(Common::HistoryMissing).resolved(true).note("a link event has no time: the link cannot be placed in this window"));
        }
        let last = events.into_iter().filter(|e| case.is_inside(e.created_at)).max_by_key(|e| e.created_at);
        let done = |v: Verdict| v.resolved(true).detail("parent", parent).detail("sub_issue", child).detail("state_basis", "events");
        Ok(done(match last {
            Some(e) if e.event.as_deref().is_some_and(|k| k.ends_with("_removed")) => {
                let row = if case.actors.classify(&e.actor).is_person() { LinkSubIssueRow::RemovedByPerson } else { LinkSubIssueRow::Removed };
                self.row(row).event_by(case, e)
            }
            _ => self.row(LinkSubIssueRow::Present),
        }))
    }
}

impl Rule for LinkSubIssue {
    type Row = LinkSubIssueRow;
    fn output_type(&self) -> OutputType {
        OutputType::LinkSubIssue
    }
    fn human_check(&self) -> &'static str {
        "Did the sub-issue relationship stick?"
    }
    fn targets_number(&self) -> bool {
        false
    }
    fn evaluate(&self, case: &Case) -> Result<Verdict, Verdict> {
        let (Some(parent), Some(child)) = numbers(case) else {
            return Err(common(Common::MissingExecutionState).note("parent and sub-issue numbers not both recorded"));
        };
        if !case.window.is_snapshot() {
            return self.as_of_window_end(case, parent, child);
        }
        let children = case.lookup(&crate::snapshot::paths::numbered("issues/", parent, "/sub_issues"));
        let up = case.lookup(&crate::snapshot::paths::numbered("issues/", child, "/parent"));
        let linked = match (&children, &up) {
            (Ok(v), _) => Some(v.as_array().is_some_and(|a| a.iter().any(|i| int_at(i, "number") == Some(child)))),
            (_, Ok(v)) => Some(int_at(*v, "number") == Some(parent)),
            (_, Err(Missing::Gone(_))) => Some(false),
            _ => None,
        };
        let Some(linked) = linked else { return Ok(self.row(LinkSubIssueRow::Inaccessible)) };
        let done = |v: Verdict| v.resolved(true).detail("parent", parent).detail("sub_issue", child);
        if let Ok(e) = case.lookup_entry(&crate::snapshot::paths::numbered("issues/", child, "")) {
            let i = e.issue();
            if i.state.as_deref() == Some("closed") && matches!(i.state_reason.as_deref(), Some("duplicate" | "not_planned")) {
                return Ok(done(self.row(LinkSubIssueRow::ChildClosedInvalid).status(case.policy.sub_issue_closed_invalid.status())));
            }
        }
        if linked {
            return Ok(done(self.row(LinkSubIssueRow::Present)));
        }
        let events = [
            crate::snapshot::paths::numbered("issues/", parent, "/timeline"),
            crate::snapshot::paths::numbered("issues/", child, "/timeline"),
            crate::snapshot::paths::numbered("issues/", parent, "/events"),
        ];
        let remover = events
            .iter()
            .filter_map(|p| case.lookup_entry(p).ok())
            .flat_map(|e| e.events())
            .find(|e| matches!(e.event.as_deref(), Some("sub_issue_removed" | "parent_issue_removed")) && case.is_inside(e.created_at));
        Ok(done(match remover {
            Some(e) if case.actors.classify(&e.actor).is_person() => self.row(LinkSubIssueRow::RemovedByPerson).event_by(case, e),
            Some(e) => self.row(LinkSubIssueRow::Removed).event_by(case, e),
            None => self.row(LinkSubIssueRow::Removed),
        }))
    }
}

/// The parent's sub-issues, the child's parent, the child, and both timelines.
pub(crate) fn reads_after(o: &crate::runs::SafeOutput, rec: &crate::evaluate::case::Recorded, _: &crate::snapshot::SnapshotIndex) -> Vec<super::Read> {
    use super::Read::Target;
    let (parent, child) = numbers_of(o, rec);
    let mut out = Vec::new();
    if let Some(p) = parent {
        out.extend([Target(format!("issues/{p}/sub_issues")), Target(format!("issues/{p}/timeline")), Target(format!("issues/{p}/events"))]);
    }
    if let Some(c) = child {
        out.extend([Target(format!("issues/{c}/parent")), Target(format!("issues/{c}")), Target(format!("issues/{c}/timeline"))]);
    }
    out
}
