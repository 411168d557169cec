//! A recording of Claude Code (`mock-agent record -- claude ... --input-format
//! stream-json`), replayed as a script that follows the live client. Pure: no clock,
//! no I/O but reading the cassette.
//!
//! The recording's frames are cut where the client's lines came:
//!
//! - the CLI's lines are cut into **turns**, each ending with its `result` (and the
//!   `session_state_changed idle` right after it); a user message of the live client
//!   plays the next recorded turn ([`Script::begin`]), the last one again when the
//!   client sends more prompts than were recorded (a divergence);
//! - the client's **control requests** (`initialize`, `interrupt`, `set_model`, ...)
//!   are answered at once with the recorded answer to the next recorded request of
//!   the same subtype, its `request_id` the live one ([`Script::request`]); a live
//!   `interrupt` also skips what the recording's turn did until its client
//!   interrupted. A request the recording does not have is a divergence, for the
//!   process to answer as the built-in session would;
//! - the CLI's own **requests** (`can_use_tool`, `hook_callback`, `mcp_message`) wait,
//!   where the recording waited, for the live client's answer ([`Script::answer`]);
//!   an answer that differs from the recorded one (deny where it allowed) is a
//!   divergence, and the recording goes on as recorded.
//!
//! The replay follows the live client's command line, as the real CLI would
//! ([`Script::follow`]): to a client that did not ask to be asked (no
//! `--permission-prompt-tool stdio`), a recorded `can_use_tool` is not sent (the real
//! CLI denies at once and writes no request; a divergence, the recording goes on as
//! recorded), and to one that reads no session states (no
//! `CLAUDE_CODE_SDK_READS_SESSION_STATE`), no `session_state_changed` line is.
//!
//! Every line is replayed byte for byte, but the `request_id` of the answers to the
//! client's requests. Each line carries its recorded time ([`Script::at`]), each turn
//! and each answer the time it is timed from ([`Script::base`]). The recording's
//! stderr lines and its ending are not replayed: the process ends as the CLI does at
//! the end of its input (exit 1 after an error result).
//!
//! A Claude Code cassette is a format-2 cassette (it has `in` frames) whose
//! invocation says `"dialect":"claude"` ([`header`]).

use std::collections::VecDeque;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use super::expect;
use super::faults::{Answer, Injector, Out};
use super::play::partial::Partial;
use super::play::Next;
use super::session::{End, Session, Step, ToolCall, Turn};
use super::wire::{blocks, content, control, fields, results, system, types};
use crate::cassette::tape::{ended_early, At, Frames, Mark, Tape};
use crate::cassette::Reader;
use crate::cassette::{Header, Invocation};
use crate::dialects::claude::faults::ClaudeFault;
use crate::error::{CassetteError, Diagnostic, ProblemKind};
use crate::expect::Expectation;
use crate::frames::{Exit, FrameResult};
use index::{Builder, Index};
use std::io::BufReader;

pub use super::wire::{DIALECT, DIALECT_KEY};

/// The seed of the ids of the stream events a replay adds (see [`Script::stream_events`]).
const PARTIAL_SEED: u64 = 0x5eed;

/// The header of a recording of Claude Code: format 2 (it has the client's lines),
/// `"dialect":"claude"`.
pub fn header(invocation: Invocation) -> Header {
    Header::of_dialect(invocation, DIALECT)
}

/// Whether a cassette's header says it is a recording of Claude Code.
pub fn is_claude(header: &Header) -> bool {
    header.dialect() == Some(DIALECT)
}

/// One thing a recorded turn does.
#[derive(Debug, Clone, PartialEq)]
enum Item {
    /// A line on stdout; `kind`: its type and subtype, for a line that is none of
    /// a turn's stream.
    Line {
        at: Duration,
        line: Vec<u8>,
        kind: Option<(String, Option<String>)>,
    },
    /// A request of the CLI's; `answered`: the recording has the client's answer.
    Ask {
        at: Duration,
        id: String,
        subtype: String,
        line: Vec<u8>,
        answered: bool,
    },
    /// Where the recorded client answered request `id`, and with what.
    Await {
        at: Duration,
        id: String,
        recorded: Result<Value, String>,
    },
    /// Where the recorded client interrupted the turn.
    Interrupt,
}

