//! `codex app-server`, as a process: JSON-RPC over stdio (`--listen stdio://`),
//! driven by the harness's pure player ([`harness::dialects::codex::app_server`]).
//!
//! The client's lines are read on a thread of their own; each is fed to the player at
//! once (its answers, and the notifications owed with them, go out in order), also in
//! the middle of a turn (`turn/interrupt`, the answer to an approval request). A turn's
//! notifications go out at the times the clock says ([`PACE`] apart on the recording's
//! clock: `MOCK_AGENT_TIMING` scales or fixes them), through the faults of the
//! catalogue's `codex-app-server` section; an approval request waits for the client's
//! answer. The end of stdin ends the server (exit 0, as the real one); the threads it
//! started are kept under `CODEX_HOME` for `thread/resume` in a later process. A
//! journaled run keeps the conversation, both ways, and the client's answers.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::io::AsyncWrite;

use harness::cassette::PREFLIGHT_LIMIT;
use harness::dialects::codex::app_server::recording::{is_app_server, open_session};
use harness::dialects::codex::app_server::{Next, Options, Player};
use harness::dialects::codex::args::AppServerArgs;
use harness::dialects::codex::exec::Thread;
use harness::dialects::codex::faults::{parse_app_server, Injector, Out};
use harness::dialects::codex::session::Session;
use harness::dialects::codex::wire::argv::LISTEN_STDIO;
use harness::exit_codes;
use harness::frames::{Exit, Frame, Line};
use harness::journal::{self, Entry};
use harness::jsonrpc::Glance;
use harness::timing::Clock;

use super::threads::Store;
use crate::execute::conversation::{self, Client};
use crate::execute::inbox::{self, Cost};
use crate::execute::lines::Incoming as Event;
use crate::execute::{self, ExecError, Output, Stop};
use crate::settings::Settings;

/// How far apart a turn's lines are on the recording's clock.
pub const PACE: Duration = Duration::from_millis(20);

/// The most bytes of what the client sent while a line waited its time that wait in
/// the server; past them the client is not read until they are handled (its own pipe
/// fills), so memory stays bounded whatever it writes.
const QUEUED: usize = 16 << 20;

/// About the most bytes of a turn's recorded lines written together (a copy's block:
/// fewer steps of the server a turn).
const RUN_BYTES: usize = harness::cassette::COPY_BLOCK;

