//! The Parquet releases imported in bounded memory: no table is held. Only two things span
//! all PRs, and both are small: an index of the PR identities (id, agent, repository and
//! number: tens of bytes a PR), and the collision check over it.
//!
//! 1. The PR tables are read twice. The first pass claims identities (and the agents'
//!    accounts, the latest time); the claims are judged as the reader judges v1's. The
//!    second pass writes `aidev_pull_requests` batch by batch (a colliding row quarantined
//!    with its values), each safe output to the output sink and each `pulls/N` capture to
//!    convert's spill sink, and marks the lists each PR gets.
//! 2. Every other table is read once, in file order: each row goes to its `aidev_*` table,
//!    and a row of a per-PR table becomes an item of its PR's list capture in an external
//!    sort by (path, row); merged, the items come back a list at a time (timeline repeats
//!    dropped there), each list a capture.
//!
//! Rows of the `aidev_*` tables are in the files' order (v1's are grouped by agent folder).

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::hash::{Hash, Hasher};
use std::path::Path;

use super::parquet::{self, PrIndex, Refused, Table, TableRead};
use super::release::Recognised;
use super::study::{List, OutputSink, Study};
use super::{int, text, time, Read, SourceRows, ALL_AGENTS, BASELINE, PRS, REVIEW_COMMENTS, SOURCES};
use crate::dataset::Written;
use crate::error::Result;
use crate::runs::Run;
use crate::snapshot::spill::Runs;
use crate::table::Cell;
use crate::time::Instant;

/// Bytes of list items held before a sorted run goes to disk.
const ITEMS_HELD_BYTES: usize = 64 << 20;

/// Names numbered in the order first seen: an index holds a number, not a string, per PR.
#[derive(Default)]
pub(crate) struct Interner {
    ids: HashMap<String, u32>,
    names: Vec<String>,
}

impl Interner {
    fn id(&mut self, name: &str) -> u32 {
        if let Some(&i) = self.ids.get(name) {
            return i;
        }
        let i = self.names.len() as u32;
        self.names.push(name.to_string());
        self.ids.insert(name.to_string(), i);
        i
    }

    pub(crate) fn find(&self, name: &str) -> Option<u32> {
        self.ids.get(name).copied()
    }

    fn name(&self, id: u32) -> &str {
        &self.names[id as usize]
    }
}

const NONE: u32 = u32::MAX;

/// The agents a PR row can belong to: the release's and the human baseline.
fn agent_no(agent: &str) -> u8 {
    ALL_AGENTS.iter().position(|a| *a == agent).unwrap_or(ALL_AGENTS.len()) as u8
}

fn agent_name(no: u8) -> &'static str {
    ALL_AGENTS.get(no as usize).copied().unwrap_or(BASELINE)
}

/// What a PR row with an id claims, as the first pass saw it.
struct Claim {
    /// Which PR table, and which agent: v1's folder.
    folder: (u8, u8),
    line: u64,
    id: i64,
    /// The repository, lowercase, interned (`NONE`: not read), and the number.
    repo: u32,
    number: Option<i64>,
    /// The author's login, lowercase, interned (`NONE`: none).
    login: u32,
    /// A hash of the typed row: rows of one id that differ collide.
    hash: u64,
    /// The row's latest time.
    latest: Option<Instant>,
}

/// The first pass over the PR tables.
#[derive(Default)]
struct Claims {
    claims: Vec<Claim>,
    /// Each PR table's name in the quarantine.
    origins: Vec<String>,
    logins: Interner,
    /// Repositories, lowercase (ASCII: GitHub's names are).
    repos: Interner,
    /// (agent, login, repository) of rows without an id (never colliding).
    unclaimed: HashSet<(u8, u32, u32)>,
    /// The latest time of rows without an id.
    latest: Option<Instant>,
    /// The agents with a used PR row.
    agents: BTreeSet<u8>,
}

/// The latest time in a row.
fn latest_of(row: &[Cell]) -> Option<Instant> {
    row.iter().filter_map(time).max()
}

fn later(a: Option<Instant>, b: Option<Instant>) -> Option<Instant> {
    a.max(b)
}

