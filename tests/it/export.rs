//! `hindsight export --sqlite`: the database hindsight writes itself, read back by SQLite
//! (Python's sqlite3 module, and the `sqlite3` shell where installed) and compared with the
//! Parquet tables by pyarrow and pandas (tests/python/sqlite_export.py).

use std::path::Path;
use std::process::Command;

use serde_json::Value;

use crate::support::{demo, have, ok, python, root, run, Tool};

/// tests/python/sqlite_export.py with `args`, which must succeed: its stdout.
fn script(args: &[&str], cwd: &Path) -> String {
    let out = Command::new(python()).arg(root().join("tests/python/sqlite_export.py")).args(args).current_dir(cwd).output().unwrap();
    assert!(out.status.success(), "sqlite_export.py {args:?}:\n{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).to_string()
}

/// `PRAGMA integrity_check` by the sqlite3 shell, when this machine has one.
fn shell_says_ok(db: &Path) {
    match Command::new("sqlite3").arg(db).arg("PRAGMA integrity_check").output() {
        Ok(out) => assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "ok", "sqlite3 on {}: {}", db.display(), String::from_utf8_lossy(&out.stderr)),
        Err(_) => eprintln!("no sqlite3 shell here: the integrity check by Python's sqlite3 module stands alone"),
    }
}

#[test]
fn export_sqlite_holds_every_table_row_by_row() {
    if !have(&[Tool::Python]) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    demo(tmp.path());
    let out = run(&["export", "--dataset", "ds", "--sqlite", "study.db"], tmp.path());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let said = String::from_utf8_lossy(&out.stderr);
    let manifest: Value = serde_json::from_str(&std::fs::read_to_string(tmp.path().join("ds/manifest.json")).unwrap()).unwrap();
    let tables = manifest["tables"].as_object().unwrap().len();
    assert!(said.starts_with(&format!("exported {tables} tables, ")) && said.contains("-> study.db (open it with `datasette study.db`)"), "{said}");
    let summary: Value = serde_json::from_str(&script(&["check", "study.db", "ds"], tmp.path())).unwrap();
    for (table, entry) in manifest["tables"].as_object().unwrap() {
        assert_eq!(summary["tables"][table], entry["rows"], "{table}");
    }
    assert!(summary["by_status"]["accepted"].as_u64().unwrap() > 0, "{summary}");
    shell_says_ok(&tmp.path().join("study.db"));
    // Nothing is left beside the database.
    let names: Vec<String> = std::fs::read_dir(tmp.path()).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().to_string()).collect();
    assert!(!names.iter().any(|n| n.contains("tmp")), "{names:?}");
}

