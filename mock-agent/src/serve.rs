//! Server mode: `cursor-agent acp`, an Agent Client Protocol agent on stdin and
//! stdout, playing a [`Conversation`] (a recording as a script, or a print-mode
//! session told through ACP; see `harness::acp`).
//!
//! The loop reads the client's messages (on a thread of its own, a line at a time,
//! at most [`MAX_LINE`] bytes), answers each request with its conversation's steps,
//! performed on the executor's [`Output`] (timing, step mode, chunking, signals), and
//! keeps listening while it plays them:
//!
//! - `session/cancel` during a turn stops it: no more updates, `$/cancel_request` for
//!   an agent request still waiting, and the prompt answered `stopReason: cancelled`;
//! - the client's answers to the agent's requests are matched by id, in any order;
//! - other requests wait their turn, in order; a line that is not JSON-RPC is
//!   ignored (and journaled);
//! - where the client does what the recording did not, the mock goes on as the
//!   recording goes, and says so in the journal; with `MOCK_AGENT_STRICT=1` it
//!   answers with a JSON-RPC error that says what differed.
//!
//! End of stdin ends the process: exit 0, or as the recording ended.

use std::collections::{HashMap, VecDeque};
use std::fs::File;
use std::future::Future;
use std::io::{self, BufRead, Read};
use std::pin::Pin;
use std::task::{ready, Context, Poll};
use std::time::Duration;

use serde_json::{json, Value};
use tokio::sync::mpsc;

use harness::acp::faults::{AcpFault, Injector, Out};
use harness::acp::rpc::{self, codes, Kind, Message};
use harness::acp::{methods, wire, Conversation, Step, Steps, Wait, CANCEL_WAIT};
use harness::frames::{Delivery, Exit, Frame, Line, Signal};
use harness::journal;
use harness::timing::{Base, Timing};

use crate::execute::{self, ExecError, ExecOptions, Output, Stop, Threaded};

/// The longest line read from the client: longer ones are dropped (and journaled).
pub const MAX_LINE: usize = 64 << 20;

/// The most stdout bytes handed to the writing thread at once.
const HANDOFF: usize = 1 << 20;

/// About the most bytes of agent messages written together in a plain run.
const RUN_BYTES: usize = 64 << 10;

/// How a server run went.
#[derive(Debug)]
pub struct Served {
    /// How the process is to end.
    pub exit: Exit,
    /// The signal that ended it, if one did.
    pub signal: Option<Signal>,
    /// When the client closed the agent's stdout, if it did.
    pub stdout_closed_at: Option<Duration>,
    /// The conversation, when journaled.
    pub conversation: Option<journal::Conversation>,
    /// The mock's own error, already printed.
    pub error: Option<String>,
    /// The faults, and whether each acted.
    pub faults: Vec<journal::FaultRecord>,
}

/// How a server run is set up.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct ServeOptions {
    /// When the agent's messages are written.
    pub timing: Timing,
    /// The seed of random choices (jitter).
    pub seed: u64,
    /// Step mode's file: one byte before each agent message.
    pub step: Option<std::path::PathBuf>,
    /// Answer a divergence with a JSON-RPC error.
    pub strict: bool,
    /// Keep every message for the journal.
    pub journal: bool,
    /// The conversation is a recording (so a cancel it lacks is a divergence).
    pub recorded: bool,
    /// What goes wrong on purpose.
    pub faults: Vec<AcpFault>,
}

/// A line of the client's, or its end.
enum Incoming {
    Line(Vec<u8>),
    TooLong(usize),
    Eof,
}

