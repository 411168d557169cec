//! Claude Code's stand-in: `claude ARGS` (a link named `claude`) or
//! `mock-agent claude ARGS`, as the Claude Agent SDKs and scripts run it.
//!
//! - With `--input-format stream-json` (the SDKs): the client's lines are read as they
//!   come, on a thread of their own; control requests are answered at once, even in
//!   the middle of a turn (`initialize`, `interrupt`, `set_permission_mode`,
//!   `set_model`; an unknown one with the real CLI's error); each user message is a
//!   turn of the session ([`Player`]), played on the executor's [`Output`] at the
//!   times the clock says; a `can_use_tool` or hook request waits for the client's
//!   answer. A line that is not JSON ends the process with exit 1 and the real CLI's
//!   stderr line; a line over 64 MiB, with the mock's own error and exit 65
//!   ([`exit_codes::INVALID_INPUT`]); the end of stdin finishes the turns already
//!   asked for, then the process exits (1 when the last result was an error). Memory
//!   stays bounded whatever the client writes (`client.rs`), and a journaled
//!   conversation is kept on disk as it passes ([`journal::Spooled`]).
//! - Otherwise (`claude -p PROMPT`, or the prompt on stdin): one turn, in `text`,
//!   `json` or `stream-json`.
//!
//! Faults come from the one catalogue (`mock-agent faults`, Claude Code's section),
//! timing from `MOCK_AGENT_TIMING`, the session from `MOCK_AGENT_GENERATE` (a seed) or
//! the built-in default session.

pub use harness::dialects::claude::args;
mod client;
pub mod drift;
mod flags;
pub mod record;
mod replay;
mod runs;

use std::collections::VecDeque;
use std::io::IsTerminal;
use std::time::Duration;

use serde_json::{json, Value};
use tokio::io::AsyncWrite;

use harness::dialects::claude::faults::{Answer, Injector, Out};
use harness::dialects::claude::play::Hook;
use harness::dialects::claude::wire::{
    control, fields, results, text_of, types, Inbound, PERMISSION_MODES, UNSUPPORTED_REQUEST, VERSION,
};
use harness::dialects::claude::{self, Next, Options, Player};
use harness::exit_codes;
use harness::frames::{Exit, Frame, Line};
use harness::journal::{self, Entry};
use harness::source::Source;
use harness::timing::Clock;

use crate::execute::{self, conversation, ExecError, Handoff, Output, Stop};
use crate::settings::Settings;
use args::OutputFormat;
use client::{Client, Event, Inbox, MAX_LINE, QUEUED};

/// Runs Claude Code's stand-in with the arguments after the program name, and returns
/// how the process is to end.
/// Claude Code, as a process (see [`crate::dialects::Cli`]).
#[derive(Debug, Clone, Copy, Default)]
pub struct Claude;

impl crate::dialects::Cli for Claude {
    fn dialect(&self) -> &'static dyn harness::run::Dialect {
        harness::dialects::CLAUDE
    }

    fn word(&self) -> &'static str {
        harness::dialects::CLAUDE.name()
    }

    fn run(&self, args: &[String]) -> Exit {
        run(args)
    }

    fn recorded(&self) -> &'static dyn crate::record::Recorded {
        &record::Recording
    }

    fn drift(&self) -> &'static [&'static dyn crate::drift::Drift] {
        &[&drift::ClaudeDrift]
    }
}

/// Runs the stand-in with `argv` (its arguments, without the program).
pub fn run(argv: &[String]) -> Exit {
    // The conversation, kept on disk as it passes.
    execute::journaled::run(argv, |settings, entry, spooled| match args::parse(argv) {
        Err(message) => {
            eprintln!("{message}");
            entry.rejected = Some(message);
            Exit::Code(exit_codes::AGENT_ERROR)
        }
        Ok(args) if args.version => print(&format!("{VERSION} (Claude Code)\n")),
        Ok(args) if args.help => print(args::HELP),
        Ok(args) if flags::bypass_refused(&args) => {
            let message = harness::dialects::claude::wire::ROOT_BYPASS;
            eprintln!("{message}");
            entry.rejected = Some(message.to_owned());
            Exit::Code(exit_codes::AGENT_ERROR)
        }
        Ok(args) => session(&args, settings, entry, spooled),
    })
}

