//! The README's first hour, walked through as a reader would: every `sh` block under its
//! heading is run in order in one scratch directory (with `fixtures/` beside it, as in a
//! clone, and `hindsight` the binary under test), every `python` block with the project's
//! Python, and each `text` block after one must appear in what it printed, so the README
//! cannot drift from the tool. A block the test cannot run (it needs the network) says so
//! in a `<!-- not run: why -->` line just before it; any other block that fails fails here.

use std::path::Path;
use std::process::Command;

use crate::support::{bin, have, python, root, Tool};

/// The heading the walk-through sits under; it ends at the next `## ` heading.
const SECTION: &str = "## Your first hour";
/// What marks a block the test does not run, with the reason after it.
const NOT_RUN: &str = "<!-- not run: ";

/// A fenced block of the section: its language, its text, and why it is not run (if so).
#[derive(Debug)]
struct Block {
    lang: String,
    code: String,
    not_run: Option<String>,
}

fn readme() -> String {
    std::fs::read_to_string(root().join("README.md")).expect("README.md")
}

/// The section's text, from its heading to the next `## ` heading.
fn first_hour(text: &str) -> &str {
    let start = text.find(&format!("\n{SECTION}\n")).unwrap_or_else(|| panic!("README.md has no `{SECTION}` heading"));
    let rest = &text[start + SECTION.len() + 2..];
    rest.find("\n## ").map_or(rest, |end| &rest[..end])
}

/// The fenced blocks of `section`, in order, each with the `not run` mark before it.
fn blocks(section: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut lines = section.lines();
    let mut before = "";
    while let Some(line) = lines.next() {
        let Some(lang) = line.strip_prefix("```") else {
            if !line.trim().is_empty() {
                before = line;
            }
            continue;
        };
        let code: Vec<&str> = lines.by_ref().take_while(|l| !l.starts_with("```")).collect();
        let not_run = before.trim().strip_prefix(NOT_RUN).map(|r| {
            let why = r.strip_suffix("-->").unwrap_or_else(|| panic!("`{before}`: the mark ends with `-->`")).trim();
            assert!(!why.is_empty(), "`{before}`: say why the block is not run");
            why.to_string()
        });
        out.push(Block { lang: lang.trim().to_string(), code: code.join("\n") + "\n", not_run });
        before = "";
    }
    out
}

/// Whitespace runs as one space, each line trimmed: a table's padding may differ.
fn normalized(text: &str) -> String {
    text.lines().map(|l| l.split_whitespace().collect::<Vec<_>>().join(" ")).collect::<Vec<_>>().join("\n")
}

/// What a shown-output block asserts: each line (but `...`, which marks a cut) is in `printed`.
fn assert_shown(shown: &str, printed: &str, after: &str) {
    let printed = normalized(printed);
    for line in shown.lines().map(|l| normalized(l)).filter(|l| !l.is_empty() && l != "...") {
        assert!(printed.contains(&line), "the README shows\n  {line}\nafter\n{after}\nbut it printed:\n{printed}");
    }
}

/// Run one block in `dir`: a shell script with `hindsight` on PATH, or Python code; what it
/// printed (standard output, then standard error).
fn run_block(block: &Block, dir: &Path) -> String {
    let bin_dir = bin().parent().expect("the binary's folder").to_path_buf();
    let path = std::env::join_paths(std::iter::once(bin_dir).chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()))).unwrap();
    let mut cmd = match block.lang.as_str() {
        "sh" => {
            let mut c = Command::new("sh");
            c.arg("-ec").arg(&block.code);
            c
        }
        "python" => {
            let mut c = Command::new(python());
            c.arg("-c").arg(&block.code);
            c
        }
        other => panic!("a `{other}` block in the README's first hour: the test runs sh and python blocks and checks text ones"),
    };
    let out = cmd.current_dir(dir).env("PATH", path).env("HOME", dir).env_remove("HINDSIGHT_DATASET").output().unwrap();
    let printed = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "the README's first hour runs\n{}\nwhich failed ({}):\n{printed}", block.code, out.status);
    printed
}

