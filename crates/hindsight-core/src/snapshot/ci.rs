//! CI state of a commit (docs/SPEC.md [SPEC-CIGATE]): its check runs
//! (`commits/SHA/check-runs`) and combined status (`commits/SHA/status`), reduced to
//! `success | failure | pending` exactly as the CI gate reduces `gh pr checks` output, and
//! a failure signature for its no-progress guard.
//!
//! The reduction ([SPEC-CIGATE-REDUCE], step 5a): each check gives one token, its
//! conclusion if it has one, else its state, upper-cased. Starting from `success`, any of
//! FAILURE, CANCELLED, TIMED_OUT, ACTION_REQUIRED, STARTUP_FAILURE, STALE makes it
//! `failure`; any of PENDING, QUEUED, IN_PROGRESS, WAITING, REQUESTED makes it `pending`
//! unless it is already `failure`; everything else (SUCCESS, NEUTRAL, SKIPPED, and a status
//! context's ERROR or EXPECTED, which the specified lists leave out) changes nothing. No
//! checks at all reduce to `success`, as the gate's script does; `checks = 0` says so
//! beside it. A commit with no capture of either list is `missing`, never `success`.

use serde_json::Value;

use crate::time::Instant;

/// One check of a commit: a check run or a status context.
#[derive(Clone, Debug, PartialEq)]
pub struct Check {
    /// `check_run` or `status`.
    pub(crate) kind: &'static str,
    pub(crate) name: String,
    /// Check runs: queued, in_progress, completed...; status contexts: their state.
    pub(crate) status: Option<String>,
    pub(crate) conclusion: Option<String>,
    pub started_at: Option<Instant>,
    pub(crate) completed_at: Option<Instant>,
    /// The output's summary and text (check runs) or description (status contexts).
    pub(crate) output: String,
}

impl Check {
    /// The token the CI gate's script reads ([SPEC-CIGATE-REDUCE]): conclusion, else state,
    /// upper-cased.
    pub(crate) fn token(&self) -> String {
        self.conclusion.as_deref().filter(|c| !c.is_empty()).or(self.status.as_deref()).unwrap_or("").to_uppercase()
    }

    pub(crate) fn fails(&self) -> bool {
        FAILING.contains(&self.token().as_str())
    }
}

const FAILING: &[&str] = &["FAILURE", "CANCELLED", "TIMED_OUT", "ACTION_REQUIRED", "STARTUP_FAILURE", "STALE"];
const WAITING: &[&str] = &["PENDING", "QUEUED", "IN_PROGRESS", "WAITING", "REQUESTED"];

/// A commit's reduced CI state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum CiState {
    Success,
    Failure,
    Pending,
    /// Neither list was captured.
    Missing,
}

impl CiState {
    pub fn as_str(&self) -> &'static str {
        match self {
            CiState::Success => "success",
            CiState::Failure => "failure",
            CiState::Pending => "pending",
            CiState::Missing => "missing",
        }
    }
}

/// The CI gate's reduction of a commit's checks ([SPEC-CIGATE-REDUCE]).
pub(crate) fn reduce(checks: &[Check]) -> CiState {
    let mut r = CiState::Success;
    for c in checks {
        let t = c.token();
        if FAILING.contains(&t.as_str()) {
            r = CiState::Failure;
        } else if WAITING.contains(&t.as_str()) && r == CiState::Success {
            r = CiState::Pending;
        }
    }
    r
}

/// What one commit's CI comes to, from its checks: the one reduction convert's `ci_commits`
/// rows and the CI gate replay both make.
#[derive(Clone, Debug, PartialEq)]
pub struct CommitCi {
    pub state: CiState,
    /// Checks of either list; 0 when neither was captured, or none ran.
    pub checks: usize,
    pub failing: usize,
    /// When the last check finished, once every check has (`finished_at`).
    pub finished_at: Option<Instant>,
    /// The latest end of the checks that finished, whether or not all did.
    pub last_completed_at: Option<Instant>,
    pub signature: Option<String>,
}

