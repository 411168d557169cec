//! A plan made into messages, by the protocol's state machine.

use serde_json::{json, Value};

use super::config::{ConversationConfig, MIN_MESSAGES};
use super::plan::*;
use super::transcript::{Direction, Exchange, Transcript};
use crate::acp::profile::{Commands, LoadAnswer, Profile, ToolShape};
use crate::acp::rpc::{self, codes};
use crate::acp::tell::{self, describe, Call, Tool};
use crate::acp::wire::{
    self, content_types, methods, modes, priorities, stop_reasons, tool_kinds, tool_statuses, updates,
};

/// Writes the messages of a conversation, counting ids and keeping to the budget.
struct Builder {
    messages: Vec<Exchange>,
    /// The client's next request id.
    client_id: u64,
    /// The agent's next request id (agent-initiated requests count from 0).
    agent_id: u64,
    /// Tool calls so far, for unique ids.
    tools: usize,
    /// Messages left.
    left: usize,
    /// The client offers to read and write files.
    fs: bool,
    /// The client offers terminals.
    terminal: bool,
    /// Terminals the client made so far, for unique ids.
    terminals: usize,
    /// The client offers to read files, and the agent reads through the client.
    reads: bool,
    /// The agent whose habits it plays.
    profile: &'static Profile,
    /// A new session whose commands the agent sends at its first prompt.
    commands_due: Option<String>,
}

impl Builder {
    fn push(&mut self, dir: Direction, line: Vec<u8>) {
        self.left = self.left.saturating_sub(1);
        self.messages.push(Exchange {
            dir,
            line: String::from_utf8_lossy(&line).into_owned(),
        });
    }

    fn fits(&self, messages: usize) -> bool {
        messages <= self.left
    }

    /// A request of the client's; its id, as JSON text.
    fn request(&mut self, method: &str, params: &Value) -> String {
        let id = self.client_id;
        self.client_id += 1;
        self.push(Direction::In, rpc::request(id, method, params));
        id.to_string()
    }

    fn respond(&mut self, id: &str, result: &Value) {
        self.push(Direction::Out, rpc::response(id, result));
    }

    fn update(&mut self, session: &str, update: &Value) {
        let update = tell::shaped(update.clone(), self.profile);
        self.push(Direction::Out, tell::update_line(session, &update));
    }

    /// The result of a prompt that stopped for `reason`.
    fn stop(&self, reason: &str) -> Value {
        (self.profile.habits.prompt_result)(reason, self.client_id)
    }

    /// The agent's permission request for this tool call; its id, as JSON text.
    fn ask(&mut self, session: &str, tool_call: &Value) -> String {
        let id = self.agent_id;
        self.agent_id += 1;
        self.push(
            Direction::Out,
            rpc::request(
                id,
                methods::REQUEST_PERMISSION,
                &tell::permission_params(session, tool_call, self.profile),
            ),
        );
        id.to_string()
    }

    /// The client's answer to the agent's request `id`.
    fn answer(&mut self, id: &str, answer: &Value) {
        self.push(Direction::In, rpc::response(id, answer));
    }

    /// The agent's request `method` of the client's, and the client's answer (a
    /// result, or an error's code and message); the answer, `Err` with the message
    /// for an error.
    fn client_tool(
        &mut self,
        method: &str,
        params: &Value,
        answer: Result<Value, (i64, String)>,
    ) -> Result<Value, String> {
        let id = self.agent_id;
        self.agent_id += 1;
        self.push(Direction::Out, rpc::request(id, method, params));
        let id = id.to_string();
        match answer {
            Ok(result) => {
                self.answer(&id, &result);
                Ok(result)
            }
            Err((code, message)) => {
                self.push(Direction::In, rpc::error(&id, code, &message, None));
                Err(message)
            }
        }
    }

    fn cancel(&mut self, session: &str) {
        self.push(
            Direction::In,
            rpc::notification(methods::SESSION_CANCEL, &json!({"sessionId": session})),
        );
    }
}

