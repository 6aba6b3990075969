//! The CI gate replay (docs/SPEC.md [SPEC-CIGATE], CI-gated acceptance for autoloop),
//! offline.
//!
//! ## What an iteration is
//! CI-gated acceptance changes autoloop's Step 5: an iteration pushes its program's change
//! to the long-running branch `autoloop/{program}`, waits for CI on the pushed head, fixes
//! and pushes again while CI is red, and accepts only on green. So an iteration is **one
//! program push to `autoloop/{program}` by the loop, with the loop's own fix pushes after
//! it**, and nothing else:
//!
//! - an output that opened or pushed to a PR whose head branch is not `autoloop/{program}`
//!   is `not_an_iteration`; when neither the PR capture (`pulls/N`, `head.ref`) nor the
//!   output (`branch`) says the branch, `branch_unknown`;
//! - on `autoloop/{program}`, the output must be the loop's (see *The loop's identity*);
//!   pushed by a workflow other than the loop it is `not_an_iteration`, and with nothing to
//!   tell, `loop_unknown`;
//! - the program push is the commit the output recorded (the last of them in the PR's order),
//!   else the first commit whose message links the output's run, else, for a PR the output
//!   opened, the last commit dated at or before the PR's creation; else `push_unknown`;
//! - after it, in push order (the PR's commit list, with force-pushed heads from the
//!   timeline), each commit is the loop's fix of *this* iteration (a fix attempt), the loop's
//!   *next* iteration (the replay ends there: it is no fix attempt), someone else's (a person
//!   or another automation: never a fix attempt, skipped and counted in `other_commits`), or
//!   unknown: then the gate's decision is unknown too (`pusher_unknown`), since it may have
//!   been a fix.
//!
//! ## The loop's identity, from the data
//! 1. Outputs: a commit an output recorded is that output's workflow's push, of that
//!    output's run. The loop's workflows for a program are those whose push carries the
//!    loop's commit mark (below), or whose run the program's state file names in its
//!    Iteration History; one with such evidence makes any other workflow pushing to the
//!    branch (a PR-health keeper such as Evergreen) not the loop.
//! 2. Autoloop's commit convention (githubnext/autoloop's workflow, Step 5a): subject
//!    `[Autoloop: {program}] Iteration <N>: ...`, body `Run: {run_url}`. A commit linking the
//!    iteration's run is this iteration's; linking another of the loop's runs, or marked for
//!    the program with another iteration number, the next iteration's.
//! 3. Otherwise the commit's author: a person (a visible non-bot login) is not the loop; an
//!    automation login other than the loop's own is not the loop; the loop's own login (gh-aw
//!    workflows often all commit as `github-actions[bot]`), or no login, cannot be told
//!    apart: unknown.
//!
//! ## The gate at each of the loop's pushes
//! - CI `success`: **accepted** (after `fix_attempts` fixes);
//! - `failure`: a fix attempt follows; but the same failure signature as the previous
//!   attempt is **stuck** (`stuck in CI fix loop: <signature>`), and the 5th fix still red is
//!   **ci-fix-exhausted** (`ci-fix-exhausted: <signature>`);
//! - the 60-minute clock starts when the iteration began: the start of the run that pushed
//!   (its `aw_info.json` `created_at`, written as the run's agent job starts), else, when the
//!   run's start was not recorded, the program push (its commit's date; a force-pushed
//!   head's timeline time). It covers CI waits: a push or a CI verdict more than 60 minutes
//!   after it is **ci-timeout**; with the start's time or the verdict's time not captured,
//!   `clock_unknown`;
//! - no capture of a push's CI: `ci_missing` (never success); still running: `ci_pending`;
//!   red with no fix by the loop captured: `red_unresolved`; the PR's commits not captured:
//!   `no_commits`.
//!
//! ## The loop's own record
//! Autoloop's state file (`{program}.md` on `memory/autoloop`, see [`autoloop`]) is compared
//! with the replay: each Iteration History entry linked to a replayed iteration (by its
//! commit, else by its run when only one iteration has it) gives `loop_status`, compared with
//! the gate's status for it (`loop_check`); and the state file's current `Paused`, `Pause
//! Reason` and last `Recent Statuses` entry are compared with the gate's conclusion for the
//! iteration its newest history entry describes ([`LoopStateRow`], table
//! `ci_gate_loop_state`). The gate records `accepted` with `paused: false`, or
//! `ci-fix-exhausted` (the coarse status of all three pauses) with `paused: true` and its
//! pause reason.

use std::collections::{BTreeMap, BTreeSet};

use arrow::record_batch::RecordBatch;
use rayon::prelude::*;

use crate::evaluate::actors;
use crate::runs::SafeOutput;
use crate::snapshot::ci::{CiState, CommitCi};
use crate::snapshot::github::Actor;
use crate::snapshot::sha::{same_commit, MIN_ABBREV};
use crate::snapshot::SnapshotIndex;
use crate::table::{self, Kind};
use crate::time::Instant;

/// Fix attempts per iteration ([SPEC-CIGATE-FIX]).
pub(crate) const FIX_BUDGET: usize = 5;
/// Minutes per iteration from the program push, CI waits included ([SPEC-CIGATE-FIX]).
pub(crate) const WALL_CLOCK_MINUTES: i64 = 60;
/// Autoloop's long-running branches: `autoloop/{program}`.
pub(crate) const BRANCH_PREFIX: &str = "autoloop/";

/// How a replayed output ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
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
    /// The output's program push cannot be found among the PR's commits.
    PushUnknown,
    /// A commit after a red push whose pusher cannot be told: it may have been a fix.
    PusherUnknown,
    /// A push's or a CI verdict's time was not captured: the 60-minute cap cannot be checked.
    ClockUnknown,
    /// Not a push to `autoloop/{program}` by the loop.
    NotAnIteration,
    /// The PR's head branch is not known.
    BranchUnknown,
    /// On `autoloop/{program}`, but nothing shows the pushing workflow is the loop.
    LoopUnknown,
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
            GateOutcome::PushUnknown => "push_unknown",
            GateOutcome::PusherUnknown => "pusher_unknown",
            GateOutcome::ClockUnknown => "clock_unknown",
            GateOutcome::NotAnIteration => "not_an_iteration",
            GateOutcome::BranchUnknown => "branch_unknown",
            GateOutcome::LoopUnknown => "loop_unknown",
        }
    }

    /// Whether the gate pauses the loop here.
    pub(crate) fn pauses(&self) -> bool {
        matches!(self, GateOutcome::CiFixExhausted | GateOutcome::Stuck | GateOutcome::CiTimeout)
    }

    /// What the gate appends to `recent_statuses` for the iteration, when it decided:
    /// `accepted`, or `ci-fix-exhausted` for any of its pauses.
    pub(crate) fn gate_status(&self) -> Option<&'static str> {
        match self {
            GateOutcome::Accepted => Some("accepted"),
            o if o.pauses() => Some("ci-fix-exhausted"),
            _ => None,
        }
    }
}

/// Who pushed a commit of an iteration.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Pusher {
    /// The loop, in this iteration.
    Loop,
    /// The loop's next iteration: where the replayed one ends.
    LoopNextIteration,
    Person,
    /// Another workflow, bot or app.
    OtherAutomation,
    Unknown,
}

impl Pusher {
    pub fn as_str(&self) -> &'static str {
        match self {
            Pusher::Loop => "loop",
            Pusher::LoopNextIteration => "loop_next_iteration",
            Pusher::Person => "person",
            Pusher::OtherAutomation => "other_automation",
            Pusher::Unknown => "unknown",
        }
    }
}

/// The loop's record beside the replay.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Check {
    Agrees,
    Disagrees,
    Unknown,
}

impl Check {
    pub fn as_str(&self) -> &'static str {
        match self {
            Check::Agrees => "agrees",
            Check::Disagrees => "disagrees",
            Check::Unknown => "unknown",
        }
    }

    /// Several comparisons as one: any disagreement disagrees; all agreeing agrees.
    fn all(checks: &[Check]) -> Check {
        if checks.contains(&Check::Disagrees) {
            Check::Disagrees
        } else if !checks.is_empty() && checks.iter().all(|c| *c == Check::Agrees) {
            Check::Agrees
        } else {
            Check::Unknown
        }
    }
}

/// One commit of an iteration, from the program push on.
#[derive(Clone, Debug)]
pub struct Step {
    pub sha: String,
    pub(crate) pushed_at: Option<Instant>,
    /// The commit's author (GitHub login), or a force push's actor.
    pub author: Option<String>,
    pub pusher: Pusher,
    pub ci: CiState,
    pub(crate) ci_finished_at: Option<Instant>,
    pub(crate) signature: Option<String>,
    /// What the loop decided at this step, or why the commit is no step of the loop.
    pub decision: String,
}

