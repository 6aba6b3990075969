//! Review feedback and the memory-effectiveness figures (docs/SPEC.md [SPEC-TASKS-MEMORY])
//! per pull request: revision rounds, first-review merges, reviewer comments, CI on the
//! first push, and repeated mistakes (a reviewer comment that says what a reviewer said on
//! an earlier PR of the same repository, before this PR was opened).
//!
//! Computed from the snapshot's typed tables once they are written (convert and the AIDev
//! import), for every pull request in `pull_requests`, into tables `review_feedback` (one
//! row per reviewer comment) and `pr_feedback` (one row per PR). A figure whose capture is
//! missing is `NULL` and the PR's `missing` column names the capture: an uncaptured list
//! is never read as "nobody said anything". Definitions and switches: `docs/TASKS.md`.

mod fix_cycle;
mod repeats;
pub(crate) mod similarity;

use rayon::prelude::*;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::dataset::read::Cols;
use crate::dataset::stream::{columns_in, RepoRange};
use crate::error::Result;
use crate::actors::{ActorClass, Classifier};
use crate::snapshot::github::Actor;
use crate::snapshot::paths::{self, Resource};
use crate::table::{arrow_schema, bool_column, float_column, int_column, str_column, time_column, Kind};
use arrow::array::ArrayRef;
use arrow::record_batch::RecordBatch;
use crate::time::Instant;

/// Where a reviewer's words were written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// A review's body (`pulls/N/reviews`).
    Review,
    /// An inline comment on the diff (`pulls/N/comments`).
    ReviewComment,
    /// A comment in the PR's conversation (`issues/N/comments`).
    Conversation,
}

impl Source {
    pub(crate) const ALL: [Source; 3] = [Source::Review, Source::ReviewComment, Source::Conversation];

    pub(crate) fn as_str(&self) -> &'static str {
        match self {
            Source::Review => "review",
            Source::ReviewComment => "review_comment",
            Source::Conversation => "conversation",
        }
    }

    /// The capture that holds it, as `missing` names it.
    fn capture(&self) -> Capture {
        match self {
            Source::Review => Capture::Reviews,
            Source::ReviewComment => Capture::ReviewComments,
            Source::Conversation => Capture::Comments,
        }
    }
}

/// Which earlier PRs a comment is compared with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum RepeatScope {
    /// Earlier PRs of the same repository opened by the same author: the agent repeating
    /// its own mistake.
    SameAuthor,
    /// Every earlier PR of the repository.
    Repository,
}

/// The choices the evaluation pipeline leaves open for review feedback (in the task policy,
/// key `feedback`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FeedbackPolicy {
    /// Overlap coefficient at or above which two comments say the same thing
    /// ([SPEC-TASKS-MEMORY]'s example threshold, 0.85, is for embeddings; word sets of
    /// short comments move in steps of 1/3, 1/4, 1/5, so 0.8 accepts one word in five
    /// unmatched).
    pub(crate) threshold: f64,
    /// Words a comment must keep after normalization to be compared: fewer says too little.
    pub(crate) min_tokens: usize,
    /// The shorter comment's words must be at least this share of the longer's: a few
    /// words found inside a long comment are there by chance more often than not.
    pub(crate) min_size_ratio: f64,
    /// Which earlier PRs count.
    pub(crate) scope: RepeatScope,
    /// Where reviewer comments are read from; a PR whose capture of one of them is missing
    /// has no comment count.
    pub sources: Vec<Source>,
    /// Whether comments and reviews by bots count as a reviewer's. Default false: review
    /// bots repeat themselves by design.
    pub(crate) bot_reviewers: bool,
    /// Logins (any case) that are automation although the data does not mark them: a
    /// capture without account types (AIDev's CSVs) knows bots only by a `[bot]` suffix or a
    /// known name, so CI reporters on service accounts read as reviewers unless named here.
    pub(crate) automation_accounts: Vec<String>,
    /// Fix attempts after the first push's red CI before the cycle is exhausted (the
    /// evaluation pipeline's default: 2 retries).
    pub(crate) fix_cycle_limit: usize,
}

impl Default for FeedbackPolicy {
    fn default() -> Self {
        FeedbackPolicy {
            threshold: 0.8,
            min_tokens: 2,
            min_size_ratio: 1.0 / 3.0,
            scope: RepeatScope::SameAuthor,
            sources: Source::ALL.to_vec(),
            bot_reviewers: false,
            automation_accounts: Vec::new(),
            fix_cycle_limit: 2,
        }
    }
}

impl FeedbackPolicy {
    pub(crate) fn check(&self) -> std::result::Result<(), String> {
        if !(self.threshold > 0.0 && self.threshold <= 1.0) {
            return Err(format!("feedback.threshold must be above 0 and at most 1 (it is {})", self.threshold));
        }
        if !(0.0..=1.0).contains(&self.min_size_ratio) {
            return Err(format!("feedback.min_size_ratio must be between 0 and 1 (it is {})", self.min_size_ratio));
        }
        if self.min_tokens == 0 {
            return Err("feedback.min_tokens must be at least 1".into());
        }
        let distinct: BTreeSet<Source> = self.sources.iter().copied().collect();
        if distinct.is_empty() || distinct.len() != self.sources.len() {
            return Err("feedback.sources must name at least one source, each once".into());
        }
        Ok(())
    }
}

/// Who opened a PR, as far as the study knows: the PR of a task (`pr_url`) or of a
/// `create_pull_request` safe output. Other PRs of the snapshot are no agent's as far as
/// the study knows (they get figures too, for comparison).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum OpenedBy {
    Task,
    SafeOutput,
}

