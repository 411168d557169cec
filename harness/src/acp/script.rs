//! A recording of a real `cursor-agent acp` process, replayed as a script.
//!
//! The recording is cut into *exchanges*, one per request of the client's, in
//! recorded order: the agent's messages that followed the request until the next one,
//! with the places where the agent waited for the client (its answer to a permission
//! request, a `session/cancel`). A live request plays the next exchange of the same
//! method; the agent's responses get the live request's id; every other byte is
//! replayed as recorded.
//!
//! A request the recording does not have (a method not recorded, or more prompts than
//! recorded) is a *divergence*: the mock answers it with its own handshake answer
//! (see [`super::tell::handshake`]) and says so in the [`Reply`]. A request that names
//! another session than the recorded one (`session/load` of another id, a prompt to a
//! session the mock made up) plays the recorded exchange, and is a divergence too:
//! the agent's messages name the recorded session.
//!
//! The script does not hold the recording's messages. A first pass over the cassette
//! makes an *index* of its exchanges: each request's method, id and session, where its
//! frames start in the file, and which of them are the client's answers (the method of
//! are made live) and the client's answers (the method of the request they answer).
//! Playing an exchange reads its frames again from the file, one at a time, as the
//! server writes them ([`Steps`]): a turn of any length plays in the memory of one
//! message, and the index takes memory in proportion to the number of requests. A
//! recording that cannot be read twice (from a pipe) or that was never a file (a
//! generated conversation) is kept in memory, and plays the same way.

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use super::profile::Profile;
use super::rpc::{self, Kind, Message};
use super::tell;
use super::wire::{methods, tool_content, Capabilities};
use crate::acp::conversation::{Conversation, Reply, Source, Step, Steps, Wait};
use crate::cassette::tape::{ended_early, Frames, Indexed, Mark, Tape};
use crate::cassette::Position;
use crate::error::CassetteError;
use crate::frames::{Exit, Frame, FrameResult, Stream};
use crate::jsonrpc;

/// A recorded conversation, replayed as a script.
#[derive(Debug, Clone)]
pub struct Script {
    tape: Tape,
    /// What the agent did before the first request; `None` once played.
    start: Option<Section>,
    exchanges: Vec<Exchange>,
    /// Recorded request ids and the live ones they were played for.
    ids: HashMap<String, String>,
    ending: Exit,
    /// What the live client offered in `initialize`; `None` before it did.
    capabilities: Option<Capabilities>,
    /// The client's terminals: recorded ids and the live ones.
    terminals: Arc<Mutex<Terminals>>,
    /// The agent that answers what the recording does not hold.
    profile: &'static Profile,
}

/// The terminals the client made for the agent (`terminal/create`): the recorded id
/// of each one asked for, by the agent's request id, and the live id the client gave
/// where it differs from the recording's. The agent's later requests and updates
/// name the live one.
#[derive(Debug, Default)]
struct Terminals {
    asked: HashMap<String, String>,
    live: Vec<(Vec<u8>, Vec<u8>)>,
}

impl Terminals {
    /// `line` with each recorded terminal id (a JSON string) the live one.
    fn live(&self, line: Vec<u8>) -> Vec<u8> {
        self.live.iter().fold(line, |line, (recorded, live)| {
            if line.windows(recorded.len()).any(|w| w == recorded.as_slice()) {
                replace(&line, recorded, live)
            } else {
                line
            }
        })
    }
}

/// `bytes` with every `from` replaced by `to`.
fn replace(bytes: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut rest = bytes;
    while let Some(at) = rest.windows(from.len()).position(|w| w == from) {
        out.extend_from_slice(&rest[..at]);
        out.extend_from_slice(to);
        rest = &rest[at + from.len()..];
    }
    out.extend_from_slice(rest);
    out
}

