//! Task records and task events of an agent platform (docs/SPEC.md [SPEC-TASKS-SOURCES]:
//! task outcomes and the TaskEvents audit log), read from a directory beside `runs/`
//! holding `tasks.jsonl` and `events.jsonl` (shapes in `schemas/tasks.md`), and the failure
//! categorization of the evaluation pipeline ([SPEC-TASKS-FAILURES]) over them (see
//! [`categorize`]).
//!
//! A task links to the snapshot through its PR: `pr_url` gives the repository and number
//! (parsed as every other GitHub URL is), `head_sha` the commit; both are columns of the
//! `tasks` table, so a query joins them to the snapshot's tables.
//!
//! Every line read is used or quarantined (input `tasks`), never dropped: records read =
//! used + quarantined.

pub mod categorize;
pub mod evidence;
pub mod insights;
pub mod tables;

use std::collections::HashMap;
use std::path::Path;

use serde_json::{Map, Value};

use crate::error::{Error, Result};
use crate::inputs::InputFile;
use crate::quarantine::Quarantined;
use crate::time::Instant;

pub use categorize::{Failure, FailureCategory, TaskPolicy};

/// The input's name in the manifest and the quarantine table.
pub const INPUT: &str = "tasks";
/// Task records, one JSON object a line.
pub const TASKS_FILE: &str = "tasks.jsonl";
/// Task events, one JSON object a line.
pub const EVENTS_FILE: &str = "events.jsonl";
/// The texts of the system prompt's versions, one JSON object a line.
pub const PROMPTS_FILE: &str = "prompts.jsonl";

/// The risk levels a platform records on a task ([SPEC-TASKS-TIER3]: low, medium, high,
/// critical), as hindsight's own `pr_risk` names them.
pub(crate) const RISK_LEVELS: [&str; 4] = ["low", "medium", "high", "critical"];

/// The statuses a finished task can have ([SPEC-TASKS-SOURCES]: COMPLETED, FAILED,
/// TIMED_OUT; the platform's CANCELLED too). A task still running has no outcome to study:
/// its record is quarantined with the reason.
pub(crate) const STATUSES: [&str; 4] = ["COMPLETED", "FAILED", "CANCELLED", "TIMED_OUT"];

/// One task record.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Task {
    pub task_id: String,
    pub(crate) status: String,
    pub repo: Option<String>,
    /// The user the task ran for ([SPEC-TASKS-PROMPTS] breaks the figures down by
    /// repository, user and prompt version).
    pub(crate) user_id: Option<String>,
    pub(crate) branch_name: Option<String>,
    pub(crate) pr_url: Option<String>,
    pub(crate) prompt_version: Option<String>,
    pub(crate) error_message: Option<String>,
    pub(crate) duration_s: Option<f64>,
    pub(crate) cost_usd: Option<f64>,
    /// Tokens the model read and wrote over the task (the A/B comparison's token usage,
    /// [SPEC-TASKS-PROMPTS]).
    pub(crate) input_tokens: Option<i64>,
    pub(crate) output_tokens: Option<i64>,
    pub(crate) build_passed: Option<bool>,
    pub(crate) lint_passed: Option<bool>,
    pub(crate) head_sha: Option<String>,
    /// The task's text as submitted (`description`): the files it names are what
    /// `change_outside_named_files` compares the PR with.
    pub(crate) description: Option<String>,
    /// The risk level the platform itself recorded on the task (`risk_level`), beside
    /// hindsight's own in `pr_risk`.
    pub(crate) platform_risk_level: Option<String>,
    pub created_at: Option<Instant>,
    pub(crate) completed_at: Option<Instant>,
    /// Paths the task may change (`metadata.scope`): a file is in scope when it is one of
    /// them or lies below one. Empty when the task declares none (then no change is out of
    /// scope: nothing was declared to compare with).
    pub(crate) scope: Vec<String>,
    /// `metadata` as canonical JSON, when present.
    pub(crate) metadata: Option<String>,
    pub(crate) source_line: i64,
}

impl Task {
    /// The repository and number of `pr_url` when it is a GitHub pull-request URL: the
    /// task's link to the snapshot.
    pub fn pull_request(&self) -> Option<(String, i64)> {
        let u = crate::snapshot::paths::parse_url(self.pr_url.as_deref()?);
        if u.kind != Some("pull_request") {
            return None;
        }
        Some((u.repo?, u.number?))
    }
}

/// One task event.
#[derive(Clone, Debug, PartialEq)]
pub struct TaskEvent {
    pub(crate) event_id: String,
    pub task_id: String,
    pub(crate) event_type: String,
    pub(crate) timestamp: Instant,
    /// `metadata`, an object (empty when absent).
    pub(crate) metadata: Map<String, Value>,
    pub(crate) source_line: i64,
}