/// Builds the messages of a plan, by the protocol's state machine.
pub(super) fn build(plan: &ConversationPlan, config: &ConversationConfig) -> Transcript {
    let profile = config.profile;
    let mut b = Builder {
        reads: plan.fs && profile.habits.fs_reads,
        profile,
        commands_due: None,
        messages: Vec::new(),
        client_id: 0,
        agent_id: 0,
        tools: 0,
        left: config.max_messages.map_or(usize::MAX, |m| m.max(MIN_MESSAGES)),
        fs: plan.fs,
        terminal: plan.terminal && profile.habits.terminal,
        terminals: 0,
    };
    let (name, version) = CLIENTS[plan.client % CLIENTS.len()];
    let id = b.request(
        methods::INITIALIZE,
        &json!({
            "protocolVersion": 1,
            "clientCapabilities": {"fs": {"readTextFile": plan.fs, "writeTextFile": plan.fs}, "terminal": plan.terminal},
            "clientInfo": {"name": name, "version": version}
        }),
    );
    b.respond(&id, &(profile.initialize)());
    if plan.authenticate && b.fits(2 + MIN_MESSAGES - 2) {
        let id = b.request(methods::AUTHENTICATE, &json!({"methodId": profile.auth_method}));
        b.respond(&id, &json!({}));
    }
    for (s, session) in plan.sessions.iter().enumerate() {
        let first = s == 0;
        let sid = session.id.as_str();
        let load = session.load.as_ref().filter(|_| !first);
        let opening = load.map_or(3, |history| 2 + 2 * history.len());
        // A session that cannot hold a turn is left out (the first never is).
        if !first && !b.fits(opening + 2) {
            break;
        }
        let cwd = "/home/dev/project";
        match load {
            None => {
                let id = b.request(methods::SESSION_NEW, &json!({"cwd": cwd, "mcpServers": []}));
                b.respond(&id, &(profile.session_new)(sid));
                match profile.commands {
                    (Commands::AfterNew, commands) => b.update(sid, &commands()),
                    (Commands::FirstPrompt, _) => b.commands_due = Some(sid.to_owned()),
                }
            }
            Some(history) => {
                let id = b.request(
                    methods::SESSION_LOAD,
                    &json!({"sessionId": sid, "cwd": cwd, "mcpServers": []}),
                );
                for (prompt, answer) in history {
                    b.update(sid, &wire::text_chunk(updates::USER_MESSAGE_CHUNK, prompt));
                    b.update(sid, &wire::text_chunk(updates::AGENT_MESSAGE_CHUNK, answer));
                }
                b.respond(&id, &json!({}));
                if profile.habits.load == LoadAnswer::AfterFirst && !history.is_empty() {
                    // The answer after the first replayed update, as the agent answers.
                    if let Some(answer) = b.messages.pop() {
                        let at = b.messages.len() + 1 - 2 * history.len();
                        b.messages.insert(at, answer);
                    }
                }
            }
        }
        let modes = profile.habits.modes;
        let mut mode = modes[0];
        if let Some(m) = session.set_mode.filter(|_| b.fits(4)) {
            mode = modes[m % modes.len()];
            let id = b.request(
                methods::SESSION_SET_MODE,
                &json!({"sessionId": sid, "modeId": mode}),
            );
            b.respond(&id, &json!({}));
        }
        for (t, turn) in session.turns.iter().enumerate() {
            let first_turn = first && t == 0;
            if !first_turn && !b.fits(2) {
                break;
            }
            play_turn(&mut b, sid, turn, (first_turn, t == 0), &mut mode);
        }
    }
    Transcript {
        messages: b.messages,
        profile,
    }
}

