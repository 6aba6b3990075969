//! The 95% Wilson score interval of a rate as two SQL functions, `wilson_low(k, n)` and
//! `wilson_high(k, n)`: the low and high end of the interval for `k` successes in `n` trials
//! (Wilson, E. B. 1927, "Probable inference, the law of succession, and statistical
//! inference", JASA 22(158):209–212; Brown, Cai & DasGupta 2001 recommend it over the plain
//! `p ± 1.96·√(p(1−p)/n)`).
//!
//! Why: the bundled queries give every rate they chart with its interval; written out in SQL
//! it was the same formula some thirty times over five files, each a chance to mistype it.
//! Here it is once, as a function hindsight's session has (and a cluster's scheduler and
//! executors: [`super::register_functions`]), and as DuckDB macros of the same formula that
//! `hindsight views --dialect duckdb` prints before the views ([`duckdb_macros`]), so the
//! bundled queries and a researcher's own SQL (`SELECT wilson_low(merged, prs) ...`) run in
//! both engines.
//!
//! The formula, with z = 1.96 (two-sided 95%):
//!
//! ```text
//! low  = (k + z²/2 − z·√(k(n−k)/n + z²/4)) / (n + z²)
//! high = 1 − (n − k + z²/2 − z·√(k(n−k)/n + z²/4)) / (n + z²)
//! ```
//!
//! The high end is the low end of the failures' interval (`n − k` of `n`) taken from 1: the
//! same number as the `+` form, and exactly 1 at `k = n` (and the low end exactly 0 at
//! `k = 0`). Each end is computed with the operations, in the order, of the SQL expression
//! the bundled queries used before these functions ([`LOW`], [`HIGH`]) over `DOUBLE`s, so a
//! result is the same bits as that expression's in DataFusion. Both ends are NULL where `k`
//! or `n` is NULL and where `n` is 0 (no interval without a sample), as that expression's
//! `NULLIF(n, 0)` made them. Arguments are any numbers (counts), taken as `DOUBLE`.

use std::sync::{Arc, LazyLock};

use datafusion::arrow::array::{Array, AsArray, Float64Array};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Float64Type};
use datafusion::common::{DataFusionError, Result, ScalarValue};
use datafusion::execution::FunctionRegistry;
use datafusion::logical_expr::{ColumnarValue, DocSection, Documentation, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature, Volatility};

/// z of the two-sided 95% interval, as the queries have always written it (`CAST(1.96 AS
/// DOUBLE)`): the intervals hindsight reports are computed with exactly this value.
pub const Z: f64 = 1.96;

/// The low end as SQL over `{k}`, `{n}` and `{z}` (each a `DOUBLE`): the expression the
/// bundled queries wrote out before [`wilson_low`], and the body of the DuckDB macro.
pub const LOW: &str = "({k} + {z} * {z} / 2 - {z} * SQRT({k} * ({n} - {k}) / NULLIF({n}, 0) + {z} * {z} / 4)) / ({n} + {z} * {z})";

/// The high end as SQL over `{k}`, `{n}` and `{z}`, as [`LOW`].
pub const HIGH: &str = "1 - ({n} - {k} + {z} * {z} / 2 - {z} * SQRT({k} * ({n} - {k}) / NULLIF({n}, 0) + {z} * {z} / 4)) / ({n} + {z} * {z})";

/// [`LOW`] or [`HIGH`] with `k`, `n` and `z` substituted: SQL expressions that bind as one
/// term (a column, a literal, a `CAST(...)`, a call, or anything in parentheses).
pub fn sql(template: &str, k: &str, n: &str, z: &str) -> String {
    template.replace("{k}", k).replace("{n}", n).replace("{z}", z)
}

/// One end of the interval.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum End {
    Low,
    High,
}