fn print(text: &str) -> Exit {
    crate::process::answer(text)
}

/// Plays the session: a conversation on stdin and stdout, or one printed turn; its
/// journal goes to `spooled` when the run is journaled.
fn session(
    args: &args::Args,
    settings: &Settings,
    entry: &mut Entry,
    spooled: &mut Option<journal::Spooled>,
) -> Exit {
    let faults = match settings.faults.read(harness::dialects::claude::faults::parse) {
        Ok(faults) => faults,
        Err(e) => {
            eprintln!("mock-agent: {e}");
            return Exit::Code(exit_codes::USAGE);
        }
    };
    let source = match (&settings.cassette, settings.generate) {
        (Some(path), _) => Source::Cassette(path.clone()),
        (None, Some(seed)) => Source::Generated {
            seed,
            config: harness::generate::SessionConfig::default(),
        },
        _ => Source::Default,
    };
    entry.source = Some(match &source {
        Source::Cassette(path) => path.display().to_string(),
        Source::Generated { seed, .. } => format!("generated:{seed}"),
        _ => "default".to_owned(),
    });
    let cwd = entry.cwd.clone().unwrap_or_else(|| "/".to_owned());
    // A recording is played by its script (below), which reads it as it plays: the
    // player's session is not told.
    let told = match &source {
        Source::Cassette(_) => Ok(claude::session::Session {
            turns: vec![claude::session::Turn {
                steps: Vec::new(),
                end: claude::session::End::Success,
            }],
        }),
        other => claude::session_of(other),
    };
    let mut session = match told {
        Ok(session) => session,
        Err(e) => {
            eprintln!("mock-agent: {e}");
            return Exit::Code(e.exit_code());
        }
    };
    if matches!(source, Source::Default) {
        session = claude::default_session(&cwd);
    }
    let mut options = Options::new(&cwd, settings.seed);
    // The session the seed makes: one the stand-in knows (`--resume`).
    let seeded = options.session_id.clone();
    if let Some(id) = &args.session_id {
        options.session_id.clone_from(id);
    }
    if let Some(model) = &args.model {
        options.model = resolve(model);
    }
    if let Some(mode) = &args.permission_mode {
        options.permission_mode.clone_from(mode);
    }
    options.prompt_tool = args.prompt_tool && args.stream_input;
    options.partial = args.partial && args.output_format == OutputFormat::StreamJson;
    options.states = flags::states(args.stream_input);
    options.max_turns = args.max_turns;
    // The model calls only the tools it has (a recording is what it recorded).
    if let Some(tools) = &args.tools {
        session.with_tools_only(tools);
        options.tools = Some(tools.clone());
    }
    let (faults, hidden) = claude::faults::shown_in(faults, args.output_format);
    let mut injector = Injector::new(faults);
    injector.prepare(&mut session, &mut options);
    // A recording replays as a script; the player keeps the options.
    let mut script = match &source {
        Source::Cassette(path) => match claude::cassette::Script::open_live(path) {
            Ok(script) => Some(script),
            Err(e) => {
                eprintln!("mock-agent: {e}");
                return Exit::Code(e.exit_code());
            }
        },
        _ => None,
    };
    if let Some(id) = &args.resume {
        let recorded = script.as_mut().and_then(claude::cassette::Script::session_id);
        if *id != seeded && recorded.as_deref() != Some(id.as_str()) {
            return no_conversation(id, &seeded, &options.model, args.output_format);
        }
    }
    let echo = (args.replay_user && args.stream_input).then(|| flags::Echo::new(settings.seed));
    let player = replay::Teller::new(Player::new(session, options), script);

    let prompt = if args.stream_input {
        None
    } else {
        match &args.prompt {
            Some(prompt) => Some(prompt.clone()),
            None if !std::io::stdin().is_terminal() => {
                // At most a line's worth: no input makes the mock hold unbounded memory.
                let mut bytes = Vec::new();
                let stdin = std::io::Read::take(std::io::stdin().lock(), MAX_LINE as u64 + 1);
                let _ = std::io::Read::read_to_end(&mut { stdin }, &mut bytes);
                if bytes.len() > MAX_LINE {
                    eprintln!(
                        "mock-agent: the prompt on stdin is over {} MiB: give a shorter one",
                        MAX_LINE >> 20
                    );
                    return Exit::Code(exit_codes::USAGE);
                }
                Some(String::from_utf8_lossy(&bytes).trim_end_matches('\n').to_owned())
            }
            None => None,
        }
    };
    if !args.stream_input && prompt.as_deref().is_none_or(str::is_empty) {
        eprintln!(
            "Error: Input must be provided either through stdin or as a prompt argument when using --print"
        );
        return Exit::Code(exit_codes::AGENT_ERROR);
    }
    entry.prompt.clone_from(&prompt);
    let exec = conversation::exec_options(settings);
    let format = args.output_format;
    let timing = settings.timing;
    let seed = settings.seed;
    let journal = settings.journal.as_deref().map(journal::Spooled::claude);
    let untimed = execute::recorded::untimed(settings);
    // A recording's runs of lines are written at once ([`Agent::stream_run`]): into a
    // larger pipe, as a copy writes.
    let at_once = untimed
        && format == OutputFormat::StreamJson
        && matches!(source, Source::Cassette(_))
        && injector.faults().is_empty();
    let run = async move {
        let (output, inbox) = conversation::stdio(&exec, at_once, prompt.is_none())?;
        let mut agent = Agent {
            player,
            injector,
            output,
            clock: Clock::new(timing, seed),
            inbox,
            eof: prompt.is_some(),
            eof_pending: false,
            turns: VecDeque::new(),
            queued: 0,
            format,
            journal,
            echo,
            ended: None,
            error: None,
            pending: VecDeque::new(),
            untimed,
            run: Vec::new(),
            holding: false,
        };
        if let Some(prompt) = prompt {
            agent.push_turn(prompt);
        }
        let ended = agent.run().await;
        if let Some(journal) = &mut agent.journal {
            for divergence in agent.player.divergences() {
                journal.divergence(&divergence);
            }
        }
        let closed = agent.output.stdout_closed_at();
        let mut report = agent.injector.report();
        report.extend(hidden.iter().map(|name| (*name, false)));
        Ok::<_, ExecError>((ended, agent.journal, report, closed, agent.error))
    };
    let (ended, conversation, faults, closed, error) = match execute::block_on(run, true) {
        Err(e) => {
            eprintln!("mock-agent: cannot start the runtime: {e}");
            return Exit::Code(exit_codes::INTERNAL);
        }
        Ok(Err(e)) => {
            eprintln!("mock-agent: {e}");
            return Exit::Code(e.exit_code());
        }
        Ok(Ok(done)) => done,
    };
    *spooled = conversation;
    entry.error = error;
    execute::journaled::keep_faults_and_close(entry, faults, closed);
    execute::journaled::stopped(entry, ended)
}

