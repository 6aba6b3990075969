//! Outcome rows held to a budget: once the rows judged so far pass it, they are sorted and
//! written to disk as one part (Arrow IPC, compressed with zstd; held columns with their
//! sort keys) by a thread of their own while judging goes on, and at the end the parts are
//! merged in the table's order into `outcomes.parquet` (with the rows still held, from
//! memory), a row group at a time, on one thread while the others fill in one group's output
//! columns and encode the group before. Rows that never pass the budget never touch the
//! disk. The file's bytes are the same either way: the order is the key's, and the writer
//! cuts row groups at the same rows whatever the pieces it is given (see
//! `dataset::TableWriter`).
//!
//! The parts are the spill engine's runs (`crate::spill`): more than its fan-in are first
//! merged that many at a time into longer parts, so the final merge never holds more files
//! open than that, however many parts a study spills.

use std::fs::File;
use std::io::{BufReader, BufWriter};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow::array::{Array, ArrayRef, Int64Array, UInt64Array};
use arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use arrow::ipc::reader::FileReader;
use arrow::ipc::writer::FileWriter;
use arrow::record_batch::RecordBatch;

use super::outcomes::{self, OutputSource, RowKey};
use super::OutcomeRows;
use crate::dataset::{TableWriter, Written, ROW_GROUP_ROWS};
use crate::error::{Error, Result};
use crate::spill::{Format, Merge, Run, Spill};

/// Rows per batch in a spill file: what the merge holds of each part at a time.
const SPILL_BATCH_ROWS: usize = 8 * 1024;

/// zstd's level for spill files: 1 and -3 (7x smaller rather than 10x) ran alike, as did LZ4
/// and none, within the machine's noise (BENCHMARKS.md, eleventh step); 1 spills least.
const SPILL_ZSTD_LEVEL: i32 = 1;

/// The key columns appended to the outcome columns in a spill file.
const KEY_COLUMNS: [(&str, DataType); 3] = [("key_rank", DataType::UInt64), ("key_window", DataType::Int64), ("key_seq", DataType::UInt64)];

/// Outcome rows: those held in memory, the earlier ones in sorted parts on disk (written
/// by a thread of their own while judging goes on: at most one part is written while the
/// next is held).
pub(crate) struct OutcomeParts {
    spill: Spill<OutcomeRowsFormat>,
}

/// Outcome rows as the spill engine holds, writes and reads them.
struct OutcomeRowsFormat;

impl Format for OutcomeRowsFormat {
    type Held = OutcomeRows;
    type Run = Source;
    const NAME: &'static str = "outcomes";
    const EXT: &'static str = "arrow";
    const BESIDE: bool = true;

    fn write_run(path: &Path, held: Vec<OutcomeRows>) -> Result<()> {
        write_part(path, held)
    }

    fn open(path: &Path) -> Result<Source> {
        Source::open(path)
    }

    fn write_merged(p: &Path, runs: Merge<Source>) -> Result<()> {
        let keyed = keyed_schema();
        let failed = |e: arrow::error::ArrowError| Error::Dataset { path: p.to_path_buf(), message: format!("merging spilled outcome rows failed: {e}") };
        let mut w = part_writer(p, &keyed)?;
        merge(runs, |keys, held| {
            w.write(&with_keys(&keyed, &held, &keys).map_err(failed)?).map_err(failed)?;
            Ok(true)
        })?;
        w.finish().map_err(failed)
    }
}

/// Sort held rows and write them as one part: Arrow IPC, the key columns after the held ones.
fn write_part(p: &Path, held: Vec<OutcomeRows>) -> Result<()> {
    let failed = |e: arrow::error::ArrowError| Error::Dataset { path: p.to_path_buf(), message: format!("spilling outcome rows failed: {e}") };
    // Not on rayon's threads: the last part is waited for from one (`write`, in a join).
    let batches = sorted_batches(held).map_err(failed)?;
    let mut w = part_writer(p, &keyed_schema())?;
    for b in batches {
        w.write(&b.map_err(failed)?).map_err(failed)?;
    }
    w.finish().map_err(failed)
}

