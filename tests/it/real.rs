//! Rules and readers on real recorded GitHub bodies (`fixtures/real/`, sources in its
//! README), one test per class of defect seen on real captures: the bodies are used
//! verbatim (only their insignificant white space is removed to fit a cassette line); what
//! a test adds around them (the agent's item, a crafted list) is named where it is made.

use std::path::Path;

use serde_json::{json, Value};

use crate::support::{evaluate, fixture, ok, Study};

/// A real body's text, verbatim.
fn body(rel: &str) -> String {
    std::fs::read_to_string(fixture("real/bodies").join(rel)).unwrap()
}

/// (window, status, strength, signal) of every outcome, and each window's details.
fn outcomes(ds: &Path) -> Vec<(String, String, String, String, Value)> {
    let out = ok(
        &[
            "report",
            "--dataset",
            ds.to_str().unwrap(),
            "--format",
            "json",
            "--sql",
            "SELECT eval_window, outcome_status, evidence_strength, human_check_signal, details FROM outcomes ORDER BY window_order",
        ],
        ds.parent().unwrap(),
    );
    let rows: Vec<Value> = serde_json::from_str(&out).unwrap();
    rows.iter()
        .map(|r| {
            let s = |k: &str| r[k].as_str().unwrap_or_default().to_string();
            (
                s("eval_window"),
                s("outcome_status"),
                s("evidence_strength"),
                s("human_check_signal"),
                if r["details"].is_null() { serde_json::json!({}) } else { r["details"].clone() },
            )
        })
        .collect()
}

fn at<'a>(rows: &'a [(String, String, String, String, Value)], window: &str) -> (&'a str, &'a str, &'a str) {
    let r = rows.iter().find(|r| r.0 == window).unwrap_or_else(|| panic!("no {window} row"));
    (r.1.as_str(), r.2.as_str(), r.3.as_str())
}

/// Class 1. PyGithub#28: the timeline records `v1` labeled in 2014 and no `unlabeled`, yet
/// the issue as captured in 2025 no longer carries it. Only the snapshot window may use
/// the final state; the timed windows cannot say when `v1` went.
#[test]
fn a_label_missing_at_capture_settles_only_the_snapshot_window() {
    let tmp = tempfile::tempdir().unwrap();
    let s = Study::write(tmp.path(), "2025-08-17T00:00:00Z");
    s.capture("c.jsonl", "repos/PyGithub/PyGithub/issues/28", 200, &body("pygithub/issue-28-plain-issue-modern-fields-2025.json"), None)
        .capture("c.jsonl", "repos/PyGithub/PyGithub/issues/28/timeline", 200, &body("pygithub/timeline-issue-28-ghost-actor-cross-referenced.json"), None)
        .item("101", "PyGithub/PyGithub", json!({"type": "add_labels", "number": 28, "labelsAdded": ["v1"], "timestamp": "2014-03-02T18:55:00Z"}));
    let rows = outcomes(&s.run(tmp.path(), "ds"));
    for w in ["1h", "24h", "7d", "30d"] {
        assert_eq!(at(&rows, w), ("unknown", "none", "history_missing"), "{w}");
    }
    assert_eq!(at(&rows, "snapshot"), ("rejected", "medium", "labels_removed"));
}

/// Class 1. A comment that answered 404 (GitHub's own 404 body, recorded by PyGithub) was
/// deleted at some time before capture: `snapshot` says so, the timed windows cannot.
#[test]
fn a_404_settles_only_the_snapshot_window() {
    let tmp = tempfile::tempdir().unwrap();
    let s = Study::write(tmp.path(), "2026-02-01T00:00:00Z");
    s.capture("c.jsonl", "repos/PyGithub/PyGithub/issues/comments/7", 404, &body("pygithub/error-404-repo-not-found-2012.json"), None).item(
        "102",
        "PyGithub/PyGithub",
        json!({"type": "add_comment", "url": "https://github.com/PyGithub/PyGithub/issues/28#issuecomment-7", "timestamp": "2026-01-01T00:00:00Z"}),
    );
    let rows = outcomes(&s.run(tmp.path(), "ds"));
    assert_eq!(at(&rows, "24h"), ("unknown", "none", "history_missing"));
    assert_eq!(at(&rows, "snapshot"), ("rejected", "medium", "comment_deleted"));
}

