//! `mock-agent test` and `mock-agent fuzz`: a consumer against the matrix, or against
//! generated cases.

use std::io::IsTerminal as _;
use std::path::Path;
use std::sync::atomic::{AtomicI32, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use harness::exit_codes;
use harness::frames::{Exit, Signal};
use harness::run::Cancel;

use super::{Error, FuzzArgs, Judge, TestArgs};

/// How a case ended, as its progress line marks it.
#[derive(Debug, Clone, Copy)]
enum Mark {
    Passed,
    Failed,
    /// The mock was not part of it.
    NotRun,
    /// No fault of it acted for this consumer.
    NotApplicable,
}

/// The process's interrupt: the handle that stops the run, and the signal that
/// interrupted it. Made by the command, owned by it and the signal handler.
struct Interrupt {
    cancel: Cancel,
    /// The signal, by number; 0 for none.
    signal: Arc<AtomicI32>,
}

impl Interrupt {
    /// SIGINT and SIGTERM end the run from now on, and the consumers running then
    /// with it: the handler kills them, removes their case directories and ends the
    /// process by the signal.
    fn on_term_or_int() -> Self {
        let interrupt = Interrupt {
            cancel: Cancel::new(),
            signal: Arc::new(AtomicI32::new(0)),
        };
        let (cancel, signal) = (interrupt.cancel.clone(), interrupt.signal.clone());
        crate::process::on_term_or_int(move |caught| {
            // Before `interrupt`: a worker that finds the run interrupted finds this too.
            signal.store(caught.number(), Ordering::SeqCst);
            cancel.interrupt();
            eprintln!("mock-agent: interrupted: the running consumers were killed");
            crate::process::terminate(Exit::Signal(caught));
        });
        interrupt
    }

    /// The signal that interrupted the run, if one did, once the interrupt is handled
    /// (the consumers killed, the case directories removed: `interrupt` waits for the
    /// handler's call to finish). The run then ends by the signal, whichever thread
    /// gets there first (the one that caught it, or the main thread, whose cases
    /// ended), and whatever the cases gave: no snapshot, report or summary of a run
    /// cut short.
    fn signal(&self) -> Option<Signal> {
        let signal = Signal::from_number(self.signal.load(Ordering::SeqCst))?;
        self.cancel.interrupt();
        Some(signal)
    }
}

impl Judge {
    /// The properties checked: the built-in ones but those switched off, and the
    /// user's way of reporting a failure when one is given.
    pub(super) fn properties(&self) -> Result<harness::run::Properties, Error> {
        use harness::run::{Properties, Status};
        let properties = self.off.iter().fold(Properties::new(), |p, off| p.without(*off));
        let regex = |flag: &str, pattern: &Option<String>| -> Result<Option<regex::bytes::Regex>, Error> {
            pattern
                .as_deref()
                .map(|pattern| {
                    regex::bytes::RegexBuilder::new(pattern)
                        .multi_line(true)
                        .build()
                        .map_err(|e| {
                            Error::Usage(format!(
                                "{flag} {pattern}: not a regular expression: {e}\nhelp: the syntax is the regex crate's, e.g. `^ERROR:`"
                            ))
                        })
                })
                .transpose()
        };
        let stdout = regex("--failure-when-stdout", &self.failure_when_stdout)?;
        let stderr = regex("--failure-when-stderr", &self.failure_when_stderr)?;
        let codes = self.failure_when_exit.clone();
        if stdout.is_none() && stderr.is_none() && codes.is_empty() {
            return Ok(properties);
        }
        Ok(properties.failure_when(move |outcome| {
            stdout.as_ref().is_some_and(|r| r.is_match(&outcome.stdout))
                || stderr.as_ref().is_some_and(|r| r.is_match(&outcome.stderr))
                || matches!(outcome.status, Status::Exited(code) if codes.contains(&code))
        }))
    }
}

/// `--timeout`, checked: seconds, more than 0.
fn timeout(seconds: f64) -> Result<Duration, Error> {
    if !(seconds.is_finite() && seconds > 0.0) {
        return Err(Error::Usage(format!(
            "--timeout {seconds}: give seconds, more than 0"
        )));
    }
    Duration::try_from_secs_f64(seconds)
        .map_err(|_| Error::Usage(format!("--timeout {seconds}: too long; give seconds")))
}

/// The mock's own binary, to serve as the agent.
fn own_binary() -> Result<harness::run::MockBinary, Error> {
    std::env::current_exe()
        .map(harness::run::MockBinary::new)
        .map_err(Error::OwnBinary)
}

/// How a long run shows its progress on stderr: a bar (indicatif) when stderr is a
/// terminal, the failures printed above it; else a line a case, `[   3/41] ok   NAME`.
#[derive(Clone)]
enum Progress {
    Bar {
        bar: indicatif::ProgressBar,
        failed: Arc<AtomicUsize>,
    },
    Lines,
}

impl Progress {
    /// The progress of `total` cases.
    fn new(total: usize) -> Self {
        if !std::io::stderr().is_terminal() {
            return Progress::Lines;
        }
        let bar = indicatif::ProgressBar::new(total as u64);
        let style = indicatif::ProgressStyle::with_template(
            "{elapsed_precise} [{bar:32.cyan/blue}] {pos}/{len} {msg}",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
        .progress_chars("=> ");
        bar.set_style(style);
        Progress::Bar {
            bar,
            failed: Arc::new(AtomicUsize::new(0)),
        }
    }

    /// Case `done` of `total` ran, with this result: `name`, when it has one (fuzz
    /// cases have none).
    fn case(&self, done: usize, total: usize, result: Mark, name: &str) {
        let passed = matches!(result, Mark::Passed | Mark::NotApplicable);
        let not_run = matches!(result, Mark::NotRun);
        match self {
            Progress::Lines => {
                let mark = match result {
                    Mark::NotRun => "SKIP",
                    Mark::Passed => "ok  ",
                    Mark::NotApplicable => "n/a ",
                    Mark::Failed => "FAIL",
                };
                if name.is_empty() {
                    eprintln!("[{done:>4}/{total}] {mark}");
                } else {
                    eprintln!("[{done:>4}/{total}] {mark} {name}");
                }
            }
            Progress::Bar { bar, failed } => {
                let failed = if passed {
                    failed.load(Ordering::Relaxed)
                } else {
                    if !name.is_empty() {
                        let mark = if not_run { "NOT RUN" } else { "FAIL" };
                        bar.println(format!("{mark} {name}"));
                    }
                    failed.fetch_add(1, Ordering::Relaxed) + 1
                };
                bar.set_message(format!("{failed} failed  {name}"));
                bar.set_position(done as u64);
            }
        }
    }

    /// A line of its own, above the bar when there is one.
    fn say(&self, line: String) {
        match self {
            Progress::Lines => eprintln!("{line}"),
            Progress::Bar { bar, .. } => bar.set_message(line),
        }
    }

    /// The run is over: the bar goes.
    fn finish(&self) {
        if let Progress::Bar { bar, .. } = self {
            bar.finish_and_clear();
        }
    }
}

/// Writes the HTML report of `results` to `path`.
fn write_report(path: &Path, report: harness::run::html::Report<'_>) -> Result<(), Error> {
    std::fs::write(path, report.render()).map_err(|source| Error::CannotWrite {
        path: path.to_owned(),
        what: "HTML report",
        source,
    })
}

/// Makes the folder `path` is to be written in, if it is missing.
fn make_parent(path: &std::path::Path) -> Result<(), Error> {
    match path.parent().filter(|p| !p.as_os_str().is_empty()) {
        Some(dir) => std::fs::create_dir_all(dir).map_err(|source| Error::CannotWrite {
            path: dir.to_owned(),
            what: "folder",
            source,
        }),
        None => Ok(()),
    }
}

/// `mock-agent test`: the matrix against a consumer.
/// `--format` is the format the consumer asks the agent for, given to it as `{format}`
/// in its command. A consumer without `{format}` asks for its own (`--output-format
/// stream-json` on its command line), and the mock, as the real CLI, writes what it
/// is asked for: the flag could change nothing but the case's name, so it is refused
/// rather than ignored. So are several formats for a dialect whose cases do not come
/// in formats (only the first would run).
fn formats_taken(
    formats: &[harness::format::OutputFormat],
    command: &str,
    dialect: &dyn harness::run::Dialect,
) -> Result<(), Error> {
    let given = || {
        formats
            .iter()
            .map(|f| format!("--format {f}"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    if !formats.is_empty() && !command.contains("{format}") {
        return Err(Error::Usage(format!(
            "{}: the consumer's command has no `{{format}}`, so it asks the agent for its own output format and the mock writes that one; the flag would change nothing\nhelp: put `{{format}}` where the program takes the format (e.g. `--consumer 'python3 bot.py --output-format {{format}}'`), or drop --format",
            given()
        )));
    }
    if formats.len() > 1 && !dialect.takes_format() {
        return Err(Error::Usage(format!(
            "{}: the cases of --dialect {} do not come in formats, so only the first would run\nhelp: give one --format, or run `mock-agent test` once per format",
            given(),
            dialect.name()
        )));
    }
    Ok(())
}

pub(super) fn test(args: TestArgs) -> Result<Exit, Error> {
    use harness::run::{self, report, snapshot, Consumer, Runner, Summary};
    let policy = snapshot::Policy::from_env().map_err(Error::Usage)?;
    let policy = if args.accept { policy.accepting() } else { policy };
    let interrupt = Interrupt::on_term_or_int();
    let mock = own_binary()?;
    let timeout = timeout(args.timeout)?;
    let matrix = args.matrix.matrix()?;
    let command = super::consumer_command(&args.consumer, &args.command);
    // Where the reports go exists before the run, not found missing after it.
    for path in [&args.junit, &args.report].into_iter().flatten() {
        make_parent(path)?;
    }
    formats_taken(&args.matrix.formats, &command, matrix.dialect)?;
    let cases = matrix.cases(command.contains("{format}"))?;
    let consumer = args.run.consumer(Consumer::new(command.clone()).timeout(timeout));
    let properties = args.run.judge.properties()?;
    if cases.is_empty() {
        return Err(Error::Usage(format!(
            "no case to run{}\nhelp: `--filter` keeps the cases whose name contains it, e.g. `default/eof`",
            if args.matrix.filters.is_empty() {
                String::new()
            } else {
                format!(
                    " (--filter {} matches none)",
                    args.matrix.filters.join(", --filter ")
                )
            }
        )));
    }
    let repeat = args.repeat as usize;
    // Each case's runs one after another (see `summary::repeated`).
    let cases: Vec<_> = cases
        .iter()
        .flat_map(|case| std::iter::repeat_n(case, repeat))
        .cloned()
        .collect();
    let times = if repeat > 1 {
        format!(" ({repeat} runs each)")
    } else {
        String::new()
    };
    eprintln!(
        "running {}{times}, {} at a time",
        harness::run::cases_counted(cases.len() / repeat),
        // No more at once than there are runs.
        args.jobs.max(1).min(cases.len().max(1))
    );
    let done = AtomicUsize::new(0);
    let total = cases.len();
    let runner = Runner::new(&consumer, &mock)
        .properties(properties)
        .jobs(args.jobs)
        .cancel(&interrupt.cancel);
    let progress = Progress::new(total);
    let results = runner.run_all(&cases, |result| {
        let n = done.fetch_add(1, Ordering::Relaxed) + 1;
        let mark = if result.not_run.is_some() {
            Mark::NotRun
        } else if result.failed() {
            Mark::Failed
        } else if result.not_applicable.is_some() {
            Mark::NotApplicable
        } else {
            Mark::Passed
        };
        progress.case(n, total, mark, &result.case.name);
    });
    progress.finish();
    if let Some(signal) = interrupt.signal() {
        return Ok(Exit::Signal(signal));
    }
    let (results, flaky) = run::summary::repeated(results?, repeat);
    let checked = match &args.snapshots {
        None => Vec::new(),
        Some(dir) => run::check_snapshots(&results, dir, &policy).map_err(|source| Error::CannotWrite {
            path: dir.clone(),
            what: "snapshot",
            source,
        })?,
    };
    let summary = Summary::new(&results, &checked).flaky(&flaky);
    println!("{summary}");
    if let Some(path) = &args.junit {
        let differing: Vec<String> = summary.failing_snapshots().map(|c| c.case.clone()).collect();
        std::fs::write(path, report::junit(&results, &differing)).map_err(|source| Error::CannotWrite {
            path: path.clone(),
            what: "JUnit report",
            source,
        })?;
    }
    if let Some(path) = &args.report {
        // The command that runs it again.
        let title = format!(
            "mock-agent test --dialect {} --consumer {}",
            matrix.dialect.name(),
            super::shell_quoted(&command)
        );
        let mut page = run::html::Report::new(&results).flaky(&flaky).title(&title);
        if let Some(dir) = &args.snapshots {
            page = page.snapshots(&checked, dir);
        }
        write_report(path, page)?;
    }
    // A case not run (the mock was not part of it) wins over failures: see
    // `exit_codes::CASES_NOT_RUN`.
    Ok(Exit::Code(summary.exit_code()))
}

/// `mock-agent fuzz`, of a print-mode consumer or (`acp`) an ACP client.
pub(super) fn fuzz(args: &FuzzArgs) -> Result<Exit, Error> {
    use harness::run::fuzz::{self, Fuzz};
    use harness::run::{Consumer, Runner};
    let interrupt = Interrupt::on_term_or_int();
    let mock = own_binary()?;
    let command = super::consumer_command(&args.consumer, &args.command);
    let command = command.as_str();
    let dialect = crate::dialects::chosen(args.acp, args.dialect);
    let consumer = args
        .run
        .consumer(Consumer::new(command).timeout(timeout(args.timeout)?));
    let shrink_time = timeout(args.shrink_time).map_err(|_| {
        Error::Usage(format!(
            "--shrink-time {}: give seconds, more than 0",
            args.shrink_time
        ))
    })?;
    let progress = Progress::new(args.cases as usize);
    let shown = progress.clone();
    let fuzz = Fuzz::new(args.seed)
        .cases(args.cases)
        .out(args.out.clone())
        .keep_going(args.keep_going)
        .shrink_time(shrink_time)
        .on_progress(move |event| match event {
            fuzz::Progress::Case {
                done,
                total,
                failed,
                not_run,
            } => {
                let mark = match (*not_run, *failed) {
                    (true, _) => Mark::NotRun,
                    (false, true) => Mark::Failed,
                    (false, false) => Mark::Passed,
                };
                shown.case(*done as usize, *total as usize, mark, "");
            }
            fuzz::Progress::Shrink {
                step,
                smaller,
                seconds,
            } => {
                shown.say(format!(
                    "shrinking: step {step}, {smaller} smaller failing cases, {seconds:.1} s"
                ));
            }
            _ => {}
        });
    let what = dialect.consumer_noun();
    eprintln!(
        "fuzzing the {what} `{command}` with {fuzz}, {} at a time",
        args.jobs.max(1)
    );
    let runner = Runner::new(&consumer, &mock)
        .properties(args.run.judge.properties()?)
        .jobs(args.jobs)
        .cancel(&interrupt.cancel);
    let found = fuzz.run(dialect, &runner);
    progress.finish();
    if let Some(signal) = interrupt.signal() {
        return Ok(Exit::Signal(signal));
    }
    let report = found?;
    if let Some(path) = &args.report {
        let results = fuzz_results(&runner, &report.failures)?;
        let title = format!(
            "mock-agent fuzz --consumer {command}: {} runs, {} failures (each minimal case, run again)",
            report.runs,
            report.failures.len()
        );
        write_report(path, harness::run::html::Report::new(&results).title(&title))?;
    }
    let rate = report.runs as f64 / report.seconds.max(1e-9);
    if report.failures.is_empty() {
        println!(
            "{} cases passed in {:.1} s ({rate:.1} cases/s)",
            report.runs, report.seconds
        );
        return Ok(Exit::Code(exit_codes::OK));
    }
    let unit = if dialect.is_conversation() {
        "messages"
    } else {
        "lines"
    };
    let found = match report.failures.len() {
        1 => "a failure".to_owned(),
        n => format!("{n} distinct failures"),
    };
    println!(
        "{found} ({} of {} cases failed; {} runs with shrinking, {:.1} s):",
        report.failed, report.cases, report.runs, report.seconds
    );
    for failure in &report.failures {
        let stopped = if failure.shrink_stopped {
            format!(" (shrinking stopped after --shrink-time {} s)", args.shrink_time)
        } else {
            String::new()
        };
        println!("a case failed; shrunk to {} {unit}{stopped}:", failure.lines);
        for broken in &failure.broken {
            println!("  {broken}");
        }
        println!("the minimal case: {}", failure.cassette.display());
        if !failure.faults.is_empty() {
            println!("with the faults: {}", failure.faults);
        }
        let flags = args.run.flags(args.timeout);
        println!("replay it: {}", failure.replay_command_with(command, &flags));
    }
    Ok(Exit::Code(exit_codes::CASES_FAILED))
}

/// The minimal cases of a fuzz run, run again for the report: each failure's cassette
/// with its faults, as `mock-agent test` runs it (see `FuzzFailure::replay_command`).
fn fuzz_results(
    runner: &harness::run::Runner<'_>,
    failures: &[harness::run::fuzz::FuzzFailure],
) -> Result<Vec<harness::run::CaseResult>, Error> {
    use harness::format::OutputFormat;
    use harness::run::CaseSource;
    let cases = failures
        .iter()
        .map(|failure| {
            let source = CaseSource::Cassette(failure.cassette.clone());
            let name = format!("fuzz/{}", source.name());
            failure
                .dialect
                .case(source, OutputFormat::StreamJson, &failure.faults, name)
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(runner.run_all(&cases, |_| {})?)
}
