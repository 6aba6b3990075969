//! The data dictionary: in the Parquet files as field metadata, in docs/DATASET.md, and
//! complete for the tables it describes.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use hindsight::dataset::dictionary::{self, KEY};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

use crate::support::{demo, fixture, ok, root, Study};

/// Every table of a dataset: its schema as the Parquet file carries it.
fn schemas(ds: &Path) -> BTreeMap<String, arrow::datatypes::SchemaRef> {
    let manifest = hindsight::dataset::manifest::Manifest::load(ds).unwrap();
    manifest
        .tables
        .keys()
        .map(|t| {
            let f = std::fs::File::open(ds.join(format!("{t}.parquet"))).unwrap();
            (t.clone(), ParquetRecordBatchReaderBuilder::try_new(f).unwrap().schema().clone())
        })
        .collect()
}

/// The dictionary's meanings are the files' metadata: every table says what its rows are,
/// every column the dictionary describes (its own or a common one) carries that text, the
/// described tables have every column described, and no entry names a column that is not there.
#[test]
fn every_table_carries_its_dictionary_in_the_parquet_metadata() {
    if !crate::support::have(&[crate::support::Tool::Python]) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let f = |p: &str| root().join("fixtures").join(p).to_string_lossy().to_string();
    Study::demo().traces(fixture("demo/traces")).tasks(fixture("tasks/study")).run(tmp.path(), "ds");
    let (results, policy) = (f("gate/results.jsonl"), f("gate/policy.json"));
    ok(&["gate", "--results", &results, "--policy", &policy, "--dataset", "ds", "--quiet"], tmp.path());
    ok(&["import", "aidev", &f("aidev"), "--out", "aidev", "--captured-at", "2025-07-31T00:00:00Z", "--quiet"], tmp.path());
    let mut all = schemas(&tmp.path().join("ds"));
    all.extend(schemas(&tmp.path().join("aidev")));
    let mut described = 0;
    for (table, schema) in &all {
        assert_eq!(schema.metadata().get(KEY).map(String::as_str), dictionary::row(table), "{table}: the table's description");
        assert!(dictionary::row(table).is_some(), "{table} is not in the data dictionary");
        for field in schema.fields() {
            let want = dictionary::column(table, field.name());
            assert_eq!(field.metadata().get(KEY).map(String::as_str), want, "{table}.{}", field.name());
            described += want.is_some() as usize;
        }
        // Every column of hindsight's own tables has a meaning (AIDev's are its own).
        if let Some(doc) = dictionary::table(table) {
            for field in schema.fields() {
                assert!(dictionary::column(table, field.name()).is_some(), "{table}.{} has no meaning in the dictionary", field.name());
            }
            for (c, _) in doc.columns {
                assert!(schema.field_with_name(c).is_ok(), "the dictionary describes {table}.{c}, which the table does not have");
            }
        }
    }
    for t in ["outcomes", "safe_outputs", "runs", "requests", "responses", "quarantine"] {
        assert!(all.contains_key(t), "{t}");
    }
    assert!(described > 100, "only {described} columns described");
    // pyarrow, as a notebook reads it.
    let python = root().join(".venv/bin/python");
    let code = "import pyarrow.parquet as pq, sys; f = pq.read_schema(sys.argv[1]).field('confidence'); print(f.metadata[b'description'].decode())";
    let out = Command::new(python).args(["-c", code]).arg(tmp.path().join("ds/outcomes.parquet")).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), dictionary::column("outcomes", "confidence").unwrap());
}

/// docs/DATASET.md is the dictionary: rerun with HINDSIGHT_BLESS=1 to write it.
#[test]
fn dataset_doc_is_generated_from_the_dictionary() {
    let doc = ok(&["describe", "--markdown"], &root());
    assert_eq!(doc, dictionary::markdown());
    let file = root().join("docs/DATASET.md");
    if std::env::var_os("HINDSIGHT_BLESS").is_some() {
        std::fs::write(&file, &doc).unwrap();
    }
    assert!(std::fs::read_to_string(&file).unwrap_or_default() == doc, "docs/DATASET.md is stale: run `HINDSIGHT_BLESS=1 cargo test --test it dataset_doc`");
    for term in [
        "**confidence**",
        "**strict_acceptance_rate**",
        "**human_check_acceptance_rate**",
        "**sticky_artifact_rate**",
        "**evaluable_outputs**",
        "window_not_yet_observable",
    ] {
        assert!(doc.contains(term), "docs/DATASET.md does not define {term}");
    }
}

#[test]
fn describe_prints_a_tables_meaning_with_and_without_a_dataset() {
    let tmp = tempfile::tempdir().unwrap();
    let list = ok(&["describe"], tmp.path());
    assert!(list.lines().any(|l| l.starts_with("outcomes ")) && list.contains("aidev_*"), "{list}");
    let one = ok(&["describe", "outcomes"], tmp.path());
    assert!(one.starts_with("outcomes, one row per: A safe output in one evaluation window"), "{one}");
    assert!(one.contains("  confidence "), "{one}");
    demo(tmp.path());
    let csv = ok(&["describe", "outcomes", "--dataset", "ds", "--format", "csv"], tmp.path());
    assert!(csv.starts_with("column_name,data_type,is_nullable,description\nsafe_output_id,VARCHAR,YES,The safe output: `RUN_ID:ITEM_INDEX`.\n"), "{csv}");
    assert_eq!(csv.lines().count(), 26);
    let out = crate::support::run(&["describe", "nope"], tmp.path());
    assert!(!out.status.success() && String::from_utf8_lossy(&out.stderr).contains("no table `nope` in the data dictionary"));
}

/// The views the bundled queries read are in the dictionary, each over the table its SQL
/// reads: on a dataset a view has that table's columns, then its own, all with a meaning
/// (`describe VIEW --dataset` prints them).
#[test]
fn every_view_is_described_with_every_column() {
    use hindsight::report::{views::VIEWS, Session};
    let tmp = tempfile::tempdir().unwrap();
    ok(&["run", "--out", "ds", "--quiet"], tmp.path());
    let session = Session::open(&tmp.path().join("ds")).unwrap();
    assert_eq!(VIEWS.iter().map(|(n, _)| *n).collect::<Vec<_>>(), dictionary::VIEWS.iter().map(|v| v.name).collect::<Vec<_>>());
    for ((name, sql), doc) in VIEWS.iter().zip(dictionary::VIEWS) {
        assert!(sql.trim_end().ends_with(&format!("\nFROM {}", doc.reads)), "{name} does not read {}", doc.reads);
        let names = |t: &str| session.columns(t).unwrap().into_iter().map(|(c, _)| c).collect::<Vec<_>>();
        let mut want = names(doc.reads);
        want.extend(doc.columns.iter().map(|(c, _)| c.to_string()));
        assert_eq!(names(name), want, "{name}");
        for c in &want {
            assert!(dictionary::column(name, c).is_some(), "{name}.{c} has no meaning in the dictionary");
        }
        let csv = ok(&["describe", name, "--dataset", "ds", "--format", "csv"], tmp.path());
        let (own, meaning) = doc.columns[0];
        assert!(csv.lines().any(|l| l.starts_with(&format!("{own},")) && l.contains(meaning.split(',').next().unwrap())), "{csv}");
    }
}
