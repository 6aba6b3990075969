//! The rule contract: what a rule for one safe-output type declares (its rows, as an enum
//! whose values are the only verdicts it can give) and how its verdicts are built.
//!
//! A row's identity is a type (`CloseIssueRow::Reopened`), never a string looked up at run
//! time; `rows!` declares the enum and, in the same order, the table the catalogue prints.

use super::case::Case;
use super::outcome::{Confidence, EvidenceStrength, Status, Verdict};
use crate::runs::output_type::{Observed, OutputType};
use crate::time::Instant;
use Decision as D;

/// One row of a rule's table: a repository state and what it means. The rules catalogue
/// is printed from these, so code and documentation cannot drift apart.
#[derive(Clone, Copy, Debug)]
pub struct RowSpec {
    /// The row's name in `rule_id` (`<type>/<id>`) and in the catalogue.
    pub id: &'static str,
    /// The repository state, in words.
    pub(crate) when: &'static str,
    pub status: Status,
    pub strength: EvidenceStrength,
    pub signal: &'static str,
    /// The row of the type's table in docs/SPEC.md this implements, in that file's words
    /// ("" when the row is hindsight's own; `SPEC-…: ` when it implements a section's
    /// rule).
    pub(crate) seed: &'static str,
    /// The policy switch that can change the status, if any.
    pub(crate) policy: Option<&'static str>,
    /// What decides the row: a state, an act (by anyone, or by a person), or a 404 at
    /// capture. The promises every rule keeps follow from it ([`Decision::promises`]).
    pub decision: Decision,
}

/// What decides a row: the judge holds every verdict to the promises that follow from it
/// (`evaluate::promises`), so no rule has to remember them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// A state or its absence (still set, still open, no reply yet, a run's conclusion):
    /// no one's act decides it.
    State,
    /// An act, by whoever did it (a merge, a close, a removal, a revert).
    Act,
    /// An act by a person: the row names a visible non-bot actor.
    PersonAct,
    /// A 404/410 at capture: the object was gone then, not known since when.
    Gone,
}

/// A promise the docs make for every rule, enforced by the judge (`evaluate::promises`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Promise {
    /// An act by the workflow's own identity (or its requester before the run's last
    /// output) is never strong acceptance or rejection.
    OwnAct,
    /// An act whose actor was not captured is at most medium.
    Unattributed,
    /// A row that says "by a person" holds only for a captured non-bot actor.
    ByPerson,
    /// A 404/410 without a time settles the `snapshot` window only.
    UndatedGone,
}

impl Promise {
    pub const ALL: &'static [Promise] = &[Promise::OwnAct, Promise::Unattributed, Promise::ByPerson, Promise::UndatedGone];
    /// What it promises, in the catalogue's words.
    pub fn meaning(self) -> &'static str {
        match self {
            Promise::OwnAct => "an act by the workflow's own identity (or by its requester up to the run's last output) is never strong or medium acceptance or rejection: `ignored`/weak, or counted at weak strength under policy `own_act_counts`",
            Promise::Unattributed => "an act whose actor was not captured (a rule that names nobody for an act included) is at most medium, with medium confidence, unless policy `unattributed_full_strength`",
            Promise::ByPerson => "a row that says \"by a person\" holds only for a captured non-bot actor: a bot's or GitHub's act there is `ignored`/weak",
            Promise::UndatedGone => "a 404/410 carries no time: it settles the `snapshot` window only (`history_missing` in a timed one)",
        }
    }
    /// Its name in the catalogue and in `details.promise_applied`.
    pub fn name(self) -> &'static str {
        match self {
            Promise::OwnAct => "own_act",
            Promise::Unattributed => "unattributed",
            Promise::ByPerson => "by_a_person",
            Promise::UndatedGone => "undated_404",
        }
    }
}

impl Decision {
    /// The promises a row decided this way is held to.
    pub fn promises(self) -> &'static [Promise] {
        match self {
            Decision::State => &[],
            Decision::Act => &[Promise::OwnAct, Promise::Unattributed, Promise::UndatedGone],
            Decision::PersonAct => &[Promise::OwnAct, Promise::Unattributed, Promise::ByPerson, Promise::UndatedGone],
            Decision::Gone => &[Promise::Unattributed, Promise::UndatedGone],
        }
    }
}