/// Runs `codex app-server` with `args`, journaling into `entry` (the conversation
/// into `spooled`).
pub fn run(
    args: &AppServerArgs,
    settings: &Settings,
    entry: &mut Entry,
    spooled: &mut Option<journal::Spooled>,
) -> Exit {
    if args.listen != LISTEN_STDIO {
        let message = format!(
            "codex app-server --listen {}: the stand-in serves stdio:// only; give `--listen stdio://` or no --listen",
            args.listen
        );
        return own_error(entry, message, exit_codes::USAGE);
    }
    let faults = match settings.faults.read(parse_app_server) {
        Ok(faults) => faults,
        Err(e) => return own_error(entry, e.to_string(), exit_codes::USAGE),
    };
    let cwd = entry.cwd.clone().unwrap_or_else(|| "/".to_owned());
    let mut injector = Injector::app_server(faults);
    // A recording of app-server, with no preset, replays as a script: its lines as
    // recorded, waiting where it waited for the client. The player then answers
    // nothing: it is not told the recording's session.
    let script = match &settings.cassette {
        Some(path) if !injector.has_preset() => match script_of(path) {
            Ok(script) => script,
            Err(e) => return own_error(entry, e.to_string(), e.exit_code()),
        },
        _ => None,
    };
    let mut session: Session = match (&settings.cassette, settings.generate) {
        (Some(path), _) if script.is_some() => {
            entry.source = Some(path.display().to_string());
            Session { turns: Vec::new() }
        }
        (Some(path), _) => {
            entry.source = Some(path.display().to_string());
            match open_session(path) {
                Ok(session) => session,
                Err(e) => return own_error(entry, e.to_string(), e.exit_code()),
            }
        }
        (None, Some(seed)) => {
            entry.source = Some(format!("generated:{seed}"));
            harness::dialects::codex::generate::from_seed(seed)
        }
        (None, None) => {
            entry.source = Some("default".to_owned());
            harness::dialects::codex::default_session(&cwd)
        }
    };
    let store = Store::of_env();
    let codex_home = store
        .as_ref()
        .map_or_else(|| "/.codex".to_owned(), |s| s.home().display().to_string());
    let mut options = Options::new(&codex_home, &cwd, settings.generate.unwrap_or(settings.seed));
    options.start_ms = execute::now_ms();
    options.known_threads = store.as_ref().map(Store::all).unwrap_or_default();
    options.asks_always = injector.asks_always();
    injector.prepare(&mut session);
    let player = Player::new(session, options);
    // Nothing is done to a recorded line but writing it: a turn's run of them goes out
    // in one piece.
    let whole = injector.faults().is_empty()
        && settings.journal.is_none()
        && settings.step.is_none()
        && settings.timing == harness::timing::Timing::default();

    let exec = conversation::exec_options(settings);
    let clock = Clock::new(settings.timing, settings.seed);
    let journal = settings.journal.as_deref().map(journal::Spooled::new);
    let served = async move {
        // Runs of lines go out in pieces of up to [`RUN_BYTES`]: a larger pipe, fewer
        // wake-ups of the client and of the writing thread.
        let (output, inbox) = conversation::stdio(&exec, whole, true)?;
        let mut server = Server {
            player,
            injector,
            output,
            clock,
            inbox,
            eof: false,
            at: Duration::ZERO,
            journal,
            ended: None,
            error: None,
            pending: VecDeque::new(),
            queued: 0,
            asked: None,
            replaying: script.is_some(),
            whole,
            glance: Glance::default(),
        };
        let ended = match script {
            Some(script) => server.replay(script).await,
            None => server.run().await,
        };
        let closed = server.output.stdout_closed_at();
        Ok::<_, ExecError>((ended, server, closed))
    };
    let (ended, server, closed) = match execute::block_on(served, true) {
        Err(e) => {
            return own_error(
                entry,
                format!("cannot start the runtime: {e}"),
                exit_codes::INTERNAL,
            )
        }
        Ok(Err(e)) => return own_error(entry, e.to_string(), e.exit_code()),
        Ok(Ok(done)) => done,
    };
    if let Some(store) = &store {
        for (id, usage, turns) in server.player.threads() {
            let thread = Thread {
                id,
                prior: usage,
                turns,
            };
            if let Err(e) = store.save(&thread) {
                eprintln!(
                    "mock-agent: cannot keep thread {} under CODEX_HOME: {e}",
                    thread.id
                );
            }
        }
    }
    entry.error.clone_from(&server.error);
    execute::journaled::keep_faults_and_close(entry, server.injector.report(), closed);
    *spooled = server.journal;
    execute::journaled::stopped(entry, ended)
}

/// The frames of a recording of `codex app-server` at `path`, read as they are
/// played (`None`: a recording of another kind, played as the session it tells).
/// A file of up to [`PREFLIGHT_LIMIT`] bytes is checked in full first (a broken one
/// fails before anything is played), a larger one as it plays; either is played
/// without parsing its lines' JSON.
fn script_of(path: &std::path::Path) -> Result<Option<Script>, harness::error::CassetteError> {
    let reader = harness::cassette::open(path)?;
    if !reader.header().is_some_and(is_app_server) {
        return Ok(None);
    }
    if std::fs::metadata(path).is_ok_and(|m| m.len() <= PREFLIGHT_LIMIT) {
        for frame in reader {
            frame?;
        }
        return harness::cassette::open(path).map(|reader| Some(reader.fast()));
    }
    Ok(Some(reader.fast()))
}

/// A recording's frames, read as they are played.
type Script = harness::cassette::Reader<std::io::BufReader<std::fs::File>>;

/// The mock's own error: said on stderr, kept in the journal.
fn own_error(entry: &mut Entry, message: String, code: i32) -> Exit {
    eprintln!("mock-agent: {message}");
    entry.error = Some(message);
    Exit::Code(code)
}

/// `line` with its `id` the live one, when it answers a request of the client's
/// whose recorded id is in `ids` (the answer's `id` kept byte for byte otherwise).
fn answer_id(line: &[u8], ids: &[(String, Value)]) -> Option<Vec<u8>> {
    let value: Value = serde_json::from_slice(line).ok()?;
    if value.get("method").is_some() {
        return None;
    }
    let recorded = value.get("id")?.to_string();
    let (_, live) = ids.iter().rev().find(|(was, _)| *was == recorded)?;
    if *live == value["id"] {
        return None;
    }
    let text = std::str::from_utf8(line).ok()?;
    let needle = format!("\"id\":{recorded}");
    Some(text.replacen(&needle, &format!("\"id\":{live}"), 1).into_bytes())
}

