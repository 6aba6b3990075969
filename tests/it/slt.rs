//! The bundled queries' expected results, kept as sqllogictest files in tests/slt/ (its
//! README.md says how they are written and read), run on DataFusion through hindsight's own
//! `Session`, and on DuckDB over the same Parquet files through the statements
//! `hindsight views --dialect duckdb` prints.
//!
//! `HINDSIGHT_SLT_COMPLETE=1 cargo test --locked --test it slt` rewrites the expected results
//! from DataFusion's answers (and each bundled query's SQL from queries/, and a file for a
//! bundled query that has none), keeping comments and directives, as `sqllogictest
//! --complete` does.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

use arrow::datatypes::DataType;
use arrow::record_batch::RecordBatch;
use arrow::util::display::{ArrayFormatter, FormatOptions};
use hindsight::report::{self, Session};
use serde_json::Value;

use crate::support::{ok, python, root};

/// The variable that turns the DataFusion half into `--complete`.
const COMPLETE: &str = "HINDSIGHT_SLT_COMPLETE";

/// The engines a `skipif` / `onlyif` line names.
const DATAFUSION: &str = "datafusion";
const DUCKDB: &str = "duckdb";

/// The datasets a file can be run over: its folder under tests/slt/.
const DATASETS: &[&str] = &["demo", "aidev"];

fn complete_mode() -> bool {
    std::env::var(COMPLETE).is_ok_and(|v| !v.is_empty() && v != "0")
}

fn slt_dir() -> PathBuf {
    root().join("tests/slt")
}

// ------------------------------------------------------------------------ the format

#[derive(Clone, Debug, PartialEq)]
enum Condition {
    SkipIf(String),
    OnlyIf(String),
}

#[derive(Clone, Debug, PartialEq)]
enum Expect {
    /// `statement ok`: runs without an error.
    Ok,
    /// `statement error [TEXT]`, `query error [TEXT]`: fails, its message containing TEXT.
    Error(String),
    /// `query TYPES [nosort|rowsort] [LABEL]`, its SQL, `----`, one row a line.
    Rows { types: String, rowsort: bool, rows: Vec<String> },
}

#[derive(Clone, Debug)]
struct Record {
    /// The line of its `statement` / `query` line, from 1.
    line: usize,
    conditions: Vec<Condition>,
    sql: String,
    expect: Expect,
    /// The header's words after the types (sort mode, label), kept on a rewrite.
    options: Vec<String>,
    /// The file's lines the record spans, from its header to the blank line after it (or
    /// the end), counted from 0: what `--complete` rewrites.
    span: (usize, usize),
}

impl Record {
    fn runs_on(&self, engine: &str) -> bool {
        self.conditions.iter().all(|c| match c {
            Condition::SkipIf(e) => e != engine,
            Condition::OnlyIf(e) => e == engine,
        })
    }

    /// The SQL's first line that is not a comment, for a report.
    fn headline(&self) -> String {
        let code = self.sql.lines().map(str::trim).find(|l| !l.is_empty() && !l.starts_with("--")).unwrap_or_default();
        if self.sql.lines().count() > 1 {
            format!("{code} ...")
        } else {
            code.to_string()
        }
    }

    /// The record's lines as `--complete` writes them.
    fn lines(&self) -> Vec<String> {
        let mut out = Vec::new();
        let Expect::Rows { types, rows, .. } = &self.expect else { unreachable!("only a query with rows is rewritten") };
        let mut header = vec!["query".to_string(), types.clone()];
        header.extend(self.options.iter().cloned());
        out.push(header.join(" "));
        out.extend(self.sql.lines().map(str::to_string));
        out.push("----".to_string());
        out.extend(rows.iter().cloned());
        out
    }
}

/// One .slt file: where it is, its text's lines, its records.
#[derive(Clone, Debug)]
struct SltFile {
    /// Its path under tests/slt/, with `/`: `demo/summary.slt`.
    rel: String,
    lines: Vec<String>,
    records: Vec<Record>,
}

impl SltFile {
    /// The dataset it runs over: its folder.
    fn dataset(&self) -> &str {
        self.rel.split('/').next().unwrap_or_default()
    }

