//! The HTML report: one self-contained file (inline CSS and SVG, no scripts, fonts or
//! network) with the dashboard's charts and every table. Cells carry `data-query`,
//! `data-row` and `data-field` so a test (or a reader's script) can match them to the
//! JSON report.

use std::fmt::Write;

use serde_json::{Map, Value};

const COLORS: &[&str] = &["#1b6ca8", "#5fa8d3", "#cae9ff", "#e07a5f", "#f2cc8f", "#81b29a", "#9a8c98", "#d9d9d9"];

fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// A cell as the JSON report writes it.
pub fn cell(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn num(v: Option<&Value>) -> f64 {
    v.and_then(Value::as_f64).unwrap_or(0.0)
}

type Rows = Vec<Map<String, Value>>;

/// Grouped horizontal bars: one group per label, one bar per series, values in [0, max].
fn bars(title: &str, labels: &[String], series: &[(&str, Vec<f64>)], max: f64, unit: &str) -> String {
    let row_h = 14.0;
    let group_h = row_h * series.len() as f64 + 10.0;
    let left = 230.0;
    let width = 420.0;
    let height = 40.0 + group_h * labels.len() as f64 + 20.0 * series.len() as f64;
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<figure><figcaption>{}</figcaption><svg xmlns="http://www.w3.org/2000/svg" width="{}" height="{height}" role="img" aria-label="{}">"#,
        esc(title),
        left + width + 80.0,
        esc(title)
    );
    for (gi, label) in labels.iter().enumerate() {
        let y0 = 20.0 + gi as f64 * group_h;
        let _ = write!(s, r#"<text x="{}" y="{}" text-anchor="end" font-size="11">{}</text>"#, left - 6.0, y0 + group_h / 2.0, esc(label));
        for (si, (_, vals)) in series.iter().enumerate() {
            let v = vals.get(gi).copied().unwrap_or(0.0);
            let w = if max > 0.0 { (v / max).clamp(0.0, 1.0) * width } else { 0.0 };
            let y = y0 + si as f64 * row_h;
            let _ = write!(s, r#"<rect x="{left}" y="{y}" width="{w:.1}" height="{}" fill="{}"/>"#, row_h - 2.0, COLORS[si % COLORS.len()]);
            let _ = write!(s, r#"<text x="{:.1}" y="{}" font-size="10">{}{unit}</text>"#, left + w + 4.0, y + row_h - 4.0, fmt_num(v));
        }
    }
    legend(&mut s, left, 30.0 + group_h * labels.len() as f64, series.iter().map(|(n, _)| *n));
    s.push_str("</svg></figure>");
    s
}

/// One colour swatch and name per series, from `top` down.
fn legend<'a>(s: &mut String, left: f64, top: f64, names: impl Iterator<Item = &'a str>) {
    for (i, name) in names.enumerate() {
        let y = top + i as f64 * 20.0;
        let _ = write!(
            s,
            r#"<rect x="{left}" y="{}" width="12" height="12" fill="{}"/><text x="{}" y="{}" font-size="11">{}</text>"#,
            y - 10.0,
            COLORS[i % COLORS.len()],
            left + 18.0,
            y,
            esc(name)
        );
    }
}

/// Stacked horizontal bars: one bar per label, parts summing to the row total.
fn stacked(title: &str, labels: &[String], parts: &[(&str, Vec<f64>)]) -> String {
    let left = 90.0;
    let width = 520.0;
    let height = 30.0 + 24.0 * labels.len() as f64 + 20.0 * parts.len() as f64;
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<figure><figcaption>{}</figcaption><svg xmlns="http://www.w3.org/2000/svg" width="{}" height="{height}" role="img" aria-label="{}">"#,
        esc(title),
        left + width + 20.0,
        esc(title)
    );
    for (i, label) in labels.iter().enumerate() {
        let y = 10.0 + i as f64 * 24.0;
        let total: f64 = parts.iter().map(|(_, v)| v.get(i).copied().unwrap_or(0.0)).sum();
        let _ = write!(s, r#"<text x="{}" y="{}" text-anchor="end" font-size="11">{}</text>"#, left - 6.0, y + 14.0, esc(label));
        let mut x = left;
        for (pi, (name, vals)) in parts.iter().enumerate() {
            let v = vals.get(i).copied().unwrap_or(0.0);
            if v <= 0.0 || total <= 0.0 {
                continue;
            }
            let w = v / total * width;
            let _ = write!(
                s,
                r#"<rect x="{x:.1}" y="{y}" width="{w:.1}" height="18" fill="{}"><title>{}: {}</title></rect>"#,
                COLORS[pi % COLORS.len()],
                esc(name),
                fmt_num(v)
            );
            x += w;
        }
    }
    legend(&mut s, left, 20.0 + 24.0 * labels.len() as f64, parts.iter().map(|(n, _)| *n));
    s.push_str("</svg></figure>");
    s
}

fn fmt_num(v: f64) -> String {
    if v.fract() == 0.0 {
        format!("{v:.0}")
    } else {
        format!("{v}")
    }
}

fn table(name: &str, rows: &Rows) -> String {
    let mut s = String::new();
    let Some(first) = rows.first() else {
        return "<p>(no rows)</p>".into();
    };
    let cols: Vec<&String> = first.keys().collect();
    s.push_str("<table><thead><tr>");
    for c in &cols {
        let _ = write!(s, "<th>{}</th>", esc(c));
    }
    s.push_str("</tr></thead><tbody>");
    for (i, r) in rows.iter().enumerate() {
        s.push_str("<tr>");
        for c in &cols {
            let v = r.get(*c).unwrap_or(&Value::Null);
            let class = if v.is_number() { " class=\"n\"" } else { "" };
            let _ = write!(s, r#"<td{class} data-query="{}" data-row="{i}" data-field="{}">{}</td>"#, esc(name), esc(c), esc(&cell(v)));
        }
        s.push_str("</tr>");
    }
    s.push_str("</tbody></table>");
    s
}

const RATES: &[&str] = &["strict_acceptance_rate", "human_check_acceptance_rate", "sticky_artifact_rate"];

/// The page. `sections` are (query name, title, rows as the JSON report has them), in
/// dashboard order; `title` names the dataset.
pub fn page(title: &str, sections: &[(&str, &str, Rows)]) -> String {
    let get = |n: &str| sections.iter().find(|s| s.0 == n).map(|s| &s.2);
    let mut charts = String::new();
    if let Some(rows) = get("acceptance_by_window") {
        let labels: Vec<String> = rows.iter().map(|r| cell(&r["eval_window"])).collect();
        let series: Vec<(&str, Vec<f64>)> = RATES.iter().map(|k| (*k, rows.iter().map(|r| num(r.get(*k))).collect())).collect();
        charts.push_str(&bars("The three acceptance rates by window", &labels, &series, 1.0, ""));
    }
    if let Some(rows) = get("acceptance_by_type") {
        // Types with nothing evaluable (system outputs) have no rates to draw.
        let snap: Rows = rows.iter().filter(|r| r["eval_window"] == "snapshot" && num(r.get("evaluable_outputs")) > 0.0).cloned().collect();
        let labels: Vec<String> = snap.iter().map(|r| cell(&r["safe_output_type"])).collect();
        let series: Vec<(&str, Vec<f64>)> = RATES.iter().map(|k| (*k, snap.iter().map(|r| num(r.get(*k))).collect())).collect();
        charts.push_str(&bars("The three acceptance rates by type (snapshot window)", &labels, &series, 1.0, ""));
        let timed: Rows = snap.iter().filter(|r| r.get("median_time_to_acceptance").is_some_and(|v| !v.is_null())).cloned().collect();
        let labels: Vec<String> = timed.iter().map(|r| cell(&r["safe_output_type"])).collect();
        let vals: Vec<f64> = timed.iter().map(|r| num(r.get("median_time_to_acceptance"))).collect();
        let max = vals.iter().cloned().fold(0.0, f64::max);
        charts.push_str(&bars("Median time to acceptance by type, hours (snapshot window)", &labels, &[("median_time_to_acceptance", vals)], max, " h"));
    }
    if let Some(rows) = get("summary") {
        let labels: Vec<String> = rows.iter().map(|r| cell(&r["eval_window"])).collect();
        let keys = ["accepted_strong", "accepted_medium", "accepted_weak", "rejected", "pending", "ignored", "unknown", "skipped"];
        let parts: Vec<(&str, Vec<f64>)> = keys.iter().map(|k| (*k, rows.iter().map(|r| num(r.get(*k))).collect())).collect();
        charts.push_str(&stacked("Outcome mix by window", &labels, &parts));
    }
    let mut body = String::new();
    for (name, t, rows) in sections {
        let _ = write!(body, r#"<section id="{}"><h2>{}</h2>{}</section>"#, esc(name), esc(t), table(name, rows));
    }
    format!(
        r#"<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>hindsight: {t}</title>
<style>
body{{font-family:system-ui,sans-serif;margin:2em;color:#222;max-width:1200px}}
table{{border-collapse:collapse;margin:.5em 0 1.5em;font-size:13px}}
th,td{{border:1px solid #ccc;padding:3px 8px}} th{{background:#f3f3f3}} td.n{{text-align:right;font-variant-numeric:tabular-nums}}
figure{{display:inline-block;margin:0 2em 2em 0;vertical-align:top}} figcaption{{font-weight:600;margin-bottom:.3em}}
</style></head>
<body><h1>hindsight dashboard: {t}</h1>
<p>Three acceptance rates, never merged: strict (strong evidence), human-check (strong or medium), sticky (weak or existence only); denominator: evaluable outputs (status not skipped or unknown).</p>
<div class="charts">{charts}</div>
{body}
</body></html>
"#,
        t = esc(title)
    )
}
