//! Typed snapshot tables for SQL users. The evaluators read the same objects through
//! `github.rs`; these tables are a flat, queryable copy, and `responses` keeps every body
//! verbatim so nothing in the input is lost.

use super::github::{self, list, Comment, Commit, Issue, PullRequest, Reaction, Review};
use super::paths::{self, Resource};
use super::sparse::{Keys, Sparse};
use super::Capture;
use crate::json::Json;
use crate::table::{b, i, ob, oi, os, s, so, t, Cell, Kind, Table};

/// The `responses` table, built straight into Arrow arrays from the captures: bodies are
/// most of a dataset, so they are copied once, not through the row store.
pub fn responses_batch(captures: &[Capture]) -> Result<arrow::record_batch::RecordBatch, arrow::error::ArrowError> {
    use arrow::array::{ArrayRef, Int64Array, StringArray, TimestampMicrosecondArray};
    use std::sync::Arc;
    let schema = responses(&[]).arrow_schema();
    let cols: Vec<ArrayRef> = vec![
        Arc::new(StringArray::from_iter_values(captures.iter().map(|c| c.path.as_str()))),
        Arc::new(Int64Array::from_iter_values(captures.iter().map(|c| c.page))),
        Arc::new(Int64Array::from_iter_values(captures.iter().map(|c| c.status as i64))),
        Arc::new(StringArray::from_iter(captures.iter().map(|c| paths::repo_of(&c.path)))),
        Arc::new(TimestampMicrosecondArray::from_iter(captures.iter().map(|c| c.captured_at.map(|t| t.timestamp_micros()))).with_timezone("UTC")),
        // Through `str_column`: its buffer is sized once (bodies are most of a batch).
        crate::table::str_column(captures.iter().map(|c| Some(c.body.as_str()))),
        Arc::new(StringArray::from_iter_values(captures.iter().map(|c| c.file.as_str()))),
        Arc::new(Int64Array::from_iter(captures.iter().map(|c| c.line.map(|l| l as i64)))),
        Arc::new(StringArray::from_iter(captures.iter().map(|c| c.superseded_by.as_deref()))),
    ];
    arrow::record_batch::RecordBatch::try_new(schema, cols)
}

/// The `responses` table through the row store (its schema is the one `responses_batch`
/// writes).
pub fn responses(captures: &[Capture]) -> Table {
    let mut tb = Table::new(
        "responses",
        &[
            ("path", Kind::Str),
            ("page", Kind::Int),
            ("status", Kind::Int),
            ("repo", Kind::Str),
            ("captured_at", Kind::Time),
            ("body", Kind::Str),
            ("source_file", Kind::Str),
            ("source_line", Kind::Int),
            ("superseded_by", Kind::Str),
        ],
    );
    for c in captures {
        let repo = paths::repo_of(&c.path);
        tb.push(vec![
            s(&c.path),
            i(c.page),
            i(c.status as i64),
            os(repo),
            t(c.captured_at),
            s(&c.body),
            s(&c.file),
            oi(c.line.map(|l| l as i64)),
            os(c.superseded_by.as_deref()),
        ]);
    }
    tb
}

/// All typed tables, built from the captures one page at a time (captures come sorted by
/// repository, path and page, so list pages follow each other), parsing each body once and keeping
/// nothing of it: memory stays near the size of the input. A path with any failed page is
/// left out, as the evaluators leave it out.
pub fn typed(captures: &[Capture]) -> Vec<Table> {
    typed_read(captures, Reading::Sparse)
}

/// Typed rows not yet finished: those of consecutive pieces of captures, each read on its
/// own (every page of a path in one piece), are put together in order and finished once
/// for whole repositories. A piece need not hold whole repositories: a comment captured both
/// in its list and alone is kept once, a commit's check runs and statuses are one commit's
/// checks, and rows are sorted by repository, all when the rows are finished. So a batch
/// that holds one large repository is read on every core, not one.
pub struct TypedRows(Typed);

/// `captures` (every page of each of their paths) read into typed rows.
pub fn typed_rows(captures: &[Capture]) -> TypedRows {
    let mut tables = Typed::new();
    tables.read(captures, Reading::Sparse);
    TypedRows(tables)
}

