//! `hindsight synth --aidev RELEASE --prs N`: an AIDev release of any size in that release's
//! own layout (docs/AIDEV.md), for import benchmarks and scale tests. Same arguments, same
//! bytes.
//!
//! v1 is its CSV folders, one per agent; v3, v4 and v5 are one Parquet file per table with
//! each release's tables and columns: `pr_reviews.pull_request_review_id` and
//! `repository.is_forked` in v5, the timeline and task types in v3 and v5, `user` in v3 and
//! v4, v3's `human_pull_request` (empty), Google Jules from v4 on. The values are synthetic:
//! about 12 PRs per repository, 85% closed and 60% merged, per PR about 0.8 review, one
//! comment, two commits, two to four timeline events and one task type, all in June and July
//! 2025 (before v3's cut-off). `import aidev` tells each release without `--release` at any
//! size. Rows are written as they are drawn, in row groups of 50,000, so memory stays flat.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow::array::{ArrayRef, BooleanBuilder, Int64Builder, StringBuilder};
use arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use arrow::record_batch::RecordBatch;
use chrono::{Duration, TimeZone, Utc};
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;

use super::Rng;
use crate::aidev::release::Release;
use crate::error::{Error, Result};

/// Rows per Parquet row group.
const ROW_GROUP: usize = 50_000;
/// Rows built in memory before they are encoded into the row group being written: a row
/// group's encoded pages are far smaller than its rows.
const BATCH: usize = 8_192;
/// The most PRs synth writes: over ten times AIDev v5's 7.7 million; beyond that it is a typo.
pub(crate) const MAX_PRS: u64 = 100_000_000;
const API: &str = "https://api.github.com/repos/";
const WEB: &str = "https://github.com/";
const DAY: u64 = 86_400;
const TYPES: [&str; 11] = ["feat", "fix", "docs", "refactor", "test", "chore", "build", "ci", "perf", "style", "other"];
const REVIEW_STATES: [&str; 3] = ["APPROVED", "COMMENTED", "CHANGES_REQUESTED"];

/// An Arrow column type, as the releases store their columns.
#[derive(Clone, Copy)]
enum Kind {
    Str,
    Int,
    Bool,
}

use Kind::{Int as I, Str as S};

/// The Parquet tables as the releases publish them, every column any release has, in their
/// order; [`V5_ONLY`] columns are left out before v5.
const PARQUET: &[(&str, &[(&str, Kind)])] = &[
    (
        "pull_request",
        &[
            ("id", I),
            ("number", I),
            ("title", S),
            ("user", S),
            ("user_id", I),
            ("state", S),
            ("created_at", S),
            ("closed_at", S),
            ("merged_at", S),
            ("repo_url", S),
            ("repo_id", I),
            ("html_url", S),
            ("body", S),
            ("agent", S),
        ],
    ),
    ("pr_reviews", &[("id", I), ("pull_request_review_id", I), ("pr_id", I), ("user", S), ("user_type", S), ("state", S), ("submitted_at", S), ("body", S)]),
    ("pr_comments", &[("id", I), ("pr_id", I), ("user", S), ("user_id", I), ("user_type", S), ("created_at", S), ("body", S)]),
    ("pr_commits", &[("sha", S), ("pr_id", I), ("author", S), ("committer", S), ("message", S)]),
    ("pr_timeline", &[("pr_id", I), ("event", S), ("commit_id", S), ("created_at", S), ("actor", S), ("assignee", S), ("label", S), ("message", S)]),
    ("pr_task_type", &[("agent", S), ("id", I), ("title", S), ("reason", S), ("type", S), ("confidence", I)]),
    ("repository", &[("id", I), ("url", S), ("license", S), ("full_name", S), ("language", S), ("forks", I), ("stars", I), ("is_forked", Kind::Bool)]),
    ("user", &[("id", I), ("login", S), ("followers", I), ("following", I), ("created_at", S)]),
    (
        "human_pull_request",
        &[("id", I), ("number", I), ("title", S), ("user", S), ("state", S), ("created_at", S), ("merged_at", S), ("repo_url", S), ("html_url", S), ("body", S), ("agent", S)],
    ),
];

