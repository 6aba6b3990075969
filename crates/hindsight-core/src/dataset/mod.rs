//! The dataset directory: Parquet tables plus `manifest.json`. Files are written under a
//! temporary name and renamed when complete, so a killed run leaves no half dataset.

pub mod dictionary;
pub mod manifest;
pub mod pin;
pub mod read;
pub mod staging;
pub mod stream;
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
pub const ROW_GROUP_ROWS: usize = 64 * 1024;

fn writer_properties() -> WriterProperties {
    // zstd level 3: about a third of snappy's size on JSON-heavy columns here, at similar
    // write speed (level 1 measured ~5% larger for ~5-10% faster convert, within noise);
    // dictionary encoding stays on for the many repeated strings, but not for response
    // bodies, which never repeat: the dictionary would only be built and thrown away.
    WriterProperties::builder()
        .set_compression(Compression::ZSTD(ZstdLevel::try_new(3).unwrap_or_default()))
        .set_column_dictionary_enabled(parquet::schema::types::ColumnPath::from("body"), false)
        .set_max_row_group_row_count(Some(ROW_GROUP_ROWS))
        .build()
}

/// Write `table` to `dir/<name>.parquet` via a temporary file.
pub fn write_table(dir: &Path, table: &Table) -> Result<Written> {
    write_batch(dir, table.name, &table.to_batch()?)
}

/// Write a record batch to `dir/<name>.parquet` via a temporary file: what `ArrowWriter`
/// would write, byte for byte, with every (row group, column) chunk encoded in parallel.
pub fn write_batch(dir: &Path, name: &str, batch: &RecordBatch) -> Result<Written> {
    let mut w = TableWriter::create(dir, name, batch.schema())?;
    w.write(batch)?;
    w.finish()
}

/// A table written as its rows arrive: full row groups are encoded (row groups and columns
/// in parallel) and appended at once, so memory holds the rows of a write, not the table.
/// The bytes do not depend on how the rows were split between writes.
pub struct TableWriter {
    name: String,
    path: PathBuf,
    tmp: PathBuf,
    schema: arrow::datatypes::SchemaRef,
    file: Option<(parquet::file::writer::SerializedFileWriter<Hashed>, parquet::arrow::arrow_writer::ArrowRowGroupWriterFactory)>,
    /// The file's size and digest, once it is closed.
    written: Option<(u64, String)>,
    pending: Vec<RecordBatch>,
    pending_rows: usize,
    /// The text bytes of the pending rows, when groups are also cut by bytes.
    pending_bytes: usize,
    /// A row group is closed past this many text bytes too (see `with_group_bytes`).
    group_bytes: Option<usize>,
    groups: usize,
    rows: usize,
}

impl TableWriter {
    pub fn create(dir: &Path, name: &str, schema: arrow::datatypes::SchemaRef) -> Result<TableWriter> {
        // Every column's meaning travels with the file (field metadata `description`).
        let schema = dictionary::annotate(name, schema);
        let path = dir.join(format!("{name}.parquet"));
        let tmp = dir.join(format!(".{name}.parquet.tmp"));
        let f = File::create(&tmp).map_err(|e| Error::io(&tmp, e))?;
        let w = ArrowWriter::try_new(Hashed::new(f), schema.clone(), Some(writer_properties()))?;
        let file = Some(w.into_serialized_writer()?);
        Ok(TableWriter {
            name: name.to_string(),
            path,
            tmp,
            schema,
            file,
            written: None,
            pending: Vec::new(),
            pending_rows: 0,
            pending_bytes: 0,
            group_bytes: None,
            groups: 0,
            rows: 0,
        })
    }

    /// Also close a row group once its rows hold `bytes` of text (the row that reaches it
    /// is the group's last), for tables of large rows: a group's column is compressed on one
    /// core, so smaller groups keep every core busy, and memory stays bounded however large
    /// the rows. Where groups end depends on the rows alone, not on how they were written.
    pub fn with_group_bytes(mut self, bytes: usize) -> TableWriter {
        self.group_bytes = Some(bytes);
        self
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        self.write_rows(batch).map_err(|e| self.failed(e))
    }

