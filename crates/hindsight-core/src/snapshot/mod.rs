//! The frozen GitHub capture: `snapshot.json` plus REST/GraphQL responses, either as JSONL
//! cassettes (one response per line) or as a directory tree (one file per path).
//!
//! Evaluate reads it through [`SnapshotIndex`]: each path's [`Entry`] keeps its body as text
//! and parses it on first use, into a `Value` or straight into a typed view ([`sparse`]).
//!
//! Reading never fails a whole file for one odd line: a line that is not a usable response
//! goes to quarantine with its file, line and reason, and the rest is read.

pub mod ci;
pub(crate) mod derive;
pub mod github;
pub mod graphql;
pub mod paths;
pub mod plan;
pub mod sha;
pub(crate) mod sparse;
pub mod spill;
pub mod tables;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

use crate::error::{Error, Result};
use crate::inputs::InputFile;
use crate::json::kind;
use crate::quarantine::Quarantined;
use crate::time::{self, Instant};

pub const FORMAT: &str = "hindsight-snapshot/1";

/// `snapshot.json`.
#[derive(Clone, Debug)]
pub struct SnapshotInfo {
    pub captured_at: Instant,
}

/// One captured response, as read.
#[derive(Clone, Debug)]
pub struct Capture {
    pub path: String,
    pub status: u16,
    pub page: i64,
    pub captured_at: Option<Instant>,
    /// The body exactly as it stood in the input.
    pub body: String,
    pub file: String,
    pub(crate) line: Option<usize>,
    /// Set when another capture of the same (path, page) was taken later and is used
    /// instead: where that capture is (`file:line`). Kept in `responses`, never read by
    /// the typed tables or the rules.
    pub superseded_by: Option<String>,
}

impl Capture {
    /// Where this capture is, as a superseded copy names it.
    pub(crate) fn place(&self) -> String {
        match self.line {
            Some(l) => format!("{}:{l}", self.file),
            None => self.file.clone(),
        }
    }

}

/// What the first pass over a snapshot found: its files (hashed), the lines it could not
/// use, and every usable capture in sorted runs (on disk beyond the budget).
pub struct SnapshotScan {
    pub info: SnapshotInfo,
    pub quarantined: Vec<Quarantined>,
    pub files: Vec<InputFile>,
    pub runs: spill::Runs,
}

/// Cassettes are read this many bytes at a time (cut at a line end), their lines parsed in
/// parallel.
const BLOCK_BYTES: usize = 16 << 20;

/// Read `snapshot.json`, then every cassette and tree file, keeping about `budget` bytes of
/// captures in memory and spilling sorted runs to `spill_dir` beyond that.
pub fn scan(dir: &Path, spill_dir: &Path, budget: usize) -> Result<SnapshotScan> {
    let (info, bytes) = read_info(dir)?;
    scan_files(dir, info, &bytes, spill_dir, budget)
}

/// The snapshot's `snapshot.json` at `dir`, checked (its bytes, for the manifest): a bad one
/// stops convert before any other input is read.
pub fn read_info(dir: &Path) -> Result<(SnapshotInfo, Vec<u8>)> {
    let info_path = dir.join("snapshot.json");
    if info_path.exists() {
        if let Some(why) = crate::inputs::refusal(dir, &info_path, "snapshot") {
            return Err(Error::Layout { path: info_path, message: why });
        }
    }
    let bytes = crate::inputs::read_regular(&info_path)?;
    let text = crate::inputs::document_text(&bytes).map_err(|why| Error::Input { path: info_path.clone(), line: 1, message: why })?;
    let v: Value = serde_json::from_str(text).map_err(|e| Error::Input {
        path: info_path.clone(),
        line: e.line(),
        message: format!("snapshot.json is not valid JSON: {e}"),
    })?;
    let captured_at = crate::json::str_at(&v, "captured_at").and_then(time::parse).ok_or_else(|| Error::Input {
        path: info_path.clone(),
        line: 1,
        message: "field `captured_at`: missing or not an RFC 3339 time; without it no window can be judged".into(),
    })?;
    let format = crate::json::str_at(&v, "format").unwrap_or(FORMAT).to_string();
    if !format.starts_with("hindsight-snapshot/") {
        return Err(Error::Input { path: info_path, line: 1, message: format!("field `format`: `{format}` is not a hindsight-snapshot format") });
    }
    Ok((SnapshotInfo { captured_at }, bytes))
}

