//! State as of a window's end: an issue's or PR's lifecycle and labels rebuilt from the
//! captured history, and whether a captured value still held then.

use super::case::{inside_window, Case};
use crate::snapshot::github::{Actor, Event};
use crate::time::Instant;

/// Labels as of a window's end, and the labels history cannot settle (see
/// [`Case::labels_as_of`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct LabelsAsOf {
    pub(crate) labels: Vec<String>,
    pub(crate) unsettled: Vec<String>,
}

/// Why the state as of a window's end cannot be rebuilt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum HistoryGap {
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
pub(crate) struct Lifecycle {
    pub(crate) closed: bool,
    pub(crate) closed_at: Option<Instant>,
    pub(crate) closer: Actor,
    pub(crate) state_reason: Option<String>,
    /// The close came with a commit (closed by a change).
    pub(crate) closed_by_commit: bool,
    pub(crate) merged: bool,
    pub(crate) merged_at: Option<Instant>,
    pub(crate) merger: Actor,
    /// `events` (rebuilt from history), `final` (as captured) or `timestamps`.
    pub(crate) basis: &'static str,
}

/// The final (captured) lifecycle fields of an issue or PR.
#[derive(Clone, Debug)]
pub(crate) struct Final<'f> {
    pub(crate) state: Option<&'f str>,
    pub(crate) state_reason: Option<&'f str>,
    pub(crate) closed_at: Option<Instant>,
    pub(crate) closed_by: &'f Actor,
    pub(crate) merged: Option<bool>,
    pub(crate) merged_at: Option<Instant>,
    pub(crate) merged_by: &'f Actor,
}

/// No one: the closer of a PR's final fields, the merger of an issue's.
pub(crate) static NOBODY: Actor = Actor { login: None, kind: None };

impl<'a> Case<'a> {
    /// Lifecycle as of the window's end. `Err` names what is missing.
    pub(crate) fn lifecycle(&self, f: &Final, events: Option<&[Event]>) -> Result<Lifecycle, HistoryGap> {
        // An open object carries no close or merge; one that does contradicts itself, and
        // no window can be judged from it.
        if f.state == Some("open") && (f.merged == Some(true) || f.merged_at.is_some() || f.closed_at.is_some()) {
            return Err(HistoryGap::StateInconsistent);
        }
        if self.window.is_snapshot() {
            return self.lifecycle_at_capture(f, events);
        }
        match events {
            Some(evs) => self.lifecycle_from_history(f, evs),
            None => self.lifecycle_from_timestamps(f),
        }
    }

