//! The executor: performs a script of frames on two output streams, on time.
//!
//! [`Output`] does everything a frame needs whoever planned it: buffering and
//! chunking stdout, keeping stdout and stderr in the planned order, step mode, and
//! racing every wait and write against SIGTERM and SIGINT. [`Output::perform_at`] is
//! the one script executor (`script`): a frame at its due time, the client listened
//! to meanwhile. Its two drivers:
//!
//! - [`perform`]: a one-way plan (print mode), a script with no waits: each frame at
//!   the time the plan's clock gave it (plus the length of the stalls before it);
//! - a conversation's server (ACP's, Claude Code's): a conversation, whose frames are decided as the
//!   client speaks, each due when the same clock says.
//!
//! Stdout goes through a 64 KiB buffer: lines due at once share writes, and the buffer
//! is flushed before every wait, before every stderr line and at the end, so the two
//! streams keep the planned order and a timed line reaches the consumer at its time.
//!
//! A consumer that closes stdout early (`EPIPE`) is not an error: from then on stdout
//! is dropped, nothing waits, the recorded stderr is still written, and the run ends
//! the way the plan ends. With [`Delivery::signals`], SIGTERM and SIGINT end the run at
//! once, during waits and writes alike; the outcome says which signal came, and the
//! process is to die by it.

mod blocking;
pub mod conversation;
mod handoff;
pub mod inbox;
pub mod journaled;
pub mod lines;
mod output;
pub mod planned;
pub mod recorded;
mod script;
#[cfg(test)]
pub(crate) mod tests;
mod writers;

use std::io;
use std::path::PathBuf;
use std::time::Duration;

use tokio::io::AsyncWrite;

use harness::error::CassetteError;
use harness::exit_codes;
use harness::frames::{Delivery, Exit, FrameResult, Signal};

pub use blocking::{blocking, perform_blocking};
pub use handoff::{Handoff, TakeBuffer, HANDOFF};
pub use output::Output;
pub use script::{Listen, Silent};
pub use writers::{Blocking, Threaded};

/// Size of the stdout buffer.
pub const STDOUT_BUFFER: usize = 64 << 10;

/// The largest write of `chunk:random`.
pub const RANDOM_CHUNK_MAX: usize = 48;

/// How much of each wait a precise executor sleeps with the system's sleep.
pub const PRECISE_TAIL: Duration = Duration::from_millis(2);

/// How to perform a plan: what the plan asks for, and how to keep time.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct ExecOptions {
    /// What the plan asks for: timing, chunking, step mode, signals.
    pub delivery: Delivery,
    /// Wait the last [`PRECISE_TAIL`] of each wait with the system's sleep rather than
    /// the runtime's timer, whose ticks are 1 ms apart. For real runs; a test with
    /// paused time leaves it off.
    pub precise: bool,
}

impl ExecOptions {
    /// Options for this delivery, with the runtime's timer.
    pub fn new(delivery: Delivery) -> Self {
        ExecOptions {
            delivery,
            precise: false,
        }
    }
}

/// What happened when a plan was performed.
#[derive(Debug)]
pub struct Performed {
    /// How the run ended: the plan's exit, or the signal or the mock's own failure (a
    /// bad cassette, an unwritable stream) that stopped it.
    pub ended: Result<Exit, Stop>,
    /// When the consumer closed stdout before the plan was done (a write hit `EPIPE`).
    pub stdout_closed_at: Option<Duration>,
    /// The lines written to stdout, in full.
    pub stdout_lines: u64,
}

impl Performed {
    /// A run that stopped before it started.
    fn stopped(error: ExecError) -> Self {
        Performed {
            ended: Err(Stop::Error(error)),
            stdout_closed_at: None,
            stdout_lines: 0,
        }
    }

    /// Whether the consumer closed stdout early.
    pub fn stdout_closed(&self) -> bool {
        self.stdout_closed_at.is_some()
    }

    /// How the process is to end: as planned, by the signal that came, or with the
    /// exit code of the mock's failure.
    pub fn exit(&self) -> Exit {
        match &self.ended {
            Ok(exit) => *exit,
            Err(Stop::Signal(signal)) => Exit::Signal(*signal),
            Err(Stop::Error(e)) => Exit::Code(e.exit_code()),
        }
    }

    /// The signal that ended the run, if one did.
    pub fn signal(&self) -> Option<Signal> {
        match self.ended {
            Err(Stop::Signal(signal)) => Some(signal),
            _ => None,
        }
    }

