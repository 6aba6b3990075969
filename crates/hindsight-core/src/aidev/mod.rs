//! `hindsight import aidev`: the AIDev dataset of agent pull requests (Li, Zhang and
//! Hassan, "The Rise of AI Teammates in Software Engineering (SE) 3.0", arXiv 2507.15003).
//!
//! The layout is one folder per agent (`Claude_Code`, `Copilot`, `Cursor`, `Devin`,
//! `OpenAI_Codex`) plus `Human`, the baseline, each holding some of the CSV tables in
//! [`SOURCES`]. Every table found becomes an `aidev_*` table of the dataset, typed, one row
//! per CSV record, with the folder it came from (`agent`) and the line it starts on
//! (`source_line`). A CSV record that cannot be typed as written (a wrong field count, an
//! unclosed quote, invalid UTF-8, an integer written with `+` or white space or below 0, a time
//! that is not RFC 3339 or has a second of 60, a repository that is not OWNER/NAME, a PR
//! page of another PR) goes to the quarantine with its file, line, field and raw text; so
//! does every record of a file whose header cannot say which field is which (empty, a
//! column missing or named twice), and every `prs.csv` row of a PR identity (id, or
//! repository and number) that rows of different content or folders claim, each naming
//! them all. A table the layout lacks is reported and recorded in the manifest (`absent`);
//! as the runs and snapshot readers do, a link to a folder is never followed and a link to
//! a file only within the input, and what is not read is reported; the import goes on.
//!
//! Each agent PR also becomes what hindsight evaluates everywhere else (see [`study`]): a
//! `create_pull_request` safe output of the workflow named after the agent, and the
//! captures a snapshot would hold of it (the PR, its reviews, comments, commits and
//! timeline), so `evaluate` and the dashboard apply unchanged.

mod index;
mod items;
mod outputs;
mod parquet;
mod stream;
pub use outputs::Outputs;
pub mod release;
pub mod study;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::inputs::InputFile;
use crate::quarantine::Quarantined;
use crate::table::{Cell, Kind, Table};

/// The agents of the v1 layout (its folders), in the order they are read.
pub(crate) const AGENTS: &[&str] = &["Claude_Code", "Copilot", "Cursor", "Devin", "OpenAI_Codex"];
/// Every agent of any release, as its `agent` column spells it: v4 and v5 add Google Jules.
pub(crate) const ALL_AGENTS: &[&str] = &["Claude_Code", "Copilot", "Cursor", "Devin", "Google_Jules", "OpenAI_Codex"];
/// The human baseline group.
pub(crate) const BASELINE: &str = "Human";
/// The name of this input in the manifest and the quarantine.
pub const INPUT: &str = "aidev";

/// One table of the layout and the dataset table it becomes.
#[derive(Debug)]
pub struct Source {
    /// The v1 CSV file; for a table only the Parquet releases have, the Parquet table's name.
    pub file: &'static str,
    pub table: &'static str,
    /// Columns a v1 header must hold, with their type. Empty fields are null.
    pub(crate) columns: &'static [(&'static str, Kind)],
    /// Columns only the Parquet releases carry (v3 on): null in a v1 import.
    pub(crate) later: &'static [(&'static str, Kind)],
    /// Whether the v1 CSV layout has this table.
    pub(crate) in_v1: bool,
}

/// The defaults of a [`SOURCES`] entry: a v1 table with no later columns.
const V1: Source = Source { file: "", table: "", columns: &[], later: &[], in_v1: true };

use Kind::{Int as I, Str as S, Time as T};

pub(crate) const PRS: &str = "prs.csv";
pub(crate) const REVIEW_COMMENTS: &str = "pr_review_comments";

/// The table of AIDev's PRs: a dataset holding it is an AIDev import (the dashboard's and
/// `import`'s test alike).
pub const PR_TABLE: &str = "aidev_pull_requests";

pub const SOURCES: &[Source] = &[
    Source {
        file: PRS,
        table: PR_TABLE,
        columns: &[
            ("id", I),
            ("number", I),
            ("title", S),
            ("user", S),
            ("user_id", I),
            ("state", S),
            ("created_at", T),
            ("closed_at", T),
            ("merged_at", T),
            ("repo_url", S),
            ("html_url", S),
            ("body", S),
        ],
        later: &[("repo_id", I)],
        ..V1
    },
    Source {
        file: "pr_reviews.csv",
        table: "aidev_reviews",
        columns: &[("pr_id", I), ("id", I), ("user", S), ("state", S), ("submitted_at", T), ("body", S)],
        later: &[("user_type", S), ("pull_request_review_id", I)],
        ..V1
    },
    Source {
        file: "pr_comments.csv",
        table: "aidev_comments",
        columns: &[("pr_id", I), ("id", I), ("user", S), ("created_at", T), ("body", S)],
        later: &[("user_id", I), ("user_type", S)],
        ..V1
    },
    Source { file: "pr_commits.csv", table: "aidev_commits", columns: &[("pr_id", I), ("sha", S), ("author", S), ("committer", S), ("message", S)], ..V1 },
    Source {
        file: "pr_timelines.csv",
        table: "aidev_pr_timeline",
        columns: &[("pr_id", I), ("event", S), ("created_at", T), ("actor", S), ("commit_id", S), ("assignee", S), ("label", S), ("message", S)], ..V1 },
    Source {
        file: "issues.csv",
        table: "aidev_issues",
        columns: &[
            ("id", I),
            ("number", I),
            ("title", S),
            ("user", S),
            ("user_id", I),
            ("state", S),
            ("created_at", T),
            ("closed_at", T),
            ("repo_url", S),
            ("html_url", S),
            ("body", S),
        ], ..V1 },
    Source {
        file: "issue_timelines.csv",
        table: "aidev_issue_timeline",
        columns: &[("issue_id", S), ("event", S), ("created_at", T), ("actor", S), ("commit_id", S), ("assignee", S), ("label", S), ("message", S)], ..V1 },
    Source {
        file: "related_issues.csv",
        table: "aidev_related_issues",
        columns: &[("agent", S), ("pr_id", I), ("pr_number", I), ("repo_url", S), ("pr_url", S), ("issue_url", S), ("issue_number", I), ("source", S)],
        later: &[("issue_id", I)],
        ..V1
    },
    Source {
        file: "post_pr_issues.csv",
        table: "aidev_post_pr_issues",
        columns: &[("agent", S), ("pr_id", I), ("pr_number", I), ("repo_url", S), ("pr_url", S), ("issue_url", S), ("issue_number", I), ("created_at", T)], ..V1 },
    Source {
        file: "prs_without_issues.csv",
        table: "aidev_prs_without_issues",
        columns: &[("agent", S), ("pr_id", I), ("pr_number", I), ("repo_url", S), ("pr_url", S)], ..V1 },
    Source {
        file: "repo_metadata.csv",
        table: "aidev_repositories",
        columns: &[("url", S), ("id", I), ("full_name", S), ("language", S), ("forks", I), ("stars", I), ("open_issues", I)],
        later: &[("license", S), ("is_forked", Kind::Bool)],
        ..V1
    },
    Source {
        file: "developer_metadata.csv",
        table: "aidev_developers",
        columns: &[
            ("login", S),
            ("id", I),
            ("name", S),
            ("company", S),
            ("location", S),
            ("email", S),
            ("followers", I),
            ("following", I),
            ("public_repos", I),
            ("created_at", T),
        ], ..V1 },
    Source {
        file: "gpt_conventional_commits.csv",
        table: "aidev_task_types",
        columns: &[("agent", S), ("id", I), ("title", S), ("reason", S), ("type", S)],
        later: &[("confidence", Kind::Float)],
        ..V1
    },
    // Inline review comments (on a diff line): v3 on. They name their PR by review and by
    // `pull_request_url`, not by `pr_id`; the reader finds the PR's id from those.
    Source {
        file: REVIEW_COMMENTS,
        table: "aidev_review_comments",
        columns: &[],
        later: &[
            ("pr_id", I),
            ("id", I),
            ("pull_request_review_id", I),
            ("user", S),
            ("user_type", S),
            ("path", S),
            ("commit_id", S),
            ("body", S),
            ("pull_request_url", S),
            ("created_at", T),
            ("in_reply_to_id", I),
        ],
        in_v1: false,
    },
];