impl OpenedBy {
    pub(crate) fn as_str(&self) -> &'static str {
        match self {
            OpenedBy::Task => "task",
            OpenedBy::SafeOutput => "safe_output",
        }
    }
}

/// One agent PR: its repository (numbered by the interner) and number, and what opened it.
#[derive(Clone, Copy)]
struct Opened {
    number: i64,
    repo: u32,
    by: OpenedBy,
}

/// The agent PRs of a study as they are found (safe outputs, then tasks); `finish` makes
/// the [`OpenedPrs`] the feedback tables look PRs up in. Sixteen bytes a PR and each
/// repository's name once: AIDev full has millions of agent PRs.
#[derive(Default)]
pub struct AgentPrs {
    repos: crate::intern::Interner,
    prs: Vec<Opened>,
}

impl AgentPrs {
    pub fn new() -> AgentPrs {
        AgentPrs::default()
    }

    /// Record that `by` opened `repo#number` (a later record of the same PR replaces it).
    pub fn insert(&mut self, repo: &str, number: i64, by: OpenedBy) {
        // More than four billion repositories cannot be numbered; no study has them.
        if let Some(repo) = self.repos.id(repo) {
            self.prs.push(Opened { number, repo, by });
        }
    }

    /// The PRs, each once (the last record of it), sorted for lookup.
    pub fn finish(self) -> OpenedPrs {
        let AgentPrs { repos, mut prs } = self;
        // Reversed, a stable sort puts each PR's last record first; dedup keeps the first.
        prs.reverse();
        prs.sort_by_key(|o| (o.repo, o.number));
        prs.dedup_by_key(|o| (o.repo, o.number));
        prs.shrink_to_fit();
        OpenedPrs { repos, prs }
    }
}

/// The agent PRs of a study, looked up by (repository, number).
#[derive(Default)]
pub struct OpenedPrs {
    repos: crate::intern::Interner,
    /// Sorted by (repository, number), one per PR.
    prs: Vec<Opened>,
}

impl OpenedPrs {
    /// What opened `repo#number`, if an agent did.
    pub fn get(&self, repo: &str, number: i64) -> Option<OpenedBy> {
        let repo = self.repos.find(repo)?;
        let k = self.prs.binary_search_by_key(&(repo, number), |o| (o.repo, o.number)).ok()?;
        Some(self.prs[k].by)
    }

    pub fn len(&self) -> usize {
        self.prs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.prs.is_empty()
    }
}

/// Record the PR a safe output opened, if it is a `create_pull_request` with a target.
pub fn note_output(prs: &mut AgentPrs, o: &crate::runs::SafeOutput) {
    if let (true, Some(repo), Some(n)) = (o.output_type == "create_pull_request", &o.target_repo, o.target_number) {
        prs.insert(repo, n, OpenedBy::SafeOutput);
    }
}

/// A list capture a figure needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Capture {
    Reviews,
    ReviewComments,
    Comments,
    Commits,
    Ci,
    /// A review that asked for a revision names no commit (`commit_id`) and the PR's
    /// commits have no dates to place it by: its round cannot be told.
    ReviewCommit,
}

impl Capture {
    fn as_str(&self) -> &'static str {
        match self {
            Capture::Reviews => "reviews",
            Capture::ReviewComments => "review_comments",
            Capture::Comments => "comments",
            Capture::Commits => "commits",
            Capture::Ci => "ci",
            Capture::ReviewCommit => "review_commit",
        }
    }
}

struct Pr {
    repo: String,
    number: i64,
    author: Option<String>,
    created_at: Option<Instant>,
    /// `open` or `closed` at capture.
    state: Option<String>,
    merged: Option<bool>,
    merged_at: Option<Instant>,
}

impl Pr {
    /// Whether the PR was decided by the capture: merged, or closed unmerged. `None` while
    /// it is open (undecided) or when the capture does not say.
    fn decided_merged(&self) -> Option<bool> {
        match (self.merged, self.state.as_deref()) {
            (Some(true), _) => Some(true),
            (_, Some("closed")) => Some(false),
            _ => None,
        }
    }
}

/// One reviewer comment.
struct Remark {
    pr: usize,
    source: Source,
    id: Option<i64>,
    author: Option<String>,
    created_at: Option<Instant>,
    /// `None` when it keeps fewer than `min_tokens` words (not compared).
    tokens: Option<similarity::Words>,
    repeats: Option<(usize, f64)>,
}

/// A text compared for repeats outside review comments (an agent's self-feedback): its
/// repository, its owner (a task: texts of one owner never repeat each other), when it was
/// said (`None`: not compared), and its normalized words joined by spaces.
pub(crate) struct Said {
    pub(crate) repo: String,
    pub(crate) owner: String,
    pub(crate) at: Option<Instant>,
    pub(crate) text_words: Option<String>,
}

