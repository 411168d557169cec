//! A session told through ACP ([`Story`]: what an agent said, thought and did, in no
//! dialect's words), and the handshake every mock agent answers.
//!
//! | the story | ACP (`session/update` unless said) |
//! | --- | --- |
//! | [`Beat::Said`] | `agent_message_chunk` with its text |
//! | [`Beat::Thought`] | `agent_thought_chunk` with its text |
//! | [`Beat::Called`] | `tool_call`: its `toolCallId`, `title`, ACP `kind`, `status: pending`, `rawInput` = its input |
//! | [`Beat::Ended`] | `tool_call_update`: `status` `completed` (or `failed`), `rawOutput` = its output |
//! | a read, a write, a shell command, when the client offers it in `initialize` | first the client's tool: `fs/read_text_file`, `fs/write_text_file`, `terminal/*`; the `tool_call_update` says what the client answered |
//! | [`Ending::Success`] | `usage_update`, `session_info_update` (a session's first turn: its title, from the prompt), then the prompt's response, `stopReason: end_turn` |
//! | [`Ending::Failure`] | a JSON-RPC error (`-32603`) for the prompt, with its message |
//! | [`Ending::AuthRequired`] | the profile's not-logged-in error for every session method, as the real agent answers when not logged in; the story's stderr lines with the first |
//! | [`Beat::Stderr`] | stderr lines |
//!
//! That is a [`ToolShape::Raw`] profile's shape (Cursor's). A
//! [`ToolShape::Described`] profile (Gemini's) has no `rawInput` or `rawOutput`:
//! its tool calls say what they touch ([`describe`]). The agent asks
//! `session/request_permission` before the tools [`Ask`] names, and waits for the
//! answer. The built-in default session ([`Teller::checking_its_work`]) also checks
//! its write with a shell command in the client's terminal, when the client offers
//! one. `session/load` replays the history of a session of this process or of the
//! story's session id, and answers any other id with the profile's unknown-session
//! error; so do a prompt and a setter that name a session nobody made. Times are the
//! story's. A recording of a real ACP agent ([`super::script`]) is the faithful
//! source: this mapping is the mock's, in the shapes the real agent uses.

mod client;
pub mod describe;
mod handshake;
mod story;

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};

use super::profile::{Commands, LoadAnswer, Profile, ToolShape};
use super::rpc::{self, codes, Message};
use super::wire::{self, methods, stop_reasons, tool_kinds, tool_statuses, updates, Capabilities};
use crate::acp::conversation::{Conversation, Reply, Step, Steps};
use crate::frames::Exit;
use client::{Item, Job, Lazy, Live};
pub use handshake::{config_options, handshake, models, permission_params, update_line};
pub use story::{Beat, Call, Ending, Story, Tool};

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
    /// A tool call's start (its `tool_call` as a `Raw` profile tells it).
    Call {
        at: Duration,
        update: Value,
        call: Call,
    },
    Stderr {
        at: Duration,
        line: Vec<u8>,
    },
    Permission {
        at: Duration,
        tool_call: Value,
        call: Call,
    },
    /// A tool call's end (its `tool_call_update` as a `Raw` profile tells it), through
    /// the client first when the tool is one the client can run and offers (its path
    /// as recorded: made absolute in the session's folder).
    Finish {
        at: Duration,
        job: Option<Job>,
        update: Value,
        call: Call,
        /// Why it failed, if it did.
        failure: Option<String>,
    },
}

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

/// A story told through ACP: every prompt plays its turn.
#[derive(Debug, Clone)]
pub struct Teller {
    turn: Vec<Told>,
    outcome: Ending,
    /// The end of the turn, from the first frame.
    end: Duration,
    prompt: String,
    /// The session id of the story: the first `session/new` gives it.
    session_id: String,
    /// The recorded run's folder.
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
    /// The output of a read the client ran (the story's).
    read_output: fn(&str) -> Value,
}

