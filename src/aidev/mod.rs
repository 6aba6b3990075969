//! `hindsight import aidev`: the AIDev dataset of agent pull requests (Li, Zhang and
//! Hassan, "The Rise of AI Teammates in Software Engineering (SE) 3.0", arXiv 2507.15003).
//!
//! The layout is one folder per agent (`Claude_Code`, `Copilot`, `Cursor`, `Devin`,
//! `OpenAI_Codex`) plus `Human`, the baseline, each holding some of the CSV tables in
//! [`SOURCES`]. Every table found becomes an `aidev_*` table of the dataset, typed, one row
//! per CSV record, with the folder it came from (`agent`) and the line it starts on
//! (`source_line`). A CSV record that cannot be typed (a wrong field count, invalid UTF-8,
//! an id that is not an integer, a time that is not RFC 3339) goes to the quarantine with
//! its file, line, field and raw text; a table the layout lacks is reported and recorded
//! in the manifest (`absent`), and the import goes on.
//!
//! Each agent PR also becomes what hindsight evaluates everywhere else (see [`study`]): a
//! `create_pull_request` safe output of the workflow named after the agent, and the
//! captures a snapshot would hold of it (the PR, its reviews, comments, commits and
//! timeline), so `evaluate` and the dashboard apply unchanged.

pub mod study;

use std::collections::BTreeMap;
use std::path::Path;

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::inputs::InputFile;
use crate::quarantine::Quarantined;
use crate::table::{Cell, Kind, Table};

/// The agents of the layout, in the order they are read.
pub const AGENTS: &[&str] = &["Claude_Code", "Copilot", "Cursor", "Devin", "OpenAI_Codex"];
/// The human baseline group.
pub const BASELINE: &str = "Human";
/// The name of this input in the manifest and the quarantine.
pub const INPUT: &str = "aidev";

/// One CSV table of the layout and the dataset table it becomes.
#[derive(Debug)]
pub struct Source {
    pub file: &'static str,
    pub table: &'static str,
    /// Columns the header must hold, with their type. Empty fields are null.
    pub columns: &'static [(&'static str, Kind)],
}

use Kind::{Int as I, Str as S, Time as T};

pub const PRS: &str = "prs.csv";

pub const SOURCES: &[Source] = &[
    Source {
        file: PRS,
        table: "aidev_pull_requests",
        columns: &[
            ("id", I),
            ("number", I),
            ("title", S),
            ("user", S),
            ("user_id", I),
            ("state", S),
            ("created_at", T),
            ("closed_at", T),
            ("merged_at", T),
            ("repo_url", S),
            ("html_url", S),
            ("body", S),
        ],
    },
    Source { file: "pr_reviews.csv", table: "aidev_reviews", columns: &[("pr_id", I), ("id", I), ("user", S), ("state", S), ("submitted_at", T), ("body", S)] },
    Source { file: "pr_comments.csv", table: "aidev_comments", columns: &[("pr_id", I), ("id", I), ("user", S), ("created_at", T), ("body", S)] },
    Source { file: "pr_commits.csv", table: "aidev_commits", columns: &[("pr_id", I), ("sha", S), ("author", S), ("committer", S), ("message", S)] },
    Source {
        file: "pr_timelines.csv",
        table: "aidev_pr_timeline",
        columns: &[("pr_id", I), ("event", S), ("created_at", T), ("actor", S), ("commit_id", S), ("assignee", S), ("label", S), ("message", S)],
    },
    Source {
        file: "issues.csv",
        table: "aidev_issues",
        columns: &[
            ("id", I),
            ("number", I),
            ("title", S),
            ("user", S),
            ("user_id", I),
            ("state", S),
            ("created_at", T),
            ("closed_at", T),
            ("repo_url", S),
            ("html_url", S),
            ("body", S),
        ],
    },
    Source {
        file: "issue_timelines.csv",
        table: "aidev_issue_timeline",
        columns: &[("issue_id", S), ("event", S), ("created_at", T), ("actor", S), ("commit_id", S), ("assignee", S), ("label", S), ("message", S)],
    },
    Source {
        file: "related_issues.csv",
        table: "aidev_related_issues",
        columns: &[("agent", S), ("pr_id", I), ("pr_number", I), ("repo_url", S), ("pr_url", S), ("issue_url", S), ("issue_number", I), ("source", S)],
    },
    Source {
        file: "post_pr_issues.csv",
        table: "aidev_post_pr_issues",
        columns: &[("agent", S), ("pr_id", I), ("pr_number", I), ("repo_url", S), ("pr_url", S), ("issue_url", S), ("issue_number", I), ("created_at", T)],
    },
    Source {
        file: "prs_without_issues.csv",
        table: "aidev_prs_without_issues",
        columns: &[("agent", S), ("pr_id", I), ("pr_number", I), ("repo_url", S), ("pr_url", S)],
    },
    Source {
        file: "repo_metadata.csv",
        table: "aidev_repositories",
        columns: &[("url", S), ("id", I), ("full_name", S), ("language", S), ("forks", I), ("stars", I), ("open_issues", I)],
    },
    Source {
        file: "developer_metadata.csv",
        table: "aidev_developers",
        columns: &[
            ("login", S),
            ("id", I),
            ("name", S),
            ("company", S),
            ("location", S),
            ("email", S),
            ("followers", I),
            ("following", I),
            ("public_repos", I),
            ("created_at", T),
        ],
    },
    Source { file: "gpt_conventional_commits.csv", table: "aidev_task_types", columns: &[("agent", S), ("id", I), ("title", S), ("reason", S), ("type", S)] },
];

