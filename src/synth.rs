//! `hindsight synth`: a deterministic synthetic study in the real input layouts, for
//! benchmarks and scale tests. Same arguments, same bytes.
//!
//! Each safe output gets a target with a timestamped history drawn from a seeded generator:
//! PRs merged or closed at some hour, issues closed, labelled or commented on, comments
//! answered or not, by a mix of people and bots. Bodies have every key GitHub's REST API
//! sends for their endpoint ([`real`]), so a benchmark pays what parsing real captures costs;
//! `--compact` writes only the keys the evaluator reads, with the same judged outcomes.
//! Outputs are grouped ten to a run; every tenth run has a trace. Files are written as they
//! are generated, so memory stays flat at any size.
//! `synth --aidev` writes an AIDev release instead ([`aidev`]).

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use chrono::{Duration, TimeZone, Utc};
use serde_json::{json, Value};

use crate::error::{Error, Result};

pub mod aidev;
mod real;

/// splitmix64: small, fast, and the same on every platform.
struct Rng(u64);

/// splitmix64's finalizer: every bit of `z` moves every bit of the result.
fn finalize(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d049bb133111eb);
    z ^ (z >> 31)
}

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e3779b97f4a7c15);
        finalize(self.0)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

const WORDS: &[&str] = &[
    "the", "parser", "returns", "null", "when", "config", "is", "empty", "cache", "layer", "retry", "timeout", "request", "handler", "fix", "test", "flaky",
    "module", "build", "error", "session", "token", "user", "input", "docs", "update", "refactor", "logging", "memory", "leak",
];
const PEOPLE: &[&str] = &["maria", "devin-h", "lee", "sam", "ana", "octo", "kim", "ravi"];
const BOTS: &[&str] = &["ci-reporter[bot]", "stale[bot]", "labeler[bot]", "dependabot[bot]"];
const WORKFLOWS: &[&str] = &["pr-fixer", "issue-triage", "commenter", "labeler", "push-helper"];

fn text(r: &mut Rng, min: u64, max: u64) -> String {
    let n = min + r.below(max - min + 1);
    let mut s = String::with_capacity(n as usize * 7);
    for i in 0..n {
        if i > 0 {
            s.push(if i % 12 == 0 { '\n' } else { ' ' });
        }
        s.push_str(WORDS[r.below(WORDS.len() as u64) as usize]);
    }
    s
}

fn user(login: &str) -> Value {
    json!({"login": login, "type": if login.ends_with("[bot]") { "Bot" } else { "User" }, "id": login.len() * 7919})
}

fn ts(t: chrono::DateTime<Utc>) -> String {
    crate::time::format(&t)
}

/// Parameters of a synthetic study.
#[derive(Clone, Debug)]
pub struct Spec {
    pub repos: u64,
    pub outputs: u64,
    pub seed: u64,
    /// Write the compact bodies (only the keys the evaluator reads) instead of real-shaped
    /// ones: smaller studies, the same outcomes.
    pub compact: bool,
}

/// What was written.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Written {
    pub outputs: u64,
    pub responses: u64,
    pub runs: u64,
    pub traces: u64,
    pub bytes: u64,
}

struct Sink {
    w: BufWriter<File>,
    bytes: u64,
}

impl Sink {
    fn create(p: &Path) -> Result<Sink> {
        let f = File::create(p).map_err(|e| Error::io(p, e))?;
        Ok(Sink { w: BufWriter::with_capacity(1 << 20, f), bytes: 0 })
    }
    fn line(&mut self, v: &Value, p: &Path) -> Result<()> {
        let s = serde_json::to_string(v)?;
        self.bytes += s.len() as u64 + 1;
        self.w.write_all(s.as_bytes()).and_then(|_| self.w.write_all(b"\n")).map_err(|e| Error::io(p, e))
    }
}

/// The largest study synth writes: 100 million outputs (a hundred times the largest
/// benchmark) in at most a million repositories (a counter each, held in memory). Beyond
/// that it is a typo, not a benchmark, and refused before anything is written.
pub(crate) const MAX_OUTPUTS: u64 = 100_000_000;
pub(crate) const MAX_REPOS: u64 = 1_000_000;

impl Spec {
    /// Refused before anything is written.
    pub fn validate(&self) -> Result<()> {
        if !(1..=MAX_REPOS).contains(&self.repos) {
            return Err(Error::Usage(format!("synth: --repos {} must be between 1 and {MAX_REPOS}", self.repos)));
        }
        if !(1..=MAX_OUTPUTS).contains(&self.outputs) {
            return Err(Error::Usage(format!("synth: --outputs {} must be between 1 and {MAX_OUTPUTS}", self.outputs)));
        }
        Ok(())
    }
}

