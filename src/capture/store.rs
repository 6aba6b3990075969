//! The cassette `capture` writes: `SNAP/capture.jsonl`, one response page per line in the
//! snapshot layout, the pages of one path written together under the writer's lock and each
//! carrying the path's page count. A capture killed at any instant leaves at most the last
//! group incomplete (a torn line, or fewer pages than it says); the next run cuts that group
//! off and fetches the path again, and keeps every complete one.
//!
//! Memory stays at about one page whatever the size of a path: each page, as it arrives, is
//! appended to a spool file of the path's own in the snapshot directory, and the group is
//! copied from there to the cassette in chunks. What is captured is remembered as where each
//! body is in the cassette, not as the bodies: they are read back when the rules are run
//! between rounds.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufRead, Read, Seek, SeekFrom, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use crate::error::{Error, Result};
use crate::time::Instant;

pub const CASSETTE: &str = "capture.jsonl";

/// Spool files start with this; hindsight owns every file so named in a snapshot directory
/// (one left by a killed capture is removed by the next).
pub(crate) const SPOOL_PREFIX: &str = ".hindsight-spool-";

/// The bytes copied at a time from a spool (or the cassette) into the cassette.
const CHUNK: usize = 1 << 20;

/// One line of the cassette as read: the body borrowed from the line's text, so that its
/// place in the file is known and nothing of it is copied.
#[derive(Deserialize)]
struct LineRef<'a> {
    path: String,
    status: u16,
    page: usize,
    /// Pages of this path in its group.
    pages: usize,
    captured_at: String,
    /// What was requested (path and query), for re-running it by hand.
    request: String,
    #[serde(default)]
    etag: Option<String>,
    #[serde(borrow)]
    body: &'a RawValue,
}

/// A line's fields before its body, in the order they are written.
#[derive(Serialize)]
struct Head<'a> {
    path: &'a str,
    status: u16,
    page: usize,
    pages: usize,
    captured_at: &'a str,
    request: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    etag: Option<&'a str>,
}

/// One captured page: its line's fields and where its body is in the cassette.
#[derive(Clone, Debug)]
pub struct Page {
    pub(crate) status: u16,
    pub page: usize,
    pub pages: usize,
    pub captured_at: String,
    pub(crate) request: String,
    pub(crate) etag: Option<String>,
    /// Byte offset and length of the body's JSON text in the cassette.
    pub(crate) body_at: u64,
    pub(crate) body_len: u64,
}

/// What is already captured: per path, its latest complete group.
pub struct Store {
    pub(crate) dir: PathBuf,
    pub groups: BTreeMap<String, Vec<Page>>,
    /// Bytes cut off the end of the cassette on opening (a group a kill interrupted).
    pub cut: u64,
    /// The cassette, for reading bodies back.
    file: File,
}

