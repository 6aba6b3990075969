//! GraphQL captures: the state only GitHub's GraphQL API exposes, stored under `graphql/...`
//! paths in the shapes `schemas/graphql.md` documents.
//!
//! | path | query |
//! |---|---|
//! | `graphql/repos/O/R/discussions/N` | `repository.discussion(number)` |
//! | `graphql/repos/O/R/pulls/N/review_threads` | `repository.pullRequest(number).reviewThreads` |
//! | `graphql/repos/O/R/comments/ID` | `node(id)` of the comment, its `node_id` from the REST capture of `issues/comments/ID` or `pulls/comments/ID` |
//! | `graphql/projects/OWNER/N` | `organization(login).projectV2(number)`, else `user(login).projectV2(number)` |
//!
//! Lists are taken 100 at a time, the first 100 (GraphQL pages are not followed yet).

use serde_json::{json, Value};

pub(crate) use crate::snapshot::plan::{comment_rest_paths, GraphqlPath};

/// A GraphQL request for a path: its query and variables, and where its node is in `data`.
pub(crate) struct Query {
    pub(crate) query: &'static str,
    pub(crate) variables: Value,
    /// Keys from `data` down to the node.
    pub(crate) at: &'static [&'static str],
    /// The project shape differs from GraphQL's and is rewritten (see [`project`]).
    pub(crate) project: bool,
}

const DISCUSSION: &str = "query($owner: String!, $name: String!, $number: Int!) { repository(owner: $owner, name: $name) { discussion(number: $number) { \
number title body author { login __typename } createdAt updatedAt closed closedAt stateReason locked activeLockReason \
answer { author { login __typename } createdAt } answerChosenAt answerChosenBy { login __typename } \
labels(first: 100) { nodes { name } } reactions { totalCount } \
comments(first: 100) { nodes { databaseId author { login __typename } createdAt body isMinimized \
replies(first: 100) { nodes { databaseId author { login __typename } createdAt body isMinimized } } } } } } }";

const REVIEW_THREADS: &str = "query($owner: String!, $name: String!, $number: Int!) { repository(owner: $owner, name: $name) { pullRequest(number: $number) { \
reviewThreads(first: 100) { nodes { id isResolved isOutdated resolvedBy { login __typename } path \
comments(first: 100) { nodes { databaseId author { login __typename } createdAt body isMinimized } } } } } } }";

const COMMENT: &str = "query($id: ID!) { node(id: $id) { \
... on IssueComment { databaseId isMinimized minimizedReason } \
... on PullRequestReviewComment { databaseId isMinimized minimizedReason } } }";

const PROJECT_FIELDS: &str = "title \
fields(first: 50) { nodes { ... on ProjectV2FieldCommon { name } ... on ProjectV2SingleSelectField { options { name } } } } \
items(first: 100) { nodes { isArchived \
content { ... on Issue { number repository { nameWithOwner } } ... on PullRequest { number repository { nameWithOwner } } } \
fieldValues(first: 30) { nodes { \
... on ProjectV2ItemFieldSingleSelectValue { name field { ... on ProjectV2FieldCommon { name } } } \
... on ProjectV2ItemFieldTextValue { text field { ... on ProjectV2FieldCommon { name } } } \
... on ProjectV2ItemFieldNumberValue { number field { ... on ProjectV2FieldCommon { name } } } \
... on ProjectV2ItemFieldDateValue { date field { ... on ProjectV2FieldCommon { name } } } } } } }";

/// The query of an organization's project, then of a user's.
pub(crate) fn project_queries(owner: &str, number: i64) -> [Query; 2] {
    // Built once per process: the text is the same for every project.
    static ORG: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    static USER: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    let org = ORG.get_or_init(|| {
        format!("query($login: String!, $number: Int!) {{ organization(login: $login) {{ projectV2(number: $number) {{ {PROJECT_FIELDS} }} }} }}")
    });
    let user =
        USER.get_or_init(|| format!("query($login: String!, $number: Int!) {{ user(login: $login) {{ projectV2(number: $number) {{ {PROJECT_FIELDS} }} }} }}"));
    let vars = json!({"login": owner, "number": number});
    [
        Query { query: org.as_str(), variables: vars.clone(), at: &["organization", "projectV2"], project: true },
        Query { query: user.as_str(), variables: vars, at: &["user", "projectV2"], project: true },
    ]
}

