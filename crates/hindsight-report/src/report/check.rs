//! `hindsight check`: compare a dataset's figures with published ones.
//!
//! The expected file is a JSON object whose keys are query names (the dashboard's, a bundled
//! query such as `aidev/overview`, or a `.sql` file), each an array of rows, any subset of
//! what `report --query NAME --format json` prints. In a row, string fields (`eval_window`,
//! `agent`, `type`, ...) pick the report row to compare with, and every number is compared.
//! A number counts as equal when the actual value rounds to it at the precision it is
//! written with (`24.5` matches 24.46 and 24.54; `101` matches only 101), as a paper's table
//! prints it; `--exact` compares the numbers themselves. `--tolerance` widens either. A
//! published number with no matching row, or a field the report lacks, is a difference.

use std::collections::BTreeMap;

use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::error::{Error, Result};

#[derive(Clone, Debug, PartialEq)]
pub struct Difference {
    pub(crate) query: String,
    pub(crate) row: String,
    pub(crate) field: String,
    pub(crate) expected: String,
    pub(crate) actual: String,
}

/// How numbers are compared.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Precision {
    /// Compare the numbers themselves instead of at their printed precision.
    pub exact: bool,
    /// Largest extra absolute difference accepted.
    pub tolerance: f64,
}

/// One expected field: its name, value, and text as written (its printed precision).
pub(crate) type Figure = (String, Value, String);

/// An expected-figures file: per query, rows of figures.
pub struct Expected {
    pub(crate) queries: Vec<(String, Vec<Vec<Figure>>)>,
}

impl Expected {
    /// Parse the file's text, keeping each number's text (its printed precision).
    pub fn parse(text: &str) -> Result<Expected> {
        let shape = |m: &str| Error::usage(format!("expected figures: {m}"));
        // A figure written twice would be checked in one copy only (the last): a wrong
        // figure earlier in the file would pass unseen.
        if let Some(path) = crate::json::repeated_key(text) {
            return Err(shape(&format!("`{}` is written twice; say each figure once", crate::text::printable(&path))));
        }
        let raw: BTreeMap<String, Box<RawValue>> = serde_json::from_str(text).map_err(|_| shape("the file must hold a JSON object of query name -> rows"))?;
        let mut queries = Vec::new();
        for (query, rows) in raw {
            // The report's own list of sections it left out, with why, and its warnings: no
            // figures of their own (so `report --format json` is accepted as it is).
            if query == LEFT_OUT || query == crate::report::coverage::WARNINGS {
                continue;
            }
            let rows: Vec<Box<RawValue>> = serde_json::from_str(rows.get()).map_err(|_| shape(&format!("`{query}` must be an array of rows")))?;
            if rows.is_empty() {
                return Err(shape(&format!("`{query}` has no rows, so nothing of it would be checked")));
            }
            let mut parsed = Vec::new();
            for row in rows {
                let fields: BTreeMap<String, Box<RawValue>> =
                    serde_json::from_str(row.get()).map_err(|_| shape(&format!("`{query}`: every row must be an object")))?;
                if fields.is_empty() {
                    return Err(shape(&format!("`{query}`: a row with no fields checks nothing")));
                }
                let mut out = Vec::new();
                for (k, v) in fields {
                    let value: Value = serde_json::from_str(v.get())?;
                    out.push((k, value, v.get().trim().to_string()));
                }
                parsed.push(out);
            }
            queries.push((query, parsed));
        }
        if queries.is_empty() {
            return Err(shape("the file names no query, so nothing would be checked (a passing check must have compared something)"));
        }
        Ok(Expected { queries })
    }

    pub fn names(&self) -> Vec<&str> {
        self.queries.iter().map(|(q, _)| q.as_str()).collect()
    }
}

/// Half a unit in the last place written: `24.5` -> 0.05, `101` -> 0.5, `1.25e1` -> 0.05.
/// A zero has no significant digit for an exponent to scale: `0e9` is 0 to the units
/// (0.5), as `0` is, not "anything within 5e8".
pub(crate) fn half_unit(text: &str) -> f64 {
    let t = text.trim().trim_start_matches('-');
    let (mantissa, exp) = match t.find(['e', 'E']) {
        Some(i) => (&t[..i], t[i + 1..].parse::<i32>().unwrap_or(0)),
        None => (t, 0),
    };
    let zero = mantissa.bytes().all(|b| b == b'0' || b == b'.');
    let exp = if zero { exp.min(0) } else { exp };
    let decimals = mantissa.split_once('.').map_or(0, |(_, f)| f.len() as i32) - exp;
    0.5 * 10f64.powi(-decimals)
}

