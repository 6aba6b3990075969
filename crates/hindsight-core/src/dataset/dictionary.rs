//! The data dictionary: what every table holds and what its columns mean, in one place.
//! It is written into each Parquet file as field metadata (key `description`, and the
//! table's under the schema's `description`), printed by `hindsight describe`, shown by
//! the SQL shell's `\d TABLE`, and rendered as docs/DATASET.md (a test keeps that file
//! equal to [`markdown`]).

use std::collections::HashMap;
use std::sync::Arc;

use arrow::datatypes::{Field, Schema, SchemaRef};

/// The metadata key descriptions are written under, in fields and in the schema.
pub const KEY: &str = "description";

/// One table: what a row is, and its columns' meanings (columns not listed here take
/// [`COMMON`]'s meaning of the same name, if any).
pub struct TableDoc {
    pub name: &'static str,
    pub(crate) row: &'static str,
    pub columns: &'static [(&'static str, &'static str)],
}

/// Terms the dashboard and the columns use, defined once.
pub const TERMS: &[(&str, &str)] = &[
    ("window", "How long after an output was created its target is judged: `1h`, `24h`, `7d`, `30d` (by default; `--windows`) and `snapshot`, the state at capture time. A timed window is judged on the state rebuilt as of created_at + window from timestamped history; only what happened strictly after the output counts."),
    ("outcome_status", "What became of the output in the window: `accepted` (kept, merged, answered...), `rejected` (closed unmerged, removed, reverted...), `pending` (no decision yet), `ignored` (no response by anyone who counts), `skipped` (a type whose outcome no repository state shows, e.g. noop) or `unknown` (the evidence needed is missing: `human_check_signal` says why)."),
    ("evidence_strength", "How directly the evidence shows a person's decision: `strong` (an explicit act by a visible non-bot person, e.g. a merge), `medium` (a weaker human act, or a strong one whose actor was not captured), `weak` (the artifact merely still exists, or the deciding act was the workflow's own), `none`."),
    ("confidence", "How sure hindsight is that the evidence it used is complete and timed as it seems, separately from evidence_strength: `high` by default; `medium` when the actor of the deciding act was not captured, when the output's own time is unknown (all activity before capture counted), or when the labels an add_labels output added come from its request rather than the run's record; `low` when only a count is known (reactions whose authors and times were not captured). No rate uses it; filter on it to check a result's sensitivity."),
    ("evaluable_outputs", "Outputs whose state could be judged in the window: `outcome_status` not `skipped` and not `unknown`. The denominator of every acceptance rate."),
    ("strict_acceptance_rate", "Outputs accepted with `strong` evidence, divided by evaluable_outputs."),
    ("human_check_acceptance_rate", "Outputs accepted with `strong` or `medium` evidence, divided by evaluable_outputs."),
    ("sticky_artifact_rate", "Outputs accepted with only `weak` evidence, or whose only signal is that the target still exists (`target_exists_only`), divided by evaluable_outputs: artifacts that stayed without anyone visibly deciding to keep them. The three rates are never merged into one number."),
    ("RATE_ci_low, RATE_ci_high", "The 95% Wilson score interval of the rate they follow (z = 1.96), for its k of n (n: the rate's denominator, beside it): (k + z²/2 ∓ z·√(k(n−k)/n + z²/4)) / (n + z²). Unlike the plain ±1.96·√(p(1−p)/n), it stays within 0 to 1 and is not zero-width at 0 of n or n of n, so a rate over a few outputs shows how little it says. The HTML report draws it as each bar's error bar. NULL when n is 0."),
    ("cohort_outputs", "The one cohort of `accepted_over_time`, which compares windows: the outputs observable (`outcome_status` neither `skipped` nor `unknown`) at 24h, at 7d and at 30d, all three. It is the denominator of accepted_at_24h, accepted_at_7d and accepted_durable_at_30d alike, so they describe the same outputs; an output unknown in any of the three (too recent for 30d: `window_not_yet_observable`) is in none of them. The rates by window (acceptance_by_window and the others) each use their own window's evaluable_outputs instead, shown beside them. On an AIDev import, `aidev/accepted_over_time` forms the same cohort per agent (`cohort_prs`)."),
    ("unknown", "No verdict could be reached from the snapshot; `human_check_signal` names why: `window_not_yet_observable` (the window ends after the snapshot was captured: wait, or capture again later), `history_missing` (the timestamped history needed was not captured), `target_not_captured`, `capture_failed`, `missing_reference`, `execution_unrecorded`, `inconsistent_state`, `no_type_specific_evaluator`, and the others docs/RULES.md lists."),
];

/// Columns that mean the same in every table that has them.
pub(crate) const COMMON: &[(&str, &str)] = &[
    ("safe_output_id", "The safe output: `RUN_ID:ITEM_INDEX`."),
    ("run_id", "The workflow run's id (aw_info.json's, else the run records' or the run folder's name; `runs.run_id_source` says which)."),
    ("item_index", "The output's 0-based place among its run's items."),
    ("workflow_name", "The agentic workflow's name, from the run's aw_info.json."),
    ("safe_output_type", "The safe-output type as gh-aw names it (`create_pull_request`, `add_comment`, ...)."),
    ("target_repo", "The repository the output acts on, `OWNER/NAME`."),
    (
        "target_kind",
        "What the output acts on: `issue`, `pull_request`, `comment`, `discussion`, `review_thread`, `workflow_run`, ...; NULL when it names no target.",
    ),
    ("target_number", "The issue, PR or discussion number the output acts on."),
    ("created_at", "When it was created (UTC; for captured GitHub objects, GitHub's `created_at`)."),
    ("source_file", "The input file the row was read from, relative to its input."),
    ("source_line", "Where in its input file the row was read: the 1-based line (JSONL, CSV), or the item's 1-based place in a JSON file's list."),
    ("repo", "The repository, `OWNER/NAME`."),
    ("captured_at", "When the snapshot captured it (UTC)."),
    ("staged", "gh-aw's staged mode: the run previewed its outputs without performing them."),
    ("author", "Who wrote or opened it (GitHub login; NULL when not captured)."),
    ("author_type", "GitHub's account type of the author: `User`, `Bot`, `Organization`, `Mannequin`."),
    ("number", "The issue or PR number."),
    ("pull_number", "The pull request's number."),
    ("issue_number", "The issue's or PR's number (GitHub numbers both in one sequence)."),
    ("sha", "A commit SHA (40 hex characters as captured)."),
    ("comment_id", "The comment's id (GitHub's)."),
    ("trace_id", "The trace's id (the opentraces record's `trace_id`)."),
    ("task_id", "The task's id."),
];

