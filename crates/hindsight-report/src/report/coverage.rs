//! What the dashboard says before its figures: whether the snapshot holds every capture the
//! rules asked for. A snapshot that lacks some leaves the verdicts that needed them unknown,
//! which the rates do not show; the reader is told first, with what is missing and the
//! command that lists it. Whoever builds the dashboard works out the plan ([`Coverage`] is
//! given in [`super::View`]); this module only says it, in every format.

use std::sync::Arc;

use arrow::array::{ArrayRef, Int64Array, StringArray};
use arrow::record_batch::RecordBatch;

use crate::error::Result;

/// The key of the warnings in the JSON, NDJSON and CSV dashboards (first, when there is one).
pub(crate) const WARNINGS: &str = "warnings";

/// How many kinds of missing capture the warning names before it says how many more.
const KINDS_NAMED: usize = 4;

/// The snapshot's captures against the capture plan the rules make for the dataset's outputs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Coverage {
    /// Every planned capture is present, or the plan was not worked out: nothing to say.
    #[default]
    Whole,
    /// Fewer captures than the plan asks for: how many it asks for, how many are present,
    /// and the missing ones by kind (`issues/N/timeline`), most first.
    Missing { planned: usize, present: usize, kinds: Vec<(String, usize)> },
    /// No capture plan applies to this dataset, and why (said in one line, not as a warning).
    NotPlanned(String),
}

impl Coverage {
    /// The missing captures by kind, as the warning names them: `41 issues/N/reactions, ...`.
    fn kinds_text(kinds: &[(String, usize)]) -> String {
        let mut named: Vec<String> = kinds.iter().take(KINDS_NAMED).map(|(k, n)| format!("{n} {k}")).collect();
        let rest: usize = kinds.iter().skip(KINDS_NAMED).map(|(_, n)| n).sum();
        if rest > 0 {
            named.push(format!("and {rest} more of {} other kinds", kinds.len() - KINDS_NAMED));
        }
        named.join(", ")
    }

    /// The line the dashboard leads with, in words; none when there is nothing to say.
    pub(crate) fn line(&self) -> Option<String> {
        match self {
            Coverage::Whole => None,
            Coverage::Missing { planned, present, kinds } => Some(format!(
                "Warning: the snapshot holds {present} of the {planned} captures the rules ask for ({} missing: {}). A verdict that needed a missing capture is unknown, not rejected (caveats: captures_missing). `hindsight capture --plan --runs RUNS/ --snapshot SNAP/` lists them; `hindsight capture --runs RUNS/ --out SNAP/` takes them.",
                planned.saturating_sub(*present),
                Self::kinds_text(kinds)
            )),
            Coverage::NotPlanned(why) => Some(format!("Note: {why}")),
        }
    }

    /// Whether the line is a warning (rather than a note).
    pub(crate) fn warns(&self) -> bool {
        matches!(self, Coverage::Missing { .. })
    }

    /// The warning as one row (`warning`, the counts, the kinds, the message), for the JSON,
    /// NDJSON and CSV dashboards; none without a warning.
    pub(crate) fn batch(&self) -> Result<Option<RecordBatch>> {
        let Coverage::Missing { planned, present, kinds } = self else { return Ok(None) };
        let int = |n: usize| Arc::new(Int64Array::from(vec![i64::try_from(n).unwrap_or(i64::MAX)])) as ArrayRef;
        let text = |s: String| Arc::new(StringArray::from(vec![s])) as ArrayRef;
        Ok(Some(RecordBatch::try_from_iter(vec![
            ("warning", text("captures_missing".into())),
            ("captures_planned", int(*planned)),
            ("captures_present", int(*present)),
            ("captures_missing", int(planned.saturating_sub(*present))),
            ("missing_by_kind", text(kinds.iter().map(|(k, n)| format!("{n} {k}")).collect::<Vec<_>>().join(", "))),
            ("message", text(self.line().unwrap_or_default())),
        ])?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_warning_counts_and_names_what_is_missing() {
        let kinds: Vec<(String, usize)> = [("issues/N/reactions", 5), ("pulls/N", 3), ("issues/N", 2), ("commits", 1), ("pulls", 1), ("repository", 1)]
            .iter()
            .map(|(k, n)| (k.to_string(), *n))
            .collect();
        let c = Coverage::Missing { planned: 20, present: 7, kinds };
        let line = c.line().unwrap();
        assert!(line.starts_with("Warning: the snapshot holds 7 of the 20 captures the rules ask for (13 missing: 5 issues/N/reactions, 3 pulls/N, 2 issues/N, 1 commits, and 2 more of 2 other kinds)"), "{line}");
        let b = c.batch().unwrap().unwrap();
        assert_eq!(b.num_rows(), 1);
        assert_eq!(b.column_by_name("captures_missing").unwrap().as_any().downcast_ref::<Int64Array>().unwrap().value(0), 13);
        assert!(Coverage::Whole.line().is_none() && Coverage::Whole.batch().unwrap().is_none());
        let note = Coverage::NotPlanned("no plan here".into());
        assert_eq!((note.line().as_deref(), note.warns()), (Some("Note: no plan here"), false));
        assert!(note.batch().unwrap().is_none());
    }
}
