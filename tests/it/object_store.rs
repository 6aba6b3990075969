//! A dataset in an S3-compatible object store (`--dataset s3://BUCKET/PREFIX`): moto's
//! S3 server started by the test on 127.0.0.1 (`tests/requirements.txt`), the demo dataset
//! uploaded to it, then `sql`, `report`, `check` and `plan check` on it give what they give on the same
//! dataset on disk. The server is killed when the test ends, also when it fails.

use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::support::{bin, demo, have, ok, python, run, Tool};

/// The secret key the commands sign with: it must appear in no output.
pub(crate) const SECRET: &str = "never-printed-4f1d9c";
pub(crate) const BUCKET: &str = "hindsight-studies";

/// moto's server; dropping it kills it.
pub(crate) struct Moto {
    child: Child,
    endpoint: String,
}

impl Drop for Moto {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Moto {
    /// The server on a free port, once it accepts connections.
    pub(crate) fn start() -> Moto {
        let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let child = Command::new(python())
            .args(["-m", "moto.server", "-H", "127.0.0.1", "-p", &port.to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start moto's server (.venv, tests/requirements.txt)");
        let mut moto = Moto { child, endpoint: format!("http://127.0.0.1:{port}") };
        let started = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            if let Ok(Some(status)) = moto.child.try_wait() {
                panic!("moto's server ended ({status}): is moto[server] in .venv? scripts/test installs tests/requirements.txt");
            }
            assert!(started.elapsed() < Duration::from_secs(120), "moto's server did not listen on {port} within 120 s");
            std::thread::sleep(Duration::from_millis(100));
        }
        moto
    }

    /// The environment a command reaches the server with, as a researcher sets it.
    pub(crate) fn env(&self) -> Vec<(&'static str, String)> {
        vec![
            ("AWS_ACCESS_KEY_ID", "test".into()),
            ("AWS_SECRET_ACCESS_KEY", SECRET.into()),
            ("AWS_REGION", "us-east-1".into()),
            ("AWS_ENDPOINT_URL", self.endpoint.clone()),
            ("AWS_ALLOW_HTTP", "true".into()),
        ]
    }

    /// The files directly inside `dir` uploaded under `prefix` in a new bucket, with boto3
    /// (which comes with moto).
    pub(crate) fn upload(&self, dir: &Path, prefix: &str) {
        let script = r#"
import os, sys, boto3
endpoint, bucket, prefix, folder = sys.argv[1:5]
s3 = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id="test", aws_secret_access_key="test")
s3.create_bucket(Bucket=bucket)
for name in sorted(os.listdir(folder)):
    path = os.path.join(folder, name)
    if os.path.isfile(path):
        s3.upload_file(path, bucket, prefix + "/" + name)
"#;
        let out = Command::new(python()).args(["-c", script, &self.endpoint, BUCKET, prefix, dir.to_str().unwrap()]).output().unwrap();
        assert!(out.status.success(), "upload: {}", String::from_utf8_lossy(&out.stderr));
    }