pub(crate) const TABLES: &[TableDoc] = &[
    TableDoc {
        name: "outcomes",
        row: "A safe output in one evaluation window: what the repository did with it by the window's end, and how strong the evidence is.",
        columns: &[
            ("created_at", "When the output was created (UTC): the start of every window."),
            ("eval_window", "The window's name: `1h`, `24h`, `7d`, `30d` or `snapshot` (see *window*)."),
            ("window_order", "The window's place when sorting: its hours; `snapshot` sorts last."),
            ("evaluation_window_hours", "The window's length in hours; NULL for `snapshot`."),
            ("evaluated_at", "The instant the state is judged at: created_at + the window, or the capture time for `snapshot`."),
            ("outcome_status", "See *outcome_status*: accepted, rejected, pending, ignored, skipped or unknown."),
            ("evidence_strength", "See *evidence_strength*: strong, medium, weak or none."),
            ("human_check_signal", "The concrete thing a person would check to confirm the verdict (`pull_request_merged`, `target_exists_only`, `window_not_yet_observable`, ...)."),
            ("target_resolved", "Whether the output's target was found in the snapshot."),
            ("confidence", "See *confidence*: high, medium or low."),
            ("visible_non_bot_actor_count", "People (not bots, not the workflow's own identity) whose acts on the target the verdict saw."),
            ("bot_actor_count", "Bots whose acts on the target the verdict saw; they never count as a response."),
            ("time_to_outcome_hours", "Hours from created_at to the deciding event; NULL when nothing decided."),
            ("partial_score", "For partial outcomes, the share of the intended change that stuck (0 to 1); NULL otherwise."),
            ("details", "JSON object: the evidence behind the verdict (`state_basis`, `evidence`, `actor_captured`, ...; `zero_touch`, `resolution_sec`, `closed_by_bot` are the facts gh-aw's own summary counts); query with `->>` or json_get_str."),
            ("notes", "Free-text remarks on the verdict, separated by `; `; empty when none."),
            ("rule_id", "`TYPE/ROW`: the rule row that decided (docs/RULES.md lists every row)."),
        ],
    },
    TableDoc {
        name: "safe_outputs",
        row: "An action an agentic workflow took or asked for (a safe output), as the run recorded it.",
        columns: &[
            ("created_at", "When the output was created (UTC): the start of every window."),
            ("execution", "Whether it was performed: `executed`, `requested_only` (asked for, no record of it being performed), `staged`, `not_executed` (performed with an error), `unrecorded` (the run kept no record of executed items), `cancelled` (likewise, in a run GitHub recorded as cancelled: `run.json`)."),
            ("target_comment_id", "The comment the output acts on, when it acts on one."),
            ("target_url", "The target's URL as recorded."),
            ("target_node_id", "The target's GraphQL node id as the run recorded it (the output record's `target_node_id`, or the node id of the record's `target`); NULL when not recorded."),
            ("target_source", "How the target was found: `number`, `url`, `temporary_id`, `target` or `request`; NULL when there is none."),
            ("temporary_id", "gh-aw's temporary id of an item created in the same run, when the output names one."),
            ("actor", "The identity the output was written as, when recorded."),
            ("run_actor", "The run's triggering actor (aw_info.json)."),
            ("payload_hash", "sha256 of the payload as canonical JSON (keys sorted)."),
            ("patch_hash", "The hash of the output's patch as the run recorded it (`patch_hash`); NULL when not recorded."),
            ("base_ref", "The branch the change targets as the run recorded it (`base_ref`, or create_pull_request's `base`); NULL when not recorded."),
            ("head_ref", "The branch holding the change as the run recorded it (`head_ref`, or create_pull_request's `branch`); NULL when not recorded."),
            ("payload", "The output's record, verbatim JSON text; query with `->>` or json_get_str."),
            ("expected_state", "JSON object: execution-time evidence a rule compares with later state (labels added, commit SHAs, requested reviewers...)."),
            ("before_state", "JSON: the target's state before the output, when recorded."),
            ("after_state", "JSON: the target's state right after the output, when recorded."),
            ("source_format", "The record's layout: `gh-aw-manifest`, `normalized` or `agent-request`."),
        ],
    },
    TableDoc {
        name: "runs",
        row: "A workflow run of the study.",
        columns: &[
            ("run_id_source", "Where run_id came from: `aw_info`, `normalized_record` or `directory_name`."),
            ("repository", "The repository the workflow ran in (aw_info.json)."),
            ("actor", "The run's triggering actor (aw_info.json)."),
            ("run_dir", "The run's folder, relative to the runs directory."),
            ("executed_items", "Safe outputs the run performed."),
            ("requested_items", "Safe outputs the agent asked for."),
            ("error_count", "Errors the run recorded."),
            ("errors", "JSON array of the run's recorded errors."),
            ("aw_info", "The run's aw_info.json, verbatim; NULL when absent."),
        ],
    },
    TableDoc {
        name: "requests",
        row: "A request the agent made: an agent_output.json item or a safeoutputs.jsonl line.",
        columns: &[
            ("source_file", "The file the request is in, relative to the runs directory."),
            ("position", "1-based: the item's place in agent_output.json's `items`, or the line of safeoutputs.jsonl."),
            ("request_type", "The requested safe-output type."),
            ("payload", "The request, verbatim JSON text."),
            ("same_as", "For a log line repeating an agent_output.json item: `agent_output.json#POSITION`, so the request is counted once."),
        ],
    },
    TableDoc {
        name: "responses",
        row: "A captured API response (REST or GraphQL), body verbatim; grouped by repository, then path and page.",
        columns: &[
            ("path", "The API path captured (`repos/OWNER/NAME/pulls/7`, `graphql/...`)."),
            ("page", "The page of a paginated list, from 1."),
            ("status", "The HTTP status of the response."),
            ("repo", "The repository the path belongs to; NULL for paths outside repositories."),
            ("body", "The response body, verbatim."),
            ("superseded_by", "When a later capture of the same path is used instead, that capture's `FILE:LINE`; NULL for the one used."),
        ],
    },
    TableDoc {
        name: "quarantine",
        row: "An input record that could not be used, kept with where it came from and why.",
        columns: &[
            ("input", "Which input: `snapshot`, `runs`, `traces`, `tasks`, `aidev`..."),
            ("file", "The file, relative to its input directory."),
            ("line", "The 1-based line (NULL when not line-based)."),
            ("field", "The field at fault, when one is."),
            ("reason", "Why the record could not be used."),
            ("raw", "The record's text as read (invalid UTF-8 escaped)."),
        ],
    },
    TableDoc {
        name: "source_tables",
        row: "One of AIDev's tables as an import read it (`import aidev`): whether this copy of the release has it, so a query over a table the release lacks says so instead of counting nothing.",
        columns: &[
            ("table_name", "The dataset table (`aidev_reviews`, ...)."),
            ("release", "The AIDev release read: `v1`, `v3`, `v4` or `v5` (docs/AIDEV.md)."),
            ("present", "Whether this copy of the release has the table (in any agent's folder, for v1)."),
            ("read_from", "The files it was read from, comma-separated, relative to the AIDev folder."),
            ("rows", "The rows it holds in the dataset."),
        ],
    },
    TableDoc { name: "issues", row: "An issue as captured (the typed snapshot, flat for SQL).", columns: &[("is_pull_request", "Whether the issue is a PR (the issues API lists both)."), ("title", "The title at capture time."), ("state", "`open` or `closed` at capture time."), ("state_reason", "Why it was closed: `completed`, `not_planned`, `reopened`, ... (GitHub's)."), ("closed_at", "When it was last closed (UTC)."), ("closed_by", "Who closed it (login), when captured."), ("labels", "Its labels at capture time, comma-separated; NULL when the capture did not list them."), ("assignees", "Its assignees at capture time, comma-separated."), ("milestone_number", "Its milestone's number."), ("comments", "GitHub's count of its comments."), ("reactions_total", "GitHub's count of reactions to it."), ("body_hash", "sha256 of its body (the text itself is in `responses`).")] },
    TableDoc { name: "pull_requests", row: "A pull request as captured.", columns: &[("title", "The title at capture time."), ("state", "`open` or `closed` at capture time."), ("merged", "Whether it was merged."), ("draft", "Whether it was a draft."), ("merged_by", "Who merged it (login)."), ("closed_at", "When it was closed or merged (UTC)."), ("merged_at", "When it was merged (UTC)."), ("merge_commit_sha", "The merge commit's SHA (GitHub's test merge while open)."), ("head_ref", "The head branch's name."), ("head_sha", "The head commit's SHA at capture time."), ("base_ref", "The base branch's name."), ("labels", "Its labels at capture time, comma-separated.")] },
    TableDoc { name: "issue_comments", row: "A comment on an issue or PR as captured.", columns: &[("updated_at", "When it was last edited (UTC)."), ("reactions_total", "GitHub's count of reactions to it."), ("minimized", "Whether it was hidden (minimized), when the capture says so."), ("body", "The text as written (Markdown), as captured.")] },
    TableDoc { name: "reviews", row: "A PR review as captured.", columns: &[("review_id", "The review's id."), ("state", "`APPROVED`, `CHANGES_REQUESTED`, `COMMENTED`, `DISMISSED` or `PENDING`."), ("submitted_at", "When it was submitted (UTC)."), ("commit_id", "The commit it reviewed."), ("body", "The text as written (Markdown), as captured.")] },
    TableDoc { name: "review_comments", row: "A PR review comment as captured.", columns: &[("in_reply_to_id", "The comment it answers in its thread."), ("path", "The file it is on."), ("body", "The text as written (Markdown), as captured."), ("review_id", "The review it was written in (`pull_request_review_id`): a `COMMENTED` review with inline comments asks for a revision.")] },
    TableDoc { name: "commits", row: "A commit of a PR as captured.", columns: &[("position", "Its 0-based place in the PR's commit list (oldest first, as GitHub lists them)."), ("committer", "Who committed it (GitHub login)."), ("authored_at", "The git author date (UTC)."), ("committed_at", "The git committer date (UTC)."), ("message", "The commit message.")] },
    TableDoc { name: "timeline_events", row: "An issue or PR timeline event as captured.", columns: &[("source", "Which capture it came from: `timeline` or `events`."), ("position", "Its 0-based place in that list."), ("event_id", "GitHub's event id."), ("event", "The event's kind: `labeled`, `closed`, `merged`, `reopened`, `head_ref_force_pushed`, ..."), ("actor", "Who acted (login)."), ("actor_type", "GitHub's account type of the actor."), ("label", "The label, for label events."), ("commit_id", "The commit, for events that name one (closed by a commit, merged, referenced)."), ("state_reason", "The state reason, for closed and reopened events."), ("assignee", "The assignee, for assignment events."), ("source_number", "The issue or PR that referenced this one, for cross-referenced events.")] },
    TableDoc { name: "reactions", row: "A reaction as captured.", columns: &[("subject", "What was reacted to: `issue` or `issue_comment`."), ("subject_id", "The issue number or the comment id."), ("reaction_id", "The reaction's id."), ("content", "The reaction: `+1`, `-1`, `laugh`, `confused`, `heart`, `hooray`, `rocket`, `eyes`.")] },
    TableDoc { name: "issue_labels", row: "A label of an issue or PR at capture time.", columns: &[("label", "A label's name.")] },
    TableDoc { name: "ci_checks", row: "A check run or status context of a commit.", columns: &[("kind", "`check_run` (the checks API) or `status` (a commit status context)."), ("name", "The check's or context's name."), ("status", "A check run's status (`queued`, `in_progress`, `completed`, ...)."), ("conclusion", "A check run's conclusion, or a status context's state."), ("token", "The upper-cased state the CI gate reads: the conclusion, else the status."), ("fails", "Whether the token is a failing one (FAILURE, CANCELLED, TIMED_OUT, ACTION_REQUIRED, STARTUP_FAILURE, STALE)."), ("started_at", "When it started (UTC)."), ("completed_at", "When it completed (UTC).")] },
    TableDoc { name: "ci_commits", row: "A commit with its CI state and failure signature.", columns: &[("ci_state", "The commit's CI reduced as the CI gate reduces it: `success`, `failure`, `pending`, or `missing` (no check captured)."), ("checks", "How many checks and status contexts it has."), ("failing", "How many of them fail."), ("finished_at", "When its last check finished (UTC)."), ("failure_signature", "The failing checks and their first error lines, joined: the same signature on two pushes means the same failure.")] },
    TableDoc {
        name: "ci_gate",
        row: "An output that opened or pushed to a PR, with the CI gate replayed over it when it is an autoloop iteration: a program push to autoloop/{program} by the loop, with the loop's own fix pushes after it (outcome, pause reason, fix attempts, the loop's own record beside it).",
        columns: &[
            ("branch", "The PR's head branch (pulls/N `head.ref`, else the branch the output recorded)."),
            ("program", "`{program}` of a head branch `autoloop/{program}`; NULL on any other branch."),
            ("iteration", "Whether the output is an autoloop iteration: a push to autoloop/{program} by the loop (its commit carries autoloop's mark `[Autoloop: {program}]`, or the program's state file names its run, or its workflow is shown to be the loop so). NULL when that is unknown (`branch_unknown`, `loop_unknown`)."),
            ("pushes", "The loop's own pushes in the iteration: the program push and its fix pushes (ci_gate_steps rows with pusher `loop`)."),
            ("fix_attempts", "The loop's fix pushes before the gate decided: the decisive push's 0-based place among the loop's pushes. Commits by people or other automation are never fix attempts."),
            ("other_commits", "Commits by people or other automation between the loop's pushes: skipped, never fix attempts (ci_gate_steps rows with pusher `person` or `other_automation`)."),
            ("gate_outcome", "How the replay ended: `accepted`, `stuck`, `ci-fix-exhausted`, `ci-timeout`; why the gate cannot say: `ci_missing`, `ci_pending`, `red_unresolved`, `clock_unknown`, `pusher_unknown`, `push_unknown`, `no_commits`; or no iteration: `not_an_iteration`, `branch_unknown`, `loop_unknown`. `gate_note` says why for all but the gate's own decisions."),
            ("pause_reason", "Why the gate would pause the loop, in autoloop's words (`ci-fix-exhausted: <signature>`, `stuck in CI fix loop: <signature>`, `ci-timeout`)."),
            ("gate_note", "Why the gate cannot decide, or why the output is no iteration: what is missing or who pushed."),
            ("first_push_ci", "The program push's CI state."),
            ("accepted_sha", "The commit the gate accepted."),
            ("final_signature", "The failure signature of the loop's last push replayed."),
            ("paused", "Whether the gate would pause the loop."),
            ("loop_state", "The program's state file (autoloop's `{program}.md` on memory/autoloop), when captured."),
            ("loop_status", "The status the loop recorded for this iteration in its state file's Iteration History (the entry naming one of its pushes, else its run), normalized: `accepted`, `rejected`, `error`, `ci-fix-exhausted`, `pending-ci`, ..."),
            ("loop_check", "`loop_status` beside the gate's status for the iteration (`accepted`, or `ci-fix-exhausted` for any pause): `agrees`, `disagrees` (e.g. the loop accepted what the gate would not, or recorded `pending-ci` where the gate waits and decides) or `unknown`; NULL without a linked history entry."),
            ("loop_check_detail", "What was compared, in words."),
            ("accepted_while_ci_red", "Whether the loop recorded accepted a commit of this iteration whose CI was red."),
        ],
    },
    TableDoc {
        name: "ci_gate_steps",
        row: "A commit of a CI-gate iteration, from the program push on, with who pushed it and the gate's decision at it.",
        columns: &[
            ("step", "The commit's 0-based place in the iteration (push order)."),
            ("pushed_at", "When it was pushed: its commit's date, or a force push's timeline time (UTC)."),
            ("author", "Its author (GitHub login), or a force push's actor."),
            ("pusher", "Who pushed it: `loop` (this iteration's program push or a fix), `loop_next_iteration` (where the iteration ends), `person`, `other_automation`, or `unknown`."),
            ("ci_state", "Its CI state (as ci_commits)."),
            ("ci_finished_at", "When its CI finished (UTC)."),
            ("failure_signature", "Its failure signature (as ci_commits)."),
            ("decision", "What the gate decides at this push, or why the commit is no fix attempt."),
        ],
    },
    TableDoc {
        name: "ci_gate_loop_state",
        row: "An autoloop state file captured (`repos/O/R/contents/{program}.md`, from memory/autoloop), with what it records beside the CI gate replay of the iteration its newest history entry describes.",
        columns: &[
            ("state_file", "The state file's capture path."),
            ("program", "Its program: the Branch field's autoloop/{program}, else the file name."),
            ("pr", "Its PR field, when a number."),
            ("loop_paused", "Its Paused field."),
            ("loop_pause_reason", "Its Pause Reason field."),
            ("loop_recent_statuses", "Its Recent Statuses, normalized, oldest first (autoloop appends)."),
            ("loop_last_status", "The newest of its Recent Statuses."),
            ("newest_iteration", "The iteration number of its newest Iteration History entry."),
            ("newest_run", "The run that entry links."),
            ("newest_commit", "The commit that entry names."),
            ("safe_output_id", "The replayed iteration that entry describes (by its commit, else its run); NULL when none."),
            ("gate_outcome", "The gate's outcome for that iteration (as ci_gate)."),
            ("gate_status", "What the gate records for it: `accepted` or `ci-fix-exhausted`; NULL when the gate cannot decide."),
            ("gate_pause_reason", "The gate's pause reason for it."),
            ("comparison", "The state file beside the gate: `agrees` (status, pause and pause reason as the gate would record them), `disagrees`, or `unknown` (the gate cannot decide, the entry links no replayed iteration, or the file contradicts itself)."),
            ("detail", "What was compared, field by field, in words."),
        ],
    },
    TableDoc { name: "coverage", row: "A source file of a line coverage report a run uploaded (`lcov.info`, `coverage.xml`, `cobertura.xml`... in the run's folder): the lines its tests ran and those they did not. PR risk reads it for the lines a run's PR changed.", columns: &[("report", "The report file, relative to the runs directory."), ("format", "`lcov` or `cobertura`."), ("source_file", "The source file as the report names it (often an absolute or build-root path: matched to a PR's files by its ending)."), ("lines_found", "Lines the report lists (instrumented)."), ("lines_hit", "Of those, lines run at least once."), ("covered_lines", "The lines run, as ranges (`1-4,9`)."), ("uncovered_lines", "The instrumented lines not run, as ranges.")] },
    TableDoc { name: "pr_risk", row: "A PR an output opened or pushed to, or a task record's PR (`pr_url`), with its risk level (low, medium, high, critical; NULL without its captured files) and the reasons: one row per output, one per task.", columns: &[("task_id", "The task whose `pr_url` names the PR; NULL for an output's PR (then `safe_output_id` is set)."), ("risk_level", "`low`, `medium`, `high` or `critical` (the evaluation pipeline's tier 3); NULL when the PR's files were not captured."), ("files", "Files changed."), ("additions", "Lines added."), ("deletions", "Lines deleted."), ("modules", "The modules touched, one a line: each changed file's folder cut to its first two levels (`src/parser`; a top-level file is `.`); NULL when the files were not captured."), ("new_dependencies", "The dependencies a manifest's diff adds, `path: name` one a line (npm, Cargo, pip, pyproject, Go, Maven, Gradle; a version moved is no new dependency); NULL when the files were not captured."), ("changed_lines_covered", "Of the code lines the PR adds that its run's coverage report (table `coverage`; for a task's PR, the report of a run whose output opened or pushed to the same PR) instruments, the share the tests ran; NULL without a report or such a line (then a PR changing code and no test file is medium)."), ("dependents", "Files outside the PR that import a changed file, directly or through other files, up to the policy's `dependents_distance` imports away (Python, JavaScript/TypeScript, Rust, Go and Java imports resolved to the paths of the PR base's tree); NULL when that tree or the text of its source files was not captured (said in `not_captured`), never a guessed 0."), ("dependent_files", "Those files, `path (distance)` one a line, nearest first (distance 1 imports a changed file itself), the first 20, then `and N more`; NULL when `dependents` is."), ("dependents_lines_covered", "Of the dependents' code lines the run's coverage report instruments (table `coverage`; a task PR takes the report of a run on the same PR), the share its tests ran, 0 to 1; NULL without dependents, a report, or a dependent the report lists (then `not_captured` says so). Reported beside the level, which rests on `changed_lines_covered`."), ("not_captured", "What the level could not rest on, one a line: the run's coverage report, the coverage of the changed lines, a file's patch (GitHub leaves out binary and very large ones), the repository tree and file contents the dependents need; NULL when nothing is missing or the files were not captured."), ("reasons", "Every reason found, with the level it reaches.")] },
    TableDoc {
        name: "quality_findings",
        row: "A code-quality finding (the evaluation pipeline's tier 2; docs/TASKS.md, Code-quality findings) in a PR `pr_risk` assesses, read from its captured files' patches: one row per finding and per output or task whose PR it is. A PR whose files were not captured has no row (its `pr_risk.risk_level` is NULL).",
        columns: &[
            ("task_id", "The task whose `pr_url` names the PR; NULL for an output's PR (then `safe_output_id` is set)."),
            ("pr_number", "The pull request's number."),
            ("tier", "The tier of task evaluation: always 2 (code quality)."),
            ("rule", "`duplicated_block`, `complex_function`, `naming_convention` or `repository_rule` (the quality policy's rules)."),
            ("severity", "`info`, `warning` or `error`."),
            ("blocking", "Whether the severity is at or above the repository's blocking severity (the quality policy's `blocking_severity`, default `error`)."),
            ("file", "The file's path in the PR (after a rename)."),
            ("line", "The line in the new file the finding starts at, from the patch's hunk headers; NULL for a removed file."),
            ("message", "What was found, with where."),
            ("suggestion", "A concrete change that would resolve it."),
        ],
    },
    TableDoc {
        name: "pr_feedback",
        row: "A pull request of the snapshot with the evaluation pipeline's review figures (docs/TASKS.md); a figure whose capture is missing is NULL and `missing` names the capture.",
        columns: &[
            ("number", "The PR's number."),
            ("author", "The PR's author (login)."),
            ("opened_by", "`task` when a task's `pr_url` names the PR, `safe_output` when a create_pull_request safe output opened it, NULL otherwise (no agent's, as far as the study knows)."),
            ("created_at", "When the PR was opened (UTC)."),
            ("state", "`open` or `closed` at capture time: an open PR is undecided."),
            ("merged", "Whether the PR was merged at capture time."),
            ("review_rounds", "Review rounds that asked for a revision before the merge (all of them when not merged): the revision cycles. A round is the reviewers' reviews of one version of the PR (the commit reviewed, `commit_id`; else the PR's last commit committed by the review's time); it asked for a revision when a review in it requested changes or commented. NULL when the reviews were not captured or such a review's version cannot be told (`missing` says `review_commit`)."),
            ("first_review_merged", "Merged with no review asking for a revision before the merge (false when closed unmerged or asked). NULL while the PR is open (undecided), when the reviews were not captured, or when the merge state is unknown."),
            ("hours_to_pr", "Time to PR: hours from the submission of the task whose `pr_url` names the PR to its `pr_created` event (tasks.hours_to_pr; the earliest-submitted such task). NULL for a PR no task names, or when a time is missing."),
            ("first_review_at", "When a reviewer first reviewed the PR (the earliest submitted review by a reviewer, any state but `PENDING`; reviewers as for `reviewer_comments`). NULL when the reviews were not captured or nobody has reviewed it."),
            ("hours_to_first_review", "Hours from the PR's opening to `first_review_at`: the time to first review."),
            ("reviewer_comments", "Reviewer comments on the PR (review bodies, inline and conversation comments by visible non-bot accounts other than the author; commands to bots excluded; sources per policy). NULL when a source was not captured."),
            ("repeated_mistake_count", "Its reviewer comments that repeat a reviewer comment written on an earlier PR of the repository before this one was opened (review_feedback.repeats_*). NULL as reviewer_comments."),
            ("first_push_sha", "The head of the PR's first push: the last of its commits committed at or before the PR was opened, else its first commit. NULL when the commits were not captured."),
            ("first_push_ci", "That commit's CI state in ci_commits (`success`, `failure`, `pending`). NULL when its CI was not captured."), ("fix_attempts", "The fix cycle: pushes by the PR's author after a red CI, from the first push, as the CI gate replay counts autoloop's fix attempts (docs/TASKS.md, Fix cycles). NULL when a commit after a red push has no login (it may have been a fix) or the first push is unknown."), ("fix_result", "How the fix cycle ended: `accepted` (green), `stuck` (the same failure signature as the attempt before), `fix_exhausted` (still red after `feedback.fix_cycle_limit` attempts), `red_unresolved` (red, nothing pushed after), `ci_missing`, `ci_pending`, `pusher_unknown`; NULL without a first push."),
            ("missing", "The captures a figure needed and the snapshot lacks, comma-separated: `reviews`, `review_comments`, `comments`, `commits`, `ci`, `review_commit` (a review asking for a revision names no commit and the commits have no dates to place it). NULL when nothing is missing."),
        ],
    },
    TableDoc {
        name: "review_feedback",
        row: "A reviewer comment on a PR of the snapshot, with its normalized words and the earlier comment it repeats, if any (docs/TASKS.md).",
        columns: &[
            ("pull_number", "The PR commented on."),
            ("source", "Where it was written: `review` (a review's body), `review_comment` (inline on the diff), `conversation` (the PR's conversation)."),
            ("comment_id", "The review's or comment's id."),
            ("author", "Who wrote it (login)."),
            ("created_at", "When it was written (UTC; a review's submitted_at)."),
            ("tokens", "Its normalized words, sorted and space-separated, as compared; NULL when fewer than the policy's min_tokens remain (not compared)."),
            ("repeats_pull_number", "The earlier PR whose reviewer comment this one repeats (most similar; earliest on a tie); NULL when it repeats none."),
            ("repeats_source", "That comment's source."),
            ("repeats_comment_id", "That comment's id."),
            ("similarity", "The overlap coefficient of the two word sets, |A ∩ B| / min(|A|, |B|), rounded to 4 places."),
        ],
    },
    TableDoc { name: "traces", row: "An opentraces record, outcome and attribution flattened, the record verbatim; or a trace of OpenTelemetry spans and logs (OTLP/JSON), kept as an opentraces-shaped record (`metadata.source` `otlp`).", columns: &[("session_id", "The agent session's id."), ("schema_version", "The opentraces schema version of the record."), ("execution_context", "`devtime` or `runtime`."), ("timestamp_start", "When the trace started (UTC)."), ("timestamp_end", "When it ended (UTC)."), ("task_description", "`task.description`."), ("task_repository", "`task.repository`."), ("agent_name", "`agent.name`."), ("agent_model", "`agent.model`."), ("step_count", "Steps in the trace."), ("tool_call_count", "Tool calls in all its steps."), ("outcome_success", "`outcome.success` as recorded in the trace."), ("outcome_committed", "`outcome.committed`."), ("outcome_commit_sha", "`outcome.commit_sha`."), ("outcome_terminal_state", "`outcome.terminal_state`."), ("outcome_reward", "`outcome.reward`."), ("outcome_reward_source", "`outcome.reward_source`."), ("outcome_signal_source", "`outcome.signal_source`."), ("outcome_signal_confidence", "`outcome.signal_confidence`."), ("outcome_description", "`outcome.description`."), ("attribution_file_count", "Files in `attribution`."), ("metadata", "`metadata` as JSON text."), ("record", "The record verbatim, as read.")] },
    TableDoc { name: "trace_steps", row: "A step of a trace.", columns: &[("step_index", "The step's index."), ("role", "`user`, `agent`, `system`, ..."), ("model", "The model of the step, when recorded."), ("content", "The step's text."), ("timestamp", "When it happened (UTC)."), ("tool_call_count", "Tool calls in the step."), ("input_tokens", "Input tokens, when recorded."), ("output_tokens", "Output tokens, when recorded.")] },
    TableDoc { name: "trace_tool_calls", row: "A tool call of a trace step (inputs as JSON text).", columns: &[("step_index", "The step it belongs to."), ("position", "Its 0-based place in the step."), ("tool_call_id", "The call's id."), ("tool_name", "The tool called."), ("input", "The call's input, as JSON text."), ("duration_ms", "How long it took, when recorded."), ("observation", "What the tool returned: the step's observation for this call."), ("observation_error", "The observation's error, when there is one.")] },
    TableDoc { name: "trace_links", row: "A link from a trace to a safe output (kind and evidence, or why none).", columns: &[("link_kind", "How the trace was linked: `run_id`, `commit_sha` or `repository_pr`; NULL when it was not."), ("evidence", "What matched, or why nothing did.")] },
    TableDoc { name: "tasks", row: "A task record (with `--tasks`).", columns: &[("status", "`COMPLETED`, `FAILED`, `CANCELLED` or `TIMED_OUT`."), ("user_id", "The user the task ran for."), ("branch_name", "The agent's branch."), ("pr_url", "The PR the task opened, as recorded."), ("pr_repo", "The repository of `pr_url` (NULL when it is no GitHub PR URL): joins to the snapshot."), ("pr_number", "The number of `pr_url`."), ("issue_url", "The issue the task was opened from, as recorded."), ("issue_repo", "The repository of `issue_url` (NULL when it is no GitHub issue URL): joins to the snapshot's `issues`."), ("issue_number", "The number of `issue_url`."), ("head_sha", "The branch head at the task's end."), ("prompt_version", "The system prompt's version."), ("description", "The task's text as submitted (`description`): the files it names are what `change_outside_named_files` compares the PR with."), ("platform_risk_level", "The risk level the platform recorded on the task (`risk_level`: low, medium, high, critical), beside hindsight's own in `pr_risk`."), ("memory_version", "The state of the platform's memory the task ran with (`memory_version`: a version, snapshot id or hash, as recorded)."), ("hydration_score", "How well context hydration went, as the platform scored it (`hydration_score`, 0 to 1)."), ("error_message", "Why the task failed, as the platform recorded it."), ("duration_s", "Wall-clock seconds."), ("cost_usd", "Cost in US dollars."), ("input_tokens", "Tokens the model read over the task."), ("output_tokens", "Tokens the model wrote over the task."), ("build_passed", "Whether the build passed."), ("lint_passed", "Whether the linters passed."), ("test_runs", "Tool calls (`agent_tool_call`) whose command runs tests (`test_command_patterns`): the task's own tier-1 test runs."), ("test_runs_failed", "Results of those commands (`agent_tool_result`) with a non-zero `exit_code`."), ("lint_runs", "Tool calls whose command runs a linter or format check (`lint_command_patterns`)."), ("lint_runs_failed", "Results of those commands with a non-zero `exit_code`."), ("typecheck_runs", "Tool calls whose command runs a type checker (`typecheck_command_patterns`)."), ("typecheck_runs_failed", "Results of those commands with a non-zero `exit_code`."), ("security_scan_runs", "Tool calls whose command runs a static security scanner (`security_scan_command_patterns`)."), ("security_scan_runs_failed", "Results of those commands with a non-zero `exit_code`."), ("completed_at", "When it ended (UTC)."), ("submitted_at", "When the task was submitted: its first `task_created` event, else the record's `created_at` (UTC)."), ("hours_to_pr", "Time to PR: hours from `submitted_at` to the task's first `pr_created` event; NULL when either is missing."), ("scope", "The paths the task may change (`metadata.scope`), one a line."), ("metadata", "The record's `metadata`, canonical JSON.")] },
    TableDoc { name: "task_events", row: "A task event (with `--tasks`).", columns: &[("event_id", "The event's id."), ("event_type", "`task_created`, `pr_created`, `agent_tool_call`, `guardrail_blocked`, ... (any string is kept)."), ("timestamp", "When it happened (UTC)."), ("command", "`metadata.command`, for tool calls and results."), ("metadata", "The event's `metadata`, canonical JSON.")] },
    TableDoc { name: "insights", row: "An insight a platform's memory would take (with `--tasks`): an agent's self-feedback (an event with `metadata.insight_type` `agent_self_feedback`), or a failed task's category and evidence with the section of its prompt version it points at. `hindsight export --insights FILE` writes them as JSON Lines.", columns: &[("insight_id", "`self_feedback:EVENT_ID` or `failure:TASK_ID`."), ("insight_type", "`agent_self_feedback` or `failure_summary`."), ("timestamp", "When it was said (the event), or when the failed task ended (UTC)."), ("text", "The agent's answer, or the failure in words with its evidence."), ("source", "What it was read from: `task_events EVENT_ID` or `task_failures RULE_ID`."), ("prompt_version", "The task's prompt version."), ("prompt_section", "The heading of the section of that version's text (`prompts.jsonl`) the failure points at; NULL when the text was not given or no section speaks of the category."), ("failure_category", "The failed task's category (failure summaries)."), ("tokens", "Self-feedback's normalized words, as review comments'."), ("repeats_insight_id", "The earlier self-feedback, of another task in the same repository, this one repeats best: a recurring theme."), ("similarity", "The overlap coefficient with it.")] },
    TableDoc { name: "prompts", row: "A version of the system prompt as the platform kept it (`prompts.jsonl`, with `--tasks`): the platform default (`repo` NULL) or a repository's override.", columns: &[("prompt_version", "The version, as tasks' `prompt_version` names it."), ("released_at", "When it was released (UTC), as recorded."), ("text", "The prompt's text; Markdown headings cut it into sections.")] },
    TableDoc { name: "prompt_changes", row: "Two consecutive versions of the system prompt (`prompts.jsonl`, with `--tasks`): a repository's override, or the platform default (`repo` NULL), with the diff of their texts.", columns: &[("step", "The change's place among its repository's (or the default's): 1 for its first two versions, 2 for the next pair..."), ("from_version", "The earlier version."), ("to_version", "The later version."), ("from_released_at", "When the earlier version was released (UTC), as recorded."), ("to_released_at", "When the later version was released (UTC), as recorded."), ("ordered_by", "`released_at` when every version of the repository has a release time, else `version_name` (digit runs compared as numbers: v2 before v10)."), ("lines_added", "Lines of the later text not in the earlier."), ("lines_removed", "Lines of the earlier text not in the later."), ("sections_changed", "Headings of the sections added, removed or changed, one a line (the text before the first heading is the section \"\")."), ("diff", "The unified diff of the two texts, three lines of context.")] },
    TableDoc { name: "task_failures", row: "A failed, cancelled or timed-out task with its failure category, rule and evidence (with `--tasks`).", columns: &[("failure_category", "The primary category: `running_out_of_time`, `tool_or_environment_failure`, `failure_to_follow_instructions`, `missing_testing_or_verification`, `reasoning_error`, or `uncategorized` (no rule decided)."), ("rule_id", "The rule that decided (docs/TASKS.md); NULL for `uncategorized`."), ("evidence", "What the rule saw.")] },
    TableDoc { name: "commit_protocol", row: "An execution result judged by the commit protocol (after `hindsight gate --dataset`).", columns: &[("line", "The execution result's line in the results file."), ("evaluation_result", "The result the executor recorded."), ("commit_performed", "Whether it committed."), ("terminal_state", "The protocol's terminal state for it (docs/GATE.md)."), ("rejection_reason", "Why it was rejected, when it was."), ("violation_count", "Violations found (commit_protocol_violations)."), ("timestamp", "The result's timestamp, as written."), ("input_sha256", "sha256 of the result's line.")] },
    TableDoc { name: "commit_protocol_violations", row: "A commit-protocol violation (after `hindsight gate --dataset`).", columns: &[("line", "The execution result's line in the results file."), ("kind", "The violation's kind (docs/GATE.md)."), ("path", "The file concerned, when one is."), ("detail", "What was found.")] },
];

