//! Provenance of input files: path relative to its input root, size, sha256, record count.

use std::path::Path;

use rayon::prelude::*;
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

/// The quarantine reason for a line the file ends in the middle of.
pub(crate) fn truncated(reason: impl std::fmt::Display) -> String {
    format!("truncated line: the file ends before the JSON value is complete ({reason})")
}

impl InputFile {
    pub(crate) fn from_bytes(input: &str, path: String, bytes: &[u8], records: usize) -> Self {
        InputFile { input: input.to_string(), path, size: bytes.len() as u64, sha256: crate::json::sha256_hex(bytes), records }
    }
}

/// The UTF-8 byte-order mark. RFC 8259 §8.1 lets a parser ignore one at the start of a text.
pub(crate) const BOM: &[u8] = b"\xEF\xBB\xBF";

/// A file's bytes without a byte-order mark at its very start (its sha256 is still of the
/// bytes as they are).
pub(crate) fn strip_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(BOM).unwrap_or(bytes)
}

/// One non-blank line of a JSONL file, taken from its bytes.
pub(crate) struct ByteLine<'a> {
    /// 1-based.
    pub(crate) lineno: usize,
    /// The line's text, or why it cannot be read as it stands (invalid UTF-8, a byte-order
    /// mark): such a line is quarantined, never repaired and used.
    pub(crate) text: std::result::Result<&'a str, String>,
    /// The line as quarantine shows it (invalid bytes as U+FFFD: display only).
    pub(crate) raw: std::borrow::Cow<'a, str>,
    /// The file's last line with no newline after it.
    pub(crate) unterminated: bool,
}

/// The non-blank lines of a block of JSONL bytes whose first line is number `first` and
/// whose first byte is at `offset` in the file, with the number of lines the block spans.
/// A byte-order mark at the very start of the file (`offset` 0) is skipped.
pub(crate) fn jsonl_byte_lines(bytes: &[u8], first: usize, offset: u64) -> (Vec<ByteLine<'_>>, usize) {
    let skip = if offset == 0 && bytes.starts_with(BOM) { BOM.len() } else { 0 };
    let body = &bytes[skip..];
    let cut = !body.is_empty() && !body.ends_with(b"\n");
    // `body.split` on b'\n', with the newlines found by memchr's vectorised search: a
    // byte-at-a-time split was most of this function's time.
    let mut pieces: Vec<&[u8]> = Vec::new();
    let mut from = 0;
    for nl in memchr::memchr_iter(b'\n', body) {
        pieces.push(&body[from..nl]);
        from = nl + 1;
    }
    pieces.push(&body[from..]);
    if !cut {
        // The piece after the final newline is no line (as `str::lines` counts).
        pieces.pop();
    }
    let n = pieces.len();
    let mut out = Vec::new();
    let mut at = offset + skip as u64;
    for (i, piece) in pieces.into_iter().enumerate() {
        let start = at;
        at += piece.len() as u64 + 1;
        let line = piece.strip_suffix(b"\r").unwrap_or(piece);
        let text = match std::str::from_utf8(line) {
            Ok(t) if t.trim().is_empty() => continue,
            Ok(t) if t.starts_with('\u{feff}') => Err(format!(
                "starts with a byte-order mark (U+FEFF); only one at the very start of a file is skipped{}",
                if start == 0 { "" } else { " (this one is inside the file)" }
            )),
            Ok(t) => Ok(t),
            Err(e) => Err(invalid_utf8(start, e.valid_up_to())),
        };
        // Valid text is its own display copy: the bytes are checked once.
        let raw = match &text {
            Ok(t) => std::borrow::Cow::Borrowed(*t),
            Err(_) => String::from_utf8_lossy(line),
        };
        out.push(ByteLine { lineno: first + i, raw, text, unterminated: cut && i + 1 == n });
    }
    (out, n)
}

