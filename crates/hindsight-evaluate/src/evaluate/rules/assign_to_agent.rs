//! `assign_to_agent`: docs/SPEC.md [SPEC-PR], pull requests.
//!
//! ## What a person checks
//! Did the assigned agent produce useful downstream work?
//!
//! ## Why
//! The agent's work is a PR it opened that references the issue strictly after the
//! assignment (a `cross-referenced` timeline event whose source is a PR authored by the
//! agent: the request's `agent`, else a known coding-agent login). A PR that referenced the
//! issue before the assignment is not attributed to it. That PR's fate decides; an issue
//! completed with no agent PR was solved by someone else (policy `solved_by_other`,
//! default ignored).
//!
//! ## Example
//! Assigned at T; `copilot-swe-agent` opens PR #2 referencing the issue at T+1d, merged at
//! T+3d -> `accepted`/`strong`/`agent_pr_merged` from 7d on.

use crate::evaluate::rule::Decision as D;
use super::{issue_final, load_issue, load_pull, pull_final};
use crate::evaluate::case::HistoryGap;
use crate::evaluate::case::{ActKind, Case};
use crate::evaluate::outcome::{EvidenceStrength as E, Status as S};
use crate::evaluate::{common, rows, Common, RowSpec, Rule, Verdict};
use crate::json::str_at;
use crate::runs::output_type::OutputType;

pub(crate) struct AssignToAgent;

rows! {
    pub(crate) enum AssignToAgentRow {
        AgentPrMerged => RowSpec {
            id: "agent_pr_merged",
            when: "The agent's PR merged",
            status: S::Accepted,
            strength: E::Strong,
            signal: "agent_pr_merged",
            seed: "Agent-created PR merged",
            policy: None,
            decision: D::Act,
        },
        AgentPrApproved => RowSpec {
            id: "agent_pr_approved",
            when: "The agent's PR approved by a visible non-bot reviewer, not merged yet",
            status: S::Pending,
            strength: E::Medium,
            signal: "agent_pr_approved",
            seed: "Agent-created PR reviewed positively",
            policy: None,
            decision: D::State,
        },
        IssueCompleted => RowSpec {
            id: "issue_completed",
            when: "The issue closed as completed, with an agent PR linked",
            status: S::Accepted,
            strength: E::Strong,
            signal: "issue_completed_agent_work",
            seed: "Issue closed as completed due to agent work",
            policy: None,
            decision: D::Act,
        },
        AgentPrClosed => RowSpec {
            id: "agent_pr_closed",
            when: "The agent's PR closed unmerged",
            status: S::Rejected,
            strength: E::Strong,
            signal: "agent_pr_closed_unmerged",
            seed: "Agent PR closed unmerged",
            policy: None,
            decision: D::Act,
        },
        NoWork => RowSpec {
            id: "no_work",
            when: "No agent PR or activity after ignore_after_hours",
            status: S::Ignored,
            strength: E::Weak,
            signal: "no_agent_work",
            seed: "Agent assigned but no PR or activity after window",
            policy: Some("ignore_after_hours"),
            decision: D::State,
        },
        AwaitingAgent => RowSpec {
            id: "awaiting_agent",
            when: "No agent PR yet, window shorter than ignore_after_hours",
            status: S::Pending,
            strength: E::Weak,
            signal: "awaiting_agent_work",
            seed: "",
            policy: Some("ignore_after_hours"),
            decision: D::State,
        },
        AgentPrOpen => RowSpec {
            id: "agent_pr_open",
            when: "The agent's PR is open without approval",
            status: S::Pending,
            strength: E::Weak,
            signal: "agent_pr_open",
            seed: "",
            policy: None,
            decision: D::State,
        },
        SolvedByOther => RowSpec {
            id: "solved_by_other",
            when: "Issue closed as completed with no agent PR",
            status: S::Ignored,
            strength: E::Medium,
            signal: "solved_by_other_actor",
            seed: "Issue solved by someone else (accepted_other_actor or neutral)",
            policy: Some("solved_by_other"),
            decision: D::State,
        },
        ClosedUnexplained => RowSpec {
            id: "closed_unexplained",
            when: "Issue closed without a recorded reason and with no agent PR",
            status: S::Unknown,
            strength: E::Weak,
            signal: "close_reason_missing",
            seed: "",
            policy: None,
            decision: D::State,
        },
    }
}

const AGENT_LOGINS: &[&str] = &["copilot-swe-agent", "copilot", "devin-ai-integration", "codex"];

