//! The `safe_outputs` table of an import, written as the outputs are made rather than held:
//! the table is ordered by (run, item), and the Parquet releases give one agent's PRs mixed
//! with the others', so each run's outputs are written to a part of their own (in item
//! order already) and the parts are joined in run order at the end. The bytes are those of
//! the whole table sorted and written at once (`TableWriter`'s do not depend on how the rows
//! were split between writes).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

use super::study::OutputSink;
use crate::dataset::{TableWriter, Written};
use crate::error::{Error, Result};
use crate::runs::SafeOutput;

/// Outputs turned into a batch at a time.
const CHUNK: usize = 8192;

const TABLE: &str = "safe_outputs";

/// Text bytes a part's row group holds at most.
const PART_GROUP_BYTES: usize = 8 << 20;

/// Safe outputs on their way to the dataset's `safe_outputs` table.
pub struct Outputs {
    dir: PathBuf,
    /// Per run id: its part's writer and the outputs not yet written.
    parts: BTreeMap<String, (PathBuf, TableWriter, Vec<SafeOutput<'static>>)>,
    /// The PRs the outputs opened, for the review-feedback tables.
    pub agent_prs: crate::feedback::AgentPrs,
}

impl Outputs {
    /// Parts are written under `dir` (removed when the table is written).
    pub fn new(dir: &Path) -> Outputs {
        Outputs { dir: dir.to_path_buf(), parts: BTreeMap::new(), agent_prs: Default::default() }
    }

    fn write_chunk(w: &mut TableWriter, chunk: &mut Vec<SafeOutput<'static>>) -> Result<()> {
        let t = crate::runs::tables::safe_outputs(chunk);
        chunk.clear();
        w.write(&t.to_batch()?)
    }

    /// Write the `safe_outputs` table into `dataset`: each run's part in run order.
    pub fn finish(mut self, dataset: &Path) -> Result<Written> {
        let mut out = TableWriter::create(dataset, TABLE, crate::runs::tables::safe_outputs(&[]).arrow_schema())?;
        let parts = std::mem::take(&mut self.parts);
        for (_, (dir, mut w, mut chunk)) in parts {
            Self::write_chunk(&mut w, &mut chunk)?;
            w.finish()?;
            let path = dir.join(format!("{TABLE}.parquet"));
            let f = std::fs::File::open(&path).map_err(|e| Error::io(&path, e))?;
            let reader = ParquetRecordBatchReaderBuilder::try_new(f).and_then(|b| b.build()).map_err(|e| read_back(&path, &e))?;
            for batch in reader {
                out.write(&batch.map_err(|e| read_back(&path, &e))?)?;
            }
        }
        let written = out.finish()?;
        if self.dir.exists() {
            std::fs::remove_dir_all(&self.dir).map_err(|e| Error::io(&self.dir, e))?;
        }
        Ok(written)
    }
}

fn read_back(path: &Path, e: &dyn std::fmt::Display) -> Error {
    Error::Dataset { path: path.to_path_buf(), message: format!("reading back a part of the safe outputs failed: {e}") }
}

impl OutputSink for Outputs {
    fn push(&mut self, o: SafeOutput<'static>) -> Result<()> {
        crate::feedback::note_output(&mut self.agent_prs, &o);
        if !self.parts.contains_key(o.run_id.as_ref()) {
            // One folder per part: each is a `safe_outputs` table of its own.
            let dir = self.dir.join(format!("part-{:03}", self.parts.len()));
            std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
            // A part's row groups are cut by bytes too: a part holds a group's rows until it
            // is encoded, and six agents' parts of 64k rows each would hold the study. The
            // joined table is grouped by rows alone, so its bytes do not change.
            let w = TableWriter::create(&dir, TABLE, crate::runs::tables::safe_outputs(&[]).arrow_schema())?.with_group_bytes(PART_GROUP_BYTES);
            self.parts.insert(o.run_id.to_string(), (dir, w, Vec::new()));
        }
        let Some((_, w, chunk)) = self.parts.get_mut(o.run_id.as_ref()) else { return Ok(()) };
        chunk.push(o);
        if chunk.len() >= CHUNK {
            Self::write_chunk(w, chunk)?;
        }
        Ok(())
    }
}
