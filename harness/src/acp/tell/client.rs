//! The tools the client runs for the agent: a file read, a file write, a shell
//! command. When the client offers them in `initialize`, the agent asks the client
//! (`fs/read_text_file`, `fs/write_text_file`; `terminal/create`, then
//! `terminal/wait_for_exit`, `terminal/output` and `terminal/release`) and waits for
//! each answer, as it waits for a permission; what it reports of the tool
//! (`tool_call_update`) is what the client answered. An error answer fails the tool
//! (`status: failed`, the error's message in `rawOutput`) and the turn goes on, as
//! the real agent's does; a terminal the client made is released whatever happens.
//!
//! The steps after a wait depend on the answer, so a turn's steps are made as they
//! are played ([`Lazy`]): the server hands each answer to the conversation
//! ([`Conversation::answered`](crate::acp::Conversation::answered))
//! before it asks for the next step. Played where nobody answers (what a correct
//! client concludes, [`super::super::expect`]), a tool ends as print mode told it.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};

use super::handshake::update_line;
use super::story::Tool;
use crate::acp::conversation::{Step, Wait};
use crate::acp::profile::Profile;
use crate::acp::rpc;
use crate::acp::wire::{self, methods, tool_statuses, updates};
use crate::error::CassetteError;

/// A tool the client can run for the agent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Job {
    /// Read a file (absolute path).
    Read { path: String },
    /// Write a file (absolute path).
    Write { path: String, content: String },
    /// Run a shell command, in this folder if known.
    Shell { command: String, cwd: Option<String> },
}

impl Job {
    /// The job the client can run for a story's tool: a read, a write of a whole
    /// file, a shell command.
    pub(super) fn of(tool: &Tool) -> Option<Job> {
        match tool {
            Tool::Read { path } => Some(Job::Read { path: path.clone() }),
            Tool::Write { path, content } => Some(Job::Write {
                path: path.clone(),
                content: content.clone(),
            }),
            Tool::Shell { command } => Some(Job::Shell {
                command: command.clone(),
                cwd: None,
            }),
            Tool::Other { .. } => None,
        }
    }

    /// The method of the job's first request.
    pub(super) fn method(&self) -> &'static str {
        match self {
            Job::Read { .. } => methods::FS_READ_TEXT_FILE,
            Job::Write { .. } => methods::FS_WRITE_TEXT_FILE,
            Job::Shell { .. } => methods::TERMINAL_CREATE,
        }
    }
}

/// What a turn's steps share with the conversation: the client's answers to the
/// agent's requests (taken once read), and the agent's next request id.
#[derive(Debug, Default)]
pub(super) struct Shared {
    answers: HashMap<String, Value>,
    next_request: u64,
    /// The terminals the client made and the agent has not released: session and id.
    terminals: Vec<(String, String)>,
}

impl Shared {
    /// The id of the agent's next request.
    fn next(&mut self) -> u64 {
        let id = self.next_request;
        self.next_request += 1;
        id
    }

    /// The release of every terminal not yet released, now (a cancelled turn's).
    pub(super) fn release_all(&mut self) -> Vec<Step> {
        std::mem::take(&mut self.terminals)
            .into_iter()
            .map(|(session, terminal)| Step::Send {
                at: Duration::ZERO,
                line: rpc::request(
                    self.next(),
                    methods::TERMINAL_RELEASE,
                    &wire::terminal(&session, &terminal),
                ),
            })
            .collect()
    }

    /// Keeps the client's answer to the agent's request `id`, if a job waits for it.
    pub(super) fn answered(&mut self, id: &str, method: &str, answer: &Value) {
        let job = [methods::FS_READ_TEXT_FILE, methods::FS_WRITE_TEXT_FILE].contains(&method)
            || method.starts_with(methods::TERMINAL_PREFIX);
        if job {
            self.answers.insert(id.to_owned(), answer.clone());
        }
    }
}

/// The shared state of a teller and the steps of its turns.
pub(super) type Live = Arc<Mutex<Shared>>;

