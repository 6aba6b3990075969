//! Reading dataset tables back, for stages that run alone on a dataset directory.

use std::borrow::Cow;
use std::fs::File;
use std::path::Path;
use std::sync::Arc;

use arrow::array::{Array, ArrayAccessor, BooleanArray, Int64Array, StringArray, StringViewArray, TimestampMicrosecondArray};
use arrow::datatypes::{DataType, Schema};
use arrow::record_batch::RecordBatch;
use parquet::arrow::arrow_reader::{ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReaderBuilder};
use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::runs::{Execution, SafeOutput};
use crate::snapshot::{BodyText, CaptureRow, SnapshotIndex};
use crate::time::{self, Instant};

pub fn batches(dataset: &Path, table: &str) -> Result<Vec<RecordBatch>> {
    let p = dataset.join(format!("{table}.parquet"));
    let f = File::open(&p).map_err(|e| Error::io(&p, e))?;
    let reader = ParquetRecordBatchReaderBuilder::try_new(f)?.build()?;
    let mut out = Vec::new();
    for b in reader {
        out.push(b?);
    }
    Ok(out)
}

/// Only the named columns of a table (a table without one of them is an error).
pub fn columns(dataset: &Path, table: &str, names: &[&str]) -> Result<Vec<RecordBatch>> {
    let p = dataset.join(format!("{table}.parquet"));
    let f = File::open(&p).map_err(|e| Error::io(&p, e))?;
    let builder = ParquetRecordBatchReaderBuilder::try_new(f)?;
    let mut roots = Vec::with_capacity(names.len());
    for n in names {
        roots.push(builder.schema().index_of(n).map_err(|_| missing(table, n))?);
    }
    let mask = parquet::arrow::ProjectionMask::roots(builder.parquet_schema(), roots);
    let mut out = Vec::new();
    for b in builder.with_projection(mask).build()? {
        out.push(b?);
    }
    Ok(out)
}

/// (run id, its aw_info.json verbatim) of every run of the runs table; none when the
/// dataset has no runs table (an imported study).
pub fn run_infos(dataset: &Path) -> Result<Vec<(String, Option<String>)>> {
    if !dataset.join("runs.parquet").is_file() {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    for batch in columns(dataset, "runs", &["run_id", "aw_info"])? {
        let c = Cols::new("runs", &batch);
        let (id, info) = (c.str("run_id")?, c.str("aw_info")?);
        out.extend((0..batch.num_rows()).filter_map(|k| Some((id[k].clone()?, info[k].clone()))));
    }
    Ok(out)
}

fn missing(table: &str, col: &str) -> Error {
    Error::Dataset { path: format!("{table}.parquet").into(), message: format!("column `{col}` is missing or has an unexpected type") }
}

pub struct Cols<'a> {
    table: &'a str,
    batch: &'a RecordBatch,
}

impl<'a> Cols<'a> {
    pub fn new(table: &'a str, batch: &'a RecordBatch) -> Self {
        Cols { table, batch }
    }
    /// A column `read` reads (an error when it is missing), `None` for one it leaves out.
    pub(crate) fn opt<T: Clone + 'static>(&self, name: &str, read: ColumnsRead) -> Result<Option<T>> {
        if !read.reads(name) {
            return Ok(None);
        }
        self.col::<T>(name).map(|c| Some(c.clone()))
    }
    /// `opt` of a column datasets written before it existed lack: `None` there.
    pub(crate) fn newer<T: Clone + 'static>(&self, name: &str, read: ColumnsRead) -> Result<Option<T>> {
        if self.batch.column_by_name(name).is_none() {
            return Ok(None);
        }
        self.opt(name, read)
    }
    pub fn col<T: 'static>(&self, name: &str) -> Result<&'a T> {
        self.batch.column_by_name(name).and_then(|c| c.as_any().downcast_ref::<T>()).ok_or_else(|| missing(self.table, name))
    }
    pub fn str(&self, name: &str) -> Result<Vec<Option<String>>> {
        let a: &StringArray = self.col(name)?;
        Ok((0..a.len()).map(|i| (!a.is_null(i)).then(|| a.value(i).to_string())).collect())
    }
    /// Which rows of `responses` are superseded copies (a dataset written before the
    /// column existed has none).
    pub(crate) fn superseded(&self) -> Vec<bool> {
        match self.batch.column_by_name("superseded_by") {
            Some(c) => (0..c.len()).map(|i| c.is_valid(i)).collect(),
            None => vec![false; self.batch.num_rows()],
        }
    }
    pub fn int(&self, name: &str) -> Result<Vec<Option<i64>>> {
        let a: &Int64Array = self.col(name)?;
        Ok((0..a.len()).map(|i| (!a.is_null(i)).then(|| a.value(i))).collect())
    }
    pub(crate) fn bool(&self, name: &str) -> Result<Vec<Option<bool>>> {
        let a: &BooleanArray = self.col(name)?;
        Ok((0..a.len()).map(|i| (!a.is_null(i)).then(|| a.value(i))).collect())
    }
    pub fn time(&self, name: &str) -> Result<Vec<Option<Instant>>> {
        let a: &TimestampMicrosecondArray = self.col(name)?;
        Ok((0..a.len()).map(|i| if a.is_null(i) { None } else { time::from_micros(a.value(i)) }).collect())
    }
}

