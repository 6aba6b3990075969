//! The Parquet releases (v3, v4, v5) read onto the same tables as v1 (docs/AIDEV.md).
//!
//! Each table is one `<table>.parquet` file at the folder's root, as the releases publish
//! them, or a folder of shards (`<table>/train/0000.parquet`, as Hugging Face's converted
//! branch lays them out; `<table>.parquet/` as some download helpers do), read in file-name
//! order as one table. Columns are found by name; a column a table lacks is null and is
//! reported, a column it has of a type that cannot hold the value refuses the file. Rows
//! are read in batches of the projected columns only; each row that cannot be typed goes to
//! the quarantine with its file, row, field and the row's values.
//!
//! Rows are given to agents as v1's folders give them: a PR table by its `agent` column
//! (human PRs: `Human`), the review, comment, commit, timeline, related-issue and task-type
//! tables by their PR's agent (found from the PR id), the inline review comments by their
//! review's PR or their `pull_request_url`. Repositories, users and issues belong to no agent.

use std::collections::BTreeSet;
use std::fs::File;
use std::path::Path;

use arrow::array::{Array, ArrayRef, AsArray, RecordBatch};
use arrow::compute::{cast_with_options, CastOptions};
use arrow::datatypes::{DataType, Float64Type, Int64Type, TimeUnit, TimestampMicrosecondType};
use arrow::util::display::{ArrayFormatter, FormatOptions};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::arrow::ProjectionMask;
use serde_json::Value;

use super::release::{Recognised, Release, Subset};
use super::index::PrIndex;
use super::{int, Read, Source, BASELINE, INPUT, PRS, REVIEW_COMMENTS, SOURCES};
use crate::error::{Error, Result};
use crate::inputs::{InputFile, Skipped};
use crate::quarantine::Quarantined;
use crate::table::{Cell, Kind};

/// Rows per batch read: a batch's memory, not the table's.
const BATCH_ROWS: usize = 8192;

/// Whose rows a table's are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Owner {
    /// The PR tables: the `agent` column names the agent.
    AgentColumn,
    /// The human baseline's tables.
    Human,
    /// The agent of the PR whose id is in this column.
    PrOf(&'static str),
    /// Inline review comments: the PR of their review, else of their `pull_request_url`.
    ReviewComment,
    /// Repositories, users and issues: no agent.
    Shared,
}

/// One Parquet table and the v1 table it is read onto.
pub(super) struct Table {
    pub(super) name: &'static str,
    /// [`Source::file`] of the table it becomes.
    pub(super) source: &'static str,
    owner: Owner,
    /// Read only for this PR set (the `all_*` tables for AIDev full, the rest for AIDev-pop).
    subset: Option<Subset>,
    /// Columns without which no row can be placed: a file lacking one is refused.
    required: &'static [&'static str],
}

const TABLES: &[Table] = &[
    Table { name: "pull_request", source: PRS, owner: Owner::AgentColumn, subset: Some(Subset::Pop), required: &["id", "number", "agent"] },
    Table { name: "all_pull_request", source: PRS, owner: Owner::AgentColumn, subset: Some(Subset::All), required: &["id", "number", "agent"] },
    Table { name: "human_pull_request", source: PRS, owner: Owner::Human, subset: None, required: &["id", "number"] },
    Table { name: "repository", source: "repo_metadata.csv", owner: Owner::Shared, subset: Some(Subset::Pop), required: &["url"] },
    Table { name: "all_repository", source: "repo_metadata.csv", owner: Owner::Shared, subset: Some(Subset::All), required: &["url"] },
    Table { name: "user", source: "developer_metadata.csv", owner: Owner::Shared, subset: Some(Subset::Pop), required: &["login"] },
    Table { name: "all_user", source: "developer_metadata.csv", owner: Owner::Shared, subset: Some(Subset::All), required: &["login"] },
    Table { name: "pr_reviews", source: "pr_reviews.csv", owner: Owner::PrOf("pr_id"), subset: None, required: &["pr_id"] },
    Table { name: "pr_comments", source: "pr_comments.csv", owner: Owner::PrOf("pr_id"), subset: None, required: &["pr_id"] },
    Table { name: "pr_commits", source: "pr_commits.csv", owner: Owner::PrOf("pr_id"), subset: None, required: &["pr_id"] },
    Table { name: "pr_timeline", source: "pr_timelines.csv", owner: Owner::PrOf("pr_id"), subset: None, required: &["pr_id", "event"] },
    Table { name: "related_issue", source: "related_issues.csv", owner: Owner::PrOf("pr_id"), subset: None, required: &["pr_id"] },
    Table { name: "pr_task_type", source: "gpt_conventional_commits.csv", owner: Owner::PrOf("id"), subset: None, required: &["id", "type"] },
    Table { name: "human_pr_task_type", source: "gpt_conventional_commits.csv", owner: Owner::Human, subset: None, required: &["id", "type"] },
    Table { name: "issue", source: "issues.csv", owner: Owner::Shared, subset: None, required: &["id"] },
    Table { name: "pr_review_comments", source: REVIEW_COMMENTS, owner: Owner::ReviewComment, subset: None, required: &["id"] },
];