/// Every cassette and tree file of the snapshot at `dir`, whose `snapshot.json` `read_info`
/// gave (`info`, `bytes`).
pub fn scan_files(dir: &Path, info: SnapshotInfo, bytes: &[u8], spill_dir: &Path, budget: usize) -> Result<SnapshotScan> {
    let info_path = dir.join("snapshot.json");
    let mut cassettes = Vec::new();
    let mut tree_files = Vec::new();
    let mut refused = Vec::new();
    collect_files(dir, dir, &mut cassettes, &mut tree_files, &mut refused)?;
    cassettes.sort();
    tree_files.sort();
    refused.sort();

    let mut files = vec![InputFile::from_bytes("snapshot", rel(dir, &info_path), bytes, 0)];
    let mut runs = spill::Runs::new(spill_dir, budget);
    let mut quarantined = Vec::new();
    for (p, why) in refused {
        let file = rel(dir, &p);
        quarantined.push(Quarantined::new("snapshot", &file, None, None, why, ""));
        files.push(InputFile::refused("snapshot", file));
    }
    let mut pending = Pending::default();
    for p in &cassettes {
        files.push(read_cassette(dir, p, &mut runs, &mut quarantined, &mut pending)?);
    }
    pending.flush(&mut runs, &mut quarantined)?;
    // Tree files are small and many: read in parallel, a slice at a time.
    for slice in tree_files.chunks(4096) {
        let results: Vec<Result<FileRead>> = slice.par_iter().map(|p| read_tree_file(dir, p)).collect();
        for r in results {
            let (c, q, f) = r?;
            for c in c {
                runs.push(c)?;
            }
            quarantined.extend(q);
            files.push(f);
        }
    }
    Ok(SnapshotScan { info, quarantined, files, runs })
}

/// The cassettes and tree files to read, and the files of those names that must not be
/// read (see `inputs::refusal`) with the reason. Directories reached through a symbolic link
/// are not descended: one inside the snapshot is read at its own place, one outside is no
/// part of it.
fn collect_files(root: &Path, dir: &Path, cassettes: &mut Vec<PathBuf>, tree: &mut Vec<PathBuf>, refused: &mut Vec<(PathBuf, String)>) -> Result<()> {
    let rd = std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))?;
    for entry in rd {
        let entry = entry.map_err(|e| Error::io(dir, e))?;
        let p = entry.path();
        let ft = entry.file_type().map_err(|e| Error::io(&p, e))?;
        if ft.is_dir() {
            collect_files(root, &p, cassettes, tree, refused)?;
            continue;
        }
        // Cassettes may sit in sub-folders too; a `.json` below the root is a tree capture.
        let list = if p.extension().is_some_and(|e| e == "jsonl") {
            &mut *cassettes
        } else if dir != root && p.extension().is_some_and(|e| e == "json") {
            &mut *tree
        } else {
            continue;
        };
        if ft.is_symlink() && p.is_dir() && crate::inputs::refusal(root, &p, "snapshot").is_none_or(|why| why.contains("not a regular file")) {
            // A link to a directory inside the snapshot, named like a capture file.
            continue;
        }
        match crate::inputs::refusal(root, &p, "snapshot") {
            None => list.push(p),
            Some(why) => refused.push((p, why)),
        }
    }
    Ok(())
}

fn rel(root: &Path, p: &Path) -> String {
    p.strip_prefix(root).unwrap_or(p).to_string_lossy().replace('\\', "/")
}

#[derive(Deserialize)]
struct Line<'a> {
    path: Option<Value>,
    status: Option<Value>,
    page: Option<Value>,
    captured_at: Option<Value>,
    #[serde(borrow)]
    body: Option<&'a RawValue>,
}

fn read_cassette(root: &Path, p: &Path, runs: &mut spill::Runs, quarantined: &mut Vec<Quarantined>, pending: &mut Pending) -> Result<InputFile> {
    read_cassette_in_blocks(root, p, runs, quarantined, pending, BLOCK_BYTES)
}

/// A block's lines parsed, in line order: captures for the runs, and lines for quarantine.
type Parsed = Vec<std::result::Result<Capture, Quarantined>>;

/// The last block parsed, not yet in the runs. Putting captures in the runs is one thread's
/// work (in order, and now and then a run sorted and written to disk); it is done for one
/// block while the next is parsed, across files too, so the pool is not idle meanwhile.
/// The runs take the captures in the order they always did: the same runs, the same bytes.
#[derive(Default)]
struct Pending(Option<Parsed>);

impl Pending {
    /// Put the block held in the runs, if any.
    fn flush(&mut self, runs: &mut spill::Runs, quarantined: &mut Vec<Quarantined>) -> Result<()> {
        for r in self.0.take().unwrap_or_default() {
            match r {
                Ok(c) => runs.push(c)?,
                Err(q) => quarantined.push(q),
            }
        }
        Ok(())
    }
}

