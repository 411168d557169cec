//! Faults of server mode, in the grammar of print mode's (`MOCK_AGENT_FAULTS`,
//! `--fault`: `name:key=value,...;...`), placed by method, update kind or count:
//!
//! - `method=M` (for `crash`, `error`, `no-response`, `late`): on the agent's answer to
//!   the client's request `M`
//!   (`method=session/new`);
//! - `at=KIND`: before the first agent message that is a `session/update` of that
//!   kind (`at=tool_call`), or a request of that method
//!   (`at=session/request_permission`);
//! - `after=N`: after the N-th message the agent sends (0: before the first);
//! - `byte=K` (for `eof`): after the first K bytes of that message.
//!
//! [`catalogue`] lists them with their presets, the real agent's failures.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use super::rpc::{self, codes, Kind, Message};
use super::wire::{self, methods, stop_reasons, updates};
use crate::dialects::cursor_acp::conversation::{Step, Steps};
use crate::error::{Diagnostic, Origin};
use crate::faults::{split_items, Args, Described, MAX_BYTES};
use crate::frames::{Chunking, Exit, Signal};

/// Where a fault acts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    /// On the answer to the client's request of this method.
    Method(String),
    /// Before the first agent message of this update kind or request method.
    At(String),
    /// After this many agent messages.
    After(u64),
    /// While the agent waits for the client's answer to its request.
    Asking,
}

/// One fault of server mode.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum AcpFault {
    /// The request is answered with a JSON-RPC error.
    Error {
        /// The request's method.
        method: String,
        /// The error code.
        code: i64,
        /// The error message.
        message: String,
        /// The error data, when given.
        data: Option<Value>,
    },
    /// The request is never answered (what else the agent sends still comes).
    NoResponse {
        /// The request's method.
        method: String,
    },
    /// The answer to the request comes this much later.
    Late {
        /// The request's method.
        method: String,
        /// How much later.
        delay: Duration,
    },
    /// A turn that ends with `end_turn` ends with this stop reason instead.
    StopReason {
        /// `refusal`, `max_tokens`, `max_turn_requests`, `cancelled`.
        reason: String,
    },
    /// The process dies there, after a stderr line.
    Crash {
        /// Where.
        at: Place,
        /// How.
        exit: Exit,
        /// What it says on stderr first.
        text: Option<String>,
    },
    /// Stdout stops in the middle of a message and the process exits 1.
    Eof {
        /// Where.
        at: Place,
        /// After how many bytes of that message (default: half of it).
        byte: Option<usize>,
    },
    /// A line that is not JSON, before the message.
    Malformed {
        /// Where.
        at: Place,
    },
    /// A line on stderr.
    Stderr {
        /// The text.
        text: String,
        /// Where.
        at: Place,
    },
    /// This many bytes on stderr, at the start.
    StderrFlood {
        /// How many.
        bytes: usize,
    },
    /// Every update of this kind is dropped.
    Drop {
        /// The `sessionUpdate` kind.
        kind: String,
    },
    /// The message is sent twice.
    Duplicate {
        /// Where.
        at: Place,
    },
    /// Each two updates in a row go out in the other order.
    Reorder,
    /// An update of a kind no client knows, before the message.
    UnknownUpdate {
        /// Where.
        at: Place,
    },
    /// Every update carries a field no client knows.
    UnknownField,
    /// The first update of a new session comes before the `session/new` answer.
    EarlyUpdate,
    /// An `agent_message_chunk` of this many bytes, before the message.
    Huge {
        /// How many bytes of text.
        bytes: usize,
        /// Where.
        at: Place,
    },
    /// Stdout writes split (`chunk:size=N`, `chunk:random`).
    Chunk(Chunking),
    /// Several messages in one write.
    Coalesce,
}

