//! Frames: the currency of the pipeline.
//!
//! Every source (cassette, capture, the built-in default session) yields frames;
//! rendering, faults and timing map frames to frames; the executor writes them. A
//! [`Line`] is one line of output on stdout or stderr, exactly as bytes, with the
//! time it was written; an [`Ending`] says how the process ends.

use std::fmt;
use std::time::Duration;

use crate::error::CassetteError;

/// Which output stream a line goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Stream {
    /// Standard output: the events.
    Stdout,
    /// Standard error: messages.
    Stderr,
    /// Standard input: what the process read, in server mode the client's messages.
    /// Recorded, never written.
    Stdin,
}

/// One line of output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    /// When it was written, from the start of the run.
    pub at: Duration,
    /// Where it goes.
    pub stream: Stream,
    /// Its bytes, without the final newline. Not necessarily UTF-8 or JSON.
    pub bytes: Vec<u8>,
    /// Whether a `\n` follows. `false` only for the last line of a stream that was
    /// cut off.
    pub newline: bool,
}

impl Line {
    /// A complete stdout line at `at`.
    pub fn stdout(at: Duration, bytes: impl Into<Vec<u8>>) -> Self {
        Line {
            at,
            stream: Stream::Stdout,
            bytes: bytes.into(),
            newline: true,
        }
    }

    /// A complete stderr line at `at`.
    pub fn stderr(at: Duration, bytes: impl Into<Vec<u8>>) -> Self {
        Line {
            at,
            stream: Stream::Stderr,
            bytes: bytes.into(),
            newline: true,
        }
    }
}

/// How a process ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// It exits with this code.
    Code(i32),
    /// It dies by this signal.
    Signal(Signal),
}

impl Exit {
    /// Whether this is `exit 0`.
    pub fn success(self) -> bool {
        self == Exit::Code(0)
    }
}

impl Exit {
    /// How a child process ended; a status with neither code nor known signal is 1.
    pub fn from_status(status: std::process::ExitStatus) -> Exit {
        use std::os::unix::process::ExitStatusExt;
        match (status.code(), status.signal().and_then(Signal::from_number)) {
            (Some(code), _) => Exit::Code(code),
            (None, Some(signal)) => Exit::Signal(signal),
            (None, None) => Exit::Code(1),
        }
    }
}

impl fmt::Display for Exit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Exit::Code(code) => write!(f, "exit code {code}"),
            Exit::Signal(signal) => write!(f, "signal {signal}"),
        }
    }
}

/// The end of a run: when, and how.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ending {
    /// When the process ended, from the start of the run.
    pub at: Duration,
    /// How it ended.
    pub exit: Exit,
}

/// One step of a run. Every performer handles every kind, so the list is closed
/// within a cassette format version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Frame {
    /// A line of output.
    Line(Line),
    /// Nothing is written for a while (from a `stall` fault).
    Stall {
        /// When the stall starts.
        at: Duration,
        /// How long it lasts; `None`: until the process gets SIGTERM or SIGINT.
        duration: Option<Duration>,
    },
    /// Stdout is closed; the process goes on (from a `close-stdout` fault).
    CloseStdout {
        /// When.
        at: Duration,
    },
    /// The end; always the last frame.
    End(Ending),
}

impl Frame {
    /// When this frame happens, from the start of the run.
    pub fn at(&self) -> Duration {
        match self {
            Frame::Line(line) => line.at,
            Frame::Stall { at, .. } | Frame::CloseStdout { at } => *at,
            Frame::End(end) => end.at,
        }
    }

    /// The same frame at another time.
    #[must_use]
    pub fn with_at(mut self, to: Duration) -> Self {
        match &mut self {
            Frame::Line(line) => line.at = to,
            Frame::Stall { at, .. } | Frame::CloseStdout { at } => *at = to,
            Frame::End(end) => end.at = to,
        }
        self
    }
}

