//! `safe_outputs` and `responses` read a part at a time, for an evaluation that holds a
//! band of repositories at once rather than the study (`hindsight_evaluate`'s `bands`).

use std::collections::VecDeque;
use std::fs::File;
use std::path::{Path, PathBuf};

use arrow::array::{Array, AsArray};
use arrow::record_batch::RecordBatch;
use parquet::arrow::arrow_reader::{ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReader, ParquetRecordBatchReaderBuilder, RowSelection};
use parquet::arrow::ProjectionMask;
use parquet::file::metadata::PageIndexPolicy;

use super::read::{Cols, OutputFields, OwnColumns};
use crate::error::{Error, Result};

/// Rows decoded per batch.
const BATCH_ROWS: usize = 16 * 1024;

/// A reader of `table` decoding only the columns `keep` takes, text columns named in
/// `views` read as string views, one row group after another: of `rows`' row groups and
/// rows alone when given (the page index read, so pages holding none of them are skipped;
/// the footer `rows` read is used again, not read a second time).
fn reader(dataset: &Path, table: &str, keep: &dyn Fn(&str) -> bool, views: &[&str], rows: Option<Rows>) -> Result<ParquetRecordBatchReader> {
    let p = dataset.join(format!("{table}.parquet"));
    let file = File::open(&p).map_err(|e| Error::io(&p, e))?;
    let selected = rows.as_ref().is_some_and(|r| r.selection.is_some());
    let plain = match rows.as_ref().map(|r| r.footer.clone()) {
        Some(footer) => footer,
        None => ArrowReaderMetadata::load(&file, ArrowReaderOptions::new().with_page_index_policy(if selected { PageIndexPolicy::Optional } else { PageIndexPolicy::Skip }))?,
    };
    let meta = super::read::viewing(&plain, views)?;
    let roots: Vec<usize> = meta.schema().fields().iter().enumerate().filter(|(_, f)| keep(f.name())).map(|(i, _)| i).collect();
    let mask = ProjectionMask::roots(meta.parquet_schema(), roots);
    let mut builder = ParquetRecordBatchReaderBuilder::new_with_metadata(file, meta).with_projection(mask).with_batch_size(BATCH_ROWS);
    if let Some(Rows { groups, selection, .. }) = rows {
        builder = builder.with_row_groups(groups);
        if let Some(selection) = selection {
            builder = builder.with_row_selection(selection);
        }
    }
    Ok(builder.build()?)
}

/// Which rows of a table a range of repositories reads: the row groups that may hold them
/// (by the `repo` column's statistics) and, within those, the rows that do (by the column
/// itself; `None` when the table has no such column).
pub(crate) struct Rows {
    groups: Vec<usize>,
    selection: Option<RowSelection>,
    /// The table's footer and page index, read once for the selection and the rows' reader
    /// (a band of a large study read the footer of `responses` three times).
    footer: ArrowReaderMetadata,
}

/// Every row of `safe_outputs`, in the table's order, a batch at a time: the columns
/// `keep` takes (payloads and URLs as string views, as [`super::read::SafeOutputTable`]
/// reads them).
pub fn output_batches(dataset: &Path, keep: &dyn Fn(&str) -> bool, mut f: impl FnMut(RecordBatch) -> Result<()>) -> Result<()> {
    let batches = reader(dataset, "safe_outputs", keep, &["payload", "target_url"], None)?;
    // Decoded on a thread of its own, a batch ahead of `f`: planning and splitting a
    // million outputs into bands was one thread's work, decoding then using each batch.
    std::thread::scope(|scope| {
        let (tx, rx) = std::sync::mpsc::sync_channel::<Result<RecordBatch>>(1);
        let decoder = crate::phases::spawn_named(scope, "outputs", move || -> Result<()> {
            for b in batches {
                if tx.send(b.map_err(Error::from)).is_err() {
                    break;
                }
            }
            Ok(())
        });
        let mut used = || -> Result<()> {
            for b in &rx {
                f(b?)?;
            }
            Ok(())
        };
        let used = used();
        // On an error here the receiver goes, which stops the decoder too.
        drop(rx);
        let decoded = Error::joined(decoder.join(), dataset.join("safe_outputs.parquet"), "the thread reading safe_outputs stopped");
        used?;
        decoded
    })
}

