//! SQL the way DuckDB users read and write it: `DESCRIBE` with SQL type names (the same as
//! `\d TABLE` and `describe TABLE --dataset`), `\d` listing tables and views, JSON text
//! columns as JSON in the JSON formats, spans printed as DuckDB prints an INTERVAL, and
//! DuckDB's `date_diff` and `epoch`, each compared with DuckDB itself where it can be.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

use crate::support::{demo, ok, python, root};

/// The rows DuckDB gives for `sql` (a statement both engines read), after the statements of
/// `views` (the text of a file, written in `dir`, where it runs) with the time zone set to
/// UTC, as hindsight's is.
fn duckdb(dir: &Path, views: &str, sql: &str) -> Vec<Value> {
    std::fs::write(dir.join("duck.views.sql"), format!("SET TimeZone = 'UTC';\n{views}")).unwrap();
    std::fs::write(dir.join("duck.query.sql"), sql).unwrap();
    let out =
        Command::new(python()).arg(root().join("tests/python/duckdb_query.py")).arg("duck.views.sql").arg("duck.query.sql").current_dir(dir).output().unwrap();
    assert!(out.status.success(), "duckdb on {sql}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The rows hindsight gives for `sql` on the dataset `ds` (in `dir`), as `--format json`
/// prints them.
fn ours(dir: &Path, sql: &str) -> Vec<Value> {
    let text = ok(&["report", "--dataset", "ds", "--format", "json", "--sql", sql], dir);
    serde_json::from_str::<Value>(&text).unwrap().as_array().unwrap().clone()
}

fn have_duckdb() -> bool {
    crate::support::have(&[crate::support::Tool::Python])
}

/// `DESCRIBE t` names every column's type as DuckDB's `DESCRIBE` does for the same Parquet
/// file, on every table of the demo; `\d t` prints exactly what `DESCRIBE t` prints, and
/// `describe t --dataset` the same rows.
#[test]
fn describe_names_types_as_duckdb_does_and_backslash_d_is_describe() {
    let tmp = tempfile::tempdir().unwrap();
    demo(tmp.path());
    let manifest = hindsight::dataset::manifest::Manifest::load(&tmp.path().join("ds")).unwrap();
    let views = ok(&["views", "--dataset", "ds", "--dialect", "duckdb"], tmp.path());
    for table in manifest.tables.keys() {
        let described = ok(&["report", "--dataset", "ds", "--format", "csv", "--sql", &format!("DESCRIBE {table}")], tmp.path());
        let shell = piped(tmp.path(), &format!(".mode csv\n\\d {table}\n"));
        assert_eq!(shell, described, "\\d {table}");
        let table_form = piped(tmp.path(), &format!("\\d {table}\nDESCRIBE {table};\n"));
        let half = table_form.len() / 2;
        assert_eq!(table_form[..half], table_form[half..], "\\d {table} and DESCRIBE {table} as tables");
        assert_eq!(ok(&["describe", table, "--dataset", "ds", "--format", "csv"], tmp.path()), described, "describe {table} --dataset");
        assert!(described.starts_with("column_name,data_type,is_nullable,description\n"), "{described}");
        if !have_duckdb() {
            continue;
        }
        let duck = duckdb(tmp.path(), &views, &format!("DESCRIBE \"{table}\""));
        let theirs: Vec<(String, String)> =
            duck.iter().map(|r| (r["column_name"].as_str().unwrap().into(), r["column_type"].as_str().unwrap().into())).collect();
        let mine: Vec<(String, String)> = csv::Reader::from_reader(described.as_bytes())
            .records()
            .map(|r| {
                let r = r.unwrap();
                (r[0].to_string(), r[1].to_string())
            })
            .collect();
        assert_eq!(mine, theirs, "{table}");
    }
}

/// `hindsight sql --dataset ds` with `input` piped in: its stdout.
fn piped(dir: &Path, input: &str) -> String {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = Command::new(crate::support::bin())
        .args(["sql", "--dataset", "ds"])
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "hindsight sql: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// `\d` lists every table with its rows, then every view the session defines, each marked
/// and with as many columns as `DESCRIBE` gives it.
#[test]
fn backslash_d_lists_tables_and_views() {
    let tmp = tempfile::tempdir().unwrap();
    let ds = demo(tmp.path());
    let text = piped(tmp.path(), ".mode csv\n\\d\n");
    let mut rows = csv::Reader::from_reader(text.as_bytes());
    assert_eq!(rows.headers().unwrap().iter().collect::<Vec<_>>(), ["name", "kind", "rows", "columns"]);
    let listed: Vec<Vec<String>> = rows.records().map(|r| r.unwrap().iter().map(str::to_string).collect()).collect();
    let manifest = hindsight::dataset::manifest::Manifest::load(&ds).unwrap();
    let session = hindsight::report::Session::open(&ds).unwrap();
    let mut want: Vec<Vec<String>> = manifest.tables.iter().map(|(n, t)| vec![n.clone(), "table".into(), t.rows.to_string()]).collect();
    want.extend(session.views().iter().map(|(v, _)| vec![v.to_string(), "view".into(), String::new()]));
    assert_eq!(session.views().len(), hindsight::report::views::VIEWS.len());
    for (row, mut w) in listed.into_iter().zip(&want).map(|(r, w)| (r, w.clone())) {
        let described: usize = session.describe(&w[0]).unwrap().iter().map(|b| b.num_rows()).sum();
        w.push(described.to_string());
        assert_eq!(row, w);
    }
    assert_eq!(text.lines().count(), want.len() + 1, "{text}");
}

/// A JSON column's objects and arrays are JSON in `--format json` and `ndjson` (the shell's
/// too), in the text's own key order; anything else in it stays a string, a column the
/// dictionary does not call JSON stays text, and CSV keeps the text.
#[test]
fn json_columns_are_json_in_the_json_formats() {
    let tmp = tempfile::tempdir().unwrap();
    demo(tmp.path());
    let names = hindsight::dataset::dictionary::json_columns();
    assert!(names.contains(&"details") && names.contains(&"errors") && !names.contains(&"payload"), "{names:?}");
    let sql = "SELECT safe_output_id, eval_window, details, notes FROM outcomes ORDER BY safe_output_id, window_order";
    let csv_text = ok(&["report", "--dataset", "ds", "--format", "csv", "--sql", sql], tmp.path());
    let texts: Vec<String> = csv::Reader::from_reader(csv_text.as_bytes()).records().map(|r| r.unwrap()[2].to_string()).collect();
    let json = ours(tmp.path(), sql);
    let ndjson: Vec<Value> =
        ok(&["report", "--dataset", "ds", "--format", "ndjson", "--sql", sql], tmp.path()).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let shell: Value = serde_json::from_str(&piped(tmp.path(), &format!(".mode json\n{sql};\n"))).unwrap();
    assert!(texts.len() > 100 && json.len() == texts.len() && ndjson.len() == texts.len());
    for (i, text) in texts.iter().enumerate() {
        let parsed: Value = serde_json::from_str(text).unwrap();
        assert!(parsed.is_object(), "{text}");
        assert_eq!(json[i]["details"], parsed, "row {i}");
        assert_eq!(ndjson[i]["details"], parsed, "row {i}");
        assert_eq!(shell[i]["details"], parsed, "row {i}");
        assert!(json[i]["notes"].is_string());
    }
    let odd = "SELECT 'not json' AS details, '3' AS errors, '{\"z\": 1, \"a\": [true, {}]}' AS after_state, '{\"x\": 1}' AS other, '[1, 2' AS before_state";
    let printed = ok(&["report", "--dataset", "ds", "--format", "json", "--sql", odd], tmp.path());
    let row = &serde_json::from_str::<Value>(&printed).unwrap()[0];
    assert_eq!(row["details"], "not json");
    assert_eq!(row["errors"], "3");
    assert_eq!(row["after_state"], serde_json::json!({"z": 1, "a": [true, {}]}));
    assert_eq!(row["other"], "{\"x\": 1}");
    assert_eq!(row["before_state"], "[1, 2");
    assert!(printed.find("\"z\": 1").unwrap() < printed.find("\"a\": [").unwrap(), "keys keep their order: {printed}");
    let line = ok(&["report", "--dataset", "ds", "--format", "ndjson", "--sql", odd], tmp.path());
    assert!(line.contains(r#""after_state":{"z":1,"a":[true,{}]}"#) && line.lines().count() == 1, "{line}");
    let csv_odd = ok(&["report", "--dataset", "ds", "--format", "csv", "--sql", odd], tmp.path());
    assert!(csv_odd.contains(r#""{""z"": 1, ""a"": [true, {}]}""#), "{csv_odd}");
}

/// The spans both engines compute from the same literals: a difference of timestamps
/// (hindsight's Duration), intervals of hours, months and years, negative ones, fractions.
const SPANS: &[&str] = &[
    "TIMESTAMP '2024-01-02 03:04:05' - TIMESTAMP '2024-01-01 01:00:00'",
    "TIMESTAMP '2024-01-01 00:00:00' - TIMESTAMP '2024-01-03 01:00:00'",
    "TIMESTAMP '2024-03-01 00:00:00.25' - TIMESTAMP '2024-02-28 23:59:59.5'",
    "TIMESTAMP '2024-01-01 20:33:42' - TIMESTAMP '2024-01-01 00:00:00'",
    "TIMESTAMP '2024-01-01 00:00:00' - TIMESTAMP '2024-01-01 00:00:00'",
    "INTERVAL '30 hours'",
    "INTERVAL '1 year 14 months 1 day 1.5 seconds'",
    "INTERVAL '1 month'",
    "INTERVAL '2 days'",
];

/// Spans print as DuckDB prints an INTERVAL in table, markdown and CSV, and as DuckDB's
/// `epoch(x)` of them in JSON; the demo's `evaluated_at - created_at` alike.
#[test]
fn spans_print_as_duckdb_prints_them() {
    if !have_duckdb() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    demo(tmp.path());
    let select: Vec<String> = SPANS.iter().enumerate().map(|(i, s)| format!("{s} AS s{i}")).collect();
    let as_text: Vec<String> = SPANS.iter().enumerate().map(|(i, s)| format!("CAST({s} AS VARCHAR) AS s{i}")).collect();
    let seconds: Vec<String> = SPANS.iter().enumerate().map(|(i, s)| format!("epoch({s}) AS s{i}")).collect();
    let sql = format!("SELECT {}", select.join(", "));
    let csv_text = ok(&["report", "--dataset", "ds", "--format", "csv", "--sql", &sql], tmp.path());
    let printed: Vec<String> = csv_text.lines().nth(1).unwrap().split(',').map(str::to_string).collect();
    let duck_text = &duckdb(tmp.path(), "", &format!("SELECT {}", as_text.join(", ")))[0];
    let duck_seconds = &duckdb(tmp.path(), "", &format!("SELECT {}", seconds.join(", ")))[0];
    let json = &ours(tmp.path(), &sql)[0];
    for i in 0..SPANS.len() {
        let k = format!("s{i}");
        assert_eq!(printed[i], duck_text[&k].as_str().unwrap(), "{}: CSV", SPANS[i]);
        assert_eq!(json[&k].as_f64(), duck_seconds[&k].as_f64(), "{}: JSON", SPANS[i]);
    }
    let table = ok(&["report", "--dataset", "ds", "--format", "table", "--sql", &sql], tmp.path());
    assert!(table.contains(&format!("| {} ", duck_text["s0"].as_str().unwrap())) && !table.contains("PT"), "{table}");
    let markdown = ok(&["report", "--dataset", "ds", "--format", "markdown", "--sql", &sql], tmp.path());
    assert!(markdown.contains(&format!("| {} |", duck_text["s1"].as_str().unwrap())), "{markdown}");
    // The demo's own spans, read from the same Parquet files by both engines.
    let views = ok(&["views", "--dataset", "ds", "--dialect", "duckdb"], tmp.path());
    let took = "SELECT safe_output_id, eval_window, CAST(evaluated_at - created_at AS VARCHAR) AS took FROM outcomes ORDER BY safe_output_id, window_order";
    let theirs = duckdb(tmp.path(), &views, took);
    let mine = ok(
        &["report", "--dataset", "ds", "--format", "csv", "--sql", &took.replace("CAST(evaluated_at - created_at AS VARCHAR)", "evaluated_at - created_at")],
        tmp.path(),
    );
    let mine: Vec<String> = csv::Reader::from_reader(mine.as_bytes()).records().map(|r| r.unwrap()[2].to_string()).collect();
    assert_eq!(mine.len(), theirs.len());
    for (m, t) in mine.iter().zip(&theirs) {
        assert_eq!(m, t["took"].as_str().unwrap_or(""), "{t}");
    }
}

/// Pairs of instants `date_diff` is compared on: across midnight, month and year ends and
/// a leap day, before and after 1970, sub-second, a week apart, and each reversed.
const PAIRS: &[(&str, &str)] = &[
    ("2023-12-31 23:59:59.5", "2024-01-01 00:00:00.25"),
    ("2024-01-31 12:00:00", "2024-02-01 11:00:00"),
    ("2024-02-28 23:00:00", "2024-03-01 01:00:00"),
    ("2024-01-01 12:00:00", "2024-01-08 11:00:00"),
    ("2024-01-02 00:00:00", "2024-01-08 23:59:59"),
    ("1969-12-31 23:30:00", "1970-01-01 00:30:00"),
    ("1969-12-31 23:59:58.7", "1969-12-31 23:59:59.2"),
    ("1960-05-31 23:00:00", "2024-02-01 00:00:00"),
    ("2023-03-31 00:00:00", "2023-04-01 00:00:00"),
    ("2020-06-15 08:00:00", "2020-06-15 08:00:00"),
];

/// `date_diff` for every part and `epoch` give DuckDB's numbers on timestamps, dates and
/// instants with a time zone, forward and reversed, and on the demo's own columns.
#[test]
fn date_diff_and_epoch_are_duckdbs() {
    if !have_duckdb() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    demo(tmp.path());
    let pairs: Vec<String> = PAIRS.iter().flat_map(|(a, b)| [format!("('{a}', '{b}')"), format!("('{b}', '{a}')")]).collect();
    let parts = ["second", "minute", "hour", "day", "week", "month", "quarter", "year", "millisecond", "microsecond", "days", "hr"];
    let parts: Vec<String> = parts.iter().map(|p| format!("('{p}')")).collect();
    let sql = format!(
        "SELECT part, s, e, \
         date_diff(part, CAST(s AS TIMESTAMP), CAST(e AS TIMESTAMP)) AS ts, \
         date_diff(part, CAST(CAST(s AS TIMESTAMP) AS DATE), CAST(CAST(e AS TIMESTAMP) AS DATE)) AS dates, \
         datediff(part, CAST(s AS TIMESTAMP WITH TIME ZONE), CAST(e AS TIMESTAMP WITH TIME ZONE)) AS tz, \
         epoch(CAST(s AS TIMESTAMP)) AS epoch_ts, epoch(CAST(CAST(s AS TIMESTAMP) AS DATE)) AS epoch_date \
         FROM (VALUES {}) AS v(s, e) CROSS JOIN (VALUES {}) AS p(part) ORDER BY part, s, e",
        pairs.join(", "),
        parts.join(", ")
    );
    let (mine, theirs) = (ours(tmp.path(), &sql), duckdb(tmp.path(), "", &sql));
    assert_eq!(mine.len(), PAIRS.len() * 2 * parts.len());
    assert_eq!(mine, theirs);
    assert!(mine.iter().any(|r| r["ts"].as_i64().is_some_and(|n| n < 0)) && mine.iter().any(|r| r["epoch_ts"].as_f64().is_some_and(|e| e < 0.0)));
    let views = ok(&["views", "--dataset", "ds", "--dialect", "duckdb"], tmp.path());
    let columns =
        "SELECT safe_output_id, eval_window, date_diff('hour', created_at, evaluated_at) AS hours, date_diff('month', created_at, evaluated_at) AS months, \
                   epoch(evaluated_at) - epoch(created_at) AS seconds FROM outcomes ORDER BY safe_output_id, window_order";
    assert_eq!(ours(tmp.path(), columns), duckdb(tmp.path(), &views, columns));
}
