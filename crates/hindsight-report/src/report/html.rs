//! The HTML report: one self-contained file (inline CSS and SVG, no scripts, fonts or
//! network) with the dashboard's charts and every table. Cells carry `data-query`,
//! `data-row` and `data-field` so a test (or a reader's script) can match them to the
//! JSON report.

use std::fmt::Write;

use serde_json::Value;


pub use super::section::cell;
pub(crate) use super::section::{esc, Section};

fn table(section: &Section) -> String {
    let (name, rows, cols) = (section.name, &section.rows, &section.columns);
    let mut s = String::new();
    if rows.is_empty() {
        return "<p>(no rows)</p>".into();
    }
    s.push_str("<div class=\"scroll\"><table><thead><tr>");
    // Long column names may break after an underscore, so a wide table narrows first;
    // what is still wider than the page scrolls inside its section.
    for c in cols {
        let _ = write!(s, "<th>{}</th>", esc(c).replace('_', "_<wbr>"));
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


/// Where the numbers come from, shown at the top of the page.
pub(crate) struct Provenance {
    pub(crate) dataset: String,
    pub captured_at: String,
    pub(crate) written_by: String,
    pub(crate) windows: String,
    pub(crate) policy: Option<String>,
}

impl Provenance {
    /// What the report says of the dataset `m` is the manifest of.
    pub(crate) fn of(dataset: &crate::location::DatasetLocation, m: &crate::dataset::manifest::Manifest) -> Provenance {
        let tool = |k: &str| m.tool.get(k).cloned().unwrap_or_default();
        Provenance {
            dataset: dataset.to_string(),
            captured_at: m.captured_at.clone(),
            written_by: format!("{} {}", tool("name"), tool("version")).trim().to_string(),
            windows: m.windows.join(", "),
            policy: m.policy.as_ref().map(|p| serde_json::to_string_pretty(p).unwrap_or_default()),
        }
    }
}

fn provenance(p: &Provenance) -> String {
    let mut s = String::from("<dl class=\"prov\">");
    let _ = write!(s, "<dt>dataset</dt><dd>{}</dd>", esc(&p.dataset));
    let _ = write!(s, "<dt>captured at</dt><dd>{}</dd>", esc(&p.captured_at));
    let _ = write!(s, "<dt>dataset written by</dt><dd>{}</dd>", esc(&p.written_by));
    let _ = write!(s, "<dt>report by</dt><dd>hindsight {}</dd>", esc(hindsight_core::VERSION));
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
/// `notes` say which sections were left out and why, one line each, after the sections;
/// `lead`, a line the reader sees first (and whether it is a warning), under the title.
pub(crate) fn page(title: &str, sections: &[Section], notes: &[&str], prov: Option<&Provenance>, lead: Option<(&str, bool)>) -> String {
    let mut charts = String::new();
    for f in super::charts::figures(sections, &super::charts::Style::default()) {
        let _ = write!(charts, r#"<figure id="figure-{}"><figcaption>{}</figcaption>{}</figure>"#, esc(&f.name), esc(&f.caption), f.svg());
    }
    for note in super::charts::notes(sections) {
        let _ = write!(charts, r#"<p class="no-figure">{}</p>"#, esc(&note));
    }
    let mut body = String::new();
    // The curves are drawn, never a table (a row per time, as many as the outputs).
    for sec in sections.iter().filter(|s| s.name != super::charts::CURVES) {
        let _ = write!(body, r#"<section id="{}"><h2>{}</h2>{}</section>"#, esc(sec.name), esc(sec.title), table(sec));
    }
    if !notes.is_empty() {
        body.push_str(r#"<section id="left_out"><h2>Left out</h2>"#);
        for note in notes {
            let _ = write!(body, r#"<p class="left-out">{}</p>"#, esc(note));
        }
        body.push_str("</section>");
    }
    let mut head = match lead {
        Some((line, true)) => format!(r#"<p class="warning" role="alert">{}</p>"#, esc(line)),
        Some((line, false)) => format!(r#"<p class="note">{}</p>"#, esc(line)),
        None => String::new(),
    };
    if let Some(p) = prov {
        head.push_str(&provenance(p));
    }
    let explain = if charts.is_empty() {
        String::new()
    } else {
        format!(
            "<p>Three acceptance rates, never merged: strict (strong evidence), human-check (strong or medium evidence), sticky (weak evidence or existence only); denominator: evaluable outputs (status not skipped or unknown). Each rate's error bar is its 95% Wilson score interval; each group's n is the count its rate or median is computed over. Groups with n &lt; {} are hatched and marked <span class=\"small\">small n</span>: one more output moves their rates a lot. The terms (confidence, unknown, window_not_yet_observable...) are defined under <a href=\"#terms\">Terms</a>.</p>",
            super::charts::fmt_num(super::charts::SMALL_N)
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
figure{{display:block;margin:0 0 2em 0;max-width:1000px}} figcaption{{font-weight:600;margin-bottom:.3em}} figure svg{{display:block;width:100%;height:auto}}
dl.prov{{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:.2em 1em;font-size:13px}} dl.prov dt{{font-weight:600}} dl.prov dd{{margin:0;overflow-wrap:anywhere}}
dl.terms{{font-size:13px}} dl.terms dt{{font-weight:600;margin-top:.4em}} dl.terms dd{{margin-left:1.5em}}
.small{{color:#b00020}} p.warning{{border-left:4px solid #b00020;background:#fdecee;padding:.5em 1em}} p.note{{border-left:4px solid #888;padding:.2em 1em}} pre{{font-size:12px;white-space:pre-wrap;overflow-wrap:anywhere}} p,dd{{overflow-wrap:anywhere}}
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
