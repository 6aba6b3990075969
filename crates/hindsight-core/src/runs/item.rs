//! One safe output: what the agent's workflow did (or asked to do), normalized from any of
//! the recorded shapes.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};

use serde_json::{json, Map, Value};

use crate::json::{as_int, canonical, int_at, names, sha256_hex, str_at};
use crate::snapshot::paths::parse_url;
use crate::time::{self, Instant};

/// Whether the output was carried out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Execution {
    /// In the executed manifest.
    Executed,
    /// A system output (`noop`, `missing_tool`, ...) that is never executed by design.
    RequestedOnly,
    /// Requested in staged mode: previewed, not applied.
    Staged,
    /// Requested, but no executed item accounts for it (an error, a rejected request).
    NotExecuted,
    /// Requested in a run that has no executed-items record at all: unknown.
    Unrecorded,
    /// Requested in a run GitHub recorded as cancelled, which kept no executed-items
    /// record: never carried out as far as anything shows.
    Cancelled,
}

impl Execution {
    pub fn as_str(&self) -> &'static str {
        match self {
            Execution::Executed => "executed",
            Execution::RequestedOnly => "requested_only",
            Execution::Staged => "staged",
            Execution::NotExecuted => "not_executed",
            Execution::Unrecorded => "unrecorded",
            Execution::Cancelled => "cancelled",
        }
    }
    pub fn parse(s: &str) -> Execution {
        match s {
            "requested_only" => Execution::RequestedOnly,
            "staged" => Execution::Staged,
            "not_executed" => Execution::NotExecuted,
            "unrecorded" => Execution::Unrecorded,
            "cancelled" => Execution::Cancelled,
            _ => Execution::Executed,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// gh-aw `safe-output-items.jsonl`, thin or rich.
    GhAw,
    /// normalized records ([SPEC-RECORDS]) in `safe-outputs.jsonl`.
    Normalized,
    /// An agent request (agent_output.json / safeoutputs.jsonl).
    Request,
}

impl Format {
    pub fn as_str(&self) -> &'static str {
        match self {
            Format::GhAw => "gh-aw-manifest",
            Format::Normalized => "normalized",
            Format::Request => "agent-request",
        }
    }
}

#[derive(Clone, Debug)]
pub struct TempTarget {
    pub repo: Option<String>,
    pub number: Option<i64>,
}

pub struct RunContext {
    pub run_id: String,
    pub workflow_name: Option<String>,
    pub repository: Option<String>,
    pub actor: Option<String>,
    pub staged: bool,
    pub temp_ids: HashMap<String, TempTarget>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct SafeOutput<'a> {
    pub safe_output_id: Cow<'a, str>,
    pub run_id: Cow<'a, str>,
    pub item_index: i64,
    pub workflow_name: Option<Cow<'a, str>>,
    pub output_type: Cow<'a, str>,
    pub execution: Execution,
    pub target_repo: Option<Cow<'a, str>>,
    pub target_kind: Option<Cow<'a, str>>,
    pub target_number: Option<i64>,
    pub target_comment_id: Option<i64>,
    pub target_url: Option<Cow<'a, str>>,
    /// The target's GraphQL node id, when the run recorded it (`target_node_id`,
    /// [SPEC-RECORDS]).
    pub target_node_id: Option<Cow<'a, str>>,
    /// How the target was found: `number`, `url`, `temporary_id`, `target`, `request`.
    pub target_source: Option<Cow<'a, str>>,
    pub temporary_id: Option<Cow<'a, str>>,
    /// The identity the output was written as, when recorded.
    pub actor: Option<Cow<'a, str>>,
    /// The run's triggering actor (aw_info.json).
    pub run_actor: Option<Cow<'a, str>>,
    pub created_at: Option<Instant>,
    pub payload_hash: Cow<'a, str>,
    /// For code changes ([SPEC-RECORDS]), as the run recorded them: the hash of the patch,
    /// the base branch, and the branch holding the changes (the PR's head).
    pub patch_hash: Option<Cow<'a, str>>,
    pub base_ref: Option<Cow<'a, str>>,
    pub head_ref: Option<Cow<'a, str>>,
    pub payload: Cow<'a, str>,
    /// Execution-time evidence an evaluator compares with later state (labels added, commit
    /// SHAs, requested reviewers, ...), as canonical JSON.
    pub expected_state: Cow<'a, str>,
    pub before_state: Option<Cow<'a, str>>,
    pub after_state: Option<Cow<'a, str>>,
    pub staged: bool,
    pub source_format: Cow<'a, str>,
    pub source_file: Cow<'a, str>,
    pub source_line: i64,
}

