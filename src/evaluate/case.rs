//! One safe output in one window, with what the rules need to look at: target lookups,
//! activity after the action, and state rebuilt as of the window's end.

use serde_json::Value;

use super::actors::{ActorClass, Classifier};
use super::policy::Policy;
use super::rules::shared::durability::RevertMarks;
use super::window::Window;
use crate::runs::SafeOutput;
use crate::snapshot::github::{Actor, Comment, Event};
use crate::snapshot::{Entry, SnapshotIndex};
use crate::time::Instant;

/// The result of looking a path up in the snapshot.
#[derive(Clone, Copy, Debug)]
pub enum Lookup<'a> {
    Found(&'a Value),
    /// 404 or 410: gone at capture time.
    Gone(u16),
    /// Any other non-2xx: the capture failed; never evidence of anything.
    Failed(u16),
    NotCaptured,
}

impl<'a> Lookup<'a> {
    pub fn found(&self) -> Option<&'a Value> {
        match self {
            Lookup::Found(v) => Some(v),
            _ => None,
        }
    }
}

/// Activity already gathered for one output, shared by its windows: keyed by target number,
/// whether it is a PR, and the workflow identities the actors were classified against. An
/// output gathers one or two, so a list compared in place beats hashing a key.
pub type ActivityCache = std::cell::RefCell<Vec<((i64, bool, Classifier), std::rc::Rc<Activity>)>>;

/// What an output recorded, parsed on first use and shared by its windows: the payload and
/// the execution-time state (unparseable text reads as `null`, or as not recorded). Most
/// rules read none of it, so most outputs never parse it.
#[derive(Debug)]
pub struct Recorded<'o> {
    output: &'o SafeOutput,
    payload: std::cell::OnceCell<Value>,
    expected: std::cell::OnceCell<Value>,
    before: std::cell::OnceCell<Option<Value>>,
    after: std::cell::OnceCell<Option<Value>>,
}

impl<'o> Recorded<'o> {
    pub fn of(o: &'o SafeOutput) -> Self {
        Recorded { output: o, payload: Default::default(), expected: Default::default(), before: Default::default(), after: Default::default() }
    }
    pub fn payload(&self) -> &Value {
        self.payload.get_or_init(|| serde_json::from_str(&self.output.payload).unwrap_or_default())
    }
    pub fn expected(&self) -> &Value {
        self.expected.get_or_init(|| self.output.expected())
    }
    pub fn before(&self) -> &Option<Value> {
        self.before.get_or_init(|| self.output.before())
    }
    pub fn after(&self) -> &Option<Value> {
        self.after.get_or_init(|| self.output.after())
    }
}

pub struct Case<'a> {
    pub output: &'a SafeOutput,
    pub recorded: &'a Recorded<'a>,
    pub window: Window,
    pub index: &'a SnapshotIndex,
    pub policy: &'a Policy,
    pub captured_at: Instant,
    /// When the action happened, if known.
    pub t0: Option<Instant>,
    /// The end of the window: T+W, or `captured_at` for the snapshot window.
    pub as_of: Instant,
    pub actors: Classifier,
    /// Shared by the windows of one output.
    pub cache: &'a ActivityCache,
    /// Shared by every output judged against `index`.
    pub reverts: &'a RevertMarks,
}

/// The one test of "inside the window" (T, as_of]: strictly after the action (any time,
/// when the action's time is unknown), at or before the window's end.
fn inside_window(t0: Option<Instant>, as_of: Instant, at: Option<Instant>) -> bool {
    at.is_some_and(|t| t0.is_none_or(|t0| t > t0) && t <= as_of)
}

/// Where an event falls relative to the window (T, as_of].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placement {
    Inside,
    Outside,
    /// No usable timestamp: it happened before capture, but when is unknown.
    Undated,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ActKind {
    Comment,
    Review(String),
    ReviewComment,
    Reaction,
    Commit,
    Event(String),
}

/// Something someone did to the target.
#[derive(Clone, Debug)]
pub struct Act {
    pub actor: Actor,
    pub class: ActorClass,
    pub at: Option<Instant>,
    pub kind: ActKind,
    pub detail: Option<String>,
    /// A comment's text says the close was wrong (one of [`CHALLENGE_PHRASES`], in any
    /// case): decided once, when the comment is read.
    ///
    /// [`CHALLENGE_PHRASES`]: super::rules::CHALLENGE_PHRASES
    pub challenges_close: bool,
}

