//! `hindsight capture`: the one networked command. It makes the snapshot a study's runs
//! need, asking GitHub only for what the rules look up.
//!
//! What to request is asked of the rules themselves, never of a list kept beside them: each
//! rule declares the paths it reads for an output ([`crate::evaluate::rules::reads`]), some
//! of them only once what they depend on is captured; the paths not yet captured are
//! requested, and the loop goes on until the rules ask for nothing new (a PR's merge commit
//! names the comparisons a push needs...). The repository
//! itself and the lists revert detection reads (`commits` since the earliest action, closed
//! `pulls`) are requested for every target repository. `--plan` evaluates against a
//! snapshot on disk (or none) and prints the requests as `gh api` lines, offline.
//!
//! GraphQL-only state (`graphql/...` paths: discussions, review threads, minimized
//! comments, projects) is asked for with the queries in [`graphql`]; a minimized comment's
//! REST capture is taken first, for its node id.

pub(crate) mod graphql;
pub mod http;
pub mod store;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::error::{Error, Result};
use crate::evaluate::rules;
use crate::runs::SafeOutput;
use crate::snapshot::{plan, SnapshotIndex};
use plan::capturable;

pub const DEFAULT_API: &str = "https://api.github.com";

/// What `capture` is asked to do.
#[derive(Clone, Debug)]
pub struct Options {
    pub runs: PathBuf,
    pub out: PathBuf,
    pub api_url: String,
    pub concurrency: usize,
    /// Ask again for what is captured, conditionally (ETag): unchanged answers are not
    /// downloaded again, and every line gets the new time.
    pub refresh: bool,
    pub max_pages: usize,
    pub retry: http::Retry,
}

/// The most rounds of "ask the rules, then fetch what they read": each round goes one step
/// further down what the rules read (a PR, then the commits and comparisons it names).
const MAX_ROUNDS: usize = 8;

/// What a capture did.
#[derive(Debug, Default)]
pub struct Captured {
    pub rounds: usize,
    pub requests: u64,
    /// Paths fetched in this run, and of them those whose answer was not 2xx, 404 or 410.
    pub fetched: usize,
    pub failed: Vec<(String, u16)>,
    /// Paths answered 304 (unchanged since the last capture).
    pub unchanged: usize,
    /// Paths already captured by an earlier run, not asked for again.
    pub resumed: usize,
    /// Paths the rules read that capture cannot ask for (GraphQL).
    pub not_captured: Vec<String>,
    /// Bytes of an interrupted group cut off the cassette.
    pub cut: u64,
}

/// The token: `GITHUB_TOKEN`, `GH_TOKEN`, else what `gh auth token` prints. One that could
/// not be sent in a header (a control character such as CR or LF, or a character outside
/// visible ASCII) is refused here, naming where it came from and never showing it.
pub fn token() -> Result<Option<String>> {
    for v in ["GITHUB_TOKEN", "GH_TOKEN"] {
        if let Ok(t) = std::env::var(v) {
            if !t.trim().is_empty() {
                return checked_token(t.trim(), v).map(Some);
            }
        }
    }
    let Some(out) = std::process::Command::new("gh").args(["auth", "token"]).stderr(std::process::Stdio::null()).output().ok() else { return Ok(None) };
    let Ok(t) = String::from_utf8(out.stdout) else { return Ok(None) };
    let t = t.trim();
    if !out.status.success() || t.is_empty() {
        return Ok(None);
    }
    checked_token(t, "`gh auth token`").map(Some)
}

/// `token` when every character is visible ASCII, as an HTTP header value needs.
fn checked_token(token: &str, source: &str) -> Result<String> {
    match token.chars().position(|c| !c.is_ascii_graphic()) {
        None => Ok(token.to_string()),
        Some(at) => Err(Error::Usage(format!(
            "the token in {source} holds a character an HTTP header cannot carry (a control character, a space or non-ASCII, at character {}): it is not sent; set it again",
            at + 1
        ))),
    }
}

fn outputs(runs: &Path) -> Result<Vec<SafeOutput<'static>>> {
    if !runs.is_dir() {
        return Err(Error::Layout { path: runs.to_path_buf(), message: "--runs must be a directory".into() });
    }
    Ok(crate::runs::read(runs)?.outputs)
}