/// The messages of one turn; `first`: the conversation's first turn, the session's.
fn play_turn(b: &mut Builder, sid: &str, turn: &TurnPlan, first: (bool, bool), mode: &mut &'static str) {
    let (first, first_of_session) = first;
    let id = b.request(
        methods::SESSION_PROMPT,
        &json!({"sessionId": sid, "prompt": [wire::text_block(&turn.prompt)]}),
    );
    if b.commands_due.as_deref() == Some(sid) {
        b.commands_due = None;
        let commands = b.profile.commands.1;
        b.update(sid, &commands());
    }
    let cancel = turn.cancel.filter(|_| !first).filter(|_| b.fits(3));
    // What the end of the turn takes: the answer, and the cancel before it.
    let closing = 1 + usize::from(cancel.is_some());
    for (k, step) in turn.steps.iter().enumerate() {
        if cancel == Some(k) {
            if let StepPlan::Tools(tools, _) = step {
                if cancel_while_asking(b, sid, tools) {
                    b.respond(&id, &b.stop(stop_reasons::CANCELLED));
                    return;
                }
            }
            break;
        }
        if !b.fits(cost(b, step) + closing) {
            break;
        }
        match step {
            StepPlan::Message(text) => b.update(sid, &wire::text_chunk(updates::AGENT_MESSAGE_CHUNK, text)),
            StepPlan::Thought(text) => b.update(sid, &wire::text_chunk(updates::AGENT_THOUGHT_CHUNK, text)),
            StepPlan::Plan(entries) => {
                let entries: Vec<Value> = entries
                    .iter()
                    .map(|(content, priority, status)| {
                        let priority = priorities::ALL[priority % priorities::ALL.len()];
                        let status = tool_statuses::PLAN[status % tool_statuses::PLAN.len()];
                        json!({"content": content, "priority": priority, "status": status})
                    })
                    .collect();
                b.update(sid, &json!({"sessionUpdate": updates::PLAN, "entries": entries}));
            }
            StepPlan::Tools(tools, order) => run_tools(b, sid, tools, order, mode),
            StepPlan::Media(kind, text) => {
                let block = match MEDIA[kind % MEDIA.len()] {
                    content_types::IMAGE => wire::image_block("image/png", PIXEL),
                    content_types::RESOURCE => {
                        wire::resource_block("file:///home/dev/project/NOTES.md", "text/markdown", text)
                    }
                    _ => wire::resource_link_block("file:///home/dev/project/README.md", "README.md"),
                };
                b.update(
                    sid,
                    &json!({"sessionUpdate": updates::AGENT_MESSAGE_CHUNK, "content": block}),
                );
            }
        }
    }
    if cancel.is_some() {
        b.cancel(sid);
        b.respond(&id, &b.stop(stop_reasons::CANCELLED));
        return;
    }
    if !matches!(turn.end, EndPlan::Error(_)) && b.profile.habits.usage_updates {
        // What the turn cost, and a new session's title, before the answer.
        if b.fits(2) {
            let used = 1_000 + 37 * b.messages.len() as u64;
            let cost = (used * 3 / 1_000) as f64 / 1_000.0;
            b.update(sid, &wire::usage_update(used, 200_000, cost));
        }
        if first_of_session && b.fits(2) {
            let title: String = turn
                .prompt
                .lines()
                .next()
                .unwrap_or_default()
                .chars()
                .take(60)
                .collect();
            b.update(sid, &wire::session_info_update(&title));
        }
    }
    match &turn.end {
        EndPlan::EndTurn => b.respond(&id, &b.stop(stop_reasons::END_TURN)),
        EndPlan::StopReason(reason) => b.respond(&id, &b.stop(reason)),
        EndPlan::Error(n) => {
            let (code, message, data) = ERRORS[n % ERRORS.len()];
            let data = data.map(|d| json!({"details": d}));
            b.push(Direction::Out, rpc::error(&id, code, message, data.as_ref()));
        }
    }
}

/// How many messages a step takes.
fn cost(b: &Builder, step: &StepPlan) -> usize {
    match step {
        StepPlan::Tools(tools, _) => tools
            .iter()
            .map(|t| {
                let kind = TOOL_KINDS[t.kind % TOOL_KINDS.len()];
                let job = match kind {
                    tool_kinds::READ if b.reads => 2,
                    tool_kinds::EDIT if b.fs => 2,
                    tool_kinds::EXECUTE if b.terminal && t.client_ok => 9,
                    tool_kinds::EXECUTE if b.terminal => 2,
                    _ => 0,
                };
                2 + 2 * usize::from(t.ask.is_some()) + usize::from(kind == tool_kinds::SWITCH_MODE) + job
            })
            .sum(),
        _ => 1,
    }
}

/// A 1x1 PNG, base64: an image chunk's data.
const PIXEL: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