/// The v1 CSV table named `file`.
pub(crate) fn source(file: &str) -> Option<&'static Source> {
    SOURCES.iter().find(|s| s.in_v1 && s.file == file)
}

impl Source {
    /// The dataset table's columns: the folder, the CSV's columns (a CSV column named
    /// `agent` is kept as `recorded_agent`), and the line the record starts on.
    pub(crate) fn schema(&self) -> Vec<(&'static str, Kind)> {
        let mut cols = vec![("agent", S)];
        cols.extend(self.all_columns().map(|&(n, k)| (if n == "agent" { "recorded_agent" } else { n }, k)));
        cols.push(("source_line", I));
        cols
    }

    /// The v1 columns, then the later releases' columns: a row's cells in this order.
    pub(crate) fn all_columns(&self) -> impl Iterator<Item = &'static (&'static str, Kind)> + Clone {
        self.columns.iter().chain(self.later)
    }

    /// The position of column `name` in a row of [`Records::rows`].
    pub(crate) fn col(&self, name: &str) -> usize {
        // Columns are fixed in code; a wrong name is a programming error the tests catch.
        self.all_columns().position(|(n, _)| *n == name).unwrap_or_else(|| panic!("{} has no column `{name}`", self.file))
    }

}

/// A null cell of `kind`.
pub(crate) fn null(kind: Kind) -> Cell {
    match kind {
        Kind::Str => Cell::Str(None),
        Kind::Int => Cell::Int(None),
        Kind::Float => Cell::Float(None),
        Kind::Bool => Cell::Bool(None),
        Kind::Time => Cell::Time(None),
    }
}

/// The typed records of one table for one agent: a v1 CSV file, or an agent's rows of a
/// Parquet table.
#[derive(Debug)]
pub struct Records {
    /// The agent (or `Human`); empty for a Parquet table shared by all (repositories, users).
    pub agent: &'static str,
    pub source: &'static Source,
    /// Where the rows came from: `Claude_Code/prs.csv`, or `pull_request.parquet` (a table
    /// of shards: its folder, `pull_request/`).
    pub origin: String,
    /// What [`Records::lines`] counts: a CSV file's lines, or a Parquet table's rows.
    pub(crate) unit: &'static str,
    /// One row per usable record, in [`Source::columns`] order.
    pub rows: Vec<Vec<Cell>>,
    /// The 1-based line each row starts on.
    pub(crate) lines: Vec<usize>,
    /// Header columns the layout does not define (kept in the file, not imported).
    pub extra_columns: Vec<String>,
    /// The byte range of each row's record in `bytes`, for quarantining a row after
    /// reading (a PR identity collision).
    spans: Vec<std::ops::Range<usize>>,
    /// The file's bytes, kept for `prs.csv` until its PR identities are checked.
    bytes: Vec<u8>,
}

impl Records {
    fn empty(agent: &'static str, source: &'static Source) -> Records {
        Records::new(agent, source, format!("{agent}/{}", source.file), "line")
    }

    pub(crate) fn new(agent: &'static str, source: &'static Source, origin: String, unit: &'static str) -> Records {
        Records { agent, source, origin, unit, rows: Vec::new(), lines: Vec::new(), extra_columns: Vec::new(), spans: Vec::new(), bytes: Vec::new() }
    }

    /// Row `r` as the quarantine and the reports name it: `Copilot/prs.csv line 4`.
    pub(crate) fn place(&self, r: usize) -> String {
        format!("{} {} {}", self.origin, self.unit, self.lines[r])
    }

    /// Row `r`'s raw text: the CSV record as written, or the typed Parquet row as JSON.
    fn raw(&self, r: usize) -> String {
        if let Some(b) = self.spans.get(r).and_then(|s| self.bytes.get(s.clone())) {
            return raw_text(b);
        }
        let mut m = serde_json::Map::new();
        for ((name, _), cell) in self.source.all_columns().zip(&self.rows[r]) {
            m.insert((*name).to_string(), parquet::cell_json(cell));
        }
        serde_json::Value::Object(m).to_string()
    }
}

