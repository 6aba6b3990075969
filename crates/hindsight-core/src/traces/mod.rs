//! opentraces JSONL (schema 0.2.0 to 0.9.x, see [`version`]): read records, keep each
//! verbatim (unknown fields survive), and flatten them into `traces`, `trace_steps` and
//! `trace_tool_calls`. OpenTelemetry traces and logs (OTLP/JSON lines) are read beside them,
//! a trace per `traceId` ([`otlp`]).

pub mod attribution;
pub mod hash;
mod otlp;
pub mod version;

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::error::{Error, Result};
use crate::inputs::InputFile;
use crate::json::{bool_at, int_at, str_at, str_path};
use crate::quarantine::Quarantined;
use crate::table::{i, ob, of, oi, os, s, Kind, Table};

/// One trace record as read.
#[derive(Clone, Debug)]
pub struct TraceRecord {
    pub(crate) trace_id: String,
    pub(crate) source_file: String,
    pub(crate) source_line: i64,
    pub(crate) record: Value,
    /// The record's text as it stood in the input (key order, exact numbers).
    pub(crate) text: String,
}

#[derive(Default)]
pub struct TracesRead {
    pub records: Vec<TraceRecord>,
    pub quarantined: Vec<Quarantined>,
    pub files: Vec<InputFile>,
}

/// A line of a traces file: an opentraces record, or an OTLP export request.
enum Line {
    Opentraces(Value),
    Otlp(Value),
}

/// `paths` are files or directories (their `*.jsonl`, in name order). A path given is read
/// wherever it leads, but must be a regular file or a directory (a FIFO would block, a device
/// never end); in a directory, links that lead out of it and non-regular files are refused
/// (listed, quarantined, not read).
pub fn read(paths: &[PathBuf]) -> Result<TracesRead> {
    let mut out = TracesRead::default();
    let files = files_of(paths, &mut out)?;
    // An input record is an opentraces line, or a trace of OTLP spans (gathered across
    // lines and files, counted in the file it starts in), or a line that is neither.
    let mut otlp = otlp::Gathered::default();
    let mut counts: Vec<(String, Vec<u8>, usize)> = Vec::new();
    for (root, f) in files {
        let bytes = crate::inputs::read_regular(&f)?;
        let name = f.strip_prefix(&root).unwrap_or(&f).to_string_lossy().replace('\\', "/");
        let lines = crate::inputs::jsonl_byte_lines(&bytes, 1, 0).0;
        let mut records = 0;
        for l in lines {
            let lineno = l.lineno;
            let line = l.text.clone().map_err(|why| (None, why, false)).and_then(|raw| parse(raw).map(|rec| (raw, rec)));
            let line = line.and_then(|(raw, rec)| match rec {
                Line::Otlp(v) => otlp.add(&v, &name, lineno as i64).map(|()| None).map_err(|why| (None, format!("OTLP: {why}"), false)),
                Line::Opentraces(rec) => Ok(Some((raw, rec))),
            });
            match line {
                Ok(None) => {}
                Ok(Some((raw, rec))) => {
                    records += 1;
                    out.records.push(TraceRecord {
                        trace_id: str_at(&rec, "trace_id").unwrap_or_default().to_string(),
                        source_file: name.clone(),
                        source_line: lineno as i64,
                        record: rec,
                        text: raw.trim().to_string(),
                    })
                }
                Err((field, reason, eof)) => {
                    records += 1;
                    let reason = if eof && l.unterminated { crate::inputs::truncated(reason) } else { reason };
                    out.quarantined.push(Quarantined::new("traces", &name, Some(lineno), field, reason, &l.raw));
                }
            }
        }
        counts.push((name, bytes, records));
    }
    let gathered = otlp.records();
    for (name, bytes, records) in counts {
        let traces = gathered.iter().filter(|t| t.source_file == name).count();
        out.files.push(InputFile::from_bytes("traces", name, &bytes, records + traces));
    }
    out.records.extend(gathered);
    dedupe(&mut out);
    Ok(out)
}

/// The files `paths` name (a directory's `*.jsonl`, in name order), each with the directory
/// it was found in; refused files are listed and quarantined in `out`.
fn files_of(paths: &[PathBuf], out: &mut TracesRead) -> Result<Vec<(PathBuf, PathBuf)>> {
    let mut files: Vec<(PathBuf, PathBuf)> = Vec::new();
    for p in paths {
        let meta = std::fs::metadata(p).map_err(|e| Error::io(p, e))?;
        if meta.is_dir() {
            let mut v: Vec<PathBuf> = std::fs::read_dir(p)
                .map_err(|e| Error::io(p, e))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|f| f.extension().is_some_and(|e| e == "jsonl"))
                .collect();
            v.sort();
            for f in v {
                match crate::inputs::refusal(p, &f, "traces") {
                    None => files.push((p.clone(), f)),
                    Some(why) => {
                        let name = f.strip_prefix(p).unwrap_or(&f).to_string_lossy().replace('\\', "/");
                        out.quarantined.push(Quarantined::new("traces", &name, None, None, why, ""));
                        out.files.push(InputFile::refused("traces", name));
                    }
                }
            }
        } else if meta.is_file() {
            files.push((p.parent().map(Path::to_path_buf).unwrap_or_default(), p.clone()));
        } else {
            return Err(Error::Layout {
                path: p.clone(),
                message: format!("{}, not a regular file: --traces must be a .jsonl file or a directory of them", crate::inputs::file_kind(&meta.file_type())),
            });
        }
    }
    Ok(files)
}

