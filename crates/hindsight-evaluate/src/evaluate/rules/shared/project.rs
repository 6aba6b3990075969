//! `update_project` and `create_project`: docs/SPEC.md [SPEC-METADATA] (update_project) and
//! a gh-aw type the specification's tables do not list ([SPEC-EXTRA-TYPES],
//! create_project). Projects exist only in GraphQL; the capture is
//! `graphql/projects/OWNER/NUMBER` (shape in `schemas/graphql.md`).
//!
//! ## What a person checks
//! update: did the specific project field update remain? create: is the project there
//! (existence only: never acceptance)?
//!
//! ## Why
//! Each intended field value (request `fields`) is compared with the project item of the
//! target issue or PR. A single-select field moved to a later option (Todo -> In Progress
//! -> Done, in the project's own option order) is the work advancing, the strongest sign;
//! another value is a change of plan (policy `metadata_changed`); an item gone from the
//! project (or archived) is a removal.
//!
//! ## Example
//! `Status` set to `Todo`; at T+7d the item's Status is `Done` -> `accepted`/`strong`/
//! `project_field_advanced`.
//!
//! What `update_project` and `create_project` share; each type's rule is in its own file.

use crate::evaluate::case::{Case, Missing};
use crate::evaluate::rules::missing;
use crate::evaluate::{common, Common, Verdict};
use crate::json::str_at;
use crate::snapshot::graphql::Project;
use serde_json::Value;

/// `https://github.com/orgs/O/projects/N` (or `users/`) -> `graphql/projects/O/N`.
pub(crate) fn project_path(url: &str) -> Option<String> {
    let tail = url.trim().trim_end_matches('/').split("github.com/").nth(1)?;
    let seg: Vec<&str> = tail.split('/').collect();
    match seg.as_slice() {
        [_, owner, "projects", n, ..] => n.parse::<i64>().ok().map(|n| format!("graphql/projects/{owner}/{n}")),
        _ => None,
    }
}

pub(crate) fn load<'a>(case: &Case<'a>, inaccessible: fn() -> Verdict) -> Result<(&'a Value, Project), Verdict> {
    let p = case.recorded.payload();
    let url = str_at(p, "project").map(str::to_string).or_else(|| case.recorded.expected().get("metadata.project").and_then(Value::as_str).map(str::to_string));
    let Some(path) = url.as_deref().and_then(project_path) else {
        return Err(common(Common::MissingExecutionState).note("no project URL recorded"));
    };
    let look = case.lookup_path(&path);
    match look {
        Ok(v) => Ok((p, Project::from(v))),
        Err(Missing::NotCaptured) | Err(Missing::Failed(_)) => Err(inaccessible().detail("project", path)),
        Err(m) => Err(missing(case, m)),
    }
}

/// The project, by the URL the output recorded.
pub(crate) fn reads_after(_: &crate::runs::SafeOutput, rec: &crate::evaluate::case::Recorded, _: &crate::snapshot::SnapshotIndex) -> Vec<crate::evaluate::rules::Read> {
    let url = str_at(rec.payload(), "project").map(str::to_string).or_else(|| rec.expected().get("metadata.project").and_then(Value::as_str).map(str::to_string));
    url.as_deref().and_then(project_path).map(|p| vec![crate::evaluate::rules::Read::Global(p)]).unwrap_or_default()
}
