//! `hindsight verify`: recompute what the manifest records about a dataset and report any
//! drift: every table's size, sha256 and row count, every other output file, files in the
//! directory the manifest does not record, the record counts (read = used + quarantined,
//! checked against the files and the tables), and with the inputs at hand every input
//! file's size and sha256.

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

use parquet::file::reader::{FileReader, SerializedFileReader};

use super::manifest::Manifest;
use crate::error::{Error, Result};

/// One difference between the manifest and what is on disk.
#[derive(Clone, Debug, PartialEq)]
pub enum Drift {
    /// Recorded in the manifest, absent on disk.
    Missing { file: String },
    /// On disk, not recorded in the manifest: added after hindsight wrote the dataset, or
    /// left by a run that did not finish.
    Unrecorded { file: String },
    /// A recorded fact (size, sha256, rows) that the file no longer has.
    Differs { file: String, what: &'static str, recorded: String, found: String },
    /// A table that cannot be read as Parquet.
    Unreadable { file: String, reason: String },
    /// Record counts that do not add up.
    Records { input: String, message: String },
    /// Under an input given, a file the dataset was not made from: added since (a new run,
    /// a new cassette), so a re-run would read it.
    Added { file: String },
    /// A recorded input file found under another name (same size and sha256).
    Renamed { from: String, to: String },
    /// An input the dataset was made from, not given to verify: its files are not checked.
    NotGiven { input: String, files: usize },
}

impl fmt::Display for Drift {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Drift::Missing { file } => write!(f, "{file}: recorded in manifest.json, missing on disk"),
            Drift::Unrecorded { file } => {
                write!(f, "{file}: on disk, not recorded in manifest.json (not written by hindsight, or left by a run that did not finish)")
            }
            Drift::Differs { file, what, recorded, found } => write!(f, "{file}: {what} is {found}, manifest.json records {recorded}"),
            Drift::Unreadable { file, reason } => write!(f, "{file}: cannot be read: {reason}"),
            Drift::Records { input, message } => write!(f, "records of input `{input}`: {message}"),
            Drift::Added { file } => write!(f, "{file}: in the inputs, not among the files the dataset was made from (added since: a re-run would read it)"),
            Drift::Renamed { from, to } => write!(f, "{from}: renamed {to} (same bytes)"),
            Drift::NotGiven { input, files } => write!(f, "input `{input}` ({files} file(s)) not given: not checked (give it to check them)"),
        }
    }
}

fn rows(path: &Path) -> Result<usize> {
    let f = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let r = SerializedFileReader::new(f)?;
    Ok(r.metadata().file_metadata().num_rows() as usize)
}

/// The study's input paths: the snapshot and runs directories, the traces paths and the
/// tasks directory (if any).
type Inputs<'a> = (&'a Path, &'a Path, &'a [std::path::PathBuf], Option<&'a Path>);

/// Drift between the manifest and the files. `inputs` are the snapshot and runs
/// directories, the traces paths and the tasks directory (if any), when the caller has them.
pub fn verify(dataset: &Path, inputs: Option<Inputs<'_>>) -> Result<Vec<Drift>> {
    let m = Manifest::load(dataset)?;
    let mut out = Vec::new();
    let table_rows = tables(dataset, &m, &mut out);
    for (name, t) in &m.files {
        match std::fs::read(dataset.join(name)) {
            Err(_) => out.push(Drift::Missing { file: name.clone() }),
            Ok(bytes) => {
                compare(&mut out, name, "size", t.bytes.to_string(), bytes.len().to_string());
                compare(&mut out, name, "sha256", t.sha256.clone(), crate::json::sha256_hex(&bytes));
            }
        }
    }
    out.extend(unrecorded(dataset, &m)?);
    out.extend(record_counts(dataset, &m, &table_rows));
    if let Some(inputs) = inputs {
        input_files(&m, inputs, &mut out);
    }
    Ok(out)
}

/// A difference when what the manifest records of `file` is not what was found.
fn compare(out: &mut Vec<Drift>, file: &str, what: &'static str, recorded: String, found: String) {
    if recorded != found {
        out.push(Drift::Differs { file: file.to_string(), what, recorded, found });
    }
}

/// Every table's size, sha256 and rows against the manifest; the rows of those that could
/// be read, by table.
fn tables<'m>(dataset: &Path, m: &'m Manifest, out: &mut Vec<Drift>) -> BTreeMap<&'m str, usize> {
    let mut table_rows: BTreeMap<&str, usize> = BTreeMap::new();
    for (name, t) in &m.tables {
        let file = format!("{name}.parquet");
        let p = dataset.join(&file);
        match std::fs::read(&p) {
            Err(_) => out.push(Drift::Missing { file }),
            Ok(bytes) => {
                compare(out, &file, "size", t.bytes.to_string(), bytes.len().to_string());
                compare(out, &file, "sha256", t.sha256.clone(), crate::json::sha256_hex(&bytes));
                match rows(&p) {
                    Ok(n) => {
                        compare(out, &file, "rows", t.rows.to_string(), n.to_string());
                        table_rows.insert(name, n);
                    }
                    Err(e) => out.push(Drift::Unreadable { file, reason: e.to_string() }),
                }
            }
        }
    }
    table_rows
}

