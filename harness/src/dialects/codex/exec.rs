//! A [`Session`] told as `codex exec` tells a turn: pure. Given the session, the parsed
//! command line, the thread and the prompt, [`play`] returns every line for stdout, every
//! line for stderr, the exit code and what `-o FILE` gets; the process writes them (its
//! clock spacing the lines), and keeps the thread's usage for `exec resume`.
//!
//! With `--json` (observed, 0.163.0): `thread.started`, warnings as `error` items,
//! `turn.started`, the items (`item_0`, `item_1`, ... in order; `agent_message` and
//! `reasoning` only as `item.completed`, the others `item.started` then
//! `item.completed`), then `turn.completed` with the thread's running usage, exit 0;
//! or an `error` line and `turn.failed` with the same message, exit 1, after the
//! `Reconnecting... n/5` lines of the failures the CLI retries. Without `--json`:
//! stdout holds only the final message; stderr a banner, the prompt, what the agent
//! did, and `tokens used`.

use serde_json::{json, Map, Value};

use super::args::ExecArgs;
use super::schema;
use super::session::{Command, End, Failure, FileChange, Item, Session, Turn, Usage};
use super::wire::{events, items, messages, sandboxes, status, stderr, usage, PROVIDER, VERSION};

/// The thread a run plays a turn of.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Thread {
    /// Its id (`thread.started`'s `thread_id`; the same after `exec resume`).
    pub id: String,
    /// The usage of its earlier turns (zero for a new thread): `turn.completed` adds
    /// this turn's to it.
    pub prior: Usage,
    /// How many turns it had (which of the session's turns is played).
    pub turns: usize,
}

impl Thread {
    /// A new thread, its id made from `seed` at time `ms`.
    pub fn new(seed: u64, ms: u64) -> Self {
        Thread {
            id: super::session::uuid_v7(ms, &mut fastrand::Rng::with_seed(seed)),
            prior: Usage::default(),
            turns: 0,
        }
    }
}

/// Everything a run needs.
#[derive(Debug, Clone)]
pub struct Run<'a> {
    /// The session played.
    pub session: &'a Session,
    /// The command line.
    pub args: &'a ExecArgs,
    /// The thread (new, or resumed).
    pub thread: Thread,
    /// The prompt, as [`read_prompt`] made it.
    pub prompt: &'a str,
    /// The working folder (`-C`, else the process's).
    pub cwd: &'a str,
    /// `--output-schema`'s schema, read ([`read_schema`]).
    pub schema: Option<&'a Value>,
}

/// What a run writes, and how it ends.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Outcome {
    /// stdout's lines, without their newlines (JSON lines with `--json`).
    pub stdout: Vec<String>,
    /// stderr's lines, without their newlines.
    pub stderr: Vec<String>,
    /// The exit code.
    pub exit_code: i32,
    /// What `-o FILE` gets: the last agent message of a completed turn.
    pub last_message: Option<String>,
    /// The thread's usage after the run (to keep for `exec resume`).
    pub usage: Usage,
    /// The thread's id, when one was started.
    pub thread_id: Option<String>,
}

/// A run that ends before any thread: nothing on stdout, these lines on stderr.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// stderr's lines, without their newlines.
    pub stderr: Vec<String>,
    /// The exit code (1).
    pub exit_code: i32,
}

impl Refusal {
    fn new(stderr: Vec<String>) -> Self {
        Refusal { stderr, exit_code: 1 }
    }
}