/// Serves `conversation` on this process's stdin, stdout and stderr.
pub fn serve(conversation: Box<dyn Conversation>, options: &ServeOptions) -> Served {
    let failed = |message: String, code: i32| {
        eprintln!("mock-agent: {message}");
        Served {
            exit: Exit::Code(code),
            signal: None,
            stdout_closed_at: None,
            conversation: None,
            error: Some(message),
            faults: Vec::new(),
        }
    };
    let streams = (std::io::stdout(), std::io::stderr());
    let (out, err) = match (dup(&streams.0), dup(&streams.1)) {
        (Ok(out), Ok(err)) => (out, err),
        (Err(e), _) | (_, Err(e)) => {
            return failed(
                format!("cannot open stdout or stderr: {e}"),
                harness::exit_codes::IO_ERROR,
            )
        }
    };
    let run = async move {
        let (sender, inbox) = mpsc::unbounded_channel();
        std::thread::spawn(move || read_client(&sender));
        let mut delivery = Delivery::default();
        delivery.timed = options.timing != Timing::default();
        delivery.signals = true;
        delivery.step.clone_from(&options.step);
        delivery.seed = options.seed;
        let injector = Injector::new(options.faults.clone());
        delivery.chunking = injector.chunking();
        delivery.coalesce = injector.coalesce().then_some(harness::scenario::COALESCE_LINES);
        let exec = ExecOptions {
            precise: true,
            ..ExecOptions::new(delivery)
        };
        // The writing thread takes up to a megabyte at a time, not the executor's
        // 64 KiB, while the loop fills the next. Every flush of the executor's still
        // reaches the pipe.
        let stdout = Handoff::new(out);
        let output = Output::new(stdout, Threaded::new(err), &exec)?;
        let mut server = Server {
            conversation,
            output,
            inbox,
            queue: VecDeque::new(),
            answered: HashMap::new(),
            eof: false,
            timing: options.timing,
            rng: fastrand::Rng::with_seed(options.seed),
            strict: options.strict,
            recorded: options.recorded,
            sent: 0,
            journal: options.journal.then(journal::Conversation::default),
            divergences: Vec::new(),
            injector,
            plain: options.faults.is_empty()
                && options.step.is_none()
                && options.timing.base == Base::Instant
                && options.timing.jitter.is_zero(),
        };
        let ended = server.run().await;
        let flushed = server.output.flush().await;
        Ok::<_, ExecError>((ended.and_then(|exit| flushed.map(|()| exit)), server))
    };
    match execute::block_on(run, true) {
        Err(e) => failed(
            format!("cannot start the runtime: {e}"),
            harness::exit_codes::INTERNAL,
        ),
        Ok(Err(e)) => failed(e.to_string(), e.exit_code()),
        Ok(Ok((ended, server))) => {
            let mut conversation = server.journal;
            if let Some(conversation) = &mut conversation {
                conversation.divergences = server.divergences;
            }
            let faults = server
                .injector
                .report()
                .into_iter()
                .map(|(name, fired)| journal::FaultRecord {
                    name: name.to_owned(),
                    fired,
                })
                .collect();
            let mut served = Served {
                exit: Exit::Code(0),
                signal: None,
                stdout_closed_at: server.output.stdout_closed_at(),
                conversation,
                error: None,
                faults,
            };
            match ended {
                Ok(exit) => served.exit = exit,
                Err(Stop::Signal(signal)) => {
                    served.signal = Some(signal);
                    served.exit = Exit::Signal(signal);
                }
                Err(Stop::Error(e)) => {
                    let message = e.to_string();
                    eprintln!("mock-agent: {message}");
                    served.exit = Exit::Code(e.exit_code());
                    served.error = Some(message);
                }
            }
            served
        }
    }
}

fn dup(fd: &impl std::os::fd::AsFd) -> std::io::Result<std::fs::File> {
    fd.as_fd().try_clone_to_owned().map(std::fs::File::from)
}

