//! Requests and their answers, in both directions: `answered-once`, `known-session`,
//! `turn-order`'s turns, `stop-reason`, `capability`, `method`.

use serde_json::Value;

use super::*;
use crate::acp::wire::{methods, stop_reasons};

impl<F: Findings> Checker<F> {
    /// A request of either side.
    pub(super) fn request(&mut self, line: u64, side: Side, id: String, method: String, params: Value) {
        self.known_method(line, side, &method);
        let session = params.get("sessionId").and_then(Value::as_str).map(str::to_owned);
        let asked = &mut self.asked[side as usize];
        if let Some(first) = asked.map.get(&id) {
            let first = first.line;
            self.found.add(Level::Error, line, AcpRule::AnsweredOnce, || {
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
                    methods::REQUEST_PERMISSION => options = self.permission_request(line, &params),
                    methods::CURSOR_ASK_QUESTION => self.habit(line, Habit::AskQuestion),
                    _ => self.client_tool_fields(line, &method, &params),
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
    pub(super) fn client_request(
        &mut self,
        line: u64,
        id: &str,
        method: &str,
        params: &Value,
        session: Option<&str>,
    ) {
        if method == methods::INITIALIZE {
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
        if method == methods::SESSION_LOAD {
            self.created(line, session, "`session/load` request");
        }
        if !self.turns.map.contains_key(session) {
            self.turns.insert(session.to_owned(), Turn::default());
        }
        if let Some(turn) = self.turns.map.get_mut(session) {
            // The client's next request about the session: what the agent sends now is
            // no longer the last turn's.
            turn.ended = None;
            if method == methods::SESSION_PROMPT {
                turn.prompt = Some(id.to_owned());
                turn.cancelled = None;
            }
        }
    }

    /// `session/cancel`: the open turn of the session is cancelled.
    pub(super) fn cancel(&mut self, line: u64, params: &Value) {
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
    pub(super) fn response(&mut self, line: u64, side: Side, id: &str, result: Result<Value, Value>) {
        let asker = side.other();
        let Some(asked) = self.asked[asker as usize].map.remove(id) else {
            let again = self.answered[asker as usize].map.get(id).copied();
            let whose = asker.name();
            match again {
                Some(first) => self.found.add(Level::Error, line, AcpRule::AnsweredOnce, || {
                    format!(
                        "the {} answers the {whose}'s request {id} again (first answered on line {first})",
                        side.name()
                    )
                }),
                None if !self.asked[asker as usize].full && !self.answered[asker as usize].full => {
                    self.found.add(Level::Error, line, AcpRule::AnsweredOnce, || {
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
                if asked.method == methods::REQUEST_PERMISSION {
                    self.permission_answer(line, &asked, result.as_ref().ok());
                }
            }
        }
    }

    /// The agent's answer to a client request: what it creates or ends.
    pub(super) fn agent_response(&mut self, line: u64, asked: &Asked, result: Result<Value, Value>) {
        let result = result.ok();
        match (asked.method.as_str(), &result) {
            (methods::INITIALIZE, Some(result)) => self.initialize_result(line, result),
            (methods::SESSION_NEW, Some(result)) => match result.get("sessionId").and_then(Value::as_str) {
                Some(session) => {
                    self.created(line, session, "`session/new` response");
                    if result.get("models").is_some() {
                        self.habit(line, Habit::Models);
                    }
                }
                None => self.found.add(Level::Error, line, AcpRule::Fields, || {
                    "the `session/new` result has no `sessionId` string".into()
                }),
            },
            (methods::SESSION_PROMPT, _) => {
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
    pub(super) fn stop_reason(&mut self, line: u64, result: &Value, cancelled: Option<u64>) {
        match result.get("stopReason") {
            Some(Value::String(reason)) if stop_reasons::ALL.contains(&reason.as_str()) => {
                if let Some(cancel) = cancelled.filter(|_| reason != stop_reasons::CANCELLED) {
                    self.found.add(Level::Warning, line, AcpRule::StopReason, || {
                        format!("the turn was cancelled (line {cancel}) but ends with `{reason}`, not `cancelled`")
                    });
                }
            }
            Some(other) => {
                let other = other.to_string();
                self.found.add(Level::Error, line, AcpRule::StopReason, || {
                    format!(
                        "the prompt ends with stopReason {other}; ACP's are {}",
                        stop_reasons::ALL.join(", ")
                    )
                });
            }
            None => self.found.add(Level::Error, line, AcpRule::StopReason, || {
                "the `session/prompt` result has no `stopReason`".into()
            }),
        }
    }

    /// `fields`: the `initialize` result has a numeric `protocolVersion` and
    /// `authMethods`.
    pub(super) fn initialize_result(&mut self, line: u64, result: &Value) {
        if !result.get("protocolVersion").is_some_and(Value::is_u64) {
            let found = result
                .get("protocolVersion")
                .map_or("nothing".to_owned(), Value::to_string);
            self.found.add(Level::Error, line, AcpRule::Fields, || {
                format!("the `initialize` result's `protocolVersion` is {found}, not a number such as 1")
            });
        }
        if !result.get("authMethods").is_some_and(Value::is_array) {
            self.found.add(Level::Error, line, AcpRule::Fields, || {
                "the `initialize` result has no `authMethods` list".into()
            });
        }
    }

    /// A session becomes known: what came for it before was early (a warning).
    pub(super) fn created(&mut self, line: u64, session: &str, by: &str) {
        if self.sessions.map.contains_key(session) {
            return;
        }
        self.sessions.insert(session.to_owned(), line);
        if let Some(orphan) = self.orphans.map.remove(session) {
            let more = match orphan.count {
                1 => String::new(),
                n => format!(" (and {} more)", n - 1),
            };
            self.found.add(Level::Warning, orphan.line, AcpRule::KnownSession, || {
                format!("a message of session `{session}`{more} before the {by} (line {line}) that creates it: a client may not know the session yet")
            });
        }
    }

    /// `known-session`: the agent's message names a session it created.
    pub(super) fn session_named(&mut self, line: u64, params: &Value) {
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
    pub(super) fn orphans_at_end(&mut self) {
        if self.sessions.full {
            return;
        }
        let mut orphans: Vec<(String, Orphan)> = self.orphans.map.drain().collect();
        orphans.sort_by_key(|(_, orphan)| orphan.line);
        for (session, orphan) in orphans {
            self.found.add(Level::Error, orphan.line, AcpRule::KnownSession, || {
                format!(
                    "{} message(s) of session `{session}`, the first here, which no `session/new` response or `session/load` created",
                    orphan.count
                )
            });
        }
    }

    /// `answered-once`, at the end: requests still waiting.
    pub(super) fn waiting_at_end(&mut self, exit: Option<Exit>) {
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
                    .add(Level::Warning, asked.line, AcpRule::AnsweredOnce, || match side {
                        Side::Client => format!("the agent never answers `{method}` {id}: {why}"),
                        Side::Agent => {
                            format!("the client never answers the agent's `{method}` {id}: {why}")
                        }
                    });
            }
        }
    }

    /// `capability`: a request the client advertised.
    pub(super) fn capability(&mut self, line: u64, method: &str) {
        let caps = &self.capabilities;
        let (has, needs) = match method {
            methods::FS_READ_TEXT_FILE => (caps.read_text_file, "clientCapabilities.fs.readTextFile"),
            methods::FS_WRITE_TEXT_FILE => (caps.write_text_file, "clientCapabilities.fs.writeTextFile"),
            m if m.starts_with(methods::TERMINAL_PREFIX) => (caps.terminal, "clientCapabilities.terminal"),
            _ => return,
        };
        if has {
            return;
        }
        let seen = caps.line;
        self.found.add(Level::Error, line, AcpRule::Capability, || match seen {
            Some(init) => format!(
                "the agent asks `{method}`, but the client's `initialize` (line {init}) did not advertise {needs}"
            ),
            None => format!("the agent asks `{method}` before the client's `initialize` advertised {needs}"),
        });
    }

    /// `method`: a method ACP defines (or an extension, `_...`, or Cursor's own).
    pub(super) fn known_method(&mut self, line: u64, side: Side, method: &str) {
        let known = match side {
            Side::Client => methods::CLIENT,
            Side::Agent => methods::AGENT,
        };
        if known.contains(&method) || method.starts_with('_') || method == methods::CURSOR_ASK_QUESTION {
            return;
        }
        self.found.add(Level::Warning, line, AcpRule::Method, || {
            format!(
                "the {} sends `{method}`, a method ACP does not define",
                side.name()
            )
        });
    }
}