/// Tables a release has that are not read, and why.
fn not_read(name: &str) -> Option<&'static str> {
    match name {
        "pr_commit_details" => Some("per-file commit details (patches) are used by no rule or query: not read"),
        "pr_review_comments_v2" => {
            Some("v3's second inline review-comment table; how it differs from pr_review_comments is not documented, so pr_review_comments is read and this is not")
        }
        _ => None,
    }
}

fn table(name: &str) -> Option<&'static Table> {
    TABLES.iter().find(|t| t.name == name)
}

pub(super) fn source_of(t: &Table) -> &'static Source {
    // Every table names a source of SOURCES; the tests read every table.
    SOURCES.iter().find(|s| s.file == t.source).unwrap_or_else(|| panic!("{} maps onto no source", t.name))
}

/// Every AIDev Parquet table under `dir`, by name, with its files in order: `<name>.parquet`
/// (a file, or a folder of shards) or a folder `<name>/` of shards.
pub(crate) fn find_tables(dir: &Path) -> Result<Vec<(String, Vec<String>)>> {
    let mut out = Vec::new();
    for name in Release::every_table() {
        let file = format!("{name}.parquet");
        let mut files = Vec::new();
        for folder in [file.as_str(), name] {
            let p = dir.join(folder);
            match std::fs::symlink_metadata(&p) {
                Ok(m) if m.is_dir() => files.extend(crate::inputs::walk(&p)?.into_iter().filter(|f| f.ends_with(".parquet")).map(|f| format!("{folder}/{f}"))),
                Ok(_) if folder == file => files.push(file.clone()),
                _ => {}
            }
        }
        if !files.is_empty() {
            files.sort();
            out.push((name.to_string(), files));
        }
    }
    Ok(out)
}

/// What the PR tables' own values rule out: a release cut off before a PR was created, or
/// one without an agent that opened some. (`release`, why it is ruled out) for each.
pub(crate) fn ruled_out(dir: &Path, tables: &[(String, Vec<String>)]) -> Vec<(Release, String)> {
    let mut latest: Option<String> = None;
    let mut agents: BTreeSet<String> = BTreeSet::new();
    for name in ["pull_request", "all_pull_request"] {
        let Some((_, files)) = tables.iter().find(|(n, _)| n == name) else { continue };
        for rel in files {
            let Some(b) = schema_of(dir, rel) else { continue };
            let roots: Vec<usize> = ["created_at", "agent"].iter().filter_map(|c| b.schema().index_of(c).ok()).collect();
            let mask = ProjectionMask::roots(b.parquet_schema(), roots);
            let Ok(reader) = b.with_projection(mask).with_batch_size(BATCH_ROWS).build() else { continue };
            for batch in reader.flatten() {
                if let Some(a) = batch.column_by_name("agent").filter(|a| is_text(a.data_type())).and_then(|a| cast(a, &DataType::Utf8).ok()) {
                    agents.extend(a.as_string::<i32>().iter().flatten().map(str::to_string));
                }
                if let Some(a) = batch.column_by_name("created_at").filter(|a| is_text(a.data_type())).and_then(|a| cast(a, &DataType::Utf8).ok()) {
                    // RFC 3339 times in UTC (`Z`) order as text.
                    let max = a.as_string::<i32>().iter().flatten().filter(|t| t.ends_with('Z')).max().map(str::to_string);
                    latest = latest.max(max);
                }
            }
        }
    }
    let mut out = Vec::new();
    for r in [Release::V3, Release::V4, Release::V5] {
        if let Some(a) = agents.iter().find(|a| !r.agents().contains(&a.as_str()) && Release::V5.agents().contains(&a.as_str())) {
            out.push((r, format!("PRs by {a}, an agent {} does not have", r.name())));
        } else if let Some(t) = latest.as_deref().filter(|t| *t >= r.cut_off()) {
            out.push((r, format!("a PR created at {t}, after {}'s cut-off", r.name())));
        }
    }
    out
}

