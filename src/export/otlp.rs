//! `hindsight export --otlp FILE --window W`: one window's outcomes as OpenTelemetry spans in
//! OTLP/JSON, with gh-aw's own attribute names (`gh-aw.outcome.*`, span names
//! `gh-aw.outcome.evaluation` and `gh-aw.outcome.summary`: gh-aw's
//! `actions/setup/js/emit_outcome_spans.cjs`, listed in fixtures/real/otlp/GH_AW_ATTRIBUTES.md),
//! so an observability stack that charts gh-aw's outcome collector charts hindsight's
//! verdicts the same way.
//!
//! The file is JSON Lines of OTLP/HTTP JSON trace payloads (`{"resourceSpans": [...]}`), as
//! gh-aw mirrors its spans to `otel.jsonl`: the summary span first, then the outcomes a
//! thousand spans a line, in `outcomes` order. Ids are derived from the dataset (the outcomes
//! table's hash in the manifest, the window, the output id) and times are the verdicts'
//! `evaluated_at`, so the same dataset gives the same bytes.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{json, Value};

use crate::dataset::manifest::Manifest;
use crate::dataset::read::{self, Cols};
use crate::{Error, Result};

/// Spans per line: a collector takes a payload of about a megabyte.
const SPANS_PER_LINE: usize = 1000;

/// The outcome columns the spans carry.
const COLUMNS: [&str; 12] = [
    "safe_output_id",
    "run_id",
    "workflow_name",
    "safe_output_type",
    "target_repo",
    "eval_window",
    "created_at",
    "evaluated_at",
    "outcome_status",
    "evidence_strength",
    "human_check_signal",
    "details",
];

/// One OTLP attribute.
fn attribute(key: &str, value: Value) -> Value {
    let typed = match &value {
        Value::Bool(b) => json!({ "boolValue": b }),
        // OTLP/JSON writes 64-bit integers as strings.
        Value::Number(n) if n.is_i64() => json!({ "intValue": n.to_string() }),
        Value::Number(n) => json!({ "doubleValue": n.as_f64() }),
        other => json!({ "stringValue": other.as_str().map_or_else(|| other.to_string(), str::to_string) }),
    };
    json!({ "key": key, "value": typed })
}

/// The first `bytes` bytes of a SHA-256, in hex.
fn id(text: &str, bytes: usize) -> String {
    hindsight_core::json::sha256_hex(text.as_bytes())[..bytes * 2].to_string()
}

/// A payload of `spans` under hindsight's resource and scope.
fn payload(spans: Vec<Value>) -> Value {
    json!({ "resourceSpans": [{
        "resource": { "attributes": [attribute("service.name", json!("hindsight"))] },
        "scopeSpans": [{ "scope": { "name": "hindsight", "version": env!("CARGO_PKG_VERSION") }, "spans": spans }]
    }]})
}

/// One outcome row's span.
fn evaluation_span(row: &BTreeMap<&str, Option<String>>, trace: &str, parent: &str) -> Value {
    let get = |k: &str| row.get(k).cloned().flatten();
    let status = get("outcome_status").unwrap_or_else(|| "unknown".into());
    let mut attrs = vec![
        attribute("gh-aw.exporter.name", json!("hindsight")),
        attribute("gh-aw.outcome.type", json!(get("safe_output_type").unwrap_or_default())),
        attribute("gh-aw.outcome.result", json!(status)),
        attribute("gh-aw.outcome.outcome_status", json!(status)),
        attribute("gh-aw.outcome.evidence_strength", json!(get("evidence_strength").unwrap_or_else(|| "none".into()))),
        attribute("gh-aw.outcome.workflow", json!(get("workflow_name").unwrap_or_default())),
    ];
    // gh-aw's run ids are numbers; a run id that is no number stays text.
    let run = get("run_id").unwrap_or_default();
    attrs.push(attribute("gh-aw.outcome.run_id", run.parse::<i64>().map_or(json!(run), |n| json!(n))));
    attrs.push(attribute("gh-aw.outcome.repo", json!(get("target_repo").unwrap_or_default())));
    for (key, column) in [("gh-aw.outcome.signal", "human_check_signal"), ("gh-aw.outcome.created_at", "created_at")] {
        if let Some(v) = get(column).filter(|v| !v.is_empty()) {
            attrs.push(attribute(key, json!(v)));
        }
    }
    let details: Value = get("details").and_then(|d| serde_json::from_str(&d).ok()).unwrap_or(Value::Null);
    if let Some(s) = details.get("resolution_sec").filter(|v| v.is_number()) {
        attrs.push(attribute("gh-aw.outcome.resolution_sec", s.clone()));
    }
    if details.get("zero_touch") == Some(&Value::Bool(true)) {
        attrs.push(attribute("gh-aw.outcome.zero_touch", json!(true)));
    }
    let output = get("safe_output_id").unwrap_or_default();
    attrs.push(attribute("hindsight.safe_output_id", json!(output)));
    attrs.push(attribute("hindsight.eval_window", json!(get("eval_window").unwrap_or_default())));
    let end = get("evaluated_at").and_then(|t| hindsight_core::time::parse(&t)).map_or(0, |t| t.timestamp_micros() * 1000);
    // gh-aw's status codes: rejected is an error, accepted ok, anything else unset.
    let code = match status.as_str() {
        "rejected" => 2,
        "accepted" => 1,
        _ => 0,
    };
    json!({
        "traceId": trace,
        "spanId": id(&format!("{trace}|{output}"), 8),
        "parentSpanId": parent,
        "name": "gh-aw.outcome.evaluation",
        "kind": 1,
        "startTimeUnixNano": (end - 1_000_000).max(0).to_string(),
        "endTimeUnixNano": end.to_string(),
        "attributes": attrs,
        "status": { "code": code },
    })
}

