//! Packaging: help on every option, completions, the manual page, `--version` with the
//! commit, and the license and citation files agreeing with Cargo.toml.

use std::process::Command;

use clap::CommandFactory;

use crate::hindsight_cli::Cli;
use crate::support::{ok, root};

/// Every command and every argument, built-in ones aside, says what it is for.
#[test]
fn every_command_and_option_has_help() {
    fn walk(cmd: &clap::Command, path: &str, missing: &mut Vec<String>, seen: &mut usize) {
        if cmd.get_about().is_none() && path != "hindsight" {
            missing.push(format!("{path}: the command has no about text"));
        }
        for arg in cmd.get_arguments() {
            let id = arg.get_id().as_str();
            if id == "help" || id == "version" {
                continue;
            }
            *seen += 1;
            if arg.get_help().is_none() && arg.get_long_help().is_none() {
                missing.push(format!("{path} --{}", arg.get_long().unwrap_or(id)));
            }
        }
        for sub in cmd.get_subcommands() {
            if sub.get_name() != "help" {
                walk(sub, &format!("{path} {}", sub.get_name()), missing, seen);
            }
        }
    }
    let cmd = Cli::command();
    cmd.clone().debug_assert();
    let (mut missing, mut seen) = (Vec::new(), 0);
    walk(&cmd, "hindsight", &mut missing, &mut seen);
    assert!(missing.is_empty(), "without help text:\n{}", missing.join("\n"));
    assert!(seen > 60, "only {seen} arguments walked");
    // `report --query` names every bundled query.
    let help = ok(&["report", "--help"], &root());
    for q in hindsight::report::CATALOGUE {
        assert!(help.contains(q.name), "report --help lacks query {}", q.name);
    }
}

#[test]
fn completions_and_manual_pages_cover_every_command() {
    let tmp = tempfile::tempdir().unwrap();
    let names: Vec<String> = Cli::command().get_subcommands().map(|c| c.get_name().to_string()).filter(|n| n != "help").collect();
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let script = ok(&["completions", shell], tmp.path());
        for n in &names {
            assert!(script.contains(n.as_str()), "{shell} completions lack `{n}`");
        }
    }
    assert!(ok(&["completions", "bash"], tmp.path()).contains("complete -F _hindsight"));
    let man = ok(&["man"], tmp.path());
    assert!(man.starts_with(".ie \\n(.g .ds Aq \\(aq") && man.contains(".TH hindsight 1"), "{}", &man[..200.min(man.len())]);
    for n in &names {
        assert!(man.contains(&format!("hindsight\\-{n}(1)")), "the manual page does not list `{n}`");
    }
    ok(&["man", "--dir", "man"], tmp.path());
    for n in &names {
        let page = std::fs::read_to_string(tmp.path().join(format!("man/hindsight-{n}.1"))).unwrap();
        assert!(page.contains(".TH hindsight-"), "{n}");
    }
    let out = crate::support::run(&["completions", "tcsh"], tmp.path());
    assert!(!out.status.success() && String::from_utf8_lossy(&out.stderr).contains("possible values: bash"));
}

/// `--version` names the commit the binary was built from, when built in a git checkout.
#[test]
fn version_names_the_commit() {
    let v = ok(&["--version"], &root());
    let want = format!("hindsight {}", env!("CARGO_PKG_VERSION"));
    assert!(v.starts_with(&want), "{v}");
    let in_git = Command::new("git").args(["-C"]).arg(root()).args(["rev-parse", "--show-toplevel"]).output().is_ok_and(|o| o.status.success());
    if in_git {
        let commit = v.trim().strip_prefix(&format!("{want} (commit ")).and_then(|r| r.strip_suffix(')')).unwrap_or_else(|| panic!("no commit in `{v}`"));
        assert!(commit.len() == 12 && commit.chars().all(|c| c.is_ascii_hexdigit()), "{v}");
        let known = Command::new("git").arg("-C").arg(root()).args(["cat-file", "-e", &format!("{commit}^{{commit}}")]).status().unwrap();
        assert!(known.success(), "{commit} is not a commit of this repository");
    } else {
        assert_eq!(v.trim(), want);
    }
}

#[test]
fn license_and_citation_files_match_cargo_toml() {
    let cargo = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    assert!(cargo.contains("license = \"MIT OR Apache-2.0\""));
    let mit = std::fs::read_to_string(root().join("LICENSE-MIT")).unwrap();
    assert!(mit.starts_with("MIT License") && mit.contains("Permission is hereby granted, free of charge"));
    let apache = std::fs::read_to_string(root().join("LICENSE-APACHE")).unwrap();
    assert!(apache.contains("Apache License") && apache.contains("Version 2.0, January 2004") && apache.contains("END OF TERMS AND CONDITIONS"));
    let cff = std::fs::read_to_string(root().join("CITATION.cff")).unwrap();
    assert!(cff.starts_with("cff-version: 1.2.0\n"));
    assert!(cff.contains(&format!("\nversion: \"{}\"\n", env!("CARGO_PKG_VERSION"))), "CITATION.cff's version is not Cargo.toml's");
    assert!(cff.contains("\nlicense:\n  - MIT\n  - Apache-2.0\n"));
    for key in ["message:", "title:", "authors:", "type: software"] {
        assert!(cff.contains(key), "CITATION.cff lacks {key}");
    }
    let changelog = std::fs::read_to_string(root().join("CHANGELOG.md")).unwrap();
    assert!(changelog.starts_with("# Changelog") && changelog.contains("## [Unreleased]"));
}
