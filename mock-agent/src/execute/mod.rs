//! The executor: performs a plan of frames on two output streams, on time.
//!
//! [`perform`] is the plan driver: it hands each frame of a one-way plan to an
//! [`Output`], which does everything a frame needs whoever planned it: waiting until
//! its time (plus the length of the stalls before it), buffering and chunking stdout,
//! keeping stdout and stderr in the planned order, step mode, and racing every wait
//! and write against SIGTERM and SIGINT. A driver of a conversation (the ACP server)
//! decides its frames as the client speaks and hands them to the same [`Output`].
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

mod writers;

use std::io;
use std::path::PathBuf;
use std::time::Duration;

use tokio::io::{AsyncWrite, AsyncWriteExt, BufWriter};
use tokio::time::Instant;

use harness::error::CassetteError;
use harness::exit_codes;
use harness::frames::{Chunking, Delivery, Exit, Frame, FrameResult, Line, Signal, Stream};

use crate::process::Interrupts;

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
#[derive(Debug, Default)]
pub struct Performed {
    /// How the process is to end; `None` when the run failed with [`Performed::error`].
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

impl Performed {
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

/// The stdout side: buffering, chunking, closing.
struct Stdout<O: AsyncWrite + Unpin> {
    sink: BufWriter<O>,
    chunking: Option<Chunking>,
    rng: fastrand::Rng,
    /// Bytes not yet written, when chunking.
    pending: Vec<u8>,
    /// The plan closed it, or the consumer did: nothing more is written.
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

/// Step mode's file: opened at the first stdout line, read one byte per line until
/// its end.
enum Step {
    Off,
    Unopened(PathBuf),
    Open(PathBuf, std::fs::File),
}

/// The output of a run: stdout and stderr, the clock, step mode and the signals.
///
/// Each frame handed to [`Output::perform`] is performed at its time, counted from
/// when the output was made, plus the stalls before it.
pub struct Output<O: AsyncWrite + Unpin, E: AsyncWrite + Unpin> {
    stdout: Stdout<O>,
    stderr: E,
    /// The stderr line being written, with its newline.
    stderr_line: Vec<u8>,
    signals: Signals,
    step: Step,
    timed: bool,
    coalesce: Option<usize>,
    precise: bool,
    start: Instant,
    /// Stalls push everything after them later.
    offset: Duration,
    /// Stdout lines in the buffer, not yet flushed.
    unflushed: usize,
    stdout_lines: u64,
    closed_at: Option<Duration>,
}

impl<O: AsyncWrite + Unpin, E: AsyncWrite + Unpin> Output<O, E> {
    /// An output over these streams; the clock starts now. Fails only when the
    /// signals asked for cannot be listened to.
    pub fn new(stdout: O, stderr: E, options: &ExecOptions) -> Result<Self, ExecError> {
        let delivery = &options.delivery;
        Ok(Output {
            stdout: Stdout {
                sink: BufWriter::with_capacity(STDOUT_BUFFER, stdout),
                chunking: delivery.chunking,
                rng: fastrand::Rng::with_seed(delivery.seed),
                pending: Vec::new(),
                closed: false,
            },
            stderr,
            stderr_line: Vec::new(),
            signals: Signals::new(delivery.signals).map_err(ExecError::Runtime)?,
            step: delivery.step.clone().map_or(Step::Off, Step::Unopened),
            timed: delivery.timed,
            coalesce: delivery.coalesce,
            precise: options.precise,
            start: Instant::now(),
            offset: Duration::ZERO,
            unflushed: 0,
            stdout_lines: 0,
            closed_at: None,
        })
    }

