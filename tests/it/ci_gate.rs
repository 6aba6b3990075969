//! The CI gate replay: each gate outcome on captures in GitHub's check-run shape
//! (shared/formats/github-rest/commits_SHA_check-runs.json); what counts as an iteration and
//! as a fix attempt (the loop's own pushes only); the clock from the program push; the loop's
//! state file (in the shapes of githubnext/tsb's `memory/autoloop` files) beside the replay;
//! the demo's CI-gate run and the figures in the dashboard.

use hindsight::evaluate::ci_gate::{self, Check, GateOutcome, Pusher, Replay, Replays};
use hindsight::runs::item::{self, RunContext, SafeOutput};
use hindsight::snapshot::SnapshotIndex;
use serde_json::{json, Value};

use super::support::{demo, ok};

const REPO: &str = "o/r";
const LOOP: &str = "github-actions[bot]";
/// The loop's run in these cases.
const RUN: &str = "700";

/// The real check-run shape with the fields a case changes.
fn check_run(sha: &str, name: &str, status: &str, conclusion: Option<&str>, completed: &str, text: &str) -> Value {
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(super::support::root().join("../shared/formats/github-rest/commits_SHA_check-runs.json")).unwrap_or_else(|_| {
        // Where ../shared is absent: the same shape, trimmed.
        r#"{"total_count": 1, "check_runs": [{"id": 4, "status": "completed", "conclusion": "neutral", "output": {"title": "", "summary": "", "text": ""}, "name": "x"}]}"#.to_string()
    }))
    .unwrap();
    let run = &mut v["check_runs"][0];
    run["head_sha"] = json!(sha);
    run["name"] = json!(name);
    run["status"] = json!(status);
    run["conclusion"] = json!(conclusion);
    run["started_at"] = json!("2026-01-01T00:00:00Z");
    run["completed_at"] = if conclusion.is_some() { json!(completed) } else { Value::Null };
    run["output"]["summary"] = json!("");
    run["output"]["text"] = json!(text);
    v
}

/// `2026-01-01` plus `m` minutes.
fn at(m: i64) -> String {
    format!("2026-01-01T{:02}:{:02}:00Z", m / 60, m % 60)
}

fn green(sha: &str, done: i64) -> Value {
    check_run(sha, "test", "completed", Some("success"), &at(done), "")
}

fn red(sha: &str, done: i64, code: &str) -> Value {
    check_run(sha, "typecheck", "completed", Some("failure"), &at(done), &format!("src/a.ts(1,1): error {code}: Property 'fromArrays' missing"))
}

/// A commit of PR 1: its SHA, minutes after 00:00 (None: no date), author login, message, CI.
struct C {
    sha: &'static str,
    minute: Option<i64>,
    author: Option<&'static str>,
    message: Option<String>,
    ci: Option<Value>,
}

/// The loop's commit in autoloop's convention: subject `[Autoloop: perf] Iteration N: ...`,
/// body `Run: {run_url}` (of run [`RUN`]).
fn by_loop(sha: &'static str, minute: i64, iteration: i64, ci: Option<Value>) -> C {
    let message = format!("[Autoloop: perf] Iteration {iteration}: faster parse\n\nRun: https://github.com/{REPO}/actions/runs/{RUN}");
    C { sha, minute: Some(minute), author: Some(LOOP), message: Some(message), ci }
}

fn commit_json(c: &C) -> Value {
    let mut v = json!({"sha": c.sha, "commit": {"message": c.message, "author": {"name": "n"}, "committer": {"name": "n"}}, "author": Value::Null, "committer": Value::Null});
    if let Some(m) = c.minute {
        v["commit"]["author"]["date"] = json!(at(m));
        v["commit"]["committer"]["date"] = json!(at(m));
    }
    if let Some(a) = c.author {
        let kind = if a.ends_with("[bot]") { "Bot" } else { "User" };
        v["author"] = json!({"login": a, "type": kind});
        v["committer"] = json!({"login": "web-flow", "type": "User"});
    }
    v
}

/// Standard base64, as GitHub's contents API writes it (lines of 60).
pub(crate) fn base64(bytes: &[u8]) -> String {
    const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, b)| n | (*b as u32) << (16 - 8 * i));
        for i in 0..4 {
            out.push(if i <= chunk.len() { A[(n >> (18 - 6 * i) & 63) as usize] as char } else { '=' });
        }
    }
    out.as_bytes().chunks(60).map(|l| String::from_utf8_lossy(l).into_owned()).collect::<Vec<_>>().join("\n")
}