impl CommitCi {
    /// A commit's checks reduced; `None` (neither list captured) is `missing`, never `success`.
    pub fn of(checks: Option<&[Check]>) -> CommitCi {
        let Some(cs) = checks else {
            return CommitCi { state: CiState::Missing, checks: 0, failing: 0, finished_at: None, last_completed_at: None, signature: None };
        };
        CommitCi {
            state: reduce(cs),
            checks: cs.len(),
            failing: cs.iter().filter(|c| c.fails()).count(),
            finished_at: finished_at(cs),
            last_completed_at: cs.iter().filter_map(|c| c.completed_at).max(),
            signature: signature(cs),
        }
    }

    /// The CI of commit `sha` of `repo` as an index holds it (its two lists, each used when
    /// captured without error).
    pub fn in_index(index: &super::SnapshotIndex, repo: &str, sha: &str) -> CommitCi {
        let runs = index.get(&format!("repos/{repo}/commits/{sha}/check-runs")).filter(|e| e.ok());
        let status = index.get(&format!("repos/{repo}/commits/{sha}/status")).filter(|e| e.ok());
        if runs.is_none() && status.is_none() {
            return CommitCi::of(None);
        }
        let mut checks = runs.map(|e| check_runs(e.body())).unwrap_or_default();
        checks.extend(status.map(|e| statuses(e.body())).unwrap_or_default());
        CommitCi::of(Some(&checks))
    }
}

/// The rows of a dataset's `ci_commits` table (the states convert reduced): (repository,
/// SHA, state, failure signature), rows without a repository, SHA or state left out. Every
/// reader of the snapshot's CI states after convert reads them here.
pub fn read_commits(dataset: &std::path::Path) -> crate::Result<Vec<(String, String, String, Option<String>)>> {
    let mut rows = Vec::new();
    for batch in crate::dataset::read::columns(dataset, "ci_commits", &["repo", "sha", "ci_state", "failure_signature"])? {
        let c = crate::dataset::read::Cols::new("ci_commits", &batch);
        let (repo, sha, state, sig) = (c.str("repo")?, c.str("sha")?, c.str("ci_state")?, c.str("failure_signature")?);
        for (((r, s), st), sg) in repo.into_iter().zip(sha).zip(state).zip(sig) {
            if let (Some(r), Some(s), Some(st)) = (r, s, st) {
                rows.push((r, s, st, sg));
            }
        }
    }
    Ok(rows)
}

fn text(v: &Value, k: &str) -> Option<String> {
    v.get(k).and_then(Value::as_str).map(str::to_string)
}

/// The check runs of a `commits/SHA/check-runs` body (`{"check_runs": [...]}`; a bare array
/// of pages joined is read too).
pub fn check_runs(body: &Value) -> Vec<Check> {
    let runs = match body {
        Value::Array(pages) => pages.iter().flat_map(|p| p.get("check_runs").and_then(Value::as_array).cloned().unwrap_or_default()).collect(),
        v => v.get("check_runs").and_then(Value::as_array).cloned().unwrap_or_default(),
    };
    runs.iter()
        .map(|r| {
            let out = r.get("output").cloned().unwrap_or(Value::Null);
            let output = [text(&out, "title"), text(&out, "summary"), text(&out, "text")].into_iter().flatten().collect::<Vec<_>>().join("\n");
            Check {
                kind: "check_run",
                name: text(r, "name").unwrap_or_default(),
                status: text(r, "status"),
                conclusion: text(r, "conclusion"),
                started_at: crate::time::at(r, "started_at"),
                completed_at: crate::time::at(r, "completed_at"),
                output,
            }
        })
        .collect()
}

/// The status contexts of a `commits/SHA/status` body (the combined status: `statuses`).
pub(crate) fn statuses(body: &Value) -> Vec<Check> {
    let list = body.get("statuses").and_then(Value::as_array).cloned().unwrap_or_default();
    list.iter()
        .map(|s| Check {
            kind: "status",
            name: text(s, "context").unwrap_or_default(),
            status: text(s, "state"),
            conclusion: None,
            started_at: crate::time::at(s, "created_at"),
            completed_at: crate::time::at(s, "updated_at"),
            output: text(s, "description").unwrap_or_default(),
        })
        .collect()
}

