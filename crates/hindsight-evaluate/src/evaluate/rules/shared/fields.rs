//! Field-level comparison for updates: what the workflow set (after), what was there
//! before, and what is there at the window's end. Shared by the update rules.
//!
//! Bodies compare by normalized hash (CRLF -> LF, trailing blanks stripped, trimmed);
//! labels and assignees as sets of lower-cased names; milestones by number (or title).

use serde_json::{json, Value};

use crate::evaluate::case::HistoryGap;
use crate::evaluate::case::{Activity, Case};
use crate::evaluate::outcome::Confidence;
use crate::evaluate::rules::issue_final;
use crate::evaluate::{common, Common, Rule, Verdict};
use crate::json::{names, str_at, str_path};
use crate::snapshot::github::{normalized_body_hash, Event, Issue};
use crate::time::Instant;

pub(crate) const FIELDS: &[&str] = &["title", "body", "state", "labels", "assignees", "milestone", "draft", "base", "name", "tag_name", "prerelease"];

/// The events that change a field, for finding who changed it.
fn field_events(field: &str) -> &'static [&'static str] {
    match field {
        "title" => &["renamed"],
        "state" => &["closed", "reopened"],
        "labels" => &["labeled", "unlabeled"],
        "assignees" => &["assigned", "unassigned"],
        "milestone" => &["milestoned", "demilestoned"],
        "draft" => &["convert_to_draft", "ready_for_review"],
        "base" => &["base_ref_changed"],
        _ => &[],
    }
}

fn set(v: &Value) -> Value {
    let mut l: Vec<String> = names(v).unwrap_or_default().into_iter().map(|x| x.to_lowercase()).collect();
    l.sort();
    l.dedup();
    json!(l)
}

/// A recorded value in comparable form.
pub(crate) fn normalize(field: &str, v: &Value) -> Value {
    match field {
        "body" => match v.as_str() {
            Some(s) => json!(normalized_body_hash(s)),
            None => v.clone(),
        },
        "labels" | "assignees" => set(v),
        "milestone" => match v {
            Value::Object(_) => v.get("number").cloned().or_else(|| v.get("title").cloned()).unwrap_or(Value::Null),
            other => other.clone(),
        },
        "state" => v.as_str().map(|s| json!(s.to_lowercase())).unwrap_or_else(|| v.clone()),
        _ => v.clone(),
    }
}

/// The current value of a field on a captured object (issue, PR, release, discussion).
pub(crate) fn current(obj: &Value, field: &str) -> Option<Value> {
    let v = match field {
        "body" => return str_at(obj, "body").map(|b| json!(normalized_body_hash(b))),
        "base" => return str_path(obj, &["base", "ref"]).map(|b| json!(b)),
        "labels" => {
            let l = obj.get("labels")?;
            return Some(set(&Value::Array(crate::snapshot::graphql::nodes(Some(l)).into_iter().cloned().collect())));
        }
        "state" if obj.get("closed").is_some() && obj.get("state").is_none() => {
            return obj.get("closed").and_then(Value::as_bool).map(|c| json!(if c { "closed" } else { "open" }));
        }
        _ => obj.get(field)?,
    };
    Some(normalize(field, v))
}

