//! Functions whose result can outgrow their arguments, bounded before they build it.
//!
//! DataFusion's memory limit covers what operators reserve (sorts, joins, aggregates), not
//! what a scalar function allocates, and a string column past 2 GiB in one batch overflows
//! arrow's offsets (a panic). A function's result is at most a small multiple of its
//! arguments, which are already bounded, except where an argument multiplies: a count
//! (`repeat('x', 4e8)`, `lpad(s, 1e9)`, `range(1, 2e8)`, `array_repeat`, `array_resize`), a
//! replacement per match (`replace`, `regexp_replace`, `translate`, `array_to_string`'s
//! separator), an encoding (`encode`), or any number of arguments, each as large as the limit
//! allows (`concat`, `concat_ws`, `make_array`, `array_concat`, and the `||` operator, planned
//! here as the function `||`). Each of these is DataFusion's own function, wrapped: the bytes
//! it would build are estimated from its arguments (an upper bound, exact where cheap) and
//! refused above the query's memory limit, or above 2 GiB, with the memory-limit error every
//! query gets. Constant folding calls the same wrapper, so `unnest(range(1, 2e8))` is refused
//! at planning rather than aborting on allocation.

use std::borrow::Cow;
use std::sync::Arc;

use datafusion::arrow::array::{Array, AsArray, GenericListArray, OffsetSizeTrait};
use datafusion::arrow::compute::{cast, kernels::concat_elements::concat_elements_dyn};
use datafusion::arrow::datatypes::{DataType, FieldRef, Int64Type};
use datafusion::common::{DFSchema, DataFusionError, Result, ScalarValue};
use datafusion::execution::FunctionRegistry;
use datafusion::logical_expr::planner::{ExprPlanner, PlannerResult, RawBinaryExpr};
use datafusion::logical_expr::{ColumnarValue, Documentation, Expr, ExprSchemable, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature, Volatility};

/// The most bytes one string batch can hold (i32 offsets).
const STRING_BATCH_MAX: usize = i32::MAX as usize;

/// Bytes counted for one value that is not text (a number's digits, a list element).
const VALUE_BYTES: usize = 24;

/// How a function's result grows with its arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Growth {
    /// `repeat(s, n)`: `s` n times.
    Repeat,
    /// `lpad`/`rpad(s, n[, fill])`: n characters of the widest of `s`'s and the fill's.
    Pad,
    /// `replace(s, from, to)`: `to` for each occurrence of `from` (counted).
    Replace,
    /// `regexp_replace(s, pattern, to[, flags])`: `to` at each of at most `len(s) + 1`
    /// matches, each back reference at most the text it refers to.
    RegexpReplace,
    /// `translate(s, from, to)`: each character as wide as `to`'s widest.
    Translate,
    /// `encode(s, format)`: hex doubles, base64 adds a third.
    Encode,
    /// `concat`, `concat_ws`, `make_array`, `array_concat`, `||`: the sum of the arguments
    /// (`concat_ws`'s separator once per argument).
    Sum,
    /// `range`/`generate_series(start, stop[, step])` as lists: one value per step.
    Series,
    /// `array_repeat(v, n)`: `v` n times.
    ArrayRepeat,
    /// `array_resize(a, n[, v])`: n values.
    ArrayResize,
    /// `array_to_string(a, sep[, null])`: each element's text and a separator.
    ArrayToString,
}

/// The wrapped functions, by DataFusion's name.
const WRAPPED: &[(&str, Growth)] = &[
    ("repeat", Growth::Repeat),
    ("lpad", Growth::Pad),
    ("rpad", Growth::Pad),
    ("replace", Growth::Replace),
    ("regexp_replace", Growth::RegexpReplace),
    ("translate", Growth::Translate),
    ("encode", Growth::Encode),
    ("concat", Growth::Sum),
    ("concat_ws", Growth::Sum),
    ("make_array", Growth::Sum),
    ("array_concat", Growth::Sum),
    ("range", Growth::Series),
    ("generate_series", Growth::Series),
    ("array_repeat", Growth::ArrayRepeat),
    ("array_resize", Growth::ArrayResize),
    ("array_to_string", Growth::ArrayToString),
];

