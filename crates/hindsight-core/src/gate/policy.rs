//! The gate's policy file: what each task may change and must achieve, which files are
//! protected and what they must hash to, and which commit types are allowed.
//!
//! Read by hand from a JSON value, not through serde, so every refusal names the file and the
//! key at fault (`tasks.T-1.allowed_files[2]`). docs/GATE.md lists the keys and defaults.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{Map, Value};

use super::glob::{path_problem, Glob};
use crate::json::kind;
use crate::{Error, Result};

/// The commit types the protocol allows ([SPEC-GATE-POLICY]).
pub(crate) const DEFAULT_COMMIT_TYPES: [&str; 4] = ["feat", "fix", "docs", "chore"];

/// The files the protocol says MUST remain unchanged ([SPEC-GATE-POLICY]). They are
/// protected whatever the policy file says; the spec pattern alone may be lifted for a task
/// (`allow_spec_changes`).
pub(crate) const ALWAYS_PROTECTED: [&str; 3] = ["docs/governance.md", SPEC_PATTERN, "agents/state/environment.json"];

/// `docs/*spec*.md`: protected "unless task explicitly allows".
pub(crate) const SPEC_PATTERN: &str = "docs/*spec*.md";

const TOP_KEYS: [&str; 4] = ["allowed_commit_types", "protected_files", "protected_file_sha256", "tasks"];
const TASK_KEYS: [&str; 4] = ["allowed_files", "allow_spec_changes", "timeout_seconds", "expected_outcome"];
const OUTCOME_KEYS: [&str; 3] = ["files_created", "log_contains", "tests_passed"];

#[derive(Clone, Debug)]
pub struct Policy {
    /// Lowercase types a commit message may start with.
    pub(crate) allowed_commit_types: Vec<String>,
    /// The protocol's three patterns, then the policy file's.
    pub(crate) protected: Vec<Protected>,
    /// Expected sha256 (lowercase hex) of protected files, by path.
    pub(crate) protected_file_sha256: BTreeMap<String, String>,
    pub(crate) tasks: BTreeMap<String, TaskPolicy>,
}

#[derive(Clone, Debug)]
pub(crate) struct Protected {
    pub(crate) glob: Glob,
    /// The protocol's spec pattern, which a task may be allowed to change.
    pub(crate) spec: bool,
}

#[derive(Clone, Debug, Default)]
pub struct TaskPolicy {
    /// Every changed file must match one of these; none given, no file may change.
    pub(crate) allowed_files: Vec<Glob>,
    /// The task explicitly allows changes to `docs/*spec*.md`.
    pub(crate) allow_spec_changes: bool,
    /// A run longer than this is a timeout.
    pub(crate) timeout_seconds: Option<f64>,
    /// `None` (or given with no condition): success cannot be proven, so never reached.
    pub(crate) expected_outcome: Option<ExpectedOutcome>,
}

/// The task-defined success condition. Every condition given must be proven by the result.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct ExpectedOutcome {
    /// Paths that must appear in `changed_files`.
    pub(crate) files_created: Vec<String>,
    /// Texts the logs must contain (case-sensitive).
    pub(crate) log_contains: Vec<String>,
    /// The result must record `tests_passed: true`.
    pub(crate) tests_passed: bool,
}

impl ExpectedOutcome {
    /// No condition at all: nothing would prove success.
    pub fn is_empty(&self) -> bool {
        self.files_created.is_empty() && self.log_contains.is_empty() && !self.tests_passed
    }
}

impl Default for Policy {
    /// The protocol's defaults and no task: every result is rejected, as none can be
    /// proven.
    fn default() -> Self {
        Policy {
            allowed_commit_types: DEFAULT_COMMIT_TYPES.iter().map(|t| t.to_string()).collect(),
            protected: always_protected(),
            protected_file_sha256: BTreeMap::new(),
            tasks: BTreeMap::new(),
        }
    }
}

fn always_protected() -> Vec<Protected> {
    ALWAYS_PROTECTED.iter().filter_map(|p| Glob::new(p).ok()).map(|glob| Protected { spec: glob.as_str() == SPEC_PATTERN, glob }).collect()
}

