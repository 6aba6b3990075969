//! Time to outcome with censoring (queries/time_to_outcome.sql, queries/time_to_outcome_summary.sql):
//! pinned by arithmetic on a case small enough to work by hand, and checked value by value on the
//! demo against an independent computation in Python (tests/python/survival_check.py).

use std::path::Path;
use std::sync::Arc;

use arrow::array::{ArrayRef, Float64Array, StringArray, TimestampMicrosecondArray};
use arrow::datatypes::{DataType, Field, Schema, TimeUnit};
use arrow::record_batch::RecordBatch;
use hindsight::report::format::json_rows;
use hindsight::report::{query_text, Session};
use serde_json::Value;

use crate::support::{demo, have, ok, python, root, write_recorded, Tool};

const HOUR_US: i64 = 3_600_000_000;
const Z: f64 = 1.959963984540054;

/// Snapshot-window outcomes of one workflow's PRs, captured at hour 100: each its status, the
/// hours to its deciding event, and the hours from its creation to the capture.
fn outcomes(dir: &Path, rows: &[(&str, Option<f64>, f64)]) {
    let capture = 100 * HOUR_US;
    let created: Vec<i64> = rows.iter().map(|(_, _, follow_up)| capture - (follow_up * HOUR_US as f64) as i64).collect();
    let ts = |v: Vec<i64>| Arc::new(TimestampMicrosecondArray::from(v).with_timezone("UTC")) as ArrayRef;
    let text = |v: &str| Arc::new(StringArray::from(vec![v; rows.len()])) as ArrayRef;
    let tz = Some("UTC".into());
    let schema = Schema::new(vec![
        Field::new("eval_window", DataType::Utf8, false),
        Field::new("workflow_name", DataType::Utf8, true),
        Field::new("safe_output_type", DataType::Utf8, false),
        Field::new("outcome_status", DataType::Utf8, false),
        Field::new("time_to_outcome_hours", DataType::Float64, true),
        Field::new("created_at", DataType::Timestamp(TimeUnit::Microsecond, tz.clone()), true),
        Field::new("evaluated_at", DataType::Timestamp(TimeUnit::Microsecond, tz), true),
    ]);
    let batch = RecordBatch::try_new(
        Arc::new(schema),
        vec![
            text("snapshot"),
            text("fixer"),
            text("create_pull_request"),
            Arc::new(StringArray::from(rows.iter().map(|r| r.0).collect::<Vec<_>>())),
            Arc::new(Float64Array::from(rows.iter().map(|r| r.1).collect::<Vec<_>>())),
            ts(created),
            ts(vec![capture; rows.len()]),
        ],
    )
    .unwrap();
    write_recorded(dir, "outcomes", &batch);
}

fn rows(dir: &Path, query: &str) -> Vec<Value> {
    let s = Session::open(dir).unwrap();
    json_rows(&s.sql(&query_text(query).unwrap()).unwrap()).unwrap().as_array().unwrap().clone()
}

fn close(got: &Value, want: f64, what: &str) {
    let g = got.as_f64().unwrap_or_else(|| panic!("{what}: {got} is not a number"));
    assert!((g - want).abs() < 1e-9, "{what}: {g}, want {want}");
}