/// Registers the bounded functions over DataFusion's own in `registry`, and the `||`
/// operator on text as the bounded function `||`.
pub(crate) fn register(registry: &mut dyn FunctionRegistry, limit: usize) -> Result<()> {
    for (name, growth) in WRAPPED {
        let Ok(inner) = registry.udf(name) else { continue };
        registry.register_udf(Arc::new(ScalarUDF::new_from_impl(Bounded { inner, growth: *growth, limit })))?;
    }
    registry.register_udf(Arc::new(ScalarUDF::new_from_impl(ConcatOp::new(limit))))?;
    super::operator::register_planner(registry, Arc::new(ConcatPlanner { limit }))
}

fn refuse(name: &str, size: usize, limit: usize) -> DataFusionError {
    let call = if name == "||" { name.to_string() } else { format!("{name}()") };
    DataFusionError::ResourcesExhausted(format!("{call} would build {} MiB in one batch, more than {} MiB", size >> 20, limit >> 20))
}

/// The bound a result is held to: the memory limit, and arrow's 2 GiB per batch.
fn bound(limit: usize) -> usize {
    limit.min(STRING_BATCH_MAX)
}

#[derive(Debug, PartialEq, Eq, Hash)]
struct Bounded {
    inner: Arc<ScalarUDF>,
    growth: Growth,
    limit: usize,
}

/// One argument, row by row (a scalar is the same value in every row).
struct Arg<'a>(&'a ColumnarValue);

impl Arg<'_> {
    fn text(&self, i: usize) -> Option<&str> {
        match self.0 {
            ColumnarValue::Scalar(ScalarValue::Utf8(Some(t)) | ScalarValue::LargeUtf8(Some(t)) | ScalarValue::Utf8View(Some(t))) => Some(t),
            ColumnarValue::Scalar(_) => None,
            ColumnarValue::Array(a) if a.is_null(i) => None,
            ColumnarValue::Array(a) => match a.data_type() {
                DataType::Utf8 => Some(a.as_string::<i32>().value(i)),
                DataType::LargeUtf8 => Some(a.as_string::<i64>().value(i)),
                DataType::Utf8View => Some(a.as_string_view().value(i)),
                _ => None,
            },
        }
    }

    fn len(&self, i: usize) -> usize {
        self.text(i).map_or(0, str::len)
    }

    fn int(&self, i: usize) -> i64 {
        match self.0 {
            ColumnarValue::Scalar(s) => scalar_i64(s),
            ColumnarValue::Array(a) if a.is_null(i) => 0,
            // Other integer columns are widened once, before the rows are read (`widened`).
            ColumnarValue::Array(a) => a.as_primitive_opt::<Int64Type>().map_or(0, |p| p.value(i)),
        }
    }

    /// Elements of the list in row `i`.
    fn elements(&self, i: usize) -> usize {
        fn at<O: OffsetSizeTrait>(l: &GenericListArray<O>, i: usize) -> usize {
            l.value_length(i).as_usize()
        }
        match self.0 {
            ColumnarValue::Scalar(s) => s.to_array().map_or(0, |a| Arg(&ColumnarValue::Array(a)).elements(0)),
            ColumnarValue::Array(a) if a.is_null(i) => 0,
            ColumnarValue::Array(a) => match a.data_type() {
                DataType::List(_) => at(a.as_list::<i32>(), i),
                DataType::LargeList(_) => at(a.as_list::<i64>(), i),
                DataType::FixedSizeList(_, n) => usize::try_from(*n).unwrap_or(0),
                _ => 1,
            },
        }
    }

    /// Bytes of the whole argument over `rows` rows (what it holds, not what it reserves).
    fn bytes(&self, rows: usize) -> usize {
        match self.0 {
            ColumnarValue::Scalar(s) => s.size().saturating_mul(rows),
            ColumnarValue::Array(a) => a.to_data().get_slice_memory_size().unwrap_or_else(|_| a.get_array_memory_size()),
        }
    }
}