impl End {
    /// The SQL function's name.
    pub fn name(self) -> &'static str {
        match self {
            End::Low => "wilson_low",
            End::High => "wilson_high",
        }
    }

    fn template(self) -> &'static str {
        match self {
            End::Low => LOW,
            End::High => HIGH,
        }
    }

    /// This end for `k` of `n`: [`wilson_low`] or [`wilson_high`].
    pub fn of(self, k: f64, n: f64) -> Option<f64> {
        match self {
            End::Low => wilson_low(k, n),
            End::High => wilson_high(k, n),
        }
    }
}

/// `z·√(k(n−k)/n + z²/4)`, the half-width term both ends share; `None` at n = 0
/// (`NULLIF(n, 0)`).
fn spread(k: f64, n: f64) -> Option<f64> {
    if n == 0.0 {
        return None;
    }
    Some(Z * (k * (n - k) / n + Z * Z / 4.0).sqrt())
}

/// The low end of the 95% Wilson score interval of `k` of `n`: `(k + z²/2 − z·√(k(n−k)/n +
/// z²/4)) / (n + z²)`, in that order of operations; `None` when `n` is 0.
pub fn wilson_low(k: f64, n: f64) -> Option<f64> {
    Some((k + Z * Z / 2.0 - spread(k, n)?) / (n + Z * Z))
}

/// The high end of the 95% Wilson score interval of `k` of `n`: `1 − (n − k + z²/2 −
/// z·√(k(n−k)/n + z²/4)) / (n + z²)`, in that order of operations; `None` when `n` is 0.
pub fn wilson_high(k: f64, n: f64) -> Option<f64> {
    Some(1.0 - (n - k + Z * Z / 2.0 - spread(k, n)?) / (n + Z * Z))
}

/// Registers `wilson_low` and `wilson_high` in `registry` (a session, or a cluster's
/// scheduler or executor).
pub fn register(registry: &mut dyn FunctionRegistry) -> Result<()> {
    for end in [End::Low, End::High] {
        registry.register_udf(Arc::new(ScalarUDF::new_from_impl(Wilson::new(end))))?;
    }
    Ok(())
}

/// The DuckDB macros of the same name and formula ([`LOW`], [`HIGH`] over the arguments as
/// `DOUBLE`), one statement a line: what `hindsight views --dialect duckdb` prints before the
/// views, so the bundled queries that call them run there.
pub fn duckdb_macros() -> String {
    let (k, n, z) = ("CAST(k AS DOUBLE)", "CAST(n AS DOUBLE)", "CAST(1.96 AS DOUBLE)");
    [End::Low, End::High].iter().map(|end| format!("CREATE OR REPLACE MACRO {}(k, n) AS {};\n", end.name(), sql(end.template(), k, n, z))).collect()
}

#[derive(Debug, PartialEq, Eq, Hash)]
struct Wilson {
    end: End,
    signature: Signature,
}

impl Wilson {
    fn new(end: End) -> Wilson {
        Wilson { end, signature: Signature::user_defined(Volatility::Immutable) }
    }
}

/// The section hindsight's own functions are listed under in the function documentation.
pub(crate) const DOC_SECTION: DocSection =
    DocSection { include: true, label: "hindsight functions", description: Some("Functions hindsight's SQL has beyond DataFusion's own.") };

static LOW_DOC: LazyLock<Documentation> = LazyLock::new(|| documentation(End::Low));
static HIGH_DOC: LazyLock<Documentation> = LazyLock::new(|| documentation(End::High));

fn documentation(end: End) -> Documentation {
    let (which, other) = match end {
        End::Low => ("low", End::High),
        End::High => ("high", End::Low),
    };
    Documentation::builder(
        DOC_SECTION,
        format!(
            "The {which} end of the 95% Wilson score interval (z = 1.96; Wilson 1927) of k successes in n trials; NULL when n is 0 or an argument is NULL."
        ),
        format!("{}(k, n)", end.name()),
    )
    .with_sql_example(format!("SELECT {}(merged, prs) FROM t", end.name()))
    .with_argument("k", "The successes (a count).")
    .with_argument("n", "The trials (a count).")
    .with_related_udf(other.name())
    .build()
}

