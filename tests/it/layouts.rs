//! Run artifacts as users get them: `gh run download` (one folder per artifact, named after
//! it) and `gh aw logs` (artifacts moved up, `usage/` left in place), read the same as the
//! flat layout; a run folder with nothing usable is reported, never counted as zero.

use std::path::Path;

use serde_json::Value;

use super::support::{fixture, ok, Study};

/// gh-aw's artifact for each file (github/gh-aw: `agent` holds agent_output.json and
/// safeoutputs.jsonl, `safe-outputs-items` the manifest and the temporary-id map,
/// `activation` aw_info.json); `agent-output-fallback` holds backup copies.
fn artifact_of(name: &str) -> &'static str {
    match name {
        "agent_output.json" | "safeoutputs.jsonl" => "agent",
        "safe-output-items.jsonl" | "temporary-id-map.json" => "safe-outputs-items",
        "aw_info.json" => "activation",
        // hindsight's own normalized records: any artifact folder.
        "safe-outputs.jsonl" => "normalized",
        other => panic!("no artifact for {other}"),
    }
}

/// The demo's runs as `gh run download RUN_ID` extracts them.
fn as_downloaded(runs: &Path) {
    for run in std::fs::read_dir(fixture("demo/runs")).unwrap() {
        let run = run.unwrap().path();
        let to = runs.join(run.file_name().unwrap());
        for f in std::fs::read_dir(&run).unwrap() {
            let f = f.unwrap().path();
            let name = f.file_name().unwrap().to_str().unwrap().to_string();
            // An artifact folder already (the autoloop run's coverage report): as it is.
            if f.is_dir() {
                super::support::copy_dir(&f, &to.join(&name));
                continue;
            }
            // One run as older gh-aw uploaded its request log: artifact `safe-output`
            // holding `safe_output.jsonl`.
            if name == "safeoutputs.jsonl" && run.ends_with("run-9004") {
                std::fs::create_dir_all(to.join("safe-output")).unwrap();
                std::fs::copy(&f, to.join("safe-output/safe_output.jsonl")).unwrap();
                continue;
            }
            let dir = to.join(artifact_of(&name));
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::copy(&f, dir.join(&name)).unwrap();
            if artifact_of(&name) == "agent" {
                let backup = to.join("agent-output-fallback");
                std::fs::create_dir_all(&backup).unwrap();
                std::fs::copy(&f, backup.join(&name)).unwrap();
            }
        }
    }
}

fn outcomes(ds: &Path) -> Vec<Value> {
    let q = "SELECT safe_output_id, eval_window, outcome_status, evidence_strength, human_check_signal FROM outcomes ORDER BY safe_output_id, window_order";
    serde_json::from_str(&ok(&["report", "--dataset", ds.to_str().unwrap(), "--sql", q, "--format", "json"], ds)).unwrap()
}

fn manifest(ds: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(ds.join("manifest.json")).unwrap()).unwrap()
}

#[test]
fn artifact_folders_as_gh_run_download_extracts_them_give_the_same_outcomes() {
    let tmp = tempfile::tempdir().unwrap();
    let runs = tmp.path().join("runs");
    as_downloaded(&runs);
    Study::demo().run(tmp.path(), "flat");
    let out = Study { runs: "runs".into(), ..Study::demo() }.cmd("run", &["--out", "nested"], tmp.path());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let (a, b) = (outcomes(&tmp.path().join("flat")), outcomes(&tmp.path().join("nested")));
    assert!(!a.is_empty());
    assert_eq!(a, b);
    // The files read are the primary artifacts' copies; the backups are listed as skipped,
    // each naming the copy that was read.
    let m = manifest(&tmp.path().join("nested"));
    let read: Vec<&str> = m["inputs"].as_array().unwrap().iter().filter(|f| f["input"] == "runs").map(|f| f["path"].as_str().unwrap()).collect();
    assert!(read.contains(&"run-9001/agent/agent_output.json"), "{read:?}");
    assert!(read.contains(&"run-9001/activation/aw_info.json"), "{read:?}");
    assert!(read.contains(&"run-9004/safe-output/safe_output.jsonl"), "{read:?}");
    assert!(read.iter().all(|p| !p.contains("fallback")), "{read:?}");
    let skipped = m["skipped"].as_array().unwrap();
    let backup = skipped.iter().find(|s| s["path"] == "run-9001/agent-output-fallback/agent_output.json").expect("backup listed");
    assert!(backup["reason"].as_str().unwrap().contains("run-9001/agent/agent_output.json was read"), "{backup}");
    assert_eq!(m["records"]["runs"], manifest(&tmp.path().join("flat"))["records"]["runs"]);
    assert!(m.get("empty_runs").is_none());
}

#[test]
fn a_run_folder_with_nothing_usable_is_reported_not_counted_as_zero() {
    let tmp = tempfile::tempdir().unwrap();
    let runs = tmp.path().join("runs");
    super::support::copy_dir(&fixture("demo/runs"), &runs);
    // What `gh aw logs` leaves by default: the usage artifact and aw_info.json copied up.
    let usage = runs.join("run-7777");
    std::fs::create_dir_all(usage.join("usage/activity")).unwrap();
    std::fs::write(usage.join("usage/aw_info.json"), r#"{"run_id": "7777", "workflow_name": "w"}"#).unwrap();
    std::fs::write(usage.join("aw_info.json"), r#"{"run_id": "7777", "workflow_name": "w"}"#).unwrap();
    std::fs::write(usage.join("usage/activity/summary.json"), "{}").unwrap();
    std::fs::create_dir_all(usage.join(".downloaded-artifacts")).unwrap();
    std::fs::write(usage.join(".downloaded-artifacts/usage"), "").unwrap();
    // And a folder with only a log.
    std::fs::create_dir_all(runs.join("run-8888")).unwrap();
    std::fs::write(runs.join("run-8888/agent-stdio.log"), "log\n").unwrap();
    let out = Study { runs: "runs".into(), ..Study::demo() }.cmd("convert", &["--out", "ds"], tmp.path());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("run run-7777: no file with safe outputs found"), "{err}");
    assert!(err.contains("--artifacts all"), "{err}");
    assert!(err.contains("run run-8888: no file with safe outputs found") && err.contains("agent-stdio.log"), "{err}");
    let m = manifest(&tmp.path().join("ds"));
    let empty: Vec<&str> = m["empty_runs"].as_array().unwrap().iter().map(|e| e["dir"].as_str().unwrap()).collect();
    assert_eq!(empty, ["run-7777", "run-8888"]);
}
