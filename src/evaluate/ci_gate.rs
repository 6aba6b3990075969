//! Seed 002's CI gate, replayed offline: for each pull request an agent output opened
//! (`create_pull_request`) or pushed to (`push_to_pull_request_branch`), the pushed head
//! commits in order, the CI state of each (see [`crate::snapshot::ci`]), and what a seed 002
//! loop would have decided at each step:
//!
//! - CI `success` on the pushed commit: **accepted** (after `fix_attempts` fixes);
//! - `failure`: a fix attempt, the next pushed commit; but if its failure signature equals
//!   the previous attempt's, **stuck** (`stuck in CI fix loop: <signature>`), and if the 5th
//!   fix is still red, **ci-fix-exhausted** (`ci-fix-exhausted: <signature>`);
//! - more than 60 minutes from the first push to a commit's CI verdict (CI waits included):
//!   **ci-timeout**;
//! - no capture of a commit's CI: **ci_missing** (unknown, never success); still running at
//!   capture: **ci_pending**; red with no later push captured: **red_unresolved**.
//!
//! Where the loop's own verdict was captured (autoloop's state file, [`autoloop`]), it is
//! compared: `accepted_while_ci_red` marks an iteration the loop accepted at a commit whose
//! CI is red.
//!
//! Push order is the PR's commit list order (`pulls/N/commits`), with the timeline's
//! force-pushed heads added at their time; a push to a PR starts at the commit it recorded.

use crate::runs::SafeOutput;
use crate::snapshot::ci::{self, CiState};
use crate::snapshot::SnapshotIndex;
use crate::table::{self, Kind};
use crate::time::Instant;
use arrow::record_batch::RecordBatch;

/// Fix attempts per iteration (seed 002).
pub const FIX_BUDGET: usize = 5;
/// Minutes per iteration, CI waits included (seed 002).
pub const WALL_CLOCK_MINUTES: i64 = 60;

/// How a replayed iteration ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum GateOutcome {
    Accepted,
    CiFixExhausted,
    Stuck,
    CiTimeout,
    CiMissing,
    CiPending,
    RedUnresolved,
    /// The PR or its commits were not captured.
    NoCommits,
}

impl GateOutcome {
    pub fn as_str(&self) -> &'static str {
        match self {
            GateOutcome::Accepted => "accepted",
            GateOutcome::CiFixExhausted => "ci-fix-exhausted",
            GateOutcome::Stuck => "stuck",
            GateOutcome::CiTimeout => "ci-timeout",
            GateOutcome::CiMissing => "ci_missing",
            GateOutcome::CiPending => "ci_pending",
            GateOutcome::RedUnresolved => "red_unresolved",
            GateOutcome::NoCommits => "no_commits",
        }
    }
}

/// One pushed commit.
#[derive(Clone, Debug)]
pub struct Step {
    pub sha: String,
    pub pushed_at: Option<Instant>,
    pub ci: CiState,
    pub ci_finished_at: Option<Instant>,
    pub signature: Option<String>,
    /// What the loop decided at this step.
    pub decision: String,
}

/// A replayed iteration.
#[derive(Clone, Debug)]
pub struct Replay {
    pub safe_output_id: String,
    pub repo: String,
    pub pull_number: i64,
    pub steps: Vec<Step>,
    pub outcome: GateOutcome,
    /// Seed 002's `pause_reason`, when the loop would pause.
    pub pause_reason: Option<String>,
    pub fix_attempts: usize,
    pub accepted_sha: Option<String>,
    /// The loop's state file this iteration was compared with, if one was captured.
    pub loop_state: Option<String>,
    pub loop_pause_reason: Option<String>,
    /// The loop marked a commit of this PR accepted while its CI was red.
    pub accepted_while_ci_red: bool,
}

