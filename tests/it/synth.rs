//! `synth`'s bodies: real-shaped by default (the keys GitHub's REST API sends, as the
//! recorded bodies in fixtures/real/bodies/ have them), compact with `--compact` (the bytes
//! synth wrote before real shapes), and judged alike either way.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde_json::Value;

use crate::support::{fixture, ok};

const SMALL: [&str; 6] = ["--repos", "6", "--outputs", "300", "--seed", "4"];

fn synth(dir: &Path, out: &str, extra: &[&str]) {
    let mut args = vec!["synth", "--quiet", "--out", out];
    args.extend_from_slice(&SMALL);
    args.extend_from_slice(extra);
    ok(&args, dir);
}

/// Every file under `dir`, by its path relative to `dir`.
fn tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.insert(p.strip_prefix(dir).unwrap().to_string_lossy().replace('\\', "/"), std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

/// `synth --compact` writes what synth wrote before it wrote real-shaped bodies: the digest
/// below is of that study (every file but snapshot.json, as `path NUL bytes NUL` in path
/// order), taken with the binary of commit 17963c3. Only the source line learnt `--compact`.
#[test]
fn synth_compact_writes_the_bytes_of_before_real_shapes() {
    const BEFORE: &str = "f848314bd68c45b4e5719bb85420dc7a6ce72118cc4286fdeb8d92d5c46b75a4";
    let tmp = tempfile::tempdir().unwrap();
    synth(tmp.path(), "c", &["--compact"]);
    synth(tmp.path(), "r", &[]);
    let files = tree(&tmp.path().join("c"));
    let mut all = Vec::new();
    for (path, bytes) in files.iter().filter(|(p, _)| p.as_str() != "snapshot/snapshot.json") {
        all.extend_from_slice(path.as_bytes());
        all.push(0);
        all.extend_from_slice(bytes);
        all.push(0);
    }
    assert_eq!(hindsight::json::sha256_hex(&all), BEFORE, "synth --compact no longer writes the bytes it wrote before");
    let source = |d: &str| {
        let info: Value = serde_json::from_slice(&std::fs::read(tmp.path().join(d).join("snapshot/snapshot.json")).unwrap()).unwrap();
        info["source"].as_str().unwrap().to_string()
    };
    let plain = format!("hindsight synth {}", SMALL.join(" "));
    assert_eq!(source("c"), format!("{plain} --compact"));
    assert_eq!(source("r"), plain);
}

/// The same seed with and without `--compact`: the same outcomes, row for row and column
/// for column. The keys real bodies add are ones the evaluator does not read, or read with
/// the value the compact body implies.
#[test]
fn synth_real_and_compact_bodies_are_judged_alike() {
    let tmp = tempfile::tempdir().unwrap();
    let mut outcomes = Vec::new();
    for (out, extra) in [("c", &["--compact"][..]), ("r", &[][..])] {
        synth(tmp.path(), out, extra);
        let (snapshot, runs, ds) = (format!("{out}/snapshot"), format!("{out}/runs"), format!("{out}-ds"));
        ok(&["run", "--quiet", "--snapshot", &snapshot, "--runs", &runs, "--out", &ds], tmp.path());
        let batches = hindsight::dataset::read::batches(&tmp.path().join(&ds), "outcomes").unwrap();
        outcomes.push(arrow::compute::concat_batches(&batches[0].schema(), &batches).unwrap());
    }
    let bytes = |d: &str| tree(&tmp.path().join(d).join("snapshot")).values().map(|b| b.len()).sum::<usize>();
    assert!(bytes("r") > 2 * bytes("c"), "real-shaped bodies are not larger than compact ones: {} vs {}", bytes("r"), bytes("c"));
    let (compact, real) = (&outcomes[0], &outcomes[1]);
    assert!(compact.num_rows() > 1000, "too few outcomes to compare: {}", compact.num_rows());
    assert_eq!(compact.schema(), real.schema());
    for (i, field) in compact.schema().fields().iter().enumerate() {
        assert_eq!(compact.column(i), real.column(i), "outcomes column {} differs between compact and real-shaped bodies", field.name());
    }
}

fn keys(v: &Value) -> BTreeSet<String> {
    v.as_object().unwrap_or_else(|| panic!("not an object: {v}")).keys().cloned().collect()
}

fn recorded(rel: &str) -> Value {
    serde_json::from_slice(&std::fs::read(fixture(&format!("real/bodies/{rel}"))).unwrap()).unwrap()
}

/// The keys of the first item of a recorded timeline with `event`, less the ones only the
/// timeline adds.
fn timeline_keys(event: &str, less: &[&str]) -> BTreeSet<String> {
    let timeline = recorded("hossain-khan-github-stats/timeline-freecodecamp-47594-reviews-bots-merged.json");
    let item = timeline.as_array().unwrap().iter().find(|e| e["event"] == event).unwrap_or_else(|| panic!("no {event} in the timeline"));
    keys(item).into_iter().filter(|k| !less.contains(&k.as_str())).collect()
}

/// Every object under `v` that names a user (`login`).
fn users<'a>(v: &'a Value, out: &mut Vec<&'a Value>) {
    match v {
        Value::Object(m) => {
            if m.contains_key("login") {
                out.push(v);
            }
            m.values().for_each(|x| users(x, out));
        }
        Value::Array(a) => a.iter().for_each(|x| users(x, out)),
        _ => {}
    }
}