/// The result of an answer: `Ok(result)`, `Err(message)` for an error answer, or
/// `None` when no answer was seen.
type Answered = Option<Result<Value, String>>;

fn take(shared: &mut Shared, id: u64) -> Answered {
    let answer = shared.answers.remove(&id.to_string())?;
    match answer.get("error") {
        Some(error) if answer.as_object().is_some_and(|o| o.len() == 1) => Some(Err(error["message"]
            .as_str()
            .unwrap_or("the client answered with an error")
            .to_owned())),
        _ => Some(Ok(answer)),
    }
}

/// What makes the steps after a wait, from the answers.
pub(super) type Make = Box<dyn FnOnce(&mut Shared) -> Vec<Item> + Send>;

/// A step at hand, or steps to make once the answers before it have come.
pub(super) enum Item {
    Ready(Step),
    Then(Make),
}

impl Item {
    pub(super) fn then(make: impl FnOnce(&mut Shared) -> Vec<Item> + Send + 'static) -> Item {
        Item::Then(Box::new(make))
    }
}

/// Steps made as they are played.
pub(super) struct Lazy {
    pub(super) items: VecDeque<Item>,
    pub(super) shared: Live,
}

impl Iterator for Lazy {
    type Item = Result<Step, CassetteError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            match self.items.pop_front()? {
                Item::Ready(step) => return Some(Ok(step)),
                Item::Then(make) => {
                    let made = {
                        let mut shared = self
                            .shared
                            .lock()
                            .unwrap_or_else(std::sync::PoisonError::into_inner);
                        make(&mut shared)
                    };
                    for item in made.into_iter().rev() {
                        self.items.push_front(item);
                    }
                }
            }
        }
    }
}

/// The agent's request `method` of id `id` and its wait for the answer, at `at`.
fn ask(at: Duration, id: u64, method: &'static str, params: &Value) -> [Item; 2] {
    [
        Item::Ready(Step::Send {
            at,
            line: rpc::request(id, method, params),
        }),
        Item::Ready(Step::Await {
            at,
            wait: Wait::Answer {
                id: id.to_string(),
                method: method.to_owned(),
                recorded: None,
            },
        }),
    ]
}

/// The agent's request for permission, made when it is played (ids count in the
/// order requests are sent).
pub(super) fn permission(at: Duration, session: String, tool_call: Value, profile: &'static Profile) -> Item {
    Item::then(move |shared| {
        let id = shared.next();
        let params = super::handshake::permission_params(&session, &tool_call, profile);
        ask(at, id, methods::REQUEST_PERMISSION, &params).into()
    })
}

/// A tool call's end, the job run through the client: `told` is the
/// `tool_call_update` print mode tells (sent when no answer is seen).
pub(super) fn run(
    at: Duration,
    session: String,
    job: Job,
    told: Value,
    profile: &'static Profile,
    read_output: fn(&str) -> Value,
) -> Item {
    Item::then(move |shared| {
        let id = shared.next();
        let call = told["toolCallId"].clone();
        let params = match &job {
            Job::Read { path } => wire::read_text_file(&session, path),
            Job::Write { path, content } => wire::write_text_file(&session, path, content),
            Job::Shell { command, cwd } => wire::create_terminal(&session, command, cwd.as_deref()),
        };
        let mut items: Vec<Item> = ask(at, id, job.method(), &params).into();
        items.push(Item::then(move |shared| {
            let answered = take(shared, id);
            let send = |update: Value| Item::Ready(Step::Send {
                at,
                line: update_line(&session, &super::shaped(update, profile)),
            });
            let failed = |message: &str| {
                json!({"sessionUpdate": updates::TOOL_CALL_UPDATE, "toolCallId": call, "status": tool_statuses::FAILED, "rawOutput": {"error": message}})
            };
            match (job, answered) {
                (_, None) => vec![send(told)],
                (_, Some(Err(message))) => vec![send(failed(&message))],
                (Job::Read { .. }, Some(Ok(result))) => match result["content"].as_str() {
                    Some(content) => vec![send(
                        json!({"sessionUpdate": updates::TOOL_CALL_UPDATE, "toolCallId": call, "status": tool_statuses::COMPLETED,
                               "rawOutput": read_output(content)}),
                    )],
                    None => vec![send(failed("the client's answer has no content"))],
                },
                // A profile that describes its tool calls has said the diff already.
                (Job::Write { .. }, Some(Ok(_))) if told.get("content").is_some() => vec![send(told)],
                (Job::Write { path, content }, Some(Ok(_))) => {
                    let mut update = told;
                    update["content"] = json!([{"type": wire::tool_content::DIFF, "path": path, "oldText": null, "newText": content}]);
                    vec![send(update)]
                }
                (Job::Shell { .. }, Some(Ok(result))) => match result["terminalId"].as_str() {
                    Some(terminal) => {
                        shared.terminals.push((session.clone(), terminal.to_owned()));
                        shell(at, session, call, terminal.to_owned())
                    }
                    None => vec![send(failed("the client's answer has no terminalId"))],
                },
            }
        }));
        items
    })
}