/// A trace id seen twice: the first is kept, the later quarantined; records by trace id.
fn dedupe(out: &mut TracesRead) {
    // A trace id seen twice: the first is kept.
    let mut seen = std::collections::HashMap::new();
    let mut kept = Vec::new();
    for r in out.records.drain(..) {
        if let Some((f, l)) = seen.get(&r.trace_id) {
            out.quarantined.push(Quarantined::new(
                "traces",
                &r.source_file,
                Some(r.source_line as usize),
                Some("trace_id"),
                format!("duplicate trace id (first at {f}:{l})"),
                &r.text,
            ));
            continue;
        }
        seen.insert(r.trace_id.clone(), (r.source_file.clone(), r.source_line));
        kept.push(r);
    }
    kept.sort_by(|a, b| a.trace_id.cmp(&b.trace_id));
    out.records = kept;
}

type LineError = (Option<&'static str>, String, bool);

fn parse(raw: &str) -> std::result::Result<Line, LineError> {
    if let Some(why) = crate::json::too_deep(raw) {
        return Err((None, why, false));
    }
    let v: Value = serde_json::from_str(raw).map_err(|e| (None, format!("not valid JSON: {e}"), e.is_eof()))?;
    if !v.is_object() {
        return Err((None, "not a JSON object".into(), false));
    }
    if otlp::is_otlp(&v) {
        return Ok(Line::Otlp(v));
    }
    for f in ["trace_id", "session_id"] {
        match v.get(f) {
            Some(Value::String(s)) if !s.is_empty() => {}
            Some(_) => return Err((Some(f), "expected a non-empty string".into(), false)),
            None => return Err((Some(f), "missing (required by the opentraces schema)".into(), false)),
        }
    }
    match v.get("agent") {
        Some(a) if str_at(a, "name").is_some() => {}
        Some(_) => return Err((Some("agent"), "expected an object with a `name`".into(), false)),
        None => return Err((Some("agent"), "missing (required by the opentraces schema)".into(), false)),
    }
    match v.get("schema_version") {
        None | Some(Value::String(_)) => {}
        Some(_) => return Err((Some("schema_version"), "expected a string".into(), false)),
    }
    version::Shape::of_record(&v).map_err(|why| (Some("schema_version"), why, false))?;
    Ok(Line::Opentraces(v))
}

/// Canonical JSON of member `key` of the object text `text` (whose parse is `v`), its numbers
/// exact (see `json::Raw::canonical`).
fn exact(text: &str, v: &Value, key: &str) -> String {
    crate::json::members(text)
        .and_then(|m| m.get(key))
        .and_then(|r| crate::json::canonical_text(r.get()).ok())
        .unwrap_or_else(|| crate::json::canonical(v.get(key).unwrap_or(&Value::Null)))
}

/// The texts of the array member `key` of an object text (empty when it is not one).
fn raw_array<'a>(text: &'a str, key: &str) -> Vec<&'a str> {
    crate::json::members(text)
        .and_then(|m| m.get(key))
        .and_then(|r| serde_json::from_str::<Vec<&serde_json::value::RawValue>>(r.get()).ok())
        .map(|v| v.into_iter().map(|r| r.get()).collect())
        .unwrap_or_default()
}

fn raw_steps(text: &str) -> Vec<&str> {
    raw_array(text, "steps")
}

fn steps(r: &Value) -> &[Value] {
    r.get("steps").and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[])
}

pub fn tables(records: &[TraceRecord]) -> Vec<Table> {
    let mut traces = traces_table();
    let mut step_t = steps_table();
    let mut calls = tool_calls_table();
    for t in records {
        traces.push(trace_row(t));
        push_steps(t, &mut step_t, &mut calls);
    }
    vec![traces, step_t, calls]
}

/// The `traces` table: one row per trace, its task, agent, outcome and counts.
fn traces_table() -> Table {
    Table::new(
        "traces",
        &[
            ("trace_id", Kind::Str),
            ("session_id", Kind::Str),
            ("schema_version", Kind::Str),
            ("execution_context", Kind::Str),
            ("timestamp_start", Kind::Str),
            ("timestamp_end", Kind::Str),
            ("task_description", Kind::Str),
            ("task_repository", Kind::Str),
            ("agent_name", Kind::Str),
            ("agent_model", Kind::Str),
            ("step_count", Kind::Int),
            ("tool_call_count", Kind::Int),
            ("outcome_success", Kind::Bool),
            ("outcome_committed", Kind::Bool),
            ("outcome_commit_sha", Kind::Str),
            ("outcome_terminal_state", Kind::Str),
            ("outcome_reward", Kind::Float),
            ("outcome_reward_source", Kind::Str),
            ("outcome_signal_source", Kind::Str),
            ("outcome_signal_confidence", Kind::Str),
            ("outcome_description", Kind::Str),
            ("attribution_file_count", Kind::Int),
            ("metadata", Kind::Str),
            ("record", Kind::Str),
            ("source_file", Kind::Str),
            ("source_line", Kind::Int),
        ],
    )
}

