//! A reader's own version of a dataset. A writer swaps a new dataset folder into place in
//! one rename and then deletes the old one ([`super::staging`]); a query reading the tables
//! by path while that happens could read one table of each version, or a file already gone.
//! So a query session pins the version it opened: hard links to the manifest and every
//! table it lists, made through one open handle on the dataset folder (the same folder
//! whatever is renamed meanwhile), in a folder of its own beside the dataset. Tables are
//! never written in place, so the links are the version as it was; the folder is removed
//! when the session ends, and one a dead process left is removed by the next reader.

use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};

use super::manifest::Manifest;
use crate::error::{Error, Result};

/// A pinned version: its folder of links, removed on drop.
pub struct Pinned {
    pub dir: PathBuf,
    pub manifest: Manifest,
}

impl Drop for Pinned {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// How many times a version is asked for when a writer replaces it while it is linked.
const ATTEMPTS: usize = 8;

/// `dataset` pinned, or `None` where links cannot be made (no `/proc`, a folder beside the
/// dataset that cannot be written, a filesystem without hard links): the session then reads
/// the dataset's files as they are.
pub fn pin(dataset: &Path) -> Result<Option<Pinned>> {
    let (Some(parent), Some(name)) = (dataset.parent().map(|p| if p.as_os_str().is_empty() { Path::new(".") } else { p }), dataset.file_name()) else {
        return Ok(None);
    };
    let name = name.to_string_lossy().to_string();
    remove_dead(parent, &name);
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    for _ in 0..ATTEMPTS {
        let Ok(folder) = std::fs::File::open(dataset) else { return Ok(None) };
        let through = PathBuf::from(format!("/proc/self/fd/{}", folder.as_raw_fd()));
        if !through.join("manifest.json").is_file() {
            return Ok(None);
        }
        let manifest = match Manifest::load(&through) {
            Ok(m) => m,
            // Said with the dataset's own path.
            Err(_) => return Manifest::load(dataset).map(|_| None),
        };
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = parent.join(format!(".{name}.read-{}-{n}", std::process::id()));
        if std::fs::create_dir(&dir).is_err() {
            return Ok(None);
        }
        let pinned = Pinned { dir, manifest };
        let files = std::iter::once("manifest.json".to_string()).chain(pinned.manifest.tables.keys().map(|t| format!("{t}.parquet")));
        let mut replaced = false;
        for f in files {
            match std::fs::hard_link(through.join(&f), pinned.dir.join(&f)) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    // Missing from the folder as it is now too: missing on disk, which the
                    // session says with the dataset's path. Else a writer replaced the
                    // version since its manifest was read: asked again.
                    if !dataset.join(&f).exists() {
                        return Ok(None);
                    }
                    replaced = true;
                    break;
                }
                Err(_) => return Ok(None),
            }
        }
        if !replaced {
            return Ok(Some(pinned));
        }
    }
    Err(Error::Dataset { path: dataset.to_path_buf(), message: format!("replaced by a writer {ATTEMPTS} times while it was being opened; try again") })
}

/// Pinned folders of `name` whose process is gone.
fn remove_dead(parent: &Path, name: &str) {
    let prefix = format!(".{name}.read-");
    let Ok(entries) = std::fs::read_dir(parent) else { return };
    for e in entries.flatten() {
        let file = e.file_name().to_string_lossy().to_string();
        let Some(pid) = file.strip_prefix(&prefix).and_then(|rest| rest.split('-').next()).and_then(|p| p.parse::<u32>().ok()) else { continue };
        if pid != std::process::id() && !Path::new(&format!("/proc/{pid}")).exists() {
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
}
