//! The scheduler and the executor, each run in this process until it is stopped, with
//! hindsight's functions. Their options default to Ballista's own
//! ([`SchedulerOptions::default`], [`ExecutorOptions::default`]).

use std::path::PathBuf;
use std::sync::Arc;

use ballista_core::registry::BallistaFunctionRegistry;
use datafusion::execution::SessionState;
use datafusion::prelude::SessionConfig;

use super::Address;
use crate::error::{Error, Result};

/// `hindsight cluster scheduler`.
#[derive(Clone, Debug)]
pub struct SchedulerOptions {
    /// The address its gRPC service listens on.
    pub bind_host: String,
    /// The port (0: one the system picks, said on stderr).
    pub port: u16,
    /// The host name executors and clients reach it by.
    pub external_host: String,
    /// Seconds without a heartbeat after which an executor is taken for lost (its tasks are
    /// run again on the others). Lost executors are looked for every 15 seconds, or every
    /// third of this when shorter.
    pub executor_timeout: u64,
}

impl Default for SchedulerOptions {
    fn default() -> Self {
        let b = ballista_scheduler::config::SchedulerConfig::default();
        SchedulerOptions { bind_host: b.bind_host, port: b.bind_port, external_host: b.external_host, executor_timeout: b.executor_timeout_seconds }
    }
}

/// `hindsight cluster executor`.
#[derive(Clone, Debug)]
pub struct ExecutorOptions {
    /// The scheduler it registers with and takes tasks from.
    pub scheduler: Address,
    /// The address its services listen on.
    pub bind_host: String,
    /// The host name the scheduler and other executors reach it by (default: the address
    /// the scheduler sees it connect from).
    pub external_host: Option<String>,
    /// The Arrow Flight port results and shuffled partitions are fetched from.
    pub port: u16,
    /// The gRPC port (the scheduler's calls to the executor).
    pub grpc_port: u16,
    /// Where it writes shuffle files (default: a temporary directory).
    pub work_dir: Option<PathBuf>,
    /// Tasks it runs at once (0: one a core).
    pub concurrency: usize,
    /// Seconds between its heartbeats to the scheduler.
    pub heartbeat_interval: u64,
}

impl Default for ExecutorOptions {
    fn default() -> Self {
        let b = ballista_executor::executor_process::ExecutorProcessConfig::default();
        ExecutorOptions {
            scheduler: Address { host: b.scheduler_host, port: b.scheduler_port },
            bind_host: b.bind_host,
            external_host: b.external_host,
            port: b.port,
            grpc_port: b.grpc_port,
            work_dir: b.work_dir.map(PathBuf::from),
            concurrency: 0,
            heartbeat_interval: b.executor_heartbeat_interval_seconds,
        }
    }
}

/// Executors pull their tasks from the scheduler (Ballista's pull-staged scheduling): with
/// tasks pushed (its default) a lost executor's tasks, rolled back, were never offered to
/// the others again in Ballista 55, and the job waited for ever; pulled, they run again on
/// the executors left (tests/it/cluster.rs kills one mid-job).
const SCHEDULING: ballista_core::config::TaskSchedulingPolicy = ballista_core::config::TaskSchedulingPolicy::PullStaged;

/// The session state the scheduler plans each job in: Ballista's, with hindsight's
/// functions (the client's plan names them).
fn session_state(config: SessionConfig) -> datafusion::common::Result<SessionState> {
    use datafusion::execution::FunctionRegistry;
    let state = ballista_core::utils::default_session_builder(config)?;
    // The plans of an evaluation of a dataset in an object store name its objects.
    let runtime = crate::location::cluster_runtime(Default::default(), None)?;
    let mut state = datafusion::execution::SessionStateBuilder::new_from_existing(state).with_runtime_env(runtime).build();
    crate::report::register_functions(&mut state, crate::report::default_memory_limit())?;
    state.register_udf(Arc::new(super::evaluate::udf()))?;
    Ok(state)
}

/// Ballista's log lines at `info` and above, on stderr (`LEVEL target: message`).
struct Stderr;

impl log::Log for Stderr {
    fn enabled(&self, m: &log::Metadata) -> bool {
        m.level() <= log::Level::Info && m.target().starts_with("ballista")
    }

    fn log(&self, r: &log::Record) {
        if self.enabled(r.metadata()) {
            eprintln!("{} {}: {}", r.level(), r.target(), r.args());
        }
    }

    fn flush(&self) {}
}

/// Say Ballista's log lines on stderr (once a process; unless `--quiet`).
fn say_ballistas_log() {
    static LOGGER: Stderr = Stderr;
    if log::set_logger(&LOGGER).is_ok() {
        log::set_max_level(log::LevelFilter::Info);
    }
}

/// The stack of a serving thread: planning and (de)serializing a plan recurse over it, and
/// the dashboard's deeper plans overflow the default 2 MiB in a debug build (Ballista's own
/// scheduler binary takes 32 MiB).
const STACK: usize = 32 << 20;

