//! The SQL shell and `report --sql` as a researcher uses them all day: bounded previews with
//! a row count, streamed data formats, psql and DuckDB CLI commands, completion and history
//! on a real terminal (tmux), datasets of older format versions, and help for typos.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::support::{bin, copy_dir, demo, fixture, ok, run, Study};

/// `hindsight sql --dataset DS` with `input` on stdin (a pipe).
fn piped(ds: &Path, args: &[&str], input: &str) -> std::process::Output {
    use std::io::Write;
    let mut child = Command::new(bin())
        .args(["sql", "--dataset"])
        .arg(ds)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start hindsight sql");
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    child.wait_with_output().unwrap()
}

fn stdout(o: &std::process::Output) -> String {
    assert!(o.status.success(), "failed: {}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// The number of rows of `sql`'s result, asked in CSV (no preview).
fn count(ds: &Path, sql: &str) -> usize {
    let out = ok(&["report", "--dataset", ds.to_str().unwrap(), "--sql", sql, "--format", "csv"], ds);
    out.lines().count() - 1
}

/// Data rows of a boxed table: lines between borders that start with `|`, minus the header.
fn table_rows(text: &str) -> usize {
    text.lines().filter(|l| l.starts_with('|')).count().saturating_sub(1)
}

const NARROW: &str = "SELECT safe_output_id, eval_window, outcome_status FROM outcomes";

#[test]
fn a_table_previews_forty_rows_and_counts_them_all_while_data_formats_stream_every_row() {
    let dir = tempfile::tempdir().unwrap();
    let ds = demo(dir.path());
    let n = count(&ds, NARROW);
    assert!(n > 40, "the demo has more outcomes ({n}) than a preview shows");

    let table = stdout(&piped(&ds, &[], &format!("{NARROW};")));
    assert_eq!(table_rows(&table), 40, "{table}");
    assert!(table.ends_with(&format!("{n} rows (40 shown)\n")), "{table}");

    // `--max-rows 0` shows all; an explicit bound holds for data formats too.
    let all = stdout(&piped(&ds, &["--max-rows", "0"], &format!("{NARROW};")));
    assert_eq!(table_rows(&all), n);
    let csv = stdout(&piped(&ds, &["--format", "csv"], &format!("{NARROW};")));
    assert_eq!(csv.lines().count(), n + 1, "a header and every row");
    let five = stdout(&piped(&ds, &["--format", "csv", "--max-rows", "5"], &format!("{NARROW};")));
    assert_eq!(five.lines().count(), 6);
    let ndjson = stdout(&piped(&ds, &["--format", "ndjson"], &format!("{NARROW};")));
    assert_eq!(ndjson.lines().count(), n);
    for line in ndjson.lines() {
        let row: Value = serde_json::from_str(line).unwrap();
        assert_eq!(row.as_object().unwrap().keys().count(), 3, "{line}");
    }

    // `report --sql` prints the same way, and JSON stays one document with every row.
    let report = ok(&["report", "--dataset", ds.to_str().unwrap(), "--sql", NARROW], dir.path());
    assert_eq!(report, table);
    let json = ok(&["report", "--dataset", ds.to_str().unwrap(), "--sql", NARROW, "--format", "json"], dir.path());
    assert_eq!(serde_json::from_str::<Value>(&json).unwrap().as_array().unwrap().len(), n);
}

#[test]
fn several_piped_statements_in_json_are_one_document() {
    let dir = tempfile::tempdir().unwrap();
    let ds = demo(dir.path());
    // (VALUES, not UNION ALL: a union's branches may arrive in either order.)
    let out = stdout(&piped(&ds, &["--format", "json"], "SELECT 1 AS a;\nSELECT * FROM (VALUES ('x'), ('y')) AS t(b);\n"));
    let doc: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
    assert_eq!(doc, serde_json::json!([[{"a": 1}], [{"b": "x"}, {"b": "y"}]]));
    // A statement that fails after one that printed: the run fails, and what it printed is
    // still one JSON document, the failed statement's element `null`.
    let failed = piped(&ds, &["--format", "json"], "SELECT 1 AS a;\nSELECT * FROM no_such_table;\n");
    assert!(!failed.status.success());
    let printed = String::from_utf8_lossy(&failed.stdout);
    let doc: Value = serde_json::from_str(&printed).unwrap_or_else(|e| panic!("{e}: {printed}"));
    assert_eq!(doc, serde_json::json!([[{"a": 1}], null]));
    // One statement: its rows, as before.
    let one: Value = serde_json::from_str(&stdout(&piped(&ds, &["--format", "json"], "SELECT 1 AS a;"))).unwrap();
    assert_eq!(one, serde_json::json!([{"a": 1}]));
}

#[test]
fn shell_commands_switch_mode_bound_time_redirect_and_read() {
    let dir = tempfile::tempdir().unwrap();
    let ds = demo(dir.path());
    let saved = dir.path().join("saved.csv");
    let script = dir.path().join("more.sql");
    std::fs::write(&script, "SELECT 'from the file' AS source;\n").unwrap();
    let input = format!(
        ".mode csv\nSELECT 1 AS one;\n\\pset format markdown\nSELECT 2 AS two;\n.mode table\n.maxrows 2\n{NARROW};\n\\pset maxrows 0\n.timer on\nSELECT 3 AS three;\n\\timing off\n.output {}\n.mode csv\nSELECT 4 AS four;\n\\o\n\\i {}\n.read {}\n",
        saved.display(),
        script.display(),
        script.display()
    );
    let out = stdout(&piped(&ds, &["--allow-write"], &input));
    let n = count(&ds, NARROW);
    assert!(out.starts_with("one\n1\n| two |\n|---|\n| 2 |\n"), "{out}");
    assert!(out.contains(&format!("{n} rows (2 shown)\n")), "{out}");
    let timed = out.lines().find(|l| l.starts_with("1 row in ")).unwrap_or_else(|| panic!("a timed footer: {out}"));
    assert!(timed.ends_with(" s"), "{timed}");
    assert!(!out.contains("four"), "redirected to the file: {out}");
    assert_eq!(std::fs::read_to_string(&saved).unwrap(), "four\n4\n");
    assert_eq!(out.matches("from the file").count(), 2, "\\i and .read: {out}");

    let bad = piped(&ds, &[], ".mode xml\n");
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("mode `xml`"), "{}", String::from_utf8_lossy(&bad.stderr));
}

/// `.output` writes a file only with `--allow-write`, from a pipe or a `.read` file alike;
/// never a device, FIFO or symlink, and never inside the dataset.
#[test]
fn the_shell_writes_only_when_asked() {
    let dir = tempfile::tempdir().unwrap();
    let ds = demo(dir.path());
    let target = dir.path().join("out.csv");
    let refused = |args: &[&str], input: String, why: &str| {
        let out = piped(&ds, args, &input);
        let err = String::from_utf8_lossy(&out.stderr).to_string();
        assert!(!out.status.success() && err.contains(why), "{input}: {err}");
    };
    refused(&[], format!(".output {}\nSELECT 1;\n", target.display()), "needs --allow-write");
    let shared = dir.path().join("shared.sql");
    std::fs::write(&shared, format!(".output {}\nSELECT 1;\n", target.display())).unwrap();
    refused(&[], format!(".read {}\n", shared.display()), "needs --allow-write");
    assert!(!target.exists(), "nothing written unasked");
    refused(&["--allow-write"], format!(".output {}\n", ds.join("outcomes.parquet").display()), "inside the dataset");
    refused(&["--allow-write"], format!(".output {}\n", ds.join("new.csv").display()), "inside the dataset");
    // Nor inside any other dataset, past its lock.
    let other = dir.path().join("other");
    std::fs::create_dir(&other).unwrap();
    std::fs::copy(ds.join("manifest.json"), other.join("manifest.json")).unwrap();
    refused(&["--allow-write"], format!(".output {}\n", other.join("outcomes.parquet").display()), "inside the dataset");
    refused(&["--allow-write"], format!(".output {}\n", other.join("new.csv").display()), "inside the dataset");
    assert_eq!(std::fs::read_dir(&other).unwrap().count(), 1);
    let link = dir.path().join("link.csv");
    std::os::unix::fs::symlink(dir.path().join("elsewhere.csv"), &link).unwrap();
    refused(&["--allow-write"], format!(".output {}\n", link.display()), "not a regular file");
    assert!(!dir.path().join("elsewhere.csv").exists());
    let fifo = dir.path().join("fifo");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    refused(&["--allow-write"], format!(".output {}\n", fifo.display()), "not a regular file");
    let ok = piped(&ds, &["--allow-write"], &format!(".output {}\n.mode csv\nSELECT 1 AS one;\n", target.display()));
    assert!(ok.status.success(), "{}", String::from_utf8_lossy(&ok.stderr));
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "one\n1\n");
}

