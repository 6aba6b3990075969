//! `manifest.json`: what went into a dataset and what came out, so a study can be re-run
//! and checked years later.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{Error, Result};
use crate::inputs::InputFile;

/// The format this hindsight writes: [`FORMAT_PREFIX`] and [`FORMAT_VERSION`].
pub const FORMAT: &str = "hindsight-dataset/2";
pub const FORMAT_PREFIX: &str = "hindsight-dataset/";
/// Raised when a table or column is added, removed or changes meaning; every reader checks
/// it (an older dataset is read for what it has, a newer or unknown one refused).
pub const FORMAT_VERSION: u32 = 2;

/// What each format version brought, oldest first.
#[cfg(test)]
pub(crate) const VERSIONS: &[(u32, &str)] = &[
    (1, "the first format: snapshot, runs, traces and tasks tables, outcomes, CI gate replay, PR risk"),
    (
        2,
        "safe_outputs gains target_node_id, patch_hash, base_ref, head_ref; ci_gate is the autoloop replay (iteration, branch, program, other_commits, loop_check, ...) with ci_gate_loop_state new and ci_gate_steps gaining author and pusher; pr_risk gains task_id (task PRs); pr_feedback gains state, first_review_at, hours_to_first_review, hours_to_pr; tasks gain submitted_at, hours_to_pr, user_id and token counts",
    ),
];

#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct RecordCount {
    pub input: usize,
    pub used: usize,
    pub quarantined: usize,
    /// Captures of a (path, page) captured again later: kept in `responses`, marked
    /// `superseded_by`, not used. input = used + quarantined + superseded.
    #[serde(default)]
    pub superseded: usize,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct TableEntry {
    pub rows: usize,
    pub bytes: u64,
    pub sha256: String,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Manifest {
    pub(crate) format: String,
    pub tool: BTreeMap<String, String>,
    pub captured_at: String,
    pub inputs: Vec<InputFileEntry>,
    /// Files under the input directories that no reader reads (a README, a log, a file
    /// of an unknown name), with the reason: every file is in `inputs` or here.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<crate::inputs::Skipped>,
    /// The PR risk thresholds and patterns in force ([SPEC-TASKS-TIER3]; `evaluate::risk`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub risk_policy: Option<Value>,
    /// The code-quality thresholds and repository rules in force (`evaluate::quality`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quality_policy: Option<Value>,
    /// Run directories where no file with safe outputs was found, with what they hold.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub empty_runs: Vec<crate::runs::EmptyRun>,
    /// Tables of an imported layout that were not there (`import aidev`: `Devin/pr_comments.csv`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub absent: Vec<String>,
    /// The published release an import read (`import aidev`: which AIDev release, its
    /// revision, and how the release was told).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_release: Option<Value>,
    /// Why `captured_at` is what it is, when the input did not record it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub captured_at_basis: Option<String>,
    /// Per input (`snapshot`, `runs`): records read = used + quarantined.
    pub records: BTreeMap<String, RecordCount>,
    pub tables: BTreeMap<String, TableEntry>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy: Option<Value>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub windows: Vec<String>,
    /// The failure-categorization policy the `task_failures` table was made with (see
    /// `docs/TASKS.md`), when the study had tasks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_policy: Option<Value>,
    /// Outputs other than tables (the enriched traces), by file name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub files: BTreeMap<String, TableEntry>,
    /// The window the trace outcome blocks were taken from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attach_window: Option<String>,
    /// The capture plan for the outputs against the snapshot's captures, counted by evaluate
    /// as it judges (the dashboard's warning reads it). Absent for an AIDev import (its
    /// captures are rebuilt from its tables) and for a dataset evaluated before it was kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capture_coverage: Option<CaptureCoverage>,
    /// Where the tables and files are, relative to the manifest (`versions/ID`), for a
    /// dataset in an object store (`run --out s3://...`): each version's objects under a
    /// prefix of their own and the manifest written last, so a reader sees one version or
    /// the other, never a mix. Absent: beside the manifest, as in every folder on disk.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tables_under: Option<String>,
}

/// How much of the capture plan the snapshot holds: the paths `hindsight capture --plan
/// --snapshot` lists (REST and GraphQL), those with an answer (2xx, or gone: 404/410), and
/// the missing ones by kind (`issues/N/timeline`, see [`crate::snapshot::plan::kind`]), most
/// first, then by kind.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct CaptureCoverage {
    pub planned: u64,
    pub present: u64,
    /// `[kind, missing]` pairs.
    pub missing_by_kind: Vec<(String, u64)>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct InputFileEntry {
    pub input: String,
    pub path: String,
    pub size: u64,
    pub sha256: String,
    pub records: usize,
}

impl From<&InputFile> for InputFileEntry {
    fn from(f: &InputFile) -> Self {
        InputFileEntry { input: f.input.clone(), path: f.path.clone(), size: f.size, sha256: f.sha256.clone(), records: f.records }
    }
}

/// `N` of `hindsight-dataset/N` (N >= 1).
fn version_of(format: &str) -> Option<u32> {
    let v = format.strip_prefix(FORMAT_PREFIX)?;
    if v.is_empty() || !v.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    v.parse().ok().filter(|v| *v >= 1)
}

/// A table's name as hindsight writes them: `outcomes`, `aidev_pull_requests`.
fn is_table_name(n: &str) -> bool {
    !n.is_empty() && n.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// A folder inside the dataset: plain names (letters, digits, `.`, `_`, `-`) between
/// single `/`s. An object store's prefix is held to the same (`s3://bucket/PREFIX`).
pub fn is_relative_folder(n: &str) -> bool {
    n.split('/').all(|part| is_file_name(part) && part.bytes().all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b)))
}

