//! The house rules a reader relies on, checked on the source: a stage is a list of named
//! steps, so no function outside the unit tests runs past ~80 lines.

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
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    assert!(files.len() > 50, "the source tree was not found at {}", src.display());
    let long: Vec<String> = files
        .iter()
        .flat_map(|f| {
            let rel = f.strip_prefix(&src).unwrap().display().to_string();
            long_functions(&std::fs::read_to_string(f).unwrap()).into_iter().map(move |l| format!("src/{rel}: {l}"))
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