/// The signals a process can be recorded dying by, or be told to die by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Signal {
    /// SIGHUP (1).
    Hup,
    /// SIGINT (2).
    Int,
    /// SIGQUIT (3).
    Quit,
    /// SIGABRT (6).
    Abrt,
    /// SIGKILL (9).
    Kill,
    /// SIGSEGV (11).
    Segv,
    /// SIGPIPE (13).
    Pipe,
    /// SIGTERM (15).
    Term,
}

const SIGNALS: &[(Signal, &str, i32)] = &[
    (Signal::Hup, "HUP", 1),
    (Signal::Int, "INT", 2),
    (Signal::Quit, "QUIT", 3),
    (Signal::Abrt, "ABRT", 6),
    (Signal::Kill, "KILL", 9),
    (Signal::Segv, "SEGV", 11),
    (Signal::Pipe, "PIPE", 13),
    (Signal::Term, "TERM", 15),
];

impl Signal {
    /// The name without `SIG`, e.g. `TERM`.
    pub fn name(self) -> &'static str {
        SIGNALS
            .iter()
            .find(|(s, _, _)| *s == self)
            .map_or("", |(_, name, _)| name)
    }

    /// The signal number on Linux.
    pub fn number(self) -> i32 {
        SIGNALS
            .iter()
            .find(|(s, _, _)| *s == self)
            .map_or(0, |(_, _, n)| *n)
    }

    /// Parses `TERM`, `SIGTERM`, `term` or `15`.
    pub fn parse(text: &str) -> Option<Signal> {
        let upper = text.trim().to_ascii_uppercase();
        let name = upper.strip_prefix("SIG").unwrap_or(&upper);
        SIGNALS
            .iter()
            .find(|(_, n, num)| *n == name || num.to_string() == name)
            .map(|(s, _, _)| *s)
    }

    /// The signal with this number, if it is one of these.
    pub fn from_number(number: i32) -> Option<Signal> {
        SIGNALS.iter().find(|(_, _, n)| *n == number).map(|(s, _, _)| *s)
    }

    /// Every signal, for listings and generators.
    pub fn all() -> impl Iterator<Item = Signal> {
        SIGNALS.iter().map(|(s, _, _)| *s)
    }
}

impl fmt::Display for Signal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How stdout writes are split.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Chunking {
    /// Every write at most this many bytes, across line boundaries.
    Size(usize),
    /// Writes split at seeded random offsets.
    Random,
}

/// How the frames of a plan are to be written: what the executor needs besides
/// the frames themselves.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Delivery {
    /// Frames are written at their time, each stdout line on its own (not only when the
    /// buffer fills). Untimed, frames go as fast as the streams take them, whatever
    /// their time says (stalls still last as long as they say).
    pub timed: bool,
    /// Split stdout writes (`chunk` fault).
    pub chunking: Option<Chunking>,
    /// Write several lines at once even when timed (`coalesce` fault): up to this
    /// many lines share a write, at the time of the last.
    pub coalesce: Option<usize>,
    /// The seed of random choices (`chunk:random`).
    pub seed: u64,
    /// Step mode: wait for one byte from this file (a FIFO, `/dev/fd/N`) before each
    /// stdout line. At its end of file, the rest goes without waiting.
    pub step: Option<std::path::PathBuf>,
    /// End at once on SIGTERM and SIGINT, and report which came: the plan can wait.
    pub signals: bool,
}

/// One frame, or the error that ends the stream.
pub type FrameResult = Result<Frame, CassetteError>;

/// A stream of frames; it ends with a [`Frame::End`] or an error.
pub type Frames = Box<dyn Iterator<Item = FrameResult>>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signals_parse_by_name_and_number() {
        for signal in Signal::all() {
            assert_eq!(Signal::parse(signal.name()), Some(signal));
            assert_eq!(Signal::parse(&format!("SIG{}", signal.name())), Some(signal));
            assert_eq!(Signal::parse(&signal.number().to_string()), Some(signal));
            assert_eq!(Signal::from_number(signal.number()), Some(signal));
        }
        assert_eq!(Signal::parse("term"), Some(Signal::Term));
        assert_eq!(Signal::parse("NOPE"), None);
    }
}
