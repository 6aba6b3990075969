//! REST and GraphQL capture paths, and the GitHub web URLs safe outputs record.

/// What a captured path holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Resource {
    Issue(i64),
    IssueComments(i64),
    IssueEvents(i64),
    IssueTimeline(i64),
    IssueLabels(i64),
    IssueReactions(i64),
    IssueComment(i64),
    IssueCommentReactions(i64),
    Pull(i64),
    PullReviews(i64),
    PullReviewComments(i64),
    PullCommits(i64),
    PullRequestedReviewers(i64),
    Compare(String, String),
    CheckRuns(String),
    /// `commits/SHA/status`: the combined status.
    CommitStatus(String),
    ActionsRun(i64),
    Other(String),
}

/// `repos/OWNER/REPO/<rest>` -> (`OWNER/REPO`, resource). GraphQL and unknown paths give
/// `None` or `Other`; they stay in the `responses` table.
pub fn parse(path: &str) -> Option<(&str, Resource)> {
    let rest = path.strip_prefix("repos/")?;
    let mut it = rest.splitn(3, '/');
    let owner = it.next()?;
    let repo = it.next()?;
    let tail = it.next().unwrap_or("");
    // `OWNER/REPO` as it stands in the path: every capture's path is parsed, so nothing is
    // allocated on the way (the segments go in an array; more than four is no resource).
    let repo_name = &rest[..owner.len() + 1 + repo.len()];
    let mut parts = [""; 5];
    let mut count = 0;
    for part in tail.split('/') {
        if count == parts.len() {
            break;
        }
        parts[count] = part;
        count += 1;
    }
    let seg = &parts[..count];
    let num = |s: &str| s.parse::<i64>().ok();
    let r = match seg {
        ["issues", n] => num(n).map(Resource::Issue),
        ["issues", "comments", id] => num(id).map(Resource::IssueComment),
        ["issues", "comments", id, "reactions"] => num(id).map(Resource::IssueCommentReactions),
        ["issues", n, "comments"] => num(n).map(Resource::IssueComments),
        ["issues", n, "events"] => num(n).map(Resource::IssueEvents),
        ["issues", n, "timeline"] => num(n).map(Resource::IssueTimeline),
        ["issues", n, "labels"] => num(n).map(Resource::IssueLabels),
        ["issues", n, "reactions"] => num(n).map(Resource::IssueReactions),
        ["pulls", n] => num(n).map(Resource::Pull),
        ["pulls", n, "reviews"] => num(n).map(Resource::PullReviews),
        ["pulls", n, "comments"] => num(n).map(Resource::PullReviewComments),
        ["pulls", n, "commits"] => num(n).map(Resource::PullCommits),
        ["pulls", n, "requested_reviewers"] => num(n).map(Resource::PullRequestedReviewers),
        ["compare", spec] => spec.split_once("...").map(|(a, b)| Resource::Compare(a.to_string(), b.to_string())),
        ["commits", sha, "check-runs"] => Some(Resource::CheckRuns(sha.to_string())),
        ["commits", sha, "status"] => Some(Resource::CommitStatus(sha.to_string())),
        ["actions", "runs", id] => num(id).map(Resource::ActionsRun),
        _ => None,
    };
    Some((repo_name, r.unwrap_or_else(|| Resource::Other(tail.to_string()))))
}

/// The repository a captured path belongs to: `repos/O/R/...` and `graphql/repos/O/R/...`
/// give `O/R`; paths of no repository (projects, users) give `None`. Responses are stored
/// grouped by it, so evaluation can read the snapshot one repository at a time.
pub fn repo_of(path: &str) -> Option<&str> {
    let rest = path.strip_prefix("repos/").or_else(|| path.strip_prefix("graphql/repos/"))?;
    let owner_end = rest.find('/')?;
    let after = &rest[owner_end + 1..];
    let repo_len = after.find('/').unwrap_or(after.len());
    if owner_end == 0 || repo_len == 0 {
        return None;
    }
    Some(&rest[..owner_end + 1 + repo_len])
}

