//! `naming_convention` (naming).
//!
//! **What it checks.** The names the PR declares on added lines, found in the tree-sitter
//! tree (the name of a declaration node), against the language's own convention:
//!
//! | language | functions, methods | types | variables |
//! |---|---|---|---|
//! | Rust | `snake_case` | `UpperCamelCase` | `snake_case` (`const`, `static`: `SCREAMING_SNAKE_CASE`) |
//! | Python | `snake_case` | `CapWords` | not judged (constants and variables share a syntax) |
//! | Go | `mixedCaps` (no underscores) | `mixedCaps` | `mixedCaps` |
//! | JavaScript, TypeScript | `camelCase` (`PascalCase` too in JSX, for components) | `PascalCase` | `camelCase`, or `PascalCase` or `UPPER_SNAKE` |
//! | Java | `camelCase` | `PascalCase` | `camelCase` (fields: or `UPPER_SNAKE`) |
//!
//! Leading and trailing underscores (`_private`, `__init__`), a name of non-ASCII letters,
//! and Go's test functions (`TestX_y` in `_test.go`) are not judged.
//!
//! **Against the existing code.** Where the names of one kind the patch shows staying in the
//! file (its context lines; two or more of two words or more) all follow one casing other
//! than the language's, that file's convention is the rule: a new name following it is not
//! flagged, one breaking it is ("is not snake_case, the convention of this file's existing
//! functions").
//!
//! **Why.** A name in another language's casing (`get_data` in TypeScript) is the mark of
//! code pasted from elsewhere and reads as foreign beside its neighbours. An `info`: the
//! repository's own convention may differ, which the language's cannot know.
//!
//! **Example.** `function get_data() {}` added in `src/api.ts`: "`get_data` (function) is
//! not camelCase, the TypeScript convention", suggesting `getData`.

use super::syntax::{Language, Parsed};
use super::{File, Found, Rule, Severity};

/// A casing convention.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Case {
    Snake,
    UpperCamel,
    Camel,
    Screaming,
    /// Go: either camel case, no underscores.
    MixedCaps,
}

impl Case {
    fn name(self) -> &'static str {
        match self {
            Case::Snake => "snake_case",
            Case::UpperCamel => "UpperCamelCase",
            Case::Camel => "camelCase",
            Case::Screaming => "SCREAMING_SNAKE_CASE",
            Case::MixedCaps => "mixedCaps",
        }
    }

    fn fits(self, core: &str) -> bool {
        let first = core.chars().next().unwrap_or('a');
        match self {
            Case::Snake => core.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'),
            Case::Screaming => core.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_'),
            Case::UpperCamel => first.is_ascii_uppercase() && !core.contains('_'),
            Case::Camel => first.is_ascii_lowercase() && !core.contains('_'),
            Case::MixedCaps => !core.contains('_'),
        }
    }

    /// `words` written in this case (Go's keeps an exported name exported).
    fn write(self, words: &[String], exported: bool) -> String {
        let cap = |w: &String| w.chars().enumerate().map(|(i, c)| if i == 0 { c.to_ascii_uppercase() } else { c.to_ascii_lowercase() }).collect::<String>();
        match self {
            Case::Snake => words.iter().map(|w| w.to_ascii_lowercase()).collect::<Vec<_>>().join("_"),
            Case::Screaming => words.iter().map(|w| w.to_ascii_uppercase()).collect::<Vec<_>>().join("_"),
            Case::UpperCamel => words.iter().map(cap).collect(),
            Case::MixedCaps if exported => words.iter().map(cap).collect(),
            Case::Camel | Case::MixedCaps => words.iter().enumerate().map(|(i, w)| if i == 0 { w.to_ascii_lowercase() } else { cap(w) }).collect(),
        }
    }
}

/// The words of a name: split at underscores and at case humps (`HTTPServer`: HTTP, Server).
fn words(name: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for part in name.split('_').filter(|p| !p.is_empty()) {
        let chars: Vec<char> = part.chars().collect();
        let mut word = String::new();
        for (i, &c) in chars.iter().enumerate() {
            let prev = i.checked_sub(1).map(|j| chars[j]);
            let next = chars.get(i + 1);
            let hump = c.is_ascii_uppercase()
                && prev.is_some_and(|p| p.is_ascii_lowercase() || p.is_ascii_digit() || (p.is_ascii_uppercase() && next.is_some_and(char::is_ascii_lowercase)));
            if hump && !word.is_empty() {
                out.push(std::mem::take(&mut word));
            }
            word.push(c);
        }
        out.push(word);
    }
    out
}

/// What a declaration names, for the message.
#[derive(Clone, Copy)]
enum What {
    Function,
    Type,
    Variable,
    Constant,
    Field,
}