/// (path, page, status, captured_at, body) of every captured response.
pub fn responses(dataset: &Path) -> Result<Vec<crate::snapshot::CaptureRow>> {
    let mut out = Vec::new();
    for b in batches(dataset, "responses")? {
        let c = Cols::new("responses", &b);
        let (path, page, status, at, body) = (c.str("path")?, c.int("page")?, c.int("status")?, c.time("captured_at")?, c.str("body")?);
        let old = c.superseded();
        // Move the strings out rather than copy them again: bodies are most of a dataset.
        for (((((path, page), status), at), body), old) in path.into_iter().zip(page).zip(status).zip(at).zip(body).zip(old) {
            if old {
                continue;
            }
            out.push((
                path.unwrap_or_default(),
                page.unwrap_or(1),
                status.and_then(|s| u16::try_from(s).ok()).unwrap_or(200),
                at,
                body.unwrap_or_else(|| "null".into()),
            ));
        }
    }
    Ok(out)
}

/// The captures of one repository (`None`: paths of no repository).
pub struct RepoGroup {
    pub repo: Option<String>,
    pub(crate) rows: Vec<CaptureRow<BodyText>>,
}

/// A row of `responses` as evaluate and attach read it, its body left in its column.
pub type ResponseRow = CaptureRow<BodyText>;

/// The one way a repository's [`SnapshotIndex`] is built from `responses`, whose groups
/// come one repository at a time (`response_groups`), the paths of no repository (projects,
/// users, search) first: those are one index, shared beside every repository's own
/// captures, as derived copies (search results, other shapes) need them.
#[derive(Default)]
pub struct RepoIndexes {
    shared: Option<std::sync::Arc<SnapshotIndex>>,
}

impl RepoIndexes {
    /// A chunk of groups: the group of no repository becomes the shared index (returned when
    /// this chunk held it); each repository's captures are returned by name, for `build`.
    pub fn take(&mut self, groups: Vec<RepoGroup>) -> (Option<std::sync::Arc<SnapshotIndex>>, Vec<(String, Vec<ResponseRow>)>) {
        let mut made = None;
        let mut repos = Vec::with_capacity(groups.len());
        for g in groups {
            match g.repo {
                None => {
                    let s = std::sync::Arc::new(SnapshotIndex::build(g.rows));
                    self.shared = Some(s.clone());
                    made = Some(s);
                }
                Some(r) => repos.push((r, g.rows)),
            }
        }
        (made, repos)
    }

    /// A repository's index: its own captures, the shared ones beside them.
    pub fn build(&self, rows: Vec<ResponseRow>) -> SnapshotIndex {
        SnapshotIndex::build(rows).with_shared(self.shared.clone())
    }

    /// The index of a repository with no captures of its own: the shared ones alone.
    pub fn empty(&self) -> SnapshotIndex {
        SnapshotIndex::default().with_shared(self.shared.clone())
    }
}

/// `plain` (a file's metadata, its footer read once) with the text columns `columns` read
/// as string views: their text stays in the pages it was decompressed into, where the views
/// point, rather than being copied out value by value.
pub(crate) fn viewing(plain: &ArrowReaderMetadata, columns: &[&str]) -> Result<ArrowReaderMetadata> {
    let fields = plain
        .schema()
        .fields()
        .iter()
        .map(|f| match columns.contains(&f.name().as_str()) {
            true => Arc::new(f.as_ref().clone().with_data_type(DataType::Utf8View)),
            false => f.clone(),
        })
        .collect::<Vec<_>>();
    let options = ArrowReaderOptions::default().with_schema(Arc::new(Schema::new_with_metadata(fields, plain.schema().metadata().clone())));
    Ok(ArrowReaderMetadata::try_new(plain.metadata().clone(), options)?)
}

