//! Writing datasets never destroys a user's files, replaces a dataset atomically, admits one
//! writer at a time; reports only read, within a memory limit; verify sees everything;
//! errors are said once and control characters never reach the terminal raw.

use std::path::{Path, PathBuf};

use crate::support::{demo, ok, run, Study};

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).to_string()
}

fn stdout(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stdout).to_string()
}

/// `convert` of the demo's inputs into `out`, run from `cwd`.
fn convert(out: &str, cwd: &Path) -> std::process::Output {
    Study::demo().cmd("convert", &["--quiet", "--out", out], cwd)
}

/// Names and bytes of everything under `dir`, for "nothing changed" checks.
fn tree(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(tree(&p));
        } else {
            out.push((p.clone(), std::fs::read(&p).unwrap()));
        }
    }
    out.sort();
    out
}

#[test]
fn an_out_that_would_delete_a_users_files_is_refused_and_nothing_is_touched() {
    let tmp = tempfile::tempdir().unwrap();
    let ds = tmp.path().join("ds");
    demo(tmp.path());
    std::fs::write(ds.join("my-notes.txt"), "my notes").unwrap();
    std::fs::create_dir(ds.join("analysis")).unwrap();
    std::fs::write(ds.join("analysis/plot.py"), "print(1)").unwrap();
    let before = tree(tmp.path());
    // (out, working directory, what the error says)
    let cases: Vec<(&str, PathBuf, &str)> = vec![
        (".", ds.clone(), "the working directory"),
        ("./", ds.clone(), "the working directory"),
        ("..", ds.clone(), "a parent of the working directory"),
        ("ds", tmp.path().to_path_buf(), "my-notes.txt"),
        ("ds/.", tmp.path().to_path_buf(), "my-notes.txt"),
        ("ds/..", tmp.path().to_path_buf(), "the working directory"),
        ("ds/analysis/..", tmp.path().to_path_buf(), "analysis"),
    ];
    for (out, cwd, says) in cases {
        let o = convert(out, &cwd);
        assert_eq!(o.status.code(), Some(2), "--out {out}: {}", stderr(&o));
        assert!(stderr(&o).contains(says), "--out {out}: {}", stderr(&o));
        assert_eq!(stderr(&o).lines().count(), 1, "said once: {}", stderr(&o));
        assert_eq!(tree(tmp.path()), before, "--out {out} changed files");
    }
    // A file is not a dataset directory either.
    std::fs::write(tmp.path().join("file"), "x").unwrap();
    let o = convert("file", tmp.path());
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(std::fs::read(tmp.path().join("file")).unwrap(), b"x");
    // Without the user's files the dataset is replaced.
    std::fs::remove_file(ds.join("my-notes.txt")).unwrap();
    std::fs::remove_dir_all(ds.join("analysis")).unwrap();
    assert!(convert("ds", tmp.path()).status.success());
}

#[test]
fn an_out_inside_or_around_an_input_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    Study::demo().copy_to(&tmp.path().join("study"));
    let before = tree(tmp.path());
    for (out, says) in [("study/snapshot/ds", "inside the input"), ("study", "holds the input"), ("study/runs", "holds the input")] {
        let o = Study::at("study").cmd("convert", &["--quiet", "--out", out], tmp.path());
        assert_eq!(o.status.code(), Some(2), "--out {out}");
        assert!(stderr(&o).contains(says), "--out {out}: {}", stderr(&o));
        assert_eq!(tree(tmp.path()), before);
    }
}

/// A study large enough that a run takes a while, so kills land in every stage.
fn synth_study(dir: &Path) -> PathBuf {
    ok(&["synth", "--quiet", "--repos", "10", "--outputs", "1500", "--out", "study"], dir);
    dir.join("study")
}

fn manifest_of(ds: &Path) -> String {
    std::fs::read_to_string(ds.join("manifest.json")).unwrap()
}

