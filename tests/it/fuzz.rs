//! Property-based tests of the readers: the demo fixtures' real lines, mutated (truncated,
//! bytes flipped, invalid UTF-8, a BOM, deep nesting, huge numbers, wrong types, lines of a
//! few MB, garbage). Whatever the input, a reader must not panic, and every record it
//! counts is either used or quarantined.
//!
//! The runners are seeded explicitly, so every run (and CI) tries the same cases; failures
//! are not persisted into the repository.

use std::path::{Path, PathBuf};

use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestRng, TestRunner};

use crate::support::{copy_dir, fixture};
use hindsight::pipeline::{self, Study};
use hindsight::progress::Progress;

/// A runner with a fixed seed and no failure files.
fn runner(cases: u32, seed: u8) -> TestRunner {
    let config = Config { cases, failure_persistence: None, max_shrink_iters: 256, ..Config::default() };
    TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &[seed; 32]))
}

/// One change to one line (for a whole-file JSON input, to the whole file).
#[derive(Clone, Debug)]
enum Mutation {
    /// Keep the first `n % (len + 1)` bytes.
    Truncate(usize),
    /// XOR one byte (it may become a line end, splitting the line).
    FlipByte(usize, u8),
    /// Insert a byte sequence that is not UTF-8.
    InvalidUtf8(usize, usize),
    /// A UTF-8 byte order mark before the line.
    Bom,
    /// Replace one JSON value with arrays and objects nested this deep.
    DeepNesting(usize, usize),
    /// Replace one JSON value with a number no integer or float type holds.
    HugeNumber(usize, usize),
    /// Replace one JSON value with a value of another type.
    WrongType(usize, usize),
    /// Replace one JSON value with a string of this many MB.
    Enormous(usize, usize),
    /// A line that is blank, white space, or ends in a carriage return.
    Blank(usize),
    /// Random bytes instead of the line.
    Garbage(Vec<u8>),
}

const NOT_UTF8: &[&[u8]] = &[b"\xff", b"\xc3", b"\x80", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xe2\x82"];
const HUGE: &[&str] = &[
    "1e400",
    "-1e400",
    "18446744073709551616",
    "-9223372036854775809",
    "123456789012345678901234567890123456789",
    "9223372036854775807",
    "-9223372036854775808",
    "1.7976931348623157e308",
    "4.9e-324",
    "-0",
];
const OTHER_TYPE: &[&str] = &[
    "null",
    "[]",
    "{}",
    "true",
    "\"\"",
    "-1",
    "0",
    "\"not a time\"",
    "\"9999-99-99T99:99:99Z\"",
    "\"+275760-09-13T00:00:00Z\"",
    "[null, 1, \"x\", {}]",
    "\"\\u0000\\ud800\"",
    "\"é\u{1F600}\u{200B}\"",
];
const DEPTHS: &[usize] = &[64, 127, 128, 129, 1000, 100_000];

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        3 => any::<usize>().prop_map(Mutation::Truncate),
        3 => (any::<usize>(), 1u8..=255).prop_map(|(i, x)| Mutation::FlipByte(i, x)),
        2 => (any::<usize>(), 0..NOT_UTF8.len()).prop_map(|(i, k)| Mutation::InvalidUtf8(i, k)),
        1 => Just(Mutation::Bom),
        2 => (any::<usize>(), 0..DEPTHS.len()).prop_map(|(i, d)| Mutation::DeepNesting(i, DEPTHS[d])),
        3 => (any::<usize>(), 0..HUGE.len()).prop_map(|(i, k)| Mutation::HugeNumber(i, k)),
        4 => (any::<usize>(), 0..OTHER_TYPE.len()).prop_map(|(i, k)| Mutation::WrongType(i, k)),
        // A few MB at most: enough to cross buffers, cheap enough for a debug build.
        1 => (any::<usize>(), 1usize..=3).prop_map(|(i, mb)| Mutation::Enormous(i, mb)),
        1 => (0usize..4).prop_map(Mutation::Blank),
        1 => proptest::collection::vec(any::<u8>(), 0..300).prop_map(Mutation::Garbage),
    ]
}