pub fn generate(spec: &Spec, out: &Path) -> Result<Written> {
    spec.validate()?;
    let snap = out.join("snapshot");
    let runs_dir = out.join("runs");
    let traces_dir = out.join("traces");
    for d in [&snap, &runs_dir, &traces_dir] {
        std::fs::create_dir_all(d).map_err(|e| Error::io(d, e))?;
    }
    let captured = Utc.with_ymd_and_hms(2026, 6, 1, 0, 0, 0).single().unwrap_or_default();
    let info = json!({"format": "hindsight-snapshot/1", "captured_at": ts(captured), "source": format!("hindsight synth --repos {} --outputs {} --seed {}{}", spec.repos, spec.outputs, spec.seed, if spec.compact { " --compact" } else { "" })});
    std::fs::write(snap.join("snapshot.json"), serde_json::to_string_pretty(&info)? + "\n").map_err(|e| Error::io(&snap, e))?;

    let mut r = Rng(spec.seed);
    let mut written = Written::default();
    // One cassette per 100k outputs keeps files a size that splits well across readers.
    let per_file = 100_000u64;
    let mut cassette: Option<(Sink, std::path::PathBuf)> = None;
    let traces_path = traces_dir.join("sessions.jsonl");
    let mut traces = Sink::create(&traces_path)?;
    let mut number_in_repo = vec![0i64; spec.repos as usize];
    let mut run_items: Vec<Value> = Vec::new();
    let mut run_repo = String::new();
    let per_run = 10u64;
    for i in 0..spec.outputs {
        if i % per_file == 0 {
            if let Some((mut s, p)) = cassette.take() {
                s.w.flush().map_err(|e| Error::io(&p, e))?;
                written.bytes += s.bytes;
            }
            let p = snap.join(format!("capture-{:04}.jsonl", i / per_file + 1));
            cassette = Some((Sink::create(&p)?, p));
        }
        let Some((cas, cas_path)) = cassette.as_mut() else { continue };
        let repo_i = r.below(spec.repos) as usize;
        number_in_repo[repo_i] += 1;
        let t = captured - Duration::hours(24 * 5 + r.below(24 * 60) as i64);
        let kind = r.below(100);
        let person = PEOPLE[r.below(PEOPLE.len() as u64) as usize];
        let bot = BOTS[r.below(BOTS.len() as u64) as usize];
        let mut scene = Scene { compact: spec.compact, i, repo: format!("org{}/repo{}", repo_i % 97, repo_i), n: number_in_repo[repo_i], t, person, bot, cas, cas_path, written: &mut written };
        let mut item = if kind < 35 {
            scene.pull_request(&mut r)?
        } else if kind < 60 {
            scene.issue(&mut r)?
        } else if kind < 80 {
            scene.comment(&mut r)?
        } else if kind < 95 {
            scene.labels(&mut r)?
        } else {
            json!({"type": "noop", "message": "nothing to do", "timestamp": ts(t)})
        };
        item["id"] = json!(format!("so_{i}"));
        if run_items.is_empty() {
            run_repo = item.get("repo").and_then(Value::as_str).unwrap_or("org0/repo0").to_string();
        }
        run_items.push(item);
        written.outputs += 1;
        if run_items.len() as u64 == per_run || i + 1 == spec.outputs {
            let run_id = 100_000 + written.runs;
            written.bytes += write_run(&runs_dir, run_id, &run_repo, &mut run_items)?;
            if written.runs % 10 == 0 {
                traces.line(&session_trace(&mut r, run_id, &run_repo), &traces_path)?;
                written.traces += 1;
            }
            written.runs += 1;
        }
    }
    if let Some((mut s, p)) = cassette.take() {
        s.w.flush().map_err(|e| Error::io(&p, e))?;
        written.bytes += s.bytes;
    }
    traces.w.flush().map_err(|e| Error::io(&traces_path, e))?;
    written.bytes += traces.bytes;
    Ok(written)
}

/// One synthetic output's setting: where it lands and when, who may answer it, and the
/// cassette its captures go to.
struct Scene<'a> {
    /// Write the compact bodies as drawn, not shaped as real ones.
    compact: bool,
    i: u64,
    repo: String,
    n: i64,
    t: chrono::DateTime<Utc>,
    person: &'static str,
    bot: &'static str,
    cas: &'a mut Sink,
    cas_path: &'a Path,
    written: &'a mut Written,
}

