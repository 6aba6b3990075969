//! Activity on a target after the action: comments, reactions, timeline and issue events,
//! reviews, review comments and commits, gathered once per output (its windows differ only
//! in which acts they count) and classified by who acted.

use super::actors::{ActorClass, Classifier};
use super::case::{inside_window, Case, Missing};
use crate::snapshot::github::{Actor, Comment, Event};
use crate::snapshot::Entry;
use crate::time::Instant;

/// Activity already gathered for one output, shared by its windows: keyed by target number,
/// whether it is a PR, and the workflow identities the actors were classified against. An
/// output gathers one or two, so a list compared in place beats hashing a key.
pub(crate) type ActivityCache = std::cell::RefCell<Vec<((i64, bool, Classifier), std::rc::Rc<Activity>)>>;

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum ActKind {
    Comment,
    Review(String),
    ReviewComment,
    Reaction,
    Commit,
    Event(String),
}

/// Something someone did to the target.
#[derive(Clone, Debug)]
pub(crate) struct Act {
    pub actor: Actor,
    pub(crate) class: ActorClass,
    pub(crate) at: Option<Instant>,
    pub(crate) kind: ActKind,
    pub(crate) detail: Option<String>,
    /// A visible non-bot person's comment says the close was wrong (one of
    /// [`CHALLENGE_PHRASES`], in any case): decided once, when the comment is read; `false`
    /// for anyone else's, which can never be a challenge.
    pub(crate) challenges_close: bool,
}

/// All activity on one target, and which sources could be read.
#[derive(Clone, Debug, Default)]
pub struct Activity {
    pub(crate) acts: Vec<Act>,
    /// Sources read (paths relative to the repo).
    pub(crate) read: Vec<String>,
    /// Sources whose capture failed, or answered 404 while the target itself exists.
    pub failed: Vec<(String, u16)>,
    /// Timeline or issue events, merged and sorted by time, when either was captured.
    pub(crate) events: Option<Vec<Event>>,
}

impl Activity {
    pub(crate) fn any_read(&self) -> bool {
        !self.read.is_empty()
    }
}

impl<'a> Case<'a> {
    fn act(&self, actor: Actor, at: Option<Instant>, kind: ActKind, detail: Option<String>) -> Act {
        let class = self.actors.classify_at(&actor, at);
        Act { actor, class, at, kind, detail, challenges_close: false }
    }

