//! `resolve_pull_request_review_thread` (docs/SPEC.md [SPEC-PR]): what a person checks, why, and an example are in [`super::shared::review_comments`],
//! which holds what it shares with the other `create_pull_request_review_comment` and `reply_to_pull_request_review_comment` rules.

use crate::evaluate::rule::Decision as D;
use super::load_pull;
use super::shared::review_comments::threads;
use crate::evaluate::case::Case;
use crate::evaluate::outcome::{EvidenceStrength as E, Status as S};
use crate::evaluate::{common, rows, Common, RowSpec, Rule, Verdict};
use crate::json::str_at;
use crate::runs::output_type::OutputType;
use serde_json::Value;

pub(crate) struct ResolveThread;

rows! {
    pub(crate) enum ResolveThreadRow {
        MergedAfter => RowSpec {
            id: "merged_after",
            when: "Still resolved, and the PR merged",
            status: S::Accepted,
            strength: E::Strong,
            signal: "resolved_and_merged",
            seed: "PR merged after resolution",
            policy: None,
            decision: D::Act,
        },
        StillResolved => RowSpec {
            id: "still_resolved",
            when: "Still resolved",
            status: S::Accepted,
            strength: E::Medium,
            signal: "thread_still_resolved",
            seed: "Thread still resolved after window",
            policy: None,
            decision: D::State,
        },
        UnresolvedByPerson => RowSpec {
            id: "unresolved_by_person",
            when: "Unresolved again, and the capture names a visible non-bot actor who did it (`unresolvedBy`)",
            status: S::Rejected,
            strength: E::Strong,
            signal: "thread_unresolved",
            seed: "Thread reopened by visible non-bot",
            policy: None,
            decision: D::PersonAct,
        },
        Unresolved => RowSpec {
            id: "unresolved",
            when: "Unresolved again, by a bot or by someone the capture does not name (GraphQL itself does not say); by the workflow itself, `ignored`/weak (own act)",
            status: S::Rejected,
            strength: E::Medium,
            signal: "thread_unresolved",
            seed: "Thread reopened by visible non-bot (actor not visible)",
            policy: None,
            decision: D::Act,
        },
        PrClosed => RowSpec {
            id: "pr_closed",
            when: "Still resolved, but the PR closed unmerged",
            status: S::Ignored,
            strength: E::Medium,
            signal: "resolved_pr_closed_unmerged",
            seed: "PR closed unmerged after resolution (contextual)",
            policy: Some("resolved_pr_closed"),
            decision: D::State,
        },
        Inaccessible => RowSpec {
            id: "inaccessible",
            when: "The thread is not in any captured review_threads",
            status: S::Unknown,
            strength: E::None,
            signal: "thread_inaccessible",
            seed: "Thread inaccessible",
            policy: None,
            decision: D::State,
        },
    }
}

impl Rule for ResolveThread {
    type Row = ResolveThreadRow;
    fn output_type(&self) -> OutputType {
        OutputType::ResolvePullRequestReviewThread
    }
    fn not_observable(&self, row: Self::Row) -> Option<&'static str> {
        match row {
            ResolveThreadRow::UnresolvedByPerson => Some("GitHub's GraphQL API names nobody who unresolved a review thread (no `unresolvedBy`, no timeline event): it fires only on a capture that adds them, such as the `pull_request_review_thread` webhook's sender"),
            _ => None,
        }
    }
    fn human_check(&self) -> &'static str {
        "Did the thread stay resolved?"
    }
    fn targets_number(&self) -> bool {
        false
    }
    fn evaluate(&self, case: &Case) -> Result<Verdict, Verdict> {
        let p = case.recorded.payload();
        let Some(tid) = str_at(p, "thread_id")
            .map(str::to_string)
            .or_else(|| case.recorded.expected().get("metadata.thread_id").and_then(Value::as_str).map(str::to_string))
        else {
            return Err(common(Common::MissingReference).note("no thread id recorded"));
        };
        let found = threads(case, case.output.target_number).into_iter().find(|(_, t)| t.node_id.as_deref() == Some(tid.as_str()));
        let Some((n, t)) = found else { return Ok(self.row(ResolveThreadRow::Inaccessible).detail("thread_id", tid)) };
        if !case.window.is_snapshot() {
            return Err(common(Common::HistoryMissing).resolved(true).note("thread resolution has no timestamp; only the snapshot window can be judged"));
        }
        if t.resolved != Some(true) {
            let by = case.actors.classify(&t.unresolved_by);
            let v = match t.unresolved_by.login.as_deref() {
                Some(login) => {
                    let row = if by.is_person() { ResolveThreadRow::UnresolvedByPerson } else { ResolveThreadRow::Unresolved };
                    self.row(row).by(crate::evaluate::outcome::Decider::Act(by)).detail("unresolved_by", login).detail("unresolved_by_type", by.as_str())
                }
                None => super::unattributed(case, self.row(ResolveThreadRow::Unresolved), "who unresolved the thread is not captured (no unresolvedBy)"),
            };
            return Ok(v.resolved(true));
        }
        let pr = load_pull(case, n).ok().map(|(_, p)| p);
        Ok(match pr.map(|p| (p.merged == Some(true), p.state.as_deref() == Some("closed"))) {
            Some((true, _)) => {
                let merger = pr.map(|p| (&p.merged_by, p.merged_at));
                let v = self.row(ResolveThreadRow::MergedAfter).resolved(true);
                match merger {
                    Some((by, at)) => v.by_actor(case, by, at),
                    None => v,
                }
            }
            Some((false, true)) => self.row(ResolveThreadRow::PrClosed).status(case.policy.resolved_pr_closed.status()).resolved(true),
            _ => self.row(ResolveThreadRow::StillResolved).resolved(true),
        })
    }
}

/// Without a PR number, the rule looks for the thread in every captured PR's threads: those,
/// and each of their PRs.
pub(crate) fn reads_after(o: &crate::runs::SafeOutput, rec: &crate::evaluate::case::Recorded, known: &crate::snapshot::SnapshotIndex) -> Vec<super::Read> {
    let mut out = super::shared::review_comments::reads_after(o, rec, known);
    let Some(repo) = o.target_repo.as_deref() else { return out };
    if o.target_number.is_some() {
        return out;
    }
    let prefix = format!("graphql/repos/{repo}/pulls/");
    for p in known.entries.keys().filter(|k| k.starts_with(&prefix) && k.ends_with("/review_threads")) {
        if let Some(num) = p[prefix.len()..].split('/').next().and_then(|x| x.parse::<i64>().ok()) {
            out.extend([super::Read::Graphql(format!("pulls/{num}/review_threads")), super::Read::Target(format!("pulls/{num}"))]);
        }
    }
    out
}
