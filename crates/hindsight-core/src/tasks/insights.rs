//! The feedback loop as data (docs/TASKS.md, "The feedback loop"): the insights a platform's
//! memory would take, and how its system prompt changed between versions.
//!
//! ## What it builds
//! - **`insights`**: one row per insight. An agent's self-feedback (an event whose
//!   `metadata.insight_type` is `agent_self_feedback`, or whose type is, with its answer in
//!   `metadata.text`), and, for every failed task with a category, the failure summary a
//!   memory should take: the category in words and the evidence, with the section of the
//!   task's prompt version it points at. Self-feedback that repeats an earlier task's in the
//!   same repository (the repeated-mistake similarity of review feedback) names it:
//!   recurring themes.
//! - **`prompt_changes`**: one row per pair of consecutive versions of the system prompt
//!   (per repository override, and the platform default), with the unified diff of their
//!   texts and the sections that changed.
//!
//! ## Why
//! The evaluation pipeline asks for self-feedback "aggregated by repository" with recurring
//! themes, for "suggested prompt or memory updates" per task, and for prompt diffs
//! "reviewable like code diffs". hindsight writes nothing back to the platform, so these
//! are tables (and `hindsight export --insights FILE`, a JSON Lines file a platform can
//! load), computed from what was recorded: no model is run, the same records give the
//! same bytes.
//!
//! ## Example
//! Task `t-9` failed by `no_test_run`; its prompt version `v2` has a section `## Testing`.
//! Its insight reads "The change was not tested or verified: no agent_tool_call runs tests;
//! build_passed false", `prompt_section` `Testing`.

use std::collections::BTreeMap;

use super::categorize::{Failure, FailureCategory};
use super::{Task, TaskEvent};
use crate::feedback::similarity;
use crate::feedback::FeedbackPolicy;
use crate::time::Instant;

/// One version of the system prompt (`prompts.jsonl`): the platform default (`repo` null) or
/// a repository's override.
#[derive(Clone, Debug, PartialEq)]
pub struct PromptText {
    pub(crate) repo: Option<String>,
    pub(crate) prompt_version: String,
    pub(crate) text: String,
    pub(crate) released_at: Option<Instant>,
    pub(crate) source_line: i64,
}

/// Where an insight comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum InsightType {
    /// The agent's answer to "what context was missing?" at the end of its task.
    AgentSelfFeedback,
    /// A failed task's category and evidence, for a memory to take.
    FailureSummary,
}

impl InsightType {
    pub fn as_str(self) -> &'static str {
        match self {
            InsightType::AgentSelfFeedback => "agent_self_feedback",
            InsightType::FailureSummary => "failure_summary",
        }
    }
}

/// One row of `insights`.
#[derive(Clone, Debug, PartialEq)]
pub struct Insight {
    /// `self_feedback:EVENT_ID` or `failure:TASK_ID`.
    pub insight_id: String,
    pub task_id: String,
    pub repo: Option<String>,
    pub insight_type: InsightType,
    pub timestamp: Option<Instant>,
    pub text: String,
    /// What it was read from: `task_events EVENT_ID` or `task_failures RULE_ID`.
    pub source: String,
    pub prompt_version: Option<String>,
    /// The heading of the prompt version's section the insight points at.
    pub prompt_section: Option<String>,
    pub failure_category: Option<FailureCategory>,
    /// The normalized words compared for recurring themes (self-feedback only).
    pub tokens: Option<String>,
    /// The earlier self-feedback, of another task of the repository, this one repeats best.
    pub repeats_insight_id: Option<String>,
    pub similarity: Option<f64>,
}

/// The members of an event's `metadata` that may hold the agent's answer, first found wins.
pub(crate) const ANSWER_MEMBERS: [&str; 5] = ["text", "content", "insight", "response", "message"];

/// What the insight of each failure category says, before its evidence.
fn summary(c: FailureCategory) -> &'static str {
    match c {
        FailureCategory::RunningOutOfTime => "The task ran out of time before it finished",
        FailureCategory::ToolOrEnvironmentFailure => "A tool or the environment failed",
        FailureCategory::FailureToFollowInstructions => "The change went beyond what the task asked",
        FailureCategory::MissingTestingOrVerification => "The change was not tested or verified",
        FailureCategory::ReasoningError => "The change failed its own checks",
        FailureCategory::Uncategorized => "The task failed for a reason no rule decides",
    }
}