/// The columns outcome rows repeat, read forward through `safe_outputs` as the rows are
/// written (in the outputs' order): only the batches the rows being written point at are
/// held.
pub struct OutputStream {
    path: PathBuf,
    reader: ParquetRecordBatchReader,
    /// The batches held, each with the position of its first row.
    held: VecDeque<(usize, OwnColumns)>,
    /// The position of the next row to read.
    next: usize,
}

/// The outputs an [`OutputStream`] holds now, by position in the table.
pub struct HeldOutputs<'s> {
    held: &'s VecDeque<(usize, OwnColumns)>,
}

impl OutputStream {
    pub fn open(dataset: &Path) -> Result<OutputStream> {
        let reader = reader(dataset, "safe_outputs", &|c| OwnColumns::NAMES.contains(&c), &[], None)?;
        Ok(OutputStream { path: dataset.join("safe_outputs.parquet"), reader, held: VecDeque::new(), next: 0 })
    }

    /// The outputs at positions `from..=to` held (those before `from` let go): positions
    /// asked for must never go back before a `from` asked for earlier.
    pub fn cover(&mut self, from: usize, to: usize) -> Result<HeldOutputs<'_>> {
        while self.held.front().is_some_and(|(start, c)| start + c.len() <= from) {
            self.held.pop_front();
        }
        while self.next <= to {
            let Some(b) = self.reader.next() else {
                return Err(Error::Dataset { path: self.path.clone(), message: format!("an outcome row points at output {to}, past the {} outputs", self.next) });
            };
            let b = b?;
            let columns = OwnColumns::of(&Cols::new("safe_outputs", &b))?;
            let rows = b.num_rows();
            if rows > 0 && self.next + rows > from {
                self.held.push_back((self.next, columns));
            }
            self.next += rows;
        }
        Ok(HeldOutputs { held: &self.held })
    }
}

impl HeldOutputs<'_> {
    /// The output at position `i`, `None` when it is not held.
    pub fn fields(&self, i: usize) -> Option<OutputFields<'_>> {
        let b = self.held.partition_point(|(start, _)| *start <= i).checked_sub(1)?;
        let (start, c) = &self.held[b];
        (i - start < c.len()).then(|| c.fields(i - start))
    }
}

/// A contiguous range of repositories in the order `responses` is sorted by (no repository
/// first, then by name): from `from` (included) to `until` (excluded; none: to the end).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RepoRange {
    pub from: Option<String>,
    pub until: Option<Option<String>>,
}

impl RepoRange {
    pub fn holds(&self, repo: Option<&str>) -> bool {
        self.from.as_deref() <= repo && self.until.as_ref().is_none_or(|u| repo < u.as_deref())
    }

    /// The row groups of a table (its footer, `meta`) that may hold rows of this range, by
    /// the statistics of its `repo` column (the `column`th leaf): every group where they are
    /// missing. What a band reads of the table is in these groups, and nowhere else.
    pub fn row_groups(&self, meta: &parquet::file::metadata::ParquetMetaData, column: usize) -> Vec<usize> {
        let may_hold = |g: &parquet::file::metadata::RowGroupMetaData| match g.column(column).statistics() {
            None => true,
            Some(s) => self.may_hold(s.null_count_opt().is_none_or(|n| n > 0), s.min_bytes_opt(), s.max_bytes_opt()),
        };
        meta.row_groups().iter().enumerate().filter(|(_, g)| may_hold(g)).map(|(i, _)| i).collect()
    }

