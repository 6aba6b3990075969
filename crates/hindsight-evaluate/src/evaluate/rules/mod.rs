//! One evaluator per safe-output type, in a file named after it. Each documents, in fixed
//! sections, what a person checks, why, and an example (sibling types share theirs in
//! `shared/`); its `rows!` table implements the type's table in docs/SPEC.md (the section
//! its header cites), and `hindsight rules` prints the catalogue from those tables.

pub(crate) mod add_comment;
pub(crate) mod add_labels;
pub(crate) mod add_reviewer;
pub(crate) mod assign_milestone;
pub(crate) mod assign_to_agent;
pub(crate) mod assign_to_user;
pub(crate) mod autofix_code_scanning_alert;
pub(crate) mod call_workflow;
pub(crate) mod close_discussion;
pub(crate) mod close_issue;
pub(crate) mod close_pull_request;
pub(crate) mod create_code_scanning_alert;
pub(crate) mod create_discussion;
pub(crate) mod create_issue;
pub(crate) mod create_project;
pub(crate) mod create_pull_request;
pub(crate) mod create_pull_request_review_comment;
pub(crate) mod dismiss_pull_request_review;
pub(crate) mod dispatch_repository;
pub(crate) mod dispatch_workflow;
pub(crate) mod hide_comment;
pub(crate) mod link_sub_issue;
pub(crate) mod mark_pull_request_as_ready_for_review;
pub(crate) mod merge_pull_request;
pub(crate) mod not_observable;
pub(crate) mod push_to_pull_request_branch;
pub(crate) mod reads;
pub(crate) mod remove_labels;
pub(crate) mod replace_label;
pub(crate) mod reply_to_pull_request_review_comment;
pub(crate) mod resolve_pull_request_review_thread;
pub(crate) mod set_issue_field;
pub(crate) mod set_issue_type;
pub(crate) mod shared;
pub(crate) mod submit_pull_request_review;
pub mod system;
pub(crate) mod unassign_from_user;
pub(crate) mod update_discussion;
pub(crate) mod update_issue;
pub(crate) mod update_project;
pub(crate) mod update_pull_request;
pub(crate) mod update_release;

use crate::evaluate::case::HistoryGap;

pub use reads::{reads, Read};

use super::case::{Act, Activity, Case, Final, Missing};
use super::{common, deleted, Common, Evaluator, Verdict};
use crate::runs::output_type::OutputType;
use crate::snapshot::github::{Issue, PullRequest};
use crate::snapshot::Entry;

