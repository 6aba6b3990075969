//! DuckDB's date helpers as SQL functions: `date_diff(part, start, end)` (also spelled
//! `datediff`) and `epoch(x)`.
//!
//! Why: researchers carry queries between DuckDB and hindsight (`hindsight views --dialect
//! duckdb`); DataFusion has neither function, so a query counting days between two
//! timestamps ran in one engine and failed in the other. Here each gives DuckDB's number
//! (tests/it/sql.rs compares them with DuckDB's on month and year boundaries, before 1970
//! and on negative spans).
//!
//! `date_diff` counts the boundaries of `part` crossed from `start` to `end`, negative
//! when `end` is earlier, as DuckDB does: `second`, `minute`, `hour` and `day` on the UTC
//! clock and calendar (`date_diff('day', '23:00', '01:00 the next day')` is 1); `month`,
//! `quarter` and `year` by calendar month, quarter and year; `week` is whole weeks of the
//! day count (the days' difference divided by 7, toward zero), as DuckDB counts it. Time
//! zones: an instant (`TIMESTAMP WITH TIME ZONE`) is counted on the UTC calendar, DuckDB's
//! with `SET TimeZone = 'UTC'`.
//!
//! `epoch(x)` is seconds since 1970-01-01 00:00:00 UTC as a DOUBLE, for a timestamp or a
//! date; for a span (`INTERVAL`, a difference of timestamps) its length in seconds, a year
//! counted as 365.25 days and a month as 30, as DuckDB's `epoch(INTERVAL ...)` counts them.

use std::sync::{Arc, LazyLock};

use datafusion::arrow::array::{Array, ArrayRef, AsArray, Float64Array, Int64Array};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Int64Type, IntervalMonthDayNanoType, IntervalUnit, TimeUnit};
use datafusion::common::{DataFusionError, Result, ScalarValue};
use datafusion::execution::FunctionRegistry;
use datafusion::logical_expr::{ColumnarValue, Documentation, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature, Volatility};

const MICROS_PER_SECOND: i64 = 1_000_000;
const MICROS_PER_DAY: i64 = 86_400 * MICROS_PER_SECOND;

/// A part `date_diff` counts, with the spellings DuckDB takes for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Part {
    Microsecond,
    Millisecond,
    Second,
    Minute,
    Hour,
    Day,
    Week,
    Month,
    Quarter,
    Year,
}

/// The parts' names, as the error for an unknown one lists them.
const PART_NAMES: &str = "microsecond, millisecond, second, minute, hour, day, week, month, quarter or year";

impl Part {
    /// `part` in any case, singular, plural or abbreviated as DuckDB takes it (`'days'`, `'d'`,
    /// `'hr'`, `'ms'`).
    pub(crate) fn parse(part: &str) -> Option<Part> {
        Some(match part.trim().to_ascii_lowercase().as_str() {
            "microsecond" | "microseconds" | "us" | "usec" | "usecs" | "usecond" | "useconds" => Part::Microsecond,
            "millisecond" | "milliseconds" | "ms" | "msec" | "msecs" | "msecond" | "mseconds" => Part::Millisecond,
            "second" | "seconds" | "s" | "sec" | "secs" => Part::Second,
            "minute" | "minutes" | "m" | "min" | "mins" => Part::Minute,
            "hour" | "hours" | "h" | "hr" | "hrs" => Part::Hour,
            "day" | "days" | "d" | "dayofmonth" => Part::Day,
            "week" | "weeks" | "w" | "weekofyear" => Part::Week,
            "month" | "months" | "mon" | "mons" => Part::Month,
            "quarter" | "quarters" => Part::Quarter,
            "year" | "years" | "y" | "yr" | "yrs" => Part::Year,
            _ => return None,
        })
    }
}

/// The civil date (year, month 1-12) of `days` since 1970-01-01 (Howard Hinnant's
/// `civil_from_days`, exact over the whole `i64` day range DuckDB's timestamps span).
fn year_month(days: i64) -> (i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month)
}