/// Reads the client's lines until stdin ends; a line over [`MAX_LINE`] is dropped.
fn read_client(sender: &mpsc::UnboundedSender<Incoming>) {
    let stdin = std::io::stdin();
    let mut reader = std::io::BufReader::with_capacity(64 << 10, stdin.lock());
    loop {
        let mut line = Vec::new();
        let mut dropped = 0usize;
        let ended = loop {
            let buf = match reader.fill_buf() {
                Ok([]) => break true,
                Ok(buf) => buf,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(_) => break true,
            };
            let (part, done) = match memchr::memchr(b'\n', buf) {
                Some(i) => (&buf[..i], Some(i + 1)),
                None => (buf, None),
            };
            if dropped > 0 || line.len() + part.len() > MAX_LINE {
                dropped += line.len() + part.len();
                line.clear();
            } else {
                line.extend_from_slice(part);
            }
            let used = done.unwrap_or(buf.len());
            reader.consume(used);
            if done.is_some() {
                break false;
            }
        };
        if line.last() == Some(&b'\r') {
            line.pop();
        }
        let message = if dropped > 0 {
            Some(Incoming::TooLong(dropped))
        } else if !line.is_empty() {
            Some(Incoming::Line(line))
        } else {
            None
        };
        if let Some(message) = message {
            if sender.send(message).is_err() {
                return;
            }
        }
        if ended {
            let _ = sender.send(Incoming::Eof);
            // Drain nothing more: stdin is at its end.
            let _ = reader.read(&mut [0u8; 1]);
            return;
        }
    }
}

/// Why a turn stopped before its steps were done.
enum Interrupted {
    /// The client cancelled it.
    Cancelled,
    /// The client closed stdin.
    Eof,
    /// The process ends (a fault).
    Ended(Exit),
}

/// The request a reply answers.
struct Live {
    id: String,
    method: String,
    session: Option<String>,
    responded: bool,
}

struct Server<O: tokio::io::AsyncWrite + Unpin, E: tokio::io::AsyncWrite + Unpin> {
    conversation: Box<dyn Conversation>,
    output: Output<O, E>,
    inbox: mpsc::UnboundedReceiver<Incoming>,
    /// Client messages read while a turn played, handled after it, in order.
    queue: VecDeque<Vec<u8>>,
    /// The client's answers to the agent's requests, by id, with when they came.
    answered: HashMap<String, (Value, Duration)>,
    eof: bool,
    timing: Timing,
    rng: fastrand::Rng,
    strict: bool,
    recorded: bool,
    /// Agent messages written so far.
    sent: u64,
    journal: Option<journal::Conversation>,
    divergences: Vec<String>,
    injector: Injector,
    /// No fault, no step mode, no wait between messages: the agent's messages that
    /// come one after the other are written together ([`Server::send_run`]).
    plain: bool,
}

impl<O: tokio::io::AsyncWrite + Unpin, E: tokio::io::AsyncWrite + Unpin> Server<O, E> {
    async fn run(&mut self) -> Result<Exit, Stop> {
        let flood = self.injector.start();
        self.write(flood).await?;
        let start = self.conversation.start();
        if let Some(exit) = self.play(start, None).await? {
            return Ok(exit);
        }
        loop {
            let Some(line) = self.next().await? else {
                return Ok(self.conversation.ending());
            };
            let Some(message) = Message::parse(&line) else {
                continue;
            };
            match message.kind {
                Kind::Request => {
                    let mut reply = self.conversation.reply(&message);
                    let live = Live {
                        id: message.id_text().to_owned(),
                        method: message.method().to_owned(),
                        session: message.param_str("sessionId"),
                        responded: false,
                    };
                    if let Some(divergence) = reply.divergence.take() {
                        if self.strict {
                            let error = strict_error(&live.id, &divergence);
                            self.diverge(divergence);
                            if let Some(exit) = self.send(error).await? {
                                return Ok(exit);
                            }
                            continue;
                        }
                        self.diverge(divergence);
                    }
                    let steps = match self.injector.on_request(&live.method, &live.id, reply.steps) {
                        Ok(steps) => steps,
                        Err(crash) => {
                            self.write(crash.out).await?;
                            return Ok(crash.end.unwrap_or(Exit::Code(1)));
                        }
                    };
                    if self.cancelled_in_queue(&live) {
                        if let Some(exit) = self.cancel(Some(&live), false).await? {
                            return Ok(exit);
                        }
                        continue;
                    }
                    if let Some(exit) = self.play(steps, Some(live)).await? {
                        return Ok(exit);
                    }
                }
                Kind::Response => {
                    let at = self.output.elapsed();
                    let answer = answer_value(&message);
                    self.answered.insert(message.id_text().to_owned(), (answer, at));
                }
                Kind::Notification => {}
            }
        }
    }