/// The agent's requests of the client for a tool the client runs for it, when it
/// offers to (a read, an edit, a shell command), and the client's answers; `None`
/// when the client does not run it, `Err` with the message of the client's error.
fn client_job(b: &mut Builder, sid: &str, tool: &ToolPlan, call: &Value) -> Option<Result<(), String>> {
    let kind = TOOL_KINDS[tool.kind % TOOL_KINDS.len()];
    let abs = format!("/home/dev/project/{}", tool.path);
    let refuse = |code: i64, message: String| (!tool.client_ok).then_some((code, message));
    let done = match kind {
        tool_kinds::READ if b.reads => {
            let answer = match refuse(codes::RESOURCE_NOT_FOUND, format!("Resource not found: {abs}")) {
                Some(error) => Err(error),
                None => Ok(json!({"content": tool.text})),
            };
            b.client_tool(
                methods::FS_READ_TEXT_FILE,
                &wire::read_text_file(sid, &abs),
                answer,
            )
            .map(drop)
        }
        tool_kinds::EDIT if b.fs => {
            let answer = match refuse(codes::INTERNAL_ERROR, format!("Permission denied: {abs}")) {
                Some(error) => Err(error),
                None => Ok(json!({})),
            };
            let params = wire::write_text_file(sid, &abs, &tool.text);
            b.client_tool(methods::FS_WRITE_TEXT_FILE, &params, answer)
                .map(drop)
        }
        tool_kinds::EXECUTE if b.terminal => {
            let command = format!("cat {}", tool.path);
            let create = wire::create_terminal(sid, &command, Some("/home/dev/project"));
            let terminal = format!("term-{}", b.terminals);
            b.terminals += 1;
            let answer = match refuse(
                codes::INTERNAL_ERROR,
                "Terminals are disabled in this workspace".to_owned(),
            ) {
                Some(error) => Err(error),
                None => Ok(json!({"terminalId": terminal})),
            };
            b.client_tool(methods::TERMINAL_CREATE, &create, answer).map(|_| {
                let shown = json!({"sessionUpdate": updates::TOOL_CALL_UPDATE, "toolCallId": call["toolCallId"], "status": tool_statuses::IN_PROGRESS, "content": [wire::terminal_content(&terminal)]});
                b.update(sid, &shown);
                let exit = json!({"exitCode": u8::from(!tool.ok), "signal": null});
                let on = wire::terminal(sid, &terminal);
                let _ = b.client_tool(methods::TERMINAL_WAIT_FOR_EXIT, &on, Ok(exit.clone()));
                let output = if tool.ok {
                    tool.text.clone()
                } else {
                    format!("cat: {}: No such file or directory\n", tool.path)
                };
                let read = json!({"output": output, "truncated": false, "exitStatus": exit});
                let _ = b.client_tool(methods::TERMINAL_OUTPUT, &on, Ok(read));
                let _ = b.client_tool(methods::TERMINAL_RELEASE, &on, Ok(json!({})));
            })
        }
        _ => return None,
    };
    Some(done)
}

/// The tool calls of a batch up to the first that asks permission, its request, and
/// the client's cancel while it waits (then its answer, `cancelled`); `false`, and
/// nothing written, when none asks or there is no room.
fn cancel_while_asking(b: &mut Builder, sid: &str, tools: &[ToolPlan]) -> bool {
    let Some(asking) = tools.iter().position(|t| t.ask.is_some()) else {
        return false;
    };
    if !b.fits(asking + 1 + 4) {
        return false;
    }
    let calls: Vec<(Value, Value)> = tools[..=asking]
        .iter()
        .map(|tool| tool_call(b, sid, tool))
        .collect();
    for (tool, (call, _)) in tools.iter().zip(&calls) {
        announce(b, sid, tool, call);
    }
    let id = b.ask(sid, &permission_call(b.profile, &tools[asking], &calls[asking].0));
    b.cancel(sid);
    b.answer(&id, &wire::cancelled());
    true
}