impl Store {
    /// Open `dir/capture.jsonl` (created when absent), dropping an incomplete last group.
    /// Read a line at a time: memory is that of the longest line, not of the file.
    pub fn open(dir: &Path) -> Result<Store> {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        remove_spools(dir);
        let path = dir.join(CASSETTE);
        let file = std::fs::OpenOptions::new().create(true).truncate(false).read(true).write(true).open(&path).map_err(|e| Error::io(&path, e))?;
        let total = file.metadata().map_err(|e| Error::io(&path, e))?.len();
        // Every whole line (ended by a newline), each as (path, its page).
        let mut lines: Vec<(u64, String, Page)> = Vec::new();
        let mut reader = std::io::BufReader::new(&file);
        let mut buf = Vec::new();
        let mut offset = 0u64;
        let mut good_end = 0u64;
        loop {
            buf.clear();
            let n = reader.read_until(b'\n', &mut buf).map_err(|e| Error::io(&path, e))?;
            if n == 0 || buf.last() != Some(&b'\n') {
                break;
            }
            let l: LineRef = serde_json::from_slice(&buf).map_err(|e| Error::Input {
                path: path.clone(),
                line: lines.len() + 1,
                message: format!("not a line hindsight capture wrote: {e}; move the file away to start over"),
            })?;
            let at = offset + (l.body.get().as_ptr() as usize).saturating_sub(buf.as_ptr() as usize) as u64;
            let page = Page {
                status: l.status,
                page: l.page,
                pages: l.pages,
                captured_at: l.captured_at,
                request: l.request,
                etag: l.etag,
                body_at: at,
                body_len: l.body.get().len() as u64,
            };
            lines.push((offset, l.path, page));
            offset += n as u64;
            good_end = offset;
        }
        drop(reader);
        // The last group (from its last page 1): complete when it holds pages 1..=K of one
        // path, K being the count its lines announce.
        let mut keep_until = good_end;
        if let Some(first) = lines.iter().rposition(|(_, _, p)| p.page == 1) {
            if !whole(&lines[first..]) {
                keep_until = lines[first].0;
            }
        } else if !lines.is_empty() {
            keep_until = 0;
        }
        let mut store = Store { dir: dir.to_path_buf(), groups: BTreeMap::new(), cut: 0, file };
        if keep_until < total {
            store.cut = total - keep_until;
            store.file.set_len(keep_until).map_err(|e| Error::io(&path, e))?;
        }
        // Group the kept lines: consecutive lines of one path with pages 1..=K. A group that
        // is not whole (only a failed write can leave one before the end) is not kept.
        lines.retain(|(off, _, _)| *off < keep_until);
        let mut i = 0;
        while i < lines.len() {
            let mut j = i + 1;
            while j < lines.len() && lines[j].2.page != 1 {
                j += 1;
            }
            if whole(&lines[i..j]) {
                let group: Vec<Page> = lines[i..j].iter().map(|(_, _, p)| p.clone()).collect();
                store.groups.insert(lines[i].1.clone(), group);
            }
            i = j;
        }
        Ok(store)
    }

    /// Whether `path` has an answer that is final: 2xx, or gone (404/410). A failed
    /// capture is asked for again by the next run.
    pub(crate) fn has_final(&self, path: &str) -> bool {
        self.groups.get(path).and_then(|g| g.first()).is_some_and(|l| (200..300).contains(&l.status) || matches!(l.status, 404 | 410))
    }

    /// A captured body's JSON text, read back from the cassette.
    pub fn body(&self, p: &Page) -> Result<String> {
        let path = self.dir.join(CASSETTE);
        let len = usize::try_from(p.body_len).map_err(|_| Error::Dataset { path: path.clone(), message: "a body too large for memory".into() })?;
        let mut buf = vec![0u8; len];
        self.file.read_exact_at(&mut buf, p.body_at).map_err(|e| Error::io(&path, e))?;
        String::from_utf8(buf).map_err(|_| Error::Dataset { path, message: format!("the body at byte {} is not UTF-8", p.body_at) })
    }

    /// The captures as the evaluator's index takes them (every body read back: the rules
    /// need them all in memory).
    pub(crate) fn rows(&self) -> Result<Vec<crate::snapshot::CaptureRow>> {
        let mut out = Vec::new();
        for (path, pages) in &self.groups {
            for p in pages {
                out.push((path.clone(), p.page as i64, p.status, crate::time::parse(&p.captured_at), self.body(p)?));
            }
        }
        Ok(out)
    }
}

/// Whether `lines` are one whole group: pages 1..=K of one path, each announcing K.
fn whole(lines: &[(u64, String, Page)]) -> bool {
    let Some((_, path0, first)) = lines.first() else { return false };
    lines.len() == first.pages && lines.iter().enumerate().all(|(i, (_, p, l))| p == path0 && l.pages == first.pages && l.page == i + 1)
}

/// Spool files a killed capture left behind.
fn remove_spools(dir: &Path) {
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            if e.file_name().to_string_lossy().starts_with(SPOOL_PREFIX) {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }
}

