//! `set_issue_field`: docs/SPEC.md [SPEC-METADATA], labels, metadata and planning.
//!
//! ## What a person checks
//! Did the specific field value remain?
//!
//! ## Why
//! The intended value (request `field_name` + `value`) is compared with
//! `issues/N/issue_field_values` at the window's end. A single-select value that moved to
//! a later option counts as the work advancing, when the order of options is known (the
//! record's `field_options`, written at execution time).
//!
//! ## Example
//! `Priority` set to `High`, still `High` at T+7d -> `accepted`/`medium`/
//! `issue_field_retained`.

use crate::evaluate::rule::Decision as D;
use serde_json::Value;

use super::{load_issue, missing};
use crate::evaluate::case::Case;
use crate::evaluate::outcome::{EvidenceStrength as E, Status as S};
use crate::evaluate::{common, rows, Common, RowSpec, Rule, Verdict};
use crate::json::{names, str_at, str_path};
use crate::runs::output_type::OutputType;

pub(crate) struct SetIssueField;

rows! {
    pub(crate) enum SetIssueFieldRow {
        Retained => RowSpec {
            id: "retained",
            when: "The field still equals the intended value",
            status: S::Accepted,
            strength: E::Medium,
            signal: "issue_field_retained",
            seed: "Field still equals intended value",
            policy: None,
            decision: D::State,
        },
        Advanced => RowSpec {
            id: "advanced",
            when: "The field moved to a later option of its workflow",
            status: S::Accepted,
            strength: E::Strong,
            signal: "issue_field_advanced",
            seed: "Field advanced to later valid workflow state",
            policy: None,
            decision: D::Act,
        },
        Changed => RowSpec {
            id: "changed",
            when: "The field holds another value",
            status: S::Rejected,
            strength: E::Medium,
            signal: "issue_field_changed",
            seed: "Field changed away by visible non-bot (rejected or mixed)",
            policy: Some("metadata_changed"),
            decision: D::PersonAct,
        },
        Removed => RowSpec {
            id: "removed",
            when: "The field has no value",
            status: S::Rejected,
            strength: E::Strong,
            signal: "issue_field_removed",
            seed: "Field removed or item removed",
            policy: None,
            decision: D::PersonAct,
        },
    }
}

/// A field value as text: a single-select option's name, else the value itself.
pub(crate) fn value_text(v: &Value) -> Option<String> {
    str_path(v, &["single_select_option", "name"]).map(str::to_string).or_else(|| match v.get("value") {
        Some(Value::String(s)) => Some(s.clone()),
        Some(Value::Null) | None => None,
        Some(other) => Some(other.to_string()),
    })
}

/// Whether `now` comes after `want` in an ordered list of options.
pub(crate) fn advanced(options: &[String], want: &str, now: &str) -> bool {
    let pos = |x: &str| options.iter().position(|o| o.eq_ignore_ascii_case(x));
    matches!((pos(want), pos(now)), (Some(a), Some(b)) if b > a)
}

impl Rule for SetIssueField {
    type Row = SetIssueFieldRow;
    fn output_type(&self) -> OutputType {
        OutputType::SetIssueField
    }
    fn human_check(&self) -> &'static str {
        "Did the specific field value remain?"
    }
    fn evaluate(&self, case: &Case) -> Result<Verdict, Verdict> {
        let o = case.output;
        let p = case.recorded.payload();
        let (Some(field), Some(want)) = (str_at(p, "field_name"), p.get("value").map(|v| v.as_str().map(str::to_string).unwrap_or_else(|| v.to_string())))
        else {
            return Err(common(Common::MissingExecutionState).note("no record of the field and value set"));
        };
        let Some(n) = o.target_number else { return Err(common(Common::MissingReference)) };
        let (_, issue) = load_issue(case, n)?;
        let look = case.lookup(&crate::snapshot::paths::numbered("issues/", n, "/issue_field_values"));
        let values = look.map_err(|m| missing(case, m).resolved(true).note("issue field values not captured"))?;
        if !case.current_holds(issue.updated_at, None, &[]) {
            return Err(common(Common::HistoryMissing).resolved(true).note("field values have no event history"));
        }
        let entry = values.as_array().and_then(|a| a.iter().find(|e| str_at(*e, "issue_field_name").is_some_and(|f| f.eq_ignore_ascii_case(field))));
        let done = |v: Verdict| v.resolved(true).detail("field", field).detail("intended", want.clone());
        let Some(now) = entry.and_then(value_text) else { return Ok(done(self.row(SetIssueFieldRow::Removed))) };
        if now.eq_ignore_ascii_case(&want) {
            return Ok(done(self.row(SetIssueFieldRow::Retained)));
        }
        let options =
            case.recorded.expected().get("metadata.field_options").and_then(names).or_else(|| p.get("field_options").and_then(names)).unwrap_or_default();
        if advanced(&options, &want, &now) {
            return Ok(done(self.row(SetIssueFieldRow::Advanced).detail("now", now)));
        }
        Ok(done(self.row(SetIssueFieldRow::Changed).status(case.policy.metadata_changed.status()).detail("now", now)))
    }
}

/// The issue's field values.
pub(crate) const READS: &[super::reads::Fixed] = &[super::reads::Fixed::Target("issues/", "/issue_field_values")];