/// A replayed output.
#[derive(Clone, Debug)]
pub struct Replay {
    pub safe_output_id: String,
    pub run_id: String,
    pub(crate) repo: String,
    pub(crate) pull_number: i64,
    pub(crate) branch: Option<String>,
    /// `{program}` of `autoloop/{program}`.
    pub program: Option<String>,
    /// Whether the output is an iteration; `None` when that is unknown.
    pub iteration: Option<bool>,
    pub steps: Vec<Step>,
    pub outcome: GateOutcome,
    /// The loop's `pause_reason` ([SPEC-CIGATE-FIX]), when it would pause.
    pub pause_reason: Option<String>,
    /// Why the outcome is what it is, when it is no decision of the gate.
    pub note: Option<String>,
    pub fix_attempts: usize,
    /// Commits by others between the loop's pushes: never fix attempts.
    pub other_commits: usize,
    pub accepted_sha: Option<String>,
    /// The state file of the iteration's program, when captured.
    pub(crate) loop_state: Option<String>,
    /// The status the loop recorded for this iteration (its Iteration History entry).
    pub loop_status: Option<String>,
    pub loop_check: Option<Check>,
    pub(crate) loop_check_detail: Option<String>,
    /// The loop marked a commit of this iteration accepted while its CI was red.
    pub accepted_while_ci_red: bool,
}

impl Replay {
    fn new(o: &SafeOutput, repo: &str, n: i64) -> Replay {
        Replay {
            safe_output_id: o.safe_output_id.to_string(),
            run_id: o.run_id.to_string(),
            repo: repo.to_string(),
            pull_number: n,
            branch: None,
            program: None,
            iteration: None,
            steps: Vec::new(),
            outcome: GateOutcome::NoCommits,
            pause_reason: None,
            note: None,
            fix_attempts: 0,
            other_commits: 0,
            accepted_sha: None,
            loop_state: None,
            loop_status: None,
            loop_check: None,
            loop_check_detail: None,
            accepted_while_ci_red: false,
        }
    }

    fn end(mut self, outcome: GateOutcome, note: impl Into<String>) -> Replay {
        self.outcome = outcome;
        self.note = Some(note.into());
        self
    }

    /// The loop's own pushes.
    pub(crate) fn pushes(&self) -> impl Iterator<Item = &Step> {
        self.steps.iter().filter(|s| s.pusher == Pusher::Loop)
    }
}

/// Autoloop's commit mark (githubnext/autoloop's workflow, Step 5a: subject `[Autoloop:
/// {program}] Iteration <N>: <description>`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Mark {
    pub(crate) program: String,
    pub(crate) iteration: Option<i64>,
}

/// The mark of a commit message's subject, if it has one.
pub(crate) fn mark(message: &str) -> Option<Mark> {
    let subject = message.lines().next()?.trim();
    let head = subject.get(..10)?;
    if !head.eq_ignore_ascii_case("[autoloop:") {
        return None;
    }
    let (program, after) = subject[10..].split_once(']')?;
    let program = program.trim();
    if program.is_empty() {
        return None;
    }
    let iteration = after.trim_start().strip_prefix("Iteration").and_then(|s| leading_number(s.trim_start()));
    Some(Mark { program: program.to_string(), iteration })
}

fn leading_number(s: &str) -> Option<i64> {
    let digits: String = s.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

/// The run a text links to: the digits after its first `/actions/runs/`.
pub(crate) fn run_link(text: &str) -> Option<String> {
    let i = text.find("/actions/runs/")?;
    let digits: String = text[i + "/actions/runs/".len()..].chars().take_while(char::is_ascii_digit).collect();
    (!digits.is_empty()).then_some(digits)
}

/// `{program}` of a branch `autoloop/{program}`.
pub(crate) fn program_of(branch: &str) -> Option<&str> {
    branch.strip_prefix(BRANCH_PREFIX).filter(|p| !p.is_empty())
}

/// A commit of a PR, in push order.
#[derive(Clone, Debug)]
struct PrCommit {
    sha: String,
    at: Option<Instant>,
    author: Actor,
    message: Option<String>,
}

/// PR `n`'s commits in push order (its commit list, with the timeline's force-pushed heads at
/// their time), or `None` when the commit list was not captured.
fn pr_commits(index: &SnapshotIndex, repo: &str, n: i64) -> Option<Vec<PrCommit>> {
    let list = index.get(&format!("repos/{repo}/pulls/{n}/commits")).filter(|e| e.ok())?;
    let mut out: Vec<PrCommit> = list
        .commits()
        .iter()
        .filter_map(|c| Some(PrCommit { sha: c.sha.clone()?, at: c.committed_at.or(c.authored_at), author: c.author.clone(), message: c.message.clone() }))
        .collect();
    if let Some(e) = index.get(&format!("repos/{repo}/issues/{n}/timeline")).filter(|e| e.ok()) {
        for ev in e.events() {
            let forced = ev.event.as_deref() == Some("head_ref_force_pushed");
            if let (true, Some(sha)) = (forced, ev.commit_id.clone()) {
                if !out.iter().any(|c| same_commit(&c.sha, &sha)) {
                    out.push(PrCommit { sha, at: ev.created_at, author: ev.actor.clone(), message: None });
                }
            }
        }
    }
    // Stable: commits without a time keep their list place.
    let mut indexed: Vec<(usize, PrCommit)> = out.into_iter().enumerate().collect();
    indexed.sort_by(|a, b| match (a.1.at, b.1.at) {
        (Some(x), Some(y)) => x.cmp(&y).then(a.0.cmp(&b.0)),
        _ => a.0.cmp(&b.0),
    });
    Some(indexed.into_iter().map(|(_, c)| c).collect())
}

/// An output that opened or pushed to a PR, located on its PR.
struct Located<'a> {
    o: &'a SafeOutput<'a>,
    n: i64,
    /// The SHAs the output recorded.
    recorded: Vec<String>,
    branch: Option<String>,
    commits: Option<Vec<PrCommit>>,
    /// The program push's place in `commits`, or why it cannot be found.
    head: Result<usize, String>,
}

impl Located<'_> {
    fn head_commit(&self) -> Option<&PrCommit> {
        self.commits.as_ref()?.get(*self.head.as_ref().ok()?)
    }
    fn head_mark(&self) -> Option<Mark> {
        self.head_commit().and_then(|c| c.message.as_deref()).and_then(mark)
    }
    fn workflow(&self) -> Option<&str> {
        self.o.workflow_name.as_deref()
    }
}

fn locate<'a>(index: &SnapshotIndex, repo: &str, o: &'a SafeOutput<'a>, n: i64) -> Located<'a> {
    let expected = o.expected();
    let recorded: Vec<String> = expected.get("commit_shas").and_then(crate::json::names).unwrap_or_default();
    let pull = index.get(&format!("repos/{repo}/pulls/{n}")).filter(|e| e.ok()).map(|e| e.pull());
    let branch = pull.and_then(|p| p.head_ref.clone()).or_else(|| expected.get("branch").and_then(|b| b.as_str()).map(str::to_string));
    let commits = pr_commits(index, repo, n);
    let head = match &commits {
        None => Err("the PR's commit list was not captured".to_string()),
        Some(cs) if cs.is_empty() => Err("the PR's commit list is empty".to_string()),
        Some(cs) => {
            let run = o.run_id.as_ref();
            if !recorded.is_empty() {
                // A push of several commits: CI runs on its head, the last of them.
                cs.iter()
                    .rposition(|c| recorded.iter().any(|r| same_commit(r, &c.sha)))
                    .ok_or_else(|| format!("the commit it recorded ({}) is not among the PR's captured commits", recorded.join(", ")))
            } else if let Some(i) = cs.iter().position(|c| c.message.as_deref().and_then(run_link).as_deref() == Some(run)) {
                Ok(i)
            } else if o.output_type == "create_pull_request" {
                let opened = pull.and_then(|p| p.created_at).or(o.created_at);
                match opened {
                    Some(t) => cs
                        .iter()
                        .rposition(|c| c.at.is_some_and(|at| at <= t))
                        .ok_or_else(|| "no commit of the PR is dated at or before its opening".to_string()),
                    None => Err("no commit was recorded, none links the run, and the PR's opening time is unknown".to_string()),
                }
            } else {
                Err(format!("the output recorded no commit and no commit message links run {run}"))
            }
        }
    };
    Located { o, n, recorded, branch, commits, head }
}

/// The loop of each program, as the data shows it.
#[derive(Default)]
struct Loops {
    /// Program -> the workflows shown to be its loop.
    workflows: BTreeMap<String, BTreeSet<String>>,
    /// Program -> runs shown to be its loop's.
    runs: BTreeMap<String, BTreeSet<String>>,
}

impl Loops {
    fn of(located: &[Located], states: &[LoopFile]) -> Loops {
        let mut loops = Loops::default();
        for s in states {
            let Some(p) = &s.program else { continue };
            loops.runs.entry(p.clone()).or_default().extend(s.state.entries.iter().filter_map(|e| e.run.clone()));
        }
        for l in located {
            let Some(p) = l.branch.as_deref().and_then(program_of) else { continue };
            let marked = l.head_mark().is_some_and(|m| m.program == p);
            let named = loops.runs.get(p).is_some_and(|r| r.contains(l.o.run_id.as_ref()));
            if marked || named {
                loops.runs.entry(p.to_string()).or_default().insert(l.o.run_id.to_string());
                if let Some(w) = l.workflow() {
                    loops.workflows.entry(p.to_string()).or_default().insert(w.to_string());
                }
            }
        }
        // Every run of a loop workflow that pushed to the program's branch is the loop's.
        for l in located {
            let Some(p) = l.branch.as_deref().and_then(program_of) else { continue };
            if l.workflow().is_some_and(|w| loops.workflows.get(p).is_some_and(|ws| ws.contains(w))) {
                loops.runs.entry(p.to_string()).or_default().insert(l.o.run_id.to_string());
            }
        }
        loops
    }
}

/// Whose a commit after the program push is.
enum Whose {
    This,
    Next(String),
    Other(Pusher, String),
    Unknown(String),
}

