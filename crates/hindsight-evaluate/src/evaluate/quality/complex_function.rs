//! `complex_function` (complexity).
//!
//! **What it checks.** Each function whose lines the PR adds to or changes (its span on the
//! new side overlaps an added line), parsed with tree-sitter (Rust, Python, JavaScript,
//! TypeScript, Go, Java; the language from the extension):
//!
//! - cyclomatic complexity, 1 + the decision points: `if` and `else if`, loops with a
//!   condition (`for`, `while`, `do`), each `case`/match arm but the default one, `catch`
//!   or `except`, the ternary, and the short-circuit operators `&&`, `||` (`??`; Python's
//!   `and`, `or`). Above `complexity_threshold` (default 10) a `warning`, above twice it an
//!   `error`;
//! - cognitive complexity (SonarSource's: each break in flow, weighted by how deep it is
//!   nested; [`cognitive`]): above `cognitive_threshold` (default 15, SonarSource's) a
//!   `warning`;
//! - the deepest nesting of control flow (`if`, loops, `switch`/`match`, `try`, `with`; an
//!   `else if` is as deep as its `if`): above `nesting_threshold` (default 4) a `warning`.
//!
//! A nested function (a closure in JavaScript's sense, a Go function literal, a method of a
//! nested class) is measured on its own, not in its parent's count.
//!
//! **Why.** A function with many paths needs as many tests to be covered, and deep nesting
//! is where reviewers lose track; an agent's patch that grows a function past the threshold
//! is the moment to split it.
//!
//! **Limits.** Only the hunk's new side is parsed: a function longer than its hunk is
//! measured on the part the patch shows (or not seen, when its start is outside), so the
//! figure is a lower bound and a finding is never an overstatement.
//!
//! **Example.** A TypeScript `processTask` with 12 `if`s, 3 `&&` and 2 `catch`es has
//! complexity 18: "Function `processTask` has cyclomatic complexity 18 (threshold: 10)",
//! a `warning` (an `error` above 20).

use super::policy::Effective;
use super::syntax::{Language, Parsed};
use super::{File, Found, Rule, Severity};

/// A language's node kinds the measures count.
struct Kinds {
    functions: &'static [&'static str],
    decisions: &'static [&'static str],
    nesting: &'static [&'static str],
}

const JS: Kinds = Kinds {
    functions: &["function_declaration", "function_expression", "arrow_function", "method_definition", "generator_function_declaration", "generator_function"],
    decisions: &["if_statement", "for_statement", "for_in_statement", "while_statement", "do_statement", "switch_case", "catch_clause", "ternary_expression"],
    nesting: &["if_statement", "for_statement", "for_in_statement", "while_statement", "do_statement", "switch_statement", "try_statement"],
};

fn kinds(language: Language) -> &'static Kinds {
    match language {
        Language::Rust => &Kinds {
            functions: &["function_item"],
            decisions: &["if_expression", "while_expression", "for_expression", "match_arm"],
            nesting: &["if_expression", "while_expression", "loop_expression", "for_expression", "match_expression"],
        },
        Language::Python => &Kinds {
            functions: &["function_definition"],
            decisions: &["if_statement", "elif_clause", "for_statement", "while_statement", "except_clause", "conditional_expression", "boolean_operator", "case_clause"],
            nesting: &["if_statement", "for_statement", "while_statement", "try_statement", "with_statement", "match_statement"],
        },
        Language::JavaScript | Language::TypeScript | Language::Tsx => &JS,
        Language::Go => &Kinds {
            functions: &["function_declaration", "method_declaration", "func_literal"],
            decisions: &["if_statement", "for_statement", "expression_case", "type_case", "communication_case"],
            nesting: &["if_statement", "for_statement", "expression_switch_statement", "type_switch_statement", "select_statement"],
        },
        Language::Java => &Kinds {
            functions: &["method_declaration", "constructor_declaration"],
            decisions: &["if_statement", "for_statement", "enhanced_for_statement", "while_statement", "do_statement", "switch_label", "catch_clause", "ternary_expression"],
            nesting: &["if_statement", "for_statement", "enhanced_for_statement", "while_statement", "do_statement", "switch_expression", "try_statement"],
        },
    }
}

/// Whether `node` is a decision point: a kind of `kinds.decisions` (a match arm or case
/// label that is not the default), or a short-circuit operator.
fn is_decision(node: tree_sitter::Node<'_>, kinds: &Kinds, parsed: &Parsed) -> bool {
    match node.kind() {
        "binary_expression" => node.child_by_field_name("operator").is_some_and(|o| matches!(o.kind(), "&&" | "||" | "??")),
        "match_arm" => node.child_by_field_name("pattern").is_none_or(|p| parsed.text_of(p).trim() != "_"),
        "switch_label" => !parsed.text_of(node).trim_start().starts_with("default"),
        k => kinds.decisions.contains(&k),
    }
}

/// Whether `node` (an `if`) is the `else if` of an `if` before it: no deeper than that one.
fn is_else_if(node: tree_sitter::Node<'_>) -> bool {
    let Some(parent) = node.parent() else { return false };
    parent.kind() == "else_clause" || (parent.kind() == node.kind() && parent.child_by_field_name("alternative").is_some_and(|a| a.id() == node.id()))
}

/// A function's cyclomatic complexity and deepest nesting: its subtree walked with a stack
/// (no recursion), nested functions left to be measured on their own.
fn measure(function: tree_sitter::Node<'_>, kinds: &Kinds, parsed: &Parsed) -> (i64, i64) {
    let (mut complexity, mut deepest) = (1i64, 0i64);
    let mut stack = vec![(function, 0i64)];
    let mut cursor = function.walk();
    while let Some((node, depth)) = stack.pop() {
        if node.id() != function.id() && kinds.functions.contains(&node.kind()) {
            continue;
        }
        complexity += i64::from(is_decision(node, kinds, parsed));
        let depth = if kinds.nesting.contains(&node.kind()) && !is_else_if(node) { depth + 1 } else { depth };
        deepest = deepest.max(depth);
        stack.extend(node.children(&mut cursor).map(|c| (c, depth)));
    }
    (complexity, deepest)
}

