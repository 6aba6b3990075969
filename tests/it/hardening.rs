//! Regression tests of the second hardening round, one per class of fault: what a writing
//! command may replace, configuration and expectations that say two things at once, checks
//! that compare nothing, names that reach outside a dataset, SQL values past what memory or
//! arrow can hold, repositories and numbers in runs that cannot be what they claim.

use std::os::unix::fs::FileTypeExt;
use std::path::Path;

use hindsight::runs::item::{self, RunContext};
use serde_json::{json, Value};

use crate::support::{demo, fixture, ok, run};

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).to_string()
}

fn bytes(p: &Path) -> Vec<u8> {
    std::fs::read(p).unwrap()
}

/// `attach --out` never writes over the study's inputs or the dataset's own tables and
/// manifest, not even with --force; an existing file only with --force; each refusal leaves
/// every byte as it was.
#[test]
fn attach_out_never_replaces_inputs_or_dataset_tables_and_existing_files_only_with_force() {
    let tmp = tempfile::tempdir().unwrap();
    demo(tmp.path());
    let ds = tmp.path().join("ds");
    // The study's own input traces, copied where the user keeps them.
    let traces = tmp.path().join("sessions.jsonl");
    std::fs::copy(fixture("demo/traces/sessions.jsonl"), &traces).unwrap();
    let link = tmp.path().join("link-to-outcomes");
    std::os::unix::fs::symlink(ds.join("outcomes.parquet"), &link).unwrap();
    // A FIFO (as a device node would be): never replaced by a regular file, even with --force.
    let fifo = tmp.path().join("fifo");
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let before: Vec<(String, Vec<u8>)> =
        ["outcomes.parquet", "safe_outputs.parquet", "manifest.json"].iter().map(|n| (n.to_string(), bytes(&ds.join(n)))).collect();
    let input_bytes = bytes(&traces);
    for (out, force, says) in [
        (traces.to_str().unwrap(), true, "holds the study's input"),
        ("ds/outcomes.parquet", true, "the dataset's own table"),
        ("ds/safe_outputs.parquet", false, "the dataset's own table"),
        ("ds/manifest.json", true, "the dataset's own file"),
        (link.to_str().unwrap(), true, "the dataset's own table"),
        ("ds", true, "is a directory"),
        ("ds/sub/x.jsonl", true, "inside the dataset's folder"),
        (fifo.to_str().unwrap(), true, "not a regular file"),
    ] {
        let mut args = vec!["attach", "--quiet", "--dataset", "ds", "--out", out];
        if force {
            args.push("--force");
        }
        let o = run(&args, tmp.path());
        assert_eq!(o.status.code(), Some(2), "{out}: {}", stderr(&o));
        assert!(stderr(&o).contains(says), "{out}: {}", stderr(&o));
    }
    assert_eq!(bytes(&traces), input_bytes);
    assert!(std::fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo(), "the FIFO is still one");
    for (n, b) in &before {
        assert_eq!(&bytes(&ds.join(n)), b, "{n} changed");
    }
    ok(&["verify", "--dataset", "ds"], tmp.path());

    // An existing file of the user's: refused, then replaced whole with --force.
    let mine = tmp.path().join("mine.jsonl");
    std::fs::write(&mine, "keep me\n").unwrap();
    let o = run(&["attach", "--quiet", "--dataset", "ds", "--out", "mine.jsonl"], tmp.path());
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("exists; give --force"), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&mine).unwrap(), "keep me\n");
    ok(&["attach", "--quiet", "--dataset", "ds", "--out", "mine.jsonl", "--force"], tmp.path());
    let written = std::fs::read_to_string(&mine).unwrap();
    assert_eq!(written, std::fs::read_to_string(ds.join("traces.enriched.jsonl")).unwrap());
    // A user's `.mine.jsonl.tmp` beside it is not attach's to write or remove.
    std::fs::write(tmp.path().join(".mine.jsonl.tmp"), "theirs").unwrap();
    ok(&["attach", "--quiet", "--dataset", "ds", "--out", "mine.jsonl", "--force"], tmp.path());
    assert_eq!(std::fs::read_to_string(tmp.path().join(".mine.jsonl.tmp")).unwrap(), "theirs");
    // The enriched traces inside the dataset are attach's own: written again, recorded.
    ok(&["attach", "--quiet", "--dataset", "ds", "--out", "ds/traces.enriched.jsonl"], tmp.path());
    ok(&["verify", "--dataset", "ds"], tmp.path());

    // Class: temporary files left beside an outside --out. One left by a process killed
    // mid-write (its pid no longer running) is removed by the next attach there; one of a
    // running process is not.
    let dead = tmp.path().join(".mine.jsonl.4194303.tmp");
    let alive = tmp.path().join(format!(".mine.jsonl.{}.tmp", std::process::id()));
    std::fs::write(&dead, "half").unwrap();
    std::fs::write(&alive, "being written").unwrap();
    ok(&["attach", "--quiet", "--dataset", "ds", "--out", "mine.jsonl", "--force"], tmp.path());
    assert!(!dead.exists(), "a killed attach's temporary file is left");
    assert_eq!(std::fs::read_to_string(&alive).unwrap(), "being written");

    // Class: --force past another dataset's lock. A second dataset's table, manifest or a
    // new file in its folder is never written by attach --out (the shell's .output: shell.rs).
    std::fs::create_dir(tmp.path().join("other")).unwrap();
    for name in ["outcomes.parquet", "manifest.json", "safe_outputs.parquet"] {
        std::fs::copy(ds.join(name), tmp.path().join("other").join(name)).unwrap();
    }
    let other_before = bytes(&tmp.path().join("other/manifest.json"));
    for out in ["other/outcomes.parquet", "other/manifest.json", "other/new.jsonl"] {
        let o = run(&["attach", "--quiet", "--dataset", "ds", "--out", out, "--force"], tmp.path());
        assert_eq!(o.status.code(), Some(2), "{out}: {}", stderr(&o));
        assert!(stderr(&o).contains("inside another dataset"), "{out}: {}", stderr(&o));
    }
    assert_eq!(bytes(&tmp.path().join("other/manifest.json")), other_before);
    assert!(!tmp.path().join("other/new.jsonl").exists());

    // Class: standard output. `--out -` writes the same lines there; /dev/stdout, a device
    // or a pipe, is refused with the way to get them.
    let piped = ok(&["attach", "--quiet", "--dataset", "ds", "--out", "-"], tmp.path());
    assert_eq!(piped, std::fs::read_to_string(ds.join("traces.enriched.jsonl")).unwrap());
    let o = run(&["attach", "--quiet", "--dataset", "ds", "--out", "/dev/stdout"], tmp.path());
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("give --out - for standard output"), "{}", stderr(&o));
}

