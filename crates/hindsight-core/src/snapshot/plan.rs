//! Which snapshot paths a capture plan holds, path by path: what `hindsight capture` asks
//! GitHub for of a path the rules read, the repository-level lists of every target
//! repository, and how the dashboard's warning names their kinds. One definition for
//! `capture --plan` and for evaluate, which counts the plan against the snapshot as it
//! judges (the manifest's `capture_coverage`), so the two always agree.

/// A `graphql/...` path capture has a query for (the queries are the capture's own).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GraphqlPath<'p> {
    /// `graphql/repos/O/R/discussions/N`.
    Discussion { owner: &'p str, name: &'p str, number: i64 },
    /// `graphql/repos/O/R/pulls/N/review_threads`.
    ReviewThreads { owner: &'p str, name: &'p str, number: i64 },
    /// `graphql/repos/O/R/comments/ID`: asked by the comment's node id, from its REST capture.
    Comment { owner: &'p str, name: &'p str, id: i64 },
    /// `graphql/projects/OWNER/N`.
    Project { owner: &'p str, number: i64 },
}

impl<'p> GraphqlPath<'p> {
    /// The path's query shape; `None` for a path capture cannot ask for.
    pub fn parse(path: &'p str) -> Option<GraphqlPath<'p>> {
        let seg: Vec<&str> = path.split('/').collect();
        Some(match seg.as_slice() {
            ["graphql", "repos", owner, name, "discussions", n] => GraphqlPath::Discussion { owner, name, number: n.parse().ok()? },
            ["graphql", "repos", owner, name, "pulls", n, "review_threads"] => GraphqlPath::ReviewThreads { owner, name, number: n.parse().ok()? },
            ["graphql", "repos", owner, name, "comments", id] => GraphqlPath::Comment { owner, name, id: id.parse().ok()? },
            ["graphql", "projects", owner, n] => GraphqlPath::Project { owner, number: n.parse().ok()? },
            _ => return None,
        })
    }
}

/// REST paths of a repository, and the members of a team (a team review request is
/// satisfied by a member's review); GraphQL paths (`graphql/...`) are not asked for as REST.
pub fn capturable(path: &str) -> bool {
    let parts: Vec<&str> = path.split('/').collect();
    path.starts_with("repos/") || matches!(parts.as_slice(), ["orgs", _, "teams", _, "members"])
}

/// The REST captures that hold a comment's `node_id`: asked for first when a minimized
/// comment's GraphQL path is needed.
pub fn comment_rest_paths(path: &str) -> Vec<String> {
    match path.split('/').collect::<Vec<_>>().as_slice() {
        ["graphql", "repos", owner, name, "comments", id] => {
            vec![format!("repos/{owner}/{name}/issues/comments/{id}"), format!("repos/{owner}/{name}/pulls/comments/{id}")]
        }
        _ => Vec::new(),
    }
}

/// The paths the plan holds for a path the rules read: the path itself when capture asks
/// for it (REST, or GraphQL with the REST captures a comment's node id comes from); none
/// when capture cannot ask for it (search results, GraphQL it has no query for).
pub fn planned(path: &str) -> Vec<String> {
    if capturable(path) {
        vec![path.to_string()]
    } else if GraphqlPath::parse(path).is_some() {
        let mut out = comment_rest_paths(path);
        out.push(path.to_string());
        out
    } else {
        Vec::new()
    }
}

/// The repository-level paths planned for every target repository: the repository, its
/// commits (since the earliest action), its closed pull requests (revert detection reads
/// both lists).
pub fn repository_paths(repo: &str) -> [String; 3] {
    [format!("repos/{repo}"), format!("repos/{repo}/commits"), format!("repos/{repo}/pulls")]
}

/// A snapshot path's kind, as the dashboard's warning counts them: the repository's part of
/// it with numbers as `N` and commit ids as `SHA` (`issues/N/timeline`,
/// `commits/SHA/check-runs`), `graphql/` kept in front; the repository itself is `repository`.
pub fn kind(path: &str) -> String {
    let (prefix, rest) = match path.strip_prefix("graphql/") {
        Some(r) => ("graphql/", r),
        None => ("", path),
    };
    let parts: Vec<&str> = rest.split('/').collect();
    let tail: &[&str] = if parts.first() == Some(&"repos") && parts.len() >= 3 { &parts[3..] } else { &parts };
    if tail.is_empty() {
        return format!("{prefix}repository");
    }
    let shape = |s: &&str| -> String {
        let sha = |x: &str| x.len() >= 7 && x.chars().all(|c| c.is_ascii_hexdigit());
        if !s.is_empty() && s.chars().all(|c| c.is_ascii_digit()) {
            "N".into()
        } else if sha(s) {
            "SHA".into()
        } else if s.split("...").count() == 2 {
            "BASE...HEAD".into()
        } else {
            s.to_string()
        }
    };
    format!("{prefix}{}", tail.iter().map(shape).collect::<Vec<_>>().join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_read_path_plans_what_capture_asks_for() {
        assert_eq!(planned("repos/o/r/issues/3"), ["repos/o/r/issues/3"]);
        assert_eq!(planned("orgs/o/teams/t/members"), ["orgs/o/teams/t/members"]);
        assert_eq!(planned("graphql/repos/o/r/comments/9"), ["repos/o/r/issues/comments/9", "repos/o/r/pulls/comments/9", "graphql/repos/o/r/comments/9"]);
        assert_eq!(planned("graphql/projects/o/2"), ["graphql/projects/o/2"]);
        assert!(planned("graphql/projects/o/x").is_empty() && planned("search/issues?q=x").is_empty());
        assert_eq!(kind("repos/o/r/commits/abcdef1/check-runs"), "commits/SHA/check-runs");
        assert_eq!(kind("repos/o/r"), "repository");
        assert_eq!(kind("graphql/repos/o/r/discussions/4"), "graphql/discussions/N");
    }
}
