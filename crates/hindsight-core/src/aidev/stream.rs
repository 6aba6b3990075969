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

use super::index::{agent_name, agent_no, Made, PrEntry, PrIndex, NONE};
use super::parquet::{self, Refused, Table, TableRead};
use super::release::Recognised;
use super::study::{List, OutputSink, Study};
use super::{int, text, time, Read, SourceRows, ALL_AGENTS, PRS, REVIEW_COMMENTS, SOURCES};
use crate::dataset::Written;
use crate::error::{Error, Result};
use crate::intern::Interner;
use crate::runs::Run;
use crate::snapshot::spill::Runs;
use crate::table::Cell;
use crate::time::Instant;

/// Bytes of list items held before a sorted run goes to disk.
const ITEMS_HELD_BYTES: usize = 64 << 20;

/// What a PR row with an id claims, as the first pass saw it. Every PR row is claimed
/// before any is judged (AIDev-7.6M: millions), so a claim is 48 bytes of numbers.
struct Claim {
    id: i64,
    /// The PR number (with `has_number`).
    number: i64,
    /// A hash of the typed row: rows of one id that differ collide.
    hash: u64,
    /// The row's latest time in microseconds (with `has_latest`).
    latest: i64,
    /// The row in its PR table (from 1).
    line: u32,
    /// The repository, lowercase, interned (`NONE`: not read).
    repo: u32,
    /// The author's login, lowercase, interned (`NONE`: none).
    login: u32,
    /// Which PR table.
    table: u8,
    /// Which agent: v1's folder, or the `agent` column.
    agent: u8,
    has_number: bool,
    has_latest: bool,
}

impl Claim {
    fn latest(&self) -> Option<Instant> {
        self.has_latest.then(|| crate::time::from_micros(self.latest)).flatten()
    }

    /// Its folder: the PR table and the agent.
    fn folder(&self) -> (u8, u8) {
        (self.table, self.agent)
    }

    /// Its key in the collisions: (PR table, row).
    fn at(&self) -> (u8, u64) {
        (self.table, self.line as u64)
    }
}

/// The first pass over the PR tables.
#[derive(Default)]
struct Claims {
    /// Sorted by (id, table, row) once judged.
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
        review_comments: wanted.iter().any(|t| t.source == REVIEW_COMMENTS),
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
    /// Whether the release has inline review comments (placed by their review's PR).
    review_comments: bool,
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

    /// The first pass: every PR row's identity claimed.
    fn claim(&mut self, prs: &[&'static Table]) -> Result<Claims> {
        let mut c = Claims::default();
        // Reserved whole from the files' footers: grown by doubling, the claims would
        // hold room for up to twice their rows.
        c.claims.reserve_exact(prs.iter().map(|t| parquet::rows_of(self.dir, self.rec, t)).sum());
        for (k, t) in prs.iter().enumerate() {
            let s = parquet::source_of(t);
            let origin = parquet::origin_of(self.rec, t);
            let mut on_row = |agent: &'static str, row: Vec<Cell>, line: usize| -> Result<Option<Refused>> {
                // Rows and claims are numbered in 32 bits (AIDev-7.6M has 7.7M PR rows).
                let line32 = u32::try_from(line).ok().filter(|_| c.claims.len() < u32::MAX as usize);
                let Some(line32) = line32 else {
                    let message = "more than 4,294,967,295 PR rows: not imported".to_string();
                    return Err(Error::Input { path: origin.clone().into(), line, message });
                };
                claim_row(&mut c, s, k as u8, agent, &row, line32);
                Ok(None)
            };
            // The second pass records the files (and hashes them); this one reads them only.
            let got = parquet::read_table(self.dir, self.rec, t, &self.index, parquet::Hash::Not, &mut on_row)?;
            c.origins.push(got.origin);
        }
        Ok(c)
    }
}