/// `read_cassette` with blocks of `block_bytes` (small in tests, so lines span blocks).
/// A thread of its own reads and hashes the file, a block ahead; each block's lines are
/// split and parsed in parallel pieces, and taken in line order, so nothing depends on
/// which thread finished first. The last block stays in `pending`.
fn read_cassette_in_blocks(
    root: &Path,
    p: &Path,
    runs: &mut spill::Runs,
    quarantined: &mut Vec<Quarantined>,
    pending: &mut Pending,
    block_bytes: usize,
) -> Result<InputFile> {
    let f = crate::inputs::open_regular(p)?;
    let file = rel(root, p);
    let (mut records, mut lineno) = (0usize, 1usize);
    let (size, sha256) = std::thread::scope(|scope| -> Result<(u64, String)> {
        let (tx, rx) = std::sync::mpsc::sync_channel::<Block>(1);
        let (free_tx, free_rx) = std::sync::mpsc::channel::<Vec<u8>>();
        let reader = crate::phases::spawn_named(scope, "cassette", move || read_blocks(f, p, block_bytes, &tx, &free_rx));
        let mut consume = || -> Result<()> {
            for block in &rx {
                let (pushed, (parsed, count)) = rayon::join(|| pending.flush(runs, quarantined), || parse_block(&block, &file, lineno));
                pushed?;
                lineno += count;
                records += parsed.len();
                pending.0 = Some(parsed);
                // The buffer goes back to the reader for a later block.
                let _ = free_tx.send(block.bytes);
            }
            Ok(())
        };
        let consumed = consume();
        // On an error here the receiver goes, which stops the reader too.
        drop(rx);
        let read = Error::joined(reader.join(), p, "the thread reading this cassette stopped");
        consumed?;
        read
    })?;
    Ok(InputFile { input: "snapshot".into(), path: file, size, sha256, records })
}

/// Whole lines of a cassette, from byte `offset` of the file.
struct Block {
    bytes: Vec<u8>,
    offset: u64,
}

/// Read `f` (at `p`) in blocks of about `block_bytes` cut after a line end (a longer line
/// grows its block), sending each to `tx`; the file's size and sha256.
fn read_blocks(
    mut f: std::fs::File,
    p: &Path,
    block_bytes: usize,
    tx: &std::sync::mpsc::SyncSender<Block>,
    free: &std::sync::mpsc::Receiver<Vec<u8>>,
) -> Result<(u64, String)> {
    use sha2::Digest;
    use std::io::Read;
    let mut hasher = sha2::Sha256::new();
    let (mut size, mut offset) = (0u64, 0u64);
    let read_bytes = (1 << 20).min(block_bytes);
    let mut buf: Vec<u8> = Vec::with_capacity(block_bytes + read_bytes);
    let mut eof = false;
    while !eof || !buf.is_empty() {
        // Bytes before `scanned` hold no line end (the rest of the last block ends after its
        // last one), so each byte is searched once however long a line is.
        let mut cut = None;
        let mut scanned = buf.len();
        while !eof && cut.is_none() {
            let start = buf.len();
            buf.resize(start + read_bytes.max(block_bytes.saturating_sub(start)), 0);
            let n = f.read(&mut buf[start..]).map_err(|e| Error::io(p, e))?;
            buf.truncate(start + n);
            hasher.update(&buf[start..]);
            size += n as u64;
            eof = n == 0;
            if buf.len() >= block_bytes {
                cut = last_line_end(&buf, scanned);
                scanned = buf.len();
            }
        }
        let cut = if eof { buf.len() } else { cut.unwrap_or(buf.len()) };
        // The part after the cut starts the next block.
        let mut next = free.try_recv().unwrap_or_else(|_| Vec::with_capacity(block_bytes + read_bytes));
        next.clear();
        next.extend_from_slice(&buf[cut..]);
        buf.truncate(cut);
        let block = Block { bytes: std::mem::replace(&mut buf, next), offset };
        offset += cut as u64;
        if tx.send(block).is_err() {
            // The lines' side stopped on an error of its own, which it reports.
            break;
        }
    }
    Ok((size, hex::encode(hasher.finalize())))
}

