//! `hindsight package`: a dataset handed on in the forms research infrastructure reads.
//!
//! The package is a folder: the dataset itself under `data/` (its Parquet tables and
//! manifest, byte for byte, so `hindsight verify` still checks it), and beside it
//! - `datapackage.json`, a Frictionless Data Package readable by v1 readers: one resource per
//!   table (`format: parquet`, its bytes and sha256, a Table Schema whose field descriptions
//!   are the data dictionary's);
//! - `ro-crate-metadata.json`, an RO-Crate 1.1 following the Process Run Crate profile: the
//!   inputs with their hashes, the hindsight version, the run that made the tables, the
//!   policy, windows and risk policy in force;
//! - `CITATION.cff` and `.zenodo.json`, for GitHub's "cite this repository" and Zenodo;
//! - `README.md`: what the study is and its figures (the dashboard, as markdown).
//!
//! Every file is made from the manifest, the tables and the options alone, so packaging the
//! same dataset twice gives the same bytes. Each Table Schema names `""` and `"nan"` as
//! missing values: Frictionless reads Parquet through pandas, where a null in an integer
//! column arrives as NaN (hindsight writes nulls, never NaN).

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::dataset::manifest::Manifest;
use crate::report;
use crate::{Error, Result};

/// The Process Run Crate profile the crate declares (w3id.org/ro/wfrun/process).
const PROCESS_RUN_CRATE: &str = "https://w3id.org/ro/wfrun/process/0.5";

/// What the researcher says of the study: who made it, what it is called, its licence.
#[derive(Clone, Debug)]
pub struct Options {
    /// The package's title; by default one naming the capture date.
    pub title: Option<String>,
    /// The authors, `Family, Given` or a name as written.
    pub authors: Vec<String>,
    /// An SPDX licence identifier for the data.
    pub license: String,
    /// A paragraph on what the study is.
    pub description: Option<String>,
    /// The study's locked analysis plan: carried as `plan.json`, and the README says whether
    /// the study matches it.
    pub plan: Option<PathBuf>,
}

/// What `package` wrote.
pub struct Packaged {
    pub files: Vec<PathBuf>,
}

/// Package `dataset` into the new folder `out`.
pub fn package(dataset: &Path, out: &Path, o: &Options) -> Result<Packaged> {
    if o.authors.is_empty() {
        return Err(Error::usage("package needs at least one --author (\"Family, Given\"): CITATION.cff and Zenodo require one"));
    }
    if out.exists() || out.is_symlink() {
        return Err(Error::usage(format!("package --out {}: already exists; a package is written as a new folder", out.display())));
    }
    if let Some(inside) = crate::output::dataset_around(out) {
        return Err(Error::usage(format!("package --out {}: inside the dataset {}, whose files hindsight writes alone", out.display(), inside.display())));
    }
    let m = Manifest::load(dataset)?;
    let staging = staging_beside(out);
    let _ = std::fs::remove_dir_all(&staging);
    let written = write_all(dataset, &staging, &m, o).and_then(|files| std::fs::rename(&staging, out).map(|()| files).map_err(|e| Error::io(out, e)));
    match written {
        Ok(files) => Ok(Packaged { files: files.into_iter().map(|f| out.join(f)).collect() }),
        Err(e) => {
            let _ = std::fs::remove_dir_all(&staging);
            Err(e)
        }
    }
}

/// Whether `dir` is a package `package` wrote (its dataset is then `dir/data`).
pub fn is_package(dir: &Path) -> bool {
    !dir.join("manifest.json").exists() && dir.join("datapackage.json").is_file() && dir.join("data/manifest.json").is_file()
}

/// Where the package is built: a hidden folder beside `out`, so the last step is a rename.
fn staging_beside(out: &Path) -> PathBuf {
    let name = out.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_else(|| "package".into());
    out.with_file_name(format!(".{name}.tmp"))
}

