//! A [`Session`] told as Claude Code's lines, turn by turn, answering the client: the
//! player is pure (no clock, no I/O). The process asks it for the next line, writes
//! it when its clock says, and hands it the client's answers to the CLI's requests.
//!
//! Per turn, as the real CLI (2.1.331, observed with both SDKs): `session_state_changed
//! running` (for SDK hosts), `system/init`, with `--include-partial-messages` a
//! `status requesting` and the stream events around each block; one `assistant` line
//! per content block, blocks of one API message sharing `message.id`; before a tool
//! that asks, `requires_action` and a `can_use_tool` request (with `--permission-prompt-tool
//! stdio`; without it the call is denied at once); the tool's result as a `user` line;
//! the `result`; `idle`.

use std::collections::VecDeque;

use serde_json::{json, Value};

use super::session::{End, Session, Step, ToolCall, Turn};

mod cut;
mod hooks;
pub mod partial;
use cut::CONNECTION_FAILED;
pub use cut::RESUME;
pub use hooks::{Hook, POST_TOOL_USE, PRE_TOOL_USE};

use super::wire::{behaviors, blocks, control, results, states, system, types, INTERRUPTED, VERSION};

/// How the CLI was started: what its lines say.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    /// The session's id (`--session-id`, else made from the seed).
    pub session_id: String,
    /// The model (`--model`, else [`super::wire::MODEL`]).
    pub model: String,
    /// The working folder.
    pub cwd: String,
    /// The permission mode (`--permission-mode`, `set_permission_mode`).
    pub permission_mode: String,
    /// `--permission-prompt-tool stdio`: tools that ask send `can_use_tool`.
    pub prompt_tool: bool,
    /// `--include-partial-messages`: stream events around each block.
    pub partial: bool,
    /// `CLAUDE_CODE_SDK_READS_SESSION_STATE`: `session_state_changed` lines.
    pub states: bool,
    /// `--max-turns`: API round trips a turn may take.
    pub max_turns: Option<u32>,
    /// `--tools`: the only tools the model has (`init` lists them); all without it.
    pub tools: Option<Vec<String>>,
    /// The seed of every id (`uuid`, message and tool ids).
    pub seed: u64,
}

impl Options {
    /// The options of a CLI started with nothing but the SDK's argv.
    pub fn new(cwd: &str, seed: u64) -> Self {
        let mut ids = Ids::new(seed ^ 0x5e55_1011);
        Options {
            session_id: ids.uuid(),
            model: super::wire::MODEL.to_owned(),
            cwd: cwd.to_owned(),
            permission_mode: "default".to_owned(),
            prompt_tool: false,
            partial: false,
            states: false,
            max_turns: None,
            tools: None,
            seed,
        }
    }
}

/// What the player does next.
#[derive(Debug, Clone, PartialEq)]
pub enum Next {
    /// Write this line (without its newline).
    Send(Vec<u8>),
    /// Write this request (`can_use_tool`, `hook_callback`) and wait for its answer,
    /// handed over with [`Player::answer`].
    Ask {
        /// The request's `request_id`.
        id: String,
        /// The line.
        line: Vec<u8>,
    },
    /// The answer to the last request has not come yet.
    Waiting,
    /// The turn is over (or none was begun).
    Done,
}

/// Deterministic ids from a seed.
#[derive(Debug, Clone)]
struct Ids(fastrand::Rng);

impl Ids {
    fn new(seed: u64) -> Self {
        Ids(fastrand::Rng::with_seed(seed))
    }

    fn uuid(&mut self) -> String {
        let mut bytes = [0u8; 16];
        self.0.fill(&mut bytes);
        uuid::Builder::from_random_bytes(bytes).into_uuid().to_string()
    }

    /// `msg_01` / `toolu_01` and 22 letters and digits, as the API's ids.
    fn api(&mut self, prefix: &str) -> String {
        const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
        let tail: String = (0..22)
            .map(|_| ALPHABET[self.0.usize(..ALPHABET.len())] as char)
            .collect();
        format!("{prefix}_01{tail}")
    }
}

