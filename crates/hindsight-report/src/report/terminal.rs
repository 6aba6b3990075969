//! The dashboard as a terminal shows it: each rate and its 95% interval in one cell
//! (`0.21 [0.11-0.36]`; an interval beside the rate's own, as a clustered one, in a cell of
//! its own, `[0.05-0.40]`), numbers right-aligned, small samples marked, and a section wider
//! than the terminal split into parts that each fit, its label columns repeated in every
//! part. JSON, CSV and the other formats keep every column as the query wrote it.

use arrow::array::{Array, ArrayRef, AsArray};
use arrow::datatypes::{DataType, Float64Type};
use arrow::record_batch::RecordBatch;
use arrow::util::display::{ArrayFormatter, FormatOptions};

use crate::error::Result;

/// How wide the terminal dashboard may be.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Fit {
    /// Columns of the terminal; `None` prints every section on one table however wide
    /// (output that is not a terminal, or `--wide`).
    pub width: Option<usize>,
}

/// Counts a rate is computed over: below [`SMALL_N`] they are marked, as the HTML report
/// hatches them.
/// Marked only in a section with an interval: elsewhere they are counts, not a rate's n.
pub(crate) const DENOMINATORS: &[&str] = &["evaluable_outputs", "evaluable_prs", "cohort_outputs", "cohort_prs", "decided", "prs_decided", "prs"];

/// The sample size under which a rate moves a lot with one more output (the HTML report's).
const SMALL_N: i64 = super::charts::SMALL_N as i64;

/// The mark beside a small count, and the line under a section that has one.
pub(crate) const SMALL_MARK: &str = "*";
pub const SMALL_NOTE: &str = "* n < 10: one more output moves these rates a lot";

/// A column as the terminal shows it: its header, its cells, and whether it is a number
/// (right-aligned).
struct Column {
    name: String,
    cells: Vec<String>,
    numeric: bool,
}

/// A rate and its interval in one cell, 2 decimals (JSON keeps every digit): `0.21 [0.11-0.36]`.
fn interval_cell(v: Option<f64>, lo: Option<f64>, hi: Option<f64>) -> String {
    let two = |x: f64| format!("{:.2}", super::format::rounded(x, 2));
    match (v, lo, hi) {
        (Some(v), Some(lo), Some(hi)) => format!("{} [{}-{}]", two(v), two(lo), two(hi)),
        (Some(v), _, _) => two(v),
        _ => String::new(),
    }
}

/// An interval with no rate column of its own (`NAME_ci_low`, `NAME_ci_high`, no `NAME`: a
/// second interval of a rate shown before it) as one column `NAME [95% CI]` of `[low-high]`
/// cells, empty where either end is NULL; `None` for any other column. Its high end is left
/// out by the caller.
fn lone_interval(raw: &RecordBatch, names: &[&str], i: usize) -> Option<Column> {
    let base = names[i].strip_suffix("_ci_low").filter(|b| !names.contains(b))?;
    let hi = names.iter().position(|n| *n == format!("{base}_ci_high"))?;
    let (lo, hi) = (floats(raw.column(i))?, floats(raw.column(hi))?);
    let two = |x: f64| format!("{:.2}", super::format::rounded(x, 2));
    let cells = lo.iter().zip(&hi).map(|(l, h)| l.zip(*h).map(|(l, h)| format!("[{}-{}]", two(l), two(h))).unwrap_or_default()).collect();
    Some(Column { name: format!("{base} [95% CI]"), cells, numeric: true })
}

fn floats(c: &ArrayRef) -> Option<Vec<Option<f64>>> {
    match c.data_type() {
        DataType::Float64 => Some(c.as_primitive::<Float64Type>().iter().collect()),
        _ => None,
    }
}

