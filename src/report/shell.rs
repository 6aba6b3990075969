//! `hindsight sql`: an SQL shell over a dataset. On a terminal it edits lines with
//! rustyline (history, multi-line statements ending in `;`); from a file or a pipe it reads
//! the same text, statements and backslash commands alike, and stops at the first error.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow::array::{ArrayRef, StringArray, UInt64Array};
use arrow::datatypes::{DataType, Field, Schema};
use arrow::record_batch::RecordBatch;

use super::{format, Format, Session};
use crate::error::{Error, Result};

/// Where the shell's input comes from.
#[derive(Clone, Debug)]
pub enum Source {
    /// A file of statements.
    File(PathBuf),
    /// Standard input that is not a terminal (a pipe or a redirected file).
    Stdin,
    /// A terminal: line editing and history.
    Terminal { history: Option<PathBuf> },
}

/// One thing to do: an SQL statement (without its `;`) or a backslash/dot command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Item {
    Statement(String),
    Command(String),
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Lex {
    #[default]
    Code,
    Single,
    Double,
    Block,
}

/// Splits lines into statements at `;` outside quotes and comments; a line starting with
/// `\` or `.` while no statement is pending is a command.
#[derive(Debug, Default)]
pub(crate) struct Splitter {
    buf: String,
    lex: Lex,
}

impl Splitter {
    pub(crate) fn pending(&self) -> bool {
        !self.buf.trim().is_empty() || self.lex != Lex::Code
    }

    pub(crate) fn push_line(&mut self, line: &str) -> Vec<Item> {
        let t = line.trim();
        if !self.pending() && (t.starts_with('\\') || t.starts_with('.') || matches!(t.to_ascii_lowercase().as_str(), "exit" | "quit")) {
            return vec![Item::Command(t.trim_end_matches(';').trim().to_string())];
        }
        let mut out = Vec::new();
        let mut chars = line.chars().peekable();
        while let Some(c) = chars.next() {
            match (self.lex, c) {
                (Lex::Code, ';') => {
                    let s = self.buf.trim().to_string();
                    self.buf.clear();
                    if !s.is_empty() {
                        out.push(Item::Statement(s));
                    }
                    continue;
                }
                (Lex::Code, '-') if chars.peek() == Some(&'-') => {
                    // A line comment: the rest of the line is not SQL.
                    break;
                }
                (Lex::Code, '\'') => self.lex = Lex::Single,
                (Lex::Code, '"') => self.lex = Lex::Double,
                (Lex::Code, '/') if chars.peek() == Some(&'*') => {
                    self.buf.push(c);
                    self.buf.push('*');
                    chars.next();
                    self.lex = Lex::Block;
                    continue;
                }
                (Lex::Single, '\'') | (Lex::Double, '"') => self.lex = Lex::Code,
                (Lex::Block, '*') if chars.peek() == Some(&'/') => {
                    self.buf.push(c);
                    self.buf.push('/');
                    chars.next();
                    self.lex = Lex::Code;
                    continue;
                }
                _ => {}
            }
            self.buf.push(c);
        }
        if !self.buf.is_empty() {
            self.buf.push('\n');
        }
        out
    }

    /// What is left at the end of the input: a last statement without its `;`.
    pub(crate) fn finish(&mut self) -> Option<Item> {
        let s = std::mem::take(&mut self.buf).trim().to_string();
        self.lex = Lex::Code;
        (!s.is_empty()).then_some(Item::Statement(s))
    }

    fn clear(&mut self) {
        self.buf.clear();
        self.lex = Lex::Code;
    }
}

/// The statements in `sql`, split as the shell splits them.
pub(crate) fn statements(sql: &str) -> Vec<String> {
    let mut s = Splitter::default();
    let mut out: Vec<Item> = Vec::new();
    for line in sql.lines() {
        // Commands are shell syntax, not SQL: here every line is SQL.
        if !s.pending() && line.trim().starts_with(['\\', '.']) {
            s.buf.push_str(line);
            s.buf.push('\n');
            continue;
        }
        out.extend(s.push_line(line));
    }
    out.extend(s.finish());
    out.into_iter()
        .filter_map(|i| match i {
            Item::Statement(s) => Some(s),
            Item::Command(_) => None,
        })
        .collect()
}

const HELP: &str = "\
Statements end with `;` and may span lines. Commands:
  \\d  or .tables         the dataset's tables, with rows and columns
  \\d TABLE or .schema TABLE
                         TABLE's columns (also: DESCRIBE TABLE;)
  \\?  or .help           this help
  \\q  or .quit           leave (also Ctrl-D)
SHOW TABLES; and information_schema work as in DataFusion. JSON text columns (payload,
details) take json_get_str(col, 'key'), col->>'key', col->'a'->>'b', json_get_int,
json_length ... The grammar is PostgreSQL's.
";

/// Whether the shell goes on after an item.
enum Flow {
    Continue,
    Quit,
}

/// Run the shell over `session` from `source`, printing results in `fmt`.
pub fn run(session: &Session, source: Source, fmt: Format) -> Result<()> {
    match source {
        Source::File(p) => {
            let text = std::fs::read_to_string(&p).map_err(|e| Error::io(&p, e))?;
            batch(session, &text, fmt)
        }
        Source::Stdin => {
            let mut text = String::new();
            std::io::Read::read_to_string(&mut std::io::stdin(), &mut text).map_err(|e| Error::io("standard input", e))?;
            batch(session, &text, fmt)
        }
        Source::Terminal { history } => interactive(session, history.as_deref(), fmt),
    }
}

