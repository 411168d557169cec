//! A print-mode session told through ACP, and the handshake every mock agent answers.
//!
//! | print mode (`stream-json`) | ACP (`session/update` unless said) |
//! | --- | --- |
//! | `assistant` (a whole segment) | `agent_message_chunk` with its text |
//! | `thinking` delta | `agent_thought_chunk` with its text |
//! | `tool_call` started | `tool_call`: `toolCallId` = `call_id`, a `title`, the ACP `kind`, `status: pending`, `rawInput` = the tool's `args` |
//! | `tool_call` completed | `tool_call_update`: `status` `completed` (or `failed` for a `failure`, `error` or `rejected` result), `rawOutput` = the tool's `result` |
//! | a read, a write, a shell command, when the client offers it in `initialize` | first the client's tool: `fs/read_text_file`, `fs/write_text_file`, `terminal/*`; the `tool_call_update` says what the client answered |
//! | `result` success | `usage_update`, `session_info_update` (a session's first turn: its title, from the prompt), then the prompt's response, `stopReason: end_turn` |
//! | a failed run (no successful `result`) | a JSON-RPC error (`-32603`) for the prompt, with the first stderr line |
//! | a run that failed with `Authentication required` on stderr | `-32000` `Authentication required` for every session method, as the real agent answers when not logged in; the recorded stderr lines with the first |
//! | stderr lines | stderr lines |
//! | `system`, `user`, `connection`, `retry`, unknown types | nothing (`user` is the history `session/load` replays) |
//!
//! Tool kinds: `readToolCall` read; `writeToolCall`, `editToolCall` edit;
//! `deleteToolCall` delete; `shellToolCall` execute; `grepToolCall`, `globToolCall`,
//! `lsToolCall` search; any other other. The agent asks `session/request_permission`
//! before the tools [`Ask`] names, and waits for the answer. The built-in default
//! session ([`Teller::checking_its_work`]) also checks its write with a shell command
//! in the client's terminal, when the client offers one. `session/load` replays the
//! history of a session of this process or of the recording's `session_id`, and
//! answers any other id `-32602` (`Session ... not found`); so do a prompt and a
//! setter that name a session nobody made. Times are the frames' times. A recording
//! of a real `acp` process ([`super::script`]) is the faithful source: this mapping is
//! the mock's, in the shapes the real agent uses.

mod client;
mod handshake;

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};

use super::profile::{Commands, LoadAnswer, Profile, ToolShape};
use super::rpc::{self, codes, Message};
use super::wire::{self, methods, stop_reasons, tool_kinds, tool_statuses, updates, Capabilities};
use crate::dialects::acp::conversation::{Conversation, Reply, Step, Steps};
use crate::dialects::cursor_print::events::{event_type, field, is_tool_key, subtype, tool_key};
use crate::error::CassetteError;
use crate::frames::{Exit, Frame, FrameResult, Stream};
use client::{Item, Job, Lazy, Live};
pub use handshake::{config_options, handshake, models, permission_params, update_line};

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
    Update {
        at: Duration,
        update: Value,
    },
    Stderr {
        at: Duration,
        line: Vec<u8>,
    },
    Permission {
        at: Duration,
        tool_call: Value,
    },
    /// A tool call's end (its `tool_call_update` as print mode tells it), through the
    /// client first when the tool is one the client can run and offers (its path as
    /// recorded: made absolute in the session's folder).
    Finish {
        at: Duration,
        job: Option<Job>,
        update: Value,
    },
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

/// The shell command the default session checks its write with.
const CHECK: &str = "wc -l summary.txt";

/// The context window `usage_update` reports, in tokens.
const CONTEXT_WINDOW: u64 = 200_000;

