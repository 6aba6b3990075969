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
    pub outputs: Vec<SafeOutput<'static>>,
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

    /// The capture at `path` of PR `id`'s rows, each made a list item by `item`, which reads
    /// the row's fields by column name.
    fn list(&self, id: i64, path: String, item: impl Fn(&dyn Fn(&str) -> &'a Cell) -> Value) -> Capture {
        let (rows, first) = self.of(id);
        let body: Vec<Value> = rows.iter().map(|(r, _)| item(&|name: &str| &r[self.source.col(name)])).collect();
        capture(path, &Value::Array(body), self.file(), first)
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
    let mut repos_by_login: HashMap<String, HashSet<String>> = HashMap::new();
    let mut all_repos: HashSet<String> = HashSet::new();
    for row in &prs.rows {
        let (Some(login), Some(repo)) = (text(&row[prs.source.col("user")]), pr_repo(prs.source, row)) else { continue };
        let repo = repo.to_lowercase();
        all_repos.insert(repo.clone());
        repos_by_login.entry(login.to_lowercase()).or_default().insert(repo);
    }
    repos_by_login
        .into_iter()
        .filter(|(login, repos)| crate::snapshot::github::is_bot_login(login) || (repos.len() >= 3 && repos.len() * 2 > all_repos.len()))
        .map(|(login, _)| login)
        .collect()
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
pub fn build(read: &Read, captured_at: Option<Instant>, sink: &mut Runs) -> Result<Study> {
    let mut study = Study::default();
    match captured_at {
        Some(t) => {
            study.captured_at = Some(t);
            study.captured_at_basis = "given (--captured-at)".into();
        }
        None => {
            study.captured_at = latest_time(read);
            study.captured_at_basis = "the latest timestamp in the PR tables (AIDev records no collection time; give --captured-at to set it)".into();
        }
    }
    // The reader quarantined every PR whose repository and number another row of a
    // prs.csv claims too, so no path is built twice from different PRs.
    let before = sink.count;
    for agent in ALL_AGENTS {
        let Some(prs) = read.of(agent, PRS) else { continue };
        add_agent(&mut study, sink, read, agent, prs)?;
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
fn add_agent(study: &mut Study, sink: &mut Runs, read: &Read, agent: &'static str, prs: &Records) -> Result<()> {
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
        study.outputs.push(pr_output(prs, row, agent, id, repo.clone(), item_index, line));
        let (Some(repo), Some(n)) = (repo, number) else { continue };
        let base = format!("repos/{repo}");
        sink.push(capture(format!("{base}/pulls/{n}"), &pull(prs, row, id, n, &agent_own), &file, Some(line)))?;
        add_pr_lists(study, sink, &tables, id, &base, n)?;
    }
    for g in [&tables.reviews, &tables.comments, &tables.commits, &tables.timeline].into_iter().flatten() {
        study.orphan_rows += g.rows.iter().filter(|(id, _)| !seen.contains(id)).map(|(_, rows)| rows.len()).sum::<usize>();
    }
    study.runs.push(run);
    Ok(())
}

/// The safe output a `prs.csv` row stands for: the agent opened that pull request.
fn pr_output(prs: &Records, row: &[Cell], agent: &str, id: i64, repo: Option<String>, item_index: i64, line: usize) -> SafeOutput<'static> {
    let c = |name: &str| prs.source.col(name);
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
        source_file: prs.origin.clone().into(),
        source_line: line as i64,
    }
}

/// The pull request's own capture body (`repos/{repo}/pulls/{n}`), its author typed as the
/// agent's account or a person's.
fn pull(prs: &Records, row: &[Cell], id: i64, n: i64, agent_own: &HashSet<String>) -> Value {
    let c = |name: &str| prs.source.col(name);
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
                ("type", author.map(|a| Value::from(if agent_own.contains(&a.to_lowercase()) { "Bot" } else { "User" })).unwrap_or(Value::Null)),
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

/// The PR's reviews, comments, commits and timeline as the list captures GitHub would
/// have answered.
fn add_pr_lists(study: &mut Study, sink: &mut Runs, tables: &PrTables, id: i64, base: &str, n: i64) -> Result<()> {
    if let Some(g) = &tables.reviews {
        sink.push(g.list(id, format!("{base}/pulls/{n}/reviews"), |f| {
            object(vec![
                ("id", int(f("id")).map(Value::from).unwrap_or(Value::Null)),
                ("user", login(text(f("user")))),
                ("state", st(f("state"))),
                ("submitted_at", ts(f("submitted_at"))),
                ("body", st(f("body"))),
            ])
        }))?;
    }
    if let Some(g) = &tables.comments {
        sink.push(g.list(id, format!("{base}/issues/{n}/comments"), |f| {
            object(vec![
                ("id", int(f("id")).map(Value::from).unwrap_or(Value::Null)),
                ("user", login(text(f("user")))),
                ("created_at", ts(f("created_at"))),
                ("body", st(f("body"))),
            ])
        }))?;
    }
    if let Some(g) = &tables.commits {
        sink.push(g.list(id, format!("{base}/pulls/{n}/commits"), |f| {
            object(vec![
                ("sha", st(f("sha"))),
                ("author", login(text(f("author")))),
                ("committer", login(text(f("committer")))),
                ("commit", object(vec![("message", st(f("message")))])),
            ])
        }))?;
    }
    if let Some(g) = &tables.timeline {
        let capture = timeline(g, id, format!("{base}/issues/{n}/timeline"), &mut study.duplicate_events);
        sink.push(capture)?;
    }
    Ok(())
}

/// The PR's timeline capture: one event per row, exact repeats of a row counted and dropped.
fn timeline(g: &ByPr, id: i64, path: String, duplicate_events: &mut usize) -> Capture {
    let (rows, first) = g.of(id);
    let k = |name: &str| g.source.col(name);
    let mut seen_events: HashSet<String> = HashSet::new();
    let mut body: Vec<Value> = Vec::with_capacity(rows.len());
    for (r, _) in rows {
        let event = text(&r[k("event")]);
        let commit = st(&r[k("commit_id")]);
        let e = object(vec![
            ("event", st(&r[k("event")])),
            ("created_at", ts(&r[k("created_at")])),
            ("actor", login(text(&r[k("actor")]))),
            ("commit_id", commit.clone()),
            ("sha", if event == Some("committed") { commit } else { Value::Null }),
            ("assignee", login(text(&r[k("assignee")]))),
            ("label", text(&r[k("label")]).map(|l| json!({ "name": l })).unwrap_or(Value::Null)),
            ("message", st(&r[k("message")])),
        ]);
        // An exact repeat of a row says nothing new (AIDev has some).
        if !seen_events.insert(e.to_string()) {
            *duplicate_events += 1;
            continue;
        }
        body.push(e);
    }
    capture(path, &Value::Array(body), g.file(), first)
}

fn capture(path: String, body: &Value, file: &str, line: Option<usize>) -> Capture {
    Capture { path, status: 200, page: 1, captured_at: None, body: body.to_string(), file: file.to_string(), line, superseded_by: None }
}