/// The runtime a process serves on: one worker a core.
fn runtime(what: &str) -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_stack_size(STACK)
        .thread_name(format!("hindsight-{what}"))
        .build()
        .map_err(|e| Error::while_doing(format!("starting the {what}"), Box::new(e)))
}

fn failed(what: &str, e: impl std::error::Error + Send + Sync + 'static) -> Error {
    Error::while_doing(format!("the cluster's {what}"), Box::new(e))
}

/// Run the scheduler until the process is stopped. Unless `quiet`, its address is said on
/// stderr once it listens (`scheduler: listening on df://HOST:PORT`).
pub fn scheduler(o: &SchedulerOptions, quiet: bool) -> Result<()> {
    use ballista_scheduler::cluster::BallistaCluster;
    use ballista_scheduler::scheduler_process::{create_scheduler, start_grpc_service_with_listener};
    use datafusion_proto::protobuf::{LogicalPlanNode, PhysicalPlanNode};
    runtime("scheduler")?.block_on(async {
        let listener = tokio::net::TcpListener::bind((o.bind_host.as_str(), o.port))
            .await
            .map_err(|e| Error::while_doing(format!("listening on {}:{}", o.bind_host, o.port), Box::new(e)))?;
        let bound = listener.local_addr().map_err(|e| failed("scheduler", e))?;
        let config = Arc::new(ballista_scheduler::config::SchedulerConfig {
            bind_host: o.bind_host.clone(),
            bind_port: bound.port(),
            external_host: o.external_host.clone(),
            override_session_builder: Some(Arc::new(session_state)),
            executor_timeout_seconds: o.executor_timeout,
            expire_dead_executor_interval_seconds: ballista_scheduler::config::SchedulerConfig::default().expire_dead_executor_interval_seconds.min((o.executor_timeout / 3).max(1)),
            no_executors_grace_period_seconds: o.executor_timeout,
            scheduling_policy: SCHEDULING,
            ..Default::default()
        });
        let cluster = BallistaCluster::new_from_config(&config).await.map_err(|e| failed("scheduler", e))?;
        let server = create_scheduler::<LogicalPlanNode, PhysicalPlanNode>(cluster, config).await.map_err(|e| failed("scheduler", e))?;
        if !quiet {
            say_ballistas_log();
            eprintln!("scheduler: listening on df://{}:{}", o.external_host, bound.port());
        }
        start_grpc_service_with_listener(listener, server).await.map_err(|e| failed("scheduler", e))
    })
}

/// Run an executor until the process is stopped (or the scheduler stops it).
pub fn executor(o: &ExecutorOptions, quiet: bool) -> Result<()> {
    use ballista_executor::executor_process::{start_executor_process, ExecutorProcessConfig};
    let state = session_state(SessionConfig::new())?;
    let (buckets, work_dir) = (Arc::new(crate::location::Buckets::default()), o.work_dir.clone());
    let config = ExecutorProcessConfig {
        bind_host: o.bind_host.clone(),
        external_host: o.external_host.clone(),
        port: o.port,
        grpc_port: o.grpc_port,
        scheduler_host: o.scheduler.host.clone(),
        scheduler_port: o.scheduler.port,
        work_dir: o.work_dir.as_ref().map(|d| d.to_string_lossy().into_owned()),
        vcores: o.concurrency,
        executor_heartbeat_interval_seconds: o.heartbeat_interval,
        task_scheduling_policy: SCHEDULING,
        override_function_registry: Some(Arc::new(BallistaFunctionRegistry::from(&state))),
        grpc_max_encoding_message_size: super::MESSAGE_BYTES as u32,
        grpc_max_decoding_message_size: super::MESSAGE_BYTES as u32,
        // The tasks' object stores: the S3 buckets their plans name (an evaluation of a
        // dataset in an object store), opened from this process's AWS environment.
        override_runtime_producer: Some(Arc::new(move |_: &SessionConfig| crate::location::cluster_runtime(buckets.clone(), work_dir.as_deref()))),
        ..ExecutorProcessConfig::default()
    };
    if !quiet {
        super::evaluate::say_what_is_evaluated();
        say_ballistas_log();
        eprintln!("executor: serving on {}:{}, taking tasks from {}", o.bind_host, o.port, o.scheduler);
    }
    runtime("executor")?.block_on(start_executor_process(Arc::new(config))).map_err(|e| failed("executor", e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::execution::FunctionRegistry;

    /// The executor's registry has hindsight's functions beside DataFusion's.
    #[test]
    fn executors_and_the_scheduler_know_hindsights_functions() {
        let state = session_state(SessionConfig::new()).unwrap();
        let registry = BallistaFunctionRegistry::from(&state);
        for f in ["json_get_str", "json_length", "repeat", "lpad", "abs", "median", super::super::evaluate::NAME] {
            assert!(registry.udf(f).is_ok() || registry.udaf(f).is_ok(), "{f}");
        }
    }
}
