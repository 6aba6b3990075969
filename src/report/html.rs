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

/// Samples below this are marked on the charts: a rate over fewer outputs moves a lot
/// with one more.
pub const SMALL_N: f64 = 10.0;

/// An x axis under a chart: a line, ticks at fifths of `max`, their values.
fn axis(s: &mut String, left: f64, width: f64, y: f64, max: f64, unit: &str) {
    let _ = write!(s, r##"<line x1="{left}" y1="{y}" x2="{}" y2="{y}" stroke="#555"/>"##, left + width);
    for k in 0..=4 {
        let x = left + width * k as f64 / 4.0;
        let v = max * k as f64 / 4.0;
        let _ = write!(s, r##"<line x1="{x:.1}" y1="{y}" x2="{x:.1}" y2="{}" stroke="#555"/>"##, y + 4.0);
        let _ = write!(s, r#"<text x="{x:.1}" y="{}" font-size="10" text-anchor="middle">{}{unit}</text>"#, y + 15.0, fmt_tick(v));
    }
}

fn fmt_tick(v: f64) -> String {
    let r = (v * 100.0).round() / 100.0;
    fmt_num(r)
}

/// Grouped horizontal bars: one group per label, one bar per series, values in [0, max],
/// with an axis, and each group's sample size `n` (marked when small).
fn bars(title: &str, labels: &[String], ns: &[f64], series: &[(&str, Vec<f64>)], max: f64, unit: &str) -> String {
    let row_h = 14.0;
    let group_h = (row_h * series.len() as f64 + 10.0).max(30.0);
    let left = 260.0;
    let width = 560.0;
    let axis_y = 20.0 + group_h * labels.len() as f64;
    let height = axis_y + 30.0 + 20.0 * series.len() as f64;
    let total_w = left + width + 90.0;
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<figure><figcaption>{}</figcaption><svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {total_w} {height}" width="100%" role="img" aria-label="{}">"#,
        esc(title),
        esc(title)
    );
    for (gi, label) in labels.iter().enumerate() {
        let y0 = 20.0 + gi as f64 * group_h;
        let n = ns.get(gi).copied().unwrap_or(0.0);
        let small = n < SMALL_N;
        let _ = write!(s, r#"<text x="{}" y="{}" text-anchor="end" font-size="11">{}</text>"#, left - 6.0, y0 + group_h / 2.0 - 4.0, esc(label));
        let _ = write!(
            s,
            r##"<text x="{}" y="{}" text-anchor="end" font-size="10" fill="{}" data-n="{}">n = {}{}</text>"##,
            left - 6.0,
            y0 + group_h / 2.0 + 8.0,
            if small { "#b00020" } else { "#666" },
            fmt_num(n),
            fmt_num(n),
            if small { " (small n)" } else { "" }
        );
        for (si, (_, vals)) in series.iter().enumerate() {
            let v = vals.get(gi).copied().unwrap_or(0.0);
            let w = if max > 0.0 { (v / max).clamp(0.0, 1.0) * width } else { 0.0 };
            let y = y0 + si as f64 * row_h;
            let style = if small { r##" fill-opacity="0.45" stroke="#b00020" stroke-dasharray="3 2""## } else { "" };
            let _ = write!(s, r#"<rect x="{left}" y="{y}" width="{w:.1}" height="{}" fill="{}"{style}/>"#, row_h - 2.0, COLORS[si % COLORS.len()]);
            let _ = write!(s, r#"<text x="{:.1}" y="{}" font-size="10">{}{unit}</text>"#, left + w + 4.0, y + row_h - 4.0, fmt_num(v));
        }
    }
    axis(&mut s, left, width, axis_y, max, unit);
    legend(&mut s, left, axis_y + 40.0, series.iter().map(|(n, _)| *n));
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

/// Stacked horizontal bars: one bar per label, parts summing to the row total (its `n`),
/// as shares of it, with an axis.
fn stacked(title: &str, labels: &[String], parts: &[(&str, Vec<f64>)]) -> String {
    let left = 90.0;
    let width = 640.0;
    let axis_y = 10.0 + 24.0 * labels.len() as f64;
    let height = axis_y + 30.0 + 20.0 * parts.len() as f64;
    let total_w = left + width + 90.0;
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<figure><figcaption>{}</figcaption><svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {total_w} {height}" width="100%" role="img" aria-label="{}">"#,
        esc(title),
        esc(title)
    );
    for (i, label) in labels.iter().enumerate() {
        let y = 10.0 + i as f64 * 24.0;
        let total: f64 = parts.iter().map(|(_, v)| v.get(i).copied().unwrap_or(0.0)).sum();
        let _ = write!(s, r#"<text x="{}" y="{}" text-anchor="end" font-size="11">{}</text>"#, left - 6.0, y + 14.0, esc(label));
        let _ = write!(s, r#"<text x="{}" y="{}" font-size="10" data-n="{}">n = {}</text>"#, left + width + 6.0, y + 14.0, fmt_num(total), fmt_num(total));
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
    axis(&mut s, left, width, axis_y, 100.0, "%");
    legend(&mut s, left, axis_y + 40.0, parts.iter().map(|(n, _)| *n));
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

fn table(section: &Section) -> String {
    let (name, rows, cols) = (section.name, &section.rows, &section.columns);
    let mut s = String::new();
    if rows.is_empty() {
        return "<p>(no rows)</p>".into();
    }
    s.push_str("<div class=\"scroll\"><table><thead><tr>");
    for c in cols {
        let _ = write!(s, "<th>{}</th>", esc(c));
    }
    s.push_str("</tr></thead><tbody>");
    for (i, r) in rows.iter().enumerate() {
        s.push_str("<tr>");
        for c in cols {
            let v = r.get(c).unwrap_or(&Value::Null);
            let class = if v.is_number() { " class=\"n\"" } else { "" };
            let _ = write!(s, r#"<td{class} data-query="{}" data-row="{i}" data-field="{}">{}</td>"#, esc(name), esc(c), esc(&cell(v)));
        }
        s.push_str("</tr>");
    }
    s.push_str("</tbody></table></div>");
    s
}

const RATES: &[&str] = &["strict_acceptance_rate", "human_check_acceptance_rate", "sticky_artifact_rate"];

/// The three rates of each row as grouped bars, labelled by its `label` column, with its
/// `n` column as the sample size.
fn rate_bars(title: &str, rows: &[Map<String, Value>], label: &str, n: &str) -> String {
    let labels: Vec<String> = rows.iter().map(|r| cell(&r[label])).collect();
    let ns: Vec<f64> = rows.iter().map(|r| num(r.get(n))).collect();
    let series: Vec<(&str, Vec<f64>)> = RATES.iter().map(|k| (*k, rows.iter().map(|r| num(r.get(*k))).collect())).collect();
    bars(title, &labels, &ns, &series, 1.0, "")
}

/// A section of the page: the query's name and title, its columns in the query's order,
/// and its rows as the JSON report has them.
pub struct Section<'a> {
    pub name: &'a str,
    pub title: &'a str,
    pub columns: Vec<String>,
    pub rows: Rows,
}

/// Where the numbers come from, shown at the top of the page.
pub struct Provenance {
    pub dataset: String,
    pub captured_at: String,
    pub written_by: String,
    pub windows: String,
    pub policy: Option<String>,
}

impl Provenance {
    pub fn of(dataset: &std::path::Path) -> crate::Result<Provenance> {
        let m = crate::dataset::manifest::Manifest::load(dataset)?;
        let tool = |k: &str| m.tool.get(k).cloned().unwrap_or_default();
        Ok(Provenance {
            dataset: dataset.display().to_string(),
            captured_at: m.captured_at.clone(),
            written_by: format!("{} {}", tool("name"), tool("version")).trim().to_string(),
            windows: m.windows.join(", "),
            policy: m.policy.as_ref().map(|p| serde_json::to_string_pretty(p).unwrap_or_default()),
        })
    }
}

fn provenance(p: &Provenance) -> String {
    let mut s = String::from("<dl class=\"prov\">");
    let _ = write!(s, "<dt>dataset</dt><dd>{}</dd>", esc(&p.dataset));
    let _ = write!(s, "<dt>captured at</dt><dd>{}</dd>", esc(&p.captured_at));
    let _ = write!(s, "<dt>dataset written by</dt><dd>{}</dd>", esc(&p.written_by));
    let _ = write!(s, "<dt>report by</dt><dd>hindsight {}</dd>", esc(env!("HINDSIGHT_VERSION")));
    let _ = write!(s, "<dt>windows</dt><dd>{}</dd>", esc(&p.windows));
    match &p.policy {
        Some(policy) => {
            let hash = crate::json::sha256_hex(policy.as_bytes());
            let _ = write!(s, "<dt>policy</dt><dd><details><summary>sha256 {}</summary><pre>{}</pre></details></dd>", &hash[..12], esc(policy));
        }
        None => s.push_str("<dt>policy</dt><dd>defaults</dd>"),
    }
    s.push_str("</dl>");
    s
}

/// The terms a reader of the charts needs, from the data dictionary.
fn glossary() -> String {
    let mut s = String::from("<dl class=\"terms\">");
    for (term, meaning) in crate::dataset::dictionary::TERMS {
        let _ = write!(s, "<dt>{}</dt><dd>{}</dd>", esc(term), esc(&meaning.replace('`', "")));
    }
    s.push_str("</dl>");
    s
}

/// The page. `sections` are in dashboard order; `title` says what the page shows.
/// `notes` say which sections were left out and why, one line each, after the sections.
pub fn page(title: &str, sections: &[Section], notes: &[&str], prov: Option<&Provenance>) -> String {
    let get = |n: &str| sections.iter().find(|s| s.name == n).map(|s| &s.rows);
    let mut charts = String::new();
    if let Some(rows) = get("acceptance_by_window") {
        charts.push_str(&rate_bars("The three acceptance rates by window (n: evaluable outputs)", rows, "eval_window", "evaluable_outputs"));
    }
    if let Some(rows) = get("acceptance_by_type") {
        // Types with nothing evaluable (system outputs) have no rates to draw.
        let snap: Rows = rows.iter().filter(|r| r["eval_window"] == "snapshot" && num(r.get("evaluable_outputs")) > 0.0).cloned().collect();
        charts.push_str(&rate_bars("The three acceptance rates by type, snapshot window (n: evaluable outputs)", &snap, "safe_output_type", "evaluable_outputs"));
        let timed: Rows = snap.iter().filter(|r| r.get("median_time_to_acceptance").is_some_and(|v| !v.is_null())).cloned().collect();
        let labels: Vec<String> = timed.iter().map(|r| cell(&r["safe_output_type"])).collect();
        let ns: Vec<f64> = timed.iter().map(|r| num(r.get("evaluable_outputs"))).collect();
        let vals: Vec<f64> = timed.iter().map(|r| num(r.get("median_time_to_acceptance"))).collect();
        let max = vals.iter().cloned().fold(0.0, f64::max);
        charts.push_str(&bars(
            "Median time to acceptance by type, hours, snapshot window (n: evaluable outputs)",
            &labels,
            &ns,
            &[("median_time_to_acceptance", vals)],
            max,
            " h",
        ));
    }
    if let Some(rows) = get("aidev/rates_by_window") {
        // An AIDev import: the rates of each agent's PRs at the snapshot.
        let snap: Rows = rows.iter().filter(|r| r["eval_window"] == "snapshot" && num(r.get("evaluable_prs")) > 0.0).cloned().collect();
        charts.push_str(&rate_bars("The three acceptance rates by agent, snapshot window (n: evaluable PRs)", &snap, "agent", "evaluable_prs"));
    }
    if let Some(rows) = get("summary") {
        let labels: Vec<String> = rows.iter().map(|r| cell(&r["eval_window"])).collect();
        let keys = ["accepted_strong", "accepted_medium", "accepted_weak", "rejected", "pending", "ignored", "unknown", "skipped"];
        let parts: Vec<(&str, Vec<f64>)> = keys.iter().map(|k| (*k, rows.iter().map(|r| num(r.get(*k))).collect())).collect();
        charts.push_str(&stacked("Outcome mix by window (share of all outputs; n: outputs)", &labels, &parts));
    }
    let mut body = String::new();
    for sec in sections {
        let _ = write!(body, r#"<section id="{}"><h2>{}</h2>{}</section>"#, esc(sec.name), esc(sec.title), table(sec));
    }
    if !notes.is_empty() {
        body.push_str(r#"<section id="left_out"><h2>Left out</h2>"#);
        for note in notes {
            let _ = write!(body, r#"<p class="left-out">{}</p>"#, esc(note));
        }
        body.push_str("</section>");
    }
    let head = match prov {
        Some(p) => provenance(p),
        None => String::new(),
    };
    let explain = if charts.is_empty() {
        String::new()
    } else {
        format!(
            "<p>Three acceptance rates, never merged: strict (strong evidence), human-check (strong or medium), sticky (weak or existence only); denominator: evaluable outputs (status not skipped or unknown). Groups with n &lt; {} are drawn faded and marked <span class=\"small\">small n</span>: one more output moves their rates a lot. The terms (confidence, unknown, window_not_yet_observable...) are defined under <a href=\"#terms\">Terms</a>.</p>",
            fmt_num(SMALL_N)
        )
    };
    let terms = if charts.is_empty() { String::new() } else { format!("<section id=\"terms\"><h2>Terms</h2>{}</section>", glossary()) };
    format!(
        r#"<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>hindsight: {t}</title>
<style>
body{{font-family:system-ui,sans-serif;margin:1.5em 2em;color:#222}}
.scroll{{overflow-x:auto;max-width:100%}}
table{{border-collapse:collapse;margin:.5em 0 1.5em;font-size:13px}}
th,td{{border:1px solid #ccc;padding:3px 8px}} th{{background:#f3f3f3}} td.n{{text-align:right;font-variant-numeric:tabular-nums}}
figure{{display:block;margin:0 0 2em 0;max-width:1100px}} figcaption{{font-weight:600;margin-bottom:.3em}}
dl.prov{{display:grid;grid-template-columns:max-content 1fr;gap:.2em 1em;font-size:13px}} dl.prov dt{{font-weight:600}} dl.prov dd{{margin:0}}
dl.terms{{font-size:13px}} dl.terms dt{{font-weight:600;margin-top:.4em}} dl.terms dd{{margin-left:1.5em}}
.small{{color:#b00020}} pre{{font-size:12px}}
</style></head>
<body><h1>hindsight: {t}</h1>
{head}
{explain}
<div class="charts">{charts}</div>
{terms}
{body}
</body></html>
"#,
        t = esc(title)
    )
}