impl TaskEvent {
    /// A string member of `metadata`.
    pub(crate) fn meta_str(&self, key: &str) -> Option<&str> {
        self.metadata.get(key).and_then(Value::as_str)
    }
}

/// When a task was submitted and when it opened its PR, from its events: the time
/// to PR of [SPEC-TASKS-MEMORY], "duration from task submission to PR creation".
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Timing {
    /// The task's first `task_created` event, else the record's `created_at`.
    pub(crate) submitted_at: Option<Instant>,
    /// The task's first `pr_created` event.
    pub(crate) pr_created_at: Option<Instant>,
}

impl Timing {
    /// The timing of `task` from its events (any order).
    pub(crate) fn of(task: &Task, events: &[&TaskEvent]) -> Timing {
        let first = |kind: &str| events.iter().filter(|e| e.event_type == kind).map(|e| e.timestamp).min();
        Timing { submitted_at: first("task_created").or(task.created_at), pr_created_at: first("pr_created") }
    }

    /// Hours from submission to PR creation, when both are known.
    pub(crate) fn hours_to_pr(&self) -> Option<f64> {
        Some(crate::time::hours_between(&self.submitted_at?, &self.pr_created_at?))
    }
}

/// Each task's timing, in the order of `tasks`.
pub fn timings(tasks: &[Task], events: &[TaskEvent]) -> Vec<Timing> {
    let mut by_task: HashMap<&str, Vec<&TaskEvent>> = HashMap::new();
    for e in events {
        by_task.entry(e.task_id.as_str()).or_default().push(e);
    }
    tasks.iter().map(|t| Timing::of(t, by_task.get(t.task_id.as_str()).map_or(&[][..], Vec::as_slice))).collect()
}

/// The time to PR of every task PR (`pr_url` a GitHub pull request), by (repository,
/// number): of the earliest-submitted task naming it when several do (then the lowest task
/// id), and only when that task's time to PR is known.
pub fn hours_to_pr(tasks: &[Task], timings: &[Timing]) -> crate::feedback::HoursToPr {
    let mut first: std::collections::BTreeMap<(String, i64), (Option<Instant>, &str, Option<f64>)> = std::collections::BTreeMap::new();
    for (t, timing) in tasks.iter().zip(timings) {
        let Some(pr) = t.pull_request() else { continue };
        // A task with no submission time sorts after every one with a time.
        let key = (timing.submitted_at.is_none(), timing.submitted_at, t.task_id.as_str());
        let candidate = (timing.submitted_at, t.task_id.as_str(), timing.hours_to_pr());
        match first.get(&pr) {
            Some((at, id, _)) if (at.is_none(), *at, *id) <= key => {}
            _ => {
                first.insert(pr, candidate);
            }
        }
    }
    first.into_iter().filter_map(|(pr, (_, _, h))| h.map(|h| (pr, h))).collect()
}

#[derive(Default)]
pub struct TasksRead {
    /// Sorted by task id.
    pub tasks: Vec<Task>,
    /// Sorted by (task id, timestamp, event id).
    pub events: Vec<TaskEvent>,
    /// The prompt versions' texts, sorted by (repository, version).
    pub prompts: Vec<insights::PromptText>,
    pub quarantined: Vec<Quarantined>,
    pub files: Vec<InputFile>,
}

impl TasksRead {
    /// Records used: every task, event and prompt text kept.
    pub fn used(&self) -> usize {
        self.tasks.len() + self.events.len() + self.prompts.len()
    }
}

