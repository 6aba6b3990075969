//! `hindsight sql`: an SQL shell over a dataset. On a terminal it edits lines with
//! rustyline (history, multi-line statements ending in `;`, pasted whole with or without
//! bracketed paste); from a file or a pipe it reads the same text, statements and backslash
//! commands alike, and stops at the first error.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow::array::{ArrayRef, StringArray, UInt64Array};
use arrow::datatypes::{DataType, Field, Schema};
use arrow::record_batch::RecordBatch;

use std::io::Write;

use super::print::{Display, MaxRows, Printer};
use super::{Format, Session};
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

/// What the shell shows before each line of a statement after its first.
const CONTINUATION: &str = "   ...> ";

/// Whether `text` (lines of SQL and commands) ends inside a statement: no `;` after it yet,
/// or inside a quote or a block comment.
fn unfinished(text: &str) -> bool {
    let mut s = Splitter::default();
    for line in text.lines() {
        s.push_line(line);
    }
    s.pending()
}

/// The lines of a statement edited on the terminal without the [`CONTINUATION`] prompts
/// [`Continue`] put in front of them.
fn without_prompts(edited: &str) -> String {
    edited.replace(&format!("\n{CONTINUATION}"), "\n")
}

/// Enter in an unfinished statement: a new line of the same statement, its continuation
/// prompt written in front of it, instead of returning the line.
///
/// Why: without bracketed paste, a pasted statement arrives as lines each ended by Enter,
/// all read at once by rustyline, which drops what it has read and not used when it returns
/// a line; so the lines after the first were lost. Staying in one edit keeps them. The
/// prompt is part of the edited text (rustyline draws no prompt on a second line) and is
/// taken out again by [`without_prompts`].
struct Continue {
    /// The lines of the statement returned before (Enter with the cursor inside a line).
    before: Arc<std::sync::Mutex<String>>,
}

impl rustyline::ConditionalEventHandler for Continue {
    fn handle(&self, _: &rustyline::Event, _: rustyline::RepeatCount, _: bool, ctx: &rustyline::EventContext) -> Option<rustyline::Cmd> {
        if ctx.pos() < ctx.line().len() {
            return None;
        }
        let before = self.before.lock().map(|b| b.clone()).unwrap_or_default();
        unfinished(&format!("{before}{}", without_prompts(ctx.line()))).then(|| rustyline::Cmd::Insert(1, format!("\n{CONTINUATION}")))
    }
}

/// What has been typed on the terminal of a statement not yet finished.
#[derive(Default)]
struct Typing {
    splitter: Splitter,
    /// Its lines: recalled from history as one entry.
    lines: Vec<String>,
    /// The same lines, for [`Continue`] to tell whether Enter ends the statement.
    before: Arc<std::sync::Mutex<String>>,
}

impl Typing {
    /// What to do after one edit (a line typed, a statement continued over lines by
    /// [`Continue`], or a paste), and the history entry of a statement it finished.
    fn take(&mut self, edited: &str) -> (Vec<Item>, Option<String>) {
        let mut items = Vec::new();
        for line in without_prompts(edited).lines() {
            items.extend(self.splitter.push_line(line));
            if !line.trim().is_empty() {
                self.lines.push(line.to_string());
            }
        }
        let entry = (!self.splitter.pending() && !self.lines.is_empty()).then(|| std::mem::take(&mut self.lines).join("\n"));
        if let Ok(mut b) = self.before.lock() {
            *b = self.lines.iter().map(|l| format!("{l}\n")).collect();
        }
        (items, entry)
    }