/// Every file of the package under `dir`; their paths relative to it, sorted.
fn write_all(dataset: &Path, dir: &Path, m: &Manifest, o: &Options) -> Result<Vec<String>> {
    let data = dir.join("data");
    std::fs::create_dir_all(&data).map_err(|e| Error::io(&data, e))?;
    let mut files = vec!["data/manifest.json".to_string()];
    copy(&dataset.join("manifest.json"), &data.join("manifest.json"))?;
    for name in m.tables.keys().map(|t| format!("{t}.parquet")).chain(m.files.keys().cloned()) {
        copy(&dataset.join(&name), &data.join(&name))?;
        files.push(format!("data/{name}"));
    }
    // The copies are what the package hands on: they, not the originals, must match the
    // manifest (each file is read once more either way).
    if let Some(d) = crate::dataset::verify::verify(&data, None)?.first() {
        return Err(Error::dataset(dataset, format!("does not match its manifest ({d}; `hindsight verify` lists all): package a dataset as it was made")));
    }
    let plan = match &o.plan {
        Some(p) => {
            let deviations = crate::plan::Plan::load(p)?.deviations(m);
            copy(p, &dir.join("plan.json"))?;
            files.push("plan.json".into());
            Some(crate::plan::verdict(Path::new("plan.json"), &deviations))
        }
        None => None,
    };
    let title = o.title.clone().unwrap_or_else(|| format!("What became of AI agents' actions: a hindsight study captured {}", day(&m.captured_at)));
    let study = Study { m, o, title: &title, plan: plan.as_deref() };
    let texts = [
        ("datapackage.json", pretty(&datapackage(&data, &study)?)?),
        ("ro-crate-metadata.json", pretty(&ro_crate(&study))?),
        ("CITATION.cff", citation(&study)),
        (".zenodo.json", pretty(&zenodo(&study))?),
        ("README.md", readme(dataset, &study)?),
    ];
    for (name, text) in texts {
        let p = dir.join(name);
        std::fs::write(&p, text).map_err(|e| Error::io(&p, e))?;
        files.push(name.to_string());
    }
    files.sort();
    Ok(files)
}

fn copy(from: &Path, to: &Path) -> Result<()> {
    std::fs::copy(from, to).map(|_| ()).map_err(|e| Error::io(from, e))
}

fn pretty(v: &Value) -> Result<String> {
    Ok(serde_json::to_string_pretty(v)? + "\n")
}

/// The date part of an RFC 3339 time.
fn day(t: &str) -> &str {
    t.get(..10).unwrap_or(t)
}

/// The study being packaged: its manifest, the researcher's options and the title.
struct Study<'a> {
    m: &'a Manifest,
    o: &'a Options,
    title: &'a str,
    /// What the README says of the plan, when one was given.
    plan: Option<&'a str>,
}

impl Study<'_> {
    fn description(&self) -> String {
        self.o.description.clone().unwrap_or_else(|| {
            format!(
                "Outcomes of AI agents' actions (safe outputs) in GitHub repositories, judged by hindsight {} on a snapshot captured {}: what each repository did with each action, per window, and how strong the evidence is. Tables in Parquet; their columns are described in datapackage.json and in each file's metadata.",
                self.version(),
                self.m.captured_at
            )
        })
    }

    fn version(&self) -> &str {
        self.m.tool.get("version").map(String::as_str).unwrap_or("unknown")
    }

    /// A name as Frictionless wants it: lower case, digits, `-`, `_`, `.`.
    fn name(&self) -> String {
        let mut n: String = self.title.to_lowercase().chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect();
        while n.contains("--") {
            n = n.replace("--", "-");
        }
        n.trim_matches('-').chars().take(80).collect()
    }
}

/// The Frictionless Table Schema type of an Arrow type.
fn field_type(t: &arrow::datatypes::DataType) -> &'static str {
    use arrow::datatypes::DataType as D;
    match t {
        D::Utf8 | D::LargeUtf8 | D::Utf8View => "string",
        D::Int8 | D::Int16 | D::Int32 | D::Int64 | D::UInt8 | D::UInt16 | D::UInt32 | D::UInt64 => "integer",
        D::Float16 | D::Float32 | D::Float64 | D::Decimal128(..) | D::Decimal256(..) => "number",
        D::Boolean => "boolean",
        D::Timestamp(..) => "datetime",
        D::Date32 | D::Date64 => "date",
        D::List(_) | D::LargeList(_) | D::ListView(_) | D::FixedSizeList(..) => "array",
        D::Struct(_) | D::Map(..) => "object",
        D::Dictionary(_, v) => field_type(v),
        _ => "any",
    }
}

