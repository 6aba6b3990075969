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
        let shape = |m: &str| Error::Usage(format!("expected figures: {m}"));
        // A figure written twice would be checked in one copy only (the last): a wrong
        // figure earlier in the file would pass unseen.
        if let Some(path) = crate::json::repeated_key(text) {
            return Err(shape(&format!("`{}` is written twice; say each figure once", crate::text::printable(&path))));
        }
        let raw: BTreeMap<String, Box<RawValue>> = serde_json::from_str(text).map_err(|_| shape("the file must hold a JSON object of query name -> rows"))?;
        let mut queries = Vec::new();
        for (query, rows) in raw {
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

/// Compare `expected` with `actual`: per query name, the rows the report gives.
pub fn compare(expected: &Expected, actual: &BTreeMap<String, Value>, p: Precision) -> Vec<Difference> {
    let mut out = Vec::new();
    for (query, rows) in &expected.queries {
        let have = actual.get(query).and_then(Value::as_array);
        for row in rows {
            let key: Vec<(&String, &Value)> = row.iter().filter(|(_, v, _)| v.is_string()).map(|(k, v, _)| (k, v)).collect();
            let found: Option<&Map<String, Value>> =
                have.and_then(|h| h.iter().filter_map(Value::as_object).find(|r| key.iter().all(|(k, v)| r.get(k.as_str()) == Some(*v))));
            for (field, want, text) in row.iter().filter(|(_, v, _)| !v.is_string()) {
                let got = found.and_then(|r| r.get(field));
                if !same(want, text, got, p) {
                    out.push(Difference {
                        query: query.clone(),
                        row: describe(&key),
                        field: field.clone(),
                        expected: text.clone(),
                        actual: match (found, got) {
                            (None, _) => "(no such row)".into(),
                            (_, None) => "(no such field)".into(),
                            (_, Some(g)) => g.to_string(),
                        },
                    });
                }
            }
        }
    }
    out
}

fn describe(key: &[(&String, &Value)]) -> String {
    if key.is_empty() {
        return "(all)".into();
    }
    key.iter().map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or_default())).collect::<Vec<_>>().join(", ")
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
        assert!(compare(&ok, &have, printed).is_empty());
        // The same file compared exactly: 0.25 is not 0.2512.
        let d = compare(&ok, &have, exact);
        assert_eq!((d.len(), d[0].field.as_str(), d[0].expected.as_str()), (1, "rate", "0.25"));
        // Written with more digits, the precision is finer: 0.2500 is not 0.2512.
        let finer = Expected::parse(r#"{"summary": [{"eval_window": "7d", "rate": 0.2500}]}"#).unwrap();
        assert_eq!(compare(&finer, &have, printed).len(), 1);
        let bad = Expected::parse(r#"{"summary": [{"eval_window": "7d", "rate": 0.2}, {"eval_window": "1y", "total_safe_outputs": 1}]}"#).unwrap();
        let d = compare(&bad, &have, printed);
        assert_eq!(d.len(), 2);
        assert_eq!((d[0].field.as_str(), d[0].actual.as_str()), ("rate", "0.2512"));
        assert_eq!(d[1].actual, "(no such row)");
        assert!(table(&d).contains("| summary | eval_window=7d | rate"));
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
