//! Timestamps. Everything is UTC; inputs may carry any offset ("2026-01-01T01:00:00+01:00"
//! is the same instant as "2026-01-01T00:00:00Z").

use chrono::{DateTime, SecondsFormat, Utc};
use serde_json::Value;

pub type Instant = DateTime<Utc>;

pub fn parse(s: &str) -> Option<Instant> {
    DateTime::parse_from_rfc3339(s.trim()).ok().map(|t| t.with_timezone(&Utc))
}

pub fn at(v: &Value, key: &str) -> Option<Instant> {
    v.get(key).and_then(Value::as_str).and_then(parse)
}

pub fn at_path(v: &Value, keys: &[&str]) -> Option<Instant> {
    crate::json::str_path(v, keys).and_then(parse)
}

pub fn format(t: &Instant) -> String {
    t.to_rfc3339_opts(SecondsFormat::Secs, true)
}

pub fn micros(t: &Instant) -> i64 {
    t.timestamp_micros()
}

pub fn from_micros(us: i64) -> Option<Instant> {
    DateTime::from_timestamp_micros(us)
}

pub fn hours_between(a: &Instant, b: &Instant) -> f64 {
    (*b - *a).num_seconds() as f64 / 3600.0
}