/// The prompt a run plays, from argv and stdin (`None`: stdin is a terminal, not
/// read), with the stderr lines reading it writes; `Err` ends the run (empty stdin:
/// `No prompt provided via stdin.`, exit 1).
pub fn read_prompt(args: &ExecArgs, stdin: Option<&str>) -> Result<(String, Vec<String>), Refusal> {
    if args.prompt_from_stdin() {
        let mut said = vec![stderr::READING_PROMPT.to_owned()];
        let text = stdin.unwrap_or_default();
        if text.trim().is_empty() {
            said.push(stderr::NO_PROMPT.to_owned());
            return Err(Refusal::new(said));
        }
        return Ok((text.to_owned(), said));
    }
    let prompt = args.prompt.clone().unwrap_or_default();
    match stdin {
        Some(extra) => {
            let said = vec![stderr::READING_ADDITIONAL.to_owned()];
            if extra.trim().is_empty() {
                return Ok((prompt, said));
            }
            Ok((format!("{prompt}\n\n<stdin>\n{extra}\n</stdin>"), said))
        }
        None => Ok((prompt, Vec::new())),
    }
}

/// `--output-schema FILE`, read: `read` is the file's text or the OS's words for why it
/// could not be read. `Err` ends the run before any line (exit 1).
pub fn read_schema(path: &str, read: Result<String, String>) -> Result<Value, Refusal> {
    let text = read.map_err(|reason| Refusal::new(vec![stderr::schema_unreadable(path, &reason)]))?;
    serde_json::from_str(&text).map_err(|e| Refusal::new(vec![stderr::schema_not_json(path, &e.to_string())]))
}

/// `exec resume ID` of a UUID no rollout has: stdout empty, exit 1.
pub fn unknown_thread(id: &str) -> Refusal {
    Refusal::new(vec![stderr::no_rollout(id)])
}

/// `-C DIR` (`--cd`) whose folder cannot be resolved (`reason`, the OS's words for
/// why): the first thing `codex exec` checks, before it reads its prompt; exit 1.
pub fn workdir_unresolved(reason: &str) -> Refusal {
    Refusal::new(vec![stderr::workdir_error(reason)])
}

/// Outside a Git repository without `--skip-git-repo-check`: exit 1.
pub fn not_trusted() -> Refusal {
    Refusal::new(vec![stderr::NOT_TRUSTED.to_owned()])
}

/// Whether `dir` is inside a Git repository as `codex exec` 0.163.0 tells one: `dir`
/// or a folder above it holds a `.git` file (a worktree's or a submodule's pointer,
/// whatever it says) or a `.git` folder with a `HEAD` in it (observed: an empty `.git`
/// folder is no repository, and the walk goes on above it). The trusted projects of
/// `$CODEX_HOME/config.toml` play no part (observed, in the file and as `-c`).
pub fn in_git_repository(dir: &std::path::Path) -> bool {
    dir.ancestors().any(|dir| {
        let git = dir.join(".git");
        git.is_file() || git.join("HEAD").exists()
    })
}

/// The Git-repository check `codex exec` makes once its prompt is read, before it
/// starts a thread (and before `exec resume` looks for one): outside a repository
/// ([`in_git_repository`] of `workdir`, [`ExecArgs::workdir`]) and without
/// [`ExecArgs::skips_git_check`], it refuses ([`not_trusted`]).
pub fn check_repository(args: &ExecArgs, workdir: &std::path::Path) -> Result<(), Refusal> {
    if args.skips_git_check() || in_git_repository(workdir) {
        Ok(())
    } else {
        Err(not_trusted())
    }
}

/// The folder a run of the journal stopped at the Git-repository check in: a `codex
/// exec` that did not skip the check, ended with exit 1, and works in a folder that is
/// in no Git repository ([`check_repository`], as the mock made it); `None` otherwise.
pub fn stopped_at_git_check(entry: &crate::journal::Entry) -> Option<std::path::PathBuf> {
    let Ok(super::args::Command::Exec(args)) = super::args::parse(&entry.argv) else {
        return None;
    };
    if args.skips_git_check() || entry.exit != crate::journal::ExitRecord::Code(1) {
        return None;
    }
    // The check comes once the prompt is read; a `-C` folder not there ends the run
    // before ([`stopped_at_missing_workdir`]).
    entry.prompt.as_ref()?;
    let workdir = args.workdir(std::path::Path::new(entry.cwd.as_deref()?));
    (!in_git_repository(&workdir)).then_some(workdir)
}