    fn clear(&mut self) {
        self.splitter.clear();
        self.lines.clear();
        if let Ok(mut b) = self.before.lock() {
            b.clear();
        }
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
Statements end with `;` and may span lines. Commands (psql's and the DuckDB CLI's spellings):
  \\d  or .tables              the dataset's tables and views, with rows and columns
  \\d TABLE or .schema TABLE   TABLE's columns, types and meanings (also: DESCRIBE TABLE;)
  .mode FORMAT or \\pset format FORMAT
                              table, csv, json, ndjson or markdown
  .maxrows N or \\pset maxrows N
                              rows a table or markdown result shows (0: all; default 40)
  .timer on|off or \\timing [on|off]
                              each statement's time, in its footer
  .output [FILE] or \\o [FILE] results into FILE, with --allow-write (none: back to the screen)
  .read FILE or \\i FILE       run the statements and commands of FILE
  \\?  or .help                this help
  \\q  or .quit                leave (also Ctrl-D)
Tab completes keywords, tables, columns and commands. SHOW TABLES; and information_schema
work as in DataFusion. JSON text columns (payload, details) take json_get_str(col, 'key'),
col->>'key', col->'a'->>'b', json_get_int, json_length ... The grammar is PostgreSQL's.
";

/// Whether the shell goes on after an item.
enum Flow {
    Continue,
    Quit,
}

/// Where results go: the screen, or a file after `.output FILE`.
enum Out {
    Stdout,
    File(PathBuf, std::io::BufWriter<std::fs::File>),
}

/// A shell session: the dataset and the settings its commands change.
struct Shell<'s> {
    session: &'s Session,
    display: Display,
    /// Whether stdout is a terminal (the footer is shown there; `.output` turns it off).
    stdout_terminal: bool,
    out: Out,
    /// Piped JSON with several statements prints one document: an array of their results.
    json_document: Option<JsonDocument>,
    /// How many `.read` files are open inside each other.
    reading: usize,
}

/// The deepest `.read` inside `.read`: a file that reads itself (or A -> B -> A) stops here
/// with an error, not a stack overflow.
const READ_DEPTH: usize = 16;

#[derive(Clone, Copy)]
struct JsonDocument {
    printed: usize,
}

/// Run the shell over `session` from `source`, printing results as `display` says.
pub fn run(session: &Session, source: Source, display: Display) -> Result<()> {
    let mut shell = Shell { session, display, stdout_terminal: display.terminal, out: Out::Stdout, json_document: None, reading: 0 };
    match source {
        Source::File(p) => {
            let text = crate::inputs::read_text_file(&p, "SQL file")?;
            shell.batch(&text, true)
        }
        Source::Stdin => {
            let text = crate::inputs::read_text_bounded(std::io::stdin(), Path::new("standard input"), "SQL input")?;
            shell.batch(&text, true)
        }
        Source::Terminal { history } => shell.interactive(history.as_deref()),
    }
}

/// The items of `text`, split as the shell splits them.
fn items(text: &str) -> Vec<Item> {
    let mut s = Splitter::default();
    let mut out: Vec<Item> = text.lines().flat_map(|l| s.push_line(l)).collect();
    out.extend(s.finish());
    out
}

impl Shell<'_> {
    /// Every statement and command of `text` in turn; the first error ends the run. The
    /// whole input (`top`) of a JSON run with several statements is one JSON document.
    fn batch(&mut self, text: &str, top: bool) -> Result<()> {
        let items = items(text);
        let statements = items.iter().filter(|i| matches!(i, Item::Statement(_))).count();
        if top && self.display.format == Format::Json && statements > 1 {
            self.json_document = Some(JsonDocument { printed: 0 });
        }
        for item in &items {
            match self.execute(item) {
                Ok(Flow::Quit) => break,
                Ok(Flow::Continue) => {}
                Err(e) => {
                    // What was printed stays one valid JSON document; the error is the run's.
                    if top {
                        let _ = self.end_json_document();
                    }
                    return Err(e);
                }
            }
        }
        if top {
            self.end_json_document()?;
        }
        Ok(())
    }