impl SafeOutput<'_> {
    /// The output with text of its own, no longer borrowed from where it was read.
    pub fn into_owned(self) -> SafeOutput<'static> {
        let own = |s: Cow<'_, str>| Cow::Owned(s.into_owned());
        let opt = |s: Option<Cow<'_, str>>| s.map(own);
        SafeOutput {
            safe_output_id: own(self.safe_output_id),
            run_id: own(self.run_id),
            item_index: self.item_index,
            workflow_name: opt(self.workflow_name),
            output_type: own(self.output_type),
            execution: self.execution,
            target_repo: opt(self.target_repo),
            target_kind: opt(self.target_kind),
            target_number: self.target_number,
            target_comment_id: self.target_comment_id,
            target_url: opt(self.target_url),
            target_node_id: opt(self.target_node_id),
            target_source: opt(self.target_source),
            temporary_id: opt(self.temporary_id),
            actor: opt(self.actor),
            run_actor: opt(self.run_actor),
            created_at: self.created_at,
            payload_hash: own(self.payload_hash),
            patch_hash: opt(self.patch_hash),
            base_ref: opt(self.base_ref),
            head_ref: opt(self.head_ref),
            payload: own(self.payload),
            expected_state: own(self.expected_state),
            before_state: opt(self.before_state),
            after_state: opt(self.after_state),
            staged: self.staged,
            source_format: own(self.source_format),
            source_file: own(self.source_file),
            source_line: self.source_line,
        }
    }
    pub fn expected(&self) -> Value {
        serde_json::from_str(&self.expected_state).unwrap_or(Value::Null)
    }
    pub fn before(&self) -> Option<Value> {
        self.before_state.as_deref().and_then(|s| serde_json::from_str(s).ok())
    }
    pub fn after(&self) -> Option<Value> {
        self.after_state.as_deref().and_then(|s| serde_json::from_str(s).ok())
    }
}

type FieldError = (&'static str, String);

fn wrong(field: &'static str, expected: &str, v: &Value) -> FieldError {
    (field, format!("expected {expected}, found {v}"))
}

/// A string of digits (white space around it ignored) too long for 64 bits.
fn digits_overflow(s: &str) -> bool {
    crate::json::overflows_i64(s.trim())
}

fn too_big(field: &'static str, written: &str) -> FieldError {
    (field, format!("`{}` is not an integer that fits 64 bits", crate::text::printable(written)))
}

/// An optional integer field: absent/null is fine, a non-integer is an error.
fn opt_int(v: &Value, field: &'static str) -> Result<Option<i64>, FieldError> {
    match v.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(x) => as_int(x).map(Some).ok_or_else(|| wrong(field, "an integer", x)),
    }
}

fn opt_str<'a>(v: &'a Value, field: &'static str) -> Result<Option<&'a str>, FieldError> {
    match v.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(x) => Err(wrong(field, "a string", x)),
    }
}

fn opt_time(v: &Value, field: &'static str) -> Result<Option<Instant>, FieldError> {
    match opt_str(v, field)? {
        None => Ok(None),
        Some(s) => time::parse(s).map(Some).ok_or_else(|| (field, format!("`{s}` is not an RFC 3339 time"))),
    }
}