#[test]
fn export_sqlite_gives_the_same_bytes_and_replaces_a_file_only_when_forced() {
    let tmp = tempfile::tempdir().unwrap();
    demo(tmp.path());
    ok(&["export", "--quiet", "--dataset", "ds", "--sqlite", "a.db"], tmp.path());
    ok(&["export", "--quiet", "--dataset", "ds", "--sqlite", "b.db"], tmp.path());
    let a = std::fs::read(tmp.path().join("a.db")).unwrap();
    assert_eq!(a, std::fs::read(tmp.path().join("b.db")).unwrap(), "two exports of one dataset differ");
    assert_eq!(a.len() % 4096, 0);
    assert_eq!(u32::from_be_bytes(a[28..32].try_into().unwrap()) as usize, a.len() / 4096, "the header's page count");
    std::fs::write(tmp.path().join("b.db"), "mine").unwrap();
    let refused = run(&["export", "--dataset", "ds", "--sqlite", "b.db"], tmp.path());
    assert_eq!(refused.status.code(), Some(2));
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(said.contains("b.db: already exists; --force replaces it"), "{said}");
    assert_eq!(std::fs::read(tmp.path().join("b.db")).unwrap(), b"mine");
    ok(&["export", "--quiet", "--dataset", "ds", "--sqlite", "b.db", "--force"], tmp.path());
    assert_eq!(std::fs::read(tmp.path().join("b.db")).unwrap(), a);
    // Never into the dataset, whose files hindsight writes alone; and ./hindsight-out by default.
    let inside = run(&["export", "--dataset", "ds", "--sqlite", "ds/x.db"], tmp.path());
    assert!(!inside.status.success() && String::from_utf8_lossy(&inside.stderr).contains("inside the dataset"));
    let none = run(&["export", "--sqlite", "c.db"], tmp.path());
    assert!(String::from_utf8_lossy(&none.stderr).contains("--dataset DIR is needed"), "{}", String::from_utf8_lossy(&none.stderr));
    std::fs::rename(tmp.path().join("ds"), tmp.path().join("hindsight-out")).unwrap();
    ok(&["export", "--quiet", "--sqlite", "c.db"], tmp.path());
    assert_eq!(std::fs::read(tmp.path().join("c.db")).unwrap(), a);
    // A table gone from the dataset: said, and nothing written.
    std::fs::remove_file(tmp.path().join("hindsight-out/quarantine.parquet")).unwrap();
    let broken = run(&["export", "--sqlite", "d.db"], tmp.path());
    let said = String::from_utf8_lossy(&broken.stderr);
    assert!(!broken.status.success() && said.contains("quarantine.parquet: recorded in manifest.json, missing on disk"), "{said}");
    let left: Vec<String> = std::fs::read_dir(tmp.path()).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().to_string()).collect();
    assert!(!left.iter().any(|n| n.starts_with("d.db") || n.contains("tmp") || n.contains("pin")), "{left:?}");
}

/// Every kind of Parquet column, a table two interior levels deep, values on chains of
/// overflow pages up to a megabyte long: each read back by SQLite as docs/SQLITE.md says.
#[test]
fn export_sqlite_stores_every_column_type_and_deep_long_tables() {
    if !have(&[Tool::Python]) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    demo(tmp.path());
    script(&["extend", "ds"], tmp.path());
    ok(&["export", "--quiet", "--dataset", "ds", "--sqlite", "big.db"], tmp.path());
    let summary: Value = serde_json::from_str(&script(&["check", "big.db", "ds"], tmp.path())).unwrap();
    assert_eq!((summary["tables"]["big"].as_u64(), summary["tables"]["types"].as_u64()), (Some(300_000), Some(7)));
    let db = std::fs::read(tmp.path().join("big.db")).unwrap();
    // The big table's root and its first child are both interior pages (0x05).
    let page = |n: usize| &db[(n - 1) * 4096..n * 4096];
    let out = Command::new(python())
        .args([
            "-c",
            "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(\"SELECT rootpage FROM sqlite_schema WHERE name = 'big'\").fetchone()[0])",
            "big.db",
        ])
        .current_dir(tmp.path())
        .output()
        .unwrap();
    let root_page: usize = String::from_utf8_lossy(&out.stdout).trim().parse().unwrap();
    let root = page(root_page);
    let first_cell = u16::from_be_bytes([root[12], root[13]]) as usize;
    let child = u32::from_be_bytes(root[first_cell..first_cell + 4].try_into().unwrap()) as usize;
    assert_eq!((root[0], page(child)[0]), (0x05, 0x05), "the big table is not two interior levels deep");
    shell_says_ok(&tmp.path().join("big.db"));
}

/// The schema's root is page 1, which has 100 bytes fewer for it: a schema that fits a page
/// but not page 1 is split under an interior root there.
#[test]
fn export_sqlite_roots_any_schema_on_the_first_page() {
    if !have(&[Tool::Python]) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    demo(tmp.path());
    // One table whose column name is N long: its CREATE TABLE takes about N bytes.
    let sizes: Vec<String> = (3500..=3800).step_by(50).map(|n: usize| n.to_string()).collect();
    let mut args = vec!["wide", "ds"];
    args.extend(sizes.iter().map(String::as_str));
    script(&args, tmp.path());
    let mut check = vec!["check".to_string()];
    let mut roots = Vec::new();
    for n in &sizes {
        let (db, ds) = (format!("{n}.db"), format!("ds-{n}"));
        ok(&["export", "--quiet", "--dataset", &ds, "--sqlite", &db], tmp.path());
        roots.push(std::fs::read(tmp.path().join(&db)).unwrap()[100]);
        check.extend([db, ds]);
    }
    script(&check.iter().map(String::as_str).collect::<Vec<_>>(), tmp.path());
    assert_eq!((roots[0], roots[roots.len() - 1]), (0x0d, 0x05), "{roots:?}");
    shell_says_ok(&tmp.path().join("3650.db"));
}