/// A PR row's claim (or, without an id, what it adds to the accounts and the latest time).
fn claim_row(c: &mut Claims, s: &'static super::Source, table: u8, agent: &'static str, row: &[Cell], line: u32) {
    let a = agent_no(agent);
    c.agents.insert(a);
    let repo = super::study::pr_repo(s, row).map(|r| r.to_ascii_lowercase());
    let login = text(&row[s.col("user")]).map(|l| l.to_lowercase());
    let login = login.and_then(|l| c.logins.id(&l)).unwrap_or(NONE);
    // Interned with the index's numbers: the repositories are the index's.
    let repo = repo.and_then(|r| c.repos.id(&r)).unwrap_or(NONE);
    let Some(id) = int(&row[s.col("id")]) else {
        c.latest = later(c.latest, latest_of(row));
        if login != NONE && repo != NONE {
            c.unclaimed.insert((a, login, repo));
        }
        return;
    };
    let mut h = std::collections::hash_map::DefaultHasher::new();
    format!("{row:?}").hash(&mut h);
    let (number, latest) = (int(&row[s.col("number")]), latest_of(row).map(|t| t.timestamp_micros()));
    c.claims.push(Claim {
        id,
        number: number.unwrap_or_default(),
        hash: h.finish(),
        latest: latest.unwrap_or_default(),
        line,
        repo,
        login,
        table,
        agent: a,
        has_number: number.is_some(),
        has_latest: latest.is_some(),
    });
}