/// Class 11. A repository that itself answered 404 (the real body) takes its issues with it.
#[test]
fn a_target_in_a_repository_captured_as_404_is_gone() {
    let tmp = tempfile::tempdir().unwrap();
    let s = Study::write(tmp.path(), "2012-06-03T00:00:00Z");
    s.capture("c.jsonl", "repos/jacquev6/Xxx", 404, &body("pygithub/error-404-repo-not-found-2012.json"), None).item(
        "103",
        "jacquev6/Xxx",
        json!({"type": "create_issue", "number": 1, "timestamp": "2012-06-01T00:00:00Z"}),
    );
    let rows = outcomes(&s.run(tmp.path(), "ds"));
    assert_eq!(at(&rows, "snapshot"), ("unknown", "none", "target_deleted"));
}

/// Class 2. freeCodeCamp#47594: review requested from naomi-lgbt, who reviewed 7.9 hours
/// later. A 403 (GitHub's real abuse-limit body) on the PR's reactions, which this rule
/// never reads, changes nothing.
#[test]
fn an_irrelevant_failed_capture_blocks_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let s = Study::write(tmp.path(), "2022-11-01T00:00:00Z");
    s.capture(
        "c.jsonl",
        "repos/freeCodeCamp/freeCodeCamp/issues/47594/timeline",
        200,
        &body("hossain-khan-github-stats/timeline-freecodecamp-47594-reviews-bots-merged.json"),
        None,
    )
    .capture("c.jsonl", "repos/freeCodeCamp/freeCodeCamp/issues/47594/reactions", 403, &body("pygithub/error-403-abuse-rate-limit-search-2018.json"), None)
    .item(
        "104",
        "freeCodeCamp/freeCodeCamp",
        json!({"type": "add_reviewer", "number": 47594, "timestamp": "2022-09-23T12:33:21Z", "metadata": {"requested_reviewers": ["naomi-lgbt"]}}),
    );
    let rows = outcomes(&s.run(tmp.path(), "ds"));
    assert_eq!(at(&rows, "1h").0, "pending");
    for w in ["24h", "7d", "30d", "snapshot"] {
        assert_eq!(at(&rows, w), ("accepted", "strong", "requested_reviewer_reviewed"), "{w}");
    }
}

/// Class 3. A review recorded only by the `#pullrequestreview-<id>` fragment of the item's
/// URL is found in PyGithub#538's real review list.
#[test]
fn a_review_id_in_the_url_fragment_reaches_the_rule() {
    let tmp = tempfile::tempdir().unwrap();
    let s = Study::write(tmp.path(), "2018-04-01T00:00:00Z");
    s.capture("c.jsonl", "repos/PyGithub/PyGithub/pulls/538/reviews", 200, &body("pygithub/pulls-538-reviews-2018.json"), None).item(
        "105",
        "PyGithub/PyGithub",
        json!({"type": "submit_pull_request_review", "url": "https://github.com/PyGithub/PyGithub/pull/538#pullrequestreview-105368184", "timestamp": "2018-03-20T14:21:07Z"}),
    );
    let rows = outcomes(&s.run(tmp.path(), "ds"));
    for r in &rows {
        assert_ne!(r.3, "missing_execution_state", "{}: {:?}", r.0, r);
    }
    // The review is found (a COMMENTED one); the PR's own state was not captured.
    let snap = rows.iter().find(|r| r.0 == "snapshot").unwrap();
    assert_eq!((snap.3.as_str(), &snap.4["review_id"], &snap.4["review_state"]), ("target_not_captured", &json!(105368184), &json!("COMMENTED")));
}

