//! Spans of time in results (SQL `INTERVAL`: Arrow's Duration and Interval columns, such as
//! `evaluated_at - created_at`) as a researcher reads them.
//!
//! Why: Arrow prints a span as ISO 8601 (`PT74022S`), which nobody reads at a glance and
//! DuckDB never prints. Table, markdown, CSV and HTML show it as DuckDB prints an INTERVAL
//! (`20:33:42`, `1 day 02:03:04`, `1 year 2 months 3 days 00:00:01.5`), so a result reads
//! the same in both engines; JSON and NDJSON give its length in seconds as a number, what
//! DuckDB's `epoch(x)` gives for it (a year counted as 365.25 days, a month as 30), so a
//! program reading the JSON computes with it without parsing text.

use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, Float64Array, StringArray};
use arrow::compute::cast;
use arrow::datatypes::{DataType, Field, Int64Type, IntervalMonthDayNanoType, IntervalUnit, Schema, TimeUnit};
use arrow::record_batch::RecordBatch;

use super::format::Format;
use crate::error::Result;

const MICROS_PER_SECOND: u64 = 1_000_000;
const MICROS_PER_DAY: i64 = 86_400 * MICROS_PER_SECOND as i64;

/// A span of `months`, `days` and `micros` as DuckDB prints an INTERVAL: years and months,
/// days, then `HH:MM:SS[.ffffff]` (hours past 24 when the span was counted in hours, as
/// DuckDB keeps them), each part with its own sign and left out when zero; `00:00:00` when
/// all are.
pub(crate) fn duckdb_text(months: i64, days: i64, micros: i64) -> String {
    let unit = |n: i64, name: &str| format!("{n} {name}{}", if n.abs() == 1 { "" } else { "s" });
    let mut parts = Vec::new();
    let (years, months) = (months / 12, months % 12);
    for (n, name) in [(years, "year"), (months, "month"), (days, "day")] {
        if n != 0 {
            parts.push(unit(n, name));
        }
    }
    if micros != 0 || parts.is_empty() {
        let sign = if micros < 0 { "-" } else { "" };
        let m = micros.unsigned_abs();
        let (hours, m) = (m / (3_600 * MICROS_PER_SECOND), m % (3_600 * MICROS_PER_SECOND));
        let (minutes, m) = (m / (60 * MICROS_PER_SECOND), m % (60 * MICROS_PER_SECOND));
        let (seconds, fraction) = (m / MICROS_PER_SECOND, m % MICROS_PER_SECOND);
        let mut clock = format!("{sign}{hours:02}:{minutes:02}:{seconds:02}");
        if fraction != 0 {
            clock.push_str(format!(".{fraction:06}").trim_end_matches('0'));
        }
        parts.push(clock);
    }
    parts.join(" ")
}

/// Each value of a span column as (months, days, microseconds): a Duration split into whole
/// days and the rest as DuckDB splits a difference of timestamps (both toward zero), an
/// Interval as it is (nanoseconds to microseconds, DuckDB's precision).
fn components(a: &ArrayRef) -> Result<Vec<Option<(i64, i64, i64)>>> {
    Ok(match a.data_type() {
        DataType::Duration(_) => {
            let micros = cast(&cast(a, &DataType::Duration(TimeUnit::Microsecond))?, &DataType::Int64)?;
            micros.as_primitive::<Int64Type>().iter().map(|v| v.map(|v| (0, v / MICROS_PER_DAY, v % MICROS_PER_DAY))).collect()
        }
        _ => {
            let a = cast(a, &DataType::Interval(IntervalUnit::MonthDayNano))?;
            a.as_primitive::<IntervalMonthDayNanoType>().iter().map(|v| v.map(|v| (v.months.into(), v.days.into(), v.nanoseconds / 1_000))).collect()
        }
    })
}

/// A span column as `fmt` prints it: DuckDB's text, or seconds for JSON and NDJSON.
fn printed(a: &ArrayRef, fmt: Format) -> Result<ArrayRef> {
    let values = components(a)?;
    Ok(match fmt {
        Format::Json | Format::Ndjson => {
            Arc::new(values.into_iter().map(|v| v.map(|(m, d, us)| super::dates::span_seconds(m, d, us))).collect::<Float64Array>())
        }
        _ => Arc::new(values.into_iter().map(|v| v.map(|(m, d, us)| duckdb_text(m, d, us))).collect::<StringArray>()),
    })
}

/// `b` with each span column (Duration, Interval) as `fmt` prints it ([`duckdb_text`], or
/// seconds for JSON); `b` itself when it has none.
pub(crate) fn for_format(b: &RecordBatch, fmt: Format) -> Result<RecordBatch> {
    let is_span = |t: &DataType| matches!(t, DataType::Duration(_) | DataType::Interval(_));
    let schema = b.schema();
    if !schema.fields().iter().any(|f| is_span(f.data_type())) {
        return Ok(b.clone());
    }
    let mut fields = Vec::with_capacity(schema.fields().len());
    let mut columns = Vec::with_capacity(schema.fields().len());
    for (f, c) in schema.fields().iter().zip(b.columns()) {
        if is_span(f.data_type()) {
            let c = printed(c, fmt)?;
            fields.push(Arc::new(Field::new(f.name(), c.data_type().clone(), true).with_metadata(f.metadata().clone())));
            columns.push(c);
        } else {
            fields.push(f.clone());
            columns.push(c.clone());
        }
    }
    Ok(RecordBatch::try_new(Arc::new(Schema::new_with_metadata(fields, schema.metadata().clone())), columns)?)
}