/// A spill file's writer: Arrow IPC, each buffer compressed. Held rows are small numbers and
/// repeated codes: compressed they take a tenth of the disk (a million outputs spill ~36 MiB
/// rather than ~380), for about the CPU time the page cache cost uncompressed
/// (BENCHMARKS.md, eleventh step).
fn part_writer(p: &Path, schema: &SchemaRef) -> Result<FileWriter<BufWriter<File>>> {
    let failed = |e: arrow::error::ArrowError| Error::Dataset { path: p.to_path_buf(), message: format!("spilling outcome rows failed: {e}") };
    let options = arrow::ipc::writer::IpcWriteOptions::default()
        .try_with_compression(Some(arrow::ipc::CompressionType::ZSTD))
        .and_then(|o| o.try_with_compression_level(Some(SPILL_ZSTD_LEVEL)))
        .map_err(failed)?;
    let f = File::create(p).map_err(|e| Error::io(p, e))?;
    FileWriter::try_new_with_options(BufWriter::with_capacity(1 << 20, f), schema, options).map_err(failed)
}

/// Held rows sorted by key, `SPILL_BATCH_ROWS` at a time with their key columns: each batch
/// is gathered from the parts when it is asked for, so the rows are copied once, a batch at
/// a time (sorting a part whole copied it twice, into memory fresh from the system).
fn sorted_batches(held: Vec<OutcomeRows>) -> Result<impl Iterator<Item = Result<RecordBatch, arrow::error::ArrowError>> + Send, arrow::error::ArrowError> {
    let (order, parts) = OutcomeRows::sorted_here(held)?;
    let (schema, keyed) = (outcomes::held_schema(), keyed_schema());
    let n = order.len();
    Ok((0..n).step_by(SPILL_BATCH_ROWS).map(move |off| {
        let rows = &order[off..(off + SPILL_BATCH_ROWS).min(n)];
        let picks: Vec<(usize, usize)> = rows.iter().map(|(_, at)| *at).collect();
        let keys: Vec<RowKey> = rows.iter().map(|(k, _)| *k).collect();
        with_keys(&keyed, &gather(&schema, &parts, &picks)?, &keys)
    }))
}

/// The schema of a spill file: the held columns, then the key columns.
fn keyed_schema() -> SchemaRef {
    let mut fields: Vec<Field> = outcomes::held_schema().fields().iter().map(|f| f.as_ref().clone()).collect();
    fields.extend(KEY_COLUMNS.iter().map(|(n, t)| Field::new(*n, t.clone(), false)));
    Arc::new(Schema::new(fields))
}

impl OutcomeParts {
    /// Parts of about `budget` bytes; spill files go in `dir` (created on the first spill,
    /// removed when the parts are dropped).
    pub(crate) fn new(dir: &Path, budget: usize) -> OutcomeParts {
        OutcomeParts { spill: Spill::new(dir, budget) }
    }

    /// Rows just judged, in any order; a part goes to disk when the rows held pass the budget.
    pub(crate) fn extend(&mut self, parts: Vec<OutcomeRows>) -> Result<()> {
        for p in parts.into_iter().filter(|p| !p.is_empty()) {
            let bytes = p.bytes();
            self.spill.push(p, bytes)?;
        }
        Ok(())
    }

