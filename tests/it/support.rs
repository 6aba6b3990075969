//! Shared helpers: rule cases in the fixture format, temporary studies, running the CLI.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use hindsight::evaluate::{Evaluation, OutcomeRows, Policy, Verdict, Window};
use hindsight::runs::item::{self, Execution, RunContext, TempTarget};
use hindsight::runs::SafeOutput;
use hindsight::snapshot::SnapshotIndex;
use hindsight::time::Instant;
use serde_json::Value;

pub const REPO: &str = "acme/repo";
pub const CAPTURED_AT: &str = "2026-02-01T00:00:00Z";

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A program a few tests drive besides hindsight, which scripts/test installs.
#[derive(Clone, Copy, Debug)]
pub enum Tool {
    /// The project's Python with DuckDB, pandas, Jupyter... (`.venv`).
    Python,
    /// Chromium, drawing the HTML report.
    Chromium,
    /// tmux, giving the SQL shell a real terminal.
    Tmux,
    /// The other opentraces-schema releases (`.venv-opentraces/`).
    OpentracesReleases,
}

impl Tool {
    fn present(self) -> bool {
        let on_path = |name: &str| std::env::var_os("PATH").is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(name).is_file()));
        match self {
            Tool::Python => root().join(".venv/bin/python").is_file(),
            Tool::Chromium => Path::new(&chromium()).is_file(),
            Tool::Tmux => on_path("tmux"),
            Tool::OpentracesReleases => root().join(".venv-opentraces").is_dir(),
        }
    }
}

