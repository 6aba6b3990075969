//! Captures sorted in runs of bounded size, spilled to disk when a snapshot is larger than
//! the budget, and merged back in order: convert holds about one budget of bodies at a time
//! whatever the snapshot's size. A snapshot within the budget never touches the disk. The
//! sorting, spilling and merging are the spill engine's (`crate::spill`); this says how a
//! capture is ordered, written and read back, and what the merged stream hands out.
//!
//! The order is (repository, path, page, file, line): the `responses` table is grouped by
//! repository as evaluation reads it, and copies of one (path, page) meet side by side.
//! Of several copies the one captured last is used (its own `captured_at`, a line without
//! one counting as taken at the snapshot's time, the latest; ties go to the later file and
//! line): the newest state wins. The others stay, marked superseded.

use std::cmp::Ordering;
use std::io::{Read, Write};
use std::path::Path;

use rayon::prelude::*;

use super::{paths, Capture};
use crate::error::{Error, Result};
use crate::spill::bytes::{at_end, put, string_of, u64_of};
use crate::spill::{Cleanup, Format, Merge as Merged, Spill};

type Key<'a> = (Option<&'a str>, &'a str, i64, &'a str, Option<usize>);

/// A capture with where its repository sits in its path, found once: sorting and merging
/// compare keys millions of times.
struct Keyed {
    repo: Option<(u32, u32)>,
    c: Capture,
}

impl Keyed {
    fn new(c: Capture) -> Keyed {
        let repo = paths::repo_of(&c.path).map(|r| {
            let start = r.as_ptr() as usize - c.path.as_ptr() as usize;
            (start as u32, (start + r.len()) as u32)
        });
        Keyed { repo, c }
    }
    fn key(&self) -> Key<'_> {
        let c = &self.c;
        (self.repo.map(|(a, b)| &c.path[a as usize..b as usize]), &c.path, c.page, &c.file, c.line)
    }
}

/// Bytes a capture holds in memory, roughly.
fn weight(c: &Capture) -> usize {
    c.body.len() + c.path.len() + c.file.len() + 96
}

/// Captures as the spill engine holds, writes and reads them. A run is written in place:
/// convert holds one budget of captures at a time.
struct Captures;

impl Format for Captures {
    type Held = Keyed;
    type Run = Sorted;
    const NAME: &'static str = "captures";
    const EXT: &'static str = "bin";
    const BESIDE: bool = false;

    fn write_run(p: &Path, mut held: Vec<Keyed>) -> Result<()> {
        sort(&mut held);
        crate::spill::write_run_in_frames(p, &held, |k| weight(&k.c), |w, k| encode(w, &k.c))?;
        // Freed on another thread: dropping millions of strings is not free.
        rayon::spawn(move || drop(held));
        Ok(())
    }

    fn open(p: &Path) -> Result<Sorted> {
        Sorted::disk(p)
    }

    fn write_merged(p: &Path, mut runs: Merged<Sorted>) -> Result<()> {
        let mut w = crate::spill::create_run(p)?;
        while let Some(k) = runs.next(|_, r| r.take())?.flatten() {
            encode(&mut w, &k.c).map_err(|e| Error::io(p, e))?;
        }
        crate::spill::close_run(w, p)
    }
}

fn sort(buffer: &mut [Keyed]) {
    // Keys are unique (file and line tell every capture apart), so an unstable sort is
    // still deterministic.
    buffer.par_sort_unstable_by(|a, b| a.key().cmp(&b.key()));
}

/// Sorted runs of captures: one in memory, the earlier ones on disk.
pub struct Runs {
    spill: Spill<Captures>,
    /// Captures pushed so far.
    pub(crate) count: usize,
}

impl Runs {
    /// Runs of about `budget` bytes; spill files go in `dir` (created on first spill).
    pub fn new(dir: &Path, budget: usize) -> Runs {
        Runs { spill: Spill::new(dir, budget), count: 0 }
    }

    pub(crate) fn push(&mut self, c: Capture) -> Result<()> {
        let bytes = weight(&c);
        self.count += 1;
        self.spill.push(Keyed::new(c), bytes)
    }