    fn interactive(&mut self, history: Option<&Path>) -> Result<()> {
        use rustyline::error::ReadlineError;
        let editor_error = |e: ReadlineError| Error::usage(format!("line editor: {e}"));
        // Tab completes the common prefix and lists the candidates, as bash and psql do. A
        // paste is one edit where the terminal marks it (bracketed paste).
        let config = rustyline::Config::builder().completion_type(rustyline::CompletionType::List).bracketed_paste(true).build();
        let mut rl: rustyline::Editor<Completion, rustyline::history::DefaultHistory> = rustyline::Editor::with_config(config).map_err(editor_error)?;
        rl.set_helper(Some(Completion::of(self.session)?));
        let mut typing = Typing::default();
        // Enter, and Ctrl-J (a line feed: what some terminals paste for a new line).
        for key in [rustyline::KeyEvent::new('\r', rustyline::Modifiers::NONE), rustyline::KeyEvent::ctrl('J')] {
            rl.bind_sequence(key, rustyline::EventHandler::Conditional(Box::new(Continue { before: typing.before.clone() })));
        }
        if let Some(h) = history {
            // No history yet is the usual first run.
            let _ = rl.load_history(h);
        }
        eprintln!("hindsight sql: {} tables; \\d lists them, \\? for help, \\q to leave", self.session.tables().len());
        loop {
            let prompt = if typing.splitter.pending() { CONTINUATION } else { "hindsight> " };
            match rl.readline(prompt) {
                Ok(edited) => {
                    let (items, entry) = typing.take(&edited);
                    if let Some(entry) = entry {
                        let _ = rl.add_history_entry(entry.as_str());
                    }
                    let mut quit = false;
                    for item in items {
                        match self.execute(&item) {
                            Ok(Flow::Quit) => quit = true,
                            Ok(Flow::Continue) => {}
                            Err(e) => eprintln!("error: {}", crate::text::error_message(&e)),
                        }
                    }
                    if quit {
                        break;
                    }
                }
                // Ctrl-C drops the statement being typed.
                Err(ReadlineError::Interrupted) => typing.clear(),
                Err(ReadlineError::Eof) => break,
                Err(e) => return Err(editor_error(e)),
            }
        }
        self.flush()?;
        if let Some(h) = history {
            if let Some(dir) = h.parent() {
                let _ = std::fs::create_dir_all(dir);
            }
            rl.save_history(h).map_err(|e| Error::usage(format!("saving the shell's history to {}: {e}", h.display())))?;
        }
        Ok(())
    }

    fn execute(&mut self, item: &Item) -> Result<Flow> {
        match item {
            Item::Statement(sql) => self.statement(sql)?,
            Item::Command(c) => return self.command(c),
        }
        Ok(Flow::Continue)
    }

    fn command(&mut self, c: &str) -> Result<Flow> {
        let words: Vec<&str> = c.split_whitespace().collect();
        let (cmd, args) = words.split_first().map_or(("", &[][..]), |(c, a)| (*c, a));
        match (cmd, args) {
            ("\\q" | ".quit" | ".exit" | "exit" | "quit", _) => return Ok(Flow::Quit),
            ("\\?" | ".help" | "\\h", _) => self.write_text(HELP)?,
            ("\\d" | "\\dt" | ".tables", []) => {
                let b = tables_batch(self.session)?;
                self.print(vec![b])?;
            }
            // Exactly what `DESCRIBE t` prints: the same statement.
            ("\\d" | ".schema", [t]) => self.statement(&format!("DESCRIBE {t}"))?,
            (".mode", [f]) | ("\\pset", ["format", f]) => self.display.format = mode(f)?,
            (".mode", []) | ("\\pset", ["format"]) => self.write_text(&format!("{}\n", mode_name(self.display.format)))?,
            (".maxrows", [n]) | ("\\pset", ["maxrows", n]) => self.display.max_rows = Some(MaxRows::parse(n)?),
            (".timer", [v]) | ("\\timing", [v]) => self.display.timer = on_off(cmd, v)?,
            ("\\timing", []) => {
                self.display.timer = !self.display.timer;
                eprintln!("Timing is {}.", if self.display.timer { "on" } else { "off" });
            }
            (".output" | "\\o", []) => {
                self.flush()?;
                self.out = Out::Stdout;
                self.display.terminal = self.stdout_terminal;
            }
            (".output" | "\\o", [file]) => {
                self.flush()?;
                let path = PathBuf::from(file);
                self.may_write(&path)?;
                let f = std::fs::File::create(&path).map_err(|e| Error::io(&path, e))?;
                self.out = Out::File(path, std::io::BufWriter::new(f));
                self.display.terminal = false;
            }
            (".read" | "\\i", [file]) => {
                let path = Path::new(file);
                if self.reading >= READ_DEPTH {
                    return Err(Error::usage(format!("`.read {file}`: files read inside each other more than {READ_DEPTH} deep (does a file read itself?)")));
                }
                let text = crate::inputs::read_text_file(path, "SQL file")?;
                self.reading += 1;
                let done = self.batch(&text, false);
                self.reading -= 1;
                done?;
            }
            _ if COMMANDS.contains(&cmd) || matches!(cmd, "\\dt" | ".exit") => {
                return Err(Error::usage(format!("`{c}`: not the arguments {cmd} takes; \\? lists the commands")))
            }
            _ => {
                let hint = crate::text::closest(cmd, COMMANDS.iter().copied().filter(|_| cmd.len() > 2)).map(|m| format!(" (did you mean `{m}`?)")).unwrap_or_default();
                return Err(Error::usage(format!("unknown command `{c}`{hint}: \\? lists the commands")));
            }
        }
        Ok(Flow::Continue)
    }