/// A file that reads itself stops with an error naming the depth, not a stack overflow.
#[test]
fn a_file_that_reads_itself_stops_with_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let ds = demo(dir.path());
    let me = dir.path().join("me.sql");
    std::fs::write(&me, format!("SELECT 1;\n.read {}\n", me.display())).unwrap();
    let out = piped(&ds, &[], &format!(".read {}\n", me.display()));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("more than 16 deep"), "{err}");
}

/// A tmux session running the shell on a real terminal.
struct Terminal {
    socket: String,
}

impl Terminal {
    fn start(ds: &Path, history: &Path) -> Terminal {
        let socket = format!("hindsight-test-{}-{}", std::process::id(), history.display().to_string().len());
        let cmd = format!("HINDSIGHT_HISTORY={} {} sql --dataset {}; sleep 60", history.display(), bin().display(), ds.display());
        let status = Command::new("tmux").args(["-L", &socket, "new-session", "-d", "-x", "150", "-y", "80", &cmd]).status().expect("tmux (scripts/test installs it)");
        assert!(status.success());
        let t = Terminal { socket };
        t.wait_for("hindsight>");
        t
    }

    fn tmux(&self, args: &[&str]) -> String {
        let out = Command::new("tmux").args(["-L", &self.socket]).args(args).output().unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Type `text` (a trailing `;` escaped from tmux's own command separator).
    fn type_text(&self, text: &str) {
        let escaped = text.strip_suffix(';').map_or_else(|| text.to_string(), |t| format!("{t}\\;"));
        self.tmux(&["send-keys", "-t", "0", "-l", &escaped]);
    }

    /// Paste `text` as the terminal would: with `bracketed`, marked as a paste where the
    /// shell asked for that (one edit, run by the next Enter); without, each line sent with
    /// its own Enter (tmux turns each line feed into a carriage return).
    fn paste(&self, text: &str, bracketed: bool) {
        self.tmux(&["set-buffer", "-b", "pasted", "--", text]);
        let mut args = vec!["paste-buffer", "-b", "pasted", "-t", "0"];
        if bracketed {
            args.push("-p");
        }
        self.tmux(&args);
    }

    fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "0"];
        args.extend(keys);
        self.tmux(&args);
    }

