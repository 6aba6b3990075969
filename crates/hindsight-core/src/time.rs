//! Timestamps. Everything is UTC; inputs may carry any offset ("2026-01-01T01:00:00+01:00"
//! is the same instant as "2026-01-01T00:00:00Z").

use chrono::{DateTime, SecondsFormat, Utc};

pub type Instant = DateTime<Utc>;

pub fn parse(s: &str) -> Option<Instant> {
    let s = s.trim();
    fast_utc(s).or_else(|| DateTime::parse_from_rfc3339(s).ok().map(|t| t.with_timezone(&Utc)))
}

/// `parse` for a field that must be an RFC 3339 time exactly as written (AIDev's CSV
/// cells): white space around it is not trimmed away, and a second of 60 is refused.
/// chrono reads `01:41:60Z` as a leap second and it then counts as `01:42:00`, a time the
/// field does not hold; the other readers keep `parse` (GitHub writes no leap seconds, and
/// their tests pin chrono's reading).
pub(crate) fn parse_strict(s: &str) -> Option<Instant> {
    if s.trim() != s {
        return None;
    }
    // chrono keeps a leap second as a fraction of 1 s or more.
    parse(s).filter(|t| t.timestamp_subsec_nanos() < 1_000_000_000)
}

/// `YYYY-MM-DDTHH:MM:SSZ`, the form GitHub writes every timestamp in, read without the
/// general parser (evaluation reads millions). Anything else, or any doubt (a leap second,
/// a day the month lacks), is left to chrono, so the result is always chrono's.
fn fast_utc(s: &str) -> Option<Instant> {
    let b = s.as_bytes();
    if b.len() != 20 || b[4] != b'-' || b[7] != b'-' || b[10] != b'T' || b[13] != b':' || b[16] != b':' || b[19] != b'Z' {
        return None;
    }
    let num = |r: std::ops::Range<usize>| -> Option<i64> { b[r].iter().try_fold(0i64, |n, &c| c.is_ascii_digit().then(|| n * 10 + (c - b'0') as i64)) };
    let (y, m, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (hh, mm, ss) = (num(11..13)?, num(14..16)?, num(17..19)?);
    let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
    let month_days = [31, if leap { 29 } else { 28 }, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    if !(1..=12).contains(&m) || d < 1 || d > month_days[(m - 1) as usize] || hh > 23 || mm > 59 || ss > 59 {
        return None;
    }
    // Days from the civil date (Howard Hinnant's algorithm).
    let y2 = if m <= 2 { y - 1 } else { y };
    let era = y2.div_euclid(400);
    let yoe = y2 - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    DateTime::from_timestamp(days * 86_400 + hh * 3600 + mm * 60 + ss, 0)
}

pub fn at<J: crate::json::Json>(v: &J, key: &str) -> Option<Instant> {
    crate::json::str_at(v, key).and_then(parse)
}

pub(crate) fn at_path<J: crate::json::Json>(v: &J, keys: &[&str]) -> Option<Instant> {
    crate::json::str_path(v, keys).and_then(parse)
}

pub fn format(t: &Instant) -> String {
    t.to_rfc3339_opts(SecondsFormat::Secs, true)
}

#[cfg(test)]
pub(crate) fn micros(t: &Instant) -> i64 {
    t.timestamp_micros()
}

pub(crate) fn from_micros(us: i64) -> Option<Instant> {
    DateTime::from_timestamp_micros(us)
}

/// `t` plus `hours`, or `None` past chrono's range (times read from a dataset may lie far out).
pub fn plus_hours(t: &Instant, hours: i64) -> Option<Instant> {
    chrono::TimeDelta::try_hours(hours).and_then(|d| t.checked_add_signed(d))
}

pub fn hours_between(a: &Instant, b: &Instant) -> f64 {
    (*b - *a).num_seconds() as f64 / 3600.0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fast path gives chrono's answer on every form it takes, and declines the rest.
    #[test]
    fn fast_timestamps_agree_with_chrono() {
        let chrono = |s: &str| DateTime::parse_from_rfc3339(s).ok().map(|t| t.with_timezone(&Utc));
        let mut cases: Vec<String> = [
            "1970-01-01T00:00:00Z",
            "0001-01-01T00:00:00Z",
            "9999-12-31T23:59:59Z",
            "2000-02-29T12:00:00Z",
            "1900-02-29T12:00:00Z",
            "2024-02-29T23:59:59Z",
            "2023-02-29T00:00:00Z",
            "2026-04-31T00:00:00Z",
            "2026-13-01T00:00:00Z",
            "2026-00-10T00:00:00Z",
            "2026-01-00T00:00:00Z",
            "2026-01-01T24:00:00Z",
            "2026-01-01T23:60:00Z",
            "2016-12-31T23:59:60Z",
            "2026-01-01T00:00:00z",
            "2026-01-01 00:00:00Z",
            "2026-01-01T00:00:00+01:00",
            "2026-1-01T00:00:00Z",
            "+026-01-01T00:00:00Z",
            "2026-01-01T00:00:0Z",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        // Every day of a leap and a common year, at varied times.
        for y in [2023, 2024] {
            for m in 1..=12 {
                for d in 1..=31 {
                    cases.push(format!("{y}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z", (d * 7) % 24, (m * 11) % 60, (d * 13) % 60));
                }
            }
        }
        for c in &cases {
            assert_eq!(parse(c), chrono(c), "{c}");
            if let Some(t) = fast_utc(c) {
                assert_eq!(Some(t), chrono(c), "{c}");
            }
        }
        assert!(fast_utc("2026-06-01T12:34:56Z").is_some(), "the usual form takes the fast path");
    }

    #[test]
    fn strict_times_refuse_leap_seconds_and_white_space() {
        assert_eq!(parse_strict("2025-06-01T01:41:59Z"), parse("2025-06-01T01:41:59Z"));
        assert_eq!(parse_strict("2025-06-01T01:41:59+02:00"), parse("2025-06-01T01:41:59+02:00"));
        for bad in ["2025-06-01T01:41:60Z", "2016-12-31T23:59:60Z", "2016-12-31T23:59:60.5+00:00", " 2025-06-01T01:41:59Z", "2025-06-01T01:41:59Z\n"] {
            assert_eq!(parse_strict(bad), None, "{bad:?}");
        }
        // What `parse` makes of a leap second once stored, which the strict form refuses.
        assert_eq!(parse("2025-06-01T01:41:60Z").map(|t| micros(&t)), parse("2025-06-01T01:42:00Z").map(|t| micros(&t)));
    }

    #[test]
    fn plus_hours_is_none_past_the_range() {
        let t = parse("2026-01-01T00:00:00Z").unwrap();
        assert_eq!(plus_hours(&t, 24), parse("2026-01-02T00:00:00Z"));
        assert_eq!(plus_hours(&t, i64::MAX), None);
        assert_eq!(plus_hours(&Instant::MAX_UTC, 1), None);
    }
}