/// `--resume` of a session the stand-in does not know (see [`flags`]): the result
/// alone, in the output format, the same text on stderr, exit 1.
fn no_conversation(id: &str, session_id: &str, model: &str, format: OutputFormat) -> Exit {
    let uuid = uuid::Uuid::new_v4().to_string();
    let line = flags::no_conversation(id, session_id, model, &uuid);
    let shown = match format {
        OutputFormat::StreamJson | OutputFormat::Json => String::from_utf8_lossy(&line).into_owned(),
        OutputFormat::Text => format!("Error: {}", flags::no_conversation_text(id)),
    };
    let exit = print(&format!("{shown}\n"));
    eprintln!("{}", flags::no_conversation_text(id));
    if exit.success() {
        Exit::Code(exit_codes::AGENT_ERROR)
    } else {
        exit
    }
}

/// The model id an alias stands for, as `set_model` and `--model` resolve it.
fn resolve(model: &str) -> String {
    match model {
        "sonnet" | "default" => "claude-sonnet-4-5".to_owned(),
        "opus" => "claude-opus-4-1".to_owned(),
        "haiku" => "claude-haiku-4-5".to_owned(),
        other => other.to_owned(),
    }
}

/// A result's `errors` (strings) as one text, one a line.
fn errors(errors: Option<&Value>) -> String {
    match errors {
        Some(Value::Array(items)) => items
            .iter()
            .map(|e| e.as_str().map_or_else(|| text_of(e), str::to_owned))
            .collect::<Vec<_>>()
            .join("\n"),
        Some(other) => text_of(other),
        None => String::new(),
    }
}

