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
    /// The threads found running, sampled beside the stage (Linux; `None` elsewhere).
    sampler: Option<Sampler>,
    /// The samples as of the last mark.
    sampled_at: Runnable,
}

/// Samples, every few milliseconds, how many of the process's threads are running or ready
/// to run (state `R` in `/proc/self/task/*/stat`; the sampler itself aside). CPU spent while
/// only one thread could run is the stage's serial share: more cores cannot shorten it.
struct Sampler {
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    seen: std::sync::Arc<std::sync::Mutex<Runnable>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

/// Counts of samples: those with any thread running, those with exactly one, and the
/// running threads summed over the samples (thread-samples of CPU).
#[derive(Clone, Default)]
struct Runnable {
    busy: u64,
    one: u64,
    /// CPU sampled: each sample's running threads, at most one per core.
    cpu: u64,
    /// The thread found running alone, by name, in how many samples.
    alone: std::collections::BTreeMap<String, u64>,
}

impl Runnable {
    fn since(&self, before: &Runnable) -> Runnable {
        let alone = self.alone.iter().map(|(k, n)| (k.clone(), n - before.alone.get(k).copied().unwrap_or(0))).filter(|(_, n)| *n > 0).collect();
        Runnable { busy: self.busy - before.busy, one: self.one - before.one, cpu: self.cpu - before.cpu, alone }
    }

    /// The serial share of the CPU sampled and the threads that ran alone most, as a line's
    /// tail ("" with no sample).
    fn said(&self) -> String {
        if self.cpu == 0 {
            return String::new();
        }
        let mut alone: Vec<(&String, &u64)> = self.alone.iter().collect();
        alone.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        let names: Vec<String> = alone.iter().take(3).map(|(k, n)| format!("{k} {n}")).collect();
        format!(
            ", serial {:.1}% of cpu (one thread running in {} of {} samples{}{})",
            100.0 * self.one as f64 / self.cpu as f64,
            self.one,
            self.busy,
            if names.is_empty() { "" } else { ": " },
            names.join(", ")
        )
    }
}

impl Sampler {
    const EVERY: std::time::Duration = std::time::Duration::from_millis(5);

    fn start() -> Option<Sampler> {
        std::fs::read_dir("/proc/self/task").ok()?;
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let seen = std::sync::Arc::new(std::sync::Mutex::new(Runnable::default()));
        let (s, n) = (stop.clone(), seen.clone());
        let thread = std::thread::Builder::new()
            .name("phases".into())
            .spawn(move || {
                // This thread's id: `/proc/thread-self` links to `<pid>/task/<tid>`.
                let me = std::fs::read_link("/proc/thread-self").ok().and_then(|l| l.file_name().map(|n| n.to_string_lossy().into_owned())).unwrap_or_default();
                let cores = std::thread::available_parallelism().map_or(1, |c| c.get() as u64);
                while !s.load(std::sync::atomic::Ordering::Relaxed) {
                    let running = Sampler::running(&me);
                    if let Ok(mut n) = n.lock() {
                        n.busy += u64::from(!running.is_empty());
                        n.cpu += (running.len() as u64).min(cores);
                        if let [one] = running.as_slice() {
                            n.one += 1;
                            *n.alone.entry(one.clone()).or_default() += 1;
                        }
                    }
                    std::thread::sleep(Sampler::EVERY);
                }
            })
            .ok()?;
        Some(Sampler { stop, seen, thread: Some(thread) })
    }

    /// The names of this process's threads in state `R`, `me` aside.
    fn running(me: &str) -> Vec<String> {
        let Ok(tasks) = std::fs::read_dir("/proc/self/task") else { return Vec::new() };
        let mut names = Vec::new();
        for t in tasks.flatten() {
            if t.file_name().to_str() == Some(me) {
                continue;
            }
            // `tid (name) S ...`: the state follows the name's closing parenthesis.
            let stat = std::fs::read_to_string(t.path().join("stat")).unwrap_or_default();
            if let Some((head, rest)) = stat.rsplit_once(") ") {
                if rest.starts_with('R') {
                    names.push(head.split_once(" (").map_or("?", |(_, n)| n).to_string());
                }
            }
        }
        names
    }