/// The words (as [`similarity::tokens`] keeps them) that tie a prompt section to a failure
/// category: a section whose heading or text holds them is where a fix to the prompt goes.
pub(crate) fn section_words(c: FailureCategory) -> &'static [&'static str] {
    match c {
        FailureCategory::RunningOutOfTime => &["time", "timeout", "duration", "budget", "limit", "plan", "planning"],
        FailureCategory::ToolOrEnvironmentFailure => &["environment", "setup", "tool", "install", "dependency", "dependencies", "network", "build"],
        FailureCategory::FailureToFollowInstructions => &["instruction", "scope", "requirement", "task", "file"],
        FailureCategory::MissingTestingOrVerification => &["test", "testing", "verify", "verification", "lint", "linter", "check"],
        FailureCategory::ReasoningError => &["approach", "reasoning", "plan", "design", "debug", "debugging", "test", "testing"],
        FailureCategory::Uncategorized => &[],
    }
}

/// A prompt's sections: (heading, text) at each Markdown heading (`#` to `######` and a
/// space); the text before the first heading is the section with heading "".
pub(crate) fn sections(text: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = vec![(String::new(), String::new())];
    for line in text.lines() {
        let hashes = line.chars().take_while(|c| *c == '#').count();
        let heading = (1..=6).contains(&hashes) && line[hashes..].starts_with(' ');
        if heading {
            out.push((line[hashes..].trim().to_string(), String::new()));
        } else if let Some(last) = out.last_mut() {
            last.1.push_str(line);
            last.1.push('\n');
        }
    }
    if out[0].1.trim().is_empty() {
        out.remove(0);
    }
    out
}

/// The section of `text` a failure of category `c` points at: the most of the category's
/// words in its heading (each worth ten in its text), the first on a tie; none when no
/// section holds one of them.
pub(crate) fn section_for(text: &str, c: FailureCategory) -> Option<String> {
    let words = section_words(c);
    let score = |s: &str| similarity::tokens(s).iter().filter(|w| words.contains(&w.as_str())).count();
    let mut best: Option<(usize, String)> = None;
    for (heading, body) in sections(text) {
        let points = 10 * score(&heading) + score(&body);
        if points > 0 && best.as_ref().is_none_or(|(b, _)| points > *b) {
            best = Some((points, heading));
        }
    }
    best.map(|(_, h)| h)
}

/// The text of `version` a task of `repo` ran with: the repository's override, else the
/// platform default.
fn prompt_of<'a>(prompts: &'a [PromptText], repo: Option<&str>, version: &str) -> Option<&'a PromptText> {
    let of = |r: Option<&str>| prompts.iter().find(|p| p.prompt_version == version && p.repo.as_deref() == r);
    repo.and_then(|r| of(Some(r))).or_else(|| of(None))
}

/// The agent's answer in a self-feedback event, when the event is one.
fn self_feedback(e: &TaskEvent) -> Option<&str> {
    let marked = e.event_type == "agent_self_feedback" || e.meta_str("insight_type") == Some("agent_self_feedback");
    marked.then(|| ANSWER_MEMBERS.iter().find_map(|m| e.meta_str(m).filter(|t| !t.trim().is_empty()))).flatten()
}