impl TypedRows {
    /// `later`'s rows after these (read from the captures that follow these).
    pub fn append(&mut self, later: TypedRows) {
        self.0.append(later.0);
    }

    /// The typed tables of the captures read, which must be every capture of their
    /// repositories: what [`typed`] makes of them.
    pub fn finish(self) -> Vec<Table> {
        self.0.finish()
    }
}

/// How the typed tables read a body.
#[derive(Clone, Copy)]
enum Reading {
    /// Only the keys a resource's rows read are kept ([`Sparse`]); strings borrow from the
    /// body. Bodies are most of a snapshot, and most of a body is keys no column reads.
    Sparse,
    /// Every body a whole `serde_json::Value`: the reference the sparse reading is tested
    /// against.
    #[cfg(test)]
    Value,
}

fn typed_read(captures: &[Capture], reading: Reading) -> Vec<Table> {
    let mut tables = Typed::new();
    tables.read(captures, reading);
    tables.finish()
}

impl Typed {
    /// Rows from `captures`, which hold every page of each of their paths.
    fn read(&mut self, captures: &[Capture], reading: Reading) {
        let tables = self;
        let failed: std::collections::HashSet<&str, foldhash::fast::FixedState> =
            captures.iter().filter(|c| !(200..300).contains(&c.status)).map(|c| c.path.as_str()).collect();
        // Position of a list element across the pages of its path.
        let mut last_path = "";
        let mut offset = 0usize;
        for c in captures {
            let path = c.path.as_str();
            if failed.contains(path) {
                continue;
            }
            let Some((repo, res)) = paths::parse(path) else { continue };
            if matches!(res, Resource::Other(_) | Resource::Compare(..) | Resource::ActionsRun(_) | Resource::PullRequestedReviewers(_)) {
                continue;
            }
            if path != last_path {
                last_path = path;
                offset = 0;
            }
            let items = match (keys_of(&res), reading) {
                // The checks of a commit are read from a whole `Value` (`ci.rs`).
                (None, _) => {
                    let Ok(body) = serde_json::from_str::<serde_json::Value>(&c.body) else { continue };
                    tables.add_checks(repo, res, &body);
                    0
                }
                (Some(keys), Reading::Sparse) => {
                    let Some(body) = Sparse::try_parse(&c.body, keys) else { continue };
                    tables.add_page(repo, res, path, &body, offset);
                    body.as_array().map_or(0, <[_]>::len)
                }
                #[cfg(test)]
                (Some(_), Reading::Value) => {
                    let Ok(body) = serde_json::from_str::<serde_json::Value>(&c.body) else { continue };
                    tables.add_page(repo, res, path, &body, offset);
                    body.as_array().map_or(0, Vec::len)
                }
            };
            offset += items;
        }
    }

    /// `later`'s rows after these; a commit's checks read apart are put together.
    fn append(&mut self, later: Typed) {
        let Typed { issues, pulls, comments, review_comments, reviews, commits, events, reactions, labels, commit_checks } = later;
        for (mine, theirs) in [
            (&mut self.issues, issues),
            (&mut self.pulls, pulls),
            (&mut self.comments, comments),
            (&mut self.review_comments, review_comments),
            (&mut self.reviews, reviews),
            (&mut self.commits, commits),
            (&mut self.events, events),
            (&mut self.reactions, reactions),
            (&mut self.labels, labels),
        ] {
            mine.append(theirs);
        }
        for (commit, checks) in commit_checks {
            self.commit_checks.entry(commit).or_default().extend(checks);
        }
    }
}

/// The keys the rows of resource `res` read (`None`: its body is read whole). An issue's
/// row also hashes its `body`.
fn keys_of(res: &Resource) -> Option<Keys> {
    Some(match res {
        Resource::Issue(_) => |k| github::issue_keys(k).or(if k == "body" { Some("body") } else { None }),
        Resource::Pull(_) => github::pull_keys,
        Resource::IssueComments(_) | Resource::IssueComment(_) | Resource::PullReviewComments(_) => github::comment_keys,
        Resource::PullReviews(_) => github::review_keys,
        Resource::PullCommits(_) => github::commit_keys,
        Resource::IssueEvents(_) | Resource::IssueTimeline(_) => github::event_keys,
        Resource::IssueReactions(_) | Resource::IssueCommentReactions(_) => github::reaction_keys,
        Resource::IssueLabels(_) => github::name_keys,
        _ => return None,
    })
}

