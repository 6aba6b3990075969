//! `hindsight sql`: the shell read from a pipe and from a file, its commands, JSON
//! functions, information_schema, and errors said once.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use crate::support::{bin, demo, ok, run};

/// `hindsight sql ARGS` with `input` on its standard input (a pipe, not a terminal).
fn piped(args: &[&str], input: &str, cwd: &Path) -> Output {
    let mut child =
        Command::new(bin()).arg("sql").args(args).current_dir(cwd).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    child.wait_with_output().unwrap()
}

fn stdout_of(out: &Output) -> String {
    assert!(out.status.success(), "hindsight sql failed ({}):\n{}", out.status, String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).to_string()
}

#[test]
fn a_piped_session_runs_multi_line_statements_and_commands() {
    let tmp = tempfile::tempdir().unwrap();
    demo(tmp.path());
    let session = "\\d\n\\d outcomes\nSELECT eval_window,\n       COUNT(*) AS n\n  FROM outcomes\n WHERE eval_window = 'snapshot' -- a comment; not the end\n GROUP BY eval_window;\nDESCRIBE runs;\n";
    let text = stdout_of(&piped(&["--dataset", "ds"], session, tmp.path()));
    // \d: every table with its rows and columns, then the views.
    let output_columns = hindsight::runs::tables::safe_outputs(&[]).arrow_schema().fields().len();
    for line in [
        "| outcomes           | table | 230  | 25      |".to_string(),
        format!("| safe_outputs       | table | 46   | {output_columns:<7} |"),
        "| runs               | table | 9    | 12      |".to_string(),
        "| output_flags       | view  |      | 29      |".to_string(),
    ] {
        assert!(text.contains(&line), "\\d lacks `{line}`:\n{text}");
    }
    // \d outcomes: its columns with their SQL types; DESCRIBE runs likewise.
    assert!(text.contains("| confidence                  | VARCHAR"), "{text}");
    assert!(text.contains("| workflow_name"), "{text}");
    // The three-line statement, comment and all.
    assert!(text.contains("| snapshot    | 46 |"), "{text}");
}

#[test]
fn json_functions_read_payload_and_details() {
    let tmp = tempfile::tempdir().unwrap();
    demo(tmp.path());
    let sql = "SELECT json_get_str(payload, 'id') AS id, payload->'target'->>'repo' AS repo, json_get_int(payload, 'target', 'number') AS number \
               FROM safe_outputs WHERE json_get_str(payload, 'id') = 'so_a0';\n\
               SELECT details->>'state_basis' AS basis, COUNT(*) AS n FROM outcomes WHERE details->>'state_basis' IS NOT NULL GROUP BY 1 ORDER BY 1;";
    let text = stdout_of(&piped(&["--dataset", "ds", "--format", "csv"], sql, tmp.path()));
    assert!(text.starts_with("id,repo,number\nso_a0,acme/webapp,101\nbasis,n\n"), "{text}");
    assert!(text.contains("\nevents,"), "{text}");
    // The same functions in `report --sql`.
    let one = ok(
        &["report", "--dataset", "ds", "--format", "csv", "--sql", "SELECT payload->>'id' AS id FROM safe_outputs WHERE payload->>'id' = 'so_a1'"],
        tmp.path(),
    );
    assert_eq!(one, "id\nso_a1\n");
}

#[test]
fn information_schema_and_show_tables_list_the_dataset() {
    let tmp = tempfile::tempdir().unwrap();
    demo(tmp.path());
    let sql = "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name;\n\
               SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'outcomes' AND column_name = 'confidence';\n\
               SELECT table_name AS view_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'VIEW' ORDER BY table_name;\n\
               SHOW TABLES;";
    let text = stdout_of(&piped(&["--dataset", "ds", "--format", "csv"], sql, tmp.path()));
    let tables: Vec<&str> = text.lines().skip(1).take_while(|l| !l.starts_with("column_name")).collect();
    // Every table the manifest records, and nothing else; then the views the queries read.
    let manifest = hindsight::dataset::manifest::Manifest::load(&tmp.path().join("ds")).unwrap();
    assert_eq!(tables, manifest.tables.keys().map(String::as_str).collect::<Vec<_>>(), "{text}");
    assert!(tables.contains(&"outcomes") && tables.contains(&"quarantine"), "{text}");
    assert!(text.contains("column_name,data_type\nconfidence,Utf8View\n"), "{text}");
    let views: Vec<&str> = text.lines().skip_while(|l| *l != "view_name").skip(1).take_while(|l| !l.starts_with("table_catalog")).collect();
    let mut names: Vec<&str> = hindsight::report::views::VIEWS.iter().map(|(n, _)| *n).collect();
    names.sort_unstable();
    assert_eq!(views, names, "{text}");
    assert!(text.contains("datafusion,public,outcomes,BASE TABLE") && text.contains("datafusion,public,output_flags,VIEW"), "SHOW TABLES:\n{text}");
    // From a file, the same as from a pipe.
    std::fs::write(tmp.path().join("q.sql"), "SELECT COUNT(*) AS n FROM information_schema.tables WHERE table_schema = 'public';").unwrap();
    let all = manifest.tables.len() + hindsight::report::views::VIEWS.len();
    assert_eq!(ok(&["sql", "--dataset", "ds", "--file", "q.sql", "--format", "csv"], tmp.path()), format!("n\n{all}\n"));
}

