//! `import aidev` on each AIDev release: the same PRs as v1's CSV folders and as v3, v4 and
//! v5 publish them in Parquet (`fixtures/aidev-releases`, written by pyarrow from one list of
//! PRs by its `make.py`, in each release's own table and column names), and folders that fit
//! no release, or several.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::support::{fixture, ok, run};

const CAPTURED: &str = "2025-07-31T00:00:00Z";
const V3_REVISION: &str = "68ed5f4b80d27a9e057fc57567f38bd322ac73ec";
const V5_REVISION: &str = "37bbe1533e26cc1e1374917dba1186d1c8a4dc81";

fn release_dir(name: &str) -> PathBuf {
    match name {
        "v3" => fixture(&format!("aidev-releases/v3/snapshots/{V3_REVISION}")),
        other => fixture(&format!("aidev-releases/{other}")),
    }
}

fn import(src: &Path, tmp: &Path, name: &str, extra: &[&str]) -> PathBuf {
    let out = tmp.join(name);
    let mut args = vec!["import", "aidev", src.to_str().unwrap(), "--out", out.to_str().unwrap(), "--captured-at", CAPTURED, "--quiet"];
    args.extend_from_slice(extra);
    ok(&args, tmp);
    out
}

fn sql(ds: &Path, q: &str) -> Vec<Value> {
    let text = ok(&["report", "--dataset", ds.to_str().unwrap(), "--format", "json", "--sql", q], ds);
    serde_json::from_str::<Value>(&text).unwrap().as_array().unwrap().clone()
}

fn empty_as_null(rows: Vec<Value>) -> Vec<Value> {
    rows.into_iter()
        .map(|mut r| {
            for v in r.as_object_mut().unwrap().values_mut() {
                if v == "" {
                    *v = Value::Null;
                }
            }
            r
        })
        .collect()
}

fn manifest(ds: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(ds.join("manifest.json")).unwrap()).unwrap()
}

/// Every outcome row of the PRs all four releases hold (Google Jules is in v4 and v5 only),
/// every column, in one order.
const OUTCOMES: &str = "SELECT * FROM outcomes WHERE safe_output_id NOT LIKE 'aidev:Google_Jules:%' ORDER BY safe_output_id, window_order";

/// AIDev tables and the columns v1 and the Parquet releases both carry.
const SAME_ROWS: &[(&str, &str)] = &[
    ("aidev_pull_requests", "id, number, title, \"user\", user_id, state, created_at, closed_at, merged_at, repo_url, html_url, body"),
    ("aidev_reviews", "pr_id, id, \"user\", state, submitted_at, body"),
    ("aidev_comments", "pr_id, id, \"user\", created_at, body"),
    ("aidev_commits", "pr_id, sha, author, committer, message"),
    ("aidev_pr_timeline", "pr_id, event, created_at, actor, commit_id, label, message"),
    ("aidev_task_types", "recorded_agent, id, title, reason, type"),
];