fn scalar_i64(s: &ScalarValue) -> i64 {
    match s {
        ScalarValue::Int64(Some(n)) => *n,
        ScalarValue::UInt64(Some(n)) => i64::try_from(*n).unwrap_or(i64::MAX),
        s if s.is_null() => 0,
        s => s.cast_to(&DataType::Int64).ok().map_or(0, |v| scalar_i64_exact(&v)),
    }
}

fn scalar_i64_exact(s: &ScalarValue) -> i64 {
    if let ScalarValue::Int64(Some(n)) = s { *n } else { 0 }
}

fn count(n: i64) -> usize {
    usize::try_from(n.max(0)).unwrap_or(usize::MAX)
}

/// The widest character of `s` in bytes (1 for none).
fn widest(s: Option<&str>) -> usize {
    s.map_or(1, |s| s.chars().map(char::len_utf8).max().unwrap_or(1))
}

/// The values `range`/`generate_series` would make: integers, or dates and timestamps
/// stepped by an interval (its shortest reading: a month as 28 days).
fn series_length(args: &[&ColumnarValue], i: usize, inclusive: bool) -> usize {
    fn nanos(v: &ColumnarValue) -> Option<i128> {
        let ColumnarValue::Scalar(s) = v else { return None };
        Some(match s {
            ScalarValue::Date32(Some(d)) => i128::from(*d) * 86_400 * 1_000_000_000,
            ScalarValue::Date64(Some(ms)) => i128::from(*ms) * 1_000_000,
            ScalarValue::TimestampSecond(Some(t), _) => i128::from(*t) * 1_000_000_000,
            ScalarValue::TimestampMillisecond(Some(t), _) => i128::from(*t) * 1_000_000,
            ScalarValue::TimestampMicrosecond(Some(t), _) => i128::from(*t) * 1_000,
            ScalarValue::TimestampNanosecond(Some(t), _) => i128::from(*t),
            ScalarValue::IntervalMonthDayNano(Some(v)) => (i128::from(v.months) * 28 + i128::from(v.days)) * 86_400 * 1_000_000_000 + i128::from(v.nanoseconds),
            ScalarValue::IntervalDayTime(Some(v)) => i128::from(v.days) * 86_400 * 1_000_000_000 + i128::from(v.milliseconds) * 1_000_000,
            ScalarValue::IntervalYearMonth(Some(m)) => i128::from(*m) * 28 * 86_400 * 1_000_000_000,
            _ => return None,
        })
    }
    let (start, stop, step) = match args {
        [stop] => (0, i128::from(Arg(stop).int(i)), 1),
        [start, stop] => (i128::from(Arg(start).int(i)), i128::from(Arg(stop).int(i)), 1),
        [start, stop, step] => match (nanos(start), nanos(stop), nanos(step)) {
            (Some(a), Some(b), Some(s)) => (a, b, s),
            _ => (i128::from(Arg(start).int(i)), i128::from(Arg(stop).int(i)), i128::from(Arg(step).int(i))),
        },
        _ => return 0,
    };
    if step == 0 || (stop - start).signum() * step.signum() < 0 {
        return usize::from(inclusive && start == stop);
    }
    let n = (stop - start) / step + i128::from(inclusive);
    usize::try_from(n.max(0)).unwrap_or(usize::MAX)
}

/// `v`, an integer column other than 64-bit cast to `Int64` once (a count read row by row);
/// anything else as it is, not copied.
fn widened(v: &ColumnarValue) -> Cow<'_, ColumnarValue> {
    match v {
        ColumnarValue::Array(a) if a.data_type().is_integer() && a.data_type() != &DataType::Int64 => {
            cast(a, &DataType::Int64).map_or(Cow::Borrowed(v), |c| Cow::Owned(ColumnarValue::Array(c)))
        }
        _ => Cow::Borrowed(v),
    }
}