/// Everything read from an AIDev directory.
#[derive(Debug, Default)]
pub struct Read {
    pub tables: Vec<Records>,
    pub files: Vec<InputFile>,
    pub quarantined: Vec<Quarantined>,
    /// Tables of the layout no folder has, as `Agent/file.csv`.
    pub absent: Vec<String>,
    /// Files and folders that are not part of the layout.
    pub skipped: Vec<crate::inputs::Skipped>,
    /// Records read = used + quarantined.
    pub records: usize,
    pub used: usize,
    /// Which release this is, and how that was told.
    pub release: release::Recognised,
    /// The files each dataset table was read from (`aidev_reviews` -> `Copilot/pr_reviews.csv`,
    /// ...): a table with none is not in this copy of the release.
    pub read_from: BTreeMap<&'static str, Vec<String>>,
    /// Rows used per dataset table, and per file or table read (a Parquet release's rows
    /// are counted as they stream past, never held).
    pub(crate) rows_by_table: BTreeMap<&'static str, usize>,
    pub(crate) used_by_origin: BTreeMap<String, usize>,
}

impl Read {
    /// The records of `file` in `agent`'s folder, if that table was present.
    pub fn of(&self, agent: &str, file: &str) -> Option<&Records> {
        self.tables.iter().find(|r| r.agent == agent && r.source.file == file)
    }
}

fn agent_name(name: &str) -> Option<&'static str> {
    AGENTS.iter().chain(std::iter::once(&BASELINE)).find(|a| **a == name).copied()
}

/// The release under `dir`, checked and recognised: the folder as resolved, and what it is.
fn open(dir: &Path, options: &release::Options) -> Result<(std::path::PathBuf, release::Recognised)> {
    if !dir.is_dir() {
        let what = if dir.exists() { "is not a directory" } else { "does not exist" };
        return Err(Error::Layout {
            path: dir.to_path_buf(),
            message: format!("{what}: expected an AIDev folder (v1: Claude_Code/, Copilot/, ..., Human/ of CSV tables; v3-v5: the Parquet tables of a Hugging Face snapshot)"),
        });
    }
    // Resolved once: a link or `..` in the path given is the user's choice; below it, every
    // folder and file is judged against this root, as the runs and snapshot readers do.
    let dir = std::fs::canonicalize(dir).map_err(|e| Error::io(dir, e))?;
    let recognised = release::recognise(&dir, options)?;
    Ok((dir, recognised))
}

/// Read every table of a v1 CSV layout (one folder per agent) under `dir` into memory.
/// A Parquet release is refused here: it is imported as it streams ([`import`]).
pub fn read(dir: &Path, options: &release::Options) -> Result<Read> {
    let (dir, recognised) = open(dir, options)?;
    if recognised.release != release::Release::V1 {
        return Err(Error::Layout { path: dir, message: format!("AIDev {} is imported as it is read (`import`), not read whole", recognised.release.name()) });
    }
    let mut out = read_v1(&dir)?;
    out.release = recognised;
    Ok(out)
}

/// What an import read and wrote.
pub struct Imported {
    pub read: Read,
    pub study: study::Study,
    /// The `aidev_*` tables written.
    pub written: Vec<(&'static str, crate::dataset::Written)>,
}

/// Import the release under `dir` into the dataset folder `dataset`: its `aidev_*` tables
/// written there, each agent PR's safe output to `outputs` and its captures to `captures`.
/// v1's CSV tables are read whole (AIDev-pop v1 is 33k rows); the Parquet releases stream.
pub fn import(
    dir: &Path,
    options: &release::Options,
    dataset: &Path,
    captured_at: Option<crate::time::Instant>,
    captures: &mut crate::snapshot::spill::Runs,
    outputs: &mut dyn study::OutputSink,
) -> Result<Imported> {
    let (dir, recognised) = open(dir, options)?;
    if recognised.release != release::Release::V1 {
        let (mut read, study, written) = stream::import(&dir, &recognised, dataset, captured_at, captures, outputs)?;
        read.release = recognised;
        return Ok(Imported { read, study, written });
    }
    let mut read = read_v1(&dir)?;
    read.release = recognised;
    let study = study::build(&read, captured_at, captures, outputs)?;
    let written = SOURCES.iter().map(|s| Ok((s.table, write_source(dataset, &read, s)?))).collect::<Result<Vec<_>>>()?;
    read.release_rows();
    Ok(Imported { read, study, written })
}

/// Read the v1 CSV layout: one folder per agent.
fn read_v1(dir: &Path) -> Result<Read> {
    let mut out = Read::default();
    let mut jobs: Vec<(&'static str, &'static Source)> = Vec::new();
    let mut found_any = false;
    let mut refused = Vec::new();
    for agent in AGENTS.iter().chain(std::iter::once(&BASELINE)) {
        let folder = dir.join(agent);
        // Not followed: an agent folder that is a link (or not a folder) is refused here
        // and reported by `unknown_entries` with the reason, never read.
        match std::fs::symlink_metadata(&folder) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                out.absent.push(format!("{agent}/"));
                continue;
            }
            Err(e) => return Err(Error::io(&folder, e)),
            Ok(m) if !m.is_dir() => {
                refused.push(*agent);
                continue;
            }
            Ok(_) => {}
        }
        found_any = true;
        for s in SOURCES.iter().filter(|s| s.in_v1) {
            // A link that leads nowhere is present (and refused by `read_csv`), not absent.
            if std::fs::symlink_metadata(folder.join(s.file)).is_ok() {
                out.read_from.entry(s.table).or_default().push(format!("{agent}/{}", s.file));
                jobs.push((agent, s));
            } else {
                out.absent.push(format!("{agent}/{}", s.file));
            }
        }
    }
    if !found_any {
        let names: Vec<&str> = AGENTS.iter().chain(std::iter::once(&BASELINE)).copied().collect();
        let mut message = format!("no agent folder found (expected some of {})", names.join(", "));
        if !refused.is_empty() {
            message.push_str(&format!("; not read, as they are not folders of the directory itself (links are not followed): {}", refused.join(", ")));
        }
        return Err(Error::Layout { path: dir.to_path_buf(), message });
    }
    out.skipped = unknown_entries(dir)?;
    let parsed: Vec<Result<(Records, InputFile, Vec<Quarantined>)>> = jobs.par_iter().map(|(agent, s)| read_csv(dir, agent, s)).collect();
    for p in parsed {
        let (records, file, quarantined) = p?;
        out.records += file.records;
        out.used += records.rows.len();
        out.quarantined.extend(quarantined);
        out.files.push(file);
        out.tables.push(records);
    }
    finish(&mut out);
    Ok(out)
}

/// What every release's reading ends with: PR identities checked across all tables, the
/// raw bytes let go, files and quarantine in order.
fn finish(out: &mut Read) {
    quarantine_pr_collisions(out);
    for t in &mut out.tables {
        t.bytes = Vec::new();
        *out.rows_by_table.entry(t.source.table).or_default() += t.rows.len();
        *out.used_by_origin.entry(t.origin.clone()).or_default() += t.rows.len();
    }
    finish_counts(out);
}

