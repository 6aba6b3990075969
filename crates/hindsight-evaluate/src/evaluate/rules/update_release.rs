//! `update_release`: docs/SPEC.md [SPEC-WORKFLOWS], releases. The release is `releases/ID`
//! (REST).
//!
//! ## What a person checks
//! Did the release edit remain?
//!
//! ## Why
//! The edit is compared field by field (name, body by normalized hash, tag, draft,
//! prerelease) with the recorded before and after state, as the update rules do. A draft
//! published after the edit is the strongest sign; a deleted release, or an edit reverted
//! by a later edit, undoes it.
//!
//! ## Example
//! Body edited on a draft at T; the release is published at T+1d with that body ->
//! `accepted`/`strong`/`release_published_after_update`.

use crate::evaluate::rule::Decision as D;
use serde_json::Value;

use super::shared::fields::{current, intended, judge, Kept};
use crate::evaluate::case::HistoryGap;
use crate::evaluate::case::{Case, Missing};
use crate::evaluate::outcome::{EvidenceStrength as E, Status as S};
use crate::evaluate::{common, rows, Common, RowSpec, Rule, Verdict};
use crate::json::{as_int, bool_at};
use crate::runs::output_type::OutputType;
use crate::time;

pub(crate) struct UpdateRelease;

rows! {
    pub(crate) enum UpdateReleaseRow {
        Retained => RowSpec {
            id: "retained",
            when: "Every edited field still matches the intended update",
            status: S::Accepted,
            strength: E::Medium,
            signal: "release_edit_retained",
            seed: "Release fields still match intended update",
            policy: None,
            decision: D::State,
        },
        Published => RowSpec {
            id: "published",
            when: "Edit retained, and the draft was published after it",
            status: S::Accepted,
            strength: E::Strong,
            signal: "release_published_after_update",
            seed: "Release published after draft update",
            policy: None,
            decision: D::Act,
        },
        Reverted => RowSpec {
            id: "reverted",
            when: "An edited field is back to its before value, or replaced",
            status: S::Rejected,
            strength: E::Strong,
            signal: "release_edit_reverted",
            seed: "Release edited again to revert agent change",
            policy: None,
            decision: D::Act,
        },
        Deleted => RowSpec {
            id: "deleted",
            when: "The release answered 404/410",
            status: S::Rejected,
            strength: E::Strong,
            signal: "release_deleted",
            seed: "Release deleted",
            policy: None,
            decision: D::Gone,
        },
    }
}

impl Rule for UpdateRelease {
    type Row = UpdateReleaseRow;
    fn output_type(&self) -> OutputType {
        OutputType::UpdateRelease
    }
    fn human_check(&self) -> &'static str {
        "Did the release edit remain?"
    }
    fn targets_number(&self) -> bool {
        false
    }
    fn evaluate(&self, case: &Case) -> Result<Verdict, Verdict> {
        let p = case.recorded.payload();
        let e = case.recorded.expected();
        let Some(id) = e.get("metadata.release_id").and_then(as_int).or(p.get("release_id").and_then(as_int)) else {
            return Err(common(Common::MissingReference).note("no release id recorded"));
        };
        let look = case.lookup(&format!("releases/{id}"));
        let rel = match &look {
            Ok(v) => *v,
            Err(Missing::Gone(s)) => {
                return Ok(crate::evaluate::undated(case, self.row(UpdateReleaseRow::Deleted), &format!("the release answered {s}")).detail("release_id", id))
            }
            Err(m) => return Err(super::missing(case, *m)),
        };
        let Some(after) = case.recorded.after().as_ref() else {
            return Err(common(Common::MissingExecutionState).resolved(true).note("no after state recorded"));
        };
        let changes = intended(case.recorded.before().as_ref(), after);
        if changes.is_empty() {
            return Err(common(Common::MissingExecutionState).resolved(true).note("the after state names no release field"));
        }
        if !case.window.is_snapshot() {
            // Releases carry no edit history; only an edit-free time after the window helps.
            let last = time::at(rel, "updated_at").or(time::at(rel, "published_at")).or(time::at(rel, "created_at"));
            if last.is_none_or(|t| t > case.as_of) {
                return Ok(HistoryGap::HistoryMissing.verdict());
            }
        }
        let mut now = serde_json::Map::new();
        for (f, _, _) in &changes {
            if let Some(v) = current(rel, f) {
                now.insert(f.clone(), v);
            }
        }
        let judged = match judge(&changes, &Value::Object(now)) {
            Ok(j) => j,
            Err(f) => return Err(common(Common::MissingExecutionState).resolved(true).note(format!("field `{f}` is not in the release"))),
        };
        let done = |v: Verdict| v.resolved(true).detail("release_id", id);
        if judged.iter().any(|j| j.kept != Kept::Retained) {
            return Ok(done(self.row(UpdateReleaseRow::Reverted)));
        }
        let published_at = time::at(rel, "published_at");
        let was_draft = case.recorded.before().as_ref().and_then(|b| bool_at(b, "draft")) == Some(true) || bool_at(after, "draft") == Some(true);
        if was_draft && bool_at(rel, "draft") == Some(false) && case.is_inside(published_at) {
            return Ok(done(self.row(UpdateReleaseRow::Published).at(published_at)));
        }
        Ok(done(self.row(UpdateReleaseRow::Retained)))
    }
}

/// The release, by the id the output recorded.
pub(crate) fn reads_after(_: &crate::runs::SafeOutput, rec: &crate::evaluate::case::Recorded, _: &crate::snapshot::SnapshotIndex) -> Vec<super::Read> {
    super::reads::recorded_int(rec, "release_id").map(|id| vec![super::Read::Target(format!("releases/{id}"))]).unwrap_or_default()
}