impl Bounded {
    /// The bytes the call would build at most.
    fn estimate(&self, args: &[ColumnarValue], rows: usize) -> usize {
        let rows = rows.max(1);
        let args: Vec<Cow<'_, ColumnarValue>> = args.iter().map(widened).collect();
        let arg = |k: usize| args.get(k).map(|a| Arg(a.as_ref()));
        let per_row = |f: &dyn Fn(usize) -> usize| (0..rows).fold(0usize, |t, i| t.saturating_add(f(i)));
        match self.growth {
            Growth::Sum => {
                let sum = args.iter().fold(0usize, |t, a| t.saturating_add(Arg(a.as_ref()).bytes(rows)));
                // concat_ws repeats its separator between the arguments.
                let sep = if self.inner.name() == "concat_ws" { arg(0).map_or(0, |s| s.bytes(rows)).saturating_mul(args.len().saturating_sub(2)) } else { 0 };
                sum.saturating_add(sep)
            }
            Growth::Repeat => {
                let (Some(s), Some(n)) = (arg(0), arg(1)) else { return 0 };
                per_row(&|i| s.len(i).saturating_mul(count(n.int(i))))
            }
            Growth::Pad => {
                let (Some(s), Some(n)) = (arg(0), arg(1)) else { return 0 };
                let fill = arg(2);
                per_row(&|i| count(n.int(i)).saturating_mul(widest(s.text(i)).max(fill.as_ref().map_or(1, |f| widest(f.text(i))))).max(s.len(i)))
            }
            Growth::Replace => {
                let (Some(s), Some(from), Some(to)) = (arg(0), arg(1), arg(2)) else { return 0 };
                per_row(&|i| {
                    let (Some(text), Some(from)) = (s.text(i), from.text(i)) else { return 0 };
                    let times = if from.is_empty() { text.chars().count() + 1 } else { text.matches(from).count() };
                    text.len().saturating_add(times.saturating_mul(to.len(i)))
                })
            }
            Growth::RegexpReplace => {
                let (Some(s), Some(to)) = (arg(0), arg(2)) else { return 0 };
                per_row(&|i| {
                    let len = s.len(i);
                    let to = to.text(i).unwrap_or("");
                    // Back references (`\1`, `$1`, `${name}`): each at most the text matched.
                    let refs = to.matches(['\\', '$']).count();
                    len.saturating_add((len + 1).saturating_mul(to.len())).saturating_add(refs.saturating_mul(len))
                })
            }
            Growth::Translate => {
                let (Some(s), Some(to)) = (arg(0), arg(2)) else { return 0 };
                per_row(&|i| s.len(i).saturating_mul(widest(to.text(i))))
            }
            Growth::Encode => arg(0).map_or(0, |s| s.bytes(rows).saturating_mul(2)),
            Growth::Series => {
                let args: Vec<&ColumnarValue> = args.iter().map(AsRef::as_ref).collect();
                per_row(&|i| series_length(&args, i, self.inner.name() == "generate_series").saturating_mul(8))
            }
            Growth::ArrayRepeat => {
                let (Some(v), Some(n)) = (arg(0), arg(1)) else { return 0 };
                per_row(&|i| count(n.int(i)).saturating_mul(v.text(i).map_or(v.elements(i).max(1).saturating_mul(8), str::len).max(8)))
            }
            Growth::ArrayResize => {
                let (Some(a), Some(n)) = (arg(0), arg(1)) else { return 0 };
                let fill = arg(2);
                per_row(&|i| count(n.int(i)).saturating_mul(fill.as_ref().and_then(|f| f.text(i)).map_or(8, str::len).max(8)))
                    .saturating_add(a.bytes(rows))
            }
            Growth::ArrayToString => {
                let (Some(a), Some(sep)) = (arg(0), arg(1)) else { return 0 };
                let null = arg(2);
                per_row(&|i| a.elements(i).saturating_mul(sep.len(i).saturating_add(null.as_ref().map_or(0, |n| n.len(i))).saturating_add(VALUE_BYTES)))
                    .saturating_add(a.bytes(rows))
            }
        }
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
        if size > bound(self.limit) {
            return Err(refuse(self.inner.name(), size, bound(self.limit)));
        }
        self.inner.invoke_with_args(args)
    }
}