/// docs/SQLITE.md's table of types is hindsight's: rerun with HINDSIGHT_BLESS=1 to write it.
#[test]
fn sqlite_doc_states_every_type_mapping() {
    let mut table = String::from("| Parquet (Arrow) type | SQLite type | Values |\n|---|---|---|\n");
    for (parquet, sqlite, values) in hindsight::export::TYPE_MAPPING {
        table.push_str(&format!("| {parquet} | {sqlite} | {values} |\n"));
    }
    let file = root().join("docs/SQLITE.md");
    let doc = std::fs::read_to_string(&file).unwrap_or_default();
    let (begin, end) = ("<!-- types: generated by tests/it/export.rs -->\n", "<!-- end of types -->\n");
    let (Some(a), Some(b)) = (doc.find(begin), doc.find(end)) else { panic!("docs/SQLITE.md lacks the {begin:?} and {end:?} markers") };
    let fresh = format!("{}{begin}{table}{}", &doc[..a], &doc[b..]);
    if std::env::var_os("HINDSIGHT_BLESS").is_some() {
        std::fs::write(&file, &fresh).unwrap();
    }
    assert!(std::fs::read_to_string(&file).unwrap() == fresh, "docs/SQLITE.md's types are stale: run `HINDSIGHT_BLESS=1 cargo test --test it sqlite_doc`");
}

/// Every key path of a JSON value (`/a/b[]/c`), with the JSON type of each leaf.
fn key_paths(v: &Value, at: &str, out: &mut std::collections::BTreeSet<String>) {
    match v {
        Value::Object(m) => m.iter().for_each(|(k, x)| key_paths(x, &format!("{at}/{k}"), out)),
        Value::Array(a) => a.iter().for_each(|x| key_paths(x, &format!("{at}[]"), out)),
        Value::String(_) => drop(out.insert(format!("{at} string"))),
        Value::Number(n) if n.is_f64() => drop(out.insert(format!("{at} float"))),
        Value::Number(_) => drop(out.insert(format!("{at} int"))),
        Value::Bool(_) => drop(out.insert(format!("{at} bool"))),
        Value::Null => drop(out.insert(format!("{at} null"))),
    }
}