/// Why `r` is not a repository's `OWNER/NAME` as GitHub spells one, or `None` when it is:
/// exactly two parts; the owner letters, digits, `-` and `_` (managed users' `_short`
/// suffix), not starting with `-`; the name letters, digits, `.`, `-` and `_`, and not `.` or `..`. Anything
/// else (`/etc/passwd`, `../x`, `o/r/extra`, a space) would name a path no capture holds,
/// or one outside the snapshot.
pub(crate) fn repository_problem(r: &str) -> Option<String> {
    let shown = crate::text::printable(r);
    let Some((owner, name)) = r.split_once('/') else {
        return Some(format!("`{shown}` is not OWNER/NAME"));
    };
    let owner_ok =
        !owner.is_empty() && owner.len() <= 100 && !owner.starts_with('-') && owner.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    let name_ok = !name.is_empty()
        && name.len() <= 100
        && name != "."
        && name != ".."
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_'));
    (!owner_ok || !name_ok).then(|| format!("`{shown}` is not OWNER/NAME (GitHub's owners are letters, digits, `-` and `_`; names add `.`, and are not `.` or `..`)"))
}

/// The REST path of a resource in a repository.
pub fn rest(repo: &str, tail: &str) -> String {
    let mut path = String::new();
    push_rest(&mut path, repo, tail);
    path
}

/// `rest`, appended to `path` (a buffer kept across lookups).
pub fn push_rest(path: &mut String, repo: &str, tail: &str) {
    path.push_str("repos/");
    path.push_str(repo);
    path.push('/');
    path.push_str(tail);
}

/// `{before}{n}{after}` (`issues/7/comments`), as `format!` writes it but without its
/// formatting machinery (the digits by `itoa`, serde_json's own): judging makes such a path for every lookup of every output, and
/// `format!` was ~3% of evaluate's instructions.
pub fn numbered(before: &str, n: i64, after: &str) -> String {
    let mut digits = itoa::Buffer::new();
    let digits = digits.format(n);
    let mut s = String::with_capacity(before.len() + digits.len() + after.len());
    s.push_str(before);
    s.push_str(digits);
    s.push_str(after);
    s
}

/// What a GitHub web or API URL points at.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct UrlTarget {
    pub repo: Option<String>,
    /// `issue`, `pull_request` or `discussion`.
    pub kind: Option<&'static str>,
    pub number: Option<i64>,
    pub(crate) comment_id: Option<i64>,
    /// The URL's number or comment id is written in digits but does not fit 64 bits: the
    /// target is named, and cannot be read (not the same as no number at all).
    pub(crate) overflow: bool,
}