/// One resource per table, its schema from the Parquet file (whose field metadata carries
/// the data dictionary).
fn datapackage(data: &Path, s: &Study) -> Result<Value> {
    let mut resources = Vec::new();
    for (name, t) in &s.m.tables {
        let path = data.join(format!("{name}.parquet"));
        let file = std::fs::File::open(&path).map_err(|e| Error::io(&path, e))?;
        let schema = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file).map_err(hindsight_core::Error::from)?.schema().clone();
        let described = |md: &std::collections::HashMap<String, String>| md.get(crate::dataset::dictionary::KEY).cloned();
        let fields: Vec<Value> = schema
            .fields()
            .iter()
            .map(|f| {
                let mut v = json!({"name": f.name(), "type": field_type(f.data_type())});
                if let Some(d) = described(f.metadata()) {
                    v["description"] = json!(d);
                }
                v
            })
            .collect();
        let mut r = json!({
            "name": name, "path": format!("data/{name}.parquet"), "profile": "tabular-data-resource",
            "format": "parquet", "mediatype": "application/vnd.apache.parquet",
            "bytes": t.bytes, "hash": format!("sha256:{}", t.sha256), "schema": {"fields": fields, "missingValues": ["", "nan"]},
        });
        if let Some(d) = described(schema.metadata()) {
            r["description"] = json!(d);
        }
        resources.push(r);
    }
    Ok(json!({
        "profile": "data-package", "name": s.name(), "title": s.title, "description": s.description(),
        "created": s.m.captured_at,
        "licenses": [{"name": s.o.license, "path": format!("https://spdx.org/licenses/{}.html", s.o.license)}],
        "contributors": s.o.authors.iter().map(|a| json!({"title": a, "role": "author"})).collect::<Vec<_>>(),
        "resources": resources,
    }))
}

/// The RO-Crate: the root dataset, its files, and the run that made them (a `CreateAction`
/// whose instrument is hindsight and whose objects are the inputs the manifest records).
fn ro_crate(s: &Study) -> Value {
    let license = format!("https://spdx.org/licenses/{}", s.o.license);
    let mut graph = vec![
        json!({"@id": "ro-crate-metadata.json", "@type": "CreativeWork", "conformsTo": {"@id": "https://w3id.org/ro/crate/1.1"}, "about": {"@id": "./"}}),
        json!({"@id": PROCESS_RUN_CRATE, "@type": "CreativeWork", "name": "Process Run Crate", "version": "0.5"}),
        json!({"@id": license, "@type": "CreativeWork", "name": s.o.license, "identifier": s.o.license}),
        json!({"@id": "#hindsight", "@type": "SoftwareApplication", "name": "hindsight", "version": s.version()}),
    ];
    let mut parts = vec![json!({"@id": "data/manifest.json"})];
    graph.push(json!({"@id": "data/manifest.json", "@type": "File", "name": "The dataset's manifest: every input file's hash, every table's rows and hash, the settings used", "encodingFormat": "application/json"}));
    let mut results = Vec::new();
    for (name, t) in &s.m.tables {
        let id = format!("data/{name}.parquet");
        graph.push(json!({"@id": id, "@type": "File", "name": name, "encodingFormat": "application/vnd.apache.parquet", "contentSize": t.bytes.to_string(), "sha256": t.sha256}));
        parts.push(json!({"@id": id}));
        results.push(json!({"@id": id}));
    }
    for (name, t) in &s.m.files {
        let id = format!("data/{name}");
        graph.push(json!({"@id": id, "@type": "File", "name": name, "contentSize": t.bytes.to_string(), "sha256": t.sha256}));
        parts.push(json!({"@id": id}));
        results.push(json!({"@id": id}));
    }
    let mut objects = Vec::new();
    for f in &s.m.inputs {
        let id = format!("#input/{}/{}", f.input, f.path);
        graph.push(json!({"@id": id, "@type": "File", "name": f.path, "description": format!("{} input", f.input), "contentSize": f.size.to_string(), "sha256": f.sha256}));
        objects.push(json!({"@id": id}));
    }
    for (id, name, value) in settings(s.m) {
        graph.push(json!({"@id": id, "@type": "PropertyValue", "name": name, "value": value}));
        objects.push(json!({"@id": id}));
    }
    graph.push(json!({
        "@id": "#run", "@type": "CreateAction", "name": "hindsight: the snapshot and runs converted, every safe output judged in every window",
        "instrument": {"@id": "#hindsight"}, "object": objects, "result": results, "endTime": s.m.captured_at, "actionStatus": {"@id": "http://schema.org/CompletedActionStatus"},
    }));
    graph.push(json!({
        "@id": "./", "@type": "Dataset", "name": s.title, "description": s.description(), "datePublished": s.m.captured_at,
        "license": {"@id": license}, "conformsTo": [{"@id": PROCESS_RUN_CRATE}], "hasPart": parts, "mentions": [{"@id": "#run"}],
        "author": s.o.authors.iter().map(|a| json!({"@id": format!("#author/{}", a.replace(' ', "_"))})).collect::<Vec<_>>(),
    }));
    for a in &s.o.authors {
        graph.push(json!({"@id": format!("#author/{}", a.replace(' ', "_")), "@type": "Person", "name": a}));
    }
    json!({"@context": "https://w3id.org/ro/crate/1.1/context", "@graph": graph})
}