#[test]
fn errors_are_said_once_and_stop_a_piped_session() {
    let tmp = tempfile::tempdir().unwrap();
    demo(tmp.path());
    let out = piped(&["--dataset", "ds", "--format", "csv"], "SELECT 1 AS a;\nSELECT nope FROM outcomes;\nSELECT 2 AS b;\n", tmp.path());
    assert!(!out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout), "a\n1\n", "the statement after the error does not run");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.matches("No field named nope").count(), 1, "{err}");
    assert_eq!(err.lines().filter(|l| l.starts_with("hindsight:")).count(), 1, "{err}");
    // A missing file: the OS's words once.
    let out = run(&["sql", "--dataset", "ds", "--file", "missing.sql"], tmp.path());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.matches("No such file or directory").count(), 1, "{err}");
    assert!(err.contains("missing.sql"), "{err}");
    // An unknown command names the help.
    let out = piped(&["--dataset", "ds"], "\\x\n", tmp.path());
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown command `\\x`: \\? lists the commands"));
    // Read-only unless --allow-write.
    let out = piped(&["--dataset", "ds"], "CREATE TABLE t AS SELECT 1;", tmp.path());
    assert!(String::from_utf8_lossy(&out.stderr).contains("read-only unless --allow-write"));
    let out = piped(&["--dataset", "ds", "--allow-write", "--format", "csv"], "CREATE VIEW v AS SELECT 7 AS x;\nSELECT x FROM v;", tmp.path());
    assert_eq!(stdout_of(&out), "x\n7\n");
}

/// `views --dialect datafusion` registers every table, and then the views the queries read, in
/// a fresh DataFusion session (datafusion-cli's engine and grammar), where every bundled query
/// gives the report's rows once hindsight's Wilson functions are registered there;
/// `--absolute` works from any directory.
#[test]
fn views_register_every_table_in_a_fresh_datafusion_session() {
    use datafusion::prelude::{SessionConfig, SessionContext};
    use hindsight::report::{self, format::json_rows, Session};
    let tmp = tempfile::tempdir().unwrap();
    demo(tmp.path());
    let views = ok(&["views", "--dataset", "ds", "--dialect", "datafusion", "--absolute"], tmp.path());
    let tables = hindsight::dataset::manifest::Manifest::load(&tmp.path().join("ds")).unwrap().tables.len();
    assert!(views.starts_with(&format!("-- The {tables} tables of the hindsight dataset /")), "{views}");
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let mut ctx = SessionContext::new_with_config(SessionConfig::new().with_target_partitions(1));
    // The functions the queries with intervals call: datafusion-cli cannot define them, a
    // SessionContext registers them (as `views` says in a comment).
    assert!(views.contains("hindsight::report::wilson::register"), "{views}");
    report::wilson::register(&mut ctx).unwrap();
    let (mut registered, mut defined) = (0, Vec::new());
    for statement in views.lines().filter(|l| !l.starts_with("--")) {
        if let Some(view) = statement.strip_prefix("CREATE OR REPLACE VIEW \"") {
            defined.push(view.split('"').next().unwrap().to_string());
        } else {
            assert!(statement.starts_with("CREATE EXTERNAL TABLE IF NOT EXISTS \"") && defined.is_empty(), "{statement}");
            registered += 1;
        }
        rt.block_on(async { ctx.sql(statement).await.unwrap().collect().await.unwrap() });
    }
    assert_eq!(registered, tables);
    assert_eq!(defined, report::views::VIEWS.iter().map(|(n, _)| n.to_string()).collect::<Vec<_>>());
    let ours = Session::open(&tmp.path().join("ds")).unwrap();
    let mut compared = 0;
    for (name, sql) in report::CATALOGUE.iter().map(|q| (q.name, q.sql)).filter(|(n, _)| !n.starts_with("aidev/")) {
        // Sections over tables this dataset lacks (tasks, the commit protocol) fail alike.
        let Ok(want) = ours.sql(sql) else { continue };
        let have = rt.block_on(async { ctx.sql(sql).await.unwrap().collect().await.unwrap() });
        assert_eq!(json_rows(&have).unwrap(), json_rows(&want).unwrap(), "{name}");
        compared += 1;
    }
    assert!(compared >= 10, "only {compared} queries compared");
    // Relative paths by default, quoted for SQL.
    let rel = ok(&["views", "--dataset", "ds"], tmp.path());
    assert!(rel.contains("CREATE OR REPLACE VIEW \"outcomes\" AS SELECT * FROM read_parquet('ds/outcomes.parquet');\n"), "{rel}");
}