/// A path's pages as they arrive: each page's JSON text appended to a file in the snapshot
/// directory, removed when the spool is dropped.
pub(crate) struct Spool {
    path: PathBuf,
    file: File,
    /// (offset, length) of each page's JSON text.
    pages: Vec<(u64, u64)>,
    end: u64,
}

impl Spool {
    pub(crate) fn new(dir: &Path) -> Result<Spool> {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let path = dir.join(format!("{SPOOL_PREFIX}{}-{n}", std::process::id()));
        let file = std::fs::OpenOptions::new().create(true).truncate(true).read(true).write(true).open(&path).map_err(|e| Error::io(&path, e))?;
        Ok(Spool { path, file, pages: Vec::new(), end: 0 })
    }

    /// Forget every page (a failed page fails the path: only its answer is kept).
    pub(crate) fn clear(&mut self) -> Result<()> {
        self.pages.clear();
        self.truncate(0)
    }

    fn truncate(&mut self, at: u64) -> Result<()> {
        self.end = at;
        self.file.set_len(at).map_err(|e| Error::io(&self.path, e))?;
        self.file.seek(SeekFrom::Start(at)).map(|_| ()).map_err(|e| Error::io(&self.path, e))
    }

    /// A page given as text. A body that is not JSON (an HTML error page, a connection
    /// error's text) is kept as a JSON string.
    pub(crate) fn push_text(&mut self, body: &str) -> Result<()> {
        let json = !body.trim().is_empty() && serde_json::from_str::<serde::de::IgnoredAny>(body).is_ok();
        let text = if json { body.to_string() } else { serde_json::to_string(body)? };
        self.file.write_all(text.as_bytes()).map_err(|e| Error::io(&self.path, e))?;
        self.pages.push((self.end, text.len() as u64));
        self.end += text.len() as u64;
        Ok(())
    }

    /// A page read from `from` straight into the spool. `Ok(Err(why))`: reading `from`
    /// failed (the connection), and nothing of the page is kept; `Err`: the spool could not
    /// be written. A body that is not JSON is not kept either: `Ok(Ok(Some(its first bytes)))`.
    pub(crate) fn push_reader(&mut self, from: &mut dyn Read) -> Result<std::result::Result<Option<String>, std::io::Error>> {
        let start = self.end;
        let mut buf = vec![0u8; 64 << 10];
        let mut len = 0u64;
        loop {
            let n = match from.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    self.truncate(start)?;
                    return Ok(Err(e));
                }
            };
            self.file.write_all(&buf[..n]).map_err(|e| Error::io(&self.path, e))?;
            len += n as u64;
        }
        // Checked as read back. A page up to PAGE_IN_MEMORY is held while that takes (parsing
        // from a slice is many times faster than from a reader, a byte at a time); a larger
        // one is parsed from the file, so memory is concurrency x PAGE_IN_MEMORY at most,
        // not concurrency x the largest page.
        let valid = len > 0
            && if len <= PAGE_IN_MEMORY {
                let mut page = vec![0u8; len as usize];
                self.file.read_exact_at(&mut page, start).map_err(|e| Error::io(&self.path, e))?;
                serde_json::from_slice::<serde::de::IgnoredAny>(&page).is_ok()
            } else {
                let at = At { file: &self.file, pos: start, end: start + len };
                serde_json::from_reader::<_, serde::de::IgnoredAny>(std::io::BufReader::with_capacity(1 << 20, at)).is_ok()
            };
        if !valid {
            let mut first = vec![0u8; len.min(200) as usize];
            self.file.read_exact_at(&mut first, start).map_err(|e| Error::io(&self.path, e))?;
            self.truncate(start)?;
            return Ok(Ok(Some(String::from_utf8_lossy(&first).into_owned())));
        }
        self.pages.push((start, len));
        self.end = start + len;
        Ok(Ok(None))
    }
}