fn is_agent(login: Option<&str>, named: Option<&str>) -> bool {
    let Some(l) = login.map(|l| l.trim_end_matches("[bot]").to_lowercase()) else { return false };
    match named {
        Some(n) => l.contains(&n.to_lowercase()),
        None => AGENT_LOGINS.iter().any(|a| l == *a),
    }
}

impl Rule for AssignToAgent {
    type Row = AssignToAgentRow;
    fn output_type(&self) -> OutputType {
        OutputType::AssignToAgent
    }
    fn human_check(&self) -> &'static str {
        "Did the assigned agent produce useful downstream work?"
    }
    fn evaluate(&self, case: &Case) -> Result<Verdict, Verdict> {
        let Some(n) = case.output.target_number else { return Err(common(Common::MissingReference)) };
        let p = case.recorded.payload();
        let named = str_at(p, "agent").map(str::to_string);
        let (_, issue) = load_issue(case, n)?;
        let activity = case.activity(n, false);
        if activity.events.is_none() {
            return Err(common(Common::HistoryMissing).resolved(true).note("the issue's timeline was not captured: agent work cannot be attributed"));
        }
        // The agent's PR: referenced strictly after the assignment. Without an action
        // time nothing can be attributed.
        let pr_ref = case.t0.and_then(|_| {
            case.events_inside(activity.events.as_deref(), &["cross-referenced", "connected"])
                .find(|e| e.source_is_pull_request && is_agent(e.source_author.as_deref(), named.as_deref()))
        });
        let (h, b) = case.count_actors(&activity);
        let done = |v: Verdict| v.resolved(true).actors(h, b);
        let lc = case.lifecycle(&issue_final(issue), activity.events.as_deref()).map_err(HistoryGap::verdict)?;
        if let Some(e) = pr_ref {
            let Some(m) = e.source_number else { return Err(common(Common::MissingReference).note("the agent PR's number is not in the timeline")) };
            let (_, pr) = load_pull(case, m).map_err(|v| v.note(format!("agent PR #{m}")))?;
            let pact = case.activity(m, true);
            let plc = case.lifecycle(&pull_final(pr), pact.events.as_deref()).map_err(HistoryGap::verdict)?;
            // The agent's PR is the agent's own act: its author is the workflow's identity
            // (or the requester's, for an agent that opens PRs as a person).
            let pcase = case.with_author(&pr.user);
            let v = if plc.merged {
                self.row(AssignToAgentRow::AgentPrMerged).merged_by(&pcase, &plc)
            } else if plc.closed {
                self.row(AssignToAgentRow::AgentPrClosed).closed_by(&pcase, &plc)
            } else if lc.closed && lc.state_reason.as_deref() == Some("completed") {
                self.row(AssignToAgentRow::IssueCompleted).closed_by(case, &lc)
            } else if let Some(a) = super::person_act(case, &pact, |a| matches!(&a.kind, ActKind::Review(s) if s == "APPROVED")) {
                self.row(AssignToAgentRow::AgentPrApproved).acted(a)
            } else {
                self.row(AssignToAgentRow::AgentPrOpen)
            };
            return Ok(done(v.detail("agent_pr", m)));
        }
        if lc.closed {
            return Ok(done(match lc.state_reason.as_deref() {
                Some("completed") => self.row(AssignToAgentRow::SolvedByOther).status(case.policy.solved_by_other.status()).closed_by(case, &lc),
                _ => self.row(AssignToAgentRow::ClosedUnexplained).closed_by(case, &lc),
            }));
        }
        if case.t0.is_none() {
            return Err(common(Common::ActionTimeMissing).resolved(true).note("without the assignment's time no PR can be attributed to it"));
        }
        Ok(done(self.row(if case.long_enough() { AssignToAgentRow::NoWork } else { AssignToAgentRow::AwaitingAgent })))
    }
}

/// Each PR the agent's timeline references (the issue's timeline once captured), as a
/// target of its own: the rule follows the agent's PR.
pub(crate) fn reads_after(o: &crate::runs::SafeOutput, rec: &crate::evaluate::case::Recorded, known: &crate::snapshot::SnapshotIndex) -> Vec<super::Read> {
    let (Some(repo), Some(n)) = (o.target_repo.as_deref(), o.target_number) else { return Vec::new() };
    let named = str_at(rec.payload(), "agent");
    let Some(timeline) = known.get(&crate::snapshot::paths::rest(repo, &format!("issues/{n}/timeline"))).filter(|e| e.ok()) else { return Vec::new() };
    let prs = timeline.events().iter().filter(|e| e.source_is_pull_request && is_agent(e.source_author.as_deref(), named)).filter_map(|e| e.source_number);
    prs.flat_map(|m| super::reads::target().map(move |f| super::Read::numbered(f, m))).collect()
}
