mod allocator;
mod cli;

use std::process::ExitCode;

use anyhow::Context;

use cli::{Config, Task};
use hindsight::demo::DemoStudy;
use hindsight::pipeline::{self, Converted};
use hindsight::progress::Progress;
use hindsight::text::printable;
use hindsight::{output, report};

fn main() -> ExitCode {
    allocator::keep_freed_memory();
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
    match execute(config) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("hindsight: {}", message(&e));
            ExitCode::from(2)
        }
    }
}

/// An error and its causes on one line, each said once.
fn message(e: &anyhow::Error) -> String {
    hindsight::text::error_message(e.as_ref())
}

fn execute(config: Config) -> anyhow::Result<u8> {
    if let Some(n) = config.threads {
        rayon::ThreadPoolBuilder::new().num_threads(n).build_global().context("setting up worker threads")?;
    }
    let progress = Progress::new(config.quiet);
    // What an interrupt leaves behind is said, for every command that writes a dataset.
    if let Some(out) = config.task.writes() {
        hindsight::interrupt::on_interrupt(hindsight::interrupt::message(out));
    }
    match config.task {
        Task::Run { study, out, windows, policy, risk_policy, format } => {
            // The demo's files live as long as `_demo`; they are removed when it drops.
            let (study, _demo) = match study {
                Some(s) => (s, None),
                None => {
                    let d = DemoStudy::extract()?;
                    (d.study.clone(), Some(d))
                }
            };
            let c = pipeline::run(&study, &out, &windows, &policy, &risk_policy, &progress)?;
            summarize(&c, &out, config.quiet, _demo.is_some());
            output::print(&report::dashboard(&out, format)?)?;
        }
        Task::Convert { study, out } => {
            let c = pipeline::convert(&study, &out, &progress)?;
            summarize(&c, &out, config.quiet, false);
        }
        Task::Evaluate { dataset, windows, policy, risk_policy } => {
            let n = pipeline::evaluate(&dataset, &windows, &policy, &risk_policy, &progress)?;
            if !config.quiet {
                eprintln!("evaluated: {n} outcomes -> {}", dataset.join("outcomes.parquet").display());
            }
        }
        Task::Report { dataset, figures: Some(dir), limits, .. } => {
            let written = report::write_figures(&dataset, &dir, limits)?;
            output::print(&written.iter().map(|p| format!("{}\n", p.display())).collect::<String>())?;
        }
        Task::Report { dataset, figures: None, sql, display, limits } => match sql {
            None => output::print(&report::dashboard_with(&dataset, display.format, limits)?)?,
            Some(sql) => {
                report::Session::open_with(&dataset, limits)?.print(&sql, display)?;
            }
        },
        Task::Sql { dataset, source, display, limits } => {
            let session = report::Session::open_with(&dataset, limits)?;
            report::shell::run(&session, source, display)?;
        }
        Task::Views { dataset, dialect, absolute } => output::print(&report::views::statements(&dataset, dialect, absolute)?)?,
        Task::Describe { table, dataset, markdown, format } => {
            use hindsight::dataset::dictionary;
            match (table, dataset) {
                _ if markdown => output::print(&dictionary::markdown())?,
                (Some(t), Some(ds)) => {
                    let session = report::Session::open_with(&ds, report::Limits::default())?;
                    output::print(&report::format::render(&session.describe(&t)?, format)?)?;
                }
                (t, _) => match dictionary::text(t.as_deref()) {
                    Some(text) => output::print(&text)?,
                    None => anyhow::bail!("no table `{}` in the data dictionary (`hindsight describe` lists them)", t.unwrap_or_default()),
                },
            }
        }
        Task::Completions { shell } => output::print(&cli::completions(shell))?,
        Task::Man { dir: None } => output::print(&cli::man_page().context("writing the manual page")?)?,
        Task::Man { dir: Some(dir) } => cli::man_pages(&dir).with_context(|| format!("writing manual pages into {}", dir.display()))?,
        Task::Rules { json } => output::print(&hindsight::evaluate::catalogue::render(json))?,
        Task::Policy { policy } => output::print(&(serde_json::to_string_pretty(&policy.to_json())? + "\n"))?,
        Task::Check { dataset, expected, precision } => {
            let text = std::fs::read_to_string(&expected).with_context(|| format!("reading {}", expected.display()))?;
            let want = report::check::Expected::parse(&text).with_context(|| expected.display().to_string())?;
            let have = report::figures(&dataset, &want.names(), report::Limits::default())?;
            let diffs = report::check::compare(&want, &have, precision);
            let how = if precision.exact { "exactly" } else { "at their printed precision" };
            if diffs.is_empty() {
                output::print(&format!("check: every expected figure matches ({how}, tolerance {})\n", precision.tolerance))?;
                return Ok(0);
            }
            output::print(&format!("check: {} figure(s) differ from {} ({how})\n", diffs.len(), expected.display()))?;
            output::print(&report::check::table(&diffs))?;
            return Ok(1);
        }
        Task::Plan { runs, snapshot } => {
            let plan = hindsight::capture::plan(&runs, snapshot.as_deref())?;
            output::print(&hindsight::capture::render_plan(&plan))?;
        }
        Task::Capture { options } => {
            let token = hindsight::capture::token();
            if token.is_none() {
                progress.note("no token (GITHUB_TOKEN, GH_TOKEN or `gh auth token`): unauthenticated requests, 60 an hour");
            }
            let c = hindsight::capture::capture(&options, token, &progress)?;
            if !config.quiet {
                eprintln!(
                    "capture: {} requests in {} rounds; {} paths fetched ({} failed), {} unchanged, {} kept from an earlier run -> {}",
                    c.requests,
                    c.rounds,
                    c.fetched,
                    c.failed.len(),
                    c.unchanged,
                    c.resumed,
                    options.out.display()
                );
                for (p, s) in c.failed.iter().take(20) {
                    eprintln!("  failed {} ({s}): recorded as a failed capture; a re-run asks again", printable(p));
                }
                for p in c.not_captured.iter().take(20) {
                    eprintln!(
                        "  not captured {}: no request for it (a comment whose REST capture has no node_id, or a path outside repositories)",
                        printable(p)
                    );
                }
            }
            // What succeeded is written; the run still fails, so that a script does not take
            // a snapshot with holes for a whole one.
            if !c.failed.is_empty() {
                let some: Vec<String> = c.failed.iter().take(5).map(|(p, s)| format!("{} ({s})", printable(p))).collect();
                let more = if c.failed.len() > 5 { format!(" and {} more", c.failed.len() - 5) } else { String::new() };
                eprintln!(
                    "hindsight: capture: {} of {} paths fetched failed: {}{more}; the others are written to {}; run capture again to ask for the failed ones",
                    c.failed.len(),
                    c.fetched,
                    some.join(", "),
                    options.out.display()
                );
                return Ok(1);
            }
        }
        Task::ImportAidev { dir, out, windows, policy, risk_policy, captured_at } => {
            let i = pipeline::import_aidev(&dir, &out, &windows, &policy, &risk_policy, captured_at, &progress)?;
            if !config.quiet {
                summarize_import(&i, &out);
            }
        }
        Task::Synth { spec, out } => {
            let w = hindsight::synth::generate(&spec, &out)?;
            if !config.quiet {
                eprintln!(
                    "synth: {} outputs in {} runs, {} responses, {} traces, {} bytes -> {}",
                    w.outputs,
                    w.runs,
                    w.responses,
                    w.traces,
                    w.bytes,
                    out.display()
                );
            }
        }
        Task::Attach { dataset, out, options } => {
            let a = pipeline::attach(&dataset, out.as_deref(), &options, &progress)?;
            if !config.quiet {
                eprintln!("attached: {} traces, {} linked -> {}", a.traces, a.linked, a.out.display());
            }
        }
        Task::Gate { results, policy, format, dataset } => {
            let report = hindsight::gate::run(&results, &policy)?;
            if let Some(ds) = &dataset {
                pipeline::gate_into(ds, &report, &progress)?;
            }
            if !config.quiet {
                let c = &report.compliance;
                eprintln!(
                    "gate: {} records read = {} evaluated + {} quarantined; {} commit(s) performed",
                    c.records_read, c.evaluated, c.quarantined, c.commits_performed
                );
            }
            output::print(&report.render(format)?)?;
        }
        Task::Verify { dataset, study } => {
            let inputs = study.as_ref().map(|s| (s.snapshot.as_path(), s.runs.as_path(), s.traces.as_slice(), s.tasks.as_deref()));
            let drift = hindsight::dataset::verify::verify(&dataset, inputs)?;
            if drift.is_empty() {
                output::print("verify: every file matches manifest.json\n")?;
                return Ok(0);
            }
            output::print(&format!("verify: {} difference(s) from manifest.json\n", drift.len()))?;
            for d in &drift {
                output::print(&format!("  {}\n", printable(&d.to_string())))?;
            }
            return Ok(1);
        }
    }
    Ok(0)
}

