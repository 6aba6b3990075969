//! `hindsight explain OUTPUT_ID`: why a safe output got its verdict in each window, without
//! reading `details` JSON by hand: the verdict, its evidence strength and confidence, the
//! rule row that decided it (with the row's condition and the policy switch it depends on,
//! from the rules catalogue), the evidence the rule recorded, who acted, and the captures of
//! the output's target the snapshot holds (what the rules could read), with a link to the
//! target on GitHub.

use std::path::Path;

use serde_json::{json, Map, Value};

use crate::report::{format::rows_of, Format, Session};
use crate::{Error, Result};

/// Outputs above which a mistyped id gets no suggestion (finding the nearest reads them all).
const SUGGEST_UP_TO: i64 = 200_000;

/// A string as an SQL literal.
fn literal(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

fn rows(session: &Session, sql: &str) -> Result<Vec<Map<String, Value>>> {
    rows_of(&session.sql(sql)?)
}

/// The output's row of `safe_outputs`, or an error naming the nearest id.
fn output(session: &Session, dataset: &Path, id: &str) -> Result<Map<String, Value>> {
    let sql = format!(
        "SELECT safe_output_id, run_id, workflow_name, safe_output_type, target_repo, target_kind, target_number, target_comment_id, target_url, actor, created_at \
         FROM safe_outputs WHERE safe_output_id = {}",
        literal(id)
    );
    if let Some(row) = rows(session, &sql)?.into_iter().next() {
        return Ok(row);
    }
    let count = rows(session, "SELECT COUNT(*) AS n FROM safe_outputs")?.first().and_then(|r| r.get("n")?.as_i64()).unwrap_or(0);
    let mut hint = String::new();
    if count <= SUGGEST_UP_TO {
        let ids: Vec<String> = rows(session, "SELECT safe_output_id FROM safe_outputs")?.iter().filter_map(|r| r.get("safe_output_id")?.as_str().map(str::to_string)).collect();
        if let Some(c) = crate::text::closest(id, ids.iter().map(String::as_str)) {
            hint = format!(" (did you mean `{c}`?)");
        }
    }
    Err(Error::usage(format!(
        "no safe output `{id}` in {}{hint}; `hindsight report --dataset {} --sql \"SELECT safe_output_id FROM safe_outputs\"` lists them",
        dataset.display(),
        dataset.display()
    )))
}

/// Where the target is on GitHub: the recorded URL, else one made from its repository, kind
/// and number.
fn target_link(o: &Map<String, Value>) -> Option<String> {
    if let Some(u) = o.get("target_url").and_then(Value::as_str) {
        return Some(u.to_string());
    }
    let repo = o.get("target_repo")?.as_str()?;
    let n = o.get("target_number")?.as_i64()?;
    let kind = match o.get("target_kind").and_then(Value::as_str)? {
        "pull_request" => "pull",
        "issue" => "issues",
        "discussion" => "discussions",
        _ => return None,
    };
    Some(format!("https://github.com/{repo}/{kind}/{n}"))
}

/// The captures of the target: its issue or pull request and every list under it, and the
/// comment it names.
fn captures(session: &Session, o: &Map<String, Value>) -> Result<Vec<Map<String, Value>>> {
    let Some(repo) = o.get("target_repo").and_then(Value::as_str) else { return Ok(Vec::new()) };
    let mut paths: Vec<String> = Vec::new();
    if let Some(n) = o.get("target_number").and_then(Value::as_i64) {
        for kind in ["pulls", "issues", "discussions"] {
            let base = format!("repos/{repo}/{kind}/{n}");
            paths.push(format!("path = {} OR starts_with(path, {})", literal(&base), literal(&format!("{base}/"))));
        }
    }
    if let Some(c) = o.get("target_comment_id").and_then(Value::as_i64) {
        for kind in ["issues", "pulls"] {
            paths.push(format!("path = {}", literal(&format!("repos/{repo}/{kind}/comments/{c}"))));
        }
    }
    if paths.is_empty() {
        return Ok(Vec::new());
    }
    let sql = format!("SELECT path, page, status, captured_at, superseded_by FROM responses WHERE {} ORDER BY path, page", paths.join(" OR "));
    rows(session, &sql)
}

/// Everything `explain` says of output `id`, as one JSON value (what `--format json` prints).
pub fn explanation(dataset: &Path, id: &str) -> Result<Value> {
    let session = Session::open(dataset)?;
    let o = output(&session, dataset, id)?;
    let sql = format!(
        "SELECT eval_window, outcome_status, evidence_strength, confidence, human_check_signal, rule_id, time_to_outcome_hours, \
         visible_non_bot_actor_count, bot_actor_count, evaluated_at, details, notes FROM outcomes WHERE safe_output_id = {} ORDER BY window_order",
        literal(id)
    );
    let windows: Vec<Value> = rows(&session, &sql)?
        .into_iter()
        .map(|mut w| {
            // The evidence as the object it is (rows come as the table's text, or already as
            // JSON), and the rule row it names from the catalogue.
            if let Some(d) = w.get("details").and_then(Value::as_str).and_then(|d| serde_json::from_str::<Value>(d).ok()) {
                w.insert("details".into(), d);
            }
            let rule = w.get("rule_id").and_then(Value::as_str).and_then(crate::evaluate::catalogue::row).unwrap_or(Value::Null);
            w.insert("rule".into(), rule);
            Value::Object(w)
        })
        .collect();
    let captures = captures(&session, &o)?;
    Ok(json!({ "safe_output": o, "target_link": target_link(&o), "windows": windows, "captures": captures }))
}

fn text(v: &Value) -> String {
    match v {
        Value::Null => "-".into(),
        Value::String(s) => crate::text::printable(s).into_owned(),
        other => other.to_string(),
    }
}

/// `n person` / `n people`; `-` when not recorded.
fn count(v: &Value, one: &str, many: &str) -> String {
    match v.as_i64() {
        Some(1) => format!("1 {one}"),
        Some(n) => format!("{n} {many}"),
        None => format!("- {many}"),
    }
}

/// The explanation as a terminal shows it.
fn render_text(e: &Value) -> String {
    let o = &e["safe_output"];
    let mut out = format!("Safe output {}: {}", text(&o["safe_output_id"]), text(&o["safe_output_type"]));
    if !o["target_repo"].is_null() {
        out.push_str(&format!(" on {}", text(&o["target_repo"])));
        if !o["target_number"].is_null() {
            out.push_str(&format!("#{}", text(&o["target_number"])));
        }
    }
    out.push('\n');
    if let Some(link) = e["target_link"].as_str() {
        out.push_str(&format!("  {link}\n"));
    }
    out.push_str(&format!("  run {} (workflow {}), created {} by {}\n", text(&o["run_id"]), text(&o["workflow_name"]), text(&o["created_at"]), text(&o["actor"])));
    for w in e["windows"].as_array().into_iter().flatten() {
        out.push_str(&format!(
            "\n{}: {} ({} evidence, {} confidence), judged at {}\n",
            text(&w["eval_window"]),
            text(&w["outcome_status"]),
            text(&w["evidence_strength"]),
            text(&w["confidence"]),
            text(&w["evaluated_at"])
        ));
        let rule = &w["rule"];
        out.push_str(&format!("  rule      {}: {}", text(&w["rule_id"]), text(&rule["when"])));
        if !rule.is_null() {
            out.push_str(&format!(" (decided by {}", text(&rule["decided_by"])));
            if let Some(p) = rule["policy"].as_str() {
                out.push_str(&format!("; policy switch `{p}`"));
            }
            out.push(')');
        }
        out.push('\n');
        out.push_str(&format!("  signal    {}\n", text(&w["human_check_signal"])));
        out.push_str(&format!("  actors    {} and {} seen acting", count(&w["visible_non_bot_actor_count"], "person", "people"), count(&w["bot_actor_count"], "bot", "bots")));
        if !w["time_to_outcome_hours"].is_null() {
            out.push_str(&format!("; decided after {} hours", text(&w["time_to_outcome_hours"])));
        }
        out.push('\n');
        if let Some(d) = w["details"].as_object().filter(|d| !d.is_empty()) {
            let pairs: Vec<String> = d.iter().map(|(k, v)| format!("{k}={}", text(v))).collect();
            out.push_str(&format!("  evidence  {}\n", pairs.join(", ")));
        }
        if let Some(n) = w["notes"].as_str().filter(|n| !n.is_empty()) {
            out.push_str(&format!("  notes     {}\n", crate::text::printable(n)));
        }
    }
    let captures = e["captures"].as_array().map(Vec::as_slice).unwrap_or_default();
    out.push_str(&format!("\nCaptures of the target in the snapshot ({}):\n", captures.len()));
    if captures.is_empty() {
        out.push_str("  none: the rules had nothing of it to read, so its verdicts rest on what is missing\n");
    }
    for c in captures {
        let superseded = c["superseded_by"].as_str().map(|s| format!(", superseded by {s}")).unwrap_or_default();
        let at = c["captured_at"].as_str().map(|t| format!("captured {t}")).unwrap_or_else(|| "captured with the snapshot".into());
        out.push_str(&format!("  {} (page {}): HTTP {}, {at}{superseded}\n", text(&c["path"]), text(&c["page"]), text(&c["status"])));
    }
    out
}

/// `explain` in `format`: text for a terminal (table and markdown alike), or JSON.
pub fn explain(dataset: &Path, id: &str, format: Format) -> Result<String> {
    let e = explanation(dataset, id)?;
    match format {
        Format::Json | Format::Ndjson => Ok(serde_json::to_string_pretty(&e)? + "\n"),
        Format::Table | Format::Markdown => Ok(render_text(&e)),
        Format::Csv | Format::Html => Err(Error::usage("explain --format: expected table or json")),
    }
}