/// Whether `line` may have a top-level `id` (answer the client, or ask it): a scan of
/// its bytes up to its last `"id"` says, or cannot tell (then it is parsed). A
/// notification's nested ids (its item's) are not one.
fn may_have_id(glance: &Glance, line: &[u8]) -> bool {
    glance.has_id_to_last(line) != Some(false)
}

/// Whether `line` is an answer of the writer's shape, `{"id":N,...}` (a whole number,
/// its one top-level `id`; no top-level `method`), that the replay writes as it stands:
/// no live id of the client's stands for `N` in `ids`, or the one that does is `N`
/// ([`answer_id`] changes nothing), and it asks nothing. Told from its bytes.
fn unchanged_answer(glance: &Glance, line: &[u8], ids: &[(String, Value)]) -> bool {
    let Some(rest) = line.strip_prefix(b"{\"id\":") else {
        return false;
    };
    let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    // A JSON number has no leading zero; a long one may be no `u64`.
    if digits == 0 || digits > 18 || (digits > 1 && rest[0] == b'0') || rest.get(digits) != Some(&b',') {
        return false;
    }
    if glance.has_method(line) != Some(false)
        || harness::jsonrpc::top_level_key_count(line, b"id", 2) != Some(1)
    {
        return false;
    }
    let recorded = &rest[..digits];
    match ids.iter().rev().find(|(was, _)| was.as_bytes() == recorded) {
        None => true,
        Some((_, live)) => std::str::from_utf8(recorded)
            .ok()
            .and_then(|n| n.parse::<u64>().ok())
            .is_some_and(|n| *live == n),
    }
}

/// Whether the client's `line` is a `turn/interrupt` request.
fn is_interrupt(line: &[u8]) -> bool {
    serde_json::from_slice::<Value>(line).is_ok_and(|value| {
        value.get("method").and_then(Value::as_str)
            == Some(harness::dialects::codex::wire::rpc::methods::TURN_INTERRUPT)
    })
}

/// The server at work.
struct Server<O: AsyncWrite + Unpin, E: AsyncWrite + Unpin> {
    player: Player,
    injector: Injector,
    output: Output<O, E>,
    clock: Clock,
    inbox: inbox::Inbox<Event>,
    eof: bool,
    /// Where the turn is on the recording's clock.
    at: Duration,
    journal: Option<journal::Spooled>,
    ended: Option<Exit>,
    error: Option<String>,
    /// What the client sent while a line waited for its time.
    pending: VecDeque<Event>,
    /// The bytes `pending` holds.
    queued: usize,
    /// The request waited on: its id, method, and when it went.
    asked: Option<(i64, String, Instant)>,
    /// A recording is replayed as a script (a stall does not listen for an interrupt:
    /// the script cannot end its turn).
    replaying: bool,
    /// No fault, no journal, no step mode, instant timing: a replayed run of lines
    /// that neither answer nor ask the client is cut out of the cassette in one piece.
    whole: bool,
    /// What tells a line that may answer or ask the client.
    glance: Glance,
}

impl<O: AsyncWrite + Unpin, E: AsyncWrite + Unpin> Server<O, E> {
    /// Serves until the end of stdin.
    async fn run(&mut self) -> Result<Exit, Stop> {
        loop {
            if let Some(exit) = self.ended {
                self.output.flush().await?;
                return Ok(exit);
            }
            if let Some(event) = self.pending.pop_front() {
                self.queued = self.queued.saturating_sub(event.cost());
                self.handle(event).await?;
                continue;
            }
            if self.eof {
                break;
            }
            self.player.set_time(execute::now_ms());
            match self.player.step() {
                Next::Send(line) => {
                    self.at += PACE;
                    self.send(line, true).await?;
                }
                Next::Ask { id, line } => {
                    self.at += PACE;
                    let method = serde_json::from_slice::<Value>(&line)
                        .ok()
                        .and_then(|v| v.get("method").and_then(Value::as_str).map(str::to_owned))
                        .unwrap_or_default();
                    self.asked = Some((id, method, Instant::now()));
                    self.send(line, true).await?;
                }
                Next::Waiting | Next::Done => {
                    let event = self.next_event().await?;
                    self.handle(event).await?;
                }
            }
        }
        for out in self.injector.end() {
            if self.out(out, false).await? {
                break;
            }
        }
        self.output.flush().await?;
        Ok(self.ended.unwrap_or(Exit::Code(exit_codes::OK)))
    }

