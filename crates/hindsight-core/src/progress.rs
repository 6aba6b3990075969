//! Progress bars for long stages: shown on a terminal, silent when output is piped or
//! `--quiet` is given.

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressStyle};

const BAR: &str = "{prefix:>9} [{bar:30}] {pos}/{len} {per_sec:0} (eta {eta}, {elapsed})";
const STEPS: &str = "{prefix:>9} [{bar:30}] {pos}/{len} {msg} ({elapsed})";
const SPINNER: &str = "{prefix:>9} {spinner} {msg} ({elapsed})";
const BAR_ETA: &str = "{prefix:>9} [{bar:30}] {pos}/{len} {msg} (eta {eta})";

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

    /// A bar over `len` items, with the rate and an estimate of the time left.
    pub fn bar(&self, stage: &str, len: u64) -> ProgressBar {
        self.styled(stage, len, BAR)
    }

    /// A bar over named steps: `set_message` names the step under way (`2/4 runs`), and the
    /// time taken so far is shown.
    pub fn steps(&self, stage: &str, len: u64) -> ProgressBar {
        self.styled(stage, len, STEPS)
    }

    /// A spinner for work of unknown length, with what it is doing and the time taken.
    pub fn spinner(&self, stage: &str, doing: &str) -> ProgressBar {
        if !self.enabled {
            return ProgressBar::hidden();
        }
        let pb = ProgressBar::new_spinner();
        if let Ok(style) = ProgressStyle::with_template(SPINNER) {
            pb.set_style(style);
        }
        pb.set_prefix(stage.to_string());
        pb.set_message(doing.to_string());
        pb.enable_steady_tick(std::time::Duration::from_millis(200));
        pb
    }

    fn styled(&self, stage: &str, len: u64, template: &str) -> ProgressBar {
        if !self.enabled {
            return ProgressBar::hidden();
        }
        let pb = ProgressBar::new(len);
        if let Ok(style) = ProgressStyle::with_template(template) {
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
        if let Ok(style) = ProgressStyle::with_template(BAR_ETA) {
            pb.set_style(style.progress_chars("=> "));
        }
        pb.set_prefix(stage.to_string());
        pb
    }
}

#[cfg(test)]
mod tests {
    /// A template indicatif refuses would leave a bar without its rate or step names.
    #[test]
    fn every_template_parses() {
        for t in [super::BAR, super::STEPS, super::SPINNER, super::BAR_ETA] {
            assert!(indicatif::ProgressStyle::with_template(t).is_ok(), "{t}");
        }
    }
}