/// A session of this process: its id, its folder (`cwd`), and whether it has its
/// title.
#[derive(Debug, Clone)]
struct Session {
    id: String,
    cwd: Option<String>,
    titled: bool,
    /// Whether it was sent the commands (a profile that sends them at the first
    /// prompt).
    commanded: bool,
}

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
    /// The recorded run's folder (its `system` event's `cwd`).
    recorded_cwd: Option<String>,
    sessions: Vec<Session>,
    /// What the client offered in `initialize`.
    capabilities: Capabilities,
    /// The turns' answers from the client and the agent's next request id.
    shared: Live,
    /// Turns played, for `usage_update`.
    turns: u64,
    /// Check the work with a shell command in the client's terminal (the default
    /// session).
    check: bool,
    /// The agent whose habits it plays.
    profile: &'static Profile,
}

impl Teller {
    /// Tells the frames of a print-mode run (`stream-json`, whole segments) as
    /// `profile`'s agent tells them.
    pub fn new(
        frames: impl IntoIterator<Item = FrameResult>,
        ask: Ask,
        profile: &'static Profile,
    ) -> Result<Teller, CassetteError> {
        let mut turn = Vec::new();
        let mut outcome = None;
        let mut stderr_first = None;
        let mut exit = Exit::Code(0);
        let mut prompt = String::new();
        let mut session_id = None;
        let mut recorded_cwd = None;
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
                (Some(event_type::SYSTEM), _) => {
                    recorded_cwd = recorded_cwd.or_else(|| event["cwd"].as_str().map(str::to_owned));
                }
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
                    let (key, body) = tool(&event);
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
                    turn.push(Told::Finish {
                        at,
                        job: job_of(&key, &body["args"]),
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
            recorded_cwd,
            sessions: Vec::new(),
            capabilities: Capabilities::default(),
            shared: Live::default(),
            turns: 0,
            check: false,
            profile,
        })
    }

    /// The teller of the built-in default session: after its write, it checks its
    /// work with a shell command (`wc -l summary.txt`) in the client's terminal, when
    /// the client offers one.
    #[must_use]
    pub fn checking_its_work(mut self) -> Teller {
        self.check = true;
        self
    }

