//! What the rules read: capture asks them here which paths an output's judgement reads,
//! rather than watching them look paths up. Every target's captures (what the judge reads
//! for any output with a number, [`target`]), each rule's own fixed tails (its `READS`),
//! and what depends on captured content (its `reads_after`: a commit named by the PR, a
//! revert found in the commit list), asked again as captures arrive.

use crate::evaluate::case::Recorded;
use crate::evaluate::repository::RepositoryFacts;
use crate::json::as_int;
use crate::runs::output_type::OutputType;
use crate::runs::SafeOutput;
use crate::snapshot::SnapshotIndex;

/// One path a rule reads.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Read {
    /// `repos/{target repository}/{tail}`; an empty tail is the repository itself.
    Target(String),
    /// `graphql/repos/{target repository}/{tail}`.
    Graphql(String),
    /// A whole path, of no repository or named in a capture (`graphql/projects/O/N`).
    Global(String),
}

/// A fixed read around the output's target number: the text before and after it.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Fixed {
    Target(&'static str, &'static str),
    Graphql(&'static str, &'static str),
}

/// The target's captures the judge reads for every output with a target number, in the
/// order its provenance lists them: the object and its activity lists.
pub(crate) const JUDGED: &[(&str, &str)] = &[
    ("issues/", ""),
    ("pulls/", ""),
    ("issues/", "/timeline"),
    ("issues/", "/events"),
    ("issues/", "/comments"),
    ("pulls/", "/reviews"),
    ("pulls/", "/comments"),
    ("pulls/", "/commits"),
];

/// What the rules' activity reads beside [`JUDGED`] for every numbered target.
const ACTIVITY: &[(&str, &str)] = &[("issues/", "/reactions")];

/// What is read for every output with a target number: [`JUDGED`] and [`ACTIVITY`].
pub(crate) fn target() -> impl Iterator<Item = Fixed> {
    JUDGED.iter().chain(ACTIVITY).map(|&(before, after)| Fixed::Target(before, after))
}

impl Read {
    /// Around number `n`.
    pub(crate) fn numbered(f: Fixed, n: i64) -> Read {
        match f {
            Fixed::Target(before, after) => Read::Target(format!("{before}{n}{after}")),
            Fixed::Graphql(before, after) => Read::Graphql(format!("{before}{n}{after}")),
        }
    }

    /// The snapshot path, given the target repository (`None` when it needs one and there is none).
    pub fn path(&self, repo: Option<&str>) -> Option<String> {
        match self {
            Read::Target(t) if t.is_empty() => Some(format!("repos/{}", repo?)),
            Read::Target(t) => Some(crate::snapshot::paths::rest(repo?, t)),
            Read::Graphql(t) => Some(format!("graphql/repos/{}/{t}", repo?)),
            Read::Global(p) => Some(p.clone()),
        }
    }
}

/// A rule's reads that depend on what the output recorded or what is captured so far.
pub(crate) type After = fn(&SafeOutput, &Recorded, &SnapshotIndex) -> Vec<Read>;

/// A rule's fixed tails and its content-dependent reads.
fn declared(t: OutputType) -> (&'static [Fixed], Option<After>) {
    use super::*;
    use OutputType as T;
    match t {
        T::AddComment => (&[], Some(add_comment::reads_after)),
        T::AddLabels | T::RemoveLabels | T::ReplaceLabel => (add_labels::READS, None),
        T::AddReviewer => (add_reviewer::READS, Some(add_reviewer::reads_after)),
        T::SetIssueField => (set_issue_field::READS, None),
        T::CreateDiscussion | T::UpdateDiscussion | T::CloseDiscussion => (shared::discussion::READS, None),
        T::HideComment => (&[], Some(hide_comment::reads_after)),
        T::UpdateRelease => (&[], Some(update_release::reads_after)),
        T::DispatchWorkflow | T::CallWorkflow | T::DispatchRepository => (&[], Some(shared::workflow_run::reads_after)),
        T::AutofixCodeScanningAlert | T::CreateCodeScanningAlert => (&[], Some(shared::code_scanning_alert::reads_after)),
        T::CreateProject | T::UpdateProject => (&[], Some(shared::project::reads_after)),
        T::LinkSubIssue => (&[], Some(link_sub_issue::reads_after)),
        T::CreatePullRequestReviewComment => (shared::review_comments::READS, Some(create_pull_request_review_comment::reads_after)),
        T::ReplyToPullRequestReviewComment => (shared::review_comments::READS, Some(shared::review_comments::reads_after)),
        T::ResolvePullRequestReviewThread => (shared::review_comments::READS, Some(resolve_pull_request_review_thread::reads_after)),
        T::AssignToAgent => (&[], Some(assign_to_agent::reads_after)),
        T::PushToPullRequestBranch => (&[], Some(push_to_pull_request_branch::reads_after)),
        _ => (&[], None),
    }
}