/// The folder a run of the journal was told to work in (`-C DIR`) and could not
/// resolve: a `codex exec -C DIR` that ended with exit 1 before it read its stdin or
/// its prompt ([`workdir_unresolved`], as the mock made it: "No prompt provided"
/// ends after reading stdin); `None` otherwise.
pub fn stopped_at_missing_workdir(entry: &crate::journal::Entry) -> Option<std::path::PathBuf> {
    let Ok(super::args::Command::Exec(args)) = super::args::parse(&entry.argv) else {
        return None;
    };
    args.cd.as_ref()?;
    if entry.prompt.is_some() || entry.stdin.is_some() || entry.exit != crate::journal::ExitRecord::Code(1) {
        return None;
    }
    Some(args.workdir(std::path::Path::new(entry.cwd.as_deref()?)))
}

/// The run: every line, the exit code, the last message and the usage.
pub fn play(run: &Run<'_>) -> Outcome {
    let turn = run.session.turn(run.thread.turns);
    let mut out = Outcome {
        thread_id: Some(run.thread.id.clone()),
        usage: run.thread.prior,
        ..Outcome::default()
    };
    let told = Told::new(run, &turn);
    if run.args.json {
        told.json(run, &turn, &mut out);
    } else {
        told.text(run, &turn, &mut out);
    }
    out
}

/// What the turn tells, before it is written in either mode.
struct Told {
    /// The items, in order (warnings of the start first), agent messages as the
    /// schema makes them.
    items: Vec<Item>,
    /// How many of `items` come before `turn.started`.
    before_turn: usize,
    /// The final message (the last agent message).
    last: Option<String>,
}

impl Told {
    fn new(run: &Run<'_>, turn: &Turn) -> Self {
        let mut told: Vec<Item> = Vec::new();
        if matches!(turn.end, End::Failed(Failure::UnknownModel)) {
            told.push(Item::Warning(messages::model_metadata(&run.args.model())));
        }
        // A strict format makes the model's text the one JSON answer: the stand-in
        // keeps the last agent message, made from the schema.
        let last_message = turn
            .items
            .iter()
            .rposition(|i| matches!(i, Item::AgentMessage(_)));
        for (n, item) in turn.items.iter().enumerate() {
            match (item, run.schema) {
                (Item::AgentMessage(_), Some(schema)) => {
                    if Some(n) == last_message {
                        told.push(Item::AgentMessage(schema::message_for(schema)));
                    }
                }
                _ => told.push(item.clone()),
            }
        }
        let before_turn = told.iter().take_while(|i| matches!(i, Item::Warning(_))).count();
        let last = told.iter().rev().find_map(|i| match i {
            Item::AgentMessage(text) => Some(text.clone()),
            _ => None,
        });
        Told {
            items: told,
            before_turn,
            last,
        }
    }

