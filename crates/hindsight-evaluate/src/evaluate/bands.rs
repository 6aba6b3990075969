//! A large study judged a band of repositories at a time, so that evaluate's memory is
//! bounded by the band, not the study (AIDev's 7.6M PRs): the outputs are split into bands
//! of whole repositories in the order `responses` is sorted by, each band's outputs written
//! to a part of their own and read back alone, and the captures of its repositories read
//! from the row groups that hold them. Outcome rows keep the place they have in a run of
//! the whole study (each output's position in `safe_outputs`, and the position of the first
//! output with its key as its rank), so the spilled rows merge into the same table; the
//! CI gate's and risk tables of each band are merged by their sort keys. The bytes written
//! are those of one band holding every output, at any band size (a test checks it).

use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::io::{BufReader, BufWriter};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, BooleanArray, RecordBatchOptions, UInt64Array};
use arrow::datatypes::{Field, Schema, SchemaRef, UInt64Type};
use arrow::ipc::reader::FileReader;
use arrow::ipc::writer::FileWriter;
use arrow::record_batch::RecordBatch;
use arrow::row::{RowConverter, Rows, SortField};

use crate::dataset::read::{Cols, ColumnsRead, SafeOutputTable};
use crate::dataset::stream::{output_batches, RepoRange};
use crate::dataset::{TableWriter, Written};
use crate::error::{Error, Result};
use crate::spill::{Merge, Run};
use crate::time::Instant;

/// Outputs a band holds at most (a repository with more is a band of its own): with the
/// parsed captures of a chunk, the outcome rows held and the pool's threads, a band keeps
/// evaluate near a gigabyte at any size of study.
pub const BAND_OUTPUTS: usize = 1 << 16;

/// The column a band's part gives each output's position in `safe_outputs`.
const POSITION: &str = "__position";
/// The column giving the position of the first output with the output's key.
const RANK: &str = "__rank";
/// The column giving the time of the last output of the output's run (microseconds since
/// the epoch): a cluster's executor judges a band without the study's other outputs.
const RUN_END: &str = "__run_end";

/// A band's part read back: its outputs, each one's position and rank, and the time of the
/// last output of each of their runs.
pub(crate) struct BandRead {
    pub(crate) outputs: SafeOutputTable,
    pub(crate) positions: Vec<usize>,
    pub(crate) ranks: Vec<usize>,
    pub(crate) run_ends: HashMap<String, Instant>,
}

/// The study's bands and what is read of every output once, before any band is judged.
pub(crate) struct Plan {
    pub(crate) ranges: Vec<RepoRange>,
    pub(crate) outputs: usize,
    /// Per run, the time of its last output ([`super::judge::run_ends`]).
    pub(crate) run_ends: HashMap<String, Instant>,
}

/// The bands of the study at `dataset`, or none when one band takes every output: the
/// study has at most `band_outputs` of them, or its outputs are not in the order of their
/// keys (run id, item index), as hindsight writes them, which the places of the rows need.
pub(crate) fn plan(dataset: &Path, band_outputs: usize) -> Result<Option<Plan>> {
    let read = read_outputs(dataset)?;
    if !read.sorted || read.outputs <= band_outputs {
        return Ok(None);
    }
    // Every repository is in a band, those with no output too (a task's PR may be in one).
    Ok(Some(Plan { ranges: crate::dataset::stream::cut(&read.per_repo, band_outputs), outputs: read.outputs, run_ends: read.run_ends }))
}

/// The study at `dataset` cut into about `partitions` bands of whole repositories with
/// about as many outputs each: a cluster's partitions. An error when its outputs are not in
/// the order of their keys (a dataset hindsight did not write).
pub(crate) fn plan_partitions(dataset: &Path, partitions: usize) -> Result<Plan> {
    let read = read_outputs(dataset)?;
    if !read.sorted {
        let message = "the outputs are not in the order of their run id and item index, as hindsight writes them; evaluate this dataset without --cluster".into();
        return Err(Error::Dataset { path: dataset.join("safe_outputs.parquet"), message });
    }
    let per_band = read.outputs.div_ceil(partitions.max(1)).max(1);
    Ok(Plan { ranges: crate::dataset::stream::cut(&read.per_repo, per_band), outputs: read.outputs, run_ends: read.run_ends })
}

