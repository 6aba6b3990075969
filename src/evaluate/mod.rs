//! Outcome evaluation: for every safe output and window, what the repository did with it.
//!
//! One rule per safe-output type (`rules/<type>.rs`), each a table of rows that map a
//! repository state to (status, evidence strength, signal). The framework handles what is
//! common: outputs that were never executed, windows that cannot be observed yet, action
//! times that are unknown, and types without a rule.

pub mod actors;
pub mod case;
pub mod catalogue;
pub mod ci_gate;
pub mod outcome;
pub mod outcomes;
pub mod policy;
pub mod risk;
pub mod rules;
pub mod window;

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use rayon::prelude::*;

use crate::dataset::manifest::Manifest;
use crate::error::{Error, Result};
use crate::runs::{Execution, SafeOutput};
use crate::snapshot::SnapshotIndex;
use crate::time::{self, Instant};

pub use case::Case;
pub use outcome::{Confidence, EvidenceStrength, Status, Verdict};
pub use outcomes::OutcomeRows;
pub use policy::Policy;
pub use window::Window;

/// One row of a rule's table: a repository state and what it means. The rules catalogue
/// is printed from these, so code and documentation cannot drift apart.
#[derive(Clone, Copy, Debug)]
pub struct Row {
    pub id: &'static str,
    /// The repository state, in words.
    pub when: &'static str,
    pub status: Status,
    pub strength: EvidenceStrength,
    pub signal: &'static str,
    /// The seed 000 table row this implements ("" when the row is hindsight's own).
    pub seed: &'static str,
    /// The policy switch that can change the status, if any.
    pub policy: Option<&'static str>,
}

/// An evaluator for one safe-output type.
pub trait Rule: Sync + Send {
    fn output_type(&self) -> &'static str;
    /// What a person checks (seed 000's "Human check").
    fn human_check(&self) -> &'static str;
    fn rows(&self) -> &'static [Row];
    /// When the action happened. Defaults to the recorded time; creating rules fall back
    /// on the created object's own `created_at`.
    fn action_time(&self, case: &Case) -> Option<Instant> {
        case.output.created_at
    }
    fn evaluate(&self, case: &Case) -> Verdict;

    /// Whether the target is an issue, PR or comment found by number or comment id; rules
    /// whose target is a workflow run, an alert or a project say `false` and check their
    /// own reference.
    fn targets_number(&self) -> bool {
        true
    }

    /// Whether the verdict is dated at the action itself (the agent's own merge standing):
    /// then a decision dated at T is expected, not a contradiction.
    fn dated_at_action(&self) -> bool {
        false
    }

    /// Types with no repository outcome at all: skipped whatever the window.
    fn skips(&self) -> bool {
        false
    }

    /// The verdict of row `id`.
    fn row(&self, id: &str) -> Verdict {
        verdict(self.output_type(), self.rows(), id)
    }
}

/// Build the verdict of a row. Row ids are fixed in code; a wrong id is a programming
/// error that the per-row tests catch.
pub fn verdict(ty: &str, rows: &[Row], id: &str) -> Verdict {
    let r = rows.iter().find(|r| r.id == id).unwrap_or_else(|| panic!("rule {ty} has no row `{id}`"));
    Verdict {
        status: r.status,
        strength: r.strength,
        signal: r.signal,
        rule_id: format!("{ty}/{}", r.id),
        confidence: Confidence::High,
        target_resolved: false,
        notes: Vec::new(),
        details: serde_json::Map::new(),
        decided_at: None,
        partial_score: None,
        visible_non_bot_actors: 0,
        bot_actors: 0,
    }
}