/// A batch of tool calls: each `tool_call`, the permission requests and answers, then
/// each `tool_call_update` in the order they finish.
fn run_tools(b: &mut Builder, sid: &str, tools: &[ToolPlan], order: &[u8], mode: &mut &'static str) {
    let calls: Vec<(Value, Value)> = tools.iter().map(|tool| tool_call(b, sid, tool)).collect();
    for (tool, (call, _)) in tools.iter().zip(&calls) {
        announce(b, sid, tool, call);
    }
    for (tool, (call, _)) in tools.iter().zip(&calls) {
        if let Some(answer) = tool.ask {
            let id = b.ask(sid, &permission_call(b.profile, tool, call));
            b.answer(&id, &wire::selected(&answer.option_id(b.profile)));
        }
    }
    let mut finished: Vec<usize> = (0..tools.len()).collect();
    for (i, seed) in order.iter().enumerate().take(finished.len()) {
        let j = usize::from(*seed) % finished.len();
        finished.swap(i, j);
    }
    for i in finished {
        let tool = &tools[i];
        let rejected = tool.ask.is_some_and(Answer::rejects);
        let (call, output) = &calls[i];
        let job = if rejected {
            None
        } else {
            client_job(b, sid, tool, call)
        };
        let (status, output) = match (rejected, job, tool.ok) {
            (true, ..) => (tool_statuses::FAILED, json!({"error": "Rejected by the user"})),
            (false, Some(Err(message)), _) => (tool_statuses::FAILED, json!({"error": message})),
            (false, _, true) => (tool_statuses::COMPLETED, output.clone()),
            (false, _, false) => (tool_statuses::FAILED, failure(tool)),
        };
        let finished = match b.profile.habits.tools {
            ToolShape::Raw => {
                json!({"sessionUpdate": updates::TOOL_CALL_UPDATE, "toolCallId": call["toolCallId"], "status": status, "rawOutput": output})
            }
            ToolShape::Described => {
                let failure = (status == tool_statuses::FAILED).then(|| failure_text(&output));
                describe::finished(&described(tool, call), failure.as_deref(), None)
            }
        };
        b.update(sid, &finished);
        if TOOL_KINDS[tool.kind] == tool_kinds::SWITCH_MODE && status == tool_statuses::COMPLETED {
            *mode = switched(mode, b.profile);
            b.update(
                sid,
                &json!({"sessionUpdate": updates::CURRENT_MODE_UPDATE, "currentModeId": *mode}),
            );
        }
    }
}

/// The mode a `switch_mode` tool switches to: plan from any other, agent from plan.
fn switched(mode: &str, profile: &Profile) -> &'static str {
    if mode == modes::PLAN {
        profile.habits.modes[0]
    } else {
        modes::PLAN
    }
}

/// The `toolCall` of a permission request: the tool call's id, title, kind, status
/// (a [`ToolShape::Described`] profile's: its content and locations too).
fn permission_call(profile: &Profile, tool: &ToolPlan, call: &Value) -> Value {
    match profile.habits.tools {
        ToolShape::Raw => {
            json!({"toolCallId": call["toolCallId"], "title": call["title"], "kind": call["kind"], "status": tool_statuses::PENDING})
        }
        ToolShape::Described => describe::asking(&described(tool, call), None),
    }
}

/// A tool call's first mention, as the profile makes it: the `tool_call` (`pending`,
/// with `rawInput`); a [`ToolShape::Described`] profile announces a tool that does
/// not ask `in_progress`, and one that asks not at all (its permission request is
/// the first mention).
fn announce(b: &mut Builder, sid: &str, tool: &ToolPlan, call: &Value) {
    match b.profile.habits.tools {
        ToolShape::Raw => b.update(sid, call),
        ToolShape::Described if tool.ask.is_none() => {
            b.update(sid, &describe::started(&described(tool, call), None));
        }
        ToolShape::Described => {}
    }
}

/// The tool call as the teller of a [`ToolShape::Described`] profile describes it:
/// what its file and its write are (paths absolute already).
fn described(tool: &ToolPlan, call: &Value) -> Call {
    let kind = TOOL_KINDS[tool.kind % TOOL_KINDS.len()];
    let path = format!("/home/dev/project/{}", tool.path);
    let tool = match kind {
        tool_kinds::READ => Tool::Read { path },
        tool_kinds::EDIT => Tool::Write {
            path,
            content: tool.text.clone(),
        },
        tool_kinds::EXECUTE => Tool::Shell {
            command: format!("cat {}", tool.path),
        },
        tool_kinds::DELETE | tool_kinds::MOVE => Tool::Other { path: Some(path) },
        _ => Tool::Other { path: None },
    };
    Call {
        id: call["toolCallId"].clone(),
        kind,
        title: call["title"].as_str().unwrap_or_default().to_owned(),
        input: call["rawInput"].clone(),
        tool,
    }
}