    /// The keys under `prefix`, sorted.
    pub(crate) fn keys(&self, prefix: &str) -> Vec<String> {
        let script = r#"
import sys, boto3
endpoint, bucket, prefix = sys.argv[1:4]
s3 = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id="test", aws_secret_access_key="test")
for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix):
    for o in page.get("Contents", []):
        print(o["Key"])
"#;
        let out = Command::new(python()).args(["-c", script, &self.endpoint, BUCKET, prefix]).output().unwrap();
        assert!(out.status.success(), "list: {}", String::from_utf8_lossy(&out.stderr));
        let mut keys: Vec<String> = String::from_utf8_lossy(&out.stdout).lines().map(String::from).collect();
        keys.sort();
        keys
    }

    /// The object `key`'s bytes.
    pub(crate) fn get(&self, key: &str) -> Vec<u8> {
        let script = r#"
import sys, boto3
endpoint, bucket, key = sys.argv[1:4]
s3 = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id="test", aws_secret_access_key="test")
sys.stdout.buffer.write(s3.get_object(Bucket=bucket, Key=key)["Body"].read())
"#;
        let out = Command::new(python()).args(["-c", script, &self.endpoint, BUCKET, key]).output().unwrap();
        assert!(out.status.success(), "get {key}: {}", String::from_utf8_lossy(&out.stderr));
        out.stdout
    }

    /// `hindsight ARGS` with the server's environment, in `cwd`.
    pub(crate) fn run(&self, args: &[&str], cwd: &Path) -> Output {
        self.run_with_temp(args, cwd, None)
    }

    /// [`Moto::run`] with `TMPDIR` set to `temp`, when given.
    pub(crate) fn run_with_temp(&self, args: &[&str], cwd: &Path, temp: Option<&Path>) -> Output {
        let mut command = Command::new(bin());
        command.args(args).envs(self.env()).current_dir(cwd);
        if let Some(temp) = temp {
            command.env("TMPDIR", temp);
        }
        let out = command.output().expect("run hindsight");
        for stream in [&out.stdout, &out.stderr] {
            assert!(!String::from_utf8_lossy(stream).contains(SECRET), "hindsight {args:?} printed the secret key");
        }
        out
    }

    /// [`Moto::run`], which must succeed: its stdout.
    pub(crate) fn ok(&self, args: &[&str], cwd: &Path) -> String {
        String::from_utf8_lossy(&self.ok_with_temp(args, cwd, None).stdout).to_string()
    }

    /// [`Moto::run_with_temp`], which must succeed: its output.
    pub(crate) fn ok_with_temp(&self, args: &[&str], cwd: &Path, temp: Option<&Path>) -> Output {
        let out = self.run_with_temp(args, cwd, temp);
        assert!(out.status.success(), "hindsight {args:?} failed ({}):\n{}", out.status, String::from_utf8_lossy(&out.stderr));
        out
    }
}