/// A state file in autoloop's template shape, as the contents API returns it.
fn state_file(path: &str, md: &str) -> (String, Value) {
    (format!("repos/{REPO}/contents/{path}"), json!({"name": path, "path": path, "type": "file", "encoding": "base64", "content": base64(md.as_bytes())}))
}

/// The Machine State and Iteration History of program `perf`, in the shape of githubnext's
/// state files: `paused`, `reason`, `recent` as written, one entry (status text, commit,
/// run).
fn perf_state(paused: &str, reason: &str, recent: &str, entry_status: &str, commit: &str, run: &str) -> String {
    format!(
        "# Autoloop: perf\n\n🤖 *This file is maintained by the Autoloop agent.*\n\n---\n\n## ⚙️ Machine State\n\n> 🤖 *Updated automatically after each iteration.*\n\n| Field | Value |\n|-------|-------|\n| Last Run | 2026-01-01T02:00:00Z |\n| Iteration Count | 7 |\n| Branch | `autoloop/perf` |\n| PR | #1 |\n| Issue | #3 |\n| Paused | {paused} |\n| Pause Reason | {reason} |\n| Completed | false |\n| Consecutive Errors | 0 |\n| Recent Statuses | {recent} |\n\n---\n\n## 📊 Iteration History\n\nAll iterations in reverse chronological order (newest first).\n\n### Iteration 7 — 2026-01-01 02:00 UTC — [Run](https://github.com/{REPO}/actions/runs/{run})\n\n- **Status**: {entry_status}\n- **Change**: faster parse\n- **Metric**: 352 (previous best: 345, delta: +7)\n- **Commit**: {commit}\n\n### Iters 1–6 — ✅ (metrics 300→345)\n"
    )
}

/// Captures of PR 1 on `branch` (None: no `pulls/1`), opened at minute 0, with `commits`
/// and `extra` captures.
fn index(branch: Option<&str>, commits: &[C], extra: Vec<(String, Value)>) -> SnapshotIndex {
    SnapshotIndex::build(rows(branch, commits, extra))
}

/// `index`'s captures as (path, page, status, captured_at, body) rows, each a first page.
fn rows(branch: Option<&str>, commits: &[C], extra: Vec<(String, Value)>) -> Vec<hindsight::snapshot::CaptureRow> {
    let mut rows = vec![(format!("repos/{REPO}/pulls/1/commits"), 1, 200u16, None, Value::Array(commits.iter().map(commit_json).collect()).to_string())];
    if let Some(b) = branch {
        // The real pull-request shape (shared/formats/github-rest/pulls_N.json) with the
        // fields a case changes.
        let mut pull: Value = std::fs::read_to_string(super::support::root().join("../shared/formats/github-rest/pulls_N.json"))
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or_else(|| json!({"head": {}, "state": "open", "merged": false}));
        pull["number"] = json!(1);
        pull["created_at"] = json!(at(0));
        pull["head"]["ref"] = json!(b);
        pull["head"]["sha"] = json!(commits.last().map(|c| c.sha));
        pull["user"] = json!({"login": LOOP, "type": "Bot"});
        rows.push((format!("repos/{REPO}/pulls/1"), 1, 200, None, pull.to_string()));
    }
    for c in commits {
        if let Some(ci) = &c.ci {
            rows.push((format!("repos/{REPO}/commits/{}/check-runs", c.sha), 1, 200, None, ci.to_string()));
        }
    }
    for (path, body) in extra {
        rows.push((path, 1, 200, None, body.to_string()));
    }
    rows
}

/// An output of `kind` on PR 1 by run `run` of workflow `workflow`, with `fields` added.
fn output(run: &str, workflow: &str, kind: &str, fields: Value) -> SafeOutput<'static> {
    let ctx = RunContext {
        run_id: run.into(),
        workflow_name: Some(workflow.into()),
        repository: Some(REPO.into()),
        actor: None,
        staged: false,
        temp_ids: Default::default(),
    };
    let mut v = json!({"type": kind, "target": {"repo": REPO, "number": 1}, "timestamp": at(0)});
    if let (Some(o), Some(f)) = (v.as_object_mut(), fields.as_object()) {
        o.extend(f.clone());
    }
    item::from_record(&ctx, &v, 0, item::Format::GhAw, "f", 1).unwrap()
}

