//! A [`Session`] told as `codex app-server` tells it, following the client: pure (no
//! clock, no I/O). The process hands the player each line the client writes
//! ([`Player::feed`]: the answers and notifications owed at once come back), and asks
//! it for the turn's next line when its clock says ([`Player::step`]): a notification
//! to write, a request to write and wait on ([`Next::Ask`]), or nothing until the
//! client answers ([`Next::Waiting`]).
//!
//! As 0.163.0 does (observed): no `"jsonrpc"` member on anything written, answers
//! `{"id":..,"result":..}` and `{"error":{"code","message"},"id":..}`, notifications
//! stamped `emittedAtMs`; `Not initialized` before `initialize`, `Already initialized`
//! after it, -32600 for an unknown method; a line that is not JSON gets no answer (a
//! stderr line); `thread/started` after `thread/start`'s answer; in a turn,
//! `thread/status/changed`, `turn/started`, the user message, the items, the usage,
//! `idle`, `turn/completed`. Under the `untrusted` policy a command or a patch that
//! asks is held until the client decides: `accept` runs it, `decline` ends the item
//! `declined` and the turn goes on, `cancel` ends the turn `interrupted`.

use std::collections::VecDeque;

use serde_json::{json, Value};

mod interrupt;
mod shapes;

// `codex app-server` as a dialect, on this player: what a careful client concludes
// (`expect`), its recordings (`recording`), its lint (`check`), its generated
// conversations (`generate`) and its registration (`dialect`).
pub mod check;
pub mod dialect;
pub mod expect;
#[cfg(feature = "generate")]
pub mod generate;
pub mod recording;

use shapes::{
    answer, call_ends, completed, error, info_of, model_calls, per_call, rate_limits, retry_info_of, to_line,
    token_usage, turn_json, Decision,
};

use super::exec::ending;
use super::session::{uuid_v7, Command, End, FileChange, Item, Session, Turn, Usage};
use super::wire::rpc::{
    codes, decisions, error_info, errors, items, methods, notifications, server_requests, status,
    thread_status, ENVIRONMENT_LOCAL, ITEMS_NOT_LOADED, ITEMS_SUMMARY, KIND_COMMAND, REVIEWER_USER, TEXT,
};
use super::wire::{policies, sandboxes, stderr, BUBBLEWRAP_WARNING, MODEL, PLATFORM, PROVIDER, VERSION};

/// How the server was started.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    /// `CODEX_HOME` (`codexHome`, the rollouts' folder).
    pub codex_home: String,
    /// The working folder (a thread's `cwd` unless `thread/start` gives one).
    pub cwd: String,
    /// The seed of every id.
    pub seed: u64,
    /// The time the server starts at (Unix milliseconds); [`Player::set_time`] moves it.
    pub start_ms: u64,
    /// The `configWarning` about bubblewrap after `initialized` (observed on Linux).
    pub bubblewrap_warning: bool,
    /// Threads kept from earlier processes: `thread/resume` finds them, with their
    /// usage and how many turns they had.
    pub known_threads: Vec<(String, Usage, usize)>,
    /// Every command and patch asks the client, whatever the thread's policy (the
    /// `approval` fault).
    pub asks_always: bool,
}

impl Options {
    /// The options of a server started in `cwd` with `CODEX_HOME` `codex_home`.
    pub fn new(codex_home: &str, cwd: &str, seed: u64) -> Self {
        Options {
            codex_home: codex_home.to_owned(),
            cwd: cwd.to_owned(),
            seed,
            start_ms: 1_795_783_086_516,
            bubblewrap_warning: true,
            known_threads: Vec::new(),
            asks_always: false,
        }
    }
}

/// What the player does next in the turn under way.
#[derive(Debug, Clone, PartialEq)]
pub enum Next {
    /// Write this line (without its newline).
    Send(Vec<u8>),
    /// Write this request and wait for the client's answer (fed back with
    /// [`Player::feed`]).
    Ask {
        /// The request's id (server request ids count from 0).
        id: i64,
        /// The line.
        line: Vec<u8>,
    },
    /// The answer to the last request has not come yet.
    Waiting,
    /// No turn is under way.
    Done,
}