    /// Rows already cut into row groups, each `ROW_GROUP_ROWS` long but the last: the full
    /// groups are encoded side by side at once. The bytes are those of writing them one by one.
    pub fn write_groups(&mut self, groups: &[RecordBatch]) -> Result<()> {
        let full = groups.iter().take_while(|g| g.num_rows() == ROW_GROUP_ROWS).count();
        if self.pending_rows > 0 || groups.len() > full + 1 {
            return groups.iter().try_for_each(|g| self.write(g));
        }
        self.rows += full * ROW_GROUP_ROWS;
        self.append(&groups[..full]).map_err(|e| self.failed(e))?;
        groups[full..].iter().try_for_each(|g| self.write(g))
    }

    /// An encoder's or the disk's error, with the file it happened in (a full disk shows
    /// up here).
    fn failed(&self, e: Error) -> Error {
        match e {
            Error::Parquet(_) | Error::Arrow(_) => Error::Dataset { path: self.tmp.clone(), message: format!("writing table `{}` failed: {e}", self.name) },
            e => e,
        }
    }

    fn write_rows(&mut self, batch: &RecordBatch) -> Result<()> {
        if batch.num_rows() == 0 {
            return Ok(());
        }
        if let Some(limit) = self.group_bytes {
            return self.write_rows_by_bytes(batch, limit);
        }
        self.rows += batch.num_rows();
        self.pending_rows += batch.num_rows();
        self.pending.push(batch.clone());
        if self.pending_rows >= ROW_GROUP_ROWS {
            let all = self.take_pending()?;
            let full = all.num_rows() / ROW_GROUP_ROWS * ROW_GROUP_ROWS;
            let groups: Vec<RecordBatch> = (0..full).step_by(ROW_GROUP_ROWS).map(|off| all.slice(off, ROW_GROUP_ROWS)).collect();
            self.append(&groups)?;
            if full < all.num_rows() {
                self.pending_rows = all.num_rows() - full;
                self.pending.push(all.slice(full, self.pending_rows));
            }
        }
        Ok(())
    }

    /// `write_rows` for groups closed at `ROW_GROUP_ROWS` rows or `limit` text bytes.
    fn write_rows_by_bytes(&mut self, batch: &RecordBatch, limit: usize) -> Result<()> {
        let weights = text_bytes(batch);
        self.rows += batch.num_rows();
        let (mut start, mut groups) = (0usize, Vec::new());
        for (k, w) in weights.into_iter().enumerate() {
            self.pending_rows += 1;
            self.pending_bytes += w;
            if self.pending_rows == ROW_GROUP_ROWS || self.pending_bytes >= limit {
                self.pending.push(batch.slice(start, k + 1 - start));
                groups.push(self.take_pending()?);
                start = k + 1;
            }
        }
        if start < batch.num_rows() {
            self.pending.push(batch.slice(start, batch.num_rows() - start));
        }
        self.append(&groups)
    }

    /// The pending rows as one batch (copied only when they came in pieces).
    fn take_pending(&mut self) -> Result<RecordBatch> {
        self.pending_rows = 0;
        self.pending_bytes = 0;
        let all = match self.pending.len() {
            1 => self.pending.remove(0),
            _ => arrow::compute::concat_batches(&self.schema, &self.pending)?,
        };
        self.pending.clear();
        Ok(all)
    }

    /// Encode row groups in parallel and append them in order.
    fn append(&mut self, parts: &[RecordBatch]) -> Result<()> {
        use parquet::arrow::arrow_writer::ArrowColumnChunk;
        use rayon::prelude::*;
        let Some((file, factory)) = self.file.as_mut() else { return Ok(()) };
        let (schema, first) = (&self.schema, self.groups);
        let encoded: Vec<Vec<ArrowColumnChunk>> =
            parts.par_iter().enumerate().map(|(i, p)| encode_group(factory, schema, first + i, p)).collect::<Result<_>>()?;
        for chunks in encoded {
            let mut rg = file.next_row_group()?;
            for c in chunks {
                c.append_to_row_group(&mut rg)?;
            }
            rg.close()?;
        }
        self.groups += parts.len();
        Ok(())
    }

    pub fn finish(mut self) -> Result<Written> {
        match self.close() {
            Ok(()) => {}
            Err(e) => return Err(self.failed(e)),
        }
        std::fs::rename(&self.tmp, &self.path).map_err(|e| Error::io(&self.path, e))?;
        match self.written.take() {
            Some((bytes, sha256)) => Ok(Written { rows: self.rows, bytes, sha256 }),
            None => describe(&self.path, self.rows),
        }
    }

