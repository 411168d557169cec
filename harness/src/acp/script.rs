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
//! The script does not hold the recording's messages. It keeps an *index* of its
//! exchanges: each request's method, id and session, where its frames start in the
//! file, and which of them are the agent's requests (whose answers are awaited) and
//! the client's answers (the method of the request they answer). Playing an exchange
//! reads its frames from the file, one at a time, as the server writes them
//! ([`Steps`]): a turn of any length plays in the memory of one message, and the index
//! takes memory in proportion to the number of requests. A cassette of up to
//! [`crate::cassette::PREFLIGHT_LIMIT`] bytes is indexed (and checked) in full when it
//! is opened; a larger one is read once, each section indexed as it plays.
//! A recording that cannot be read twice (from a pipe) or that was never a file (a
//! generated conversation) is kept in memory, and plays the same way.

use std::collections::{HashMap, HashSet, VecDeque};
use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use super::profile::Profile;
use super::rpc::{self, Kind, Message};
use super::tell;
use super::wire::{methods, tool_content, Capabilities};
use crate::acp::conversation::{Conversation, Reply, Source, Step, Steps, Wait};
use crate::cassette::tape::{ended_early, index_on, Frames, Mark, Tape};
use crate::cassette::Position;
use crate::error::CassetteError;
use crate::frames::{Exit, Frame, FrameResult, Stream};
use crate::jsonrpc;
use index::{Asks, Book, Indexed, Reading};