    /// The bundled query the file holds as its first `query` record, by its name: the
    /// file `demo/NAME.slt` holds `queries/NAME.sql`, `aidev/NAME.slt` `queries/aidev/NAME.sql`.
    fn bundled(&self) -> Option<&'static str> {
        let stem = self.rel.strip_suffix(".slt")?;
        let name = stem.strip_prefix("demo/").unwrap_or(stem);
        report::CATALOGUE.iter().map(|q| q.name).find(|n| *n == name)
    }

    fn text(&self) -> String {
        let mut t = self.lines.join("\n");
        t.push('\n');
        t
    }

    /// `path:line`, for a report.
    fn at(&self, line: usize) -> String {
        format!("tests/slt/{}:{line}", self.rel)
    }
}

/// The path under tests/slt/ of the file holding bundled query `name`.
fn file_for(name: &str) -> String {
    if name.starts_with("aidev/") {
        format!("{name}.slt")
    } else {
        format!("demo/{name}.slt")
    }
}

/// A bundled query's SQL as a record holds it: its file without the trailing newline (the
/// queries have no blank line, which would end the record).
fn bundled_sql(name: &str) -> String {
    report::query_text(name).unwrap().trim_end().to_string()
}

/// The records of an .slt file: `statement ok`, `statement error [TEXT]`, `query error
/// [TEXT]` and `query TYPES [nosort|rowsort] [LABEL]`, each after its `skipif ENGINE` /
/// `onlyif ENGINE` lines, and ended by a blank line; `#` starts a comment line.
fn parse(rel: &str, text: &str) -> Result<SltFile, String> {
    let lines: Vec<String> = text.lines().map(str::to_string).collect();
    let at = |i: usize| format!("tests/slt/{rel}:{}", i + 1);
    let mut records = Vec::new();
    let mut conditions = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let t = lines[i].trim();
        if t.is_empty() || t.starts_with('#') {
            if t.is_empty() && !conditions.is_empty() {
                return Err(format!("{}: a skipif/onlyif line must be followed by its record, not a blank line", at(i)));
            }
            i += 1;
            continue;
        }
        let words: Vec<&str> = t.split_whitespace().collect();
        let start = i;
        // The SQL: the lines after the header up to `----`, a blank line or the end.
        let sql_from = |i: &mut usize| {
            let mut sql = Vec::new();
            while *i < lines.len() && !lines[*i].trim().is_empty() && lines[*i].trim() != "----" {
                sql.push(lines[*i].as_str());
                *i += 1;
            }
            sql.join("\n")
        };
        match words[0] {
            "skipif" | "onlyif" => {
                let [kind, engine] = words[..] else {
                    return Err(format!("{}: `{t}`: expected `{} ENGINE`", at(i), words[0]));
                };
                conditions.push(if kind == "skipif" { Condition::SkipIf(engine.to_string()) } else { Condition::OnlyIf(engine.to_string()) });
                i += 1;
                continue;
            }
            "statement" | "query" if words.get(1) == Some(&"error") => {
                let message = t.splitn(3, char::is_whitespace).nth(2).unwrap_or_default().trim().to_string();
                i += 1;
                let sql = sql_from(&mut i);
                if i < lines.len() && lines[i].trim() == "----" {
                    return Err(format!("{}: an error record has no results (`----`)", at(i)));
                }
                records.push(Record {
                    line: start + 1,
                    conditions: std::mem::take(&mut conditions),
                    sql,
                    expect: Expect::Error(message),
                    options: Vec::new(),
                    span: (start, i),
                });
            }
            "statement" => {
                if words[1..] != ["ok"] {
                    return Err(format!("{}: `{t}`: expected `statement ok` or `statement error [TEXT]`", at(i)));
                }
                i += 1;
                let sql = sql_from(&mut i);
                if i < lines.len() && lines[i].trim() == "----" {
                    return Err(format!("{}: a statement has no results (`----`): make it a query", at(i)));
                }
                records.push(Record {
                    line: start + 1,
                    conditions: std::mem::take(&mut conditions),
                    sql,
                    expect: Expect::Ok,
                    options: Vec::new(),
                    span: (start, i),
                });
            }
            "query" => {
                let Some(types) = words.get(1).filter(|t| t.chars().all(|c| "TIRBDP?".contains(c))) else {
                    return Err(format!("{}: `{t}`: expected `query TYPES [nosort|rowsort] [LABEL]`, TYPES one of T I R B D P ? per column", at(i)));
                };
                let options: Vec<String> = words[2..].iter().map(|w| w.to_string()).collect();
                let rowsort = match options.first().map(String::as_str) {
                    None | Some("nosort") => false,
                    Some("rowsort") => true,
                    Some(other) => return Err(format!("{}: sort mode `{other}`: this runner knows nosort and rowsort", at(i))),
                };
                if options.len() > 2 {
                    return Err(format!("{}: `{t}`: expected `query TYPES [nosort|rowsort] [LABEL]`", at(i)));
                }
                i += 1;
                let sql = sql_from(&mut i);
                let mut rows = Vec::new();
                if i < lines.len() && lines[i].trim() == "----" {
                    i += 1;
                    while i < lines.len() && !lines[i].trim().is_empty() {
                        rows.push(lines[i].clone());
                        i += 1;
                    }
                }
                records.push(Record {
                    line: start + 1,
                    conditions: std::mem::take(&mut conditions),
                    sql,
                    expect: Expect::Rows { types: types.to_string(), rowsort, rows },
                    options,
                    span: (start, i),
                });
            }
            other => return Err(format!("{}: `{other}`: not a record this runner knows (statement, query, skipif, onlyif, or a # comment)", at(i))),
        }
        if records.last().is_some_and(|r| r.sql.trim().is_empty()) {
            return Err(format!("{}: the record has no SQL", at(start)));
        }
    }
    if !conditions.is_empty() {
        return Err(format!("tests/slt/{rel}: a skipif/onlyif line at the end, with no record"));
    }
    Ok(SltFile { rel: rel.to_string(), lines, records })
}

