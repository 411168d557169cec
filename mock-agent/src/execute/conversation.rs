//! The server of a conversation that writes while its client talks: what the faults
//! made of one of its lines ([`Out`]) performed in order, and what the client sends
//! while a line waits for its time kept, to be handled once it is written.
//!
//! A server ([`Server`]) says how it writes a whole line, the start of one that ends
//! stdout, and a stall (these differ: the output format, the clock of the turn, what
//! a stall listens for); [`out`] does the rest the same way for every server (stderr,
//! the end of the process, exit 1 after a cut line), and [`write()`] and [`wait`] wait
//! for a frame's time with the client listened to ([`Client`]), what it sends
//! kept ([`keep_until`]).

use std::future::Future;
use std::time::Duration;

use tokio::io::AsyncWrite;

use harness::faults::lines::Out;
use harness::frames::{Exit, Frame, Line};
use harness::journal;

use super::inbox::Inbox;
use super::lines::Incoming;
use super::{Listen, Output, Stop};

/// A wait listens to the client: whatever comes ends it, to be handled by the server.
/// `eof`: nothing more comes; `full`: the server holds as many of the client's bytes
/// as it keeps already, and reads nothing more until it has taken some.
pub struct Client<'a> {
    /// The client's lines.
    pub inbox: &'a mut Inbox<Incoming>,
    /// Nothing more comes (the end of stdin was read).
    pub eof: bool,
    /// The server reads nothing more for now.
    pub full: bool,
}

impl Listen for Client<'_> {
    type Event = Incoming;
    type Interrupt = Incoming;

    fn try_recv(&mut self) -> Option<Incoming> {
        if self.eof || self.full {
            return None;
        }
        self.inbox.try_recv()
    }

    async fn recv(&mut self) -> Incoming {
        if self.eof || self.full {
            return std::future::pending().await;
        }
        self.inbox.recv().await.unwrap_or(Incoming::Eof)
    }

    fn handle(&mut self, event: Incoming, _: Duration) -> Option<Incoming> {
        Some(event)
    }
}

/// A conversation's server, as [`out`], [`write()`] and [`wait`] drive it.
pub trait Server {
    /// Where its stdout goes.
    type Stdout: AsyncWrite + Unpin;
    /// Where its stderr goes.
    type Stderr: AsyncWrite + Unpin;