/// The failure signature of a failing commit: its failing checks' names, sorted and joined
/// by `,`, then `|` and the first error code in their output (checks in name order; the
/// output's title, summary and text in that order), as `CODE`, `CODE:SYMBOL` or
/// `CODE:SYMBOL:FILE` when a quoted symbol and a file path stand on the same line
/// (`TS2339:fromArrays:tests/stats/eval_query.test.ts`), or `-` when there is none.
/// Timestamps, run ids, SHAs and line:column positions never enter it, so two runs of the
/// same failure give the same signature. `None` when nothing fails.
pub(crate) fn signature(checks: &[Check]) -> Option<String> {
    let mut failing: Vec<&Check> = checks.iter().filter(|c| c.fails()).collect();
    if failing.is_empty() {
        return None;
    }
    failing.sort_by(|a, b| a.name.cmp(&b.name));
    let mut names: Vec<String> = failing.iter().map(|c| normalize_name(&c.name)).collect();
    names.dedup();
    let code = failing.iter().find_map(|c| c.output.lines().find_map(error_code)).unwrap_or_else(|| "-".into());
    Some(format!("{}|{code}", names.join(",")))
}

/// A check name without what changes from run to run: runs of six digits or more (run ids)
/// and hex runs of seven or more with a digit (SHAs) become `*`; whitespace collapsed.
fn normalize_name(name: &str) -> String {
    let mut out = String::new();
    let mut run = String::new();
    let flush = |run: &mut String, out: &mut String| {
        let digits = run.chars().filter(char::is_ascii_digit).count();
        let volatile = (digits == run.len() && digits >= 6) || (run.len() >= 7 && digits > 0 && run.chars().all(|c| c.is_ascii_hexdigit()));
        out.push_str(if volatile { "*" } else { run.as_str() });
        run.clear();
    };
    for c in name.split_whitespace().collect::<Vec<_>>().join(" ").chars() {
        if c.is_ascii_alphanumeric() {
            run.push(c);
        } else {
            flush(&mut run, &mut out);
            out.push(c);
        }
    }
    flush(&mut run, &mut out);
    out
}

/// The first error code of a line, with the quoted symbol and the file path beside it.
/// Codes: one to five capital letters and three to five digits (`TS2339`, `E0308`,
/// `CS0103`, `F401`), alone or as rustc writes them (`error[E0308]`).
fn error_code(line: &str) -> Option<String> {
    let tokens: Vec<&str> = line.split(|c: char| !(c.is_ascii_alphanumeric())).filter(|t| !t.is_empty()).collect();
    let code = tokens.iter().find(|t| {
        let letters = t.chars().take_while(|c| c.is_ascii_uppercase()).count();
        let rest = &t[letters..];
        (1..=5).contains(&letters) && (3..=5).contains(&rest.len()) && rest.chars().all(|c| c.is_ascii_digit())
    })?;
    let mut out = code.to_string();
    if let Some(sym) = quoted(line) {
        out.push(':');
        out.push_str(&sym);
    }
    if let Some(file) = file_path(line) {
        out.push(':');
        out.push_str(&file);
    }
    Some(out)
}

/// The first quoted identifier of a line ('x', "x" or `x`).
fn quoted(line: &str) -> Option<String> {
    for q in ['\'', '"', '`'] {
        let mut parts = line.split(q);
        parts.next();
        if let Some(s) = parts.next() {
            if !s.is_empty() && s.len() <= 80 && s.chars().all(|c| c.is_alphanumeric() || "_$.:<>".contains(c)) && parts.next().is_some() {
                return Some(s.to_string());
            }
        }
    }
    None
}

