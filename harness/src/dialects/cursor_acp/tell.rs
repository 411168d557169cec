//! A print-mode session told through ACP, and the handshake every mock agent answers.
//!
//! | print mode (`stream-json`) | ACP (`session/update` unless said) |
//! | --- | --- |
//! | `assistant` (a whole segment) | `agent_message_chunk` with its text |
//! | `thinking` delta | `agent_thought_chunk` with its text |
//! | `tool_call` started | `tool_call`: `toolCallId` = `call_id`, a `title`, the ACP `kind`, `status: pending`, `rawInput` = the tool's `args` |
//! | `tool_call` completed | `tool_call_update`: `status` `completed` (or `failed` for a `failure`, `error` or `rejected` result), `rawOutput` = the tool's `result` |
//! | `result` success | the prompt's response, `stopReason: end_turn` |
//! | a failed run (no successful `result`) | a JSON-RPC error (`-32603`) for the prompt, with the first stderr line |
//! | a run that failed with `Authentication required` on stderr | `-32000` `Authentication required` for every session method, as the real agent answers when not logged in; the recorded stderr lines with the first |
//! | stderr lines | stderr lines |
//! | `system`, `user`, `connection`, `retry`, unknown types | nothing (`user` is the history `session/load` replays) |
//!
//! Tool kinds: `readToolCall` read; `writeToolCall`, `editToolCall` edit;
//! `deleteToolCall` delete; `shellToolCall` execute; `grepToolCall`, `globToolCall`,
//! `lsToolCall` search; any other other. The agent asks `session/request_permission`
//! before the tools [`Ask`] names, and waits for the answer. `session/load` replays
//! the history of a session of this process or of the recording's `session_id`, and
//! answers any other id `-32602` (`Session ... not found`). Times are the frames'
//! times. A recording of a real `acp` process ([`super::script`]) is the faithful
//! source: this mapping is the mock's, in the shapes the real agent uses.

use std::time::Duration;

use serde_json::{json, Value};

use super::rpc::{self, codes, Message};
use super::wire::{
    self, content_types, methods, modes, option_kinds, stop_reasons, tool_kinds, tool_statuses, updates,
};
use crate::dialects::cursor_acp::conversation::{Conversation, Reply, Step, Steps, Wait};
use crate::dialects::cursor_print::events::{event_type, field, is_tool_key, subtype, tool_key};
use crate::error::CassetteError;
use crate::frames::{Exit, Frame, FrameResult, Stream};

/// Which tool calls the agent asks permission for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ask {
    /// The first tool call that is not a read (the default session: its write).
    FirstChange,
    /// Every shell command (`execute`), as the real agent does outside its allowlist.
    Shell,
}

/// One step of the told turn, before it has a session and request ids.
#[derive(Debug, Clone)]
enum Told {
    Update { at: Duration, update: Value },
    Stderr { at: Duration, line: Vec<u8> },
    Permission { at: Duration, tool_call: Value },
}

/// How the told run ends.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Outcome {
    Success,
    Failure(String),
    /// Not logged in: no session method works.
    AuthRequired,
}

/// How the real CLI begins the stderr line of a run that is not logged in.
const NOT_LOGGED_IN: &str = "Authentication required";

/// A print-mode session told through ACP: every prompt plays its turn.
#[derive(Debug, Clone)]
pub struct Teller {
    turn: Vec<Told>,
    outcome: Outcome,
    /// The end of the turn, from the first frame.
    end: Duration,
    prompt: String,
    /// The session id of the print-mode events: the first `session/new` gives it.
    session_id: String,
    sessions: Vec<String>,
    next_request: u64,
}