/// For each text, the earlier text of another owner in the same repository it repeats best,
/// and the overlap: the repeated-mistake search of review comments, each owner standing for
/// a PR opened when its first text was said (so only texts said before it are compared).
pub(crate) fn repeats_among(said: &[Said], policy: &FeedbackPolicy) -> Vec<Option<(usize, f64)>> {
    let policy = FeedbackPolicy { scope: RepeatScope::Repository, ..policy.clone() };
    let mut owners: BTreeMap<(&str, &str), usize> = BTreeMap::new();
    let mut prs: Vec<Pr> = Vec::new();
    let mut remarks: Vec<Remark> = Vec::with_capacity(said.len());
    for (k, s) in said.iter().enumerate() {
        let pr = *owners.entry((s.repo.as_str(), s.owner.as_str())).or_insert_with(|| {
            prs.push(Pr { repo: s.repo.clone(), number: prs.len() as i64, author: None, created_at: None, state: None, merged: None, merged_at: None });
            prs.len() - 1
        });
        prs[pr].created_at = match (prs[pr].created_at, s.at) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let words = s.text_words.as_deref().map(|w| w.split(' ').filter(|x| !x.is_empty()).collect::<BTreeSet<&str>>());
        let tokens = words.filter(|w| w.len() >= policy.min_tokens.max(1)).map(|w| w.into_iter().collect::<similarity::Words>());
        remarks.push(Remark { pr, source: Source::Conversation, id: Some(k as i64), author: None, created_at: s.at, tokens, repeats: None });
    }
    repeats::find_repeats(&prs, &mut remarks, &policy);
    remarks.into_iter().map(|r| r.repeats).collect()
}

struct Review {
    pr: usize,
    id: Option<i64>,
    /// Its body, when it has one of its own (not only inline comments).
    body: Option<String>,
    state: Option<String>,
    submitted_at: Option<Instant>,
    /// The commit it reviewed (`commit_id`).
    commit: Option<String>,
}

impl Review {
    /// Whether it asks for a revision: changes requested, or a `COMMENTED` review that
    /// asks for something: one with inline comments (`inline`: (repo, review id) of the
    /// reviews the captured review comments were written in), or one whose body is more
    /// than an acknowledgement ("LGTM", "thanks", ...). GitHub takes a `COMMENTED` review
    /// only with a body or inline comments, so one without a body had inline comments,
    /// unless the PR's review comments were captured (`inline_captured`) and none is its.
    /// Approvals and dismissed reviews ask nothing.
    fn asks_for_revision(&self, repo: &str, inline: &Inline, inline_captured: bool) -> bool {
        match self.state.as_deref() {
            Some("CHANGES_REQUESTED") => true,
            Some("COMMENTED") if self.id.is_some_and(|id| inline.contains(&(repo.to_string(), id))) => true,
            Some("COMMENTED") => match &self.body {
                Some(b) => !is_acknowledgement(b),
                None => !inline_captured,
            },
            _ => false,
        }
    }
}

/// A review body that only acknowledges the PR and asks for nothing: after lowercasing and
/// dropping punctuation, emoji and a trailing "!", one of a few stock phrases.
fn is_acknowledgement(body: &str) -> bool {
    const STOCK: &[&str] = &[
        "lgtm", "looks good", "looks good to me", "looks great", "thanks", "thank you", "thx", "ty", "nice", "great", "great work", "nice work",
        "ship it", "approved", "+1", "",
    ];
    let words: String = body.to_lowercase().chars().map(|c| if c.is_alphanumeric() || c == '+' || c.is_whitespace() { c } else { ' ' }).collect();
    let words = words.split_whitespace().collect::<Vec<_>>().join(" ");
    STOCK.contains(&words.as_str())
}

/// (repo, review id) of every review that review comments were written in.
type Inline = HashSet<(String, i64), Fast>;

/// The reviews with inline comments: the review each captured review comment names.
fn inline_reviews(dataset: &Path, range: &RepoRange) -> Result<Inline> {
    let mut out = Inline::default();
    for batch in columns_in(dataset, range, "review_comments", &["repo", "review_id"])? {
        let c = Cols::new("review_comments", &batch);
        let (repo, id) = (c.str("repo")?, c.int("review_id")?);
        out.extend((0..batch.num_rows()).filter_map(|k| Some((repo[k].clone()?, id[k]?))));
    }
    Ok(out)
}

/// The figures of one PR.
struct Figures {
    review_rounds: Option<i64>,
    first_review_merged: Option<bool>,
    hours_to_pr: Option<f64>,
    first_review_at: Option<Instant>,
    reviewer_comments: Option<i64>,
    repeated_mistakes: Option<i64>,
    first_push_sha: Option<String>,
    first_push_ci: Option<String>,
    fix_attempts: Option<i64>,
    fix_result: Option<fix_cycle::FixResult>,
    missing: Vec<Capture>,
}

/// Hours from task submission to PR creation of the task PRs, by (repository, number): the
/// task's `hours_to_pr` ([`crate::tasks::Timing`]), of the earliest-submitted task naming the
/// PR when several do.
pub(crate) type HoursToPr = BTreeMap<(String, i64), f64>;

// Maps keyed by the dataset's own names and numbers, looked up once per comment, commit
// or list: foldhash, not std's SipHash (nothing here is iterated in hash order).
type Fast = foldhash::fast::FixedState;
/// (repo, number) -> the PR's position in the PRs read.
type Index<'a> = HashMap<(&'a str, i64), usize, Fast>;
/// (repo, list, number) of every list captured whole.
type Captured = HashSet<(String, Capture, i64), Fast>;
/// (repo, sha) -> (ci_state, failure signature).
type CiStates = HashMap<(String, String), (String, Option<String>), Fast>;

/// Compute both tables from the typed tables in `dataset`.
pub fn tables(dataset: &Path, policy: &FeedbackPolicy, agent_prs: &OpenedPrs, hours_to_pr: &HoursToPr) -> Result<Vec<(&'static str, RecordBatch)>> {
    tables_in(dataset, &RepoRange::default(), &ci_states(dataset)?, policy, (agent_prs, hours_to_pr))
}

