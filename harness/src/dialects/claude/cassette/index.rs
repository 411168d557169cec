//! The index of a Claude Code recording, made in one pass over its frames: where each
//! turn's frames are on the tape, when the client's prompts came, its control requests
//! and their recorded answers, and which frames are what in a turn. The lines of the
//! turns are not held: they are read from the tape again as the turn plays
//! ([`Index::item`] makes each frame the thing the turn does), so memory stays flat
//! whatever the recording's size.
//!
//! The CLI's lines are cut into turns, each ending with its `result` and the
//! `session_state_changed idle` right after it; what comes after the last result
//! belongs to the last turn. A control response that answers one of the client's
//! requests is in no turn.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::time::Duration;

use serde_json::value::RawValue;
use serde_json::Value;

use super::{Item, Recorded};
use crate::cassette::tape::{Indexer, Mark};
use crate::dialects::claude::wire::{control, states, system, types, Inbound};
use crate::frames::{Frame, Stream};

/// Where a turn's frames are.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Span {
    /// Its first frame.
    pub(super) from: Mark,
    /// The number of the frame after its last.
    pub(super) until: usize,
    /// Where its last frame ends in the file.
    pub(super) end: u64,
    /// When its first line, request or answer was recorded.
    pub(super) first_at: Option<Duration>,
}

/// A recording's index.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct Index {
    pub(super) turns: Vec<Span>,
    /// When each recorded prompt came.
    pub(super) prompts: Vec<Duration>,
    pub(super) requests: Vec<Recorded>,
    /// The first `session_id` of the turns' lines.
    pub(super) session_id: Option<String>,
    /// The recording has stream events (it was made with `--include-partial-messages`).
    pub(super) stream_events: bool,
    /// The frames (numbers) of the CLI's lines that answer the client's requests.
    answers: HashSet<usize>,
    /// The frames of the CLI's requests that the recorded client answered (a request
    /// is known as one when it is read again: the index holds nothing for each).
    answered: HashSet<usize>,
    /// The frames where the recorded client answered a request of the turn's, with
    /// the request's id and the answer.
    awaits: HashMap<usize, (String, Result<Value, String>)>,
    /// The frames where the recorded client interrupted a turn under way.
    interrupts: HashSet<usize>,
    /// The frames of the CLI's `result` lines (each ends a turn: as many as turns).
    results: HashSet<usize>,
    /// The frames of `answers`, `answered` and `results`, in order: the stdout lines
    /// that do not play as they are ([`Index::plays_as_is`]).
    special: Vec<usize>,
}

/// Makes the index, frame by frame.
#[derive(Debug, Default)]
pub(super) struct Builder {
    index: Index,
    /// The turn under way: where it starts, and its things so far.
    current: Span,
    items: usize,
    /// Its requests: the frame of the last one of each id.
    current_asks: HashMap<String, usize>,
    /// The last line ended a turn: an `idle` state line next belongs to it.
    ended: bool,
    /// Frames added.
    frames: usize,
    /// Tells the lines that need no parse.
    plain: Plain,
    /// A request the look ahead of [`Builder::unanswered_request`] read in the read
    /// buffer: how many bytes follow it there, and its id.
    ahead: Option<(usize, String)>,
    /// The lines that look ahead found of a turn's stream or surely plain: those with
    /// at least this many bytes after them in the read buffer (see [`Settled`]).
    plain_ahead: Option<usize>,
    /// Those lines, as the last look ahead read them from the read buffer: each one's
    /// time, where its event begins and where its newline is (in the bytes after the
    /// request), for [`Builder::take_ahead`].
    spans: Vec<(Duration, usize, usize)>,
}

impl Builder {
    /// A builder whose first frame is at `start`.
    pub(super) fn new(start: Mark) -> Builder {
        Builder {
            current: Span {
                from: start,
                ..Span::default()
            },
            ..Builder::default()
        }
    }

    /// Adds the next frame; `after` is where the frame after it is.
    pub(super) fn add(&mut self, frame: &Frame, after: Mark) {
        <Builder as Indexer>::add(self, frame, after);
    }
}

