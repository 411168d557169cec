//! The executor: performs a plan of frames on two output streams, on time.
//!
//! Each frame is performed at its time (`Frame::at`, from the start of the run, plus
//! the length of the stalls before it). Stdout goes through a 64 KiB buffer: lines
//! due at once share writes, and the buffer is flushed before every wait, before
//! every stderr line and at the end, so the two streams keep the planned order and
//! a timed line reaches the consumer at its time.
//!
//! A consumer that closes stdout early (`EPIPE`) is not an error: the executor stops
//! writing, skips the rest of the plan and ends the way the plan ends. With
//! [`ExecOptions::signals`], SIGTERM and SIGINT end the run at once, during waits and
//! writes alike; the outcome says which signal came, and the process is to die by it.

use std::future::Future as _;
use std::io;
use std::path::PathBuf;
use std::pin::Pin;
use std::task::{ready, Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncWrite, AsyncWriteExt, BufWriter};
use tokio::time::Instant;

use crate::error::CassetteError;
use crate::exit_codes;
use crate::faults::Chunking;
use crate::frames::{Exit, Frame, Signal, Stream};
use crate::source::FrameResult;

/// Size of the stdout buffer.
pub const STDOUT_BUFFER: usize = 64 << 10;

/// The largest write of `chunk:random`.
pub const RANDOM_CHUNK_MAX: usize = 48;

/// How to perform a plan.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct ExecOptions {
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
    pub step: Option<PathBuf>,
    /// End at once on SIGTERM and SIGINT, and report which came.
    pub signals: bool,
    /// Wait the last [`PRECISE_TAIL`] of each wait with the system's sleep rather than
    /// the runtime's timer, whose ticks are 1 ms apart. For real runs; a test with
    /// paused time leaves it off.
    pub precise: bool,
}

/// How much of each wait a precise executor sleeps with the system's sleep.
pub const PRECISE_TAIL: Duration = Duration::from_millis(2);

/// Waits until `due`: on the runtime's timer, then, when `precise`, the last stretch
/// with the system's sleep (it blocks the runtime for at most [`PRECISE_TAIL`]).
async fn wait_until(due: Instant, precise: bool) {
    if !precise {
        return tokio::time::sleep_until(due).await;
    }
    if let Some(coarse) = due.checked_sub(PRECISE_TAIL) {
        if Instant::now() < coarse {
            tokio::time::sleep_until(coarse).await;
        }
    }
    let now = Instant::now();
    if now < due {
        std::thread::sleep(due - now);
    }
}

/// What happened when a plan was performed.
#[derive(Debug)]
pub struct Outcome {
    /// How the process is to end; `None` when the run failed with [`Outcome::error`].
    pub exit: Option<Exit>,
    /// When the consumer closed stdout before the plan was done (a write hit `EPIPE`).
    pub stdout_closed_at: Option<Duration>,
    /// The lines written to stdout, in full.
    pub stdout_lines: u64,
    /// The signal that ended the run, if one did.
    pub signal: Option<Signal>,
    /// A failure of the mock's own: a bad cassette, an unwritable stream.
    pub error: Option<ExecError>,
}