    /// Write every row, sorted, to `dir/outcomes.parquet`, the output's columns taken from
    /// `outputs`.
    pub(crate) fn write<S: OutputSource>(mut self, dir: &Path, mut outputs: S) -> Result<Written> {
        if self.spill.spilled() == 0 {
            // Nothing on disk: the rows are sorted here, and each row group's columns filled
            // in on a thread of its own before the groups are encoded side by side.
            use rayon::prelude::*;
            let (keys, held) = OutcomeRows::merge_keyed(self.spill.take_held())?;
            let outputs = outputs.cover(&keys)?;
            let starts: Vec<usize> = (0..keys.len()).step_by(ROW_GROUP_ROWS).collect();
            let groups = starts
                .into_par_iter()
                .map(|off| {
                    let n = ROW_GROUP_ROWS.min(keys.len() - off);
                    outcomes::table_rows(&outputs, &keys[off..off + n], &held.slice(off, n))
                })
                .collect::<Result<Vec<RecordBatch>, _>>()?;
            drop(held);
            let mut out = TableWriter::create(dir, "outcomes", outcomes::schema())?;
            out.write_groups(&groups)?;
            return out.finish();
        }
        // Rows left over stay in memory, merged beside the parts on disk (sorted while the
        // writer finishes its last part, gathered a batch at a time as the merge reads them).
        let left = self.spill.take_held();
        let left = match left.is_empty() {
            true => None,
            false => Some(sorted_batches(left).map_err(|e| Source::failed(dir, e))?),
        };
        let (mut sources, _cleanup) = self.spill.into_runs()?;
        if let Some(batches) = left {
            sources.push(Source::of(dir, Box::new(batches))?);
        }
        let mut out = TableWriter::create(dir, "outcomes", outcomes::schema())?;
        // The parts are merged on a thread of their own while the rows merged before are
        // encoded and written.
        std::thread::scope(|scope| -> Result<()> {
            let (tx, rx) = std::sync::mpsc::sync_channel::<(Vec<RowKey>, RecordBatch)>(1);
            let merging = crate::phases::spawn_named(scope, "merge outcomes", move || merge(Merge::new(sources), |keys, held| Ok(tx.send((keys, held)).is_ok())));
            // A row group's output columns are filled in while the one before is encoded.
            let mut ready: Option<RecordBatch> = None;
            for (keys, held) in rx {
                let before = ready.take();
                let outputs = outputs.cover(&keys)?;
                let (written, rows) = rayon::join(|| before.map_or(Ok(()), |b| out.write(&b)), || outcomes::table_rows(&outputs, &keys, &held));
                written?;
                ready = Some(rows?);
            }
            if let Some(b) = ready {
                out.write(&b)?;
            }
            // A closed channel before the end means the merge failed: its error is the one reported.
            Error::joined(merging.join(), dir, "the thread merging spilled outcome rows failed")
        })?;
        out.finish()
    }
}

/// The spilled parts merged in the table's order, handed to `emit` a row group's rows at a
/// time (their keys and held columns). Stops early, without error, when `emit` answers
/// false (its receiver is gone).
fn merge(mut sources: Merge<Source>, mut emit: impl FnMut(Vec<RowKey>, RecordBatch) -> Result<bool>) -> Result<()> {
    let schema = outcomes::held_schema();
    // Rows of one output batch, as (batch in `pool`, row); every source's current batch
    // is in the pool.
    let mut pool: Vec<RecordBatch> = Vec::new();
    let mut at: Vec<usize> = vec![0; sources.runs().len()];
    let refill = |pool: &mut Vec<RecordBatch>, at: &mut Vec<usize>, runs: &[Source]| {
        pool.clear();
        for (i, s) in runs.iter().enumerate() {
            if let Some(b) = &s.batch {
                at[i] = pool.len();
                pool.push(b.clone());
            }
        }
    };
    refill(&mut pool, &mut at, sources.runs());
    let mut picks: Vec<(usize, usize)> = Vec::with_capacity(ROW_GROUP_ROWS);
    let mut keys: Vec<RowKey> = Vec::with_capacity(ROW_GROUP_ROWS);
    loop {
        let taken = sources.next(|i, s| {
            let Some(k) = s.key() else { return Ok(i) };
            picks.push((at[i], s.row));
            keys.push(k);
            if s.advance()? {
                if let Some(b) = &s.batch {
                    at[i] = pool.len();
                    pool.push(b.clone());
                }
            }
            Ok(i)
        })?;
        let Some(i) = taken else { break };
        if picks.len() == ROW_GROUP_ROWS || sources.first().is_none() {
            let held = gather(&schema, &pool, &picks)
                .map_err(|e| Error::Dataset { path: sources.runs()[i].path.clone(), message: format!("merging spilled outcome rows failed: {e}") })?;
            picks.clear();
            if !emit(std::mem::replace(&mut keys, Vec::with_capacity(ROW_GROUP_ROWS)), held)? {
                return Ok(());
            }
            // Only the sources' current batches are referenced from here on.
            refill(&mut pool, &mut at, sources.runs());
        }
    }
    Ok(())
}