/// Parses `https://github.com/O/R/pull/1`, `.../issues/1#issuecomment-7`,
/// `.../pull/1#discussion_r9`, `.../pull/1/comments/456`, `.../discussions/5` and the
/// `api.github.com/repos/...` forms. An unparseable URL gives an empty target, never a guess.
pub fn parse_url(url: &str) -> UrlTarget {
    let mut out = UrlTarget::default();
    let u = url.trim();
    let (u, fragment) = match u.split_once('#') {
        Some((a, f)) => (a, Some(f)),
        None => (u, None),
    };
    let u = u.split('?').next().unwrap_or(u);
    let tail = if let Some(t) = u.strip_prefix("https://api.github.com/repos/") {
        t
    } else if let Some(t) = u.strip_prefix("https://github.com/") {
        t
    } else if let Some(t) = u.strip_prefix("http://github.com/") {
        t
    } else {
        return out;
    };
    let seg: Vec<&str> = tail.trim_end_matches('/').split('/').collect();
    if seg.len() < 2 {
        return out;
    }
    out.repo = Some(format!("{}/{}", seg[0], seg[1]));
    let num = |i: usize| seg.get(i).and_then(|s| s.parse::<i64>().ok());
    out.overflow = seg.iter().skip(3).chain(fragment.iter()).any(|s| crate::json::overflows_i64(s.trim_start_matches(|c: char| !c.is_ascii_digit())));
    match seg.get(2).copied() {
        Some("pull") | Some("pulls") => {
            out.kind = Some("pull_request");
            out.number = num(3);
        }
        Some("issues") if seg.get(3) == Some(&"comments") => {
            out.comment_id = num(4);
        }
        Some("issues") => {
            out.kind = Some("issue");
            out.number = num(3);
        }
        Some("discussions") => {
            out.kind = Some("discussion");
            out.number = num(3);
        }
        _ => {}
    }
    if let Some(f) = fragment {
        for prefix in ["issuecomment-", "discussion_r", "discussioncomment-", "pullrequestreview-"] {
            if let Some(id) = f.strip_prefix(prefix).and_then(|s| s.parse().ok()) {
                out.comment_id = Some(id);
            }
        }
    } else if out.comment_id.is_none() && seg.get(4) == Some(&"comments") {
        // .../pull/1/comments/456: a review comment on PR 1
        out.comment_id = num(5);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repositories_are_owner_slash_name_as_github_spells_them() {
        for ok in ["o/r", "github/gh-aw", "a-b_c/x.y_z-1", "octo/.github", "user_emu/r"] {
            assert_eq!(repository_problem(ok), None, "{ok}");
        }
        for bad in ["/etc/passwd", "../x", "-o/r", "o/..", "o/.", "o/r/extra", "o", "o/", "/r", "o r/x", "o/r\u{1b}", "ö/r", "o/r?x=1", ""] {
            assert!(repository_problem(bad).is_some(), "{bad:?}");
        }
    }

    /// `numbered` writes what `format!` writes, at every magnitude and sign.
    #[test]
    fn numbered_paths_are_what_format_writes() {
        let mut ns = vec![0, 1, -1, 9, 10, 99, 100, 12345, -987654321, i64::MAX, i64::MIN, i64::MIN + 1];
        ns.extend((0..64).map(|k| 1i64 << k).chain((0..19).map(|k| 10i64.pow(k) - 1)));
        for n in ns {
            assert_eq!(numbered("issues/", n, "/comments"), format!("issues/{n}/comments"));
            assert_eq!(numbered("", n, ""), n.to_string());
        }
    }

    #[test]
    fn rest_and_graphql_paths_belong_to_their_repository() {
        assert_eq!(repo_of("repos/acme/api/issues/1/comments"), Some("acme/api"));
        assert_eq!(repo_of("graphql/repos/acme/api/discussions/3"), Some("acme/api"));
        assert_eq!(repo_of("repos/acme/api"), Some("acme/api"));
        assert_eq!(repo_of("graphql/projects/acme/1"), None);
        assert_eq!(repo_of("repos//x/issues/1"), None);
        assert_eq!(repo_of("users/octocat"), None);
    }

    #[test]
    fn a_repository_index_falls_back_on_the_shared_paths() {
        use crate::snapshot::SnapshotIndex;
        let row = |p: &str, body: &str| (p.to_string(), 1, 200u16, None, body.to_string());
        let shared = std::sync::Arc::new(SnapshotIndex::build(vec![row("graphql/projects/acme/1", "{\"id\":1}")]));
        let repo = SnapshotIndex::build(vec![row("repos/acme/api/issues/1", "{\"number\":1}")]).with_shared(Some(shared));
        assert_eq!(repo.get("graphql/projects/acme/1").map(|e| e.body()["id"].clone()), Some(serde_json::json!(1)));
        assert_eq!(repo.get("repos/acme/api/issues/1").map(|e| e.body()["number"].clone()), Some(serde_json::json!(1)));
        assert!(repo.get("repos/acme/api/issues/2").is_none());
    }

    #[test]
    fn urls_resolve_to_their_object() {
        let t = parse_url("https://github.com/acme/repo/issues/1#issuecomment-7");
        assert_eq!((t.repo.as_deref(), t.kind, t.number, t.comment_id), (Some("acme/repo"), Some("issue"), Some(1), Some(7)));
        let t = parse_url("https://github.com/acme/repo/pull/1/comments/456");
        assert_eq!((t.kind, t.number, t.comment_id), (Some("pull_request"), Some(1), Some(456)));
        let t = parse_url("https://api.github.com/repos/acme/repo/pulls/3");
        assert_eq!((t.kind, t.number), (Some("pull_request"), Some(3)));
        let t = parse_url("not a url");
        assert_eq!(t, UrlTarget::default());
    }

    #[test]
    fn paths_parse() {
        assert_eq!(parse("repos/a/b/pulls/1/reviews"), Some(("a/b", Resource::PullReviews(1))));
        assert_eq!(parse("repos/a/b/compare/x...y"), Some(("a/b", Resource::Compare("x".into(), "y".into()))));
        assert_eq!(parse("graphql/repos/a/b/discussions/5"), None);
    }
}
