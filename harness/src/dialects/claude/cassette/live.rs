//! A large recording played in one pass: the index pass pauses where the first turn
//! begins, and the first turn is played from the index pass's own reader as it is
//! indexed, so its bytes are read from the file once (not once to index them, then
//! again to play them).
//!
//! Each thing the first turn does is told as the whole index tells it: a frame is
//! added to the index before it is made an item ([`super::index::Index::item`] of a
//! frame depends on the frames before it only), but for whether the recorded client
//! answered a request of the CLI's, which the frames after it tell: such a request is
//! played in this pass only when the frames after it (in the read buffer, or read
//! ahead from the file) show the turn end or the same id asked again before any line
//! of the client's. Wherever the pass cannot tell (a request it cannot settle, the
//! turn's end, a request of the client's whose answer is not indexed yet, an answer,
//! an interrupt, another turn), the rest of the file is indexed ([`Script::settle`])
//! and the turn plays on from where it is, as every turn of a smaller file plays.

use std::io::BufReader;
use std::sync::Arc;

use super::index::{after, streamed, After, Builder};
use super::{Item, Playing, Script};
use crate::cassette::tape::{At, Indexer, Mark, Tape};
use crate::cassette::{Reader, PREFLIGHT_LIMIT};
use crate::dialects::claude::wire::control;
use crate::error::CassetteError;
use crate::frames::{Frame, Stream};

/// The most frames read ahead from the file to tell whether a request of the CLI's
/// is answered, when the read buffer does not tell.
const LOOK_AHEAD: usize = 4096;

/// The read buffer of that look ahead: a few lines (the next request is near, most
/// often), not a read buffer of the file's (the file is read once).
const LOOK_AHEAD_BUFFER: u64 = 16 << 10;

/// The index pass of a large cassette, paused before its first turn, or under way as
/// the first turn plays.
#[derive(Debug)]
pub(super) struct Live {
    reader: Reader<BufReader<At>>,
    builder: Builder,
    /// The first turn plays from `reader`.
    playing: bool,
}

/// How [`index`] left the index.
pub(super) enum Indexed {
    /// Whole: the index, and where the last frame ends.
    Whole(Box<Builder>, u64),
    /// Paused before the first turn.
    Paused(Box<Live>),
}

/// Indexes the cassette that `reader` (its header read) reads into `builder`: whole
/// when the file is of up to `preflight` bytes (checked in full, as
/// [`Tape::index_with`] does), or when its first turn cannot be played in one pass;
/// else up to the first line of its first turn.
pub(super) fn index(
    tape: &Tape,
    reader: Reader<BufReader<At>>,
    mut builder: Builder,
    preflight: u64,
) -> Result<Indexed, CassetteError> {
    if !matches!(tape, Tape::File { len, .. } if *len > preflight) {
        let end = tape.index_with(reader, &mut builder)?;
        return Ok(Indexed::Whole(Box::new(builder), end));
    }
    let mut reader = reader.fast();
    loop {
        // The next frame, when it is a stdout line whole in the read buffer that the
        // index takes as it is (so a line of a turn): looked at, not read.
        let mut next = None;
        reader.fast_lines(|_, event| {
            next = Some(streamed(event) || (!builder.turn_ended() && builder.plain().surely(event)));
            false
        })?;
        if next == Some(true) {
            if builder.before_first_turn() {
                return Ok(Indexed::Paused(Box::new(Live {
                    reader,
                    builder,
                    playing: false,
                })));
            }
            break;
        }
        if !add_next(&mut reader, &mut builder)? {
            let end = reader.position().offset;
            return Ok(Indexed::Whole(Box::new(builder), end));
        }
    }
    let end = rest(&mut reader, &mut builder)?;
    Ok(Indexed::Whole(Box::new(builder), end))
}

/// Reads the next frame into `builder`; `false` at the end of the file.
fn add_next(reader: &mut Reader<BufReader<At>>, builder: &mut Builder) -> Result<bool, CassetteError> {
    let Some(frame) = reader.next() else {
        return Ok(false);
    };
    let frame = frame?;
    let after = Mark {
        frame: builder.frames() + 1,
        position: Reader::position(reader),
    };
    builder.add(&frame, after);
    Ok(true)
}

