//! AIDev's agent PRs as hindsight evaluates them: one `create_pull_request` safe output per
//! distinct PR of an agent's `prs.csv` (workflow = the agent, actor = the PR's author), and
//! the captures a snapshot would hold of it, rebuilt from the CSV rows in GitHub's REST
//! shapes: `repos/O/R/pulls/N` from `prs.csv`, and, where the agent's folder has the
//! table, `pulls/N/reviews` (`pr_reviews.csv`), `issues/N/comments` (`pr_comments.csv`),
//! `pulls/N/commits` (`pr_commits.csv`) and `issues/N/timeline` (`pr_timelines.csv`).
//!
//! A list whose table the folder lacks is not captured, so rules that need it say so
//! (`target_exists_only` with a note, `unattributed` merges) instead of reading an empty
//! list as "nobody did anything". Each rebuilt capture names the CSV file and line it came
//! from. AIDev records no collection time: the snapshot time is the latest timestamp in the
//! PR tables (the data cannot have been collected earlier), unless one is given.

use std::collections::{HashMap, HashSet};

use serde_json::{json, Map, Value};

use super::{int, text, time, Read, Records, ALL_AGENTS, PRS};
use crate::error::Result;
use crate::runs::{Execution, Run, SafeOutput};
use crate::snapshot::spill::Runs;
use crate::snapshot::Capture;
use crate::table::Cell;
use crate::time::Instant;

/// What the importer evaluates.
#[derive(Debug, Default)]
pub struct Study {
    /// Safe outputs made (one per distinct agent PR): they went to the output sink.
    pub safe_outputs: usize,
    /// Captures rebuilt: they went to the spill sink as they were built, not into memory.
    pub captures: usize,
    pub runs: Vec<Run>,
    /// When the snapshot counts as taken, and why that time.
    pub captured_at: Option<Instant>,
    pub captured_at_basis: String,
    /// PR rows repeating another row of the same file exactly (kept in
    /// `aidev_pull_requests`, one safe output per id; rows that share an id or a
    /// repository and number but differ are quarantined by the reader).
    pub duplicate_prs: usize,
    /// Exact repeats of a timeline row of the same PR (kept in `aidev_pr_timeline`, once in
    /// the rebuilt timeline).
    pub duplicate_events: usize,
    /// Review, comment, commit and timeline rows whose `pr_id` is not in the folder's
    /// `prs.csv` (kept in their tables; attached to no PR).
    pub orphan_rows: usize,
    /// PRs whose repository could not be read from `repo_url` or `html_url`.
    pub without_repo: usize,
    /// PR rows with no id (kept in `aidev_pull_requests`, no safe output).
    pub(crate) without_id: usize,
}

/// Where the safe outputs go as they are made: a `Vec` in tests, the dataset's
/// `safe_outputs` table on import ([`super::outputs::Outputs`]), so no study holds them all.
pub trait OutputSink {
    fn push(&mut self, o: SafeOutput<'static>) -> Result<()>;
}

impl OutputSink for Vec<SafeOutput<'static>> {
    fn push(&mut self, o: SafeOutput<'static>) -> Result<()> {
        Vec::push(self, o);
        Ok(())
    }
}

impl Study {
    /// When the snapshot counts as taken: `given`, else the latest time in the PR tables.
    pub(crate) fn set_captured_at(&mut self, given: Option<Instant>, latest: Option<Instant>) {
        (self.captured_at, self.captured_at_basis) = match given {
            Some(t) => (Some(t), "given (--captured-at)".into()),
            None => (latest, "the latest timestamp in the PR tables (AIDev records no collection time; give --captured-at to set it)".into()),
        };
    }
}

/// The safe output id of an AIDev PR.
pub(crate) fn output_id(agent: &str, pr_id: i64) -> String {
    format!("aidev:{agent}:{pr_id}")
}

/// The run id of an agent's PRs.
pub(crate) fn run_id(agent: &str) -> String {
    format!("{RUN_PREFIX}{agent}")
}

/// What every AIDev run id starts with (the bundled `aidev/*` queries select on it too).
const RUN_PREFIX: &str = "aidev:";

