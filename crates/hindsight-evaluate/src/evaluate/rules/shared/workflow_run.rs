//! `dispatch_workflow`: docs/SPEC.md [SPEC-WORKFLOWS]; also `call_workflow` and
//! `dispatch_repository` (gh-aw types the specification's tables do not list,
//! [SPEC-EXTRA-TYPES]) when their run id is recorded.
//!
//! ## What a person checks
//! Did the dispatched workflow run successfully?
//!
//! ## Why
//! The run is found by the recorded run id (metadata or request `run_id`) at
//! `actions/runs/ID`; its `status` and `conclusion` are the outcome, timed by
//! `updated_at`. Without a run id the dispatch cannot be followed (`missing_run_id`:
//! the dispatch API returns none, so this is unknown, not rejected). A run that succeeded
//! without an artifact the record expected (`expected_artifacts`, checked against
//! `actions/runs/ID/artifacts`) is weak, by policy `run_without_artifact` (accepted weak
//! by default).
//!
//! ## Example
//! Run 9 completed with conclusion `success` -> `accepted`/`strong`/`workflow_success`.
//!
//! What `dispatch_workflow`, `call_workflow` and `dispatch_repository` share; each type's
//! rule is in its own file.

use crate::evaluate::rule::Decision as D;
use crate::evaluate::case::{Case, Missing};
use crate::evaluate::outcome::{EvidenceStrength as E, Status as S};
use crate::evaluate::{rows, RowSpec, Rule, Verdict};
use crate::json::{as_int, names, str_at};

rows! {
    pub(crate) enum DispatchRow {
        Success => RowSpec {
            id: "success",
            when: "The run completed successfully",
            status: S::Accepted,
            strength: E::Strong,
            signal: "workflow_success",
            seed: "Dispatched run completed successfully",
            policy: None,
            decision: D::State,
        },
        Failed => RowSpec {
            id: "failed",
            when: "The run failed, was cancelled or timed out",
            status: S::Rejected,
            strength: E::Strong,
            signal: "workflow_failed",
            seed: "Run failed, cancelled, or timed out",
            policy: None,
            decision: D::State,
        },
        InProgress => RowSpec {
            id: "in_progress",
            when: "The run is queued or in progress: at capture, or at the window's end by its start and last-update times",
            status: S::Pending,
            strength: E::Medium,
            signal: "workflow_in_progress",
            seed: "Run still in progress",
            policy: None,
            decision: D::State,
        },
        MissingRunId => RowSpec {
            id: "missing_run_id",
            when: "No run id recorded",
            status: S::Unknown,
            strength: E::None,
            signal: "missing_run_id",
            seed: "No matching run found (unknown or rejected, depending dispatch API result)",
            policy: None,
            decision: D::State,
        },
        RunNotFound => RowSpec {
            id: "run_not_found",
            when: "The recorded run answered 404",
            status: S::Rejected,
            strength: E::Medium,
            signal: "workflow_run_not_found",
            seed: "No matching run found (rejected when the API named a run)",
            policy: None,
            decision: D::Gone,
        },
        NoArtifact => RowSpec {
            id: "no_artifact",
            when: "Succeeded, but an expected artifact is missing",
            status: S::Accepted,
            strength: E::Weak,
            signal: "workflow_success_without_artifact",
            seed: "Run succeeded but produced no expected artifact",
            policy: Some("run_without_artifact"),
            decision: D::State,
        },
    }
}

/// Shared by the dispatch-like rules.
pub(crate) fn judge_run<R: Rule<Row = DispatchRow>>(rule: &R, case: &Case) -> Result<Verdict, Verdict> {
    let p = case.recorded.payload();
    let e = case.recorded.expected();
    let run_id = e.get("metadata.run_id").and_then(as_int).or(p.get("run_id").and_then(as_int));
    let Some(id) = run_id else { return Ok(rule.row(DispatchRow::MissingRunId)) };
    let look = case.lookup(&format!("actions/runs/{id}"));
    let run = match &look {
        Ok(v) => *v,
        Err(Missing::Gone(_)) => return Ok(rule.row(DispatchRow::RunNotFound).detail("run_id", id)),
        Err(m) => return Err(crate::evaluate::rules::missing(case, *m).detail("run_id", id)),
    };
    let updated = crate::time::at(run, "updated_at");
    let status = str_at(run, "status").unwrap_or_default();
    let conclusion = str_at(run, "conclusion").unwrap_or_default();
    let done = |v: Verdict| v.resolved(true).detail("run_id", id).detail("conclusion", conclusion);
    // A completed run is the same as of any moment after it finished; one that started by
    // the window's end and was last updated after it was still running then.
    if !case.window.is_snapshot() && updated.is_none_or(|u| u > case.as_of) {
        let started = crate::time::at(run, "run_started_at").or_else(|| crate::time::at(run, "created_at"));
        if let (Some(s), Some(u)) = (started, updated) {
            if s <= case.as_of {
                return Ok(done(rule.row(DispatchRow::InProgress))
                    .detail("run_started_at", crate::time::format(&s))
                    .note(format!("running at the window's end: started {}, last updated {}", crate::time::format(&s), crate::time::format(&u))));
            }
        }
        return Err(crate::evaluate::common(crate::evaluate::Common::HistoryMissing)
            .resolved(true)
            .note("the run finished (or was last updated) after the window's end, and when it started is not captured"));
    }
    if status != "completed" {
        return Ok(done(rule.row(DispatchRow::InProgress)));
    }
    Ok(match conclusion {
        "success" => {
            let expected = e.get("metadata.expected_artifacts").and_then(names).unwrap_or_default();
            if !expected.is_empty() {
                let have: Vec<String> =
                    case.lookup(&format!("actions/runs/{id}/artifacts")).ok().and_then(|v| v.get("artifacts")).and_then(names).unwrap_or_default();
                if expected.iter().any(|a| !have.contains(a)) {
                    return Ok(done(rule.row(DispatchRow::NoArtifact).status(case.policy.run_without_artifact.status()).at(updated)));
                }
            }
            done(rule.row(DispatchRow::Success).at(updated))
        }
        _ => done(rule.row(DispatchRow::Failed).at(updated)),
    })
}

/// A rule that follows the workflow run its output dispatched, named after its type.
macro_rules! dispatch_rule {
    ($name:ident) => {
        pub(crate) struct $name;
        impl $crate::evaluate::Rule for $name {
            fn output_type(&self) -> $crate::runs::output_type::OutputType {
                $crate::runs::output_type::OutputType::$name
            }
            fn human_check(&self) -> &'static str {
                "Did the dispatched workflow run successfully?"
            }
            type Row = $crate::evaluate::rules::shared::workflow_run::DispatchRow;
            fn targets_number(&self) -> bool {
                false
            }
            fn evaluate(&self, case: &$crate::evaluate::Case) -> Result<$crate::evaluate::Verdict, $crate::evaluate::Verdict> {
                $crate::evaluate::rules::shared::workflow_run::judge_run(self, case)
            }
        }
    };
}

pub(crate) use dispatch_rule;

/// The run the output dispatched, and its artifacts.
pub(crate) fn reads_after(_: &crate::runs::SafeOutput, rec: &crate::evaluate::case::Recorded, _: &crate::snapshot::SnapshotIndex) -> Vec<crate::evaluate::rules::Read> {
    use crate::evaluate::rules::Read;
    let Some(id) = crate::evaluate::rules::reads::recorded_int(rec, "run_id") else { return Vec::new() };
    vec![Read::Target(format!("actions/runs/{id}")), Read::Target(format!("actions/runs/{id}/artifacts"))]
}