#[test]
fn each_release_gives_the_same_outcomes_for_the_same_prs() {
    let tmp = tempfile::tempdir().unwrap();
    let v1 = sql(&import(&release_dir("v1"), tmp.path(), "v1", &[]), OUTCOMES);
    assert_eq!(v1.len(), 30, "6 agent PRs x 5 windows");
    let ds1 = tmp.path().join("v1");
    for name in ["v3", "v5"] {
        let ds = import(&release_dir(name), tmp.path(), name, &[]);
        assert_eq!(sql(&ds, OUTCOMES), v1, "{name}: every outcome column equals v1's");
        // AIDev's own tables hold the same rows, typed alike, whichever release they came from.
        for (table, columns) in SAME_ROWS {
            let every: Vec<String> = (1..=columns.split(',').count() + 1).map(|i| i.to_string()).collect();
            // v5 has no human PRs; Google Jules is in v4 and v5 only.
            let human = if name == "v5" { ", 'Human'" } else { "" };
            let q = format!("SELECT agent, {columns} FROM {table} WHERE coalesce(agent, '') NOT IN ('Google_Jules'{human}) ORDER BY {}", every.join(", "));
            // A CSV field cannot tell an empty text from none (v1 reads both as null); Parquet
            // can, and keeps "" as "". The same rows, then, up to that.
            let (a, b) = (empty_as_null(sql(&ds1, &q)), empty_as_null(sql(&ds, &q)));
            assert!(!a.is_empty(), "{table}");
            assert_eq!(a, b, "{name}: {table}");
        }
        ok(&["verify", "--dataset", ds.to_str().unwrap()], tmp.path());
        let m = manifest(&ds);
        let r = &m["records"]["aidev"];
        assert_eq!(r["input"], r["used"].as_u64().unwrap() + r["quarantined"].as_u64().unwrap());
    }
    // v4 publishes no timeline: the same outcomes, but who merged or closed each PR is not
    // in the data, so each such verdict says so and is medium, never a guessed actor.
    let v4 = sql(&import(&release_dir("v4"), tmp.path(), "v4", &[]), OUTCOMES);
    assert_eq!(v4.len(), v1.len());
    let mut unattributed = 0;
    for (a, b) in v1.iter().zip(&v4) {
        assert_eq!((&a["safe_output_id"], &a["eval_window"], &a["outcome_status"]), (&b["safe_output_id"], &b["eval_window"], &b["outcome_status"]));
        let details = &a["details"];
        let acted = details.get("merged_by").or_else(|| details.get("closed_by")).is_some_and(|v| !v.is_null());
        if acted {
            let d4 = &b["details"];
            assert_eq!(d4["actor_captured"], false, "{b}");
            assert_eq!(b["evidence_strength"], "medium", "{b}");
            unattributed += 1;
        }
    }
    assert!(unattributed >= 5, "every decided PR's actor came from the timeline ({unattributed})");
}

#[test]
fn the_release_its_basis_and_revision_are_recorded() {
    let tmp = tempfile::tempdir().unwrap();
    let want = [
        ("v1", None, "agent folders"),
        ("v3", Some(V3_REVISION), "human_pull_request"),
        ("v4", None, "not v3: PRs by Google_Jules"),
        ("v5", Some(V5_REVISION), "repository.is_forked"),
    ];
    for (name, revision, basis) in want {
        let m = manifest(&import(&release_dir(name), tmp.path(), name, &[]));
        let r = &m["source_release"];
        assert_eq!(r["release"], name, "{r}");
        assert_eq!(r["revision"].as_str(), revision, "{r}");
        assert!(r["recognised_by"].as_str().unwrap().contains(basis), "{r}");
        if name != "v1" {
            assert_eq!(r["subset"], "pop");
        }
    }
    // Given and found alike: kept, with both said; given and found differently: refused.
    let m = manifest(&import(&release_dir("v3"), tmp.path(), "v3-given", &["--revision", "68ed5f4b80"]));
    assert_eq!(m["source_release"]["revision"], V3_REVISION);
    let out = tmp.path().join("v3-wrong");
    let r = run(&["import", "aidev", release_dir("v3").to_str().unwrap(), "--out", out.to_str().unwrap(), "--revision", "abc123", "--quiet"], tmp.path());
    assert_eq!(r.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&r.stderr).contains(&format!("the folder is revision {V3_REVISION}")));
    assert!(!out.exists());
}