/// The columns of one batch (the section's rows, concatenated), intervals folded into their
/// rate, numbers rounded for reading, small counts marked. Also whether a count was marked.
fn columns(raw: &RecordBatch) -> Result<(Vec<Column>, bool)> {
    let rounded = super::format::rounded_for_reading(std::slice::from_ref(raw))?.remove(0);
    let schema = raw.schema();
    let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
    let opts = FormatOptions::default();
    let mut out = Vec::new();
    let mut marked = false;
    let has_interval = names.iter().any(|n| n.strip_suffix("_ci_low").is_some_and(|rate| names.contains(&rate)));
    for (i, name) in names.iter().enumerate() {
        if name.ends_with("_ci_low") || name.ends_with("_ci_high") {
            let rate = name.trim_end_matches("_ci_low").trim_end_matches("_ci_high");
            if names.contains(&format!("{rate}_ci_low").as_str()) && names.contains(&format!("{rate}_ci_high").as_str()) {
                if let Some(column) = lone_interval(raw, &names, i) {
                    out.push(column);
                    continue;
                }
                if names.contains(&rate) || name.ends_with("_ci_high") {
                    continue;
                }
            }
        }
        let (lo, hi) = (names.iter().position(|n| *n == format!("{name}_ci_low")), names.iter().position(|n| *n == format!("{name}_ci_high")));
        if let (Some(lo), Some(hi), Some(v)) = (lo, hi, floats(raw.column(i))) {
            let (lo, hi) = (floats(raw.column(lo)).unwrap_or_default(), floats(raw.column(hi)).unwrap_or_default());
            let cells = (0..raw.num_rows()).map(|r| interval_cell(v[r], lo.get(r).copied().flatten(), hi.get(r).copied().flatten())).collect();
            out.push(Column { name: format!("{name} [95% CI]"), cells, numeric: true });
            continue;
        }
        let c = rounded.column(i);
        let f = ArrayFormatter::try_new(c.as_ref(), &opts)?;
        let small = has_interval && DENOMINATORS.contains(name) && matches!(c.data_type(), DataType::Int64);
        let cells = (0..c.len())
            .map(|r| {
                if c.is_null(r) {
                    return String::new();
                }
                let text = crate::text::printable(&f.value(r).to_string()).into_owned();
                if small && c.as_primitive::<arrow::datatypes::Int64Type>().value(r) < SMALL_N {
                    marked = true;
                    return format!("{text} {SMALL_MARK}");
                }
                text
            })
            .collect();
        out.push(Column { name: name.to_string(), cells, numeric: c.data_type().is_numeric() });
    }
    Ok((out, marked))
}

/// Characters a cell takes on the terminal.
fn width(s: &str) -> usize {
    s.chars().count()
}

