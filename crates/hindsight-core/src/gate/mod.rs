//! The evaluation and commit protocol (docs/SPEC.md [SPEC-GATE]), as an offline gate:
//! recorded execution results in, one governed decision per result out (commit or reject,
//! no third way), plus the compliance report.
//!
//! Deterministic: the output depends on the results file and the policy only. The clock is
//! never read (a result's timestamp is its own), violations are sorted, and an unproven
//! condition is a rejection ("ambiguity is treated as failure"). The input is only read.
//! docs/GATE.md describes the input fields, the policy keys and the terminal-state mapping.

pub(crate) mod commit_message;
pub(crate) mod glob;
pub mod input;
pub mod policy;
mod render;

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Serialize, Serializer};

pub(crate) use input::{BuilderStatus, ExecutionResult, Quarantined};
pub use policy::{Policy, TaskPolicy};
pub use render::Format;

use crate::Result;

/// The protocol's terminal evaluation states ([SPEC-GATE-RESULT]), most severe first: a
/// result with violations of several states ends in the first, so a governance breach is
/// never hidden behind an ordinary failure.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum TerminalState {
    GovernanceViolation,
    EnvironmentInvalid,
    Timeout,
    Failed,
    Rejected,
    CommitError,
    Success,
}

impl TerminalState {
    pub(crate) const ALL: [TerminalState; 7] = [
        TerminalState::Success,
        TerminalState::Rejected,
        TerminalState::Failed,
        TerminalState::Timeout,
        TerminalState::GovernanceViolation,
        TerminalState::EnvironmentInvalid,
        TerminalState::CommitError,
    ];

    pub(crate) fn name(self) -> &'static str {
        match self {
            TerminalState::GovernanceViolation => "governance_violation",
            TerminalState::EnvironmentInvalid => "environment_invalid",
            TerminalState::Timeout => "timeout",
            TerminalState::Failed => "failed",
            TerminalState::Rejected => "rejected",
            TerminalState::CommitError => "commit_error",
            TerminalState::Success => "success",
        }
    }

    /// The protocol's `evaluation_result` ([SPEC-GATE-RULES]): any failed condition is
    /// `rejected` ("If any condition fails: evaluation_result = rejected"); `failed` is
    /// kept for a commit whose atomic execution failed ("If atomicity fails: rollback, mark
    /// execution as failed").
    pub(crate) fn evaluation_result(self) -> EvaluationResult {
        match self {
            TerminalState::Success => EvaluationResult::Success,
            TerminalState::CommitError => EvaluationResult::Failed,
            _ => EvaluationResult::Rejected,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum EvaluationResult {
    Success,
    Rejected,
    Failed,
}

impl EvaluationResult {
    pub(crate) const ALL: [EvaluationResult; 3] = [EvaluationResult::Success, EvaluationResult::Rejected, EvaluationResult::Failed];

    pub(crate) fn name(self) -> &'static str {
        match self {
            EvaluationResult::Success => "success",
            EvaluationResult::Rejected => "rejected",
            EvaluationResult::Failed => "failed",
        }
    }
}

/// Why a result is not committed. Declared in the order violations are listed: by the
/// terminal state they lead to (most severe first), then as here.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum ViolationKind {
    // governance_violation: an observed breach of governance integrity.
    /// A protected file is in `changed_files`, or its observed sha256 differs from the policy's.
    ProtectedFileChanged,
    /// `governance_hash_before` != `governance_hash_after`.
    GovernanceHashChanged,
    // environment_invalid
    /// The runtime recorded `environment_valid: false`.
    EnvironmentInvalid,
    // timeout
    /// `builder_status` is `timeout`.
    BuilderTimeout,
    /// `duration_seconds` over the task's `timeout_seconds`.
    DurationExceeded,
    // failed
    /// `exit_code` != 0.
    NonzeroExitCode,
    /// `builder_status` is `failure`.
    BuilderFailed,
    // rejected: a condition not proven, or a policy rule not met.
    /// No `timestamp`: the decision could not be dated.
    TimestampMissing,
    /// A `timestamp` that is not RFC 3339.
    TimestampInvalid,
    /// The task has no entry in the policy: no scope, no expected outcome.
    TaskNotInPolicy,
    /// A changed file that is not a plain relative path (`./a`, `/a`, `a/../b`).
    FilePathInvalid,
    /// A changed file no `allowed_files` pattern matches.
    FileOutsideScope,
    /// The policy has a sha256 for a protected file; the result records none.
    ProtectedFileUnverified,
    /// `governance_hash_before` or `_after` not recorded: drift cannot be ruled out.
    GovernanceHashUnverified,
    /// `environment_valid` not recorded.
    EnvironmentUnverified,
    /// No `commit_message`.
    CommitMessageMissing,
    /// A message that is not `type(scope): summary` exactly.
    CommitMessageInvalid,
    /// A well-formed message whose type the policy does not allow.
    CommitTypeNotAllowed,
    /// The task's policy defines no expected outcome: success cannot be proven.
    ExpectedOutcomeUndefined,
    /// A `files_created` path missing from `changed_files`.
    ExpectedFileNotCreated,
    /// A `log_contains` text missing from the logs.
    ExpectedLogMissing,
    /// Tests required; the result records `tests_passed: false`.
    TestsFailed,
    /// Tests required; the result records no `tests_passed`.
    TestsUnverified,
    // commit_error
    /// Every rule held, and the runtime's atomic commit failed (`commit_error`).
    CommitFailed,
}