impl AcpFault {
    /// The fault's name, as in `mock-agent faults`.
    pub fn name(&self) -> &'static str {
        match self {
            AcpFault::Error { .. } => "error",
            AcpFault::NoResponse { .. } => "no-response",
            AcpFault::Late { .. } => "late",
            AcpFault::StopReason { .. } => "stop-reason",
            AcpFault::Crash { .. } => "crash",
            AcpFault::Eof { .. } => "eof",
            AcpFault::Malformed { .. } => "malformed",
            AcpFault::Stderr { .. } => "stderr",
            AcpFault::StderrFlood { .. } => "stderr-flood",
            AcpFault::Drop { .. } => "drop",
            AcpFault::Duplicate { .. } => "duplicate",
            AcpFault::Reorder => "reorder",
            AcpFault::UnknownUpdate { .. } => "unknown-update",
            AcpFault::UnknownField => "unknown-field",
            AcpFault::EarlyUpdate => "early-update",
            AcpFault::Huge { .. } => "huge",
            AcpFault::Chunk(_) => "chunk",
            AcpFault::Coalesce => "coalesce",
        }
    }

    /// Where the fault acts, for those placed on one message.
    pub fn place(&self) -> Option<&Place> {
        match self {
            AcpFault::Crash { at, .. }
            | AcpFault::Eof { at, .. }
            | AcpFault::Malformed { at }
            | AcpFault::Stderr { at, .. }
            | AcpFault::Duplicate { at }
            | AcpFault::UnknownUpdate { at }
            | AcpFault::Huge { at, .. } => Some(at),
            _ => None,
        }
    }
}

/// What a fault of the catalogue does, with its keys and an example.
pub fn catalogue() -> &'static [Described] {
    use crate::faults::described as e;
    const CATALOGUE: &[Described] = &[
        e(
            "error",
            "method=M, code=C, message=T, data=JSON",
            "the request M is answered with a JSON-RPC error (default -32603)",
            "error:method=session/new,code=-32603,message=\"Failed to initialize session services\"",
        ),
        e(
            "no-response",
            "method=M",
            "the request M is never answered",
            "no-response:method=authenticate",
        ),
        e(
            "late",
            "method=M, ms=MS",
            "the answer to M comes MS later",
            "late:method=session/new,ms=3000",
        ),
        e(
            "stop-reason",
            "reason=R",
            "a turn that ends with end_turn ends with R",
            "stop-reason:reason=refusal",
        ),
        e(
            "crash",
            "at=initialize|asking|KIND|METHOD, method=M, after=N, code=C|signal=S, text=T",
            "the process dies there (default exit 1), after T on stderr when given",
            "crash:at=asking,signal=KILL",
        ),
        e(
            "eof",
            "at=KIND|after=N, byte=K",
            "stdout stops in the middle of that message and the process exits 1",
            "eof:at=agent_message_chunk,byte=20",
        ),
        e(
            "malformed",
            "at=KIND|after=N",
            "a line that is not JSON on stdout before that message",
            "malformed:after=2",
        ),
        e(
            "stderr",
            "text=T, at=KIND|after=N",
            "T on stderr before that message (default at the start)",
            "stderr:text=\"[warn] slow\",at=tool_call",
        ),
        e(
            "stderr-flood",
            "bytes=N",
            "N bytes on stderr at the start (default 1 MiB)",
            "stderr-flood:bytes=200000",
        ),
        e(
            "drop",
            "kind=KIND",
            "every update of that kind is dropped",
            "drop:kind=tool_call_update",
        ),
        e(
            "duplicate",
            "at=KIND|after=N",
            "that message is sent twice",
            "duplicate:at=tool_call",
        ),
        e(
            "reorder",
            "",
            "each two updates in a row go out in the other order",
            "reorder",
        ),
        e(
            "unknown-update",
            "at=KIND|after=N",
            "an update of a kind no client knows before that message",
            "unknown-update:at=agent_message_chunk",
        ),
        e(
            "unknown-field",
            "",
            "every update carries a field no client knows",
            "unknown-field",
        ),
        e(
            "early-update",
            "",
            "a new session's first update comes before the session/new answer",
            "early-update",
        ),
        e(
            "huge",
            "bytes=N, at=KIND|after=N",
            "an agent_message_chunk of N bytes before that message (default 1 MiB)",
            "huge:bytes=2000000,at=agent_message_chunk",
        ),
        e(
            "chunk",
            "size=N|random",
            "stdout written in pieces of N bytes (or random sizes)",
            "chunk:size=7",
        ),
        e("coalesce", "", "several messages in one write", "coalesce"),
        e(
            "auth-required",
            "",
            "preset: session methods answer -32000 Authentication required",
            "auth-required",
        ),
        e(
            "authenticate-hangs",
            "",
            "preset: authenticate is never answered",
            "authenticate-hangs",
        ),
        e(
            "session-services-failed",
            "",
            "preset: session/new answers -32603 Failed to initialize session services",
            "session-services-failed",
        ),
        e(
            "crash-on-initialize",
            "",
            "preset: the process dies on initialize, a message on stderr",
            "crash-on-initialize",
        ),
        e(
            "crash-while-asking",
            "",
            "preset: the process dies while its permission request waits",
            "crash-while-asking",
        ),
        e(
            stop_reasons::REFUSAL,
            "",
            "preset: the turn ends with stopReason refusal",
            stop_reasons::REFUSAL,
        ),
        e(
            "max-tokens",
            "",
            "preset: the turn ends with stopReason max_tokens",
            "max-tokens",
        ),
    ];
    CATALOGUE
}