/// What a client line gets at once.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Reply {
    /// Lines to write now, in order (answers, and the notifications that follow them).
    pub lines: Vec<Vec<u8>>,
    /// Lines for stderr.
    pub stderr: Vec<String>,
}

/// A thread the server holds.
#[derive(Debug, Clone)]
struct Thread {
    id: String,
    model: String,
    policy: String,
    sandbox: String,
    cwd: String,
    usage: Usage,
    turns: usize,
    /// When it was made (Unix seconds; `createdAt`).
    created_s: u64,
}

/// A turn's step still to tell.
#[derive(Debug, Clone)]
enum Step {
    /// A notification.
    Note(&'static str, Value),
    /// The held item `n`'s approval request.
    Ask(usize),
    /// What became of the held item `n`.
    Resolve(usize),
    /// A model call ended inside the turn: its usage and the rate limits.
    Usage,
    /// The turn's end.
    End,
}

/// The turn under way.
#[derive(Debug, Clone)]
struct Live {
    thread: usize,
    id: String,
    turn: Turn,
    started_s: u64,
    /// The items held for a decision: the item as started, and the decision.
    held: Vec<(Value, Item, Option<Decision>)>,
    /// The agent messages completed (`turn/completed`'s `items`).
    messages: Vec<Value>,
    /// The request waited on: its id and the held item.
    asked: Option<(i64, usize)>,
    /// The client interrupted the turn, or cancelled at an approval.
    interrupted: bool,
    /// The turn's usage, per model call (the last is the final call's).
    calls: Vec<Usage>,
    /// How many of `calls` were told (`thread/tokenUsage/updated`).
    told: usize,
    /// Lines stepped but never written (a stall the client interrupted), in order.
    unwritten: Vec<Value>,
    /// Interrupted once the model call under way had ended (at an approval): its
    /// usage is told.
    call_ended: bool,
}

/// Tells a [`Session`] over app-server's JSON-RPC.
#[derive(Debug, Clone)]
pub struct Player {
    session: Session,
    options: Options,
    rng: fastrand::Rng,
    now_ms: u64,
    /// The client's `clientInfo.name` and `version`, once initialized.
    client: Option<(String, String)>,
    threads: Vec<Thread>,
    queue: VecDeque<Step>,
    live: Option<Live>,
    next_request: i64,
    counter: usize,
}

impl Player {
    /// A server of `session`, started with `options`.
    pub fn new(session: Session, options: Options) -> Self {
        Player {
            rng: fastrand::Rng::with_seed(options.seed),
            now_ms: options.start_ms,
            session,
            options,
            client: None,
            threads: Vec::new(),
            queue: VecDeque::new(),
            live: None,
            next_request: 0,
            counter: 0,
        }
    }

    /// The clock moved: later lines are stamped `ms` (Unix milliseconds).
    pub fn set_time(&mut self, ms: u64) {
        self.now_ms = ms;
    }

    /// Whether a turn is under way.
    pub fn in_turn(&self) -> bool {
        self.live.is_some()
    }

    /// The id of the request the player waits on.
    pub fn waiting_for(&self) -> Option<i64> {
        self.live.as_ref().and_then(|l| l.asked.map(|(id, _)| id))
    }

    /// The threads this server started or resumed: their ids, usage and turns (for
    /// the process to keep).
    pub fn threads(&self) -> Vec<(String, Usage, usize)> {
        self.threads
            .iter()
            .map(|t| (t.id.clone(), t.usage, t.turns))
            .collect()
    }

    /// One line the client wrote (without its newline).
    pub fn feed(&mut self, line: &[u8]) -> Reply {
        let mut reply = Reply::default();
        let message: Value = match serde_json::from_slice(line) {
            Ok(value) => value,
            Err(e) => {
                reply.stderr.push(stderr::not_json_rpc(&e.to_string()));
                return reply;
            }
        };
        let method = message.get("method").and_then(Value::as_str);
        let id = message.get("id").cloned();
        match (method, id) {
            (Some(method), Some(id)) => {
                let params = message.get("params").cloned().unwrap_or(Value::Null);
                self.request(method, id, &params, &mut reply);
            }
            // `initialized` changes nothing: the server has said what it says after
            // the handshake already (observed: right after `initialize`'s answer).
            (Some(_), None) => {}
            (None, Some(id)) => self.answer(&id, &message),
            (None, None) => {}
        }
        reply
    }