impl Indexer for Builder {
    /// A line of a turn's stream needs nothing but its time (and the session's id,
    /// while none is known): it is taken as [`Builder::add`] takes its frame.
    /// So does a line that is surely no result, request or answer, when no turn just
    /// ended (see [`Plain::surely`]).
    fn skim(&mut self, at: Duration, event: &[u8]) -> bool {
        if streamed(event) {
            self.ended = false;
        } else if self.ended || !self.plain.surely(event) {
            return false;
        }
        self.frames += 1;
        self.line(at, event, None);
        true
    }

    fn add(&mut self, frame: &Frame, after: Mark) {
        let n = self.frames;
        self.frames += 1;
        if let Frame::Line(line) = frame {
            match line.stream {
                Stream::Stdin => self.client(n, line.at, &line.bytes),
                Stream::Stdout => self.cli(n, line.at, &line.bytes, after),
                Stream::Stderr => {}
            }
        }
    }
}

impl Builder {
    /// A thing of the turn under way, recorded at `at`.
    fn push(&mut self, at: Option<Duration>) {
        self.items += 1;
        if self.current.first_at.is_none() {
            self.current.first_at = at;
        }
    }

    /// One of the client's lines, frame `n`.
    fn client(&mut self, n: usize, at: Duration, line: &[u8]) {
        match Inbound::parse(line) {
            Ok(Inbound::User { .. }) => self.index.prompts.push(at),
            Ok(Inbound::Request { id, subtype, .. }) => {
                if subtype == control::INTERRUPT && self.items > 0 {
                    self.index.interrupts.insert(n);
                    self.push(None);
                }
                self.index.requests.push(Recorded {
                    subtype,
                    id: serde_json::to_string(&id).unwrap_or_default(),
                    at,
                    answer: None,
                    used: false,
                });
            }
            Ok(Inbound::Response { id, response, error }) => {
                let id = id.as_str().map_or_else(|| id.to_string(), str::to_owned);
                if let Some(&frame) = self.current_asks.get(&id) {
                    self.index.answered.insert(frame);
                    self.index
                        .awaits
                        .insert(n, (id, response.ok_or_else(|| error.unwrap_or_default())));
                    self.push(Some(at));
                }
            }
            Ok(Inbound::Quiet | Inbound::Other(_)) | Err(_) => {}
        }
    }

    /// One of the CLI's stdout lines, frame `n`.
    fn cli(&mut self, n: usize, at: Duration, line: &[u8], after: Mark) {
        // The lines of a turn's stream are by far the most: they are known by their
        // first key, and not parsed.
        if streamed(line) {
            self.ended = false;
            self.line(at, line, None);
            return;
        }
        let value = Members::of(line);
        let kind = value.as_ref().and_then(|v| v.str("type")).unwrap_or_default();
        if kind == types::CONTROL_RESPONSE {
            let answered = value
                .as_ref()
                .and_then(|v| v.object("response"))
                .and_then(|r| r.get("request_id"))
                .map(|id| {
                    let id: Value = serde_json::from_str(id.get()).unwrap_or_default();
                    serde_json::to_string(&id).unwrap_or_default()
                });
            if let Some(request) = self
                .index
                .requests
                .iter_mut()
                .find(|r| r.answer.is_none() && Some(&r.id) == answered.as_ref())
            {
                request.answer = Some((at, line.to_vec()));
                self.index.answers.insert(n);
                return;
            }
        }
        if std::mem::take(&mut self.ended) {
            let idle = kind == types::SYSTEM
                && value.as_ref().is_some_and(|v| {
                    v.str("subtype").as_deref() == Some(system::SESSION_STATE_CHANGED)
                        && v.str("state").as_deref() == Some(states::IDLE)
                });
            if idle {
                if let Some(turn) = self.index.turns.last_mut() {
                    turn.until = n + 1;
                    turn.end = after.position.offset;
                    self.current.from = after;
                    return;
                }
            }
        }
        if kind == types::CONTROL_REQUEST {
            let id = value.as_ref().map(request_id).unwrap_or_default();
            self.current_asks.insert(id, n);
            self.push(Some(at));
            return;
        }
        self.line(at, line, value.as_ref());
        if kind == types::RESULT {
            self.index.results.insert(n);
            self.current.until = n + 1;
            self.current.end = after.position.offset;
            let turn = std::mem::replace(
                &mut self.current,
                Span {
                    from: after,
                    ..Span::default()
                },
            );
            self.index.turns.push(turn);
            self.items = 0;
            self.current_asks.clear();
            self.ended = true;
        }
    }