/// A number-or-temporary-id field (`item_number: "aw_abc123"`).
/// A resolved target number, the repository a temporary id named, and how it was found.
type NumberRef = (i64, Option<String>, &'static str);

fn number_or_temp(v: &Value, field: &'static str, ctx: &RunContext) -> Result<Option<NumberRef>, FieldError> {
    match v.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(x) => {
            if let Some(n) = as_int(x) {
                return Ok(Some((n, None, "number")));
            }
            match x.as_str() {
                Some(s) if digits_overflow(s) => Err(too_big(field, s)),
                Some(s) => match ctx.temp_ids.get(s) {
                    Some(t) => Ok(t.number.map(|n| (n, t.repo.clone(), "temporary_id"))),
                    None => Ok(None),
                },
                None => Err(wrong(field, "a number or temporary id", x)),
            }
        }
    }
}

fn labels_of(v: Option<&Value>) -> Option<Vec<String>> {
    v.and_then(|s| s.get("labels")).and_then(names)
}

/// The execution-time references [SPEC-SIGNAL] and [SPEC-RECORDS] ask a run to keep, as
/// this record keeps them; each `None` when it does not (never derived from something
/// else).
#[derive(Default)]
struct Refs {
    target_node_id: Option<String>,
    patch_hash: Option<String>,
    base_ref: Option<String>,
    head_ref: Option<String>,
}

/// Where a record keeps them:
/// - `target_node_id`: the field of that name in [SPEC-RECORDS]; the node id of gh-aw's
///   `target` object (newer manifests; the outcome record's `target.node_id`,
///   [SPEC-SIGNAL]).
/// - `patch_hash`, `base_ref`, `head_ref`: fields of those names at the top, in gh-aw's
///   persisted `metadata`, or in a normalized record's `expected_state`.
/// - `base_ref` also from `base` (gh-aw's create_pull_request: "Target base branch"), and for
///   create_pull_request `head_ref` from `branch` (the PR gh-aw opens has that branch as its
///   head). Other types' `branch` (push_to_pull_request_branch's is the branch pushed *from*)
///   stays in `expected_state` only.
///
/// A top-level field of the wrong type is an error, as everywhere; inside `metadata` and
/// `expected_state` only strings are read.
fn recorded_refs(v: &Value, metadata: Option<&Value>, output_type: &str) -> Result<Refs, FieldError> {
    let nested = |k: &str| {
        metadata.and_then(|m| str_at(m, k)).or_else(|| v.get("expected_state").and_then(|e| str_at(e, k))).filter(|s| !s.is_empty()).map(str::to_string)
    };
    let field = |names: &[&'static str]| -> Result<Option<String>, FieldError> {
        for &k in names {
            if let Some(s) = opt_str(v, k)?.filter(|s| !s.is_empty()) {
                return Ok(Some(s.to_string()));
            }
            if let Some(s) = nested(k) {
                return Ok(Some(s));
            }
        }
        Ok(None)
    };
    let node_in_target = v.get("target").filter(|t| t.is_object()).and_then(|t| str_at(t, "node_id")).filter(|s| !s.is_empty()).map(str::to_string);
    let head_names: &[&'static str] = if output_type == "create_pull_request" { &["head_ref", "branch"] } else { &["head_ref"] };
    Ok(Refs {
        target_node_id: field(&["target_node_id"])?.or(node_in_target),
        patch_hash: field(&["patch_hash"])?,
        base_ref: field(&["base_ref", "base"])?,
        head_ref: field(head_names)?,
    })
}

/// Build a safe output from one record. An error names the field at fault.
pub fn from_record(ctx: &RunContext, v: &Value, index: usize, format: Format, file: &str, line: usize) -> Result<SafeOutput<'static>, FieldError> {
    from_raw(ctx, &v.to_string(), v, index, format, file, line)
}

/// The canonical text of a member's raw value (big integers kept), else of its `Value`.
fn exact(raw: Option<&serde_json::value::RawValue>, v: &Value) -> String {
    raw.and_then(|r| crate::json::canonical_text(r.get()).ok()).unwrap_or_else(|| canonical(v))
}