/// The first chunk of `response_groups` holds this share of the budget; each chunk after it
/// twice the one before, up to the budget.
const FIRST_CHUNK_SHARE: usize = 8;

/// Read `responses` one repository at a time, handing `f` whole repositories in chunks of
/// about `budget` body bytes: memory stays near the chunk size whatever the snapshot's.
/// Rows must be grouped by repository, as convert writes them; a dataset whose rows are not
/// is refused with a message, never evaluated with part of its evidence.
pub fn response_groups(dataset: &Path, budget: usize, f: impl FnMut(Vec<RepoGroup>) -> Result<()>) -> Result<()> {
    response_groups_in(dataset, budget, &super::stream::RepoRange::default(), f)
}

/// `response_groups` for the repositories of `range` alone (and the captures of no
/// repository, which every repository's index shares): the row groups that hold none of
/// them are not read.
pub fn response_groups_in(dataset: &Path, budget: usize, range: &super::stream::RepoRange, mut f: impl FnMut(Vec<RepoGroup>) -> Result<()>) -> Result<()> {
    let p = dataset.join("responses.parquet");
    let rows = (*range != super::stream::RepoRange::default()).then(|| super::stream::response_rows(dataset, range)).transpose()?;
    // Only the columns read below are decoded (not `repo`, `source_file`, `source_line`),
    // bodies as string views (see `viewing`).
    const READ: [&str; 6] = ["path", "page", "status", "captured_at", "body", "superseded_by"];
    let reader = super::stream::responses_reader(dataset, &|c| READ.contains(&c), rows)?;
    let mut seen: std::collections::HashSet<Option<String>> = std::collections::HashSet::new();
    let mut chunk: Vec<RepoGroup> = Vec::new();
    let mut chunk_bytes = 0usize;
    // Judging starts on a small chunk while the reader (one thread) reads the next. Chunks
    // grow to the budget: in a small study, one large second chunk kept the judging threads
    // waiting for the reader.
    let mut limit = (budget / FIRST_CHUNK_SHARE).max(1);
    let mut current: Option<RepoGroup> = None;
    for b in reader {
        let b = b?;
        let c = Cols::new("responses", &b);
        let (path, page, status, at) = (c.str("path")?, c.int("page")?, c.int("status")?, c.time("captured_at")?);
        // Bodies stay in their column (see `BodyText`).
        let bodies: Arc<StringViewArray> = Arc::new(c.col::<StringViewArray>("body")?.clone());
        let old = c.superseded();
        for (row, ((((path, page), status), at), old)) in path.into_iter().zip(page).zip(status).zip(at).zip(old).enumerate() {
            // A superseded copy is kept in the table, never used as evidence.
            if old {
                continue;
            }
            let path = path.unwrap_or_default();
            let body = match bodies.is_null(row) {
                true => BodyText::from("null".to_string()),
                false => BodyText::InColumn(bodies.clone(), row),
            };
            let repo = crate::snapshot::paths::repo_of(&path);
            if repo.is_some() && !range.holds(repo) {
                continue;
            }
            if current.as_ref().is_none_or(|g| g.repo.as_deref() != repo) {
                if let Some(g) = current.take() {
                    chunk.push(g);
                    if chunk_bytes >= limit {
                        f(std::mem::take(&mut chunk))?;
                        chunk_bytes = 0;
                        limit = limit.saturating_mul(2).min(budget);
                    }
                }
                let repo = repo.map(str::to_string);
                if !seen.insert(repo.clone()) {
                    return Err(Error::Dataset {
                        path: p,
                        message: format!(
                            "rows of repository `{}` are not together (a dataset written by an older hindsight?); convert the study again",
                            repo.as_deref().unwrap_or("(none)")
                        ),
                    });
                }
                current = Some(RepoGroup { repo, rows: Vec::new() });
            }
            chunk_bytes += body.as_str().len();
            if let Some(g) = current.as_mut() {
                g.rows.push((path, page.unwrap_or(1), status.and_then(|s| u16::try_from(s).ok()).unwrap_or(200), at, body));
            }
        }
    }
    chunk.extend(current);
    if !chunk.is_empty() {
        f(chunk)?;
    }
    Ok(())
}

pub fn safe_outputs(dataset: &Path) -> Result<Vec<SafeOutput<'static>>> {
    let table = SafeOutputTable::read(dataset, ColumnsRead::Whole)?;
    Ok((0..table.len()).map(|i| table.get(i).into_owned()).collect())
}