/// Every command of the first hour runs as written and prints what the README shows.
#[test]
fn the_readme_first_hour_runs_as_written() {
    let text = readme();
    let blocks = blocks(first_hour(&text));
    let tmp = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(root().join("fixtures"), tmp.path().join("fixtures")).unwrap();
    let with_python = have(&[Tool::Python]);
    let (mut ran, mut not_run, mut shown) = (0, 0, 0);
    // What the last block printed, and its code; None after a block that was not run.
    let mut last: Option<(String, String)> = None;
    // Whether the last block was Python, skipped here for want of it (its output with it).
    let mut python_skipped = false;
    for block in &blocks {
        if block.lang == "text" {
            let (printed, code) = match &last {
                Some(l) => l,
                None if python_skipped => continue,
                None => panic!("a text block in the first hour follows no block that was run:\n{}", block.code),
            };
            assert_shown(&block.code, printed, code);
            shown += 1;
            continue;
        }
        if let Some(why) = &block.not_run {
            eprintln!("not run ({why}):\n{}", block.code);
            not_run += 1;
            last = None;
            continue;
        }
        python_skipped = block.lang == "python" && !with_python;
        if python_skipped {
            last = None;
            continue;
        }
        last = Some((run_block(block, tmp.path()), block.code.clone()));
        ran += 1;
    }
    assert!(
        ran >= 8 - usize::from(!with_python) && shown >= 7 - usize::from(!with_python),
        "only {ran} blocks run and {shown} outputs checked: is the section `{SECTION}` whole?"
    );
    assert_eq!(not_run, 1, "only the own-study capture, which needs the network, is left unrun");
    assert!(tmp.path().join("rates.svg").is_file() && tmp.path().join("hindsight-out/manifest.json").is_file());
}

/// The mark that leaves a block unrun is read, and a reason is required.
#[test]
fn a_block_is_left_unrun_only_when_marked_with_a_reason() {
    let section = "intro\n\n<!-- not run: needs the network -->\n```sh\ngh api x\n```\n\n```sh\nhindsight run\n```\n";
    let b = blocks(section);
    assert_eq!(b.len(), 2);
    assert_eq!(b[0].not_run.as_deref(), Some("needs the network"));
    assert_eq!((b[1].lang.as_str(), b[1].not_run.as_deref()), ("sh", None));
    let unmarked = std::panic::catch_unwind(|| blocks("<!-- not run: -->\n```sh\nx\n```\n"));
    assert!(unmarked.is_err(), "a mark without a reason is refused");
}

/// The two setup commands lead the README, and they exist as written: the install, and
/// `scripts/test`, which CI (`.ci/run`) calls.
#[test]
fn the_readme_opens_with_the_setup_commands() {
    let text = readme();
    let first = text.split("```sh\n").nth(1).and_then(|b| b.split("```").next()).expect("a first sh block");
    assert!(first.contains("cargo install --locked --path . && hindsight run"), "{first}");
    assert!(first.lines().nth(1).is_some_and(|l| l.starts_with("scripts/test ")), "{first}");
    assert!(text.find(&format!("\n{SECTION}\n")).is_some_and(|at| at > text.find(first).unwrap_or(usize::MAX)), "the setup comes before the first hour");
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(root().join("scripts/test")).unwrap().permissions().mode();
    assert!(mode & 0o111 != 0, "scripts/test must be executable");
    let ci = std::fs::read_to_string(root().join(".ci/run")).unwrap();
    assert!(ci.lines().any(|l| l.trim_start().starts_with("scripts/test")), ".ci/run must call scripts/test");
}

/// Every link of the README points at a file of the repository, and every document in
/// `docs/` is linked from it (the list of where to go next is whole).
#[test]
fn the_readme_links_exist_and_name_every_doc() {
    let text = readme();
    let mut linked = Vec::new();
    for rest in text.split("](").skip(1) {
        let target = rest.split(')').next().unwrap_or_default();
        if target.starts_with("http://") || target.starts_with("https://") || target.starts_with('#') {
            continue;
        }
        let file = target.split('#').next().unwrap_or_default();
        assert!(root().join(file).exists(), "README.md links to {target}, which is not in the repository");
        linked.push(file.to_string());
    }
    // A path written in prose (`docs/X.md`) must exist too.
    for (i, _) in text.match_indices("docs/") {
        let name: String = text[i..].chars().take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '/' | '.' | '_' | '-')).collect();
        let name = name.trim_end_matches('.');
        assert!(root().join(name).exists(), "README.md names {name}, which is not in the repository");
    }
    for entry in std::fs::read_dir(root().join("docs")).unwrap() {
        let name = format!("docs/{}", entry.unwrap().file_name().to_string_lossy());
        if name.ends_with(".md") {
            assert!(linked.contains(&name), "README.md does not link {name}");
        }
    }
}
