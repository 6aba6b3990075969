//! Line coverage reports a run uploaded: LCOV (`lcov.info`) and Cobertura XML
//! (`coverage.xml`, `cobertura.xml`, `cobertura-coverage.xml`), read into which lines of
//! each source file ran (hits above 0) and which did not. A line a report does not list is
//! not instrumented: neither covered nor uncovered.
//!
//! Cobertura is read by its elements alone (`<source>`, `<class filename=..>`, `<line
//! number=.. hits=..>`), without a general XML reader: the reports are machine-written, and
//! only these attributes are needed.

use std::collections::BTreeMap;

/// A report's format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CoverageFormat {
    Lcov,
    Cobertura,
}

impl CoverageFormat {
    pub fn as_str(self) -> &'static str {
        match self {
            CoverageFormat::Lcov => "lcov",
            CoverageFormat::Cobertura => "cobertura",
        }
    }

    /// The format of a report file, by its name.
    pub fn of_name(name: &str) -> Option<CoverageFormat> {
        let n = name.to_ascii_lowercase();
        if n.ends_with(".info") || n.ends_with(".lcov") {
            Some(CoverageFormat::Lcov)
        } else if n.ends_with(".xml") {
            Some(CoverageFormat::Cobertura)
        } else {
            None
        }
    }
}

/// One source file's lines in a report, each list ascending.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileLines {
    pub path: String,
    pub covered: Vec<u32>,
    pub uncovered: Vec<u32>,
}

/// A report's files, by path.
pub type Report = Vec<FileLines>;

/// Read `text` as a report of `format`; why not, when it is none.
pub fn parse(format: CoverageFormat, text: &str) -> Result<Report, String> {
    let mut files: BTreeMap<String, BTreeMap<u32, u64>> = BTreeMap::new();
    match format {
        CoverageFormat::Lcov => lcov(text, &mut files)?,
        CoverageFormat::Cobertura => cobertura(text, &mut files)?,
    }
    if files.is_empty() {
        return Err(format!("no source file with line counts in this {} report", format.as_str()));
    }
    Ok(files
        .into_iter()
        .map(|(path, lines)| {
            let (covered, uncovered): (Vec<(u32, u64)>, Vec<(u32, u64)>) = lines.into_iter().partition(|(_, hits)| *hits > 0);
            FileLines { path, covered: covered.into_iter().map(|(l, _)| l).collect(), uncovered: uncovered.into_iter().map(|(l, _)| l).collect() }
        })
        .collect())
}

/// Hits of a line seen twice (two test runs merged into one report) add up.
fn count(files: &mut BTreeMap<String, BTreeMap<u32, u64>>, path: &str, line: u32, hits: u64) {
    *files.entry(path.to_string()).or_default().entry(line).or_default() += hits;
}

fn lcov(text: &str, files: &mut BTreeMap<String, BTreeMap<u32, u64>>) -> Result<(), String> {
    let mut current: Option<String> = None;
    for (k, line) in text.lines().enumerate() {
        let line = line.trim();
        if let Some(path) = line.strip_prefix("SF:") {
            current = Some(path.to_string());
        } else if let Some(rest) = line.strip_prefix("DA:") {
            let path = current.as_deref().ok_or_else(|| format!("line {}: DA before any SF", k + 1))?;
            let mut parts = rest.split(',');
            let n = parts.next().and_then(|x| x.trim().parse::<u32>().ok());
            let hits = parts.next().and_then(|x| x.trim().parse::<f64>().ok());
            match (n, hits) {
                (Some(n), Some(h)) if h >= 0.0 => count(files, path, n, h as u64),
                _ => return Err(format!("line {}: `DA:{rest}` is not `DA:<line>,<hits>`", k + 1)),
            }
        } else if line == "end_of_record" {
            current = None;
        }
    }
    Ok(())
}

/// The value of attribute `name` in an element's text (`name="v"` or `name='v'`).
fn attr<'a>(element: &'a str, name: &str) -> Option<&'a str> {
    let mut from = 0;
    while let Some(at) = element[from..].find(name) {
        let start = from + at;
        let before_ok = element[..start].ends_with(char::is_whitespace);
        let rest = element[start + name.len()..].trim_start();
        if let (true, Some(rest)) = (before_ok, rest.strip_prefix('=')) {
            let rest = rest.trim_start();
            let quote = rest.chars().next()?;
            if quote == '"' || quote == '\'' {
                return rest[1..].split(quote).next();
            }
        }
        from = start + name.len();
    }
    None
}

fn cobertura(text: &str, files: &mut BTreeMap<String, BTreeMap<u32, u64>>) -> Result<(), String> {
    if !text.contains("<coverage") {
        return Err("no <coverage> element: not a Cobertura report".into());
    }
    // Paths in a report are relative to its first <source> (made relative to the
    // repository when matched against a PR's files, by suffix).
    let mut class: Option<String> = None;
    for piece in text.split('<').skip(1) {
        let element = piece.split('>').next().unwrap_or("");
        if element.starts_with("class ") || element.starts_with("class\t") {
            class = attr(element, "filename").map(str::to_string);
        } else if element.starts_with("/class") {
            class = None;
        } else if element.starts_with("line ") {
            let Some(path) = class.as_deref() else { continue };
            let n = attr(element, "number").and_then(|v| v.parse::<u32>().ok());
            let hits = attr(element, "hits").and_then(|v| v.parse::<f64>().ok());
            match (n, hits) {
                (Some(n), Some(h)) if h >= 0.0 => count(files, path, n, h as u64),
                _ => return Err(format!("<{element}> has no line number and hit count")),
            }
        }
    }
    Ok(())
}