/// One request of the recorded client and what the agent did after it.
#[derive(Debug, Clone)]
struct Exchange {
    method: String,
    /// The recorded request's id, as JSON text.
    id: String,
    /// The recorded request's `params.sessionId`, if it has one.
    session: Option<String>,
    /// The frames after the request, until the next one.
    section: Section,
    played: bool,
}

/// A run of the recording's frames that plays as one reply: what the agent did
/// before the first request, or after a request until the next one. Where it lies,
/// not what it holds.
#[derive(Debug, Clone, Default)]
struct Section {
    /// Where its first frame is.
    from: Mark,
    /// Where the next section's request is (the end of the file for the last one).
    until: u64,
    /// How many frames it has.
    frames: usize,
    /// What its steps are timed from: when its request came.
    since: Duration,
    /// For each of the client's answers to the agent's requests in it, in order, the
    /// method of the request it answers.
    answers: Vec<String>,
    /// The methods of the agent's requests in it that need a capability of the
    /// client's (`fs/*`, `terminal/*`), once each.
    jobs: Vec<String>,
    /// Where the agent's requests in it are: how many of its frames come before each.
    requests: Vec<usize>,
}

impl Script {
    /// A script of a recording (its `in` frames the client's messages) held in
    /// memory: a generated conversation, a cassette read from a pipe. A cassette file
    /// is better played with [`Script::open`], which does not hold it. What the
    /// recording does not hold is answered as `profile`'s agent answers it.
    pub fn new(
        frames: impl IntoIterator<Item = FrameResult>,
        profile: &'static Profile,
    ) -> Result<Script, CassetteError> {
        let mut index = Index::new(Mark::default());
        let mut held = Vec::new();
        for frame in frames {
            let frame = frame?;
            let after = Mark {
                frame: held.len() + 1,
                position: Position::default(),
            };
            index.add(Indexed::Frame(&frame), after);
            held.push(frame);
        }
        Ok(index.script(Tape::Memory(held.into()), profile))
    }

    /// The script of the ACP cassette at `path`, indexed in one pass over it; its
    /// exchanges are read from the file again as they play. `None` when `path` is not
    /// a regular file (a pipe can be read once only: see [`Script::new`]) or holds no
    /// recording of server mode (a header with `"acp":true`).
    ///
    /// A file of up to [`crate::cassette::PREFLIGHT_LIMIT`] bytes is checked in full on
    /// this pass, a larger one as [`crate::Source::open`] checks it: a broken cassette
    /// fails here, before anything is played.
    pub fn open(path: &Path, profile: &'static Profile) -> Result<Option<Script>, CassetteError> {
        Script::open_over(path, profile, crate::cassette::PREFLIGHT_LIMIT)
    }

    /// [`Script::open`], a file larger than `preflight` read fast (as one larger than
    /// [`crate::cassette::PREFLIGHT_LIMIT`] is): tests read a small one so.
    fn open_over(
        path: &Path,
        profile: &'static Profile,
        preflight: u64,
    ) -> Result<Option<Script>, CassetteError> {
        let opened = |source| CassetteError::Open {
            path: path.to_owned(),
            source,
        };
        // Looked at before it is opened: opening a FIFO would wait for its writer.
        if !std::fs::metadata(path).map_err(opened)?.is_file() {
            return Ok(None);
        }
        let (tape, reader) = Tape::open(path)?;
        if !reader.header().is_some_and(|h| h.invocation.acp) {
            return Ok(None);
        }
        let mut index = Index::new(Mark {
            frame: 0,
            position: reader.position(),
        });
        // The agent's messages that surely ask nothing are counted, not parsed.
        let asks = Asks::default();
        tape.index_runs_over(
            reader,
            preflight,
            |event| !asks.may_ask(event),
            |indexed, after| index.add(indexed, after),
        )?;
        Ok(Some(index.script(tape, profile)))
    }