/// The typed tables while they fill, and each commit's checks, gathered until the end.
struct Typed {
    issues: Table,
    pulls: Table,
    comments: Table,
    review_comments: Table,
    reviews: Table,
    commits: Table,
    events: Table,
    reactions: Table,
    labels: Table,
    /// Checks per (repo, sha), both lists of a commit together.
    commit_checks: std::collections::BTreeMap<(String, String), Vec<super::ci::Check>>,
}

impl Typed {
    /// Every table empty, with its columns.
    fn new() -> Typed {
        Typed {
            issues: issues_table(),
            pulls: pulls_table(),
            comments: issue_comments_table(),
            review_comments: review_comments_table(),
            reviews: reviews_table(),
            commits: commits_table(),
            events: timeline_events_table(),
            reactions: reactions_table(),
            labels: Table::new("issue_labels", &[("repo", Kind::Str), ("issue_number", Kind::Int), ("label", Kind::Str)]),
            commit_checks: Default::default(),
        }
    }

    /// The rows of one page of `path` (resource `res` of `repo`), whose list items start at
    /// position `offset` across the path's pages.
    fn add_page<J: Json>(&mut self, repo: &str, res: Resource, path: &str, v: &J, offset: usize) {
        match res {
            Resource::Issue(n) => self.issues.push(issue_row(repo, n, v)),
            Resource::Pull(n) => self.pulls.push(pull_row(repo, n, v)),
            Resource::IssueComments(n) => {
                for c in list(v, Comment::from) {
                    push_comment(&mut self.comments, repo, Some(n), c);
                }
            }
            Resource::IssueComment(_) => {
                let c = Comment::from(v);
                let n = c.issue_number;
                push_comment(&mut self.comments, repo, n, c);
            }
            Resource::PullReviewComments(n) => {
                for c in list(v, Comment::from) {
                    self.review_comments.push(vec![
                        s(repo),
                        i(n),
                        oi(c.id),
                        oi(c.in_reply_to_id),
                        so(c.path),
                        so(c.user.login),
                        os(c.user.kind),
                        t(c.created_at),
                        so(c.body),
                        oi(c.review_id),
                    ]);
                }
            }
            Resource::PullReviews(n) => {
                for r in list(v, Review::from) {
                    self.reviews.push(vec![
                        s(repo),
                        i(n),
                        oi(r.id),
                        so(r.user.login),
                        os(r.user.kind),
                        so(r.state),
                        t(r.submitted_at),
                        so(r.commit_id),
                        so(r.body),
                    ]);
                }
            }
            Resource::PullCommits(n) => self.add_commits(repo, n, v, offset),
            Resource::IssueEvents(n) | Resource::IssueTimeline(n) => self.add_events(repo, n, path, v, offset),
            Resource::IssueReactions(id) | Resource::IssueCommentReactions(id) => {
                let subject = if path.contains("/comments/") { "issue_comment" } else { "issue" };
                for r in list(v, Reaction::from) {
                    self.reactions.push(vec![s(repo), s(subject), i(id), oi(r.id), so(r.user.login), os(r.user.kind), so(r.content), t(r.created_at)]);
                }
            }
            Resource::IssueLabels(n) => {
                for l in crate::json::names(v).unwrap_or_default() {
                    self.labels.push(vec![s(repo), i(n), s(l)]);
                }
            }
            _ => {}
        }
    }

    /// A page of a commit's check runs or statuses.
    fn add_checks(&mut self, repo: &str, res: Resource, v: &serde_json::Value) {
        let checks = match res {
            Resource::CheckRuns(sha) => (sha, super::ci::check_runs(v)),
            Resource::CommitStatus(sha) => (sha, super::ci::statuses(v)),
            _ => return,
        };
        self.commit_checks.entry((repo.to_string(), checks.0)).or_default().extend(checks.1);
    }