/// What a plan reads of every output: the outputs of each repository, whether they are in
/// the order of their keys, and when each run's last output was.
struct OutputsRead {
    per_repo: BTreeMap<Option<String>, usize>,
    sorted: bool,
    outputs: usize,
    run_ends: HashMap<String, Instant>,
}

fn read_outputs(dataset: &Path) -> Result<OutputsRead> {
    const READ: [&str; 5] = ["run_id", "item_index", "target_repo", "actor", "created_at"];
    let mut per_repo: BTreeMap<Option<String>, usize> = BTreeMap::new();
    let mut last = LastKey::default();
    let mut sorted = true;
    let mut outputs = 0usize;
    let mut run_ends: HashMap<String, Instant> = HashMap::new();
    output_batches(dataset, &|c| READ.contains(&c), |b| {
        let c = Cols::new("safe_outputs", &b);
        let (runs, items, repos) = (c.str("run_id")?, c.int("item_index")?, c.str("target_repo")?);
        let (actors, times) = (c.str("actor")?, c.time("created_at")?);
        for ((run, item), repo) in runs.iter().zip(&items).zip(repos) {
            sorted &= last.next((run.as_deref().unwrap_or_default(), item.unwrap_or(0))) != Some(std::cmp::Ordering::Greater);
            *per_repo.entry(repo).or_insert(0) += 1;
        }
        let acting = runs.iter().zip(&actors).zip(&times).map(|((r, a), t)| (r.as_deref().unwrap_or_default(), a.as_deref(), *t));
        for (run, end) in super::judge::run_ends(acting) {
            let e = run_ends.entry(run).or_insert(end);
            *e = (*e).max(end);
        }
        outputs += b.num_rows();
        Ok(())
    })?;
    Ok(OutputsRead { per_repo, sorted, outputs, run_ends })
}

impl Plan {
    /// The band `repo` is in.
    pub(crate) fn band_of(&self, repo: Option<&str>) -> usize {
        self.ranges.partition_point(|r| r.from.as_deref() <= repo) - 1
    }
}

/// The key (run id, item index) of the output read before, its text's buffer reused: one
/// is read for every output of the study.
#[derive(Default)]
struct LastKey {
    run: String,
    item: i64,
    read: bool,
}

impl LastKey {
    /// The key before against `key` (none for the first), `key` kept as the key before.
    fn next(&mut self, key: (&str, i64)) -> Option<std::cmp::Ordering> {
        let order = self.read.then(|| (self.run.as_str(), self.item).cmp(&key));
        if order != Some(std::cmp::Ordering::Equal) {
            self.run.clear();
            self.run.push_str(key.0);
            (self.item, self.read) = (key.1, true);
        }
        order
    }
}

/// The folder of a band evaluation's parts, removed when dropped.
/// Rows a batch of a band's kept CI-gate or risk table holds (see `keep_tables`).
const KEPT_BATCH_ROWS: usize = 4096;

pub(crate) struct Parts {
    dir: PathBuf,
    /// Whether this process made the folder: it then removes each part once read, and the
    /// folder when dropped. A cluster's executor reads the client's parts and leaves them
    /// (a partition may be run again).
    owned: bool,
    /// Whether parts are written compressed (zstd): a cluster's executors read them over a
    /// shared filesystem, where bytes cost more than the compression; a local banded run's
    /// are read back from the page cache.
    compressed: bool,
}

