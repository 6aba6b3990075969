//! Output formats for query results: table, json, csv, markdown.

use std::str::FromStr;

use arrow::array::{Array, ArrayRef};
use arrow::record_batch::RecordBatch;
use arrow::util::display::{ArrayFormatter, FormatOptions};

use super::{json_text, spans};
use crate::error::{Error, Result};

/// How a result is printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// A boxed table for reading (a preview of the first rows).
    #[value(alias = "box", alias = "duckbox")]
    Table,
    /// One JSON document: an array of row objects.
    Json,
    /// One JSON object per row and line (JSON Lines).
    #[value(alias = "jsonl", alias = "jsonlines")]
    Ndjson,
    /// Comma-separated values with a header line.
    Csv,
    /// A markdown table.
    #[value(alias = "md")]
    Markdown,
    /// A standalone HTML page (reports only).
    Html,
}

impl FromStr for Format {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        Ok(match s {
"table" | "box" | "duckbox" => Format::Table,
            "json" => Format::Json,
            "ndjson" | "jsonl" | "jsonlines" => Format::Ndjson,
            "csv" => Format::Csv,
            "markdown" | "md" => Format::Markdown,
            "html" => Format::Html,
            other => return Err(Error::usage(format!("format `{other}`: expected table, json, ndjson, csv, markdown or html"))),
        })
    }
}

/// Column names, and rows of cells as text (`None` for NULL).
type Cells = (Vec<String>, Vec<Vec<Option<String>>>);

/// Cells as text (NULL as empty), with the column names.
fn cells(batches: &[RecordBatch]) -> Result<Cells> {
    let Some(first) = batches.first() else { return Ok((vec![], vec![])) };
    let names: Vec<String> = first.schema().fields().iter().map(|f| f.name().clone()).collect();
    let opts = FormatOptions::default();
    let mut rows = Vec::new();
    for b in batches {
        let fmts: Vec<(ArrayFormatter, &ArrayRef)> = b.columns().iter().map(|c| Ok((ArrayFormatter::try_new(c.as_ref(), &opts)?, c))).collect::<Result<_>>()?;
        for r in 0..b.num_rows() {
            rows.push(fmts.iter().map(|(f, c)| if c.is_null(r) { None } else { Some(f.value(r).to_string()) }).collect());
        }
    }
    Ok((names, rows))
}

pub fn render(batches: &[RecordBatch], fmt: Format) -> Result<String> {
    let printed = spans::all_for_format(batches, fmt)?;
    let batches = printed.as_slice();
    match fmt {
        // Table and markdown are read on a terminal: control characters from the data are
        // shown, not obeyed. JSON and CSV escape them in their own ways.
        Format::Table => Ok(crate::text::printable(&arrow::util::pretty::pretty_format_batches(batches)?.to_string()).into_owned() + "\n"),
        Format::Csv => {
            let mut buf = Vec::new();
            {
                let mut w = arrow::csv::WriterBuilder::new().with_header(true).build(&mut buf);
                for b in batches {
                    w.write(b)?;
                }
            }
            if batches.is_empty() {
                return Ok(String::new());
            }
            Ok(String::from_utf8_lossy(&buf).to_string())
        }
        Format::Json => Ok(json_array(batches, 0)? + "\n"),
        Format::Ndjson => ndjson(batches, None),
        Format::Html => {
            let section = super::html::Section { name: "query", title: "Query result", columns: column_names(batches), rows: rows_of(batches)? };
            Ok(super::html::page("query result", &[section], &[], None, None))
        }
        Format::Markdown => {
            let (names, rows) = cells(batches)?;
            let mut out = String::new();
            out.push_str(&format!("| {} |\n", names.join(" | ")));
            out.push_str(&format!("|{}\n", names.iter().map(|_| "---|").collect::<String>()));
            for r in rows {
                let vals: Vec<String> = r.into_iter().map(|c| c.unwrap_or_default().replace('|', "\\|")).collect();
                out.push_str(&format!("| {} |\n", vals.join(" | ")));
            }
            Ok(crate::text::printable(&out).into_owned())
        }
    }
}

