//! `hindsight cluster scheduler|executor` and `--cluster`: a loopback Apache DataFusion
//! Ballista cluster started by the test (a scheduler and two executors, each its own
//! process on 127.0.0.1, on ports the system picked), every bundled query, the dashboard
//! and the evaluation run through it and compared with the same run in-process; an
//! executor killed mid-evaluation. The processes are killed when the test ends, also when
//! it fails.

use std::collections::BTreeMap;
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use hindsight::report;

use crate::object_store::{Moto, BUCKET, SECRET};
use crate::support::{bin, fixture, have, ok, root, run, Study, Tool};

/// How long a process may take to start listening (a debug build on a loaded machine).
const START: Duration = Duration::from_secs(120);

/// Seconds without a heartbeat before the scheduler takes an executor for lost (they beat
/// every second): a killed one's tasks run again elsewhere within about this.
const EXECUTOR_TIMEOUT: &str = "10";

/// How long an evaluation on the cluster may take, an executor lost included.
const EVALUATION: Duration = Duration::from_secs(300);

/// The cluster's processes; dropping it kills them (a failed assertion included).
struct Cluster {
    children: Vec<(String, Child)>,
    logs: PathBuf,
    address: String,
    /// The environment the processes start with.
    env: Vec<(&'static str, String)>,
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
        Cluster::start_with(dir, &[])
    }

    /// [`Cluster::start`], every process with the environment `env`, each executor with a
    /// temporary folder of its own: executors that share no folder.
    fn start_with(dir: &Path, env: &[(&'static str, String)]) -> Cluster {
        let logs = dir.join("cluster-logs");
        std::fs::create_dir_all(&logs).unwrap();
        let mut cluster = Cluster { children: Vec::new(), logs, address: String::new(), env: env.to_vec() };
        cluster.spawn(
            "scheduler",
            &["cluster", "scheduler", "--bind-host", "127.0.0.1", "--external-host", "127.0.0.1", "--port", "0", "--executor-timeout", EXECUTOR_TIMEOUT],
        );
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
                "--heartbeat-interval",
                "1",
            ];
            let name = format!("executor-{i}");
            let temp = dir.join(format!("executor-{i}-tmp"));
            std::fs::create_dir_all(&temp).unwrap();
            cluster.env.retain(|(k, _)| *k != "TMPDIR");
            cluster.env.push(("TMPDIR", temp.to_string_lossy().into_owned()));
            cluster.spawn(&name, &args);
            cluster.wait_listening(&name, flight);
        }
        cluster
    }

