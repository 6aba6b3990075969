//! The whole pipeline through the CLI: bad input, record accounting, windows on the demo,
//! determinism across thread counts.

use std::path::Path;

use hindsight::dataset::manifest::Manifest;
use serde_json::Value;

use crate::support::{demo, files, fixture, ok, run, Study};

fn sql_json(dataset: &Path, sql: &str) -> Vec<Value> {
    let out = ok(&["report", "--dataset", dataset.to_str().unwrap(), "--sql", sql, "--format", "json"], dataset.parent().unwrap());
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

#[test]
fn bad_input_is_quarantined_and_nothing_is_lost() {
    let tmp = tempfile::tempdir().unwrap();
    let ds = tmp.path().join("ds");
    let out = Study::fixture("bad-input").cmd("run", &["--out", ds.to_str().unwrap()], tmp.path());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("quarantined runs/run-1/safe-output-items.jsonl:2: field `number`"), "{stderr}");
    assert!(stderr.contains("no rule for type `frobnicate_widgets`"), "{stderr}");

    // Each bad record, with its file, line and why.
    let q = sql_json(&ds, "SELECT input, file, line, field, reason FROM quarantine ORDER BY input, file, line");
    let got: Vec<(String, i64, String)> =
        q.iter().map(|r| (r["file"].as_str().unwrap().to_string(), r["line"].as_i64().unwrap(), r["reason"].as_str().unwrap().to_string())).collect();
    let expect: &[(&str, i64, &str)] = &[
        ("run-1/safe-output-items.jsonl", 2, "expected an integer, found \"twelve\""),
        ("run-1/safe-output-items.jsonl", 4, "duplicate item"),
        ("run-1/safe-output-items.jsonl", 5, "not valid JSON"),
        ("run-1/safe-output-items.jsonl", 7, "missing"),
        ("run-1/safe-output-items.jsonl", 8, "truncated line"),
        ("capture.jsonl", 2, "not valid JSON"),
        ("capture.jsonl", 3, "expected a string"),
        ("capture.jsonl", 6, "truncated line"),
    ];
    assert_eq!(got.len(), expect.len(), "{got:#?}");
    for ((f, l, r), (ef, el, er)) in got.iter().zip(expect) {
        assert_eq!((f.as_str(), *l), (*ef, *el));
        assert!(r.contains(er), "line {l}: reason `{r}` lacks `{er}`");
    }
    let raw = sql_json(&ds, "SELECT raw FROM quarantine WHERE file = 'capture.jsonl' AND line = 2");
    assert_eq!(raw[0]["raw"], "this line is not JSON");

    // A path captured twice: the later capture (line 5) is used, the earlier one stays in
    // `responses`, marked superseded by it.
    let old = sql_json(&ds, "SELECT source_line, superseded_by FROM responses WHERE superseded_by IS NOT NULL");
    assert_eq!(old, vec![serde_json::json!({"source_line": 1, "superseded_by": "capture.jsonl:5"})]);

    // Input records = used + quarantined + superseded, counted independently, per input
    // and per file.
    let m = Manifest::load(&ds).unwrap();
    for (input, r) in &m.records {
        let in_files: usize = m.inputs.iter().filter(|f| &f.input == input).map(|f| f.records).sum();
        assert_eq!(r.input, in_files, "{input}");
        assert_eq!(r.input, r.used + r.quarantined + r.superseded, "{input}: {r:?}");
        assert!(r.quarantined > 0, "{input}: nothing quarantined");
    }
    assert_eq!(m.records["snapshot"].superseded, 1);
    assert_eq!(
        (m.records["snapshot"].used + m.records["snapshot"].superseded) as i64,
        sql_json(&ds, "SELECT COUNT(*) AS n FROM responses")[0]["n"].as_i64().unwrap()
    );
    assert_eq!(m.tables["quarantine"].rows, m.records["snapshot"].quarantined + m.records["runs"].quarantined);

    // The good records were evaluated; the unusable ones say why they are unknown. PR 1 is
    // judged on its later capture (line 5: open), not the superseded first one (merged).
    let o = sql_json(&ds, "SELECT safe_output_id, outcome_status, human_check_signal FROM outcomes WHERE eval_window = 'snapshot' ORDER BY item_index");
    let got: Vec<(&str, &str, &str)> =
        o.iter().map(|r| (r["safe_output_id"].as_str().unwrap(), r["outcome_status"].as_str().unwrap(), r["human_check_signal"].as_str().unwrap())).collect();
    assert_eq!(
        got,
        vec![("1:0", "pending", "target_exists_only"), ("1:2", "unknown", "no_type_specific_evaluator"), ("1:5", "unknown", "target_not_captured"),]
    );
}

