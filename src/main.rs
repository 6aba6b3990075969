mod allocator;
mod cli;

use std::process::ExitCode;

use anyhow::Context;

use hindsight::commands::{self, Status};
use hindsight::report;

fn main() -> ExitCode {
    hindsight::memory::retain(hindsight::memory::Retention::Keep);
    // A panic on a query thread is the query's error, said once by the command as such;
    // anywhere else it is a crash and printed as one.
    let crash = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if std::thread::current().name() != Some(report::SQL_THREAD) {
            crash(info);
        }
    }));
    let config = match cli::parse().into_config() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("hindsight: {}", message(&anyhow::Error::from(e)));
            return ExitCode::from(2);
        }
    };
    let ran = worker_threads(config.threads).and_then(|()| Ok(commands::execute(config)?));
    match ran {
        Ok(Status::Success) => ExitCode::SUCCESS,
        Ok(Status::Failure) => ExitCode::from(1),
        Err(e) => {
            eprintln!("hindsight: {}", message(&e));
            ExitCode::from(2)
        }
    }
}

/// The worker threads every stage shares: `n`, or one a core.
fn worker_threads(n: Option<usize>) -> anyhow::Result<()> {
    // Named, so that `HINDSIGHT_PHASES` can tell a worker from the threads beside them.
    rayon::ThreadPoolBuilder::new().num_threads(n.unwrap_or(0)).thread_name(|i| format!("worker-{i}")).build_global().context("setting up worker threads")?;
    Ok(())
}

/// An error and its causes on one line, each said once.
fn message(e: &anyhow::Error) -> String {
    hindsight::text::error_message(e.as_ref())
}