/// Whether a line of the client's is an `interrupt` control request.
fn is_interrupt(line: &[u8]) -> bool {
    matches!(Inbound::parse(line), Ok(Inbound::Request { subtype, .. }) if subtype == control::INTERRUPT)
}

/// The stand-in at work.
struct Agent<O: AsyncWrite + Unpin, E: AsyncWrite + Unpin> {
    player: replay::Teller,
    injector: Injector,
    output: Output<O, E>,
    clock: Clock,
    inbox: Inbox,
    eof: bool,
    /// The end of stdin waits in `pending`.
    eof_pending: bool,
    /// The prompts of the turns asked for and not begun.
    turns: VecDeque<String>,
    /// The bytes `turns` and `pending` hold: past [`QUEUED`], the client is not read.
    queued: usize,
    format: OutputFormat,
    journal: Option<journal::Spooled>,
    /// `--replay-user-messages`: the echoes of the client's user messages.
    echo: Option<flags::Echo>,
    /// How the process ends, once a fault or the client decided.
    ended: Option<Exit>,
    /// The mock's own error, when one ended the run (for the journal).
    error: Option<String>,
    /// What the client sent while a line waited for its time: handled once it is
    /// written.
    pending: VecDeque<Event>,
    /// No line waits (for its time, a step): a run of a recording's stream lines may be
    /// written at once ([`Agent::stream_run`]).
    untimed: bool,
    /// The buffer the next such run is read into (two take turns: see
    /// [`Output::perform_run`]).
    run: Vec<u8>,
    /// A stall holds a line of the turn back (see [`Agent::stall`]): an interrupt ends
    /// the turn there.
    holding: bool,
}

/// How a stall ended.
enum Stalled {
    /// Its time was over.
    Over,
    /// The client interrupted the turn it held (the turn ended, as the client's
    /// interrupt ends it).
    Interrupted,
}

impl<E: AsyncWrite + Unpin> Agent<Handoff, E> {
    /// Serves until the end of stdin and of the turns asked for.
    async fn run(&mut self) -> Result<Exit, Stop> {
        loop {
            if let Some(exit) = self.ended {
                self.output.flush().await?;
                return Ok(exit);
            }
            if let Some(event) = self.pop_pending() {
                self.handle(event).await?;
                continue;
            }
            if self.player.in_turn() || self.player.waiting_for().is_some() {
                self.step().await?;
                continue;
            }
            if let Some(prompt) = self.pop_turn() {
                self.player.begin(&prompt);
                let now = self.output.elapsed();
                self.clock.rebase(now, self.player.base());
                continue;
            }
            if self.eof {
                break;
            }
            let event = self.next_event().await?;
            self.handle(event).await?;
        }
        for out in self.injector.end() {
            if self.out(out).await? {
                break;
            }
        }
        if let Some(exit) = self.ended {
            self.output.flush().await?;
            return Ok(exit);
        }
        self.output.flush().await?;
        Ok(Exit::Code(i32::from(self.player.last_is_error())))
    }

    /// A prompt asked for, to be played after the turns before it.
    fn push_turn(&mut self, prompt: String) {
        self.queued += prompt.len() + execute::inbox::OVERHEAD;
        self.turns.push_back(prompt);
    }

    fn pop_turn(&mut self) -> Option<String> {
        let prompt = self.turns.pop_front()?;
        self.queued = self
            .queued
            .saturating_sub(prompt.len() + execute::inbox::OVERHEAD);
        Some(prompt)
    }

    /// What the client sent during a wait, kept to be handled after it.
    fn push_pending(&mut self, event: Event) {
        use execute::inbox::Cost;
        self.eof_pending |= matches!(event, Event::Eof);
        self.queued += event.cost();
        self.pending.push_back(event);
    }

    fn pop_pending(&mut self) -> Option<Event> {
        use execute::inbox::Cost;
        let event = self.pending.pop_front()?;
        self.queued = self.queued.saturating_sub(event.cost());
        Some(event)
    }