/// What an iteration's replay knows of the loop.
struct Context<'a> {
    run: &'a str,
    program: &'a str,
    /// The iteration number of the program push's mark.
    number: Option<i64>,
    loop_workflows: Option<&'a BTreeSet<String>>,
    loop_runs: Option<&'a BTreeSet<String>>,
    /// (sha, run, workflow) of every commit an output recorded on this PR.
    recorded: Vec<(&'a str, &'a str, Option<&'a str>)>,
    /// Logins the loop's known commits on this PR were authored as.
    loop_logins: BTreeSet<String>,
}

impl Context<'_> {
    fn is_loop_run(&self, run: &str) -> bool {
        self.loop_runs.is_some_and(|r| r.contains(run))
    }

    fn whose(&self, c: &PrCommit) -> Whose {
        // 1. An output recorded it.
        let by: Vec<&(&str, &str, Option<&str>)> = self.recorded.iter().filter(|(s, _, _)| same_commit(s, &c.sha)).collect();
        if by.iter().any(|(_, r, _)| *r == self.run) {
            return Whose::This;
        }
        if let Some((_, r, _)) = by.iter().find(|(_, r, w)| self.is_loop_run(r) || w.is_some_and(|w| self.loop_workflows.is_some_and(|ws| ws.contains(w)))) {
            return Whose::Next(format!("pushed by run {r} of the loop"));
        }
        if let Some((_, r, Some(w))) = by.first() {
            return Whose::Other(Pusher::OtherAutomation, format!("pushed by workflow {w} (run {r}), not the loop"));
        }
        // 2. Autoloop's commit convention.
        if let Some(msg) = c.message.as_deref() {
            let linked = run_link(msg);
            if linked.as_deref() == Some(self.run) {
                return Whose::This;
            }
            if let Some(r) = linked.as_deref().filter(|r| self.is_loop_run(r)) {
                return Whose::Next(format!("its message links run {r} of the loop"));
            }
            if let Some(m) = mark(msg) {
                if m.program != self.program {
                    return Whose::Other(Pusher::OtherAutomation, format!("marked for another program ([Autoloop: {}])", m.program));
                }
                if let Some(r) = linked {
                    return Whose::Next(format!("marked [Autoloop: {}] and linking another run ({r})", m.program));
                }
                return match (m.iteration, self.number) {
                    (Some(a), Some(b)) if a == b => Whose::This,
                    (Some(a), Some(b)) => Whose::Next(format!("marked iteration {a}, this is iteration {b}")),
                    _ => Whose::Unknown(format!("marked [Autoloop: {}], but neither a run nor an iteration number tells which iteration", m.program)),
                };
            }
        }
        // 3. Its author.
        let Some(login) = c.author.login.as_deref().filter(|l| !l.is_empty()) else {
            return Whose::Unknown("no author login captured and nothing else shows who pushed it".into());
        };
        if !actors::is_automation(&c.author) {
            return Whose::Other(Pusher::Person, format!("by {login}, a person"));
        }
        if self.loop_logins.is_empty() {
            return Whose::Unknown(format!("by {login}, without the loop's mark; the loop's own login is not known"));
        }
        if self.loop_logins.contains(&login.to_lowercase()) {
            return Whose::Unknown(format!("by {login}, the login the loop commits as, without the loop's mark: it may be a fix attempt"));
        }
        Whose::Other(Pusher::OtherAutomation, format!("by {login}, not the loop's login"))
    }
}

fn minutes(a: Instant, b: Instant) -> i64 {
    (b - a).num_minutes()
}

/// The gate replayed over an iteration: its commits from the program push on. The clock
/// starts when the iteration began (`started`, the run's start), else at the program push;
/// a start recorded after the push (clocks that disagree) is not used.
fn run_gate(index: &SnapshotIndex, repo: &str, commits: &[PrCommit], ctx: &Context, started: Option<Instant>, mut r: Replay) -> Replay {
    let pushed = commits.first().and_then(|c| c.at);
    let t0 = match (started, pushed) {
        (Some(s), Some(p)) if s > p => Some(p),
        (Some(s), _) => Some(s),
        (None, p) => p,
    };
    let mut prev: Option<String> = None;
    let mut k = 0usize;
    for (pos, c) in commits.iter().enumerate() {
        let whose = if pos == 0 { Whose::This } else { ctx.whose(c) };
        let ci = CommitCi::in_index(index, repo, &c.sha);
        let mut step = Step {
            sha: c.sha.clone(),
            pushed_at: c.at,
            author: c.author.login.clone(),
            pusher: Pusher::Loop,
            ci: ci.state,
            ci_finished_at: ci.finished_at,
            signature: ci.signature.clone(),
            decision: String::new(),
        };
        match whose {
            Whose::This => {}
            Whose::Other(p, why) => {
                step.pusher = p;
                step.decision = format!("not a fix attempt: {why}");
                r.steps.push(step);
                r.other_commits += 1;
                continue;
            }
            Whose::Next(why) => {
                step.pusher = Pusher::LoopNextIteration;
                step.decision = format!("the loop's next iteration ({why}): not a fix attempt");
                r.steps.push(step);
                break;
            }
            Whose::Unknown(why) => {
                step.pusher = Pusher::Unknown;
                step.decision = format!("pusher unknown: {why}");
                r.steps.push(step);
                let note = format!("after a red push, commit {} may be a fix attempt: {why}", short(&c.sha));
                return r.end(GateOutcome::PusherUnknown, note);
            }
        }
        r.fix_attempts = k;
        let decided = gate_at(t0, c, &ci, k, &mut prev);
        step.decision = match &decided {
            None => format!("fix attempt {}", k + 1),
            Some(d) => d.outcome.as_str().to_string(),
        };
        r.steps.push(step);
        if let Some(d) = decided {
            if d.outcome == GateOutcome::Accepted {
                r.accepted_sha = Some(c.sha.clone());
            }
            r.outcome = d.outcome;
            r.pause_reason = d.pause_reason;
            r.note = d.note;
            return r;
        }
        k += 1;
    }
    r.end(GateOutcome::RedUnresolved, "red, and no fix by the loop captured after it")
}

/// Where the gate stops at one of the loop's pushes, and why.
struct Decided {
    outcome: GateOutcome,
    pause_reason: Option<String>,
    note: Option<String>,
}

/// The gate at the loop's push number `k` (0: the program push, pushed at `t0`), commit
/// `c` with CI `ci`: its decision, or `None` when CI is red and a fix attempt follows
/// (`prev` is the failure signature of the attempt before, and becomes this one's).
fn gate_at(t0: Option<Instant>, c: &PrCommit, ci: &CommitCi, k: usize, prev: &mut Option<String>) -> Option<Decided> {
    let late = matches!((t0, c.at), (Some(a), Some(b)) if minutes(a, b) > WALL_CLOCK_MINUTES);
    // When the gate's wait ended: the last check's end (a push with no check: at once).
    let verdict_at = match ci.state {
        CiState::Missing => ci.finished_at,
        _ if ci.checks == 0 => c.at,
        _ => ci.finished_at,
    };
    let latest = ci.last_completed_at;
    let over: Option<bool> = match (t0, verdict_at) {
        (Some(a), Some(b)) => Some(minutes(a, b) > WALL_CLOCK_MINUTES),
        (Some(a), None) if latest.is_some_and(|l| minutes(a, l) > WALL_CLOCK_MINUTES) => Some(true),
        _ => None,
    };
    let decided = |outcome: GateOutcome, pause_reason: Option<String>, note: Option<String>| Some(Decided { outcome, pause_reason, note });
    match ci.state {
        _ if late => decided(GateOutcome::CiTimeout, Some("ci-timeout".into()), None),
        CiState::Missing => decided(GateOutcome::CiMissing, None, Some(format!("no CI of {} was captured", short(&c.sha)))),
        CiState::Pending => decided(GateOutcome::CiPending, None, Some(format!("CI of {} was still running at capture", short(&c.sha)))),
        _ if over == Some(true) => decided(GateOutcome::CiTimeout, Some("ci-timeout".into()), None),
        _ if over.is_none() => {
            let what = if t0.is_none() { "the program push's time" } else { "when its CI finished" };
            decided(GateOutcome::ClockUnknown, None, Some(format!("{what} ({}) was not captured: the 60-minute cap cannot be checked", short(&c.sha))))
        }
        CiState::Success => decided(GateOutcome::Accepted, None, None),
        CiState::Failure => {
            let sig = ci.signature.clone().unwrap_or_else(|| "-".into());
            if k > 0 && prev.as_deref() == Some(sig.as_str()) {
                decided(GateOutcome::Stuck, Some(format!("stuck in CI fix loop: {sig}")), None)
            } else if k == FIX_BUDGET {
                decided(GateOutcome::CiFixExhausted, Some(format!("ci-fix-exhausted: {sig}")), None)
            } else {
                *prev = Some(sig);
                None
            }
        }
    }
}

fn short(sha: &str) -> &str {
    sha.get(..MIN_ABBREV).unwrap_or(sha)
}

/// The replays of a study's outputs, and its state files beside them.
#[derive(Default)]
pub struct Replays {
    pub replays: Vec<Replay>,
    pub loop_states: Vec<LoopStateRow>,
}

impl Replays {
    pub(crate) fn extend(&mut self, other: Replays) {
        self.replays.extend(other.replays);
        self.loop_states.extend(other.loop_states);
    }
}