/// Columns only v5 is known to have: what tells v5 from v3 (docs/AIDEV.md).
const V5_ONLY: &[&str] = &["pull_request_review_id", "is_forked"];

/// v1's CSV files in each agent folder: the Parquet table each stands for, its file and its
/// header, as the replication package writes them.
const V1: &[(&str, &str, &[&str])] = &[
    ("pull_request", "prs.csv", &["id", "number", "title", "user", "user_id", "state", "created_at", "closed_at", "merged_at", "repo_url", "html_url", "body"]),
    ("pr_reviews", "pr_reviews.csv", &["pr_id", "id", "user", "state", "submitted_at", "body"]),
    ("pr_comments", "pr_comments.csv", &["pr_id", "id", "user", "created_at", "body"]),
    ("pr_commits", "pr_commits.csv", &["pr_id", "sha", "author", "committer", "message"]),
    ("pr_timeline", "pr_timelines.csv", &["pr_id", "event", "created_at", "actor", "commit_id", "assignee", "label", "message"]),
    ("pr_task_type", "gpt_conventional_commits.csv", &["agent", "id", "title", "reason", "type"]),
    ("repository", "repo_metadata.csv", &["url", "id", "full_name", "language", "forks", "stars", "open_issues"]),
    ("user", "developer_metadata.csv", &["login", "id", "name", "company", "location", "email", "followers", "following", "public_repos", "created_at"]),
];

/// One value of a row.
#[derive(Clone, Copy)]
enum Val<'a> {
    Str(&'a str),
    Int(i64),
    Bool(bool),
    Null,
}

fn opt(s: &Option<String>) -> Val<'_> {
    s.as_deref().map_or(Val::Null, Val::Str)
}

/// A row as the generator gives it: every column any layout of the table has, by name; each
/// layout takes its own columns in its own order, and a column given no value is null.
type Fields<'a> = [(&'static str, Val<'a>)];

/// Parameters of a synthetic AIDev release.
#[derive(Clone, Debug)]
pub struct Spec {
    pub release: Release,
    pub prs: u64,
    pub seed: u64,
}

/// What was written.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Written {
    pub prs: u64,
    /// Rows in every table (v1: every CSV record).
    pub rows: u64,
    pub files: u64,
    pub bytes: u64,
}

impl Spec {
    /// Refused before anything is written.
    pub fn validate(&self) -> Result<()> {
        if !(1..=MAX_PRS).contains(&self.prs) {
            return Err(Error::Usage(format!("synth --aidev: --prs {} must be between 1 and {MAX_PRS}", self.prs)));
        }
        Ok(())
    }

    /// The agents PRs go to in turn. From v4 on Google Jules comes first, so that even a
    /// release of one PR holds an agent v3 lacks and is told from v3 by `import aidev`.
    fn agents(&self) -> Vec<&'static str> {
        let all = self.release.agents();
        let jules = all.iter().copied().filter(|a| *a == "Google_Jules");
        jules.chain(all.iter().copied().filter(|a| *a != "Google_Jules")).collect()
    }
}

/// Where and how the release is written.
struct Layout {
    release: Release,
    dir: PathBuf,
    agents: Vec<&'static str>,
}

/// The value of column `name` in `fields`, looked for first where it was found last time.
fn pick<'a>(fields: &Fields<'a>, name: &str, hint: &mut usize) -> Val<'a> {
    if let Some((n, v)) = fields.get(*hint) {
        if *n == name {
            return *v;
        }
    }
    match fields.iter().position(|(n, _)| *n == name) {
        Some(i) => {
            *hint = i;
            fields[i].1
        }
        None => Val::Null,
    }
}

/// An Arrow column being filled.
enum Builder {
    Str(StringBuilder),
    Int(Int64Builder),
    Bool(BooleanBuilder),
}