/// The tools the CLI has, as `init` lists them.
pub const TOOLS: &[&str] = &[
    "Task",
    "Bash",
    "Glob",
    "Grep",
    "Read",
    "Edit",
    "Write",
    "WebFetch",
    "TodoWrite",
];

/// What is still to tell of the turn under way.
#[derive(Debug, Clone, PartialEq)]
enum Item {
    Line(Value),
    /// Ask the client about tool `n` (its `can_use_tool`, or a hook before it).
    Hook(usize, String),
    /// Call the client's `PostToolUse` hook about tool `n`, if it ran.
    PostHook(usize, String),
    Ask(usize),
    /// Send tool `n`'s `can_use_tool` now.
    Request(usize),
    /// The tool's result, as the answers decided.
    Result(usize),
    /// The turn's `result`.
    End,
    /// `idle`, after the result.
    Idle,
}

/// What a request the player waits on asks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Asked {
    /// `can_use_tool`.
    Permission,
    /// A `PreToolUse` hook: its answer may allow or deny the call.
    Hook,
    /// A `PostToolUse` hook: its answer changes nothing here.
    PostHook,
}

/// What became of a tool call.
#[derive(Debug, Clone, PartialEq)]
enum Decision {
    Allow,
    Deny { message: String, interrupt: bool },
}

/// A call of the turn under way.
#[derive(Debug, Clone)]
struct Call {
    tool: ToolCall,
    id: String,
    decision: Option<Decision>,
}

/// Tells a [`Session`], turn by turn.
#[derive(Debug, Clone)]
pub struct Player {
    session: Session,
    /// The options; `permission_mode` and `model` change as the client asks.
    pub options: Options,
    hooks: Vec<Hook>,
    ids: Ids,
    played: usize,
    cost: f64,
    queue: VecDeque<Item>,
    calls: Vec<Call>,
    /// The request waited for: its id, the call it is about, and what it asks.
    asked: Option<(String, usize, Asked)>,
    turn: Option<Turn>,
    api_turns: u32,
    /// The API messages told so far in the turn (their count, the last one's id): an
    /// interrupted turn's `num_turns`.
    told: (u32, Value),
    denials: Vec<Value>,
    last_error: bool,
    interrupted: bool,
    /// `--max-turns` cut the turn under way.
    limited: bool,
}

impl Player {
    /// A player of `session`, started with `options`.
    pub fn new(session: Session, options: Options) -> Self {
        Player {
            ids: Ids::new(options.seed),
            session,
            options,
            hooks: Vec::new(),
            played: 0,
            cost: 0.0,
            queue: VecDeque::new(),
            calls: Vec::new(),
            asked: None,
            turn: None,
            api_turns: 0,
            told: (0, Value::Null),
            denials: Vec::new(),
            last_error: false,
            interrupted: false,
            limited: false,
        }
    }

    /// The hooks the client registered.
    pub fn set_hooks(&mut self, hooks: Vec<Hook>) {
        self.hooks = hooks;
    }

    /// Whether the last turn's result was an error (the process then exits 1).
    pub fn last_is_error(&self) -> bool {
        self.last_error
    }

    /// Whether a turn is under way.
    pub fn in_turn(&self) -> bool {
        !self.queue.is_empty()
    }

    /// Begins the next turn, for the prompt `prompt`.
    pub fn begin(&mut self, prompt: &str) {
        let _ = prompt;
        let index = self.played.min(self.session.turns.len().saturating_sub(1));
        let turn = self.session.turns.get(index).cloned().unwrap_or(Turn {
            steps: Vec::new(),
            end: End::Success,
        });
        self.played += 1;
        self.calls.clear();
        self.denials.clear();
        self.api_turns = 0;
        self.told = (0, Value::Null);
        self.interrupted = false;
        self.limited = false;
        self.queue.clear();
        if self.options.states {
            let line = self.state(states::RUNNING);
            self.queue.push_back(Item::Line(line));
        }
        let init = self.init();
        self.queue.push_back(Item::Line(init));
        self.requesting();
        self.plan(&turn);
        self.turn = Some(turn);
    }