/// A shell command in the client's terminal `terminal`, once made: the tool shows
/// it, the agent waits for the command's exit, reads its output, releases it, and
/// reports the exit.
fn shell(at: Duration, session: String, call: Value, terminal: String) -> Vec<Item> {
    let showing = json!({"sessionUpdate": updates::TOOL_CALL_UPDATE, "toolCallId": call, "status": tool_statuses::IN_PROGRESS, "content": [wire::terminal_content(&terminal)]});
    vec![
        Item::Ready(Step::Send {
            at,
            line: update_line(&session, &showing),
        }),
        Item::then(move |shared| {
            let wait = shared.next();
            let mut items: Vec<Item> = ask(
                at,
                wait,
                methods::TERMINAL_WAIT_FOR_EXIT,
                &wire::terminal(&session, &terminal),
            )
            .into();
            items.push(Item::then(move |shared| {
                let exited = take(shared, wait);
                let output = shared.next();
                let mut items: Vec<Item> = ask(
                    at,
                    output,
                    methods::TERMINAL_OUTPUT,
                    &wire::terminal(&session, &terminal),
                )
                .into();
                items.push(Item::then(move |shared| {
                    let read = take(shared, output);
                    let release = shared.next();
                    shared.terminals.retain(|(s, t)| (s, t) != (&session, &terminal));
                    let mut items: Vec<Item> = ask(
                        at,
                        release,
                        methods::TERMINAL_RELEASE,
                        &wire::terminal(&session, &terminal),
                    )
                    .into();
                    items.push(Item::then(move |shared| {
                        // What the release answers changes nothing: the command ran.
                        let _ = take(shared, release);
                        let update = ended(&call, exited, read);
                        vec![Item::Ready(Step::Send {
                            at,
                            line: update_line(&session, &update),
                        })]
                    }));
                    items
                }));
                items
            }));
            items
        }),
    ]
}

/// The `tool_call_update` of a shell command that ran in the client's terminal: its
/// exit status and output, `failed` for an exit other than 0 or an error answer.
fn ended(call: &Value, exited: Answered, read: Answered) -> Value {
    let error = |message: String| json!({"sessionUpdate": updates::TOOL_CALL_UPDATE, "toolCallId": call, "status": tool_statuses::FAILED, "rawOutput": {"error": message}});
    let exited = match exited {
        Some(Err(message)) => return error(message),
        Some(Ok(exited)) => exited,
        None => json!({"exitCode": 0}),
    };
    let output = match read {
        Some(Err(message)) => return error(message),
        Some(Ok(read)) => read["output"].as_str().unwrap_or_default().to_owned(),
        None => String::new(),
    };
    let code = exited["exitCode"].as_i64();
    let status = if code == Some(0) {
        tool_statuses::COMPLETED
    } else {
        tool_statuses::FAILED
    };
    json!({"sessionUpdate": updates::TOOL_CALL_UPDATE, "toolCallId": call, "status": status,
           "rawOutput": {"exitCode": code, "signal": exited["signal"], "stdout": output, "stderr": ""}})
}