/// Rows every type shares: missing data and unobservable windows.
pub const COMMON: &[Row] = &[
    Row {
        id: "missing_reference",
        when: "The record names no target (no number, URL or temporary id)",
        status: Status::Unknown,
        strength: EvidenceStrength::None,
        signal: "missing_reference",
        seed: "Required target object or audit data could not be fetched",
        policy: None,
    },
    Row {
        id: "target_not_captured",
        when: "The target is not in the snapshot",
        status: Status::Unknown,
        strength: EvidenceStrength::None,
        signal: "target_not_captured",
        seed: "Required target object or audit data could not be fetched",
        policy: None,
    },
    Row {
        id: "capture_failed",
        when: "The capture of the target, or of history the rule needs, failed (non-2xx other than 404/410)",
        status: Status::Unknown,
        strength: EvidenceStrength::None,
        signal: "capture_failed",
        seed: "Required target object or audit data could not be fetched",
        policy: None,
    },
    Row {
        id: "target_deleted",
        when: "The target answered 404/410 at capture",
        status: Status::Unknown,
        strength: EvidenceStrength::None,
        signal: "target_deleted",
        seed: "Deleted or inaccessible: unknown or rejected, depending audit availability",
        policy: Some("deleted_target"),
    },
    Row {
        id: "history_missing",
        when: "The window ends before capture but the timestamped history needed to rebuild the state as of its end was not captured",
        status: Status::Unknown,
        strength: EvidenceStrength::None,
        signal: "history_missing",
        seed: "",
        policy: None,
    },
    Row {
        id: "inconsistent_state",
        when: "The captured body contradicts itself (open but merged or closed; a decision dated at or before the action)",
        status: Status::Unknown,
        strength: EvidenceStrength::None,
        signal: "inconsistent_state",
        seed: "",
        policy: None,
    },
    Row {
        id: "window_not_observable",
        when: "The window ends after the snapshot was captured",
        status: Status::Unknown,
        strength: EvidenceStrength::None,
        signal: "window_not_yet_observable",
        seed: "",
        policy: None,
    },
    Row {
        id: "action_time_missing",
        when: "The action's time is not recorded, so T+W cannot be placed",
        status: Status::Unknown,
        strength: EvidenceStrength::None,
        signal: "action_time_missing",
        seed: "",
        policy: None,
    },
    Row {
        id: "missing_execution_state",
        when: "The execution-time metadata the rule compares against (labels added, commit SHAs, ...) was not recorded",
        status: Status::Unknown,
        strength: EvidenceStrength::None,
        signal: "missing_execution_state",
        seed: "No way to compare before and after",
        policy: None,
    },
    Row {
        id: "no_type_specific_evaluator",
        when: "No rule exists for this safe-output type",
        status: Status::Unknown,
        strength: EvidenceStrength::None,
        signal: "no_type_specific_evaluator",
        seed: "evaluator is None -> unknown(no_type_specific_evaluator)",
        policy: None,
    },
    Row {
        id: "not_executed",
        when: "Requested but not carried out (an error, a rejected request)",
        status: Status::Skipped,
        strength: EvidenceStrength::None,
        signal: "not_executed",
        seed: "",
        policy: None,
    },
    Row {
        id: "staged",
        when: "Requested in staged mode: previewed, never applied",
        status: Status::Skipped,
        strength: EvidenceStrength::None,
        signal: "staged_not_applied",
        seed: "",
        policy: None,
    },
    Row {
        id: "execution_unrecorded",
        when: "Requested in a run that kept no record of executed items",
        status: Status::Unknown,
        strength: EvidenceStrength::None,
        signal: "execution_unrecorded",
        seed: "",
        policy: None,
    },
];

pub fn common(id: &str) -> Verdict {
    verdict("common", COMMON, id)
}

/// A verdict that rests on an observation without a time (a 404 at capture, a label
/// missing at capture, a field's final value): it settles the `snapshot` window only. A
/// timed window cannot borrow it; there the answer is `history_missing`, saying why.
pub fn undated(case: &Case, v: Verdict, what: &str) -> Verdict {
    if case.window.is_snapshot() {
        return v;
    }
    common("history_missing").resolved(v.target_resolved).note(format!("{what} at capture, and no history says when; only the snapshot window can use it"))
}

