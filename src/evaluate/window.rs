//! Evaluation windows: the state as of T+W, or as captured.

use std::fmt;
use std::str::FromStr;

use crate::error::Error;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Window {
    /// T + this many hours.
    Hours(i64),
    /// The state as captured.
    Snapshot,
}

pub const DEFAULT: &[Window] = &[Window::Hours(1), Window::Hours(24), Window::Hours(168), Window::Hours(720), Window::Snapshot];

impl Window {
    pub fn hours(&self) -> Option<i64> {
        match self {
            Window::Hours(h) => Some(*h),
            Window::Snapshot => None,
        }
    }
    pub fn is_snapshot(&self) -> bool {
        matches!(self, Window::Snapshot)
    }
}

impl fmt::Display for Window {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Window::Snapshot => write!(f, "snapshot"),
            // 24h stays 24h (the seed's primary window); 168h and up read as days.
            Window::Hours(h) if *h >= 48 && *h % 24 == 0 => write!(f, "{}d", h / 24),
            Window::Hours(h) => write!(f, "{h}h"),
        }
    }
}

impl FromStr for Window {
    type Err = Error;
    /// `1h`, `24h`, `7d`, `30d`, `snapshot`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let s = s.trim();
        if s == "snapshot" {
            return Ok(Window::Snapshot);
        }
        let bad = || Error::Usage(format!("window `{s}`: expected a number with h or d (1h, 24h, 7d, 30d) or `snapshot`"));
        let (num, unit) = s.split_at(s.len().saturating_sub(1));
        let n: i64 = num.parse().map_err(|_| bad())?;
        if n <= 0 {
            return Err(bad());
        }
        match unit {
            "h" => Ok(Window::Hours(n)),
            "d" => Ok(Window::Hours(n * 24)),
            _ => Err(bad()),
        }
    }
}

/// Parse a comma-separated list; `snapshot` is always evaluated, and added if absent.
pub fn parse_list(s: &str) -> Result<Vec<Window>, Error> {
    let mut out: Vec<Window> = s.split(',').filter(|x| !x.trim().is_empty()).map(str::parse).collect::<Result<_, _>>()?;
    if !out.contains(&Window::Snapshot) {
        out.push(Window::Snapshot);
    }
    out.sort();
    out.dedup();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn names_round_trip() {
        for w in DEFAULT {
            assert_eq!(w.to_string().parse::<Window>().unwrap(), *w);
        }
        assert_eq!(Window::Hours(24).to_string(), "24h");
        assert_eq!(Window::Hours(168).to_string(), "7d");
        assert!("0h".parse::<Window>().is_err());
        assert!("7x".parse::<Window>().is_err());
    }
}