#[test]
fn aidev_full_is_read_with_subset_all() {
    let tmp = tempfile::tempdir().unwrap();
    // v3's all_pull_request holds its user ids as floats (pandas' integers with a null).
    let ds = import(&release_dir("v3"), tmp.path(), "all", &["--subset", "all"]);
    let prs = sql(&ds, "SELECT agent, COUNT(*) AS n, SUM(user_id) AS users FROM aidev_pull_requests GROUP BY agent ORDER BY agent");
    let by: Vec<(String, i64)> = prs.iter().map(|r| (r["agent"].as_str().unwrap().to_string(), r["n"].as_i64().unwrap())).collect();
    assert_eq!(by, [("Claude_Code", 2), ("Copilot", 2), ("Devin", 2), ("Human", 1), ("OpenAI_Codex", 1)].map(|(a, n)| (a.to_string(), n)));
    let codex = sql(&ds, "SELECT user_id FROM aidev_pull_requests WHERE agent = 'OpenAI_Codex'");
    assert_eq!(codex[0]["user_id"], 404);
    assert_eq!(manifest(&ds)["source_release"]["subset"], "all");
    let skipped = manifest(&ds)["skipped"].to_string();
    assert!(skipped.contains("pull_request.parquet") && skipped.contains("the other PR set"), "{skipped}");
}

#[test]
fn a_folder_that_fits_no_release_or_several_is_refused_with_what_it_holds() {
    let tmp = tempfile::tempdir().unwrap();
    let refused = |dir: &Path, extra: &[&str]| {
        let out = tmp.path().join("refused");
        let mut args = vec!["import", "aidev", dir.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"];
        args.extend_from_slice(extra);
        let r = run(&args, tmp.path());
        assert_eq!(r.status.code(), Some(2), "{:?}", String::from_utf8_lossy(&r.stderr));
        assert!(!out.exists());
        String::from_utf8_lossy(&r.stderr).to_string()
    };
    // Tables every release shares, and PRs no release rules out: which one cannot be told.
    let shared = tmp.path().join("shared");
    std::fs::create_dir(&shared).unwrap();
    for t in ["pull_request", "pr_reviews"] {
        std::fs::copy(release_dir("v3").join(format!("{t}.parquet")), shared.join(format!("{t}.parquet"))).unwrap();
    }
    let e = refused(&shared, &[]);
    assert!(e.contains("fit v3, v4, v5 alike: say which with --release"), "{e}");
    let ds = import(&shared, tmp.path(), "said", &["--release", "v4"]);
    assert!(manifest(&ds)["source_release"]["recognised_by"].as_str().unwrap().starts_with("--release v4"));
    // A table the named release does not have.
    let e = refused(&release_dir("v3"), &["--release", "v4"]);
    assert!(e.contains("--release v4 was given") && e.contains("(it fits: v3)"), "{e}");
    // v1's folders and Parquet tables in one folder.
    let both = tmp.path().join("both");
    super::support::copy_dir(&release_dir("v1"), &both);
    std::fs::copy(release_dir("v3").join("pull_request.parquet"), both.join("pull_request.parquet")).unwrap();
    let e = refused(&both, &[]);
    assert!(e.contains("both v1 agent folders and the Parquet tables pull_request"), "{e}");
    // Nothing AIDev at all.
    let empty = tmp.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    std::fs::write(empty.join("data.parquet"), b"PAR1").unwrap();
    let e = refused(&empty, &[]);
    assert!(e.contains("no agent folder found"), "{e}");
}

#[test]
fn rows_and_files_that_cannot_be_read_are_quarantined_and_nothing_is_lost() {
    let tmp = tempfile::tempdir().unwrap();
    let ds = import(&fixture("aidev-releases/bad-v5"), tmp.path(), "bad", &[]);
    let m = manifest(&ds);
    let r = &m["records"]["aidev"];
    // pull_request 7 rows, repository 1, timeline 1, and two files refused whole (one
    // record each): 11 = 5 used + 6 quarantined.
    assert_eq!((r["input"].as_u64(), r["used"].as_u64(), r["quarantined"].as_u64()), (Some(11), Some(5), Some(6)), "{r}");
    let q = sql(&ds, "SELECT file, line, field, reason, raw FROM quarantine ORDER BY file, line");
    let got: Vec<(String, Option<i64>, Option<String>)> =
        q.iter().map(|r| (r["file"].as_str().unwrap().to_string(), r["line"].as_i64(), r["field"].as_str().map(str::to_string))).collect();
    let want = [
        ("pr_comments.parquet", None, None),
        ("pr_reviews.parquet", None, None),
        ("pull_request.parquet", Some(2), Some("agent")),
        ("pull_request.parquet", Some(3), Some("created_at")),
        ("pull_request.parquet", Some(4), Some("number")),
        ("pull_request.parquet", Some(5), Some("html_url")),
    ];
    assert_eq!(got, want.map(|(f, l, c)| (f.to_string(), l, c.map(str::to_string))));
    let reasons: Vec<&str> = q.iter().map(|r| r["reason"].as_str().unwrap()).collect();
    assert!(reasons[0].contains("no column `pr_id`") && reasons[0].contains("its 2 rows are not read"), "{}", reasons[0]);
    assert!(reasons[1].contains("`submitted_at` is of Parquet type Boolean, which cannot hold a time"), "{}", reasons[1]);
    assert!(reasons[2].contains("`Gemini` is not an agent of this release"), "{}", reasons[2]);
    // A quarantined row keeps its values as the file holds them.
    let raw: Value = serde_json::from_str(q[3]["raw"].as_str().unwrap()).unwrap();
    assert_eq!(raw["created_at"], "yesterday");
    assert_eq!(raw["id"], "4000000003");
}

fn query(ds: &Path, name: &str) -> Vec<Value> {
    let text = ok(&["report", "--dataset", ds.to_str().unwrap(), "--format", "json", "--query", name], ds);
    serde_json::from_str::<Value>(&text).unwrap().as_array().unwrap().clone()
}

fn cell<'a>(rows: &'a [Value], key: &[(&str, &str)]) -> &'a Value {
    rows.iter().find(|r| key.iter().all(|(k, v)| r[*k] == *v)).unwrap_or_else(|| panic!("no row {key:?} in {rows:?}"))
}

