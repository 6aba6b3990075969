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
//! A dataset in an object store needs no shared folder: the client copies only what it
//! reads itself, puts the plan, the bands' outputs and the table of bands under a staging
//! prefix in the store, and names the tables' and the staging's URLs instead of paths; the
//! function fetches its band's share into a folder of its own (`crate::mirror`), judges it
//! there the same way, and puts the band's result back beside the plan.
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
use crate::location::{ObjectUrl, OnCluster};
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
            let judged = judge_here(&dataset, &staging, &settings, k).map_err(|e| DataFusionError::External(Box::new(e)))?;
            out.append_value(judged as i64);
        }
        Ok(ColumnarValue::Array(Arc::new(out.finish())))
    }
}

/// Band `k` judged in this process, its tables written to the staging folder; its number of
/// outcome rows. The dataset and the staging folder are paths every executor sees, or
/// places in an object store ([`judge_fetched`]).
fn judge_here(dataset: &str, staging: &str, settings: &str, k: usize) -> Result<usize> {
    let s: Settings = serde_json::from_str(settings)?;
    let windows: Vec<Window> = s.windows.iter().map(|w| w.parse()).collect::<hindsight_core::Result<_>>()?;
    let says = SAYS.load(Ordering::Relaxed);
    let read_before = bytes_read();
    if says {
        eprintln!("executor: evaluating band {k} of {dataset}");
    }
    let settings = crate::evaluate::Settings { windows, policy: s.policy, risk_policy: s.risk_policy, quality_policy: s.quality_policy };
    let (judged, fetched) = match crate::location::is_url(Path::new(dataset)) {
        false => (crate::evaluate::stage::judge_partition(Path::new(dataset), Path::new(staging), k, &settings)?, String::new()),
        true => {
            let (judged, fetched) = judge_fetched(&ObjectUrl::parse(dataset)?, &ObjectUrl::parse(staging)?, k, &settings)?;
            (judged, format!(", {fetched} bytes fetched"))
        }
    };
    if says {
        let read = match (read_before, bytes_read()) {
            (Some(a), Some(b)) => format!("{} bytes read", b.saturating_sub(a)),
            _ => "bytes read unknown".into(),
        };
        eprintln!("executor: evaluated band {k} ({judged} outcome rows{fetched}, {read})");
    }
    Ok(judged)
}

/// Band `k` of an evaluation whose tables (`tables`) and staging are in an object store, on
/// an executor that shares no folder with the client: the plan, the band's outputs and its
/// share of the tables fetched into a temporary folder here ([`crate::mirror`]), judged
/// there as from a shared folder, and the band's result put beside the plan. Its outcome
/// rows and the bytes fetched.
fn judge_fetched(tables: &ObjectUrl, staging: &ObjectUrl, k: usize, settings: &crate::evaluate::Settings) -> Result<(usize, u64)> {
    let here = Scratch::new(k)?;
    let (data, plan) = (here.0.join("dataset"), here.0.join("staging"));
    for dir in [&data, &plan] {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    }
    let fetched = on_own_thread(|| crate::location::fetch_for_band(tables, staging, k, &data, &plan))?;
    let judged = crate::evaluate::stage::judge_partition(&data, &plan, k, settings)?;
    let result = crate::evaluate::partitions::band_files(k).1;
    on_own_thread(|| crate::location::put_files(&plan, std::slice::from_ref(&result), staging))?;
    Ok((judged, fetched))
}

/// `f` on a thread of its own: the function runs on a worker of the executor's runtime,
/// which may not wait on the runtime an object store's requests are made on.
fn on_own_thread<T: Send>(f: impl FnOnce() -> Result<T> + Send) -> Result<T> {
    std::thread::scope(|s| s.spawn(f).join()).unwrap_or_else(|_| Err(Error::usage("an object store's request failed: its thread panicked")))
}

/// A folder of this process's own under the system's temporary folder, removed when dropped.
struct Scratch(std::path::PathBuf);

