//! `hindsight export --sqlite FILE`: the dataset as one SQLite database, for datasette, the
//! `sqlite3` shell, or any program that reads SQLite. Every table of the manifest becomes a
//! table of the same name and columns, its rows in the Parquet file's order (rowid 1, 2, ...);
//! `hindsight_manifest` holds manifest.json, a row per top-level key, and `hindsight_columns`
//! says how each column was stored ([`columns`]). The file is written by hindsight itself
//! ([`sqlite`]), so no SQLite library is needed, and the same dataset gives the same bytes.

mod columns;
mod insights;
mod otlp;
mod sqlite;

pub use insights::insights;
pub use otlp::otlp;

use std::fs::File;
use std::io::{BufWriter, Seek, Write};
use std::path::{Path, PathBuf};

use arrow::json::writer::EncoderOptions;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

use crate::dataset::manifest::Manifest;
use crate::{Error, Result};
use columns::{mapping, prepare, Values};
use sqlite::{Database, Declared, Record};

pub use columns::TABLE as TYPE_MAPPING;

/// The table holding manifest.json.
const MANIFEST_TABLE: &str = "hindsight_manifest";
/// The table saying how each column was stored.
const COLUMNS_TABLE: &str = "hindsight_columns";

/// What `export --sqlite` wrote.
pub struct Exported {
    /// Each dataset table with its rows, in the order written.
    pub tables: Vec<(String, u64)>,
    pub bytes: u64,
}

/// One column's row of `hindsight_columns`.
struct ColumnNote {
    table: String,
    column: String,
    parquet: String,
    declared: Declared,
    conversion: &'static str,
}

/// Write `dataset` as the SQLite database `file`; an existing `file` is replaced only with
/// `force`. The database is written beside it and renamed over it when complete, so `file`
/// is never half-written.
pub fn sqlite(dataset: &Path, file: &Path, force: bool) -> Result<Exported> {
    check_target("sqlite", file, dataset, force)?;
    // The version of the dataset there is now, whatever a writer swaps in while it is read
    // (`dataset::pin`); without links, the files as they are.
    let pinned = crate::dataset::pin::pin(dataset)?;
    let (manifest, dir) = match &pinned {
        Some(p) => (p.manifest.clone(), p.dir.clone()),
        None => (Manifest::load(dataset)?, dataset.to_path_buf()),
    };
    let from = Source { dir, shown: dataset };
    if let Some(t) = manifest.tables.keys().find(|t| [MANIFEST_TABLE, COLUMNS_TABLE].contains(&t.as_str()) || t.to_ascii_lowercase().starts_with("sqlite_")) {
        return Err(Error::dataset(dataset, format!("has a table named `{t}`, a name the SQLite export keeps for itself or SQLite reserves")));
    }
    let tmp = beside(file);
    if std::fs::symlink_metadata(&tmp).is_ok() {
        std::fs::remove_file(&tmp).map_err(|e| Error::io(&tmp, e))?;
    }
    let out = File::options().write(true).create_new(true).open(&tmp).map_err(|e| Error::io(&tmp, e))?;
    let written = write_database(&from, &manifest, BufWriter::new(out), file).and_then(|e| {
        std::fs::rename(&tmp, file).map_err(|err| Error::io(file, err))?;
        Ok(e)
    });
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

/// Where the tables are read (a pinned version of the dataset), and the dataset's path as the
/// researcher gave it, which errors name.
struct Source<'a> {
    dir: PathBuf,
    shown: &'a Path,
}

impl Source<'_> {
    /// A file of the dataset: where it is read, and its name in errors.
    fn file(&self, name: &str) -> (PathBuf, PathBuf) {
        (self.dir.join(name), self.shown.join(name))
    }
}

/// An export's target (`--FLAG FILE`), checked before any work: a place that can be written
/// outside the dataset, replaced only with `force`.
fn check_target(flag: &str, file: &Path, dataset: &Path, force: bool) -> Result<()> {
    if let Some(why) = crate::output::unwritable(file, Some(dataset)) {
        return Err(Error::usage(format!("export --{flag}: {why}")));
    }
    if file.exists() && !force {
        return Err(Error::usage(format!("export --{flag} {}: already exists; --force replaces it", file.display())));
    }
    Ok(())
}

/// `bytes` written [`beside`] `file`, synced, then renamed over it: `file` is never
/// half-written.
fn write_whole(file: &Path, bytes: &[u8]) -> Result<()> {
    let tmp = beside(file);
    let written = File::create(&tmp).and_then(|mut f| f.write_all(bytes).and_then(|()| f.sync_all())).and_then(|()| std::fs::rename(&tmp, file));
    written.map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        Error::io(file, e)
    })
}

/// Where an export is written before it is renamed: a hidden file beside `file`.
fn beside(file: &Path) -> PathBuf {
    let name = file.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_else(|| "export.db".into());
    file.with_file_name(format!(".{name}.tmp"))
}

/// Every table, the manifest and the column notes written into `out`, and the file synced.
fn write_database(from: &Source, manifest: &Manifest, out: BufWriter<File>, file: &Path) -> Result<Exported> {
    let io = |e| Error::io(file, e);
    let mut db = Database::create(out).map_err(io)?;
    let mut tables = Vec::new();
    let mut notes = Vec::new();
    for table in manifest.tables.keys() {
        let rows = export_table(&mut db, from, table, &mut notes, file)?;
        tables.push((table.clone(), rows));
    }
    manifest_table(&mut db, from, file)?;
    columns_table(&mut db, &notes, file)?;
    let (out, pages) = db.finish().map_err(io)?;
    let out = out.into_inner().map_err(|e| io(e.into_error()))?;
    out.sync_all().map_err(io)?;
    Ok(Exported { tables, bytes: u64::from(pages) * 4096 })
}

