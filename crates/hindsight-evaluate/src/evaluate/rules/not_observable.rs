//! gh-aw types whose outcome the repository's state does not show (docs/SPEC.md
//! [SPEC-EXTRA-TYPES]).
//!
//! Skipped: `create_agent_session`, `create_check_run`, `create_project_status_update`,
//! `upload_asset`, `upload_artifact`, `comment_memory`, `push_repo_memory`. Not observable
//! on GitHub: `linear_*`, `jira_*` and `ado_*` (they write to Linear, Jira and Azure
//! DevOps), `upload_code_coverage` (GitHub's code-coverage service) and
//! `approve_workflow_run` (an approval on a workflow run).
//!
//! ## What a person checks
//! Nothing in the repository. The skipped types write to places no capture reads (agent
//! sessions, check runs the workflow itself reports, project status notes, workflow
//! artifacts and assets, the agent's own memory) and ask no one anything. The others do
//! act for someone, but where a GitHub capture cannot follow: a Linear or Jira issue, an
//! Azure DevOps work item, a coverage report, or the approval of a run whose own result is
//! the approved workflow's, not a response to the agent.
//!
//! ## Why
//! Rather than guess from existence, each answers with a signal that says why, so it never
//! counts as a missing rule: `skipped` when there is no outcome to judge, `unknown` (with
//! the place it wrote to, `written_to`) when there is one that cannot be seen from GitHub.
//!
//! ## Example
//! `{"type": "upload_asset", "path": "chart.png"}` -> `skipped`/`none`/
//! `no_repository_outcome`. `{"type": "jira_create_issue", "project_key": "ENG"}` ->
//! `unknown`/`none`/`not_observable_on_github`, `written_to: "Jira"`.

use crate::evaluate::rule::Decision as D;
use crate::evaluate::case::Case;
use crate::evaluate::outcome::{EvidenceStrength as E, Status as S};
use crate::evaluate::{rows, RowSpec, Rule, Verdict};
use crate::runs::output_type::{Observed, OutputType};

rows! {
    pub(crate) enum NotObservableRow {
        NoRepositoryOutcome => RowSpec {
        id: "no_repository_outcome",
        when: "The output writes nothing a repository capture shows; there is no human check to make",
        status: S::Skipped,
        strength: E::None,
        signal: "no_repository_outcome",
        seed: "",
        policy: None,
        decision: D::State,
    },
    }
}

/// A type whose outcome is observed nowhere ([`Observed::Nowhere`]), and what a person
/// would check.
pub(crate) struct NotObservable(OutputType, &'static str);

impl NotObservable {
    /// The rule of `ty`; a type the registry does not mark [`Observed::Nowhere`] does not
    /// compile.
    const fn of(ty: OutputType, human_check: &'static str) -> NotObservable {
        assert!(matches!(ty.observed(), Observed::Nowhere), "a type observed somewhere has its own rule");
        NotObservable(ty, human_check)
    }
}

rows! {
    pub(crate) enum OffGithubRow {
        NotObservableOnGithub => RowSpec {
        id: "not_observable_on_github",
        when: "The output wrote outside the repository state a GitHub capture reads (Linear, Jira, Azure DevOps, GitHub's code-coverage service, a workflow run's approval): whether anyone kept it cannot be seen",
        status: S::Unknown,
        strength: E::None,
        signal: "not_observable_on_github",
        seed: "",
        policy: None,
        decision: D::State,
    },
    }
}

/// A type that writes where no GitHub capture can follow ([`Observed::OffGithub`]): its
/// type, where it wrote (`written_to`), and what a person would check there.
pub(crate) struct OffGithub {
    ty: OutputType,
    written_to: &'static str,
    human_check: &'static str,
}

impl Rule for OffGithub {
    type Row = OffGithubRow;
    fn output_type(&self) -> OutputType {
        self.ty
    }
    fn human_check(&self) -> &'static str {
        self.human_check
    }
    fn targets_number(&self) -> bool {
        false
    }
    fn evaluate(&self, _case: &Case) -> Result<Verdict, Verdict> {
        Ok(self
            .row(OffGithubRow::NotObservableOnGithub)
            .detail("written_to", self.written_to)
            .note(format!("written to {}, outside what a GitHub capture shows: its outcome is not observed, never assumed", self.written_to)))
    }
}

/// The rule of `ty`; a type the registry does not mark [`Observed::OffGithub`] does not
/// compile.
const fn off(ty: OutputType, written_to: &'static str, human_check: &'static str) -> OffGithub {
    assert!(matches!(ty.observed(), Observed::OffGithub), "a type observed elsewhere has another rule");
    OffGithub { ty, written_to, human_check }
}

