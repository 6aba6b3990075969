//! The dependents of a PR's changed files (T-R03): the files of the repository, not in the
//! PR, that import a changed file, directly (distance 1) or through other files (2, 3...),
//! read from the captured repository alone, offline.
//!
//! What is read: the tree of the PR's base commit (`repos/O/R/git/trees/{base sha}`, asked
//! for with `recursive=1`; the sha is `base.sha` of `pulls/N`), and the text of its source
//! files in the languages of the changed files: `repos/O/R/git/blobs/{blob sha}` (the
//! blob the tree names: exactly the base's version), else `repos/O/R/contents/{path}` (the
//! snapshot keys a capture by its path without the query string, so a contents capture is
//! one version of the file, whatever `ref` it was asked with). A repository's every source
//! file is one request each: capture asks for at most [`MAX_SOURCE_FILES`] of them per PR,
//! the first by path, and only in the changed files' languages.
//!
//! Imports are read line by line, not with the tree-sitter grammars (an import is one
//! statement at the start of a line in each of these languages; comments and Python
//! docstrings are skipped), and resolved to paths of the tree:
//!
//! - Python: `import a.b`, `from a.b import c`, `from .x import y` -> `a/b.py` or
//!   `a/b/__init__.py` (and `a/b/c.py` for a submodule imported by name), absolute names
//!   from the importer's folders up to the top, relative ones from its package;
//! - JavaScript and TypeScript: relative specifiers (`./x`, `../y`) of `import`, `export ...
//!   from`, `require(...)` and `import(...)`, as written, with `.js .jsx .ts .tsx .mjs
//!   .cjs`, or `/index.*` (a `.js` written for a `.ts` file too);
//! - Rust: `mod x;` -> `x.rs` or `x/mod.rs` beside the declaring module; `use crate::a::b`
//!   (and `super::`, `self::`) -> the deepest of `a/b.rs`, `a/b/mod.rs`, `a.rs`, `a/mod.rs`
//!   under the crate's `src/` that exists, else the crate root (`lib.rs`, `main.rs`); a
//!   path through another crate's name (a workspace's other crates) is not followed;
//! - Go: an import path whose last segments name a folder of the tree -> every `.go` file
//!   there (tests aside); the standard library (no `.` in the first segment) never;
//! - Java: `import a.b.C;` -> a path ending `a/b/C.java`; `import a.b.*;` -> the `.java`
//!   files of a folder ending `a/b`. Classes of the same package need no import and are
//!   not seen.
//!
//! The graph is built once per PR from every file read (one pass over them), reversed, and
//! walked breadth first from the changed files, up to the policy's distance.

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};

use serde_json::Value;

use crate::snapshot::SnapshotIndex;
use hindsight_core::files::base;

/// The most source files whose text is read (and asked for by capture) for one PR: a
/// repository's every file is one request each.
pub(crate) const MAX_SOURCE_FILES: usize = 2000;

/// A language whose imports are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Lang {
    Python,
    Script,
    Rust,
    Go,
    Java,
}

/// The language of `path`, by its extension.
pub(crate) fn lang_of(path: &str) -> Option<Lang> {
    let ext = path.rsplit_once('.').map(|(_, e)| e)?;
    Some(match ext {
        "py" => Lang::Python,
        "js" | "jsx" | "ts" | "tsx" | "mjs" | "cjs" => Lang::Script,
        "rs" => Lang::Rust,
        "go" => Lang::Go,
        "java" => Lang::Java,
        _ => return None,
    })
}

/// The files of a repository's tree, indexed for resolving imports.
#[derive(Debug, Default)]
pub(crate) struct Tree {
    files: HashSet<String>,
    /// File name -> the paths of that name.
    by_name: HashMap<String, Vec<String>>,
    /// Folder -> its files (not below it), by path.
    by_dir: HashMap<String, Vec<String>>,
    /// Folder name -> the folders of that name.
    dirs_by_name: HashMap<String, Vec<String>>,
}

/// The folder of `path` (`""` at the top).
fn dir_of(path: &str) -> &str {
    path.rsplit_once('/').map(|(d, _)| d).unwrap_or("")
}

/// `dir` and `rest` joined, `.` and `..` resolved; `None` above the top.
fn join(dir: &str, rest: &str) -> Option<String> {
    let mut parts: Vec<&str> = dir.split('/').filter(|s| !s.is_empty()).collect();
    for s in rest.split('/') {
        match s {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            s => parts.push(s),
        }
    }
    Some(parts.join("/"))
}