    /// A page of a pull request's commits, numbered from `offset`.
    fn add_commits<J: Json>(&mut self, repo: &str, n: i64, v: &J, offset: usize) {
        for (pos, c) in list(v, Commit::from).into_iter().enumerate().map(|(i, c)| (i + offset, c)) {
            self.commits.push(vec![
                s(repo),
                i(n),
                i(pos as i64),
                so(c.sha),
                so(c.author.login),
                so(c.committer.login),
                t(c.authored_at),
                t(c.committed_at),
                so(c.message),
            ]);
        }
    }

    /// A page of an issue's events or timeline (as `path` says), numbered from `offset`.
    fn add_events<J: Json>(&mut self, repo: &str, n: i64, path: &str, v: &J, offset: usize) {
        let source = if path.ends_with("/timeline") { "timeline" } else { "events" };
        for (pos, ev) in crate::snapshot::github::events(v).into_iter().enumerate().map(|(i, e)| (i + offset, e)) {
            self.events.push(vec![
                s(repo),
                i(n),
                s(source),
                i(pos as i64),
                oi(ev.id),
                so(ev.event),
                so(ev.actor.login),
                os(ev.actor.kind),
                t(ev.created_at),
                so(ev.label),
                so(ev.commit_id),
                so(ev.state_reason),
                so(ev.assignee),
                oi(ev.source_number),
            ]);
        }
    }

    /// The tables as written: comments captured twice kept once, and the CI tables made
    /// from each commit's checks.
    fn finish(self) -> Vec<Table> {
        let Typed { issues, pulls, mut comments, review_comments, reviews, commits, events, reactions, labels, commit_checks } = self;
        // Comments captured both in a list and alone appear twice; keep one.
        comments.sort_by_columns(&["repo", "comment_id", "issue_number"]);
        comments.dedup_by_columns(&["repo", "comment_id"]);
        comments.sort_by_columns(&["repo", "issue_number", "comment_id"]);
        let (ci_checks, ci_commits) = ci_tables(&commit_checks);
        vec![issues, pulls, comments, review_comments, reviews, commits, events, reactions, labels, ci_checks, ci_commits]
    }
}

/// `ci_checks` (every check of a commit) and `ci_commits` (the commit's CI state) from the
/// checks gathered per (repo, sha).
fn ci_tables(commit_checks: &std::collections::BTreeMap<(String, String), Vec<super::ci::Check>>) -> (Table, Table) {
    let mut ci_checks = ci_checks_table();
    let mut ci_commits = ci_commits_table();
    for ((repo, sha), checks) in commit_checks {
        for c in checks {
            ci_checks.push(vec![
                s(repo),
                s(sha),
                s(c.kind),
                s(&c.name),
                os(c.status.as_ref()),
                os(c.conclusion.as_ref()),
                s(c.token()),
                b(c.fails()),
                t(c.started_at),
                t(c.completed_at),
            ]);
        }
        let ci = super::ci::CommitCi::of(Some(checks));
        ci_commits.push(vec![s(repo), s(sha), s(ci.state.as_str()), i(ci.checks as i64), i(ci.failing as i64), t(ci.finished_at), so(ci.signature)]);
    }
    (ci_checks, ci_commits)
}

/// An `issues` row: the issue (or PR read as one) at `repos/O/R/issues/{n}`.
fn issue_row<J: Json>(repo: &str, n: i64, v: &J) -> Vec<Cell> {
    let x = Issue::from(v);
    vec![
        s(repo),
        oi(x.number.or(Some(n))),
        b(x.is_pull_request),
        so(x.title),
        so(x.state),
        so(x.state_reason),
        so(x.user.login),
        os(x.user.kind),
        t(x.created_at),
        t(x.closed_at),
        so(x.closed_by.login),
        so(x.labels.map(|l| l.join(","))),
        s(x.assignees.join(",")),
        oi(x.milestone),
        oi(x.comments),
        oi(x.reactions_total),
        so(super::github::body_hash(v)),
    ]
}

