//! Comparisons of a cell's acceptance with the rest of its family, corrected for testing many:
//! what a bundled query's counts (`queries/acceptance_comparisons.sql`,
//! `queries/aidev/task_comparisons.sql`) become on the dashboard.
//!
//! The query gives, per row, a 2x2 table: the cell's accepted and not accepted, and the same
//! over the rest of its family (the other cells of its window, or of the study). The tests are
//! not portable SQL (a hypergeometric tail is a loop), so they are computed here, on the
//! query's rows, and the query keeps what every engine computes alike (its `.slt` file checks
//! DuckDB gives the same rows). Each row gets four columns:
//!
//! - `test`: `fisher`, Fisher's exact test, two-sided; NULL where the family has no other
//!   cell (nothing to compare with).
//! - `p_value`: its p-value as `scipy.stats.fisher_exact` computes it: the probability, under
//!   the hypergeometric distribution of the table's margins, of every table no more probable
//!   than the one observed (within a relative 10⁻¹⁴).
//! - `p_holm`: Holm's step-down adjustment across the family's tested rows (Holm 1979), the
//!   family-wise error rate; `statsmodels.stats.multitest.multipletests(method="holm")`.
//! - `p_bh`: Benjamini and Hochberg's step-up adjustment across the same rows (1995), the
//!   false discovery rate; `multipletests(method="fdr_bh")`.
//!
//! The same rows give the same bytes: the arithmetic is sequential, in row order.

use std::collections::BTreeMap;
use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, Float64Array, StringArray};
use arrow::compute::{cast, concat_batches};
use arrow::datatypes::{DataType, Field, Int64Type, Schema};
use arrow::record_batch::RecordBatch;

use crate::error::{Error, Result};

/// Which columns of a query's rows hold the 2x2 table and which say the family.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Comparison {
    /// The columns whose values together name a row's family (none: the whole result).
    pub(crate) family: &'static [&'static str],
    /// The table: the cell's accepted, not accepted; the rest's accepted, not accepted.
    pub(crate) counts: [&'static str; 4],
}

/// `queries/acceptance_comparisons.sql`: each workflow and type against its window's others.
pub(crate) const BY_WINDOW: Comparison = Comparison { family: &["eval_window"], counts: ["accepted", "not_accepted", "rest_accepted", "rest_not_accepted"] };

/// `queries/aidev/task_comparisons.sql`: each agent and task type against the study's others.
pub(crate) const ACROSS_TASKS: Comparison = Comparison { family: &[], counts: ["merged", "not_merged", "rest_merged", "rest_not_merged"] };

/// The relative tolerance within which a table is as probable as the observed one (scipy's).
const TIE: f64 = 1e-14;

/// The two-sided p-value of Fisher's exact test on the table `[[a, b], [c, d]]`, as
/// `scipy.stats.fisher_exact` computes it: 1 when a row or a column is empty.
pub(crate) fn fisher_exact(a: u64, b: u64, c: u64, d: u64) -> f64 {
    let (row1, row2, col1) = (a + b, c + d, a + c);
    if row1 == 0 || row2 == 0 || col1 == 0 || b + d == 0 {
        return 1.0;
    }
    // x, the top-left count, ranges over the support; each table's probability is taken
    // relative to the mode's (1 there), by the ratio of neighbours, so nothing overflows.
    let (lo, hi) = (col1.saturating_sub(row2), row1.min(col1));
    let total = row1 + row2;
    let mode = (((col1 + 1) as f64 * (row1 + 1) as f64) / (total + 2) as f64) as u64;
    let mode = mode.clamp(lo, hi);
    // pmf(x + 1) / pmf(x) = (row1 - x)(col1 - x) / ((x + 1)(row2 - col1 + x + 1)).
    let up = |x: u64| ((row1 - x) as f64 * (col1 - x) as f64) / ((x + 1) as f64 * (row2 + x + 1 - col1) as f64);
    let mut weights: Vec<(u64, f64)> = vec![(mode, 1.0)];
    let (mut x, mut w) = (mode, 1.0);
    while x < hi && w > 0.0 {
        w *= up(x);
        x += 1;
        weights.push((x, w));
    }
    let (mut x, mut w) = (mode, 1.0);
    while x > lo && w > 0.0 {
        w /= up(x - 1);
        x -= 1;
        weights.push((x, w));
    }
    // A table beyond the last one kept is less probable than 10^-308 of the mode's: 0 here.
    let observed = weights.iter().find(|(x, _)| *x == a).map_or(0.0, |(_, w)| *w);
    let all: f64 = weights.iter().map(|(_, w)| w).sum();
    let extreme: f64 = weights.iter().filter(|(_, w)| *w <= observed * (1.0 + TIE)).map(|(_, w)| w).sum();
    (extreme / all).min(1.0)
}