    /// A line of the turn's; `value` when it was parsed.
    fn line(&mut self, at: Duration, line: &[u8], value: Option<&Members<'_>>) {
        if !self.index.stream_events && line.starts_with(STREAM_EVENT) {
            self.index.stream_events = true;
        }
        if self.index.session_id.is_none() {
            let parsed;
            let value = match value {
                Some(value) => Some(value),
                None => {
                    parsed = Members::of(line);
                    parsed.as_ref()
                }
            };
            self.index.session_id = value
                .and_then(|v| v.str("session_id"))
                .filter(|id| !id.is_empty())
                .map(Cow::into_owned);
        }
        self.push(Some(at));
    }

    /// The index, once every frame was added; the last frame ends at `end`.
    pub(super) fn index(mut self, end: u64) -> Index {
        let index = &mut self.index;
        index.special = index
            .answers
            .iter()
            .chain(&index.answered)
            .chain(&index.results)
            .copied()
            .collect();
        index.special.sort_unstable();
        if self.items > 0 {
            match self.index.turns.last_mut() {
                Some(turn) => {
                    turn.until = self.frames;
                    turn.end = end;
                    if turn.first_at.is_none() {
                        turn.first_at = self.current.first_at;
                    }
                }
                None => {
                    self.current.until = self.frames;
                    self.current.end = end;
                    self.index.turns.push(self.current);
                }
            }
        }
        self.index
    }
}

impl Builder {
    /// How many frames were added (the number of the next one).
    pub(super) fn frames(&self) -> usize {
        self.frames
    }

    /// The index of the frames added so far (not [`Builder::index`]ed: its `special`
    /// frames are not sorted out, its last turn not closed).
    pub(super) fn partial(&self) -> &Index {
        &self.index
    }

    /// Whether nothing of a turn was added yet: no line, request or answer of the
    /// CLI's, no answer of the client's to one (the frames so far are the client's
    /// requests, the CLI's answers to them, prompts and stderr), and a prompt came.
    /// The first turn may then be played as it is indexed ([`super::live`]).
    pub(super) fn before_first_turn(&self) -> bool {
        self.items == 0
            && !self.ended
            && self.index.turns.is_empty()
            && !self.index.prompts.is_empty()
            && self.index.awaits.is_empty()
            && self.index.interrupts.is_empty()
    }

    /// What tells the lines that need no parse.
    pub(super) fn plain(&self) -> &Plain {
        &self.plain
    }

    /// Whether a turn ended (a `result` was added): the turn played as it is indexed
    /// ends there, and what comes after it is told by the whole index.
    pub(super) fn turn_ended(&self) -> bool {
        !self.index.turns.is_empty() || self.ended
    }

    /// Takes the CLI's stdout line `line` (recorded at `at`) as [`Builder::add`] takes
    /// its frame when it is a request (`control_request`, no turn just ended) that
    /// surely nobody answers: `rest`, the frames after it, show a `result` or the same
    /// request id asked again before any frame of the client's (see
    /// [`settled_spans`]). `false` (nothing added) otherwise.
    pub(super) fn unanswered_request(&mut self, at: Duration, line: &[u8], rest: &[u8]) -> bool {
        if self.ended {
            return false;
        }
        // The line the last look ahead stopped at (as many bytes after it) was read.
        let id = match self.ahead.take() {
            Some((after, id)) if after == rest.len() => id,
            _ => {
                let Some(head) = Head::of(line) else {
                    return false;
                };
                if head.kind.as_deref() != Some(types::CONTROL_REQUEST) {
                    return false;
                }
                id_text(head.request_id)
            }
        };
        let Some(settled) = settled_spans(&id, rest, &self.plain, &mut self.spans) else {
            return false;
        };
        self.ahead = settled.again.map(|after| (after, id.clone()));
        self.plain_ahead = Some(settled.plain_before);
        let n = self.frames;
        self.frames += 1;
        self.current_asks.insert(id, n);
        self.push(Some(at));
        true
    }