impl Scratch {
    fn new(k: usize) -> Result<Scratch> {
        let dir = std::env::temp_dir().join(crate::location::fresh_name(&format!("hindsight-band-{k}")));
        std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
        Ok(Scratch(dir))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
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
pub(crate) fn judge(at: &Address, dataset: &Path, staging: &Path, bands: usize, settings: &crate::evaluate::Settings, remote: Option<&OnCluster>) -> Result<()> {
    let dataset = std::fs::canonicalize(dataset).map_err(|e| Error::io(dataset, e))?;
    let staging = std::fs::canonicalize(staging).map_err(|e| Error::io(staging, e))?;
    let listed = staging.join("partitions");
    write_band_files(&listed, bands)?;
    let Some(remote) = remote else {
        return judge_at(at, (&dataset.to_string_lossy(), &staging.to_string_lossy(), &listed.to_string_lossy()), bands, settings);
    };
    // The executors share no folder with this machine: the plan, the bands' outputs and the
    // table of bands go to the staging prefix, the results come back from it, and it is
    // removed whatever happened.
    let mut sent: Vec<String> = std::fs::read_dir(&staging).map_err(|e| Error::io(&staging, e))?.flatten().filter(|e| e.path().is_file()).map(|e| e.file_name().to_string_lossy().into_owned()).collect();
    sent.extend((0..bands).map(|k| format!("partitions/{}", band_file_name(k))));
    let judged = crate::location::put_files(&staging, &sent, &remote.staging).and_then(|()| {
        let places = (remote.tables.to_string(), remote.staging.to_string(), remote.staging.object("partitions/"));
        judge_at(at, (&places.0, &places.1, &places.2), bands, settings)?;
        let results: Vec<String> = (0..bands).map(|k| crate::evaluate::partitions::band_files(k).1).collect();
        crate::location::get_files(&remote.staging, &results, &staging)
    });
    let removed = crate::location::remove_all(&remote.staging);
    judged.and(removed)
}

/// [`judge`]'s SQL on the cluster at `at`: the dataset, the staging folder and the table of
/// bands at the places every executor reads them (paths, or URLs in an object store).
fn judge_at(at: &Address, (dataset, staging, listed): (&str, &str, &str), bands: usize, settings: &crate::evaluate::Settings) -> Result<()> {
    let wire = Settings {
        windows: settings.windows.iter().map(|w| w.to_string()).collect(),
        policy: settings.policy.clone(),
        risk_policy: settings.risk_policy.clone(),
        quality_policy: settings.quality_policy.clone(),
    };
    let wire = serde_json::to_string(&wire)?;
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().map_err(|e| Error::while_doing(format!("evaluating {dataset} on the cluster at {at}"), Box::new(e)))?;
    // Ballista's static planner: the partitions stay the ones asked for, and a lost
    // executor's tasks are run again (its adaptive planner's rollback left the job waiting
    // for ever in Ballista 55).
    use ballista_core::extension::SessionConfigExt;
    let config = datafusion::prelude::SessionConfig::new_with_ballista().with_target_partitions(bands.max(1))
        .with_ballista_adaptive_query_planner(false)
        .with_ballista_grpc_client_max_message_size(super::MESSAGE_BYTES);
    let runtime = crate::location::cluster_runtime(Default::default(), None)?;
    let ctx = super::remote(&rt, at, config, runtime)?;
    ctx.register_udf(udf());
    rt.block_on(ctx.register_parquet("bands", listed, datafusion::prelude::ParquetReadOptions::default()))
        .map_err(|e| Error::dataset(listed, format!("cannot be read as a table: {e}")))?;
    let sql = format!("SELECT k, {NAME}({}, {}, {}, k) AS judged FROM bands", literal(dataset), literal(staging), literal(&wire));
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

/// The file of band `k` in the table of bands.
fn band_file_name(k: usize) -> String {
    format!("part-{k:05}.parquet")
}

/// One Parquet file per band in `dir`, its one row the band's number: a table the cluster
/// scans in as many partitions as there are files (one band a task).
fn write_band_files(dir: &Path, bands: usize) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let schema = std::sync::Arc::new(arrow::datatypes::Schema::new(vec![arrow::datatypes::Field::new("k", DataType::Int64, false)]));
    for k in 0..bands {
        let p = dir.join(band_file_name(k));
        let batch = RecordBatch::try_new(schema.clone(), vec![Arc::new(arrow::array::Int64Array::from(vec![k as i64]))])?;
        let file = std::fs::File::create(&p).map_err(|e| Error::io(&p, e))?;
        let mut w = parquet::arrow::ArrowWriter::try_new(file, schema.clone(), None)?;
        w.write(&batch)?;
        w.close()?;
    }
    Ok(())
}
