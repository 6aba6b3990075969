//! Evidence in other shapes. GitHub answers for one object in many places: a pull request
//! comes back as an issue (with a `pull_request` object) from the issues API and from
//! search; repository-wide lists (`issues`, `pulls`, `issues/comments`, `issues/events`,
//! `pulls/comments`) and `search/issues` carry the same objects and events as the
//! per-object paths a rule looks up; a PR's timeline alone shows whether it was merged.
//! Every capture that carries an object is used: what a rule looks up under its canonical
//! path is also derived from those, marked with the capture it came from
//! (`Entry::derived_from`).
//!
//! Which copy wins: a list or object captured directly at its own path is used as is; a
//! derived copy fills a path nobody captured, or replaces a direct copy that an explicitly
//! newer capture (a later `captured_at`) contradicts. Among derived copies the newest wins.

use std::collections::HashMap;

use serde_json::{json, Map, Value};

use super::Entry;
use crate::json::{int_at, str_at};
use crate::time::Instant;

/// A derived entry waiting to be placed: its path, body, the capture it came from and
/// that capture's time.
struct Derived {
    path: String,
    body: Value,
    from: String,
    at: Option<Instant>,
}

/// Items of a repository-wide list that belong to one object (target path, source path):
/// the items, the source path and its capture time.
type Grouped = (Vec<Value>, String, Option<Instant>);

/// `repos/O/R/<tail>` for an API URL such as `https://api.github.com/repos/O/R/issues/5`.
fn api_path(url: &str) -> Option<String> {
    let i = url.find("/repos/")?;
    Some(url[i + 1..].split(['?', '#']).next()?.trim_end_matches('/').to_string())
}

/// The repository path (`repos/O/R`) of an object in a list: from its `repository_url`
/// or its own `url`.
fn repo_of_item(item: &Value) -> Option<String> {
    if let Some(r) = str_at(item, "repository_url").and_then(api_path) {
        return Some(r);
    }
    let p = str_at(item, "url").and_then(api_path)?;
    let parts: Vec<&str> = p.splitn(4, '/').collect();
    (parts.len() >= 3).then(|| parts[..3].join("/"))
}

/// A PR in the pulls API's shape, from an issue-shaped body that says it is one. Only when
/// the `pull_request` object records `merged_at` (null or a time): without it, a closed PR
/// could be merged or not, and that is not guessed.
fn pull_from_issue(issue: &Value) -> Option<Value> {
    let pr = issue.get("pull_request")?.as_object()?;
    let merged_at = pr.get("merged_at")?;
    let mut out: Map<String, Value> = issue.as_object()?.clone();
    out.remove("pull_request");
    out.insert("merged_at".into(), merged_at.clone());
    out.insert("merged".into(), Value::Bool(!merged_at.is_null()));
    if let Some(u) = pr.get("html_url") {
        out.insert("html_url".into(), u.clone());
    }
    Some(Value::Object(out))
}

/// PR-only timeline events: a timeline holding one is a pull request's.
const PULL_EVENTS: &[&str] = &["merged", "reviewed", "review_requested", "ready_for_review", "convert_to_draft", "head_ref_force_pushed", "head_ref_deleted"];

/// A PR's lifecycle from its timeline alone: merged, closed or open as the last of its
/// `merged`/`closed`/`reopened` events says. Only for a timeline that shows it is a PR's.
fn pull_from_timeline(n: i64, timeline: &Value) -> Option<Value> {
    let items = timeline.as_array()?;
    if !items.iter().any(|e| str_at(e, "event").is_some_and(|k| PULL_EVENTS.contains(&k))) {
        return None;
    }
    let (mut state, mut merged, mut merged_at, mut merged_by, mut closed_at) = ("open", false, Value::Null, Value::Null, Value::Null);
    for e in items {
        let at = e.get("created_at").cloned().unwrap_or(Value::Null);
        match str_at(e, "event") {
            Some("merged") => {
                merged = true;
                state = "closed";
                merged_at = at.clone();
                merged_by = e.get("actor").cloned().unwrap_or(Value::Null);
                if closed_at.is_null() {
                    closed_at = at;
                }
            }
            Some("closed") => {
                state = "closed";
                closed_at = at;
            }
            Some("reopened") if !merged => {
                state = "open";
                closed_at = Value::Null;
            }
            _ => {}
        }
    }
    Some(json!({"number": n, "state": state, "merged": merged, "merged_at": merged_at, "merged_by": merged_by, "closed_at": closed_at}))
}

/// The number at the end of an API URL (`.../issues/5` -> 5).
fn trailing_number(url: &str) -> Option<i64> {
    url.trim_end_matches('/').rsplit('/').next()?.parse().ok()
}

/// Entries derived from the captures in `entries`, placed where they add evidence.
pub(crate) fn add_derived(entries: &mut super::Paths) {
    let derived = derive_all(entries);
    place(entries, derived);
}

