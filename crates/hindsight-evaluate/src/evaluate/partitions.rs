//! A cluster's evaluation, shared by the client and the executors through a staging folder
//! in the dataset ([`STAGING`]; every executor reads the dataset at the same path). The
//! client writes each band's outputs there (`bands::Parts`) and the plan (`plan.json`: the
//! bands' repository ranges, the snapshot's time, whether the study has task records); an
//! executor judging band `k` reads its part and its repositories' captures alone, and writes
//! its tables as `result-k.arrow`; the client reads the results in band order. No message
//! between them grows with the study: an executor answers with its band's number of rows.

use std::path::{Path, PathBuf};

use arrow::record_batch::RecordBatch;
use serde::{Deserialize, Serialize};

use crate::dataset::manifest::Manifest;
use crate::dataset::stream::RepoRange;
use crate::error::{Error, Result};

/// The staging folder of a cluster's evaluation, in the dataset (removed when it ends).
pub const STAGING: &str = ".cluster";

/// The plan the executors read: what judging a band needs beyond the band's own part.
#[derive(Serialize, Deserialize)]
pub(crate) struct Plan {
    pub(crate) captured_at: String,
    pub(crate) tasks: bool,
    /// Each band's repositories: from (included), until (excluded; absent: to the end).
    ranges: Vec<(Option<String>, Option<Option<String>>)>,
}

impl Plan {
    pub(crate) fn new(manifest: &Manifest, ranges: Vec<RepoRange>) -> Plan {
        let ranges = ranges.into_iter().map(|r| (r.from, r.until)).collect();
        Plan { captured_at: manifest.captured_at.clone(), tasks: manifest.tables.contains_key("tasks"), ranges }
    }

    pub(crate) fn save(&self, staging: &Path) -> Result<()> {
        let p = staging.join("plan.json");
        std::fs::write(&p, serde_json::to_vec(self)?).map_err(|e| Error::io(&p, e))
    }

    pub(crate) fn load(staging: &Path) -> Result<Plan> {
        let p = staging.join("plan.json");
        let text = std::fs::read(&p).map_err(|e| Error::io(&p, e))?;
        serde_json::from_slice(&text).map_err(|e| Error::Dataset { path: p, message: format!("not a plan this hindsight wrote: {e}") })
    }

    /// Band `k`'s repositories.
    pub(crate) fn range(&self, staging: &Path, k: usize) -> Result<RepoRange> {
        let (from, until) = self.ranges.get(k).cloned().ok_or_else(|| Error::Dataset {
            path: staging.join("plan.json"),
            message: format!("no band {k}: the plan has {}", self.ranges.len()),
        })?;
        Ok(RepoRange { from, until })
    }
}

fn result_path(staging: &Path, k: usize) -> PathBuf {
    staging.join(band_files(k).1)
}

/// The files of the staging folder that judging band `k` reads (the plan, and the band's
/// part of the outputs, absent when it has none) and the one it writes (its result): an
/// executor that shares no folder with the client fetches the first and sends the second.
pub fn band_files(k: usize) -> ([String; 2], String) {
    (["plan.json".into(), format!("{}.arrow", super::bands::band_part(k))], format!("result-{k}.arrow"))
}

/// Band `k`'s tables written to the staging folder: beside, then renamed into place, so a
/// result the client finds is whole (a band run twice writes the same bytes twice).
pub(crate) fn write_result(staging: &Path, k: usize, tables: &[(&str, RecordBatch)]) -> Result<()> {
    let p = result_path(staging, k);
    let beside = staging.join(format!(".result-{k}-{}.arrow", std::process::id()));
    std::fs::write(&beside, encode(tables).map_err(|e| Error::Dataset { path: p.clone(), message: e.to_string() })?).map_err(|e| Error::io(&beside, e))?;
    std::fs::rename(&beside, &p).map_err(|e| Error::io(&p, e))
}

/// Band `k`'s tables, as an executor of `source` wrote them.
pub(crate) fn read_result(staging: &Path, k: usize, source: &str) -> Result<Vec<(String, RecordBatch)>> {
    let p = result_path(staging, k);
    let blob = std::fs::read(&p).map_err(|e| Error::Dataset { path: p.clone(), message: format!("{source} left no result for band {k}: {e}") })?;
    decode(&blob).map_err(|message| Error::Dataset { path: p, message: format!("what {source} wrote: {message}") })
}

