//! `tasks`, `task_events` and `task_failures` tables.

use super::insights::{Insight, PromptChange, PromptText};
use super::{Failure, Task, TaskEvent, Timing};
use crate::table::{i, ob, of, oi, os, s, t, Kind, Table};

/// The columns of `tasks`.
const TASK_COLUMNS: &[(&str, Kind)] = &[
    ("task_id", Kind::Str),
    ("status", Kind::Str),
    ("repo", Kind::Str),
    ("user_id", Kind::Str),
    ("branch_name", Kind::Str),
    ("pr_url", Kind::Str),
    ("pr_repo", Kind::Str),
    ("pr_number", Kind::Int),
    ("issue_url", Kind::Str),
    ("issue_repo", Kind::Str),
    ("issue_number", Kind::Int),
    ("head_sha", Kind::Str),
    ("prompt_version", Kind::Str),
    ("description", Kind::Str),
    ("platform_risk_level", Kind::Str),
    ("memory_version", Kind::Str),
    ("hydration_score", Kind::Float),
    ("error_message", Kind::Str),
    ("duration_s", Kind::Float),
    ("cost_usd", Kind::Float),
    ("input_tokens", Kind::Int),
    ("output_tokens", Kind::Int),
    ("build_passed", Kind::Bool),
    ("lint_passed", Kind::Bool),
    ("test_runs", Kind::Int),
    ("test_runs_failed", Kind::Int),
    ("lint_runs", Kind::Int),
    ("lint_runs_failed", Kind::Int),
    ("typecheck_runs", Kind::Int),
    ("typecheck_runs_failed", Kind::Int),
    ("security_scan_runs", Kind::Int),
    ("security_scan_runs_failed", Kind::Int),
    ("created_at", Kind::Time),
    ("completed_at", Kind::Time),
    ("submitted_at", Kind::Time),
    ("hours_to_pr", Kind::Float),
    ("scope", Kind::Str),
    ("metadata", Kind::Str),
    ("source_line", Kind::Int),
];

/// One row per task; `pr_repo` and `pr_number` are parsed from `pr_url` (null when it is no
/// GitHub pull-request URL), the link to the snapshot's tables; `submitted_at` and
/// `hours_to_pr` from `timings` (one per task, in the same order: [`super::timings`]).
/// `validations` likewise ([`super::categorize::validations`]).
pub fn tasks(tasks: &[Task], timings: &[Timing], validations: &[super::categorize::Validation]) -> Table {
    let mut tb = Table::new("tasks", TASK_COLUMNS);
    for ((x, timing), v) in tasks.iter().zip(timings).zip(validations) {
        let pr = x.pull_request();
        let issue = x.issue();
        let scope = (!x.scope.is_empty()).then(|| x.scope.join("\n"));
        tb.push(vec![
            s(&x.task_id),
            s(&x.status),
            os(x.repo.as_ref()),
            os(x.user_id.as_ref()),
            os(x.branch_name.as_ref()),
            os(x.pr_url.as_ref()),
            os(pr.as_ref().map(|(r, _)| r)),
            oi(pr.as_ref().map(|(_, n)| *n)),
            os(x.issue_url.as_ref()),
            os(issue.as_ref().map(|(r, _)| r)),
            oi(issue.as_ref().map(|(_, n)| *n)),
            os(x.head_sha.as_ref()),
            os(x.prompt_version.as_ref()),
            os(x.description.as_ref()),
            os(x.platform_risk_level.as_ref()),
            os(x.memory_version.as_ref()),
            of(x.hydration_score),
            os(x.error_message.as_ref()),
            of(x.duration_s),
            of(x.cost_usd),
            oi(x.input_tokens),
            oi(x.output_tokens),
            ob(x.build_passed),
            ob(x.lint_passed),
            i(v.runs[0].0),
            i(v.runs[0].1),
            i(v.runs[1].0),
            i(v.runs[1].1),
            i(v.runs[2].0),
            i(v.runs[2].1),
            i(v.runs[3].0),
            i(v.runs[3].1),
            t(x.created_at),
            t(x.completed_at),
            t(timing.submitted_at),
            of(timing.hours_to_pr()),
            os(scope),
            os(x.metadata.as_ref()),
            i(x.source_line),
        ]);
    }
    tb
}