/// The commits pushed to PR `n`, in push order: (sha, time).
fn pushes(index: &SnapshotIndex, repo: &str, n: i64) -> Vec<(String, Option<Instant>)> {
    let mut out: Vec<(String, Option<Instant>)> = Vec::new();
    if let Some(e) = index.get(&format!("repos/{repo}/pulls/{n}/commits")).filter(|e| e.ok()) {
        for c in e.commits() {
            if let Some(sha) = c.sha.clone() {
                out.push((sha, c.committed_at.or(c.authored_at)));
            }
        }
    }
    if let Some(e) = index.get(&format!("repos/{repo}/issues/{n}/timeline")).filter(|e| e.ok()) {
        for ev in e.events() {
            let forced = ev.event.as_deref() == Some("head_ref_force_pushed");
            if let (true, Some(sha)) = (forced, ev.commit_id.clone()) {
                if !out.iter().any(|(s, _)| *s == sha) {
                    out.push((sha, ev.created_at));
                }
            }
        }
    }
    // Stable: commits without a time keep their list place.
    let mut indexed: Vec<(usize, (String, Option<Instant>))> = out.into_iter().enumerate().collect();
    indexed.sort_by(|a, b| match (a.1 .1, b.1 .1) {
        (Some(x), Some(y)) => x.cmp(&y).then(a.0.cmp(&b.0)),
        _ => a.0.cmp(&b.0),
    });
    indexed.into_iter().map(|(_, p)| p).collect()
}

/// A commit's checks, or `None` when neither list was captured.
fn checks(index: &SnapshotIndex, repo: &str, sha: &str) -> Option<Vec<ci::Check>> {
    let runs = index.get(&format!("repos/{repo}/commits/{sha}/check-runs")).filter(|e| e.ok());
    let status = index.get(&format!("repos/{repo}/commits/{sha}/status")).filter(|e| e.ok());
    if runs.is_none() && status.is_none() {
        return None;
    }
    let mut out = runs.map(|e| ci::check_runs(e.body())).unwrap_or_default();
    out.extend(status.map(|e| ci::statuses(e.body())).unwrap_or_default());
    Some(out)
}

/// The replay of output `o`'s iteration, for the types that push code to a PR.
pub fn replay(index: &SnapshotIndex, o: &SafeOutput) -> Option<Replay> {
    if !matches!(o.output_type.as_ref(), "create_pull_request" | "push_to_pull_request_branch") || o.execution != crate::runs::Execution::Executed {
        return None;
    }
    let (repo, n) = (o.target_repo.as_deref()?.to_string(), o.target_number?);
    let mut all = pushes(index, &repo, n);
    // A push starts at the commit it recorded.
    let expected = o.expected();
    let first = expected
        .get("commit_sha")
        .and_then(|v| v.as_str())
        .map(str::to_string)
        .or_else(|| expected.get("commit_shas").and_then(crate::json::names).and_then(|v| v.first().cloned()));
    if o.output_type == "push_to_pull_request_branch" {
        if let Some(f) = &first {
            if let Some(i) = all.iter().position(|(s, _)| s.starts_with(f.as_str()) || f.starts_with(s.as_str())) {
                all.drain(..i);
            }
        }
    }
    let mut r = Replay {
        safe_output_id: o.safe_output_id.to_string(),
        repo,
        pull_number: n,
        steps: Vec::new(),
        outcome: GateOutcome::NoCommits,
        pause_reason: None,
        fix_attempts: 0,
        accepted_sha: None,
        loop_state: None,
        loop_pause_reason: None,
        accepted_while_ci_red: false,
    };
    let t0 = o.created_at.or_else(|| all.first().and_then(|p| p.1));
    let mut prev: Option<String> = None;
    for (k, (sha, pushed_at)) in all.into_iter().enumerate() {
        let found = checks(index, &r.repo, &sha);
        let (state, finished, signature) = match &found {
            None => (CiState::Missing, None, None),
            Some(c) => (ci::reduce(c), ci::finished_at(c), ci::signature(c)),
        };
        let mut step = Step { sha: sha.clone(), pushed_at, ci: state, ci_finished_at: finished, signature: signature.clone(), decision: String::new() };
        r.fix_attempts = k;
        let verdict_at = finished.or(pushed_at);
        let over = matches!((t0, verdict_at), (Some(a), Some(b)) if (b - a).num_minutes() > WALL_CLOCK_MINUTES);
        let (outcome, reason): (Option<GateOutcome>, Option<String>) = match state {
            CiState::Missing => (Some(GateOutcome::CiMissing), None),
            CiState::Pending => (Some(GateOutcome::CiPending), None),
            _ if over => (Some(GateOutcome::CiTimeout), Some("ci-timeout".into())),
            CiState::Success => {
                r.accepted_sha = Some(sha.clone());
                (Some(GateOutcome::Accepted), None)
            }
            CiState::Failure => {
                let sig = signature.clone().unwrap_or_else(|| "-".into());
                if k > 0 && prev.as_deref() == Some(sig.as_str()) {
                    (Some(GateOutcome::Stuck), Some(format!("stuck in CI fix loop: {sig}")))
                } else if k == FIX_BUDGET {
                    (Some(GateOutcome::CiFixExhausted), Some(format!("ci-fix-exhausted: {sig}")))
                } else {
                    prev = Some(sig);
                    (None, None)
                }
            }
        };
        step.decision = match outcome {
            None => format!("fix attempt {}", k + 1),
            Some(o) => o.as_str().to_string(),
        };
        r.steps.push(step);
        if let Some(o) = outcome {
            r.outcome = o;
            r.pause_reason = reason;
            return Some(r);
        }
    }
    if !r.steps.is_empty() {
        r.outcome = GateOutcome::RedUnresolved;
    }
    Some(r)
}

