//! Clustered intervals and the weighting of the acceptance rates (queries/acceptance_clustered.sql,
//! queries/acceptance_weighting.sql): checked value by value on the demo, a synthetic study and the
//! AIDev fixture against an independent computation in Python (tests/python/rates_check.py); a
//! study with every output in its own repository has a design effect of 1, one whose acceptance
//! differs between a few repositories a clustered interval wider than Wilson's, worked out here.

use std::path::Path;
use std::sync::Arc;

use arrow::array::{ArrayRef, Int64Array, StringArray};
use arrow::datatypes::{DataType, Field, Schema};
use arrow::record_batch::RecordBatch;
use hindsight::report::format::json_rows;
use hindsight::report::{query_text, Session};
use serde_json::Value;

use crate::support::{demo, have, ok, python, root, wilson, write_recorded, Tool};

const Z: f64 = 1.96;

fn rows(dir: &Path, query: &str) -> Vec<Value> {
    let s = Session::open(dir).unwrap();
    json_rows(&s.sql(&query_text(query).unwrap()).unwrap()).unwrap().as_array().unwrap().clone()
}

fn num(v: &Value, what: &str) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("{what}: {v} is not a number"))
}

fn close(got: &Value, want: f64, what: &str) {
    let g = num(got, what);
    assert!((g - want).abs() < 1e-9, "{what}: {g}, want {want}");
}

/// Both queries on the dataset `ds` as `report --query NAME --format json` prints them, and
/// rates_check.py's verdict on them: the rows it computed and every value that differs.
fn python_check(ds: &Path, tmp: &Path) -> Value {
    let d = ds.to_str().unwrap();
    let mut files = Vec::new();
    for q in ["acceptance_clustered", "acceptance_weighting"] {
        let text = ok(&["report", "--dataset", d, "--query", q, "--format", "json"], tmp);
        let file = tmp.join(format!("{}-{q}.json", ds.file_name().unwrap().to_string_lossy()));
        std::fs::write(&file, text).unwrap();
        files.push(file);
    }
    let out = std::process::Command::new(python()).arg(root().join("tests/python/rates_check.py")).arg(ds).args(&files).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let got: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(got["mismatches"], serde_json::json!([]), "{}: {got}", ds.display());
    got
}

/// DuckDB gives both queries' rows on the dataset `ds` as hindsight does, to 1e-12 (the slt files
/// check the demo, whose clustered intervals are all NULL; here the intervals themselves).
fn duckdb_agrees(ds: &Path, tmp: &Path) {
    let d = ds.to_str().unwrap();
    let views = tmp.join("duck.views.sql");
    std::fs::write(&views, format!("SET TimeZone = 'UTC';\n{}", ok(&["views", "--dataset", d, "--dialect", "duckdb"], tmp))).unwrap();
    for q in ["acceptance_clustered", "acceptance_weighting"] {
        let out = std::process::Command::new(python())
            .arg(root().join("tests/python/duckdb_query.py"))
            .arg(&views)
            .arg(root().join(format!("queries/{q}.sql")))
            .output()
            .unwrap();
        assert!(out.status.success(), "duckdb on {q}: {}", String::from_utf8_lossy(&out.stderr));
        let duck: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
        let ours: Vec<Value> = serde_json::from_str(&ok(&["report", "--dataset", d, "--query", q, "--format", "json"], tmp)).unwrap();
        assert_eq!(duck.len(), ours.len(), "{q} on {d}: rows");
        for (a, b) in duck.iter().zip(&ours) {
            let (a, b) = (a.as_object().unwrap(), b.as_object().unwrap());
            assert!(a.keys().eq(b.keys()), "{q}: columns {a:?}, {b:?}");
            for (k, v) in b {
                let same = match (v.as_f64(), a[k].as_f64()) {
                    (Some(x), Some(y)) => (x - y).abs() <= 1e-12,
                    _ => *v == a[k],
                };
                assert!(same, "{q} on {d}, {k}: DuckDB {}, hindsight {v}", a[k]);
            }
        }
    }
}

