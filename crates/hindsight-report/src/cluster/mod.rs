//! hindsight's SQL on an Apache DataFusion Ballista cluster: its scheduler and executors
//! started in this process (`hindsight cluster scheduler|executor`, with the cargo feature
//! `cluster`), and the remote session `sql` and `report` open with `--cluster
//! df://HOST:PORT`. The client plans each query with hindsight's functions
//! ([`crate::report::register_functions`]); the scheduler and every executor have the same
//! functions, so the plan's calls resolve there by name. Tables are registered by absolute
//! path and executors read those paths themselves: every machine must see the dataset at
//! the same path (a shared filesystem). An object store would be registered likewise on all
//! three sides (the client's session and the executors' runtime environment) under its URL
//! scheme, the tables then named by URL. `evaluate` and `run` with `--cluster` judge the
//! outputs on the executors, partitioned by repository (`evaluate.rs`).

#[cfg(feature = "cluster")]
mod evaluate;
#[cfg(feature = "cluster")]
mod process;

#[cfg(feature = "cluster")]
pub use process::{executor, scheduler, ExecutorOptions, SchedulerOptions};

use crate::error::{Error, Result};

/// Ballista's scheduler port when an address names none.
pub const DEFAULT_PORT: u16 = 50050;

/// A scheduler's address: `df://HOST:PORT` (the port 50050 when left out).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Address {
    pub host: String,
    pub port: u16,
}

impl std::fmt::Display for Address {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "df://{}:{}", self.host, self.port)
    }
}

impl std::str::FromStr for Address {
    type Err = Error;

    fn from_str(s: &str) -> Result<Address> {
        let bad = |why: &str| Error::usage(format!("cluster address `{s}`: {why} (expected df://HOST:PORT, e.g. df://scheduler.lab:50050)"));
        let rest = s.strip_prefix("df://").ok_or_else(|| bad("not a df:// address"))?;
        let rest = rest.strip_suffix('/').unwrap_or(rest);
        let (host, port) = match rest.rsplit_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (rest, None),
        };
        if host.is_empty() || host.contains(['/', '@', '?', '#', ' ']) {
            return Err(bad("no host"));
        }
        let port = match port {
            Some(p) => p.parse::<u16>().ok().filter(|p| *p > 0).ok_or_else(|| bad("the port is not a number from 1 to 65535"))?,
            None => DEFAULT_PORT,
        };
        Ok(Address { host: host.to_string(), port })
    }
}

/// What a cluster command says when this hindsight was built without the feature.
#[cfg(not(feature = "cluster"))]
const NOT_BUILT: &str = "this hindsight was built without cluster support: build it with `cargo install --features cluster` (the same version on the client, the scheduler and every executor)";

/// A session whose queries the scheduler at `at` plans into stages and its executors run;
/// `config` and `runtime` as a local session has them (the config travels with each query).
#[cfg(feature = "cluster")]
pub(crate) fn remote(
    rt: &tokio::runtime::Runtime,
    at: &Address,
    config: datafusion::prelude::SessionConfig,
    runtime: std::sync::Arc<datafusion::execution::runtime_env::RuntimeEnv>,
) -> Result<datafusion::prelude::SessionContext> {
    use ballista::prelude::SessionContextExt;
    reachable(at)?;
    let state = datafusion::execution::SessionStateBuilder::new().with_default_features().with_config(config).with_runtime_env(runtime).build();
    rt.block_on(datafusion::prelude::SessionContext::remote_with_state(&at.to_string(), state))
        .map_err(|e| Error::usage(format!("cluster {at}: {}", e.strip_backtrace())))
}

/// The largest message between client, scheduler and executors (Ballista's default is 16
/// MiB): a partition's judged rows travel as one value, tens of MiB at a million outputs.
#[cfg(feature = "cluster")]
pub(crate) const MESSAGE_BYTES: usize = 1 << 30;