    /// Its output, and the client as a wait listens to it now.
    fn listen(&mut self) -> (&mut Output<Self::Stdout, Self::Stderr>, Client<'_>);

    /// Keeps what the client sent during a wait, to be handled after it.
    fn keep(&mut self, event: Incoming);

    /// Journals a line that went `dir` ([`journal::OUT`], [`journal::ERR`]).
    fn note(&mut self, dir: &str, line: &[u8]);

    /// How the process ends, once a fault or the client decided.
    fn ended(&mut self) -> &mut Option<Exit>;

    /// Writes a whole line of stdout, at its time on the turn's clock when `timed`, else
    /// at once.
    fn line(&mut self, line: Vec<u8>, timed: bool) -> impl Future<Output = Result<(), Stop>>;

    /// Writes the start of a line, and nothing more of stdout (what the output shows
    /// of it).
    fn cut(&mut self, bytes: Vec<u8>) -> impl Future<Output = Result<(), Stop>>;

    /// Writes nothing for `duration` (`None`: for ever); `true` when the client's
    /// answer to the stall ends what the line was part of.
    fn pause(&mut self, duration: Option<Duration>) -> impl Future<Output = Result<bool, Stop>>;
}

/// Performs one thing the faults made of a line (a whole line `timed` or not, see
/// [`Server::line`]); `true` when what the line was part of ends: the process (an
/// [`Out::End`]) or the turn (a stall the client interrupted).
pub async fn out<S: Server>(server: &mut S, out: Out, timed: bool) -> Result<bool, Stop> {
    match out {
        Out::Line(line) => server.line(line, timed).await?,
        Out::Cut(bytes) => {
            server.cut(bytes).await?;
            // The `End` that follows says how the process ends (exit 1 after `eof`,
            // the signal of `signal:byte=K`).
            server.ended().get_or_insert(Exit::Code(1));
        }
        Out::Stderr(text) => {
            server.note(journal::ERR, &text);
            let (output, _) = server.listen();
            output
                .perform(Frame::Line(Line::stderr(Duration::ZERO, text)))
                .await?;
        }
        Out::Stall(duration) => return server.pause(duration).await,
        Out::End(exit) => {
            *server.ended() = Some(exit);
            return Ok(true);
        }
    }
    Ok(false)
}

/// Performs `frame` at `due`; what the client sends before is kept, to be handled
/// once it is written.
pub async fn write<S: Server>(server: &mut S, due: Duration, frame: Frame) -> Result<(), Stop> {
    keep_until(server, due, matches!(frame, Frame::Line(_))).await?;
    let (output, _) = server.listen();
    output.perform(frame).await.map(|_| ())
}

/// Waits until `due` (what is written then is a `line` or not); what the client
/// sends meanwhile is kept, to be handled once it is written.
pub async fn keep_until<S: Server>(server: &mut S, due: Duration, line: bool) -> Result<(), Stop> {
    while let Some(event) = wait(server, due, line).await? {
        server.keep(event);
    }
    Ok(())
}

/// Waits until `due` (what is written then is a `line` or not), listening to the
/// client: `Some` with what it sent, which ended the wait early.
pub async fn wait<S: Server>(server: &mut S, due: Duration, line: bool) -> Result<Option<Incoming>, Stop> {
    let (output, mut client) = server.listen();
    output.wait_until(due, line, &mut client).await
}

/// The options of a conversation's server: every frame on time (`precise`), signals
/// caught, and the settings' timing, step mode and seed.
pub fn exec_options(settings: &crate::settings::Settings) -> super::ExecOptions {
    let mut delivery = harness::frames::Delivery::default();
    delivery.timed = settings.timing != harness::timing::Timing::default();
    delivery.signals = true;
    delivery.step.clone_from(&settings.step);
    delivery.seed = settings.seed;
    super::ExecOptions {
        precise: true,
        ..super::ExecOptions::new(delivery)
    }
}

/// A conversation's stdio: stdout written by a thread of its own ([`super::Handoff`];
/// its pipe grown to 1 MiB first when `grow`, for runs of lines that go out in one
/// piece), stderr by another, and the client's lines, read from stdin by a third when
/// `listen` (else none come: the inbox is closed).
pub fn stdio(
    exec: &super::ExecOptions,
    grow: bool,
    listen: bool,
) -> Result<(Output<super::Handoff, super::Threaded>, Inbox<Incoming>), super::ExecError> {
    let dup = |stream: &dyn std::os::fd::AsFd| super::dup(&stream.as_fd()).map_err(super::ExecError::Runtime);
    let stdout = dup(&std::io::stdout())?;
    if grow {
        super::planned::grow_pipe(&stdout);
    }
    let stdout = super::Handoff::new(stdout);
    let stderr = super::Threaded::new(dup(&std::io::stderr())?);
    let output = Output::new(stdout, stderr, exec)?;
    let (sender, inbox) = super::inbox::channel();
    if listen {
        std::thread::spawn(move || super::lines::read_stdin(&sender, super::lines::Reading::STRICT, || {}));
    }
    Ok((output, inbox))
}

/// A line of the client's over [`super::lines::MAX_LINE`] bytes (`read` of them read):
/// the mock's own error on stderr (journaled), after what stdout holds, and the process
/// ends with [`harness::exit_codes::INVALID_INPUT`] (the client would otherwise wait for
/// ever for an answer to a line nobody read). The error, for the journal's entry.
pub async fn too_long<S: Server>(server: &mut S, read: usize) -> Result<String, Stop> {
    let limit = super::lines::MAX_LINE;
    let error = format!(
        "a line on stdin is over {} MiB ({read} bytes read of it): the stand-in reads lines of up to {limit} bytes",
        limit >> 20
    );
    let text = format!("mock-agent: {error}");
    server.note(journal::ERR, text.as_bytes());
    let (output, _) = server.listen();
    output.flush().await?;
    output
        .perform(Frame::Line(Line::stderr(Duration::ZERO, text)))
        .await?;
    *server.ended() = Some(Exit::Code(harness::exit_codes::INVALID_INPUT));
    Ok(error)
}