/// Deleted target, under the `deleted_target` policy (snapshot window only: a 404 carries
/// no time).
pub fn deleted(case: &Case, status: u16) -> Verdict {
    if !case.window.is_snapshot() {
        return undated(case, common("target_deleted"), &format!("the target answered {status}")).detail("http_status", status);
    }
    let mut v = common("target_deleted").detail("http_status", status);
    v.status = case.policy.deleted_target.status();
    if v.status == Status::Rejected {
        v.strength = EvidenceStrength::Medium;
        v.notes.push("policy deleted_target=rejected: a target gone at capture counts as removed".into());
    }
    v
}

/// Everything an evaluation run needs besides the outputs.
pub struct Evaluation<'a> {
    pub index: &'a SnapshotIndex,
    pub captured_at: Instant,
    pub policy: &'a Policy,
    pub windows: &'a [Window],
}

/// One outcome row.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub output: SafeOutput,
    pub window: Window,
    pub evaluated_at: Option<Instant>,
    pub verdict: Verdict,
}

impl Evaluation<'_> {
    pub fn run(&self, outputs: &[SafeOutput], progress: &crate::progress::Progress) -> Vec<Outcome> {
        let bar = progress.bar("evaluate", outputs.len() as u64);
        let out: Vec<Outcome> = outputs
            .par_iter()
            .flat_map_iter(|o| {
                let r = self.windows.iter().zip(self.judge_all(o)).map(|(w, (verdict, evaluated_at))| Outcome {
                    output: o.clone(),
                    window: *w,
                    evaluated_at,
                    verdict,
                });
                bar.inc(1);
                r.collect::<Vec<_>>()
            })
            .collect();
        bar.finish_and_clear();
        out
    }

    /// One output in every window (in the order of `windows`), sharing gathered activity.
    pub fn judge_all(&self, o: &SafeOutput) -> Vec<(Verdict, Option<Instant>)> {
        let cache = case::ActivityCache::default();
        self.windows.iter().map(|w| self.judge_output(o, *w, Some(&cache))).collect()
    }

    /// One output in one window, gathering everything afresh.
    pub fn one(&self, o: &SafeOutput, window: Window) -> Outcome {
        let (verdict, evaluated_at) = self.judge_output(o, window, None);
        Outcome { output: o.clone(), window, evaluated_at, verdict }
    }

    fn judge_output(&self, o: &SafeOutput, window: Window, cache: Option<&case::ActivityCache>) -> (Verdict, Option<Instant>) {
        let rule = rules::find(&o.output_type);
        let mut classifier = actors::Classifier::default();
        if let Some(a) = &o.actor {
            classifier.add_workflow(a);
        }
        if self.policy.triggering_actor_is_workflow {
            if let Some(a) = &o.run_actor {
                classifier.add_workflow(a);
            }
        }
        let mut case = Case {
            output: o,
            window,
            index: self.index,
            policy: self.policy,
            captured_at: self.captured_at,
            t0: o.created_at,
            as_of: self.captured_at,
            actors: classifier,
            cache,
        };
        self.judge(rule, &mut case)
    }

    /// The latest time any capture of the output's target (the object and its activity
    /// lists) was taken: the line's own `captured_at`, else the snapshot's. `None` when
    /// none is captured.
    fn target_seen_at(&self, o: &SafeOutput) -> Option<Instant> {
        self.target_entries(o).into_iter().map(|(_, e)| e.captured_at.unwrap_or(self.captured_at)).max()
    }

    /// The captures of the output's target: the object and its activity lists.
    fn target_entries(&self, o: &SafeOutput) -> Vec<(String, &crate::snapshot::Entry)> {
        const TAILS: &[&str] = &[
            "issues/{n}",
            "pulls/{n}",
            "issues/{n}/timeline",
            "issues/{n}/events",
            "issues/{n}/comments",
            "pulls/{n}/reviews",
            "pulls/{n}/comments",
            "pulls/{n}/commits",
        ];
        let (Some(repo), Some(n)) = (o.target_repo.as_deref(), o.target_number) else { return Vec::new() };
        TAILS
            .iter()
            .filter_map(|t| {
                let tail = t.replace("{n}", &n.to_string());
                self.index.get(&crate::snapshot::paths::rest(repo, &tail)).map(|e| (tail, e))
            })
            .collect()
    }

    /// Where the target's evidence came from, when that is not simply "its own path, as of
    /// the snapshot": captures with their own `captured_at`, and copies derived from other
    /// captures (a repository-wide list, an issue-shaped PR, search results).
    fn provenance(&self, o: &SafeOutput) -> Option<serde_json::Value> {
        let rows: Vec<serde_json::Value> = self
            .target_entries(o)
            .into_iter()
            .filter(|(_, e)| e.captured_at.is_some() || e.derived_from.is_some())
            .map(|(tail, e)| {
                let mut m = serde_json::Map::new();
                m.insert("path".into(), tail.into());
                m.insert("captured_at".into(), e.captured_at.map(|t| time::format(&t)).into());
                if let Some(f) = &e.derived_from {
                    m.insert("derived_from".into(), f.clone().into());
                }
                serde_json::Value::Object(m)
            })
            .collect();
        (!rows.is_empty()).then_some(serde_json::Value::Array(rows))
    }

    fn judge(&self, rule: Option<&dyn Rule>, case: &mut Case) -> (Verdict, Option<Instant>) {
        let o = case.output;
        // System outputs carry their own meaning whether or not they ran.
        if let Some(v) = rules::system::evaluate(o) {
            return (v, None);
        }
        match o.execution {
            Execution::Executed => {}
            Execution::Staged => return (common("staged"), None),
            Execution::NotExecuted | Execution::RequestedOnly => return (common("not_executed"), None),
            Execution::Unrecorded => return (common("execution_unrecorded"), None),
        }
        let Some(rule) = rule else {
            let v = common("no_type_specific_evaluator").note(format!("no rule for `{}`; its outcome is not measured, never assumed", o.output_type));
            return (v, None);
        };
        if rule.skips() {
            return (rule.evaluate(case), None);
        }
        if rule.targets_number() && o.target_number.is_none() && o.target_comment_id.is_none() {
            return (common("missing_reference"), None);
        }
        case.t0 = rule.action_time(case);
        if let Window::Hours(h) = case.window {
            let Some(t0) = case.t0 else {
                return (common("action_time_missing"), None);
            };
            // Past chrono's range is past the capture too (an action time read from a dataset can be far out).
            let Some(end) = time::plus_hours(&t0, h) else {
                return (common("window_not_observable"), None);
            };
            if end > self.captured_at {
                let v = common("window_not_observable").detail("window_end", time::format(&end));
                return (v, Some(end));
            }
            // A line's own captured_at overrides the snapshot's: when every capture of the
            // target was taken before the window's end, the window is not observable either.
            if let Some(seen) = self.target_seen_at(o).filter(|seen| end > *seen) {
                let v = common("window_not_observable").detail("window_end", time::format(&end)).detail("target_captured_at", time::format(&seen));
                return (v, Some(end));
            }
            case.as_of = end;
        }
        let mut v = rule.evaluate(case);
        if let Some(p) = self.provenance(o) {
            v = v.detail("evidence", p);
        }
        // Only what happened strictly after T is a response; a decision dated at or before
        // the action (a body whose times contradict each other) is no evidence either way.
        if let (Some(t0), Some(at), Status::Accepted | Status::Rejected) = (case.t0, v.decided_at, v.status) {
            if at < t0 || (at == t0 && !rule.dated_at_action()) {
                let dated = time::format(&at);
                v = common("inconsistent_state")
                    .resolved(v.target_resolved)
                    .detail("decided_at", dated.clone())
                    .detail("signal_not_used", v.signal)
                    .note(format!("`{}` is dated {dated}, not after the action ({}): no response can be", v.signal, time::format(&t0)));
            }
        }
        if case.t0.is_none() {
            v.notes.push("action time unknown: all recorded activity before capture counted".into());
            if v.confidence == Confidence::High {
                v.confidence = Confidence::Medium;
            }
        }
        (v, Some(case.as_of))
    }
}