impl ViolationKind {
    pub(crate) const ALL: [ViolationKind; 24] = [
        ViolationKind::ProtectedFileChanged,
        ViolationKind::GovernanceHashChanged,
        ViolationKind::EnvironmentInvalid,
        ViolationKind::BuilderTimeout,
        ViolationKind::DurationExceeded,
        ViolationKind::NonzeroExitCode,
        ViolationKind::BuilderFailed,
        ViolationKind::TimestampMissing,
        ViolationKind::TimestampInvalid,
        ViolationKind::TaskNotInPolicy,
        ViolationKind::FilePathInvalid,
        ViolationKind::FileOutsideScope,
        ViolationKind::ProtectedFileUnverified,
        ViolationKind::GovernanceHashUnverified,
        ViolationKind::EnvironmentUnverified,
        ViolationKind::CommitMessageMissing,
        ViolationKind::CommitMessageInvalid,
        ViolationKind::CommitTypeNotAllowed,
        ViolationKind::ExpectedOutcomeUndefined,
        ViolationKind::ExpectedFileNotCreated,
        ViolationKind::ExpectedLogMissing,
        ViolationKind::TestsFailed,
        ViolationKind::TestsUnverified,
        ViolationKind::CommitFailed,
    ];

    /// The stable name in every output.
    pub(crate) fn name(self) -> &'static str {
        use ViolationKind::*;
        match self {
            ProtectedFileChanged => "protected_file_changed",
            GovernanceHashChanged => "governance_hash_changed",
            EnvironmentInvalid => "environment_invalid",
            BuilderTimeout => "builder_timeout",
            DurationExceeded => "duration_exceeded",
            NonzeroExitCode => "nonzero_exit_code",
            BuilderFailed => "builder_failed",
            TimestampMissing => "timestamp_missing",
            TimestampInvalid => "timestamp_invalid",
            TaskNotInPolicy => "task_not_in_policy",
            FilePathInvalid => "file_path_invalid",
            FileOutsideScope => "file_outside_scope",
            ProtectedFileUnverified => "protected_file_unverified",
            GovernanceHashUnverified => "governance_hash_unverified",
            EnvironmentUnverified => "environment_unverified",
            CommitMessageMissing => "commit_message_missing",
            CommitMessageInvalid => "commit_message_invalid",
            CommitTypeNotAllowed => "commit_type_not_allowed",
            ExpectedOutcomeUndefined => "expected_outcome_undefined",
            ExpectedFileNotCreated => "expected_file_not_created",
            ExpectedLogMissing => "expected_log_missing",
            TestsFailed => "tests_failed",
            TestsUnverified => "tests_unverified",
            CommitFailed => "commit_failed",
        }
    }

    /// The terminal state a violation of this kind leads to. An observed breach has its own
    /// state; a condition merely not proven is a plain rejection.
    pub(crate) fn state(self) -> TerminalState {
        use ViolationKind::*;
        match self {
            ProtectedFileChanged | GovernanceHashChanged => TerminalState::GovernanceViolation,
            EnvironmentInvalid => TerminalState::EnvironmentInvalid,
            BuilderTimeout | DurationExceeded => TerminalState::Timeout,
            NonzeroExitCode | BuilderFailed => TerminalState::Failed,
            CommitFailed => TerminalState::CommitError,
            _ => TerminalState::Rejected,
        }
    }

    /// The rejection reason's wording.
    fn phrase(self) -> &'static str {
        use ViolationKind::*;
        match self {
            ProtectedFileChanged => "protected file changed",
            GovernanceHashChanged => "governance hash changed",
            EnvironmentInvalid => "environment invalid",
            BuilderTimeout => "builder timed out",
            DurationExceeded => "duration over the task's timeout",
            NonzeroExitCode => "exit code not 0",
            BuilderFailed => "builder failed",
            TimestampMissing => "timestamp missing",
            TimestampInvalid => "timestamp not RFC 3339",
            TaskNotInPolicy => "task not in the policy",
            FilePathInvalid => "changed file not a plain relative path",
            FileOutsideScope => "file outside the task's allowed files",
            ProtectedFileUnverified => "protected file's sha256 not recorded",
            GovernanceHashUnverified => "governance hash not recorded before and after",
            EnvironmentUnverified => "environment validity not recorded",
            CommitMessageMissing => "commit message missing",
            CommitMessageInvalid => "commit message not `type(scope): summary`",
            CommitTypeNotAllowed => "commit type not allowed",
            ExpectedOutcomeUndefined => "no expected outcome defined, so success cannot be proven",
            ExpectedFileNotCreated => "expected file not in changed_files",
            ExpectedLogMissing => "expected text not in the logs",
            TestsFailed => "tests did not pass",
            TestsUnverified => "tests_passed not recorded",
            CommitFailed => "commit failed and was rolled back",
        }
    }
}