/// JSON pointers to every value below the root.
fn pointers(v: &serde_json::Value, at: String, out: &mut Vec<String>) {
    match v {
        serde_json::Value::Object(m) => {
            for (k, x) in m {
                let p = format!("{at}/{}", k.replace('~', "~0").replace('/', "~1"));
                out.push(p.clone());
                pointers(x, p, out);
            }
        }
        serde_json::Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                let p = format!("{at}/{i}");
                out.push(p.clone());
                pointers(x, p, out);
            }
        }
        _ => {}
    }
}

/// The line with its `pick`-th value replaced by the JSON text `with` (or, if the line is
/// not JSON with a value to replace, the text appended).
fn replace_value(line: &[u8], pick: usize, with: &str) -> Vec<u8> {
    const MARK: &str = "@@hindsight-fuzz@@";
    let Ok(mut v) = serde_json::from_slice::<serde_json::Value>(line) else {
        return [line, with.as_bytes()].concat();
    };
    let mut ptrs = Vec::new();
    pointers(&v, String::new(), &mut ptrs);
    let Some(p) = ptrs.get(pick % ptrs.len().max(1)) else {
        return with.as_bytes().to_vec();
    };
    if let Some(slot) = v.pointer_mut(p) {
        *slot = serde_json::Value::String(MARK.into());
    }
    let keep_layout = line.contains(&b'\n');
    let text = if keep_layout { serde_json::to_string_pretty(&v) } else { serde_json::to_string(&v) }.unwrap();
    text.replacen(&format!("\"{MARK}\""), with, 1).into_bytes()
}

fn apply(line: &[u8], m: &Mutation) -> Vec<u8> {
    let len = line.len();
    match m {
        Mutation::Truncate(n) => line[..n % (len + 1)].to_vec(),
        Mutation::FlipByte(i, x) => {
            let mut b = line.to_vec();
            if let Some(c) = b.get_mut(i % len.max(1)) {
                *c ^= x;
            }
            b
        }
        Mutation::InvalidUtf8(i, k) => {
            let at = i % (len + 1);
            [&line[..at], NOT_UTF8[*k], &line[at..]].concat()
        }
        Mutation::Bom => [b"\xef\xbb\xbf", line].concat(),
        Mutation::DeepNesting(i, depth) => {
            let open: String = (0..*depth).map(|d| if d % 2 == 0 { "[" } else { "{\"k\":" }).collect();
            let close: String = (0..*depth).rev().map(|d| if d % 2 == 0 { ']' } else { '}' }).collect();
            replace_value(line, *i, &format!("{open}1{close}"))
        }
        Mutation::HugeNumber(i, k) => replace_value(line, *i, HUGE[*k]),
        Mutation::WrongType(i, k) => replace_value(line, *i, OTHER_TYPE[*k]),
        Mutation::Enormous(i, mb) => replace_value(line, *i, &format!("\"{}\"", "é \\\" x".repeat(mb * (1 << 20) / 8))),
        Mutation::Blank(k) => match k {
            0 => Vec::new(),
            1 => b"  \t ".to_vec(),
            2 => [line, b"\r"].concat(),
            _ => b"\r".to_vec(),
        },
        Mutation::Garbage(bytes) => bytes.clone(),
    }
}

/// Mutations of a JSONL file: (line index, mutation) pairs, and whether the file ends
/// without a final line end.
fn file_mutations(most: usize) -> impl Strategy<Value = (Vec<(usize, Mutation)>, bool)> {
    (proptest::collection::vec((any::<usize>(), mutation()), 1..=most), proptest::bool::weighted(0.2))
}