/// A view: not stored, but one `SELECT` over the table it reads (`queries/views/NAME.sql`,
/// [`crate::report::views::VIEWS`]), with every column of that table plus its own `columns`.
pub struct ViewDoc {
    pub name: &'static str,
    pub reads: &'static str,
    pub(crate) row: &'static str,
    pub columns: &'static [(&'static str, &'static str)],
}

/// The views the bundled queries read: each states once what several queries count.
pub const VIEWS: &[ViewDoc] = &[
    ViewDoc {
        name: "output_flags",
        reads: "outcomes",
        row: "A safe output in one window (a row of `outcomes`), with the flags the acceptance rates count, each 1 or 0: a rate is the sum of its flag divided by the sum of `evaluable`, over the same rows.",
        columns: &[
            ("evaluable", "1 when `outcome_status` is neither `skipped` nor `unknown` (see *evaluable_outputs*); its sum is the denominator of every acceptance rate."),
            ("strict_accepted", "1 when accepted with `strong` evidence: the numerator of *strict_acceptance_rate* (and `accepted_strong`)."),
            ("human_check_accepted", "1 when accepted with `strong` or `medium` evidence: the numerator of *human_check_acceptance_rate*, and of the accepted_at_* rates of `accepted_over_time`."),
            ("sticky_artifact", "1 when accepted with only `weak` evidence, or when `human_check_signal` is `target_exists_only`: the numerator of *sticky_artifact_rate*."),
        ],
    },
    ViewDoc {
        name: "pr_memory_figures",
        reads: "pr_feedback",
        row: "A pull request (a row of `pr_feedback`), with its term of each memory-effectiveness figure (docs/TASKS.md). Over a set of PRs, each figure is the mean of its term, a NULL left out (never counted as zero); repeated mistakes are the sum of `repeated_mistake_count`.",
        columns: &[
            ("first_review_merge", "1 when `first_review_merged` is true, 0 when false, NULL when that is NULL (the PR still open, its reviews not captured): first_review_merge_rate is its mean."),
            ("revision_cycles", "`review_rounds` of a merged PR, NULL when not merged or not known: mean_revision_cycles is its mean."),
            ("first_push_ci_pass", "1 when the first push's CI succeeded (`first_push_ci` `success`), 0 when it failed, NULL when it is pending or was not captured: first_push_ci_pass_rate is its mean."),
            ("review_comment_density", "`reviewer_comments` as a DOUBLE: review_comment_density, reviewer comments per PR, is its mean."),
        ],
    },
    ViewDoc {
        name: "pr_decisions",
        reads: "pr_memory_figures",
        row: "A pull request (a row of `pr_memory_figures`, so of `pr_feedback`), with whether the repository had decided it at capture: a merge rate is the merged PRs over the decided ones, a PR still open left out of both.",
        columns: &[
            ("decided", "true when the PR was merged, or closed unmerged, at capture; false while it is open: the denominator of the task sections' *merge_rate* (`prs_decided`)."),
        ],
    },
];