    /// `--json`: the JSONL stream.
    fn json(&self, run: &Run<'_>, turn: &Turn, out: &mut Outcome) {
        let mut ids = 0usize;
        let mut next_id = || {
            ids += 1;
            format!("item_{}", ids - 1)
        };
        out.stdout.push(line(
            json!({"type": events::THREAD_STARTED, "thread_id": run.thread.id}),
        ));
        let read_only = run.args.sandbox_mode() == sandboxes::READ_ONLY;
        let mut open_lists: Vec<Value> = Vec::new();
        let mut retries = Retries::default();
        for (n, item) in self.items.iter().enumerate() {
            if n == self.before_turn {
                out.stdout.push(line(json!({"type": events::TURN_STARTED})));
            }
            if let Some(message) = retries.of(item) {
                out.stdout.push(error_line(&message));
                continue;
            }
            if let Item::FileChange(_) = item {
                if read_only {
                    out.stderr.push(stderr::PATCH_REJECTED.to_owned());
                    continue;
                }
            }
            let id = next_id();
            for (kind, line) in item_lines(&id, item) {
                if let Item::TodoList(_) = item {
                    if kind == events::ITEM_STARTED {
                        open_lists.push(line.clone());
                    }
                }
                out.stdout.push(event(kind, line));
            }
        }
        if self.items.len() == self.before_turn {
            out.stdout.push(line(json!({"type": events::TURN_STARTED})));
        }
        // A plan completes when the turn ends.
        for list in open_lists {
            out.stdout.push(event(events::ITEM_COMPLETED, list));
        }
        match &turn.end {
            End::Completed => {
                out.usage += turn.usage;
                out.stdout.push(line(
                    json!({"type": events::TURN_COMPLETED, "usage": usage_json(&out.usage)}),
                ));
                out.last_message = self.last.clone();
            }
            End::Failed(failure) => {
                let (message, retried, partial) = ending(failure, &run.args.model());
                // A cut stream tells its partial message on the first try and again
                // after each retry.
                for n in 0..=messages::RETRIES {
                    if n > 0 && retried {
                        out.stdout.push(error_line(&messages::reconnecting(n, &message)));
                    }
                    if let Some(text) = &partial {
                        let item = Item::AgentMessage(text.clone());
                        for (kind, line) in item_lines(&next_id(), &item) {
                            out.stdout.push(event(kind, line));
                        }
                    }
                }
                out.stdout.push(error_line(&message));
                out.stdout.push(line(
                    json!({"type": events::TURN_FAILED, "error": {"message": message}}),
                ));
                out.exit_code = 1;
            }
        }
    }

    /// Without `--json`: the final message on stdout, the rest on stderr.
    fn text(&self, run: &Run<'_>, turn: &Turn, out: &mut Outcome) {
        let args = run.args;
        let effort = args
            .config_value("model_reasoning_effort")
            .unwrap_or_else(|| "medium".to_owned());
        let provider = args
            .config_value("model_provider")
            .unwrap_or_else(|| PROVIDER.to_owned());
        let rule = "--------".to_owned();
        let banner = [
            format!("OpenAI Codex v{VERSION}"),
            rule.clone(),
            format!("workdir: {}", run.cwd),
            format!("model: {}", args.model()),
            format!("provider: {provider}"),
            format!("approval: {}", args.approval_policy()),
            format!("sandbox: {}", args.sandbox_mode()),
            format!("reasoning effort: {effort}"),
            "reasoning summaries: auto".to_owned(),
            format!("session id: {}", run.thread.id),
            rule,
            "user".to_owned(),
            run.prompt.to_owned(),
        ];
        out.stderr.extend(banner);
        let read_only = args.sandbox_mode() == sandboxes::READ_ONLY;
        let final_at = self
            .items
            .iter()
            .rposition(|i| matches!(i, Item::AgentMessage(_)));
        let mut retries = Retries::default();
        for (n, item) in self.items.iter().enumerate() {
            if let Some(message) = retries.of(item) {
                out.stderr.push(message);
                continue;
            }
            match item {
                Item::Reasoning(text) if !text.is_empty() => {
                    out.stderr.extend(["thinking".to_owned(), text.clone()])
                }
                Item::AgentMessage(text) if Some(n) != final_at || turn.fails() => {
                    out.stderr.extend(["codex".to_owned(), text.clone()])
                }
                Item::Command(command) => {
                    let how = if command.exit_code == 0 {
                        " succeeded in 0ms:".to_owned()
                    } else {
                        format!(" exited {} in 0ms:", command.exit_code)
                    };
                    out.stderr.extend([
                        "exec".to_owned(),
                        format!("{} in {}", command.shell_line(), run.cwd),
                        how,
                    ]);
                    out.stderr.extend(command.output.lines().map(str::to_owned));
                }
                Item::FileChange(_) if read_only => out.stderr.push(stderr::PATCH_REJECTED.to_owned()),
                Item::FileChange(FileChange { changes, .. }) => {
                    out.stderr.push("file update".to_owned());
                    for change in changes {
                        let letter = change.kind.chars().next().unwrap_or('M').to_ascii_uppercase();
                        out.stderr.push(format!("{letter} {}", change.path));
                    }
                }
                Item::Warning(text) => out.stderr.push(format!("warning: {text}")),
                _ => {}
            }
        }
        match &turn.end {
            End::Completed => {
                out.usage += turn.usage;
                if let Some(last) = &self.last {
                    out.stderr.extend(["codex".to_owned(), last.clone()]);
                    out.stdout.push(last.clone());
                }
                out.stderr
                    .extend(["tokens used".to_owned(), turn.usage.blended().to_string()]);
                out.last_message = self.last.clone();
            }
            End::Failed(failure) => {
                let (message, retried, _) = ending(failure, &args.model());
                if retried {
                    for n in 1..=messages::RETRIES {
                        out.stderr.push(messages::reconnecting(n, &message));
                    }
                }
                out.stderr.push(format!("ERROR: {message}"));
                out.exit_code = 1;
            }
        }
    }
}