    /// Performs one frame at its time; the end frame's exit when it is the end.
    pub async fn perform(&mut self, frame: Frame) -> Result<Option<Exit>, Stop> {
        self.wait_for(&frame).await?;
        match frame {
            Frame::Line(line) => match line.stream {
                Stream::Stdout => self.stdout_line(&line).await?,
                Stream::Stderr => self.stderr_line(&line).await?,
                // What the recorded process read is not written.
                Stream::Stdin => {}
            },
            Frame::Stall { duration, .. } => {
                self.flush().await?;
                if self.closed_at.is_none() {
                    match duration {
                        Some(d) => {
                            self.signals.race(tokio::time::sleep(d)).await?;
                            self.offset = self.offset.saturating_add(d);
                        }
                        None => self.signals.race(std::future::pending::<()>()).await?,
                    }
                }
            }
            Frame::CloseStdout { .. } => {
                let closed = self.signals.race(self.stdout.close()).await?;
                self.stdout_result(closed)?;
            }
            Frame::End(end) => {
                self.flush().await?;
                return Ok(Some(end.exit));
            }
        }
        Ok(None)
    }

    /// Waits until the frame is due, flushing stdout first unless the frame is a line
    /// that joins a group still filling (`coalesce`).
    async fn wait_for(&mut self, frame: &Frame) -> Result<(), Stop> {
        // A consumer that closed stdout waits for nothing more.
        if !self.timed || self.closed_at.is_some() {
            return Ok(());
        }
        let wait = self.offset.saturating_add(frame.at());
        // A time past what the clock can hold is never reached: a wait for ever.
        let due = self.start.checked_add(wait);
        if wait.is_zero() || due.is_some_and(|due| Instant::now() >= due) {
            return Ok(());
        }
        let group_full = self.coalesce.is_none_or(|n| self.unflushed >= n);
        if group_full || !matches!(frame, Frame::Line(_)) {
            self.flush().await?;
        }
        match due {
            Some(due) => self.signals.race(wait_until(due, self.precise)).await,
            None => self.signals.race(std::future::pending::<()>()).await,
        }
    }

    async fn stdout_line(&mut self, line: &Line) -> Result<(), Stop> {
        if self.closed_at.is_some() {
            return Ok(());
        }
        self.step().await?;
        let written = self
            .signals
            .race(self.stdout.write_line(&line.bytes, line.newline))
            .await?;
        self.stdout_result(written)?;
        if !self.stdout.closed {
            self.stdout_lines += 1;
        }
        self.unflushed += 1;
        if self.timed && self.coalesce.is_none_or(|n| self.unflushed >= n) {
            self.flush().await?;
        }
        Ok(())
    }

    async fn stderr_line(&mut self, line: &Line) -> Result<(), Stop> {
        self.flush().await?;
        self.stderr_line.clear();
        self.stderr_line.extend_from_slice(&line.bytes);
        if line.newline {
            self.stderr_line.push(b'\n');
        }
        match self
            .signals
            .race(self.stderr.write_all(&self.stderr_line))
            .await?
        {
            // A consumer that closed stderr has stopped listening to it.
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
            Err(source) => Err(Stop::Error(ExecError::Write {
                stream: "stderr",
                source,
            })),
            Ok(()) => Ok(()),
        }
    }

    /// In step mode, waits for one byte of the step file before a stdout line.
    async fn step(&mut self) -> Result<(), Stop> {
        let (path, file) = match std::mem::replace(&mut self.step, Step::Off) {
            Step::Off => return Ok(()),
            Step::Unopened(path) => {
                self.flush().await?;
                let file = self.signals.race(open_step(path.clone())).await??;
                (path, file)
            }
            Step::Open(path, file) => {
                self.flush().await?;
                (path, file)
            }
        };
        if let Some(file) = self.signals.race(read_step(file, path.clone())).await?? {
            self.step = Step::Open(path, file);
        }
        Ok(())
    }

    /// Runs `work` unless SIGTERM or SIGINT comes first (when the output listens for
    /// them): what a driver waits for besides the frames (the client's next message).
    pub async fn race<T>(&mut self, work: impl std::future::Future<Output = T>) -> Result<T, Stop> {
        self.signals.race(work).await
    }

    /// How long the output has been running.
    pub fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }

    /// When the consumer closed stdout, if it did.
    pub fn stdout_closed_at(&self) -> Option<Duration> {
        self.closed_at
    }

    /// Writes out what stdout holds.
    pub async fn flush(&mut self) -> Result<(), Stop> {
        self.unflushed = 0;
        let flushed = self.signals.race(self.stdout.flush()).await?;
        self.stdout_result(flushed)
    }