/// A cell cut to `max` characters, the cut marked.
fn clip(s: &str, max: usize) -> String {
    if width(s) <= max {
        return s.to_string();
    }
    let mut out: String = s.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// One boxed table of `cols` (their widths given), numbers right-aligned.
fn boxed(cols: &[&Column], widths: &[usize], rows: usize) -> String {
    let rule = format!("+{}+\n", widths.iter().map(|w| "-".repeat(w + 2)).collect::<Vec<_>>().join("+"));
    let line = |cells: Vec<String>| -> String {
        let parts: Vec<String> = cells
            .iter()
            .zip(cols.iter().zip(widths))
            .map(|(cell, (col, w))| {
                let cell = clip(cell, *w);
                let pad = " ".repeat(w - width(&cell));
                if col.numeric {
                    format!(" {pad}{cell} ")
                } else {
                    format!(" {cell}{pad} ")
                }
            })
            .collect();
        format!("|{}|\n", parts.join("|"))
    };
    let mut out = rule.clone();
    out.push_str(&line(cols.iter().map(|c| c.name.clone()).collect()));
    out.push_str(&rule);
    for r in 0..rows {
        out.push_str(&line(cols.iter().map(|c| c.cells[r].clone()).collect()));
    }
    out.push_str(&rule);
    out
}

/// The leading label columns (text, at most three) repeated in every part of a split table.
fn label_columns(cols: &[Column]) -> usize {
    cols.iter().take(3).take_while(|c| !c.numeric).count().min(cols.len().saturating_sub(1))
}

/// The columns of each part: labels, then as many of the rest as fit in `fit` columns
/// (at least one a part).
fn parts(cols: &[Column], widths: &[usize], labels: usize, fit: usize) -> Vec<Vec<usize>> {
    let used = |w: usize| w + 3;
    let base: usize = 1 + (0..labels).map(|i| used(widths[i])).sum::<usize>();
    let mut out: Vec<Vec<usize>> = Vec::new();
    let mut part: Vec<usize> = (0..labels).collect();
    let mut total = base;
    for i in labels..cols.len() {
        if part.len() > labels && total + used(widths[i]) > fit {
            out.push(std::mem::replace(&mut part, (0..labels).collect()));
            total = base;
        }
        part.push(i);
        total += used(widths[i]);
    }
    out.push(part);
    out
}

/// A section's rows as the terminal shows them, split to fit [`Fit::width`]; each part after
/// the first says which columns it holds.
pub(crate) fn table(batches: &[RecordBatch], fit: Fit) -> Result<String> {
    let Some(first) = batches.first() else { return Ok("(0 rows)\n".into()) };
    let all = arrow::compute::concat_batches(&first.schema(), batches)?;
    let (cols, marked) = columns(&all)?;
    let rows = all.num_rows();
    let mut widths: Vec<usize> = cols.iter().map(|c| c.cells.iter().map(|s| width(s)).chain([width(&c.name)]).max().unwrap_or(0)).collect();
    let labels = label_columns(&cols);
    let mut out = String::new();
    let plan = match fit.width {
        None => vec![(0..cols.len()).collect()],
        Some(w) => {
            // A cell wider than the terminal (after the labels) is cut, the cut marked.
            let room = w.saturating_sub(1 + (0..labels).map(|i| widths[i] + 3).sum::<usize>() + 3).max(12);
            for cw in widths.iter_mut().skip(labels) {
                *cw = (*cw).min(room);
            }
            parts(&cols, &widths, labels, w)
        }
    };
    let count = plan.len();
    for (k, part) in plan.iter().enumerate() {
        if count > 1 && k > 0 {
            let names: Vec<&str> = part[labels..].iter().map(|&i| cols[i].name.as_str()).collect();
            out.push_str(&format!("(part {} of {count}: {})\n", k + 1, names.join(", ")));
        }
        let picked: Vec<&Column> = part.iter().map(|&i| &cols[i]).collect();
        let w: Vec<usize> = part.iter().map(|&i| widths[i]).collect();
        out.push_str(&boxed(&picked, &w, rows));
    }
    if marked {
        out.push_str(SMALL_NOTE);
        out.push('\n');
    }
    Ok(out)
}

/// `text` wrapped at spaces to `fit`'s width (a word longer than the width stays whole), each
/// line ending in a newline.
pub(crate) fn wrap(text: &str, fit: Fit) -> String {
    let Some(w) = fit.width else { return format!("{text}\n") };
    let mut out = String::new();
    let mut line = String::new();
    for word in text.split(' ') {
        if !line.is_empty() && width(&line) + 1 + width(word) > w {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    out.push_str(&line);
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{Float64Array, Int64Array, StringArray};
    use std::sync::Arc;

    fn section() -> RecordBatch {
        RecordBatch::try_from_iter(vec![
            ("eval_window", Arc::new(StringArray::from(vec!["24h", "snapshot"])) as ArrayRef),
            ("evaluable_outputs", Arc::new(Int64Array::from(vec![4, 42])) as ArrayRef),
            ("strict_acceptance_rate", Arc::new(Float64Array::from(vec![Some(0.2105), None])) as ArrayRef),
            ("strict_acceptance_rate_ci_low", Arc::new(Float64Array::from(vec![Some(0.11074), None])) as ArrayRef),
            ("strict_acceptance_rate_ci_high", Arc::new(Float64Array::from(vec![Some(0.3635), None])) as ArrayRef),
            ("rejection_rate", Arc::new(Float64Array::from(vec![Some(1.0 / 3.0), Some(0.0)])) as ArrayRef),
        ])
        .unwrap()
    }

    /// A rate and its interval are one cell; numbers sit at the right; a count under ten is
    /// marked and the mark explained; a missing rate is an empty cell.
    #[test]
    fn rates_with_intervals_are_one_cell() {
        let text = table(&[section()], Fit { width: None }).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[1], "| eval_window | evaluable_outputs | strict_acceptance_rate [95% CI] | rejection_rate |", "{text}");
        assert_eq!(lines[3], "| 24h         |               4 * |                0.21 [0.11-0.36] |         0.3333 |", "{text}");
        assert_eq!(lines[4], "| snapshot    |                42 |                                 |            0.0 |", "{text}");
        assert_eq!(lines.last().copied(), Some(SMALL_NOTE));
    }

    /// Narrower than the table: parts that each fit, the label column in every one, every
    /// column in exactly one part.
    #[test]
    fn a_wide_section_is_split_into_parts_that_fit() {
        for w in [40, 60, 80] {
            let text = table(&[section()], Fit { width: Some(w) }).unwrap();
            for l in text.lines().filter(|l| l.starts_with('|') || l.starts_with('+')) {
                assert!(width(l) <= w, "{w}: {l}");
            }
            let headers: Vec<&str> = text.lines().filter(|l| l.starts_with("| eval_window")).collect();
            assert!(headers.len() > 1, "{w}: {text}");
            if w < 50 {
                // A header wider than the room left is cut, the cut marked; its part's line
                // names it whole.
                assert!(text.contains("strict_acceptance_rat…") && text.contains(": strict_acceptance_rate [95% CI])"), "{text}");
                continue;
            }
            let mut seen: Vec<&str> = headers.iter().flat_map(|h| h.split('|').map(str::trim).filter(|c| !c.is_empty() && *c != "eval_window")).collect();
            seen.sort();
            assert_eq!(seen, vec!["evaluable_outputs", "rejection_rate", "strict_acceptance_rate [95% CI]"], "{w}: {text}");
        }
    }

    /// A second interval of a rate, with no rate column of its own (a clustered one beside
    /// the Wilson interval), is one cell too: `[low-high]`, empty where it is NULL.
    #[test]
    fn an_interval_without_its_own_rate_is_one_cell() {
        let extra: Vec<(&str, ArrayRef)> = vec![
            ("strict_clustered_ci_low", Arc::new(Float64Array::from(vec![Some(0.0512), None]))),
            ("strict_clustered_ci_high", Arc::new(Float64Array::from(vec![Some(0.3977), None]))),
        ];
        let base = section();
        let schema = base.schema();
        let columns = schema.fields().iter().map(|f| f.name().as_str()).zip(base.columns().iter().cloned());
        let batch = RecordBatch::try_from_iter(columns.chain(extra)).unwrap();
        let text = table(&[batch], Fit { width: None }).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[1].ends_with("| rejection_rate | strict_clustered [95% CI] |") && !text.contains("_ci_"), "{text}");
        assert!(lines[3].ends_with("|         0.3333 |               [0.05-0.40] |"), "{text}");
        assert!(lines[4].ends_with("|            0.0 |                           |"), "{text}");
    }

    #[test]
    fn titles_wrap_at_spaces() {
        assert_eq!(wrap("one two three four", Fit { width: Some(9) }), "one two\nthree\nfour\n");
        assert_eq!(wrap("a verylongword b", Fit { width: Some(4) }), "a\nverylongword\nb\n");
        assert_eq!(wrap("one two", Fit { width: None }), "one two\n");
    }
}
