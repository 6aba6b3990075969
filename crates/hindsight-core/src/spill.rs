//! The one external sort: items held in memory up to a budget, written to disk as sorted
//! runs beyond it, and merged back in order. Convert's captures (`snapshot::spill`) and
//! evaluate's outcome rows (`evaluate::spill`) both go through it; each says only how its
//! items are held, sorted, written and read back (a [`Format`]), and each caller names the
//! budget for what it bounds.
//!
//! Items that never pass the budget never touch the disk: the caller takes them back with
//! [`Spill::take_held`] and sorts them in memory. Once any run is on disk, the runs are
//! opened by [`Spill::into_runs`], first merged [`FAN_IN`] at a time into longer runs when
//! there are more (so a merge never holds more files open than that, however many runs a
//! study spills), and read in order through a [`Merge`]. Keys are unique, so the order a
//! merge gives cannot depend on how runs were cut or grouped.
//!
//! The spill folder is created at the first spill and removed with the last thing that
//! reads from it (the [`Spill`], or the [`Cleanup`] handed out with its runs).

use std::cmp::Ordering;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// Runs merged at once at most: each is an open file and what is read of it. More runs than
/// this are first merged this many at a time into longer ones.
pub const FAN_IN: usize = 64;

/// How one kind of item is held, written as a sorted run, and read back.
pub trait Format: 'static {
    /// What is held between spills, in any order.
    type Held: Send + 'static;
    /// A sorted run, read in order.
    type Run: Run;
    /// Names the spill files (`<NAME>-00000.<EXT>`) and the errors.
    const NAME: &'static str;
    const EXT: &'static str;
    /// Whether a run is written on a thread of its own while the next one is held (at most
    /// one run is written while the next is filled: two budgets in memory), rather than in
    /// place before `push` returns (one budget).
    const BESIDE: bool;
    /// Sort `held` and write it to `path` as one run.
    fn write_run(path: &Path, held: Vec<Self::Held>) -> Result<()>;
    /// A run written by `write_run` or `write_merged`, read from its start.
    fn open(path: &Path) -> Result<Self::Run>;
    /// Write everything `runs` merges, in order, to `path` as one run.
    fn write_merged(path: &Path, runs: Merge<Self::Run>) -> Result<()>;
}

/// A sorted run being read: what a [`Merge`] needs of it.
pub trait Run {
    /// This run's first item against `other`'s (both have one).
    fn cmp_heads(&self, other: &Self) -> Ordering;
    /// Whether the run has no item left.
    fn is_done(&self) -> bool;
}

/// Items held to a budget: those held in memory, the earlier ones in sorted runs on disk.
pub struct Spill<F: Format> {
    dir: PathBuf,
    budget: usize,
    held: Vec<F::Held>,
    held_bytes: usize,
    /// Runs written (or handed to the writer) so far.
    sent: usize,
    /// Runs merged at once at most (`FAN_IN`; smaller in tests).
    fan_in: usize,
    /// Runs on disk, written in place.
    written: Vec<PathBuf>,
    /// The thread writing runs, when the format writes beside.
    writer: Option<Writer<F>>,
}

/// The thread that sorts and writes runs, so that filling goes on meanwhile. It takes a run
/// only when done with the one before.
struct Writer<F: Format> {
    runs: std::sync::mpsc::SyncSender<Vec<F::Held>>,
    written: std::thread::JoinHandle<Result<Vec<PathBuf>>>,
}

impl<F: Format> Writer<F> {
    fn start(dir: &Path) -> Result<Writer<F>> {
        let (runs, rx) = std::sync::mpsc::sync_channel::<Vec<F::Held>>(0);
        let at = dir.to_path_buf();
        let written = std::thread::Builder::new()
            .name("spill".into())
            .spawn(move || {
                let mut files = Vec::new();
                for held in rx {
                    let p = run_path::<F>(&at, "", files.len());
                    F::write_run(&p, held)?;
                    files.push(p);
                }
                Ok(files)
            })
            .map_err(|e| Error::io(dir, e))?;
        Ok(Writer { runs, written })
    }