/// Why a line was not used: the field at fault, if one is, and the reason.
type Bad = (Option<&'static str>, String);

/// Read `tasks.jsonl`, `events.jsonl` and `prompts.jsonl` under `dir` (any may be absent;
/// the directory must exist). A file that is a link leading out of `dir`, or not a regular file, is
/// refused: listed, quarantined, unread.
pub fn read(dir: &Path) -> Result<TasksRead> {
    if !dir.is_dir() {
        return Err(Error::Layout { path: dir.to_path_buf(), message: "--tasks must be a directory holding tasks.jsonl and events.jsonl".into() });
    }
    let mut out = TasksRead::default();
    // An id seen twice: the first is kept, the later one quarantined (which of two
    // different records is right cannot be told). Lines are read in order, so "first" is
    // the earlier line.
    let mut task_ids: HashMap<String, usize> = HashMap::new();
    let mut event_ids: HashMap<String, usize> = HashMap::new();
    let mut prompt_ids: HashMap<(Option<String>, String), usize> = HashMap::new();
    for name in [TASKS_FILE, EVENTS_FILE, PROMPTS_FILE] {
        let p = dir.join(name);
        match std::fs::symlink_metadata(&p) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(Error::io(&p, e)),
            Ok(_) => {}
        }
        if let Some(why) = crate::inputs::refusal(dir, &p, INPUT) {
            out.quarantined.push(Quarantined::new(INPUT, name, None, None, why, ""));
            out.files.push(InputFile::refused(INPUT, name.to_string()));
            continue;
        }
        let bytes = crate::inputs::read_regular(&p)?;
        let lines = crate::inputs::jsonl_byte_lines(&bytes, 1, 0).0;
        out.files.push(InputFile::from_bytes(INPUT, name.to_string(), &bytes, lines.len()));
        for l in lines {
            let parsed = l.text.clone().map_err(|why| (None, why)).and_then(|text| object(text, l.unterminated));
            let lineno = l.lineno as i64;
            let result = parsed.and_then(|v| match name {
                TASKS_FILE => task(&v, lineno).map(Record::Task),
                EVENTS_FILE => event(&v, lineno).map(Record::Event),
                _ => prompt(&v, lineno).map(Record::Prompt),
            });
            let result = match result {
                Ok(Record::Task(t)) => match task_ids.get(&t.task_id) {
                    Some(first) => Err((Some("task_id"), format!("duplicate task id (first at line {first})"))),
                    None => {
                        task_ids.insert(t.task_id.clone(), l.lineno);
                        out.tasks.push(t);
                        Ok(())
                    }
                },
                Ok(Record::Event(e)) => match event_ids.get(&e.event_id) {
                    Some(first) => Err((Some("event_id"), format!("duplicate event id (first at line {first})"))),
                    None => {
                        event_ids.insert(e.event_id.clone(), l.lineno);
                        out.events.push(e);
                        Ok(())
                    }
                },
                Ok(Record::Prompt(p)) => match prompt_ids.get(&(p.repo.clone(), p.prompt_version.clone())) {
                    Some(first) => Err((Some("prompt_version"), format!("the same prompt version and repository twice (first at line {first})"))),
                    None => {
                        prompt_ids.insert((p.repo.clone(), p.prompt_version.clone()), l.lineno);
                        out.prompts.push(p);
                        Ok(())
                    }
                },
                Err(bad) => Err(bad),
            };
            if let Err((field, reason)) = result {
                out.quarantined.push(Quarantined::new(INPUT, name, Some(l.lineno), field, reason, &l.raw));
            }
        }
    }
    out.tasks.sort_by(|a, b| a.task_id.cmp(&b.task_id));
    out.events.sort_by(|a, b| (&a.task_id, a.timestamp, &a.event_id).cmp(&(&b.task_id, b.timestamp, &b.event_id)));
    out.prompts.sort_by(|a, b| (&a.repo, &a.prompt_version).cmp(&(&b.repo, &b.prompt_version)));
    Ok(out)
}

// One record at a time goes through here; boxing the task would buy nothing.
#[allow(clippy::large_enum_variant)]
enum Record {
    Task(Task),
    Event(TaskEvent),
    Prompt(insights::PromptText),
}

fn object(text: &str, unterminated: bool) -> std::result::Result<Value, Bad> {
    if let Some(why) = crate::json::too_deep(text) {
        return Err((None, why));
    }
    match serde_json::from_str::<Value>(text) {
        // Two readers could take different copies of a repeated key: the record is ambiguous.
        Ok(v) if v.is_object() => crate::json::unique_keys(text).map(|()| v).map_err(|e| (None, e.to_string())),
        Ok(_) => Err((None, "not a JSON object".into())),
        Err(e) if e.is_eof() && unterminated => Err((None, crate::inputs::truncated(e))),
        Err(e) => Err((None, format!("not valid JSON: {e}"))),
    }
}

fn required_str<'a>(v: &'a Value, field: &'static str) -> std::result::Result<&'a str, Bad> {
    match v.get(field) {
        Some(Value::String(s)) if !s.trim().is_empty() => Ok(s),
        Some(_) => Err((Some(field), "expected a non-empty string".into())),
        None => Err((Some(field), "missing (required)".into())),
    }
}

fn optional_str(v: &Value, field: &'static str) -> std::result::Result<Option<String>, Bad> {
    match v.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err((Some(field), "expected a string or null".into())),
    }
}

