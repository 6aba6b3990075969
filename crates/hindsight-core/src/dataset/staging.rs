//! Writing a dataset without ever destroying a user's files.
//!
//! Every command that writes a dataset (`convert`, `evaluate`, `attach`, `run`) does it the
//! same way: the output directory is resolved and checked ([`OutDir::resolve`]), a lock
//! beside it is taken ([`Lock`]), the new dataset is built in a staging folder beside it
//! ([`Staging`]; `evaluate` and `attach` start from hard links of the current files), and
//! [`Staging::commit`] swaps the staging folder into place in one rename. A kill at any
//! instant leaves either the old dataset or the new one, whole; the next writer removes the
//! staging folders of dead processes and says so.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{Read, Write};
use std::path::{Component, Path, PathBuf};

use crate::error::{Error, Result};

/// Tables hindsight writes, whether or not a manifest lists them: a dataset killed between
/// writing a table and its manifest may hold one the manifest does not know. Taken from the
/// table builders themselves, so a new table is never mistaken for a user's file.
pub(crate) fn known_tables() -> Vec<&'static str> {
    let mut names: Vec<&'static str> = crate::snapshot::tables::typed(&[]).iter().map(|t| t.name).collect();
    names.extend(crate::traces::tables(&[]).iter().map(|t| t.name));
    names.extend([
        crate::snapshot::tables::responses(&[]).name,
        crate::runs::tables::safe_outputs(&[]).name,
        crate::runs::tables::requests(&[]).name,
        crate::runs::tables::runs(&[]).name,
        crate::quarantine::table(&[]).name,
        "outcomes",
        "trace_links",
    ]);
    names.sort_unstable();
    names.dedup();
    names
}

/// Files other than tables that hindsight writes into a dataset.
const FILES: &[&str] = &["manifest.json", "traces.enriched.jsonl"];

/// A checked output directory: an absolute path with every existing part resolved, that is
/// not the working directory or one of its parents, holds no input and lies in none, and is
/// either absent, empty, or a hindsight dataset holding only hindsight's files.
#[derive(Clone, Debug)]
pub struct OutDir {
    /// The resolved path.
    pub(crate) path: PathBuf,
    parent: PathBuf,
    name: String,
    /// The manifest the last check read, with the file's identity then: checked again as
    /// the command commits, an unchanged file is not read again (a large study's manifest
    /// takes a while to parse).
    seen: Option<(Stamp, std::sync::Arc<Head>)>,
}

/// What identifies a file's content without reading it: a new manifest is written to a
/// temporary file and renamed, so it has a new inode; an edit in place changes the size or
/// the modification time.
#[derive(Clone, Debug, PartialEq)]
struct Stamp {
    len: u64,
    modified: Option<std::time::SystemTime>,
    #[cfg(unix)]
    inode: (u64, u64),
}

impl Stamp {
    fn of(m: &std::fs::Metadata) -> Stamp {
        #[cfg(unix)]
        use std::os::unix::fs::MetadataExt;
        Stamp {
            len: m.len(),
            modified: m.modified().ok(),
            #[cfg(unix)]
            inode: (m.dev(), m.ino()),
        }
    }
}

