//! `create_issue`: docs/SPEC.md [SPEC-ISSUES], issues and discussions.
//!
//! ## What a person checks
//! Did the issue receive meaningful triage, assignment, linkage, closure, or completion?
//!
//! ## Why
//! An issue that still exists says nothing ([SPEC-EXISTS]). Closing it as completed is the
//! repository's acceptance; closing it as not planned or duplicate is rejection, unless a
//! bot closed it (a stale/lifecycle sweep is nobody's decision) or the workflow closed
//! its own issue. Triage by a visible non-bot actor (assignment, labels, milestone, a
//! linked PR or commit) is medium acceptance; a comment or reaction alone is engagement,
//! which policy `open_issue_engagement` reads as `pending` (default) or `accepted`.
//!
//! ## Example
//! An issue opened at T and closed as `completed` by a maintainer at T+3d is `pending` at
//! 1h and 24h (no response yet) and `accepted`/`strong`/`issue_closed_completed` at 7d.

use crate::evaluate::rule::Decision as D;
use super::shared::gh_aw;
use super::{issue_final, load_issue};
use crate::evaluate::actors::ActorClass;
use crate::evaluate::case::HistoryGap;
use crate::evaluate::case::{ActKind, Activity, Case, Lifecycle};
use crate::evaluate::outcome::{Confidence, EvidenceStrength as E, Status as S};
use crate::evaluate::{common, rows, Common, RowSpec, Rule, Verdict};
use crate::runs::output_type::OutputType;
use crate::snapshot::github::Issue;
use crate::time::Instant;

pub(crate) struct CreateIssue;

rows! {
    pub(crate) enum CreateIssueRow {
        ClosedCompleted => RowSpec {
            id: "closed_completed",
            when: "Closed as completed",
            status: S::Accepted,
            strength: E::Strong,
            signal: "issue_closed_completed",
            seed: "Closed as completed or resolved",
            policy: None,
            decision: D::Act,
        },
        ClosedByChange => RowSpec {
            id: "closed_by_change",
            when: "Closed by a commit or pull request (no reason recorded)",
            status: S::Accepted,
            strength: E::Strong,
            signal: "issue_closed_by_change",
            seed: "Closed as completed or resolved",
            policy: None,
            decision: D::Act,
        },
        Triaged => RowSpec {
            id: "triaged",
            when: "Assigned, labeled or milestoned by a visible non-bot actor, or linked from a PR or commit",
            status: S::Accepted,
            strength: E::Medium,
            signal: "issue_triaged",
            seed: "Assigned, labeled by non-bot, milestone added, linked to PR, referenced in commit or PR",
            policy: None,
            decision: D::Act,
        },
        EngagedOpen => RowSpec {
            id: "engaged_open",
            when: "Open with a non-bot comment or reaction",
            status: S::Pending,
            strength: E::Medium,
            signal: "non_bot_engagement",
            seed: "Open with non-bot comment, reaction, or triage",
            policy: Some("open_issue_engagement"),
            decision: D::State,
        },
        ClosedNotPlanned => RowSpec {
            id: "closed_not_planned",
            when: "Closed as not planned by someone other than a bot or the workflow",
            status: S::Rejected,
            strength: E::Strong,
            signal: "issue_closed_not_planned",
            seed: "Closed as duplicate, not planned, invalid, or spam",
            policy: None,
            decision: D::PersonAct,
        },
        ClosedDuplicate => RowSpec {
            id: "closed_duplicate",
            when: "Closed as duplicate by someone other than a bot or the workflow",
            status: S::Rejected,
            strength: E::Strong,
            signal: "issue_closed_duplicate",
            seed: "Closed as duplicate, not planned, invalid, or spam",
            policy: None,
            decision: D::PersonAct,
        },
        ClosedInvalid => RowSpec {
            id: "closed_invalid",
            when: "Closed while labelled invalid, spam, won't fix or duplicate (whatever reason the close recorded), by someone other than a bot or the workflow",
            status: S::Rejected,
            strength: E::Strong,
            signal: "issue_closed_invalid",
            seed: "Closed as duplicate, not planned, invalid, or spam",
            policy: None,
            decision: D::PersonAct,
        },
        ClosedByBot => RowSpec {
            id: "closed_by_bot",
            when: "Closed by a bot (stale or lifecycle automation)",
            status: S::Ignored,
            strength: E::Weak,
            signal: "issue_closed_by_bot",
            seed: "(close_issue) Closed by stale or lifecycle bot only",
            policy: Some("bot_closed_not_planned"),
            decision: D::State,
        },
        ClosedByWorkflow => RowSpec {
            id: "closed_by_workflow",
            when: "Closed by the workflow's own identity",
            status: S::Ignored,
            strength: E::Weak,
            signal: "issue_closed_by_workflow",
            seed: "SPEC-ACTORS: a signal counts when it comes from someone other than the workflow",
            policy: Some("own_act_counts"),
            decision: D::State,
        },
        CloseReasonMissing => RowSpec {
            id: "close_reason_missing",
            when: "Closed, with no reason and no closing change recorded",
            status: S::Unknown,
            strength: E::Weak,
            signal: "close_reason_missing",
            seed: "",
            policy: None,
            decision: D::State,
        },
        NoInteraction => RowSpec {
            id: "no_interaction",
            when: "Open with no non-bot interaction after ignore_after_hours",
            status: S::Ignored,
            strength: E::Weak,
            signal: "no_non_bot_interaction",
            seed: "Open with no non-bot interaction after window",
            policy: Some("ignore_after_hours"),
            decision: D::State,
        },
        ExistsOnly => RowSpec {
            id: "exists_only",
            when: "Open with no non-bot interaction yet, window shorter than ignore_after_hours (or activity not captured)",
            status: S::Pending,
            strength: E::Weak,
            signal: "target_exists_only",
            seed: "SPEC-EXISTS: target exists only",
            policy: Some("ignore_after_hours"),
            decision: D::State,
        },
    }
}