    /// Replays a recording: each of its lines at its time (the clock counts from the
    /// client's last line), the recorded client's lines waited for where it sent
    /// them, the client's live request ids in the answers to its requests. The
    /// recording's end is the server's, unless the client's end of stdin comes first
    /// (exit 0, as the real server).
    async fn replay(&mut self, mut frames: Script) -> Result<Exit, Stop> {
        // The recorded client's request ids (as JSON text), and the live ones.
        let mut ids: Vec<(String, Value)> = Vec::new();
        // Whether a live id differs from the recorded one it stands for (an answer's
        // `id` is then changed as it is written).
        let mut renamed = false;
        let mut ended = Exit::Code(exit_codes::OK);
        loop {
            if self.whole && self.ended.is_none() && self.send_run(&mut frames, &ids, renamed).await? {
                continue;
            }
            let Some(frame) = frames.next() else {
                break;
            };
            let frame = frame.map_err(ExecError::from)?;
            if let Some(exit) = self.ended {
                self.output.flush().await?;
                return Ok(exit);
            }
            match frame {
                Frame::Line(line) if line.stream == harness::frames::Stream::Stdin => {
                    let live = loop {
                        let event = match self.pending.pop_front() {
                            Some(event) => {
                                self.queued = self.queued.saturating_sub(event.cost());
                                event
                            }
                            None if self.eof => Event::Eof,
                            None => self.next_event().await?,
                        };
                        match event {
                            Event::Line(live) if live.iter().all(u8::is_ascii_whitespace) => {}
                            Event::Line(live) => break live,
                            Event::Eof => {
                                self.eof = true;
                                self.output.flush().await?;
                                return Ok(self.ended.unwrap_or(Exit::Code(exit_codes::OK)));
                            }
                            Event::TooLong(read) => {
                                self.handle(Event::TooLong(read)).await?;
                                self.output.flush().await?;
                                return Ok(self.ended.unwrap_or(Exit::Code(exit_codes::INVALID_INPUT)));
                            }
                        }
                    };
                    self.note(journal::IN, &live);
                    self.answered(&live);
                    let (recorded, live_value) = (
                        serde_json::from_slice::<Value>(&line.bytes).ok(),
                        serde_json::from_slice::<Value>(&live).ok(),
                    );
                    if let (Some(recorded), Some(live)) = (recorded, live_value) {
                        if recorded.get("method").is_some() {
                            if let (Some(was), Some(now)) = (recorded.get("id"), live.get("id")) {
                                renamed |= was != now;
                                ids.push((was.to_string(), now.clone()));
                            }
                        }
                    }
                    self.at = line.at;
                    let now = self.output.elapsed();
                    self.clock.rebase(now, self.at);
                }
                Frame::Line(line) if line.stream == harness::frames::Stream::Stderr => {
                    self.note(journal::ERR, &line.bytes);
                    self.output
                        .perform(Frame::Line(Line::stderr(Duration::ZERO, line.bytes)))
                        .await?;
                }
                Frame::Line(line) => {
                    self.at = line.at;
                    let mut bytes = line.bytes;
                    // A line with no `id` key (a notification of the turn's stream)
                    // neither answers the client nor asks it: not parsed.
                    let parsed = may_have_id(&self.glance, &bytes);
                    if let Some(live) = parsed.then(|| answer_id(&bytes, &ids)).flatten() {
                        bytes = live;
                    }
                    if let Some(value) = parsed
                        .then(|| serde_json::from_slice::<Value>(&bytes).ok())
                        .flatten()
                    {
                        if let (Some(method), Some(id)) = (
                            value.get("method").and_then(Value::as_str),
                            value.get("id").and_then(Value::as_i64),
                        ) {
                            self.asked = Some((id, method.to_owned(), Instant::now()));
                        }
                    }
                    if line.newline {
                        self.send(bytes, true).await?;
                    } else {
                        self.out(Out::Cut(bytes), true).await?;
                    }
                }
                Frame::End(end) => {
                    ended = end.exit;
                    break;
                }
                _ => {}
            }
        }
        for out in self.injector.end() {
            if self.out(out, false).await? {
                break;
            }
        }
        self.output.flush().await?;
        Ok(self.ended.unwrap_or(ended))
    }