impl OutDir {
    /// Check `out` as the target of a new dataset built from `inputs`.
    pub fn resolve(out: &Path, inputs: &[&Path]) -> Result<OutDir> {
        let refuse = |message: String| Error::Usage(format!("--out {}: {message}", out.display()));
        let path = resolve_path(out).map_err(|e| Error::io(out, e))?;
        let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
            return Err(refuse("is the root of the file system; give a directory of its own".into()));
        };
        let name = name.to_str().ok_or_else(|| refuse("the name is not valid UTF-8".into()))?.to_string();
        let cwd = std::env::current_dir().and_then(|d| d.canonicalize()).map_err(|e| Error::io(".", e))?;
        if cwd.starts_with(&path) {
            let what = if cwd == path { "the working directory" } else { "a parent of the working directory" };
            return Err(refuse(format!("resolves to {}, {what}; a dataset needs a directory of its own", path.display())));
        }
        for input in inputs {
            let Ok(input) = input.canonicalize() else { continue };
            if input.starts_with(&path) {
                return Err(refuse(format!("resolves to {}, which holds the input {}; writing there would replace it", path.display(), input.display())));
            }
            if path.starts_with(&input) {
                return Err(refuse(format!(
                    "resolves to {}, inside the input {}; the next run would read the dataset as input",
                    path.display(),
                    input.display()
                )));
            }
        }
        let mut dir = OutDir { parent: parent.to_path_buf(), name, path, seen: None };
        dir.check_replaceable(&refuse)?;
        Ok(dir)
    }

    /// An existing dataset, for a stage that changes it (`evaluate`, `attach`), whose
    /// manifest the stage has read: [`Manifest::load`](super::manifest::Manifest::load) says
    /// when the directory or its manifest.json is missing.
    pub fn existing(dataset: &Path) -> Result<OutDir> {
        let path = dataset.canonicalize().map_err(|e| Error::io(dataset, e))?;
        let refuse = |message: String| Error::Dataset { path: dataset.to_path_buf(), message };
        let (Some(parent), Some(name)) = (path.parent(), path.file_name().and_then(|n| n.to_str())) else {
            return Err(refuse("is the root of the file system".into()));
        };
        let mut dir = OutDir { parent: parent.to_path_buf(), name: name.to_string(), path: path.clone(), seen: None };
        dir.check_replaceable(&refuse)?;
        Ok(dir)
    }

    /// Refuse a target that exists and holds anything hindsight did not write.
    fn check_replaceable(&mut self, refuse: &dyn Fn(String) -> Error) -> Result<()> {
        let meta = match std::fs::symlink_metadata(&self.path) {
            Ok(m) => m,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(Error::io(&self.path, e)),
        };
        if !meta.is_dir() {
            return Err(refuse(format!("{} exists and is not a directory; refusing to replace it", self.path.display())));
        }
        let entries = list(&self.path)?;
        if entries.is_empty() {
            return Ok(());
        }
        let manifest = match self.head() {
            Some(m) if m.format.starts_with("hindsight-dataset/") => m,
            _ => {
                return Err(refuse(format!(
                    "{} exists, is not empty and is not a hindsight dataset (no readable manifest.json); refusing to replace it",
                    self.path.display()
                )))
            }
        };
        let foreign: Vec<String> = entries.into_iter().filter(|(n, is_file)| !(*is_file && is_hindsights(n, &manifest))).map(|(n, _)| n).collect();
        if !foreign.is_empty() {
            let shown: Vec<&str> = foreign.iter().take(5).map(String::as_str).collect();
            let more = if foreign.len() > 5 { format!(" and {} more", foreign.len() - 5) } else { String::new() };
            return Err(refuse(format!(
                "{} holds files hindsight did not write ({}{more}); replacing the dataset would delete them: move them out or choose another --out",
                self.path.display(),
                crate::text::printable(&shown.join(", "))
            )));
        }
        Ok(())
    }

    /// The dataset's manifest as far as the check needs it: read, or the one read before
    /// when the file is unchanged since. `None` when there is none or it is no JSON object
    /// with a format.
    fn head(&mut self) -> Option<std::sync::Arc<Head>> {
        let p = self.path.join("manifest.json");
        let stamp = std::fs::metadata(&p).ok().map(|m| Stamp::of(&m));
        if let (Some(now), Some((then, head))) = (&stamp, &self.seen) {
            if now == then {
                return Some(head.clone());
            }
        }
        let head = std::sync::Arc::new(Head::load(&self.path)?);
        // Read after the stamp: a file replaced in between is read again next time.
        self.seen = stamp.map(|s| (s, head.clone()));
        Some(head)
    }

    /// The staging folder of process `pid`.
    fn staging(&self, pid: u32) -> PathBuf {
        self.parent.join(format!(".{}.partial-{pid}", self.name))
    }

    /// Where the previous dataset waits during a swap where the OS cannot exchange two
    /// directories in one step.
    fn aside(&self, pid: u32) -> PathBuf {
        self.parent.join(format!(".{}.old-{pid}", self.name))
    }

    fn lock_path(&self) -> PathBuf {
        self.parent.join(format!(".{}.lock", self.name))
    }
}