/// The demo dataset on disk and in the object store answer every command alike: a plain
/// scan, a join, the whole dashboard (terminal and JSON), a bundled query, the SQL shell
/// reading a file, `check` against figures taken from the local dataset, and a locked
/// analysis plan checked (`plan check`, `report --plan`).
#[test]
fn a_dataset_in_an_object_store_reads_as_it_does_on_disk() {
    if !have(&[Tool::Python]) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let ds = demo(tmp.path());
    let moto = Moto::start();
    moto.upload(&ds, "studies/demo");
    let (here, there) = ("ds", &*format!("s3://{BUCKET}/studies/demo"));
    let both = |args: &[&str]| (ok(&at(args, here), tmp.path()), moto.ok(&at(args, there), tmp.path()));
    let scan = "SELECT * FROM outcomes ORDER BY safe_output_id, window_order";
    let join = "SELECT o.eval_window, s.safe_output_type, COUNT(*) AS n FROM outcomes o JOIN safe_outputs s USING (safe_output_id) GROUP BY 1, 2 ORDER BY 1, 2";
    for args in [
        vec!["report", "--sql", scan, "--format", "csv"],
        vec!["report", "--sql", join, "--format", "json"],
        vec!["report", "--query", "summary", "--format", "json"],
        vec!["report", "--wide"],
        vec!["report", "--format", "json"],
    ] {
        let (local, remote) = both(&args);
        assert!(!local.trim().is_empty(), "{args:?} printed nothing");
        assert_eq!(local, remote, "{args:?}");
    }
    std::fs::write(tmp.path().join("q.sql"), format!("{scan};\n{join};\n")).unwrap();
    let (local, remote) = both(&["sql", "--file", "q.sql", "--format", "csv"]);
    assert_eq!(local, remote);
    // `check`: the summary as the local dataset has it, expected of the object store's.
    let summary: serde_json::Value = serde_json::from_str(&ok(&["report", "--dataset", here, "--query", "summary", "--format", "json"], tmp.path())).unwrap();
    std::fs::write(tmp.path().join("expected.json"), serde_json::json!({ "summary": summary }).to_string()).unwrap();
    let checked = moto.ok(&["check", "--dataset", there, "--expected", "expected.json"], tmp.path());
    assert!(checked.contains("every expected figure matches"), "{checked}");
    // A plan is checked against the manifest wherever the dataset is: the same departures,
    // the same exit status, and `report --plan` says them before the same figures.
    std::fs::write(tmp.path().join("policy.json"), r#"{"ignore_after_hours": 24}"#).unwrap();
    ok(&["plan", "lock", "--out", "plan.json", "--windows", "1h,7d", "--policy", "policy.json"], tmp.path());
    let check = |ds| ["plan", "check", "--plan", "plan.json", "--dataset", ds];
    let (local, remote) = (run(&check(here), tmp.path()), moto.run(&check(there), tmp.path()));
    let said = String::from_utf8_lossy(&local.stdout);
    assert!(said.contains("- policy `ignore_after_hours`: planned 24, used 168"), "{said}");
    assert_eq!((local.status.code(), remote.status.code()), (Some(1), Some(1)), "{remote:?}");
    assert_eq!(String::from_utf8_lossy(&remote.stdout), said);
    let report = moto.run(&["report", "--dataset", there, "--query", "summary", "--format", "json", "--plan", "plan.json"], tmp.path());
    assert!(report.status.success(), "{report:?}");
    let said = String::from_utf8_lossy(&report.stderr);
    assert!(said.starts_with("The study departs from its analysis plan (plan.json) in 2 way(s):"), "{said}");
    assert_eq!(String::from_utf8_lossy(&report.stdout), ok(&["report", "--dataset", here, "--query", "summary", "--format", "json"], tmp.path()));
}

/// `run --out s3://...` writes the dataset in a temporary folder, uploads its tables under a
/// version's prefix and the manifest last, and prints the dashboard a local run prints; the
/// dataset then reads as the local one does, also once written again; the temporary folder
/// is gone.
#[test]
fn run_writes_a_dataset_into_an_object_store() {
    if !have(&[Tool::Python]) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let temp = tempfile::tempdir().unwrap();
    let moto = Moto::start();
    moto.upload(tmp.path(), "empty");
    let there = format!("s3://{BUCKET}/written");
    let local = ok(&["run", "--out", "ds", "--quiet"], tmp.path());
    let run_there = || String::from_utf8_lossy(&moto.ok_with_temp(&["run", "--out", &there, "--quiet"], tmp.path(), Some(temp.path())).stdout).to_string();
    assert_eq!(run_there(), local);
    let keys = moto.keys("written/");
    assert!(keys.contains(&"written/manifest.json".to_string()), "{keys:?}");
    let version = keys.iter().find_map(|k| k.strip_prefix("written/versions/")?.split('/').next()).expect("a version's prefix");
    assert!(keys.contains(&format!("written/versions/{version}/outcomes.parquet")), "{keys:?}");
    assert!(keys.iter().all(|k| k == "written/manifest.json" || k.starts_with("written/versions/")), "{keys:?}");
    let scan = ["report", "--sql", "SELECT * FROM outcomes ORDER BY safe_output_id, window_order", "--format", "csv"];
    assert_eq!(moto.ok(&at(&scan, &there), tmp.path()), ok(&at(&scan, "ds"), tmp.path()));
    // Written again: the manifest names one version, whole.
    assert_eq!(run_there(), local);
    assert_eq!(moto.ok(&at(&scan, &there), tmp.path()), ok(&at(&scan, "ds"), tmp.path()));
    assert_eq!(std::fs::read_dir(temp.path()).unwrap().count(), 0, "the temporary folder is left");
}

/// `evaluate --dataset s3://...` evaluates a copy here and writes it back as a new version:
/// the outcomes read as those of the same evaluate on disk; the tables it left as they were
/// are the same objects' bytes under the new version; the old version is still whole (a
/// reader that opened the old manifest reads on); the temporary folder is gone.
#[test]
fn evaluate_writes_a_new_version_into_the_object_store() {
    if !have(&[Tool::Python]) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let temp = tempfile::tempdir().unwrap();
    let moto = Moto::start();
    moto.upload(tmp.path(), "empty");
    let there = format!("s3://{BUCKET}/evaluated");
    ok(&["run", "--out", "ds", "--quiet"], tmp.path());
    moto.ok(&["run", "--out", &there, "--quiet"], tmp.path());
    let before = moto.keys("evaluated/versions/");
    let scan = ["report", "--sql", "SELECT * FROM outcomes ORDER BY safe_output_id, window_order", "--format", "csv"];
    let was = moto.ok(&at(&scan, &there), tmp.path());
    let evaluate = ["evaluate", "--windows", "24h,7d"];
    ok(&at(&evaluate, "ds"), tmp.path());
    let out = moto.ok_with_temp(&at(&evaluate, &there), tmp.path(), Some(temp.path()));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains(&format!("-> {there}/versions/")), "{stderr}");
    let now = moto.ok(&at(&scan, &there), tmp.path());
    assert_eq!(now, ok(&at(&scan, "ds"), tmp.path()));
    assert_ne!(now, was, "evaluating with other windows changed nothing");
    // A new version beside the old one, whole; tables evaluate did not write kept their bytes.
    let version = |keys: &[String]| keys.iter().filter_map(|k| Some(k.strip_prefix("evaluated/versions/")?.split('/').next()?.to_string())).collect::<std::collections::BTreeSet<_>>();
    let after = moto.keys("evaluated/versions/");
    let old: Vec<String> = version(&before).into_iter().collect();
    let new: Vec<String> = version(&after).difference(&version(&before)).cloned().collect();
    assert_eq!((old.len(), new.len()), (1, 1), "{after:?}");
    assert!(before.iter().all(|k| after.contains(k)), "the old version lost objects");
    let names = |v: &str| after.iter().filter_map(|k| k.strip_prefix(&format!("evaluated/versions/{v}/")).map(String::from)).collect::<Vec<_>>();
    assert_eq!(names(&old[0]), names(&new[0]));
    let manifest = |bytes: Vec<u8>| serde_json::from_slice::<serde_json::Value>(&bytes).unwrap();
    let local = manifest(std::fs::read(tmp.path().join("ds/manifest.json")).unwrap());
    let remote = manifest(moto.get("evaluated/manifest.json"));
    assert_eq!(remote["tables_under"], serde_json::json!(format!("versions/{}", new[0])));
    assert_eq!(remote["tables"], local["tables"], "the tables are not those of the same evaluate on disk");
    assert_eq!(moto.get(&format!("evaluated/versions/{}/safe_outputs.parquet", new[0])), moto.get(&format!("evaluated/versions/{}/safe_outputs.parquet", old[0])));
    assert_eq!(std::fs::read_dir(temp.path()).unwrap().count(), 0, "the temporary folder is left");
}

