//! Safe-output logs: gh-aw run directories (`aw_info.json`, `safe-output-items.jsonl` in its
//! older thin and newer rich shapes, `agent_output.json`, `safeoutputs.jsonl`,
//! `temporary-id-map.json`) and runs holding seed 000 §4 normalized records
//! (`safe-outputs.jsonl`).
//!
//! Targets come only from what was recorded (a number, a URL, a temporary-id mapping),
//! never from a guess. Requested-but-not-executed items are kept, marked, and later
//! evaluated as `skipped`.

pub mod item;
pub mod tables;

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use rayon::prelude::*;
use serde_json::Value;

use crate::error::{Error, Result};
use crate::inputs::InputFile;
use crate::json::{int_at, str_at};
use crate::quarantine::Quarantined;

pub use item::{Execution, SafeOutput};

pub const MANIFEST: &str = "safe-output-items.jsonl";
pub const NORMALIZED: &str = "safe-outputs.jsonl";
pub const AGENT_OUTPUT: &str = "agent_output.json";
pub const REQUEST_LOG: &str = "safeoutputs.jsonl";
pub const TEMP_ID_MAP: &str = "temporary-id-map.json";
pub const AW_INFO: &str = "aw_info.json";

/// One workflow run.
#[derive(Clone, Debug, Default)]
pub struct Run {
    pub run_id: String,
    pub run_id_source: &'static str,
    pub workflow_name: Option<String>,
    pub repository: Option<String>,
    pub actor: Option<String>,
    pub staged: bool,
    pub dir: String,
    pub executed_items: usize,
    pub requested_items: usize,
    pub errors: Vec<String>,
    pub aw_info: Option<String>,
}

/// A request the agent made (agent_output.json item or safeoutputs.jsonl line).
#[derive(Clone, Debug)]
pub struct Request {
    pub run_id: String,
    pub file: String,
    pub position: usize,
    pub request_type: Option<String>,
    pub payload: String,
}

