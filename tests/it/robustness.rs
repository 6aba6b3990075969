//! Options that once panicked (exit 101 or abort) or were silently accepted: each now
//! ends with a clear message and exit 2, and a closed stdout ends quietly.

use std::path::Path;
use std::process::Output;

use crate::support::{bin, demo, ok, run};

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).to_string()
}

/// Exit 2 with every expected fragment in the message, and no panic.
fn refused(args: &[&str], cwd: &Path, fragments: &[&str]) {
    let out = run(args, cwd);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert!(!err.contains("panicked"), "{args:?} panicked: {err}");
    for f in fragments {
        assert!(err.contains(f), "{args:?}: message lacks `{f}`: {err}");
    }
}

#[test]
fn windows_that_panicked_or_were_empty_are_usage_errors() {
    let tmp = tempfile::tempdir().unwrap();
    // Options are checked before the dataset is opened: no dataset is needed.
    refused(&["evaluate", "--dataset", "ds", "--windows", "1é"], tmp.path(), &["window `1é`", "expected a number with h or d"]);
    refused(&["evaluate", "--dataset", "ds", "--windows", "24h,9223372036854775807h"], tmp.path(), &["window `9223372036854775807h`", "at most 100 years"]);
    refused(&["run", "--out", "ds", "--windows", "1000000000d"], tmp.path(), &["window `1000000000d`", "at most 100 years"]);
    refused(&["evaluate", "--dataset", "ds", "--windows", ""], tmp.path(), &["no window given"]);
    refused(&["evaluate", "--dataset", "ds", "--windows", " , "], tmp.path(), &["no window given"]);
    refused(&["attach", "--dataset", "ds", "--window", "1é"], tmp.path(), &["window `1é`"]);
    assert!(!tmp.path().join("ds").exists(), "nothing is written on a usage error");
}

#[test]
fn synth_refuses_an_impossible_spec_and_writes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    refused(&["synth", "--repos", "18446744073709551615", "--out", "s"], tmp.path(), &["--repos 18446744073709551615", "between 1 and"]);
    refused(&["synth", "--outputs", "18446744073709551615", "--out", "s"], tmp.path(), &["--outputs", "between 1 and"]);
    refused(&["synth", "--repos", "0", "--out", "s"], tmp.path(), &["--repos 0"]);
    assert!(!tmp.path().join("s").exists(), "a refused spec leaves no partial output");
}

#[test]
fn thread_counts_are_bounded() {
    let tmp = tempfile::tempdir().unwrap();
    // Checked before anything is read: the dataset named here does not exist.
    refused(&["evaluate", "--threads", "10000", "--dataset", "none"], tmp.path(), &["--threads 10000", "expected 1 to"]);
    refused(&["report", "--threads", "0", "--dataset", "none"], tmp.path(), &["--threads 0"]);
    ok(&["run", "--threads", "3", "--quiet", "--out", "ds"], tmp.path());
    assert!(ok(&["report", "--dataset", "ds", "--threads", "3", "--query", "summary", "--format", "csv"], tmp.path()).starts_with("eval_window,"));
}

/// Run the binary with stdout a socket whose reading end is already closed: the first
/// write fails with a broken pipe, every time, as when `| head -1` has exited.
#[cfg(unix)]
fn with_closed_stdout(args: &[&str], cwd: &Path) -> Output {
    use std::os::fd::OwnedFd;
    use std::os::unix::net::UnixStream;
    use std::process::{Command, Stdio};
    let (writer, reader) = UnixStream::pair().unwrap();
    drop(reader);
    Command::new(bin()).args(args).current_dir(cwd).stdout(Stdio::from(OwnedFd::from(writer))).output().unwrap()
}

#[cfg(unix)]
#[test]
fn a_closed_stdout_ends_quietly() {
    let tmp = tempfile::tempdir().unwrap();
    demo(tmp.path());
    for args in [
        vec!["rules", "--format", "json"],
        vec!["rules"],
        vec!["policy"],
        vec!["report", "--dataset", "ds"],
        vec!["report", "--dataset", "ds", "--format", "json"],
        vec!["report", "--dataset", "ds", "--sql", "SELECT * FROM outcomes", "--format", "csv"],
        vec!["run", "--out", "ds2", "--quiet"],
    ] {
        let out = with_closed_stdout(&args, tmp.path());
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
        assert_eq!(stderr(&out), "", "{args:?} printed on stderr");
    }
}

#[test]
fn attach_refuses_a_window_the_dataset_was_not_evaluated_in() {
    let tmp = tempfile::tempdir().unwrap();
    ok(&["run", "--out", "ds", "--windows", "1h,7d", "--quiet"], tmp.path());
    let before = std::fs::read(tmp.path().join("ds/traces.enriched.jsonl")).unwrap();
    refused(&["attach", "--dataset", "ds", "--window", "3h"], tmp.path(), &["manifest.json", "--window 3h", "evaluated in 1h, 7d, snapshot only"]);
    // The default window (7d) was evaluated here; any way of writing it is the same window.
    refused(&["attach", "--dataset", "ds", "--window", "24h"], tmp.path(), &["--window 24h"]);
    assert_eq!(std::fs::read(tmp.path().join("ds/traces.enriched.jsonl")).unwrap(), before, "a refused attach writes nothing");
    ok(&["attach", "--dataset", "ds", "--window", "168h", "--quiet"], tmp.path());
    ok(&["attach", "--dataset", "ds", "--window", "snapshot", "--quiet"], tmp.path());
}

#[test]
fn policy_files_must_be_an_object_of_known_typed_switches() {
    let tmp = tempfile::tempdir().unwrap();
    let policy = |name: &str, text: &str| {
        std::fs::write(tmp.path().join(name), text).unwrap();
        vec!["policy", "--policy", name].into_iter().map(str::to_string).collect::<Vec<_>>()
    };
    let refused_policy = |args: Vec<String>, fragments: &[&str]| {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        refused(&args, tmp.path(), fragments);
    };
    // An array once set the fields by position (here ignore_after_hours = 1).
    refused_policy(policy("array.json", r#"[1, "accepted"]"#), &["array.json", "expected a JSON object", "found an array"]);
    refused_policy(policy("string.json", r#""pending""#), &["string.json", "found a string"]);
    refused_policy(
        policy("unknown.json", r#"{"ignore_after_hours": 24, "durability_hour": 5}"#),
        &["unknown.json", "unknown key `durability_hour`", "known keys: ", "durability_hours", "ignore_after_hours"],
    );
    refused_policy(policy("type.json", r#"{"ignore_after_hours": "24"}"#), &["type.json", "`ignore_after_hours`", "invalid type"]);
    refused_policy(policy("choice.json", r#"{"deleted_target": 3}"#), &["choice.json", "`deleted_target`"]);
    refused_policy(policy("flag.json", r#"{"triggering_actor_is_workflow": "yes"}"#), &["flag.json", "`triggering_actor_is_workflow`"]);
    refused_policy(policy("hours.json", r#"{"durability_hours": 9223372036854775807}"#), &["hours.json", "`durability_hours`", "at most"]);
    // A valid subset is still merged over the defaults.
    let args = policy("good.json", r#"{"ignore_after_hours": 24}"#);
    let printed: serde_json::Value = serde_json::from_str(&ok(&args.iter().map(String::as_str).collect::<Vec<_>>(), tmp.path())).unwrap();
    assert_eq!(printed["ignore_after_hours"], 24);
    assert_eq!(printed["durability_hours"], hindsight::evaluate::policy::DEFAULT_DURABILITY_HOURS);
}