fn mutate_jsonl(original: &[u8], edits: &[(usize, Mutation)], drop_final_newline: bool) -> Vec<u8> {
    let mut lines: Vec<Vec<u8>> = original.split(|&b| b == b'\n').map(<[u8]>::to_vec).collect();
    if lines.last().is_some_and(Vec::is_empty) {
        lines.pop();
    }
    if lines.is_empty() {
        lines.push(Vec::new());
    }
    for (i, m) in edits {
        let n = lines.len();
        let at = i % n;
        lines[at] = apply(&lines[at], m);
    }
    let mut out = lines.join(&b'\n');
    if !drop_final_newline {
        out.push(b'\n');
    }
    out
}

fn read(p: &Path) -> Vec<u8> {
    std::fs::read(p).unwrap()
}

fn check(ok: bool, what: String) -> Result<(), TestCaseError> {
    if ok {
        Ok(())
    } else {
        Err(TestCaseError::fail(what))
    }
}

/// Snapshot cassette lines (and the tree files beside them), through the scan, the merge
/// and the tables convert builds from the captures.
#[test]
fn snapshot_reader_survives_mutated_lines() {
    let demo = fixture("demo/snapshot");
    let cassette = read(&demo.join("capture-0001.jsonl"));
    let tree_file = demo.join("repos/acme/docs/pulls/7.json");
    let tree = read(&tree_file);
    // Scanning a cassette costs most of a case in a debug build: several edits per case.
    let strategy = (file_mutations(6), proptest::option::weighted(0.15, mutation()), proptest::bool::weighted(0.2));
    runner(100, 1)
        .run(&strategy, |((edits, no_final_newline), tree_edit, spill)| {
            let tmp = tempfile::tempdir().unwrap();
            let snap = tmp.path().join("snapshot");
            copy_dir(&demo, &snap);
            std::fs::write(snap.join("capture-0001.jsonl"), mutate_jsonl(&cassette, &edits, no_final_newline)).unwrap();
            if let Some(m) = &tree_edit {
                std::fs::write(snap.join("repos/acme/docs/pulls/7.json"), apply(&tree, m)).unwrap();
            }
            // A tiny budget spills every few captures to disk, which must change nothing.
            let budget = if spill { 4 << 10 } else { 64 << 20 };
            let scan = hindsight::snapshot::scan(&snap, &tmp.path().join("spill"), budget).map_err(|e| TestCaseError::fail(format!("scan failed: {e}")))?;
            let records: usize = scan.files.iter().map(|f| f.records).sum();
            let mut merge = scan.runs.merge().map_err(|e| TestCaseError::fail(format!("merge failed: {e}")))?;
            let mut used = 0;
            loop {
                let batch = merge.next_batch(1 << 20).map_err(|e| TestCaseError::fail(format!("merge failed: {e}")))?;
                if batch.is_empty() {
                    break;
                }
                // Every capture is used or superseded by a later copy of its path.
                used += batch.len();
                hindsight::snapshot::tables::responses_batch(&batch).map_err(|e| TestCaseError::fail(format!("responses: {e}")))?;
                let current: Vec<_> = batch.iter().filter(|c| c.superseded_by.is_none()).cloned().collect();
                for t in hindsight::snapshot::tables::typed(&current) {
                    t.to_batch().map_err(|e| TestCaseError::fail(format!("{}: {e}", t.name)))?;
                }
            }
            let quarantined = scan.quarantined.len();
            check(records == used + quarantined, format!("snapshot: {records} records read != {used} used or superseded + {quarantined} quarantined"))
        })
        .unwrap();
}

/// The runs files the readers take records from, relative to fixtures/demo/runs.
const RUN_FILES: &[&str] = &[
    "run-9001/safe-output-items.jsonl",
    "run-9002/safe-output-items.jsonl",
    "run-9003/safe-output-items.jsonl",
    "run-9004/safe-output-items.jsonl",
    "run-9008/safe-output-items.jsonl",
    "run-9006/safe-outputs.jsonl",
    "run-9004/safeoutputs.jsonl",
    "run-9001/agent_output.json",
    "run-9003/agent_output.json",
    "run-9007/agent_output.json",
];

