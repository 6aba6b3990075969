//! Agent sessions recorded as OpenTelemetry traces and logs (OTLP/JSON: a line per export
//! request, `{"resourceSpans": [...]}` or `{"resourceLogs": [...]}`, as a collector's file
//! exporter and gh-aw's `otel.jsonl` write them), read as traces beside opentraces records.
//!
//! ## How spans become steps
//! Spans are gathered by `traceId` across lines and files; a trace is one agent session.
//! Following OpenTelemetry's generative-AI conventions (`gen_ai.*` attributes):
//! - a span whose `gen_ai.operation.name` is a model call (`chat`, `text_completion`,
//!   `generate_content`; `invoke_agent` spans the whole session) is a step of role `agent`, with its model
//!   (`gen_ai.response.model`, else `gen_ai.request.model`) and token usage
//!   (`gen_ai.usage.input_tokens`, `gen_ai.usage.output_tokens`);
//! - an `execute_tool` span is a tool call of the step before it (its own step when none
//!   came before): `gen_ai.tool.name`, `gen_ai.tool.call.id`, `gen_ai.tool.call.arguments`,
//!   its result `gen_ai.tool.call.result`, an error status's message as the error;
//! - a log record of the trace named `gen_ai.user.message` (event name, or attribute
//!   `event.name`) is a step of role `user`; `gen_ai.assistant.message` and `gen_ai.choice`
//!   of role `agent`; the body is the content.
//! Other spans (HTTP, database...) are counted, not steps. The session's id is
//! `gen_ai.conversation.id` when a span carries one, else the trace id; the agent is
//! `gen_ai.agent.name`, else the resource's `service.name`.
//!
//! The trace is kept as an opentraces-shaped record built from these (`metadata.source`
//! `otlp`, the span and log counts), so every trace table reads it as it reads opentraces.

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

use super::TraceRecord;

/// An OTLP `AnyValue` as plain JSON.
fn any_value(v: &Value) -> Value {
    let Some((kind, inner)) = v.as_object().and_then(|o| o.iter().next()) else { return Value::Null };
    match kind.as_str() {
        "stringValue" | "bytesValue" => inner.clone(),
        "boolValue" => inner.clone(),
        // OTLP/JSON writes 64-bit integers as strings.
        "intValue" => inner.as_str().and_then(|s| s.parse::<i64>().ok()).map_or_else(|| inner.clone(), Value::from),
        "doubleValue" => inner.clone(),
        "arrayValue" => Value::Array(inner.get("values").and_then(Value::as_array).map(|a| a.iter().map(any_value).collect()).unwrap_or_default()),
        "kvlistValue" => Value::Object(attributes(inner.get("values"))),
        _ => Value::Null,
    }
}

/// `[{"key": k, "value": AnyValue}]` as an object.
fn attributes(list: Option<&Value>) -> Map<String, Value> {
    let mut out = Map::new();
    for kv in list.and_then(Value::as_array).into_iter().flatten() {
        if let Some(k) = kv.get("key").and_then(Value::as_str) {
            out.insert(k.to_string(), kv.get("value").map(any_value).unwrap_or(Value::Null));
        }
    }
    out
}

/// Nanoseconds since the epoch, written as a string or a number.
fn nanos(v: Option<&Value>) -> Option<i64> {
    match v? {
        Value::String(s) => s.parse().ok(),
        Value::Number(n) => n.as_i64(),
        _ => None,
    }
}

fn rfc3339(nanos: i64) -> Option<String> {
    crate::time::from_micros(nanos / 1000).map(|t| crate::time::format(&t))
}

/// One span or log record of a trace, in time order.
#[derive(Clone, Debug)]
struct Event {
    at: i64,
    end: i64,
    id: String,
    /// The span's name, or the log record's event name.
    name: String,
    attrs: Map<String, Value>,
    /// A log record's body.
    body: Option<Value>,
    /// An error status's message (span status code 2).
    error: Option<String>,
    log: bool,
}

/// What the lines read so far hold, by trace id.
#[derive(Default)]
pub(crate) struct Gathered {
    traces: BTreeMap<String, Trace>,
}