/// One of the recorded client's control requests, and the CLI's answer.
#[derive(Debug, Clone, PartialEq)]
struct Recorded {
    subtype: String,
    /// Its `request_id`, as JSON text.
    id: String,
    /// When the request came.
    at: Duration,
    /// The answer, and when; `None` when the CLI never answered.
    answer: Option<(Duration, Vec<u8>)>,
    used: bool,
}

/// A waited-for request of the CLI's: its id and subtype.
#[derive(Debug, Clone, PartialEq)]
struct Waiting {
    id: String,
    subtype: String,
}

/// A recorded Claude Code conversation, played as the live client goes. Its turns
/// are read from the cassette as they play: the script holds its index, not its lines.
#[derive(Debug)]
pub struct Script {
    index: Arc<Index>,
    tape: Tape,
    requests: Vec<Recorded>,
    /// The frames of the turn under way not read yet.
    playing: Option<Playing>,
    /// The things of the turn read and not played yet: while the turn has any left,
    /// at least one.
    ahead: VecDeque<Item>,
    played: usize,
    waiting: Option<Waiting>,
    at: Duration,
    base: Duration,
    last_error: bool,
    divergences: Vec<String>,
    /// The live client asked to be asked (`--permission-prompt-tool stdio`).
    asks: bool,
    /// The live client reads session states.
    states: bool,
    /// Why the tape could not be read on (the turn ended there).
    error: Option<CassetteError>,
    /// The stream events the recording lacks, told to a live client that asks for
    /// them ([`Script::stream_events`]).
    partial: Option<Partial>,
    /// Lines of those to send before the next thing.
    told: VecDeque<Vec<u8>>,
    /// The index pass of a large cassette played in one pass ([`Script::open_live`]).
    live: Option<Box<live::Live>>,
}

/// The frames of a turn, as they are read.
#[derive(Debug)]
struct Playing {
    frames: Frames,
    /// The number of the next frame.
    next: usize,
    /// The number of the frame after the turn's last.
    until: usize,
}

impl Script {
    /// Follows a live client that asked to be asked (`asks`: `--permission-prompt-tool
    /// stdio`) or not, and reads session states (`states`) or not; a script follows
    /// one that does both until told otherwise.
    pub fn follow(&mut self, asks: bool, states: bool) {
        self.asks = asks;
        self.states = states;
    }

    /// Follows a live client that asks for partial messages
    /// (`--include-partial-messages`: `wanted`) or not. To one that does, a recording
    /// made without them tells each `assistant` line with the stream events the real
    /// CLI writes around it ([`Partial`]: the recording kept the blocks whole); a
    /// recording made with them plays them as recorded.
    pub fn stream_events(&mut self, wanted: bool) {
        if wanted {
            self.settle();
        }
        self.partial = (wanted && !self.index.stream_events).then(|| Partial::new(PARTIAL_SEED));
    }

    /// The script of the Claude Code cassette at `path`.
    pub fn open(path: &Path) -> Result<Script, CassetteError> {
        let (tape, reader, mut builder) = Script::opened(path)?;
        let end = tape.index_with(reader, &mut builder)?;
        Ok(Script::of(builder.index(end), tape))
    }

    /// The Claude Code cassette at `path` opened, its header read, and the builder of
    /// its index.
    fn opened(path: &Path) -> Result<(Tape, Reader<BufReader<At>>, Builder), CassetteError> {
        let (tape, reader) = Tape::open(path)?;
        let Some(header) = reader.header().filter(|h| is_claude(h)) else {
            return Err(not_claude(path));
        };
        if let Some(format) = header
            .invocation
            .output_format
            .filter(|f| *f != crate::format::OutputFormat::StreamJson)
        {
            return Err(Diagnostic {
                path: path.to_owned(),
                line: 1,
                column: 1,
                kind: ProblemKind::Unsupported,
                message: format!(
                    "this recording of `claude -p` was made with `--output-format {format}`: it holds the answer as printed, not the CLI's lines, and cannot be played again"
                ),
                source_line: None,
                help: "record it with `--output-format stream-json --verbose` (the mock prints it in any format on replay)".into(),
            }
            .into());
        }
        let builder = Builder::new(Mark {
            frame: 0,
            position: reader.position(),
        });
        Ok((tape, reader, builder))
    }