    /// The files written, once every run handed over is on disk; the first error otherwise.
    fn finish(self, dir: &Path) -> Result<Vec<PathBuf>> {
        drop(self.runs);
        Error::joined(self.written.join(), dir, &format!("the thread writing spilled {} failed", F::NAME))
    }
}

fn run_path<F: Format>(dir: &Path, kind: &str, n: usize) -> PathBuf {
    dir.join(format!("{}{kind}-{n:05}.{}", F::NAME, F::EXT))
}

impl<F: Format> Spill<F> {
    /// Runs of about `budget` bytes; spill files go in `dir` (created at the first spill,
    /// removed when what reads them is dropped).
    pub fn new(dir: &Path, budget: usize) -> Spill<F> {
        Spill { dir: dir.to_path_buf(), budget: budget.max(1), held: Vec::new(), held_bytes: 0, sent: 0, fan_in: FAN_IN, written: Vec::new(), writer: None }
    }

    /// Runs merged `fan_in` at a time at most (small in tests, to merge in several rounds;
    /// the tests of the layers above call it too).
    #[doc(hidden)]
    pub fn with_fan_in(mut self, fan_in: usize) -> Spill<F> {
        self.fan_in = fan_in;
        self
    }

    /// An item of about `bytes` bytes; a run goes to disk when the items held pass the budget.
    pub fn push(&mut self, item: F::Held, bytes: usize) -> Result<()> {
        self.held_bytes += bytes;
        self.held.push(item);
        if self.held_bytes >= self.budget {
            self.spill()?;
        }
        Ok(())
    }

    /// How many runs went to disk.
    pub fn spilled(&self) -> usize {
        self.sent
    }

    /// The items held in memory (all of them when nothing spilled), unsorted.
    pub fn take_held(&mut self) -> Vec<F::Held> {
        self.held_bytes = 0;
        std::mem::take(&mut self.held)
    }

    fn spill(&mut self) -> Result<()> {
        let held = self.take_held();
        if self.sent == 0 {
            std::fs::create_dir_all(&self.dir).map_err(|e| Error::io(&self.dir, e))?;
        }
        self.sent += 1;
        if !F::BESIDE {
            let p = run_path::<F>(&self.dir, "", self.written.len());
            F::write_run(&p, held)?;
            self.written.push(p);
            return Ok(());
        }
        if self.writer.is_none() {
            self.writer = Some(Writer::start(&self.dir)?);
        }
        let handed = self.writer.as_ref().map(|w| w.runs.send(held).is_ok());
        if handed != Some(true) {
            // The writer stopped on an error: that error is the one to report.
            return self.finish_writing().map(|_| ());
        }
        Ok(())
    }

    /// Every run on disk, once the writer is done with them.
    fn finish_writing(&mut self) -> Result<Vec<PathBuf>> {
        let mut files = std::mem::take(&mut self.written);
        if let Some(w) = self.writer.take() {
            files.extend(w.finish(&self.dir)?);
        }
        Ok(files)
    }

    /// The runs on disk, opened (at most `fan_in` of them: more are merged into longer runs
    /// first), with what removes their folder once they are read. Items still held are not
    /// among them: `take_held` them first.
    pub fn into_runs(mut self) -> Result<(Vec<F::Run>, Cleanup)> {
        let files = self.finish_writing()?;
        let files = fewer_runs::<F>(&self.dir, files, self.fan_in)?;
        let runs = files.iter().map(|p| F::open(p)).collect::<Result<Vec<_>>>()?;
        let cleanup = Cleanup { dir: (self.sent > 0).then(|| self.dir.clone()) };
        // The folder is the cleanup's to remove now.
        self.sent = 0;
        Ok((runs, cleanup))
    }
}