/// The columns of one batch of `safe_outputs`, resolved once.
struct OutputColumns {
    own: OwnColumns,
    execution: StringArray,
    target_comment_id: Int64Array,
    target_url: StringViewArray,
    /// This and the three code-change references: absent from datasets written before them.
    target_node_id: Option<StringArray>,
    target_source: Option<StringArray>,
    temporary_id: Option<StringArray>,
    actor: StringArray,
    run_actor: StringArray,
    payload_hash: Option<StringArray>,
    patch_hash: Option<StringArray>,
    base_ref: Option<StringArray>,
    head_ref: Option<StringArray>,
    /// Viewed in the pages it was decompressed into (most of the table's bytes), not copied.
    payload: StringViewArray,
    expected_state: StringArray,
    before_state: StringArray,
    after_state: StringArray,
    staged: Option<BooleanArray>,
    source_format: Option<StringArray>,
    source_file: Option<StringArray>,
    source_line: Option<Int64Array>,
}

/// The columns an outcome row repeats ([`OutputFields`]), of one batch.
pub(crate) struct OwnColumns {
    id: StringArray,
    run_id: StringArray,
    item_index: Int64Array,
    workflow_name: StringArray,
    output_type: StringArray,
    target_repo: StringArray,
    target_kind: StringArray,
    target_number: Int64Array,
    created_at: TimestampMicrosecondArray,
}

impl OwnColumns {
    /// The names of the columns read.
    pub(crate) const NAMES: [&str; 9] = ["safe_output_id", "run_id", "item_index", "workflow_name", "safe_output_type", "target_repo", "target_kind", "target_number", "created_at"];

    pub(crate) fn of(c: &Cols<'_>) -> Result<OwnColumns> {
        Ok(OwnColumns {
            id: c.col::<StringArray>("safe_output_id")?.clone(),
            run_id: c.col::<StringArray>("run_id")?.clone(),
            item_index: c.col::<Int64Array>("item_index")?.clone(),
            workflow_name: c.col::<StringArray>("workflow_name")?.clone(),
            output_type: c.col::<StringArray>("safe_output_type")?.clone(),
            target_repo: c.col::<StringArray>("target_repo")?.clone(),
            target_kind: c.col::<StringArray>("target_kind")?.clone(),
            target_number: c.col::<Int64Array>("target_number")?.clone(),
            created_at: c.col::<TimestampMicrosecondArray>("created_at")?.clone(),
        })
    }

    /// Row `r`'s fields, read as `SafeOutputTable::get` reads them: a missing id or type is
    /// empty, a missing item index 0, a time past chrono's range none.
    pub(crate) fn fields(&self, r: usize) -> OutputFields<'_> {
        OutputFields {
            safe_output_id: text(&self.id, r).unwrap_or_default(),
            run_id: text(&self.run_id, r).unwrap_or_default(),
            item_index: int(&self.item_index, r).unwrap_or(0),
            workflow_name: text(&self.workflow_name, r),
            output_type: text(&self.output_type, r).unwrap_or_default(),
            target_repo: text(&self.target_repo, r),
            target_kind: text(&self.target_kind, r),
            target_number: int(&self.target_number, r),
            created_at: self.created_at(r),
        }
    }

    fn created_at(&self, r: usize) -> Option<Instant> {
        match self.created_at.is_null(r) {
            true => None,
            false => time::from_micros(self.created_at.value(r)),
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.id.len()
    }
}

/// Which columns of `safe_outputs` to read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColumnsRead {
    Whole,
    /// Without the columns no rule reads (the payload's hash, where the output was read
    /// from, its temporary id, its source and staged flag): a sixth of a study's outputs in
    /// memory, read for nothing. Those fields read as empty.
    Judged,
}

impl ColumnsRead {
    /// Columns `Judged` leaves out.
    const NOT_JUDGED: &[&str] =
        &["target_source", "temporary_id", "payload_hash", "target_node_id", "patch_hash", "base_ref", "head_ref", "staged", "source_format", "source_file", "source_line"];

    /// Whether this read takes `column`.
    pub fn reads(self, column: &str) -> bool {
        self == ColumnsRead::Whole || !Self::NOT_JUDGED.contains(&column)
    }
}

