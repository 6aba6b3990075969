//! `close_discussion` (docs/SPEC.md [SPEC-ISSUES]): what a person checks, why, and an example are in [`super::shared::discussion`],
//! which holds what it shares with the other `create_discussion` and `update_discussion` rules.

use crate::evaluate::rule::Decision as D;
use super::shared::discussion::{closed_as_of, load, people};
use crate::evaluate::activity::says_close_was_wrong;
use crate::evaluate::case::Case;
use crate::evaluate::case::HistoryGap;
use crate::evaluate::outcome::{EvidenceStrength as E, Status as S};
use crate::evaluate::{rows, RowSpec, Rule, Verdict};
use crate::runs::output_type::OutputType;

pub(crate) struct CloseDiscussion;

rows! {
    pub(crate) enum CloseDiscussionRow {
        StayedClosed => RowSpec {
            id: "stayed_closed",
            when: "Still closed at the window's end",
            status: S::Accepted,
            strength: E::Medium,
            signal: "discussion_stayed_closed",
            seed: "Still closed after window",
            policy: None,
            decision: D::State,
        },
        Reopened => RowSpec {
            id: "reopened",
            when: "Open again (GraphQL keeps no record of who reopened it)",
            status: S::Rejected,
            strength: E::Medium,
            signal: "discussion_reopened",
            seed: "Reopened by visible non-bot (actor not visible)",
            policy: None,
            decision: D::Act,
        },
        ReopenedByPerson => RowSpec {
            id: "reopened_by_person",
            when: "Open again, and the capture names a visible non-bot reopener (`reopenedBy`)",
            status: S::Rejected,
            strength: E::Strong,
            signal: "discussion_reopened",
            seed: "Reopened by visible non-bot",
            policy: None,
            decision: D::PersonAct,
        },
        Challenged => RowSpec {
            id: "challenged",
            when: "A visible non-bot comment after the close says it was wrong",
            status: S::Rejected,
            strength: E::Medium,
            signal: "close_challenged",
            seed: "Non-bot comments indicate close was wrong",
            policy: None,
            decision: D::PersonAct,
        },
    }
}

impl Rule for CloseDiscussion {
    type Row = CloseDiscussionRow;
    fn output_type(&self) -> OutputType {
        OutputType::CloseDiscussion
    }
    fn not_observable(&self, row: Self::Row) -> Option<&'static str> {
        match row {
            CloseDiscussionRow::ReopenedByPerson => Some("GitHub's GraphQL API names nobody who reopened a discussion (no `reopenedBy`, no discussion timeline): it fires only on a capture that adds the reopener, such as a webhook's sender"),
            _ => None,
        }
    }
    fn human_check(&self) -> &'static str {
        "Did the discussion stay closed?"
    }
    fn evaluate(&self, case: &Case) -> Result<Verdict, Verdict> {
        let (body, d) = load(case)?;
        let closed = closed_as_of(case, &d).map_err(HistoryGap::verdict)?;
        if !closed {
            let by = crate::snapshot::graphql::actor(body.get("reopenedBy"));
            let row = if case.actors.classify(&by).is_person() { CloseDiscussionRow::ReopenedByPerson } else { CloseDiscussionRow::Reopened };
            return Ok(self.row(row).by_actor(case, &by, None).detail("reopened_by", by.login).resolved(true));
        }
        let challenge = people(case, &d).into_iter().find(|c| c.body.as_deref().is_some_and(says_close_was_wrong));
        if let Some(c) = challenge {
            return Ok(self.row(CloseDiscussionRow::Challenged).resolved(true).at(c.created_at).by_actor(case, &c.author, c.created_at).detail("challenged_by", c.author.login.clone()));
        }
        Ok(self.row(CloseDiscussionRow::StayedClosed).resolved(true))
    }
}
