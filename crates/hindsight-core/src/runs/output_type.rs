//! The one registry of safe-output types: every type hindsight knows, in the rules
//! catalogue's order, with what it acts on when a record does not say and whether what
//! became of it can be observed (in the repository, nowhere, outside GitHub; or not at all,
//! for a system output: a report about the run, not an action on the repository).
//!
//! Readers take target kinds and system types from here. The evaluator reads it too (the
//! readers sit below the evaluator, so the registry lives with them): each rule names its
//! type from here (`OutputType::CreatePullRequest`, never a string), whether it judges or
//! skips follows the type's [`Observed`], and `evaluate::rules::rule_of` gives every type
//! its rule in one exhaustive match, so a type added here without a rule does not compile.

use std::fmt;

/// Whether, and where, what became of an output of a type can be observed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Observed {
    /// In the repository's later state: the type's rule judges it.
    Repository,
    /// Nowhere: it writes nothing a repository capture shows (an asset, a check run the
    /// workflow reports itself, the agent's memory); its rule answers `skipped`.
    Nowhere,
    /// Outside what a GitHub capture reads (Linear, Jira, Azure DevOps, GitHub's
    /// code-coverage service, a run's approval): it has an outcome, which is not seen; its
    /// rule answers `unknown`.
    OffGithub,
    /// A system output: a report about the run (`noop`, `missing_tool`...), not an action.
    System,
}

/// What one safe-output type is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TypeSpec {
    pub name: &'static str,
    /// The kind of object it acts on when the record does not say; `None` for system types.
    pub(crate) target_kind: Option<&'static str>,
    pub(crate) observed: Observed,
}

const fn in_repository(name: &'static str, kind: &'static str) -> TypeSpec {
    TypeSpec { name, target_kind: Some(kind), observed: Observed::Repository }
}

const fn no_outcome(name: &'static str, kind: &'static str) -> TypeSpec {
    TypeSpec { name, target_kind: Some(kind), observed: Observed::Nowhere }
}

const fn off_github(name: &'static str, kind: &'static str) -> TypeSpec {
    TypeSpec { name, target_kind: Some(kind), observed: Observed::OffGithub }
}

const fn system(name: &'static str) -> TypeSpec {
    TypeSpec { name, target_kind: None, observed: Observed::System }
}

/// Declares the types: `Variant => spec`, one per type, in catalogue order.
macro_rules! types {
    ($($variant:ident => $spec:expr),+ $(,)?) => {
        /// A safe-output type hindsight knows.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum OutputType {
            $($variant),+
        }
        impl OutputType {
            /// Every type, in the rules catalogue's order (the system types last).
            pub const ALL: &'static [OutputType] = &[$(OutputType::$variant),+];
            /// Their specs, in the same order.
            const SPECS: &'static [TypeSpec] = &[$($spec),+];
        }
    };
}

/// Target kind of a type this registry does not know: an issue, as gh-aw's generic
/// handlers assume.
pub(crate) const UNKNOWN_TYPE_TARGET: &str = "issue";