/// Parse one block (its first line is number `first`): its lines, and the number of lines
/// it spans (blank ones too).
fn parse_block(block: &Block, file: &str, first: usize) -> (Parsed, usize) {
    // Blocks end at a newline byte, which is never inside a character, so a line that is not
    // UTF-8 is found (and quarantined) on its own; so do the pieces.
    let pieces = line_pieces(&block.bytes, rayon::current_num_threads() * 4);
    let parsed: Vec<(Vec<(crate::inputs::ByteLine<'_>, std::result::Result<Capture, LineError>)>, usize)> = pieces
        .par_iter()
        .map(|&(from, to)| {
            let (lines, count) = crate::inputs::jsonl_byte_lines(&block.bytes[from..to], 0, block.offset + from as u64);
            let lines = lines
                .into_iter()
                .map(|l| {
                    let r = match &l.text {
                        Ok(t) => parse_line(t).map(|c| Capture { file: file.to_string(), ..c }),
                        Err(why) => Err((None, why.clone(), false)),
                    };
                    (l, r)
                })
                .collect();
            (lines, count)
        })
        .collect();
    let mut base = first;
    let mut out = Vec::with_capacity(parsed.iter().map(|(lines, _)| lines.len()).sum());
    for (lines, count) in parsed {
        out.extend(lines.into_iter().map(|(l, r)| {
            let lineno = base + l.lineno;
            match r {
                Ok(c) => Ok(Capture { line: Some(lineno), ..c }),
                Err((field, reason, at_eof)) => {
                    let reason = if at_eof && l.unterminated { crate::inputs::truncated(reason) } else { reason };
                    Err(Quarantined::new("snapshot", file, Some(lineno), field, reason, &l.raw))
                }
            }
        }));
        base += count;
    }
    (out, base - first)
}

/// `bytes` cut into about `n` pieces of whole lines (each but the last ends after a line
/// end), as (start, end) offsets.
fn line_pieces(bytes: &[u8], n: usize) -> Vec<(usize, usize)> {
    let step = (bytes.len() / n.max(1)).max(1 << 16);
    let mut out = Vec::new();
    let mut from = 0;
    while from < bytes.len() {
        let want = (from + step).min(bytes.len());
        let to = match memchr::memchr(b'\n', &bytes[want..]) {
            Some(i) => want + i + 1,
            None => bytes.len(),
        };
        out.push((from, to));
        from = to;
    }
    out
}

/// Just after the last line end of `buf`, searching only from `from` on.
fn last_line_end(buf: &[u8], from: usize) -> Option<usize> {
    buf[from..].iter().rposition(|&b| b == b'\n').map(|i| from + i + 1)
}

type LineError = (Option<&'static str>, String, bool);

fn parse_line(raw: &str) -> std::result::Result<Capture, LineError> {
    let line: Line = serde_json::from_str(raw).map_err(|e| {
        let eof = e.is_eof();
        let msg = if e.is_data() { format!("not a response object: {e}") } else { format!("not valid JSON: {e}") };
        (None, msg, eof)
    })?;
    let path = match &line.path {
        Some(Value::String(s)) if !s.trim().is_empty() => normalize_path(s),
        Some(Value::String(_)) => return Err((Some("path"), "empty".into(), false)),
        Some(other) => return Err((Some("path"), format!("expected a string, found {}", kind(other)), false)),
        None => return Err((Some("path"), "missing".into(), false)),
    };
    let status = match &line.status {
        None | Some(Value::Null) => 200,
        Some(v) => match crate::json::as_int(v).and_then(|n| u16::try_from(n).ok()) {
            Some(n) if (100..600).contains(&n) => n,
            _ => return Err((Some("status"), format!("expected an HTTP status, found {v}"), false)),
        },
    };
    let page = match &line.page {
        None | Some(Value::Null) => 1,
        Some(v) => match crate::json::as_int(v) {
            Some(n) if n >= 1 => n,
            _ => return Err((Some("page"), format!("expected a page number >= 1, found {v}"), false)),
        },
    };
    let captured_at = match &line.captured_at {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => match time::parse(s) {
            Some(t) => Some(t),
            None => return Err((Some("captured_at"), format!("`{s}` is not an RFC 3339 time"), false)),
        },
        Some(v) => return Err((Some("captured_at"), format!("expected a string, found {}", kind(v)), false)),
    };
    let body = match line.body {
        // Every later reader parses the body on its own, so deeper nesting would lose it.
        Some(b) => match crate::json::too_deep(b.get()) {
            Some(why) => return Err((Some("body"), why, false)),
            None => b.get().to_string(),
        },
        None if (200..300).contains(&status) => return Err((Some("body"), "missing on a successful response".into(), false)),
        None => "null".to_string(),
    };
    Ok(Capture { path, status, page, captured_at, body, file: String::new(), line: None, superseded_by: None })
}

/// Paths are compared without host, leading slash or query string.
pub(crate) fn normalize_path(p: &str) -> String {
    let p = p.trim();
    let p = p.strip_prefix("https://api.github.com").unwrap_or(p);
    let p = p.split('?').next().unwrap_or(p);
    p.trim_matches('/').to_string()
}

fn read_tree_file(root: &Path, p: &Path) -> Result<FileRead> {
    let bytes = crate::inputs::read_regular(p)?;
    let file = rel(root, p);
    let f = InputFile::from_bytes("snapshot", file.clone(), &bytes, 1);
    let text = match crate::inputs::document_text(&bytes) {
        Ok(t) => t,
        Err(why) => return Ok((vec![], vec![Quarantined::new("snapshot", &file, None, None, why, &String::from_utf8_lossy(&bytes))], f)),
    };
    match serde_json::from_str::<&RawValue>(text) {
        Ok(body) => {
            let path = file.trim_end_matches(".json").to_string();
            Ok((
                vec![Capture { path, status: 200, page: 1, captured_at: None, body: body.get().to_string(), file, line: None, superseded_by: None }],
                vec![],
                f,
            ))
        }
        Err(e) => Ok((vec![], vec![Quarantined::new("snapshot", &file, Some(e.line()), None, format!("not valid JSON: {e}"), text)], f)),
    }
}

/// A captured response as the dataset stores it: (path, page, status, captured_at, body).
pub type CaptureRow<B = String> = (String, i64, u16, Option<Instant>, B);

/// A captured body's text: a string of its own, or a row of the dataset's `body` column read
/// in place. Evaluate reads gigabytes of bodies; copying each out of its column was a quarter
/// of reading them, and freeing the copies most of dropping an index. The column is one of
/// string views, whose text stays in the pages it was decompressed into (no copy at all). A
/// column is held while any body of it is: a chunk's bodies and one batch beside them.
#[derive(Clone)]
pub enum BodyText {
    Own(Box<str>),
    /// Row `.1` of a column of bodies, not null.
    InColumn(std::sync::Arc<arrow::array::StringViewArray>, usize),
}

impl BodyText {
    pub(crate) fn as_str(&self) -> &str {
        match self {
            BodyText::Own(s) => s,
            BodyText::InColumn(column, row) => column.value(*row),
        }
    }
}

/// The text, not the column it may be in.
impl std::fmt::Debug for BodyText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self.as_str(), f)
    }
}