impl Outcome {
    /// Whether the consumer closed stdout early.
    pub fn stdout_closed(&self) -> bool {
        self.stdout_closed_at.is_some()
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

/// Why a step of the run stopped it.
enum Stop {
    /// A signal came.
    Signal(Signal),
    /// The consumer closed stdout.
    Closed,
    /// The mock failed.
    Error(ExecError),
}

/// SIGTERM and SIGINT, when the run listens for them.
struct Signals(Option<(tokio::signal::unix::Signal, tokio::signal::unix::Signal)>);

impl Signals {
    fn new(listen: bool) -> io::Result<Self> {
        use tokio::signal::unix::{signal, SignalKind};
        if !listen {
            return Ok(Signals(None));
        }
        Ok(Signals(Some((
            signal(SignalKind::terminate())?,
            signal(SignalKind::interrupt())?,
        ))))
    }

    /// Runs `work` unless a signal comes first.
    async fn race<T>(&mut self, work: impl std::future::Future<Output = T>) -> Result<T, Stop> {
        match &mut self.0 {
            None => Ok(work.await),
            Some((term, int)) => tokio::select! {
                out = work => Ok(out),
                _ = term.recv() => Err(Stop::Signal(Signal::Term)),
                _ = int.recv() => Err(Stop::Signal(Signal::Int)),
            },
        }
    }
}

/// The stdout side: buffering, chunking, coalescing, closing.
struct Stdout<O: AsyncWrite + Unpin> {
    sink: BufWriter<O>,
    chunking: Option<Chunking>,
    rng: fastrand::Rng,
    /// Bytes not yet written, when chunking.
    pending: Vec<u8>,
    closed: bool,
}

impl<O: AsyncWrite + Unpin> Stdout<O> {
    fn next_chunk(&mut self) -> usize {
        match self.chunking {
            Some(Chunking::Size(n)) => n,
            Some(Chunking::Random) => self.rng.usize(1..=RANDOM_CHUNK_MAX),
            None => usize::MAX,
        }
    }

    async fn write_line(&mut self, bytes: &[u8], newline: bool) -> io::Result<()> {
        if self.closed {
            return Ok(());
        }
        if self.chunking.is_none() {
            self.sink.write_all(bytes).await?;
            if newline {
                self.sink.write_all(b"\n").await?;
            }
            return Ok(());
        }
        self.pending.extend_from_slice(bytes);
        if newline {
            self.pending.push(b'\n');
        }
        let mut written = 0;
        loop {
            let size = self.next_chunk();
            if self.pending.len() - written < size {
                // A fresh draw next time is as good as this one.
                self.pending.drain(..written);
                return Ok(());
            }
            self.sink
                .write_all(&self.pending[written..written + size])
                .await?;
            self.sink.flush().await?;
            written += size;
        }
    }

    async fn flush(&mut self) -> io::Result<()> {
        if self.closed {
            return Ok(());
        }
        if !self.pending.is_empty() {
            let rest = std::mem::take(&mut self.pending);
            self.sink.write_all(&rest).await?;
        }
        self.sink.flush().await
    }

    async fn close(&mut self) -> io::Result<()> {
        if self.closed {
            return Ok(());
        }
        self.flush().await?;
        self.closed = true;
        self.sink.shutdown().await
    }
}

fn stop_on_write(stream: &'static str, e: io::Error) -> Stop {
    if e.kind() == io::ErrorKind::BrokenPipe && stream == "stdout" {
        Stop::Closed
    } else {
        Stop::Error(ExecError::Write { stream, source: e })
    }
}

/// Performs the frames on `stdout` and `stderr`.
pub async fn execute<O, E>(
    frames: impl IntoIterator<Item = FrameResult>,
    stdout: O,
    mut stderr: E,
    options: &ExecOptions,
) -> Outcome
where
    O: AsyncWrite + Unpin,
    E: AsyncWrite + Unpin,
{
    let start = Instant::now();
    let mut outcome = Outcome {
        exit: None,
        stdout_closed_at: None,
        stdout_lines: 0,
        signal: None,
        error: None,
    };
    let mut signals = match Signals::new(options.signals) {
        Ok(signals) => signals,
        Err(e) => {
            outcome.error = Some(ExecError::Runtime(e));
            return outcome;
        }
    };
    let mut out = Stdout {
        sink: BufWriter::with_capacity(STDOUT_BUFFER, stdout),
        chunking: options.chunking,
        rng: fastrand::Rng::with_seed(options.seed),
        pending: Vec::new(),
        closed: false,
    };
    let mut step = match &options.step {
        None => None,
        Some(path) => match signals.race(open_step(path.clone())).await {
            Ok(Ok(file)) => Some(file),
            Ok(Err(e)) => {
                outcome.error = Some(e);
                return outcome;
            }
            Err(stop) => {
                finish(&mut outcome, stop, start);
                return outcome;
            }
        },
    };
    // Stalls push everything after them later.
    let mut offset = Duration::ZERO;
    let mut unflushed_lines = 0usize;
    let mut frames = frames.into_iter();
    let mut stderr_line = Vec::new();
    let result: Result<(), Stop> = async {
        for frame in frames.by_ref() {
            let frame = frame.map_err(|e| Stop::Error(e.into()))?;
            let wait = offset.saturating_add(frame.at());
            // A time past what the clock can hold is never reached: a wait for ever.
            let due = start.checked_add(wait);
            let group_full = options.coalesce.is_none_or(|n| unflushed_lines >= n);
            if options.timed && !wait.is_zero() && due.is_none_or(|due| Instant::now() < due) {
                if group_full || !matches!(frame, Frame::Line(_)) {
                    signals
                        .race(out.flush())
                        .await?
                        .map_err(|e| stop_on_write("stdout", e))?;
                    unflushed_lines = 0;
                }
                match due {
                    Some(due) => signals.race(wait_until(due, options.precise)).await?,
                    None => signals.race(std::future::pending::<()>()).await?,
                }
            }
            match frame {
                Frame::Line(line) if line.stream == Stream::Stdout => {
                    if let Some(file) = step.take() {
                        signals
                            .race(out.flush())
                            .await?
                            .map_err(|e| stop_on_write("stdout", e))?;
                        unflushed_lines = 0;
                        step = signals
                            .race(read_step(file, options.step.clone()))
                            .await?
                            .map_err(Stop::Error)?;
                    }
                    signals
                        .race(out.write_line(&line.bytes, line.newline))
                        .await?
                        .map_err(|e| stop_on_write("stdout", e))?;
                    if !out.closed {
                        outcome.stdout_lines += 1;
                    }
                    unflushed_lines += 1;
                    let flush_now = options.timed && options.coalesce.is_none_or(|n| unflushed_lines >= n);
                    if flush_now {
                        signals
                            .race(out.flush())
                            .await?
                            .map_err(|e| stop_on_write("stdout", e))?;
                        unflushed_lines = 0;
                    }
                }
                Frame::Line(line) => {
                    signals
                        .race(out.flush())
                        .await?
                        .map_err(|e| stop_on_write("stdout", e))?;
                    unflushed_lines = 0;
                    stderr_line.clear();
                    stderr_line.extend_from_slice(&line.bytes);
                    if line.newline {
                        stderr_line.push(b'\n');
                    }
                    match signals.race(stderr.write_all(&stderr_line)).await? {
                        // A consumer that closed stderr has stopped listening to it.
                        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {}
                        other => other.map_err(|e| stop_on_write("stderr", e))?,
                    }
                }
                Frame::Stall { duration, .. } => {
                    signals
                        .race(out.flush())
                        .await?
                        .map_err(|e| stop_on_write("stdout", e))?;
                    unflushed_lines = 0;
                    match duration {
                        Some(d) => {
                            signals.race(tokio::time::sleep(d)).await?;
                            offset = offset.saturating_add(d);
                        }
                        None => {
                            signals.race(std::future::pending::<()>()).await?;
                        }
                    }
                }
                Frame::CloseStdout { .. } => {
                    signals
                        .race(out.close())
                        .await?
                        .map_err(|e| stop_on_write("stdout", e))?;
                }
                Frame::End(end) => {
                    signals
                        .race(out.flush())
                        .await?
                        .map_err(|e| stop_on_write("stdout", e))?;
                    outcome.exit = Some(end.exit);
                    return Ok(());
                }
            }
        }
        Err(Stop::Error(ExecError::NoEnd))
    }
    .await;
    if let Err(stop) = result {
        let closed = matches!(stop, Stop::Closed);
        finish(&mut outcome, stop, start);
        if closed {
            // Skip the rest of the plan, but end as it ends.
            for frame in frames {
                match frame {
                    Ok(Frame::End(end)) => {
                        outcome.exit = Some(end.exit);
                        break;
                    }
                    Ok(_) => {}
                    Err(e) => {
                        outcome.error = Some(e.into());
                        break;
                    }
                }
            }
            if outcome.exit.is_none() && outcome.error.is_none() {
                outcome.error = Some(ExecError::NoEnd);
            }
        }
    }
    if outcome.error.is_some() {
        outcome.exit = None;
    }
    outcome
}

fn finish(outcome: &mut Outcome, stop: Stop, start: Instant) {
    match stop {
        Stop::Signal(signal) => {
            outcome.signal = Some(signal);
            outcome.exit = Some(Exit::Signal(signal));
        }
        Stop::Closed => outcome.stdout_closed_at = Some(start.elapsed()),
        Stop::Error(e) => outcome.error = Some(e),
    }
}

async fn open_step(path: PathBuf) -> Result<std::fs::File, ExecError> {
    let opened = {
        let path = path.clone();
        tokio::task::spawn_blocking(move || std::fs::File::open(path)).await
    };
    match opened {
        Ok(Ok(file)) => Ok(file),
        Ok(Err(source)) => Err(ExecError::Step { path, source }),
        Err(e) => Err(ExecError::Runtime(io::Error::other(e))),
    }
}

/// Reads one byte; `None` once the step file has ended.
async fn read_step(
    mut file: std::fs::File,
    path: Option<PathBuf>,
) -> Result<Option<std::fs::File>, ExecError> {
    use std::io::Read;
    let read = tokio::task::spawn_blocking(move || {
        let mut byte = [0u8; 1];
        loop {
            match file.read(&mut byte) {
                Ok(0) => return Ok(None),
                Ok(_) => return Ok(Some(file)),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    })
    .await;
    match read {
        Ok(Ok(file)) => Ok(file),
        Ok(Err(source)) => Err(ExecError::Step {
            path: path.unwrap_or_default(),
            source,
        }),
        Err(e) => Err(ExecError::Runtime(io::Error::other(e))),
    }
}

/// An [`AsyncWrite`] over a file (the process's stdout or stderr) that writes in
/// place: each write blocks until the pipe takes it.
///
/// For the fast path, where the executor runs alone on a current-thread runtime and
/// listens for no signal: a blocking write costs nothing there. Shutting it down closes
/// the file; [`Blocking::on_close`] runs then, as for [`Threaded`].
pub struct Blocking {
    file: Option<std::fs::File>,
    on_close: Option<Box<dyn FnOnce() + Send>>,
}

impl std::fmt::Debug for Blocking {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Blocking")
            .field("file", &self.file)
            .finish_non_exhaustive()
    }
}

impl Blocking {
    /// Writes to `file` in place.
    pub fn new(file: std::fs::File) -> Self {
        Blocking {
            file: Some(file),
            on_close: None,
        }
    }

    /// Runs `f` when the writer is shut down, after the file is closed.
    #[must_use]
    pub fn on_close(mut self, f: impl FnOnce() + Send + 'static) -> Self {
        self.on_close = Some(Box::new(f));
        self
    }
}

impl AsyncWrite for Blocking {
    fn poll_write(mut self: Pin<&mut Self>, _: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        use std::io::Write;
        Poll::Ready(match self.file.as_mut() {
            Some(file) => file.write(buf),
            None => Err(io::ErrorKind::BrokenPipe.into()),
        })
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.file = None;
        if let Some(f) = self.on_close.take() {
            f();
        }
        Poll::Ready(Ok(()))
    }
}

/// An [`AsyncWrite`] that writes on a blocking thread, so that the executor can
/// listen for signals while a write waits for a full pipe.
///
/// Shutting it down closes the file; [`Threaded::on_close`] runs then (the binary
/// points the process's stdout at `/dev/null`, so the consumer sees end of file).
pub struct Threaded {
    file: Option<std::fs::File>,
    pending: Option<tokio::task::JoinHandle<(std::fs::File, io::Result<usize>)>>,
    on_close: Option<Box<dyn FnOnce() + Send>>,
}

impl std::fmt::Debug for Threaded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Threaded")
            .field("file", &self.file)
            .finish_non_exhaustive()
    }
}

impl Threaded {
    /// Writes to `file` on a blocking thread.
    pub fn new(file: std::fs::File) -> Self {
        Threaded {
            file: Some(file),
            pending: None,
            on_close: None,
        }
    }

