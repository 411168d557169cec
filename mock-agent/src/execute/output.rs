//! [`Output`]: stdout (buffered, chunked, closed), stderr, step mode and the
//! signals, for any driver: the one-way plan's and the server's.

use std::io;
use std::path::PathBuf;
use std::time::Duration;

use tokio::io::{AsyncWrite, AsyncWriteExt, BufWriter};
use tokio::time::Instant;

use harness::frames::{Chunking, Exit, Frame, Line, Signal, Stream};

use super::{ExecError, ExecOptions, Performed, Stop, RANDOM_CHUNK_MAX, STDOUT_BUFFER};

/// SIGTERM and SIGINT, when the run listens for them.
pub(super) struct Signals(Option<(tokio::signal::unix::Signal, tokio::signal::unix::Signal)>);

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
    pub(super) async fn race<T>(&mut self, work: impl std::future::Future<Output = T>) -> Result<T, Stop> {
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
    /// The buffer's size: a write that leaves it less full goes into it whole.
    capacity: usize,
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

    /// Whether `line` goes into the buffer without a write to the sink (so its write
    /// cannot wait).
    fn fits(&self, line: &Line) -> bool {
        self.chunking.is_none()
            && !self.closed
            && self.sink.buffer().len() + line.bytes.len() + usize::from(line.newline) < self.capacity
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
/// Each frame handed to [`Output::perform_at`] is performed at its due time, counted
/// from when the output was made.
pub struct Output<O: AsyncWrite + Unpin, E: AsyncWrite + Unpin> {
    stdout: Stdout<O>,
    stderr: E,
    /// The stderr line being written, with its newline.
    stderr_line: Vec<u8>,
    pub(super) signals: Signals,
    step: Step,
    /// Step mode ends when this turns true ([`Output::end_steps_when`]).
    steps_end: Option<tokio::sync::watch::Receiver<bool>>,
    timed: bool,
    pub(super) coalesce: Option<usize>,
    pub(super) precise: bool,
    pub(super) start: Instant,
    /// Stalls push everything after them later.
    offset: Duration,
    /// Stdout lines in the buffer, not yet flushed.
    pub(super) unflushed: usize,
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
                capacity: STDOUT_BUFFER,
                chunking: delivery.chunking,
                rng: fastrand::Rng::with_seed(delivery.seed),
                pending: Vec::new(),
                closed: false,
            },
            stderr,
            stderr_line: Vec::new(),
            signals: Signals::new(delivery.signals).map_err(ExecError::Runtime)?,
            step: delivery.step.clone().map_or(Step::Off, Step::Unopened),
            steps_end: None,
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

    /// Performs one frame now (its time is [`Output::perform_at`]'s business); the end
    /// frame's exit when it is the end.
    pub async fn perform(&mut self, frame: Frame) -> Result<Option<Exit>, Stop> {
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

    /// When a frame of a one-way plan is due on the live clock: its time (the plan's
    /// [`harness::timing::Clock`] made it) plus the stalls before it; at once when the
    /// plan is untimed (its times are the recording's), or once the consumer closed
    /// stdout (it waits for nothing more).
    pub fn planned(&self, frame: &Frame) -> Duration {
        if !self.timed || self.closed_at.is_some() {
            return Duration::ZERO;
        }
        self.offset.saturating_add(frame.at())
    }

    async fn stdout_line(&mut self, line: &Line) -> Result<(), Stop> {
        if self.closed_at.is_some() {
            return Ok(());
        }
        self.step().await?;
        // A line that the buffer takes whole is written without a wait: nothing for a
        // signal to interrupt (signals are heard at the flushes, which may wait).
        let written = if self.stdout.fits(line) {
            self.stdout.write_line(&line.bytes, line.newline).await
        } else {
            self.signals
                .race(self.stdout.write_line(&line.bytes, line.newline))
                .await?
        };
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

    /// Performs `run`, whole stdout lines each with its newline, now, as
    /// [`Output::perform`] performs them as one line: handed to the stdout writer
    /// whole ([`super::TakeBuffer`]: [`super::Handoff`] does not copy it) once what the
    /// stdout buffer holds is written. `run` is left empty, a buffer to fill next.
    /// With chunking or step mode, or not ended by a newline, it is performed as a
    /// line (copied).
    pub async fn perform_buffer(&mut self, run: &mut Vec<u8>) -> Result<(), Stop>
    where
        O: super::TakeBuffer,
    {
        if self.closed_at.is_some() {
            run.clear();
            return Ok(());
        }
        if self.stdout.chunking.is_some() || !matches!(self.step, Step::Off) || run.last() != Some(&b'\n') {
            let mut bytes = std::mem::take(run);
            let newline = bytes.pop_if(|b| *b == b'\n').is_some();
            let mut line = Line::stdout(Duration::ZERO, bytes);
            line.newline = newline;
            return self.stdout_line(&line).await;
        }
        if !self.stdout.sink.buffer().is_empty() {
            self.flush().await?;
        }
        if self.closed_at.is_none() && !self.stdout.closed {
            let sink = self.stdout.sink.get_mut();
            let taken = self
                .signals
                .race(std::future::poll_fn(|cx| sink.poll_take(cx, run)))
                .await?;
            self.stdout_result(taken)?;
            if !self.stdout.closed {
                self.stdout_lines += 1;
            }
        }
        run.clear();
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

    /// Ends step mode when `end` turns true, as the end of the step file does: the byte
    /// waited for then and every later one are no longer waited for (the server's end
    /// of stdin: the agent finishes at once).
    pub fn end_steps_when(&mut self, end: tokio::sync::watch::Receiver<bool>) {
        self.steps_end = Some(end);
    }

    /// In step mode, waits for one byte of the step file before a stdout line.
    async fn step(&mut self) -> Result<(), Stop> {
        if matches!(self.step, Step::Off) {
            return Ok(());
        }
        self.flush().await?;
        let mut end = self.steps_end.clone();
        let ended = async move {
            let ended = match end.as_mut() {
                Some(end) => end.wait_for(|ended| *ended).await.is_ok(),
                None => false,
            };
            // A sender gone without a word ends nothing.
            if !ended {
                std::future::pending::<()>().await;
            }
        };
        let step = std::mem::replace(&mut self.step, Step::Off);
        let waited = async move {
            let (path, file) = match step {
                Step::Off => return Ok(None),
                Step::Unopened(path) => (path.clone(), open_step(path).await?),
                Step::Open(path, file) => (path, file),
            };
            let file = read_step(file, path.clone()).await?;
            Ok::<_, ExecError>(file.map(|file| Step::Open(path, file)))
        };
        let stepped = self
            .signals
            .race(async {
                tokio::select! {
                    stepped = waited => Some(stepped),
                    () = ended => None,
                }
            })
            .await?;
        // At the end of the step file, or when step mode ends: the rest goes.
        if let Some(Some(step)) = stepped.transpose()? {
            self.step = step;
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

    /// What was performed, the run ended so.
    pub(super) fn performed(&self, ended: Result<Exit, Stop>) -> Performed {
        Performed {
            ended,
            stdout_closed_at: self.closed_at,
            stdout_lines: self.stdout_lines,
        }
    }
}

impl<E: AsyncWrite + Unpin> Output<super::Handoff, E> {
    /// Performs `run`, whole stdout lines, as [`Output::perform`] performs it as one
    /// line without a newline, but a run of at least [`super::HANDOFF`] bytes (which
    /// that writes at once too) is handed itself to the writing thread
    /// ([`Output::perform_buffer`]: no copy of it) where nothing asks for its bytes one
    /// by one (no timing, no step mode, no chunking); an empty buffer to fill next
    /// comes back. A shorter run is buffered as a line is, and written with what
    /// follows it (a client that times its own end by the agent's last lines sees
    /// them written together, as before).
    pub async fn perform_run(&mut self, mut run: Vec<u8>) -> Result<Vec<u8>, Stop> {
        let plain = !self.timed && matches!(self.step, Step::Off) && self.stdout.chunking.is_none();
        if !plain || run.len() < super::HANDOFF || self.closed_at.is_some() || self.stdout.closed {
            let mut line = Line::stdout(Duration::ZERO, run);
            line.newline = false;
            self.stdout_line(&line).await?;
            line.bytes.clear();
            return Ok(line.bytes);
        }
        self.perform_buffer(&mut run).await?;
        Ok(run)
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