    /// Writes the recording's next run of lines that neither ask the client nor answer
    /// it with a live id of its own (no `id`, as [`may_have_id`] tells, or an answer
    /// written as it stands, as [`unchanged_answer`] tells, given the client's `ids`)
    /// in one piece, at the time the first is due (a plain run's: at once); `false`
    /// when the next line is not one.
    ///
    /// Where no live id differs from the recorded one (`renamed` false: the client
    /// sent the recorded ids, or none yet), no answer's `id` changes ([`answer_id`]),
    /// and a whole replay journals nothing (a request of the server's is noted only
    /// for the journal): every line is written as it stands, not looked at.
    async fn send_run(
        &mut self,
        frames: &mut Script,
        ids: &[(String, Value)],
        renamed: bool,
    ) -> Result<bool, Stop> {
        let mut run = Vec::new();
        let glance = &self.glance;
        let count = frames
            .fast_run(&mut run, RUN_BYTES, usize::MAX, |line| {
                // An answer of the writer's shape is told without the scan for an `id`.
                !renamed || unchanged_answer(glance, line, ids) || !may_have_id(glance, line)
            })
            .map_err(ExecError::from)?;
        if count == 0 {
            return Ok(false);
        }
        self.at = Script::position(frames).at;
        run.pop();
        let due = self.clock.due(self.at, true);
        self.write(due, Frame::Line(Line::stdout(Duration::ZERO, run)))
            .await?;
        Ok(true)
    }

    /// Waits for what the client sends next.
    async fn next_event(&mut self) -> Result<Event, Stop> {
        let mut client = Client {
            inbox: &mut self.inbox,
            eof: false,
            full: false,
        };
        Ok(self
            .output
            .wait_until(Duration::MAX, false, &mut client)
            .await?
            .unwrap_or(Event::Eof))
    }

    /// Handles what came from the client.
    async fn handle(&mut self, event: Event) -> Result<(), Stop> {
        let line = match event {
            Event::Eof => {
                self.eof = true;
                return Ok(());
            }
            Event::TooLong(read) => {
                self.error = Some(conversation::too_long(self, read).await?);
                return Ok(());
            }
            Event::Line(line) => line,
        };
        if line.iter().all(u8::is_ascii_whitespace) {
            return Ok(());
        }
        self.note(journal::IN, &line);
        self.answered(&line);
        self.player.set_time(execute::now_ms());
        let reply = self.player.feed(&line);
        // Steps count from the client's message.
        let now = self.output.elapsed();
        self.clock.rebase(now, self.at);
        for text in reply.stderr {
            self.note(journal::ERR, text.as_bytes());
            self.output
                .perform(Frame::Line(Line::stderr(Duration::ZERO, text)))
                .await?;
        }
        for line in reply.lines {
            if self.ended.is_some() {
                break;
            }
            self.send(line, false).await?;
        }
        Ok(())
    }

    /// Journals the client's answer to the request waited on, when `line` is it.
    fn answered(&mut self, line: &[u8]) {
        let Some((id, _, _)) = &self.asked else {
            return;
        };
        let Ok(value) = serde_json::from_slice::<Value>(line) else {
            return;
        };
        if value.get("method").is_some() || value.get("id").and_then(Value::as_i64) != Some(*id) {
            return;
        }
        let Some((id, method, since)) = self.asked.take() else {
            return;
        };
        let answer = value
            .get(harness::dialects::codex::wire::rpc::RESULT)
            .or_else(|| value.get(harness::dialects::codex::wire::rpc::ERROR))
            .cloned()
            .unwrap_or(Value::Null);
        if let Some(journal) = &mut self.journal {
            journal.answer(&journal::Answer {
                id: id.to_string(),
                method,
                answer,
                after_ms: u64::try_from(since.elapsed().as_millis()).unwrap_or(u64::MAX),
            });
        }
    }

    /// Writes one of the server's lines through the faults, at its time when `timed`
    /// (a turn's notification), else at once (an answer).
    async fn send(&mut self, line: Vec<u8>, timed: bool) -> Result<(), Stop> {
        // Without a fault, a line is written as it is (what the faults give then),
        // without being read for them.
        if self.injector.faults().is_empty() {
            self.out(Out::Line(line), timed).await?;
            return Ok(());
        }
        let mut outs = self.injector.line(line).into_iter();
        while let Some(out) = outs.next() {
            if self.out(out, timed).await? {
                if self.ended.is_none() {
                    // The client interrupted a stall: the rest was never written.
                    let rest: Vec<Vec<u8>> = outs
                        .filter_map(|out| match out {
                            Out::Line(line) => Some(line),
                            _ => None,
                        })
                        .collect();
                    self.player.unwritten(&rest);
                }
                return Ok(());
            }
        }
        Ok(())
    }