impl<F: Format> Drop for Spill<F> {
    fn drop(&mut self) {
        // The writer finishes (or fails) before its folder goes.
        let _ = self.finish_writing();
        if self.sent > 0 {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

/// Removes a spill folder when dropped (after the runs read from it).
pub struct Cleanup {
    dir: Option<PathBuf>,
}

impl Drop for Cleanup {
    fn drop(&mut self) {
        if let Some(d) = &self.dir {
            let _ = std::fs::remove_dir_all(d);
        }
    }
}

/// `files` merged `fan_in` at a time into longer runs (in `dir`), again until at most
/// `fan_in` are left. Keys are unique, so how runs are grouped cannot change the order the
/// final merge gives.
fn fewer_runs<F: Format>(dir: &Path, mut files: Vec<PathBuf>, fan_in: usize) -> Result<Vec<PathBuf>> {
    let fan_in = fan_in.max(2);
    let mut made = 0usize;
    while files.len() > fan_in {
        let mut longer = Vec::with_capacity(files.len().div_ceil(fan_in));
        for group in files.chunks(fan_in) {
            if let [one] = group {
                longer.push(one.clone());
                continue;
            }
            let p = run_path::<F>(dir, "-merged", made);
            made += 1;
            let runs = group.iter().map(|g| F::open(g)).collect::<Result<Vec<_>>>()?;
            F::write_merged(&p, Merge::new(runs))?;
            longer.push(p);
        }
        files = longer;
    }
    Ok(files)
}

/// Sorted runs merged into one order: a heap of the runs by their first items (ties, which
/// unique keys never make, go to the earlier run).
pub struct Merge<R: Run> {
    runs: Vec<R>,
    /// Indexes of the runs with items left, a binary min-heap by their first items.
    heap: Vec<usize>,
}

impl<R: Run> Merge<R> {
    pub fn new(runs: Vec<R>) -> Merge<R> {
        let heap = (0..runs.len()).filter(|&i| !runs[i].is_done()).collect();
        let mut m = Merge { runs, heap };
        for at in (0..m.heap.len() / 2).rev() {
            m.sift_down(at);
        }
        m
    }

    /// Every run, by its place in the list it was made from.
    pub fn runs(&self) -> &[R] {
        &self.runs
    }

    /// The run whose first item comes first, none when all are done.
    pub fn first(&self) -> Option<&R> {
        self.heap.first().map(|&i| &self.runs[i])
    }

    /// `take` given the run whose first item comes first (and its place): it reads that
    /// item and moves the run past it. `None` when every run is done.
    pub fn next<T>(&mut self, take: impl FnOnce(usize, &mut R) -> Result<T>) -> Result<Option<T>> {
        let Some(&i) = self.heap.first() else { return Ok(None) };
        let t = take(i, &mut self.runs[i])?;
        if self.runs[i].is_done() {
            let last = self.heap.len() - 1;
            self.heap.swap(0, last);
            self.heap.pop();
        }
        self.sift_down(0);
        Ok(Some(t))
    }

    fn less(&self, a: usize, b: usize) -> bool {
        let (x, y) = (self.heap[a], self.heap[b]);
        self.runs[x].cmp_heads(&self.runs[y]).then(x.cmp(&y)) == Ordering::Less
    }

    fn sift_down(&mut self, mut at: usize) {
        let n = self.heap.len();
        loop {
            let (l, r) = (2 * at + 1, 2 * at + 2);
            let mut least = at;
            if l < n && self.less(l, least) {
                least = l;
            }
            if r < n && self.less(r, least) {
                least = r;
            }
            if least == at {
                return;
            }
            self.heap.swap(at, least);
            at = least;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A run of numbers, for the merge alone.
    struct Numbers(std::vec::IntoIter<u32>, Option<u32>);

    impl Numbers {
        fn of(v: Vec<u32>) -> Numbers {
            let mut it = v.into_iter();
            let head = it.next();
            Numbers(it, head)
        }
    }

    impl Run for Numbers {
        fn cmp_heads(&self, other: &Self) -> Ordering {
            self.1.cmp(&other.1)
        }
        fn is_done(&self) -> bool {
            self.1.is_none()
        }
    }

    #[test]
    fn a_merge_gives_every_item_of_its_runs_in_order() {
        let runs = vec![vec![1, 4, 9], vec![], vec![2, 3, 10, 11], vec![0], vec![5, 6, 7, 8]];
        let mut expected: Vec<u32> = runs.iter().flatten().copied().collect();
        expected.sort();
        let mut m = Merge::new(runs.into_iter().map(Numbers::of).collect());
        let mut got = Vec::new();
        while let Some(n) = m
            .next(|_, r| {
                let n = r.1;
                r.1 = r.0.next();
                Ok(n)
            })
            .unwrap()
        {
            got.extend(n);
        }
        assert_eq!(got, expected);
        assert!(m.first().is_none());
    }
}

/// A run file being written: its bytes compressed as one zstd frame (captures' bodies are
/// JSON: a study's spilled runs took several times their size on disk, 34 GB at 7.6M AIDev
/// PRs, uncompressed).
pub(crate) type RunWriter = zstd::stream::write::Encoder<'static, std::io::BufWriter<std::fs::File>>;

/// A run file being read back, decompressed.
pub(crate) type RunReader = std::io::BufReader<zstd::stream::read::Decoder<'static, std::io::BufReader<std::fs::File>>>;

/// The fastest of zstd's levels: spilling is on the way of every large convert.
const RUN_LEVEL: i32 = 1;

/// A new run file at `p`.
pub(crate) fn create_run(p: &Path) -> Result<RunWriter> {
    let f = std::fs::File::create(p).map_err(|e| Error::io(p, e))?;
    zstd::stream::write::Encoder::new(std::io::BufWriter::with_capacity(1 << 20, f), RUN_LEVEL).map_err(|e| Error::io(p, e))
}

/// The run file `w` (at `p`) ended and flushed.
pub(crate) fn close_run(w: RunWriter, p: &Path) -> Result<()> {
    use std::io::Write;
    w.finish().and_then(|mut f| f.flush()).map_err(|e| Error::io(p, e))
}

/// A run's bytes are compressed in frames of about this many bytes of items each.
pub(crate) const FRAME_BYTES: usize = 4 << 20;

/// Frames compressed at once at most: what a run holds compressed before it is written.
const FRAMES_AT_ONCE: usize = 8;

/// A run file at `p` of `items` in their order, each written by `encode`, as zstd frames of
/// about [`FRAME_BYTES`] of items (by `weight`) compressed side by side. One frame of a whole
/// run was one core's work while the others waited for it (convert's read of the snapshot
/// went serial at every spill); a run reader reads the frames one after the other as one
/// stream, so what a merge reads back is the same whatever the cut.
pub(crate) fn write_run_in_frames<T: Sync>(
    p: &Path,
    items: &[T],
    weight: impl Fn(&T) -> usize + Sync,
    encode: impl Fn(&mut zstd::stream::write::Encoder<'static, Vec<u8>>, &T) -> std::io::Result<()> + Sync,
) -> Result<()> {
    use rayon::prelude::*;
    use std::io::Write;
    let mut frames = Vec::new();
    let (mut start, mut bytes) = (0usize, 0usize);
    for (i, item) in items.iter().enumerate() {
        bytes += weight(item);
        if bytes >= FRAME_BYTES {
            frames.push(start..i + 1);
            (start, bytes) = (i + 1, 0);
        }
    }
    if start < items.len() || frames.is_empty() {
        frames.push(start..items.len());
    }
    let f = std::fs::File::create(p).map_err(|e| Error::io(p, e))?;
    let mut w = std::io::BufWriter::with_capacity(1 << 20, f);
    for group in frames.chunks(FRAMES_AT_ONCE) {
        let compressed: Vec<Vec<u8>> = group
            .par_iter()
            .map(|r| {
                let mut e = zstd::stream::write::Encoder::new(Vec::new(), RUN_LEVEL)?;
                items[r.clone()].iter().try_for_each(|item| encode(&mut e, item))?;
                e.finish()
            })
            .collect::<std::io::Result<_>>()
            .map_err(|e| Error::io(p, e))?;
        compressed.iter().try_for_each(|c| w.write_all(c)).map_err(|e| Error::io(p, e))?;
    }
    w.flush().map_err(|e| Error::io(p, e))
}

/// An item of a run written as bytes (convert's captures, an import's list items): how it
/// orders and how it is read back from a run file.
pub(crate) trait Record: Sized {
    fn cmp_key(&self, other: &Self) -> Ordering;
    /// The next item of a run file, `None` at its end.
    fn decode(r: &mut RunReader) -> std::io::Result<Option<Self>>;
}

/// A sorted run of [`Record`]s, at its first: the items left in memory, or a run file.
pub(crate) struct Sorted<T> {
    pub(crate) head: Option<T>,
    rest: Rest<T>,
}

enum Rest<T> {
    Memory(std::vec::IntoIter<T>),
    Disk(RunReader, PathBuf),
}

impl<T: Record> Sorted<T> {
    /// The items held, already sorted.
    pub(crate) fn memory(items: Vec<T>) -> Result<Sorted<T>> {
        Sorted::of(Rest::Memory(items.into_iter()))
    }

    /// A run file, read from its start.
    pub(crate) fn disk(p: &Path) -> Result<Sorted<T>> {
        let f = std::fs::File::open(p).map_err(|e| Error::io(p, e))?;
        let decoder = zstd::stream::read::Decoder::with_buffer(std::io::BufReader::with_capacity(1 << 20, f)).map_err(|e| Error::io(p, e))?;
        Sorted::of(Rest::Disk(std::io::BufReader::with_capacity(1 << 20, decoder), p.to_path_buf()))
    }

    fn of(rest: Rest<T>) -> Result<Sorted<T>> {
        let mut s = Sorted { head: None, rest };
        s.head = s.read()?;
        Ok(s)
    }

    fn read(&mut self) -> Result<Option<T>> {
        match &mut self.rest {
            Rest::Memory(it) => Ok(it.next()),
            Rest::Disk(r, p) => T::decode(r).map_err(|e| Error::io(p.as_path(), e)),
        }
    }

    /// The first item, the run moved past it.
    pub(crate) fn take(&mut self) -> Result<Option<T>> {
        let next = self.read()?;
        Ok(std::mem::replace(&mut self.head, next))
    }
}

impl<T: Record> Run for Sorted<T> {
    fn cmp_heads(&self, other: &Self) -> Ordering {
        match (&self.head, &other.head) {
            (Some(a), Some(b)) => a.cmp_key(b),
            (a, b) => a.is_none().cmp(&b.is_none()),
        }
    }

    fn is_done(&self) -> bool {
        self.head.is_none()
    }
}

/// Run files' fields: numbers little-endian, texts after their length.
pub(crate) mod bytes {
    use std::io::{BufRead, Read, Write};

    pub(crate) fn put(w: &mut impl Write, bytes: &[u8]) -> std::io::Result<()> {
        w.write_all(&(bytes.len() as u64).to_le_bytes())?;
        w.write_all(bytes)
    }

    pub(crate) fn u64_of(r: &mut impl Read) -> std::io::Result<u64> {
        let mut b = [0u8; 8];
        r.read_exact(&mut b)?;
        Ok(u64::from_le_bytes(b))
    }

    pub(crate) fn string_of(r: &mut impl Read) -> std::io::Result<String> {
        let n = u64_of(r)?;
        // Read straight into the string's buffer: no zeroing of bytes about to be overwritten
        // (the length reserved up front is capped: a damaged file cannot ask for any size).
        let mut v = Vec::with_capacity(n.min(1 << 26) as usize);
        if r.take(n).read_to_end(&mut v)? as u64 != n {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        String::from_utf8(v).map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))
    }

    /// Whether a run file has nothing left.
    pub(crate) fn at_end(r: &mut impl BufRead) -> std::io::Result<bool> {
        Ok(r.fill_buf()?.is_empty())
    }
}
