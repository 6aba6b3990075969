//! The promises every rule keeps, enforced here once for all of them (docs/SPEC.md
//! [SPEC-PROMISES]; docs/EVIDENCE.md, "Promises every rule keeps"). A rule says what
//! decided its verdict (who acted, or a 404: [`Decider`]); its row says what kind of thing
//! decides it ([`Decision`]). The judge passes every verdict through [`keep`], which caps
//! it:
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
fn decider(v: &Verdict) -> Option<Decider> {
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

#[cfg(test)]
mod tests {
    //! Every promise, for every row of every rule that an act or a 404 decides, through the
    //! real judge: a rule added later is covered without a test of its own.

    use super::*;
    use crate::evaluate::rule::{verdict, Evaluator, RowSpec};
    use crate::evaluate::{rules, Evaluation, Policy, Window};
    use crate::snapshot::github::Actor;
    use crate::time::Instant;

    /// Who did the act a row's verdict rests on, in the one-output study.
    #[derive(Clone, Copy, Debug, PartialEq)]
    enum Who {
        /// The identity the output was written as: the workflow's own.
        Workflow,
        Bot,
        /// A login nobody stands behind (GitHub's `ghost`).
        Unknown,
        /// The rule names nobody although the row is decided by an act.
        Undeclared,
        /// A 404 at capture, with no time.
        Gone,
        Person,
    }
    const EVERY: &[Who] = &[Who::Workflow, Who::Bot, Who::Unknown, Who::Undeclared, Who::Gone, Who::Person];
    const WORKFLOW: &str = "agent-app[bot]";

    /// A rule that answers with one row of a real rule, decided by `who`.
    struct Scripted {
        rule: &'static dyn Evaluator,
        row: &'static RowSpec,
        who: Who,
    }

    impl Evaluator for Scripted {
        fn output_type(&self) -> crate::runs::output_type::OutputType {
            self.rule.output_type()
        }
        fn human_check(&self) -> &'static str {
            self.rule.human_check()
        }
        fn rows(&self) -> &'static [RowSpec] {
            self.rule.rows()
        }
        fn action_time(&self, case: &Case) -> Option<Instant> {
            case.output.created_at
        }
        fn evaluate(&self, case: &Case) -> Verdict {
            let v = verdict(self.rule.output_type().name(), self.row);
            let at = case.output.created_at.map(|t| t + chrono::Duration::minutes(30));
            let login = |l: &str, kind: &str| Actor { login: Some(l.into()), kind: Some(crate::snapshot::github::actor_kind(kind)) };
            match self.who {
                Who::Workflow => v.by_actor(case, &login(WORKFLOW, "Bot"), at),
                Who::Bot => v.by_actor(case, &login("stale[bot]", "Bot"), at),
                Who::Unknown => v.by_actor(case, &login("ghost", "User"), at),
                Who::Undeclared => v,
                Who::Gone => v.by(Decider::Gone(404)),
                Who::Person => v.by_actor(case, &login("maintainer", "User"), at),
            }
        }
        fn targets_number(&self) -> bool {
            false
        }
        fn dated_at_action(&self) -> bool {
            true
        }
        fn skips(&self) -> bool {
            false
        }
        fn not_observable(&self, row_id: &str) -> Option<&'static str> {
            self.rule.not_observable(row_id)
        }
        fn row_names(&self) -> Vec<String> {
            self.rule.row_names()
        }
    }

    fn output() -> crate::runs::SafeOutput<'static> {
        let ctx = crate::runs::item::RunContext {
            run_id: "1".into(),
            workflow_name: Some("promises".into()),
            repository: Some("acme/repo".into()),
            actor: None,
            staged: false,
            temp_ids: Default::default(),
        };
        let item = serde_json::json!({"type": "add_labels", "number": 1, "actor": WORKFLOW, "timestamp": "2026-01-01T00:00:00Z"});
        crate::runs::item::from_record(&ctx, &item, 0, crate::runs::item::Format::GhAw, "promises.jsonl", 1).expect("the study's one output")
    }

    fn strong_or_medium(v: &Verdict) -> bool {
        decisive(v) && v.strength < EvidenceStrength::Weak
    }

    #[test]
    fn every_rule_keeps_every_promise_for_every_row() {
        let index = crate::snapshot::SnapshotIndex::build(Vec::<(String, i64, u16, Option<Instant>, String)>::new());
        let captured_at = crate::time::parse("2026-02-01T00:00:00Z").expect("time");
        let policy = Policy::default();
        let windows = [Window::ONE_HOUR, Window::ONE_DAY, Window::Snapshot];
        let ev = Evaluation::new(&index, captured_at, &policy, &windows);
        let o = output();
        let mut broken = Vec::new();
        let mut checked = 0;
        for rule in rules::all().iter().copied() {
            for row in rule.rows().iter().filter(|r| r.decision != Decision::State) {
                for &who in EVERY {
                    for &w in &windows {
                        let v = ev.judge_by(&o, &Scripted { rule, row, who }, w);
                        checked += 1;
                        let id = format!("{}/{} by {who:?} [{w}]", rule.output_type(), row.id);
                        let acted = matches!(row.decision, Decision::Act | Decision::PersonAct);
                        let wrong = match who {
                            // (a) never strong or medium acceptance or rejection.
                            Who::Workflow if acted => strong_or_medium(&v).then_some("the workflow's own act decided it"),
                            // (c) at most medium.
                            Who::Unknown | Who::Undeclared if acted => {
                                (decisive(&v) && v.strength == EvidenceStrength::Strong).then_some("an act nobody is named for is strong")
                            }
                            // (d) a person's row needs a person.
                            Who::Bot if row.decision == Decision::PersonAct => strong_or_medium(&v).then_some("a bot's act stands for a person's"),
                            // (b) a 404 settles the snapshot window only, and names nobody.
                            Who::Gone if !w.is_snapshot() => (v.status != Status::Unknown).then_some("an undated 404 decided a timed window"),
                            Who::Gone => (decisive(&v) && v.strength == EvidenceStrength::Strong).then_some("a 404 decided strongly"),
                            // A person's act keeps the row as it is.
                            Who::Person if acted => (v.status != row.status || v.strength != row.strength).then_some("a person's act was capped"),
                            _ => None,
                        };
                        if let Some(why) = wrong {
                            broken.push(format!("{id}: {why}: {}/{} ({})", v.status.as_str(), v.strength.as_str(), v.rule_id));
                        }
                    }
                }
            }
        }
        assert!(checked > 1000, "only {checked} verdicts checked");
        assert!(broken.is_empty(), "{} promise(s) broken:\n{}", broken.len(), broken.join("\n"));
    }

    /// Every row that takes a side names what decides it, and the catalogue lists the
    /// promises that follow.
    #[test]
    fn rows_that_take_a_side_name_what_decides_them() {
        for rule in rules::all() {
            for r in rule.rows() {
                let side = matches!(r.status, Status::Accepted | Status::Rejected) && r.strength != EvidenceStrength::None;
                if r.decision != Decision::State {
                    assert!(side || r.decision == Decision::Gone, "{}/{}: decided by an act but takes no side", rule.output_type(), r.id);
                }
            }
        }
        assert_eq!(Decision::PersonAct.promises().len(), Promise::ALL.len());
    }
}