    /// Runs `f` when the writer is shut down, after the file is closed.
    #[must_use]
    pub fn on_close(mut self, f: impl FnOnce() + Send + 'static) -> Self {
        self.on_close = Some(Box::new(f));
        self
    }
}

impl AsyncWrite for Threaded {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        use std::io::Write;
        if self.pending.is_none() {
            let Some(mut file) = self.file.take() else {
                return Poll::Ready(Err(io::ErrorKind::BrokenPipe.into()));
            };
            let data = buf.to_vec();
            self.pending = Some(tokio::task::spawn_blocking(move || {
                let written = file.write(&data);
                (file, written)
            }));
        }
        let Some(handle) = self.pending.as_mut() else {
            return Poll::Ready(Err(io::ErrorKind::BrokenPipe.into()));
        };
        let joined = ready!(Pin::new(handle).poll(cx));
        self.pending = None;
        match joined {
            Ok((file, written)) => {
                self.file = Some(file);
                Poll::Ready(written)
            }
            Err(e) => Poll::Ready(Err(io::Error::other(e))),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.file = None;
        if let Some(f) = self.on_close.take() {
            f();
        }
        Poll::Ready(Ok(()))
    }
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
pub fn block_on<F: std::future::Future>(future: F, signals: bool) -> io::Result<F::Output> {
    let mut builder = tokio::runtime::Builder::new_current_thread();
    builder.enable_time();
    if signals {
        builder.enable_io();
    }
    Ok(builder.build()?.block_on(future))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frames::{Ending, Line};

    fn plan(lines: &[(u64, Stream, &str)], exit: Exit) -> Vec<FrameResult> {
        let mut frames: Vec<FrameResult> = lines
            .iter()
            .map(|(ms, stream, text)| {
                Ok(Frame::Line(Line {
                    at: Duration::from_millis(*ms),
                    stream: *stream,
                    bytes: text.as_bytes().to_vec(),
                    newline: true,
                }))
            })
            .collect();
        let at = Duration::from_millis(lines.last().map_or(0, |l| l.0));
        frames.push(Ok(Frame::End(Ending { at, exit })));
        frames
    }

    #[tokio::test]
    async fn writes_lines_and_ends_as_planned() {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let frames = plan(
            &[
                (0, Stream::Stdout, "a"),
                (0, Stream::Stderr, "oops"),
                (0, Stream::Stdout, "b"),
            ],
            Exit::Code(3),
        );
        let outcome = execute(frames, &mut out, &mut err, &ExecOptions::default()).await;
        assert_eq!(outcome.exit, Some(Exit::Code(3)));
        assert_eq!(out, b"a\nb\n");
        assert_eq!(err, b"oops\n");
        assert_eq!(outcome.stdout_lines, 2);
    }

    /// A sink that records each write with the (paused) time it happened.
    #[derive(Default)]
    struct Recorder {
        start: Option<Instant>,
        writes: Vec<(u128, Vec<u8>)>,
    }

    impl AsyncWrite for Recorder {
        fn poll_write(mut self: Pin<&mut Self>, _: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
            let start = *self.start.get_or_insert_with(Instant::now);
            let ms = Instant::now().duration_since(start).as_millis();
            self.writes.push((ms, buf.to_vec()));
            Poll::Ready(Ok(buf.len()))
        }
        fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
            Poll::Ready(Ok(()))
        }
        fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
            Poll::Ready(Ok(()))
        }
    }