/// The `outcomes` table of already judged outcomes (tests and small studies; the evaluate
/// stage streams its rows straight into `OutcomeRows`).
pub fn outcomes_batch(outcomes: &[Outcome]) -> Result<arrow::record_batch::RecordBatch> {
    let mut rows = OutcomeRows::default();
    let ranks = OutcomeRows::ranks(&outcomes.iter().map(|o| (o.output.run_id.as_str(), o.output.item_index)).collect::<Vec<_>>());
    for (seq, (o, rank)) in outcomes.iter().zip(ranks).enumerate() {
        rows.push(&o.output, rank, seq, o.window, o.evaluated_at, &o.verdict);
    }
    Ok(rows.finish()?)
}

/// Body bytes read per step of the evaluate stage: whole repositories, so the parsed snapshot
/// in memory stays near a few times this, whatever the study's size.
const CHUNK_BYTES: usize = 64 << 20;

/// The evaluate stage on a dataset directory: reads `safe_outputs`, then `responses` one
/// repository at a time (each repository's outputs are judged against its captures, with
/// the paths of no repository shared by all), writes `outcomes.parquet` and updates the
/// manifest. Returns the number of outcome rows.
pub fn evaluate_dataset(dataset: &Path, windows: &[Window], policy: &Policy, progress: &crate::progress::Progress) -> Result<usize> {
    evaluate_dataset_in_chunks(dataset, windows, policy, progress, CHUNK_BYTES)
}

