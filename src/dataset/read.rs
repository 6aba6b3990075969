//! Reading dataset tables back, for stages that run alone on a dataset directory.

use std::fs::File;
use std::path::Path;

use arrow::array::{Array, BooleanArray, Int64Array, StringArray, TimestampMicrosecondArray};
use arrow::record_batch::RecordBatch;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

use crate::error::{Error, Result};
use crate::runs::{Execution, SafeOutput};
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
    fn col<T: 'static>(&self, name: &str) -> Result<&'a T> {
        self.batch.column_by_name(name).and_then(|c| c.as_any().downcast_ref::<T>()).ok_or_else(|| missing(self.table, name))
    }
    pub fn str(&self, name: &str) -> Result<Vec<Option<String>>> {
        let a: &StringArray = self.col(name)?;
        Ok((0..a.len()).map(|i| (!a.is_null(i)).then(|| a.value(i).to_string())).collect())
    }
    /// Which rows of `responses` are superseded copies (a dataset written before the
    /// column existed has none).
    pub fn superseded(&self) -> Vec<bool> {
        match self.batch.column_by_name("superseded_by") {
            Some(c) => (0..c.len()).map(|i| c.is_valid(i)).collect(),
            None => vec![false; self.batch.num_rows()],
        }
    }
    pub fn int(&self, name: &str) -> Result<Vec<Option<i64>>> {
        let a: &Int64Array = self.col(name)?;
        Ok((0..a.len()).map(|i| (!a.is_null(i)).then(|| a.value(i))).collect())
    }
    pub fn bool(&self, name: &str) -> Result<Vec<Option<bool>>> {
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
    pub rows: Vec<crate::snapshot::CaptureRow>,
}

/// Read `responses` one repository at a time, handing `f` whole repositories in chunks of
/// about `budget` body bytes: memory stays near the chunk size whatever the snapshot's.
/// Rows must be grouped by repository, as convert writes them; a dataset whose rows are not
/// is refused with a message, never evaluated with part of its evidence.
pub fn response_groups(dataset: &Path, budget: usize, mut f: impl FnMut(Vec<RepoGroup>) -> Result<()>) -> Result<()> {
    let p = dataset.join("responses.parquet");
    let file = File::open(&p).map_err(|e| Error::io(&p, e))?;
    let reader = ParquetRecordBatchReaderBuilder::try_new(file)?.build()?;
    let mut seen: std::collections::HashSet<Option<String>> = std::collections::HashSet::new();
    let mut chunk: Vec<RepoGroup> = Vec::new();
    let mut chunk_bytes = 0usize;
    let mut current: Option<RepoGroup> = None;
    for b in reader {
        let b = b?;
        let c = Cols::new("responses", &b);
        let (path, page, status, at, body) = (c.str("path")?, c.int("page")?, c.int("status")?, c.time("captured_at")?, c.str("body")?);
        let old = c.superseded();
        for (((((path, page), status), at), body), old) in path.into_iter().zip(page).zip(status).zip(at).zip(body).zip(old) {
            // A superseded copy is kept in the table, never used as evidence.
            if old {
                continue;
            }
            let path = path.unwrap_or_default();
            let body = body.unwrap_or_else(|| "null".into());
            let repo = crate::snapshot::paths::repo_of(&path);
            if current.as_ref().is_none_or(|g| g.repo.as_deref() != repo) {
                if let Some(g) = current.take() {
                    chunk.push(g);
                    if chunk_bytes >= budget {
                        f(std::mem::take(&mut chunk))?;
                        chunk_bytes = 0;
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
            chunk_bytes += body.len();
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

pub fn safe_outputs(dataset: &Path) -> Result<Vec<SafeOutput>> {
    let mut out = Vec::new();
    for b in batches(dataset, "safe_outputs")? {
        let c = Cols::new("safe_outputs", &b);
        let id = c.str("safe_output_id")?;
        let run_id = c.str("run_id")?;
        let idx = c.int("item_index")?;
        let wf = c.str("workflow_name")?;
        let ty = c.str("safe_output_type")?;
        let exec = c.str("execution")?;
        let repo = c.str("target_repo")?;
        let kind = c.str("target_kind")?;
        let num = c.int("target_number")?;
        let cid = c.int("target_comment_id")?;
        let url = c.str("target_url")?;
        let tsrc = c.str("target_source")?;
        let tmp = c.str("temporary_id")?;
        let actor = c.str("actor")?;
        let run_actor = c.str("run_actor")?;
        let created = c.time("created_at")?;
        let ph = c.str("payload_hash")?;
        let payload = c.str("payload")?;
        let exp = c.str("expected_state")?;
        let before = c.str("before_state")?;
        let after = c.str("after_state")?;
        let staged = c.bool("staged")?;
        let fmt = c.str("source_format")?;
        let file = c.str("source_file")?;
        let line = c.int("source_line")?;
        for i in 0..b.num_rows() {
            out.push(SafeOutput {
                safe_output_id: id[i].clone().unwrap_or_default(),
                run_id: run_id[i].clone().unwrap_or_default(),
                item_index: idx[i].unwrap_or(0),
                workflow_name: wf[i].clone(),
                output_type: ty[i].clone().unwrap_or_default(),
                execution: Execution::parse(exec[i].as_deref().unwrap_or("executed")),
                target_repo: repo[i].clone(),
                target_kind: kind[i].clone(),
                target_number: num[i],
                target_comment_id: cid[i],
                target_url: url[i].clone(),
                target_source: tsrc[i].clone(),
                temporary_id: tmp[i].clone(),
                actor: actor[i].clone(),
                run_actor: run_actor[i].clone(),
                created_at: created[i],
                payload_hash: ph[i].clone().unwrap_or_default(),
                payload: payload[i].clone().unwrap_or_default(),
                expected_state: exp[i].clone().unwrap_or_else(|| "{}".into()),
                before_state: before[i].clone(),
                after_state: after[i].clone(),
                staged: staged[i].unwrap_or(false),
                source_format: fmt[i].clone().unwrap_or_default(),
                source_file: file[i].clone().unwrap_or_default(),
                source_line: line[i].unwrap_or(0),
            });
        }
    }
    Ok(out)
}
