//! `update_project` (docs/SPEC.md [SPEC-METADATA]): what a person checks, why, and an example are in [`super::shared::project`],
//! which holds what it shares with the other `create_project` rule.

use crate::evaluate::rule::Decision as D;
use super::set_issue_field::advanced;
use super::shared::project::load;
use crate::evaluate::case::Case;
use crate::evaluate::outcome::{EvidenceStrength as E, Status as S};
use crate::evaluate::{common, rows, Common, RowSpec, Rule, Verdict};
use crate::json::str_at;
use crate::runs::output_type::OutputType;
use serde_json::Value;

pub(crate) struct UpdateProject;

rows! {
    pub(crate) enum UpdateProjectRow {
        Retained => RowSpec {
            id: "retained",
            when: "Every intended field value still set on the item",
            status: S::Accepted,
            strength: E::Medium,
            signal: "project_field_retained",
            seed: "Field value still equals intended value",
            policy: None,
            decision: D::State,
        },
        Advanced => RowSpec {
            id: "advanced",
            when: "A single-select field moved to a later option in the project's order",
            status: S::Accepted,
            strength: E::Strong,
            signal: "project_field_advanced",
            seed: "Field later moved forward in workflow, for example Todo to In Progress to Done",
            policy: None,
            decision: D::Act,
        },
        Changed => RowSpec {
            id: "changed",
            when: "A field holds another value (not later in the order)",
            status: S::Rejected,
            strength: E::Medium,
            signal: "project_field_changed",
            seed: "Field reverted or changed away by visible non-bot (rejected or mixed)",
            policy: Some("metadata_changed"),
            decision: D::PersonAct,
        },
        ItemRemoved => RowSpec {
            id: "item_removed",
            when: "The target is no longer an item of the project, or its item is archived",
            status: S::Rejected,
            strength: E::Strong,
            signal: "project_item_removed",
            seed: "Project item removed",
            policy: None,
            decision: D::Act,
        },
        Inaccessible => RowSpec {
            id: "inaccessible",
            when: "The project was not captured, or its capture failed",
            status: S::Unknown,
            strength: E::None,
            signal: "project_inaccessible",
            seed: "Project inaccessible",
            policy: None,
            decision: D::State,
        },
    }
}

impl Rule for UpdateProject {
    type Row = UpdateProjectRow;
    fn output_type(&self) -> OutputType {
        OutputType::UpdateProject
    }
    fn human_check(&self) -> &'static str {
        "Did the specific project field update remain?"
    }
    fn targets_number(&self) -> bool {
        false
    }
    fn evaluate(&self, case: &Case) -> Result<Verdict, Verdict> {
        let (payload, project) = load(case, || UpdateProject.row(UpdateProjectRow::Inaccessible))?;
        let Some(fields) = payload.get("fields").and_then(Value::as_object).filter(|f| !f.is_empty()) else {
            return Err(common(Common::MissingExecutionState).note("no intended field values recorded"));
        };
        if !case.window.is_snapshot() {
            return Err(common(Common::HistoryMissing).note("project fields have no captured history; only the snapshot window can be judged"));
        }
        let number = crate::json::int_at(payload, "content_number").or(case.output.target_number);
        let repo = str_at(payload, "target_repo").map(str::to_string).or(case.output.target_repo.as_deref().map(str::to_string));
        let item = project.items.iter().find(|i| i.number == number && (i.repo.is_none() || i.repo == repo));
        let Some(item) = item.filter(|i| !i.archived) else { return Ok(self.row(UpdateProjectRow::ItemRemoved).resolved(true)) };
        // Changed outranks advanced outranks retained.
        let mut worst = UpdateProjectRow::Retained;
        for (name, want) in fields {
            let want = want.as_str().map(str::to_string).unwrap_or_else(|| want.to_string());
            let now =
                item.values.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str().map(str::to_string).unwrap_or_else(|| v.to_string()));
            let verdict = match now {
                Some(n) if n.eq_ignore_ascii_case(&want) => UpdateProjectRow::Retained,
                Some(n) if project.options(name).is_some_and(|o| advanced(o, &want, &n)) => UpdateProjectRow::Advanced,
                _ => UpdateProjectRow::Changed,
            };
            worst = match (worst, verdict) {
                (UpdateProjectRow::Changed, _) | (_, UpdateProjectRow::Changed) => UpdateProjectRow::Changed,
                (UpdateProjectRow::Advanced, _) | (_, UpdateProjectRow::Advanced) => UpdateProjectRow::Advanced,
                _ => UpdateProjectRow::Retained,
            };
        }
        let v = self.row(worst).resolved(true);
        Ok(if worst == UpdateProjectRow::Changed { v.status(case.policy.metadata_changed.status()) } else { v })
    }
}