/// A view over a table the dataset lacks (outcomes, before `evaluate`) is not there: a query
/// naming it is told which table it reads, and `views` prints only the views the dataset has.
#[test]
fn a_view_over_a_missing_table_says_what_it_reads() {
    let tmp = tempfile::tempdir().unwrap();
    let f = |p: &str| crate::support::root().join("fixtures/demo").join(p).to_string_lossy().to_string();
    ok(&["convert", "--snapshot", &f("snapshot"), "--runs", &f("runs"), "--out", "ds", "--quiet"], tmp.path());
    let out = run(&["report", "--dataset", "ds", "--sql", "SELECT SUM(evaluable) AS n FROM output_flags"], tmp.path());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("no view `output_flags` on this dataset: it reads table outcomes"), "{err}");
    let views = ok(&["views", "--dataset", "ds"], tmp.path());
    assert!(!views.contains("VIEW \"output_flags\"") && views.contains("VIEW \"pr_memory_figures\" AS SELECT"), "{views}");
}

/// The reference's snippets for DuckDB, pandas and polars (docs/REFERENCE.md) run as
/// written, on the dataset `hindsight run` writes.
#[test]
fn reference_snippets_read_the_dataset_in_duckdb_pandas_and_polars() {
    if !crate::support::have(&[crate::support::Tool::Python]) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    ok(&["run", "--quiet"], tmp.path());
    let doc = std::fs::read_to_string(crate::support::root().join("docs/REFERENCE.md")).unwrap();
    let section = doc.split("\n## Reading the dataset elsewhere").nth(1).expect("docs/REFERENCE.md section `Reading the dataset elsewhere`");
    let section = section.split("\n## ").next().unwrap();
    let python = crate::support::root().join(".venv/bin/python");
    assert!(python.is_file(), "no .venv: run the tests with scripts/test");
    let mut ran = Vec::new();
    for block in section.split("```").skip(1).step_by(2) {
        let (lang, code) = block.split_once('\n').unwrap();
        match lang.trim() {
            "sh" => {
                for line in code.lines().filter(|l| !l.trim().is_empty()) {
                    let words: Vec<&str> = line.split_whitespace().collect();
                    assert_eq!(words[0], "hindsight", "{line}");
                    let (args, out) = match words.iter().position(|w| *w == ">") {
                        Some(i) => (&words[1..i], Some(words[i + 1])),
                        None => (&words[1..], None),
                    };
                    let text = ok(args, tmp.path());
                    if let Some(f) = out {
                        std::fs::write(tmp.path().join(f), text).unwrap();
                    }
                }
            }
            "python" => {
                let out = Command::new(&python).arg("-c").arg(code).current_dir(tmp.path()).output().unwrap();
                assert!(out.status.success(), "{code}\n{}", String::from_utf8_lossy(&out.stderr));
                let text = String::from_utf8_lossy(&out.stdout).to_string();
                assert!(text.contains("accepted"), "{code} printed:\n{text}");
                ran.push(code.lines().next().unwrap_or_default().to_string());
            }
            other => panic!("a `{other}` block in the reference's section"),
        }
    }
    assert_eq!(ran, ["import duckdb", "import pandas as pd", "import polars as pl"]);
}
