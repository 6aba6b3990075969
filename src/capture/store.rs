//! The cassette `capture` writes: `SNAP/capture.jsonl`, one response page per line in the
//! snapshot layout, the pages of one path written together in one `write` and each carrying
//! the path's page count. A capture killed at any instant leaves at most the last group
//! incomplete (a torn line, or fewer pages than it says); the next run cuts that group off
//! and fetches the path again, and keeps every complete one.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use crate::error::{Error, Result};
use crate::time::Instant;

pub const CASSETTE: &str = "capture.jsonl";

/// One line of the cassette.
#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct Line {
    pub path: String,
    pub status: u16,
    pub page: usize,
    /// Pages of this path in its group.
    pub pages: usize,
    pub captured_at: String,
    /// What was requested (path and query), for re-running it by hand.
    pub request: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub etag: Option<String>,
    pub body: Box<RawValue>,
}

/// What is already captured: per path, its latest complete group.
#[derive(Default)]
pub struct Store {
    pub dir: PathBuf,
    pub groups: BTreeMap<String, Vec<Line>>,
    /// Bytes cut off the end of the cassette on opening (a group a kill interrupted).
    pub cut: u64,
}

impl Store {
    /// Open `dir/capture.jsonl` (created when absent), dropping an incomplete last group.
    pub fn open(dir: &Path) -> Result<Store> {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        let path = dir.join(CASSETTE);
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(Error::io(&path, e)),
        };
        let mut store = Store { dir: dir.to_path_buf(), ..Store::default() };
        // Complete lines, with the byte offset each starts at.
        let mut lines: Vec<(usize, Line)> = Vec::new();
        let mut start = 0usize;
        let mut good_end = 0usize;
        for (i, b) in bytes.iter().enumerate() {
            if *b != b'\n' {
                continue;
            }
            let text = &bytes[start..i];
            match serde_json::from_slice::<Line>(text) {
                Ok(l) => lines.push((start, l)),
                Err(e) => {
                    return Err(Error::Input {
                        path,
                        line: lines.len() + 1,
                        message: format!("not a line hindsight capture wrote: {e}; move the file away to start over"),
                    })
                }
            }
            start = i + 1;
            good_end = i + 1;
        }
        // The last group (from its last page 1): complete when it holds pages 1..=K of one
        // path, K being the count its lines announce.
        let mut keep_until = good_end;
        if let Some(first) = lines.iter().rposition(|(_, l)| l.page == 1) {
            let group = &lines[first..];
            let (path0, pages) = (&group[0].1.path, group[0].1.pages);
            let whole = group.len() == pages && group.iter().enumerate().all(|(i, (_, l))| &l.path == path0 && l.pages == pages && l.page == i + 1);
            if !whole {
                keep_until = group[0].0;
            }
        } else if !lines.is_empty() {
            keep_until = 0;
        }
        if keep_until < bytes.len() {
            store.cut = (bytes.len() - keep_until) as u64;
            let f = std::fs::OpenOptions::new().write(true).open(&path).map_err(|e| Error::io(&path, e))?;
            f.set_len(keep_until as u64).map_err(|e| Error::io(&path, e))?;
        }
        // Group the kept lines: consecutive lines of one path with pages 1..=K.
        let mut current: Vec<Line> = Vec::new();
        for (off, l) in lines {
            if off >= keep_until {
                break;
            }
            if l.page == 1 && !current.is_empty() {
                let done = std::mem::take(&mut current);
                store.groups.insert(done[0].path.clone(), done);
            }
            current.push(l);
        }
        if !current.is_empty() {
            store.groups.insert(current[0].path.clone(), current);
        }
        Ok(store)
    }

    /// Whether `path` has an answer that is final: 2xx, or gone (404/410). A failed
    /// capture is asked for again by the next run.
    pub fn has_final(&self, path: &str) -> bool {
        self.groups.get(path).and_then(|g| g.first()).is_some_and(|l| (200..300).contains(&l.status) || matches!(l.status, 404 | 410))
    }

    /// The captures as the evaluator's index takes them.
    pub fn rows(&self) -> Vec<crate::snapshot::CaptureRow> {
        let mut out = Vec::new();
        for lines in self.groups.values() {
            for l in lines {
                out.push((l.path.clone(), l.page as i64, l.status, crate::time::parse(&l.captured_at), l.body.get().to_string()));
            }
        }
        out
    }
}

/// Appends groups to the cassette, one `write` each, flushed.
pub struct Writer {
    path: PathBuf,
    file: std::fs::File,
}

impl Writer {
    pub fn open(dir: &Path) -> Result<Writer> {
        let path = dir.join(CASSETTE);
        let file = std::fs::OpenOptions::new().create(true).append(true).open(&path).map_err(|e| Error::io(&path, e))?;
        Ok(Writer { path, file })
    }

    pub fn append(&mut self, group: &[Line]) -> Result<()> {
        let mut buf = Vec::new();
        for l in group {
            serde_json::to_writer(&mut buf, l)?;
            buf.push(b'\n');
        }
        self.file.write_all(&buf).map_err(|e| Error::io(&self.path, e))?;
        self.file.flush().map_err(|e| Error::io(&self.path, e))
    }
}

/// A path's answer: every page of it, or the one failed or final response.
pub struct Fetched {
    /// The first request (path and query).
    pub request: String,
    pub status: u16,
    pub etag: Option<String>,
    pub at: Instant,
    pub pages: Vec<String>,
}

/// The cassette lines of a fetched path.
pub fn group(path: &str, f: &Fetched) -> Result<Vec<Line>> {
    let n = f.pages.len().max(1);
    let mut out = Vec::with_capacity(n);
    for (i, body) in f.pages.iter().enumerate() {
        // A body that is not JSON (an HTML error page, a connection error's text) is kept as
        // a JSON string.
        let raw = match serde_json::from_str::<Box<RawValue>>(body) {
            Ok(r) if !body.trim().is_empty() => r,
            _ => RawValue::from_string(serde_json::to_string(body)?)?,
        };
        out.push(Line {
            path: path.to_string(),
            status: f.status,
            page: i + 1,
            pages: n,
            captured_at: crate::time::format(&f.at),
            request: f.request.clone(),
            etag: if i == 0 { f.etag.clone() } else { None },
            body: raw,
        });
    }
    Ok(out)
}

/// A group again, at a new capture time (a 304: unchanged since).
pub fn retimed(group: &[Line], at: &Instant) -> Vec<Line> {
    group.iter().map(|l| Line { captured_at: crate::time::format(at), ..l.clone() }).collect()
}