/// PRs whose feedback is computed at once at most, in [`write_in_bands`].
pub const BAND_PRS: usize = 1 << 16;

/// Both tables written to `dataset` a band of repositories of about `band_prs` PRs at a time
/// (memory bounded by the band: a comment's repeats are looked for in its own repository,
/// and every lookup is by repository), the same bytes as [`tables`] written at once.
pub fn write_in_bands(dataset: &Path, policy: &FeedbackPolicy, agent_prs: &OpenedPrs, hours_to_pr: &HoursToPr, band_prs: usize) -> Result<Vec<(&'static str, crate::dataset::Written)>> {
    let mut per_repo: BTreeMap<Option<String>, usize> = BTreeMap::new();
    for batch in crate::dataset::read::columns(dataset, "pull_requests", &["repo"])? {
        for repo in Cols::new("pull_requests", &batch).str("repo")? {
            *per_repo.entry(repo).or_insert(0) += 1;
        }
    }
    let ci = ci_states(dataset)?;
    let mut writers: Vec<(&'static str, crate::dataset::TableWriter)> = Vec::new();
    for range in crate::dataset::stream::cut(&per_repo, band_prs) {
        for (name, batch) in tables_in(dataset, &range, &ci, policy, (agent_prs, hours_to_pr))? {
            if !writers.iter().any(|(n, _)| *n == name) {
                writers.push((name, crate::dataset::TableWriter::create(dataset, name, batch.schema())?));
            }
            if let Some((_, w)) = writers.iter_mut().find(|(n, _)| *n == name) {
                w.write(&batch)?;
            }
        }
    }
    writers.into_iter().map(|(name, w)| w.finish().map(|w| (name, w))).collect()
}

/// Both tables for the repositories of `range`.
fn tables_in(dataset: &Path, range: &RepoRange, ci: &CiStates, policy: &FeedbackPolicy, (agent_prs, hours_to_pr): (&OpenedPrs, &HoursToPr)) -> Result<Vec<(&'static str, RecordBatch)>> {
    let prs = read_prs(dataset, range)?;
    let index: Index = prs.iter().enumerate().map(|(k, p)| ((p.repo.as_str(), p.number), k)).collect();
    let reviewers = Reviewers { policy, classifier: Classifier::default() };

    // The three tables are read side by side, and beside them which lists were captured and
    // each commit's CI state; their remarks are put together in one order.
    let mut remarks = Vec::new();
    let (((reviews, conversation), review_comments), captured) = rayon::join(
        || {
            rayon::join(
                || {
                    rayon::join(
                        || read_reviews(dataset, range, &prs, &index, &reviewers, &mut remarks),
                        || read_comments((dataset, range), ("issue_comments", "issue_number", Source::Conversation), &prs, &index, &reviewers),
                    )
                },
                || read_comments((dataset, range), ("review_comments", "pull_number", Source::ReviewComment), &prs, &index, &reviewers),
            )
        },
        || captured_lists(dataset, range),
    );
    let (reviews, captured) = (reviews?, captured?);
    remarks.extend(review_comments?);
    remarks.extend(conversation?);
    // Deterministic order whatever the tables' order: by PR, source, id.
    remarks.sort_by_key(|r| (r.pr, r.source, r.id, r.created_at));
    // The PRs' commits are read while repeats are found.
    let ((), commits) = rayon::join(|| repeats::find_repeats(&prs, &mut remarks, policy), || pr_commits(dataset, range, &index));
    let commits = commits?;
    let (rounds_of, first_review) = review_rounds(&prs, &reviews, &commits, (&inline_reviews(dataset, range)?, &captured));
    let mut comments_of = vec![(0i64, 0i64); prs.len()];
    for r in &remarks {
        comments_of[r.pr].0 += 1;
        comments_of[r.pr].1 += i64::from(r.repeats.is_some());
    }
    // The comments are written and let go before the PRs' figures are built.
    let review_feedback = review_feedback(&prs, &remarks)?;
    drop(remarks);
    let evidence = Evidence {
        policy,
        captured: &captured,
        rounds_of: &rounds_of,
        first_review: &first_review,
        comments_of: &comments_of,
        first_push: &first_pushes(&prs, &commits),
        commits: &commits,
        ci,
        hours_to_pr,
    };
    let figures: Vec<Figures> = prs.par_iter().enumerate().map(|(k, pr)| evidence.figures(k, pr)).collect();
    Ok(vec![("review_feedback", review_feedback), ("pr_feedback", pr_feedback(&prs, &figures, agent_prs)?)])
}

/// Who counts as a PR's reviewer under the policy.
struct Reviewers<'a> {
    policy: &'a FeedbackPolicy,
    classifier: Classifier,
}

impl Reviewers<'_> {
    /// Whether `login` (of account type `kind`) reviews `pr`: never its author; automation
    /// accounts and bots only when the policy counts bot reviewers.
    fn is_reviewer(&self, pr: &Pr, login: Option<&str>, kind: Option<&str>) -> bool {
        let policy = self.policy;
        let Some(l) = login else { return false };
        if pr.author.as_deref().is_some_and(|a| a.eq_ignore_ascii_case(l)) {
            return false;
        }
        if policy.automation_accounts.iter().any(|a| a.eq_ignore_ascii_case(l)) {
            return policy.bot_reviewers;
        }
        match self.classifier.classify(&Actor { login: Some(l.to_string()), kind: kind.map(crate::snapshot::github::actor_kind) }) {
            ActorClass::VisibleNonBot | ActorClass::Requester => true,
            ActorClass::Bot | ActorClass::SameWorkflow => policy.bot_reviewers,
            ActorClass::System | ActorClass::Unknown => false,
        }
    }
}

