//! Output formats for query results: table, json, csv, markdown.

use std::str::FromStr;

use arrow::array::{Array, ArrayRef};
use arrow::record_batch::RecordBatch;
use arrow::util::display::{ArrayFormatter, FormatOptions};

use crate::error::{Error, Result};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Table,
    Json,
    Csv,
    Markdown,
    Html,
}

impl FromStr for Format {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        Ok(match s {
            "table" => Format::Table,
            "json" => Format::Json,
            "csv" => Format::Csv,
            "markdown" | "md" => Format::Markdown,
            "html" => Format::Html,
            other => return Err(Error::Usage(format!("format `{other}`: expected table, json, csv, markdown or html"))),
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
    match fmt {
        Format::Table => Ok(arrow::util::pretty::pretty_format_batches(batches)?.to_string() + "\n"),
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
        Format::Json => Ok(serde_json::to_string_pretty(&json_rows(batches)?)? + "\n"),
        Format::Html => {
            let rows = rows_of(batches)?;
            Ok(super::html::page("query", &[("query", "Query result", rows)]))
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
            Ok(out)
        }
    }
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

fn rows_of(batches: &[RecordBatch]) -> Result<Vec<serde_json::Map<String, serde_json::Value>>> {
    Ok(json_rows(batches)?.as_array().map(|a| a.iter().filter_map(|r| r.as_object().cloned()).collect()).unwrap_or_default())
}

pub fn sections(sections: &[(&str, &str, Vec<RecordBatch>)], fmt: Format) -> Result<String> {
    match fmt {
        Format::Html => {
            let mut s = Vec::new();
            for (name, title, b) in sections {
                s.push((*name, *title, rows_of(b)?));
            }
            Ok(super::html::page("dashboard", &s))
        }
        Format::Json => {
            let mut obj = serde_json::Map::new();
            for (name, _, b) in sections {
                obj.insert(name.to_string(), json_rows(b)?);
            }
            Ok(serde_json::to_string_pretty(&serde_json::Value::Object(obj))? + "\n")
        }
        Format::Csv => {
            let mut out = String::new();
            for (name, _, b) in sections {
                out.push_str(&format!("# {name}\n"));
                out.push_str(&render(b, fmt)?);
                out.push('\n');
            }
            Ok(out)
        }
        Format::Markdown => {
            let mut out = String::new();
            for (_, title, b) in sections {
                out.push_str(&format!("## {title}\n\n"));
                out.push_str(&render(b, fmt)?);
                out.push('\n');
            }
            Ok(out)
        }
        Format::Table => {
            let mut out = String::new();
            for (_, title, b) in sections {
                out.push_str(&format!("{title}\n"));
                out.push_str(&render(b, fmt)?);
                out.push('\n');
            }
            Ok(out)
        }
    }
}