/// Indexes the rest of the file, as [`Tape::index_with`] does; where the last frame
/// ends.
fn rest(reader: &mut Reader<BufReader<At>>, builder: &mut Builder) -> Result<u64, CassetteError> {
    loop {
        reader.fast_lines(|at, event| builder.skim(at, event))?;
        if !add_next(reader, builder)? {
            return Ok(Reader::position(reader).offset);
        }
    }
}

impl Script {
    /// The script of the Claude Code cassette at `path`, for a replay: as
    /// [`Script::open`], but a cassette larger than [`PREFLIGHT_LIMIT`] is indexed
    /// as its first turn plays (read once: see the module's documentation), its
    /// errors met where the replay reaches them.
    pub fn open_live(path: &std::path::Path) -> Result<Script, CassetteError> {
        Script::open_over(path, PREFLIGHT_LIMIT)
    }

    /// [`Script::open_live`], a file larger than `preflight` indexed as it plays
    /// (tests play a small one so).
    pub(super) fn open_over(path: &std::path::Path, preflight: u64) -> Result<Script, CassetteError> {
        let (tape, reader, builder) = Script::opened(path)?;
        Ok(match index(&tape, reader, builder, preflight)? {
            Indexed::Whole(builder, end) => Script::of(builder.index(end), tape),
            Indexed::Paused(live) => {
                let mut script = Script::of(live.builder.partial().clone(), tape);
                script.live = Some(live);
                script
            }
        })
    }

    /// Indexes the rest of a cassette played in one pass, and plays the turn under
    /// way on from where it is, as any turn plays; nothing when it is indexed whole.
    pub(super) fn settle(&mut self) {
        let Some(live) = self.live.take() else {
            return;
        };
        let Live {
            mut reader,
            mut builder,
            playing,
        } = *live;
        let mark = Mark {
            frame: builder.frames(),
            position: reader.position(),
        };
        let end = rest(&mut reader, &mut builder);
        let index = builder.index(end.as_ref().map_or(reader.position().offset, |end| *end));
        for (mine, all) in self.requests.iter_mut().zip(&index.requests) {
            mine.answer.clone_from(&all.answer);
        }
        self.requests
            .extend(index.requests.iter().skip(self.requests.len()).cloned());
        match end {
            Err(e) => {
                self.error = Some(e);
                self.playing = None;
            }
            Ok(_) if playing => {
                self.playing = index
                    .turns
                    .first()
                    .filter(|span| mark.frame < span.until)
                    .and_then(|span| match self.tape.frames(mark, span.end) {
                        Ok(frames) => Some(Playing {
                            frames,
                            next: mark.frame,
                            until: span.until,
                        }),
                        Err(e) => {
                            self.error = Some(e);
                            None
                        }
                    });
            }
            Ok(_) => {}
        }
        self.index = Arc::new(index);
    }

    /// Begins the first turn of a cassette paused before it, played as it is indexed;
    /// `false` (the index made whole) for any other turn, which [`Script::begin`]
    /// begins.
    pub(super) fn begin_live(&mut self) -> bool {
        let Some(live) = self.live.as_mut() else {
            return false;
        };
        let first = live.builder.partial().prompts.first().copied();
        let Some(base) = first.filter(|_| self.played == 0 && !live.playing) else {
            self.settle();
            return false;
        };
        live.playing = true;
        self.played = 1;
        self.ahead.clear();
        self.playing = None;
        self.waiting = None;
        self.base = base;
        self.at = base;
        self.fill();
        true
    }

    /// Whether the recording has, indexed already, the next unused request `subtype`
    /// of the client's with the CLI's answer; the index is made whole when it may not.
    pub(super) fn settle_for_request(&mut self, subtype: &str) {
        let Some(live) = self.live.as_ref() else {
            return;
        };
        let known = &live.builder.partial().requests;
        for (mine, all) in self.requests.iter_mut().zip(known) {
            mine.answer.clone_from(&all.answer);
        }
        self.requests
            .extend(known.iter().skip(self.requests.len()).cloned());
        let answered = self
            .requests
            .iter()
            .find(|r| !r.used && r.subtype == subtype)
            .is_some_and(|r| r.answer.is_some());
        if !answered || subtype == control::INTERRUPT {
            self.settle();
        }
    }