/// A `pull_requests` row: the pull request at `repos/O/R/pulls/{n}`.
fn pull_row<J: Json>(repo: &str, n: i64, v: &J) -> Vec<Cell> {
    let x = PullRequest::from(v);
    vec![
        s(repo),
        oi(x.number.or(Some(n))),
        so(x.title),
        so(x.state),
        ob(x.merged),
        ob(x.draft),
        so(x.user.login),
        os(x.user.kind),
        so(x.merged_by.login),
        t(x.created_at),
        t(x.closed_at),
        t(x.merged_at),
        so(x.merge_commit_sha),
        so(x.head_ref),
        so(x.head_sha),
        so(x.base_ref),
        so(x.labels.map(|l| l.join(","))),
    ]
}

/// The `issues` table, empty.
fn issues_table() -> Table {
    Table::new(
        "issues",
        &[
            ("repo", Kind::Str),
            ("number", Kind::Int),
            ("is_pull_request", Kind::Bool),
            ("title", Kind::Str),
            ("state", Kind::Str),
            ("state_reason", Kind::Str),
            ("author", Kind::Str),
            ("author_type", Kind::Str),
            ("created_at", Kind::Time),
            ("closed_at", Kind::Time),
            ("closed_by", Kind::Str),
            ("labels", Kind::Str),
            ("assignees", Kind::Str),
            ("milestone_number", Kind::Int),
            ("comments", Kind::Int),
            ("reactions_total", Kind::Int),
            ("body_hash", Kind::Str),
        ],
    )
}

/// The `pull_requests` table, empty.
fn pulls_table() -> Table {
    Table::new(
        "pull_requests",
        &[
            ("repo", Kind::Str),
            ("number", Kind::Int),
            ("title", Kind::Str),
            ("state", Kind::Str),
            ("merged", Kind::Bool),
            ("draft", Kind::Bool),
            ("author", Kind::Str),
            ("author_type", Kind::Str),
            ("merged_by", Kind::Str),
            ("created_at", Kind::Time),
            ("closed_at", Kind::Time),
            ("merged_at", Kind::Time),
            ("merge_commit_sha", Kind::Str),
            ("head_ref", Kind::Str),
            ("head_sha", Kind::Str),
            ("base_ref", Kind::Str),
            ("labels", Kind::Str),
        ],
    )
}

/// The `issue_comments` table, empty.
fn issue_comments_table() -> Table {
    Table::new(
        "issue_comments",
        &[
            ("repo", Kind::Str),
            ("issue_number", Kind::Int),
            ("comment_id", Kind::Int),
            ("author", Kind::Str),
            ("author_type", Kind::Str),
            ("created_at", Kind::Time),
            ("updated_at", Kind::Time),
            ("reactions_total", Kind::Int),
            ("minimized", Kind::Bool),
            ("body", Kind::Str),
        ],
    )
}

/// The `review_comments` table, empty.
fn review_comments_table() -> Table {
    Table::new(
        "review_comments",
        &[
            ("repo", Kind::Str),
            ("pull_number", Kind::Int),
            ("comment_id", Kind::Int),
            ("in_reply_to_id", Kind::Int),
            ("path", Kind::Str),
            ("author", Kind::Str),
            ("author_type", Kind::Str),
            ("created_at", Kind::Time),
            ("body", Kind::Str),
            ("review_id", Kind::Int),
        ],
    )
}

/// The `reviews` table, empty.
fn reviews_table() -> Table {
    Table::new(
        "reviews",
        &[
            ("repo", Kind::Str),
            ("pull_number", Kind::Int),
            ("review_id", Kind::Int),
            ("author", Kind::Str),
            ("author_type", Kind::Str),
            ("state", Kind::Str),
            ("submitted_at", Kind::Time),
            ("commit_id", Kind::Str),
            ("body", Kind::Str),
        ],
    )
}

/// The `commits` table, empty.
fn commits_table() -> Table {
    Table::new(
        "commits",
        &[
            ("repo", Kind::Str),
            ("pull_number", Kind::Int),
            ("position", Kind::Int),
            ("sha", Kind::Str),
            ("author", Kind::Str),
            ("committer", Kind::Str),
            ("authored_at", Kind::Time),
            ("committed_at", Kind::Time),
            ("message", Kind::Str),
        ],
    )
}