impl What {
    fn word(self) -> &'static str {
        match self {
            What::Function => "function",
            What::Type => "type",
            What::Variable => "variable",
            What::Constant => "constant",
            What::Field => "field",
        }
    }
}

/// The names `node` declares, what each is, and the cases it may be in.
fn declared<'t>(node: tree_sitter::Node<'t>, language: Language, jsx: bool) -> Vec<(tree_sitter::Node<'t>, What, &'static [Case])> {
    use Case::*;
    let name = node.child_by_field_name("name");
    let one = |what: What, cases: &'static [Case]| name.map(|n| vec![(n, what, cases)]).unwrap_or_default();
    match (language, node.kind()) {
        (Language::Rust, "function_item") => one(What::Function, &[Snake]),
        (Language::Rust, "struct_item" | "enum_item" | "trait_item" | "type_item" | "union_item") => one(What::Type, &[UpperCamel]),
        (Language::Rust, "const_item" | "static_item") => one(What::Constant, &[Screaming]),
        (Language::Rust, "let_declaration") => node.child_by_field_name("pattern").filter(|p| p.kind() == "identifier").map(|p| vec![(p, What::Variable, &[Snake][..])]).unwrap_or_default(),
        (Language::Python, "function_definition") => one(What::Function, &[Snake]),
        (Language::Python, "class_definition") => one(What::Type, &[UpperCamel]),
        (Language::Go, "function_declaration" | "method_declaration") => one(What::Function, &[MixedCaps]),
        (Language::Go, "type_spec") => one(What::Type, &[MixedCaps]),
        (Language::Go, "short_var_declaration") => {
            let left = node.child_by_field_name("left");
            let mut cursor = node.walk();
            left.map(|l| l.named_children(&mut cursor).filter(|c| c.kind() == "identifier").map(|c| (c, What::Variable, &[MixedCaps][..])).collect()).unwrap_or_default()
        }
        (Language::Go, "var_spec" | "const_spec") => {
            let mut cursor = node.walk();
            node.children_by_field_name("name", &mut cursor).map(|c| (c, What::Variable, &[MixedCaps][..])).collect()
        }
        (Language::JavaScript | Language::TypeScript | Language::Tsx, k) => declared_js(node, k, jsx),
        (Language::Java, "method_declaration") => one(What::Function, &[Camel]),
        (Language::Java, "class_declaration" | "interface_declaration" | "enum_declaration" | "record_declaration") => one(What::Type, &[UpperCamel]),
        (Language::Java, "variable_declarator") => match node.parent().map(|p| p.kind()) {
            Some("local_variable_declaration") => one(What::Variable, &[Camel]),
            Some("field_declaration") => one(What::Field, &[Camel, Screaming]),
            _ => Vec::new(),
        },
        _ => Vec::new(),
    }
}

fn declared_js<'t>(node: tree_sitter::Node<'t>, kind: &str, jsx: bool) -> Vec<(tree_sitter::Node<'t>, What, &'static [Case])> {
    use Case::*;
    let function: &'static [Case] = if jsx { &[Camel, UpperCamel] } else { &[Camel] };
    let (what, cases): (What, &'static [Case]) = match kind {
        "function_declaration" | "generator_function_declaration" => (What::Function, function),
        "method_definition" => (What::Function, &[Camel]),
        "class_declaration" | "abstract_class_declaration" | "interface_declaration" | "type_alias_declaration" | "enum_declaration" => (What::Type, &[UpperCamel]),
        "variable_declarator" => (What::Variable, &[Camel, UpperCamel, Screaming]),
        _ => return Vec::new(),
    };
    // A destructuring pattern declares several names; only a plain one is judged.
    node.child_by_field_name("name").filter(|n| matches!(n.kind(), "identifier" | "type_identifier" | "property_identifier")).map(|n| vec![(n, what, cases)]).unwrap_or_default()
}

fn language_name(language: Language) -> &'static str {
    match language {
        Language::Rust => "Rust",
        Language::Python => "Python",
        Language::JavaScript => "JavaScript",
        Language::TypeScript | Language::Tsx => "TypeScript",
        Language::Go => "Go",
        Language::Java => "Java",
    }
}