/// The held columns with the key columns after them (`keyed`: `keyed_schema()`).
fn with_keys(keyed: &SchemaRef, batch: &RecordBatch, keys: &[RowKey]) -> Result<RecordBatch, arrow::error::ArrowError> {
    let mut columns = batch.columns().to_vec();
    columns.push(Arc::new(UInt64Array::from_iter_values(keys.iter().map(|k| k.0 as u64))));
    columns.push(Arc::new(Int64Array::from_iter_values(keys.iter().map(|k| k.1))));
    columns.push(Arc::new(UInt64Array::from_iter_values(keys.iter().map(|k| k.2 as u64))));
    RecordBatch::try_new(keyed.clone(), columns)
}

/// The picked rows as one batch of held columns.
fn gather(schema: &SchemaRef, pool: &[RecordBatch], picks: &[(usize, usize)]) -> Result<RecordBatch, arrow::error::ArrowError> {
    let columns: Vec<ArrayRef> = (0..schema.fields().len())
        .map(|c| {
            let arrays: Vec<&dyn Array> = pool.iter().map(|b| b.column(c).as_ref()).collect();
            arrow::compute::interleave(&arrays, picks)
        })
        .collect::<Result<_, _>>()?;
    RecordBatch::try_new(schema.clone(), columns)
}

/// A spill file (or rows held in memory) read a batch at a time, at one row.
struct Source {
    /// The spill file, or the folder for rows held in memory (named in errors).
    path: PathBuf,
    reader: Box<dyn Iterator<Item = Result<RecordBatch, arrow::error::ArrowError>> + Send>,
    batch: Option<RecordBatch>,
    /// The current batch's key columns, typed once per batch (the merge reads a key per row).
    keys: Option<(UInt64Array, Int64Array, UInt64Array)>,
    row: usize,
}

impl Source {
    fn open(path: &Path) -> Result<Source> {
        let f = File::open(path).map_err(|e| Error::io(path, e))?;
        let reader = FileReader::try_new(BufReader::with_capacity(1 << 20, f), None).map_err(|e| Self::failed(path, e))?;
        // Read through its open handle from here on: unlinked now, its space is given back as
        // the merge finishes it rather than all at once after the table is written. (Where an
        // open file cannot be removed, the folder's removal at the end takes it.)
        let _ = std::fs::remove_file(path);
        let fields = reader.schema().fields().len();
        if fields != outcomes::held_schema().fields().len() + KEY_COLUMNS.len() {
            return Err(Error::Dataset { path: path.to_path_buf(), message: format!("a spill file of {fields} columns is not one of outcome rows") });
        }
        Source::of(path, Box::new(reader))
    }

    fn of(path: &Path, reader: Box<dyn Iterator<Item = Result<RecordBatch, arrow::error::ArrowError>> + Send>) -> Result<Source> {
        let mut s = Source { path: path.to_path_buf(), reader, batch: None, keys: None, row: 0 };
        s.load()?;
        Ok(s)
    }

    fn failed(path: &Path, e: arrow::error::ArrowError) -> Error {
        Error::Dataset { path: path.to_path_buf(), message: format!("reading spilled outcome rows failed: {e}") }
    }

