//! GraphQL-only state, read from captures under `graphql/`. The shapes are documented in
//! `schemas/graphql.md`; every field is optional and read leniently.

use serde_json::Value;

use super::github::Actor;
use crate::json::{bool_at, int_at, str_at};
use crate::time::{self, Instant};

/// A GraphQL `author`/`actor`: `login` plus `__typename` (`User`, `Bot`, ...).
pub fn actor(v: Option<&Value>) -> Actor {
    match v {
        Some(a) if a.is_object() => {
            Actor { login: str_at(a, "login").map(str::to_string), kind: str_at(a, "__typename").or(str_at(a, "type")).map(super::github::actor_kind) }
        }
        _ => Actor::default(),
    }
}

/// `{"nodes": [...]}` or a plain array.
pub fn nodes(v: Option<&Value>) -> Vec<&Value> {
    match v {
        Some(Value::Array(a)) => a.iter().collect(),
        Some(o) => o.get("nodes").and_then(Value::as_array).map(|a| a.iter().collect()).unwrap_or_default(),
        None => Vec::new(),
    }
}

#[derive(Clone, Debug, Default)]
pub struct GqlComment {
    pub id: Option<i64>,
    pub author: Actor,
    pub created_at: Option<Instant>,
    pub minimized: Option<bool>,
    pub body: Option<String>,
    pub replies: Vec<GqlComment>,
}

impl GqlComment {
    pub fn from(v: &Value) -> GqlComment {
        GqlComment {
            id: int_at(v, "databaseId").or_else(|| int_at(v, "id")),
            author: actor(v.get("author")),
            created_at: time::at(v, "createdAt"),
            minimized: bool_at(v, "isMinimized"),
            body: str_at(v, "body").map(str::to_lowercase),
            replies: nodes(v.get("replies")).into_iter().map(GqlComment::from).collect(),
        }
    }
}

/// `graphql/repos/O/R/discussions/N`.
#[derive(Clone, Debug, Default)]
pub struct Discussion {
    pub author: Actor,
    pub created_at: Option<Instant>,
    pub updated_at: Option<Instant>,
    pub closed: Option<bool>,
    pub closed_at: Option<Instant>,
    /// RESOLVED, OUTDATED, DUPLICATE, REOPENED.
    pub state_reason: Option<String>,
    pub answer_chosen_at: Option<Instant>,
    pub answer_chosen_by: Actor,
    pub has_answer: bool,
    pub locked: Option<bool>,
    /// `activeLockReason` (OFF_TOPIC, RESOLVED, SPAM, TOO_HEATED), when locked.
    pub lock_reason: Option<String>,
    /// Whether the discussion itself is hidden, and why (`isMinimized`, `minimizedReason`):
    /// read when a capture carries them. Reasons are upper-cased with `-` as `_`, as
    /// `activeLockReason` spells them (`off-topic` -> `OFF_TOPIC`).
    pub minimized: Option<bool>,
    pub minimized_reason: Option<String>,
    pub reactions_total: Option<i64>,
    pub comments: Vec<GqlComment>,
    /// The issue this discussion became, or issues/PRs linked to it (hindsight's capture
    /// adds these from the discussion's timeline or the issue's `cross-referenced` events).
    pub converted_to_issue: Option<i64>,
    pub linked: Vec<i64>,
}

impl Discussion {
    pub fn from(v: &Value) -> Discussion {
        Discussion {
            author: actor(v.get("author")),
            created_at: time::at(v, "createdAt"),
            updated_at: time::at(v, "updatedAt"),
            closed: bool_at(v, "closed"),
            closed_at: time::at(v, "closedAt"),
            state_reason: str_at(v, "stateReason").map(str::to_uppercase),
            answer_chosen_at: time::at(v, "answerChosenAt"),
            answer_chosen_by: actor(v.get("answerChosenBy")),
            has_answer: v.get("answer").is_some_and(|a| !a.is_null()),
            locked: bool_at(v, "locked"),
            lock_reason: str_at(v, "activeLockReason").map(reason),
            minimized: bool_at(v, "isMinimized"),
            minimized_reason: str_at(v, "minimizedReason").map(reason),
            reactions_total: v.get("reactions").and_then(|r| int_at(r, "totalCount")),
            comments: nodes(v.get("comments")).into_iter().map(GqlComment::from).collect(),
            converted_to_issue: v.get("convertedToIssue").and_then(|i| int_at(i, "number")),
            linked: nodes(v.get("linkedItems")).iter().filter_map(|n| int_at(*n, "number")).collect(),
        }
    }
}

/// A lock or hide reason as GraphQL's `LockReason` spells it: `off-topic` and `OFF_TOPIC` alike.
fn reason(r: &str) -> String {
    r.trim().to_uppercase().replace(['-', ' '], "_")
}

/// One thread of `graphql/repos/O/R/pulls/N/review_threads`.
#[derive(Clone, Debug, Default)]
pub struct ReviewThread {
    pub node_id: Option<String>,
    pub resolved: Option<bool>,
    pub resolved_by: Actor,
    /// Who unresolved the thread last: not a GraphQL field; a capture tool adds it from the
    /// `pull_request_review_thread` webhook (`action: unresolved`, its `sender`) when it has one.
    pub unresolved_by: Actor,
    pub outdated: Option<bool>,
    pub comments: Vec<GqlComment>,
}

impl ReviewThread {
    pub fn from(v: &Value) -> ReviewThread {
        ReviewThread {
            node_id: str_at(v, "id").map(str::to_string),
            resolved: bool_at(v, "isResolved"),
            resolved_by: actor(v.get("resolvedBy")),
            unresolved_by: actor(v.get("unresolvedBy")),
            outdated: bool_at(v, "isOutdated"),
            comments: nodes(v.get("comments")).into_iter().map(GqlComment::from).collect(),
        }
    }

    pub fn holds_comment(&self, id: i64) -> bool {
        self.comments.iter().any(|c| c.id == Some(id))
    }
}

/// `graphql/projects/OWNER/NUMBER`: fields (with ordered options) and items.
#[derive(Clone, Debug, Default)]
pub struct Project {
    pub(crate) fields: Vec<(String, Vec<String>)>,
    pub items: Vec<ProjectItem>,
}

#[derive(Clone, Debug, Default)]
pub struct ProjectItem {
    pub repo: Option<String>,
    pub number: Option<i64>,
    pub archived: bool,
    pub values: serde_json::Map<String, Value>,
}

impl Project {
    pub fn from(v: &Value) -> Project {
        Project {
            fields: nodes(v.get("fields"))
                .iter()
                .filter_map(|f| {
                    let name = str_at(*f, "name")?.to_string();
                    let opts = nodes(f.get("options")).iter().filter_map(|o| o.as_str().or_else(|| str_at(*o, "name")).map(str::to_string)).collect();
                    Some((name, opts))
                })
                .collect(),
            items: nodes(v.get("items"))
                .iter()
                .map(|i| {
                    let content = i.get("content");
                    ProjectItem {
                        repo: content.and_then(|c| str_at(c, "repository")).map(str::to_string),
                        number: content.and_then(|c| int_at(c, "number")),
                        archived: bool_at(*i, "isArchived").unwrap_or(false),
                        values: i.get("fieldValues").and_then(Value::as_object).cloned().unwrap_or_default(),
                    }
                })
                .collect(),
        }
    }

    pub fn options(&self, field: &str) -> Option<&[String]> {
        self.fields.iter().find(|(n, _)| n.eq_ignore_ascii_case(field)).map(|(_, o)| o.as_slice()).filter(|o| !o.is_empty())
    }
}