/// The CI gate replayed over `outputs` (those that opened or pushed to a PR, executed; the
/// rest are left out), with the captures of `index`, repository by repository.
/// Per run, when it began (`aw_info.json`'s `created_at`): an iteration's start.
pub type RunStarts = std::collections::HashMap<String, Instant>;

/// The run starts of a dataset's runs table: each run's `aw_info.json` `created_at`.
pub(crate) fn run_starts(runs: impl Iterator<Item = (String, Option<String>)>) -> RunStarts {
    runs.filter_map(|(id, aw_info)| {
        let v: serde_json::Value = serde_json::from_str(aw_info.as_deref()?).ok()?;
        Some((id, crate::time::at(&v, "created_at")?))
    })
    .collect()
}

pub fn replay_all(index: &SnapshotIndex, outputs: &[&SafeOutput], starts: &RunStarts) -> Replays {
    let mut by_repo: BTreeMap<&str, Vec<&SafeOutput>> = BTreeMap::new();
    for o in outputs {
        let pushes = matches!(o.output_type.as_ref(), "create_pull_request" | "push_to_pull_request_branch");
        if pushes && o.execution == crate::runs::Execution::Executed && o.target_number.is_some() {
            if let Some(repo) = o.target_repo.as_deref() {
                by_repo.entry(repo).or_default().push(o);
            }
        }
    }
    let mut out = Replays::default();
    for (repo, os) in by_repo {
        out.extend(replay_repo(index, repo, &os, starts));
    }
    out
}

fn replay_repo(index: &SnapshotIndex, repo: &str, outputs: &[&SafeOutput], starts: &RunStarts) -> Replays {
    let located: Vec<Located> = outputs.par_iter().filter_map(|o| Some(locate(index, repo, o, o.target_number?))).collect();
    let states = loop_files(index, repo);
    let loops = Loops::of(&located, &states);
    let mut replays: Vec<Replay> = located.par_iter().map(|l| replay_one(index, repo, l, &located, &loops, starts.get(l.o.run_id.as_ref()).copied())).collect();
    let loop_states = compare_states(&states, &mut replays);
    Replays { replays, loop_states }
}

fn replay_one(index: &SnapshotIndex, repo: &str, l: &Located, all: &[Located], loops: &Loops, started: Option<Instant>) -> Replay {
    let mut r = Replay::new(l.o, repo, l.n);
    r.branch = l.branch.clone();
    let Some(branch) = l.branch.as_deref() else {
        return r.end(GateOutcome::BranchUnknown, "the PR's head branch was not captured (pulls/N) nor recorded by the output");
    };
    let Some(program) = program_of(branch) else {
        r.iteration = Some(false);
        return r.end(GateOutcome::NotAnIteration, format!("pushes to {branch}, not autoloop/{{program}}"));
    };
    r.program = Some(program.to_string());
    let workflows = loops.workflows.get(program);
    let own = l.head_mark().is_some_and(|m| m.program == program) || loops.runs.get(program).is_some_and(|rs| rs.contains(l.o.run_id.as_ref()));
    let by_workflow = l.workflow().is_some_and(|w| workflows.is_some_and(|ws| ws.contains(w)));
    if !(own || by_workflow) {
        return match (l.workflow(), workflows) {
            (Some(w), Some(ws)) if !ws.is_empty() => {
                r.iteration = Some(false);
                let ws: Vec<&str> = ws.iter().map(String::as_str).collect();
                r.end(GateOutcome::NotAnIteration, format!("pushed by workflow {w}; the loop of {program} is {}", ws.join(", ")))
            }
            _ => r.end(
                GateOutcome::LoopUnknown,
                format!("nothing shows the pushing workflow is the loop of {program}: its commit carries no [Autoloop: {program}] mark and no state file of {program} names its run"),
            ),
        };
    }
    r.iteration = Some(true);
    let (Some(commits), Ok(head)) = (l.commits.as_ref(), l.head.as_ref()) else {
        let why = l.head.as_ref().err().cloned().unwrap_or_default();
        let outcome = if l.commits.as_ref().is_none_or(|c| c.is_empty()) { GateOutcome::NoCommits } else { GateOutcome::PushUnknown };
        return r.end(outcome, why);
    };
    // Every commit an output on this PR recorded, with its run and workflow.
    let recorded: Vec<(&str, &str, Option<&str>)> =
        all.iter().filter(|x| x.n == l.n).flat_map(|x| x.recorded.iter().map(move |s| (s.as_str(), x.o.run_id.as_ref(), x.workflow()))).collect();
    let loop_runs = loops.runs.get(program);
    let mut ctx = Context {
        run: l.o.run_id.as_ref(),
        program,
        number: l.head_mark().filter(|m| m.program == program).and_then(|m| m.iteration),
        loop_workflows: workflows,
        loop_runs,
        recorded,
        loop_logins: BTreeSet::new(),
    };
    // The logins the loop's known commits on this PR were authored as: the program push's,
    // and those of commits marked for the program or pushed by the loop's runs.
    let mut logins = BTreeSet::new();
    for (i, c) in commits.iter().enumerate() {
        let marked = c.message.as_deref().and_then(mark).is_some_and(|m| m.program == program);
        let by_loop = ctx.recorded.iter().any(|(s, run, _)| same_commit(s, &c.sha) && (*run == ctx.run || ctx.is_loop_run(run)));
        if i == *head || marked || by_loop {
            if let Some(login) = c.author.login.as_deref().filter(|l| !l.is_empty()) {
                logins.insert(login.to_lowercase());
            }
        }
    }
    ctx.loop_logins = logins;
    run_gate(index, repo, &commits[*head..], &ctx, started, r)
}

/// A state file captured in a repository.
struct LoopFile {
    path: String,
    program: Option<String>,
    state: autoloop::State,
}

/// Autoloop's state files in a repository's captures (`repos/O/R/contents/{program}.md`).
fn loop_files(index: &SnapshotIndex, repo: &str) -> Vec<LoopFile> {
    let prefix = format!("repos/{repo}/contents/");
    let mut paths: Vec<&String> = index.entries.keys().filter(|p| p.starts_with(&prefix) && p.ends_with(".md")).collect();
    paths.sort();
    let mut out = Vec::new();
    for p in paths {
        let Some(e) = index.get(p).filter(|e| e.ok()) else { continue };
        let Some(state) = autoloop::contents_text(e.body()).and_then(|t| autoloop::parse(&t)) else { continue };
        let stem = p[prefix.len()..].trim_end_matches(".md");
        let program = state.program().or_else(|| (!stem.is_empty() && !stem.contains('/')).then(|| stem.to_string()));
        out.push(LoopFile { path: p.clone(), program, state });
    }
    out
}

/// One state file beside the gate's conclusion for the iteration it last recorded.
#[derive(Clone, Debug, Default)]
pub struct LoopStateRow {
    pub(crate) repo: String,
    pub(crate) state_file: String,
    pub program: Option<String>,
    pub(crate) pr: Option<i64>,
    pub(crate) loop_paused: Option<bool>,
    pub(crate) loop_pause_reason: Option<String>,
    /// `Recent Statuses`, normalized, oldest first as autoloop appends them.
    pub(crate) loop_recent_statuses: Option<String>,
    pub(crate) loop_last_status: Option<String>,
    pub(crate) newest_iteration: Option<i64>,
    pub(crate) newest_run: Option<String>,
    pub(crate) newest_commit: Option<String>,
    pub safe_output_id: Option<String>,
    pub(crate) gate_outcome: Option<String>,
    pub gate_status: Option<String>,
    pub(crate) gate_pause_reason: Option<String>,
    pub comparison: Option<Check>,
    pub detail: String,
}

/// The replay of the program's iteration a history entry describes: by its commit (one of
/// the loop's pushes of exactly one iteration), else by its run when one iteration has it.
fn link(entry: &autoloop::Entry, program: &str, replays: &[Replay]) -> Option<usize> {
    let of_program = |r: &&Replay| r.iteration == Some(true) && r.program.as_deref() == Some(program);
    let unique = |ids: Vec<usize>| if ids.len() == 1 { ids.first().copied() } else { None };
    if let Some(c) = &entry.commit {
        let ids: Vec<usize> = replays.iter().enumerate().filter(|(_, r)| of_program(r) && r.pushes().any(|s| same_commit(&s.sha, c))).map(|(i, _)| i).collect();
        if !ids.is_empty() {
            return unique(ids);
        }
    }
    let run = entry.run.as_deref()?;
    unique(replays.iter().enumerate().filter(|(_, r)| of_program(r) && r.run_id == run).map(|(i, _)| i).collect())
}

/// A status the loop recorded beside the gate's outcome for the same iteration.
fn status_check(status: &str, outcome: GateOutcome) -> (Check, String) {
    let gate = outcome.as_str();
    match (status, outcome.gate_status()) {
        ("accepted", Some("accepted")) | ("ci-fix-exhausted", Some("ci-fix-exhausted")) => {
            (Check::Agrees, format!("the loop recorded {status}; the gate: {gate}"))
        }
        ("accepted" | "ci-fix-exhausted", Some(_)) => (Check::Disagrees, format!("the loop recorded {status}; the gate: {gate}")),
        ("accepted", None) if outcome == GateOutcome::RedUnresolved => {
            (Check::Disagrees, "the loop recorded accepted; the gate accepts only on green, and CI was red with no fix after it".into())
        }
        (s, Some(_)) if s.starts_with("pending") => (Check::Disagrees, format!("the loop recorded {s}; the gate waits for CI and decides: {gate}")),
        ("accepted" | "ci-fix-exhausted", None) => (Check::Unknown, format!("the loop recorded {status}; the gate cannot decide ({gate})")),
        (s, _) if s.starts_with("pending") => (Check::Unknown, format!("the loop recorded {s}; the gate cannot decide ({gate})")),
        (s, _) => (Check::Unknown, format!("the loop recorded {s}, outside the gate's statuses (accepted, ci-fix-exhausted)")),
    }
}

