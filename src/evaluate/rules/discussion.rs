//! Discussions: `create_discussion`, `update_discussion`, `close_discussion` (seed 000
//! §7, Issues and Discussions). Discussions exist only in GraphQL; the capture is
//! `graphql/repos/OWNER/REPO/discussions/N` (shape in `schemas/graphql.md`).
//!
//! ## What a person checks
//! create: did the discussion get an accepted answer or meaningful engagement?
//! update: did the edit stick (as `update_issue`)? close: did it stay closed?
//!
//! ## Why
//! A chosen answer is the strongest sign a discussion was useful; replies and reactions
//! from visible non-bot actors are engagement. Closed as duplicate or outdated is
//! rejection. GraphQL keeps no reopen history, so a discussion open again after the
//! agent closed it was reopened by someone not visible (medium).
//!
//! ## Example
//! A discussion whose answer was chosen by a maintainer at T+5h is
//! `accepted`/`strong`/`discussion_answered` from the 24h window on.

use serde_json::Value;

use super::fields::update_verdict;
use super::fields::UpdateRows;
use super::update_issue::UpdateIssueRow;
use super::{missing, CHALLENGE_PHRASES};
use crate::evaluate::actors::ActorClass;
use crate::evaluate::case::HistoryGap;
use crate::evaluate::case::{Activity, Case};
use crate::evaluate::outcome::{Confidence, EvidenceStrength as E, Status as S};
use crate::evaluate::{common, rows, Common, RowSpec, Rule, Verdict};
use crate::snapshot::graphql::{Discussion, GqlComment};
use crate::time::Instant;

fn load<'a>(case: &Case<'a>) -> Result<(&'a Value, Discussion), Verdict> {
    let Some(n) = case.output.target_number else { return Err(common(Common::MissingReference)) };
    let look = case.graphql(&format!("discussions/{n}"));
    match look.found() {
        Some(v) => Ok((v, Discussion::from(v))),
        None => Err(missing(case, &look)),
    }
}

/// Comments and replies by visible non-bot actors inside the window, oldest first.
fn people<'d>(case: &Case, d: &'d Discussion) -> Vec<&'d GqlComment> {
    let mut out: Vec<&GqlComment> = d
        .comments
        .iter()
        .flat_map(|c| std::iter::once(c).chain(c.replies.iter()))
        .filter(|c| case.actors.classify(&c.author) == ActorClass::VisibleNonBot && case.place(c.created_at) == crate::evaluate::case::Placement::Inside)
        .collect();
    out.sort_by_key(|c| c.created_at);
    out
}

/// Whether the discussion is closed at the window's end, if that can be known: GraphQL
/// gives only the final state and `closedAt`.
fn closed_as_of(case: &Case, d: &Discussion) -> Result<bool, HistoryGap> {
    let closed = d.closed.ok_or(HistoryGap::StateMissing)?;
    if case.window.is_snapshot() {
        return Ok(closed);
    }
    match (closed, d.closed_at) {
        (true, Some(t)) if t <= case.as_of => Ok(true),
        _ if d.updated_at.is_some_and(|u| u <= case.as_of) => Ok(closed),
        _ => Err(HistoryGap::HistoryMissing),
    }
}

pub struct CreateDiscussion;

rows! {
    pub enum CreateDiscussionRow {
        Answered => RowSpec {
            id: "answered",
            when: "An answer was chosen",
            status: S::Accepted,
            strength: E::Strong,
            signal: "discussion_answered",
            seed: "Answer marked or accepted answer present",
            policy: None,
        },
        Engaged => RowSpec {
            id: "engaged",
            when: "Replies or reactions from visible non-bot actors",
            status: S::Accepted,
            strength: E::Medium,
            signal: "discussion_engaged",
            seed: "Non-bot replies or meaningful reactions",
            policy: None,
        },
        ConvertedOrLinked => RowSpec {
            id: "converted_or_linked",
            when: "Converted to an issue, or linked from an issue or PR",
            status: S::Accepted,
            strength: E::Medium,
            signal: "discussion_converted_or_linked",
            seed: "Discussion converted or linked to issue or PR",
            policy: None,
        },
        ClosedRejected => RowSpec {
            id: "closed_rejected",
            when: "Closed as duplicate or outdated",
            status: S::Rejected,
            strength: E::Strong,
            signal: "discussion_closed_duplicate_or_outdated",
            seed: "Closed as duplicate, spam, or off-topic",
            policy: None,
        },
        NoEngagement => RowSpec {
            id: "no_engagement",
            when: "No engagement after ignore_after_hours",
            status: S::Ignored,
            strength: E::Weak,
            signal: "no_engagement",
            seed: "Exists with no engagement after window",
            policy: Some("ignore_after_hours"),
        },
        ExistsOnly => RowSpec {
            id: "exists_only",
            when: "No engagement yet, window shorter than ignore_after_hours",
            status: S::Pending,
            strength: E::Weak,
            signal: "target_exists_only",
            seed: "§8: target exists only",
            policy: Some("ignore_after_hours"),
        },
    }
}