    fn close(&mut self) -> Result<()> {
        if self.rows == 0 {
            // What `ArrowWriter` writes for no rows.
            self.file = None;
            let f = File::create(&self.tmp).map_err(|e| Error::io(&self.tmp, e))?;
            let mut w = ArrowWriter::try_new(Hashed::new(f), self.schema.clone(), Some(writer_properties()))?;
            w.write(&RecordBatch::new_empty(self.schema.clone()))?;
            self.written = Some(w.into_inner()?.finish());
        } else {
            if self.pending_rows > 0 {
                let last = self.take_pending()?;
                self.append(&[last])?;
            }
            if let Some((file, _)) = self.file.take() {
                self.written = Some(file.into_inner()?.finish());
            }
        }
        Ok(())
    }
}

/// A table's file, hashed as its bytes are written: the manifest's digest needs no second
/// read of the file (at the end of convert, the largest table's read and hash was one
/// core's work while the others waited).
pub struct Hashed {
    file: File,
    sha: sha2::Sha256,
    bytes: u64,
}

impl Hashed {
    pub fn new(file: File) -> Hashed {
        use sha2::Digest;
        Hashed { file, sha: sha2::Sha256::new(), bytes: 0 }
    }

    /// The bytes written and their SHA-256, as hex.
    pub fn finish(self) -> (u64, String) {
        use sha2::Digest;
        (self.bytes, hex::encode(self.sha.finalize()))
    }
}