    /// The next non-empty batch, or none at the file's end.
    fn load(&mut self) -> Result<()> {
        self.row = 0;
        self.batch = None;
        self.keys = None;
        for b in self.reader.by_ref() {
            let b = b.map_err(|e| Self::failed(&self.path, e))?;
            if b.num_rows() > 0 {
                let n = b.num_columns();
                let u = |c: usize| b.column(c).as_any().downcast_ref::<UInt64Array>().cloned();
                let w = b.column(n - 2).as_any().downcast_ref::<Int64Array>().cloned();
                self.keys = match (u(n - 3), w, u(n - 1)) {
                    (Some(r), Some(w), Some(q)) => Some((r, w, q)),
                    _ => return Err(Error::Dataset { path: self.path.clone(), message: "a spill file's key columns have unexpected types".into() }),
                };
                self.batch = Some(b);
                return Ok(());
            }
        }
        // At the end: the file is closed now, not when the merge ends.
        self.reader = Box::new(std::iter::empty());
        Ok(())
    }

    fn key(&self) -> Option<RowKey> {
        let (r, w, q) = self.keys.as_ref()?;
        Some((r.value(self.row) as usize, w.value(self.row), q.value(self.row) as usize))
    }

    /// Moves past the current row; whether a new batch was loaded.
    fn advance(&mut self) -> Result<bool> {
        let Some(b) = &self.batch else { return Ok(false) };
        self.row += 1;
        if self.row < b.num_rows() {
            return Ok(false);
        }
        self.load()?;
        Ok(true)
    }
}

impl Run for Source {
    fn cmp_heads(&self, other: &Self) -> std::cmp::Ordering {
        self.key().cmp(&other.key())
    }

    fn is_done(&self) -> bool {
        self.batch.is_none()
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::evaluate::rule::{common, Common};
    use crate::evaluate::Window;
    use crate::runs::{Execution, SafeOutput};
    use std::borrow::Cow;

    pub(in crate::evaluate) fn output(n: usize) -> SafeOutput<'static> {
        SafeOutput {
            safe_output_id: Cow::Owned(format!("o{n}")),
            run_id: Cow::Owned(format!("run-{}", n % 7)),
            item_index: n as i64,
            workflow_name: None,
            output_type: "noop".into(),
            execution: Execution::Executed,
            target_repo: None,
            target_kind: None,
            target_number: None,
            target_comment_id: None,
            target_url: None,
            target_node_id: None,
            target_source: None,
            temporary_id: None,
            actor: None,
            run_actor: None,
            created_at: None,
            payload_hash: "".into(),
            patch_hash: None,
            base_ref: None,
            head_ref: None,
            payload: "{}".into(),
            expected_state: "{}".into(),
            before_state: None,
            after_state: None,
            staged: false,
            source_format: "".into(),
            source_file: "".into(),
            source_line: 0,
        }
    }

    /// `n` outputs and the rank of each.
    fn outputs(n: usize) -> (Vec<SafeOutput<'static>>, Vec<usize>) {
        let outputs: Vec<SafeOutput> = (0..n).map(output).collect();
        let keys: Vec<(&str, i64)> = outputs.iter().map(|o| (o.run_id.as_ref(), o.item_index)).collect();
        let ranks = OutcomeRows::ranks(&keys);
        (outputs, ranks)
    }

    /// `outcomes.parquet` written in `dir` from `parts`, each handed over on its own, with a
    /// budget of `budget` bytes and `fan_in`: (parts spilled, rows written, the file's bytes).
    /// No spill file may be left.
    fn write_parts(dir: &Path, outputs: &[SafeOutput], parts: impl IntoIterator<Item = OutcomeRows>, budget: usize, fan_in: usize) -> (usize, usize, Vec<u8>) {
        std::fs::create_dir_all(dir).unwrap();
        let mut held = OutcomeParts { spill: Spill::new(&dir.join(".spill"), budget).with_fan_in(fan_in) };
        for rows in parts {
            held.extend(vec![rows]).unwrap();
        }
        let spilled = held.spill.spilled();
        let w = held.write(dir, outputs).unwrap();
        assert!(!dir.join(".spill").exists(), "{}: spill files left", dir.display());
        (spilled, w.rows, std::fs::read(dir.join("outcomes.parquet")).unwrap())
    }

