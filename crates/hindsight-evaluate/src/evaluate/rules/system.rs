//! System outputs: `noop`, `missing_tool`, `missing_data`, `report_incomplete`
//! (docs/SPEC.md [SPEC-SYSTEM]).
//!
//! ## What a person checks
//! Nothing: these record that the agent did not act, or could not. The specification marks
//! them `skipped` with no evidence, so they never enter an acceptance rate.
//!
//! ## Example
//! `{"type": "noop", "message": "nothing to do"}` -> skipped / none / `no_action_requested`.

use crate::evaluate::rule::Decision as D;
use crate::evaluate::outcome::{EvidenceStrength as E, Status as S};
use crate::evaluate::{rows, verdict, RowSpec, Verdict};
use crate::runs::SafeOutput;

rows! {
    pub enum SystemRow {
        Noop => RowSpec {
            id: "noop",
            when: "noop: the agent decided no action was needed",
            status: S::Skipped,
            strength: E::None,
            signal: "no_action_requested",
            seed: "noop",
            policy: None,
            decision: D::State,
        },
        MissingTool => RowSpec {
            id: "missing_tool",
            when: "missing_tool: the agent lacked a tool",
            status: S::Skipped,
            strength: E::None,
            signal: "tool_unavailable",
            seed: "missing_tool",
            policy: None,
            decision: D::State,
        },
        MissingData => RowSpec {
            id: "missing_data",
            when: "missing_data: the agent lacked data it needed",
            status: S::Skipped,
            strength: E::None,
            signal: "data_unavailable",
            seed: "",
            policy: None,
            decision: D::State,
        },
        ReportIncomplete => RowSpec {
            id: "report_incomplete",
            when: "report_incomplete: the agent reported its work as incomplete",
            status: S::Skipped,
            strength: E::None,
            signal: "report_incomplete",
            seed: "",
            policy: None,
            decision: D::State,
        },
    }
}

pub(crate) fn evaluate(o: &SafeOutput) -> Option<Verdict> {
    // The row ids are the system types' own names.
    SystemRow::ROWS.iter().find(|r| r.id == o.output_type).map(|r| verdict("system", r))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The readers decide which types are system outputs from the registry (`runs::output_type`); the rows here
    /// must name the same types, or one would be read as a system output and judged as none.
    #[test]
    fn rows_are_the_system_types() {
        let ids: Vec<&str> = SystemRow::ROWS.iter().map(|r| r.id).collect();
        assert_eq!(ids, crate::runs::output_type::system_types().collect::<Vec<_>>());
    }
}