impl Teller {
    /// Tells the frames of a print-mode run (`stream-json`, whole segments).
    pub fn new(frames: impl IntoIterator<Item = FrameResult>, ask: Ask) -> Result<Teller, CassetteError> {
        let mut turn = Vec::new();
        let mut outcome = None;
        let mut stderr_first = None;
        let mut exit = Exit::Code(0);
        let mut prompt = String::new();
        let mut session_id = None;
        let mut asked = false;
        let mut end = Duration::ZERO;
        for frame in frames {
            let frame = frame?;
            end = end.max(frame.at());
            let line = match frame {
                Frame::Line(line) => line,
                Frame::End(ending) => {
                    exit = ending.exit;
                    continue;
                }
                Frame::Stall { .. } | Frame::CloseStdout { .. } => continue,
            };
            let at = line.at;
            match line.stream {
                Stream::Stdin => continue,
                Stream::Stderr => {
                    stderr_first.get_or_insert_with(|| String::from_utf8_lossy(&line.bytes).into_owned());
                    turn.push(Told::Stderr { at, line: line.bytes });
                    continue;
                }
                Stream::Stdout => {}
            }
            let Ok(event) = serde_json::from_slice::<Value>(&line.bytes) else {
                continue;
            };
            if session_id.is_none() {
                session_id = event[field::SESSION_ID].as_str().map(str::to_owned);
            }
            match (event[field::TYPE].as_str(), event[field::SUBTYPE].as_str()) {
                (Some(event_type::ASSISTANT), _) => {
                    let text = message_text(&event);
                    if !text.is_empty() {
                        turn.push(Told::Update {
                            at,
                            update: wire::text_chunk(updates::AGENT_MESSAGE_CHUNK, &text),
                        });
                    }
                }
                (Some(event_type::THINKING), Some(subtype::DELTA)) => {
                    if let Some(text) = event["text"].as_str().filter(|t| !t.is_empty()) {
                        turn.push(Told::Update {
                            at,
                            update: wire::text_chunk(updates::AGENT_THOUGHT_CHUNK, text),
                        });
                    }
                }
                (Some(event_type::TOOL_CALL), Some(subtype::STARTED)) => {
                    let (key, body) = tool(&event);
                    let kind = kind_of(&key);
                    let id = event["call_id"].clone();
                    let title = title_of(&key, &body["args"]);
                    let call = json!({"sessionUpdate": updates::TOOL_CALL, "toolCallId": id, "title": title, "kind": kind, "status": tool_statuses::PENDING, "rawInput": body["args"]});
                    turn.push(Told::Update { at, update: call });
                    let ask_here = match ask {
                        Ask::FirstChange => !asked && kind != tool_kinds::READ,
                        Ask::Shell => kind == tool_kinds::EXECUTE,
                    };
                    if ask_here {
                        asked = true;
                        turn.push(Told::Permission {
                            at,
                            tool_call: json!({"toolCallId": id, "title": title, "kind": kind, "status": tool_statuses::PENDING}),
                        });
                    }
                }
                (Some(event_type::TOOL_CALL), Some(subtype::COMPLETED)) => {
                    let (_, body) = tool(&event);
                    // A tool's `result` is keyed as the event type is named.
                    let result = &body[event_type::RESULT];
                    let failed = ["failure", "error", "rejected"]
                        .iter()
                        .any(|k| result.get(k).is_some());
                    let status = if failed {
                        tool_statuses::FAILED
                    } else {
                        tool_statuses::COMPLETED
                    };
                    turn.push(Told::Update {
                        at,
                        update: json!({"sessionUpdate": updates::TOOL_CALL_UPDATE, "toolCallId": event["call_id"], "status": status, "rawOutput": result}),
                    });
                }
                (Some(event_type::USER), _) => prompt = message_text(&event),
                (Some(event_type::RESULT), kind) => {
                    let ok = kind == Some(subtype::SUCCESS) && event["is_error"] != Value::Bool(true);
                    outcome = Some(if ok {
                        Outcome::Success
                    } else {
                        Outcome::Failure(
                            event[event_type::RESULT]
                                .as_str()
                                .unwrap_or("the agent failed")
                                .to_owned(),
                        )
                    });
                }
                _ => {}
            }
        }
        let outcome = match outcome {
            Some(Outcome::Success) if !exit.success() => {
                Outcome::Failure(format!("the agent ended with {exit}"))
            }
            Some(outcome) => outcome,
            None if stderr_first
                .as_deref()
                .is_some_and(|line| line.starts_with(NOT_LOGGED_IN)) =>
            {
                Outcome::AuthRequired
            }
            None => Outcome::Failure(
                stderr_first.unwrap_or_else(|| format!("the agent ended with {exit} and no result")),
            ),
        };
        Ok(Teller {
            turn,
            outcome,
            end,
            prompt,
            session_id: session_id.unwrap_or_else(|| uuid::Uuid::new_v4().to_string()),
            sessions: Vec::new(),
            next_request: 0,
        })
    }