fn optional_num(v: &Value, field: &'static str) -> std::result::Result<Option<f64>, Bad> {
    match v.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => n.as_f64().filter(|x| x.is_finite() && *x >= 0.0).map(Some).ok_or((Some(field), "expected a number 0 or above".into())),
        Some(_) => Err((Some(field), "expected a number or null".into())),
    }
}

fn optional_count(v: &Value, field: &'static str) -> std::result::Result<Option<i64>, Bad> {
    match v.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => n.as_i64().filter(|x| *x >= 0).map(Some).ok_or((Some(field), "expected a whole number 0 or above".into())),
        Some(_) => Err((Some(field), "expected a number or null".into())),
    }
}

fn optional_bool(v: &Value, field: &'static str) -> std::result::Result<Option<bool>, Bad> {
    match v.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(_) => Err((Some(field), "expected true, false or null".into())),
    }
}

fn optional_time(v: &Value, field: &'static str) -> std::result::Result<Option<Instant>, Bad> {
    match optional_str(v, field)? {
        None => Ok(None),
        Some(s) => crate::time::parse(&s).map(Some).ok_or((Some(field), format!("not an RFC 3339 timestamp: {s:?}"))),
    }
}

fn metadata(v: &Value) -> std::result::Result<Option<&Map<String, Value>>, Bad> {
    match v.get("metadata") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Object(m)) => Ok(Some(m)),
        Some(_) => Err((Some("metadata"), "expected an object or null".into())),
    }
}

fn task(v: &Value, line: i64) -> std::result::Result<Task, Bad> {
    let task_id = required_str(v, "task_id")?.to_string();
    let status = required_str(v, "status")?;
    if !STATUSES.contains(&status) {
        return Err((Some("status"), format!("{status:?} is not a finished task's status (expected one of {})", STATUSES.join(", "))));
    }
    let meta = metadata(v)?;
    let scope = match meta.and_then(|m| m.get("scope")) {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(a)) => a
            .iter()
            .map(|p| p.as_str().filter(|s| !s.is_empty()).map(str::to_string))
            .collect::<Option<Vec<_>>>()
            .ok_or((Some("metadata"), "`scope` must be an array of non-empty path strings".to_string()))?,
        Some(_) => return Err((Some("metadata"), "`scope` must be an array of non-empty path strings".into())),
    };
    Ok(Task {
        task_id,
        status: status.to_string(),
        repo: optional_str(v, "repo")?,
        user_id: optional_str(v, "user_id")?,
        branch_name: optional_str(v, "branch_name")?,
        pr_url: optional_str(v, "pr_url")?,
        prompt_version: optional_str(v, "prompt_version")?,
        error_message: optional_str(v, "error_message")?,
        duration_s: optional_num(v, "duration_s")?,
        cost_usd: optional_num(v, "cost_usd")?,
        input_tokens: optional_count(v, "input_tokens")?,
        output_tokens: optional_count(v, "output_tokens")?,
        build_passed: optional_bool(v, "build_passed")?,
        lint_passed: optional_bool(v, "lint_passed")?,
        head_sha: optional_str(v, "head_sha")?,
        description: optional_str(v, "description")?,
        platform_risk_level: risk_level(v)?,
        created_at: optional_time(v, "created_at")?,
        completed_at: optional_time(v, "completed_at")?,
        scope,
        metadata: meta.map(|m| crate::json::canonical(&Value::Object(m.clone()))),
        source_line: line,
    })
}

/// `risk_level`, one of [`RISK_LEVELS`] in any case (kept in lower case).
fn risk_level(v: &Value) -> std::result::Result<Option<String>, Bad> {
    match optional_str(v, "risk_level")? {
        None => Ok(None),
        Some(l) if RISK_LEVELS.contains(&l.to_ascii_lowercase().as_str()) => Ok(Some(l.to_ascii_lowercase())),
        Some(l) => Err((Some("risk_level"), format!("{l:?} is not a risk level (expected one of {})", RISK_LEVELS.join(", ")))),
    }
}

/// A line of `prompts.jsonl`.
fn prompt(v: &Value, line: i64) -> std::result::Result<insights::PromptText, Bad> {
    let prompt_version = required_str(v, "prompt_version")?.to_string();
    let text = match v.get("text") {
        Some(Value::String(s)) => s.clone(),
        Some(_) => return Err((Some("text"), "expected a string".into())),
        None => return Err((Some("text"), "missing (required)".into())),
    };
    Ok(insights::PromptText { repo: optional_str(v, "repo")?, prompt_version, text, released_at: optional_time(v, "released_at")?, source_line: line })
}

