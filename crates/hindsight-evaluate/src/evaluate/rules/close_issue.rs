//! `close_issue`: docs/SPEC.md [SPEC-ISSUES], issues and discussions.
//!
//! ## What a person checks
//! Did the issue stay closed, or was it reopened?
//!
//! ## Why
//! A close that sticks is a decision the repository kept. A reopen by a visible non-bot
//! actor undoes it; a comment after the close saying it was wrong (matched against
//! `CHALLENGE_PHRASES`) rejects it more weakly, since words are weaker than a reopen. A
//! close carried out by a stale or lifecycle bot (a closing actor whose login names
//! `stale` or `lifecycle`) is nobody's decision: policy `lifecycle_close` reads it as
//! accepted with weak evidence (default) or ignored.
//!
//! An output that closed as a duplicate and named `duplicate_of` also marked the issue a
//! duplicate of another (gh-aw's `markAsDuplicate`, a `marked_as_duplicate` timeline event);
//! a person removing that mark
//! (`unmarked_as_duplicate`) rejects it even while the issue stays closed.
//!
//! ## Example
//! Closed by the agent at T, reopened by a maintainer at T+2h: `accepted` at 1h,
//! `rejected`/`strong`/`issue_reopened` from 24h on.

use crate::evaluate::rule::Decision as D;
use super::shared::gh_aw;
use super::{challenge, issue_final, load_issue};
use crate::evaluate::case::Case;
use crate::evaluate::case::HistoryGap;
use crate::evaluate::outcome::{EvidenceStrength as E, Status as S};
use crate::evaluate::{common, rows, Common, RowSpec, Rule, Verdict};
use crate::runs::output_type::OutputType;

pub(crate) struct CloseIssue;

rows! {
    pub(crate) enum CloseIssueRow {
        StayedClosed => RowSpec {
            id: "stayed_closed",
            when: "Still closed at the window's end",
            status: S::Accepted,
            strength: E::Medium,
            signal: "issue_stayed_closed",
            seed: "Still closed after evaluation window",
            policy: None,
            decision: D::State,
        },
        ReopenedByPerson => RowSpec {
            id: "reopened_by_person",
            when: "Reopened by a visible non-bot actor",
            status: S::Rejected,
            strength: E::Strong,
            signal: "issue_reopened",
            seed: "Reopened by visible non-bot",
            policy: None,
            decision: D::PersonAct,
        },
        Reopened => RowSpec {
            id: "reopened",
            when: "Open again at the window's end; who reopened it is not visible",
            status: S::Rejected,
            strength: E::Medium,
            signal: "issue_reopened",
            seed: "Reopened by visible non-bot (actor not visible)",
            policy: None,
            decision: D::Act,
        },
        Challenged => RowSpec {
            id: "challenged",
            when: "Still closed, but a visible non-bot comment after the close says it was wrong",
            status: S::Rejected,
            strength: E::Medium,
            signal: "close_challenged",
            seed: "Closed then referenced as mistakenly closed",
            policy: None,
            decision: D::PersonAct,
        },
        DuplicateUnmarked => RowSpec {
            id: "duplicate_unmarked",
            when: "Closed as a duplicate (`duplicate_of`, GitHub's native mark), and a visible non-bot actor removed the mark (`unmarked_as_duplicate`)",
            status: S::Rejected,
            strength: E::Strong,
            signal: "duplicate_mark_removed",
            seed: "",
            policy: None,
            decision: D::PersonAct,
        },
        LifecycleBot => RowSpec {
            id: "lifecycle_bot",
            when: "Closed by a stale or lifecycle bot",
            status: S::Accepted,
            strength: E::Weak,
            signal: "closed_by_lifecycle_bot",
            seed: "Closed by stale or lifecycle bot only",
            policy: Some("lifecycle_close"),
            decision: D::Act,
        },
    }
}

pub(crate) fn is_lifecycle_bot(login: Option<&str>) -> bool {
    login.is_some_and(|l| {
        let l = l.to_lowercase();
        l.contains("stale") || l.contains("lifecycle")
    })
}

impl Rule for CloseIssue {
    type Row = CloseIssueRow;
    fn output_type(&self) -> OutputType {
        OutputType::CloseIssue
    }
    fn human_check(&self) -> &'static str {
        "Did the issue stay closed, or was it reopened?"
    }

    fn evaluate(&self, case: &Case) -> Result<Verdict, Verdict> {
        let Some(n) = case.output.target_number else { return Err(common(Common::MissingReference)) };
        let (_, issue) = load_issue(case, n)?;
        let activity = case.activity(n, issue.is_pull_request);
        let (humans, bots) = case.count_actors(&activity);
        let lc = case.lifecycle(&issue_final(issue), activity.events.as_deref()).map_err(HistoryGap::verdict)?;
        let done = |v: Verdict| v.resolved(true).actors(humans, bots).detail("state_basis", lc.basis);
        if !lc.closed {
            let reopen = case.events_inside(activity.events.as_deref(), &["reopened"]).last();
            return Ok(done(match reopen {
                Some(e) if case.actors.classify(&e.actor).is_person() => {
                    self.row(CloseIssueRow::ReopenedByPerson).event_by(case, e).detail("reopened_by", e.actor.login.clone())
                }
                Some(e) => self.row(CloseIssueRow::Reopened).event_by(case, e).detail("reopened_by", e.actor.login.clone()),
                None => super::unattributed(case, self.row(CloseIssueRow::Reopened), "open again; no reopened event captured"),
            }));
        }
        // Still closed: who closed it last, as gh-aw's own summary counts it (see `shared::gh_aw`).
        let done = |v: Verdict| gh_aw::closed_by_bot(done(v), &lc.closer);
        if is_lifecycle_bot(lc.closer.login.as_deref()) {
            let v = self.row(CloseIssueRow::LifecycleBot).by_actor(case, &lc.closer, lc.closed_at).detail("closed_by", lc.closer.login.clone());
            return Ok(done(if case.policy.lifecycle_close == crate::evaluate::policy::Choice::Ignored { v.status(S::Ignored) } else { v }));
        }
        // A duplicate mark the output made (gh-aw marks one only for a close as duplicate),
        // removed since: the duplicate call was undone.
        let as_duplicate = case.recorded.payload().get("state_reason").and_then(|r| r.as_str()).is_some_and(|r| r.eq_ignore_ascii_case("duplicate"))
            || lc.state_reason.as_deref() == Some("duplicate");
        if as_duplicate && duplicate_of(case).is_some() {
            if let Some(e) = case.events_inside(activity.events.as_deref(), &["unmarked_as_duplicate"]).last() {
                let v = self.row(CloseIssueRow::DuplicateUnmarked).event_by(case, e).detail("unmarked_by", e.actor.login.clone());
                return Ok(done(v.detail("duplicate_of", duplicate_of(case))));
            }
        }
        if let Some(a) = challenge(case, &activity) {
            return Ok(done(
                self.row(CloseIssueRow::Challenged).acted(a).detail("challenged_by", a.actor.login.clone()).note("matched a phrase saying the close was wrong"),
            ));
        }
        Ok(done(self.row(CloseIssueRow::StayedClosed).detail("closed_by", lc.closer.login.clone())))
    }
}

/// The issue the output said this one duplicates (`duplicate_of`), as recorded.
fn duplicate_of(case: &Case) -> Option<String> {
    let p = case.recorded.payload();
    match p.get("duplicate_of")? {
        serde_json::Value::String(s) if !s.trim().is_empty() => Some(s.trim().to_string()),
        serde_json::Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}
