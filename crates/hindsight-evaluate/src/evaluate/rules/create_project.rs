//! `create_project`: what a person checks, why, and an example are in [`super::shared::project`],
//! which holds what it shares with the other `update_project` rule.

use crate::evaluate::rule::Decision as D;
use super::shared::project::load;
use crate::evaluate::case::Case;
use crate::evaluate::outcome::{EvidenceStrength as E, Status as S};
use crate::evaluate::{rows, RowSpec, Rule, Verdict};
use crate::runs::output_type::OutputType;

pub(crate) struct CreateProject;

rows! {
    pub(crate) enum CreateProjectRow {
        Exists => RowSpec {
            id: "exists",
            when: "The project exists (existence alone, never acceptance)",
            status: S::Pending,
            strength: E::Weak,
            signal: "target_exists_only",
            seed: "SPEC-EXISTS: target exists only",
            policy: None,
            decision: D::State,
        },
        Inaccessible => RowSpec {
            id: "inaccessible",
            when: "The project was not captured, or its capture failed",
            status: S::Unknown,
            strength: E::None,
            signal: "project_inaccessible",
            seed: "",
            policy: None,
            decision: D::State,
        },
    }
}

impl Rule for CreateProject {
    type Row = CreateProjectRow;
    fn output_type(&self) -> OutputType {
        OutputType::CreateProject
    }
    fn human_check(&self) -> &'static str {
        "Is the project there? Repository state shows no more than existence for a new project."
    }
    fn targets_number(&self) -> bool {
        false
    }
    fn evaluate(&self, case: &Case) -> Result<Verdict, Verdict> {
        Ok(match load(case, || CreateProject.row(CreateProjectRow::Inaccessible)) {
            Ok((_, p)) => self.row(CreateProjectRow::Exists).resolved(true).detail("items", p.items.len()),
            Err(v) => v,
        })
    }
}