    /// A request of the client's.
    fn request(&mut self, method: &str, id: Value, params: &Value, reply: &mut Reply) {
        if self.client.is_none() && method != methods::INITIALIZE {
            reply
                .lines
                .push(error(&id, codes::INVALID_REQUEST, errors::NOT_INITIALIZED));
            return;
        }
        let result = match method {
            methods::INITIALIZE => {
                let result = self.initialize(params);
                if let Ok(Some(result)) = result {
                    reply.lines.push(answer(&id, result));
                    self.after_initialized(reply);
                    return;
                }
                result
            }
            methods::THREAD_START => self.thread_start(params, &id, reply),
            methods::THREAD_RESUME => self.thread_resume(params),
            methods::TURN_START => self.turn_start(params, &id, reply),
            methods::TURN_INTERRUPT => {
                let mut lines = self.interrupt();
                // Observed (0.163.0): the answer after what ends the turn's items, the
                // rate limits and the read state; before `idle` and `turn/completed`.
                let at = if lines.is_empty() {
                    0
                } else {
                    lines.len().saturating_sub(2)
                };
                lines.insert(at, answer(&id, json!({})));
                reply.lines.extend(lines);
                return;
            }
            known if methods::ALL.contains(&known) => Err((
                codes::INTERNAL_ERROR,
                format!("mock-agent: `{known}` is not played by the stand-in"),
            )),
            unknown => Err((codes::INVALID_REQUEST, errors::unknown_method(unknown))),
        };
        match result {
            Ok(Some(result)) => reply.lines.insert(0, answer(&id, result)),
            Ok(None) => {}
            Err((code, message)) => reply.lines.push(error(&id, code, &message)),
        }
    }

    fn initialize(&mut self, params: &Value) -> Result<Option<Value>, (i64, String)> {
        if self.client.is_some() {
            return Err((codes::INVALID_REQUEST, errors::ALREADY_INITIALIZED.to_owned()));
        }
        let info = |key: &str| {
            params
                .pointer(&format!("/clientInfo/{key}"))
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned()
        };
        let (name, version) = (info("name"), info("version"));
        let agent = format!("{name}/{VERSION} ({PLATFORM}) unknown ({name}; {version})");
        self.client = Some((name, version));
        Ok(Some(
            json!({"userAgent": agent, "codexHome": self.options.codex_home,
            "platformFamily": "unix", "platformOs": "linux"}),
        ))
    }

    fn after_initialized(&mut self, reply: &mut Reply) {
        if self.options.bubblewrap_warning {
            let warning = self.note(
                notifications::CONFIG_WARNING,
                json!({"summary": BUBBLEWRAP_WARNING, "details": null}),
            );
            reply.lines.push(warning);
            reply.stderr.push(stderr::bubblewrap_error(self.now_ms));
        }
        let installation = self.uuid();
        let status = self.note(
            notifications::REMOTE_CONTROL_STATUS_CHANGED,
            json!({"status": "disabled", "serverName": "mock-agent", "installationId": installation,
                "environmentId": null}),
        );
        reply.lines.push(status);
    }

    fn thread_start(
        &mut self,
        params: &Value,
        id: &Value,
        reply: &mut Reply,
    ) -> Result<Option<Value>, (i64, String)> {
        let text = |key: &str| params.get(key).and_then(Value::as_str).map(str::to_owned);
        let thread = Thread {
            id: self.thread_id(),
            model: text("model").unwrap_or_else(|| MODEL.to_owned()),
            policy: text("approvalPolicy").unwrap_or_else(|| policies::ON_REQUEST.to_owned()),
            sandbox: text("sandbox").unwrap_or_else(|| sandboxes::WORKSPACE_WRITE.to_owned()),
            cwd: text("cwd").unwrap_or_else(|| self.options.cwd.clone()),
            usage: Usage::default(),
            turns: 0,
            created_s: self.now_ms / 1000,
        };
        self.threads.push(thread);
        let n = self.threads.len() - 1;
        let result = self.thread_result(n);
        reply.lines.push(answer(id, result));
        let started = self.note(
            notifications::THREAD_STARTED,
            json!({"thread": self.thread_json(n)}),
        );
        reply.lines.push(started);
        Ok(None)
    }

