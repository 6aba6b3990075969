//! `push_to_pull_request_branch`: docs/SPEC.md [SPEC-PR], pull requests.
//!
//! ## What a person checks
//! Were the pushed commits accepted through the PR lifecycle?
//!
//! ## Why
//! A merged PR proves the pushed commits were kept only if they are in what was merged:
//! `compare/<pushed>...<merge commit>` answering `ahead` or `identical`, or the pushed SHA
//! in the PR's commit list. A merged PR without that proof is `unknown`
//! (`commit_retention_unknown`), never accepted; a commit list that no longer holds the
//! pushed SHA means it was dropped (force-pushed away). Without the pushed SHAs recorded,
//! nothing can be compared (`missing_execution_state`). SHAs match as everywhere in
//! hindsight (`snapshot::sha`): 7 hex digits or more, in either case. A merged PR
//! whose merge or a pushed commit is reverted within the policy's `durability_hours` of the
//! merge (default [`DEFAULT_DURABILITY_HOURS`](crate::evaluate::policy::DEFAULT_DURABILITY_HOURS), 30 days) is rejected.
//!
//! ## Example
//! Pushed `abc123` at T; the PR merged at T+2d with `compare/abc123...<merge>` = `ahead`
//! -> `accepted`/`strong`/`pushed_commits_merged` from the 7d window on.


use crate::evaluate::rule::Decision as D;
use super::pull_final;
use crate::evaluate::case::HistoryGap;
use crate::evaluate::case::{ActKind, Case};
use crate::evaluate::outcome::{EvidenceStrength as E, Status as S};
use crate::evaluate::{common, rows, Common, RowSpec, Rule, Verdict};
use crate::json::str_at;
use crate::runs::output_type::OutputType;
use crate::snapshot::github::PullRequest;
use crate::snapshot::sha::same_commit;

pub(crate) struct PushToPullRequestBranch;

rows! {
    pub(crate) enum PushToPullRequestBranchRow {
        MergedWithCommits => RowSpec {
            id: "merged_with_commits",
            when: "PR merged, pushed commits shown to be in what was merged",
            status: S::Accepted,
            strength: E::Strong,
            signal: "pushed_commits_merged",
            seed: "PR merged with pushed commits included",
            policy: None,
            decision: D::Act,
        },
        MergedModified => RowSpec {
            id: "merged_modified",
            when: "PR merged with the pushed commits, after later commits by someone else",
            status: S::Accepted,
            strength: E::Medium,
            signal: "pushed_commits_modified_then_merged",
            seed: "Pushed commits later modified but PR merged",
            policy: None,
            decision: D::Act,
        },
        RetentionUnknown => RowSpec {
            id: "retention_unknown",
            when: "PR merged, but whether the pushed commits are in it cannot be shown",
            status: S::Unknown,
            strength: E::Weak,
            signal: "commit_retention_unknown",
            seed: "",
            policy: None,
            decision: D::State,
        },
        Reverted => RowSpec {
            id: "reverted",
            when: "PR merged, then its merge or a pushed commit reverted inside the window",
            status: S::Rejected,
            strength: E::Strong,
            signal: "reverted_after_merge",
            seed: "Pushed commits reverted or dropped",
            policy: Some("durability_hours"),
            decision: D::Act,
        },
        Dropped => RowSpec {
            id: "dropped",
            when: "The PR's commit list no longer holds a pushed commit",
            status: S::Rejected,
            strength: E::Strong,
            signal: "pushed_commits_dropped",
            seed: "Pushed commits reverted or dropped",
            policy: None,
            decision: D::Act,
        },
        ClosedUnmerged => RowSpec {
            id: "closed_unmerged",
            when: "PR closed unmerged",
            status: S::Rejected,
            strength: E::Strong,
            signal: "pull_request_closed_unmerged",
            seed: "PR closed unmerged",
            policy: None,
            decision: D::Act,
        },
        OpenActivity => RowSpec {
            id: "open_activity",
            when: "PR open, with review or CI activity after the push",
            status: S::Pending,
            strength: E::Medium,
            signal: "pull_request_review_activity",
            seed: "PR open with review or CI activity",
            policy: None,
            decision: D::State,
        },
        NoActivity => RowSpec {
            id: "no_activity",
            when: "PR open with no activity after ignore_after_hours",
            status: S::Ignored,
            strength: E::Weak,
            signal: "no_activity",
            seed: "PR open with no activity after long window",
            policy: Some("ignore_after_hours"),
            decision: D::State,
        },
        ExistsOnly => RowSpec {
            id: "exists_only",
            when: "PR open with no activity yet, window shorter than ignore_after_hours",
            status: S::Pending,
            strength: E::Weak,
            signal: "target_exists_only",
            seed: "SPEC-EXISTS: target exists only",
            policy: Some("ignore_after_hours"),
            decision: D::State,
        },
    }
}

#[derive(Debug, PartialEq)]
enum Inclusion {
    Included,
    Dropped,
    Unproven,
}