impl Policy {
    /// Read and validate a policy file. Refused: not a JSON object, an unknown key, a value
    /// of the wrong type, a pattern or path that could never match, a sha256 that is not 64
    /// hex digits or belongs to no protected file, a task file outside the task's own scope.
    pub fn load(path: &Path) -> Result<Policy> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        let err = |message: String| Error::Policy { path: path.to_path_buf(), message };
        let value: Value = crate::json::from_str_unique(&text).map_err(|e| err(format!("line {}: {e}", e.line())))?;
        Policy::from_json(&value).map_err(err)
    }

    /// A policy from its JSON form; the error names the key at fault.
    pub(crate) fn from_json(value: &Value) -> Result<Policy, String> {
        let top = object(value, "the policy")?;
        known_keys(top, &TOP_KEYS, "")?;
        let mut p = Policy::default();
        if let Some(v) = top.get("allowed_commit_types") {
            let types = strings(v, "allowed_commit_types")?;
            if types.is_empty() {
                return Err("`allowed_commit_types`: empty; no commit could ever pass".into());
            }
            if let Some((i, t)) = types.iter().enumerate().find(|(_, t)| t.is_empty() || !t.bytes().all(|b| b.is_ascii_lowercase())) {
                return Err(format!("`allowed_commit_types[{i}]`: `{t}` is not lowercase letters, so no message could use it"));
            }
            p.allowed_commit_types = types;
        }
        if let Some(v) = top.get("protected_files") {
            for (i, pattern) in strings(v, "protected_files")?.iter().enumerate() {
                p.protected.push(Protected { glob: Glob::new(pattern).map_err(|e| format!("`protected_files[{i}]`: {e}"))?, spec: false });
            }
        }
        if let Some(v) = top.get("protected_file_sha256") {
            for (file, hash) in object(v, "`protected_file_sha256`")? {
                let key = format!("protected_file_sha256.{file}");
                if let Some(problem) = path_problem(file) {
                    return Err(format!("`{key}`: {problem}"));
                }
                if !p.protected.iter().any(|g| g.glob.matches(file)) {
                    return Err(format!(
                        "`{key}`: not a protected file (protected: {})",
                        p.protected.iter().map(|g| g.glob.as_str()).collect::<Vec<_>>().join(", ")
                    ));
                }
                p.protected_file_sha256.insert(file.clone(), sha256(hash, &key)?);
            }
        }
        if let Some(v) = top.get("tasks") {
            for (id, task) in object(v, "`tasks`")? {
                if id.is_empty() {
                    return Err("`tasks`: an empty task id".into());
                }
                p.tasks.insert(id.clone(), task_policy(task, &format!("tasks.{id}"))?);
            }
        }
        Ok(p)
    }

    /// Whether `path` is protected while `task` runs (the spec pattern is lifted for a task
    /// that allows spec changes; any other pattern still protects the file).
    pub(crate) fn is_protected(&self, task: Option<&TaskPolicy>, path: &str) -> bool {
        let spec_allowed = task.is_some_and(|t| t.allow_spec_changes);
        self.protected.iter().any(|g| !(g.spec && spec_allowed) && g.glob.matches(path))
    }
}

fn task_policy(value: &Value, key: &str) -> Result<TaskPolicy, String> {
    let o = object(value, &format!("`{key}`"))?;
    known_keys(o, &TASK_KEYS, key)?;
    let mut t = TaskPolicy::default();
    if let Some(v) = o.get("allowed_files") {
        let k = format!("{key}.allowed_files");
        for (i, pattern) in strings(v, &k)?.iter().enumerate() {
            t.allowed_files.push(Glob::new(pattern).map_err(|e| format!("`{k}[{i}]`: {e}"))?);
        }
    }
    if let Some(v) = o.get("allow_spec_changes") {
        t.allow_spec_changes = v.as_bool().ok_or_else(|| format!("`{key}.allow_spec_changes`: expected true or false, found {}", kind(v)))?;
    }
    if let Some(v) = o.get("timeout_seconds") {
        let s = v.as_f64().filter(|s| s.is_finite() && *s > 0.0);
        t.timeout_seconds = Some(s.ok_or_else(|| format!("`{key}.timeout_seconds`: expected a positive number of seconds, found {v}"))?);
    }
    if let Some(v) = o.get("expected_outcome") {
        let outcome = expected_outcome(v, &format!("{key}.expected_outcome"))?;
        for f in &outcome.files_created {
            if !t.allowed_files.iter().any(|g| g.matches(f)) {
                return Err(format!("`{key}.expected_outcome.files_created`: `{f}` is outside the task's allowed_files, so the task could never succeed"));
            }
        }
        t.expected_outcome = Some(outcome);
    }
    Ok(t)
}

fn expected_outcome(value: &Value, key: &str) -> Result<ExpectedOutcome, String> {
    let o = object(value, &format!("`{key}`"))?;
    known_keys(o, &OUTCOME_KEYS, key)?;
    let mut e = ExpectedOutcome::default();
    if let Some(v) = o.get("files_created") {
        let k = format!("{key}.files_created");
        e.files_created = strings(v, &k)?;
        if let Some((i, problem)) = e.files_created.iter().enumerate().find_map(|(i, f)| path_problem(f).map(|p| (i, p))) {
            return Err(format!("`{k}[{i}]`: `{}`: {problem}", e.files_created[i].escape_debug()));
        }
    }
    if let Some(v) = o.get("log_contains") {
        let k = format!("{key}.log_contains");
        e.log_contains = strings(v, &k)?;
        if let Some(i) = e.log_contains.iter().position(String::is_empty) {
            return Err(format!("`{k}[{i}]`: an empty text proves nothing"));
        }
    }
    if let Some(v) = o.get("tests_passed") {
        // `false` would ask for failing tests; no task succeeds by that.
        if v != &Value::Bool(true) {
            return Err(format!("`{key}.tests_passed`: expected true (the only outcome it can require), found {v}"));
        }
        e.tests_passed = true;
    }
    Ok(e)
}

