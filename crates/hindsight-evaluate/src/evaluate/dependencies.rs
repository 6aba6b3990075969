//! New external dependencies, told from updated ones by a dependency manifest's diff (the
//! `patch` of `pulls/N/files`): npm `package.json`, Cargo `Cargo.toml`, pip
//! `requirements*.txt`, `pyproject.toml` (PEP 621 and Poetry), Go `go.mod`, Maven `pom.xml`,
//! Gradle `build.gradle(.kts)`.
//!
//! ## What it checks
//! Each dependency named on a line the patch adds or removes: named on added lines only, it
//! is **added**; on removed lines only, **removed**; on both, its version or constraint
//! **changed** (a bump, a downgrade or a loosened constraint: the diff says it moved, not
//! which way). A dependency is known by its name in the manifest's own terms: the package,
//! crate or module path; `group:artifact` for Maven and Gradle.
//!
//! ## Why
//! The evaluation pipeline's high risk names "new dependencies": a version bump of a package
//! already there is a smaller change than a package the repository never ran. A lock file
//! says little a reviewer reads, and a manifest without its patch cannot be told apart: then
//! `None`, and the risk says the manifest changed without guessing which.
//!
//! ## Example
//! `+    "after": "0.8.2",` in `devDependencies` of `package.json` (expressjs/cors
//! 61f1e81) adds `after`; `-thiserror = "1.0.45"` / `+thiserror = "2"` in `Cargo.toml`
//! (dtolnay/anyhow 3ca2cdd) changes `thiserror`.

use std::collections::BTreeMap;

/// What a manifest's patch did to its dependencies, names sorted.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct DependencyDiff {
    pub(crate) added: Vec<String>,
    pub(crate) changed: Vec<String>,
    pub(crate) removed: Vec<String>,
}

/// The manifests read, by file name (lower case).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Manifest {
    Npm,
    Cargo,
    Requirements,
    Pyproject,
    GoMod,
    Maven,
    Gradle,
}

fn manifest(path: &str) -> Option<Manifest> {
    let b = hindsight_core::files::base(path).to_ascii_lowercase();
    Some(match b.as_str() {
        "package.json" => Manifest::Npm,
        "cargo.toml" => Manifest::Cargo,
        "pyproject.toml" => Manifest::Pyproject,
        "go.mod" => Manifest::GoMod,
        "pom.xml" => Manifest::Maven,
        "build.gradle" | "build.gradle.kts" => Manifest::Gradle,
        _ if b.starts_with("requirements") && b.ends_with(".txt") => Manifest::Requirements,
        _ => return None,
    })
}

/// What `patch` does to the dependencies of manifest `path`; `None` for a file that is no
/// manifest read here.
pub(crate) fn diff(path: &str, patch: &str) -> Option<DependencyDiff> {
    let kind = manifest(path)?;
    // Name -> (on an added line, on a removed line).
    let mut seen: BTreeMap<String, (bool, bool)> = BTreeMap::new();
    let mut note = |name: String, marker: char| {
        let e = seen.entry(name).or_default();
        if marker == '+' {
            e.0 = true;
        } else {
            e.1 = true;
        }
    };
    for hunk in hunks(patch) {
        match kind {
            Manifest::Maven => maven(&hunk, &mut note),
            _ => {
                let mut section = Section::Unknown;
                for (marker, line) in &hunk {
                    section = section.after(kind, line);
                    if *marker == ' ' {
                        continue;
                    }
                    if let Some(name) = dependency_on(kind, section, line) {
                        note(name, *marker);
                    }
                }
            }
        }
    }
    let mut d = DependencyDiff::default();
    for (name, (plus, minus)) in seen {
        match (plus, minus) {
            (true, true) => d.changed.push(name),
            (true, false) => d.added.push(name),
            _ => d.removed.push(name),
        }
    }
    Some(d)
}

