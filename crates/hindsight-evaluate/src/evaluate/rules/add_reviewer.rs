//! `add_reviewer`: docs/SPEC.md [SPEC-PR], pull requests.
//!
//! ## What a person checks
//! Did the requested reviewer review, comment, approve, or remain meaningfully assigned?
//!
//! ## Why
//! The requested users and teams are the execution record (`requested_reviewers`,
//! `requested_team_reviewers`, or the request's `reviewers`/`team_reviewers`). A review by
//! a requested user is strong; a comment is medium. A team request is satisfied by any
//! member's review, but membership is not in the snapshot: a review by someone not
//! requested by name, on a team-only request, is `unknown`/`team_membership_unverified`
//! rather than a guess. A request no longer pending with no review was removed. A PR that
//! merged without the reviewer is, by policy `merged_without_reviewer`, ignored (default)
//! or accepted with weak evidence.
//!
//! ## Example
//! `alice` requested at T, approves at T+1d -> `accepted`/`strong`/
//! `requested_reviewer_reviewed`.

use crate::evaluate::rule::Decision as D;
use super::{capture_problem, pull_final};
use crate::evaluate::case::{ActKind, Case};
use crate::evaluate::outcome::{EvidenceStrength as E, Status as S};
use crate::evaluate::{common, rows, Common, RowSpec, Rule, Verdict};
use crate::json::names;
use crate::runs::output_type::OutputType;

pub(crate) struct AddReviewer;

rows! {
    pub(crate) enum AddReviewerRow {
        Reviewed => RowSpec {
            id: "reviewed",
            when: "A requested reviewer submitted a review",
            status: S::Accepted,
            strength: E::Strong,
            signal: "requested_reviewer_reviewed",
            seed: "Requested reviewer submitted review",
            policy: None,
            decision: D::Act,
        },
        Commented => RowSpec {
            id: "commented",
            when: "A requested reviewer commented",
            status: S::Accepted,
            strength: E::Medium,
            signal: "requested_reviewer_commented",
            seed: "Requested reviewer commented",
            policy: None,
            decision: D::Act,
        },
        Pending => RowSpec {
            id: "pending",
            when: "The request is still pending while the PR is open",
            status: S::Pending,
            strength: E::Weak,
            signal: "review_request_pending",
            seed: "Reviewer request still pending while PR open",
            policy: None,
            decision: D::State,
        },
        RemovedByPerson => RowSpec {
            id: "removed_by_person",
            when: "The request was removed by a visible non-bot actor",
            status: S::Rejected,
            strength: E::Strong,
            signal: "review_request_removed",
            seed: "Reviewer removed by visible non-bot",
            policy: None,
            decision: D::PersonAct,
        },
        Removed => RowSpec {
            id: "removed",
            when: "The request is gone with no review; who removed it is not visible",
            status: S::Rejected,
            strength: E::Medium,
            signal: "review_request_removed",
            seed: "Reviewer removed by visible non-bot (actor not visible)",
            policy: None,
            decision: D::Act,
        },
        MergedWithout => RowSpec {
            id: "merged_without",
            when: "The PR merged without the requested reviewer acting",
            status: S::Ignored,
            strength: E::Weak,
            signal: "merged_without_requested_reviewer",
            seed: "PR merged without that reviewer acting",
            policy: Some("merged_without_reviewer"),
            decision: D::State,
        },
        ClosedWithout => RowSpec {
            id: "closed_without",
            when: "The PR closed unmerged with no reviewer action",
            status: S::Ignored,
            strength: E::Weak,
            signal: "closed_without_reviewer_action",
            seed: "PR closed unmerged with no reviewer action",
            policy: None,
            decision: D::State,
        },
        TeamUnverified => RowSpec {
            id: "team_unverified",
            when: "Only teams were requested, and the reviews came from people whose team membership is not captured",
            status: S::Unknown,
            strength: E::Weak,
            signal: "team_membership_unverified",
            seed: "Team review requests need special handling",
            policy: None,
            decision: D::State,
        },
    }
}

fn requested(case: &Case) -> (Vec<String>, Vec<String>) {
    requested_of(case.recorded)
}

/// `requested`, from what the output recorded.
fn requested_of(rec: &crate::evaluate::case::Recorded) -> (Vec<String>, Vec<String>) {
    let e = rec.expected();
    let p = rec.payload();
    let pick = |keys: &[&str]| -> Vec<String> {
        for k in keys {
            if let Some(l) = e.get(format!("metadata.{k}")).or(p.get(*k)).and_then(names) {
                return l.into_iter().map(|x| x.to_lowercase()).collect();
            }
        }
        Vec::new()
    };
    (pick(&["requested_reviewers", "reviewers"]), pick(&["requested_team_reviewers", "team_reviewers", "requested_teams"]))
}