/// The stop reasons of ACP.
pub const STOP_REASONS: &[&str] = stop_reasons::ALL;

/// Faults of server mode from the environment of the program under test.
pub const FROM_ENV: Origin<'static> = Origin {
    name: "MOCK_AGENT_FAULTS",
    help: "`mock-agent faults` lists every fault (server mode: the acp section) with an example",
};

/// Parses a `;`-separated list of server-mode faults.
pub fn parse(spec: &str, origin: Origin<'_>) -> Result<Vec<AcpFault>, Diagnostic> {
    let mut faults = Vec::new();
    for item in split_items(spec, origin)? {
        faults.extend(build(&item, spec, origin)?);
    }
    Ok(faults)
}

fn build(item: &crate::faults::Item, spec: &str, origin: Origin<'_>) -> Result<Vec<AcpFault>, Diagnostic> {
    let mut args = Args::new(item, spec, origin);
    let session_methods = [
        methods::SESSION_NEW,
        methods::SESSION_LOAD,
        methods::SESSION_PROMPT,
    ];
    let faults = match item.name.as_str() {
        "error" => vec![AcpFault::Error {
            method: method(&mut args, item)?,
            code: args
                .number::<i64>("code", "a JSON-RPC error code")?
                .unwrap_or(codes::INTERNAL_ERROR),
            message: args
                .text("message")
                .unwrap_or_else(|| "Internal error".to_owned()),
            data: match args.get("data") {
                None => None,
                Some((text, column)) => Some(
                    serde_json::from_str(text)
                        .map_err(|e| args.err(column, format!("`data` is not JSON: {e}")))?,
                ),
            },
        }],
        "no-response" => vec![AcpFault::NoResponse {
            method: method(&mut args, item)?,
        }],
        "late" => vec![AcpFault::Late {
            method: method(&mut args, item)?,
            delay: Duration::from_millis(args.number::<u64>("ms", "milliseconds")?.unwrap_or(2_000)),
        }],
        "stop-reason" => {
            let (reason, column) = args
                .get("reason")
                .ok_or_else(|| args.err(item.column, "`stop-reason` needs `reason=...`".into()))?;
            if !STOP_REASONS.contains(&reason) {
                return Err(args.err(
                    column,
                    format!(
                        "`{reason}` is not a stop reason; use one of {}",
                        STOP_REASONS.join(", ")
                    ),
                ));
            }
            vec![AcpFault::StopReason {
                reason: reason.to_owned(),
            }]
        }
        "crash" => {
            let at = place(&mut args, Place::Method(methods::SESSION_PROMPT.into()))?;
            let exit = match (
                args.number::<i32>("code", "an exit code, 0 to 255")?,
                args.get("signal"),
            ) {
                (Some(_), Some((_, column))) => {
                    return Err(args.err(column, "give `code=C` or `signal=S`, not both".into()))
                }
                (Some(code), None) if (0..=255).contains(&code) => Exit::Code(code),
                (Some(code), None) => {
                    return Err(args.err(item.column, format!("`code={code}`: an exit code is 0 to 255")))
                }
                (None, Some((name, column))) => Exit::Signal(
                    Signal::parse(name)
                        .ok_or_else(|| args.err(column, format!("`{name}` is not a signal")))?,
                ),
                (None, None) => Exit::Code(1),
            };
            vec![AcpFault::Crash {
                at,
                exit,
                text: args.text("text"),
            }]
        }
        "eof" => vec![AcpFault::Eof {
            at: message_place(&mut args, Place::At(updates::AGENT_MESSAGE_CHUNK.into()))?,
            byte: args.number::<usize>("byte", "a byte offset inside the message")?,
        }],
        "malformed" => vec![AcpFault::Malformed {
            at: message_place(&mut args, Place::After(1))?,
        }],
        "stderr" => vec![AcpFault::Stderr {
            text: args
                .text("text")
                .ok_or_else(|| args.err(item.column, "`stderr` needs `text=...`".into()))?,
            at: message_place(&mut args, Place::After(0))?,
        }],
        "stderr-flood" => vec![AcpFault::StderrFlood {
            bytes: args.size("bytes")?.unwrap_or(1 << 20),
        }],
        "drop" => vec![AcpFault::Drop {
            kind: args.text("kind").filter(|k| !k.is_empty()).ok_or_else(|| {
                args.err(
                    item.column,
                    "`drop` needs `kind=...`, e.g. `drop:kind=tool_call_update`".into(),
                )
            })?,
        }],
        "duplicate" => vec![AcpFault::Duplicate {
            at: message_place(&mut args, Place::At(updates::AGENT_MESSAGE_CHUNK.into()))?,
        }],
        "reorder" => vec![AcpFault::Reorder],
        "unknown-update" => vec![AcpFault::UnknownUpdate {
            at: message_place(&mut args, Place::At(updates::AGENT_MESSAGE_CHUNK.into()))?,
        }],
        "unknown-field" => vec![AcpFault::UnknownField],
        "early-update" => vec![AcpFault::EarlyUpdate],
        "huge" => vec![AcpFault::Huge {
            bytes: args.size("bytes")?.unwrap_or(1 << 20).min(MAX_BYTES),
            at: message_place(&mut args, Place::At(updates::AGENT_MESSAGE_CHUNK.into()))?,
        }],
        "chunk" => {
            let size = args.number::<usize>("size", "a number of bytes, 1 or more")?;
            let random = args.get("random").is_some();
            vec![AcpFault::Chunk(match (size, random) {
                (Some(n), false) if n > 0 => Chunking::Size(n),
                (None, true) => Chunking::Random,
                _ => {
                    return Err(args.err(
                        item.column,
                        "`chunk` takes `size=N` (1 or more) or `random`".into(),
                    ))
                }
            })]
        }
        "coalesce" => vec![AcpFault::Coalesce],
        "auth-required" => session_methods
            .iter()
            .map(|m| AcpFault::Error {
                method: (*m).to_owned(),
                code: codes::AUTH_REQUIRED,
                message: "Authentication required".to_owned(),
                data: None,
            })
            .collect(),
        "authenticate-hangs" => vec![AcpFault::NoResponse {
            method: methods::AUTHENTICATE.to_owned(),
        }],
        "session-services-failed" => vec![AcpFault::Error {
            method: methods::SESSION_NEW.to_owned(),
            code: codes::INTERNAL_ERROR,
            message: "Failed to initialize session services".to_owned(),
            data: None,
        }],
        "crash-on-initialize" => vec![AcpFault::Crash {
            at: Place::Method(methods::INITIALIZE.to_owned()),
            exit: Exit::Code(1),
            text: Some("Error: Failed to start the agent: connection refused".to_owned()),
        }],
        "crash-while-asking" => vec![AcpFault::Crash {
            at: Place::Asking,
            exit: Exit::Code(1),
            text: Some("Error: the agent stopped unexpectedly".to_owned()),
        }],
        stop_reasons::REFUSAL => vec![AcpFault::StopReason {
            reason: stop_reasons::REFUSAL.to_owned(),
        }],
        "max-tokens" => vec![AcpFault::StopReason {
            reason: stop_reasons::MAX_TOKENS.to_owned(),
        }],
        other => {
            let names: Vec<&str> = catalogue().iter().map(|d| d.name).collect();
            return Err(args.err(
                item.column,
                format!(
                    "`{other}` is not a fault of server mode; they are {}",
                    names.join(", ")
                ),
            ));
        }
    };
    args.finish_with(catalogue())?;
    Ok(faults)
}