/// An output's own columns (those an outcome row repeats), as the output has them.
#[derive(Clone, Copy)]
pub struct OutputFields<'a> {
    pub safe_output_id: &'a str,
    pub run_id: &'a str,
    pub item_index: i64,
    pub workflow_name: Option<&'a str>,
    pub output_type: &'a str,
    pub target_repo: Option<&'a str>,
    pub target_kind: Option<&'a str>,
    pub target_number: Option<i64>,
    pub created_at: Option<Instant>,
}

impl<'a> From<&'a SafeOutput<'_>> for OutputFields<'a> {
    fn from(o: &'a SafeOutput<'_>) -> Self {
        OutputFields {
            safe_output_id: &o.safe_output_id,
            run_id: &o.run_id,
            item_index: o.item_index,
            workflow_name: o.workflow_name.as_deref(),
            output_type: &o.output_type,
            target_repo: o.target_repo.as_deref(),
            target_kind: o.target_kind.as_deref(),
            target_number: o.target_number,
            created_at: o.created_at,
        }
    }
}

/// `safe_outputs` as read, kept in its Arrow columns (text side by side, no allocation per
/// field): a million outputs hold about half the memory they take as [`SafeOutput`]s, which
/// borrow their text from these columns one at a time, when an output is judged.
pub struct SafeOutputTable {
    batches: Vec<OutputColumns>,
    /// Index of each batch's first row.
    starts: Vec<usize>,
    len: usize,
}

/// Row `i` of a text column (`StringArray` or `StringViewArray`), `None` when null.
fn text<'a>(a: impl ArrayAccessor<Item = &'a str>, i: usize) -> Option<&'a str> {
    (!a.is_null(i)).then(|| a.value(i))
}

fn int(a: &Int64Array, i: usize) -> Option<i64> {
    (!a.is_null(i)).then(|| a.value(i))
}

impl SafeOutputTable {
    pub fn read(dataset: &Path, read: ColumnsRead) -> Result<SafeOutputTable> {
        // Large batches: small ones waste part of each buffer, a million outputs' worth.
        let p = dataset.join("safe_outputs.parquet");
        let open = || File::open(&p).map_err(|e| Error::io(&p, e));
        // Row groups decoded side by side (a million outputs are sixteen of them), in order.
        // Payloads and URLs read as string views, as `response_groups` reads bodies (most of
        // the table's bytes, and of its memory).
        let meta = viewing(&ArrowReaderMetadata::load(&open()?, ArrowReaderOptions::default())?, &["payload", "target_url"])?;
        let roots: Vec<usize> = meta.schema().fields().iter().enumerate().filter(|(_, f)| read.reads(f.name())).map(|(i, _)| i).collect();
        let mask = parquet::arrow::ProjectionMask::roots(meta.parquet_schema(), roots);
        let groups: Vec<Vec<RecordBatch>> = (0..meta.metadata().num_row_groups())
            .into_par_iter()
            .map(|g| -> Result<Vec<RecordBatch>> {
                let reader = ParquetRecordBatchReaderBuilder::new_with_metadata(open()?, meta.clone())
                    .with_projection(mask.clone())
                    .with_row_groups(vec![g])
                    .with_batch_size(64 * 1024)
                    .build()?;
                Ok(reader.collect::<std::result::Result<Vec<_>, _>>()?)
            })
            .collect::<Result<_>>()?;
        Self::from_batches(groups.into_iter().flatten(), read)
    }