/// Five PRs: merged at 1 h, merged at 2 h, open at capture 2 h after it was opened (censored
/// at 2), closed unmerged at 3 h, merged at 4 h; a sixth not captured (unknown: excluded).
/// By hand, rejection as censoring for Kaplan-Meier:
///   t=1: 5 at risk, 1 merged: S = 4/5 = 0.8
///   t=2: 4 at risk, 1 merged, 1 censored: S = 0.8 * 3/4 = 0.6
///   t=3: 2 at risk, 1 closed: S stays 0.6
///   t=4: 1 at risk, 1 merged: S = 0
/// Competing risks (Aalen-Johansen), overall survival S_all(t-) = 1, 0.8, 0.6, 0.3:
///   merged: 1/5 = 0.2; + 0.8/4 = 0.4; 0.4; + 0.3/1 = 0.7
///   closed: 0; 0; 0.6/2 = 0.3; 0.3       (0.7 + 0.3 = 1: every PR ended one way)
/// Median: the first t with S <= 0.5 is 4; over merged PRs alone (1, 2, 4) it would be 2.
/// Restricted mean to tau = 4: 1*1 + 0.8*1 + 0.6*1 + 0.6*1 = 3.0; its variance, each merge's
/// d/(n(n-d)) times the area still ahead squared: 2.0^2/20 + 1.2^2/12 = 0.2 + 0.12 = 0.32.
#[test]
fn kaplan_meier_and_aalen_johansen_by_hand() {
    let tmp = tempfile::tempdir().unwrap();
    let none = None;
    outcomes(
        tmp.path(),
        &[("accepted", Some(1.0), 50.0), ("accepted", Some(2.0), 50.0), ("pending", none, 2.0), ("rejected", Some(3.0), 50.0), ("accepted", Some(4.0), 50.0), ("unknown", none, 50.0)],
    );
    let curve = rows(tmp.path(), "time_to_outcome");
    let want = [
        // hours, at risk, merged, closed, censored, S, merged CIF, closed CIF
        (1.0, 5, 1, 0, 0, 0.8, 0.2, 0.0),
        (2.0, 4, 1, 0, 1, 0.6, 0.4, 0.0),
        (3.0, 2, 0, 1, 0, 0.6, 0.4, 0.3),
        (4.0, 1, 1, 0, 0, 0.0, 0.7, 0.3),
    ];
    assert_eq!(curve.len(), want.len(), "{curve:?}");
    for (r, (t, n, a, c, cens, s, cif_a, cif_c)) in curve.iter().zip(want) {
        close(&r["hours"], t, "hours");
        assert_eq!((r["n_at_risk"].as_i64(), r["accepted_events"].as_i64(), r["rejected_events"].as_i64()), (Some(n), Some(a), Some(c)), "{r}");
        assert_eq!((r["censored"].as_i64(), r["excluded"].as_i64()), (Some(cens), Some(1)), "{r}");
        close(&r["km_not_accepted"], s, &format!("S({t})"));
        close(&r["cif_accepted"], cif_a, &format!("CIF merged({t})"));
        close(&r["cif_rejected"], cif_c, &format!("CIF closed({t})"));
    }
    // The log-log band at t=1: Greenwood's sum 1/(5*4), se = sqrt(0.05) / |ln 0.8|, S^exp(+-1.96 se).
    let se = 0.05f64.sqrt() / 0.8f64.ln().abs();
    close(&curve[0]["km_lower_95"], 0.8f64.powf((Z * se).exp()), "lower band at 1");
    close(&curve[0]["km_upper_95"], 0.8f64.powf((-Z * se).exp()), "upper band at 1");
    // Once S is 0 the band is 0 to 0.
    close(&curve[3]["km_lower_95"], 0.0, "lower band at 4");

    let summary = rows(tmp.path(), "time_to_outcome_summary");
    assert_eq!(summary.len(), 1, "{summary:?}");
    let s = &summary[0];
    for (k, v) in [("outputs", 6), ("accepted", 3), ("rejected", 1), ("censored", 1), ("excluded", 1)] {
        assert_eq!(s[k].as_i64(), Some(v), "{k}: {s}");
    }
    close(&s["median_hours"], 4.0, "median");
    close(&s["naive_median_accepted_hours"], 2.0, "naive median");
    close(&s["tau_hours"], 4.0, "tau");
    close(&s["rmst_hours"], 3.0, "restricted mean");
    close(&s["rmst_lower_95"], 3.0 - Z * 0.32f64.sqrt(), "restricted mean, lower");
    close(&s["rmst_upper_95"], (3.0 + Z * 0.32f64.sqrt()).min(4.0), "restricted mean, upper (clipped at tau)");
    close(&s["cif_accepted_at_tau"], 0.7, "merged by tau");
    close(&s["cif_rejected_at_tau"], 0.3, "closed by tau");
}

/// Fewer than half merged by the end of follow-up: the median is not reached (NULL), where the
/// naive median over the merged PRs alone still gives a number. Two PRs merged at 1 h and 3 h,
/// three open at capture (censored at 10 h): S = 4/5, then 3/5, never 0.5.
#[test]
fn a_median_not_reached_is_null() {
    let tmp = tempfile::tempdir().unwrap();
    outcomes(tmp.path(), &[("accepted", Some(1.0), 20.0), ("accepted", Some(3.0), 20.0), ("pending", None, 10.0), ("ignored", None, 10.0), ("pending", None, 10.0)]);
    let s = &rows(tmp.path(), "time_to_outcome_summary")[0];
    assert!(s["median_hours"].is_null(), "{s}");
    assert!(s["median_upper_95"].is_null(), "{s}");
    close(&s["naive_median_accepted_hours"], 2.0, "naive median");
    // 1*1 + 0.8*2 + 0.6*7 = 6.8 hours to tau = 10.
    close(&s["rmst_hours"], 6.8, "restricted mean");
}