/// The boundaries of `part` crossed from `start` to `end` (microseconds since 1970 UTC), as
/// DuckDB's `date_diff` counts them; `None` when the count does not fit a BIGINT.
pub(crate) fn date_diff(part: Part, start: i64, end: i64) -> Option<i64> {
    let floor = |unit: i64| end.div_euclid(unit).checked_sub(start.div_euclid(unit));
    let days = || floor(MICROS_PER_DAY);
    let months = |t: i64| {
        let (y, m) = year_month(t.div_euclid(MICROS_PER_DAY));
        y * 12 + m - 1
    };
    match part {
        Part::Microsecond => end.checked_sub(start),
        Part::Millisecond => floor(1_000),
        Part::Second => floor(MICROS_PER_SECOND),
        Part::Minute => floor(60 * MICROS_PER_SECOND),
        Part::Hour => floor(3_600 * MICROS_PER_SECOND),
        Part::Day => days(),
        Part::Week => days().map(|d| d / 7),
        Part::Month => Some(months(end) - months(start)),
        Part::Quarter => Some(months(end).div_euclid(3) - months(start).div_euclid(3)),
        Part::Year => Some(months(end).div_euclid(12) - months(start).div_euclid(12)),
    }
}

/// Seconds in a span of `months`, `days` and `micros` as DuckDB's `epoch(INTERVAL ...)`
/// counts them: each whole year of the months 365.25 days, each month left 30 days.
pub(crate) fn span_seconds(months: i64, days: i64, micros: i64) -> f64 {
    let (years, months) = (i128::from(months / 12), i128::from(months % 12));
    let day = i128::from(MICROS_PER_DAY);
    let total = years * (day * 1461 / 4) + (months * 30 + i128::from(days)) * day + i128::from(micros);
    total as f64 / MICROS_PER_SECOND as f64
}

/// Registers `date_diff` (and `datediff`) and `epoch` in `registry` (a session, or a
/// cluster's scheduler or executor).
pub(crate) fn register(registry: &mut dyn FunctionRegistry) -> Result<()> {
    registry.register_udf(Arc::new(ScalarUDF::new_from_impl(DateDiff::default())))?;
    registry.register_udf(Arc::new(ScalarUDF::new_from_impl(Epoch::default())))?;
    Ok(())
}

/// The type an instant argument is taken as: microseconds, its time zone kept (a date, a
/// timestamp's text or NULL: no zone).
fn as_instant(t: &DataType, function: &str) -> Result<DataType> {
    match t {
        DataType::Timestamp(_, tz) => Ok(DataType::Timestamp(TimeUnit::Microsecond, tz.clone())),
        DataType::Date32 | DataType::Date64 | DataType::Null | DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => {
            Ok(DataType::Timestamp(TimeUnit::Microsecond, None))
        }
        other => Err(DataFusionError::Plan(format!("{function} takes a timestamp or a date, not {}", super::types::sql_type(other)))),
    }
}

/// `a` (a timestamp of microseconds, [`as_instant`]) as microseconds since 1970 UTC.
fn micros(a: &ArrayRef) -> Result<Int64Array> {
    let a = match a.data_type() {
        DataType::Timestamp(TimeUnit::Microsecond, _) => a.clone(),
        DataType::Timestamp(_, tz) => cast(a, &DataType::Timestamp(TimeUnit::Microsecond, tz.clone()))?,
        _ => cast(a, &DataType::Timestamp(TimeUnit::Microsecond, None))?,
    };
    Ok(cast(&a, &DataType::Int64)?.as_primitive::<Int64Type>().clone())
}

/// The arguments as arrays of one length, and whether all were single values (the result
/// is then one too).
fn arrays(args: &ScalarFunctionArgs) -> Result<(Vec<ArrayRef>, bool)> {
    let scalar = args.args.iter().all(|a| matches!(a, ColumnarValue::Scalar(_)));
    let rows = if scalar { 1 } else { args.number_rows };
    Ok((args.args.iter().map(|a| a.to_array(rows)).collect::<Result<_>>()?, scalar))
}

fn result(out: ArrayRef, scalar: bool) -> Result<ColumnarValue> {
    Ok(if scalar { ColumnarValue::Scalar(ScalarValue::try_from_array(&out, 0)?) } else { ColumnarValue::Array(out) })
}

#[derive(Debug, PartialEq, Eq, Hash)]
struct DateDiff {
    signature: Signature,
    aliases: Vec<String>,
}