/// Whether `node` is a flow break cognitive complexity counts with its nesting: a structure
/// of `kinds.nesting` (not an `else if`, which counts flat), a `catch`/`except`, a ternary.
fn nests_and_counts(node: tree_sitter::Node<'_>, kinds: &Kinds) -> bool {
    let k = node.kind();
    (kinds.nesting.contains(&k) && !is_else_if(node) && !matches!(k, "try_statement" | "with_statement"))
        || matches!(k, "catch_clause" | "except_clause" | "ternary_expression" | "conditional_expression")
}

/// Whether `node` counts one flat: an `else` or `else if` (Python's `elif`), or the first of
/// a sequence of like short-circuit operators (`a && b && c` is one; `a && b || c` two).
fn counts_flat(node: tree_sitter::Node<'_>) -> bool {
    fn operator(n: tree_sitter::Node<'_>) -> Option<String> {
        match n.kind() {
            "binary_expression" => n.child_by_field_name("operator").map(|o| o.kind().to_string()).filter(|o| matches!(o.as_str(), "&&" | "||" | "??")),
            "boolean_operator" => n.child_by_field_name("operator").map(|o| o.kind().to_string()),
            _ => None,
        }
    }
    if let Some(op) = operator(node) {
        return node.parent().and_then(operator) != Some(op);
    }
    match node.kind() {
        "else_clause" | "elif_clause" => true,
        // Go and Java write a plain `else` as the `if`'s alternative block.
        "if_statement" | "if_expression" => {
            let plain_else = node.child_by_field_name("alternative").is_some_and(|a| a.kind() == "block");
            plain_else || (is_else_if(node) && node.parent().is_none_or(|p| p.kind() != "else_clause"))
        }
        _ => false,
    }
}

/// A function's cognitive complexity (G. Ann Campbell, "Cognitive Complexity", SonarSource,
/// 2017): each break in linear flow adds 1 (`if`, `else if`, `else`, loops, `switch` or
/// `match`, `catch`, the ternary, each sequence of like logical operators), and the
/// structures that nest (all of those but `else`, `else if` and the operators) add their
/// nesting level too; nesting grows inside them and inside nested functions.
fn cognitive(function: tree_sitter::Node<'_>, kinds: &Kinds) -> i64 {
    let mut total = 0i64;
    let mut stack = vec![(function, 0i64)];
    let mut cursor = function.walk();
    while let Some((node, nesting)) = stack.pop() {
        let nested_function = node.id() != function.id() && kinds.functions.contains(&node.kind());
        let mut inner = nesting;
        if nests_and_counts(node, kinds) {
            total += 1 + nesting;
            inner += 1;
        } else if counts_flat(node) {
            total += 1;
        } else if nested_function {
            inner += 1;
        }
        stack.extend(node.children(&mut cursor).map(|c| (c, inner)));
    }
    total
}

/// The name a function is known by: its own, else the variable or key it is assigned to.
pub(crate) fn function_name(node: tree_sitter::Node<'_>, parsed: &Parsed) -> String {
    let named = node.child_by_field_name("name").or_else(|| {
        let parent = node.parent()?;
        match parent.kind() {
            "variable_declarator" | "pair" | "assignment_expression" | "public_field_definition" => {
                parent.child_by_field_name("name").or_else(|| parent.child_by_field_name("key")).or_else(|| parent.child_by_field_name("left"))
            }
            _ => None,
        }
    });
    named.map(|n| parsed.text_of(n).to_string()).unwrap_or_else(|| "(anonymous)".to_string())
}

pub(crate) fn check(file: &File<'_>, language: Language, parsed: &[Parsed], policy: &Effective<'_>, out: &mut Vec<Found>) {
    let kinds = kinds(language);
    for p in parsed {
        super::syntax::walk(p.tree.root_node(), |node| {
            if !kinds.functions.contains(&node.kind()) || !p.touches_added(node.start_position().row, node.end_position().row) {
                return;
            }
            let (complexity, depth) = measure(node, kinds, p);
            let cognitive = cognitive(node, kinds);
            let name = function_name(node, p);
            let line = p.line(node.start_position().row);
            let threshold = policy.complexity_threshold;
            let mut found = |severity: Severity, message: String, suggestion: String| {
                out.push(Found { rule: Rule::ComplexFunction, severity, file: file.path.to_string(), line, message, suggestion });
            };
            if complexity > threshold {
                found(
                    if complexity > 2 * threshold { Severity::Error } else { Severity::Warning },
                    format!("Function `{name}` has cyclomatic complexity {complexity} (threshold: {threshold})"),
                    format!("Split `{name}` into smaller functions (a function per branch group or loop body), or replace chains of conditions with early returns or a lookup table."),
                );
            }
            if cognitive > policy.cognitive_threshold {
                found(
                    Severity::Warning,
                    format!("Function `{name}` has cognitive complexity {cognitive} (threshold: {})", policy.cognitive_threshold),
                    format!("Make `{name}` read straight down: return early instead of nesting, and name the inner steps as functions."),
                );
            }
            if depth > policy.nesting_threshold {
                found(
                    Severity::Warning,
                    format!("Function `{name}` nests control flow {depth} deep (threshold: {})", policy.nesting_threshold),
                    format!("Flatten `{name}`: return early (guard clauses) and move the innermost blocks into functions of their own."),
                );
            }
        });
    }
}