/// On the demo, every value of both queries equals an independent computation in Python from
/// the outcomes table (loops and products, not window sums of logarithms), to 1e-9.
#[test]
fn the_demo_agrees_with_an_independent_computation() {
    if !have(&[Tool::Python]) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let ds = demo(tmp.path());
    let d = ds.to_str().unwrap();
    for q in ["time_to_outcome", "time_to_outcome_summary"] {
        let text = ok(&["report", "--dataset", d, "--query", q, "--format", "json"], tmp.path());
        std::fs::write(tmp.path().join(format!("{q}.json")), text).unwrap();
    }
    let out = std::process::Command::new(python())
        .arg(root().join("tests/python/survival_check.py"))
        .arg(ds.join("outcomes.parquet"))
        .arg(tmp.path().join("time_to_outcome.json"))
        .arg(tmp.path().join("time_to_outcome_summary.json"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let got: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(got["mismatches"], serde_json::json!([]), "{got}");
    // The demo has groups with every kind of row: censored, rejected, accepted, excluded.
    assert!(got["curve_rows"].as_u64().unwrap() > 20 && got["summary_rows"].as_u64().unwrap() > 10, "{got}");
}

/// A step function as the figures draw it, computed here from the query's rows: from
/// `(0, start)` flat to each time the value changes, then straight to the new value; flat on
/// to the last time.
fn step_vertices(points: &[(f64, f64)], start: f64) -> Vec<(f64, f64)> {
    let mut out = vec![(0.0, start)];
    let mut prev = start;
    for &(t, v) in points {
        if v != prev {
            out.extend([(t, prev), (t, v)]);
            prev = v;
        }
    }
    if let Some(&(t, _)) = points.last() {
        if out.last().map(|p| p.0) != Some(t) {
            out.push((t, prev));
        }
    }
    out
}

/// Gridlines `(value, x, y)` as svg_figures.py reads them.
fn grid(f: &Value, axis: &str) -> Vec<(f64, f64, f64)> {
    f[axis].as_array().unwrap().iter().map(|g| (g[0].as_f64().unwrap(), g[1].as_f64().unwrap(), g[2].as_f64().unwrap())).collect()
}

/// The dashboard's time-to-outcome figures (`report --figures`, and the HTML page) on the demo
/// and on an AIDev import: one per workflow (agent) × type with an output decided, the most
/// outputs on the curve first, at most four; each curve's vertices, mapped back to hours and
/// shares through the figure's own gridlines, are the query's rows as steps (flat, then
/// straight down or up at each time an output was decided: the step heights are the Kaplan-Meier
/// and cumulative incidence values); the shaded band runs along the upper ends and back along
/// the lower ones, which hold the curve between them; the curves are figures, never a table.
#[test]
fn the_curves_are_drawn_as_steps_within_their_band() {
    if !have(&[Tool::Python]) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    demo(tmp.path());
    let fx = root().join("fixtures/aidev");
    ok(&["import", "aidev", fx.to_str().unwrap(), "--out", "aidev", "--captured-at", "2025-07-31T00:00:00Z", "--quiet"], tmp.path());
    for ds in ["ds", "aidev"] {
        let curve: Value = serde_json::from_str(&ok(&["report", "--dataset", ds, "--query", "time_to_outcome", "--format", "json"], tmp.path())).unwrap();
        let mut groups: std::collections::BTreeMap<(String, String), Vec<&Value>> = Default::default();
        for r in curve.as_array().unwrap() {
            groups.entry((r["workflow_name"].as_str().unwrap().to_string(), r["safe_output_type"].as_str().unwrap().to_string())).or_default().push(r);
        }
        let decided = |rows: &[&Value]| rows.iter().any(|r| r["accepted_events"].as_i64() > Some(0) || r["rejected_events"].as_i64() > Some(0));
        let mut drawn: Vec<(&(String, String), &Vec<&Value>)> = groups.iter().filter(|(_, rows)| decided(rows)).collect();
        drawn.sort_by_key(|(_, rows)| std::cmp::Reverse(rows[0]["n_at_risk"].as_i64().unwrap()));
        drawn.truncate(4);
        assert!(!drawn.is_empty(), "{ds}: nothing decided on the curves");
        let dir = tmp.path().join(format!("{ds}-figures"));
        let listed = ok(&["report", "--dataset", ds, "--figures", dir.to_str().unwrap()], tmp.path());
        let files: Vec<&str> = listed.lines().filter(|l| l.contains("time_to_outcome-")).collect();
        let want: Vec<String> = (1..=drawn.len()).map(|i| dir.join(format!("time_to_outcome-{i}.svg")).display().to_string()).collect();
        assert_eq!(files, want, "{ds}");
        let out = std::process::Command::new(python()).arg(root().join("tests/python/svg_figures.py")).args(&files).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let parsed: Value = serde_json::from_slice(&out.stdout).unwrap();
        for (file, ((workflow, kind), rows)) in files.iter().zip(&drawn) {
            check_figure(&parsed[*file], workflow, kind, rows);
        }
        let html = ok(&["report", "--dataset", ds, "--format", "html"], tmp.path());
        for i in 1..=drawn.len() {
            assert!(html.contains(&format!(r#"<figure id="figure-time_to_outcome-{i}">"#)), "{ds}: the page lacks curve {i}");
        }
        assert!(!html.contains(r#"<section id="time_to_outcome">"#), "{ds}: the curves are shown as a table");
        let json: Value = serde_json::from_str(&ok(&["report", "--dataset", ds, "--format", "json"], tmp.path())).unwrap();
        assert!(json.get("time_to_outcome").is_none() && json.get("time_to_outcome_summary").is_some(), "{ds}: the curves are in the JSON report");
    }
}

/// One figure against its group's rows: title, axes, the three step curves and the band.
fn check_figure(f: &Value, workflow: &str, kind: &str, rows: &[&Value]) {
    let title = f["title"].as_str().unwrap();
    assert!(title.contains(&format!(" {workflow} · {kind}, ")) && title.contains("censored"), "{title}");
    let n = rows[0]["n_at_risk"].as_i64().unwrap();
    assert!(title.contains(&format!("(n: {n} ")), "{title}");
    let (gx, gy) = (grid(f, "grid_x"), grid(f, "grid_y"));
    let (y0, y1) = (gy[0], gy[gy.len() - 1]);
    let py = |v: f64| y0.2 + (v - y0.0) / (y1.0 - y0.0) * (y1.2 - y0.2);
    let steps = f["steps"].as_array().unwrap();
    let log = steps[0]["scale"] == "log";
    assert_eq!(log, f["axis_titles"].as_array().unwrap().iter().any(|t| t.as_str().unwrap().ends_with("(log scale)")), "{title}");
    let (x0, x1) = (gx[0], gx[gx.len() - 1]);
    let px = |t: f64| {
        let at = |v: f64| if log { v.max(x0.0).log10() } else { v };
        x0.1 + (at(t) - at(x0.0)) / (at(x1.0) - at(x0.0)) * (x1.1 - x0.1)
    };
    let series = |col: &str| rows.iter().map(|r| (r["hours"].as_f64().unwrap(), r[col].as_f64().unwrap())).collect::<Vec<_>>();
    let near = |got: &Value, (t, v): (f64, f64), what: &str| {
        let (gx, gy) = (got[0].as_f64().unwrap(), got[1].as_f64().unwrap());
        // Coordinates are written to a tenth of a unit, the gridlines too.
        assert!((gx - px(t)).abs() < 0.2 && (gy - py(v)).abs() < 0.2, "{title}: {what}: ({gx}, {gy}) is not hour {t}, share {v} at ({}, {})", px(t), py(v));
    };
    let cols: Vec<&str> = steps.iter().map(|s| s["series"].as_str().unwrap()).collect();
    assert_eq!(cols, ["km_not_accepted", "cif_accepted", "cif_rejected"], "{title}");
    for s in steps {
        let col = s["series"].as_str().unwrap();
        let want = step_vertices(&series(col), if col == "km_not_accepted" { 1.0 } else { 0.0 });
        let got = s["points"].as_array().unwrap();
        assert_eq!(got.len(), want.len(), "{title}: {col}: {got:?}");
        for (g, w) in got.iter().zip(&want) {
            near(g, *w, col);
        }
        // Flat, then straight: each segment is horizontal or vertical.
        assert!(got.windows(2).all(|p| p[0][0] == p[1][0] || p[0][1] == p[1][1]), "{title}: {col} is not a step curve");
    }
    let band = f["bands"].as_array().unwrap();
    assert_eq!(band.len(), 1, "{title}");
    let band = band[0].as_array().unwrap();
    let upper = step_vertices(&series("km_upper_95"), 1.0);
    let lower: Vec<(f64, f64)> = step_vertices(&series("km_lower_95"), 1.0).into_iter().rev().collect();
    assert_eq!(band.len(), upper.len() + lower.len(), "{title}: band {band:?}");
    for (g, w) in band.iter().zip(upper.iter().chain(&lower)) {
        near(g, *w, "band");
    }
    for r in rows {
        let (lo, s, hi) = (r["km_lower_95"].as_f64().unwrap(), r["km_not_accepted"].as_f64().unwrap(), r["km_upper_95"].as_f64().unwrap());
        assert!(lo <= s && s <= hi, "{title}: the band does not hold the curve at {r}");
    }
}