/// Holm's step-down adjustment of `p`, in its order: the i-th smallest times (m − i), each
/// at least the one before, at most 1.
pub(crate) fn holm(p: &[f64]) -> Vec<f64> {
    let m = p.len();
    let mut out = vec![0.0; m];
    let mut running: f64 = 0.0;
    for (i, &at) in ascending(p).iter().enumerate() {
        running = running.max(p[at] * (m - i) as f64);
        out[at] = running.min(1.0);
    }
    out
}

/// Benjamini and Hochberg's step-up adjustment of `p`, in its order: the i-th smallest over
/// i/m, each at most the one after, at most 1.
pub(crate) fn benjamini_hochberg(p: &[f64]) -> Vec<f64> {
    let m = p.len();
    let mut out = vec![0.0; m];
    let mut running = f64::INFINITY;
    for (i, &at) in ascending(p).iter().enumerate().rev() {
        running = running.min(p[at] / ((i + 1) as f64 / m as f64));
        out[at] = running.min(1.0);
    }
    out
}

/// The positions of `p` from the smallest value up (ties in their order).
fn ascending(p: &[f64]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..p.len()).collect();
    order.sort_by(|&i, &j| p[i].total_cmp(&p[j]));
    order
}

/// A column of `batch` by name, as `to` (cast), or an error naming what the query lacks.
fn column(batch: &RecordBatch, name: &str, to: &DataType) -> Result<ArrayRef> {
    let c = batch.column_by_name(name).ok_or_else(|| Error::usage(format!("a comparison's query has no column `{name}`")))?;
    Ok(cast(c, to)?)
}