    /// More parts than may be open at once are merged a few at a time first, over several
    /// rounds here (40 parts, 3 at a time): the table's bytes are those of rows never spilled.
    #[test]
    fn many_parts_are_merged_a_few_at_a_time_to_the_same_bytes() {
        let (outputs, ranks) = outputs(40);
        let verdicts = [common(Common::Staged), common(Common::NotExecuted).note("a note")];
        let windows = [Window::Hours(24), Window::Snapshot];
        // Judged out of order, one output per part.
        let judged = || {
            (0..outputs.len()).rev().map(|i| {
                let mut rows = OutcomeRows::default();
                for (w, v) in windows.iter().zip(&verdicts) {
                    rows.push(&outputs[i], ranks[i], i, *w, None, v);
                }
                rows
            })
        };
        let tmp = tempfile::tempdir().unwrap();
        let (none, rows, held) = write_parts(&tmp.path().join("held"), &outputs, judged(), usize::MAX, crate::spill::FAN_IN);
        assert_eq!(rows, 80);
        let (many, rows, merged) = write_parts(&tmp.path().join("merged"), &outputs, judged(), 1, 3);
        assert_eq!(rows, 80);
        assert_eq!((none, many), (0, 40));
        assert!(held == merged, "merging a few parts at a time changed outcomes.parquet");
    }

    /// Spilled rows of more than one row group: each group's output columns are filled in
    /// while the group before is encoded, and the table's bytes are still those of rows
    /// never spilled, cut into the same groups.
    #[test]
    fn spilled_rows_of_several_row_groups_make_the_table_of_rows_never_spilled() {
        let n = ROW_GROUP_ROWS + ROW_GROUP_ROWS / 2;
        let (outputs, ranks) = outputs(n);
        let v = common(Common::Staged);
        // Judged out of order, in parts of 4,096 outputs.
        let judged = || {
            (0..n).rev().collect::<Vec<_>>().chunks(4096).map(|ids| {
                let mut rows = OutcomeRows::default();
                for &i in ids {
                    rows.push(&outputs[i], ranks[i], i, Window::Snapshot, None, &v);
                }
                rows
            }).collect::<Vec<_>>()
        };
        let tmp = tempfile::tempdir().unwrap();
        let (none, rows, held) = write_parts(&tmp.path().join("held"), &outputs, judged(), usize::MAX, crate::spill::FAN_IN);
        let (spilled, merged_rows, merged) = write_parts(&tmp.path().join("merged"), &outputs, judged(), 1, crate::spill::FAN_IN);
        assert_eq!((none, rows, merged_rows), (0, n, n));
        assert!(spilled > 1, "{spilled} parts spilled");
        use parquet::file::reader::FileReader;
        let file = std::fs::File::open(tmp.path().join("merged").join("outcomes.parquet")).unwrap();
        assert_eq!(parquet::file::serialized_reader::SerializedFileReader::new(file).unwrap().metadata().num_row_groups(), 2);
        assert!(held == merged, "spilled rows of several row groups changed outcomes.parquet");
    }