impl Serialize for ViolationKind {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl Serialize for TerminalState {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl Serialize for EvaluationResult {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

/// One rule not met, with what offended it: the file at fault (`path`) and what else says
/// why (a message, a value, two hashes), each when there is one.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub(crate) struct Violation {
    pub(crate) kind: ViolationKind,
    pub(crate) path: Option<String>,
    pub(crate) detail: Option<String>,
}

impl Violation {
    fn new(kind: ViolationKind, detail: impl Into<String>) -> Self {
        Violation { kind, path: None, detail: Some(detail.into()) }
    }

    fn bare(kind: ViolationKind) -> Self {
        Violation { kind, path: None, detail: None }
    }

    fn file(kind: ViolationKind, path: &str, detail: Option<String>) -> Self {
        Violation { kind, path: Some(path.to_string()), detail }
    }

    /// `phrase: path (detail)`, the form of `rejection_reason`.
    pub(crate) fn message(&self) -> String {
        match (&self.path, &self.detail) {
            (Some(p), Some(d)) => format!("{}: {p} ({d})", self.kind.phrase()),
            (Some(x), None) | (None, Some(x)) => format!("{}: {x}", self.kind.phrase()),
            (None, None) => self.kind.phrase().to_string(),
        }
    }
}

/// The protocol's structured evaluation result ([SPEC-GATE-RESULT]), plus the terminal
/// state and where the input was.
#[derive(Clone, Debug, Serialize)]
pub struct Evaluation {
    pub task_id: String,
    pub(crate) evaluation_result: EvaluationResult,
    /// The protocol lets the commit stand: every condition held and the runtime recorded
    /// no commit error. This gate never commits anything itself.
    pub(crate) commit_performed: bool,
    /// The first violation's message; `null` on success.
    pub(crate) rejection_reason: Option<String>,
    pub(crate) violations: Vec<Violation>,
    /// The result's own timestamp in UTC; `null` when it had none (then rejected).
    pub(crate) timestamp: Option<String>,
    pub(crate) terminal_state: TerminalState,
    /// 1-based line of the results file.
    pub line: usize,
    /// sha256 of the line's text: the exact input judged.
    pub(crate) input_sha256: String,
}

/// Judge one result against the policy.
pub(crate) fn evaluate(r: &ExecutionResult, policy: &Policy) -> Evaluation {
    let task = policy.tasks.get(&r.task_id);
    let mut v = Vec::new();
    let timestamp = check_timestamp(r, &mut v);
    check_execution(r, task, &mut v);
    check_scope(r, task, &mut v);
    check_governance(r, policy, task, &mut v);
    check_environment(r, &mut v);
    check_commit_message(r, policy, &mut v);
    check_expected_outcome(r, task, &mut v);
    if let Some(e) = &r.commit_error {
        v.push(Violation::new(ViolationKind::CommitFailed, e.as_str()));
    }
    v.sort();
    v.dedup();
    let terminal_state = v.first().map_or(TerminalState::Success, |x| x.kind.state());
    Evaluation {
        task_id: r.task_id.clone(),
        evaluation_result: terminal_state.evaluation_result(),
        commit_performed: terminal_state == TerminalState::Success,
        rejection_reason: v.first().map(Violation::message),
        violations: v,
        timestamp,
        terminal_state,
        line: r.line,
        input_sha256: crate::json::sha256_hex(r.raw.as_bytes()),
    }
}

/// The timestamp in UTC (fractions kept), or a violation: the decision is dated by its
/// input, never by the clock.
fn check_timestamp(r: &ExecutionResult, v: &mut Vec<Violation>) -> Option<String> {
    let Some(t) = &r.timestamp else {
        v.push(Violation::bare(ViolationKind::TimestampMissing));
        return None;
    };
    match chrono::DateTime::parse_from_rfc3339(t.trim()) {
        Ok(t) => Some(t.with_timezone(&chrono::Utc).to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true)),
        Err(_) => {
            v.push(Violation::new(ViolationKind::TimestampInvalid, t.as_str()));
            None
        }
    }
}

fn check_execution(r: &ExecutionResult, task: Option<&TaskPolicy>, v: &mut Vec<Violation>) {
    if r.exit_code != 0 {
        v.push(Violation::new(ViolationKind::NonzeroExitCode, r.exit_code.to_string()));
    }
    match r.builder_status {
        BuilderStatus::Success => {}
        BuilderStatus::Failure => v.push(Violation::bare(ViolationKind::BuilderFailed)),
        BuilderStatus::Timeout => v.push(Violation::bare(ViolationKind::BuilderTimeout)),
    }
    if let Some(limit) = task.and_then(|t| t.timeout_seconds) {
        if r.duration_seconds > limit {
            v.push(Violation::new(ViolationKind::DurationExceeded, format!("{}s, over {limit}s", r.duration_seconds)));
        }
    }
}

/// changed_files ⊆ allowed_files. A task the policy does not know allows nothing.
fn check_scope(r: &ExecutionResult, task: Option<&TaskPolicy>, v: &mut Vec<Violation>) {
    if task.is_none() {
        v.push(Violation::new(ViolationKind::TaskNotInPolicy, r.task_id.as_str()));
    }
    let allowed = task.map_or(&[][..], |t| &t.allowed_files[..]);
    for f in &r.changed_files {
        if let Some(problem) = glob::path_problem(f) {
            v.push(Violation::file(ViolationKind::FilePathInvalid, f, Some(problem)));
        } else if !allowed.iter().any(|g| g.matches(f)) {
            v.push(Violation::file(ViolationKind::FileOutsideScope, f, None));
        }
    }
}

/// Protected files unchanged (not listed as changed, and hashing as the policy expects), and
/// the governance hash the same before and after.
fn check_governance(r: &ExecutionResult, policy: &Policy, task: Option<&TaskPolicy>, v: &mut Vec<Violation>) {
    for f in &r.changed_files {
        // Resolved, so `./docs/governance.md` is seen for what it names.
        if glob::resolve(f).is_some_and(|p| policy.is_protected(task, &p)) {
            v.push(Violation::file(ViolationKind::ProtectedFileChanged, f, Some("in changed_files".into())));
        }
    }
    for (path, expected) in &policy.protected_file_sha256 {
        if !policy.is_protected(task, path) {
            continue;
        }
        match r.protected_file_sha256.get(path) {
            None => v.push(Violation::file(ViolationKind::ProtectedFileUnverified, path, None)),
            Some(seen) if !seen.eq_ignore_ascii_case(expected) => {
                v.push(Violation::file(ViolationKind::ProtectedFileChanged, path, Some(format!("sha256 {seen}, expected {expected}"))))
            }
            Some(_) => {}
        }
    }
    match (&r.governance_hash_before, &r.governance_hash_after) {
        (Some(b), Some(a)) if !a.eq_ignore_ascii_case(b) => v.push(Violation::new(ViolationKind::GovernanceHashChanged, format!("{b} -> {a}"))),
        (Some(_), Some(_)) => {}
        (b, a) => {
            let missing: Vec<&str> =
                [("governance_hash_before", b), ("governance_hash_after", a)].iter().filter(|(_, h)| h.is_none()).map(|(n, _)| *n).collect();
            v.push(Violation::new(ViolationKind::GovernanceHashUnverified, missing.join(", ")));
        }
    }
}

fn check_environment(r: &ExecutionResult, v: &mut Vec<Violation>) {
    match r.environment_valid {
        Some(true) => {}
        Some(false) => v.push(Violation::bare(ViolationKind::EnvironmentInvalid)),
        None => v.push(Violation::bare(ViolationKind::EnvironmentUnverified)),
    }
}

fn check_commit_message(r: &ExecutionResult, policy: &Policy, v: &mut Vec<Violation>) {
    let Some(m) = &r.commit_message else {
        v.push(Violation::bare(ViolationKind::CommitMessageMissing));
        return;
    };
    match commit_message::parse(m) {
        Err(reason) => v.push(Violation::new(ViolationKind::CommitMessageInvalid, format!("{m:?}: {reason}"))),
        Ok(c) if !policy.allowed_commit_types.iter().any(|t| t == c.kind) => {
            v.push(Violation::new(ViolationKind::CommitTypeNotAllowed, format!("`{}` (allowed: {})", c.kind, policy.allowed_commit_types.join(", "))))
        }
        Ok(_) => {}
    }
}

/// The task-defined success condition, every part of it proven by the result.
fn check_expected_outcome(r: &ExecutionResult, task: Option<&TaskPolicy>, v: &mut Vec<Violation>) {
    let Some(task) = task else {
        return; // Already `task_not_in_policy`.
    };
    let Some(e) = task.expected_outcome.as_ref().filter(|e| !e.is_empty()) else {
        v.push(Violation::new(ViolationKind::ExpectedOutcomeUndefined, r.task_id.as_str()));
        return;
    };
    for f in &e.files_created {
        if !r.changed_files.contains(f) {
            v.push(Violation::file(ViolationKind::ExpectedFileNotCreated, f, None));
        }
    }
    for text in &e.log_contains {
        if !r.logs.contains(text.as_str()) {
            v.push(Violation::new(ViolationKind::ExpectedLogMissing, text.as_str()));
        }
    }
    if e.tests_passed {
        match r.tests_passed {
            Some(true) => {}
            Some(false) => v.push(Violation::bare(ViolationKind::TestsFailed)),
            None => v.push(Violation::bare(ViolationKind::TestsUnverified)),
        }
    }
}

/// The compliance report: the protocol's three fields per result ([SPEC-GATE-RESULT]), and
/// totals.
#[derive(Clone, Debug, Serialize)]
pub struct Compliance {
    /// Non-blank lines read = evaluated + quarantined.
    pub records_read: usize,
    pub evaluated: usize,
    pub quarantined: usize,
    pub commits_performed: usize,
    /// Every terminal state, zero included.
    pub(crate) by_terminal_state: BTreeMap<&'static str, usize>,
    pub(crate) by_evaluation_result: BTreeMap<&'static str, usize>,
    /// Violations of every kind, zero included.
    pub(crate) by_violation_kind: BTreeMap<&'static str, usize>,
    pub(crate) per_result: Vec<ComplianceEntry>,
}

#[derive(Clone, Debug, Serialize)]
pub(crate) struct ComplianceEntry {
    pub line: usize,
    pub task_id: String,
    pub(crate) evaluation_result: EvaluationResult,
    pub(crate) commit_performed: bool,
    pub(crate) violation_count: usize,
}

impl Compliance {
    pub(crate) fn of(results: &[Evaluation], quarantined: usize) -> Compliance {
        let mut by_terminal_state: BTreeMap<&'static str, usize> = TerminalState::ALL.iter().map(|s| (s.name(), 0)).collect();
        let mut by_evaluation_result: BTreeMap<&'static str, usize> = EvaluationResult::ALL.iter().map(|s| (s.name(), 0)).collect();
        let mut by_violation_kind: BTreeMap<&'static str, usize> = ViolationKind::ALL.iter().map(|k| (k.name(), 0)).collect();
        for e in results {
            *by_terminal_state.entry(e.terminal_state.name()).or_default() += 1;
            *by_evaluation_result.entry(e.evaluation_result.name()).or_default() += 1;
            for x in &e.violations {
                *by_violation_kind.entry(x.kind.name()).or_default() += 1;
            }
        }
        Compliance {
            records_read: results.len() + quarantined,
            evaluated: results.len(),
            quarantined,
            commits_performed: results.iter().filter(|e| e.commit_performed).count(),
            by_terminal_state,
            by_evaluation_result,
            by_violation_kind,
            per_result: results
                .iter()
                .map(|e| ComplianceEntry {
                    line: e.line,
                    task_id: e.task_id.clone(),
                    evaluation_result: e.evaluation_result,
                    commit_performed: e.commit_performed,
                    violation_count: e.violations.len(),
                })
                .collect(),
        }
    }
}

/// Everything `hindsight gate` prints.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub(crate) results: Vec<Evaluation>,
    pub compliance: Compliance,
    pub quarantined: Vec<Quarantined>,
}

