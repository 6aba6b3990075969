//! Evaluation on the cluster, a band of repositories per partition. The client
//! (`evaluate::stage::evaluate_judged`) cuts the study into bands of whole repositories with
//! about as many outputs each and writes each band's outputs and the plan to the dataset's
//! staging folder (`evaluate::partitions`); here it writes one small Parquet file per band
//! (`partitions/part-K.parquet`, its one row the band's number) and runs
//!
//! ```sql
//! SELECT hindsight_evaluate('/abs/dataset', '/abs/dataset/.cluster', '{settings}', k) FROM bands
//! ```
//!
//! with as many target partitions as bands, so each of the job's tasks scans one file and
//! judges one band. The scalar function reads the band's outputs and only the rows of the
//! captures its repositories hold (row groups and pages by the `repo` column), judges them
//! with the local run's own judging (`evaluate::stage::judge_partition`) and writes the
//! band's tables beside the plan; it answers with the band's number of outcome rows, so no
//! message grows with the study. The client then reads the bands' tables in band order.
//!
//! A scalar function, rather than a plan node of hindsight's own: it travels in Ballista's
//! plans by name, as hindsight's other functions do, so no physical extension codec is
//! needed on the scheduler and executors; the scheduling of the partitions over the
//! executors and their retries are Ballista's.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use arrow::array::{Array, AsArray, Int64Builder};
use arrow::datatypes::DataType;
use arrow::record_batch::RecordBatch;
use datafusion::common::{DataFusionError, ScalarValue};
use datafusion::logical_expr::{ColumnarValue, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature, Volatility};
use serde::{Deserialize, Serialize};

use super::Address;
use crate::error::{Error, Result};
use crate::evaluate::risk::RiskPolicy;
use crate::evaluate::{Policy, Window};

/// The function's name in SQL.
pub(crate) const NAME: &str = "hindsight_evaluate";

/// Whether the function says on stderr what it evaluates (an executor not `--quiet`).
static SAYS: AtomicBool = AtomicBool::new(false);

/// Make the function say each band it evaluates on stderr (`executor: evaluating band K
/// of DATASET`, then `executor: evaluated band K (N outcome rows, B bytes read)`).
pub(crate) fn say_what_is_evaluated() {
    SAYS.store(true, Ordering::Relaxed);
}

/// The windows and policies, as the client hands them to every executor (JSON text).
#[derive(Serialize, Deserialize)]
struct Settings {
    windows: Vec<String>,
    policy: Policy,
    risk_policy: RiskPolicy,
    quality_policy: crate::evaluate::quality::QualityPolicy,
}

/// The function, for a registry (the client's session, the scheduler's, each executor's).
pub(crate) fn udf() -> ScalarUDF {
    ScalarUDF::new_from_impl(EvaluateRepositories { signature: Signature::exact(vec![DataType::Utf8, DataType::Utf8, DataType::Utf8, DataType::Int64], Volatility::Volatile) })
}

#[derive(Debug, PartialEq, Eq, Hash)]
struct EvaluateRepositories {
    signature: Signature,
}

