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
//! # Bounded memory
//!
//! Findings are kept as the print-mode checker keeps them (the first few of each
//! rule). The state (requests waiting, sessions, tool calls, answered ids) holds at
//! most [`MAX_TRACKED`] entries of each kind; past that, the checks that need the
//! whole picture (an answer to an unknown id, an unknown session) stay silent rather
//! than guess.

use std::collections::HashMap;
use std::hash::Hash;

use serde_json::{Map, Value};

use super::findings::Tally;
use super::{Report, Rule, Severity, SHOWN_PER_RULE};
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
    fn other(self) -> Side {
        match self {
            Side::Client => Side::Agent,
            Side::Agent => Side::Client,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Side::Client => "client",
            Side::Agent => "agent",
        }
    }
}

/// The methods a client sends.
const CLIENT_METHODS: &[&str] = &[
    "initialize",
    "authenticate",
    "session/new",
    "session/load",
    "session/list",
    "session/prompt",
    "session/cancel",
    "session/set_mode",
    "session/set_config_option",
    "session/set_model",
    "$/cancel_request",
];

/// The methods an agent sends.
const AGENT_METHODS: &[&str] = &[
    "session/update",
    "session/request_permission",
    "fs/read_text_file",
    "fs/write_text_file",
    "terminal/create",
    "terminal/output",
    "terminal/release",
    "terminal/wait_for_exit",
    "terminal/kill",
    "$/cancel_request",
];

/// The `sessionUpdate` kinds of ACP (schema 1.15).
const UPDATE_KINDS: &[&str] = &[
    "user_message_chunk",
    "agent_message_chunk",
    "agent_thought_chunk",
    "tool_call",
    "tool_call_update",
    "plan",
    "available_commands_update",
    "current_mode_update",
    "config_option_update",
    "session_info_update",
    "usage_update",
    "notice",
    "compaction_update",
    "compaction_summary_chunk",
];

/// The update kinds that belong to a prompt's turn (or a load's replay).
const TURN_KINDS: &[&str] = &[
    "user_message_chunk",
    "agent_message_chunk",
    "agent_thought_chunk",
    "tool_call",
    "tool_call_update",
    "plan",
];

/// The stop reasons of a `session/prompt` response.
const STOP_REASONS: &[&str] = &[
    "end_turn",
    "max_tokens",
    "max_turn_requests",
    "refusal",
    "cancelled",
];

/// Tool kinds and statuses.
const TOOL_KINDS: &[&str] = &[
    "read",
    "edit",
    "delete",
    "move",
    "search",
    "execute",
    "think",
    "fetch",
    "switch_mode",
    "other",
];
const TOOL_STATUSES: &[&str] = &["pending", "in_progress", "completed", "failed"];