/// The rule of each type: one arm per type of the registry (`runs::output_type`), so a
/// type added there without a rule does not compile. System types have none: they are
/// judged by [`system`].
pub(crate) fn rule_of(t: OutputType) -> Option<&'static dyn Evaluator> {
    use OutputType as T;
    Some(match t {
        T::CreatePullRequest => &create_pull_request::CreatePullRequest,
        T::PushToPullRequestBranch => &push_to_pull_request_branch::PushToPullRequestBranch,
        T::CreateIssue => &create_issue::CreateIssue,
        T::AddComment => &add_comment::AddComment,
        T::AddLabels => &add_labels::AddLabels,
        T::UpdateIssue => &update_issue::UpdateIssue,
        T::UpdatePullRequest => &update_pull_request::UpdatePullRequest,
        T::AddReviewer => &add_reviewer::AddReviewer,
        T::SubmitPullRequestReview => &submit_pull_request_review::SubmitReview,
        T::DispatchWorkflow => &dispatch_workflow::DispatchWorkflow,
        T::AutofixCodeScanningAlert => &autofix_code_scanning_alert::AutofixAlert,
        T::UpdateProject => &update_project::UpdateProject,
        T::AssignMilestone => &assign_milestone::AssignMilestone,
        T::SetIssueType => &set_issue_type::SetIssueType,
        T::SetIssueField => &set_issue_field::SetIssueField,
        T::CreateDiscussion => &create_discussion::CreateDiscussion,
        T::UpdateDiscussion => &update_discussion::UpdateDiscussion,
        T::CloseDiscussion => &close_discussion::CloseDiscussion,
        T::HideComment => &hide_comment::HideComment,
        T::CloseIssue => &close_issue::CloseIssue,
        T::LinkSubIssue => &link_sub_issue::LinkSubIssue,
        T::ClosePullRequest => &close_pull_request::ClosePullRequest,
        T::CreatePullRequestReviewComment => &create_pull_request_review_comment::CreateReviewComment,
        T::ReplyToPullRequestReviewComment => &reply_to_pull_request_review_comment::ReplyToReviewComment,
        T::ResolvePullRequestReviewThread => &resolve_pull_request_review_thread::ResolveThread,
        T::MarkPullRequestAsReadyForReview => &mark_pull_request_as_ready_for_review::MarkReady,
        T::AssignToAgent => &assign_to_agent::AssignToAgent,
        T::CreateCodeScanningAlert => &create_code_scanning_alert::CreateAlert,
        T::UpdateRelease => &update_release::UpdateRelease,
        T::AssignToUser => &assign_to_user::AssignToUser,
        T::UnassignFromUser => &unassign_from_user::UnassignFromUser,
        T::RemoveLabels => &remove_labels::RemoveLabels,
        T::ReplaceLabel => &replace_label::ReplaceLabel,
        T::MergePullRequest => &merge_pull_request::MergePullRequest,
        T::DismissPullRequestReview => &dismiss_pull_request_review::DismissReview,
        T::CallWorkflow => &call_workflow::CallWorkflow,
        T::DispatchRepository => &dispatch_repository::DispatchRepository,
        T::CreateProject => &create_project::CreateProject,
        T::CreateAgentSession => &not_observable::CREATE_AGENT_SESSION,
        T::CreateCheckRun => &not_observable::CREATE_CHECK_RUN,
        T::CreateProjectStatusUpdate => &not_observable::CREATE_PROJECT_STATUS_UPDATE,
        T::UploadAsset => &not_observable::UPLOAD_ASSET,
        T::UploadArtifact => &not_observable::UPLOAD_ARTIFACT,
        T::CommentMemory => &not_observable::COMMENT_MEMORY,
        T::PushRepoMemory => &not_observable::PUSH_REPO_MEMORY,
        T::LinearCreateIssue => &not_observable::LINEAR_CREATE_ISSUE,
        T::LinearAddComment => &not_observable::LINEAR_ADD_COMMENT,
        T::LinearUpdateIssue => &not_observable::LINEAR_UPDATE_ISSUE,
        T::JiraCreateIssue => &not_observable::JIRA_CREATE_ISSUE,
        T::JiraUpdateIssue => &not_observable::JIRA_UPDATE_ISSUE,
        T::JiraAddComment => &not_observable::JIRA_ADD_COMMENT,
        T::JiraAddLabel => &not_observable::JIRA_ADD_LABEL,
        T::AdoCreateWorkItem => &not_observable::ADO_CREATE_WORK_ITEM,
        T::AdoUpdateWorkItem => &not_observable::ADO_UPDATE_WORK_ITEM,
        T::AdoCommentOnWorkItem => &not_observable::ADO_COMMENT_ON_WORK_ITEM,
        T::AdoAssignWorkItem => &not_observable::ADO_ASSIGN_WORK_ITEM,
        T::AdoLinkWorkItems => &not_observable::ADO_LINK_WORK_ITEMS,
        T::AdoUploadWorkitemAttachment => &not_observable::ADO_UPLOAD_WORKITEM_ATTACHMENT,
        T::UploadCodeCoverage => &not_observable::UPLOAD_CODE_COVERAGE,
        T::ApproveWorkflowRun => &not_observable::APPROVE_WORKFLOW_RUN,
        T::Noop | T::MissingTool | T::MissingData | T::ReportIncomplete => return None,
    })
}

/// Every rule, in the registry's order (the rules catalogue's).
pub fn all() -> &'static [&'static dyn Evaluator] {
    static ALL: std::sync::OnceLock<Vec<&'static dyn Evaluator>> = std::sync::OnceLock::new();
    ALL.get_or_init(|| OutputType::ALL.iter().filter_map(|t| rule_of(*t)).collect())
}

/// The rule of `output_type`: asked once per output, so the registry is hashed once
/// rather than searched name by name (a million outputs made that search 1% of evaluate).
pub fn find(output_type: &str) -> Option<&'static dyn Evaluator> {
    // foldhash rather than std's SipHash: the names are the crate's own, and SipHash was
    // 0.7% of evaluate's CPU at a million outputs.
    type ByType = std::collections::HashMap<&'static str, &'static dyn Evaluator, foldhash::fast::FixedState>;
    static BY_TYPE: std::sync::OnceLock<ByType> = std::sync::OnceLock::new();
    let by_type = BY_TYPE.get_or_init(|| {
        let mut m = ByType::default();
        for r in all() {
            m.entry(r.output_type().name()).or_insert(*r);
        }
        m
    });
    by_type.get(output_type).copied()
}

