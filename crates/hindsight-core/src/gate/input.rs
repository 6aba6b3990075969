//! Execution results in the commit protocol's input contract (docs/SPEC.md
//! [SPEC-GATE-INPUT]), one JSON object per line.
//!
//! The file is only read: each record keeps its line's text, and its sha256 goes into the
//! evaluation so the result names the exact immutable input it judged. A line that breaks
//! the contract (not JSON, a repeated key, a missing or wrong-typed field) is quarantined
//! with its text and the evaluation goes on with the others.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::{Error, Result};

/// The builder's own verdict on the run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BuilderStatus {
    Success,
    Failure,
    Timeout,
}

/// One execution result. The six fields of the protocol's contract are required; the rest
/// are what a runtime records around them (docs/GATE.md), each optional, `null` the same as
/// absent.
#[derive(Clone, Debug)]
pub struct ExecutionResult {
    /// 1-based line in the results file.
    pub line: usize,
    /// The line's text, as read.
    pub raw: String,
    pub task_id: String,
    pub(crate) exit_code: i64,
    pub(crate) changed_files: Vec<String>,
    pub(crate) logs: String,
    pub(crate) duration_seconds: f64,
    pub(crate) builder_status: BuilderStatus,
    /// As written; the evaluation parses it (RFC 3339) and never reads the clock.
    pub(crate) timestamp: Option<String>,
    pub(crate) commit_message: Option<String>,
    /// The runtime's environment validation just before the commit.
    pub(crate) environment_valid: Option<bool>,
    pub(crate) governance_hash_before: Option<String>,
    pub(crate) governance_hash_after: Option<String>,
    /// sha256 of protected files as observed at evaluation, by path.
    pub(crate) protected_file_sha256: BTreeMap<String, String>,
    /// The runtime's commit failed (and was rolled back), with its message.
    pub(crate) commit_error: Option<String>,
    /// Evidence for an expected outcome of `tests_passed: true`.
    pub(crate) tests_passed: Option<bool>,
    /// Fields this contract does not know, kept as read.
    #[allow(dead_code)] // read by the tests: nothing an input holds is lost
    pub(crate) extra: BTreeMap<String, Value>,
}

const KNOWN: [&str; 14] = [
    "task_id",
    "exit_code",
    "changed_files",
    "logs",
    "duration_seconds",
    "builder_status",
    "timestamp",
    "commit_message",
    "environment_valid",
    "governance_hash_before",
    "governance_hash_after",
    "protected_file_sha256",
    "commit_error",
    "tests_passed",
];

/// A line that could not be evaluated: where, why, and its text.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Quarantined {
    pub file: String,
    pub line: usize,
    /// The field at fault, when one is.
    pub field: Option<String>,
    pub reason: String,
    pub raw: String,
}

/// Every record of a results file: read = results + quarantined.
#[derive(Debug, Default)]
pub struct Records {
    pub results: Vec<ExecutionResult>,
    pub quarantined: Vec<Quarantined>,
}

/// Read every non-blank line of `path`. Only an unreadable file is an error.
pub fn read(path: &Path) -> Result<Records> {
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    let file = path.display().to_string();
    let mut out = Records::default();
    for (i, line) in bytes.split(|&b| b == b'\n').enumerate() {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let lineno = i + 1;
        let (raw, parsed) = match std::str::from_utf8(line) {
            Ok(text) => (text.to_string(), parse(text, lineno)),
            Err(e) => (String::from_utf8_lossy(line).into_owned(), Err((None, format!("not UTF-8 (byte {})", e.valid_up_to())))),
        };
        match parsed {
            Ok(r) => out.results.push(r),
            Err((field, reason)) => out.quarantined.push(Quarantined { file: file.clone(), line: lineno, field, reason, raw }),
        }
    }
    Ok(out)
}

/// The field at fault (when one is) and why the line is quarantined.
pub(crate) type Refusal = (Option<String>, String);

fn refuse(field: &str, reason: impl Into<String>) -> Refusal {
    (Some(field.to_string()), reason.into())
}

/// One line as an execution result, or the field at fault and why.
pub(crate) fn parse(text: &str, line: usize) -> Result<ExecutionResult, Refusal> {
    if let Some(reason) = crate::json::too_deep(text) {
        return Err((None, reason));
    }
    let value: Value = serde_json::from_str(text).map_err(|e| (None, format!("not JSON: {e}")))?;
    let Value::Object(o) = &value else {
        return Err((None, "not a JSON object".into()));
    };
    // Two readers could take different copies of a repeated key: the record is ambiguous.
    if let Some(path) = crate::json::repeated_key(text) {
        let top = path.split(['.', '[']).next().unwrap_or_default().to_string();
        return Err(refuse(&top, format!("repeated key `{}`: the record is ambiguous", crate::text::printable(&path))));
    }
    let task_id = required(o, "task_id", Value::as_str, "a string")?;
    if task_id.is_empty() {
        return Err(refuse("task_id", "empty"));
    }
    let exit_code = required(o, "exit_code", Value::as_i64, "an integer")?;
    let changed_files = required(o, "changed_files", Value::as_array, "an array of paths")?;
    let changed_files = changed_files
        .iter()
        .map(|f| f.as_str().map(str::to_string).ok_or_else(|| refuse("changed_files", format!("expected an array of strings, found {f}"))))
        .collect::<Result<Vec<_>, _>>()?;
    let logs = required(o, "logs", Value::as_str, "a string")?;
    let duration_seconds = required(o, "duration_seconds", Value::as_f64, "a number")?;
    if !(duration_seconds.is_finite() && duration_seconds >= 0.0) {
        return Err(refuse("duration_seconds", "expected a number >= 0"));
    }
    let builder_status = match required(o, "builder_status", Value::as_str, "a string")? {
        "success" => BuilderStatus::Success,
        "failure" => BuilderStatus::Failure,
        "timeout" => BuilderStatus::Timeout,
        other => return Err(refuse("builder_status", format!("`{other}`: expected success, failure or timeout"))),
    };
    Ok(ExecutionResult {
        line,
        raw: text.to_string(),
        task_id: task_id.to_string(),
        exit_code,
        changed_files,
        logs: logs.to_string(),
        duration_seconds,
        builder_status,
        timestamp: optional(o, "timestamp", Value::as_str, "a string")?.map(str::to_string),
        commit_message: optional(o, "commit_message", Value::as_str, "a string")?.map(str::to_string),
        environment_valid: optional(o, "environment_valid", Value::as_bool, "true or false")?,
        governance_hash_before: optional(o, "governance_hash_before", Value::as_str, "a string")?.map(str::to_string),
        governance_hash_after: optional(o, "governance_hash_after", Value::as_str, "a string")?.map(str::to_string),
        protected_file_sha256: protected_hashes(o)?,
        commit_error: optional(o, "commit_error", Value::as_str, "a string")?.map(str::to_string),
        tests_passed: optional(o, "tests_passed", Value::as_bool, "true or false")?,
        extra: o.iter().filter(|(k, _)| !KNOWN.contains(&k.as_str())).map(|(k, v)| (k.clone(), v.clone())).collect(),
    })
}

