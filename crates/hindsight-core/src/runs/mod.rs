//! Safe-output logs: gh-aw run directories (`aw_info.json`, `safe-output-items.jsonl` in
//! its older thin and newer rich shapes, `agent_output.json`, `safeoutputs.jsonl`,
//! `temporary-id-map.json`) and runs holding normalized records in `safe-outputs.jsonl`
//! (docs/SPEC.md [SPEC-RECORDS]).
//!
//! Targets come only from what was recorded (a number, a URL, a temporary-id mapping),
//! never from a guess. Requested-but-not-executed items are kept, marked, and later
//! evaluated as `skipped`.

pub mod item;
pub mod output_type;
pub mod tables;

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use rayon::prelude::*;
use serde_json::Value;

use crate::error::{Error, Result};
use crate::inputs::InputFile;
use crate::json::{int_at, kind, str_at};
use crate::quarantine::Quarantined;

pub use item::{Execution, SafeOutput};

/// The files hindsight reads in a run directory, by role. Each is found at the run
/// directory's top level, or below it in the artifact folders `gh run download` and
/// `gh aw logs` extract (see [`locate`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RunFile {
    AwInfo,
    Manifest,
    Normalized,
    AgentOutput,
    RequestLog,
    TempIdMap,
    /// The run as GitHub's Actions API answered (`gh aw logs` keeps it as `run.json`):
    /// its conclusion says whether it was cancelled.
    RunApi,
    /// A line coverage report the run uploaded (LCOV or Cobertura; gh-aw's
    /// `upload_code_coverage` stages one as an artifact): which lines its tests ran.
    Coverage,
}

impl RunFile {
    pub const ALL: [RunFile; 8] = [
        RunFile::AwInfo,
        RunFile::Manifest,
        RunFile::Normalized,
        RunFile::AgentOutput,
        RunFile::RequestLog,
        RunFile::TempIdMap,
        RunFile::RunApi,
        RunFile::Coverage,
    ];

    /// The names gh-aw has given the file, preferred first. The request log was
    /// `safe_output.jsonl` (artifact `safe-output`) before `safeoutputs.jsonl`.
    pub fn names(self) -> &'static [&'static str] {
        match self {
            RunFile::AwInfo => &[AW_INFO],
            RunFile::Manifest => &[MANIFEST],
            RunFile::Normalized => &[NORMALIZED],
            RunFile::AgentOutput => &[AGENT_OUTPUT],
            RunFile::RequestLog => &[REQUEST_LOG, "safe_output.jsonl"],
            RunFile::TempIdMap => &[TEMP_ID_MAP],
            RunFile::RunApi => &[RUN_API],
            RunFile::Coverage => &["lcov.info", "coverage.lcov", "cobertura.xml", "coverage.xml", "cobertura-coverage.xml"],
        }
    }

    fn of_name(name: &str) -> Option<RunFile> {
        RunFile::ALL.into_iter().find(|f| f.names().contains(&name))
    }
}

/// How deep below a run directory its files are looked for: `agent/tmp/gh-aw/agent_output.json`
/// (older `agent` artifacts) is three levels down.
pub const ARTIFACT_DEPTH: usize = 3;

/// Artifact folders holding backup copies, read only when the primary copy is absent.
const FALLBACK_ARTIFACTS: &[&str] = &["agent-output-fallback"];

/// The files of one run directory, by role.
pub(crate) type Located = HashMap<RunFile, std::path::PathBuf>;

/// Where each file of a run is. Looked for at the top level first, then in artifact folders
/// (`agent/`, `activation/`, `safe-outputs-items/`, `aw_info.json/` ...; hash-prefixed ones
/// too), shallowest first, backup artifacts last, then by path. Hidden folders (gh aw logs'
/// `.downloaded-artifacts/`, the leftovers of an interrupted download) are not looked in.
pub(crate) fn locate(dir: &Path) -> Located {
    let mut found: Vec<(usize, bool, String, RunFile, std::path::PathBuf)> = Vec::new();
    fn go(base: &Path, d: &Path, depth: usize, fallback: bool, found: &mut Vec<(usize, bool, String, RunFile, std::path::PathBuf)>) {
        let Ok(rd) = std::fs::read_dir(d) else { return };
        for e in rd.flatten() {
            let name = e.file_name().to_string_lossy().to_string();
            let p = e.path();
            let is_dir = std::fs::metadata(&p).map(|m| m.is_dir()).unwrap_or(false) && !e.file_type().map(|t| t.is_symlink()).unwrap_or(true);
            if is_dir {
                if depth < ARTIFACT_DEPTH && !name.starts_with('.') {
                    go(base, &p, depth + 1, fallback || FALLBACK_ARTIFACTS.iter().any(|f| name.ends_with(f)), found);
                }
            } else if let Some(role) = RunFile::of_name(&name) {
                let rel = p.strip_prefix(base).unwrap_or(&p).to_string_lossy().replace('\\', "/");
                found.push((depth, fallback, rel, role, p));
            }
        }
    }
    go(dir, dir, 0, false, &mut found);
    found.sort_by(|a, b| (a.0, a.1, &a.2).cmp(&(b.0, b.1, &b.2)));
    let mut out = HashMap::new();
    for (_, _, _, role, p) in found {
        out.entry(role).or_insert(p);
    }
    out
}

