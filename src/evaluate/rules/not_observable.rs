//! gh-aw types whose outcome repository state does not show: `create_agent_session`,
//! `create_check_run`, `create_project_status_update`, `upload_asset`, `upload_artifact`,
//! `comment_memory`, `push_repo_memory`.
//!
//! ## What a person checks
//! Nothing in the repository: these write to places no capture reads (agent sessions,
//! check runs the workflow itself reports, project status notes, workflow artifacts and
//! assets, the agent's own memory).
//!
//! ## Why
//! Rather than guess from existence, each is `skipped` with a signal that says why, so it
//! never enters a rate and never counts as a missing rule.
//!
//! ## Example
//! `{"type": "upload_asset", "path": "chart.png"}` -> `skipped`/`none`/
//! `no_repository_outcome`.

use crate::evaluate::case::Case;
use crate::evaluate::outcome::{EvidenceStrength as E, Status as S};
use crate::evaluate::{rows, RowSpec, Rule, Verdict};

rows! {
    pub enum NotObservableRow {
        NoRepositoryOutcome => RowSpec {
        id: "no_repository_outcome",
        when: "The output writes nothing a repository capture shows; there is no human check to make",
        status: S::Skipped,
        strength: E::None,
        signal: "no_repository_outcome",
        seed: "",
        policy: None,
    },
    }
}

pub struct NotObservable(pub &'static str, pub &'static str);

impl Rule for NotObservable {
    type Row = NotObservableRow;
    fn output_type(&self) -> &'static str {
        self.0
    }
    fn human_check(&self) -> &'static str {
        self.1
    }
    fn targets_number(&self) -> bool {
        false
    }
    fn skips(&self) -> bool {
        true
    }
    fn evaluate(&self, _case: &Case) -> Result<Verdict, Verdict> {
        Ok(self.row(NotObservableRow::NoRepositoryOutcome))
    }
}

pub const CREATE_AGENT_SESSION: NotObservable = NotObservable(
    "create_agent_session",
    "None in the repository: an agent session's result shows only through the PRs it opens, which their own outputs cover.",
);
pub const CREATE_CHECK_RUN: NotObservable = NotObservable("create_check_run", "None: the check run is the workflow's own report, not a response to it.");
pub const CREATE_PROJECT_STATUS_UPDATE: NotObservable =
    NotObservable("create_project_status_update", "None: a status note on a project has no later state to compare.");
pub const UPLOAD_ASSET: NotObservable = NotObservable("upload_asset", "None: assets live outside the repository's reviewable state.");
pub const UPLOAD_ARTIFACT: NotObservable = NotObservable("upload_artifact", "None: workflow artifacts are not repository state.");
pub const COMMENT_MEMORY: NotObservable = NotObservable("comment_memory", "None: the agent's memory is its own.");
pub const PUSH_REPO_MEMORY: NotObservable = NotObservable("push_repo_memory", "None: the agent's memory branch is its own.");
