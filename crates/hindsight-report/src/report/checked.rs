//! Integer `+`, `-` and `*` that fail on overflow. DataFusion's operators wrap
//! (`9223372036854775807 + 1` is `-9223372036854775808`), a wrong number given as an answer;
//! here they are planned as functions named as the operator (`a + b` in a header) that
//! compute with arrow's checked kernels and say which operation overflowed. Integers are
//! widened to 64 bits first (unsigned when both sides are), so a sum of two `INT` columns
//! past 2^31 is its value, as in DuckDB, not an error.

use std::sync::Arc;

use datafusion::arrow::compute::kernels::numeric;
use datafusion::arrow::datatypes::DataType;
use datafusion::common::{DFSchema, DataFusionError, Result};
use datafusion::execution::FunctionRegistry;
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
    super::operator::register_planner(registry, Arc::new(Planner))
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
        Ok(super::operator::planned(ScalarUDF::new_from_impl(Checked::new(op)), expr))
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
        Ok(super::operator::schema_name(self.op.symbol(), args))
    }
    fn display_name(&self, args: &[Expr]) -> Result<String> {
        Ok(super::operator::display_name(self.op.symbol(), args))
    }
    fn coerce_types(&self, arg_types: &[DataType]) -> Result<Vec<DataType>> {
        let to = if arg_types.iter().all(DataType::is_unsigned_integer) { DataType::UInt64 } else { DataType::Int64 };
        Ok(vec![to; arg_types.len()])
    }
    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        Ok(arg_types.first().cloned().unwrap_or(DataType::Int64))
    }
    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        super::operator::binary(self.op.symbol(), &args, |l, r| {
            match self.op {
                Op::Add => numeric::add(l, r),
                Op::Subtract => numeric::sub(l, r),
                Op::Multiply => numeric::mul(l, r),
            }
            .map_err(|e| DataFusionError::Execution(format!("integer {} leaves the 64-bit range ({e}); cast to DOUBLE or DECIMAL first", self.op.symbol())))
        })
    }
}
