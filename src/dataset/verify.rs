//! `hindsight verify`: recompute what the manifest records about a dataset (every table's
//! size, sha256 and row count; with the inputs at hand, every input file's size and
//! sha256) and report any drift.

use std::path::Path;

use parquet::file::reader::{FileReader, SerializedFileReader};

use super::manifest::Manifest;
use crate::error::{Error, Result};

#[derive(Clone, Debug, PartialEq)]
pub struct Drift {
    pub file: String,
    pub what: String,
    pub recorded: String,
    pub found: String,
}

fn rows(path: &Path) -> Result<usize> {
    let f = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let r = SerializedFileReader::new(f)?;
    Ok(r.metadata().file_metadata().num_rows() as usize)
}

/// Drift between the manifest and the files. `inputs` are the snapshot and runs
/// directories and the traces paths, when the caller has them.
pub fn verify(dataset: &Path, inputs: Option<(&Path, &Path, &[std::path::PathBuf])>) -> Result<Vec<Drift>> {
    let m = Manifest::load(dataset)?;
    let mut out = Vec::new();
    let mut push = |file: &str, what: &str, recorded: String, found: String| {
        if recorded != found {
            out.push(Drift { file: file.to_string(), what: what.to_string(), recorded, found });
        }
    };
    for (name, t) in &m.tables {
        let file = format!("{name}.parquet");
        let p = dataset.join(&file);
        match std::fs::read(&p) {
            Err(_) => push(&file, "exists", "yes".into(), "no".into()),
            Ok(bytes) => {
                push(&file, "size", t.bytes.to_string(), bytes.len().to_string());
                push(&file, "sha256", t.sha256.clone(), crate::json::sha256_hex(&bytes));
                let n = rows(&p).map(|n| n.to_string()).unwrap_or_else(|e| format!("unreadable: {e}"));
                push(&file, "rows", t.rows.to_string(), n);
            }
        }
    }
    for (name, t) in &m.files {
        match std::fs::read(dataset.join(name)) {
            Err(_) => push(name, "exists", "yes".into(), "no".into()),
            Ok(bytes) => {
                push(name, "size", t.bytes.to_string(), bytes.len().to_string());
                push(name, "sha256", t.sha256.clone(), crate::json::sha256_hex(&bytes));
            }
        }
    }
    // Tables on disk that the manifest does not know.
    if let Ok(rd) = std::fs::read_dir(dataset) {
        let mut extra: Vec<String> = rd
            .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().to_string()))
            .filter(|n| n.ends_with(".parquet") && !m.tables.contains_key(n.trim_end_matches(".parquet")))
            .collect();
        extra.sort();
        for n in extra {
            push(&n, "recorded in manifest", "yes".into(), "no".into());
        }
    }
    if let Some((snapshot, runs, traces)) = inputs {
        for f in &m.inputs {
            let path = match f.input.as_str() {
                "snapshot" => snapshot.join(&f.path),
                "runs" => runs.join(&f.path),
                // Trace paths are relative to the directory given, or a file's own name.
                _ => traces
                    .iter()
                    .map(|t| if t.is_dir() { t.join(&f.path) } else { t.clone() })
                    .find(|p| p.is_file() && p.ends_with(&f.path))
                    .unwrap_or_else(|| Path::new(&f.path).to_path_buf()),
            };
            let label = format!("{}/{}", f.input, f.path);
            match std::fs::read(path) {
                Err(_) => push(&label, "exists", "yes".into(), "no".into()),
                Ok(bytes) => {
                    push(&label, "size", f.size.to_string(), bytes.len().to_string());
                    push(&label, "sha256", f.sha256.clone(), crate::json::sha256_hex(&bytes));
                }
            }
        }
    }
    Ok(out)
}