    /// After [`Builder::unanswered_request`] took a request recorded at `at`: the
    /// lines after it in `rest` that its look ahead found of a turn's stream or surely
    /// plain, taken as [`Builder::skim_ahead`] takes each (they need nothing but their
    /// time) and appended to `out` each with its newline, while `out` holds less than
    /// `limit` bytes and their times do not go back. The look ahead read them (found
    /// their ends and their events): they are not read again. How many bytes of
    /// `rest` they are (with their newlines), how many, and the last one's time (`at`
    /// when none).
    pub(super) fn take_ahead(
        &mut self,
        at: Duration,
        rest: &[u8],
        out: &mut Vec<u8>,
        limit: usize,
    ) -> (usize, u64, Duration) {
        let (mut bytes, mut count, mut last) = (0, 0, at);
        let spans = std::mem::take(&mut self.spans);
        for &(t, start, end) in &spans {
            if out.len() >= limit || t < last {
                break;
            }
            let event = &rest[start..end - 1];
            self.frames += 1;
            self.line(t, event, None);
            out.extend_from_slice(event);
            out.push(b'\n');
            (bytes, count, last) = (end + 1, count + 1, t);
        }
        self.spans = spans;
        (bytes, count, last)
    }

    /// Forgets the request the look ahead read: the read buffer it was read in is
    /// left.
    pub(super) fn forget_ahead(&mut self) {
        self.ahead = None;
        self.plain_ahead = None;
    }

    /// [`Indexer::skim`] of a line that `rest` follows in the read buffer: a line the
    /// last look ahead found plain in that buffer is not searched again.
    pub(super) fn skim_ahead(&mut self, at: Duration, event: &[u8], rest: &[u8]) -> bool {
        if self.ahead.as_ref().is_some_and(|(after, _)| *after == rest.len()) {
            // The request the last look ahead read: no plain line.
            return false;
        }
        let known = !self.ended && self.plain_ahead.is_some_and(|plain| rest.len() >= plain);
        if !known {
            return self.skim(at, event);
        }
        self.frames += 1;
        self.line(at, event, None);
        true
    }
}

/// What a line after one of the CLI's requests says of the request's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum After {
    /// The turn ends (a `result`), or the request's id is asked again (`true`): a
    /// client's answer after it is not this request's.
    Settled(bool),
    /// Nothing about it.
    Nothing,
}

/// What the CLI's stdout line `line` says of its request `id` asked before it, as
/// [`Builder::add`] reads the line.
pub(super) fn after(id: &str, line: &[u8], plain: &Plain) -> After {
    if streamed(line) || plain.surely(line) {
        return After::Nothing;
    }
    after_parsed(id, line)
}

/// [`after`] of a line that is none of a turn's stream and not surely plain.
fn after_parsed(id: &str, line: &[u8]) -> After {
    let Some(head) = Head::of(line) else {
        return After::Nothing;
    };
    match head.kind.as_deref() {
        Some(types::RESULT) => After::Settled(false),
        Some(types::CONTROL_REQUEST) if id_text(head.request_id) == id => After::Settled(true),
        _ => After::Nothing,
    }
}

/// A line's `type` (when it is a string) and `request_id` (as written): what
/// [`Members`] reads of them, read without the map of every member (no key hashed,
/// nothing allocated but an escaped `type`).
#[derive(Debug, Default, serde::Deserialize)]
struct Head<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    /// As written, `null` too.
    #[serde(borrow, default, deserialize_with = "written")]
    request_id: Option<&'a RawValue>,
}

/// A member's value as written, whatever it is (`null` too, which an `Option` takes
/// for none).
fn written<'de, D: serde::Deserializer<'de>>(json: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&RawValue as serde::Deserialize>::deserialize(json).map(Some)
}