/// On the demo, a synthetic study of 3,000 outputs in 30 repositories and the AIDev fixture,
/// every value of both queries equals an independent computation in Python to 1e-9, and DuckDB
/// gives the synthetic study's and the import's rows as hindsight does. The demo's
/// groups each sit in one repository, run and developer (every clustered interval NULL); the
/// synthetic study has tens of repositories and runs per group, and the AIDev fixture several
/// developers per agent, so the intervals themselves are checked there.
#[test]
fn the_demo_a_synthetic_study_and_an_aidev_import_agree_with_an_independent_computation() {
    if !have(&[Tool::Python]) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let ds = demo(dir);
    ok(&["synth", "--quiet", "--repos", "30", "--outputs", "3000", "--seed", "7", "--out", "synth-in"], dir);
    ok(&["run", "--quiet", "--snapshot", "synth-in/snapshot", "--runs", "synth-in/runs", "--out", "synth"], dir);
    let fx = root().join("fixtures/aidev");
    ok(&["import", "aidev", fx.to_str().unwrap(), "--out", "aidev", "--captured-at", "2025-07-31T00:00:00Z", "--quiet"], dir);
    let demo = python_check(&ds, dir);
    assert!(demo["clustered_rows"].as_u64().unwrap() > 100 && demo["weighting_rows"].as_u64().unwrap() > 20, "{demo}");
    let synth = python_check(&dir.join("synth"), dir);
    assert!(synth["clustered_intervals"].as_u64().unwrap() > 100, "{synth}");
    let aidev = python_check(&dir.join("aidev"), dir);
    assert!(aidev["clustered_intervals"].as_u64().unwrap() > 0, "{aidev}");
    duckdb_agrees(&dir.join("synth"), dir);
    duckdb_agrees(&dir.join("aidev"), dir);
}

/// A synthetic study whose 80 outputs each act on a repository of their own (drawn from a
/// million): clustering by repository changes nothing, so every design effect is 1, and the mean
/// of per-repository rates is the rate per output.
#[test]
fn every_output_in_its_own_repository_has_a_design_effect_of_one() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    ok(&["synth", "--quiet", "--repos", "1000000", "--outputs", "80", "--seed", "3", "--out", "in"], dir);
    ok(&["run", "--quiet", "--snapshot", "in/snapshot", "--runs", "in/runs", "--out", "ds"], dir);
    let mut checked = 0;
    for r in rows(&dir.join("ds"), "acceptance_clustered").iter().filter(|r| r["cluster_by"] == "repository") {
        // Each evaluable output its own cluster: the study is what this test says it is.
        assert_eq!(r["clusters"], r["evaluable_outputs"], "{r}");
        for rate in ["strict", "human_check", "sticky_artifact"] {
            let deff = &r[format!("{rate}_design_effect")];
            if !deff.is_null() {
                close(deff, 1.0, &format!("{rate} design effect in {r}"));
                checked += 1;
            }
        }
    }
    assert!(checked >= 20, "only {checked} design effects to check");
    for r in rows(&dir.join("ds"), "acceptance_weighting") {
        let n = num(&r["evaluable_outputs"], "evaluable_outputs");
        if n == 0.0 {
            continue;
        }
        close(&r["top_1_repository_share"], 1.0 / n, &format!("top repository's share in {r}"));
        for rate in ["strict_acceptance_rate", "human_check_acceptance_rate", "sticky_artifact_rate"] {
            close(&r[format!("{rate}_repository_mean")], num(&r[rate], rate), &format!("{rate}, mean over repositories, in {r}"));
        }
    }
}

/// A PR in the snapshot window, merged (accepted, strong evidence) or closed unmerged: its
/// workflow, repository, run, and the person its run was for.
pub(crate) struct Pr {
    pub(crate) workflow: &'static str,
    pub(crate) repo: String,
    pub(crate) run: String,
    pub(crate) person: &'static str,
    pub(crate) merged: bool,
}