    /// The steps of one prompt's turn in `session`, answering request `id`.
    fn turn(&mut self, id: &str, session: &str) -> Vec<Step> {
        let mut steps = Vec::new();
        for told in &self.turn {
            match told {
                Told::Update { at, update } => steps.push(Step::Send {
                    at: *at,
                    line: update_line(session, update),
                }),
                Told::Stderr { at, line } => steps.push(Step::Stderr {
                    at: *at,
                    line: line.clone(),
                }),
                Told::Permission { at, tool_call } => {
                    let request = self.next_request;
                    self.next_request += 1;
                    steps.push(Step::Send {
                        at: *at,
                        line: rpc::request(
                            request,
                            methods::REQUEST_PERMISSION,
                            &permission_params(session, tool_call),
                        ),
                    });
                    steps.push(Step::Await {
                        at: *at,
                        wait: Wait::Answer {
                            id: request.to_string(),
                            method: methods::REQUEST_PERMISSION.to_owned(),
                            recorded: None,
                        },
                    });
                }
            }
        }
        let last = match &self.outcome {
            Outcome::Success => rpc::response(id, &wire::stop(stop_reasons::END_TURN)),
            Outcome::Failure(message) => rpc::error(id, codes::INTERNAL_ERROR, message, None),
            Outcome::AuthRequired => return self.not_logged_in(id),
        };
        steps.push(Step::Send {
            at: self.end,
            line: last,
        });
        steps
    }

    /// The history `session/load` replays: the prompt, then the answer's messages.
    fn history(&self, session: &str) -> Vec<Step> {
        let user = wire::text_chunk(updates::USER_MESSAGE_CHUNK, &self.prompt);
        std::iter::once(update_line(session, &user))
            .chain(self.turn.iter().filter_map(|told| match told {
                Told::Update { update, .. } if update["sessionUpdate"] == updates::AGENT_MESSAGE_CHUNK => {
                    Some(update_line(session, update))
                }
                _ => None,
            }))
            .map(|line| Step::Send {
                at: Duration::ZERO,
                line,
            })
            .collect()
    }

    /// The answer of a session method when not logged in: the recorded stderr lines
    /// (once), then `-32000`.
    fn not_logged_in(&mut self, id: &str) -> Vec<Step> {
        let mut steps: Vec<Step> = std::mem::take(&mut self.turn)
            .into_iter()
            .filter_map(|told| match told {
                Told::Stderr { line, .. } => Some(Step::Stderr {
                    at: Duration::ZERO,
                    line,
                }),
                _ => None,
            })
            .collect();
        steps.push(Step::Send {
            at: Duration::ZERO,
            line: rpc::error(id, codes::AUTH_REQUIRED, "Authentication required", None),
        });
        steps
    }

    fn new_session(&mut self) -> String {
        let id = if self.sessions.is_empty() {
            self.session_id.clone()
        } else {
            uuid::Uuid::new_v4().to_string()
        };
        self.sessions.push(id.clone());
        id
    }
}

impl Conversation for Teller {
    fn start(&mut self) -> Steps {
        Steps::default()
    }

    fn reply(&mut self, request: &Message<'_>) -> Reply {
        let id = request.id_text().to_owned();
        let session_method = matches!(
            request.method(),
            methods::SESSION_NEW
                | methods::SESSION_PROMPT
                | methods::SESSION_LOAD
                | methods::SESSION_SET_MODE
                | methods::SESSION_SET_MODEL
                | methods::SESSION_SET_CONFIG_OPTION
        );
        if session_method && self.outcome == Outcome::AuthRequired {
            return Reply {
                steps: Steps::from(self.not_logged_in(&id)),
                divergence: None,
            };
        }
        match request.method() {
            methods::SESSION_NEW => {
                let session = self.new_session();
                Reply {
                    steps: Steps::from(vec![
                        Step::Send {
                            at: Duration::ZERO,
                            line: rpc::response(&id, &session_new_result(&session)),
                        },
                        Step::Send {
                            at: Duration::ZERO,
                            line: update_line(&session, &available_commands()),
                        },
                    ]),
                    divergence: None,
                }
            }
            methods::SESSION_PROMPT => {
                let session = request
                    .param_str("sessionId")
                    .unwrap_or_else(|| self.session_id.clone());
                Reply {
                    steps: Steps::from(self.turn(&id, &session)),
                    divergence: None,
                }
            }
            methods::SESSION_LOAD => {
                let session = request
                    .param_str("sessionId")
                    .unwrap_or_else(|| self.session_id.clone());
                if session != self.session_id && !self.sessions.contains(&session) {
                    return Reply::send(rpc::error(
                        &id,
                        codes::INVALID_PARAMS,
                        &format!("Session {session} not found"),
                        None,
                    ));
                }
                let mut steps = self.history(&session);
                steps.push(Step::Send {
                    at: Duration::ZERO,
                    line: rpc::response(&id, &json!({})),
                });
                Reply {
                    steps: Steps::from(steps),
                    divergence: None,
                }
            }
            _ => handshake(request),
        }
    }

    fn ending(&self) -> Exit {
        Exit::Code(0)
    }
}