/// Files and quarantine in order, however they were read.
pub(crate) fn finish_counts(out: &mut Read) {
    out.files.sort_by(|a, b| a.path.cmp(&b.path));
    out.quarantined.sort();
}

/// Files and folders under `dir` that are not a table of the layout.
fn unknown_entries(dir: &Path) -> Result<Vec<crate::inputs::Skipped>> {
    let mut out = Vec::new();
    // `walk` does not descend links, so a linked folder is one entry here.
    for rel in crate::inputs::walk(dir)? {
        let (folder, file) = rel.split_once('/').unwrap_or(("", rel.as_str()));
        let known = agent_name(folder).is_some() && !file.contains('/') && source(file).is_some();
        if !known {
            let reason = if folder.is_empty() && agent_name(file).is_some() {
                not_a_folder(&dir.join(file), dir)
            } else if folder.is_empty() {
                "not an agent folder: AIDev keeps its tables in Claude_Code/, Copilot/, Cursor/, Devin/, OpenAI_Codex/ and Human/".to_string()
            } else if agent_name(folder).is_none() {
                format!("`{folder}` is not an agent of the layout")
            } else {
                let files: Vec<&str> = SOURCES.iter().map(|s| s.file).collect();
                format!("not a table of the layout ({})", files.join(", "))
            };
            out.push(crate::inputs::Skipped { input: INPUT.into(), path: rel, reason });
        }
    }
    Ok(out)
}

/// Why an entry named like an agent folder is not read: it is a link (followed nowhere, as
/// the snapshot and runs readers follow no link to a folder) or not a folder at all.
fn not_a_folder(p: &Path, root: &Path) -> String {
    let link = std::fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_symlink());
    if !link {
        let kind = std::fs::symlink_metadata(p).map(|m| crate::inputs::file_kind(&m.file_type())).unwrap_or("an entry that cannot be examined");
        return format!("an agent folder must be a directory; this is {kind}: not read");
    }
    match std::fs::canonicalize(p) {
        Err(e) => format!("a symbolic link that leads nowhere ({e}): not read"),
        Ok(t) if !t.starts_with(root) => format!("a symbolic link to {} outside the {INPUT} directory: not read", t.display()),
        Ok(t) => format!("a symbolic link to {}: links to folders are not followed (a folder is read at its own place only): not read", t.display()),
    }
}

/// PR identities that more than one `prs.csv` row claims, across every folder: an `id`
/// (GitHub's are global) on rows that differ or sit in different folders, and a repository
/// and number (what the PR's captures are named by) under different ids or folders. Every
/// row of such a group is quarantined, each naming them all: which row is the PR cannot be
/// told, and keeping one would judge a PR by another's record. An exact repeat of a row in
/// the same file is no collision (the study uses it once).
fn quarantine_pr_collisions(out: &mut Read) {
    let ids = PrIdentities::of(&out.tables);
    let reasons = collision_reasons(&out.tables, &ids);
    if reasons.is_empty() {
        return;
    }
    quarantine_rows(out, &ids.prs, reasons);
}

/// The identities the used `prs.csv` rows claim.
struct PrIdentities {
    /// (table, row, id) of every used prs.csv row with an id.
    prs: Vec<(usize, usize, i64)>,
    /// The rows (indexes into `prs`) of each id.
    by_id: HashMap<i64, Vec<usize>>,
    /// The rows of each repository (lowercase) and number.
    by_pr: HashMap<(String, i64), Vec<usize>>,
}

impl PrIdentities {
    /// Index every used `prs.csv` row with an id by its id and its repository and number.
    fn of(tables: &[Records]) -> PrIdentities {
        let mut ids = PrIdentities { prs: Vec::new(), by_id: HashMap::new(), by_pr: HashMap::new() };
        for (t, rec) in tables.iter().enumerate().filter(|(_, r)| r.source.file == PRS) {
            let (ci, cn) = (rec.source.col("id"), rec.source.col("number"));
            for (r, row) in rec.rows.iter().enumerate() {
                let Some(id) = int(&row[ci]) else { continue };
                let k = ids.prs.len();
                ids.prs.push((t, r, id));
                ids.by_id.entry(id).or_default().push(k);
                if let (Some(repo), Some(n)) = (study::pr_repo(rec.source, row), int(&row[cn])) {
                    // GitHub's repository names are case-insensitive.
                    ids.by_pr.entry((repo.to_ascii_lowercase(), n)).or_default().push(k);
                }
            }
        }
        ids
    }

    /// The rows of a group, named by folder, line and id (the first ten, then how many more).
    fn named(&self, tables: &[Records], group: &[usize]) -> String {
        let name = |k: usize| {
            let (t, r, id) = self.prs[k];
            format!("{} (id {id})", tables[t].place(r))
        };
        let mut all: Vec<String> = group.iter().take(10).map(|&k| name(k)).collect();
        if group.len() > 10 {
            all.push(format!("and {} more", group.len() - 10));
        }
        all.join(", ")
    }
}