    fn thread_resume(&mut self, params: &Value) -> Result<Option<Value>, (i64, String)> {
        let id = params.get("threadId").and_then(Value::as_str).ok_or_else(|| {
            (
                codes::INVALID_REQUEST,
                errors::invalid_params("missing field `threadId`"),
            )
        })?;
        let n = match self.threads.iter().position(|t| t.id == id) {
            Some(n) => n,
            None => {
                let (_, usage, turns) = self
                    .options
                    .known_threads
                    .iter()
                    .find(|(known, ..)| known == id)
                    .cloned()
                    .ok_or_else(|| (codes::INVALID_REQUEST, super::wire::messages::no_rollout(id)))?;
                let text = |key: &str| params.get(key).and_then(Value::as_str).map(str::to_owned);
                self.threads.push(Thread {
                    id: id.to_owned(),
                    model: text("model").unwrap_or_else(|| MODEL.to_owned()),
                    policy: text("approvalPolicy").unwrap_or_else(|| policies::ON_REQUEST.to_owned()),
                    sandbox: text("sandbox").unwrap_or_else(|| sandboxes::WORKSPACE_WRITE.to_owned()),
                    cwd: text("cwd").unwrap_or_else(|| self.options.cwd.clone()),
                    usage,
                    turns,
                    created_s: self.now_ms / 1000,
                });
                self.threads.len() - 1
            }
        };
        Ok(Some(self.thread_result(n)))
    }

    /// `thread/start`'s and `thread/resume`'s result.
    fn thread_result(&mut self, n: usize) -> Value {
        let thread = &self.threads[n];
        let sandbox = match sandboxes::v2(&thread.sandbox) {
            kind @ sandboxes::V2_WORKSPACE_WRITE => json!({"type": kind, "writableRoots": [],
                "networkAccess": false, "excludeTmpdirEnvVar": false, "excludeSlashTmp": false}),
            kind => json!({"type": kind}),
        };
        // The keys in 0.163.0's order (observed by drift).
        json!({"thread": self.thread_json(n), "model": thread.model, "modelProvider": PROVIDER,
            "serviceTier": null, "disabledPluginIds": [], "cwd": thread.cwd, "runtimeWorkspaceRoots": [thread.cwd],
            "instructionSources": [], "approvalPolicy": thread.policy, "approvalsReviewer": REVIEWER_USER,
            "sandbox": sandbox, "activePermissionProfile": null, "reasoningEffort": null,
            "multiAgentMode": "explicitRequestOnly"})
    }

    fn thread_json(&self, n: usize) -> Value {
        let thread = &self.threads[n];
        let path = format!("{}/sessions/rollout-{}.jsonl", self.options.codex_home, thread.id);
        let originator = self.client.as_ref().map(|c| c.0.clone()).unwrap_or_default();
        // The keys in 0.163.0's order (observed by drift).
        let environment = json!({"environmentId": ENVIRONMENT_LOCAL, "cwd": thread.cwd, "runtimeWorkspaceRoots": [thread.cwd]});
        json!({"id": thread.id, "environments": [environment], "extra": null, "sessionId": thread.id,
            "forkedFromId": null, "parentThreadId": null, "preview": "", "ephemeral": false, "section": null,
            "sectionEnteredAt": null, "projectId": null, "historyMode": "paginated", "modelProvider": PROVIDER,
            "model": thread.model, "reasoningEffort": null, "createdAt": thread.created_s,
            "updatedAt": self.now_ms / 1000, "recencyAt": self.now_ms / 1000, "status": {"type": thread_status::IDLE},
            "path": path, "cwd": thread.cwd, "cliVersion": VERSION, "originator": originator, "source": "vscode",
            "canAcceptDirectInput": true, "threadSource": null, "agentNickname": null, "agentRole": null,
            "gitInfo": null, "name": null, "daybreakEnabled": null, "turns": []})
    }