/// The answers every mock agent gives, whatever its source: `initialize`,
/// `authenticate`, the mode, model and config option setters; `-32601` for a method
/// it does not know.
pub fn handshake(request: &Message<'_>) -> Reply {
    let id = request.id_text();
    let result = match request.method() {
        methods::INITIALIZE => initialize_result(),
        methods::AUTHENTICATE | methods::SESSION_SET_MODE | methods::SESSION_SET_MODEL => json!({}),
        methods::SESSION_SET_CONFIG_OPTION => json!({"configOptions": config_options(modes::AGENT, "auto")}),
        methods::SESSION_NEW => {
            let session = uuid::Uuid::new_v4().to_string();
            return Reply {
                steps: Steps::from(vec![
                    Step::Send {
                        at: Duration::ZERO,
                        line: rpc::response(id, &session_new_result(&session)),
                    },
                    Step::Send {
                        at: Duration::ZERO,
                        line: update_line(&session, &available_commands()),
                    },
                ]),
                divergence: None,
            };
        }
        methods::SESSION_PROMPT => wire::stop(stop_reasons::END_TURN),
        methods::SESSION_LOAD => json!({}),
        other => {
            return Reply::send(rpc::error(
                id,
                codes::METHOD_NOT_FOUND,
                "Method not found",
                Some(&Value::from(other)),
            ))
        }
    };
    Reply::send(rpc::response(id, &result))
}

/// The result of `initialize`, as the real agent answers (protocol version 1 to any
/// version asked).
pub fn initialize_result() -> Value {
    json!({
        "protocolVersion": 1,
        "agentCapabilities": {
            "loadSession": true,
            "promptCapabilities": {(content_types::IMAGE): true, (content_types::AUDIO): false, "embeddedContext": false},
            "mcpCapabilities": {"http": true, "sse": true}
        },
        "authMethods": [{"id": "cursor_login", "name": "Cursor Login", "description": "Log in with your Cursor account"}]
    })
}

/// The result of `session/new`: the id, the modes, the models block clients read, and
/// the config options.
pub fn session_new_result(session: &str) -> Value {
    let models: Vec<Value> = crate::models::MODELS
        .iter()
        .map(|(id, name)| json!({"modelId": id, "name": name}))
        .collect();
    json!({
        "sessionId": session,
        "modes": {"currentModeId": modes::AGENT, "availableModes": available_modes()},
        "models": {"currentModelId": "auto", "availableModels": models},
        "configOptions": config_options(modes::AGENT, "auto")
    })
}

fn available_modes() -> Value {
    json!([
        {"id": modes::AGENT, "name": "Agent", "description": "Full agent capabilities"},
        {"id": modes::PLAN, "name": "Plan", "description": "Plan before acting"},
        {"id": modes::ASK, "name": "Ask", "description": "Answer questions, change nothing"}
    ])
}

fn config_options(mode: &str, model: &str) -> Value {
    let models: Vec<Value> = crate::models::MODELS
        .iter()
        .map(|(id, name)| json!({"value": id, "name": name}))
        .collect();
    let modes: Vec<Value> = modes::ALL
        .iter()
        .map(|m| json!({"value": m, "name": m[..1].to_uppercase() + &m[1..]}))
        .collect();
    json!([
        {"id": "mode", "name": "Mode", "category": "mode", "type": "select", "currentValue": mode, "options": modes},
        {"id": "model", "name": "Model", "category": "model", "type": "select", "currentValue": model, "options": models}
    ])
}

/// The `available_commands_update` the agent sends after `session/new` answers.
pub fn available_commands() -> Value {
    json!({"sessionUpdate": updates::AVAILABLE_COMMANDS_UPDATE, "availableCommands": [
        {"name": modes::PLAN, "description": "Switch to plan mode"},
        {"name": "model", "description": "Change the model", "input": {"hint": "model id"}}
    ]})
}

/// A `session/update` notification of `session`.
pub fn update_line(session: &str, update: &Value) -> Vec<u8> {
    rpc::notification(
        methods::SESSION_UPDATE,
        &json!({"sessionId": session, "update": update}),
    )
}

/// The params of a `session/request_permission` for this tool call: allow once,
/// allow always, reject.
pub fn permission_params(session: &str, tool_call: &Value) -> Value {
    json!({
        "sessionId": session,
        "toolCall": tool_call,
        "options": [
            {"optionId": "allow-once", "name": "Allow once", "kind": option_kinds::ALLOW_ONCE},
            {"optionId": "allow-always", "name": "Allow always", "kind": option_kinds::ALLOW_ALWAYS},
            {"optionId": "reject-once", "name": "Reject", "kind": option_kinds::REJECT_ONCE}
        ]
    })
}