/// Why a lookup found nothing, as the verdict it implies.
pub(crate) fn missing(case: &Case, m: Missing) -> Verdict {
    match m {
        Missing::Gone(s) => deleted(case, s),
        Missing::Failed(s) => common(Common::CaptureFailed).detail("http_status", s),
        Missing::NotCaptured => common(Common::TargetNotCaptured),
    }
}

/// An issue's final fields, borrowed (built in every window of every output).
pub(crate) fn issue_final(i: &Issue) -> Final<'_> {
    Final {
        state: i.state.as_deref(),
        state_reason: i.state_reason.as_deref(),
        closed_at: i.closed_at,
        closed_by: &i.closed_by,
        merged: None,
        merged_at: None,
        merged_by: &super::history::NOBODY,
    }
}

/// A PR's final fields, borrowed.
pub(crate) fn pull_final(p: &PullRequest) -> Final<'_> {
    Final {
        state: p.state.as_deref(),
        state_reason: None,
        closed_at: p.closed_at,
        closed_by: &super::history::NOBODY,
        merged: p.merged,
        merged_at: p.merged_at,
        merged_by: &p.merged_by,
    }
}

/// `issues/N` (its entry, for a rule that reads more of the body as JSON, and the issue),
/// or the verdict for why it cannot be read.
pub(crate) fn load_issue<'a>(case: &Case<'a>, n: i64) -> Result<(&'a Entry, &'a Issue), Verdict> {
    let e = case.lookup_entry(&crate::snapshot::paths::numbered("issues/", n, "")).map_err(|m| missing(case, m))?;
    Ok((e, e.issue()))
}

/// `pulls/N` (its entry and the pull request), or the verdict for why it cannot be read.
pub(crate) fn load_pull<'a>(case: &Case<'a>, n: i64) -> Result<(&'a Entry, &'a PullRequest), Verdict> {
    let e = case.lookup_entry(&crate::snapshot::paths::numbered("pulls/", n, "")).map_err(|m| missing(case, m))?;
    Ok((e, e.pull()))
}

/// A pull request as of the window's end: the PR, its activity and its lifecycle.
pub(crate) struct PullState {
    pub(crate) pr: PullRequest,
    pub(crate) activity: std::rc::Rc<super::case::Activity>,
    pub(crate) lc: super::case::Lifecycle,
}

pub(crate) fn pull_state(case: &Case, n: i64) -> Result<PullState, Verdict> {
    let (_, pr) = load_pull(case, n)?;
    let activity = case.activity(n, true);
    let lc = case.lifecycle(&pull_final(pr), activity.events.as_deref()).map_err(HistoryGap::verdict)?;
    Ok(PullState { pr: pr.clone(), activity, lc })
}

/// A failed capture among the activity sources a decision reads (`relevant`: the lists'
/// last path segments, such as `reviews` or `timeline`): the decision cannot rest on "no
/// activity" there. A failed source the decision does not read (a PR's reactions, for a
/// review request) blocks nothing; call this only once positive evidence has been looked
/// for, since what was found stands whatever else failed.
pub(crate) fn capture_problem(a: &Activity, relevant: &[&str]) -> Option<Verdict> {
    failed_sources(a.failed.iter().filter(|(p, _)| p.rsplit('/').next().is_some_and(|last| relevant.contains(&last))))
}

/// `capture_problem` for rules whose "no response" rests on every activity source.
pub(crate) fn any_capture_problem(a: &Activity) -> Option<Verdict> {
    failed_sources(a.failed.iter())
}

fn failed_sources<'a>(failed: impl Iterator<Item = &'a (String, u16)>) -> Option<Verdict> {
    let paths: Vec<String> = failed.map(|(p, s)| format!("{p} ({s})")).collect();
    if paths.is_empty() {
        return None;
    }
    Some(common(Common::CaptureFailed).resolved(true).note(format!("activity capture failed: {}", paths.join(", "))))
}

