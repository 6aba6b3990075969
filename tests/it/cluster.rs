//! `hindsight cluster scheduler|executor` and `--cluster`: a loopback Apache DataFusion
//! Ballista cluster started by the test (a scheduler and two executors, each its own
//! process on 127.0.0.1, on ports the system picked), every bundled query and the dashboard
//! run through it and compared with the same run in-process. The processes are killed when
//! the test ends, also when it fails.

use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use hindsight::report;

use crate::support::{bin, fixture, ok, root, run, Study};

/// How long a process may take to start listening (a debug build on a loaded machine).
const START: Duration = Duration::from_secs(120);

/// The cluster's processes; dropping it kills them (a failed assertion included).
struct Cluster {
    children: Vec<(String, Child)>,
    logs: PathBuf,
    address: String,
}

impl Drop for Cluster {
    fn drop(&mut self) {
        for (_, child) in &mut self.children {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Cluster {
    /// A scheduler on a port it picks (read from what it says on stderr), then two
    /// executors on free ports, each serving one task at a time.
    fn start(dir: &Path) -> Cluster {
        let logs = dir.join("cluster-logs");
        std::fs::create_dir_all(&logs).unwrap();
        let mut cluster = Cluster { children: Vec::new(), logs, address: String::new() };
        cluster.spawn("scheduler", &["cluster", "scheduler", "--bind-host", "127.0.0.1", "--external-host", "127.0.0.1", "--port", "0"]);
        let said = cluster.wait_for_line("scheduler", "scheduler: listening on ");
        cluster.address = said.trim().to_string();
        let port: u16 = cluster.address.rsplit(':').next().unwrap().parse().unwrap();
        cluster.wait_listening("scheduler", port);
        for i in 0..2 {
            let (flight, grpc) = (free_port(), free_port());
            let work = dir.join(format!("executor-{i}"));
            std::fs::create_dir_all(&work).unwrap();
            let (flight_s, grpc_s, address) = (flight.to_string(), grpc.to_string(), cluster.address.clone());
            let args = [
                "cluster",
                "executor",
                "--scheduler",
                &address,
                "--bind-host",
                "127.0.0.1",
                "--external-host",
                "127.0.0.1",
                "--port",
                &flight_s,
                "--grpc-port",
                &grpc_s,
                "--work-dir",
                work.to_str().unwrap(),
                "--concurrency",
                "1",
            ];
            let name = format!("executor-{i}");
            cluster.spawn(&name, &args);
            cluster.wait_listening(&name, flight);
        }
        cluster
    }

    fn spawn(&mut self, name: &str, args: &[&str]) {
        let log = std::fs::File::create(self.logs.join(format!("{name}.log"))).unwrap();
        let child = Command::new(bin()).args(args).stdin(Stdio::null()).stdout(Stdio::null()).stderr(log).spawn().unwrap();
        self.children.push((name.to_string(), child));
    }

    fn log(&self, name: &str) -> String {
        std::fs::read_to_string(self.logs.join(format!("{name}.log"))).unwrap_or_default()
    }

    /// Panics, with the process's log, when it has exited.
    fn check_alive(&mut self, name: &str) {
        let status = self.children.iter_mut().find(|(n, _)| n == name).and_then(|(_, c)| c.try_wait().unwrap());
        if let Some(status) = status {
            panic!("{name} exited ({status}):\n{}", self.log(name));
        }
    }

    /// The rest of the first line of `name`'s stderr that starts with `prefix`.
    fn wait_for_line(&mut self, name: &str, prefix: &str) -> String {
        let start = Instant::now();
        loop {
            if let Some(line) = self.log(name).lines().find_map(|l| l.strip_prefix(prefix).map(str::to_string)) {
                return line;
            }
            self.check_alive(name);
            assert!(start.elapsed() < START, "{name} said no `{prefix}` in {START:?}:\n{}", self.log(name));
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn wait_listening(&mut self, name: &str, port: u16) {
        let start = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            self.check_alive(name);
            assert!(start.elapsed() < START, "{name} is not listening on {port} after {START:?}:\n{}", self.log(name));
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// `hindsight ARGS --cluster ADDRESS` in `cwd`, which must succeed: its stdout.
    fn ok(&mut self, args: &[&str], cwd: &Path) -> String {
        let address = self.address.clone();
        let mut all = args.to_vec();
        all.extend(["--cluster", address.as_str()]);
        let out = run(&all, cwd);
        for name in ["scheduler", "executor-0", "executor-1"] {
            self.check_alive(name);
        }
        assert!(out.status.success(), "hindsight {all:?} failed ({}):\n{}", out.status, String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).to_string()
    }
}

/// A port nothing listens on now (the system's pick, released).
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

#[test]
fn every_bundled_query_and_the_dashboard_give_the_same_rows_on_a_loopback_cluster() {
    let tmp = tempfile::tempdir().unwrap();
    // The demo with task records and the commit protocol's tables: every non-AIDev query
    // has its tables; the aidev/* queries run on an AIDev import.
    Study::demo().traces(fixture("demo/traces")).tasks(fixture("tasks/study")).run(tmp.path(), "ds");
    let (results, policy) = (root().join("fixtures/gate/results.jsonl"), root().join("fixtures/gate/policy.json"));
    ok(&["gate", "--results", results.to_str().unwrap(), "--policy", policy.to_str().unwrap(), "--dataset", "ds", "--quiet"], tmp.path());
    let fx = root().join("fixtures/aidev");
    ok(&["import", "aidev", fx.to_str().unwrap(), "--out", "aidev", "--captured-at", "2025-07-31T00:00:00Z", "--quiet"], tmp.path());

    let mut cluster = Cluster::start(tmp.path());
    for (name, _) in report::QUERIES {
        let ds = if name.starts_with("aidev/") { "aidev" } else { "ds" };
        let args = ["report", "--dataset", ds, "--query", name, "--format", "csv"];
        let local = ok(&args, tmp.path());
        assert!(local.lines().count() > 1, "{name}: no rows on {ds}, nothing compared:\n{local}");
        assert_eq!(cluster.ok(&args, tmp.path()), local, "{name} on {ds}");
    }
    // The whole dashboard as printed, on both datasets.
    for ds in ["ds", "aidev"] {
        let args = ["report", "--dataset", ds];
        assert_eq!(cluster.ok(&args, tmp.path()), ok(&args, tmp.path()), "dashboard of {ds}");
    }
    // The shell, hindsight's JSON functions (the executors evaluate them) and the views.
    let file = tmp.path().join("q.sql");
    std::fs::write(
        &file,
        "SELECT payload->>'id' AS id, json_get_int(payload, 'target', 'number') AS number FROM safe_outputs ORDER BY id;\n\
         SELECT COUNT(*) AS n FROM pr_decisions;\n\
         SELECT eval_window, COUNT(*) AS n FROM outcomes GROUP BY eval_window ORDER BY eval_window;\n",
    )
    .unwrap();
    let args = ["sql", "--dataset", "ds", "--file", file.to_str().unwrap(), "--format", "csv"];
    let local = ok(&args, tmp.path());
    assert!(local.contains("\nso_a0,101\n"), "{local}");
    assert_eq!(cluster.ok(&args, tmp.path()), local);
}

/// `--cluster` takes only a df:// address; a scheduler nobody listens at is the command's
/// error, said on one line.
#[test]
fn a_cluster_address_is_df_host_port_and_an_absent_scheduler_is_an_error() {
    let tmp = tempfile::tempdir().unwrap();
    crate::support::demo(tmp.path());
    let bad = run(&["report", "--dataset", "ds", "--cluster", "http://127.0.0.1:1"], tmp.path());
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("expected df://HOST:PORT"), "{}", String::from_utf8_lossy(&bad.stderr));
    let gone = run(&["report", "--dataset", "ds", "--query", "summary", "--cluster", &format!("df://127.0.0.1:{}", free_port())], tmp.path());
    assert_eq!(gone.status.code(), Some(2), "{}", String::from_utf8_lossy(&gone.stdout));
    let said = String::from_utf8_lossy(&gone.stderr);
    assert!(said.starts_with("hindsight: the cluster's scheduler at df://127.0.0.1:") && said.contains("cannot be reached") && said.lines().count() == 1, "{said}");
}