/// Every statement and command of `text` in turn; the first error ends the run.
fn batch(session: &Session, text: &str, fmt: Format) -> Result<()> {
    let mut s = Splitter::default();
    for line in text.lines() {
        for item in s.push_line(line) {
            if let Flow::Quit = execute(session, &item, fmt)? {
                return Ok(());
            }
        }
    }
    if let Some(item) = s.finish() {
        execute(session, &item, fmt)?;
    }
    Ok(())
}

fn interactive(session: &Session, history: Option<&Path>, fmt: Format) -> Result<()> {
    use rustyline::error::ReadlineError;
    let editor_error = |e: ReadlineError| Error::Usage(format!("line editor: {e}"));
    let mut rl = rustyline::DefaultEditor::new().map_err(editor_error)?;
    if let Some(h) = history {
        // No history yet is the usual first run.
        let _ = rl.load_history(h);
    }
    eprintln!("hindsight sql: {} tables; \\d lists them, \\? for help, \\q to leave", session.tables().len());
    let mut s = Splitter::default();
    loop {
        let prompt = if s.pending() { "   ...> " } else { "hindsight> " };
        match rl.readline(prompt) {
            Ok(line) => {
                let items = s.push_line(&line);
                if !line.trim().is_empty() {
                    let _ = rl.add_history_entry(line.as_str());
                }
                let mut quit = false;
                for item in items {
                    match execute(session, &item, fmt) {
                        Ok(Flow::Quit) => quit = true,
                        Ok(Flow::Continue) => {}
                        Err(e) => eprintln!("error: {}", crate::text::error_message(&e)),
                    }
                }
                if quit {
                    break;
                }
            }
            Err(ReadlineError::Interrupted) => s.clear(),
            Err(ReadlineError::Eof) => break,
            Err(e) => return Err(editor_error(e)),
        }
    }
    if let Some(h) = history {
        if let Some(dir) = h.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        rl.save_history(h).map_err(|e| Error::Usage(format!("saving the shell's history to {}: {e}", h.display())))?;
    }
    Ok(())
}

fn execute(session: &Session, item: &Item, fmt: Format) -> Result<Flow> {
    match item {
        Item::Statement(sql) => {
            let batches = session.statement(sql)?;
            show(&batches, fmt)?;
        }
        Item::Command(c) => {
            let mut words = c.split_whitespace();
            let cmd = words.next().unwrap_or_default();
            let arg = words.next();
            match (cmd, arg) {
                ("\\q" | ".quit" | ".exit" | "exit" | "quit", _) => return Ok(Flow::Quit),
                ("\\?" | ".help" | "\\h", _) => crate::output::print(HELP)?,
                ("\\d" | "\\dt" | ".tables", None) => show(&[tables_batch(session)?], fmt)?,
                ("\\d" | ".schema", Some(t)) => {
                    let batches = session.describe(t)?;
                    show(&batches, fmt)?;
                }
                _ => return Err(Error::Usage(format!("unknown command `{c}`: \\? lists the commands"))),
            }
        }
    }
    Ok(Flow::Continue)
}

fn show(batches: &[RecordBatch], fmt: Format) -> Result<()> {
    let rows: usize = batches.iter().map(RecordBatch::num_rows).sum();
    if fmt == Format::Table && rows == 0 {
        return crate::output::print("(0 rows)\n");
    }
    crate::output::print(&format::render(batches, fmt)?)
}

/// The dataset's tables with their rows (from the manifest) and column counts.
fn tables_batch(session: &Session) -> Result<RecordBatch> {
    let tables = session.tables();
    let mut columns = Vec::with_capacity(tables.len());
    for (name, _) in tables {
        columns.push(session.columns(name)?.len() as u64);
    }
    let schema = Schema::new(vec![
        Field::new("table", DataType::Utf8, false),
        Field::new("rows", DataType::UInt64, false),
        Field::new("columns", DataType::UInt64, false),
    ]);
    let arrays: Vec<ArrayRef> = vec![
        Arc::new(StringArray::from_iter_values(tables.iter().map(|(n, _)| n.as_str()))),
        Arc::new(UInt64Array::from_iter_values(tables.iter().map(|(_, r)| *r as u64))),
        Arc::new(UInt64Array::from(columns)),
    ];
    Ok(RecordBatch::try_new(Arc::new(schema), arrays)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(text: &str) -> Vec<Item> {
        let mut s = Splitter::default();
        let mut out: Vec<Item> = text.lines().flat_map(|l| s.push_line(l)).collect();
        out.extend(s.finish());
        out
    }

    #[test]
    fn statements_end_at_semicolons_outside_quotes_and_comments() {
        let st = |s: &str| Item::Statement(s.to_string());
        assert_eq!(split("SELECT 1;\nSELECT\n  2;"), vec![st("SELECT 1"), st("SELECT\n  2")]);
        assert_eq!(split("SELECT ';' AS a; SELECT \"x;y\" FROM t;"), vec![st("SELECT ';' AS a"), st("SELECT \"x;y\" FROM t")]);
        assert_eq!(split("SELECT 1 -- a comment; not a split\n;"), vec![st("SELECT 1")]);
        assert_eq!(split("SELECT /* ; */ 1;"), vec![st("SELECT /* ; */ 1")]);
        assert_eq!(split("\\d\n\\d outcomes\nSELECT 1"), vec![Item::Command("\\d".into()), Item::Command("\\d outcomes".into()), st("SELECT 1")]);
        assert_eq!(split("SELECT\n.5;"), vec![st("SELECT\n.5")]);
        assert_eq!(statements("SELECT ';';\n-- only a comment\n"), vec!["SELECT ';'".to_string()]);
    }
}
