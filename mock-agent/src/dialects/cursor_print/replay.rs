//! Replaying a source on this process's stdout and stderr: the plan of a scenario,
//! performed by the executor.

use std::path::Path;

use harness::cassette::{self, CassetteCopied, Copied, CopyError, Recording};
use harness::dialects::cursor_print::source::{Copyable, Source};
use harness::exit_codes;
use harness::format::OutputFormat;
use harness::frames::Exit;
use harness::journal;
use harness::scenario::{Plan, Scenario};
use harness::timing::Timing;

use crate::execute::planned::grow_pipe;
use crate::execute::{self, Blocking, ExecOptions, Handoff, Threaded};
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
/// Three ways to perform it, the lightest that the scenario allows: a bare capture or
/// a cassette that nothing asks to change is copied ([`cassette::copy_capture_to`],
/// [`cassette::copy_cassette`]); a plan
/// that waits for nothing is written with blocking writes
/// ([`execute::perform_blocking`]), signals caught by a handler
/// ([`Interrupts`]) when `listen`; any other on the runtime ([`execute::perform`]).
pub fn replay(source: &Source, prompt: &str, scenario: &Scenario, listen: bool) -> Replayed {
    let (out, err) = match execute::std_streams() {
        Ok(streams) => streams,
        Err(e) => return failed(format!("cannot open stdout or stderr: {e}"), exit_codes::IO_ERROR),
    };
    let started = std::time::Instant::now();
    // When the copy met a closed stdout.
    let mut closed_at = None;
    let recording = match source {
        Source::Cassette(path) if copies(scenario, listen) => {
            match copy(path, &out, scenario.render.stream_partial_output) {
                Ok(Copy::Done(exit, closed)) => {
                    return Replayed {
                        exit,
                        stdout_closed_at: closed.then(|| started.elapsed()),
                        signal: None,
                        faults: Vec::new(),
                        error: None,
                    }
                }
                Ok(Copy::Rest(recording, closed)) => {
                    closed_at = closed.then(|| started.elapsed());
                    Ok(*recording)
                }
                Ok(Copy::Nothing) => source.open(prompt),
                Err(replayed) => return replayed,
            }
        }
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
            let stdout = Handoff::new(out).on_close(point_stdout_at_null);
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
        stdout_closed_at: closed_at.or(outcome.stdout_closed_at),
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
/// `--resume`, and no signal to listen for. (`--stream-partial-output` changes the
/// lines of a recording made otherwise: [`copy`] copies only one made the same way.)
fn copies(scenario: &Scenario, listen: bool) -> bool {
    let render = &scenario.render;
    !listen
        && scenario.faults.is_empty()
        && scenario.timing == Timing::default()
        && scenario.step.is_none()
        && render.format == OutputFormat::StreamJson
        && render.resume.is_none()
}

/// What a copy did.
enum Copy {
    /// The capture or cassette was copied: it ends so; whether the consumer closed
    /// stdout.
    Done(Exit, bool),
    /// Copied up to a line that may be a delta (a capture) or a frame that is no stdout
    /// line (a cassette), or nothing copied (a cassette that changes as it replays):
    /// the rest, to replay frame by frame; whether the consumer closed stdout.
    Rest(Box<Recording>, bool),
    /// The path is not a regular file (a pipe: nothing was read), or a capture
    /// whose lines change: nothing was copied.
    Nothing,
}

/// Copies the capture or cassette at `path` to `out`, where it is a regular file,
/// as far as its lines stand when replayed with `--stream-partial-output` or without
/// (`partial`). The stdout pipe is made larger first ([`grow_pipe`]).
fn copy(path: &Path, out: &std::fs::File, partial: bool) -> Result<Copy, Replayed> {
    let copyable = match harness::dialects::cursor_print::source::copyable(path) {
        Ok(Some(copyable)) => copyable,
        Ok(None) => return Ok(Copy::Nothing),
        Err(e) => return Err(failed(e.to_string(), e.exit_code())),
    };
    let copied = match copyable {
        // A capture says nothing of how it was made: its deltas are rendered again
        // for `--stream-partial-output`.
        Copyable::Capture(_) if partial => return Ok(Copy::Nothing),
        Copyable::Capture(file) => {
            grow_pipe(out);
            cassette::copy_capture_to(path, file, out)
        }
        Copyable::Cassette(reader) if !unchanged(reader.header(), partial) => {
            return Ok(Copy::Rest(
                Box::new(harness::dialects::cursor_print::source::recording(path, *reader)),
                false,
            ))
        }
        Copyable::Cassette(reader) => {
            grow_pipe(out);
            let header = reader.header().cloned();
            let mut out = out;
            return match cassette::copy_cassette(*reader, &mut out) {
                Ok(CassetteCopied::End { exit, stdout_closed }) => Ok(Copy::Done(exit, stdout_closed)),
                Ok(CassetteCopied::Stopped { rest, stdout_closed }) => Ok(Copy::Rest(
                    Box::new(Recording {
                        name: path.to_owned(),
                        stream_partial_output: header.as_ref().map(|h| h.invocation.stream_partial_output),
                        header,
                        frames: rest,
                    }),
                    stdout_closed,
                )),
                Err(e) => Err(copy_failed(e)),
            };
        }
    };
    match copied {
        Ok(Copied::End { exit, stdout_closed }) => Ok(Copy::Done(exit, stdout_closed)),
        Ok(Copied::Stopped(rest)) => Ok(Copy::Rest(
            Box::new(Recording {
                name: path.to_owned(),
                header: None,
                stream_partial_output: None,
                frames: rest,
            }),
            false,
        )),
        Err(e) => Err(copy_failed(e)),
    }
}

/// A copy's failure, printed.
fn copy_failed(e: CopyError) -> Replayed {
    match e {
        CopyError::Cassette(e) => failed(e.to_string(), e.exit_code()),
        e => failed(e.to_string(), exit_codes::IO_ERROR),
    }
}

/// Whether a cassette with this header replays in `stream-json`, with
/// `--stream-partial-output` or without (`partial`), as its lines stand: it was
/// recorded so.
fn unchanged(header: Option<&harness::cassette::Header>, partial: bool) -> bool {
    header.is_some_and(|h| {
        h.invocation.stream_partial_output == partial
            && h.invocation
                .output_format
                .is_none_or(|format| format == OutputFormat::StreamJson)
    })
}

/// After `close-stdout`: the process's stdout becomes `/dev/null`, so that the last
/// open copy of the pipe is gone and the consumer reads end of file.
fn point_stdout_at_null() {
    if let Ok(null) = std::fs::OpenOptions::new().write(true).open("/dev/null") {
        let _ = nix::unistd::dup2_stdout(&null);
    }
}
