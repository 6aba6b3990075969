//! Input records that could not be used. Nothing is dropped silently: every record read is
//! either used or lands here with where it came from, why, and its raw text.

use crate::table::{oi, os, s, Kind, Table};

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Quarantined {
    /// `snapshot`, `runs` or `traces`.
    pub input: &'static str,
    /// Path relative to the input directory.
    pub file: String,
    /// 1-based line, when the record is a line.
    pub line: Option<i64>,
    /// The field at fault, when one is.
    pub field: Option<String>,
    pub reason: String,
    pub raw: String,
}

impl Quarantined {
    pub(crate) fn new(input: &'static str, file: &str, line: Option<usize>, field: Option<&str>, reason: impl Into<String>, raw: &str) -> Self {
        Quarantined {
            input,
            file: file.to_string(),
            line: line.map(|l| l as i64),
            field: field.map(str::to_string),
            reason: reason.into(),
            raw: raw.to_string(),
        }
    }

    /// `file:line: field: reason`, the form printed to the terminal.
    pub fn describe(&self) -> String {
        let mut out = format!("{}/{}", self.input, self.file);
        if let Some(l) = self.line {
            out.push_str(&format!(":{l}"));
        }
        out.push_str(": ");
        if let Some(f) = &self.field {
            out.push_str(&format!("field `{f}`: "));
        }
        out.push_str(&self.reason);
        out
    }
}

pub fn table(records: &[Quarantined]) -> Table {
    let mut sorted = records.to_vec();
    sorted.sort();
    let mut t = Table::new(
        "quarantine",
        &[("input", Kind::Str), ("file", Kind::Str), ("line", Kind::Int), ("field", Kind::Str), ("reason", Kind::Str), ("raw", Kind::Str)],
    );
    for q in sorted {
        t.push(vec![s(q.input), s(q.file), oi(q.line), os(q.field), s(q.reason), s(q.raw)]);
    }
    t
}
