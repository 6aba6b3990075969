//! What a changed file is, told by its path alone: one definition for every reader of a PR's
//! files (PR risk, failure categorization, code-quality findings).

/// The file name of `path` (after its last `/`).
pub fn base(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// A test file: below a `test`, `tests`, `__tests__`, `spec`, `specs` or `testdata` folder,
/// or named as test runners find tests (`test_x.py`, `x_test.go`, `x.test.ts`, `x.spec.js`,
/// `x_spec.rb`).
pub fn is_test(path: &str) -> bool {
    let p = path.to_lowercase();
    let b = base(&p).to_string();
    p.split('/').any(|s| matches!(s, "test" | "tests" | "__tests__" | "spec" | "specs" | "testdata"))
        || b.starts_with("test_")
        || b.contains("_test.")
        || b.contains(".test.")
        || b.contains(".spec.")
        || b.ends_with("_spec.rb")
}

/// A lock file a package manager rewrites when a manifest changes.
pub fn is_lock_file(path: &str) -> bool {
    matches!(
        base(path).to_lowercase().as_str(),
        "cargo.lock" | "package-lock.json" | "npm-shrinkwrap.json" | "yarn.lock" | "pnpm-lock.yaml" | "poetry.lock" | "pipfile.lock" | "uv.lock" | "go.sum" | "gemfile.lock" | "composer.lock" | "bun.lockb"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tests_and_lock_files_by_path() {
        for p in ["tests/parse.rs", "src/__tests__/a.ts", "pkg/x_test.go", "test_api.py", "web/a.spec.js", "lib/a_spec.rb"] {
            assert!(is_test(p), "{p}");
        }
        for p in ["src/testing.rs", "src/contest.py", "latest/x.go"] {
            assert!(!is_test(p), "{p}");
        }
        assert!(is_lock_file("web/package-lock.json") && is_lock_file("Cargo.lock") && !is_lock_file("Cargo.toml"));
    }
}