    /// The steps of `section`, its responses with the live ids of the requests played
    /// so far, read from the tape as they are played.
    fn play(&self, section: Section, withhold: Option<Capabilities>) -> Steps {
        match self.tape.frames(section.from, section.until) {
            Ok(frames) => Steps::of(Play {
                frames,
                left: section.frames,
                count: section.frames,
                requests: section.requests.into_iter().peekable(),
                since: section.since,
                ids_as_recorded: self.ids.iter().all(|(recorded, live)| recorded == live),
                ids: self.ids.clone(),
                glance: jsonrpc::Glance::default(),
                answers: section.answers.into_iter(),
                withhold,
                withheld: HashSet::new(),
                terminals: Arc::clone(&self.terminals),
            }),
            Err(e) => Steps::new(std::iter::once(Err(e))),
        }
    }
}

impl Conversation for Script {
    fn start(&mut self) -> Steps {
        match self.start.take() {
            Some(section) => self.play(section, None),
            None => Steps::default(),
        }
    }

    fn reply(&mut self, request: &Message<'_>) -> Reply {
        let method = request.method();
        if method == methods::INITIALIZE {
            self.capabilities = Some(Capabilities::of_initialize(&request.params_value()));
        }
        let Some(index) = self
            .exchanges
            .iter()
            .position(|e| !e.played && e.method == method)
        else {
            let mut reply = tell::handshake(request, self.profile);
            let recorded = self.exchanges.iter().filter(|e| e.method == method).count();
            reply.divergence = Some(if recorded == 0 {
                format!("`{method}` is not in the recording: answered by the mock")
            } else {
                format!(
                    "the recording has {recorded} `{method}` request(s), all played: answered by the mock"
                )
            });
            return reply;
        };
        let exchange = &mut self.exchanges[index];
        exchange.played = true;
        let recorded_id = exchange.id.clone();
        let recorded_session = match (&exchange.session, request.param_str("sessionId")) {
            (Some(recorded), Some(live)) if *recorded != live => Some((recorded.clone(), live)),
            _ => None,
        };
        let mut divergence = recorded_session.as_ref().map(|(recorded, live)| {
            format!(
                "`{method}` names session `{live}`; the recording's named `{recorded}`: replayed as recorded"
            )
        });
        // A played exchange is not played again: where its steps are is handed over.
        let section = std::mem::take(&mut exchange.section);
        self.ids.insert(recorded_id, request.id_text().to_owned());
        // The agent asks the client only what it offers: the rest is left out.
        let withhold = self
            .capabilities
            .filter(|offered| section.jobs.iter().any(|job| !offered.allow(job)));
        if let Some(offered) = withhold {
            let left: Vec<&str> = section
                .jobs
                .iter()
                .map(String::as_str)
                .filter(|job| !offered.allow(job))
                .collect();
            let said = format!(
                "the recording's agent asks the client {}, which this client does not offer: left out",
                left.join(", ")
            );
            divergence = Some(match divergence {
                Some(before) => format!("{before}; {said}"),
                None => said,
            });
        }
        Reply {
            steps: self.play(section, withhold),
            divergence,
            recorded_session: recorded_session.map(|(recorded, _)| recorded),
        }
    }

    fn ending(&self) -> Exit {
        self.ending
    }

    fn answered(&mut self, id: &str, method: &str, answer: &serde_json::Value) {
        if method != methods::TERMINAL_CREATE {
            return;
        }
        let mut terminals = self.terminals.lock().unwrap_or_else(PoisonError::into_inner);
        let recorded = terminals.asked.remove(id);
        if let (Some(recorded), Some(live)) = (recorded, answer["terminalId"].as_str()) {
            let quoted = |id: &str| serde_json::to_vec(id).unwrap_or_default();
            if recorded != live {
                terminals.live.push((quoted(&recorded), quoted(live)));
            }
        }
    }
}

/// The index of a recording, made in one pass over its frames.
struct Index {
    start: Section,
    exchanges: Vec<Exchange>,
    ending: Exit,
    /// Where the last frame added ended.
    end: u64,
    /// The agent's requests not yet answered: their ids, and their methods.
    asked: HashMap<String, String>,
    asks: Asks,
}

