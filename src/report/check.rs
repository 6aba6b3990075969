//! `hindsight check`: compare a dataset's metrics with published figures.
//!
//! The expected file has the JSON report's shape, any subset of it: an object whose keys
//! are query names, each an array of rows. In a row, string fields (`eval_window`,
//! `safe_output_type`, `workflow_name`, `run_id`) pick the report row to compare with, and
//! every number is compared within the tolerance. A published number with no matching
//! row, or a field the report lacks, is a difference too.

use serde_json::{Map, Value};

use crate::error::{Error, Result};

#[derive(Clone, Debug, PartialEq)]
pub struct Difference {
    pub query: String,
    pub row: String,
    pub field: String,
    pub expected: String,
    pub actual: String,
}

fn key_of(row: &Map<String, Value>) -> Vec<(String, Value)> {
    row.iter().filter(|(_, v)| v.is_string()).map(|(k, v)| (k.clone(), v.clone())).collect()
}

fn describe(key: &[(String, Value)]) -> String {
    if key.is_empty() {
        return "(all)".into();
    }
    key.iter().map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or_default())).collect::<Vec<_>>().join(", ")
}

/// Compare `expected` (the published subset) with `actual` (the JSON report).
pub fn compare(expected: &Value, actual: &Value, tolerance: f64) -> Result<Vec<Difference>> {
    let exp = expected.as_object().ok_or_else(|| Error::Usage("expected metrics: the file must hold a JSON object of query name -> rows".into()))?;
    let mut out = Vec::new();
    for (query, rows) in exp {
        let Some(rows) = rows.as_array() else {
            return Err(Error::Usage(format!("expected metrics: `{query}` must be an array of rows")));
        };
        let have = actual.get(query).and_then(Value::as_array);
        for row in rows {
            let Some(row) = row.as_object() else { continue };
            let key = key_of(row);
            let found = have.and_then(|h| h.iter().filter_map(Value::as_object).find(|r| key.iter().all(|(k, v)| r.get(k) == Some(v))));
            for (field, want) in row.iter().filter(|(_, v)| !v.is_string()) {
                let got = found.and_then(|r| r.get(field));
                let same = match (want, got) {
                    (Value::Null, Some(Value::Null)) => true,
                    (w, Some(g)) => match (w.as_f64(), g.as_f64()) {
                        (Some(a), Some(b)) => (a - b).abs() <= tolerance,
                        _ => w == g,
                    },
                    _ => false,
                };
                if !same {
                    out.push(Difference {
                        query: query.clone(),
                        row: describe(&key),
                        field: field.clone(),
                        expected: want.to_string(),
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
    Ok(out)
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

    #[test]
    fn matches_rows_by_their_strings_and_numbers_within_tolerance() {
        let actual = json!({"summary": [{"eval_window": "7d", "total_safe_outputs": 40, "rate": 0.25}]});
        let ok = json!({"summary": [{"eval_window": "7d", "total_safe_outputs": 40, "rate": 0.2501}]});
        assert!(compare(&ok, &actual, 0.001).unwrap().is_empty());
        let bad = json!({"summary": [{"eval_window": "7d", "rate": 0.3}, {"eval_window": "1y", "total_safe_outputs": 1}]});
        let d = compare(&bad, &actual, 0.001).unwrap();
        assert_eq!(d.len(), 2);
        assert_eq!((d[0].field.as_str(), d[0].actual.as_str()), ("rate", "0.25"));
        assert_eq!(d[1].actual, "(no such row)");
        assert!(table(&d).contains("| summary | eval_window=7d | rate"));
    }
}