/// `from_record` of a record whose text is `raw` (`v` is its parse): the payload, before
/// and after states are kept as that text, verbatim, and values copied into the expected
/// state keep their exact numbers.
pub(crate) fn from_raw(ctx: &RunContext, raw: &str, v: &Value, index: usize, format: Format, file: &str, line: usize) -> Result<SafeOutput<'static>, FieldError> {
    let raw = raw.trim();
    let members = crate::json::members(raw).unwrap_or(crate::json::Members(Vec::new()));
    let output_type = record_type(v)?;
    let metadata = v.get("metadata").filter(|m| m.is_object());
    let run_id = record_run_id(ctx, v, &members, format);
    let target = locate_target(ctx, v, &members, metadata)?;
    let created_at = match opt_time(v, "timestamp")? {
        Some(t) => Some(t),
        None => opt_time(v, "created_at")?.or(metadata.and_then(|m| time::at(m, "created_at"))),
    };

    // Execution-time evidence.
    let before = v.get("before_state").or(v.get("before")).filter(|x| !x.is_null());
    let after = v.get("after_state").or(v.get("after")).filter(|x| !x.is_null());
    // The states as written (`before` only when `before_state` is absent, as above).
    let verbatim = |a: &str, b: &str| members.get(a).or(members.get(b)).filter(|x| x.get() != "null").map(|x| x.get().to_string());
    let (before_text, after_text) = (verbatim("before_state", "before"), verbatim("after_state", "after"));
    let expected_state = expected_state(v, &members, metadata, &output_type, target.comment_id, (before, after));

    let target_kind = target.kind.or_else(|| super::output_type::default_target_kind(&output_type).map(str::to_string));
    let staged = ctx.staged || v.get("staged").and_then(Value::as_bool).unwrap_or(false);
    let execution = execution_of(v, format, &output_type, staged);
    // The hash is of canonical JSON (keys sorted), the payload the record's own text.
    let payload_hash = match (format, str_at(v, "payload_hash")) {
        (Format::Normalized, Some(h)) => h.to_string(),
        _ => sha256_hex(crate::json::canonical_text(raw).unwrap_or_else(|_| canonical(v)).as_bytes()),
    };
    let payload = raw.to_string();
    let actor = opt_str(v, "actor")?.map(str::to_string);
    let refs = recorded_refs(v, metadata, &output_type)?;
    Ok(SafeOutput {
        safe_output_id: format!("{run_id}:{index}").into(),
        run_id: run_id.into(),
        item_index: index as i64,
        workflow_name: opt_str(v, "workflow_name")?.map(str::to_string).or(ctx.workflow_name.clone()).map(Cow::Owned),
        output_type: output_type.into(),
        execution,
        target_repo: target.repo.map(Cow::Owned),
        target_kind: target_kind.map(Cow::Owned),
        target_number: target.number,
        target_comment_id: target.comment_id,
        target_url: target.url.map(Cow::Owned),
        target_node_id: refs.target_node_id.map(Cow::Owned),
        target_source: target.source.map(|s| Cow::Owned(s.to_string())),
        temporary_id: target.temporary_id.map(Cow::Owned),
        actor: actor.map(Cow::Owned),
        run_actor: ctx.actor.clone().map(Cow::Owned),
        created_at,
        payload_hash: payload_hash.into(),
        patch_hash: refs.patch_hash.map(Cow::Owned),
        base_ref: refs.base_ref.map(Cow::Owned),
        head_ref: refs.head_ref.map(Cow::Owned),
        payload: payload.into(),
        expected_state: expected_state.into(),
        before_state: before_text.or(before.map(canonical)).map(Cow::Owned),
        after_state: after_text.or(after.map(canonical)).map(Cow::Owned),
        staged,
        source_format: format.as_str().to_string().into(),
        source_file: file.to_string().into(),
        source_line: line as i64,
    })
}

/// The record's output type (trimmed); a record without one cannot be evaluated.
fn record_type(v: &Value) -> Result<String, FieldError> {
    match v.get("type") {
        Some(Value::String(s)) if !s.trim().is_empty() => Ok(s.trim().to_string()),
        Some(Value::String(_)) => Err(("type", "empty".into())),
        Some(x) => Err(wrong("type", "a string", x)),
        None => Err(("type", "missing: a safe output without a type cannot be evaluated".into())),
    }
}