    /// Details held as text (past the numbering's limit) and as numbers, in the same parts
    /// and spilled or not, make the same table as details all numbered.
    #[test]
    fn details_held_as_text_or_numbered_make_the_same_table() {
        let (outputs, ranks) = outputs(12);
        let windows = [Window::Hours(24), Window::Snapshot];
        let tmp = tempfile::tempdir().unwrap();
        let write = |name: &str, budget: usize, as_text: &dyn Fn(usize) -> bool| {
            let parts = (0..outputs.len()).map(|i| {
                let mut rows = if as_text(i) { OutcomeRows::holding_details_as_text() } else { OutcomeRows::default() };
                for w in windows {
                    // Details repeated across outputs and details of one output alone.
                    let v = common(Common::Staged).detail("shared", "same").detail("own", format!("output {i} in {w}"));
                    rows.push(&outputs[i], ranks[i], i, w, None, &v);
                }
                rows
            });
            write_parts(&tmp.path().join(name), &outputs, parts, budget, crate::spill::FAN_IN).2
        };
        let numbered = write("numbered", usize::MAX, &|_| false);
        let details: Vec<String> = crate::dataset::read::columns(&tmp.path().join("numbered"), "outcomes", &["details"])
            .unwrap()
            .iter()
            .flat_map(|b| {
                b.column(0).as_any().downcast_ref::<arrow::array::StringArray>().unwrap().iter().map(|v| v.unwrap_or_default().to_string()).collect::<Vec<_>>()
            })
            .collect();
        assert!(details.contains(&r#"{"own":"output 3 in 24h","shared":"same"}"#.to_string()), "{details:?}");
        assert!(write("text", usize::MAX, &|_| true) == numbered, "details held as text changed the table");
        assert!(write("mixed", usize::MAX, &|i| i % 3 == 0) == numbered, "details held both ways changed the table");
        assert!(write("mixed-spilled", 1, &|i| i % 2 == 0) == numbered, "spilled details held both ways changed the table");
    }

    /// Rows handed over as a cluster's executor does (`to_wire`: positions, names in words),
    /// taken back in other parts and spilled, make the table the rows judged here make; a
    /// row pointing past the dataset's outputs is refused.
    #[test]
    fn rows_from_a_clusters_executor_make_the_same_table() {
        let (outputs, ranks) = outputs(30);
        let windows = [Window::Hours(24), Window::Snapshot];
        let judged = || {
            (0..outputs.len()).map(|i| {
                let mut rows = OutcomeRows::default();
                for w in windows {
                    let v = common(Common::Staged).detail("own", format!("output {i} in {w}")).note("a note").note("another");
                    rows.push(&outputs[i], ranks[i], i, w, None, &v);
                }
                rows
            })
        };
        let tmp = tempfile::tempdir().unwrap();
        let local = write_parts(&tmp.path().join("local"), &outputs, judged(), usize::MAX, crate::spill::FAN_IN).2;
        // Two partitions, each turned into words; ranks from the positions alone.
        let (odd, even): (Vec<(usize, OutcomeRows)>, Vec<(usize, OutcomeRows)>) = judged().enumerate().partition(|(i, _)| i % 2 == 1);
        let wire: Vec<RecordBatch> = [odd, even].into_iter().map(|p| outcomes::to_wire(p.into_iter().map(|(_, r)| r).collect()).unwrap()).collect();
        assert_eq!(wire[0].num_rows(), 30);
        let back = || wire.iter().rev().map(|b| OutcomeRows::from_wire(b, &ranks).unwrap());
        assert!(write_parts(&tmp.path().join("held"), &outputs, back(), usize::MAX, crate::spill::FAN_IN).2 == local, "rows from the wire changed the table");
        assert!(write_parts(&tmp.path().join("spilled"), &outputs, back(), 1, 3).2 == local, "spilled rows from the wire changed the table");
        // Ranks known for fewer outputs than the first row points at: that row is refused.
        let first = arrow::array::AsArray::as_primitive::<arrow::datatypes::UInt64Type>(wire[0].column(0)).value(0) as usize;
        let e = OutcomeRows::from_wire(&wire[0], &ranks[..first]).err().unwrap();
        assert!(e.contains(&format!("position {first}")) && e.contains("past the dataset's safe_outputs"), "{e}");
    }
}