    /// Whether a row group whose `repo` column has nulls (`nulls`) and values between `min`
    /// and `max` (each a bound, unknown when absent) can hold a row this range needs: the
    /// captures of no repository are needed by every range (the index they share).
    fn may_hold(&self, nulls: bool, min: Option<&[u8]>, max: Option<&[u8]>) -> bool {
        if nulls {
            return true;
        }
        let below = match (&self.from, max) {
            (Some(from), Some(max)) => max < from.as_bytes(),
            _ => false,
        };
        let above = match (&self.until, min) {
            (Some(Some(until)), Some(min)) => min >= until.as_bytes(),
            (Some(None), _) => true,
            _ => false,
        };
        !below && !above
    }
}

/// The rows of `responses` that `range` reads: those of its repositories and of no
/// repository, in the row groups that may hold them.
pub(crate) fn response_rows(dataset: &Path, range: &RepoRange) -> Result<Rows> {
    rows_in(dataset, "responses", range)
}

/// The rows of `table` that `range` reads (see [`response_rows`]). The row groups come from
/// the `repo` column's statistics (every group where one is missing); a group straddling the
/// range's ends is read whole only in its `repo` column, which is small (a dictionary of a
/// few names): the rows selected from it let the reader skip the other columns' pages that
/// hold none of the range's rows. A cluster's partitions each read their own repositories
/// so, not the row groups they share with their neighbours.
fn rows_in(dataset: &Path, table: &str, range: &RepoRange) -> Result<Rows> {
    let p = dataset.join(format!("{table}.parquet"));
    let file = File::open(&p).map_err(|e| Error::io(&p, e))?;
    let meta = ArrowReaderMetadata::load(&file, ArrowReaderOptions::new().with_page_index_policy(PageIndexPolicy::Optional))?;
    let Some(column) = meta.parquet_schema().columns().iter().position(|c| c.name() == "repo") else {
        return Ok(Rows { groups: (0..meta.metadata().num_row_groups()).collect(), selection: None, footer: meta });
    };
    let groups = range.row_groups(meta.metadata(), column);
    let mut filters = Vec::new();
    for b in reader(dataset, table, &|c| c == "repo", &[], Some(Rows { groups: groups.clone(), selection: None, footer: meta.clone() }))? {
        let b = b?;
        let repos = arrow::compute::cast(b.column(0), &arrow::datatypes::DataType::Utf8).map_err(|e| Error::Dataset { path: p.clone(), message: format!("column repo: {e}") })?;
        let repos = repos.as_string::<i32>();
        filters.push((0..b.num_rows()).map(|r| Some(repos.is_null(r) || range.holds(Some(repos.value(r))))).collect::<arrow::array::BooleanArray>());
    }
    Ok(Rows { groups, selection: Some(RowSelection::from_filters(&filters)), footer: meta })
}

/// Which row groups of `table` a band of `range` reads and, within them, which rows
/// ([`rows_in`]: the rows are none when the table has no `repo` column, and then every row of
/// the groups is read), with the table's footer and page index: what a band's reader reads
/// of the file, said before it is read (`hindsight_report::mirror` fetches just that).
pub fn band_rows(dataset: &Path, table: &str, range: &RepoRange) -> Result<(Vec<usize>, Option<RowSelection>, ArrowReaderMetadata)> {
    let Rows { groups, selection, footer } = rows_in(dataset, table, range)?;
    Ok((groups, selection, footer))
}

/// A reader of `responses`' rows `rows` (all when none), decoding `keep`'s columns, bodies
/// as string views.
pub(crate) fn responses_reader(dataset: &Path, keep: &dyn Fn(&str) -> bool, rows: Option<Rows>) -> Result<ParquetRecordBatchReader> {
    reader(dataset, "responses", keep, &["body"], rows)
}