/// A file name directly inside the dataset.
fn is_file_name(n: &str) -> bool {
    !n.is_empty() && n != "." && n != ".." && !n.contains(['/', '\\', '\0'])
}

impl Manifest {
    pub fn new(captured_at: String) -> Manifest {
        let mut tool = BTreeMap::new();
        tool.insert("name".into(), "hindsight".into());
        tool.insert("version".into(), env!("CARGO_PKG_VERSION").into());
        Manifest { format: FORMAT.into(), tool, captured_at, ..Manifest::default() }
    }

    /// The format version the manifest declares (checked by [`Manifest::load`]).
    pub fn format_version(&self) -> u32 {
        version_of(&self.format).unwrap_or(0)
    }

    /// The manifest of a dataset in this hindsight's own format, for a command that writes
    /// into it (`evaluate`, `attach`, `gate --dataset`): an older dataset is refused with
    /// the command that brings it up to date.
    pub fn load_current(dataset: &Path, command: &str) -> Result<Manifest> {
        let m = Manifest::load(dataset)?;
        if m.format_version() < FORMAT_VERSION {
            return Err(Error::Dataset {
                path: dataset.join("manifest.json"),
                message: format!(
                    "written by an older hindsight (format {}, this one writes {FORMAT}): `{command}` would mix the two. Re-run `hindsight run` (or `convert`) on its inputs with this hindsight first; `report`, `sql` and `verify` read it as it is",
                    m.format
                ),
            });
        }
        Ok(m)
    }

    pub fn load(dataset: &Path) -> Result<Manifest> {
        let p = dataset.join("manifest.json");
        // Said in the reader's terms before the OS's: a mistyped path, or a folder that is
        // not a dataset.
        if !dataset.is_dir() {
            let what = if dataset.exists() { "not a directory" } else { "no such directory" };
            return Err(Error::Dataset { path: dataset.to_path_buf(), message: format!("{what}: a dataset is the directory `hindsight run`, `convert` or `import` wrote") });
        }
        if !p.is_file() {
            return Err(Error::Dataset { path: dataset.to_path_buf(), message: "no manifest.json: is this a hindsight dataset? (run `hindsight convert` first)".into() });
        }
        let text = std::fs::read_to_string(&p).map_err(|e| Error::io(&p, e))?;
        let m = Manifest::parse(&text, &p)?;
        // Every reader on disk opens `DATASET/<table>.parquet`.
        if let Some(under) = &m.tables_under {
            return Err(Error::Dataset {
                path: p,
                message: format!(
                    "its tables are under `{under}/`: a copy of a dataset written to an object store. Read it there (`--dataset s3://...`), or move the files of `{under}/` beside manifest.json and remove `tables_under` from it"
                ),
            });
        }
        Ok(m)
    }