/// The `trace_steps` table: one row per step.
fn steps_table() -> Table {
    Table::new(
        "trace_steps",
        &[
            ("trace_id", Kind::Str),
            ("step_index", Kind::Int),
            ("role", Kind::Str),
            ("model", Kind::Str),
            ("content", Kind::Str),
            ("timestamp", Kind::Str),
            ("tool_call_count", Kind::Int),
            ("input_tokens", Kind::Int),
            ("output_tokens", Kind::Int),
        ],
    )
}

/// The `trace_tool_calls` table: one row per tool call, with its observation.
fn tool_calls_table() -> Table {
    Table::new(
        "trace_tool_calls",
        &[
            ("trace_id", Kind::Str),
            ("step_index", Kind::Int),
            ("position", Kind::Int),
            ("tool_call_id", Kind::Str),
            ("tool_name", Kind::Str),
            ("input", Kind::Str),
            ("duration_ms", Kind::Int),
            ("observation", Kind::Str),
            ("observation_error", Kind::Str),
        ],
    )
}

/// A trace's row of `traces`.
fn trace_row(t: &TraceRecord) -> Vec<crate::table::Cell> {
    let r = &t.record;
    let o = r.get("outcome").cloned().unwrap_or(Value::Null);
    let n_calls: usize = steps(r).iter().map(|st| st.get("tool_calls").and_then(Value::as_array).map_or(0, Vec::len)).sum();
    vec![
        s(&t.trace_id),
        os(str_at(r, "session_id")),
        os(str_at(r, "schema_version")),
        os(str_at(r, "execution_context")),
        os(str_at(r, "timestamp_start")),
        os(str_at(r, "timestamp_end")),
        os(str_path(r, &["task", "description"])),
        os(str_path(r, &["task", "repository"])),
        os(str_path(r, &["agent", "name"])),
        os(str_path(r, &["agent", "model"])),
        i(steps(r).len() as i64),
        i(n_calls as i64),
        ob(bool_at(&o, "success")),
        ob(bool_at(&o, "committed")),
        os(str_at(&o, "commit_sha")),
        os(str_at(&o, "terminal_state")),
        of(o.get("reward").and_then(Value::as_f64)),
        os(str_at(&o, "reward_source")),
        os(str_at(&o, "signal_source")),
        os(str_at(&o, "signal_confidence")),
        os(str_at(&o, "description")),
        oi(r.get("attribution").and_then(|a| a.get("files")).and_then(Value::as_array).map(|f| f.len() as i64)),
        s(exact(&t.text, r, "metadata")),
        s(&t.text),
        s(&t.source_file),
        i(t.source_line),
    ]
}

/// A trace's steps into `trace_steps` and their tool calls into `trace_tool_calls`; a
/// call's input keeps the record's text.
fn push_steps(t: &TraceRecord, step_t: &mut Table, calls: &mut Table) {
    let r = &t.record;
    let step_texts = raw_steps(&t.text);
    for (si, st) in steps(r).iter().enumerate() {
        let call_texts = step_texts.get(si).map(|s| raw_array(s, "tool_calls")).unwrap_or_default();
        let idx = int_at(st, "step_index");
        let tcs = st.get("tool_calls").and_then(Value::as_array).cloned().unwrap_or_default();
        let obs = st.get("observations").and_then(Value::as_array).cloned().unwrap_or_default();
        step_t.push(vec![
            s(&t.trace_id),
            oi(idx),
            os(str_at(st, "role")),
            os(str_at(st, "model")),
            os(str_at(st, "content")),
            os(str_at(st, "timestamp")),
            i(tcs.len() as i64),
            oi(st.get("token_usage").and_then(|u| int_at(u, "input_tokens"))),
            oi(st.get("token_usage").and_then(|u| int_at(u, "output_tokens"))),
        ]);
        for (pos, c) in tcs.iter().enumerate() {
            let id = str_at(c, "tool_call_id");
            let ob_ = obs.iter().find(|x| str_at(*x, "source_call_id") == id);
            calls.push(vec![
                s(&t.trace_id),
                oi(idx),
                i(pos as i64),
                os(id),
                os(str_at(c, "tool_name")),
                s(call_texts
                    .get(pos)
                    .map(|c| exact(c, &Value::Null, "input"))
                    .unwrap_or_else(|| crate::json::canonical(c.get("input").unwrap_or(&Value::Null)))),
                oi(int_at(c, "duration_ms")),
                os(ob_.and_then(|x| str_at(x, "content"))),
                os(ob_.and_then(|x| str_at(x, "error"))),
            ]);
        }
    }
}