/// A finding for `name` if it fits none of `cases`; `None` for names not judged.
fn judge(name: &str, what: What, cases: &[Case], language: Language, path: &str) -> Option<(String, String)> {
    let core = name.trim_start_matches(['_', '$', '#']).trim_end_matches('_');
    let go_test = language == Language::Go && path.ends_with("_test.go") && ["Test", "Benchmark", "Example", "Fuzz"].iter().any(|p| core.starts_with(p));
    if core.is_empty() || !core.is_ascii() || go_test || cases.iter().any(|c| c.fits(core)) || core == "constructor" {
        return None;
    }
    let first = cases[0];
    let exported = core.starts_with(|c: char| c.is_ascii_uppercase());
    let renamed = first.write(&words(core), exported);
    let prefix = &name[..name.len() - name.trim_start_matches(['_', '$', '#']).len()];
    let expected = cases.iter().map(|c| c.name()).collect::<Vec<_>>().join(" or ");
    Some((
        format!("`{name}` ({}) is not {expected}, the {} convention", what.word(), language_name(language)),
        format!("Rename it `{prefix}{renamed}`."),
    ))
}

/// The casing the file's existing names of one kind follow, told by those the patch shows
/// staying (its context lines): the one case all of them of two words or more fit, when there
/// are at least two such names; `None` when they are too few, or mixed.
fn file_case(existing: &[&str]) -> Option<Case> {
    let informative: Vec<&str> = existing.iter().map(|n| n.trim_start_matches(['_', '$', '#']).trim_end_matches('_')).filter(|n| words(n).len() > 1 && n.is_ascii()).collect();
    if informative.len() < 2 {
        return None;
    }
    let fitting: Vec<Case> = [Case::Snake, Case::Camel, Case::UpperCamel, Case::Screaming].into_iter().filter(|c| informative.iter().all(|n| c.fits(n))).collect();
    (fitting.len() == 1).then(|| fitting[0])
}

/// A name the language's convention allows, judged against the file's own (`file`): a
/// finding when it breaks the file's. A name the file's convention allows is never flagged.
fn against_file(name: &str, what: What, file: Case) -> Option<(String, String)> {
    let core = name.trim_start_matches(['_', '$', '#']).trim_end_matches('_');
    if core.is_empty() || !core.is_ascii() || words(core).len() < 2 || file.fits(core) {
        return None;
    }
    let prefix = &name[..name.len() - name.trim_start_matches(['_', '$', '#']).len()];
    Some((
        format!("`{name}` ({}) is not {}, the convention of this file's existing {}s", what.word(), file.name(), what.word()),
        format!("Rename it `{prefix}{}`, as its neighbours are written.", file.write(&words(core), core.starts_with(|c: char| c.is_ascii_uppercase()))),
    ))
}

pub(crate) fn check(file: &File<'_>, language: Language, parsed: &[Parsed], out: &mut Vec<Found>) {
    let jsx = language.has_jsx(file.path);
    for p in parsed {
        // The names the file already has (context lines), by what they name.
        let mut existing: std::collections::HashMap<&'static str, Vec<&str>> = std::collections::HashMap::new();
        super::syntax::walk(p.tree.root_node(), |node| {
            for (name_node, what, _) in declared(node, language, jsx) {
                if !p.added(name_node.start_position().row) {
                    existing.entry(what.word()).or_default().push(p.text_of(name_node));
                }
            }
        });
        super::syntax::walk(p.tree.root_node(), |node| {
            for (name_node, what, cases) in declared(node, language, jsx) {
                let row = name_node.start_position().row;
                if !p.added(row) {
                    continue;
                }
                let name = p.text_of(name_node);
                let file_case = existing.get(what.word()).and_then(|names| file_case(names));
                let found = match file_case {
                    // The file keeps a convention of its own: the new name is judged by it.
                    Some(c) if !cases.contains(&c) => against_file(name, what, c),
                    _ => judge(name, what, cases, language, file.path),
                };
                if let Some((message, suggestion)) = found {
                    out.push(Found { rule: Rule::NamingConvention, severity: Severity::Info, file: file.path.to_string(), line: p.line(row), message, suggestion });
                }
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_split_into_words_and_rewritten() {
        assert_eq!(words("HTTPServer_config2X"), ["HTTP", "Server", "config2", "X"]);
        assert_eq!(Case::Camel.write(&words("get_data"), false), "getData");
        assert_eq!(Case::Snake.write(&words("parseHTTPRequest"), false), "parse_http_request");
        assert_eq!(Case::UpperCamel.write(&words("task_handler"), false), "TaskHandler");
        assert_eq!(Case::MixedCaps.write(&words("Max_retries"), true), "MaxRetries");
        assert!(judge("__init__", What::Function, &[Case::Snake], Language::Python, "a.py").is_none());
        assert!(judge("TestParse_empty", What::Function, &[Case::MixedCaps], Language::Go, "a_test.go").is_none());
        assert_eq!(judge("_get_data", What::Function, &[Case::Camel], Language::TypeScript, "a.ts").map(|f| f.1), Some("Rename it `_getData`.".into()));
    }
}