impl PushToPullRequestBranch {
    fn inclusion(case: &Case, n: i64, sha: &str, pr: &PullRequest) -> Inclusion {
        if let Some(merge) = &pr.merge_commit_sha {
            let fwd = case.lookup(&format!("compare/{sha}...{merge}"));
            if let Ok(v) = fwd {
                if matches!(str_at(v, "status"), Some("ahead" | "identical")) {
                    return Inclusion::Included;
                }
            }
            if let Ok(v) = case.lookup(&format!("compare/{merge}...{sha}")) {
                if matches!(str_at(v, "status"), Some("behind" | "identical")) {
                    return Inclusion::Included;
                }
            }
        }
        if let Ok(e) = case.lookup_entry(&crate::snapshot::paths::numbered("pulls/", n, "/commits")) {
            let mut listed = e.commits().iter().filter_map(|c| c.sha.as_deref());
            return if listed.any(|s| same_commit(s, sha)) { Inclusion::Included } else { Inclusion::Dropped };
        }
        Inclusion::Unproven
    }

    /// Whether a check run of the commit started inside the window (its check runs read as
    /// the CI gate and convert read them, `snapshot::ci`).
    fn ci_activity(case: &Case, sha: &str) -> bool {
        let Some(v) = case.lookup(&format!("commits/{sha}/check-runs")).ok() else { return false };
        crate::snapshot::ci::check_runs(v).iter().any(|r| case.is_inside(r.started_at))
    }
}

impl Rule for PushToPullRequestBranch {
    type Row = PushToPullRequestBranchRow;
    fn output_type(&self) -> OutputType {
        OutputType::PushToPullRequestBranch
    }
    fn human_check(&self) -> &'static str {
        "Were the pushed commits accepted through the PR lifecycle?"
    }

    fn evaluate(&self, case: &Case) -> Result<Verdict, Verdict> {
        let Some(n) = case.output.target_number else { return Err(common(Common::MissingReference)) };
        let (_, pr) = super::load_pull(case, n)?;
        let shas: Vec<String> = case.recorded.expected().get("commit_shas").and_then(crate::json::names).unwrap_or_default();
        if shas.is_empty() {
            return Err(common(Common::MissingExecutionState).resolved(true).note("no pushed commit SHA recorded"));
        }
        let activity = case.activity(n, true);
        let (humans, bots) = case.count_actors(&activity);
        let lc = case.lifecycle(&pull_final(pr), activity.events.as_deref()).map_err(HistoryGap::verdict)?;
        let done = |v: Verdict| v.resolved(true).actors(humans, bots).detail("commit_shas", shas.clone());
        let inclusion: Vec<Inclusion> = shas.iter().map(|s| Self::inclusion(case, n, s, pr)).collect();
        if inclusion.contains(&Inclusion::Dropped) && (lc.merged || case.window.is_snapshot()) {
            return Ok(done(self.row(PushToPullRequestBranchRow::Dropped)));
        }
        if lc.merged {
            if let Some(r) = super::shared::durability::find_revert_of(case, n, pr, &shas) {
                return Ok(done(self.row(PushToPullRequestBranchRow::Reverted).at(r.at).by_actor(case, &r.by, r.at).detail("reverted_by", r.describe())));
            }
            if inclusion.iter().all(|i| *i == Inclusion::Included) {
                let later = super::person_act(case, &activity, |a| a.kind == ActKind::Commit).is_some();
                let row = if later { PushToPullRequestBranchRow::MergedModified } else { PushToPullRequestBranchRow::MergedWithCommits };
                return Ok(done(self.row(row).merged_by(case, &lc).detail("merged_by", lc.merger.login.clone())));
            }
            return Ok(done(
                self.row(PushToPullRequestBranchRow::RetentionUnknown)
                    .merged_by(case, &lc)
                    .note("the PR merged, but no compare or commit list shows the pushed commits in it"),
            ));
        }
        if lc.closed {
            return Ok(done(self.row(PushToPullRequestBranchRow::ClosedUnmerged).closed_by(case, &lc)));
        }
        let reviewed = case
            .inside(&activity)
            .find(|a| a.class.is_person() && matches!(a.kind, ActKind::Review(_) | ActKind::Comment | ActKind::ReviewComment));
        if let Some(a) = reviewed {
            return Ok(done(self.row(PushToPullRequestBranchRow::OpenActivity).acted(a)));
        }
        if shas.iter().any(|s| Self::ci_activity(case, s)) {
            return Ok(done(self.row(PushToPullRequestBranchRow::OpenActivity).detail("ci_activity", true)));
        }
        if activity.any_read() && case.long_enough() {
            return Ok(done(self.row(PushToPullRequestBranchRow::NoActivity)));
        }
        Ok(done(self.row(PushToPullRequestBranchRow::ExistsOnly)))
    }
}

/// For each pushed commit: its check runs, and its comparison with the PR's merge commit
/// (once the PR is captured). Where reverts were found is declared by `reads` itself.
pub(crate) fn reads_after(o: &crate::runs::SafeOutput, rec: &crate::evaluate::case::Recorded, known: &crate::snapshot::SnapshotIndex) -> Vec<super::Read> {
    use super::Read::Target;
    let shas: Vec<String> = rec.expected().get("commit_shas").and_then(crate::json::names).unwrap_or_default();
    let merge = match (o.target_repo.as_deref(), o.target_number) {
        (Some(repo), Some(n)) => known.get(&crate::snapshot::paths::rest(repo, &format!("pulls/{n}"))).filter(|e| e.ok()).and_then(|e| e.pull().merge_commit_sha.clone()),
        _ => None,
    };
    let mut out = Vec::new();
    for sha in &shas {
        out.push(Target(format!("commits/{sha}/check-runs")));
        if let Some(m) = &merge {
            out.extend([Target(format!("compare/{sha}...{m}")), Target(format!("compare/{m}...{sha}"))]);
        }
    }
    out
}