impl Default for DateDiff {
    fn default() -> Self {
        DateDiff { signature: Signature::user_defined(Volatility::Immutable), aliases: vec!["datediff".into()] }
    }
}

static DATE_DIFF_DOC: LazyLock<Documentation> = LazyLock::new(|| {
    Documentation::builder(
        super::wilson::DOC_SECTION,
        "The number of `part` boundaries crossed from start to end (negative when end is earlier), as DuckDB's date_diff counts them on the UTC calendar; part: microsecond, millisecond, second, minute, hour, day, week, month, quarter or year.",
        "date_diff(part, start, end)",
    )
    .with_sql_example("SELECT date_diff('day', created_at, evaluated_at) FROM outcomes")
    .with_argument("part", "The unit counted: 'second', 'minute', 'hour', 'day', 'week', 'month', 'quarter', 'year' ...")
    .with_argument("start", "A timestamp or a date.")
    .with_argument("end", "A timestamp or a date.")
    .with_related_udf("epoch")
    .build()
});

impl ScalarUDFImpl for DateDiff {
    fn name(&self) -> &str {
        "date_diff"
    }
    fn aliases(&self) -> &[String] {
        &self.aliases
    }
    fn signature(&self) -> &Signature {
        &self.signature
    }
    fn coerce_types(&self, arg_types: &[DataType]) -> Result<Vec<DataType>> {
        let [part, start, end] = arg_types else {
            return Err(DataFusionError::Plan(format!("date_diff(part, start, end) takes three arguments, not {}", arg_types.len())));
        };
        if !matches!(part, DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View | DataType::Null) {
            return Err(DataFusionError::Plan(format!("date_diff's part is text ('day', 'month' ...), not {}", super::types::sql_type(part))));
        }
        Ok(vec![DataType::Utf8, as_instant(start, "date_diff")?, as_instant(end, "date_diff")?])
    }
    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(DataType::Int64)
    }
    fn documentation(&self) -> Option<&Documentation> {
        Some(&DATE_DIFF_DOC)
    }
    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let (arrays, scalar) = arrays(&args)?;
        let [part, start, end] = arrays.as_slice() else {
            return Err(DataFusionError::Plan("date_diff(part, start, end) takes three arguments".into()));
        };
        let part = cast(part, &DataType::Utf8)?;
        let (part, start, end) = (part.as_string::<i32>(), micros(start)?, micros(end)?);
        let mut out = Int64Array::builder(part.len());
        for i in 0..part.len() {
            if part.is_null(i) || start.is_null(i) || end.is_null(i) {
                out.append_null();
                continue;
            }
            let name = part.value(i);
            let p = Part::parse(name).ok_or_else(|| DataFusionError::Execution(format!("date_diff: unknown part '{name}': expected {PART_NAMES}")))?;
            let n = date_diff(p, start.value(i), end.value(i))
                .ok_or_else(|| DataFusionError::Execution(format!("date_diff('{name}', ...): the count does not fit a BIGINT")))?;
            out.append_value(n);
        }
        result(Arc::new(out.finish()), scalar)
    }
}

#[derive(Debug, PartialEq, Eq, Hash)]
struct Epoch {
    signature: Signature,
}

impl Default for Epoch {
    fn default() -> Self {
        Epoch { signature: Signature::user_defined(Volatility::Immutable) }
    }
}

static EPOCH_DOC: LazyLock<Documentation> = LazyLock::new(|| {
    Documentation::builder(
        super::wilson::DOC_SECTION,
        "Seconds since 1970-01-01 00:00:00 UTC as a DOUBLE (DuckDB's epoch); for an interval, its length in seconds, a year counted as 365.25 days and a month as 30.",
        "epoch(x)",
    )
    .with_sql_example("SELECT epoch(evaluated_at) - epoch(created_at) FROM outcomes")
    .with_argument("x", "A timestamp, a date or an interval.")
    .with_related_udf("date_diff")
    .build()
});