/// The `ci_gate` table's columns: one row per replayed iteration.
const GATE_COLUMNS: [(&str, Kind); 14] = [
    ("safe_output_id", Kind::Str),
    ("repo", Kind::Str),
    ("pull_number", Kind::Int),
    ("pushes", Kind::Int),
    ("fix_attempts", Kind::Int),
    ("gate_outcome", Kind::Str),
    ("pause_reason", Kind::Str),
    ("first_push_ci", Kind::Str),
    ("accepted_sha", Kind::Str),
    ("final_signature", Kind::Str),
    ("paused", Kind::Bool),
    ("loop_state", Kind::Str),
    ("loop_pause_reason", Kind::Str),
    ("accepted_while_ci_red", Kind::Bool),
];

/// The `ci_gate_steps` table's columns: one row per push.
const STEP_COLUMNS: [(&str, Kind); 8] = [
    ("safe_output_id", Kind::Str),
    ("step", Kind::Int),
    ("sha", Kind::Str),
    ("pushed_at", Kind::Time),
    ("ci_state", Kind::Str),
    ("ci_finished_at", Kind::Time),
    ("failure_signature", Kind::Str),
    ("decision", Kind::Str),
];

/// The `ci_gate` table (one row per replayed iteration, by `safe_output_id`) and
/// `ci_gate_steps` (one per push, by `safe_output_id` and `step`), built column by column
/// from the replays: a study replays a third of its outputs, and a cell per value cost more
/// than encoding them (BENCHMARKS.md, fifteenth step). Sorts are stable, as `Table`'s were.
pub fn tables(replays: &[Replay]) -> Result<Vec<(&'static str, RecordBatch)>, arrow::error::ArrowError> {
    let mut gate: Vec<&Replay> = replays.iter().collect();
    gate.sort_by(|a, b| a.safe_output_id.cmp(&b.safe_output_id));
    let mut steps: Vec<(&Replay, usize, &Step)> = replays.iter().flat_map(|r| r.steps.iter().enumerate().map(move |(k, st)| (r, k, st))).collect();
    steps.sort_by(|a, b| (a.0.safe_output_id.as_str(), a.1).cmp(&(b.0.safe_output_id.as_str(), b.1)));
    let g = &gate;
    let gate = RecordBatch::try_new(
        table::arrow_schema(&GATE_COLUMNS),
        vec![
            table::str_column(g.iter().map(|r| Some(r.safe_output_id.as_str()))),
            table::str_column(g.iter().map(|r| Some(r.repo.as_str()))),
            table::int_column(g.iter().map(|r| Some(r.pull_number))),
            table::int_column(g.iter().map(|r| Some(r.steps.len() as i64))),
            table::int_column(g.iter().map(|r| Some(r.fix_attempts as i64))),
            table::str_column(g.iter().map(|r| Some(r.outcome.as_str()))),
            table::str_column(g.iter().map(|r| r.pause_reason.as_deref())),
            table::str_column(g.iter().map(|r| r.steps.first().map(|s| s.ci.as_str()))),
            table::str_column(g.iter().map(|r| r.accepted_sha.as_deref())),
            table::str_column(g.iter().map(|r| r.steps.last().and_then(|s| s.signature.as_deref()))),
            table::bool_column(g.iter().map(|r| Some(r.pause_reason.is_some()))),
            table::str_column(g.iter().map(|r| r.loop_state.as_deref())),
            table::str_column(g.iter().map(|r| r.loop_pause_reason.as_deref())),
            table::bool_column(g.iter().map(|r| Some(r.accepted_while_ci_red))),
        ],
    )?;
    let s = &steps;
    let steps = RecordBatch::try_new(
        table::arrow_schema(&STEP_COLUMNS),
        vec![
            table::str_column(s.iter().map(|(r, _, _)| Some(r.safe_output_id.as_str()))),
            table::int_column(s.iter().map(|(_, k, _)| Some(*k as i64))),
            table::str_column(s.iter().map(|(_, _, st)| Some(st.sha.as_str()))),
            table::time_column(s.iter().map(|(_, _, st)| st.pushed_at)),
            table::str_column(s.iter().map(|(_, _, st)| Some(st.ci.as_str()))),
            table::time_column(s.iter().map(|(_, _, st)| st.ci_finished_at)),
            table::str_column(s.iter().map(|(_, _, st)| st.signature.as_deref())),
            table::str_column(s.iter().map(|(_, _, st)| Some(st.decision.as_str()))),
        ],
    )?;
    Ok(vec![("ci_gate", gate), ("ci_gate_steps", steps)])
}