/// The Chromium the HTML tests drive (`HINDSIGHT_CHROMIUM`, else Debian's).
pub fn chromium() -> String {
    std::env::var("HINDSIGHT_CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into())
}

/// Whether a test that drives `tools` can run. Under scripts/test (and so `.ci/run`), which
/// installs them and sets `HINDSIGHT_TOOLS=required`, a missing one fails the test; under a
/// plain `cargo test` on a fresh clone the test returns early and says so on stderr, so the
/// rest of the suite runs without them.
pub fn have(tools: &[Tool]) -> bool {
    let missing: Vec<Tool> = tools.iter().copied().filter(|t| !t.present()).collect();
    if missing.is_empty() {
        return true;
    }
    assert!(std::env::var("HINDSIGHT_TOOLS").as_deref() != Ok("required"), "{missing:?} missing: scripts/test installs them");
    eprintln!("skipped: needs {missing:?}; scripts/test installs them and runs this test");
    false
}

/// The project's Python (`.venv`, made by scripts/test) for the DuckDB and pandas checks.
pub fn python() -> PathBuf {
    let p = root().join(".venv/bin/python");
    assert!(p.is_file(), "no .venv: run the tests with scripts/test, which installs the Python packages they use");
    p
}

/// What a test marked `#[ignore = "needs ../shared (...)"]` reads beside the project: the
/// path, which must exist (`cargo test -- --include-ignored` runs those tests; `.ci/run` does
/// where `../shared` is present).
fn shared(rel: &str) -> PathBuf {
    let p = root().join("../shared").join(rel);
    assert!(p.exists(), "{} is absent: this test needs ../shared beside the project", p.display());
    p
}

/// The real AIDev-pop dataset beside the project (`../shared/datasets/aidev-pop`).
pub fn real_aidev_pop() -> PathBuf {
    shared("datasets/aidev-pop")
}

/// gh-aw's own outcome conformance cases beside the project
/// (`../shared/peer/gh-aw/outcome_conformance.json`).
pub fn gh_aw_conformance_cases() -> Vec<Value> {
    let p = shared("peer/gh-aw/outcome_conformance.json");
    let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The specification, docs/SPEC.md.
pub fn spec() -> String {
    std::fs::read_to_string(root().join("docs/SPEC.md")).expect("docs/SPEC.md")
}

/// The ids docs/SPEC.md defines: each is an anchor followed by its id in brackets,
/// `<a id="spec-pr"></a>[SPEC-PR]`, so `docs/SPEC.md#spec-pr` finds it.
pub fn spec_ids() -> std::collections::BTreeSet<String> {
    let text = spec();
    let mut ids = std::collections::BTreeSet::new();
    for rest in text.split("<a id=\"").skip(1) {
        let anchor = &rest[..rest.find('"').expect("an anchor's closing quote")];
        let id = anchor.to_uppercase();
        assert!(rest.starts_with(&format!("{anchor}\"></a>[{id}]")), "anchor `{anchor}` is not followed by `[{id}]`");
        assert!(ids.insert(id.clone()), "{id} is defined twice");
    }
    ids
}

/// The `SPEC-…` ids a text cites.
pub fn spec_citations(text: &str) -> Vec<&str> {
    text.match_indices("SPEC-")
        .filter_map(|(i, _)| {
            let rest = &text[i..];
            let end = rest[5..].find(|c: char| !(c.is_ascii_uppercase() || c.is_ascii_digit() || c == '-')).map_or(rest.len(), |e| e + 5);
            let id = rest[..end].trim_end_matches('-');
            (id.len() > 5).then_some(id)
        })
        .collect()
}

pub fn fixture(rel: &str) -> PathBuf {
    root().join("fixtures").join(rel)
}

/// Evaluate one fixture case in the given windows.
pub fn evaluate_case(case: &Value, windows: &[Window]) -> Vec<Outcome> {
    evaluate_case_recording(case, windows, None).0
}

/// Every snapshot path the rule looks up while evaluating `case` (found or not), and the
/// paths the rules declare they read for it, given the case's captures.
pub fn paths_looked_up_and_read(case: &Value, windows: &[Window]) -> (std::collections::BTreeSet<String>, std::collections::BTreeSet<String>) {
    let rec = std::sync::Arc::new(std::sync::Mutex::new(std::collections::BTreeSet::new()));
    let (_, read) = evaluate_case_recording(case, windows, Some(rec.clone()));
    let set = rec.lock().unwrap().clone();
    (set, read.into_iter().collect())
}

type Recorder = std::sync::Arc<std::sync::Mutex<std::collections::BTreeSet<String>>>;

/// `evaluate_case`, recording the paths looked up when given a recorder; with the paths
/// the rules declare they read.
pub fn evaluate_case_recording(case: &Value, windows: &[Window], recorder: Option<Recorder>) -> (Vec<Outcome>, Vec<String>) {
    let mut caps = Vec::new();
    let empty = serde_json::Map::new();
    // A capture's own time, per path (a cassette line's `captured_at`).
    let seen = |path: &str| case.get("captured_at_per_path").and_then(|m| m.get(path)).and_then(Value::as_str).and_then(hindsight::time::parse);
    for (path, body) in case.get("responses").and_then(Value::as_object).unwrap_or(&empty) {
        caps.push((format!("repos/{REPO}/{path}"), 1, 200u16, seen(path), body.to_string()));
    }
    for (path, body) in case.get("responses_graphql").and_then(Value::as_object).unwrap_or(&empty) {
        caps.push((format!("graphql/repos/{REPO}/{path}"), 1, 200u16, None, body.to_string()));
    }
    for (path, body) in case.get("global_responses").and_then(Value::as_object).unwrap_or(&empty) {
        caps.push((path.clone(), 1, 200u16, None, body.to_string()));
    }
    for (path, status) in case.get("errors").and_then(Value::as_object).unwrap_or(&empty) {
        let s = status.as_u64().expect("error status") as u16;
        caps.push((format!("repos/{REPO}/{path}"), 1, s, None, "{\"message\":\"error\"}".to_string()));
    }
    for (path, status) in case.get("global_errors").and_then(Value::as_object).unwrap_or(&empty) {
        caps.push((path.clone(), 1, status.as_u64().expect("error status") as u16, None, "{\"message\":\"Not Found\"}".to_string()));
    }
    let index = SnapshotIndex::build(caps);
    let index = match recorder {
        Some(r) => hindsight::testing::observing(index, r),
        None => index,
    };
    let captured_at = hindsight::time::parse(case.get("captured_at").and_then(Value::as_str).unwrap_or(CAPTURED_AT)).expect("captured_at");
    let mut policy = Policy::default().to_json();
    if let Some(p) = case.get("policy").and_then(Value::as_object) {
        for (k, v) in p {
            policy[k] = v.clone();
        }
    }
    let policy: Policy = serde_json::from_value(policy).expect("policy");
    let temp_ids: HashMap<String, TempTarget> = case
        .get("temporary_ids")
        .and_then(Value::as_object)
        .map(|m| m.iter().map(|(k, v)| (k.clone(), TempTarget { repo: v["repo"].as_str().map(str::to_string), number: v["number"].as_i64() })).collect())
        .unwrap_or_default();
    let ctx = RunContext {
        run_id: "1".into(),
        workflow_name: Some("fixture".into()),
        repository: Some(REPO.into()),
        actor: case.get("run_actor").and_then(Value::as_str).map(str::to_string),
        staged: false,
        temp_ids,
    };
    let mut output = item::from_record(&ctx, &case["item"], 0, item::Format::GhAw, "fixture.jsonl", 1).expect("item");
    if let Some(e) = case.get("execution").and_then(Value::as_str) {
        output.execution = Execution::parse(e);
    }
    let ev = Evaluation::new(&index, captured_at, &policy, windows);
    let fresh: Vec<Outcome> = windows.iter().map(|w| judge_one(&ev, &output, *w)).collect();
    // The batch path shares gathered activity between windows; it must decide the same.
    let batch = judge_all(&ev, std::slice::from_ref(&output));
    for (a, b) in fresh.iter().zip(&batch) {
        let key = |o: &Outcome| (o.window, o.verdict.status, o.verdict.strength, o.verdict.signal, o.verdict.rule_id.clone(), o.verdict.decided_at);
        assert_eq!(key(a), key(b), "cached and fresh evaluation differ");
    }
    let read = hindsight::testing::paths_read(&output, &index);
    (fresh, read)
}

/// One outcome row, judged in memory (the evaluate stage streams its rows instead).
#[derive(Clone, Debug)]
pub struct Outcome {
    pub output: SafeOutput<'static>,
    pub window: Window,
    pub evaluated_at: Option<Instant>,
    pub verdict: Verdict,
}

/// Every output in every window of `ev`, in order.
pub fn judge_all(ev: &Evaluation, outputs: &[SafeOutput]) -> Vec<Outcome> {
    outputs
        .iter()
        .flat_map(|o| {
            ev.windows.iter().zip(ev.judge_all(o)).map(|(w, (verdict, evaluated_at))| Outcome {
                output: o.clone().into_owned(),
                window: *w,
                evaluated_at,
                verdict,
            })
        })
        .collect()
}

/// One output in one window, with nothing shared with its other windows.
pub fn judge_one(ev: &Evaluation, o: &SafeOutput, window: Window) -> Outcome {
    let alone = Evaluation::new(ev.index, ev.captured_at, ev.policy, std::slice::from_ref(&window));
    let (verdict, evaluated_at) = alone.judge_all(o).remove(0);
    Outcome { output: o.clone().into_owned(), window, evaluated_at, verdict }
}

/// The `outcomes` table of already judged outcomes.
pub fn outcomes_batch(outcomes: &[Outcome]) -> arrow::record_batch::RecordBatch {
    let mut rows = OutcomeRows::default();
    let ranks = OutcomeRows::ranks(&outcomes.iter().map(|o| (o.output.run_id.as_ref(), o.output.item_index)).collect::<Vec<_>>());
    for (seq, (o, rank)) in outcomes.iter().zip(ranks).enumerate() {
        rows.push(&o.output, rank, seq, o.window, o.evaluated_at, &o.verdict);
    }
    let outputs: Vec<SafeOutput> = outcomes.iter().map(|o| o.output.clone()).collect();
    rows.finish(outputs.as_slice()).expect("outcomes batch")
}

/// The hindsight binary built for these tests.
pub fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_hindsight"))
}

pub fn run(args: &[&str], cwd: &Path) -> Output {
    Command::new(bin()).args(args).current_dir(cwd).output().expect("run hindsight")
}

pub fn ok(args: &[&str], cwd: &Path) -> String {
    let out = run(args, cwd);
    assert!(
        out.status.success(),
        "hindsight {:?} failed ({}):\n{}\n{}",
        args,
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).to_string()
}

/// The demo dataset: `hindsight run --out ds --quiet` in `dir`, which with no inputs runs the
/// bundled demo study (fixtures/demo, its traces and tasks included). Returns `dir/ds`.
pub fn demo(dir: &Path) -> PathBuf {
    ok(&["run", "--out", "ds", "--quiet"], dir);
    dir.join("ds")
}

/// `hindsight evaluate --quiet --dataset DS ARGS` in `cwd`, which must succeed: its stdout.
pub fn evaluate(cwd: &Path, ds: &str, args: &[&str]) -> String {
    let mut all = vec!["evaluate", "--quiet", "--dataset", ds];
    all.extend_from_slice(args);
    ok(&all, cwd)
}

/// A study's inputs as the command line takes them: a snapshot and runs, with traces (any
/// number of `--traces`) and tasks where given. Relative paths are read from the directory a
/// command runs in. Built from fixture directories, or written by a test ([`Study::write`],
/// then [`Study::capture`] and [`Study::item`]).
#[derive(Clone, Debug)]
pub struct Study {
    pub snapshot: PathBuf,
    pub runs: PathBuf,
    pub traces: Vec<PathBuf>,
    pub tasks: Option<PathBuf>,
}

impl Study {
    pub fn new(snapshot: impl Into<PathBuf>, runs: impl Into<PathBuf>) -> Study {
        Study { snapshot: snapshot.into(), runs: runs.into(), traces: Vec::new(), tasks: None }
    }

    /// `DIR/snapshot` and `DIR/runs`, as fixtures, `synth` and [`Study::write`] lay a study out.
    pub fn at(dir: impl AsRef<Path>) -> Study {
        Study::new(dir.as_ref().join("snapshot"), dir.as_ref().join("runs"))
    }

    /// A fixture study: `fixtures/REL/snapshot` and `fixtures/REL/runs`.
    pub fn fixture(rel: &str) -> Study {
        Study::at(fixture(rel))
    }

    /// The demo's snapshot and runs (fixtures/demo), without its traces and tasks.
    pub fn demo() -> Study {
        Study::fixture("demo")
    }

    /// The bundled demo study, what `run` reads when given no inputs: fixtures/demo's
    /// snapshot, runs, traces and tasks.
    pub fn bundled() -> Study {
        Study::demo().traces(fixture("demo/traces")).tasks(fixture("demo/tasks"))
    }

    /// With one more `--traces` input (a file or a directory).
    pub fn traces(mut self, traces: impl Into<PathBuf>) -> Study {
        self.traces.push(traces.into());
        self
    }

    /// With `--tasks DIR`.
    pub fn tasks(mut self, tasks: impl Into<PathBuf>) -> Study {
        self.tasks = Some(tasks.into());
        self
    }

    /// A new study in `dir`: `snapshot/snapshot.json` captured at `captured_at`, an empty
    /// `runs/`; captures and runs are added with [`Study::capture`], [`Study::line`] and
    /// [`Study::item`].
    pub fn write(dir: &Path, captured_at: &str) -> Study {
        let study = Study::at(dir);
        std::fs::create_dir_all(&study.snapshot).unwrap();
        std::fs::create_dir_all(&study.runs).unwrap();
        let info = serde_json::json!({"format": "hindsight-snapshot/1", "captured_at": captured_at});
        std::fs::write(study.snapshot.join("snapshot.json"), info.to_string()).unwrap();
        study
    }

    /// The snapshot and runs copied into `dir/snapshot` and `dir/runs` (to be changed): the
    /// copy, with the same traces and tasks.
    pub fn copy_to(&self, dir: &Path) -> Study {
        let copy = Study { traces: self.traces.clone(), tasks: self.tasks.clone(), ..Study::at(dir) };
        copy_dir(&self.snapshot, &copy.snapshot);
        copy_dir(&self.runs, &copy.runs);
        copy
    }

    /// `line` appended to cassette `file` (relative to the snapshot, its folders made).
    pub fn line(&self, file: &str, line: &str) -> &Study {
        let p = self.snapshot.join(file);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        let mut text = std::fs::read_to_string(&p).unwrap_or_default();
        text.push_str(line);
        text.push('\n');
        std::fs::write(&p, text).unwrap();
        self
    }

    /// A capture line in cassette `file`: `path` answered `status` with `body_text` (JSON text,
    /// kept byte for byte but for its insignificant white space, so a pretty-printed body fits
    /// one line), with the line's own `captured_at` where given.
    pub fn capture(&self, file: &str, path: &str, status: u16, body_text: &str, captured_at: Option<&str>) -> &Study {
        let mut line = format!("{{\"path\":{},\"status\":{status}", Value::from(path));
        if let Some(t) = captured_at {
            line.push_str(&format!(",\"captured_at\":{}", Value::from(t)));
        }
        line.push_str(&format!(",\"body\":{}}}", one_line(body_text)));
        self.line(file, &line)
    }

    /// A run holding one gh-aw manifest item: `runs/run-ID` with its `aw_info.json` (workflow
    /// `w` in `repo`) and `safe-output-items.jsonl`.
    pub fn item(&self, run_id: &str, repo: &str, item: Value) -> &Study {
        let run = self.runs.join(format!("run-{run_id}"));
        std::fs::create_dir_all(&run).unwrap();
        let info = serde_json::json!({"run_id": run_id, "workflow_name": "w", "repository": repo});
        std::fs::write(run.join("aw_info.json"), info.to_string()).unwrap();
        std::fs::write(run.join("safe-output-items.jsonl"), format!("{item}\n")).unwrap();
        self
    }

    /// The inputs as arguments: `--snapshot S --runs R [--traces T]... [--tasks K]`.
    pub fn args(&self) -> Vec<String> {
        let s = |p: &Path| p.to_str().expect("a UTF-8 path").to_string();
        let mut args = vec!["--snapshot".to_string(), s(&self.snapshot), "--runs".to_string(), s(&self.runs)];
        for t in &self.traces {
            args.extend(["--traces".to_string(), s(t)]);
        }
        if let Some(t) = &self.tasks {
            args.extend(["--tasks".to_string(), s(t)]);
        }
        args
    }

    fn command_line<'a>(&'a self, command: &'a str, inputs: &'a [String], args: &[&'a str]) -> Vec<&'a str> {
        let mut all = vec![command];
        all.extend(inputs.iter().map(String::as_str));
        all.extend_from_slice(args);
        all
    }

    /// `hindsight COMMAND INPUTS ARGS` in `cwd`, whatever its exit.
    pub fn cmd(&self, command: &str, args: &[&str], cwd: &Path) -> Output {
        let inputs = self.args();
        run(&self.command_line(command, &inputs, args), cwd)
    }

    /// `hindsight COMMAND INPUTS ARGS` in `cwd`, which must succeed: its stdout.
    pub fn ok(&self, command: &str, args: &[&str], cwd: &Path) -> String {
        let inputs = self.args();
        ok(&self.command_line(command, &inputs, args), cwd)
    }

    /// `hindsight run --quiet INPUTS --out OUT` in `cwd`, which must succeed: the dataset.
    pub fn run(&self, cwd: &Path, out: &str) -> PathBuf {
        self.ok("run", &["--quiet", "--out", out], cwd);
        cwd.join(out)
    }

    /// `hindsight convert --quiet INPUTS --out OUT` in `cwd`, which must succeed: the dataset.
    pub fn convert(&self, cwd: &Path, out: &str) -> PathBuf {
        self.ok("convert", &["--quiet", "--out", out], cwd);
        cwd.join(out)
    }
}

/// JSON text without insignificant white space, every other byte kept: a pretty-printed
/// body on one cassette line.
pub fn one_line(text: &str) -> String {
    let (mut out, mut in_str, mut esc) = (String::with_capacity(text.len()), false, false);
    for c in text.chars() {
        if in_str {
            out.push(c);
            match (esc, c) {
                (true, _) => esc = false,
                (false, '\\') => esc = true,
                (false, '"') => in_str = false,
                _ => {}
            }
        } else if !c.is_whitespace() {
            in_str = c == '"';
            out.push(c);
        }
    }
    out
}

/// Copy a directory tree.
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dst = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &dst);
        } else {
            std::fs::copy(e.path(), dst).unwrap();
        }
    }
}

