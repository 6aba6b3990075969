//! What agent traces say about tasks: a trace (opentraces, or OTLP spans read as one) that
//! names its task (`metadata.task_id`) lends the task its tool calls, read as the task's own
//! `agent_tool_call` and `agent_tool_result` events by failure categorization and the
//! tier-1 counts; and a step marked `insight_type: agent_self_feedback` (on the step or in
//! its `metadata`) is the agent's self-feedback, read as task events are.
//!
//! These events are the traces' evidence, not the platform's records: they are never
//! written to `task_events`, and each names its trace and step (`trace:ID:STEP:CALL`).

use serde_json::{json, Map, Value};

use super::TaskEvent;
use crate::json::{int_at, str_at, str_path};
use crate::traces::TraceRecord;

/// The task a trace names, if any.
pub fn task_of(t: &TraceRecord) -> Option<&str> {
    str_path(&t.record, &["metadata", "task_id"]).filter(|s| !s.is_empty())
}

/// A command a tool call ran: its input's `command` (or `cmd`), or the input itself when it
/// is text.
fn command(input: &Value) -> Option<&str> {
    str_at(input, "command").or_else(|| str_at(input, "cmd")).or_else(|| input.as_str())
}

/// The events traces lend to tasks, in trace and step order. Self-feedback of a trace that
/// names no task belongs to the trace (`trace:ID`).
pub fn events(traces: &[TraceRecord]) -> Vec<TaskEvent> {
    let mut out = Vec::new();
    for t in traces {
        let task = task_of(t).map(str::to_string);
        let start = str_at(&t.record, "timestamp_start").and_then(crate::time::parse);
        let repo = str_path(&t.record, &["task", "repository"]).map(str::to_string);
        for (k, step) in t.record.get("steps").and_then(Value::as_array).into_iter().flatten().enumerate() {
            let index = int_at(step, "step_index").unwrap_or(k as i64 + 1);
            let Some(at) = str_at(step, "timestamp").and_then(crate::time::parse).or(start) else { continue };
            let event = |id: String, task_id: &str, kind: &str, metadata: Map<String, Value>| TaskEvent {
                event_id: id,
                task_id: task_id.to_string(),
                event_type: kind.to_string(),
                timestamp: at,
                metadata,
                source_line: t.source_line,
            };
            let marked = |v: &Value| str_at(v, "insight_type") == Some("agent_self_feedback");
            if marked(step) || step.get("metadata").is_some_and(marked) {
                if let Some(text) = str_at(step, "content").filter(|c| !c.trim().is_empty()) {
                    let owner = task.clone().unwrap_or_else(|| format!("trace:{}", t.trace_id));
                    let mut m = Map::new();
                    m.insert("insight_type".into(), json!("agent_self_feedback"));
                    m.insert("text".into(), json!(text));
                    if let Some(r) = &repo {
                        m.insert("repo".into(), json!(r));
                    }
                    out.push(event(format!("trace:{}:{index}", t.trace_id), &owner, "agent_self_feedback", m));
                }
            }
            let Some(task) = task.as_deref() else { continue };
            let calls = step.get("tool_calls").and_then(Value::as_array).cloned().unwrap_or_default();
            let observations = step.get("observations").and_then(Value::as_array).cloned().unwrap_or_default();
            for (p, c) in calls.iter().enumerate() {
                let input = c.get("input").cloned().unwrap_or(Value::Null);
                let id = format!("trace:{}:{index}:{p}", t.trace_id);
                let mut m = Map::new();
                m.insert("tool".into(), c.get("tool_name").cloned().unwrap_or(Value::Null));
                if let Some(cmd) = command(&input) {
                    m.insert("command".into(), json!(cmd));
                }
                if let Some(path) = str_at(&input, "path").or_else(|| str_at(&input, "file_path")) {
                    m.insert("path".into(), json!(path));
                }
                out.push(event(id.clone(), task, "agent_tool_call", m.clone()));
                let call_id = str_at(c, "tool_call_id");
                if let Some(o) = observations.iter().find(|o| call_id.is_some() && str_at(*o, "source_call_id") == call_id) {
                    m.remove("path");
                    for key in ["content", "error"] {
                        if let Some(text) = str_at(o, key) {
                            m.insert(if key == "content" { "output".into() } else { "error".into() }, json!(text));
                        }
                    }
                    if let Some(code) = o.get("exit_code").and_then(Value::as_i64) {
                        m.insert("exit_code".into(), json!(code));
                    } else if str_at(o, "error").is_some() {
                        // A tool call that ended in error failed, whatever its exit code was.
                        m.insert("exit_code".into(), json!(1));
                    }
                    out.push(event(format!("{id}:result"), task, "agent_tool_result", m));
                }
            }
        }
    }
    out
}