    /// Waits for what the client sends next (signals heard meanwhile); when the agent
    /// holds [`QUEUED`] bytes of prompts already, it waits for ever (a client that
    /// floods prompts and does not answer a request is not read).
    async fn next_event(&mut self) -> Result<Event, Stop> {
        if let Some(event) = self.pop_pending() {
            return Ok(event);
        }
        let mut client = Client {
            inbox: &mut self.inbox,
            eof: false,
            full: self.queued >= QUEUED,
        };
        match self.output.wait_until(Duration::MAX, false, &mut client).await? {
            Some(event) => Ok(event),
            None => Ok(Event::Eof),
        }
    }

    /// One step of the turn under way.
    async fn step(&mut self) -> Result<(), Stop> {
        if self.stream_run().await? {
            return Ok(());
        }
        let next = self.player.step();
        if let Some(e) = self.player.take_error() {
            return Err(Stop::Error(e.into()));
        }
        match next {
            Next::Send(line) | Next::Ask { line, .. } => self.send(line).await,
            Next::Waiting if self.eof => {
                // Nobody will answer: the request is taken as refused.
                self.player.answer(Err("The client closed its input".to_owned()));
                Ok(())
            }
            Next::Waiting => {
                let event = self.next_event().await?;
                self.handle(event).await
            }
            Next::Done => Ok(()),
        }
    }

    /// Writes one of the CLI's lines at its time, through the faults; the client's
    /// messages that come meanwhile are handled first.
    async fn send(&mut self, line: Vec<u8>) -> Result<(), Stop> {
        // Without a fault, a line is written as it is (what the faults give then).
        if self.injector.faults().is_empty() {
            self.out(Out::Line(line)).await?;
            return Ok(());
        }
        for out in self.injector.line(line) {
            if let Out::Stall(duration) = out {
                self.holding = true;
                let stalled = self.stall(duration).await;
                self.holding = false;
                match stalled? {
                    Stalled::Over => continue,
                    // The line held back, and what the faults made of it after the
                    // stall, never come: the turn ended with the interrupt.
                    Stalled::Interrupted if self.player.ends_interrupted() => return Ok(()),
                    Stalled::Interrupted => continue,
                }
            }
            if self.out(out).await? {
                return Ok(());
            }
        }
        Ok(())
    }

    /// Writes nothing for `duration` (for ever: `None`), as the CLI does while the
    /// model's stream stalls. The real CLI reads its input meanwhile: what the client
    /// sends is kept for after, but an `interrupt`, which is handled at once (the
    /// answer, and the turn's end when a line of it is held back) and ends the stall.
    async fn stall(&mut self, duration: Option<Duration>) -> Result<Stalled, Stop> {
        self.output.flush().await?;
        let until = duration.map_or(Duration::MAX, |d| self.output.elapsed().saturating_add(d));
        loop {
            match conversation::wait(self, until, false).await? {
                None => return Ok(Stalled::Over),
                Some(Event::Line(line)) if is_interrupt(&line) => {
                    // Its answer is sent as any line is (a stall of its own may hold it).
                    Box::pin(self.handle(Event::Line(line))).await?;
                    return Ok(Stalled::Interrupted);
                }
                Some(event) => self.push_pending(event),
            }
        }
    }

    /// Performs one thing the faults made of a line; `true` when the process ends.
    async fn out(&mut self, out: Out) -> Result<bool, Stop> {
        conversation::out(self, out, true).await
    }

    /// Waits until `due` (what is written then is a `line` or not); what the client
    /// sends meanwhile is kept, to be handled once it is written.
    async fn wait_due(&mut self, due: Duration, line: bool) -> Result<(), Stop> {
        conversation::keep_until(self, due, line).await
    }