/// The outcomes and safe_outputs of `prs`, with the columns the two queries read.
pub(crate) fn study(dir: &Path, prs: &[Pr]) {
    let text = |v: Vec<String>| Arc::new(StringArray::from(v)) as ArrayRef;
    let each = |f: &dyn Fn(&Pr) -> String| text(prs.iter().map(f).collect());
    let field = |name: &str| Field::new(name, DataType::Utf8, true);
    let names = [
        "safe_output_id",
        "workflow_name",
        "safe_output_type",
        "target_repo",
        "run_id",
        "eval_window",
        "outcome_status",
        "evidence_strength",
        "human_check_signal",
    ];
    let mut fields: Vec<Field> = names.iter().map(|n| field(n)).collect();
    fields.push(Field::new("window_order", DataType::Int64, false));
    let mut columns = vec![
        text((0..prs.len()).map(|i| format!("o{i}")).collect()),
        each(&|p| p.workflow.to_string()),
        each(&|_| "create_pull_request".to_string()),
        each(&|p| p.repo.clone()),
        each(&|p| p.run.clone()),
        each(&|_| "snapshot".to_string()),
        each(&|p| if p.merged { "accepted" } else { "rejected" }.to_string()),
        each(&|_| "strong".to_string()),
        each(&|p| if p.merged { "pull_request_merged" } else { "pull_request_closed" }.to_string()),
    ];
    columns.push(Arc::new(Int64Array::from(vec![i64::MAX; prs.len()])));
    write_recorded(dir, "outcomes", &RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).unwrap());
    let fields = vec![field("safe_output_id"), field("actor"), field("run_actor")];
    let columns = vec![text((0..prs.len()).map(|i| format!("o{i}")).collect()), each(&|_| "github-actions[bot]".to_string()), each(&|p| p.person.to_string())];
    write_recorded(dir, "safe_outputs", &RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).unwrap());
}

/// `fixer`'s PRs in four busy repositories whose merge rates differ (acme/c 26 of 30, acme/b 3
/// of 25, acme/d 20 of 25, acme/a 5 of 20) and eight with two PRs each, one merged; five PRs a
/// run, runs for three people in turn. `solo`'s twelve PRs all in one repository, 7 merged, in
/// three runs; `all-merged`'s six PRs in three repositories, all merged.
fn concentrated() -> Vec<Pr> {
    let mut sizes: Vec<(String, usize, usize)> =
        [("acme/c", 30, 26), ("acme/b", 25, 3), ("acme/d", 25, 20), ("acme/a", 20, 5)].iter().map(|(r, n, k)| (r.to_string(), *n, *k)).collect();
    sizes.extend((1..=8).map(|i| (format!("acme/s{i:02}"), 2, 1)));
    let people = ["ana", "lee", "kim"];
    let mut prs = Vec::new();
    for (repo, n, k) in &sizes {
        for i in 0..*n {
            let run = format!("fixer-{repo}-{}", i / 5);
            let person = people[(prs.len() / 5) % people.len()];
            prs.push(Pr { workflow: "fixer", repo: repo.clone(), run, person, merged: i < *k });
        }
    }
    prs.extend((0..12).map(|i| Pr { workflow: "solo", repo: "acme/solo".into(), run: format!("solo-{}", i / 4), person: "ana", merged: i < 7 }));
    prs.extend((0..6).map(|i| Pr { workflow: "all-merged", repo: format!("acme/m{}", i / 2), run: format!("m-{i}"), person: "lee", merged: true }));
    prs
}

/// The CR1 interval and the design effect from the clusters' (y_c, n_c), as docs/REPORT.md
/// writes them: p -/+ z sqrt(C/(C-1) sum (y_c - p n_c)^2) / N, and sum (y_c - p n_c)^2 / N^2
/// over p(1-p)/N.
fn by_hand(clusters: &[(f64, f64)]) -> (f64, f64, f64) {
    let (k, n): (f64, f64) = clusters.iter().fold((0.0, 0.0), |(k, n), (y, m)| (k + y, n + m));
    let p = k / n;
    let squares: f64 = clusters.iter().map(|(y, m)| (y - p * m).powi(2)).sum();
    let c = clusters.len() as f64;
    let se = (c / (c - 1.0) * squares).sqrt() / n;
    ((p - Z * se).max(0.0), (p + Z * se).min(1.0), squares / n / (p * (1.0 - p)))
}

/// Each cluster's (merged, PRs) among `prs` of `workflow`, clustered by `key`, in key order.
fn clusters_of(prs: &[Pr], workflow: &str, key: fn(&Pr) -> String) -> Vec<(f64, f64)> {
    let mut by: std::collections::BTreeMap<String, (f64, f64)> = Default::default();
    for p in prs.iter().filter(|p| p.workflow == workflow) {
        let e = by.entry(key(p)).or_default();
        *e = (e.0 + f64::from(u8::from(p.merged)), e.1 + 1.0);
    }
    by.into_values().collect()
}