pub(crate) const MANIFEST: &str = "safe-output-items.jsonl";
pub(crate) const NORMALIZED: &str = "safe-outputs.jsonl";
pub(crate) const AGENT_OUTPUT: &str = "agent_output.json";
pub(crate) const REQUEST_LOG: &str = "safeoutputs.jsonl";
pub(crate) const TEMP_ID_MAP: &str = "temporary-id-map.json";
pub(crate) const AW_INFO: &str = "aw_info.json";
pub(crate) const RUN_API: &str = "run.json";

/// One workflow run.
#[derive(Clone, Debug, Default)]
pub struct Run {
    pub run_id: String,
    pub(crate) run_id_source: &'static str,
    pub workflow_name: Option<String>,
    pub repository: Option<String>,
    pub actor: Option<String>,
    pub staged: bool,
    pub dir: String,
    pub(crate) executed_items: usize,
    pub(crate) requested_items: usize,
    pub(crate) errors: Vec<String>,
    pub(crate) aw_info: Option<String>,
    /// The run's conclusion as GitHub's Actions API gave it (`run.json`): `success`,
    /// `cancelled`, `failure`, `timed_out`, ...
    pub(crate) conclusion: Option<String>,
}

/// A request the agent made (agent_output.json item or safeoutputs.jsonl line).
#[derive(Clone, Debug)]
pub struct Request {
    pub run_id: String,
    pub file: String,
    /// 1-based in both files: the item's place in agent_output.json's `items`, or the line
    /// of safeoutputs.jsonl.
    pub(crate) position: usize,
    pub(crate) request_type: Option<String>,
    pub(crate) payload: String,
    /// A request log line that repeats an agent_output.json item (the same canonical
    /// payload): `agent_output.json#<position>`, so the request is counted once.
    pub(crate) same_as: Option<String>,
}

#[derive(Default)]
pub struct RunsRead {
    pub runs: Vec<Run>,
    pub outputs: Vec<SafeOutput<'static>>,
    pub(crate) requests: Vec<Request>,
    pub quarantined: Vec<Quarantined>,
    pub files: Vec<InputFile>,
    /// Input records used (counted where each is used, so that input = used +
    /// quarantined is a check, not a definition).
    pub used: usize,
    /// Run directories where no file holding safe outputs was found, with what was there.
    pub empty: Vec<EmptyRun>,
    /// The coverage reports read: (run id, the report's file, its format, its files).
    pub coverage: Vec<RunCoverage>,
}

/// A run's coverage report, read.
#[derive(Clone, Debug)]
pub struct RunCoverage {
    pub run_id: String,
    pub file: String,
    pub format: crate::coverage::CoverageFormat,
    pub files: crate::coverage::Report,
}

/// A run directory with nothing hindsight can read safe outputs from.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub struct EmptyRun {
    pub dir: String,
    pub reason: String,
}

pub fn read(dir: &Path) -> Result<RunsRead> {
    let mut outputs = Vec::new();
    let mut requests = Vec::new();
    let mut out = read_in_order(dir, |o, r| {
        outputs.extend(o);
        requests.extend(r);
        Ok(())
    })?;
    out.outputs = outputs;
    out.requests = requests;
    Ok(out)
}

/// Run directories read this many at a time (in parallel) in the second pass.
const RUNS_PER_STEP: usize = 1024;

