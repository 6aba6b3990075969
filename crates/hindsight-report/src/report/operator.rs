//! A binary SQL operator planned as a function (`||` bounded by the memory limit, `+ - *`
//! checked for overflow): named as the operator in results (`a + b`), its planner registered
//! wherever SQL is planned, computed on two arrays, and a scalar again for two scalars (what
//! constant folding gives).

use std::sync::Arc;

use datafusion::arrow::array::ArrayRef;
use datafusion::common::{DataFusionError, Result, ScalarValue};
use datafusion::execution::FunctionRegistry;
use datafusion::logical_expr::expr::ScalarFunction;
use datafusion::logical_expr::planner::{ExprPlanner, PlannerResult, RawBinaryExpr};
use datafusion::logical_expr::{ColumnarValue, Expr, ScalarFunctionArgs, ScalarUDF};

/// Registers `planner`; an executor's registry, which plans nothing (it runs the plans the
/// client made), is left without it.
pub(crate) fn register_planner(registry: &mut dyn FunctionRegistry, planner: Arc<dyn ExprPlanner>) -> Result<()> {
    match registry.register_expr_planner(planner) {
        Err(DataFusionError::NotImplemented(_)) => Ok(()),
        other => other,
    }
}

/// `expr`'s two sides as the arguments of `udf`.
pub(crate) fn planned(udf: ScalarUDF, expr: RawBinaryExpr) -> PlannerResult<RawBinaryExpr> {
    PlannerResult::Planned(Expr::ScalarFunction(ScalarFunction::new_udf(Arc::new(udf), vec![expr.left, expr.right])))
}

/// The column name of `left SYMBOL right`, as DataFusion names the operator's.
pub(crate) fn schema_name(symbol: &str, args: &[Expr]) -> String {
    match args {
        [l, r] => format!("{} {symbol} {}", l.schema_name(), r.schema_name()),
        _ => symbol.into(),
    }
}

/// How `left SYMBOL right` is shown in plans.
pub(crate) fn display_name(symbol: &str, args: &[Expr]) -> String {
    match args {
        [l, r] => format!("{l} {symbol} {r}"),
        _ => symbol.into(),
    }
}

/// The two operands of a call of the operator `symbol`.
pub(crate) fn operands<'a>(symbol: &str, args: &'a ScalarFunctionArgs) -> Result<(&'a ColumnarValue, &'a ColumnarValue)> {
    match args.args.as_slice() {
        [l, r] => Ok((l, r)),
        _ => Err(DataFusionError::Plan(format!("{symbol} takes two values"))),
    }
}

/// `compute` over the operands as arrays: one row each for two scalars, whose answer is a
/// scalar again.
pub(crate) fn binary(symbol: &str, args: &ScalarFunctionArgs, compute: impl FnOnce(&ArrayRef, &ArrayRef) -> Result<ArrayRef>) -> Result<ColumnarValue> {
    let (l, r) = operands(symbol, args)?;
    let scalar = matches!((l, r), (ColumnarValue::Scalar(_), ColumnarValue::Scalar(_)));
    let rows = if scalar { 1 } else { args.number_rows };
    let out = compute(&l.to_array(rows)?, &r.to_array(rows)?)?;
    Ok(if scalar { ColumnarValue::Scalar(ScalarValue::try_from_array(&out, 0)?) } else { ColumnarValue::Array(out) })
}