/// Acceptance that differs between a few repositories: clustered by repository the interval is
/// wider than Wilson's (the design effect well above 1), each figure as worked out by hand. One
/// repository, or a rate of 1, leaves nothing to estimate a clustered variance from: NULL, with
/// the Wilson interval still there.
#[test]
fn a_study_concentrated_in_few_repositories_has_a_clustered_interval_wider_than_wilson() {
    let tmp = tempfile::tempdir().unwrap();
    let prs = concentrated();
    study(tmp.path(), &prs);
    let got = rows(tmp.path(), "acceptance_clustered");
    let row = |w: &str, by: &str| got.iter().find(|r| r["workflow_name"] == w && r["cluster_by"] == by).unwrap_or_else(|| panic!("no {w} by {by}: {got:?}"));
    let keys: [(&str, fn(&Pr) -> String); 3] = [("repository", |p| p.repo.clone()), ("developer", |p| p.person.to_string()), ("run", |p| p.run.clone())];
    for (by, key) in keys {
        let r = row("fixer", by);
        let clusters = clusters_of(&prs, "fixer", key);
        let (k, n) = clusters.iter().fold((0.0, 0.0), |(k, n), (y, m)| (k + y, n + m));
        let (lo, hi, deff) = by_hand(&clusters);
        let (w_lo, w_hi) = wilson(k, n);
        assert_eq!(r["clusters"].as_u64(), Some(clusters.len() as u64), "{r}");
        for rate in ["strict", "human_check"] {
            close(&r[format!("{rate}_clustered_ci_low")], lo, &format!("{rate} by {by}, low"));
            close(&r[format!("{rate}_clustered_ci_high")], hi, &format!("{rate} by {by}, high"));
            close(&r[format!("{rate}_design_effect")], deff, &format!("{rate} by {by}, design effect"));
            close(&r[format!("{rate}_acceptance_rate_ci_low")], w_lo, &format!("{rate} Wilson low"));
            close(&r[format!("{rate}_acceptance_rate_ci_high")], w_hi, &format!("{rate} Wilson high"));
        }
        assert!(r["sticky_artifact_design_effect"].is_null(), "no sticky artifact: a rate of 0 has no clustered variance: {r}");
    }
    let r = row("fixer", "repository");
    let (lo, hi) = (num(&r["strict_clustered_ci_low"], "low"), num(&r["strict_clustered_ci_high"], "high"));
    let (w_lo, w_hi) = (num(&r["strict_acceptance_rate_ci_low"], "Wilson low"), num(&r["strict_acceptance_rate_ci_high"], "Wilson high"));
    assert!(lo < w_lo && hi > w_hi, "clustered [{lo}, {hi}] should be wider than Wilson [{w_lo}, {w_hi}]");
    assert!(num(&r["strict_design_effect"], "design effect") > 4.0, "{r}");
    // One repository: NULL, never a guess; the same PRs in three runs have an interval.
    let solo = row("solo", "repository");
    assert_eq!(solo["clusters"].as_u64(), Some(1), "{solo}");
    assert!(solo["strict_clustered_ci_low"].is_null() && solo["strict_clustered_ci_high"].is_null() && solo["strict_design_effect"].is_null(), "{solo}");
    assert!(!solo["strict_acceptance_rate_ci_low"].is_null(), "{solo}");
    assert!(!row("solo", "run")["strict_clustered_ci_low"].is_null());
    // Every PR merged: three repositories, and still no variance to estimate.
    let all = row("all-merged", "repository");
    assert_eq!(all["clusters"].as_u64(), Some(3), "{all}");
    assert!(all["strict_clustered_ci_low"].is_null() && all["strict_design_effect"].is_null(), "{all}");
    if have(&[Tool::Python]) {
        python_check(tmp.path(), tmp.path());
    }
}