    fn spawn(&mut self, name: &str, args: &[&str]) {
        let log = std::fs::File::create(self.logs.join(format!("{name}.log"))).unwrap();
        let env = self.env.iter().map(|(k, v)| (*k, v.as_str()));
        let child = Command::new(bin()).args(args).envs(env).stdin(Stdio::null()).stdout(Stdio::null()).stderr(log).spawn().unwrap();
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

    /// Panics when any of the cluster's processes has exited, or has said `secret` (the
    /// object store's key, which no log may hold).
    fn check_all(&mut self, secret: Option<&str>) {
        for name in ["scheduler", "executor-0", "executor-1"] {
            self.check_alive(name);
            if let Some(secret) = secret {
                assert!(!self.log(name).contains(secret), "{name} said the secret key");
            }
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

    /// Kill one of the processes now (SIGKILL: no goodbye to the scheduler).
    fn kill(&mut self, name: &str) {
        if let Some((_, child)) = self.children.iter_mut().find(|(n, _)| n == name) {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// How many bands each executor said it evaluated.
    fn evaluated(&self) -> Vec<usize> {
        (0..2).map(|i| self.log(&format!("executor-{i}")).lines().filter(|l| l.starts_with("executor: evaluated ")).count()).collect()
    }

    /// The bytes the executors together said they read while judging their bands (files and
    /// sockets: `rchar`), so far.
    fn bytes_read(&self) -> u64 {
        let said = (0..2).map(|i| self.log(&format!("executor-{i}"))).collect::<Vec<_>>();
        let read = said.iter().flat_map(|log| log.lines()).filter(|l| l.starts_with("executor: evaluated "));
        read.map(|l| l.rsplit(", ").next().and_then(|t| t.strip_suffix(" bytes read)")).and_then(|n| n.parse::<u64>().ok()).unwrap_or_else(|| panic!("{l}"))).sum()
    }

    /// The bytes the executors said they fetched from an object store for their bands, so far.
    fn bytes_fetched(&self) -> u64 {
        let said = (0..2).map(|i| self.log(&format!("executor-{i}"))).collect::<Vec<_>>();
        let read = said.iter().flat_map(|log| log.lines()).filter(|l| l.starts_with("executor: evaluated "));
        read.filter_map(|l| l.split(", ").find_map(|t| t.strip_suffix(" bytes fetched")).map(|n| n.parse::<u64>().unwrap())).sum()
    }

    /// `hindsight ARGS --cluster ADDRESS` in `cwd`, which must succeed: its stdout.
    fn ok(&mut self, args: &[&str], cwd: &Path) -> String {
        let address = self.address.clone();
        let mut all = args.to_vec();
        all.extend(["--cluster", address.as_str()]);
        let out = run(&all, cwd);
        self.check_all(None);
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
    // The demo with its task records (self-feedback and prompt versions among them) and the
    // commit protocol's tables: every non-AIDev query has its tables; the aidev/* queries run
    // on an AIDev import.
    Study::demo().traces(fixture("demo/traces")).tasks(fixture("demo/tasks")).run(tmp.path(), "ds");
    let (results, policy) = (root().join("fixtures/gate/results.jsonl"), root().join("fixtures/gate/policy.json"));
    ok(&["gate", "--results", results.to_str().unwrap(), "--policy", policy.to_str().unwrap(), "--dataset", "ds", "--quiet"], tmp.path());
    let fx = root().join("fixtures/aidev");
    ok(&["import", "aidev", fx.to_str().unwrap(), "--out", "aidev", "--captured-at", "2025-07-31T00:00:00Z", "--quiet"], tmp.path());

    let mut cluster = Cluster::start(tmp.path());
    for name in report::CATALOGUE.iter().map(|q| q.name) {
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
    // The bounded `||` and the checked integer operators, planned by the client, run on
    // the executors, which know them by name.
    let args = ["report", "--dataset", "ds", "--format", "csv", "--sql", "SELECT safe_output_id || '/' || eval_window AS k, target_number + 1 AS n FROM outcomes ORDER BY k"];
    assert_eq!(cluster.ok(&args, tmp.path()), ok(&args, tmp.path()));
    let over = ["report", "--dataset", "ds", "--sql", "SELECT max(target_number) * 9223372036854775807 FROM outcomes"];
    let o = run(&[&over[..], &["--cluster", cluster.address.as_str()]].concat(), tmp.path());
    assert!(!o.status.success() && String::from_utf8_lossy(&o.stderr).contains("leaves the 64-bit range"), "{}", String::from_utf8_lossy(&o.stderr));
    // A cluster session reads the version it opened: the executors scan the session's
    // pinned links beside the dataset, not the dataset's files a writer may replace.
    let plan = cluster.ok(&["report", "--dataset", "ds", "--format", "csv", "--sql", "EXPLAIN SELECT count(*) FROM outcomes WHERE outcome_status = 'x'"], tmp.path());
    assert!(plan.contains(".ds.read-") && plan.contains("/outcomes.parquet"), "{plan}");
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
    let outcomes = std::fs::read(tmp.path().join("ds/outcomes.parquet")).unwrap();
    let at = format!("df://127.0.0.1:{}", free_port());
    // evaluate and run check the scheduler before any work: nothing written.
    for args in [&["report", "--dataset", "ds", "--query", "summary"][..], &["evaluate", "--dataset", "ds"], &["run", "--out", "new"]] {
        let gone = run(&[args, &["--cluster", at.as_str()]].concat(), tmp.path());
        assert_eq!(gone.status.code(), Some(2), "{args:?}: {}", String::from_utf8_lossy(&gone.stdout));
        let said = String::from_utf8_lossy(&gone.stderr);
        assert!(said.starts_with("hindsight: the cluster's scheduler at df://127.0.0.1:") && said.contains("cannot be reached") && said.lines().count() == 1, "{args:?}: {said}");
    }
    assert!(std::fs::read(tmp.path().join("ds/outcomes.parquet")).unwrap() == outcomes);
    assert!(!tmp.path().join("new").exists());
}

/// Every file of a dataset directory (no sub-directories in one), by name.
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).map(|p| (p.file_name().unwrap().to_string_lossy().to_string(), std::fs::read(&p).unwrap())).collect()
}

/// The tables and manifest evaluate writes are the same bytes in `a` and `b`, and both hold
/// the same files.
fn assert_same_files(a: &Path, b: &Path) {
    let (fa, fb) = (files(a), files(b));
    assert_eq!(fa.keys().collect::<Vec<_>>(), fb.keys().collect::<Vec<_>>(), "{} and {} hold different files", a.display(), b.display());
    for name in ["outcomes.parquet", "ci_gate.parquet", "ci_gate_steps.parquet", "ci_gate_loop_state.parquet", "pr_risk.parquet", "manifest.json"] {
        assert!(fa.contains_key(name), "{name} not in {}", a.display());
    }
    for (name, bytes) in &fa {
        assert!(fb[name] == *bytes, "{name} differs between {} and {}", a.display(), b.display());
    }
}

/// A copy of the dataset directory `from` at `to`.
fn copy_dataset(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for (name, bytes) in files(from) {
        std::fs::write(to.join(name), bytes).unwrap();
    }
}

/// Nothing beside the dataset `ds` in `dir` but its lock: no staging folder left.
fn no_staging_left(dir: &Path, ds: &str) {
    let left: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .filter(|n| n.starts_with(&format!(".{ds}.")) && *n != format!(".{ds}.lock"))
        .collect();
    assert!(left.is_empty(), "left beside {ds}: {left:?}");
}

/// The demo (with task records: their PRs are judged by repository too) and a synthetic
/// study of 100,000 outputs in 40 repositories, evaluated on the cluster, give the files a local evaluate
/// gives, byte for byte; so does the synthetic study in an object store, evaluated by the
/// same executors from there ([`evaluate_in_the_object_store`]); `run --cluster` gives the
/// local run's dataset and dashboard. Both executors judged partitions of the synthetic study.
#[test]
fn evaluation_on_a_loopback_cluster_writes_the_local_runs_bytes() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    Study::demo().traces(fixture("demo/traces")).tasks(fixture("tasks/study")).run(dir, "demo");
    // Compact bodies: what is measured is which rows each executor reads, not parsing.
    ok(&["synth", "--quiet", "--compact", "--outputs", "100000", "--repos", "40", "--out", "synth-in"], dir);
    ok(&["convert", "--quiet", "--snapshot", "synth-in/snapshot", "--runs", "synth-in/runs", "--out", "synth"], dir);
    for ds in ["demo", "synth"] {
        copy_dataset(&dir.join(ds), &dir.join(format!("{ds}-local")));
        copy_dataset(&dir.join(ds), &dir.join(format!("{ds}-cluster")));
        ok(&["evaluate", "--quiet", "--dataset", &format!("{ds}-local")], dir);
    }

    let parquet_bytes = |d: &Path| -> u64 { files(d).iter().filter(|(n, _)| n.ends_with(".parquet")).map(|(_, b)| b.len() as u64).sum() };
    let (dataset_bytes, responses_bytes) = (parquet_bytes(&dir.join("synth")), std::fs::metadata(dir.join("synth/responses.parquet")).unwrap().len());
    // The processes reach moto's S3 server started here, for the dataset in an object store.
    let moto = have(&[Tool::Python]).then(Moto::start);
    let mut cluster = Cluster::start_with(dir, &moto.as_ref().map(Moto::env).unwrap_or_default());
    for ds in ["demo", "synth"] {
        let (before, read_before) = (cluster.evaluated(), cluster.bytes_read());
        cluster.ok(&["evaluate", "--quiet", "--dataset", &format!("{ds}-cluster")], dir);
        assert_same_files(&dir.join(format!("{ds}-local")), &dir.join(format!("{ds}-cluster")));
        no_staging_left(dir, &format!("{ds}-cluster"));
        if ds == "synth" {
            let after = cluster.evaluated();
            assert!(after.iter().zip(&before).all(|(a, b)| a > b), "both executors should have judged partitions of {ds}: before {before:?}, after {after:?}");
            // Each band reads its own repositories' captures: together about the dataset
            // once, not once per partition (every capture is read at least once).
            let read = cluster.bytes_read() - read_before;
            let ratio = read as f64 / dataset_bytes as f64;
            assert!(read >= responses_bytes && ratio <= 1.3, "the executors read {read} bytes for a dataset of {dataset_bytes} Parquet bytes ({ratio:.2}x)");
        }
    }
    if let Some(moto) = &moto {
        evaluate_in_the_object_store(&mut cluster, moto, dir, "synth");
    }
    // `run`: convert here, evaluate on the cluster, the dashboard's queries there too.
    let local = ok(&["run", "--out", "run-local"], dir);
    let remote = cluster.ok(&["run", "--out", "run-cluster"], dir);
    assert_eq!(remote, local, "the dashboards differ");
    assert_same_files(&dir.join("run-local"), &dir.join("run-cluster"));
}

/// An executor killed while it judges a partition: Ballista runs its tasks again on the
/// other executor and the files are a local evaluate's, or the client stops with one line
/// naming the cluster and the dataset is as it was. Either way nothing half-written is left.
#[test]
fn an_executor_killed_mid_evaluation_leaves_no_half_written_dataset() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    ok(&["synth", "--quiet", "--compact", "--outputs", "20000", "--repos", "40", "--out", "synth-in"], dir);
    ok(&["convert", "--quiet", "--snapshot", "synth-in/snapshot", "--runs", "synth-in/runs", "--out", "synth"], dir);
    copy_dataset(&dir.join("synth"), &dir.join("local"));
    ok(&["evaluate", "--quiet", "--dataset", "local"], dir);
    let before = files(&dir.join("synth"));

    let mut cluster = Cluster::start(dir);
    let mut client = Command::new(bin())
        .args(["evaluate", "--quiet", "--dataset", "synth", "--cluster", &cluster.address])
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Killed as soon as it starts judging a partition (a partition takes seconds here).
    let start = Instant::now();
    while !cluster.log("executor-1").contains("executor: evaluating ") {
        if client.try_wait().unwrap().is_some() {
            break;
        }
        assert!(start.elapsed() < EVALUATION, "executor-1 was given no partition:\n{}", cluster.log("executor-1"));
        std::thread::sleep(Duration::from_millis(20));
    }
    cluster.kill("executor-1");
    let status = loop {
        if let Some(status) = client.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > EVALUATION {
            let _ = client.kill();
            let _ = client.wait();
            panic!("the evaluation did not end within {EVALUATION:?} of an executor's loss:\n{}", cluster.log("scheduler"));
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let mut said = String::new();
    std::io::Read::read_to_string(client.stderr.as_mut().unwrap(), &mut said).unwrap();
    cluster.check_alive("executor-0");
    if status.success() {
        eprintln!("the lost executor's partitions ran again on the other");
        assert_same_files(&dir.join("local"), &dir.join("synth"));
    } else {
        assert_eq!(status.code(), Some(2), "{said}");
        assert!(said.starts_with("hindsight: ") && said.contains(&format!("cluster at {}", cluster.address)) && said.lines().count() == 1, "{said}");
        eprintln!("the evaluation stopped: {said}");
        assert!(files(&dir.join("synth")) == before, "the dataset changed though the evaluation failed");
    }
    no_staging_left(dir, "synth");
}

/// The dataset `ds` in `dir` put in the object store and evaluated there on `cluster`, whose
/// executors share no folder with the client or each other (each its own working and
/// temporary folder; the dataset on no disk they are told of): each band's share of the
/// captures is fetched from the store, the new version's tables are those of the local
/// evaluate in `ds-local`, the executors together fetch at most 1.3x the dataset's Parquet
/// bytes and every capture at least once, and no staging is left in the store, on the
/// client or on an executor. `report` on the cluster then reads the new version from the
/// store as the client does in-process.
fn evaluate_in_the_object_store(cluster: &mut Cluster, moto: &Moto, dir: &Path, ds: &str) {
    let prefix = format!("studies/{ds}");
    moto.upload(&dir.join(ds), &prefix);
    let there = format!("s3://{BUCKET}/{prefix}");
    let client_tmp = dir.join("client-tmp");
    std::fs::create_dir_all(&client_tmp).unwrap();
    let (evaluated, fetched) = (cluster.evaluated(), cluster.bytes_fetched());
    let address = cluster.address.clone();
    let out = moto.run_with_temp(&["evaluate", "--quiet", "--dataset", &there, "--cluster", &address], dir, Some(&client_tmp));
    cluster.check_all(Some(SECRET));
    assert!(out.status.success(), "{}\n{}\n{}", String::from_utf8_lossy(&out.stderr), cluster.log("executor-0"), cluster.log("executor-1"));
    let now = cluster.evaluated();
    assert!(now.iter().zip(&evaluated).all(|(a, b)| a > b), "both executors should have judged bands of {there}: before {evaluated:?}, after {now:?}");
    let manifest: serde_json::Value = serde_json::from_slice(&moto.get(&format!("{prefix}/manifest.json"))).unwrap();
    let under = manifest["tables_under"].as_str().unwrap().to_string();
    let local = dir.join(format!("{ds}-local"));
    for name in ["outcomes.parquet", "ci_gate.parquet", "pr_risk.parquet"] {
        assert!(moto.get(&format!("{prefix}/{under}/{name}")) == std::fs::read(local.join(name)).unwrap(), "{name} differs from the local evaluate's");
    }
    let local: serde_json::Value = serde_json::from_slice(&std::fs::read(local.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["tables"], local["tables"]);
    let parquet_bytes: u64 = files(&dir.join(ds)).iter().filter(|(n, _)| n.ends_with(".parquet")).map(|(_, b)| b.len() as u64).sum();
    let responses = std::fs::metadata(dir.join(ds).join("responses.parquet")).unwrap().len();
    let fetched = cluster.bytes_fetched() - fetched;
    let ratio = fetched as f64 / parquet_bytes as f64;
    assert!(fetched >= responses && ratio <= 1.3, "the executors fetched {fetched} bytes of a dataset of {parquet_bytes} Parquet bytes ({ratio:.2}x)");
    assert_eq!(moto.keys(&format!("{prefix}/staging/")), Vec::<String>::new(), "the evaluation's staging is left in the store");
    assert_eq!(std::fs::read_dir(&client_tmp).unwrap().count(), 0, "the client's temporary folder is left");
    for i in 0..2 {
        let left = std::fs::read_dir(dir.join(format!("executor-{i}-tmp"))).unwrap().filter(|e| e.as_ref().unwrap().file_name().to_string_lossy().starts_with("hindsight-band-")).count();
        assert_eq!(left, 0, "executor-{i} left a band's folder");
    }
    // The new version read on the cluster: the dashboard the client reads in-process, and a
    // statement's rows those of the local evaluate.
    let dashboard = moto.ok(&["report", "--dataset", &there], dir);
    assert_eq!(moto.ok(&["report", "--dataset", &there, "--cluster", &address], dir), dashboard, "the dashboard read from {there} on the cluster differs");
    let sql = "SELECT eval_window, outcome_status, evidence_strength, count(*) AS n, sum(length(safe_output_id)) AS id_chars FROM outcomes GROUP BY 1, 2, 3 ORDER BY 1, 2, 3";
    let on_cluster = moto.ok(&["report", "--dataset", &there, "--cluster", &address, "--sql", sql, "--format", "csv"], dir);
    let local = dir.join(format!("{ds}-local"));
    assert_eq!(on_cluster, ok(&["report", "--dataset", local.to_str().unwrap(), "--sql", sql, "--format", "csv"], dir));
    cluster.check_all(Some(SECRET));
}