/// Killed at any instant, a run leaves the previous dataset or the new one, whole and
/// evaluated; the next writer removes the staging folder it left, and says so.
#[test]
fn a_killed_run_leaves_the_old_dataset_or_the_new_one_whole() {
    let tmp = tempfile::tempdir().unwrap();
    let study = synth_study(tmp.path());
    let synth = Study::at("study");
    demo(tmp.path());
    let demo = manifest_of(&tmp.path().join("ds"));
    synth.run(tmp.path(), "ds");
    let full = manifest_of(&tmp.path().join("ds"));
    std::fs::remove_dir_all(tmp.path().join("ds")).unwrap();
    crate::support::demo(tmp.path());
    let mut seen_new = false;
    for delay_ms in [0u64, 40, 120, 250, 400, 700, 1000, 1500, 2500] {
        let mut child = std::process::Command::new(crate::support::bin())
            .args(["run", "--quiet"])
            .args(synth.args())
            .args(["--out", "ds"])
            .current_dir(tmp.path())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        let _ = child.kill();
        let _ = child.wait();
        let ds = tmp.path().join("ds");
        let m = manifest_of(&ds);
        assert!(m == demo || m == full, "after a kill at {delay_ms} ms the manifest is neither the old nor the new one");
        seen_new |= m == full;
        assert!(ds.join("outcomes.parquet").is_file(), "a run is committed only once evaluated");
        ok(&["verify", "--dataset", "ds"], tmp.path());
        if !seen_new {
            continue;
        }
        // Back to the old dataset for the next kill.
        crate::support::demo(tmp.path());
        seen_new = false;
    }
    // A staging folder a dead process left is removed by the next writer, and reported.
    let left = tmp.path().join(".ds.partial-4000000");
    std::fs::create_dir(&left).unwrap();
    std::fs::write(left.join("junk.parquet"), "x").unwrap();
    let o = run(&["run", "--out", "ds"], tmp.path());
    assert!(o.status.success());
    assert!(!left.exists());
    assert!(stderr(&o).contains(".ds.partial-4000000"), "{}", stderr(&o));
    let _ = study;
}

/// evaluate and attach change a dataset the same way: a kill leaves the old outcomes and
/// manifest, or the new ones, never a mix and never a stray temporary.
#[test]
fn a_killed_evaluate_leaves_the_dataset_whole() {
    let tmp = tempfile::tempdir().unwrap();
    synth_study(tmp.path());
    Study::at("study").convert(tmp.path(), "ds");
    let converted = manifest_of(&tmp.path().join("ds"));
    for delay_ms in [0u64, 100, 300, 600, 1000] {
        let mut child =
            std::process::Command::new(crate::support::bin()).args(["evaluate", "--quiet", "--dataset", "ds"]).current_dir(tmp.path()).spawn().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        let _ = child.kill();
        let _ = child.wait();
        let ds = tmp.path().join("ds");
        let m = manifest_of(&ds);
        assert_eq!(ds.join("outcomes.parquet").is_file(), m != converted, "outcomes.parquet and the manifest disagree after a kill at {delay_ms} ms");
        ok(&["verify", "--dataset", "ds"], tmp.path());
    }
}

#[test]
fn a_second_writer_is_refused_while_the_first_holds_the_lock() {
    let tmp = tempfile::tempdir().unwrap();
    demo(tmp.path());
    let before = tree(&tmp.path().join("ds"));
    let lock = std::fs::OpenOptions::new().read(true).write(true).create(true).truncate(false).open(tmp.path().join(".ds.lock")).unwrap();
    lock.try_lock().unwrap();
    std::fs::write(tmp.path().join(".ds.lock"), "pid 77 started 2026-01-01T00:00:00Z\n").unwrap();
    for args in [vec!["run", "--quiet", "--out", "ds"], vec!["evaluate", "--quiet", "--dataset", "ds"], vec!["attach", "--quiet", "--dataset", "ds"]] {
        let o = run(&args, tmp.path());
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(stderr(&o).contains("being written by another hindsight (pid 77 started 2026-01-01T00:00:00Z)"), "{}", stderr(&o));
    }
    assert_eq!(tree(&tmp.path().join("ds")), before);
    lock.unlock().unwrap();
    ok(&["evaluate", "--quiet", "--dataset", "ds"], tmp.path());
}