/// A Parquet file opened for its schema, while the release is told; a file that cannot be
/// read as Parquet is reported when it is read, not here.
fn schema_of(dir: &Path, rel: &str) -> Option<ParquetRecordBatchReaderBuilder<File>> {
    ParquetRecordBatchReaderBuilder::try_new(File::open(dir.join(rel)).ok()?).ok()
}

/// The columns found that only v5 is known to have: `repository.is_forked` (or
/// `all_repository`'s) and `pr_reviews.pull_request_review_id`.
pub(crate) fn v5_columns(dir: &Path, tables: &[(String, Vec<String>)]) -> Result<Vec<String>> {
    let mut out = Vec::new();
    for (name, column) in [("repository", "is_forked"), ("all_repository", "is_forked"), ("pr_reviews", "pull_request_review_id")] {
        let Some((_, files)) = tables.iter().find(|(n, _)| n == name) else { continue };
        let Some(first) = files.first() else { continue };
        let Some(b) = schema_of(dir, first) else { continue };
        if b.schema().index_of(column).is_ok() {
            out.push(format!("{name}.{column}"));
        }
    }
    Ok(out)
}

/// What reading one table gave (its rows went to the reader's callback).
#[derive(Default)]
pub(super) struct TableRead {
    pub(super) files: Vec<InputFile>,
    pub(super) quarantined: Vec<Quarantined>,
    /// Rows in the files (a refused file counts once).
    pub(super) rows: usize,
    pub(super) used: usize,
    /// `table.column` of the source's columns this table lacks.
    pub(super) absent_columns: Vec<String>,
    /// Where the rows came from: `pull_request.parquet`, or a folder of shards.
    pub(super) origin: String,
}


/// The tables of the release recognised in `dir` that this import reads, in [`TABLES`]
/// order, and what it records of the rest.
pub(super) fn wanted(dir: &Path, rec: &Recognised, out: &mut Read) -> Result<Vec<&'static Table>> {
    let subset = rec.subset.unwrap_or_default();
    let wanted: Vec<&'static Table> = TABLES.iter().filter(|t| rec.release.has_table(t.name) && t.subset.is_none_or(|s| s == subset)).collect();
    for t in &wanted {
        match rec.files(t.name) {
            None => out.absent.push(format!("{}.parquet", t.name)),
            Some(files) => out.read_from.entry(source_of(t).table).or_default().extend(files.iter().cloned()),
        }
    }
    out.skipped = skipped(dir, rec, &wanted)?;
    Ok(wanted.into_iter().filter(|t| rec.files(t.name).is_some()).collect())
}

/// Files under `dir` not read, each with the reason.
fn skipped(dir: &Path, rec: &Recognised, wanted: &[&Table]) -> Result<Vec<Skipped>> {
    let read: BTreeSet<&str> = rec.tables.iter().filter(|(n, _)| wanted.iter().any(|t| t.name == n)).flat_map(|(_, f)| f.iter().map(String::as_str)).collect();
    let table_of = |p: &str| rec.tables.iter().find(|(_, f)| f.iter().any(|x| x == p)).map(|(n, _)| n.clone());
    crate::inputs::unread(INPUT, dir, &read, |p| match table_of(p) {
        Some(n) => match not_read(&n) {
            Some(why) => why.to_string(),
            None if table(&n).is_some_and(|t| t.subset.is_some()) => {
                format!("a table of the other PR set (this import reads {}; --subset chooses): not read", rec.subset.unwrap_or_default().title())
            }
            None => format!("not a table of {}: not read", rec.release.name()),
        },
        None => format!("not a table of AIDev {} (its tables are one <table>.parquet each): not read", rec.release.name()),
    })
}