fn method(args: &mut Args<'_>, item: &crate::faults::Item) -> Result<String, Diagnostic> {
    args.text("method").filter(|m| !m.is_empty()).ok_or_else(|| {
        args.err(
            item.column,
            format!("`{}` needs `method=...`, e.g. `method=session/new`", item.name),
        )
    })
}

/// `method=M`, `at=KIND` (`at=asking`: while a request waits) or `after=N`, at most one.
/// A place for a fault that acts on one agent message: `at=KIND` or `after=N`
/// (`method=M` places only `crash`, `error`, `no-response` and `late`).
fn message_place(args: &mut Args<'_>, default: Place) -> Result<Place, Diagnostic> {
    if let Some((_, column)) = args.get("method") {
        return Err(args.err(
            column,
            "this fault acts on an agent message: place it with `at=KIND` or `after=N` (`method=M` places crash, error, no-response and late)".into(),
        ));
    }
    place(args, default)
}

fn place(args: &mut Args<'_>, default: Place) -> Result<Place, Diagnostic> {
    let method = args.get("method");
    let at = args.get("at");
    let after = args.number::<u64>("after", "a number of agent messages")?;
    let given = [method.is_some(), at.is_some(), after.is_some()]
        .iter()
        .filter(|g| **g)
        .count();
    if given > 1 {
        let column = method.or(at).map_or(1, |(_, c)| c);
        return Err(args.err(column, "give one of `method=M`, `at=KIND`, `after=N`".into()));
    }
    Ok(match (method, at, after) {
        (Some((m, _)), _, _) => Place::Method(m.to_owned()),
        (_, Some(("asking", _)), _) => Place::Asking,
        (_, Some((methods::INITIALIZE, _)), _) => Place::Method(methods::INITIALIZE.to_owned()),
        (_, Some((kind, _)), _) => Place::At(kind.to_owned()),
        (_, _, Some(n)) => Place::After(n),
        _ => default,
    })
}