/// Rows as one pretty JSON array (keys in column order, nulls kept, a JSON column's object
/// or array as JSON: [`json_text`]), nested `level` deep.
pub(crate) fn json_array(batches: &[RecordBatch], level: usize) -> Result<String> {
    match pretty_rows(batches, level) {
        Some(text) => Ok(text),
        None => Ok(indent_after_first_line(&ordered_rows(batches)?, level)),
    }
}

/// Rows as JSON Lines: one compact object per row, keys in column order, nulls kept; with
/// `query`, each object starts with `"query": NAME` (a dashboard's rows in one stream). A
/// JSON column's object or array is JSON on the line ([`json_text`]).
pub(crate) fn ndjson(batches: &[RecordBatch], query: Option<&str>) -> Result<String> {
    let mut buf = Vec::new();
    {
        let mut w = arrow::json::WriterBuilder::new()
            .with_explicit_nulls(true)
            .with_encoder_factory(json_text::encoders())
            .build::<_, arrow::json::writer::LineDelimited>(&mut buf);
        for b in batches {
            w.write(b)?;
        }
        w.finish()?;
    }
    let text = String::from_utf8_lossy(&buf).into_owned();
    let Some(q) = query else { return Ok(text) };
    let key = format!("{{\"query\":{},", serde_json::to_string(q)?);
    Ok(text.lines().map(|l| format!("{key}{}\n", l.strip_prefix('{').unwrap_or(l))).collect::<String>().replace(",}\n", "}\n"))
}

/// Rows as JSON objects, keeping numbers as numbers.
pub fn json_rows(batches: &[RecordBatch]) -> Result<serde_json::Value> {
    let mut buf = Vec::new();
    {
        let mut w = arrow::json::ArrayWriter::new(&mut buf);
        let refs: Vec<&RecordBatch> = batches.iter().collect();
        w.write_batches(&refs)?;
        w.finish()?;
    }
    if buf.is_empty() {
        return Ok(serde_json::Value::Array(vec![]));
    }
    // arrow's JSON writer leaves out null fields; put them back so every row has every column.
    let mut v: serde_json::Value = serde_json::from_slice(&buf)?;
    if let (Some(first), Some(rows)) = (batches.first(), v.as_array_mut()) {
        let names: Vec<String> = first.schema().fields().iter().map(|f| f.name().clone()).collect();
        for row in rows.iter_mut() {
            if let Some(obj) = row.as_object_mut() {
                for n in &names {
                    obj.entry(n.clone()).or_insert(serde_json::Value::Null);
                }
            }
        }
    }
    Ok(v)
}

fn indent_after_first_line(text: &str, level: usize) -> String {
    let pad = "  ".repeat(level);
    text.lines().enumerate().map(|(i, l)| if i == 0 { l.to_string() } else { format!("{pad}{l}") }).collect::<Vec<_>>().join("\n")
}

/// Rows as pretty JSON with each row's keys in the query's column order, for column types
/// [`pretty_rows`] does not write itself (values as arrow's JSON writer gives them; a JSON
/// column's object or array as JSON, [`json_text`]).
fn ordered_rows(batches: &[RecordBatch]) -> Result<String> {
    let v = json_rows(batches)?;
    let fields: Vec<arrow::datatypes::FieldRef> = batches.first().map(|b| b.schema().fields().iter().cloned().collect()).unwrap_or_default();
    let rows = v.as_array().cloned().unwrap_or_default();
    if rows.is_empty() {
        return Ok("[]".to_string());
    }
    let mut out = String::from("[");
    for (i, row) in rows.iter().enumerate() {
        out.push_str(if i == 0 { "\n  {" } else { ",\n  {" });
        for (k, f) in fields.iter().enumerate() {
            out.push_str(if k == 0 { "\n    " } else { ",\n    " });
            out.push_str(&serde_json::to_string(f.name())?);
            out.push_str(": ");
            let value = row.get(f.name()).cloned().unwrap_or(serde_json::Value::Null);
            match value.as_str() {
                Some(text) if json_text::is_json_column(f) => out.push_str(&json_text::value(text, Some(2))),
                _ => out.push_str(&indent_after_first_line(&serde_json::to_string_pretty(&value)?, 2)),
            }
        }
        out.push_str("\n  }");
    }
    out.push_str("\n]");
    Ok(out)
}