/// All activity on one target, and which sources could be read.
#[derive(Clone, Debug, Default)]
pub struct Activity {
    pub acts: Vec<Act>,
    /// Sources read (paths relative to the repo).
    pub read: Vec<String>,
    /// Sources whose capture failed, or answered 404 while the target itself exists.
    pub failed: Vec<(String, u16)>,
    /// Timeline or issue events, merged and sorted by time, when either was captured.
    pub events: Option<Vec<Event>>,
}

impl Activity {
    pub fn any_read(&self) -> bool {
        !self.read.is_empty()
    }
}

/// Labels as of a window's end, and the labels history cannot settle (see
/// [`Case::labels_as_of`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LabelsAsOf {
    pub labels: Vec<String>,
    pub unsettled: Vec<String>,
}

/// Why the state as of a window's end cannot be rebuilt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HistoryGap {
    /// The target's state field was not captured.
    StateMissing,
    /// The target is `open` but carries a merge or close time.
    StateInconsistent,
    /// History was captured, but an event it needs has no time.
    HistoryUndated,
    /// No timestamped history was captured.
    HistoryMissing,
    /// History was captured, but it does not explain the captured value.
    HistoryIncomplete,
}

impl HistoryGap {
    pub fn as_str(self) -> &'static str {
        match self {
            HistoryGap::StateMissing => "state_missing",
            HistoryGap::StateInconsistent => "state_inconsistent",
            HistoryGap::HistoryUndated => "history_undated",
            HistoryGap::HistoryMissing => "history_missing",
            HistoryGap::HistoryIncomplete => "history_incomplete",
        }
    }

    /// The verdict for a state that could not be rebuilt (the target itself was read).
    pub fn verdict(self) -> super::Verdict {
        use super::{common, Common};
        let v = match self {
            HistoryGap::StateMissing => common(Common::TargetNotCaptured).note("the target's state field was not captured"),
            HistoryGap::StateInconsistent => common(Common::InconsistentState).note("the target is `open` but carries a merge or close time"),
            _ => common(Common::HistoryMissing).note(format!("cannot rebuild the state as of the window's end: {}", self.as_str())),
        };
        v.resolved(true)
    }
}

/// Issue or PR lifecycle as of a moment.
#[derive(Clone, Debug, Default)]
pub struct Lifecycle {
    pub closed: bool,
    pub closed_at: Option<Instant>,
    pub closer: Actor,
    pub state_reason: Option<String>,
    /// The close came with a commit (closed by a change).
    pub closed_by_commit: bool,
    pub merged: bool,
    pub merged_at: Option<Instant>,
    pub merger: Actor,
    /// `events` (rebuilt from history), `final` (as captured) or `timestamps`.
    pub basis: &'static str,
}

/// The final (captured) lifecycle fields of an issue or PR.
#[derive(Clone, Debug, Default)]
pub struct Final {
    pub state: Option<String>,
    pub state_reason: Option<String>,
    pub closed_at: Option<Instant>,
    pub closed_by: Actor,
    pub merged: Option<bool>,
    pub merged_at: Option<Instant>,
    pub merged_by: Actor,
}