/// Anything else in the directory, by name: hindsight writes nothing it does not record.
fn unrecorded(dataset: &Path, m: &Manifest) -> Result<Vec<Drift>> {
    let mut extra = Vec::new();
    for e in std::fs::read_dir(dataset).map_err(|e| Error::io(dataset, e))? {
        let e = e.map_err(|e| Error::io(dataset, e))?;
        let name = e.file_name().to_string_lossy().to_string();
        let is_file = e.file_type().map(|t| t.is_file()).unwrap_or(false);
        let recorded = name == "manifest.json" || m.files.contains_key(&name) || name.strip_suffix(".parquet").is_some_and(|t| m.tables.contains_key(t));
        if !(recorded && is_file) {
            extra.push(name);
        }
    }
    extra.sort();
    Ok(extra.into_iter().map(|file| Drift::Unrecorded { file }).collect())
}

/// Every input file the manifest records, found under the input it came from, against its
/// recorded size and sha256; and the set of files under each input given against the
/// manifest's (what convert read, and what it listed as skipped): a file added is named, a
/// recorded one absent is missing, one found under a new name is renamed. An input not given
/// is said once, not as each of its files missing.
fn input_files(m: &Manifest, (snapshot, runs, traces, tasks): Inputs<'_>, out: &mut Vec<Drift>) {
    // The roots given, by input: a directory walked, or (traces) a file itself.
    let mut roots: BTreeMap<&str, Vec<&Path>> = BTreeMap::new();
    roots.insert("snapshot", vec![snapshot]);
    roots.insert("runs", vec![runs]);
    if let Some(t) = tasks {
        roots.insert(crate::tasks::INPUT, vec![t]);
    }
    if !traces.is_empty() {
        roots.insert("traces", traces.iter().map(std::path::PathBuf::as_path).collect());
    }
    let mut not_given: BTreeMap<&str, usize> = BTreeMap::new();
    let mut missing: Vec<&crate::dataset::manifest::InputFileEntry> = Vec::new();
    for f in &m.inputs {
        let Some(given) = roots.get(f.input.as_str()) else {
            *not_given.entry(f.input.as_str()).or_insert(0) += 1;
            continue;
        };
        let path = match f.input.as_str() {
            // Trace paths are relative to the directory given, or a file's own name.
            "traces" => given
                .iter()
                .map(|t| if t.is_dir() { t.join(&f.path) } else { t.to_path_buf() })
                .find(|p| p.is_file() && p.ends_with(&f.path))
                .unwrap_or_else(|| Path::new(&f.path).to_path_buf()),
            _ => given[0].join(&f.path),
        };
        let label = format!("{}/{}", f.input, f.path);
        // A file convert refused (a link out of the input, a FIFO) was never read: it has
        // no sha256 to compare, and must not be opened now either.
        if f.sha256.is_empty() {
            continue;
        }
        if std::fs::metadata(&path).is_ok_and(|m| !m.is_file()) {
            out.push(Drift::Unreadable { file: label, reason: "not a regular file".into() });
            continue;
        }
        match std::fs::read(path) {
            Err(_) => missing.push(f),
            Ok(bytes) => {
                compare(out, &label, "size", f.size.to_string(), bytes.len().to_string());
                compare(out, &label, "sha256", f.sha256.clone(), crate::json::sha256_hex(&bytes));
            }
        }
    }
    // Files under the directories given that the manifest does not know.
    let mut added: Vec<(String, std::path::PathBuf)> = Vec::new();
    for (input, given) in &roots {
        let known: std::collections::BTreeSet<&str> =
            m.inputs.iter().filter(|f| f.input == *input).map(|f| f.path.as_str()).chain(m.skipped.iter().filter(|s| s.input == *input).map(|s| s.path.as_str())).collect();
        for root in given.iter().filter(|r| r.is_dir()) {
            let Ok(files) = crate::inputs::walk(root) else { continue };
            added.extend(files.into_iter().filter(|p| !known.contains(p.as_str())).map(|p| (format!("{input}/{p}"), root.join(&p))));
        }
    }
    renames(missing, added, out);
    out.extend(not_given.into_iter().map(|(input, files)| Drift::NotGiven { input: input.to_string(), files }));
}

