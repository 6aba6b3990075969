//! The attribution block, built from the trace's own Edit, Write and MultiEdit tool calls
//! as opentraces does: each file's lines are tracked through successive edits, every line
//! remembers the step that last wrote it, and consecutive lines of one step form a range.
//! One conversation per file and step, `opentraces://trace/step_N`, its contributor
//! `{"type": "ai", "model_id": <the step's model>}` (no `model_id` when the step names no
//! model), range hashes and fields by the record's schema version ([`Shape`]).
//!
//! An edit can be placed only when the file's text is known (from an earlier Write, or a
//! Read whose result the trace kept); an edit of an unknown file is listed, never placed by
//! guess. Files the session changed that no tool call explains (in `outcome.patch` up to
//! 0.5, in `patches[]` from 0.6) are listed, and from 0.3 written as `unaccounted_files`.
//!
//! From 0.3 a range says its `change_type`: `modification` for an Edit, or a Write over text
//! the session knew; `addition` for a Write of a file it did not (as opentraces writes
//! Writes); and the block is `experimental` only when an edit could not be placed. 0.2's
//! block is always `experimental`, as that version defines it.

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

use super::hash::range_hash;
use super::version::Shape;
use crate::json::{int_at, str_at};

/// What the builder found besides the block itself.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Report {
    /// Edits whose place in the file is unknown: (file, step).
    pub unlocated: Vec<(String, i64)>,
    /// Files the session changed (`outcome.patch`, `patches[]`) that no tool call explains.
    pub unexplained_patch_files: Vec<String>,
}

/// How a line came to be the session's (0.3's `change_type`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Change {
    Addition,
    Modification,
}

impl Change {
    fn as_str(self) -> &'static str {
        match self {
            Change::Addition => "addition",
            Change::Modification => "modification",
        }
    }
}

#[derive(Clone, Debug)]
struct Line {
    text: String,
    /// The step that last wrote the line, and how; `None`: the line was already there.
    by: Option<(i64, Change)>,
}

#[derive(Default)]
struct FileState {
    /// None: the file's text is unknown.
    lines: Option<Vec<Line>>,
    touched_by: Vec<i64>,
}

fn split(text: &str) -> Vec<String> {
    text.split_inclusive('\n').map(|l| l.trim_end_matches('\n').to_string()).collect()
}