/// What a row of `aidev_*` tables is: AIDev's own tables, typed, with `agent` and
/// `source_line` added.
const AIDEV_ROW: &str =
    "A row of one of AIDev's tables (after `hindsight import aidev`), typed: a v1 CSV file, or the v3-v5 Parquet table it maps onto (docs/AIDEV.md); columns are AIDev's own (those a release lacks are null), plus `agent` (the agent folder, the PR's `agent`, `Human`, or null for repositories, users and issues) and `source_line` (the CSV line, or the Parquet row).";

pub fn table(name: &str) -> Option<&'static TableDoc> {
    TABLES.iter().find(|t| t.name == name)
}

/// Every table and view the dictionary describes, by name.
pub fn names() -> Vec<&'static str> {
    TABLES.iter().map(|t| t.name).chain(VIEWS.iter().map(|v| v.name)).collect()
}

pub(crate) fn view(name: &str) -> Option<&'static ViewDoc> {
    VIEWS.iter().find(|v| v.name == name)
}

/// What a row of `table` (or view) is.
pub fn row(table_name: &str) -> Option<&'static str> {
    table(table_name).map(|t| t.row).or_else(|| view(table_name).map(|v| v.row)).or_else(|| table_name.starts_with("aidev_").then_some(AIDEV_ROW))
}