impl ScalarUDFImpl for Wilson {
    fn name(&self) -> &str {
        self.end.name()
    }
    fn signature(&self) -> &Signature {
        &self.signature
    }
    fn coerce_types(&self, arg_types: &[DataType]) -> Result<Vec<DataType>> {
        if arg_types.len() != 2 {
            return Err(DataFusionError::Plan(format!("{}(k, n) takes two numbers, not {}", self.end.name(), arg_types.len())));
        }
        if let Some(t) = arg_types.iter().find(|t| !(t.is_numeric() || **t == DataType::Null)) {
            return Err(DataFusionError::Plan(format!("{}(k, n) takes two numbers (counts), not {t}", self.end.name())));
        }
        Ok(vec![DataType::Float64; 2])
    }
    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(DataType::Float64)
    }
    fn documentation(&self) -> Option<&Documentation> {
        Some(match self.end {
            End::Low => &LOW_DOC,
            End::High => &HIGH_DOC,
        })
    }
    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let [k, n] = args.args.as_slice() else {
            return Err(DataFusionError::Plan(format!("{}(k, n) takes two numbers", self.end.name())));
        };
        let scalar = matches!((k, n), (ColumnarValue::Scalar(_), ColumnarValue::Scalar(_)));
        let rows = if scalar { 1 } else { args.number_rows };
        let (k, n) = (cast(&k.to_array(rows)?, &DataType::Float64)?, cast(&n.to_array(rows)?, &DataType::Float64)?);
        let (k, n) = (k.as_primitive::<Float64Type>(), n.as_primitive::<Float64Type>());
        let out: Float64Array = (0..rows).map(|i| if k.is_null(i) || n.is_null(i) { None } else { self.end.of(k.value(i), n.value(i)) }).collect();
        Ok(if scalar { ColumnarValue::Scalar(ScalarValue::try_from_array(&out, 0)?) } else { ColumnarValue::Array(Arc::new(out)) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::prelude::SessionContext;

    /// The grid the tests compare on: k of n for n up to 12 and a few larger, k = 0, k = n,
    /// n = 0.
    fn grid() -> Vec<(i64, i64)> {
        let mut g: Vec<(i64, i64)> = (0..=12).flat_map(|n| (0..=n).map(move |k| (k, n))).collect();
        for n in [37, 100, 1000, 6219, 123_457] {
            g.extend([(0, n), (1, n), (n / 3, n), (n / 2, n), (n - 1, n), (n, n)]);
        }
        g
    }

    fn values(batches: &[datafusion::arrow::record_batch::RecordBatch], col: usize) -> Vec<Option<f64>> {
        batches
            .iter()
            .flat_map(|b| {
                let a = b.column(col).as_primitive::<Float64Type>().clone();
                (0..a.len()).map(move |i| if a.is_null(i) { None } else { Some(a.value(i)) })
            })
            .collect()
    }

    /// Each function gives, bit for bit, what the SQL expression the queries wrote out
    /// ([`LOW`], [`HIGH`] over `DOUBLE`s) gives in DataFusion, on the whole grid, NULL at
    /// n = 0 and for a NULL argument; over integer counts as over doubles.
    #[test]
    fn the_functions_are_the_sql_expression_bit_for_bit() {
        let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
        let mut ctx = SessionContext::new();
        register(&mut ctx).unwrap();
        let mut rows: Vec<String> = grid().iter().map(|(k, n)| format!("({k}, {n})")).collect();
        rows.extend(["(NULL, 5)".to_string(), "(2, NULL)".to_string(), "(NULL, NULL)".to_string()]);
        let (k, n, z) = ("CAST(k AS DOUBLE)", "CAST(n AS DOUBLE)", "CAST(1.96 AS DOUBLE)");
        let query = format!(
            "SELECT wilson_low(k, n) AS a, {} AS b, wilson_high(k, n) AS c, {} AS d, wilson_low({k}, {n}) AS e, wilson_high({k}, {n}) AS f FROM (VALUES {}) AS t(k, n)",
            sql(LOW, k, n, z),
            sql(HIGH, k, n, z),
            rows.join(", ")
        );
        let batches = rt.block_on(async { ctx.sql(&query).await.unwrap().collect().await.unwrap() });
        let cols: Vec<Vec<Option<f64>>> = (0..6).map(|c| values(&batches, c)).collect();
        assert_eq!(cols[0].len(), rows.len());
        let bits = |v: &[Option<f64>]| v.iter().map(|x| x.map(f64::to_bits)).collect::<Vec<_>>();
        assert_eq!(bits(&cols[0]), bits(&cols[1]), "wilson_low");
        assert_eq!(bits(&cols[2]), bits(&cols[3]), "wilson_high");
        assert_eq!(bits(&cols[0]), bits(&cols[4]), "wilson_low over doubles");
        assert_eq!(bits(&cols[2]), bits(&cols[5]), "wilson_high over doubles");
        for (i, (k, n)) in grid().into_iter().enumerate() {
            let (lo, hi) = (cols[0][i], cols[2][i]);
            assert_eq!(lo.map(f64::to_bits), wilson_low(k as f64, n as f64).map(f64::to_bits));
            if n == 0 {
                assert!(lo.is_none() && hi.is_none(), "{k} of 0: [{lo:?}, {hi:?}]");
                continue;
            }
            let (lo, hi, p) = (lo.unwrap(), hi.unwrap(), k as f64 / n as f64);
            assert!(lo <= p && p <= hi && (0.0..=1.0).contains(&lo) && (0.0..=1.0).contains(&hi), "{k} of {n}: {p} in [{lo}, {hi}]");
            if k == 0 {
                assert_eq!(lo, 0.0, "0 of {n}");
            }
            if k == n {
                assert_eq!(hi, 1.0, "{n} of {n}");
            }
        }
        assert_eq!(&cols[0][cols[0].len() - 3..], [None, None, None]);
    }

    /// The textbook's centre ± half-width form gives the same interval (to rounding).
    #[test]
    fn the_interval_is_the_textbooks() {
        for (k, n) in grid().into_iter().filter(|(_, n)| *n > 0) {
            let (k, n) = (k as f64, n as f64);
            let p = k / n;
            let centre = p + Z * Z / (2.0 * n);
            let half = Z * (p * (1.0 - p) / n + Z * Z / (4.0 * n * n)).sqrt();
            let denom = 1.0 + Z * Z / n;
            let (lo, hi) = (wilson_low(k, n).unwrap(), wilson_high(k, n).unwrap());
            assert!((lo - (centre - half) / denom).abs() < 1e-12 && (hi - (centre + half) / denom).abs() < 1e-12, "{k} of {n}: [{lo}, {hi}]");
        }
    }

    /// A non-number is refused at planning, with the function's name.
    #[test]
    fn text_is_refused() {
        let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
        let mut ctx = SessionContext::new();
        register(&mut ctx).unwrap();
        let e = rt.block_on(async { ctx.sql("SELECT wilson_low('a', 3)").await.map(drop) }).unwrap_err().to_string();
        assert!(e.contains("wilson_low(k, n) takes two numbers"), "{e}");
    }

    /// The DuckDB macros are the same expression over their arguments as `DOUBLE`.
    #[test]
    fn the_duckdb_macros_are_the_same_expression() {
        let m = duckdb_macros();
        assert!(m.starts_with("CREATE OR REPLACE MACRO wilson_low(k, n) AS (CAST(k AS DOUBLE) + CAST(1.96 AS DOUBLE) * CAST(1.96 AS DOUBLE) / 2 - "), "{m}");
        assert_eq!(m.lines().count(), 2);
        assert!(m.lines().nth(1).unwrap().starts_with("CREATE OR REPLACE MACRO wilson_high(k, n) AS 1 - (CAST(n AS DOUBLE) - CAST(k AS DOUBLE) + "), "{m}");
    }
}