    /// The next thing of the first turn played in one pass, read as it is indexed
    /// (`None` at its end); the frames after its `result` are read once the index is
    /// whole.
    pub(super) fn read_live(&mut self) -> Option<Item> {
        loop {
            let Some(live) = self
                .live
                .as_mut()
                .filter(|live| live.playing && !live.builder.turn_ended())
            else {
                self.settle();
                return self.read();
            };
            let n = live.builder.frames();
            let frame = match live.reader.next() {
                Some(Ok(frame)) => frame,
                Some(Err(e)) => {
                    self.error = Some(e);
                    self.live = None;
                    self.playing = None;
                    return None;
                }
                None => {
                    self.settle();
                    return self.read();
                }
            };
            let after = Mark {
                frame: n + 1,
                position: live.reader.position(),
            };
            live.builder.add(&frame, after);
            let Some(mut item) = live.builder.partial().item(n, frame) else {
                continue;
            };
            if let Item::Ask { id, answered, .. } = &mut item {
                if !unanswered_in(&self.tape, live.builder.plain(), id, after) {
                    self.settle();
                    *answered = self.index.is_answered(n);
                }
            }
            return Some(item);
        }
    }

    /// The first turn's next stdout lines that [`Script::step`] would send as they
    /// are, taken from the read buffer as they are indexed, appended to `out` as
    /// [`Script::stream_run`] does; how many. None when the cassette is not played in
    /// one pass.
    pub(super) fn stream_live(&mut self, out: &mut Vec<u8>, limit: usize) -> u64 {
        let others = self.asks && self.states;
        let Some(live) = self
            .live
            .as_mut()
            .filter(|live| live.playing && !live.builder.turn_ended())
        else {
            return 0;
        };
        let Live { reader, builder, .. } = &mut **live;
        let (mut taken, mut at) = (0, self.at);
        let read = loop {
            // A request taken with the lines its look ahead read after it: those
            // lines are taken from the reader at once (how many bytes of the rest
            // are left after them, how many lines, the last one's time).
            let mut ahead = None;
            let read = reader.fast_lines_ahead(|t, event, rest| {
                // A line of the stream, a line surely none of the kinds the index tells
                // apart, a request surely not answered: each plays as it is (the last two
                // to a client that reads states and asks to be asked).
                if out.len() >= limit {
                    return false;
                }
                let took = if streamed(event) {
                    builder.skim(t, event)
                } else if !others {
                    false
                } else if builder.skim_ahead(t, event, rest) {
                    true
                } else if builder.unanswered_request(t, event, rest) {
                    out.extend_from_slice(event);
                    out.push(b'\n');
                    let (bytes, lines, last) = builder.take_ahead(t, rest, out, limit);
                    ahead = Some((rest.len() - bytes, lines + 1, last));
                    (at, taken) = (last, taken + lines + 1);
                    return false;
                } else {
                    false
                };
                if took {
                    out.extend_from_slice(event);
                    out.push(b'\n');
                    at = t;
                    taken += 1;
                }
                took
            });
            match (read, ahead) {
                (Ok(_), Some((left, lines, last))) => {
                    if let Err(e) = reader.fast_take_ahead(left, lines, last) {
                        break Err(e);
                    }
                }
                (read, _) => break read,
            }
        };
        builder.forget_ahead();
        self.at = at;
        if let Err(e) = read {
            self.error = Some(e);
            self.live = None;
            self.playing = None;
        }
        taken
    }
}

/// Whether the recorded client surely did not answer the CLI's request `id` whose
/// frame ends at `after`, told from at most [`LOOK_AHEAD`] frames after it read from
/// the file (as [`super::index::settled_spans`] tells it from the read buffer).
fn unanswered_in(tape: &Tape, plain: &super::index::Plain, id: &str, after: Mark) -> bool {
    let Ok(frames) = tape.frames(after, after.position.offset.saturating_add(LOOK_AHEAD_BUFFER)) else {
        return false;
    };
    for frame in frames.take(LOOK_AHEAD) {
        match frame {
            Ok(Frame::Line(line)) => match line.stream {
                Stream::Stdout => {
                    if let After::Settled(_) = self::after(id, &line.bytes, plain) {
                        return true;
                    }
                }
                Stream::Stdin => return false,
                Stream::Stderr => {}
            },
            Ok(Frame::End(_)) => return true,
            Ok(_) => {}
            Err(_) => return false,
        }
    }
    false
}