impl Tree {
    /// The blobs of `paths`.
    pub(crate) fn new<'a>(paths: impl IntoIterator<Item = &'a str>) -> Tree {
        let mut t = Tree::default();
        for p in paths {
            t.files.insert(p.to_string());
            t.by_name.entry(base(p).to_string()).or_default().push(p.to_string());
            let d = dir_of(p);
            if !t.by_dir.contains_key(d) {
                t.dirs_by_name.entry(base(d).to_string()).or_default().push(d.to_string());
            }
            t.by_dir.entry(d.to_string()).or_default().push(p.to_string());
        }
        for v in t.by_name.values_mut().chain(t.by_dir.values_mut()).chain(t.dirs_by_name.values_mut()) {
            v.sort();
        }
        t
    }

    fn has(&self, p: &str) -> bool {
        self.files.contains(p)
    }

    /// The first of `candidates` in the tree.
    fn first(&self, candidates: impl IntoIterator<Item = String>) -> Option<String> {
        candidates.into_iter().find(|c| self.has(c))
    }

    /// The paths ending with `suffix` (whole segments).
    fn ending(&self, suffix: &str) -> Vec<String> {
        let name = base(suffix);
        let hits = self.by_name.get(name).map(Vec::as_slice).unwrap_or_default();
        hits.iter().filter(|p| *p == suffix || p.ends_with(&format!("/{suffix}"))).cloned().collect()
    }

    /// The folders ending with `suffix` (whole segments).
    fn dirs_ending(&self, suffix: &str) -> Vec<&str> {
        let hits = self.dirs_by_name.get(base(suffix)).map(Vec::as_slice).unwrap_or_default();
        hits.iter().filter(|d| *d == suffix || d.ends_with(&format!("/{suffix}"))).map(String::as_str).collect()
    }

    fn dir_files(&self, d: &str) -> &[String] {
        self.by_dir.get(d).map(Vec::as_slice).unwrap_or_default()
    }
}

/// The files of `tree` that the source file `path` (text `text`) imports, sorted, itself
/// left out.
pub(crate) fn imports(tree: &Tree, path: &str, text: &str) -> Vec<String> {
    let mut out: Vec<String> = match lang_of(path) {
        Some(Lang::Python) => python(tree, path, text),
        Some(Lang::Script) => script(tree, path, text),
        Some(Lang::Rust) => rust(tree, path, text),
        Some(Lang::Go) => go(tree, text),
        Some(Lang::Java) => java(tree, text),
        None => Vec::new(),
    };
    out.retain(|p| p != path);
    out.sort();
    out.dedup();
    out
}

/// Python's lines outside docstrings and comments, with a parenthesised import joined.
fn python_statements(text: &str) -> Vec<String> {
    let (mut out, mut in_string, mut open): (Vec<String>, bool, Option<String>) = (Vec::new(), false, None);
    for line in text.lines() {
        let quotes = line.matches("\"\"\"").count() + line.matches("'''").count();
        let was = in_string;
        if quotes % 2 == 1 {
            in_string = !in_string;
        }
        if was {
            continue;
        }
        let l = line.split('#').next().unwrap_or("").trim();
        if let Some(mut s) = open.take() {
            s.push(' ');
            s.push_str(l);
            match l.contains(')') {
                true => out.push(s.replace(['(', ')'], " ")),
                false => open = Some(s),
            }
        } else if (l.starts_with("import ") || l.starts_with("from ")) && l.contains('(') && !l.contains(')') {
            open = Some(l.to_string());
        } else if l.starts_with("import ") || l.starts_with("from ") {
            out.push(l.replace(['(', ')'], " "));
        }
    }
    out
}

/// A Python module (`a.b`, `.x`, `..`) from `importer`: the folder it is looked for from
/// and its path below it, one pair per folder an absolute name may start from.
fn python_module(importer: &str, module: &str) -> Vec<(String, String)> {
    let dots = module.len() - module.trim_start_matches('.').len();
    let rest = module[dots..].replace('.', "/");
    if dots > 0 {
        let mut d = dir_of(importer).to_string();
        for _ in 1..dots {
            d = dir_of(&d).to_string();
        }
        return vec![(d, rest)];
    }
    // Absolute: from the top, then from each folder down to the importer's (a `src/`
    // layout, a package run as a script).
    let mut roots = vec![(String::new(), rest.clone())];
    let mut d = dir_of(importer);
    let mut below = Vec::new();
    while !d.is_empty() {
        below.push((d.to_string(), rest.clone()));
        d = dir_of(d);
    }
    roots.extend(below.into_iter().rev());
    roots
}

fn python(tree: &Tree, path: &str, text: &str) -> Vec<String> {
    let module_file = |dir: &str, m: &str| -> Option<String> {
        let stem = join(dir, m)?;
        let init = if stem.is_empty() { "__init__.py".to_string() } else { format!("{stem}/__init__.py") };
        tree.first([format!("{stem}.py"), init].into_iter().filter(|c| !c.starts_with(".py")))
    };
    let mut out = Vec::new();
    for s in python_statements(text) {
        if let Some(names) = s.strip_prefix("import ") {
            for m in names.split(',').filter_map(|n| n.split_whitespace().next()) {
                out.extend(python_module(path, m).iter().find_map(|(d, m)| module_file(d, m)));
            }
        } else if let Some((module, names)) = s.strip_prefix("from ").and_then(|r| r.split_once(" import ")) {
            let names: Vec<&str> = names.split(',').filter_map(|n| n.split_whitespace().next()).filter(|n| *n != "*").collect();
            // The first folder the module is found from; a name may be a submodule
            // (`from . import x`, `from a import b`: `a/b.py`).
            for (d, m) in python_module(path, module.trim()) {
                let mut hits: Vec<String> = module_file(&d, &m).into_iter().collect();
                hits.extend(names.iter().filter_map(|n| module_file(&d, &if m.is_empty() { n.to_string() } else { format!("{m}/{n}") })));
                if !hits.is_empty() {
                    out.extend(hits);
                    break;
                }
            }
        }
    }
    out
}