/// A merge or close by the workflow's own identity of what it created, decided the same way
/// in every rule (policy `own_act_counts`, [SPEC-ACTORS]): `counted` (the verdict the act
/// would give coming from anyone else) at weak strength when the policy counts it, else
/// `by_workflow` (an `ignored`/weak row).
pub(crate) fn own_act(case: &Case, counted: Verdict, by_workflow: Verdict) -> Verdict {
    let v = if case.policy.own_act_counts {
        counted.strength(super::outcome::EvidenceStrength::Weak).note("done by the workflow's own identity: counted at weak strength (policy own_act_counts)")
    } else {
        by_workflow
    };
    v.detail("acted_by_workflow", true)
}

/// An act of the requester (the person the agent worked for, after the agent's own acts),
/// decided the same way in every rule (policy `requester_acts`): the person's decision at
/// the row's strength by default, or at weak strength.
pub(crate) fn requester_act(case: &Case, v: Verdict) -> Verdict {
    let v = match case.policy.requester_acts {
        super::policy::RequesterActs::Weak => v.strength(super::outcome::EvidenceStrength::Weak).note("done by the requester: counted at weak strength (policy requester_acts)"),
        _ => v,
    };
    v.detail("acted_by_requester", true)
}

/// An act whose actor was not captured, decided the same way in every rule (policy
/// `unattributed_full_strength`): at most medium strength and medium confidence by
/// default, with `why` as the note.
pub(crate) fn unattributed(case: &Case, v: Verdict, why: &str) -> Verdict {
    use super::outcome::{Confidence, EvidenceStrength};
    let v = if !case.policy.unattributed_full_strength && v.strength == EvidenceStrength::Strong { v.strength(EvidenceStrength::Medium) } else { v };
    // Lowered to medium, never raised (a verdict already of low confidence stays low).
    let c = if v.confidence == Confidence::High { Confidence::Medium } else { v.confidence };
    v.confidence(c).note(why.to_string()).detail("actor_captured", false)
}

/// The first act inside the window by a visible non-bot actor that matches.
pub(crate) fn person_act<'b>(case: &Case, a: &'b Activity, f: impl Fn(&Act) -> bool) -> Option<&'b Act> {
    person_act_among(case, a.acts.iter(), f)
}

/// `person_act` over any acts (a rule's own beside an output's shared activity).
pub(crate) fn person_act_among<'b>(case: &Case, acts: impl Iterator<Item = &'b Act> + 'b, f: impl Fn(&Act) -> bool) -> Option<&'b Act> {
    case.inside_of(acts).find(|x| x.class.is_person() && f(x))
}

/// A comment inside the window by a visible non-bot actor that says the close was wrong.
pub(crate) fn challenge<'b>(case: &Case, a: &'b Activity) -> Option<&'b Act> {
    person_act(case, a, |x| matches!(x.kind, super::case::ActKind::Comment | super::case::ActKind::ReviewComment) && x.challenges_close)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A row's enum value and its table entry are declared together; their names agree.
    #[test]
    fn row_values_are_named_after_their_ids() {
        let camel = |id: &str| -> String { id.split('_').map(|w| w[..1].to_uppercase() + &w[1..]).collect() };
        for r in all() {
            let ids: Vec<String> = r.rows().iter().map(|x| camel(x.id)).collect();
            assert_eq!(r.row_names(), ids, "rule {}", r.output_type());
        }
        let common: Vec<String> = crate::evaluate::Common::ROWS.iter().map(|x| camel(x.id)).collect();
        assert_eq!(<crate::evaluate::Common as crate::evaluate::RowId>::ALL.iter().map(|r| format!("{r:?}")).collect::<Vec<_>>(), common);
    }

    /// Each type's rule answers for that type, and every type but the system ones has one.
    #[test]
    fn each_type_has_its_own_rule() {
        for t in OutputType::ALL {
            match rule_of(*t) {
                Some(r) => assert_eq!(r.output_type(), *t),
                None => assert!(t.is_system(), "{t}"),
            }
        }
    }

    #[test]
    fn row_ids_are_unique_per_rule() {
        for r in all() {
            let mut ids: Vec<_> = r.rows().iter().map(|x| x.id).collect();
            ids.sort();
            let n = ids.len();
            ids.dedup();
            assert_eq!(ids.len(), n, "duplicate row id in {}", r.output_type());
        }
    }
}