/// What a `graphql/...` path asks for (its shape is [`GraphqlPath`]'s). `node_id` finds a
/// comment's node (from its REST capture); `None` when the path is not one capture knows
/// how to ask for.
pub(crate) fn queries(path: &str, node_id: impl Fn(&str, i64) -> Option<String>) -> Option<Vec<Query>> {
    Some(match GraphqlPath::parse(path)? {
        GraphqlPath::Discussion { owner, name, number } => vec![Query {
            query: DISCUSSION,
            variables: json!({"owner": owner, "name": name, "number": number}),
            at: &["repository", "discussion"],
            project: false,
        }],
        GraphqlPath::ReviewThreads { owner, name, number } => vec![Query {
            query: REVIEW_THREADS,
            variables: json!({"owner": owner, "name": name, "number": number}),
            at: &["repository", "pullRequest", "reviewThreads"],
            project: false,
        }],
        GraphqlPath::Comment { owner, name, id } => {
            let node = node_id(&format!("repos/{owner}/{name}"), id)?;
            vec![Query { query: COMMENT, variables: json!({"id": node}), at: &["node"], project: false }]
        }
        GraphqlPath::Project { owner, number } => project_queries(owner, number).into(),
    })
}

/// The node at `at` in a GraphQL answer (`None`: not there, e.g. no such discussion).
pub(crate) fn node<'a>(answer: &'a Value, at: &[&str]) -> Option<&'a Value> {
    let mut v = answer.get("data")?;
    for k in at {
        v = v.get(*k)?;
    }
    (!v.is_null()).then_some(v)
}

/// A GraphQL `projectV2` rewritten in the documented shape: fields with their options in
/// the project's order, items with `content` as `{repository, number}` and `fieldValues` as
/// field name -> the value's text.
pub(crate) fn project(p: &Value) -> Value {
    let nodes = |v: &Value| v.get("nodes").and_then(Value::as_array).cloned().unwrap_or_default();
    let fields: Vec<Value> = nodes(&p["fields"])
        .iter()
        .filter_map(|f| {
            let name = f.get("name")?.as_str()?;
            let mut o = json!({"name": name});
            if let Some(opts) = f.get("options").and_then(Value::as_array) {
                o["options"] = Value::Array(opts.iter().filter_map(|x| x.get("name").cloned()).collect());
            }
            Some(o)
        })
        .collect();
    let items: Vec<Value> = nodes(&p["items"])
        .iter()
        .map(|it| {
            let mut values = serde_json::Map::new();
            for fv in nodes(&it["fieldValues"]) {
                let Some(name) = fv.get("field").and_then(|f| f.get("name")).and_then(Value::as_str) else { continue };
                let value = ["name", "text", "number", "date"].iter().find_map(|k| fv.get(*k).filter(|v| !v.is_null()).cloned());
                if let Some(v) = value {
                    values.insert(name.to_string(), v);
                }
            }
            let content = &it["content"];
            json!({
                "content": {"repository": content.get("repository").and_then(|r| r.get("nameWithOwner")).cloned().unwrap_or(Value::Null),
                            "number": content.get("number").cloned().unwrap_or(Value::Null)},
                "isArchived": it.get("isArchived").cloned().unwrap_or(Value::Null),
                "fieldValues": Value::Object(values),
            })
        })
        .collect();
    json!({"title": p.get("title").cloned().unwrap_or(Value::Null), "fields": fields, "items": items})
}

/// The GraphQL endpoint of a REST API root: `https://api.github.com` -> `.../graphql`,
/// GitHub Enterprise Server's `https://HOST/api/v3` -> `https://HOST/api/graphql`.
pub(crate) fn endpoint(api_url: &str) -> String {
    let base = api_url.trim_end_matches('/');
    match base.strip_suffix("/api/v3") {
        Some(host) => format!("{host}/api/graphql"),
        None => format!("{base}/graphql"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_and_paths() {
        assert_eq!(endpoint("https://api.github.com"), "https://api.github.com/graphql");
        assert_eq!(endpoint("https://ghe.example.com/api/v3/"), "https://ghe.example.com/api/graphql");
        assert!(queries("graphql/repos/o/r/discussions/5", |_, _| None).is_some());
        assert!(queries("graphql/repos/o/r/comments/7", |_, _| None).is_none());
        assert_eq!(queries("graphql/repos/o/r/comments/7", |_, _| Some("IC_x".into())).unwrap()[0].variables["id"], "IC_x");
        assert_eq!(queries("graphql/projects/acme/3", |_, _| None).unwrap().len(), 2);
        assert!(queries("graphql/other", |_, _| None).is_none());
    }

    #[test]
    fn projects_in_the_documented_shape() {
        let gql = json!({"title": "Roadmap",
            "fields": {"nodes": [{"name": "Title"}, {"name": "Status", "options": [{"name": "Todo"}, {"name": "Done"}]}, {}]},
            "items": {"nodes": [{"isArchived": false, "content": {"number": 12, "repository": {"nameWithOwner": "acme/api"}},
                "fieldValues": {"nodes": [{"name": "Done", "field": {"name": "Status"}}, {"text": "x", "field": {"name": "Title"}}, {}]}}]}});
        assert_eq!(
            project(&gql),
            json!({"title": "Roadmap", "fields": [{"name": "Title"}, {"name": "Status", "options": ["Todo", "Done"]}],
                   "items": [{"content": {"repository": "acme/api", "number": 12}, "isArchived": false, "fieldValues": {"Status": "Done", "Title": "x"}}]})
        );
    }
}