impl Teller {
    /// Tells `story` as `profile`'s agent tells it, asking permission before the
    /// tools `ask` names.
    pub fn new(story: Story, ask: Ask, profile: &'static Profile) -> Teller {
        let mut turn = Vec::new();
        let mut asked = false;
        let mut calls: Vec<Call> = Vec::new();
        for beat in story.beats {
            match beat {
                Beat::Stderr { at, line } => turn.push(Told::Stderr { at, line }),
                Beat::Said { at, text } => turn.push(Told::Update {
                    at,
                    update: wire::text_chunk(updates::AGENT_MESSAGE_CHUNK, &text),
                }),
                Beat::Thought { at, text } => turn.push(Told::Update {
                    at,
                    update: wire::text_chunk(updates::AGENT_THOUGHT_CHUNK, &text),
                }),
                Beat::Called { at, call } => {
                    let (id, title, kind) = (&call.id, &call.title, call.kind);
                    let update = json!({"sessionUpdate": updates::TOOL_CALL, "toolCallId": id, "title": title, "kind": kind, "status": tool_statuses::PENDING, "rawInput": call.input});
                    let ask_here = match ask {
                        Ask::FirstChange => !asked && kind != tool_kinds::READ,
                        Ask::Shell => kind == tool_kinds::EXECUTE,
                    };
                    let tool_call = json!({"toolCallId": id, "title": title, "kind": kind, "status": tool_statuses::PENDING});
                    turn.push(Told::Call {
                        at,
                        update,
                        call: call.clone(),
                    });
                    if ask_here {
                        asked = true;
                        turn.push(Told::Permission {
                            at,
                            tool_call,
                            call: call.clone(),
                        });
                    }
                    calls.push(call);
                }
                Beat::Ended {
                    at,
                    id,
                    failure,
                    output,
                    tool,
                } => {
                    let status = if failure.is_some() {
                        tool_statuses::FAILED
                    } else {
                        tool_statuses::COMPLETED
                    };
                    let call = calls
                        .iter()
                        .find(|c| c.id == id)
                        .cloned()
                        .unwrap_or_else(|| Call {
                            id: id.clone(),
                            kind: tool_kinds::OTHER,
                            title: String::new(),
                            input: Value::Null,
                            tool: tool.clone(),
                        });
                    turn.push(Told::Finish {
                        at,
                        job: Job::of(&tool),
                        update: json!({"sessionUpdate": updates::TOOL_CALL_UPDATE, "toolCallId": id, "status": status, "rawOutput": output}),
                        call,
                        failure,
                    });
                }
            }
        }
        Teller {
            turn,
            outcome: story.ending,
            end: story.end,
            prompt: story.prompt,
            session_id: story
                .session_id
                .unwrap_or_else(|| uuid::Uuid::new_v4().to_string()),
            recorded_cwd: story.cwd,
            sessions: Vec::new(),
            capabilities: Capabilities::default(),
            shared: Live::default(),
            turns: 0,
            check: false,
            profile,
            read_output: story.read_output,
        }
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
        if self.outcome == Ending::AuthRequired {
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
        let described = profile.habits.tools == ToolShape::Described;
        // A profile whose permission request is the first mention of a tool call
        // does not announce one that asks.
        let asked: Vec<&Value> = if described {
            self.turn
                .iter()
                .filter_map(|told| match told {
                    Told::Permission { call, .. } => Some(&call.id),
                    _ => None,
                })
                .collect()
        } else {
            Vec::new()
        };
        let folder = cwd.as_deref();
        for told in &self.turn {
            items.push_back(match told {
                Told::Call { call, .. } if asked.contains(&&call.id) => continue,
                Told::Call { at, call, .. } if described => Item::Ready(Step::Send {
                    at: *at,
                    line: update_line(session, &describe::started(call, folder)),
                }),
                Told::Update { at, update } | Told::Call { at, update, .. } => Item::Ready(Step::Send {
                    at: *at,
                    line: update_line(session, update),
                }),
                Told::Stderr { at, line } => Item::Ready(Step::Stderr {
                    at: *at,
                    line: line.clone(),
                }),
                Told::Permission { at, tool_call, call } => {
                    let tool_call = if described {
                        describe::asking(call, folder)
                    } else {
                        tool_call.clone()
                    };
                    client::permission(*at, session.to_owned(), tool_call, profile)
                }
                Told::Finish {
                    at,
                    job,
                    update,
                    call,
                    failure,
                } => {
                    let update = if described {
                        describe::finished(call, failure.as_deref(), folder)
                    } else {
                        update.clone()
                    };
                    match job.as_ref().filter(|j| self.capabilities.allow(j.method())) {
                        Some(job) => client::run(
                            *at,
                            session.to_owned(),
                            in_folder(job, folder),
                            update,
                            profile,
                            self.read_output,
                        ),
                        None => Item::Ready(Step::Send {
                            at: *at,
                            line: update_line(session, &update),
                        }),
                    }
                }
            });
        }
        let end = self.end;
        let last = match &self.outcome {
            Ending::Success => {
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
                    items.push_back(client::run(
                        end,
                        session.to_owned(),
                        job,
                        told,
                        profile,
                        self.read_output,
                    ));
                }
                let turns = self.turns;
                if profile.habits.usage_updates {
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
                    .find(|s| s.id == session && !s.titled && profile.habits.usage_updates);
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
                rpc::response(id, &(profile.habits.prompt_result)(stop_reasons::END_TURN, turns))
            }
            Ending::Failure(message) => rpc::error(id, codes::INTERNAL_ERROR, message, None),
            Ending::AuthRequired => unreachable!("answered above"),
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
            line: (self.profile.habits.errors.auth_required)(id),
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
        if session_method && self.outcome == Ending::AuthRequired {
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
            Reply::send((profile.habits.errors.unknown_session)(
                &id,
                named,
                request.method(),
            ))
        };
        match request.method() {
            methods::INITIALIZE => {
                let mut offered = Capabilities::of_initialize(&request.params_value());
                // What the agent does not use, it does not ask for.
                offered.terminal &= profile.habits.terminal;
                offered.read &= profile.habits.fs_reads;
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
                match profile.habits.load {
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
/// `rawOutput` (and with `content`, empty when the update has none: a failure's
/// message when it failed with one).
pub(super) fn shaped(mut update: Value, profile: &Profile) -> Value {
    if profile.habits.tools == ToolShape::Described {
        if let Some(fields) = update.as_object_mut() {
            let error = fields
                .get("rawOutput")
                .and_then(|o| o["error"].as_str())
                .filter(|_| fields.get("status").and_then(Value::as_str) == Some(tool_statuses::FAILED))
                .map(str::to_owned);
            let tool = fields.remove("rawInput").is_some() | fields.remove("rawOutput").is_some();
            if tool && !fields.contains_key("content") {
                let content =
                    error.map_or_else(Vec::new, |e| vec![wire::block_content(wire::text_block(&e))]);
                fields.insert("content".to_owned(), Value::from(content));
            }
        }
    }
    update
}

/// `path` made absolute in `cwd` (in `/` when no folder is known).
fn absolute(path: &str, cwd: Option<&str>) -> String {
    match cwd {
        Some(cwd) if !path.starts_with('/') => format!("{}/{path}", cwd.trim_end_matches('/')),
        _ if !path.starts_with('/') => format!("/{path}"),
        _ => path.to_owned(),
    }
}

/// The job with its path made absolute in `cwd`, and its command run there.
fn in_folder(job: &Job, cwd: Option<&str>) -> Job {
    let absolute = |path: &str| absolute(path, cwd);
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

#[cfg(test)]
mod tests;