/// Every copy the captures in `entries` carry of another path: per-object lists first,
/// in the order the entries are met, then the repository-wide lists' items grouped by
/// the object they belong to.
fn derive_all(entries: &super::Paths) -> Vec<Derived> {
    let mut derived: Vec<Derived> = Vec::new();
    // Lists grouped by the object they belong to, per source.
    let mut grouped: HashMap<(String, String), Grouped> = HashMap::new();
    for (path, e) in entries.iter() {
        if !e.ok() {
            continue;
        }
        let mut seg = [""; 6];
        let Some(n) = segments(path, &mut seg) else { continue };
        derive_from(&seg[..n], path, e, &mut derived, &mut grouped);
    }
    for ((target, _), (items, from, at)) in grouped {
        derived.push(Derived { path: target, body: Value::Array(items), from, at });
    }
    derived
}

/// The path's segments into `seg` without a vector per entry, and how many there are;
/// `None` for a path longer than every shape derived from (six segments).
fn segments<'p>(path: &'p str, seg: &mut [&'p str; 6]) -> Option<usize> {
    let mut n = 0;
    for p in path.split('/') {
        if n == seg.len() {
            return None;
        }
        seg[n] = p;
        n += 1;
    }
    Some(n)
}

/// The copies one capture (`path`, split into `parts`) carries: pushed to `derived`, or for
/// a repository-wide list of comments or events, its items added to `grouped`.
fn derive_from(parts: &[&str], path: &str, e: &Entry, derived: &mut Vec<Derived>, grouped: &mut HashMap<(String, String), Grouped>) {
    let mut push = |path: String, body: Value, from: &str, at: Option<Instant>| derived.push(Derived { path, body, from: from.to_string(), at });
    let items = || e.body().as_array().map(Vec::as_slice).unwrap_or(&[]);
    match parts {
        ["repos", _, _, "issues"] | ["search", "issues"] => {
            let list = if parts[0] == "search" { e.body().get("items").and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[]) } else { items() };
            for item in list {
                let (Some(repo), Some(n)) = (repo_of_item(item), int_at(item, "number")) else { continue };
                push(format!("{repo}/issues/{n}"), item.clone(), path, e.captured_at);
                if let Some(pr) = pull_from_issue(item) {
                    push(format!("{repo}/pulls/{n}"), pr, path, e.captured_at);
                }
            }
        }
        ["repos", o, r, "issues", "comments"] | ["repos", o, r, "issues", "events"] | ["repos", o, r, "pulls", "comments"] => {
            group_by_object(o, r, &parts[3..].join("/"), path, e, items(), grouped);
        }
        ["repos", o, r, "issues", n] => {
            if !e.may_hold(&["pull_request"]) {
                return;
            }
            if let (Some(pr), Ok(_)) = (pull_from_issue(e.body()), n.parse::<i64>()) {
                push(format!("repos/{o}/{r}/pulls/{n}"), pr, path, e.captured_at);
            }
        }
        ["repos", o, r, "issues", n, "timeline"] => {
            if !e.may_hold(PULL_EVENTS) {
                return;
            }
            if let Some(pr) = n.parse().ok().and_then(|n| pull_from_timeline(n, e.body())) {
                push(format!("repos/{o}/{r}/pulls/{n}"), pr, path, e.captured_at);
            }
        }
        ["repos", o, r, "pulls"] => {
            for item in items() {
                if let Some(n) = int_at(item, "number") {
                    push(format!("repos/{o}/{r}/pulls/{n}"), item.clone(), path, e.captured_at);
                }
            }
        }
        _ => {}
    }
}

/// A repository-wide list of comments or events (`kind`: `issues/comments`,
/// `issues/events`, `pulls/comments`) cut into the per-object lists a rule looks up.
fn group_by_object(o: &str, r: &str, kind: &str, path: &str, e: &Entry, items: &[Value], grouped: &mut HashMap<(String, String), Grouped>) {
    for item in items {
        let n = match kind {
            "issues/comments" => str_at(item, "issue_url").and_then(trailing_number),
            "issues/events" => item.get("issue").and_then(|i| int_at(i, "number")),
            _ => str_at(item, "pull_request_url").and_then(trailing_number),
        };
        let Some(n) = n else { continue };
        let tail = match kind {
            "issues/comments" => format!("issues/{n}/comments"),
            "issues/events" => format!("issues/{n}/events"),
            _ => format!("pulls/{n}/comments"),
        };
        let slot = grouped.entry((format!("repos/{o}/{r}/{tail}"), path.to_string())).or_insert_with(|| (Vec::new(), path.to_string(), e.captured_at));
        slot.0.push(item.clone());
    }
}