    fn turn_start(
        &mut self,
        params: &Value,
        id: &Value,
        reply: &mut Reply,
    ) -> Result<Option<Value>, (i64, String)> {
        let thread_id = params.get("threadId").and_then(Value::as_str).ok_or_else(|| {
            (
                codes::INVALID_REQUEST,
                errors::invalid_params("missing field `threadId`"),
            )
        })?;
        check_uuid(thread_id)
            .map_err(|reason| (codes::INVALID_REQUEST, errors::invalid_thread_id(&reason)))?;
        let n = self
            .threads
            .iter()
            .position(|t| t.id == thread_id)
            .ok_or_else(|| (codes::INVALID_REQUEST, errors::thread_not_found(thread_id)))?;
        if self.live.is_some() {
            return Err((codes::INVALID_REQUEST, "a turn is already in progress".to_owned()));
        }
        let prompt: Vec<&str> = params
            .get("input")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter(|i| i.get("type").and_then(Value::as_str) == Some(TEXT))
            .filter_map(|i| i.get("text").and_then(Value::as_str))
            .collect();
        let prompt = prompt.join("\n\n");
        let turn = self.session.turn(self.threads[n].turns);
        self.threads[n].turns += 1;
        let turn_id = self.thread_id();
        let started_s = self.now_ms / 1000;
        let live = Live {
            thread: n,
            id: turn_id.clone(),
            turn: turn.clone(),
            started_s,
            held: Vec::new(),
            messages: Vec::new(),
            asked: None,
            interrupted: false,
            calls: per_call(turn.usage, model_calls(&turn.items)),
            told: 0,
            unwritten: Vec::new(),
            call_ended: false,
        };
        let result = json!({"turn": turn_json(&turn_id, Vec::new(), ITEMS_NOT_LOADED, status::IN_PROGRESS,
            Value::Null, None)});
        reply.lines.push(answer(id, result));
        self.live = Some(live);
        self.plan(&prompt, &turn);
        Ok(None)
    }

    /// The turn's steps.
    fn plan(&mut self, prompt: &str, turn: &Turn) {
        let Some(live) = self.live.as_ref() else {
            return;
        };
        let (thread, turn_id) = (self.threads[live.thread].clone(), live.id.clone());
        let mut steps = vec![
            Step::Note(
                notifications::THREAD_STATUS_CHANGED,
                json!({"threadId": thread.id, "status": {"type": thread_status::ACTIVE, "activeFlags": []}}),
            ),
            Step::Note(
                notifications::TURN_STARTED,
                json!({"threadId": thread.id, "turn": turn_json(&turn_id, Vec::new(), ITEMS_NOT_LOADED,
                    status::IN_PROGRESS, Value::Null, Some((live.started_s, None)))}),
            ),
        ];
        let user = json!({"type": items::USER_MESSAGE, "id": self.uuid(), "clientId": null,
            "content": [{"type": TEXT, "text": prompt, "text_elements": []}]});
        steps.push(self.item_note(notifications::ITEM_STARTED, &user));
        steps.push(self.item_note(notifications::ITEM_COMPLETED, &user));
        let untrusted = thread.policy == policies::UNTRUSTED;
        let mut held = Vec::new();
        let mut retry = 0;
        let ends = call_ends(&turn.items);
        for (n, item) in turn.items.iter().enumerate() {
            if let Item::Reconnect { reason, http_status } = item {
                retry += 1;
                let error = json!({"message": super::wire::messages::reconnecting_bare(retry),
                    "codexErrorInfo": {error_info::RESPONSE_STREAM_DISCONNECTED: {error_info::HTTP_STATUS_CODE: http_status}},
                    "additionalDetails": reason, "misalignment": null});
                steps.push(Step::Note(
                    notifications::ERROR,
                    json!({"error": error, "willRetry": true, "threadId": thread.id, "turnId": turn_id}),
                ));
                continue;
            }
            retry = 0;
            let Some(started) = self.v2_item(item, &thread.cwd) else {
                continue;
            };
            let asks = match item {
                Item::Command(Command { asks, .. }) | Item::FileChange(FileChange { asks, .. }) => {
                    (*asks && untrusted) || self.options.asks_always
                }
                _ => false,
            };
            if asks {
                steps.push(Step::Note(
                    notifications::THREAD_STATUS_CHANGED,
                    json!({"threadId": thread.id, "status": {"type": thread_status::ACTIVE,
                        "activeFlags": [thread_status::WAITING_ON_APPROVAL]}}),
                ));
                steps.push(self.item_note(notifications::ITEM_STARTED, &started));
                held.push((started, item.clone(), None));
                steps.push(Step::Ask(held.len() - 1));
                steps.push(Step::Resolve(held.len() - 1));
                if ends[n] {
                    steps.push(Step::Usage);
                }
                continue;
            }
            steps.push(self.item_note(notifications::ITEM_STARTED, &started));
            if let (Item::AgentMessage(text), Some(id)) = (item, started.get("id")) {
                steps.push(Step::Note(
                    notifications::AGENT_MESSAGE_DELTA,
                    json!({"threadId": thread.id, "turnId": turn_id, "itemId": id, "delta": text}),
                ));
            }
            let done = completed(&started, item, Decision::Accept);
            steps.push(self.item_note(notifications::ITEM_COMPLETED, &done));
            if ends[n] {
                steps.push(Step::Usage);
            }
        }
        steps.push(Step::End);
        if let Some(live) = self.live.as_mut() {
            live.held = held;
        }
        self.queue = steps.into();
    }

