//! `hindsight diff A B`: what changed between two datasets of a study (two captures, two
//! releases, two policies): the outputs whose verdict changed in a window, with both rows;
//! the outputs only one of them has; and every dashboard figure that moved, with its old
//! and new value (the rows of the two dashboards matched as `check` matches them, so a row
//! one dashboard lacks is named too).

use std::collections::BTreeMap;
use std::path::Path;

use arrow::array::{Array, AsArray};
use arrow::datatypes::DataType;
use serde_json::{json, Value};

use super::check::{self, Difference, Expected, Precision};
use crate::error::{Error, Result};

/// The columns of a verdict compared between the two datasets.
const VERDICT: [&str; 4] = ["outcome_status", "evidence_strength", "human_check_signal", "rule_id"];

/// One output in one window: its verdict's columns, as text (NULL as `null`).
type Verdicts = BTreeMap<(String, String), [String; 4]>;

/// An output whose verdict changed in a window.
#[derive(Debug, PartialEq)]
pub struct Changed {
    pub safe_output_id: String,
    pub eval_window: String,
    pub before: [String; 4],
    pub after: [String; 4],
}

/// What changed from `a` to `b`.
#[derive(Debug, Default)]
pub struct Diff {
    pub changed: Vec<Changed>,
    /// Outputs (ids) only in A, and only in B.
    pub removed: Vec<String>,
    pub added: Vec<String>,
    /// Windows only one dataset was evaluated in.
    pub windows_removed: Vec<String>,
    pub windows_added: Vec<String>,
    /// Dashboard figures that moved (A's value, B's value), and rows only one has.
    pub figures: Vec<Difference>,
    pub rows_removed: Vec<Difference>,
    pub rows_added: Vec<Difference>,
    /// Per check file given (its name): the figures it names whose value moved from A to B.
    pub checked: Vec<(String, Vec<Difference>)>,
}

impl Diff {
    pub fn is_empty(&self) -> bool {
        self.changed.is_empty()
            && self.removed.is_empty()
            && self.added.is_empty()
            && self.windows_removed.is_empty()
            && self.windows_added.is_empty()
            && self.figures.is_empty() && self.rows_removed.is_empty() && self.rows_added.is_empty()
            && self.checked.iter().all(|(_, moved)| moved.is_empty())
    }
}

/// Every verdict of `dataset`'s outcomes table, by output and window.
fn verdicts(dataset: &Path) -> Result<Verdicts> {
    let mut out = Verdicts::new();
    for b in crate::dataset::read::batches(dataset, "outcomes")? {
        let col = |name: &str| -> Result<arrow::array::ArrayRef> {
            let c = b.column_by_name(name).ok_or_else(|| Error::dataset(dataset.join("outcomes.parquet"), format!("no `{name}` column")))?;
            Ok(arrow::compute::cast(c, &DataType::Utf8)?)
        };
        let (ids, windows) = (col("safe_output_id")?, col("eval_window")?);
        let cols: Vec<arrow::array::ArrayRef> = VERDICT.iter().map(|c| col(c)).collect::<Result<_>>()?;
        let text = |a: &arrow::array::ArrayRef, i: usize| if a.is_null(i) { "null".to_string() } else { a.as_string::<i32>().value(i).to_string() };
        for i in 0..b.num_rows() {
            let row = [text(&cols[0], i), text(&cols[1], i), text(&cols[2], i), text(&cols[3], i)];
            out.insert((text(&ids, i), text(&windows, i)), row);
        }
    }
    Ok(out)
}

/// The dashboard's figures as `report --format json` gives them, and as `check` reads them.
fn dashboard(dataset: &Path) -> Result<(String, BTreeMap<String, Value>)> {
    let text = super::dashboard(dataset, super::format::Format::Json)?;
    let value: BTreeMap<String, Value> = serde_json::from_str(&text)?;
    Ok((text, value))
}