    /// The mock's own failure, if the run failed.
    pub fn error(&self) -> Option<&ExecError> {
        match &self.ended {
            Err(Stop::Error(e)) => Some(e),
            _ => None,
        }
    }
}

/// A failure of the mock while performing a plan.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ExecError {
    /// The source broke part way.
    #[error(transparent)]
    Cassette(#[from] CassetteError),
    /// Writing an output stream failed (other than a closed pipe).
    #[error("cannot write to {stream}: {source}")]
    Write {
        /// `stdout` or `stderr`.
        stream: &'static str,
        /// Why.
        source: io::Error,
    },
    /// The step file cannot be opened or read.
    #[error("cannot read the step file {}: {source}\nhelp: MOCK_AGENT_STEP names a FIFO or /dev/fd/N to read one byte from per event", path.display())]
    Step {
        /// The file.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// The runtime could not be set up.
    #[error("cannot set up the runtime: {0}")]
    Runtime(io::Error),
    /// The plan ended without saying how the process ends.
    #[error("the plan has no end frame (a bug in mock-agent: please report it)")]
    NoEnd,
}

impl ExecError {
    /// The exit code the binary ends with on this error.
    pub fn exit_code(&self) -> i32 {
        match self {
            ExecError::Cassette(e) => e.exit_code(),
            ExecError::Write { .. } => exit_codes::IO_ERROR,
            ExecError::Step { .. } => exit_codes::NO_INPUT,
            ExecError::Runtime(_) | ExecError::NoEnd => exit_codes::INTERNAL,
        }
    }
}

/// Why a run stopped before its end frame.
#[derive(Debug)]
pub enum Stop {
    /// A signal came.
    Signal(Signal),
    /// The mock failed.
    Error(ExecError),
}

impl From<ExecError> for Stop {
    fn from(e: ExecError) -> Self {
        Stop::Error(e)
    }
}

/// The plan driver: performs the frames of a one-way plan on `stdout` and `stderr`,
/// a script with no waits ([`Silent`]).
pub async fn perform<O, E>(
    frames: impl IntoIterator<Item = FrameResult>,
    stdout: O,
    stderr: E,
    options: &ExecOptions,
) -> Performed
where
    O: AsyncWrite + Unpin,
    E: AsyncWrite + Unpin,
{
    let mut output = match Output::new(stdout, stderr, options) {
        Ok(output) => output,
        Err(e) => return Performed::stopped(e),
    };
    let ended = play(&mut output, frames).await;
    output.performed(ended)
}

/// Performs each frame at its time until the end frame.
async fn play<O, E>(
    output: &mut Output<O, E>,
    frames: impl IntoIterator<Item = FrameResult>,
) -> Result<Exit, Stop>
where
    O: AsyncWrite + Unpin,
    E: AsyncWrite + Unpin,
{
    for frame in frames {
        let frame = frame.map_err(ExecError::from)?;
        let due = output.planned(&frame);
        match output.perform_at(due, frame, &mut Silent).await? {
            Ok(Some(exit)) => return Ok(exit),
            Ok(None) => {}
            Err(never) => match never {},
        }
    }
    Err(Stop::Error(ExecError::NoEnd))
}

/// A file of this process's own for `stream` (stdout, stderr): a duplicate of its
/// descriptor, which a writer may own and close.
pub fn dup(stream: &impl std::os::fd::AsFd) -> io::Result<std::fs::File> {
    stream.as_fd().try_clone_to_owned().map(std::fs::File::from)
}

/// This process's stdout and stderr, as files of its own (see [`dup`]).
pub fn std_streams() -> io::Result<(std::fs::File, std::fs::File)> {
    Ok((dup(&std::io::stdout())?, dup(&std::io::stderr())?))
}

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// Runs a future on a fresh current-thread runtime. Only a runtime that listens for
/// `signals` sets up the I/O driver they need (an epoll and a pipe): the plain replay
/// starts without them.
///
/// The runtime is shut down without waiting for its blocking threads: a run that a
/// signal stopped may leave one blocked for ever (a write to a client that does not
/// read, a read of a step file nobody writes), and the process is about to end.
pub fn block_on<F: std::future::Future>(future: F, signals: bool) -> io::Result<F::Output> {
    let mut builder = tokio::runtime::Builder::new_current_thread();
    builder.enable_time();
    if signals {
        builder.enable_io();
    }
    let runtime = builder.build()?;
    let output = runtime.block_on(future);
    runtime.shutdown_background();
    Ok(output)
}