/// The window's outcomes as OTLP JSON lines into `file` (replaced only with `force`): the
/// spans written.
pub fn otlp(dataset: &Path, window: &str, file: &Path, force: bool) -> Result<u64> {
    super::check_target("otlp", file, dataset, force)?;
    let manifest = Manifest::load(dataset)?;
    let table_hash = manifest.tables.get("outcomes").map(|t| t.sha256.clone()).unwrap_or_default();
    let trace = id(&format!("hindsight|{table_hash}|{window}"), 16);
    let summary_id = id(&format!("{trace}|summary"), 8);
    let mut spans: Vec<Value> = Vec::new();
    let (mut counts, mut types, mut workflows): (BTreeMap<String, i64>, BTreeMap<String, ()>, BTreeMap<String, ()>) = Default::default();
    let mut last_end = 0i64;
    for batch in read::columns(dataset, "outcomes", &COLUMNS)? {
        let c = Cols::new("outcomes", &batch);
        let text: Vec<Vec<Option<String>>> = COLUMNS.iter().map(|k| text_column(&c, k)).collect::<hindsight_core::Result<_>>()?;
        for r in 0..batch.num_rows() {
            let row: BTreeMap<&str, Option<String>> = COLUMNS.iter().zip(&text).map(|(k, col)| (*k, col[r].clone())).collect();
            if row["eval_window"].as_deref() != Some(window) {
                continue;
            }
            *counts.entry(row["outcome_status"].clone().unwrap_or_else(|| "unknown".into())).or_default() += 1;
            types.insert(row["safe_output_type"].clone().unwrap_or_default(), ());
            workflows.insert(row["workflow_name"].clone().unwrap_or_default(), ());
            let span = evaluation_span(&row, &trace, &summary_id);
            last_end = last_end.max(span["endTimeUnixNano"].as_str().and_then(|s| s.parse().ok()).unwrap_or(0));
            spans.push(span);
        }
    }
    if spans.is_empty() {
        return Err(Error::usage(format!("export --otlp --window {window}: no outcome in that window (the outcomes table names its windows in eval_window: 1h, 24h, 7d, 30d, snapshot)")));
    }
    let total = spans.len() as i64;
    let mut summary_attrs = vec![attribute("gh-aw.exporter.name", json!("hindsight")), attribute("gh-aw.outcome.total", json!(total)), attribute("gh-aw.outcome.item_count", json!(total))];
    for status in ["accepted", "rejected", "ignored", "pending", "unknown"] {
        summary_attrs.push(attribute(&format!("gh-aw.outcome.{status}"), json!(counts.get(status).copied().unwrap_or(0))));
    }
    // gh-aw has no skipped outcome (its noop and lifecycle are other things): hindsight's own name.
    summary_attrs.push(attribute("hindsight.outcome.skipped", json!(counts.get("skipped").copied().unwrap_or(0))));
    summary_attrs.push(attribute("gh-aw.outcome.types", json!(types.keys().cloned().collect::<Vec<_>>().join(","))));
    summary_attrs.push(attribute("gh-aw.outcome.workflows", json!(workflows.keys().cloned().collect::<Vec<_>>().join(","))));
    summary_attrs.push(attribute("hindsight.eval_window", json!(window)));
    let summary = json!({
        "traceId": trace, "spanId": summary_id, "name": "gh-aw.outcome.summary", "kind": 1,
        "startTimeUnixNano": (last_end - 1_000_000).max(0).to_string(), "endTimeUnixNano": last_end.to_string(),
        "attributes": summary_attrs, "status": { "code": 1 },
    });
    let mut out = Vec::new();
    for chunk in std::iter::once(vec![summary]).chain(spans.chunks(SPANS_PER_LINE).map(<[Value]>::to_vec)) {
        serde_json::to_writer(&mut out, &payload(chunk)).map_err(|e| Error::io(file, e.into()))?;
        out.push(b'\n');
    }
    super::write_whole(file, &out)?;
    Ok(total as u64)
}

/// A column as text: strings as they are, times in RFC 3339.
fn text_column(c: &Cols<'_>, name: &str) -> hindsight_core::Result<Vec<Option<String>>> {
    if matches!(name, "created_at" | "evaluated_at") {
        return Ok(c.time(name)?.into_iter().map(|t| t.map(|t| hindsight_core::time::format(&t))).collect());
    }
    c.str(name)
}