/// How long a client waits for the scheduler to answer a connection.
#[cfg(feature = "cluster")]
const CONNECT: std::time::Duration = std::time::Duration::from_secs(10);

/// An error unless the scheduler at `at` accepts a connection: the session connects only
/// with its first query, and a refused one is said then in the transport's words.
#[cfg(feature = "cluster")]
fn reachable(at: &Address) -> Result<()> {
    use std::net::ToSocketAddrs;
    let unreachable = |why: String| Error::usage(format!("the cluster's scheduler at {at} cannot be reached ({why}): is `hindsight cluster scheduler` running there?"));
    let addrs: Vec<_> = (at.host.trim_start_matches('[').trim_end_matches(']'), at.port).to_socket_addrs().map_err(|e| unreachable(e.to_string()))?.collect();
    let mut last = String::from("the host name resolves to no address");
    for a in addrs {
        match std::net::TcpStream::connect_timeout(&a, CONNECT) {
            Ok(_) => return Ok(()),
            Err(e) => last = e.to_string(),
        }
    }
    Err(unreachable(last))
}

/// `--cluster` checked before any work: an error unless this hindsight has the cluster
/// and the scheduler at `at` accepts a connection.
pub fn check(at: &Address) -> Result<()> {
    #[cfg(feature = "cluster")]
    return reachable(at);
    #[cfg(not(feature = "cluster"))]
    return Err(Error::usage(format!("--cluster {at}: {NOT_BUILT}")));
}

/// Bands a cluster's evaluation is cut into at most (`evaluate::stage::evaluate_judged`;
/// fewer when the study has fewer repositories): more than the task slots of a small
/// cluster, so a slow band leaves the others busy; each band's fixed cost is small (the
/// plan, the runs table).
pub const PARTITIONS: usize = 16;

/// Judge the `bands` bands of the dataset at `dataset` planned in `staging` on the cluster at
/// `at` (`evaluate::stage::judge_partition` on its executors). With `remote`, `dataset` is a
/// copy of one in an object store: the executors read its tables there, and the staging goes
/// through the store too, so they share no folder with this machine.
#[cfg(feature = "cluster")]
pub fn judge(at: &Address, dataset: &std::path::Path, staging: &std::path::Path, bands: usize, settings: &crate::evaluate::Settings, remote: Option<&crate::location::OnCluster>) -> Result<()> {
    evaluate::judge(at, dataset, staging, bands, settings, remote)
}

#[cfg(not(feature = "cluster"))]
pub fn judge(_at: &Address, _dataset: &std::path::Path, _staging: &std::path::Path, _bands: usize, _settings: &crate::evaluate::Settings, _remote: Option<&crate::location::OnCluster>) -> Result<()> {
    Err(Error::usage(NOT_BUILT))
}

#[cfg(not(feature = "cluster"))]
pub(crate) fn remote(
    _rt: &tokio::runtime::Runtime,
    _at: &Address,
    _config: datafusion::prelude::SessionConfig,
    _runtime: std::sync::Arc<datafusion::execution::runtime_env::RuntimeEnv>,
) -> Result<datafusion::prelude::SessionContext> {
    Err(Error::usage(NOT_BUILT))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_is_df_host_and_port() {
        assert_eq!("df://127.0.0.1:50123".parse::<Address>().unwrap(), Address { host: "127.0.0.1".into(), port: 50123 });
        assert_eq!("df://sched.lab".parse::<Address>().unwrap(), Address { host: "sched.lab".into(), port: DEFAULT_PORT });
        assert_eq!("df://h:9/".parse::<Address>().unwrap().to_string(), "df://h:9");
        for bad in ["http://h:1", "df://", "df://h:x", "df://h:0", "df://h:70000", "h:1"] {
            let e = bad.parse::<Address>().unwrap_err().to_string();
            assert!(e.contains("expected df://HOST:PORT"), "{bad}: {e}");
        }
    }
}