/// The meaning of `column` in `table`: the table's own, else the common one. In a view: the
/// view's own, else the meaning in the table it reads.
pub fn column(table_name: &str, column: &str) -> Option<&'static str> {
    if let Some(v) = view(table_name) {
        return v.columns.iter().find(|(c, _)| *c == column).map(|(_, d)| *d).or_else(|| self::column(v.reads, column));
    }
    let own = table(table_name).and_then(|t| t.columns.iter().find(|(c, _)| *c == column)).map(|(_, d)| *d);
    own.or_else(|| COMMON.iter().find(|(c, _)| *c == column).map(|(_, d)| *d))
}

/// The columns that hold a JSON object or array as text, by name: those whose meaning here
/// starts with `JSON` (`details`, `errors`, ...), sorted. SQL results print their values as
/// JSON in the JSON formats, so a researcher's program reads them without parsing twice;
/// a column kept verbatim as its source wrote it (`payload`) says so instead and stays text.
pub fn json_columns() -> Vec<&'static str> {
    let tables = TABLES.iter().flat_map(|t| t.columns.iter());
    let views = VIEWS.iter().flat_map(|v| v.columns.iter());
    let mut names: Vec<&'static str> = tables.chain(views).chain(COMMON).filter(|(_, d)| d.starts_with("JSON")).map(|(c, _)| *c).collect();
    names.sort_unstable();
    names.dedup();
    names
}

