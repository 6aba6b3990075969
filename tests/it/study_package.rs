//! `hindsight package`: a study handed on as a Frictionless Data Package and an RO-Crate
//! (Process Run Crate), with CITATION.cff, .zenodo.json and a README of its figures; read
//! back by the real validators (Python `frictionless` and `rocrate`).

use std::path::Path;

use serde_json::Value;

use crate::support::{demo, fixture, have, ok, python, run, Tool};

fn json(p: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

fn package(dir: &Path, out: &str) -> std::path::PathBuf {
    ok(&["package", "--quiet", "--dataset", "ds", "--out", out, "--author", "Doe, Jane", "--author", "The hindsight team", "--title", "Demo study"], dir);
    dir.join(out)
}

#[test]
fn a_package_holds_the_dataset_whole_and_describes_every_table_and_column() {
    let tmp = tempfile::tempdir().unwrap();
    let ds = demo(tmp.path());
    let pkg = package(tmp.path(), "pkg");
    // The dataset, byte for byte, under data/; `verify` checks it through the package.
    let manifest = json(&ds.join("manifest.json"));
    assert_eq!(std::fs::read(pkg.join("data/manifest.json")).unwrap(), std::fs::read(ds.join("manifest.json")).unwrap());
    let said = ok(&["verify", "--dataset", "pkg"], tmp.path());
    assert!(said.contains("every file matches"), "{said}");

    let dp = json(&pkg.join("datapackage.json"));
    let tables = manifest["tables"].as_object().unwrap();
    let resources = dp["resources"].as_array().unwrap();
    assert_eq!(resources.len(), tables.len(), "one resource per table");
    for r in resources {
        let name = r["name"].as_str().unwrap();
        let file = pkg.join(r["path"].as_str().unwrap());
        let bytes = std::fs::read(&file).unwrap();
        assert_eq!(r["bytes"], bytes.len() as u64, "{name}");
        assert_eq!(r["hash"].as_str().unwrap(), format!("sha256:{}", hindsight::json::sha256_hex(&bytes)), "{name}");
        assert_eq!(r["format"], "parquet");
        let fields = r["schema"]["fields"].as_array().unwrap();
        assert!(!fields.is_empty(), "{name} has no fields");
        for f in fields {
            let column = f["name"].as_str().unwrap();
            assert_eq!(f["description"].as_str(), hindsight::dataset::dictionary::column(name, column), "{name}.{column}");
        }
    }
    let outcomes = resources.iter().find(|r| r["name"] == "outcomes").unwrap();
    let status = outcomes["schema"]["fields"].as_array().unwrap().iter().find(|f| f["name"] == "outcome_status").unwrap();
    assert_eq!(status["type"], "string");

    let cff = std::fs::read_to_string(pkg.join("CITATION.cff")).unwrap();
    assert!(cff.contains("family-names: \"Doe\"\n    given-names: \"Jane\""), "{cff}");
    assert!(cff.contains("- name: \"The hindsight team\""), "{cff}");
    let zenodo = json(&pkg.join(".zenodo.json"));
    assert_eq!(zenodo["upload_type"], "dataset");
    assert_eq!(zenodo["creators"].as_array().unwrap().len(), 2);
    let readme = std::fs::read_to_string(pkg.join("README.md")).unwrap();
    assert!(readme.starts_with("# Demo study\n"), "{readme}");
    assert!(readme.contains("strict_acceptance_rate"), "the README shows the study's figures");
}

#[test]
fn the_ro_crate_names_every_input_with_its_hash_and_the_settings() {
    let tmp = tempfile::tempdir().unwrap();
    let ds = demo(tmp.path());
    let pkg = package(tmp.path(), "pkg");
    let manifest = json(&ds.join("manifest.json"));
    let crate_ = json(&pkg.join("ro-crate-metadata.json"));
    let graph = crate_["@graph"].as_array().unwrap();
    let by_id = |id: &str| graph.iter().find(|e| e["@id"] == id).unwrap_or_else(|| panic!("no {id} in the crate"));
    let run = by_id("#run");
    assert_eq!(run["@type"], "CreateAction");
    assert_eq!(by_id(run["instrument"]["@id"].as_str().unwrap())["@type"], "SoftwareApplication");
    let objects: Vec<&str> = run["object"].as_array().unwrap().iter().map(|o| o["@id"].as_str().unwrap()).collect();
    for input in manifest["inputs"].as_array().unwrap() {
        let id = format!("#input/{}/{}", input["input"].as_str().unwrap(), input["path"].as_str().unwrap());
        assert!(objects.contains(&id.as_str()), "{id} is not among the run's objects");
        assert_eq!(by_id(&id)["sha256"], input["sha256"]);
    }
    let windows = by_id("#setting/windows");
    let want: Vec<&str> = manifest["windows"].as_array().unwrap().iter().map(|w| w.as_str().unwrap()).collect();
    assert_eq!(windows["value"].as_str().unwrap(), want.join(","));
    assert!(by_id("./")["conformsTo"].as_array().unwrap().iter().any(|c| c["@id"].as_str().unwrap().starts_with("https://w3id.org/ro/wfrun/process/")));
}

#[test]
fn packaging_twice_gives_the_same_bytes_and_never_replaces_a_folder() {
    let tmp = tempfile::tempdir().unwrap();
    demo(tmp.path());
    let a = package(tmp.path(), "a");
    let b = package(tmp.path(), "b");
    for f in ["datapackage.json", "ro-crate-metadata.json", "CITATION.cff", ".zenodo.json", "README.md"] {
        assert_eq!(std::fs::read(a.join(f)).unwrap(), std::fs::read(b.join(f)).unwrap(), "{f}");
    }
    let again = run(&["package", "--dataset", "ds", "--out", "a", "--author", "Doe, Jane"], tmp.path());
    assert_eq!(again.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&again.stderr).contains("already exists"));
    let nobody = run(&["package", "--dataset", "ds", "--out", "c"], tmp.path());
    assert_eq!(nobody.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&nobody.stderr).contains("--author"), "{}", String::from_utf8_lossy(&nobody.stderr));
    assert!(!tmp.path().join("c").exists());
}