/// `json_rows` as serde_json's pretty printer writes it (keys in column order, nulls kept,
/// two spaces a level, nested `level` deep), written straight from the arrays: a dashboard with half
/// a million rows spent seconds going through `Value`s. `None` for a column type it does
/// not write the same way (the caller goes through `json_rows`).
fn pretty_rows(batches: &[RecordBatch], level: usize) -> Option<String> {
    let rows: usize = batches.iter().map(RecordBatch::num_rows).sum();
    if rows == 0 {
        return Some("[]".to_string());
    }
    let schema = batches.first()?.schema();
    // Keys in the query's column order, and which columns hold JSON text.
    let keys: Vec<(usize, String, bool)> = schema
        .fields()
        .iter()
        .enumerate()
        .map(|(i, f)| Some((i, serde_json::to_string(f.name()).ok()?, json_text::is_json_column(f))))
        .collect::<Option<_>>()?;
    let (row_pad, key_pad) = ("  ".repeat(level + 1), "  ".repeat(level + 2));
    let mut out = String::from("[");
    let mut first = true;
    for b in batches {
        for r in 0..b.num_rows() {
            out.push_str(if first { "\n" } else { ",\n" });
            first = false;
            out.push_str(&row_pad);
            out.push('{');
            for (k, (ci, key, json)) in keys.iter().enumerate() {
                out.push_str(if k == 0 { "\n" } else { ",\n" });
                out.push_str(&key_pad);
                out.push_str(key);
                out.push_str(": ");
                push_value(&mut out, b.column(*ci), r, json.then_some(level + 2))?;
            }
            out.push('\n');
            out.push_str(&row_pad);
            out.push('}');
        }
    }
    out.push('\n');
    out.push_str(&"  ".repeat(level));
    out.push(']');
    Some(out)
}

/// Row `r` of `c` as [`pretty_rows`] writes it; `json`: the column holds JSON text, laid out
/// at that level ([`json_text::value`]). `None` for a type it does not write.
fn push_value(out: &mut String, c: &ArrayRef, r: usize, json: Option<usize>) -> Option<()> {
    use arrow::array::{AsArray, BooleanArray, Float64Array, Int16Array, Int32Array, Int64Array, Int8Array, UInt16Array, UInt32Array, UInt64Array, UInt8Array};
    use arrow::datatypes::DataType;
    use std::fmt::Write;
    if c.is_null(r) {
        out.push_str("null");
        return Some(());
    }
    macro_rules! int {
        ($t:ty) => {{
            let _ = write!(out, "{}", c.as_any().downcast_ref::<$t>()?.value(r));
        }};
    }
    let text = |t: &str| match json {
        Some(level) => Some(json_text::value(t, Some(level))),
        None => serde_json::to_string(t).ok(),
    };
    match c.data_type() {
        DataType::Int8 => int!(Int8Array),
        DataType::Int16 => int!(Int16Array),
        DataType::Int32 => int!(Int32Array),
        DataType::Int64 => int!(Int64Array),
        DataType::UInt8 => int!(UInt8Array),
        DataType::UInt16 => int!(UInt16Array),
        DataType::UInt32 => int!(UInt32Array),
        DataType::UInt64 => int!(UInt64Array),
        DataType::Boolean => int!(BooleanArray),
        DataType::Float64 => {
            let v = c.as_any().downcast_ref::<Float64Array>()?.value(r);
            if !v.is_finite() {
                return None;
            }
            out.push_str(&serde_json::to_string(&v).ok()?);
        }
        DataType::Utf8 => out.push_str(&text(c.as_string::<i32>().value(r))?),
        DataType::LargeUtf8 => out.push_str(&text(c.as_string::<i64>().value(r))?),
        DataType::Utf8View => out.push_str(&text(c.as_string_view().value(r))?),
        _ => return None,
    }
    Some(())
}

