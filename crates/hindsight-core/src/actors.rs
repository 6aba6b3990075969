//! Visible actor categories (docs/SPEC.md [SPEC-ACTORS]). Visible identity is not
//! provenance: a non-bot login may still be AI-assisted, so this is "visible non-bot", not
//! "human".

use std::collections::BTreeSet;

use crate::snapshot::github::Actor;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ActorClass {
    /// The identity the workflow acted as, or the run's triggering actor (policy).
    SameWorkflow,
    /// The person the agent worked for: the person's account an agent opened its PR or
    /// issue under (AIDev's Codex, Claude Code and Cursor PRs; a gh-aw run with a person's
    /// token), after the agent's own acts. What they do with the agent's work is a person's
    /// decision (policy `requester_acts`).
    Requester,
    /// GitHub itself (`github`, `web-flow`) or an organization.
    System,
    Bot,
    VisibleNonBot,
    /// No login visible, or one that names nobody: `ghost` (GitHub's placeholder for a
    /// deleted account) and mannequins (placeholders for imported, unclaimed authors).
    Unknown,
}

impl ActorClass {
    pub fn as_str(&self) -> &'static str {
        match self {
            ActorClass::SameWorkflow => "same_workflow_actor",
            ActorClass::Requester => "requester_actor",
            ActorClass::System => "system_actor",
            ActorClass::Bot => "bot_actor",
            ActorClass::VisibleNonBot => "visible_non_bot_actor",
            ActorClass::Unknown => "unknown_actor",
        }
    }

    /// A visible person: someone other than the workflow, a bot or GitHub, the requester
    /// included.
    pub fn is_person(&self) -> bool {
        matches!(self, ActorClass::VisibleNonBot | ActorClass::Requester)
    }
}

pub use crate::snapshot::github::is_bot_login;

/// Whether an account is an automation identity: GitHub's type `Bot`, or a bot's login.
pub fn is_automation(a: &Actor) -> bool {
    a.kind.as_deref() == Some("Bot") || a.login.as_deref().is_some_and(is_bot_login)
}

const SYSTEM_LOGINS: &[&str] = &["github", "web-flow"];
/// Logins that stand for an account that no longer exists or never signed in: whoever
/// acted is not visible.
const PLACEHOLDER_LOGINS: &[&str] = &["ghost"];
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Classifier {
    workflow: BTreeSet<String>,
    requesters: BTreeSet<String>,
    /// Acts of a requester's account at or before this instant are the workflow's (a run
    /// made with the person's token acts as them until its last output).
    requester_from: Option<crate::time::Instant>,
}

/// How a requester's acts count, as the policy file says (`requester_acts`): as a person's,
/// as weak evidence, or as the workflow's own.
#[derive(Clone, Copy, Debug, Default, serde::Serialize, serde::Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum RequesterActs {
    #[default]
    Person,
    Weak,
    Workflow,
}

impl Classifier {
    #[cfg(test)]
    pub(crate) fn new<I: IntoIterator<Item = String>>(workflow_logins: I) -> Self {
        Classifier { workflow: workflow_logins.into_iter().map(|l| l.to_lowercase()).collect(), ..Classifier::default() }
    }

    pub fn add_workflow(&mut self, login: &str) {
        self.workflow.insert(login.to_lowercase());
    }

    /// An identity the agent acted as (the one an output was written as, the author of what
    /// it created): a person's account (`person`) is the requester's, unless the policy
    /// counts the requester's acts as the workflow's; any other is the workflow's own.
    pub fn add_acting_as(&mut self, login: &str, person: bool, acts: RequesterActs) {
        if person && acts != RequesterActs::Workflow {
            self.add_requester(login);
        } else {
            self.add_workflow(login);
        }
    }

    /// `login` is the requester's: a person the agent worked for, whose acts after the
    /// agent's last act as them ([`Classifier::agent_acted_until`]) are theirs.
    pub(crate) fn add_requester(&mut self, login: &str) {
        self.requesters.insert(login.to_lowercase());
    }

    /// The agent's last act under a requester's account: their acts up to it are the
    /// workflow's.
    pub fn agent_acted_until(&mut self, t: Option<crate::time::Instant>) {
        self.requester_from = self.requester_from.max(t);
    }

    /// `classify`, for an act at `at`: a requester's act at or before the agent's last act
    /// under their account is the workflow's; one without a time is theirs.
    pub fn classify_at(&self, a: &Actor, at: Option<crate::time::Instant>) -> ActorClass {
        match self.classify(a) {
            ActorClass::Requester if at.is_some() && self.requester_from.is_some() && at <= self.requester_from => ActorClass::SameWorkflow,
            c => c,
        }
    }