impl AsRef<str> for BodyText {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl From<String> for BodyText {
    fn from(s: String) -> Self {
        BodyText::Own(s.into_boxed_str())
    }
}

/// What one input file yielded.
type FileRead = (Vec<Capture>, Vec<Quarantined>, InputFile);

/// What an evaluator sees of one path: the status and the body with pages joined.
///
/// The body is kept as its text and parsed on first use: into a `Value` for the rules that
/// read it as JSON ([`Entry::body`]), or straight into the typed view a reader asks for
/// ([`Entry::pull`], [`Entry::events`], ...) without a `Value` (see [`sparse`]). Each is
/// built once per entry and shared by every output and window that reads it.
#[derive(Debug, Default)]
pub struct Entry {
    pub status: u16,
    /// The body's text; `None` when the body was built as a `Value` (joined pages, a copy
    /// derived from another capture).
    text: Option<BodyText>,
    value: std::sync::OnceLock<Value>,
    /// Allocated on the first view: most entries are read as one view or none, and an
    /// entry stays small while the index is built.
    views: std::sync::OnceLock<Box<Views>>,
    pub captured_at: Option<Instant>,
    /// For an entry derived from another capture (a repository-wide list, an issue-shaped
    /// PR, search results: see [`derive`]), that capture's path.
    pub derived_from: Option<String>,
    /// Whether a capture at this very path holds an answer (2xx, or gone: 404/410), whatever
    /// copy is used: a derived copy that replaced it keeps it, one that filled an empty
    /// path has none. The capture plan counts a path as present by it.
    answered: bool,
}

/// The typed views of one entry's body, each built on first use. The two large ones are
/// boxed: an entry is read as one or two views, and the box of views is allocated, and
/// freed with the index, for every entry read (inline, the two made it ~1 KiB).
#[derive(Debug, Default)]
struct Views {
    /// The pool thread that made the box (see [`SnapshotIndex::free`]).
    owner: Option<usize>,
    issue: std::sync::OnceLock<Box<github::Issue>>,
    pull: std::sync::OnceLock<Box<github::PullRequest>>,
    events: std::sync::OnceLock<github::Events>,
    comments: std::sync::OnceLock<Vec<github::Comment>>,
    comment: std::sync::OnceLock<Box<github::Comment>>,
    reviews: std::sync::OnceLock<Vec<github::Review>>,
    commits: std::sync::OnceLock<Vec<github::Commit>>,
    reactions: std::sync::OnceLock<Vec<github::Reaction>>,
    names: std::sync::OnceLock<github::Names>,
}

/// Whether a capture's status is an answer: 2xx, or gone (404/410).
fn answers(status: u16) -> bool {
    (200..300).contains(&status) || matches!(status, 404 | 410)
}

impl Entry {
    /// An entry whose body is a `Value` already.
    pub(crate) fn new(status: u16, body: Value, captured_at: Option<Instant>, derived_from: Option<String>) -> Entry {
        Entry { status, text: None, value: std::sync::OnceLock::from(body), views: std::sync::OnceLock::new(), captured_at, derived_from, answered: false }
    }

    /// An entry whose body is parsed when first read; text that is not JSON reads as `null`.
    pub(crate) fn from_text(status: u16, text: impl Into<BodyText>, captured_at: Option<Instant>) -> Entry {
        let answered = answers(status);
        let (value, views) = (std::sync::OnceLock::new(), std::sync::OnceLock::new());
        Entry { status, text: Some(text.into()), value, views, captured_at, derived_from: None, answered }
    }

    /// The same entry, noting whether a capture at its own path answered.
    pub(crate) fn answered_as(mut self, answered: bool) -> Entry {
        self.answered = answered;
        self
    }

    /// Whether a capture at this very path holds an answer (2xx, or gone: 404/410), even
    /// when a derived copy is used; a failed capture is asked for again by `capture`.
    pub fn answered(&self) -> bool {
        self.answered
    }