/// The weighting of the same study, each figure from the PRs: the busiest repositories ranked
/// by PRs, ties by name (acme/b before acme/d at 25, acme/s01 first of the two-PR ones).
#[test]
fn the_weighting_of_a_concentrated_study_is_worked_out_from_its_repositories() {
    let tmp = tempfile::tempdir().unwrap();
    let prs = concentrated();
    study(tmp.path(), &prs);
    let got = rows(tmp.path(), "acceptance_weighting");
    let r = got.iter().find(|r| r["workflow_name"] == "fixer").unwrap();
    let mut repos: Vec<(String, f64, f64)> = Vec::new();
    for p in prs.iter().filter(|p| p.workflow == "fixer") {
        match repos.iter_mut().find(|(name, _, _)| *name == p.repo) {
            Some(e) => (e.1, e.2) = (e.1 + 1.0, e.2 + f64::from(u8::from(p.merged))),
            None => repos.push((p.repo.clone(), 1.0, f64::from(u8::from(p.merged)))),
        }
    }
    repos.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    assert_eq!(repos[1].0, "acme/b");
    let (n, k): (f64, f64) = repos.iter().fold((0.0, 0.0), |(n, k), r| (n + r.1, k + r.2));
    close(&r["strict_acceptance_rate"], k / n, "per PR");
    close(&r["strict_acceptance_rate_repository_mean"], repos.iter().map(|r| r.2 / r.1).sum::<f64>() / repos.len() as f64, "mean over repositories");
    let people = clusters_of(&prs, "fixer", |p| p.person.to_string());
    close(&r["strict_acceptance_rate_developer_mean"], people.iter().map(|(y, m)| y / m).sum::<f64>() / people.len() as f64, "mean over developers");
    for (top, share) in [(1, "top_1_repository_share"), (5, "top_5_repositories_share"), (10, "top_10_repositories_share")] {
        let (n_top, k_top) = repos[..top].iter().fold((0.0, 0.0), |(n, k), r| (n + r.1, k + r.2));
        close(&r[share], n_top / n, share);
        close(&r[format!("strict_acceptance_rate_without_top_{top}")], (k - k_top) / (n - n_top), &format!("without the top {top}"));
    }
    assert_eq!((r["repositories"].as_u64(), r["developers"].as_u64()), (Some(12), Some(3)), "{r}");
    // `solo` has one repository: without it nothing is left.
    let solo = got.iter().find(|r| r["workflow_name"] == "solo").unwrap();
    assert!(solo["strict_acceptance_rate_without_top_1"].is_null(), "{solo}");
}

/// `report --cluster-by` picks the cluster unit of the dashboard's `acceptance_clustered`: on the
/// demo, each choice shows exactly that unit's rows of the query (which has all three), the
/// repository by default; with a query, and a unit mistyped, it is refused, naming the units.
#[test]
fn cluster_by_picks_the_dashboards_cluster_unit() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let ds = demo(dir);
    let d = ds.to_str().unwrap();
    let all = rows(&ds, "acceptance_clustered");
    for (flag, unit) in [(None, "repository"), (Some("repo"), "repository"), (Some("developer"), "developer"), (Some("run"), "run")] {
        let mut args = vec!["report", "--dataset", d, "--section", "acceptance_clustered", "--format", "json"];
        args.extend(flag.iter().flat_map(|f| ["--cluster-by", *f]));
        let shown: Value = serde_json::from_str(&ok(&args, dir)).unwrap();
        let want: Vec<&Value> = all.iter().filter(|r| r["cluster_by"] == unit).collect();
        let got: Vec<&Value> = shown["acceptance_clustered"].as_array().unwrap().iter().collect();
        assert!(!want.is_empty() && got == want, "--cluster-by {flag:?}: {got:?}, want the {unit} rows {want:?}");
    }
    let fails = |args: &[&str]| {
        let out = crate::support::run(args, dir);
        assert!(!out.status.success(), "{args:?} succeeded");
        String::from_utf8_lossy(&out.stderr).to_string()
    };
    let e = fails(&["report", "--dataset", d, "--cluster-by", "team"]);
    assert!(e.contains("repo") && e.contains("developer") && e.contains("run"), "{e}");
    let e = fails(&["report", "--dataset", d, "--query", "acceptance_clustered", "--cluster-by", "run"]);
    assert!(e.contains("--cluster-by"), "{e}");
}