    /// The script of a recording's frames (its `in` lines the client's), held in
    /// memory. A cassette file is better played with [`Script::open`], which does not
    /// hold it.
    pub fn new(frames: impl IntoIterator<Item = FrameResult>) -> Result<Script, CassetteError> {
        let mut builder = Builder::new(Mark::default());
        let mut held = Vec::new();
        for frame in frames {
            let frame = frame?;
            let after = Mark {
                frame: held.len() + 1,
                position: crate::cassette::Position::default(),
            };
            builder.add(&frame, after);
            held.push(frame);
        }
        Ok(Script::of(builder.index(0), Tape::Memory(held.into())))
    }

    fn of(index: Index, tape: Tape) -> Script {
        Script {
            requests: index.requests.clone(),
            index: Arc::new(index),
            tape,
            playing: None,
            ahead: VecDeque::new(),
            played: 0,
            waiting: None,
            at: Duration::ZERO,
            base: Duration::ZERO,
            last_error: false,
            divergences: Vec::new(),
            asks: true,
            states: true,
            error: None,
            partial: None,
            told: VecDeque::new(),
            live: None,
        }
    }

    /// The same recording, not played yet (as it was opened, following the same
    /// client).
    fn fresh(&self) -> Result<Script, CassetteError> {
        if let (Some(_), Tape::File { path, .. }) = (&self.live, &self.tape) {
            return Script::open(path)?.fresh();
        }
        let mut script = Script::of(Index::clone(&self.index), self.tape.clone());
        script.follow(self.asks, self.states);
        script.stream_events(self.partial.is_some());
        Ok(script)
    }

    /// Why the recording could not be read on, once: the turn ended there.
    pub fn take_error(&mut self) -> Option<CassetteError> {
        self.error.take()
    }

    /// The next thing of the turn under way read from the tape (`None` at its end).
    fn read(&mut self) -> Option<Item> {
        if self.live.is_some() {
            return self.read_live();
        }
        loop {
            let playing = self.playing.as_mut()?;
            let n = playing.next;
            let frame = match (n < playing.until).then(|| playing.frames.next()).flatten() {
                Some(Ok(frame)) => frame,
                Some(Err(e)) => {
                    self.error = Some(e);
                    self.playing = None;
                    return None;
                }
                None if n < playing.until => {
                    self.error = Some(ended_early(&playing.frames));
                    self.playing = None;
                    return None;
                }
                None => {
                    self.playing = None;
                    return None;
                }
            };
            playing.next += 1;
            if let Some(item) = self.index.item(n, frame) {
                return Some(item);
            }
        }
    }

    /// Reads the next thing of the turn, when none is read ahead.
    fn fill(&mut self) {
        if self.ahead.is_empty() {
            if let Some(item) = self.read() {
                self.ahead.push_back(item);
            }
        }
    }

    /// Begins the next turn, for a user message of the live client's.
    pub fn begin(&mut self) {
        if self.begin_live() {
            return;
        }
        let turns = &self.index.turns;
        let index = self.played.min(turns.len().saturating_sub(1));
        if self.played >= turns.len() {
            self.divergences.push(format!(
                "the client sent prompt {}; the recording has {}: {}",
                self.played + 1,
                turns.len(),
                if turns.is_empty() {
                    "nothing plays"
                } else {
                    "its last turn plays again"
                }
            ));
        }
        self.played += 1;
        let span = turns.get(index).copied();
        self.ahead.clear();
        self.playing = None;
        self.waiting = None;
        if let Some(span) = span {
            match self.tape.frames(span.from, span.end) {
                Ok(frames) => {
                    self.playing = Some(Playing {
                        frames,
                        next: span.from.frame,
                        until: span.until,
                    });
                }
                Err(e) => self.error = Some(e),
            }
        }
        self.base = self
            .index
            .prompts
            .get(index)
            .copied()
            .or_else(|| span.and_then(|s| s.first_at))
            .unwrap_or_default();
        self.at = self.base;
        self.fill();
    }