/// The largest page checked in memory (see [`Spool::push_reader`]).
const PAGE_IN_MEMORY: u64 = 16 << 20;

/// A span of a file, read by position.
struct At<'a> {
    file: &'a std::fs::File,
    pos: u64,
    end: u64,
}

impl Read for At<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = buf.len().min(usize::try_from(self.end - self.pos).unwrap_or(usize::MAX));
        let n = self.file.read_at(&mut buf[..n], self.pos)?;
        self.pos += n as u64;
        Ok(n)
    }
}

impl Drop for Spool {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Appends groups to the cassette.
pub(crate) struct Writer {
    path: PathBuf,
    file: File,
    end: u64,
}

/// The fields a group's lines share.
pub(crate) struct GroupHead<'a> {
    pub(crate) path: &'a str,
    pub(crate) status: u16,
    pub(crate) request: &'a str,
    /// On the first line only.
    pub(crate) etag: Option<&'a str>,
    pub(crate) at: &'a Instant,
}

impl Writer {
    pub(crate) fn open(dir: &Path) -> Result<Writer> {
        let path = dir.join(CASSETTE);
        let file = std::fs::OpenOptions::new().create(true).append(true).open(&path).map_err(|e| Error::io(&path, e))?;
        let end = file.metadata().map_err(|e| Error::io(&path, e))?.len();
        Ok(Writer { path, file, end })
    }

    /// A spooled path as its group of lines.
    pub(crate) fn append_spool(&mut self, head: &GroupHead, spool: &Spool) -> Result<Vec<Page>> {
        self.append(head, &spool.file, &spool.pages)
    }

    /// A captured group again at a new time (a 304: unchanged since), its bodies copied from
    /// the cassette itself.
    pub(crate) fn append_again(&mut self, head: &GroupHead, store: &Store, group: &[Page]) -> Result<Vec<Page>> {
        let bodies: Vec<(u64, u64)> = group.iter().map(|p| (p.body_at, p.body_len)).collect();
        self.append(head, &store.file, &bodies)
    }

    /// One group, its bodies copied in chunks from `from`. A failed write takes the group
    /// off again, so that only the last group can ever be incomplete.
    fn append(&mut self, head: &GroupHead, from: &File, bodies: &[(u64, u64)]) -> Result<Vec<Page>> {
        let start = self.end;
        let written = self.write_group(head, from, bodies);
        if written.is_err() {
            let _ = self.file.set_len(start);
            self.end = start;
        }
        written
    }

    fn write_group(&mut self, head: &GroupHead, from: &File, bodies: &[(u64, u64)]) -> Result<Vec<Page>> {
        let pages = bodies.len().max(1);
        let at = crate::time::format(head.at);
        let mut out = Vec::with_capacity(bodies.len());
        let mut buf: Vec<u8> = Vec::with_capacity(CHUNK + 4096);
        for (i, &(offset, len)) in bodies.iter().enumerate() {
            let etag = if i == 0 { head.etag } else { None };
            let h = Head { path: head.path, status: head.status, page: i + 1, pages, captured_at: &at, request: head.request, etag };
            serde_json::to_writer(&mut buf, &h)?;
            // The head's closing brace gives way to the body.
            buf.pop();
            buf.extend_from_slice(b",\"body\":");
            let body_at = self.end + buf.len() as u64;
            let mut done = 0u64;
            while done < len {
                let room = CHUNK.saturating_sub(buf.len()).max(4096);
                let n = (len - done).min(room as u64) as usize;
                let old = buf.len();
                buf.resize(old + n, 0);
                from.read_exact_at(&mut buf[old..], offset + done).map_err(|e| Error::io(&self.path, e))?;
                done += n as u64;
                if buf.len() >= CHUNK {
                    self.flush_buf(&mut buf)?;
                }
            }
            buf.extend_from_slice(b"}\n");
            out.push(Page {
                status: head.status,
                page: i + 1,
                pages,
                captured_at: at.clone(),
                request: head.request.to_string(),
                etag: etag.map(str::to_string),
                body_at,
                body_len: len,
            });
        }
        self.flush_buf(&mut buf)?;
        self.file.flush().map_err(|e| Error::io(&self.path, e))?;
        Ok(out)
    }