/// The rows as JSON objects (the JSON report's), one map each.
pub fn rows_of(batches: &[RecordBatch]) -> Result<Vec<serde_json::Map<String, serde_json::Value>>> {
    Ok(json_rows(batches)?.as_array().map(|a| a.iter().filter_map(|r| r.as_object().cloned()).collect()).unwrap_or_default())
}

/// The columns of a result, in the query's order.
fn column_names(batches: &[RecordBatch]) -> Vec<String> {
    batches.first().map(|b| b.schema().fields().iter().map(|f| f.name().clone()).collect()).unwrap_or_default()
}

/// Rows of a section the terminal dashboard shows; the rest are counted, and `report
/// --query NAME` prints them all.
pub const TERMINAL_ROWS: usize = 20;

/// The key of the JSON report (and the `query` of the CSV one) that lists the sections left
/// out, one row per note: `sections` (their query names, comma-separated) and `note`.
pub(crate) const LEFT_OUT: &str = "left_out";

/// The left-out sections as rows (`sections`, `note`).
fn left_out_batch(left_out: &[super::LeftOut]) -> Result<RecordBatch> {
    use arrow::array::StringArray;
    let names: StringArray = left_out.iter().map(|l| Some(l.sections.join(", "))).collect();
    let notes: StringArray = left_out.iter().map(|l| Some(l.note.as_str())).collect();
    Ok(RecordBatch::try_from_iter(vec![("sections", std::sync::Arc::new(names) as ArrayRef), ("note", std::sync::Arc::new(notes) as ArrayRef)])?)
}

/// Decimals a number column of the table, markdown and HTML reports is shown with: hours
/// (`*hours*`, `median_time_*`) and percents (`pct`, `pct_*`, `*_pct`) 1, everything else (rates,
/// shares, means) 4. JSON and CSV keep every digit the query computed.
pub(crate) fn reading_decimals(column: &str) -> i32 {
    if column.contains("hours") || column.starts_with("median_time") || column == "pct" || column.starts_with("pct_") || column.ends_with("_pct") {
        1
    } else {
        4
    }
}

/// A number of `column` as the table, markdown and HTML reports show it: rounded half away
/// from zero to [`reading_decimals`].
pub fn for_reading(column: &str, v: f64) -> f64 {
    rounded(v, reading_decimals(column))
}

/// `v` rounded half away from zero to `decimals`.
pub(crate) fn rounded(v: f64, decimals: i32) -> f64 {
    let scale = 10f64.powi(decimals);
    let r = (v * scale).round() / scale;
    // No `-0.0` from a small negative; a value too large to scale stays as it is.
    if r.is_finite() {
        r + 0.0
    } else {
        v
    }
}

/// The batches with every floating-point column rounded for reading ([`for_reading`]).
pub(crate) fn rounded_for_reading(batches: &[RecordBatch]) -> Result<Vec<RecordBatch>> {
    rounded_by(batches, &for_reading)
}

/// The batches with every floating-point column rounded half away from zero to `digits`
/// decimals (`--digits`; 17 or more leaves them as they are).
pub(crate) fn rounded_to(batches: &[RecordBatch], digits: u32) -> Result<Vec<RecordBatch>> {
    if digits >= 17 {
        return Ok(batches.to_vec());
    }
    rounded_by(batches, &|_, v| rounded(v, digits as i32))
}

/// The batches with every floating-point column's values passed through `round` (with the
/// column's name).
fn rounded_by(batches: &[RecordBatch], round: &dyn Fn(&str, f64) -> f64) -> Result<Vec<RecordBatch>> {
    use arrow::array::{AsArray, Float32Array, Float64Array};
    use arrow::datatypes::{DataType, Float32Type, Float64Type};
    batches
        .iter()
        .map(|b| {
            let schema = b.schema();
            let cols: Vec<ArrayRef> = b
                .columns()
                .iter()
                .zip(schema.fields())
                .map(|(c, f)| match c.data_type() {
                    DataType::Float64 => {
                        let a: Float64Array = c.as_primitive::<Float64Type>().iter().map(|v| v.map(|v| round(f.name(), v))).collect();
                        std::sync::Arc::new(a) as ArrayRef
                    }
                    DataType::Float32 => {
                        let a: Float32Array = c.as_primitive::<Float32Type>().iter().map(|v| v.map(|v| round(f.name(), v as f64) as f32)).collect();
                        std::sync::Arc::new(a) as ArrayRef
                    }
                    _ => c.clone(),
                })
                .collect();
            Ok(RecordBatch::try_new(schema, cols)?)
        })
        .collect()
}