    /// A closed pipe on stdout is the consumer's choice, not an error: from then on
    /// stdout is dropped.
    fn stdout_result(&mut self, result: io::Result<()>) -> Result<(), Stop> {
        match result {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
                self.stdout.closed = true;
                self.stdout.pending.clear();
                self.closed_at.get_or_insert_with(|| self.start.elapsed());
                Ok(())
            }
            Err(source) => Err(Stop::Error(ExecError::Write {
                stream: "stdout",
                source,
            })),
        }
    }

    /// What was performed so far.
    fn performed(&self) -> Performed {
        Performed {
            stdout_closed_at: self.closed_at,
            stdout_lines: self.stdout_lines,
            ..Performed::default()
        }
    }
}

/// The plan driver: performs the frames of a one-way plan on `stdout` and `stderr`.
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
        Err(e) => {
            return Performed {
                error: Some(e),
                ..Performed::default()
            }
        }
    };
    let mut ended = Err(Stop::Error(ExecError::NoEnd));
    for frame in frames {
        let step = match frame {
            Ok(frame) => output.perform(frame).await,
            Err(e) => Err(Stop::Error(e.into())),
        };
        match step {
            Ok(None) => {}
            Ok(Some(exit)) => {
                ended = Ok(exit);
                break;
            }
            Err(stop) => {
                ended = Err(stop);
                break;
            }
        }
    }
    let mut performed = output.performed();
    match ended {
        Ok(exit) => performed.exit = Some(exit),
        Err(Stop::Signal(signal)) => {
            performed.signal = Some(signal);
            performed.exit = Some(Exit::Signal(signal));
        }
        Err(Stop::Error(e)) => performed.error = Some(e),
    }
    performed
}

/// Whether a plan can be performed by [`perform_blocking`]: it waits for nothing
/// (untimed, no step mode) and splits no write. A plan that listens for signals
/// needs them caught by [`crate::process::Interrupts`].
pub fn blocking(delivery: &Delivery) -> bool {
    !delivery.timed && delivery.step.is_none() && delivery.chunking.is_none()
}

/// How often a stall of [`perform_blocking`] looks for a signal.
const STALL_SLICE: Duration = Duration::from_millis(5);

/// Performs a plan that [`blocking`] allows with blocking writes, without a runtime:
/// what [`perform`] does with such a plan, with less to start (the plain replay).
/// `on_close` runs when the plan closes stdout, after `stdout` is dropped.
/// With `signals` caught, a signal stops the plan before its next frame, or within
/// 5 ms of a stall, as [`perform`] stops on one.
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
    };
    let mut on_close = Some(on_close);
    let mut lines = 0;
    let mut ended = Err(Stop::Error(ExecError::NoEnd));
    for frame in frames {
        if let Some(signal) = interrupted() {
            ended = Err(Stop::Signal(signal));
            break;
        }
        let step = match frame {
            Err(e) => Err(ExecError::from(e)),
            Ok(Frame::Line(line)) if line.stream == Stream::Stdout => out.line(&line).map(|written| {
                lines += u64::from(written);
                None
            }),
            Ok(Frame::Line(line)) => out
                .flush()
                .and_then(|()| stderr_line(&mut stderr, &line))
                .map(|()| None),
            Ok(Frame::Stall { duration, .. }) => out.flush().map(|()| {
                // A consumer that closed stdout waits for nothing more.
                if out.closed_at.is_none() {
                    stall(duration, signals);
                }
                None
            }),
            Ok(Frame::CloseStdout { .. }) => out.flush().map(|()| {
                out.sink = None;
                if let Some(f) = on_close.take() {
                    f();
                }
                None
            }),
            Ok(Frame::End(end)) => out.flush().map(|()| Some(end.exit)),
        };
        match step {
            Ok(None) => {}
            Ok(Some(exit)) => {
                ended = Ok(exit);
                break;
            }
            Err(e) => {
                ended = Err(Stop::Error(e));
                break;
            }
        }
    }
    let mut performed = Performed {
        stdout_closed_at: out.closed_at,
        stdout_lines: lines,
        ..Performed::default()
    };
    // A signal that came during the last frame ends the run as it would have before.
    if let (Ok(_), Some(signal)) = (&ended, interrupted()) {
        ended = Err(Stop::Signal(signal));
    }
    match ended {
        Ok(exit) => performed.exit = Some(exit),
        Err(Stop::Signal(signal)) => {
            performed.signal = Some(signal);
            performed.exit = Some(Exit::Signal(signal));
        }
        Err(Stop::Error(e)) => performed.error = Some(e),
    }
    performed
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
}

