//! Evaluation on the cluster, partitioned by repository. The client runs
//!
//! ```sql
//! SELECT hindsight_evaluate('/abs/dataset', '{settings}', repo)
//! FROM (SELECT DISTINCT repo FROM (SELECT target_repo AS repo FROM safe_outputs
//!       UNION ALL SELECT pr_repo FROM tasks))
//! ```
//!
//! in [`PARTITIONS`] partitions: the DISTINCT's final aggregation is hashed by repository,
//! so each of the job's last tasks (an executor's) holds whole repositories, and the scalar
//! function judges the outputs and task PRs of the repositories of each batch it is given
//! (the outputs of no repository with the NULL one) with the local run's own judging
//! (`evaluate::stage::judge_partition`), reading the dataset at the absolute path the
//! client named. It answers with one blob, in the batch's first row (the others are NULL):
//! the outcome rows (keyed by output id and window, never by a number of the executor's
//! process), the CI gate's tables and the risk table, each an Arrow IPC stream. The client
//! sorts and writes them with the local run's writers (`evaluate::stage::evaluate_judged`).
//!
//! A scalar function, rather than a plan node of hindsight's own: it travels in Ballista's
//! plans by name, as hindsight's other functions do, so no physical extension codec is
//! needed on the scheduler and executors; the hash repartitioning, the scheduling of the
//! partitions over the executors and their retries are Ballista's.

use std::collections::HashSet;
use std::io::Cursor;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, LargeBinaryBuilder};
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

/// Partitions an evaluation is hashed into (the job's last stage has a task for each).
pub(crate) const PARTITIONS: usize = 4;

/// Whether the function says on stderr what it evaluates (an executor not `--quiet`).
static SAYS: AtomicBool = AtomicBool::new(false);

/// Make the function say each batch of repositories it evaluates on stderr
/// (`executor: evaluating N repositories`, then `executor: evaluated N repositories ...`).
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
    ScalarUDF::new_from_impl(EvaluateRepositories { signature: Signature::exact(vec![DataType::Utf8, DataType::Utf8, DataType::Utf8], Volatility::Volatile) })
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
        Ok(DataType::LargeBinary)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> datafusion::common::Result<ColumnarValue> {
        let rows = args.number_rows;
        let [dataset, settings, repos] = args.args.as_slice() else {
            return Err(DataFusionError::Execution(format!("{NAME}() takes the dataset, the settings and a repository")));
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
        let mut out = LargeBinaryBuilder::new();
        if rows == 0 {
            return Ok(ColumnarValue::Array(Arc::new(out.finish())));
        }
        let (dataset, settings) = (text(dataset, "dataset")?, text(settings, "settings")?);
        let repos: ArrayRef = repos.to_array(rows)?;
        let repos = arrow::compute::cast(&repos, &DataType::Utf8)?;
        let repos = repos.as_string::<i32>();
        let repositories: HashSet<Option<String>> = (0..repos.len()).map(|i| repos.is_valid(i).then(|| repos.value(i).to_string())).collect();
        let blob = judge_here(Path::new(&dataset), &settings, &repositories).map_err(|e| DataFusionError::External(Box::new(e)))?;
        out.append_value(blob);
        for _ in 1..rows {
            out.append_null();
        }
        Ok(ColumnarValue::Array(Arc::new(out.finish())))
    }
}

/// One batch's repositories judged in this process, as the blob the client decodes.
fn judge_here(dataset: &Path, settings: &str, repositories: &HashSet<Option<String>>) -> Result<Vec<u8>> {
    let s: Settings = serde_json::from_str(settings)?;
    let windows: Vec<Window> = s.windows.iter().map(|w| w.parse()).collect::<hindsight_core::Result<_>>()?;
    let says = SAYS.load(Ordering::Relaxed);
    if says {
        eprintln!("executor: evaluating {} repositories of {}", repositories.len(), dataset.display());
    }
    let settings = crate::evaluate::Settings { windows, policy: s.policy, risk_policy: s.risk_policy, quality_policy: s.quality_policy };
    let tables = crate::evaluate::stage::judge_partition(dataset, repositories, &settings)?;
    let blob = encode(&tables)?;
    if says {
        let rows = tables.first().map_or(0, |(_, t)| t.num_rows());
        eprintln!("executor: evaluated {} repositories ({rows} outcome rows, {} KiB)", repositories.len(), blob.len() >> 10);
    }
    Ok(blob)
}

/// Tables as one blob: for each, its name's length (u32, little-endian) and the name, then
/// the length of its Arrow IPC stream (u64) and the stream, compressed with zstd.
fn encode(tables: &[(&str, RecordBatch)]) -> Result<Vec<u8>> {
    let mut blob = Vec::new();
    for (name, batch) in tables {
        let options = arrow::ipc::writer::IpcWriteOptions::default().try_with_compression(Some(arrow::ipc::CompressionType::ZSTD))?;
        let mut stream = arrow::ipc::writer::StreamWriter::try_new_with_options(Vec::new(), &batch.schema(), options)?;
        stream.write(batch)?;
        stream.finish()?;
        let bytes = stream.into_inner()?;
        blob.extend((name.len() as u32).to_le_bytes());
        blob.extend(name.as_bytes());
        blob.extend((bytes.len() as u64).to_le_bytes());
        blob.extend(bytes);
    }
    Ok(blob)
}