    /// How many runs went to disk.
    #[cfg(test)]
    pub(crate) fn spilled(&self) -> usize {
        self.spill.spilled()
    }

    /// All captures in order, duplicates set aside.
    pub fn merge(mut self) -> Result<Merge> {
        let mut left = self.spill.take_held();
        sort(&mut left);
        let (mut runs, cleanup) = self.spill.into_runs()?;
        if !left.is_empty() {
            runs.push(Sorted::memory(left)?);
        }
        Ok(Merge { runs: Merged::new(runs), _cleanup: cleanup })
    }
}

impl crate::spill::Record for Keyed {
    fn cmp_key(&self, other: &Self) -> Ordering {
        self.key().cmp(&other.key())
    }

    fn decode(r: &mut crate::spill::RunReader) -> std::io::Result<Option<Keyed>> {
        Ok(decode(r)?.map(Keyed::new))
    }
}

/// A sorted run of captures.
type Sorted = crate::spill::Sorted<Keyed>;

/// The merged stream, handed out whole repositories at a time.
pub struct Merge {
    runs: Merged<Sorted>,
    /// Removes the spill files once the merge is done with them.
    _cleanup: Cleanup,
}

impl Merge {
    fn pop(&mut self) -> Result<Option<Keyed>> {
        Ok(self.runs.next(|_, r| r.take())?.flatten())
    }

    /// The next captures in order: whole repositories (the paths of no repository are one
    /// group) until about `bytes` are gathered, so every typed table can be built from the
    /// batch alone. An empty batch means the end.
    pub fn next_batch(&mut self, bytes: usize) -> Result<Vec<Capture>> {
        let mut batch: Vec<Capture> = Vec::new();
        let mut size = 0usize;
        loop {
            if size >= bytes {
                let (Some(last), Some(next)) = (batch.last(), self.runs.first().and_then(|r| r.head.as_ref())) else { break };
                if paths::repo_of(&last.path) != next.key().0 {
                    break;
                }
            }
            let Some(Keyed { c, .. }) = self.pop()? else { break };
            size += weight(&c);
            batch.push(c);
        }
        mark_superseded(&mut batch);
        Ok(batch)
    }
}

/// Of each run of copies of one (path, page), every one but the latest is marked
/// superseded by it. A batch ends only where the repository changes, so copies never span
/// two batches.
fn mark_superseded(batch: &mut [Capture]) {
    // Later is greater: no time of its own means the snapshot's, the latest; then file, line.
    let key = |c: &Capture| (c.captured_at.is_none(), c.captured_at);
    let mut start = 0;
    while start < batch.len() {
        let mut end = start + 1;
        while end < batch.len() && batch[end].path == batch[start].path && batch[end].page == batch[start].page {
            end += 1;
        }
        if end - start > 1 {
            // Within the run the order is (file, line) already: the last of the greatest key.
            let mut winner = start;
            for i in start + 1..end {
                if key(&batch[i]) >= key(&batch[winner]) {
                    winner = i;
                }
            }
            let place = batch[winner].place();
            for (i, c) in batch.iter_mut().enumerate().take(end).skip(start) {
                if i != winner {
                    c.superseded_by = Some(place.clone());
                }
            }
        }
        start = end;
    }
}

fn encode(w: &mut impl Write, c: &Capture) -> std::io::Result<()> {
    put(w, c.path.as_bytes())?;
    w.write_all(&c.page.to_le_bytes())?;
    w.write_all(&c.status.to_le_bytes())?;
    w.write_all(&c.captured_at.map_or(i64::MIN, |t| t.timestamp_micros()).to_le_bytes())?;
    put(w, c.file.as_bytes())?;
    w.write_all(&c.line.map_or(u64::MAX, |l| l as u64).to_le_bytes())?;
    put(w, c.body.as_bytes())
}

