//! Typed views of the GitHub objects evaluators read. Built leniently from JSON: a missing
//! or wrong-typed field is `None` (missing evidence), never a failure of the record.

use std::borrow::Cow;

use super::sparse::{keys, Keys};
use crate::json::{bool_at, int_at, names, names_at, str_at, str_path, Json};
use crate::time::{self, Instant};

/// Who did something, as GitHub shows it. `None` login: the actor is not visible.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Actor {
    pub login: Option<String>,
    /// GitHub's `type`: `User`, `Bot`, `Organization`, `Mannequin`.
    pub kind: Option<ActorKind>,
}

/// An actor's `type` as GitHub gives it: one of the few names GitHub uses is borrowed, any
/// other kept as given. Every actor of every body read has one, and every act copies its
/// actor: a borrowed name costs nothing to make, copy or free.
pub(crate) type ActorKind = Cow<'static, str>;

/// `type` as an [`ActorKind`].
pub fn actor_kind(t: &str) -> ActorKind {
    const KNOWN: [&str; 5] = ["User", "Bot", "Organization", "Mannequin", "EnterpriseUserAccount"];
    match KNOWN.iter().find(|k| **k == t) {
        Some(k) => Cow::Borrowed(k),
        None => Cow::Owned(t.to_string()),
    }
}

impl Actor {
    pub fn from<J: Json>(v: Option<&J>) -> Actor {
        match v {
            Some(v) if v.is_object() => Actor { login: str_at(v, "login").map(str::to_string), kind: str_at(v, "type").map(actor_kind) },
            _ => Actor::default(),
        }
    }
}

/// The normalized hash of an object's `body`, for the tables (evaluators compare bodies
/// only in update rules, through `fields.rs`, so typed views do not carry it).
pub(crate) fn body_hash<J: Json>(v: &J) -> Option<String> {
    str_at(v, "body").map(normalized_body_hash)
}

/// sha256 of a body with CRLF -> LF, trailing blanks stripped from each line, and the
/// whole trimmed, so an editor's line endings do not read as an edit.
pub fn normalized_body_hash(body: &str) -> String {
    use sha2::{Digest, Sha256};
    // Hashed as it is read, with no copy of the body: every line without its trailing blanks
    // (a CRLF's CR among them), the blank lines at either end left out, the first line's
    // leading blanks too. That is the text trimmed, as the test below checks.
    let mut hash = Sha256::new();
    let mut blank_lines = 0usize;
    let mut started = false;
    for line in body.split('\n').map(str::trim_end) {
        if line.is_empty() {
            blank_lines += 1;
        } else if started {
            (0..=blank_lines).for_each(|_| hash.update(b"\n"));
            hash.update(line.as_bytes());
            blank_lines = 0;
        } else {
            hash.update(line.trim_start().as_bytes());
            started = true;
            blank_lines = 0;
        }
    }
    hex::encode(hash.finalize())
}

#[derive(Clone, Debug, Default)]
pub struct Issue {
    pub number: Option<i64>,
    pub title: Option<String>,
    pub state: Option<String>,
    pub state_reason: Option<String>,
    pub user: Actor,
    pub created_at: Option<Instant>,
    pub updated_at: Option<Instant>,
    pub closed_at: Option<Instant>,
    pub closed_by: Actor,
    pub labels: Option<Vec<String>>,
    pub assignees: Vec<String>,
    pub milestone: Option<i64>,
    pub is_pull_request: bool,
    pub reactions_total: Option<i64>,
    pub comments: Option<i64>,
}

impl Issue {
    pub fn from<J: Json>(v: &J) -> Issue {
        Issue {
            number: int_at(v, "number"),
            title: str_at(v, "title").map(str::to_string),
            state: str_at(v, "state").map(str::to_lowercase),
            state_reason: str_at(v, "state_reason").map(str::to_lowercase),
            user: Actor::from(v.get("user")),
            created_at: time::at(v, "created_at"),
            updated_at: time::at(v, "updated_at"),
            closed_at: time::at(v, "closed_at"),
            closed_by: Actor::from(v.get("closed_by")),
            labels: names_at(v, "labels"),
            assignees: names_at(v, "assignees").unwrap_or_default(),
            milestone: v.get("milestone").and_then(|m| int_at(m, "number")),
            is_pull_request: v.get("pull_request").is_some_and(|p| !p.is_null()),
            reactions_total: v.get("reactions").and_then(|r| int_at(r, "total_count")),
            comments: int_at(v, "comments"),
        }
    }

}

