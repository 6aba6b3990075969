//! Judging one safe output in every window: the framework around the rules (outputs never
//! executed, windows not observable yet, unknown action times, types without a rule) and
//! the checks on what a rule answers (a decision dated at or before the action).

use super::rule::{common, Common, Evaluator};
use super::repository::RepositoryFacts;
use super::{actors, case, rules, Case, Confidence, Policy, Status, Verdict, Window};
use crate::runs::{Execution, SafeOutput};
use crate::snapshot::SnapshotIndex;
use crate::time::{self, Instant};

/// What the captures of one output's target say whatever the window, found on first use.
#[derive(Default)]
struct TargetCaptures<'i> {
    entries: std::cell::OnceCell<Vec<(String, &'i crate::snapshot::Entry)>>,
    seen_at: std::cell::OnceCell<Option<Instant>>,
    provenance: std::cell::OnceCell<Option<serde_json::Value>>,
}

/// Everything judging needs besides the outputs: one index (a repository's captures, or
/// the whole snapshot's) and what is derived from it once for all its outputs.
pub struct Evaluation<'a> {
    pub index: &'a SnapshotIndex,
    pub captured_at: Instant,
    pub policy: &'a Policy,
    pub windows: &'a [Window],
    /// What is derived once from each repository of `index`.
    repository: RepositoryFacts,
    /// Per run, the time of its last output ([`run_ends`]).
    run_ends: Option<&'a std::collections::HashMap<String, Instant>>,
}

/// Per run, the time of its last output: the last act of a run made with a person's
/// token, after which that account's acts are the person's. AIDev PRs are each their own
/// act (one "run" per agent holds every PR of the agent), so they have none.
/// Takes each output's (run id, the identity it was written as, its time).
pub fn run_ends<'o>(outputs: impl Iterator<Item = (&'o str, Option<&'o str>, Option<Instant>)>) -> std::collections::HashMap<String, Instant> {
    let mut ends: std::collections::HashMap<String, Instant> = std::collections::HashMap::new();
    for (run_id, actor, at) in outputs {
        let (Some(t), Some(actor)) = (at, actor) else { continue };
        if crate::aidev::study::is_run_id(run_id) || actors::is_bot_login(actor) {
            continue;
        }
        match ends.get_mut(run_id) {
            Some(e) => *e = (*e).max(t),
            None => {
                ends.insert(run_id.to_string(), t);
            }
        }
    }
    ends
}

impl<'a> Evaluation<'a> {
    pub fn new(index: &'a SnapshotIndex, captured_at: Instant, policy: &'a Policy, windows: &'a [Window]) -> Self {
        Evaluation { index, captured_at, policy, windows, repository: RepositoryFacts::default(), run_ends: None }
    }

    /// What is derived once from each repository of the index.
    pub(crate) fn facts(&self) -> &RepositoryFacts {
        &self.repository
    }

    /// With each run's last act known ([`run_ends`]).
    pub(crate) fn with_run_ends(mut self, ends: &'a std::collections::HashMap<String, Instant>) -> Self {
        self.run_ends = Some(ends);
        self
    }

    /// One output in every window (in the order of `windows`), sharing gathered activity.
    pub fn judge_all(&self, o: &SafeOutput) -> Vec<(Verdict, Option<Instant>)> {
        let cache = case::OutputCache::default();
        let recorded = case::Recorded::of(o);
        let target = TargetCaptures::default();
        let rule = rules::find(&o.output_type);
        self.windows.iter().map(|w| self.judge_output(o, rule, &recorded, &target, *w, &cache)).collect()
    }

    /// One output in one window, judged by `rule` instead of its type's own: the
    /// promises' test drives every row of every rule through the judge this way.
    #[cfg(test)]
    pub(crate) fn judge_by(&self, o: &SafeOutput, rule: &dyn Evaluator, window: Window) -> Verdict {
        let cache = case::OutputCache::default();
        let recorded = case::Recorded::of(o);
        let target = TargetCaptures::default();
        self.judge_output(o, Some(rule), &recorded, &target, window, &cache).0
    }

