//! Server mode: an Agent Client Protocol agent on stdin and stdout (`cursor-agent
//! acp`, `gemini --acp`: one server, an agent's profile each), playing a
//! [`Conversation`] (a recording as a script, or a print-mode session told through
//! ACP; see `harness::acp`).
//!
//! The loop reads the client's messages (on a thread of its own, a line at a time,
//! at most [`MAX_LINE`] bytes), answers each request with its conversation's steps,
//! performed on the executor's [`Output`] (timing, step mode, chunking, signals), and
//! keeps listening while it plays them:
//!
//! - `session/cancel` during a turn stops it: no more updates, `$/cancel_request` for
//!   an agent request still waiting, and the prompt answered `stopReason: cancelled`;
//! - the client's answers to the agent's requests are matched by id, in any order; an
//!   answer to an id the agent has not asked (or asked and had answered) is dropped,
//!   and journaled as a divergence;
//! - other requests wait their turn, in order; a line that is not JSON-RPC is
//!   ignored (and journaled);
//! - where the client does what the recording did not, the mock goes on as the
//!   recording goes, and says so in the journal; with `MOCK_AGENT_STRICT=1` it
//!   answers with a JSON-RPC error that says what differed.
//!
//! End of stdin ends the process: exit 0, or as the recording ended. A turn under way
//! then finishes at once: what it would still wait for (its timing, a `late` answer,
//! a step byte) it no longer waits for, as at the end of step mode's file; an answer
//! it waits for ends the turn there.
//!
//! Each step is due when [`harness::timing::Clock`] says, the clock of print mode's
//! plans, its times counted from the request a reply answers and from the end of each
//! wait for the client. Every wait, for a time or for the client, is the executor's
//! ([`Output::wait_until`]), listening to the client (`client::Turn`).

mod answers;
mod client;
mod play;
pub mod record;
mod sessions;
#[cfg(test)]
mod tests;

use std::time::Duration;

use serde_json::{json, Value};
use tokio::io::AsyncWrite;

use harness::acp::faults::{AcpFault, Injector};
use harness::acp::methods;
use harness::acp::profile::Profile;
use harness::acp::rpc::{self, codes, Kind, Message};
use harness::acp::Conversation;
use harness::journal::Entry;
use harness::source::Source;

use crate::settings::Settings;
use harness::frames::{Delivery, Exit, Signal};
use harness::journal;
use harness::timing::{Base, Clock, Timing};

use crate::execute::{self, ExecError, ExecOptions, Handoff, Output, Stop, TakeBuffer, Threaded};
use client::Client;

/// The longest line read from the client: longer ones are dropped (and journaled).
pub use crate::execute::lines::MAX_LINE;

/// About the most bytes of agent messages written together in a plain run.
const RUN_BYTES: usize = 256 << 10;

/// How a server run went.
#[derive(Debug)]
pub struct Served {
    /// How the process is to end.
    pub exit: Exit,
    /// The signal that ended it, if one did.
    pub signal: Option<Signal>,
    /// When the client closed the agent's stdout, if it did.
    pub stdout_closed_at: Option<Duration>,
    /// The conversation, when journaled: on disk, for [`journal::append_spooled`].
    pub conversation: Option<journal::Spooled>,
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
    /// Answer a line that is no JSON-RPC message with `-32700` or `-32600` (the real
    /// agent ignores it).
    pub jsonrpc_strict: bool,
    /// Journal every message: the journal file (the conversation is kept on disk
    /// beside it until the end, [`journal::Spooled`]).
    pub journal: Option<std::path::PathBuf>,
    /// The conversation is a recording (so a cancel it lacks is a divergence).
    pub recorded: bool,
    /// What goes wrong on purpose.
    pub faults: Vec<AcpFault>,
}

/// Runs `profile`'s agent with `argv` (the arguments after the program) as its CLI
/// runs in ACP mode: the settings from the environment, the source's conversation
/// served, the run journaled. What a CLI whose ACP mode is a flag (`gemini --acp`)
/// calls once it has seen the flag; its other flags change nothing here.
pub fn run(profile: &'static Profile, argv: &[String]) -> Exit {
    let (settings, mut entry) = match crate::settings::begin(argv, execute::now_ms()) {
        Ok(begun) => begun,
        Err(exit) => return exit,
    };
    let mut spooled = None;
    let exit = if settings.record.is_some() {
        eprintln!(
            "mock-agent: MOCK_AGENT_RECORD is not supported for `{}`; record it with              `mock-agent record -- {}` instead",
            profile.launch, profile.launch
        );
        Exit::Code(harness::exit_codes::USAGE)
    } else {
        serve_source(&settings.source(), profile, &settings, &mut entry, &mut spooled)
    };
    execute::journaled::end_run(&settings, &mut entry, spooled, exit)
}

