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