/// The first path-like token of a line (a `/` and an extension), without `:line:col` or
/// `(line,col)`.
fn file_path(line: &str) -> Option<String> {
    line.split(|c: char| c.is_whitespace() || "'\"`,;".contains(c)).find_map(|t| {
        let t = t.split('(').next().unwrap_or(t);
        let t = t.trim_end_matches(|c: char| c.is_ascii_digit() || c == ':');
        let ext = t.rsplit_once('.').map(|(_, e)| e)?;
        (t.contains('/') && !t.contains("://") && (1..=5).contains(&ext.len()) && ext.chars().all(|c| c.is_ascii_alphanumeric())).then(|| t.to_string())
    })
}

/// When a commit's CI finished: the last completion among its checks (`None` while any is
/// unfinished, or with no times).
pub(crate) fn finished_at(checks: &[Check]) -> Option<Instant> {
    checks.iter().map(|c| c.completed_at).collect::<Option<Vec<_>>>()?.into_iter().max()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The gate's reading of a commit in an index is the reduction of its parsed checks; a
    /// commit with neither list captured is `missing`.
    #[test]
    fn a_commits_ci_in_an_index_is_its_checks_reduced_once() {
        let body = r#"{"check_runs":[{"name":"t","status":"completed","conclusion":"failure","completed_at":"2026-01-01T00:00:00Z"},{"name":"u","status":"queued"}]}"#;
        let index = crate::snapshot::SnapshotIndex::build(vec![("repos/o/r/commits/abc/check-runs".to_string(), 1, 200u16, None, body.to_string())]);
        let ci = CommitCi::in_index(&index, "o/r", "abc");
        let parsed = check_runs(&serde_json::from_str(body).unwrap());
        assert_eq!(ci, CommitCi::of(Some(&parsed)));
        assert_eq!((ci.state, ci.checks, ci.failing, ci.finished_at), (reduce(&parsed), 2, 1, None));
        assert_eq!(ci.last_completed_at, crate::time::parse("2026-01-01T00:00:00Z"));
        assert_eq!(CommitCi::in_index(&index, "o/r", "def").state, CiState::Missing);
    }

    fn c(name: &str, status: &str, conclusion: Option<&str>, output: &str) -> Check {
        Check {
            kind: "check_run",
            name: name.into(),
            status: Some(status.into()),
            conclusion: conclusion.map(str::to_string),
            started_at: None,
            completed_at: None,
            output: output.into(),
        }
    }

    #[test]
    fn reduced_as_the_gates_script_does() {
        assert_eq!(reduce(&[]), CiState::Success);
        assert_eq!(reduce(&[c("a", "completed", Some("success"), "")]), CiState::Success);
        assert_eq!(reduce(&[c("a", "completed", Some("neutral"), ""), c("b", "completed", Some("skipped"), "")]), CiState::Success);
        for bad in ["failure", "cancelled", "timed_out", "action_required", "startup_failure", "stale"] {
            assert_eq!(reduce(&[c("a", "completed", Some(bad), "")]), CiState::Failure, "{bad}");
        }
        for wait in ["queued", "in_progress", "waiting", "requested", "pending"] {
            assert_eq!(reduce(&[c("a", wait, None, "")]), CiState::Pending, "{wait}");
        }
        // A failure anywhere wins over pending, in either order.
        assert_eq!(reduce(&[c("a", "in_progress", None, ""), c("b", "completed", Some("failure"), "")]), CiState::Failure);
        assert_eq!(reduce(&[c("b", "completed", Some("failure"), ""), c("a", "queued", None, "")]), CiState::Failure);
        // A status context's `error` is not in the specified lists.
        let err = Check { kind: "status", status: Some("error".into()), ..c("ci/x", "", None, "") };
        assert_eq!(reduce(&[err]), CiState::Success);
        let failed = Check { kind: "status", status: Some("failure".into()), ..c("ci/x", "", None, "") };
        assert_eq!(reduce(&[failed]), CiState::Failure);
    }

    /// A combined status in the shape of GitHub's OpenAPI example for
    /// `GET /repos/{owner}/{repo}/commits/{ref}/status` (two contexts, one failing).
    #[test]
    fn combined_statuses_are_read_and_reduced() {
        let body: Value = serde_json::from_str(
            r#"{"state": "failure", "statuses": [
              {"url": "https://api.github.com/repos/octocat/Hello-World/statuses/6dcb09b5b57875f334f61aebed695e2e4193db5e",
               "avatar_url": "https://github.com/images/error/hubot_happy.gif", "id": 1, "node_id": "MDY6U3RhdHVzMQ==",
               "state": "success", "description": "Build has completed successfully", "target_url": "https://ci.example.com/1000/output",
               "context": "continuous-integration/jenkins", "created_at": "2012-07-20T01:19:13Z", "updated_at": "2012-07-20T01:19:13Z"},
              {"url": "https://api.github.com/repos/octocat/Hello-World/statuses/6dcb09b5b57875f334f61aebed695e2e4193db5e",
               "avatar_url": "https://github.com/images/error/other_user_happy.gif", "id": 2, "node_id": "MDY6U3RhdHVzMg==",
               "state": "failure", "description": "Testing has failed: error TS2339 in src/a.ts", "target_url": "https://ci.example.com/2000/output",
               "context": "security/brakeman", "created_at": "2012-08-20T01:19:13Z", "updated_at": "2012-08-20T01:19:13Z"}],
              "sha": "6dcb09b5b57875f334f61aebed695e2e4193db5e", "total_count": 2, "commit_url": "https://api.github.com/repos/octocat/Hello-World/6dcb09b5b57875f334f61aebed695e2e4193db5e",
              "url": "https://api.github.com/repos/octocat/Hello-World/6dcb09b5b57875f334f61aebed695e2e4193db5e/status"}"#,
        )
        .unwrap();
        let st = statuses(&body);
        assert_eq!(
            st.iter().map(|c| (c.name.as_str(), c.token())).collect::<Vec<_>>(),
            [("continuous-integration/jenkins", "SUCCESS".to_string()), ("security/brakeman", "FAILURE".to_string())]
        );
        assert_eq!(reduce(&st), CiState::Failure);
        assert_eq!(signature(&st).as_deref(), Some("security/brakeman|TS2339:src/a.ts"));
        assert_eq!(finished_at(&st).map(|t| crate::time::format(&t)).as_deref(), Some("2012-08-20T01:19:13Z"));
    }

    #[test]
    fn signatures_are_stable_and_normalized() {
        let out = "Run 2024-05-01T10:00:00Z\nsrc/x.ts(12,5): error TS2339: Property 'fromArrays' does not exist on type 'Stats'. tests/stats/eval_query.test.ts:40:7\n";
        let a = [c("typecheck", "completed", Some("failure"), out), c("lint", "completed", Some("success"), "")];
        assert_eq!(signature(&a).as_deref(), Some("typecheck|TS2339:fromArrays:src/x.ts"));
        // Order, timestamps and positions do not matter.
        let out2 = "Run 2025-01-01T00:00:00Z\nsrc/x.ts(99,1): error TS2339: Property 'fromArrays' does not exist on type 'Stats'.\n";
        let b = [c("lint", "completed", Some("success"), ""), c("typecheck", "completed", Some("failure"), out2)];
        assert_eq!(signature(&a), signature(&b));
        // Names sorted; run ids in names dropped; no code found.
        let d = [c("test (run 123456789)", "completed", Some("failure"), "boom"), c("build", "completed", Some("timed_out"), "")];
        assert_eq!(signature(&d).as_deref(), Some("build,test (run *)|-"));
        assert_eq!(signature(&[c("ok", "completed", Some("success"), "E0308")]), None);
        assert_eq!(error_code("error[E0308]: mismatched types --> src/lib.rs:3:9").as_deref(), Some("E0308:src/lib.rs"));
        assert_eq!(error_code("tests/stats/eval_query.test.ts: TS2339 'fromArrays'").as_deref(), Some("TS2339:fromArrays:tests/stats/eval_query.test.ts"));
        assert_eq!(error_code("no code here 12345"), None);
    }
}
