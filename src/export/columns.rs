//! How each Parquet (Arrow) column type is stored in SQLite, which has only integers, reals,
//! text and blobs: the declared type, what is done to the values, and the conversion itself.

use std::io::Write as _;

use arrow::array::{Array, ArrayRef, AsArray, BooleanArray, Float64Array, Int64Array, LargeBinaryArray, LargeStringArray, UInt64Array};
use arrow::buffer::NullBuffer;
use arrow::compute::cast;
use arrow::datatypes::{
    DataType, Date64Type, DurationMicrosecondType, DurationMillisecondType, DurationNanosecondType, DurationSecondType, FieldRef, TimeUnit,
};
use arrow::datatypes::{TimestampMicrosecondType, TimestampMillisecondType, TimestampNanosecondType, TimestampSecondType};
use arrow::error::ArrowError;
use arrow::json::writer::{make_encoder, EncoderOptions, NullableEncoder};
use arrow::util::display::{ArrayFormatter, FormatOptions};

use super::sqlite::{Declared, Record};

/// What a column becomes: its declared type, and the conversion in a reader's words (the
/// `hindsight_columns` table and docs/DATASET.md say it).
pub(crate) struct Mapping {
    pub(crate) declared: Declared,
    pub(crate) conversion: &'static str,
}

const fn to(declared: Declared, conversion: &'static str) -> Mapping {
    Mapping { declared, conversion }
}

/// Every mapping there is, for the documentation: (Parquet types, SQLite type, conversion).
pub const TABLE: &[(&str, &str, &str)] = &[
    ("boolean", "INTEGER", BOOL),
    ("int8 to int64, uint8 to uint32", "INTEGER", AS_IS),
    ("uint64", "INTEGER", UINT64),
    ("float16 to float64", "REAL", FLOAT),
    ("string (utf8, large, view; dictionary-encoded too)", "TEXT", AS_IS),
    ("binary (large, view, fixed-size)", "BLOB", AS_IS),
    ("timestamp with a time zone", "TEXT", UTC),
    ("timestamp without a time zone", "TEXT", NAIVE),
    ("date32, date64", "TEXT", DATE),
    ("duration", "REAL", DURATION),
    ("decimal", "TEXT", DECIMAL),
    ("list, struct, map, union", "TEXT", JSON),
    ("null", "TEXT", NULL),
    ("anything else (time of day, interval)", "TEXT", SHOWN),
];

const AS_IS: &str = "as is";
const BOOL: &str = "true as 1, false as 0";
const UINT64: &str = "as is; when a value is above 9223372036854775807 (SQLite's largest integer), such values are their exact decimal TEXT and the column has no declared type, so SQLite keeps both kinds as they are";
const FLOAT: &str = "as is; NaN as NULL (as SQLite stores it)";
const UTC: &str = "ISO-8601 in UTC, `2025-06-01T12:00:00Z`, with `.fff`, `.ffffff` or `.fffffffff` seconds when there are any";
const NAIVE: &str = "ISO-8601 with no zone, `2025-06-01T12:00:00`, fractions as for UTC times";
const DATE: &str = "`2025-06-01`";
const DURATION: &str = "seconds";
const DECIMAL: &str = "its exact decimal text";
const JSON: &str = "JSON text (SQLite's json_extract reads it)";
const NULL: &str = "NULL";
const SHOWN: &str = "as Arrow prints it";

/// How a column of type `t` is stored.
pub(crate) fn mapping(t: &DataType) -> Mapping {
    use DataType::*;
    match t {
        Dictionary(_, v) => mapping(v),
        Boolean => to(Declared::Integer, BOOL),
        Int8 | Int16 | Int32 | Int64 | UInt8 | UInt16 | UInt32 => to(Declared::Integer, AS_IS),
        UInt64 => to(Declared::Integer, UINT64),
        Float16 | Float32 | Float64 => to(Declared::Real, FLOAT),
        Utf8 | LargeUtf8 | Utf8View => to(Declared::Text, AS_IS),
        Binary | LargeBinary | BinaryView | FixedSizeBinary(_) => to(Declared::Blob, AS_IS),
        Timestamp(_, Some(_)) => to(Declared::Text, UTC),
        Timestamp(_, None) => to(Declared::Text, NAIVE),
        Date32 | Date64 => to(Declared::Text, DATE),
        Duration(_) => to(Declared::Real, DURATION),
        Decimal32(..) | Decimal64(..) | Decimal128(..) | Decimal256(..) => to(Declared::Text, DECIMAL),
        t if nested(t) => to(Declared::Text, JSON),
        Null => to(Declared::Text, NULL),
        _ => to(Declared::Text, SHOWN),
    }
}

/// Whether values of type `t` hold other values, and so are stored as JSON.
fn nested(t: &DataType) -> bool {
    use DataType::*;
    matches!(t, List(_) | LargeList(_) | FixedSizeList(..) | ListView(_) | LargeListView(_) | Struct(_) | Map(..) | Union(..))
}

