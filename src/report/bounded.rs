//! String functions whose result size the query names (`repeat('x', 400000000)`,
//! `lpad(s, 10^9)`), bounded before they build it. DataFusion's memory limit covers what
//! operators reserve (sorts, joins, aggregates), not what a scalar function allocates, and
//! a string column past 2 GiB in one batch overflows arrow's offsets (a panic). Each of
//! these is DataFusion's own function, wrapped: the size it would build is estimated from
//! its arguments and refused above the query's memory limit, or above 2 GiB, with the
//! memory-limit error every query gets.

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray};
use datafusion::arrow::datatypes::{DataType, FieldRef, Int64Type};
use datafusion::common::{DataFusionError, Result, ScalarValue};
use datafusion::logical_expr::{ColumnarValue, Documentation, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature};

/// The most bytes one string batch can hold (i32 offsets).
const STRING_BATCH_MAX: usize = i32::MAX as usize;

/// DataFusion's `repeat`, `lpad` and `rpad`, bounded by `limit` bytes.
pub(crate) fn functions(limit: usize) -> Vec<ScalarUDF> {
    use datafusion::functions::{string, unicode};
    [string::repeat(), unicode::lpad(), unicode::rpad()]
        .into_iter()
        .map(|inner| ScalarUDF::new_from_impl(Bounded { inner, limit: limit.min(STRING_BATCH_MAX) }))
        .collect()
}

#[derive(Debug, PartialEq, Eq, Hash)]
struct Bounded {
    inner: Arc<ScalarUDF>,
    limit: usize,
}

impl Bounded {
    /// The bytes the call would build at most: for `repeat(s, n)` the length of `s` times
    /// `n`; for `lpad`/`rpad(s, n[, fill])` `n` characters (or `s`'s length, if longer) of
    /// at most the fill's widest character.
    fn estimate(&self, args: &[ColumnarValue], rows: usize) -> usize {
        let (Some(text), Some(count)) = (args.first(), args.get(1)) else { return 0 };
        let lengths = byte_lengths(text, rows);
        let counts = integers(count, rows);
        let width = match args.get(2) {
            Some(fill) => byte_lengths(fill, 1).first().copied().unwrap_or(1).clamp(1, 4),
            None => 1,
        };
        let mut total = 0usize;
        for (len, n) in lengths.iter().zip(&counts) {
            let n = usize::try_from((*n).max(0)).unwrap_or(usize::MAX);
            let one = if self.inner.name() == "repeat" { len.saturating_mul(n) } else { n.saturating_mul(width).max(*len) };
            total = total.saturating_add(one);
        }
        total
    }
}

/// Bytes of each row's string (a scalar counts for every row).
fn byte_lengths(v: &ColumnarValue, rows: usize) -> Vec<usize> {
    let len_of = |s: &ScalarValue| match s {
        ScalarValue::Utf8(Some(t)) | ScalarValue::LargeUtf8(Some(t)) | ScalarValue::Utf8View(Some(t)) => t.len(),
        _ => 0,
    };
    match v {
        ColumnarValue::Scalar(s) => vec![len_of(s); rows.max(1)],
        ColumnarValue::Array(a) => (0..a.len()).map(|i| if a.is_null(i) { 0 } else { string_at(a, i).map_or(0, str::len) }).collect(),
    }
}

fn string_at(a: &ArrayRef, i: usize) -> Option<&str> {
    match a.data_type() {
        DataType::Utf8 => Some(a.as_string::<i32>().value(i)),
        DataType::LargeUtf8 => Some(a.as_string::<i64>().value(i)),
        DataType::Utf8View => Some(a.as_string_view().value(i)),
        _ => None,
    }
}

/// Each row's integer argument (a scalar counts for every row); anything else is 0.
fn integers(v: &ColumnarValue, rows: usize) -> Vec<i64> {
    match v {
        ColumnarValue::Scalar(s) => vec![scalar_i64(s); rows.max(1)],
        ColumnarValue::Array(a) => match a.as_primitive_opt::<Int64Type>() {
            Some(p) => (0..p.len()).map(|i| if p.is_null(i) { 0 } else { p.value(i) }).collect(),
            None => vec![0; a.len()],
        },
    }
}

fn scalar_i64(s: &ScalarValue) -> i64 {
    match s {
        ScalarValue::Int64(Some(n)) => *n,
        ScalarValue::Int32(Some(n)) => i64::from(*n),
        ScalarValue::Int16(Some(n)) => i64::from(*n),
        ScalarValue::Int8(Some(n)) => i64::from(*n),
        ScalarValue::UInt64(Some(n)) => i64::try_from(*n).unwrap_or(i64::MAX),
        ScalarValue::UInt32(Some(n)) => i64::from(*n),
        _ => 0,
    }
}

impl ScalarUDFImpl for Bounded {
    fn name(&self) -> &str {
        self.inner.name()
    }
    fn signature(&self) -> &Signature {
        self.inner.signature()
    }
    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        self.inner.return_type(arg_types)
    }
    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        self.inner.return_field_from_args(args)
    }
    fn coerce_types(&self, arg_types: &[DataType]) -> Result<Vec<DataType>> {
        self.inner.coerce_types(arg_types)
    }
    fn aliases(&self) -> &[String] {
        self.inner.aliases()
    }
    fn documentation(&self) -> Option<&Documentation> {
        self.inner.documentation()
    }
    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let size = self.estimate(&args.args, args.number_rows);
        if size > self.limit {
            return Err(DataFusionError::ResourcesExhausted(format!(
                "{}() would build {} MiB of text in one batch, more than {} MiB",
                self.inner.name(),
                size >> 20,
                self.limit >> 20
            )));
        }
        self.inner.invoke_with_args(args)
    }
}
