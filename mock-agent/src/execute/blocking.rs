//! The blocking executor: a plan that waits for nothing, written with blocking
//! writes and no runtime (the plain replay).

use std::io;
use std::time::Duration;

use harness::frames::{Delivery, Frame, FrameResult, Line, Stream};

use super::{ExecError, Performed, Stop, STDOUT_BUFFER};
use crate::process::Interrupts;

/// Whether a plan can be performed by [`perform_blocking`]: it waits for nothing
/// (untimed, no step mode) and splits no write. A plan that listens for signals
/// needs them caught by [`crate::process::Interrupts`].
pub fn blocking(delivery: &Delivery) -> bool {
    !delivery.timed && delivery.step.is_none() && delivery.chunking.is_none()
}

/// How often a stall of [`perform_blocking`] looks for a signal.
const STALL_SLICE: Duration = Duration::from_millis(5);

/// Performs a plan that [`blocking`] allows with blocking writes, without a runtime:
/// what [`super::perform`] does with such a plan, with less to start (the plain replay).
/// `on_close` runs when the plan closes stdout, after `stdout` is dropped.
/// With `signals` caught, a signal stops the plan before its next frame, or within
/// 5 ms of a stall, as [`super::perform`] stops on one.
pub fn perform_blocking<O: io::Write, E: io::Write>(
    frames: impl IntoIterator<Item = FrameResult>,
    stdout: O,
    mut stderr: E,
    on_close: impl FnOnce(),
    signals: Option<&Interrupts>,
) -> Performed {
    let interrupted = || signals.and_then(Interrupts::caught);
    let mut out = BlockingStdout {
        sink: Some(io::BufWriter::with_capacity(STDOUT_BUFFER, stdout)),
        start: std::time::Instant::now(),
        closed_at: None,
        lines: 0,
    };
    let mut on_close = Some(on_close);
    let mut ended = Err(Stop::Error(ExecError::NoEnd));
    for frame in frames {
        if let Some(signal) = interrupted() {
            ended = Err(Stop::Signal(signal));
            break;
        }
        let step = frame.map_err(ExecError::from).and_then(|frame| match frame {
            Frame::Line(line) if line.stream == Stream::Stdout => out.line(&line).map(|()| None),
            // What the recorded process read is not written (as the async executor).
            Frame::Line(line) if line.stream == Stream::Stdin => Ok(None),
            Frame::Line(line) => out
                .flush()
                .and_then(|()| stderr_line(&mut stderr, &line))
                .map(|()| None),
            Frame::Stall { duration, .. } => out.flush().map(|()| {
                // A consumer that closed stdout waits for nothing more.
                if out.closed_at.is_none() {
                    stall(duration, signals);
                }
                None
            }),
            Frame::CloseStdout { .. } => out.flush().map(|()| {
                out.sink = None;
                if let Some(f) = on_close.take() {
                    f();
                }
                None
            }),
            Frame::End(end) => out.flush().map(|()| Some(end.exit)),
        });
        match step {
            Ok(None) => continue,
            Ok(Some(exit)) => ended = Ok(exit),
            Err(e) => ended = Err(Stop::Error(e)),
        }
        break;
    }
    // A signal that came during the last frame ends the run as it would have before.
    if let (Ok(_), Some(signal)) = (&ended, interrupted()) {
        ended = Err(Stop::Signal(signal));
    }
    Performed {
        ended,
        stdout_closed_at: out.closed_at,
        stdout_lines: out.lines,
    }
}

/// Waits a stall out (for ever without a duration), or until a signal caught comes.
fn stall(duration: Option<Duration>, signals: Option<&Interrupts>) {
    // Without signals caught, one ends the process by itself.
    let slice = match signals {
        Some(_) => STALL_SLICE,
        None => Duration::from_secs(3600),
    };
    let until = duration.map(|d| std::time::Instant::now() + d);
    while signals.and_then(Interrupts::caught).is_none() {
        let left = match until {
            Some(until) => match until.checked_duration_since(std::time::Instant::now()) {
                Some(left) if !left.is_zero() => left,
                _ => return,
            },
            None => slice,
        };
        std::thread::sleep(left.min(slice));
    }
}

/// Stdout of [`perform_blocking`]: buffered, dropped once closed.
struct BlockingStdout<O: io::Write> {
    sink: Option<io::BufWriter<O>>,
    start: std::time::Instant,
    /// When the consumer closed it.
    closed_at: Option<Duration>,
    /// The lines written in full.
    lines: u64,
}

impl<O: io::Write> BlockingStdout<O> {
    /// Writes a line (counted when it was).
    fn line(&mut self, line: &Line) -> Result<(), ExecError> {
        let Some(sink) = self.sink.as_mut() else {
            return Ok(());
        };
        let written = io::Write::write_all(sink, &line.bytes).and_then(|()| {
            if line.newline {
                io::Write::write_all(sink, b"\n")
            } else {
                Ok(())
            }
        });
        self.result(written)?;
        self.lines += u64::from(self.sink.is_some());
        Ok(())
    }

    fn flush(&mut self) -> Result<(), ExecError> {
        match self.sink.as_mut() {
            Some(sink) => {
                let flushed = io::Write::flush(sink);
                self.result(flushed)
            }
            None => Ok(()),
        }
    }

    /// A closed pipe on stdout is the consumer's choice, not an error: from then on
    /// stdout is dropped, and what is buffered with it.
    fn result(&mut self, result: io::Result<()>) -> Result<(), ExecError> {
        match result {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
                if let Some(sink) = self.sink.take() {
                    drop(sink.into_parts());
                }
                self.closed_at.get_or_insert_with(|| self.start.elapsed());
                Ok(())
            }
            Err(source) => Err(ExecError::Write {
                stream: "stdout",
                source,
            }),
        }
    }
}

/// Writes a stderr line in one write. A consumer that closed stderr has stopped
/// listening to it.
fn stderr_line(stderr: &mut impl io::Write, line: &Line) -> Result<(), ExecError> {
    let mut bytes = Vec::with_capacity(line.bytes.len() + 1);
    bytes.extend_from_slice(&line.bytes);
    if line.newline {
        bytes.push(b'\n');
    }
    match io::Write::write_all(stderr, &bytes) {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        Err(source) => Err(ExecError::Write {
            stream: "stderr",
            source,
        }),
        Ok(()) => Ok(()),
    }
}