#[derive(Clone, Debug, Default)]
pub struct PullRequest {
    pub number: Option<i64>,
    pub title: Option<String>,
    pub state: Option<String>,
    pub merged: Option<bool>,
    pub draft: Option<bool>,
    pub user: Actor,
    pub merged_by: Actor,
    pub created_at: Option<Instant>,
    pub updated_at: Option<Instant>,
    pub closed_at: Option<Instant>,
    pub merged_at: Option<Instant>,
    pub merge_commit_sha: Option<String>,
    pub head_ref: Option<String>,
    pub head_sha: Option<String>,
    pub base_ref: Option<String>,
    pub labels: Option<Vec<String>>,
}

impl PullRequest {
    pub fn from<J: Json>(v: &J) -> PullRequest {
        let merged_at = time::at(v, "merged_at");
        PullRequest {
            number: int_at(v, "number"),
            title: str_at(v, "title").map(str::to_string),
            state: str_at(v, "state").map(str::to_lowercase),
            // `merged` is absent from list responses; `merged_at` says the same.
            merged: bool_at(v, "merged").or(merged_at.map(|_| true)),
            draft: bool_at(v, "draft"),
            user: Actor::from(v.get("user")),
            merged_by: Actor::from(v.get("merged_by")),
            created_at: time::at(v, "created_at"),
            updated_at: time::at(v, "updated_at"),
            closed_at: time::at(v, "closed_at"),
            merged_at,
            merge_commit_sha: str_at(v, "merge_commit_sha").map(str::to_string),
            head_ref: str_path(v, &["head", "ref"]).map(str::to_string),
            head_sha: str_path(v, &["head", "sha"]).map(str::to_string),
            base_ref: str_path(v, &["base", "ref"]).map(str::to_string),
            labels: names_at(v, "labels"),
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct Comment {
    pub id: Option<i64>,
    pub user: Actor,
    pub created_at: Option<Instant>,
    pub updated_at: Option<Instant>,
    pub issue_number: Option<i64>,
    pub reactions_total: Option<i64>,
    pub in_reply_to_id: Option<i64>,
    pub path: Option<String>,
    /// GraphQL `isMinimized`, when a capture carries it.
    pub minimized: Option<bool>,
    pub body: Option<String>,
    /// A review comment's PR: the last segment of its `pull_request_url`.
    pub pull_number: Option<i64>,
    /// The review an inline comment was written in (`pull_request_review_id`).
    pub review_id: Option<i64>,
    /// A review comment the diff has moved past: REST gives `position` null and keeps
    /// `original_position`.
    pub outdated: bool,
}

impl Comment {
    pub fn from<J: Json>(v: &J) -> Comment {
        let issue_number = str_at(v, "issue_url").and_then(|u| u.rsplit('/').next()).and_then(|n| n.parse().ok());
        Comment {
            id: int_at(v, "id"),
            user: Actor::from(v.get("user")),
            created_at: time::at(v, "created_at"),
            updated_at: time::at(v, "updated_at"),
            issue_number,
            reactions_total: v.get("reactions").and_then(|r| int_at(r, "total_count")),
            in_reply_to_id: int_at(v, "in_reply_to_id"),
            review_id: int_at(v, "pull_request_review_id"),
            path: str_at(v, "path").map(str::to_string),
            minimized: bool_at(v, "isMinimized").or_else(|| bool_at(v, "minimized")),
            body: str_at(v, "body").map(str::to_string),
            pull_number: str_at(v, "pull_request_url").and_then(|u| u.rsplit('/').next()).and_then(|n| n.parse().ok()),
            outdated: v.get("position").is_some_and(|p| p.is_null()) && v.get("original_position").is_some_and(|p| !p.is_null()),
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct Review {
    pub id: Option<i64>,
    pub user: Actor,
    pub state: Option<String>,
    /// `None` when absent *or* unparseable.
    pub submitted_at: Option<Instant>,
    pub commit_id: Option<String>,
    pub body: Option<String>,
}

impl Review {
    pub fn from<J: Json>(v: &J) -> Review {
        Review {
            id: int_at(v, "id"),
            user: Actor::from(v.get("user")),
            state: str_at(v, "state").map(str::to_uppercase),
            submitted_at: time::at(v, "submitted_at"),
            commit_id: str_at(v, "commit_id").map(str::to_string),
            body: str_at(v, "body").map(str::to_string),
        }
    }
}

/// An issue event or a timeline item, normalized: timeline items name their actor `user`
/// (comments, reviews) or `author` (commits) and their time `submitted_at` or a commit date.
#[derive(Clone, Debug, Default)]
pub struct Event {
    pub id: Option<i64>,
    pub event: Option<String>,
    pub actor: Actor,
    pub created_at: Option<Instant>,
    pub label: Option<String>,
    pub commit_id: Option<String>,
    pub state_reason: Option<String>,
    pub assignee: Option<String>,
    pub source_number: Option<i64>,
    pub source_is_pull_request: bool,
    /// Author of the referencing issue or PR (`cross-referenced`).
    pub source_author: Option<String>,
    pub review_state: Option<String>,
    /// `renamed`: the title before and after.
    pub rename_from: Option<String>,
    /// `review_dismissed`: the review's id.
    pub dismissed_review_id: Option<i64>,
}

impl Event {
    pub fn from<J: Json>(v: &J) -> Event {
        let actor = match v.get("actor").filter(|a| a.is_object()) {
            Some(a) => Actor::from(Some(a)),
            None => Actor::from(v.get("user")),
        };
        let created_at = time::at(v, "created_at")
            .or_else(|| time::at(v, "submitted_at"))
            .or_else(|| time::at_path(v, &["committer", "date"]))
            .or_else(|| time::at_path(v, &["author", "date"]));
        let source_issue = v.get("source").and_then(|s| s.get("issue"));
        Event {
            id: int_at(v, "id"),
            event: str_at(v, "event").map(str::to_string),
            actor,
            created_at,
            label: str_path(v, &["label", "name"]).map(str::to_string),
            commit_id: str_at(v, "commit_id").or_else(|| str_at(v, "sha")).map(str::to_string),
            state_reason: str_at(v, "state_reason").map(str::to_lowercase),
            assignee: str_path(v, &["assignee", "login"]).map(str::to_string),
            source_number: source_issue.and_then(|i| int_at(i, "number")),
            source_is_pull_request: source_issue.is_some_and(|i| i.get("pull_request").is_some()),
            source_author: source_issue.and_then(|i| str_path(i, &["user", "login"])).map(str::to_string),
            review_state: if str_at(v, "event") == Some("reviewed") { str_at(v, "state").map(str::to_uppercase) } else { None },
            rename_from: str_path(v, &["rename", "from"]).map(str::to_string),
            dismissed_review_id: v.get("dismissed_review").and_then(|d| int_at(d, "review_id")),
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct Commit {
    pub sha: Option<String>,
    pub author: Actor,
    pub committer: Actor,
    pub authored_at: Option<Instant>,
    pub committed_at: Option<Instant>,
    pub message: Option<String>,
}

impl Commit {
    pub fn from<J: Json>(v: &J) -> Commit {
        Commit {
            sha: str_at(v, "sha").map(str::to_string),
            author: Actor::from(v.get("author")),
            committer: Actor::from(v.get("committer")),
            authored_at: time::at_path(v, &["commit", "author", "date"]),
            committed_at: time::at_path(v, &["commit", "committer", "date"]),
            message: str_path(v, &["commit", "message"]).map(str::to_string),
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct Reaction {
    pub id: Option<i64>,
    pub user: Actor,
    pub content: Option<String>,
    pub created_at: Option<Instant>,
}

impl Reaction {
    pub fn from<J: Json>(v: &J) -> Reaction {
        Reaction {
            id: int_at(v, "id"),
            user: Actor::from(v.get("user")),
            content: str_at(v, "content").map(str::to_string),
            created_at: time::at(v, "created_at"),
        }
    }
}

/// The events of a timeline or events list. A `line-commented` (or `commit-commented`)
/// timeline item has no actor or time of its own: it holds the review comments it stands
/// for under `comments`, and each becomes an event of that kind with the comment's author,
/// time and id, so none is lost.
pub fn events<J: Json>(v: &J) -> Vec<Event> {
    let Some(items) = v.as_array() else { return Vec::new() };
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        match (str_at(item, "event"), item.get("comments").and_then(J::as_array)) {
            (Some(kind @ ("line-commented" | "commit-commented")), Some(comments)) => {
                for c in comments {
                    let mut e = Event::from(c);
                    e.event = Some(kind.to_string());
                    out.push(e);
                }
            }
            _ => out.push(Event::from(item)),
        }
    }
    out
}

/// A typed reading of a whole body, from either kind of JSON (see [`Json`]).
pub(crate) trait View: Sized {
    /// Every key the view reads, at any depth: a body read for it keeps only those.
    const KEYS: Keys;
    fn read<J: Json>(v: &J) -> Self;
}

macro_rules! views {
    ($($t:ident: $keys:ident),+) => {
        $(
            impl View for $t {
                const KEYS: Keys = $keys;
                fn read<J: Json>(v: &J) -> Self {
                    $t::from(v)
                }
            }
            impl View for Vec<$t> {
                const KEYS: Keys = $keys;
                fn read<J: Json>(v: &J) -> Self {
                    list(v, $t::from)
                }
            }
        )+
    };
}
views!(Issue: issue_keys, PullRequest: pull_keys, Comment: comment_keys, Review: review_keys, Commit: commit_keys, Reaction: reaction_keys);

// The keys each view reads (`from` above), at any depth; an actor is `login` and `type`, a
// list of names `name` or `login`.
keys!(pub(crate) fn issue_keys: "number", "title", "state", "state_reason", "user", "login", "type", "created_at", "updated_at", "closed_at", "closed_by",
    "labels", "name", "assignees", "milestone", "pull_request", "reactions", "total_count", "comments");
keys!(pub(crate) fn pull_keys: "number", "title", "state", "merged", "draft", "user", "login", "type", "merged_by", "created_at", "updated_at", "closed_at",
    "merged_at", "merge_commit_sha", "head", "ref", "sha", "base", "labels", "name");
keys!(pub(crate) fn comment_keys: "id", "user", "login", "type", "created_at", "updated_at", "issue_url", "reactions", "total_count", "in_reply_to_id", "path",
    "isMinimized", "minimized", "body", "pull_request_url", "position", "original_position", "pull_request_review_id");
keys!(pub(crate) fn review_keys: "id", "user", "login", "type", "state", "submitted_at", "commit_id", "body");
keys!(pub(crate) fn event_keys: "event", "comments", "id", "actor", "user", "login", "type", "created_at", "submitted_at", "committer", "author", "date",
    "label", "name", "commit_id", "sha", "state_reason", "assignee", "milestone", "title", "requested_reviewer", "requested_team", "slug", "source",
    "issue", "number", "pull_request", "state", "rename", "from", "to", "dismissed_review", "review_id");
keys!(pub(crate) fn commit_keys: "sha", "author", "committer", "login", "type", "commit", "date", "message");
keys!(pub(crate) fn reaction_keys: "id", "user", "login", "type", "content", "created_at");
keys!(pub(crate) fn name_keys: "name", "login");

/// A timeline or events list (see [`events`]), not a list of `Event::from`.
#[derive(Clone, Debug, Default)]
pub(crate) struct Events(pub(crate) Vec<Event>);

impl View for Events {
    const KEYS: Keys = event_keys;
    fn read<J: Json>(v: &J) -> Self {
        Events(events(v))
    }
}

/// A list of names (labels, logins): strings, or objects' `name` (else `login`), as
/// `crate::json::names` reads them; `None` for a body that is no list.
#[derive(Clone, Debug, Default)]
pub(crate) struct Names(pub(crate) Option<Vec<String>>);

impl View for Names {
    const KEYS: Keys = name_keys;
    fn read<J: Json>(v: &J) -> Self {
        Names(names(v))
    }
}

/// Elements of a list body; a non-array body gives an empty list.
pub(crate) fn list<J: Json, T>(v: &J, f: fn(&J) -> T) -> Vec<T> {
    v.as_array().map(|a| a.iter().map(f).collect()).unwrap_or_default()
}

/// Whether a login is an automation account by its name alone: GitHub's `[bot]` suffix, or
/// an agent account GitHub does not always mark (`Copilot`), in any case. Logins are ASCII
/// on GitHub: compared without lowercasing into a new string (it runs for every output).
pub fn is_bot_login(login: &str) -> bool {
    let b = login.as_bytes();
    (b.len() >= 5 && b[b.len() - 5..].eq_ignore_ascii_case(b"[bot]")) || KNOWN_BOTS.iter().any(|k| k.eq_ignore_ascii_case(login))
}

/// Agent and automation accounts GitHub does not mark `[bot]` in every response.
const KNOWN_BOTS: &[&str] = &["copilot", "copilot-swe-agent", "github-actions", "dependabot", "renovate"];

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    /// The normalization as defined: CRLF -> LF, trailing blanks stripped from each line,
    /// the whole trimmed, then hashed.
    fn defined(body: &str) -> String {
        let unix = body.replace("\r\n", "\n");
        let joined = unix.lines().map(str::trim_end).collect::<Vec<_>>().join("\n");
        crate::json::sha256_hex(joined.trim().as_bytes())
    }

    #[test]
    fn a_body_hashed_as_read_is_the_normalization_as_defined() {
        for body in ["", "\n", "a", " a \r\n\r\n b\t\r\n\n", "\r\r\na\r\rb\r", "\u{a0}x\u{2003}\n\n\ny \n", "x\ny"] {
            assert_eq!(super::normalized_body_hash(body), defined(body), "{body:?}");
        }
        proptest!(ProptestConfig::with_cases(2000), |(body in "[ab \t\r\n\u{a0}\u{2003}\u{85}]{0,24}")| {
            prop_assert_eq!(super::normalized_body_hash(&body), defined(&body));
        });
    }
}