fn replays(index: &SnapshotIndex, outputs: &[SafeOutput]) -> Replays {
    ci_gate::replay_all(index, &outputs.iter().collect::<Vec<_>>(), &Default::default())
}

/// The autoloop's PR opened by its run, on `autoloop/perf`, with these commits.
fn replay(commits: Vec<C>) -> Replay {
    replay_with(Some("autoloop/perf"), commits, vec![])
}

fn replay_with(branch: Option<&str>, commits: Vec<C>, extra: Vec<(String, Value)>) -> Replay {
    let idx = index(branch, &commits, extra);
    let mut all = replays(&idx, &[output(RUN, "autoloop", "create_pull_request", json!({}))]).replays;
    assert_eq!(all.len(), 1);
    all.remove(0)
}

/// Spec rows: accepted on green; a red push, then a fix; the same signature twice (stuck);
/// the fifth fix still red (exhausted); four fixes are not five; a verdict past 60 minutes;
/// no CI captured; CI still running.
#[test]
fn each_gate_outcome() {
    // Green on the program push.
    let r = replay(vec![by_loop("a1", 0, 1, Some(green("a1", 10)))]);
    assert_eq!((r.outcome, r.fix_attempts, r.accepted_sha.as_deref(), r.iteration), (GateOutcome::Accepted, 0, Some("a1"), Some(true)));
    // Red, then fixed on attempt 1.
    let r = replay(vec![by_loop("b1", 0, 1, Some(red("b1", 10, "TS2339"))), by_loop("b2", 20, 1, Some(green("b2", 30)))]);
    assert_eq!((r.outcome, r.fix_attempts), (GateOutcome::Accepted, 1));
    assert_eq!(r.steps[0].decision, "fix attempt 1");
    // The same signature twice in a row: stuck.
    let r = replay(vec![by_loop("c1", 0, 1, Some(red("c1", 10, "TS2339"))), by_loop("c2", 20, 1, Some(red("c2", 30, "TS2339")))]);
    assert_eq!(r.outcome, GateOutcome::Stuck);
    assert_eq!(r.pause_reason.as_deref(), Some("stuck in CI fix loop: typecheck|TS2339:fromArrays:src/a.ts"));
    // Five fixes, each failing differently, the fifth still red: exhausted.
    let shas = ["d0", "d1", "d2", "d3", "d4", "d5"];
    let pushes = |n: usize| -> Vec<C> {
        shas[..n].iter().enumerate().map(|(i, s)| by_loop(s, i as i64 * 8, 1, Some(red(s, i as i64 * 8 + 5, &format!("TS{}", 2300 + i))))).collect()
    };
    let r = replay(pushes(6));
    assert_eq!((r.outcome, r.fix_attempts), (GateOutcome::CiFixExhausted, 5));
    assert_eq!(r.pause_reason.as_deref(), Some("ci-fix-exhausted: typecheck|TS2305:fromArrays:src/a.ts"));
    // Four pushes are not five fixes: red with nothing after is unresolved, not exhausted.
    assert_eq!(replay(pushes(5)).outcome, GateOutcome::RedUnresolved);
    // A verdict 75 minutes after the program push: ci-timeout, whatever the colour.
    let r = replay(vec![by_loop("e1", 0, 1, Some(red("e1", 10, "TS1"))), by_loop("e2", 50, 1, Some(green("e2", 75)))]);
    assert_eq!((r.outcome, r.pause_reason.as_deref()), (GateOutcome::CiTimeout, Some("ci-timeout")));
    // No CI captured is missing, never success; a check still running is pending.
    assert_eq!(replay(vec![by_loop("f1", 0, 1, None)]).outcome, GateOutcome::CiMissing);
    assert_eq!(replay(vec![by_loop("g1", 0, 1, Some(check_run("g1", "test", "in_progress", None, "", "")))]).outcome, GateOutcome::CiPending);
}