/// The `timeline_events` table, empty.
fn timeline_events_table() -> Table {
    Table::new(
        "timeline_events",
        &[
            ("repo", Kind::Str),
            ("issue_number", Kind::Int),
            ("source", Kind::Str),
            ("position", Kind::Int),
            ("event_id", Kind::Int),
            ("event", Kind::Str),
            ("actor", Kind::Str),
            ("actor_type", Kind::Str),
            ("created_at", Kind::Time),
            ("label", Kind::Str),
            ("commit_id", Kind::Str),
            ("state_reason", Kind::Str),
            ("assignee", Kind::Str),
            ("source_number", Kind::Int),
        ],
    )
}

/// The `reactions` table, empty.
fn reactions_table() -> Table {
    Table::new(
        "reactions",
        &[
            ("repo", Kind::Str),
            ("subject", Kind::Str),
            ("subject_id", Kind::Int),
            ("reaction_id", Kind::Int),
            ("author", Kind::Str),
            ("author_type", Kind::Str),
            ("content", Kind::Str),
            ("created_at", Kind::Time),
        ],
    )
}

/// The `ci_checks` table, empty.
fn ci_checks_table() -> Table {
    Table::new(
        "ci_checks",
        &[
            ("repo", Kind::Str),
            ("sha", Kind::Str),
            ("kind", Kind::Str),
            ("name", Kind::Str),
            ("status", Kind::Str),
            ("conclusion", Kind::Str),
            ("token", Kind::Str),
            ("fails", Kind::Bool),
            ("started_at", Kind::Time),
            ("completed_at", Kind::Time),
        ],
    )
}

/// The `ci_commits` table, empty.
fn ci_commits_table() -> Table {
    Table::new(
        "ci_commits",
        &[
            ("repo", Kind::Str),
            ("sha", Kind::Str),
            ("ci_state", Kind::Str),
            ("checks", Kind::Int),
            ("failing", Kind::Int),
            ("finished_at", Kind::Time),
            ("failure_signature", Kind::Str),
        ],
    )
}