/// `export --otlp`: one window's verdicts as gh-aw's outcome spans.
/// - **Shape.** Every key the payload uses, with its JSON type, is one OpenTelemetry's own
///   examples use (fixtures/real/otlp: trace.json for spans, logs.json for the typed values:
///   integers as strings), and a span's `status.code` (an integer, as OTLP defines it).
/// - **Names.** Every `gh-aw.outcome.*` key and span name is one gh-aw itself emits, verbatim
///   in fixtures/real/otlp/GH_AW_ATTRIBUTES.md.
/// - **Counts.** The summary's counts per status are the outcomes table's, counted by SQL;
///   one span per output of the window, rejected ones with gh-aw's error code 2.
/// - **Bytes.** The same dataset gives the same file.
#[test]
fn export_otlp_writes_gh_aws_outcome_spans() {
    let tmp = tempfile::tempdir().unwrap();
    let ds = demo(tmp.path());
    let file = tmp.path().join("otel.jsonl");
    let export = || ok(&["export", "--quiet", "--dataset", ds.to_str().unwrap(), "--otlp", file.to_str().unwrap(), "--window", "7d", "--force"], tmp.path());
    export();
    let first = std::fs::read(&file).unwrap();
    export();
    assert_eq!(std::fs::read(&file).unwrap(), first);
    let lines: Vec<Value> = String::from_utf8(first).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();

    let mut allowed = std::collections::BTreeSet::new();
    for example in ["trace.json", "logs.json"] {
        let v: Value = serde_json::from_str(&std::fs::read_to_string(root().join("fixtures/real/otlp").join(example)).unwrap()).unwrap();
        key_paths(&v, "", &mut allowed);
    }
    let typed: Vec<String> = allowed.iter().filter_map(|p| p.split_once("/value/").map(|(_, t)| t.to_string())).collect();
    let mut used = std::collections::BTreeSet::new();
    lines.iter().for_each(|l| key_paths(l, "", &mut used));
    for p in &used {
        let value_type = p.split_once("/value/").map(|(_, t)| t.to_string());
        let fits = allowed.contains(p) || value_type.is_some_and(|t| typed.contains(&t)) || p == "/resourceSpans[]/scopeSpans[]/spans[]/status/code int";
        assert!(fits, "{p} is not a key path of OpenTelemetry's examples");
    }

    let names = std::fs::read_to_string(root().join("fixtures/real/otlp/GH_AW_ATTRIBUTES.md")).unwrap();
    let spans: Vec<&Value> = lines.iter().flat_map(|l| l["resourceSpans"][0]["scopeSpans"][0]["spans"].as_array().unwrap()).collect();
    for s in &spans {
        assert!(names.contains(&format!("`{}`", s["name"].as_str().unwrap())));
        for a in s["attributes"].as_array().unwrap() {
            let key = a["key"].as_str().unwrap();
            assert!(key.starts_with("hindsight.") || names.contains(&format!("`{key}`")), "{key} is not a name gh-aw uses");
        }
    }
    let summary = spans[0];
    assert_eq!(summary["name"], "gh-aw.outcome.summary");
    let attr = |s: &Value, k: &str| s["attributes"].as_array().unwrap().iter().find(|a| a["key"] == k).map(|a| a["value"].clone());
    let counted: Vec<Value> = serde_json::from_str(&ok(
        &["report", "--dataset", ds.to_str().unwrap(), "--format", "json", "--sql", "SELECT outcome_status, COUNT(*) AS n FROM outcomes WHERE eval_window = '7d' GROUP BY outcome_status"],
        tmp.path(),
    ))
    .unwrap();
    let total: i64 = counted.iter().map(|r| r["n"].as_i64().unwrap()).sum();
    assert_eq!((spans.len() as i64 - 1, attr(summary, "gh-aw.outcome.total")), (total, Some(serde_json::json!({"intValue": total.to_string()}))));
    for r in &counted {
        let status = r["outcome_status"].as_str().unwrap();
        let key = if status == "skipped" { "hindsight.outcome.skipped".to_string() } else { format!("gh-aw.outcome.{status}") };
        assert_eq!(attr(summary, &key), Some(serde_json::json!({"intValue": r["n"].as_i64().unwrap().to_string()})), "{status}");
        let coded = spans[1..].iter().filter(|s| attr(s, "gh-aw.outcome.outcome_status") == Some(serde_json::json!({"stringValue": status}))).count() as i64;
        assert_eq!(coded, r["n"].as_i64().unwrap());
    }
    assert!(spans[1..].iter().filter(|s| attr(s, "gh-aw.outcome.outcome_status") == Some(serde_json::json!({"stringValue": "rejected"}))).all(|s| s["status"]["code"] == 2));
    let ids: std::collections::BTreeSet<&str> = spans.iter().map(|s| s["spanId"].as_str().unwrap()).collect();
    assert_eq!(ids.len(), spans.len());
    // A window with no verdicts is refused, saying which windows there are.
    let out = run(&["export", "--quiet", "--dataset", ds.to_str().unwrap(), "--otlp", file.to_str().unwrap(), "--window", "2d", "--force"], tmp.path());
    assert!(!out.status.success() && String::from_utf8_lossy(&out.stderr).contains("no outcome in that window"));
}