impl Drop for Parts {
    fn drop(&mut self) {
        if self.owned {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

/// The name of band `k`'s part of the outputs (`band-K`, in a file `band-K.arrow`).
pub(crate) fn band_part(k: usize) -> String {
    format!("band-{k}")
}

impl Parts {
    pub(crate) fn new(dataset: &Path) -> Result<Parts> {
        Self::new_in(&dataset.join(".bands"), false)
    }

    /// Parts in the new folder `dir` (one there is emptied first), `compressed` or not.
    pub(crate) fn new_in(dir: &Path, compressed: bool) -> Result<Parts> {
        let _ = std::fs::remove_dir_all(dir);
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        Ok(Parts { dir: dir.to_path_buf(), owned: true, compressed })
    }

    /// The parts another process wrote in `dir`, read and left as they are.
    pub(crate) fn written_in(dir: &Path) -> Parts {
        Parts { dir: dir.to_path_buf(), owned: false, compressed: false }
    }

    /// The folder the parts are in.
    pub(crate) fn dir(&self) -> &Path {
        &self.dir
    }

    /// The bytes of every part written so far.
    pub(crate) fn bytes(&self) -> u64 {
        let files = std::fs::read_dir(&self.dir).into_iter().flatten().flatten();
        files.filter_map(|e| e.metadata().ok()).map(|m| m.len()).sum()
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.join(format!("{name}.arrow"))
    }

    fn create(&self, name: &str, schema: &SchemaRef) -> Result<FileWriter<BufWriter<File>>> {
        let p = self.path(name);
        let f = File::create(&p).map_err(|e| Error::io(&p, e))?;
        let compression = self.compressed.then_some(arrow::ipc::CompressionType::ZSTD);
        let options = arrow::ipc::writer::IpcWriteOptions::default().try_with_compression(compression).map_err(|e| failed(&p, e))?;
        FileWriter::try_new_with_options(BufWriter::with_capacity(1 << 20, f), schema, options).map_err(|e| failed(&p, e))
    }

    fn read(&self, name: &str) -> Result<Vec<RecordBatch>> {
        let p = self.path(name);
        let f = File::open(&p).map_err(|e| Error::io(&p, e))?;
        // A small buffer: the reader seeks to each batch, and a seek drops what is buffered,
        // so a large one read a megabyte for each batch of a few kilobytes (a cluster's
        // executors read 2.6x the dataset at 1M outputs through it, 1.2x without).
        let reader = FileReader::try_new(BufReader::with_capacity(64 << 10, f), None).map_err(|e| failed(&p, e))?;
        let batches = reader.collect::<std::result::Result<Vec<_>, _>>().map_err(|e| failed(&p, e))?;
        if self.owned {
            let _ = std::fs::remove_file(&p);
        }
        Ok(batches)
    }

    /// Every output written to its band's part, with its position and rank.
    pub(crate) fn split(&self, dataset: &Path, plan: &Plan) -> Result<()> {
        let mut writers: Vec<Option<FileWriter<BufWriter<File>>>> = (0..plan.ranges.len()).map(|_| None).collect();
        let (mut position, mut last, mut rank) = (0usize, LastKey::default(), 0usize);
        output_batches(dataset, &|c| ColumnsRead::Judged.reads(c), |b| {
            let n = b.num_rows();
            let (mut ranks, mut bands, mut ends) = (Vec::with_capacity(n), Vec::with_capacity(n), Vec::with_capacity(n));
            {
                let c = Cols::new("safe_outputs", &b);
                let (runs, items, repos) = (c.col::<arrow::array::StringArray>("run_id")?, c.col::<arrow::array::Int64Array>("item_index")?, c.col::<arrow::array::StringArray>("target_repo")?);
                for r in 0..n {
                    let key = ((!runs.is_null(r)).then(|| runs.value(r)).unwrap_or_default(), (!items.is_null(r)).then(|| items.value(r)).unwrap_or(0));
                    if last.next(key) != Some(std::cmp::Ordering::Equal) {
                        rank = position + r;
                    }
                    ranks.push(rank as u64);
                    ends.push(plan.run_ends.get(key.0).map(|t| t.timestamp_micros()));
                    bands.push(plan.band_of((!repos.is_null(r)).then(|| repos.value(r))));
                }
            }
            let positions: ArrayRef = Arc::new(UInt64Array::from_iter_values((position..position + n).map(|p| p as u64)));
            let ranks: ArrayRef = Arc::new(UInt64Array::from(ranks));
            let ends: ArrayRef = Arc::new(arrow::array::Int64Array::from(ends));
            let keyed = with_columns(&b, [(POSITION, positions), (RANK, ranks), (RUN_END, ends)]).map_err(|e| failed(&self.dir, e))?;
            let mut present: Vec<usize> = bands.clone();
            present.sort_unstable();
            present.dedup();
            for k in present {
                let mask = BooleanArray::from_iter(bands.iter().map(|&x| Some(x == k)));
                let part = compact(&arrow::compute::filter_record_batch(&keyed, &mask).map_err(|e| failed(&self.dir, e))?).map_err(|e| failed(&self.dir, e))?;
                let name = band_part(k);
                let w = match &mut writers[k] {
                    Some(w) => w,
                    slot => slot.insert(self.create(&name, &part.schema())?),
                };
                w.write(&part).map_err(|e| failed(&self.path(&name), e))?;
            }
            position += n;
            Ok(())
        })?;
        for (k, w) in writers.into_iter().enumerate() {
            if let Some(mut w) = w {
                w.finish().map_err(|e| failed(&self.path(&band_part(k)), e))?;
            }
        }
        Ok(())
    }

    /// Band `k`'s outputs (its part removed when this process wrote it), with each one's
    /// position and rank and their runs' ends.
    pub(crate) fn band(&self, k: usize) -> Result<BandRead> {
        let name = band_part(k);
        if !self.path(&name).exists() {
            let outputs = SafeOutputTable::from_batches([], ColumnsRead::Judged)?;
            return Ok(BandRead { outputs, positions: Vec::new(), ranks: Vec::new(), run_ends: HashMap::new() });
        }
        let batches = self.read(&name)?;
        let missing = |name: &str| failed(&self.path(&band_part(k)), arrow::error::ArrowError::SchemaError(format!("no column {name}")));
        let of = |b: &RecordBatch, name: &str| -> Result<Vec<usize>> {
            let c = b.column_by_name(name).and_then(|c| c.as_primitive_opt::<UInt64Type>()).ok_or_else(|| missing(name))?;
            Ok(c.values().iter().map(|&v| v as usize).collect())
        };
        let (mut positions, mut ranks, mut run_ends) = (Vec::new(), Vec::new(), HashMap::new());
        for b in &batches {
            positions.extend(of(b, POSITION)?);
            ranks.extend(of(b, RANK)?);
            let ends = b.column_by_name(RUN_END).and_then(|c| c.as_primitive_opt::<arrow::datatypes::Int64Type>()).ok_or_else(|| missing(RUN_END))?;
            let runs = Cols::new("safe_outputs", b).col::<arrow::array::StringArray>("run_id")?.clone();
            for r in (0..b.num_rows()).filter(|&r| ends.is_valid(r) && runs.is_valid(r)) {
                if let Some(t) = chrono::DateTime::from_timestamp_micros(ends.value(r)) {
                    run_ends.entry(runs.value(r).to_string()).or_insert(t);
                }
            }
        }
        let outputs = SafeOutputTable::from_batches(batches, ColumnsRead::Judged)?;
        Ok(BandRead { outputs, positions, ranks, run_ends })
    }

    /// Band `k`'s CI-gate and risk tables, kept for [`Parts::merge_table`].
    pub(crate) fn keep_tables(&self, k: usize, tables: Vec<(&'static str, RecordBatch)>) -> Result<()> {
        for (name, t) in tables {
            let name = format!("{name}-{k}");
            let mut w = self.create(&name, &t.schema())?;
            // In small batches: the merge holds every band's current batch at once, and a
            // band's table as one batch made that every band's whole table (2.8 GiB at 7.6M
            // AIDev PRs, 116 bands).
            for off in (0..t.num_rows()).step_by(KEPT_BATCH_ROWS) {
                let part = t.slice(off, KEPT_BATCH_ROWS.min(t.num_rows() - off));
                w.write(&part).map_err(|e| failed(&self.path(&name), e))?;
            }
            w.finish().map_err(|e| failed(&self.path(&name), e))?;
        }
        Ok(())
    }

    /// The table `name` of `bands` bands, each sorted by the text or integer columns `keys`,
    /// merged in that order (equal keys in band order, as [`Merge`] takes them) and written
    /// to the dataset a batch at a time.
    pub(crate) fn merge_table(&self, dataset: &Path, name: &str, keys: &[&str], bands: usize) -> Result<Written> {
        let sources = (0..bands).map(|k| Source::open(&self.path(&format!("{name}-{k}")), keys)).collect::<Result<Vec<_>>>()?;
        let schema = sources.first().map(|s| s.schema.clone()).ok_or_else(|| Error::Dataset { path: dataset.to_path_buf(), message: format!("no band gave the {name} table") })?;
        let mut out = TableWriter::create(dataset, name, schema.clone())?;
        let mut sources = Merge::new(sources);
        // Rows picked as (batch in `pool`, row); every source's current batch is in the pool,
        // and a batch a source moves on to is added, so picks stay valid until written.
        let mut pool: Vec<RecordBatch> = sources.runs().iter().map(|s| s.batch.clone()).collect();
        let mut at: Vec<usize> = (0..pool.len()).collect();
        let mut picks: Vec<(usize, usize)> = Vec::new();
        loop {
            let taken = sources.next(|i, s| {
                picks.push((at[i], s.row));
                if s.advance(keys)? {
                    at[i] = pool.len();
                    pool.push(s.batch.clone());
                }
                Ok(())
            })?;
            if !picks.is_empty() && (picks.len() == 8192 || taken.is_none()) {
                let columns = (0..schema.fields().len())
                    .map(|c| arrow::compute::interleave(&pool.iter().map(|b| b.column(c).as_ref()).collect::<Vec<_>>(), &picks))
                    .collect::<std::result::Result<Vec<_>, _>>()
                    .map_err(|e| failed(&self.dir, e))?;
                out.write(&RecordBatch::try_new(schema.clone(), columns).map_err(|e| failed(&self.dir, e))?)?;
                picks.clear();
                pool = sources.runs().iter().map(|s| s.batch.clone()).collect();
                at = (0..pool.len()).collect();
            }
            if taken.is_none() {
                break;
            }
        }
        out.finish()
    }
}

/// One band's part of a table, a batch at a time, at one row.
struct Source {
    path: PathBuf,
    schema: SchemaRef,
    reader: FileReader<BufReader<File>>,
    batch: RecordBatch,
    rows: Option<Rows>,
    converter: RowConverter,
    row: usize,
}

impl Run for Source {
    /// By the current rows' keys, as bytes that sort as the keys do (arrow's row format).
    fn cmp_heads(&self, other: &Self) -> std::cmp::Ordering {
        fn key(s: &Source) -> Option<&[u8]> {
            s.rows.as_ref().map(|r| r.row(s.row).data())
        }
        key(self).cmp(&key(other))
    }

    fn is_done(&self) -> bool {
        self.rows.is_none()
    }
}

impl Source {
    fn open(path: &Path, keys: &[&str]) -> Result<Source> {
        let f = File::open(path).map_err(|e| Error::io(path, e))?;
        let reader = FileReader::try_new(BufReader::with_capacity(64 << 10, f), None).map_err(|e| failed(path, e))?;
        let schema = reader.schema();
        let fields = keys
            .iter()
            .map(|k| schema.field_with_name(k).map(|f| SortField::new(f.data_type().clone())))
            .collect::<std::result::Result<Vec<_>, _>>()
            .map_err(|e| failed(path, e))?;
        let converter = RowConverter::new(fields).map_err(|e| failed(path, e))?;
        let batch = RecordBatch::new_empty(schema.clone());
        let mut s = Source { path: path.to_path_buf(), schema, reader, batch, rows: None, converter, row: 0 };
        s.load(keys)?;
        Ok(s)
    }

    /// The next row; whether that moved to a new batch (or to the end).
    fn advance(&mut self, keys: &[&str]) -> Result<bool> {
        self.row += 1;
        if self.row < self.batch.num_rows() {
            return Ok(false);
        }
        self.load(keys)?;
        Ok(true)
    }

    /// The next non-empty batch and its keys, or none at the end.
    fn load(&mut self, keys: &[&str]) -> Result<()> {
        self.row = 0;
        self.rows = None;
        for b in self.reader.by_ref() {
            let b = b.map_err(|e| failed(&self.path, e))?;
            if b.num_rows() == 0 {
                continue;
            }
            let columns: Vec<ArrayRef> = keys.iter().filter_map(|k| b.column_by_name(k).cloned()).collect();
            self.rows = Some(self.converter.convert_columns(&columns).map_err(|e| failed(&self.path, e))?);
            self.batch = b;
            return Ok(());
        }
        Ok(())
    }
}

/// `b` with `columns` after its own.
fn with_columns<const N: usize>(b: &RecordBatch, columns: [(&str, ArrayRef); N]) -> std::result::Result<RecordBatch, arrow::error::ArrowError> {
    let mut fields: Vec<Field> = b.schema().fields().iter().map(|f| f.as_ref().clone()).collect();
    let mut arrays = b.columns().to_vec();
    for (name, a) in columns {
        // A run's end is absent where the output has no time.
        fields.push(Field::new(name, a.data_type().clone(), name == RUN_END));
        arrays.push(a);
    }
    RecordBatch::try_new_with_options(Arc::new(Schema::new(fields)), arrays, &RecordBatchOptions::new().with_row_count(Some(b.num_rows())))
}

/// A band's rows with their text held alone. Long texts (`payload`, `target_url`) are read
/// as string views, and a filtered view array keeps every buffer of the batch it came from:
/// written as it is, each band's part would carry the whole batch's texts, and the parts
/// together (on disk, and in memory as each band is read back) the study's texts once per
/// band.
fn compact(b: &RecordBatch) -> std::result::Result<RecordBatch, arrow::error::ArrowError> {
    let columns: Vec<ArrayRef> = b
        .columns()
        .iter()
        .map(|c| match c.as_string_view_opt() {
            Some(v) => Arc::new(v.gc()) as ArrayRef,
            None => c.clone(),
        })
        .collect();
    RecordBatch::try_new_with_options(b.schema(), columns, &RecordBatchOptions::new().with_row_count(Some(b.num_rows())))
}

fn failed(path: &Path, e: arrow::error::ArrowError) -> Error {
    Error::Dataset { path: path.to_path_buf(), message: format!("a band of the evaluation: {e}") }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{Int64Array, StringArray};
    use arrow::datatypes::DataType;

    /// Each band's table is kept in several batches and the bands are merged back by key,
    /// equal keys in band order: the whole table, sorted, row for row.
    #[test]
    fn kept_tables_merge_back_in_key_order_across_batches() {
        let tmp = tempfile::tempdir().unwrap();
        let parts = Parts::new(tmp.path()).unwrap();
        let rows = 3 * KEPT_BATCH_ROWS + 17;
        let schema = Arc::new(Schema::new(vec![Field::new("repo", DataType::Utf8, false), Field::new("band", DataType::Int64, false)]));
        let mut want: Vec<(String, i64)> = Vec::new();
        for k in 0..3i64 {
            // Band k holds every third key, and key 0 in every band (equal keys keep band order).
            let keys: Vec<String> = (0..rows as i64).map(|i| if i == 0 { "r-0".to_string() } else { format!("r-{:07}", i * 3 + k) }).collect();
            want.extend(keys.iter().map(|r| (r.clone(), k)));
            let t = RecordBatch::try_new(schema.clone(), vec![Arc::new(StringArray::from(keys)), Arc::new(Int64Array::from(vec![k; rows]))]).unwrap();
            parts.keep_tables(k as usize, vec![("pr_risk", t)]).unwrap();
        }
        want.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(&b.1)));
        let w = parts.merge_table(tmp.path(), "pr_risk", &["repo"], 3).unwrap();
        assert_eq!(w.rows, want.len());
        let f = File::open(tmp.path().join("pr_risk.parquet")).unwrap();
        let reader = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(f).unwrap().build().unwrap();
        let mut got: Vec<(String, i64)> = Vec::new();
        for b in reader {
            let b = b.unwrap();
            let (r, k) = (b.column(0).as_string::<i32>(), b.column(1).as_primitive::<arrow::datatypes::Int64Type>());
            got.extend((0..b.num_rows()).map(|i| (r.value(i).to_string(), k.value(i))));
        }
        assert_eq!(got, want);
    }
}