pub fn source(file: &str) -> Option<&'static Source> {
    SOURCES.iter().find(|s| s.file == file)
}

impl Source {
    /// The dataset table's columns: the folder, the CSV's columns (a CSV column named
    /// `agent` is kept as `recorded_agent`), and the line the record starts on.
    pub fn schema(&self) -> Vec<(&'static str, Kind)> {
        let mut cols = vec![("agent", S)];
        cols.extend(self.columns.iter().map(|&(n, k)| (if n == "agent" { "recorded_agent" } else { n }, k)));
        cols.push(("source_line", I));
        cols
    }

    /// The position of column `name` in a row of [`Records::rows`].
    pub fn col(&self, name: &str) -> usize {
        // Columns are fixed in code; a wrong name is a programming error the tests catch.
        self.columns.iter().position(|(n, _)| *n == name).unwrap_or_else(|| panic!("{} has no column `{name}`", self.file))
    }
}

/// The typed records of one CSV file.
#[derive(Debug)]
pub struct Records {
    pub agent: &'static str,
    pub source: &'static Source,
    /// One row per usable record, in [`Source::columns`] order.
    pub rows: Vec<Vec<Cell>>,
    /// The 1-based line each row starts on.
    pub lines: Vec<usize>,
    /// Header columns the layout does not define (kept in the file, not imported).
    pub extra_columns: Vec<String>,
}

/// Everything read from an AIDev directory.
#[derive(Debug, Default)]
pub struct Read {
    pub tables: Vec<Records>,
    pub files: Vec<InputFile>,
    pub quarantined: Vec<Quarantined>,
    /// Tables of the layout no folder has, as `Agent/file.csv`.
    pub absent: Vec<String>,
    /// Files and folders that are not part of the layout.
    pub skipped: Vec<crate::inputs::Skipped>,
    /// Records read = used + quarantined.
    pub records: usize,
    pub used: usize,
}

impl Read {
    /// The records of `file` in `agent`'s folder, if that table was present.
    pub fn of(&self, agent: &str, file: &str) -> Option<&Records> {
        self.tables.iter().find(|r| r.agent == agent && r.source.file == file)
    }
}

fn agent_name(name: &str) -> Option<&'static str> {
    AGENTS.iter().chain(std::iter::once(&BASELINE)).find(|a| **a == name).copied()
}

/// Read every table of the layout under `dir`.
pub fn read(dir: &Path) -> Result<Read> {
    if !dir.is_dir() {
        return Err(Error::Layout { path: dir.to_path_buf(), message: "expected the AIDev directory (Claude_Code/, Copilot/, ..., Human/)".into() });
    }
    let mut out = Read::default();
    let mut jobs: Vec<(&'static str, &'static Source)> = Vec::new();
    let mut found_any = false;
    for agent in AGENTS.iter().chain(std::iter::once(&BASELINE)) {
        let folder = dir.join(agent);
        if !folder.is_dir() {
            out.absent.push(format!("{agent}/"));
            continue;
        }
        found_any = true;
        for s in SOURCES {
            if folder.join(s.file).exists() {
                jobs.push((agent, s));
            } else {
                out.absent.push(format!("{agent}/{}", s.file));
            }
        }
    }
    if !found_any {
        let names: Vec<&str> = AGENTS.iter().chain(std::iter::once(&BASELINE)).copied().collect();
        return Err(Error::Layout { path: dir.to_path_buf(), message: format!("no agent folder found (expected some of {})", names.join(", ")) });
    }
    out.skipped = unknown_entries(dir)?;
    let parsed: Vec<Result<(Records, InputFile, Vec<Quarantined>)>> = jobs.par_iter().map(|(agent, s)| read_csv(dir, agent, s)).collect();
    for p in parsed {
        let (records, file, quarantined) = p?;
        out.records += file.records;
        out.used += records.rows.len();
        out.quarantined.extend(quarantined);
        out.files.push(file);
        out.tables.push(records);
    }
    out.files.sort_by(|a, b| a.path.cmp(&b.path));
    out.quarantined.sort();
    Ok(out)
}