/// Write the demo runs with one file mutated (a JSON document as a whole, JSONL by line).
fn mutated_runs(dir: &Path, file: &str, edits: &[(usize, Mutation)], no_final_newline: bool) {
    copy_dir(&fixture("demo/runs"), dir);
    let p = dir.join(file);
    let original = read(&p);
    let bytes = if file.ends_with(".jsonl") { mutate_jsonl(&original, edits, no_final_newline) } else { edits.iter().fold(original, |b, (_, m)| apply(&b, m)) };
    std::fs::write(p, bytes).unwrap();
}

/// Runs: safe-output-items.jsonl, agent_output.json, safe-outputs.jsonl and the request log.
#[test]
fn runs_reader_survives_mutated_lines() {
    let strategy = (0..RUN_FILES.len(), file_mutations(3));
    runner(250, 2)
        .run(&strategy, |(f, (edits, no_final_newline))| {
            let tmp = tempfile::tempdir().unwrap();
            let dir = tmp.path().join("runs");
            mutated_runs(&dir, RUN_FILES[f], &edits, no_final_newline);
            let r = hindsight::runs::read(&dir).map_err(|e| TestCaseError::fail(format!("{}: read failed: {e}", RUN_FILES[f])))?;
            let records: usize = r.files.iter().map(|f| f.records).sum();
            let quarantined = r.quarantined.iter().filter(|q| q.input == "runs").count();
            check(records == r.used + quarantined, format!("{}: {records} records read != {} used + {quarantined} quarantined", RUN_FILES[f], r.used))
        })
        .unwrap();
}

/// opentraces JSONL.
#[test]
fn traces_reader_survives_mutated_lines() {
    let original = read(&fixture("demo/traces/sessions.jsonl"));
    runner(300, 3)
        .run(&file_mutations(3), |(edits, no_final_newline)| {
            let tmp = tempfile::tempdir().unwrap();
            let p = tmp.path().join("sessions.jsonl");
            std::fs::write(&p, mutate_jsonl(&original, &edits, no_final_newline)).unwrap();
            let t = hindsight::traces::read(&[p]).map_err(|e| TestCaseError::fail(format!("read failed: {e}")))?;
            let records: usize = t.files.iter().map(|f| f.records).sum();
            let (used, quarantined) = (t.records.len(), t.quarantined.len());
            // Every kept record goes into the tables.
            for table in hindsight::traces::tables(&t.records) {
                table.to_batch().map_err(|e| TestCaseError::fail(format!("{}: {e}", table.name)))?;
            }
            check(records == used + quarantined, format!("traces: {records} records read != {used} used + {quarantined} quarantined"))
        })
        .unwrap();
}

#[derive(Clone, Copy, Debug)]
enum Target {
    Snapshot,
    Runs(usize),
    Traces,
}