/// The settings the outcomes were judged under, as (id, name, value): the windows, and the
/// policy and risk policy as the manifest records them.
fn settings(m: &Manifest) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    if !m.windows.is_empty() {
        out.push(("#setting/windows".into(), "windows".into(), m.windows.join(",")));
    }
    for (key, v) in [("policy", &m.policy), ("risk_policy", &m.risk_policy), ("quality_policy", &m.quality_policy), ("task_policy", &m.task_policy)] {
        if let Some(v) = v {
            out.push((format!("#setting/{key}"), key.into(), v.to_string()));
        }
    }
    out
}

/// A YAML string: double-quoted, with `"` and `\` escaped.
fn yaml(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', " "))
}

/// An author as CITATION.cff has them: `Family, Given` split, any other name whole.
fn cff_author(a: &str) -> String {
    match a.split_once(',') {
        Some((family, given)) => format!("  - family-names: {}\n    given-names: {}\n", yaml(family.trim()), yaml(given.trim())),
        None => format!("  - name: {}\n", yaml(a.trim())),
    }
}

fn citation(s: &Study) -> String {
    let authors: String = s.o.authors.iter().map(|a| cff_author(a)).collect();
    format!(
        "cff-version: 1.2.0\nmessage: \"If you use this dataset, please cite it as below.\"\ntype: dataset\ntitle: {}\nabstract: {}\nauthors:\n{authors}license: {}\ndate-released: {}\nversion: {}\nkeywords:\n  - AI agents\n  - GitHub\n  - hindsight\n",
        yaml(s.title),
        yaml(&s.description()),
        yaml(&s.o.license),
        yaml(day(&s.m.captured_at)),
        yaml(s.version()),
    )
}

fn zenodo(s: &Study) -> Value {
    json!({
        "title": s.title, "upload_type": "dataset", "description": s.description(),
        "creators": s.o.authors.iter().map(|a| json!({"name": a})).collect::<Vec<_>>(),
        "license": s.o.license.to_lowercase(), "publication_date": day(&s.m.captured_at),
        "version": s.version(), "keywords": ["AI agents", "GitHub", "hindsight"],
    })
}

/// The README: what the study is, how it was made, what each file is, and its figures.
fn readme(dataset: &Path, s: &Study) -> Result<String> {
    let figures = report::dashboard_with(dataset, report::format::Format::Markdown, report::Limits::default(), &report::Engine::Local)?;
    let mut tables = String::new();
    for (name, t) in &s.m.tables {
        tables.push_str(&format!("| `data/{name}.parquet` | {} |\n", t.rows));
    }
    Ok(format!(
        "# {}\n\n{}\n\nAuthors: {}. Licence: {}. Made by hindsight {} from a snapshot captured {}; windows: {}.\n\n\
         ## Files\n\n- `data/`: the dataset as hindsight wrote it (Parquet tables and `manifest.json`); `hindsight verify --dataset data` checks every file against the manifest.\n\
         - `datapackage.json`: a Frictionless Data Package of the tables, with each column's meaning.\n\
         - `ro-crate-metadata.json`: an RO-Crate (Process Run Crate) naming the inputs with their hashes and the settings.\n\
         - `CITATION.cff`, `.zenodo.json`: how to cite it.\n\n| table | rows |\n|---|---|\n{tables}\n{}## Figures\n\n{figures}",
        s.title,
        s.description(),
        s.o.authors.join("; "),
        s.o.license,
        s.version(),
        s.m.captured_at,
        if s.m.windows.is_empty() { "none".to_string() } else { s.m.windows.join(", ") },
        s.plan.map(|p| format!("## Analysis plan\n\n{p}\n")).unwrap_or_default(),
    ))
}