/// The first word of a pause reason: `ci-fix-exhausted`, `stuck in CI fix loop`,
/// `ci-timeout`, or `other`.
fn pause_kind(reason: &str) -> &'static str {
    let r = reason.trim().to_lowercase();
    if r.starts_with("ci-fix-exhausted") {
        "ci-fix-exhausted"
    } else if r.starts_with("stuck in ci fix loop") {
        "stuck in CI fix loop"
    } else if r.starts_with("ci-timeout") {
        "ci-timeout"
    } else {
        "other"
    }
}

/// The state's `Paused` and `Pause Reason` beside the gate's outcome.
fn pause_check(paused: Option<bool>, reason: Option<&str>, r: &Replay) -> (Check, String) {
    let gate = r.outcome.as_str();
    if r.outcome.pauses() {
        let want = r.pause_reason.as_deref().unwrap_or("");
        return match (paused, reason) {
            (Some(true), Some(got)) if pause_kind(got) == pause_kind(want) => (Check::Agrees, format!("paused ({got}); the gate: {want}")),
            (Some(true), got) => (Check::Disagrees, format!("paused with reason {}; the gate: {want}", got.unwrap_or("—"))),
            (Some(false), _) => (Check::Disagrees, format!("not paused; the gate pauses: {want}")),
            (None, _) => (Check::Unknown, format!("Paused not recorded; the gate pauses: {want}")),
        };
    }
    match (r.outcome, paused) {
        (GateOutcome::Accepted, Some(false)) => (Check::Agrees, "not paused; the gate accepts".into()),
        (GateOutcome::Accepted, Some(true)) => (Check::Disagrees, format!("paused ({}); the gate accepts, which sets paused: false", reason.unwrap_or("—"))),
        (GateOutcome::Accepted, None) => (Check::Unknown, "Paused not recorded; the gate accepts".into()),
        _ => (Check::Unknown, format!("the gate cannot decide whether to pause ({gate})")),
    }
}

/// Each state file beside the replays of its program: every history entry linked to an
/// iteration gives it `loop_status`; the newest entry's iteration is compared with the
/// state's pause and last status.
fn compare_states(states: &[LoopFile], replays: &mut [Replay]) -> Vec<LoopStateRow> {
    states.iter().map(|s| compare_state(s, replays)).collect()
}

/// One state file's row: its own record, and its newest entry's iteration beside the gate.
fn compare_state(s: &LoopFile, replays: &mut [Replay]) -> LoopStateRow {
    let mut row = state_row(s);
    let Some(program) = s.program.as_deref() else {
        row.comparison = Some(Check::Unknown);
        row.detail = "the state file names no program (no Branch autoloop/{program})".into();
        return row;
    };
    for r in replays.iter_mut().filter(|r| r.program.as_deref() == Some(program) && r.iteration == Some(true)) {
        r.loop_state = Some(s.path.clone());
    }
    let linked = record_history(s, program, replays);
    let Some(newest) = s.state.entries.first() else {
        row.comparison = Some(Check::Unknown);
        row.detail = "the state file has no Iteration History entry".into();
        return row;
    };
    row.newest_iteration = newest.number;
    row.newest_run = newest.run.clone();
    row.newest_commit = newest.commit.clone();
    let Some(&(i, _)) = linked.iter().find(|(_, e)| std::ptr::eq(*e, newest)) else {
        row.comparison = Some(Check::Unknown);
        row.detail = format!(
            "its newest iteration (run {}, commit {}) is not a replayed iteration of {program}",
            newest.run.as_deref().unwrap_or("—"),
            newest.commit.as_deref().unwrap_or("—")
        );
        return row;
    };
    compare_newest(&mut row, newest, &replays[i]);
    row
}

/// What the state file itself records: its program, PR, pause and recent statuses.
fn state_row(s: &LoopFile) -> LoopStateRow {
    let mut row = LoopStateRow {
        repo: String::new(),
        state_file: s.path.clone(),
        program: s.program.clone(),
        pr: s.state.pr(),
        loop_paused: s.state.paused(),
        loop_pause_reason: s.state.pause_reason(),
        ..LoopStateRow::default()
    };
    let statuses = s.state.recent_statuses();
    row.loop_recent_statuses = (!statuses.is_empty()).then(|| statuses.join(", "));
    row.loop_last_status = statuses.last().cloned();
    row.repo = s.path.strip_prefix("repos/").and_then(|p| p.split_once("/contents/")).map(|(r, _)| r.to_string()).unwrap_or_default();
    row
}

/// The history entries linked to replayed iterations of `program`, each with its
/// iteration's place in `replays`: an iteration's newest entry (autoloop prepends them)
/// gives it `loop_status` and its check, and an `accepted` entry naming a push whose CI was
/// red marks it accepted while red.
fn record_history<'s>(s: &'s LoopFile, program: &str, replays: &mut [Replay]) -> Vec<(usize, &'s autoloop::Entry)> {
    let mut linked: Vec<(usize, &autoloop::Entry)> = Vec::new();
    for e in &s.state.entries {
        if let Some(i) = link(e, program, replays) {
            linked.push((i, e));
        }
    }
    for (i, e) in &linked {
        let r = &mut replays[*i];
        let red_commit = e.commit.as_deref().is_some_and(|c| r.pushes().any(|st| same_commit(&st.sha, c) && st.ci == CiState::Failure));
        if e.status.as_deref() == Some("accepted") && red_commit {
            r.accepted_while_ci_red = true;
        }
        if r.loop_status.is_none() {
            if let Some(status) = &e.status {
                let (check, detail) = status_check(status, r.outcome);
                r.loop_status = Some(status.clone());
                r.loop_check = Some(check);
                r.loop_check_detail = Some(detail);
            }
        }
    }
    linked
}

/// The newest entry's iteration: the state's last status and its pause beside the gate's
/// outcome for it (`r`).
fn compare_newest(row: &mut LoopStateRow, newest: &autoloop::Entry, r: &Replay) {
    row.safe_output_id = Some(r.safe_output_id.clone());
    row.gate_outcome = Some(r.outcome.as_str().to_string());
    row.gate_status = r.outcome.gate_status().map(str::to_string);
    row.gate_pause_reason = r.pause_reason.clone();
    let status = match (row.loop_last_status.as_deref(), newest.status.as_deref()) {
        (Some(a), Some(b)) if a != b => {
            (Check::Unknown, format!("status: the state file contradicts itself (Recent Statuses ends with {a}, its newest entry says {b})"))
        }
        (a, b) => match a.or(b) {
            Some(st) => {
                let (c, d) = status_check(st, r.outcome);
                (c, format!("status: {d}"))
            }
            None => (Check::Unknown, "status: none recorded".into()),
        },
    };
    let (pc, pd) = pause_check(row.loop_paused, row.loop_pause_reason.as_deref(), r);
    row.comparison = Some(Check::all(&[status.0, pc]));
    row.detail = format!("{}; pause: {pd}", status.1);
}

/// The `ci_gate` table's columns: one row per output that opened or pushed to a PR.
const GATE_COLUMNS: [(&str, Kind); 22] = [
    ("safe_output_id", Kind::Str),
    ("run_id", Kind::Str),
    ("repo", Kind::Str),
    ("pull_number", Kind::Int),
    ("branch", Kind::Str),
    ("program", Kind::Str),
    ("iteration", Kind::Bool),
    ("pushes", Kind::Int),
    ("fix_attempts", Kind::Int),
    ("other_commits", Kind::Int),
    ("gate_outcome", Kind::Str),
    ("pause_reason", Kind::Str),
    ("gate_note", Kind::Str),
    ("first_push_ci", Kind::Str),
    ("accepted_sha", Kind::Str),
    ("final_signature", Kind::Str),
    ("paused", Kind::Bool),
    ("loop_state", Kind::Str),
    ("loop_status", Kind::Str),
    ("loop_check", Kind::Str),
    ("loop_check_detail", Kind::Str),
    ("accepted_while_ci_red", Kind::Bool),
];

/// The `ci_gate_steps` table's columns: one row per commit of an iteration.
const STEP_COLUMNS: [(&str, Kind); 10] = [
    ("safe_output_id", Kind::Str),
    ("step", Kind::Int),
    ("sha", Kind::Str),
    ("pushed_at", Kind::Time),
    ("author", Kind::Str),
    ("pusher", Kind::Str),
    ("ci_state", Kind::Str),
    ("ci_finished_at", Kind::Time),
    ("failure_signature", Kind::Str),
    ("decision", Kind::Str),
];