/// A Read result as text: `cat -n` style prefixes (`    12\t`) removed.
fn read_text(content: &str) -> String {
    let numbered = content.lines().filter(|l| !l.trim().is_empty()).all(|l| {
        let t = l.trim_start();
        t.split_once('\t').is_some_and(|(n, _)| n.chars().all(|c| c.is_ascii_digit()) && !n.is_empty())
            || t.split_once('→').is_some_and(|(n, _)| n.chars().all(|c| c.is_ascii_digit()) && !n.is_empty())
    });
    if !numbered {
        return content.to_string();
    }
    content
        .lines()
        .map(|l| {
            let t = l.trim_start();
            t.split_once('\t').or_else(|| t.split_once('→')).map(|(_, rest)| rest).unwrap_or("")
        })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

/// Replace `old` by `new` in the file (first occurrence, or all); the lines of each
/// replaced region are attributed to `step`, as modified. `false` when `old` is not found.
fn apply_edit(lines: &mut Vec<Line>, old: &str, new: &str, all: bool, step: i64) -> bool {
    let mut done = false;
    let mut from_line = 0usize;
    loop {
        let text: String = lines.iter().map(|l| format!("{}\n", l.text)).collect();
        // Byte offset of each line's start, to map a match back to lines.
        let mut starts = Vec::with_capacity(lines.len());
        let mut off = 0;
        for l in lines.iter() {
            starts.push(off);
            off += l.text.len() + 1;
        }
        let search_from = starts.get(from_line).copied().unwrap_or(text.len());
        let Some(rel) = text[search_from..].find(old) else { break };
        let at = search_from + rel;
        let s = starts.partition_point(|&x| x <= at) - 1;
        let end_byte = at + old.len().max(1) - 1;
        let e = (starts.partition_point(|&x| x <= end_byte) - 1).max(s);
        let prefix = &text[starts[s]..at];
        let line_end = starts.get(e + 1).copied().unwrap_or(text.len());
        let suffix = text[at + old.len()..line_end].trim_end_matches('\n');
        let block = format!("{prefix}{new}{suffix}");
        let new_lines: Vec<Line> = if block.is_empty() && old.ends_with('\n') {
            Vec::new()
        } else {
            split(&block).into_iter().map(|t| Line { text: t, by: Some((step, Change::Modification)) }).collect()
        };
        let n = new_lines.len();
        lines.splice(s..=e, new_lines);
        done = true;
        from_line = s + n;
        if !all {
            break;
        }
    }
    done
}

fn patch_files(patch: &str) -> Vec<String> {
    patch
        .lines()
        .filter_map(|l| l.strip_prefix("+++ b/").or_else(|| l.strip_prefix("diff --git a/").and_then(|r| r.split(" b/").nth(1))))
        .map(|p| p.trim().to_string())
        .collect()
}

/// The files the session changed, as the record states them: the unified diff's files up
/// to 0.5 (`outcome.patch`), the `file_path` of each of `patches[]` from 0.6. `None`: the
/// record states none (no diff, no patches).
fn changed_files(record: &Value, shape: Shape) -> Option<Vec<String>> {
    let mut out: Vec<String> = if shape.outcome_has_patch() {
        patch_files(record.get("outcome").and_then(|o| str_at(o, "patch"))?)
    } else {
        let patches = record.get("patches").and_then(Value::as_array).filter(|p| !p.is_empty())?;
        patches.iter().filter_map(|p| str_at(p, "file_path")).map(str::to_string).collect()
    };
    out.sort();
    out.dedup();
    Some(out)
}

/// One path names the other's file: equal, or one ends with `/` + the other (tool calls
/// often give absolute paths where a diff gives the repository's).
fn same_file(a: &str, b: &str) -> bool {
    a == b || a.ends_with(&format!("/{b}")) || b.ends_with(&format!("/{a}"))
}

/// Build the attribution block of a record of shape `shape`. `None`: the session changed
/// no file.
pub fn build(record: &Value, shape: Shape) -> (Option<Value>, Report) {
    let steps = record.get("steps").and_then(Value::as_array).cloned().unwrap_or_default();
    let models: BTreeMap<i64, &str> = steps.iter().filter_map(|st| Some((int_at(st, "step_index").unwrap_or(0), str_at(st, "model")?))).collect();
    let mut session = Session::default();
    for st in &steps {
        session.step(st);
    }
    let Session { files, order, mut report } = session;
    let changed = changed_files(record, shape);
    if let Some(changed) = &changed {
        report.unexplained_patch_files = changed.iter().filter(|p| !order.iter().any(|o| same_file(o, p))).cloned().collect();
    }
    if order.is_empty() {
        return (None, report);
    }
    let fidelity = shape.attribution_fidelity();
    let out_files: Vec<Value> = order.iter().filter(|path| !files[*path].touched_by.is_empty()).map(|path| file_block(path, &files[path], &models, shape)).collect();
    let block = if fidelity {
        let unaccounted = changed.map(|_| report.unexplained_patch_files.clone()).filter(|u| !u.is_empty());
        json!({"experimental": !report.unlocated.is_empty(), "revision": null, "files": out_files, "unaccounted_files": unaccounted})
    } else {
        json!({"experimental": true, "files": out_files})
    };
    (Some(block), report)
}

/// The session's file tool calls replayed: each file's lines as last known, who wrote them.
#[derive(Default)]
struct Session {
    files: BTreeMap<String, FileState>,
    /// The files written or edited, in the order first changed.
    order: Vec<String>,
    report: Report,
}

impl Session {
    /// Replay one step's Read, Write, Edit and MultiEdit calls.
    fn step(&mut self, st: &Value) {
        let step = int_at(st, "step_index").unwrap_or(0);
        let obs = st.get("observations").and_then(Value::as_array).cloned().unwrap_or_default();
        for call in st.get("tool_calls").and_then(Value::as_array).into_iter().flatten() {
            let name = str_at(call, "tool_name").unwrap_or_default();
            let input = call.get("input").cloned().unwrap_or(Value::Null);
            let Some(path) = str_at(&input, "file_path").or(str_at(&input, "path")).map(str::to_string) else { continue };
            if matches!(name, "Write" | "Edit" | "MultiEdit") && !self.order.contains(&path) {
                self.order.push(path.clone());
            }
            match name {
                "Read" => {
                    let id = str_at(call, "tool_call_id");
                    let content = obs.iter().find(|o| str_at(*o, "source_call_id") == id).and_then(|o| str_at(o, "content"));
                    if let Some(c) = content {
                        let f = self.files.entry(path.clone()).or_default();
                        if f.lines.is_none() {
                            f.lines = Some(split(&read_text(c)).into_iter().map(|t| Line { text: t, by: None }).collect());
                        }
                    }
                }
                "Write" => {
                    let content = str_at(&input, "content").unwrap_or_default();
                    let f = self.files.entry(path.clone()).or_default();
                    let change = if f.lines.is_some() { Change::Modification } else { Change::Addition };
                    f.lines = Some(split(content).into_iter().map(|t| Line { text: t, by: Some((step, change)) }).collect());
                    f.touched_by.push(step);
                }
                "Edit" | "MultiEdit" => self.edit(&path, &edits_of(name, &input), step),
                _ => {}
            }
        }
    }

    /// Apply a step's edits to a file; an edit that cannot be placed stops line tracking
    /// for the file and is reported.
    fn edit(&mut self, path: &str, edits: &[(String, String, bool)], step: i64) {
        let f = self.files.entry(path.to_string()).or_default();
        f.touched_by.push(step);
        let mut placed = f.lines.is_some();
        if let Some(lines) = f.lines.as_mut() {
            for (old, new, all) in edits {
                if old.is_empty() || !apply_edit(lines, old, new, *all, step) {
                    placed = false;
                }
            }
        }
        if !placed {
            // Text unknown, or the edit does not match it: stop tracking lines.
            f.lines = None;
            self.report.unlocated.push((path.to_string(), step));
        }
    }
}

/// An Edit's or MultiEdit's replacements: (old, new, replace all).
fn edits_of(name: &str, input: &Value) -> Vec<(String, String, bool)> {
    let one = |e: &Value| {
        (
            str_at(e, "old_string").unwrap_or_default().to_string(),
            str_at(e, "new_string").unwrap_or_default().to_string(),
            e.get("replace_all").and_then(Value::as_bool).unwrap_or(false),
        )
    };
    if name == "Edit" {
        vec![one(input)]
    } else {
        input.get("edits").and_then(Value::as_array).into_iter().flatten().map(one).collect()
    }
}

/// A changed file's entry: one conversation per step that touched it, each with the line
/// ranges that step wrote and are still there.
fn file_block(path: &str, f: &FileState, models: &BTreeMap<i64, &str>, shape: Shape) -> Value {
    let fidelity = shape.attribution_fidelity();
    let mut per_step = f.lines.as_deref().map(|lines| ranges_by_step(lines, shape)).unwrap_or_default();
    let mut steps_touched = f.touched_by.clone();
    steps_touched.sort();
    steps_touched.dedup();
    let conversations: Vec<Value> = steps_touched
        .iter()
        .map(|s| {
            let mut contributor = Map::new();
            contributor.insert("type".into(), json!("ai"));
            if let Some(m) = models.get(s) {
                contributor.insert("model_id".into(), json!(m));
            }
            let mut c = json!({
                "contributor": contributor,
                "url": format!("opentraces://trace/step_{s}"),
                "ranges": per_step.remove(s).unwrap_or_default(),
            });
            if fidelity {
                c["ids"] = Value::Null;
                c["related"] = Value::Null;
            }
            c
        })
        .collect();
    json!({"path": path, "conversations": conversations})
}

/// The runs of adjacent lines one step wrote the same way, per step, in line order.
fn ranges_by_step(lines: &[Line], shape: Shape) -> BTreeMap<i64, Vec<Value>> {
    let fidelity = shape.attribution_fidelity();
    let mut per_step: BTreeMap<i64, Vec<Value>> = BTreeMap::new();
    let mut i = 0;
    while i < lines.len() {
        let Some((step, change)) = lines[i].by else {
            i += 1;
            continue;
        };
        let mut j = i;
        while j + 1 < lines.len() && lines[j + 1].by == Some((step, change)) {
            j += 1;
        }
        let text: String = lines[i..=j].iter().map(|l| format!("{}\n", l.text)).collect();
        let mut range = json!({
            "start_line": i + 1,
            "end_line": j + 1,
            "content_hash": range_hash(shape, &text),
            "confidence": "high",
        });
        if fidelity {
            range["change_type"] = json!(change.as_str());
            range["original"] = Value::Null;
            range["contributor"] = Value::Null;
        }
        per_step.entry(step).or_default().push(range);
        i = j + 1;
    }
    per_step
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trace(steps: Value) -> Value {
        json!({"schema_version": "0.2.0", "steps": steps})
    }
    fn call(id: &str, name: &str, input: Value) -> Value {
        json!({"tool_call_id": id, "tool_name": name, "input": input})
    }
    fn ranges(block: &Value, file: &str) -> Vec<(String, i64, i64)> {
        let f = block["files"].as_array().unwrap().iter().find(|f| f["path"] == file).unwrap();
        let mut out = Vec::new();
        for c in f["conversations"].as_array().unwrap() {
            for r in c["ranges"].as_array().unwrap() {
                out.push((c["url"].as_str().unwrap().to_string(), r["start_line"].as_i64().unwrap(), r["end_line"].as_i64().unwrap()));
            }
        }
        out
    }

    #[test]
    fn single_write_matches_the_real_package() {
        let t =
            trace(json!([{"step_index": 2, "tool_calls": [call("a", "Write", json!({"file_path": "src/foo.py", "content": "def foo():\n    return 1\n"}))]}]));
        let (b, r) = build(&t, Shape::V0_2);
        let b = b.unwrap();
        assert_eq!(b["files"][0]["conversations"][0]["ranges"][0], json!({"start_line": 1, "end_line": 2, "content_hash": "5e4cdad4", "confidence": "high"}));
        assert_eq!(r, Report::default());
    }

    #[test]
    fn write_then_edit_moves_ranges() {
        let t = trace(json!([
            {"step_index": 1, "tool_calls": [call("a", "Write", json!({"file_path": "a.py", "content": "l1\nl2\nl3\n"}))]},
            {"step_index": 3, "tool_calls": [call("b", "Edit", json!({"file_path": "a.py", "old_string": "l2\n", "new_string": "x\ny\nz\n"}))]}
        ]));
        let (b, _) = build(&t, Shape::V0_2);
        assert_eq!(
            ranges(&b.unwrap(), "a.py"),
            vec![("opentraces://trace/step_1".into(), 1, 1), ("opentraces://trace/step_1".into(), 5, 5), ("opentraces://trace/step_3".into(), 2, 4)]
        );
    }

    #[test]
    fn several_and_overlapping_edits() {
        let t = trace(json!([
            {"step_index": 1, "tool_calls": [call("r", "Read", json!({"file_path": "b.rs"}))], "observations": [{"source_call_id": "r", "content": "     1\tfn a() {}\n     2\tfn b() {}\n     3\tfn c() {}\n"}]},
            {"step_index": 2, "tool_calls": [call("e1", "Edit", json!({"file_path": "b.rs", "old_string": "fn b() {}", "new_string": "fn b() { 1 }"}))]},
            {"step_index": 4, "tool_calls": [call("e2", "MultiEdit", json!({"file_path": "b.rs", "edits": [{"old_string": "fn b() { 1 }", "new_string": "fn b() { 2 }"}, {"old_string": "fn c() {}", "new_string": "fn c() { 3 }"}]}))]}
        ]));
        let (b, r) = build(&t, Shape::V0_2);
        // Step 4 rewrote line 2 (overlapping step 2's edit) and line 3.
        assert_eq!(ranges(&b.unwrap(), "b.rs"), vec![("opentraces://trace/step_4".into(), 2, 3)]);
        assert!(r.unlocated.is_empty());
    }

    #[test]
    fn edit_with_no_prior_read_is_listed_not_placed() {
        let t = trace(json!([{"step_index": 5, "tool_calls": [call("e", "Edit", json!({"file_path": "c.go", "old_string": "a", "new_string": "b"}))]}]));
        let (b, r) = build(&t, Shape::V0_2);
        let b = b.unwrap();
        assert_eq!(b["files"][0]["path"], "c.go");
        assert_eq!(b["files"][0]["conversations"][0]["ranges"], json!([]));
        assert_eq!(r.unlocated, vec![("c.go".to_string(), 5)]);
    }

    #[test]
    fn patch_files_without_tool_calls_are_listed() {
        let t = json!({"schema_version": "0.3.0", "outcome": {"patch": "diff --git a/x.py b/x.py\n+++ b/x.py\n@@\ndiff --git a/y.py b/y.py\n+++ b/y.py\n"},
            "steps": [{"step_index": 1, "tool_calls": [call("a", "Write", json!({"file_path": "/work/repo/x.py", "content": "hello world"}))]}]});
        let (b, r) = build(&t, Shape::V0_3);
        // x.py is the tool call's file, named by its absolute path.
        assert_eq!(r.unexplained_patch_files, vec!["y.py".to_string()]);
        let b = b.unwrap();
        assert_eq!(b["unaccounted_files"], json!(["y.py"]));
        // 0.3.0 records hash ranges with murmur3.
        assert_eq!(b["files"][0]["conversations"][0]["ranges"][0]["content_hash"], range_hash(Shape::V0_3, "hello world\n"));
        assert!(range_hash(Shape::V0_3, "x").starts_with("murmur3:"));
    }

    /// From 0.6 the changed files are `patches[]`; `outcome.patch` is no field of the record.
    #[test]
    fn from_0_6_the_changed_files_are_the_patches() {
        let steps = json!([{"step_index": 1, "tool_calls": [call("a", "Write", json!({"file_path": "x.py", "content": "1\n"}))]}]);
        let t = json!({"schema_version": "0.9.0", "outcome": {"patch": "+++ b/z.py\n"}, "patches": [{"patch_id": "p1", "file_path": "x.py"}, {"patch_id": "p2", "file_path": "sed.py", "capture_method": ["watcher_backstop"]}], "steps": steps});
        let (b, r) = build(&t, Shape::V0_6);
        assert_eq!(r.unexplained_patch_files, vec!["sed.py".to_string()]);
        assert_eq!(b.unwrap()["unaccounted_files"], json!(["sed.py"]));
        // No changed files stated: unaccounted_files is null (not checked), not [].
        let (b, r) = build(&json!({"schema_version": "0.9.0", "steps": steps}), Shape::V0_6);
        assert_eq!((b.unwrap()["unaccounted_files"].clone(), r.unexplained_patch_files.len()), (Value::Null, 0));
    }

    /// Every field of each block, by shape: 0.2's, and 0.3's additions (the package's models).
    #[test]
    fn blocks_carry_the_fields_of_their_version() {
        let t = |v: &str| {
            json!({"schema_version": v, "steps": [
                {"step_index": 1, "tool_calls": [call("r", "Read", json!({"file_path": "a.py"}))], "observations": [{"source_call_id": "r", "content": "one\ntwo\n"}]},
                {"step_index": 2, "model": "anthropic/claude-sonnet-4-20250514", "tool_calls": [call("e", "Edit", json!({"file_path": "a.py", "old_string": "two", "new_string": "TWO"})), call("w", "Write", json!({"file_path": "b.py", "content": "new\n"}))]}
            ]})
        };
        let keys = |v: &Value| {
            let mut k: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
            k.sort();
            k
        };
        let (b2, _) = build(&t("0.2.0"), Shape::V0_2);
        let b2 = b2.unwrap();
        assert_eq!(keys(&b2), ["experimental", "files"]);
        assert_eq!(keys(&b2["files"][0]["conversations"][0]), ["contributor", "ranges", "url"]);
        assert_eq!(keys(&b2["files"][0]["conversations"][0]["ranges"][0]), ["confidence", "content_hash", "end_line", "start_line"]);
        assert_eq!(b2["experimental"], true);
        let (b3, _) = build(&t("0.3.0"), Shape::V0_3);
        let b3 = b3.unwrap();
        assert_eq!(keys(&b3), ["experimental", "files", "revision", "unaccounted_files"]);
        assert_eq!(keys(&b3["files"][0]["conversations"][0]), ["contributor", "ids", "ranges", "related", "url"]);
        assert_eq!(
            keys(&b3["files"][0]["conversations"][0]["ranges"][0]),
            ["change_type", "confidence", "content_hash", "contributor", "end_line", "original", "start_line"]
        );
        // Every edit placed: not experimental.
        assert_eq!(b3["experimental"], false);
        // The Edit modified a.py's line 2; the Write added b.py.
        assert_eq!(b3["files"][0]["conversations"][0]["ranges"][0]["change_type"], "modification");
        assert_eq!(b3["files"][1]["conversations"][0]["ranges"][0]["change_type"], "addition");
        // The step's model is the contributor's model_id, in every version.
        for b in [&b2, &b3] {
            assert_eq!(b["files"][0]["conversations"][0]["contributor"], json!({"type": "ai", "model_id": "anthropic/claude-sonnet-4-20250514"}));
        }
    }

    /// A step that names no model: the contributor is `{"type": "ai"}` alone (never the
    /// session's model, which another step may not have used).
    #[test]
    fn no_model_no_model_id() {
        let t = trace(json!([{"step_index": 3, "tool_calls": [call("w", "Write", json!({"file_path": "a", "content": "x\n"}))]}]));
        let mut t = t;
        t["agent"] = json!({"name": "claude-code", "model": "anthropic/claude-opus-4"});
        let (b, _) = build(&t, Shape::V0_2);
        assert_eq!(b.unwrap()["files"][0]["conversations"][0]["contributor"], json!({"type": "ai"}));
    }

    /// An edit that cannot be placed makes a 0.3+ block experimental.
    #[test]
    fn unplaced_edit_is_experimental_from_0_3() {
        let t = json!({"schema_version": "0.6.0", "steps": [{"step_index": 5, "tool_calls": [call("e", "Edit", json!({"file_path": "c.go", "old_string": "a", "new_string": "b"}))]}]});
        let (b, r) = build(&t, Shape::V0_6);
        assert_eq!(b.unwrap()["experimental"], true);
        assert_eq!(r.unlocated.len(), 1);
    }
}