    /// The steps of one prompt's turn in `session`, answering request `id`; `title`
    /// is the prompt's text.
    fn turn(&mut self, id: &str, session: &str, title: &str) -> Steps {
        if self.outcome == Outcome::AuthRequired {
            return Steps::from(self.not_logged_in(id));
        }
        let cwd = self
            .session(session)
            .and_then(|s| s.cwd.clone())
            .or_else(|| self.recorded_cwd.clone());
        let mut items = VecDeque::new();
        let profile = self.profile;
        if let (Commands::FirstPrompt, commands) = profile.commands {
            if let Some(s) = self.sessions.iter_mut().find(|s| s.id == session && !s.commanded) {
                s.commanded = true;
                items.push_back(Item::Ready(Step::Send {
                    at: Duration::ZERO,
                    line: update_line(session, &commands()),
                }));
            }
        }
        // A profile whose permission request is the first mention of a tool call
        // does not announce one that asks.
        let asked: Vec<&Value> = match profile.tools {
            ToolShape::Plain => self
                .turn
                .iter()
                .filter_map(|told| match told {
                    Told::Permission { tool_call, .. } => Some(&tool_call["toolCallId"]),
                    _ => None,
                })
                .collect(),
            ToolShape::Raw => Vec::new(),
        };
        for told in &self.turn {
            items.push_back(match told {
                Told::Update { update, .. }
                    if update["sessionUpdate"] == updates::TOOL_CALL
                        && asked.contains(&&update["toolCallId"]) =>
                {
                    continue
                }
                Told::Update { at, update } => Item::Ready(Step::Send {
                    at: *at,
                    line: update_line(session, &shaped(update.clone(), profile)),
                }),
                Told::Stderr { at, line } => Item::Ready(Step::Stderr {
                    at: *at,
                    line: line.clone(),
                }),
                Told::Permission { at, tool_call } => {
                    client::permission(*at, session.to_owned(), tool_call.clone(), profile)
                }
                Told::Finish { at, job, update } => {
                    match job.as_ref().filter(|j| self.capabilities.allow(j.method())) {
                        Some(job) => client::run(
                            *at,
                            session.to_owned(),
                            in_folder(job, cwd.as_deref()),
                            update.clone(),
                            profile,
                        ),
                        None => Item::Ready(Step::Send {
                            at: *at,
                            line: update_line(session, &shaped(update.clone(), profile)),
                        }),
                    }
                }
            });
        }
        let end = self.end;
        let last = match &self.outcome {
            Outcome::Success => {
                self.turns += 1;
                if self.check && self.capabilities.terminal {
                    let call = format!("toolu_check_{}", self.turns);
                    let title = format!("`{CHECK}`");
                    let update = json!({"sessionUpdate": updates::TOOL_CALL, "toolCallId": call, "title": title, "kind": tool_kinds::EXECUTE, "status": tool_statuses::PENDING, "rawInput": {"command": CHECK}});
                    items.push_back(Item::Ready(Step::Send {
                        at: end,
                        line: update_line(session, &update),
                    }));
                    let told = json!({"sessionUpdate": updates::TOOL_CALL_UPDATE, "toolCallId": call, "status": tool_statuses::COMPLETED, "rawOutput": {"exitCode": 0, "stdout": "19 summary.txt\n", "stderr": ""}});
                    let job = Job::Shell {
                        command: CHECK.to_owned(),
                        cwd: cwd.clone(),
                    };
                    items.push_back(client::run(end, session.to_owned(), job, told, profile));
                }
                let turns = self.turns;
                if profile.usage_updates {
                    let usage =
                        wire::usage_update(2_400 * turns, CONTEXT_WINDOW, (42 * turns) as f64 / 10_000.0);
                    items.push_back(Item::Ready(Step::Send {
                        at: end,
                        line: update_line(session, &usage),
                    }));
                }
                let titled = self
                    .sessions
                    .iter_mut()
                    .find(|s| s.id == session && !s.titled && profile.usage_updates);
                if let Some(s) = titled {
                    s.titled = true;
                    let title = title.lines().next().unwrap_or_default();
                    let title = match title.char_indices().nth(60) {
                        Some((cut, _)) => format!("{}...", &title[..cut]),
                        None if title.is_empty() => "New chat".to_owned(),
                        None => title.to_owned(),
                    };
                    items.push_back(Item::Ready(Step::Send {
                        at: end,
                        line: update_line(session, &wire::session_info_update(&title)),
                    }));
                }
                rpc::response(id, &(profile.prompt_result)(stop_reasons::END_TURN, turns))
            }
            Outcome::Failure(message) => rpc::error(id, codes::INTERNAL_ERROR, message, None),
            Outcome::AuthRequired => unreachable!("answered above"),
        };
        items.push_back(Item::Ready(Step::Send { at: end, line: last }));
        Steps::new(Lazy {
            items,
            shared: Arc::clone(&self.shared),
        })
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
            line: (self.profile.errors.auth_required)(id),
        });
        steps
    }

    fn session(&self, id: &str) -> Option<&Session> {
        self.sessions.iter().find(|s| s.id == id)
    }

    /// A session of this process (made or loaded), `cwd` its folder.
    fn open_session(&mut self, id: String, cwd: Option<String>) {
        if self.session(&id).is_none() {
            self.sessions.push(Session {
                id,
                cwd,
                titled: false,
                commanded: false,
            });
        }
    }

    fn new_session(&mut self, cwd: Option<String>) -> String {
        let id = if self.sessions.is_empty() {
            self.session_id.clone()
        } else {
            uuid::Uuid::new_v4().to_string()
        };
        self.open_session(id.clone(), cwd);
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
                recorded_session: None,
            };
        }
        let named = request.param_str("sessionId");
        let profile = self.profile;
        let unknown = || {
            let named = named.as_deref().unwrap_or_default();
            Reply::send((profile.errors.unknown_session)(&id, named, request.method()))
        };
        match request.method() {
            methods::INITIALIZE => {
                let mut offered = Capabilities::of_initialize(&request.params_value());
                // What the agent does not use, it does not ask for.
                offered.terminal &= profile.terminal;
                offered.read &= profile.fs_reads;
                self.capabilities = offered;
                handshake(request, profile)
            }
            methods::SESSION_NEW => {
                let session = self.new_session(request.param_str("cwd"));
                Reply {
                    steps: Steps::from(handshake::session_new_steps(&id, &session, profile)),
                    divergence: None,
                    recorded_session: None,
                }
            }
            methods::SESSION_PROMPT => {
                let Some(session) = named.clone().filter(|s| self.session(s).is_some()) else {
                    return unknown();
                };
                let params = request.params_value();
                let text: String = params["prompt"]
                    .as_array()
                    .map(|blocks| blocks.iter().filter_map(|b| b["text"].as_str()).collect())
                    .unwrap_or_default();
                Reply {
                    steps: self.turn(&id, &session, &text),
                    divergence: None,
                    recorded_session: None,
                }
            }
            methods::SESSION_SET_MODE | methods::SESSION_SET_MODEL | methods::SESSION_SET_CONFIG_OPTION
                if named.as_deref().is_none_or(|s| self.session(s).is_none()) =>
            {
                unknown()
            }
            methods::SESSION_LOAD => {
                let session = named.clone().unwrap_or_else(|| self.session_id.clone());
                if session != self.session_id && self.session(&session).is_none() {
                    return unknown();
                }
                self.open_session(session.clone(), request.param_str("cwd"));
                let mut steps = self.history(&session);
                let answer = Step::Send {
                    at: Duration::ZERO,
                    line: rpc::response(&id, &json!({})),
                };
                match profile.load {
                    LoadAnswer::AfterReplay => steps.push(answer),
                    LoadAnswer::AfterFirst => steps.insert(1.min(steps.len()), answer),
                }
                Reply {
                    steps: Steps::from(steps),
                    divergence: None,
                    recorded_session: None,
                }
            }
            _ => handshake(request, profile),
        }
    }

    fn ending(&self) -> Exit {
        Exit::Code(0)
    }

    fn answered(&mut self, id: &str, method: &str, answer: &Value) {
        self.shared
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .answered(id, method, answer);
    }

    fn cancelled(&mut self) -> Steps {
        let released = self
            .shared
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .release_all();
        Steps::from(released)
    }
}