/// The sections as the HTML page shows them (and its charts draw them): numbers rounded for
/// reading ([`for_reading`]); the curves, drawn and never shown as a table, as computed.
pub(crate) fn html_sections<'a>(sections: &'a [(&'a str, &'a str, Vec<RecordBatch>)]) -> Result<Vec<super::html::Section<'a>>> {
    sections
        .iter()
        .map(|(name, title, b)| {
            let b = if *name == super::charts::CURVES { b.clone() } else { rounded_for_reading(b)? };
            Ok(super::html::Section { name, title, columns: column_names(&b), rows: rows_of(&b)? })
        })
        .collect()
}

/// A dashboard's sections: query name, title, result.
type Sections<'a> = [(&'a str, &'a str, Vec<RecordBatch>)];

/// [`sections`], and the sections left out of this dashboard with their one-line notes:
/// lines after the sections in the table, markdown and HTML; a [`LEFT_OUT`] key in the JSON
/// and CSV (only when something was left out). The snapshot's coverage leads: its line
/// before everything in the table, markdown and HTML, and a warning, when there is one, as a
/// first [`WARNINGS`](super::coverage::WARNINGS) section in the JSON, NDJSON, CSV and HTML.
/// Table, markdown and HTML round numbers for reading ([`for_reading`]); JSON and CSV keep
/// full precision.
pub(crate) fn sections_with_notes(
    sections: &[(&str, &str, Vec<RecordBatch>)],
    left_out: &[super::LeftOut],
    fmt: Format,
    provenance: Option<&super::html::Provenance>,
    fit: super::terminal::Fit,
    coverage: &super::coverage::Coverage,
) -> Result<String> {
    let notes: Vec<&str> = left_out.iter().map(|l| l.note.as_str()).collect();
    let lead = coverage.line();
    let sections: Vec<(&str, &str, Vec<RecordBatch>)> =
        sections.iter().map(|(name, title, b)| Ok((*name, *title, spans::all_for_format(b, fmt)?))).collect::<Result<_>>()?;
    if fmt == Format::Table {
        let first = lead.map(|l| super::terminal::wrap(&l, fit) + "\n").unwrap_or_default();
        return Ok(first + &dashboard_table(&sections, &notes, fit)?);
    }
    let with_warning: std::borrow::Cow<'_, Sections<'_>> = match coverage.batch()? {
        Some(b) if fmt != Format::Markdown => {
            let mut all = vec![(super::coverage::WARNINGS, "Warning: captures missing", vec![b])];
            all.extend(sections.iter().cloned());
            std::borrow::Cow::Owned(all)
        }
        _ => std::borrow::Cow::Borrowed(&sections[..]),
    };
    let sections = as_printed(&with_warning, left_out, fmt)?;
    let sections = sections.as_ref();
    match fmt {
        Format::Html => Ok(super::html::page("dashboard", &html_sections(sections)?, &notes, provenance, lead.as_deref().map(|l| (l, coverage.warns())))),
        Format::Json => dashboard_json(sections),
        Format::Ndjson => {
            let mut out = String::new();
            for (name, _, b) in sections {
                out.push_str(&ndjson(b, Some(name))?);
            }
            Ok(out)
        }
        Format::Csv => dashboard_csv(sections),
        Format::Markdown => {
            let mut out = lead.map(|l| format!("> **{}**\n\n", crate::text::printable(&l))).unwrap_or_default();
            for (_, title, b) in sections {
                out.push_str(&format!("## {title}\n\n"));
                out.push_str(&render(b, fmt)?);
                out.push('\n');
            }
            for note in &notes {
                out.push_str(&format!("> {}\n\n", crate::text::printable(note)));
            }
            Ok(out)
        }
        Format::Table => dashboard_table(sections, &notes, fit),
    }
}