/// Every .slt file under tests/slt/, by path; each in the folder of a dataset of [`DATASETS`].
fn load_all() -> Vec<SltFile> {
    let mut files = Vec::new();
    let mut paths = Vec::new();
    for entry in std::fs::read_dir(slt_dir()).unwrap() {
        let p = entry.unwrap().path();
        if p.is_dir() {
            let name = p.file_name().unwrap().to_string_lossy().to_string();
            assert!(DATASETS.contains(&name.as_str()), "tests/slt/{name}/: not the folder of a dataset this runner builds ({})", DATASETS.join(", "));
            walk(&p, &mut paths);
        } else {
            assert!(p.extension().is_none_or(|e| e != "slt"), "{}: an .slt file belongs in a dataset's folder ({})", p.display(), DATASETS.join(", "));
        }
    }
    paths.sort();
    for p in paths {
        let rel = p.strip_prefix(slt_dir()).unwrap().to_string_lossy().replace('\\', "/");
        let text = std::fs::read_to_string(&p).unwrap();
        files.push(parse(&rel, &text).unwrap_or_else(|e| panic!("{e}")));
    }
    files
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let p = entry.unwrap().path();
        if p.is_dir() {
            walk(&p, out);
        } else if p.extension().is_some_and(|e| e == "slt") {
            out.push(p);
        }
    }
}

// ------------------------------------------------------------------------ values

/// One value as either engine returned it.
#[derive(Clone, Debug, PartialEq)]
enum Cell {
    Null,
    Bool(bool),
    Int(String),
    Float(f64),
    Text(String),
}

impl Cell {
    /// The value as a row line shows it (tests/slt/README.md): NULL, true/false, an integer's
    /// digits, a float rounded to 6 decimals without trailing zeros, text as it is, `(empty)`
    /// for the empty string, control characters escaped.
    fn show(&self) -> String {
        match self {
            Cell::Null => "NULL".into(),
            Cell::Bool(b) => b.to_string(),
            Cell::Int(s) => s.clone(),
            Cell::Float(x) => float(*x),
            Cell::Text(s) if s.is_empty() => "(empty)".into(),
            Cell::Text(s) => s.chars().map(|c| if c.is_control() { c.escape_default().to_string() } else { c.to_string() }).collect(),
        }
    }
}

