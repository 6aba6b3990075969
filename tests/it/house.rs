//! The house rules a reader relies on, checked on the source: a stage is a list of named
//! steps, so no function outside the unit tests runs past ~80 lines; and what the code and
//! docs cite of the specification is in the repository (docs/SPEC.md).

use std::path::{Path, PathBuf};

/// The longest a function may be, its signature and closing brace included.
const MOST_LINES: usize = 80;

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The name of the function a line starts, if it starts one (`pub(crate) async fn name(`).
fn starts_fn(line: &str) -> Option<&str> {
    let mut rest = line.trim_start();
    for prefix in ["pub(crate) ", "pub(super) ", "pub ", "const ", "async ", "unsafe ", "extern \"C\" "] {
        rest = rest.strip_prefix(prefix).unwrap_or(rest);
    }
    let name = rest.strip_prefix("fn ")?;
    Some(&name[..name.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(name.len())])
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

/// Every function of `text` longer than [`MOST_LINES`], as `name (N lines, from line L)`;
/// the unit tests (`#[cfg(test)]` and what follows it) are left out.
fn long_functions(text: &str) -> Vec<String> {
    let lines: Vec<&str> = text.lines().collect();
    let end = lines.iter().position(|l| l.trim() == "#[cfg(test)]" && indent(l) == 0).unwrap_or(lines.len());
    let mut out = Vec::new();
    let mut i = 0;
    while i < end {
        let Some(name) = starts_fn(lines[i]) else {
            i += 1;
            continue;
        };
        // The body opens on the first line ending in `{`; a declaration ending in `;` has none.
        let Some(open) = (i..end).find(|&k| lines[k].trim_end().ends_with('{') || lines[k].trim_end().ends_with(';')) else { break };
        if lines[open].trim_end().ends_with('{') {
            let at = indent(lines[i]);
            if let Some(close) = (open + 1..lines.len()).find(|&k| indent(lines[k]) == at && lines[k].trim_start().starts_with('}')) {
                let n = close - i + 1;
                if n > MOST_LINES {
                    out.push(format!("{name} ({n} lines, from line {})", i + 1));
                }
            }
        }
        i += 1;
    }
    out
}

#[test]
fn no_function_runs_past_eighty_lines() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    rust_files(&root.join("crates"), &mut files);
    files.sort();
    assert!(files.len() > 50, "the source tree was not found at {}", root.display());
    let long: Vec<String> = files
        .iter()
        .flat_map(|f| {
            let rel = f.strip_prefix(root).unwrap().display().to_string();
            long_functions(&std::fs::read_to_string(f).unwrap()).into_iter().map(move |l| format!("{rel}: {l}"))
        })
        .collect();
    assert!(long.is_empty(), "functions past {MOST_LINES} lines (split them into named steps):\n{}", long.join("\n"));
}

#[test]
fn the_length_check_sees_a_long_function_and_passes_a_short_one() {
    let body = |n: usize| (0..n).map(|k| format!("    let x{k} = {k};\n")).collect::<String>();
    let long = format!("pub(crate) fn long(a: u8) -> u8 {{\n{}    a\n}}\n", body(80));
    let short = format!("fn short() {{\n{}}}\n", body(10));
    let tested = format!("#[cfg(test)]\nmod tests {{\n    fn in_a_test() {{\n{}    }}\n}}\n", body(100));
    assert_eq!(long_functions(&long), vec!["long (83 lines, from line 1)".to_string()]);
    assert!(long_functions(&format!("{short}{tested}")).is_empty());
}

/// The text files a reader of the repository meets: the sources, tests, docs, schemas,
/// queries, notebooks and scripts, and the fixtures' READMEs and generators.
fn text_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        // Under fixtures/ the rest is captured data, which may say anything.
        let wanted = if path.components().any(|c| c.as_os_str() == "fixtures") {
            name.starts_with("README") || name.ends_with(".py")
        } else {
            [".rs", ".md", ".sql", ".py", ".sh", ".ipynb", ".json"].iter().any(|e| name.ends_with(e))
        };
        if path.is_dir() {
            text_files(&path, out);
        } else if wanted {
            out.push(path);
        }
    }
}