    /// Performs the steps of one reply, as they are made (a recording's are read from
    /// its cassette one at a time); `Some(exit)` when the process is to end. A
    /// cassette that cannot be read on is the mock's error.
    async fn play(&mut self, steps: Steps, mut live: Option<Live>) -> Result<Option<Exit>, Stop> {
        let mut base_live = self.output.elapsed();
        let mut base_recorded = Duration::ZERO;
        let mut last_due = base_live;
        let mut steps = steps.peekable();
        while let Some(step) = steps.next() {
            let step = step.map_err(ExecError::Cassette)?;
            let gap = step.at().saturating_sub(base_recorded);
            let outcome = match step {
                Step::Send { line, .. } => {
                    let due = self.due(base_live, gap, &mut last_due, true);
                    match self.wait_until(due, live.as_ref()).await? {
                        Some(interrupted) => Err(interrupted),
                        None => {
                            let response = live.as_ref().is_some_and(|live| {
                                !live.responded
                                    && !rpc::surely_not_response(&line)
                                    && Message::parse(&line)
                                        .is_some_and(|m| m.kind == Kind::Response && m.id_text() == live.id)
                            });
                            if let Some(live) = live.as_mut().filter(|_| response) {
                                live.responded = true;
                                if let Some(delay) = self.injector.late(&live.method) {
                                    let due = self.output.elapsed() + delay;
                                    if let Some(interrupted) = self.wait_until(due, None).await? {
                                        if matches!(interrupted, Interrupted::Eof) {
                                            return Ok(Some(self.conversation.ending()));
                                        }
                                    }
                                }
                            }
                            if !response && self.plain {
                                self.send_run(line, &mut steps).await?;
                            } else if let Some(exit) = self.send(line).await? {
                                return Ok(Some(exit));
                            }
                            Ok(())
                        }
                    }
                }
                Step::Stderr { line, .. } => {
                    let due = self.due(base_live, gap, &mut last_due, false);
                    match self.wait_until(due, live.as_ref()).await? {
                        Some(interrupted) => Err(interrupted),
                        None => {
                            self.note("err", &line);
                            self.output
                                .perform(Frame::Line(Line::stderr(Duration::ZERO, line)))
                                .await?;
                            Ok(())
                        }
                    }
                }
                Step::Await { at, wait } => {
                    if matches!(wait, Wait::Answer { .. }) {
                        if let Some(crash) = self.injector.asking() {
                            self.write(crash.out).await?;
                            return Ok(crash.end);
                        }
                    }
                    let waited = match wait {
                        Wait::Answer { id, method, recorded } => {
                            self.await_answer(&id, &method, recorded, live.as_mut()).await?
                        }
                        Wait::Notification { method } => self.await_cancel(&method, live.as_ref()).await?,
                    };
                    base_live = self.output.elapsed();
                    base_recorded = at;
                    last_due = base_live;
                    waited.map_or(Ok(()), Err)
                }
                Step::End { exit, .. } => {
                    let due = self.due(base_live, gap, &mut last_due, false);
                    if let Some(interrupted) = self.wait_until(due, live.as_ref()).await? {
                        Err(interrupted)
                    } else {
                        return Ok(Some(exit));
                    }
                }
            };
            match outcome {
                Ok(()) => {}
                Err(Interrupted::Eof) => return Ok(Some(self.conversation.ending())),
                Err(Interrupted::Ended(exit)) => return Ok(Some(exit)),
                Err(Interrupted::Cancelled) => {
                    let recorded_later = steps.any(|s| {
                        matches!(s, Ok(Step::Await { wait: Wait::Notification { ref method }, .. }) if method == methods::SESSION_CANCEL)
                    });
                    return self.cancel(live.as_ref(), recorded_later).await;
                }
            }
        }
        Ok(None)
    }