/// What a failed tool's output says went wrong: its error, or a command's stderr.
fn failure_text(output: &Value) -> String {
    output["error"]
        .as_str()
        .or_else(|| output["stderr"].as_str())
        .unwrap_or_default()
        .to_owned()
}

/// A tool call's `tool_call` update, and the `rawOutput` it completes with.
fn tool_call(b: &mut Builder, sid: &str, tool: &ToolPlan) -> (Value, Value) {
    let n = b.tools;
    b.tools += 1;
    // As the real agent's: a literal newline between the call and the function id.
    let id = format!("call-{}-{n}\nfc_{}_{n}", &sid[..8], &sid[sid.len() - 12..]);
    let kind = TOOL_KINDS[tool.kind % TOOL_KINDS.len()];
    let path = &tool.path;
    let abs = format!("/home/dev/project/{path}");
    let text = &tool.text;
    let lines = text.lines().count();
    let (title, input, output) = match kind {
        tool_kinds::READ => (
            format!("Read {path}"),
            json!({"path": abs}),
            json!({"content": text, "totalLines": lines}),
        ),
        tool_kinds::EDIT => (
            format!("Edit {path}"),
            json!({"path": abs, "streamContent": text}),
            json!({"linesAdded": lines, "linesRemoved": 1, "diffString": format!("-old\n+{text}")}),
        ),
        tool_kinds::DELETE => (
            format!("Delete {path}"),
            json!({"path": abs}),
            json!({"deleted": true}),
        ),
        tool_kinds::MOVE => (
            format!("Move {path} to old/{path}"),
            json!({"source": abs, "destination": format!("/home/dev/project/old/{path}")}),
            json!({}),
        ),
        tool_kinds::SEARCH => (
            format!("Grep {}", text.lines().next().unwrap_or_default()),
            json!({"pattern": text, "path": "/home/dev/project"}),
            json!({"files": [path], "totalMatches": 1}),
        ),
        tool_kinds::EXECUTE => (
            format!("`cat {path}`"),
            json!({"command": format!("cat {path}")}),
            json!({"exitCode": 0, "stdout": text, "stderr": ""}),
        ),
        tool_kinds::THINK => ("Thinking".to_owned(), json!({"thought": text}), json!({})),
        tool_kinds::FETCH => (
            format!("Fetch https://example.com/{path}"),
            json!({"url": format!("https://example.com/{path}")}),
            json!({"status": 200, "content": text}),
        ),
        tool_kinds::SWITCH_MODE => (
            "Switch mode".to_owned(),
            json!({"reason": text}),
            json!({"switched": true}),
        ),
        _ => (
            "docs-search".to_owned(),
            json!({"name": "docs-search", "arguments": {"q": text}}),
            json!({"content": [wire::text_block(text)]}),
        ),
    };
    let mut call = json!({"sessionUpdate": updates::TOOL_CALL, "toolCallId": id, "title": title, "kind": kind, "status": tool_statuses::PENDING, "rawInput": input});
    if [
        tool_kinds::READ,
        tool_kinds::EDIT,
        tool_kinds::DELETE,
        tool_kinds::MOVE,
    ]
    .contains(&kind)
    {
        call["locations"] = json!([{"path": abs}]);
    }
    (call, output)
}

/// The `rawOutput` of a tool that failed.
fn failure(tool: &ToolPlan) -> Value {
    match TOOL_KINDS[tool.kind % TOOL_KINDS.len()] {
        tool_kinds::EXECUTE => {
            json!({"exitCode": 1, "stdout": "", "stderr": format!("cat: {}: No such file or directory", tool.path)})
        }
        _ => json!({"error": format!("cannot open {}", tool.path)}),
    }
}