    /// The snapshot window's lifecycle: the captured state, with the history's last close
    /// and merge naming who did them when the body does not.
    fn lifecycle_at_capture<'e>(&self, f: &Final, events: Option<&'e [Event]>) -> Result<Lifecycle, HistoryGap> {
        // Used for the snapshot window only, where an undated event still happened
        // before capture.
        let last_close = |evs: &'e [Event], until: Instant| -> Option<&'e Event> {
            evs.iter().rfind(|e| e.event.as_deref() == Some("closed") && e.created_at.is_none_or(|t| t <= until))
        };
        let Some(state) = f.state else {
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
        Ok(Lifecycle {
            closed,
            closed_at: f.closed_at.or(close_ev.as_ref().and_then(|e| e.created_at)),
            closer,
            state_reason: f.state_reason.map(str::to_string).or(close_ev.as_ref().and_then(|e| e.state_reason.clone())),
            closed_by_commit: close_ev.as_ref().is_some_and(|e| e.commit_id.is_some()),
            merged: f.merged == Some(true),
            merged_at: f.merged_at,
            merger,
            basis: "final",
        })
    }

    /// A timed window's lifecycle replayed from the history (timeline or issue events): the
    /// closes, reopens and merges up to the window's end, with the captured state filling in
    /// what the history leaves out. An undated close, reopen or merge is a gap.
    fn lifecycle_from_history(&self, f: &Final, evs: &[Event]) -> Result<Lifecycle, HistoryGap> {
        let merged_by_time = f.merged_at.is_some_and(|t| t <= self.as_of);
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
        // The final close is the last one (a reopen after it would have left the object
        // open): closed at or before the window's end, it stands then, whether or not the
        // history recorded its event.
        if !lc.closed && !lc.merged && f.merged != Some(true) && f.state == Some("closed") && f.closed_at.is_some_and(|t| t <= self.as_of) {
            lc.closed = true;
            lc.closed_at = f.closed_at;
            lc.closer = f.closed_by.clone();
            lc.state_reason = f.state_reason.map(str::to_string);
        }
        if lc.merged {
            lc.closed = true;
        }
        // The captured state_reason belongs to the final close; it applies here when
        // this close is that one (no close or reopen after the window).
        if lc.closed && lc.state_reason.is_none() && f.state == Some("closed") {
            let later = evs.iter().filter(relevant).any(|e| e.created_at.is_some_and(|t| t > self.as_of));
            if !later {
                lc.state_reason = f.state_reason.map(str::to_string);
                if lc.closer.login.is_none() {
                    lc.closer = f.closed_by.clone();
                }
            }
        }
        if lc.closer.login.is_none() && f.closed_by.login.is_some() && lc.closed && lc.closed_at == f.closed_at {
            lc.closer = f.closed_by.clone();
        }
        Ok(lc)
    }

    /// A timed window's lifecycle with no history captured: only from the timestamps the
    /// body carries, when they settle the question on their own.
    fn lifecycle_from_timestamps(&self, f: &Final) -> Result<Lifecycle, HistoryGap> {
        if f.merged_at.is_some_and(|t| t <= self.as_of) {
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
        if f.state == Some("closed") && f.merged != Some(true) && f.closed_at.is_some_and(|t| t <= self.as_of) {
            return Ok(Lifecycle {
                closed: true,
                closed_at: f.closed_at,
                closer: f.closed_by.clone(),
                state_reason: f.state_reason.map(str::to_string),
                basis: "timestamps",
                ..Lifecycle::default()
            });
        }
        // Open at the window's end by every time the body carries: not merged by then, and
        // open at capture or closed only after it. Only a close and reopen inside the window
        // would leave no trace here; the `timestamps` basis says the history was not read.
        let after = |t: Option<Instant>| t.is_none_or(|t| t > self.as_of);
        let open_then = match f.state {
            Some("open") => f.merged != Some(true),
            Some("closed") => f.closed_at.is_some() && after(f.closed_at) && after(f.merged_at),
            _ => false,
        };
        if open_then {
            return Ok(Lifecycle { basis: "timestamps", ..Lifecycle::default() });
        }
        Err(HistoryGap::HistoryMissing)
    }

    /// The label set (lower case) at the window's end: the captured set with every label
    /// change after the window undone, newest first. A label whose recorded history does
    /// not explain its captured presence (the last event says `labeled` but the label is
    /// gone, or `unlabeled` but it is set) changed without a recorded event: its history is
    /// incomplete, so no timed window can say whether it was set, and it is returned in
    /// `unsettled` instead of being guessed from the final state.
    pub(crate) fn labels_as_of(&self, mut labels: Vec<String>, events: &[Event]) -> LabelsAsOf {
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
    pub(crate) fn events_inside<'b>(&self, events: Option<&'b [Event]>, kinds: &'b [&str]) -> impl Iterator<Item = &'b Event> + 'b {
        let (t0, as_of) = (self.t0, self.as_of);
        events.unwrap_or(&[]).iter().filter(move |e| e.event.as_deref().is_some_and(|k| kinds.contains(&k)) && inside_window(t0, as_of, e.created_at))
    }

    /// Whether the captured value of a field also held at the window's end: always in the
    /// snapshot window; otherwise when nothing at all changed after it (`updated_at`), or
    /// when history was captured and no event of `kinds` came after it.
    pub(crate) fn current_holds(&self, updated_at: Option<Instant>, events: Option<&[Event]>, kinds: &[&str]) -> bool {
        if self.window.is_snapshot() || updated_at.is_some_and(|u| u <= self.as_of) {
            return true;
        }
        match events {
            Some(evs) => !evs.iter().any(|e| e.event.as_deref().is_some_and(|k| kinds.contains(&k)) && e.created_at.is_none_or(|t| t > self.as_of)),
            None => false,
        }
    }
}
