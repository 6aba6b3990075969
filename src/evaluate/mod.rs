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
pub mod rule;
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
pub(crate) use rule::rows;
pub use rule::{common, deleted, undated, verdict, Common, Evaluator, RowId, RowSpec, Rule};
pub use window::Window;

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

    fn judge(&self, rule: Option<&dyn Evaluator>, case: &mut Case) -> (Verdict, Option<Instant>) {
        let o = case.output;
        // System outputs carry their own meaning whether or not they ran.
        if let Some(v) = rules::system::evaluate(o) {
            return (v, None);
        }
        match o.execution {
            Execution::Executed => {}
            Execution::Staged => return (common(Common::Staged), None),
            Execution::NotExecuted | Execution::RequestedOnly => return (common(Common::NotExecuted), None),
            Execution::Unrecorded => return (common(Common::ExecutionUnrecorded), None),
        }
        let Some(rule) = rule else {
            let v = common(Common::NoTypeSpecificEvaluator).note(format!("no rule for `{}`; its outcome is not measured, never assumed", o.output_type));
            return (v, None);
        };
        if rule.skips() {
            return (rule.evaluate(case), None);
        }
        if rule.targets_number() && o.target_number.is_none() && o.target_comment_id.is_none() {
            return (common(Common::MissingReference), None);
        }
        case.t0 = rule.action_time(case);
        if let Window::Hours(h) = case.window {
            let Some(t0) = case.t0 else {
                return (common(Common::ActionTimeMissing), None);
            };
            // Past chrono's range is past the capture too (an action time read from a dataset can be far out).
            let Some(end) = time::plus_hours(&t0, h) else {
                return (common(Common::WindowNotObservable), None);
            };
            if end > self.captured_at {
                let v = common(Common::WindowNotObservable).detail("window_end", time::format(&end));
                return (v, Some(end));
            }
            // A line's own captured_at overrides the snapshot's: when every capture of the
            // target was taken before the window's end, the window is not observable either.
            if let Some(seen) = self.target_seen_at(o).filter(|seen| end > *seen) {
                let v = common(Common::WindowNotObservable).detail("window_end", time::format(&end)).detail("target_captured_at", time::format(&seen));
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
                v = common(Common::InconsistentState)
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