/// The follow-up studies' definitions, on the fixture's PRs, each figure counted by hand from
/// `make.py`'s lists: the same on every release that has the tables, and a named missing
/// table (never a zero) on one that has not.
#[test]
fn the_follow_up_studies_figures_hold_on_every_release_that_has_their_tables() {
    let tmp = tempfile::tempdir().unwrap();
    let ds: Vec<(&str, PathBuf)> = ["v1", "v3", "v4", "v5"].iter().map(|r| (*r, import(&release_dir(r), tmp.path(), r, &[]))).collect();
    let at = |r: &str| &ds.iter().find(|(n, _)| *n == r).unwrap().1;
    for (release, d) in &ds {
        // Copilot: #5 open, #6 merged. Claude_Code: #1 merged, #2 closed. Devin: #10 merged, #11 closed.
        let m = query(d, "aidev/merge_rates");
        let copilot = cell(&m, &[("agent", "Copilot")]);
        assert_eq!((copilot["prs"].as_i64(), copilot["merged"].as_i64(), copilot["still_open"].as_i64()), (Some(2), Some(1), Some(1)), "{release}");
        assert_eq!((copilot["merge_rate_all"].as_f64(), copilot["merge_rate_decided"].as_f64()), (Some(0.5), Some(1.0)), "{release}");
        let devin = cell(&m, &[("agent", "Devin")]);
        assert_eq!((devin["closed_unmerged"].as_i64(), devin["merge_rate_decided"].as_f64()), (Some(1), Some(0.5)), "{release}");
        // Devin opened #10 (merged) in the week of 9 June and #11 (closed) in the week of 16
        // June: its weekly merge rate fell from 1 to 0 in one week.
        let w = query(d, "aidev/weekly_acceptance");
        let devin: Vec<(&str, f64, f64)> = w
            .iter()
            .filter(|r| r["agent"] == "Devin")
            .map(|r| (r["week"].as_str().unwrap(), r["merge_rate"].as_f64().unwrap(), r["trend_per_week"].as_f64().unwrap()))
            .collect();
        assert_eq!(devin, [("2025-06-09", 1.0, -1.0), ("2025-06-16", 0.0, -1.0)], "{release}");
    }
    // Task types: v1, v3 and v5 label the same PRs alike; v4 has none.
    let tasks = query(at("v1"), "aidev/acceptance_by_task");
    for r in ["v3", "v5"] {
        let other: Vec<Value> = query(at(r), "aidev/acceptance_by_task").into_iter().filter(|x| x["agent"] != "Human").collect();
        let v1: Vec<Value> = tasks.iter().filter(|x| x["agent"] != "Human").cloned().collect();
        assert_eq!(other, v1, "{r}");
        assert_eq!(query(at(r), "aidev/fix_prs"), query(at("v1"), "aidev/fix_prs"), "{r}");
    }
    let docs = cell(&tasks, &[("agent", "Copilot"), ("type", "docs")]);
    assert_eq!((docs["prs"].as_i64(), docs["still_open"].as_i64(), docs["merge_rate_decided"].as_f64()), (Some(1), Some(1), None));
    let fix = query(at("v1"), "aidev/fix_prs");
    let claude = cell(&fix, &[("agent", "Claude_Code")]);
    assert_eq!((claude["fix_prs"].as_i64(), claude["closed_unmerged_share"].as_f64()), (Some(1), Some(1.0)));
    for q in ["aidev/acceptance_by_task", "aidev/fix_prs"] {
        let rows = query(at("v4"), q);
        assert_eq!(rows.len(), 1, "{q}");
        assert!(rows[0]["missing"].as_str().unwrap().starts_with("aidev_task_types: this v4 copy has no task-type table"), "{q}: {rows:?}");
    }
    // Inline review comments: v3 on (one on Devin's #10 by its review; one on Copilot's #6 by
    // its pull_request_url, its review not being in pr_reviews); v1 has none, and says so.
    for r in ["v3", "v4", "v5"] {
        let i = query(at(r), "aidev/inline_review");
        let devin = cell(&i, &[("agent", "Devin")]);
        assert_eq!((devin["prs"].as_i64(), devin["with_inline_comments"].as_i64(), devin["no_inline_share"].as_f64()), (Some(2), Some(1), Some(0.5)), "{r}");
        assert_eq!(cell(&i, &[("agent", "Copilot")])["no_inline_share"].as_f64(), Some(0.5), "{r}");
        assert_eq!(cell(&i, &[("agent", "Claude_Code")])["no_inline_share"].as_f64(), Some(1.0), "{r}");
    }
    let i = query(at("v1"), "aidev/inline_review");
    assert!(i.len() == 1 && i[0]["missing"].as_str().unwrap().contains("v1 copy has no inline review comments"), "{i:?}");
    // The human baseline (one merged human PR) where the release has one.
    for r in ["v1", "v3"] {
        let h = query(at(r), "aidev/human_baseline");
        let claude = cell(&h, &[("agent", "Claude_Code")]);
        assert_eq!((claude["human_prs"].as_i64(), claude["difference"].as_f64()), (Some(1), Some(-0.5)), "{r}");
        assert!(h.iter().all(|x| x["missing"].is_null()), "{r}: {h:?}");
    }
    for r in ["v4", "v5"] {
        let h = query(at(r), "aidev/human_baseline");
        assert!(h.len() == 1 && h[0]["missing"].as_str().unwrap().contains("has no human PRs"), "{r}: {h:?}");
    }
}