/// The endpoint a cassette path is of: `pulls/N`, `issues/N/events`, ...
fn endpoint(path: &str) -> String {
    let tail: Vec<&str> = path.split('/').skip(3).collect();
    tail.iter().map(|s| if s.parse::<u64>().is_ok() { "N" } else { s }).collect::<Vec<_>>().join("/")
}

/// What each endpoint's real body is shaped after: the keys of the matching recorded body.
/// A list endpoint's items are compared one by one; `issues/N/events` items by their event
/// (no `unlabeled` event is recorded: GitHub gives it the shape of `labeled`).
fn recorded_keys(endpoint: &str, item: &Value) -> BTreeSet<String> {
    match endpoint {
        "pulls/N" => keys(&recorded("hossain-khan-github-stats/pull-github-stats-27-merged.json")),
        "issues/N" => keys(&recorded("pygithub/issue-28-plain-issue-modern-fields-2025.json")),
        "pulls/N/reviews" => timeline_keys("reviewed", &["event"]),
        "issues/N/comments" => timeline_keys("commented", &["event", "actor"]),
        "issues/N/events" => timeline_keys(if item["event"] == "unlabeled" { "labeled" } else { item["event"].as_str().unwrap() }, &[]),
        "issues/N/labels" => keys(&recorded("hossain-khan-github-stats/pull-freecodecamp-48543-open-unmerged.json")["labels"][0]),
        other => panic!("synth writes {other}, which no test compares with a recorded body"),
    }
}

/// Real-shaped bodies carry the keys of the recorded bodies of their endpoint, nested alike:
/// a pull's `head`, `base`, their repositories and `_links`, every user object (the 2025
/// shape), each review, comment, event and label.
#[test]
fn synth_real_bodies_carry_the_keys_of_recorded_ones() {
    let tmp = tempfile::tempdir().unwrap();
    synth(tmp.path(), "r", &[]);
    let user_keys = keys(&recorded("pygithub/issue-28-plain-issue-modern-fields-2025.json")["user"]);
    let pull = recorded("hossain-khan-github-stats/pull-github-stats-27-merged.json");
    assert!(keys(&pull["user"]).is_subset(&user_keys), "the recorded users disagree");
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let cassette = std::fs::read_to_string(tmp.path().join("r/snapshot/capture-0001.jsonl")).unwrap();
    for line in cassette.lines() {
        let capture: Value = serde_json::from_str(line).unwrap();
        let (kind, body) = (endpoint(capture["path"].as_str().unwrap()), &capture["body"]);
        let items = body.as_array().cloned().unwrap_or_else(|| vec![body.clone()]);
        for item in &items {
            assert_eq!(keys(item), recorded_keys(&kind, item), "{kind}: {item}");
            *seen.entry(kind.clone()).or_default() += 1;
        }
        if kind == "pulls/N" {
            for end in ["head", "base"] {
                assert_eq!(keys(&body[end]), keys(&pull[end]), "{kind} {end}");
                assert_eq!(keys(&body[end]["repo"]), keys(&pull[end]["repo"]), "{kind} {end}.repo");
                assert_eq!(keys(&body[end]["repo"]["license"]), keys(&pull[end]["repo"]["license"]), "{kind} {end}.repo.license");
            }
            assert_eq!(keys(&body["_links"]), keys(&pull["_links"]), "{kind} _links");
        }
        let mut found = Vec::new();
        users(body, &mut found);
        for u in found {
            assert_eq!(keys(u), user_keys, "{kind}: a user object {u}");
        }
    }
    let kinds: BTreeSet<&str> = seen.keys().map(String::as_str).collect();
    let all = BTreeSet::from(["pulls/N", "issues/N", "pulls/N/reviews", "issues/N/comments", "issues/N/events", "issues/N/labels"]);
    assert_eq!(kinds, all, "not every kind of body was written: {seen:?}");
}