/// The paths the rules read for `outputs`, asked of them ([`rules::reads`]) given what is
/// captured so far (`rows`).
fn rules_read(outputs: &[SafeOutput], rows: Vec<crate::snapshot::CaptureRow>) -> BTreeSet<String> {
    let index = SnapshotIndex::build(rows);
    // Derived once for every output (a repository's reverts), not once per output.
    let facts = crate::evaluate::repository::RepositoryFacts::default();
    use rayon::prelude::*;
    outputs
        .par_iter()
        .flat_map_iter(|o| {
            let repo = o.target_repo.as_deref();
            rules::reads(o, &index, &facts).into_iter().filter_map(move |r| r.path(repo))
        })
        .collect()
}

/// The repository-level requests of every target repository: the repository, its commits
/// since the earliest action (a day before, for clocks), its closed pull requests.
fn repository_requests(outputs: &[SafeOutput]) -> BTreeMap<String, String> {
    let mut earliest: BTreeMap<&str, Option<crate::time::Instant>> = BTreeMap::new();
    for o in outputs {
        if let Some(r) = o.target_repo.as_deref() {
            let e = earliest.entry(r).or_insert(o.created_at);
            *e = match (*e, o.created_at) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
        }
    }
    let mut out = BTreeMap::new();
    for (repo, at) in earliest {
        // The paths evaluate counts as planned too (`plan::repository_paths`).
        let [repository, commits, pulls] = plan::repository_paths(repo);
        let since = at.map(|t| format!("&since={}", crate::time::format(&(t - chrono::Duration::days(1))))).unwrap_or_default();
        out.insert(repository.clone(), repository);
        out.insert(commits.clone(), format!("{commits}?per_page=100{since}"));
        out.insert(pulls.clone(), format!("{pulls}?state=closed&sort=updated&direction=desc&per_page=100"));
    }
    out
}

/// One request to make.
enum Job {
    Rest { request: String, etag: Option<String> },
    Graphql(Vec<graphql::Query>),
}

/// The request for a looked-up path: a tree with every folder below it (`recursive=1`: the
/// dependents of a PR's changed files need the whole repository's paths), any other path
/// with the largest pages.
fn request_of(path: &str) -> String {
    match path.contains("/git/trees/") {
        true => format!("{path}?recursive=1"),
        false => format!("{path}?per_page=100"),
    }
}

/// `capture --plan`: the requests a capture would make, as (path, request), and the paths
/// the rules need that capture does not ask for (GraphQL). With a snapshot, the rules are
/// answered by it, so the plan holds every path whose content the evaluation uses (read,
/// or the source of a derived copy or of a revert); without one, only what
/// the runs alone tell (a capture goes further as answers arrive).
pub fn plan(runs: &Path, snapshot: Option<&Path>) -> Result<Plan> {
    let outputs = outputs(runs)?;
    let rows: Vec<crate::snapshot::CaptureRow> = match snapshot {
        Some(dir) => read_snapshot(dir)?,
        None => Vec::new(),
    };
    Ok(plan_of(&outputs, rows))
}

/// The plan for `outputs`, the rules answered by the captures `rows`.
fn plan_of(outputs: &[SafeOutput], rows: Vec<crate::snapshot::CaptureRow>) -> Plan {
    let mut planned: BTreeMap<String, String> = repository_requests(outputs);
    let (mut gql, mut elsewhere) = (BTreeSet::new(), BTreeSet::new());
    for p in rules_read(outputs, rows) {
        if capturable(&p) {
            planned.entry(p.clone()).or_insert_with(|| request_of(&p));
        } else if graphql::GraphqlPath::parse(&p).is_some() {
            // A comment's node id comes from its REST capture, taken first.
            for r in graphql::comment_rest_paths(&p) {
                planned.entry(r.clone()).or_insert_with(|| request_of(&r));
            }
            gql.insert(p);
        } else {
            elsewhere.insert(p);
        }
    }
    Plan { requests: planned.into_iter().collect(), graphql: gql.into_iter().collect(), elsewhere: elsewhere.into_iter().collect() }
}

/// What the dashboard says of a dataset's snapshot: the capture plan's counts evaluate
/// recorded in the manifest (`capture_coverage`: the plan `capture --plan --snapshot` makes
/// for its outputs, against the captures with an answer), read from there alone. An AIDev
/// import rebuilds its captures from its tables, so no plan applies; a dataset evaluated
/// before the counts were kept is said to have none, never counted here: that would read
/// every capture again.
pub fn coverage(dataset: &Path) -> Result<crate::report::Coverage> {
    Ok(coverage_of(crate::dataset::manifest::Manifest::load(dataset)?))
}