    fn seen(&self) -> Runnable {
        self.seen.lock().map(|r| r.clone()).unwrap_or_default()
    }
}

impl Drop for Sampler {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for Phases {
    fn drop(&mut self) {
        if let Some(s) = &self.sampler {
            eprintln!("phase (the whole stage){}", s.seen().said());
        }
    }
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
        let sampler = if on { Sampler::start() } else { None };
        Phases { on, start: std::time::Instant::now(), steps: Vec::new(), cpu_at: if on { cpu_time() } else { std::time::Duration::ZERO }, sampler, sampled_at: Runnable::default() }
    }

    pub fn mark(&mut self, name: &str) {
        if self.on {
            // The resident memory now, and the most it has been (the peak a step left behind).
            let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
            let field = |key: &str| status.lines().find_map(|l| l.strip_prefix(key).map(|v| v.trim().to_string())).unwrap_or_default();
            let (rss, peak) = (field("VmRSS:"), field("VmHWM:"));
            self.cpu_at = cpu_time();
            let sampled = self.sampler.as_ref().map(|s| s.seen()).unwrap_or_default();
            let serial = sampled.since(&self.sampled_at).said();
            self.sampled_at = sampled;
            eprintln!("phase {name}: {:.3} s, cpu {:.3} s, rss {rss}, peak {peak}{serial}", self.start.elapsed().as_secs_f64(), self.cpu_at.as_secs_f64());
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

/// `scope.spawn` with the thread named, so that `HINDSIGHT_PHASES` (and a debugger) can tell
/// it from the others. It panics where `scope.spawn` does: the system could not start a thread.
pub fn spawn_named<'scope, F, T>(scope: &'scope std::thread::Scope<'scope, '_>, name: &str, f: F) -> std::thread::ScopedJoinHandle<'scope, T>
where
    F: FnOnce() -> T + Send + 'scope,
    T: Send + 'scope,
{
    std::thread::Builder::new().name(name.into()).spawn_scoped(scope, f).expect("the system could not start a thread")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A thread busy on a core is found running, by its name.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_busy_thread_is_found_running_by_name() {
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let s = stop.clone();
        let spinner = std::thread::Builder::new()
            .name("spinner".into())
            .spawn(move || {
                while !s.load(std::sync::atomic::Ordering::Relaxed) {
                    std::hint::spin_loop();
                }
            })
            .unwrap();
        let me = std::fs::read_link("/proc/thread-self").unwrap().file_name().unwrap().to_string_lossy().into_owned();
        let seen = (0..2000).map(|_| Sampler::running(&me)).find(|names| names.iter().any(|n| n == "spinner"));
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        spinner.join().unwrap();
        assert!(seen.is_some(), "the spinning thread was never seen running");
    }

    /// The serial share is the samples with one thread running over the CPU sampled (each
    /// sample's running threads, at most one per core), and names who ran alone, most first.
    #[test]
    fn the_serial_share_is_one_threads_samples_over_the_cpu_sampled() {
        let mut r = Runnable { busy: 3, one: 2, cpu: 8, alone: Default::default() };
        r.alone.insert("spill".into(), 1);
        r.alone.insert("worker-0".into(), 1);
        r.alone.insert("cassette".into(), 3);
        let before = Runnable { busy: 1, one: 0, cpu: 4, alone: [("cassette".to_string(), 2)].into_iter().collect() };
        let said = r.since(&before).said();
        assert_eq!(said, ", serial 50.0% of cpu (one thread running in 2 of 2 samples: cassette 1, spill 1, worker-0 1)");
        assert_eq!(Runnable::default().said(), "");
    }
}