/// Whether a run id is an AIDev agent's (one "run" holding every PR of the agent).
pub fn is_run_id(run_id: &str) -> bool {
    run_id.starts_with(RUN_PREFIX)
}

/// The rows of a per-PR table, grouped by `pr_id` in file order.
struct ByPr<'a> {
    source: &'static super::Source,
    origin: String,
    rows: HashMap<i64, Vec<(&'a Vec<Cell>, usize)>>,
}

impl<'a> ByPr<'a> {
    fn new(r: Option<&'a Records>) -> Option<ByPr<'a>> {
        let r = r?;
        let col = r.source.col("pr_id");
        let mut rows: HashMap<i64, Vec<(&Vec<Cell>, usize)>> = HashMap::new();
        for (row, line) in r.rows.iter().zip(&r.lines) {
            if let Some(id) = int(&row[col]) {
                rows.entry(id).or_default().push((row, *line));
            }
        }
        Some(ByPr { source: r.source, origin: r.origin.clone(), rows })
    }

    /// The rows of PR `id` and the line of the first, with a cell getter by column name.
    fn of(&self, id: i64) -> (&[(&'a Vec<Cell>, usize)], Option<usize>) {
        let rows = self.rows.get(&id).map(Vec::as_slice).unwrap_or_default();
        (rows, rows.first().map(|r| r.1))
    }

    fn file(&self) -> &str {
        &self.origin
    }
}

fn login(v: Option<&str>) -> Value {
    match v {
        Some(l) => json!({ "login": l }),
        None => Value::Null,
    }
}

fn ts(c: &Cell) -> Value {
    time(c).map(|t| Value::String(crate::time::format(&t))).unwrap_or(Value::Null)
}

fn st(c: &Cell) -> Value {
    text(c).map(|s| Value::String(s.to_string())).unwrap_or(Value::Null)
}

/// An object without its null members (GitHub omits nothing, but a null here means the CSV
/// had nothing, which the readers treat alike).
fn object(pairs: Vec<(&str, Value)>) -> Value {
    let mut m = Map::new();
    for (k, v) in pairs {
        if !v.is_null() {
            m.insert(k.to_string(), v);
        }
    }
    Value::Object(m)
}

/// The repository of a `prs.csv` row: its `repo_url`'s, else its `html_url`'s. The reader
/// checks PR identities (repository and number) with this same function.
pub(crate) fn pr_repo(prs: &super::Source, row: &[Cell]) -> Option<String> {
    let url = |name: &str| text(&row[prs.col(name)]).and_then(|u| crate::snapshot::paths::parse_url(u).repo);
    url("repo_url").or_else(|| url("html_url"))
}

/// The accounts of an agent folder that are the agent's own, decided from the data rather
/// than from a list of names: a login GitHub marks as an app's (`[bot]`, or an agent
/// account GitHub does not always mark, such as `Copilot`), or one account that opened PRs
/// in more than half of the folder's repositories (at least three): the same account acting
/// across unrelated projects is a service, not a person. Every other author is the person
/// who ran the agent, whose account it opened the PR under (the requester).
fn agent_accounts(prs: &Records) -> HashSet<String> {
    let pairs = prs.rows.iter().filter_map(|row| Some((text(&row[prs.source.col("user")])?.to_lowercase(), pr_repo(prs.source, row)?.to_lowercase())));
    own_accounts(pairs, |login| crate::snapshot::github::is_bot_login(login))
}

/// The logins of (login, repository) pairs, both lowercase, of one agent's PR rows, that are
/// the agent's own ([`agent_accounts`]); logins and repositories of any type that names them
/// (the streaming import's are interned numbers).
pub(crate) fn own_accounts<K: std::hash::Hash + Eq + Clone>(pairs: impl Iterator<Item = (K, K)>, is_bot: impl Fn(&K) -> bool) -> HashSet<K> {
    let mut repos_by_login: HashMap<K, HashSet<K>> = HashMap::new();
    let mut all_repos: HashSet<K> = HashSet::new();
    for (login, repo) in pairs {
        all_repos.insert(repo.clone());
        repos_by_login.entry(login).or_default().insert(repo);
    }
    repos_by_login.into_iter().filter(|(login, repos)| is_bot(login) || (repos.len() >= 3 && repos.len() * 2 > all_repos.len())).map(|(login, _)| login).collect()
}

/// The latest time in the PR tables: a lower bound on when AIDev was collected.
fn latest_time(read: &Read) -> Option<Instant> {
    let mut latest: Option<Instant> = None;
    for r in read.tables.iter().filter(|r| matches!(r.source.file, "prs.csv" | "pr_reviews.csv" | "pr_comments.csv" | "pr_timelines.csv")) {
        for row in &r.rows {
            for c in row {
                if let Some(t) = time(c) {
                    latest = Some(latest.map_or(t, |l| l.max(t)));
                }
            }
        }
    }
    latest
}

/// Build the safe outputs and runs of every agent's PRs; each PR's captures go to `sink`
/// as they are built (convert's spill sink, which sorts them as convert orders a snapshot
/// and holds a bounded number of bytes of them).
pub fn build(read: &Read, captured_at: Option<Instant>, sink: &mut Runs, outputs: &mut dyn OutputSink) -> Result<Study> {
    let mut study = Study::default();
    study.set_captured_at(captured_at, latest_time(read));
    // The reader quarantined every PR whose repository and number another row of a
    // prs.csv claims too, so no path is built twice from different PRs.
    let before = sink.count;
    for agent in ALL_AGENTS {
        let Some(prs) = read.of(agent, PRS) else { continue };
        add_agent(&mut study, sink, outputs, read, agent, prs)?;
    }
    study.captures = sink.count - before;
    Ok(study)
}

/// An agent folder's per-PR tables, grouped by PR.
struct PrTables<'a> {
    reviews: Option<ByPr<'a>>,
    comments: Option<ByPr<'a>>,
    commits: Option<ByPr<'a>>,
    timeline: Option<ByPr<'a>>,
}

/// One agent's PRs: a run holding one safe output per PR, and each PR's captures; rows
/// without an id, repeated PRs and per-PR rows of no PR are counted.
fn add_agent(study: &mut Study, sink: &mut Runs, outputs: &mut dyn OutputSink, read: &Read, agent: &'static str, prs: &Records) -> Result<()> {
    let tables = PrTables {
        reviews: ByPr::new(read.of(agent, "pr_reviews.csv")),
        comments: ByPr::new(read.of(agent, "pr_comments.csv")),
        commits: ByPr::new(read.of(agent, "pr_commits.csv")),
        timeline: ByPr::new(read.of(agent, "pr_timelines.csv")),
    };
    let file = prs.origin.clone();
    let c = |name: &str| prs.source.col(name);
    let mut seen: HashSet<i64> = HashSet::new();
    let agent_own = agent_accounts(prs);
    let mut run = Run { run_id: run_id(agent), run_id_source: "aidev", workflow_name: Some(agent.to_string()), dir: agent.to_string(), ..Run::default() };
    for (row, &line) in prs.rows.iter().zip(&prs.lines) {
        let Some(id) = int(&row[c("id")]) else {
            // No id: nothing to name the output by; the row stays in aidev_pull_requests.
            study.without_id += 1;
            continue;
        };
        if !seen.insert(id) {
            study.duplicate_prs += 1;
            continue;
        }
        let number = int(&row[c("number")]);
        let repo = pr_repo(prs.source, row);
        if repo.is_none() {
            study.without_repo += 1;
        }
        let item_index = run.executed_items as i64;
        run.executed_items += 1;
        run.requested_items += 1;
        outputs.push(pr_output(prs.source, &prs.origin, row, agent, id, repo.clone(), item_index, line))?;
        study.safe_outputs += 1;
        let (Some(repo), Some(n)) = (repo, number) else { continue };
        let base = format!("repos/{repo}");
        sink.push(capture(format!("{base}/pulls/{n}"), &pull(prs.source, row, id, n, &|l| agent_own.contains(l)), &file, Some(line)))?;
        add_pr_lists(study, sink, &tables, id, &base, n)?;
    }
    for g in [&tables.reviews, &tables.comments, &tables.commits, &tables.timeline].into_iter().flatten() {
        study.orphan_rows += g.rows.iter().filter(|(id, _)| !seen.contains(id)).map(|(_, rows)| rows.len()).sum::<usize>();
    }
    study.runs.push(run);
    Ok(())
}

/// The safe output a `prs.csv` row stands for: the agent opened that pull request.
#[allow(clippy::too_many_arguments)]
pub(crate) fn pr_output(prs: &super::Source, origin: &str, row: &[Cell], agent: &str, id: i64, repo: Option<String>, item_index: i64, line: usize) -> SafeOutput<'static> {
    let c = |name: &str| prs.col(name);
    let number = int(&row[c("number")]);
    let author = text(&row[c("user")]);
    let payload = crate::json::canonical(&json!({
        "type": "create_pull_request",
        "title": st(&row[c("title")]),
        "repo": repo,
        "number": number,
        "aidev_pr_id": id,
    }));
    SafeOutput {
        safe_output_id: output_id(agent, id).into(),
        run_id: run_id(agent).into(),
        item_index,
        workflow_name: Some(agent.to_string().into()),
        output_type: "create_pull_request".into(),
        execution: Execution::Executed,
        target_repo: repo.map(Into::into),
        target_kind: Some("pull_request".into()),
        target_number: number,
        target_comment_id: None,
        target_url: text(&row[c("html_url")]).map(|u| u.to_string().into()),
        target_node_id: None,
        target_source: Some("aidev".into()),
        temporary_id: None,
        actor: author.map(|a| a.to_string().into()),
        run_actor: None,
        created_at: time(&row[c("created_at")]),
        payload_hash: crate::json::sha256_hex(payload.as_bytes()).into(),
        patch_hash: None,
        base_ref: None,
        head_ref: None,
        payload: payload.into(),
        expected_state: "{}".into(),
        before_state: None,
        after_state: None,
        staged: false,
        source_format: "aidev".into(),
        source_file: origin.to_string().into(),
        source_line: line as i64,
    }
}

/// The pull request's own capture body (`repos/{repo}/pulls/{n}`), its author typed as the
/// agent's account or a person's.
pub(crate) fn pull(prs: &super::Source, row: &[Cell], id: i64, n: i64, agent_own: &dyn Fn(&str) -> bool) -> Value {
    let c = |name: &str| prs.col(name);
    let author = text(&row[c("user")]);
    let merged_at = &row[c("merged_at")];
    object(vec![
        ("number", json!(n)),
        ("id", json!(id)),
        ("title", st(&row[c("title")])),
        ("state", st(&row[c("state")])),
        (
            "user",
            object(vec![
                ("login", author.map(Value::from).unwrap_or(Value::Null)),
                // The account type the evaluator reads: the agent's own account, or a
                // person's (see `agent_accounts`).
                ("type", author.map(|a| Value::from(if agent_own(&a.to_lowercase()) { "Bot" } else { "User" })).unwrap_or(Value::Null)),
                ("id", int(&row[c("user_id")]).map(Value::from).unwrap_or(Value::Null)),
            ]),
        ),
        ("created_at", ts(&row[c("created_at")])),
        ("closed_at", ts(&row[c("closed_at")])),
        ("merged_at", ts(merged_at)),
        ("merged", Value::Bool(time(merged_at).is_some())),
        ("html_url", text(&row[c("html_url")]).map(Value::from).unwrap_or(Value::Null)),
    ])
}

/// A per-PR table rebuilt as the list capture GitHub would have answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum List {
    Reviews,
    Comments,
    Commits,
    Timeline,
}