/// The quoted specifier at the start of `s` (after spaces).
fn quoted(s: &str) -> Option<&str> {
    let s = s.trim_start();
    let q = s.chars().next().filter(|c| matches!(c, '\'' | '"' | '`'))?;
    let rest = &s[1..];
    rest.find(q).map(|end| &rest[..end])
}

fn script(tree: &Tree, path: &str, text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let dir = dir_of(path);
    for line in text.lines() {
        let l = line.trim_start();
        if l.starts_with("//") || l.starts_with('*') || l.starts_with("/*") {
            continue;
        }
        let mut specs = Vec::new();
        for key in ["from ", "import ", "require(", "import("] {
            let mut at = 0;
            while let Some(i) = l[at..].find(key) {
                let after = &l[at + i + key.len()..];
                specs.extend(quoted(after));
                at += i + key.len();
            }
        }
        for spec in specs.into_iter().filter(|s| s.starts_with("./") || s.starts_with("../")) {
            let Some(stem) = join(dir, spec) else { continue };
            out.extend(script_file(tree, &stem));
        }
    }
    out
}

/// The file a relative specifier names: as written, with an extension, `index.*` in its
/// folder, or a `.ts`/`.tsx` for a `.js` written in TypeScript's ES modules.
fn script_file(tree: &Tree, stem: &str) -> Option<String> {
    const EXTS: [&str; 6] = ["ts", "tsx", "js", "jsx", "mjs", "cjs"];
    if tree.has(stem) && lang_of(stem) == Some(Lang::Script) {
        return Some(stem.to_string());
    }
    let bare = stem.strip_suffix(".js").or_else(|| stem.strip_suffix(".jsx")).unwrap_or(stem);
    let with = EXTS.iter().map(|e| format!("{stem}.{e}"));
    let index = EXTS.iter().map(|e| format!("{stem}/index.{e}"));
    let ts = ["ts", "tsx"].iter().map(|e| format!("{bare}.{e}"));
    tree.first(with.chain(index).chain(ts))
}

/// Rust's statements that bring in modules: `mod x;` and `use ...;` (joined over lines),
/// comments left out.
fn rust_statements(text: &str) -> Vec<String> {
    let (mut out, mut open): (Vec<String>, Option<String>) = (Vec::new(), None);
    for line in text.lines() {
        let l = line.split("//").next().unwrap_or("").trim();
        let l = l.strip_prefix("pub ").or_else(|| l.strip_prefix("pub(crate) ")).or_else(|| l.strip_prefix("pub(super) ")).unwrap_or(l);
        if let Some(mut s) = open.take() {
            s.push_str(l);
            match s.contains(';') {
                true => out.push(s),
                false => open = Some(s),
            }
        } else if l.starts_with("use ") || (l.starts_with("mod ") && l.ends_with(';')) {
            match l.contains(';') {
                true => out.push(l.to_string()),
                false => open = Some(l.to_string()),
            }
        }
    }
    out
}

/// The folder a Rust file's child modules live in: its own for `lib.rs`, `main.rs`,
/// `mod.rs`; else the folder of its name (`a/b.rs` -> `a/b`).
fn rust_module_dir(path: &str) -> String {
    let b = base(path);
    match b {
        "lib.rs" | "main.rs" | "mod.rs" => dir_of(path).to_string(),
        _ => format!("{}/{}", dir_of(path), b.trim_end_matches(".rs")).trim_start_matches('/').to_string(),
    }
}

/// The paths of a `use` tree's leaves: `crate::a::{b, c::d}` -> `crate::a::b`, `crate::a::c::d`.
fn use_paths(tree: &str) -> Vec<String> {
    let tree = tree.trim();
    let Some(open) = tree.find('{') else { return vec![tree.split(" as ").next().unwrap_or(tree).trim().to_string()] };
    let prefix = &tree[..open];
    let inner = tree[open + 1..].strip_suffix('}').unwrap_or(&tree[open + 1..]);
    // Split at the commas outside nested braces.
    let (mut parts, mut depth, mut start) = (Vec::new(), 0, 0);
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&inner[start..]);
    parts.into_iter().filter(|p| !p.trim().is_empty()).flat_map(|p| use_paths(&format!("{prefix}{}", p.trim()))).collect()
}