/// [`coverage`] as the manifest `m` records it, wherever the dataset is.
pub fn coverage_of(m: crate::dataset::manifest::Manifest) -> crate::report::Coverage {
    use crate::report::Coverage;
    if m.tables.contains_key(crate::aidev::PR_TABLE) {
        return Coverage::NotPlanned(
            "capture coverage is not checked on an AIDev import: its captures are rebuilt from the dataset's own tables, so every one the rules read is there".into(),
        );
    }
    let Some(c) = m.capture_coverage else {
        // Only a dataset of this format with outcomes could have had them counted.
        let evaluated = m.format_version() >= crate::dataset::manifest::FORMAT_VERSION && m.tables.contains_key("outcomes");
        return match evaluated {
            true => Coverage::NotPlanned(NOT_RECORDED.into()),
            false => Coverage::Whole,
        };
    };
    let n = |v: u64| usize::try_from(v).unwrap_or(usize::MAX);
    if c.present >= c.planned {
        return Coverage::Whole;
    }
    Coverage::Missing { planned: n(c.planned), present: n(c.present), kinds: c.missing_by_kind.into_iter().map(|(k, v)| (k, n(v))).collect() }
}

/// The dashboard's note on a dataset evaluated without the capture plan's counts.
const NOT_RECORDED: &str = "capture coverage not recorded (evaluated by an older hindsight): re-run `hindsight evaluate` to count it";

/// What `--plan` prints.
pub struct Plan {
    /// (path, request with its query).
    pub(crate) requests: Vec<(String, String)>,
    /// GraphQL paths, asked for with the queries of [`graphql`].
    pub(crate) graphql: Vec<String>,
    /// Paths the rules read that capture cannot ask for.
    pub(crate) elsewhere: Vec<String>,
}

/// Bytes of captures `--plan` holds in memory before it spills a sorted run to disk.
const PLAN_CAPTURES_HELD_BYTES: usize = 256 << 20;

/// The captures of a snapshot directory (the copies in use), for `--plan`.
fn read_snapshot(dir: &Path) -> Result<Vec<crate::snapshot::CaptureRow>> {
    let spill = tempfile_dir()?;
    let scan = crate::snapshot::scan(dir, &spill, PLAN_CAPTURES_HELD_BYTES)?;
    let mut merge = scan.runs.merge()?;
    let mut out = Vec::new();
    loop {
        let batch = merge.next_batch(64 << 20)?;
        if batch.is_empty() {
            break;
        }
        out.extend(batch.into_iter().filter(|c| c.superseded_by.is_none()).map(|c| (c.path, c.page, c.status, c.captured_at, c.body)));
    }
    let _ = std::fs::remove_dir_all(&spill);
    Ok(out)
}

fn tempfile_dir() -> Result<PathBuf> {
    let p = std::env::temp_dir().join(format!("hindsight-plan-{}", std::process::id()));
    std::fs::create_dir_all(&p).map_err(|e| Error::io(&p, e))?;
    Ok(p)
}

/// The plan as `gh api` lines a user can run.
pub fn render_plan(plan: &Plan) -> String {
    let planned = &plan.requests;
    let mut s = String::new();
    s.push_str(&format!("# {} requests; each answer goes in a cassette line {{\"path\": PATH, \"status\": S, \"body\": ...}}\n", planned.len()));
    for (path, request) in planned {
        s.push_str(&format!("gh api -H 'Accept: {}' -H 'X-GitHub-Api-Version: {}' --paginate '{}'   # {path}\n", http::ACCEPT, http::API_VERSION, request));
    }
    for g in &plan.graphql {
        s.push_str(&format!(
            "# graphql: {g} (POST {{query, variables}} to /graphql; the queries are in src/capture/graphql.rs, the shapes in schemas/graphql.md)\n"
        ));
    }
    for g in &plan.elsewhere {
        s.push_str(&format!("# not asked for by hindsight capture (not a repository path): {g}\n"));
    }
    s
}

