//! Attach: link traces to the safe outputs they produced, and write opentraces `outcome`
//! and `attribution` blocks from what the repository did.
//!
//! Links, in order of precedence (the first kind that finds outputs wins):
//! 1. `run_id`: a run id or run URL in the trace's `metadata` (`run_id`, `gh_aw_run_id`,
//!    `github_run_id`, `run_url`, `workflow_run_url`) names a run of the dataset;
//! 2. `commit_sha`: a commit the trace made (`outcome.commit_sha`, `metadata.commit_shas`,
//!    `git_links[].revision` from 0.3, `patches[].anchor.commit_sha` and `superseded_by`
//!    from 0.6) is the head, merge commit or one of the commits of a pull request in the
//!    snapshot;
//! 3. `repository_pr`: the trace's `task.repository` plus a PR it names
//!    (`metadata.pull_request_number`, `metadata.pr_number`, or a PR URL in
//!    `metadata.pull_request_url` or `task.description`).
//!
//! Outcome merge rule (`fill_missing`): a value the trace already had is never replaced.
//! Empty fields (`null`; `committed: false` with no `commit_sha`) are filled; where the
//! trace's own value disagrees with the repository, the trace keeps it and the
//! disagreement is recorded. `signal_source` (`deterministic`, the word of docs/SPEC.md
//! [SPEC-TRACES-OUTCOME]) and `signal_confidence` follow whoever set `success`. Everything
//! used (outputs, window, status, strength, signal, links) goes into `metadata.hindsight`.
//! The blocks are written in the shape of the version the record declares
//! ([`crate::traces::version`]): no `outcome.patch` from 0.6, attribution's fidelity fields
//! from 0.3.
//!
//! Devtime mapping: a code-changing output (PR created, pushed to, merged, autofix)
//! accepted with strong or medium evidence -> `success: true`; rejected or ignored ->
//! `false`; pending or unknown -> `null`; merged -> `committed: true` with the merge commit.
//!
//! Runtime mapping: `terminal_state` says how the trajectory ended, first as the trace
//! records it (its last step's tool call left without result, opentraces' `no_result` ->
//! `interrupted`; failing with another error -> `error`), else as the deciding output shows:
//! accepted -> `goal_reached`; rejected or ignored, or the agent reporting it could not go
//! on (`missing_tool`, `missing_data`, `report_incomplete`) -> `abandoned`; never carried out
//! (`not_executed`) -> `error`; pending, staged, unknown or `noop` -> `null`. `reward` 1.0
//! (accepted, strong), 0.5 (accepted, medium), 0.25 (accepted, weak), 0.0 (rejected,
//! ignored); `reward_source: human_annotation` (the decisions are people's, observed in the
//! repository). What decided `terminal_state` is `metadata.hindsight.terminal_state_evidence`.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use serde_json::{json, Map, Value};

use crate::dataset::manifest::{Manifest, TableEntry};
use crate::dataset::read::{batches, Cols};
use crate::error::{Error, Result};
use crate::evaluate::Window;
use crate::json::{as_int, str_at};
use crate::runs::SafeOutput;
pub use crate::snapshot::paths::{self, Resource};
use crate::dataset::read::RepoIndexes;
use crate::snapshot::sha::Sha;
use crate::snapshot::SnapshotIndex;
use crate::table::{os, s, Kind, Table};
pub use crate::traces::version::Shape;
use crate::traces::{attribution, hash};

const CODE_CHANGING: &[&str] =
    &["create_pull_request", "push_to_pull_request_branch", "merge_pull_request", "autofix_code_scanning_alert", "update_pull_request"];
const MERGE_SIGNALS: &[&str] = &[
    "pull_request_merged",
    "pushed_commits_merged",
    "pushed_commits_modified_then_merged",
    "merge_stood",
    "approved_and_merged",
    "state_retained_and_merged",
    "agent_pr_merged",
    "autofix_pr_merged_alert_fixed",
];

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Link {
    pub(crate) trace_id: String,
    pub safe_output_id: Option<String>,
    pub(crate) kind: Option<&'static str>,
    pub(crate) evidence: String,
}

/// Options of the attach stage.
#[derive(Clone, Debug)]
pub struct Options {
    pub window: Window,
    pub rebuild_attribution: bool,
    /// `--out` may replace an existing file (never an input or a dataset table).
    pub force: bool,
}

impl Options {
    /// The window must be one the dataset was evaluated in (manifest.json `windows`);
    /// any other would fill every outcome block with null.
    pub fn check_evaluated(&self, dataset: &Path, manifest: &Manifest) -> Result<()> {
        let evaluated: Vec<Window> = manifest.windows.iter().filter_map(|w| w.parse().ok()).collect();
        if evaluated.contains(&self.window) {
            return Ok(());
        }
        let message = if manifest.windows.is_empty() {
            format!("attach --window {}: the dataset has not been evaluated (manifest.json lists no windows); run `hindsight evaluate` first", self.window)
        } else {
            format!("attach --window {}: the dataset was evaluated in {} only", self.window, manifest.windows.join(", "))
        };
        Err(Error::Dataset { path: dataset.join("manifest.json"), message })
    }
}

impl Default for Options {
    fn default() -> Self {
        Options { window: Window::ONE_WEEK, rebuild_attribution: false, force: false }
    }
}

struct Outcome {
    status: String,
    strength: String,
    signal: String,
}

fn pr_from_text(text: &str) -> Option<(String, i64)> {
    let i = text.find("github.com/")?;
    let t = crate::snapshot::paths::parse_url(&format!("https://{}", &text[i..].split_whitespace().next()?));
    match (t.repo, t.kind, t.number) {
        (Some(r), Some("pull_request"), Some(n)) => Some((r, n)),
        _ => None,
    }
}