/// A recorded conversation, replayed as a script.
#[derive(Debug)]
pub struct Script {
    tape: Tape,
    /// What the agent did before the first request; `None` once played.
    start: Option<Section>,
    /// The exchanges indexed so far (all of them, but for a large cassette read on
    /// as it plays: see [`Reading`]).
    exchanges: Vec<Exchange>,
    /// A large cassette not indexed to its end yet: its last section so far (the
    /// last exchange's, or the start's) is the one being read.
    reading: Option<Arc<Mutex<Reading>>>,
    /// Recorded request ids and the live ones they were played for.
    ids: HashMap<String, String>,
    ending: Exit,
    /// What the live client offered in `initialize`; `None` before it did.
    capabilities: Option<Capabilities>,
    /// The client's terminals: recorded ids and the live ones.
    terminals: Arc<Mutex<Terminals>>,
    /// The agent that answers what the recording does not hold.
    profile: &'static Profile,
    /// Someone reads the replies' divergences (see [`Conversation::divergences_unread`]).
    divergences_read: bool,
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
        let mut book = Book::new(Mark::default());
        let mut held = Vec::new();
        for frame in frames {
            let frame = frame?;
            let after = Mark {
                frame: held.len() + 1,
                position: Position::default(),
            };
            book.add(Indexed::Frame(&frame), after);
            held.push(frame);
        }
        book.finish();
        let mut script = Script::of(Tape::Memory(held.into()), profile);
        script.start = Some(Section::default());
        script.take(&mut book);
        Ok(script)
    }

    /// The script of the ACP cassette at `path`; its exchanges are read from the file
    /// as they play. `None` when `path` is not a regular file (a pipe can be read once
    /// only: see [`Script::new`]) or holds no recording of server mode (a header with
    /// `"acp":true`).
    ///
    /// A file of up to [`crate::cassette::PREFLIGHT_LIMIT`] bytes is indexed and
    /// checked in full here: a broken cassette fails before anything is played. A
    /// larger one is read once, as it plays: each section is indexed as it is played
    /// (the section of a request asked out of the recorded order is indexed on the
    /// way to it, and read again when it plays), and checked as
    /// [`crate::Source::open`] checks it.
    pub fn open(path: &Path, profile: &'static Profile) -> Result<Option<Script>, CassetteError> {
        Script::open_lazily_over(path, profile, crate::cassette::PREFLIGHT_LIMIT)
    }

    /// The script of the cassette at `path` indexed in full in one pass, a file larger
    /// than `preflight` read fast (as one larger than
    /// [`crate::cassette::PREFLIGHT_LIMIT`] is): tests read a small one so.
    #[cfg(test)]
    fn open_over(
        path: &Path,
        profile: &'static Profile,
        preflight: u64,
    ) -> Result<Option<Script>, CassetteError> {
        let Some(mut script) = Script::open_lazily_over(path, profile, preflight)? else {
            return Ok(None);
        };
        while script.reading.is_some() {
            script.index_on()?;
        }
        Ok(Some(script))
    }

    /// [`Script::open`], a file larger than `preflight` read as it plays.
    fn open_lazily_over(
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
        let start = Mark {
            frame: 0,
            position: reader.position(),
        };
        let reader = tape.reading(reader, preflight);
        let large = matches!(tape, Tape::File { len, .. } if len > preflight);
        let mut script = Script::of(tape, profile);
        script.start = Some(Section {
            from: start,
            ..Section::default()
        });
        script.reading = Some(Arc::new(Mutex::new(Reading {
            reader,
            frames: 0,
            book: Book::new(start),
            ended: false,
        })));
        if !large {
            while script.reading.is_some() {
                script.index_on()?;
            }
        }
        Ok(Some(script))
    }

    /// A script of `tape` with nothing indexed yet.
    fn of(tape: Tape, profile: &'static Profile) -> Script {
        Script {
            tape,
            start: None,
            exchanges: Vec::new(),
            reading: None,
            ids: HashMap::new(),
            ending: Exit::Code(0),
            capabilities: None,
            terminals: Arc::default(),
            profile,
            divergences_read: true,
        }
    }

    /// Takes what `book` found since it was last looked at: each section ended goes
    /// to its place (the last exchange's, or the start's; one already played is done
    /// with), and the exchange of the request that ended it comes after it.
    fn take(&mut self, book: &mut Book) {
        for (section, next) in book.found.drain(..) {
            match self.exchanges.last_mut() {
                Some(exchange) if !exchange.played => exchange.section = section,
                Some(_) => {}
                None => {
                    if self.start.is_some() {
                        self.start = Some(section);
                    }
                }
            }
            match next {
                Some(exchange) => self.exchanges.push(exchange),
                None => self.reading = None,
            }
        }
        self.ending = book.ending;
    }

    /// What the sections read on as they play have found so far, taken.
    fn catch_up(&mut self) {
        if let Some(reading) = self.reading.clone() {
            let mut reading = reading.lock().unwrap_or_else(PoisonError::into_inner);
            self.take(&mut reading.book);
        }
    }

    /// Indexes the section being read to its end (the next request, or the end of the
    /// file), skimming what is left of it.
    fn index_on(&mut self) -> Result<(), CassetteError> {
        let Some(reading) = self.reading.clone() else {
            return Ok(());
        };
        let mut guard = reading.lock().unwrap_or_else(PoisonError::into_inner);
        let reading = &mut *guard;
        let read = if reading.ended {
            Ok(())
        } else {
            match index_on(&mut reading.reader, &mut reading.frames, &mut reading.book) {
                Ok(false) => Ok(()),
                Ok(true) => {
                    reading.end();
                    Ok(())
                }
                Err(e) => {
                    // Nothing is read on after an error: the rest is not the recording's.
                    reading.end();
                    Err(e)
                }
            }
        };
        self.take(&mut reading.book);
        read
    }

    /// Whether exchange `index` is the one being read (its section not indexed yet).
    fn is_read_on(&self, index: usize) -> bool {
        self.reading.is_some() && index + 1 == self.exchanges.len()
    }

    /// The steps of `section`, its responses with the live ids of the requests played
    /// so far, read from the tape as they are played.
    fn play(&self, section: Section, withhold: Option<Capabilities>) -> Steps {
        match self.tape.frames(section.from, section.until) {
            Ok(frames) => Steps::of(Play {
                feed: Feed::Tape {
                    frames,
                    left: section.frames,
                    count: section.frames,
                    requests: section.requests.into_iter().peekable(),
                },
                since: section.since,
                ids_as_recorded: self.ids.iter().all(|(recorded, live)| recorded == live),
                ids: self.ids.clone(),
                glance: jsonrpc::Glance::default(),
                answers: section.answers.into(),
                withhold,
                discover: None,
                withheld: HashSet::new(),
                terminals: Arc::clone(&self.terminals),
            }),
            Err(e) => Steps::new(std::iter::once(Err(e))),
        }
    }

    /// The steps of the section being read (see [`Reading`]), timed from `since`: read
    /// and indexed as they are played, up to the next request.
    /// What the client does not offer of `discover` is left out as it is found (the
    /// agent's requests for it, and the client's answers to them).
    fn play_on(
        &self,
        reading: Arc<Mutex<Reading>>,
        since: Duration,
        discover: Option<Capabilities>,
    ) -> Steps {
        Steps::of(Play {
            feed: Feed::Reading {
                reading,
                done: false,
                asks: Box::default(),
            },
            since,
            ids_as_recorded: self.ids.iter().all(|(recorded, live)| recorded == live),
            ids: self.ids.clone(),
            glance: jsonrpc::Glance::default(),
            answers: VecDeque::new(),
            withhold: None,
            discover,
            withheld: HashSet::new(),
            terminals: Arc::clone(&self.terminals),
        })
    }
}