#[test]
fn sql_only_reads_unless_writes_are_allowed() {
    let tmp = tempfile::tempdir().unwrap();
    demo(tmp.path());
    let before = tree(tmp.path());
    let statements = [
        "COPY (SELECT * FROM outcomes LIMIT 1) TO 'ds/outcomes.parquet'",
        "COPY (SELECT 1 AS a) TO 'new.parquet'",
        "CREATE EXTERNAL TABLE p (a VARCHAR) STORED AS CSV LOCATION '/etc/passwd'",
        "DROP TABLE outcomes",
        "SET datafusion.execution.batch_size = 1",
        "CREATE TABLE z AS SELECT 1",
        "INSERT INTO outcomes SELECT * FROM outcomes",
    ];
    for sql in statements {
        let o = run(&["report", "--dataset", "ds", "--sql", sql], tmp.path());
        assert_eq!(o.status.code(), Some(2), "{sql}");
        assert!(stderr(&o).contains("read-only unless --allow-write"), "{sql}: {}", stderr(&o));
        assert_eq!(tree(tmp.path()), before, "{sql} changed a file");
    }
    ok(&["report", "--dataset", "ds", "--allow-write", "--sql", "COPY (SELECT 1 AS a) TO 'new.csv'"], tmp.path());
    assert!(tmp.path().join("new.csv").is_file());
    // A .parquet the manifest does not record is not a table of the dataset.
    std::fs::copy(tmp.path().join("ds/outcomes.parquet"), tmp.path().join("ds/extra.parquet")).unwrap();
    let o = run(&["report", "--dataset", "ds", "--sql", "SELECT count(*) FROM extra"], tmp.path());
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("extra"), "{}", stderr(&o));
}

#[test]
fn a_query_beyond_its_memory_limit_stops_with_a_clear_error() {
    let tmp = tempfile::tempdir().unwrap();
    demo(tmp.path());
    // Every pair of response bodies joined into one value: more than 16 MiB held at once.
    let cross = "SELECT string_agg(a.body, ',') FROM responses a, responses b";
    let o = run(&["report", "--dataset", "ds", "--memory-limit", "16M", "--sql", cross], tmp.path());
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("memory limit of 16 MiB"), "{}", stderr(&o));
    // A preview of a result far larger than the limit holds only the rows it shows.
    let pairs = "SELECT a.body, b.body, c.body FROM responses a, responses b, responses c";
    let preview = ok(&["report", "--dataset", "ds", "--memory-limit", "16M", "--sql", pairs], tmp.path());
    assert!(preview.trim_end().ends_with("(40 shown)"), "{preview}");
    // Within the limit the same session answers: every pair of responses.
    let n: u64 = ok(&["report", "--dataset", "ds", "--format", "csv", "--sql", "SELECT count(*) AS n FROM responses"], tmp.path())
        .lines()
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let o = ok(
        &["report", "--dataset", "ds", "--memory-limit", "16M", "--format", "csv", "--sql", "SELECT count(*) AS n FROM responses a, responses b"],
        tmp.path(),
    );
    assert_eq!(o, format!("n\n{}\n", n * n));
    let o = run(&["report", "--dataset", "ds", "--memory-limit", "lots", "--sql", "SELECT 1"], tmp.path());
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("memory limit `lots`"));
}

#[test]
fn verify_reports_unrecorded_files_and_edited_record_counts() {
    let tmp = tempfile::tempdir().unwrap();
    demo(tmp.path());
    let ds = tmp.path().join("ds");
    std::fs::write(ds.join("notes.txt"), "x").unwrap();
    std::fs::write(ds.join(".outcomes.parquet.tmp"), "x").unwrap();
    let o = run(&["verify", "--dataset", "ds"], tmp.path());
    assert_eq!(o.status.code(), Some(1));
    let text = stdout(&o);
    assert!(text.contains("notes.txt: on disk, not recorded in manifest.json"), "{text}");
    assert!(text.contains(".outcomes.parquet.tmp: on disk, not recorded in manifest.json"), "{text}");
    std::fs::remove_file(ds.join("notes.txt")).unwrap();
    std::fs::remove_file(ds.join(".outcomes.parquet.tmp")).unwrap();
    // A missing table reads as missing, not the other way round.
    let outcomes = std::fs::read(ds.join("outcomes.parquet")).unwrap();
    std::fs::remove_file(ds.join("outcomes.parquet")).unwrap();
    let text = stdout(&run(&["verify", "--dataset", "ds"], tmp.path()));
    assert!(text.contains("outcomes.parquet: recorded in manifest.json, missing on disk"), "{text}");
    std::fs::write(ds.join("outcomes.parquet"), outcomes).unwrap();
    ok(&["verify", "--dataset", "ds"], tmp.path());
    // Record counts edited in the manifest, each alone.
    let original = std::fs::read_to_string(ds.join("manifest.json")).unwrap();
    for (input, field, says) in [
        ("runs", "used", "used +"),
        ("snapshot", "input", "the input files recorded hold"),
        ("snapshot", "used", "responses.parquet holds"),
        ("traces", "quarantined", "quarantine.parquet holds"),
    ] {
        let mut m: serde_json::Value = serde_json::from_str(&original).unwrap();
        let n = m["records"][input][field].as_u64().unwrap();
        m["records"][input][field] = (n + 1).into();
        std::fs::write(ds.join("manifest.json"), serde_json::to_string_pretty(&m).unwrap()).unwrap();
        let o = run(&["verify", "--dataset", "ds"], tmp.path());
        assert_eq!(o.status.code(), Some(1), "{input}.{field} edited");
        assert!(stdout(&o).contains(&format!("records of input `{input}`")) && stdout(&o).contains(says), "{input}.{field}: {}", stdout(&o));
    }
}