/// Class 4. freeCodeCamp#47511 captured only in search results (issue-shaped, with
/// `pull_request.merged_at`), and hossain-khan/github-stats#27 only as its timeline: both
/// merges are found, and the verdict says which capture it rests on.
#[test]
fn prs_captured_in_other_shapes_are_judged() {
    let tmp = tempfile::tempdir().unwrap();
    let s = Study::write(tmp.path(), "2022-12-01T00:00:00Z");
    s.capture("c.jsonl", "search/issues", 200, &body("hossain-khan-github-stats/search-issues-merged-pr-reviewed-by-annotated.json"), None)
        .capture(
            "c.jsonl",
            "repos/hossain-khan/github-stats/issues/27/timeline",
            200,
            &body("hossain-khan-github-stats/timeline-github-stats-pr27-merged.json"),
            None,
        )
        .item("106", "freeCodeCamp/freeCodeCamp", json!({"type": "create_pull_request", "number": 47511, "timestamp": "2022-09-13T12:11:30Z"}))
        .item("107", "hossain-khan/github-stats", json!({"type": "create_pull_request", "number": 27, "timestamp": "2022-09-22T23:40:25Z"}));
    let ds = s.run(tmp.path(), "ds");
    let out = ok(
        &[
            "report",
            "--dataset",
            "ds",
            "--format",
            "json",
            "--sql",
            "SELECT run_id, outcome_status, evidence_strength, human_check_signal, details FROM outcomes WHERE eval_window = 'snapshot' ORDER BY run_id",
        ],
        ds.parent().unwrap(),
    );
    let rows: Vec<Value> = serde_json::from_str(&out).unwrap();
    let details = |i: usize| -> Value { rows[i]["details"].clone() };
    // Search results carry no merger: at most medium (policy unattributed_full_strength).
    assert_eq!(
        (rows[0]["outcome_status"].as_str(), rows[0]["evidence_strength"].as_str(), rows[0]["human_check_signal"].as_str()),
        (Some("accepted"), Some("medium"), Some("pull_request_merged"))
    );
    assert!(details(0)["evidence"].to_string().contains("\"derived_from\":\"search/issues\""), "{}", details(0));
    assert_eq!((rows[1]["outcome_status"].as_str(), rows[1]["human_check_signal"].as_str()), (Some("accepted"), Some("pull_request_merged")));
    assert!(details(1)["evidence"].to_string().contains("issues/27/timeline"), "{}", details(1));
}

/// Class 4. A repository-wide list recorded twice, 11 seconds apart (PyGithub's
/// recordings of `pulls/comments`): both fill the per-PR comment lists rules read, and of
/// the two copies of the path the later one is used (class 9).
#[test]
fn a_path_captured_twice_is_judged_on_the_later_copy() {
    let tmp = tempfile::tempdir().unwrap();
    let s = Study::write(tmp.path(), "2013-01-01T00:00:00Z");
    // The later recording in the earlier file: the time decides, not the order read.
    s.capture(
        "a.jsonl",
        "repos/PyGithub/PyGithub/pulls/comments",
        200,
        &body("pygithub/pulls-comments-repo-wide-2012-recording-b-sorted.json"),
        Some("2012-12-25T11:55:58Z"),
    )
    .capture(
        "b.jsonl",
        "repos/PyGithub/PyGithub/pulls/comments",
        200,
        &body("pygithub/pulls-comments-repo-wide-2012-recording-a.json"),
        Some("2012-12-25T11:55:47Z"),
    )
    .item("108", "PyGithub/PyGithub", json!({"type": "noop"}));
    let ds = s.run(tmp.path(), "ds");
    let out = ok(
        &["report", "--dataset", "ds", "--format", "json", "--sql", "SELECT source_file, superseded_by FROM responses ORDER BY source_file"],
        ds.parent().unwrap(),
    );
    let rows: Vec<Value> = serde_json::from_str(&out).unwrap();
    assert_eq!(rows, vec![json!({"source_file": "a.jsonl", "superseded_by": null}), json!({"source_file": "b.jsonl", "superseded_by": "a.jsonl:1"})]);
    let m: Value = serde_json::from_str(&std::fs::read_to_string(ds.join("manifest.json")).unwrap()).unwrap();
    let r = &m["records"]["snapshot"];
    assert_eq!((r["input"].as_u64(), r["used"].as_u64(), r["superseded"].as_u64()), (Some(2), Some(1), Some(1)));
}