    fn judge_output(
        &self,
        o: &SafeOutput,
        rule: Option<&dyn Evaluator>,
        recorded: &'a case::Recorded<'a>,
        target: &TargetCaptures<'a>,
        window: Window,
        cache: &case::OutputCache,
    ) -> (Verdict, Option<Instant>) {
        let mut classifier = actors::Classifier::default();
        if let Some(a) = &o.actor {
            // A person's account the output was written as (a person's token; an AIDev PR
            // opened as the person): the workflow's until its last act, then the person's.
            classifier.add_acting_as(a, !actors::is_bot_login(a), self.policy.requester_acts);
        }
        let run_end = self.run_ends.and_then(|m| m.get(o.run_id.as_ref())).copied();
        classifier.agent_acted_until(run_end.max(o.created_at));
        if self.policy.triggering_actor_is_workflow {
            if let Some(a) = &o.run_actor {
                classifier.add_workflow(a);
            }
        }
        let mut case = Case {
            output: o,
            recorded,
            window,
            index: self.index,
            policy: self.policy,
            captured_at: self.captured_at,
            t0: o.created_at,
            as_of: self.captured_at,
            actors: classifier,
            cache,
            repository: &self.repository,
        };
        self.judge(rule, &mut case, target)
    }

    /// The latest time any capture of the output's target (the object and its activity
    /// lists) was taken: the line's own `captured_at`, else the snapshot's. `None` when
    /// none is captured, or none was looked for (`target_entries`).
    fn target_seen_at(&self, entries: &[(String, &crate::snapshot::Entry)]) -> Option<Instant> {
        entries.iter().map(|(_, e)| e.captured_at.unwrap_or(self.captured_at)).max()
    }

    /// The target's captures, found on first use and kept for the output's other windows.
    fn entries_of<'t>(&self, target: &'t TargetCaptures<'a>, o: &SafeOutput) -> &'t [(String, &'a crate::snapshot::Entry)] {
        target.entries.get_or_init(|| self.target_entries(o))
    }

    /// The captures of the output's target that bear on when it was seen and where its
    /// evidence came from: the object and its activity lists. None to look for when no
    /// capture has a time or a source of its own (the snapshot's time then bounds every
    /// window, and there is no provenance to report).
    fn target_entries(&self, o: &SafeOutput) -> Vec<(String, &'a crate::snapshot::Entry)> {
        if !self.index.has_provenance() {
            return Vec::new();
        }
        // (before the number, after it): `issues/{n}`, `pulls/{n}`, ..., as capture asks for them.
        use super::rules::reads::JUDGED as TAILS;
        let (Some(repo), Some(n)) = (o.target_repo.as_deref(), o.target_number) else { return Vec::new() };
        // One path buffer for the eight lookups; a tail is kept only for what was captured.
        let mut path = crate::snapshot::paths::rest(repo, "");
        let base = path.len();
        let mut found = Vec::new();
        for (before, after) in TAILS {
            use std::fmt::Write;
            path.truncate(base);
            let _ = write!(path, "{before}{n}{after}");
            if let Some(e) = self.index.get(&path) {
                found.push((path[base..].to_string(), e));
            }
        }
        found
    }

    /// Where the target's evidence came from, when that is not simply "its own path, as of
    /// the snapshot": captures with their own `captured_at`, and copies derived from other
    /// captures (a repository-wide list, an issue-shaped PR, search results).
    fn provenance(&self, entries: &[(String, &crate::snapshot::Entry)]) -> Option<serde_json::Value> {
        let rows: Vec<serde_json::Value> = entries
            .iter()
            .filter(|(_, e)| e.has_provenance())
            .map(|(tail, e)| {
                let mut m = serde_json::Map::new();
                m.insert("path".into(), tail.as_str().into());
                m.insert("captured_at".into(), e.captured_at.map(|t| time::format(&t)).into());
                if let Some(f) = &e.derived_from {
                    m.insert("derived_from".into(), f.clone().into());
                }
                serde_json::Value::Object(m)
            })
            .collect();
        (!rows.is_empty()).then_some(serde_json::Value::Array(rows))
    }

    fn judge(&self, rule: Option<&dyn Evaluator>, case: &mut Case, target: &TargetCaptures<'a>) -> (Verdict, Option<Instant>) {
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
            Execution::Cancelled => return (common(Common::RunCancelled).detail("run_conclusion", "cancelled"), None),
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
            if let Some(seen) = target.seen_at.get_or_init(|| self.target_seen_at(self.entries_of(target, o))).filter(|seen| end > *seen) {
                let v = common(Common::WindowNotObservable).detail("window_end", time::format(&end)).detail("target_captured_at", time::format(&seen));
                return (v, Some(end));
            }
            case.as_of = end;
        }
        // The promises every rule keeps are kept here, once (`promises`).
        let mut v = super::promises::keep(case, rule.evaluate(case));
        if let Some(p) = target.provenance.get_or_init(|| self.provenance(self.entries_of(target, o))) {
            v = v.detail("evidence", p.clone());
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