/// A rule's rows: an enum declared with `rows!`, each value one row of the table.
pub trait RowId: Copy + std::fmt::Debug + 'static {
    /// Every row, in the enum's order.
    const ALL: &'static [Self];
    /// The table, in the same order.
    const ROWS: &'static [RowSpec];
    fn spec(self) -> &'static RowSpec;
}

/// Declares a rule's rows: `Variant => RowSpec { .. }`, one per row, in catalogue order.
macro_rules! rows {
    ($(#[$meta:meta])* $vis:vis enum $name:ident { $($variant:ident => $spec:expr),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        $vis enum $name {
            $($variant),+
        }
        impl $name {
            pub const ROWS: &'static [$crate::evaluate::rule::RowSpec] = &[$($spec),+];
        }
        impl $crate::evaluate::rule::RowId for $name {
            const ALL: &'static [Self] = &[$(Self::$variant),+];
            const ROWS: &'static [$crate::evaluate::rule::RowSpec] = $name::ROWS;
            fn spec(self) -> &'static $crate::evaluate::rule::RowSpec {
                // Variants and table entries are declared together, in the same order.
                &$name::ROWS[self as usize]
            }
        }
    };
}
pub(crate) use rows;

/// An evaluator for one safe-output type, with its own rows.
pub(crate) trait Rule: Sync + Send {
    /// The rows this rule answers with.
    type Row: RowId;
    /// Its type, from the registry (`runs::output_type`), which says what the type acts on
    /// and whether its outcome is observed.
    fn output_type(&self) -> OutputType;
    /// What a person checks (the question heading the type's table in docs/SPEC.md).
    fn human_check(&self) -> &'static str;
    /// When the action happened. Defaults to the recorded time; creating rules fall back
    /// on the created object's own `created_at`.
    fn action_time(&self, case: &Case) -> Option<Instant> {
        case.output.created_at
    }
    /// `Ok` when the rule judged the case; `Err` when it answered early (the target or the
    /// history it needs is missing, or a capture failed), so lookups can use `?`.
    fn evaluate(&self, case: &Case) -> Result<Verdict, Verdict>;

    /// Whether the target is an issue, PR or comment found by number or comment id; rules
    /// whose target is a workflow run, an alert or a project say `false` and check their
    /// own reference.
    fn targets_number(&self) -> bool {
        true
    }

    /// Whether the verdict is dated at the action itself (the agent's own merge standing):
    /// then a decision dated at T is expected, not a contradiction.
    fn dated_at_action(&self) -> bool {
        false
    }

    /// Why a row cannot fire on what hindsight's own capture asks GitHub for (`None`: it
    /// can). Such a row still fires on a capture that carries what it needs (a webhook's
    /// sender, say); the catalogue marks it and never counts it as covered.
    fn not_observable(&self, _row: Self::Row) -> Option<&'static str> {
        None
    }

    /// The verdict of one of this rule's rows.
    fn row(&self, row: Self::Row) -> Verdict {
        verdict(self.output_type().name(), row.spec())
    }
}

/// A rule with its row type erased, as the registry holds it.
pub trait Evaluator: Sync + Send {
    fn output_type(&self) -> OutputType;
    fn human_check(&self) -> &'static str;
    fn rows(&self) -> &'static [RowSpec];
    fn action_time(&self, case: &Case) -> Option<Instant>;
    fn evaluate(&self, case: &Case) -> Verdict;
    fn targets_number(&self) -> bool;
    fn dated_at_action(&self) -> bool;
    /// Types whose outcome the repository does not show (the registry's [`Observed`] is not
    /// `Repository`): one verdict whatever the window (`skipped`, or `unknown` for a write
    /// outside what a GitHub capture shows).
    fn skips(&self) -> bool;
    /// Why the row with this id cannot fire on hindsight's own capture ([`Rule::not_observable`]).
    fn not_observable(&self, row_id: &str) -> Option<&'static str>;
    /// The names of the rule's row values, in table order (tests check them against the ids).
    #[cfg(test)]
    fn row_names(&self) -> Vec<String>;
}