/// A used row handed to the reader's caller: its agent, typed cells and row in the table
/// (from 1, running on across shards). The caller may refuse it, handing it back with the
/// field and why: it is quarantined with its values.
pub(super) type OnRow<'a> = dyn FnMut(&'static str, Vec<Cell>, usize) -> Result<Option<Refused>> + 'a;

/// A row the caller refused: the field at fault, why, and the row.
pub(super) type Refused = (&'static str, String, Vec<Cell>);

/// Whether a read records each file's SHA-256 (the manifest's inputs), or only its size:
/// a table read twice (the PR tables' first pass) is hashed once.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Hash {
    Files,
    Not,
}

/// The rows the files of one table hold, from their footers (0 for a file that cannot be
/// read: reading it says why).
pub(super) fn rows_of(dir: &Path, rec: &Recognised, t: &Table) -> usize {
    let rows = |rel: &String| -> Option<usize> {
        let path = dir.join(rel);
        if crate::inputs::refusal(dir, &path, INPUT).is_some() {
            return None;
        }
        let f = File::open(path).ok()?;
        let b = ParquetRecordBatchReaderBuilder::try_new(f).ok()?;
        usize::try_from(b.metadata().file_metadata().num_rows()).ok()
    };
    rec.files(t.name).unwrap_or_default().iter().filter_map(rows).sum()
}

/// Read every file of one table, each used row to `on_row`, batch by batch.
pub(super) fn read_table(dir: &Path, rec: &Recognised, t: &'static Table, index: &PrIndex, hash: Hash, on_row: &mut OnRow) -> Result<TableRead> {
    let s = source_of(t);
    let files = rec.files(t.name).unwrap_or_default();
    let origin = origin_of(rec, t);
    let mut out = TableRead { origin: origin.clone(), ..TableRead::default() };
    let mut absent: BTreeSet<String> = BTreeSet::new();
    let mut first_row = 0usize;
    for rel in files {
        let path = dir.join(rel);
        if let Some(why) = crate::inputs::refusal(dir, &path, INPUT) {
            out.quarantined.push(Quarantined::new(INPUT, rel, None, None, why, ""));
            out.files.push(InputFile::refused(INPUT, rel.clone()));
            out.rows += 1;
            continue;
        }
        let ctx = FileCtx { rel, t, s, agents: rec.release.agents(), index, hash, origin: &origin, first_row };
        let got = read_file(&path, &ctx, &mut absent, on_row)?;
        first_row += got.rows;
        out.rows += got.counted;
        out.used += got.used;
        out.quarantined.extend(got.quarantined);
        out.files.push(got.file);
    }
    out.absent_columns = absent.into_iter().map(|c| format!("{origin}: column {c}")).collect();
    Ok(out)
}

/// A table's name where its rows are named: its file, or its folder of shards.
pub(super) fn origin_of(rec: &Recognised, t: &Table) -> String {
    let files = rec.files(t.name).unwrap_or_default();
    match files.first() {
        Some(f) if files.len() == 1 && *f == format!("{}.parquet", t.name) => f.clone(),
        Some(f) => format!("{}/", f.split('/').next().unwrap_or(t.name)),
        None => format!("{}.parquet", t.name),
    }
}

struct FileCtx<'a> {
    rel: &'a str,
    t: &'static Table,
    s: &'static Source,
    agents: &'static [&'static str],
    index: &'a PrIndex,
    hash: Hash,
    /// The table's name in the quarantine when a row is refused after reading (its row
    /// numbers run across shards).
    origin: &'a str,
    /// Rows of the table's earlier shards: row numbers run on across them.
    first_row: usize,
}

struct FileRead {
    file: InputFile,
    quarantined: Vec<Quarantined>,
    /// Rows in the file.
    rows: usize,
    /// Records it counts for (its rows; 1 when the file is refused whole).
    counted: usize,
    used: usize,
}