/// The run a record belongs to: a normalized record may name its own, else the run read.
fn record_run_id(ctx: &RunContext, v: &Value, members: &crate::json::Members, format: Format) -> String {
    match format {
        Format::Normalized => match v.get("run_id") {
            Some(Value::String(s)) if !s.is_empty() => s.clone(),
            Some(Value::Number(n)) => members.get("run_id").map(|r| r.get().to_string()).unwrap_or_else(|| n.to_string()),
            _ => ctx.run_id.clone(),
        },
        _ => ctx.run_id.clone(),
    }
}

/// The object an output acted on, as far as the record names it.
#[derive(Default)]
struct Target {
    repo: Option<String>,
    number: Option<i64>,
    /// How the number was found (`SafeOutput::target_source`).
    source: Option<&'static str>,
    url: Option<String>,
    kind: Option<String>,
    comment_id: Option<i64>,
    temporary_id: Option<String>,
}

/// Find the target, in order of precedence: explicit number, `target`, URL, temporary id,
/// the request's item number, the metadata; the repository falls back to the run's.
fn locate_target(ctx: &RunContext, v: &Value, members: &crate::json::Members, metadata: Option<&Value>) -> Result<Target, FieldError> {
    let mut t = Target { repo: opt_str(v, "repo")?.map(str::to_string), ..Target::default() };
    t.number = opt_int(v, "number")?;
    t.source = t.number.map(|_| "number");
    if t.number.is_none() {
        t.number = opt_int(v, "target_number")?;
        t.source = t.source.or(t.number.map(|_| "number"));
    }
    t.url = opt_str(v, "url")?.or(opt_str(v, "target_url")?).map(str::to_string);
    t.comment_id = opt_int(v, "comment_id")?;
    target_field(&mut t, v, members)?;
    target_from_url(&mut t)?;
    target_from_request(&mut t, v, ctx)?;
    if let Some(m) = metadata {
        target_from_metadata(&mut t, m)?;
    }
    if let Some(r) = &t.repo {
        if let Some(why) = crate::snapshot::paths::repository_problem(r) {
            return Err(("repo", why));
        }
    }
    if let (None, Some(why)) = (&t.repo, ctx.repository.as_deref().and_then(crate::snapshot::paths::repository_problem)) {
        return Err(("repo", format!("no repo of its own, and the run's repository (aw_info.json): {why}")));
    }
    t.repo = t.repo.or(ctx.repository.clone());
    // GitHub numbers issues and PRs from 1: a smaller number names nothing that could be
    // judged (it would be looked up, and answer as if the target were gone).
    if let Some(n) = t.number.filter(|n| *n < 1) {
        return Err((t.source.unwrap_or("number"), format!("target number {n}: an issue or pull request number is 1 or more")));
    }
    Ok(t)
}

/// Read the record's `target`: an object (gh-aw's), a URL, `owner/repo#N`, or a number.
fn target_field(t: &mut Target, v: &Value, members: &crate::json::Members) -> Result<(), FieldError> {
    match v.get("target") {
        Some(Value::Object(_)) => {
            let o = &v["target"];
            if t.number.is_none() {
                t.number = match o.get("number") {
                    None | Some(Value::Null) => None,
                    Some(x) => Some(as_int(x).ok_or_else(|| wrong("target", "an integer that fits 64 bits", x))?),
                };
                t.source = t.number.map(|_| "target");
            }
            // `repository` in newer gh-aw manifests (safe_output_manifest.cjs's provider-neutral target).
            t.repo = t.repo.take().or(str_at(o, "repo").or(str_at(o, "repository")).map(str::to_string));
            t.url = t.url.take().or(str_at(o, "url").map(str::to_string));
            t.kind = str_at(o, "kind").or(str_at(o, "type")).map(str::to_string);
        }
        Some(Value::String(s)) => {
            if s.starts_with("http") {
                t.url = t.url.take().or(Some(s.clone()));
            } else if let Some((repo, n)) = s.split_once('#') {
                t.repo = t.repo.take().or(Some(repo.to_string()));
                if t.number.is_none() {
                    if digits_overflow(n) {
                        return Err(too_big("target", s));
                    }
                    t.number = n.parse().ok();
                    t.source = t.number.map(|_| "target");
                }
            } else if digits_overflow(s) && t.number.is_none() {
                return Err(too_big("target", s));
            } else if t.number.is_none() {
                t.number = s.parse().ok();
                t.source = t.number.map(|_| "target");
            }
        }
        Some(Value::Number(n)) if t.number.is_none() => {
            let exact = members.get("target").map(|r| r.get().to_string()).unwrap_or_else(|| n.to_string());
            t.number = Some(n.as_i64().ok_or_else(|| too_big("target", &exact))?);
            t.source = t.number.map(|_| "target");
        }
        _ => {}
    }
    Ok(())
}