    fn comment_act(&self, c: &Comment, kind: ActKind) -> Act {
        let mut act = self.act(c.user.clone(), c.created_at, kind, c.id.map(|i| i.to_string()));
        // Only a visible person's comment can challenge a close (see `rules::challenge`): the
        // text of others is not searched.
        act.challenges_close = act.class.is_person() && c.body.as_deref().is_some_and(says_close_was_wrong);
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
            Err(Missing::Gone(s)) if parent_exists => act.failed.push((tail.to_string(), s)),
            Err(Missing::Gone(_) | Missing::NotCaptured) => {}
            Err(Missing::Failed(s)) => act.failed.push((tail.to_string(), s)),
        }
    }

    /// Activity on issue or PR `n`: comments, timeline/events, reactions, and for PRs
    /// reviews, review comments and commits. Gathered once per output: the windows differ
    /// only in which acts they count.
    pub(crate) fn activity(&self, n: i64, pull: bool) -> std::rc::Rc<Activity> {
        let cache = &self.cache.activity;
        if let Some((_, a)) = cache.borrow().iter().find(|((m, p, c), _)| *m == n && *p == pull && *c == self.actors) {
            return a.clone();
        }
        let a = std::rc::Rc::new(self.gather(n, pull));
        cache.borrow_mut().push(((n, pull, self.actors.clone()), a.clone()));
        a
    }

    /// Everything done to issue or PR `n`: its comments and reactions, its history, and for
    /// a PR its reviews, review comments and commits.
    fn gather(&self, n: i64, pull: bool) -> Activity {
        let mut a = Activity::default();
        self.read_list(&crate::snapshot::paths::numbered("issues/", n, "/comments"), true, &mut a, &|e| {
            e.comments().iter().map(|c| self.comment_act(c, ActKind::Comment)).collect()
        });
        self.read_list(&crate::snapshot::paths::numbered("issues/", n, "/reactions"), true, &mut a, &|e| {
            e.reactions().iter().map(|r| self.act(r.user.clone(), r.created_at, ActKind::Reaction, r.content.clone())).collect()
        });
        self.read_history(n, pull, &mut a);
        if pull {
            self.read_pull_lists(n, &mut a);
        }
        a
    }

    /// The history of `n`: its timeline and issue events merged (each event once) and sorted
    /// by time into `events`, and each an act, but for the timeline's repeats of lists
    /// that were captured on their own.
    fn read_history(&self, n: i64, pull: bool, a: &mut Activity) {
        let mut events: Option<Vec<Event>> = None;
        let mut seen = EventIds::default();
        for tail in [crate::snapshot::paths::numbered("issues/", n, "/timeline"), crate::snapshot::paths::numbered("issues/", n, "/events")] {
            match self.lookup_entry(&tail) {
                Ok(entry) => {
                    seen.push_new(events.get_or_insert_with(Vec::new), entry.events());
                    a.read.push(tail);
                }
                Err(Missing::Gone(s) | Missing::Failed(s)) => a.failed.push((tail, s)),
                Err(Missing::NotCaptured) => {}
            }
        }
        if let Some(evs) = &mut events {
            evs.sort_by_key(|e| e.created_at);
            // Timeline `commented`/`reviewed`/`committed` items repeat the comment,
            // review and commit lists; keep them only when those lists are absent.
            // Whether each list was captured, looked up once (timelines are long).
            let mut seen: [Option<bool>; 4] = [None; 4];
            let mut listed = |list: usize| {
                *seen[list].get_or_insert_with(|| {
                    let tail = match list {
                        0 => crate::snapshot::paths::numbered("issues/", n, "/comments"),
                        1 => crate::snapshot::paths::numbered("pulls/", n, "/reviews"),
                        2 => crate::snapshot::paths::numbered("pulls/", n, "/commits"),
                        _ => crate::snapshot::paths::numbered("pulls/", n, "/comments"),
                    };
                    self.lookup_entry(&tail).is_ok()
                })
            };
            for e in evs.iter() {
                let kind = e.event.clone().unwrap_or_default();
                let dup = match kind.as_str() {
                    "commented" => listed(0),
                    "reviewed" => pull && listed(1),
                    "committed" => pull && listed(2),
                    "line-commented" => pull && listed(3),
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
    }

    /// A PR's own lists: its reviews, review comments and commits.
    fn read_pull_lists(&self, n: i64, a: &mut Activity) {
        self.read_list(&crate::snapshot::paths::numbered("pulls/", n, "/reviews"), true, a, &|e| {
            e.reviews()
                .iter()
                .map(|r| {
                    let st = r.state.clone().unwrap_or_default();
                    self.act(r.user.clone(), r.submitted_at, ActKind::Review(st), r.id.map(|i| i.to_string()))
                })
                .collect()
        });
        self.read_list(&crate::snapshot::paths::numbered("pulls/", n, "/comments"), true, a, &|e| {
            e.comments().iter().map(|c| self.comment_act(c, ActKind::ReviewComment)).collect()
        });
        self.read_list(&crate::snapshot::paths::numbered("pulls/", n, "/commits"), true, a, &|e| {
            e.commits()
                .iter()
                .map(|c| {
                    let who = if c.author.login.is_some() { c.author.clone() } else { c.committer.clone() };
                    self.act(who, c.committed_at.or(c.authored_at), ActKind::Commit, c.sha.clone())
                })
                .collect()
        });
    }

    /// Acts inside the window.
    pub(crate) fn inside<'b>(&self, a: &'b Activity) -> impl Iterator<Item = &'b Act> + 'b {
        self.inside_of(a.acts.iter())
    }

    /// `inside` over any acts (a rule's own beside an output's shared activity).
    pub(crate) fn inside_of<'b>(&self, acts: impl Iterator<Item = &'b Act> + 'b) -> impl Iterator<Item = &'b Act> + 'b {
        let t0 = self.t0;
        let as_of = self.as_of;
        acts.filter(move |x| inside_window(t0, as_of, x.at))
    }

    /// Distinct (visible non-bot, bot) logins acting inside the window, compared lower-cased.
    pub(crate) fn count_actors(&self, a: &Activity) -> (usize, usize) {
        self.count_acting(a.acts.iter())
    }

    /// `count_actors` over any acts (a rule's own beside an output's shared activity).
    pub(crate) fn count_acting<'b>(&self, acts: impl Iterator<Item = &'b Act> + 'b) -> (usize, usize) {
        let mut humans = Vec::new();
        let mut bots = Vec::new();
        for x in self.inside_of(acts) {
            let login = x.actor.login.as_deref().unwrap_or_default();
            match x.class {
                ActorClass::VisibleNonBot | ActorClass::Requester => humans.push(login),
                ActorClass::Bot => bots.push(login),
                _ => {}
            }
        }
        (distinct_lowercased(humans), distinct_lowercased(bots))
    }
}

