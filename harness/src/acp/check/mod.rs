//! The checker of server mode: the Agent Client Protocol (JSON-RPC 2.0, one message a
//! line, in both directions) as a state machine over a recorded conversation, the
//! client's lines (`in` frames) and the agent's (`out` frames) in recorded order.
//!
//! Errors break what the protocol promises:
//!
//! - every line is one JSON-RPC 2.0 message: a request, a notification or a
//!   response, of the right shape (`json-rpc`; a client's broken line is a warning,
//!   since the agent ignores what it cannot read);
//! - each request is answered once, with its id, in both directions
//!   (`answered-once`);
//! - a prompt's response ends its turn: no update of that turn after it
//!   (`turn-order`);
//! - messages name only sessions that a `session/new` response or a `session/load`
//!   created (`known-session`);
//! - `tool_call` comes before the `tool_call_update`s of its `toolCallId`
//!   (`tool-call-pairs`);
//! - a prompt ends with a `stopReason` ACP defines (`stop-reason`);
//! - the agent asks only for what the client advertised in `initialize`
//!   (`capability`);
//! - the agent's messages of known methods and update kinds have the fields ACP
//!   requires (`fields`).
//!
//! Warnings are what a client must cope with: an unknown `sessionUpdate` kind (the
//! mock passes it through), an unknown method or tool kind, an update that comes
//! before the response creating its session, a request still waiting when the
//! recording ends. Cursor's own habits (`cursor-habit`: output in `rawOutput`, a
//! newline in a `toolCallId`, the `models` block) are notes, once per file; its
//! `cursor/ask_question` request, which blocks the turn, is a warning.
//!
//! The rules are this module's [`AcpRule`]s; what becomes of a finding (kept, counted,
//! reported under its stable id) is the [`Findings`] the [`Checker`] is given: the
//! [`AcpChecker`] tallies them as the print-mode checker does.
//!
//! # Bounded memory
//!
//! Findings are kept as the print-mode checker keeps them (the first few of each
//! rule). The state (requests waiting, sessions, tool calls, answered ids) holds at
//! most [`MAX_TRACKED`] entries of each kind; past that, the checks that need the
//! whole picture (an answer to an unknown id, an unknown session) stay silent rather
//! than guess.

mod lint;
mod parse;
mod requests;
mod updates;

pub use lint::{check_conversation, AcpChecker};

use std::collections::HashMap;
use std::hash::Hash;

use serde_json::Value;

use super::wire::methods;
use crate::frames::Exit;

/// The most entries the checker keeps of each kind of state (see the
/// [module documentation](self#bounded-memory)).
pub const MAX_TRACKED: usize = 1 << 16;

/// Who wrote a line of a conversation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Side {
    /// The client (an editor, a bot): the agent's stdin, a cassette's `in` frames.
    Client,
    /// The agent: its stdout, a cassette's `out` frames.
    Agent,
}

impl Side {
    pub(crate) fn other(self) -> Side {
        match self {
            Side::Client => Side::Agent,
            Side::Agent => Side::Client,
        }
    }

    /// `client` or `agent`.
    pub fn name(self) -> &'static str {
        match self {
            Side::Client => "client",
            Side::Agent => "agent",
        }
    }
}

/// Cursor's own habits, each reported once per file.
#[derive(Debug, Clone, Copy)]
enum Habit {
    RawOutput,
    NewlineInId,
    Models,
    AskQuestion,
}

impl Habit {
    const COUNT: usize = 4;

    fn level(self) -> Level {
        match self {
            Habit::AskQuestion => Level::Warning,
            _ => Level::Note,
        }
    }

    fn message(self) -> &'static str {
        match self {
            Habit::RawOutput => {
                "Cursor puts a tool's output in `rawOutput`, not `content`: a client that shows only `content` shows nothing"
            }
            Habit::NewlineInId => {
                "Cursor's `toolCallId` holds a literal newline: a client must keep it as it is"
            }
            Habit::Models => {
                "Cursor's `session/new` result has a `models` block, which ACP's schema does not define (clients read it; typed SDKs drop it)"
            }
            Habit::AskQuestion => {
                "Cursor's `cursor/ask_question` request blocks the turn until the client answers it (`answered`, `skipped`, `cancelled`, or -32601)"
            }
        }
    }
}

/// A map that holds at most [`MAX_TRACKED`] entries, and says when it refused one.
#[derive(Debug)]
struct Capped<K, V> {
    map: HashMap<K, V>,
    full: bool,
}

impl<K: Eq + Hash, V> Capped<K, V> {
    fn new() -> Self {
        Capped {
            map: HashMap::new(),
            full: false,
        }
    }

    fn insert(&mut self, key: K, value: V) {
        if self.map.len() >= MAX_TRACKED && !self.map.contains_key(&key) {
            self.full = true;
        } else {
            self.map.insert(key, value);
        }
    }
}

/// A request waiting for its answer.
#[derive(Debug)]
struct Asked {
    line: u64,
    method: String,
    session: Option<String>,
    /// A permission request's `optionId`s.
    options: Vec<String>,
}

