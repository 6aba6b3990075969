//! A small column-store used to build every dataset table: declare the schema once, push
//! rows positionally, turn it into an Arrow `RecordBatch`. Keeps table code to one line per
//! column instead of one builder per column.

use std::sync::Arc;

use arrow::array::{ArrayRef, BooleanArray, Float64Array, Int64Array, TimestampMicrosecondArray};
use arrow::datatypes::{DataType, Field, Schema, SchemaRef, TimeUnit};
use arrow::record_batch::RecordBatch;

use crate::time::Instant;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Str,
    Int,
    Float,
    Bool,
    /// UTC timestamp, microseconds.
    Time,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    Str(Option<String>),
    Int(Option<i64>),
    Float(Option<f64>),
    Bool(Option<bool>),
    Time(Option<i64>),
}

pub fn s(v: impl Into<String>) -> Cell {
    Cell::Str(Some(v.into()))
}
pub fn os<S: AsRef<str>>(v: Option<S>) -> Cell {
    Cell::Str(v.map(|x| x.as_ref().to_string()))
}
/// An optional text cell from a `String` of its own, moved in (`os` copies).
pub(crate) fn so(v: Option<String>) -> Cell {
    Cell::Str(v)
}
pub fn i(v: i64) -> Cell {
    Cell::Int(Some(v))
}
pub fn oi(v: Option<i64>) -> Cell {
    Cell::Int(v)
}
pub fn of(v: Option<f64>) -> Cell {
    Cell::Float(v)
}
pub fn b(v: bool) -> Cell {
    Cell::Bool(Some(v))
}
pub fn ob(v: Option<bool>) -> Cell {
    Cell::Bool(v)
}
pub fn t(v: Option<Instant>) -> Cell {
    Cell::Time(v.map(|x| x.timestamp_micros()))
}

pub struct Table {
    pub name: &'static str,
    schema: Vec<(&'static str, Kind)>,
    rows: Vec<Vec<Cell>>,
}

impl Table {
    pub fn new(name: &'static str, schema: &[(&'static str, Kind)]) -> Self {
        Table { name, schema: schema.to_vec(), rows: Vec::new() }
    }

    pub fn push(&mut self, row: Vec<Cell>) {
        debug_assert_eq!(row.len(), self.schema.len(), "row width of table {}", self.name);
        self.rows.push(row);
    }

    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// `other`'s rows (of the same table) after this one's.
    pub(crate) fn append(&mut self, other: Table) {
        debug_assert_eq!(self.name, other.name);
        self.rows.extend(other.rows);
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Sort rows by the given key columns (stable), so output does not depend on the order
    /// in which parallel work finished.
    pub fn sort_by_columns(&mut self, keys: &[&str]) {
        let idx: Vec<usize> = keys.iter().filter_map(|k| self.schema.iter().position(|(n, _)| n == k)).collect();
        self.rows.sort_by(|a, b| {
            for &i in &idx {
                let o = cmp_cell(&a[i], &b[i]);
                if o != std::cmp::Ordering::Equal {
                    return o;
                }
            }
            std::cmp::Ordering::Equal
        });
    }

    pub fn arrow_schema(&self) -> SchemaRef {
        arrow_schema(&self.schema)
    }

    pub fn to_batch(&self) -> Result<RecordBatch, arrow::error::ArrowError> {
        let mut cols: Vec<ArrayRef> = Vec::with_capacity(self.schema.len());
        for (ci, (_, kind)) in self.schema.iter().enumerate() {
            let cells = self.rows.iter().map(|r| &r[ci]);
            let arr: ArrayRef = match kind {
                // Borrowed, not cloned: strings are most of every table's bytes.
                Kind::Str => str_column(cells.map(|c| match c {
                    Cell::Str(v) => v.as_deref(),
                    _ => None,
                })),
                Kind::Int => int_column(cells.map(|c| match c {
                    Cell::Int(v) => *v,
                    _ => None,
                })),
                Kind::Float => float_column(cells.map(|c| match c {
                    Cell::Float(v) => *v,
                    _ => None,
                })),
                Kind::Bool => bool_column(cells.map(|c| match c {
                    Cell::Bool(v) => *v,
                    _ => None,
                })),
                Kind::Time => micros_column(cells.map(|c| match c {
                    Cell::Time(v) => *v,
                    _ => None,
                })),
            };
            cols.push(arr);
        }
        RecordBatch::try_new(self.arrow_schema(), cols)
    }
}