/// Two commands change one dataset in an object store at once: the one that switches the
/// manifest second is refused (its switch is conditional on the manifest it read) and says
/// so, and the dataset is the first one's version, whole.
#[test]
fn a_change_switched_over_another_is_refused() {
    if !have(&[Tool::Python]) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let moto = Moto::start();
    moto.upload(tmp.path(), "empty");
    let there = format!("s3://{BUCKET}/shared");
    moto.ok(&["run", "--out", &there, "--quiet"], tmp.path());
    let url = moto.env().into_iter().fold(hindsight::report::ObjectUrl::parse(&there).unwrap(), |u, (k, v)| u.with(k, &v));
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    let base_a = hindsight::report::location::download(&url, &a, &[]).unwrap();
    let base_b = hindsight::report::location::download(&url, &b, &[]).unwrap();
    assert_eq!(std::fs::read(a.join("outcomes.parquet")).unwrap(), std::fs::read(b.join("outcomes.parquet")).unwrap());
    ok(&["evaluate", "--dataset", "a", "--windows", "24h", "--quiet"], tmp.path());
    ok(&["evaluate", "--dataset", "b", "--windows", "7d", "--quiet"], tmp.path());
    let first = hindsight::report::location::upload_over(&a, &url, &base_a).unwrap();
    let err = hindsight::report::location::upload_over(&b, &url, &base_b).unwrap_err().to_string();
    assert!(err.contains(&format!("{there}/manifest.json: changed while this command ran")), "{err}");
    let scan = ["report", "--sql", "SELECT * FROM outcomes ORDER BY safe_output_id, window_order", "--format", "csv"];
    assert_eq!(moto.ok(&at(&scan, &there), tmp.path()), ok(&at(&scan, "a"), tmp.path()));
    let remote: serde_json::Value = serde_json::from_slice(&moto.get("shared/manifest.json")).unwrap();
    assert_eq!(remote["tables_under"], serde_json::json!(first));
}