impl Rule for CreateDiscussion {
    type Row = CreateDiscussionRow;
    fn output_type(&self) -> &'static str {
        "create_discussion"
    }
    fn human_check(&self) -> &'static str {
        "Did the discussion receive meaningful engagement or an accepted answer?"
    }
    fn action_time(&self, case: &Case) -> Option<Instant> {
        case.output.created_at.or_else(|| load(case).ok().and_then(|(_, d)| d.created_at))
    }

    fn evaluate(&self, case: &Case) -> Result<Verdict, Verdict> {
        let (_, d) = load(case)?;
        let case = case.with_workflow_actor(d.author.login.as_deref());
        let answered = d.has_answer && d.answer_chosen_at.map_or(case.window.is_snapshot(), |t| t <= case.as_of);
        if answered {
            return Ok(self.row(CreateDiscussionRow::Answered).resolved(true).at(d.answer_chosen_at).detail("chosen_by", d.answer_chosen_by.login.clone()));
        }
        let closed = closed_as_of(&case, &d);
        if matches!(closed, Ok(true)) && matches!(d.state_reason.as_deref(), Some("DUPLICATE" | "OUTDATED")) {
            return Ok(self.row(CreateDiscussionRow::ClosedRejected).resolved(true).at(d.closed_at).detail("state_reason", d.state_reason.clone()));
        }
        if let Some(c) = people(&case, &d).first() {
            return Ok(self.row(CreateDiscussionRow::Engaged).resolved(true).at(c.created_at).detail("engaged_by", c.author.login.clone()));
        }
        if case.window.is_snapshot() && d.reactions_total.unwrap_or(0) > 0 {
            return Ok(self
                .row(CreateDiscussionRow::Engaged)
                .resolved(true)
                .confidence(Confidence::Low)
                .note("reactions known only as a count; who and when are not captured"));
        }
        if d.converted_to_issue.is_some() || !d.linked.is_empty() {
            return Ok(self
                .row(CreateDiscussionRow::ConvertedOrLinked)
                .resolved(true)
                .detail("issue", d.converted_to_issue)
                .detail("linked", d.linked.clone()));
        }
        if case.long_enough() {
            return Ok(self.row(CreateDiscussionRow::NoEngagement).resolved(true));
        }
        Ok(self.row(CreateDiscussionRow::ExistsOnly).resolved(true))
    }
}

pub struct UpdateDiscussion;

rows! {
    /// update_issue's rows but the one that needs edit history, which discussions lack.
    pub enum UpdateDiscussionRow {
        Retained => UpdateIssueRow::ROWS[0],
        Reverted => UpdateIssueRow::ROWS[2],
        Replaced => UpdateIssueRow::ROWS[3],
    }
}

impl Rule for UpdateDiscussion {
    type Row = UpdateDiscussionRow;
    fn output_type(&self) -> &'static str {
        "update_discussion"
    }
    fn human_check(&self) -> &'static str {
        "Did the agent's edit stick? (mirrors update_issue)"
    }
    fn evaluate(&self, case: &Case) -> Result<Verdict, Verdict> {
        let (body, d) = load(case)?;
        Ok(update_verdict(
            self,
            UpdateRows {
                retained: UpdateDiscussionRow::Retained,
                retained_after_edit: None,
                reverted: UpdateDiscussionRow::Reverted,
                replaced: UpdateDiscussionRow::Replaced,
            },
            case,
            body,
            d.updated_at,
            &Activity::default(),
        ))
    }
}

pub struct CloseDiscussion;

rows! {
    pub enum CloseDiscussionRow {
        StayedClosed => RowSpec {
            id: "stayed_closed",
            when: "Still closed at the window's end",
            status: S::Accepted,
            strength: E::Medium,
            signal: "discussion_stayed_closed",
            seed: "Still closed after window",
            policy: None,
        },
        Reopened => RowSpec {
            id: "reopened",
            when: "Open again (GraphQL keeps no record of who reopened it)",
            status: S::Rejected,
            strength: E::Medium,
            signal: "discussion_reopened",
            seed: "Reopened by visible non-bot (actor not visible)",
            policy: None,
        },
        ReopenedByPerson => RowSpec {
            id: "reopened_by_person",
            when: "Open again, and the capture names a visible non-bot reopener (`reopenedBy`)",
            status: S::Rejected,
            strength: E::Strong,
            signal: "discussion_reopened",
            seed: "Reopened by visible non-bot",
            policy: None,
        },
        Challenged => RowSpec {
            id: "challenged",
            when: "A visible non-bot comment after the close says it was wrong",
            status: S::Rejected,
            strength: E::Medium,
            signal: "close_challenged",
            seed: "Non-bot comments indicate close was wrong",
            policy: None,
        },
    }
}

impl Rule for CloseDiscussion {
    type Row = CloseDiscussionRow;
    fn output_type(&self) -> &'static str {
        "close_discussion"
    }
    fn human_check(&self) -> &'static str {
        "Did the discussion stay closed?"
    }
    fn evaluate(&self, case: &Case) -> Result<Verdict, Verdict> {
        let (body, d) = load(case)?;
        let closed = closed_as_of(case, &d).map_err(HistoryGap::verdict)?;
        if !closed {
            let by = crate::snapshot::graphql::actor(body.get("reopenedBy"));
            return Ok(if case.actors.classify(&by) == ActorClass::VisibleNonBot {
                self.row(CloseDiscussionRow::ReopenedByPerson).detail("reopened_by", by.login)
            } else {
                self.row(CloseDiscussionRow::Reopened)
            }
            .resolved(true));
        }
        let challenge = people(case, &d).into_iter().find(|c| c.body.as_deref().is_some_and(|t| CHALLENGE_PHRASES.iter().any(|p| t.contains(p))));
        if let Some(c) = challenge {
            return Ok(self.row(CloseDiscussionRow::Challenged).resolved(true).at(c.created_at).detail("challenged_by", c.author.login.clone()));
        }
        Ok(self.row(CloseDiscussionRow::StayedClosed).resolved(true))
    }
}