impl<'a> Head<'a> {
    /// The head of `json`, when it is an object; read from its [`Members`] where it
    /// cannot be read so (a key given twice is the last one there, a `type` that is
    /// no string is none).
    fn of(json: &'a [u8]) -> Option<Head<'a>> {
        serde_json::from_slice::<Head<'a>>(json).ok().or_else(|| {
            let value = Members::of(json)?;
            Some(Head {
                kind: value.str("type"),
                request_id: value.get("request_id"),
            })
        })
    }
}

/// What [`settled_spans`] found: the recorded client surely did not answer the request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Settled {
    /// How many bytes of `rest` follow the line that said so, when that line asks
    /// the request's id again.
    pub(super) again: Option<usize>,
    /// How many bytes of `rest` there are from the first line on that is neither
    /// of a turn's stream nor surely plain ([`Plain::surely`]): a line with at least
    /// as many bytes after it was found so.
    pub(super) plain_before: usize,
}

/// Whether the recorded client surely did not answer the CLI's request `id`, told
/// from `rest`, the whole frame lines after it: before any line of the client's (or
/// of another shape than `{"t":MS,"out":{...}}`), the turn ends or `id` is asked
/// again (the index takes a client's answer as the last request's of its id in the
/// turn). `Some` when it surely did not, with how many bytes of `rest` follow the
/// line that says so when that line asks `id` again; `None` when `rest` does not
/// tell.
#[cfg(test)]
pub(super) fn settled_after(id: &str, rest: &[u8], plain: &Plain) -> Option<Option<usize>> {
    settled_spans(id, rest, plain, &mut Vec::new()).map(|settled| settled.again)
}

/// [`settled_after`], with which lines of `rest` were found plain: those before the
/// first that is not are put in `spans` (emptied first), each as its time, where its
/// event begins and where its newline is.
fn settled_spans(
    id: &str,
    rest: &[u8],
    plain: &Plain,
    spans: &mut Vec<(Duration, usize, usize)>,
) -> Option<Settled> {
    spans.clear();
    let (mut from, mut plain_before) = (0, None);
    for end in memchr::memchr_iter(b'\n', rest) {
        let (t, event) = crate::cassette::out_event(&rest[from..end])?;
        if streamed(event) || plain.surely(event) {
            if plain_before.is_none() {
                // The event ends before the line's last `}`.
                spans.push((t, end - 1 - event.len(), end));
            }
        } else {
            let first = *plain_before.get_or_insert(rest.len() - from);
            match after_parsed(id, event) {
                After::Settled(again) => {
                    return Some(Settled {
                        again: again.then_some(rest.len() - end - 1),
                        plain_before: first,
                    })
                }
                After::Nothing => {}
            }
        }
        from = end + 1;
    }
    None
}

/// Whether a line of the CLI's is one of a turn's stream (`assistant`, `user`,
/// `stream_event`), known by its first key as the CLI writes it. Such a line is no
/// result, request or answer, and its session id is the init line's.
pub(super) fn streamed(line: &[u8]) -> bool {
    const STREAMED: [&[u8]; 3] = [b"{\"type\":\"assistant\",", b"{\"type\":\"user\",", STREAM_EVENT];
    STREAMED.iter().any(|prefix| line.starts_with(prefix))
}

/// How the CLI begins a stream event's line.
const STREAM_EVENT: &[u8] = b"{\"type\":\"stream_event\",";