impl ScalarUDFImpl for Epoch {
    fn name(&self) -> &str {
        "epoch"
    }
    fn signature(&self) -> &Signature {
        &self.signature
    }
    fn coerce_types(&self, arg_types: &[DataType]) -> Result<Vec<DataType>> {
        let [x] = arg_types else {
            return Err(DataFusionError::Plan(format!("epoch(x) takes one argument, not {}", arg_types.len())));
        };
        Ok(vec![match x {
            DataType::Duration(_) => DataType::Duration(TimeUnit::Microsecond),
            DataType::Interval(_) => DataType::Interval(IntervalUnit::MonthDayNano),
            other => as_instant(other, "epoch")?,
        }])
    }
    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(DataType::Float64)
    }
    fn documentation(&self) -> Option<&Documentation> {
        Some(&EPOCH_DOC)
    }
    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let (arrays, scalar) = arrays(&args)?;
        let [x] = arrays.as_slice() else {
            return Err(DataFusionError::Plan("epoch(x) takes one argument".into()));
        };
        let out: Float64Array = match x.data_type() {
            DataType::Interval(_) => {
                let x = cast(x, &DataType::Interval(IntervalUnit::MonthDayNano))?;
                x.as_primitive::<IntervalMonthDayNanoType>()
                    .iter()
                    .map(|v| v.map(|v| span_seconds(v.months.into(), v.days.into(), v.nanoseconds.div_euclid(1_000))))
                    .collect()
            }
            DataType::Duration(_) => {
                let x = cast(&cast(x, &DataType::Duration(TimeUnit::Microsecond))?, &DataType::Int64)?;
                x.as_primitive::<Int64Type>().iter().map(|v| v.map(|v| span_seconds(0, 0, v))).collect()
            }
            _ => micros(x)?.iter().map(|v| v.map(|v| span_seconds(0, 0, v))).collect(),
        };
        result(Arc::new(out), scalar)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use datafusion::arrow::array::{Date32Array, StringArray};

    /// Microseconds since 1970 of a UTC date and time, as Arrow's parser reads it (an
    /// implementation apart from this module's).
    fn at(text: &str) -> i64 {
        let a: ArrayRef = Arc::new(StringArray::from(vec![text]));
        micros(&cast(&a, &DataType::Timestamp(TimeUnit::Microsecond, None)).unwrap()).unwrap().value(0)
    }

    /// The calendar agrees with Arrow's on every day from 1600 to 2400.
    #[test]
    fn the_calendar_is_arrows() {
        let (from, to) = (at("1600-01-01 00:00:00") / MICROS_PER_DAY, at("2400-01-01 00:00:00") / MICROS_PER_DAY);
        let days: ArrayRef = Arc::new(Date32Array::from((from as i32..to as i32).collect::<Vec<_>>()));
        let text = cast(&days, &DataType::Utf8).unwrap();
        for (i, day) in text.as_string::<i32>().iter().enumerate() {
            let day = day.unwrap();
            let (y, m) = year_month(from + i as i64);
            assert_eq!(format!("{y:04}-{m:02}"), day[..7], "{day}");
        }
    }

    /// Boundaries crossed, not whole units elapsed: a second apart across midnight on New
    /// Year's Eve is a day, a month and a year; the reverse is negative.
    #[test]
    fn parts_count_boundaries_crossed() {
        let (a, b) = (at("2023-12-31 23:59:59.5"), at("2024-01-01 00:00:00.25"));
        for (part, n) in [("second", 1), ("minute", 1), ("hour", 1), ("day", 1), ("week", 0), ("month", 1), ("quarter", 1), ("year", 1), ("ms", 750)] {
            let p = Part::parse(part).unwrap();
            assert_eq!(date_diff(p, a, b), Some(n), "{part}");
            assert_eq!(date_diff(p, b, a), Some(-n), "{part} reversed");
        }
        assert_eq!(date_diff(Part::Hour, at("1969-12-31 23:30:00"), at("1970-01-01 00:30:00")), Some(1));
        assert_eq!(date_diff(Part::Week, at("2024-01-01 12:00:00"), at("2024-01-08 11:00:00")), Some(1));
        assert_eq!(date_diff(Part::Microsecond, i64::MIN, i64::MAX), None);
        assert_eq!(Part::parse("Days"), Some(Part::Day));
        assert_eq!(Part::parse("fortnight"), None);
    }
}