/// Read every run, handing `sink` the outputs and requests of a few runs at a time in the
/// tables' own order (run id, then item index; run id, file, position), so a study of any
/// size is written without holding its outputs. The returned runs, files, quarantined
/// records and counts cover everything; its `outputs` and `requests` are left empty.
///
/// Two passes: the first reads each run's `aw_info.json` for its run id, the second reads
/// the rest in run-id order.
pub fn read_in_order(dir: &Path, sink: impl FnMut(Vec<SafeOutput<'static>>, Vec<Request>) -> Result<()>) -> Result<RunsRead> {
    read_in_steps(dir, RUNS_PER_STEP, sink)
}

fn read_in_steps(dir: &Path, per_step: usize, mut sink: impl FnMut(Vec<SafeOutput<'static>>, Vec<Request>) -> Result<()>) -> Result<RunsRead> {
    let rd = std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))?;
    let mut run_dirs = Vec::new();
    for entry in rd {
        let entry = entry.map_err(|e| Error::io(dir, e))?;
        if entry.file_type().map_err(|e| Error::io(entry.path(), e))?.is_dir() {
            run_dirs.push(entry.path());
        }
    }
    run_dirs.sort();
    // Each run's files are located once, for both passes.
    let heads: Vec<Result<(Run, RunsRead, Located)>> = run_dirs
        .par_iter()
        .map(|d| {
            let files = locate(d);
            read_run_info(dir, d, &files).map(|(run, part)| (run, part, files))
        })
        .collect();
    let mut out = RunsRead::default();
    let mut runs: Vec<(Run, &std::path::PathBuf, Located)> = Vec::with_capacity(run_dirs.len());
    for (h, d) in heads.into_iter().zip(&run_dirs) {
        let (run, part, files) = h?;
        out.absorb(part);
        runs.push((run, d, files));
    }
    // Two run directories claiming one run id would give colliding safe_output_ids.
    let mut seen: HashMap<&str, &str> = HashMap::new();
    for (r, _, _) in &runs {
        if let Some(prev) = seen.insert(&r.run_id, &r.dir) {
            return Err(Error::Layout { path: dir.join(&r.dir), message: format!("run id {} is also claimed by run directory {prev}", r.run_id) });
        }
    }
    drop(seen);
    runs.sort_by(|a, b| a.0.run_id.cmp(&b.0.run_id));
    // The next runs are read while the sink writes the last ones.
    std::thread::scope(|scope| -> Result<()> {
        let (tx, rx) = std::sync::mpsc::sync_channel::<Result<Vec<(Run, RunsRead)>>>(1);
        let runs = &runs;
        crate::phases::spawn_named(scope, "runs", move || {
            for step in runs.chunks(per_step.max(1)) {
                let parts: Result<Vec<(Run, RunsRead)>> = step.par_iter().map(|(run, d, files)| read_run_rest(dir, d, files, run.clone())).collect();
                let failed = parts.is_err();
                if tx.send(parts).is_err() || failed {
                    break;
                }
            }
        });
        for parts in rx {
            let mut outputs = Vec::new();
            let mut requests = Vec::new();
            for (run, mut part) in parts? {
                outputs.append(&mut part.outputs);
                // One run's requests in the table's order (file, then position).
                part.requests.sort_by(|a, b| (&a.file, a.position).cmp(&(&b.file, b.position)));
                requests.append(&mut part.requests);
                out.absorb(part);
                out.runs.push(run);
            }
            sink(outputs, requests)?;
        }
        Ok(())
    })?;
    Ok(out)
}

impl RunsRead {
    /// Take in another part's runs, records, files and counts.
    fn absorb(&mut self, p: RunsRead) {
        self.runs.extend(p.runs);
        self.outputs.extend(p.outputs);
        self.requests.extend(p.requests);
        self.quarantined.extend(p.quarantined);
        self.files.extend(p.files);
        self.used += p.used;
        self.empty.extend(p.empty);
        self.coverage.extend(p.coverage);
    }
}

struct Lines {
    file: String,
    bytes: Vec<u8>,
}

/// A non-blank line: (1-based number, its text or why it cannot be read, the text as
/// quarantine shows it, whether it is the last line and has no newline).
type Record = (usize, std::result::Result<String, String>, String, bool);

impl Lines {
    /// The file, or `None` when it is absent or refused; a refused file (a link leading out
    /// of the runs directory, a FIFO, a device) is listed and quarantined in `out`, unread.
    fn load(root: &Path, p: &Path, out: &mut RunsRead) -> Result<Option<Lines>> {
        let file = p.strip_prefix(root).unwrap_or(p).to_string_lossy().replace('\\', "/");
        match std::fs::symlink_metadata(p) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(Error::io(p, e)),
            Ok(_) => {}
        }
        if let Some(why) = crate::inputs::refusal(root, p, "runs") {
            out.quarantined.push(Quarantined::new("runs", &file, None, None, why, ""));
            out.files.push(InputFile::refused("runs", file));
            return Ok(None);
        }
        Ok(Some(Lines { file, bytes: crate::inputs::read_regular(p)? }))
    }

    fn records(&self) -> Vec<Record> {
        crate::inputs::jsonl_byte_lines(&self.bytes, 1, 0)
            .0
            .into_iter()
            .map(|l| (l.lineno, l.text.map(str::to_string), l.raw.to_string(), l.unterminated))
            .collect()
    }

    /// The whole file as one JSON document's text, or why it cannot be read.
    fn document(&self) -> std::result::Result<&str, String> {
        crate::inputs::document_text(&self.bytes)
    }

    /// The file as quarantine shows it.
    fn lossy(&self) -> String {
        String::from_utf8_lossy(&self.bytes).to_string()
    }
}

fn json_line(raw: &str, truncated_candidate: bool) -> std::result::Result<Value, String> {
    if let Some(why) = crate::json::too_deep(raw) {
        return Err(why);
    }
    match serde_json::from_str::<Value>(raw) {
        Ok(v) if v.is_object() => Ok(v),
        Ok(_) => Err("not a JSON object".to_string()),
        Err(e) if e.is_eof() && truncated_candidate => Err(crate::inputs::truncated(e)),
        Err(e) => Err(format!("not valid JSON: {e}")),
    }
}