/// `synth --aidev RELEASE --prs N --out DIR`, quietly, into `tmp/name`.
fn synth_release(tmp: &Path, name: &str, release: &str, prs: &str, seed: &str) -> PathBuf {
    let out = tmp.join(name);
    ok(&["synth", "--quiet", "--aidev", release, "--prs", prs, "--seed", seed, "--out", out.to_str().unwrap()], tmp);
    out
}

/// Every file under `dir` (relative path) with the sha256 of its bytes, in path order.
fn hashes(dir: &Path) -> Vec<(String, String)> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<(String, String)>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(root, &p, out);
            } else {
                out.push((p.strip_prefix(root).unwrap().display().to_string(), hindsight::json::sha256_hex(&std::fs::read(&p).unwrap())));
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

/// A synthetic release of each kind is told by `import aidev` without `--release` (v4 and v5
/// even at one PR), every row is read (nothing quarantined), and every PR is a safe output.
#[test]
fn synthetic_releases_are_told_without_release_and_read_whole() {
    let tmp = tempfile::tempdir().unwrap();
    let basis = [("v1", "agent folders"), ("v3", "human_pull_request"), ("v4", "not v3: PRs by Google_Jules"), ("v5", "repository.is_forked")];
    for (release, prs) in basis.iter().map(|(r, _)| (*r, "60")).chain([("v4", "1"), ("v5", "1")]) {
        let src = synth_release(tmp.path(), &format!("synth-{release}-{prs}"), release, prs, "1");
        let ds = tmp.path().join(format!("ds-{release}-{prs}"));
        ok(&["import", "aidev", src.to_str().unwrap(), "--out", ds.to_str().unwrap(), "--quiet"], tmp.path());
        let m = manifest(&ds);
        let r = &m["source_release"];
        assert_eq!(r["release"], release, "{r}");
        let told = basis.iter().find(|(n, _)| *n == release).unwrap().1;
        assert!(r["recognised_by"].as_str().unwrap().contains(told), "{r}");
        let records = &m["records"]["aidev"];
        assert_eq!(records["quarantined"], 0, "{release}: {records}");
        let rows = |table: &str| m["tables"][table]["rows"].as_u64();
        let n: u64 = prs.parse().unwrap();
        assert_eq!(rows("safe_outputs"), Some(n), "{release}: one safe output per PR written");
        assert_eq!((rows("aidev_pull_requests"), rows("aidev_comments"), rows("aidev_commits")), (Some(n), Some(n), Some(2 * n)), "{release}");
    }
    // --prs goes with --aidev, --repos and --outputs do not; a folder with files is not written over.
    let out = tmp.path().join("refused");
    for args in [vec!["--aidev", "v3"], vec!["--aidev", "v3", "--prs", "5", "--repos", "2"], vec!["--prs", "5"], vec!["--aidev", "v3", "--prs", "0"]] {
        let mut all = vec!["synth", "--quiet", "--out", out.to_str().unwrap()];
        all.extend(args.iter().copied());
        assert_eq!(run(&all, tmp.path()).status.code(), Some(2), "{all:?}");
        assert!(!out.exists(), "{all:?}");
    }
    let r = run(&["synth", "--quiet", "--aidev", "v1", "--prs", "5", "--out", tmp.path().join("synth-v3-60").to_str().unwrap()], tmp.path());
    assert_eq!(r.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&r.stderr).contains("not empty"), "{}", String::from_utf8_lossy(&r.stderr));
}