/// Phrases by which people say a close was wrong. Matching is on lower-cased comment text;
/// it is a heuristic, and the signal says so.
pub(crate) const CHALLENGE_PHRASES: &[&str] = &[
    "closed by mistake",
    "mistakenly closed",
    "closed in error",
    "closed prematurely",
    "premature close",
    "should not have been closed",
    "shouldn't have been closed",
    "should not be closed",
    "please reopen",
    "reopening this",
    "not resolved",
    "still happening",
];

/// Whether `text`, lower-cased, contains one of [`CHALLENGE_PHRASES`]. ASCII text is
/// lower-cased the cheap way (the same answer: Unicode lower-cases ASCII letters alone).
pub(crate) fn says_close_was_wrong(text: &str) -> bool {
    let t = if text.is_ascii() { text.to_ascii_lowercase() } else { text.to_lowercase() };
    CHALLENGE_PHRASES.iter().any(|p| t.contains(p))
}

/// The events kept so far, by (id, kind): the timeline and the events list overlap, and an
/// event with the same id and kind counts once, whichever list (or the same list twice)
/// gave it. Events without an id are all kept. Most targets have a few events, looked
/// through; past `FEW_EVENTS` they go into a set: a long-lived issue's lists run to
/// thousands of events, and looking through them for each was quadratic (60-100 ms per
/// output at 10,000 events a list against ~3 ms; BENCHMARKS.md, fifteenth step).
#[derive(Default)]
struct EventIds<'e> {
    few: Vec<(i64, Option<&'e str>)>,
    many: std::collections::HashSet<(i64, Option<&'e str>), foldhash::fast::FixedState>,
}

/// Events kept that are looked through rather than hashed.
const FEW_EVENTS: usize = 32;

impl<'e> EventIds<'e> {
    /// `list`'s events not kept yet, appended to `all` in their order.
    fn push_new(&mut self, all: &mut Vec<Event>, list: &'e [Event]) {
        for e in list {
            if let Some(id) = e.id {
                if !self.insert((id, e.event.as_deref())) {
                    continue;
                }
            }
            all.push(e.clone());
        }
    }

    /// Whether `key` is new (and now kept).
    fn insert(&mut self, key: (i64, Option<&'e str>)) -> bool {
        if !self.many.is_empty() {
            return self.many.insert(key);
        }
        if self.few.contains(&key) {
            return false;
        }
        self.few.push(key);
        if self.few.len() > FEW_EVENTS {
            self.many.extend(self.few.drain(..));
        }
        true
    }
}

/// How many distinct logins there are once lower-cased. ASCII logins (all of GitHub's) are
/// compared without being copied; others are lower-cased the Unicode way, which can make
/// a non-ASCII login equal to an ASCII one.
fn distinct_lowercased(mut logins: Vec<&str>) -> usize {
    if logins.iter().all(|l| l.is_ascii()) {
        logins.sort_unstable_by(|a, b| a.bytes().map(|c| c.to_ascii_lowercase()).cmp(b.bytes().map(|c| c.to_ascii_lowercase())));
        logins.dedup_by(|a, b| a.eq_ignore_ascii_case(b));
        return logins.len();
    }
    logins.iter().map(|l| l.to_lowercase()).collect::<std::collections::BTreeSet<_>>().len()
}

#[cfg(test)]
mod tests {
    use super::{distinct_lowercased, says_close_was_wrong, EventIds, CHALLENGE_PHRASES, FEW_EVENTS};
    use crate::snapshot::github::Event;

    /// The ASCII search answers as lower-casing and `contains` do, whatever the case.
    #[test]
    fn close_challenges_are_found_in_any_case() {
        for (text, expected) in [
            ("Please REOPEN, this is not fixed", true),
            ("Closed By Mistake?", true),
            ("reopen please", false),
            ("Still happening on 2.1 — über-annoying", true),
            ("", false),
            ("not  resolved", false),
            ("NOT RESOLVED", true),
            ("MISTA\u{212A}ENLY CLOSED", true),
            ("Still Happening, \u{212A}", true),
        ] {
            let lowered = text.to_lowercase();
            assert_eq!(CHALLENGE_PHRASES.iter().any(|p| lowered.contains(p)), expected, "{text}");
            assert_eq!(says_close_was_wrong(text), expected, "{text}");
        }
        // Phrases are matched against lower-cased text: each is lower-case itself.
        assert!(CHALLENGE_PHRASES.iter().all(|p| *p == p.to_lowercase()));
    }

    /// Events kept from a timeline and an events list are those a look through the events
    /// kept so far keeps: the first of each (id, kind), every event without an id, in order.
    #[test]
    fn overlapping_event_lists_keep_each_event_once() {
        let ev = |id: Option<i64>, kind: Option<&str>, label: &str| Event {
            id,
            event: kind.map(str::to_string),
            label: Some(label.to_string()),
            ..Event::default()
        };
        let timeline = vec![
            ev(Some(1), Some("labeled"), "t1"),
            ev(None, Some("commented"), "t2"),
            ev(Some(2), Some("closed"), "t3"),
            ev(Some(1), Some("labeled"), "t4 (repeated in its own list)"),
            ev(Some(1), Some("unlabeled"), "t5 (same id, another kind)"),
            ev(None, Some("commented"), "t6"),
            ev(Some(3), None, "t7 (no kind)"),
        ];
        let events = vec![ev(Some(2), Some("closed"), "e1"), ev(Some(4), Some("reopened"), "e2"), ev(Some(3), None, "e3"), ev(None, None, "e4")];
        // The two lists merged by `EventIds`, and by looking through the events kept so far.
        let merged = |timeline: &[Event], events: &[Event]| {
            let mut seen = EventIds::default();
            let mut all = Vec::new();
            seen.push_new(&mut all, timeline);
            seen.push_new(&mut all, events);
            let hashed = seen.few.is_empty() && seen.many.len() > FEW_EVENTS;
            (all, hashed)
        };
        let looked_through = |timeline: &[Event], events: &[Event]| {
            let mut expected: Vec<Event> = Vec::new();
            for e in timeline.iter().chain(events) {
                if e.id.is_none() || !expected.iter().any(|x| x.id == e.id && x.event == e.event) {
                    expected.push(e.clone());
                }
            }
            expected
        };
        let labels = |v: &[Event]| v.iter().map(|e| e.label.clone().unwrap_or_default()).collect::<Vec<_>>();
        let (all, _) = merged(&timeline, &events);
        assert_eq!(labels(&all), labels(&looked_through(&timeline, &events)));
        assert_eq!(labels(&all), ["t1", "t2", "t3", "t5 (same id, another kind)", "t6", "t7 (no kind)", "e2", "e4"]);

        // Long lists, past the few looked through: repeats before and after the switch to a
        // set, within a list and across the two.
        let kinds = [Some("labeled"), Some("closed"), None];
        let timeline: Vec<Event> = (0..300).map(|i| ev((i % 7 != 0).then_some(i % 90), kinds[i as usize % 3], &format!("t{i}"))).collect();
        let events: Vec<Event> = (0..300).map(|i| ev(Some((i * 7) % 200), kinds[i as usize % 2], &format!("e{i}"))).collect();
        let (all, hashed) = merged(&timeline, &events);
        assert!(hashed, "the long lists were hashed");
        assert_eq!(labels(&all), labels(&looked_through(&timeline, &events)));
    }

    /// Logins count once whatever their case, the way lower-casing each and counting the
    /// distinct ones does, ASCII or not.
    #[test]
    fn logins_are_counted_once_whatever_their_case() {
        for logins in [vec![], vec!["a"], vec!["Alice", "alice", "ALICE", "bob"], vec!["b", "a", "B", "c", "A"], vec!["Ünal", "ünal", "kim", "\u{212A}im"]] {
            let expected = logins.iter().map(|l| l.to_lowercase()).collect::<std::collections::BTreeSet<_>>().len();
            assert_eq!(distinct_lowercased(logins.clone()), expected, "{logins:?}");
        }
        assert_eq!(distinct_lowercased(vec!["kim", "\u{212A}im"]), 1, "the Kelvin sign lower-cases to `k`");
    }
}