/// The sections as `fmt` prints them: rounded for reading in the table and markdown; in
/// JSON, NDJSON and CSV with the [`LEFT_OUT`] section after them when something was left out.
fn as_printed<'a>(sections: &'a Sections<'a>, left_out: &[super::LeftOut], fmt: Format) -> Result<std::borrow::Cow<'a, Sections<'a>>> {
    use std::borrow::Cow;
    Ok(match fmt {
        Format::Table | Format::Markdown => {
            Cow::Owned(sections.iter().map(|(name, title, b)| Ok((*name, *title, rounded_for_reading(b)?))).collect::<Result<Vec<_>>>()?)
        }
        Format::Html => Cow::Borrowed(sections),
        Format::Json | Format::Ndjson | Format::Csv => {
            if left_out.is_empty() {
                Cow::Borrowed(sections)
            } else {
                let mut owned = sections.to_vec();
                owned.push((LEFT_OUT, "Left out", vec![left_out_batch(left_out)?]));
                Cow::Owned(owned)
            }
        }
    })
}

/// The dashboard as one JSON object: serde_json's layout (two spaces a level), with
/// sections in the dashboard's order and each row's keys in its query's column order.
fn dashboard_json(sections: &Sections<'_>) -> Result<String> {
    let mut out = String::from("{");
    for (i, (name, _, b)) in sections.iter().enumerate() {
        let rows = match pretty_rows(b, 1) {
            Some(text) => text,
            None => indent_after_first_line(&ordered_rows(b)?, 1),
        };
        out.push_str(if i == 0 { "\n  " } else { ",\n  " });
        out.push_str(&serde_json::to_string(name)?);
        out.push_str(": ");
        out.push_str(&rows);
    }
    out.push_str(if sections.is_empty() { "}\n" } else { "\n}\n" });
    Ok(out)
}

