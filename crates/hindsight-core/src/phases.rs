//! Where a stage's time goes, for benchmarks (`HINDSIGHT_PHASES=1`).

/// Where a stage's time and memory go: printed to stderr when `HINDSIGHT_PHASES` is set
/// (for benchmarks; BENCHMARKS.md quotes it), silent otherwise. Marks give the time since
/// the start and the resident memory; steps repeated per chunk are summed, with the CPU
/// time the process used meanwhile (all its threads: the cores a step kept busy).
pub struct Phases {
    on: bool,
    start: std::time::Instant,
    steps: Vec<(&'static str, std::time::Duration, std::time::Duration)>,
    cpu_at: std::time::Duration,
}

/// CPU time the process has used, user and system, all threads (zero where `getrusage` is
/// not had).
#[cfg(not(unix))]
fn cpu_time() -> std::time::Duration {
    std::time::Duration::ZERO
}

/// CPU time the process has used, user and system, all threads.
#[cfg(unix)]
fn cpu_time() -> std::time::Duration {
    // SAFETY: `getrusage` fills the struct it is given; a zeroed one is valid to pass.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) } != 0 {
        return std::time::Duration::ZERO;
    }
    let t = |v: libc::timeval| std::time::Duration::new(v.tv_sec.max(0) as u64, (v.tv_usec.max(0) as u32) * 1000);
    t(u.ru_utime) + t(u.ru_stime)
}

impl Phases {
    pub fn from_env() -> Phases {
        let on = std::env::var_os("HINDSIGHT_PHASES").is_some();
        Phases { on, start: std::time::Instant::now(), steps: Vec::new(), cpu_at: if on { cpu_time() } else { std::time::Duration::ZERO } }
    }

    pub fn mark(&mut self, name: &str) {
        if self.on {
            // The resident memory now, and the most it has been (the peak a step left behind).
            let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
            let field = |key: &str| status.lines().find_map(|l| l.strip_prefix(key).map(|v| v.trim().to_string())).unwrap_or_default();
            let (rss, peak) = (field("VmRSS:"), field("VmHWM:"));
            self.cpu_at = cpu_time();
            eprintln!("phase {name}: {:.3} s, cpu {:.3} s, rss {rss}, peak {peak}", self.start.elapsed().as_secs_f64(), self.cpu_at.as_secs_f64());
        }
    }

    /// The summed steps, under the mark before.
    pub fn steps(&self) {
        if self.on {
            for (step, d, cpu) in &self.steps {
                eprintln!("  {step}: {:.3} s, cpu {:.3} s", d.as_secs_f64(), cpu.as_secs_f64());
            }
        }
    }

    /// Count the time since `since` to `step`; returns now, the start of the next step.
    pub fn add(&mut self, step: &'static str, since: std::time::Instant) -> std::time::Instant {
        let now = std::time::Instant::now();
        if !self.on {
            return now;
        }
        let cpu = cpu_time();
        let used = cpu.saturating_sub(self.cpu_at);
        self.cpu_at = cpu;
        match self.steps.iter_mut().find(|(s, _, _)| *s == step) {
            Some((_, d, c)) => {
                *d += now - since;
                *c += used;
            }
            None => self.steps.push((step, now - since, used)),
        }
        now
    }
}