/// The reviewers' submitted reviews of the PRs; their bodies become remarks when the policy
/// reads reviews.
fn read_reviews(dataset: &Path, range: &RepoRange, prs: &[Pr], index: &Index, reviewers: &Reviewers, remarks: &mut Vec<Remark>) -> Result<Vec<Review>> {
    let policy = reviewers.policy;
    let mut reviews = Vec::new();
    for batch in columns_in(dataset, range, "reviews", &["repo", "pull_number", "review_id", "author", "author_type", "state", "submitted_at", "commit_id", "body"])? {
        let c = Cols::new("reviews", &batch);
        let (repo, pull, id, author, kind, state, at, commit, body) = (
            c.str("repo")?,
            c.int("pull_number")?,
            c.int("review_id")?,
            c.str("author")?,
            c.str("author_type")?,
            c.str("state")?,
            c.time("submitted_at")?,
            c.str("commit_id")?,
            c.str("body")?,
        );
        // Rows are read (and their bodies tokenized) in parallel, kept in row order.
        let found: Vec<(Review, Option<Remark>)> = (0..batch.num_rows())
            .into_par_iter()
            .filter_map(|k| {
                let &pr = repo[k].as_deref().zip(pull[k]).and_then(|key| index.get(&key))?;
                if state[k].as_deref() == Some("PENDING") || !reviewers.is_reviewer(&prs[pr], author[k].as_deref(), kind[k].as_deref()) {
                    return None;
                }
                let own = body[k].clone().filter(|b| !b.trim().is_empty());
                let review = Review { pr, id: id[k], body: own, state: state[k].clone(), submitted_at: at[k], commit: commit[k].clone().filter(|c| !c.is_empty()) };
                let said = policy.sources.contains(&Source::Review) && body[k].as_deref().is_some_and(|b| !b.trim().is_empty());
                Some((review, said.then(|| remark(pr, Source::Review, id[k], author[k].clone(), at[k], body[k].as_deref(), policy)).flatten()))
            })
            .collect();
        for (review, said) in found {
            reviews.push(review);
            remarks.extend(said);
        }
    }
    Ok(reviews)
}

/// The reviewers' comments of one comment table (the table, its PR-number column and the
/// source it is), when the policy reads that source.
fn read_comments(
    (dataset, range): (&Path, &RepoRange),
    (table, number, source): (&str, &str, Source),
    prs: &[Pr],
    index: &Index,
    reviewers: &Reviewers,
) -> Result<Vec<Remark>> {
    let policy = reviewers.policy;
    let mut remarks = Vec::new();
    if !policy.sources.contains(&source) {
        return Ok(remarks);
    }
    for batch in columns_in(dataset, range, table, &["repo", number, "comment_id", "author", "author_type", "created_at", "body"])? {
        let c = Cols::new(table, &batch);
        let (repo, n, id, author, kind, at, body) =
            (c.str("repo")?, c.int(number)?, c.int("comment_id")?, c.str("author")?, c.str("author_type")?, c.time("created_at")?, c.str("body")?);
        // Rows are tokenized in parallel and kept in row order.
        let found: Vec<Remark> = (0..batch.num_rows())
            .into_par_iter()
            .filter_map(|k| {
                let &pr = repo[k].as_deref().zip(n[k]).and_then(|key| index.get(&key))?;
                if !reviewers.is_reviewer(&prs[pr], author[k].as_deref(), kind[k].as_deref()) {
                    return None;
                }
                remark(pr, source, id[k], author[k].clone(), at[k], body[k].as_deref(), policy)
            })
            .collect();
        remarks.extend(found);
    }
    Ok(remarks)
}

/// Per PR: the review rounds that asked for a revision before the merge (docs/TASKS.md):
/// the versions (commits) such reviews were given on, `None` in the set for a review whose
/// version cannot be told; and when the PR was first reviewed (a reviewer's first review,
/// any state).
fn review_rounds(prs: &[Pr], reviews: &[Review], commits: &BTreeMap<usize, Commits>, (inline, captured): (&Inline, &Captured)) -> (Vec<BTreeSet<Option<String>>>, Vec<Option<Instant>>) {
    let mut rounds_of: Vec<BTreeSet<Option<String>>> = vec![BTreeSet::new(); prs.len()];
    let mut first_review: Vec<Option<Instant>> = vec![None; prs.len()];
    for r in reviews {
        if let Some(at) = r.submitted_at {
            first_review[r.pr] = Some(first_review[r.pr].map_or(at, |f| f.min(at)));
        }
        let before_merge = match (prs[r.pr].merged_at, r.submitted_at) {
            (Some(m), Some(at)) => at <= m,
            _ => true,
        };
        if !before_merge {
            continue;
        }
        let pr = &prs[r.pr];
        let inline_captured = captured.contains(&(pr.repo.clone(), Capture::ReviewComments, pr.number));
        if r.asks_for_revision(&pr.repo, inline, inline_captured) {
            rounds_of[r.pr].insert(version(r, commits.get(&r.pr).map(Vec::as_slice).unwrap_or_default()));
        }
    }
    (rounds_of, first_review)
}