fn rust(tree: &Tree, path: &str, text: &str) -> Vec<String> {
    let module_dir = rust_module_dir(path);
    // The crate's `src/` (the deepest one above the file), else the file's folder.
    let root = path.rfind("src/").map(|i| path[..i + 3].to_string()).unwrap_or_else(|| dir_of(path).to_string());
    let mut out = Vec::new();
    for s in rust_statements(text) {
        if let Some(name) = s.strip_prefix("mod ").map(|r| r.trim_end_matches(';').trim()) {
            let d = if module_dir.is_empty() { name.to_string() } else { format!("{module_dir}/{name}") };
            out.extend(tree.first([format!("{d}.rs"), format!("{d}/mod.rs")]));
            continue;
        }
        let Some(body) = s.strip_prefix("use ").map(|r| r.trim_end_matches(';')) else { continue };
        for p in use_paths(body) {
            let segs: Vec<&str> = p.split("::").map(str::trim).collect();
            let (start, rest) = match segs.first() {
                Some(&"crate") => (root.clone(), &segs[1..]),
                Some(&"self") => (module_dir.clone(), &segs[1..]),
                Some(&"super") => (dir_of(&module_dir).to_string(), &segs[1..]),
                _ => continue,
            };
            out.extend(rust_target(tree, &start, rest, &root));
        }
    }
    out
}

/// The deepest module file of `segs` below `start` that the tree holds; else the module
/// `start` is itself (the crate root under `root`).
fn rust_target(tree: &Tree, start: &str, segs: &[&str], root: &str) -> Option<String> {
    let segs: Vec<&str> = segs.iter().copied().filter(|s| s.chars().all(|c| c.is_alphanumeric() || c == '_') && !s.is_empty()).collect();
    for k in (1..=segs.len()).rev() {
        let d = join(start, &segs[..k].join("/"))?;
        if let Some(f) = tree.first([format!("{d}.rs"), format!("{d}/mod.rs")]) {
            return Some(f);
        }
    }
    let own = |d: &str| if d == root { vec![format!("{d}/lib.rs"), format!("{d}/main.rs")] } else { vec![format!("{d}.rs"), format!("{d}/mod.rs")] };
    tree.first(own(start).into_iter().map(|p| p.trim_start_matches('/').to_string()))
}

fn go(tree: &Tree, text: &str) -> Vec<String> {
    let mut specs = Vec::new();
    let mut block = false;
    for line in text.lines() {
        let l = line.split("//").next().unwrap_or("").trim();
        if l.starts_with("import (") {
            block = true;
        } else if block && l.starts_with(')') {
            block = false;
        } else if block {
            specs.extend(l.find('"').and_then(|i| quoted(&l[i..])));
        } else if let Some(r) = l.strip_prefix("import ") {
            specs.extend(r.find('"').and_then(|i| quoted(&r[i..])));
        }
    }
    let mut out = Vec::new();
    for spec in specs {
        let segs: Vec<&str> = spec.split('/').collect();
        if !segs.first().is_some_and(|s| s.contains('.')) {
            continue;
        }
        // The longest tail of the import path that is a folder of the tree.
        let Some(dir) = (1..segs.len()).map(|k| segs[k..].join("/")).find_map(|tail| tree.dirs_ending(&tail).into_iter().next()) else { continue };
        out.extend(tree.dir_files(dir).iter().filter(|p| p.ends_with(".go") && !p.ends_with("_test.go")).cloned());
    }
    out
}

fn java(tree: &Tree, text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines() {
        let Some(r) = line.trim().strip_prefix("import ") else { continue };
        let r = r.strip_prefix("static ").unwrap_or(r).trim().trim_end_matches(';').trim();
        let parts: Vec<&str> = r.split('.').collect();
        if parts.last() == Some(&"*") {
            let d = parts[..parts.len() - 1].join("/");
            for dir in tree.dirs_ending(&d) {
                out.extend(tree.dir_files(dir).iter().filter(|p| p.ends_with(".java")).cloned());
            }
            continue;
        }
        // A class, or (static import) a member of one: the class is the longest that exists.
        for k in (1..=parts.len()).rev() {
            let hits = tree.ending(&format!("{}.java", parts[..k].join("/")));
            if !hits.is_empty() {
                out.extend(hits);
                break;
            }
        }
    }
    out
}

/// Each file -> the files that import it (the import graph reversed), from every source
/// file read (`sources`: path, text).
pub(crate) fn reverse(tree: &Tree, sources: &[(String, String)]) -> HashMap<String, Vec<String>> {
    let mut rev: HashMap<String, Vec<String>> = HashMap::new();
    for (path, text) in sources {
        for target in imports(tree, path, text) {
            rev.entry(target).or_default().push(path.clone());
        }
    }
    rev
}