/// Lines as ranges (`1-4,9`), ascending.
pub fn ranges(lines: &[u32]) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut k = 0;
    while k < lines.len() {
        let start = lines[k];
        let mut end = start;
        while k + 1 < lines.len() && lines[k + 1] == end + 1 {
            k += 1;
            end = lines[k];
        }
        out.push(if start == end { start.to_string() } else { format!("{start}-{end}") });
        k += 1;
    }
    out.join(",")
}

/// [`ranges`] read back.
pub fn from_ranges(text: &str) -> Vec<u32> {
    let mut out = Vec::new();
    for part in text.split(',').filter(|p| !p.is_empty()) {
        match part.split_once('-') {
            Some((a, b)) => {
                if let (Ok(a), Ok(b)) = (a.parse::<u32>(), b.parse::<u32>()) {
                    out.extend(a..=b);
                }
            }
            None => out.extend(part.parse::<u32>().ok()),
        }
    }
    out
}

/// Whether report path `reported` names repository file `file`: the same path, or one
/// ending in `/file` (reports often hold absolute or build-root paths), `\` read as `/`.
pub fn names(reported: &str, file: &str) -> bool {
    let r = reported.replace('\\', "/");
    let f = file.trim_start_matches("./");
    r == f || r.ends_with(&format!("/{f}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_round_trip() {
        let lines = [1, 2, 3, 4, 9, 11, 12];
        assert_eq!(ranges(&lines), "1-4,9,11-12");
        assert_eq!(from_ranges(&ranges(&lines)), lines);
        assert!(names("/home/ci/src/app/a.py", "app/a.py") && names("f:\\web\\lib\\x.js", "lib/x.js") && !names("/src/xapp/a.py", "app/a.py"));
    }

    /// Real reports from public repositories, verbatim (fixtures/real/coverage, sources in
    /// its README), read for the lines a reader of each names.
    #[test]
    fn real_reports_read_as_a_reader_reads_them() {
        macro_rules! real {
            ($file:literal) => {
                include_str!(concat!("../../../fixtures/real/coverage/", $file))
            };
        }
        let covered = |report: &Report, file: &str, line: u32| -> Option<bool> {
            let f = report.iter().find(|f| names(&f.path, file))?;
            if f.covered.contains(&line) {
                Some(true)
            } else if f.uncovered.contains(&line) {
                Some(false)
            } else {
                None
            }
        };
        let yui = parse(CoverageFormat::Lcov, real!("lcov-parse-yui-parts.info")).unwrap();
        assert_eq!(covered(&yui, "anim-base/anim-base-coverage.js", 67), Some(true));
        assert_eq!(covered(&yui, "anim-base/anim-base-coverage.js", 113), Some(false));
        assert_eq!(covered(&yui, "anim-base/anim-base-coverage.js", 136), Some(false));
        assert_eq!(covered(&yui, "javascript/common.js", 4), Some(true));
        assert_eq!(covered(&yui, "javascript/common.js", 7), Some(false));
        assert_eq!(covered(&yui, "javascript/common.js", 6), None);
        let win = parse(CoverageFormat::Lcov, real!("lcov-result-merger-windows.info")).unwrap();
        assert_eq!(covered(&win, "tasks/lib/lcov-merge.js", 20), Some(true));
        assert_eq!(covered(&win, "tasks/lib/lcov-merge.js", 43), Some(true));
        assert_eq!(covered(&win, "tasks/lib/lcov-merge.js", 11), None);
        let py = parse(CoverageFormat::Cobertura, real!("pycobertura-coveragepy-3.7.1.xml")).unwrap();
        assert_eq!((covered(&py, "dummy/dummy.py", 1), covered(&py, "dummy/dummy.py", 5), covered(&py, "dummy/dummy4.py", 4)), (Some(true), Some(false), Some(false)));
        let coffee = parse(CoverageFormat::Cobertura, real!("pycobertura-istanbul-coffeescript.xml")).unwrap();
        assert_eq!((covered(&coffee, "app.coffee", 7), covered(&coffee, "app.coffee", 10), covered(&coffee, "app.coffee", 9)), (Some(true), Some(false), None));
        let action = parse(CoverageFormat::Cobertura, real!("cobertura-action-coveragepy-4.0.3.xml")).unwrap();
        assert_eq!((covered(&action, "source.py", 12), covered(&action, "source.py", 13), covered(&action, "source.py", 14)), (Some(true), Some(false), None));
        assert!(parse(CoverageFormat::Cobertura, "<html></html>").is_err());
        assert!(parse(CoverageFormat::Lcov, "DA:1,1\n").is_err());
    }
}