impl Builder {
    fn new(kind: Kind) -> Builder {
        match kind {
            Kind::Str => Builder::Str(StringBuilder::new()),
            Kind::Int => Builder::Int(Int64Builder::new()),
            Kind::Bool => Builder::Bool(BooleanBuilder::new()),
        }
    }

    fn append(&mut self, v: Val) {
        match (self, v) {
            (Builder::Str(b), Val::Str(s)) => b.append_value(s),
            (Builder::Int(b), Val::Int(n)) => b.append_value(n),
            (Builder::Bool(b), Val::Bool(x)) => b.append_value(x),
            (Builder::Str(b), _) => b.append_null(),
            (Builder::Int(b), _) => b.append_null(),
            (Builder::Bool(b), _) => b.append_null(),
        }
    }

    fn finish(&mut self) -> ArrayRef {
        match self {
            Builder::Str(b) => Arc::new(b.finish()),
            Builder::Int(b) => Arc::new(b.finish()),
            Builder::Bool(b) => Arc::new(b.finish()),
        }
    }
}

/// A writer's failure, with the file it was writing.
fn failed(path: &Path, e: impl std::fmt::Display) -> Error {
    Error::Dataset { path: path.to_path_buf(), message: format!("writing failed: {e}") }
}

/// One Parquet table, written a row group at a time.
struct ParquetTable {
    path: PathBuf,
    schema: SchemaRef,
    names: Vec<&'static str>,
    hints: Vec<usize>,
    builders: Vec<Builder>,
    pending: usize,
    rows: u64,
    writer: ArrowWriter<BufWriter<File>>,
}

impl ParquetTable {
    fn create(dir: &Path, name: &str, columns: Vec<(&'static str, Kind)>) -> Result<ParquetTable> {
        let path = dir.join(format!("{name}.parquet"));
        let field = |(n, k): &(&str, Kind)| {
            let t = match k {
                Kind::Str => DataType::Utf8,
                Kind::Int => DataType::Int64,
                Kind::Bool => DataType::Boolean,
            };
            Field::new(*n, t, true)
        };
        let schema = Arc::new(Schema::new(columns.iter().map(field).collect::<Vec<_>>()));
        // Snappy: pyarrow's default, and what the release fixtures (make.py) are written with.
        let props = WriterProperties::builder().set_compression(Compression::SNAPPY).set_max_row_group_row_count(Some(ROW_GROUP)).build();
        let f = File::create(&path).map_err(|e| Error::io(&path, e))?;
        let writer = ArrowWriter::try_new(BufWriter::with_capacity(1 << 20, f), schema.clone(), Some(props)).map_err(|e| failed(&path, e))?;
        let names = columns.iter().map(|(n, _)| *n).collect();
        let builders = columns.iter().map(|(_, k)| Builder::new(*k)).collect();
        Ok(ParquetTable { path, schema, names, hints: (0..columns.len()).collect(), builders, pending: 0, rows: 0, writer })
    }

    fn add(&mut self, fields: &Fields) -> Result<()> {
        for ((b, name), hint) in self.builders.iter_mut().zip(&self.names).zip(&mut self.hints) {
            b.append(pick(fields, name, hint));
        }
        self.pending += 1;
        if self.pending >= BATCH {
            self.flush()?;
        }
        Ok(())
    }

    /// The pending rows into the row group being written (closed at [`ROW_GROUP`] rows).
    fn flush(&mut self) -> Result<()> {
        if self.pending == 0 {
            return Ok(());
        }
        let columns = self.builders.iter_mut().map(Builder::finish).collect();
        let batch = RecordBatch::try_new(self.schema.clone(), columns).map_err(|e| failed(&self.path, e))?;
        self.writer.write(&batch).map_err(|e| failed(&self.path, e))?;
        self.rows += self.pending as u64;
        self.pending = 0;
        Ok(())
    }

    /// Close the file; its rows and bytes.
    fn finish(mut self) -> Result<(u64, u64)> {
        self.flush()?;
        let mut w = self.writer.into_inner().map_err(|e| failed(&self.path, e))?;
        w.flush().map_err(|e| Error::io(&self.path, e))?;
        Ok((self.rows, file_size(&self.path)?))
    }
}

fn file_size(path: &Path) -> Result<u64> {
    Ok(std::fs::metadata(path).map_err(|e| Error::io(path, e))?.len())
}

/// One v1 CSV table: a file in each agent's folder.
struct CsvTable {
    columns: &'static [&'static str],
    hints: Vec<usize>,
    files: Vec<(csv::Writer<File>, PathBuf)>,
    rows: u64,
    scratch: String,
}

