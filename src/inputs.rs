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
