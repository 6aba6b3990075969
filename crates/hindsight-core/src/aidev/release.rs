//! Which AIDev release a folder holds, told from its tables and columns (docs/AIDEV.md).
//!
//! - **v1**: the CSV replication package on GitHub (SAILResearch/AI_Teammates_in_SE3), cut off
//!   2025-06-22: one folder per agent.
//! - **v3**: `hao-li/AIDev` tag `v3` on Hugging Face, the MSR 2026 Mining Challenge version,
//!   cut off 2025-08-01: one Parquet file per table, 18 tables.
//! - **v4** (AIDev-2.7M): `hao-li/AIDev` main since 2026-08-21, cut off November 2025: the 11
//!   tables its dataset card lists (no timeline, issues, task types or human PRs).
//! - **v5** (AIDev-7.6M): `hao-li/AIDev-7.6M`, cut off 2026-03-31: 14 tables (no `user`, no
//!   human PRs).
//!
//! A folder whose tables and columns fit no release is refused with what was found; one that
//! fits several (a subset of the tables every release shares) is refused unless `--release`
//! says which, never read as the nearest one.

use std::path::Path;

use serde_json::{json, Value};

use crate::error::{Error, Result};

/// An AIDev release the importer reads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum Release {
    #[default]
    V1,
    V3,
    V4,
    V5,
}

/// Which PR set of a Parquet release to import: AIDev-pop (`pull_request`, the repositories
/// with more than 100 stars, which the review, comment, commit and timeline tables cover) or
/// AIDev full (`all_pull_request`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Subset {
    #[default]
    Pop,
    All,
}

impl Subset {
    /// As AIDev's papers name the two sets.
    pub fn title(self) -> &'static str {
        match self {
            Subset::Pop => "AIDev-pop",
            Subset::All => "AIDev full",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Subset::Pop => "pop",
            Subset::All => "all",
        }
    }
}

/// What the user said about the folder (`import aidev --release --revision --subset`).
#[derive(Clone, Debug, Default)]
pub struct Options {
    pub release: Option<Release>,
    pub revision: Option<String>,
    pub subset: Option<Subset>,
}

/// The release a folder was recognised as, and why.
#[derive(Clone, Debug, Default)]
pub struct Recognised {
    pub release: Release,
    /// The tables and columns that told it (or `--release`).
    pub basis: String,
    /// The Hugging Face revision (a commit), where given or found in the folder.
    pub revision: Option<String>,
    pub revision_basis: Option<String>,
    /// The PR set read (Parquet releases).
    pub subset: Option<Subset>,
    /// The Parquet tables found, by name, with their files (relative to the folder).
    pub tables: Vec<(String, Vec<String>)>,
}

/// The tables every Parquet release has.
const SHARED: &[&str] = &[
    "all_pull_request",
    "all_repository",
    "all_user",
    "pull_request",
    "repository",
    "pr_comments",
    "pr_reviews",
    "pr_review_comments",
    "pr_commits",
    "pr_commit_details",
];

impl Release {
    pub const ALL: [Release; 4] = [Release::V1, Release::V3, Release::V4, Release::V5];

    pub fn name(self) -> &'static str {
        match self {
            Release::V1 => "v1",
            Release::V3 => "v3",
            Release::V4 => "v4",
            Release::V5 => "v5",
        }
    }

    pub fn parse(s: &str) -> Option<Release> {
        Release::ALL.into_iter().find(|r| r.name() == s)
    }

    /// The release in the researcher's words: where it is published and when it was cut off.
    pub fn description(self) -> &'static str {
        match self {
            Release::V1 => "AIDev v1: the CSV replication package on GitHub (SAILResearch/AI_Teammates_in_SE3), cut off 2025-06-22",
            Release::V3 => "AIDev v3: hao-li/AIDev tag v3 on Hugging Face, the MSR 2026 Mining Challenge version, cut off 2025-08-01",
            Release::V4 => "AIDev v4 (AIDev-2.7M): hao-li/AIDev main since 2026-08-21, cut off November 2025",
            Release::V5 => "AIDev v5 (AIDev-7.6M): hao-li/AIDev-7.6M, cut off 2026-03-31",
        }
    }

    /// The release's Parquet tables, beyond [`SHARED`] (none for v1, which is CSV).
    fn own_tables(self) -> &'static [&'static str] {
        match self {
            Release::V1 => &[],
            Release::V3 => &[
                "user",
                "pr_timeline",
                "issue",
                "related_issue",
                "pr_task_type",
                "human_pull_request",
                "human_pr_task_type",
                "pr_review_comments_v2",
            ],
            Release::V4 => &["user"],
            Release::V5 => &["pr_timeline", "issue", "related_issue", "pr_task_type"],
        }
    }

    /// The first instant after the release's data ends (its cut-off; v4's is given as a month,
    /// so the month's end): no PR of it was created at or after this time.
    pub(crate) fn cut_off(self) -> &'static str {
        match self {
            Release::V1 => "2025-06-23T00:00:00Z",
            Release::V3 => "2025-08-02T00:00:00Z",
            Release::V4 => "2025-12-01T00:00:00Z",
            Release::V5 => "2026-04-01T00:00:00Z",
        }
    }

    /// Whether the release has a Parquet table of this name.
    pub fn has_table(self, name: &str) -> bool {
        self != Release::V1 && (SHARED.contains(&name) || self.own_tables().contains(&name))
    }

    /// The agents its `agent` column names (v1: its folders).
    pub fn agents(self) -> &'static [&'static str] {
        match self {
            Release::V1 | Release::V3 => super::AGENTS,
            Release::V4 | Release::V5 => super::ALL_AGENTS,
        }
    }

    /// Every Parquet table name any release has.
    pub(crate) fn every_table() -> Vec<&'static str> {
        let mut all: Vec<&'static str> = SHARED.to_vec();
        for r in Release::ALL {
            all.extend(r.own_tables().iter().filter(|t| !all.contains(t)).collect::<Vec<_>>());
        }
        all
    }
}

