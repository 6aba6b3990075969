//! Column types in SQL's words, as DuckDB spells them (`VARCHAR`, `BIGINT`, `TIMESTAMP WITH
//! TIME ZONE`, `VARCHAR[]`, `STRUCT(a INTEGER)`), for `DESCRIBE`, the shell's `\d TABLE` and
//! `describe TABLE --dataset`.
//!
//! Why: researchers write their SQL for DuckDB as often as for hindsight, and the names
//! Arrow gives its types (`Utf8View`, `Timestamp(µs, "UTC")`) say how a column is stored in
//! memory, not what it is in a query.

use arrow::datatypes::{DataType, Field, TimeUnit};

/// The SQL name of `t` as DuckDB's `DESCRIBE` gives it for the same column read from
/// Parquet or Arrow; a type DuckDB has no name for keeps Arrow's.
pub(crate) fn sql_type(t: &DataType) -> String {
    use DataType as D;
    let named = match t {
        D::Null => "\"NULL\"",
        D::Boolean => "BOOLEAN",
        D::Int8 => "TINYINT",
        D::Int16 => "SMALLINT",
        D::Int32 => "INTEGER",
        D::Int64 => "BIGINT",
        D::UInt8 => "UTINYINT",
        D::UInt16 => "USMALLINT",
        D::UInt32 => "UINTEGER",
        D::UInt64 => "UBIGINT",
        // DuckDB has no half-precision float: it reads one as FLOAT.
        D::Float16 | D::Float32 => "FLOAT",
        D::Float64 => "DOUBLE",
        D::Utf8 | D::LargeUtf8 | D::Utf8View => "VARCHAR",
        D::Binary | D::LargeBinary | D::BinaryView | D::FixedSizeBinary(_) => "BLOB",
        D::Date32 | D::Date64 => "DATE",
        D::Time32(_) | D::Time64(_) => "TIME",
        // An instant: DuckDB keeps one type for it whatever the zone written with it.
        D::Timestamp(_, Some(_)) => "TIMESTAMP WITH TIME ZONE",
        D::Timestamp(TimeUnit::Second, None) => "TIMESTAMP_S",
        D::Timestamp(TimeUnit::Millisecond, None) => "TIMESTAMP_MS",
        D::Timestamp(TimeUnit::Microsecond, None) => "TIMESTAMP",
        D::Timestamp(TimeUnit::Nanosecond, None) => "TIMESTAMP_NS",
        D::Duration(_) | D::Interval(_) => "INTERVAL",
        _ => return composite(t),
    };
    named.to_string()
}

/// The SQL name of a type built of others: lists, arrays, structs, maps, unions, decimals,
/// and the encodings (dictionary, run-end) that only change how values are stored.
fn composite(t: &DataType) -> String {
    use DataType as D;
    match t {
        D::List(f) | D::LargeList(f) | D::ListView(f) | D::LargeListView(f) => format!("{}[]", sql_type(f.data_type())),
        D::FixedSizeList(f, n) => format!("{}[{n}]", sql_type(f.data_type())),
        D::Struct(fields) => format!("STRUCT({})", members(fields.iter().map(|f| f.as_ref()))),
        D::Union(fields, _) => format!("UNION({})", members(fields.iter().map(|(_, f)| f.as_ref()))),
        D::Map(entries, _) => match entries.data_type() {
            D::Struct(kv) if kv.len() == 2 => format!("MAP({}, {})", sql_type(kv[0].data_type()), sql_type(kv[1].data_type())),
            other => format!("MAP({})", sql_type(other)),
        },
        D::Decimal32(p, s) | D::Decimal64(p, s) => format!("DECIMAL({p},{s})"),
        D::Decimal128(p, s) | D::Decimal256(p, s) => format!("DECIMAL({p},{s})"),
        D::Dictionary(_, values) => sql_type(values),
        D::RunEndEncoded(_, values) => sql_type(values.data_type()),
        other => other.to_string(),
    }
}

/// `name TYPE, ...` of a struct's or union's members, a name quoted where SQL needs it.
fn members<'a>(fields: impl Iterator<Item = &'a Field>) -> String {
    fields.map(|f| format!("{} {}", identifier(f.name()), sql_type(f.data_type()))).collect::<Vec<_>>().join(", ")
}

/// `name` as an SQL identifier: as it is when it is lower-case letters, digits and `_` (not
/// starting with a digit), else in double quotes.
fn identifier(name: &str) -> String {
    let plain = name.chars().next().is_some_and(|c| c.is_ascii_lowercase() || c == '_')
        && name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if plain {
        name.to_string()
    } else {
        format!("\"{}\"", name.replace('"', "\"\""))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::datatypes::{Fields, IntervalUnit};
    use std::sync::Arc;

    /// Every kind of type has DuckDB's name: scalars, instants with and without a zone,
    /// spans, and the types built of others, nested.
    #[test]
    fn types_have_duckdbs_names() {
        let utc = Some(Arc::from("UTC"));
        let item = |t: DataType| Arc::new(Field::new("item", t, true));
        let cases = [
            (DataType::Utf8View, "VARCHAR"),
            (DataType::LargeUtf8, "VARCHAR"),
            (DataType::Int64, "BIGINT"),
            (DataType::Int32, "INTEGER"),
            (DataType::UInt8, "UTINYINT"),
            (DataType::Float64, "DOUBLE"),
            (DataType::Float32, "FLOAT"),
            (DataType::Boolean, "BOOLEAN"),
            (DataType::Date32, "DATE"),
            (DataType::Null, "\"NULL\""),
            (DataType::Binary, "BLOB"),
            (DataType::Timestamp(TimeUnit::Microsecond, utc.clone()), "TIMESTAMP WITH TIME ZONE"),
            (DataType::Timestamp(TimeUnit::Nanosecond, utc), "TIMESTAMP WITH TIME ZONE"),
            (DataType::Timestamp(TimeUnit::Microsecond, None), "TIMESTAMP"),
            (DataType::Timestamp(TimeUnit::Millisecond, None), "TIMESTAMP_MS"),
            (DataType::Duration(TimeUnit::Microsecond), "INTERVAL"),
            (DataType::Interval(IntervalUnit::MonthDayNano), "INTERVAL"),
            (DataType::Decimal128(18, 3), "DECIMAL(18,3)"),
            (DataType::List(item(DataType::Utf8View)), "VARCHAR[]"),
            (DataType::LargeList(item(DataType::List(item(DataType::Int64)))), "BIGINT[][]"),
            (DataType::FixedSizeList(item(DataType::Float64), 3), "DOUBLE[3]"),
            (DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8)), "VARCHAR"),
        ];
        for (t, want) in cases {
            assert_eq!(sql_type(&t), want, "{t}");
        }
        let fields = Fields::from(vec![
            Field::new("login", DataType::Utf8, true),
            Field::new("Type", DataType::Int16, true),
            Field::new("tags", DataType::List(item(DataType::Utf8)), true),
        ]);
        assert_eq!(sql_type(&DataType::Struct(fields)), "STRUCT(login VARCHAR, \"Type\" SMALLINT, tags VARCHAR[])");
        let entries = Field::new(
            "entries",
            DataType::Struct(Fields::from(vec![Field::new("key", DataType::Utf8, false), Field::new("value", DataType::Float64, true)])),
            false,
        );
        assert_eq!(sql_type(&DataType::Map(Arc::new(entries), false)), "MAP(VARCHAR, DOUBLE)");
    }
}