#[test]
fn errors_are_said_once() {
    let tmp = tempfile::tempdir().unwrap();
    demo(tmp.path());
    for (args, once) in [
        (vec!["report", "--dataset", "ds", "--sql", "SELEC 1"], "Expected: an SQL statement"),
        (vec!["report", "--dataset", "ds", "--sql", "SELECT * FROM nope"], "no table `nope`"),
        (vec!["attach", "--dataset", "nope"], "no such directory"),
        (vec!["evaluate", "--dataset", "nope"], "no such directory"),
        (vec!["verify", "--dataset", "nope"], "no such directory"),
        (vec!["check", "--dataset", "ds", "--expected", "nope.json"], "No such file or directory"),
    ] {
        let o = run(&args, tmp.path());
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let e = stderr(&o);
        assert_eq!(e.matches(once).count(), 1, "{args:?}: {e}");
        assert_eq!(e.lines().count(), 1, "{args:?}: {e}");
    }
}

/// Values from the inputs (a workflow name, an unknown type) may hold terminal escape
/// sequences; they are shown as text on the terminal's formats, never sent raw.
#[test]
fn control_characters_from_inputs_never_reach_the_terminal() {
    let tmp = tempfile::tempdir().unwrap();
    let study = Study::demo().copy_to(tmp.path());
    let mut edited = 0;
    for e in std::fs::read_dir(tmp.path().join("runs")).unwrap() {
        let info = e.unwrap().path().join("aw_info.json");
        if let Ok(text) = std::fs::read_to_string(&info) {
            let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
            v["workflow_name"] = "evil\u{1b}]0;pwned\u{7}\u{1b}[2J".into();
            std::fs::write(&info, v.to_string()).unwrap();
            edited += 1;
        }
    }
    assert!(edited > 0);
    let first = std::fs::read_dir(tmp.path().join("runs")).unwrap().map(|e| e.unwrap().path()).min().unwrap();
    let items = first.join("safe-output-items.jsonl");
    let mut text = std::fs::read_to_string(&items).unwrap_or_default();
    text.push_str("{\"type\":\"custom\\u001b[31m\",\"timestamp\":\"2026-01-10T00:00:00Z\"}\n");
    std::fs::write(&items, text).unwrap();
    let o = study.cmd("run", &["--out", "ds"], tmp.path());
    assert!(o.status.success(), "{}", stderr(&o));
    for (what, bytes) in [("stdout", &o.stdout), ("stderr", &o.stderr)] {
        assert!(!bytes.contains(&0x1b), "{what} carries a raw escape");
        assert!(String::from_utf8_lossy(bytes).contains("\\u{1b}"), "{what} shows the escape as text");
    }
    for format in ["table", "markdown"] {
        let o = ok(&["report", "--dataset", "ds", "--format", format, "--sql", "SELECT DISTINCT workflow_name FROM outcomes"], tmp.path());
        assert!(!o.as_bytes().contains(&0x1b) && o.contains("evil\\u{1b}]0;pwned\\u{7}"), "{format}: {o}");
    }
    // The data itself keeps the exact text.
    let o = ok(&["report", "--dataset", "ds", "--format", "json", "--sql", "SELECT DISTINCT workflow_name FROM outcomes"], tmp.path());
    assert!(o.contains("evil\\u001b]0;pwned\\u0007\\u001b[2J"), "{o}");
}

/// verify with the inputs at hand does not open what convert refused to read (a FIFO
/// would hang it) and does not call it drift.
#[test]
fn verify_skips_input_files_convert_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let study = Study::demo().copy_to(tmp.path());
    let made = std::process::Command::new("mkfifo").arg(study.snapshot.join("pipe.jsonl")).status().unwrap();
    assert!(made.success());
    study.convert(tmp.path(), "ds");
    let text = study.ok("verify", &["--dataset", "ds"], tmp.path());
    assert!(text.contains("every file matches"), "{text}");
}

