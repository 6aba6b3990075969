//! A band's share of a dataset in an object store, fetched into a folder here, so that a
//! cluster's partition judges it with the local run's own readers, on an executor that
//! shares no folder with the client.
//!
//! A band reads some tables whole and `responses` only in the rows of its repositories
//! (`evaluate::stage::BAND_READS`). Such a table is fetched as a file of the table's size
//! that holds what the local reader reads of it for the band, and holes elsewhere: its
//! footer and page index, the `repo` column of the row groups that may hold the band's rows
//! (`RepoRange::row_groups`, the statistics the reader goes by), and, of the other columns,
//! the pages holding any row the reader selects from those (`stream::band_rows`, its own
//! selection) with their dictionaries. The reader reads that file as it reads the table,
//! because what it reads is what was fetched; so a band fetches about its share of the
//! captures, not the row groups it shares with its neighbours, nor the whole table.
//! `tests/it` judges every band of a study so, and compares with the local evaluate.

use std::ops::Range;
use std::os::unix::fs::FileExt;
use std::path::Path;

use object_store::{ObjectStore, ObjectStoreExt};

use crate::dataset::stream::RepoRange;
use crate::error::{Error, Result};
use crate::evaluate::stage::{BandRead, BAND_READS};

/// Where a dataset's tables are in an object store: the store, the prefix the tables are
/// under, and how the place is said in messages (`s3://bucket/prefix/versions/ID`).
pub struct Tables<'a> {
    pub store: &'a dyn ObjectStore,
    pub prefix: object_store::path::Path,
    pub shown: String,
}

impl Tables<'_> {
    fn key(&self, file: &str) -> object_store::path::Path {
        self.prefix.clone().join(file)
    }

    fn said(&self, file: &str, e: object_store::Error) -> Error {
        Error::remote(format!("{}/{file}", self.shown), format!("cannot be read: {}", crate::location::said(&e)))
    }
}

/// The tables a band of `range` reads (`BAND_READS`), fetched into the folder `dir` (which
/// exists): those read whole, whole; those read by repositories, in the rows `range` may
/// need. A table the dataset does not have is left out, as it is absent from a dataset on
/// disk. Returns the bytes fetched.
pub async fn fetch_band(tables: &Tables<'_>, dir: &Path, range: &RepoRange) -> Result<u64> {
    let mut fetched = 0;
    for (table, read) in BAND_READS {
        let file = format!("{table}.parquet");
        let got = match read {
            BandRead::Whole => fetch_whole(tables, &file, &dir.join(&file)).await?,
            BandRead::Repositories => fetch_rows(tables, &file, &dir.join(&file), range).await?,
        };
        fetched += got.unwrap_or(0);
    }
    Ok(fetched)
}

/// The object `file` written to `to`, a part at a time: its bytes, or none when there is no
/// such object.
async fn fetch_whole(tables: &Tables<'_>, file: &str, to: &Path) -> Result<Option<u64>> {
    let saved = crate::location::save_object(tables.store, &tables.key(file), &format!("{}/{file}", tables.shown), to).await?;
    Ok(saved.map(|(bytes, _)| bytes))
}

/// Bytes read from a table's end at once: its footer, and usually its page index too.
const TAIL: u64 = 64 << 10;

/// The Parquet table `file` written to `to` as a band of `range` reads it (see the module's
/// comment); none when there is no such object. Fetched in two rounds: the footer, then the
/// page index and the `repo` column of the row groups that may hold the band's rows; then,
/// the band's rows told from those (by the local reader's own selection, on this file), the
/// pages of the other columns that hold any of them, and their dictionaries.
async fn fetch_rows(tables: &Tables<'_>, file: &str, to: &Path, range: &RepoRange) -> Result<Option<u64>> {
    let key = tables.key(file);
    let size = match tables.store.head(&key).await {
        Err(object_store::Error::NotFound { .. }) => return Ok(None),
        got => got.map_err(|e| tables.said(file, e))?.size,
    };
    let bad = |why: String| Error::remote(format!("{}/{file}", tables.shown), format!("not a Parquet file hindsight wrote: {why}"));
    if size < 12 {
        return Err(bad(format!("{size} bytes")));
    }
    let tail_at = size - size.min(TAIL);
    let tail = tables.store.get_range(&key, tail_at..size).await.map_err(|e| tables.said(file, e))?;
    let end = &tail[tail.len() - 8..];
    if &end[4..] != b"PAR1" {
        return Err(bad("no PAR1 at its end".into()));
    }
    let footer_len = u64::from(u32::from_le_bytes([end[0], end[1], end[2], end[3]]));
    let footer_at = size.checked_sub(8 + footer_len).filter(|at| *at >= 4).ok_or_else(|| bad(format!("a footer of {footer_len} bytes in {size}")))?;
    let footer = match footer_at >= tail_at {
        true => tail.slice((footer_at - tail_at) as usize..tail.len() - 8),
        false => tables.store.get_range(&key, footer_at..size - 8).await.map_err(|e| tables.said(file, e))?,
    };
    let meta = parquet::file::metadata::ParquetMetaDataReader::decode_metadata(&footer).map_err(|e| bad(e.to_string()))?;
    let out = std::fs::File::create(to).map_err(|e| Error::io(to, e))?;
    out.set_len(size).map_err(|e| Error::io(to, e))?;
    out.write_all_at(&tail, tail_at).map_err(|e| Error::io(to, e))?;
    out.write_all_at(&footer, footer_at).map_err(|e| Error::io(to, e))?;
    let mut fetched = tail.len() as u64 + if footer_at >= tail_at { 0 } else { footer_len };
    let (first, repo) = first_round(&meta, range).map_err(&bad)?;
    fetched += fetch_into(tables, file, (&out, to), first, footer_at).await?;
    let Some(repo) = repo else {
        return Ok(Some(fetched));
    };
    let dir = to.parent().unwrap_or(Path::new("."));
    let table = file.strip_suffix(".parquet").unwrap_or(file);
    let (groups, selection, footer) = crate::dataset::stream::band_rows(dir, table, range)?;
    let second = pages_of(footer.metadata(), &groups, selection, repo).map_err(&bad)?;
    fetched += fetch_into(tables, file, (&out, to), second, footer_at).await?;
    Ok(Some(fetched))
}