/// What is known of every PR (indexed as `prs`), for its figures.
struct Evidence<'a> {
    policy: &'a FeedbackPolicy,
    captured: &'a Captured,
    rounds_of: &'a [BTreeSet<Option<String>>],
    first_review: &'a [Option<Instant>],
    /// (reviewer comments, repeated mistakes) per PR.
    comments_of: &'a [(i64, i64)],
    first_push: &'a HashMap<usize, String>,
    commits: &'a BTreeMap<usize, Commits>,
    ci: &'a CiStates,
    hours_to_pr: &'a HoursToPr,
}

impl Evidence<'_> {
    /// PR `k`'s figures, each `None` when a capture it needs is missing (listed).
    fn figures(&self, k: usize, pr: &Pr) -> Figures {
        let (policy, rounds_of, ci) = (self.policy, self.rounds_of, self.ci);
        let has = |c: Capture| self.captured.contains(&(pr.repo.clone(), c, pr.number));
        let mut missing: Vec<Capture> = Vec::new();
        let reviews_there = has(Capture::Reviews);
        if !reviews_there {
            missing.push(Capture::Reviews);
        }
        for s in &policy.sources {
            let c = s.capture();
            if !has(c) && !missing.contains(&c) {
                missing.push(c);
            }
        }
        let comments_there = policy.sources.iter().all(|s| has(s.capture()));
        let versions_known = !rounds_of[k].contains(&None);
        if reviews_there && !versions_known {
            missing.push(Capture::ReviewCommit);
        }
        let rounds = (reviews_there && versions_known).then_some(rounds_of[k].len() as i64);
        // Merged after no review asked for a revision; undecided (open) PRs have no value.
        let asked = !rounds_of[k].is_empty();
        let first_review_merged = if reviews_there { pr.decided_merged().map(|m| m && !asked) } else { None };
        let (count, repeated) = self.comments_of[k];
        let sha = self.first_push.get(&k).cloned();
        if !has(Capture::Commits) {
            missing.push(Capture::Commits);
        }
        let state = sha.as_ref().and_then(|s| ci.get(&(pr.repo.clone(), s.clone())).map(|(state, _)| state.clone()));
        if sha.is_some() && state.is_none() {
            missing.push(Capture::Ci);
        }
        let list = self.commits.get(&k).map(Vec::as_slice).unwrap_or_default();
        let cycle = sha.as_deref().map(|first| fix_cycle::fix_cycle(pr, list, first, policy.fix_cycle_limit, |c| ci.get(&(pr.repo.clone(), c.to_string()))));
        missing.sort();
        Figures {
            review_rounds: rounds,
            first_review_merged,
            hours_to_pr: self.hours_to_pr.get(&(pr.repo.clone(), pr.number)).copied(),
            first_review_at: if reviews_there { self.first_review[k] } else { None },
            reviewer_comments: comments_there.then_some(count),
            repeated_mistakes: comments_there.then_some(repeated),
            first_push_sha: sha,
            first_push_ci: state,
            fix_attempts: cycle.and_then(|(n, _)| n),
            fix_result: cycle.map(|(_, r)| r),
            missing,
        }
    }
}

/// A reviewer's comment as compared; `None` for a command to a bot, which is no
/// reviewer's words.
fn remark(
    pr: usize,
    source: Source,
    id: Option<i64>,
    author: Option<String>,
    at: Option<Instant>,
    body: Option<&str>,
    policy: &FeedbackPolicy,
) -> Option<Remark> {
    let body = body.unwrap_or("");
    if similarity::is_command(body) {
        return None;
    }
    let words = similarity::tokens(body);
    let tokens = (words.len() >= policy.min_tokens).then(|| words.iter().collect());
    Some(Remark { pr, source, id, author, created_at: at, tokens, repeats: None })
}

fn read_prs(dataset: &Path, range: &RepoRange) -> Result<Vec<Pr>> {
    let mut prs: BTreeMap<(String, i64), Pr> = BTreeMap::new();
    for batch in columns_in(dataset, range, "pull_requests", &["repo", "number", "author", "created_at", "state", "merged", "merged_at"])? {
        let c = Cols::new("pull_requests", &batch);
        let (repo, number, author, created, state, merged, merged_at) =
            (c.str("repo")?, c.int("number")?, c.str("author")?, c.time("created_at")?, c.str("state")?, c.bool("merged")?, c.time("merged_at")?);
        for k in 0..batch.num_rows() {
            let (Some(r), Some(n)) = (repo[k].clone(), number[k]) else { continue };
            prs.entry((r.clone(), n)).or_insert(Pr {
                repo: r,
                number: n,
                author: author[k].clone(),
                created_at: created[k],
                state: state[k].clone(),
                // The pulls API always says `merged`; other shapes say it by `merged_at`.
                merged: merged[k].or(merged_at[k].map(|_| true)),
                merged_at: merged_at[k],
            });
        }
    }
    Ok(prs.into_values().collect())
}

/// (repo, list, number) of every list captured whole (2xx, the copy in use).
fn captured_lists(dataset: &Path, range: &RepoRange) -> Result<Captured> {
    let mut out = Captured::default();
    for batch in columns_in(dataset, range, "responses", &["repo", "path", "status", "superseded_by"])? {
        let c = Cols::new("responses", &batch);
        let (path, status, old) = (c.str("path")?, c.int("status")?, c.superseded());
        for k in 0..batch.num_rows() {
            if old[k] || !status[k].is_some_and(|s| (200..300).contains(&s)) {
                continue;
            }
            let Some((repo, res)) = path[k].as_deref().and_then(paths::parse) else { continue };
            let entry = match res {
                Resource::PullReviews(n) => (Capture::Reviews, n),
                Resource::PullReviewComments(n) => (Capture::ReviewComments, n),
                Resource::IssueComments(n) => (Capture::Comments, n),
                Resource::PullCommits(n) => (Capture::Commits, n),
                _ => continue,
            };
            out.insert((repo.to_string(), entry.0, entry.1));
        }
    }
    Ok(out)
}