    /// The table of `batches` (of `safe_outputs`' columns that `read` reads, payloads and
    /// URLs as string views; other columns are ignored).
    pub fn from_batches(batches: impl IntoIterator<Item = RecordBatch>, read: ColumnsRead) -> Result<SafeOutputTable> {
        let (mut starts, mut len, mut columns) = (Vec::new(), 0, Vec::new());
        for b in batches {
            let c = Cols::new("safe_outputs", &b);
            starts.push(len);
            len += b.num_rows();
            columns.push(OutputColumns {
                own: OwnColumns::of(&c)?,
                execution: c.col::<StringArray>("execution")?.clone(),
                target_comment_id: c.col::<Int64Array>("target_comment_id")?.clone(),
                target_url: c.col::<StringViewArray>("target_url")?.clone(),
                target_node_id: c.newer::<StringArray>("target_node_id", read)?,
                target_source: c.opt::<StringArray>("target_source", read)?,
                temporary_id: c.opt::<StringArray>("temporary_id", read)?,
                actor: c.col::<StringArray>("actor")?.clone(),
                run_actor: c.col::<StringArray>("run_actor")?.clone(),
                payload_hash: c.opt::<StringArray>("payload_hash", read)?,
                patch_hash: c.newer::<StringArray>("patch_hash", read)?,
                base_ref: c.newer::<StringArray>("base_ref", read)?,
                head_ref: c.newer::<StringArray>("head_ref", read)?,
                payload: c.col::<StringViewArray>("payload")?.clone(),
                expected_state: c.col::<StringArray>("expected_state")?.clone(),
                before_state: c.col::<StringArray>("before_state")?.clone(),
                after_state: c.col::<StringArray>("after_state")?.clone(),
                staged: c.opt::<BooleanArray>("staged", read)?,
                source_format: c.opt::<StringArray>("source_format", read)?,
                source_file: c.opt::<StringArray>("source_file", read)?,
                source_line: c.opt::<Int64Array>("source_line", read)?,
            });
        }
        Ok(SafeOutputTable { batches: columns, starts, len })
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn at(&self, i: usize) -> (&OutputColumns, usize) {
        let b = self.starts.partition_point(|&s| s <= i) - 1;
        (&self.batches[b], i - self.starts[b])
    }

    /// The output's sort key: run id and item index.
    pub fn key(&self, i: usize) -> (&str, i64) {
        let (c, r) = self.at(i);
        (text(&c.own.run_id, r).unwrap_or_default(), int(&c.own.item_index, r).unwrap_or(0))
    }

    pub fn target_repo(&self, i: usize) -> Option<&str> {
        let (c, r) = self.at(i);
        text(&c.own.target_repo, r)
    }

    /// Output `i`'s columns as `get` makes them, without copying them; `None` past the end.
    pub fn fields(&self, i: usize) -> Option<OutputFields<'_>> {
        if i >= self.len {
            return None;
        }
        let (c, r) = self.at(i);
        Some(c.own.fields(r))
    }

    /// Output `i`'s run id, the identity it was written as and its time, read from their
    /// columns alone (for [`crate::evaluate::run_ends`], over every output).
    pub fn acting(&self, i: usize) -> (&str, Option<&str>, Option<Instant>) {
        let (c, r) = self.at(i);
        (text(&c.own.run_id, r).unwrap_or_default(), text(&c.actor, r), c.own.created_at(r))
    }

    /// Output `i`, its text borrowed from the table's columns (`into_owned` copies it).
    pub fn get<'t>(&'t self, i: usize) -> SafeOutput<'t> {
        let (c, r) = self.at(i);
        let borrowed = |a: &'t StringArray| text(a, r).map(Cow::Borrowed);
        let own = c.own.fields(r);
        SafeOutput {
            safe_output_id: own.safe_output_id.into(),
            run_id: own.run_id.into(),
            item_index: own.item_index,
            workflow_name: own.workflow_name.map(Cow::Borrowed),
            output_type: own.output_type.into(),
            execution: Execution::parse(text(&c.execution, r).unwrap_or("executed")),
            target_repo: own.target_repo.map(Cow::Borrowed),
            target_kind: own.target_kind.map(Cow::Borrowed),
            target_number: own.target_number,
            target_comment_id: int(&c.target_comment_id, r),
            target_url: text(&c.target_url, r).map(Cow::Borrowed),
            target_node_id: c.target_node_id.as_ref().and_then(borrowed),
            target_source: c.target_source.as_ref().and_then(borrowed),
            temporary_id: c.temporary_id.as_ref().and_then(borrowed),
            actor: borrowed(&c.actor),
            run_actor: borrowed(&c.run_actor),
            created_at: own.created_at,
            payload_hash: c.payload_hash.as_ref().and_then(borrowed).unwrap_or_default(),
            patch_hash: c.patch_hash.as_ref().and_then(borrowed),
            base_ref: c.base_ref.as_ref().and_then(borrowed),
            head_ref: c.head_ref.as_ref().and_then(borrowed),
            payload: text(&c.payload, r).map(Cow::Borrowed).unwrap_or_default(),
            expected_state: borrowed(&c.expected_state).unwrap_or(Cow::Borrowed("{}")),
            before_state: borrowed(&c.before_state),
            after_state: borrowed(&c.after_state),
            staged: c.staged.as_ref().is_some_and(|a| !a.is_null(r) && a.value(r)),
            source_format: c.source_format.as_ref().and_then(borrowed).unwrap_or_default(),
            source_file: c.source_file.as_ref().and_then(borrowed).unwrap_or_default(),
            source_line: c.source_line.as_ref().and_then(|a| int(a, r)).unwrap_or(0),
        }
    }
}