/// What a message is, for placing faults: its `sessionUpdate` kind, or its method.
pub fn kind_of(message: &Message<'_>) -> Option<String> {
    if message.method() == super::methods::SESSION_UPDATE {
        return message.params_value()["update"]["sessionUpdate"]
            .as_str()
            .map(str::to_owned);
    }
    message.method.as_deref().map(str::to_owned)
}

/// What the agent writes because of the faults, besides its messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Out {
    /// A line on stdout; `newline: false` for one cut short.
    Line {
        /// The bytes.
        bytes: Vec<u8>,
        /// Whether a newline follows.
        newline: bool,
    },
    /// A line on stderr.
    Stderr(Vec<u8>),
}

/// Whether `step` sends the response to the request `id` (JSON text).
fn responds(step: &Step, id: &str) -> bool {
    match step {
        Step::Send { line, .. } => responds_with(line, id).is_some(),
        _ => false,
    }
}

/// `line` read, when it is the response to the request `id` (JSON text).
fn responds_with<'a>(line: &'a [u8], id: &str) -> Option<Message<'a>> {
    if rpc::surely_not_response(line) {
        return None;
    }
    Message::parse(line).filter(|m| m.kind == Kind::Response && m.id_text() == id)
}

/// What comes of one agent message: what to write, and whether the process ends
/// after it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Sent {
    /// What to write, in order.
    pub out: Vec<Out>,
    /// The process ends after writing it.
    pub end: Option<Exit>,
}