/// A patch's hunks (as the quality rules read patches), each its lines as (marker, text):
/// `+`, `-` or ` ` (context).
fn hunks(patch: &str) -> Vec<Vec<(char, &str)>> {
    use super::quality::patch::Side;
    let marker = |side| match side {
        Side::Added => '+',
        Side::Removed => '-',
        Side::Context => ' ',
    };
    super::quality::patch::hunks(patch).into_iter().map(|h| h.lines.into_iter().map(|l| (marker(l.side), l.text)).collect()).collect()
}

/// Where in the manifest a hunk's line is, as far as the hunk shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Section {
    /// No section header seen in the hunk yet.
    Unknown,
    Dependencies,
    Other,
}

impl Section {
    /// The section after `line` (a header changes it; another line keeps it).
    fn after(self, kind: Manifest, line: &str) -> Section {
        let t = line.trim();
        match kind {
            Manifest::Npm => {
                if let Some(key) = t.strip_prefix('"').and_then(|r| r.split_once('"')).filter(|(_, rest)| rest.trim_start().starts_with(':') && rest.trim_end().ends_with('{')) {
                    return if key.0.to_ascii_lowercase().ends_with("dependencies") { Section::Dependencies } else { Section::Other };
                }
                self
            }
            Manifest::Cargo | Manifest::Pyproject if t.starts_with('[') && t.ends_with(']') && !t.contains('"') => {
                let name = t.trim_matches(|c| c == '[' || c == ']').to_ascii_lowercase();
                let deps = name.split('.').any(|s| s.ends_with("dependencies"));
                if deps {
                    Section::Dependencies
                } else {
                    Section::Other
                }
            }
            _ => self,
        }
    }
}

/// Keys of `package.json` and `Cargo.toml` outside dependency sections that look like
/// `name = "version"`: when the hunk shows no section header, they are not dependencies.
const NOT_DEPENDENCIES: &[&str] = &[
    "version", "name", "node", "npm", "yarn", "pnpm", "edition", "rust-version", "license", "description", "readme", "resolver", "main", "module", "types",
    "typings", "homepage", "repository", "documentation", "authors", "author", "build", "links", "publish", "packagemanager", "python", "requires-python",
];

/// Whether a manifest value reads as a version or a source of one.
fn version_like(v: &str) -> bool {
    let v = v.trim();
    v.starts_with(|c: char| c.is_ascii_digit() || matches!(c, '^' | '~' | '>' | '<' | '=' | '*'))
        || ["workspace:", "npm:", "file:", "git", "github:", "link:", "latest", "x"].iter().any(|p| v.starts_with(p))
}

/// The dependency a line names, in its manifest's terms.
fn dependency_on(kind: Manifest, section: Section, line: &str) -> Option<String> {
    let t = line.trim();
    if t.is_empty() || t.starts_with('#') || t.starts_with("//") {
        return None;
    }
    let guarded = |key: &str| section == Section::Dependencies || (section == Section::Unknown && !NOT_DEPENDENCIES.contains(&key.to_ascii_lowercase().as_str()));
    match kind {
        Manifest::Npm => {
            let (key, rest) = t.strip_prefix('"')?.split_once('"')?;
            let value = rest.trim_start().strip_prefix(':')?.trim().trim_end_matches(',').trim();
            let value = value.strip_prefix('"')?.strip_suffix('"')?;
            (section != Section::Other && guarded(key) && version_like(value)).then(|| key.to_string())
        }
        Manifest::Cargo => {
            let (key, value) = t.split_once('=')?;
            let key = key.trim().trim_matches('"');
            let value = value.trim();
            let is_dep_value = value.starts_with('{') || value.strip_prefix('"').is_some_and(version_like);
            let plain = key.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
            (section != Section::Other && plain && guarded(key) && is_dep_value).then(|| key.to_string())
        }
        Manifest::Requirements => requirement(t),
        Manifest::Pyproject => {
            // PEP 621 array entries ("anyio>=3,<5",), else Poetry's `name = "^1.2"` in a dependencies table.
            if let Some(inner) = t.trim_end_matches(',').trim().strip_prefix('"').and_then(|r| r.strip_suffix('"')) {
                return requirement(inner);
            }
            let (key, value) = t.split_once('=')?;
            let key = key.trim();
            (section == Section::Dependencies && key != "python" && !value.trim().starts_with('[') && key.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c)))
                .then(|| normalize_python(key))
        }
        Manifest::GoMod => {
            let t = t.strip_prefix("require").map(str::trim).unwrap_or(t);
            let mut words = t.split_whitespace();
            let (module, version) = (words.next()?, words.next()?);
            (module.contains('.') && version.starts_with('v') && !["module", "go", "replace", "exclude", "retract", "toolchain"].contains(&module)).then(|| module.to_string())
        }
        Manifest::Gradle => gradle_coordinate(t),
        Manifest::Maven => None,
    }
}