/// The files that import a changed file, directly (1) or through others, up to
/// `max_distance`, with the shortest distance; the changed files themselves left out. By
/// distance, then path.
pub(crate) fn dependents(rev: &HashMap<String, Vec<String>>, changed: &[&str], max_distance: u32) -> Vec<(String, u32)> {
    let changed_set: HashSet<&str> = changed.iter().copied().collect();
    let mut seen: BTreeMap<String, u32> = BTreeMap::new();
    let mut queue: VecDeque<(&str, u32)> = changed.iter().map(|c| (*c, 0)).collect();
    let mut visited: HashSet<&str> = changed_set.clone();
    while let Some((f, d)) = queue.pop_front() {
        if d >= max_distance {
            continue;
        }
        for importer in rev.get(f).map(Vec::as_slice).unwrap_or_default() {
            if visited.insert(importer.as_str()) {
                seen.insert(importer.clone(), d + 1);
                queue.push_back((importer.as_str(), d + 1));
            }
        }
    }
    let mut out: Vec<(String, u32)> = seen.into_iter().collect();
    out.sort_by(|a, b| (a.1, &a.0).cmp(&(b.1, &b.0)));
    out
}

/// The snapshot path of a repository's tree at `sha`.
pub(crate) fn tree_path(repo: &str, sha: &str) -> String {
    format!("repos/{repo}/git/trees/{sha}")
}

/// The base commit of PR `repo`#`n`, from its captured `pulls/N`.
pub(crate) fn base_sha(index: &SnapshotIndex, repo: &str, n: i64) -> Option<String> {
    let pull = index.get(&format!("repos/{repo}/pulls/{n}")).filter(|e| e.ok())?;
    pull.body().get("base")?.get("sha")?.as_str().map(str::to_string)
}

/// A tree body's blobs (path, blob sha), and whether GitHub cut the listing short.
fn blobs(tree: &Value) -> Option<(Vec<(String, String)>, bool)> {
    let entries = tree.get("tree")?.as_array()?;
    let blobs = entries
        .iter()
        .filter(|e| e.get("type").and_then(Value::as_str) == Some("blob"))
        .filter_map(|e| Some((e.get("path")?.as_str()?.to_string(), e.get("sha").and_then(Value::as_str).unwrap_or("").to_string())))
        .collect();
    Some((blobs, tree.get("truncated").and_then(Value::as_bool).unwrap_or(false)))
}

/// The languages of `changed` whose imports are read, sorted.
fn langs_of(changed: &[&str]) -> Vec<Lang> {
    let mut langs: Vec<Lang> = changed.iter().filter_map(|c| lang_of(c)).collect();
    langs.sort();
    langs.dedup();
    langs
}

/// The source files of the tree whose text is read: those in `langs` (the changed files'
/// languages), tests included (they import code too), the first [`MAX_SOURCE_FILES`] by
/// path.
fn sources_to_read<'a>(blobs: &'a [(String, String)], langs: &[Lang]) -> Vec<&'a (String, String)> {
    let mut wanted: Vec<&(String, String)> = blobs.iter().filter(|(p, _)| lang_of(p).is_some_and(|l| langs.contains(&l))).collect();
    wanted.sort();
    wanted.truncate(MAX_SOURCE_FILES);
    wanted
}

/// The snapshot paths of a source file's text: its blob, else its contents.
fn text_paths(repo: &str, path: &str, blob: &str) -> [String; 2] {
    [format!("repos/{repo}/git/blobs/{blob}"), format!("repos/{repo}/contents/{path}")]
}

/// What capture asks for so the dependents of PR `repo`#`n` can be read: the base tree
/// once `pulls/N` is captured, then the text of its source files in the changed files'
/// languages (their blobs) once the tree and `pulls/N/files` are.
pub(crate) fn reads(index: &SnapshotIndex, repo: &str, n: i64) -> Vec<String> {
    let Some(sha) = base_sha(index, repo, n) else { return Vec::new() };
    let path = tree_path(repo, &sha);
    let mut out = vec![path.clone()];
    let files = index.get(&format!("repos/{repo}/pulls/{n}/files")).filter(|e| e.ok()).and_then(|e| e.body().as_array().cloned());
    let (Some(files), Some((blobs, _))) = (files, index.get(&path).filter(|e| e.ok()).and_then(|e| blobs(e.body()))) else { return out };
    let changed: Vec<&str> = files.iter().filter_map(|f| f.get("filename").and_then(Value::as_str)).collect();
    // Each file's text where it was read from: its contents when those alone are captured,
    // else its blob (asked for when not captured yet).
    let captured = |p: &String| index.get(p).is_some_and(|e| e.ok());
    let wanted = sources_to_read(&blobs, &langs_of(&changed)).into_iter().filter(|(_, sha)| !sha.is_empty()).map(|(p, sha)| text_paths(repo, p, sha));
    out.extend(wanted.map(|[blob, contents]| if !captured(&blob) && captured(&contents) { contents } else { blob }));
    out
}

/// The dependents of PR `repo`#`n`'s changed files, as far as the capture tells them.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Found {
    /// Each dependent with its distance, by distance then path.
    pub(crate) dependents: Vec<(String, u32)>,
    /// Source files of the tree in the changed files' languages, and of them those whose
    /// text was captured.
    pub(crate) sources: usize,
    pub(crate) read: usize,
    /// Whether GitHub cut the tree listing short (`truncated`).
    pub(crate) truncated: bool,
}