/// What convert read, used and quarantined, on stderr.
fn summarize(c: &Converted, out: &std::path::Path, quiet: bool, demo: bool) {
    if quiet {
        return;
    }
    if demo {
        eprintln!("no --snapshot/--runs given: running the bundled demo study");
    }
    for (input, r) in &c.records {
        if r.superseded > 0 {
            eprintln!(
                "{input:>9}: {} records read = {} used + {} quarantined + {} superseded by a later capture",
                r.input, r.used, r.quarantined, r.superseded
            );
        } else {
            eprintln!("{input:>9}: {} records read = {} used + {} quarantined", r.input, r.used, r.quarantined);
        }
    }
    for q in c.quarantined.iter().take(20) {
        eprintln!("  quarantined {}", printable(&q.describe()));
    }
    if c.quarantined.len() > 20 {
        eprintln!("  ... and {} more (see quarantine.parquet)", c.quarantined.len() - 20);
    }
    for f in c.skipped.iter().take(10) {
        eprintln!("  skipped {}/{}: {}", f.input, printable(&f.path), f.reason);
    }
    if c.skipped.len() > 10 {
        eprintln!("  ... and {} more files not read (listed in manifest.json, `skipped`)", c.skipped.len() - 10);
    }
    for e in &c.empty_runs {
        eprintln!("  run {}: {}", printable(&e.dir), printable(&e.reason));
    }
    for (ty, n) in &c.types_without_rule {
        eprintln!("  no rule for type `{}` ({n} output(s)): evaluated as unknown, never accepted", printable(ty));
    }
    eprintln!("{:>9}: {} safe outputs, {} responses -> {}", "dataset", c.safe_outputs, c.responses, out.display());
}