    /// Whether `.output` may write `path`: only with `--allow-write` (a shared `.sql` file
    /// must not write files unasked), never a device, FIFO, socket or symlink, and never
    /// inside the dataset.
    fn may_write(&self, path: &Path) -> Result<()> {
        let refuse = |why: String| Err(Error::usage(format!("`.output {}`: {why}", path.display())));
        if !self.session.allows_writes() {
            return refuse("writing a file needs --allow-write".into());
        }
        match crate::output::unwritable(path, self.session.dir.as_deref()) {
            Some(why) => refuse(why),
            None => Ok(()),
        }
    }

    /// One statement, streamed through a printer.
    fn statement(&mut self, sql: &str) -> Result<()> {
        let session = self.session;
        self.result(|p| session.print_to(sql, p))
    }

    /// A result already computed (the shell's own tables), printed as a statement's.
    fn print(&mut self, batches: Vec<RecordBatch>) -> Result<()> {
        self.result(|mut p| {
            for b in batches {
                if !p.batch(b)? {
                    break;
                }
            }
            p.finish()
        })
    }

    /// A result printed by `produce` through a printer on the shell's output, as the next
    /// element of a JSON document of several results when one is open.
    fn result(&mut self, produce: impl FnOnce(Printer<'_>) -> Result<super::print::Printed>) -> Result<()> {
        let nested = self.json_document_next()?;
        let display = self.display;
        let mut stdout = std::io::stdout().lock();
        let (out, file): (&mut dyn Write, Option<&Path>) = match &mut self.out {
            Out::Stdout => (&mut stdout, None),
            Out::File(p, f) => (f, Some(p.as_path())),
        };
        let p = Printer::new(out, display);
        let p = match file {
            Some(path) => p.into_file(path),
            None => p,
        };
        let printed = produce(if nested { p.nested() } else { p });
        if printed.is_err() && nested {
            // The failed statement's element of the document: `null`, so that what was
            // printed stays valid JSON.
            let _ = self.write_text("null");
        }
        printed.map(|_| ())
    }

    /// Opens the next element of a JSON document of several results; whether one is open.
    fn json_document_next(&mut self) -> Result<bool> {
        let Some(doc) = self.json_document.as_mut() else { return Ok(false) };
        if self.display.format != Format::Json {
            return Ok(false);
        }
        let sep = if doc.printed == 0 { "[\n  " } else { ",\n  " };
        doc.printed += 1;
        self.write_text(sep)?;
        Ok(true)
    }

    fn end_json_document(&mut self) -> Result<()> {
        if let Some(doc) = self.json_document.take() {
            if doc.printed > 0 {
                self.write_text("\n]\n")?;
            }
        }
        self.flush()
    }

    fn write_text(&mut self, text: &str) -> Result<()> {
        match &mut self.out {
            Out::Stdout => Ok(crate::output::print(text)?),
            Out::File(p, f) => f.write_all(text.as_bytes()).map_err(|e| Error::io(p.as_path(), e)),
        }
    }

    fn flush(&mut self) -> Result<()> {
        match &mut self.out {
            Out::Stdout => Ok(()),
            Out::File(p, f) => f.flush().map_err(|e| Error::io(p.as_path(), e)),
        }
    }
}

/// `.mode` names: ours, and the DuckDB CLI's for the same formats.
fn mode(name: &str) -> Result<Format> {
    match name {
        "html" => Err(Error::usage("mode html: the shell prints table, csv, json, ndjson or markdown (html is a report's format)")),
        other => other.parse().map_err(|_| Error::usage(format!("mode `{other}`: expected table (box, duckbox), csv, json, ndjson (jsonlines) or markdown"))),
    }
}

fn mode_name(f: Format) -> &'static str {
    match f {
        Format::Table => "table",
        Format::Json => "json",
        Format::Ndjson => "ndjson",
        Format::Csv => "csv",
        Format::Markdown => "markdown",
        Format::Html => "html",
    }
}

