//! Every rule against its fixture cases (`fixtures/rules/<type>.json`), and a check that
//! every row of every rule table is exercised by at least one case.

use std::collections::BTreeSet;

use hindsight::evaluate::rules::system::SystemRow;
use hindsight::evaluate::{rules, Common, RowId, Status, Window};
use serde_json::Value;

use crate::support::{evaluate_case, fixture, spec, spec_citations, spec_ids};

/// Rules that share another rule's rows and code run that rule's cases with their type.
const ALIASES: &[(&str, &str)] = &[("call_workflow", "dispatch_workflow"), ("dispatch_repository", "dispatch_workflow")];

fn cases(file: &str) -> Vec<Value> {
    if let Some((ty, base)) = ALIASES.iter().find(|(t, _)| *t == file) {
        return cases(base)
            .into_iter()
            .map(|mut c| {
                c["item"]["type"] = Value::from(*ty);
                for e in c["expect"].as_array_mut().into_iter().flatten() {
                    if let Some(r) = e.get("rule").and_then(Value::as_str) {
                        e["rule"] = Value::from(r.replacen(base, ty, 1));
                    }
                }
                c
            })
            .collect();
    }
    let p = fixture(&format!("rules/{file}.json"));
    let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    serde_json::from_str::<Vec<Value>>(&text).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// Run the cases of one file; return the rule ids they cover.
fn check(file: &str) -> BTreeSet<String> {
    let mut covered = BTreeSet::new();
    let mut failures = Vec::new();
    for case in cases(file) {
        let name = case["name"].as_str().unwrap_or("?").to_string();
        let expects = case["expect"].as_array().expect("expect");
        let windows: Vec<Window> = expects.iter().map(|e| e["window"].as_str().unwrap().parse().unwrap()).collect();
        let outcomes = evaluate_case(&case, &windows);
        for (e, o) in expects.iter().zip(&outcomes) {
            let v = &o.verdict;
            let got = (v.status.as_str(), v.strength.as_str(), v.signal);
            let want = (e["status"].as_str().unwrap(), e["strength"].as_str().unwrap(), e["signal"].as_str().unwrap());
            if got != want {
                failures.push(format!("{file}: {name} [{}]: got {got:?}, want {want:?} (rule {}, notes {:?})", o.window, v.rule_id, v.notes));
            }
            if let Some(rule) = e.get("rule").and_then(Value::as_str) {
                if v.rule_id != rule {
                    failures.push(format!("{file}: {name} [{}]: decided by {}, want {rule}", o.window, v.rule_id));
                }
            }
            for (k, want) in e.get("details").and_then(Value::as_object).into_iter().flatten() {
                if v.details.get(k.as_str()) != Some(want) {
                    failures.push(format!("{file}: {name} [{}]: details.{k} = {:?}, want {want}", o.window, v.details.get(k.as_str())));
                }
            }
            if let Some(score) = e.get("partial_score").and_then(Value::as_f64) {
                if v.partial_score != Some(score) {
                    failures.push(format!("{file}: {name} [{}]: partial_score {:?}, want {score}", o.window, v.partial_score));
                }
            }
            if let Some(h) = e.get("time_to_outcome_hours").and_then(Value::as_f64) {
                let got = match (o.output.created_at, v.decided_at) {
                    (Some(a), Some(b)) => Some(hindsight::time::hours_between(&a, &b)),
                    _ => None,
                };
                if got != Some(h) {
                    failures.push(format!("{file}: {name} [{}]: time to outcome {got:?}, want {h}", o.window));
                }
            }
            // [SPEC-EXISTS]: existence alone is never acceptance.
            if v.signal == "target_exists_only" {
                assert_ne!(v.status, Status::Accepted, "{name}: target_exists_only counted as accepted");
            }
            covered.insert(v.rule_id.to_string());
        }
    }
    assert!(failures.is_empty(), "{} case(s) differ:\n{}", failures.len(), failures.join("\n"));
    covered
}

fn assert_rows_covered(ty: &str, rows: &[hindsight::evaluate::RowSpec], covered: &BTreeSet<String>) {
    let missing: Vec<String> =
        rows.iter().map(|r| format!("{ty}/{}", r.id)).filter(|id| !covered.iter().any(|c| c == id || c.ends_with(&format!(">{id}")))).collect();
    assert!(missing.is_empty(), "rows without a fixture case: {missing:?}");
}

fn rule_file(ty: &str) {
    let covered = check(ty);
    let rule = rules::find(ty).unwrap_or_else(|| panic!("no rule {ty}"));
    assert_rows_covered(ty, rule.rows(), &covered);
}

/// The fixture file of a rule: its own, an alias's, or `not_observable.json`.
fn file_of(ty: &str) -> String {
    if fixture(&format!("rules/{ty}.json")).is_file() || ALIASES.iter().any(|(t, _)| *t == ty) {
        ty.to_string()
    } else {
        "not_observable".to_string()
    }
}

/// Every rule's rows are covered by the cases of its file.
#[test]
fn every_rule_row_has_a_case() {
    let mut covered = BTreeSet::new();
    let mut files: Vec<String> = rules::all().iter().map(|r| file_of(r.output_type().name())).collect();
    files.sort();
    files.dedup();
    for f in &files {
        covered.extend(check(f));
    }
    for r in rules::all() {
        assert_rows_covered(r.output_type().name(), r.rows(), &covered);
    }
}

/// The types docs/SPEC.md gives a table ([SPEC-ISSUES] to [SPEC-ASSIGNMENT]) and the system
/// outputs it names ([SPEC-SYSTEM]); each has a dedicated rule in the catalogue.
#[test]
fn every_specified_type_has_a_dedicated_rule() {
    const SPECIFIED_TYPES: &[&str] = &[
        "create_issue",
        "update_issue",
        "close_issue",
        "link_sub_issue",
        "create_discussion",
        "update_discussion",
        "close_discussion",
        "create_pull_request",
        "update_pull_request",
        "close_pull_request",
        "create_pull_request_review_comment",
        "submit_pull_request_review",
        "reply_to_pull_request_review_comment",
        "resolve_pull_request_review_thread",
        "push_to_pull_request_branch",
        "mark_pull_request_as_ready_for_review",
        "add_reviewer",
        "assign_to_agent",
        "add_labels",
        "assign_milestone",
        "update_project",
        "set_issue_type",
        "set_issue_field",
        "dispatch_workflow",
        "autofix_code_scanning_alert",
        "create_code_scanning_alert",
        "update_release",
        "hide_comment",
        "assign_to_user",
        "unassign_from_user",
        "noop",
        "missing_tool",
    ];
    // The same types as the specification's own headings (one per type with a table) and
    // its system outputs.
    let spec = spec();
    let mut headed: Vec<&str> = spec.lines().filter_map(|l| l.strip_prefix("### `")?.strip_suffix('`')).collect();
    headed.extend(["noop", "missing_tool"]);
    assert_eq!(headed, SPECIFIED_TYPES, "docs/SPEC.md's types and this list differ");
    let catalogue = hindsight::evaluate::catalogue::render(false);
    for ty in SPECIFIED_TYPES {
        let dedicated = rules::find(ty).is_some() || SystemRow::ROWS.iter().any(|r| r.id == *ty);
        assert!(dedicated, "specified type `{ty}` has no dedicated rule");
        assert!(catalogue.contains(&format!("`{ty}/")) || catalogue.contains(&format!("`system/{ty}`")), "`{ty}` is not in the catalogue");
    }
}

/// Each rule row's *specification's row* (docs/RULES.md) is found in docs/SPEC.md: the
/// row's words, without the table it was borrowed from (`(add_labels) ...`) or a trailing
/// note (`... (actor not visible)`); a section it names (`SPEC-EXISTS: ...`) exists.
#[test]
fn specification_rows_are_in_the_specification() {
    let spec = spec();
    let ids = spec_ids();
    let rows: Vec<Value> = serde_json::from_str(&hindsight::evaluate::catalogue::render(true)).unwrap();
    let mut missing = Vec::new();
    for r in &rows {
        let cited = r["specification_row"].as_str().unwrap_or_default();
        for id in spec_citations(cited) {
            if !ids.contains(id) {
                missing.push(format!("{}: no section {id}", r["rule_id"]));
            }
        }
        if cited.is_empty() || cited.starts_with("SPEC-") {
            continue;
        }
        let mut words = cited;
        if words.starts_with('(') {
            words = words.split_once(") ").map_or(words, |(_, w)| w);
        }
        if words.ends_with(')') {
            words = words.rsplit_once(" (").map_or(words, |(w, _)| w);
        }
        if !spec.contains(words) {
            missing.push(format!("{}: `{words}`", r["rule_id"]));
        }
    }
    assert!(missing.is_empty(), "specification rows not in docs/SPEC.md:\n{}", missing.join("\n"));
}

#[test]
fn create_pull_request() {
    rule_file("create_pull_request");
}

#[test]
fn push_to_pull_request_branch() {
    rule_file("push_to_pull_request_branch");
}

#[test]
fn create_issue() {
    rule_file("create_issue");
}

#[test]
fn add_comment() {
    rule_file("add_comment");
}

#[test]
fn add_labels() {
    rule_file("add_labels");
}

#[test]
fn submit_pull_request_review() {
    rule_file("submit_pull_request_review");
}

#[test]
fn set_issue_type() {
    rule_file("set_issue_type");
}

#[test]
fn resolve_pull_request_review_thread() {
    rule_file("resolve_pull_request_review_thread");
}

#[test]
fn create_discussion() {
    rule_file("create_discussion");
}

#[test]
fn not_observable() {
    let covered = check("not_observable");
    for r in rules::all().iter().filter(|r| r.skips()) {
        assert_rows_covered(r.output_type().name(), r.rows(), &covered);
    }
}

/// gh-aw's safe-output tools as of its newest list (`actions/setup/js/safe_outputs_tools.json`
/// in github/gh-aw at 03b5d9af33e53e86c093d89db72905023a5246a3, 60 tools): each has a rule
/// or is a system output, and none is judged as a type without a rule; the ones writing
/// outside GitHub (Linear, Jira, Azure DevOps), `upload_code_coverage` and
/// `approve_workflow_run` are `unknown`/`not_observable_on_github`.
#[test]
fn every_gh_aw_type_is_recognised() {
    const GH_AW_TYPES: &[&str] = &[
        "linear_create_issue",
        "linear_add_comment",
        "linear_update_issue",
        "create_issue",
        "jira_create_issue",
        "jira_update_issue",
        "jira_add_comment",
        "jira_add_label",
        "create_agent_session",
        "create_discussion",
        "update_discussion",
        "close_discussion",
        "close_issue",
        "close_pull_request",
        "add_comment",
        "create_pull_request",
        "create_pull_request_review_comment",
        "submit_pull_request_review",
        "reply_to_pull_request_review_comment",
        "dismiss_pull_request_review",
        "resolve_pull_request_review_thread",
        "create_code_scanning_alert",
        "add_labels",
        "remove_labels",
        "replace_label",
        "add_reviewer",
        "assign_milestone",
        "assign_to_agent",
        "assign_to_user",
        "unassign_from_user",
        "update_issue",
        "update_pull_request",
        "merge_pull_request",
        "push_to_pull_request_branch",
        "upload_asset",
        "upload_artifact",
        "upload_code_coverage",
        "update_release",
        "missing_tool",
        "noop",
        "link_sub_issue",
        "hide_comment",
        "set_issue_type",
        "set_issue_field",
        "update_project",
        "missing_data",
        "report_incomplete",
        "create_project",
        "create_project_status_update",
        "autofix_code_scanning_alert",
        "mark_pull_request_as_ready_for_review",
        "approve_workflow_run",
        "push_repo_memory",
        "create_check_run",
        "ado_create_work_item",
        "ado_update_work_item",
        "ado_comment_on_work_item",
        "ado_assign_work_item",
        "ado_link_work_items",
        "ado_upload_workitem_attachment",
    ];
    assert_eq!(GH_AW_TYPES.len(), 60);
    let system: BTreeSet<&str> = hindsight::runs::output_type::system_types().collect();
    for ty in GH_AW_TYPES {
        assert!(rules::find(ty).is_some() || system.contains(ty), "gh-aw type `{ty}` has no rule");
        let case = serde_json::json!({"item": {"type": ty, "number": 1, "timestamp": "2026-01-01T00:00:00Z"}});
        let o = &evaluate_case(&case, &[Window::Snapshot])[0];
        assert_ne!(o.verdict.signal, Common::NoTypeSpecificEvaluator.spec().signal, "{ty}: judged as a type without a rule");
        let off_github = ["linear_", "jira_", "ado_"].iter().any(|p| ty.starts_with(p)) || ["upload_code_coverage", "approve_workflow_run"].contains(ty);
        if off_github {
            assert_eq!((o.verdict.status, o.verdict.signal), (Status::Unknown, "not_observable_on_github"), "{ty}");
        }
    }
}

#[test]
fn system_outputs_and_execution_states() {
    let covered = check("system");
    assert_rows_covered("system", SystemRow::ROWS, &covered);
}

/// Every common row is exercised by some rule file's cases.
#[test]
fn common_rows_are_covered() {
    let mut covered = BTreeSet::new();
    let mut files: Vec<String> = rules::all().iter().map(|r| file_of(r.output_type().name())).collect();
    files.push("system".into());
    files.sort();
    files.dedup();
    for f in &files {
        covered.extend(check(f));
    }
    assert_rows_covered("common", Common::ROWS, &covered);
}

/// One file per safe-output type, named after it; the types with no repository outcome
/// share `not_observable.rs`, and what several rules share lives in `rules/shared/`.
#[test]
fn each_rule_has_its_own_file() {
    for r in rules::all() {
        let ty = r.output_type().name();
        let own = crate::support::root().join("crates/hindsight-evaluate/src/evaluate/rules").join(format!("{ty}.rs"));
        assert!(own.is_file() || r.skips(), "no crates/hindsight-evaluate/src/evaluate/rules/{ty}.rs for `{ty}`");
    }
}

/// Every fixture file on disk belongs to a rule.
#[test]
fn each_fixture_file_has_a_rule() {
    for e in std::fs::read_dir(fixture("rules")).unwrap() {
        let name = e.unwrap().file_name().to_string_lossy().to_string();
        let Some(stem) = name.strip_suffix(".json") else { continue };
        assert!(rules::find(stem).is_some() || ["system", "not_observable"].contains(&stem), "fixtures/rules/{name} names no rule");
    }
}

/// A target that exists but shows no response is never `accepted`, for any type with a
/// rule, in any window.
#[test]
fn existence_alone_is_never_acceptance() {
    for r in rules::all() {
        let ty = r.output_type().name();
        let item = serde_json::json!({
            "type": ty, "number": 1, "timestamp": "2026-01-01T00:00:00Z",
            "url": if ty == "add_comment" { "https://github.com/acme/repo/issues/1#issuecomment-7" } else { "https://github.com/acme/repo/issues/1" },
            "labelsAdded": [], "metadata": {"commit_sha": "abcdef1234567"}
        });
        let case = serde_json::json!({
            "item": item,
            "responses": {
                "issues/1": {"number": 1, "state": "open", "created_at": "2026-01-01T00:00:00Z", "labels": []},
                "pulls/1": {"number": 1, "state": "open", "created_at": "2026-01-01T00:00:00Z"},
                "issues/comments/7": {"id": 7, "created_at": "2026-01-01T00:00:00Z"},
                "issues/1/comments": [], "issues/1/events": [], "pulls/1/reviews": [], "issues/1/labels": []
            }
        });
        for o in evaluate_case(&case, hindsight::evaluate::window::DEFAULT) {
            assert_ne!(o.verdict.status, Status::Accepted, "{ty} [{}]: accepted on existence alone ({})", o.window, o.verdict.rule_id);
        }
    }
}

/// Every fixture case judged in every default window, as one table per fixture file, compared
/// with `tests/it/snapshots/rules/<file>.snap` (ruff's pattern: the whole verdict, notes and
/// details included, not only what a case asserts). After a deliberate change, rewrite them
/// with `HINDSIGHT_BLESS=1 cargo test --test it rule_verdicts` and review the diff.
#[test]
fn rule_verdicts_match_their_snapshots() {
    let dir = crate::support::root().join("tests/it/snapshots/rules");
    let bless = std::env::var_os("HINDSIGHT_BLESS").is_some();
    let mut files: Vec<String> = std::fs::read_dir(fixture("rules"))
        .unwrap()
        .filter_map(|e| e.unwrap().file_name().to_string_lossy().strip_suffix(".json").map(str::to_string))
        .collect();
    files.sort();
    let mut differ = Vec::new();
    for file in &files {
        let got = verdict_table(file);
        let path = dir.join(format!("{file}.snap"));
        if bless {
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(&path, &got).unwrap();
            continue;
        }
        let want = std::fs::read_to_string(&path).unwrap_or_default();
        if got != want {
            let line = got.lines().zip(want.lines()).position(|(a, b)| a != b).unwrap_or(got.lines().count().min(want.lines().count()));
            differ.push(format!("{}: first difference at line {}", path.display(), line + 1));
        }
    }
    assert!(differ.is_empty(), "verdicts differ from their snapshots (HINDSIGHT_BLESS=1 rewrites them):\n{}", differ.join("\n"));
}

fn verdict_table(file: &str) -> String {
    use std::fmt::Write;
    let windows = hindsight::evaluate::window::DEFAULT;
    let mut out = String::new();
    for case in cases(file) {
        let _ = writeln!(out, "## {}", case["name"].as_str().unwrap_or("?"));
        for o in evaluate_case(&case, windows) {
            let v = &o.verdict;
            let _ = writeln!(
                out,
                "{:<8} {}/{}/{} {} confidence={} resolved={} decided_at={} partial={} actors={}/{}",
                o.window.to_string(),
                v.status.as_str(),
                v.strength.as_str(),
                v.signal,
                v.rule_id,
                v.confidence.as_str(),
                v.target_resolved,
                v.decided_at.map(|t| hindsight::time::format(&t)).unwrap_or_default(),
                v.partial_score.map(|s| s.to_string()).unwrap_or_default(),
                v.visible_non_bot_actors,
                v.bot_actors
            );
            for n in &v.notes {
                let _ = writeln!(out, "    note: {n}");
            }
            if !v.details.is_empty() {
                let _ = writeln!(out, "    details: {}", serde_json::to_value(&v.details).unwrap());
            }
        }
        out.push('\n');
    }
    out
}