fn required<'a, T>(o: &'a Map<String, Value>, field: &str, get: impl Fn(&'a Value) -> Option<T>, expected: &str) -> Result<T, Refusal> {
    match o.get(field) {
        None | Some(Value::Null) => Err(refuse(field, "missing")),
        Some(v) => get(v).ok_or_else(|| refuse(field, format!("expected {expected}, found {v}"))),
    }
}

fn optional<'a, T>(o: &'a Map<String, Value>, field: &str, get: impl Fn(&'a Value) -> Option<T>, expected: &str) -> Result<Option<T>, Refusal> {
    match o.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => get(v).map(Some).ok_or_else(|| refuse(field, format!("expected {expected}, found {v}"))),
    }
}

fn protected_hashes(o: &Map<String, Value>) -> Result<BTreeMap<String, String>, Refusal> {
    const F: &str = "protected_file_sha256";
    let Some(m) = optional(o, F, Value::as_object, "an object of path -> sha256")? else {
        return Ok(BTreeMap::new());
    };
    m.iter()
        .map(|(path, h)| h.as_str().map(|h| (path.clone(), h.to_string())).ok_or_else(|| refuse(F, format!("`{path}`: expected a sha256 string, found {h}"))))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const OK: &str = r#"{"task_id":"t","exit_code":0,"changed_files":["a"],"logs":"","duration_seconds":1.5,"builder_status":"success"}"#;

    fn field_of(text: &str) -> Option<String> {
        parse(text, 1).err().and_then(|(f, _)| f)
    }

    #[test]
    fn the_contract_fields_are_required_and_typed() {
        let r = parse(OK, 7).unwrap();
        assert_eq!((r.line, r.task_id.as_str(), r.duration_seconds, r.builder_status), (7, "t", 1.5, BuilderStatus::Success));
        assert_eq!(r.raw, OK);
        assert!(r.timestamp.is_none() && r.extra.is_empty());
        let with = |k: &str, v: &str| OK.replacen(&format!("\"{k}\":"), &format!("\"{k}\":{v},\"was_{k}\":"), 1);
        assert_eq!(field_of(&with("task_id", "\"\"")), Some("task_id".into()));
        assert_eq!(field_of(&with("exit_code", "0.5")), Some("exit_code".into()));
        assert_eq!(field_of(&with("exit_code", "\"0\"")), Some("exit_code".into()));
        assert_eq!(field_of(&with("changed_files", "[1]")), Some("changed_files".into()));
        assert_eq!(field_of(&with("duration_seconds", "-1")), Some("duration_seconds".into()));
        assert_eq!(field_of(&with("builder_status", "\"passed\"")), Some("builder_status".into()));
        assert_eq!(field_of(&OK.replace(r#""logs":"","#, "")), Some("logs".into()));
        assert_eq!(field_of(&OK.replace(r#""task_id":"t","#, r#""task_id":null,"#)), Some("task_id".into()));
    }

    #[test]
    fn optional_fields_are_typed_and_unknown_ones_kept() {
        let line = OK.replace(
            '}',
            r#","timestamp":"2026-01-01T00:00:00Z","tests_passed":true,"protected_file_sha256":{"docs/governance.md":"ab"},"runner":{"os":"linux"}}"#,
        );
        let r = parse(&line, 1).unwrap();
        assert_eq!(r.tests_passed, Some(true));
        assert_eq!(r.protected_file_sha256.get("docs/governance.md").map(String::as_str), Some("ab"));
        assert_eq!(r.extra.get("runner"), Some(&serde_json::json!({"os": "linux"})));
        assert_eq!(field_of(&OK.replace('}', r#","environment_valid":"yes"}"#)), Some("environment_valid".into()));
        assert_eq!(field_of(&OK.replace('}', r#","timestamp":1767225600}"#)), Some("timestamp".into()));
        assert_eq!(field_of(&OK.replace('}', r#","protected_file_sha256":{"a":1}}"#)), Some("protected_file_sha256".into()));
        assert!(parse(&OK.replace('}', r#","commit_message":null}"#), 1).unwrap().commit_message.is_none());
    }

    #[test]
    fn repeated_keys_and_non_objects_are_refused() {
        assert_eq!(field_of(&OK.replace('}', r#","exit_code":1}"#)), Some("exit_code".into()));
        assert!(parse("[1]", 1).is_err());
        assert!(parse("{", 1).is_err());
    }
}