struct Trace {
    file: String,
    line: i64,
    resource: Map<String, Value>,
    events: Vec<Event>,
    spans: usize,
    logs: usize,
}

/// Whether a line's object is an OTLP export request rather than an opentraces record.
pub(crate) fn is_otlp(v: &Value) -> bool {
    v.get("resourceSpans").is_some() || v.get("resourceLogs").is_some()
}

impl Gathered {
    /// Take in one export request (line `line` of `file`); why not, when it is malformed.
    /// A line is taken whole or not at all: its spans are checked before any is kept.
    pub(crate) fn add(&mut self, v: &Value, file: &str, line: i64) -> Result<(), String> {
        let mut part = Gathered::default();
        part.add_all(v, file, line)?;
        for (id, t) in part.traces {
            match self.traces.get_mut(&id) {
                Some(kept) => {
                    kept.events.extend(t.events);
                    kept.spans += t.spans;
                    kept.logs += t.logs;
                }
                None => drop(self.traces.insert(id, t)),
            }
        }
        Ok(())
    }

    fn add_all(&mut self, v: &Value, file: &str, line: i64) -> Result<(), String> {
        for (key, scoped, items, is_log) in [("resourceSpans", "scopeSpans", "spans", false), ("resourceLogs", "scopeLogs", "logRecords", true)] {
            let Some(resources) = v.get(key) else { continue };
            let resources = resources.as_array().ok_or(format!("`{key}` is not an array"))?;
            for r in resources {
                let resource = attributes(r.get("resource").and_then(|x| x.get("attributes")));
                for scope in r.get(scoped).and_then(Value::as_array).into_iter().flatten() {
                    for item in scope.get(items).and_then(Value::as_array).into_iter().flatten() {
                        self.item(item, is_log, &resource, file, line)?;
                    }
                }
            }
        }
        Ok(())
    }

    fn item(&mut self, item: &Value, log: bool, resource: &Map<String, Value>, file: &str, line: i64) -> Result<(), String> {
        let trace_id = item.get("traceId").and_then(Value::as_str).unwrap_or("");
        if trace_id.is_empty() {
            // A span must belong to a trace; a log record outside one is no session's step.
            return if log { Ok(()) } else { Err("a span without a `traceId`".into()) };
        }
        let attrs = attributes(item.get("attributes"));
        let (at, end) = if log {
            let t = nanos(item.get("timeUnixNano")).or_else(|| nanos(item.get("observedTimeUnixNano"))).unwrap_or(0);
            (t, t)
        } else {
            let start = nanos(item.get("startTimeUnixNano")).ok_or("a span without `startTimeUnixNano`")?;
            (start, nanos(item.get("endTimeUnixNano")).unwrap_or(start))
        };
        let name = if log {
            item.get("eventName").and_then(Value::as_str).or_else(|| attrs.get("event.name").and_then(Value::as_str)).unwrap_or("").to_string()
        } else {
            item.get("name").and_then(Value::as_str).unwrap_or("").to_string()
        };
        let status = item.get("status");
        let error = (status.and_then(|s| s.get("code")).and_then(Value::as_i64) == Some(2))
            .then(|| status.and_then(|s| s.get("message")).and_then(Value::as_str).unwrap_or("error").to_string());
        let id = item.get("spanId").and_then(Value::as_str).unwrap_or("").to_string();
        let t = self.traces.entry(trace_id.to_string()).or_insert_with(|| Trace { file: file.to_string(), line, resource: resource.clone(), events: Vec::new(), spans: 0, logs: 0 });
        if log {
            t.logs += 1;
        } else {
            t.spans += 1;
        }
        t.events.push(Event { at, end, id, name, attrs, body: item.get("body").map(any_value), error, log });
        Ok(())
    }

    /// Every trace gathered, as a record.
    pub(crate) fn records(self) -> Vec<TraceRecord> {
        self.traces.into_iter().map(|(id, t)| record(id, t)).collect()
    }
}

/// The model calls among `gen_ai.operation.name`s (`invoke_agent` is the whole session's
/// span, not a step).
const MODEL_CALLS: [&str; 3] = ["chat", "text_completion", "generate_content"];

