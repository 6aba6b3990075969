//! `safe_outputs`, `runs` and `requests` tables.

use super::{Request, Run, SafeOutput};
use crate::table::{b, i, os, s, t, Kind, Table};

pub fn safe_outputs(outputs: &[SafeOutput]) -> Table {
    let mut tb = Table::new(
        "safe_outputs",
        &[
            ("safe_output_id", Kind::Str),
            ("run_id", Kind::Str),
            ("item_index", Kind::Int),
            ("workflow_name", Kind::Str),
            ("safe_output_type", Kind::Str),
            ("execution", Kind::Str),
            ("target_repo", Kind::Str),
            ("target_kind", Kind::Str),
            ("target_number", Kind::Int),
            ("target_comment_id", Kind::Int),
            ("target_url", Kind::Str),
            ("target_node_id", Kind::Str),
            ("target_source", Kind::Str),
            ("temporary_id", Kind::Str),
            ("actor", Kind::Str),
            ("run_actor", Kind::Str),
            ("created_at", Kind::Time),
            ("payload_hash", Kind::Str),
            ("patch_hash", Kind::Str),
            ("base_ref", Kind::Str),
            ("head_ref", Kind::Str),
            ("payload", Kind::Str),
            ("expected_state", Kind::Str),
            ("before_state", Kind::Str),
            ("after_state", Kind::Str),
            ("staged", Kind::Bool),
            ("source_format", Kind::Str),
            ("source_file", Kind::Str),
            ("source_line", Kind::Int),
        ],
    );
    for o in outputs {
        tb.push(vec![
            s(o.safe_output_id.as_ref()),
            s(o.run_id.as_ref()),
            i(o.item_index),
            os(o.workflow_name.as_ref()),
            s(o.output_type.as_ref()),
            s(o.execution.as_str()),
            os(o.target_repo.as_ref()),
            os(o.target_kind.as_ref()),
            crate::table::oi(o.target_number),
            crate::table::oi(o.target_comment_id),
            os(o.target_url.as_ref()),
            os(o.target_node_id.as_ref()),
            os(o.target_source.as_ref()),
            os(o.temporary_id.as_ref()),
            os(o.actor.as_ref()),
            os(o.run_actor.as_ref()),
            t(o.created_at),
            s(o.payload_hash.as_ref()),
            os(o.patch_hash.as_ref()),
            os(o.base_ref.as_ref()),
            os(o.head_ref.as_ref()),
            s(o.payload.as_ref()),
            s(o.expected_state.as_ref()),
            os(o.before_state.as_ref()),
            os(o.after_state.as_ref()),
            b(o.staged),
            s(o.source_format.as_ref()),
            s(o.source_file.as_ref()),
            i(o.source_line),
        ]);
    }
    tb.sort_by_columns(&["run_id", "item_index"]);
    tb
}

pub fn runs(runs: &[Run]) -> Table {
    let mut tb = Table::new(
        "runs",
        &[
            ("run_id", Kind::Str),
            ("run_id_source", Kind::Str),
            ("workflow_name", Kind::Str),
            ("repository", Kind::Str),
            ("actor", Kind::Str),
            ("staged", Kind::Bool),
            ("run_dir", Kind::Str),
            ("executed_items", Kind::Int),
            ("requested_items", Kind::Int),
            ("error_count", Kind::Int),
            ("errors", Kind::Str),
            ("aw_info", Kind::Str),
        ],
    );
    for r in runs {
        tb.push(vec![
            s(&r.run_id),
            s(r.run_id_source),
            os(r.workflow_name.as_ref()),
            os(r.repository.as_ref()),
            os(r.actor.as_ref()),
            b(r.staged),
            s(&r.dir),
            i(r.executed_items as i64),
            i(r.requested_items as i64),
            i(r.errors.len() as i64),
            s(serde_json::to_string(&r.errors).unwrap_or_default()),
            os(r.aw_info.as_ref()),
        ]);
    }
    tb.sort_by_columns(&["run_id"]);
    tb
}

pub fn requests(requests: &[Request]) -> Table {
    let mut tb = Table::new(
        "requests",
        &[
            ("run_id", Kind::Str),
            ("source_file", Kind::Str),
            ("position", Kind::Int),
            ("request_type", Kind::Str),
            ("payload", Kind::Str),
            ("same_as", Kind::Str),
        ],
    );
    for r in requests {
        tb.push(vec![s(&r.run_id), s(&r.file), i(r.position as i64), os(r.request_type.as_ref()), s(&r.payload), os(r.same_as.as_ref())]);
    }
    tb.sort_by_columns(&["run_id", "source_file", "position"]);
    tb
}

/// One row per source file of each run's coverage report: the lines it ran and those it
/// did not, as ranges (`1-4,9`); lines a report does not list are not instrumented.
pub fn coverage(reports: &[super::RunCoverage]) -> Table {
    let mut tb = Table::new(
        "coverage",
        &[
            ("run_id", Kind::Str),
            ("report", Kind::Str),
            ("format", Kind::Str),
            ("source_file", Kind::Str),
            ("lines_found", Kind::Int),
            ("lines_hit", Kind::Int),
            ("covered_lines", Kind::Str),
            ("uncovered_lines", Kind::Str),
        ],
    );
    let mut rows: Vec<(&super::RunCoverage, &crate::coverage::FileLines)> = reports.iter().flat_map(|r| r.files.iter().map(move |f| (r, f))).collect();
    rows.sort_by(|a, b| (&a.0.run_id, &a.1.path).cmp(&(&b.0.run_id, &b.1.path)));
    for (r, f) in rows {
        tb.push(vec![
            s(&r.run_id),
            s(&r.file),
            s(r.format.as_str()),
            s(&f.path),
            i((f.covered.len() + f.uncovered.len()) as i64),
            i(f.covered.len() as i64),
            s(crate::coverage::ranges(&f.covered)),
            s(crate::coverage::ranges(&f.uncovered)),
        ]);
    }
    tb
}