/// One tree's import graph, reversed, over the source files of some languages.
#[derive(Debug, Default)]
pub(crate) struct Graph {
    rev: HashMap<String, Vec<String>>,
    sources: usize,
    read: usize,
    truncated: bool,
}

/// The graphs built so far, by tree path and languages (`None`: not captured): the PRs of a
/// repository often share a base commit, and its graph is built once for them all.
#[derive(Debug, Default)]
pub(crate) struct Graphs(std::sync::Mutex<HashMap<(String, Vec<Lang>), std::sync::Arc<Option<Graph>>>>);

/// The graph of the tree at `path` over its source files in `langs`; `None` when the tree,
/// or the text of every one of those files, was not captured.
fn graph(index: &SnapshotIndex, repo: &str, path: &str, langs: &[Lang]) -> Option<Graph> {
    let (blobs, truncated) = blobs(index.get(path).filter(|e| e.ok())?.body())?;
    let tree = Tree::new(blobs.iter().map(|(p, _)| p.as_str()));
    let wanted = sources_to_read(&blobs, langs);
    let mut sources = Vec::new();
    for (path, blob) in &wanted {
        let text = text_paths(repo, path, blob)
            .iter()
            .filter_map(|p| index.get(p).filter(|e| e.ok()))
            .find_map(|e| super::ci_gate::autoloop::contents_text(e.body()));
        sources.extend(text.map(|t| (path.clone(), t)));
    }
    if sources.is_empty() && !wanted.is_empty() {
        return None;
    }
    Some(Graph { rev: reverse(&tree, &sources), sources: wanted.len(), read: sources.len(), truncated })
}