/// What changed from the dataset `a` to the dataset `b`.
pub fn diff(a: &Path, b: &Path) -> Result<Diff> {
    let (va, vb) = (verdicts(a)?, verdicts(b)?);
    let ids = |v: &Verdicts| v.keys().map(|(id, _)| id.clone()).collect::<std::collections::BTreeSet<_>>();
    let (ia, ib) = (ids(&va), ids(&vb));
    let mut d = Diff { removed: ia.difference(&ib).cloned().collect(), added: ib.difference(&ia).cloned().collect(), ..Diff::default() };
    let windows = |v: &Verdicts| v.keys().map(|(_, w)| w.clone()).collect::<std::collections::BTreeSet<_>>();
    let (wa, wb) = (windows(&va), windows(&vb));
    d.windows_removed = wa.difference(&wb).cloned().collect();
    d.windows_added = wb.difference(&wa).cloned().collect();
    // An output both have, in a window both were evaluated in: its verdict in each (a row one
    // of them lacks is a change too).
    let none = || ["(no row)".to_string(), String::new(), String::new(), String::new()];
    let keys: std::collections::BTreeSet<&(String, String)> = va.keys().chain(vb.keys()).collect();
    for key in keys {
        let (id, window) = key;
        if !(ia.contains(id) && ib.contains(id) && wa.contains(window) && wb.contains(window)) {
            continue;
        }
        let (before, after) = (va.get(key).cloned().unwrap_or_else(none), vb.get(key).cloned().unwrap_or_else(none));
        if before != after {
            d.changed.push(Changed { safe_output_id: id.clone(), eval_window: window.clone(), before, after });
        }
    }
    let ((ta, ja), (tb, jb)) = (dashboard(a)?, dashboard(b)?);
    let exact = Precision { exact: true, tolerance: 0.0 };
    let moved = |text: &str, other: &BTreeMap<String, Value>| -> Result<Vec<Difference>> {
        let expected = Expected::parse(text).map_err(|e| Error::usage(format!("diff: {e}")))?;
        Ok(check::compare(&expected, other, exact)?.differences)
    };
    let (forward, backward) = (moved(&ta, &jb)?, moved(&tb, &ja)?);
    let missing = |d: &Difference| d.actual == "(no such row)";
    for f in forward {
        if missing(&f) {
            d.rows_removed.push(f);
        } else {
            d.figures.push(f);
        }
    }
    d.rows_added = backward.into_iter().filter(missing).collect();
    Ok(d)
}

/// The figures a check file names (`expected`, as `check --expected` takes it) whose value in
/// `a` is not their value in `b`, each with A's value as `expected` and B's as `actual`. A
/// figure `check` finds equal to the file in one dataset has the file's value there.
pub fn checked_figures(a: &Path, b: &Path, expected: &Expected) -> Result<Vec<Difference>> {
    let exact = Precision { exact: true, tolerance: 0.0 };
    let names = expected.names();
    let found = |ds: &Path| -> Result<BTreeMap<(String, String, String), Difference>> {
        let have = super::figures(&ds.into(), &names, super::Limits::default())?;
        Ok(check::compare(expected, &have, exact)?.differences.into_iter().map(|d| ((d.query.clone(), d.row.clone(), d.field.clone()), d)).collect())
    };
    let (in_a, in_b) = (found(a)?, found(b)?);
    let keys: std::collections::BTreeSet<&(String, String, String)> = in_a.keys().chain(in_b.keys()).collect();
    let mut moved = Vec::new();
    for k in keys {
        let (da, db) = (in_a.get(k), in_b.get(k));
        // Where `check` found no difference, the dataset holds the file's value.
        let value = |d: Option<&Difference>, other: Option<&Difference>| d.map(|d| d.actual.clone()).or_else(|| other.map(|o| o.expected.clone())).unwrap_or_default();
        let (va, vb) = (value(da, db), value(db, da));
        if va != vb {
            moved.push(Difference { query: k.0.clone(), row: k.1.clone(), field: k.2.clone(), expected: va, actual: vb });
        }
    }
    Ok(moved)
}