/// What the check needs of a dataset's manifest: its format and the names of the tables and
/// files it lists. The list of inputs (most of a large study's manifest) is skipped, not
/// built: the check runs as a command starts and again as it commits.
#[derive(serde::Deserialize, Debug)]
struct Head {
    format: String,
    #[serde(default)]
    tables: BTreeMap<String, serde::de::IgnoredAny>,
    #[serde(default)]
    files: BTreeMap<String, serde::de::IgnoredAny>,
}

impl Head {
    /// `None` when there is no manifest or it is no JSON object with a format.
    fn load(dataset: &Path) -> Option<Head> {
        let text = std::fs::read_to_string(dataset.join("manifest.json")).ok()?;
        serde_json::from_str(&text).ok()
    }
}

/// Whether `dir` is a hindsight dataset: its `manifest.json`, a regular file of a sane size,
/// declares hindsight's format.
pub(crate) fn is_dataset(dir: &Path) -> bool {
    let plain = std::fs::symlink_metadata(dir.join("manifest.json")).is_ok_and(|m| m.is_file() && m.len() < (64 << 20));
    plain && Head::load(dir).is_some_and(|h| h.format.starts_with(super::manifest::FORMAT_PREFIX))
}

/// Whether a dataset entry is one hindsight writes: the manifest, a file it records, a
/// table hindsight knows, or one of hindsight's temporaries.
fn is_hindsights(name: &str, manifest: &Head) -> bool {
    if FILES.contains(&name) || manifest.files.contains_key(name) {
        return true;
    }
    if let Some(table) = name.strip_suffix(".parquet") {
        return manifest.tables.contains_key(table) || known_tables().contains(&table);
    }
    // `.<file>.tmp`, the name one of hindsight's own files has while it is written; any
    // other `.something.tmp` is a user's, and replacing the dataset would delete it.
    name.strip_prefix('.').and_then(|n| n.strip_suffix(".tmp")).is_some_and(|inner| !inner.starts_with('.') && is_hindsights(inner, manifest))
}

/// `.<file>.tmp`: in a dataset that passed [`OutDir::check_replaceable`], one of
/// hindsight's files being written, not carried into a new version.
fn is_temporary(name: &str) -> bool {
    name.starts_with('.') && name.ends_with(".tmp")
}

/// Entries of a directory: (name, is a regular file), sorted. Names that are not UTF-8 are
/// shown lossily (they are never hindsight's).
fn list(dir: &Path) -> Result<Vec<(String, bool)>> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))? {
        let e = e.map_err(|e| Error::io(dir, e))?;
        let is_file = e.file_type().map(|t| t.is_file()).unwrap_or(false);
        out.push((e.file_name().to_string_lossy().to_string(), is_file));
    }
    out.sort();
    Ok(out)
}

/// `p` made absolute, with its longest existing prefix resolved (symlinks, `..`) and the
/// rest normalized by name: a part that does not exist yet cannot be a symlink.
pub fn resolve_path(p: &Path) -> std::io::Result<PathBuf> {
    let abs = if p.is_absolute() { p.to_path_buf() } else { std::env::current_dir()?.join(p) };
    let mut existing = abs.clone();
    let mut rest = Vec::new();
    while std::fs::symlink_metadata(&existing).is_err() {
        match (existing.file_name(), existing.parent()) {
            (Some(n), Some(parent)) => {
                rest.push(n.to_os_string());
                existing = parent.to_path_buf();
            }
            // `..` or `.` at the end of a path that does not exist: resolve what exists of
            // its parent first.
            _ => match existing.parent() {
                Some(parent) => {
                    rest.push(existing.components().next_back().map(|c| c.as_os_str().to_os_string()).unwrap_or_default());
                    existing = parent.to_path_buf();
                }
                None => break,
            },
        }
    }
    let mut out = existing.canonicalize()?;
    for part in rest.iter().rev() {
        match Path::new(part).components().next() {
            Some(Component::ParentDir) => {
                out.pop();
            }
            Some(Component::CurDir) | None => {}
            Some(_) => out.push(part),
        }
    }
    Ok(out)
}