/// `COMMAND --dataset DATASET ARGS...` of `COMMAND ARGS...`.
fn at<'a>(args: &[&'a str], dataset: &'a str) -> Vec<&'a str> {
    let mut all = args.to_vec();
    all.splice(1..1, ["--dataset", dataset]);
    all
}

/// A prefix with no dataset, and a server that does not answer, are said with the URL;
/// the secret key is never said (checked by [`Moto::run`]).
#[test]
fn a_missing_dataset_is_said_with_its_url() {
    if !have(&[Tool::Python]) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let moto = Moto::start();
    moto.upload(tmp.path(), "empty");
    let out = moto.run(&["report", "--dataset", &format!("s3://{BUCKET}/nowhere"), "--sql", "SELECT 1"], tmp.path());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(err.contains(&format!("s3://{BUCKET}/nowhere/manifest.json: not found")), "{err}");
    let out = moto.run(&["sql", "--dataset", "s3://no-such-bucket/demo", "--file", "/dev/null"], tmp.path());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("s3://no-such-bucket/demo/manifest.json"), "{err}");
    // Nothing listens on the port a dropped server had.
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let out = Command::new(bin())
        .args(["report", "--dataset", "s3://anywhere/demo", "--sql", "SELECT 1"])
        .envs(moto.env())
        .env("AWS_ENDPOINT_URL", format!("http://127.0.0.1:{port}"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("s3://anywhere/demo/manifest.json: cannot be read: cannot reach"), "{err}");
    assert!(!err.contains(SECRET), "{err}");
}

/// A command that writes or reads a dataset on this machine only refuses a URL, rather than
/// taking it for a folder named `s3:`; so does `run --out s3://... --cluster`, and a URL of
/// another kind of store is refused by name.
#[test]
fn commands_on_this_machine_refuse_a_url() {
    let tmp = tempfile::tempdir().unwrap();
    for args in [
        vec!["export", "--dataset", "s3://bucket/demo", "--sqlite", "out.db"],
        vec!["verify", "--dataset", "s3://bucket/demo"],
    ] {
        let out = Command::new(bin()).args(&args).current_dir(tmp.path()).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && err.contains("this command works on a dataset on this machine"), "{args:?}: {err}");
    }
    assert!(!tmp.path().join("s3:").exists());
    // Nor does a run on a cluster write one: refused before anything is read.
    let args = ["run", "--out", "s3://bucket/demo", "--cluster", "df://127.0.0.1:1"];
    let out = Command::new(bin()).args(args).current_dir(tmp.path()).output().unwrap();
    assert!(!out.status.success() && String::from_utf8_lossy(&out.stderr).contains("run --out s3://... with --cluster"));
    let out = Command::new(bin()).args(["report", "--dataset", "gs://bucket/demo"]).current_dir(tmp.path()).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("S3-compatible"), "{err}");
}

/// A copy on disk of a dataset `run --out s3://...` wrote keeps its tables under
/// `versions/ID/`: readers on disk say so rather than miss every table, and a manifest
/// placing its tables outside the dataset is refused.
#[test]
fn a_copy_with_its_tables_under_a_version_is_refused_on_disk() {
    let tmp = tempfile::tempdir().unwrap();
    let ds = demo(tmp.path());
    let path = ds.join("manifest.json");
    let mut manifest: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    for (under, said) in [("versions/0123", "its tables are under `versions/0123/`"), ("../elsewhere", "not a folder inside the dataset")] {
        manifest["tables_under"] = serde_json::json!(under);
        std::fs::write(&path, manifest.to_string()).unwrap();
        let out = Command::new(bin()).args(["report", "--dataset", "ds", "--sql", "SELECT 1"]).current_dir(tmp.path()).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && err.contains(said), "{under}: {err}");
    }
}