/// What `import aidev` read, used, quarantined and left aside, on stderr.
fn summarize_import(i: &pipeline::Imported, out: &std::path::Path) {
    for (file, (used, quarantined)) in &i.files {
        eprintln!("{file:>40}: {} records = {used} used + {quarantined} quarantined", used + quarantined);
    }
    if !i.absent.is_empty() {
        eprintln!("  absent (not in this copy of the layout; queries over them have nothing for that group): {}", printable(&i.absent.join(", ")));
    }
    for (file, cols) in &i.extra_columns {
        eprintln!("  {file}: columns not imported: {}", printable(&cols.join(", ")));
    }
    for q in i.quarantined.iter().take(20) {
        eprintln!("  quarantined {}", printable(&q.describe()));
    }
    if i.quarantined.len() > 20 {
        eprintln!("  ... and {} more (see quarantine.parquet)", i.quarantined.len() - 20);
    }
    for f in i.skipped.iter().take(10) {
        eprintln!("  skipped {}: {}", printable(&f.path), f.reason);
    }
    if i.duplicate_prs + i.duplicate_events + i.orphan_rows + i.without_repo > 0 {
        eprintln!(
            "  kept as read: {} repeated PR rows, {} repeated timeline rows, {} review/comment/commit/timeline rows of PRs not in prs.csv, {} PRs with no readable repository",
            i.duplicate_prs, i.duplicate_events, i.orphan_rows, i.without_repo
        );
    }
    eprintln!("  captured_at {} ({})", i.captured_at, i.captured_at_basis);
    eprintln!(
        "{:>40}: {} records read = {} used + {} quarantined; {} agent PRs as safe outputs, {} rebuilt captures, {} outcomes -> {}",
        "aidev",
        i.records.input,
        i.records.used,
        i.records.quarantined,
        i.safe_outputs,
        i.captures,
        i.outcomes,
        out.display()
    );
}