/// `evaluate_dataset`, reading about `chunk_bytes` of bodies per step (the verdicts do not
/// depend on it; tests check that).
pub fn evaluate_dataset_in_chunks(
    dataset: &Path,
    windows: &[Window],
    policy: &Policy,
    progress: &crate::progress::Progress,
    chunk_bytes: usize,
) -> Result<usize> {
    let mut manifest = Manifest::load(dataset)?;
    let captured_at = time::parse(&manifest.captured_at).ok_or_else(|| Error::Dataset {
        path: dataset.join("manifest.json"),
        message: format!("captured_at `{}` is not an RFC 3339 time", manifest.captured_at),
    })?;
    let outputs = crate::dataset::read::safe_outputs(dataset)?;
    let ranks = OutcomeRows::ranks(&outputs.iter().map(|o| (o.run_id.as_str(), o.item_index)).collect::<Vec<_>>());
    let mut by_repo: HashMap<&str, Vec<usize>> = HashMap::new();
    let mut no_repo = Vec::new();
    for (i, o) in outputs.iter().enumerate() {
        match o.target_repo.as_deref() {
            Some(r) => by_repo.entry(r).or_default().push(i),
            None => no_repo.push(i),
        }
    }
    let bar = progress.bar("evaluate", outputs.len() as u64);
    let mut parts: Vec<OutcomeRows> = Vec::new();
    let mut replays: Vec<ci_gate::Replay> = Vec::new();
    let mut risks: Vec<risk::Risk> = Vec::new();
    let risk_policy = risk::RiskPolicy::default();
    let mut shared: Option<Arc<SnapshotIndex>> = None;
    // Each worker fills its own rows; `merge` sorts them once at the end.
    let judge = |parts: &mut Vec<OutcomeRows>, jobs: Vec<(usize, &SnapshotIndex)>| {
        let judged: Vec<OutcomeRows> = jobs
            .into_par_iter()
            .fold(OutcomeRows::default, |mut rows, (i, index)| {
                let o = &outputs[i];
                for (w, (v, at)) in windows.iter().zip(Evaluation { index, captured_at, policy, windows }.judge_all(o)) {
                    rows.push(o, ranks[i], i, *w, at, &v);
                }
                bar.inc(1);
                rows
            })
            .collect();
        parts.extend(judged.into_iter().filter(|r| !r.is_empty()));
    };
    // The next chunk is read while this one is judged.
    std::thread::scope(|scope| -> Result<()> {
        let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<crate::dataset::read::RepoGroup>>(1);
        let reader = scope.spawn(move || {
            crate::dataset::read::response_groups(dataset, chunk_bytes, |groups| {
                // A closed channel means the judging side stopped; its error is the one reported.
                let _ = tx.send(groups);
                Ok(())
            })
        });
        for groups in rx {
            let mut repos = Vec::new();
            for g in groups {
                match g.repo {
                    None => shared = Some(Arc::new(SnapshotIndex::build(g.rows))),
                    Some(r) => repos.push((by_repo.remove(r.as_str()).unwrap_or_default(), g.rows)),
                }
            }
            // Repositories no output targets are not parsed at all.
            repos.retain(|(ids, _)| !ids.is_empty());
            let indexes: Vec<(Vec<usize>, SnapshotIndex)> =
                repos.into_par_iter().map(|(ids, captures)| (ids, SnapshotIndex::build(captures).with_shared(shared.clone()))).collect();
            judge(&mut parts, indexes.iter().flat_map(|(ids, index)| ids.iter().map(move |&i| (i, index))).collect());
            // Seed 002's CI gate, replayed for the outputs that push code.
            let r: Vec<ci_gate::Replay> = indexes
                .par_iter()
                .flat_map_iter(|(ids, index)| {
                    let mut rs: Vec<ci_gate::Replay> = ids.iter().filter_map(|&i| ci_gate::replay(index, &outputs[i])).collect();
                    if let Some(repo) = rs.first().map(|r| r.repo.clone()) {
                        for (pr, v) in ci_gate::loop_states(index, &repo) {
                            rs.iter_mut().filter(|r| r.pull_number == pr).for_each(|r| ci_gate::compare(r, &v));
                        }
                    }
                    rs
                })
                .collect();
            replays.extend(r);
            // Seed 004's PR risk level, from the PRs' captured files.
            let k: Vec<risk::Risk> = indexes
                .par_iter()
                .flat_map_iter(|(ids, index)| ids.iter().filter_map(|&i| risk::assess(index, &outputs[i], &risk_policy)).collect::<Vec<_>>())
                .collect();
            risks.extend(k);
            indexes.into_par_iter().for_each(drop);
        }
        reader.join().unwrap_or_else(|_| Err(Error::Dataset { path: dataset.join("responses.parquet"), message: "the reader thread failed".into() }))
    })?;
    // Outputs of repositories with no capture at all, and outputs with no repository.
    let empty = SnapshotIndex::default().with_shared(shared.clone());
    let mut rest: Vec<usize> = by_repo.into_values().flatten().chain(no_repo).collect();
    rest.sort_unstable();
    replays.extend(rest.iter().filter_map(|&i| ci_gate::replay(&empty, &outputs[i])));
    risks.extend(rest.iter().filter_map(|&i| risk::assess(&empty, &outputs[i], &risk_policy)));
    judge(&mut parts, rest.into_iter().map(|i| (i, &empty)).collect());
    bar.finish_and_clear();
    for t in ci_gate::tables(&replays).into_iter().chain([risk::table(&risks)]) {
        let w = crate::dataset::write_table(dataset, &t)?;
        manifest.record_table(t.name, &w);
    }
    manifest.risk_policy = Some(risk_policy.to_json());
    let batch = OutcomeRows::merge(parts)?;
    let n = batch.num_rows();
    let w = crate::dataset::write_batch(dataset, "outcomes", &batch)?;
    manifest.record_table("outcomes", &w);
    manifest.policy = Some(policy.to_json());
    manifest.windows = windows.iter().map(|w| w.to_string()).collect();
    manifest.save(dataset)?;
    Ok(n)
}