impl Index {
    /// The index of a recording whose first frame is at `start`.
    fn new(start: Mark) -> Self {
        Index {
            start: Section {
                from: start,
                ..Section::default()
            },
            exchanges: Vec::new(),
            ending: Exit::Code(0),
            end: start.position.offset,
            asked: HashMap::new(),
            asks: Asks::default(),
        }
    }

    /// Adds the next frame, or a run of the agent's messages that ask nothing; `after`
    /// is where the frame after it is.
    fn add(&mut self, indexed: Indexed<'_>, after: Mark) {
        let end = std::mem::replace(&mut self.end, after.position.offset);
        let frame = match indexed {
            Indexed::Frame(frame) => frame,
            Indexed::Lines(count) => {
                self.section().frames += usize::try_from(count).unwrap_or(usize::MAX);
                return;
            }
        };
        match frame {
            Frame::Line(line) if line.stream == Stream::Stdin => {
                let Some(message) = Message::parse(&line.bytes) else {
                    // The agent ignores a line that is not JSON-RPC.
                    self.section().frames += 1;
                    return;
                };
                match message.kind {
                    Kind::Request => {
                        self.section().until = end;
                        self.exchanges.push(Exchange {
                            method: message.method().to_owned(),
                            id: message.id_text().to_owned(),
                            session: message.param_str("sessionId"),
                            section: Section {
                                from: after,
                                since: line.at,
                                ..Section::default()
                            },
                            played: false,
                        });
                        // The request starts the next section: it is in none.
                        return;
                    }
                    Kind::Response => {
                        let method = self.asked.remove(message.id_text()).unwrap_or_default();
                        self.section().answers.push(method);
                    }
                    Kind::Notification => {}
                }
            }
            Frame::Line(line) if line.stream == Stream::Stdout => {
                // Only a request is indexed: a line that surely is none (no top-level
                // `id`, or no `method`) is not parsed.
                let request = self.asks.may_ask(&line.bytes);
                if let Some(message) = request.then(|| Message::parse(&line.bytes)).flatten() {
                    match message.kind {
                        Kind::Request => {
                            let method = message.method();
                            let job = [methods::FS_READ_TEXT_FILE, methods::FS_WRITE_TEXT_FILE]
                                .contains(&method)
                                || method.starts_with(methods::TERMINAL_PREFIX);
                            if job && !self.section().jobs.iter().any(|j| j == method) {
                                self.section().jobs.push(method.to_owned());
                            }
                            let at = self.section().frames;
                            self.section().requests.push(at);
                            self.asked
                                .insert(message.id_text().to_owned(), message.method().to_owned());
                        }
                        Kind::Notification | Kind::Response => {}
                    }
                }
            }
            // A clean exit is the end of stdin; any other ends the process where it
            // happened (a step).
            Frame::End(end) if end.exit.success() => self.ending = end.exit,
            _ => {}
        }
        self.section().frames += 1;
    }

    /// The section the next frame is in.
    fn section(&mut self) -> &mut Section {
        match self.exchanges.last_mut() {
            Some(exchange) => &mut exchange.section,
            None => &mut self.start,
        }
    }

    fn script(mut self, tape: Tape, profile: &'static Profile) -> Script {
        self.section().until = self.end;
        Script {
            tape,
            start: Some(self.start),
            exchanges: self.exchanges,
            ids: HashMap::new(),
            ending: self.ending,
            capabilities: None,
            terminals: Arc::default(),
            profile,
        }
    }
}