impl Scene<'_> {
    /// `h` hours (and a minute) after the output.
    fn at(&self, h: u64) -> chrono::DateTime<Utc> {
        self.t + Duration::minutes((h * 60 + 1) as i64)
    }

    fn path(&self, tail: &str) -> String {
        format!("repos/{}/{tail}", self.repo)
    }

    /// Record GitHub's answer at `p` in the cassette.
    /// `compact` as drawn with `--compact`, else laid over its real shape by `real`.
    fn shaped(&self, compact: Value, real: impl FnOnce(&Value) -> Value) -> Value {
        if self.compact {
            compact
        } else {
            real(&compact)
        }
    }

    fn cap(&mut self, p: String, body: Value) -> Result<()> {
        self.written.responses += 1;
        self.cas.line(&json!({"path": p, "status": 200, "body": body}), self.cas_path)
    }

    /// A pull request the agent opened: merged, closed or open, with events and reviews.
    fn pull_request(&mut self, r: &mut Rng) -> Result<Value> {
        let (i, n, t, person, bot, repo) = (self.i, self.n, self.t, self.person, self.bot, self.repo.clone());
        let decided = r.below(24 * 10);
        let merged = r.chance(55);
        let closed = merged || r.chance(40);
        let title = text(r, 4, 9);
        let pr = json!({"number": n, "title": title, "body": text(r, 60, 400), "user": user("github-actions[bot]"), "state": if closed { "closed" } else { "open" },
            "created_at": ts(t), "updated_at": ts(if closed { self.at(decided) } else { t }), "merged": merged,
            "merged_at": if merged { Value::from(ts(self.at(decided))) } else { Value::Null }, "closed_at": if closed { Value::from(ts(self.at(decided))) } else { Value::Null },
            "merged_by": if merged { user(person) } else { Value::Null }, "merge_commit_sha": format!("{:040x}", r.next() as u128 * 31 + i as u128),
            "head": {"ref": format!("agent/{i}"), "sha": format!("{:040x}", r.next())}, "base": {"ref": "main"}, "draft": false, "labels": []});
        let (head_sha, merge_sha) = (pr["head"]["sha"].as_str().unwrap_or_default().to_string(), pr["merge_commit_sha"].as_str().map(str::to_string));
        let pr = self.shaped(pr, |v| real::pull(&repo, v));
        self.cap(self.path(&format!("pulls/{n}")), pr)?;
        let mut events = Vec::new();
        if closed {
            if merged {
                events.push(json!({"id": i * 10, "event": "merged", "actor": user(person), "created_at": ts(self.at(decided))}));
            }
            events.push(json!({"id": i * 10 + 1, "event": "closed", "actor": user(person), "created_at": ts(self.at(decided))}));
        }
        let events = self.shaped(Value::Array(events), |v| real::events(&repo, v, merge_sha.as_deref()));
        self.cap(self.path(&format!("issues/{n}/events")), events)?;
        let reviews: Vec<Value> = (0..r.below(3))
            .map(|k| json!({"id": i * 10 + k, "user": user(if r.chance(70) { person } else { bot }), "state": if r.chance(60) { "APPROVED" } else { "COMMENTED" }, "submitted_at": ts(self.at(r.below(decided.max(1)))), "body": text(r, 5, 40)}))
            .collect();
        let reviews = self.shaped(Value::Array(reviews), |v| real::reviews(&repo, n, v, &head_sha));
        self.cap(self.path(&format!("pulls/{n}/reviews")), reviews)?;
        Ok(json!({"type": "create_pull_request", "url": format!("https://github.com/{repo}/pull/{n}"), "number": n, "repo": repo, "timestamp": ts(t)}))
    }

    /// An issue the agent opened: closed as completed or not planned, or left open, with
    /// labels and comments.
    fn issue(&mut self, r: &mut Rng) -> Result<Value> {
        let (i, n, t, person, bot, repo) = (self.i, self.n, self.t, self.person, self.bot, self.repo.clone());
        let decided = r.below(24 * 14);
        let closed = r.chance(50);
        let reason = if r.chance(65) { "completed" } else { "not_planned" };
        let issue = json!({"number": n, "title": text(r, 4, 9), "body": text(r, 80, 500), "user": user("github-actions[bot]"), "state": if closed { "closed" } else { "open" },
            "state_reason": if closed { Value::from(reason) } else { Value::Null }, "created_at": ts(t), "updated_at": ts(self.at(decided)),
            "closed_at": if closed { Value::from(ts(self.at(decided))) } else { Value::Null }, "labels": [], "assignees": [], "comments": 0});
        let issue = self.shaped(issue, |v| real::issue(&repo, v));
        self.cap(self.path(&format!("issues/{n}")), issue)?;
        let mut events = Vec::new();
        if r.chance(40) {
            events.push(json!({"id": i * 10, "event": "labeled", "actor": user(if r.chance(50) { person } else { bot }), "label": {"name": "bug"}, "created_at": ts(self.at(r.below(48)))}));
        }
        if closed {
            events.push(json!({"id": i * 10 + 1, "event": "closed", "actor": user(if r.chance(85) { person } else { "stale[bot]" }), "state_reason": reason, "created_at": ts(self.at(decided))}));
        }
        let events = self.shaped(Value::Array(events), |v| real::events(&repo, v, None));
        self.cap(self.path(&format!("issues/{n}/events")), events)?;
        let comments: Vec<Value> = (0..r.below(4))
            .map(|k| json!({"id": i * 10 + k, "user": user(if r.chance(60) { person } else { bot }), "created_at": ts(self.at(r.below(200))), "body": text(r, 10, 120)}))
            .collect();
        let comments = self.shaped(Value::Array(comments), |v| real::comments(&repo, n, v));
        self.cap(self.path(&format!("issues/{n}/comments")), comments)?;
        Ok(json!({"type": "create_issue", "url": format!("https://github.com/{repo}/issues/{n}"), "number": n, "repo": repo, "timestamp": ts(t)}))
    }

    /// A comment the agent added on an existing issue, sometimes answered by a person.
    fn comment(&mut self, r: &mut Rng) -> Result<Value> {
        let (i, n, t, person, repo) = (self.i, self.n, self.t, self.person, self.repo.clone());
        let cid = 1_000_000 + i as i64;
        let mut comments = vec![
            json!({"id": cid, "user": user("github-actions[bot]"), "created_at": ts(t), "body": text(r, 20, 200), "reactions": {"total_count": 0}}),
        ];
        if r.chance(45) {
            comments.push(json!({"id": cid + 1, "user": user(person), "created_at": ts(self.at(r.below(96))), "body": text(r, 5, 60)}));
        }
        let comments = self.shaped(Value::Array(comments), |v| real::comments(&repo, n, v));
        self.cap(self.path(&format!("issues/{n}/comments")), comments)?;
        Ok(json!({"type": "add_comment", "url": format!("https://github.com/{repo}/issues/{n}#issuecomment-{cid}"), "repo": repo, "timestamp": ts(t)}))
    }

    /// A label the agent added, sometimes removed again by a person.
    fn labels(&mut self, r: &mut Rng) -> Result<Value> {
        let (i, n, t, person, repo) = (self.i, self.n, self.t, self.person, self.repo.clone());
        let removed = r.chance(25);
        let labels = if removed { json!([{"name": "triage"}]) } else { json!([{"name": "triage"}, {"name": "bug"}]) };
        let labels = self.shaped(labels, |v| real::labels(&repo, v));
        self.cap(self.path(&format!("issues/{n}/labels")), labels)?;
        let mut events = vec![json!({"id": i * 10, "event": "labeled", "actor": user("github-actions[bot]"), "label": {"name": "bug"}, "created_at": ts(t)})];
        if removed {
            events.push(json!({"id": i * 10 + 1, "event": "unlabeled", "actor": user(person), "label": {"name": "bug"}, "created_at": ts(self.at(r.below(72)))}));
        }
        let events = self.shaped(Value::Array(events), |v| real::events(&repo, v, None));
        self.cap(self.path(&format!("issues/{n}/events")), events)?;
        Ok(json!({"type": "add_labels", "number": n, "repo": repo, "timestamp": ts(t), "labelsAdded": ["bug"]}))
    }
}