    /// The id of the session recorded: the first `session_id` of the CLI's lines.
    pub fn session_id(&mut self) -> Option<String> {
        self.settle();
        self.index.session_id.clone()
    }

    /// Whether a turn is under way.
    pub fn in_turn(&self) -> bool {
        !self.ahead.is_empty() || !self.told.is_empty()
    }

    /// What to do next.
    pub fn step(&mut self) -> Next {
        loop {
            if let Some(line) = self.told.pop_front() {
                return Next::Send(line);
            }
            let Some(item) = self.ahead.pop_front() else {
                let ended = self.partial.as_mut().map(Partial::close).unwrap_or_default();
                if ended.is_empty() {
                    return Next::Done;
                }
                self.told.extend(ended);
                continue;
            };
            if !matches!(item, Item::Await { .. }) {
                self.fill();
            }
            // The message under way ends before the CLI asks anything.
            if let (Item::Ask { .. }, Some(partial)) = (&item, self.partial.as_mut()) {
                let ended = partial.close();
                if !ended.is_empty() {
                    self.ahead.push_front(item);
                    self.told.extend(ended);
                    continue;
                }
            }
            match item {
                Item::Line { at, line, kind } => {
                    // A line of a turn's stream is neither a state nor a result.
                    if !self.states
                        && kind.as_ref().is_some_and(|(kind, subtype)| {
                            kind == types::SYSTEM && subtype.as_deref() == Some(system::SESSION_STATE_CHANGED)
                        })
                    {
                        continue;
                    }
                    self.at = at;
                    if kind.is_some_and(|(kind, _)| kind == types::RESULT) {
                        self.last_error = serde_json::from_slice::<Value>(&line)
                            .ok()
                            .and_then(|v| v.get(fields::IS_ERROR).and_then(Value::as_bool))
                            .unwrap_or(false);
                    }
                    if let Some(partial) = self.partial.as_mut() {
                        self.told.extend(partial.around(line));
                        continue;
                    }
                    return Next::Send(line);
                }
                Item::Ask {
                    at,
                    id,
                    subtype,
                    line,
                    answered,
                } => {
                    if !self.asks && subtype == control::CAN_USE_TOOL {
                        // Its recorded answer, if any, is passed over: nobody waits for it.
                        self.divergences.push(format!(
                            "the recording's CLI asked `can_use_tool` `{id}`; the client did not ask to be asked (no `--permission-prompt-tool stdio`): the request was not sent, and the recording goes on as recorded"
                        ));
                        continue;
                    }
                    self.at = at;
                    if answered {
                        self.waiting = Some(Waiting { id: id.clone(), subtype });
                    }
                    return Next::Ask { id, line };
                }
                Item::Await { at, id, recorded } => {
                    if self.waiting_for() == Some(id.as_str()) {
                        self.ahead.push_front(Item::Await { at, id, recorded });
                        return Next::Waiting;
                    }
                    self.fill();
                }
                Item::Interrupt => self.divergences.push(
                    "the recording's client interrupted the turn here and the live one did not: the turn goes on as recorded"
                        .into(),
                ),
            }
        }
    }

    /// The id of the CLI's request the script waits for an answer to.
    pub fn waiting_for(&self) -> Option<&str> {
        self.waiting.as_ref().map(|w| w.id.as_str())
    }

    /// The live client answered the request the script waits for: `Ok` with the
    /// `response` of a success, `Err` with an error answer's text. The recording goes
    /// on as recorded; an answer unlike the recorded one is a divergence.
    pub fn answer(&mut self, live: Result<Value, String>) {
        self.settle();
        let Some(waiting) = self.waiting.take() else {
            return;
        };
        // The answer may come before the script reached the recorded one's place:
        // the turn is read on to it, when the recording has it.
        let is_it = |i: &Item| matches!(i, Item::Await { id, .. } if *id == waiting.id);
        let mut place = self.ahead.iter().position(is_it);
        let further = self
            .playing
            .as_ref()
            .is_some_and(|p| self.index.answered_in(&waiting.id, p.next, p.until));
        if place.is_none() && further {
            while let Some(item) = self.read() {
                let found = is_it(&item);
                self.ahead.push_back(item);
                if found {
                    place = Some(self.ahead.len() - 1);
                    break;
                }
            }
        }
        let Some(Item::Await { at, recorded, .. }) = place.and_then(|place| self.ahead.remove(place)) else {
            return;
        };
        self.fill();
        self.base = at;
        self.at = at;
        if !same_answer(&live, &recorded) {
            self.divergences.push(format!(
                "the client answered {} `{}` with {}; the recording's client answered {}: the recording goes on as recorded",
                waiting.subtype,
                waiting.id,
                describe(&live),
                describe(&recorded)
            ));
        }
    }