/// Every insight, by (repository, time, id); recurring self-feedback marked under `policy`
/// (its `threshold`, `min_tokens` and `min_size_ratio`; compared within a repository).
pub fn insights(tasks: &[Task], events: &[TaskEvent], failures: &[Failure], prompts: &[PromptText], policy: &FeedbackPolicy) -> Vec<Insight> {
    let by_id: BTreeMap<&str, &Task> = tasks.iter().map(|t| (t.task_id.as_str(), t)).collect();
    let repo_of = |t: Option<&&Task>| t.and_then(|t| t.repo.clone().or_else(|| t.pull_request().map(|(r, _)| r)));
    let mut out = Vec::new();
    for e in events {
        let Some(text) = self_feedback(e) else { continue };
        let task = by_id.get(e.task_id.as_str());
        let tokens = similarity::tokens(text);
        out.push(Insight {
            insight_id: format!("self_feedback:{}", e.event_id),
            task_id: e.task_id.clone(),
            repo: e.meta_str("repo").map(str::to_string).or_else(|| repo_of(task)),
            insight_type: InsightType::AgentSelfFeedback,
            timestamp: Some(e.timestamp),
            text: text.to_string(),
            source: format!("task_events {}", e.event_id),
            prompt_version: task.and_then(|t| t.prompt_version.clone()),
            prompt_section: None,
            failure_category: None,
            tokens: Some(tokens.into_iter().collect::<Vec<_>>().join(" ")),
            repeats_insight_id: None,
            similarity: None,
        });
    }
    for f in failures.iter().filter(|f| f.category != FailureCategory::Uncategorized) {
        let task = by_id.get(f.task_id.as_str());
        let repo = repo_of(task);
        let version = task.and_then(|t| t.prompt_version.clone());
        let section = version.as_deref().and_then(|v| prompt_of(prompts, repo.as_deref(), v)).and_then(|p| section_for(&p.text, f.category));
        out.push(Insight {
            insight_id: format!("failure:{}", f.task_id),
            task_id: f.task_id.clone(),
            repo,
            insight_type: InsightType::FailureSummary,
            timestamp: task.and_then(|t| t.completed_at),
            text: format!("{}: {}", summary(f.category), f.evidence.as_deref().unwrap_or("")),
            source: format!("task_failures {}", f.rule_id.unwrap_or("")),
            prompt_version: version,
            prompt_section: section,
            failure_category: Some(f.category),
            tokens: None,
            repeats_insight_id: None,
            similarity: None,
        });
    }
    mark_recurring(&mut out, policy);
    out.sort_by(|a, b| (&a.repo, a.timestamp, &a.insight_id).cmp(&(&b.repo, b.timestamp, &b.insight_id)));
    out
}

/// Self-feedback repeating an earlier task's in the same repository, found as repeated
/// review comments are ([`crate::feedback::repeats_among`]).
fn mark_recurring(insights: &mut [Insight], policy: &FeedbackPolicy) {
    let said: Vec<crate::feedback::Said> = insights
        .iter()
        .map(|i| crate::feedback::Said {
            repo: i.repo.clone().unwrap_or_default(),
            owner: i.task_id.clone(),
            at: i.timestamp.filter(|_| i.repo.is_some() && i.tokens.is_some()),
            text_words: i.tokens.clone(),
        })
        .collect();
    for (k, found) in crate::feedback::repeats_among(&said, policy).into_iter().enumerate() {
        if let Some((e, score)) = found {
            insights[k].repeats_insight_id = Some(insights[e].insight_id.clone());
            insights[k].similarity = Some(score);
        }
    }
}

/// One row of `prompt_changes`.
#[derive(Clone, Debug, PartialEq)]
pub struct PromptChange {
    pub repo: Option<String>,
    /// The change's place among its repository's: 1 for the first two versions, and so on.
    pub step: i64,
    pub from_version: String,
    pub to_version: String,
    pub from_released_at: Option<Instant>,
    pub to_released_at: Option<Instant>,
    /// `released_at` when every version of the repository has one, else `version_name`.
    pub ordered_by: &'static str,
    pub lines_added: i64,
    pub lines_removed: i64,
    /// Headings of the sections added, removed or changed, one a line.
    pub sections_changed: String,
    /// The unified diff of the two texts (three lines of context).
    pub diff: String,
}

/// A version name's order when no release time tells it: digit runs compared as numbers
/// (`v2` before `v10`), the rest as text.
fn natural_key(s: &str) -> Vec<(String, u128)> {
    let mut out = Vec::new();
    let mut rest = s;
    while !rest.is_empty() {
        let text_len = rest.find(|c: char| c.is_ascii_digit()).unwrap_or(rest.len());
        let (text, tail) = rest.split_at(text_len);
        let digits = tail.find(|c: char| !c.is_ascii_digit()).unwrap_or(tail.len());
        let (n, tail) = tail.split_at(digits);
        out.push((text.to_string(), n.parse().unwrap_or(u128::MAX)));
        rest = tail;
    }
    out
}