impl<O: io::Write> BlockingStdout<O> {
    /// Writes a line; whether it was written.
    fn line(&mut self, line: &Line) -> Result<bool, ExecError> {
        let Some(sink) = self.sink.as_mut() else {
            return Ok(false);
        };
        let written = io::Write::write_all(sink, &line.bytes).and_then(|()| {
            if line.newline {
                io::Write::write_all(sink, b"\n")
            } else {
                Ok(())
            }
        });
        self.result(written)?;
        Ok(self.sink.is_some())
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
async fn read_step(mut file: std::fs::File, path: PathBuf) -> Result<Option<std::fs::File>, ExecError> {
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
        Ok(Err(source)) => Err(ExecError::Step { path, source }),
        Err(e) => Err(ExecError::Runtime(io::Error::other(e))),
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
    use harness::frames::Ending;
    use std::pin::Pin;
    use std::task::{Context, Poll};

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
        let outcome = perform(frames, &mut out, &mut err, &ExecOptions::default()).await;
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
        let mut delivery = Delivery::default();
        delivery.timed = true;
        let options = ExecOptions::new(delivery);
        perform(frames, &mut out, Vec::new(), &options).await;
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
        let mut delivery = Delivery::default();
        delivery.timed = true;
        delivery.chunking = Some(Chunking::Size(4));
        let options = ExecOptions::new(delivery);
        perform(frames, &mut out, Vec::new(), &options).await;
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
        let mut delivery = Delivery::default();
        delivery.timed = true;
        delivery.coalesce = Some(3);
        let options = ExecOptions::new(delivery);
        perform(frames, &mut out, Vec::new(), &options).await;
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

    #[test]
    fn the_blocking_executor_performs_as_the_runtime_does() {
        let frames = plan(
            &[
                (0, Stream::Stdout, "a"),
                (0, Stream::Stderr, "oops"),
                (0, Stream::Stdout, "b"),
            ],
            Exit::Code(3),
        );
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let outcome = perform_blocking(frames, &mut out, &mut err, || {}, None);
        assert_eq!(outcome.exit, Some(Exit::Code(3)));
        assert_eq!((out.as_slice(), err.as_slice()), (&b"a\nb\n"[..], &b"oops\n"[..]));
        assert_eq!(outcome.stdout_lines, 2);

        // A closed stdout: a quiet end, the recorded stderr still written.
        let frames = plan(
            &[
                (0, Stream::Stderr, "x"),
                (0, Stream::Stdout, "a"),
                (0, Stream::Stderr, "y"),
            ],
            Exit::Code(0),
        );
        let mut err = Vec::new();
        let outcome = perform_blocking(frames, ClosedPipe, &mut err, || {}, None);
        assert!(outcome.stdout_closed());
        assert!(outcome.error.is_none());
        assert_eq!(outcome.exit, Some(Exit::Code(0)));
        assert_eq!(err, b"x\ny\n");

        // A plan without its end is the mock's bug.
        let outcome = perform_blocking(Vec::new(), Vec::new(), Vec::new(), || {}, None);
        assert!(matches!(outcome.error, Some(ExecError::NoEnd)));
    }

    struct ClosedPipe;
    impl io::Write for ClosedPipe {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::ErrorKind::BrokenPipe.into())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
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
        let outcome = perform(frames, Closed, &mut err, &ExecOptions::default()).await;
        assert!(outcome.stdout_closed());
        assert!(outcome.error.is_none());
        assert_eq!(outcome.exit, Some(Exit::Code(0)));
        // The recorded stderr still reaches the consumer.
        assert_eq!(err, b"x\ny\n");
    }
}