/// The dashboard as one CSV, long form: a line per cell, columns and rows in the query's
/// order (a single query's CSV, `--query NAME`, keeps its own columns).
fn dashboard_csv(sections: &Sections<'_>) -> Result<String> {
    let mut w = csv::Writer::from_writer(Vec::new());
    let csv_error = |e: csv::Error| Error::usage(format!("writing CSV: {e}"));
    w.write_record(["query", "row", "column", "value"]).map_err(csv_error)?;
    for (name, _, b) in sections {
        let (names, rows) = cells(b)?;
        for (i, r) in rows.iter().enumerate() {
            for (c, v) in names.iter().zip(r) {
                w.write_record([name, i.to_string().as_str(), c.as_str(), v.as_deref().unwrap_or("")]).map_err(csv_error)?;
            }
        }
    }
    let bytes = w.into_inner().map_err(|e| Error::usage(format!("writing CSV: {e}")))?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// The dashboard for a terminal: each section under its title as [`super::terminal`] lays
/// it out to `fit`, the first [`TERMINAL_ROWS`] rows of a longer one with the command that
/// prints them all, then the notes.
fn dashboard_table(sections: &Sections<'_>, notes: &[&str], fit: super::terminal::Fit) -> Result<String> {
    use super::terminal::wrap;
    let mut out = String::new();
    for (name, title, b) in sections {
        out.push_str(&wrap(title, fit));
        let rows: usize = b.iter().map(RecordBatch::num_rows).sum();
        if rows > TERMINAL_ROWS {
            let all = arrow::compute::concat_batches(&b[0].schema(), b)?;
            out.push_str(&super::terminal::table(&[all.slice(0, TERMINAL_ROWS)], fit)?);
            out.push_str(&wrap(&format!("... and {} more rows (all {rows}: hindsight report --query {name} --max-rows 0)", rows - TERMINAL_ROWS), fit));
        } else if rows == 0 {
            out.push_str(&render(b, Format::Table)?);
        } else {
            out.push_str(&super::terminal::table(b, fit)?);
        }
        out.push('\n');
    }
    for note in notes {
        out.push_str(&wrap(note, fit));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{BooleanArray, Float64Array, Int32Array, Int64Array, StringArray, StringViewArray};
    use std::sync::Arc;

    /// Rates and other fractions to 4 decimals, hours and percents to 1; integers, strings
    /// and NULLs untouched.
    #[test]
    fn numbers_are_rounded_for_reading_by_column() {
        let batch = RecordBatch::try_from_iter(vec![
            ("agent", Arc::new(StringArray::from(vec![Some("a"), Some("b")])) as ArrayRef),
            ("prs", Arc::new(Int64Array::from(vec![Some(3), None])) as ArrayRef),
            ("rejection_rate", Arc::new(Float64Array::from(vec![Some(1.0 / 3.0), Some(-0.00001)])) as ArrayRef),
            ("median_hours_to_merge", Arc::new(Float64Array::from(vec![Some(6.873611111111111), None])) as ArrayRef),
            ("median_time_to_acceptance", Arc::new(Float64Array::from(vec![Some(1.16), Some(0.25)])) as ArrayRef),
            ("pct_merged", Arc::new(Float64Array::from(vec![Some(48.91901795529498), Some(100.0)])) as ArrayRef),
        ])
        .unwrap();
        let r = rounded_for_reading(std::slice::from_ref(&batch)).unwrap();
        let json = json_rows(&r).unwrap();
        assert_eq!(
            json,
            serde_json::json!([
                {"agent": "a", "prs": 3, "rejection_rate": 0.3333, "median_hours_to_merge": 6.9, "median_time_to_acceptance": 1.2, "pct_merged": 48.9},
                {"agent": "b", "prs": null, "rejection_rate": 0.0, "median_hours_to_merge": null, "median_time_to_acceptance": 0.3, "pct_merged": 100.0}
            ])
        );
        // The table shows the rounded values; JSON of the original keeps every digit.
        let table = render(&r, Format::Table).unwrap();
        assert!(table.contains("| 0.3333 ") && table.contains("| 6.9 ") && !table.contains("-0.0"), "{table}");
        assert_eq!(json_rows(&[batch]).unwrap()[0]["rejection_rate"], serde_json::json!(1.0 / 3.0));
    }

    /// The direct JSON writer gives serde_json's pretty text of `json_rows`, byte for byte,
    /// at every nesting level, and declines what it would write otherwise.
    #[test]
    fn direct_json_equals_the_pretty_printed_rows() {
        let batch = RecordBatch::try_from_iter(vec![
            ("z_last", Arc::new(Int64Array::from(vec![Some(1), None, Some(-7)])) as ArrayRef),
            ("rate", Arc::new(Float64Array::from(vec![Some(1.0), Some(1e20), Some(0.1 + 0.2)])) as ArrayRef),
            ("name", Arc::new(StringArray::from(vec![Some("a\"b\\c"), Some("é\n\u{1}"), None])) as ArrayRef),
            ("view", Arc::new(StringViewArray::from(vec![Some("x"), None, Some("a much longer string than twelve bytes")])) as ArrayRef),
            ("flag", Arc::new(BooleanArray::from(vec![Some(true), Some(false), None])) as ArrayRef),
            ("n32", Arc::new(Int32Array::from(vec![Some(3), Some(-3), Some(0)])) as ArrayRef),
        ])
        .unwrap();
        let batches = vec![batch.slice(0, 2), batch.slice(2, 1)];
        // The direct writer and the serde one agree, keys in column order (z_last first).
        let serde = ordered_rows(&batches).unwrap();
        assert!(serde.starts_with("[\n  {\n    \"z_last\": 1,\n    \"rate\": 1.0,"), "{serde}");
        assert_eq!(pretty_rows(&batches, 0).unwrap(), serde);
        assert_eq!(pretty_rows(&batches, 1).unwrap(), indent_after_first_line(&serde, 1));
        // The same values as serde_json's own printer (which sorts keys).
        let parsed: serde_json::Value = serde_json::from_str(&serde).unwrap();
        assert_eq!(parsed, json_rows(&batches).unwrap());
        assert_eq!(pretty_rows(&[], 0).unwrap(), "[]");
        let inf = RecordBatch::try_from_iter(vec![("x", Arc::new(Float64Array::from(vec![f64::INFINITY])) as ArrayRef)]).unwrap();
        assert!(pretty_rows(&[inf], 0).is_none(), "non-finite floats go through serde");
    }
}