/// The reason for text that is not UTF-8, at `start` + `valid` bytes into the file.
pub(crate) fn invalid_utf8(start: u64, valid: usize) -> String {
    format!(
        "invalid UTF-8 at byte offset {} of the file (byte {} of the record): not read, since replacing the bytes would alter the text",
        start + valid as u64,
        valid + 1
    )
}

/// A whole-file JSON document (`aw_info.json`, a tree capture) as text: a byte-order mark at
/// its start skipped, invalid UTF-8 or nesting too deep for the parser refused with a reason.
pub(crate) fn document_text(bytes: &[u8]) -> std::result::Result<&str, String> {
    let skip = if bytes.starts_with(BOM) { BOM.len() } else { 0 };
    let text = std::str::from_utf8(&bytes[skip..]).map_err(|e| invalid_utf8(skip as u64, e.valid_up_to()))?;
    match crate::json::too_deep(text) {
        Some(reason) => Err(reason),
        None => Ok(text),
    }
}

/// Why a file found inside an input directory must not be read, if it must not: a symbolic
/// link that leads outside `root` (or nowhere), or anything but a regular file (a FIFO
/// would block, a device would never end). Checked without opening the file.
pub(crate) fn refusal(root: &Path, p: &Path, input: &str) -> Option<String> {
    let link = match std::fs::symlink_metadata(p) {
        Ok(m) => m.file_type().is_symlink(),
        Err(e) => return Some(format!("cannot be examined ({e}): not read")),
    };
    if link {
        let target = match std::fs::canonicalize(p) {
            Ok(t) => t,
            Err(e) => return Some(format!("a symbolic link that leads nowhere ({e}): not read")),
        };
        let inside = std::fs::canonicalize(root).is_ok_and(|r| target.starts_with(r));
        if !inside {
            return Some(format!("a symbolic link to {} outside the {input} directory: not read", target.display()));
        }
    }
    match std::fs::metadata(p) {
        Ok(m) if m.is_file() => None,
        Ok(m) => Some(format!("{}, not a regular file: not read", file_kind(&m.file_type()))),
        Err(e) => Some(format!("cannot be examined ({e}): not read")),
    }
}

/// What a non-regular file is, in words.
pub(crate) fn file_kind(t: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if t.is_socket() {
            return "a socket";
        }
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
    }
    if t.is_dir() {
        "a directory"
    } else if t.is_file() {
        "a regular file"
    } else {
        "a special file"
    }
}

/// Open a file that `refusal` let through, checking again on the open handle that it is a
/// regular file (it may have been replaced in between).
pub(crate) fn open_regular(p: &Path) -> Result<std::fs::File> {
    let f = std::fs::File::open(p).map_err(|e| Error::io(p, e))?;
    let m = f.metadata().map_err(|e| Error::io(p, e))?;
    if !m.is_file() {
        return Err(Error::Layout { path: p.to_path_buf(), message: format!("{}, not a regular file", file_kind(&m.file_type())) });
    }
    Ok(f)
}

/// The bytes of a regular file (see `open_regular`).
/// The most a script or a file of expected figures may hold: read through this bound, an
/// endless input (`/dev/zero`) stops with an error instead of taking all memory.
pub(crate) const TEXT_LIMIT: u64 = 64 << 20;

/// The text of a script or a file of figures (`what`: its role, for the error), read from
/// `reader` up to [`TEXT_LIMIT`] bytes; more is refused, naming the limit.
pub fn read_text_bounded(reader: impl std::io::Read, name: &Path, what: &str) -> Result<String> {
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(&mut std::io::Read::take(reader, TEXT_LIMIT + 1), &mut bytes).map_err(|e| Error::io(name, e))?;
    if bytes.len() as u64 > TEXT_LIMIT {
        return Err(Error::Usage(format!("{}: a {what} of more than {} MiB (an endless input?); not read further", name.display(), TEXT_LIMIT >> 20)));
    }
    String::from_utf8(bytes).map_err(|e| Error::Usage(format!("{}: a {what} that is not UTF-8 (byte {})", name.display(), e.utf8_error().valid_up_to())))
}