impl Recognised {
    /// The manifest's `source_release` entry.
    pub fn to_json(&self) -> Value {
        let mut v = json!({
            "dataset": "AIDev",
            "release": self.release.name(),
            "description": self.release.description(),
            "recognised_by": self.basis,
        });
        if let Some(r) = &self.revision {
            v["revision"] = json!(r);
            v["revision_basis"] = json!(self.revision_basis);
        }
        if let Some(s) = self.subset {
            v["subset"] = json!(s.name());
        }
        v
    }

    /// The files of table `name`, if the folder has it.
    pub(crate) fn files(&self, name: &str) -> Option<&[String]> {
        self.tables.iter().find(|(n, _)| n == name).map(|(_, f)| f.as_slice())
    }
}

/// Tell which release `dir` holds (already canonical).
pub fn recognise(dir: &Path, options: &Options) -> Result<Recognised> {
    let tables = super::parquet::find_tables(dir)?;
    // No Parquet table and no --release for one: read as v1, whose reader says what a v1
    // folder lacks.
    let parquet_asked = options.release.is_some_and(|r| r != Release::V1);
    let v1 = super::AGENTS.iter().chain(std::iter::once(&super::BASELINE)).any(|a| dir.join(a).is_dir()) || (tables.is_empty() && !parquet_asked);
    let (revision, revision_basis) = revision(dir, options)?;
    let found = || {
        let names: Vec<&str> = tables.iter().map(|(n, _)| n.as_str()).collect();
        if names.is_empty() { "no agent folder and no AIDev Parquet table".to_string() } else { format!("the Parquet tables {}", names.join(", ")) }
    };
    if v1 && !tables.is_empty() {
        return Err(refused(dir, format!("it holds both v1 agent folders and {}: one release per import", found())));
    }
    let mut rec = Recognised { revision, revision_basis, ..Recognised::default() };
    if v1 {
        match options.release {
            Some(r) if r != Release::V1 => return Err(refused(dir, format!("--release {} was given, but the folder holds v1's agent folders of CSV tables", r.name()))),
            _ => {}
        }
        rec.release = Release::V1;
        rec.basis = if options.release.is_some() { "--release v1; agent folders of CSV tables".into() } else { "agent folders of CSV tables".into() };
        return Ok(rec);
    }
    if tables.is_empty() {
        return Err(refused(dir, found()));
    }
    let names: Vec<&str> = tables.iter().map(|(n, _)| n.as_str()).collect();
    let markers = super::parquet::v5_columns(dir, &tables)?;
    let by_tables: Vec<Release> = Release::ALL[1..].iter().copied().filter(|r| names.iter().all(|n| r.has_table(n))).collect();
    // Columns only v5 is known to carry narrow the choice to v5 where the tables allow it;
    // they never overrule the tables (they are known from code that reads v5, not a card).
    let markers = if by_tables.contains(&Release::V5) { markers } else { Vec::new() };
    let mut fits: Vec<Release> = if markers.is_empty() { by_tables } else { vec![Release::V5] };
    // Several fit by tables: the PRs themselves can rule some out (an agent a release lacks,
    // a PR created after its cut-off).
    let mut ruled = Vec::new();
    if fits.len() > 1 {
        for (r, why) in super::parquet::ruled_out(dir, &tables) {
            if fits.contains(&r) && fits.len() > 1 {
                fits.retain(|f| *f != r);
                ruled.push(format!("not {}: {why}", r.name()));
            }
        }
    }
    let why = |r: Release| {
        let own: Vec<&str> = names.iter().copied().filter(|n| !SHARED.contains(n)).collect();
        let mut s = if own.is_empty() { format!("only tables every release has ({})", names.join(", ")) } else { format!("the tables {}", own.join(", ")) };
        if !markers.is_empty() {
            s.push_str(&format!("; {} (columns only v5 is known to have)", markers.join(", ")));
        }
        let mut s = format!("{s}: {} has them all", r.name());
        for x in &ruled {
            s.push_str(&format!("; {x}"));
        }
        s
    };
    rec.release = match (options.release, fits.as_slice()) {
        (Some(r), _) if fits.contains(&r) => {
            rec.basis = format!("--release {}; {}", r.name(), why(r));
            r
        }
        (Some(r), _) => return Err(refused(dir, format!("--release {} was given, but {}, which {} does not have all of (it fits: {})", r.name(), found(), r.name(), names_of(&fits)))),
        (None, [r]) => {
            rec.basis = why(*r);
            *r
        }
        (None, []) => return Err(refused(dir, format!("{}: no release the importer knows has them all", found()))),
        (None, many) => {
            return Err(refused(
                dir,
                format!("{} fit {} alike: say which with --release (the table lists are in docs/AIDEV.md)", found(), names_of(many)),
            ))
        }
    };
    rec.subset = Some(subset(dir, &names, options)?);
    rec.tables = tables;
    Ok(rec)
}