    /// With `--include-partial-messages`, the `status` `requesting` line before each
    /// request of the model.
    fn requesting(&mut self) {
        if self.options.partial {
            let line = json!({"type": types::SYSTEM, "subtype": system::STATUS, "status": "requesting",
                "uuid": self.ids.uuid(), "session_id": self.options.session_id});
            self.queue.push_back(Item::Line(line));
        }
    }

    /// The whole turn's items: messages split at tool calls.
    fn plan(&mut self, turn: &Turn) {
        let mut message: Vec<Value> = Vec::new();
        let mut steps = turn.steps.iter().peekable();
        while let Some(step) = steps.next() {
            match step {
                Step::Text(text) => message.push(json!({"type": blocks::TEXT, "text": text})),
                Step::Thinking(thinking) => message
                    .push(json!({"type": blocks::THINKING, "thinking": thinking,
                    "signature": format!("sig{}", self.ids.api("")) })),
                Step::Unknown(line) => {
                    self.flush_message(&mut message, Some("end_turn"));
                    // Every line of the CLI's names its session and has its own id.
                    let mut line = line.clone();
                    if let Some(object) = line.as_object_mut() {
                        object.entry("uuid").or_insert_with(|| json!(self.ids.uuid()));
                        object
                            .entry("session_id")
                            .or_insert_with(|| json!(self.options.session_id));
                    }
                    self.queue.push_back(Item::Line(line));
                }
                Step::Tool(tool) => {
                    let id = self.ids.api("toolu");
                    message.push(
                        json!({"type": blocks::TOOL_USE, "id": id, "name": tool.name, "input": tool.input}),
                    );
                    self.flush_message(&mut message, Some("tool_use"));
                    let n = self.calls.len();
                    self.calls.push(Call {
                        tool: tool.clone(),
                        id,
                        decision: None,
                    });
                    for hook in self.hooks.iter().filter(|h| h.takes(PRE_TOOL_USE, &tool.name)) {
                        self.queue.push_back(Item::Hook(n, hook.callback.clone()));
                    }
                    self.queue.push_back(Item::Ask(n));
                    for hook in self.hooks.iter().filter(|h| h.takes(POST_TOOL_USE, &tool.name)) {
                        self.queue.push_back(Item::PostHook(n, hook.callback.clone()));
                    }
                    self.queue.push_back(Item::Result(n));
                    if self.options.max_turns.is_some_and(|max| self.api_turns >= max)
                        && steps.peek().is_some()
                    {
                        self.limited = true;
                        break;
                    }
                }
            }
        }
        if self.limited {
            self.queue.push_back(Item::End);
        } else {
            match turn.end {
                // A stream cut mid-answer: the answer so far, retried.
                End::ApiError { status: 0, .. } => self.cut(std::mem::take(&mut message)),
                End::ApiError { .. } => message.clear(),
                _ => {}
            }
            self.flush_message(&mut message, Some("end_turn"));
            if let End::ApiError { text, error, status } = &turn.end {
                let line = self.synthetic(text, error, *status);
                self.queue.push_back(Item::Line(line));
            }
            self.queue.push_back(Item::End);
        }
        if self.options.states {
            self.queue.push_back(Item::Idle);
        }
    }