/// A pip requirement's project name (normalized: lower case, `_` and `.` as `-`).
fn requirement(t: &str) -> Option<String> {
    if t.starts_with('-') || t.contains("://") {
        return None;
    }
    let end = t.find(|c: char| !(c.is_ascii_alphanumeric() || "-_.".contains(c))).unwrap_or(t.len());
    let (name, rest) = t.split_at(end);
    let rest = rest.trim_start();
    let fits = rest.is_empty() || rest.starts_with(['[', '<', '>', '=', '!', '~', ';', '@']);
    (!name.is_empty() && name.starts_with(|c: char| c.is_ascii_alphanumeric()) && fits).then(|| normalize_python(name))
}

fn normalize_python(name: &str) -> String {
    name.to_ascii_lowercase().replace(['_', '.'], "-")
}

/// `group:artifact` of the first quoted `group:artifact[:version]` coordinate on a line.
fn gradle_coordinate(t: &str) -> Option<String> {
    for quote in ['\'', '"'] {
        for quoted in t.split(quote).skip(1).step_by(2) {
            let parts: Vec<&str> = quoted.split(':').collect();
            let word = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c));
            if (2..=4).contains(&parts.len()) && word(parts[0]) && word(parts[1]) && parts[0].contains('.') {
                return Some(format!("{}:{}", parts[0], parts[1]));
            }
        }
    }
    None
}