fn float(x: f64) -> String {
    if x.is_nan() {
        return "NaN".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    let s = format!("{x:.6}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".into()
    } else {
        s.to_string()
    }
}

/// A column's letter in a `query` line: T text, I integer, R float or decimal, B boolean,
/// D date, P timestamp, ? anything else (DataFusion's sqllogictest letters).
fn type_letter(t: &DataType) -> char {
    use DataType::*;
    match t {
        Boolean => 'B',
        Int8 | Int16 | Int32 | Int64 | UInt8 | UInt16 | UInt32 | UInt64 => 'I',
        Float16 | Float32 | Float64 | Decimal128(..) | Decimal256(..) => 'R',
        Utf8 | LargeUtf8 | Utf8View => 'T',
        Date32 | Date64 => 'D',
        Timestamp(..) => 'P',
        _ => '?',
    }
}

/// What an engine answered a record's SQL.
#[derive(Clone, Debug)]
enum Answer {
    /// Its column letters (`None`: DataFusion returned no batch to read them from, or DuckDB,
    /// whose types are its own), its columns' names, its rows.
    Rows {
        types: Option<String>,
        names: Vec<String>,
        rows: Vec<Vec<Cell>>,
    },
    Error(String),
}

fn datafusion(session: &Session, sql: &str) -> Answer {
    match session.sql(sql) {
        Ok(batches) => arrow_answer(&batches),
        Err(e) => Answer::Error(e.to_string()),
    }
}

fn arrow_answer(batches: &[RecordBatch]) -> Answer {
    let Some(first) = batches.first() else {
        return Answer::Rows { types: None, names: Vec::new(), rows: Vec::new() };
    };
    let schema = first.schema();
    let types: String = schema.fields().iter().map(|f| type_letter(f.data_type())).collect();
    let opts = FormatOptions::default();
    let mut rows = Vec::new();
    for b in batches {
        let shown: Vec<ArrayFormatter> = b.columns().iter().map(|c| ArrayFormatter::try_new(c.as_ref(), &opts).unwrap()).collect();
        for i in 0..b.num_rows() {
            let row = b
                .columns()
                .iter()
                .zip(&shown)
                .map(|(col, f)| {
                    if col.is_null(i) {
                        return Cell::Null;
                    }
                    let s = f.value(i).to_string();
                    match type_letter(col.data_type()) {
                        'B' => Cell::Bool(s == "true"),
                        'I' => Cell::Int(s),
                        // Arrow prints a float's shortest round-trip text, a decimal exactly.
                        'R' => Cell::Float(s.parse().unwrap_or_else(|e| panic!("float `{s}`: {e}"))),
                        _ => Cell::Text(s),
                    }
                })
                .collect();
            rows.push(row);
        }
    }
    Answer::Rows { types: Some(types), names: schema.fields().iter().map(|f| f.name().clone()).collect(), rows }
}

/// A cell as tests/python/slt_duckdb.py sends it.
fn json_cell(v: &Value) -> Cell {
    match v {
        Value::Null => Cell::Null,
        Value::Bool(b) => Cell::Bool(*b),
        Value::String(s) => Cell::Text(s.clone()),
        Value::Object(m) => match m.iter().next() {
            Some((k, Value::String(s))) if k == "int" => Cell::Int(s.clone()),
            Some((k, Value::String(s))) if k == "float" => Cell::Float(s.parse().unwrap_or_else(|e| panic!("float `{s}`: {e}"))),
            Some((k, Value::String(s))) if k == "other" => Cell::Text(s.clone()),
            _ => panic!("a cell from slt_duckdb.py: {v}"),
        },
        _ => panic!("a cell from slt_duckdb.py: {v}"),
    }
}

fn duckdb_answer(v: &Value) -> Answer {
    if let Some(e) = v.get("error") {
        return Answer::Error(e.as_str().unwrap_or_default().to_string());
    }
    let rows = v["rows"].as_array().unwrap().iter().map(|r| r.as_array().unwrap().iter().map(json_cell).collect()).collect();
    let names = v["columns"].as_array().unwrap().iter().map(|n| n.as_str().unwrap().to_string()).collect();
    Answer::Rows { types: None, names, rows }
}

// ------------------------------------------------------------------------ checking

/// What is wrong with `answer` to `record` of `file` on `engine`, in words and a diff of
/// the rows; `None` when it is what the record expects.
fn check(file: &SltFile, record: &Record, engine: &str, answer: &Answer) -> Option<String> {
    let what = match file.bundled().filter(|_| is_bundled_record(file, record)) {
        Some(name) => format!("the bundled query {name} (queries/{name}.sql)"),
        None => format!("`{}`", record.headline()),
    };
    let head = format!("{}: {engine}: {what}", file.at(record.line));
    match (&record.expect, answer) {
        (Expect::Ok, Answer::Rows { .. }) => None,
        (Expect::Ok, Answer::Error(e)) => Some(format!("{head}: failed, the record expects it to run:\n    {e}")),
        (Expect::Error(want), Answer::Error(e)) if e.contains(want.as_str()) => None,
        (Expect::Error(want), Answer::Error(e)) => Some(format!("{head}: failed as expected, but its message lacks `{want}`:\n    {e}")),
        (Expect::Error(want), Answer::Rows { .. }) => Some(format!("{head}: ran; the record expects it to fail with `{want}`")),
        (Expect::Rows { .. }, Answer::Error(e)) => Some(format!("{head}: failed:\n    {e}")),
        (Expect::Rows { types, rowsort, rows }, Answer::Rows { types: got_types, names, rows: got }) => {
            let mut problems = Vec::new();
            if let Some(t) = got_types.as_ref().filter(|t| *t != types) {
                problems.push(format!("column types: expected {types}, got {t}"));
            }
            if !got.is_empty() && names.len() != types.len() {
                problems.push(format!("{} columns, the record declares {} ({types})", names.len(), types.len()));
            }
            let mut want = rows.clone();
            let mut have: Vec<String> = got.iter().map(|r| show_row(r)).collect();
            if *rowsort {
                want.sort();
                have.sort();
            }
            if want != have {
                problems.push(format!("rows differ (- expected, + got):\n{}", columns_named(diff(&want, &have), names).join("\n")));
            }
            (!problems.is_empty()).then(|| format!("{head}:\n  {}", problems.join("\n  ")))
        }
    }
}

fn show_row(row: &[Cell]) -> String {
    row.iter().map(Cell::show).collect::<Vec<_>>().join(" ")
}

/// Whether `record` is the one holding the bundled query of its file: its first `query`
/// with rows.
fn is_bundled_record(file: &SltFile, record: &Record) -> bool {
    file.records.iter().find(|r| matches!(r.expect, Expect::Rows { .. })).is_some_and(|r| r.line == record.line)
}

/// A line diff of the rows (`- ` expected, `+ ` got, `  ` both), runs of more than five
/// unchanged rows shortened to their ends.
fn diff(want: &[String], have: &[String]) -> Vec<String> {
    let (n, m) = (want.len(), have.len());
    let mut lcs = vec![vec![0u32; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if want[i] == have[j] { lcs[i + 1][j + 1] + 1 } else { lcs[i + 1][j].max(lcs[i][j + 1]) };
        }
    }
    let (mut i, mut j, mut out) = (0, 0, Vec::new());
    while i < n || j < m {
        if i < n && j < m && want[i] == have[j] {
            out.push(format!("      {}", want[i]));
            i += 1;
            j += 1;
        } else if j == m || (i < n && lcs[i + 1][j] >= lcs[i][j + 1]) {
            out.push(format!("    - {}", want[i]));
            i += 1;
        } else {
            out.push(format!("    + {}", have[j]));
            j += 1;
        }
    }
    // Long runs of unchanged rows: their first and last two.
    let mut short = Vec::new();
    let mut k = 0;
    while k < out.len() {
        let run = out[k..].iter().take_while(|l| l.starts_with("      ")).count();
        if run > 5 {
            short.extend_from_slice(&out[k..k + 2]);
            short.push(format!("      ... ({} rows the same)", run - 4));
            short.extend_from_slice(&out[k + run - 2..k + run]);
            k += run;
        } else {
            short.push(out[k].clone());
            k += 1;
        }
    }
    short
}

/// A changed row (a `-` line then one `+` line) followed by the columns whose values differ,
/// by name, where both split into one value a column (no value has a space in it).
fn columns_named(lines: Vec<String>, names: &[String]) -> Vec<String> {
    let mut out = Vec::with_capacity(lines.len());
    for (k, line) in lines.iter().enumerate() {
        out.push(line.clone());
        let (Some(want), Some(have)) = (k.checked_sub(1).and_then(|p| lines[p].strip_prefix("    - ")), line.strip_prefix("    + ")) else { continue };
        if lines.get(k + 1).is_some_and(|l| l.starts_with("    + ")) || k.checked_sub(2).is_some_and(|p| lines[p].starts_with("    - ")) {
            continue;
        }
        let (w, h): (Vec<&str>, Vec<&str>) = (want.split(' ').collect(), have.split(' ').collect());
        if w.len() != names.len() || h.len() != names.len() {
            continue;
        }
        let changed: Vec<String> =
            names.iter().zip(w.iter().zip(&h)).filter(|(_, (a, b))| a != b).map(|(n, (a, b))| format!("{n}: expected {a}, got {b}")).collect();
        out.push(format!("      ({})", changed.join("; ")));
    }
    out
}

/// The problems of a file that names a bundled query: its first `query` record must hold
/// that query's SQL, as queries/ has it.
fn bundled_problems(file: &SltFile) -> Option<String> {
    let name = file.bundled()?;
    let Some(record) = file.records.iter().find(|r| matches!(r.expect, Expect::Rows { .. })) else {
        return Some(format!("tests/slt/{}: no `query` record, where the bundled query {name} belongs", file.rel));
    };
    (record.sql != bundled_sql(name)).then(|| {
        format!(
            "{}: the SQL is not queries/{name}.sql's (the query changed since its results were recorded): run `{COMPLETE}=1 cargo test --locked --test it slt` to take its text and DataFusion's results, and review the change",
            file.at(record.line)
        )
    })
}

// ------------------------------------------------------------------------ the datasets

/// The datasets of [`DATASETS`], made in a temporary folder by the hindsight binary:
/// `demo`, the bundled demo study (`hindsight run`, no inputs) with the commit protocol's
/// tables `hindsight gate --dataset` adds from fixtures/gate; `aidev`, fixtures/aidev imported
/// with `hindsight import aidev`.
struct Datasets {
    dir: tempfile::TempDir,
}

impl Datasets {
    fn build() -> Datasets {
        let dir = tempfile::tempdir().unwrap();
        let (at, fx) = (dir.path(), |rel: &str| root().join("fixtures").join(rel).to_str().unwrap().to_string());
        ok(&["run", "--out", "demo", "--quiet"], at);
        ok(&["gate", "--results", &fx("gate/results.jsonl"), "--policy", &fx("gate/policy.json"), "--dataset", "demo", "--quiet"], at);
        ok(&["import", "aidev", &fx("aidev"), "--out", "aidev", "--captured-at", "2025-07-31T00:00:00Z", "--quiet"], at);
        Datasets { dir }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn sessions(&self) -> Vec<(&'static str, Session)> {
        DATASETS.iter().map(|n| (*n, Session::open(&self.path(n)).unwrap())).collect()
    }
}

/// `--complete` runs once per test process, whichever half gets here first; the other then
/// reads the files it wrote.
static COMPLETED: Mutex<bool> = Mutex::new(false);

/// The datasets, and the files (completed first in `--complete` mode).
fn prepared() -> (Datasets, Vec<SltFile>) {
    let ds = Datasets::build();
    let mut done = COMPLETED.lock().unwrap_or_else(|e| e.into_inner());
    if complete_mode() && !*done {
        complete(&ds);
        *done = true;
    }
    (ds, load_all())
}

/// `--complete`: a file for each bundled query that has none; in every file, the bundled
/// query's SQL from queries/, and each `query` record's types and rows DataFusion's (a record
/// DataFusion does not run, by `skipif`/`onlyif`, is left as it is); comments, directives and
/// the other records as they were.
fn complete(ds: &Datasets) {
    for name in report::CATALOGUE.iter().map(|q| q.name) {
        let rel = file_for(name);
        let path = slt_dir().join(&rel);
        if !path.exists() {
            let dataset = rel.split('/').next().unwrap();
            let text = format!("# queries/{name}.sql over the {dataset} dataset (tests/slt/README.md).\n\nquery ?\n{}\n", bundled_sql(name));
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, text).unwrap();
            eprintln!("slt: wrote {}", path.display());
        }
    }
    let sessions = ds.sessions();
    for mut file in load_all() {
        let session = &sessions.iter().find(|(n, _)| *n == file.dataset()).unwrap().1;
        let bundled = file.bundled();
        let mut replaced: Vec<((usize, usize), Vec<String>)> = Vec::new();
        for record in file.records.clone() {
            let mut record = record;
            if let Some(name) = bundled.filter(|_| is_bundled_record(&file, &record)) {
                record.sql = bundled_sql(name);
            }
            let Expect::Rows { types, rowsort, .. } = &record.expect else { continue };
            if !record.runs_on(DATAFUSION) {
                continue;
            }
            let (types, rowsort) = (types.clone(), *rowsort);
            match datafusion(session, &record.sql) {
                Answer::Error(e) => {
                    panic!("{}: DataFusion fails on it, so --complete has no rows for it (make it `query error TEXT`, or fix it):\n{e}", file.at(record.line))
                }
                Answer::Rows { types: got, rows, .. } => {
                    let mut rows: Vec<String> = rows.iter().map(|r| show_row(r)).collect();
                    if rowsort {
                        rows.sort();
                    }
                    record.expect = Expect::Rows { types: got.unwrap_or(types), rowsort, rows };
                }
            }
            replaced.push((record.span, record.lines()));
        }
        let before = file.text();
        for ((from, to), lines) in replaced.into_iter().rev() {
            file.lines.splice(from..to, lines);
        }
        let after = file.text();
        if after != before {
            std::fs::write(slt_dir().join(&file.rel), after).unwrap();
            eprintln!("slt: updated tests/slt/{}", file.rel);
        }
    }
}

/// The files' problems on DataFusion, and how many records ran there.
fn run_datafusion(files: &[SltFile], sessions: &[(&str, Session)]) -> (Vec<String>, usize) {
    let (mut problems, mut ran) = (Vec::new(), 0);
    for file in files {
        let session = &sessions.iter().find(|(n, _)| *n == file.dataset()).unwrap().1;
        problems.extend(bundled_problems(file));
        for record in file.records.iter().filter(|r| r.runs_on(DATAFUSION)) {
            ran += 1;
            problems.extend(check(file, record, DATAFUSION, &datafusion(session, &record.sql)));
        }
    }
    (problems, ran)
}

fn fail_on(problems: &[String], engine: &str) {
    assert!(
        problems.is_empty(),
        "{} record(s) of tests/slt/ do not hold {engine}'s answers:\n\n{}\n\n(expected rows follow tests/slt/README.md; `{COMPLETE}=1 cargo test --locked --test it slt` rewrites them from DataFusion's answers)",
        problems.len(),
        problems.join("\n\n")
    );
}

// ------------------------------------------------------------------------ the tests

/// Every bundled query has its .slt file, and DataFusion, through hindsight's session,
/// returns each record's expected rows (in `--complete` mode, after rewriting them).
#[test]
fn datafusion_returns_the_rows_of_the_slt_files() {
    let (ds, files) = prepared();
    let missing: Vec<String> = report::CATALOGUE.iter().map(|q| file_for(q.name)).filter(|rel| !files.iter().any(|f| &f.rel == rel)).collect();
    assert!(missing.is_empty(), "bundled queries without their file in tests/slt/: {missing:?} (`{COMPLETE}=1 cargo test --locked --test it slt` writes them)");
    let sessions = ds.sessions();
    let (problems, ran) = run_datafusion(&files, &sessions);
    fail_on(&problems, "DataFusion");
    assert!(ran >= report::CATALOGUE.len(), "{ran} records ran");

    // The runner fails where it should: a value changed in a file's expected rows is
    // reported, with the file, the line, the query and the rows' diff.
    let summary = files.iter().find(|f| f.rel == "demo/summary.slt").unwrap();
    let mut text = summary.text();
    let row = match &summary.records[0].expect {
        Expect::Rows { rows, .. } => rows[0].clone(),
        e => panic!("{e:?}"),
    };
    let changed = format!("{} 999", row.rsplit_once(' ').unwrap().0);
    text = text.replacen(&format!("\n{row}\n"), &format!("\n{changed}\n"), 1);
    let altered = parse("demo/summary.slt", &text).unwrap();
    let (problems, _) = run_datafusion(std::slice::from_ref(&altered), &sessions);
    assert_eq!(problems.len(), 1, "{problems:?}");
    let line = summary.records[0].line;
    for want in [
        format!("tests/slt/demo/summary.slt:{line}: datafusion: the bundled query summary"),
        format!("    - {changed}"),
        format!("    + {row}"),
        "(durable_reversal_count: expected 999, got 0)".to_string(),
    ] {
        assert!(problems[0].contains(&want), "no `{want}` in:\n{}", problems[0]);
    }
    // So is SQL that is no longer the bundled query's.
    let altered = parse("demo/summary.slt", &summary.text().replacen("ORDER BY window_order", "ORDER BY window_order DESC", 1)).unwrap();
    let (problems, _) = run_datafusion(std::slice::from_ref(&altered), &sessions);
    assert!(problems.iter().any(|p| p.contains("the SQL is not queries/summary.sql's")), "{problems:?}");

    // The directives: a record for another engine, or skipped on this one, does not run
    // here; an expected error, a wrong type letter, a missing row are each caught.
    let text = "skipif datafusion\nquery I\nSELECT 1\n----\n2\n\nonlyif duckdb\nquery I\nSELECT 1\n----\n2\n\n\
                # hindsight's sessions are read-only\nstatement error SQL is read-only\nCREATE TABLE t (a INT)\n\n\
                query IT rowsort\nSELECT * FROM (VALUES (2, ''), (1, NULL)) AS v(a, b)\n----\n1 NULL\n2 (empty)\n";
    let f = parse("demo/self.slt", text).unwrap();
    let (problems, ran) = run_datafusion(std::slice::from_ref(&f), &sessions);
    assert_eq!((problems.len(), ran), (0, 2), "{problems:?}");
    let wrong = text.replace("statement error SQL is read-only", "statement ok").replace("query IT rowsort", "query IR rowsort").replace("2 (empty)\n", "");
    let (problems, _) = run_datafusion(&[parse("demo/self.slt", &wrong).unwrap()], &sessions);
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert!(problems[0].contains(":14: datafusion:") && problems[0].contains("failed, the record expects it to run"), "{}", problems[0]);
    assert!(problems[1].contains("column types: expected IR, got IT") && problems[1].contains("    + 2 (empty)"), "{}", problems[1]);
}

/// DuckDB, over the same Parquet files and the views `hindsight views --dialect duckdb`
/// defines, returns each record's expected rows, but for those marked `skipif duckdb` (each
/// says why). Needs the Python package duckdb, which scripts/test installs into .venv: without
/// it this test fails and says so.
#[test]
fn duckdb_returns_the_rows_of_the_slt_files() {
    if !crate::support::have(&[crate::support::Tool::Python]) {
        return;
    }
    let py = python();
    let (ds, files) = prepared();
    let at = ds.dir.path();
    let mut request = Vec::new();
    let mut ran: Vec<(&SltFile, Vec<&Record>)> = Vec::new();
    for file in &files {
        let views = format!("{}.views.sql", file.dataset());
        if !at.join(&views).exists() {
            std::fs::write(at.join(&views), ok(&["views", "--dataset", file.dataset(), "--dialect", "duckdb"], at)).unwrap();
        }
        let records: Vec<&Record> = file.records.iter().filter(|r| r.runs_on(DUCKDB)).collect();
        request.push(serde_json::json!({"views": views, "records": records.iter().map(|r| r.sql.as_str()).collect::<Vec<_>>()}));
        ran.push((file, records));
    }
    std::fs::write(at.join("request.json"), serde_json::json!({ "files": request }).to_string()).unwrap();
    let out = Command::new(&py).arg(root().join("tests/python/slt_duckdb.py")).arg("request.json").current_dir(at).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.code() != Some(3), "DuckDB is not installed for {}: {stderr}", py.display());
    assert!(out.status.success(), "tests/python/slt_duckdb.py failed ({}):\n{stderr}", out.status);
    let answers: Value = serde_json::from_slice(&out.stdout).unwrap();
    let answers = answers["files"].as_array().unwrap();
    assert_eq!(answers.len(), ran.len());
    let (mut problems, mut count, mut bundled) = (Vec::new(), 0, 0);
    for ((file, records), answer) in ran.iter().zip(answers) {
        let results = answer["results"].as_array().unwrap();
        assert_eq!(results.len(), records.len());
        for (record, result) in records.iter().zip(results) {
            count += 1;
            bundled += usize::from(file.bundled().is_some() && is_bundled_record(file, record));
            problems.extend(check(file, record, DUCKDB, &duckdb_answer(result)));
        }
    }
    fail_on(&problems, "DuckDB");
    // Every bundled query ran on DuckDB but those marked `skipif duckdb`.
    let skipped = files.iter().filter(|f| f.bundled().is_some()).filter(|f| f.records.iter().any(|r| is_bundled_record(f, r) && !r.runs_on(DUCKDB))).count();
    assert_eq!(bundled + skipped, report::CATALOGUE.len(), "{count} records ran on DuckDB");
}