/// What the loop itself recorded (autoloop's state file: see [`autoloop`]).
#[derive(Clone, Debug, Default)]
pub struct LoopVerdict {
    /// The capture the state came from.
    pub path: String,
    /// Commits the loop marked accepted (short SHAs as written).
    pub accepted_commits: Vec<String>,
    pub pause_reason: Option<String>,
}

/// Autoloop's state file (githubnext/autoloop: one `{program}.md` per program on the
/// `memory/autoloop` branch, captured through the contents API as
/// `repos/O/R/contents/{program}.md`): the `## ⚙️ Machine State` table (`PR`, `Paused`,
/// `Pause Reason`, `Recent Statuses`, ...; parsed by key, `—`/`-`/`--` empty) and the
/// `## 📊 Iteration History` entries (`### Iteration N — ...`, `**Status**: ✅ Accepted`,
/// `**Commit**: <short sha>`).
pub mod autoloop {
    use serde_json::Value;
    use std::collections::BTreeMap;

    #[derive(Clone, Debug, Default, PartialEq)]
    pub struct State {
        pub fields: BTreeMap<String, String>,
        /// (iteration number, status word, commit) of each history entry.
        pub iterations: Vec<(Option<i64>, String, Option<String>)>,
    }

    impl State {
        pub fn pr(&self) -> Option<i64> {
            let v = self.fields.get("pr")?;
            let digits: String = v.trim_start_matches(|c: char| !c.is_ascii_digit()).chars().take_while(char::is_ascii_digit).collect();
            digits.parse().ok()
        }
        pub fn pause_reason(&self) -> Option<String> {
            self.fields.get("pause_reason").cloned()
        }
    }