/// Judge the claims: the reasons each colliding row (index into `prs`) is quarantined for,
/// with the field at fault.
fn collision_reasons(tables: &[Records], ids: &PrIdentities) -> HashMap<usize, (&'static str, Vec<String>)> {
    let prs = &ids.prs;
    let mut reasons: HashMap<usize, (&'static str, Vec<String>)> = HashMap::new();
    for (id, group) in &ids.by_id {
        let (t0, r0, _) = prs[group[0]];
        let differ = group.iter().any(|&k| tables[prs[k].0].rows[prs[k].1] != tables[t0].rows[r0]);
        let folders = group.iter().any(|&k| prs[k].0 != t0);
        if !(differ || folders) {
            continue;
        }
        let how = if differ { "rows that differ" } else { "identical rows in different folders" };
        let why = format!("PR id {id} is claimed by {} {how}: {}; none is used, since which of them is that PR cannot be told", group.len(), ids.named(tables, group));
        for &k in group {
            reasons.entry(k).or_insert(("id", Vec::new())).1.push(why.clone());
        }
    }
    for ((repo, n), group) in &ids.by_pr {
        let (t0, _, id0) = prs[group[0]];
        if group.iter().all(|&k| prs[k].0 == t0 && prs[k].2 == id0) {
            continue;
        }
        let why = format!(
            "PR {repo}#{n} is claimed by {} rows with different ids or folders: {}; none is used, so that no PR is judged by another's record",
            group.len(),
            ids.named(tables, group)
        );
        for &k in group {
            reasons.entry(k).or_insert(("number", Vec::new())).1.push(why.clone());
        }
    }
    reasons
}

/// Move the colliding rows out of their tables into quarantine, each with its reasons.
fn quarantine_rows(out: &mut Read, prs: &[(usize, usize, i64)], reasons: HashMap<usize, (&'static str, Vec<String>)>) {
    let mut drop: HashMap<usize, Vec<(usize, &'static str, String)>> = HashMap::new();
    for (k, (field, why)) in reasons {
        let (t, r, _) = prs[k];
        drop.entry(t).or_default().push((r, field, why.join("; ")));
    }
    for (t, mut rows) in drop {
        rows.sort_by_key(|r| r.0);
        let rec = &mut out.tables[t];
        let rel = rec.origin.clone();
        for (r, field, why) in &rows {
            out.quarantined.push(Quarantined::new(INPUT, &rel, Some(rec.lines[*r]), Some(field), why.clone(), &rec.raw(*r)));
        }
        let gone: HashSet<usize> = rows.iter().map(|r| r.0).collect();
        remove_at(&mut rec.rows, &gone);
        remove_at(&mut rec.lines, &gone);
        remove_at(&mut rec.spans, &gone);
        out.used -= gone.len();
    }
}

/// `v` without the items at the positions in `gone`.
fn remove_at<T>(v: &mut Vec<T>, gone: &HashSet<usize>) {
    let mut i = 0;
    v.retain(|_| {
        i += 1;
        !gone.contains(&(i - 1))
    });
}

/// Read one CSV file: a header naming at least the source's columns, then records
/// (RFC 4180: quoted fields may hold commas, quotes and line breaks).
fn read_csv(dir: &Path, agent: &'static str, s: &'static Source) -> Result<(Records, InputFile, Vec<Quarantined>)> {
    let rel = format!("{agent}/{}", s.file);
    let path = dir.join(&rel);
    if let Some(why) = crate::inputs::refusal(dir, &path, INPUT) {
        let q = Quarantined::new(INPUT, &rel, None, None, why, "");
        return Ok((Records::empty(agent, s), InputFile::refused(INPUT, rel), vec![q]));
    }
    let bytes = crate::inputs::read_regular(&path)?;
    let bom = bytes.len() - crate::inputs::strip_bom(&bytes).len();
    let body = &bytes[bom..];
    // One byte-order mark at the very start is skipped; a second would become part of the
    // first column's name and the header misread: the file is reported, not guessed at.
    if bom > 0 && body.starts_with(crate::inputs::BOM) {
        let why = "starts with two byte-order marks (U+FEFF): only one at the very start of a file is skipped".to_string();
        let q = Quarantined::new(INPUT, &rel, Some(1), None, why, &raw_text(&body[..body.len().min(200)]));
        return Ok((Records::empty(agent, s), InputFile::refused(INPUT, rel), vec![q]));
    }
    // The csv reader takes an unclosed quote to run to the end of the file, as one field:
    // found here, so that record is reported as what it is and never used.
    let open_quote = unclosed_quote(body);
    let mut reader = csv::ReaderBuilder::new().has_headers(true).flexible(true).from_reader(body);
    let header = read_header(&mut reader, s, body, open_quote, &path)?;
    let extra_columns: Vec<String> = header.names.iter().filter(|n| !s.columns.iter().any(|(c, _)| c == n)).cloned().collect();
    let mut scan = scan_records(&mut reader, s, &header, &path)?;
    let count = scan.starts.len();
    if let (Some(q), Some(last)) = (open_quote.filter(|&q| q >= header.end), count.checked_sub(1)) {
        scan.blame_unclosed_quote(last, line_at(body, q));
    }
    let Scan { rows, lines, row_records, rejected, mut starts } = scan;
    starts.push(body.len());
    // Record k's bytes run to the next record's start (starts only grow).
    let span = |k: usize| starts[k]..starts[k + 1].max(starts[k]);
    let mut quarantined = Vec::new();
    for (k, line, field, reason) in rejected {
        quarantined.push(Quarantined::new(INPUT, &rel, Some(line), field, reason, &raw_text(&body[span(k)])));
    }
    let mut records_in_file = count;
    if let (Some(why), 0) = (&header.problem, count) {
        // No record to carry the reason: the file itself is reported, as one record.
        let line = (!body.is_empty()).then_some(1);
        quarantined.push(Quarantined::new(INPUT, &rel, line, None, why.clone(), &raw_text(&body[..header.end])));
        records_in_file = 1;
    }
    let spans = row_records.iter().map(|&k| span(k)).map(|r| r.start + bom..r.end + bom).collect();
    let file = InputFile::from_bytes(INPUT, rel.clone(), &bytes, records_in_file);
    let bytes = if s.file == PRS { bytes } else { Vec::new() };
    let mut records = Records::new(agent, s, rel, "line");
    (records.rows, records.lines, records.extra_columns, records.spans, records.bytes) = (rows, lines, extra_columns, spans, bytes);
    Ok((records, file, quarantined))
}

/// A CSV file's header: its column names, where each layout column sits, and why it cannot
/// be used, if it cannot.
struct Header {
    names: Vec<String>,
    index: Vec<usize>,
    /// A header that cannot say which field is which (none, a column missing or named
    /// twice, an unclosed quote): every record of the file is quarantined with this reason
    /// (none is guessed at), and the import goes on.
    problem: Option<String>,
    /// The byte where the header ends.
    end: usize,
}

/// Read the header and match it against the layout's columns.
fn read_header(reader: &mut csv::Reader<&[u8]>, s: &'static Source, body: &[u8], open_quote: Option<usize>, path: &Path) -> Result<Header> {
    let header = reader.byte_headers().map_err(|e| csv_error(path, &e))?.clone();
    let end = (reader.position().byte() as usize).min(body.len());
    let names: Vec<String> = header.iter().map(|h| String::from_utf8_lossy(h).trim().to_string()).collect();
    let mut index = Vec::with_capacity(s.columns.len());
    let problem = match open_quote.filter(|&q| q < end) {
        Some(q) => Some(format!("an unclosed quote: the header's quoted field that opens at line {} never closes, so the whole file was read as the header", line_at(body, q))),
        None => header_index(s, &names, body.is_empty(), &mut index),
    };
    Ok(Header { names, index, problem, end })
}

/// The records of a CSV file: typed rows, and the rejected ones with their reason.
struct Scan {
    rows: Vec<Vec<Cell>>,
    lines: Vec<usize>,
    /// The record each row is.
    row_records: Vec<usize>,
    /// (record, line, field, reason) of rejected records; their raw text is cut out of the
    /// file once the next record's start is known.
    rejected: Vec<(usize, usize, Option<&'static str>, String)>,
    /// The byte each record starts at.
    starts: Vec<usize>,
}

/// Read every record after the header: a row when its fields fit the layout, else rejected
/// with the field at fault.
fn scan_records(reader: &mut csv::Reader<&[u8]>, s: &'static Source, header: &Header, path: &Path) -> Result<Scan> {
    let mut scan = Scan { rows: Vec::new(), lines: Vec::new(), row_records: Vec::new(), rejected: Vec::new(), starts: Vec::new() };
    let mut record = csv::ByteRecord::new();
    loop {
        match reader.read_byte_record(&mut record) {
            Ok(false) => break,
            Ok(true) => {}
            Err(e) => {
                // The csv reader stops only on I/O errors here (flexible, bytes): say where.
                return Err(csv_error(path, &e));
            }
        }
        let k = scan.starts.len();
        let (line, start) = record.position().map_or((0, 0), |p| (p.line() as usize, p.byte() as usize));
        scan.starts.push(start);
        if let Some(why) = &header.problem {
            scan.rejected.push((k, line, None, why.clone()));
            continue;
        }
        if record.len() != header.names.len() {
            scan.rejected.push((k, line, None, format!("{} fields, the header has {}", record.len(), header.names.len())));
            continue;
        }
        match typed_row(s, &header.index, &record).and_then(|row| same_pr(s, row)) {
            Ok(row) => {
                scan.rows.push(row);
                scan.lines.push(line);
                scan.row_records.push(k);
            }
            Err((field, reason)) => scan.rejected.push((k, line, Some(field), reason)),
        }
    }
    Ok(scan)
}

impl Scan {
    /// Reject the last record for an unclosed quote that opens at `quote_line`: only it can
    /// hold one, as it ran to the end of the file.
    fn blame_unclosed_quote(&mut self, last: usize, quote_line: usize) {
        let why = format!(
            "an unclosed quote: the quoted field that opens at line {} never closes, so the rest of the file was read into this one record",
            quote_line
        );
        if self.row_records.last() == Some(&last) {
            self.row_records.pop();
            self.rows.pop();
            let line = self.lines.pop().unwrap_or(0);
            self.rejected.push((last, line, None, why));
        } else if let Some(r) = self.rejected.iter_mut().find(|r| r.0 == last) {
            r.2 = None;
            r.3 = why;
        }
    }
}

/// A record's bytes as the quarantine shows them.
fn raw_text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).trim_end_matches(['\r', '\n']).to_string()
}

/// The 1-based line byte `at` of `body` is on.
fn line_at(body: &[u8], at: usize) -> usize {
    1 + body[..at.min(body.len())].iter().filter(|&&b| b == b'\n').count()
}

/// Where the column of each of the source's columns is, in `index`; or why the header
/// cannot say: the file is empty, or a column the layout defines is missing or named
/// twice (which copy holds the value cannot be told).
fn header_index(s: &Source, names: &[String], empty: bool, index: &mut Vec<usize>) -> Option<String> {
    let expected = || format!("AIDev's {} starts with the header {}", s.file, column_list(s));
    if names.iter().all(String::is_empty) {
        return Some(if empty { format!("the file is empty: it has no header ({})", expected()) } else { format!("the header names no column ({})", expected()) });
    }
    for (name, _) in s.columns {
        let at: Vec<usize> = names.iter().enumerate().filter(|(_, n)| n == name).map(|(i, _)| i).collect();
        match at.as_slice() {
            [i] => index.push(*i),
            [] => {
                return Some(format!("the header has no column `{name}` (it has: {}); {}", crate::text::printable(&names.join(",")), expected()));
            }
            many => {
                let cols: Vec<String> = many.iter().map(|i| (i + 1).to_string()).collect();
                return Some(format!("the header names column `{name}` {} times (columns {}): which one holds the value cannot be told", many.len(), cols.join(", ")));
            }
        }
    }
    None
}

/// The byte at which a quoted field opens that the file never closes, if one does. The
/// same reading as the csv reader's: a quote opens a field only as its first byte, `""`
/// inside is a quote, and a field ends at a comma or a line end outside quotes.
fn unclosed_quote(body: &[u8]) -> Option<usize> {
    #[derive(Clone, Copy)]
    enum State {
        FieldStart,
        Unquoted,
        Quoted(usize),
        QuoteInQuoted(usize),
    }
    let mut state = State::FieldStart;
    for (i, &b) in body.iter().enumerate() {
        state = match (state, b) {
            (State::FieldStart, b'"') => State::Quoted(i),
            (State::FieldStart | State::Unquoted | State::QuoteInQuoted(_), b',' | b'\n' | b'\r') => State::FieldStart,
            (State::FieldStart | State::Unquoted, _) => State::Unquoted,
            (State::Quoted(q), b'"') => State::QuoteInQuoted(q),
            (State::Quoted(q), _) => State::Quoted(q),
            (State::QuoteInQuoted(q), b'"') => State::Quoted(q),
            (State::QuoteInQuoted(_), _) => State::Unquoted,
        };
    }
    match state {
        State::Quoted(q) => Some(q),
        _ => None,
    }
}

fn column_list(s: &Source) -> String {
    s.columns.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(",")
}

fn csv_error(path: &Path, e: &csv::Error) -> Error {
    let line = e.position().map_or(0, |p| p.line() as usize);
    Error::Input { path: path.to_path_buf(), line, message: format!("not readable as CSV: {e}") }
}

/// The record's fields as typed cells, or the first field that cannot be typed and why.
/// Fields are taken as written: nothing is trimmed, signed or rounded into shape.
fn typed_row(s: &Source, index: &[usize], record: &csv::ByteRecord) -> std::result::Result<Vec<Cell>, (&'static str, String)> {
    let mut row = Vec::with_capacity(s.columns.len());
    for (&(name, kind), &i) in s.columns.iter().zip(index) {
        let raw = record.get(i).unwrap_or_default();
        let text = std::str::from_utf8(raw).map_err(|e| (name, format!("invalid UTF-8 at byte {} of the field", e.valid_up_to())))?;
        // A CSV field cannot tell an empty text from none: both are null.
        row.push(if text.is_empty() { null(kind) } else { typed_text(s, name, kind, text).map_err(|why| (name, why))? });
    }
    row.extend(s.later.iter().map(|&(_, k)| null(k)));
    Ok(row)
}

/// A value written as text (a v1 CSV field; a Parquet text column) typed as its column's
/// kind, as strictly as AIDev writes it, or why it cannot be: one reading for every layout.
pub(crate) fn typed_text(s: &Source, name: &str, kind: Kind, text: &str) -> std::result::Result<Cell, String> {
    let shown = || crate::text::printable(text);
    match kind {
        Kind::Str => match url_problem(s, name, text) {
            Some(why) => Err(why),
            None => Ok(Cell::Str(Some(text.to_string()))),
        },
        Kind::Int => {
            let n = integer(text).ok_or_else(|| format!("`{}` is not an integer as written (digits only, as pandas writes them)", shown()))?;
            // AIDev's integers are GitHub ids, numbers and counts: none is negative.
            if text.starts_with('-') {
                return Err(negative(&shown()));
            }
            Ok(Cell::Int(Some(n)))
        }
        Kind::Time => crate::time::parse_strict(text)
            .map(|t| Cell::Time(Some(t.timestamp_micros())))
            .ok_or_else(|| format!("`{}` is not an RFC 3339 time as written (no white space around it, seconds 00-59)", shown())),
        Kind::Float => text.parse::<f64>().ok().filter(|x| x.is_finite()).map(|x| Cell::Float(Some(x))).ok_or_else(|| format!("`{}` is not a number", shown())),
        Kind::Bool => match text {
            "true" | "True" | "TRUE" => Ok(Cell::Bool(Some(true))),
            "false" | "False" | "FALSE" => Ok(Cell::Bool(Some(false))),
            _ => Err(format!("`{}` is not a boolean (true or false)", shown())),
        },
    }
}

/// Why a negative integer (`shown` as written) is refused.
pub(crate) fn negative(shown: &str) -> String {
    format!("`{shown}` is negative: AIDev's ids, numbers and counts are never below 0")
}

/// A `prs.csv` row whose `html_url` names the PR its `repo_url` and `number` name (where
/// both say): one that names another cannot be told to be either.
fn same_pr(s: &Source, row: Vec<Cell>) -> std::result::Result<Vec<Cell>, (&'static str, String)> {
    if s.file != PRS {
        return Ok(row);
    }
    let Some(html) = text(&row[s.col("html_url")]) else { return Ok(row) };
    let page = crate::snapshot::paths::parse_url(html);
    let repo = text(&row[s.col("repo_url")]).and_then(|u| crate::snapshot::paths::parse_url(u).repo);
    let number = int(&row[s.col("number")]);
    let repo_differs = matches!((&page.repo, &repo), (Some(a), Some(b)) if !a.eq_ignore_ascii_case(b));
    let number_differs = matches!((page.number, number), (Some(a), Some(b)) if a != b);
    if repo_differs || number_differs {
        let said = format!("{}#{}", repo.as_deref().or(page.repo.as_deref()).unwrap_or("?"), number.map_or("?".to_string(), |n| n.to_string()));
        return Err(("html_url", format!("`{}` is not PR {said}, which repo_url and number name: which PR the row is cannot be told", crate::text::printable(html))));
    }
    Ok(row)
}

/// An integer field, exactly as written. pandas writes an integer column that has an
/// empty cell as floats (`1132840.0`); a decimal whose fraction is all zeros is that
/// integer exactly, so it is read as one. Anything else (`1.5`, `1e9`, `12abc`, `+13`,
/// ` 14 `) is not an integer: a sign or white space pandas never writes means the field
/// was not written as the table's integers are.
fn integer(text: &str) -> Option<i64> {
    let whole = match text.split_once('.') {
        Some((w, frac)) if !frac.is_empty() && frac.bytes().all(|b| b == b'0') => w,
        Some(_) => return None,
        None => text,
    };
    let digits = whole.strip_prefix('-').unwrap_or(whole);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    whole.parse::<i64>().ok()
}

/// Why a URL field names no valid repository, if it does not. A repository URL (`repo_url`,
/// `repo_metadata.csv`'s `url`) must be `https://api.github.com/repos/OWNER/NAME` or
/// `https://github.com/OWNER/NAME`; any other GitHub URL must name a valid repository if it
/// names one (the study builds capture paths from them).
fn url_problem(s: &Source, name: &str, text: &str) -> Option<String> {
    let repo_url = name == "repo_url" || (name == "url" && s.file == "repo_metadata.csv");
    if repo_url {
        let tail = text.strip_prefix("https://api.github.com/repos/").or_else(|| text.strip_prefix("https://github.com/"));
        let Some(tail) = tail else {
            return Some(format!("`{}` is not a repository URL (https://api.github.com/repos/OWNER/NAME or https://github.com/OWNER/NAME)", crate::text::printable(text)));
        };
        return repo_problem(tail).map(|why| format!("`{}` is not a repository URL: {why}", crate::text::printable(text)));
    }
    if name == "url" || name.ends_with("_url") {
        let repo = crate::snapshot::paths::parse_url(text).repo?;
        return repo_problem(&repo).map(|why| format!("`{}` names no valid repository: {why}", crate::text::printable(text)));
    }
    None
}

/// Why `owner/name` is not a GitHub repository's full name, if it is not (one rule for
/// every reader: [`crate::snapshot::paths::repository_problem`]).
pub(crate) fn repo_problem(full: &str) -> Option<String> {
    crate::snapshot::paths::repository_problem(full)
}

/// The dataset table of one source: every folder's records, folders in layout order.
pub(crate) fn table(read: &Read, s: &'static Source) -> Table {
    let mut t = Table::new(s.table, &s.schema());
    for r in read.tables.iter().filter(|r| r.source.table == s.table) {
        for (row, line) in r.rows.iter().zip(&r.lines) {
            t.push(table_row(r, row, *line));
        }
    }
    t
}

/// Write the dataset table of one source into `dir` as its rows are read from `read`.
pub fn write_source(dir: &Path, read: &Read, s: &'static Source) -> Result<crate::dataset::Written> {
    let mut w = SourceRows::create(dir, s)?;
    for r in read.tables.iter().filter(|r| r.source.table == s.table) {
        for (row, line) in r.rows.iter().zip(&r.lines) {
            w.push(r.agent, row.clone(), *line)?;
        }
    }
    w.finish()
}

/// Rows a streamed table holds as cells before they go to its writer (the bytes do not
/// depend on it): a few MB of rows, however wide.
const STREAM_CHUNK: usize = 8192;

/// Text bytes in one row group of an `aidev_*` table at most.
const GROUP_BYTES: usize = 16 << 20;

/// A source's dataset table written as its rows come, [`STREAM_CHUNK`] at a time.
pub(crate) struct SourceRows {
    source: &'static Source,
    w: crate::dataset::TableWriter,
    chunk: Table,
}

impl SourceRows {
    pub(crate) fn create(dir: &Path, s: &'static Source) -> Result<SourceRows> {
        let schema = s.schema();
        // Row groups are cut by text bytes too: a PR table's bodies would otherwise hold tens of
        // thousands of rows' text until a group of rows is full.
        let w = crate::dataset::TableWriter::create(dir, s.table, crate::table::arrow_schema(&schema))?.with_group_bytes(GROUP_BYTES);
        Ok(SourceRows { source: s, w, chunk: Table::new(s.table, &schema) })
    }

    /// A row of `agent` (empty: none) read from `line`.
    pub(crate) fn push(&mut self, agent: &str, row: Vec<Cell>, line: usize) -> Result<()> {
        let mut cells = Vec::with_capacity(row.len() + 2);
        cells.push(Cell::Str((!agent.is_empty()).then(|| agent.to_string())));
        cells.extend(row);
        cells.push(Cell::Int(Some(line as i64)));
        self.chunk.push(cells);
        if self.chunk.len() == STREAM_CHUNK {
            self.w.write(&self.chunk.to_batch()?)?;
            self.chunk = Table::new(self.source.table, &self.source.schema());
        }
        Ok(())
    }

    pub(crate) fn finish(mut self) -> Result<crate::dataset::Written> {
        self.w.write(&self.chunk.to_batch()?)?;
        self.w.finish()
    }
}

/// A row of a source's dataset table: the agent, the record's cells, its line or row.
fn table_row(r: &Records, row: &[Cell], line: usize) -> Vec<Cell> {
    let mut cells = Vec::with_capacity(row.len() + 2);
    cells.push(Cell::Str((!r.agent.is_empty()).then(|| r.agent.to_string())));
    cells.extend(row.iter().cloned());
    cells.push(Cell::Int(Some(line as i64)));
    cells
}

impl Read {
    /// Let the typed rows go (once their tables are written and the study built); what was
    /// counted stays.
    pub fn release_rows(&mut self) {
        for t in &mut self.tables {
            t.rows = Vec::new();
            t.lines = Vec::new();
            t.spans = Vec::new();
        }
    }
}

/// Every source's table, in [`SOURCES`] order (a table no folder has is written empty, so
/// queries over it run and return nothing).
pub fn tables(read: &Read) -> Vec<Table> {
    SOURCES.iter().map(|s| table(read, s)).collect()
}

/// The `source_tables` table: each `aidev_*` table, whether this copy of the release has
/// it, the files it was read from and the rows it holds, so a query over a table the release
/// lacks can say so rather than count nothing.
pub fn source_tables(read: &Read) -> Table {
    let mut t = Table::new("source_tables", &[("table_name", S), ("release", S), ("present", Kind::Bool), ("read_from", S), ("rows", I)]);
    for s in SOURCES {
        let from = read.read_from.get(s.table);
        let rows = read.rows_by_table.get(s.table).copied().unwrap_or(0);
        t.push(vec![
            Cell::Str(Some(s.table.to_string())),
            Cell::Str(Some(read.release.release.name().to_string())),
            Cell::Bool(Some(from.is_some())),
            Cell::Str(from.map(|f| f.join(", "))),
            Cell::Int(Some(rows as i64)),
        ]);
    }
    t
}

/// Rows used and quarantined per table file (a v1 CSV file, or a Parquet table over all
/// its agents), for the terminal.
pub fn summary(read: &Read) -> BTreeMap<String, (usize, usize)> {
    let mut out: BTreeMap<String, (usize, usize)> = read.used_by_origin.iter().map(|(o, n)| (o.clone(), (*n, 0))).collect();
    for (origin, counts) in &mut out {
        let dir = origin.ends_with('/');
        counts.1 = read.quarantined.iter().filter(|q| q.file == *origin || (dir && q.file.starts_with(origin.as_str()))).count();
    }
    out
}

/// A string cell's text.
pub(crate) fn text(c: &Cell) -> Option<&str> {
    match c {
        Cell::Str(s) => s.as_deref(),
        _ => None,
    }
}

/// An integer cell's value.
pub(crate) fn int(c: &Cell) -> Option<i64> {
    match c {
        Cell::Int(v) => *v,
        _ => None,
    }
}

/// A time cell's value.
pub(crate) fn time(c: &Cell) -> Option<crate::time::Instant> {
    match c {
        Cell::Time(v) => v.and_then(crate::time::from_micros),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::integer;

    #[test]
    fn integers_as_pandas_writes_them() {
        assert_eq!(integer("3158615630"), Some(3_158_615_630));
        assert_eq!(integer("1132840.0"), Some(1_132_840));
        assert_eq!(integer("-7.00"), Some(-7));
        assert_eq!(integer("1.5"), None);
        assert_eq!(integer("1e9"), None);
        assert_eq!(integer("12."), None);
        assert_eq!(integer("99999999999999999999"), None);
        assert_eq!(integer("13.0"), Some(13));
        // Not as pandas writes an integer: a sign, white space, nothing before the point.
        for bad in ["+13", " 14 ", "14 ", "\t14", "-", "", ".0", "-.0", "+0.0", "1_000", "０"] {
            assert_eq!(integer(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn repository_names_are_github_s() {
        use super::repo_problem;
        for ok in ["o/r", "openai/openai-agents-python", "EricLBuehler/mistral.rs", "a-b/.github", "x/_y", "o-/r"] {
            assert_eq!(repo_problem(ok), None, "{ok}");
        }
        for bad in ["../..", "o/..", "o/.", "o", "o/r/x", "/r", "o/", "-o/r", "o/r r", "o/r%2F", &format!("{}/r", "a".repeat(101))] {
            assert!(repo_problem(bad).is_some(), "{bad}");
        }
    }
}