/// What attach needs of the snapshot's pull requests: the SHAs that identify each (head,
/// merge commit, its commits) and its merge commit. Built one repository at a time, so
/// memory holds one repository's bodies, never the snapshot's.
#[derive(Default)]
struct PullRequests {
    shas: BTreeMap<(String, i64), Vec<String>>,
    merge_commit: HashMap<(String, i64), String>,
    /// SHA -> the PRs it identifies; sorted, so the SHAs an abbreviation starts are together.
    by_sha: BTreeMap<Sha, Vec<(String, i64)>>,
}

impl PullRequests {
    fn add(&mut self, index: &SnapshotIndex) {
        let mut keys: Vec<&String> = index.entries.keys().collect();
        keys.sort();
        for k in keys {
            let e = &index.entries[k];
            if !e.ok() {
                continue;
            }
            match paths::parse(k) {
                Some((repo, Resource::Pull(n))) => {
                    let pr = e.pull();
                    if let Some(m) = &pr.merge_commit_sha {
                        self.merge_commit.insert((repo.to_string(), n), m.clone());
                    }
                    let v = self.shas.entry((repo.to_string(), n)).or_default();
                    v.extend(pr.head_sha.clone());
                    v.extend(pr.merge_commit_sha.clone());
                }
                Some((repo, Resource::PullCommits(n))) => {
                    self.shas.entry((repo.to_string(), n)).or_default().extend(e.commits().iter().filter_map(|c| c.sha.clone()));
                }
                _ => {}
            }
        }
    }

    fn finish(mut self) -> Self {
        for (pr, shas) in &self.shas {
            for sha in shas.iter().filter_map(|s| Sha::parse(s)) {
                let v = self.by_sha.entry(sha).or_default();
                if !v.contains(pr) {
                    v.push(pr.clone());
                }
            }
        }
        self
    }

    /// The PRs a SHA identifies ([`Sha::matches`]: the same full SHA, or one an abbreviation
    /// of the other), in (repository, number) order.
    fn with_sha(&self, sha: &str) -> Vec<&(String, i64)> {
        let mut out: Vec<&(String, i64)> = Vec::new();
        let Some(s) = Sha::parse(sha) else { return out };
        // SHAs that start with it (itself included), then the abbreviations it starts with.
        let longer = self.by_sha.range(s.clone()..).take_while(|(k, _)| k.as_str().starts_with(s.as_str()));
        let shorter = s.abbreviations().filter_map(|p| self.by_sha.get_key_value(&p));
        for (k, prs) in longer.chain(shorter) {
            if k.matches(&s) {
                out.extend(prs);
            }
        }
        out.sort();
        out.dedup();
        out
    }
}

/// The dataset's safe outputs, found by run and by target.
struct Outputs {
    all: Vec<SafeOutput<'static>>,
    by_run: HashMap<String, Vec<usize>>,
    by_target: HashMap<(String, i64), Vec<usize>>,
}

impl Outputs {
    fn new(all: Vec<SafeOutput<'static>>) -> Outputs {
        let mut by_run: HashMap<String, Vec<usize>> = HashMap::new();
        let mut by_target: HashMap<(String, i64), Vec<usize>> = HashMap::new();
        for (i, o) in all.iter().enumerate() {
            by_run.entry(o.run_id.to_string()).or_default().push(i);
            if let (Some(r), Some(n)) = (&o.target_repo, o.target_number) {
                by_target.entry((r.to_string(), n)).or_default().push(i);
            }
        }
        Outputs { all, by_run, by_target }
    }

    fn of_target(&self, repo: &str, n: i64) -> impl Iterator<Item = &SafeOutput<'static>> {
        self.by_target.get(&(repo.to_string(), n)).into_iter().flatten().map(|&i| &self.all[i])
    }
}

/// The commits a trace says it made: `outcome.commit_sha`, `metadata.commit_shas`, and from
/// 0.3 `git_links[].revision`, from 0.6 each of `patches[]`'s `anchor.commit_sha` and
/// `superseded_by`. Each once, in that order.
fn trace_commits(rec: &Value, meta: &Value) -> Vec<String> {
    let mut shas: Vec<String> = rec.get("outcome").and_then(|o| str_at(o, "commit_sha")).map(str::to_string).into_iter().collect();
    shas.extend(meta.get("commit_shas").and_then(crate::json::names).unwrap_or_default());
    let list = |k: &str| rec.get(k).and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[]);
    shas.extend(list("git_links").iter().filter_map(|l| str_at(l, "revision")).map(str::to_string));
    for p in list("patches") {
        shas.extend(p.get("anchor").and_then(|a| str_at(a, "commit_sha")).map(str::to_string));
        shas.extend(p.get("superseded_by").and_then(crate::json::names).unwrap_or_default());
    }
    let mut seen = std::collections::HashSet::new();
    shas.retain(|s| seen.insert(s.clone()));
    shas
}