/// A key that repeats, at any depth, in a file hindsight reads as configuration or as
/// expectations is an error naming the key: the policy, the CI-gate policy, the task policy,
/// the expected figures; in a gate or task record it quarantines the record.
#[test]
fn repeated_keys_in_configuration_and_expectations_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| {
        let p = tmp.path().join(name);
        std::fs::write(&p, text).unwrap();
        p
    };
    let p = write("policy.json", r#"{"revert_window_hours": 720, "revert_window_hours": 1}"#);
    let e = hindsight::evaluate::Policy::load(&p).unwrap_err().to_string();
    assert!(e.contains("repeated key `revert_window_hours`"), "{e}");

    let gate = std::fs::read_to_string(fixture("gate/policy.json")).unwrap();
    let gate: Value = serde_json::from_str(&gate).unwrap();
    let first = gate.as_object().unwrap().keys().next().unwrap().clone();
    let text = serde_json::to_string(&gate).unwrap();
    let repeated = format!("{{\"{first}\": {}, {}", gate[&first], &text[1..]);
    let e = hindsight::gate::policy::Policy::load(&write("gate.json", &repeated)).unwrap_err().to_string();
    assert!(e.contains(&format!("repeated key `{first}`")), "{e}");

    let e = hindsight::tasks::categorize::TaskPolicy::load(&write("tasks.json", r#"{"precedence": [], "precedence": []}"#)).unwrap_err().to_string();
    assert!(e.contains("repeated key `precedence`"), "{e}");

    let e = hindsight::report::check::Expected::parse(r#"{"summary": [{"eval_window": "7d", "rate": 0.9, "rate": 0.25}]}"#).err().unwrap().to_string();
    assert!(e.contains("summary[0].rate") && e.contains("twice"), "{e}");
    // Two copies of one query: the first would never be compared.
    let e = hindsight::report::check::Expected::parse(r#"{"summary": [{"rate": 0.9}], "summary": [{"rate": 0.25}]}"#).err().unwrap().to_string();
    assert!(e.contains("`summary` is written twice"), "{e}");

    // A gate record with a key repeated inside a nested object: quarantined, named.
    let line = std::fs::read_to_string(fixture("gate/results.jsonl")).unwrap().lines().next().unwrap().to_string();
    let nested = line.replacen("\"protected_file_sha256\":{", "\"protected_file_sha256\":{\"docs/governance.md\":\"x\",", 1);
    let r = hindsight::gate::input::read(&write("results.jsonl", &format!("{line}\n{nested}\n"))).unwrap();
    assert_eq!((r.results.len(), r.quarantined.len()), (1, 1));
    assert_eq!(r.quarantined[0].field.as_deref(), Some("protected_file_sha256"));
    assert!(r.quarantined[0].reason.contains("repeated key `protected_file_sha256.docs/governance.md`"), "{}", r.quarantined[0].reason);

    // A task record with a repeated status: quarantined, the other read.
    let tasks = tmp.path().join("tasks");
    std::fs::create_dir(&tasks).unwrap();
    std::fs::write(
        tasks.join("tasks.jsonl"),
        "{\"task_id\":\"a\",\"status\":\"FAILED\",\"repo\":\"o/r\"}\n{\"task_id\":\"b\",\"status\":\"FAILED\",\"status\":\"COMPLETED\",\"repo\":\"o/r\"}\n",
    )
    .unwrap();
    let t = hindsight::tasks::read(&tasks).unwrap();
    assert_eq!(t.tasks.len(), 1);
    assert_eq!(t.quarantined.len(), 1);
    assert!(t.quarantined[0].reason.contains("repeated key `status`"), "{}", t.quarantined[0].reason);
}

/// A check that would compare nothing fails instead of passing: no query, a query with no
/// rows, a row with no fields.
#[test]
fn a_check_that_compares_nothing_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    demo(tmp.path());
    for (text, says) in [
        ("{}", "names no query"),
        (r#"{"summary": []}"#, "has no rows"),
        (r#"{"summary": [{}]}"#, "a row with no fields"),
        (r#"{"summary": [{"eval_window": "7d", "total_safe_outputs": 0}], "summary": []}"#, "written twice"),
    ] {
        std::fs::write(tmp.path().join("expected.json"), text).unwrap();
        let o = run(&["check", "--dataset", "ds", "--expected", "expected.json"], tmp.path());
        assert_eq!(o.status.code(), Some(2), "{text}: {}", stderr(&o));
        assert!(stderr(&o).contains(says), "{text}: {}", stderr(&o));
    }
}

/// A user's `.something.tmp` in a dataset is theirs: a command that replaces the dataset
/// refuses instead of deleting it. hindsight's own `.outcomes.parquet.tmp` is still its own.
#[test]
fn a_users_dot_tmp_file_in_a_dataset_is_never_deleted() {
    let tmp = tempfile::tempdir().unwrap();
    demo(tmp.path());
    let ds = tmp.path().join("ds");
    std::fs::write(ds.join(".my-notes.tmp"), "mine").unwrap();
    for args in [vec!["run", "--quiet", "--out", "ds"], vec!["evaluate", "--quiet", "--dataset", "ds"]] {
        let o = run(&args, tmp.path());
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(".my-notes.tmp"), "{}", stderr(&o));
        assert_eq!(std::fs::read_to_string(ds.join(".my-notes.tmp")).unwrap(), "mine");
    }
    std::fs::remove_file(ds.join(".my-notes.tmp")).unwrap();
    std::fs::write(ds.join(".outcomes.parquet.tmp"), "a write a kill interrupted").unwrap();
    ok(&["evaluate", "--quiet", "--dataset", "ds"], tmp.path());
    assert!(!ds.join(".outcomes.parquet.tmp").exists());
}

/// A manifest naming a table or file with a path in it is refused before anything is read
/// (it would register a Parquet file outside the dataset as a table).
#[test]
fn manifest_names_never_reach_outside_the_dataset() {
    let tmp = tempfile::tempdir().unwrap();
    demo(tmp.path());
    std::fs::copy(tmp.path().join("ds/outcomes.parquet"), tmp.path().join("x.parquet")).unwrap();
    let manifest = tmp.path().join("ds/manifest.json");
    let original = std::fs::read_to_string(&manifest).unwrap();
    for (key, name) in [("tables", "../x"), ("files", "../../etc/passwd"), ("tables", "a.b")] {
        let mut m: Value = serde_json::from_str(&original).unwrap();
        m[key][name] = json!({"rows": 1, "bytes": 1, "sha256": "0"});
        std::fs::write(&manifest, serde_json::to_string(&m).unwrap()).unwrap();
        for args in [vec!["report", "--dataset", "ds", "--sql", "SELECT 1"], vec!["verify", "--dataset", "ds"]] {
            let o = run(&args, tmp.path());
            assert_eq!(o.status.code(), Some(2), "{name} {args:?}: {}", stderr(&o));
            assert!(stderr(&o).contains("not a plain name inside the dataset"), "{name}: {}", stderr(&o));
        }
    }
}

/// Class: functions whose result can outgrow their arguments (a count, a replacement per
/// match, any number of arguments, `||`, a list's length, constant folding included) are
/// bounded by the memory limit (and by arrow's 2 GiB per string batch) before they build
/// anything; a limit below what the engine needs is refused as given.
#[test]
fn sql_values_past_the_memory_limit_are_refused_before_they_are_built() {
    let tmp = tempfile::tempdir().unwrap();
    demo(tmp.path());
    for sql in [
        "SELECT repeat('x', 400000000) FROM generate_series(1, 6)",
        "SELECT length(repeat('x', 1100000000) || repeat('y', 1100000000))",
        "SELECT lpad('x', 2000000000)",
        "SELECT rpad(safe_output_id, 300000000, 'é') FROM outcomes",
        // A replacement per match, an encoding, or a separator per element.
        "SELECT length(replace(repeat('a', 1000000), 'a', repeat('x', 300)))",
        "SELECT length(regexp_replace(repeat('a', 1000000), 'a', repeat('x', 300), 'g'))",
        "SELECT length(regexp_replace(repeat('ab', 500000), '(a)', repeat('\\1', 300), 'g'))",
        "SELECT length(translate(repeat('a', 5000000), 'a', '😀'))",
        "SELECT length(encode(repeat('a', 9000000), 'hex'))",
        "SELECT array_to_string(range(1, 100000), repeat('-', 3000))",
        // Any number of arguments, each within the limit.
        "SELECT length(concat(repeat('a', 6000000), repeat('b', 6000000), repeat('c', 6000000)))",
        "SELECT length(concat_ws(repeat(',', 6000000), 'a', 'b', 'c', 'd'))",
        "SELECT length(repeat('a', 6000000) || repeat('b', 6000000) || repeat('c', 6000000))",
        "SELECT cardinality(make_array(repeat('a', 6000000), repeat('b', 6000000), repeat('c', 6000000)))",
        // A count of list values, in constant folding as in a batch.
        "SELECT unnest(range(1, 200000000))",
        "SELECT count(*) FROM unnest(generate_series(1, 100000000))",
        "SELECT cardinality(range(DATE '1970-01-01', DATE '2970-01-01', INTERVAL '1 second'))",
        "SELECT cardinality(array_repeat('x', 100000000))",
        "SELECT cardinality(array_resize(make_array(1), 100000000))",
    ] {
        // Arguments that must be built first are kept small under the least limit.
        let limit = if sql.contains("6000000") || sql.contains("5000000") || sql.contains("9000000") { "16" } else { "256" };
        let o = run(&["report", "--dataset", "ds", "--memory-limit", &format!("{limit}M"), "--sql", sql], tmp.path());
        assert_eq!(o.status.code(), Some(2), "{sql}: {}", stderr(&o));
        assert!(stderr(&o).contains(&format!("memory limit of {limit} MiB")) && stderr(&o).contains("would build"), "{sql}: {}", stderr(&o));
        assert!(!stderr(&o).contains("panicked"), "{}", stderr(&o));
    }
    // Within the limit they answer as DataFusion's own.
    let o = ok(&["report", "--dataset", "ds", "--format", "csv", "--sql", "SELECT repeat('ab', 3) AS r, lpad('7', 3, '0') AS l, rpad('a', 2, '.') AS p"], tmp.path());
    assert_eq!(o, "r,l,p\nababab,007,a.\n");
    // `||` keeps the operator's NULL and its name in the header; the wrapped functions
    // answer as DataFusion's own.
    let o = ok(&["report", "--dataset", "ds", "--format", "csv", "--sql", "SELECT 'a' || 'b', 'a' || NULL IS NULL AS n, 'n' || 1 AS i, replace('abab', 'b', 'X') AS r, regexp_replace('abab', '(b)', '<\\1>', 'g') AS g, concat_ws('-', 'a', NULL, 'c') AS w, translate('abc', 'ab', 'é') AS t, encode('hi', 'hex') AS e, cardinality(range(1, 4)) AS c, array_to_string(array_repeat(7, 3), '+') AS s"], tmp.path());
    assert_eq!(o, "\"Utf8(\"\"a\"\") || Utf8(\"\"b\"\")\",n,i,r,g,w,t,e,c,s\nab,true,n1,aXaX,a<b>a<b>,a-c,éc,6869,3,7+7+7\n");
    for limit in ["1", "64K", "15M"] {
        let o = run(&["report", "--dataset", "ds", "--memory-limit", limit, "--sql", "SELECT 1"], tmp.path());
        assert_eq!(o.status.code(), Some(2), "{limit}");
        assert!(stderr(&o).contains("below 16 MiB"), "{limit}: {}", stderr(&o));
    }
    ok(&["report", "--dataset", "ds", "--memory-limit", "16M", "--sql", "SELECT 1"], tmp.path());
}

/// Class: integer arithmetic that wraps. `+`, `-` and `*` on integers fail on overflow,
/// naming the operation, instead of answering a wrapped number; within range they answer as
/// before, headers included, and two 32-bit integers add past 2^31.
#[test]
fn integer_overflow_is_an_error_not_a_wrapped_number() {
    let tmp = tempfile::tempdir().unwrap();
    demo(tmp.path());
    for (sql, op) in [("SELECT 9223372036854775807 + 1", "+"), ("SELECT -9223372036854775807 - 2", "-"), ("SELECT 4294967296 * 4294967296", "*"), ("SELECT max(target_number) * 9223372036854775807 FROM safe_outputs", "*")] {
        let o = run(&["report", "--dataset", "ds", "--sql", sql], tmp.path());
        assert_eq!(o.status.code(), Some(2), "{sql}: {}", stderr(&o));
        assert!(stderr(&o).contains(&format!("integer {op} leaves the 64-bit range")), "{sql}: {}", stderr(&o));
    }
    let o = ok(&["report", "--dataset", "ds", "--format", "csv", "--sql", "SELECT 2 + 3, 7 - 9, 3 * 4, CAST(2147483647 AS INT) + CAST(1 AS INT) AS w, 1.5 + 1 AS f"], tmp.path());
    assert_eq!(o, "Int64(2) + Int64(3),Int64(7) - Int64(9),Int64(3) * Int64(4),w,f\n5,-2,12,2147483648,2.5\n");
}

fn ctx(repository: Option<&str>) -> RunContext {
    RunContext { run_id: "1".into(), workflow_name: None, repository: repository.map(str::to_string), actor: None, staged: false, temp_ids: Default::default() }
}

fn refusal(c: &RunContext, record: Value) -> Option<(String, String)> {
    item::from_record(c, &record, 0, item::Format::GhAw, "items.jsonl", 1).err().map(|(f, r)| (f.to_string(), r))
}

/// A target repository that is not OWNER/NAME as GitHub spells it, from the record or from
/// the run, and a target number written but too large for 64 bits, are refusals naming the
/// field (so the record is quarantined), never a path outside the snapshot or a silent null.
#[test]
fn run_targets_are_repositories_and_numbers_or_the_record_is_refused() {
    let good = ctx(Some("o/r"));
    assert_eq!(refusal(&good, json!({"type": "add_labels", "number": 1, "labels": ["x"]})), None);
    for repo in ["/etc/passwd", "../x", "o/..", "o/r/extra", "o r/x"] {
        let r = refusal(&good, json!({"type": "add_labels", "number": 1, "repo": repo, "labels": ["x"]}));
        assert_eq!(r.as_ref().map(|r| r.0.as_str()), Some("repo"), "{repo}: {r:?}");
        let r = refusal(&ctx(Some(repo)), json!({"type": "add_labels", "number": 1, "labels": ["x"]}));
        assert!(r.as_ref().is_some_and(|r| r.0 == "repo" && r.1.contains("aw_info.json")), "{repo}: {r:?}");
    }
    let big = "184467440737095516160";
    for (record, field) in [
        (json!({"type": "add_labels", "target": {"number": 1e30}, "labels": ["x"]}), "target"),
        (json!({"type": "add_labels", "target": 1e30, "labels": ["x"]}), "target"),
        (json!({"type": "add_labels", "target": format!("o/r#{big}"), "labels": ["x"]}), "target"),
        (json!({"type": "add_labels", "target": big, "labels": ["x"]}), "target"),
        (json!({"type": "add_labels", "item_number": big, "labels": ["x"]}), "item_number"),
        (json!({"type": "add_comment", "url": format!("https://github.com/o/r/issues/{big}"), "body": "x"}), "url"),
        (json!({"type": "add_comment", "url": format!("https://github.com/o/r/issues/1#issuecomment-{big}"), "body": "x"}), "url"),
        (json!({"type": "add_labels", "metadata": {"number": big}, "labels": ["x"]}), "metadata"),
    ] {
        let r = refusal(&good, record.clone());
        assert!(r.as_ref().is_some_and(|r| r.0 == field && r.1.contains("fits 64 bits")), "{record}: {r:?}");
    }
}

/// An endless input (`/dev/zero`) as an SQL file, a `.read` file or a file of expected
/// figures stops with an error naming the limit, instead of taking all memory; a file of
/// expected figures with a byte-order mark is read as the JSON it holds.
#[test]
fn endless_inputs_stop_at_a_named_limit_and_a_bom_is_no_part_of_the_json() {
    let tmp = tempfile::tempdir().unwrap();
    demo(tmp.path());
    for args in [
        vec!["sql", "--dataset", "ds", "--file", "/dev/zero"],
        vec!["check", "--dataset", "ds", "--expected", "/dev/zero"],
    ] {
        let o = run(&args, tmp.path());
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains("more than 64 MiB"), "{args:?}: {}", stderr(&o));
    }
    std::fs::write(tmp.path().join("zero.sql"), ".read /dev/zero\n").unwrap();
    let o = run(&["sql", "--dataset", "ds", "--file", "zero.sql"], tmp.path());
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("more than 64 MiB"), "{}", stderr(&o));
    let expected = std::fs::read(fixture("demo/expected-metrics.json")).unwrap();
    let mut with_bom = "\u{feff}".as_bytes().to_vec();
    with_bom.extend(expected);
    std::fs::write(tmp.path().join("bom.json"), with_bom).unwrap();
    let out = ok(&["check", "--exact", "--dataset", "ds", "--expected", "bom.json"], tmp.path());
    assert!(out.contains("every expected figure matches"), "{out}");
}

/// `report --figures` and `man --dir` never write through a symlink planted under a file's
/// name, and figures never go into the dataset.
#[test]
fn figures_and_manual_pages_never_write_through_a_symlink_or_into_the_dataset() {
    let tmp = tempfile::tempdir().unwrap();
    demo(tmp.path());
    ok(&["report", "--dataset", "ds", "--figures", "figs", "--quiet"], tmp.path());
    let name = std::fs::read_dir(tmp.path().join("figs")).unwrap().flatten().map(|e| e.file_name()).next().expect("a figure");
    let victim = tmp.path().join("victim.txt");
    std::fs::write(&victim, "keep me").unwrap();
    std::fs::create_dir(tmp.path().join("planted")).unwrap();
    std::os::unix::fs::symlink(&victim, tmp.path().join("planted").join(&name)).unwrap();
    let o = run(&["report", "--dataset", "ds", "--figures", "planted", "--quiet"], tmp.path());
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("not a regular file"), "{}", stderr(&o));
    let o = run(&["report", "--dataset", "ds", "--figures", "ds", "--quiet"], tmp.path());
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("inside the dataset"), "{}", stderr(&o));
    std::fs::create_dir(tmp.path().join("man")).unwrap();
    std::os::unix::fs::symlink(&victim, tmp.path().join("man/hindsight.1")).unwrap();
    let o = run(&["man", "--dir", "man"], tmp.path());
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("not a regular file"), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep me");
    ok(&["verify", "--dataset", "ds"], tmp.path());
}