impl CsvTable {
    fn create(layout: &Layout, file: &str, columns: &'static [&'static str]) -> Result<CsvTable> {
        let mut files = Vec::new();
        for agent in &layout.agents {
            let path = layout.dir.join(agent).join(file);
            let f = File::create(&path).map_err(|e| Error::io(&path, e))?;
            let mut w = csv::WriterBuilder::new().buffer_capacity(1 << 18).from_writer(f);
            w.write_record(columns).map_err(|e| failed(&path, e))?;
            files.push((w, path));
        }
        Ok(CsvTable { columns, hints: (0..columns.len()).collect(), files, rows: 0, scratch: String::new() })
    }

    /// The row into the folder of each agent in `agents` (a bit per agent).
    fn add(&mut self, agents: u64, fields: &Fields) -> Result<()> {
        for (i, (w, path)) in self.files.iter_mut().enumerate() {
            if agents & (1 << i) == 0 {
                continue;
            }
            for (name, hint) in self.columns.iter().zip(&mut self.hints) {
                let text = match pick(fields, name, hint) {
                    Val::Str(s) => s,
                    Val::Int(n) => {
                        self.scratch.clear();
                        std::fmt::Write::write_fmt(&mut self.scratch, format_args!("{n}")).map_err(|e| failed(path, e))?;
                        &self.scratch
                    }
                    Val::Bool(b) => if b { "true" } else { "false" },
                    Val::Null => "",
                };
                w.write_field(text).map_err(|e| failed(path, e))?;
            }
            w.write_record(None::<&[u8]>).map_err(|e| failed(path, e))?;
            self.rows += 1;
        }
        Ok(())
    }

    fn finish(self) -> Result<(u64, u64)> {
        let mut bytes = 0;
        for (mut w, path) in self.files {
            w.flush().map_err(|e| Error::io(&path, e))?;
            bytes += file_size(&path)?;
        }
        Ok((self.rows, bytes))
    }
}

/// A table of the release, in its layout's format.
enum Sink {
    Parquet(ParquetTable),
    Csv(CsvTable),
}

impl Sink {
    /// The table `name` (a Parquet table's name) as the release has it; None where it has no such table.
    fn open(layout: &Layout, name: &str) -> Result<Option<Sink>> {
        if layout.release == Release::V1 {
            let Some((_, file, columns)) = V1.iter().find(|(n, _, _)| *n == name) else { return Ok(None) };
            return Ok(Some(Sink::Csv(CsvTable::create(layout, file, columns)?)));
        }
        if !layout.release.has_table(name) {
            return Ok(None);
        }
        let Some((_, all)) = PARQUET.iter().find(|(n, _)| *n == name) else { return Ok(None) };
        let v5 = layout.release == Release::V5;
        let columns = all.iter().copied().filter(|(c, _)| v5 || !V5_ONLY.contains(c)).collect();
        Ok(Some(Sink::Parquet(ParquetTable::create(&layout.dir, name, columns)?)))
    }

    /// A row of the agents in `agents` (a bit each, in [`Spec::agents`] order): one row of a
    /// Parquet table, which names the agent in a column where it has one; a record in each
    /// of those agents' folders in v1.
    fn add(&mut self, agents: u64, fields: &Fields) -> Result<()> {
        match self {
            Sink::Parquet(t) => t.add(fields),
            Sink::Csv(t) => t.add(agents, fields),
        }
    }