/// One capture per snapshot directory at a time: an OS lock on `.NAME.lock` beside it,
/// released however the process ends. `out` is the canonical path (see [`resolve_out`]), so
/// a symlink to the directory or a path through `..` finds the same lock.
fn lock(out: &Path) -> Result<std::fs::File> {
    let name = out.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_else(|| "snapshot".into());
    let parent = out.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent).map_err(|e| Error::io(parent, e))?;
    let path = parent.join(format!(".{name}.lock"));
    let f = std::fs::OpenOptions::new().create(true).truncate(false).write(true).open(&path).map_err(|e| Error::io(&path, e))?;
    match f.try_lock() {
        Ok(()) => Ok(f),
        Err(std::fs::TryLockError::WouldBlock) => {
            Err(Error::Usage(format!("{}: another hindsight capture is writing this snapshot; wait for it to finish", out.display())))
        }
        Err(std::fs::TryLockError::Error(e)) => Err(Error::io(&path, e)),
    }
}

/// The snapshot directory as one path whatever way it was typed: created when absent, then
/// canonical (symlinks and `..` resolved). The lock and every file are taken from it.
fn resolve_out(out: &Path) -> Result<PathBuf> {
    std::fs::create_dir_all(out).map_err(|e| Error::io(out, e))?;
    std::fs::canonicalize(out).map_err(|e| Error::io(out, e))
}

/// Capture what the runs' outputs need into the snapshot directory `opts.out`: open the
/// snapshot -> per round, ask the rules what they read that is not captured yet ->
/// fetch it -> add the answers to the store; until they ask for nothing new -> write
/// `snapshot.json`.
pub fn capture(opts: &Options, token: Option<String>, progress: &crate::progress::Progress) -> Result<Captured> {
    http::check_api_url(&opts.api_url)?;
    let outputs = outputs(&opts.runs)?;
    let out = resolve_out(&opts.out)?;
    let _lock = lock(&out)?;
    let mut store = store::Store::open(&out)?;
    let mut done = Captured { cut: store.cut, resumed: store.groups.len(), ..Captured::default() };
    if store.cut > 0 {
        progress.note(&format!("{}: cut {} bytes of a capture that was interrupted; fetching that path again", out.join(store::CASSETTE).display(), store.cut));
    }
    let notes = *progress;
    let fetcher = Fetcher {
        client: http::Client::new(&opts.api_url, token, opts.retry, opts.max_pages).with_notes(move |m| notes.note(m)),
        writer: Mutex::new(store::Writer::open(&out)?),
        out: &out,
        gql_endpoint: graphql::endpoint(&opts.api_url),
        concurrency: opts.concurrency,
    };
    let mut asked: BTreeSet<String> = BTreeSet::new();
    let mut graphql_left: BTreeSet<String> = BTreeSet::new();
    // The repository-level requests go with the first round.
    let mut repository = repository_requests(&outputs);
    for round in 0..MAX_ROUNDS {
        let mut todo = std::mem::take(&mut repository);
        let gql = rules_need(&outputs, &store, &asked, &mut todo, &mut graphql_left)?;
        let jobs = new_jobs(todo, gql, &store, &mut asked, opts.refresh);
        if jobs.is_empty() {
            break;
        }
        done.rounds = round + 1;
        let answers = fetcher.fetch_all(jobs, &store, progress, round)?;
        add_answers(answers, &mut store, &mut done);
    }
    done.requests = fetcher.client.requests.load(std::sync::atomic::Ordering::Relaxed);
    // Paths asked for in the end are not "not captured".
    done.not_captured = graphql_left.into_iter().filter(|p| !store.groups.contains_key(p)).collect();
    write_info(&out, opts, &done)?;
    Ok(done)
}

/// What the rules read, asked of them given the store: REST paths join `todo` (with the
/// REST captures a minimized comment's GraphQL query needs first), GraphQL paths come back
/// with their queries, and those capture cannot ask for (yet) go to `graphql_left`.
fn rules_need(
    outputs: &[SafeOutput],
    store: &store::Store,
    asked: &BTreeSet<String>,
    todo: &mut BTreeMap<String, String>,
    graphql_left: &mut BTreeSet<String>,
) -> Result<BTreeMap<String, Vec<graphql::Query>>> {
    let node_id = |repo: &str, id: i64| -> Option<String> {
        ["issues", "pulls"].iter().find_map(|kind| {
            let g = store.groups.get(&format!("{repo}/{kind}/comments/{id}"))?;
            let v: serde_json::Value = serde_json::from_str(&store.body(g.first()?).ok()?).ok()?;
            v.get("node_id")?.as_str().map(str::to_string)
        })
    };
    let mut gql: BTreeMap<String, Vec<graphql::Query>> = BTreeMap::new();
    for p in rules_read(outputs, store.rows()?) {
        if capturable(&p) {
            todo.entry(p.clone()).or_insert_with(|| request_of(&p));
        } else if let Some(q) = graphql::queries(&p, node_id) {
            gql.insert(p, q);
        } else {
            let rest = graphql::comment_rest_paths(&p);
            if rest.is_empty() || rest.iter().all(|r| asked.contains(r) || store.has_final(r)) {
                graphql_left.insert(p);
            } else {
                for r in rest {
                    todo.entry(r.clone()).or_insert_with(|| request_of(&r));
                }
            }
        }
    }
    Ok(gql)
}