/// The same arguments write the same bytes, file for file; another seed, other bytes.
#[test]
fn synthetic_releases_are_the_same_bytes_for_the_same_arguments() {
    let tmp = tempfile::tempdir().unwrap();
    for release in ["v1", "v3", "v4", "v5"] {
        let a = hashes(&synth_release(tmp.path(), &format!("{release}-a"), release, "300", "3"));
        let b = hashes(&synth_release(tmp.path(), &format!("{release}-b"), release, "300", "3"));
        let c = hashes(&synth_release(tmp.path(), &format!("{release}-c"), release, "300", "4"));
        assert!(a.len() >= 6, "{release}: {a:?}");
        assert_eq!(a, b, "{release}");
        assert_ne!(a, c, "{release}: the seed changed nothing");
    }
}

/// The Parquet releases are read in two passes in bounded memory (every PR row's identity
/// claimed, then judged by sorting); the rule is v1's (`aidev::colliding_pr_identities_*`):
/// an id claimed by rows that differ or by two agents, a repository and number claimed by
/// two ids, and every claimant is quarantined with the others named; an exact repeat is
/// one PR. The PRs no collision touches are judged exactly as without the extra rows.
#[test]
fn colliding_pr_identities_in_parquet_are_quarantined_as_v1s_are() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("v5");
    std::fs::create_dir_all(&src).unwrap();
    for e in std::fs::read_dir(release_dir("v5")).unwrap() {
        let p = e.unwrap().path();
        if p.is_file() {
            std::fs::copy(&p, src.join(p.file_name().unwrap())).unwrap();
        }
    }
    // Rows 8-11 appended: 8 repeats row 1 exactly; 9 is row 2 retitled; 10 is row 3 under
    // another id; 11 is row 4 given to another agent.
    let script = r#"