fn on_off(cmd: &str, v: &str) -> Result<bool> {
    match v {
        "on" => Ok(true),
        "off" => Ok(false),
        other => Err(Error::usage(format!("{cmd} `{other}`: expected on or off"))),
    }
}

/// Tab completion: SQL keywords, the dataset's tables and columns, the shell's commands.
struct Completion {
    words: Vec<String>,
}

/// Keywords a query over the dataset uses most; completed in the case they are typed in.
const KEYWORDS: &[&str] = &[
    "SELECT", "FROM", "WHERE", "GROUP", "BY", "ORDER", "HAVING", "LIMIT", "OFFSET", "JOIN", "LEFT", "RIGHT", "INNER", "OUTER", "FULL", "ON",
    "USING", "AS", "AND", "OR", "NOT", "NULL", "IS", "IN", "LIKE", "ILIKE", "BETWEEN", "CASE", "WHEN", "THEN", "ELSE", "END", "DISTINCT",
    "COUNT", "SUM", "AVG", "MIN", "MAX", "MEDIAN", "APPROX_PERCENTILE_CONT", "FILTER", "OVER", "PARTITION", "WITH", "UNION", "ALL",
    "EXCEPT", "INTERSECT", "ASC", "DESC", "NULLS", "FIRST", "LAST", "CAST", "COALESCE", "DATE_TRUNC", "EXTRACT", "DESCRIBE", "SHOW",
    "TABLES", "EXPLAIN", "TRUE", "FALSE", "json_get_str", "json_get_int", "json_length",
];

const COMMANDS: &[&str] = &[
    ".tables", ".schema", ".mode", ".maxrows", ".timer", ".output", ".read", ".help", ".quit", "\\d", "\\dt", "\\pset", "\\timing", "\\o", "\\i",
    "\\?", "\\q",
];

impl Completion {
    fn of(session: &Session) -> Result<Completion> {
        let mut words: Vec<String> = KEYWORDS.iter().chain(COMMANDS).map(|w| w.to_string()).collect();
        let views = session.views().into_iter().map(|(v, _)| v.to_string());
        for table in session.tables().iter().map(|(t, _)| t.clone()).chain(views) {
            words.extend(session.columns(&table)?.into_iter().map(|(c, _)| c));
            words.push(table);
        }
        words.sort();
        words.dedup();
        Ok(Completion { words })
    }

    /// The words completing `prefix`: keywords in the case the prefix is typed in.
    fn candidates(&self, prefix: &str) -> Vec<String> {
        if prefix.is_empty() {
            return Vec::new();
        }
        let lower = prefix.to_lowercase();
        let typed_lower = prefix.chars().all(|c| !c.is_uppercase());
        let mut out: Vec<String> = self
            .words
            .iter()
            .filter(|w| w.to_lowercase().starts_with(&lower))
            .map(|w| if typed_lower && KEYWORDS.contains(&w.as_str()) { w.to_lowercase() } else { w.clone() })
            .collect();
        out.dedup();
        out
    }
}

impl rustyline::completion::Completer for Completion {
    type Candidate = String;
    fn complete(&self, line: &str, pos: usize, _: &rustyline::Context<'_>) -> rustyline::Result<(usize, Vec<String>)> {
        let before = &line[..pos];
        let start = before.rfind(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '.' | '\\'))).map_or(0, |i| i + 1);
        // `t.col`: complete the column after the qualifier.
        let word = &before[start..];
        let (start, word) = match word.rfind('.') {
            Some(i) if i > 0 => (start + i + 1, &word[i + 1..]),
            _ => (start, word),
        };
        Ok((start, self.candidates(word)))
    }
}
impl rustyline::hint::Hinter for Completion {
    type Hint = String;
}
impl rustyline::highlight::Highlighter for Completion {}
impl rustyline::validate::Validator for Completion {}
impl rustyline::Helper for Completion {}