    /// Performs one thing the faults made of a line (a whole line at its time when
    /// `timed`: a turn's notification; else at once: an answer); `true` when the
    /// process ends, or the client interrupted a stall in a turn.
    async fn out(&mut self, out: Out, timed: bool) -> Result<bool, Stop> {
        conversation::out(self, out, timed).await
    }

    /// Stalls for `duration` (`None`: for ever), still reading the client, as the real
    /// server does while the model is silent: what the client sends is kept, to be
    /// handled after, and a `turn/interrupt` ends the stall (the real 0.163.0, its
    /// model stream stalled, answers it and ends the turn `interrupted`: observed).
    /// `true` when the client interrupted a turn under way: the stalled line is not
    /// written, the interrupt ends the turn. A turn whose end is already told (a stall
    /// at `turn/completed`) ends as told, the line written at once, then the answer.
    async fn stall(&mut self, duration: Option<Duration>) -> Result<bool, Stop> {
        // A consumer that closed stdout waits for nothing more.
        if self.output.stdout_closed_at().is_some() {
            return Ok(false);
        }
        let due = duration.map_or(Duration::MAX, |d| self.output.elapsed().saturating_add(d));
        loop {
            let Some(event) = conversation::wait(self, due, false).await? else {
                return Ok(false);
            };
            let interrupts = matches!(&event, Event::Line(line) if is_interrupt(line));
            conversation::Server::keep(self, event);
            if interrupts {
                return Ok(self.player.in_turn());
            }
        }
    }

    /// Performs `frame` at `due`; what the client sends before is kept, to be handled
    /// once it is written.
    async fn write(&mut self, due: Duration, frame: Frame) -> Result<(), Stop> {
        conversation::write(self, due, frame).await
    }

    /// Whether the end of stdin waits unhandled.
    fn eof_pending(&self) -> bool {
        self.pending.iter().any(|e| matches!(e, Event::Eof))
    }

    /// Journals a line that went `dir`.
    fn note(&mut self, dir: &str, line: &[u8]) {
        let at_ms = u64::try_from(self.output.elapsed().as_millis()).unwrap_or(u64::MAX);
        if let Some(journal) = &mut self.journal {
            journal.message(dir, at_ms, line);
        }
    }
}

impl<O: AsyncWrite + Unpin, E: AsyncWrite + Unpin> conversation::Server for Server<O, E> {
    type Stdout = O;
    type Stderr = E;

    fn listen(&mut self) -> (&mut Output<O, E>, Client<'_>) {
        // Read no more for now: stdin ended (or its end waits unhandled), or what the
        // client sent waits unhandled up to [`QUEUED`] bytes.
        let client = Client {
            eof: self.eof || self.eof_pending(),
            full: self.queued >= QUEUED,
            inbox: &mut self.inbox,
        };
        (&mut self.output, client)
    }

    fn keep(&mut self, event: Event) {
        self.queued += event.cost();
        self.pending.push_back(event);
    }

    fn note(&mut self, dir: &str, line: &[u8]) {
        Server::note(self, dir, line);
    }

    fn ended(&mut self) -> &mut Option<Exit> {
        &mut self.ended
    }

    async fn line(&mut self, line: Vec<u8>, timed: bool) -> Result<(), Stop> {
        Server::note(self, journal::OUT, &line);
        let due = if timed {
            self.clock.due(self.at, true)
        } else {
            Duration::ZERO
        };
        self.write(due, Frame::Line(Line::stdout(Duration::ZERO, line)))
            .await
    }

    /// The start of a line is written at once, and journaled.
    async fn cut(&mut self, bytes: Vec<u8>) -> Result<(), Stop> {
        Server::note(self, journal::OUT, &bytes);
        let mut line = Line::stdout(Duration::ZERO, bytes);
        line.newline = false;
        self.write(Duration::ZERO, Frame::Line(line)).await
    }

    /// A replayed recording's stall is the executor's; a live one listens to the
    /// client, whose interrupt ends the turn under way (see [`Server::stall`]).
    async fn pause(&mut self, duration: Option<Duration>) -> Result<bool, Stop> {
        self.output.flush().await?;
        if self.replaying {
            self.output
                .perform(Frame::Stall {
                    at: Duration::ZERO,
                    duration,
                })
                .await?;
            return Ok(false);
        }
        // The rest of the stalled line's turn is not told: the client interrupted it.
        self.stall(duration).await
    }
}