/// Maven: `<dependency>` elements of a hunk. One whose `artifactId` line is added is added
/// (removed, removed); one whose `<version>` lines are both added and removed changed. An
/// element the hunk shows no opening of counts only when the hunk closes it
/// (`</dependency>`), so the project's own version is never read as a dependency's.
fn maven(hunk: &[(char, &str)], note: &mut impl FnMut(String, char)) {
    let tag = |line: &str, name: &str| -> Option<String> {
        let open = format!("<{name}>");
        let rest = line.trim().strip_prefix(&open)?;
        Some(rest.split("</").next()?.trim().to_string())
    };
    let (mut group, mut artifact): (Option<String>, Option<(char, String)>) = (None, None);
    let mut versions: Vec<char> = Vec::new();
    for (marker, line) in hunk {
        let t = line.trim();
        if t.starts_with("<dependency>") {
            (group, artifact, versions) = (None, None, Vec::new());
        } else if let Some(g) = tag(t, "groupId") {
            group = Some(g);
        } else if let Some(a) = tag(t, "artifactId") {
            artifact = Some((*marker, a));
        } else if tag(t, "version").is_some() {
            versions.push(*marker);
        } else if t.starts_with("</dependency>") {
            if let (Some(g), Some((m, a))) = (&group, &artifact) {
                let name = format!("{g}:{a}");
                match m {
                    '+' | '-' => note(name, *m),
                    _ if versions.contains(&'+') && versions.contains(&'-') => {
                        note(name.clone(), '+');
                        note(name, '-');
                    }
                    _ => {}
                }
            }
            (group, artifact, versions) = (None, None, Vec::new());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    /// Real manifest diffs from public repositories, verbatim (fixtures/real/manifest-diffs,
    /// sources in its README), against what a careful reader of each diff names as added,
    /// changed and removed (that README's columns).
    #[test]
    fn real_manifest_diffs_read_as_a_reader_reads_them() {
        macro_rules! real {
            ($file:literal) => {
                include_str!(concat!("../../../../fixtures/real/manifest-diffs/", $file))
            };
        }
        let cases: &[(&str, &str, &[&str], &[&str], &[&str])] = &[
            ("package.json", real!("npm-added.patch"), &["after"], &[], &[]),
            ("package.json", real!("npm-bumped.patch"), &[], &["express"], &[]),
            ("Cargo.toml", real!("cargo-added.patch"), &["backtrace"], &[], &[]),
            ("Cargo.toml", real!("cargo-added-dev.patch"), &["syn"], &[], &[]),
            ("Cargo.toml", real!("cargo-bumped.patch"), &[], &["thiserror"], &[]),
            ("go.mod", real!("go-added.patch"), &["github.com/mitchellh/go-homedir", "github.com/spf13/viper"], &[], &[]),
            ("go.mod", real!("go-bumped.patch"), &[], &["github.com/cpuguy83/go-md2man/v2"], &[]),
            ("go.mod", real!("go-added-and-removed.patch"), &["github.com/charlievieth/fastwalk"], &[], &["github.com/saracen/walker", "golang.org/x/sync"]),
            ("requirements.txt", real!("pip-added.patch"), &["importlib-metadata"], &[], &[]),
            ("requirements.txt", real!("pip-bumped.patch"), &[], &["pytest"], &[]),
            ("pyproject.toml", real!("pyproject-added.patch"), &["zstandard"], &[], &[]),
            ("pyproject.toml", real!("pyproject-bumped.patch"), &[], &["httpcore"], &[]),
            ("pyproject.toml", real!("pyproject-added-and-changed.patch"), &["anyio"], &["httpcore"], &[]),
            ("pom.xml", real!("maven-added.patch"), &["com.google.re2j:re2j"], &[], &[]),
            ("pom.xml", real!("maven-bumped.patch"), &[], &["com.google.code.gson:gson"], &[]),
            ("build.gradle", real!("gradle-added.patch"), &["com.google.auto.service:auto-service", "com.google.auto.service:auto-service-annotations"], &[], &[]),
            ("build.gradle", real!("gradle-bumped.patch"), &[], &["org.jetbrains:annotations"], &[]),
            ("build.gradle", real!("gradle-added-and-downgraded.patch"), &["org.jetbrains.dokka:dokka-gradle-plugin"], &["com.vanniktech:gradle-maven-publish-plugin"], &[]),
        ];
        for (path, patch, added, changed, removed) in cases {
            let want = DependencyDiff { added: names(added), changed: names(changed), removed: names(removed) };
            assert_eq!(diff(path, patch).as_ref(), Some(&want), "{path}:\n{patch}");
        }
    }

    #[test]
    fn sections_decide_when_the_hunk_shows_them() {
        let npm = "@@ -1,6 +1,7 @@\n   \"version\": \"1.0.0\",\n-  \"main\": \"a.js\",\n+  \"main\": \"b.js\",\n   \"dependencies\": {\n+    \"left-pad\": \"^1.3.0\",\n     \"vary\": \"^1\"";
        assert_eq!(diff("package.json", npm).unwrap(), DependencyDiff { added: names(&["left-pad"]), ..Default::default() });
        let cargo = "@@ -1,4 +1,4 @@\n [package]\n-version = \"0.1.0\"\n+version = \"0.2.0\"\n edition = \"2021\"";
        assert_eq!(diff("Cargo.toml", cargo).unwrap(), DependencyDiff::default());
        assert_eq!(diff("Gemfile", "+gem 'rails'"), None);
    }
}