/// Class 5. hossain-khan/github-stats#27 was opened and merged (3 minutes later) by the same
/// account, a person's (`type: User`): opened as the agent's output under the person's
/// account, the merge after the agent's act is the requester's decision (policy
/// `requester_acts`, default `person`); with `requester_acts: workflow` it is the workflow's
/// own act, not a response from the repository.
#[test]
fn a_merge_by_the_workflows_own_identity_is_not_acceptance() {
    let tmp = tempfile::tempdir().unwrap();
    let s = Study::write(tmp.path(), "2022-12-01T00:00:00Z");
    s.capture("c.jsonl", "repos/hossain-khan/github-stats/pulls/27", 200, &body("hossain-khan-github-stats/pull-github-stats-27-merged.json"), None)
        .capture(
            "c.jsonl",
            "repos/hossain-khan/github-stats/issues/27/timeline",
            200,
            &body("hossain-khan-github-stats/timeline-github-stats-pr27-merged.json"),
            None,
        )
        .item("109", "hossain-khan/github-stats", json!({"type": "create_pull_request", "number": 27, "timestamp": "2022-09-22T23:40:25Z"}));
    let ds = s.run(tmp.path(), "ds");
    let rows = outcomes(&ds);
    assert_eq!(at(&rows, "snapshot"), ("accepted", "strong", "pull_request_merged_by_requester"));
    assert_eq!(rows.iter().find(|r| r.0 == "snapshot").unwrap().4["acted_by_requester"], true);
    std::fs::write(tmp.path().join("policy.json"), r#"{"requester_acts": "workflow"}"#).unwrap();
    evaluate(tmp.path(), "ds", &["--policy", "policy.json"]);
    let rows = outcomes(&ds);
    assert_eq!(at(&rows, "snapshot"), ("ignored", "weak", "pull_request_merged_by_workflow"));
    assert_eq!(rows.iter().find(|r| r.0 == "snapshot").unwrap().4["acted_by_workflow"], true);
}

/// Class 6. A real open PR carries a `merge_commit_sha` (GitHub's test merge): that is no
/// contradiction, unlike a merge or close time on an open PR.
#[test]
fn a_real_open_pr_is_not_inconsistent() {
    let tmp = tempfile::tempdir().unwrap();
    let s = Study::write(tmp.path(), "2022-12-01T00:00:00Z");
    s.capture(
        "c.jsonl",
        "repos/freeCodeCamp/freeCodeCamp/pulls/48543",
        200,
        &body("hossain-khan-github-stats/pull-freecodecamp-48543-open-unmerged.json"),
        None,
    )
    .item("110", "freeCodeCamp/freeCodeCamp", json!({"type": "create_pull_request", "number": 48543, "timestamp": "2022-11-19T04:48:58Z"}));
    let rows = outcomes(&s.run(tmp.path(), "ds"));
    assert!(rows.iter().all(|r| r.3 != "inconsistent_state"), "{rows:?}");
    assert_eq!(at(&rows, "snapshot").0, "pending");
}

/// Class 7. PyGithub recorded #538's reviews at 14:21:10; a window ending after that is
/// not observable from them, whatever the snapshot's own time.
#[test]
fn a_lines_own_captured_at_bounds_what_is_observable() {
    let tmp = tempfile::tempdir().unwrap();
    let s = Study::write(tmp.path(), "2026-01-01T00:00:00Z");
    s.capture("c.jsonl", "repos/PyGithub/PyGithub/pulls/538/reviews", 200, &body("pygithub/pulls-538-reviews-2018.json"), Some("2018-03-20T14:21:10Z")).item(
        "111",
        "PyGithub/PyGithub",
        json!({"type": "submit_pull_request_review", "url": "https://github.com/PyGithub/PyGithub/pull/538#pullrequestreview-105368184", "timestamp": "2018-03-20T14:21:07Z"}),
    );
    let rows = outcomes(&s.run(tmp.path(), "ds"));
    for w in ["1h", "24h", "7d", "30d"] {
        assert_eq!(at(&rows, w), ("unknown", "none", "window_not_yet_observable"), "{w}");
    }
}

/// Class 8. A cassette in a sub-folder is read; a file no reader reads is reported with
/// its reason; every file under the inputs is in the manifest's inputs or skipped.
#[test]
fn every_input_file_is_read_or_reported() {
    let tmp = tempfile::tempdir().unwrap();
    let s = Study::write(tmp.path(), "2022-12-01T00:00:00Z");
    s.capture(
        "2022/november/c.jsonl",
        "repos/freeCodeCamp/freeCodeCamp/pulls/48543",
        200,
        &body("hossain-khan-github-stats/pull-freecodecamp-48543-open-unmerged.json"),
        None,
    )
    .item("112", "freeCodeCamp/freeCodeCamp", json!({"type": "create_pull_request", "number": 48543, "timestamp": "2022-11-19T04:48:58Z"}));
    std::fs::write(tmp.path().join("snapshot/NOTES.md"), "how this was captured").unwrap();
    std::fs::write(tmp.path().join("runs/run-112/agent-stdio.log"), "log").unwrap();
    let ds = s.run(tmp.path(), "ds");
    let m: Value = serde_json::from_str(&std::fs::read_to_string(ds.join("manifest.json")).unwrap()).unwrap();
    for input in ["snapshot", "runs"] {
        let listed: Vec<&str> = m["inputs"]
            .as_array()
            .unwrap()
            .iter()
            .chain(m["skipped"].as_array().unwrap())
            .filter(|f| f["input"] == input)
            .map(|f| f["path"].as_str().unwrap())
            .collect();
        let mut listed = listed;
        listed.sort();
        assert_eq!(listed, hindsight::inputs::walk(&tmp.path().join(input)).unwrap(), "{input}");
    }
    assert!(m["inputs"].to_string().contains("2022/november/c.jsonl"));
    assert!(m["skipped"].to_string().contains("NOTES.md") && m["skipped"].to_string().contains("agent-stdio.log"));
    assert_eq!(m["records"]["snapshot"]["used"], 1);
}

/// Class 10. In PyGithub#28's real timeline `ghost` (GitHub's placeholder for a deleted
/// account, an ordinary-looking `type: "User"`) is nobody visible; in freeCodeCamp#47594's,
/// `[bot]` accounts are bots and the maintainers people.
#[test]
fn ghost_is_an_unknown_actor_and_bots_are_bots() {
    use hindsight::evaluate::actors::{ActorClass, Classifier};
    use hindsight::snapshot::github::events;
    let c = Classifier::default();
    let classes = |rel: &str| -> Vec<(String, ActorClass)> {
        let v: Value = serde_json::from_str(&body(rel)).unwrap();
        events(&v).into_iter().filter_map(|e| e.actor.login.clone().map(|l| (l, c.classify(&e.actor)))).collect()
    };
    let pygithub = classes("pygithub/timeline-issue-28-ghost-actor-cross-referenced.json");
    assert!(pygithub.iter().any(|(l, _)| l == "ghost"));
    for (login, class) in &pygithub {
        match login.as_str() {
            "ghost" => assert_eq!(*class, ActorClass::Unknown),
            "jacquev6" | "allevin" | "stuglaser" => assert_eq!(*class, ActorClass::VisibleNonBot),
            _ => {}
        }
    }
    for (login, class) in classes("hossain-khan-github-stats/timeline-freecodecamp-47594-reviews-bots-merged.json") {
        let want = if login.ends_with("[bot]") { ActorClass::Bot } else { ActorClass::VisibleNonBot };
        assert_eq!(class, want, "{login}");
    }
}

/// Class 12. An agent's comment judged against the real thread it sits in (PyGithub#28's
/// recorded comment list, 2012): the comment is found in the list by its id, its author's
/// own comment is no reply, and the other person's answer three days later is one, inside
/// the windows that reach it and not before.
#[test]
fn a_reply_in_the_real_thread_answers_the_comment_from_its_day_on() {
    let tmp = tempfile::tempdir().unwrap();
    let s = Study::write(tmp.path(), "2012-06-03T00:00:00Z");
    s.capture("c.jsonl", "repos/PyGithub/PyGithub/issues/28/comments", 200, &body("pygithub/issue-28-comments-2012-old-shape.json"), None).item(
        "113",
        "PyGithub/PyGithub",
        json!({"type": "add_comment", "url": "https://github.com/PyGithub/PyGithub/issues/28#issuecomment-5449237", "timestamp": "2012-05-01T22:03:59Z"}),
    );
    let rows = outcomes(&s.run(tmp.path(), "ds"));
    assert_eq!(at(&rows, "24h"), ("ignored", "weak", "no_response"));
    for window in ["7d", "snapshot"] {
        assert_eq!(at(&rows, window), ("accepted", "medium", "comment_replied"), "{window}");
        let details = &rows.iter().find(|r| r.0 == window).unwrap().4;
        assert_eq!(details["replied_by"], "roskakori", "{window}");
    }
}

/// Class 9. A comment whose thread was captured only as its timeline (PyGithub/PyGithub#28,
/// no issue body, no comment list): the timeline's `commented` event with the comment's id
/// (the output's URL fragment) is the comment, so the output is judged, not
/// `target_not_captured`. No one answered within 30 days of 2013-06-29; by the snapshot a
/// different person (allevin, 2018) had commented.
#[test]
fn a_comment_seen_only_in_a_timeline_is_found_there() {
    let tmp = tempfile::tempdir().unwrap();
    let s = Study::write(tmp.path(), "2019-06-01T00:00:00Z");
    s.capture(
        "t.jsonl",
        "repos/PyGithub/PyGithub/issues/28/timeline",
        200,
        &body("pygithub/timeline-issue-28-ghost-actor-cross-referenced.json"),
        None,
    )
    .item(
        "110",
        "PyGithub/PyGithub",
        json!({"type": "add_comment", "url": "https://github.com/PyGithub/PyGithub/issues/28#issuecomment-20227753", "timestamp": "2013-06-29T10:31:38Z"}),
    );
    let rows = outcomes(&s.run(tmp.path(), "ds"));
    for r in &rows {
        assert_ne!(r.3, "target_not_captured", "{r:?}");
    }
    assert_eq!(at(&rows, "30d").0, "ignored", "{rows:?}");
    let snap = rows.iter().find(|r| r.0 == "snapshot").unwrap();
    assert_eq!((snap.1.as_str(), snap.3.as_str(), &snap.4["replied_by"]), ("accepted", "comment_replied", &json!("allevin")), "{rows:?}");
}

/// A real review-comments list (PyGithub#31, recorded 2023): each comment's
/// `pull_request_review_id` reaches `review_comments.review_id`, the review it was written
/// in, which says a `COMMENTED` review commented on the code.
#[test]
fn a_review_comment_names_the_review_it_was_written_in() {
    let tmp = tempfile::tempdir().unwrap();
    let s = Study::write(tmp.path(), "2023-06-01T00:00:00Z");
    let text = body("pygithub/pulls-31-review-comments-2023.json");
    s.capture("c.jsonl", "repos/PyGithub/PyGithub/pulls/31/comments", 200, &text, None)
        .item("1", "PyGithub/PyGithub", json!({"type": "create_pull_request", "number": 31, "timestamp": "2014-01-01T00:00:00Z"}));
    let ds = s.run(tmp.path(), "ds");
    let out = ok(
        &["report", "--dataset", ds.to_str().unwrap(), "--format", "json", "--sql", "SELECT comment_id, review_id FROM review_comments ORDER BY comment_id"],
        tmp.path(),
    );
    let got: Vec<Value> = serde_json::from_str(&out).unwrap();
    let mut want: Vec<Value> =
        serde_json::from_str::<Vec<Value>>(&text).unwrap().iter().map(|c| json!({"comment_id": c["id"], "review_id": c["pull_request_review_id"]})).collect();
    want.sort_by_key(|c| c["comment_id"].as_i64());
    assert!(want.iter().any(|c| c["review_id"].is_i64()), "the recorded body names a review");
    assert_eq!(got, want);
}