fn text(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::Null => None,
        Value::String(s) => Some(s.clone()),
        other => Some(crate::json::canonical(other)),
    }
}

/// A trace's events as opentraces steps.
fn steps(events: &[Event]) -> Vec<Value> {
    let mut steps: Vec<Value> = Vec::new();
    for e in events {
        let op = e.attrs.get("gen_ai.operation.name").and_then(Value::as_str).unwrap_or("");
        let at = rfc3339(e.at);
        if e.log {
            let role = match e.name.as_str() {
                "gen_ai.user.message" => "user",
                "gen_ai.assistant.message" | "gen_ai.choice" => "agent",
                _ => continue,
            };
            let content = e.body.as_ref().and_then(|b| text(b.get("content")).or_else(|| text(Some(b))));
            steps.push(json!({"step_index": steps.len() + 1, "role": role, "content": content, "timestamp": at}));
        } else if op == "execute_tool" {
            let call_id = e.attrs.get("gen_ai.tool.call.id").and_then(Value::as_str).unwrap_or(&e.id).to_string();
            let call = json!({
                "tool_call_id": call_id,
                "tool_name": e.attrs.get("gen_ai.tool.name").and_then(Value::as_str).unwrap_or(&e.name),
                "input": e.attrs.get("gen_ai.tool.call.arguments").cloned().unwrap_or(Value::Null),
                "duration_ms": (e.end - e.at) / 1_000_000,
            });
            let observation = json!({"source_call_id": call_id, "content": text(e.attrs.get("gen_ai.tool.call.result")), "error": e.error});
            if steps.last().is_none_or(|s| s["role"] != "agent") {
                steps.push(json!({"step_index": steps.len() + 1, "role": "agent", "timestamp": at, "tool_calls": [], "observations": []}));
            }
            if let Some(Value::Object(last)) = steps.last_mut() {
                for (key, item) in [("tool_calls", call), ("observations", observation)] {
                    match last.get_mut(key) {
                        Some(Value::Array(list)) => list.push(item),
                        _ => drop(last.insert(key.into(), json!([item]))),
                    }
                }
            }
        } else if MODEL_CALLS.contains(&op) {
            let model = e.attrs.get("gen_ai.response.model").or_else(|| e.attrs.get("gen_ai.request.model")).cloned().unwrap_or(Value::Null);
            let usage = json!({"input_tokens": e.attrs.get("gen_ai.usage.input_tokens"), "output_tokens": e.attrs.get("gen_ai.usage.output_tokens")});
            steps.push(json!({"step_index": steps.len() + 1, "role": "agent", "model": model, "content": text(e.attrs.get("gen_ai.output.messages")), "timestamp": at, "token_usage": usage}));
        }
    }
    steps
}

fn record(trace_id: String, mut t: Trace) -> TraceRecord {
    t.events.sort_by(|a, b| (a.at, a.log, &a.id).cmp(&(b.at, b.log, &b.id)));
    let first = |key: &str| t.events.iter().find_map(|e| e.attrs.get(key).and_then(Value::as_str)).map(str::to_string);
    let session = first("gen_ai.conversation.id").unwrap_or_else(|| trace_id.clone());
    let agent = first("gen_ai.agent.name").or_else(|| t.resource.get("service.name").and_then(Value::as_str).map(str::to_string)).unwrap_or_else(|| "unknown".into());
    let model = first("gen_ai.response.model").or_else(|| first("gen_ai.request.model"));
    let start = t.events.iter().map(|e| e.at).min().and_then(rfc3339);
    let end = t.events.iter().map(|e| e.end).max().and_then(rfc3339);
    let record = json!({
        "trace_id": trace_id,
        "session_id": session,
        "agent": {"name": agent, "model": model},
        "timestamp_start": start,
        "timestamp_end": end,
        "steps": steps(&t.events),
        "metadata": {"source": "otlp", "otlp_spans": t.spans, "otlp_logs": t.logs, "resource": Value::Object(t.resource.clone())},
    });
    let text = crate::json::canonical(&record);
    TraceRecord { trace_id, source_file: t.file, source_line: t.line, record, text }
}