/// A dataset whose files no longer match its manifest is not handed on, and nothing is left
/// behind: not the package, not its staging folder.
#[test]
fn a_dataset_that_drifted_from_its_manifest_is_not_packaged() {
    let tmp = tempfile::tempdir().unwrap();
    let ds = demo(tmp.path());
    let table = ds.join("outcomes.parquet");
    let mut bytes = std::fs::read(&table).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0xff;
    std::fs::write(&table, bytes).unwrap();
    let o = run(&["package", "--dataset", "ds", "--out", "pkg", "--author", "Doe, Jane"], tmp.path());
    assert_eq!(o.status.code(), Some(2));
    let said = String::from_utf8_lossy(&o.stderr);
    assert!(said.contains("does not match its manifest") && said.contains("outcomes.parquet"), "{said}");
    assert!(!tmp.path().join("pkg").exists() && !tmp.path().join(".pkg.tmp").exists());
}

/// The real validators read the package of each kind of study: the demo (runs, traces,
/// tasks), the AIDev fixture as imported, and a synthetic study. Frictionless validates
/// every resource (the Parquet read through its parquet plugin, each value against its
/// field's type) and reads as many rows as the manifest records; the rocrate library reads
/// the crate back with its run, inputs and results.
#[test]
fn frictionless_and_rocrate_read_the_package() {
    if !have(&[Tool::Python]) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    demo(dir);
    let aidev = fixture("aidev");
    ok(&["import", "aidev", aidev.to_str().unwrap(), "--out", "aidev", "--captured-at", "2025-07-31T00:00:00Z", "--quiet"], dir);
    ok(&["synth", "--quiet", "--outputs", "400", "--repos", "6", "--out", "synth-in"], dir);
    ok(&["run", "--quiet", "--snapshot", "synth-in/snapshot", "--runs", "synth-in/runs", "--out", "synth"], dir);
    for ds in ["ds", "aidev", "synth"] {
        let out = format!("pkg-{ds}");
        ok(&["package", "--quiet", "--dataset", ds, "--out", &out, "--author", "Doe, Jane", "--title", "Demo study"], dir);
        validated(&dir.join(out));
    }
}