/// A citation of the texts the specification came from, which the repository does not
/// hold: `seed` and three digits, their folder, a numbered section sign. A section of an
/// RFC, and autoloop's own `[Run §ID]` links in its state files, point elsewhere.
fn cites_outside(line: &str) -> bool {
    let lower = line.to_lowercase();
    let numbered = lower.match_indices("seed 0").any(|(i, _)| lower[i + 6..].chars().take(2).filter(char::is_ascii_digit).count() == 2);
    let section = line.match_indices('§').any(|(i, _)| {
        let before = &line[..i];
        let rfc = before.rsplit_once("RFC ").is_some_and(|(_, number)| number.len() <= 6);
        line[i + '§'.len_utf8()..].starts_with(|c: char| c.is_ascii_digit()) && !before.ends_with("Run ") && !rfc
    });
    numbered || section || lower.contains("seeds/")
}

/// Code, tests and docs cite the specification by the ids of docs/SPEC.md: every id cited
/// is defined there, and nothing cites the texts it was first written in.
#[test]
fn citations_point_into_the_repository() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let ids = crate::support::spec_ids();
    let mut files = vec![root.join("README.md")];
    for dir in ["src", "crates", "tests", "docs", "schemas", "queries", "notebooks", "bench", "scripts", "fixtures"] {
        text_files(&root.join(dir), &mut files);
    }
    let mut wrong = Vec::new();
    for f in files.iter().filter(|f| !f.ends_with("tests/it/house.rs")) {
        let Ok(text) = std::fs::read_to_string(f) else { continue };
        let rel = f.strip_prefix(root).unwrap().display().to_string();
        for (n, line) in text.lines().enumerate() {
            for id in crate::support::spec_citations(line).into_iter().filter(|id| !ids.contains(*id)) {
                wrong.push(format!("{rel}:{}: {id} is not an id of docs/SPEC.md", n + 1));
            }
            if cites_outside(line) {
                wrong.push(format!("{rel}:{}: cites a text outside the repository: {}", n + 1, line.trim()));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_citation_check_knows_a_citation_from_a_number() {
    assert!(cites_outside(&format!("// {} 000 {}7, Pull Requests", "seed", '§')));
    assert!(cites_outside(&format!("/// {}'s risk level", ["Seed", "004"].join(" "))));
    assert!(!cites_outside("MurmurHash3 with seed 0, as mmh3 prints it"));
    assert!(!cites_outside(&format!("RFC 8259 {}8.1 lets a parser ignore one", '§')));
    assert!(!cites_outside(&format!("[Run {}29480448548](https://github.com/o/r/actions/runs/1)", '§')));
    assert_eq!(crate::support::spec_citations("docs/SPEC.md [SPEC-PR], and `SPEC-…`; SPEC-TASKS-TIER3."), ["SPEC-PR", "SPEC-TASKS-TIER3"]);
}

/// The names a crate's `[dependencies]` table lists (optional ones included).
fn dependencies(manifest: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(manifest).unwrap();
    let mut inside = false;
    let mut names = Vec::new();
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') {
            inside = line == "[dependencies]";
        } else if inside && !line.is_empty() && !line.starts_with('#') {
            let name = line.split(['=', '.', ' ']).next().unwrap_or_default();
            names.push(name.to_string());
        }
    }
    names
}

/// The crates' order is the architecture (ARCHITECTURE.md): each uses only the crates below
/// it, so an upward import cannot compile; and the two lower layers never take the SQL
/// engine nor the object store client, so a change to a rule does not rebuild what depends
/// on DataFusion.
#[test]
fn each_crate_depends_only_on_the_layers_below_it() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let layers = ["hindsight-core", "hindsight-evaluate", "hindsight-report"];
    for (i, name) in layers.iter().enumerate() {
        let deps = dependencies(&root.join("crates").join(name).join("Cargo.toml"));
        assert!(deps.len() > 3, "{name}: no dependencies read");
        let ours: Vec<&String> = deps.iter().filter(|d| d.starts_with("hindsight")).collect();
        assert_eq!(ours, layers[..i].iter().collect::<Vec<_>>(), "{name} must depend on exactly the crates below it");
        if i < 2 {
            let heavy = |d: &&String| ["datafusion", "ballista", "object_store"].iter().any(|p| d.starts_with(p));
            let engine: Vec<&String> = deps.iter().filter(heavy).collect();
            assert!(engine.is_empty(), "{name} must not depend on the SQL engine: {engine:?}");
        }
    }
    let top = dependencies(&root.join("Cargo.toml"));
    for name in layers {
        assert!(top.iter().any(|d| d == name), "the binary's crate should depend on {name}");
    }
}