/// The next capture of a spill file, `None` at its end.
fn decode(r: &mut crate::spill::RunReader) -> std::io::Result<Option<Capture>> {
    if at_end(r)? {
        return Ok(None);
    }
    let path = string_of(r)?;
    let page = u64_of(r)? as i64;
    let mut s = [0u8; 2];
    r.read_exact(&mut s)?;
    let status = u16::from_le_bytes(s);
    let at = u64_of(r)? as i64;
    let file = string_of(r)?;
    let line = u64_of(r)?;
    let body = string_of(r)?;
    Ok(Some(Capture {
        path,
        status,
        page,
        captured_at: if at == i64::MIN { None } else { crate::time::from_micros(at) },
        body,
        file,
        line: if line == u64::MAX { None } else { Some(line as usize) },
        superseded_by: None,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cap(path: &str, page: i64, file: &str, line: usize, body: &str) -> Capture {
        Capture {
            path: path.into(),
            status: 200,
            page,
            captured_at: crate::time::parse("2026-01-02T03:04:05Z"),
            body: body.into(),
            file: file.into(),
            line: Some(line),
            superseded_by: None,
        }
    }

    /// (path, page, file, line) of each capture in merge order, and the superseded count.
    type Merged = (Vec<(String, i64, String, Option<usize>)>, usize);

    fn all(runs: Runs) -> Merged {
        let mut m = runs.merge().unwrap();
        let (mut out, mut superseded) = (Vec::new(), 0);
        loop {
            let b = m.next_batch(1).unwrap();
            if b.is_empty() {
                break;
            }
            superseded += b.iter().filter(|c| c.superseded_by.is_some()).count();
            out.extend(b.into_iter().filter(|c| c.superseded_by.is_none()).map(|c| (c.path, c.page, c.file, c.line)));
        }
        (out, superseded)
    }

    #[test]
    fn spilled_runs_merge_to_the_order_and_duplicates_of_one_sorted_run() {
        let dir = tempfile::tempdir().unwrap();
        let input = vec![
            cap("repos/b/y/pulls/1", 1, "a.jsonl", 1, "{\"n\":1}"),
            cap("users/octo", 1, "a.jsonl", 2, "{}"),
            cap("repos/a/x/issues/2/comments", 2, "a.jsonl", 3, "[3]"),
            cap("repos/a/x/issues/2/comments", 1, "a.jsonl", 4, "[1,2]"),
            cap("repos/b/y/pulls/1", 1, "b.jsonl", 1, "{\"n\":\"copy\"}"),
            cap("repos/a/x/issues/2", 1, "b.jsonl", 2, "{}"),
        ];
        let mut in_memory = Runs::new(&dir.path().join("mem"), usize::MAX);
        let mut on_disk = Runs::new(&dir.path().join("disk"), 1);
        for c in input {
            in_memory.push(c.clone()).unwrap();
            on_disk.push(c).unwrap();
        }
        assert_eq!(on_disk.spilled(), 6);
        assert_eq!(in_memory.spilled(), 0);
        let (a, dup_a) = all(in_memory);
        let (b, dup_b) = all(on_disk);
        assert_eq!(a, b);
        assert_eq!((dup_a, dup_b), (1, 1));
        let order: Vec<(&str, i64)> = a.iter().map(|(p, n, _, _)| (p.as_str(), *n)).collect();
        assert_eq!(
            order,
            [("users/octo", 1), ("repos/a/x/issues/2", 1), ("repos/a/x/issues/2/comments", 1), ("repos/a/x/issues/2/comments", 2), ("repos/b/y/pulls/1", 1)]
        );
        // Captured at the same time: the later file (b.jsonl) is used.
        assert_eq!(a[4].2, "b.jsonl");
        assert!(!dir.path().join("disk").exists(), "spill files are removed after the merge");
    }

    /// A run larger than a frame is written as several frames compressed side by side: read
    /// back it is every capture, body included, in the order of the run kept in memory.
    #[test]
    fn a_run_of_many_frames_reads_back_whole_and_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let input: Vec<Capture> = (0..400usize)
            .map(|i| cap(&format!("repos/r{}/x/pulls/{}", i % 7, i), 1, "a.jsonl", i + 1, &format!("{{\"n\":{i},\"pad\":\"{}\"}}", "x".repeat(40_000 + i))))
            .collect();
        let total: usize = input.iter().map(weight).sum();
        assert!(total > 3 * crate::spill::FRAME_BYTES, "the run must span several frames");
        let mut in_memory = Runs::new(&dir.path().join("mem"), usize::MAX);
        // One run: the budget is reached by the last capture only.
        let mut on_disk = Runs::new(&dir.path().join("disk"), total);
        for c in input {
            in_memory.push(c.clone()).unwrap();
            on_disk.push(c).unwrap();
        }
        assert_eq!(on_disk.spilled(), 1);
        let bodies = |runs: Runs| {
            let mut m = runs.merge().unwrap();
            let mut out = Vec::new();
            loop {
                let b = m.next_batch(1 << 20).unwrap();
                if b.is_empty() {
                    break out;
                }
                out.extend(b.into_iter().map(|c| (c.path, c.line, c.body)));
            }
        };
        let (a, b) = (bodies(in_memory), bodies(on_disk));
        assert_eq!(a.len(), 400);
        assert!(a == b, "a run read back from its frames differs from the run held in memory");
    }

    /// More runs than may be open at once are merged a few at a time first, over several
    /// rounds here (20 runs, 3 at a time): the order and the copies set aside are those of
    /// captures never spilled.
    #[test]
    fn many_runs_are_merged_a_few_at_a_time_to_the_same_order() {
        let dir = tempfile::tempdir().unwrap();
        let mut in_memory = Runs::new(&dir.path().join("mem"), usize::MAX);
        let mut on_disk = Runs { spill: Spill::new(&dir.path().join("disk"), 1).with_fan_in(3), count: 0 };
        for i in 0..20usize {
            // Out of order, across repositories, with copies of one path in other files.
            let c = cap(&format!("repos/r{}/x/pulls/{}", i % 4, i % 3), 1, if i % 2 == 0 { "a.jsonl" } else { "b.jsonl" }, 20 - i, "{}");
            in_memory.push(c.clone()).unwrap();
            on_disk.push(c).unwrap();
        }
        assert_eq!(on_disk.spilled(), 20);
        let (a, b) = (all(in_memory), all(on_disk));
        assert!(a.1 > 0, "no copies to set aside");
        assert_eq!(a, b);
        assert!(!dir.path().join("disk").exists(), "spill files are removed after the merge");
    }

    #[test]
    fn the_copy_captured_last_is_used_and_the_others_are_superseded() {
        let at = |c: Capture, t: Option<&str>| Capture { captured_at: t.and_then(crate::time::parse), ..c };
        let mut batch = vec![
            at(cap("repos/a/x/issues/1/comments", 1, "a.jsonl", 1, "[1,2,3]"), Some("2026-01-05T00:00:00Z")),
            at(cap("repos/a/x/issues/1/comments", 1, "b.jsonl", 7, "[1]"), Some("2026-01-01T00:00:00Z")),
            at(cap("repos/a/x/issues/2", 1, "a.jsonl", 2, "{}"), Some("2026-01-01T00:00:00Z")),
            at(cap("repos/a/x/issues/2", 1, "b.jsonl", 1, "{}"), None),
        ];
        mark_superseded(&mut batch);
        let marks: Vec<Option<&str>> = batch.iter().map(|c| c.superseded_by.as_deref()).collect();
        assert_eq!(marks, [None, Some("a.jsonl:1"), Some("b.jsonl:1"), None]);
    }

    #[test]
    fn batches_hold_whole_repositories() {
        let dir = tempfile::tempdir().unwrap();
        let mut runs = Runs::new(dir.path(), 2);
        for (i, p) in ["repos/a/x/pulls/1", "repos/a/x/pulls/2", "repos/a/x/pulls/3", "repos/b/y/pulls/1"].iter().enumerate() {
            runs.push(cap(p, 1, "a.jsonl", i + 1, "{}")).unwrap();
        }
        let mut m = runs.merge().unwrap();
        let sizes: Vec<usize> = std::iter::from_fn(|| Some(m.next_batch(1).unwrap().len()).filter(|n| *n > 0)).collect();
        assert_eq!(sizes, [3, 1]);
    }
}