#[test]
fn unreadable_input_is_exit_2_with_the_path() {
    let tmp = tempfile::tempdir().unwrap();
    let out = Study::new("no/such/dir", "no/such/runs").cmd("convert", &["--out", "x"], tmp.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no/such/dir"));

    std::fs::create_dir_all(tmp.path().join("snap")).unwrap();
    std::fs::create_dir_all(tmp.path().join("runs")).unwrap();
    std::fs::write(tmp.path().join("snap/snapshot.json"), "{\"format\": \"hindsight-snapshot/1\"}").unwrap();
    let out = Study::new("snap", "runs").cmd("convert", &["--out", "ds"], tmp.path());
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("snapshot.json") && err.contains("captured_at"), "{err}");
    assert!(!tmp.path().join("ds").exists(), "a failed convert left a dataset behind");
}

/// The demo's PR 101 merged 30 hours after it was opened.
#[test]
fn windows_rebuild_state_as_of_their_end() {
    let tmp = tempfile::tempdir().unwrap();
    demo(tmp.path());
    let ds = tmp.path().join("ds");
    let rows = sql_json(
        &ds,
        "SELECT eval_window, outcome_status, evidence_strength, human_check_signal, time_to_outcome_hours FROM outcomes \
         WHERE safe_output_type = 'create_pull_request' AND target_number = 101 ORDER BY window_order",
    );
    let got: Vec<String> = rows
        .iter()
        .map(|r| {
            format!(
                "{} {} {} {}",
                r["eval_window"].as_str().unwrap(),
                r["outcome_status"].as_str().unwrap(),
                r["evidence_strength"].as_str().unwrap(),
                r["human_check_signal"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            "1h pending weak target_exists_only",
            "24h pending medium pull_request_approved",
            "7d accepted strong pull_request_merged",
            "30d accepted strong pull_request_merged",
            "snapshot accepted strong pull_request_merged",
        ]
    );
    assert_eq!(rows[2]["time_to_outcome_hours"].as_f64(), Some(30.0));
    // target_exists_only is never counted as accepted, anywhere in the demo.
    let bad = sql_json(&ds, "SELECT COUNT(*) AS n FROM outcomes WHERE human_check_signal = 'target_exists_only' AND outcome_status = 'accepted'");
    assert_eq!(bad[0]["n"].as_i64(), Some(0));
}

/// Same inputs, same bytes: twice, and at 1 and 2 threads.
#[test]
fn outputs_are_byte_identical_across_runs_and_thread_counts() {
    let tmp = tempfile::tempdir().unwrap();
    let a = ok(&["run", "--out", "a", "--threads", "1", "--quiet"], tmp.path());
    let b = ok(&["run", "--out", "b", "--threads", "2", "--quiet"], tmp.path());
    let c = ok(&["run", "--out", "c", "--threads", "2", "--quiet"], tmp.path());
    assert_eq!(a, b, "dashboards differ between 1 and 2 threads");
    assert_eq!(b, c);
    let fa = files(&tmp.path().join("a"));
    assert!(fa.iter().any(|(n, _)| n == "outcomes.parquet"));
    assert_eq!(fa, files(&tmp.path().join("b")), "datasets differ between 1 and 2 threads");
    assert_eq!(fa, files(&tmp.path().join("c")), "datasets differ between two runs");
}

/// Convert spills sorted runs of captures to disk beyond its memory budget. The dataset is
/// the same, byte for byte, whether everything fits or every capture is its own run and each
/// step of the merge a repository of its own (handed from the merge to the typed rows to
/// `responses`' writer in turn): on the demo (every layout), on bad input (duplicates across
/// files) and on a synthetic study.
#[test]
fn spilling_to_disk_changes_no_byte_of_the_dataset() {
    use hindsight::pipeline::Study;
    use hindsight::progress::Progress;
    use hindsight::testing::convert_with_budget;
    let tmp = tempfile::tempdir().unwrap();
    ok(&["synth", "--repos", "6", "--outputs", "500", "--seed", "9", "--out", "s", "--quiet"], tmp.path());
    let studies = [
        ("demo", fixture("demo/snapshot"), fixture("demo/runs")),
        ("bad", fixture("bad-input/snapshot"), fixture("bad-input/runs")),
        ("synth", tmp.path().join("s/snapshot"), tmp.path().join("s/runs")),
    ];
    for (name, snapshot, runs) in studies {
        let study = Study { snapshot, runs, traces: vec![], tasks: None, task_policy: None };
        let in_memory = tmp.path().join(format!("{name}-mem"));
        let spilled = tmp.path().join(format!("{name}-spilled"));
        let a = convert_with_budget(&study, &in_memory, &Progress::hidden(), usize::MAX).unwrap();
        let b = convert_with_budget(&study, &spilled, &Progress::hidden(), 1).unwrap();
        assert!(a.responses > 0, "{name}: no responses to compare");
        assert_eq!(name == "bad", a.records["snapshot"].superseded > 0, "{name}: copies of one path");
        assert_eq!((a.responses, a.quarantined.len(), &a.records), (b.responses, b.quarantined.len(), &b.records), "{name}");
        let fa = files(&in_memory);
        assert!(fa.iter().any(|(n, _)| n == "responses.parquet"));
        assert_eq!(fa, files(&spilled), "{name}: spilling changed the dataset");
        assert!(std::fs::read_dir(&spilled).unwrap().all(|e| e.unwrap().path().is_file()), "{name}: spill files left in the dataset");
    }
}

/// Evaluate spills sorted parts of outcome rows to disk beyond its memory budget. The
/// outcomes are the same, byte for byte, whether they all fit or every output's rows are
/// their own part: on the demo, on bad input and on a synthetic study.
#[test]
fn spilling_outcome_rows_changes_no_byte_of_the_outcomes() {
    use hindsight::evaluate::{evaluate_dataset, Settings};
    use hindsight::progress::Progress;
    use hindsight::testing::evaluate_with_budget;
    let tmp = tempfile::tempdir().unwrap();
    ok(&["synth", "--repos", "6", "--outputs", "300", "--seed", "4", "--out", "s", "--quiet"], tmp.path());
    let studies = [("demo", Study::demo()), ("bad", Study::fixture("bad-input")), ("synth", Study::at(tmp.path().join("s")))];
    let settings = Settings::default();
    for (name, study) in studies {
        let ds = study.convert(tmp.path(), name);
        let n = evaluate_dataset(&ds, &settings, &Progress::hidden()).unwrap();
        let in_memory = std::fs::read(ds.join("outcomes.parquet")).unwrap();
        let m = evaluate_with_budget(&ds, &settings, &Progress::hidden(), 1).unwrap();
        assert!(n > 10, "{name}: too few outcomes to compare");
        assert_eq!(n, m, "{name}: spilling changed the row count");
        assert!(in_memory == std::fs::read(ds.join("outcomes.parquet")).unwrap(), "{name}: spilling changed outcomes.parquet");
        assert!(!ds.join(".spill").exists(), "{name}: spill files left in the dataset");
        // No budget at all: never spilled, the same bytes.
        evaluate_with_budget(&ds, &settings, &Progress::hidden(), usize::MAX).unwrap();
        assert!(in_memory == std::fs::read(ds.join("outcomes.parquet")).unwrap(), "{name}: an unbounded budget changed outcomes.parquet");
        // At one thread, spilling: parts are sorted and written on a thread of their own,
        // which must never wait for rayon's only thread while that one waits for them (as it
        // does for the last part, when rows are left over at the end: budgets of several
        // sizes leave some over).
        for budget in [1, 10000, 40000, 160000] {
            let (tx, rx) = std::sync::mpsc::channel();
            let at = ds.clone();
            let settings = settings.clone();
            std::thread::spawn(move || {
                let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
                let n = one.install(|| evaluate_with_budget(&at, &settings, &Progress::hidden(), budget));
                let _ = tx.send(n.map_err(|e| e.to_string()));
            });
            match rx.recv_timeout(std::time::Duration::from_secs(300)) {
                Ok(m) => assert_eq!(m, Ok(n), "{name}: one thread, budget {budget}"),
                Err(_) => panic!("{name}: evaluate at one thread, budget {budget}, never finished"),
            }
            assert!(in_memory == std::fs::read(ds.join("outcomes.parquet")).unwrap(), "{name}: one thread, budget {budget}: outcomes.parquet changed");
        }
    }
}

/// Splitting a study into bands writes each output once: the parts of twenty bands take
/// about the bytes of two. (A band's part once carried every long text of each batch its
/// rows came from, so the parts together, on disk and in memory, held the study's texts
/// once per band: 28 GB at 7.6M AIDev PRs.)
#[test]
fn bands_hold_each_output_once() {
    use hindsight::testing::band_part_bytes;
    let tmp = tempfile::tempdir().unwrap();
    let (src, ds) = (tmp.path().join("src"), tmp.path().join("ds"));
    ok(&["synth", "--quiet", "--aidev", "v5", "--prs", "3000", "--seed", "2", "--out", src.to_str().unwrap()], tmp.path());
    ok(&["import", "aidev", src.to_str().unwrap(), "--out", ds.to_str().unwrap(), "--quiet"], tmp.path());
    let outputs = 3000;
    let (two, few) = band_part_bytes(&ds, outputs / 2 + 1).unwrap();
    let (many, lots) = band_part_bytes(&ds, outputs / 20 + 1).unwrap();
    assert!(two >= 2 && many >= 15, "{two} and {many} bands");
    assert!(few > 0 && lots < few * 3 / 2, "{many} bands take {lots} bytes, {two} bands {few}");
    assert!(!ds.join(".bands").exists(), "the parts are removed");
}

/// A large study is judged a band of repositories at a time (memory bounded by the band).
/// The tables evaluate writes are the same, byte for byte, at any band size, spilling or
/// not, at one thread or more: on the demo, a synthetic study and an AIDev import (every
/// output a PR, with CI-gate, risk and quality rows). (Bad input's outputs are in one repository:
/// one band at any size.)
#[test]
fn judging_in_bands_changes_no_byte_of_what_evaluate_writes() {
    use hindsight::evaluate::{evaluate_dataset, Settings};
    use hindsight::progress::Progress;
    use hindsight::testing::{bands, evaluate_in_bands};
    let tmp = tempfile::tempdir().unwrap();
    ok(&["synth", "--repos", "6", "--outputs", "300", "--seed", "4", "--out", "s", "--quiet"], tmp.path());
    let aidev = tmp.path().join("aidev");
    let src = super::support::fixture("aidev");
    ok(&["import", "aidev", src.to_str().unwrap(), "--out", aidev.to_str().unwrap(), "--captured-at", "2025-07-31T00:00:00Z", "--quiet"], tmp.path());
    let studies = [("demo", Some(Study::demo())), ("synth", Some(Study::at(tmp.path().join("s")))), ("aidev", None)];
    const TABLES: [&str; 7] = ["outcomes", "ci_gate", "ci_gate_steps", "ci_gate_loop_state", "pr_risk", "quality_findings", "manifest"];
    let settings = Settings::default();
    let written = |ds: &Path| -> Vec<Vec<u8>> {
        TABLES.iter().map(|t| std::fs::read(ds.join(if *t == "manifest" { "manifest.json".to_string() } else { format!("{t}.parquet") })).unwrap()).collect()
    };
    for (name, study) in studies {
        let ds = match study {
            Some(s) => s.convert(tmp.path(), name),
            None => aidev.clone(),
        };
        let n = evaluate_dataset(&ds, &settings, &Progress::hidden()).unwrap();
        let whole = written(&ds);
        assert_eq!(bands(&ds, usize::MAX).unwrap(), 1);
        let outputs = n / settings.windows.len();
        for (band, budget, threads) in [(1, usize::MAX, 2), (3, 1, 2), (outputs / 4 + 1, 20000, 1), (outputs / 2 + 1, 1, 3)] {
            let many = bands(&ds, band).unwrap();
            assert!(many > 1, "{name}: {band} outputs a band gave {many} band: the test would not judge in bands");
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            let m = pool.install(|| evaluate_in_bands(&ds, &settings, &Progress::hidden(), band, budget)).unwrap();
            assert_eq!(m, n, "{name}: bands of {band} changed the row count");
            for (t, (a, b)) in TABLES.iter().zip(whole.iter().zip(written(&ds))) {
                assert!(*a == b, "{name}: bands of {band} outputs (budget {budget}, {threads} threads) changed {t}");
            }
            assert!(!ds.join(".bands").exists() && !ds.join(".spill").exists(), "{name}: parts left in the dataset");
        }
    }
}

/// Review feedback computed a band of repositories at a time (as an AIDev import does)
/// writes the same bytes as computed at once (as convert does), at any band size: on the
/// demo and an AIDev import (reviews, comments and commits on every PR).
#[test]
fn review_feedback_in_bands_is_the_same_bytes() {
    use hindsight::testing::{feedback_at_once, feedback_in_bands};
    let tmp = tempfile::tempdir().unwrap();
    let aidev = tmp.path().join("aidev");
    let src = super::support::fixture("aidev");
    ok(&["import", "aidev", src.to_str().unwrap(), "--out", aidev.to_str().unwrap(), "--captured-at", "2025-07-31T00:00:00Z", "--quiet"], tmp.path());
    for (name, ds) in [("demo", Study::demo().convert(tmp.path(), "demo")), ("aidev", aidev)] {
        let whole = tmp.path().join(format!("{name}-whole"));
        let tables = feedback_at_once(&ds, &whole).unwrap();
        assert_eq!(tables, vec!["review_feedback", "pr_feedback"]);
        let rows = |t: &str| {
            use parquet::file::reader::FileReader;
            let f = std::fs::File::open(whole.join(format!("{t}.parquet"))).unwrap();
            parquet::file::reader::SerializedFileReader::new(f).unwrap().metadata().file_metadata().num_rows()
        };
        assert!(rows("review_feedback") > 0 && rows("pr_feedback") > 1, "{name}: too little review feedback to compare");
        for band in [1, 2, 5] {
            let banded = tmp.path().join(format!("{name}-{band}"));
            let mut written = feedback_in_bands(&ds, &banded, band).unwrap();
            written.sort();
            assert_eq!(written, vec!["pr_feedback", "review_feedback"]);
            for t in ["review_feedback", "pr_feedback"] {
                let f = format!("{t}.parquet");
                assert!(std::fs::read(whole.join(&f)).unwrap() == std::fs::read(banded.join(&f)).unwrap(), "{name}: bands of {band} PRs changed {t}");
            }
        }
    }
}

/// The demo holds every input layout: a paginated list, a directory-tree capture, thin and
/// rich gh-aw manifests, normalized records, requests never executed, temporary ids.
#[test]
fn demo_reads_every_input_layout() {
    let tmp = tempfile::tempdir().unwrap();
    demo(tmp.path());
    let ds = tmp.path().join("ds");
    // issues/204/comments came as two pages: all three comments are there, in order.
    let c = sql_json(&ds, "SELECT comment_id FROM issue_comments WHERE repo = 'acme/api' AND issue_number = 204 ORDER BY comment_id");
    assert_eq!(c.iter().map(|r| r["comment_id"].as_i64().unwrap()).collect::<Vec<_>>(), vec![6204, 6205, 6206]);
    // acme/docs was captured as a directory tree.
    let d = sql_json(&ds, "SELECT source_file FROM responses WHERE path = 'repos/acme/docs/pulls/7'");
    assert_eq!(d[0]["source_file"], "repos/acme/docs/pulls/7.json");
    let f =
        sql_json(&ds, "SELECT source_format, execution, COUNT(*) AS n FROM safe_outputs GROUP BY source_format, execution ORDER BY source_format, execution");
    let got: Vec<String> = f.iter().map(|r| format!("{} {} {}", r["source_format"].as_str().unwrap(), r["execution"].as_str().unwrap(), r["n"])).collect();
    // 35 manifest items, and the six PRs of the CI-gate run (run-9009).
    assert_eq!(got, vec!["agent-request requested_only 2", "agent-request staged 1", "gh-aw-manifest executed 41", "normalized executed 2"]);
    let t =
        sql_json(&ds, "SELECT target_source, COUNT(*) AS n FROM safe_outputs WHERE target_source IS NOT NULL GROUP BY target_source ORDER BY target_source");
    let sources: Vec<&str> = t.iter().map(|r| r["target_source"].as_str().unwrap()).collect();
    assert_eq!(sources, vec!["number", "target", "temporary_id", "url"]);
    // Every output has a payload hash; gh-aw ones are sha256 of the canonical payload (the
    // payload column keeps the record's own text).
    let h = sql_json(&ds, "SELECT payload, payload_hash FROM safe_outputs WHERE source_format = 'gh-aw-manifest'");
    for r in h {
        let p: Value = serde_json::from_str(r["payload"].as_str().unwrap()).unwrap();
        assert_eq!(r["payload_hash"].as_str().unwrap(), hindsight::json::sha256_hex(hindsight::json::canonical(&p).as_bytes()));
    }
}

/// Issue 3's demo outputs: a merged-then-reverted PR (accepted at 24h, rejected at 30d), a
/// discussion with an accepted answer, and a resolved review thread.
#[test]
fn demo_shows_reverts_answers_and_resolved_threads() {
    let tmp = tempfile::tempdir().unwrap();
    let dash = ok(&["run", "--out", "ds", "--quiet", "--format", "json"], tmp.path());
    let ds = tmp.path().join("ds");
    let row = |ty: &str, w: &str| {
        let r = sql_json(&ds, &format!("SELECT outcome_status, evidence_strength, human_check_signal FROM outcomes WHERE run_id = '9008' AND safe_output_type = '{ty}' AND eval_window = '{w}'"));
        format!("{} {} {}", r[0]["outcome_status"].as_str().unwrap(), r[0]["evidence_strength"].as_str().unwrap(), r[0]["human_check_signal"].as_str().unwrap())
    };
    assert_eq!(row("create_pull_request", "24h"), "accepted strong pull_request_merged");
    assert_eq!(row("create_pull_request", "30d"), "rejected strong reverted_after_merge");
    assert_eq!(row("create_discussion", "snapshot"), "accepted strong discussion_answered");
    assert_eq!(row("resolve_pull_request_review_thread", "snapshot"), "accepted strong resolved_and_merged");
    let dash: serde_json::Value = serde_json::from_str(&dash).unwrap();
    let w30 = dash["summary"].as_array().unwrap().iter().find(|r| r["eval_window"] == "30d").unwrap();
    assert_eq!(w30["durable_reversal_count"], 1);
    assert_eq!(w30["missing_type_specific_rule_count"], 0);
    let types: Vec<&str> = dash["acceptance_by_type"].as_array().unwrap().iter().map(|r| r["safe_output_type"].as_str().unwrap()).collect();
    for t in ["create_discussion", "resolve_pull_request_review_thread", "close_issue", "update_issue"] {
        assert!(types.contains(&t), "the dashboard lacks {t}");
    }
}

/// `synth` writes the same bytes for the same seed, other bytes for another, and the study
/// runs end to end with every record used.
#[test]
fn synth_is_deterministic_and_runs() {
    let tmp = tempfile::tempdir().unwrap();
    ok(&["synth", "--repos", "5", "--outputs", "300", "--seed", "3", "--out", "a", "--quiet"], tmp.path());
    ok(&["synth", "--repos", "5", "--outputs", "300", "--seed", "3", "--out", "b", "--quiet"], tmp.path());
    ok(&["synth", "--repos", "5", "--outputs", "300", "--seed", "4", "--out", "c", "--quiet"], tmp.path());
    let cassette = |d: &str| std::fs::read(tmp.path().join(d).join("snapshot/capture-0001.jsonl")).unwrap();
    assert_eq!(cassette("a"), cassette("b"));
    assert_ne!(cassette("a"), cassette("c"));
    Study::at("a").traces("a/traces").run(tmp.path(), "ds");
    let m = Manifest::load(&tmp.path().join("ds")).unwrap();
    for (input, r) in &m.records {
        assert_eq!(r.quarantined, 0, "{input}");
        assert_eq!(r.input, r.used, "{input}");
    }
    assert_eq!(m.tables["safe_outputs"].rows, 300);
    assert_eq!(m.tables["outcomes"].rows, 1500);
}

/// Evaluate reads the snapshot one repository at a time. Whatever the chunk size, its
/// verdicts are those of one index over the whole snapshot.
#[test]
fn evaluating_by_repository_decides_as_one_index() {
    use crate::support::{judge_all, outcomes_batch};
    use hindsight::dataset::read;
    use hindsight::evaluate::{window, Evaluation};
    use hindsight::testing::evaluate_in_chunks;
    use hindsight::progress::Progress;
    let tmp = tempfile::tempdir().unwrap();
    Study::demo().convert(tmp.path(), "demo");
    ok(&["synth", "--repos", "7", "--outputs", "400", "--seed", "5", "--out", "s", "--quiet"], tmp.path());
    Study::at("s").convert(tmp.path(), "synth");
    let settings = hindsight::evaluate::Settings::default();
    let policy = &settings.policy;
    for name in ["demo", "synth"] {
        let ds = tmp.path().join(name);
        let outcomes = |chunk: usize| {
            evaluate_in_chunks(&ds, &settings, &Progress::hidden(), chunk).unwrap();
            std::fs::read(ds.join("outcomes.parquet")).unwrap()
        };
        let one_repo_per_step = outcomes(1);
        assert_eq!(one_repo_per_step, outcomes(usize::MAX), "{name}: chunk size changed the outcomes");
        let index = hindsight::snapshot::SnapshotIndex::build(read::responses(&ds).unwrap());
        let captured_at = hindsight::time::parse(&Manifest::load(&ds).unwrap().captured_at).unwrap();
        let ev = Evaluation::new(&index, captured_at, policy, window::DEFAULT);
        let whole = outcomes_batch(&judge_all(&ev, &read::safe_outputs(&ds).unwrap()));
        let written = read::batches(&ds, "outcomes").unwrap();
        let written = arrow::compute::concat_batches(&written[0].schema(), &written).unwrap();
        // The file's schema also carries the data dictionary's descriptions; the values are compared.
        let written = arrow::record_batch::RecordBatch::try_new(whole.schema(), written.columns().to_vec()).unwrap();
        assert!(whole.num_rows() > 100, "{name}: too few outcomes to compare");
        assert_eq!(whole, written, "{name}: streaming by repository decided otherwise than one index");
        // Windows given in another order: rows still sorted by window within each output.
        let reversed: Vec<_> = window::DEFAULT.iter().rev().copied().collect();
        let ev = Evaluation::new(&index, captured_at, policy, &reversed);
        assert_eq!(outcomes_batch(&judge_all(&ev, &read::safe_outputs(&ds).unwrap())), whole, "{name}: window order given changed the rows");
    }
}

/// A `responses` table whose rows are not grouped by repository is refused with a message,
/// never evaluated with part of a repository's captures.
#[test]
fn responses_not_grouped_by_repository_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let ds = Study::demo().convert(tmp.path(), "ds");
    let b = hindsight::dataset::read::batches(&ds, "responses").unwrap();
    let b = arrow::compute::concat_batches(&b[0].schema(), &b).unwrap();
    // Sorted by path alone, GraphQL captures of a repository come apart from its REST ones.
    let by_path = arrow::compute::sort_to_indices(b.column_by_name("path").unwrap(), None, None).unwrap();
    let b = arrow::compute::take_record_batch(&b, &by_path).unwrap();
    hindsight::dataset::write_batch(&ds, "responses", &b).unwrap();
    let out = run(&["evaluate", "--dataset", "ds", "--quiet"], tmp.path());
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("responses.parquet") && err.contains("are not together") && err.contains("convert the study again"), "{err}");
}