impl<R: Rule> Evaluator for R {
    fn output_type(&self) -> OutputType {
        Rule::output_type(self)
    }
    fn human_check(&self) -> &'static str {
        Rule::human_check(self)
    }
    fn rows(&self) -> &'static [RowSpec] {
        <R::Row as RowId>::ROWS
    }
    fn action_time(&self, case: &Case) -> Option<Instant> {
        Rule::action_time(self, case)
    }
    fn evaluate(&self, case: &Case) -> Verdict {
        Rule::evaluate(self, case).unwrap_or_else(|early| early)
    }
    fn targets_number(&self) -> bool {
        Rule::targets_number(self)
    }
    fn dated_at_action(&self) -> bool {
        Rule::dated_at_action(self)
    }
    fn skips(&self) -> bool {
        Rule::output_type(self).observed() != Observed::Repository
    }
    fn not_observable(&self, row_id: &str) -> Option<&'static str> {
        let at = <R::Row as RowId>::ROWS.iter().position(|r| r.id == row_id)?;
        Rule::not_observable(self, <R::Row as RowId>::ALL[at])
    }
    #[cfg(test)]
    fn row_names(&self) -> Vec<String> {
        <R::Row as RowId>::ALL.iter().map(|r| format!("{r:?}")).collect()
    }
}

/// Build the verdict of a row of type `ty`.
pub fn verdict(ty: &'static str, r: &'static RowSpec) -> Verdict {
    Verdict {
        status: r.status,
        strength: r.strength,
        signal: r.signal,
        rule_id: std::borrow::Cow::Borrowed(rule_id(ty, r)),
        confidence: Confidence::High,
        target_resolved: false,
        notes: Vec::new(),
        details: Default::default(),
        decided_at: None,
        decided_by: None,
        row: r,
        partial_score: None,
        visible_non_bot_actors: 0,
        bot_actors: 0,
    }
}

/// `<type>/<row>`, spelled once per row for the whole run: a verdict names its row without
/// a string of its own (five million verdicts at a million outputs). Each thread keeps the
/// names it has met, keyed by where the type's name and the row live; a name is made (and
/// kept for good) once, under a lock, whichever thread meets it first.
fn rule_id(ty: &'static str, r: &'static RowSpec) -> &'static str {
    use std::cell::RefCell;
    use std::collections::{BTreeMap, HashMap};
    type Place = (usize, usize, usize);
    thread_local! {
        static MET: RefCell<HashMap<Place, &'static str, foldhash::fast::FixedState>> = RefCell::default();
    }
    static NAMES: std::sync::Mutex<BTreeMap<(&'static str, &'static str), &'static str>> = std::sync::Mutex::new(BTreeMap::new());
    let place = (ty.as_ptr() as usize, ty.len(), r as *const RowSpec as usize);
    MET.with(|met| {
        if let Some(name) = met.borrow().get(&place) {
            return *name;
        }
        let mut names = NAMES.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let name: &'static str = names.entry((ty, r.id)).or_insert_with(|| Box::leak(format!("{ty}/{}", r.id).into_boxed_str()));
        met.borrow_mut().insert(place, name);
        name
    })
}