fn validated(pkg: &Path) {
    let script = r##"
import sys, json
from frictionless import Package, validate
from rocrate.rocrate import ROCrate
# Frictionless reads Parquet through pyarrow, not as bytes, so it cannot count a Parquet
# file's bytes or hash it ("actual is None"): those two checks are the other tests' (the
# bytes and sha256 of every file, against the manifest), every other check is Frictionless's.
report = validate(sys.argv[1] + "/datapackage.json", skip_errors=["byte-count", "hash-count"])
errors = [e.message for task in report.tasks for e in task.errors][:5] + [e.message for e in report.errors][:5]
rows = {r.name: len(r.read_rows()) for r in Package(sys.argv[1] + "/datapackage.json").resources}
crate = ROCrate(sys.argv[1])
run = crate.dereference("#run")
print(json.dumps({"valid": report.valid, "errors": errors, "rows": rows,
                  "root": crate.root_dataset["name"], "objects": len(run["object"]), "results": len(run["result"])}))
"##;
    let out = std::process::Command::new(python()).arg("-c").arg(script).arg(pkg).output().unwrap();
    assert!(out.status.success(), "{}: {}", pkg.display(), String::from_utf8_lossy(&out.stderr));
    let got: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(got["valid"], true, "{}: frictionless: {}", pkg.display(), got["errors"]);
    let manifest = json(&pkg.join("data/manifest.json"));
    for (table, entry) in manifest["tables"].as_object().unwrap() {
        assert_eq!(got["rows"][table], entry["rows"], "{}: frictionless read {table}", pkg.display());
    }
    assert_eq!(got["root"], "Demo study");
    assert!(got["objects"].as_u64().unwrap() >= manifest["inputs"].as_array().unwrap().len() as u64);
    assert_eq!(got["results"].as_u64().unwrap() as usize, manifest["tables"].as_object().unwrap().len() + manifest["files"].as_object().map_or(0, |f| f.len()));
}

/// A plan locked before evaluation: the demo, evaluated as planned, matches it; a plan with
/// other windows or another policy switch is departed from, each way named; a plan file is
/// never replaced; a package carries its plan and says whether the study matches it.
#[test]
fn a_locked_plan_names_every_departure_and_travels_with_the_package() {
    let tmp = tempfile::tempdir().unwrap();
    let printed = ok(&["plan", "lock", "--out", "plan.json"], tmp.path());
    let text = std::fs::read(tmp.path().join("plan.json")).unwrap();
    assert_eq!(printed, format!("{}  plan.json\n", hindsight::json::sha256_hex(&text)), "the plan's sha256 is its citation");
    demo(tmp.path());
    let matches = ok(&["plan", "check", "--plan", "plan.json", "--dataset", "ds"], tmp.path());
    assert!(matches.starts_with("The study matches its analysis plan"), "{matches}");

    std::fs::write(tmp.path().join("policy.json"), r#"{"ignore_after_hours": 24}"#).unwrap();
    ok(&["plan", "lock", "--out", "other.json", "--windows", "1h,7d", "--policy", "policy.json"], tmp.path());
    let departs = run(&["plan", "check", "--plan", "other.json", "--dataset", "ds"], tmp.path());
    assert_eq!(departs.status.code(), Some(1));
    let said = String::from_utf8_lossy(&departs.stdout);
    assert!(said.contains("in 2 way(s)"), "{said}");
    assert!(said.contains("- windows: planned 1h,7d,snapshot, evaluated 1h,24h,7d,30d,snapshot"), "{said}");
    assert!(said.contains("- policy `ignore_after_hours`: planned 24, used 168"), "{said}");

    let report = run(&["report", "--dataset", "ds", "--query", "summary", "--plan", "other.json"], tmp.path());
    assert!(report.status.success());
    assert!(String::from_utf8_lossy(&report.stderr).starts_with("The study departs from its analysis plan (other.json) in 2 way(s):"));

    let again = run(&["plan", "lock", "--out", "plan.json"], tmp.path());
    assert_eq!(again.status.code(), Some(2));
    assert_eq!(std::fs::read(tmp.path().join("plan.json")).unwrap(), text, "a locked plan is never replaced");

    ok(&["package", "--quiet", "--dataset", "ds", "--out", "pkg", "--author", "Doe, Jane", "--plan", "other.json"], tmp.path());
    let pkg = tmp.path().join("pkg");
    assert_eq!(std::fs::read(pkg.join("plan.json")).unwrap(), std::fs::read(tmp.path().join("other.json")).unwrap());
    let readme = std::fs::read_to_string(pkg.join("README.md")).unwrap();
    assert!(readme.contains("## Analysis plan\n\nThe study departs from its analysis plan (plan.json) in 2 way(s):"), "{readme}");
}
