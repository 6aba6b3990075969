//! One safe output in one window, with what the rules need to look at: target lookups and
//! where a time falls against the window. Activity after the action is gathered in
//! `activity.rs`, state rebuilt as of the window's end in `history.rs` (both are `Case`'s
//! methods, kept beside the types they build).

use serde_json::Value;

pub(crate) use super::activity::{Act, ActKind, Activity, ActivityCache};
use super::actors::Classifier;
pub(crate) use super::history::{Final, HistoryGap, Lifecycle};
use super::policy::Policy;
use super::repository::{RepositoryFacts, RevertMark};
use super::window::Window;
use crate::runs::SafeOutput;
use crate::snapshot::{Entry, SnapshotIndex};
use crate::time::Instant;

/// Why a path gave no capture to read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Missing {
    /// 404 or 410: gone at capture time.
    Gone(u16),
    /// Any other non-2xx: the capture failed; never evidence of anything.
    Failed(u16),
    NotCaptured,
}

/// The result of looking a path up in the snapshot: its JSON, or why there is none.
pub(crate) type Lookup<'a> = Result<&'a Value, Missing>;

/// What an output recorded, parsed on first use and shared by its windows: the payload and
/// the execution-time state (unparseable text reads as `null`, or as not recorded). Most
/// rules read none of it, so most outputs never parse it.
#[derive(Debug)]
pub(crate) struct Recorded<'o> {
    output: &'o SafeOutput<'o>,
    payload: std::cell::OnceCell<Value>,
    expected: std::cell::OnceCell<Value>,
    before: std::cell::OnceCell<Option<Value>>,
    after: std::cell::OnceCell<Option<Value>>,
}

impl<'o> Recorded<'o> {
    pub(crate) fn of(o: &'o SafeOutput<'o>) -> Self {
        Recorded { output: o, payload: Default::default(), expected: Default::default(), before: Default::default(), after: Default::default() }
    }
    pub(crate) fn payload(&self) -> &Value {
        self.payload.get_or_init(|| serde_json::from_str(&self.output.payload).unwrap_or_default())
    }
    pub(crate) fn expected(&self) -> &Value {
        self.expected.get_or_init(|| self.output.expected())
    }
    pub(crate) fn before(&self) -> &Option<Value> {
        self.before.get_or_init(|| self.output.before())
    }
    pub(crate) fn after(&self) -> &Option<Value> {
        self.after.get_or_init(|| self.output.after())
    }
}

pub struct Case<'a> {
    pub(crate) output: &'a SafeOutput<'a>,
    pub(crate) recorded: &'a Recorded<'a>,
    pub window: Window,
    pub index: &'a SnapshotIndex,
    pub policy: &'a Policy,
    pub captured_at: Instant,
    /// When the action happened, if known.
    pub(crate) t0: Option<Instant>,
    /// The end of the window: T+W, or `captured_at` for the snapshot window.
    pub(crate) as_of: Instant,
    pub(crate) actors: Classifier,
    /// Shared by the windows of one output.
    pub(crate) cache: &'a OutputCache,
    /// What is derived once from each repository of `index`, shared by every output
    /// judged against it.
    pub(crate) repository: &'a RepositoryFacts,
}

/// What the windows of one output share, found on first use: the activity gathered on its
/// target, and whether the target's repository was captured as gone.
#[derive(Default)]
pub(crate) struct OutputCache {
    pub(super) activity: ActivityCache,
    /// The status of `repos/{repo}` when it answered 404/410; asked of every path not
    /// captured (most paths asked for, such as a list nobody added to), in every window.
    repo_gone: std::cell::OnceCell<Option<u16>>,
}

/// The one test of "inside the window" (T, as_of]: strictly after the action (any time,
/// when the action's time is unknown), at or before the window's end.
pub(super) fn inside_window(t0: Option<Instant>, as_of: Instant, at: Option<Instant>) -> bool {
    at.is_some_and(|t| t0.is_none_or(|t0| t > t0) && t <= as_of)
}