fn push_comment(tb: &mut Table, repo: &str, issue: Option<i64>, c: Comment) {
    tb.push(vec![
        s(repo),
        oi(issue),
        oi(c.id),
        so(c.user.login),
        os(c.user.kind),
        t(c.created_at),
        t(c.updated_at),
        oi(c.reactions_total),
        ob(c.minimized),
        so(c.body),
    ]);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every resource the typed tables read, once per kind of path.
    const PATHS: [&str; 12] = [
        "repos/o/r/issues/1",
        "repos/o/r/pulls/1",
        "repos/o/r/issues/1/comments",
        "repos/o/r/issues/comments/5",
        "repos/o/r/pulls/1/comments",
        "repos/o/r/pulls/1/reviews",
        "repos/o/r/pulls/1/commits",
        "repos/o/r/issues/1/events",
        "repos/o/r/issues/1/timeline",
        "repos/o/r/issues/1/reactions",
        "repos/o/r/issues/comments/5/reactions",
        "repos/o/r/issues/1/labels",
    ];

    fn capture(path: &str, page: i64, body: &str) -> Capture {
        Capture { path: path.to_string(), status: 200, page, captured_at: None, body: body.to_string(), file: "f".into(), line: None, superseded_by: None }
    }

    /// Typed rows read in pieces (every page of a path in one piece, a repository across
    /// several) and put together are the tables of the captures read at once: the comment
    /// captured in its list and alone is kept once, a commit's check runs and statuses read
    /// in different pieces are one commit's checks, and the rows keep the repositories'
    /// order. Cut at every path, and in pieces of a few paths.
    #[test]
    fn typed_rows_read_in_pieces_make_the_tables_of_one_read() {
        let comment = r#"{"id": 5, "body": "same", "user": {"login": "a", "type": "User"}, "created_at": "2026-01-01T00:00:00Z", "issue_url": "https://api.github.com/repos/o/r/issues/1"}"#;
        let check_runs = r#"{"total_count": 1, "check_runs": [{"name": "ci", "status": "completed", "conclusion": "failure", "started_at": "2026-01-01T00:00:00Z", "completed_at": "2026-01-01T00:01:00Z"}]}"#;
        let status = r#"{"state": "success", "statuses": [{"context": "lint", "state": "success", "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:02:00Z"}]}"#;
        let bodies = crate::snapshot::sparse::equivalence::fixture_bodies();
        let mut captures = Vec::new();
        for repo in ["repos/a/one", "repos/b/two"] {
            for path in PATHS {
                let path = path.replacen("repos/o/r", repo, 1);
                captures.extend(bodies.iter().enumerate().map(|(page, b)| capture(&path, page as i64 + 1, b)));
            }
            captures.push(capture(&format!("{repo}/issues/1/comments"), 8, &format!("[{comment}]")));
            captures.push(capture(&format!("{repo}/issues/comments/5"), 1, comment));
            for sha in ["abc", "def"] {
                captures.push(capture(&format!("{repo}/commits/{sha}/check-runs"), 1, check_runs));
                captures.push(capture(&format!("{repo}/commits/{sha}/status"), 1, status));
            }
        }
        captures.sort_by(|a, b| (&a.path, a.page).cmp(&(&b.path, b.page)));
        let whole: Vec<_> = typed(&captures).iter().map(|t| t.to_batch().unwrap()).collect();
        let empty: Vec<&str> = typed(&captures).iter().filter(|t| t.is_empty()).map(|t| t.name).collect();
        assert!(empty.is_empty(), "every table must have rows to compare: {empty:?}");
        for paths_per_piece in [1, 3] {
            let mut pieces: Vec<&[Capture]> = Vec::new();
            let (mut start, mut paths) = (0, 0);
            for k in 1..=captures.len() {
                if k == captures.len() || captures[k].path != captures[k - 1].path {
                    paths += 1;
                    if paths == paths_per_piece || k == captures.len() {
                        pieces.push(&captures[start..k]);
                        (start, paths) = (k, 0);
                    }
                }
            }
            assert!(pieces.len() >= 10, "{} pieces", pieces.len());
            let mut rows = pieces.iter().map(|p| typed_rows(p));
            let mut all = rows.next().unwrap();
            rows.for_each(|later| all.append(later));
            let pieced: Vec<_> = all.finish().iter().map(|t| t.to_batch().unwrap()).collect();
            assert_eq!(pieced, whole, "read in pieces of {paths_per_piece} paths");
        }
    }

    /// The tables read with only each resource's keys kept are the tables read from whole
    /// `Value`s, byte for byte: every object and list in the fixtures (real recorded bodies
    /// among them) read as the pages of every kind of path, so list positions run across
    /// pages; and text that is no JSON, or `null`, on the way.
    #[test]
    fn sparse_reading_makes_the_tables_whole_values_make() {
        let mut bodies = crate::snapshot::sparse::equivalence::fixture_bodies();
        assert!(bodies.len() > 1000, "only {} bodies found", bodies.len());
        bodies.extend(["{not json".to_string(), "null".to_string(), "[] x".to_string(), r#"[{"id": 1}, 2, "x"]"#.to_string()]);
        let mut captures = Vec::new();
        for path in PATHS {
            captures.extend(bodies.iter().enumerate().map(|(page, b)| capture(path, page as i64 + 1, b)));
        }
        captures.sort_by(|a, b| (&a.path, a.page).cmp(&(&b.path, b.page)));
        let sparse = typed_read(&captures, Reading::Sparse);
        let whole = typed_read(&captures, Reading::Value);
        let mut rows = 0;
        for (a, b) in sparse.iter().zip(&whole) {
            assert_eq!(a.to_batch().unwrap(), b.to_batch().unwrap(), "table {} differs", a.name);
            rows += a.len();
        }
        assert_eq!(sparse.len(), whole.len());
        assert!(rows > 10_000, "only {rows} rows: the bodies read as too few rows to prove much");
    }
}