    /// When a step `gap` after the base is due, on the live clock.
    fn due(&mut self, base: Duration, gap: Duration, last: &mut Duration, message: bool) -> Duration {
        let mut due = match self.timing.base {
            Base::Instant => base,
            Base::Recorded { scale } => base.saturating_add(gap.mul_f64(scale.max(0.0))),
            Base::Fixed(every) if message => last.saturating_add(every),
            Base::Fixed(_) => *last,
        };
        if message && !self.timing.jitter.is_zero() {
            let jitter = u64::try_from(self.timing.jitter.as_micros()).unwrap_or(u64::MAX);
            due = due.saturating_add(Duration::from_micros(self.rng.u64(0..=jitter)));
        }
        if message && self.sent == 0 {
            due = due.max(self.timing.first_byte);
        }
        *last = due;
        due
    }

    /// Waits until `due`, listening to the client: a cancel of the live turn
    /// interrupts it; answers are kept; anything else waits its turn.
    async fn wait_until(&mut self, due: Duration, live: Option<&Live>) -> Result<Option<Interrupted>, Stop> {
        // What has already come is looked at even when nothing is to wait for.
        while let Ok(incoming) = self.inbox.try_recv() {
            if let Some(interrupted) = self.during_turn(incoming, live) {
                return Ok(Some(interrupted));
            }
        }
        loop {
            let now = self.output.elapsed();
            if now >= due {
                return Ok(None);
            }
            self.output.flush().await?;
            let sleep = tokio::time::sleep(due - now);
            let eof = self.eof;
            let incoming = self
                .output
                .race(async {
                    tokio::select! {
                        incoming = self.inbox.recv(), if !eof => incoming,
                        () = sleep => None,
                    }
                })
                .await?;
            match incoming {
                None => {}
                Some(incoming) => {
                    if let Some(interrupted) = self.during_turn(incoming, live) {
                        return Ok(Some(interrupted));
                    }
                }
            }
        }
    }

    /// Waits for the client's answer to the agent's request `id`.
    async fn await_answer(
        &mut self,
        id: &str,
        method: &str,
        recorded: Option<Value>,
        live: Option<&mut Live>,
    ) -> Result<Option<Interrupted>, Stop> {
        let asked_at = self.output.elapsed();
        let answer = loop {
            if let Some(answer) = self.answered.remove(id) {
                break answer;
            }
            let Some(incoming) = self.receive().await? else {
                return Ok(Some(Interrupted::Eof));
            };
            if let Some(interrupted) = self.during_turn(incoming, live.as_deref()) {
                if matches!(interrupted, Interrupted::Cancelled) {
                    // The protocol's way to withdraw a request still waiting.
                    let params =
                        json!({"requestId": serde_json::from_str::<Value>(id).unwrap_or(Value::Null)});
                    // A crash placed on this message ends the process all the same.
                    if let Some(exit) = self.send(rpc::notification("$/cancel_request", &params)).await? {
                        return Ok(Some(Interrupted::Ended(exit)));
                    }
                }
                return Ok(Some(interrupted));
            }
        };
        let (value, at) = answer;
        if let Some(journal) = &mut self.journal {
            journal.answers.push(journal::Answer {
                id: id.to_owned(),
                method: method.to_owned(),
                answer: value.clone(),
                after_ms: millis(at.saturating_sub(asked_at)),
            });
        }
        if let Some(recorded) = recorded.filter(|recorded| *recorded != value) {
            let divergence =
                format!("the client answered {method} {id} with {value}; the recording answered {recorded}");
            if self.strict {
                if let Some(live) = live {
                    if !live.responded {
                        live.responded = true;
                        let error = strict_error(&live.id, &divergence);
                        self.diverge(divergence);
                        if let Some(exit) = self.send(error).await? {
                            return Ok(Some(Interrupted::Ended(exit)));
                        }
                        // The turn ends here: answered, nothing more to cancel.
                        return Ok(Some(Interrupted::Cancelled));
                    }
                }
            }
            self.diverge(divergence);
        }
        Ok(None)
    }