/// The diff as markdown: a heading and a table per part, said as nothing when a part is empty.
pub fn markdown(d: &Diff, a: &Path, b: &Path) -> String {
    let mut s = format!("# hindsight diff\n\nA: {}\nB: {}\n\n", a.display(), b.display());
    s.push_str(&format!(
        "{} verdict(s) changed; {} output(s) only in A, {} only in B; windows only in A: {}, only in B: {}; {} figure(s) moved; {} dashboard row(s) only in A, {} only in B.\n",
        d.changed.len(),
        d.removed.len(),
        d.added.len(),
        list(&d.windows_removed),
        list(&d.windows_added),
        d.figures.len(),
        d.rows_removed.len(),
        d.rows_added.len()
    ));
    let cell = |v: &[String; 4]| format!("{} / {} / {} ({})", v[0], v[1], v[2], v[3]);
    if !d.changed.is_empty() {
        s.push_str("\n## Verdicts that changed\n\n| safe_output_id | window | A: status / strength / signal (rule) | B |\n|---|---|---|---|\n");
        for c in &d.changed {
            s.push_str(&format!("| {} | {} | {} | {} |\n", c.safe_output_id, c.eval_window, cell(&c.before), cell(&c.after)));
        }
    }
    for (title, ids) in [("Outputs only in A", &d.removed), ("Outputs only in B", &d.added)] {
        if !ids.is_empty() {
            s.push_str(&format!("\n## {title}\n\n"));
            for id in ids {
                s.push_str(&format!("- {id}\n"));
            }
        }
    }
    if !d.figures.is_empty() {
        s.push_str("\n## Figures that moved\n\n| query | row | field | A | B |\n|---|---|---|---|---|\n");
        for f in &d.figures {
            s.push_str(&format!("| {} | {} | {} | {} | {} |\n", f.query, f.row, f.field, f.expected, f.actual));
        }
    }
    for (title, rows) in [("Dashboard rows only in A", &d.rows_removed), ("Dashboard rows only in B", &d.rows_added)] {
        if !rows.is_empty() {
            s.push_str(&format!("\n## {title}\n\n| query | row |\n|---|---|\n"));
            for r in rows {
                s.push_str(&format!("| {} | {} |\n", r.query, r.row));
            }
        }
    }
    for (file, moved) in &d.checked {
        s.push_str(&format!("\n## Checked figures ({file}): {} moved\n", moved.len()));
        if !moved.is_empty() {
            s.push_str("\n| query | row | field | A | B |\n|---|---|---|---|---|\n");
            for f in moved {
                s.push_str(&format!("| {} | {} | {} | {} | {} |\n", f.query, f.row, f.field, f.expected, f.actual));
            }
        }
    }
    s
}

fn list(v: &[String]) -> String {
    if v.is_empty() {
        "none".into()
    } else {
        v.join(", ")
    }
}

/// The diff as one JSON object.
pub fn to_json(d: &Diff) -> Value {
    let verdict = |v: &[String; 4]| {
        let mut m = serde_json::Map::new();
        for (k, x) in VERDICT.iter().zip(v) {
            m.insert(k.to_string(), if x == "null" { Value::Null } else { json!(x) });
        }
        Value::Object(m)
    };
    let rows = |r: &[Difference]| r.iter().map(|d| json!({"query": d.query, "row": d.row})).collect::<Vec<_>>();
    json!({
        "verdicts_changed": d.changed.iter().map(|c| json!({"safe_output_id": c.safe_output_id, "eval_window": c.eval_window, "a": verdict(&c.before), "b": verdict(&c.after)})).collect::<Vec<_>>(),
        "outputs_only_in_a": d.removed,
        "outputs_only_in_b": d.added,
        "windows_only_in_a": d.windows_removed,
        "windows_only_in_b": d.windows_added,
        "figures_moved": d.figures.iter().map(|f| json!({"query": f.query, "row": f.row, "field": f.field, "a": f.expected, "b": f.actual})).collect::<Vec<_>>(),
        "rows_only_in_a": rows(&d.rows_removed),
        "rows_only_in_b": rows(&d.rows_added),
        "checked": d.checked.iter().map(|(file, moved)| json!({"file": file, "figures_moved": moved.iter().map(|f| json!({"query": f.query, "row": f.row, "field": f.field, "a": f.expected, "b": f.actual})).collect::<Vec<_>>()})).collect::<Vec<_>>(),
    })
}