/// [`for_format`] of every batch.
pub(crate) fn all_for_format(batches: &[RecordBatch], fmt: Format) -> Result<Vec<RecordBatch>> {
    batches.iter().map(|b| for_format(b, fmt)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{DurationSecondArray, IntervalMonthDayNanoArray};
    use arrow::datatypes::IntervalMonthDayNano;

    /// A span's text, read back, is the span: each part's number times its length in
    /// microseconds sums to the span's (a month 30 days, so a year of the text 360).
    fn read_back(text: &str) -> i128 {
        let mut total: i128 = 0;
        let words: Vec<&str> = text.split(' ').collect();
        let mut i = 0;
        while i < words.len() {
            if words[i].contains(':') {
                let negative = words[i].starts_with('-');
                let clock: Vec<f64> = words[i].trim_start_matches('-').split(':').map(|p| p.parse().unwrap()).collect();
                let micros = ((clock[0] * 3600.0 + clock[1] * 60.0) * 1e6).round() as i128 + (clock[2] * 1e6).round() as i128;
                total += if negative { -micros } else { micros };
                i += 1;
                continue;
            }
            let n: i128 = words[i].parse().unwrap();
            let day = i128::from(MICROS_PER_DAY);
            total += n * match words[i + 1].trim_end_matches('s') {
                "year" => 360 * day,
                "month" => 30 * day,
                "day" => day,
                other => panic!("{other}"),
            };
            i += 2;
        }
        total
    }

    /// Every span prints as its own length, in DuckDB's layout: clock parts two digits,
    /// singular for one, each part with its sign.
    #[test]
    fn spans_print_as_duckdb_prints_intervals() {
        let cases = [
            (0, 0, 0),
            (0, 0, 74_022_000_000),
            (0, 1, 7_384_000_000),
            (-1, 0, 82_799_999_999),
            (26, 1, 1_500_000),
            (0, -2, -3_600_000_000),
            (0, 0, 108_000_000_000),
        ];
        for (m, d, us) in cases {
            let text = duckdb_text(m, d, us);
            assert_eq!(read_back(&text), (i128::from(m) * 30 + i128::from(d)) * i128::from(MICROS_PER_DAY) + i128::from(us), "{text}");
            assert!(!text.contains("PT") && text.contains(':') == (us != 0 || (m, d) == (0, 0)), "{text}");
        }
        assert_eq!(duckdb_text(0, 0, 74_022_000_000), "20:33:42");
        assert_eq!(duckdb_text(-1, 0, 82_799_999_999), "-1 month 22:59:59.999999");
    }

    /// Duration columns become text for reading and seconds for JSON; the rest is untouched.
    #[test]
    fn span_columns_print_by_format() {
        let secs = [Some(74_022), None, Some(-93_784)];
        let batch = RecordBatch::try_from_iter(vec![
            ("took", Arc::new(DurationSecondArray::from(secs.to_vec())) as ArrayRef),
            ("gap", Arc::new(IntervalMonthDayNanoArray::from(vec![Some(IntervalMonthDayNano::new(1, 2, 3_000_000_000)), None, None])) as ArrayRef),
            ("n", Arc::new(arrow::array::Int64Array::from(vec![1, 2, 3])) as ArrayRef),
        ])
        .unwrap();
        let text = for_format(&batch, Format::Csv).unwrap();
        let took = text.column(0).as_string::<i32>();
        assert_eq!(took.iter().collect::<Vec<_>>(), [Some("20:33:42"), None, Some("-1 day -02:03:04")]);
        let json = for_format(&batch, Format::Json).unwrap();
        let seconds: Vec<Option<f64>> = json.column(0).as_primitive::<arrow::datatypes::Float64Type>().iter().collect();
        assert_eq!(seconds, secs.iter().map(|s| s.map(|s| s as f64)).collect::<Vec<_>>());
        assert_eq!(json.column(1).as_primitive::<arrow::datatypes::Float64Type>().value(0), f64::from(32 * 86_400 + 3));
        let year = IntervalMonthDayNanoArray::from(vec![IntervalMonthDayNano::new(14, 0, 0)]);
        let year = RecordBatch::try_from_iter(vec![("gap", Arc::new(year) as ArrayRef)]).unwrap();
        let seconds = for_format(&year, Format::Ndjson).unwrap().column(0).as_primitive::<arrow::datatypes::Float64Type>().value(0);
        assert_eq!(seconds, 365.25 * 86_400.0 + 2.0 * 30.0 * 86_400.0, "a year and two months");
        assert_eq!(json.column(2).data_type(), &DataType::Int64);
    }
}