/// A blob's tables, by name (`encode`'s inverse).
fn decode(mut blob: &[u8]) -> std::result::Result<Vec<(String, RecordBatch)>, String> {
    fn take<'b>(blob: &mut &'b [u8], n: usize) -> std::result::Result<&'b [u8], String> {
        if blob.len() < n {
            return Err(format!("cut short ({} bytes left, {n} expected)", blob.len()));
        }
        let (head, rest) = blob.split_at(n);
        *blob = rest;
        Ok(head)
    }
    let mut tables = Vec::new();
    while !blob.is_empty() {
        let n = u32::from_le_bytes(take(&mut blob, 4)?.try_into().map_err(|_| "a name's length")?) as usize;
        let name = String::from_utf8(take(&mut blob, n)?.to_vec()).map_err(|_| "a table's name is not UTF-8")?;
        let n = u64::from_le_bytes(take(&mut blob, 8)?.try_into().map_err(|_| "a table's length")?);
        let bytes = take(&mut blob, usize::try_from(n).map_err(|_| "a table's length")?)?;
        let reader = arrow::ipc::reader::StreamReader::try_new(Cursor::new(bytes), None).map_err(|e| format!("{name}: {e}"))?;
        let schema = reader.schema();
        let batches = reader.collect::<std::result::Result<Vec<_>, _>>().map_err(|e| format!("{name}: {e}"))?;
        let batch = arrow::compute::concat_batches(&schema, &batches).map_err(|e| format!("{name}: {e}"))?;
        tables.push((name, batch));
    }
    Ok(tables)
}

/// A SQL string literal of `s`.
fn literal(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

/// The client's side: every repository of the dataset at `dataset` (the outputs' targets,
/// the task records' PRs, and no repository) judged on the cluster at `at`, in
/// [`PARTITIONS`] partitions; each partition's tables, in an order that depends on what was
/// judged alone (not on which executor answered first).
pub(crate) fn judge(at: &Address, dataset: &Path, settings: &crate::evaluate::Settings) -> Result<Vec<Vec<(String, RecordBatch)>>> {
    let dataset = std::fs::canonicalize(dataset).map_err(|e| Error::io(dataset, e))?;
    let manifest = crate::dataset::manifest::Manifest::load(&dataset)?;
    let wire = Settings {
        windows: settings.windows.iter().map(|w| w.to_string()).collect(),
        policy: settings.policy.clone(),
        risk_policy: settings.risk_policy.clone(),
        quality_policy: settings.quality_policy.clone(),
    };
    let wire = serde_json::to_string(&wire)?;
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().map_err(|e| Error::io(&dataset, e))?;
    // Ballista's static planner: the partitions stay the ones asked for, and a lost
    // executor's tasks are run again (its adaptive planner's rollback left the job waiting
    // for ever in Ballista 55).
    use ballista_core::extension::SessionConfigExt;
    let config = datafusion::prelude::SessionConfig::new_with_ballista().with_target_partitions(PARTITIONS)
        .with_ballista_adaptive_query_planner(false)
        .with_ballista_grpc_client_max_message_size(super::MESSAGE_BYTES);
    let runtime = datafusion::execution::runtime_env::RuntimeEnvBuilder::new().build_arc()?;
    let ctx = super::remote(&rt, at, config, runtime)?;
    ctx.register_udf(udf());
    let mut repos = vec!["SELECT target_repo AS repo FROM safe_outputs".to_string()];
    let mut tables = vec!["safe_outputs"];
    if manifest.tables.contains_key("tasks") {
        repos.push("SELECT pr_repo AS repo FROM tasks".into());
        tables.push("tasks");
    }
    for t in tables {
        let p = dataset.join(format!("{t}.parquet"));
        rt.block_on(ctx.register_parquet(t, p.to_string_lossy().as_ref(), datafusion::prelude::ParquetReadOptions::default()))
            .map_err(|e| Error::dataset(p.clone(), format!("cannot be read as a table: {e}")))?;
    }
    let sql = format!(
        "SELECT {NAME}({}, {}, repo) AS judged FROM (SELECT DISTINCT repo FROM ({}))",
        literal(&dataset.to_string_lossy()),
        literal(&wire),
        repos.join(" UNION ALL ")
    );
    let failed = |e: DataFusionError| {
        let said = e.strip_backtrace().split_whitespace().collect::<Vec<_>>().join(" ");
        Error::usage(format!("the evaluation on the cluster at {at} failed: {said}"))
    };
    let batches = rt.block_on(async { ctx.sql(&sql).await?.collect().await }).map_err(failed)?;
    let mut blobs: Vec<&[u8]> = Vec::new();
    for b in &batches {
        let col = b.column(0).as_binary::<i64>();
        blobs.extend((0..col.len()).filter(|&i| col.is_valid(i)).map(|i| col.value(i)));
    }
    // The partitions' order is the executors' timing: sorted, the tables are merged in one
    // order whatever it was.
    blobs.sort_unstable();
    // A partition Ballista ran again (its executor lost) may be returned by both attempts:
    // judging is deterministic, so the two are the same bytes, and distinct partitions never
    // are (each holds outputs or task PRs the others do not).
    blobs.dedup();
    blobs
        .into_iter()
        .map(|blob| decode(blob).map_err(|message| Error::dataset(dataset.clone(), format!("what the cluster at {at} returned: {message}"))))
        .collect()
}