fn event(v: &Value, line: i64) -> std::result::Result<TaskEvent, Bad> {
    let event_id = required_str(v, "event_id")?.to_string();
    let task_id = required_str(v, "task_id")?.to_string();
    let event_type = required_str(v, "event_type")?.to_string();
    let ts = required_str(v, "timestamp")?;
    let timestamp = crate::time::parse(ts).ok_or((Some("timestamp"), format!("not an RFC 3339 timestamp: {ts:?}")))?;
    let metadata = metadata(v)?.cloned().unwrap_or_default();
    Ok(TaskEvent { event_id, task_id, event_type, timestamp, metadata, source_line: line })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_task_needs_an_id_and_a_finished_status() {
        let v: Value = serde_json::json!({"task_id": "t1", "status": "RUNNING"});
        assert_eq!(task(&v, 1).unwrap_err().0, Some("status"));
        let v: Value = serde_json::json!({"status": "FAILED"});
        assert_eq!(task(&v, 1).unwrap_err().0, Some("task_id"));
        let v: Value = serde_json::json!({"task_id": "t1", "status": "FAILED", "cost_usd": "3"});
        assert_eq!(task(&v, 1).unwrap_err().0, Some("cost_usd"));
        for bad in [serde_json::json!(1.5), serde_json::json!(-1), serde_json::json!("12")] {
            let v: Value = serde_json::json!({"task_id": "t1", "status": "FAILED", "input_tokens": bad});
            assert_eq!(task(&v, 1).unwrap_err().0, Some("input_tokens"));
        }
        let v: Value = serde_json::json!({"task_id": "t1", "status": "FAILED", "user_id": "alice", "input_tokens": 1200, "output_tokens": 300});
        let t = task(&v, 1).unwrap();
        assert_eq!((t.user_id.as_deref(), t.input_tokens, t.output_tokens), (Some("alice"), Some(1200), Some(300)));
        let v: Value = serde_json::json!({"task_id": "t1", "status": "FAILED", "metadata": {"scope": ["src/"]}, "build_passed": false});
        let t = task(&v, 1).unwrap();
        assert_eq!((t.scope, t.build_passed), (vec!["src/".to_string()], Some(false)));
    }

    /// Submission is the first `task_created` event, else the record's `created_at`; time to
    /// PR runs to the first `pr_created` event; a PR named by two tasks takes the
    /// earliest-submitted one's.
    #[test]
    fn time_to_pr_from_submission_to_the_pr_created_event() {
        let at = |s: &str| crate::time::parse(s).unwrap();
        let ev = |id: &str, task: &str, kind: &str, ts: &str| TaskEvent {
            event_id: id.into(),
            task_id: task.into(),
            event_type: kind.into(),
            timestamp: at(ts),
            metadata: Map::new(),
            source_line: 1,
        };
        let task = |id: &str, created: Option<&str>| Task {
            task_id: id.into(),
            status: "COMPLETED".into(),
            pr_url: Some("https://github.com/o/r/pull/7".into()),
            created_at: created.map(at),
            ..Task::default()
        };
        let tasks = [task("a", Some("2026-01-01T00:00:00Z")), task("b", Some("2026-01-05T00:00:00Z")), task("c", None)];
        let events = [
            // a: its event says 01:00, later than the record; the event wins. Two pr_created: the first counts.
            ev("1", "a", "task_created", "2026-01-01T01:00:00Z"),
            ev("2", "a", "pr_created", "2026-01-01T04:00:00Z"),
            ev("3", "a", "pr_created", "2026-01-01T09:00:00Z"),
            // b: no task_created event: the record's created_at.
            ev("4", "b", "pr_created", "2026-01-05T06:00:00Z"),
        ];
        let t = timings(&tasks, &events);
        assert_eq!(t.iter().map(Timing::hours_to_pr).collect::<Vec<_>>(), [Some(3.0), Some(6.0), None]);
        assert_eq!(t[0].submitted_at, Some(at("2026-01-01T01:00:00Z")));
        // All three name o/r#7: a was submitted first.
        assert_eq!(hours_to_pr(&tasks, &t).get(&("o/r".to_string(), 7)), Some(&3.0));
    }

    #[test]
    fn an_event_needs_a_timestamp() {
        let v: Value = serde_json::json!({"event_id": "e", "task_id": "t", "event_type": "task_failed", "timestamp": "yesterday"});
        assert_eq!(event(&v, 1).unwrap_err().0, Some("timestamp"));
        let v: Value = serde_json::json!({"event_id": "e", "task_id": "t", "event_type": "task_failed", "timestamp": "2026-01-01T00:00:00Z"});
        assert!(event(&v, 1).is_ok());
    }
}