    fn screen(&self) -> String {
        self.tmux(&["capture-pane", "-t", "0", "-p", "-S", "-"])
    }

    fn wait_for(&self, text: &str) -> String {
        self.wait_after("", text)
    }

    /// The screen after the first `marker` once it shows `text` there (what an earlier
    /// statement printed does not count).
    fn wait_after(&self, marker: &str, text: &str) -> String {
        let start = Instant::now();
        loop {
            let screen = self.screen();
            let s = screen.split_once(marker).map_or(String::new(), |(_, after)| after.to_string());
            let s = if marker.is_empty() { screen } else { s };
            if s.contains(text) {
                return s;
            }
            // Generous: the debug binary on a busy machine takes seconds to plan and draw.
            assert!(start.elapsed() < Duration::from_secs(180), "`{text}` never appeared:\n{s}");
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Terminal {
    fn drop(&mut self) {
        let _ = Command::new("tmux").args(["-L", &self.socket, "kill-server"]).status();
    }
}

#[test]
fn on_a_terminal_the_preview_has_its_footer_tab_completes_and_a_statement_is_one_history_entry() {
    if !crate::support::have(&[crate::support::Tool::Tmux]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let ds = demo(dir.path());
    let n = count(&ds, NARROW);
    let history = dir.path().join("history");
    let t = Terminal::start(&ds, &history);

    t.type_text(&format!("{NARROW};"));
    t.keys(&["Enter"]);
    let screen = t.wait_for(&format!("{n} rows (40 shown)"));
    let result = screen.split(&format!("{NARROW};")).nth(1).unwrap_or_default();
    assert_eq!(table_rows(result), 40, "{screen}");

    // A small result on a terminal is counted too.
    t.type_text("SELECT 1 AS x;");
    t.keys(&["Enter"]);
    t.wait_after("SELECT 1 AS x;", "1 row\n");

    // Tab: the common prefix of `outc...`, then every table and column it could be.
    t.type_text("SELECT 9 AS nine FROM outc");
    t.wait_for("nine FROM outc");
    t.keys(&["Tab"]);
    t.wait_for("nine FROM outcome");
    t.keys(&["Tab"]);
    let listed = t.wait_after("nine FROM outcome", "outcome_status");
    assert!(listed.contains("outcomes"), "{listed}");
    t.keys(&["C-c"]);

    // A statement typed over two lines is one history entry.
    t.type_text("SELECT 2");
    t.keys(&["Enter"]);
    t.wait_after("SELECT 2", "...>");
    t.type_text("  AS two;");
    t.keys(&["Enter"]);
    t.wait_for("| two |");
    t.type_text("\\q");
    t.keys(&["Enter"]);
    let start = Instant::now();
    while !std::fs::read_to_string(&history).is_ok_and(|h| h.contains("two")) {
        assert!(start.elapsed() < Duration::from_secs(120), "no history written");
        std::thread::sleep(Duration::from_millis(100));
    }
    let h = std::fs::read_to_string(&history).unwrap();
    let entry: Vec<&str> = h.lines().filter(|l| l.contains("SELECT 2")).collect();
    assert_eq!(entry.len(), 1, "{h}");
    assert!(entry[0].contains("AS two;"), "both lines in one entry: {h}");
}

/// A statement pasted over three lines runs whole: without bracketed paste, where each line
/// comes with its own Enter (before, the lines after the first were lost), each line after
/// the first is shown after the continuation prompt; with bracketed paste, the paste is one
/// edit that Enter runs.
#[test]
fn a_statement_pasted_over_three_lines_runs_whole_with_or_without_bracketed_paste() {
    if !crate::support::have(&[crate::support::Tool::Tmux]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let ds = demo(dir.path());
    let t = Terminal::start(&ds, &dir.path().join("history"));

    t.paste("SELECT 3 AS three,\n  4 AS four\nFROM (VALUES (1)) AS t(x);\n", false);
    let screen = t.wait_for("| three | four |");
    assert!(screen.contains("hindsight> SELECT 3 AS three,\n   ...>   4 AS four\n   ...> FROM (VALUES (1)) AS t(x);"), "{screen}");
    assert!(screen.contains("| 3     | 4    |"), "{screen}");
    assert!(!screen.contains("error"), "{screen}");

    t.paste("SELECT 5 AS five,\n  6 AS six\nFROM (VALUES (1)) AS t(x);\n", true);
    t.keys(&["Enter"]);
    let screen = t.wait_for("| five | six |");
    assert!(screen.contains("| 5    | 6   |"), "{screen}");
    assert!(!screen.contains("error"), "{screen}");
}

/// Piped, a statement over three lines is one statement too, and the lines of the next
/// one after it on the same line are its own.
#[test]
fn a_piped_statement_over_three_lines_is_one_statement() {
    let dir = tempfile::tempdir().unwrap();
    let ds = demo(dir.path());
    let out = stdout(&piped(&ds, &["--format", "csv"], "SELECT 3 AS three,\n  4 AS four\nFROM (VALUES (1)) AS t(x); SELECT\n  5 AS five;\n"));
    assert_eq!(out, "three,four\n3,4\nfive\n5\n");
}

/// Copy of the dataset a past hindsight wrote in format 1.
fn format_1(dir: &Path) -> PathBuf {
    let ds = dir.join("old");
    copy_dir(&fixture("datasets/format-1"), &ds);
    ds
}

fn set_format(ds: &Path, format: &str) {
    let p = ds.join("manifest.json");
    let mut m: Value = serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
    m["format"] = Value::String(format.into());
    std::fs::write(&p, serde_json::to_string_pretty(&m).unwrap()).unwrap();
}

fn fails_with(args: &[&str], cwd: &Path, words: &[&str]) {
    let out = run(args, cwd);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{args:?} should fail");
    for w in words {
        assert!(err.contains(w), "{args:?}: `{w}` not in: {err}");
    }
}

#[test]
fn a_dataset_of_an_older_format_is_read_for_what_it_has_and_newer_or_unknown_ones_are_refused() {
    use hindsight::dataset::manifest::{FORMAT, FORMAT_VERSION};
    let dir = tempfile::tempdir().unwrap();
    let old = format_1(dir.path());
    let d = old.to_str().unwrap();
    const { assert!(FORMAT_VERSION > 1, "format 1 is a past version") };

    // Read as it is: verify, the dashboard, SQL.
    ok(&["verify", "--dataset", d], dir.path());
    let dashboard = ok(&["report", "--dataset", d, "--format", "json"], dir.path());
    let v: Value = serde_json::from_str(&dashboard).unwrap();
    assert!(v["summary"].as_array().is_some_and(|r| !r.is_empty()), "{dashboard}");
    assert_eq!(count(&old, "SELECT * FROM outcomes"), count(&old, "SELECT * FROM outcomes WHERE true"));

    // Written into: refused, with what brings it up to date.
    fails_with(&["evaluate", "--dataset", d], dir.path(), &["hindsight-dataset/1", FORMAT, "hindsight run"]);
    fails_with(&["attach", "--dataset", d], dir.path(), &["hindsight-dataset/1", "hindsight run"]);

    // A format-1 dataset from before the CI gate replay existed: every other section is
    // shown, the CI gate's are named with the command that brings the dataset up to date.
    let early = dir.path().join("early");
    copy_dir(&old, &early);
    let p = early.join("manifest.json");
    let mut m: Value = serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
    for t in ["ci_gate", "ci_gate_steps"] {
        m["tables"].as_object_mut().unwrap().remove(t);
        std::fs::remove_file(early.join(format!("{t}.parquet"))).unwrap();
    }
    std::fs::write(&p, serde_json::to_string_pretty(&m).unwrap()).unwrap();
    let e = early.to_str().unwrap();
    let json: Value = serde_json::from_str(&ok(&["report", "--dataset", e, "--format", "json"], dir.path())).unwrap();
    assert!(json.get("ci_gate").is_none() && json.get("summary").is_some(), "{json}");
    let note = json["left_out"].as_array().unwrap().iter().find(|n| n["sections"].as_str().unwrap().contains("ci_gate")).expect("a note on the CI gate sections");
    let note = note["note"].as_str().unwrap();
    assert!(note.contains("table ci_gate") && note.contains("hindsight-dataset/1") && note.contains("hindsight run"), "{note}");
    let table = ok(&["report", "--dataset", e], dir.path());
    assert!(table.contains("table ci_gate"), "the table report says it too: {table}");

    // Without pr_feedback, the view the task sections read over it (pr_memory_figures) is not
    // there either: the note names the table, what re-running brings.
    let no_feedback = dir.path().join("no_feedback");
    copy_dir(&old, &no_feedback);
    let p = no_feedback.join("manifest.json");
    let mut m: Value = serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
    m["tables"].as_object_mut().unwrap().remove("pr_feedback");
    std::fs::remove_file(no_feedback.join("pr_feedback.parquet")).unwrap();
    std::fs::write(&p, serde_json::to_string_pretty(&m).unwrap()).unwrap();
    let json: Value = serde_json::from_str(&ok(&["report", "--dataset", no_feedback.to_str().unwrap(), "--format", "json"], dir.path())).unwrap();
    let note = json["left_out"][0]["note"].as_str().unwrap();
    assert!(note.contains("table pr_feedback") && !note.contains("pr_memory_figures"), "{note}");

    // Newer and unknown formats are refused by every reader, naming what wrote them.
    for (format, words) in [
        ("hindsight-dataset/999", vec!["newer", "hindsight 0.1.0", "hindsight-dataset/999"]),
        ("hindsight-dataset/0", vec!["not one hindsight knows"]),
        ("parquet-export/1", vec!["not one hindsight knows"]),
    ] {
        set_format(&old, format);
        for cmd in [&["report", "--dataset", d][..], &["verify", "--dataset", d], &["sql", "--dataset", d, "--file", "/dev/null"], &["evaluate", "--dataset", d]] {
            fails_with(cmd, dir.path(), &words);
        }
    }
}

#[test]
fn typos_get_a_did_you_mean() {
    let dir = tempfile::tempdir().unwrap();
    fails_with(&["rnu"], dir.path(), &["similar subcommand exists: 'run'"]);
    fails_with(&["run", "--ouput", "x"], dir.path(), &["similar argument exists: '--out'"]);
    fails_with(&["report", "--dataset", "no/such/dir"], dir.path(), &["no/such/dir", "no such directory"]);
    fails_with(&["report", "--dataset", "x", "--format", "tabel"], dir.path(), &["table, json, ndjson, csv, markdown, html"]);
    let ds = demo(dir.path());
    let d = ds.to_str().unwrap();
    fails_with(&["report", "--dataset", d, "--sql", "SELECT * FROM outcome"], dir.path(), &["no table `outcome` (did you mean `outcomes`?)"]);
    fails_with(&["report", "--dataset", d, "--sql", "SELECT outcome_stat FROM outcomes"], dir.path(), &["outcome_status"]);
    fails_with(&["sql", "--dataset", d, "--file", "/dev/null", "--format", "html"], dir.path(), &["html is a report's format"]);
    // Completion scripts offer the formats and the bundled queries' names.
    for shell in ["bash", "zsh", "fish"] {
        let script = ok(&["completions", shell], dir.path());
        for word in ["ndjson", "markdown", "aidev/by_agent", "risk_by_outcome"] {
            assert!(script.contains(word), "{shell} completion lacks {word}");
        }
    }
    let out = piped(&ds, &[], "\\d safe_ouptuts\n");
    assert!(String::from_utf8_lossy(&out.stderr).contains("did you mean `safe_outputs`"), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn an_interrupted_run_says_the_previous_dataset_is_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let ds = demo(dir.path());
    let before = crate::support::files(&ds);
    // A study large enough that the run is still writing when it is interrupted.
    ok(&["synth", "--repos", "20", "--outputs", "40000", "--out", "big"], dir.path());
    let big = dir.path().join("big");
    let child = Command::new(bin())
        .args(["run", "--quiet"])
        .args(Study::at(&big).args())
        .arg("--out")
        .arg(&ds)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Interrupted once its staging folder exists: it is writing.
    let staging = dir.path().join(format!(".ds.partial-{}", child.id()));
    let start = Instant::now();
    while !staging.exists() {
        assert!(start.elapsed() < Duration::from_secs(60), "the run never started writing");
        std::thread::sleep(Duration::from_millis(20));
    }
    // SAFETY: sending a signal to our own child process.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{err}");
    assert!(err.contains(&format!("interrupted; the previous dataset at {} is unchanged", ds.display())), "{err}");
    assert_eq!(crate::support::files(&ds), before, "the dataset is as it was");
}