/// Fill what the target's URL says (repository, kind, number, comment) and the record did not.
fn target_from_url(t: &mut Target) -> Result<(), FieldError> {
    if let Some(u) = &t.url {
        let p = parse_url(u);
        if p.overflow {
            return Err(too_big("url", u));
        }
        if t.number.is_none() && p.number.is_some() {
            t.number = p.number;
            t.source = Some("url");
        }
        t.repo = t.repo.take().or(p.repo);
        t.kind = t.kind.take().or(p.kind.map(str::to_string));
        // The URL is the created object's own; a top-level comment_id may name the comment
        // a reply answered.
        t.comment_id = p.comment_id.or(t.comment_id);
    }
    Ok(())
}

/// Without a number yet: the temporary id the run resolved, else what the request named as
/// its target (item_number may itself be a temporary id).
fn target_from_request(t: &mut Target, v: &Value, ctx: &RunContext) -> Result<(), FieldError> {
    t.temporary_id = opt_str(v, "temporaryId")?.or(opt_str(v, "temporary_id")?).map(str::to_string);
    if t.number.is_none() {
        if let Some(tt) = t.temporary_id.as_ref().and_then(|id| ctx.temp_ids.get(id)) {
            t.number = tt.number;
            t.source = Some("temporary_id");
            t.repo = t.repo.take().or(tt.repo.clone());
        }
    }
    if t.number.is_none() {
        for f in ["item_number", "issue_number", "pull_request_number", "pr_number", "discussion_number"] {
            if let Some((n, repo, how)) = number_or_temp(v, f, ctx)? {
                t.number = Some(n);
                t.source = Some(if how == "number" { "request" } else { how });
                t.repo = t.repo.take().or(repo);
                break;
            }
        }
    }
    Ok(())
}

/// gh-aw's persisted `metadata`: the comment id and, as a last resort, the target number;
/// a number there too big for 64 bits is an error.
fn target_from_metadata(t: &mut Target, m: &Value) -> Result<(), FieldError> {
    if t.comment_id.is_none() {
        t.comment_id = int_at(m, "comment_id");
    }
    for f in ["comment_id", "number", "issue_number", "pull_request_number"] {
        if let Some(x) = m.get(f).filter(|x| !x.is_null()) {
            if as_int(x).is_none() && matches!(x, Value::Number(_)) || x.as_str().is_some_and(digits_overflow) {
                return Err(too_big("metadata", &x.to_string()));
            }
        }
    }
    if t.number.is_none() {
        for f in ["number", "issue_number", "pull_request_number"] {
            if let Some(n) = int_at(m, f) {
                t.number = Some(n);
                t.source = Some("metadata");
                break;
            }
        }
    }
    Ok(())
}