    /// The decoded text of a contents-API body (`content` in base64, lines broken).
    pub fn contents_text(body: &Value) -> Option<String> {
        if body.get("encoding").and_then(Value::as_str) != Some("base64") {
            return None;
        }
        let b64: String = body.get("content")?.as_str()?.chars().filter(|c| !c.is_whitespace()).collect();
        String::from_utf8(decode_base64(&b64)?).ok()
    }

    /// Standard base64 (RFC 4648, with padding), as GitHub's contents API writes it.
    fn decode_base64(s: &str) -> Option<Vec<u8>> {
        let val = |c: u8| -> Option<u32> {
            Some(match c {
                b'A'..=b'Z' => c - b'A',
                b'a'..=b'z' => c - b'a' + 26,
                b'0'..=b'9' => c - b'0' + 52,
                b'+' => 62,
                b'/' => 63,
                _ => return None,
            } as u32)
        };
        let bytes = s.trim_end_matches('=').as_bytes();
        let mut out = Vec::with_capacity(bytes.len() * 3 / 4);
        for chunk in bytes.chunks(4) {
            let mut n = 0u32;
            for (i, &c) in chunk.iter().enumerate() {
                n |= val(c)? << (18 - 6 * i);
            }
            let k = chunk.len();
            if k == 1 {
                return None;
            }
            out.push((n >> 16) as u8);
            if k > 2 {
                out.push((n >> 8) as u8);
            }
            if k > 3 {
                out.push(n as u8);
            }
        }
        Some(out)
    }

    fn empty(v: &str) -> bool {
        matches!(v.trim(), "" | "—" | "-" | "--" | "–")
    }

    /// Parse a state file; `None` when it has no Machine State table.
    pub fn parse(text: &str) -> Option<State> {
        let mut state = State::default();
        let mut section = "";
        let mut found = false;
        let mut current: Option<(Option<i64>, String, Option<String>)> = None;
        for line in text.lines() {
            let l = line.trim();
            if let Some(h) = l.strip_prefix("## ") {
                section = if h.contains("Machine State") {
                    found = true;
                    "state"
                } else if h.contains("Iteration History") {
                    "history"
                } else {
                    ""
                };
                continue;
            }
            match section {
                "state" if l.starts_with('|') => {
                    let cells: Vec<&str> = l.trim_matches('|').split('|').map(str::trim).collect();
                    if cells.len() >= 2 && !cells[0].eq_ignore_ascii_case("field") && !cells[0].starts_with("---") {
                        let key = cells[0].to_lowercase().replace(' ', "_");
                        let value = cells[1].trim_matches('`').to_string();
                        if !empty(&value) {
                            state.fields.insert(key, value);
                        }
                    }
                }
                "history" => {
                    if let Some(h) = l.strip_prefix("### Iteration") {
                        if let Some(c) = current.take() {
                            state.iterations.push(c);
                        }
                        let n = h.trim().split(|c: char| !c.is_ascii_digit()).next().and_then(|d| d.parse().ok());
                        current = Some((n, String::new(), None));
                    } else if let Some(c) = current.as_mut() {
                        if let Some(i) = l.find("**Status**:") {
                            let rest = &l[i + "**Status**:".len()..];
                            c.1 = rest
                                .split_whitespace()
                                .map(|w| w.trim_matches(|ch: char| !ch.is_alphanumeric() && ch != '-').to_lowercase())
                                .find(|w| !w.is_empty())
                                .unwrap_or_default();
                        }
                        if let Some(i) = l.find("**Commit**:") {
                            let rest = &l[i + "**Commit**:".len()..];
                            c.2 = rest.split(|ch: char| !ch.is_ascii_hexdigit()).find(|w| w.len() >= 7).map(str::to_lowercase);
                        }
                    }
                }
                _ => {}
            }
        }
        if let Some(c) = current.take() {
            state.iterations.push(c);
        }
        found.then_some(state)
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn machine_state_and_history() {
            let md = "# perf\n\n## ⚙️ Machine State\n\n| Field | Value |\n|-------|-------|\n| Iteration Count | 126 |\n| PR | #42 |\n| Paused | false |\n| Pause Reason | — |\n| Recent Statuses | error, accepted |\n\n---\n\n## 📊 Iteration History\n\n### Iteration 125 — 2026-04-16 10:32 UTC — [Run](https://github.com/o/r/actions/runs/1)\n\n- **Status**: ✅ Accepted\n- **Metric**: 352 (previous best: 345, delta: +7) | **Commit**: 89e8b20\n\n### Iteration 124 — 2026-04-16 09:00 UTC\n\n- **Status**: ❌ Rejected\n";
            let s = parse(md).unwrap();
            assert_eq!(s.pr(), Some(42));
            assert_eq!(s.pause_reason(), None);
            assert_eq!(s.fields["recent_statuses"], "error, accepted");
            assert_eq!(s.iterations, vec![(Some(125), "accepted".into(), Some("89e8b20".into())), (Some(124), "rejected".into(), None)]);
            assert!(parse("# no state\n").is_none());
            let demo = "# perf\n\n## ⚙️ Machine State\n\n| Field | Value |\n|-------|-------|\n| PR | #135 |\n\n## 📊 Iteration History\n\n### Iteration 6 — 2026-02-09T15:00:00Z — [Run](https://github.com/acme/webapp/actions/runs/9009)\n\n- **Status**: ✅ Accepted\n- **Metric**: 352 (previous best: 345, delta: +7) | **Commit**: 3500000\n";
            assert_eq!(parse(demo).unwrap().iterations, vec![(Some(6), "accepted".into(), Some("3500000".into()))]);
            let body = serde_json::json!({"encoding": "base64", "content": "aGVs\nbG8="});
            assert_eq!(contents_text(&body).as_deref(), Some("hello"));
        }
    }
}