/// The whole study, one input mutated, through convert and evaluate: the counts convert
/// reports (and writes into manifest.json) add up for every input.
#[test]
fn convert_and_evaluate_survive_a_mutated_input() {
    let target = prop_oneof![Just(Target::Snapshot), (0..RUN_FILES.len()).prop_map(Target::Runs), Just(Target::Traces)];
    runner(30, 4)
        .run(&(target, file_mutations(3)), |(target, (edits, no_final_newline))| {
            let tmp = tempfile::tempdir().unwrap();
            let study = Study {
                snapshot: tmp.path().join("snapshot"),
                runs: tmp.path().join("runs"),
                traces: vec![tmp.path().join("traces")],
                tasks: None,
                task_policy: None,
            };
            copy_dir(&fixture("demo/snapshot"), &study.snapshot);
            copy_dir(&fixture("demo/traces"), &study.traces[0]);
            let mutate = |p: PathBuf| std::fs::write(&p, mutate_jsonl(&read(&p), &edits, no_final_newline)).unwrap();
            match target {
                Target::Snapshot => mutate(study.snapshot.join("capture-0001.jsonl")),
                Target::Traces => mutate(study.traces[0].join("sessions.jsonl")),
                Target::Runs(f) => mutated_runs(&study.runs, RUN_FILES[f], &edits, no_final_newline),
            }
            if !study.runs.exists() {
                copy_dir(&fixture("demo/runs"), &study.runs);
            }
            let out = tmp.path().join("ds");
            let c = pipeline::run(&study, &out, &Default::default(), &Default::default(), &Progress::hidden())
                .map_err(|e| TestCaseError::fail(format!("{target:?}: run failed: {e}")))?;
            for (input, r) in &c.records {
                check(
                    r.input == r.used + r.quarantined + r.superseded,
                    format!("{target:?}: {input}: {} read != {} used + {} quarantined + {} superseded", r.input, r.used, r.quarantined, r.superseded),
                )?;
            }
            Ok(())
        })
        .unwrap();
}

/// Fields a `prs.csv` record may hold: valid values, values the reader must refuse (a sign,
/// white space, a second of 60, a negative id, a repository that is not OWNER/NAME), and
/// CSV's own characters (commas, quotes, line ends), so rows collide, shift and run on.
const AIDEV_FIELDS: &[&str] = &[
    "1",
    "2",
    "3.0",
    "+1",
    " 2 ",
    "-3",
    "1e3",
    "99999999999999999999",
    "",
    "2025-06-01T00:00:00Z",
    "2025-06-01T01:41:60Z",
    " 2025-06-01T00:00:00Z",
    "2025-06-01T00:00:00+02:00",
    "https://api.github.com/repos/o/r",
    "https://api.github.com/repos/O/R",
    "https://api.github.com/repos/../..",
    "https://github.com/o/r/pull/1",
    "https://github.com/../../pull/2",
    "closed",
    "\"quoted, with a comma\"",
    "\"a \"\"doubled\"\" quote\"",
    "\"multi\r\nline\"",
    "\"unclosed",
    "mid\"quote",
    "\u{feff}bom",
    "\u{2028}",
];

/// A `prs.csv`: arbitrary bytes, or a header (sometimes damaged) and records of fields
/// from `AIDEV_FIELDS` or arbitrary text, each with any number of fields.
fn aidev_prs() -> impl Strategy<Value = Vec<u8>> {
    let header = prop_oneof![
        4 => Just("id,number,title,user,user_id,state,created_at,closed_at,merged_at,repo_url,html_url,body".to_string()),
        1 => Just("id,number,title,user,user_id,state,created_at,closed_at,merged_at,repo_url,html_url,body,body".to_string()),
        1 => Just("id,title".to_string()),
        1 => Just(String::new()),
        1 => Just("\"id,number".to_string()),
    ];
    let field = prop_oneof![
        6 => (0..AIDEV_FIELDS.len()).prop_map(|i| AIDEV_FIELDS[i].to_string()),
        1 => ".{0,12}",
    ];
    // Mostly records of the header's shape with valid values from a few PRs, so that rows
    // are used and their identities collide; sometimes any fields at all.
    const VALID: [&[&str]; 12] = [
        &["1", "2", "3"],
        &["1", "2", "2.0"],
        &["t"],
        &["alice"],
        &["11"],
        &["closed", "open"],
        &["2025-06-01T00:00:00Z"],
        &["", "2025-06-01T05:00:00Z"],
        &["", "2025-06-01T05:00:00Z"],
        &["https://api.github.com/repos/o/r", "https://api.github.com/repos/O/R", "https://github.com/o/s", ""],
        &["https://github.com/o/r/pull/1", ""],
        &["body", "\"a, body\""],
    ];
    let shaped = proptest::collection::vec((any::<usize>(), proptest::option::weighted(0.1, field.clone())), 12).prop_map(|picks| {
        picks.iter().enumerate().map(|(c, (i, other))| other.clone().unwrap_or_else(|| VALID[c][i % VALID[c].len()].to_string())).collect::<Vec<_>>().join(",")
    });
    let record = prop_oneof![3 => shaped, 1 => proptest::collection::vec(field, 0..=14).prop_map(|f| f.join(","))];
    let ending = prop_oneof![Just("\n"), Just("\r\n"), Just("")];
    let structured = (header, proptest::collection::vec(record, 0..8), ending, proptest::bool::ANY).prop_map(|(h, records, end, bom)| {
        let mut text = if bom { "\u{feff}".to_string() } else { String::new() };
        text.push_str(&h);
        for r in records {
            text.push('\n');
            text.push_str(&r);
        }
        text.push_str(end);
        text.into_bytes()
    });
    prop_oneof![4 => structured, 1 => proptest::collection::vec(any::<u8>(), 0..600)]
}