/// The steps of one section, made from its frames as they are read.
struct Play {
    frames: Frames,
    /// Frames of the section not read yet.
    left: usize,
    /// Frames of the section.
    count: usize,
    /// Where the agent's requests in the section are (how many frames come before
    /// each), those not read yet.
    requests: std::iter::Peekable<std::vec::IntoIter<usize>>,
    since: Duration,
    /// The recorded ids of the requests played so far and the live ones, which the
    /// agent's responses to them get.
    ids: HashMap<String, String>,
    /// Every live id is the recorded one: a response plays as recorded.
    ids_as_recorded: bool,
    glance: jsonrpc::Glance,
    /// The methods the client's answers answer, in order.
    answers: std::vec::IntoIter<String>,
    /// What the live client offers, when the section has requests it does not: those
    /// are left out, with the client's answers to them and the updates that show a
    /// terminal to a client without one.
    withhold: Option<Capabilities>,
    /// The ids of the requests left out.
    withheld: HashSet<String>,
    terminals: Arc<Mutex<Terminals>>,
}

impl Play {
    /// The step of the `n`th frame of the section; `None` for a frame that plays as
    /// nothing (a client notification other than a cancel, a line that is not
    /// JSON-RPC, a clean end, a stall).
    fn step(&mut self, frame: Frame) -> Option<Step> {
        let at = frame.at().saturating_sub(self.since);
        match frame {
            Frame::Line(line) if line.stream == Stream::Stdin => {
                let message = Message::parse(&line.bytes)?;
                match message.kind {
                    Kind::Response => {
                        let method = self.answers.next().unwrap_or_default();
                        if self.withheld.remove(message.id_text()) {
                            return None;
                        }
                        let recorded: Option<serde_json::Value> =
                            message.result.and_then(|r| serde_json::from_str(r.get()).ok());
                        if method == methods::TERMINAL_CREATE {
                            if let Some(terminal) = recorded.as_ref().and_then(|r| r["terminalId"].as_str()) {
                                self.terminals
                                    .lock()
                                    .unwrap_or_else(PoisonError::into_inner)
                                    .asked
                                    .insert(message.id_text().to_owned(), terminal.to_owned());
                            }
                        }
                        Some(Step::Await {
                            at,
                            wait: Wait::Answer {
                                id: message.id_text().to_owned(),
                                method,
                                recorded,
                            },
                        })
                    }
                    Kind::Notification if message.method() == methods::SESSION_CANCEL => Some(Step::Await {
                        at,
                        wait: Wait::Notification {
                            method: methods::SESSION_CANCEL.to_owned(),
                        },
                    }),
                    Kind::Notification | Kind::Request => None,
                }
            }
            Frame::Line(line) if line.stream == Stream::Stdout => {
                let mut bytes = line.bytes;
                if let Some(offered) = self.withhold {
                    if let Some(message) = Message::parse(&bytes) {
                        if message.kind == Kind::Request && !offered.allow(message.method()) {
                            self.withheld.insert(message.id_text().to_owned());
                            return None;
                        }
                        let shows_terminal = message.method() == methods::SESSION_UPDATE
                            && message.params_value()["update"]["content"]
                                .as_array()
                                .is_some_and(|items| {
                                    items.iter().any(|i| i["type"] == tool_content::TERMINAL)
                                });
                        if shows_terminal && !offered.terminal {
                            return None;
                        }
                    }
                }
                {
                    let terminals = self.terminals.lock().unwrap_or_else(PoisonError::into_inner);
                    if !terminals.live.is_empty() {
                        bytes = terminals.live(bytes);
                    }
                }
                if !rpc::surely_not_response(&bytes) {
                    let live = Message::parse(&bytes)
                        .filter(|m| m.kind == Kind::Response)
                        .and_then(|m| self.ids.get(m.id_text()).cloned());
                    if let Some(live) = live {
                        bytes = rpc::with_id(&bytes, &live);
                    }
                }
                Some(Step::Send { at, line: bytes })
            }
            Frame::Line(line) => Some(Step::Stderr { at, line: line.bytes }),
            Frame::End(end) if end.exit.success() => None,
            Frame::End(end) => Some(Step::End { at, exit: end.exit }),
            Frame::Stall { .. } | Frame::CloseStdout { .. } => None,
        }
    }
}