/// A PR's commits as captured: (position, sha, committed_at, author), in position order.
type Commits = Vec<fix_cycle::Commit>;

/// Each PR's commits (`commits`), by PR.
fn pr_commits(dataset: &Path, range: &RepoRange, index: &Index) -> Result<BTreeMap<usize, Commits>> {
    let mut commits: BTreeMap<usize, Commits> = BTreeMap::new();
    for batch in columns_in(dataset, range, "commits", &["repo", "pull_number", "position", "sha", "committed_at", "author"])? {
        let c = Cols::new("commits", &batch);
        let (repo, pull, pos, sha, at) = (c.str("repo")?, c.int("pull_number")?, c.int("position")?, c.str("sha")?, c.time("committed_at")?);
        let author = c.str("author")?;
        for k in 0..batch.num_rows() {
            let Some(&pr) = repo[k].as_deref().zip(pull[k]).and_then(|key| index.get(&key)) else { continue };
            if let (Some(p), Some(s)) = (pos[k], sha[k].clone()) {
                commits.entry(pr).or_default().push((p, s, at[k], author[k].clone()));
            }
        }
    }
    for list in commits.values_mut() {
        list.sort();
    }
    Ok(commits)
}

/// The head of each PR's first push: the last of its commits committed when the PR was
/// opened (a PR is opened from a pushed branch), else its first commit.
fn first_pushes(prs: &[Pr], commits: &BTreeMap<usize, Commits>) -> HashMap<usize, String> {
    let mut out = HashMap::new();
    for (&pr, list) in commits {
        let opened = prs[pr].created_at;
        let at_open = list.iter().rev().find(|(_, _, at, _)| matches!((at, opened), (Some(a), Some(o)) if a <= &o));
        if let Some((_, sha, _, _)) = at_open.or(list.first()) {
            out.insert(pr, sha.clone());
        }
    }
    out
}

/// The version of the PR a review was given on: the commit it names (`commit_id`), else the
/// last of the PR's commits committed at or before the review (when the review and every
/// commit have a time), else `None`: the round cannot be told.
fn version(r: &Review, commits: &[fix_cycle::Commit]) -> Option<String> {
    if let Some(c) = &r.commit {
        return Some(c.clone());
    }
    let at = r.submitted_at?;
    if commits.is_empty() || commits.iter().any(|(_, _, t, _)| t.is_none()) {
        return None;
    }
    commits.iter().filter(|(_, _, t, _)| t.is_some_and(|t| t <= at)).max_by_key(|(p, _, t, _)| (*t, *p)).map(|(_, sha, _, _)| sha.clone())
}

/// (repo, sha) -> ci_state, from `ci_commits`.
fn ci_states(dataset: &Path) -> Result<CiStates> {
    Ok(crate::snapshot::ci::read_commits(dataset)?.into_iter().map(|(repo, sha, state, sig)| ((repo, sha), (state, sig))).collect())
}

/// The columns of `review_feedback`, one row per reviewer comment.
const REVIEW_FEEDBACK: &[(&str, Kind)] = &[
    ("repo", Kind::Str),
    ("pull_number", Kind::Int),
    ("source", Kind::Str),
    ("comment_id", Kind::Int),
    ("author", Kind::Str),
    ("created_at", Kind::Time),
    ("tokens", Kind::Str),
    ("repeats_pull_number", Kind::Int),
    ("repeats_source", Kind::Str),
    ("repeats_comment_id", Kind::Int),
    ("similarity", Kind::Float),
];

// Both tables are built column by column: a cell per value held a million-output study's
// feedback at ~300 MB before it was encoded.
fn review_feedback(prs: &[Pr], remarks: &[Remark]) -> Result<RecordBatch> {
    let pr = |r: &Remark| &prs[r.pr];
    let earlier = |r: &Remark| r.repeats.map(|(e, score)| (&remarks[e], score));
    let columns: Vec<ArrayRef> = vec![
        str_column(remarks.iter().map(|r| Some(pr(r).repo.as_str()))),
        int_column(remarks.iter().map(|r| Some(pr(r).number))),
        str_column(remarks.iter().map(|r| Some(r.source.as_str()))),
        int_column(remarks.iter().map(|r| r.id)),
        str_column(remarks.iter().map(|r| r.author.as_deref())),
        time_column(remarks.iter().map(|r| r.created_at)),
        str_column(remarks.iter().map(|r| r.tokens.as_ref().map(similarity::Words::as_str))),
        int_column(remarks.iter().map(|r| earlier(r).map(|(e, _)| prs[e.pr].number))),
        str_column(remarks.iter().map(|r| earlier(r).map(|(e, _)| e.source.as_str()))),
        int_column(remarks.iter().map(|r| earlier(r).and_then(|(e, _)| e.id))),
        float_column(remarks.iter().map(|r| earlier(r).map(|(_, score)| (score * 10_000.0).round() / 10_000.0))),
    ];
    Ok(RecordBatch::try_new(arrow_schema(REVIEW_FEEDBACK), columns)?)
}