    /// Waits, for at most [`CANCEL_WAIT`], for the `session/cancel` the recording has.
    async fn await_cancel(&mut self, method: &str, live: Option<&Live>) -> Result<Option<Interrupted>, Stop> {
        let deadline = self.output.elapsed() + CANCEL_WAIT;
        loop {
            if self.eof {
                return Ok(None);
            }
            let now = self.output.elapsed();
            if now >= deadline {
                self.diverge(format!(
                    "the recording has the client's {method} here; none came within {} s: the recording goes on",
                    CANCEL_WAIT.as_secs()
                ));
                return Ok(None);
            }
            self.output.flush().await?;
            let sleep = tokio::time::sleep(deadline - now);
            let incoming = self
                .output
                .race(async {
                    tokio::select! {
                        incoming = self.inbox.recv() => Some(incoming.unwrap_or(Incoming::Eof)),
                        () = sleep => None,
                    }
                })
                .await?;
            let Some(incoming) = incoming else { continue };
            let line = match incoming {
                Incoming::Eof => {
                    self.eof = true;
                    return Ok(None);
                }
                Incoming::TooLong(_) => {
                    self.during_turn(incoming, None);
                    continue;
                }
                Incoming::Line(line) => line,
            };
            let cancel =
                Message::parse(&line).is_some_and(|m| m.kind == Kind::Notification && m.method() == method);
            if cancel {
                self.note("in", &line);
                return Ok(None);
            }
            if let Some(interrupted) = self.during_turn(Incoming::Line(line), live) {
                return Ok(Some(interrupted));
            }
        }
    }

    /// A client message that came while a turn played.
    fn during_turn(&mut self, incoming: Incoming, live: Option<&Live>) -> Option<Interrupted> {
        let line = match incoming {
            // The turn goes on; what waits for the client ends at the end of stdin.
            Incoming::Eof => {
                self.eof = true;
                return None;
            }
            Incoming::TooLong(bytes) => {
                self.note(
                    "in",
                    format!("[a line of {bytes} bytes, over the limit: dropped]").as_bytes(),
                );
                return None;
            }
            Incoming::Line(line) => line,
        };
        self.note("in", &line);
        let message = Message::parse(&line)?;
        match message.kind {
            Kind::Response => {
                let answer = answer_value(&message);
                let at = self.output.elapsed();
                self.answered.insert(message.id_text().to_owned(), (answer, at));
                None
            }
            Kind::Notification if message.method() == methods::SESSION_CANCEL => {
                let turn = live.filter(|l| l.method == methods::SESSION_PROMPT && !l.responded);
                let same_session =
                    turn.is_some_and(|l| l.session.is_none() || l.session == message.param_str("sessionId"));
                if !same_session {
                    // It may be for a prompt still waiting its turn.
                    self.queue.push_back(line);
                }
                same_session.then_some(Interrupted::Cancelled)
            }
            _ => {
                self.queue.push_back(line);
                None
            }
        }
    }

    /// Whether the client cancelled the prompt `live` while it waited in the queue (a
    /// `session/cancel` of its session queued after it); takes the cancel out.
    fn cancelled_in_queue(&mut self, live: &Live) -> bool {
        if live.method != methods::SESSION_PROMPT {
            return false;
        }
        let cancel = self.queue.iter().position(|line| {
            Message::parse(line).is_some_and(|m| {
                m.kind == Kind::Notification
                    && m.method() == methods::SESSION_CANCEL
                    && (live.session.is_none() || live.session == m.param_str("sessionId"))
            })
        });
        cancel.and_then(|i| self.queue.remove(i)).is_some()
    }

