//! The gate's report as JSON (the machine-readable record) or as a table for a reader.

use std::fmt::Write;

use super::{Report, TerminalState, ViolationKind};
use crate::text::printable;
use crate::{Error, Result};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Json,
    Table,
}

impl std::str::FromStr for Format {
    type Err = Error;
    fn from_str(s: &str) -> Result<Format> {
        match s {
            "json" => Ok(Format::Json),
            "table" => Ok(Format::Table),
            other => Err(Error::Usage(format!("gate --format `{other}`: expected json or table"))),
        }
    }
}

impl Report {
    pub fn render(&self, format: Format) -> Result<String> {
        match format {
            Format::Json => Ok(serde_json::to_string_pretty(self)? + "\n"),
            Format::Table => Ok(self.table()),
        }
    }

    /// One row per result, then the totals and the quarantined lines. Input text is escaped
    /// (a task id or a message may hold terminal control sequences).
    pub(crate) fn table(&self) -> String {
        let c = &self.compliance;
        let mut out = format!(
            "gate: {} records read = {} evaluated + {} quarantined; {} commit(s) performed\n\n",
            c.records_read, c.evaluated, c.quarantined, c.commits_performed
        );
        let mut rows =
            vec![["line".to_string(), "task_id".into(), "terminal_state".into(), "result".into(), "commit".into(), "violations".into(), "reason".into()]];
        for e in &self.results {
            rows.push([
                e.line.to_string(),
                one_line(&e.task_id),
                e.terminal_state.name().into(),
                e.evaluation_result.name().into(),
                if e.commit_performed { "yes" } else { "no" }.into(),
                e.violations.len().to_string(),
                e.rejection_reason.as_deref().map_or_else(|| "-".to_string(), one_line),
            ]);
        }
        write_rows(&mut out, &rows);
        let states: Vec<String> = TerminalState::ALL.iter().map(|s| format!("{} {}", s.name(), c.by_terminal_state.get(s.name()).unwrap_or(&0))).collect();
        let _ = writeln!(out, "\nterminal states: {}", states.join(", "));
        let kinds: Vec<String> =
            ViolationKind::ALL.iter().filter_map(|k| c.by_violation_kind.get(k.name()).filter(|n| **n > 0).map(|n| format!("{} {n}", k.name()))).collect();
        let _ = writeln!(out, "violations: {}", if kinds.is_empty() { "none".to_string() } else { kinds.join(", ") });
        for q in &self.quarantined {
            let field = q.field.as_deref().map(|f| format!("field `{f}`: ")).unwrap_or_default();
            let _ = writeln!(out, "quarantined {}:{}: {field}{}", one_line(&q.file), q.line, one_line(&q.reason));
        }
        out
    }
}

/// Input text on one visible line: control characters escaped, line breaks and tabs as `\n`, `\t`.
fn one_line(s: &str) -> String {
    printable(s).replace('\n', "\\n").replace('\t', "\\t")
}

/// Columns padded to their widest cell (the last left ragged).
fn write_rows<const N: usize>(out: &mut String, rows: &[[String; N]]) {
    let mut widths = [0usize; N];
    for r in rows {
        for (w, cell) in widths.iter_mut().zip(r) {
            *w = (*w).max(cell.chars().count());
        }
    }
    for r in rows {
        let mut line = String::new();
        for (i, cell) in r.iter().enumerate() {
            if i + 1 == N {
                line.push_str(cell);
            } else {
                let _ = write!(line, "{cell:<w$}  ", w = widths[i]);
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
}
