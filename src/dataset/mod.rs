//! The dataset directory: Parquet tables plus `manifest.json`. Files are written under a
//! temporary name and renamed when complete, so a killed run leaves no half dataset.

pub mod manifest;
pub mod read;
pub mod verify;

use std::fs::File;
use std::path::{Path, PathBuf};

use arrow::record_batch::RecordBatch;
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::WriterProperties;

use crate::error::{Error, Result};
use crate::table::Table;

/// Facts about a written table, for the manifest.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Written {
    pub rows: usize,
    pub bytes: u64,
    pub sha256: String,
}

/// Rows per row group.
const ROW_GROUP_ROWS: usize = 64 * 1024;

fn writer_properties() -> WriterProperties {
    // zstd level 3: about a third of snappy's size on JSON-heavy columns here, at similar
    // write speed; dictionary encoding stays on for the many repeated strings.
    WriterProperties::builder()
        .set_compression(Compression::ZSTD(ZstdLevel::try_new(3).unwrap_or_default()))
        .set_max_row_group_row_count(Some(ROW_GROUP_ROWS))
        .build()
}

/// Write `table` to `dir/<name>.parquet` via a temporary file.
pub fn write_table(dir: &Path, table: &Table) -> Result<Written> {
    write_batch(dir, table.name, &table.to_batch()?)
}

/// Write a record batch to `dir/<name>.parquet` via a temporary file.
pub fn write_batch(dir: &Path, name: &str, batch: &RecordBatch) -> Result<Written> {
    let path = dir.join(format!("{name}.parquet"));
    let tmp = dir.join(format!(".{name}.parquet.tmp"));
    {
        let f = File::create(&tmp).map_err(|e| Error::io(&tmp, e))?;
        let mut w = ArrowWriter::try_new(f, batch.schema(), Some(writer_properties()))?;
        if batch.num_rows() == 0 {
            w.write(batch)?;
            w.close()?;
        } else {
            write_parallel(w, batch)?;
        }
    }
    std::fs::rename(&tmp, &path).map_err(|e| Error::io(&path, e))?;
    describe(&path, batch.num_rows())
}

/// What `ArrowWriter::write` + `close` would write, byte for byte, with every (row group,
/// column) chunk encoded and compressed in parallel: the writer alone would use one core.
fn write_parallel(w: ArrowWriter<File>, batch: &RecordBatch) -> Result<()> {
    use parquet::arrow::arrow_writer::{compute_leaves, ArrowColumnChunk};
    use rayon::prelude::*;
    let (mut file, factory) = w.into_serialized_writer()?;
    let schema = batch.schema();
    let n = batch.num_rows();
    let groups: Vec<(usize, RecordBatch)> =
        (0..n).step_by(ROW_GROUP_ROWS).enumerate().map(|(g, off)| (g, batch.slice(off, ROW_GROUP_ROWS.min(n - off)))).collect();
    let encoded: Vec<Vec<ArrowColumnChunk>> = groups
        .par_iter()
        .map(|(g, part)| -> Result<Vec<ArrowColumnChunk>> {
            let writers = factory.create_column_writers(*g)?;
            let mut leaves = Vec::new();
            for (field, col) in schema.fields().iter().zip(part.columns()) {
                leaves.extend(compute_leaves(field, col)?);
            }
            writers
                .into_iter()
                .zip(leaves)
                .collect::<Vec<_>>()
                .into_par_iter()
                .map(|(mut w, leaf)| -> Result<ArrowColumnChunk> {
                    w.write(&leaf)?;
                    Ok(w.close()?)
                })
                .collect()
        })
        .collect::<Result<_>>()?;
    for chunks in encoded {
        let mut rg = file.next_row_group()?;
        for c in chunks {
            c.append_to_row_group(&mut rg)?;
        }
        rg.close()?;
    }
    file.close()?;
    Ok(())
}

pub fn describe(path: &Path, rows: usize) -> Result<Written> {
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    Ok(Written { rows, bytes: bytes.len() as u64, sha256: crate::json::sha256_hex(&bytes) })
}

/// Write `text` to `path` atomically.
pub fn write_text(path: &Path, text: &str) -> Result<()> {
    let tmp = tmp_name(path);
    std::fs::write(&tmp, text).map_err(|e| Error::io(&tmp, e))?;
    std::fs::rename(&tmp, path).map_err(|e| Error::io(path, e))
}

fn tmp_name(path: &Path) -> PathBuf {
    let name = path.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
    path.with_file_name(format!(".{name}.tmp"))
}

/// A staging directory beside `out`; `commit` swaps it into place.
pub struct Staging {
    pub dir: PathBuf,
    out: PathBuf,
}

impl Staging {
    pub fn new(out: &Path) -> Result<Staging> {
        let parent = match out.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        std::fs::create_dir_all(&parent).map_err(|e| Error::io(&parent, e))?;
        let name = out.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_else(|| "dataset".into());
        let dir = parent.join(format!(".{name}.partial-{}", std::process::id()));
        if dir.exists() {
            std::fs::remove_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
        }
        std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
        Ok(Staging { dir, out: out.to_path_buf() })
    }

    pub fn commit(self) -> Result<()> {
        if self.out.exists() {
            let manifest = self.out.join("manifest.json");
            let empty = std::fs::read_dir(&self.out).map(|mut d| d.next().is_none()).unwrap_or(false);
            if !manifest.exists() && !empty {
                return Err(Error::Dataset {
                    path: self.out.clone(),
                    message: "exists and is not a hindsight dataset (no manifest.json); refusing to replace it".into(),
                });
            }
            std::fs::remove_dir_all(&self.out).map_err(|e| Error::io(&self.out, e))?;
        }
        std::fs::rename(&self.dir, &self.out).map_err(|e| Error::io(&self.out, e))
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        if self.dir.exists() {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}
