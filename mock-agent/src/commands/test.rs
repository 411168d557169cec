//! `mock-agent test` and `mock-agent fuzz`: a consumer against the matrix, or against
//! generated cases.

use std::path::Path;

use harness::exit_codes;
use harness::frames::Exit;

use super::TestArgs;

/// The signal that interrupted the run, by number; 0 for none.
static INTERRUPTED: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(0);

/// SIGINT and SIGTERM end the run, and the consumers running then with it.
fn on_interrupt_kill_consumers() {
    crate::process::on_term_or_int(|signal| {
        // Before `interrupt`: a worker that finds the run interrupted finds this too.
        INTERRUPTED.store(signal.number(), std::sync::atomic::Ordering::SeqCst);
        harness::run::interrupt();
        eprintln!("mock-agent: interrupted: the running consumers were killed");
        crate::process::terminate(Exit::Signal(signal));
    });
}

/// The signal that interrupted the run, if one did, once the interrupt is handled
/// (the consumers killed, the case directories removed: `interrupt` waits for the
/// handler's call to finish). The run then ends by the signal, whichever thread
/// gets there first (the one that caught it, or the main thread, whose cases
/// ended), and whatever the cases gave: no snapshot, report or summary of a run cut
/// short.
fn interrupted_by() -> Option<harness::frames::Signal> {
    let signal = harness::frames::Signal::from_number(INTERRUPTED.load(std::sync::atomic::Ordering::SeqCst))?;
    harness::run::interrupt();
    Some(signal)
}

/// `mock-agent test`: the matrix against a consumer.
pub(super) fn test(args: TestArgs) -> Exit {
    use harness::run::{self, report, snapshot, Consumer, Matrix, Properties, Summary};
    let policy = match snapshot::Policy::from_env() {
        Ok(policy) if args.accept => policy.accepting(),
        Ok(policy) => policy,
        Err(e) => {
            eprintln!("mock-agent: {e}");
            return Exit::Code(exit_codes::USAGE);
        }
    };
    on_interrupt_kill_consumers();
    let Ok(mock) = std::env::current_exe() else {
        eprintln!("mock-agent: cannot find its own binary to serve as the agent");
        return Exit::Code(exit_codes::INTERNAL);
    };
    if !(args.timeout.is_finite() && args.timeout > 0.0) {
        eprintln!(
            "mock-agent: --timeout {}: give seconds, more than 0",
            args.timeout
        );
        return Exit::Code(exit_codes::USAGE);
    }
    let mut cassettes = Vec::new();
    for path in &args.cassettes {
        if path.is_dir() {
            match Matrix::cassettes_in(path) {
                Ok(found) => cassettes.extend(found),
                Err(e) => {
                    eprintln!("mock-agent: {}: cannot list the cassettes: {e}", path.display());
                    return Exit::Code(exit_codes::NO_INPUT);
                }
            }
        } else {
            cassettes.push(path.clone());
        }
    }
    let matrix = if args.acp {
        Matrix::acp(cassettes)
    } else {
        Matrix::standard(cassettes)
    };
    let mut matrix = matrix.generated(args.generated);
    matrix.default_session = !args.no_default;
    if !args.formats.is_empty() {
        matrix.formats = args.formats.clone();
    }
    matrix.filter = args.filter.clone();
    if !args.faults.is_empty() {
        if let Err(e) = check_faults(&args.faults, args.acp) {
            eprintln!("mock-agent: {e}");
            return Exit::Code(exit_codes::USAGE);
        }
        matrix.faults = vec![("given".to_owned(), args.faults.join(";"))];
    }
    let with_format = args.consumer.contains("{format}");
    let cases = match matrix.cases(with_format) {
        Ok(cases) => cases,
        Err(e) => {
            eprintln!("mock-agent: {e}");
            return Exit::Code(e.exit_code());
        }
    };
    let Ok(timeout) = std::time::Duration::try_from_secs_f64(args.timeout) else {
        eprintln!("mock-agent: --timeout {}: too long; give seconds", args.timeout);
        return Exit::Code(exit_codes::USAGE);
    };
    let mut consumer = Consumer::new(args.consumer.clone()).timeout(timeout);
    if let Some(name) = &args.mock_env {
        consumer = consumer.mock_env(name.clone());
    }
    let mut properties = Properties::new();
    for name in &args.off {
        if !run::properties::BUILT_IN.contains(&name.as_str()) {
            eprintln!(
                "mock-agent: --off {name}: no such property; the properties are {}",
                run::properties::BUILT_IN.join(", ")
            );
            return Exit::Code(exit_codes::USAGE);
        }
        properties = properties.without(name);
    }
    if cases.is_empty() {
        eprintln!(
            "mock-agent: no case to run{}\nhelp: `--filter` keeps the cases whose name contains it, e.g. `default/eof`",
            args.filter.as_deref().map(|f| format!(" (--filter {f} matches none)")).unwrap_or_default()
        );
        return Exit::Code(exit_codes::USAGE);
    }
    eprintln!("running {} cases, {} at a time", cases.len(), args.jobs.max(1));
    let done = std::sync::atomic::AtomicUsize::new(0);
    let total = cases.len();
    let results = run::run_all(&consumer, &cases, &mock, &properties, args.jobs, |result| {
        let n = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        let mark = if result.passed() { "ok  " } else { "FAIL" };
        eprintln!("[{n:>4}/{total}] {mark} {}", result.case.name);
    });
    if let Some(signal) = interrupted_by() {
        return Exit::Signal(signal);
    }
    let results = match results {
        Ok(results) => results,
        Err(e) => {
            eprintln!("mock-agent: {e}");
            return Exit::Code(exit_codes::USAGE);
        }
    };
    let checked = match &args.snapshots {
        None => Vec::new(),
        Some(dir) => match run::check_snapshots(&results, dir, &policy) {
            Ok(checked) => checked,
            Err(e) => {
                eprintln!("mock-agent: {}: cannot write the snapshot: {e}", dir.display());
                return Exit::Code(exit_codes::CANNOT_CREATE);
            }
        },
    };
    let summary = Summary::new(&results, &checked);
    println!("{summary}");
    if let Some(path) = &args.junit {
        let differing: Vec<String> = summary.failing_snapshots().map(|c| c.case.clone()).collect();
        if let Err(e) = std::fs::write(path, report::junit(&results, &differing)) {
            eprintln!(
                "mock-agent: {}: cannot write the JUnit report: {e}",
                path.display()
            );
            return Exit::Code(exit_codes::CANNOT_CREATE);
        }
    }
    Exit::Code(if summary.passed() {
        exit_codes::OK
    } else {
        exit_codes::AGENT_ERROR
    })
}