/// The Arrow schema of columns declared as (name, kind), every one nullable: what a
/// [`Table`] of them writes, for tables built column by column from typed rows instead
/// (large ones, where a cell per value costs more than the encoding).
pub fn arrow_schema(columns: &[(&'static str, Kind)]) -> SchemaRef {
    let fields: Vec<Field> = columns.iter().map(|(n, k)| Field::new(*n, data_type(*k), true)).collect();
    Arc::new(Schema::new(fields))
}

/// A column of `Kind::Str`, one value per row. The values are gone over twice: the
/// column's buffer is sized once, not grown as it fills (each doubling would copy every
/// value written so far again, and a column of bodies is tens of megabytes).
pub fn str_column<'a>(values: impl Iterator<Item = Option<&'a str>> + Clone) -> ArrayRef {
    let (rows, bytes) = values.clone().fold((0, 0), |(n, b), v| (n + 1, b + v.map_or(0, str::len)));
    let mut column = arrow::array::StringBuilder::with_capacity(rows, bytes);
    values.for_each(|v| column.append_option(v));
    Arc::new(column.finish())
}

/// A column of `Kind::Int`.
pub fn int_column(values: impl Iterator<Item = Option<i64>>) -> ArrayRef {
    Arc::new(Int64Array::from_iter(values))
}

/// A column of `Kind::Float`.
pub fn float_column(values: impl Iterator<Item = Option<f64>>) -> ArrayRef {
    Arc::new(Float64Array::from_iter(values))
}

/// A column of `Kind::Bool`.
pub fn bool_column(values: impl Iterator<Item = Option<bool>>) -> ArrayRef {
    Arc::new(BooleanArray::from_iter(values))
}

/// A column of `Kind::Time`.
pub fn time_column(values: impl Iterator<Item = Option<Instant>>) -> ArrayRef {
    micros_column(values.map(|v| v.map(|x| x.timestamp_micros())))
}

/// A column of `Kind::Time` from microseconds since the epoch, UTC.
fn micros_column(values: impl Iterator<Item = Option<i64>>) -> ArrayRef {
    Arc::new(TimestampMicrosecondArray::from_iter(values).with_timezone("UTC"))
}

fn data_type(k: Kind) -> DataType {
    match k {
        Kind::Str => DataType::Utf8,
        Kind::Int => DataType::Int64,
        Kind::Float => DataType::Float64,
        Kind::Bool => DataType::Boolean,
        Kind::Time => DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())),
    }
}

fn cmp_cell(a: &Cell, b: &Cell) -> std::cmp::Ordering {
    match (a, b) {
        (Cell::Str(x), Cell::Str(y)) => x.cmp(y),
        (Cell::Int(x), Cell::Int(y)) | (Cell::Time(x), Cell::Time(y)) => x.cmp(y),
        (Cell::Bool(x), Cell::Bool(y)) => x.cmp(y),
        (Cell::Float(x), Cell::Float(y)) => x.partial_cmp(y).unwrap_or(std::cmp::Ordering::Equal),
        _ => std::cmp::Ordering::Equal,
    }
}

impl Table {
    /// Drop rows whose key columns equal the previous row's (call after sorting). Rows with
    /// a null key are all kept.
    pub(crate) fn dedup_by_columns(&mut self, keys: &[&str]) {
        let idx: Vec<usize> = keys.iter().filter_map(|k| self.schema.iter().position(|(n, _)| n == k)).collect();
        self.rows.dedup_by(|a, b| idx.iter().all(|&i| a[i] == b[i]) && idx.iter().all(|&i| !matches!(a[i], Cell::Str(None) | Cell::Int(None))));
    }
}