/// Tables as one blob: for each, its name's length (u32, little-endian) and the name, then
/// the length of its Arrow IPC stream (u64) and the stream, compressed with zstd.
fn encode(tables: &[(&str, RecordBatch)]) -> std::result::Result<Vec<u8>, arrow::error::ArrowError> {
    let mut blob = Vec::new();
    for (name, batch) in tables {
        let options = arrow::ipc::writer::IpcWriteOptions::default().try_with_compression(Some(arrow::ipc::CompressionType::ZSTD))?;
        let mut stream = arrow::ipc::writer::StreamWriter::try_new_with_options(Vec::new(), &batch.schema(), options)?;
        stream.write(batch)?;
        stream.finish()?;
        let bytes = stream.into_inner()?;
        blob.extend((name.len() as u32).to_le_bytes());
        blob.extend(name.as_bytes());
        blob.extend((bytes.len() as u64).to_le_bytes());
        blob.extend(bytes);
    }
    Ok(blob)
}

/// A blob's tables, by name (`encode`'s inverse).
fn decode(mut blob: &[u8]) -> std::result::Result<Vec<(String, RecordBatch)>, String> {
    fn take<'b>(blob: &mut &'b [u8], n: usize) -> std::result::Result<&'b [u8], String> {
        if blob.len() < n {
            return Err(format!("cut short ({} bytes left, {n} expected)", blob.len()));
        }
        let (head, rest) = blob.split_at(n);
        *blob = rest;
        Ok(head)
    }
    let mut tables = Vec::new();
    while !blob.is_empty() {
        let n = u32::from_le_bytes(take(&mut blob, 4)?.try_into().map_err(|_| "a name's length")?) as usize;
        let name = String::from_utf8(take(&mut blob, n)?.to_vec()).map_err(|_| "a table's name is not UTF-8")?;
        let n = u64::from_le_bytes(take(&mut blob, 8)?.try_into().map_err(|_| "a table's length")?);
        let bytes = take(&mut blob, usize::try_from(n).map_err(|_| "a table's length")?)?;
        let reader = arrow::ipc::reader::StreamReader::try_new(std::io::Cursor::new(bytes), None).map_err(|e| format!("{name}: {e}"))?;
        let schema = reader.schema();
        let batches = reader.collect::<std::result::Result<Vec<_>, _>>().map_err(|e| format!("{name}: {e}"))?;
        let batch = arrow::compute::concat_batches(&schema, &batches).map_err(|e| format!("{name}: {e}"))?;
        tables.push((name, batch));
    }
    Ok(tables)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A band's tables come back from the staging folder as they were written, and a result
    /// that is cut short or absent is an error naming the band and the cluster.
    #[test]
    fn a_bands_result_comes_back_whole_or_is_an_error() {
        let tmp = tempfile::tempdir().unwrap();
        let batch = RecordBatch::try_from_iter([("a", std::sync::Arc::new(arrow::array::Int64Array::from(vec![1, 2, 3])) as arrow::array::ArrayRef)]).unwrap();
        write_result(tmp.path(), 2, &[("outcomes", batch.clone()), ("pr_risk", batch.slice(1, 2))]).unwrap();
        let back = read_result(tmp.path(), 2, "the cluster at df://h:1").unwrap();
        assert_eq!(back.iter().map(|(n, b)| (n.as_str(), b.num_rows())).collect::<Vec<_>>(), vec![("outcomes", 3), ("pr_risk", 2)]);
        assert_eq!(back[0].1, batch);
        let e = read_result(tmp.path(), 1, "the cluster at df://h:1").unwrap_err().to_string();
        assert!(e.contains("result-1.arrow") && e.contains("the cluster at df://h:1 left no result for band 1"), "{e}");
        let whole = std::fs::read(result_path(tmp.path(), 2)).unwrap();
        std::fs::write(result_path(tmp.path(), 2), &whole[..whole.len() - 9]).unwrap();
        let e = read_result(tmp.path(), 2, "the cluster at df://h:1").unwrap_err().to_string();
        assert!(e.contains("what the cluster at df://h:1 wrote"), "{e}");
    }
}