/// The dependents of `changed` in PR `repo`#`n`'s base tree; `None` when the tree, or the
/// text of every one of its source files, was not captured. The tree's graph is taken from
/// `graphs` when another PR built it.
pub(crate) fn find(index: &SnapshotIndex, graphs: &Graphs, repo: &str, n: i64, changed: &[&str], max_distance: u32) -> Option<Found> {
    let path = tree_path(repo, &base_sha(index, repo, n)?);
    let key = (path, langs_of(changed));
    let cached = graphs.0.lock().ok().and_then(|m| m.get(&key).cloned());
    let g = match cached {
        Some(g) => g,
        None => {
            let g = std::sync::Arc::new(graph(index, repo, &key.0, &key.1));
            if let Ok(mut m) = graphs.0.lock() {
                m.insert(key, g.clone());
            }
            g
        }
    };
    let g = g.as_ref().as_ref()?;
    Some(Found { dependents: dependents(&g.rev, changed, max_distance), sources: g.sources, read: g.read, truncated: g.truncated })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A real file (fixtures/real) and the tree it is read in: the files it imports.
    macro_rules! real {
        ($dir:literal, $file:literal) => {
            include_str!(concat!("../../../../fixtures/real/", $dir, "/", $file))
        };
    }

    /// httpx's `_utils.py`: `from ._types import PrimitiveData` is `httpx/_types.py`; the
    /// standard library (`os`, `urllib.request`, `__future__`) is in no tree.
    #[test]
    fn python_relative_and_absolute_imports() {
        let tree = Tree::new(["httpx/__init__.py", "httpx/_types.py", "httpx/_utils.py", "httpx/_client.py", "tests/test_utils.py"]);
        assert_eq!(imports(&tree, "httpx/_utils.py", real!("source-functions", "httpx-_utils.py")), ["httpx/_types.py"]);
        // Absolute names from the top, a package, a submodule imported by name, a
        // parenthesised list over lines, a docstring that only looks like an import.
        let text = "\"\"\"\nfrom httpx import _client\n\"\"\"\nimport httpx\nfrom httpx import (\n    _client,\n    Client,\n)\n";
        assert_eq!(imports(&tree, "tests/test_utils.py", text), ["httpx/__init__.py", "httpx/_client.py"]);
        // A `src/` layout: the package is found from the folder it lives in.
        let tree = Tree::new(["src/pkg/__init__.py", "src/pkg/a/b.py", "src/pkg/main.py"]);
        assert_eq!(imports(&tree, "src/pkg/main.py", "import pkg.a.b\nfrom .a import b\n"), ["src/pkg/a/b.py"]);
    }

    /// fzf's `src/tokenizer.go` imports `github.com/junegunn/fzf/src/util`: every `.go` file
    /// of the tree's `src/util`, its tests aside; `bytes`, `fmt`... are the standard library.
    #[test]
    fn go_import_paths_name_folders() {
        let tree = Tree::new(["go.mod", "main.go", "src/tokenizer.go", "src/util/util.go", "src/util/chars.go", "src/util/util_test.go", "src/algo/algo.go"]);
        assert_eq!(imports(&tree, "src/tokenizer.go", real!("source-functions", "fzf-tokenizer.go")), ["src/util/chars.go", "src/util/util.go"]);
    }

    /// jsoup's `NodeTraversor.java`: each import is the file whose path ends with its name;
    /// `org.jsoup.select.NodeFilter.FilterResult` (a nested type) is `NodeFilter.java`.
    #[test]
    fn java_imports_by_path_suffix() {
        let root = "src/main/java/org/jsoup/";
        let files = ["helper/Validate.java", "nodes/Element.java", "nodes/Node.java", "select/NodeFilter.java", "select/NodeTraversor.java", "select/Elements.java"]
            .map(|f| format!("{root}{f}"));
        let tree = Tree::new(files.iter().map(String::as_str));
        let got = imports(&tree, &files[4], real!("source-functions", "jsoup-NodeTraversor.java"));
        assert_eq!(got, files[..4].to_vec());
        assert_eq!(imports(&tree, &files[0], "import org.jsoup.select.*;\n"), [files[5].clone(), files[3].clone(), files[4].clone()]);
    }

    /// axios's `lib/core/settle.js` imports `./AxiosError.js`; a TypeScript file imports by
    /// stem, a folder's `index`, and a `.js` name for its `.ts` file.
    #[test]
    fn script_relative_specifiers() {
        let tree = Tree::new(["lib/core/settle.js", "lib/core/AxiosError.js", "lib/utils.js", "web/a.ts", "web/b.tsx", "web/c/index.ts", "web/d.ts"]);
        assert_eq!(imports(&tree, "lib/core/settle.js", real!("import-graphs", "axios-settle.js")), ["lib/core/AxiosError.js"]);
        let text = "import { B } from './b';\nexport * from \"./c\";\nconst d = require('./d.js');\nimport x from 'react';\n// import y from './a';\n";
        assert_eq!(imports(&tree, "web/a.ts", text), ["web/b.tsx", "web/c/index.ts", "web/d.ts"]);
    }

    /// anyhow's `src/chain.rs`: `use crate::Chain` is an item of the crate root
    /// (`src/lib.rs`); `use self::ChainState::...` is the file itself, left out.
    #[test]
    fn rust_use_paths_resolve_to_module_files() {
        let tree = Tree::new(["src/lib.rs", "src/chain.rs", "src/error.rs", "src/kind.rs", "src/fmt/mod.rs"]);
        assert_eq!(imports(&tree, "src/chain.rs", real!("import-graphs", "anyhow-chain.rs")), ["src/lib.rs"]);
        let text = "use crate::{error::ErrorImpl, kind::{Adhoc, Trait}};\nuse super::fmt::Write;\npub(crate) use crate::fmt;\n";
        assert_eq!(imports(&tree, "src/chain.rs", text), ["src/error.rs", "src/fmt/mod.rs", "src/kind.rs"]);
    }

    /// This crate's own `quality/mod.rs` declares its modules with `mod x;`: each is `x.rs`
    /// beside it, found in the folder as it is on disk.
    #[test]
    fn rust_mod_declarations_in_this_crate() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/src/evaluate/quality");
        let mut names: Vec<String> = std::fs::read_dir(dir).unwrap().map(|e| format!("src/evaluate/quality/{}", e.unwrap().file_name().to_string_lossy())).collect();
        names.sort();
        let tree = Tree::new(names.iter().map(String::as_str));
        let text = include_str!("quality/mod.rs");
        let declared: Vec<String> = text
            .lines()
            .filter_map(|l| l.trim_start_matches("pub(crate) ").trim_start_matches("pub ").strip_prefix("mod "))
            .filter_map(|l| l.strip_suffix(';'))
            .map(|m| format!("src/evaluate/quality/{m}.rs"))
            .collect();
        assert!(declared.len() >= 5, "{declared:?}");
        let got = imports(&tree, "src/evaluate/quality/mod.rs", text);
        assert!(declared.iter().all(|d| got.contains(d)), "{got:?} lacks some of {declared:?}");
    }

    /// This workspace's own Rust files, a real tree: `dependents.rs` is imported by
    /// `risk.rs` (`use super::dependents::Graphs`) and declared by `evaluate/mod.rs`
    /// (`mod dependents;`), both at distance 1; `lib.rs` declares `evaluate`, so it is a
    /// dependent at 2. Every dependent found imports the file one nearer, as the graph says.
    #[test]
    fn this_workspaces_own_rust_files() {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
        let mut paths = Vec::new();
        let mut dirs = vec![std::path::PathBuf::from(root).join("crates"), std::path::PathBuf::from(root).join("src")];
        while let Some(d) = dirs.pop() {
            for e in std::fs::read_dir(&d).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    dirs.push(p);
                } else if p.extension().is_some_and(|x| x == "rs") {
                    paths.push(p.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/"));
                }
            }
        }
        paths.sort();
        let tree = Tree::new(paths.iter().map(String::as_str));
        let sources: Vec<(String, String)> = paths.iter().map(|p| (p.clone(), std::fs::read_to_string(format!("{root}/{p}")).unwrap())).collect();
        let started = std::time::Instant::now();
        let rev = reverse(&tree, &sources);
        let changed = "crates/hindsight-evaluate/src/evaluate/dependents.rs";
        let found = dependents(&rev, &[changed], DEFAULT_TEST_DISTANCE);
        eprintln!("{} files, {} import edges, {} dependents, in {:?}", sources.len(), rev.values().map(Vec::len).sum::<usize>(), found.len(), started.elapsed());
        let at = |p: &str| found.iter().find(|(f, _)| f == p).map(|(_, k)| *k);
        assert_eq!(at("crates/hindsight-evaluate/src/evaluate/risk.rs"), Some(1));
        assert_eq!(at("crates/hindsight-evaluate/src/evaluate/mod.rs"), Some(1));
        assert_eq!(at("crates/hindsight-evaluate/src/lib.rs"), Some(2));
        for (f, k) in &found {
            let nearer: Vec<&str> = if *k == 1 { vec![changed] } else { found.iter().filter(|(_, j)| *j == k - 1).map(|(p, _)| p.as_str()).collect() };
            assert!(nearer.iter().any(|n| rev.get(*n).is_some_and(|v| v.contains(f))), "{f} at {k} imports nothing at {}", k - 1);
        }
    }

    /// The distance the tests walk to: the policy's default.
    const DEFAULT_TEST_DISTANCE: u32 = crate::evaluate::risk::DEPENDENTS_DISTANCE as u32;

    /// Breadth first over the reversed graph: each dependent once, at its shortest
    /// distance, the changed files and anything past the limit left out, a cycle ended.
    #[test]
    fn dependents_by_shortest_distance() {
        let edges = [("b", "a"), ("c", "b"), ("d", "c"), ("c", "a"), ("a", "d"), ("e", "x")];
        let mut rev: HashMap<String, Vec<String>> = HashMap::new();
        for (from, to) in edges {
            rev.entry(to.to_string()).or_default().push(from.to_string());
        }
        let got = dependents(&rev, &["a"], 3);
        assert_eq!(got, [("b".to_string(), 1), ("c".to_string(), 1), ("d".to_string(), 2)]);
        assert_eq!(dependents(&rev, &["a"], 1).len(), got.iter().filter(|(_, k)| *k == 1).count());
        assert_eq!(dependents(&rev, &["a", "b"], 3), [("c".to_string(), 1), ("d".to_string(), 2)]);
    }

    /// From captures: nothing without the tree or without any text; the blob first, else
    /// the contents; a file whose text is missing is counted.
    #[test]
    fn found_from_captures_or_not_at_all() {
        let b64 = |t: &str| {
            const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
            let mut out = String::new();
            for c in t.as_bytes().chunks(3) {
                let n = (c[0] as u32) << 16 | (*c.get(1).unwrap_or(&0) as u32) << 8 | *c.get(2).unwrap_or(&0) as u32;
                for k in 0..4 {
                    out.push(if k <= c.len() { A[(n >> (18 - 6 * k) & 63) as usize] as char } else { '=' });
                }
            }
            serde_json::json!({"content": out, "encoding": "base64"}).to_string()
        };
        let tree = serde_json::json!({"sha": "t", "truncated": false, "tree": [
            {"path": "a.py", "type": "blob", "sha": "1"}, {"path": "b.py", "type": "blob", "sha": "2"},
            {"path": "c.py", "type": "blob", "sha": "3"}, {"path": "pkg", "type": "tree", "sha": "4"}]});
        let mut bodies = vec![("repos/o/r/pulls/1".to_string(), r#"{"base": {"sha": "abc"}}"#.to_string())];
        let build = |b: &[(String, String)]| SnapshotIndex::build(b.iter().map(|(p, t)| (p.clone(), 1, 200, None, t.clone())));
        assert_eq!(find(&build(&bodies), &Graphs::default(), "o/r", 1, &["a.py"], 3), None);
        bodies.push(("repos/o/r/git/trees/abc".into(), tree.to_string()));
        assert_eq!(find(&build(&bodies), &Graphs::default(), "o/r", 1, &["a.py"], 3), None);
        bodies.push(("repos/o/r/git/blobs/2".into(), b64("import a\n")));
        bodies.push(("repos/o/r/contents/c.py".into(), b64("from b import x\n")));
        let f = find(&build(&bodies), &Graphs::default(), "o/r", 1, &["a.py"], 3).unwrap();
        assert_eq!(f, Found { dependents: vec![("b.py".into(), 1), ("c.py".into(), 2)], sources: 3, read: 2, truncated: false });
        assert_eq!(reads(&build(&bodies), "o/r", 1), ["repos/o/r/git/trees/abc"]);
        // With the PR's files: each file's text where it was read, else its blob.
        bodies.push(("repos/o/r/pulls/1/files".into(), r#"[{"filename": "a.py"}]"#.into()));
        let want = ["repos/o/r/git/trees/abc", "repos/o/r/git/blobs/1", "repos/o/r/git/blobs/2", "repos/o/r/contents/c.py"];
        assert_eq!(reads(&build(&bodies), "o/r", 1), want);
    }
}