const LINEAR: &str = "Linear";
const JIRA: &str = "Jira";
const ADO: &str = "Azure DevOps";
const LINEAR_CHECK: &str = "In Linear, not on GitHub: did the team keep and act on the Linear issue?";
const JIRA_CHECK: &str = "In Jira, not on GitHub: did the team keep and act on the Jira issue?";
const ADO_CHECK: &str = "In Azure DevOps, not on GitHub: did the team keep and act on the work item?";

pub(crate) const LINEAR_CREATE_ISSUE: OffGithub = off(OutputType::LinearCreateIssue, LINEAR, LINEAR_CHECK);
pub(crate) const LINEAR_ADD_COMMENT: OffGithub = off(OutputType::LinearAddComment, LINEAR, LINEAR_CHECK);
pub(crate) const LINEAR_UPDATE_ISSUE: OffGithub = off(OutputType::LinearUpdateIssue, LINEAR, LINEAR_CHECK);
pub(crate) const JIRA_CREATE_ISSUE: OffGithub = off(OutputType::JiraCreateIssue, JIRA, JIRA_CHECK);
pub(crate) const JIRA_UPDATE_ISSUE: OffGithub = off(OutputType::JiraUpdateIssue, JIRA, JIRA_CHECK);
pub(crate) const JIRA_ADD_COMMENT: OffGithub = off(OutputType::JiraAddComment, JIRA, JIRA_CHECK);
pub(crate) const JIRA_ADD_LABEL: OffGithub = off(OutputType::JiraAddLabel, JIRA, JIRA_CHECK);
pub(crate) const ADO_CREATE_WORK_ITEM: OffGithub = off(OutputType::AdoCreateWorkItem, ADO, ADO_CHECK);
pub(crate) const ADO_UPDATE_WORK_ITEM: OffGithub = off(OutputType::AdoUpdateWorkItem, ADO, ADO_CHECK);
pub(crate) const ADO_COMMENT_ON_WORK_ITEM: OffGithub = off(OutputType::AdoCommentOnWorkItem, ADO, ADO_CHECK);
pub(crate) const ADO_ASSIGN_WORK_ITEM: OffGithub = off(OutputType::AdoAssignWorkItem, ADO, ADO_CHECK);
pub(crate) const ADO_LINK_WORK_ITEMS: OffGithub = off(OutputType::AdoLinkWorkItems, ADO, ADO_CHECK);
pub(crate) const ADO_UPLOAD_WORKITEM_ATTACHMENT: OffGithub = off(OutputType::AdoUploadWorkitemAttachment, ADO, ADO_CHECK);
pub(crate) const UPLOAD_CODE_COVERAGE: OffGithub = off(
    OutputType::UploadCodeCoverage,
    "GitHub's code-coverage service",
    "Not in the repository: the coverage report goes to GitHub's code-coverage service (actions/upload-code-coverage), which no capture reads.",
);
pub(crate) const APPROVE_WORKFLOW_RUN: OffGithub = off(
    OutputType::ApproveWorkflowRun,
    "a workflow run's approval",
    "Not in the repository: the approval lets a waiting run go on; what the run does is the approved workflow's result, not a response to the agent.",
);

impl Rule for NotObservable {
    type Row = NotObservableRow;
    fn output_type(&self) -> OutputType {
        self.0
    }
    fn human_check(&self) -> &'static str {
        self.1
    }
    fn targets_number(&self) -> bool {
        false
    }
    fn evaluate(&self, _case: &Case) -> Result<Verdict, Verdict> {
        Ok(self.row(NotObservableRow::NoRepositoryOutcome))
    }
}

pub(crate) const CREATE_AGENT_SESSION: NotObservable = NotObservable::of(
    OutputType::CreateAgentSession,
    "None in the repository: an agent session's result shows only through the PRs it opens, which their own outputs cover.",
);
pub(crate) const CREATE_CHECK_RUN: NotObservable =
    NotObservable::of(OutputType::CreateCheckRun, "None: the check run is the workflow's own report, not a response to it.");
pub(crate) const CREATE_PROJECT_STATUS_UPDATE: NotObservable =
    NotObservable::of(OutputType::CreateProjectStatusUpdate, "None: a status note on a project has no later state to compare.");
pub(crate) const UPLOAD_ASSET: NotObservable = NotObservable::of(OutputType::UploadAsset, "None: assets live outside the repository's reviewable state.");
pub(crate) const UPLOAD_ARTIFACT: NotObservable = NotObservable::of(OutputType::UploadArtifact, "None: workflow artifacts are not repository state.");
pub(crate) const COMMENT_MEMORY: NotObservable = NotObservable::of(OutputType::CommentMemory, "None: the agent's memory is its own.");
pub(crate) const PUSH_REPO_MEMORY: NotObservable = NotObservable::of(OutputType::PushRepoMemory, "None: the agent's memory branch is its own.");