impl<'a> Case<'a> {
    /// The same case with `login` also counted as the workflow's own identity (the author
    /// of the object the output created, say).
    pub fn with_workflow_actor(&self, login: Option<&str>) -> Case<'a> {
        let mut actors = self.actors.clone();
        if let Some(l) = login {
            actors.add_workflow(l);
        }
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
            reverts: self.reverts,
        }
    }

    pub fn repo(&self) -> Option<&str> {
        self.output.target_repo.as_deref()
    }

    /// A path of the target's repository. One not captured in a repository that itself
    /// answered 404/410 (deleted, or private to the capture) is gone with it.
    pub fn lookup(&self, tail: &str) -> Lookup<'a> {
        Self::to_lookup(self.lookup_entry(tail))
    }

    /// `lookup`, answering with the entry itself when it was found, so that a reader can
    /// take a typed view of it (`Entry::pull`, `Entry::events`, ...) instead of its `Value`.
    pub fn lookup_entry(&self, tail: &str) -> Result<&'a Entry, Lookup<'a>> {
        thread_local! {
            // One path buffer per thread: an output's lookups are many, each a path to build.
            static PATH: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
        }
        let Some(repo) = self.repo() else { return Err(Lookup::NotCaptured) };
        PATH.with_borrow_mut(|path| {
            path.clear();
            crate::snapshot::paths::push_rest(path, repo, tail);
            // The repository's own path: `repos/{repo}`, before `/{tail}`.
            let own = path.len() - tail.len() - 1;
            match self.entry_at(path) {
                Err(Lookup::NotCaptured) => match self.index.get(&path[..own]) {
                    Some(e) if e.gone() => Err(Lookup::Gone(e.status)),
                    _ => Err(Lookup::NotCaptured),
                },
                found => found,
            }
        })
    }

    /// A GraphQL capture of this repository: `graphql/repos/OWNER/REPO/<tail>`.
    pub fn graphql(&self, tail: &str) -> Lookup<'a> {
        let Some(repo) = self.repo() else { return Lookup::NotCaptured };
        self.lookup_path(&format!("graphql/repos/{repo}/{tail}"))
    }

    /// Any captured path.
    pub fn lookup_path(&self, path: &str) -> Lookup<'a> {
        Self::to_lookup(self.entry_at(path))
    }

    fn entry_at(&self, path: &str) -> Result<&'a Entry, Lookup<'a>> {
        match self.index.get(path) {
            None => Err(Lookup::NotCaptured),
            Some(e) if e.ok() => Ok(e),
            Some(e) if e.gone() => Err(Lookup::Gone(e.status)),
            Some(e) => Err(Lookup::Failed(e.status)),
        }
    }

    /// A found entry as `Lookup::Found` with its JSON.
    fn to_lookup(entry: Result<&'a Entry, Lookup<'a>>) -> Lookup<'a> {
        match entry {
            Ok(e) => Lookup::Found(e.body()),
            Err(l) => l,
        }
    }

    pub fn place(&self, at: Option<Instant>) -> Placement {
        match at {
            None => Placement::Undated,
            Some(_) if inside_window(self.t0, self.as_of, at) => Placement::Inside,
            Some(_) => Placement::Outside,
        }
    }

    /// Whether `at` falls inside the window; an undated moment does not.
    pub fn is_inside(&self, at: Option<Instant>) -> bool {
        inside_window(self.t0, self.as_of, at)
    }

    /// Hours from the action to the window's end; `None` when the action time is unknown.
    pub fn elapsed_hours(&self) -> Option<f64> {
        self.t0.map(|t0| crate::time::hours_between(&t0, &self.as_of))
    }

    /// Long enough without a response to call it ignored (policy `ignore_after_hours`).
    pub fn long_enough(&self) -> bool {
        self.elapsed_hours().is_some_and(|h| h >= self.policy.ignore_after_hours as f64)
    }

    fn act(&self, actor: Actor, at: Option<Instant>, kind: ActKind, detail: Option<String>) -> Act {
        let class = self.actors.classify(&actor);
        Act { actor, class, at, kind, detail, challenges_close: false }
    }

    fn comment_act(&self, c: &Comment, kind: ActKind) -> Act {
        let mut act = self.act(c.user.clone(), c.created_at, kind, c.id.map(|i| i.to_string()));
        act.challenges_close = c.body.as_deref().is_some_and(super::rules::says_close_was_wrong);
        act
    }

    /// Read one list source into `acts`.
    fn read_list(&self, tail: &str, parent_exists: bool, act: &mut Activity, f: &dyn Fn(&Entry) -> Vec<Act>) {
        match self.lookup_entry(tail) {
            Ok(e) => {
                act.acts.extend(f(e));
                act.read.push(tail.to_string());
            }
            // A list answering 404 while its issue exists is a capture problem, not an
            // empty list.
            Err(Lookup::Gone(s)) if parent_exists => act.failed.push((tail.to_string(), s)),
            Err(Lookup::Gone(_) | Lookup::NotCaptured | Lookup::Found(_)) => {}
            Err(Lookup::Failed(s)) => act.failed.push((tail.to_string(), s)),
        }
    }

    /// Activity on issue or PR `n`: comments, timeline/events, reactions, and for PRs
    /// reviews, review comments and commits. Gathered once per output: the windows differ
    /// only in which acts they count.
    pub fn activity(&self, n: i64, pull: bool) -> std::rc::Rc<Activity> {
        let cache = self.cache;
        if let Some((_, a)) = cache.borrow().iter().find(|((m, p, c), _)| *m == n && *p == pull && *c == self.actors) {
            return a.clone();
        }
        let a = std::rc::Rc::new(self.gather(n, pull));
        cache.borrow_mut().push(((n, pull, self.actors.clone()), a.clone()));
        a
    }

    fn gather(&self, n: i64, pull: bool) -> Activity {
        let mut a = Activity::default();
        self.read_list(&format!("issues/{n}/comments"), true, &mut a, &|e| e.comments().iter().map(|c| self.comment_act(c, ActKind::Comment)).collect());
        self.read_list(&format!("issues/{n}/reactions"), true, &mut a, &|e| {
            e.reactions().iter().map(|r| self.act(r.user.clone(), r.created_at, ActKind::Reaction, r.content.clone())).collect()
        });
        let mut events: Option<Vec<Event>> = None;
        for tail in [format!("issues/{n}/timeline"), format!("issues/{n}/events")] {
            match self.lookup_entry(&tail) {
                Ok(entry) => {
                    let all = events.get_or_insert_with(Vec::new);
                    for e in entry.events() {
                        // The two sources overlap; an event with the same id counts once.
                        if e.id.is_some() && all.iter().any(|x| x.id == e.id && x.event == e.event) {
                            continue;
                        }
                        all.push(e.clone());
                    }
                    a.read.push(tail);
                }
                Err(Lookup::Gone(s) | Lookup::Failed(s)) => a.failed.push((tail, s)),
                Err(Lookup::NotCaptured | Lookup::Found(_)) => {}
            }
        }
        if let Some(evs) = &mut events {
            evs.sort_by_key(|e| e.created_at);
            // Timeline `commented`/`reviewed`/`committed` items repeat the comment,
            // review and commit lists; keep them only when those lists are absent.
            let listed = |tail: String| self.lookup_entry(&tail).is_ok();
            for e in evs.iter() {
                let kind = e.event.clone().unwrap_or_default();
                let dup = match kind.as_str() {
                    "commented" => listed(format!("issues/{n}/comments")),
                    "reviewed" => pull && listed(format!("pulls/{n}/reviews")),
                    "committed" => pull && listed(format!("pulls/{n}/commits")),
                    "line-commented" => pull && listed(format!("pulls/{n}/comments")),
                    _ => false,
                };
                if dup {
                    continue;
                }
                let ak = match kind.as_str() {
                    "commented" => ActKind::Comment,
                    "reviewed" => ActKind::Review(e.review_state.clone().unwrap_or_default()),
                    "committed" => ActKind::Commit,
                    "line-commented" => ActKind::ReviewComment,
                    _ => ActKind::Event(kind),
                };
                let detail = e.label.clone().or(e.assignee.clone()).or(e.source_number.map(|n| n.to_string()));
                a.acts.push(self.act(e.actor.clone(), e.created_at, ak, detail));
            }
        }
        a.events = events;
        if pull {
            self.read_list(&format!("pulls/{n}/reviews"), true, &mut a, &|e| {
                e.reviews()
                    .iter()
                    .map(|r| {
                        let st = r.state.clone().unwrap_or_default();
                        self.act(r.user.clone(), r.submitted_at, ActKind::Review(st), r.id.map(|i| i.to_string()))
                    })
                    .collect()
            });
            self.read_list(&format!("pulls/{n}/comments"), true, &mut a, &|e| {
                e.comments().iter().map(|c| self.comment_act(c, ActKind::ReviewComment)).collect()
            });
            self.read_list(&format!("pulls/{n}/commits"), true, &mut a, &|e| {
                e.commits()
                    .iter()
                    .map(|c| {
                        let who = if c.author.login.is_some() { c.author.clone() } else { c.committer.clone() };
                        self.act(who, c.committed_at.or(c.authored_at), ActKind::Commit, c.sha.clone())
                    })
                    .collect()
            });
        }
        a
    }

    /// Acts inside the window.
    pub fn inside<'b>(&self, a: &'b Activity) -> impl Iterator<Item = &'b Act> + 'b {
        let t0 = self.t0;
        let as_of = self.as_of;
        a.acts.iter().filter(move |x| inside_window(t0, as_of, x.at))
    }

    /// Distinct (visible non-bot, bot) logins acting inside the window.
    pub fn count_actors(&self, a: &Activity) -> (usize, usize) {
        let mut humans = std::collections::BTreeSet::new();
        let mut bots = std::collections::BTreeSet::new();
        for x in self.inside(a) {
            let login = x.actor.login.clone().unwrap_or_default().to_lowercase();
            match x.class {
                ActorClass::VisibleNonBot => {
                    humans.insert(login);
                }
                ActorClass::Bot => {
                    bots.insert(login);
                }
                _ => {}
            }
        }
        (humans.len(), bots.len())
    }

    /// Lifecycle as of the window's end. `Err` names what is missing.
    pub fn lifecycle(&self, f: &Final, events: Option<&[Event]>) -> Result<Lifecycle, HistoryGap> {
        // An open object carries no close or merge; one that does contradicts itself, and
        // no window can be judged from it.
        if f.state.as_deref() == Some("open") && (f.merged == Some(true) || f.merged_at.is_some() || f.closed_at.is_some()) {
            return Err(HistoryGap::StateInconsistent);
        }
        // Used for the snapshot window only, where an undated event still happened
        // before capture.
        let last_close = |evs: &[Event], until: Instant| -> Option<Event> {
            evs.iter().rfind(|e| e.event.as_deref() == Some("closed") && e.created_at.is_none_or(|t| t <= until)).cloned()
        };
        if self.window.is_snapshot() {
            let Some(state) = f.state.as_deref() else {
                if f.merged == Some(true) {
                    return Ok(Lifecycle {
                        closed: true,
                        merged: true,
                        merged_at: f.merged_at,
                        merger: f.merged_by.clone(),
                        basis: "final",
                        ..Lifecycle::default()
                    });
                }
                return Err(HistoryGap::StateMissing);
            };
            let closed = state == "closed" || f.merged == Some(true);
            let close_ev = events.and_then(|e| last_close(e, self.as_of));
            let closer = close_ev.as_ref().map(|e| e.actor.clone()).filter(|a| a.login.is_some()).unwrap_or_else(|| f.closed_by.clone());
            // A body without `merged_by` (the issues API's, a rebuilt one): the history's
            // `merged` event names the merger.
            let merger = if f.merged_by.login.is_some() {
                f.merged_by.clone()
            } else {
                events
                    .and_then(|evs| evs.iter().rfind(|e| e.event.as_deref() == Some("merged") && e.created_at.is_none_or(|t| t <= self.as_of)))
                    .map(|e| e.actor.clone())
                    .unwrap_or_default()
            };
            return Ok(Lifecycle {
                closed,
                closed_at: f.closed_at.or(close_ev.as_ref().and_then(|e| e.created_at)),
                closer,
                state_reason: f.state_reason.clone().or(close_ev.as_ref().and_then(|e| e.state_reason.clone())),
                closed_by_commit: close_ev.as_ref().is_some_and(|e| e.commit_id.is_some()),
                merged: f.merged == Some(true),
                merged_at: f.merged_at,
                merger,
                basis: "final",
            });
        }
        let merged_by_time = f.merged_at.is_some_and(|t| t <= self.as_of);
        if let Some(evs) = events {
            let relevant = |e: &&Event| matches!(e.event.as_deref(), Some("closed" | "reopened" | "merged"));
            if evs.iter().filter(relevant).any(|e| e.created_at.is_none()) {
                return Err(HistoryGap::HistoryUndated);
            }
            let mut lc = Lifecycle { basis: "events", ..Lifecycle::default() };
            for e in evs.iter().filter(relevant) {
                let Some(t) = e.created_at else { continue };
                if t > self.as_of {
                    break;
                }
                match e.event.as_deref() {
                    Some("closed") => {
                        lc.closed = true;
                        lc.closed_at = Some(t);
                        lc.closer = e.actor.clone();
                        lc.state_reason = e.state_reason.clone();
                        lc.closed_by_commit = e.commit_id.is_some();
                    }
                    Some("reopened") => {
                        lc.closed = false;
                        lc.closed_at = None;
                        lc.closer = Actor::default();
                        lc.state_reason = None;
                        lc.closed_by_commit = false;
                    }
                    Some("merged") => {
                        lc.merged = true;
                        lc.merged_at = Some(t);
                        lc.merger = e.actor.clone();
                    }
                    _ => {}
                }
            }
            if merged_by_time && !lc.merged {
                lc.merged = true;
                lc.merged_at = f.merged_at;
                lc.merger = f.merged_by.clone();
            }
            if lc.merged {
                lc.closed = true;
            }
            // The captured state_reason belongs to the final close; it applies here when
            // this close is that one (no close or reopen after the window).
            if lc.closed && lc.state_reason.is_none() && f.state.as_deref() == Some("closed") {
                let later = evs.iter().filter(relevant).any(|e| e.created_at.is_some_and(|t| t > self.as_of));
                if !later {
                    lc.state_reason = f.state_reason.clone();
                    if lc.closer.login.is_none() {
                        lc.closer = f.closed_by.clone();
                    }
                }
            }
            if lc.closer.login.is_none() && f.closed_by.login.is_some() && lc.closed && lc.closed_at == f.closed_at {
                lc.closer = f.closed_by.clone();
            }
            return Ok(lc);
        }
        // No history: only timestamps that settle the question on their own.
        if merged_by_time {
            return Ok(Lifecycle {
                closed: true,
                closed_at: f.closed_at.or(f.merged_at),
                merged: true,
                merged_at: f.merged_at,
                merger: f.merged_by.clone(),
                basis: "timestamps",
                ..Lifecycle::default()
            });
        }
        // A final close at or before the window's end: closed ever since (a later reopen
        // would have left the issue open, or moved closed_at).
        if f.state.as_deref() == Some("closed") && f.merged != Some(true) && f.closed_at.is_some_and(|t| t <= self.as_of) {
            return Ok(Lifecycle {
                closed: true,
                closed_at: f.closed_at,
                closer: f.closed_by.clone(),
                state_reason: f.state_reason.clone(),
                basis: "timestamps",
                ..Lifecycle::default()
            });
        }
        Err(HistoryGap::HistoryMissing)
    }

    /// The label set (lower case) at the window's end: the captured set with every label
    /// change after the window undone, newest first. A label whose recorded history does
    /// not explain its captured presence (the last event says `labeled` but the label is
    /// gone, or `unlabeled` but it is set) changed without a recorded event: its history is
    /// incomplete, so no timed window can say whether it was set, and it is returned in
    /// `unsettled` instead of being guessed from the final state.
    pub fn labels_as_of(&self, mut labels: Vec<String>, events: &[Event]) -> LabelsAsOf {
        let mut last: std::collections::BTreeMap<String, bool> = std::collections::BTreeMap::new();
        for e in events {
            let Some(l) = e.label.as_ref().map(|l| l.to_lowercase()) else { continue };
            match e.event.as_deref() {
                Some("labeled") => last.insert(l, true),
                Some("unlabeled") => last.insert(l, false),
                _ => None,
            };
        }
        let unsettled: Vec<String> = last.into_iter().filter(|(l, set)| labels.contains(l) != *set).map(|(l, _)| l).collect();
        for e in events.iter().rev() {
            let Some(t) = e.created_at else { continue };
            if t <= self.as_of {
                break;
            }
            let Some(l) = e.label.as_ref().map(|l| l.to_lowercase()) else { continue };
            match e.event.as_deref() {
                Some("labeled") => labels.retain(|x| *x != l),
                Some("unlabeled") if !labels.contains(&l) => labels.push(l),
                _ => {}
            }
        }
        labels.retain(|l| !unsettled.contains(l));
        LabelsAsOf { labels, unsettled }
    }

    /// Events of these kinds inside the window, oldest first.
    pub fn events_inside<'b>(&self, events: Option<&'b [Event]>, kinds: &'b [&str]) -> impl Iterator<Item = &'b Event> + 'b {
        let (t0, as_of) = (self.t0, self.as_of);
        events.unwrap_or(&[]).iter().filter(move |e| e.event.as_deref().is_some_and(|k| kinds.contains(&k)) && inside_window(t0, as_of, e.created_at))
    }

    /// Whether the captured value of a field also held at the window's end: always in the
    /// snapshot window; otherwise when nothing at all changed after it (`updated_at`), or
    /// when history was captured and no event of `kinds` came after it.
    pub fn current_holds(&self, updated_at: Option<Instant>, events: Option<&[Event]>, kinds: &[&str]) -> bool {
        if self.window.is_snapshot() || updated_at.is_some_and(|u| u <= self.as_of) {
            return true;
        }
        match events {
            Some(evs) => !evs.iter().any(|e| e.event.as_deref().is_some_and(|k| kinds.contains(&k)) && e.created_at.is_none_or(|t| t > self.as_of)),
            None => false,
        }
    }
}