/// Every file of a directory with its bytes, sorted by name.
pub fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .map(|p| (p.file_name().unwrap().to_string_lossy().to_string(), std::fs::read(&p).unwrap()))
        .collect();
    out.sort();
    out
}

/// Write `batch` as table `name` of the dataset in `dir`, recorded in its manifest.json
/// (created when absent), as hindsight's own stages would.
pub fn write_recorded(dir: &Path, name: &str, batch: &arrow::record_batch::RecordBatch) {
    use hindsight::dataset::manifest::Manifest;
    let mut m = Manifest::load(dir).unwrap_or_else(|_| Manifest::new(CAPTURED_AT.into()));
    let w = hindsight::dataset::write_batch(dir, name, batch).unwrap();
    m.record_table(name, &w);
    m.save(dir).unwrap();
}

/// The 95% Wilson score interval of k successes in n trials, in the textbook's centre ±
/// half-width form (Wilson 1927; Brown, Cai & DasGupta 2001), with z = 1.96:
/// (p + z²/2n ± z·√(p(1−p)/n + z²/4n²)) / (1 + z²/n), p = k/n. The bundled queries write it
/// another way (over k and n, the high end from n − k); this is the check.
pub fn wilson(k: f64, n: f64) -> (f64, f64) {
    let z: f64 = 1.96;
    let p = k / n;
    let centre = p + z * z / (2.0 * n);
    let half = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt();
    let denom = 1.0 + z * z / n;
    ((centre - half) / denom, (centre + half) / denom)
}

/// Rounded to 4 decimals, as the gh-aw dashboard's queries round their rates.
pub fn round4(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0 + 0.0
}

/// A rate and its interval as the gh-aw dashboard's queries write them (4 decimals): the
/// fields `RATE`, `RATE_ci_low`, `RATE_ci_high` for k of n.
pub fn rate_fields(rate: &str, k: f64, n: f64) -> Vec<(String, Value)> {
    let (lo, hi) = wilson(k, n);
    vec![
        (rate.to_string(), serde_json::json!(round4(k / n))),
        (format!("{rate}_ci_low"), serde_json::json!(round4(lo))),
        (format!("{rate}_ci_high"), serde_json::json!(round4(hi))),
    ]
}