/// The retries of a turn's model call, counted as the CLI counts them (`1/5`, `2/5`,
/// ... for the same call).
#[derive(Default)]
struct Retries(u32);

impl Retries {
    /// The `Reconnecting... n/5 (<reason>)` message of `item`, when it is a retry.
    fn of(&mut self, item: &Item) -> Option<String> {
        match item {
            Item::Reconnect { reason, .. } => {
                self.0 += 1;
                Some(messages::reconnecting(self.0, reason))
            }
            _ => {
                self.0 = 0;
                None
            }
        }
    }
}

/// A failure's message, whether the CLI retries it five times, and the partial
/// message each try tells again (a cut stream).
pub fn ending(failure: &Failure, model: &str) -> (String, bool, Option<String>) {
    match failure {
        Failure::BadRequest { body } => (body.clone(), false, None),
        Failure::Unauthorized => (
            messages::unexpected_status(
                401,
                "Unauthorized",
                &messages::unauthorized_body("sk-mock***"),
                messages::RESPONSES_URL,
            ),
            true,
            None,
        ),
        Failure::RateLimited => (messages::RATE_LIMITED.to_owned(), true, None),
        Failure::Overloaded => (messages::HIGH_DEMAND.to_owned(), true, None),
        Failure::UnknownModel => (messages::unknown_model_body(model), false, None),
        Failure::Quota => (messages::QUOTA.to_owned(), false, None),
        Failure::ContextWindow => (messages::CONTEXT_WINDOW.to_owned(), false, None),
        Failure::StreamCut { partial } => (messages::STREAM_CUT.to_owned(), true, Some(partial.clone())),
        Failure::Other { message } => (message.clone(), false, None),
    }
}