/// Links of one trace (one row per linked output, or one unlinked row with the reason).
fn link(rec: &Value, text: &str, trace_id: &str, outputs: &Outputs, prs: &PullRequests) -> Vec<Link> {
    let meta = rec.get("metadata").cloned().unwrap_or(Value::Null);
    let meta_text = crate::json::members(text).and_then(|m| m.get("metadata")).and_then(|m| crate::json::members(m.get()));
    let mk = |so: &SafeOutput, kind: &'static str, ev: String| Link {
        trace_id: trace_id.into(),
        safe_output_id: Some(so.safe_output_id.to_string()),
        kind: Some(kind),
        evidence: ev,
    };
    // 1. run id
    let mut run_ids: Vec<String> = ["run_id", "gh_aw_run_id", "github_run_id", "workflow_run_id"]
        .iter()
        .filter_map(|k| Some((meta.get(*k)?, meta_text.as_ref().and_then(|m| m.get(k)))))
        // A numeric id as written: beyond 64 bits a float reading would change its digits.
        .filter_map(|(v, raw)| {
            v.as_str()
                .map(str::to_string)
                .or_else(|| v.is_number().then(|| raw.map(|r| r.get().to_string())).flatten())
                .or_else(|| as_int(v).map(|n| n.to_string()))
        })
        .collect();
    for k in ["run_url", "workflow_run_url"] {
        if let Some(u) = str_at(&meta, k) {
            if let Some(id) = u.split("/actions/runs/").nth(1).and_then(|r| r.split('/').next()) {
                run_ids.push(id.to_string());
            }
        }
    }
    // In the outputs' order, as a filter over them gives.
    let mut in_runs: Vec<usize> =
        run_ids.iter().collect::<std::collections::BTreeSet<_>>().into_iter().flat_map(|r| outputs.by_run.get(r).into_iter().flatten().copied()).collect();
    in_runs.sort_unstable();
    let hits: Vec<Link> = in_runs.into_iter().map(|i| &outputs.all[i]).map(|o| mk(o, "run_id", format!("run {}", o.run_id))).collect();
    if !hits.is_empty() {
        return hits;
    }
    // 2. commit SHAs the trace made that are in a PR of the snapshot
    let shas = trace_commits(rec, &meta);
    let mut hits = Vec::new();
    for sha in &shas {
        for (repo, n) in prs.with_sha(sha) {
            for o in outputs.of_target(repo, *n) {
                hits.push(mk(o, "commit_sha", format!("commit {sha} in {repo}#{n}")));
            }
        }
    }
    if !hits.is_empty() {
        hits.dedup_by(|a, b| a.safe_output_id == b.safe_output_id);
        return hits;
    }
    // 3. repository + PR number named in the trace
    let repo = rec.get("task").and_then(|t| str_at(t, "repository")).map(str::to_string);
    let named =
        ["pull_request_number", "pr_number", "pull_request"].iter().filter_map(|k| meta.get(*k)).find_map(as_int).map(|n| (repo.clone(), n)).or_else(|| {
            str_at(&meta, "pull_request_url")
                .and_then(pr_from_text)
                .or_else(|| rec.get("task").and_then(|t| str_at(t, "description")).and_then(pr_from_text))
                .map(|(r, n)| (Some(r), n))
        });
    if let Some((Some(r), n)) = &named {
        let hits: Vec<Link> = outputs.of_target(r, *n).map(|o| mk(o, "repository_pr", format!("{r}#{n}"))).collect();
        if !hits.is_empty() {
            return hits;
        }
    }
    let why = match (run_ids.is_empty(), shas.is_empty(), &named) {
        (false, _, _) => format!("run id {} is not in the dataset", run_ids.join(", ")),
        (_, false, _) => format!("commit {} is in no pull request of the snapshot", shas.join(", ")),
        (_, _, Some((Some(r), n))) => format!("{r}#{n} is the target of no safe output"),
        (_, _, Some((None, n))) => format!("PR #{n} is named but the trace's task.repository is not"),
        _ => "no run id, commit SHA or pull request in the trace".to_string(),
    };
    vec![Link { trace_id: trace_id.into(), safe_output_id: None, kind: None, evidence: why }]
}

fn read_outcomes(dataset: &Path, window: &str) -> Result<HashMap<String, Outcome>> {
    let mut out = HashMap::new();
    for b in batches(dataset, "outcomes")? {
        let c = Cols::new("outcomes", &b);
        let (id, w, st, sg, si) =
            (c.str("safe_output_id")?, c.str("eval_window")?, c.str("outcome_status")?, c.str("evidence_strength")?, c.str("human_check_signal")?);
        for i in 0..b.num_rows() {
            if w[i].as_deref() == Some(window) {
                out.insert(
                    id[i].clone().unwrap_or_default(),
                    Outcome {
                        status: st[i].clone().unwrap_or_default(),
                        strength: sg[i].clone().unwrap_or_default(),
                        signal: si[i].clone().unwrap_or_default(),
                    },
                );
            }
        }
    }
    Ok(out)
}

fn rank(o: &Outcome) -> u8 {
    match (o.status.as_str(), o.strength.as_str()) {
        ("accepted", "strong") => 0,
        ("accepted", "medium") => 1,
        ("rejected", _) => 2,
        ("ignored", _) => 3,
        ("accepted", _) => 4,
        ("pending", _) => 5,
        _ => 6,
    }
}

/// `outcome.signal_source`, in the opentraces spec's words: repository state read
/// deterministically.
const SIGNAL_SOURCE: &str = "deterministic";

/// How a runtime trajectory ended, as the trace records it in its last step: a tool call
/// whose observation is opentraces' mark of a dangling call (`error: "no_result"`) ->
/// `interrupted` (the session was cut short); any other error there -> `error` (it ended on
/// a tool error it did not recover from). A call with no observation at all says nothing
/// (some traces keep no results), so it decides nothing.
fn trajectory_end(rec: &Value) -> Option<(&'static str, String)> {
    let last = rec.get("steps")?.as_array()?.last()?;
    let step = crate::json::int_at(last, "step_index").map_or_else(|| "?".to_string(), |n| n.to_string());
    let errors: Vec<(&str, &str)> = last
        .get("observations")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|o| Some((str_at(o, "source_call_id").unwrap_or_default(), str_at(o, "error").filter(|e| !e.trim().is_empty())?)))
        .collect();
    if let Some((call, _)) = errors.iter().find(|(_, e)| *e == "no_result") {
        return Some(("interrupted", format!("trace: step {step} ends on tool call {call} with no result")));
    }
    errors.first().map(|(call, e)| ("error", format!("trace: step {step} ends on tool call {call} failing: {}", crate::text::printable(e))))
}