/// What the client advertised in `initialize`.
#[derive(Debug, Default)]
struct Capabilities {
    /// The line of the client's `initialize`, once seen.
    line: Option<u64>,
    read_text_file: bool,
    write_text_file: bool,
    terminal: bool,
}

/// A session's turns.
#[derive(Debug, Default)]
struct Turn {
    /// The id of the prompt being answered.
    prompt: Option<String>,
    /// The line of the response that ended the last turn, until the client's next
    /// request about the session.
    ended: Option<u64>,
    /// The line of the client's `session/cancel` of the open turn.
    cancelled: Option<u64>,
}

/// Messages of a session not created yet.
#[derive(Debug)]
struct Orphan {
    line: u64,
    count: u64,
}

/// One JSON-RPC message, read whole: what the checker's rules look at (the mock's
/// own view of a line, borrowed and unparsed, is [`rpc::Message`](super::rpc::Message)).
enum Parsed {
    Request {
        id: String,
        method: String,
        params: Value,
    },
    Notification {
        method: String,
        params: Value,
    },
    Response {
        id: Option<String>,
        result: Result<Value, Value>,
    },
}

/// How bad a finding is: the checker's [`Severity`](crate::check::Severity).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    /// Cursor's own habits.
    Note,
    /// What a client must cope with.
    Warning,
    /// A broken promise of the protocol.
    Error,
}

/// The rules of server mode, each one of the checker's [`Rule`](crate::check::Rule)s
/// (their ids are said there).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AcpRule {
    /// `json-rpc`.
    JsonRpc,
    /// `answered-once`.
    AnsweredOnce,
    /// `turn-order`.
    TurnOrder,
    /// `known-session`.
    KnownSession,
    /// `tool-call-pairs`.
    ToolCallPairs,
    /// `stop-reason`.
    StopReason,
    /// `capability`.
    Capability,
    /// `fields`.
    Fields,
    /// `tool-kind`.
    ToolKind,
    /// `update-kind`.
    UpdateKind,
    /// `method`.
    Method,
    /// `cursor-habit`.
    CursorHabit,
}

/// Where findings go as they are found.
pub trait Findings {
    /// Records a finding; `message` is called only if the finding is kept.
    fn add(&mut self, level: Level, line: u64, rule: AcpRule, message: impl FnOnce() -> String);
}

/// The rules of server mode as a state machine over a recorded conversation: feed it
/// the lines in recorded order, then how the process ended.
#[derive(Debug)]
pub struct Checker<F> {
    found: F,
    capabilities: Capabilities,
    /// Requests waiting, by the side that asked.
    asked: [Capped<String, Asked>; 2],
    /// Answered request ids, by the side that asked, with the line of the answer.
    answered: [Capped<String, u64>; 2],
    /// Created (or loading) sessions, with the line that made them known.
    sessions: Capped<String, u64>,
    orphans: Capped<String, Orphan>,
    turns: Capped<String, Turn>,
    /// Announced tool calls by session and id, with their line.
    tool_calls: Capped<(String, String), u64>,
    habits: [bool; Habit::COUNT],
}

impl<F: Findings> Checker<F> {
    /// A checker at the start of a conversation, its findings going to `found`.
    pub fn new(found: F) -> Self {
        Checker {
            found,
            capabilities: Capabilities::default(),
            asked: [Capped::new(), Capped::new()],
            answered: [Capped::new(), Capped::new()],
            sessions: Capped::new(),
            orphans: Capped::new(),
            turns: Capped::new(),
            tool_calls: Capped::new(),
            habits: [false; Habit::COUNT],
        }
    }

    /// Where the findings go.
    pub fn findings(&mut self) -> &mut F {
        &mut self.found
    }

    /// Checks one line (without its newline) that `side` wrote; `line` is where it is.
    pub fn line(&mut self, line: u64, side: Side, bytes: &[u8]) {
        let Some(message) = self.parse(line, side, bytes) else {
            return;
        };
        match (side, message) {
            (_, Parsed::Request { id, method, params }) => self.request(line, side, id, method, params),
            (Side::Client, Parsed::Notification { method, params }) => {
                self.known_method(line, side, &method);
                if method == methods::SESSION_CANCEL {
                    self.cancel(line, &params);
                }
            }
            (Side::Agent, Parsed::Notification { method, params }) => {
                if method == methods::SESSION_UPDATE {
                    self.update(line, &params);
                } else {
                    self.known_method(line, side, &method);
                    self.session_named(line, &params);
                }
            }
            (_, Parsed::Response { id: None, .. }) => {}
            (_, Parsed::Response { id: Some(id), result }) => self.response(line, side, &id, result),
        }
    }

    /// Finishes the conversation: `exit` is how the process ended, where known. Gives
    /// back the findings.
    pub fn finish(mut self, exit: Option<Exit>) -> F {
        self.orphans_at_end();
        self.waiting_at_end(exit);
        self.found
    }

    /// How many requests of `side` are waiting, and whether more came than were kept.
    pub fn waiting(&self, side: Side) -> (usize, bool) {
        let asked = &self.asked[side as usize];
        (asked.map.len(), asked.full)
    }
}
