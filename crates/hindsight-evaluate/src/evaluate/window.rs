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

/// The windows evaluated unless others are given.
pub const DEFAULT: &[Window] = &[Window::ONE_HOUR, Window::ONE_DAY, Window::ONE_WEEK, Window::THIRTY_DAYS, Window::Snapshot];

impl Window {
    /// One hour after the output (`1h`).
    pub(crate) const ONE_HOUR: Window = Window::Hours(1);
    /// One day after (`24h`): the primary window ([SPEC-WINDOWS]).
    pub(crate) const ONE_DAY: Window = Window::Hours(24);
    /// One week after (`7d`): the window attach fills trace outcome blocks from by default.
    pub const ONE_WEEK: Window = Window::Hours(168);
    /// Thirty days after (`30d`).
    pub(crate) const THIRTY_DAYS: Window = Window::Hours(720);

    pub(crate) fn hours(&self) -> Option<i64> {
        match self {
            Window::Hours(h) => Some(*h),
            Window::Snapshot => None,
        }
    }
    pub(crate) fn is_snapshot(&self) -> bool {
        matches!(self, Window::Snapshot)
    }
}

impl fmt::Display for Window {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Window::Snapshot => write!(f, "snapshot"),
            // 24h stays 24h (the primary window, [SPEC-WINDOWS]); 168h and up read as days.
            Window::Hours(h) if *h >= 48 && *h % 24 == 0 => write!(f, "{}d", h / 24),
            Window::Hours(h) => write!(f, "{h}h"),
        }
    }
}

/// The longest window: 100 years (of 365.25 days). Far beyond any study, and T+W stays
/// inside chrono's range for every timestamp an input can carry.
pub(crate) const MAX_HOURS: i64 = 100 * 8766;

impl FromStr for Window {
    type Err = Error;
    /// `1h`, `24h`, `7d`, `30d`, `snapshot`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let s = s.trim();
        if s == "snapshot" {
            return Ok(Window::Snapshot);
        }
        let bad = || Error::Usage(format!("window `{s}`: expected a number with h or d (1h, 24h, 7d, 30d) or `snapshot`"));
        // The unit is the last character, whatever its width: `1é` is refused, not split inside `é`.
        let (num, per_unit) = if let Some(n) = s.strip_suffix('h') {
            (n, 1)
        } else if let Some(n) = s.strip_suffix('d') {
            (n, 24)
        } else {
            return Err(bad());
        };
        let n: i64 = num.parse().map_err(|_| bad())?;
        if n <= 0 {
            return Err(bad());
        }
        match n.checked_mul(per_unit) {
            Some(h) if h <= MAX_HOURS => Ok(Window::Hours(h)),
            _ => Err(Error::Usage(format!("window `{s}`: at most 100 years ({MAX_HOURS}h or {}d)", MAX_HOURS / 24))),
        }
    }
}

/// Parse a comma-separated list; `snapshot` is always evaluated, and added if absent.
/// A list with no window at all is refused: it would silently evaluate `snapshot` alone.
pub fn parse_list(s: &str) -> Result<Vec<Window>, Error> {
    let mut out: Vec<Window> = s.split(',').filter(|x| !x.trim().is_empty()).map(str::parse).collect::<Result<_, _>>()?;
    if out.is_empty() {
        return Err(Error::Usage(format!("--windows `{s}`: no window given; expected a comma-separated list such as 1h,24h,7d,30d")));
    }
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
        let named = [Window::ONE_HOUR, Window::ONE_DAY, Window::ONE_WEEK, Window::THIRTY_DAYS];
        assert_eq!(named.map(|w| w.to_string()), ["1h", "24h", "7d", "30d"]);
        assert!("0h".parse::<Window>().is_err());
        assert!("7x".parse::<Window>().is_err());
        assert!("1é".parse::<Window>().is_err());
        assert!("é".parse::<Window>().is_err());
        assert!("9223372036854775807h".parse::<Window>().is_err());
        assert!("1000000000d".parse::<Window>().is_err());
        assert_eq!(format!("{MAX_HOURS}h").parse::<Window>().unwrap(), Window::Hours(MAX_HOURS));
        assert!(format!("{}h", MAX_HOURS + 1).parse::<Window>().is_err());
        assert!(parse_list("").is_err());
        assert!(parse_list(" , ").is_err());
        assert_eq!(parse_list("24h,1h,").unwrap(), vec![Window::Hours(1), Window::Hours(24), Window::Snapshot]);
    }
}