/// Whether `a || b` over these types is text concatenation (not a list's, not bytes').
fn text_concat(t: &DataType) -> bool {
    !(t.is_nested() || matches!(t, DataType::Binary | DataType::LargeBinary | DataType::BinaryView | DataType::FixedSizeBinary(_)))
}

/// Plans `a || b` on text as the bounded function `||`.
#[derive(Debug)]
struct ConcatPlanner {
    limit: usize,
}

impl ExprPlanner for ConcatPlanner {
    fn plan_binary_op(&self, expr: RawBinaryExpr, schema: &DFSchema) -> Result<PlannerResult<RawBinaryExpr>> {
        use datafusion::sql::sqlparser::ast::BinaryOperator;
        if expr.op != BinaryOperator::StringConcat {
            return Ok(PlannerResult::Original(expr));
        }
        let (left, right) = (expr.left.get_type(schema)?, expr.right.get_type(schema)?);
        if !(text_concat(&left) && text_concat(&right)) {
            return Ok(PlannerResult::Original(expr));
        }
        Ok(super::operator::planned(ScalarUDF::new_from_impl(ConcatOp::new(self.limit)), expr))
    }
}

/// The `||` operator on text: NULL when either side is, as the operator is (unlike
/// `concat`), and named as the operator (`a || b`) in results. Registered by name too, for
/// a cluster's executors to find the function the client's plan names.
#[derive(Debug, PartialEq, Eq, Hash)]
struct ConcatOp {
    signature: Signature,
    limit: usize,
}

impl ConcatOp {
    fn new(limit: usize) -> ConcatOp {
        ConcatOp { signature: Signature::user_defined(Volatility::Immutable), limit }
    }
}

