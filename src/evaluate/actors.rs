//! Seed 000 §6: visible actor categories. Visible identity is not provenance: a non-bot
//! login may still be AI-assisted, so this is "visible non-bot", not "human".

use std::collections::BTreeSet;

use crate::snapshot::github::Actor;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ActorClass {
    /// The identity the workflow acted as, or the run's triggering actor (policy).
    SameWorkflow,
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
            ActorClass::System => "system_actor",
            ActorClass::Bot => "bot_actor",
            ActorClass::VisibleNonBot => "visible_non_bot_actor",
            ActorClass::Unknown => "unknown_actor",
        }
    }
}

const SYSTEM_LOGINS: &[&str] = &["github", "web-flow"];
/// Logins that stand for an account that no longer exists or never signed in: whoever
/// acted is not visible.
const PLACEHOLDER_LOGINS: &[&str] = &["ghost"];
/// Agent and automation accounts GitHub does not mark `[bot]` in every response.
const KNOWN_BOTS: &[&str] = &["copilot", "copilot-swe-agent", "github-actions", "dependabot", "renovate"];

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Classifier {
    workflow: BTreeSet<String>,
}

impl Classifier {
    pub fn new<I: IntoIterator<Item = String>>(workflow_logins: I) -> Self {
        Classifier { workflow: workflow_logins.into_iter().map(|l| l.to_lowercase()).collect() }
    }

    pub fn add_workflow(&mut self, login: &str) {
        self.workflow.insert(login.to_lowercase());
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
        } else if SYSTEM_LOGINS.contains(&l) || a.kind.as_deref() == Some("Organization") {
            ActorClass::System
        } else if a.kind.as_deref() == Some("Bot") || l.ends_with("[bot]") || KNOWN_BOTS.contains(&l) {
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