/// A run id as written: a string, or a number's exact digits (a float reading would turn
/// 18446744073709551616 into 1.8446744073709552e19).
fn run_id_of(text: &str, key: &str) -> Option<String> {
    let raw = crate::json::members(text)?.get(key)?;
    match serde_json::from_str::<Value>(raw.get()).ok()? {
        Value::String(s) if !s.is_empty() => Some(s),
        Value::Number(_) => Some(raw.get().to_string()),
        _ => None,
    }
}

/// A run's metadata from `aw_info.json` (the run id falls back on the directory's name).
fn read_run_info(root: &Path, dir: &Path, files: &Located) -> Result<(Run, RunsRead)> {
    let mut out = RunsRead::default();
    let dir_name = dir.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
    let mut run = Run { dir: dir_name.clone(), run_id: dir_name.clone(), run_id_source: "directory_name", ..Run::default() };

    if let Some(f) = load(root, files, RunFile::AwInfo, &mut out)? {
        out.files.push(InputFile::from_bytes("runs", f.file.clone(), &f.bytes, 1));
        let text = match f.document() {
            Ok(t) => t,
            Err(why) => {
                out.quarantined.push(Quarantined::new("runs", &f.file, None, None, why, &f.lossy()));
                ""
            }
        };
        match serde_json::from_str::<Value>(text) {
            _ if text.is_empty() => {}
            Ok(v) if v.is_object() => {
                if let Some(id) = run_id_of(text, "run_id") {
                    run.run_id = id;
                    run.run_id_source = "aw_info";
                }
                run.workflow_name = str_at(&v, "workflow_name").map(str::to_string);
                run.repository = str_at(&v, "repository").map(str::to_string);
                run.actor = str_at(&v, "actor").map(str::to_string);
                run.staged = v.get("staged").and_then(Value::as_bool).unwrap_or(false);
                run.aw_info = Some(crate::json::canonical(&v));
                out.used += 1;
            }
            Ok(v) => out.quarantined.push(Quarantined::new("runs", &f.file, Some(1), None, format!("expected an object, found {}", kind(&v)), text)),
            Err(e) => out.quarantined.push(Quarantined::new(
                "runs",
                &f.file,
                Some(e.line()),
                None,
                format!("not valid JSON: {e}; run metadata unknown, run id taken from the directory name"),
                text,
            )),
        }
    }
    if let Some(f) = load(root, files, RunFile::RunApi, &mut out)? {
        out.files.push(InputFile::from_bytes("runs", f.file.clone(), &f.bytes, 1));
        let text = f.document().unwrap_or("");
        match serde_json::from_str::<Value>(text) {
            Ok(v) if v.is_object() => {
                run.conclusion = str_at(&v, "conclusion").map(str::to_string);
                out.used += 1;
            }
            _ => out.quarantined.push(Quarantined::new("runs", &f.file, Some(1), Some("conclusion"), "not a JSON object: the run's conclusion unknown", &f.lossy())),
        }
    }
    if run.run_id_source == "directory_name" {
        // With no run id in aw_info.json, normalized records name their run: the first that
        // does gives the run its id, so its safe_output_ids are `<that id>:<index>` and the
        // check that no two directories claim one id covers them.
        let p = files.get(&RunFile::Normalized).cloned().unwrap_or_else(|| dir.join(NORMALIZED));
        if crate::inputs::refusal(root, &p, "runs").is_none() {
            let bytes = crate::inputs::read_regular(&p)?;
            let named = crate::inputs::jsonl_byte_lines(&bytes, 1, 0).0.into_iter().find_map(|l| run_id_of(l.text.ok()?, "run_id"));
            if let Some(id) = named {
                run.run_id = id;
                run.run_id_source = "normalized_record";
            }
        }
    }

    Ok((run, out))
}