impl ScalarUDFImpl for ConcatOp {
    fn name(&self) -> &str {
        "||"
    }
    fn signature(&self) -> &Signature {
        &self.signature
    }
    fn schema_name(&self, args: &[Expr]) -> Result<String> {
        Ok(super::operator::schema_name("||", args))
    }
    fn display_name(&self, args: &[Expr]) -> Result<String> {
        Ok(super::operator::display_name("||", args))
    }
    fn coerce_types(&self, arg_types: &[DataType]) -> Result<Vec<DataType>> {
        let to = if arg_types.contains(&DataType::Utf8View) {
            DataType::Utf8View
        } else if arg_types.contains(&DataType::LargeUtf8) {
            DataType::LargeUtf8
        } else {
            DataType::Utf8
        };
        Ok(vec![to; arg_types.len()])
    }
    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        Ok(arg_types.first().cloned().unwrap_or(DataType::Utf8))
    }
    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let rows = args.number_rows.max(1);
        let (l, r) = super::operator::operands("||", &args)?;
        let size = Arg(l).bytes(rows).saturating_add(Arg(r).bytes(rows));
        if size > bound(self.limit) {
            return Err(refuse("||", size, bound(self.limit)));
        }
        super::operator::binary("||", &args, |l, r| Ok(concat_elements_dyn(l, r)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(s: &str) -> ColumnarValue {
        ColumnarValue::Scalar(ScalarValue::Utf8(Some(s.into())))
    }
    fn int(n: i64) -> ColumnarValue {
        ColumnarValue::Scalar(ScalarValue::Int64(Some(n)))
    }
    fn estimate(name: &str, args: &[ColumnarValue], rows: usize) -> usize {
        let (_, growth) = WRAPPED.iter().find(|(n, _)| *n == name).unwrap();
        let ctx = datafusion::prelude::SessionContext::new();
        Bounded { inner: ctx.udf(name).unwrap(), growth: *growth, limit: 0 }.estimate(args, rows)
    }

    /// Each estimate is at least what DataFusion's own function builds.
    #[test]
    fn estimates_are_upper_bounds_of_what_is_built() {
        let col = ColumnarValue::Array(Arc::new(datafusion::arrow::array::StringArray::from(vec![Some("abab"), None, Some("xbx")])));
        let cases: Vec<(&str, Vec<ColumnarValue>, usize)> = vec![
            ("repeat", vec![text("ab"), int(5)], 1),
            ("lpad", vec![text("x"), int(7), text("é")], 1),
            ("rpad", vec![col.clone(), int(9)], 3),
            ("replace", vec![col.clone(), text("b"), text("XYZ")], 3),
            ("replace", vec![text("abc"), text(""), text("--")], 1),
            ("regexp_replace", vec![text("aaaa"), text("a"), text("<\\0\\0>"), text("g")], 1),
            ("regexp_replace", vec![text("abc"), text("x*"), text("-"), text("g")], 1),
            ("translate", vec![text("abcabc"), text("ab"), text("éü")], 1),
            ("encode", vec![ColumnarValue::Scalar(ScalarValue::Binary(Some(b"hello".to_vec()))), text("hex")], 1),
            ("encode", vec![ColumnarValue::Scalar(ScalarValue::Binary(Some(b"hello".to_vec()))), text("base64")], 1),
            ("concat", vec![col.clone(), text("--"), col.clone()], 3),
            ("concat_ws", vec![text(", "), col.clone(), col.clone(), col.clone()], 3),
            ("range", vec![int(3), int(40), int(2)], 1),
            ("generate_series", vec![int(1), int(10)], 1),
            ("array_repeat", vec![text("abc"), int(4)], 1),
            ("array_to_string", vec![ColumnarValue::Scalar(ScalarValue::List(ScalarValue::new_list_nullable(&[ScalarValue::Int64(Some(12)), ScalarValue::Int64(Some(345))], &DataType::Int64))), text("=+=")], 1),
        ];
        let ctx = datafusion::prelude::SessionContext::new();
        for (name, args, rows) in cases {
            let udf = ctx.udf(name).unwrap();
            let fields: Vec<FieldRef> = args.iter().enumerate().map(|(i, a)| Arc::new(datafusion::arrow::datatypes::Field::new(format!("a{i}"), a.data_type(), true))).collect();
            let scalars: Vec<Option<&ScalarValue>> = args.iter().map(|a| if let ColumnarValue::Scalar(s) = a { Some(s) } else { None }).collect();
            let return_field = udf.return_field_from_args(ReturnFieldArgs { arg_fields: &fields, scalar_arguments: &scalars }).unwrap();
            let out = udf
                .invoke_with_args(ScalarFunctionArgs { args: args.clone(), arg_fields: fields, number_rows: rows, return_field, config_options: Arc::new(Default::default()) })
                .unwrap();
            let built = match out {
                ColumnarValue::Array(a) => a.to_data().get_slice_memory_size().unwrap(),
                ColumnarValue::Scalar(s) => s.to_array().unwrap().to_data().get_slice_memory_size().unwrap(),
            };
            // What is built includes offsets (4 bytes a row) and validity; the estimate
            // counts values, so compare the values' bytes.
            let values = built.saturating_sub(4 * (rows + 1) + 8);
            let e = estimate(name, &args, rows);
            assert!(e >= values, "{name}: estimate {e} below {values} built");
        }
    }

    #[test]
    fn series_lengths_follow_the_step() {
        assert_eq!(series_length(&[&int(1), &int(200_000_001)], 0, false), 200_000_000);
        assert_eq!(series_length(&[&int(10), &int(1), &int(-3)], 0, true), 4);
        assert_eq!(series_length(&[&int(1), &int(10), &int(-1)], 0, false), 0);
        assert_eq!(series_length(&[&int(5)], 0, false), 5);
        let day = |d: i32| ColumnarValue::Scalar(ScalarValue::Date32(Some(d)));
        let step = ColumnarValue::Scalar(ScalarValue::new_interval_mdn(0, 0, 1_000_000_000));
        assert_eq!(series_length(&[&day(0), &day(2), &step], 0, false), 2 * 86_400);
    }
}