fn object<'a>(v: &'a Value, what: &str) -> Result<&'a Map<String, Value>, String> {
    v.as_object().ok_or_else(|| format!("{what}: expected a JSON object, found {}", kind(v)))
}

fn known_keys(o: &Map<String, Value>, known: &[&str], parent: &str) -> Result<(), String> {
    match o.keys().find(|k| !known.contains(&k.as_str())) {
        None => Ok(()),
        Some(k) => {
            let full = if parent.is_empty() { k.clone() } else { format!("{parent}.{k}") };
            Err(format!("`{full}`: unknown key; known keys here: {}", known.join(", ")))
        }
    }
}

fn strings(v: &Value, key: &str) -> Result<Vec<String>, String> {
    let arr = v.as_array().ok_or_else(|| format!("`{key}`: expected an array of strings, found {}", kind(v)))?;
    arr.iter().enumerate().map(|(i, s)| s.as_str().map(str::to_string).ok_or_else(|| format!("`{key}[{i}]`: expected a string, found {}", kind(s)))).collect()
}

fn sha256(v: &Value, key: &str) -> Result<String, String> {
    match v.as_str() {
        Some(s) if s.len() == 64 && s.bytes().all(|b| b.is_ascii_hexdigit()) => Ok(s.to_ascii_lowercase()),
        _ => Err(format!("`{key}`: expected a sha256 (64 hex digits), found {v}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn refused(v: Value, fragment: &str) {
        match Policy::from_json(&v) {
            Ok(_) => panic!("{v} accepted"),
            Err(e) => assert!(e.contains(fragment), "{v}: `{e}` lacks `{fragment}`"),
        }
    }

    #[test]
    fn defaults_are_the_protocols() {
        let p = Policy::from_json(&json!({})).unwrap();
        assert_eq!(p.allowed_commit_types, ["feat", "fix", "docs", "chore"]);
        for f in ["docs/governance.md", "docs/evaluation-spec.md", "agents/state/environment.json"] {
            assert!(p.is_protected(None, f), "{f}");
        }
        assert!(!p.is_protected(None, "docs/readme.md"));
        assert!(p.tasks.is_empty());
    }

    #[test]
    fn spec_allowance_lifts_only_the_spec_pattern() {
        let p = Policy::from_json(&json!({"protected_files": ["docs/frozen-spec.md"], "tasks": {"t": {"allow_spec_changes": true}}})).unwrap();
        let t = p.tasks.get("t");
        assert!(!p.is_protected(t, "docs/evaluation-spec.md"));
        assert!(p.is_protected(t, "docs/frozen-spec.md"), "an added pattern still protects it");
        assert!(p.is_protected(t, "docs/governance.md"));
        assert!(p.is_protected(None, "docs/evaluation-spec.md"));
    }

    #[test]
    fn bad_policies_name_the_key() {
        refused(json!([]), "expected a JSON object");
        refused(json!({"allowed_types": []}), "`allowed_types`: unknown key");
        refused(json!({"allowed_commit_types": "feat"}), "`allowed_commit_types`: expected an array of strings");
        refused(json!({"allowed_commit_types": []}), "`allowed_commit_types`: empty");
        refused(json!({"allowed_commit_types": ["feat", "Fix"]}), "`allowed_commit_types[1]`");
        refused(json!({"protected_files": ["a//b"]}), "`protected_files[0]`");
        refused(json!({"protected_file_sha256": {"docs/governance.md": "abc"}}), "`protected_file_sha256.docs/governance.md`: expected a sha256");
        refused(json!({"protected_file_sha256": {"src/a.rs": "0".repeat(64)}}), "`protected_file_sha256.src/a.rs`: not a protected file");
        refused(json!({"tasks": []}), "`tasks`: expected a JSON object");
        refused(json!({"tasks": {"t": {"allowed": []}}}), "`tasks.t.allowed`: unknown key");
        refused(json!({"tasks": {"t": {"allowed_files": ["src/**", 3]}}}), "`tasks.t.allowed_files[1]`: expected a string, found a number");
        refused(json!({"tasks": {"t": {"allowed_files": ["src/a**"]}}}), "`tasks.t.allowed_files[0]`");
        refused(json!({"tasks": {"t": {"allow_spec_changes": "yes"}}}), "`tasks.t.allow_spec_changes`");
        refused(json!({"tasks": {"t": {"timeout_seconds": 0}}}), "`tasks.t.timeout_seconds`");
        refused(json!({"tasks": {"t": {"timeout_seconds": "60"}}}), "`tasks.t.timeout_seconds`");
        refused(json!({"tasks": {"t": {"expected_outcome": {"tests": true}}}}), "`tasks.t.expected_outcome.tests`: unknown key");
        refused(json!({"tasks": {"t": {"expected_outcome": {"tests_passed": false}}}}), "`tasks.t.expected_outcome.tests_passed`");
        refused(json!({"tasks": {"t": {"expected_outcome": {"log_contains": [""]}}}}), "`tasks.t.expected_outcome.log_contains[0]`");
        refused(json!({"tasks": {"t": {"expected_outcome": {"files_created": ["src/a.rs"]}}}}), "outside the task's allowed_files");
    }
}