/// The rest of a run: temporary ids, executed items, requests.
fn read_run_rest(root: &Path, dir: &Path, files: &Located, mut run: Run) -> Result<(Run, RunsRead)> {
    let mut out = RunsRead::default();
    let temp_ids = read_temp_ids(root, files, &mut out)?;
    let ctx = item::RunContext {
        run_id: run.run_id.clone(),
        workflow_name: run.workflow_name.clone(),
        repository: run.repository.clone(),
        actor: run.actor.clone(),
        staged: run.staged,
        temp_ids,
    };

    // Executed outputs: the gh-aw manifest, else normalized records.
    let manifest = load(root, files, RunFile::Manifest, &mut out)?;
    let normalized = load(root, files, RunFile::Normalized, &mut out)?;
    let mut executed_types: Vec<String> = Vec::new();
    let mut next_index = 0usize;
    let has_manifest = manifest.is_some() || normalized.is_some();
    for (lines, format) in [(manifest, item::Format::GhAw), (normalized, item::Format::Normalized)] {
        let Some(lines) = lines else { continue };
        read_executed(&ctx, &lines, format, &mut out, &mut next_index, &mut executed_types);
    }
    run.executed_items = out.outputs.len();

    // Requests: what the agent asked for. Those no executed item accounts for are kept as
    // requested-only outputs (system types, staged mode, failures).
    let (requests, errors) = read_requests(root, files, &ctx, &mut out)?;
    let sources = [RunFile::Manifest, RunFile::Normalized, RunFile::AgentOutput, RunFile::RequestLog];
    if !sources.iter().any(|f| files.contains_key(f)) {
        out.empty.push(EmptyRun { dir: run.dir.clone(), reason: empty_reason(dir) });
    }
    run.errors = errors;
    run.requested_items = requests.len();
    fill_labels_from_requests(&mut out.outputs, &requests);
    let cancelled = run.conclusion.as_deref() == Some("cancelled");
    add_unexecuted_requests(&ctx, requests, executed_types, has_manifest, cancelled, &mut out, next_index);
    read_coverage(root, files, &run.run_id, &mut out)?;
    Ok((run, out))
}

/// The run's coverage report, when it has one: a record used, or quarantined with why it
/// cannot be read (not a report of its format, no line counts).
fn read_coverage(root: &Path, files: &Located, run_id: &str, out: &mut RunsRead) -> Result<()> {
    let Some(lines) = load(root, files, RunFile::Coverage, out)? else { return Ok(()) };
    out.files.push(InputFile::from_bytes("runs", lines.file.clone(), &lines.bytes, 1));
    let name = crate::files::base(&lines.file).to_string();
    let format = crate::coverage::CoverageFormat::of_name(&name);
    let read = match (format, std::str::from_utf8(&lines.bytes)) {
        (Some(f), Ok(text)) => crate::coverage::parse(f, text).map(|r| (f, r)),
        (None, _) => Err(format!("{name}: not a coverage report name hindsight reads")),
        (_, Err(e)) => Err(format!("not UTF-8 text: {e}")),
    };
    match read {
        Ok((format, files)) => {
            out.used += 1;
            out.coverage.push(RunCoverage { run_id: run_id.to_string(), file: lines.file, format, files });
        }
        Err(why) => out.quarantined.push(Quarantined::new("runs", &lines.file, None, None, format!("coverage report: {why}"), &lines.lossy())),
    }
    Ok(())
}

/// One file of executed items (manifest or normalized records): each record an output,
/// else quarantined (unreadable, another run's, a duplicate, a field at fault). Indexes
/// continue from `next_index`; each output's type is noted in `executed_types`.
fn read_executed(ctx: &item::RunContext, lines: &Lines, format: item::Format, out: &mut RunsRead, next_index: &mut usize, executed_types: &mut Vec<String>) {
    let records = lines.records();
    out.files.push(InputFile::from_bytes("runs", lines.file.clone(), &lines.bytes, records.len()));
    let mut seen: HashMap<String, String> = HashMap::new();
    for (lineno, text, shown, last) in records {
        let index = *next_index;
        *next_index += 1;
        let parsed = text.and_then(|raw| json_line(&raw, last).map(|v| (raw, v)));
        let (raw, v) = match parsed {
            Ok(rv) => rv,
            Err(reason) => {
                out.quarantined.push(Quarantined::new("runs", &lines.file, Some(lineno), None, reason, &shown));
                continue;
            }
        };
        let exact = |t: &str| crate::json::canonical_text(t).unwrap_or_default();
        let dup_key = match crate::json::members(&raw).and_then(|m| m.get("id")) {
            Some(id) if id.get() != "null" => format!("id:{}", exact(id.get())),
            _ => exact(&raw),
        };
        // One run directory holds one run: a normalized record naming another run would
        // give a safe_output_id of that run's (`<run_id>:<index>`), which may exist.
        if format == item::Format::Normalized {
            if let Some(named) = run_id_of(&raw, "run_id").filter(|n| *n != ctx.run_id) {
                out.quarantined.push(Quarantined::new(
                    "runs",
                    &lines.file,
                    Some(lineno),
                    Some("run_id"),
                    format!("names run {named}, but the record is in the run directory of run {}; a directory holds one run's records", ctx.run_id),
                    &raw,
                ));
                continue;
            }
        }
        let id = format!("{}:{index}", ctx.run_id);
        if let Some(first) = seen.get(&dup_key) {
            out.quarantined.push(Quarantined::new("runs", &lines.file, Some(lineno), None, format!("duplicate item: same record as {first}"), &raw));
            continue;
        }
        seen.insert(dup_key, id);
        match item::from_raw(ctx, &raw, &v, index, format, &lines.file, lineno) {
            Ok(so) => {
                out.used += 1;
                executed_types.push(so.output_type.to_string());
                out.outputs.push(so);
            }
            Err((field, reason)) => {
                out.quarantined.push(Quarantined::new("runs", &lines.file, Some(lineno), Some(field), reason, &raw));
            }
        }
    }
}