    /// Close the files; (rows, files, bytes).
    fn finish(self) -> Result<(u64, u64, u64)> {
        match self {
            Sink::Parquet(t) => t.finish().map(|(r, b)| (r, 1, b)),
            Sink::Csv(t) => {
                let files = t.files.len() as u64;
                t.finish().map(|(r, b)| (r, files, b))
            }
        }
    }
}

/// `sink`'s row, where the release has the table.
fn put(sink: &mut Option<Sink>, agents: u64, fields: &Fields) -> Result<()> {
    sink.as_mut().map_or(Ok(()), |s| s.add(agents, fields))
}

fn close(sink: Option<Sink>, written: &mut Written) -> Result<()> {
    if let Some(s) = sink {
        let (rows, files, bytes) = s.finish()?;
        written.rows += rows;
        written.files += files;
        written.bytes += bytes;
    }
    Ok(())
}

/// `seconds` after 2025-06-01T00:00:00Z, as RFC 3339 text.
fn ts(seconds: u64) -> String {
    let start = Utc.with_ymd_and_hms(2025, 6, 1, 0, 0, 0).single().unwrap_or_default();
    crate::time::format(&(start + Duration::seconds(seconds as i64)))
}

/// How many repositories and developers the PRs are spread over.
struct Shape {
    agents: Vec<&'static str>,
    repos: u64,
    users: u64,
}

/// One PR's draws.
struct Pr {
    k: u64,
    agent: usize,
    repo: u64,
    number: u64,
    id: i64,
    created: u64,
    closed: Option<u64>,
    merged: Option<u64>,
    author: u64,
    review: Option<&'static str>,
}

impl Pr {
    /// PR `k`: created in the first 50 days; 85% closed within five days, 60% merged when closed.
    fn draw(r: &mut Rng, k: u64, shape: &Shape) -> Pr {
        let created = r.below(50 * DAY);
        let fate = r.below(100);
        let closed = (fate < 85).then(|| created + 600 + r.below(5 * DAY - 600));
        let merged = if fate < 60 { closed } else { None };
        let author = r.below(shape.users);
        let review = r.chance(80).then(|| REVIEW_STATES[r.below(REVIEW_STATES.len() as u64) as usize]);
        let agent = (k % shape.agents.len() as u64) as usize;
        Pr { k, agent, repo: k % shape.repos, number: k / shape.repos + 1, id: 3_000_000_000 + k as i64, created, closed, merged, author, review }
    }
}

/// The PR-keyed tables, open while the PRs are drawn.
struct PrTables {
    prs: Option<Sink>,
    reviews: Option<Sink>,
    comments: Option<Sink>,
    commits: Option<Sink>,
    timeline: Option<Sink>,
    tasks: Option<Sink>,
}

impl PrTables {
    fn open(layout: &Layout) -> Result<PrTables> {
        Ok(PrTables {
            prs: Sink::open(layout, "pull_request")?,
            reviews: Sink::open(layout, "pr_reviews")?,
            comments: Sink::open(layout, "pr_comments")?,
            commits: Sink::open(layout, "pr_commits")?,
            timeline: Sink::open(layout, "pr_timeline")?,
            tasks: Sink::open(layout, "pr_task_type")?,
        })
    }

    fn close(self, written: &mut Written) -> Result<()> {
        for s in [self.prs, self.reviews, self.comments, self.commits, self.timeline, self.tasks] {
            close(s, written)?;
        }
        Ok(())
    }