    pub fn classify(&self, a: &Actor) -> ActorClass {
        let Some(login) = a.login.as_deref().filter(|l| !l.is_empty()) else {
            return ActorClass::Unknown;
        };
        // Every act of every output is classified: a login (ASCII, on GitHub) is lowercased
        // on the stack, not in a new string.
        let mut buf = [0u8; 64];
        match login.len() <= buf.len() && login.is_ascii() {
            true => {
                let l = &mut buf[..login.len()];
                l.copy_from_slice(login.as_bytes());
                l.make_ascii_lowercase();
                // ASCII lowercased is ASCII.
                self.classify_lowercase(std::str::from_utf8(l).unwrap_or(login), a)
            }
            false => self.classify_lowercase(&login.to_lowercase(), a),
        }
    }

    /// `classify` with the login lowercased (`l`).
    fn classify_lowercase(&self, l: &str, a: &Actor) -> ActorClass {
        if PLACEHOLDER_LOGINS.contains(&l) || a.kind.as_deref() == Some("Mannequin") {
            return ActorClass::Unknown;
        }
        if self.workflow.contains(l) {
            ActorClass::SameWorkflow
        } else if self.requesters.contains(l) {
            ActorClass::Requester
        } else if SYSTEM_LOGINS.contains(&l) || a.kind.as_deref() == Some("Organization") {
            ActorClass::System
        } else if a.kind.as_deref() == Some("Bot") || is_bot_login(l) {
            ActorClass::Bot
        } else {
            ActorClass::VisibleNonBot
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    fn a(login: &str, kind: Option<&str>) -> Actor {
        Actor { login: Some(login.into()), kind: kind.map(crate::snapshot::github::actor_kind) }
    }
    #[test]
    fn five_categories() {
        let c = Classifier::new(["github-actions[bot]".to_string(), "Trigger".to_string()]);
        assert_eq!(c.classify(&a("github-actions[bot]", Some("Bot"))), ActorClass::SameWorkflow);
        assert_eq!(c.classify(&a("trigger", None)), ActorClass::SameWorkflow);
        assert_eq!(c.classify(&a("web-flow", None)), ActorClass::System);
        assert_eq!(c.classify(&a("stale[bot]", None)), ActorClass::Bot);
        assert_eq!(c.classify(&a("some-app", Some("Bot"))), ActorClass::Bot);
        assert_eq!(c.classify(&a("alice", Some("User"))), ActorClass::VisibleNonBot);
        assert_eq!(c.classify(&Actor::default()), ActorClass::Unknown);
        assert_eq!(c.classify(&a("ghost", Some("User"))), ActorClass::Unknown);
        assert_eq!(c.classify(&a("old-author", Some("Mannequin"))), ActorClass::Unknown);
    }

    /// A requester is a person, unless the workflow acted as them: the workflow's own
    /// identity wins, and their acts up to the agent's last act are the workflow's.
    #[test]
    fn requesters_are_people_after_the_agent_acted_as_them() {
        let t = |h: i64| crate::time::parse("2026-01-01T00:00:00Z").map(|t| t + chrono::Duration::hours(h));
        let mut c = Classifier::new(["agent[bot]".to_string()]);
        c.add_requester("Alice");
        c.agent_acted_until(t(1));
        c.add_requester("agent[bot]");
        assert_eq!(c.classify(&a("alice", Some("User"))), ActorClass::Requester);
        assert!(ActorClass::Requester.is_person() && ActorClass::VisibleNonBot.is_person() && !ActorClass::Bot.is_person());
        assert_eq!(c.classify_at(&a("alice", None), t(0)), ActorClass::SameWorkflow);
        assert_eq!(c.classify_at(&a("alice", None), t(1)), ActorClass::SameWorkflow);
        assert_eq!(c.classify_at(&a("alice", None), t(2)), ActorClass::Requester);
        assert_eq!(c.classify_at(&a("alice", None), None), ActorClass::Requester);
        assert_eq!(c.classify(&a("agent[bot]", None)), ActorClass::SameWorkflow);
        assert_eq!(c.classify(&a("bob", None)), ActorClass::VisibleNonBot);
        assert!(is_automation(&a("Copilot", None)) && is_automation(&a("x", Some("Bot"))) && !is_automation(&a("alice", Some("User"))));
    }

    #[test]
    fn logins_compare_lowercased_on_and_off_the_stack() {
        let long = "X".repeat(70);
        let c = Classifier::new(["Ärger".to_string(), long.clone(), "Trigger".to_string()]);
        // ASCII within the stack buffer, non-ASCII, and longer than the buffer: one answer.
        assert_eq!(c.classify(&a("TRIGGER", None)), ActorClass::SameWorkflow);
        assert_eq!(c.classify(&a("äRGER", None)), ActorClass::SameWorkflow);
        assert_eq!(c.classify(&a(&long.to_lowercase(), None)), ActorClass::SameWorkflow);
        assert_eq!(c.classify(&a(&"y".repeat(70), None)), ActorClass::VisibleNonBot);
        assert_eq!(c.classify(&a("Web-Flow", None)), ActorClass::System);
        assert_eq!(c.classify(&a("Renovate", None)), ActorClass::Bot);
        assert_eq!(c.classify(&a("GHOST", None)), ActorClass::Unknown);
    }
}
