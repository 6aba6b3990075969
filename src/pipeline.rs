//! The stages strung together: convert (inputs -> dataset), evaluate, report.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::dataset::manifest::{InputFileEntry, Manifest, RecordCount};
use crate::dataset::{write_table, Staging};
use crate::error::{Error, Result};
use crate::evaluate::{Policy, Window};
use crate::progress::Progress;
use crate::quarantine::{self, Quarantined};
use crate::snapshot;

/// Where a study's inputs are.
#[derive(Clone, Debug)]
pub struct Study {
    pub snapshot: PathBuf,
    pub runs: PathBuf,
    /// opentraces JSONL files or directories (optional).
    pub traces: Vec<PathBuf>,
}

/// What convert did, for the terminal and for tests.
#[derive(Clone, Debug)]
pub struct Converted {
    pub records: BTreeMap<String, RecordCount>,
    pub quarantined: Vec<Quarantined>,
    pub safe_outputs: usize,
    pub responses: usize,
    /// Types with no rule (custom safe jobs, newer gh-aw types), with their output counts:
    /// they are kept and evaluated as `unknown`, never dropped.
    pub types_without_rule: BTreeMap<String, usize>,
}

fn check_dir(p: &Path, what: &str) -> Result<()> {
    if p.is_dir() {
        Ok(())
    } else {
        Err(Error::Layout { path: p.to_path_buf(), message: format!("--{what} must be a directory") })
    }
}

pub fn convert(study: &Study, out: &Path, progress: &Progress) -> Result<Converted> {
    check_dir(&study.snapshot, "snapshot")?;
    check_dir(&study.runs, "runs")?;
    let bar = progress.bar("convert", 4);
    let snap = snapshot::read(&study.snapshot)?;
    bar.inc(1);
    let runs = crate::runs::read(&study.runs)?;
    let traces = crate::traces::read(&study.traces)?;
    bar.inc(1);

    let staging = Staging::new(out)?;
    let mut manifest = Manifest::new(crate::time::format(&snap.info.captured_at));
    let mut files: Vec<InputFileEntry> = snap.files.iter().chain(runs.files.iter()).chain(traces.files.iter()).map(InputFileEntry::from).collect();
    files.sort_by(|a, b| (&a.input, &a.path).cmp(&(&b.input, &b.path)));
    manifest.inputs = files;

    let mut quarantined = snap.quarantined.clone();
    quarantined.extend(runs.quarantined.iter().cloned());
    quarantined.extend(traces.quarantined.iter().cloned());
    quarantined.sort();
    let count = |input: &str, used: usize| RecordCount {
        input: manifest.inputs.iter().filter(|f| f.input == input).map(|f| f.records).sum(),
        used,
        quarantined: quarantined.iter().filter(|q| q.input == input).count(),
    };
    let mut records: BTreeMap<String, RecordCount> =
        [("snapshot".to_string(), count("snapshot", snap.captures.len())), ("runs".to_string(), count("runs", runs.used))].into_iter().collect();
    if !study.traces.is_empty() {
        records.insert("traces".to_string(), count("traces", traces.records.len()));
    }
    manifest.records = records.clone();

    // The responses table is written while the typed tables are built; then every table is
    // written in parallel. Each is its own file, so the bytes do not depend on the order.
    let dir = staging.dir.clone();
    let (responses, mut tables) = rayon::join(
        || -> Result<_> { crate::dataset::write_batch(&dir, "responses", &snapshot::tables::responses_batch(&snap.captures)?) },
        || snapshot::tables::typed(&snap.captures),
    );
    manifest.record_table("responses", &responses?);
    tables.push(crate::runs::tables::safe_outputs(&runs.outputs));
    tables.push(crate::runs::tables::runs(&runs.runs));
    tables.push(crate::runs::tables::requests(&runs.requests));
    tables.push(quarantine::table(&quarantined));
    if !study.traces.is_empty() {
        tables.extend(crate::traces::tables(&traces.records));
    }
    bar.inc(1);
    let written: Vec<Result<crate::dataset::Written>> = tables.par_iter().map(|t| write_table(&dir, t)).collect();
    for (t, w) in tables.iter().zip(written) {
        manifest.record_table(t.name, &w?);
    }
    manifest.save(&staging.dir)?;
    staging.commit()?;
    bar.finish_and_clear();
    let mut types_without_rule = BTreeMap::new();
    for o in &runs.outputs {
        if crate::evaluate::rules::find(&o.output_type).is_none() && !crate::runs::item::is_system_type(&o.output_type) {
            *types_without_rule.entry(o.output_type.clone()).or_insert(0) += 1;
        }
    }
    Ok(Converted { types_without_rule, records, quarantined, safe_outputs: runs.outputs.len(), responses: snap.captures.len() })
}

pub fn evaluate(dataset: &Path, windows: &[Window], policy: &Policy, progress: &Progress) -> Result<usize> {
    crate::evaluate::evaluate_dataset(dataset, windows, policy, progress)
}

/// convert + evaluate (+ attach when there are traces); the caller prints the dashboard.
pub fn run(study: &Study, out: &Path, windows: &[Window], policy: &Policy, progress: &Progress) -> Result<Converted> {
    let c = convert(study, out, progress)?;
    evaluate(out, windows, policy, progress)?;
    if !study.traces.is_empty() {
        let window = if windows.contains(&Window::Hours(168)) { Window::Hours(168) } else { Window::Snapshot };
        crate::attach::attach(out, None, &crate::attach::Options { window, rebuild_attribution: false })?;
    }
    Ok(c)
}