/// A batch's column in the few Arrow types [`Values`] reads: narrower integers widened,
/// floats to f64, strings and binaries to their large forms, dictionaries decoded, decimals
/// to text, dates to milliseconds.
pub(crate) fn prepare(a: &ArrayRef) -> Result<ArrayRef, ArrowError> {
    use DataType::*;
    let target = match a.data_type() {
        Dictionary(_, v) => return prepare(&cast(a, v)?),
        Int8 | Int16 | Int32 | UInt8 | UInt16 | UInt32 => Int64,
        Float16 | Float32 => Float64,
        Utf8 | Utf8View => LargeUtf8,
        Binary | BinaryView | FixedSizeBinary(_) => LargeBinary,
        Decimal32(..) | Decimal64(..) | Decimal128(..) | Decimal256(..) => LargeUtf8,
        Date32 => Date64,
        _ => return Ok(a.clone()),
    };
    cast(a, &target)
}

/// What a tick of a time column is.
#[derive(Clone, Copy)]
pub(crate) enum Ticks {
    Utc,
    Naive,
    Date,
    Duration,
}

/// A prepared column, read row by row into records.
pub(crate) enum Values<'a> {
    Null,
    Bool(&'a BooleanArray),
    Int(&'a Int64Array),
    /// Unsigned 64-bit integers, and whether one was past SQLite's integers (written as text).
    UInt(&'a UInt64Array, bool),
    Real(&'a Float64Array),
    Text(&'a LargeStringArray),
    Blob(&'a LargeBinaryArray),
    Time {
        ticks: &'a [i64],
        nulls: Option<&'a NullBuffer>,
        per_second: i64,
        kind: Ticks,
    },
    Json(NullableEncoder<'a>),
    Shown(ArrayFormatter<'a>, Option<&'a NullBuffer>),
}

impl<'a> Values<'a> {
    /// `a`, a [`prepare`]d column of `field`, ready to be read.
    pub(crate) fn new(a: &'a ArrayRef, field: &'a FieldRef, json: &'a EncoderOptions) -> Result<Values<'a>, ArrowError> {
        use DataType::*;
        let nulls = a.nulls();
        let time = |ticks: &'a [i64], unit: &TimeUnit, kind| {
            let per_second = match unit {
                TimeUnit::Second => 1,
                TimeUnit::Millisecond => 1_000,
                TimeUnit::Microsecond => 1_000_000,
                TimeUnit::Nanosecond => 1_000_000_000,
            };
            Values::Time { ticks, nulls, per_second, kind }
        };
        Ok(match a.data_type() {
            Null => Values::Null,
            Boolean => Values::Bool(a.as_boolean()),
            Int64 => Values::Int(a.as_primitive()),
            UInt64 => Values::UInt(a.as_primitive(), false),
            Float64 => Values::Real(a.as_primitive()),
            LargeUtf8 => Values::Text(a.as_string()),
            LargeBinary => Values::Blob(a.as_binary()),
            Timestamp(unit, zone) => {
                let kind = if zone.is_some() { Ticks::Utc } else { Ticks::Naive };
                let ticks = match unit {
                    TimeUnit::Second => a.as_primitive::<TimestampSecondType>().values(),
                    TimeUnit::Millisecond => a.as_primitive::<TimestampMillisecondType>().values(),
                    TimeUnit::Microsecond => a.as_primitive::<TimestampMicrosecondType>().values(),
                    TimeUnit::Nanosecond => a.as_primitive::<TimestampNanosecondType>().values(),
                };
                time(ticks, unit, kind)
            }
            Date64 => time(a.as_primitive::<Date64Type>().values(), &TimeUnit::Millisecond, Ticks::Date),
            Duration(unit) => {
                let ticks = match unit {
                    TimeUnit::Second => a.as_primitive::<DurationSecondType>().values(),
                    TimeUnit::Millisecond => a.as_primitive::<DurationMillisecondType>().values(),
                    TimeUnit::Microsecond => a.as_primitive::<DurationMicrosecondType>().values(),
                    TimeUnit::Nanosecond => a.as_primitive::<DurationNanosecondType>().values(),
                };
                time(ticks, unit, Ticks::Duration)
            }
            t if nested(t) => Values::Json(make_encoder(field, a.as_ref(), json)?),
            _ => Values::Shown(ArrayFormatter::try_new(a.as_ref(), &FormatOptions::default())?, nulls),
        })
    }

    /// Row `i`'s value added to `r`.
    pub(crate) fn put(&mut self, i: usize, r: &mut Record) -> Result<(), ArrowError> {
        match self {
            Values::Null => r.null(),
            Values::Bool(a) => opt(r, a.is_valid(i), |r| r.int(i64::from(a.value(i)))),
            Values::Int(a) => opt(r, a.is_valid(i), |r| r.int(a.value(i))),
            Values::UInt(a, beyond) => opt(r, a.is_valid(i), |r| match i64::try_from(a.value(i)) {
                Ok(v) => r.int(v),
                Err(_) => {
                    *beyond = true;
                    r.text(&a.value(i).to_string());
                }
            }),
            Values::Real(a) => opt(r, a.is_valid(i), |r| r.real(a.value(i))),
            Values::Text(a) => opt(r, a.is_valid(i), |r| r.text(a.value(i))),
            Values::Blob(a) => opt(r, a.is_valid(i), |r| r.blob(a.value(i))),
            Values::Time { ticks, nulls, per_second, kind } => {
                if nulls.is_some_and(|n| n.is_null(i)) {
                    r.null();
                } else {
                    put_time(r, ticks[i], *per_second, *kind)?;
                }
            }
            Values::Json(e) => {
                if e.is_null(i) {
                    r.null();
                } else {
                    r.text_with(|out| e.encode(i, out));
                }
            }
            Values::Shown(f, nulls) => {
                if nulls.is_some_and(|n| n.is_null(i)) {
                    r.null();
                } else {
                    r.text(&f.value(i).try_to_string()?);
                }
            }
        }
        Ok(())
    }
}

impl Values<'_> {
    /// Whether a value was stored as another type than the column's declared one (an
    /// unsigned integer past SQLite's largest), so the column must be declared with none.
    pub(crate) fn beyond_declared(&self) -> bool {
        matches!(self, Values::UInt(_, true))
    }
}

fn opt(r: &mut Record, valid: bool, put: impl FnOnce(&mut Record)) {
    if valid {
        put(r);
    } else {
        r.null();
    }
}

/// A time `ticks` / `per_second` seconds from the epoch, as text (or a duration in seconds).
fn put_time(r: &mut Record, ticks: i64, per_second: i64, kind: Ticks) -> Result<(), ArrowError> {
    if let Ticks::Duration = kind {
        r.real(ticks as f64 / per_second as f64);
        return Ok(());
    }
    let secs = ticks.div_euclid(per_second);
    let nanos = (ticks.rem_euclid(per_second) * (1_000_000_000 / per_second)) as u32;
    let t = chrono::DateTime::from_timestamp(secs, nanos)
        .ok_or_else(|| ArrowError::CastError(format!("{ticks} ticks of 1/{per_second} s is beyond the dates ISO-8601 text can say")))?;
    r.text_with(|out| {
        // Writing into a Vec cannot fail.
        let _ = match kind {
            Ticks::Date => write!(out, "{}", t.format("%Y-%m-%d")),
            _ => write!(out, "{}", t.format("%Y-%m-%dT%H:%M:%S")),
        };
        if !matches!(kind, Ticks::Date) {
            let _ = match nanos {
                0 => Ok(()),
                n if n % 1_000_000 == 0 => write!(out, ".{:03}", n / 1_000_000),
                n if n % 1_000 == 0 => write!(out, ".{:06}", n / 1_000),
                n => write!(out, ".{n:09}"),
            };
        }
        if let Ticks::Utc = kind {
            out.push(b'Z');
        }
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow::array::{ListArray, TimestampMicrosecondArray};
    use arrow::datatypes::{Field, Int32Type};

    use super::*;

    /// Each value of `a` as the record `Values` writes for it.
    fn records(a: ArrayRef) -> Vec<Vec<u8>> {
        let field: FieldRef = Arc::new(Field::new("c", a.data_type().clone(), true));
        let json = EncoderOptions::default().with_explicit_nulls(true);
        let p = prepare(&a).unwrap();
        let mut v = Values::new(&p, &field, &json).unwrap();
        (0..a.len())
            .map(|i| {
                let mut r = Record::default();
                v.put(i, &mut r).unwrap();
                let mut out = Vec::new();
                r.encode(&mut out);
                out
            })
            .collect()
    }

    fn text(s: &str) -> Vec<u8> {
        let mut r = Record::default();
        r.text(s);
        let mut out = Vec::new();
        r.encode(&mut out);
        out
    }

    #[test]
    fn times_are_iso_8601_text() {
        let t = TimestampMicrosecondArray::from(vec![Some(1_748_779_200_000_000), Some(1_748_779_200_123_000), Some(-1), None]).with_timezone("UTC");
        let got = records(Arc::new(t));
        assert_eq!(got[0], text("2025-06-01T12:00:00Z"));
        assert_eq!(got[1], text("2025-06-01T12:00:00.123Z"));
        assert_eq!(got[2], text("1969-12-31T23:59:59.999999Z"));
        assert_eq!(got[3], [2, 0]);
    }

    #[test]
    fn nested_values_are_json_and_big_unsigned_ones_text() {
        let l = ListArray::from_iter_primitive::<Int32Type, _, _>(vec![Some(vec![Some(1), None]), None]);
        let got = records(Arc::new(l));
        assert_eq!(got[0], text("[1,null]"));
        assert_eq!(got[1], [2, 0]);
        let u = records(Arc::new(UInt64Array::from(vec![u64::MAX, 7])));
        assert_eq!(u[0], text("18446744073709551615"));
        assert_eq!(u[1], [2, 1, 7]);
    }
}