/// What counts as an iteration: a push to `autoloop/{program}` by the loop, and nothing else.
#[test]
fn an_iteration_is_a_program_push_to_autoloop_by_the_loop() {
    // Another branch: no iteration, nothing replayed.
    let r = replay_with(Some("agent/fix"), vec![by_loop("a1", 0, 1, Some(green("a1", 10)))], vec![]);
    assert_eq!((r.outcome, r.iteration, r.steps.len(), r.program), (GateOutcome::NotAnIteration, Some(false), 0, None));
    // No PR capture and no branch recorded: unknown; the branch the output recorded serves.
    let commits = || vec![by_loop("a1", 0, 1, Some(green("a1", 10)))];
    let r = replay_with(None, commits(), vec![]);
    assert_eq!((r.outcome, r.iteration), (GateOutcome::BranchUnknown, None));
    let idx = index(None, &commits(), vec![]);
    let r = &replays(&idx, &[output(RUN, "autoloop", "create_pull_request", json!({"branch": "autoloop/perf"}))]).replays[0];
    assert_eq!((r.outcome, r.program.as_deref()), (GateOutcome::Accepted, Some("perf")));
    // On autoloop/perf, but nothing shows the pusher is the loop: its commit is unmarked.
    let unmarked = || vec![C { sha: "a1", minute: Some(0), author: Some(LOOP), message: Some("faster parse".into()), ci: Some(green("a1", 10)) }];
    let r = replay_with(Some("autoloop/perf"), unmarked(), vec![]);
    assert_eq!((r.outcome, r.iteration), (GateOutcome::LoopUnknown, None));
    assert!(r.note.as_deref().is_some_and(|n| n.contains("[Autoloop: perf]")), "{:?}", r.note);
    // The program's state file naming the run shows it is the loop's.
    let state = state_file("perf.md", &perf_state("false", "—", "accepted", "✅ Accepted", "a1a1a1a", RUN));
    let r = replay_with(Some("autoloop/perf"), unmarked(), vec![state]);
    assert_eq!((r.outcome, r.iteration), (GateOutcome::Accepted, Some(true)));
    // A PR-health keeper (another workflow) pushing to the loop's branch is not the loop,
    // once the loop's own workflow is known (here by its marked program push).
    let commits = vec![
        by_loop("a1", 0, 1, Some(red("a1", 10, "TS1"))),
        C { sha: "b1b1b1b", minute: Some(20), author: Some(LOOP), message: Some("fix: make CI green".into()), ci: Some(green("b1b1b1b", 30)) },
    ];
    let idx = index(Some("autoloop/perf"), &commits, vec![]);
    let outs = [
        output(RUN, "autoloop", "create_pull_request", json!({})),
        output("800", "evergreen", "push_to_pull_request_branch", json!({"commit_sha": "b1b1b1b", "message": "fix: make CI green"})),
    ];
    let all = replays(&idx, &outs).replays;
    let keeper = all.iter().find(|r| r.run_id == "800").unwrap();
    assert_eq!((keeper.outcome, keeper.iteration), (GateOutcome::NotAnIteration, Some(false)));
    assert_eq!(keeper.note.as_deref(), Some("pushed by workflow evergreen; the loop of perf is autoloop"));
    // Its commit is no fix attempt of the loop's iteration either.
    let it = all.iter().find(|r| r.run_id == RUN).unwrap();
    assert_eq!((it.outcome, it.other_commits, it.steps[1].pusher), (GateOutcome::RedUnresolved, 1, Pusher::OtherAutomation));
}

