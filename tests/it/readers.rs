//! Input readers stay inside their folders and alter nothing: links out of an input and
//! non-regular files are refused, bad bytes and too-deep nesting are quarantined with their
//! reason, big integers and key order survive, wrong-shaped files are accounted for.

use std::path::Path;
use std::process::{Command, Output};

use hindsight::dataset::manifest::Manifest;
use serde_json::Value;

use crate::support::{copy_dir, fixture, ok, root, Study};

/// `run` of `study` (with `traces` where given) into `ds`, which must succeed.
fn convert(tmp: &Path, study: &Study, traces: Option<&Path>) -> Output {
    let study = match traces {
        Some(t) => study.clone().traces(t),
        None => study.clone(),
    };
    let out = study.cmd("run", &["--out", "ds"], tmp);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    out
}

fn sql(tmp: &Path, q: &str) -> Vec<Value> {
    let out = ok(&["report", "--dataset", "ds", "--sql", q, "--format", "json"], tmp);
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

/// (file, line, field, reason, raw) of a quarantined record.
type QuarantineRow = (String, Option<i64>, Option<String>, String, String);

/// Every quarantined record of `input`.
fn quarantine(tmp: &Path, input: &str) -> Vec<QuarantineRow> {
    sql(tmp, &format!("SELECT file, line, field, reason, raw FROM quarantine WHERE input = '{input}' ORDER BY file, line"))
        .iter()
        .map(|r| {
            (
                r["file"].as_str().unwrap().to_string(),
                r["line"].as_i64(),
                r["field"].as_str().map(str::to_string),
                r["reason"].as_str().unwrap().to_string(),
                r["raw"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// Input records = used + quarantined, per input, counted from the files.
fn assert_balanced(tmp: &Path) {
    let m = Manifest::load(&tmp.join("ds")).unwrap();
    for (input, r) in &m.records {
        let in_files: usize = m.inputs.iter().filter(|f| &f.input == input).map(|f| f.records).sum();
        assert_eq!(r.input, in_files, "{input}");
        assert_eq!(r.input, r.used + r.quarantined, "{input}: {r:?}");
    }
}

/// The demo's first capture line (a pull request) with its path changed: a real-looking
/// response no other line has.
fn capture_line(path: &str) -> String {
    let text = std::fs::read_to_string(fixture("demo/snapshot/capture-0001.jsonl")).unwrap();
    let mut v: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    v["path"] = Value::String(path.into());
    serde_json::to_string(&v).unwrap()
}

fn mkfifo(p: &Path) {
    let st = Command::new("mkfifo").arg(p).status().expect("mkfifo");
    assert!(st.success());
}

/// A writer for a FIFO that waits for a reader: if the program under test opened the FIFO it
/// would read `line`. `release` lets the writer finish when nothing read it.
fn fifo_writer(p: &Path, line: String) -> impl FnOnce() {
    let path = p.to_path_buf();
    let writer = std::thread::spawn({
        let path = path.clone();
        move || {
            use std::io::Write;
            let mut f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
            let _ = f.write_all(line.as_bytes());
        }
    });
    move || {
        // Opening read-write never blocks on Linux: it is the reader the writer waits for.
        let _reader = std::fs::OpenOptions::new().read(true).write(true).open(&path).unwrap();
        writer.join().unwrap();
    }
}

#[test]
fn links_leading_out_of_an_input_are_refused_and_reported() {
    let tmp = tempfile::tempdir().unwrap();
    let study = Study::demo().copy_to(tmp.path());
    let (snap, runs) = (&study.snapshot, &study.runs);
    let outside = tmp.path().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("secret.jsonl"), capture_line("repos/acme/secret/issues/1") + "\n").unwrap();
    std::fs::write(outside.join("secret.json"), "{\"password\": \"hunter2\"}").unwrap();
    std::fs::write(outside.join("items.jsonl"), "{\"type\": \"add_labels\", \"number\": 1, \"labelsAdded\": [\"leak\"]}\n").unwrap();
    std::os::unix::fs::symlink(outside.join("secret.jsonl"), snap.join("leak.jsonl")).unwrap();
    std::os::unix::fs::symlink(outside.join("secret.json"), snap.join("repos/acme/docs/pulls/99.json")).unwrap();
    std::os::unix::fs::symlink(outside.join("items.jsonl"), runs.join("run-9006/safeoutputs.jsonl")).unwrap();
    // A link that stays inside is read.
    std::os::unix::fs::symlink(snap.join("repos/acme/docs/pulls/7.json"), snap.join("repos/acme/docs/pulls/70.json")).unwrap();
    let traces = tmp.path().join("traces");
    std::fs::create_dir_all(&traces).unwrap();
    std::fs::copy(fixture("demo/traces/sessions.jsonl"), traces.join("sessions.jsonl")).unwrap();
    std::os::unix::fs::symlink(outside.join("secret.jsonl"), traces.join("leak.jsonl")).unwrap();

    let out = convert(tmp.path(), &study, Some(&traces));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let q = quarantine(tmp.path(), "snapshot");
    let refused: Vec<_> = q.iter().filter(|r| r.3.contains("outside the snapshot directory")).collect();
    assert_eq!(refused.iter().map(|r| r.0.as_str()).collect::<Vec<_>>(), ["leak.jsonl", "repos/acme/docs/pulls/99.json"], "{q:?}");
    for r in &refused {
        assert_eq!((r.1, r.4.as_str()), (None, ""), "nothing of the file is read: {r:?}");
        assert!(r.3.contains("symbolic link to") && r.3.contains("not read"), "{}", r.3);
    }
    let rq = quarantine(tmp.path(), "runs");
    assert!(rq.iter().any(|r| r.0 == "run-9006/safeoutputs.jsonl" && r.3.contains("outside the runs directory")), "{rq:?}");
    let tq = quarantine(tmp.path(), "traces");
    assert!(tq.iter().any(|r| r.0 == "leak.jsonl" && r.3.contains("outside the traces directory")), "{tq:?}");
    assert!(stderr.contains("quarantined snapshot/leak.jsonl: a symbolic link to"), "{stderr}");

    // Nothing of the outside files is in the dataset.
    assert!(sql(tmp.path(), "SELECT path FROM responses WHERE path LIKE '%secret%' OR body LIKE '%hunter2%'").is_empty());
    assert!(sql(tmp.path(), "SELECT payload FROM requests WHERE payload LIKE '%leak%'").is_empty());
    // The link inside was followed.
    assert_eq!(sql(tmp.path(), "SELECT path FROM responses WHERE path = 'repos/acme/docs/pulls/70'").len(), 1);
    // The manifest lists the refused files unread (no size, no hash), one record each.
    let m = Manifest::load(&tmp.path().join("ds")).unwrap();
    let leak = m.inputs.iter().find(|f| f.input == "snapshot" && f.path == "leak.jsonl").expect("listed");
    assert_eq!((leak.size, leak.sha256.as_str(), leak.records), (0, "", 1));
    assert_balanced(tmp.path());
}

#[test]
fn fifos_in_inputs_are_refused_not_opened() {
    let tmp = tempfile::tempdir().unwrap();
    let study = Study::demo().copy_to(tmp.path());
    let (snap, runs) = (&study.snapshot, &study.runs);
    mkfifo(&snap.join("pipe.jsonl"));
    mkfifo(&runs.join("run-9002/safeoutputs.jsonl"));
    let release_snap = fifo_writer(&snap.join("pipe.jsonl"), capture_line("repos/acme/piped/issues/1") + "\n");
    let release_runs = fifo_writer(&runs.join("run-9002/safeoutputs.jsonl"), "{\"type\": \"noop\", \"message\": \"piped\"}\n".into());
    let out = study.cmd("convert", &["--out", "ds"], tmp.path());
    release_snap();
    release_runs();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let q = quarantine(tmp.path(), "snapshot");
    assert!(q.iter().any(|r| r.0 == "pipe.jsonl" && r.3 == "a FIFO (named pipe), not a regular file: not read"), "{q:?}");
    let rq = quarantine(tmp.path(), "runs");
    assert!(rq.iter().any(|r| r.0 == "run-9002/safeoutputs.jsonl" && r.3.contains("FIFO")), "{rq:?}");
    assert!(sql(tmp.path(), "SELECT path FROM responses WHERE path LIKE '%piped%'").is_empty());
    assert!(sql(tmp.path(), "SELECT payload FROM requests WHERE payload LIKE '%piped%'").is_empty());
    assert_balanced(tmp.path());

    // A FIFO given as --traces is a clear error naming it.
    mkfifo(&tmp.path().join("t.jsonl"));
    let out = study.clone().traces("t.jsonl").cmd("convert", &["--out", "ds2"], tmp.path());
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("t.jsonl: not a directory of the expected layout: a FIFO (named pipe), not a regular file"), "{err}");
}

#[test]
fn invalid_utf8_is_quarantined_with_its_offset_not_replaced() {
    let tmp = tempfile::tempdir().unwrap();
    let study = Study::demo().copy_to(tmp.path());
    let (snap, runs) = (&study.snapshot, &study.runs);
    let good = capture_line("repos/acme/extra/issues/1");
    let bad = capture_line("repos/acme/extra/issues/2").replace("Automated change", "Automated \u{e9}change");
    // Latin-1 é where UTF-8 wants two bytes.
    let mut bytes = format!("{good}\n").into_bytes();
    let bad_at = bytes.len() + bad.find('\u{e9}').unwrap();
    bytes.extend(bad.replace('\u{e9}', "\u{1}").into_bytes().iter().map(|&b| if b == 1 { 0xE9 } else { b }));
    bytes.push(b'\n');
    std::fs::write(snap.join("latin1.jsonl"), &bytes).unwrap();
    let items = runs.join("run-9002/safe-output-items.jsonl");
    let mut items_bytes = std::fs::read(&items).unwrap();
    let runs_at = items_bytes.len() + "{\"type\": \"add_labels\", \"number\": 1, \"labelsAdded\": [\"caf".len();
    items_bytes.extend(b"{\"type\": \"add_labels\", \"number\": 1, \"labelsAdded\": [\"caf\xe9\"]}\n");
    std::fs::write(&items, items_bytes).unwrap();
    let traces = tmp.path().join("t.jsonl");
    let mut t = std::fs::read(fixture("demo/traces/sessions.jsonl")).unwrap();
    let line2 = std::fs::read_to_string(fixture("demo/traces/sessions.jsonl")).unwrap().lines().nth(1).unwrap().replacen("sess-", "s\u{1}ss-", 1);
    let first_len = t.iter().position(|&b| b == b'\n').unwrap() + 1;
    t.truncate(first_len);
    let trace_at = first_len + line2.find('\u{1}').unwrap();
    t.extend(line2.into_bytes().iter().map(|&b| if b == 1 { 0xFF } else { b }));
    t.push(b'\n');
    std::fs::write(&traces, t).unwrap();

    convert(tmp.path(), &study, Some(&traces));
    let q = quarantine(tmp.path(), "snapshot");
    let l: Vec<_> = q.iter().filter(|r| r.0 == "latin1.jsonl").collect();
    assert_eq!(l.len(), 1, "{q:?}");
    assert_eq!(l[0].1, Some(2));
    assert!(l[0].3.starts_with(&format!("invalid UTF-8 at byte offset {bad_at} of the file")), "{}", l[0].3);
    // The good line of the same file is read; the bad one is not used with U+FFFD in it.
    assert_eq!(sql(tmp.path(), "SELECT path FROM responses WHERE path LIKE 'repos/acme/extra/%'").len(), 1);
    assert!(sql(tmp.path(), "SELECT path FROM responses WHERE body LIKE '%\u{fffd}%'").is_empty());
    let rq = quarantine(tmp.path(), "runs");
    assert!(rq.iter().any(|r| r.0 == "run-9002/safe-output-items.jsonl" && r.3.contains(&format!("invalid UTF-8 at byte offset {runs_at} "))), "{rq:?}");
    assert!(sql(tmp.path(), "SELECT payload FROM safe_outputs WHERE payload LIKE '%\u{fffd}%'").is_empty());
    let tq = quarantine(tmp.path(), "traces");
    assert_eq!(tq.len(), 1, "{tq:?}");
    assert_eq!(tq[0].1, Some(2));
    assert!(tq[0].3.contains(&format!("invalid UTF-8 at byte offset {trace_at} ")), "{}", tq[0].3);
    assert_eq!(sql(tmp.path(), "SELECT trace_id FROM traces").len(), 1);
    assert_balanced(tmp.path());
}

#[test]
fn a_byte_order_mark_is_skipped_at_a_file_start_and_named_elsewhere() {
    let tmp = tempfile::tempdir().unwrap();
    let study = Study::demo().copy_to(tmp.path());
    let (snap, runs) = (&study.snapshot, &study.runs);
    let text = format!("\u{feff}{}\n\u{feff}{}\n", capture_line("repos/acme/bom/issues/1"), capture_line("repos/acme/bom/issues/2"));
    std::fs::write(snap.join("bom.jsonl"), &text).unwrap();
    let info = runs.join("run-9005/aw_info.json");
    let with_bom = format!("\u{feff}{}", std::fs::read_to_string(&info).unwrap());
    std::fs::write(&info, &with_bom).unwrap();
    convert(tmp.path(), &study, None);
    let paths = sql(tmp.path(), "SELECT path FROM responses WHERE path LIKE 'repos/acme/bom/%'");
    assert_eq!(paths.iter().map(|r| r["path"].as_str().unwrap()).collect::<Vec<_>>(), ["repos/acme/bom/issues/1"]);
    let q = quarantine(tmp.path(), "snapshot");
    assert_eq!(q.len(), 1, "{q:?}");
    assert_eq!((q[0].0.as_str(), q[0].1), ("bom.jsonl", Some(2)));
    assert!(q[0].3.starts_with("starts with a byte-order mark (U+FEFF)"), "{}", q[0].3);
    // aw_info.json with a BOM is read: the run keeps its id from it.
    let r = sql(tmp.path(), "SELECT run_id, run_id_source FROM runs WHERE run_dir = 'run-9005'");
    assert_eq!((r[0]["run_id"].as_str(), r[0]["run_id_source"].as_str()), (Some("9005"), Some("aw_info")));
    assert!(quarantine(tmp.path(), "runs").is_empty());
    // The file's hash is of its bytes as they are, BOM included.
    let m = Manifest::load(&tmp.path().join("ds")).unwrap();
    let f = m.inputs.iter().find(|f| f.path == "bom.jsonl").unwrap();
    assert_eq!(f.sha256, hindsight::json::sha256_hex(text.as_bytes()));
    assert_balanced(tmp.path());
}

fn nested(depth: usize) -> String {
    format!("{}1{}", "[".repeat(depth), "]".repeat(depth))
}

#[test]
fn nesting_deeper_than_the_parser_reads_is_quarantined_at_read_time() {
    let tmp = tempfile::tempdir().unwrap();
    let study = Study::demo().copy_to(tmp.path());
    let (snap, runs) = (&study.snapshot, &study.runs);
    // A pull request body with a field nested 127 levels (read) and one nested 130 (not).
    let pr = |n: i64, depth: usize| {
        let mut v: Value = serde_json::from_str(&capture_line(&format!("repos/acme/webapp/pulls/{n}"))).unwrap();
        v["body"]["number"] = n.into();
        let line = serde_json::to_string(&v).unwrap();
        line.replacen("{\"base\"", &format!("{{\"deep\": {}, \"base\"", nested(depth - 1)), 1)
    };
    std::fs::write(snap.join("deep.jsonl"), format!("{}\n{}\n", pr(501, 127), pr(502, 130))).unwrap();
    let items = runs.join("run-9002/safe-output-items.jsonl");
    let mut t = std::fs::read_to_string(&items).unwrap();
    t.push_str(&format!("{{\"type\": \"add_labels\", \"number\": 1, \"metadata\": {{\"x\": {}}}}}\n", nested(130)));
    std::fs::write(&items, t).unwrap();
    convert(tmp.path(), &study, None);
    let q = quarantine(tmp.path(), "snapshot");
    assert_eq!(q.len(), 1, "{q:?}");
    assert_eq!((q[0].0.as_str(), q[0].1, q[0].2.as_deref()), ("deep.jsonl", Some(2), Some("body")));
    assert_eq!(q[0].3, "nested 130 levels deep; the JSON parser reads at most 127");
    // The body at the limit is read, and its PR row is there.
    assert_eq!(sql(tmp.path(), "SELECT number FROM pull_requests WHERE repo = 'acme/webapp' AND number = 501").len(), 1);
    let rq = quarantine(tmp.path(), "runs");
    assert!(rq.iter().any(|r| r.0 == "run-9002/safe-output-items.jsonl" && r.3 == "nested 132 levels deep; the JSON parser reads at most 127"), "{rq:?}");
    assert_balanced(tmp.path());
}

#[test]
fn big_integers_and_key_order_survive_in_payloads_traces_and_attach() {
    if !crate::support::have(&[crate::support::Tool::Python]) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let study = Study::demo().copy_to(tmp.path());
    let runs = &study.runs;
    let big = "18446744073709551616";
    let item = format!(
        "{{\"type\": \"add_labels\", \"repo\": \"acme/webapp\", \"number\": 110, \"labelsAdded\": [\"x\"], \"metadata\": {{\"big\": {big}}}, \
         \"before_state\": {{\"zeta\": 1, \"alpha\": {big}}}, \"expected_state\": {{\"ref\": {big}}}}}"
    );
    let items = runs.join("run-9002/safe-output-items.jsonl");
    let mut t = std::fs::read_to_string(&items).unwrap();
    t.push_str(&item);
    t.push('\n');
    std::fs::write(&items, t).unwrap();
    std::fs::write(runs.join("run-9002/safeoutputs.jsonl"), format!("{{\"type\": \"noop\", \"zz\": {big}, \"message\": \"m\"}}\n")).unwrap();
    // A trace whose metadata names run 9002 and carries a big number, keys out of order.
    let first = std::fs::read_to_string(fixture("demo/traces/sessions.jsonl")).unwrap().lines().next().unwrap().to_string();
    let trace = first.replacen("\"metadata\":{", &format!("\"metadata\":{{\"z_big\":{big},\"a_first\":1,"), 1);
    assert_ne!(trace, first);
    std::fs::write(tmp.path().join("t.jsonl"), format!("{trace}\n")).unwrap();

    convert(tmp.path(), &study, Some(&tmp.path().join("t.jsonl")));
    let q = "SELECT payload, payload_hash, before_state, expected_state FROM safe_outputs WHERE payload LIKE '%metadata%big%'";
    let o = sql(tmp.path(), q);
    assert_eq!(o.len(), 1);
    assert_eq!(o[0]["payload"], item.as_str(), "the payload is the record's own text");
    // The states are JSON columns, printed as JSON values: read here as text, since a parser
    // would round the big number, and the digits and key order are what is checked.
    let line = ok(&["report", "--dataset", "ds", "--sql", q, "--format", "ndjson"], tmp.path());
    assert!(line.contains(&format!("\"before_state\":{{\"zeta\":1,\"alpha\":{big}}}")), "{line}");
    assert!(line.contains(&format!("\"metadata.big\":{big}")) && line.contains(&format!("\"ref\":{big}")), "{line}");
    let pretty = ok(&["report", "--dataset", "ds", "--sql", q, "--format", "json"], tmp.path());
    assert!(pretty.contains(&format!("\"zeta\": 1,\n      \"alpha\": {big}\n")), "{pretty}");
    let req = sql(tmp.path(), "SELECT payload FROM requests WHERE run_id = '9002'");
    assert_eq!(req[0]["payload"], format!("{{\"type\": \"noop\", \"zz\": {big}, \"message\": \"m\"}}").as_str());
    // The trace table keeps the record as written.
    let r = sql(tmp.path(), "SELECT record, metadata FROM traces");
    assert_eq!(r[0]["record"], trace.as_str());
    assert!(r[0]["metadata"].as_str().unwrap().contains(&format!("\"z_big\":{big}")));
    // The enriched record keeps the order and the digits, and its hash is the package's.
    let enriched = std::fs::read_to_string(tmp.path().join("ds/traces.enriched.jsonl")).unwrap();
    assert!(enriched.contains(&format!("\"metadata\":{{\"z_big\":{big},\"a_first\":1,")), "{enriched}");
    // The record's own key order (schema_version, trace_id, ...), not sorted (agent, ...).
    assert!(enriched.starts_with("{\"schema_version\":\"0.2.0\",\"trace_id\":"), "{enriched}");
    let py = root().join(".venv/bin/python");
    assert!(py.is_file(), "no .venv: run the tests with scripts/test");
    let out = Command::new(py).arg(root().join("tests/python/validate_traces.py")).arg(tmp.path().join("ds/traces.enriched.jsonl")).output().unwrap();
    assert!(out.status.success(), "{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
}

#[test]
fn wrong_shaped_agent_output_and_temporary_id_maps_are_quarantined() {
    let tmp = tempfile::tempdir().unwrap();
    let study = Study::demo().copy_to(tmp.path());
    let runs = &study.runs;
    std::fs::write(runs.join("run-9001/agent_output.json"), "[1,2,3]").unwrap();
    std::fs::write(runs.join("run-9007/agent_output.json"), "{\"items\":\"nope\"}").unwrap();
    std::fs::write(runs.join("run-9003/temporary-id-map.json"), "null").unwrap();
    std::fs::write(runs.join("run-9002/agent_output.json"), "{\"items\": [{\"type\": \"noop\", \"message\": \"m\"}, 7], \"errors\": []}").unwrap();
    std::fs::write(runs.join("run-9005/temporary-id-map.json"), "[1,2,3]").unwrap();
    convert(tmp.path(), &study, None);
    let q = quarantine(tmp.path(), "runs");
    let got: Vec<(&str, Option<&str>, &str)> = q.iter().map(|r| (r.0.as_str(), r.2.as_deref(), r.3.as_str())).collect();
    assert_eq!(
        got,
        [
            ("run-9001/agent_output.json", None, "expected an object with `items` and `errors`, found an array"),
            ("run-9002/agent_output.json", Some("items[1]"), "expected a request object, found a number"),
            ("run-9003/temporary-id-map.json", None, "expected an object of temporary ids, found null"),
            ("run-9005/temporary-id-map.json", None, "expected an object of temporary ids, found an array"),
            ("run-9007/agent_output.json", Some("items"), "expected an array, found a string"),
        ]
    );
    assert_eq!(q[0].4, "[1,2,3]");
    assert_balanced(tmp.path());
}

#[test]
fn a_normalized_record_naming_another_run_never_duplicates_ids() {
    let tmp = tempfile::tempdir().unwrap();
    let study = Study::demo().copy_to(tmp.path());
    let runs = &study.runs;
    // A second directory whose normalized records name run 9006, under its own run id.
    copy_dir(&runs.join("run-9006"), &runs.join("run-9106"));
    std::fs::write(runs.join("run-9106/aw_info.json"), "{\"run_id\": 9106, \"workflow_name\": \"docs-bot\", \"repository\": \"acme/docs\"}").unwrap();
    convert(tmp.path(), &study, None);
    let dup = sql(tmp.path(), "SELECT safe_output_id, COUNT(*) AS n FROM safe_outputs GROUP BY safe_output_id HAVING COUNT(*) > 1");
    assert!(dup.is_empty(), "{dup:?}");
    let q = quarantine(tmp.path(), "runs");
    assert_eq!(q.len(), 2, "{q:?}");
    for r in &q {
        assert_eq!((r.0.as_str(), r.2.as_deref()), ("run-9106/safe-outputs.jsonl", Some("run_id")));
        assert!(r.3.starts_with("names run 9006, but the record is in the run directory of run 9106"), "{}", r.3);
    }
    assert_balanced(tmp.path());

    // Without a run id in aw_info.json, the records name the run; two directories naming one
    // run are refused as two directories claiming one run id are.
    std::fs::remove_file(runs.join("run-9106/aw_info.json")).unwrap();
    let out = study.cmd("convert", &["--out", "ds2"], tmp.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("run id 9006 is also claimed by run directory"), "{}", String::from_utf8_lossy(&out.stderr));
}

/// Issue 39, item 3 ([SPEC-SIGNAL], [SPEC-RECORDS]): the target's node id, the patch hash and the base and
/// head refs reach `safe_outputs` from where a run records them, NULL where it does not.
/// Shapes: the normalized record of [SPEC-RECORDS] (`target_node_id`, `payload_hash`; refs and
/// branch in `expected_state`, as the demo's run 9006 keeps its branch); gh-aw's newer
/// manifest line as `safe_output_manifest.cjs` writes it for create_pull_request (`provider`,
/// `target: {provider, repository, number}`: no node id, hash or refs); `metadata.base` and
/// `metadata.branch` as the demo's run 9001 keeps them; push_to_pull_request_branch's
/// `branch` (the branch pushed from) is not a head ref.
#[test]
fn code_change_references_are_read_where_recorded_and_never_derived() {
    let tmp = tempfile::tempdir().unwrap();
    let study = Study::demo().copy_to(tmp.path());
    let runs = &study.runs;
    let write = |dir: &str, file: &str, lines: &[Value]| {
        let d = runs.join(dir);
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join(file), lines.iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
    };
    write("run-7701", "aw_info.json", &[serde_json::json!({"run_id": 7701, "repository": "acme/webapp", "workflow_name": "wf"})]);
    write(
        "run-7701",
        "safe-outputs.jsonl",
        &[
            serde_json::json!({"type": "create_pull_request", "run_id": "7701", "repo": "acme/webapp", "target_number": 140, "target_node_id": "PR_kwDOAcme140",
                "patch_hash": "sha256:5f0c", "created_at": "2026-01-20T00:00:00Z", "expected_state": {"branch": "agent/x", "base_ref": "main"}}),
            serde_json::json!({"type": "create_issue", "run_id": "7701", "repo": "acme/webapp", "target_number": 141, "created_at": "2026-01-20T00:00:00Z"}),
            serde_json::json!({"type": "create_pull_request", "run_id": "7701", "repo": "acme/webapp", "target_number": 142, "patch_hash": 5}),
        ],
    );
    write("run-7702", "aw_info.json", &[serde_json::json!({"run_id": 7702, "repository": "acme/webapp", "workflow_name": "wf"})]);
    write(
        "run-7702",
        "safe-output-items.jsonl",
        &[
            serde_json::json!({"type": "create_pull_request", "url": "https://github.com/acme/webapp/pull/143", "number": 143, "repo": "acme/webapp", "provider": "github",
                "target": {"provider": "github", "repository": "acme/webapp", "number": 143}, "timestamp": "2026-01-20T00:00:00Z"}),
            serde_json::json!({"type": "create_pull_request", "number": 144, "metadata": {"base": "main", "branch": "agent/fix"}, "timestamp": "2026-01-20T00:00:00Z"}),
            serde_json::json!({"type": "push_to_pull_request_branch", "number": 145, "metadata": {"branch": "feature/145", "commit_sha": "c145"}, "timestamp": "2026-01-20T00:00:00Z"}),
            serde_json::json!({"type": "add_labels", "target": {"provider": "github", "repository": "acme/api", "number": 9, "node_id": "I_kwDOApi9"}, "labelsAdded": ["bug"], "timestamp": "2026-01-20T00:00:00Z"}),
        ],
    );
    convert(tmp.path(), &study, None);
    let rows = sql(
        tmp.path(),
        "SELECT safe_output_id, target_repo, target_node_id, patch_hash, base_ref, head_ref FROM safe_outputs WHERE run_id IN ('7701', '7702') ORDER BY safe_output_id",
    );
    let got: Vec<Vec<Option<&str>>> = rows
        .iter()
        .map(|r| ["safe_output_id", "target_repo", "target_node_id", "patch_hash", "base_ref", "head_ref"].iter().map(|c| r[*c].as_str()).collect())
        .collect();
    assert_eq!(
        got,
        vec![
            vec![Some("7701:0"), Some("acme/webapp"), Some("PR_kwDOAcme140"), Some("sha256:5f0c"), Some("main"), Some("agent/x")],
            vec![Some("7701:1"), Some("acme/webapp"), None, None, None, None],
            vec![Some("7702:0"), Some("acme/webapp"), None, None, None, None],
            vec![Some("7702:1"), Some("acme/webapp"), None, None, Some("main"), Some("agent/fix")],
            vec![Some("7702:2"), Some("acme/webapp"), None, None, None, None],
            vec![Some("7702:3"), Some("acme/api"), Some("I_kwDOApi9"), None, None, None],
        ]
    );
    // A patch_hash that is not a string: the line is quarantined, naming the field.
    let q: Vec<(Option<i64>, Option<String>)> = quarantine(tmp.path(), "runs").into_iter().map(|(_, line, field, _, _)| (line, field)).collect();
    assert_eq!(q, [(Some(3), Some("patch_hash".to_string()))]);
    // The demo's own create_pull_request with metadata base and branch (run 9001).
    let demo = sql(tmp.path(), "SELECT base_ref, head_ref FROM safe_outputs WHERE safe_output_id = '9001:0'");
    assert_eq!((demo[0]["base_ref"].as_str(), demo[0]["head_ref"].as_str()), (Some("main"), Some("agent/fix-null")));
    assert_balanced(tmp.path());
}

/// schemas/runs.md says where every `safe_outputs` column comes from.
#[test]
fn runs_schema_names_every_safe_outputs_column() {
    let doc = std::fs::read_to_string(root().join("schemas/runs.md")).unwrap();
    let t = hindsight::runs::tables::safe_outputs(&[]);
    for f in t.arrow_schema().fields() {
        assert!(doc.contains(&format!("| `{}` |", f.name())), "schemas/runs.md lacks safe_outputs.{}", f.name());
    }
}

/// A run GitHub recorded as cancelled (`run.json`, as `gh aw logs` keeps it) with no record
/// of executed items: its requests are skipped with the run's conclusion, never unknown;
/// the same run without `run.json` stays unrecorded, and `run.json` is an input record.
#[test]
fn requests_of_a_cancelled_run_are_skipped() {
    let tmp = tempfile::tempdir().unwrap();
    let study = Study::demo().copy_to(tmp.path());
    let runs = &study.runs;
    for (id, conclusion) in [(9201, Some("cancelled")), (9202, None), (9203, Some("success"))] {
        let dir = runs.join(format!("run-{id}"));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("aw_info.json"), format!("{{\"run_id\": {id}, \"workflow_name\": \"triage\", \"repository\": \"acme/webapp\"}}")).unwrap();
        std::fs::write(dir.join("agent_output.json"), "{\"items\": [{\"type\": \"create_issue\", \"title\": \"x\"}], \"errors\": []}").unwrap();
        if let Some(c) = conclusion {
            std::fs::write(dir.join("run.json"), format!("{{\"id\": {id}, \"status\": \"completed\", \"conclusion\": \"{c}\"}}")).unwrap();
        }
    }
    convert(tmp.path(), &study, None);
    let got = sql(
        tmp.path(),
        "SELECT s.run_id, s.execution, o.outcome_status, o.rule_id FROM safe_outputs s JOIN outcomes o USING (safe_output_id) \
         WHERE s.run_id IN ('9201', '9202', '9203') AND o.eval_window = 'snapshot' ORDER BY s.run_id",
    );
    let rows: Vec<(&str, &str, &str, &str)> =
        got.iter().map(|r| (r["run_id"].as_str().unwrap(), r["execution"].as_str().unwrap(), r["outcome_status"].as_str().unwrap(), r["rule_id"].as_str().unwrap())).collect();
    assert_eq!(
        rows,
        [
            ("9201", "cancelled", "skipped", "common/run_cancelled"),
            ("9202", "unrecorded", "unknown", "common/execution_unrecorded"),
            ("9203", "unrecorded", "unknown", "common/execution_unrecorded"),
        ]
    );
    assert_balanced(tmp.path());
}

/// A target number below 1 names no issue or PR: the record is refused naming the field,
/// as the run's quarantine then keeps it, not judged as a target gone.
#[test]
fn a_target_number_below_one_is_refused() {
    use hindsight::runs::item::{self, RunContext};
    let ctx = RunContext { run_id: "1".into(), workflow_name: None, repository: Some("o/r".into()), actor: None, staged: false, temp_ids: Default::default() };
    for (record, field) in [
        (serde_json::json!({"type": "add_labels", "number": -1}), "number"),
        (serde_json::json!({"type": "add_labels", "target": "o/r#0"}), "target"),
        (serde_json::json!({"type": "add_labels", "target": {"number": -3}}), "target"),
    ] {
        let got = item::from_record(&ctx, &record, 0, item::Format::GhAw, "f.jsonl", 1);
        let err = got.err().unwrap_or_else(|| panic!("{record} accepted"));
        assert_eq!(err.0, field, "{record}");
        assert!(err.1.contains("1 or more"), "{record}: {}", err.1);
    }
    assert!(item::from_record(&ctx, &serde_json::json!({"type": "add_labels", "number": 1}), 0, item::Format::GhAw, "f.jsonl", 1).is_ok());
}