/// Serves `profile`'s conversation of `source` with the settings' faults, timing
/// and journal; what it journals of the conversation goes to `spooled`.
pub fn serve_source(
    source: &Source,
    profile: &'static Profile,
    settings: &Settings,
    entry: &mut Entry,
    spooled: &mut Option<journal::Spooled>,
) -> Exit {
    entry.source = Some(source.describe());
    let (conversation, recorded) = match harness::acp::conversation_of(source, profile) {
        Ok(found) => found,
        Err(e) => {
            let message = e.to_string();
            eprintln!("mock-agent: {message}");
            entry.error = Some(message);
            return Exit::Code(e.exit_code());
        }
    };
    let faults = match settings.faults.read(harness::acp::faults::parse) {
        Ok(faults) => faults,
        Err(e) => {
            let message = e.to_string();
            eprintln!("mock-agent: {message}");
            entry.error = Some(message);
            return Exit::Code(harness::exit_codes::USAGE);
        }
    };
    let options = ServeOptions {
        faults,
        timing: settings.timing,
        seed: settings.seed,
        step: settings.step.clone(),
        strict: settings.strict,
        jsonrpc_strict: settings.jsonrpc_strict,
        journal: settings.journal.clone(),
        recorded,
    };
    let served = serve(conversation, &options);
    entry.stdout_closed = served.stdout_closed_at.is_some();
    entry.stdout_closed_at_ms = served.stdout_closed_at.map(|d| d.as_millis() as u64);
    entry.signal = served.signal.map(|s| s.name().to_owned());
    entry.error = served.error;
    entry.faults = served.faults;
    if let Some(conversation) = served.conversation {
        entry.acp = Some(journal::Conversation::default());
        *spooled = Some(conversation);
    }
    served.exit
}

/// Serves `conversation` on this process's stdin, stdout and stderr.
pub fn serve(conversation: Box<dyn Conversation>, options: &ServeOptions) -> Served {
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
    if plain(options) {
        // A long turn's runs go out in fewer, larger writes, as a copy's do.
        execute::planned::grow_pipe(&out);
    }
    let run = async move {
        let (sender, inbox) = crate::execute::inbox::channel();
        let (released, ended) = tokio::sync::watch::channel(false);
        std::thread::spawn(move || {
            // The end of stdin ends step mode's waits before it is handled.
            execute::lines::read_stdin(&sender, execute::lines::Reading::LENIENT, || {
                released.send_replace(true);
            });
        });
        let injector = Injector::new(options.faults.clone());
        let exec = ExecOptions {
            precise: true,
            ..ExecOptions::new(delivery(options, &injector))
        };
        // The writing thread takes up to `execute::HANDOFF` bytes at a time, not the
        // executor's 64 KiB, while the loop fills the next. Every flush of the
        // executor's still reaches the pipe.
        let mut output = Output::new(Handoff::new(out), Threaded::new(err), &exec)?;
        output.end_steps_when(ended);
        let mut server = Server::new(conversation, output, inbox, injector, options);
        let ended = server.run_to_end().await;
        Ok::<_, ExecError>(server.served(ended))
    };
    match execute::block_on(run, true) {
        Err(e) => failed(
            format!("cannot start the runtime: {e}"),
            harness::exit_codes::INTERNAL,
        ),
        Ok(Err(e)) => failed(e.to_string(), e.exit_code()),
        Ok(Ok(served)) => served,
    }
}

/// The mock's own failure before the conversation started, printed.
fn failed(message: String, code: i32) -> Served {
    eprintln!("mock-agent: {message}");
    Served {
        exit: Exit::Code(code),
        signal: None,
        stdout_closed_at: None,
        conversation: None,
        error: Some(message),
        faults: Vec::new(),
    }
}

/// How the executor writes a server's messages.
fn delivery(options: &ServeOptions, injector: &Injector) -> Delivery {
    let mut delivery = Delivery::default();
    delivery.timed = options.timing != Timing::default();
    delivery.signals = true;
    delivery.step.clone_from(&options.step);
    delivery.seed = options.seed;
    delivery.chunking = injector.chunking();
    delivery.coalesce = injector.coalesce().then_some(harness::scenario::COALESCE_LINES);
    delivery
}

/// No fault, no step mode, no wait between messages: a plain run ([`Server::plain`]).
fn plain(options: &ServeOptions) -> bool {
    options.faults.is_empty()
        && options.step.is_none()
        && options.timing.base == Base::Instant
        && options.timing.jitter.is_zero()
}