/// The `ci_gate_loop_state` table's columns: one row per state file.
const LOOP_STATE_COLUMNS: [(&str, Kind); 17] = [
    ("repo", Kind::Str),
    ("state_file", Kind::Str),
    ("program", Kind::Str),
    ("pr", Kind::Int),
    ("loop_paused", Kind::Bool),
    ("loop_pause_reason", Kind::Str),
    ("loop_recent_statuses", Kind::Str),
    ("loop_last_status", Kind::Str),
    ("newest_iteration", Kind::Int),
    ("newest_run", Kind::Str),
    ("newest_commit", Kind::Str),
    ("safe_output_id", Kind::Str),
    ("gate_outcome", Kind::Str),
    ("gate_status", Kind::Str),
    ("gate_pause_reason", Kind::Str),
    ("comparison", Kind::Str),
    ("detail", Kind::Str),
];

/// The last step of the loop's own pushes.
fn last_push(r: &Replay) -> Option<&Step> {
    r.pushes().last()
}

/// The `ci_gate` table (one row per replayed output, by `safe_output_id`), `ci_gate_steps`
/// (one per commit of an iteration, by `safe_output_id` and `step`) and `ci_gate_loop_state`
/// (one per state file, by repository and path), built column by column from the replays: a
/// study replays a third of its outputs, and a cell per value cost more than encoding them
/// (BENCHMARKS.md, fifteenth step). Sorts are stable, as `Table`'s were.
pub(crate) fn tables(all: &Replays) -> Result<Vec<(&'static str, RecordBatch)>, arrow::error::ArrowError> {
    let replays = &all.replays;
    let mut gate: Vec<&Replay> = replays.iter().collect();
    gate.sort_by(|a, b| a.safe_output_id.cmp(&b.safe_output_id));
    let mut steps: Vec<(&Replay, usize, &Step)> = replays.iter().flat_map(|r| r.steps.iter().enumerate().map(move |(k, st)| (r, k, st))).collect();
    steps.sort_by(|a, b| (a.0.safe_output_id.as_str(), a.1).cmp(&(b.0.safe_output_id.as_str(), b.1)));
    let g = &gate;
    let gate = RecordBatch::try_new(
        table::arrow_schema(&GATE_COLUMNS),
        vec![
            table::str_column(g.iter().map(|r| Some(r.safe_output_id.as_str()))),
            table::str_column(g.iter().map(|r| Some(r.run_id.as_str()))),
            table::str_column(g.iter().map(|r| Some(r.repo.as_str()))),
            table::int_column(g.iter().map(|r| Some(r.pull_number))),
            table::str_column(g.iter().map(|r| r.branch.as_deref())),
            table::str_column(g.iter().map(|r| r.program.as_deref())),
            table::bool_column(g.iter().map(|r| r.iteration)),
            table::int_column(g.iter().map(|r| Some(r.pushes().count() as i64))),
            table::int_column(g.iter().map(|r| Some(r.fix_attempts as i64))),
            table::int_column(g.iter().map(|r| Some(r.other_commits as i64))),
            table::str_column(g.iter().map(|r| Some(r.outcome.as_str()))),
            table::str_column(g.iter().map(|r| r.pause_reason.as_deref())),
            table::str_column(g.iter().map(|r| r.note.as_deref())),
            table::str_column(g.iter().map(|r| r.pushes().next().map(|s| s.ci.as_str()))),
            table::str_column(g.iter().map(|r| r.accepted_sha.as_deref())),
            table::str_column(g.iter().map(|r| last_push(r).and_then(|s| s.signature.as_deref()))),
            table::bool_column(g.iter().map(|r| Some(r.outcome.pauses()))),
            table::str_column(g.iter().map(|r| r.loop_state.as_deref())),
            table::str_column(g.iter().map(|r| r.loop_status.as_deref())),
            table::str_column(g.iter().map(|r| r.loop_check.map(|c| c.as_str()))),
            table::str_column(g.iter().map(|r| r.loop_check_detail.as_deref())),
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
            table::str_column(s.iter().map(|(_, _, st)| st.author.as_deref())),
            table::str_column(s.iter().map(|(_, _, st)| Some(st.pusher.as_str()))),
            table::str_column(s.iter().map(|(_, _, st)| Some(st.ci.as_str()))),
            table::time_column(s.iter().map(|(_, _, st)| st.ci_finished_at)),
            table::str_column(s.iter().map(|(_, _, st)| st.signature.as_deref())),
            table::str_column(s.iter().map(|(_, _, st)| Some(st.decision.as_str()))),
        ],
    )?;
    let mut ls: Vec<&LoopStateRow> = all.loop_states.iter().collect();
    ls.sort_by(|a, b| (a.repo.as_str(), a.state_file.as_str()).cmp(&(b.repo.as_str(), b.state_file.as_str())));
    let l = &ls;
    let loop_state = RecordBatch::try_new(
        table::arrow_schema(&LOOP_STATE_COLUMNS),
        vec![
            table::str_column(l.iter().map(|r| Some(r.repo.as_str()))),
            table::str_column(l.iter().map(|r| Some(r.state_file.as_str()))),
            table::str_column(l.iter().map(|r| r.program.as_deref())),
            table::int_column(l.iter().map(|r| r.pr)),
            table::bool_column(l.iter().map(|r| r.loop_paused)),
            table::str_column(l.iter().map(|r| r.loop_pause_reason.as_deref())),
            table::str_column(l.iter().map(|r| r.loop_recent_statuses.as_deref())),
            table::str_column(l.iter().map(|r| r.loop_last_status.as_deref())),
            table::int_column(l.iter().map(|r| r.newest_iteration)),
            table::str_column(l.iter().map(|r| r.newest_run.as_deref())),
            table::str_column(l.iter().map(|r| r.newest_commit.as_deref())),
            table::str_column(l.iter().map(|r| r.safe_output_id.as_deref())),
            table::str_column(l.iter().map(|r| r.gate_outcome.as_deref())),
            table::str_column(l.iter().map(|r| r.gate_status.as_deref())),
            table::str_column(l.iter().map(|r| r.gate_pause_reason.as_deref())),
            table::str_column(l.iter().map(|r| r.comparison.map(|c| c.as_str()))),
            table::str_column(l.iter().map(|r| Some(r.detail.as_str()))),
        ],
    )?;
    Ok(vec![("ci_gate", gate), ("ci_gate_steps", steps), ("ci_gate_loop_state", loop_state)])
}

/// Autoloop's state file (githubnext/autoloop: one `{program}.md` per program on the
/// `memory/autoloop` branch, captured through the contents API as
/// `repos/O/R/contents/{program}.md`): the `## ⚙️ Machine State` table (`Branch`, `PR`,
/// `Paused`, `Pause Reason`, `Recent Statuses`, ...; parsed by key, `—`/`-`/`--` empty) and
/// the `## 📊 Iteration History` entries, newest first (`### Iteration N — ... — [Run](...
/// /actions/runs/ID)` or `### Iter N — ...`; `**Status**: ✅ Accepted`, `**Commit**: <short
/// sha>` or `Commit: <short sha>`). Summaries of several iterations (`### Iters 1–406`) are
/// no entry.
pub(crate) mod autoloop {
    use serde_json::Value;
    use std::collections::BTreeMap;

    /// An Iteration History entry.
    #[derive(Clone, Debug, Default, PartialEq)]
    pub(crate) struct Entry {
        pub number: Option<i64>,
        /// Normalized (see [`status_word`]).
        pub status: Option<String>,
        pub(crate) commit: Option<String>,
        pub(crate) run: Option<String>,
    }

    #[derive(Clone, Debug, Default, PartialEq)]
    pub(crate) struct State {
        pub(crate) fields: BTreeMap<String, String>,
        /// Newest first, as autoloop prepends them.
        pub(crate) entries: Vec<Entry>,
    }

    impl State {
        /// The PR number: `#123` or `123`, with anything after it (`#113 (hash-suffix; ...)`);
        /// a temporary id (`#aw_pr39b (pending)`) is none.
        pub(crate) fn pr(&self) -> Option<i64> {
            let v = self.fields.get("pr")?.trim();
            super::leading_number(v.strip_prefix('#').unwrap_or(v))
        }
        /// `{program}` of the `Branch` field (`autoloop/{program}`).
        pub(crate) fn program(&self) -> Option<String> {
            self.fields.get("branch").and_then(|b| super::program_of(b.trim()).map(str::to_string))
        }
        pub(crate) fn paused(&self) -> Option<bool> {
            match self.fields.get("paused")?.trim().to_lowercase().as_str() {
                "true" => Some(true),
                "false" => Some(false),
                _ => None,
            }
        }
        pub(crate) fn pause_reason(&self) -> Option<String> {
            self.fields.get("pause_reason").cloned()
        }
        /// `Recent Statuses`, each normalized (annotations such as `(iter95)` dropped), in
        /// the order written: autoloop appends, so the last is the newest.
        pub(crate) fn recent_statuses(&self) -> Vec<String> {
            self.fields.get("recent_statuses").map(|v| v.split(',').filter_map(status_word).collect()).unwrap_or_default()
        }
    }