import sys, pyarrow as pa, pyarrow.parquet as pq
p = sys.argv[1] + "/pull_request.parquet"
t = pq.read_table(p)
rows = t.to_pylist()
extra = [dict(rows[0]), dict(rows[1], title="Fix typo, again"), dict(rows[2], id=4000000099), dict(rows[3], agent="Devin")]
pq.write_table(pa.Table.from_pylist(rows + extra, schema=t.schema), p)
"#;
    let out = std::process::Command::new(super::support::python()).args(["-c", script, src.to_str().unwrap()]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let plain = import(&release_dir("v5"), tmp.path(), "plain", &[]);
    let ds = import(&src, tmp.path(), "collide", &[]);
    let m = manifest(&ds);
    let r = &m["records"]["aidev"];
    assert_eq!(r["input"], r["used"].as_u64().unwrap() + r["quarantined"].as_u64().unwrap(), "{r}");

    let q = sql(&ds, "SELECT line, field, reason FROM quarantine WHERE file = 'pull_request.parquet' ORDER BY line");
    let got: Vec<(i64, &str)> = q.iter().map(|r| (r["line"].as_i64().unwrap(), r["field"].as_str().unwrap())).collect();
    assert_eq!(got, [(2, "id"), (3, "number"), (4, "id"), (9, "id"), (10, "number"), (11, "id")]);
    let reason = |line: i64| q.iter().find(|r| r["line"] == line).unwrap()["reason"].as_str().unwrap().to_string();
    for line in [2, 9] {
        let why = reason(line);
        assert!(why.contains("PR id 4000000002 is claimed by 2 rows that differ") && why.contains("pull_request.parquet row 2 (id 4000000002), pull_request.parquet row 9"), "{why}");
    }
    for line in [3, 10] {
        let why = reason(line);
        assert!(why.contains("PR octo/beta#5 is claimed by 2 rows with different ids or folders") && why.contains("row 10 (id 4000000099)"), "{why}");
    }
    for line in [4, 11] {
        let why = reason(line);
        assert!(why.contains("PR id 4000000004 is claimed by 2 identical rows in different folders") && why.contains("PR octo/beta#6 is claimed by 2 rows"), "{why}");
    }

    // Neither claimant is judged; the exact repeat is one output; the rest as before.
    let ids = "SELECT safe_output_id FROM safe_outputs ORDER BY safe_output_id";
    let outs: Vec<Value> = sql(&ds, ids).into_iter().map(|r| r["safe_output_id"].clone()).collect();
    assert_eq!(outs, ["aidev:Claude_Code:4000000001", "aidev:Devin:4000000005", "aidev:Devin:4000000006", "aidev:Google_Jules:4000000007"]);
    let kept = "SELECT * FROM outcomes WHERE safe_output_id IN ('aidev:Claude_Code:4000000001', 'aidev:Devin:4000000005', 'aidev:Devin:4000000006', 'aidev:Google_Jules:4000000007') ORDER BY safe_output_id, window_order";
    let (a, b) = (sql(&plain, kept), sql(&ds, kept));
    assert_eq!(a.len(), 20, "4 PRs x 5 windows");
    assert_eq!(a, b, "the PRs no collision touches are judged as without the extra rows");
    let lost = sql(&ds, "SELECT path FROM responses WHERE path LIKE 'repos/octo/beta/%' OR path LIKE 'repos/octo/alpha/pulls/2%'");
    assert!(lost.is_empty(), "no capture of a quarantined PR: {lost:?}");
}