/// The kinds of a permission option.
const OPTION_KINDS: &[&str] = &["allow_once", "allow_always", "reject_once", "reject_always"];

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

    fn severity(self) -> Severity {
        match self {
            Habit::AskQuestion => Severity::Warning,
            _ => Severity::Note,
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

/// One JSON-RPC message, read.
enum Message {
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

/// The checker of a recorded ACP conversation: feed it the lines in recorded order,
/// then how the process ended.
#[derive(Debug)]
pub struct AcpChecker {
    found: Tally,
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

impl Default for AcpChecker {
    fn default() -> Self {
        AcpChecker::new()
    }
}

impl AcpChecker {
    /// A checker at the start of a conversation.
    pub fn new() -> Self {
        AcpChecker {
            found: Tally::new(SHOWN_PER_RULE),
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

    /// Keep the first `n` findings of each rule (default [`SHOWN_PER_RULE`]); the rest
    /// are only counted ([`Report::elided`]).
    #[must_use]
    pub fn shown_per_rule(mut self, n: usize) -> Self {
        self.found.shown_per_rule = n;
        self
    }

    /// Checks one line (without its newline) that `side` wrote; `line` is where it is.
    pub fn line(&mut self, line: u64, side: Side, bytes: &[u8]) {
        let Some(message) = self.parse(line, side, bytes) else {
            return;
        };
        match (side, message) {
            (_, Message::Request { id, method, params }) => self.request(line, side, id, method, params),
            (Side::Client, Message::Notification { method, params }) => {
                self.known_method(line, side, &method);
                if method == "session/cancel" {
                    self.cancel(line, &params);
                }
            }
            (Side::Agent, Message::Notification { method, params }) => {
                if method == "session/update" {
                    self.update(line, &params);
                } else {
                    self.known_method(line, side, &method);
                    self.session_named(line, &params);
                }
            }
            (_, Message::Response { id: None, .. }) => {}
            (_, Message::Response { id: Some(id), result }) => self.response(line, side, &id, result),
        }
    }

    /// Finishes the conversation: `exit` is how the process ended, where known.
    pub fn finish(mut self, exit: Option<Exit>) -> Report {
        self.orphans_at_end();
        self.waiting_at_end(exit);
        self.found.report()
    }

    /// A finding about the recording rather than its conversation (secrets, versions).
    pub(super) fn recording_finding(&mut self, line: u64, rule: Rule, message: impl FnOnce() -> String) {
        self.found.add(Severity::Warning, line, rule, message);
    }

    /// `json-rpc`: reads a line as one JSON-RPC 2.0 message, or says why it is not.
    fn parse(&mut self, line: u64, side: Side, bytes: &[u8]) -> Option<Message> {
        let value: Value = match serde_json::from_slice(bytes) {
            Ok(value) => value,
            Err(_) => {
                self.malformed(line, side, || {
                    let shown: String = String::from_utf8_lossy(bytes).chars().take(60).collect();
                    format!("a line that is not JSON: `{shown}`")
                });
                return None;
            }
        };
        let Value::Object(mut map) = value else {
            self.malformed(line, side, || "a JSON value that is not an object".into());
            return None;
        };
        match map.get("jsonrpc") {
            Some(Value::String(version)) if version == "2.0" => {}
            Some(other) => {
                let other = other.to_string();
                self.malformed(line, side, || format!("`jsonrpc` is `{other}`, not \"2.0\""));
            }
            None => self.malformed(line, side, || "a message with no `\"jsonrpc\":\"2.0\"`".into()),
        }
        let params = map.remove("params").unwrap_or(Value::Null);
        if !matches!(params, Value::Null | Value::Object(_) | Value::Array(_)) {
            self.malformed(line, side, || "`params` is neither an object nor a list".into());
            return None;
        }
        let id = match map.remove("id") {
            None => None,
            Some(id @ (Value::Null | Value::String(_) | Value::Number(_))) => Some(id),
            Some(other) => {
                self.malformed(line, side, || {
                    format!("the id `{other}` is neither a string nor a number")
                });
                return None;
            }
        };
        let result = map.remove("result");
        let error = map.remove("error");
        match map.remove("method") {
            Some(Value::String(method)) => {
                if result.is_some() || error.is_some() {
                    self.malformed(line, side, || {
                        format!("`{method}` has a `method` and a `result` or `error`: a message is a request or a response, not both")
                    });
                    return None;
                }
                match id {
                    None => Some(Message::Notification { method, params }),
                    Some(Value::Null) => {
                        self.malformed(line, side, || {
                            format!("a `{method}` request with `\"id\":null`: leave the id out of a notification, or give a request a string or number")
                        });
                        None
                    }
                    Some(id) => Some(Message::Request {
                        id: id.to_string(),
                        method,
                        params,
                    }),
                }
            }
            Some(other) => {
                self.malformed(line, side, || format!("the method `{other}` is not a string"));
                None
            }
            None => {
                let Some(id) = id else {
                    self.malformed(line, side, || {
                        "a message with neither a `method` nor an `id`".into()
                    });
                    return None;
                };
                let result = match (result, error) {
                    (Some(result), None) => Ok(result),
                    (None, Some(error)) => {
                        if !error_shape(&error) {
                            self.malformed(line, side, || {
                                format!("the error `{error}` lacks an integer `code` or a string `message`")
                            });
                        }
                        Err(error)
                    }
                    (Some(_), Some(_)) => {
                        self.malformed(line, side, || "a response with both `result` and `error`".into());
                        return None;
                    }
                    (None, None) => {
                        self.malformed(line, side, || {
                            "a message with an `id` but no `method`, `result` or `error`".into()
                        });
                        return None;
                    }
                };
                if id.is_null() && result.is_ok() {
                    self.malformed(line, side, || {
                        "a result for `\"id\":null`: only an error (to a line that could not be read) has no id".into()
                    });
                    return None;
                }
                Some(Message::Response {
                    id: (!id.is_null()).then(|| id.to_string()),
                    result,
                })
            }
        }
    }

    fn malformed(&mut self, line: u64, side: Side, message: impl FnOnce() -> String) {
        let severity = match side {
            Side::Agent => Severity::Error,
            // The agent ignores a line it cannot read.
            Side::Client => Severity::Warning,
        };
        self.found.add(severity, line, Rule::JsonRpc, || {
            format!("the {}'s line: {}", side.name(), message())
        });
    }

    /// A request of either side.
    fn request(&mut self, line: u64, side: Side, id: String, method: String, params: Value) {
        self.known_method(line, side, &method);
        let session = params.get("sessionId").and_then(Value::as_str).map(str::to_owned);
        let asked = &mut self.asked[side as usize];
        if let Some(first) = asked.map.get(&id) {
            let first = first.line;
            self.found.add(Severity::Error, line, Rule::AnsweredOnce, || {
                format!(
                    "the {} reuses the id {id} of its request on line {first}, still waiting for its answer",
                    side.name()
                )
            });
        }
        let mut options = Vec::new();
        match side {
            Side::Client => self.client_request(line, &id, &method, &params, session.as_deref()),
            Side::Agent => {
                self.capability(line, &method);
                self.session_named(line, &params);
                match method.as_str() {
                    "session/request_permission" => options = self.permission_request(line, &params),
                    "cursor/ask_question" => self.habit(line, Habit::AskQuestion),
                    _ => {}
                }
            }
        }
        self.asked[side as usize].insert(
            id,
            Asked {
                line,
                method,
                session,
                options,
            },
        );
    }

    /// What a client's request starts: a turn, a load, the capabilities.
    fn client_request(&mut self, line: u64, id: &str, method: &str, params: &Value, session: Option<&str>) {
        if method == "initialize" {
            let caps = &params["clientCapabilities"];
            self.capabilities = Capabilities {
                line: Some(line),
                read_text_file: caps["fs"]["readTextFile"] == Value::Bool(true),
                write_text_file: caps["fs"]["writeTextFile"] == Value::Bool(true),
                terminal: caps["terminal"] == Value::Bool(true),
            };
        }
        let Some(session) = session else {
            return;
        };
        if method == "session/load" {
            self.created(line, session, "`session/load` request");
        }
        if !self.turns.map.contains_key(session) {
            self.turns.insert(session.to_owned(), Turn::default());
        }
        if let Some(turn) = self.turns.map.get_mut(session) {
            // The client's next request about the session: what the agent sends now is
            // no longer the last turn's.
            turn.ended = None;
            if method == "session/prompt" {
                turn.prompt = Some(id.to_owned());
                turn.cancelled = None;
            }
        }
    }

    /// `session/cancel`: the open turn of the session is cancelled.
    fn cancel(&mut self, line: u64, params: &Value) {
        let Some(session) = params.get("sessionId").and_then(Value::as_str) else {
            return;
        };
        if let Some(turn) = self.turns.map.get_mut(session) {
            if turn.prompt.is_some() {
                turn.cancelled = Some(line);
            }
        }
    }

    /// A response of either side, to the other side's request.
    fn response(&mut self, line: u64, side: Side, id: &str, result: Result<Value, Value>) {
        let asker = side.other();
        let Some(asked) = self.asked[asker as usize].map.remove(id) else {
            let again = self.answered[asker as usize].map.get(id).copied();
            let whose = asker.name();
            match again {
                Some(first) => self.found.add(Severity::Error, line, Rule::AnsweredOnce, || {
                    format!(
                        "the {} answers the {whose}'s request {id} again (first answered on line {first})",
                        side.name()
                    )
                }),
                None if !self.asked[asker as usize].full && !self.answered[asker as usize].full => {
                    self.found.add(Severity::Error, line, Rule::AnsweredOnce, || {
                        format!(
                            "the {} answers {id}, which is no request of the {whose}'s",
                            side.name()
                        )
                    });
                }
                None => {}
            }
            return;
        };
        self.answered[asker as usize].insert(id.to_owned(), line);
        match side {
            Side::Agent => self.agent_response(line, &asked, result),
            Side::Client => {
                if asked.method == "session/request_permission" {
                    self.permission_answer(line, &asked, result.as_ref().ok());
                }
            }
        }
    }

    /// The agent's answer to a client request: what it creates or ends.
    fn agent_response(&mut self, line: u64, asked: &Asked, result: Result<Value, Value>) {
        let result = result.ok();
        match (asked.method.as_str(), &result) {
            ("initialize", Some(result)) => self.initialize_result(line, result),
            ("session/new", Some(result)) => match result.get("sessionId").and_then(Value::as_str) {
                Some(session) => {
                    self.created(line, session, "`session/new` response");
                    if result.get("models").is_some() {
                        self.habit(line, Habit::Models);
                    }
                }
                None => self.found.add(Severity::Error, line, Rule::Fields, || {
                    "the `session/new` result has no `sessionId` string".into()
                }),
            },
            ("session/prompt", _) => {
                let cancelled = asked
                    .session
                    .as_deref()
                    .and_then(|s| self.turns.map.get_mut(s))
                    .and_then(|turn| {
                        turn.prompt = None;
                        turn.ended = Some(line);
                        turn.cancelled.take()
                    });
                if let Some(result) = &result {
                    self.stop_reason(line, result, cancelled);
                }
            }
            _ => {}
        }
    }

    /// `stop-reason`: the prompt's result gives one of ACP's stop reasons; a cancelled
    /// turn gives `cancelled`.
    fn stop_reason(&mut self, line: u64, result: &Value, cancelled: Option<u64>) {
        match result.get("stopReason") {
            Some(Value::String(reason)) if STOP_REASONS.contains(&reason.as_str()) => {
                if let Some(cancel) = cancelled.filter(|_| reason != "cancelled") {
                    self.found.add(Severity::Warning, line, Rule::StopReason, || {
                        format!("the turn was cancelled (line {cancel}) but ends with `{reason}`, not `cancelled`")
                    });
                }
            }
            Some(other) => {
                let other = other.to_string();
                self.found.add(Severity::Error, line, Rule::StopReason, || {
                    format!(
                        "the prompt ends with stopReason {other}; ACP's are {}",
                        STOP_REASONS.join(", ")
                    )
                });
            }
            None => self.found.add(Severity::Error, line, Rule::StopReason, || {
                "the `session/prompt` result has no `stopReason`".into()
            }),
        }
    }

    /// `fields`: the `initialize` result has a numeric `protocolVersion` and
    /// `authMethods`.
    fn initialize_result(&mut self, line: u64, result: &Value) {
        if !result.get("protocolVersion").is_some_and(Value::is_u64) {
            let found = result
                .get("protocolVersion")
                .map_or("nothing".to_owned(), Value::to_string);
            self.found.add(Severity::Error, line, Rule::Fields, || {
                format!("the `initialize` result's `protocolVersion` is {found}, not a number such as 1")
            });
        }
        if !result.get("authMethods").is_some_and(Value::is_array) {
            self.found.add(Severity::Error, line, Rule::Fields, || {
                "the `initialize` result has no `authMethods` list".into()
            });
        }
    }

    /// A session becomes known: what came for it before was early (a warning).
    fn created(&mut self, line: u64, session: &str, by: &str) {
        if self.sessions.map.contains_key(session) {
            return;
        }
        self.sessions.insert(session.to_owned(), line);
        if let Some(orphan) = self.orphans.map.remove(session) {
            let more = match orphan.count {
                1 => String::new(),
                n => format!(" (and {} more)", n - 1),
            };
            self.found.add(Severity::Warning, orphan.line, Rule::KnownSession, || {
                format!("a message of session `{session}`{more} before the {by} (line {line}) that creates it: a client may not know the session yet")
            });
        }
    }

    /// `known-session`: the agent's message names a session it created.
    fn session_named(&mut self, line: u64, params: &Value) {
        let Some(session) = params.get("sessionId").and_then(Value::as_str) else {
            return;
        };
        if self.sessions.map.contains_key(session) {
            return;
        }
        match self.orphans.map.get_mut(session) {
            Some(orphan) => orphan.count += 1,
            None => self.orphans.insert(session.to_owned(), Orphan { line, count: 1 }),
        }
    }

    /// `known-session`, at the end: sessions never created.
    fn orphans_at_end(&mut self) {
        if self.sessions.full {
            return;
        }
        let mut orphans: Vec<(String, Orphan)> = self.orphans.map.drain().collect();
        orphans.sort_by_key(|(_, orphan)| orphan.line);
        for (session, orphan) in orphans {
            self.found.add(Severity::Error, orphan.line, Rule::KnownSession, || {
                format!(
                    "{} message(s) of session `{session}`, the first here, which no `session/new` response or `session/load` created",
                    orphan.count
                )
            });
        }
    }

    /// `answered-once`, at the end: requests still waiting.
    fn waiting_at_end(&mut self, exit: Option<Exit>) {
        let why = match exit {
            Some(exit) if !exit.success() => format!("the agent ended ({exit}) first"),
            _ => "the recording ends first".to_owned(),
        };
        for side in [Side::Client, Side::Agent] {
            let mut waiting: Vec<(String, Asked)> = self.asked[side as usize].map.drain().collect();
            waiting.sort_by_key(|(_, asked)| asked.line);
            for (id, asked) in waiting {
                let method = asked.method;
                self.found
                    .add(Severity::Warning, asked.line, Rule::AnsweredOnce, || match side {
                        Side::Client => format!("the agent never answers `{method}` {id}: {why}"),
                        Side::Agent => {
                            format!("the client never answers the agent's `{method}` {id}: {why}")
                        }
                    });
            }
        }
    }

    /// `capability`: a request the client advertised.
    fn capability(&mut self, line: u64, method: &str) {
        let caps = &self.capabilities;
        let (has, needs) = match method {
            "fs/read_text_file" => (caps.read_text_file, "clientCapabilities.fs.readTextFile"),
            "fs/write_text_file" => (caps.write_text_file, "clientCapabilities.fs.writeTextFile"),
            m if m.starts_with("terminal/") => (caps.terminal, "clientCapabilities.terminal"),
            _ => return,
        };
        if has {
            return;
        }
        let seen = caps.line;
        self.found.add(Severity::Error, line, Rule::Capability, || match seen {
            Some(init) => format!(
                "the agent asks `{method}`, but the client's `initialize` (line {init}) did not advertise {needs}"
            ),
            None => format!("the agent asks `{method}` before the client's `initialize` advertised {needs}"),
        });
    }

    /// `method`: a method ACP defines (or an extension, `_...`, or Cursor's own).
    fn known_method(&mut self, line: u64, side: Side, method: &str) {
        let known = match side {
            Side::Client => CLIENT_METHODS,
            Side::Agent => AGENT_METHODS,
        };
        if known.contains(&method) || method.starts_with('_') || method == "cursor/ask_question" {
            return;
        }
        self.found.add(Severity::Warning, line, Rule::Method, || {
            format!(
                "the {} sends `{method}`, a method ACP does not define",
                side.name()
            )
        });
    }

    /// `fields` of a permission request; its option ids.
    fn permission_request(&mut self, line: u64, params: &Value) -> Vec<String> {
        let mut wrong = Vec::new();
        if !params.get("sessionId").is_some_and(Value::is_string) {
            wrong.push("no `sessionId`".to_owned());
        }
        match params["toolCall"].get("toolCallId").and_then(Value::as_str) {
            Some(id) if id.contains('\n') => self.habit(line, Habit::NewlineInId),
            Some(_) => {}
            None => wrong.push("no `toolCall.toolCallId`".to_owned()),
        }
        let mut ids = Vec::new();
        match params.get("options").and_then(Value::as_array) {
            Some(options) if !options.is_empty() => {
                for option in options {
                    match option.get("optionId").and_then(Value::as_str) {
                        Some(id) => ids.push(id.to_owned()),
                        None => wrong.push(format!("an option with no `optionId`: {option}")),
                    }
                    let kind = option.get("kind").and_then(Value::as_str).unwrap_or_default();
                    if !OPTION_KINDS.contains(&kind) {
                        wrong.push(format!(
                            "an option of kind `{kind}` (ACP's are {})",
                            OPTION_KINDS.join(", ")
                        ));
                    }
                }
            }
            _ => wrong.push("no `options` to choose from".to_owned()),
        }
        if !wrong.is_empty() {
            self.found.add(Severity::Error, line, Rule::Fields, || {
                format!(
                    "the `session/request_permission` request has {}",
                    wrong.join("; ")
                )
            });
        }
        ids
    }

    /// `fields` (a warning): the client's answer to a permission request.
    fn permission_answer(&mut self, line: u64, asked: &Asked, result: Option<&Value>) {
        let Some(result) = result else {
            return; // An error answer is the client's right.
        };
        let outcome = &result["outcome"];
        let problem = match outcome.get("outcome").and_then(Value::as_str) {
            Some("cancelled") => None,
            Some("selected") => match outcome.get("optionId").and_then(Value::as_str) {
                Some(id) if asked.options.iter().any(|o| o == id) => None,
                Some(id) => Some(format!(
                    "selects `{id}`, which the request (line {}) did not offer",
                    asked.line
                )),
                None => Some("selects no `optionId`".to_owned()),
            },
            _ => Some(format!(
                "is `{result}`, not `{{\"outcome\":{{\"outcome\":\"selected\",\"optionId\":...}}}}` or `cancelled`"
            )),
        };
        if let Some(problem) = problem {
            self.found.add(Severity::Warning, line, Rule::Fields, || {
                format!("the client's answer to `session/request_permission` {problem}")
            });
        }
    }

    /// A `session/update` of the agent's.
    fn update(&mut self, line: u64, params: &Value) {
        let (Some(session), Some(update)) = (
            params.get("sessionId").and_then(Value::as_str),
            params.get("update").and_then(Value::as_object),
        ) else {
            self.found.add(Severity::Error, line, Rule::Fields, || {
                "a `session/update` needs `params.sessionId` (a string) and `params.update` (an object)"
                    .into()
            });
            return;
        };
        self.session_named(line, params);
        let Some(kind) = update.get("sessionUpdate").and_then(Value::as_str) else {
            self.found.add(Severity::Error, line, Rule::Fields, || {
                "a `session/update` whose update has no `sessionUpdate` kind".into()
            });
            return;
        };
        if !UPDATE_KINDS.contains(&kind) {
            self.found.add(Severity::Warning, line, Rule::UpdateKind, || {
                format!("a `sessionUpdate` kind this version does not know: `{kind}`")
            });
            return;
        }
        if TURN_KINDS.contains(&kind) {
            self.turn_order(line, session, kind);
        }
        self.update_fields(line, kind, update);
        if kind == "tool_call" || kind == "tool_call_update" {
            self.tool_call(line, session, kind, update);
        }
    }

    /// `turn-order`: no update of a turn after the prompt's response.
    fn turn_order(&mut self, line: u64, session: &str, kind: &str) {
        let Some(turn) = self.turns.map.get_mut(session) else {
            return;
        };
        if turn.prompt.is_some() {
            return;
        }
        if let Some(ended) = turn.ended.take() {
            self.found.add(Severity::Error, line, Rule::TurnOrder, || {
                format!("`{kind}` of session `{session}` after the `session/prompt` response (line {ended}) that ended its turn")
            });
        }
    }

    /// `fields` of an update of a known kind.
    fn update_fields(&mut self, line: u64, kind: &str, update: &Map<String, Value>) {
        let string = |name: &str| update.get(name).is_some_and(Value::is_string);
        let missing: &[&str] = match kind {
            "user_message_chunk" | "agent_message_chunk" | "agent_thought_chunk" => {
                if update
                    .get("content")
                    .and_then(|c| c.get("type"))
                    .is_some_and(Value::is_string)
                {
                    &[]
                } else {
                    &["`content` (a content block with a `type`)"]
                }
            }
            "tool_call" if !string("toolCallId") && !string("title") => &["`toolCallId`", "`title`"],
            "tool_call" if !string("toolCallId") => &["`toolCallId`"],
            "tool_call" if !string("title") => &["`title`"],
            "tool_call_update" if !string("toolCallId") => &["`toolCallId`"],
            "plan" if !update.get("entries").is_some_and(Value::is_array) => &["`entries` (a list)"],
            "available_commands_update" if !update.get("availableCommands").is_some_and(Value::is_array) => {
                &["`availableCommands` (a list)"]
            }
            "current_mode_update" if !string("currentModeId") => &["`currentModeId`"],
            _ => &[],
        };
        if !missing.is_empty() {
            self.found.add(Severity::Error, line, Rule::Fields, || {
                format!("a `{kind}` update without {}", missing.join(" and "))
            });
        }
        if let Some(tool_kind) = update.get("kind").filter(|_| kind.starts_with("tool_call")) {
            if !tool_kind.as_str().is_some_and(|k| TOOL_KINDS.contains(&k)) {
                self.found.add(Severity::Warning, line, Rule::ToolKind, || {
                    format!("a tool kind ACP does not define: {tool_kind} (clients read it as `other`)")
                });
            }
        }
        if let Some(status) = update.get("status").filter(|_| kind.starts_with("tool_call")) {
            if !status.as_str().is_some_and(|s| TOOL_STATUSES.contains(&s)) {
                self.found.add(Severity::Warning, line, Rule::Fields, || {
                    format!(
                        "a tool status ACP does not define: {status} (ACP's are {})",
                        TOOL_STATUSES.join(", ")
                    )
                });
            }
        }
    }

    /// `tool-call-pairs`: `tool_call` before its `tool_call_update`s; and Cursor's
    /// habits in tool calls.
    fn tool_call(&mut self, line: u64, session: &str, kind: &str, update: &Map<String, Value>) {
        let Some(id) = update.get("toolCallId").and_then(Value::as_str) else {
            return;
        };
        if id.contains('\n') {
            self.habit(line, Habit::NewlineInId);
        }
        if update.contains_key("rawOutput") && !update.contains_key("content") {
            self.habit(line, Habit::RawOutput);
        }
        let key = (session.to_owned(), id.to_owned());
        let first = self.tool_calls.map.get(&key).copied();
        match (kind, first) {
            ("tool_call", None) => self.tool_calls.insert(key, line),
            ("tool_call", Some(first)) => self.found.add(Severity::Warning, line, Rule::ToolCallPairs, || {
                format!("tool call {id:?} announced again (first on line {first}); clients read it as an update")
            }),
            (_, None) if !self.tool_calls.full => {
                self.found.add(Severity::Error, line, Rule::ToolCallPairs, || {
                    format!("a `tool_call_update` of {id:?} before its `tool_call`")
                });
            }
            _ => {}
        }
    }

    /// `cursor-habit`: once per file.
    fn habit(&mut self, line: u64, habit: Habit) {
        let seen = &mut self.habits[habit as usize];
        if !*seen {
            *seen = true;
            self.found.add(habit.severity(), line, Rule::CursorHabit, || {
                habit.message().to_owned()
            });
        }
    }
}

/// Whether a JSON-RPC error has an integer `code` and a string `message`.
fn error_shape(error: &Value) -> bool {
    error.get("code").is_some_and(|c| c.is_i64()) && error.get("message").is_some_and(Value::is_string)
}

/// Checks a conversation given as `(side, line)` pairs, numbered from 1.
pub fn check_conversation<'a>(
    lines: impl IntoIterator<Item = (Side, &'a str)>,
    exit: Option<Exit>,
) -> Report {
    let mut checker = AcpChecker::new();
    for (i, (side, line)) in lines.into_iter().enumerate() {
        checker.line(i as u64 + 1, side, line.as_bytes());
    }
    checker.finish(exit)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    const S: &str = "5d0c6c1e-7ead-4fd6-9922-e952131177ff";
    /// Cursor's shape of a tool call id: a newline inside.
    const CALL: &str = "call-7f3a-0\nfc_0b1c_0";

    fn client(value: Value) -> (Side, String) {
        (Side::Client, value.to_string())
    }

    fn agent(value: Value) -> (Side, String) {
        (Side::Agent, value.to_string())
    }

    fn request(id: Value, method: &str, params: Value) -> Value {
        json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
    }

    fn result(id: Value, result: Value) -> Value {
        json!({"jsonrpc": "2.0", "id": id, "result": result})
    }

    fn update(session: &str, update: Value) -> Value {
        json!({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": session, "update": update}})
    }

    fn chunk(text: &str) -> Value {
        update(
            S,
            json!({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}}),
        )
    }

    fn handshake() -> Vec<(Side, String)> {
        vec![
            client(request(
                json!(0),
                "initialize",
                json!({"protocolVersion": 1, "clientCapabilities": {"fs": {"readTextFile": true, "writeTextFile": false}, "terminal": false}}),
            )),
            agent(result(
                json!(0),
                json!({"protocolVersion": 1, "agentCapabilities": {"loadSession": true}, "authMethods": [{"id": "cursor_login", "name": "Cursor Login"}]}),
            )),
            client(request(
                json!(1),
                "session/new",
                json!({"cwd": "/work", "mcpServers": []}),
            )),
            agent(result(json!(1), json!({"sessionId": S}))),
            agent(update(
                S,
                json!({"sessionUpdate": "available_commands_update", "availableCommands": []}),
            )),
        ]
    }

    fn prompt(id: u64) -> (Side, String) {
        client(request(
            json!(id),
            "session/prompt",
            json!({"sessionId": S, "prompt": [{"type": "text", "text": "Run: echo hello"}]}),
        ))
    }

    fn end_turn(id: u64) -> (Side, String) {
        agent(result(json!(id), json!({"stopReason": "end_turn"})))
    }

    /// A whole conversation: the handshake, then a turn with a shell command the
    /// client allows once.
    fn shell_turn() -> Vec<(Side, String)> {
        let mut lines = handshake();
        lines.extend([
            prompt(2),
            agent(update(
                S,
                json!({"sessionUpdate": "tool_call", "toolCallId": "t1", "title": "`echo hello`", "kind": "execute", "status": "pending"}),
            )),
            agent(request(
                json!(0),
                "session/request_permission",
                json!({"sessionId": S, "toolCall": {"toolCallId": "t1"}, "options": [
                    {"optionId": "allow-once", "name": "Allow once", "kind": "allow_once"},
                    {"optionId": "reject-once", "name": "Reject", "kind": "reject_once"}
                ]}),
            )),
            client(result(json!(0), json!({"outcome": {"outcome": "selected", "optionId": "allow-once"}}))),
            agent(update(
                S,
                json!({"sessionUpdate": "tool_call_update", "toolCallId": "t1", "status": "completed", "content": [{"type": "content", "content": {"type": "text", "text": "hello"}}]}),
            )),
            agent(chunk("Printed hello.")),
            end_turn(2),
        ]);
        lines
    }

    fn check(lines: &[(Side, String)], exit: Option<Exit>) -> Report {
        check_conversation(lines.iter().map(|(side, line)| (*side, line.as_str())), exit)
    }

    /// The findings as (severity, rule, line).
    fn found(report: &Report) -> Vec<(Severity, &'static str, u64)> {
        report
            .findings
            .iter()
            .map(|f| (f.severity, f.rule.as_str(), f.line))
            .collect()
    }

    fn with(mut lines: Vec<(Side, String)>, at: usize, line: (Side, String)) -> Vec<(Side, String)> {
        lines.insert(at, line);
        lines
    }

    #[test]
    fn a_whole_conversation_passes_clean() {
        let report = check(&shell_turn(), Some(Exit::Code(0)));
        assert_eq!(report.findings, vec![]);
        assert_eq!(report.summary(), "0 error(s), 0 warning(s)");
    }

    #[test]
    fn json_rpc_shapes_are_errors_from_the_agent_and_warnings_from_the_client() {
        let lines = vec![
            (Side::Agent, "[debug] warming up".to_owned()),
            (Side::Agent, r#"{"id":0,"result":{}}"#.to_owned()),
            (
                Side::Agent,
                r#"{"jsonrpc":"2.0","id":0,"result":{},"error":{"code":1,"message":"x"}}"#.to_owned(),
            ),
            (
                Side::Agent,
                r#"{"jsonrpc":"2.0","id":null,"method":"session/update"}"#.to_owned(),
            ),
            (
                Side::Agent,
                r#"{"jsonrpc":"2.0","id":[1],"method":"x"}"#.to_owned(),
            ),
            (
                Side::Agent,
                r#"{"jsonrpc":"2.0","id":3,"error":{"code":"bad"}}"#.to_owned(),
            ),
            (
                Side::Agent,
                r#"{"jsonrpc":"2.0","method":"session/update","params":7}"#.to_owned(),
            ),
            (Side::Client, "not json".to_owned()),
            (
                Side::Client,
                r#"{"jsonrpc":"1.0","method":"session/cancel","params":{}}"#.to_owned(),
            ),
        ];
        let report = check(&lines, None);
        let json_rpc: Vec<(Severity, u64)> = report
            .findings
            .iter()
            .filter(|f| f.rule == Rule::JsonRpc)
            .map(|f| (f.severity, f.line))
            .collect();
        assert_eq!(
            json_rpc,
            [
                (Severity::Error, 1),
                (Severity::Error, 2),
                (Severity::Error, 3),
                (Severity::Error, 4),
                (Severity::Error, 5)
            ],
            "{report:#?}"
        );
        // Past five, only counted: two errors, two warnings.
        assert_eq!(
            report.elided,
            [Elided {
                rule: Rule::JsonRpc,
                errors: 2,
                warnings: 2,
                notes: 0
            }]
        );
        assert!(report.findings[0]
            .message
            .starts_with("the agent's line: a line that is not JSON"));
        let client_only = check(&[(Side::Client, "not json".to_owned())], None);
        assert_eq!(found(&client_only), [(Severity::Warning, "json-rpc", 1)]);
        // A parse error's response to a line that could not be read has a null id.
        let parse_error = r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#;
        assert_eq!(
            check(&[(Side::Client, parse_error.to_owned())], None).findings,
            vec![]
        );
    }

    use super::super::Elided;

    #[test]
    fn each_request_is_answered_once_with_its_id_in_both_directions() {
        let lines = shell_turn();
        // The agent answers the prompt twice.
        let twice = with(lines.clone(), lines.len(), end_turn(2));
        assert_eq!(
            found(&check(&twice, Some(Exit::Code(0)))),
            [(Severity::Error, "answered-once", 13)]
        );
        // The client answers a permission request that was never asked.
        let unasked = with(
            lines.clone(),
            lines.len(),
            client(result(json!(9), json!({"outcome": {"outcome": "cancelled"}}))),
        );
        let report = check(&unasked, None);
        assert_eq!(found(&report), [(Severity::Error, "answered-once", 13)]);
        assert!(
            report.findings[0].message.contains("no request of the agent's"),
            "{report:?}"
        );
        // The agent answers with an id the client never used.
        let wrong_id = {
            let mut l = lines.clone();
            l[11] = end_turn(7);
            l
        };
        let found_wrong = found(&check(&wrong_id, Some(Exit::Code(0))));
        assert_eq!(
            found_wrong,
            [
                (Severity::Warning, "answered-once", 6),
                (Severity::Error, "answered-once", 12)
            ]
        );
        // A request id reused while the first waits.
        let reused = with(handshake(), 5, prompt(2));
        let reused = with(reused, 6, prompt(2));
        let report = check(&reused, None);
        assert!(
            found(&report).contains(&(Severity::Error, "answered-once", 7)),
            "{report:?}"
        );
    }

    #[test]
    fn requests_still_waiting_at_the_end_are_warnings_that_say_why() {
        // The agent dies while its permission request waits.
        let lines: Vec<_> = shell_turn().into_iter().take(8).collect();
        let report = check(&lines, Some(Exit::Code(1)));
        assert_eq!(
            found(&report),
            [
                (Severity::Warning, "answered-once", 6),
                (Severity::Warning, "answered-once", 8)
            ]
        );
        assert_eq!(
            report.findings[0].message,
            "the agent never answers `session/prompt` 2: the agent ended (exit code 1) first"
        );
        assert_eq!(
            report.findings[1].message,
            "the client never answers the agent's `session/request_permission` 0: the agent ended (exit code 1) first"
        );
        assert!(report.passes());
    }

    #[test]
    fn no_update_of_a_turn_after_its_response() {
        let mut lines = shell_turn();
        lines.push(agent(chunk("one more thing")));
        lines.push(agent(chunk("and another")));
        let report = check(&lines, Some(Exit::Code(0)));
        assert_eq!(found(&report), [(Severity::Error, "turn-order", 13)]);
        // Updates that are not the turn's may come at any time.
        let mut lines = shell_turn();
        lines.push(agent(update(
            S,
            json!({"sessionUpdate": "current_mode_update", "currentModeId": "plan"}),
        )));
        assert_eq!(check(&lines, Some(Exit::Code(0))).findings, vec![]);
        // The next prompt opens a new turn.
        let mut lines = shell_turn();
        lines.extend([prompt(3), agent(chunk("again")), end_turn(3)]);
        assert_eq!(check(&lines, Some(Exit::Code(0))).findings, vec![]);
    }

    #[test]
    fn updates_name_only_sessions_that_were_created() {
        // A session nobody created.
        let lines = with(
            shell_turn(),
            11,
            agent(update("s-9", json!({"sessionUpdate": "plan", "entries": []}))),
        );
        let report = check(&lines, Some(Exit::Code(0)));
        assert_eq!(found(&report), [(Severity::Error, "known-session", 12)]);
        // An update before the response that creates its session: a warning.
        let early = with(
            shell_turn(),
            3,
            agent(update(
                S,
                json!({"sessionUpdate": "available_commands_update", "availableCommands": []}),
            )),
        );
        let report = check(&early, Some(Exit::Code(0)));
        assert_eq!(found(&report), [(Severity::Warning, "known-session", 4)]);
        assert!(report.findings[0]
            .message
            .contains("before the `session/new` response (line 5)"));
        // session/load replays its history before its result.
        let mut load = handshake()[..2].to_vec();
        load.extend([
            client(request(
                json!(1),
                "session/load",
                json!({"sessionId": "old", "cwd": "/w", "mcpServers": []}),
            )),
            agent(update(
                "old",
                json!({"sessionUpdate": "user_message_chunk", "content": {"type": "text", "text": "hi"}}),
            )),
            agent(update(
                "old",
                json!({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "hello"}}),
            )),
            agent(result(json!(1), json!({}))),
        ]);
        assert_eq!(check(&load, Some(Exit::Code(0))).findings, vec![]);
    }

    #[test]
    fn a_tool_call_comes_before_its_updates() {
        let lines = shell_turn();
        let update_first = {
            let mut l = lines.clone();
            l.swap(6, 9); // the tool_call_update where the tool_call was
            l.remove(9);
            l
        };
        let report = check(&update_first, Some(Exit::Code(0)));
        assert!(
            found(&report).contains(&(Severity::Error, "tool-call-pairs", 7)),
            "{report:#?}"
        );
        let again = with(lines.clone(), 7, lines[6].clone());
        assert_eq!(
            found(&check(&again, Some(Exit::Code(0)))),
            [(Severity::Warning, "tool-call-pairs", 8)]
        );
    }

    #[test]
    fn a_prompt_ends_with_a_stop_reason_acp_defines() {
        let mut lines = shell_turn();
        let last = lines.len() - 1;
        lines[last] = agent(result(json!(2), json!({"stopReason": "done"})));
        assert_eq!(
            found(&check(&lines, Some(Exit::Code(0)))),
            [(Severity::Error, "stop-reason", 12)]
        );
        lines[last] = agent(result(json!(2), json!({})));
        assert_eq!(
            found(&check(&lines, Some(Exit::Code(0)))),
            [(Severity::Error, "stop-reason", 12)]
        );
        // An error ends a turn too.
        lines[last] = agent(json!({"jsonrpc": "2.0", "id": 2, "error": {"code": -32603, "message": "boom"}}));
        assert_eq!(check(&lines, Some(Exit::Code(0))).findings, vec![]);
        // A cancelled turn that ends otherwise.
        let mut cancelled = handshake();
        cancelled.extend([
            prompt(2),
            agent(chunk("Let me")),
            client(json!({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": S}})),
            end_turn(2),
        ]);
        let report = check(&cancelled, Some(Exit::Code(0)));
        assert_eq!(found(&report), [(Severity::Warning, "stop-reason", 9)]);
        let last = cancelled.len() - 1;
        cancelled[last] = agent(result(json!(2), json!({"stopReason": "cancelled"})));
        assert_eq!(check(&cancelled, Some(Exit::Code(0))).findings, vec![]);
    }

    #[test]
    fn the_agent_asks_only_for_advertised_capabilities() {
        let mut lines = handshake();
        lines.extend([
            prompt(2),
            agent(request(
                json!(0),
                "fs/read_text_file",
                json!({"sessionId": S, "path": "/work/a"}),
            )),
            client(result(json!(0), json!({"content": "a"}))),
            agent(request(
                json!(1),
                "fs/write_text_file",
                json!({"sessionId": S, "path": "/work/a", "content": "b"}),
            )),
            client(result(json!(1), json!(null))),
            agent(request(
                json!(2),
                "terminal/create",
                json!({"sessionId": S, "command": "ls"}),
            )),
            client(result(json!(2), json!({"terminalId": "x"}))),
            end_turn(2),
        ]);
        let report = check(&lines, Some(Exit::Code(0)));
        assert_eq!(
            found(&report),
            [
                (Severity::Error, "capability", 9),
                (Severity::Error, "capability", 11)
            ]
        );
        assert_eq!(
            report.findings[0].message,
            "the agent asks `fs/write_text_file`, but the client's `initialize` (line 1) did not advertise clientCapabilities.fs.writeTextFile"
        );
    }

    #[test]
    fn unknown_update_kinds_and_methods_are_warnings() {
        let mut lines = shell_turn();
        lines.insert(
            11,
            agent(update(S, json!({"sessionUpdate": "telemetry_update", "n": 1}))),
        );
        lines.insert(
            5,
            client(request(json!(7), "session/archive", json!({"sessionId": S}))),
        );
        lines.insert(6, agent(result(json!(7), json!({}))));
        lines.insert(
            7,
            client(json!({"jsonrpc": "2.0", "method": "_zed/ping", "params": {}})),
        );
        let report = check(&lines, Some(Exit::Code(0)));
        assert_eq!(
            found(&report),
            [
                (Severity::Warning, "method", 6),
                (Severity::Warning, "update-kind", 15)
            ]
        );
        assert!(report.passes());
    }

    #[test]
    fn cursor_s_habits_are_notes_once_per_file_and_ask_question_a_warning() {
        let mut lines = handshake();
        lines[3] = agent(result(
            json!(1),
            json!({"sessionId": S, "models": {"currentModelId": "auto", "availableModels": []}}),
        ));
        for n in 0..2 {
            let id = format!("{CALL}{n}");
            lines.extend([
                agent(update(
                    S,
                    json!({"sessionUpdate": "tool_call", "toolCallId": id, "title": "`ls`", "kind": "execute", "status": "pending"}),
                )),
                agent(update(
                    S,
                    json!({"sessionUpdate": "tool_call_update", "toolCallId": id, "status": "completed", "rawOutput": {"exitCode": 0}}),
                )),
            ]);
        }
        lines.push(agent(request(
            json!(0),
            "cursor/ask_question",
            json!({"sessionId": S, "question": "Which?"}),
        )));
        lines.push(client(result(
            json!(0),
            json!({"outcome": {"outcome": "skipped"}}),
        )));
        let report = check(&lines, Some(Exit::Code(0)));
        assert_eq!(
            found(&report),
            [
                (Severity::Note, "cursor-habit", 4),
                (Severity::Note, "cursor-habit", 6),
                (Severity::Note, "cursor-habit", 7),
                (Severity::Warning, "cursor-habit", 10)
            ]
        );
        assert_eq!(report.summary(), "0 error(s), 1 warning(s), 3 note(s)");
        assert!(report.passes());
    }

    #[test]
    fn the_agent_s_messages_have_the_fields_acp_requires() {
        let mut lines = shell_turn();
        lines[1] = agent(result(json!(0), json!({"protocolVersion": "1"})));
        lines[6] = agent(update(
            S,
            json!({"sessionUpdate": "tool_call", "toolCallId": "t1", "kind": "shell"}),
        ));
        lines[8] = client(result(
            json!(0),
            json!({"outcome": {"outcome": "selected", "optionId": "allow-always"}}),
        ));
        lines[10] = agent(update(
            S,
            json!({"sessionUpdate": "agent_message_chunk", "text": "Printed hello."}),
        ));
        let report = check(&lines, Some(Exit::Code(0)));
        assert_eq!(
            found(&report),
            [
                (Severity::Error, "fields", 2),
                (Severity::Error, "fields", 2),
                (Severity::Error, "fields", 7),
                (Severity::Warning, "tool-kind", 7),
                (Severity::Warning, "fields", 9),
                (Severity::Error, "fields", 11)
            ]
        );
        assert_eq!(
            report.findings[4].message,
            "the client's answer to `session/request_permission` selects `allow-always`, which the request (line 8) did not offer"
        );
        let mut lines = shell_turn();
        lines[7] = agent(request(
            json!(0),
            "session/request_permission",
            json!({"sessionId": S, "toolCall": {}, "options": [{"optionId": "ok", "name": "OK", "kind": "yes"}]}),
        ));
        let report = check(&lines, Some(Exit::Code(0)));
        // The client then selects an option the request did not offer.
        assert_eq!(
            found(&report),
            [(Severity::Error, "fields", 8), (Severity::Warning, "fields", 9)]
        );
        assert_eq!(
            report.findings[0].message,
            "the `session/request_permission` request has no `toolCall.toolCallId`; an option of kind `yes` (ACP's are allow_once, allow_always, reject_once, reject_always)"
        );
    }

    #[test]
    fn past_the_first_few_findings_of_a_rule_only_counts_are_kept() {
        let mut checker = AcpChecker::new().shown_per_rule(2);
        for line in 1..=100_000 {
            checker.line(line, Side::Agent, b"[noise]");
        }
        let report = checker.finish(Some(Exit::Code(0)));
        assert_eq!(report.findings.len(), 2);
        assert_eq!(report.count(Severity::Error), 100_000);
        assert_eq!(report.elided[0].errors, 99_998);
    }

    /// Every value of every line of a curated conversation replaced in turn by a value
    /// of another type: the checker finds what it finds, and never panics.
    #[test]
    fn no_mutation_of_a_conversation_makes_it_panic() {
        const CASSETTE: &str = include_str!("../../../cassettes/acp/shell-permission.cassette");
        let lines: Vec<(Side, Value)> = CASSETTE
            .lines()
            .skip(1)
            .filter_map(|frame| {
                let frame: Value = serde_json::from_str(frame).ok()?;
                match (frame.get("in"), frame.get("out")) {
                    (Some(line), _) => Some((Side::Client, line.clone())),
                    (_, Some(line)) => Some((Side::Agent, line.clone())),
                    _ => None,
                }
            })
            .collect();
        assert!(lines.len() > 10);
        let clean = check(
            &lines
                .iter()
                .map(|(side, v)| (*side, v.to_string()))
                .collect::<Vec<_>>(),
            Some(Exit::Code(0)),
        );
        assert!(clean.passes(), "{clean:?}");
        let replacements = [
            json!(null),
            json!(0),
            json!(-1.5),
            json!("x\n"),
            json!([]),
            json!({}),
        ];
        let mut conversations = 0;
        for at in 0..lines.len() {
            for path in paths(&lines[at].1) {
                for replacement in &replacements {
                    let mut mutated = lines.clone();
                    if let Some(slot) = mutated[at].1.pointer_mut(&path) {
                        *slot = replacement.clone();
                    }
                    let text: Vec<(Side, String)> =
                        mutated.iter().map(|(side, v)| (*side, v.to_string())).collect();
                    let _ = check(&text, Some(Exit::Code(0)));
                    conversations += 1;
                }
            }
        }
        assert!(conversations > 1000, "{conversations}");
    }

    /// The JSON pointers of every value inside `value` (not the root).
    fn paths(value: &Value) -> Vec<String> {
        let mut found = Vec::new();
        let mut stack = vec![(String::new(), value)];
        while let Some((path, value)) = stack.pop() {
            let children: Vec<(String, &Value)> = match value {
                Value::Object(map) => map.iter().map(|(k, v)| (format!("{path}/{k}"), v)).collect(),
                Value::Array(items) => items
                    .iter()
                    .enumerate()
                    .map(|(i, v)| (format!("{path}/{i}"), v))
                    .collect(),
                _ => Vec::new(),
            };
            for (child, v) in children {
                found.push(child.clone());
                stack.push((child, v));
            }
        }
        found
    }

    #[test]
    fn tracked_state_is_capped() {
        let mut checker = AcpChecker::new();
        for id in 0..(MAX_TRACKED as u64 + 10) {
            let line = request(json!(id), "session/prompt", json!({"sessionId": S})).to_string();
            checker.line(id + 1, Side::Client, line.as_bytes());
        }
        assert_eq!(checker.asked[Side::Client as usize].map.len(), MAX_TRACKED);
        assert!(checker.asked[Side::Client as usize].full);
        // An answer to an id it could not keep is not called unknown.
        let answer = result(json!(MAX_TRACKED as u64 + 5), json!({"stopReason": "end_turn"})).to_string();
        checker.line(1 << 20, Side::Agent, answer.as_bytes());
        let report = checker.finish(None);
        assert!(
            !found(&report).iter().any(|(s, _, _)| *s == Severity::Error),
            "{report:?}"
        );
    }
}