    pub fn ok(&self) -> bool {
        (200..300).contains(&self.status)
    }
    /// Whether the capture has a time of its own or was derived from another: evidence
    /// that is not simply "its own path, as of the snapshot".
    pub fn has_provenance(&self) -> bool {
        self.captured_at.is_some() || self.derived_from.is_some()
    }
    pub fn gone(&self) -> bool {
        matches!(self.status, 404 | 410)
    }

    /// The body's text, when it was kept as text.
    fn text(&self) -> Option<&str> {
        self.text.as_ref().map(BodyText::as_str)
    }

    /// The body as JSON.
    pub fn body(&self) -> &Value {
        self.value.get_or_init(|| self.text().and_then(|t| serde_json::from_str(t).ok()).unwrap_or(Value::Null))
    }

    /// Whether the body may hold one of `words` (a key or a value a reader needs): a cheap
    /// look at a body not parsed yet, so that one which cannot is never parsed. Text with a
    /// `\u` escape may spell a word otherwise, and may hold it.
    pub fn may_hold(&self, words: &[&str]) -> bool {
        match (self.value.get(), self.text()) {
            (None, Some(t)) => {
                // memchr's searcher: vectorised wider than `str::contains`, on bodies of any size.
                let has = |w: &str| memchr::memmem::find(t.as_bytes(), w.as_bytes()).is_some();
                has("\\u") || words.iter().any(|w| has(w))
            }
            _ => true,
        }
    }

    /// A typed view of the body: from the `Value` when one was built already, else from the
    /// text, reading only the keys the views read.
    fn view<T: github::View>(&self) -> T {
        match (self.value.get(), self.text()) {
            (Some(v), _) => T::read(v),
            (None, Some(t)) => T::read(&sparse::Sparse::parse(t, T::KEYS)),
            (None, None) => T::read(&Value::Null),
        }
    }

    fn views(&self) -> &Views {
        self.views.get_or_init(|| Box::new(Views { owner: rayon::current_thread_index(), ..Views::default() }))
    }