/// Fix attempts are the loop's own commits of the iteration; commits by people or other
/// bots are skipped; the loop's next iteration ends it; a commit whose pusher cannot be
/// told is unknown, not a guess.
#[test]
fn fix_attempts_are_the_loops_own_commits() {
    let first = || by_loop("a1", 0, 4, Some(red("a1", 10, "TS1")));
    // A person's green commit is skipped; the loop's fix after it is fix attempt 1.
    let r = replay(vec![
        first(),
        C { sha: "h1", minute: Some(15), author: Some("alice"), message: Some("tweak".into()), ci: Some(green("h1", 18)) },
        by_loop("a2", 20, 4, Some(green("a2", 30))),
    ]);
    assert_eq!((r.outcome, r.fix_attempts, r.other_commits, r.accepted_sha.as_deref()), (GateOutcome::Accepted, 1, 1, Some("a2")));
    assert_eq!((r.steps[1].pusher, r.steps[1].decision.as_str()), (Pusher::Person, "not a fix attempt: by alice, a person"));
    // Another bot's commit is no fix attempt: red, nothing else, unresolved.
    let r = replay(vec![first(), C { sha: "d1", minute: Some(15), author: Some("dependabot[bot]"), message: Some("bump".into()), ci: Some(green("d1", 18)) }]);
    assert_eq!((r.outcome, r.other_commits, r.steps[1].pusher), (GateOutcome::RedUnresolved, 1, Pusher::OtherAutomation));
    // The loop's next iteration (another run) is no fix attempt: the same failure there is
    // not "stuck".
    let next = format!("[Autoloop: perf] Iteration 5: more\n\nRun: https://github.com/{REPO}/actions/runs/701");
    let r = replay(vec![first(), C { message: Some(next), ..by_loop("n1", 15, 5, Some(red("n1", 18, "TS1"))) }]);
    assert_eq!((r.outcome, r.fix_attempts, r.steps[1].pusher), (GateOutcome::RedUnresolved, 0, Pusher::LoopNextIteration));
    // A fix linked to the iteration's run (autoloop's `Run:` line) is the loop's, marked or not.
    let linked = format!("fix the type error\n\nRun: https://github.com/{REPO}/actions/runs/{RUN}");
    let r = replay(vec![first(), C { sha: "a2", minute: Some(20), author: Some(LOOP), message: Some(linked), ci: Some(green("a2", 30)) }]);
    assert_eq!((r.outcome, r.fix_attempts), (GateOutcome::Accepted, 1));
    // An unmarked commit under the login the loop commits as may be a fix: unknown.
    let r = replay(vec![first(), C { sha: "u1", minute: Some(20), author: Some(LOOP), message: Some("fix".into()), ci: Some(green("u1", 30)) }]);
    assert_eq!((r.outcome, r.steps[1].pusher, r.accepted_sha, r.fix_attempts), (GateOutcome::PusherUnknown, Pusher::Unknown, None, 0));
    // No message and no author login captured: unknown too.
    let r = replay(vec![first(), C { sha: "u2", minute: Some(20), author: None, message: None, ci: Some(green("u2", 30)) }]);
    assert_eq!(r.outcome, GateOutcome::PusherUnknown);
    // A head force-pushed by a person (a timeline event in GitHub's shape,
    // shared/formats/github-rest/issues_N_timeline.json): skipped, as a person's commit.
    let mut event: Value = std::fs::read_to_string(super::support::root().join("../shared/formats/github-rest/issues_N_timeline.json"))
        .ok()
        .and_then(|t| serde_json::from_str::<Value>(&t).ok())
        .and_then(|v| v.get(0).cloned())
        .unwrap_or_else(|| json!({}));
    event["event"] = json!("head_ref_force_pushed");
    event["commit_id"] = json!("f0f0f0f0");
    event["created_at"] = json!(at(15));
    event["actor"] = json!({"login": "alice", "type": "User"});
    let ci = vec![(format!("repos/{REPO}/commits/f0f0f0f0/check-runs"), green("f0f0f0f0", 18))];
    let timeline = (format!("repos/{REPO}/issues/1/timeline"), json!([event]));
    let r = replay_with(Some("autoloop/perf"), vec![first(), by_loop("a2", 20, 4, Some(green("a2", 30)))], [ci, vec![timeline]].concat());
    assert_eq!((r.outcome, r.fix_attempts, r.other_commits), (GateOutcome::Accepted, 1, 1));
    assert_eq!((r.steps[1].sha.as_str(), r.steps[1].author.as_deref(), r.steps[1].pusher), ("f0f0f0f0", Some("alice"), Pusher::Person));
    // Marked for the program without a run or an iteration number, after a push with one:
    // which iteration it belongs to is unknown.
    let r =
        replay(vec![first(), C { sha: "m1", minute: Some(20), author: Some(LOOP), message: Some("[Autoloop: perf] fix".into()), ci: Some(green("m1", 30)) }]);
    assert_eq!(r.outcome, GateOutcome::PusherUnknown);
}