    /// Every row of one PR.
    fn write(&mut self, pr: &Pr, agent: &str, body: &str) -> Result<()> {
        use Val::{Int, Str};
        let bit = 1u64 << pr.agent;
        let repo = format!("owner{0}/repo{0}", pr.repo);
        let (title, author, reviewer) = (format!("Change {}", pr.k), format!("dev{}", pr.author), format!("rev{}", pr.repo));
        let (created, closed, merged) = (ts(pr.created), pr.closed.map(ts), pr.merged.map(ts));
        let (repo_url, html_url) = (format!("{API}{repo}"), format!("{WEB}{repo}/pull/{}", pr.number));
        let state = if pr.closed.is_some() { "closed" } else { "open" };
        put(&mut self.prs, bit, &[
            ("id", Int(pr.id)), ("number", Int(pr.number as i64)), ("title", Str(&title)), ("user", Str(&author)),
            ("user_id", Int(1_000_000 + pr.author as i64)), ("state", Str(state)), ("created_at", Str(&created)), ("closed_at", opt(&closed)),
            ("merged_at", opt(&merged)), ("repo_url", Str(&repo_url)), ("repo_id", Int(500_000 + pr.repo as i64)), ("html_url", Str(&html_url)),
            ("body", Str(body)), ("agent", Str(agent)),
        ])?;
        if let Some(verdict) = pr.review {
            let id = Int(9_000_000_000 + pr.k as i64);
            put(&mut self.reviews, bit, &[
                ("id", id), ("pull_request_review_id", id), ("pr_id", Int(pr.id)), ("user", Str(&reviewer)), ("user_type", Str("User")),
                ("state", Str(verdict)), ("submitted_at", Str(&ts(pr.created + 300))), ("body", Str("Looks fine.")),
            ])?;
        }
        put(&mut self.comments, bit, &[
            ("id", Int(8_000_000_000 + pr.k as i64)), ("pr_id", Int(pr.id)), ("user", Str(&reviewer)), ("user_id", Int(77)),
            ("user_type", Str("User")), ("created_at", Str(&ts(pr.created + 200))), ("body", Str("A comment on the change.")),
        ])?;
        for c in 0..2 {
            let (sha, message) = (sha(pr.k, c), format!("Commit {c} of change {}", pr.k));
            put(&mut self.commits, bit, &[("sha", Str(&sha)), ("pr_id", Int(pr.id)), ("author", Str(&author)), ("committer", Str(&author)), ("message", Str(&message))])?;
        }
        self.timeline_and_task(pr, bit, agent, &reviewer, &title)
    }

    /// The PR's timeline (its first commit, a label, and its merge and close where it has
    /// them) and its task type.
    fn timeline_and_task(&mut self, pr: &Pr, bit: u64, agent: &str, reviewer: &str, title: &str) -> Result<()> {
        use Val::{Int, Null, Str};
        if self.timeline.is_some() {
            let (first, second, message) = (sha(pr.k, 0), sha(pr.k, 1), format!("Commit 0 of change {}", pr.k));
            let labeled = ts(pr.created + 100);
            let mut events: Vec<(&str, Val, Option<String>, Val, Val, Val)> =
                vec![("committed", Str(&first), None, Null, Null, Str(&message)), ("labeled", Null, Some(labeled), Str(reviewer), Str("enhancement"), Null)];
            if let Some(t) = pr.merged {
                events.push(("merged", Str(&second), Some(ts(t)), Str(reviewer), Null, Null));
            }
            if let Some(t) = pr.closed {
                events.push(("closed", Null, Some(ts(t)), Str(reviewer), Null, Null));
            }
            for (event, commit, at, actor, label, msg) in &events {
                put(&mut self.timeline, bit, &[
                    ("pr_id", Int(pr.id)), ("event", Str(event)), ("commit_id", *commit), ("created_at", opt(at)), ("actor", *actor),
                    ("assignee", Null), ("label", *label), ("message", *msg),
                ])?;
            }
        }
        put(&mut self.tasks, bit, &[
            ("agent", Str(agent)), ("id", Int(pr.id)), ("title", Str(title)), ("reason", Str("synthetic")),
            ("type", Str(TYPES[(pr.k % TYPES.len() as u64) as usize])), ("confidence", Int(8)),
        ])
    }
}

/// Commit `c` of PR `k`: 40 hex digits, unique.
fn sha(k: u64, c: u64) -> String {
    format!("{k:032x}{c:08x}")
}