/// The derived copies placed in `entries` where they add evidence (see the module's
/// "which copy wins").
fn place(entries: &mut super::Paths, mut derived: Vec<Derived>) {
    // Newest first (an unknown time is the snapshot's, the latest), then by source path,
    // so the choice does not depend on hash order.
    derived.sort_by(|a, b| (b.at.is_none(), b.at, &a.from).cmp(&(a.at.is_none(), a.at, &b.from)).then_with(|| a.path.cmp(&b.path)));
    for d in derived {
        let replace = match entries.get(&d.path) {
            None => true,
            // Already derived from a newer capture.
            Some(e) if e.derived_from.is_some() => false,
            // A failed capture is no evidence; the copy elsewhere is.
            Some(e) if !e.ok() && !e.gone() => true,
            // A direct capture stays, unless this copy was explicitly captured later.
            Some(e) => matches!((d.at, e.captured_at), (Some(a), Some(b)) if a > b),
        };
        if !replace {
            continue;
        }
        // The path's own capture still answered, though this copy is used.
        let answered = entries.get(&d.path).is_some_and(Entry::answered);
        entries.insert(d.path, Entry::new(200, d.body, d.at, Some(d.from)).answered_as(answered));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(body: Value, at: Option<&str>) -> Entry {
        Entry::new(200, body, at.and_then(crate::time::parse), None)
    }

    #[test]
    fn repository_paths_of_list_items() {
        assert_eq!(repo_of_item(&json!({"repository_url": "https://api.github.com/repos/o/r"})).as_deref(), Some("repos/o/r"));
        assert_eq!(repo_of_item(&json!({"url": "https://api.github.com/repos/o/r/issues/3"})).as_deref(), Some("repos/o/r"));
        assert_eq!(trailing_number("https://api.github.com/repos/o/r/issues/12"), Some(12));
    }

    /// Paths of up to six segments are split; a longer one is no shape derived from.
    #[test]
    fn paths_longer_than_every_derived_shape_are_passed_over() {
        let mut seg = [""; 6];
        assert_eq!(segments("repos/o/r/issues/5/timeline", &mut seg), Some(6));
        assert_eq!(seg, ["repos", "o", "r", "issues", "5", "timeline"]);
        assert_eq!(segments("search/issues", &mut seg), Some(2));
        assert_eq!(seg[..2], ["search", "issues"]);
        assert_eq!(segments("repos/o/r/issues/comments/7/reactions", &mut seg), None);
    }

    #[test]
    fn a_direct_capture_wins_unless_a_later_one_contradicts_it() {
        let mut m = super::super::Paths::default();
        m.insert("repos/o/r/issues/1".to_string(), entry(json!({"number": 1, "state": "open"}), Some("2026-01-01T00:00:00Z")));
        m.insert(
            "repos/o/r/issues".to_string(),
            entry(json!([{"number": 1, "state": "closed", "url": "https://api.github.com/repos/o/r/issues/1"}, {"number": 2, "state": "open", "url": "https://api.github.com/repos/o/r/issues/2"}]), Some("2026-01-05T00:00:00Z")),
        );
        add_derived(&mut m);
        assert_eq!(m["repos/o/r/issues/1"].body()["state"], "closed", "the later list wins");
        assert_eq!(m["repos/o/r/issues/1"].derived_from.as_deref(), Some("repos/o/r/issues"));
        assert_eq!(m["repos/o/r/issues/2"].body()["state"], "open");
        // Captured after the list: the direct copy stays.
        let mut m = super::super::Paths::default();
        m.insert("repos/o/r/issues/1".to_string(), entry(json!({"number": 1, "state": "open"}), Some("2026-01-09T00:00:00Z")));
        m.insert(
            "repos/o/r/issues".to_string(),
            entry(json!([{"number": 1, "state": "closed", "url": "https://api.github.com/repos/o/r/issues/1"}]), Some("2026-01-05T00:00:00Z")),
        );
        add_derived(&mut m);
        assert_eq!(m["repos/o/r/issues/1"].body()["state"], "open");
        assert!(m["repos/o/r/issues/1"].derived_from.is_none());
    }

    #[test]
    fn an_issue_shaped_pr_without_merged_at_is_not_a_pr_body() {
        assert!(pull_from_issue(&json!({"number": 1, "state": "closed", "pull_request": {"url": "x"}})).is_none());
        let pr = pull_from_issue(&json!({"number": 1, "state": "closed", "pull_request": {"merged_at": "2026-01-02T00:00:00Z"}})).unwrap();
        assert_eq!((pr["merged"].as_bool(), pr["merged_at"].as_str()), (Some(true), Some("2026-01-02T00:00:00Z")));
        let pr = pull_from_issue(&json!({"number": 1, "state": "closed", "pull_request": {"merged_at": null}})).unwrap();
        assert_eq!(pr["merged"], false);
    }
}