    #[tokio::test(start_paused = true)]
    async fn timed_lines_are_written_at_their_time_on_their_own() {
        let mut out = Recorder {
            start: Some(Instant::now()),
            ..Recorder::default()
        };
        let frames = plan(
            &[
                (0, Stream::Stdout, "a"),
                (10, Stream::Stdout, "b"),
                (25, Stream::Stdout, "c"),
            ],
            Exit::Code(0),
        );
        let options = ExecOptions {
            timed: true,
            ..ExecOptions::default()
        };
        execute(frames, &mut out, Vec::new(), &options).await;
        assert_eq!(
            out.writes,
            vec![(0, b"a\n".to_vec()), (10, b"b\n".to_vec()), (25, b"c\n".to_vec())]
        );
    }

    #[tokio::test(start_paused = true)]
    async fn stalls_push_the_rest_later_and_chunks_split_across_lines() {
        let mut out = Recorder {
            start: Some(Instant::now()),
            ..Recorder::default()
        };
        let mut frames = plan(
            &[(0, Stream::Stdout, "abcde"), (5, Stream::Stdout, "fgh")],
            Exit::Code(0),
        );
        frames.insert(
            1,
            Ok(Frame::Stall {
                at: Duration::ZERO,
                duration: Some(Duration::from_millis(100)),
            }),
        );
        let options = ExecOptions {
            timed: true,
            chunking: Some(Chunking::Size(4)),
            ..ExecOptions::default()
        };
        execute(frames, &mut out, Vec::new(), &options).await;
        assert_eq!(
            out.writes,
            vec![
                (0, b"abcd".to_vec()),
                (0, b"e\n".to_vec()),
                (105, b"fgh\n".to_vec())
            ]
        );
    }

    #[tokio::test(start_paused = true)]
    async fn coalesce_groups_timed_lines() {
        let mut out = Recorder {
            start: Some(Instant::now()),
            ..Recorder::default()
        };
        let frames = plan(
            &[
                (0, Stream::Stdout, "a"),
                (10, Stream::Stdout, "b"),
                (20, Stream::Stdout, "c"),
                (30, Stream::Stdout, "d"),
            ],
            Exit::Code(0),
        );
        let options = ExecOptions {
            timed: true,
            coalesce: Some(3),
            ..ExecOptions::default()
        };
        execute(frames, &mut out, Vec::new(), &options).await;
        assert_eq!(
            out.writes,
            vec![(20, b"a\nb\nc\n".to_vec()), (30, b"d\n".to_vec())]
        );
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
                (0, Stream::Stderr, "x"),
                (0, Stream::Stdout, "a"),
                (0, Stream::Stderr, "y"),
            ],
            Exit::Code(0),
        );
        let outcome = execute(frames, Closed, &mut err, &ExecOptions::default()).await;
        assert!(outcome.stdout_closed());
        assert!(outcome.error.is_none());
        assert_eq!(outcome.exit, Some(Exit::Code(0)));
        assert_eq!(err, b"x\n");
    }
}