/// The faults of a server run, applied as the conversation goes: the same decisions
/// for the mock that performs them and for the harness that works out what a
/// correct client concludes.
#[derive(Debug, Clone)]
pub struct Injector {
    faults: Vec<AcpFault>,
    fired: Vec<bool>,
    /// Agent lines written so far.
    sent: u64,
    /// An update held back by `reorder`.
    held: Option<Vec<u8>>,
    /// Of a fault that acts on steps as they are played (`stop-reason`), whether it
    /// has acted: set by the steps (shared with a clone).
    acted: Vec<Option<Arc<AtomicBool>>>,
}

impl Injector {
    /// An injector of these faults, none fired.
    pub fn new(faults: Vec<AcpFault>) -> Self {
        Injector {
            fired: vec![false; faults.len()],
            acted: vec![None; faults.len()],
            faults,
            sent: 0,
            held: None,
        }
    }

    /// The faults and whether each acted.
    pub fn report(&self) -> Vec<(&'static str, bool)> {
        self.faults
            .iter()
            .zip(self.fired.iter().zip(&self.acted))
            .map(|(f, (fired, acted))| {
                let acted = acted.as_ref().is_some_and(|a| a.load(Ordering::Relaxed));
                (f.name(), *fired || acted)
            })
            .collect()
    }

    /// How stdout is written: chunked, coalesced.
    pub fn chunking(&self) -> Option<Chunking> {
        self.faults.iter().find_map(|f| match f {
            AcpFault::Chunk(chunking) => Some(*chunking),
            _ => None,
        })
    }

    /// Whether messages are coalesced.
    pub fn coalesce(&self) -> bool {
        self.faults.iter().any(|f| matches!(f, AcpFault::Coalesce))
    }

    /// What is written when the agent starts (`stderr-flood`).
    pub fn start(&mut self) -> Vec<Out> {
        let mut out = Vec::new();
        for index in 0..self.faults.len() {
            if let AcpFault::StderrFlood { bytes } = self.faults[index] {
                self.fired[index] = true;
                let line = "mock-agent stderr flood: the agent writes more than a pipe holds ".repeat(16);
                let mut left = bytes;
                while left > 0 {
                    let take = left.min(line.len() + 1);
                    out.push(Out::Stderr(line.as_bytes()[..take - 1].to_vec()));
                    left -= take;
                }
            }
        }
        out
    }

    /// The faults on the answer to the client's request `method` (id `id`, JSON
    /// text): the steps to play, or what to write before the process ends there.
    /// The faults act on each step as it is played, so that steps read from a
    /// cassette are still read one at a time; but `early-update` holds the answer to
    /// `session/new` (a few messages) to reorder it.
    pub fn on_request(&mut self, method: &str, id: &str, mut steps: Steps) -> Result<Steps, Sent> {
        if let Some(sent) = self.crash(|place| matches!(place, Place::Method(m) if m == method)) {
            return Err(sent);
        }
        let answers_it = |step: &Step| responds(step, id);
        for index in 0..self.faults.len() {
            match &self.faults[index] {
                AcpFault::Error {
                    method: m,
                    code,
                    message,
                    data,
                } if m == method => {
                    let error = rpc::error(id, *code, message, data.as_ref());
                    steps = Steps::from(vec![Step::Send {
                        at: Duration::ZERO,
                        line: error,
                    }]);
                    self.fired[index] = true;
                }
                AcpFault::NoResponse { method: m } if m == method => {
                    let id = id.to_owned();
                    steps =
                        Steps::new(steps.filter(move |step| !step.as_ref().is_ok_and(|s| responds(s, &id))));
                    self.fired[index] = true;
                }
                AcpFault::StopReason { reason } if method == methods::SESSION_PROMPT => {
                    let acted = Arc::clone(self.acted[index].get_or_insert_with(Arc::default));
                    let (id, reason) = (id.to_owned(), reason.clone());
                    steps = Steps::new(steps.map(move |step| {
                        let mut step = step?;
                        if let Step::Send { line, .. } = &mut step {
                            let ends_turn = responds_with(line, &id).is_some_and(|m| {
                                m.result.is_some_and(|r| {
                                    r.get().contains(&format!("\"{}\"", stop_reasons::END_TURN))
                                })
                            });
                            if ends_turn {
                                *line = rpc::response(&id, &wire::stop(&reason));
                                acted.store(true, Ordering::Relaxed);
                            }
                        }
                        Ok(step)
                    }));
                }
                AcpFault::EarlyUpdate if method == methods::SESSION_NEW => {
                    // The answer to `session/new` is a few messages: held to reorder.
                    let mut held: Vec<_> = steps.collect();
                    let response = held.iter().position(|s| s.as_ref().is_ok_and(answers_it));
                    let update = held.iter().position(|s| match s {
                        Ok(Step::Send { line, .. }) => {
                            Message::parse(line).is_some_and(|m| m.method() == methods::SESSION_UPDATE)
                        }
                        _ => false,
                    });
                    if let (Some(response), Some(update)) = (response, update) {
                        if update > response {
                            let moved = held.remove(update);
                            held.insert(response, moved);
                            self.fired[index] = true;
                        }
                    }
                    steps = Steps::new(held.into_iter());
                }
                _ => {}
            }
        }
        Ok(steps)
    }

