//! Fix cycles of an agent PR (the evaluation pipeline's tier 1: a failure goes back to the
//! agent for a fix, up to a limit), counted as the CI gate replay counts autoloop's fix
//! attempts: from the first push, each push of the agent after a red CI is a fix attempt;
//! green accepts; the same failure signature as the attempt before is stuck; still red
//! after the limit's last attempt is exhausted.
//!
//! A push is the agent's commits up to the first with a CI state of its own (a commit with
//! none, followed by another of the agent's, was pushed with it). The agent is the PR's
//! author: a commit by another visible login is someone else's (never a fix attempt, as the
//! gate skips other commits), and a commit with no login may be the agent's or not, so the
//! count stops there as unknown.

use super::Pr;
use crate::time::Instant;

/// How a PR's fix cycle ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FixResult {
    /// CI green on a push (after `fix_attempts` fixes).
    Accepted,
    /// Red with the failure signature of the attempt before: fixing did not move it.
    Stuck,
    /// Still red after the limit's last fix attempt.
    Exhausted,
    /// Red, and the agent pushed nothing after.
    RedUnresolved,
    /// A push's CI was not captured.
    CiMissing,
    /// A push's CI was still running at capture.
    CiPending,
    /// A commit after a red push has no login: it may have been a fix.
    PusherUnknown,
}

impl FixResult {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            FixResult::Accepted => "accepted",
            FixResult::Stuck => "stuck",
            FixResult::Exhausted => "fix_exhausted",
            FixResult::RedUnresolved => "red_unresolved",
            FixResult::CiMissing => "ci_missing",
            FixResult::CiPending => "ci_pending",
            FixResult::PusherUnknown => "pusher_unknown",
        }
    }
}

/// A PR's commit as captured: (position, sha, committed_at, author login).
pub(crate) type Commit = (i64, String, Option<Instant>, Option<String>);

/// The fix attempts from the push whose head is `first` (`None` when they cannot be counted)
/// and how the cycle ended; `ci` gives a commit's (state, failure signature).
pub(crate) fn fix_cycle<'a>(pr: &Pr, commits: &[Commit], first: &str, limit: usize, ci: impl Fn(&str) -> Option<&'a (String, Option<String>)>) -> (Option<i64>, FixResult) {
    let Some(mut at) = commits.iter().position(|c| c.1 == first) else { return (None, FixResult::CiMissing) };
    let agent = pr.author.as_deref().map(str::to_ascii_lowercase);
    let state = |k: usize| ci(&commits[k].1).filter(|(s, _)| s != "missing");
    let mut attempts = 0usize;
    let mut previous: Option<&str> = None;
    loop {
        let Some((s, signature)) = state(at) else { return (Some(attempts as i64), FixResult::CiMissing) };
        match s.as_str() {
            "success" => return (Some(attempts as i64), FixResult::Accepted),
            "failure" => {}
            _ => return (Some(attempts as i64), FixResult::CiPending),
        }
        if attempts > 0 && signature.is_some() && signature.as_deref() == previous {
            return (Some(attempts as i64), FixResult::Stuck);
        }
        if attempts >= limit {
            return (Some(attempts as i64), FixResult::Exhausted);
        }
        previous = signature.as_deref();
        // The agent's next push: its commits up to the first with a CI state.
        let mut head = None;
        for k in at + 1..commits.len() {
            match commits[k].3.as_deref().map(str::to_ascii_lowercase) {
                None => return (None, FixResult::PusherUnknown),
                Some(login) if Some(&login) != agent.as_ref() => continue,
                Some(_) => {
                    head = Some(k);
                    if state(k).is_some() {
                        break;
                    }
                }
            }
        }
        let Some(next) = head else { return (Some(attempts as i64), FixResult::RedUnresolved) };
        attempts += 1;
        at = next;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pr() -> Pr {
        Pr { repo: "o/r".into(), number: 1, author: Some("agent[bot]".into()), created_at: None, state: None, merged: None, merged_at: None }
    }

    fn commit(k: i64, by: Option<&str>) -> Commit {
        (k, format!("c{k}"), None, by.map(str::to_string))
    }

    fn cycle(commits: &[Commit], states: &[(&str, &str, Option<&str>)], limit: usize) -> (Option<i64>, FixResult) {
        let map: std::collections::HashMap<String, (String, Option<String>)> =
            states.iter().map(|(sha, s, sig)| (sha.to_string(), (s.to_string(), sig.map(str::to_string)))).collect();
        fix_cycle(&pr(), commits, "c0", limit, |sha| map.get(sha))
    }

    #[test]
    fn green_after_fixes_by_the_agent_others_skipped() {
        let commits = [commit(0, Some("agent[bot]")), commit(1, Some("maria")), commit(2, Some("Agent[bot]")), commit(3, Some("agent[bot]"))];
        // c2 has no CI of its own: pushed with c3.
        let got = cycle(&commits, &[("c0", "failure", Some("test|a")), ("c1", "success", None), ("c3", "success", None)], 2);
        assert_eq!(got, (Some(1), FixResult::Accepted));
    }

    #[test]
    fn stuck_exhausted_unresolved_and_unknown() {
        let agent = |k| commit(k, Some("agent[bot]"));
        let red = |sha: &'static str, sig: &'static str| (sha, "failure", Some(sig));
        assert_eq!(cycle(&[agent(0), agent(1)], &[red("c0", "a"), red("c1", "a")], 2), (Some(1), FixResult::Stuck));
        assert_eq!(cycle(&[agent(0), agent(1), agent(2)], &[red("c0", "a"), red("c1", "b"), red("c2", "c")], 2), (Some(2), FixResult::Exhausted));
        assert_eq!(cycle(&[agent(0)], &[red("c0", "a")], 2), (Some(0), FixResult::RedUnresolved));
        assert_eq!(cycle(&[agent(0), commit(1, None)], &[red("c0", "a")], 2), (None, FixResult::PusherUnknown));
        assert_eq!(cycle(&[agent(0), agent(1)], &[red("c0", "a")], 2), (Some(1), FixResult::CiMissing));
        assert_eq!(cycle(&[agent(0)], &[("c0", "pending", None)], 2), (Some(0), FixResult::CiPending));
        // A limit of 0: the first red is exhausted.
        assert_eq!(cycle(&[agent(0), agent(1)], &[red("c0", "a"), ("c1", "success", None)], 0), (Some(0), FixResult::Exhausted));
    }
}