/// Write the synthetic release `spec` into `out`, which must be new or empty: a release
/// written over another's tables would be told as neither.
pub fn generate(spec: &Spec, out: &Path) -> Result<Written> {
    spec.validate()?;
    refuse_non_empty(out)?;
    // Batches are built and freed all along: freed memory goes back after a second, as
    // convert's does, so the peak is the live batches, not the allocator's high-water mark.
    crate::memory::retain(crate::memory::CONVERT);
    let layout = Layout { release: spec.release, dir: out.to_path_buf(), agents: spec.agents() };
    let mut dirs = vec![out.to_path_buf()];
    if spec.release == Release::V1 {
        dirs.extend(layout.agents.iter().map(|a| out.join(a)));
    }
    for d in &dirs {
        std::fs::create_dir_all(d).map_err(|e| Error::io(d, e))?;
    }
    let shape = Shape { agents: layout.agents.clone(), repos: (spec.prs / 12).max(1), users: spec.prs / 5 + 1 };
    // Which agents' PRs each repository and developer has: v1 lists them in those agents' folders.
    let mut repo_agents = vec![0u8; shape.repos as usize];
    let mut user_agents = vec![0u8; shape.users as usize];
    let body = format!("Summary of the change.\n\n{}", "Details of what was done and why. ".repeat(12));
    let mut written = Written { prs: spec.prs, ..Written::default() };
    let mut tables = PrTables::open(&layout)?;
    let mut r = Rng(spec.seed);
    for k in 0..spec.prs {
        let pr = Pr::draw(&mut r, k, &shape);
        repo_agents[pr.repo as usize] |= 1 << pr.agent;
        user_agents[pr.author as usize] |= 1 << pr.agent;
        tables.write(&pr, shape.agents[pr.agent], &body)?;
    }
    tables.close(&mut written)?;
    repositories(&layout, &repo_agents, &mut written)?;
    users(&layout, &user_agents, &mut written)?;
    // v3's human PRs: none, but the table is there, as it tells v3 at any size.
    close(Sink::open(&layout, "human_pull_request")?, &mut written)?;
    Ok(written)
}

fn refuse_non_empty(out: &Path) -> Result<()> {
    match std::fs::read_dir(out) {
        Ok(mut entries) => match entries.next() {
            None => Ok(()),
            Some(_) => Err(Error::Usage(format!(
                "synth --aidev --out {}: not empty; write a release into a new or empty folder (another's tables beside it would make it neither)",
                out.display()
            ))),
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(Error::io(out, e)),
    }
}

/// The repositories, each in the folders of the agents with PRs in it (v1).
fn repositories(layout: &Layout, agents: &[u8], written: &mut Written) -> Result<()> {
    use Val::{Bool, Int, Str};
    let Some(mut sink) = Sink::open(layout, "repository")? else { return Ok(()) };
    for (r, &bits) in agents.iter().enumerate() {
        let r64 = r as i64;
        let (name, url) = (format!("owner{r}/repo{r}"), format!("{API}owner{r}/repo{r}"));
        sink.add(u64::from(bits), &[
            ("id", Int(500_000 + r64)), ("url", Str(&url)), ("license", Str("MIT")), ("full_name", Str(&name)), ("language", Str("Python")),
            ("forks", Int(r64 % 50)), ("stars", Int(100 + r64 % 5000)), ("is_forked", Bool(false)), ("open_issues", Int(0)),
        ])?;
    }
    close(Some(sink), written)
}

/// The developers, each in the folders of the agents whose PRs they opened (v1).
fn users(layout: &Layout, agents: &[u8], written: &mut Written) -> Result<()> {
    use Val::{Int, Str};
    let Some(mut sink) = Sink::open(layout, "user")? else { return Ok(()) };
    for (u, &bits) in agents.iter().enumerate() {
        let (n, login) = (u as i64, format!("dev{u}"));
        sink.add(u64::from(bits), &[
            ("id", Int(1_000_000 + n)), ("login", Str(&login)), ("followers", Int(n % 100)), ("following", Int(n % 10)),
            ("created_at", Str("2020-01-01T00:00:00Z")),
        ])?;
    }
    close(Some(sink), written)
}