/// What tells a line that is surely none of the kinds the index tells apart (a
/// `result`, a `control_request` or a `control_response`) from its bytes: the searchers
/// of those words spelt as JSON strings (the two kinds of control lines by the words'
/// first 11 bytes, `"control_re`, one search for both), and a search for a `\u`
/// escape by its backslash.
#[derive(Debug, Clone)]
pub(super) struct Plain([memchr::memmem::Finder<'static>; 2]);

impl Default for Plain {
    fn default() -> Plain {
        use memchr::memmem::Finder;
        let word = |kind: &str| Finder::new(&format!("\"{kind}\"")).into_owned();
        let control = format!("\"{}", &types::CONTROL_REQUEST[..10]);
        debug_assert!(format!("\"{}\"", types::CONTROL_RESPONSE).starts_with(&control));
        Plain([Finder::new(&control).into_owned(), word(types::RESULT)])
    }
}

impl Plain {
    /// Whether `line` is surely none of those kinds, told without parsing it: it
    /// spells none of those words as a JSON string, and has no `\u` escape (the only
    /// escape that can spell a letter). A line that does not parse is no such kind
    /// either; a line said not to be surely plain is parsed.
    pub(super) fn surely(&self, line: &[u8]) -> bool {
        self.0.iter().all(|finder| finder.find(line).is_none())
            && memchr::memchr_iter(b'\\', line).all(|at| line.get(at + 1) != Some(&b'u'))
    }
}

/// A JSON object's members, their values not parsed: what the index and the play
/// read of a line that is none of a turn's stream (its kind, its ids), without
/// making a [`Value`] of all of it (an `init` line is large). A key given twice is
/// the last one, as in a [`Value`].
pub(super) struct Members<'a>(HashMap<Cow<'a, str>, &'a RawValue>);

impl<'a> Members<'a> {
    /// The members of `json`, when it is an object.
    pub(super) fn of(json: &'a [u8]) -> Option<Members<'a>> {
        match serde_json::from_slice::<HashMap<&'a str, &'a RawValue>>(json) {
            Ok(members) => Some(Members(
                members.into_iter().map(|(k, v)| (Cow::Borrowed(k), v)).collect(),
            )),
            // A key with an escape is not borrowed.
            Err(_) => serde_json::from_slice::<HashMap<String, &'a RawValue>>(json)
                .ok()
                .map(|members| Members(members.into_iter().map(|(k, v)| (Cow::Owned(k), v)).collect())),
        }
    }

    /// The member `key`, as written.
    pub(super) fn get(&self, key: &str) -> Option<&'a RawValue> {
        self.0.get(key).copied()
    }

    /// The member `key`, when it is a string.
    pub(super) fn str(&self, key: &str) -> Option<Cow<'a, str>> {
        let raw = self.get(key)?.get();
        serde_json::from_str::<&'a str>(raw)
            .map(Cow::Borrowed)
            .or_else(|_| serde_json::from_str::<String>(raw).map(Cow::Owned))
            .ok()
    }

    /// The member `key`, when it is an object.
    pub(super) fn object(&self, key: &str) -> Option<Members<'a>> {
        Members::of(self.get(key)?.get().as_bytes())
    }
}

/// A request's `request_id`, as the index names it: its text, or its JSON.
fn request_id(value: &Members<'_>) -> String {
    id_text(value.get("request_id"))
}

/// A `request_id` as written (`id`), as the index names it: its text, or its JSON.
fn id_text(id: Option<&RawValue>) -> String {
    let Some(id) = id else {
        return String::new();
    };
    let raw = id.get();
    match serde_json::from_str::<&str>(raw) {
        Ok(text) => text.to_owned(),
        Err(_) => match serde_json::from_str::<String>(raw) {
            Ok(text) => text,
            Err(_) => serde_json::from_str::<Value>(raw).map_or_else(|_| raw.to_owned(), |id| id.to_string()),
        },
    }
}

/// A line's `type`, and its `subtype` (a control request's `request.subtype`), as
/// [`crate::dialects::claude::wire::kind_of`] reads them.
fn kind_of(value: &Members<'_>) -> Option<(String, Option<String>)> {
    let kind = value.str("type")?.into_owned();
    let subtype = match value.get("subtype") {
        Some(_) => value.str("subtype"),
        None => value.object("request").and_then(|request| request.str("subtype")),
    };
    Some((kind, subtype.map(Cow::into_owned)))
}