/// Consecutive versions of each repository's prompt (and the platform default), diffed.
pub fn prompt_changes(prompts: &[PromptText]) -> Vec<PromptChange> {
    let mut groups: BTreeMap<Option<&str>, Vec<&PromptText>> = BTreeMap::new();
    for p in prompts {
        groups.entry(p.repo.as_deref()).or_default().push(p);
    }
    let mut out = Vec::new();
    for (repo, mut versions) in groups {
        let dated = versions.iter().all(|p| p.released_at.is_some());
        if dated {
            versions.sort_by(|a, b| (a.released_at, natural_key(&a.prompt_version)).cmp(&(b.released_at, natural_key(&b.prompt_version))));
        } else {
            versions.sort_by_key(|p| natural_key(&p.prompt_version));
        }
        for (k, pair) in versions.windows(2).enumerate() {
            out.push(PromptChange { step: k as i64 + 1, ..change(repo, pair[0], pair[1], if dated { "released_at" } else { "version_name" }) });
        }
    }
    out
}

fn change(repo: Option<&str>, from: &PromptText, to: &PromptText, ordered_by: &'static str) -> PromptChange {
    let diff = similar::TextDiff::from_lines(&from.text, &to.text);
    let (mut added, mut removed) = (0, 0);
    for c in diff.iter_all_changes() {
        match c.tag() {
            similar::ChangeTag::Insert => added += 1,
            similar::ChangeTag::Delete => removed += 1,
            similar::ChangeTag::Equal => {}
        }
    }
    let unified = diff.unified_diff().context_radius(3).header(&from.prompt_version, &to.prompt_version).to_string();
    // A section's text compared without the blank lines around it: a section followed by a
    // new one gains a blank line, not a change.
    let trimmed = |t: &str| -> BTreeMap<String, String> { sections(t).into_iter().map(|(h, b)| (h, b.trim().to_string())).collect() };
    let (a, b) = (trimmed(&from.text), trimmed(&to.text));
    let mut changed: Vec<&str> = a.keys().chain(b.keys()).filter(|h| a.get(*h) != b.get(*h)).map(String::as_str).collect();
    changed.sort_unstable();
    changed.dedup();
    PromptChange {
        repo: repo.map(str::to_string),
        step: 0,
        from_version: from.prompt_version.clone(),
        to_version: to.prompt_version.clone(),
        from_released_at: from.released_at,
        to_released_at: to.released_at,
        ordered_by,
        lines_added: added,
        lines_removed: removed,
        sections_changed: changed.join("\n"),
        diff: unified,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PROMPT: &str = "You are a coding agent.\n\n## Environment\nUse the devcontainer.\n\n## Testing\nRun the test suite before opening a PR.\n";

    #[test]
    fn a_failure_points_at_the_section_its_category_names() {
        assert_eq!(section_for(PROMPT, FailureCategory::MissingTestingOrVerification).as_deref(), Some("Testing"));
        assert_eq!(section_for(PROMPT, FailureCategory::ToolOrEnvironmentFailure).as_deref(), Some("Environment"));
        // No section speaks of time: none is named, rather than the nearest.
        assert_eq!(section_for(PROMPT, FailureCategory::RunningOutOfTime), None);
        assert_eq!(sections(PROMPT).iter().map(|(h, _)| h.as_str()).collect::<Vec<_>>(), ["", "Environment", "Testing"]);
    }

    #[test]
    fn versions_are_ordered_by_release_and_else_by_name_as_numbers() {
        let p = |v: &str, at: Option<&str>| PromptText {
            repo: None,
            prompt_version: v.into(),
            text: format!("# Rules\n{v}\n"),
            released_at: at.and_then(crate::time::parse),
            source_line: 1,
        };
        let named = prompt_changes(&[p("v10", None), p("v2", None), p("v9", None)]);
        assert_eq!(named.iter().map(|c| (c.from_version.as_str(), c.to_version.as_str(), c.ordered_by)).collect::<Vec<_>>(), [("v2", "v9", "version_name"), ("v9", "v10", "version_name")]);
        let dated = prompt_changes(&[p("b", Some("2026-01-01T00:00:00Z")), p("a", Some("2026-02-01T00:00:00Z"))]);
        assert_eq!((dated[0].from_version.as_str(), dated[0].to_version.as_str(), dated[0].ordered_by), ("b", "a", "released_at"));
        assert_eq!((dated[0].lines_added, dated[0].lines_removed, dated[0].sections_changed.as_str()), (1, 1, "Rules"));
        assert!(dated[0].diff.starts_with("--- b\n+++ a\n@@"), "{}", dated[0].diff);
    }
}