/// Files and folders under `dir` that are not a table of the layout.
fn unknown_entries(dir: &Path) -> Result<Vec<crate::inputs::Skipped>> {
    let mut out = Vec::new();
    for rel in crate::inputs::walk(dir)? {
        let (folder, file) = rel.split_once('/').unwrap_or(("", rel.as_str()));
        let known = agent_name(folder).is_some() && !file.contains('/') && source(file).is_some();
        if !known {
            let reason = if folder.is_empty() {
                "not an agent folder: AIDev keeps its tables in Claude_Code/, Copilot/, Cursor/, Devin/, OpenAI_Codex/ and Human/".to_string()
            } else if agent_name(folder).is_none() {
                format!("`{folder}` is not an agent of the layout")
            } else {
                let files: Vec<&str> = SOURCES.iter().map(|s| s.file).collect();
                format!("not a table of the layout ({})", files.join(", "))
            };
            out.push(crate::inputs::Skipped { input: INPUT.into(), path: rel, reason });
        }
    }
    Ok(out)
}

/// Read one CSV file: a header naming at least the source's columns, then records
/// (RFC 4180: quoted fields may hold commas, quotes and line breaks).
fn read_csv(dir: &Path, agent: &'static str, s: &'static Source) -> Result<(Records, InputFile, Vec<Quarantined>)> {
    let rel = format!("{agent}/{}", s.file);
    let path = dir.join(&rel);
    if let Some(why) = crate::inputs::refusal(dir, &path, INPUT) {
        let q = Quarantined::new(INPUT, &rel, None, None, why, "");
        let empty = Records { agent, source: s, rows: Vec::new(), lines: Vec::new(), extra_columns: Vec::new() };
        return Ok((empty, InputFile::refused(INPUT, rel), vec![q]));
    }
    let bytes = crate::inputs::read_regular(&path)?;
    let body = crate::inputs::strip_bom(&bytes);
    let mut reader = csv::ReaderBuilder::new().has_headers(true).flexible(true).from_reader(body);
    let header = reader.byte_headers().map_err(|e| csv_error(&path, &e))?.clone();
    let names: Vec<String> = header.iter().map(|h| String::from_utf8_lossy(h).trim().to_string()).collect();
    // A header without a column the layout defines: every record of the file is
    // quarantined with that reason (none is guessed at), and the import goes on.
    let mut index = Vec::with_capacity(s.columns.len());
    let mut header_problem = None;
    for (name, _) in s.columns {
        match names.iter().position(|n| n == name) {
            Some(i) => index.push(i),
            None => {
                header_problem = Some(format!(
                    "the header has no column `{name}` (it has: {}); AIDev's {} has {}",
                    crate::text::printable(&names.join(",")),
                    s.file,
                    column_list(s)
                ));
                break;
            }
        }
    }
    let extra_columns: Vec<String> = names.iter().filter(|n| !s.columns.iter().any(|(c, _)| c == n)).cloned().collect();

    let mut rows = Vec::new();
    let mut lines = Vec::new();
    let mut quarantined = Vec::new();
    // (line, start byte, field, reason) of rejected records; their raw text is cut out of
    // the file once the next record's start is known.
    let mut rejected: Vec<(usize, usize, Option<&'static str>, String)> = Vec::new();
    let mut starts: Vec<usize> = Vec::new();
    let mut record = csv::ByteRecord::new();
    let mut count = 0usize;
    loop {
        match reader.read_byte_record(&mut record) {
            Ok(false) => break,
            Ok(true) => {}
            Err(e) => {
                // The csv reader stops only on I/O errors here (flexible, bytes): say where.
                return Err(csv_error(&path, &e));
            }
        }
        count += 1;
        let (line, start) = record.position().map_or((0, 0), |p| (p.line() as usize, p.byte() as usize));
        starts.push(start);
        if let Some(why) = &header_problem {
            rejected.push((line, start, None, why.clone()));
            continue;
        }
        if record.len() != names.len() {
            rejected.push((line, start, None, format!("{} fields, the header has {}", record.len(), names.len())));
            continue;
        }
        match typed_row(s, &index, &record) {
            Ok(row) => {
                rows.push(row);
                lines.push(line);
            }
            Err((field, reason)) => rejected.push((line, start, Some(field), reason)),
        }
    }
    starts.push(body.len());
    for (line, start, field, reason) in rejected {
        let next = starts.iter().copied().find(|&b| b > start).unwrap_or(body.len());
        let raw = String::from_utf8_lossy(&body[start..next]);
        let raw = raw.trim_end_matches(['\r', '\n']);
        quarantined.push(Quarantined::new(INPUT, &rel, Some(line), field, reason, raw));
    }
    let file = InputFile::from_bytes(INPUT, rel, &bytes, count);
    Ok((Records { agent, source: s, rows, lines, extra_columns }, file, quarantined))
}

fn column_list(s: &Source) -> String {
    s.columns.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(",")
}

fn csv_error(path: &Path, e: &csv::Error) -> Error {
    let line = e.position().map_or(0, |p| p.line() as usize);
    Error::Input { path: path.to_path_buf(), line, message: format!("not readable as CSV: {e}") }
}

/// The record's fields as typed cells, or the first field that cannot be typed and why.
fn typed_row(s: &Source, index: &[usize], record: &csv::ByteRecord) -> std::result::Result<Vec<Cell>, (&'static str, String)> {
    let mut row = Vec::with_capacity(s.columns.len());
    for (&(name, kind), &i) in s.columns.iter().zip(index) {
        let raw = record.get(i).unwrap_or_default();
        let text = std::str::from_utf8(raw).map_err(|e| (name, format!("invalid UTF-8 at byte {} of the field", e.valid_up_to())))?;
        let empty = text.is_empty();
        row.push(match kind {
            Kind::Str => Cell::Str((!empty).then(|| text.to_string())),
            Kind::Int if empty => Cell::Int(None),
            Kind::Int => Cell::Int(Some(integer(text).ok_or_else(|| (name, format!("`{}` is not an integer", crate::text::printable(text))))?)),
            Kind::Time if empty => Cell::Time(None),
            Kind::Time => Cell::Time(Some(
                crate::time::parse(text)
                    .map(|t| t.timestamp_micros())
                    .ok_or_else(|| (name, format!("`{}` is not an RFC 3339 time", crate::text::printable(text))))?,
            )),
            Kind::Float | Kind::Bool => unreachable!("AIDev sources declare strings, integers and times only"),
        });
    }
    Ok(row)
}

/// An integer field. pandas writes an integer column that has an empty cell as floats
/// (`1132840.0`); a decimal whose fraction is all zeros is that integer exactly, so it is
/// read as one. Anything else (`1.5`, `1e9`, `12abc`) is not an integer.
fn integer(text: &str) -> Option<i64> {
    let t = text.trim();
    let whole = match t.split_once('.') {
        Some((w, frac)) if !frac.is_empty() && frac.bytes().all(|b| b == b'0') => w,
        Some(_) => return None,
        None => t,
    };
    whole.parse::<i64>().ok()
}

/// The dataset table of one source: every folder's records, folders in layout order.
pub fn table(read: &Read, s: &'static Source) -> Table {
    let mut t = Table::new(s.table, &s.schema());
    for r in read.tables.iter().filter(|r| std::ptr::eq(r.source, s)) {
        for (row, line) in r.rows.iter().zip(&r.lines) {
            let mut cells = Vec::with_capacity(row.len() + 2);
            cells.push(Cell::Str(Some(r.agent.to_string())));
            cells.extend(row.iter().cloned());
            cells.push(Cell::Int(Some(*line as i64)));
            t.push(cells);
        }
    }
    t
}

/// Every source's table, in [`SOURCES`] order (a table no folder has is written empty, so
/// queries over it run and return nothing).
pub fn tables(read: &Read) -> Vec<Table> {
    SOURCES.iter().map(|s| table(read, s)).collect()
}

/// Counts per file, for the terminal.
pub fn summary(read: &Read) -> BTreeMap<String, (usize, usize)> {
    let mut out = BTreeMap::new();
    for r in &read.tables {
        let rel = format!("{}/{}", r.agent, r.source.file);
        let q = read.quarantined.iter().filter(|q| q.file == rel).count();
        out.insert(rel, (r.rows.len(), q));
    }
    out
}

/// A string cell's text.
pub fn text(c: &Cell) -> Option<&str> {
    match c {
        Cell::Str(s) => s.as_deref(),
        _ => None,
    }
}

/// An integer cell's value.
pub fn int(c: &Cell) -> Option<i64> {
    match c {
        Cell::Int(v) => *v,
        _ => None,
    }
}

/// A time cell's value.
pub fn time(c: &Cell) -> Option<crate::time::Instant> {
    match c {
        Cell::Time(v) => v.and_then(crate::time::from_micros),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::integer;

    #[test]
    fn integers_as_pandas_writes_them() {
        assert_eq!(integer("3158615630"), Some(3_158_615_630));
        assert_eq!(integer("1132840.0"), Some(1_132_840));
        assert_eq!(integer("-7.00"), Some(-7));
        assert_eq!(integer("1.5"), None);
        assert_eq!(integer("1e9"), None);
        assert_eq!(integer("12."), None);
        assert_eq!(integer("99999999999999999999"), None);
    }
}