/// The recorded input files `missing` from the inputs given, and the files `added` under
/// them (name, path): a missing file whose bytes an added one has was renamed; the others
/// are missing, or added. An added file is hashed once, and only when a missing one has its
/// size.
fn renames(missing: Vec<&crate::dataset::manifest::InputFileEntry>, added: Vec<(String, std::path::PathBuf)>, out: &mut Vec<Drift>) {
    let mut hashes: Vec<Option<String>> = vec![None; added.len()];
    let mut renamed = vec![false; added.len()];
    for f in missing {
        let label = format!("{}/{}", f.input, f.path);
        let prefix = format!("{}/", f.input);
        let same = (0..added.len()).find(|&i| {
            let (name, p) = &added[i];
            if renamed[i] || !name.starts_with(&prefix) || !std::fs::metadata(p).is_ok_and(|m| m.len() == f.size) {
                return false;
            }
            let hash = hashes[i].get_or_insert_with(|| std::fs::read(p).map(|b| crate::json::sha256_hex(&b)).unwrap_or_default());
            *hash == f.sha256
        });
        match same {
            Some(i) => {
                renamed[i] = true;
                out.push(Drift::Renamed { from: label, to: added[i].0.clone() });
            }
            None => out.push(Drift::Missing { file: label }),
        }
    }
    out.extend(added.into_iter().zip(renamed).filter(|(_, r)| !r).map(|((file, _), _)| Drift::Added { file }));
}

/// The manifest's record counts, recomputed: records read must equal the sum over the
/// input's files, and used + quarantined + superseded; quarantined must equal the input's
/// rows in the quarantine table; used (+ superseded) captures and traces must equal the
/// `responses` and `traces` rows.
fn record_counts(dataset: &Path, m: &Manifest, table_rows: &BTreeMap<&str, usize>) -> Vec<Drift> {
    let mut out = Vec::new();
    let quarantined = match table_rows.contains_key("quarantine") {
        false => None,
        true => match quarantined_by_input(dataset) {
            Ok(q) => Some(q),
            Err(e) => {
                out.push(Drift::Unreadable { file: "quarantine.parquet".into(), reason: e.to_string() });
                None
            }
        },
    };
    for (input, r) in &m.records {
        let mut bad = |message: String| out.push(Drift::Records { input: input.clone(), message });
        let in_files: usize = m.inputs.iter().filter(|f| &f.input == input).map(|f| f.records).sum();
        if r.input != in_files {
            bad(format!("{} read, but the input files recorded hold {in_files}", r.input));
        }
        if r.input != r.used + r.quarantined + r.superseded {
            bad(format!(
                "{} read, but {} used + {} quarantined + {} superseded = {}",
                r.input,
                r.used,
                r.quarantined,
                r.superseded,
                r.used + r.quarantined + r.superseded
            ));
        }
        if let Some(quarantined) = &quarantined {
            let q = quarantined.get(input.as_str()).copied().unwrap_or(0);
            if r.quarantined != q {
                bad(format!("{} quarantined, but quarantine.parquet holds {q} of its records", r.quarantined));
            }
        }
        if input == crate::aidev::INPUT {
            // Every used AIDev record is a row of one `aidev_*` table.
            let rows: usize = table_rows.iter().filter(|(t, _)| t.starts_with("aidev_")).map(|(_, n)| *n).sum();
            if r.used != rows {
                bad(format!("{} used, but the aidev_* tables hold {rows} rows", r.used));
            }
        }
        if input == crate::tasks::INPUT {
            // Every used task record is a row of `tasks`, every used event one of `task_events`,
            // every prompt text one of `prompts`.
            let rows: usize = ["tasks", "task_events", "prompts"].iter().filter_map(|t| table_rows.get(t)).sum();
            if r.used != rows {
                bad(format!("{} used, but tasks, task_events and prompts hold {rows} rows", r.used));
            }
        }
        let table = match input.as_str() {
            "snapshot" => Some("responses"),
            "traces" => Some("traces"),
            _ => None,
        };
        if let Some(n) = table.and_then(|t| table_rows.get(t).map(|n| (t, *n))) {
            // `responses` keeps superseded copies too.
            if r.used + r.superseded != n.1 {
                bad(format!("{} used + {} superseded, but {}.parquet holds {} rows", r.used, r.superseded, n.0, n.1));
            }
        }
    }
    out
}

/// Rows of quarantine.parquet per input.
fn quarantined_by_input(dataset: &Path) -> Result<BTreeMap<String, usize>> {
    use arrow::array::{Array, AsArray};
    let p = dataset.join("quarantine.parquet");
    let f = std::fs::File::open(&p).map_err(|e| Error::io(&p, e))?;
    let reader = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(f)?.build()?;
    let mut out = BTreeMap::new();
    for batch in reader {
        let batch = batch?;
        let col = batch.column_by_name("input").ok_or_else(|| Error::Dataset { path: p.clone(), message: "no `input` column".into() })?;
        let col = arrow::compute::cast(col, &arrow::datatypes::DataType::Utf8)?;
        let col = col.as_string::<i32>();
        for i in 0..col.len() {
            if col.is_valid(i) {
                *out.entry(col.value(i).to_string()).or_insert(0) += 1;
            }
        }
    }
    Ok(out)
}