/// A push's check runs captured in two pages (each in GitHub's `{"total_count",
/// "check_runs"}` shape, the second with `"page": 2`): the gate reads every page, as
/// convert's `ci_commits` reduction does, so a check failing on the second page makes the
/// push red (read from the first page alone, it was green and accepted).
#[test]
fn every_page_of_a_pushs_check_runs_counts() {
    use hindsight::snapshot::ci::{self, CiState, CommitCi};
    let (page1, page2) = (green("a1", 10), red("a1", 12, "TS2339"));
    let commits = [by_loop("a1", 0, 4, Some(page1.clone()))];
    let mut captures = rows(Some("autoloop/perf"), &commits, vec![]);
    captures.push((format!("repos/{REPO}/commits/a1/check-runs"), 2, 200, None, page2.to_string()));
    let idx = SnapshotIndex::build(captures);
    // Convert's reduction: each page's check runs, one after the other.
    let every_page: Vec<ci::Check> = [ci::check_runs(&page1), ci::check_runs(&page2)].concat();
    let convert = CommitCi::of(Some(&every_page));
    assert_eq!((convert.state, convert.checks, convert.failing), (CiState::Failure, 2, 1));
    assert_eq!(CommitCi::in_index(&idx, REPO, "a1"), convert);
    let r = replays(&idx, &[output(RUN, "autoloop", "create_pull_request", json!({}))]).replays;
    assert_eq!((r[0].outcome, r[0].steps[0].ci), (GateOutcome::RedUnresolved, CiState::Failure));
}

/// The 60-minute clock starts at the program push, not at the output's (the iteration's)
/// time; a fix pushed after the cap is ci-timeout without its CI; a push with no time
/// leaves the clock unknown.
#[test]
fn the_clock_starts_at_the_push() {
    let pushed_with = |commits: Vec<C>, sha: &str, extra: Vec<(String, Value)>| -> Replay {
        let idx = index(Some("autoloop/perf"), &commits, extra);
        // The output was recorded at 00:00; its push is the commit it recorded.
        replays(&idx, &[output(RUN, "autoloop", "push_to_pull_request_branch", json!({"commit_sha": sha}))]).replays.remove(0)
    };
    let pushed = |commits: Vec<C>, sha: &str| pushed_with(commits, sha, vec![]);
    // Pushed at 00:30, green at 01:20: 50 minutes from the push (80 from the output).
    let r = pushed(
        vec![
            by_loop("b0b0b0b", 0, 6, Some(green("b0b0b0b", 5))),
            by_loop("b1b1b1b", 30, 7, Some(red("b1b1b1b", 40, "TS1"))),
            by_loop("b2b2b2b", 60, 7, Some(green("b2b2b2b", 80))),
        ],
        "b1b1b1b",
    );
    assert_eq!((r.outcome, r.fix_attempts, r.steps[0].sha.as_str()), (GateOutcome::Accepted, 1, "b1b1b1b"));
    // A fix pushed 65 minutes after the program push: the cap passed before it.
    let r = pushed(vec![by_loop("b1b1b1b", 0, 7, Some(red("b1b1b1b", 10, "TS1"))), by_loop("b2b2b2b", 65, 7, None)], "b1b1b1b");
    assert_eq!((r.outcome, r.pause_reason.as_deref()), (GateOutcome::CiTimeout, Some("ci-timeout")));
    // The program push has no date: whether the cap held cannot be told.
    let r = pushed(vec![C { minute: None, ..by_loop("b1b1b1b", 0, 7, Some(green("b1b1b1b", 10))) }], "b1b1b1b");
    assert_eq!(r.outcome, GateOutcome::ClockUnknown);
    // A recorded commit the PR's list does not hold: the program push is unknown (the run
    // is the loop's by its state file), and nothing shows the loop without it.
    let commits = || vec![by_loop("b1b1b1b", 0, 7, Some(green("b1b1b1b", 10)))];
    let state = state_file("perf.md", &perf_state("false", "—", "accepted", "✅ Accepted", "ffffff0", RUN));
    let r = pushed_with(commits(), "ffffff0", vec![state]);
    assert_eq!((r.outcome, r.iteration), (GateOutcome::PushUnknown, Some(true)));
    assert_eq!(pushed(commits(), "ffffff0").outcome, GateOutcome::LoopUnknown);
}

