//! The one registry of safe-output types: every type hindsight knows, with what it acts on
//! when a record does not say, and whether it is a system output (a report about the run,
//! not an action on the repository). Readers take target kinds and system types from here;
//! the evaluator catalogue (`evaluate::rules::all`) is checked against it by a test, so a
//! type added in one place and not the other fails the build's tests.

/// What one safe-output type is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OutputType {
    pub name: &'static str,
    /// The kind of object it acts on when the record does not say; `None` for system types.
    pub target_kind: Option<&'static str>,
}

impl OutputType {
    pub fn is_system(&self) -> bool {
        self.target_kind.is_none()
    }
}

const fn t(name: &'static str, kind: &'static str) -> OutputType {
    OutputType { name, target_kind: Some(kind) }
}

const fn system(name: &'static str) -> OutputType {
    OutputType { name, target_kind: None }
}

/// Target kind of a type this registry does not know: an issue, as gh-aw's generic
/// handlers assume.
pub const UNKNOWN_TYPE_TARGET: &str = "issue";

/// Every known type. Types whose object is outside the repository's reviewable state
/// (`upload_asset`, the memory types...) keep the issue kind unknown types get: their
/// outcome is not observable whatever they name.
pub const TYPES: &[OutputType] = &[
    t("create_pull_request", "pull_request"),
    t("push_to_pull_request_branch", "pull_request"),
    t("update_pull_request", "pull_request"),
    t("close_pull_request", "pull_request"),
    t("merge_pull_request", "pull_request"),
    t("mark_pull_request_as_ready_for_review", "pull_request"),
    t("add_reviewer", "pull_request"),
    t("submit_pull_request_review", "pull_request"),
    t("dismiss_pull_request_review", "pull_request"),
    t("create_pull_request_review_comment", "review_comment"),
    t("reply_to_pull_request_review_comment", "review_comment"),
    t("resolve_pull_request_review_thread", "review_thread"),
    t("add_comment", "comment"),
    t("hide_comment", "comment"),
    t("create_discussion", "discussion"),
    t("update_discussion", "discussion"),
    t("close_discussion", "discussion"),
    t("dispatch_workflow", "workflow_run"),
    t("call_workflow", "workflow_run"),
    t("update_release", "release"),
    t("create_code_scanning_alert", "code_scanning_alert"),
    t("autofix_code_scanning_alert", "code_scanning_alert"),
    t("update_project", "project"),
    t("create_project", "project"),
    t("create_project_status_update", "project"),
    t("create_issue", "issue"),
    t("update_issue", "issue"),
    t("close_issue", "issue"),
    t("add_labels", "issue"),
    t("remove_labels", "issue"),
    t("replace_label", "issue"),
    t("assign_milestone", "issue"),
    t("assign_to_agent", "issue"),
    t("assign_to_user", "issue"),
    t("unassign_from_user", "issue"),
    t("set_issue_type", "issue"),
    t("set_issue_field", "issue"),
    t("link_sub_issue", "issue"),
    t("dispatch_repository", "issue"),
    t("create_agent_session", "issue"),
    t("create_check_run", "issue"),
    t("upload_asset", "issue"),
    t("upload_artifact", "issue"),
    t("comment_memory", "issue"),
    t("push_repo_memory", "issue"),
    // Outside GitHub, or GitHub state no capture reads: named after what they act on.
    t("linear_create_issue", "linear_issue"),
    t("linear_add_comment", "linear_issue"),
    t("linear_update_issue", "linear_issue"),
    t("jira_create_issue", "jira_issue"),
    t("jira_update_issue", "jira_issue"),
    t("jira_add_comment", "jira_issue"),
    t("jira_add_label", "jira_issue"),
    t("ado_create_work_item", "ado_work_item"),
    t("ado_update_work_item", "ado_work_item"),
    t("ado_comment_on_work_item", "ado_work_item"),
    t("ado_assign_work_item", "ado_work_item"),
    t("ado_link_work_items", "ado_work_item"),
    t("ado_upload_workitem_attachment", "ado_work_item"),
    t("upload_code_coverage", "code_coverage_report"),
    t("approve_workflow_run", "workflow_run"),
    system("noop"),
    system("missing_tool"),
    system("missing_data"),
    system("report_incomplete"),
];

/// The registry's entry for `name`, if it knows the type.
pub fn find(name: &str) -> Option<&'static OutputType> {
    TYPES.iter().find(|t| t.name == name)
}

/// A system output: a report about the run (`noop`, `missing_tool`...), not an action.
pub fn is_system(name: &str) -> bool {
    find(name).is_some_and(OutputType::is_system)
}

/// The system types, in the registry's order.
pub fn system_types() -> impl Iterator<Item = &'static str> {
    TYPES.iter().filter(|t| t.is_system()).map(|t| t.name)
}

/// The kind of object a type acts on when the record does not say: the registry's, the
/// issue kind for an unknown type, none for a system type.
pub fn default_target_kind(name: &str) -> Option<&'static str> {
    match find(name) {
        Some(t) => t.target_kind,
        None => Some(UNKNOWN_TYPE_TARGET),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each type once; the evaluator catalogue has exactly one rule per non-system type and
    /// no rule for a type the registry does not know.
    #[test]
    fn the_registry_and_the_rule_catalogue_agree() {
        let mut names: Vec<&str> = TYPES.iter().map(|t| t.name).collect();
        names.sort_unstable();
        let before = names.len();
        names.dedup();
        assert_eq!(names.len(), before, "a type is listed twice");
        let mut rules: Vec<&str> = crate::evaluate::rules::all().iter().map(|r| r.output_type()).collect();
        rules.sort_unstable();
        let mut actions: Vec<&str> = TYPES.iter().filter(|t| !t.is_system()).map(|t| t.name).collect();
        actions.sort_unstable();
        assert_eq!(rules, actions);
    }

    #[test]
    fn unknown_types_act_on_issues_and_system_types_on_nothing() {
        assert_eq!(default_target_kind("create_pull_request"), Some("pull_request"));
        assert_eq!(default_target_kind("a_type_from_next_year"), Some("issue"));
        assert_eq!(default_target_kind("noop"), None);
        assert!(is_system("missing_tool") && !is_system("add_comment") && !is_system("a_type_from_next_year"));
    }
}