/// A tool call's update in the profile's shape: as told, or without `rawInput` and
/// `rawOutput` (and with `content`, empty when the update has none).
pub(super) fn shaped(mut update: Value, profile: &Profile) -> Value {
    if profile.tools == ToolShape::Plain {
        if let Some(fields) = update.as_object_mut() {
            let tool = fields.remove("rawInput").is_some() | fields.remove("rawOutput").is_some();
            if tool && !fields.contains_key("content") {
                fields.insert("content".to_owned(), json!([]));
            }
        }
    }
    update
}

/// The job the client can run for a print-mode tool: a read, a write of a whole
/// file, a shell command.
fn job_of(key: &str, args: &Value) -> Option<Job> {
    let text = |name: &str| args[name].as_str().map(str::to_owned);
    match key {
        tool_key::READ => Some(Job::Read { path: text("path")? }),
        tool_key::WRITE => Some(Job::Write {
            path: text("path")?,
            content: text("fileText").unwrap_or_default(),
        }),
        tool_key::SHELL => Some(Job::Shell {
            command: text("command")?,
            cwd: None,
        }),
        _ => None,
    }
}

/// The job with its path made absolute in `cwd`, and its command run there.
fn in_folder(job: &Job, cwd: Option<&str>) -> Job {
    let absolute = |path: &str| match cwd {
        Some(cwd) if !path.starts_with('/') => format!("{}/{path}", cwd.trim_end_matches('/')),
        _ if !path.starts_with('/') => format!("/{path}"),
        _ => path.to_owned(),
    };
    match job {
        Job::Read { path } => Job::Read { path: absolute(path) },
        Job::Write { path, content } => Job::Write {
            path: absolute(path),
            content: content.clone(),
        },
        Job::Shell { command, cwd: None } => Job::Shell {
            command: command.clone(),
            cwd: cwd.map(str::to_owned),
        },
        Job::Shell { .. } => job.clone(),
    }
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
mod tests;