fn same(want: &Value, text: &str, got: Option<&Value>, p: Precision) -> bool {
    match (want, got) {
        (Value::Null, Some(Value::Null)) => true,
        (w, Some(g)) => match (w.as_f64(), g.as_f64()) {
            (Some(a), Some(b)) => {
                let allowed = if p.exact { p.tolerance } else { half_unit(text) + p.tolerance };
                // A hair of slack for the decimal text of a binary number.
                (a - b).abs() <= allowed + 1e-9 * a.abs().max(1.0)
            }
            _ => w == g,
        },
        _ => false,
    }
}

/// The key of the report's JSON that lists the sections it left out (not a query).
pub(crate) const LEFT_OUT: &str = "left_out";

/// What a comparison found: the differences, and how much it compared.
#[derive(Debug)]
pub struct Compared {
    pub differences: Vec<Difference>,
    /// Numbers compared (each expected number of each row).
    pub figures: usize,
    pub rows: usize,
    pub queries: usize,
}

/// Compare `expected` with `actual`: per query name, the rows the report gives.
///
/// An expected row matches the report's rows whose every field it names is equal: text,
/// booleans and NULLs exactly, numbers at their printed precision (`Precision`), so rows that
/// differ only by a number (a `year`, a `month`) are told apart. When none matches, the row is
/// looked for by its text fields (and, among several, by its whole numbers) to say which
/// figures moved; when none is found that way either, the row is missing. An error, never a
/// pass: a number the report gives written as a string, a row that matches several different
/// rows, and a file that compares no figure at all.
pub fn compare(expected: &Expected, actual: &BTreeMap<String, Value>, p: Precision) -> Result<Compared> {
    let mut out = Compared { differences: Vec::new(), figures: 0, rows: 0, queries: expected.queries.len() };
    let empty = Vec::new();
    for (query, rows) in &expected.queries {
        let have: Vec<&Map<String, Value>> = actual.get(query).and_then(Value::as_array).unwrap_or(&empty).iter().filter_map(Value::as_object).collect();
        for row in rows {
            out.rows += 1;
            for (field, want, _) in row {
                if want.is_string() && have.iter().any(|r| r.get(field).is_some_and(Value::is_number)) {
                    return Err(Error::usage(format!(
                        "expected figures: `{query}`: `{field}` is written as a string ({want}) where the report gives a number; write it as a number, or it is never compared"
                    )));
                }
            }
            let (keys, numbers): (Vec<&Figure>, Vec<&Figure>) = row.iter().partition(|(_, v, _)| !v.is_number());
            // A row must name a figure its query reports: one of text alone would check only
            // that the row exists. (A query whose rows hold no number, such as the CI gate's
            // loop states, is checked row by row: each must exist, every field equal.)
            if numbers.is_empty() && have.iter().any(|r| r.values().any(Value::is_number)) {
                let shown: Vec<(&String, &Value)> = keys.iter().map(|(k, v, _)| (k, v)).collect();
                return Err(Error::usage(format!(
                    "expected figures: `{query}`: the row ({}) has no number to compare, so it would pass unseen; add the figures it should have (a number written as a string, \"12.0\", is text)",
                    describe(&shown)
                )));
            }
            let by_text: Vec<&Map<String, Value>> = have.iter().copied().filter(|r| keys.iter().all(|(k, v, _)| r.get(k) == Some(v))).collect();
            let whole: Vec<&Map<String, Value>> = by_text.iter().copied().filter(|r| numbers.iter().all(|(k, v, t)| same(v, t, r.get(k), p))).collect();
            let shown = describe_row(row, by_text.len() > 1);
            if let Some(first) = whole.first() {
                if whole.iter().any(|r| r != first) {
                    return Err(Error::usage(format!(
                        "expected figures: `{query}`: the row ({shown}) matches {} different rows of the report; add the fields that tell them apart",
                        whole.len()
                    )));
                }
                out.figures += numbers.len();
                continue;
            }
            // No row matches every figure: the one it stands for, to say which moved.
            let near: Vec<&Map<String, Value>> = if by_text.len() > 1 {
                by_text.iter().copied().filter(|r| numbers.iter().filter(|(_, _, t)| whole_number(t)).all(|(k, v, _)| r.get(k) == Some(v))).collect()
            } else {
                by_text
            };
            match near.as_slice() {
                [r] => {
                    out.figures += numbers.len();
                    for (field, want, text) in &numbers {
                        let got = r.get(field);
                        if !same(want, text, got, p) {
                            let actual = got.map_or_else(|| "(no such field)".to_string(), Value::to_string);
                            out.differences.push(Difference { query: query.clone(), row: shown.clone(), field: field.clone(), expected: text.clone(), actual });
                        }
                    }
                }
                _ => {
                    out.figures += numbers.len();
                    let fields = if numbers.is_empty() { "(the row)".to_string() } else { numbers.iter().map(|(k, _, _)| k.as_str()).collect::<Vec<_>>().join(", ") };
                    out.differences.push(Difference { query: query.clone(), row: shown, field: fields, expected: "a row".into(), actual: "(no such row)".into() });
                }
            }
        }
    }
    Ok(out)
}

