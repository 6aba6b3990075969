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

    /// A stage of unknown length: a spinner with a message (requests made, rate-limit
    /// budget) and the time spent.
    pub fn spinner(&self, stage: &str) -> ProgressBar {
        if !self.enabled {
            return ProgressBar::hidden();
        }
        let pb = ProgressBar::new_spinner();
        if let Ok(style) = ProgressStyle::with_template("{prefix:>9} {spinner} {msg} {elapsed}") {
            pb.set_style(style);
        }
        pb.set_prefix(stage.to_string());
        pb.enable_steady_tick(std::time::Duration::from_millis(200));
        pb
    }
}