/// Read one Parquet file of a table, batch by batch, each used row to `on_row`.
fn read_file(path: &Path, ctx: &FileCtx, absent: &mut BTreeSet<String>, on_row: &mut OnRow) -> Result<FileRead> {
    let parquet_error = |e: &dyn std::fmt::Display| Error::Input { path: path.to_path_buf(), line: 0, message: format!("not readable as Parquet: {e}") };
    let (size, sha256) = match ctx.hash {
        Hash::Files => {
            let w = crate::dataset::describe(path, 0)?;
            (w.bytes, w.sha256)
        }
        Hash::Not => (std::fs::metadata(path).map_err(|e| Error::io(path, e))?.len(), String::new()),
    };
    let f = crate::inputs::open_regular(path)?;
    let builder = ParquetRecordBatchReaderBuilder::try_new(f).map_err(|e| parquet_error(&e))?;
    let schema = builder.schema().clone();
    let rows = builder.metadata().file_metadata().num_rows().max(0) as usize;
    let mut roots = Vec::new();
    let mut missing = Vec::new();
    for (name, _) in ctx.s.all_columns() {
        match schema.index_of(name) {
            Ok(i) => roots.push(i),
            Err(_) => missing.push(*name),
        }
    }
    if let Some(i) = (ctx.t.owner == Owner::AgentColumn).then(|| schema.index_of("agent").ok()).flatten() {
        roots.push(i);
    }
    let lacks: Vec<&str> = ctx.t.required.iter().copied().filter(|c| schema.index_of(c).is_err()).collect();
    let file = |counted| InputFile { input: INPUT.into(), path: ctx.rel.to_string(), size, sha256: sha256.clone(), records: counted };
    if !lacks.is_empty() {
        let have: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
        let why = format!(
            "the table has no column {} (it has: {}); without it no row can be placed, so its {rows} rows are not read",
            lacks.iter().map(|c| format!("`{c}`")).collect::<Vec<_>>().join(", "),
            crate::text::printable(&have.join(", "))
        );
        return Ok(FileRead { file: file(1), quarantined: vec![Quarantined::new(INPUT, ctx.rel, None, None, why, "")], rows, counted: 1, used: 0 });
    }
    // `pr_id` of the inline comments is found, not read.
    absent.extend(missing.into_iter().filter(|c| !(ctx.t.owner == Owner::ReviewComment && *c == "pr_id")).map(str::to_string));
    roots.sort_unstable();
    roots.dedup();
    let mask = ProjectionMask::roots(builder.parquet_schema(), roots);
    let reader = builder.with_projection(mask).with_batch_size(BATCH_ROWS).build().map_err(|e| parquet_error(&e))?;
    let mut out = FileRead { file: file(rows), quarantined: Vec::new(), rows, counted: rows, used: 0 };
    let mut at = 0usize;
    for batch in reader {
        let batch = batch.map_err(|e| parquet_error(&e))?;
        match typed_columns(ctx.s, &batch) {
            Ok(cols) => read_batch(ctx, &batch, &cols, at, &mut out, on_row)?,
            Err(why) => {
                let why = format!("{why}; its {rows} row{} not read", if rows == 1 { " is" } else { "s are" });
                return Ok(FileRead { file: file(1), quarantined: vec![Quarantined::new(INPUT, ctx.rel, None, None, why, "")], rows, counted: 1, used: 0 });
            }
        }
        at += batch.num_rows();
    }
    Ok(out)
}

/// One source column as read from a batch, in the one arrow type its kind is read from.
enum Column {
    Absent,
    /// Text, typed as v1's CSV fields are (text, or integers, times, numbers and booleans
    /// written as text).
    Text(ArrayRef),
    Int(ArrayRef),
    Float(ArrayRef),
    Time(ArrayRef),
    Bool(ArrayRef),
    /// Integers written as floats (pandas writes an integer column with a null so).
    IntAsFloat(ArrayRef),
}

fn cast(a: &ArrayRef, to: &DataType) -> std::result::Result<ArrayRef, String> {
    cast_with_options(a, to, &CastOptions { safe: false, ..Default::default() }).map_err(|e| e.to_string())
}

fn is_text(t: &DataType) -> bool {
    match t {
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => true,
        DataType::Dictionary(_, v) => is_text(v),
        _ => false,
    }
}