    /// How much later the answer to `method` comes (`late`).
    pub fn late(&mut self, method: &str) -> Option<Duration> {
        let index = self
            .faults
            .iter()
            .position(|f| matches!(f, AcpFault::Late { method: m, .. } if m == method))?;
        self.fired[index] = true;
        match self.faults[index] {
            AcpFault::Late { delay, .. } => Some(delay),
            _ => None,
        }
    }

    /// A crash while the agent waits for the client's answer to its request.
    pub fn asking(&mut self) -> Option<Sent> {
        self.crash(|place| *place == Place::Asking)
    }

    fn crash(&mut self, here: impl Fn(&Place) -> bool) -> Option<Sent> {
        let index = self
            .faults
            .iter()
            .position(|f| matches!(f, AcpFault::Crash { at, .. } if here(at)))?;
        self.fired[index] = true;
        let AcpFault::Crash { exit, text, .. } = &self.faults[index] else {
            return None;
        };
        Some(Sent {
            out: text.iter().map(|t| Out::Stderr(t.clone().into_bytes())).collect(),
            end: Some(*exit),
        })
    }

    /// One agent message, with the faults placed on it.
    pub fn message(&mut self, line: Vec<u8>) -> Sent {
        if self.faults.is_empty() {
            // The common case, a long turn without faults: nothing to look at.
            self.sent += 1;
            return Sent {
                out: vec![Out::Line {
                    bytes: line,
                    newline: true,
                }],
                end: None,
            };
        }
        let message = Message::parse(&line);
        let kind = message.as_ref().and_then(kind_of);
        let update = message
            .as_ref()
            .is_some_and(|m| m.method() == methods::SESSION_UPDATE);
        let session = message
            .as_ref()
            .and_then(|m| m.params_value()["sessionId"].as_str().map(str::to_owned))
            .unwrap_or_default();
        let n = self.sent;
        let mut sent = Sent::default();
        let mut stderr = Vec::new();
        let mut before = Vec::new();
        let mut copies = 1;
        let mut cut = None;
        let mut line = line.clone();
        for index in 0..self.faults.len() {
            let fault = &self.faults[index];
            let Some(place) = fault.place() else {
                match fault {
                    AcpFault::Drop { kind: dropped }
                        if update && kind.as_deref() == Some(dropped.as_str()) =>
                    {
                        self.fired[index] = true;
                        copies = 0;
                    }
                    AcpFault::UnknownField if update => {
                        self.fired[index] = true;
                        line = with_unknown_field(&line);
                    }
                    _ => {}
                }
                continue;
            };
            let here = match place {
                Place::After(k) => n == *k,
                Place::At(at) => !self.fired[index] && kind.as_deref() == Some(at.as_str()),
                Place::Method(_) | Place::Asking => false,
            };
            if !here {
                continue;
            }
            self.fired[index] = true;
            match fault {
                AcpFault::Crash { exit, text, .. } => {
                    stderr.extend(text.clone().map(String::into_bytes));
                    sent.end = Some(*exit);
                }
                AcpFault::Eof { byte, .. } => {
                    cut = Some(byte.unwrap_or(line.len() / 2).min(line.len()));
                    sent.end = Some(Exit::Code(1));
                }
                AcpFault::Malformed { .. } => before.push(b"{\"jsonrpc\":\"2.0\",\"method\":".to_vec()),
                AcpFault::Stderr { text, .. } => stderr.push(text.clone().into_bytes()),
                AcpFault::Duplicate { .. } => copies = 2,
                AcpFault::UnknownUpdate { .. } => before.push(super::tell::update_line(
                    &session,
                    &wire::text_chunk("mock_agent_unknown_update", "an update no client knows"),
                )),
                AcpFault::Huge { bytes, .. } => before.push(super::tell::update_line(
                    &session,
                    &wire::text_chunk(updates::AGENT_MESSAGE_CHUNK, &"x".repeat(*bytes)),
                )),
                _ => {}
            }
        }
        sent.out.extend(stderr.into_iter().map(Out::Stderr));
        let mut lines: Vec<(Vec<u8>, bool)> = before.into_iter().map(|b| (b, true)).collect();
        if sent.end.is_some() {
            if let Some(bytes) = cut {
                line.truncate(bytes);
                lines.push((line, false));
            }
        } else {
            let reorder = update && self.faults.iter().any(|f| matches!(f, AcpFault::Reorder));
            for _ in 0..copies {
                match (reorder, self.held.take()) {
                    (true, None) => self.held = Some(line.clone()),
                    (true, Some(held)) => {
                        for (fault, fired) in self.faults.iter().zip(self.fired.iter_mut()) {
                            *fired |= matches!(fault, AcpFault::Reorder);
                        }
                        lines.push((line.clone(), true));
                        lines.push((held, true));
                    }
                    (false, held) => {
                        lines.extend(held.map(|h| (h, true)));
                        lines.push((line.clone(), true));
                    }
                }
            }
        }
        self.sent += lines.len() as u64;
        sent.out.extend(
            lines
                .into_iter()
                .map(|(bytes, newline)| Out::Line { bytes, newline }),
        );
        sent
    }
}