rows! {
    /// Rows every type shares: missing data and unobservable windows.
    pub enum Common {
        MissingReference => RowSpec {
            id: "missing_reference",
            when: "The record names no target (no number, URL or temporary id)",
            status: Status::Unknown,
            strength: EvidenceStrength::None,
            signal: "missing_reference",
            seed: "Required target object or audit data could not be fetched",
            policy: None,
            decision: D::State,
        },
        TargetNotCaptured => RowSpec {
            id: "target_not_captured",
            when: "The target is not in the snapshot",
            status: Status::Unknown,
            strength: EvidenceStrength::None,
            signal: "target_not_captured",
            seed: "Required target object or audit data could not be fetched",
            policy: None,
            decision: D::State,
        },
        CaptureFailed => RowSpec {
            id: "capture_failed",
            when: "The capture of the target, or of history the rule needs, failed (non-2xx other than 404/410)",
            status: Status::Unknown,
            strength: EvidenceStrength::None,
            signal: "capture_failed",
            seed: "Required target object or audit data could not be fetched",
            policy: None,
            decision: D::State,
        },
        TargetDeleted => RowSpec {
            id: "target_deleted",
            when: "The target answered 404/410 at capture",
            status: Status::Unknown,
            strength: EvidenceStrength::None,
            signal: "target_deleted",
            seed: "Deleted or inaccessible: unknown or rejected, depending audit availability",
            policy: Some("deleted_target"),
            decision: D::Gone,
        },
        HistoryMissing => RowSpec {
            id: "history_missing",
            when: "The window ends before capture but the timestamped history needed to rebuild the state as of its end was not captured",
            status: Status::Unknown,
            strength: EvidenceStrength::None,
            signal: "history_missing",
            seed: "",
            policy: None,
            decision: D::State,
        },
        InconsistentState => RowSpec {
            id: "inconsistent_state",
            when: "The captured body contradicts itself (open but merged or closed; a decision dated at or before the action)",
            status: Status::Unknown,
            strength: EvidenceStrength::None,
            signal: "inconsistent_state",
            seed: "",
            policy: None,
            decision: D::State,
        },
        WindowNotObservable => RowSpec {
            id: "window_not_observable",
            when: "The window ends after the snapshot was captured",
            status: Status::Unknown,
            strength: EvidenceStrength::None,
            signal: "window_not_yet_observable",
            seed: "",
            policy: None,
            decision: D::State,
        },
        ActionTimeMissing => RowSpec {
            id: "action_time_missing",
            when: "The action's time is not recorded, so T+W cannot be placed",
            status: Status::Unknown,
            strength: EvidenceStrength::None,
            signal: "action_time_missing",
            seed: "",
            policy: None,
            decision: D::State,
        },
        MissingExecutionState => RowSpec {
            id: "missing_execution_state",
            when: "The execution-time metadata the rule compares against (labels added, commit SHAs, ...) was not recorded",
            status: Status::Unknown,
            strength: EvidenceStrength::None,
            signal: "missing_execution_state",
            seed: "No way to compare before and after",
            policy: None,
            decision: D::State,
        },
        NoTypeSpecificEvaluator => RowSpec {
            id: "no_type_specific_evaluator",
            when: "No rule exists for this safe-output type",
            status: Status::Unknown,
            strength: EvidenceStrength::None,
            signal: "no_type_specific_evaluator",
            seed: "evaluator is None -> unknown(no_type_specific_evaluator)",
            policy: None,
            decision: D::State,
        },
        NotExecuted => RowSpec {
            id: "not_executed",
            when: "Requested but not carried out (an error, a rejected request)",
            status: Status::Skipped,
            strength: EvidenceStrength::None,
            signal: "not_executed",
            seed: "",
            policy: None,
            decision: D::State,
        },
        Staged => RowSpec {
            id: "staged",
            when: "Requested in staged mode: previewed, never applied",
            status: Status::Skipped,
            strength: EvidenceStrength::None,
            signal: "staged_not_applied",
            seed: "",
            policy: None,
            decision: D::State,
        },
        RunCancelled => RowSpec {
            id: "run_cancelled",
            when: "Requested in a run GitHub recorded as cancelled (`run.json`), which kept no record of executed items",
            status: Status::Skipped,
            strength: EvidenceStrength::None,
            signal: "run_cancelled",
            seed: "noop, missing_tool, or cancelled outputs: skipped",
            policy: None,
            decision: D::State,
        },
        ExecutionUnrecorded => RowSpec {
            id: "execution_unrecorded",
            when: "Requested in a run that kept no record of executed items",
            status: Status::Unknown,
            strength: EvidenceStrength::None,
            signal: "execution_unrecorded",
            seed: "",
            policy: None,
            decision: D::State,
        },
    }
}

/// The verdict of a row every type shares.
pub fn common(row: Common) -> Verdict {
    verdict("common", row.spec())
}

/// A verdict that rests on an observation without a time (a 404 at capture, a label
/// missing at capture, a field's final value): it settles the `snapshot` window only. A
/// timed window cannot borrow it; there the answer is `history_missing`, saying why.
pub(crate) fn undated(case: &Case, v: Verdict, what: &str) -> Verdict {
    if case.window.is_snapshot() {
        return v;
    }
    common(Common::HistoryMissing).resolved(v.target_resolved).note(format!("{what} at capture, and no history says when; only the snapshot window can use it"))
}

/// Deleted target, under the `deleted_target` policy (snapshot window only: a 404 carries
/// no time).
pub(crate) fn deleted(case: &Case, status: u16) -> Verdict {
    if !case.window.is_snapshot() {
        return undated(case, common(Common::TargetDeleted), &format!("the target answered {status}")).detail("http_status", status);
    }
    let mut v = common(Common::TargetDeleted).detail("http_status", status);
    v.status = case.policy.deleted_target.status();
    if v.status == Status::Rejected {
        v.strength = EvidenceStrength::Medium;
        v.notes.push("policy deleted_target=rejected: a target gone at capture counts as removed".into());
    }
    v
}