/// The columns of `pr_feedback`, one row per pull request.
const PR_FEEDBACK: &[(&str, Kind)] = &[
    ("repo", Kind::Str),
    ("number", Kind::Int),
    ("author", Kind::Str),
    ("opened_by", Kind::Str),
    ("created_at", Kind::Time),
    ("state", Kind::Str),
    ("merged", Kind::Bool),
    ("review_rounds", Kind::Int),
    ("first_review_merged", Kind::Bool),
    ("hours_to_pr", Kind::Float),
    ("first_review_at", Kind::Time),
    ("hours_to_first_review", Kind::Float),
    ("reviewer_comments", Kind::Int),
    ("repeated_mistake_count", Kind::Int),
    ("first_push_sha", Kind::Str),
    ("first_push_ci", Kind::Str),
    ("fix_attempts", Kind::Int),
    ("fix_result", Kind::Str),
    ("missing", Kind::Str),
];

fn pr_feedback(prs: &[Pr], figures: &[Figures], agent_prs: &OpenedPrs) -> Result<RecordBatch> {
    let rows = || prs.iter().zip(figures);
    let missing: Vec<Option<String>> = figures.iter().map(|x| (!x.missing.is_empty()).then(|| x.missing.iter().map(Capture::as_str).collect::<Vec<_>>().join(","))).collect();
    let columns: Vec<ArrayRef> = vec![
        str_column(prs.iter().map(|pr| Some(pr.repo.as_str()))),
        int_column(prs.iter().map(|pr| Some(pr.number))),
        str_column(prs.iter().map(|pr| pr.author.as_deref())),
        str_column(prs.iter().map(|pr| agent_prs.get(&pr.repo, pr.number).map(|b| b.as_str()))),
        time_column(prs.iter().map(|pr| pr.created_at)),
        str_column(prs.iter().map(|pr| pr.state.as_deref())),
        bool_column(prs.iter().map(|pr| pr.merged)),
        int_column(figures.iter().map(|x| x.review_rounds)),
        bool_column(figures.iter().map(|x| x.first_review_merged)),
        float_column(figures.iter().map(|x| x.hours_to_pr)),
        time_column(figures.iter().map(|x| x.first_review_at)),
        float_column(rows().map(|(pr, x)| x.first_review_at.zip(pr.created_at).map(|(r, c)| crate::time::hours_between(&c, &r)))),
        int_column(figures.iter().map(|x| x.reviewer_comments)),
        int_column(figures.iter().map(|x| x.repeated_mistakes)),
        str_column(figures.iter().map(|x| x.first_push_sha.as_deref())),
        str_column(figures.iter().map(|x| x.first_push_ci.as_deref())),
        int_column(figures.iter().map(|x| x.fix_attempts)),
        str_column(figures.iter().map(|x| x.fix_result.map(fix_cycle::FixResult::as_str))),
        str_column(missing.iter().map(Option::as_deref)),
    ];
    Ok(RecordBatch::try_new(arrow_schema(PR_FEEDBACK), columns)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each PR once, found by its repository and number, the last record of it winning (a
    /// task's PR that a safe output opened too is the task's, as the pipeline records them).
    #[test]
    fn agent_prs_are_found_by_repository_and_number_the_last_record_winning() {
        let mut prs = AgentPrs::new();
        prs.insert("o/b", 2, OpenedBy::SafeOutput);
        prs.insert("o/a", 9, OpenedBy::SafeOutput);
        prs.insert("o/b", 1, OpenedBy::SafeOutput);
        prs.insert("o/b", 2, OpenedBy::Task);
        prs.insert("o/a", 9, OpenedBy::Task);
        prs.insert("o/a", 9, OpenedBy::SafeOutput);
        let opened = prs.finish();
        assert_eq!(opened.len(), 3);
        assert_eq!(opened.get("o/b", 2), Some(OpenedBy::Task));
        assert_eq!(opened.get("o/a", 9), Some(OpenedBy::SafeOutput));
        assert_eq!(opened.get("o/b", 1), Some(OpenedBy::SafeOutput));
        assert_eq!(opened.get("o/b", 3), None);
        assert_eq!(opened.get("O/b", 2), None, "repositories as written, as the captures' paths are");
        assert!(AgentPrs::new().finish().is_empty());
    }

    fn review(state: &str, body: Option<&str>) -> Review {
        Review { pr: 0, id: Some(7), body: body.map(str::to_string), state: Some(state.into()), submitted_at: None, commit: None }
    }

    /// A `COMMENTED` review asks for a revision when it comments on the code or asks for
    /// something in its body; one that only acknowledges the PR does not.
    #[test]
    fn commented_reviews_that_ask_for_nothing_are_no_revision_request() {
        let none = Inline::default();
        let mut inline = Inline::default();
        inline.insert(("acme/app".to_string(), 7));
        let asks = |r: Review, inline: &Inline, captured: bool| r.asks_for_revision("acme/app", inline, captured);
        assert!(asks(review("CHANGES_REQUESTED", None), &none, true));
        assert!(asks(review("COMMENTED", Some("LGTM")), &inline, true), "inline comments ask, whatever the body");
        assert!(asks(review("COMMENTED", Some("nit: rename `cols` to `columns`")), &none, true));
        for ack in ["LGTM", "Looks good to me!", "Thanks 🙏", "+1", "👍"] {
            assert!(!asks(review("COMMENTED", Some(ack)), &none, true), "{ack}");
        }
        // No body: GitHub took it for its inline comments, unless none was captured.
        assert!(asks(review("COMMENTED", None), &none, false));
        assert!(!asks(review("COMMENTED", None), &none, true));
        assert!(!asks(review("APPROVED", Some("please rename")), &none, true));
        assert!(!asks(review("DISMISSED", None), &none, false));
    }
}