/// Requests are numbered from 1 in both request files, and a request log line that repeats
/// an agent_output.json item says so (`same_as`), so a request is counted once.
#[test]
fn requests_in_both_files_are_numbered_alike_and_counted_once() {
    let tmp = tempfile::tempdir().unwrap();
    let study = Study::demo().copy_to(tmp.path());
    let run = study.runs.join("run-9003");
    let agent: Value = serde_json::from_str(&std::fs::read_to_string(run.join("agent_output.json")).unwrap()).unwrap();
    let items = agent["items"].as_array().unwrap();
    // The log repeats the last item (as its own JSON text) and adds one of its own.
    let last = items.len();
    let mut second = serde_json::Map::new();
    for (k, v) in items[last - 1].as_object().unwrap().iter().rev() {
        second.insert(k.clone(), v.clone());
    }
    let log = format!("{}\n{}\n", Value::Object(second), serde_json::json!({"type": "add_comment", "body": "only in the log"}));
    std::fs::write(run.join("safeoutputs.jsonl"), log).unwrap();
    let ds = study.convert(tmp.path(), "ds");
    let rows = sql_json(
        &ds,
        "SELECT source_file, position, same_as FROM requests WHERE run_id = '9003' AND (position <= 2 OR source_file LIKE '%safeoutputs.jsonl') ORDER BY source_file, position",
    );
    let got: Vec<(String, i64, Option<String>)> = rows
        .iter()
        .map(|r| (r["source_file"].as_str().unwrap().to_string(), r["position"].as_i64().unwrap(), r["same_as"].as_str().map(str::to_string)))
        .collect();
    assert_eq!(
        got,
        vec![
            ("run-9003/agent_output.json".into(), 1, None),
            ("run-9003/agent_output.json".into(), 2, None),
            ("run-9003/safeoutputs.jsonl".into(), 1, Some(format!("agent_output.json#{last}"))),
            ("run-9003/safeoutputs.jsonl".into(), 2, None),
        ]
    );
}