/// The requests of a round: those of `todo` and `gql` not asked for in this run, nor
/// captured already (unless refreshing), REST ones first; each is then `asked`.
fn new_jobs(
    mut todo: BTreeMap<String, String>,
    mut gql: BTreeMap<String, Vec<graphql::Query>>,
    store: &store::Store,
    asked: &mut BTreeSet<String>,
    refresh: bool,
) -> Vec<(String, Job)> {
    // Already captured (this run or a resumed one) and not refreshing: nothing to ask.
    todo.retain(|p, _| !asked.contains(p) && (refresh || !store.has_final(p)));
    gql.retain(|p, _| !asked.contains(p) && (refresh || !store.has_final(p)));
    let mut jobs: Vec<(String, Job)> = todo
        .iter()
        .map(|(p, r)| (p.clone(), Job::Rest { request: r.clone(), etag: store.groups.get(p).and_then(|g| g.first()).and_then(|l| l.etag.clone()) }))
        .collect();
    asked.extend(gql.keys().cloned());
    jobs.extend(gql.into_iter().map(|(p, q)| (p, Job::Graphql(q))));
    asked.extend(todo.keys().cloned());
    jobs
}

/// One path's answer as written to the cassette: its status (`None` for a 304: the
/// captured copy again, at the new time) and the group's lines.
type Answer = (String, Option<u16>, Vec<store::Page>);

/// What fetching needs: the HTTP client, the cassette writer, the snapshot directory (for
/// spool files) and the GraphQL endpoint.
struct Fetcher<'o> {
    client: http::Client,
    writer: Mutex<store::Writer>,
    out: &'o Path,
    gql_endpoint: String,
    concurrency: usize,
}

impl Fetcher<'_> {
    /// Make a round's requests on `concurrency` threads, each answer appended to the
    /// cassette as it comes; the answers sorted by path. The first error stops the round.
    fn fetch_all(&self, jobs: Vec<(String, Job)>, store: &store::Store, progress: &crate::progress::Progress, round: usize) -> Result<Vec<Answer>> {
        let bar = progress.bar_eta(&format!("round {}", round + 1), jobs.len() as u64);
        let queue = Mutex::new(jobs.into_iter());
        let results: Mutex<Vec<Answer>> = Mutex::new(Vec::new());
        let failure: Mutex<Option<Error>> = Mutex::new(None);
        std::thread::scope(|s| {
            for _ in 0..self.concurrency.max(1) {
                s.spawn(|| loop {
                    let next = queue.lock().ok().and_then(|mut q| q.next());
                    let Some((path, job)) = next else { break };
                    let written = match self.fetch_one(&path, &job, store) {
                        Ok(w) => w,
                        Err(e) => {
                            if let Ok(mut slot) = failure.lock() {
                                slot.get_or_insert(e);
                            }
                            break;
                        }
                    };
                    let b = self.client.budget.lock().map(|b| *b).unwrap_or_default();
                    bar.set_message(format!(
                        "{} requests, rate limit {}",
                        self.client.requests.load(std::sync::atomic::Ordering::Relaxed),
                        b.remaining.map_or("unknown".to_string(), |r| format!("{r} left"))
                    ));
                    bar.inc(1);
                    if let (Some((status, pages)), Ok(mut r)) = (written, results.lock()) {
                        r.push((path, status, pages));
                    }
                });
            }
        });
        bar.finish_and_clear();
        if let Some(e) = failure.into_inner().ok().flatten() {
            return Err(e);
        }
        let mut results = results.into_inner().unwrap_or_default();
        results.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(results)
    }

    /// Ask for one path and append the answer to the cassette: its status and lines, or for
    /// a 304 the captured copy again at the new time (`None` when there is none).
    fn fetch_one(&self, path: &str, job: &Job, store: &store::Store) -> Result<Option<(Option<u16>, Vec<store::Page>)>> {
        let mut spool = store::Spool::new(self.out)?;
        let fetched = match job {
            Job::Rest { request, etag } => self.client.fetch(path, request, etag.as_deref(), &mut spool)?,
            Job::Graphql(q) => Some(self.client.graphql(path, &self.gql_endpoint, q, &mut spool)?),
        };
        let mut w = self.writer.lock().map_err(|_| Error::Usage("cassette writer poisoned".into()))?;
        match fetched {
            Some(f) => {
                let head = store::GroupHead { path, status: f.status, request: &f.request, etag: f.etag.as_deref(), at: &f.at };
                Ok(Some((Some(f.status), w.append_spool(&head, &spool)?)))
            }
            None => match store.groups.get(path) {
                Some(g) => {
                    let first = &g[0];
                    let at = chrono::Utc::now();
                    let head = store::GroupHead { path, status: first.status, request: &first.request, etag: first.etag.as_deref(), at: &at };
                    Ok(Some((None, w.append_again(&head, store, g)?)))
                }
                None => Ok(None),
            },
        }
    }
}