/// One row per event; `metadata` as canonical JSON, `command` pulled out for queries.
pub fn task_events(events: &[TaskEvent]) -> Table {
    let mut tb = Table::new(
        "task_events",
        &[
            ("event_id", Kind::Str),
            ("task_id", Kind::Str),
            ("event_type", Kind::Str),
            ("timestamp", Kind::Time),
            ("command", Kind::Str),
            ("metadata", Kind::Str),
            ("source_line", Kind::Int),
        ],
    );
    for e in events {
        tb.push(vec![
            s(&e.event_id),
            s(&e.task_id),
            s(&e.event_type),
            t(Some(e.timestamp)),
            os(e.meta_str("command")),
            s(crate::json::canonical(&serde_json::Value::Object(e.metadata.clone()))),
            i(e.source_line),
        ]);
    }
    tb
}

/// One row per failed, cancelled or timed-out task.
pub fn task_failures(failures: &[Failure]) -> Table {
    let mut tb = Table::new("task_failures", &[("task_id", Kind::Str), ("failure_category", Kind::Str), ("rule_id", Kind::Str), ("evidence", Kind::Str)]);
    for f in failures {
        tb.push(vec![s(&f.task_id), s(f.category.as_str()), os(f.rule_id), os(f.evidence.as_ref())]);
    }
    tb
}

/// One row per insight ([`super::insights::insights`]'s order).
pub fn insights(rows: &[Insight]) -> Table {
    let mut tb = Table::new(
        "insights",
        &[
            ("insight_id", Kind::Str),
            ("task_id", Kind::Str),
            ("repo", Kind::Str),
            ("insight_type", Kind::Str),
            ("timestamp", Kind::Time),
            ("text", Kind::Str),
            ("source", Kind::Str),
            ("prompt_version", Kind::Str),
            ("prompt_section", Kind::Str),
            ("failure_category", Kind::Str),
            ("tokens", Kind::Str),
            ("repeats_insight_id", Kind::Str),
            ("similarity", Kind::Float),
        ],
    );
    for x in rows {
        tb.push(vec![
            s(&x.insight_id),
            s(&x.task_id),
            os(x.repo.as_ref()),
            s(x.insight_type.as_str()),
            t(x.timestamp),
            s(&x.text),
            s(&x.source),
            os(x.prompt_version.as_ref()),
            os(x.prompt_section.as_ref()),
            os(x.failure_category.map(|c| c.as_str())),
            os(x.tokens.as_ref()),
            os(x.repeats_insight_id.as_ref()),
            of(x.similarity),
        ]);
    }
    tb
}

/// One row per pair of consecutive prompt versions ([`super::insights::prompt_changes`]).
pub fn prompt_changes(rows: &[PromptChange]) -> Table {
    let mut tb = Table::new(
        "prompt_changes",
        &[
            ("repo", Kind::Str),
            ("step", Kind::Int),
            ("from_version", Kind::Str),
            ("to_version", Kind::Str),
            ("from_released_at", Kind::Time),
            ("to_released_at", Kind::Time),
            ("ordered_by", Kind::Str),
            ("lines_added", Kind::Int),
            ("lines_removed", Kind::Int),
            ("sections_changed", Kind::Str),
            ("diff", Kind::Str),
        ],
    );
    for x in rows {
        tb.push(vec![
            os(x.repo.as_ref()),
            i(x.step),
            s(&x.from_version),
            s(&x.to_version),
            t(x.from_released_at),
            t(x.to_released_at),
            s(x.ordered_by),
            i(x.lines_added),
            i(x.lines_removed),
            s(&x.sections_changed),
            s(&x.diff),
        ]);
    }
    tb
}

/// One row per prompt version's text (`prompts.jsonl`), by (repository, version).
pub fn prompts(rows: &[PromptText]) -> Table {
    let mut tb = Table::new(
        "prompts",
        &[("repo", Kind::Str), ("prompt_version", Kind::Str), ("released_at", Kind::Time), ("text", Kind::Str), ("source_line", Kind::Int)],
    );
    for p in rows {
        tb.push(vec![os(p.repo.as_ref()), s(&p.prompt_version), t(p.released_at), s(&p.text), i(p.source_line)]);
    }
    tb
}