    fn flush_buf(&mut self, buf: &mut Vec<u8>) -> Result<()> {
        self.file.write_all(buf).map_err(|e| Error::io(&self.path, e))?;
        self.end += buf.len() as u64;
        buf.clear();
        Ok(())
    }
}

/// A path's answer, its pages in a [`Spool`]: every page, or the one failed or final
/// response.
pub(crate) struct Fetched {
    /// The first request (path and query).
    pub(crate) request: String,
    pub(crate) status: u16,
    pub(crate) etag: Option<String>,
    pub(crate) at: Instant,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lines written by the writer read back as the same bodies, at the offsets it says.
    #[test]
    fn written_groups_read_back() {
        let dir = tempfile_dir();
        let mut spool = Spool::new(&dir).unwrap();
        spool.push_text("[1,2]").unwrap();
        spool.push_text("<html>").unwrap();
        let mut r: &[u8] = b"{\"a\": \"b\"}";
        assert!(matches!(spool.push_reader(&mut r).unwrap(), Ok(None)));
        let mut bad: &[u8] = b"{\"a\": ";
        assert!(matches!(spool.push_reader(&mut bad).unwrap(), Ok(Some(_))));
        let at = chrono::Utc::now();
        let head = GroupHead { path: "repos/o/r/pulls", status: 200, request: "repos/o/r/pulls?per_page=100", etag: Some("\"x\""), at: &at };
        let pages = Writer::open(&dir).unwrap().append_spool(&head, &spool).unwrap();
        assert_eq!(pages.len(), 3);
        drop(spool);
        let store = Store::open(&dir).unwrap();
        let g = &store.groups["repos/o/r/pulls"];
        let bodies: Vec<String> = g.iter().map(|p| store.body(p).unwrap()).collect();
        assert_eq!(bodies, ["[1,2]", "\"<html>\"", "{\"a\": \"b\"}"]);
        assert_eq!(g[0].etag.as_deref(), Some("\"x\""));
        assert!(std::fs::read_dir(&dir).unwrap().all(|e| !e.unwrap().file_name().to_string_lossy().starts_with(SPOOL_PREFIX)));
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Class: a page held whole while it is checked. A page past PAGE_IN_MEMORY is parsed
    /// from the spool file, with the same verdicts as one checked in memory, and a bad one
    /// leaves the spool as it was.
    #[test]
    fn a_page_larger_than_memory_allows_is_checked_from_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let mut spool = Spool::new(dir.path()).unwrap();
        let item = "{\"body\": \"ab\\\"c\"},";
        let n = (PAGE_IN_MEMORY as usize) / item.len() + 10;
        let good = format!("[{}{{}}]", item.repeat(n));
        assert!(good.len() as u64 > PAGE_IN_MEMORY);
        assert!(matches!(spool.push_reader(&mut good.as_bytes()).unwrap(), Ok(None)));
        let end = spool.end;
        let bad = format!("[{}{{}}", item.repeat(n));
        match spool.push_reader(&mut bad.as_bytes()).unwrap() {
            Ok(Some(first)) => assert!(first.starts_with("[{\"body\"") && first.len() == 200, "{first}"),
            other => panic!("a truncated large page passed: {other:?}"),
        }
        let trailing = format!("{good} x");
        assert!(matches!(spool.push_reader(&mut trailing.as_bytes()).unwrap(), Ok(Some(_))));
        assert_eq!((spool.end, spool.pages.len()), (end, 1));
    }

    fn tempfile_dir() -> PathBuf {
        let d = std::env::temp_dir().join(format!("hindsight-store-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }
}