impl Source for Play {
    /// The section's next messages as recorded, cut out of the cassette's read buffer:
    /// none when its lines are changed as they play (capabilities withheld, terminals
    /// named live), and responses only when their ids stay as recorded.
    fn run(&mut self, out: &mut Vec<u8>, limit: usize, responses: bool) -> Result<usize, CassetteError> {
        let Frames::File(reader) = &mut self.frames else {
            return Ok(0);
        };
        if self.withhold.is_some()
            || !self
                .terminals
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .live
                .is_empty()
        {
            return Ok(0);
        }
        let count = if responses && self.ids_as_recorded {
            // Every message but a request plays as recorded: the index knows where
            // the requests are, the lines before the next one are not looked at.
            let read = self.count - self.left;
            while self.requests.next_if(|at| *at < read).is_some() {}
            let most = self
                .requests
                .peek()
                .map_or(self.left, |at| (at - read).min(self.left));
            reader.fast_run(out, limit, most, |_| true)?
        } else {
            let glance = &self.glance;
            reader.fast_run(out, limit, self.left, |event| plain(glance, event))?
        };
        self.left -= count;
        Ok(count)
    }
}

/// Tells the agent's messages that surely ask nothing (no request: no top-level `id`
/// or no `method`) from their bytes. Its searchers are made once.
struct Asks {
    glance: jsonrpc::Glance,
    id: memchr::memmem::Finder<'static>,
    method: memchr::memmem::Finder<'static>,
    escape: memchr::memmem::Finder<'static>,
}

impl Default for Asks {
    fn default() -> Self {
        Asks {
            glance: jsonrpc::Glance::default(),
            id: memchr::memmem::Finder::new(br#""id""#),
            method: memchr::memmem::Finder::new(br#""method""#),
            escape: memchr::memmem::Finder::new(br"\u"),
        }
    }
}

impl Asks {
    /// Whether an agent message may be a request: not surely without a top-level
    /// `id` or without a `method`. A message that starts as the agents write them
    /// (`{"jsonrpc":"2.0","method":` or `"id":`) has the one at its top level, and
    /// surely not the other when its key is nowhere in it, nor a `\u` escape (the
    /// only one that spells a letter): one look each, the first for a backslash.
    fn may_ask(&self, event: &[u8]) -> bool {
        const NOTIFIES: &[u8] = br#"{"jsonrpc":"2.0","method":"#;
        const ANSWERS: &[u8] = br#"{"jsonrpc":"2.0","id":"#;
        let other = if event.starts_with(NOTIFIES) {
            &self.id
        } else if event.starts_with(ANSWERS) {
            &self.method
        } else {
            return self.glance.has_id(event) != Some(false) && self.glance.has_method(event) != Some(false);
        };
        let escaped = memchr::memchr(b'\\', event).is_some_and(|at| self.escape.find(&event[at..]).is_some());
        if !escaped && other.find(event).is_none() {
            return false;
        }
        self.glance.has_id(event) != Some(false) && self.glance.has_method(event) != Some(false)
    }
}

/// Whether an agent message is surely a notification, told without parsing it: no
/// response (whose id is made live) and no request (whose answer is awaited).
fn plain(glance: &jsonrpc::Glance, event: &[u8]) -> bool {
    rpc::surely_not_response(event) && glance.has_id(event) == Some(false)
}

impl Iterator for Play {
    type Item = Result<Step, CassetteError>;

    fn next(&mut self) -> Option<Self::Item> {
        while self.left > 0 {
            self.left -= 1;
            let frame = match self.frames.next() {
                Some(Ok(frame)) => frame,
                Some(Err(e)) => {
                    self.left = 0;
                    return Some(Err(e));
                }
                None => {
                    // The index counted more frames than the file now has.
                    self.left = 0;
                    return Some(Err(ended_early(&self.frames)));
                }
            };
            if let Some(step) = self.step(frame) {
                return Some(Ok(step));
            }
        }
        None
    }
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod file_tests;