impl ScalarUDFImpl for EvaluateRepositories {
    fn name(&self) -> &str {
        NAME
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _: &[DataType]) -> datafusion::common::Result<DataType> {
        Ok(DataType::Int64)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> datafusion::common::Result<ColumnarValue> {
        let rows = args.number_rows;
        let [dataset, staging, settings, bands] = args.args.as_slice() else {
            return Err(DataFusionError::Execution(format!("{NAME}() takes the dataset, its staging folder, the settings and a band")));
        };
        let text = |v: &ColumnarValue, what: &str| -> datafusion::common::Result<String> {
            let s = match v {
                ColumnarValue::Scalar(s) => s.clone(),
                ColumnarValue::Array(a) if !a.is_empty() => ScalarValue::try_from_array(a, 0)?,
                ColumnarValue::Array(_) => ScalarValue::Utf8(None),
            };
            match s {
                ScalarValue::Utf8(Some(t)) | ScalarValue::LargeUtf8(Some(t)) | ScalarValue::Utf8View(Some(t)) => Ok(t),
                _ => Err(DataFusionError::Execution(format!("{NAME}(): the {what} is not text"))),
            }
        };
        let mut out = Int64Builder::with_capacity(rows);
        if rows == 0 {
            return Ok(ColumnarValue::Array(Arc::new(out.finish())));
        }
        let (dataset, staging, settings) = (text(dataset, "dataset")?, text(staging, "staging folder")?, text(settings, "settings")?);
        let bands = bands.to_array(rows)?;
        let bands = arrow::compute::cast(&bands, &DataType::Int64)?;
        for k in bands.as_primitive::<arrow::datatypes::Int64Type>().iter() {
            let k = k.and_then(|k| usize::try_from(k).ok()).ok_or_else(|| DataFusionError::Execution(format!("{NAME}(): a band is not a number")))?;
            let judged = judge_here(Path::new(&dataset), Path::new(&staging), &settings, k).map_err(|e| DataFusionError::External(Box::new(e)))?;
            out.append_value(judged as i64);
        }
        Ok(ColumnarValue::Array(Arc::new(out.finish())))
    }
}

/// Band `k` judged in this process, its tables written to the staging folder; its number of
/// outcome rows.
fn judge_here(dataset: &Path, staging: &Path, settings: &str, k: usize) -> Result<usize> {
    let s: Settings = serde_json::from_str(settings)?;
    let windows: Vec<Window> = s.windows.iter().map(|w| w.parse()).collect::<hindsight_core::Result<_>>()?;
    let says = SAYS.load(Ordering::Relaxed);
    let read_before = bytes_read();
    if says {
        eprintln!("executor: evaluating band {k} of {}", dataset.display());
    }
    let settings = crate::evaluate::Settings { windows, policy: s.policy, risk_policy: s.risk_policy, quality_policy: s.quality_policy };
    let judged = crate::evaluate::stage::judge_partition(dataset, staging, k, &settings)?;
    if says {
        let read = match (read_before, bytes_read()) {
            (Some(a), Some(b)) => format!("{} bytes read", b.saturating_sub(a)),
            _ => "bytes read unknown".into(),
        };
        eprintln!("executor: evaluated band {k} ({judged} outcome rows, {read})");
    }
    Ok(judged)
}

/// The bytes this process has read from files and sockets so far (`rchar` of
/// `/proc/self/io`; none where the system does not say). An executor's band reads are what
/// it reads while judging the band (it judges one band at a time with `--concurrency 1`).
fn bytes_read() -> Option<u64> {
    let io = std::fs::read_to_string("/proc/self/io").ok()?;
    io.lines().find_map(|l| l.strip_prefix("rchar:")).and_then(|v| v.trim().parse().ok())
}

/// A SQL string literal of `s`.
fn literal(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

/// The client's side: the `bands` bands planned in `staging` (the dataset at `dataset`'s
/// staging folder) judged on the cluster at `at`, each writing its tables beside the plan.
pub(crate) fn judge(at: &Address, dataset: &Path, staging: &Path, bands: usize, settings: &crate::evaluate::Settings) -> Result<()> {
    let dataset = std::fs::canonicalize(dataset).map_err(|e| Error::io(dataset, e))?;
    let staging = std::fs::canonicalize(staging).map_err(|e| Error::io(staging, e))?;
    let wire = Settings {
        windows: settings.windows.iter().map(|w| w.to_string()).collect(),
        policy: settings.policy.clone(),
        risk_policy: settings.risk_policy.clone(),
        quality_policy: settings.quality_policy.clone(),
    };
    let wire = serde_json::to_string(&wire)?;
    let listed = staging.join("partitions");
    write_band_files(&listed, bands)?;
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().map_err(|e| Error::io(&dataset, e))?;
    // Ballista's static planner: the partitions stay the ones asked for, and a lost
    // executor's tasks are run again (its adaptive planner's rollback left the job waiting
    // for ever in Ballista 55).
    use ballista_core::extension::SessionConfigExt;
    let config = datafusion::prelude::SessionConfig::new_with_ballista().with_target_partitions(bands.max(1))
        .with_ballista_adaptive_query_planner(false)
        .with_ballista_grpc_client_max_message_size(super::MESSAGE_BYTES);
    let runtime = datafusion::execution::runtime_env::RuntimeEnvBuilder::new().build_arc()?;
    let ctx = super::remote(&rt, at, config, runtime)?;
    ctx.register_udf(udf());
    rt.block_on(ctx.register_parquet("bands", listed.to_string_lossy().as_ref(), datafusion::prelude::ParquetReadOptions::default()))
        .map_err(|e| Error::dataset(listed.clone(), format!("cannot be read as a table: {e}")))?;
    let sql = format!(
        "SELECT k, {NAME}({}, {}, {}, k) AS judged FROM bands",
        literal(&dataset.to_string_lossy()),
        literal(&staging.to_string_lossy()),
        literal(&wire),
    );
    let failed = |e: DataFusionError| {
        let said = e.strip_backtrace().split_whitespace().collect::<Vec<_>>().join(" ");
        Error::usage(format!("the evaluation on the cluster at {at} failed: {said}"))
    };
    let batches = rt.block_on(async { ctx.sql(&sql).await?.collect().await }).map_err(failed)?;
    let mut judged = vec![false; bands];
    for b in &batches {
        for k in b.column(0).as_primitive::<arrow::datatypes::Int64Type>().iter().flatten() {
            if let Some(seen) = usize::try_from(k).ok().and_then(|k| judged.get_mut(k)) {
                *seen = true;
            }
        }
    }
    match judged.iter().position(|j| !j) {
        Some(k) => Err(Error::usage(format!("the cluster at {at} did not judge band {k} of {bands}"))),
        None => Ok(()),
    }
}

/// One Parquet file per band in `dir`, its one row the band's number: a table the cluster
/// scans in as many partitions as there are files (one band a task).
fn write_band_files(dir: &Path, bands: usize) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let schema = std::sync::Arc::new(arrow::datatypes::Schema::new(vec![arrow::datatypes::Field::new("k", DataType::Int64, false)]));
    for k in 0..bands {
        let p = dir.join(format!("part-{k:05}.parquet"));
        let batch = RecordBatch::try_new(schema.clone(), vec![Arc::new(arrow::array::Int64Array::from(vec![k as i64]))])?;
        let file = std::fs::File::create(&p).map_err(|e| Error::io(&p, e))?;
        let mut w = parquet::arrow::ArrowWriter::try_new(file, schema.clone(), None)?;
        w.write(&batch)?;
        w.close()?;
    }
    Ok(())
}