/// The requests no executed item accounts for (per type, in order), kept as outputs that
/// were requested only, staged, not executed, or unrecorded; indexes continue from
/// `next_index`.
#[allow(clippy::too_many_arguments)]
fn add_unexecuted_requests(
    ctx: &item::RunContext,
    requests: Vec<RequestItem>,
    executed_types: Vec<String>,
    has_manifest: bool,
    cancelled: bool,
    out: &mut RunsRead,
    mut next_index: usize,
) {
    let mut executed_count: BTreeMap<String, usize> = BTreeMap::new();
    for t in executed_types {
        *executed_count.entry(t).or_default() += 1;
    }
    for (file, line, raw, v) in requests {
        let Some(ty) = str_at(&v, "type").map(str::to_string) else { continue };
        let system = output_type::is_system(&ty);
        if !system {
            if let Some(n) = executed_count.get_mut(&ty) {
                if *n > 0 {
                    *n -= 1;
                    continue;
                }
            }
        }
        let execution = if system {
            Execution::RequestedOnly
        } else if !has_manifest && cancelled {
            // Cancelled before it kept a record of what it executed: nothing to judge.
            Execution::Cancelled
        } else if !has_manifest {
            Execution::Unrecorded
        } else if ctx.staged {
            Execution::Staged
        } else {
            Execution::NotExecuted
        };
        let index = next_index;
        next_index += 1;
        match item::from_raw(ctx, &raw, &v, index, item::Format::Request, &file, line) {
            Ok(mut so) => {
                so.execution = execution;
                out.outputs.push(so);
            }
            Err(_) => {
                // Already kept in the requests table; a request too malformed to be an
                // output is recorded there with its type, so nothing is lost.
            }
        }
    }
}

/// A thin manifest item of `add_labels` records no labels; the request it executed (the
/// k-th `add_labels` request for the k-th executed one, the order gh-aw handles them in)
/// says which were asked for. They fill `expected_state.labels_added`, with the source
/// named (`labels_added_source` = the request's file and position), so the rule can say the
/// labels are the requested ones: gh-aw may have applied fewer (an allow-list).
fn fill_labels_from_requests(outputs: &mut [SafeOutput], requests: &[RequestItem]) {
    let mut asked = requests.iter().filter(|(_, _, _, v)| str_at(v, "type") == Some("add_labels"));
    for o in outputs.iter_mut().filter(|o| o.output_type == "add_labels") {
        let Some((file, pos, _, v)) = asked.next() else { break };
        let mut e: serde_json::Map<String, Value> = match serde_json::from_str(&o.expected_state) {
            Ok(Value::Object(m)) => m,
            _ => serde_json::Map::new(),
        };
        if e.contains_key("labels_added") {
            continue;
        }
        let Some(labels) = v.get("labels").and_then(crate::json::names).filter(|l| !l.is_empty()) else { continue };
        e.insert("labels_added".into(), serde_json::json!(labels));
        e.insert("labels_added_source".into(), format!("request {file}#{pos}").into());
        o.expected_state = crate::json::canonical(&Value::Object(e)).into();
    }
}

/// Why a run directory yields no safe outputs, with what it holds: said on stderr and in the
/// manifest rather than counted as a run with nothing in it.
fn empty_reason(dir: &Path) -> String {
    let all = crate::inputs::walk(dir).unwrap_or_default();
    let mut seen: Vec<String> = all.iter().filter(|p| !p.starts_with('.') && !p.contains("/.")).cloned().collect();
    let total = seen.len();
    let usage_only = total > 0 && all.iter().all(|p| p.starts_with("usage/") || p.starts_with('.') || !p.contains('/'));
    seen.truncate(8);
    let what = if total == 0 {
        "it is empty".to_string()
    } else {
        format!("it holds {}{}", seen.join(", "), if total > seen.len() { format!(" and {} more", total - seen.len()) } else { String::new() })
    };
    let hint = if usage_only { "; `gh aw logs` downloads only the `usage` artifact unless given `--artifacts all`" } else { "" };
    format!(
        "no file with safe outputs found ({}, {}, {} or {}, at the top level or in artifact folders): {what}{hint}",
        MANIFEST, NORMALIZED, AGENT_OUTPUT, REQUEST_LOG
    )
}

/// The run's file in `role`, if it has one (see [`Lines::load`]).
fn load(root: &Path, files: &HashMap<RunFile, std::path::PathBuf>, role: RunFile, out: &mut RunsRead) -> Result<Option<Lines>> {
    match files.get(&role) {
        Some(p) => Lines::load(root, p, out),
        None => Ok(None),
    }
}

