//! `create_discussion`: what a person checks, why, and an example are in [`super::shared::discussion`],
//! which holds what it shares with the other `update_discussion` and `close_discussion` rules.

use crate::evaluate::rule::Decision as D;
use super::shared::discussion::{closed_as_of, load, people};
use crate::evaluate::case::Case;
use crate::evaluate::outcome::{Confidence, EvidenceStrength as E, Status as S};
use crate::evaluate::{rows, RowSpec, Rule, Verdict};
use crate::runs::output_type::OutputType;
use crate::snapshot::graphql::Discussion;
use crate::time::Instant;

pub(crate) struct CreateDiscussion;

rows! {
    pub(crate) enum CreateDiscussionRow {
        Answered => RowSpec {
            id: "answered",
            when: "An answer was chosen",
            status: S::Accepted,
            strength: E::Strong,
            signal: "discussion_answered",
            seed: "Answer marked or accepted answer present",
            policy: None,
            decision: D::Act,
        },
        Engaged => RowSpec {
            id: "engaged",
            when: "Replies or reactions from visible non-bot actors",
            status: S::Accepted,
            strength: E::Medium,
            signal: "discussion_engaged",
            seed: "Non-bot replies or meaningful reactions",
            policy: None,
            decision: D::PersonAct,
        },
        ConvertedOrLinked => RowSpec {
            id: "converted_or_linked",
            when: "Converted to an issue, or linked from an issue or PR",
            status: S::Accepted,
            strength: E::Medium,
            signal: "discussion_converted_or_linked",
            seed: "Discussion converted or linked to issue or PR",
            policy: None,
            decision: D::Act,
        },
        ClosedRejected => RowSpec {
            id: "closed_rejected",
            when: "Closed as duplicate or outdated",
            status: S::Rejected,
            strength: E::Strong,
            signal: "discussion_closed_duplicate_or_outdated",
            seed: "Closed as duplicate, spam, or off-topic",
            policy: None,
            decision: D::Act,
        },
        SpamOrOffTopic => RowSpec {
            id: "spam_or_off_topic",
            when: "Locked or hidden as spam or off-topic (`activeLockReason`, or the discussion's own `minimizedReason`)",
            status: S::Rejected,
            strength: E::Strong,
            signal: "discussion_spam_or_off_topic",
            seed: "Closed as duplicate, spam, or off-topic",
            policy: None,
            decision: D::Act,
        },
        NoEngagement => RowSpec {
            id: "no_engagement",
            when: "No engagement after ignore_after_hours",
            status: S::Ignored,
            strength: E::Weak,
            signal: "no_engagement",
            seed: "Exists with no engagement after window",
            policy: Some("ignore_after_hours"),
            decision: D::State,
        },
        ExistsOnly => RowSpec {
            id: "exists_only",
            when: "No engagement yet, window shorter than ignore_after_hours",
            status: S::Pending,
            strength: E::Weak,
            signal: "target_exists_only",
            seed: "SPEC-EXISTS: target exists only",
            policy: Some("ignore_after_hours"),
            decision: D::State,
        },
    }
}

impl Rule for CreateDiscussion {
    type Row = CreateDiscussionRow;
    fn output_type(&self) -> OutputType {
        OutputType::CreateDiscussion
    }
    fn not_observable(&self, row: Self::Row) -> Option<&'static str> {
        match row {
            CreateDiscussionRow::ConvertedOrLinked => Some("GitHub's GraphQL `Discussion` has no converted-to-issue or linked-items field, and hindsight's capture asks for none: it fires only on a capture that adds them"),
            _ => None,
        }
    }
    fn human_check(&self) -> &'static str {
        "Did the discussion receive meaningful engagement or an accepted answer?"
    }
    fn action_time(&self, case: &Case) -> Option<Instant> {
        case.output.created_at.or_else(|| load(case).ok().and_then(|(_, d)| d.created_at))
    }

    fn evaluate(&self, case: &Case) -> Result<Verdict, Verdict> {
        let (_, d) = load(case)?;
        let case = case.with_author(&d.author);
        let answered = d.has_answer && d.answer_chosen_at.map_or(case.window.is_snapshot(), |t| t <= case.as_of);
        if answered {
            return Ok(self.row(CreateDiscussionRow::Answered).resolved(true).at(d.answer_chosen_at).by_actor(&case, &d.answer_chosen_by, d.answer_chosen_at).detail("chosen_by", d.answer_chosen_by.login.clone()));
        }
        let closed = closed_as_of(&case, &d);
        if matches!(closed, Ok(true)) && matches!(d.state_reason.as_deref(), Some("DUPLICATE" | "OUTDATED")) {
            return Ok(self.row(CreateDiscussionRow::ClosedRejected).resolved(true).at(d.closed_at).detail("state_reason", d.state_reason.clone()));
        }
        if let Some((field, why)) = spam_or_off_topic(&case, &d) {
            return Ok(self.row(CreateDiscussionRow::SpamOrOffTopic).resolved(true).detail(field, why));
        }
        if let Some(c) = people(&case, &d).first() {
            return Ok(self.row(CreateDiscussionRow::Engaged).resolved(true).at(c.created_at).by_actor(&case, &c.author, c.created_at).detail("engaged_by", c.author.login.clone()));
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

/// Why the repository set the discussion aside as spam or off-topic, if it did and that held
/// at the window's end: its lock reason, or the reason it is hidden. GraphQL dates neither,
/// so a timed window sees them only when nothing changed after it (`updatedAt`).
fn spam_or_off_topic<'d>(case: &Case, d: &'d Discussion) -> Option<(&'static str, &'d str)> {
    if !(case.window.is_snapshot() || d.updated_at.is_some_and(|u| u <= case.as_of)) {
        return None;
    }
    let rejects = |r: &&str| matches!(*r, "SPAM" | "OFF_TOPIC");
    let locked = d.lock_reason.as_deref().filter(|_| d.locked != Some(false)).filter(rejects).map(|r| ("lock_reason", r));
    locked.or_else(|| d.minimized_reason.as_deref().filter(|_| d.minimized != Some(false)).filter(rejects).map(|r| ("minimized_reason", r)))
}