    /// An item's `item/started` or `item/completed` step.
    fn item_note(&self, method: &'static str, item: &Value) -> Step {
        let (thread, turn) = self.ids();
        let at = if method == notifications::ITEM_STARTED {
            "startedAtMs"
        } else {
            "completedAtMs"
        };
        Step::Note(
            method,
            json!({"item": item, "threadId": thread, "turnId": turn, at: self.now_ms}),
        )
    }

    /// An item as app-server starts it (`None`: not told here).
    fn v2_item(&mut self, item: &Item, cwd: &str) -> Option<Value> {
        self.counter += 1;
        shapes::started(item, self.counter, cwd)
    }

    /// The thread's and the turn's ids of the turn under way.
    fn ids(&self) -> (String, String) {
        match &self.live {
            Some(live) => (self.threads[live.thread].id.clone(), live.id.clone()),
            None => Default::default(),
        }
    }

    /// What to do next in the turn.
    pub fn step(&mut self) -> Next {
        if self.waiting_for().is_some() {
            return Next::Waiting;
        }
        let Some(step) = self.queue.pop_front() else {
            return Next::Done;
        };
        match step {
            Step::Note(method, params) => {
                if method == notifications::ITEM_COMPLETED
                    && params.pointer("/item/type").and_then(Value::as_str) == Some(items::AGENT_MESSAGE)
                {
                    if let Some(live) = self.live.as_mut() {
                        live.messages.push(params["item"].clone());
                    }
                }
                Next::Send(self.note(method, params))
            }
            Step::Ask(n) => self.ask(n),
            Step::Resolve(n) => self.resolve(n),
            Step::Usage => match self.live.as_mut() {
                Some(live) => {
                    let call = live.calls.get(live.told).copied().unwrap_or_default();
                    live.told += 1;
                    let (n, turn) = (live.thread, live.id.clone());
                    self.threads[n].usage += call;
                    self.queue.push_front(rate_limits());
                    let (thread, total) = (self.threads[n].id.clone(), self.threads[n].usage);
                    Next::Send(self.note(
                        notifications::TOKEN_USAGE_UPDATED,
                        token_usage(&thread, &turn, &total, &call),
                    ))
                }
                None => self.step(),
            },
            Step::End => {
                self.finish();
                self.step()
            }
        }
    }

    /// The held item `n`'s approval request.
    fn ask(&mut self, n: usize) -> Next {
        let (thread, turn) = self.ids();
        let Some(live) = self.live.as_mut() else {
            return Next::Done;
        };
        let (started, item, _) = &live.held[n];
        let item_id = started["id"].clone();
        let id = self.next_request;
        self.next_request += 1;
        let (method, params) = match item {
            Item::Command(command) => {
                let words = command.words();
                (
                    server_requests::COMMAND_APPROVAL,
                    json!({"kind": KIND_COMMAND, "threadId": thread, "turnId": turn, "itemId": item_id,
                        "startedAtMs": self.now_ms, "environmentId": ENVIRONMENT_LOCAL, "command": started["command"],
                        "cwd": started["cwd"], "commandActions": started["commandActions"],
                        "proposedExecpolicyAmendment": words, "availableDecisions": [decisions::ACCEPT,
                        {decisions::ACCEPT_WITH_EXECPOLICY_AMENDMENT: {"execpolicy_amendment": words}}, decisions::CANCEL]}),
                )
            }
            _ => (
                server_requests::FILE_CHANGE_APPROVAL,
                json!({"threadId": thread, "turnId": turn, "itemId": item_id, "startedAtMs": self.now_ms,
                    "reason": null, "grantRoot": null}),
            ),
        };
        live.asked = Some((id, n));
        Next::Ask {
            id,
            line: to_line(&json!({"method": method, "id": id, "params": params})),
        }
    }