    /// Ends the API message of `blocks`: its stream events and one `assistant` line a
    /// block, all with one `message.id`.
    /// `stop_reason: None`: the stream was cut before its `message_delta` (the CLI
    /// still ends the blocks and the message: see `cut`).
    pub(super) fn flush_message(&mut self, blocks: &mut Vec<Value>, stop_reason: Option<&str>) {
        if blocks.is_empty() {
            return;
        }
        self.api_turns += 1;
        let id = self.ids.api("msg");
        let usage = json!({"input_tokens": 12, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": 1});
        if self.options.partial {
            let start = partial::message_start(&id, &json!(self.options.model), &usage);
            self.push_event(start, &id);
        }
        let mut output_tokens = 0;
        for (index, block) in std::mem::take(blocks).into_iter().enumerate() {
            output_tokens += partial::tokens(&block);
            if self.options.partial {
                self.block_events(index, &block, &id);
            }
            let line = json!({"type": types::ASSISTANT, "message": {"id": id, "type": "message", "role": "assistant",
                "model": self.options.model, "content": [block], "stop_reason": null, "stop_sequence": null,
                "usage": usage, "context_management": null},
                "parent_tool_use_id": null, "session_id": self.options.session_id, "uuid": self.ids.uuid()});
            self.queue.push_back(Item::Line(line));
            if self.options.partial {
                self.push_event(partial::block_stop(index), &id);
            }
        }
        if self.options.partial {
            for event in partial::message_end(stop_reason, output_tokens) {
                self.push_event(event, &id);
            }
        }
    }

    /// A block's stream events before its `assistant` line (see [`partial`]).
    fn block_events(&mut self, index: usize, block: &Value, id: &str) {
        for event in partial::block_events(index, block) {
            self.push_event(event, id);
        }
    }

    fn push_event(&mut self, event: Value, message: &str) {
        let uuid = self.ids.uuid();
        let line = partial::event_line(event, &json!(self.options.session_id), uuid, message);
        self.queue.push_back(Item::Line(line));
    }

    fn state(&mut self, state: &str) -> Value {
        json!({"type": types::SYSTEM, "subtype": system::SESSION_STATE_CHANGED, "state": state,
            "sdk_host_only": true, "uuid": self.ids.uuid(), "session_id": self.options.session_id})
    }

    /// `system/init`, which opens every turn (its `tools`: [`TOOLS`], or those of them
    /// `--tools` names).
    fn init(&mut self) -> Value {
        json!({"type": types::SYSTEM, "subtype": system::INIT, "cwd": self.options.cwd,
            "session_id": self.options.session_id,
            "tools": TOOLS.iter().filter(|t| self.options.tools.as_ref().is_none_or(|only| only.iter().any(|o| o == *t))).collect::<Vec<_>>(),
            "mcp_servers": [], "model": self.options.model, "permissionMode": self.options.permission_mode,
            "slash_commands": ["compact", "review"], "apiKeySource": "none", "claude_code_version": VERSION,
            "output_style": "default", "agents": ["general-purpose"], "skills": [], "plugins": [],
            "uuid": self.ids.uuid(), "fast_mode_state": "off"})
    }

    /// What to do next.
    pub fn step(&mut self) -> Next {
        if self.asked.is_some() {
            return Next::Waiting;
        }
        let Some(item) = self.queue.pop_front() else {
            return Next::Done;
        };
        match item {
            Item::Line(value) => {
                if value["type"] == types::ASSISTANT && value["message"]["id"] != self.told.1 {
                    self.told = (self.told.0 + 1, value["message"]["id"].clone());
                }
                Next::Send(to_line(&value))
            }
            Item::Idle => {
                let line = self.state(states::IDLE);
                Next::Send(to_line(&line))
            }
            Item::Hook(n, callback) => {
                if self.calls[n].decision.is_some() {
                    return self.step();
                }
                self.call_hook(n, &callback, PRE_TOOL_USE)
            }
            Item::PostHook(n, callback) => {
                if self.calls[n].decision != Some(Decision::Allow) {
                    return self.step();
                }
                self.call_hook(n, &callback, POST_TOOL_USE)
            }
            Item::Ask(n) => self.ask(n),
            Item::Request(n) => self.request(n),
            Item::Result(n) => Next::Send(self.tool_result(n)),
            Item::End => Next::Send(self.result()),
        }
    }

    /// Calls the client's hook `callback` at `event` about tool `n`.
    fn call_hook(&mut self, n: usize, callback: &str, event: &str) -> Next {
        let call = &self.calls[n];
        let id = self.ids.uuid();
        let post = event == POST_TOOL_USE;
        let response = post.then(|| json!({"type": "text", "content": call.tool.output}));
        let about = (call.tool.name.as_str(), &call.tool.input, call.id.as_str());
        let line = hooks::callback_request(&self.options, &id, callback, event, about, response.as_ref());
        self.asked = Some((id.clone(), n, if post { Asked::PostHook } else { Asked::Hook }));
        Next::Ask {
            id,
            line: to_line(&line),
        }
    }

    /// The permission step of tool `n`: allowed or denied at once, or asked.
    fn ask(&mut self, n: usize) -> Next {
        let call = &self.calls[n];
        if call.decision.is_some() || !call.tool.asks {
            self.calls[n].decision.get_or_insert(Decision::Allow);
            return self.step();
        }
        let edits = matches!(
            call.tool.name.as_str(),
            "Write" | "Edit" | "MultiEdit" | "NotebookEdit"
        );
        match self.options.permission_mode.as_str() {
            "bypassPermissions" => self.calls[n].decision = Some(Decision::Allow),
            "acceptEdits" if edits => self.calls[n].decision = Some(Decision::Allow),
            _ if self.options.prompt_tool => {
                if self.options.states {
                    let state = self.state(states::REQUIRES_ACTION);
                    self.queue.push_front(Item::Request(n));
                    return Next::Send(to_line(&state));
                }
                return self.request(n);
            }
            _ => {
                let what = match call.tool.input.get("file_path").and_then(Value::as_str) {
                    Some(path) => format!("write to {path}"),
                    None => format!("use {}", call.tool.name),
                };
                self.calls[n].decision = Some(Decision::Deny {
                    message: format!(
                        "Claude requested permissions to {what}, but you haven't granted it yet."
                    ),
                    interrupt: false,
                });
            }
        }
        self.step()
    }
}

impl Player {
    /// Sends tool `n`'s `can_use_tool` request.
    fn request(&mut self, n: usize) -> Next {
        let call = &self.calls[n];
        let id = self.ids.uuid();
        let path = call
            .tool
            .input
            .get("file_path")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let description = path.rsplit('/').next().unwrap_or_default();
        let line = json!({"type": types::CONTROL_REQUEST, "request_id": id, "request": {
            "subtype": control::CAN_USE_TOOL, "tool_name": call.tool.name, "display_name": call.tool.name,
            "input": call.tool.input, "description": description,
            "permission_suggestions": [{"type": "setMode", "mode": "acceptEdits", "destination": "session"}],
            "tool_use_id": call.id}});
        self.asked = Some((id.clone(), n, Asked::Permission));
        Next::Ask {
            id,
            line: to_line(&line),
        }
    }

    /// The id of the request the player waits for an answer to.
    pub fn waiting_for(&self) -> Option<&str> {
        self.asked.as_ref().map(|(id, ..)| id.as_str())
    }

    /// The client answered the request the player waits for: `Ok` with the
    /// `response` of a success, `Err` with the text of an error answer. A `deny` with
    /// `interrupt: true` ends the turn; an error answer denies the call with its text.
    pub fn answer(&mut self, answer: Result<Value, String>) {
        let Some((_, n, asked)) = self.asked.take() else {
            return;
        };
        // A `PostToolUse` hook's answer is for the model, which the session scripts.
        if asked == Asked::PostHook {
            return;
        }
        let hook = asked == Asked::Hook;
        let decision = match (hook, answer) {
            (true, Ok(output)) => match output
                .pointer("/hookSpecificOutput/permissionDecision")
                .and_then(Value::as_str)
            {
                Some("allow") => Some(Decision::Allow),
                Some("deny") => Some(Decision::Deny {
                    message: output
                        .pointer("/hookSpecificOutput/permissionDecisionReason")
                        .and_then(Value::as_str)
                        .unwrap_or("Denied by a PreToolUse hook")
                        .to_owned(),
                    interrupt: false,
                }),
                _ => None,
            },
            (true, Err(_)) => None,
            (false, Ok(response)) => Some(match response.get("behavior").and_then(Value::as_str) {
                Some(behaviors::ALLOW) => {
                    if let Some(input) = response.get("updatedInput").filter(|i| i.is_object()) {
                        // The tool runs on the input the client gave: a new path shows
                        // in its output (`File created successfully at: PATH`).
                        let tool = &mut self.calls[n].tool;
                        let path =
                            |input: &Value| input.get("file_path").and_then(Value::as_str).map(str::to_owned);
                        if let (Some(old), Some(new)) = (path(&tool.input), path(input)) {
                            tool.output = tool.output.replace(&old, &new);
                        }
                        tool.input = input.clone();
                    }
                    Decision::Allow
                }
                _ => Decision::Deny {
                    message: response
                        .get("message")
                        .and_then(Value::as_str)
                        .unwrap_or("Permission denied")
                        .to_owned(),
                    interrupt: response
                        .get("interrupt")
                        .and_then(Value::as_bool)
                        .unwrap_or(false),
                },
            }),
            (false, Err(text)) => Some(Decision::Deny {
                message: text,
                interrupt: false,
            }),
        };
        if !hook && self.options.states {
            let state = self.state(states::RUNNING);
            self.queue.push_front(Item::Line(state));
        }
        if let Some(decision) = decision {
            self.calls[n].decision = Some(decision);
        }
    }

    /// The client interrupted the turn: what is left of it is not told; the
    /// interrupt's `user` line and an `error_during_execution` result are. Nothing when
    /// no turn is under way.
    pub fn interrupt(&mut self) -> Vec<Vec<u8>> {
        if self.queue.is_empty() && self.asked.is_none() {
            return Vec::new();
        }
        self.interrupt_held()
    }

    /// The client interrupted the turn while its last told line was held back (the
    /// model's stream stalled before it): the turn ends interrupted, as
    /// [`Player::interrupt`] ends one with lines still to tell.
    pub fn interrupt_held(&mut self) -> Vec<Vec<u8>> {
        self.asked = None;
        self.queue.clear();
        self.interrupted = true;
        let marker = json!({"type": types::USER, "message": {"role": "user", "content": [{"type": blocks::TEXT, "text": INTERRUPTED}]},
            "parent_tool_use_id": null, "session_id": self.options.session_id, "uuid": self.ids.uuid()});
        let mut lines = vec![to_line(&marker), self.result()];
        if self.options.states {
            let idle = self.state(states::IDLE);
            lines.push(to_line(&idle));
        }
        lines
    }

    /// Tool `n`'s result: its output, or the denial.
    fn tool_result(&mut self, n: usize) -> Vec<u8> {
        let call = &self.calls[n];
        let (content, is_error, structured, decision) = match &call.decision {
            Some(Decision::Deny { message, interrupt }) => {
                if *interrupt {
                    self.queue.retain(|i| matches!(i, Item::Idle));
                    self.queue.push_front(Item::End);
                    self.interrupted = true;
                }
                (
                    message.clone(),
                    true,
                    json!(format!("Error: {message}")),
                    json!({"decision": "reject", "source": "user_reject"}),
                )
            }
            _ => (
                call.tool.output.clone(),
                false,
                json!({"type": "text", "content": call.tool.output}),
                json!({"decision": "accept", "source": "user_temporary"}),
            ),
        };
        if is_error {
            self.denials.push(
                json!({"tool_name": call.tool.name, "tool_use_id": call.id, "tool_input": call.tool.input}),
            );
        }
        let mut result = json!({"tool_use_id": call.id, "type": blocks::TOOL_RESULT, "content": content});
        if is_error {
            result["is_error"] = json!(true);
        }
        let line = json!({"type": types::USER, "message": {"role": "user", "content": [result]},
            "parent_tool_use_id": null, "session_id": self.options.session_id, "uuid": self.ids.uuid(),
            "tool_use_result": structured, "tool_result_meta": [{"id": call.id, "permission_decision": decision}]});
        to_line(&line)
    }

    /// The turn's `result`.
    fn result(&mut self) -> Vec<u8> {
        let turn = self.turn.clone().unwrap_or(Turn {
            steps: Vec::new(),
            end: End::Success,
        });
        // An interrupted turn counts the round trips made, not the ones planned.
        let turns = if self.interrupted {
            self.told.0
        } else {
            self.api_turns
        }
        .max(1);
        let cost = 0.0009 * f64::from(turns);
        self.cost += cost;
        let total = (self.cost * 1e6).round() / 1e6;
        let usage = json!({"input_tokens": 12 * turns, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0,
            "output_tokens": 20 * turns, "server_tool_use": {"web_search_requests": 0, "web_fetch_requests": 0},
            "service_tier": "standard"});
        let model_usage = json!({self.options.model.clone(): {"inputTokens": 12 * turns, "outputTokens": 20 * turns,
            "cacheReadInputTokens": 0, "cacheCreationInputTokens": 0, "webSearchRequests": 0, "costUSD": cost,
            "contextWindow": 200_000, "maxOutputTokens": 64_000}});
        let (subtype, is_error, result, errors, stop, terminal, api_status) = if self.interrupted {
            (
                results::ERROR_DURING_EXECUTION,
                true,
                None,
                Some(vec![INTERRUPTED.to_owned()]),
                "end_turn",
                "aborted_streaming",
                None,
            )
        } else if self.limited {
            let max = self.options.max_turns.unwrap_or_default();
            (
                results::ERROR_MAX_TURNS,
                true,
                None,
                Some(vec![format!("Reached maximum number of turns ({max})")]),
                "tool_use",
                "max_turns",
                None,
            )
        } else {
            match &turn.end {
                End::Success => (
                    results::SUCCESS,
                    false,
                    Some(turn.answer()),
                    None,
                    "end_turn",
                    "completed",
                    None,
                ),
                End::ApiError { status, text, .. } => (
                    results::SUCCESS,
                    true,
                    Some(text.clone()),
                    None,
                    "stop_sequence",
                    "api_error",
                    (*status != 0).then_some(*status),
                ),
                End::Error { subtype, errors } => {
                    let subtype = results::ALL
                        .iter()
                        .find(|s| *s == subtype)
                        .copied()
                        .unwrap_or(results::ERROR_DURING_EXECUTION);
                    (
                        subtype,
                        true,
                        None,
                        Some(errors.clone()),
                        "end_turn",
                        "error",
                        None,
                    )
                }
            }
        };
        self.last_error = is_error;
        let mut line = json!({"type": types::RESULT, "subtype": subtype, "is_error": is_error,
            "duration_ms": 1200 * turns, "duration_api_ms": 900 * turns, "num_turns": turns});
        if let Some(result) = result {
            line["result"] = json!(result);
        }
        if let Some(errors) = errors {
            line["errors"] = json!(errors);
        }
        for (key, value) in [
            ("stop_reason", json!(stop)),
            ("session_id", json!(self.options.session_id)),
            ("total_cost_usd", json!(total)),
            ("usage", usage),
            ("modelUsage", model_usage),
            ("permission_denials", json!(self.denials)),
            ("terminal_reason", json!(terminal)),
            ("api_error_status", json!(api_status)),
            ("uuid", json!(self.ids.uuid())),
        ] {
            line[key] = value;
        }
        if matches!(&turn.end, End::ApiError { status: 0, .. }) {
            line["api_error"] = json!(CONNECTION_FAILED);
        }
        to_line(&line)
    }
}

/// The CLI's answer to `initialize` (its `response`), for the process `pid`.
pub fn initialized(options: &Options, pid: u32) -> Value {
    json!({
        "commands": [{"name": "compact", "description": "Clear conversation history but keep a summary in context", "argumentHint": ""},
                     {"name": "review", "description": "Review a pull request", "argumentHint": ""}],
        "agents": [{"name": "general-purpose", "description": "General-purpose agent for researching complex questions"}],
        "output_style": "default",
        "available_output_styles": ["default"],
        "models": [{"value": "default", "resolvedModel": options.model, "displayName": "Default (recommended)",
                    "description": "The model mock-agent plays"}],
        "account": {"tokenSource": "none", "apiKeySource": "ANTHROPIC_API_KEY", "apiProvider": "firstParty"},
        "pid": pid,
        "claude_code_version": VERSION,
        "current_permission_mode": options.permission_mode,
        "hook_on_failure_supported": true,
        "fast_mode_state": "off",
        "session_state": "idle",
    })
}

/// A control response of success to `id`, with `response` (a line of either side).
pub fn success(id: &Value, response: Value) -> Vec<u8> {
    to_line(&json!({"type": types::CONTROL_RESPONSE, "response": {
        "subtype": control::SUCCESS, "request_id": id, "response": response}}))
}

/// The client's `initialize` request, as the Python SDK writes it (without hooks).
pub fn initialize_request(id: &str) -> Vec<u8> {
    to_line(&json!({"type": types::CONTROL_REQUEST, "request_id": id,
        "request": {"subtype": control::INITIALIZE, "hooks": null}}))
}

/// The client's user message: a turn's prompt.
pub fn user_message(prompt: &str) -> Vec<u8> {
    to_line(
        &json!({"type": types::USER, "session_id": "", "message": {"role": "user", "content": prompt},
        "parent_tool_use_id": null}),
    )
}

/// A line that starts as an assistant message and is not JSON (`malformed`).
pub fn malformed_line() -> Vec<u8> {
    br#"{"type":"assistant","message":{"id":"msg_01","content":[{"type":"text","#.to_vec()
}

/// A line of a type no SDK knows (`unknown`), as a later CLI may add one, of session
/// `session_id`: with the `uuid` and `session_id` every line of the CLI's has. (Not
/// `rate_limit_event`: the Python SDK knows that one, and hands it on.)
pub fn unknown_line(session_id: &str) -> Vec<u8> {
    to_line(
        &json!({"type": super::wire::UNKNOWN_TYPE, "forecast": {"tokens_left": 12_000, "window": "five_hour"},
        "uuid": "00000000-0000-4000-8000-000000000001", "session_id": session_id}),
    )
}

/// An assistant text line of `bytes` bytes (`huge`; at least the empty message's).
pub fn huge_line(bytes: usize) -> Vec<u8> {
    let mut frame = json!({"type": types::ASSISTANT, "message": {"id": "msg_01huge", "type": "message",
        "role": "assistant", "model": super::wire::MODEL, "content": [{"type": blocks::TEXT, "text": ""}],
        "stop_reason": null, "stop_sequence": null, "usage": {"input_tokens": 0, "output_tokens": 0}},
        "parent_tool_use_id": null, "session_id": "", "uuid": "00000000-0000-4000-8000-000000000002"});
    let empty = to_line(&frame).len();
    frame["message"]["content"][0]["text"] = json!("x".repeat(bytes.saturating_sub(empty)));
    to_line(&frame)
}

/// The start of a result, for `eof` at the end of a run.
pub fn cut_result() -> Vec<u8> {
    to_line(&json!({"type": types::RESULT, "subtype": results::SUCCESS}))
}

fn to_line(value: &Value) -> Vec<u8> {
    serde_json::to_vec(value).unwrap_or_default()
}