/// `read::columns` of the rows of `range`'s repositories alone (a row with no repository
/// is in the range that starts at none), reading only the rows that may hold them
/// ([`rows_in`]). `names` must include `repo`.
pub fn columns_in(dataset: &Path, range: &RepoRange, table: &str, names: &[&str]) -> Result<Vec<RecordBatch>> {
    if *range == RepoRange::default() {
        return super::read::columns(dataset, table, names);
    }
    let rows = rows_in(dataset, table, range)?;
    let mut out = Vec::new();
    for b in reader(dataset, table, &|c| names.contains(&c), &[], Some(rows))? {
        let b = b?;
        let repos = Cols::new(table, &b).col::<arrow::array::StringArray>("repo")?.clone();
        let keep: arrow::array::BooleanArray = (0..b.num_rows()).map(|r| Some(range.holds((!repos.is_null(r)).then(|| repos.value(r))))).collect();
        let path = dataset.join(format!("{table}.parquet"));
        out.push(arrow::compute::filter_record_batch(&b, &keep).map_err(|e| Error::Dataset { path, message: e.to_string() })?);
    }
    Ok(out)
}

/// Contiguous ranges of whole repositories of about `per_band` rows each (`per_repo`: the
/// rows of each repository, in order), covering every repository, those with no row too.
pub fn cut(per_repo: &std::collections::BTreeMap<Option<String>, usize>, per_band: usize) -> Vec<RepoRange> {
    let mut starts: Vec<Option<String>> = vec![None];
    let mut held = 0usize;
    for (repo, n) in per_repo {
        if held > 0 && held + n > per_band {
            starts.push(repo.clone());
            held = 0;
        }
        held += n;
    }
    let untils = starts.iter().skip(1).map(|s| Some(s.clone())).chain([None]);
    starts.iter().cloned().zip(untils).map(|(from, until)| RepoRange { from, until }).collect()
}

#[cfg(test)]
mod tests {
    use super::RepoRange;

    #[test]
    fn bands_are_whole_repositories_in_order_covering_every_one() {
        let per: std::collections::BTreeMap<Option<String>, usize> =
            [(None, 2), (Some("a/a".into()), 3), (Some("b/b".into()), 9), (Some("c/c".into()), 1), (Some("d/d".into()), 4)].into_iter().collect();
        let ranges = super::cut(&per, 5);
        let froms: Vec<Option<&str>> = ranges.iter().map(|r| r.from.as_deref()).collect();
        assert_eq!(froms, vec![None, Some("b/b"), Some("c/c")]);
        // Every repository, those with no row among them, is in exactly one band.
        for repo in [None, Some("a/a"), Some("a/b"), Some("b/b"), Some("bb/x"), Some("c/c"), Some("d/d"), Some("z/z")] {
            assert_eq!(ranges.iter().filter(|r| r.holds(repo)).count(), 1, "{repo:?}");
        }
        assert_eq!(super::cut(&per, 100).len(), 1);
    }

    #[test]
    fn a_range_holds_its_repositories_and_row_groups_are_kept_where_they_may() {
        let r = RepoRange { from: Some("b/b".into()), until: Some(Some("d/d".into())) };
        assert!(!r.holds(None) && !r.holds(Some("a/a")) && r.holds(Some("b/b")) && r.holds(Some("c/c")) && !r.holds(Some("d/d")));
        let first = RepoRange { from: None, until: Some(Some("b/b".into())) };
        assert!(first.holds(None) && first.holds(Some("a/a")) && !first.holds(Some("b/b")));
        assert!(RepoRange::default().holds(Some("z/z")) && RepoRange::default().holds(None));
        // A group entirely before, entirely after, straddling, or holding no-repository rows.
        assert!(!r.may_hold(false, Some(b"a/a"), Some(b"a/z")));
        assert!(!r.may_hold(false, Some(b"d/d"), Some(b"e/e")));
        assert!(r.may_hold(false, Some(b"a/a"), Some(b"b/b")));
        assert!(r.may_hold(true, Some(b"x/x"), Some(b"y/y")));
        assert!(r.may_hold(false, None, None));
        // A range that ends before every repository (`Some(None)`) keeps only no-repository groups.
        let none_only = RepoRange { from: None, until: Some(None) };
        assert!(!none_only.may_hold(false, Some(b"a/a"), Some(b"b/b")) && none_only.may_hold(true, None, None));
    }
}