/// The loop's own verdicts found in the repository's captures, by PR number.
pub fn loop_states(index: &SnapshotIndex, repo: &str) -> Vec<(i64, LoopVerdict)> {
    let prefix = format!("repos/{repo}/contents/");
    let mut paths: Vec<&String> = index.entries.keys().filter(|p| p.starts_with(&prefix) && p.ends_with(".md")).collect();
    paths.sort();
    let mut out = Vec::new();
    for p in paths {
        let Some(e) = index.get(p).filter(|e| e.ok()) else { continue };
        let Some(state) = autoloop::contents_text(e.body()).and_then(|t| autoloop::parse(&t)) else { continue };
        let Some(pr) = state.pr() else { continue };
        let accepted = state.iterations.iter().filter(|(_, s, _)| s == "accepted").filter_map(|(_, _, c)| c.clone()).collect();
        out.push((pr, LoopVerdict { path: p.clone(), accepted_commits: accepted, pause_reason: state.pause_reason() }));
    }
    out
}

/// A loop verdict beside the replay: did the loop accept a commit whose CI was red?
pub fn compare(r: &mut Replay, v: &LoopVerdict) {
    r.loop_state = Some(v.path.clone());
    r.loop_pause_reason = v.pause_reason.clone();
    r.accepted_while_ci_red =
        v.accepted_commits.iter().any(|c| r.steps.iter().any(|s| s.sha.to_lowercase().starts_with(c.as_str()) && s.ci == CiState::Failure));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::{b, i, os, s, t, Table};

    fn replay(id: &str, pr: i64, steps: &[(&str, CiState, Option<&str>)], pause: Option<&str>) -> Replay {
        let at = crate::time::parse("2026-04-01T10:00:00Z");
        Replay {
            safe_output_id: id.into(),
            repo: "o/r".into(),
            pull_number: pr,
            steps: steps
                .iter()
                .map(|(sha, ci, sig)| Step {
                    sha: sha.to_string(),
                    pushed_at: at,
                    ci: *ci,
                    ci_finished_at: None,
                    signature: sig.map(str::to_string),
                    decision: format!("after {sha}"),
                })
                .collect(),
            outcome: if pause.is_some() { GateOutcome::CiFixExhausted } else { GateOutcome::Accepted },
            pause_reason: pause.map(str::to_string),
            fix_attempts: steps.len().saturating_sub(1),
            accepted_sha: pause.is_none().then(|| steps.last().map(|s| s.0.to_string())).flatten(),
            loop_state: (pr == 2).then(|| "repos/o/r/contents/perf.md".to_string()),
            loop_pause_reason: None,
            accepted_while_ci_red: pr == 2,
        }
    }

    /// The tables as a `Table` of the same rows made them (every value a cell, a stable sort
    /// by column): the definition the column-by-column build must keep, byte for byte.
    fn as_cells(replays: &[Replay]) -> Vec<RecordBatch> {
        let mut gate = Table::new("ci_gate", &GATE_COLUMNS);
        let mut steps = Table::new("ci_gate_steps", &STEP_COLUMNS);
        for r in replays {
            gate.push(vec![
                s(&r.safe_output_id),
                s(&r.repo),
                i(r.pull_number),
                i(r.steps.len() as i64),
                i(r.fix_attempts as i64),
                s(r.outcome.as_str()),
                os(r.pause_reason.as_ref()),
                os(r.steps.first().map(|s| s.ci.as_str())),
                os(r.accepted_sha.as_ref()),
                os(r.steps.last().and_then(|s| s.signature.as_ref())),
                b(r.pause_reason.is_some()),
                os(r.loop_state.as_ref()),
                os(r.loop_pause_reason.as_ref()),
                b(r.accepted_while_ci_red),
            ]);
            for (k, st) in r.steps.iter().enumerate() {
                steps.push(vec![
                    s(&r.safe_output_id),
                    i(k as i64),
                    s(&st.sha),
                    t(st.pushed_at),
                    s(st.ci.as_str()),
                    t(st.ci_finished_at),
                    os(st.signature.as_ref()),
                    s(&st.decision),
                ]);
            }
        }
        gate.sort_by_columns(&["safe_output_id"]);
        steps.sort_by_columns(&["safe_output_id", "step"]);
        vec![gate.to_batch().unwrap(), steps.to_batch().unwrap()]
    }

    /// Replays out of order, one id twice (its replays keep their order, and their steps
    /// interleave by step as a sort by id and step puts them), nulls and steps of every kind:
    /// the same batches, names and schemas as the cells gave.
    #[test]
    fn tables_built_by_column_are_the_tables_cells_made() {
        let replays = vec![
            replay("o9", 9, &[("aaa1111", CiState::Failure, Some("E1")), ("bbb2222", CiState::Failure, Some("E1"))], Some("same failure twice")),
            replay("o2", 2, &[("ccc3333", CiState::Success, None)], None),
            replay("o5", 5, &[], None),
            replay("o2", 3, &[("ddd4444", CiState::Pending, None), ("eee5555", CiState::Success, None)], None),
            replay("o1", 1, &[("fff6666", CiState::Missing, None)], Some("ci missing")),
        ];
        let built = tables(&replays).unwrap();
        assert_eq!(built.iter().map(|(n, _)| *n).collect::<Vec<_>>(), ["ci_gate", "ci_gate_steps"]);
        let built: Vec<RecordBatch> = built.into_iter().map(|(_, b)| b).collect();
        assert_eq!(built, as_cells(&replays));
        let ids = built[1].column(0).as_any().downcast_ref::<arrow::array::StringArray>().unwrap();
        assert_eq!(ids.iter().flatten().collect::<Vec<_>>(), ["o1", "o2", "o2", "o2", "o9", "o9"]);
    }
}