    /// A manifest's text, read from wherever the dataset is (a folder here, an object
    /// store), checked as [`Manifest::load`] checks it; `p` names it in errors.
    pub fn parse(text: &str, p: &Path) -> Result<Manifest> {
        let p = p.to_path_buf();
        let m: Manifest =
            serde_json::from_str(text).map_err(|e| Error::Input { path: p.clone(), line: e.line(), message: format!("not a hindsight manifest: {e}") })?;
        match version_of(&m.format) {
            None => {
                return Err(Error::Dataset {
                    path: p,
                    message: format!(
                        "format `{}` is not one hindsight knows (this hindsight {} reads {FORMAT_PREFIX}1 to {FORMAT_VERSION})",
                        crate::text::printable(&m.format),
                        env!("CARGO_PKG_VERSION")
                    ),
                })
            }
            Some(v) if v > FORMAT_VERSION => {
                let by = m.tool.get("version").map_or_else(|| "a newer hindsight".to_string(), |v| format!("hindsight {}", crate::text::printable(v)));
                return Err(Error::Dataset {
                    path: p,
                    message: format!(
                        "written by {by} in format {}, newer than this hindsight {} reads ({FORMAT_PREFIX}1 to {FORMAT_VERSION}): read it with that hindsight or a newer one",
                        crate::text::printable(&m.format),
                        env!("CARGO_PKG_VERSION")
                    ),
                });
            }
            Some(_) => {}
        }
        // Every reader opens `DATASET/<table>.parquet` and `DATASET/<file>`: a name with a
        // path in it would read (or, for a writer, replace) a file outside the dataset.
        let bad = m.tables.keys().map(|n| ("table", n, is_table_name(n))).chain(m.files.keys().map(|n| ("file", n, is_file_name(n)))).find(|(_, _, ok)| !ok);
        if let Some((what, name, _)) = bad {
            return Err(Error::Dataset {
                path: p,
                message: format!(
                    "names the {what} `{}`, which is not a plain name inside the dataset (tables are letters, digits and `_`; files have no `/` and are not `.` or `..`); refusing to read outside the dataset",
                    crate::text::printable(name)
                ),
            });
        }
        if let Some(under) = m.tables_under.as_deref().filter(|u| !is_relative_folder(u)) {
            return Err(Error::Dataset {
                path: p,
                message: format!("puts its tables under `{}`, not a folder inside the dataset; refusing to read outside it", crate::text::printable(under)),
            });
        }
        Ok(m)
    }

    pub fn save(&self, dataset: &Path) -> Result<()> {
        let mut text = serde_json::to_string_pretty(self)?;
        text.push('\n');
        super::write_text(&dataset.join("manifest.json"), &text)
    }

    pub fn record_table(&mut self, name: &str, w: &super::Written) {
        self.tables.insert(name.to_string(), TableEntry { rows: w.rows, bytes: w.bytes, sha256: w.sha256.clone() });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_format_string_is_the_prefix_and_the_newest_version() {
        assert_eq!(FORMAT, format!("{FORMAT_PREFIX}{FORMAT_VERSION}"));
        assert_eq!(VERSIONS.last().map(|v| v.0), Some(FORMAT_VERSION));
        assert_eq!(version_of("hindsight-dataset/12"), Some(12));
        for bad in ["hindsight-dataset/0", "hindsight-dataset/", "hindsight-dataset/+1", "hindsight-dataset/1.0", "other/1", ""] {
            assert_eq!(version_of(bad), None, "{bad}");
        }
    }
}