/// The state file's recorded status, pause and pause reason beside the gate's conclusion
/// for the iteration its newest entry describes.
#[test]
fn the_loops_state_file_beside_the_replay() {
    let accepted = || vec![by_loop("a1a1a1a", 0, 7, Some(red("a1a1a1a", 10, "TS1"))), by_loop("a2a2a2a", 20, 7, Some(green("a2a2a2a", 30)))];
    let stuck = || vec![by_loop("c1c1c1c", 0, 7, Some(red("c1c1c1c", 10, "TS1"))), by_loop("c2c2c2c", 20, 7, Some(red("c2c2c2c", 30, "TS1")))];
    let run = |commits: Vec<C>, md: String| -> (Replay, Value) {
        let idx = index(Some("autoloop/perf"), &commits, vec![state_file("perf.md", &md)]);
        let all = replays(&idx, &[output(RUN, "autoloop", "create_pull_request", json!({}))]);
        assert_eq!(all.loop_states.len(), 1);
        let s = &all.loop_states[0];
        let row = json!({"comparison": s.comparison.map(|c| c.as_str()), "detail": s.detail, "linked": s.safe_output_id, "gate_status": s.gate_status});
        (all.replays[0].clone(), row)
    };
    // Accepted after a fix, and the loop says so: agrees.
    let (r, s) = run(accepted(), perf_state("false", "—", "rejected, accepted", "✅ Accepted", "a2a2a2a", RUN));
    assert_eq!((r.loop_status.as_deref(), r.loop_check), (Some("accepted"), Some(Check::Agrees)));
    assert_eq!((s["comparison"].as_str(), s["gate_status"].as_str()), (Some("agrees"), Some("accepted")));
    assert_eq!(s["linked"], json!(r.safe_output_id));
    // Stuck, and the loop paused with the same kind of reason (its own signature), its
    // status the coarse ci-fix-exhausted: agrees.
    let (_, s) = run(stuck(), perf_state("true", "stuck in CI fix loop: TS1:fromArrays", "accepted, ci-fix-exhausted", "ci-fix-exhausted", "c2c2c2c", RUN));
    assert_eq!(s["comparison"], "agrees", "{s}");
    // Stuck, but the loop accepted and did not pause: disagrees on both.
    let (r, s) = run(stuck(), perf_state("false", "—", "accepted", "✅ Accepted", "c1c1c1c", RUN));
    assert_eq!((r.loop_check, r.accepted_while_ci_red), (Some(Check::Disagrees), true));
    assert_eq!(s["comparison"], "disagrees");
    assert!(s["detail"].as_str().is_some_and(|d| d.contains("not paused; the gate pauses: stuck in CI fix loop")), "{s}");
    // Paused for another reason than the gate's: disagrees.
    let (_, s) = run(stuck(), perf_state("true", "ci-timeout", "ci-fix-exhausted", "ci-fix-exhausted", "c2c2c2c", RUN));
    assert_eq!(s["comparison"], "disagrees");
    // The loop recorded `⏳ Pending CI` (as githubnext/tsb's loop does) where the gate waits
    // and accepts: disagrees.
    let (r, s) = run(accepted(), perf_state("false", "—", "accepted, pending-ci", "⏳ Pending CI", "a1a1a1a", RUN));
    assert_eq!((r.loop_status.as_deref(), r.loop_check, s["comparison"].as_str()), (Some("pending-ci"), Some(Check::Disagrees), Some("disagrees")));
    // Recent Statuses ending otherwise than the newest entry: the file contradicts itself.
    let (_, s) = run(accepted(), perf_state("false", "—", "accepted, accepted", "⏳ Pending CI", "a1a1a1a", RUN));
    assert_eq!(s["comparison"], "unknown");
    assert!(s["detail"].as_str().is_some_and(|d| d.contains("contradicts itself")), "{s}");
    // A newest entry of a run that was not replayed: unknown.
    let (r, s) = run(accepted(), perf_state("false", "—", "accepted", "✅ Accepted", "bbbbbbb", "999"));
    assert_eq!((r.loop_status, s["comparison"].as_str(), s["linked"].is_null()), (None, Some("unknown"), true));
}