    /// Ends a cancelled turn: the prompt answered `cancelled`.
    /// `recorded_later`: the recording has the client cancel this turn, later.
    async fn cancel(&mut self, live: Option<&Live>, recorded_later: bool) -> Result<Option<Exit>, Stop> {
        let Some(live) = live.filter(|l| !l.responded) else {
            return Ok(None);
        };
        if self.recorded {
            let what = if recorded_later {
                "earlier than the recording did"
            } else {
                "where the recording did not"
            };
            self.diverge(format!(
                "the client cancelled {} {} {what}: answered cancelled",
                live.method, live.id
            ));
        }
        let line = rpc::response(&live.id, &wire::stop(wire::stop_reasons::CANCELLED));
        self.send(line).await
    }

    /// The next client message to handle: a queued one, else the next to come;
    /// `None` once stdin has ended.
    async fn next(&mut self) -> Result<Option<Vec<u8>>, Stop> {
        if let Some(line) = self.queue.pop_front() {
            return Ok(Some(line));
        }
        loop {
            match self.receive().await? {
                None => return Ok(None),
                Some(Incoming::Line(line)) => {
                    self.note("in", &line);
                    return Ok(Some(line));
                }
                Some(Incoming::TooLong(bytes)) => {
                    self.note(
                        "in",
                        format!("[a line of {bytes} bytes, over the limit: dropped]").as_bytes(),
                    );
                }
                Some(Incoming::Eof) => {
                    self.eof = true;
                    return Ok(None);
                }
            }
        }
    }

    /// Receives from the client, flushing first; `None` once stdin has ended.
    async fn receive(&mut self) -> Result<Option<Incoming>, Stop> {
        if self.eof {
            return Ok(None);
        }
        self.output.flush().await?;
        let incoming = self.output.race(self.inbox.recv()).await?;
        Ok(Some(incoming.unwrap_or(Incoming::Eof)))
    }

    /// Sends `line` and the agent messages that follow it at once, written together
    /// (up to [`RUN_BYTES`]): in a plain run (see [`Server::plain`]) a long turn's
    /// updates. A response, or any other step, ends the run: it is played as usual.
    async fn send_run(&mut self, line: Vec<u8>, steps: &mut std::iter::Peekable<Steps>) -> Result<(), Stop> {
        self.note("out", &line);
        self.sent += 1;
        let mut run = Vec::with_capacity(RUN_BYTES + line.len().max(1 << 10));
        run.extend_from_slice(&line);
        while run.len() < RUN_BYTES {
            let next = steps.next_if(
                |step| matches!(step, Ok(Step::Send { line, .. }) if rpc::surely_not_response(line)),
            );
            let Some(Ok(Step::Send { line, .. })) = next else {
                break;
            };
            self.note("out", &line);
            self.sent += 1;
            run.push(b'\n');
            run.extend_from_slice(&line);
        }
        self.output
            .perform(Frame::Line(Line::stdout(Duration::ZERO, run)))
            .await?;
        Ok(())
    }

    /// Sends one agent message (taken, not copied: a long turn writes many), with
    /// the faults placed on it; `Some(exit)` when a fault ends the process there.
    async fn send(&mut self, line: Vec<u8>) -> Result<Option<Exit>, Stop> {
        let sent = self.injector.message(line);
        self.write(sent.out).await?;
        Ok(sent.end)
    }

    /// Writes what the faults and the conversation say, as it is.
    async fn write(&mut self, out: Vec<Out>) -> Result<(), Stop> {
        for out in out {
            let line = match out {
                Out::Stderr(bytes) => {
                    self.note("err", &bytes);
                    Line::stderr(Duration::ZERO, bytes)
                }
                Out::Line { bytes, newline } => {
                    self.note("out", &bytes);
                    self.sent += 1;
                    let mut line = Line::stdout(Duration::ZERO, bytes);
                    line.newline = newline;
                    line
                }
            };
            self.output.perform(Frame::Line(line)).await?;
        }
        Ok(())
    }

