//! Integer `+`, `-` and `*` that fail on overflow. DataFusion's operators wrap
//! (`9223372036854775807 + 1` is `-9223372036854775808`), a wrong number given as an answer;
//! here they are planned as functions named as the operator (`a + b` in a header) that
//! compute with arrow's checked kernels and say which operation overflowed. Integers are
//! widened to 64 bits first (unsigned when both sides are), so a sum of two `INT` columns
//! past 2^31 is its value, as in DuckDB, not an error.

use std::sync::Arc;

use datafusion::arrow::compute::kernels::numeric;
use datafusion::arrow::datatypes::DataType;
use datafusion::common::{DFSchema, DataFusionError, Result, ScalarValue};
use datafusion::execution::FunctionRegistry;
use datafusion::logical_expr::expr::ScalarFunction;
use datafusion::logical_expr::planner::{ExprPlanner, PlannerResult, RawBinaryExpr};
use datafusion::logical_expr::{ColumnarValue, Expr, ExprSchemable, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature, Volatility};
use datafusion::sql::sqlparser::ast::BinaryOperator;

/// An integer operation that may overflow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Op {
    Add,
    Subtract,
    Multiply,
}

impl Op {
    const ALL: [Op; 3] = [Op::Add, Op::Subtract, Op::Multiply];

    fn symbol(self) -> &'static str {
        match self {
            Op::Add => "+",
            Op::Subtract => "-",
            Op::Multiply => "*",
        }
    }

    fn of(op: &BinaryOperator) -> Option<Op> {
        match op {
            BinaryOperator::Plus => Some(Op::Add),
            BinaryOperator::Minus => Some(Op::Subtract),
            BinaryOperator::Multiply => Some(Op::Multiply),
            _ => None,
        }
    }
}

/// Registers the checked operations, and the planner that uses them for integers.
pub(crate) fn register(registry: &mut dyn FunctionRegistry) -> Result<()> {
    for op in Op::ALL {
        registry.register_udf(Arc::new(ScalarUDF::new_from_impl(Checked::new(op))))?;
    }
    match registry.register_expr_planner(Arc::new(Planner)) {
        // An executor's registry plans nothing: it runs plans the client made.
        Err(DataFusionError::NotImplemented(_)) => Ok(()),
        other => other,
    }
}

#[derive(Debug)]
struct Planner;

impl ExprPlanner for Planner {
    fn plan_binary_op(&self, expr: RawBinaryExpr, schema: &DFSchema) -> Result<PlannerResult<RawBinaryExpr>> {
        let Some(op) = Op::of(&expr.op) else { return Ok(PlannerResult::Original(expr)) };
        let integer = |e: &Expr| e.get_type(schema).is_ok_and(|t| t.is_integer());
        if !(integer(&expr.left) && integer(&expr.right)) {
            return Ok(PlannerResult::Original(expr));
        }
        let udf = Arc::new(ScalarUDF::new_from_impl(Checked::new(op)));
        Ok(PlannerResult::Planned(Expr::ScalarFunction(ScalarFunction::new_udf(udf, vec![expr.left, expr.right]))))
    }
}

#[derive(Debug, PartialEq, Eq, Hash)]
struct Checked {
    op: Op,
    signature: Signature,
}

impl Checked {
    fn new(op: Op) -> Checked {
        Checked { op, signature: Signature::user_defined(Volatility::Immutable) }
    }
}

impl ScalarUDFImpl for Checked {
    fn name(&self) -> &str {
        self.op.symbol()
    }
    fn signature(&self) -> &Signature {
        &self.signature
    }
    fn schema_name(&self, args: &[Expr]) -> Result<String> {
        match args {
            [l, r] => Ok(format!("{} {} {}", l.schema_name(), self.op.symbol(), r.schema_name())),
            _ => Ok(self.op.symbol().into()),
        }
    }
    fn display_name(&self, args: &[Expr]) -> Result<String> {
        match args {
            [l, r] => Ok(format!("{l} {} {r}", self.op.symbol())),
            _ => Ok(self.op.symbol().into()),
        }
    }
    fn coerce_types(&self, arg_types: &[DataType]) -> Result<Vec<DataType>> {
        let to = if arg_types.iter().all(DataType::is_unsigned_integer) { DataType::UInt64 } else { DataType::Int64 };
        Ok(vec![to; arg_types.len()])
    }
    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        Ok(arg_types.first().cloned().unwrap_or(DataType::Int64))
    }
    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let [l, r] = args.args.as_slice() else {
            return Err(DataFusionError::Plan(format!("{} takes two values", self.op.symbol())));
        };
        let scalar = matches!((l, r), (ColumnarValue::Scalar(_), ColumnarValue::Scalar(_)));
        let rows = if scalar { 1 } else { args.number_rows };
        let (la, ra) = (l.to_array(rows)?, r.to_array(rows)?);
        let out = match self.op {
            Op::Add => numeric::add(&la, &ra),
            Op::Subtract => numeric::sub(&la, &ra),
            Op::Multiply => numeric::mul(&la, &ra),
        }
        .map_err(|e| DataFusionError::Execution(format!("integer {} leaves the 64-bit range ({e}); cast to DOUBLE or DECIMAL first", self.op.symbol())))?;
        Ok(if scalar { ColumnarValue::Scalar(ScalarValue::try_from_array(&out, 0)?) } else { ColumnarValue::Array(out) })
    }
}
