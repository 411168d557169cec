//! The index of a recording as its frames are read: where each section is, the
//! client's requests that end them, the agent's requests in them.

use std::collections::HashMap;
use std::io::BufReader;
use std::time::Duration;

use aho_corasick::packed;

use super::{Exchange, Section};
use crate::acp::rpc::{Kind, Message};
use crate::acp::wire::methods;
use crate::cassette::tape::{At, Indexer, Mark};
use crate::cassette::Reader;
use crate::frames::{Exit, Frame, Stream};
use crate::jsonrpc;

/// What the index is made of: a frame, or a run of the agent's messages that ask
/// nothing, counted.
#[derive(Debug, Clone, Copy)]
pub(super) enum Indexed<'a> {
    /// The next frame.
    Frame(&'a Frame),
    /// This many stdout lines, each of them an agent message that asks nothing.
    Lines(u64),
}

/// A large cassette read on as it plays: the one reader of the file (after the last
/// frame indexed) and the index as it is made. Shared by the script and the steps of
/// the section being read ([`Feed::Reading`]): the section is indexed as it plays, and
/// what is left of it when its steps are dropped is read on when the script needs
/// more of the index.
pub(super) struct Reading {
    pub(super) reader: Reader<BufReader<At>>,
    /// Frames read so far.
    pub(super) frames: usize,
    pub(super) book: Book,
    /// The file is read to its end (or to an error).
    pub(super) ended: bool,
}

impl Reading {
    /// The file read to its end: the last section ends there.
    pub(super) fn end(&mut self) {
        if !self.ended {
            self.ended = true;
            self.book.finish();
        }
    }
}

impl std::fmt::Debug for Reading {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reading")
            .field("position", &self.reader.position())
            .field("frames", &self.frames)
            .field("ended", &self.ended)
            .finish_non_exhaustive()
    }
}

/// The index of a recording as its frames are read: the section being read, and the
/// sections ended since the script last took them.
pub(super) struct Book {
    /// The section the next frame is in.
    pub(super) section: Section,
    /// Sections ended, in order, each with the exchange of the request that ended it
    /// (`None`: the recording ended).
    pub(super) found: Vec<(Section, Option<Exchange>)>,
    pub(super) ending: Exit,
    /// Where the last frame added ended.
    end: u64,
    /// The agent's requests not yet answered: their ids, and their methods.
    asked: HashMap<String, String>,
    asks: Asks,
    /// A request was read since [`Indexer::pause`] was last asked.
    paused: bool,
}

impl Book {
    /// The index of a recording whose first frame is at `start`.
    pub(super) fn new(start: Mark) -> Self {
        Book {
            section: Section {
                from: start,
                ..Section::default()
            },
            found: Vec::new(),
            ending: Exit::Code(0),
            end: start.position.offset,
            asked: HashMap::new(),
            asks: Asks::default(),
            paused: false,
        }
    }

    /// Adds the next frame, or a run of the agent's messages that ask nothing; `after`
    /// is where the frame after it is. `true` when it was a request of the client's:
    /// its section starts, the one before it is found.
    pub(super) fn add(&mut self, indexed: Indexed<'_>, after: Mark) -> bool {
        let end = std::mem::replace(&mut self.end, after.position.offset);
        let frame = match indexed {
            Indexed::Frame(frame) => frame,
            Indexed::Lines(count) => {
                self.section.frames += usize::try_from(count).unwrap_or(usize::MAX);
                return false;
            }
        };
        match frame {
            Frame::Line(line) if line.stream == Stream::Stdin => {
                let Some(message) = Message::parse(&line.bytes) else {
                    // The agent ignores a line that is not JSON-RPC.
                    self.section.frames += 1;
                    return false;
                };
                match message.kind {
                    Kind::Request => {
                        let next = Section {
                            from: after,
                            since: line.at,
                            ..Section::default()
                        };
                        let mut ended = std::mem::replace(&mut self.section, next.clone());
                        ended.until = end;
                        let exchange = Exchange {
                            method: message.method().to_owned(),
                            id: message.id_text().to_owned(),
                            session: message.param_str("sessionId"),
                            section: next,
                            played: false,
                        };
                        self.found.push((ended, Some(exchange)));
                        // The request starts the next section: it is in none.
                        self.paused = true;
                        return true;
                    }
                    Kind::Response => {
                        let method = self.asked.remove(message.id_text()).unwrap_or_default();
                        self.section.answers.push(method);
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
                            if job && !self.section.jobs.iter().any(|j| j == method) {
                                self.section.jobs.push(method.to_owned());
                            }
                            let at = self.section.frames;
                            self.section.requests.push(at);
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
        self.section.frames += 1;
        false
    }

    /// The recording ended: so does its last section.
    pub(super) fn finish(&mut self) {
        let mut last = std::mem::take(&mut self.section);
        last.until = self.end;
        self.found.push((last, None));
    }
}

impl Indexer for Book {
    /// An agent message that surely asks nothing is counted, not parsed.
    fn skim(&mut self, _at: Duration, event: &[u8]) -> bool {
        !self.asks.may_ask(event)
    }

    fn add(&mut self, frame: &Frame, after: Mark) {
        Book::add(self, Indexed::Frame(frame), after);
    }

    fn skimmed(&mut self, lines: u64, after: Mark) {
        Book::add(self, Indexed::Lines(lines), after);
    }

    /// Each request of the client's ends a part: the script indexes a section at a
    /// time.
    fn pause(&mut self) -> bool {
        std::mem::take(&mut self.paused)
    }
}

/// Tells the agent's messages that surely ask nothing (no request: no top-level `id`
/// or no `method`) from their bytes. Its searchers are made once: each looks for a
/// key and for a `\u` escape (the only one that spells a letter) in one pass.
pub(super) struct Asks {
    glance: jsonrpc::Glance,
    id: Option<packed::Searcher>,
    method: Option<packed::Searcher>,
}

impl Default for Asks {
    fn default() -> Self {
        let either = |key: &str| packed::Config::new().builder().add(key).add(r"\u").build();
        Asks {
            glance: jsonrpc::Glance::default(),
            id: either(r#""id""#),
            method: either(r#""method""#),
        }
    }
}

impl Asks {
    /// Whether an agent message may be a request: not surely without a top-level
    /// `id` or without a `method`. A message that starts as the agents write them
    /// (`{"jsonrpc":"2.0","method":` or `"id":`) has the one at its top level, and
    /// surely not the other when its key is nowhere in it, nor a `\u` escape (the
    /// only one that spells a letter): one look for both.
    pub(super) fn may_ask(&self, event: &[u8]) -> bool {
        const NOTIFIES: &[u8] = br#"{"jsonrpc":"2.0","method":"#;
        const ANSWERS: &[u8] = br#"{"jsonrpc":"2.0","id":"#;
        let other = if event.starts_with(NOTIFIES) {
            self.id.as_ref()
        } else if event.starts_with(ANSWERS) {
            self.method.as_ref()
        } else {
            None
        };
        if let Some(other) = other {
            if other.find(event).is_none() {
                return false;
            }
        }
        self.glance.has_id(event) != Some(false) && self.glance.has_method(event) != Some(false)
    }
}