/// One writer per output directory at a time: an OS lock on `.<name>.lock` beside it,
/// released when the process ends however it ends. The file holds the holder's pid and
/// start time, for the message a second writer gets.
pub(crate) struct Lock {
    _file: File,
}

impl Lock {
    pub(crate) fn acquire(dir: &OutDir) -> Result<Lock> {
        let path = dir.lock_path();
        let mut file = std::fs::OpenOptions::new().read(true).write(true).create(true).truncate(false).open(&path).map_err(|e| Error::io(&path, e))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                let mut holder = String::new();
                let _ = file.read_to_string(&mut holder);
                let holder = crate::text::printable(holder.trim());
                return Err(Error::Usage(format!(
                    "{} is being written by another hindsight ({}); wait for it to finish or stop it (lock: {})",
                    dir.path.display(),
                    if holder.is_empty() { "holder unknown".into() } else { holder },
                    path.display()
                )));
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(Error::io(&path, e)),
        }
        let started = crate::time::format(&chrono::Utc::now());
        let text = format!("pid {} started {started}\n", std::process::id());
        file.set_len(0).and_then(|_| file.write_all(text.as_bytes())).map_err(|e| Error::io(&path, e))?;
        Ok(Lock { _file: file })
    }
}

/// A staging folder beside the output; `commit` swaps it into place.
pub struct Staging {
    pub dir: PathBuf,
    out: OutDir,
    /// Leftovers of dead writers removed when the staging folder was made.
    pub removed: Vec<PathBuf>,
    _lock: Lock,
}

impl Staging {
    /// An empty staging folder for a new dataset at `out`.
    pub fn new(out: &OutDir) -> Result<Staging> {
        let lock = Lock::acquire(out)?;
        std::fs::create_dir_all(&out.parent).map_err(|e| Error::io(&out.parent, e))?;
        let removed = remove_leftovers(out)?;
        let dir = out.staging(std::process::id());
        std::fs::create_dir(&dir).map_err(|e| Error::io(&dir, e))?;
        Ok(Staging { dir, out: out.clone(), removed, _lock: lock })
    }

    /// A staging folder holding the dataset's current files (hard links where the file
    /// system allows, copies otherwise), to be changed and committed. Files are only ever
    /// replaced by rename, never written in place, so the links never change the original.
    pub fn modify(out: &OutDir) -> Result<Staging> {
        let staging = Staging::new(out)?;
        for (name, is_file) in list(&out.path)? {
            if !is_file || is_temporary(&name) {
                continue;
            }
            let (from, to) = (out.path.join(&name), staging.dir.join(&name));
            if std::fs::hard_link(&from, &to).is_err() {
                std::fs::copy(&from, &to).map_err(|e| Error::io(&from, e))?;
            }
        }
        Ok(staging)
    }