/// An update line with a field no client knows, added to its `update` object.
fn with_unknown_field(line: &[u8]) -> Vec<u8> {
    const MARKER: &[u8] = b"\"update\":{";
    match line.windows(MARKER.len()).position(|w| w == MARKER) {
        Some(at) => {
            let split = at + MARKER.len();
            [
                &line[..split],
                b"\"mockAgentUnknownField\":{\"added\":true},".as_slice(),
                &line[split..],
            ]
            .concat()
        }
        None => line.to_vec(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn faults_and_presets_parse_with_their_places() {
        let ok = |spec: &str| parse(spec, FROM_ENV).expect(spec);
        assert_eq!(
            ok("no-response:method=authenticate"),
            vec![AcpFault::NoResponse {
                method: "authenticate".into()
            }]
        );
        assert_eq!(ok("auth-required").len(), 3);
        assert_eq!(
            ok("crash:at=asking,signal=KILL"),
            vec![AcpFault::Crash {
                at: Place::Asking,
                exit: Exit::Signal(Signal::Kill),
                text: None
            }]
        );
        assert_eq!(
            ok("eof:after=3,byte=10"),
            vec![AcpFault::Eof {
                at: Place::After(3),
                byte: Some(10)
            }]
        );
        for entry in catalogue() {
            parse(entry.example, FROM_ENV).unwrap_or_else(|e| panic!("{}: {e}", entry.example));
        }
        let err = |spec: &str| parse(spec, FROM_ENV).expect_err(spec).to_string();
        assert!(err("late:ms=3").contains("needs `method=...`"));
        assert!(err("stop-reason:reason=tired").contains("not a stop reason"));
        assert!(err("eof:at=a,after=2").contains("give one of"));
        assert!(err("eof:method=session/new").contains("place it with `at=KIND` or `after=N`"));
        assert!(err("nonsense").contains("not a fault of server mode"));
        assert!(err("reorder:x=1").contains("does not take `x`"));
    }
}