impl Conversation for Script {
    fn start(&mut self) -> Steps {
        self.catch_up();
        let read_on = self.exchanges.is_empty();
        match (self.start.take(), self.reading.clone()) {
            (Some(section), Some(reading)) if read_on => self.play_on(reading, section.since, None),
            (Some(section), _) => self.play(section, None),
            (None, _) => Steps::default(),
        }
    }

    fn reply(&mut self, request: &Message<'_>) -> Reply {
        let method = request.method();
        if method == methods::INITIALIZE {
            self.capabilities = Some(Capabilities::of_initialize(&request.params_value()));
        }
        // To a client that does not offer all the agent may ask for, a section is
        // played with what it asks for and the client lacks left out, and the reply
        // says so: the section is indexed before it plays. Where nobody reads what
        // the reply says, and the client has a terminal (so no update is left out),
        // the requests left out are found as the section is read.
        let lacks = self.capabilities.filter(|offered| {
            [
                methods::FS_READ_TEXT_FILE,
                methods::FS_WRITE_TEXT_FILE,
                methods::TERMINAL_CREATE,
            ]
            .iter()
            .any(|job| !offered.allow(job))
        });
        let discover = lacks.filter(|offered| offered.terminal && !self.divergences_read);
        let index_first = lacks.is_some() && discover.is_none();
        let found = loop {
            self.catch_up();
            let found = self
                .exchanges
                .iter()
                .position(|e| !e.played && e.method == method);
            match found {
                Some(index) if !(index_first && self.is_read_on(index)) => break Some(index),
                _ if self.reading.is_none() => break found,
                _ => {
                    if let Err(e) = self.index_on() {
                        return Reply {
                            steps: Steps::new(std::iter::once(Err(e))),
                            divergence: None,
                            recorded_session: None,
                        };
                    }
                }
            }
        };
        let Some(index) = found else {
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
        if let Some(reading) = self.reading.clone().filter(|_| self.is_read_on(index)) {
            // Read and indexed as it plays (see `lacks`).
            return Reply {
                steps: self.play_on(reading, section.since, discover),
                divergence,
                recorded_session: recorded_session.map(|(recorded, _)| recorded),
            };
        }
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

    fn divergences_unread(&mut self) {
        self.divergences_read = false;
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

/// The steps of one section, made from its frames as they are read.
struct Play {
    feed: Feed,
    since: Duration,
    /// The recorded ids of the requests played so far and the live ones, which the
    /// agent's responses to them get.
    ids: HashMap<String, String>,
    /// Every live id is the recorded one: a response plays as recorded.
    ids_as_recorded: bool,
    glance: jsonrpc::Glance,
    /// The methods the client's answers answer, in order (those not played yet).
    answers: VecDeque<String>,
    /// What the live client offers, when the section has requests it does not: those
    /// are left out, with the client's answers to them and the updates that show a
    /// terminal to a client without one.
    withhold: Option<Capabilities>,
    /// What the live client offers, when what it lacks is left out as it is found
    /// (a section read as it plays, to a client with a terminal): the agent's
    /// requests for it, and the client's answers to them.
    discover: Option<Capabilities>,
    /// The ids of the requests left out.
    withheld: HashSet<String>,
    terminals: Arc<Mutex<Terminals>>,
}

/// Where a section's frames come from.
enum Feed {
    /// Its part of the tape, indexed before.
    Tape {
        frames: Frames,
        /// Frames of the section not read yet.
        left: usize,
        /// Frames of the section.
        count: usize,
        /// Where the agent's requests in the section are (how many frames come
        /// before each), those not read yet.
        requests: std::iter::Peekable<std::vec::IntoIter<usize>>,
    },
    /// The cassette read on: the section is indexed as it plays, and ends at the next
    /// request of the client's (or the end of the file).
    Reading {
        reading: Arc<Mutex<Reading>>,
        /// The section ended.
        done: bool,
        asks: Box<Asks>,
    },
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
                        let method = self.answers.pop_front().unwrap_or_default();
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
        let every = responses && self.ids_as_recorded;
        let glance = &self.glance;
        match &mut self.feed {
            Feed::Tape {
                frames: Frames::File(reader),
                left,
                count,
                requests,
            } => {
                let taken = if every {
                    // Every message but a request plays as recorded: the index knows
                    // where the requests are, the lines before the next one are not
                    // looked at.
                    let read = *count - *left;
                    while requests.next_if(|at| *at < read).is_some() {}
                    let most = requests.peek().map_or(*left, |at| (at - read).min(*left));
                    reader.fast_run(out, limit, most, |_| true)?
                } else {
                    reader.fast_run(out, limit, *left, |event| plain(glance, event))?
                };
                *left -= taken;
                Ok(taken)
            }
            Feed::Tape { .. } | Feed::Reading { done: true, .. } => Ok(0),
            Feed::Reading { reading, asks, .. } => {
                let mut guard = reading.lock().unwrap_or_else(PoisonError::into_inner);
                let reading = &mut *guard;
                if reading.ended {
                    return Ok(0);
                }
                // What a run takes is indexed as it is: no request of the agent's
                // (its answer is awaited) and none of the client's (it ends the
                // section: a stdout line is none) is in it.
                let taken = if every {
                    reading
                        .reader
                        .fast_run(out, limit, usize::MAX, |event| !asks.may_ask(event))?
                } else {
                    reading
                        .reader
                        .fast_run(out, limit, usize::MAX, |event| plain(glance, event))?
                };
                if taken > 0 {
                    reading.frames += taken;
                    let after = Mark {
                        frame: reading.frames,
                        position: reading.reader.position(),
                    };
                    reading.book.add(Indexed::Lines(taken as u64), after);
                }
                Ok(taken)
            }
        }
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
        loop {
            let frame = match &mut self.feed {
                Feed::Tape { frames, left, .. } => {
                    if *left == 0 {
                        return None;
                    }
                    *left -= 1;
                    match frames.next() {
                        Some(Ok(frame)) => frame,
                        Some(Err(e)) => {
                            *left = 0;
                            return Some(Err(e));
                        }
                        None => {
                            // The index counted more frames than the file now has.
                            *left = 0;
                            return Some(Err(ended_early(frames)));
                        }
                    }
                }
                Feed::Reading { done: true, .. } => return None,
                Feed::Reading { reading, done, .. } => {
                    let mut guard = reading.lock().unwrap_or_else(PoisonError::into_inner);
                    let reading = &mut *guard;
                    let read = if reading.ended {
                        None
                    } else {
                        reading.reader.next()
                    };
                    let frame = match read {
                        Some(Ok(frame)) => frame,
                        Some(Err(e)) => {
                            // Nothing is read on after an error.
                            reading.end();
                            *done = true;
                            return Some(Err(e));
                        }
                        None => {
                            reading.end();
                            *done = true;
                            return None;
                        }
                    };
                    reading.frames += 1;
                    let after = Mark {
                        frame: reading.frames,
                        position: reading.reader.position(),
                    };
                    let (answers, requests) = (
                        reading.book.section.answers.len(),
                        reading.book.section.requests.len(),
                    );
                    if reading.book.add(Indexed::Frame(&frame), after) {
                        // The client's next request: the section ends before it.
                        *done = true;
                        return None;
                    }
                    if reading.book.section.answers.len() > answers {
                        self.answers.extend(reading.book.section.answers.last().cloned());
                    }
                    if let (Some(offered), Frame::Line(line)) = (self.discover, &frame) {
                        // The agent's request (the index found it) for what the
                        // client lacks: left out, as its answer will be.
                        let lacked = (reading.book.section.requests.len() > requests)
                            .then(|| Message::parse(&line.bytes))
                            .flatten()
                            .filter(|m| m.kind == Kind::Request && !offered.allow(m.method()));
                        if let Some(request) = lacked {
                            self.withheld.insert(request.id_text().to_owned());
                            continue;
                        }
                    }
                    frame
                }
            };
            if let Some(step) = self.step(frame) {
                return Some(Ok(step));
            }
        }
    }
}

mod index;

#[cfg(test)]
mod tests;

#[cfg(test)]
mod file_tests;