impl List {
    pub(crate) const ALL: [List; 4] = [List::Reviews, List::Comments, List::Commits, List::Timeline];

    /// The v1 table ([`super::Source::file`]) the list is rebuilt from.
    pub(crate) fn file(self) -> &'static str {
        match self {
            List::Reviews => "pr_reviews.csv",
            List::Comments => "pr_comments.csv",
            List::Commits => "pr_commits.csv",
            List::Timeline => "pr_timelines.csv",
        }
    }

    pub(crate) fn of_file(file: &str) -> Option<List> {
        List::ALL.into_iter().find(|l| l.file() == file)
    }

    /// The list's path under `repos/{repo}`.
    pub(crate) fn path(self, base: &str, n: i64) -> String {
        match self {
            List::Reviews => format!("{base}/pulls/{n}/reviews"),
            List::Comments => format!("{base}/issues/{n}/comments"),
            List::Commits => format!("{base}/pulls/{n}/commits"),
            List::Timeline => format!("{base}/issues/{n}/timeline"),
        }
    }

    /// Whether `path` is this list's (`.../pulls/N/reviews`, ...).
    pub(crate) fn ends(self, path: &str) -> bool {
        let tail = match self {
            List::Reviews => "/reviews",
            List::Comments => "/comments",
            List::Commits => "/commits",
            List::Timeline => "/timeline",
        };
        path.ends_with(tail)
    }

    /// One row as the list's item, its fields read by column name through `f`.
    pub(crate) fn item<'a>(self, f: &dyn Fn(&str) -> &'a Cell) -> Value {
        let id = |f: &dyn Fn(&str) -> &'a Cell| int(f("id")).map(Value::from).unwrap_or(Value::Null);
        match self {
            List::Reviews => {
                object(vec![("id", id(f)), ("user", login(text(f("user")))), ("state", st(f("state"))), ("submitted_at", ts(f("submitted_at"))), ("body", st(f("body")))])
            }
            List::Comments => object(vec![("id", id(f)), ("user", login(text(f("user")))), ("created_at", ts(f("created_at"))), ("body", st(f("body")))]),
            List::Commits => object(vec![
                ("sha", st(f("sha"))),
                ("author", login(text(f("author")))),
                ("committer", login(text(f("committer")))),
                ("commit", object(vec![("message", st(f("message")))])),
            ]),
            List::Timeline => {
                let event = text(f("event"));
                let commit = st(f("commit_id"));
                object(vec![
                    ("event", st(f("event"))),
                    ("created_at", ts(f("created_at"))),
                    ("actor", login(text(f("actor")))),
                    ("commit_id", commit.clone()),
                    ("sha", if event == Some("committed") { commit } else { Value::Null }),
                    ("assignee", login(text(f("assignee")))),
                    ("label", text(f("label")).map(|l| json!({ "name": l })).unwrap_or(Value::Null)),
                    ("message", st(f("message"))),
                ])
            }
        }
    }
}