/// Evaluate every result of a results file, in file order.
pub fn run(results: &Path, policy: &Policy) -> Result<Report> {
    let records = input::read(results)?;
    let evaluated: Vec<Evaluation> = records.results.iter().map(|r| evaluate(r, policy)).collect();
    Ok(Report { compliance: Compliance::of(&evaluated, records.quarantined.len()), results: evaluated, quarantined: records.quarantined })
}

impl Report {
    /// The results as dataset tables: `commit_protocol` (one row per evaluated result) and
    /// `commit_protocol_violations` (one row per violation), in file order.
    pub fn tables(&self) -> Vec<crate::table::Table> {
        use crate::table::{b, i, os, s, Kind, Table};
        let mut results = Table::new(
            "commit_protocol",
            &[
                ("task_id", Kind::Str),
                ("line", Kind::Int),
                ("evaluation_result", Kind::Str),
                ("commit_performed", Kind::Bool),
                ("terminal_state", Kind::Str),
                ("rejection_reason", Kind::Str),
                ("violation_count", Kind::Int),
                ("timestamp", Kind::Str),
                ("input_sha256", Kind::Str),
            ],
        );
        let mut violations = Table::new(
            "commit_protocol_violations",
            &[("task_id", Kind::Str), ("line", Kind::Int), ("kind", Kind::Str), ("path", Kind::Str), ("detail", Kind::Str)],
        );
        for e in &self.results {
            results.push(vec![
                s(&e.task_id),
                i(e.line as i64),
                s(e.evaluation_result.name()),
                b(e.commit_performed),
                s(e.terminal_state.name()),
                os(e.rejection_reason.as_ref()),
                i(e.violations.len() as i64),
                os(e.timestamp.as_ref()),
                s(&e.input_sha256),
            ]);
            for v in &e.violations {
                violations.push(vec![s(&e.task_id), i(e.line as i64), s(v.kind.name()), os(v.path.as_ref()), os(v.detail.as_ref())]);
            }
        }
        vec![results, violations]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_are_listed_once_in_severity_order() {
        let mut sorted = ViolationKind::ALL;
        sorted.sort();
        assert_eq!(sorted, ViolationKind::ALL, "ALL is in declaration (sort) order");
        let names: std::collections::BTreeSet<&str> = ViolationKind::ALL.iter().map(|k| k.name()).collect();
        assert_eq!(names.len(), ViolationKind::ALL.len(), "names are distinct");
        assert!(ViolationKind::ALL.windows(2).all(|w| w[0].state() <= w[1].state()), "a more severe state's kinds come first");
        assert!(names.iter().all(|n| n.bytes().all(|b| b.is_ascii_lowercase() || b == b'_')), "snake_case");
    }
}