/// Import the Parquet release recognised in `dir` into the dataset folder `dataset`: the
/// `aidev_*` tables written, the safe outputs to `outputs`, the captures to `captures`.
pub(crate) fn import(
    dir: &Path,
    rec: &Recognised,
    dataset: &Path,
    captured_at: Option<Instant>,
    captures: &mut Runs,
    outputs: &mut dyn OutputSink,
) -> Result<(Read, Study, Vec<(&'static str, Written)>)> {
    let mut read = Read::default();
    let wanted = parquet::wanted(dir, rec, &mut read)?;
    let mut im = Importer {
        dir,
        rec,
        dataset,
        read,
        study: Study::default(),
        index: PrIndex::default(),
        written: Vec::new(),
        latest: None,
        items: Some(super::items::ListItems::new(&dataset.join(".list-items"), ITEMS_HELD_BYTES)),
        outputs_of: HashMap::new(),
        repos: Interner::default(),
        runs: BTreeMap::new(),
        lists: Vec::new(),
    };
    let prs: Vec<&'static Table> = wanted.iter().copied().filter(|t| t.source == PRS).collect();
    im.lists = List::ALL.into_iter().filter_map(|l| wanted.iter().find(|t| t.source == l.file()).map(|t| (l, parquet::origin_of(rec, t)))).collect();
    let mut phases = crate::phases::Phases::from_env();
    let claims = im.claim(&prs)?;
    phases.mark("PR identities claimed");
    im.write_prs(&prs, claims, captures, outputs)?;
    phases.mark("PR rows written");
    // Reviews before the inline comments, which are placed by their review.
    let mut order: Vec<&'static super::Source> = SOURCES.iter().filter(|s| s.file != PRS).collect();
    order.sort_by_key(|s| (s.file == REVIEW_COMMENTS, s.file != "pr_reviews.csv"));
    for s in order {
        let tables: Vec<&'static Table> = wanted.iter().copied().filter(|t| t.source == s.file).collect();
        im.write_rows(s, &tables)?;
        phases.mark(s.table);
    }
    im.write_lists(captures)?;
    phases.mark("lists written");
    let Importer { mut read, mut study, written, latest, runs, .. } = im;
    study.set_captured_at(captured_at, latest);
    study.runs = runs.into_values().collect();
    super::finish_counts(&mut read);
    Ok((read, study, written))
}

struct Importer<'a> {
    dir: &'a Path,
    rec: &'a Recognised,
    dataset: &'a Path,
    read: Read,
    study: Study,
    index: PrIndex,
    written: Vec<(&'static str, Written)>,
    latest: Option<Instant>,
    /// The list items, until merged.
    items: Option<super::items::ListItems>,
    /// Agent PR id -> (agent, repository as written (interned) and number, when both are read).
    outputs_of: HashMap<i64, (u8, Option<(u32, i64)>)>,
    repos: Interner,
    runs: BTreeMap<u8, Run>,
    /// The lists the release has, each with its table's name.
    lists: Vec<(List, String)>,
}

impl Importer<'_> {
    /// What a table read adds to the counts (its rows went elsewhere).
    fn count(&mut self, table: &'static str, got: TableRead) {
        self.read.records += got.rows;
        self.read.used += got.used;
        *self.read.rows_by_table.entry(table).or_default() += got.used;
        *self.read.used_by_origin.entry(got.origin).or_default() += got.used;
        self.read.files.extend(got.files);
        self.read.quarantined.extend(got.quarantined);
        self.read.absent.extend(got.absent_columns);
    }

    /// The first pass: every PR row's identity claimed, the index built from the claims.
    fn claim(&mut self, prs: &[&'static Table]) -> Result<Claims> {
        let mut c = Claims::default();
        for (k, t) in prs.iter().enumerate() {
            let s = parquet::source_of(t);
            let mut on_row = |agent: &'static str, row: Vec<Cell>, line: usize| -> Result<Option<Refused>> {
                claim_row(&mut c, s, k as u8, agent, &row, line);
                Ok(None)
            };
            let got = parquet::read_table(self.dir, self.rec, t, &self.index, &mut on_row)?;
            c.origins.push(got.origin);
        }
        self.index.repos = std::mem::take(&mut c.repos);
        for cl in &c.claims {
            self.index.agent.entry(cl.id).or_insert(agent_name(cl.folder.1));
            if let (true, Some(n)) = (cl.repo != NONE, cl.number) {
                self.index.by_number.entry((cl.repo, n)).or_insert(cl.id);
            }
        }
        Ok(c)
    }
}