impl Index {
    /// What frame `n` is in a turn, if anything.
    pub(super) fn item(&self, n: usize, frame: Frame) -> Option<Item> {
        let Frame::Line(line) = frame else {
            return None;
        };
        match line.stream {
            Stream::Stdin => {
                if self.interrupts.contains(&n) {
                    return Some(Item::Interrupt);
                }
                let (id, recorded) = self.awaits.get(&n)?;
                Some(Item::Await {
                    at: line.at,
                    id: id.clone(),
                    recorded: recorded.clone(),
                })
            }
            Stream::Stdout if self.answers.contains(&n) => None,
            // A line of the stream is no request, and its kind is not needed.
            Stream::Stdout if streamed(&line.bytes) => Some(Item::Line {
                at: line.at,
                line: line.bytes,
                kind: None,
            }),
            Stream::Stdout => {
                let value = Members::of(&line.bytes);
                let kind = value.as_ref().and_then(kind_of);
                Some(match (value, kind) {
                    (Some(value), Some((kind, subtype))) if kind == types::CONTROL_REQUEST => Item::Ask {
                        at: line.at,
                        id: request_id(&value),
                        subtype: subtype.unwrap_or_default(),
                        line: line.bytes,
                        answered: self.answered.contains(&n),
                    },
                    (_, kind) => Item::Line {
                        at: line.at,
                        line: line.bytes,
                        kind,
                    },
                })
            }
            Stream::Stderr => None,
        }
    }

    /// Whether the CLI's stdout line at frame `n`, none of a turn's stream, plays as it
    /// is to a client that asks to be asked and reads session states: it is no answer
    /// to the client's request (not played), no request the recorded client answered
    /// (waited for), and no `result` (its `is_error` is read). Every other such line
    /// is a [`Item::Line`] or an unanswered [`Item::Ask`] that [`super::Script::step`]
    /// sends as it is, its time the script's.
    pub(super) fn plays_as_is(&self, n: usize) -> bool {
        self.special.binary_search(&n).is_err()
    }

    /// Whether the recorded client answered the CLI's request at frame `n`.
    pub(super) fn is_answered(&self, n: usize) -> bool {
        self.answered.contains(&n)
    }

    /// Whether the recorded client answered request `id` at a frame from `from` on,
    /// before frame `until`.
    pub(super) fn answered_in(&self, id: &str, from: usize, until: usize) -> bool {
        self.awaits
            .iter()
            .any(|(n, (asked, _))| (from..until).contains(n) && asked == id)
    }

    /// Whether the recorded client interrupted the turn at a frame from `from` on,
    /// before frame `until`.
    pub(super) fn interrupted_in(&self, from: usize, until: usize) -> bool {
        self.interrupts.iter().any(|n| (from..until).contains(n))
    }
}

#[cfg(test)]
mod head_tests {
    use super::{id_text, request_id, types, Head, Members};

    /// What the look ahead reads of a line ([`Head`]) is what the index reads of it
    /// ([`Members`]), whatever the line: an id of any kind, `null`, escapes, a key
    /// given twice, a `type` that is no string, no object.
    #[test]
    fn a_head_reads_what_the_members_read() {
        let (request, result) = (types::CONTROL_REQUEST, types::RESULT);
        let lines = [
            format!(
                r#"{{"type":"{request}","request_id":"a","request":{{"subtype":"x","type":"x","request_id":"b"}}}}"#
            ),
            format!(r#"{{"type":"{request}","request_id":null}}"#),
            format!(r#"{{"type":"{request}","request_id":7}}"#),
            format!(r#"{{"type":"{request}","request_id":{{"b":1, "a":2}}}}"#),
            format!(r#"{{"type":"{request}","request_id":"a\u0062"}}"#),
            format!(r#"{{"typ\u0065":"{result}"}}"#),
            r#"{"type":"res\u0075lt"}"#.to_owned(),
            format!(r#"{{"type":"{result}","type":"{request}","request_id":"a"}}"#),
            format!(r#"{{"request_id":"a","type":"{request}","request_id":"b"}}"#),
            r#"{"type":5,"request_id":"a"}"#.to_owned(),
            r#"{"type":null}"#.to_owned(),
            "[1]".to_owned(),
            r#"{"type":"res"#.to_owned(),
            format!(r#"{{"type":"{result}"}} x"#),
        ];
        for line in &lines {
            let head = Head::of(line.as_bytes()).map(|h| (h.kind, id_text(h.request_id)));
            let members = Members::of(line.as_bytes()).map(|m| (m.str("type"), request_id(&m)));
            assert_eq!(head, members, "{line}");
        }
    }
}