/// Write one run's folder (`aw_info.json`, `safe-output-items.jsonl`), draining its items;
/// the bytes of its items.
fn write_run(runs_dir: &Path, run_id: u64, run_repo: &str, run_items: &mut Vec<Value>) -> Result<u64> {
    let dir = runs_dir.join(format!("run-{run_id}"));
    std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
    let wf = WORKFLOWS[(run_id % WORKFLOWS.len() as u64) as usize];
    let aw = json!({"run_id": run_id, "workflow_name": wf, "repository": run_repo, "actor": "github-actions[bot]"});
    std::fs::write(dir.join("aw_info.json"), serde_json::to_string(&aw)? + "\n").map_err(|e| Error::io(&dir, e))?;
    let mut lines = String::new();
    for it in run_items.drain(..) {
        lines.push_str(&serde_json::to_string(&it)?);
        lines.push('\n');
    }
    let bytes = lines.len() as u64;
    std::fs::write(dir.join("safe-output-items.jsonl"), lines).map_err(|e| Error::io(&dir, e))?;
    Ok(bytes)
}

/// The agent session trace of a run (every tenth run has one).
fn session_trace(r: &mut Rng, run_id: u64, run_repo: &str) -> Value {
    json!({"schema_version": "0.2.0", "trace_id": format!("00000000-0000-4000-8000-{:012}", run_id), "session_id": format!("s{run_id}"),
        "agent": {"name": "claude-code"}, "execution_context": "devtime", "task": {"description": text(r, 5, 20), "repository": run_repo},
        "steps": [{"step_index": 1, "role": "user", "content": text(r, 5, 30)}], "metadata": {"run_id": run_id.to_string()}})
}