/// The AIDev reader on arbitrary `prs.csv` files in two agents' folders (so PR identities
/// collide across them too): it never panics or fails, every record it counts is a row of
/// its table or quarantined, and the study builds from what it kept.
#[test]
fn aidev_reader_survives_arbitrary_prs_files() {
    runner(300, 5)
        .run(&(aidev_prs(), aidev_prs()), |(claude, copilot)| {
            let tmp = tempfile::tempdir().unwrap();
            for (agent, bytes) in [("Claude_Code", &claude), ("Copilot", &copilot)] {
                std::fs::create_dir_all(tmp.path().join(agent)).unwrap();
                std::fs::write(tmp.path().join(agent).join("prs.csv"), bytes).unwrap();
            }
            let r = hindsight::aidev::read(tmp.path(), &Default::default()).map_err(|e| TestCaseError::fail(format!("read failed: {e}")))?;
            for f in &r.files {
                let (agent, _) = f.path.split_once('/').unwrap();
                let rows = r.of(agent, "prs.csv").map_or(0, |t| t.rows.len());
                let quarantined = r.quarantined.iter().filter(|q| q.file == f.path).count();
                check(f.records == rows + quarantined, format!("{}: {} records != {rows} rows + {quarantined} quarantined", f.path, f.records))?;
            }
            let table_rows: usize = hindsight::aidev::tables(&r).iter().map(|t| t.len()).sum();
            check(r.records == table_rows + r.quarantined.len(), format!("{} records != {table_rows} rows + {} quarantined", r.records, r.quarantined.len()))?;
            check(r.used == table_rows, format!("{} used != {table_rows} rows", r.used))?;
            for t in hindsight::aidev::tables(&r) {
                t.to_batch().map_err(|e| TestCaseError::fail(format!("{}: {e}", t.name)))?;
            }
            let mut sink = hindsight::snapshot::spill::Runs::new(&tmp.path().join(".spill"), 1 << 20);
            let mut outputs = Vec::new();
            hindsight::aidev::study::build(&r, None, &mut sink, &mut outputs).map_err(|e| TestCaseError::fail(format!("study failed: {e}")))?;
            // No two PRs kept share a repository and number (their captures' paths): none is
            // judged by another's record.
            let mut claims: std::collections::HashMap<(String, i64), &str> = std::collections::HashMap::new();
            for o in &outputs {
                if let (Some(repo), Some(n)) = (&o.target_repo, o.target_number) {
                    let id: &str = &o.safe_output_id;
                    if let Some(other) = claims.insert((repo.to_lowercase(), n), id) {
                        check(other == id, format!("{other} and {id} both claim {repo}#{n}"))?;
                    }
                }
            }
            Ok(())
        })
        .unwrap();
}