    /// The client's answer to a request of the server's.
    fn answer(&mut self, id: &Value, message: &Value) {
        let Some(live) = self.live.as_mut() else {
            return;
        };
        let Some((asked, n)) = live.asked else {
            return;
        };
        if id.as_i64() != Some(asked) {
            return;
        }
        let decision = match message.pointer("/result/decision") {
            Some(Value::String(d)) if d == decisions::ACCEPT || d == decisions::ACCEPT_FOR_SESSION => {
                Decision::Accept
            }
            Some(Value::String(d)) if d == decisions::CANCEL => Decision::Cancel,
            Some(Value::Object(d))
                if d.contains_key(decisions::ACCEPT_WITH_EXECPOLICY_AMENDMENT)
                    || d.contains_key(decisions::APPLY_NETWORK_POLICY_AMENDMENT) =>
            {
                Decision::Accept
            }
            _ => Decision::Decline,
        };
        live.held[n].2 = Some(decision);
        live.asked = None;
    }

    /// What became of held item `n`: `serverRequest/resolved`, then the item's end.
    fn resolve(&mut self, n: usize) -> Next {
        let (thread, _) = self.ids();
        let Some(live) = self.live.as_ref() else {
            return Next::Done;
        };
        let (started, item, decision) = live.held[n].clone();
        let decision = decision.unwrap_or(Decision::Decline);
        let request = self.next_request - 1;
        let done = completed(&started, &item, decision);
        // The thread no longer waits on an approval (observed): an accepted command
        // runs once the thread is active again; a declined one ends first.
        let active = Step::Note(
            notifications::THREAD_STATUS_CHANGED,
            json!({"threadId": thread, "status": {"type": thread_status::ACTIVE, "activeFlags": []}}),
        );
        let ended = self.item_note(notifications::ITEM_COMPLETED, &done);
        let mut rest = if decision == Decision::Accept {
            vec![active, ended]
        } else {
            vec![ended, active]
        };
        if decision == Decision::Cancel {
            self.queue.clear();
            rest.push(Step::End);
            if let Some(live) = self.live.as_mut() {
                live.interrupted = true;
                live.call_ended = true;
            }
        }
        for step in rest.into_iter().rev() {
            self.queue.push_front(step);
        }
        Next::Send(self.note(
            notifications::SERVER_REQUEST_RESOLVED,
            json!({"threadId": thread, "requestId": request}),
        ))
    }