/// Class: verify that misses added inputs. With the inputs at hand, verify compares the
/// set of files under each input with the manifest's: a run folder added since, a capture
/// renamed, are named (exit 1); an input not given is said as not checked, never as its
/// files missing; the inputs as they were pass.
#[test]
fn verify_sees_added_renamed_and_not_given_inputs() {
    let tmp = tempfile::tempdir().unwrap();
    let study = Study::demo().traces(crate::support::fixture("demo/traces")).copy_to(tmp.path());
    study.convert(tmp.path(), "ds");
    let text = study.ok("verify", &["--dataset", "ds"], tmp.path());
    assert!(text.contains("every file matches manifest.json, the inputs given included"), "{text}");
    // Only the snapshot and runs: the traces and tasks are not checked, and said so.
    let given = ["verify", "--dataset", "ds", "--snapshot", study.snapshot.to_str().unwrap(), "--runs", study.runs.to_str().unwrap()];
    let out = ok(&given, tmp.path());
    assert!(out.contains("input `traces` (1 file(s)) not given") && !out.contains("missing on disk"), "{out}");
    // A run added, a capture renamed.
    let first_run = std::fs::read_dir(&study.runs).unwrap().flatten().map(|e| e.path()).filter(|p| p.is_dir()).min().unwrap();
    crate::support::copy_dir(&first_run, &study.runs.join("zz-added-run"));
    let capture = std::fs::read_dir(&study.snapshot).unwrap().flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "jsonl")).min().unwrap();
    let name = capture.file_name().unwrap().to_string_lossy().to_string();
    std::fs::rename(&capture, study.snapshot.join("renamed.jsonl")).unwrap();
    let o = study.cmd("verify", &["--dataset", "ds"], tmp.path());
    assert_eq!(o.status.code(), Some(1));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains(&format!("snapshot/{name}: renamed snapshot/renamed.jsonl")), "{text}");
    assert!(text.contains("runs/zz-added-run/") && text.contains("added since"), "{text}");
    assert!(!text.contains("missing on disk"), "{text}");
}

/// A query sees one version of the dataset: while a writer swaps in new versions in a loop
/// (evaluations with 2 windows, then 5), every read of the cross-table invariant (outcome
/// rows per safe output) gives 2 or 5, never a mix of the two versions, and never an error;
/// the readers' pinned folders are gone after them.
#[test]
fn a_query_sees_one_version_while_a_writer_swaps_versions_in() {
    let tmp = tempfile::tempdir().unwrap();
    let ds = demo(tmp.path());
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let writer = {
        let (dir, stop) = (tmp.path().to_path_buf(), stop.clone());
        std::thread::spawn(move || {
            let mut swaps = 0;
            while !stop.load(std::sync::atomic::Ordering::SeqCst) || swaps < 4 {
                let windows = if swaps % 2 == 0 { "1h,snapshot" } else { "1h,24h,7d,30d,snapshot" };
                ok(&["evaluate", "--dataset", "ds", "--windows", windows, "--quiet"], &dir);
                swaps += 1;
            }
            swaps
        })
    };
    let sql = "SELECT (SELECT COUNT(*) FROM outcomes) / (SELECT COUNT(*) FROM safe_outputs) AS windows, (SELECT COUNT(DISTINCT eval_window) FROM outcomes) AS distinct_windows";
    let mut seen = std::collections::BTreeSet::new();
    for _ in 0..30 {
        let o = run(&["report", "--dataset", "ds", "--sql", sql, "--format", "json"], tmp.path());
        assert!(o.status.success(), "a read failed during a swap: {}", stderr(&o));
        let rows: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
        let (w, d) = (rows[0]["windows"].as_i64().unwrap(), rows[0]["distinct_windows"].as_i64().unwrap());
        assert!((w == 2 || w == 5) && w == d, "two versions in one read: {} outcome rows per output, {d} windows", w);
        seen.insert(w);
    }
    stop.store(true, std::sync::atomic::Ordering::SeqCst);
    let swaps = writer.join().unwrap();
    assert!(swaps >= 4, "{swaps} swaps");
    let left: Vec<String> = std::fs::read_dir(tmp.path()).unwrap().flatten().map(|e| e.file_name().to_string_lossy().to_string()).filter(|n| n.contains(".read-")).collect();
    assert!(left.is_empty(), "pinned folders left: {left:?}");
    ok(&["verify", "--dataset", ds.to_str().unwrap()], tmp.path());
}