/// The PR's reviews, comments, commits and timeline as the list captures GitHub would
/// have answered.
fn add_pr_lists(study: &mut Study, sink: &mut Runs, tables: &PrTables, id: i64, base: &str, n: i64) -> Result<()> {
    for (list, g) in [(List::Reviews, &tables.reviews), (List::Comments, &tables.comments), (List::Commits, &tables.commits), (List::Timeline, &tables.timeline)] {
        let Some(g) = g else { continue };
        let (rows, first) = g.of(id);
        let mut seen_events: HashSet<String> = HashSet::new();
        let mut body: Vec<String> = Vec::with_capacity(rows.len());
        for (r, _) in rows {
            let item = list.item(&|name: &str| &r[g.source.col(name)]).to_string();
            // An exact repeat of a timeline row says nothing new (AIDev has some).
            if list == List::Timeline && !seen_events.insert(item.clone()) {
                study.duplicate_events += 1;
                continue;
            }
            body.push(item);
        }
        sink.push(list_capture(list.path(base, n), &body, g.file(), first))?;
    }
    Ok(())
}

/// A list capture of items already written as JSON: `[a,b]`, as serde writes an array.
pub(crate) fn list_capture(path: String, items: &[String], file: &str, line: Option<usize>) -> Capture {
    let mut body = String::with_capacity(items.iter().map(|i| i.len() + 1).sum::<usize>() + 2);
    body.push('[');
    for (k, i) in items.iter().enumerate() {
        if k > 0 {
            body.push(',');
        }
        body.push_str(i);
    }
    body.push(']');
    Capture { path, status: 200, page: 1, captured_at: None, body, file: file.to_string(), line, superseded_by: None }
}

pub(crate) fn capture(path: String, body: &Value, file: &str, line: Option<usize>) -> Capture {
    Capture { path, status: 200, page: 1, captured_at: None, body: body.to_string(), file: file.to_string(), line, superseded_by: None }
}