/// Each source column of the batch, or why a column's Parquet type cannot hold its values.
fn typed_columns(s: &Source, batch: &RecordBatch) -> std::result::Result<Vec<Column>, String> {
    let mut out = Vec::new();
    for &(name, kind) in s.all_columns() {
        let Some(a) = batch.column_by_name(name) else {
            out.push(Column::Absent);
            continue;
        };
        let t = a.data_type();
        let wrong = || format!("column `{name}` is of Parquet type {t}, which cannot hold {}", kind_name(kind));
        let col = match (kind, t) {
            (_, DataType::Null) => Column::Absent,
            (Kind::Str, t) if t.is_integer() => Column::Text(cast(a, &DataType::Utf8)?),
            (Kind::Int, t) if t.is_integer() => Column::Int(cast(a, &DataType::Int64).map_err(|e| format!("{}: {e}", wrong()))?),
            (Kind::Int, t) if t.is_floating() => Column::IntAsFloat(cast(a, &DataType::Float64)?),
            (Kind::Float, t) if t.is_floating() || t.is_integer() => Column::Float(cast(a, &DataType::Float64)?),
            (Kind::Time, DataType::Timestamp(_, tz)) => Column::Time(cast(a, &DataType::Timestamp(TimeUnit::Microsecond, tz.clone()))?),
            (Kind::Time, DataType::Date32 | DataType::Date64) => Column::Time(cast(a, &DataType::Timestamp(TimeUnit::Microsecond, None))?),
            (Kind::Bool, DataType::Boolean) => Column::Bool(a.clone()),
            (_, t) if is_text(t) => Column::Text(cast(a, &DataType::Utf8)?),
            _ => return Err(wrong()),
        };
        out.push(col);
    }
    Ok(out)
}

fn kind_name(k: Kind) -> &'static str {
    match k {
        Kind::Str => "text",
        Kind::Int => "an integer",
        Kind::Float => "a number",
        Kind::Bool => "a boolean",
        Kind::Time => "a time",
    }
}

/// Row `r` of a column as a cell of `kind`, or why it cannot be one. Text is typed as v1's
/// CSV fields are ([`super::typed_text`]), so both layouts accept and refuse the same values.
fn cell(name: &'static str, kind: Kind, s: &Source, col: &Column, r: usize) -> std::result::Result<Cell, String> {
    let null = match col {
        Column::Absent => true,
        Column::Text(a) | Column::Int(a) | Column::Float(a) | Column::Time(a) | Column::Bool(a) | Column::IntAsFloat(a) => a.is_null(r),
    };
    if null {
        return Ok(super::null(kind));
    }
    let whole = |n: i64| if n < 0 { Err(super::negative(&n.to_string())) } else { Ok(Cell::Int(Some(n))) };
    match col {
        Column::Absent => Ok(super::null(kind)),
        Column::Text(a) => super::typed_text(s, name, kind, a.as_string::<i32>().value(r)),
        Column::Int(a) => whole(a.as_primitive::<Int64Type>().value(r)),
        Column::IntAsFloat(a) => {
            let x = a.as_primitive::<Float64Type>().value(r);
            if x.fract() != 0.0 || !x.is_finite() || x.abs() >= 9.007_199_254_740_992e15 {
                return Err(format!("`{x}` is not an integer (a float column holds integers only where each is whole and below 2^53)"));
            }
            whole(x as i64)
        }
        Column::Float(a) => Ok(Cell::Float(Some(a.as_primitive::<Float64Type>().value(r)))),
        Column::Time(a) => Ok(Cell::Time(Some(a.as_primitive::<TimestampMicrosecondType>().value(r)))),
        Column::Bool(a) => Ok(Cell::Bool(Some(a.as_boolean().value(r)))),
    }
}

/// Type each row of a batch and hand it to `on_row`; a row that cannot be typed or placed,
/// or that `on_row` refuses, goes to the quarantine.
fn read_batch(ctx: &FileCtx, batch: &RecordBatch, cols: &[Column], at: usize, out: &mut FileRead, on_row: &mut OnRow) -> Result<()> {
    let agent_col = batch.column_by_name("agent").filter(|_| ctx.t.owner == Owner::AgentColumn).and_then(|a| cast(a, &DataType::Utf8).ok());
    for r in 0..batch.num_rows() {
        let row_in_file = at + r + 1;
        match typed_row(ctx, cols, r).and_then(|row| place(ctx, row, agent_col.as_ref(), r)) {
            Ok((agent, row)) => match on_row(agent, row, ctx.first_row + row_in_file)? {
                None => out.used += 1,
                Some((field, why, row)) => out.quarantined.push(Quarantined::new(INPUT, ctx.origin, Some(ctx.first_row + row_in_file), Some(field), why, &typed_text(ctx.s, &row))),
            },
            Err((field, why)) => out.quarantined.push(Quarantined::new(INPUT, ctx.rel, Some(row_in_file), field, why, &row_text(batch, r))),
        }
    }
    Ok(())
}