fn read_temp_ids(root: &Path, files: &HashMap<RunFile, std::path::PathBuf>, out: &mut RunsRead) -> Result<HashMap<String, item::TempTarget>> {
    let mut map = HashMap::new();
    let Some(f) = load(root, files, RunFile::TempIdMap, out)? else { return Ok(map) };
    // A file that is not an object of temporary ids is one record, quarantined.
    let whole = |out: &mut RunsRead, line: Option<usize>, why: String| {
        out.files.push(InputFile::from_bytes("runs", f.file.clone(), &f.bytes, 1));
        out.quarantined.push(Quarantined::new("runs", &f.file, line, None, why, &f.lossy()));
    };
    let text = match f.document() {
        Ok(t) => t,
        Err(why) => {
            whole(out, None, why);
            return Ok(map);
        }
    };
    let entries = match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(m)) => m,
        Ok(v) => {
            whole(out, Some(1), format!("expected an object of temporary ids, found {}", kind(&v)));
            return Ok(map);
        }
        Err(e) => {
            whole(out, Some(e.line()), format!("not valid JSON: {e}"));
            return Ok(map);
        }
    };
    out.files.push(InputFile::from_bytes("runs", f.file.clone(), &f.bytes, entries.len()));
    for (k, val) in entries {
        let t = match &val {
            Value::Object(_) => item::TempTarget { repo: str_at(&val, "repo").map(str::to_string), number: int_at(&val, "number") },
            other => item::TempTarget { repo: None, number: crate::json::as_int(other) },
        };
        if t.number.is_none() {
            out.quarantined.push(Quarantined::new("runs", &f.file, None, Some(&k), "temporary id maps to no number", &crate::json::canonical(&val)));
            continue;
        }
        map.insert(k, t);
        out.used += 1;
    }
    Ok(map)
}

/// agent_output.json items, else safeoutputs.jsonl lines. Every request line is kept in the
/// `requests` table; the returned list is what is matched against executed items.
/// A request to match against executed items: (file, line or position, the request).
type RequestItem = (String, usize, String, Value);

/// `agent_output.json`: its items (each with its text) and errors, or why the file is not
/// of that shape (the field at fault, the reason).
type AgentOutput<'a> = (Vec<(&'a str, Value)>, Vec<Value>);

fn agent_output(text: &str) -> std::result::Result<AgentOutput<'_>, (Option<&'static str>, String)> {
    use serde_json::value::RawValue;
    let v: Value = serde_json::from_str(text).map_err(|e| (None, format!("not valid JSON: {e}")))?;
    if !v.is_object() {
        return Err((None, format!("expected an object with `items` and `errors`, found {}", kind(&v))));
    }
    let members = crate::json::members(text).unwrap_or(crate::json::Members(Vec::new()));
    let items: Vec<&RawValue> = match members.get("items") {
        None => Vec::new(),
        Some(r) => serde_json::from_str(r.get()).map_err(|_| (Some("items"), format!("expected an array, found {}", kind(&v["items"]))))?,
    };
    let errors = match v.get("errors") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(a)) => a.clone(),
        Some(other) => return Err((Some("errors"), format!("expected an array, found {}", kind(other)))),
    };
    let items = items.into_iter().map(|r| (r.get(), serde_json::from_str(r.get()).unwrap_or(Value::Null))).collect();
    Ok((items, errors))
}

