//! The new side of a PR file's hunks parsed with tree-sitter, for the rules that read
//! syntax (`complex_function`, `naming_convention`). A hunk is a window onto the file:
//! tree-sitter parses what it can and marks the rest as errors, so a function whose start
//! is outside the hunk is not seen, and one inside it is.

use super::patch::{Hunk, Side};

/// The languages with a grammar, told from the file's extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Language {
    Rust,
    Python,
    JavaScript,
    TypeScript,
    Tsx,
    Go,
    Java,
}

impl Language {
    /// The language of `path` by its extension; `None` for any other (no syntax rule runs
    /// on it, so it gets no finding of theirs rather than a wrong one).
    pub(crate) fn of(path: &str) -> Option<Language> {
        let name = path.rsplit('/').next().unwrap_or(path);
        let ext = name.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase())?;
        Some(match ext.as_str() {
            "rs" => Language::Rust,
            "py" | "pyi" => Language::Python,
            "js" | "jsx" | "mjs" | "cjs" => Language::JavaScript,
            "ts" | "mts" | "cts" => Language::TypeScript,
            "tsx" => Language::Tsx,
            "go" => Language::Go,
            "java" => Language::Java,
            _ => return None,
        })
    }

    fn grammar(self) -> tree_sitter::Language {
        match self {
            Language::Rust => tree_sitter_rust::LANGUAGE.into(),
            Language::Python => tree_sitter_python::LANGUAGE.into(),
            Language::JavaScript => tree_sitter_javascript::LANGUAGE.into(),
            Language::TypeScript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
            Language::Tsx => tree_sitter_typescript::LANGUAGE_TSX.into(),
            Language::Go => tree_sitter_go::LANGUAGE.into(),
            Language::Java => tree_sitter_java::LANGUAGE.into(),
        }
    }

    /// Whether the language's JSX lets a function be named as a component (`PascalCase`).
    pub(crate) fn has_jsx(self, path: &str) -> bool {
        matches!(self, Language::Tsx) || (self == Language::JavaScript && path.to_ascii_lowercase().ends_with(".jsx"))
    }
}

/// One hunk's new side, parsed.
pub(crate) struct Parsed {
    pub(crate) tree: tree_sitter::Tree,
    pub(crate) text: String,
    /// Per row of `text`: its line in the new file, and whether the PR added it.
    pub(crate) rows: Vec<(i64, bool)>,
}

impl Parsed {
    /// The new-file line of row `row`.
    pub(crate) fn line(&self, row: usize) -> Option<i64> {
        self.rows.get(row).map(|r| r.0)
    }

    /// Whether any row from `first` to `last` (inclusive) was added by the PR.
    pub(crate) fn touches_added(&self, first: usize, last: usize) -> bool {
        self.rows.get(first..=last.min(self.rows.len().saturating_sub(1))).is_some_and(|rows| rows.iter().any(|r| r.1))
    }

    /// Whether row `row` was added by the PR.
    pub(crate) fn added(&self, row: usize) -> bool {
        self.rows.get(row).is_some_and(|r| r.1)
    }

    /// The source text of `node`.
    pub(crate) fn text_of(&self, node: tree_sitter::Node<'_>) -> &str {
        node.utf8_text(self.text.as_bytes()).unwrap_or_default()
    }
}

/// The new side of each hunk of a file in `language` that adds a line, parsed (hunks that
/// only remove lines hold no new code).
pub(crate) fn parse(language: Language, hunks: &[Hunk<'_>]) -> Vec<Parsed> {
    let mut parser = tree_sitter::Parser::new();
    // A grammar of another ABI than the library's would fail here: no syntax rule then.
    if parser.set_language(&language.grammar()).is_err() {
        return Vec::new();
    }
    let mut out = Vec::new();
    for hunk in hunks.iter().filter(|h| h.lines.iter().any(|l| l.side == Side::Added)) {
        let mut text = String::new();
        let mut rows = Vec::new();
        for l in hunk.new_side() {
            text.push_str(l.text);
            text.push('\n');
            rows.push((l.new.unwrap_or(0), l.side == Side::Added));
        }
        if let Some(tree) = parser.parse(&text, None) {
            out.push(Parsed { tree, text, rows });
        }
    }
    out
}

/// Every node under `root` (itself included), in document order, without recursion: a
/// deeply nested tree (minified code) must not overflow the stack.
pub(crate) fn walk<'t>(root: tree_sitter::Node<'t>, mut visit: impl FnMut(tree_sitter::Node<'t>)) {
    let mut cursor = root.walk();
    loop {
        visit(cursor.node());
        if cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.node() == root {
                return;
            }
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return;
            }
        }
    }
}