/// A typed row's values as a JSON object by column (the raw text of a row quarantined after
/// it was typed).
fn typed_text(s: &Source, row: &[Cell]) -> String {
    let mut m = serde_json::Map::new();
    for ((name, _), cell) in s.all_columns().zip(row) {
        m.insert((*name).to_string(), cell_json(cell));
    }
    Value::Object(m).to_string()
}

type RowError = (Option<&'static str>, String);

fn typed_row(ctx: &FileCtx, cols: &[Column], r: usize) -> std::result::Result<Vec<Cell>, RowError> {
    let mut row = Vec::with_capacity(cols.len());
    for (&(name, kind), col) in ctx.s.all_columns().zip(cols) {
        row.push(cell(name, kind, ctx.s, col, r).map_err(|why| (Some(name), why))?);
    }
    let row = super::same_pr(ctx.s, row).map_err(|(f, why)| (Some(f), why))?;
    Ok(row)
}

/// The agent a row belongs to (the review comments: with their PR's id filled in).
fn place(ctx: &FileCtx, mut row: Vec<Cell>, agent_col: Option<&ArrayRef>, r: usize) -> std::result::Result<(&'static str, Vec<Cell>), RowError> {
    let s = ctx.s;
    let by_pr = |id: Option<i64>| id.and_then(|id| ctx.index.get(id)).map_or("", |p| super::index::agent_name(p.agent));
    let agent = match ctx.t.owner {
        Owner::Human => BASELINE,
        Owner::Shared => "",
        Owner::PrOf(key) => by_pr(int(&row[s.col(key)])),
        Owner::AgentColumn => {
            let a = agent_col.map(|a| a.as_string::<i32>()).filter(|a| !a.is_null(r)).map(|a| a.value(r));
            let Some(a) = a else { return Err((Some("agent"), "no agent: the row cannot be given to one".into())) };
            match ctx.agents.iter().find(|k| **k == a) {
                Some(k) => k,
                None => {
                    let why = format!("`{}` is not an agent of this release ({})", crate::text::printable(a), ctx.agents.join(", "));
                    return Err((Some("agent"), why));
                }
            }
        }
        Owner::ReviewComment => {
            let review = int(&row[s.col("pull_request_review_id")]).and_then(|k| ctx.index.review(k));
            let pr = review.or_else(|| {
                let url = super::text(&row[s.col("pull_request_url")])?;
                let page = crate::snapshot::paths::parse_url(url);
                let repo = ctx.index.repos.find(&page.repo?.to_ascii_lowercase())?;
                ctx.index.by_number(repo, page.number?)
            });
            row[s.col("pr_id")] = Cell::Int(pr);
            by_pr(pr)
        }
    };
    Ok((agent, row))
}

/// A row's values as the file holds them, as a JSON object (the quarantine's raw text).
fn row_text(batch: &RecordBatch, r: usize) -> String {
    let options = FormatOptions::default().with_null("null");
    let mut m = serde_json::Map::new();
    for (field, col) in batch.schema().fields().iter().zip(batch.columns()) {
        let v = match ArrayFormatter::try_new(col.as_ref(), &options) {
            Ok(f) if !col.is_null(r) => Value::String(f.value(r).to_string()),
            _ => Value::Null,
        };
        m.insert(field.name().clone(), v);
    }
    Value::Object(m).to_string()
}

/// A typed cell as JSON (a quarantined row's raw text, when its values were read already).
pub(crate) fn cell_json(c: &Cell) -> Value {
    match c {
        Cell::Str(v) => v.as_ref().map_or(Value::Null, |s| Value::String(s.clone())),
        Cell::Int(v) => v.map_or(Value::Null, Value::from),
        Cell::Float(v) => v.map_or(Value::Null, Value::from),
        Cell::Bool(v) => v.map_or(Value::Null, Value::from),
        Cell::Time(v) => v.and_then(crate::time::from_micros).map_or(Value::Null, |t| Value::String(crate::time::format(&t))),
    }
}