/// The byte ranges `ranges` of the table `file`, fetched and written into `out` (the file
/// `to`) at their places (none past the footer, at `footer_at`). Returns the bytes fetched.
async fn fetch_into(tables: &Tables<'_>, file: &str, (out, to): (&std::fs::File, &Path), ranges: Vec<Range<u64>>, footer_at: u64) -> Result<u64> {
    let ranges = coalesce(ranges);
    if let Some(r) = ranges.iter().find(|r| r.end > footer_at) {
        let why = format!("not a Parquet file hindsight wrote: bytes {}..{} named past the footer at {footer_at}", r.start, r.end);
        return Err(Error::remote(format!("{}/{file}", tables.shown), why));
    }
    let got = tables.store.get_ranges(&tables.key(file), &ranges).await.map_err(|e| tables.said(file, e))?;
    let mut fetched = 0;
    for (r, bytes) in ranges.iter().zip(&got) {
        out.write_all_at(bytes, r.start).map_err(|e| Error::io(to, e))?;
        fetched += bytes.len() as u64;
    }
    Ok(fetched)
}

/// A byte range of the file, from an offset and a length as the footer gives them.
fn span(at: i64, len: i64) -> std::result::Result<Range<u64>, String> {
    let (at, len) = (u64::try_from(at).map_err(|_| format!("an offset {at}"))?, u64::try_from(len).map_err(|_| format!("a length {len}"))?);
    Ok(at..at + len)
}

/// The first round of a table's fetch (its footer, `meta`): the page index, and the `repo`
/// column of the row groups that may hold `range`'s rows; with that column's position. A
/// table without one is read whole in those groups: every column chunk of them.
fn first_round(meta: &parquet::file::metadata::ParquetMetaData, range: &RepoRange) -> std::result::Result<(Vec<Range<u64>>, Option<usize>), String> {
    let mut ranges = Vec::new();
    for c in meta.row_groups().iter().flat_map(|g| g.columns()) {
        if let (Some(at), Some(len)) = (c.column_index_offset(), c.column_index_length()) {
            ranges.push(span(at, len.into())?);
        }
        if let (Some(at), Some(len)) = (c.offset_index_offset(), c.offset_index_length()) {
            ranges.push(span(at, len.into())?);
        }
    }
    let repo = meta.file_metadata().schema_descr().columns().iter().position(|c| c.name() == "repo");
    let groups = match repo {
        Some(column) => range.row_groups(meta, column),
        None => (0..meta.num_row_groups()).collect(),
    };
    for g in groups.into_iter().map(|i| meta.row_group(i)) {
        for (i, c) in g.columns().iter().enumerate() {
            if repo.is_none_or(|r| r == i) {
                ranges.push(span(c.dictionary_page_offset().unwrap_or(c.data_page_offset()), c.compressed_size())?);
            }
        }
    }
    Ok((ranges, repo))
}

/// The second round: in each row group `groups` names, the pages of every column but `repo`
/// (fetched already) that hold any row of `selection` (by the page index), and the
/// column's dictionary page. Every page of the groups when there is no selection.
fn pages_of(
    meta: &parquet::file::metadata::ParquetMetaData,
    groups: &[usize],
    mut selection: Option<parquet::arrow::arrow_reader::RowSelection>,
    repo: usize,
) -> std::result::Result<Vec<Range<u64>>, String> {
    let mut ranges = Vec::new();
    for &g in groups {
        let group = meta.row_group(g);
        let rows = usize::try_from(group.num_rows()).map_err(|_| format!("row group {g} of {} rows", group.num_rows()))?;
        let selected = selection.as_mut().map(|s| s.split_off(rows));
        for (i, c) in group.columns().iter().enumerate().filter(|(i, _)| *i != repo) {
            let pages = meta.offset_index().and_then(|o| o.get(g)?.get(i)).map(|o| o.page_locations());
            match (pages, &selected) {
                (Some(pages), Some(selected)) if !pages.is_empty() => {
                    let first = pages[0].offset;
                    if let Some(dictionary) = c.dictionary_page_offset().filter(|d| *d < first) {
                        ranges.push(span(dictionary, first - dictionary)?);
                    }
                    ranges.extend(selected.scan_ranges(pages));
                }
                _ => ranges.push(span(c.dictionary_page_offset().unwrap_or(c.data_page_offset()), c.compressed_size())?),
            }
        }
    }
    Ok(ranges)
}

/// `ranges` sorted, those that touch or overlap merged: fewer, larger requests.
fn coalesce(mut ranges: Vec<Range<u64>>) -> Vec<Range<u64>> {
    ranges.sort_by_key(|r| (r.start, r.end));
    let mut out: Vec<Range<u64>> = Vec::with_capacity(ranges.len());
    for r in ranges.into_iter().filter(|r| !r.is_empty()) {
        match out.last_mut() {
            Some(last) if r.start <= last.end => last.end = last.end.max(r.end),
            _ => out.push(r),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::coalesce;

    #[test]
    fn ranges_that_touch_are_one_request() {
        assert_eq!(coalesce(vec![10..20, 0..5, 5..8, 15..30, 40..40, 31..35]), vec![0..8, 10..30, 31..35]);
    }
}