/// Whether a number is written as a whole number (`2025`, not `0.5` or `1e3`): the kind
/// that names a row (a year, a month) rather than measures it.
fn whole_number(text: &str) -> bool {
    !text.contains(['.', 'e', 'E'])
}

/// A row for a person: its text fields, and its whole numbers when text alone does not name
/// it (`repo=a/b, year=2025, month=7`).
fn describe_row(row: &[Figure], with_numbers: bool) -> String {
    let shown: Vec<(&String, &Value)> =
        row.iter().filter(|(_, v, t)| !v.is_number() || (with_numbers && whole_number(t))).map(|(k, v, _)| (k, v)).collect();
    describe(&shown)
}

fn describe(key: &[(&String, &Value)]) -> String {
    if key.is_empty() {
        return "(all)".into();
    }
    key.iter().map(|(k, v)| format!("{k}={}", v.as_str().map_or_else(|| v.to_string(), str::to_string))).collect::<Vec<_>>().join(", ")
}

/// The differences as a table people can read.
pub fn table(diffs: &[Difference]) -> String {
    let head = ["query", "row", "field", "expected", "actual"];
    let rows: Vec<[String; 5]> = diffs.iter().map(|d| [d.query.clone(), d.row.clone(), d.field.clone(), d.expected.clone(), d.actual.clone()]).collect();
    let mut w = head.map(str::len);
    for r in &rows {
        for (i, c) in r.iter().enumerate() {
            w[i] = w[i].max(c.len());
        }
    }
    let line = |cells: [&str; 5]| {
        let mut s = String::from("|");
        for (i, c) in cells.iter().enumerate() {
            s.push_str(&format!(" {:<width$} |", c, width = w[i]));
        }
        s.push('\n');
        s
    };
    let sep = format!("+{}\n", w.iter().map(|n| format!("{}+", "-".repeat(n + 2))).collect::<String>());
    let mut out = sep.clone();
    out.push_str(&line(head));
    out.push_str(&sep);
    for r in &rows {
        out.push_str(&line([&r[0], &r[1], &r[2], &r[3], &r[4]]));
    }
    out.push_str(&sep);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn actual(v: Value) -> BTreeMap<String, Value> {
        v.as_object().unwrap().iter().map(|(k, v)| (k.clone(), v.clone())).collect()
    }

    #[test]
    fn matches_rows_by_their_strings_and_numbers_at_printed_precision() {
        let have = actual(json!({"summary": [{"eval_window": "7d", "total_safe_outputs": 40, "rate": 0.2512}]}));
        let exact = Precision { exact: true, tolerance: 0.0 };
        let printed = Precision { exact: false, tolerance: 0.0 };
        let ok = Expected::parse(r#"{"summary": [{"eval_window": "7d", "total_safe_outputs": 40, "rate": 0.25}]}"#).unwrap();
        let c = compare(&ok, &have, printed).unwrap();
        assert_eq!((c.differences.len(), c.figures, c.rows, c.queries), (0, 2, 1, 1));
        // The same file compared exactly: 0.25 is not 0.2512.
        let d = compare(&ok, &have, exact).unwrap().differences;
        assert_eq!((d.len(), d[0].field.as_str(), d[0].expected.as_str()), (1, "rate", "0.25"));
        // Written with more digits, the precision is finer: 0.2500 is not 0.2512.
        let finer = Expected::parse(r#"{"summary": [{"eval_window": "7d", "rate": 0.2500}]}"#).unwrap();
        assert_eq!(compare(&finer, &have, printed).unwrap().differences.len(), 1);
        let bad = Expected::parse(r#"{"summary": [{"eval_window": "7d", "rate": 0.2}, {"eval_window": "1y", "total_safe_outputs": 1}]}"#).unwrap();
        let d = compare(&bad, &have, printed).unwrap().differences;
        assert_eq!(d.len(), 2);
        assert_eq!((d[0].field.as_str(), d[0].actual.as_str()), ("rate", "0.2512"));
        assert_eq!(d[1].actual, "(no such row)");
        assert!(table(&d).contains("| summary | eval_window=7d | rate"));
    }

    /// Class: a check that passes having compared nothing. A row with no number, a number
    /// written as a string, a row the report lacks, a row that matches several: each is an
    /// error or a difference, never a pass.
    #[test]
    fn a_check_never_passes_unseen() {
        let have = actual(json!({"aidev/overview": [{"agent": "Codex", "prs": 10, "pct_merged": 12.04}, {"agent": "Devin", "prs": 3, "pct_merged": 50.0}]}));
        let p = Precision { exact: false, tolerance: 0.0 };
        let e = compare(&Expected::parse(r#"{"aidev/overview": [{"agent": "NoSuchAgent"}]}"#).unwrap(), &have, p).err().unwrap().to_string();
        assert!(e.contains("has no number to compare"), "{e}");
        // A query whose rows hold no number: each row must exist, every field equal.
        let text = actual(json!({"loops": [{"program": "perf", "state": "paused"}]}));
        let there = Expected::parse(r#"{"loops": [{"program": "perf", "state": "paused"}]}"#).unwrap();
        assert_eq!(compare(&there, &text, p).unwrap().differences.len(), 0);
        let gone = Expected::parse(r#"{"loops": [{"program": "perf", "state": "running"}]}"#).unwrap();
        assert_eq!(compare(&gone, &text, p).unwrap().differences[0].actual, "(no such row)");
        let strings = Expected::parse(r#"{"aidev/overview": [{"agent": "Codex", "pct_merged": "12.0", "prs": 10}]}"#).unwrap();
        let e = compare(&strings, &have, p).err().unwrap().to_string();
        assert!(e.contains("`pct_merged` is written as a string"), "{e}");
        let missing = Expected::parse(r#"{"aidev/overview": [{"agent": "NoSuchAgent", "prs": 1}]}"#).unwrap();
        let d = compare(&missing, &have, p).unwrap().differences;
        assert_eq!((d.len(), d[0].actual.as_str()), (1, "(no such row)"));
        let several = Expected::parse(r#"{"aidev/overview": [{"prs": 10}]}"#).unwrap();
        assert_eq!(compare(&several, &have, p).unwrap().differences.len(), 0);
        let both = actual(json!({"q": [{"a": "x", "n": 1}, {"a": "x", "n": 1, "m": 2}]}));
        let e = compare(&Expected::parse(r#"{"q": [{"a": "x", "n": 1}]}"#).unwrap(), &both, p).err().unwrap().to_string();
        assert!(e.contains("matches 2 different rows"), "{e}");
        assert!(Expected::parse(r#"{"left_out": [{"sections": "ci_gate", "note": "no CI"}]}"#).err().unwrap().to_string().contains("names no query"));
    }

    /// Rows that differ only by a number (a month) are told apart by it; a moved figure is
    /// named against the row its whole numbers pick.
    #[test]
    fn rows_are_matched_on_numbers_too() {
        let have = actual(json!({"m": [{"repo": "a/b", "year": 2025, "month": 6, "rate": 0.5}, {"repo": "a/b", "year": 2025, "month": 7, "rate": 0.3}]}));
        let p = Precision { exact: false, tolerance: 0.0 };
        let ok = Expected::parse(r#"{"m": [{"repo": "a/b", "year": 2025, "month": 7, "rate": 0.3}, {"repo": "a/b", "year": 2025, "month": 6, "rate": 0.5}]}"#).unwrap();
        assert!(compare(&ok, &have, p).unwrap().differences.is_empty());
        let moved = Expected::parse(r#"{"m": [{"repo": "a/b", "year": 2025, "month": 7, "rate": 0.4}]}"#).unwrap();
        let d = compare(&moved, &have, p).unwrap().differences;
        assert_eq!((d.len(), d[0].row.as_str(), d[0].field.as_str(), d[0].actual.as_str()), (1, "month=7, repo=a/b, year=2025", "rate", "0.3"));
    }

    #[test]
    fn half_a_unit_in_the_last_written_place() {
        assert_eq!(half_unit("24.5"), 0.05);
        assert_eq!(half_unit("101"), 0.5);
        assert!((half_unit("1.25e1") - 0.05).abs() < 1e-12);
        assert!((half_unit("-0.125") - 0.0005).abs() < 1e-12);
        // A zero's exponent scales no digit: 0e9 is not "within 5e8".
        assert_eq!(half_unit("0e9"), 0.5);
        assert_eq!(half_unit("0.0E3"), 0.05);
        assert!((half_unit("0e-3") - 0.0005).abs() < 1e-12);
        assert_eq!(half_unit("1e9"), 5e8);
    }
}