/// A PR row's claim (or, without an id, what it adds to the accounts and the latest time).
fn claim_row(c: &mut Claims, s: &'static super::Source, table: u8, agent: &'static str, row: &[Cell], line: usize) {
    let a = agent_no(agent);
    c.agents.insert(a);
    let repo = super::study::pr_repo(s, row).map(|r| r.to_ascii_lowercase());
    let login = text(&row[s.col("user")]).map(|l| l.to_lowercase());
    let login = login.map_or(NONE, |l| c.logins.id(&l));
    // Interned with the index's numbers: the repositories are the index's.
    let repo = repo.map_or(NONE, |r| c.repos.id(&r));
    let Some(id) = int(&row[s.col("id")]) else {
        c.latest = later(c.latest, latest_of(row));
        if login != NONE && repo != NONE {
            c.unclaimed.insert((a, login, repo));
        }
        return;
    };
    let mut h = std::collections::hash_map::DefaultHasher::new();
    format!("{row:?}").hash(&mut h);
    c.claims.push(Claim { folder: (table, a), line: line as u64, id, repo, number: int(&row[s.col("number")]), login, hash: h.finish(), latest: latest_of(row) });
}

/// Why each colliding claim is quarantined, keyed by (PR table, row): an id claimed by rows
/// that differ or sit in different folders, a repository and number claimed under different
/// ids or folders (the reader's rule for v1, `quarantine_pr_collisions`).
fn judge(c: &Claims, repos: &Interner) -> HashMap<(u8, u64), (&'static str, String)> {
    let cl = &c.claims;
    let named = |group: &[usize]| {
        let mut all: Vec<String> = group.iter().take(10).map(|&k| format!("{} row {} (id {})", c.origins[cl[k].folder.0 as usize], cl[k].line, cl[k].id)).collect();
        if group.len() > 10 {
            all.push(format!("and {} more", group.len() - 10));
        }
        all.join(", ")
    };
    let mut reasons: BTreeMap<usize, (&'static str, Vec<String>)> = BTreeMap::new();
    let mut by_id: Vec<usize> = (0..cl.len()).collect();
    by_id.sort_by_key(|&k| (cl[k].id, k));
    for group in by_id.chunk_by(|&a, &b| cl[a].id == cl[b].id).filter(|g| g.len() > 1) {
        let first = &cl[group[0]];
        let differ = group.iter().any(|&k| cl[k].hash != first.hash);
        let folders = group.iter().any(|&k| cl[k].folder != first.folder);
        if !(differ || folders) {
            continue;
        }
        let how = if differ { "rows that differ" } else { "identical rows in different folders" };
        let why = format!("PR id {} is claimed by {} {how}: {}; none is used, since which of them is that PR cannot be told", first.id, group.len(), named(group));
        for &k in group {
            reasons.entry(k).or_insert(("id", Vec::new())).1.push(why.clone());
        }
    }
    let mut by_pr: Vec<usize> = (0..cl.len()).filter(|&k| cl[k].repo != NONE && cl[k].number.is_some()).collect();
    by_pr.sort_by_key(|&k| (cl[k].repo, cl[k].number, k));
    for group in by_pr.chunk_by(|&a, &b| (cl[a].repo, cl[a].number) == (cl[b].repo, cl[b].number)) {
        let first = &cl[group[0]];
        if group.iter().all(|&k| cl[k].folder == first.folder && cl[k].id == first.id) {
            continue;
        }
        let (repo, n) = (repos.name(first.repo), first.number.unwrap_or_default());
        let why = format!("PR {repo}#{n} is claimed by {} rows with different ids or folders: {}; none is used, so that no PR is judged by another's record", group.len(), named(group));
        for &k in group {
            reasons.entry(k).or_insert(("number", Vec::new())).1.push(why.clone());
        }
    }
    reasons.into_iter().map(|(k, (field, why))| ((cl[k].folder.0, cl[k].line), (field, why.join("; ")))).collect()
}

impl Importer<'_> {
    /// The second pass over the PR tables: `aidev_pull_requests` written, colliding rows
    /// quarantined, each agent PR's safe output and `pulls/N` capture made and its lists marked.
    fn write_prs(&mut self, prs: &[&'static Table], c: Claims, captures: &mut Runs, outputs: &mut dyn OutputSink) -> Result<()> {
        let mut collisions = judge(&c, &self.index.repos);
        let own = own_accounts(&c, &collisions);
        self.latest = c.claims.iter().filter(|k| !collisions.contains_key(&(k.folder.0, k.line))).fold(c.latest, |l, k| later(l, k.latest));
        for &a in &c.agents {
            let agent = agent_name(a);
            if ALL_AGENTS.contains(&agent) {
                let run = Run { run_id: super::study::run_id(agent), run_id_source: "aidev", workflow_name: Some(agent.to_string()), dir: agent.to_string(), ..Run::default() };
                self.runs.insert(a, run);
            }
        }
        drop(c.claims);
        let prs_source = super::source(PRS).unwrap_or_else(|| panic!("no source {PRS}"));
        let mut w = SourceRows::create(self.dataset, prs_source)?;
        let (dir, rec) = (self.dir, self.rec);
        for (k, t) in prs.iter().enumerate() {
            let s = parquet::source_of(t);
            let origin = parquet::origin_of(self.rec, t);
            let mut on_row = |agent: &'static str, row: Vec<Cell>, line: usize| -> Result<Option<Refused>> {
                if let Some((field, why)) = collisions.remove(&(k as u8, line as u64)) {
                    return Ok(Some((field, why, row)));
                }
                self.pr_row(s, &origin, agent, &row, line, &own, &c.logins, captures, outputs)?;
                w.push(agent, row, line)?;
                Ok(None)
            };
            let got = parquet::read_table(dir, rec, t, &PrIndex::default(), &mut on_row)?;
            self.count(s.table, got);
        }
        self.written.push((prs_source.table, w.finish()?));
        Ok(())
    }

    /// One used PR row: an agent PR's safe output, its `pulls/N` capture, its lists marked.
    #[allow(clippy::too_many_arguments)]
    fn pr_row(
        &mut self,
        s: &'static super::Source,
        origin: &str,
        agent: &'static str,
        row: &[Cell],
        line: usize,
        own: &HashMap<u8, HashSet<u32>>,
        logins: &Interner,
        captures: &mut Runs,
        outputs: &mut dyn OutputSink,
    ) -> Result<()> {
        let a = agent_no(agent);
        let Some(run) = self.runs.get_mut(&a) else { return Ok(()) };
        let Some(id) = int(&row[s.col("id")]) else {
            self.study.without_id += 1;
            return Ok(());
        };
        if self.outputs_of.contains_key(&id) {
            self.study.duplicate_prs += 1;
            return Ok(());
        }
        let number = int(&row[s.col("number")]);
        let repo = super::study::pr_repo(s, row);
        if repo.is_none() {
            self.study.without_repo += 1;
        }
        let item_index = run.executed_items as i64;
        run.executed_items += 1;
        run.requested_items += 1;
        outputs.push(super::study::pr_output(s, origin, row, agent, id, repo.clone(), item_index, line))?;
        self.study.safe_outputs += 1;
        let (Some(repo), Some(n)) = (repo, number) else {
            self.outputs_of.insert(id, (a, None));
            return Ok(());
        };
        self.outputs_of.insert(id, (a, Some((self.repos.id(&repo), n))));
        let agent_own = |l: &str| logins.find(l).is_some_and(|l| own.get(&a).is_some_and(|o| o.contains(&l)));
        let base = format!("repos/{repo}");
        captures.push(super::study::capture(format!("{base}/pulls/{n}"), &super::study::pull(s, row, id, n, &agent_own), origin, Some(line)))?;
        for (list, _) in &self.lists {
            if let Some(items) = &mut self.items {
                items.push(super::items::Item { path: list.path(&base, n), place: 0, line: 0, text: String::new() })?;
            }
        }
        Ok(())
    }

    /// Every table of one source, read once: each row to its `aidev_*` table, a per-PR row
    /// also to its PR's list.
    fn write_rows(&mut self, s: &'static super::Source, tables: &[&'static Table]) -> Result<()> {
        let mut w = SourceRows::create(self.dataset, s)?;
        let list = List::of_file(s.file);
        let timed = matches!(s.file, "pr_reviews.csv" | "pr_comments.csv" | "pr_timelines.csv");
        let (dir, rec) = (self.dir, self.rec);
        for t in tables {
            let index = std::mem::take(&mut self.index);
            let mut reviews: Vec<(i64, i64)> = Vec::new();
            let mut on_row = |agent: &'static str, row: Vec<Cell>, line: usize| -> Result<Option<Refused>> {
                if timed {
                    self.latest = later(self.latest, latest_of(&row));
                }
                if t.name == "pr_reviews" {
                    // The review's GitHub id is `pull_request_review_id` where the release has
                    // the column (v5, whose `id` is not documented to be it), else `id`.
                    if let (Some(pr), Some(k)) = (int(&row[s.col("pr_id")]), int(&row[s.col("pull_request_review_id")]).or_else(|| int(&row[s.col("id")]))) {
                        reviews.push((k, pr));
                    }
                }
                if let Some(list) = list {
                    self.list_item(list, s, agent, &row, line)?;
                }
                w.push(agent, row, line)?;
                Ok(None)
            };
            let got = parquet::read_table(dir, rec, t, &index, &mut on_row);
            self.index = index;
            self.count(s.table, got?);
            for (k, pr) in reviews {
                self.index.review.entry(k).or_insert(pr);
            }
        }
        self.written.push((s.table, w.finish()?));
        Ok(())
    }

    /// A per-PR row as an item of its PR's list; a row of an agent's table whose PR is not
    /// one of the agent's safe outputs is an orphan.
    fn list_item(&mut self, list: List, s: &'static super::Source, agent: &'static str, row: &[Cell], line: usize) -> Result<()> {
        let a = agent_no(agent);
        if !ALL_AGENTS.contains(&agent) {
            return Ok(());
        }
        let Some(id) = int(&row[s.col("pr_id")]) else { return Ok(()) };
        match self.outputs_of.get(&id) {
            Some(&(of, Some((repo, n)))) if of == a => {
                let text = list.item(&|name: &str| &row[s.col(name)]).to_string();
                let path = list.path(&format!("repos/{}", self.repos.name(repo)), n);
                match &mut self.items {
                    Some(items) => items.push(super::items::Item { path, place: line as u64, line: line as u64, text }),
                    None => Ok(()),
                }
            }
            Some(&(of, None)) if of == a => Ok(()),
            _ => {
                self.study.orphan_rows += 1;
                Ok(())
            }
        }
    }

    /// The lists, merged from their items, each a capture (timeline repeats dropped).
    fn write_lists(&mut self, captures: &mut Runs) -> Result<()> {
        let Some(items) = self.items.take() else { return Ok(()) };
        let mut lists = items.merge()?;
        while let Some((path, line, mut texts)) = lists.next_list()? {
            let Some((list, origin)) = self.lists.iter().find(|(l, _)| l.ends(&path)) else { continue };
            if *list == List::Timeline {
                let mut seen: HashSet<String> = HashSet::new();
                let before = texts.len();
                texts.retain(|t| seen.insert(t.clone()));
                self.study.duplicate_events += before - texts.len();
            }
            captures.push(super::study::list_capture(path, &texts, origin, line.map(|l| l as usize)))?;
        }
        Ok(())
    }
}

/// Each agent's own accounts ([`super::study::own_accounts`]) from its PR rows that are used.
fn own_accounts(c: &Claims, collisions: &HashMap<(u8, u64), (&'static str, String)>) -> HashMap<u8, HashSet<u32>> {
    let mut out = HashMap::new();
    for a in 0..ALL_AGENTS.len() as u8 {
        let claimed = c.claims.iter().filter(|k| k.folder.1 == a && k.login != NONE && k.repo != NONE && !collisions.contains_key(&(k.folder.0, k.line)));
        let pairs = claimed.map(|k| (k.login, k.repo)).chain(c.unclaimed.iter().filter(|u| u.0 == a).map(|u| (u.1, u.2)));
        out.insert(a, super::study::own_accounts(pairs, |l| crate::snapshot::github::is_bot_login(c.logins.name(*l))));
    }
    out
}