/// How a runtime trajectory ended, as its deciding output shows: `goal_reached` when the
/// repository accepted it; `abandoned` when it was rejected or ignored, or when the agent
/// said it could not go on (`missing_tool`, `missing_data`, `report_incomplete`); `error`
/// when the action was never carried out (the environment failed or refused it).
fn output_ending(o: &Outcome) -> Option<&'static str> {
    match (o.status.as_str(), o.signal.as_str()) {
        ("accepted", _) => Some("goal_reached"),
        ("rejected" | "ignored", _) => Some("abandoned"),
        ("skipped", "tool_unavailable" | "data_unavailable" | "report_incomplete") => Some("abandoned"),
        ("skipped", "not_executed") => Some("error"),
        _ => None,
    }
}

/// Fill `field` of `obj` when it is empty; record a disagreement otherwise.
fn fill(obj: &mut Map<String, Value>, field: &str, value: Value, filled: &mut Vec<String>, conflicts: &mut Vec<Value>) -> bool {
    match obj.get(field) {
        None | Some(Value::Null) => {
            obj.insert(field.into(), value);
            filled.push(field.into());
            true
        }
        Some(existing) if *existing != value => {
            conflicts.push(json!({"field": field, "trace": existing, "hindsight": value}));
            false
        }
        _ => false,
    }
}

/// An output linked to the trace, with its outcome in the window when it has one.
type Linked<'a> = (&'a Link, &'a SafeOutput<'a>, Option<&'a Outcome>);

/// Enrich one record. Returns the new record.
fn enrich(rec: &Value, links: &[Link], outcomes: &HashMap<String, Outcome>, outputs: &HashMap<&str, &SafeOutput>, prs: &PullRequests, opts: &Options) -> Value {
    // Records were checked when read: a version hindsight does not know never gets here.
    let shape = Shape::of_record(rec).unwrap_or(Shape::V0_2);
    let mut r = rec.as_object().cloned().unwrap_or_default();
    let window = opts.window.to_string();
    let linked = linked_outputs(links, outcomes, outputs);
    let decider = decider(&linked);
    let mut block = OutcomeBlock { outcome: r.get("outcome").and_then(Value::as_object).cloned().unwrap_or_default(), filled: Vec::new(), conflicts: Vec::new() };
    let runtime = str_at(rec, "execution_context") == Some("runtime");
    // How a runtime trajectory ended: as the trace records it, else as its outputs show.
    let mut ending = if runtime { trajectory_end(rec) } else { None };
    if let Some((_, so, Some(o))) = decider {
        let desc = format!("hindsight: {} {} {} ({}, {}) at {window}", so.output_type, so.safe_output_id, o.status, o.strength, o.signal);
        if runtime {
            block.runtime(so, o, &desc, &mut ending);
        } else {
            block.devtime(so, o, &desc, prs);
        }
    }
    if let Some((state, _)) = &ending {
        block.fill("terminal_state", json!(state));
    }
    let OutcomeBlock { mut outcome, filled, conflicts } = block;
    // Complete the block with the defaults of the record's version, so the record stays valid.
    for (k, v) in shape.outcome_defaults() {
        outcome.entry(k.to_string()).or_insert(v);
    }
    r.insert("outcome".into(), Value::Object(outcome));

    // Attribution: kept unless asked to rebuild.
    let (built, report) = attribution::build(rec, shape);
    let has = r.get("attribution").is_some_and(|a| !a.is_null());
    let attribution_rule = if has && !opts.rebuild_attribution {
        "kept"
    } else {
        r.insert("attribution".into(), built.unwrap_or(Value::Null));
        if has {
            "rebuilt"
        } else {
            "built"
        }
    };

    let unlinked = links.iter().find(|l| l.safe_output_id.is_none()).map(|l| l.evidence.clone());
    let hindsight = json!({
        "version": env!("CARGO_PKG_VERSION"),
        "window": window,
        "merge_rule": "fill_missing",
        "decided_by": decider.map(|(_, so, _)| so.safe_output_id.clone()),
        "evidence": evidence(&linked),
        "unlinked_reason": unlinked,
        "filled": filled,
        "conflicts": conflicts,
        "terminal_state_evidence": ending.map(|(_, why)| why),
        "attribution": {"rule": attribution_rule, "unlocated_edits": report.unlocated.iter().map(|(f, s)| json!({"path": f, "step": s})).collect::<Vec<_>>(), "unexplained_patch_files": report.unexplained_patch_files},
    });
    let mut meta = r.get("metadata").and_then(Value::as_object).cloned().unwrap_or_default();
    meta.insert("hindsight".into(), hindsight);
    r.insert("metadata".into(), Value::Object(meta));
    Value::Object(r)
}

/// The outputs the trace's links name that the dataset holds, with their outcomes.
fn linked_outputs<'a>(links: &'a [Link], outcomes: &'a HashMap<String, Outcome>, outputs: &'a HashMap<&str, &SafeOutput>) -> Vec<Linked<'a>> {
    links
        .iter()
        .filter_map(|l| {
            let id = l.safe_output_id.as_deref()?;
            let so = outputs.get(id)?;
            Some((l, *so, outcomes.get(id)))
        })
        .collect()
}