/// The execution-time evidence an evaluator compares with later state, as canonical JSON:
/// the record's own `expected_state`, labels added, commit SHAs, the metadata, branch,
/// comment and fallback. Values copied from the record keep their text (canonical, exact
/// numbers); derived ones are canonical JSON of what was derived.
fn expected_state(v: &Value, members: &crate::json::Members, metadata: Option<&Value>, output_type: &str, comment_id: Option<i64>, (before, after): (Option<&Value>, Option<&Value>)) -> String {
    let mut copied: BTreeMap<String, String> = BTreeMap::new();
    let mut expected = Map::new();
    if let Some(Value::Object(e)) = v.get("expected_state") {
        expected.extend(e.clone());
        let em = members.get("expected_state").and_then(|m| crate::json::members(m.get()));
        for (k, val) in e {
            copied.insert(k.clone(), exact(em.as_ref().and_then(|m| m.get(k)), val));
        }
    }
    if !expected.contains_key("labels_added") {
        if let Some((l, src)) = labels_added(v, metadata, output_type, before, after) {
            expected.insert("labels_added".into(), json!(l));
            expected.insert("labels_added_source".into(), json!(src));
        }
    }
    if !expected.contains_key("commit_shas") {
        let shas = commit_shas(v, metadata);
        if !shas.is_empty() {
            expected.insert("commit_shas".into(), json!(shas));
        }
    }
    if let Some(m) = metadata.and_then(Value::as_object) {
        let meta_members = members.get("metadata").and_then(|m| crate::json::members(m.get()));
        for (k, val) in m {
            let key = format!("metadata.{k}");
            if !expected.contains_key(&key) {
                copied.insert(key.clone(), exact(meta_members.as_ref().and_then(|mm| mm.get(k)), val));
                expected.insert(key, val.clone());
            }
        }
    }
    if let Some(b) = v.get("branch").and_then(Value::as_str) {
        expected.entry("branch").or_insert(json!(b));
    }
    if let Some(c) = comment_id {
        expected.entry("comment_id").or_insert(json!(c));
    }
    let fallback = v.get("fallback").or(metadata.and_then(|m| m.get("fallback"))).and_then(Value::as_str);
    if let Some(f) = fallback {
        expected.entry("fallback").or_insert(json!(f));
    }
    let mut expected_state = String::from("{");
    for (i, (k, val)) in expected.iter().enumerate() {
        if i > 0 {
            expected_state.push(',');
        }
        expected_state.push_str(&canonical(&Value::String(k.clone())));
        expected_state.push(':');
        match copied.get(k) {
            Some(text) => expected_state.push_str(text),
            None => expected_state.push_str(&canonical(val)),
        }
    }
    expected_state.push('}');
    expected_state
}

/// The labels the output added and where that was read: listed as added, the after state's
/// labels the before state lacks, or an add_labels request's `labels`.
fn labels_added(v: &Value, metadata: Option<&Value>, output_type: &str, before: Option<&Value>, after: Option<&Value>) -> Option<(Vec<String>, &'static str)> {
    v.get("labelsAdded")
        .or(v.get("labels_added"))
        .or(metadata.and_then(|m| m.get("labels_added")))
        .and_then(names)
        .map(|l| (l, "labelsAdded"))
        .or_else(|| {
            let a = labels_of(after)?;
            let b = labels_of(before).unwrap_or_default();
            Some((a.into_iter().filter(|l| !b.contains(l)).collect(), "after_state"))
        })
        .or_else(|| (output_type == "add_labels").then(|| v.get("labels").and_then(names)).flatten().map(|l| (l, "labels")))
}

/// The commit SHAs the record (then its metadata) names, one or many, adjacent repeats once.
fn commit_shas(v: &Value, metadata: Option<&Value>) -> Vec<String> {
    let mut shas: Vec<String> = Vec::new();
    for src in [Some(v), metadata] {
        let Some(src) = src else { continue };
        for f in ["commit_sha", "head_sha", "commit"] {
            if let Some(s) = str_at(src, f) {
                shas.push(s.to_string());
            }
        }
        for f in ["commit_shas", "commits"] {
            if let Some(a) = src.get(f).and_then(Value::as_array) {
                shas.extend(a.iter().filter_map(|c| c.as_str().or_else(|| str_at(c, "sha")).map(str::to_string)));
            }
        }
    }
    shas.dedup();
    shas
}

/// Whether the output was carried out, by the record's format, type, staging and status.
fn execution_of(v: &Value, format: Format, output_type: &str, staged: bool) -> Execution {
    match format {
        Format::Request => Execution::NotExecuted,
        _ if super::output_type::is_system(output_type) => Execution::RequestedOnly,
        _ if staged => Execution::Staged,
        _ => match str_at(v, "status").or(str_at(v, "result")) {
            Some("error" | "failed" | "failure" | "skipped") => Execution::NotExecuted,
            _ if v.get("error").is_some_and(|e| !e.is_null()) => Execution::NotExecuted,
            _ => Execution::Executed,
        },
    }
}