#[derive(Default)]
pub struct RunsRead {
    pub runs: Vec<Run>,
    pub outputs: Vec<SafeOutput>,
    pub requests: Vec<Request>,
    pub quarantined: Vec<Quarantined>,
    pub files: Vec<InputFile>,
    /// Input records used (counted where each is used, so that input = used +
    /// quarantined is a check, not a definition).
    pub used: usize,
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
pub fn read_in_order(dir: &Path, sink: impl FnMut(Vec<SafeOutput>, Vec<Request>) -> Result<()>) -> Result<RunsRead> {
    read_in_steps(dir, RUNS_PER_STEP, sink)
}

fn read_in_steps(dir: &Path, per_step: usize, mut sink: impl FnMut(Vec<SafeOutput>, Vec<Request>) -> Result<()>) -> Result<RunsRead> {
    let rd = std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))?;
    let mut run_dirs = Vec::new();
    for entry in rd {
        let entry = entry.map_err(|e| Error::io(dir, e))?;
        if entry.file_type().map_err(|e| Error::io(entry.path(), e))?.is_dir() {
            run_dirs.push(entry.path());
        }
    }
    run_dirs.sort();
    let heads: Vec<Result<(Run, RunsRead)>> = run_dirs.par_iter().map(|d| read_run_info(dir, d)).collect();
    let mut out = RunsRead::default();
    let mut runs: Vec<(Run, &std::path::PathBuf)> = Vec::with_capacity(run_dirs.len());
    for (h, d) in heads.into_iter().zip(&run_dirs) {
        let (run, part) = h?;
        out.absorb(part);
        runs.push((run, d));
    }
    // Two run directories claiming one run id would give colliding safe_output_ids.
    let mut seen: HashMap<&str, &str> = HashMap::new();
    for (r, _) in &runs {
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
        scope.spawn(move || {
            for step in runs.chunks(per_step.max(1)) {
                let parts: Result<Vec<(Run, RunsRead)>> = step.par_iter().map(|(run, d)| read_run_rest(dir, d, run.clone())).collect();
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
    }
}

struct Lines {
    file: String,
    bytes: Vec<u8>,
}

impl Lines {
    fn load(root: &Path, p: &Path) -> Result<Option<Lines>> {
        match std::fs::read(p) {
            Ok(bytes) => Ok(Some(Lines { file: p.strip_prefix(root).unwrap_or(p).to_string_lossy().replace('\\', "/"), bytes })),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(Error::io(p, e)),
        }
    }

    /// Non-blank lines as (1-based line number, text, is last line without newline).
    fn records(&self) -> Vec<(usize, String, bool)> {
        let text = String::from_utf8_lossy(&self.bytes);
        crate::inputs::jsonl_lines(&text).into_iter().map(|l| (l.lineno, l.text.to_string(), l.unterminated)).collect()
    }
}

fn json_line(raw: &str, truncated_candidate: bool) -> std::result::Result<Value, String> {
    match serde_json::from_str::<Value>(raw) {
        Ok(v) if v.is_object() => Ok(v),
        Ok(_) => Err("not a JSON object".to_string()),
        Err(e) if e.is_eof() && truncated_candidate => Err(crate::inputs::truncated(e)),
        Err(e) => Err(format!("not valid JSON: {e}")),
    }
}

/// A run's metadata from `aw_info.json` (the run id falls back on the directory's name).
fn read_run_info(root: &Path, dir: &Path) -> Result<(Run, RunsRead)> {
    let mut out = RunsRead::default();
    let dir_name = dir.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
    let mut run = Run { dir: dir_name.clone(), run_id: dir_name.clone(), run_id_source: "directory_name", ..Run::default() };

    if let Some(f) = Lines::load(root, &dir.join(AW_INFO))? {
        let text = String::from_utf8_lossy(&f.bytes).to_string();
        out.files.push(InputFile::from_bytes("runs", f.file.clone(), &f.bytes, 1));
        match serde_json::from_str::<Value>(&text) {
            Ok(v) if v.is_object() => {
                let id = v.get("run_id").and_then(|x| match x {
                    Value::String(s) if !s.is_empty() => Some(s.clone()),
                    Value::Number(n) => Some(n.to_string()),
                    _ => None,
                });
                if let Some(id) = id {
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
            Ok(_) => out.quarantined.push(Quarantined::new("runs", &f.file, Some(1), None, "not a JSON object", &text)),
            Err(e) => out.quarantined.push(Quarantined::new(
                "runs",
                &f.file,
                Some(e.line()),
                None,
                format!("not valid JSON: {e}; run metadata unknown, run id taken from the directory name"),
                &text,
            )),
        }
    }

    Ok((run, out))
}

/// The rest of a run: temporary ids, executed items, requests.
fn read_run_rest(root: &Path, dir: &Path, mut run: Run) -> Result<(Run, RunsRead)> {
    let mut out = RunsRead::default();
    let temp_ids = read_temp_ids(root, dir, &mut out)?;
    let ctx = item::RunContext {
        run_id: run.run_id.clone(),
        workflow_name: run.workflow_name.clone(),
        repository: run.repository.clone(),
        actor: run.actor.clone(),
        staged: run.staged,
        temp_ids,
    };

    // Executed outputs: the gh-aw manifest, else normalized records.
    let manifest = Lines::load(root, &dir.join(MANIFEST))?;
    let normalized = Lines::load(root, &dir.join(NORMALIZED))?;
    let mut executed_types: Vec<String> = Vec::new();
    let mut next_index = 0usize;
    let has_manifest = manifest.is_some() || normalized.is_some();
    for (lines, format) in [(manifest, item::Format::GhAw), (normalized, item::Format::Normalized)] {
        let Some(lines) = lines else { continue };
        let records = lines.records();
        out.files.push(InputFile::from_bytes("runs", lines.file.clone(), &lines.bytes, records.len()));
        let mut seen: HashMap<String, String> = HashMap::new();
        for (lineno, raw, last) in records {
            let index = next_index;
            next_index += 1;
            let v = match json_line(&raw, last) {
                Ok(v) => v,
                Err(reason) => {
                    out.quarantined.push(Quarantined::new("runs", &lines.file, Some(lineno), None, reason, &raw));
                    continue;
                }
            };
            let dup_key = match v.get("id") {
                Some(id) if !id.is_null() => format!("id:{id}"),
                _ => crate::json::canonical(&v),
            };
            let id = format!("{}:{index}", ctx.run_id);
            if let Some(first) = seen.get(&dup_key) {
                out.quarantined.push(Quarantined::new("runs", &lines.file, Some(lineno), None, format!("duplicate item: same record as {first}"), &raw));
                continue;
            }
            seen.insert(dup_key, id);
            match item::from_record(&ctx, &v, index, format, &lines.file, lineno) {
                Ok(so) => {
                    out.used += 1;
                    executed_types.push(so.output_type.clone());
                    out.outputs.push(so);
                }
                Err((field, reason)) => {
                    out.quarantined.push(Quarantined::new("runs", &lines.file, Some(lineno), Some(field), reason, &raw));
                }
            }
        }
    }
    run.executed_items = out.outputs.len();

    // Requests: what the agent asked for. Those no executed item accounts for are kept as
    // requested-only outputs (system types, staged mode, failures).
    let (requests, errors) = read_requests(root, dir, &ctx, &mut out)?;
    run.errors = errors;
    run.requested_items = requests.len();
    let mut executed_count: BTreeMap<String, usize> = BTreeMap::new();
    for t in executed_types {
        *executed_count.entry(t).or_default() += 1;
    }
    for (file, line, v) in requests {
        let Some(ty) = str_at(&v, "type").map(str::to_string) else { continue };
        let system = item::is_system_type(&ty);
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
        } else if !has_manifest {
            Execution::Unrecorded
        } else if run.staged {
            Execution::Staged
        } else {
            Execution::NotExecuted
        };
        let index = next_index;
        next_index += 1;
        match item::from_record(&ctx, &v, index, item::Format::Request, &file, line) {
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
    Ok((run, out))
}

fn read_temp_ids(root: &Path, dir: &Path, out: &mut RunsRead) -> Result<HashMap<String, item::TempTarget>> {
    let mut map = HashMap::new();
    let Some(f) = Lines::load(root, &dir.join(TEMP_ID_MAP))? else { return Ok(map) };
    let text = String::from_utf8_lossy(&f.bytes).to_string();
    let v: Value = match serde_json::from_str(&text) {
        Ok(v) => v,
        Err(e) => {
            out.files.push(InputFile::from_bytes("runs", f.file.clone(), &f.bytes, 1));
            out.quarantined.push(Quarantined::new("runs", &f.file, Some(e.line()), None, format!("not valid JSON: {e}"), &text));
            return Ok(map);
        }
    };
    let entries = v.as_object().cloned().unwrap_or_default();
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
type RequestItem = (String, usize, Value);

/// Also returns agent_output.json's `errors`.
fn read_requests(root: &Path, dir: &Path, ctx: &item::RunContext, out: &mut RunsRead) -> Result<(Vec<RequestItem>, Vec<String>)> {
    let mut from_agent_output = Vec::new();
    let mut errors_out = Vec::new();
    if let Some(f) = Lines::load(root, &dir.join(AGENT_OUTPUT))? {
        let text = String::from_utf8_lossy(&f.bytes).to_string();
        match serde_json::from_str::<Value>(&text) {
            Ok(v) => {
                let items = v.get("items").and_then(Value::as_array).cloned().unwrap_or_default();
                errors_out = v
                    .get("errors")
                    .and_then(Value::as_array)
                    .map(|a| a.iter().map(|e| e.as_str().map(str::to_string).unwrap_or_else(|| crate::json::canonical(e))).collect())
                    .unwrap_or_default();
                let errors = errors_out.len();
                out.files.push(InputFile::from_bytes("runs", f.file.clone(), &f.bytes, items.len() + errors));
                // Every item is kept in `requests`, every error in the run's `errors`.
                out.used += items.len() + errors;
                for (i, it) in items.into_iter().enumerate() {
                    out.requests.push(Request {
                        run_id: ctx.run_id.clone(),
                        file: f.file.clone(),
                        position: i,
                        request_type: str_at(&it, "type").map(str::to_string),
                        payload: crate::json::canonical(&it),
                    });
                    from_agent_output.push((f.file.clone(), i + 1, it));
                }
            }
            Err(e) => {
                out.files.push(InputFile::from_bytes("runs", f.file.clone(), &f.bytes, 1));
                out.quarantined.push(Quarantined::new("runs", &f.file, Some(e.line()), None, format!("not valid JSON: {e}"), &text));
            }
        }
    }
    let mut from_log = Vec::new();
    if let Some(f) = Lines::load(root, &dir.join(REQUEST_LOG))? {
        let records = f.records();
        out.files.push(InputFile::from_bytes("runs", f.file.clone(), &f.bytes, records.len()));
        for (lineno, raw, last) in records {
            match json_line(&raw, last) {
                Ok(v) => {
                    out.used += 1;
                    out.requests.push(Request {
                        run_id: ctx.run_id.clone(),
                        file: f.file.clone(),
                        position: lineno,
                        request_type: str_at(&v, "type").map(str::to_string),
                        payload: crate::json::canonical(&v),
                    });
                    from_log.push((f.file.clone(), lineno, v));
                }
                Err(reason) => out.quarantined.push(Quarantined::new("runs", &f.file, Some(lineno), None, reason, &raw)),
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
        let ids: Vec<String> = whole.outputs.iter().map(|o| o.safe_output_id.clone()).collect();
        assert_eq!(ids, ["100:0", "100:1", "100:2", "100:3", "100:4", "300:0", "300:1", "300:2", "300:3", "c-run:0", "c-run:1", "c-run:2"]);
        for step in [1, 2, 1024] {
            let mut got = Vec::new();
            let mut steps = 0;
            let r = read_in_steps(tmp.path(), step, |o, req| {
                steps += 1;
                got.extend(o.into_iter().map(|o| o.safe_output_id).chain(req.into_iter().map(|r| format!("{} {} {}", r.run_id, r.file, r.position))));
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
