//! Printing results on stdout. A reader that stops early (`hindsight report ... | head -1`)
//! closes the pipe; that ends the output quietly, as it does for other command-line tools,
//! instead of panicking with exit 101.

use std::io::{ErrorKind, Write};

use crate::error::{Error, Result};

/// Write `text` to stdout and flush it. A closed stdout (broken pipe) is not an error: the
/// reader has all it wanted.
pub fn print(text: &str) -> Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() == ErrorKind::BrokenPipe => Ok(()),
        r => r.map_err(|e| Error::io("standard output", e)),
    }
}

/// The hindsight dataset `path` lies in (its folder or one above holds a hindsight
/// manifest), if any: the one whose files hindsight alone writes, through its lock.
pub fn dataset_around(path: &std::path::Path) -> Option<std::path::PathBuf> {
    let abs = crate::dataset::staging::resolve_path(path).ok()?;
    abs.ancestors().skip(1).find(|dir| crate::dataset::staging::is_dataset(dir)).map(std::path::Path::to_path_buf)
}

/// Why `path` may not be written as a file of hindsight's output (`None`: it may): it
/// exists and is not a regular file (a symlink planted under its name, a device, a FIFO),
/// or it lies inside the dataset `dataset` or any other hindsight dataset, whose files
/// hindsight writes alone (under the dataset's lock, never by a `--force`).
pub fn unwritable(path: &std::path::Path, dataset: Option<&std::path::Path>) -> Option<String> {
    if let Ok(m) = std::fs::symlink_metadata(path) {
        if !m.file_type().is_file() {
            return Some(format!("{} is not a regular file (a symlink, device, FIFO, socket or directory is never written through)", path.display()));
        }
    }
    let parent = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(std::path::Path::new("."));
    if let (Some(ds), Ok(dir)) = (dataset.and_then(|d| d.canonicalize().ok()), parent.canonicalize()) {
        if dir.starts_with(&ds) {
            return Some(format!("{} is inside the dataset {}: its files are written by hindsight alone", path.display(), ds.display()));
        }
    }
    dataset_around(path).map(|ds| format!("{} is inside the dataset {}: its files are written by hindsight alone", path.display(), ds.display()))
}