/// A thin manifest item of add_labels (no labels recorded) takes the labels its request in
/// agent_output.json asked for, marked as requested; before, it was missing_execution_state.
#[test]
fn a_thin_add_labels_item_takes_its_labels_from_the_request() {
    let tmp = tempfile::tempdir().unwrap();
    let study = Study::write(tmp.path(), "2026-02-01T00:00:00Z");
    study
        .line("c.jsonl", r#"{"path": "repos/acme/repo/issues/1", "body": {"number": 1, "state": "open", "labels": [{"name": "bug"}]}}"#)
        .line(
            "c.jsonl",
            r#"{"path": "repos/acme/repo/issues/1/events", "body": [{"id": 5, "event": "labeled", "label": {"name": "bug"}, "actor": {"login": "github-actions[bot]"}, "created_at": "2026-01-01T00:00:01Z"}]}"#,
        )
        .item("1", "acme/repo", serde_json::json!({"type": "add_labels", "number": 1, "timestamp": "2026-01-01T00:00:00Z"}));
    std::fs::write(study.runs.join("run-1/agent_output.json"), r#"{"items": [{"type": "add_labels", "labels": ["bug"], "item_number": 1}], "errors": []}"#)
        .unwrap();
    let ds = study.run(tmp.path(), "ds");
    let e = sql_json(&ds, "SELECT expected_state FROM safe_outputs");
    // A JSON column: the object itself, not its text.
    let e = &e[0]["expected_state"];
    assert_eq!((e["labels_added"].clone(), e["labels_added_source"].as_str()), (serde_json::json!(["bug"]), Some("request run-1/agent_output.json#1")));
    let o = sql_json(&ds, "SELECT outcome_status, human_check_signal, confidence FROM outcomes WHERE eval_window = 'snapshot'");
    assert_eq!(
        (o[0]["outcome_status"].as_str(), o[0]["human_check_signal"].as_str(), o[0]["confidence"].as_str()),
        (Some("accepted"), Some("labels_retained"), Some("medium"))
    );
}

/// A cluster's bands judged each from a folder holding only what an executor without the
/// dataset fetches (`BAND_READS`: the tables read whole, and of `responses` its footer, page
/// index and the row groups the band may need, holes elsewhere) give the tables a local
/// evaluate gives, byte for byte; a study whose captures span row groups has bands that
/// fetched less than all of them, and all bands together about the table once.
#[test]
fn bands_judged_from_their_fetched_share_give_the_local_tables() {
    use hindsight::evaluate::stage::{band_range, evaluate_judged, judge_partition};
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    Study::demo().tasks(fixture("tasks/study")).run(dir, "demo");
    ok(&["synth", "--quiet", "--compact", "--outputs", "20000", "--repos", "20", "--out", "synth-in"], dir);
    ok(&["convert", "--quiet", "--snapshot", "synth-in/snapshot", "--runs", "synth-in/runs", "--out", "synth"], dir);
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let settings = hindsight::evaluate::Settings::default();
    for ds in ["demo", "synth"] {
        let (source, local, banded) = (dir.join(ds), dir.join(format!("{ds}-local")), dir.join(format!("{ds}-banded")));
        for copy in [&local, &banded] {
            std::fs::create_dir_all(copy).unwrap();
            for (name, bytes) in files(&source) {
                std::fs::write(copy.join(name), bytes).unwrap();
            }
        }
        ok(&["evaluate", "--quiet", "--dataset", local.to_str().unwrap()], dir);
        let store = object_store::local::LocalFileSystem::new_with_prefix(&source).unwrap();
        let tables = hindsight::mirror::Tables { store: &store, prefix: Default::default(), shown: source.display().to_string() };
        let mut fetched = Vec::new();
        evaluate_judged(&banded, &settings, "the test's bands", 4, |staging, bands| {
            for k in 0..bands {
                let band = dir.join(format!("{ds}-band-{k}"));
                std::fs::create_dir_all(&band).unwrap();
                let range = band_range(staging, k)?;
                fetched.push(rt.block_on(hindsight::mirror::fetch_band(&tables, &band, &range)).unwrap());
                let held: Vec<String> = files(&band).into_iter().map(|(name, _)| name).collect();
                assert!(held.iter().all(|f| hindsight::evaluate::stage::BAND_READS.iter().any(|(t, _)| *f == format!("{t}.parquet"))), "{held:?}");
                judge_partition(&band, staging, k, &settings)?;
            }
            Ok(())
        })
        .unwrap();
        for name in ["outcomes.parquet", "ci_gate.parquet", "pr_risk.parquet", "manifest.json"] {
            assert!(std::fs::read(local.join(name)).unwrap() == std::fs::read(banded.join(name)).unwrap(), "{ds}: {name} differs from the local evaluate's");
        }
        if ds == "synth" {
            let responses = std::fs::metadata(source.join("responses.parquet")).unwrap().len();
            let groups = parquet::file::reader::FileReader::metadata(&parquet::file::reader::SerializedFileReader::new(std::fs::File::open(source.join("responses.parquet")).unwrap()).unwrap()).num_row_groups();
            assert!(groups > 2 && fetched.len() > 2, "{groups} row groups, {} bands: nothing to skip", fetched.len());
            assert!(fetched.iter().any(|f| *f < responses / 2), "every band fetched half the captures or more: {fetched:?} of {responses}");
            let all: u64 = fetched.iter().sum();
            // The cluster's target: its partitions together read at most 1.3x the dataset's
            // Parquet bytes (every capture at least once).
            let dataset: u64 = files(&source).iter().filter(|(n, _)| n.ends_with(".parquet")).map(|(_, b)| b.len() as u64).sum();
            assert!(all >= responses && all as f64 <= 1.3 * dataset as f64, "the bands fetched {all} bytes of a dataset of {dataset} Parquet bytes ({responses} of captures)");
        }
    }
}