    /// What the output format shows of a line: every line in `stream-json`; in
    /// `json` the result; in `text` the result's text.
    fn shown(&self, line: Vec<u8>) -> Option<Vec<u8>> {
        match self.format {
            OutputFormat::StreamJson => Some(line),
            OutputFormat::Json | OutputFormat::Text => {
                let value: Value = serde_json::from_slice(&line).ok()?;
                if value.get("type").and_then(Value::as_str) != Some(types::RESULT) {
                    return None;
                }
                if self.format == OutputFormat::Json {
                    return Some(line.to_vec());
                }
                let text = match value.get(fields::RESULT).and_then(Value::as_str) {
                    Some(text) => text.to_owned(),
                    None if value.get("subtype").and_then(Value::as_str)
                        == Some(results::ERROR_MAX_TURNS) =>
                    {
                        let max = self.player.options.max_turns.unwrap_or(1);
                        format!("Error: Reached max turns ({max})")
                    }
                    None => format!("Error: {}", errors(value.get(fields::ERRORS))),
                };
                Some(text.into_bytes())
            }
        }
    }

    /// Handles what came from the client.
    async fn handle(&mut self, event: Event) -> Result<(), Stop> {
        let line = match event {
            Event::Eof => {
                self.eof = true;
                return Ok(());
            }
            Event::TooLong(read) => return self.too_long(read).await,
            Event::Line(line) => line,
        };
        if line.iter().all(u8::is_ascii_whitespace) {
            return Ok(());
        }
        self.note(journal::IN, &line);
        match Inbound::parse(&line) {
            Err(e) => {
                let text = format!(
                    "Error parsing streaming input line (type={}, {} chars): SyntaxError",
                    e.kind.as_deref().unwrap_or("unknown"),
                    e.chars
                );
                self.note(journal::ERR, text.as_bytes());
                self.output
                    .perform(Frame::Line(Line::stderr(Duration::ZERO, text)))
                    .await?;
                self.ended = Some(Exit::Code(1));
            }
            Ok(Inbound::User { text }) => {
                let session_id = &self.player.options.session_id;
                if let Some(echo) = self.echo.as_mut().and_then(|e| e.of(&line, session_id)) {
                    self.send(echo).await?;
                }
                self.push_turn(text);
            }
            Ok(Inbound::Request { id, subtype, request }) => self.request(id, &subtype, &request).await?,
            Ok(Inbound::Response { id, response, error }) => {
                let waited = self.player.waiting_for().is_some_and(|w| id.as_str() == Some(w));
                if waited {
                    self.player
                        .answer(response.ok_or_else(|| error.unwrap_or_default()));
                    let now = self.output.elapsed();
                    self.clock.rebase(now, self.player.base());
                }
            }
            Ok(Inbound::Quiet | Inbound::Other(_)) => {}
        }
        Ok(())
    }

    /// Answers one of the client's control requests.
    async fn request(&mut self, id: Value, subtype: &str, request: &Value) -> Result<(), Stop> {
        let fault = self.injector.answer(subtype);
        // A recording answers as recorded, from when its request came.
        if let Some((lines, at)) = fault
            .is_none()
            .then(|| self.player.recorded_answer(&id, subtype))
            .flatten()
        {
            let now = self.output.elapsed();
            self.clock.rebase(now, at);
            for line in lines {
                self.send(line).await?;
            }
            return Ok(());
        }
        let answer = match fault {
            Some(Answer::Never) => return Ok(()),
            Some(Answer::Error(text)) => Err((text, None)),
            None => match subtype {
                control::INITIALIZE => {
                    self.player.set_hooks(Hook::from_initialize(&request["hooks"]));
                    Ok(harness::dialects::claude::play::initialized(
                        &self.player.options,
                        std::process::id(),
                    ))
                }
                control::INTERRUPT => Ok(json!({"still_queued": []})),
                control::SET_PERMISSION_MODE => {
                    let mode = request["mode"].as_str().unwrap_or_default();
                    if PERMISSION_MODES.contains(&mode) {
                        self.player.options.permission_mode = mode.to_owned();
                        Ok(json!({"mode": mode}))
                    } else {
                        Err((
                            format!(
                                "Cannot set permission mode: must be one of {}",
                                PERMISSION_MODES.join(", ")
                            ),
                            Some("invalid_mode"),
                        ))
                    }
                }
                control::SET_MODEL => {
                    let model = resolve(request["model"].as_str().unwrap_or("default"));
                    self.player.options.model.clone_from(&model);
                    Ok(json!({"model": model}))
                }
                other => Err((
                    format!("Unsupported control request subtype: {other}"),
                    Some(UNSUPPORTED_REQUEST),
                )),
            },
        };
        let response = match answer {
            Ok(response) => json!({"type": types::CONTROL_RESPONSE, "response": {
                "subtype": control::SUCCESS, "request_id": id, "response": response}}),
            Err((error, code)) => {
                let mut response = json!({"subtype": control::ERROR, "request_id": id, "error": error});
                if let Some(code) = code {
                    response["error_code"] = json!(code);
                }
                json!({"type": types::CONTROL_RESPONSE, "response": response})
            }
        };
        self.send(serde_json::to_vec(&response).unwrap_or_default())
            .await?;
        if subtype == control::SET_PERMISSION_MODE && self.player.options.permission_mode == request["mode"] {
            let status = json!({"type": types::SYSTEM, "subtype": "status", "status": null,
                "permissionMode": self.player.options.permission_mode, "uuid": uuid::Uuid::new_v4().to_string(),
                "session_id": self.player.options.session_id});
            self.send(serde_json::to_vec(&status).unwrap_or_default()).await?;
        }
        if subtype == control::INTERRUPT {
            let lines = if self.holding {
                self.player.interrupt_held()
            } else {
                self.player.interrupt()
            };
            for line in lines {
                self.send(line).await?;
            }
        }
        Ok(())
    }