fn names_of(rs: &[Release]) -> String {
    if rs.is_empty() {
        return "none".into();
    }
    rs.iter().map(|r| r.name()).collect::<Vec<_>>().join(", ")
}

fn refused(dir: &Path, what: String) -> Error {
    Error::Layout { path: dir.to_path_buf(), message: format!("not an AIDev release the importer knows: {what}") }
}

/// The PR set to read: as asked, else AIDev-pop where `pull_request` is present, else AIDev full.
fn subset(dir: &Path, names: &[&str], options: &Options) -> Result<Subset> {
    let (pop, all) = (names.contains(&"pull_request"), names.contains(&"all_pull_request"));
    match options.subset {
        Some(Subset::Pop) if !pop => Err(refused(dir, "--subset pop was given, but there is no pull_request table".into())),
        Some(Subset::All) if !all => Err(refused(dir, "--subset all was given, but there is no all_pull_request table".into())),
        Some(s) => Ok(s),
        None if pop => Ok(Subset::Pop),
        None if all => Ok(Subset::All),
        None if names.contains(&"human_pull_request") => Ok(Subset::Pop),
        None => Err(refused(dir, format!("no PR table (pull_request, all_pull_request or human_pull_request) among {}", names.join(", ")))),
    }
}

/// The Hugging Face revision: `--revision`, or the folder's own, where `huggingface_hub` left
/// it (a `snapshots/<commit>/` folder, or `.cache/huggingface/download/*.metadata`, whose first
/// line is the commit). Both, and different: refused.
fn revision(dir: &Path, options: &Options) -> Result<(Option<String>, Option<String>)> {
    let found = found_revision(dir);
    match (&options.revision, found) {
        (Some(given), Some((rev, basis))) if !rev.starts_with(given.as_str()) => {
            Err(refused(dir, format!("--revision {given} was given, but the folder is revision {rev} ({basis})")))
        }
        (Some(given), Some((rev, basis))) => Ok((Some(rev), Some(format!("--revision {given}; {basis}")))),
        (Some(given), None) => Ok((Some(given.clone()), Some("--revision".into()))),
        (None, Some((rev, basis))) => Ok((Some(rev), Some(basis))),
        (None, None) => Ok((None, None)),
    }
}

fn is_commit(s: &str) -> bool {
    s.len() == 40 && s.bytes().all(|b| b.is_ascii_hexdigit())
}

fn found_revision(dir: &Path) -> Option<(String, String)> {
    let name = dir.file_name()?.to_str()?;
    let parent = dir.parent().and_then(|p| p.file_name()).and_then(|n| n.to_str());
    if is_commit(name) && parent == Some("snapshots") {
        return Some((name.to_string(), "the folder is a Hugging Face cache snapshot named by its commit".into()));
    }
    let meta = dir.join(".cache/huggingface/download");
    let mut files: Vec<_> = std::fs::read_dir(&meta).ok()?.filter_map(|e| e.ok()).map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "metadata")).collect();
    files.sort();
    let first = files.first()?;
    let text = crate::inputs::read_text_file(first, "a Hugging Face download record").ok()?;
    let commit = text.lines().next()?.trim();
    let name = first.file_name()?.to_string_lossy().to_string();
    is_commit(commit).then(|| (commit.to_string(), format!("first line of .cache/huggingface/download/{name}")))
}
