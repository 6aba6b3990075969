//! Provenance of input files: path relative to its input root, size, sha256, record count.

use std::path::Path;

use serde::Serialize;

use crate::error::{Error, Result};

#[derive(Clone, Debug, Serialize, PartialEq, Eq, PartialOrd, Ord)]
pub struct InputFile {
    /// `snapshot`, `runs` or `traces`.
    pub input: String,
    pub path: String,
    pub size: u64,
    pub sha256: String,
    /// Input records the file holds (lines, or items); each is used or quarantined.
    pub records: usize,
}

/// One non-blank line of a JSONL file.
pub struct JsonlLine<'a> {
    /// 1-based.
    pub lineno: usize,
    pub text: &'a str,
    /// The file's last line with no newline after it: a parse that runs out of input here
    /// means the file was cut off.
    pub unterminated: bool,
}

/// The non-blank lines of a JSONL text, as every reader (snapshot, runs, traces) counts them.
pub fn jsonl_lines(text: &str) -> Vec<JsonlLine<'_>> {
    jsonl_lines_from(text, 1).0
}

/// `jsonl_lines` of a block of a file whose first line is number `first`, with the number of
/// lines the block spans (blank ones too), so the next block can go on counting.
pub fn jsonl_lines_from(text: &str, first: usize) -> (Vec<JsonlLine<'_>>, usize) {
    let cut = !text.is_empty() && !text.ends_with('\n');
    let lines: Vec<&str> = text.lines().collect();
    let n = lines.len();
    let out = lines
        .into_iter()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| JsonlLine { lineno: first + i, text: l, unterminated: cut && i + 1 == n })
        .collect();
    (out, n)
}

/// The quarantine reason for a line the file ends in the middle of.
pub fn truncated(reason: impl std::fmt::Display) -> String {
    format!("truncated line: the file ends before the JSON value is complete ({reason})")
}

impl InputFile {
    pub fn from_bytes(input: &str, path: String, bytes: &[u8], records: usize) -> Self {
        InputFile { input: input.to_string(), path, size: bytes.len() as u64, sha256: crate::json::sha256_hex(bytes), records }
    }

    pub fn hash(input: &str, root: &Path, p: &Path, records: usize) -> Result<Self> {
        let bytes = std::fs::read(p).map_err(|e| Error::io(p, e))?;
        let rel = p.strip_prefix(root).unwrap_or(p).to_string_lossy().replace('\\', "/");
        Ok(Self::from_bytes(input, rel, &bytes, records))
    }
}
