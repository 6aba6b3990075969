//! Progress bars for long stages: shown on a terminal, silent when output is piped or
//! `--quiet` is given.

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressStyle};

#[derive(Clone, Copy, Debug, Default)]
pub struct Progress {
    enabled: bool,
    quiet: bool,
}

impl Progress {
    /// Bars on stderr when it is a terminal and not `quiet`.
    pub fn new(quiet: bool) -> Self {
        Progress { enabled: !quiet && std::io::stderr().is_terminal(), quiet }
    }

    pub fn hidden() -> Self {
        Progress { enabled: false, quiet: true }
    }

    /// A line on stderr, unless `--quiet`: something the user should know that is not an
    /// error (leftovers cleaned up, files skipped). Control characters are escaped.
    pub fn note(&self, message: &str) {
        if !self.quiet {
            eprintln!("hindsight: {}", crate::text::printable(message));
        }
    }

    pub fn bar(&self, stage: &str, len: u64) -> ProgressBar {
        if !self.enabled {
            return ProgressBar::hidden();
        }
        let pb = ProgressBar::new(len);
        if let Ok(style) = ProgressStyle::with_template("{prefix:>9} [{bar:30}] {pos}/{len} {elapsed}") {
            pb.set_style(style.progress_chars("=> "));
        }
        pb.set_prefix(stage.to_string());
        pb
    }

    /// A bar with a message and an estimate of the time left (`capture`'s rounds).
    pub fn bar_eta(&self, stage: &str, len: u64) -> ProgressBar {
        if !self.enabled {
            return ProgressBar::hidden();
        }
        let pb = ProgressBar::new(len);
        if let Ok(style) = ProgressStyle::with_template("{prefix:>9} [{bar:30}] {pos}/{len} {msg} (eta {eta})") {
            pb.set_style(style.progress_chars("=> "));
        }
        pb.set_prefix(stage.to_string());
        pb
    }
}