const TRIAGE_EVENTS: &[&str] = &["assigned", "labeled", "milestoned", "connected"];
const LINK_EVENTS: &[&str] = &["cross-referenced", "referenced"];

impl CreateIssue {
    /// The row a close with this reason gives.
    fn by_reason(&self, reason: Option<&str>, by_commit: bool, invalid: Option<&str>) -> Verdict {
        // A label that says the issue was not valid outweighs the close's reason: GitHub's
        // default close reason is "completed", and many repositories mark spam and invalid
        // reports with a label only.
        if let Some(label) = invalid {
            return self.row(CreateIssueRow::ClosedInvalid).detail("rejecting_label", label);
        }
        match reason {
            Some("completed") => self.row(CreateIssueRow::ClosedCompleted),
            Some("not_planned") => self.row(CreateIssueRow::ClosedNotPlanned),
            Some("duplicate") => self.row(CreateIssueRow::ClosedDuplicate),
            _ if by_commit => self.row(CreateIssueRow::ClosedByChange),
            _ => self.row(CreateIssueRow::CloseReasonMissing),
        }
    }

    /// A closed issue: the close's reason, weighed by who closed it (a bot, the workflow,
    /// the requester, someone whose identity was not captured).
    fn closed(&self, case: &Case, lc: &Lifecycle, invalid: Option<&str>) -> Verdict {
        let closer = case.actors.classify_at(&lc.closer, lc.closed_at);
        let reason = lc.state_reason.as_deref();
        let rejecting = matches!(reason, Some("not_planned" | "duplicate")) || invalid.is_some();
        let v = match closer {
            ActorClass::Bot => {
                let v = self.row(CreateIssueRow::ClosedByBot);
                if rejecting {
                    v.status(case.policy.bot_closed_not_planned.status())
                } else {
                    v
                }
            }
            ActorClass::SameWorkflow => super::own_act(case, self.by_reason(reason, lc.closed_by_commit, invalid), self.row(CreateIssueRow::ClosedByWorkflow)),
            ActorClass::Requester => super::requester_act(case, self.by_reason(reason, lc.closed_by_commit, invalid)),
            _ => {
                let v = self.by_reason(reason, lc.closed_by_commit, invalid);
                if closer == ActorClass::Unknown && v.status != S::Unknown {
                    super::unattributed(case, v, "who closed it was not captured; the recorded reason is taken as the decision")
                } else {
                    v
                }
            }
        };
        let v = v.closed_by(case, lc).detail("state_reason", reason).detail("closed_by", lc.closer.login.clone()).detail("closed_by_type", closer.as_str());
        // What gh-aw's own summary counts (see `shared::gh_aw`).
        let v = gh_aw::closed_by_bot(v, &lc.closer);
        if matches!(reason, Some("completed" | "not_planned")) {
            gh_aw::resolution_sec(v, case, lc.closed_at)
        } else {
            v
        }
    }