// The specification's priority order first (docs/SPEC.md [SPEC-TYPES]), then the rest of
// its tables, then the gh-aw types they do not list ([SPEC-EXTRA-TYPES]; those whose
// outcome is not observable last). Types whose object is outside the repository's
// reviewable state (`upload_asset`, the memory types...) keep the issue kind unknown types
// get: their outcome is not observable whatever they name.
types! {
        CreatePullRequest => in_repository("create_pull_request", "pull_request"),
        PushToPullRequestBranch => in_repository("push_to_pull_request_branch", "pull_request"),
        CreateIssue => in_repository("create_issue", "issue"),
        AddComment => in_repository("add_comment", "comment"),
        AddLabels => in_repository("add_labels", "issue"),
        UpdateIssue => in_repository("update_issue", "issue"),
        UpdatePullRequest => in_repository("update_pull_request", "pull_request"),
        AddReviewer => in_repository("add_reviewer", "pull_request"),
        SubmitPullRequestReview => in_repository("submit_pull_request_review", "pull_request"),
        DispatchWorkflow => in_repository("dispatch_workflow", "workflow_run"),
        AutofixCodeScanningAlert => in_repository("autofix_code_scanning_alert", "code_scanning_alert"),
        UpdateProject => in_repository("update_project", "project"),
        AssignMilestone => in_repository("assign_milestone", "issue"),
        SetIssueType => in_repository("set_issue_type", "issue"),
        SetIssueField => in_repository("set_issue_field", "issue"),
        CreateDiscussion => in_repository("create_discussion", "discussion"),
        UpdateDiscussion => in_repository("update_discussion", "discussion"),
        CloseDiscussion => in_repository("close_discussion", "discussion"),
        HideComment => in_repository("hide_comment", "comment"),
        CloseIssue => in_repository("close_issue", "issue"),
        LinkSubIssue => in_repository("link_sub_issue", "issue"),
        ClosePullRequest => in_repository("close_pull_request", "pull_request"),
        CreatePullRequestReviewComment => in_repository("create_pull_request_review_comment", "review_comment"),
        ReplyToPullRequestReviewComment => in_repository("reply_to_pull_request_review_comment", "review_comment"),
        ResolvePullRequestReviewThread => in_repository("resolve_pull_request_review_thread", "review_thread"),
        MarkPullRequestAsReadyForReview => in_repository("mark_pull_request_as_ready_for_review", "pull_request"),
        AssignToAgent => in_repository("assign_to_agent", "issue"),
        CreateCodeScanningAlert => in_repository("create_code_scanning_alert", "code_scanning_alert"),
        UpdateRelease => in_repository("update_release", "release"),
        AssignToUser => in_repository("assign_to_user", "issue"),
        UnassignFromUser => in_repository("unassign_from_user", "issue"),
        RemoveLabels => in_repository("remove_labels", "issue"),
        ReplaceLabel => in_repository("replace_label", "issue"),
        MergePullRequest => in_repository("merge_pull_request", "pull_request"),
        DismissPullRequestReview => in_repository("dismiss_pull_request_review", "pull_request"),
        CallWorkflow => in_repository("call_workflow", "workflow_run"),
        DispatchRepository => in_repository("dispatch_repository", "issue"),
        CreateProject => in_repository("create_project", "project"),
        CreateAgentSession => no_outcome("create_agent_session", "issue"),
        CreateCheckRun => no_outcome("create_check_run", "issue"),
        CreateProjectStatusUpdate => no_outcome("create_project_status_update", "project"),
        UploadAsset => no_outcome("upload_asset", "issue"),
        UploadArtifact => no_outcome("upload_artifact", "issue"),
        CommentMemory => no_outcome("comment_memory", "issue"),
        PushRepoMemory => no_outcome("push_repo_memory", "issue"),
        LinearCreateIssue => off_github("linear_create_issue", "linear_issue"),
        LinearAddComment => off_github("linear_add_comment", "linear_issue"),
        LinearUpdateIssue => off_github("linear_update_issue", "linear_issue"),
        JiraCreateIssue => off_github("jira_create_issue", "jira_issue"),
        JiraUpdateIssue => off_github("jira_update_issue", "jira_issue"),
        JiraAddComment => off_github("jira_add_comment", "jira_issue"),
        JiraAddLabel => off_github("jira_add_label", "jira_issue"),
        AdoCreateWorkItem => off_github("ado_create_work_item", "ado_work_item"),
        AdoUpdateWorkItem => off_github("ado_update_work_item", "ado_work_item"),
        AdoCommentOnWorkItem => off_github("ado_comment_on_work_item", "ado_work_item"),
        AdoAssignWorkItem => off_github("ado_assign_work_item", "ado_work_item"),
        AdoLinkWorkItems => off_github("ado_link_work_items", "ado_work_item"),
        AdoUploadWorkitemAttachment => off_github("ado_upload_workitem_attachment", "ado_work_item"),
        UploadCodeCoverage => off_github("upload_code_coverage", "code_coverage_report"),
        ApproveWorkflowRun => off_github("approve_workflow_run", "workflow_run"),
        Noop => system("noop"),
        MissingTool => system("missing_tool"),
        MissingData => system("missing_data"),
        ReportIncomplete => system("report_incomplete"),
}

impl OutputType {
    pub(crate) const fn spec(self) -> &'static TypeSpec {
        // Variants and specs are declared together, in the same order.
        &Self::SPECS[self as usize]
    }

    /// The type's name, as records and the catalogue spell it.
    pub const fn name(self) -> &'static str {
        self.spec().name
    }

    /// The kind of object it acts on when the record does not say; `None` for a system type.
    pub(crate) const fn target_kind(self) -> Option<&'static str> {
        self.spec().target_kind
    }

    pub const fn observed(self) -> Observed {
        self.spec().observed
    }

    /// A system output: a report about the run (`noop`, `missing_tool`...), not an action.
    pub fn is_system(self) -> bool {
        self.observed() == Observed::System
    }

    /// The type named `name`, if the registry knows it.
    pub fn parse(name: &str) -> Option<OutputType> {
        Self::ALL.iter().copied().find(|t| t.name() == name)
    }
}

impl fmt::Display for OutputType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A system output: a report about the run (`noop`, `missing_tool`...), not an action.
pub(crate) fn is_system(name: &str) -> bool {
    OutputType::parse(name).is_some_and(OutputType::is_system)
}

/// The system types, in the registry's order.
pub fn system_types() -> impl Iterator<Item = &'static str> {
    OutputType::ALL.iter().filter(|t| t.is_system()).map(|t| t.name())
}

/// The kind of object a type acts on when the record does not say: the registry's, the
/// issue kind for an unknown type, none for a system type.
pub(crate) fn default_target_kind(name: &str) -> Option<&'static str> {
    match OutputType::parse(name) {
        Some(t) => t.target_kind(),
        None => Some(UNKNOWN_TYPE_TARGET),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each type once, under one name.
    #[test]
    fn each_type_is_listed_once() {
        let mut names: Vec<&str> = OutputType::ALL.iter().map(|t| t.name()).collect();
        names.sort_unstable();
        let before = names.len();
        names.dedup();
        assert_eq!(names.len(), before, "a type is listed twice");
        assert!(OutputType::ALL.iter().all(|t| OutputType::parse(t.name()) == Some(*t) && t.to_string() == t.name()));
    }

    /// A system type acts on nothing; every other type acts on something.
    #[test]
    fn system_types_and_only_they_have_no_target() {
        for t in OutputType::ALL {
            assert_eq!(t.target_kind().is_none(), t.is_system(), "{t}");
        }
    }

    #[test]
    fn unknown_types_act_on_issues_and_system_types_on_nothing() {
        assert_eq!(default_target_kind("create_pull_request"), Some("pull_request"));
        assert_eq!(default_target_kind("a_type_from_next_year"), Some("issue"));
        assert_eq!(default_target_kind("noop"), None);
        assert!(is_system("missing_tool") && !is_system("add_comment") && !is_system("a_type_from_next_year"));
    }
}