    /// The recorded answer to the live client's control request `subtype` with the id
    /// `id`, and when the recorded request came; `None` when the recording has no
    /// more of them (a divergence: the process answers as it would). The lines are the
    /// answer (none when the recorded CLI never answered). An `interrupt` also skips
    /// the turn to where the recording's client interrupted it.
    pub fn request(&mut self, id: &Value, subtype: &str) -> Option<(Vec<Vec<u8>>, Duration)> {
        self.settle_for_request(subtype);
        let Some(recorded) = self.requests.iter_mut().find(|r| !r.used && r.subtype == subtype) else {
            self.divergences.push(format!(
                "the client sent a `{subtype}` request that the recording does not have (or has no more of): the mock answered it itself"
            ));
            if subtype == control::INTERRUPT {
                self.interrupt();
            }
            return None;
        };
        recorded.used = true;
        let at = recorded.at;
        let mut lines = Vec::new();
        if let Some((answered_at, line)) = &recorded.answer {
            let live = serde_json::to_string(id).unwrap_or_default();
            lines.push(with_id(line, &recorded.id, &live));
            self.at = *answered_at;
        }
        if subtype == control::INTERRUPT {
            self.interrupt();
        }
        Some((lines, at))
    }

    /// The live client interrupted: the turn skips to where the recording's client
    /// interrupted it (the interrupt's `user` line and result follow). Nothing to
    /// write here: the rest of the turn plays on. When the recording's turn was not
    /// interrupted, it goes on as recorded (a divergence).
    pub fn interrupt(&mut self) -> Vec<Vec<u8>> {
        self.settle();
        let further = self
            .playing
            .as_ref()
            .is_some_and(|p| self.index.interrupted_in(p.next, p.until));
        if let Some(at) = self.ahead.iter().position(|i| *i == Item::Interrupt) {
            self.ahead.drain(..=at);
            self.waiting = None;
            self.fill();
        } else if further {
            self.ahead.clear();
            while let Some(item) = self.read() {
                if item == Item::Interrupt {
                    break;
                }
            }
            self.waiting = None;
            self.fill();
        } else if self.in_turn() {
            self.divergences.push(
                "the client interrupted a turn that the recording's client did not: the turn goes on as recorded"
                    .into(),
            );
        }
        Vec::new()
    }

    /// Whether the last result played was an error (the process then exits 1).
    pub fn last_is_error(&self) -> bool {
        self.last_error
    }

    /// When the line played last (or the answer given last) was recorded.
    pub fn at(&self) -> Duration {
        self.at
    }

    /// What the turn under way is timed from on the recording's clock: when its
    /// prompt came, or when the last waited-for answer came.
    pub fn base(&self) -> Duration {
        self.base
    }

    /// The divergences noted since the last call.
    pub fn take_divergences(&mut self) -> Vec<String> {
        std::mem::take(&mut self.divergences)
    }

    /// The recording as a [`Session`]: each turn's text and thinking blocks, its tool
    /// calls (with their results; asking when the CLI sent `can_use_tool`), and how it
    /// ended. A successful turn ends with a text block of its result's text.
    pub fn session(&self) -> Result<Session, CassetteError> {
        if let (Some(_), Tape::File { path, .. }) = (&self.live, &self.tape) {
            return Script::open(path)?.session();
        }
        let mut turns = Vec::new();
        for span in &self.index.turns {
            let mut frames = self.tape.frames(span.from, span.end)?;
            let mut items = Vec::new();
            for n in span.from.frame..span.until {
                let Some(frame) = frames.next() else {
                    return Err(ended_early(&frames));
                };
                items.extend(self.index.item(n, frame?));
            }
            turns.push(turn_of(&items));
        }
        if turns.is_empty() {
            turns.push(Turn {
                steps: Vec::new(),
                end: End::Success,
            });
        }
        Ok(Session { turns })
    }
}