/// The paths judging `o` reads, given what is captured so far (`known`, and the facts derived
/// from it once for every output, `facts`): every target's captures, the rule's own, where the
/// target repository's reverts were found, and the captures a derived copy among them rests on.
pub fn reads(o: &SafeOutput, known: &SnapshotIndex, facts: &RepositoryFacts) -> Vec<Read> {
    let mut out = Vec::new();
    // Types the repository does not show read nothing (their one verdict needs no capture).
    let Some(t) = OutputType::parse(&o.output_type).filter(|t| super::rule_of(*t).is_some_and(|r| !r.skips())) else { return out };
    let (fixed, after) = declared(t);
    if let Some(n) = o.target_number {
        out.extend(target().chain(fixed.iter().copied()).map(|f| Read::numbered(f, n)));
    }
    if o.target_repo.is_some() {
        // A gone repository answers for every path of it.
        out.push(Read::Target(String::new()));
    }
    if let Some(after) = after {
        out.extend(after(o, &Recorded::of(o), known));
    }
    if matches!(t, OutputType::CreatePullRequest | OutputType::MergePullRequest | OutputType::PushToPullRequestBranch) {
        out.extend(revert_sources(o, known, facts));
    }
    if let (true, Some(n), Some(repo)) = (matches!(t, OutputType::CreatePullRequest | OutputType::PushToPullRequestBranch), o.target_number, o.target_repo.as_deref()) {
        out.extend(risk_reads(known, repo, n));
    }
    let repo = o.target_repo.as_deref();
    let sources: Vec<Read> = out
        .iter()
        .filter_map(|r| known.get(&r.path(repo)?)?.derived_from.clone())
        .map(Read::Global)
        .collect();
    out.extend(sources);
    out.sort();
    out.dedup();
    out
}

/// An integer the output recorded: in its expected metadata (`metadata.KEY`), else its payload.
pub(crate) fn recorded_int(rec: &Recorded, key: &str) -> Option<i64> {
    rec.expected().get(format!("metadata.{key}")).and_then(as_int).or(rec.payload().get(key).and_then(as_int))
}

/// What the PR risk of an output's PR reads (`pr_risk`): its changed files, and for their
/// dependents the base tree and the text of its source files ([`crate::evaluate::dependents::reads`],
/// bounded by `MAX_SOURCE_FILES`), as each becomes known.
fn risk_reads(known: &SnapshotIndex, repo: &str, n: i64) -> Vec<Read> {
    let mut out = vec![Read::Target(format!("pulls/{n}/files"))];
    out.extend(crate::evaluate::dependents::reads(known, repo, n).into_iter().map(Read::Global));
    out
}

/// Where the reverts of the target repository were found (a merged PR's rules look for one).
fn revert_sources(o: &SafeOutput, known: &SnapshotIndex, facts: &RepositoryFacts) -> Vec<Read> {
    let Some(repo) = o.target_repo.as_deref() else { return Vec::new() };
    facts.reverts(known, repo).into_iter().flatten().map(|m| Read::Global(m.path.clone())).collect()
}