impl Rule for AddReviewer {
    type Row = AddReviewerRow;
    fn output_type(&self) -> OutputType {
        OutputType::AddReviewer
    }
    fn human_check(&self) -> &'static str {
        "Did the requested reviewer review, comment, approve, or remain meaningfully assigned?"
    }
    fn evaluate(&self, case: &Case) -> Result<Verdict, Verdict> {
        let (users, teams) = requested(case);
        if users.is_empty() && teams.is_empty() {
            return Err(common(Common::MissingExecutionState).note("no record of which reviewers were requested"));
        }
        let Some(n) = case.output.target_number else { return Err(common(Common::MissingReference)) };
        let activity = case.activity(n, true);
        if !activity.any_read() {
            return Err(common(Common::TargetNotCaptured).note("neither the PR's reviews nor its timeline were captured"));
        }
        let is_req = |a: &crate::evaluate::case::Act| a.actor.login.as_ref().is_some_and(|l| users.contains(&l.to_lowercase()));
        let (h, b) = case.count_actors(&activity);
        let done = |v: Verdict| v.resolved(true).actors(h, b).detail("requested", users.clone()).detail("requested_teams", teams.clone());
        if let Some(a) = case.inside(&activity).find(|a| is_req(a) && matches!(a.kind, ActKind::Review(_))) {
            return Ok(done(self.row(AddReviewerRow::Reviewed).acted(a).detail("reviewed_by", a.actor.login.clone())));
        }
        if let Some(a) = case.inside(&activity).find(|a| is_req(a) && matches!(a.kind, ActKind::Comment | ActKind::ReviewComment)) {
            return Ok(done(self.row(AddReviewerRow::Commented).acted(a)));
        }
        // A requested team is satisfied by a review of one of its members, where the team's
        // members were captured (`orgs/{org}/teams/{slug}/members`).
        let members: Vec<(&String, Option<Vec<String>>)> = teams.iter().map(|t| (t, team_members(case, t))).collect();
        let team_of = |login: &str| members.iter().find(|(_, m)| m.as_ref().is_some_and(|m| m.iter().any(|x| x == login))).map(|(t, _)| (*t).clone());
        let by_member = case
            .inside(&activity)
            .filter(|a| a.class.is_person() && matches!(a.kind, ActKind::Review(_)))
            .find_map(|a| Some((a, team_of(&a.actor.login.as_deref()?.to_lowercase())?)));
        if let Some((a, team)) = by_member {
            return Ok(done(self.row(AddReviewerRow::Reviewed).acted(a).detail("reviewed_by", a.actor.login.clone()).detail("via_team", team)));
        }
        if users.is_empty() && members.iter().any(|(_, m)| m.is_none()) {
            let other = super::person_act(case, &activity, |a| matches!(a.kind, ActKind::Review(_)));
            if let Some(a) = other {
                return Ok(done(
                    self.row(AddReviewerRow::TeamUnverified)
                        .detail("reviewed_by", a.actor.login.clone())
                        .note("a review by someone not requested by name; the team's members (orgs/ORG/teams/SLUG/members) were not captured"),
                ));
            }
        }
        // From here on the answer rests on what did not happen: every source a review,
        // comment or removal could be in must have been read.
        if let Some(v) = capture_problem(&activity, &["reviews", "timeline", "events", "comments"]) {
            return Ok(v);
        }
        // Still requested?
        let still = match case.lookup(&crate::snapshot::paths::numbered("pulls/", n, "/requested_reviewers")) {
            Ok(v) if case.window.is_snapshot() => {
                let u: Vec<String> = v.get("users").and_then(names).unwrap_or_default().into_iter().map(|x| x.to_lowercase()).collect();
                let t: Vec<String> = v.get("teams").and_then(names).unwrap_or_default().into_iter().map(|x| x.to_lowercase()).collect();
                // A team is named by its slug, or as `org/slug`.
                let slug = |x: &String| x.rsplit('/').next().unwrap_or(x).to_string();
                Some(users.iter().any(|x| u.contains(x)) || teams.iter().any(|x| t.iter().any(|y| slug(y) == slug(x))))
            }
            _ => None,
        };
        let pr = super::load_pull(case, n).ok().map(|(_, p)| p);
        let lc = pr.and_then(|p| case.lifecycle(&pull_final(p), activity.events.as_deref()).ok());
        match lc {
            Some(lc) if lc.merged => {
                let v = self.row(AddReviewerRow::MergedWithout).merged_by(case, &lc);
                return Ok(done(if case.policy.merged_without_reviewer == crate::evaluate::policy::Choice::Accepted { v.status(S::Accepted) } else { v }));
            }
            Some(lc) if lc.closed => return Ok(done(self.row(AddReviewerRow::ClosedWithout).closed_by(case, &lc))),
            _ => {}
        }
        let removal = case.events_inside(activity.events.as_deref(), &["review_request_removed"]).last();
        Ok(match (still, removal) {
            (_, Some(e)) if case.actors.classify(&e.actor).is_person() => done(self.row(AddReviewerRow::RemovedByPerson).event_by(case, e)),
            (_, Some(e)) => done(self.row(AddReviewerRow::Removed).event_by(case, e)),
            (Some(false), None) => done(super::unattributed(case, self.row(AddReviewerRow::Removed), "no longer requested; who removed it was not captured")),
            _ => done(self.row(AddReviewerRow::Pending)),
        })
    }
}

/// The reviewers still requested.
pub(crate) const READS: &[super::reads::Fixed] = &[super::reads::Fixed::Target("pulls/", "/requested_reviewers")];

/// The members of each requested team, in the target repository's organization.
pub(crate) fn reads_after(o: &crate::runs::SafeOutput, rec: &crate::evaluate::case::Recorded, _: &crate::snapshot::SnapshotIndex) -> Vec<super::Read> {
    let Some(org) = o.target_repo.as_deref().and_then(|r| r.split('/').next()) else { return Vec::new() };
    requested_of(rec).1.iter().map(|t| super::Read::Global(members_path(org, t))).collect()
}

/// `orgs/{org}/teams/{slug}/members`; a team named `org/slug` is its slug.
fn members_path(org: &str, team: &str) -> String {
    let slug = team.rsplit('/').next().unwrap_or(team);
    format!("orgs/{org}/teams/{slug}/members")
}

/// The logins (lower case) of a requested team's members, when its member list was captured.
fn team_members(case: &Case, team: &str) -> Option<Vec<String>> {
    let org = case.repo()?.split('/').next()?;
    let list = case.lookup_path(&members_path(org, team)).ok()?;
    Some(names(list)?.into_iter().map(|l| l.to_lowercase()).collect())
}