    /// A line of the client's over [`MAX_LINE`] bytes (`read` of them read): the
    /// mock's own error on stderr, in the journal too, and the run ends with
    /// [`exit_codes::INVALID_INPUT`] (the client would otherwise wait for ever for an
    /// answer to a line nobody read).
    async fn too_long(&mut self, read: usize) -> Result<(), Stop> {
        let dropped = format!("[a line of over {read} bytes, over the limit: dropped]");
        self.note(journal::IN, dropped.as_bytes());
        self.error = Some(conversation::too_long(self, read).await?);
        Ok(())
    }

    /// Journals a line that went `dir`.
    fn note(&mut self, dir: &str, line: &[u8]) {
        let at_ms = u64::try_from(self.output.elapsed().as_millis()).unwrap_or(u64::MAX);
        if let Some(journal) = &mut self.journal {
            journal.message(dir, at_ms, line);
        }
    }
}

impl<E: AsyncWrite + Unpin> conversation::Server for Agent<Handoff, E> {
    type Stdout = Handoff;
    type Stderr = E;

    fn listen(&mut self) -> (&mut Output<Handoff, E>, Client<'_>) {
        let client = Client {
            inbox: &mut self.inbox,
            eof: self.eof || self.eof_pending,
            full: self.queued >= QUEUED,
        };
        (&mut self.output, client)
    }

    fn keep(&mut self, event: Event) {
        self.push_pending(event);
    }

    fn note(&mut self, dir: &str, line: &[u8]) {
        Agent::note(self, dir, line);
    }

    fn ended(&mut self) -> &mut Option<Exit> {
        &mut self.ended
    }

    /// What the output format shows of the line, at its time (every line of the
    /// CLI's is timed).
    async fn line(&mut self, line: Vec<u8>, _timed: bool) -> Result<(), Stop> {
        // A copy only when the journal keeps it: the line goes out as it is.
        let noted = self.journal.is_some().then(|| line.clone());
        if let Some(shown) = self.shown(line) {
            let due = self.clock.due(self.player.at(), true);
            conversation::write(self, due, Frame::Line(Line::stdout(Duration::ZERO, shown))).await?;
        }
        if let Some(line) = noted {
            Agent::note(self, journal::OUT, &line);
        }
        Ok(())
    }

    /// Only `stream-json` shows the start of a line.
    async fn cut(&mut self, bytes: Vec<u8>) -> Result<(), Stop> {
        if self.format == OutputFormat::StreamJson {
            let mut line = Line::stdout(Duration::ZERO, bytes);
            line.newline = false;
            let due = self.clock.due(self.player.at(), true);
            conversation::write(self, due, Frame::Line(line)).await?;
        }
        Ok(())
    }

    /// A stall the client interrupts ends the stall, not the line's turn: the
    /// interrupt's answer tells that.
    async fn pause(&mut self, duration: Option<Duration>) -> Result<bool, Stop> {
        self.stall(duration).await.map(|_| false)
    }
}