    /// A status as words: emoji and punctuation before it skipped, then its words of letters
    /// and `-`, lower-cased and joined by `-`, up to the first other token (`✅ Accepted —
    /// ...` is `accepted`, `⏳ Pending CI | ...` is `pending-ci`, `⚠️ Error (push failure)` is
    /// `error`, `gate-fix (iter95)` is `gate-fix`). One of autoloop's statuses followed by
    /// more words is that status.
    pub(crate) fn status_word(text: &str) -> Option<String> {
        let mut words: Vec<String> = Vec::new();
        for token in text.split_whitespace() {
            let t = token.trim_end_matches([',', '.', ':', ';']);
            let wordy = !t.is_empty() && t.chars().all(|c| c.is_alphabetic() || c == '-');
            if wordy {
                words.push(t.to_lowercase());
            } else if words.is_empty() && !t.chars().any(|c| c.is_alphanumeric()) {
                continue;
            } else {
                break;
            }
        }
        let phrase = words.join("-");
        const KNOWN: [&str; 5] = ["ci-fix-exhausted", "pending-ci", "accepted", "rejected", "error"];
        let known = KNOWN.iter().find(|k| phrase == **k || phrase.strip_prefix(**k).is_some_and(|rest| rest.starts_with('-')));
        match known {
            Some(k) => Some(k.to_string()),
            None => (!phrase.is_empty()).then_some(phrase),
        }
    }

    /// The decoded text of a contents-API body (`content` in base64, lines broken).
    pub(crate) fn contents_text(body: &Value) -> Option<String> {
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

    /// The first hex run of a SHA's length at least (seven characters) after `marker` in `line`.
    pub fn sha_after(line: &str, marker: &str) -> Option<String> {
        let i = line.find(marker)?;
        line[i + marker.len()..].split(|ch: char| !ch.is_ascii_hexdigit()).find(|w| w.len() >= crate::snapshot::sha::MIN_ABBREV).map(str::to_lowercase)
    }

    /// Parse a state file; `None` when it has no Machine State table.
    pub(crate) fn parse(text: &str) -> Option<State> {
        let mut state = State::default();
        let mut section = "";
        let mut found = false;
        let mut current: Option<Entry> = None;
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
                state.entries.extend(current.take());
                continue;
            }
            match section {
                "state" if l.starts_with('|') => {
                    let cells: Vec<&str> = l.trim_matches('|').split('|').map(str::trim).collect();
                    if cells.len() >= 2 && !cells[0].eq_ignore_ascii_case("field") && !cells[0].starts_with("---") && !cells[0].starts_with(":--") {
                        let key = cells[0].trim_matches('*').to_lowercase().replace(' ', "_");
                        // A value may hold `|` itself: the cells after the key, joined back.
                        let value = cells[1..].join("|").trim().trim_matches('`').trim().to_string();
                        if !empty(&value) {
                            state.fields.insert(key, value);
                        }
                    }
                }
                "history" => {
                    if let Some(h) = l.strip_prefix("### Iter") {
                        state.entries.extend(current.take());
                        let rest = h.strip_prefix("ation").unwrap_or(h);
                        // `### Iters 1–406`: a summary of several, no entry.
                        if !rest.starts_with('s') {
                            current = Some(Entry { number: super::leading_number(rest.trim_start()), run: super::run_link(rest), ..Entry::default() });
                        }
                    } else if l.starts_with("### ") {
                        state.entries.extend(current.take());
                    } else if let Some(c) = current.as_mut() {
                        if let Some(i) = l.find("**Status**:") {
                            c.status = c.status.take().or_else(|| status_word(&l[i + "**Status**:".len()..]));
                        }
                        c.commit = c.commit.take().or_else(|| sha_after(l, "**Commit**:")).or_else(|| sha_after(l, "Commit:"));
                        c.run = c.run.take().or_else(|| super::run_link(l));
                    }
                }
                _ => {}
            }
        }
        state.entries.extend(current.take());
        found.then_some(state)
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        fn entry(number: i64, status: &str, commit: Option<&str>, run: Option<&str>) -> Entry {
            Entry { number: Some(number), status: Some(status.into()), commit: commit.map(str::to_string), run: run.map(str::to_string) }
        }

        /// The template's shape (githubnext/autoloop's workflow, "Per-Program State File").
        #[test]
        fn machine_state_and_history() {
            let md = "# perf\n\n## ⚙️ Machine State\n\n| Field | Value |\n|-------|-------|\n| Iteration Count | 126 |\n| Branch | `autoloop/perf` |\n| PR | #42 |\n| Paused | false |\n| Pause Reason | — |\n| Recent Statuses | error, accepted |\n\n---\n\n## 📊 Iteration History\n\n### Iteration 125 — 2026-04-16 10:32 UTC — [Run](https://github.com/o/r/actions/runs/1)\n\n- **Status**: ✅ Accepted\n- **Metric**: 352 (previous best: 345, delta: +7) | **Commit**: 89e8b20\n\n### Iteration 124 — 2026-04-16 09:00 UTC\n\n- **Status**: ❌ Rejected\n";
            let s = parse(md).unwrap();
            assert_eq!((s.pr(), s.program().as_deref(), s.paused(), s.pause_reason()), (Some(42), Some("perf"), Some(false), None));
            assert_eq!(s.recent_statuses(), ["error", "accepted"]);
            assert_eq!(s.entries, vec![entry(125, "accepted", Some("89e8b20"), Some("1")), Entry { run: None, ..entry(124, "rejected", None, None) }]);
            assert!(parse("# no state\n").is_none());
            let body = serde_json::json!({"encoding": "base64", "content": "aGVs\nbG8="});
            assert_eq!(contents_text(&body).as_deref(), Some("hello"));
        }

        /// Shapes seen in githubnext/tsb's and githubnext/tsessebe's `memory/autoloop` state
        /// files (build-tsb-pandas-typescript-migration.md, perf-comparison.md; written here,
        /// not copied): `### Iter N` headers with `[Run §ID](...)`, status and commit on one
        /// line (`**Commit**:` or plain `Commit:`), `⏳ Pending CI` and `⚠️ Code lost`
        /// statuses, `### Iters a–b` summaries, a PR that is a temporary id, Recent Statuses
        /// without spaces or with annotations, a paused program with a long reason.
        #[test]
        fn real_state_file_shapes() {
            let md = "# Autoloop: build-x\n\n## ⚙️ Machine State\n\n| Field | Value |\n|-------|-------|\n| Last Run | 2026-07-16T07:38:36Z |\n| Metric Direction | higher |\n| Branch | `autoloop/build-x` |\n| PR | #aw_pr39b (pending) |\n| Issue | #1 |\n| Paused | true |\n| Pause Reason | 20 consecutive push failures: safeoutputs blocked (registry 401). Human intervention required. |\n| Recent Statuses | pending-ci,accepted, gate-fix (iter95), ERROR |\n\n---\n\n## 🎯 Current Priorities\n\n- Commit: deadbeef0 is not history\n\n## 📊 Iteration History\n\n### Iter 414 — 2026-07-16 07:38 UTC — [Run §29480448548](https://github.com/o/r/actions/runs/29480448548)\n- **Status**: ⏳ Pending CI | **Change**: cointegration tests\n- **Metric**: 195 (prev: 194, delta: +1) | **Commit**: b44fa9b\n\n### Iteration 220 — 2026-04-12 05:15 UTC — [Run](https://github.com/o/r/actions/runs/24299079452)\n- **Status**: ✅ Accepted — Add `stats/sem_var.ts` (var, sem). Metric: 55 (+2). Commit: bb3f8f3.\n\n### Iteration 219 — 2026-04-12 03:43 UTC — [Run](https://github.com/o/r/actions/runs/24297956451)\n- **Status**: ⚠️ Code lost — recorded as accepted but the push failed.\n\n### Iteration 192 — 2026-04-11 10:46 UTC — [Run](https://github.com/o/r/actions/runs/24280816643)\n\n- **Status**: ⚠️ Error (push failure — safeoutputs blocked, 20th consecutive)\n- **Commit**: 6637b79 (local only)\n\n### Iters 1–191 — ✅ (metrics 0→30)\n- Commit: 1234567 summarised\n";
            let s = parse(md).unwrap();
            assert_eq!((s.pr(), s.program().as_deref(), s.paused()), (None, Some("build-x"), Some(true)));
            assert!(s.pause_reason().is_some_and(|r| r.starts_with("20 consecutive push failures") && r.ends_with("required.")));
            assert_eq!(s.recent_statuses(), ["pending-ci", "accepted", "gate-fix", "error"]);
            assert_eq!(
                s.entries,
                vec![
                    entry(414, "pending-ci", Some("b44fa9b"), Some("29480448548")),
                    entry(220, "accepted", Some("bb3f8f3"), Some("24299079452")),
                    entry(219, "code-lost", None, Some("24297956451")),
                    entry(192, "error", Some("6637b79"), Some("24280816643")),
                ]
            );
            // A PR written with a remark after its number.
            let pr = "## ⚙️ Machine State\n| Field | Value |\n|---|---|\n| PR | #113 (hash-suffix; canonical PR being created) |\n| Pause Reason | -- |\n";
            let s = parse(pr).unwrap();
            assert_eq!((s.pr(), s.pause_reason(), s.program()), (Some(113), None, None));
        }