    /// The turn's end, queued: the usage, `idle` and `turn/completed`, or the
    /// failure's retries, `systemError`, `error` and a failed `turn/completed`.
    fn finish(&mut self) {
        let Some(live) = self.live.take() else {
            return;
        };
        let thread_id = self.threads[live.thread].id.clone();
        let mut notes: Vec<(&'static str, Value)> = Vec::new();
        let (state, error) = match &live.turn.end {
            _ if live.interrupted => {
                // Observed by drift (0.163.0): the usage of the model call that asked
                // for the approval, when it was cancelled (none for a call cut
                // short), and the rate limits.
                if live.call_ended {
                    let call = live.calls.get(live.told).copied().unwrap_or_default();
                    self.threads[live.thread].usage += call;
                    let total = self.threads[live.thread].usage;
                    notes.push((
                        notifications::TOKEN_USAGE_UPDATED,
                        token_usage(&thread_id, &live.id, &total, &call),
                    ));
                }
                if let Step::Note(method, params) = rate_limits() {
                    notes.push((method, params));
                }
                (status::INTERRUPTED, Value::Null)
            }
            End::Completed => {
                // The final model call's usage (the calls before it were told as they
                // ended).
                let mut last = Usage::default();
                for call in live.calls.iter().skip(live.told) {
                    last += *call;
                }
                self.threads[live.thread].usage += last;
                let total = self.threads[live.thread].usage;
                notes.push((
                    notifications::TOKEN_USAGE_UPDATED,
                    token_usage(&thread_id, &live.id, &total, &last),
                ));
                if let Step::Note(method, params) = rate_limits() {
                    notes.push((method, params));
                }
                (status::COMPLETED, Value::Null)
            }
            End::Failed(failure) => {
                let model = self.threads[live.thread].model.clone();
                let (message, retried, _) = ending(failure, &model);
                let error = json!({"message": message, "codexErrorInfo": info_of(failure), "additionalDetails": null,
                    "misalignment": null});
                if retried {
                    // Observed (401): `Reconnecting... n/5`, the status in the details.
                    for n in 1..=super::wire::messages::RETRIES {
                        let retry = json!({"message": format!("Reconnecting... {n}/{}", super::wire::messages::RETRIES),
                            "codexErrorInfo": retry_info_of(failure), "additionalDetails": message, "misalignment": null});
                        notes.push((
                            notifications::ERROR,
                            json!({"error": retry, "willRetry": true, "threadId": thread_id, "turnId": live.id}),
                        ));
                    }
                }
                notes.push((
                    notifications::THREAD_STATUS_CHANGED,
                    json!({"threadId": thread_id, "status": {"type": thread_status::SYSTEM_ERROR}}),
                ));
                notes.push((
                    notifications::ERROR,
                    json!({"error": error, "willRetry": false, "threadId": thread_id, "turnId": live.id}),
                ));
                (status::FAILED, error)
            }
        };
        // Observed by drift (0.163.0): the turn is unread once it ended, however.
        notes.push((
            notifications::READ_STATE_CHANGED,
            json!({"threadId": thread_id, "readState": {"firstUnread": {"type": "turn", "turnId": live.id},
                "revision": self.revision()}}),
        ));
        if state != status::FAILED {
            notes.push((
                notifications::THREAD_STATUS_CHANGED,
                json!({"threadId": thread_id, "status": {"type": thread_status::IDLE}}),
            ));
        }
        let done_s = self.now_ms / 1000;
        let duration = self.now_ms.saturating_sub(live.started_s * 1000);
        // Observed: an interrupted turn's items are not loaded.
        let (items, view) = if live.interrupted {
            (Vec::new(), ITEMS_NOT_LOADED)
        } else {
            (live.messages, ITEMS_SUMMARY)
        };
        let turn = turn_json(
            &live.id,
            items,
            view,
            state,
            error,
            Some((live.started_s, Some((done_s, duration)))),
        );
        notes.push((
            notifications::TURN_COMPLETED,
            json!({"threadId": thread_id, "turn": turn}),
        ));
        for (method, params) in notes.into_iter().rev() {
            self.queue.push_front(Step::Note(method, params));
        }
    }

    /// A notification line, stamped now.
    fn note(&self, method: &str, params: Value) -> Vec<u8> {
        to_line(&json!({"method": method, "params": params, "emittedAtMs": self.now_ms}))
    }

    fn uuid(&mut self) -> String {
        let mut bytes = [0u8; 16];
        self.rng.fill(&mut bytes);
        uuid::Builder::from_random_bytes(bytes).into_uuid().to_string()
    }

    /// A read state's revision: a UUID of the seed and the time, drawing nothing.
    fn revision(&self) -> String {
        let bits = (u128::from(self.options.seed) << 64) | u128::from(self.now_ms);
        uuid::Builder::from_random_bytes(bits.to_le_bytes())
            .into_uuid()
            .to_string()
    }

    fn thread_id(&mut self) -> String {
        uuid_v7(self.now_ms, &mut self.rng)
    }
}

/// Whether `id` reads as a UUID; `Err` is the parser's words.
fn check_uuid(id: &str) -> Result<(), String> {
    let body = id.strip_prefix("urn:uuid:").unwrap_or(id);
    if let Some((at, found)) = body
        .chars()
        .enumerate()
        .find(|(_, c)| !c.is_ascii_hexdigit() && *c != '-' && *c != '{' && *c != '}')
    {
        return Err(errors::invalid_character(found, at + 1 + id.len() - body.len()));
    }
    uuid::Uuid::parse_str(id).map(|_| ()).map_err(|e| e.to_string())
}