    /// An open issue: triaged, engaged with, ignored long enough, or only there.
    fn open(&self, case: &Case, issue: &Issue, activity: &Activity) -> Result<Verdict, Verdict> {
        if let Some(v) = super::any_capture_problem(activity) {
            return Err(v);
        }
        let by_person = |a: &&crate::evaluate::case::Act| a.class.is_person();
        let triage = case.inside(activity).find(|a| match &a.kind {
            ActKind::Event(e) if TRIAGE_EVENTS.contains(&e.as_str()) => by_person(a),
            ActKind::Event(e) if LINK_EVENTS.contains(&e.as_str()) => a.class != ActorClass::SameWorkflow,
            _ => false,
        });
        if let Some(a) = triage {
            let what = match &a.kind {
                ActKind::Event(e) => e.clone(),
                _ => String::new(),
            };
            return Ok(self.row(CreateIssueRow::Triaged).acted(a).detail("triage", what).detail("triaged_by", a.actor.login.clone()));
        }
        let engaged = case
            .inside(activity)
            .find(|a| by_person(a) && matches!(a.kind, ActKind::Comment | ActKind::Reaction | ActKind::Review(_) | ActKind::ReviewComment));
        if let Some(a) = engaged {
            let v = self.row(CreateIssueRow::EngagedOpen).status(case.policy.open_issue_engagement.status());
            return Ok(v.acted(a).detail("engaged_by", a.actor.login.clone()));
        }
        // Reactions known only as a count: who and when are not captured.
        if case.window.is_snapshot() && issue.reactions_total.unwrap_or(0) > 0 && !activity.read.iter().any(|r| r.ends_with("/reactions")) {
            let v = self.row(CreateIssueRow::EngagedOpen).status(case.policy.open_issue_engagement.status());
            return Ok(v.confidence(Confidence::Low).note("reactions known only as a count; who reacted and when are not captured"));
        }
        if activity.any_read() && case.long_enough() {
            return Ok(self.row(CreateIssueRow::NoInteraction));
        }
        let v = self.row(CreateIssueRow::ExistsOnly);
        Ok(if activity.any_read() { v } else { v.note("no activity lists captured: cannot tell ignored from engaged") })
    }
}

impl Rule for CreateIssue {
    type Row = CreateIssueRow;
    fn output_type(&self) -> OutputType {
        OutputType::CreateIssue
    }
    fn human_check(&self) -> &'static str {
        "Did the issue receive meaningful triage, assignment, linkage, closure, or completion?"
    }

    fn action_time(&self, case: &Case) -> Option<Instant> {
        let n = case.output.target_number?;
        case.output.created_at.or_else(|| case.lookup_entry(&crate::snapshot::paths::numbered("issues/", n, "")).ok().and_then(|e| e.issue().created_at))
    }

    fn evaluate(&self, case: &Case) -> Result<Verdict, Verdict> {
        let Some(n) = case.output.target_number else { return Err(common(Common::MissingReference)) };
        let (_, issue) = load_issue(case, n)?;
        let case = case.with_author(&issue.user);
        let activity = case.activity(n, issue.is_pull_request);
        let (humans, bots) = case.count_actors(&activity);
        let lc = case.lifecycle(&issue_final(issue), activity.events.as_deref()).map_err(HistoryGap::verdict)?;
        // An issue number that turns out to be a pull request's: judged as the issue the
        // output says it created, and flagged, since the output's record and the target
        // disagree about what it is.
        let is_pr = issue.is_pull_request && !case.output.output_type.contains("pull_request");
        let done = |v: Verdict| {
            let v = v.resolved(true).actors(humans, bots).detail("state_basis", lc.basis);
            if is_pr {
                v.detail("target_is_pull_request", true).note("the target is a pull request, not an issue")
            } else {
                v
            }
        };
        if lc.closed {
            let labels = rejecting_label(&case, issue, activity.events.as_deref());
            return Ok(done(self.closed(&case, &lc, labels.as_deref())));
        }
        self.open(&case, issue, &activity).map(done)
    }
}

/// Labels that say an issue was not valid, in lower case (`wontfix` and `won't fix` alike).
const REJECTING_LABELS: &[&str] = &["invalid", "spam", "wontfix", "won't fix", "wont fix", "duplicate"];

/// The first label of the issue as of the window's end that says it was not valid: from its
/// captured labels, with changes after the window undone where history was captured; a
/// timed window without history sees the captured labels only when nothing changed after
/// it (`updated_at`).
fn rejecting_label(case: &Case, issue: &Issue, events: Option<&[crate::snapshot::github::Event]>) -> Option<String> {
    let labels: Vec<String> = issue.labels.as_ref()?.iter().map(|l| l.to_lowercase()).collect();
    let labels = match events {
        Some(evs) => case.labels_as_of(labels, evs).labels,
        None if case.window.is_snapshot() || issue.updated_at.is_some_and(|u| u <= case.as_of) => labels,
        None => return None,
    };
    labels.into_iter().find(|l| REJECTING_LABELS.contains(&l.replace(['-', '_'], " ").as_str()))
}