/// Checks `--fault` specs in the grammar of the mode (print or server).
fn check_faults(specs: &[String], acp: bool) -> Result<(), harness::Diagnostic> {
    use harness::error::Origin;
    const PRINT: Origin<'static> = Origin {
        name: "--fault",
        help: "`mock-agent faults` lists every fault with an example",
    };
    const ACP: Origin<'static> = Origin {
        name: "--fault",
        help:
            "`mock-agent faults` lists every fault (server mode's after the print-mode ones) with an example",
    };
    for spec in specs {
        if acp {
            harness::acp::faults::parse(spec, ACP)?;
        } else {
            harness::faults::parse(spec, PRINT)?;
        }
    }
    Ok(())
}

/// `mock-agent fuzz`, of a print-mode consumer or (`acp`) an ACP client.
pub(super) fn fuzz(command: &str, acp: bool, cases: u32, seed: u64, timeout: f64, out: &Path) -> Exit {
    use harness::run::{fuzz, Consumer, Properties};
    on_interrupt_kill_consumers();
    let Ok(mock) = std::env::current_exe() else {
        eprintln!("mock-agent: cannot find its own binary to serve as the agent");
        return Exit::Code(exit_codes::INTERNAL);
    };
    if !(timeout.is_finite() && timeout > 0.0) {
        eprintln!("mock-agent: --timeout {timeout}: give seconds, more than 0");
        return Exit::Code(exit_codes::USAGE);
    }
    let Ok(timeout) = std::time::Duration::try_from_secs_f64(timeout) else {
        eprintln!("mock-agent: --timeout {timeout}: too long; give seconds");
        return Exit::Code(exit_codes::USAGE);
    };
    let consumer = Consumer::new(command).timeout(timeout);
    let what = if acp { "ACP client" } else { "consumer" };
    eprintln!("fuzzing the {what} `{command}` with {cases} cases from seed {seed}");
    let properties = Properties::new();
    let found = if acp {
        fuzz::fuzz_acp(&consumer, cases, seed, &mock, &properties, out)
    } else {
        fuzz::fuzz(&consumer, cases, seed, &mock, &properties, out)
    };
    if let Some(signal) = interrupted_by() {
        return Exit::Signal(signal);
    }
    match found {
        Ok(report) => {
            let rate = report.runs as f64 / report.seconds.max(1e-9);
            match report.failure {
                None => {
                    println!(
                        "{} cases passed in {:.1} s ({rate:.1} cases/s)",
                        report.runs, report.seconds
                    );
                    Exit::Code(exit_codes::OK)
                }
                Some(failure) => {
                    let unit = if acp { "messages" } else { "lines" };
                    println!(
                        "a case failed; shrunk to {} {unit} ({} runs, {:.1} s):",
                        failure.lines, report.runs, report.seconds
                    );
                    for broken in &failure.broken {
                        println!("  {broken}");
                    }
                    println!("the minimal case: {}", failure.cassette.display());
                    if !failure.faults.is_empty() {
                        println!("with the faults: {}", failure.faults);
                    }
                    println!("replay it: {}", failure.replay_command(command));
                    Exit::Code(exit_codes::AGENT_ERROR)
                }
            }
        }
        Err(e) => {
            eprintln!("mock-agent: {e}");
            Exit::Code(exit_codes::USAGE)
        }
    }
}