/// The error of a cassette that is not a recording of Claude Code.
fn not_claude(path: &Path) -> CassetteError {
    Diagnostic {
        path: path.to_owned(),
        line: 1,
        column: 1,
        kind: ProblemKind::Unsupported,
        message: "this cassette is not a recording of Claude Code (its header has no `\"dialect\":\"claude\"`)"
            .into(),
        source_line: None,
        help: "record one with `mock-agent record --out FILE -- claude --output-format stream-json --verbose --input-format stream-json`, or replay this one as `cursor-agent`"
            .into(),
    }
    .into()
}

/// `line` with the `request_id` `recorded` (JSON text) made `live`: the bytes as they
/// are but the id's, or, when the id is not spelled as expected, the line written
/// again with the live id.
fn with_id(line: &[u8], recorded: &str, live: &str) -> Vec<u8> {
    const KEY: &[u8] = b"\"request_id\":";
    let mut from = 0;
    while let Some(found) = memchr::memmem::find(&line[from..], KEY) {
        let start = from + found + KEY.len();
        let value = start
            + line[start..]
                .iter()
                .take_while(|b| b.is_ascii_whitespace())
                .count();
        if line[value..].starts_with(recorded.as_bytes()) {
            let mut out = Vec::with_capacity(line.len() + live.len());
            out.extend_from_slice(&line[..value]);
            out.extend_from_slice(live.as_bytes());
            out.extend_from_slice(&line[value + recorded.len()..]);
            return out;
        }
        from = start;
    }
    let Ok(mut value) = serde_json::from_slice::<Value>(line) else {
        return line.to_vec();
    };
    if let (Some(slot), Ok(live)) = (
        value.pointer_mut("/response/request_id"),
        serde_json::from_str::<Value>(live),
    ) {
        *slot = live;
    }
    serde_json::to_vec(&value).unwrap_or_else(|_| line.to_vec())
}

/// Whether two answers to a request of the CLI's decide the same: the same
/// permission `behavior`, or the same answer.
fn same_answer(live: &Result<Value, String>, recorded: &Result<Value, String>) -> bool {
    match (live, recorded) {
        (Ok(live), Ok(recorded)) => match (live.get("behavior"), recorded.get("behavior")) {
            (Some(a), Some(b)) => a == b,
            _ => live == recorded,
        },
        (Err(_), Err(_)) => true,
        _ => false,
    }
}

fn describe(answer: &Result<Value, String>) -> String {
    match answer {
        Ok(value) => match value.get("behavior").and_then(Value::as_str) {
            Some(behavior) => format!("`{behavior}`"),
            None => format!("`{value}`"),
        },
        Err(error) => format!("an error (`{error}`)"),
    }
}

