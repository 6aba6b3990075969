//! The vocabulary of an evaluation: status, evidence strength, confidence, and the verdict
//! a rule returns for one safe output in one window.

use serde_json::Value;

use crate::time::Instant;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Status {
    Accepted,
    Rejected,
    Pending,
    Ignored,
    Skipped,
    Unknown,
}

impl Status {
    pub fn as_str(&self) -> &'static str {
        match self {
            Status::Accepted => "accepted",
            Status::Rejected => "rejected",
            Status::Pending => "pending",
            Status::Ignored => "ignored",
            Status::Skipped => "skipped",
            Status::Unknown => "unknown",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum EvidenceStrength {
    Strong,
    Medium,
    Weak,
    None,
}

impl EvidenceStrength {
    pub fn as_str(&self) -> &'static str {
        match self {
            EvidenceStrength::Strong => "strong",
            EvidenceStrength::Medium => "medium",
            EvidenceStrength::Weak => "weak",
            EvidenceStrength::None => "none",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Confidence {
    High,
    Medium,
    Low,
}

impl Confidence {
    pub fn as_str(&self) -> &'static str {
        match self {
            Confidence::High => "high",
            Confidence::Medium => "medium",
            Confidence::Low => "low",
        }
    }
}

/// A verdict's details: a map from names written in the rules to JSON values, in key
/// order, as a `BTreeMap` keeps them (and serializes them: as one JSON object). Held as a
/// sorted vector: a verdict has a few details, built and dropped for every output and
/// window, and a B-tree's node is a larger allocation to fill, walk and free.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Details(Vec<(&'static str, Value)>);

impl Details {
    /// Set `k` to `v`, replacing a value it had.
    pub(crate) fn insert(&mut self, k: &'static str, v: Value) {
        match self.0.binary_search_by(|(x, _)| (*x).cmp(k)) {
            Ok(i) => self.0[i].1 = v,
            Err(i) => self.0.insert(i, (k, v)),
        }
    }

    pub fn get(&self, k: &str) -> Option<&Value> {
        self.0.binary_search_by(|(x, _)| (*x).cmp(k)).ok().map(|i| &self.0[i].1)
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl serde::Serialize for Details {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.0.iter().map(|(k, v)| (k, v)))
    }
}

/// What a rule concluded.
#[derive(Clone, Debug)]
pub struct Verdict {
    pub status: Status,
    pub strength: EvidenceStrength,
    /// The concrete thing a person would check (`pull_request_merged`, ...).
    pub signal: &'static str,
    /// `<type>/<row>`: the rule row (and so the row of docs/SPEC.md) that decided.
    pub rule_id: std::borrow::Cow<'static, str>,
    pub confidence: Confidence,
    pub target_resolved: bool,
    pub notes: Vec<String>,
    /// Keyed by names written in the rules (serialized in key order, as a JSON object).
    pub details: Details,
    /// When the deciding event happened, for time to outcome.
    pub decided_at: Option<Instant>,
    /// What the rule looked at to decide (who acted, or a 404): the judge holds the
    /// verdict to the promises of its row ([`crate::evaluate::promises`]).
    pub(crate) decided_by: Option<Decider>,
    /// The row that decided: its [`Decision`](crate::evaluate::rule::Decision) says which
    /// promises apply.
    pub(crate) row: &'static crate::evaluate::rule::RowSpec,
    /// Share of the intended change that stuck, for partial outcomes.
    pub partial_score: Option<f64>,
    pub visible_non_bot_actors: usize,
    pub bot_actors: usize,
}

/// What decided a verdict, as its rule saw it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Decider {
    /// An act by an actor of this class (`Unknown`: who acted was not captured).
    Act(crate::evaluate::actors::ActorClass),
    /// A 404/410 at capture: gone then, not known since when.
    Gone(u16),
}

impl Verdict {
    /// Decided by `d` (see [`Decider`]).
    pub(crate) fn by(mut self, d: Decider) -> Self {
        self.decided_by = Some(d);
        self
    }
    /// Decided by an act of `actor` at `at`, classified as the case classifies actors
    /// (a requester's act up to the run's last output is the workflow's).
    pub(crate) fn by_actor(self, case: &crate::evaluate::case::Case, actor: &crate::snapshot::github::Actor, at: Option<Instant>) -> Self {
        self.by(Decider::Act(case.actors.classify_at(actor, at)))
    }
    /// Decided by `act` (gathered from the target's activity), at its time.
    pub(crate) fn acted(self, act: &crate::evaluate::case::Act) -> Self {
        self.at(act.at).by(Decider::Act(act.class))
    }
    /// Decided by a timeline or issue event: its actor, at its time.
    pub(crate) fn event_by(self, case: &crate::evaluate::case::Case, e: &crate::snapshot::github::Event) -> Self {
        self.at(e.created_at).by_actor(case, &e.actor, e.created_at)
    }
    /// Decided by the merge of a lifecycle: its merger, at its time.
    pub(crate) fn merged_by(self, case: &crate::evaluate::case::Case, lc: &crate::evaluate::case::Lifecycle) -> Self {
        self.at(lc.merged_at).by_actor(case, &lc.merger, lc.merged_at)
    }
    /// Decided by the close of a lifecycle: its closer, at its time.
    pub(crate) fn closed_by(self, case: &crate::evaluate::case::Case, lc: &crate::evaluate::case::Lifecycle) -> Self {
        self.at(lc.closed_at).by_actor(case, &lc.closer, lc.closed_at)
    }
    pub(crate) fn note(mut self, n: impl Into<String>) -> Self {
        self.notes.push(n.into());
        self
    }
    pub(crate) fn detail(mut self, k: &'static str, v: impl Into<Value>) -> Self {
        self.details.insert(k, v.into());
        self
    }
    pub(crate) fn at(mut self, t: Option<Instant>) -> Self {
        self.decided_at = t;
        self
    }
    pub(crate) fn resolved(mut self, r: bool) -> Self {
        self.target_resolved = r;
        self
    }
    pub(crate) fn confidence(mut self, c: Confidence) -> Self {
        self.confidence = c;
        self
    }
    pub(crate) fn strength(mut self, s: EvidenceStrength) -> Self {
        self.strength = s;
        self
    }
    pub(crate) fn status(mut self, s: Status) -> Self {
        self.status = s;
        self
    }
    pub(crate) fn partial(mut self, score: f64) -> Self {
        self.partial_score = Some(score);
        self
    }
    pub(crate) fn actors(mut self, non_bot: usize, bots: usize) -> Self {
        self.visible_non_bot_actors = non_bot;
        self.bot_actors = bots;
        self
    }
}