fn dup(fd: &impl std::os::fd::AsFd) -> std::io::Result<std::fs::File> {
    fd.as_fd().try_clone_to_owned().map(std::fs::File::from)
}

/// Why a turn stopped before its steps were done.
enum Interrupted {
    /// The client cancelled it.
    Cancelled,
    /// The client closed stdin.
    Eof,
    /// The process ends (a fault).
    Ended(Exit),
    /// What a wait awaited came (an answer, a notification): the turn goes on.
    Came,
}

/// The request a reply answers.
struct Live {
    id: String,
    method: String,
    session: Option<String>,
    responded: bool,
}

struct Server<O: AsyncWrite + Unpin, E: AsyncWrite + Unpin> {
    conversation: Box<dyn Conversation>,
    output: Output<O, E>,
    client: Client,
    /// When each step is due: the clock of print mode's plans too.
    clock: Clock,
    strict: bool,
    jsonrpc_strict: bool,
    recorded: bool,
    injector: Injector,
    /// No fault, no step mode, no wait between messages: the agent's messages that
    /// come one after the other are written together ([`Server::send_run`]).
    plain: bool,
    /// The recording's session ids, made live.
    sessions: sessions::Sessions,
    /// The buffer a plain run is gathered in, kept from one run to the next (the
    /// stdout writer hands one back for each it takes).
    run: Vec<u8>,
}

impl<O: TakeBuffer, E: AsyncWrite + Unpin> Server<O, E> {
    fn new(
        mut conversation: Box<dyn Conversation>,
        output: Output<O, E>,
        inbox: crate::execute::inbox::Inbox<client::Incoming>,
        injector: Injector,
        options: &ServeOptions,
    ) -> Self {
        if options.journal.is_none() && !options.strict {
            conversation.divergences_unread();
        }
        Server {
            conversation,
            output,
            client: Client::new(inbox, options.journal.as_deref()),
            clock: Clock::new(options.timing, options.seed),
            strict: options.strict,
            jsonrpc_strict: options.jsonrpc_strict,
            recorded: options.recorded,
            plain: plain(options),
            injector,
            sessions: sessions::Sessions::new(options.seed),
            run: Vec::new(),
        }
    }

    /// Runs the conversation to its end, and writes out what stdout holds (unless a
    /// signal ended it: then the process ends at once, whatever the client reads).
    async fn run_to_end(&mut self) -> Result<Exit, Stop> {
        let ended = self.run().await;
        if let Err(Stop::Signal(_)) = ended {
            return ended;
        }
        let flushed = self.output.flush().await;
        ended.and_then(|exit| flushed.map(|()| exit))
    }

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
                if self.jsonrpc_strict {
                    if let Some(exit) = self.send(rpc::invalid(&line)).await? {
                        return Ok(exit);
                    }
                }
                continue;
            };
            match message.kind {
                Kind::Request => {
                    // What a fault makes the agent take it for (`unoffered-tools`).
                    let taken = self.injector.client_request(&message);
                    let taken = taken.as_deref().and_then(Message::parse);
                    let message = taken.unwrap_or(message);
                    let mut reply = self.conversation.reply(&message);
                    let live = Live {
                        id: message.id_text().to_owned(),
                        method: message.method().to_owned(),
                        session: message.param_str("sessionId"),
                        responded: false,
                    };
                    self.sessions.reply(match self.recorded {
                        false => sessions::Naming::Recorded,
                        // A `session/new` that diverges is answered by the mock.
                        true => sessions::Sessions::naming(
                            reply.recorded_session.take(),
                            live.session.clone(),
                            live.method == methods::SESSION_NEW && reply.divergence.is_some(),
                        ),
                    });
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
                    if self.client.cancelled_in_queue(&live) {
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
                    self.client.answer(&message, at);
                }
                Kind::Notification => {}
            }
        }
    }

    /// How the run went, the conversation ended so; the mock's own error printed.
    fn served(self, ended: Result<Exit, Stop>) -> Served {
        let conversation = self.client.journal;
        let faults = crate::execute::journaled::fault_records(self.injector.report());
        let mut served = Served {
            exit: Exit::Code(0),
            signal: None,
            stdout_closed_at: self.output.stdout_closed_at(),
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

    /// Journals a line that went `dir` (`in`, `out`, `err`), now.
    fn note(&mut self, dir: &str, line: &[u8]) {
        if self.client.journal.is_some() {
            let now = self.output.elapsed();
            self.client.note(dir, line, now);
        }
    }

    fn diverge(&mut self, divergence: String) {
        self.client.diverge(&divergence);
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