/// The rows of a query's result with `test`, `p_value`, `p_holm` and `p_bh` appended
/// ([`Comparison`] says which columns are the table and the family).
pub(crate) fn complete(batches: &[RecordBatch], how: &Comparison) -> Result<Vec<RecordBatch>> {
    let Some(first) = batches.first() else { return Ok(Vec::new()) };
    let batch = concat_batches(&first.schema(), batches)?;
    let counts = how.counts.iter().map(|c| column(&batch, c, &DataType::Int64)).collect::<Result<Vec<_>>>()?;
    let counts: Vec<_> = counts.iter().map(|c| c.as_primitive::<Int64Type>().clone()).collect();
    let keys = how.family.iter().map(|c| column(&batch, c, &DataType::Utf8)).collect::<Result<Vec<_>>>()?;
    let rows = batch.num_rows();
    let (mut tests, mut p) = (vec![None; rows], vec![None; rows]);
    let mut families: BTreeMap<Vec<Option<String>>, Vec<usize>> = BTreeMap::new();
    for r in 0..rows {
        let cell: Option<Vec<u64>> = counts.iter().map(|c| c.is_valid(r).then(|| c.value(r)).and_then(|v| u64::try_from(v).ok())).collect();
        let Some([a, b, c, d]) = cell.as_deref().map(|v| [v[0], v[1], v[2], v[3]]) else { continue };
        if c + d == 0 {
            continue;
        }
        tests[r] = Some("fisher");
        p[r] = Some(fisher_exact(a, b, c, d));
        let key = keys.iter().map(|k| k.as_string::<i32>()).map(|k| k.is_valid(r).then(|| k.value(r).to_string())).collect();
        families.entry(key).or_default().push(r);
    }
    let (mut p_holm, mut p_bh) = (vec![None; rows], vec![None; rows]);
    for members in families.values() {
        let ps: Vec<f64> = members.iter().filter_map(|&r| p[r]).collect();
        for ((&r, h), bh) in members.iter().zip(holm(&ps)).zip(benjamini_hochberg(&ps)) {
            (p_holm[r], p_bh[r]) = (Some(h), Some(bh));
        }
    }
    let mut fields: Vec<Field> = batch.schema().fields().iter().map(|f| f.as_ref().clone()).collect();
    fields.push(Field::new("test", DataType::Utf8, true));
    for name in ["p_value", "p_holm", "p_bh"] {
        fields.push(Field::new(name, DataType::Float64, true));
    }
    let mut columns = batch.columns().to_vec();
    columns.push(Arc::new(StringArray::from(tests)));
    for v in [p, p_holm, p_bh] {
        columns.push(Arc::new(Float64Array::from(v)));
    }
    Ok(vec![RecordBatch::try_new(Arc::new(Schema::new(fields)), columns)?])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The hypergeometric probability of x in [[x, row1 - x], [col1 - x, ...]], from factorials
    /// in exact rationals' stead: log-gamma by summing logarithms (small tables only).
    fn pmf(x: u64, row1: u64, row2: u64, col1: u64) -> f64 {
        let ln_choose = |n: u64, k: u64| (1..=k).map(|i| ((n - k + i) as f64).ln() - (i as f64).ln()).sum::<f64>();
        (ln_choose(row1, x) + ln_choose(row2, col1 - x) - ln_choose(row1 + row2, col1)).exp()
    }

    /// Fisher's tea-tasting table, [[3, 1], [1, 3]]: the tables with x = 0..4 have probabilities
    /// 1, 16, 36, 16, 1 in 70, so two-sided p = (1 + 16 + 16 + 1) / 70 = 17/35.
    #[test]
    fn the_lady_tasting_tea() {
        assert!((fisher_exact(3, 1, 1, 3) - 34.0 / 70.0).abs() < 1e-15, "{}", fisher_exact(3, 1, 1, 3));
        // The most probable table is as extreme as any: p = 1.
        assert_eq!(fisher_exact(2, 2, 2, 2), 1.0);
        // Every tea called right by chance: 1 in 70, and its mirror image: 2/70.
        assert!((fisher_exact(4, 0, 0, 4) - 2.0 / 70.0).abs() < 1e-15);
    }

    /// On every table up to 12 in each cell, the p-value is the sum of the probabilities of the
    /// tables no more probable than the observed one, computed apart from logarithms.
    #[test]
    fn p_is_the_sum_of_the_tables_no_more_probable() {
        for (a, b, c, d) in (0..13u64).flat_map(|a| (0..13u64).flat_map(move |b| (0..13u64).flat_map(move |c| [0u64, 1, 5, 12].map(move |d| (a, b, c, d))))) {
            let (row1, row2, col1) = (a + b, c + d, a + c);
            if row1 == 0 || row2 == 0 || col1 == 0 || b + d == 0 {
                assert_eq!(fisher_exact(a, b, c, d), 1.0);
                continue;
            }
            let support = col1.saturating_sub(row2)..=row1.min(col1);
            let observed = pmf(a, row1, row2, col1);
            let want: f64 = support.map(|x| pmf(x, row1, row2, col1)).filter(|q| *q <= observed * (1.0 + 1e-7)).sum();
            let got = fisher_exact(a, b, c, d);
            assert!((got - want.min(1.0)).abs() < 1e-9, "[[{a}, {b}], [{c}, {d}]]: {got}, want {want}");
        }
    }

    /// Holm and Benjamini-Hochberg on four p-values, worked by hand: sorted 0.01, 0.02, 0.03,
    /// 0.5; Holm 0.04, 0.06, 0.06 (0.03 * 2 = 0.06, not below the one before), 0.5; BH
    /// 0.04, 0.04, 0.04 (0.03 * 4/3), 0.5. Given in another order, each stays with its own.
    #[test]
    fn holm_and_benjamini_hochberg_by_hand() {
        let p = [0.5, 0.03, 0.01, 0.02];
        let close = |got: Vec<f64>, want: [f64; 4]| got.iter().zip(want).all(|(g, w)| (g - w).abs() < 1e-15);
        assert!(close(holm(&p), [0.5, 0.06, 0.04, 0.06]), "{:?}", holm(&p));
        assert!(close(benjamini_hochberg(&p), [0.5, 0.04, 0.04, 0.04]), "{:?}", benjamini_hochberg(&p));
        // Capped at 1.
        assert_eq!(holm(&[0.6, 0.7]), vec![1.0, 1.0]);
        assert_eq!(benjamini_hochberg(&[0.9, 0.95]), vec![0.95, 0.95]);
    }

    /// Large tables (a million outputs) stay finite and exact enough: a cell with the rest's
    /// rate has p near 1, one far from it p of 0 in double precision.
    #[test]
    fn large_tables() {
        let p = fisher_exact(10_000, 90_000, 100_000, 900_000);
        assert!(p > 0.99 && p <= 1.0, "{p}");
        assert_eq!(fisher_exact(50_000, 50_000, 100_000, 900_000), 0.0);
    }
}
