//! Review feedback (the memory-effectiveness figures, docs/SPEC.md [SPEC-TASKS-MEMORY]): `pr_feedback` and
//! `review_feedback` on the demo's platform PRs (140-147, counted by hand from
//! fixtures/make_demo.py), the policy switches, and real AIDev bodies.

use std::path::Path;

use serde_json::{json, Value};

use crate::support::{fixture, ok, Study};

fn sql(dataset: &Path, sql: &str) -> Vec<Value> {
    let out = ok(&["report", "--dataset", dataset.to_str().unwrap(), "--sql", sql, "--format", "json"], dataset.parent().unwrap());
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

/// The demo's snapshot, runs and task records run into `ds` of a new temporary directory.
fn demo(extra: &[&str]) -> (tempfile::TempDir, std::path::PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let mut args = vec!["--out", "ds", "--quiet"];
    args.extend_from_slice(extra);
    Study::demo().tasks(fixture("demo/tasks")).ok("run", &args, tmp.path());
    let ds = tmp.path().join("ds");
    (tmp, ds)
}

const PR_FIGURES: &str =
    "SELECT number, opened_by, merged, review_rounds, first_review_merged, reviewer_comments, repeated_mistake_count, first_push_ci, missing \
     FROM pr_feedback WHERE repo = 'acme/webapp' AND number BETWEEN 140 AND 147 ORDER BY number";

/// Each PR's figures, by hand from the demo's platform PRs.
#[test]
fn the_demo_platform_prs_figures_by_hand() {
    let (_tmp, ds) = demo(&[]);
    let row = |n: i64, merged: bool, rounds: i64, frm: bool, comments: i64, repeats: i64, ci: Option<&str>, missing: Option<&str>| {
        json!({"number": n, "opened_by": "task", "merged": merged, "review_rounds": rounds, "first_review_merged": frm,
               "reviewer_comments": comments, "repeated_mistake_count": repeats, "first_push_ci": ci, "missing": missing})
    };
    let expected = vec![
        // Approved and merged; green first push.
        row(140, true, 0, true, 0, 0, Some("success"), None),
        // One request for changes before the merge; its body and the inline comment are
        // two reviewer comments; red first push (green on the second).
        row(141, true, 1, false, 2, 0, Some("failure"), None),
        // Closed; "Please use proper TypeScript types instead of any." repeats 141's
        // "Don't use `any` here." (written before 142 was opened).
        row(142, false, 1, false, 2, 1, Some("success"), None),
        // Open; only maria's review body counts: ci-reporter[bot] is a bot and "Done" is
        // the PR author's own. Her COMMENTED review is a round asking for a revision; the
        // PR is undecided, so it has no first-review merge state yet.
        json!({"number": 143, "opened_by": "task", "merged": false, "review_rounds": 1, "first_review_merged": null,
               "reviewer_comments": 1, "repeated_mistake_count": 0, "first_push_ci": "failure", "missing": null}),
        row(144, true, 0, true, 0, 0, Some("success"), None),
        // "add a test for the empty input case please" repeats 142's inline comment.
        row(145, true, 0, true, 1, 1, Some("success"), None),
        // No CI captured for its push: unknown, and said so.
        row(146, true, 0, true, 0, 0, None, Some("ci")),
        row(147, false, 1, false, 1, 0, Some("success"), None),
    ];
    assert_eq!(sql(&ds, PR_FIGURES), expected);

    let repeats = sql(
        &ds,
        "SELECT pull_number, source, author, tokens, repeats_pull_number, repeats_source, similarity FROM review_feedback \
         WHERE repeats_pull_number IS NOT NULL ORDER BY pull_number",
    );
    assert_eq!(
        repeats,
        vec![
            json!({"pull_number": 142, "source": "review", "author": "devin-h", "tokens": "any instead proper type typescript use", "repeats_pull_number": 141, "repeats_source": "review_comment", "similarity": 1.0}),
            json!({"pull_number": 145, "source": "review_comment", "author": "maria", "tokens": "add case empty input test", "repeats_pull_number": 142, "repeats_source": "review_comment", "similarity": 1.0}),
        ]
    );
    // PRs with no review list captured have no figures, and say which captures are missing.
    let autoloop = sql(&ds, "SELECT review_rounds, reviewer_comments, missing FROM pr_feedback WHERE repo = 'acme/webapp' AND number = 130");
    assert_eq!(autoloop, vec![json!({"review_rounds": null, "reviewer_comments": null, "missing": "reviews,review_comments,comments"})]);
}

/// The dashboard's prompt-version and over-time sections on the demo are in every format.
/// (Their rows, by hand from the figures above, are tests/slt/demo/prompt_versions.slt and
/// memory_over_time.slt.)
#[test]
fn prompt_versions_and_memory_over_time_in_every_format() {
    let (tmp, _ds) = demo(&[]);
    let dash: Value = serde_json::from_str(&ok(&["report", "--dataset", "ds", "--format", "json"], tmp.path())).unwrap();
    for section in ["prompt_versions", "memory_over_time"] {
        assert!(dash[section].as_array().is_some_and(|rows| !rows.is_empty()), "no {section} rows in the JSON report");
    }
    for fmt in ["table", "markdown", "csv", "html"] {
        let out = ok(&["report", "--dataset", "ds", "--format", fmt], tmp.path());
        for name in ["failure_category", "prompt_version", "risk_level", "first_review_merge_rate", "repeated_mistake_count"] {
            assert!(out.contains(name), "{fmt} report lacks {name}");
        }
    }
}

/// Each switch of the `feedback` policy changes what it says it does, and is recorded.
#[test]
fn policy_switches() {
    let tmp = tempfile::tempdir().unwrap();
    let with = |name: &str, feedback: Value| -> std::path::PathBuf {
        let p = tmp.path().join(format!("{name}.json"));
        std::fs::write(&p, json!({ "feedback": feedback }).to_string()).unwrap();
        let (t, ds) = demo(&["--task-policy", p.to_str().unwrap()]);
        std::mem::forget(t);
        ds
    };
    let repeats =
        |ds: &Path| sql(ds, "SELECT pull_number, repeats_pull_number FROM review_feedback WHERE repeats_pull_number IS NOT NULL ORDER BY pull_number");
    let count = |ds: &Path, n: i64| {
        sql(ds, &format!("SELECT reviewer_comments FROM pr_feedback WHERE repo = 'acme/webapp' AND number = {n}"))[0]["reviewer_comments"].clone()
    };

    // Any earlier PR of the repository at a lower threshold: 147's "Split this into smaller
    // PRs." meets 102's "Too broad; please split this up." (1 of 2 words), a PR another
    // author opened; under the default scope it does not.
    let ds = with("scope", json!({"scope": "repository", "threshold": 0.5}));
    assert!(repeats(&ds).contains(&json!({"pull_number": 147, "repeats_pull_number": 102})));
    let ds = with("threshold", json!({"threshold": 0.5}));
    assert!(!repeats(&ds).contains(&json!({"pull_number": 147, "repeats_pull_number": 102})));

    // Bots as reviewers: ci-reporter[bot]'s inline comment on 143 counts.
    let ds = with("bots", json!({"bot_reviewers": true}));
    assert_eq!(count(&ds, 143), json!(2));
    // Only review bodies: 141 keeps its review body, 145 has none left, and its repeat goes.
    let ds = with("sources", json!({"sources": ["review"]}));
    assert_eq!((count(&ds, 141), count(&ds, 145)), (json!(1), json!(0)));
    assert_eq!(repeats(&ds), Vec::<Value>::new());
    // A named automation account is no reviewer.
    let ds = with("automation", json!({"automation_accounts": ["MARIA"]}));
    assert_eq!(count(&ds, 141), json!(0));
    let m: Value = serde_json::from_str(&std::fs::read_to_string(ds.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(m["task_policy"]["feedback"]["automation_accounts"], json!(["MARIA"]));
    assert_eq!(m["task_policy"]["feedback"]["threshold"], json!(0.8));

    // Bad values are refused before anything is read.
    for (bad, says) in [
        (json!({"threshold": 0}), "threshold"),
        (json!({"min_size_ratio": 2}), "min_size_ratio"),
        (json!({"sources": []}), "sources"),
        (json!({"sources": ["review", "review"]}), "sources"),
        (json!({"scope": "galaxy"}), "galaxy"),
        (json!({"min_tokens": 0}), "min_tokens"),
    ] {
        let p = tmp.path().join("bad.json");
        std::fs::write(&p, json!({ "feedback": bad }).to_string()).unwrap();
        let out = Study::demo().cmd("run", &["--out", "bad-ds", "--quiet", "--task-policy", p.to_str().unwrap()], tmp.path());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && err.contains(says), "{bad}: {err}");
        assert!(!tmp.path().join("bad-ds").exists());
    }
}

/// Real bodies, verbatim: AIDev-pop's comments and reviews on five Copilot PRs of
/// microsoft/Olive and two Devin PRs of airbytehq/airbyte (fixtures/real/aidev-feedback).
/// Read by hand: "fix lint issue" asked on 1897 is asked again on 1907 (twice) and 1915;
/// "address my comments" and "Let's merge with main" repeat 1897's and 1904's requests.
/// Not repeats: the same words within one PR (1897 asks four times), and airbyte's "If/when
/// tests pass, this looks good." inside a longer, different review. AIDev records no inline
/// review comments, so its import reads review bodies and conversation comments; Devin's
/// folder has no pr_comments.csv, so its PRs have no comment count. AIDev's reviews name no
/// commit and its commits carry no date, so a PR a reviewer asked to revise has no round
/// count (`review_commit` missing), though it still has its first-review merge state.
#[test]
fn real_aidev_comments() {
    let tmp = tempfile::tempdir().unwrap();
    ok(&["import", "aidev", fixture("real/aidev-feedback").to_str().unwrap(), "--out", "ds", "--quiet"], tmp.path());
    let ds = tmp.path().join("ds");
    let repeats = sql(
        &ds,
        "SELECT pull_number, comment_id, repeats_pull_number, repeats_comment_id FROM review_feedback WHERE repeats_pull_number IS NOT NULL ORDER BY pull_number, comment_id",
    );
    let r = |n: i64, id: i64, rn: i64, rid: i64| json!({"pull_number": n, "comment_id": id, "repeats_pull_number": rn, "repeats_comment_id": rid});
    assert_eq!(
        repeats,
        vec![
            r(1907, 2968258356, 1897, 2946848276),
            r(1907, 2968375115, 1904, 2960544582),
            r(1907, 2968909210, 1897, 2946848276),
            r(1907, 2971129039, 1897, 2946848276),
            r(1907, 2978202232, 1897, 2946571090),
            r(1915, 2973115243, 1897, 2946848276),
        ]
    );
    let prs = sql(&ds, "SELECT number, reviewer_comments, repeated_mistake_count, missing FROM pr_feedback ORDER BY repo, number");
    assert_eq!(prs[0], json!({"number": 53607, "reviewer_comments": null, "repeated_mistake_count": null, "missing": "comments,commits,review_commit"}));
    assert_eq!(prs[4], json!({"number": 1907, "reviewer_comments": 9, "repeated_mistake_count": 5, "missing": "commits,review_commit"}));
    let m: Value = serde_json::from_str(&std::fs::read_to_string(ds.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(m["task_policy"]["feedback"]["sources"], json!(["review", "conversation"]));
}

/// A small snapshot of pulls, reviews and commits as capture writes them (`repos/acme/x/...`),
/// converted with no runs: the PR figures of every PR in it.
fn snapshot_study(lines: &[Value]) -> (tempfile::TempDir, std::path::PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let study = Study::write(tmp.path(), "2026-02-01T00:00:00Z");
    for l in lines {
        study.line("c.jsonl", &l.to_string());
    }
    let ds = study.convert(tmp.path(), "ds");
    (tmp, ds)
}

/// Revision cycles count review rounds, not reviews: a round is the reviews of one version of
/// the PR (the commit reviewed, `commit_id`; else the PR's last commit committed by the
/// review's time), and it counts when a reviewer asked for a revision in it (changes
/// requested, or a review of comments), before the merge. The first-review merge state is
/// that of a decided PR only: an open one has none (it is not "not merged" yet).
#[test]
fn review_rounds_are_versions_a_reviewer_asked_to_revise() {
    let day = "2026-01-0";
    let pull = |n: i64, state: &str, merged_at: Option<&str>| {
        json!({"path": format!("repos/acme/x/pulls/{n}"), "body": {"number": n, "state": state, "merged": merged_at.is_some(), "merged_at": merged_at,
               "closed_at": if state == "closed" { Some(format!("{day}5T00:00:00Z")) } else { None },
               "created_at": format!("{day}1T00:00:00Z"), "user": {"login": "agent-app[bot]", "type": "Bot"}}})
    };
    let review = |id: i64, who: &str, state: &str, commit: Option<&str>, at: &str| {
        json!({"id": id, "user": {"login": who, "type": if who.ends_with("[bot]") { "Bot" } else { "User" }}, "state": state, "commit_id": commit,
               "submitted_at": format!("{day}{at}"), "body": ""})
    };
    let reviews = |n: i64, list: Vec<Value>| json!({"path": format!("repos/acme/x/pulls/{n}/reviews"), "body": list});
    let commits = |n: i64, list: &[(&str, &str)]| {
        let body: Vec<Value> =
            list.iter().map(|(sha, at)| json!({"sha": sha, "commit": {"committer": {"date": format!("{day}{at}")}, "message": "m"}})).collect();
        json!({"path": format!("repos/acme/x/pulls/{n}/commits"), "body": body})
    };
    let merged = Some("2026-01-03T00:00:00Z");
    let lines = [
        // Two reviewers ask for changes on c1: one round. Comments on c2: a second round.
        // An approval on c3 asks nothing; changes asked after the merge come too late.
        pull(1, "closed", merged),
        reviews(
            1,
            vec![
                review(11, "alice", "CHANGES_REQUESTED", Some("c1"), "1T01:00:00Z"),
                review(12, "bob", "CHANGES_REQUESTED", Some("c1"), "1T02:00:00Z"),
                review(13, "carol", "COMMENTED", Some("c2"), "2T01:00:00Z"),
                review(14, "dave", "APPROVED", Some("c3"), "2T05:00:00Z"),
                review(15, "erin", "CHANGES_REQUESTED", Some("c3"), "4T00:00:00Z"),
            ],
        ),
        // Approved on the first version and merged.
        pull(2, "closed", merged),
        reviews(2, vec![review(21, "alice", "APPROVED", Some("c1"), "1T01:00:00Z")]),
        // Closed unmerged after a round of comments: decided, not merged.
        pull(3, "closed", None),
        reviews(3, vec![review(31, "alice", "COMMENTED", Some("c1"), "1T01:00:00Z")]),
        // Open at capture: no first-review merge state, whatever its reviews.
        pull(4, "open", None),
        reviews(4, vec![review(41, "alice", "APPROVED", Some("c1"), "1T01:00:00Z")]),
        // Reviews naming no commit, placed by the commits' times: k1 (pushed at 00:00) and k2
        // (03:00), two rounds.
        pull(5, "closed", merged),
        reviews(5, vec![review(51, "alice", "CHANGES_REQUESTED", None, "1T01:00:00Z"), review(52, "alice", "CHANGES_REQUESTED", None, "1T05:00:00Z")]),
        commits(5, &[("k1", "1T00:00:00Z"), ("k2", "1T03:00:00Z")]),
        // A review naming no commit and no commits to place it: the rounds cannot be told,
        // but a revision was asked, so the PR was not merged on its first review.
        pull(6, "closed", merged),
        reviews(6, vec![review(61, "alice", "COMMENTED", None, "1T01:00:00Z")]),
        // The author's own review and a bot's are no reviewer's.
        pull(7, "closed", merged),
        reviews(
            7,
            vec![review(71, "agent-app[bot]", "COMMENTED", Some("c1"), "1T01:00:00Z"), review(72, "lint[bot]", "CHANGES_REQUESTED", Some("c1"), "1T02:00:00Z")],
        ),
    ];
    let (_tmp, ds) = snapshot_study(&lines);
    let rows = sql(&ds, "SELECT number, state, review_rounds, first_review_merged, missing FROM pr_feedback ORDER BY number");
    let missing = |m: &str| if m.is_empty() { Value::Null } else { json!(m) };
    let row = |n: i64, state: &str, rounds: Value, frm: Value, m: &str| json!({"number": n, "state": state, "review_rounds": rounds, "first_review_merged": frm, "missing": missing(m)});
    // No comment lists were captured, nor commits but PR 5's (whose first push has no CI).
    let lists = "review_comments,comments,commits";
    assert_eq!(
        rows,
        vec![
            row(1, "closed", json!(2), json!(false), lists),
            row(2, "closed", json!(0), json!(true), lists),
            row(3, "closed", json!(1), json!(false), lists),
            row(4, "open", json!(0), Value::Null, lists),
            row(5, "closed", json!(2), json!(false), "review_comments,comments,ci"),
            row(6, "closed", Value::Null, json!(false), "review_comments,comments,commits,review_commit"),
            row(7, "closed", json!(0), json!(true), lists),
        ]
    );
}

/// Fix cycles are counted as the CI gate replay counts autoloop's fix attempts: on the
/// demo's autoloop iterations (PRs 130 to 135), with the gate's limit of 5 fixes, each PR's
/// `fix_attempts` and `fix_result` agree with the gate's own count and outcome wherever the
/// gate decides by CI alone (its 60-minute clock, which fix cycles do not keep, decides
/// PR 134). Under the default limit of 2, PR 133 (5 fixes by the gate) is exhausted at 2.
#[test]
fn fix_cycles_count_as_the_ci_gate_replay_counts_fix_attempts() {
    let tmp = tempfile::tempdir().unwrap();
    let p = tmp.path().join("limit.json");
    std::fs::write(&p, json!({"feedback": {"fix_cycle_limit": 5}}).to_string()).unwrap();
    let (_t, ds) = demo(&["--task-policy", p.to_str().unwrap()]);
    let rows = sql(
        &ds,
        "SELECT g.pull_number, g.fix_attempts AS gate_fixes, g.gate_outcome, f.fix_attempts, f.fix_result \
         FROM ci_gate g JOIN pr_feedback f ON f.repo = g.repo AND f.number = g.pull_number WHERE g.iteration ORDER BY g.pull_number",
    );
    let by_ci = |outcome: &str| match outcome {
        "accepted" => Some("accepted"),
        "stuck" => Some("stuck"),
        "ci-fix-exhausted" => Some("fix_exhausted"),
        "red_unresolved" => Some("red_unresolved"),
        _ => None,
    };
    let mut compared = 0;
    for r in &rows {
        let Some(want) = by_ci(r["gate_outcome"].as_str().unwrap()) else { continue };
        assert_eq!((r["fix_attempts"].clone(), r["fix_result"].as_str()), (r["gate_fixes"].clone(), Some(want)), "{r}");
        compared += 1;
    }
    assert_eq!((rows.len(), compared), (6, 5), "{rows:?}");
    let (_d, default) = demo(&[]);
    let r = sql(&default, "SELECT fix_attempts, fix_result FROM pr_feedback WHERE repo = 'acme/webapp' AND number = 133");
    assert_eq!((r[0]["fix_attempts"].clone(), r[0]["fix_result"].as_str()), (json!(2), Some("fix_exhausted")));
}
