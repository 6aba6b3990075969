//! What the snapshot says about a task beyond its own records, for failure categorization:
//! the CI of its head commit, its PR's description and changed files (`pulls/N`,
//! `pulls/N/files` with their patches), and the files at the top of its repository
//! (`repos/O/R/contents`, where a linter's or type checker's configuration lives). Read once
//! at convert from the `responses` just written, only the paths the tasks name.
//!
//! A capture that is missing is `None`, never an empty list: a rule that needs it cannot
//! fire, rather than fire on nothing.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use serde_json::Value;

use super::categorize::CiStates;
use super::Task;
use crate::error::Result;

/// A changed file of a PR, as `pulls/N/files` lists it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PrFile {
    pub(crate) filename: String,
    /// `added`, `removed`, `modified`, `renamed`...
    pub(crate) status: String,
    /// The unified diff GitHub gives (absent for binary or very large files).
    pub(crate) patch: Option<String>,
}

/// A task PR as captured.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PrEvidence {
    /// Its description (`pulls/N`'s `body`; an empty description is `Some("")`); `None`
    /// when the PR was not captured.
    pub(crate) body: Option<String>,
    /// Its changed files; `None` when `pulls/N/files` was not captured.
    pub(crate) files: Option<Vec<PrFile>>,
}

/// Everything categorization reads from the snapshot.
#[derive(Clone, Debug, Default)]
pub struct Evidence {
    pub ci: CiStates,
    pub(crate) prs: HashMap<(String, i64), PrEvidence>,
    /// Repository -> the names at its top level, when captured.
    pub(crate) roots: HashMap<String, Vec<String>>,
}

impl From<CiStates> for Evidence {
    fn from(ci: CiStates) -> Self {
        Evidence { ci, ..Evidence::default() }
    }
}

impl Evidence {
    /// The task's PR, when it names one: its description and files as captured (each
    /// `None` when not captured).
    pub(crate) fn pr(&self, task: &Task) -> Option<&PrEvidence> {
        self.prs.get(&task.pull_request()?)
    }

    /// The names at the top of the task's repository (the PR's, else `repo`), when captured.
    pub(crate) fn root(&self, task: &Task) -> Option<(&str, &[String])> {
        let repo = task_repo(task)?;
        self.roots.get_key_value(&repo).map(|(r, names)| (r.as_str(), names.as_slice()))
    }
}

/// The repository a task works in: its PR's, else its `repo`.
fn task_repo(task: &Task) -> Option<String> {
    task.pull_request().map(|(r, _)| r).or_else(|| task.repo.clone())
}

/// The snapshot paths `tasks` need.
fn wanted(tasks: &[Task]) -> HashSet<String> {
    let mut out = HashSet::new();
    for t in tasks {
        if let Some((repo, n)) = t.pull_request() {
            out.insert(format!("repos/{repo}/pulls/{n}"));
            out.insert(format!("repos/{repo}/pulls/{n}/files"));
        }
        if let Some(repo) = task_repo(t) {
            out.insert(format!("repos/{repo}/contents"));
        }
    }
    out
}

/// The bytes of bodies held at once while `responses` is read.
const READ_BUDGET: usize = 64 << 20;

/// The evidence of `tasks` from the dataset's `responses` (and `ci`, already read).
pub fn read(dataset: &Path, tasks: &[Task], ci: CiStates) -> Result<Evidence> {
    let want = wanted(tasks);
    let mut found: Vec<crate::dataset::read::ResponseRow> = Vec::new();
    if !want.is_empty() && dataset.join("responses.parquet").is_file() {
        crate::dataset::read::response_groups(dataset, READ_BUDGET, |groups| {
            found.extend(groups.into_iter().flat_map(|g| g.rows).filter(|r| want.contains(&r.0)));
            Ok(())
        })?;
    }
    Ok(gather(tasks, ci, &crate::snapshot::SnapshotIndex::build(found)))
}

/// The evidence of `tasks` from bodies given by snapshot path (`repos/O/R/pulls/N/files`...),
/// as a capture holds them: for checking rules on captures without a dataset.
pub fn from_bodies(tasks: &[Task], ci: CiStates, bodies: impl IntoIterator<Item = (String, String)>) -> Evidence {
    let rows: Vec<crate::snapshot::CaptureRow<String>> = bodies.into_iter().map(|(path, body)| (path, 1, 200, None, body)).collect();
    gather(tasks, ci, &crate::snapshot::SnapshotIndex::build(rows))
}

/// What `index` holds of the paths `tasks` need.
fn gather(tasks: &[Task], ci: CiStates, index: &crate::snapshot::SnapshotIndex) -> Evidence {
    let captured = |path: &str| index.get(path).filter(|e| e.ok()).map(|e| e.body());
    let mut evidence = Evidence::from(ci);
    for t in tasks {
        if let Some((repo, n)) = t.pull_request() {
            let body = captured(&format!("repos/{repo}/pulls/{n}")).map(|b| b.get("body").and_then(Value::as_str).unwrap_or("").to_string());
            let files = captured(&format!("repos/{repo}/pulls/{n}/files")).and_then(Value::as_array).map(|a| a.iter().map(pr_file).collect());
            evidence.prs.insert((repo, n), PrEvidence { body, files });
        }
        if let Some(repo) = task_repo(t) {
            if let Some(list) = captured(&format!("repos/{repo}/contents")).and_then(Value::as_array) {
                let names = list.iter().filter_map(|e| e.get("name").and_then(Value::as_str)).map(str::to_string).collect();
                evidence.roots.insert(repo, names);
            }
        }
    }
    evidence
}

fn pr_file(f: &Value) -> PrFile {
    let s = |k: &str| f.get(k).and_then(Value::as_str).map(str::to_string);
    PrFile { filename: s("filename").unwrap_or_default(), status: s("status").unwrap_or_default(), patch: s("patch") }
}