/// The dataset's tables, then the views the session defines ([`Session::views`]), each
/// with its kind (`table` or `view`), rows (a table's, from the manifest; a view's are not
/// stored, so NULL) and column count.
fn tables_batch(session: &Session) -> Result<RecordBatch> {
    let tables = session.tables().iter().map(|(n, rows)| (n.as_str(), "table", Some(*rows as u64)));
    let views = session.views().into_iter().map(|(n, _)| (n, "view", None));
    let all: Vec<(&str, &str, Option<u64>)> = tables.chain(views).collect();
    let mut columns = Vec::with_capacity(all.len());
    for (name, _, _) in &all {
        columns.push(session.columns(name)?.len() as u64);
    }
    let schema = Schema::new(vec![
        Field::new("name", DataType::Utf8, false),
        Field::new("kind", DataType::Utf8, false),
        Field::new("rows", DataType::UInt64, true),
        Field::new("columns", DataType::UInt64, false),
    ]);
    let arrays: Vec<ArrayRef> = vec![
        Arc::new(StringArray::from_iter_values(all.iter().map(|(n, _, _)| *n))),
        Arc::new(StringArray::from_iter_values(all.iter().map(|(_, k, _)| *k))),
        Arc::new(all.iter().map(|(_, _, r)| *r).collect::<UInt64Array>()),
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
    fn completion_offers_tables_columns_keywords_and_commands_by_prefix() {
        let c = Completion { words: ["SELECT", "SET", "outcomes", "outcome_status", ".mode", ".maxrows", "safe_outputs"].iter().map(|w| w.to_string()).collect() };
        assert_eq!(c.candidates("sel"), vec!["select"]);
        assert_eq!(c.candidates("SEL"), vec!["SELECT"]);
        assert_eq!(c.candidates("outc"), vec!["outcomes", "outcome_status"]);
        assert_eq!(c.candidates(".m"), vec![".mode", ".maxrows"]);
        assert!(c.candidates("").is_empty());
    }

    #[test]
    fn modes_take_the_duckdb_names_too() {
        assert_eq!(mode("box").unwrap(), Format::Table);
        assert_eq!(mode("jsonlines").unwrap(), Format::Ndjson);
        assert!(mode("html").is_err() && mode("xml").is_err());
    }

    #[test]
    fn enter_goes_on_with_a_statement_until_its_semicolon() {
        for text in ["SELECT 1", "SELECT 1,\n  2", "SELECT ';", "SELECT 1 /* ; ", "SELECT 1 -- ;", "SELECT 1; SELECT"] {
            assert!(unfinished(text), "{text}");
        }
        for text in ["SELECT 1,\n  2;", "SELECT ';';", "\\d", ".mode csv", "", "  "] {
            assert!(!unfinished(text), "{text}");
        }
    }

    #[test]
    fn an_edit_over_lines_is_its_statements_without_prompts_and_one_history_entry() {
        let st = |s: &str| Item::Statement(s.to_string());
        let mut t = Typing::default();
        let (items, entry) = t.take(&format!("SELECT 1 AS a,\n{CONTINUATION}  2 AS b\n{CONTINUATION}FROM t;"));
        assert_eq!(items, vec![st("SELECT 1 AS a,\n  2 AS b\nFROM t")]);
        assert_eq!(entry.as_deref(), Some("SELECT 1 AS a,\n  2 AS b\nFROM t;"));
        // A bracketed paste: a command, a comment and two statements, each done.
        let (items, entry) = t.take("\\d\n-- two\nSELECT 1;\nSELECT 2;\n");
        assert_eq!(items, vec![Item::Command("\\d".into()), st("SELECT 1"), st("SELECT 2")]);
        assert_eq!(entry.as_deref(), Some("\\d\n-- two\nSELECT 1;\nSELECT 2;"));
        // A line returned unfinished: the next edit goes on with it, and Enter knows.
        let (items, entry) = t.take("SELECT 3");
        assert!(items.is_empty() && entry.is_none());
        assert_eq!(*t.before.lock().unwrap(), "SELECT 3\n");
        let (items, entry) = t.take("AS c;");
        assert_eq!((items, entry.as_deref()), (vec![st("SELECT 3\nAS c")], Some("SELECT 3\nAS c;")));
        assert_eq!(*t.before.lock().unwrap(), "");
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
