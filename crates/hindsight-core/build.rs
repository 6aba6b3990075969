// `hindsight --version` and the reports name the git commit the crates were built from, when
// built inside the project's own git checkout (a source tarball, or a copy inside another
// repository, has none: the version alone). This crate sits two folders below the root.
use std::path::Path;
use std::process::Command;

fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git").arg("-C").arg(dir).args(args).output().ok()?;
    let s = String::from_utf8(out.stdout).ok()?;
    (out.status.success() && !s.trim().is_empty()).then(|| s.trim().to_string())
}

fn main() {
    println!("cargo:rerun-if-env-changed=HINDSIGHT_COMMIT");
    let version = env!("CARGO_PKG_VERSION");
    let dir = std::env::var("CARGO_MANIFEST_DIR").map(|d| Path::new(&d).join("../..")).unwrap_or_default();
    let commit = std::env::var("HINDSIGHT_COMMIT").ok().filter(|c| !c.is_empty()).or_else(|| {
        // Only this repository's own checkout: not an enclosing one.
        let top = git(&dir, &["rev-parse", "--show-toplevel"])?;
        if std::fs::canonicalize(&top).ok()? != std::fs::canonicalize(&dir).ok()? {
            return None;
        }
        // Rebuild when HEAD moves: HEAD itself and the branch it points to.
        for p in [
            git(&dir, &["rev-parse", "--git-path", "HEAD"]),
            git(&dir, &["symbolic-ref", "-q", "HEAD"]).and_then(|r| git(&dir, &["rev-parse", "--git-path", &r])),
        ]
        .into_iter()
        .flatten()
        {
            let p = dir.join(p);
            if p.exists() {
                println!("cargo:rerun-if-changed={}", p.display());
            }
        }
        git(&dir, &["rev-parse", "--short=12", "HEAD"])
    });
    match commit {
        Some(c) => println!("cargo:rustc-env=HINDSIGHT_VERSION={version} (commit {c})"),
        None => println!("cargo:rustc-env=HINDSIGHT_VERSION={version}"),
    }
}