#[test]
fn the_demo_has_every_gate_outcome_and_the_dashboard_shows_them() {
    let tmp = tempfile::tempdir().unwrap();
    demo(tmp.path());
    let q = "SELECT pull_number, gate_outcome, fix_attempts, pause_reason, accepted_while_ci_red, loop_check, iteration FROM ci_gate ORDER BY pull_number";
    let rows: Vec<Value> = serde_json::from_str(&ok(&["report", "--dataset", "ds", "--sql", q, "--format", "json"], tmp.path())).unwrap();
    // The demo's other PRs are on agent/fix: not iterations.
    let (loops, others): (Vec<&Value>, Vec<&Value>) = rows.iter().partition(|r| r["pull_number"].as_i64() >= Some(130));
    assert!(others.iter().all(|r| r["gate_outcome"] == "not_an_iteration" && r["iteration"] == false), "{others:?}");
    let got: Vec<(i64, &str, i64, bool)> = loops
        .iter()
        .map(|r| {
            (
                r["pull_number"].as_i64().unwrap(),
                r["gate_outcome"].as_str().unwrap(),
                r["fix_attempts"].as_i64().unwrap(),
                r["accepted_while_ci_red"].as_bool().unwrap(),
            )
        })
        .collect();
    // As fixtures/make_demo.py's ci_loop lays them out.
    assert_eq!(
        got,
        [
            (130, "accepted", 0, false),
            (131, "accepted", 1, false),
            (132, "stuck", 1, false),
            (133, "ci-fix-exhausted", 5, false),
            (134, "ci-timeout", 2, false),
            (135, "red_unresolved", 0, true),
        ]
    );
    assert_eq!(loops[2]["pause_reason"], "stuck in CI fix loop: typecheck|TS2339:fromArrays:tests/stats/eval_query.test.ts");
    assert_eq!(loops[5]["loop_check"], "disagrees");
    // The dashboard, in JSON too, carries the figures.
    let dash: Value = serde_json::from_str(&ok(&["report", "--dataset", "ds", "--format", "json"], tmp.path())).unwrap();
    let g = &dash["ci_gate"][0];
    let figure = |k: &str| g[k].as_i64();
    assert_eq!((figure("outputs"), figure("iterations"), figure("iteration_unknown")), (Some(rows.len() as i64), Some(loops.len() as i64), Some(0)));
    assert_eq!((figure("accepted_while_ci_red"), figure("paused"), figure("accepted"), figure("loop_disagrees")), (Some(1), Some(3), Some(2), Some(1)));
    let outcomes: Vec<&str> = dash["ci_gate_outcomes"].as_array().unwrap().iter().map(|r| r["gate_outcome"].as_str().unwrap()).collect();
    for o in ["accepted", "ci-fix-exhausted", "stuck", "ci-timeout", "not_an_iteration"] {
        assert!(outcomes.contains(&o), "{outcomes:?}");
    }
    // The state file's record beside the gate: it says accepted where CI was red.
    let states = dash["ci_gate_loop_state"].as_array().unwrap();
    assert_eq!(states.len(), 1);
    assert_eq!(
        (states[0]["program"].as_str(), states[0]["loop_last_status"].as_str(), states[0]["comparison"].as_str()),
        (Some("perf"), Some("accepted"), Some("disagrees"))
    );
    let table = ok(&["report", "--dataset", "ds", "--format", "markdown"], tmp.path());
    assert!(table.contains("accepted_while_ci_red") && table.contains("CI gate replay against the loop's state file"));
    assert!(!table.contains("seed 00"));
}

/// The 60-minute clock starts when the iteration began (its run's start, aw_info.json
/// `created_at`), not at the program push: 30 minutes of agent work, then a push green 45
/// minutes later is past the cap. Without the run's start, the program push starts it.
#[test]
fn the_clock_starts_when_the_iteration_began() {
    let commits = vec![by_loop("h1", 30, 1, Some(green("h1", 75)))];
    let idx = index(Some("autoloop/perf"), &commits, vec![]);
    let outputs = [output(RUN, "autoloop", "create_pull_request", json!({}))];
    let refs: Vec<&SafeOutput> = outputs.iter().collect();
    let pushed_only = ci_gate::replay_all(&idx, &refs, &Default::default()).replays.remove(0);
    assert_eq!(pushed_only.outcome, GateOutcome::Accepted);
    let starts: ci_gate::RunStarts = [(RUN.to_string(), hindsight::time::parse(&at(0)).unwrap())].into_iter().collect();
    let started = ci_gate::replay_all(&idx, &refs, &starts).replays.remove(0);
    assert_eq!((started.outcome, started.pause_reason.as_deref()), (GateOutcome::CiTimeout, Some("ci-timeout")));
    // A start recorded after the push (clocks that disagree) is not used.
    let late: ci_gate::RunStarts = [(RUN.to_string(), hindsight::time::parse(&at(40)).unwrap())].into_iter().collect();
    assert_eq!(ci_gate::replay_all(&idx, &refs, &late).replays.remove(0).outcome, GateOutcome::Accepted);
}