    fn note(&mut self, dir: &str, line: &[u8]) {
        if self.journal.is_none() {
            return;
        }
        let at_ms = millis(self.output.elapsed());
        if let Some(journal) = &mut self.journal {
            journal.messages.push(journal::Message {
                dir: dir.to_owned(),
                at_ms,
                line: String::from_utf8_lossy(line).into_owned(),
            });
        }
    }

    fn diverge(&mut self, divergence: String) {
        self.divergences.push(divergence);
    }
}

/// The client's `result` of an answer, or its `error` as `{"error": ...}`.
fn answer_value(message: &Message<'_>) -> Value {
    let parse = |raw: Option<&serde_json::value::RawValue>| {
        raw.and_then(|r| serde_json::from_str::<Value>(r.get()).ok())
    };
    match parse(message.result) {
        Some(result) => result,
        None => json!({"error": parse(message.error)}),
    }
}

/// The error `MOCK_AGENT_STRICT=1` answers a divergence with.
fn strict_error(id: &str, divergence: &str) -> Vec<u8> {
    rpc::error(
        id,
        codes::INTERNAL_ERROR,
        &format!("mock-agent: the client diverged from the recording: {divergence}"),
        Some(&json!({"divergence": divergence})),
    )
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// Stdout of a server: the agent's bytes are handed to a writing thread a buffer
/// ([`HANDOFF`] bytes) at a time, and the loop fills the next buffer while the thread
/// writes the last one, so that making a long turn and writing it to the pipe overlap.
/// Two buffers at most: one written, one filled. A flush returns once every byte is
/// written. A failed write is reported by the next call.
struct Handoff {
    /// The file, when no write holds it.
    file: Option<File>,
    /// The buffer being filled.
    filling: Vec<u8>,
    /// The buffer last written, emptied, for the next turn of filling.
    spare: Vec<u8>,
    /// The write under way.
    writing: Option<tokio::task::JoinHandle<Written>>,
}

/// A write done: the file and the buffer come back with its result.
type Written = (File, Vec<u8>, io::Result<()>);

impl Handoff {
    fn new(file: File) -> Self {
        Handoff {
            file: Some(file),
            filling: Vec::new(),
            spare: Vec::new(),
            writing: None,
        }
    }

    /// Waits for the write under way, if any; its result.
    fn poll_written(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let Some(writing) = self.writing.as_mut() else {
            return Poll::Ready(Ok(()));
        };
        let joined = ready!(Pin::new(writing).poll(cx));
        self.writing = None;
        Poll::Ready(match joined {
            Ok((file, mut buffer, written)) => {
                self.file = Some(file);
                buffer.clear();
                self.spare = buffer;
                written
            }
            Err(e) => Err(io::Error::other(e)),
        })
    }

    /// Hands the buffer filled to the writing thread; none is under way.
    fn hand_over(&mut self) -> io::Result<()> {
        let Some(mut file) = self.file.take() else {
            return Err(io::ErrorKind::BrokenPipe.into());
        };
        let buffer = std::mem::replace(&mut self.filling, std::mem::take(&mut self.spare));
        self.writing = Some(tokio::task::spawn_blocking(move || {
            let written = io::Write::write_all(&mut file, &buffer);
            (file, buffer, written)
        }));
        Ok(())
    }
}

impl tokio::io::AsyncWrite for Handoff {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        if self.filling.len() >= HANDOFF {
            ready!(self.poll_written(cx))?;
            self.hand_over()?;
        }
        if self.filling.capacity() == 0 {
            self.filling.reserve_exact(HANDOFF);
        }
        let n = buf.len().min(HANDOFF - self.filling.len());
        self.filling.extend_from_slice(&buf[..n]);
        Poll::Ready(Ok(n))
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.poll_written(cx))?;
        if !self.filling.is_empty() {
            self.hand_over()?;
            ready!(self.poll_written(cx))?;
        }
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.as_mut().poll_flush(cx))?;
        self.file = None;
        Poll::Ready(Ok(()))
    }
}