/// `table`'s Parquet file streamed into a table of the database, a record batch at a time.
fn export_table<W: Write + Seek>(db: &mut Database<W>, from: &Source, table: &str, notes: &mut Vec<ColumnNote>, file: &Path) -> Result<u64> {
    let (read, path) = from.file(&format!("{table}.parquet"));
    let f = File::open(&read).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => Error::dataset(&path, "recorded in manifest.json, missing on disk (see `hindsight verify`)"),
        _ => Error::io(&path, e),
    })?;
    let reader = ParquetRecordBatchReaderBuilder::try_new(f).and_then(|b| b.build()).map_err(|e| Error::dataset(&path, e.to_string()))?;
    let schema = arrow::record_batch::RecordBatchReader::schema(&reader);
    let mut columns = Vec::new();
    let first_note = notes.len();
    for field in schema.fields() {
        let m = mapping(field.data_type());
        let folded = field.name().to_ascii_lowercase();
        if columns.iter().any(|(c, _): &(String, Declared)| c.to_ascii_lowercase() == folded) {
            return Err(Error::dataset(&path, format!("has two columns named `{}`, told apart only by case, which SQLite does not do", field.name())));
        }
        columns.push((field.name().clone(), m.declared));
        notes.push(ColumnNote {
            table: table.into(),
            column: field.name().clone(),
            parquet: field.data_type().to_string(),
            declared: m.declared,
            conversion: m.conversion,
        });
    }
    // SQLite refuses a table of no columns, or of more than 2000 (SQLITE_MAX_COLUMN).
    if columns.is_empty() || columns.len() > 2000 {
        return Err(Error::dataset(&path, format!("has {} columns; a SQLite table has 1 to 2000", columns.len())));
    }
    let json = EncoderOptions::default().with_explicit_nulls(true);
    let writing = |e: std::io::Error| Error::while_doing(format!("writing table `{table}` into {}", file.display()), e);
    let mut t = db.table(table, &columns);
    let mut r = Record::default();
    for batch in reader {
        let batch = batch.map_err(|e| Error::dataset(&path, e.to_string()))?;
        let schema = batch.schema();
        let in_column = |k: usize, e: arrow::error::ArrowError| Error::dataset(&path, format!("table `{table}`, column `{}`: {e}", schema.field(k).name()));
        let prepared = batch.columns().iter().enumerate().map(|(k, a)| prepare(a).map_err(|e| in_column(k, e))).collect::<Result<Vec<_>>>()?;
        let mut values = Vec::with_capacity(prepared.len());
        for (k, a) in prepared.iter().enumerate() {
            values.push(Values::new(a, &schema.fields()[k], &json).map_err(|e| in_column(k, e))?);
        }
        for i in 0..batch.num_rows() {
            r.clear();
            for (k, v) in values.iter_mut().enumerate() {
                v.put(i, &mut r).map_err(|e| in_column(k, e))?;
            }
            t.push(&r).map_err(writing)?;
        }
        for (k, _) in values.iter().enumerate().filter(|(_, v)| v.beyond_declared()) {
            t.untype(k);
            notes[first_note + k].declared = Declared::Untyped;
        }
    }
    t.finish().map_err(writing)
}

/// `hindsight_manifest`: manifest.json a row per top-level key, strings as they are and
/// anything else as its JSON.
fn manifest_table<W: Write + Seek>(db: &mut Database<W>, from: &Source, file: &Path) -> Result<()> {
    let (read, path) = from.file("manifest.json");
    let text = std::fs::read_to_string(&read).map_err(|e| Error::io(&path, e))?;
    let manifest: serde_json::Map<String, serde_json::Value> = serde_json::from_str(&text).map_err(|e| Error::dataset(&path, e.to_string()))?;
    let columns = [("key".to_string(), Declared::Text), ("value".to_string(), Declared::Text)];
    let mut t = db.table(MANIFEST_TABLE, &columns);
    let mut r = Record::default();
    let writing = |e: std::io::Error| Error::while_doing(format!("writing table `{MANIFEST_TABLE}` into {}", file.display()), e);
    for (key, value) in &manifest {
        r.clear();
        r.text(key);
        match value {
            serde_json::Value::String(s) => r.text(s),
            v => r.text(&v.to_string()),
        }
        t.push(&r).map_err(writing)?;
    }
    t.finish().map_err(writing).map(drop)
}

/// `hindsight_columns`: every column of every table, its Parquet type, how it was stored,
/// and what it means (the data dictionary's words, where it has the column).
fn columns_table<W: Write + Seek>(db: &mut Database<W>, notes: &[ColumnNote], file: &Path) -> Result<()> {
    let names = ["table_name", "column_name", "parquet_type", "sqlite_type", "conversion", "description"];
    let columns: Vec<(String, Declared)> = names.iter().map(|n| (n.to_string(), Declared::Text)).collect();
    let mut t = db.table(COLUMNS_TABLE, &columns);
    let mut r = Record::default();
    let writing = |e: std::io::Error| Error::while_doing(format!("writing table `{COLUMNS_TABLE}` into {}", file.display()), e);
    for n in notes {
        r.clear();
        r.text(&n.table);
        r.text(&n.column);
        r.text(&n.parquet);
        r.text(if n.declared == Declared::Untyped { "(none)" } else { n.declared.name() });
        r.text(n.conversion);
        match crate::dataset::dictionary::column(&n.table, &n.column) {
            Some(d) => r.text(d),
            None => r.null(),
        }
        t.push(&r).map_err(writing)?;
    }
    t.finish().map_err(writing).map(drop)
}
