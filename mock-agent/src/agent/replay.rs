//! Replaying a source on this process's stdout and stderr: the plan of a scenario,
//! performed by the executor.

use std::os::fd::AsFd;
use std::path::Path;

use harness::cassette::{self, Copied, CopyError, Recording};
use harness::exit_codes;
use harness::format::OutputFormat;
use harness::frames::Exit;
use harness::journal;
use harness::scenario::{Plan, Scenario};
use harness::source::Source;
use harness::timing::Timing;

use crate::execute::{self, Blocking, ExecOptions, Threaded};
use crate::process::Interrupts;

/// What a replay did.
#[derive(Debug)]
pub struct Replayed {
    /// How the process is to end.
    pub exit: Exit,
    /// When the consumer closed stdout early, from the start.
    pub stdout_closed_at: Option<std::time::Duration>,
    /// The signal that ended the run.
    pub signal: Option<harness::frames::Signal>,
    /// The faults and whether each acted.
    pub faults: Vec<journal::FaultRecord>,
    /// The mock's own error, already printed on stderr.
    pub error: Option<String>,
}

/// Replays `source` for `scenario` on this process's stdout and stderr. The mock's
/// own errors are printed on stderr, prefixed `mock-agent:`, and end with their
/// documented exit code. `listen` makes SIGTERM and SIGINT end the run even when the
/// plan never waits (so that the journal can say which came).
///
/// Three ways to perform it, the lightest that the scenario allows: a bare capture
/// that nothing asks to change is copied ([`harness::cassette::copy_capture`]); a plan
/// that waits for nothing is written with blocking writes
/// ([`execute::perform_blocking`]), signals caught by a handler
/// ([`Interrupts`]) when `listen`; any other on the runtime ([`execute::perform`]).
pub fn replay(source: &Source, prompt: &str, scenario: &Scenario, listen: bool) -> Replayed {
    let streams = std::io::stdout()
        .as_fd()
        .try_clone_to_owned()
        .and_then(|out| Ok((out, std::io::stderr().as_fd().try_clone_to_owned()?)));
    let (out, err) = match streams {
        Ok((out, err)) => (std::fs::File::from(out), std::fs::File::from(err)),
        Err(e) => return failed(format!("cannot open stdout or stderr: {e}"), exit_codes::IO_ERROR),
    };
    let started = std::time::Instant::now();
    let recording = match source {
        Source::Cassette(path) if copies(scenario, listen) => match copy(path, &out) {
            Ok(Copy::Done(exit, closed)) => {
                return Replayed {
                    exit,
                    stdout_closed_at: closed.then(|| started.elapsed()),
                    signal: None,
                    faults: Vec::new(),
                    error: None,
                }
            }
            Ok(Copy::Rest(recording)) => Ok(*recording),
            Ok(Copy::NotACapture) => source.open(prompt),
            Err(replayed) => return replayed,
        },
        _ => source.open(prompt),
    };
    let plan = match recording.and_then(|r| scenario.plan(r)) {
        Ok(plan) => plan,
        Err(e) => return failed(e.to_string(), e.exit_code()),
    };
    let Plan {
        frames,
        applied,
        mut delivery,
    } = plan;
    delivery.signals |= listen;
    let outcome = if execute::blocking(&delivery) {
        if delivery.signals {
            match Interrupts::catch(out, err) {
                Ok((signals, out, err)) => Ok(execute::perform_blocking(
                    frames,
                    out,
                    err,
                    point_stdout_at_null,
                    Some(&signals),
                )),
                Err(e) => return failed(format!("cannot listen for signals: {e}"), exit_codes::INTERNAL),
            }
        } else {
            Ok(execute::perform_blocking(
                frames,
                out,
                err,
                point_stdout_at_null,
                None,
            ))
        }
    } else {
        let options = ExecOptions {
            precise: true,
            ..ExecOptions::new(delivery)
        };
        if options.delivery.signals {
            let stdout = Threaded::new(out).on_close(point_stdout_at_null);
            execute::block_on(
                execute::perform(frames, stdout, Threaded::new(err), &options),
                true,
            )
        } else {
            let stdout = Blocking::new(out).on_close(point_stdout_at_null);
            execute::block_on(
                execute::perform(frames, stdout, Blocking::new(err), &options),
                false,
            )
        }
    };
    let outcome = match outcome {
        Ok(outcome) => outcome,
        Err(e) => return failed(format!("cannot start the runtime: {e}"), exit_codes::INTERNAL),
    };
    let faults = applied
        .report()
        .into_iter()
        .map(|(fault, fired)| journal::FaultRecord {
            name: fault.name().to_owned(),
            fired,
        })
        .collect();
    let error = outcome.error().map(|e| {
        let message = e.to_string();
        eprintln!("mock-agent: {message}");
        message
    });
    Replayed {
        exit: outcome.exit(),
        stdout_closed_at: outcome.stdout_closed_at,
        signal: outcome.signal(),
        faults,
        error,
    }
}

/// The mock's own failure, printed.
fn failed(message: String, code: i32) -> Replayed {
    eprintln!("mock-agent: {message}");
    Replayed {
        exit: Exit::Code(code),
        stdout_closed_at: None,
        signal: None,
        faults: Vec::new(),
        error: Some(message),
    }
}

/// Whether nothing in the scenario asks for a line of a capture to change, or for
/// anything but writing it: no fault, no timing, no step mode, `stream-json` without
/// `--resume` or `--stream-partial-output`, and no signal to listen for.
fn copies(scenario: &Scenario, listen: bool) -> bool {
    let render = &scenario.render;
    !listen
        && scenario.faults.is_empty()
        && scenario.timing == Timing::default()
        && scenario.step.is_none()
        && render.format == OutputFormat::StreamJson
        && render.resume.is_none()
        && !render.stream_partial_output
}

/// What a copy did.
enum Copy {
    /// The capture was copied: it ends so; whether the consumer closed stdout.
    Done(Exit, bool),
    /// Copied up to a line that may be a delta: the rest, to replay line by line.
    Rest(Box<Recording>),
    /// The file is not a bare capture (a cassette, a pipe): nothing was written.
    NotACapture,
}

/// Copies the capture at `path` to `out`, if it is one.
fn copy(path: &Path, out: &std::fs::File) -> Result<Copy, Replayed> {
    let file = match harness::source::capture_file(path) {
        Ok(Some(file)) => file,
        Ok(None) => return Ok(Copy::NotACapture),
        Err(e) => return Err(failed(e.to_string(), e.exit_code())),
    };
    let mut out = out;
    match cassette::copy_capture(path, file, &mut out) {
        Ok(Copied::End { exit, stdout_closed }) => Ok(Copy::Done(exit, stdout_closed)),
        Ok(Copied::Stopped(rest)) => Ok(Copy::Rest(Box::new(Recording {
            name: path.to_owned(),
            header: None,
            stream_partial_output: None,
            frames: rest,
        }))),
        Err(CopyError::Cassette(e)) => Err(failed(e.to_string(), e.exit_code())),
        Err(e) => Err(failed(e.to_string(), exit_codes::IO_ERROR)),
    }
}

/// After `close-stdout`: the process's stdout becomes `/dev/null`, so that the last
/// open copy of the pipe is gone and the consumer reads end of file.
fn point_stdout_at_null() {
    if let Ok(null) = std::fs::OpenOptions::new().write(true).open("/dev/null") {
        let _ = nix::unistd::dup2_stdout(&null);
    }
}