/// [`read_text_bounded`] of a file.
pub fn read_text_file(p: &Path, what: &str) -> Result<String> {
    let f = std::fs::File::open(p).map_err(|e| Error::io(p, e))?;
    read_text_bounded(f, p, what)
}

pub(crate) fn read_regular(p: &Path) -> Result<Vec<u8>> {
    use std::io::Read;
    let mut f = open_regular(p)?;
    let mut bytes = Vec::new();
    f.read_to_end(&mut bytes).map_err(|e| Error::io(p, e))?;
    Ok(bytes)
}

impl InputFile {
    /// A file that was refused (see `refusal`): listed with no size or hash, as it was never
    /// read, and counted as one record, which is quarantined.
    pub(crate) fn refused(input: &str, path: String) -> Self {
        InputFile { input: input.to_string(), path, size: 0, sha256: String::new(), records: 1 }
    }
}

/// A file under an input directory that no reader read, and why: listed in the manifest
/// and on stderr, so that every file of an input is either read or reported.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub struct Skipped {
    pub input: String,
    pub path: String,
    pub reason: String,
}

/// Every file under `root` (not following links to directories), relative to it, sorted.
pub fn walk(root: &Path) -> Result<Vec<String>> {
    fn go(root: &Path, dir: &Path) -> Result<Vec<String>> {
        let (mut files, mut dirs) = (Vec::new(), Vec::new());
        for e in std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))? {
            let e = e.map_err(|e| Error::io(dir, e))?;
            let p = e.path();
            if e.file_type().map_err(|e| Error::io(&p, e))?.is_dir() {
                dirs.push(p);
            } else {
                files.push(p.strip_prefix(root).unwrap_or(&p).to_string_lossy().replace('\\', "/"));
            }
        }
        // Folders are searched side by side: a study's runs are one folder each.
        let nested: Vec<Vec<String>> = dirs.par_iter().map(|d| go(root, d)).collect::<Result<_>>()?;
        files.extend(nested.into_iter().flatten());
        Ok(files)
    }
    let mut out = go(root, root)?;
    out.sort();
    Ok(out)
}

/// The files under `root` that are not among `read` (paths relative to `root`), each with
/// the reason `why` gives for it.
pub fn unread(input: &str, root: &Path, read: &std::collections::BTreeSet<&str>, why: impl Fn(&str) -> String) -> Result<Vec<Skipped>> {
    Ok(walk(root)?.into_iter().filter(|p| !read.contains(p.as_str())).map(|p| Skipped { input: input.to_string(), reason: why(&p), path: p }).collect())
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    proptest! {
        /// Lines are what splitting at every newline makes (the piece after a final newline
        /// no line; blank lines skipped; a CR before the newline dropped), numbered from
        /// `first`, whatever the bytes.
        #[test]
        fn lines_are_the_pieces_between_newlines(bytes in proptest::collection::vec(prop_oneof![Just(b'a'), Just(b'\n'), Just(b'\r'), Just(b' '), Just(0xffu8)], 0..40)) {
            let (lines, count) = super::jsonl_byte_lines(&bytes, 5, 7);
            let mut pieces: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
            let cut = !bytes.is_empty() && !bytes.ends_with(b"\n");
            if !cut {
                pieces.pop();
            }
            prop_assert_eq!(count, pieces.len());
            let expected: Vec<(usize, String)> = pieces
                .iter()
                .enumerate()
                .map(|(i, p)| (i + 5, String::from_utf8_lossy(p.strip_suffix(b"\r").unwrap_or(p)).into_owned()))
                .filter(|(_, t)| !t.trim().is_empty())
                .collect();
            let got: Vec<(usize, String)> = lines.iter().map(|l| (l.lineno, l.raw.to_string())).collect();
            prop_assert_eq!(got, expected);
            prop_assert!(lines.iter().all(|l| l.unterminated == (cut && l.lineno == 4 + count)));
        }
    }
}