/// `schema` with the table's and its columns' descriptions as metadata (other metadata
/// kept). A table the dictionary does not know is returned as it is.
pub(crate) fn annotate(table_name: &str, schema: SchemaRef) -> SchemaRef {
    let Some(row) = row(table_name) else { return schema };
    let fields: Vec<Field> = schema
        .fields()
        .iter()
        .map(|f| match column(table_name, f.name()) {
            Some(d) => {
                let mut m: HashMap<String, String> = f.metadata().clone();
                m.insert(KEY.into(), d.into());
                f.as_ref().clone().with_metadata(m)
            }
            None => f.as_ref().clone(),
        })
        .collect();
    let mut meta = schema.metadata().clone();
    meta.insert(KEY.into(), row.into());
    Arc::new(Schema::new_with_metadata(fields, meta))
}

/// Plain text for `hindsight describe` without a dataset: every table and what a row is,
/// or one table's row and its own columns' meanings.
pub fn text(table_name: Option<&str>) -> Option<String> {
    let Some(name) = table_name else {
        let mut s = String::new();
        for t in TABLES {
            s.push_str(&format!("{:<28} {}\n", t.name, t.row));
        }
        s.push_str(&format!("{:<28} {AIDEV_ROW}\n", "aidev_*"));
        for v in VIEWS {
            s.push_str(&format!("{:<28} (a view over {}) {}\n", v.name, v.reads, v.row));
        }
        return Some(s);
    };
    let mut s = format!("{name}, one row per: {}\n", row(name)?);
    if let Some(v) = view(name) {
        s.push_str(&format!("  (a view: every column of {}, and)\n", v.reads));
    }
    for (c, d) in table(name).map(|t| t.columns).or_else(|| view(name).map(|v| v.columns)).unwrap_or_default() {
        s.push_str(&format!("  {c:<28} {d}\n"));
    }
    s.push_str("(columns of the same name in several tables: docs/DATASET.md; with --dataset, every column with its type)\n");
    Some(s)
}