/// Why each colliding claim is quarantined, keyed by (PR table, row): an id claimed by rows
/// that differ or sit in different folders, a repository and number claimed under different
/// ids or folders (the reader's rule for v1, `quarantine_pr_collisions`). The claims are
/// left sorted by (id, table, row); returned beside the reasons: the positions of the
/// claims with a repository and number, sorted by (repository, number, table, row).
fn judge(c: &mut Claims) -> (Collisions, Vec<u32>) {
    // In reading order within an id: (table, row) is each claim's place.
    c.claims.sort_unstable_by_key(|k| (k.id, k.table, k.line));
    let cl = &c.claims;
    let named = |group: &[usize]| {
        let mut all: Vec<String> = group.iter().take(10).map(|&k| format!("{} row {} (id {})", c.origins[cl[k].table as usize], cl[k].line, cl[k].id)).collect();
        if group.len() > 10 {
            all.push(format!("and {} more", group.len() - 10));
        }
        all.join(", ")
    };
    let mut reasons: BTreeMap<usize, (&'static str, Vec<String>)> = BTreeMap::new();
    let mut start = 0;
    for group in cl.chunk_by(|a, b| a.id == b.id) {
        let (first, at) = (&group[0], start);
        start += group.len();
        if group.len() == 1 {
            continue;
        }
        let differ = group.iter().any(|k| k.hash != first.hash);
        let folders = group.iter().any(|k| k.folder() != first.folder());
        if !(differ || folders) {
            continue;
        }
        let members: Vec<usize> = (at..at + group.len()).collect();
        let how = if differ { "rows that differ" } else { "identical rows in different folders" };
        let why = format!("PR id {} is claimed by {} {how}: {}; none is used, since which of them is that PR cannot be told", first.id, group.len(), named(&members));
        for k in members {
            reasons.entry(k).or_insert(("id", Vec::new())).1.push(why.clone());
        }
    }
    // Positions fit: `claim` refuses more than u32::MAX claims.
    let mut by_pr: Vec<u32> = (0..cl.len()).filter(|&k| cl[k].repo != NONE && cl[k].has_number).map(|k| k as u32).collect();
    by_pr.sort_unstable_by_key(|&k| (cl[k as usize].repo, cl[k as usize].number, cl[k as usize].table, cl[k as usize].line));
    for group in by_pr.chunk_by(|&a, &b| (cl[a as usize].repo, cl[a as usize].number) == (cl[b as usize].repo, cl[b as usize].number)) {
        let first = &cl[group[0] as usize];
        if group.iter().all(|&k| cl[k as usize].folder() == first.folder() && cl[k as usize].id == first.id) {
            continue;
        }
        let members: Vec<usize> = group.iter().map(|&k| k as usize).collect();
        let (repo, n) = (c.repos.name(first.repo), first.number);
        let why = format!("PR {repo}#{n} is claimed by {} rows with different ids or folders: {}; none is used, so that no PR is judged by another's record", group.len(), named(&members));
        for k in members {
            reasons.entry(k).or_insert(("number", Vec::new())).1.push(why.clone());
        }
    }
    (reasons.into_iter().map(|(k, (field, why))| (cl[k].at(), (field, why.join("; ")))).collect(), by_pr)
}

/// The colliding claims' reasons, keyed by (PR table, row).
type Collisions = HashMap<(u8, u64), (&'static str, String)>;

/// The index of the claimed PRs: each id's first claim's agent, each (repository, number)'s
/// first claim's id (`by_pr`: as `judge` returns it).
fn index_of(claims: &[Claim], by_pr: &[u32], repos: Interner) -> PrIndex {
    let ids = claims.chunk_by(|a, b| a.id == b.id);
    let mut prs = Vec::with_capacity(ids.clone().count());
    prs.extend(ids.map(|g| PrEntry { id: g[0].id, number: 0, repo: NONE, agent: g[0].agent, made: Made::Nothing }));
    let same = |a: &u32, b: &u32| {
        let (a, b) = (&claims[*a as usize], &claims[*b as usize]);
        (a.repo, a.number) == (b.repo, b.number)
    };
    let pairs = by_pr.chunk_by(same).map(|g| {
        let k = &claims[g[0] as usize];
        (k.repo, k.number, k.id)
    });
    PrIndex::new(prs, pairs, by_pr.chunk_by(same).count(), repos)
}

impl Importer<'_> {
    /// The second pass over the PR tables: `aidev_pull_requests` written, colliding rows
    /// quarantined, each agent PR's safe output and `pulls/N` capture made and its lists marked.
    fn write_prs(&mut self, prs: &[&'static Table], mut c: Claims, captures: &mut Runs, outputs: &mut dyn OutputSink) -> Result<()> {
        let (mut collisions, by_pr) = judge(&mut c);
        let own = own_accounts(&c, &collisions);
        self.latest = c.claims.iter().filter(|k| !collisions.contains_key(&k.at())).fold(c.latest, |l, k| later(l, k.latest()));
        for &a in &c.agents {
            let agent = agent_name(a);
            if ALL_AGENTS.contains(&agent) {
                let run = Run { run_id: super::study::run_id(agent), run_id_source: "aidev", workflow_name: Some(agent.to_string()), dir: agent.to_string(), ..Run::default() };
                self.runs.insert(a, run);
            }
        }
        self.index = index_of(&c.claims, &by_pr, std::mem::take(&mut c.repos));
        drop((c.claims, by_pr));
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
            let got = parquet::read_table(dir, rec, t, &PrIndex::default(), parquet::Hash::Files, &mut on_row)?;
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
        if self.index.get(id).is_none_or(|p| p.made != Made::Nothing) {
            // An id the first pass did not claim cannot be: both passes read the same rows.
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
            if let Some(pr) = self.index.get_mut(id) {
                pr.made = Made::Bare;
            }
            return Ok(());
        };
        // As the row writes it: the capture paths are.
        let Some(written) = self.index.repos.id(&repo) else {
            return Err(Error::Input { path: origin.into(), line, message: "more than 4,294,967,294 repository names: not imported".into() });
        };
        if let Some(pr) = self.index.get_mut(id) {
            *pr = PrEntry { number: n, repo: written, made: Made::Full, ..*pr };
        }
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
            // The inline comments find their PR by their review's id, when the release has them.
            let keep_reviews = self.review_comments && t.name == "pr_reviews";
            let index = std::mem::take(&mut self.index);
            let mut reviews: Vec<(i64, i64)> = Vec::new();
            let mut on_row = |agent: &'static str, row: Vec<Cell>, line: usize| -> Result<Option<Refused>> {
                if timed {
                    self.latest = later(self.latest, latest_of(&row));
                }
                if keep_reviews {
                    // The review's GitHub id is `pull_request_review_id` where the release has
                    // the column (v5, whose `id` is not documented to be it), else `id`.
                    if let (Some(pr), Some(k)) = (int(&row[s.col("pr_id")]), int(&row[s.col("pull_request_review_id")]).or_else(|| int(&row[s.col("id")]))) {
                        reviews.push((k, pr));
                    }
                }
                if let Some(list) = list {
                    self.list_item(&index, list, s, agent, &row, line)?;
                }
                w.push(agent, row, line)?;
                Ok(None)
            };
            let got = parquet::read_table(dir, rec, t, &index, parquet::Hash::Files, &mut on_row);
            self.index = index;
            self.count(s.table, got?);
            self.index.add_reviews(reviews);
        }
        self.written.push((s.table, w.finish()?));
        Ok(())
    }

    /// A per-PR row as an item of its PR's list; a row of an agent's table whose PR is not
    /// one of the agent's safe outputs is an orphan.
    fn list_item(&mut self, index: &PrIndex, list: List, s: &'static super::Source, agent: &'static str, row: &[Cell], line: usize) -> Result<()> {
        let a = agent_no(agent);
        if !ALL_AGENTS.contains(&agent) {
            return Ok(());
        }
        let Some(id) = int(&row[s.col("pr_id")]) else { return Ok(()) };
        match index.get(id).filter(|p| p.agent == a).map(|p| p.made) {
            Some(Made::Full) => {
                let Some(&PrEntry { repo, number: n, .. }) = index.get(id) else { return Ok(()) };
                let text = list.item(&|name: &str| &row[s.col(name)]).to_string();
                let path = list.path(&format!("repos/{}", index.repos.name(repo)), n);
                match &mut self.items {
                    Some(items) => items.push(super::items::Item { path, place: line as u64, line: line as u64, text }),
                    None => Ok(()),
                }
            }
            Some(Made::Bare) => Ok(()),
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

/// Each agent's own accounts ([`super::study::own_accounts`]'s rule) from its PR rows that
/// are used: a bot, or a login in at least three of the agent's repositories and more than
/// half of them. Counted over the sorted (agent, login, repository) triples, not sets per login.
fn own_accounts(c: &Claims, collisions: &Collisions) -> HashMap<u8, HashSet<u32>> {
    let used = c.claims.iter().filter(|k| k.login != NONE && k.repo != NONE && !collisions.contains_key(&k.at()));
    let mut triples: Vec<(u8, u32, u32)> = used.map(|k| (k.agent, k.login, k.repo)).chain(c.unclaimed.iter().copied()).collect();
    triples.sort_unstable();
    triples.dedup();
    let mut out: HashMap<u8, HashSet<u32>> = (0..ALL_AGENTS.len() as u8).map(|a| (a, HashSet::new())).collect();
    for of_agent in triples.chunk_by(|x, y| x.0 == y.0) {
        let Some(own) = out.get_mut(&of_agent[0].0) else { continue };
        let mut repos: Vec<u32> = of_agent.iter().map(|t| t.2).collect();
        repos.sort_unstable();
        repos.dedup();
        for of_login in of_agent.chunk_by(|x, y| x.1 == y.1) {
            let login = of_login[0].1;
            if crate::snapshot::github::is_bot_login(c.logins.name(login)) || (of_login.len() >= 3 && of_login.len() * 2 > repos.len()) {
                own.insert(login);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn claim(id: i64, agent: u8, login: u32, repo: u32, line: u32) -> Claim {
        Claim { id, number: 0, hash: 0, latest: 0, line, repo, login, table: 0, agent, has_number: false, has_latest: false }
    }

    proptest! {
        /// Counting over sorted triples finds the accounts the rule finds with a set of
        /// repositories per login (v1's reader), whatever the rows and collisions.
        #[test]
        fn own_accounts_are_the_rules(rows in proptest::collection::vec((0u8..3, 0u32..6, 0u32..7, any::<bool>()), 0..60), bots in proptest::collection::vec(any::<bool>(), 6)) {
            let mut c = Claims::default();
            for k in 0..6 {
                let name = if bots[k] { format!("agent{k}[bot]") } else { format!("user{k}") };
                c.logins.id(&name);
            }
            let mut collisions = Collisions::new();
            for (line, &(agent, login, repo, collides)) in rows.iter().enumerate() {
                // Repository 6 stands for none read, login 5 for none.
                let (login, repo) = (if login == 5 { NONE } else { login }, if repo == 6 { NONE } else { repo });
                let k = claim(line as i64, agent, login, repo, line as u32);
                if collides {
                    collisions.insert(k.at(), ("id", String::new()));
                }
                c.claims.push(k);
            }
            c.unclaimed.insert((1, 2, 3));
            let got = own_accounts(&c, &collisions);
            for a in 0..ALL_AGENTS.len() as u8 {
                let used = c.claims.iter().filter(|k| k.agent == a && k.login != NONE && k.repo != NONE && !collisions.contains_key(&k.at()));
                let pairs = used.map(|k| (k.login, k.repo)).chain(c.unclaimed.iter().filter(|u| u.0 == a).map(|u| (u.1, u.2)));
                let want = super::super::study::own_accounts(pairs, |l| crate::snapshot::github::is_bot_login(c.logins.name(*l)));
                prop_assert_eq!(got.get(&a).cloned().unwrap_or_default(), want, "agent {}", a);
            }
        }
    }
}