/// The output whose outcome decides the trace's: among the code-changing outputs when there
/// are any, the best-ranked outcome (then the smallest id).
fn decider<'l, 'a>(linked: &'l [Linked<'a>]) -> Option<&'l Linked<'a>> {
    let code: Vec<&Linked> = linked.iter().filter(|(_, o, _)| CODE_CHANGING.contains(&o.output_type.as_ref())).collect();
    let pool: Vec<&Linked> = if code.is_empty() { linked.iter().collect() } else { code };
    pool.iter().filter(|(_, _, o)| o.is_some()).min_by_key(|(_, so, o)| (o.map(rank).unwrap_or(9), so.safe_output_id.clone())).copied()
}

/// The trace's outcome block as it is being filled: the fields filled and the conflicts
/// with what the trace already said.
struct OutcomeBlock {
    outcome: Map<String, Value>,
    filled: Vec<String>,
    conflicts: Vec<Value>,
}

impl OutcomeBlock {
    fn fill(&mut self, field: &str, value: Value) -> bool {
        fill(&mut self.outcome, field, value, &mut self.filled, &mut self.conflicts)
    }

    /// A runtime trajectory's: the reward the deciding outcome earns, and how the
    /// trajectory ended when the trace does not say.
    fn runtime(&mut self, so: &SafeOutput, o: &Outcome, desc: &str, ending: &mut Option<(&'static str, String)>) {
        let confidence = if o.strength == "strong" { "derived" } else { "inferred" };
        if ending.is_none() {
            *ending = output_ending(o).map(|st| (st, format!("{} {}: {} ({})", so.output_type, so.safe_output_id, o.status, o.signal)));
        }
        let reward = match (o.status.as_str(), o.strength.as_str()) {
            ("accepted", "strong") => Some(1.0),
            ("accepted", "medium") => Some(0.5),
            ("accepted", _) => Some(0.25),
            ("rejected" | "ignored", _) => Some(0.0),
            _ => None,
        };
        if let Some(rw) = reward {
            if self.fill("reward", json!(rw)) {
                self.outcome.insert("reward_source".into(), json!("human_annotation"));
                self.outcome.insert("signal_confidence".into(), json!(confidence));
                self.filled.push("reward_source".into());
            }
        }
        if reward.is_some() || ending.is_some() {
            self.fill("description", json!(desc));
        }
    }

    /// A development-time session's: success from the deciding outcome, and the merge
    /// commit when the outcome is a merge.
    fn devtime(&mut self, so: &SafeOutput, o: &Outcome, desc: &str, prs: &PullRequests) {
        let confidence = if o.strength == "strong" { "derived" } else { "inferred" };
        let success = match o.status.as_str() {
            "accepted" if o.strength == "strong" || o.strength == "medium" => Some(true),
            "rejected" | "ignored" => Some(false),
            _ => None,
        };
        if let Some(ok) = success {
            if self.fill("success", json!(ok)) {
                self.outcome.insert("signal_source".into(), json!(SIGNAL_SOURCE));
                self.outcome.insert("signal_confidence".into(), json!(confidence));
                self.filled.extend(["signal_source".to_string(), "signal_confidence".to_string()]);
            }
            self.fill("description", json!(desc));
        }
        if MERGE_SIGNALS.contains(&o.signal.as_str()) {
            let merge_sha = so.target_number.and_then(|n| prs.merge_commit.get(&(so.target_repo.as_deref().unwrap_or_default().to_string(), n)).cloned());
            let has_sha = self.outcome.get("commit_sha").is_some_and(|v| !v.is_null());
            if self.outcome.get("committed") != Some(&json!(true)) && !has_sha {
                self.outcome.insert("committed".into(), json!(true));
                self.filled.push("committed".into());
                if let Some(sha) = merge_sha {
                    self.outcome.insert("commit_sha".into(), json!(sha));
                    self.filled.push("commit_sha".into());
                }
            }
        }
    }
}

/// The linked outputs as the hindsight metadata lists them: link, status, strength, signal.
fn evidence(linked: &[Linked]) -> Vec<Value> {
    linked
        .iter()
        .map(|(l, so, o)| {
            json!({"safe_output_id": so.safe_output_id, "type": so.output_type, "link": l.kind, "link_evidence": l.evidence,
                   "status": o.map(|o| o.status.clone()), "strength": o.map(|o| o.strength.clone()), "signal": o.map(|o| o.signal.clone())})
        })
        .collect()
}

/// The enriched record's text: `enriched` spliced into the record's own `text`, so keys keep
/// their order and numbers their digits (see `json::splice`), with the `content_hash` of
/// the result.
fn enriched_text(text: &str, enriched: &Value) -> Result<String> {
    let spliced = crate::json::splice(text, enriched);
    let mut with_hash = enriched.clone();
    with_hash["content_hash"] = json!(hash::record_hash_text(&spliced)?);
    Ok(crate::json::splice(&spliced, &with_hash))
}

/// Where `attach --out` writes, once checked: a file of the dataset (written in its staging
/// folder and committed with it), or a file elsewhere (written beside its name and renamed
/// into place when whole).
#[derive(Debug)]
pub enum Target {
    InDataset(String),
    Outside(std::path::PathBuf),
    /// `--out -`: standard output, as the lines are made.
    Stdout,
}

/// `--out -`: the enriched traces on standard output.
pub const STDOUT: &str = "-";

impl Target {
    /// Check `out` before any work. Refused always: a directory, a device, FIFO or socket,
    /// one of the dataset's own
    /// tables or its manifest, a path deeper inside the dataset, and a file whose content
    /// is one of the study's inputs (the traces attach reads, say). Refused unless `force`:
    /// any other existing file.
    pub fn check(out: &Path, dataset: &Path, manifest: &Manifest, force: bool) -> Result<Target> {
        let refuse = |m: String| Error::Usage(format!("--out {}: {m}", crate::text::printable(&out.display().to_string())));
        if out == Path::new(STDOUT) {
            return Ok(Target::Stdout);
        }
        // Before the path is resolved: `/dev/stdout` on a pipe resolves to no path at all.
        if std::fs::metadata(out).is_ok_and(|m| !m.is_file() && !m.is_dir()) {
            return Err(refuse(format!("{} is not a regular file (a device, FIFO or socket is never replaced); name a file to write, or give --out - for standard output", out.display())));
        }
        let path = crate::dataset::staging::resolve_path(out).map_err(|e| Error::io(out, e))?;
        let dataset = dataset.canonicalize().map_err(|e| Error::io(dataset, e))?;
        let name = path.file_name().and_then(|n| n.to_str()).map(str::to_string).ok_or_else(|| refuse("names no file".into()))?;
        let meta = std::fs::metadata(&path).ok();
        if meta.as_ref().is_some_and(|m| m.is_dir()) {
            return Err(refuse(format!("{} is a directory; name the JSONL file to write", path.display())));
        }
        if path.starts_with(&dataset) && path.parent() != Some(dataset.as_path()) {
            return Err(refuse(format!("{} is inside the dataset's folder {}; a dataset holds only its own files", path.display(), dataset.display())));
        }
        let in_dataset = path.parent() == Some(dataset.as_path());
        if let Some(other) = crate::output::dataset_around(&path).filter(|d| !in_dataset && d.canonicalize().ok().as_ref() != Some(&dataset)) {
            return Err(refuse(format!("{} is inside another dataset, {}: its files are written by hindsight alone, under its lock, never with --force", path.display(), other.display())));
        }
        if in_dataset {
            let table = name.strip_suffix(".parquet").is_some();
            if name == "manifest.json" || table || name.starts_with('.') {
                return Err(refuse(format!("{} is the dataset's own {}; writing the traces there would destroy it", path.display(), if table { "table" } else { "file" })));
            }
            // The enriched traces, or an earlier `attach --out` of this dataset: attach's own.
            if name == ENRICHED || manifest.files.contains_key(&name) {
                return Ok(Target::InDataset(name));
            }
        }
        if let Some(m) = meta.filter(|m| m.is_file()) {
            if let Some(input) = input_with_content(&path, m.len(), manifest)? {
                return Err(refuse(format!("{} holds the study's input {} (same bytes); attach never writes over its inputs", path.display(), input)));
            }
            if !force {
                return Err(refuse(format!("{} exists; give --force to replace it", path.display())));
            }
        }
        Ok(if in_dataset { Target::InDataset(name) } else { Target::Outside(path) })
    }
}

/// The input (`traces: session.jsonl`) whose recorded size and sha256 are those of the file
/// at `path`, if any.
fn input_with_content(path: &Path, len: u64, manifest: &Manifest) -> Result<Option<String>> {
    let same_size: Vec<_> = manifest.inputs.iter().filter(|i| i.size == len).collect();
    if same_size.is_empty() {
        return Ok(None);
    }
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    let sha = crate::json::sha256_hex(&bytes);
    Ok(same_size.into_iter().find(|i| i.sha256 == sha).map(|i| format!("{}: {}", i.input, i.path)))
}

/// The enriched traces' file name in a dataset.
pub const ENRICHED: &str = "traces.enriched.jsonl";

pub struct Attached {
    pub traces: usize,
    pub linked: usize,
    pub out: std::path::PathBuf,
}

/// The attach stage on a dataset directory. Traces are read, linked, enriched and written
/// a batch at a time, and the snapshot is read one repository at a time: memory does not
/// grow with the number of traces.
pub fn attach(dataset: &Path, out: Option<&Path>, opts: &Options, progress: &crate::progress::Progress) -> Result<Attached> {
    let mut manifest = Manifest::load(dataset)?;
    opts.check_evaluated(dataset, &manifest)?;
    let out_path = out.map(Path::to_path_buf).unwrap_or_else(|| dataset.join(ENRICHED));
    if !dataset.join("traces.parquet").is_file() {
        return Err(Error::Dataset { path: dataset.to_path_buf(), message: "no traces table: convert with --traces PATH first".into() });
    }
    let spin = progress.spinner("attach", "reading the snapshot's pull requests, the outputs and their outcomes");
    let mut prs = PullRequests::default();
    let mut indexes = RepoIndexes::default();
    crate::dataset::read::response_groups(dataset, 64 << 20, |groups| {
        let (shared, repos) = indexes.take(groups);
        // The PRs derived from captures of no repository (search results) come first.
        if let Some(s) = shared {
            prs.add(&s);
        }
        for (_, rows) in repos {
            prs.add(&indexes.build(rows));
        }
        Ok(())
    })?;
    let prs = prs.finish();
    let outputs = Outputs::new(crate::dataset::read::safe_outputs(dataset)?);
    let by_id: HashMap<&str, &SafeOutput> = outputs.all.iter().map(|o| (o.safe_output_id.as_ref(), o)).collect();
    let outcomes = read_outcomes(dataset, &opts.window.to_string())?;
    spin.finish_and_clear();
    let mut links_t = Table::new("trace_links", &[("trace_id", Kind::Str), ("safe_output_id", Kind::Str), ("link_kind", Kind::Str), ("evidence", Kind::Str)]);
    let total = manifest.tables.get("traces").map_or(0, |t| t.rows);
    let bar = progress.bar("attach", total as u64);
    let mut file = EnrichedFile::create(&out_path)?;
    let (mut traces, mut linked) = (0usize, 0usize);
    for b in batches_streamed(dataset, "traces")? {
        let b = b?;
        let c = Cols::new("traces", &b);
        let (ids, recs) = (c.str("trace_id")?, c.str("record")?);
        for i in 0..b.num_rows() {
            let text = recs[i].as_deref().unwrap_or("null");
            let rec: Value = serde_json::from_str(text)?;
            let id = ids[i].as_deref().unwrap_or_default();
            let links = link(&rec, text, id, &outputs, &prs);
            if links.iter().any(|l| l.safe_output_id.is_some()) {
                linked += 1;
            }
            for l in &links {
                links_t.push(vec![s(&l.trace_id), os(l.safe_output_id.as_ref()), os(l.kind), s(&l.evidence)]);
            }
            let e = enrich(&rec, &links, &outcomes, &by_id, &prs, opts);
            file.line(&enriched_text(text, &e)?)?;
            traces += 1;
        }
        bar.inc(b.num_rows() as u64);
    }
    bar.finish_and_clear();
    links_t.sort_by_columns(&["trace_id", "safe_output_id"]);
    let w = crate::dataset::write_table(dataset, &links_t)?;
    manifest.record_table("trace_links", &w);
    let (bytes, sha256) = file.finish()?;
    if out_path.parent() == Some(dataset) {
        let name = out_path.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
        manifest.files.insert(name, TableEntry { rows: traces, bytes, sha256 });
    }
    manifest.attach_window = Some(opts.window.to_string());
    manifest.save(dataset)?;
    Ok(Attached { traces, linked, out: out_path })
}

/// A table's record batches as they are read.
fn batches_streamed(dataset: &Path, table: &str) -> Result<parquet::arrow::arrow_reader::ParquetRecordBatchReader> {
    let p = dataset.join(format!("{table}.parquet"));
    let f = std::fs::File::open(&p).map_err(|e| Error::io(&p, e))?;
    Ok(parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(f)?.build()?)
}

/// The enriched JSONL, written beside its final name and renamed into place when whole
/// (or onto standard output for `--out -`), hashed as it is written.
struct EnrichedFile {
    sink: Sink,
    hash: sha2::Sha256,
    bytes: u64,
}

enum Sink {
    /// The temporary file beside `path`, removed unless renamed into place (a write that
    /// failed, the disk full, leaves nothing behind).
    File { path: std::path::PathBuf, tmp: std::path::PathBuf, w: Option<std::io::BufWriter<std::fs::File>> },
    Stdout(std::io::BufWriter<std::io::Stdout>),
}

impl Drop for Sink {
    fn drop(&mut self) {
        if let Sink::File { tmp, w: Some(_), .. } = self {
            let _ = std::fs::remove_file(tmp);
        }
    }
}

/// The temporary name of `path` for process `pid`.
fn temporary(path: &Path, pid: u32) -> std::path::PathBuf {
    let name = path.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
    path.with_file_name(format!(".{name}.{pid}.tmp"))
}

/// Temporary files of `path` left by processes no longer running (killed mid-write).
fn remove_stale_temporaries(path: &Path) {
    let name = path.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let prefix = format!(".{name}.");
    for e in entries.flatten() {
        let file = e.file_name().to_string_lossy().to_string();
        let Some(pid) = file.strip_prefix(&prefix).and_then(|r| r.strip_suffix(".tmp")).and_then(|p| p.parse::<u32>().ok()) else { continue };
        let running = Path::new(&format!("/proc/{pid}")).exists();
        if !running && e.file_type().is_ok_and(|t| t.is_file()) {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

impl EnrichedFile {
    fn create(path: &Path) -> Result<EnrichedFile> {
        let sink = if path == Path::new(STDOUT) {
            Sink::Stdout(std::io::BufWriter::new(std::io::stdout()))
        } else {
            remove_stale_temporaries(path);
            // Named by this process and created new: never a file someone else keeps there.
            let tmp = temporary(path, std::process::id());
            let f = std::fs::OpenOptions::new().write(true).create_new(true).open(&tmp).map_err(|e| Error::io(&tmp, e))?;
            Sink::File { path: path.to_path_buf(), tmp, w: Some(std::io::BufWriter::new(f)) }
        };
        Ok(EnrichedFile { sink, hash: sha2::Sha256::default(), bytes: 0 })
    }

    fn line(&mut self, text: &str) -> Result<()> {
        use sha2::Digest;
        use std::io::Write;
        for part in [text.as_bytes(), b"\n"] {
            match &mut self.sink {
                Sink::File { tmp, w: Some(w), .. } => w.write_all(part).map_err(|e| Error::io(&*tmp, e))?,
                Sink::File { .. } => {}
                Sink::Stdout(w) => w.write_all(part).map_err(|e| Error::io(Path::new("standard output"), e))?,
            }
            self.hash.update(part);
            self.bytes += part.len() as u64;
        }
        Ok(())
    }

    fn finish(mut self) -> Result<(u64, String)> {
        use sha2::Digest;
        use std::io::Write;
        match &mut self.sink {
            Sink::File { path, tmp, w } => {
                let file = w.take().map(|w| w.into_inner().map_err(|e| Error::io(&*tmp, e.into_error())));
                let done = file.transpose().and_then(|f| f.map_or(Ok(()), |f| f.sync_all().map_err(|e| Error::io(&*tmp, e)))).and_then(|()| std::fs::rename(&*tmp, &*path).map_err(|e| Error::io(&*path, e)));
                if done.is_err() {
                    let _ = std::fs::remove_file(&*tmp);
                }
                done?;
            }
            Sink::Stdout(w) => w.flush().map_err(|e| Error::io(Path::new("standard output"), e))?,
        }
        Ok((self.bytes, hex::encode(self.hash.clone().finalize())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A write that fails part way (the disk full, an error upstream) leaves no temporary
    /// file beside the output, and no output.
    #[test]
    fn an_unfinished_enriched_file_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("t.jsonl");
        let mut f = EnrichedFile::create(&out).unwrap();
        f.line("{}").unwrap();
        assert!(temporary(&out, std::process::id()).exists());
        drop(f);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
        let mut f = EnrichedFile::create(&out).unwrap();
        f.line("{}").unwrap();
        f.finish().unwrap();
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "{}\n");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    /// The SHA lookup finds exactly what comparing with every PR's SHAs finds: one SHA a
    /// prefix of the other, both at least 7 characters, any case.
    #[test]
    fn sha_lookup_is_a_prefix_match_either_way() {
        let mut prs = PullRequests::default();
        prs.shas.insert(("a/b".into(), 1), vec!["ABCDEF1234".into()]);
        prs.shas.insert(("a/b".into(), 2), vec!["abcdef9".into(), "0123456".into()]);
        prs.shas.insert(("c/d".into(), 3), vec!["abcdef12".into()]);
        let prs = prs.finish();
        let found = |sha: &str| prs.with_sha(sha).into_iter().map(|(r, n)| format!("{r}#{n}")).collect::<Vec<_>>();
        assert_eq!(found("abcdef1"), ["a/b#1", "c/d#3"]);
        assert_eq!(found("ABCDEF12345678"), ["a/b#1", "c/d#3"]);
        assert_eq!(found("abcdef9ffff"), ["a/b#2"]);
        assert_eq!(found("abcdef"), Vec::<String>::new());
        assert_eq!(found("0123456"), ["a/b#2"]);
    }

    fn outcome(status: &str, strength: &str, signal: &str) -> Outcome {
        Outcome { status: status.into(), strength: strength.into(), signal: signal.into() }
    }

    /// Every way an output shows how a runtime trajectory ended ([SPEC-TRACES-OUTCOME]'s
    /// four states), and the outcomes that show nothing.
    #[test]
    fn output_endings_are_the_specs_states() {
        let rows = [
            (("accepted", "strong", "pull_request_merged"), Some("goal_reached")),
            (("accepted", "weak", "target_exists_only"), Some("goal_reached")),
            (("rejected", "strong", "pull_request_closed_unmerged"), Some("abandoned")),
            (("ignored", "weak", "no_response"), Some("abandoned")),
            (("skipped", "none", "tool_unavailable"), Some("abandoned")),
            (("skipped", "none", "data_unavailable"), Some("abandoned")),
            (("skipped", "none", "report_incomplete"), Some("abandoned")),
            (("skipped", "none", "not_executed"), Some("error")),
            (("skipped", "none", "no_action_requested"), None),
            (("skipped", "none", "staged_not_applied"), None),
            (("pending", "medium", "open_with_review_activity"), None),
            (("unknown", "none", "history_missing"), None),
        ];
        for ((st, sg, si), want) in rows {
            assert_eq!(output_ending(&outcome(st, sg, si)), want, "{st} {si}");
        }
    }

    /// The trace's own record of its end: opentraces' `no_result` (a dangling call) is
    /// `interrupted`, another error `error`; a last call with no observation, or an error
    /// in an earlier step, decides nothing.
    #[test]
    fn trajectory_end_reads_the_last_step_only() {
        let rec = |steps: Value| json!({"steps": steps});
        let step = |n: i64, obs: Value| json!({"step_index": n, "tool_calls": [{"tool_call_id": "c", "tool_name": "Bash", "input": {}}], "observations": obs});
        let end = |r: &Value| trajectory_end(r).map(|(s, _)| s);
        assert_eq!(end(&rec(json!([step(1, json!([{"source_call_id": "c", "error": "no_result"}]))]))), Some("interrupted"));
        assert_eq!(end(&rec(json!([step(1, json!([{"source_call_id": "c", "error": "exit 1"}]))]))), Some("error"));
        assert_eq!(end(&rec(json!([step(1, json!([]))]))), None);
        assert_eq!(end(&rec(json!([step(1, json!([{"source_call_id": "c", "content": "ok", "error": null}]))]))), None);
        assert_eq!(
            end(&rec(json!([step(1, json!([{"source_call_id": "c", "error": "exit 1"}])), {"step_index": 2, "role": "agent", "content": "fixed it"}]))),
            None
        );
        assert_eq!(end(&rec(json!([]))), None);
    }

    /// The commits a trace names, from every version's places, each once.
    #[test]
    fn trace_commits_from_every_version() {
        let rec = json!({
            "outcome": {"commit_sha": "aaaaaaa1"},
            "git_links": [{"revision": "bbbbbbb2", "tier": "tool_emitted"}, {"revision": "aaaaaaa1", "tier": "orphan"}],
            "patches": [{"patch_id": "p", "file_path": "f", "anchor": {"last_searched_at": "t", "found": true, "commit_sha": "ccccccc3"}, "superseded_by": ["ddddddd4"]},
                        {"patch_id": "q", "file_path": "g", "anchor": {"last_searched_at": "t", "found": false}}]
        });
        assert_eq!(trace_commits(&rec, &json!({"commit_shas": ["eeeeeee5"]})), ["aaaaaaa1", "eeeeeee5", "bbbbbbb2", "ccccccc3", "ddddddd4"]);
    }
}