/// Also returns agent_output.json's `errors`.
fn read_requests(
    root: &Path,
    files: &HashMap<RunFile, std::path::PathBuf>,
    ctx: &item::RunContext,
    out: &mut RunsRead,
) -> Result<(Vec<RequestItem>, Vec<String>)> {
    let mut from_agent_output = Vec::new();
    let mut errors_out = Vec::new();
    if let Some(f) = load(root, files, RunFile::AgentOutput, out)? {
        match f.document().map_err(|why| (None, why)).and_then(agent_output) {
            Ok((items, errors)) => {
                errors_out = errors.iter().map(|e| e.as_str().map(str::to_string).unwrap_or_else(|| crate::json::canonical(e))).collect();
                out.files.push(InputFile::from_bytes("runs", f.file.clone(), &f.bytes, items.len() + errors.len()));
                // Every error is kept in the run's `errors`, every object item in `requests`.
                out.used += errors.len();
                for (i, (raw, it)) in items.into_iter().enumerate() {
                    if !it.is_object() {
                        let why = format!("expected a request object, found {}", kind(&it));
                        out.quarantined.push(Quarantined::new("runs", &f.file, None, Some(&format!("items[{i}]")), why, raw));
                        continue;
                    }
                    out.used += 1;
                    out.requests.push(Request {
                        run_id: ctx.run_id.clone(),
                        file: f.file.clone(),
                        position: i + 1,
                        request_type: str_at(&it, "type").map(str::to_string),
                        payload: raw.to_string(),
                        same_as: None,
                    });
                    from_agent_output.push((f.file.clone(), i + 1, raw.to_string(), it));
                }
            }
            Err((field, why)) => {
                out.files.push(InputFile::from_bytes("runs", f.file.clone(), &f.bytes, 1));
                out.quarantined.push(Quarantined::new("runs", &f.file, None, field, why, &f.lossy()));
            }
        }
    }
    let mut from_log = Vec::new();
    // agent_output.json's items by canonical payload, to mark the log lines that repeat them.
    let agent_items: HashMap<String, usize> = from_agent_output.iter().rev().map(|(_, pos, _, v)| (crate::json::canonical(v), *pos)).collect();
    if let Some(f) = load(root, files, RunFile::RequestLog, out)? {
        let records = f.records();
        out.files.push(InputFile::from_bytes("runs", f.file.clone(), &f.bytes, records.len()));
        for (lineno, text, shown, last) in records {
            match text.and_then(|raw| json_line(&raw, last).map(|v| (raw, v))) {
                Ok((raw, v)) => {
                    out.used += 1;
                    let same_as = agent_items.get(&crate::json::canonical(&v)).map(|pos| format!("{AGENT_OUTPUT}#{pos}"));
                    out.requests.push(Request {
                        run_id: ctx.run_id.clone(),
                        file: f.file.clone(),
                        position: lineno,
                        request_type: str_at(&v, "type").map(str::to_string),
                        payload: raw.trim().to_string(),
                        same_as,
                    });
                    from_log.push((f.file.clone(), lineno, raw, v));
                }
                Err(reason) => out.quarantined.push(Quarantined::new("runs", &f.file, Some(lineno), None, reason, &shown)),
            }
        }
    }
    let requests = if from_agent_output.is_empty() { from_log } else { from_agent_output };
    Ok((requests, errors_out))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_dir(root: &Path, name: &str, run_id: Option<&str>, items: usize) {
        let d = root.join(name);
        std::fs::create_dir_all(&d).unwrap();
        if let Some(id) = run_id {
            std::fs::write(d.join(AW_INFO), format!("{{\"run_id\": \"{id}\", \"repository\": \"o/r\"}}")).unwrap();
        }
        let lines: Vec<String> =
            (0..items).map(|i| format!("{{\"type\": \"add_labels\", \"number\": {}, \"repo\": \"o/r\", \"labelsAdded\": [\"x\"]}}", i + 1)).collect();
        std::fs::write(d.join(MANIFEST), lines.join("\n") + "\n").unwrap();
        std::fs::write(d.join(REQUEST_LOG), "{\"type\": \"noop\", \"message\": \"b\"}\n{\"type\": \"noop\", \"message\": \"a\"}\n").unwrap();
    }

    /// Directories whose names sort otherwise than their run ids still come out in run-id
    /// order, whatever the step size, and as `read` gives them.
    #[test]
    fn runs_stream_in_run_id_order_whatever_the_step() {
        let tmp = tempfile::tempdir().unwrap();
        run_dir(tmp.path(), "a-run", Some("300"), 2);
        run_dir(tmp.path(), "b-run", Some("100"), 3);
        run_dir(tmp.path(), "c-run", None, 1);
        let whole = read(tmp.path()).unwrap();
        let ids: Vec<String> = whole.outputs.iter().map(|o| o.safe_output_id.to_string()).collect();
        assert_eq!(ids, ["100:0", "100:1", "100:2", "100:3", "100:4", "300:0", "300:1", "300:2", "300:3", "c-run:0", "c-run:1", "c-run:2"]);
        for step in [1, 2, 1024] {
            let mut got = Vec::new();
            let mut steps = 0;
            let r = read_in_steps(tmp.path(), step, |o, req| {
                steps += 1;
                got.extend(
                    o.into_iter().map(|o| o.safe_output_id.into_owned()).chain(req.into_iter().map(|r| format!("{} {} {}", r.run_id, r.file, r.position))),
                );
                Ok(())
            })
            .unwrap();
            assert_eq!(steps, 3usize.div_ceil(step));
            let outputs: Vec<&String> = got.iter().filter(|g| !g.contains(' ')).collect();
            assert_eq!(outputs, ids.iter().collect::<Vec<_>>(), "step {step}");
            assert_eq!(got.len(), ids.len() + whole.requests.len(), "step {step}");
            assert_eq!(r.runs.iter().map(|r| r.run_id.as_str()).collect::<Vec<_>>(), ["100", "300", "c-run"]);
            assert_eq!((r.used, r.quarantined.len()), (whole.used, whole.quarantined.len()));
        }
    }

    #[test]
    fn two_directories_claiming_one_run_id_are_refused() {
        let tmp = tempfile::tempdir().unwrap();
        run_dir(tmp.path(), "first", Some("7"), 1);
        run_dir(tmp.path(), "second", Some("7"), 1);
        let e = read(tmp.path()).err().expect("refused").to_string();
        assert!(e.contains("run id 7 is also claimed by run directory first"), "{e}");
    }
}
