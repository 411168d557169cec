//! The executor: performs a plan of frames on two output streams.
//!
//! Lines are written as fast as the streams take them. Stdout goes through a 64 KiB
//! buffer, flushed whenever the plan writes to stderr and at the end, so the two
//! streams keep the recorded order and a consumer that reads fast sees the lines as
//! a pipe delivers them from a fast writer.
//!
//! A consumer that closes stdout early (`EPIPE`) is not an error: the executor stops
//! writing, skips the rest of the plan and ends the way the plan ends. Any other write
//! error ends the run with [`ExecError::Write`].

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use tokio::io::{AsyncWrite, AsyncWriteExt, BufWriter};

use crate::error::CassetteError;
use crate::exit_codes;
use crate::frames::{Exit, Frame, Stream};
use crate::source::FrameResult;

/// Size of the stdout buffer.
pub const STDOUT_BUFFER: usize = 64 << 10;

/// What happened when a plan was performed.
#[derive(Debug)]
pub struct Outcome {
    /// How the process is to end; `None` when the run failed with [`Outcome::error`].
    pub exit: Option<Exit>,
    /// Whether the consumer closed stdout before the plan was done.
    pub stdout_closed: bool,
    /// The lines written to stdout, in full.
    pub stdout_lines: u64,
    /// A failure of the mock's own: a bad cassette, an unwritable stream.
    pub error: Option<ExecError>,
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
            ExecError::NoEnd => exit_codes::INTERNAL,
        }
    }
}

fn is_closed_pipe(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::BrokenPipe
}

/// Performs the frames on `stdout` and `stderr`.
pub async fn execute<O, E>(frames: impl IntoIterator<Item = FrameResult>, stdout: O, mut stderr: E) -> Outcome
where
    O: AsyncWrite + Unpin,
    E: AsyncWrite + Unpin,
{
    let mut stdout = BufWriter::with_capacity(STDOUT_BUFFER, stdout);
    let mut outcome = Outcome {
        exit: None,
        stdout_closed: false,
        stdout_lines: 0,
        error: None,
    };
    let mut stderr_line = Vec::new();
    let mut frames = frames.into_iter();
    for frame in frames.by_ref() {
        let frame = match frame {
            Ok(frame) => frame,
            Err(e) => {
                outcome.error = Some(e.into());
                break;
            }
        };
        let written = match frame {
            Frame::End(end) => {
                outcome.exit = Some(end.exit);
                break;
            }
            Frame::Line(line) => match line.stream {
                Stream::Stdout => {
                    let mut result = stdout.write_all(&line.bytes).await;
                    if result.is_ok() && line.newline {
                        result = stdout.write_all(b"\n").await;
                    }
                    if result.is_ok() {
                        outcome.stdout_lines += 1;
                    }
                    result.map_err(|e| ("stdout", e))
                }
                Stream::Stderr => {
                    stderr_line.clear();
                    stderr_line.extend_from_slice(&line.bytes);
                    if line.newline {
                        stderr_line.push(b'\n');
                    }
                    match stdout.flush().await {
                        Ok(()) => stderr.write_all(&stderr_line).await.map_err(|e| ("stderr", e)),
                        Err(e) => Err(("stdout", e)),
                    }
                }
            },
        };
        match written {
            Ok(()) => {}
            Err(("stdout", e)) if is_closed_pipe(&e) => {
                outcome.stdout_closed = true;
                break;
            }
            // A consumer that closed stderr has stopped listening to it: go on.
            Err(("stderr", e)) if is_closed_pipe(&e) => {}
            Err((stream, source)) => {
                outcome.error = Some(ExecError::Write { stream, source });
                break;
            }
        }
    }
    if outcome.stdout_closed {
        // Skip the rest of the plan, but end as it ends.
        for frame in frames {
            match frame {
                Ok(Frame::End(end)) => {
                    outcome.exit = Some(end.exit);
                    break;
                }
                Ok(Frame::Line(_)) => {}
                Err(e) => {
                    outcome.error = Some(e.into());
                    break;
                }
            }
        }
    } else if let Err(e) = stdout.flush().await {
        if is_closed_pipe(&e) {
            outcome.stdout_closed = true;
        } else if outcome.error.is_none() {
            outcome.error = Some(ExecError::Write {
                stream: "stdout",
                source: e,
            });
        }
    }
    if outcome.exit.is_none() && outcome.error.is_none() {
        outcome.error = Some(ExecError::NoEnd);
    }
    if outcome.error.is_some() {
        outcome.exit = None;
    }
    outcome
}

/// An [`AsyncWrite`] over a blocking writer (the process's stdout or stderr): each
/// write blocks until the pipe takes it.
///
/// The executor runs alone on a current-thread runtime, where a blocking write costs
/// nothing and keeps the bytes in order without a thread hop per write.
#[derive(Debug)]
pub struct Blocking<W>(pub W);

impl<W: io::Write + Unpin> AsyncWrite for Blocking<W> {
    fn poll_write(mut self: Pin<&mut Self>, _: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        Poll::Ready(self.0.write(buf))
    }

    fn poll_flush(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(self.0.flush())
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(self.0.flush())
    }
}

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// Runs `execute` on a fresh current-thread runtime.
pub fn block_on<F: std::future::Future>(future: F) -> io::Result<F::Output> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()?;
    Ok(runtime.block_on(future))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frames::{Ending, Line};
    use std::time::Duration;

    fn plan(lines: &[(Stream, &str)], exit: Exit) -> Vec<FrameResult> {
        let mut frames: Vec<FrameResult> = lines
            .iter()
            .map(|(stream, text)| {
                Ok(Frame::Line(Line {
                    at: Duration::ZERO,
                    stream: *stream,
                    bytes: text.as_bytes().to_vec(),
                    newline: true,
                }))
            })
            .collect();
        frames.push(Ok(Frame::End(Ending {
            at: Duration::ZERO,
            exit,
        })));
        frames
    }

    #[tokio::test]
    async fn writes_lines_and_ends_as_planned() {
        let mut out = Vec::new();
        let mut err = Vec::new();
        let frames = plan(
            &[
                (Stream::Stdout, "a"),
                (Stream::Stderr, "oops"),
                (Stream::Stdout, "b"),
            ],
            Exit::Code(3),
        );
        let outcome = execute(frames, &mut out, &mut err).await;
        assert_eq!(outcome.exit, Some(Exit::Code(3)));
        assert_eq!(out, b"a\nb\n");
        assert_eq!(err, b"oops\n");
        assert_eq!(outcome.stdout_lines, 2);
    }

    struct Closed;
    impl AsyncWrite for Closed {
        fn poll_write(self: Pin<&mut Self>, _: &mut Context<'_>, _: &[u8]) -> Poll<io::Result<usize>> {
            Poll::Ready(Err(io::ErrorKind::BrokenPipe.into()))
        }
        fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
            Poll::Ready(Ok(()))
        }
        fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
            Poll::Ready(Ok(()))
        }
    }

    #[tokio::test]
    async fn a_closed_stdout_is_a_quiet_end() {
        let mut err = Vec::new();
        let frames = plan(
            &[
                (Stream::Stderr, "x"),
                (Stream::Stdout, "a"),
                (Stream::Stderr, "y"),
            ],
            Exit::Code(0),
        );
        let outcome = execute(frames, Closed, &mut err).await;
        assert!(outcome.stdout_closed);
        assert!(outcome.error.is_none());
        assert_eq!(outcome.exit, Some(Exit::Code(0)));
        assert_eq!(err, b"x\n");
    }
}