/// A recorded turn as the session model has it.
fn turn_of(items: &[Item]) -> Turn {
    let mut steps = Vec::new();
    let mut asked = Vec::new();
    let mut end = End::Success;
    let mut answer = None;
    for item in items {
        let line = match item {
            Item::Line { line, .. } => line,
            Item::Ask { line, .. } => {
                if let Ok(value) = serde_json::from_slice::<Value>(line) {
                    if value.pointer("/request/subtype").and_then(Value::as_str)
                        == Some(control::CAN_USE_TOOL)
                    {
                        asked.push(value.pointer("/request/tool_use_id").cloned().unwrap_or_default());
                    }
                }
                continue;
            }
            Item::Await { .. } | Item::Interrupt => continue,
        };
        let Ok(value) = serde_json::from_slice::<Value>(line) else {
            continue;
        };
        match value.get("type").and_then(Value::as_str) {
            Some(types::ASSISTANT) => {
                for block in content(&value) {
                    match block.get("type").and_then(Value::as_str) {
                        Some(blocks::TEXT) => steps.push(Step::Text(str_of(block, "text"))),
                        Some(blocks::THINKING) => steps.push(Step::Thinking(str_of(block, blocks::THINKING))),
                        Some(blocks::TOOL_USE) => steps.push(Step::Tool(ToolCall {
                            name: str_of(block, "name"),
                            input: block.get("input").cloned().unwrap_or(Value::Null),
                            asks: false,
                            output: String::new(),
                        })),
                        _ => {}
                    }
                }
            }
            Some(types::USER) => {
                for result in value
                    .pointer("/message/content")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter(|b| b.get("type").and_then(Value::as_str) == Some(blocks::TOOL_RESULT))
                {
                    let output = super::wire::text_of(result.get("content").unwrap_or(&Value::Null));
                    let id = result.get("tool_use_id").cloned().unwrap_or_default();
                    let asks = asked.contains(&id);
                    // The call this result answers: the last call without one.
                    if let Some(Step::Tool(call)) = steps
                        .iter_mut()
                        .rev()
                        .find(|s| matches!(s, Step::Tool(c) if c.output.is_empty()))
                    {
                        call.output = output;
                        call.asks = asks;
                    }
                }
            }
            Some(types::RESULT) => {
                let is_error = value
                    .get(fields::IS_ERROR)
                    .and_then(Value::as_bool)
                    .unwrap_or(false);
                let subtype = value.get("subtype").and_then(Value::as_str).unwrap_or_default();
                let text = value
                    .get(fields::RESULT)
                    .and_then(Value::as_str)
                    .map(str::to_owned);
                end = match (subtype, is_error) {
                    (results::SUCCESS, false) => End::Success,
                    (results::SUCCESS, true) => End::ApiError {
                        status: value
                            .get("api_error_status")
                            .and_then(Value::as_u64)
                            .and_then(|s| u16::try_from(s).ok())
                            .unwrap_or(0),
                        text: text.clone().unwrap_or_default(),
                        error: String::new(),
                    },
                    (subtype, _) => End::Error {
                        subtype: subtype.to_owned(),
                        errors: value
                            .get(fields::ERRORS)
                            .and_then(Value::as_array)
                            .into_iter()
                            .flatten()
                            .filter_map(|e| e.as_str().map(str::to_owned))
                            .collect(),
                    },
                };
                answer = text;
            }
            _ => {}
        }
    }
    let last_text = steps.iter().rev().find_map(|s| match s {
        Step::Text(t) => Some(t.as_str()),
        _ => None,
    });
    if let (End::Success, Some(answer)) = (&end, answer) {
        if last_text != Some(answer.as_str()) {
            steps.push(Step::Text(answer));
        }
    }
    Turn { steps, end }
}

fn str_of(value: &Value, key: &str) -> String {
    value
        .get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

/// What a careful consumer concludes from the script's first turn played with
/// `faults` (one prompt, every request of the CLI's answered as recorded): success
/// with the recorded result's text, or failure; and the assistant's text blocks.
/// Faults that change the session (`not-logged-in`, `max-turns`, `error-result`)
/// do not act on a recording.
pub fn expectation(script: &Script, faults: &[ClaudeFault]) -> (Expectation, Vec<String>) {
    // A recording that cannot be read whole fails as its replay does.
    let Ok(mut script) = script.fresh() else {
        return (Expectation::Failure, Vec::new());
    };
    let mut injector = Injector::new(faults.to_vec());
    if matches!(
        injector.answer(control::INITIALIZE),
        Some(Answer::Never | Answer::Error(_))
    ) {
        return (Expectation::Failure, Vec::new());
    }
    script.begin();
    let mut outs = Vec::new();
    loop {
        let line = match script.step() {
            Next::Send(line) | Next::Ask { line, .. } => line,
            Next::Waiting => {
                let recorded = match script.ahead.front() {
                    Some(Item::Await { recorded, .. }) => recorded.clone(),
                    _ => Err(String::new()),
                };
                script.answer(recorded);
                continue;
            }
            Next::Done => break,
        };
        let out = injector.line(line);
        let stop = out.iter().any(|o| matches!(o, Out::End(_) | Out::Cut(_)));
        outs.extend(out);
        if stop {
            break;
        }
    }
    outs.extend(injector.end());
    expect::conclude(outs, Exit::Code(i32::from(script.last_is_error())))
}

mod index;
mod live;
mod run;
#[cfg(test)]
mod tests;
