//! The promises every rule keeps, enforced here once for all of them (docs/EVIDENCE.md,
//! "Promises every rule keeps"). A rule says what decided its verdict (who acted, or a
//! 404: [`Decider`]); its row says what kind of thing decides it ([`Decision`]). The judge
//! passes every verdict through [`keep`], which caps it:
//!
//! - an act by the workflow's own identity (or by its requester up to the run's last
//!   output) is never strong or medium acceptance or rejection: `ignored`/weak, or counted
//!   at weak strength under policy `own_act_counts`;
//! - an act whose actor was not captured is at most medium (policy
//!   `unattributed_full_strength` lifts the cap); a row decided by an act whose rule names
//!   no actor is such an act;
//! - a row that says "by a person" holds only for a person: a bot's or GitHub's act there
//!   is no one's decision (`ignored`/weak);
//! - a 404/410 carries no time: it settles the `snapshot` window only (`history_missing`
//!   in a timed one); nor does it say who removed the object, so there it is at most
//!   medium too.

use super::actors::ActorClass;
use super::case::Case;
use super::outcome::{Decider, EvidenceStrength, Status, Verdict};
use super::rule::{Decision, Promise};

/// Whether the verdict takes a side: the promises bound acceptance and rejection only.
fn decisive(v: &Verdict) -> bool {
    matches!(v.status, Status::Accepted | Status::Rejected)
}

/// What decided `v`: what its rule declared, or what its row implies when the rule
/// declared nothing (a row decided by a 404 is a 404; one decided by an act, an act by
/// someone not captured).
pub(crate) fn decider(v: &Verdict) -> Option<Decider> {
    if v.decided_by.is_some() {
        return v.decided_by;
    }
    match v.row.decision {
        Decision::Gone => Some(Decider::Gone(v.details.get("http_status").and_then(|s| s.as_u64()).and_then(|s| u16::try_from(s).ok()).unwrap_or(404))),
        Decision::Act | Decision::PersonAct if decisive(v) => Some(Decider::Act(ActorClass::Unknown)),
        _ => None,
    }
}

/// `v` held to every promise that applies to it.
pub(crate) fn keep(case: &Case, v: Verdict) -> Verdict {
    let Some(d) = decider(&v) else { return v };
    let promise = match d {
        Decider::Gone(_) if !case.window.is_snapshot() && v.status != Status::Unknown => Promise::UndatedGone,
        // Who removed it is not captured either.
        Decider::Gone(_) if decisive(&v) && v.strength == EvidenceStrength::Strong && v.details.get("actor_captured").is_none() => Promise::Unattributed,
        Decider::Act(ActorClass::SameWorkflow) if decisive(&v) && v.strength < EvidenceStrength::Weak && v.details.get("acted_by_workflow").is_none() => {
            Promise::OwnAct
        }
        Decider::Act(ActorClass::Unknown) if decisive(&v) && v.details.get("actor_captured").is_none() => Promise::Unattributed,
        Decider::Act(ActorClass::Bot | ActorClass::System) if decisive(&v) && v.row.decision == Decision::PersonAct => Promise::ByPerson,
        Decider::Act(ActorClass::Requester) if decisive(&v) && v.details.get("acted_by_requester").is_none() => {
            return super::rules::requester_act(case, v);
        }
        _ => return v,
    };
    let v = apply(case, promise, v, d);
    v.detail("promise_applied", promise.name())
}

fn apply(case: &Case, promise: Promise, v: Verdict, d: Decider) -> Verdict {
    match promise {
        Promise::UndatedGone => {
            let status = match d {
                Decider::Gone(s) => s,
                Decider::Act(_) => 404,
            };
            super::undated(case, v, &format!("the object answered {status}")).detail("http_status", status)
        }
        Promise::OwnAct => {
            let by_workflow = v.clone().status(Status::Ignored).strength(EvidenceStrength::Weak).note("done by the workflow's own identity: not a response from the repository");
            super::rules::own_act(case, v, by_workflow)
        }
        Promise::Unattributed => super::rules::unattributed(case, v, "who did the deciding act was not captured"),
        Promise::ByPerson => v
            .status(Status::Ignored)
            .strength(EvidenceStrength::Weak)
            .note("done by a bot or by GitHub: the row needs a person's act, and no person decided")
            .detail("acted_by_person", false),
    }
}