/// The concatenated text blocks of a message event.
fn message_text(event: &Value) -> String {
    event["message"]["content"]
        .as_array()
        .map(|blocks| blocks.iter().filter_map(|b| b["text"].as_str()).collect())
        .unwrap_or_default()
}

/// The tool key (`readToolCall`, ...) and its body of a `tool_call` event.
fn tool(event: &Value) -> (String, Value) {
    // The tool call's object is keyed as the event type is named.
    event[event_type::TOOL_CALL]
        .as_object()
        .and_then(|tool| tool.iter().find(|(k, _)| is_tool_key(k)))
        .map(|(k, v)| (k.clone(), v.clone()))
        .unwrap_or_else(|| (tool_key::FUNCTION.to_owned(), Value::Null))
}

/// The ACP tool kind of a print-mode tool key.
pub fn kind_of(key: &str) -> &'static str {
    match key {
        tool_key::READ => tool_kinds::READ,
        tool_key::WRITE | tool_key::EDIT => tool_kinds::EDIT,
        tool_key::DELETE => tool_kinds::DELETE,
        tool_key::SHELL => tool_kinds::EXECUTE,
        tool_key::GREP | tool_key::GLOB | tool_key::LS => tool_kinds::SEARCH,
        _ => tool_kinds::OTHER,
    }
}

fn title_of(key: &str, args: &Value) -> String {
    let path = args["path"].as_str().unwrap_or_default();
    match key {
        tool_key::READ => format!("Read {path}"),
        tool_key::WRITE => format!("Write {path}"),
        tool_key::EDIT => format!("Edit {path}"),
        tool_key::DELETE => format!("Delete {path}"),
        tool_key::SHELL => format!("`{}`", args["command"].as_str().unwrap_or_default()),
        tool_key::GREP => format!("Grep {}", args["pattern"].as_str().unwrap_or_default()),
        tool_key::GLOB => format!("Glob {}", args["globPattern"].as_str().unwrap_or_default()),
        tool_key::LS => format!("List {path}"),
        other => other.trim_end_matches(tool_key::SUFFIX).to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Source;

    /// The frames of the built-in default session.
    fn default_session(prompt: &str) -> impl Iterator<Item = FrameResult> {
        Source::Default.open(prompt).expect("opens").frames
    }

    #[test]
    fn the_default_session_asks_before_its_write_and_ends_its_turn() {
        let frames = default_session("hi");
        let mut teller = Teller::new(frames, Ask::FirstChange).expect("tells");
        let line = rpc::request(
            0,
            methods::SESSION_PROMPT,
            &json!({"sessionId": "s1", "prompt": []}),
        );
        let line = rpc::with_id(&line, r#""p-1""#);
        let steps: Vec<Step> = teller
            .reply(&Message::parse(&line).expect("parses"))
            .steps
            .collect::<Result<_, _>>()
            .expect("steps at hand");
        let kinds: Vec<String> = steps
            .iter()
            .map(|step| match step {
                Step::Send { line, .. } => {
                    let m = Message::parse(line).expect("json-rpc");
                    let v: Value = serde_json::from_slice(line).expect("json");
                    match m.method() {
                        methods::SESSION_UPDATE => v["params"]["update"]["sessionUpdate"]
                            .as_str()
                            .unwrap_or("?")
                            .to_owned(),
                        "" => {
                            let result: Value = m
                                .result
                                .and_then(|r| serde_json::from_str(r.get()).ok())
                                .unwrap_or_default();
                            format!("response {}", result["stopReason"])
                        }
                        other => other.to_owned(),
                    }
                }
                Step::Await { .. } => "await".to_owned(),
                other => format!("{other:?}"),
            })
            .collect();
        assert_eq!(
            kinds,
            [
                updates::AGENT_MESSAGE_CHUNK,
                updates::AGENT_MESSAGE_CHUNK,
                updates::TOOL_CALL,
                updates::TOOL_CALL_UPDATE,
                updates::AGENT_MESSAGE_CHUNK,
                updates::TOOL_CALL,
                methods::REQUEST_PERMISSION,
                "await",
                updates::TOOL_CALL_UPDATE,
                &format!("response \"{}\"", stop_reasons::END_TURN),
            ]
        );
        assert!(String::from_utf8_lossy(match &steps[0] {
            Step::Send { line, .. } => line,
            _ => unreachable!(),
        })
        .contains(r#""sessionId":"s1""#));
    }
}
