//! Replaying a source on this process's stdout and stderr: the plan of a scenario,
//! performed by the executor.

use std::os::fd::AsFd;

use harness::exit_codes;
use harness::frames::Exit;
use harness::journal;
use harness::scenario::{Plan, Scenario};
use harness::source::Source;

use crate::execute::{self, Blocking, ExecOptions, Threaded};

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
pub fn replay(source: &Source, prompt: &str, scenario: &Scenario, listen: bool) -> Replayed {
    let failed = |message: String, code: i32| {
        eprintln!("mock-agent: {message}");
        Replayed {
            exit: Exit::Code(code),
            stdout_closed_at: None,
            signal: None,
            faults: Vec::new(),
            error: Some(message),
        }
    };
    let plan = match source.open(prompt).and_then(|r| scenario.plan(r)) {
        Ok(plan) => plan,
        Err(e) => return failed(e.to_string(), e.exit_code()),
    };
    let Plan {
        frames,
        applied,
        mut delivery,
    } = plan;
    delivery.signals |= listen;
    let options = ExecOptions {
        precise: true,
        ..ExecOptions::new(delivery)
    };
    let streams = std::io::stdout()
        .as_fd()
        .try_clone_to_owned()
        .and_then(|out| Ok((out, std::io::stderr().as_fd().try_clone_to_owned()?)));
    let (out, err) = match streams {
        Ok(fds) => fds,
        Err(e) => return failed(format!("cannot open stdout or stderr: {e}"), exit_codes::IO_ERROR),
    };
    let (out, err) = (std::fs::File::from(out), std::fs::File::from(err));
    let signals = options.delivery.signals;
    let outcome = if signals {
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
    let replayed = |exit, error| Replayed {
        exit,
        stdout_closed_at: outcome.stdout_closed_at,
        signal: outcome.signal,
        faults,
        error,
    };
    match (outcome.exit, outcome.error) {
        (Some(exit), None) => replayed(exit, None),
        (_, Some(e)) => {
            let message = e.to_string();
            eprintln!("mock-agent: {message}");
            replayed(Exit::Code(e.exit_code()), Some(message))
        }
        (None, None) => {
            let message = "the plan ended without an exit".to_owned();
            eprintln!("mock-agent: {message}");
            replayed(Exit::Code(exit_codes::INTERNAL), Some(message))
        }
    }
}

/// After `close-stdout`: the process's stdout becomes `/dev/null`, so that the last
/// open copy of the pipe is gone and the consumer reads end of file.
fn point_stdout_at_null() {
    if let Ok(null) = std::fs::OpenOptions::new().write(true).open("/dev/null") {
        let _ = nix::unistd::dup2_stdout(&null);
    }
}