    /// The body read as an issue.
    pub fn issue(&self) -> &github::Issue {
        self.views().issue.get_or_init(|| Box::new(self.view()))
    }
    /// The body read as a pull request.
    pub fn pull(&self) -> &github::PullRequest {
        self.views().pull.get_or_init(|| Box::new(self.view()))
    }
    /// The body read as a timeline or events list (see [`github::events`]).
    pub fn events(&self) -> &[github::Event] {
        &self.views().events.get_or_init(|| self.view()).0
    }
    /// The body read as a list of comments.
    pub fn comments(&self) -> &[github::Comment] {
        self.views().comments.get_or_init(|| self.view())
    }
    /// The body read as one comment (`issues/comments/ID`).
    pub fn comment(&self) -> &github::Comment {
        self.views().comment.get_or_init(|| Box::new(self.view()))
    }
    /// The body read as a list of reviews.
    pub fn reviews(&self) -> &[github::Review] {
        self.views().reviews.get_or_init(|| self.view())
    }
    /// The body read as a list of commits.
    pub fn commits(&self) -> &[github::Commit] {
        self.views().commits.get_or_init(|| self.view())
    }
    /// The body read as a list of names (labels, logins; see [`github::Names`]).
    pub fn names(&self) -> Option<&Vec<String>> {
        self.views().names.get_or_init(|| self.view()).0.as_ref()
    }
    /// The body read as a list of reactions.
    pub fn reactions(&self) -> &[github::Reaction] {
        self.views().reactions.get_or_init(|| self.view())
    }
}

/// Captures by path. Hashed with foldhash (a fixed seed: the same order on every run; no
/// caller depends on the order, they sort): paths are looked up dozens of times per output,
/// and SipHash was most of a lookup's cost.
pub(crate) type Paths = HashMap<String, Entry, foldhash::fast::FixedState>;

/// Path -> entry: of the whole snapshot, or of one repository with the paths of no
/// repository (projects, users) shared beside it.
#[derive(Default)]
pub struct SnapshotIndex {
    pub entries: Paths,
    /// Looked in when a path is not in `entries`.
    shared: Option<std::sync::Arc<SnapshotIndex>>,
    /// Whether some entry has a `captured_at` of its own or was derived from another capture.
    provenance: bool,
    /// For the tests alone ([`crate::testing::observing`]): every path looked up, found or
    /// not, to check that the rules declare what they read (`evaluate::rules::reads`).
    observer: Option<std::sync::Arc<std::sync::Mutex<std::collections::BTreeSet<String>>>>,
}

/// The pages of one path as one body: a list's pages concatenated in page order; a list
/// GitHub wraps in an object (`total_count` beside it: check runs, statuses, workflow runs,
/// search results) as its first page's object with each list field joined across the
/// pages, as convert reads them page by page; any other body, its first page.
fn join_pages(bodies: Vec<Value>) -> Value {
    if bodies.iter().all(Value::is_array) {
        return Value::Array(
            bodies
                .into_iter()
                .flat_map(|b| match b {
                    Value::Array(a) => a,
                    _ => Vec::new(),
                })
                .collect(),
        );
    }
    let wrapped = bodies.iter().all(|b| b.get("total_count").is_some());
    let mut pages = bodies.into_iter();
    let Some(mut first) = pages.next() else { return Value::Null };
    if let (true, Value::Object(lists)) = (wrapped, &mut first) {
        for mut page in pages {
            for (field, list) in lists.iter_mut() {
                if let (Value::Array(list), Some(Value::Array(more))) = (list, page.get_mut(field.as_str())) {
                    list.append(more);
                }
            }
        }
    }
    first
}

impl SnapshotIndex {
    /// `captures` are (path, page, status, captured_at, body text); bodies that fail to
    /// parse were already quarantined at convert time and are skipped here.
    pub fn build<I, B>(captures: I) -> Self
    where
        I: IntoIterator<Item = CaptureRow<B>>,
        B: Into<BodyText> + AsRef<str> + Send,
    {
        type Page<B> = (i64, u16, Option<Instant>, B);
        // Sorted by path and page (a dataset's rows come sorted already: the sort finds one
        // run), a path's pages in the order given where their numbers tie.
        let mut rows: Vec<CaptureRow<B>> = captures.into_iter().collect();
        rows.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(&b.1)));
        // A path of one page (nearly all) is an entry at once, its text kept until read;
        // the pages of the others are joined as JSON, in parallel.
        let mut entries = Paths::with_capacity_and_hasher(rows.len(), Default::default());
        let mut paged: Vec<(String, Vec<Page<B>>)> = Vec::new();
        let mut rows = rows.into_iter().peekable();
        while let Some((path, page, status, at, body)) = rows.next() {
            if rows.peek().is_none_or(|next| next.0 != path) {
                entries.insert(path, Entry::from_text(status, body, at));
                continue;
            }
            let mut pages = vec![(page, status, at, body)];
            while let Some((_, page, status, at, body)) = rows.next_if(|next| next.0 == path) {
                pages.push((page, status, at, body));
            }
            paged.push((path, pages));
        }
        let joined: Vec<(String, Entry)> = paged
            .into_par_iter()
            .map(|(path, pages)| {
                let status = pages.iter().map(|p| p.1).find(|s| !(200..300).contains(s)).unwrap_or(pages[0].1);
                let captured_at = pages.iter().filter_map(|p| p.2).max();
                let answered = pages.iter().any(|p| answers(p.1));
                // Each page's text is let go once parsed: a long list is held once, not twice.
                let bodies: Vec<Value> = pages.into_iter().map(|p| serde_json::from_str(p.3.as_ref()).unwrap_or(Value::Null)).collect();
                (path, Entry::new(status, join_pages(bodies), captured_at, None).answered_as(answered))
            })
            .collect();
        entries.extend(joined);
        derive::add_derived(&mut entries);
        let provenance = entries.values().any(Entry::has_provenance);
        SnapshotIndex { entries, shared: None, provenance, observer: None }
    }

    /// Whether any entry, here or shared, has its own `captured_at` or was derived from
    /// another capture (`false` when none could have). Without one, every capture's
    /// evidence is "its own path, as of the snapshot".
    pub fn has_provenance(&self) -> bool {
        self.provenance || self.shared.as_ref().is_some_and(|s| s.has_provenance())
    }

    /// Free indexes: each entry's views on the pool thread that made them (the thread
    /// that read the entry first, which made most of what they hold: the allocator frees a
    /// block fastest on the thread it gave it to), then the entries, on every thread.
    pub fn free(indexes: impl IntoIterator<Item = SnapshotIndex>) {
        let threads = rayon::current_num_threads();
        let mut maps: Vec<Paths> = indexes.into_iter().map(|i| i.entries).collect();
        let mut by_owner: Vec<Vec<Box<Views>>> = (0..=threads).map(|_| Vec::new()).collect();
        for e in maps.iter_mut().flat_map(|m| m.values_mut()) {
            if let Some(v) = e.views.take() {
                by_owner[v.owner.unwrap_or(threads).min(threads)].push(v);
            }
        }
        let slots: Vec<std::sync::Mutex<Vec<Box<Views>>>> = by_owner.into_iter().map(std::sync::Mutex::new).collect();
        rayon::broadcast(|ctx| {
            if let Some(mut own) = slots.get(ctx.index()).and_then(|s| s.lock().ok()) {
                own.clear();
            }
        });
        // Views no pool thread made (a caller outside the pool) are freed here.
        drop(slots);
        maps.into_par_iter().flat_map(|m| m.into_par_iter()).for_each(drop);
    }

    pub fn get(&self, path: &str) -> Option<&Entry> {
        let e = self.entries.get(path).or_else(|| self.shared.as_ref().and_then(|s| s.entries.get(path)));
        if let Some(seen) = self.observer.as_ref().and_then(|o| o.lock().ok()).as_mut() {
            seen.insert(path.to_string());
        }
        e
    }

    /// The same index, noting every path looked up in `observer` (tests only).
    pub fn observed_by(mut self, observer: std::sync::Arc<std::sync::Mutex<std::collections::BTreeSet<String>>>) -> Self {
        self.observer = Some(observer);
        self
    }

    /// The same index, falling back on `shared` for paths it does not hold.
    pub(crate) fn with_shared(mut self, shared: Option<std::sync::Arc<SnapshotIndex>>) -> Self {
        self.shared = shared;
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lines several blocks long, between short ones, are read whole and in order, with
    /// their line numbers; the line-end search starts where the last one stopped.
    #[test]
    fn lines_longer_than_a_block_are_read_intact() {
        let tmp = tempfile::tempdir().unwrap();
        let long = |n: usize, len: usize| format!("{{\"path\": \"repos/o/r/issues/{n}\", \"body\": {{\"title\": \"{}\"}}}}", "x".repeat(len));
        let lines = [long(1, 10), long(2, 1000), String::new(), long(3, 5), long(4, 333), long(5, 64)];
        std::fs::write(tmp.path().join("c.jsonl"), lines.join("\n") + "\n").unwrap();
        let mut runs = spill::Runs::new(&tmp.path().join("spill"), 1 << 30);
        let mut q = Vec::new();
        let mut pending = Pending::default();
        let f = read_cassette_in_blocks(tmp.path(), &tmp.path().join("c.jsonl"), &mut runs, &mut q, &mut pending, 64).unwrap();
        pending.flush(&mut runs, &mut q).unwrap();
        assert!(q.is_empty(), "{q:?}");
        assert_eq!(f.records, 5);
        let mut merge = runs.merge().unwrap();
        let got: Vec<(Option<usize>, usize)> = merge
            .next_batch(usize::MAX)
            .unwrap()
            .iter()
            .map(|c| (c.line, serde_json::from_str::<Value>(&c.body).unwrap()["title"].as_str().unwrap().len()))
            .collect();
        assert_eq!(got, [(Some(1), 10), (Some(2), 1000), (Some(4), 5), (Some(5), 333), (Some(6), 64)]);
        assert_eq!(last_line_end(b"a\nbc\nd", 3), Some(5));
        assert_eq!(last_line_end(b"a\nbcd", 2), None);
    }

    /// A block's captures go into the runs while the next block is parsed, the last block of
    /// a file while the next file's first is: every capture and quarantined line keeps its
    /// own file and line, none is lost, and runs spilled meanwhile merge back in order.
    #[test]
    fn blocks_put_in_the_runs_beside_the_next_keep_their_file_and_line() {
        let tmp = tempfile::tempdir().unwrap();
        let line = |n: usize| format!("{{\"path\": \"repos/o/r/issues/{n}\", \"body\": {{\"number\": {n}}}}}");
        let a = [line(3), line(1), "{not json".to_string(), line(2)];
        let b = [line(5), String::new(), line(4), "[1]".to_string()];
        std::fs::write(tmp.path().join("a.jsonl"), a.join("\n") + "\n").unwrap();
        std::fs::write(tmp.path().join("b.jsonl"), b.join("\n")).unwrap();
        // A budget of one capture: a run is spilled at every push.
        let mut runs = spill::Runs::new(&tmp.path().join("spill"), 1);
        let (mut q, mut pending) = (Vec::new(), Pending::default());
        let records: usize = ["a.jsonl", "b.jsonl"]
            .iter()
            .map(|f| read_cassette_in_blocks(tmp.path(), &tmp.path().join(f), &mut runs, &mut q, &mut pending, 48).unwrap().records)
            .sum();
        pending.flush(&mut runs, &mut q).unwrap();
        assert!(runs.spilled() > 1);
        let quarantined: Vec<(&str, Option<i64>)> = q.iter().map(|q| (q.file.as_str(), q.line)).collect();
        assert_eq!(quarantined, [("a.jsonl", Some(3)), ("b.jsonl", Some(4))]);
        let mut merge = runs.merge().unwrap();
        let got: Vec<(String, String, Option<usize>)> = merge.next_batch(usize::MAX).unwrap().into_iter().map(|c| (c.path, c.file, c.line)).collect();
        let want: Vec<(String, String, Option<usize>)> = [(1, "a", 2), (2, "a", 4), (3, "a", 1), (4, "b", 3), (5, "b", 1)]
            .into_iter()
            .map(|(n, f, l)| (format!("repos/o/r/issues/{n}"), format!("{f}.jsonl"), Some(l)))
            .collect();
        assert_eq!(got, want);
        assert_eq!(records, got.len() + q.len(), "every record is used or quarantined");
    }
}