/// The new answers join the store, counted as fetched (failed when not 2xx, 404 or 410)
/// or unchanged.
fn add_answers(answers: Vec<Answer>, store: &mut store::Store, done: &mut Captured) {
    for (path, status, pages) in answers {
        match status {
            None => done.unchanged += 1,
            Some(status) => {
                done.fetched += 1;
                if !(200..300).contains(&status) && !matches!(status, 404 | 410) {
                    done.failed.push((path.clone(), status));
                }
            }
        }
        store.groups.insert(path, pages);
    }
}

/// `snapshot.json`, written when this run captured something or there is none yet.
fn write_info(out: &Path, opts: &Options, done: &Captured) -> Result<()> {
    let info = out.join("snapshot.json");
    if done.fetched > 0 || done.unchanged > 0 || !info.is_file() {
        let meta = serde_json::json!({
            "format": crate::snapshot::FORMAT,
            "captured_at": crate::time::format(&chrono::Utc::now()),
            // Checked above to hold no user name or password.
            "api_url": opts.api_url.trim(),
            "accept": http::ACCEPT,
            "api_version": http::API_VERSION,
            "tool": concat!("hindsight capture ", env!("CARGO_PKG_VERSION")),
        });
        crate::dataset::write_text(&info, &(serde_json::to_string_pretty(&meta)? + "\n"))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    /// Every path a rule looks up while judging the demo study's outputs against its
    /// snapshot (an observing index notes them) is one `rules::reads` declares.
    #[test]
    fn the_rules_declare_every_path_they_read_in_the_demo() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/demo");
        let outputs = outputs(&root.join("runs")).unwrap();
        let rows = read_snapshot(&root.join("snapshot")).unwrap();
        let seen = Arc::new(Mutex::new(BTreeSet::new()));
        let index = SnapshotIndex::build(rows).observed_by(seen.clone());
        let policy = crate::evaluate::Policy::default();
        let ev = crate::evaluate::Evaluation::new(&index, chrono::Utc::now(), &policy, crate::evaluate::window::DEFAULT);
        let (mut undeclared, mut looked_up) = (Vec::new(), 0);
        let facts = crate::evaluate::repository::RepositoryFacts::default();
        for o in &outputs {
            seen.lock().unwrap().clear();
            ev.judge_all(o);
            let repo = o.target_repo.as_deref();
            let read: BTreeSet<String> = rules::reads(o, &index, &facts).iter().filter_map(|r| r.path(repo)).collect();
            let looked = seen.lock().unwrap().clone();
            looked_up += looked.len();
            undeclared.extend(looked.difference(&read).map(|p| format!("{} ({}#{:?}): {p}", o.output_type, repo.unwrap_or("?"), o.target_number)));
        }
        assert!(outputs.len() > 10 && looked_up > outputs.len(), "{} outputs, {looked_up} paths looked up", outputs.len());
        assert!(undeclared.is_empty(), "paths rules look up without declaring them in `rules::reads`:\n{}", undeclared.join("\n"));
    }
}