/// The intended changes: every known field of `after`, with its `before` value if any.
/// `body_hash` in a record stands for `body`.
pub(crate) fn intended(before: Option<&Value>, after: &Value) -> Vec<(String, Option<Value>, Value)> {
    let get = |src: &Value, f: &str| -> Option<Value> {
        match f {
            "body" => src.get("body").map(|b| normalize("body", b)).or_else(|| src.get("body_hash").cloned()),
            _ => src.get(f).map(|x| normalize(f, x)),
        }
    };
    FIELDS
        .iter()
        .filter_map(|f| {
            let a = get(after, f)?;
            Some((f.to_string(), before.and_then(|b| get(b, f)), a))
        })
        .collect()
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kept {
    Retained,
    Reverted,
    Replaced,
}

pub(crate) struct Judged {
    pub(crate) field: String,
    pub(crate) kept: Kept,
}

/// The object's fields as of the window's end, or why they cannot be known.
pub(crate) fn fields_as_of(case: &Case, obj: &Value, updated_at: Option<Instant>, events: Option<&[Event]>, wanted: &[String]) -> Result<Value, HistoryGap> {
    let mut now = serde_json::Map::new();
    for f in wanted {
        if let Some(v) = current(obj, f) {
            now.insert(f.clone(), v);
        }
    }
    if case.window.is_snapshot() || updated_at.is_some_and(|u| u <= case.as_of) {
        return Ok(Value::Object(now));
    }
    let Some(evs) = events else { return Err(HistoryGap::HistoryMissing) };
    for f in wanted {
        match f.as_str() {
            "title" => {
                let mut title = now.get("title").cloned();
                for e in evs.iter().rev() {
                    if e.created_at.is_some_and(|t| t > case.as_of) && e.event.as_deref() == Some("renamed") {
                        title = e.rename_from.clone().map(Value::from);
                    }
                }
                if let Some(t) = title {
                    now.insert("title".into(), t);
                }
            }
            "labels" => {
                let l: Vec<String> = now.get("labels").and_then(names).unwrap_or_default();
                let at = case.labels_as_of(l, evs);
                if !at.unsettled.is_empty() {
                    return Err(HistoryGap::HistoryIncomplete);
                }
                let mut at = at.labels;
                at.sort();
                now.insert("labels".into(), json!(at));
            }
            "state" => {
                let issue = Issue::from(obj);
                let lc = case.lifecycle(&issue_final(&issue), Some(evs))?;
                now.insert("state".into(), json!(if lc.closed { "closed" } else { "open" }));
            }
            // No event history for these: only the updated_at shortcut above settles them.
            _ => return Err(HistoryGap::HistoryMissing),
        }
    }
    Ok(Value::Object(now))
}

pub(crate) fn judge(changes: &[(String, Option<Value>, Value)], now: &Value) -> Result<Vec<Judged>, String> {
    let mut out = Vec::new();
    for (f, before, after) in changes {
        let Some(cur) = now.get(f) else { return Err(f.clone()) };
        let kept = if cur == after {
            Kept::Retained
        } else if before.as_ref() == Some(cur) {
            Kept::Reverted
        } else {
            Kept::Replaced
        };
        out.push(Judged { field: f.clone(), kept });
    }
    Ok(out)
}

/// The rows the shared update verdict answers with, in a rule's own row type.
pub(crate) struct UpdateRows<R> {
    pub(crate) retained: R,
    /// Rules without edit history (discussions) have none.
    pub(crate) retained_after_edit: Option<R>,
    pub(crate) reverted: R,
    pub(crate) replaced: R,
}

/// The shared verdict of the update rules; the rule may refine the result.
pub(crate) fn update_verdict<R: Rule>(rule: &R, rows: UpdateRows<R::Row>, case: &Case, obj: &Value, updated_at: Option<Instant>, activity: &Activity) -> Verdict {
    let Some(after) = case.recorded.after().as_ref() else {
        return common(Common::MissingExecutionState).resolved(true).note("no after state recorded: nothing to compare");
    };
    let changes = intended(case.recorded.before().as_ref(), after);
    if changes.is_empty() {
        return common(Common::MissingExecutionState).resolved(true).note("the after state names no field hindsight compares");
    }
    let wanted: Vec<String> = changes.iter().map(|c| c.0.clone()).collect();
    let now = match fields_as_of(case, obj, updated_at, activity.events.as_deref(), &wanted) {
        Ok(n) => n,
        Err(gap) => return gap.verdict(),
    };
    let judged = match judge(&changes, &now) {
        Ok(j) => j,
        Err(f) => return common(Common::MissingExecutionState).resolved(true).note(format!("field `{f}` is not in the captured object")),
    };
    let kept = judged.iter().filter(|j| j.kept == Kept::Retained).count();
    let score = kept as f64 / judged.len() as f64;
    let fields = |k: Kept| judged.iter().filter(|j| j.kept == k).map(|j| j.field.clone()).collect::<Vec<_>>();
    // Who touched the compared fields inside the window.
    let kinds: Vec<&str> = wanted.iter().flat_map(|f| field_events(f).iter().copied()).collect();
    let touches: Vec<&Event> = case.events_inside(activity.events.as_deref(), &kinds).collect();
    let person = touches.iter().rev().find(|e| case.actors.classify(&e.actor).is_person());
    let v = if kept == judged.len() {
        match person {
            Some(e) if rows.retained_after_edit.is_some() => {
                rule.row(rows.retained_after_edit.unwrap_or(rows.retained)).detail("edited_by", e.actor.login.clone()).event_by(case, e)
            }
            Some(_) | None => rule.row(rows.retained),
        }
    } else {
        let reverted = judged.iter().any(|j| j.kept == Kept::Reverted);
        let v = rule.row(if reverted { rows.reverted } else { rows.replaced });
        match (person, touches.last()) {
            (Some(e), _) => v.detail("changed_by", e.actor.login.clone()).event_by(case, e),
            (None, Some(e)) => {
                v.strength(crate::evaluate::EvidenceStrength::Medium).event_by(case, e).detail("changed_by", e.actor.login.clone()).note("changed back by a bot, not a person")
            }
            (None, None) => v.strength(crate::evaluate::EvidenceStrength::Medium).confidence(Confidence::Medium).note("who changed it is not captured"),
        }
    };
    v.resolved(true)
        .partial(score)
        .detail("fields_retained", fields(Kept::Retained))
        .detail("fields_reverted", fields(Kept::Reverted))
        .detail("fields_replaced", fields(Kept::Replaced))
}