impl<'a> Case<'a> {
    /// The same case with the author of the object the output created classified: an
    /// account GitHub marks as a person's (`type: User`, no bot's login) is the requester's
    /// (the agent opened it as them), unless the policy counts the requester's acts as the
    /// workflow's; any other author (a bot, an app, an account of no recorded type) is the
    /// workflow's own identity.
    pub(crate) fn with_author(&self, author: &crate::snapshot::github::Actor) -> Case<'a> {
        let mut actors = self.actors.clone();
        if let Some(l) = author.login.as_deref() {
            let person = author.kind.as_deref() == Some("User") && !super::actors::is_automation(author);
            actors.add_acting_as(l, person, self.policy.requester_acts);
        }
        self.with_actors(actors)
    }

    fn with_actors(&self, actors: super::actors::Classifier) -> Case<'a> {
        Case {
            output: self.output,
            recorded: self.recorded,
            window: self.window,
            index: self.index,
            policy: self.policy,
            captured_at: self.captured_at,
            t0: self.t0,
            as_of: self.as_of,
            actors,
            cache: self.cache,
            repository: self.repository,
        }
    }

    pub(crate) fn repo(&self) -> Option<&str> {
        self.output.target_repo.as_deref()
    }

    /// The revert marks of the target's repository (`None` when it has none, or the output
    /// names no repository).
    pub(crate) fn revert_marks(&self) -> Option<&'a [RevertMark]> {
        self.repository.reverts(self.index, self.repo()?)
    }

    /// A path of the target's repository. One not captured in a repository that itself
    /// answered 404/410 (deleted, or private to the capture) is gone with it.
    pub(crate) fn lookup(&self, tail: &str) -> Lookup<'a> {
        Self::to_lookup(self.lookup_entry(tail))
    }

    /// `lookup`, answering with the entry itself when it was found, so that a reader can
    /// take a typed view of it (`Entry::pull`, `Entry::events`, ...) instead of its `Value`.
    pub(crate) fn lookup_entry(&self, tail: &str) -> Result<&'a Entry, Missing> {
        thread_local! {
            // One path buffer per thread: an output's lookups are many, each a path to build.
            static PATH: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
        }
        let Some(repo) = self.repo() else { return Err(Missing::NotCaptured) };
        PATH.with_borrow_mut(|path| {
            path.clear();
            crate::snapshot::paths::push_rest(path, repo, tail);
            // The repository's own path: `repos/{repo}`, before `/{tail}`.
            let own = path.len() - tail.len() - 1;
            match self.entry_at(path) {
                Err(Missing::NotCaptured) => match self.cache.repo_gone.get_or_init(|| self.index.get(&path[..own]).filter(|e| e.gone()).map(|e| e.status)) {
                    Some(status) => Err(Missing::Gone(*status)),
                    None => Err(Missing::NotCaptured),
                },
                found => found,
            }
        })
    }

    /// A GraphQL capture of this repository: `graphql/repos/OWNER/REPO/<tail>`.
    pub(crate) fn graphql(&self, tail: &str) -> Lookup<'a> {
        let Some(repo) = self.repo() else { return Err(Missing::NotCaptured) };
        self.lookup_path(&format!("graphql/repos/{repo}/{tail}"))
    }

    /// Any captured path.
    pub(crate) fn lookup_path(&self, path: &str) -> Lookup<'a> {
        Self::to_lookup(self.entry_at(path))
    }

    fn entry_at(&self, path: &str) -> Result<&'a Entry, Missing> {
        match self.index.get(path) {
            None => Err(Missing::NotCaptured),
            Some(e) if e.ok() => Ok(e),
            Some(e) if e.gone() => Err(Missing::Gone(e.status)),
            Some(e) => Err(Missing::Failed(e.status)),
        }
    }

    /// A found entry's JSON.
    fn to_lookup(entry: Result<&'a Entry, Missing>) -> Lookup<'a> {
        entry.map(Entry::body)
    }

    /// Whether `at` falls inside the window; an undated moment does not.
    pub(crate) fn is_inside(&self, at: Option<Instant>) -> bool {
        inside_window(self.t0, self.as_of, at)
    }

    /// Hours from the action to the window's end; `None` when the action time is unknown.
    pub(crate) fn elapsed_hours(&self) -> Option<f64> {
        self.t0.map(|t0| crate::time::hours_between(&t0, &self.as_of))
    }

    /// Long enough without a response to call it ignored (policy `ignore_after_hours`).
    pub(crate) fn long_enough(&self) -> bool {
        self.elapsed_hours().is_some_and(|h| h >= self.policy.ignore_after_hours as f64)
    }
}