impl std::io::Write for Hashed {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        use sha2::Digest;
        let n = self.file.write(buf)?;
        self.sha.update(&buf[..n]);
        self.bytes += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

/// Per row of `batch`, the bytes of its text columns' values.
fn text_bytes(batch: &RecordBatch) -> Vec<usize> {
    use arrow::array::{Array, StringArray};
    let mut w = vec![0usize; batch.num_rows()];
    for col in batch.columns() {
        if let Some(a) = col.as_any().downcast_ref::<StringArray>() {
            for (k, pair) in a.value_offsets().windows(2).enumerate() {
                w[k] += (pair[1] - pair[0]).max(0) as usize;
            }
        }
    }
    w
}

/// One row group's column chunks, encoded and compressed in parallel.
fn encode_group(
    factory: &parquet::arrow::arrow_writer::ArrowRowGroupWriterFactory,
    schema: &arrow::datatypes::SchemaRef,
    g: usize,
    part: &RecordBatch,
) -> Result<Vec<parquet::arrow::arrow_writer::ArrowColumnChunk>> {
    use parquet::arrow::arrow_writer::{compute_leaves, ArrowColumnChunk};
    use rayon::prelude::*;
    let writers = factory.create_column_writers(g)?;
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
}

pub(crate) fn describe(path: &Path, rows: usize) -> Result<Written> {
    use sha2::Digest;
    // Hashed as it is read: a table can be larger than memory should hold.
    let mut f = File::open(path).map_err(|e| Error::io(path, e))?;
    let mut hasher = sha2::Sha256::new();
    let bytes = std::io::copy(&mut f, &mut hasher).map_err(|e| Error::io(path, e))?;
    Ok(Written { rows, bytes, sha256: hex::encode(hasher.finalize()) })
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

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{Int64Array, StringArray};
    use std::sync::Arc;

    /// `whole` written through `w` in pieces of the `sizes`, over and over, then finished.
    fn in_pieces(mut w: TableWriter, whole: &RecordBatch, sizes: &[usize]) -> Written {
        let mut off = 0;
        for size in sizes.iter().cycle() {
            if off >= whole.num_rows() {
                break;
            }
            let len = (*size).min(whole.num_rows() - off);
            w.write(&whole.slice(off, len)).unwrap();
            off += len;
        }
        w.finish().unwrap()
    }

    /// Rows written in odd-sized pieces make the same file as one batch written whole: the
    /// row groups are cut at the same rows whatever the pieces.
    #[test]
    fn rows_written_piece_by_piece_make_the_bytes_of_one_batch() {
        let n = ROW_GROUP_ROWS * 2 + 1234;
        let schema = Arc::new(arrow::datatypes::Schema::new(vec![
            arrow::datatypes::Field::new("n", arrow::datatypes::DataType::Int64, true),
            arrow::datatypes::Field::new("s", arrow::datatypes::DataType::Utf8, true),
        ]));
        let whole = RecordBatch::try_new(
            schema.clone(),
            vec![Arc::new(Int64Array::from_iter_values(0..n as i64)), Arc::new(StringArray::from_iter_values((0..n).map(|i| format!("row {}", i % 977))))],
        )
        .unwrap();
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        std::fs::create_dir_all(&a).unwrap();
        std::fs::create_dir_all(&b).unwrap();
        let wa = write_batch(&a, "t", &whole).unwrap();
        let wb = in_pieces(TableWriter::create(&b, "t", schema.clone()).unwrap(), &whole, &[1, 7_777, 65_535, 3, 40_000]);
        assert_eq!((wa.rows, &wa.sha256), (wb.rows, &wb.sha256));
        // And both are what the plain, one-core writer makes.
        let plain = dir.path().join("plain.parquet");
        let mut pw = ArrowWriter::try_new(File::create(&plain).unwrap(), schema.clone(), Some(writer_properties())).unwrap();
        pw.write(&whole).unwrap();
        pw.close().unwrap();
        assert_eq!(std::fs::read(&plain).unwrap(), std::fs::read(a.join("t.parquet")).unwrap());
        assert_eq!(std::fs::read(a.join("t.parquet")).unwrap(), std::fs::read(b.join("t.parquet")).unwrap());
        // And a table that never gets a row.
        let empty_a = write_batch(&a, "e", &RecordBatch::new_empty(schema.clone())).unwrap();
        let empty_b = TableWriter::create(&b, "e", schema).unwrap().finish().unwrap();
        assert_eq!(empty_a.sha256, empty_b.sha256);
        // The digest and size taken as the bytes went out are those of the file on disk.
        for (w, p) in [(&wa, a.join("t.parquet")), (&wb, b.join("t.parquet")), (&empty_a, a.join("e.parquet")), (&empty_b, b.join("e.parquet"))] {
            let read = describe(&p, w.rows).unwrap();
            assert_eq!((w.bytes, &w.sha256), (read.bytes, &read.sha256), "{}", p.display());
        }
    }

    /// With groups also closed by bytes, the pieces do not move where groups end either:
    /// writing rows of varied length whole or in odd pieces gives the same file, and every
    /// group but the last holds at least the limit's bytes, reached by its last row.
    #[test]
    fn groups_closed_by_bytes_end_at_the_same_rows_whatever_the_pieces() {
        let n = 20_000usize;
        let limit = 300_000;
        let schema = Arc::new(arrow::datatypes::Schema::new(vec![arrow::datatypes::Field::new("body", arrow::datatypes::DataType::Utf8, true)]));
        let text = |i: usize| "x".repeat(i * 7919 % 97);
        let whole = RecordBatch::try_new(schema.clone(), vec![Arc::new(StringArray::from_iter_values((0..n).map(text)))]).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let mut wa = TableWriter::create(dir.path(), "a", schema.clone()).unwrap().with_group_bytes(limit);
        wa.write(&whole).unwrap();
        let wa = wa.finish().unwrap();
        let wb = in_pieces(TableWriter::create(dir.path(), "b", schema.clone()).unwrap().with_group_bytes(limit), &whole, &[1, 3_333, 17, 9_000]);
        assert_eq!((wa.rows, &wa.sha256), (wb.rows, &wb.sha256));
        let meta = parquet::file::reader::FileReader::metadata(&parquet::file::serialized_reader::SerializedFileReader::new(File::open(dir.path().join("a.parquet")).unwrap()).unwrap()).clone();
        let sizes: Vec<usize> = (0..meta.num_row_groups()).map(|g| meta.row_group(g).num_rows() as usize).collect();
        assert!(sizes.len() > 2, "{sizes:?}");
        let mut first = 0;
        for (g, rows) in sizes.iter().enumerate() {
            let bytes: usize = (first..first + rows).map(|i| text(i).len()).sum();
            let without_last: usize = bytes - text(first + rows - 1).len();
            if g + 1 < sizes.len() {
                assert!(bytes >= limit && without_last < limit, "group {g}: {bytes} bytes");
            }
            first += rows;
        }
        assert_eq!(first, n);
    }
}