/// docs/DATASET.md.
pub fn markdown() -> String {
    let mut s = String::from(
        "# The dataset\n\n<!-- Generated from crates/hindsight-core/src/dataset/dictionary.rs by `hindsight describe --markdown`; a test keeps it current (HINDSIGHT_BLESS=1 rewrites it). -->\n\n\
         A dataset is a directory of Parquet tables, one file per table, and `manifest.json`. Each column's meaning below is also in \
         the Parquet files, as field metadata under the key `description` (the table's under the schema's), and printed by \
         `hindsight describe TABLE`.\n\n## Terms\n\n",
    );
    for (t, d) in TERMS {
        s.push_str(&format!("- **{t}**: {d}\n"));
    }
    s.push_str("\n## Columns in several tables\n\n| column | meaning |\n|---|---|\n");
    for (c, d) in COMMON {
        s.push_str(&format!("| `{c}` | {} |\n", d.replace('|', "\\|")));
    }
    s.push_str("\n## Tables\n");
    for t in TABLES {
        s.push_str(&format!("\n### `{}`\n\nOne row per: {}\n", t.name, t.row));
        if !t.columns.is_empty() {
            s.push_str("\n| column | meaning |\n|---|---|\n");
            for (c, d) in t.columns {
                s.push_str(&format!("| `{c}` | {} |\n", d.replace('|', "\\|")));
            }
        } else {
            s.push_str("\nIts columns are not described here yet beyond the common ones; `hindsight describe` lists them with their types.\n");
        }
    }
    s.push_str(&format!("\n### `aidev_*`\n\nOne row per: {AIDEV_ROW}\n"));
    s.push_str(
        "\n## Views\n\nA view is not stored: it is one `SELECT` over a table, in `queries/views/NAME.sql`. The bundled queries read \
         the views, so a condition they count or a figure's formula is written once, there. hindsight's SQL (`report`, `sql`, \
         `check`) has each view whose table and columns the dataset has; `hindsight views` prints the statements that define them \
         in DuckDB and datafusion-cli, after the tables' statements.\n",
    );
    for v in VIEWS {
        s.push_str(&format!("\n### `{}`\n\nOne row per: {}\n\nEvery column of `{}`, and:\n\n| column | meaning |\n|---|---|\n", v.name, v.row, v.reads));
        for (c, d) in v.columns {
            s.push_str(&format!("| `{c}` | {} |\n", d.replace('|', "\\|")));
        }
    }
    s
}