    /// Put the staging folder in place of the output, in one step where the OS can exchange
    /// two directories (Linux), else by moving the old dataset aside first. The old dataset
    /// is removed only once the new one is in place.
    pub fn commit(mut self) -> Result<()> {
        let out = self.out.path.clone();
        // Checked again: the directory may have changed since the command started.
        self.out.check_replaceable(&|message| Error::Dataset { path: out.clone(), message })?;
        let out = &out;
        let exists = std::fs::symlink_metadata(out).is_ok();
        if !exists || list(out)?.is_empty() {
            // rename(2) replaces an empty directory.
            return std::fs::rename(&self.dir, out).map_err(|e| Error::io(out, e));
        }
        if exchange(&self.dir, out).is_ok() {
            // `self.dir` now holds the previous dataset; Drop removes it.
            return Ok(());
        }
        let aside = self.out.aside(std::process::id());
        std::fs::rename(out, &aside).map_err(|e| Error::io(out, e))?;
        if let Err(e) = std::fs::rename(&self.dir, out) {
            let _ = std::fs::rename(&aside, out);
            return Err(Error::io(out, e));
        }
        let _ = std::fs::remove_dir_all(&aside);
        Ok(())
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        if self.dir.exists() {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

/// Swap two directories atomically (Linux `renameat2(RENAME_EXCHANGE)`).
#[cfg(target_os = "linux")]
fn exchange(a: &Path, b: &Path) -> std::io::Result<()> {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    let (a, b) = (CString::new(a.as_os_str().as_bytes())?, CString::new(b.as_os_str().as_bytes())?);
    // SAFETY: both are valid NUL-terminated paths; AT_FDCWD is ignored for absolute paths.
    let r = unsafe { libc::renameat2(libc::AT_FDCWD, a.as_ptr(), libc::AT_FDCWD, b.as_ptr(), libc::RENAME_EXCHANGE) };
    if r == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

#[cfg(not(target_os = "linux"))]
fn exchange(_: &Path, _: &Path) -> std::io::Result<()> {
    Err(std::io::Error::new(std::io::ErrorKind::Unsupported, "no directory exchange"))
}

/// Remove what dead writers left beside `out` (called with the lock held, so no live
/// process owns them): staging folders, and a previous dataset moved aside by a swap that
/// never finished, which is put back if the output itself is missing.
fn remove_leftovers(out: &OutDir) -> Result<Vec<PathBuf>> {
    let (staging, aside) = (format!(".{}.partial-", out.name), format!(".{}.old-", out.name));
    let mut removed = Vec::new();
    for (name, _) in list(&out.parent)? {
        let p = out.parent.join(&name);
        if name.starts_with(&aside) && std::fs::symlink_metadata(&out.path).is_err() {
            std::fs::rename(&p, &out.path).map_err(|e| Error::io(&p, e))?;
            continue;
        }
        let pid = name.strip_prefix(&staging).or_else(|| name.strip_prefix(&aside));
        if pid.is_some_and(|pid| !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit())) {
            std::fs::remove_dir_all(&p).map_err(|e| Error::io(&p, e))?;
            removed.push(p);
        }
    }
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_that_do_not_exist_are_resolved_by_name() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path().canonicalize().unwrap();
        assert_eq!(resolve_path(&root.join("a/b/..")).unwrap(), root.join("a"));
        assert_eq!(resolve_path(&root.join("a/./b")).unwrap(), root.join("a/b"));
        assert_eq!(resolve_path(&root.join("x/..")).unwrap(), root);
        std::fs::create_dir(root.join("real")).unwrap();
        assert_eq!(resolve_path(&root.join("real/../new")).unwrap(), root.join("new"));
    }

    /// The check as a change commits reads the manifest again only when the file changed:
    /// a manifest replaced meanwhile (here, one that lists a file the first did not) is what
    /// the check goes by, not the one read as the command started.
    #[test]
    fn a_manifest_replaced_before_the_commit_is_read_again() {
        let d = tempfile::tempdir().unwrap();
        let ds = d.path().join("ds");
        std::fs::create_dir(&ds).unwrap();
        let manifest = |files: &str| format!("{{\"format\": \"hindsight-dataset/1\", \"tables\": {{}}, \"files\": {{{files}}}}}");
        crate::dataset::write_text(&ds.join("manifest.json"), &manifest("")).unwrap();
        let mut out = OutDir::existing(&ds).unwrap();
        let refuse = |m: String| Error::Usage(m);
        // Unchanged: the manifest read first answers.
        let first = out.seen.as_ref().map(|(_, h)| std::sync::Arc::as_ptr(h)).unwrap();
        out.check_replaceable(&refuse).unwrap();
        assert_eq!(out.seen.as_ref().map(|(_, h)| std::sync::Arc::as_ptr(h)), Some(first));
        // A file no manifest lists is refused.
        std::fs::write(ds.join("notes.txt"), "x").unwrap();
        assert!(out.check_replaceable(&refuse).is_err());
        // Replaced by one that lists it (written and renamed, as hindsight writes it): read again.
        crate::dataset::write_text(&ds.join("manifest.json"), &manifest("\"notes.txt\": {}")).unwrap();
        out.check_replaceable(&refuse).unwrap();
        // Edited in place to a different size: read again, and refused again.
        std::fs::write(ds.join("manifest.json"), manifest("")).unwrap();
        assert!(out.check_replaceable(&refuse).is_err());
    }
}