        #[test]
        fn status_words() {
            for (text, want) in [
                ("✅ Accepted", Some("accepted")),
                ("❌ Rejected", Some("rejected")),
                (" ⚠️ Error (push failure)", Some("error")),
                ("⏳ Pending CI | **Change**: x", Some("pending-ci")),
                ("ci-fix-exhausted", Some("ci-fix-exhausted")),
                ("✅ Accepted after 2 fix attempts", Some("accepted")),
                ("gate-fix (iter95)", Some("gate-fix")),
                ("  ", None),
                ("—", None),
            ] {
                assert_eq!(status_word(text).as_deref(), want, "{text}");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::{b, i, ob, oi, os, s, t, Table};

    #[test]
    fn marks_runs_and_programs() {
        assert_eq!(
            mark("[Autoloop: perf] Iteration 12: faster parse\n\nRun: https://github.com/o/r/actions/runs/77"),
            Some(Mark { program: "perf".into(), iteration: Some(12) })
        );
        assert_eq!(mark("[autoloop: perf] fix the type error"), Some(Mark { program: "perf".into(), iteration: None }));
        assert_eq!(mark("Merge branch 'main' into autoloop/perf"), None);
        assert_eq!(mark("[Autoloop: ] x"), None);
        assert_eq!(run_link("x\n\nRun: https://github.com/o/r/actions/runs/77/job/1").as_deref(), Some("77"));
        assert_eq!(run_link("https://github.com/o/r/actions/runs/"), None);
        assert_eq!((program_of("autoloop/perf"), program_of("autoloop/"), program_of("agent/fix")), (Some("perf"), None, None));
    }

    fn replay(id: &str, pr: i64, steps: &[(&str, CiState, Option<&str>)], pause: Option<&str>) -> Replay {
        let at = crate::time::parse("2026-04-01T10:00:00Z");
        Replay {
            safe_output_id: id.into(),
            run_id: "9".into(),
            repo: "o/r".into(),
            pull_number: pr,
            branch: Some("autoloop/perf".into()),
            program: Some("perf".into()),
            iteration: (pr != 5).then_some(true),
            steps: steps
                .iter()
                .map(|(sha, ci, sig)| Step {
                    sha: sha.to_string(),
                    pushed_at: at,
                    author: (pr != 1).then(|| "bot[bot]".to_string()),
                    pusher: if sha.starts_with('d') { Pusher::Person } else { Pusher::Loop },
                    ci: *ci,
                    ci_finished_at: None,
                    signature: sig.map(str::to_string),
                    decision: format!("after {sha}"),
                })
                .collect(),
            outcome: if pause.is_some() { GateOutcome::CiFixExhausted } else { GateOutcome::Accepted },
            pause_reason: pause.map(str::to_string),
            note: (pr == 1).then(|| "a note".to_string()),
            fix_attempts: steps.len().saturating_sub(1),
            other_commits: steps.iter().filter(|s| s.0.starts_with('d')).count(),
            accepted_sha: pause.is_none().then(|| steps.last().map(|s| s.0.to_string())).flatten(),
            loop_state: (pr == 2).then(|| "repos/o/r/contents/perf.md".to_string()),
            loop_status: (pr == 2).then(|| "accepted".to_string()),
            loop_check: (pr == 2).then_some(Check::Disagrees),
            loop_check_detail: (pr == 2).then(|| "why".to_string()),
            accepted_while_ci_red: pr == 2,
        }
    }

    /// The tables as a `Table` of the same rows made them (every value a cell, a stable sort
    /// by column): the definition the column-by-column build must keep, byte for byte.
    fn as_cells(all: &Replays) -> Vec<RecordBatch> {
        let mut gate = Table::new("ci_gate", &GATE_COLUMNS);
        let mut steps = Table::new("ci_gate_steps", &STEP_COLUMNS);
        let mut states = Table::new("ci_gate_loop_state", &LOOP_STATE_COLUMNS);
        for r in &all.replays {
            let pushes: Vec<&Step> = r.steps.iter().filter(|s| s.pusher == Pusher::Loop).collect();
            gate.push(vec![
                s(&r.safe_output_id),
                s(&r.run_id),
                s(&r.repo),
                i(r.pull_number),
                os(r.branch.as_ref()),
                os(r.program.as_ref()),
                ob(r.iteration),
                i(pushes.len() as i64),
                i(r.fix_attempts as i64),
                i(r.other_commits as i64),
                s(r.outcome.as_str()),
                os(r.pause_reason.as_ref()),
                os(r.note.as_ref()),
                os(pushes.first().map(|s| s.ci.as_str())),
                os(r.accepted_sha.as_ref()),
                os(pushes.last().and_then(|s| s.signature.as_ref())),
                b(r.outcome.pauses()),
                os(r.loop_state.as_ref()),
                os(r.loop_status.as_ref()),
                os(r.loop_check.map(|c| c.as_str())),
                os(r.loop_check_detail.as_ref()),
                b(r.accepted_while_ci_red),
            ]);
            for (k, st) in r.steps.iter().enumerate() {
                steps.push(vec![
                    s(&r.safe_output_id),
                    i(k as i64),
                    s(&st.sha),
                    t(st.pushed_at),
                    os(st.author.as_ref()),
                    s(st.pusher.as_str()),
                    s(st.ci.as_str()),
                    t(st.ci_finished_at),
                    os(st.signature.as_ref()),
                    s(&st.decision),
                ]);
            }
        }
        for r in &all.loop_states {
            states.push(vec![
                s(&r.repo),
                s(&r.state_file),
                os(r.program.as_ref()),
                oi(r.pr),
                ob(r.loop_paused),
                os(r.loop_pause_reason.as_ref()),
                os(r.loop_recent_statuses.as_ref()),
                os(r.loop_last_status.as_ref()),
                oi(r.newest_iteration),
                os(r.newest_run.as_ref()),
                os(r.newest_commit.as_ref()),
                os(r.safe_output_id.as_ref()),
                os(r.gate_outcome.as_ref()),
                os(r.gate_status.as_ref()),
                os(r.gate_pause_reason.as_ref()),
                os(r.comparison.map(|c| c.as_str())),
                s(&r.detail),
            ]);
        }
        gate.sort_by_columns(&["safe_output_id"]);
        steps.sort_by_columns(&["safe_output_id", "step"]);
        states.sort_by_columns(&["repo", "state_file"]);
        vec![gate.to_batch().unwrap(), steps.to_batch().unwrap(), states.to_batch().unwrap()]
    }

    /// Replays out of order, one id twice (its replays keep their order, and their steps
    /// interleave by step as a sort by id and step puts them), nulls and steps of every kind,
    /// state rows out of order: the same batches, names and schemas as the cells gave.
    #[test]
    fn tables_built_by_column_are_the_tables_cells_made() {
        let replays = vec![
            replay(
                "o9",
                9,
                &[("aaa1111", CiState::Failure, Some("E1")), ("ddd0000", CiState::Success, None), ("bbb2222", CiState::Failure, Some("E1"))],
                Some("same failure twice"),
            ),
            replay("o2", 2, &[("ccc3333", CiState::Success, None)], None),
            replay("o5", 5, &[], None),
            replay("o2", 3, &[("ddd4444", CiState::Pending, None), ("eee5555", CiState::Success, None)], None),
            replay("o1", 1, &[("fff6666", CiState::Missing, None)], Some("ci missing")),
        ];
        let row = |repo: &str, file: &str, check: Option<Check>| LoopStateRow {
            repo: repo.into(),
            state_file: file.into(),
            program: Some("perf".into()),
            pr: Some(2),
            loop_paused: check.map(|c| c == Check::Agrees),
            comparison: check,
            detail: "d".into(),
            ..LoopStateRow::default()
        };
        let all =
            Replays { replays, loop_states: vec![row("o/r", "repos/o/r/contents/z.md", None), row("a/b", "repos/a/b/contents/perf.md", Some(Check::Agrees))] };
        let built = tables(&all).unwrap();
        assert_eq!(built.iter().map(|(n, _)| *n).collect::<Vec<_>>(), ["ci_gate", "ci_gate_steps", "ci_gate_loop_state"]);
        let built: Vec<RecordBatch> = built.into_iter().map(|(_, b)| b).collect();
        assert_eq!(built, as_cells(&all));
        let ids = built[1].column(0).as_any().downcast_ref::<arrow::array::StringArray>().unwrap();
        assert_eq!(ids.iter().flatten().collect::<Vec<_>>(), ["o1", "o2", "o2", "o2", "o9", "o9", "o9"]);
    }

    #[test]
    fn the_loops_status_beside_the_gates() {
        use GateOutcome as G;
        assert_eq!(status_check("accepted", G::Accepted).0, Check::Agrees);
        assert_eq!(status_check("ci-fix-exhausted", G::Stuck).0, Check::Agrees);
        assert_eq!(status_check("ci-fix-exhausted", G::CiTimeout).0, Check::Agrees);
        assert_eq!(status_check("accepted", G::CiFixExhausted).0, Check::Disagrees);
        assert_eq!(status_check("ci-fix-exhausted", G::Accepted).0, Check::Disagrees);
        assert_eq!(status_check("accepted", G::RedUnresolved).0, Check::Disagrees);
        assert_eq!(status_check("pending-ci", G::Accepted).0, Check::Disagrees);
        assert_eq!(status_check("pending-ci", G::CiPending).0, Check::Unknown);
        assert_eq!(status_check("accepted", G::CiMissing).0, Check::Unknown);
        assert_eq!(status_check("rejected", G::Accepted).0, Check::Unknown);
        assert_eq!(
            (pause_kind("ci-fix-exhausted: a|b"), pause_kind("Stuck in CI fix loop: x"), pause_kind("ci-timeout"), pause_kind("manual")),
            ("ci-fix-exhausted", "stuck in CI fix loop", "ci-timeout", "other")
        );
        assert_eq!(
            (Check::all(&[Check::Agrees, Check::Agrees]), Check::all(&[Check::Agrees, Check::Unknown]), Check::all(&[Check::Unknown, Check::Disagrees])),
            (Check::Agrees, Check::Unknown, Check::Disagrees)
        );
    }
}