/// An item's lines (`item.started` / `item.updated` / `item.completed`, and the item)
/// under id `id`.
fn item_lines(id: &str, item: &Item) -> Vec<(&'static str, Value)> {
    let done = |value: Value| vec![(events::ITEM_COMPLETED, value)];
    match item {
        Item::Reasoning(text) if text.is_empty() => Vec::new(),
        Item::Reasoning(text) => done(json!({"id": id, "type": items::REASONING, "text": text})),
        Item::AgentMessage(text) => done(json!({"id": id, "type": items::AGENT_MESSAGE, "text": text})),
        Item::Warning(message) => done(json!({"id": id, "type": items::ERROR, "message": message})),
        // Not an item: a top-level `error` line ([`Retries`]).
        Item::Reconnect { .. } => Vec::new(),
        Item::Command(command) => command_lines(id, command),
        Item::FileChange(change) => {
            let changes: Vec<Value> = change
                .changes
                .iter()
                .map(|c| json!({"path": c.path, "kind": c.kind}))
                .collect();
            let with = |state: &str| json!({"id": id, "type": items::FILE_CHANGE, "changes": changes, "status": state});
            vec![
                (events::ITEM_STARTED, with(status::IN_PROGRESS)),
                (events::ITEM_COMPLETED, with(status::COMPLETED)),
            ]
        }
        Item::WebSearch { id: search, query } => {
            // Two `id` keys in one object, as the CLI writes them: a raw value.
            let raw = format!(
                "{{\"id\":{},\"type\":{},\"id\":{},\"query\":{},\"action\":{}}}",
                Value::from(id),
                Value::from(items::WEB_SEARCH),
                Value::from(search.as_str()),
                Value::from(query.as_str()),
                json!({"type": items::SEARCH_ACTION, "query": query}),
            );
            let raw = Value::String(format!("{RAW}{raw}"));
            vec![(events::ITEM_STARTED, raw.clone()), (events::ITEM_COMPLETED, raw)]
        }
        Item::McpToolCall {
            server,
            tool,
            arguments,
            result,
        } => {
            let call = |result: Value, error: Value, state: &str| {
                json!({"id": id, "type": items::MCP_TOOL_CALL, "server": server, "tool": tool,
                    "arguments": arguments, "result": result, "error": error, "status": state})
            };
            let end = match result {
                Ok(value) => call(value.clone(), Value::Null, status::COMPLETED),
                Err(message) => call(Value::Null, json!({"message": message}), status::FAILED),
            };
            vec![
                (
                    events::ITEM_STARTED,
                    call(Value::Null, Value::Null, status::IN_PROGRESS),
                ),
                (events::ITEM_COMPLETED, end),
            ]
        }
        Item::TodoList(steps) => {
            let list: Vec<Value> = steps
                .iter()
                .map(|(text, done)| json!({"text": text, "completed": done}))
                .collect();
            vec![(
                events::ITEM_STARTED,
                json!({"id": id, "type": items::TODO_LIST, "items": list}),
            )]
        }
        Item::Unknown(value) => {
            let mut object = Map::new();
            object.insert("id".into(), json!(id));
            if let Some(fields) = value.as_object() {
                object.extend(
                    fields
                        .iter()
                        .filter(|(k, _)| *k != "id")
                        .map(|(k, v)| (k.clone(), v.clone())),
                );
            }
            done(Value::Object(object))
        }
    }
}

/// A command's `item.started` and `item.completed`.
fn command_lines(id: &str, command: &Command) -> Vec<(&'static str, Value)> {
    let line = command.shell_line();
    let state = if command.exit_code == 0 {
        status::COMPLETED
    } else {
        status::FAILED
    };
    vec![
        (
            events::ITEM_STARTED,
            json!({"id": id, "type": items::COMMAND_EXECUTION, "command": line, "aggregated_output": "",
                "exit_code": null, "status": status::IN_PROGRESS}),
        ),
        (
            events::ITEM_COMPLETED,
            json!({"id": id, "type": items::COMMAND_EXECUTION, "command": line,
                "aggregated_output": command.output, "exit_code": command.exit_code, "status": state}),
        ),
    ]
}

/// The marker of an item already written as raw JSON (a `web_search` with two ids).
const RAW: &str = "\u{0}raw:";

/// `{"type":KIND,"item":ITEM}`.
fn event(kind: &str, item: Value) -> String {
    match item.as_str().and_then(|s| s.strip_prefix(RAW)) {
        Some(raw) => format!("{{\"type\":{},\"item\":{raw}}}", Value::from(kind)),
        None => line(json!({"type": kind, "item": item})),
    }
}

/// `{"type":"error","message":..}`.
fn error_line(message: &str) -> String {
    line(json!({"type": events::ERROR, "message": message}))
}

/// `turn.completed`'s `usage`: the five keys, in order.
pub fn usage_json(total: &Usage) -> Value {
    let values = [
        total.input_tokens,
        total.cached_input_tokens,
        total.cache_write_input_tokens,
        total.output_tokens,
        total.reasoning_output_tokens,
    ];
    Value::Object(
        usage::ALL
            .iter()
            .zip(values)
            .map(|(key, value)| ((*key).to_owned(), json!(value)))
            .collect(),
    )
}

fn line(value: Value) -> String {
    value.to_string()
}
