//! Applying faults to a stream of frames: one iterator stage per fault.
//!
//! A run the faults leave without its result ends as the real CLI ends every failure
//! (shared/REAL-CLI.md): exit 1 and a message on stderr ([`NO_RESULT`]), in every
//! output format. Only an `exit` fault decides otherwise: `exit:code=0` on such a run
//! is what a misbehaving agent does, never the real CLI (opt-in, see
//! [`crate::dialects::cursor_print::expect::misbehaving_of`]).

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;
use std::time::Duration;

use crate::dialects::cursor_print::events::{event_type, subtype};
use crate::dialects::cursor_print::render::{Witness, NO_RESULT};
mod catalogue;
#[cfg(feature = "generate")]
pub mod strategy;
mod typed;

pub use catalogue::CATALOGUE;

/// Print mode's entries of the fault catalogue, in documentation order.
pub fn catalogue() -> Vec<&'static crate::faults::Described> {
    CATALOGUE.iter().collect()
}
use crate::format::OutputFormat;
use crate::frames::{Chunking, Ending, Exit, Frame, Line, Stream};
use crate::frames::{FrameResult, Frames};
use crate::peek::Peek;
pub use typed::*;

// The largest `huge` event, written as a cassette frame (even in base64), is a line a
// cassette may hold.
const _: () = assert!(crate::faults::MAX_BYTES.div_ceil(3) * 4 + 4096 <= crate::cassette::MAX_LINE_BYTES);

/// What the fault stages share: what they saw of the stream, and which faults acted.
#[derive(Debug, Default)]
struct State {
    session_id: Option<String>,
    timestamp_ms: Option<u64>,
    fired: Vec<bool>,
    /// The source, before any fault, ends with a successful `result` and exit 0.
    succeeded: bool,
}

/// Faults being applied to a run; [`Applied::report`] says which of them acted.
///
/// A fault acted when something of it reached the consumer: a fault on events that
/// the output format leaves out (`duplicate`, `unknown-event`, `huge`, ... on an event
/// that `json` or `text` does not print) did not act, see [`Applied::printed_as`].
#[derive(Debug, Clone)]
pub struct Applied {
    faults: Vec<Fault>,
    state: Rc<RefCell<State>>,
    now_ms: u64,
    printed_as: OutputFormat,
}

impl Applied {
    /// Prepares `faults`; `now_ms` stamps inserted events when the stream has no
    /// timestamps.
    pub fn new(faults: Vec<Fault>, now_ms: u64) -> Self {
        let state = State {
            fired: vec![false; faults.len()],
            ..State::default()
        };
        Applied {
            faults,
            state: Rc::new(RefCell::new(state)),
            now_ms,
            printed_as: OutputFormat::StreamJson,
        }
    }

    /// The format the events are printed in after the faults on events act (see
    /// [`crate::dialects::cursor_print::render::Recorded::prints_events_as`]); `stream-json`, every event
    /// as it is, unless said otherwise. A fault whose events that format leaves out is
    /// reported as not fired.
    #[must_use]
    pub fn printed_as(mut self, format: OutputFormat) -> Self {
        self.printed_as = format;
        self
    }

    /// The faults, in order.
    pub fn faults(&self) -> &[Fault] {
        &self.faults
    }

    /// Each fault with whether it acted, once the frames were consumed.
    pub fn report(&self) -> Vec<(Fault, bool)> {
        let state = self.state.borrow();
        self.faults
            .iter()
            .cloned()
            .zip(state.fired.iter().copied())
            .collect()
    }

    fn stages(&self, mut frames: Frames, output: bool) -> Frames {
        if !output {
            frames = Box::new(Source {
                inner: frames,
                reader: Reader::default(),
                state: Rc::clone(&self.state),
            });
        }
        for (index, fault) in self.faults.iter().enumerate() {
            if fault.acts_on_output() != output {
                continue;
            }
            let witness = (!output && self.printed_as != OutputFormat::StreamJson && changes_events(fault))
                .then(|| Witnesses {
                    before: Witness::new(self.printed_as),
                    after: Witness::new(self.printed_as),
                });
            frames = Box::new(Stage {
                inner: frames,
                fault: fault.clone(),
                index,
                state: Rc::clone(&self.state),
                now_ms: self.now_ms,
                seen: 0,
                written: 0,
                armed: false,
                fired: false,
                acted: false,
                witness,
                done: false,
                held: Vec::new(),
                queue: VecDeque::new(),
            });
        }
        // An `exit` fault decides how the run ends (the presets' faults hold one).
        if !output && !self.faults.iter().any(|f| matches!(f, Fault::Exit { .. })) {
            frames = Box::new(RealEnding {
                inner: frames,
                reader: Reader::default(),
                state: Rc::clone(&self.state),
                printed_as: self.printed_as,
                queue: VecDeque::new(),
            });
        }
        frames
    }
}

/// Stdout as a consumer reads it: whole lines (a line written in parts counts where it
/// ends), until stdout is closed.
#[derive(Debug, Default)]
struct Reader {
    partial: Vec<u8>,
    closed: bool,
    /// A successful `result` was read.
    result: bool,
}

impl Reader {
    fn frame(&mut self, frame: &Frame) {
        match frame {
            Frame::CloseStdout { .. } => self.closed = true,
            Frame::Line(line) if line.stream == Stream::Stdout && !self.closed => {
                self.partial.extend_from_slice(&line.bytes);
                if line.newline {
                    let whole = std::mem::take(&mut self.partial);
                    self.result |=
                        Peek::parse(&whole).is_some_and(|p| p.is_type(event_type::RESULT) && !p.is_error());
                }
            }
            _ => {}
        }
    }
}

/// Sees the source before any fault: whether it succeeded.
struct Source {
    inner: Frames,
    reader: Reader,
    state: Rc<RefCell<State>>,
}

impl Iterator for Source {
    type Item = FrameResult;

    fn next(&mut self) -> Option<FrameResult> {
        let item = self.inner.next()?;
        if let Ok(frame) = &item {
            self.reader.frame(frame);
            if let Frame::End(end) = frame {
                self.state.borrow_mut().succeeded = self.reader.result && end.exit.success();
            }
        }
        Some(item)
    }
}

/// After the faults on events: a run that succeeded, and that the faults left without
/// its result (cut, dropped, or written after stdout was closed), ends as the real CLI
/// ends a failure: [`NO_RESULT`] on stderr, exit 1. A run that failed or exits
/// otherwise already (a signal, a preset) is left as it is, and so is a replay: a
/// recording is never changed by this.
struct RealEnding {
    inner: Frames,
    reader: Reader,
    state: Rc<RefCell<State>>,
    printed_as: OutputFormat,
    queue: VecDeque<FrameResult>,
}

impl Iterator for RealEnding {
    type Item = FrameResult;

    fn next(&mut self) -> Option<FrameResult> {
        if let Some(item) = self.queue.pop_front() {
            return Some(item);
        }
        let item = self.inner.next()?;
        let Ok(frame) = &item else { return Some(item) };
        self.reader.frame(frame);
        match frame {
            Frame::End(end) if end.exit.success() && self.lost() => {
                let at = end.at;
                self.queue.push_back(Ok(Frame::End(Ending {
                    at,
                    exit: Exit::Code(1),
                })));
                Some(Ok(Frame::Line(Line::stderr(at, NO_RESULT))))
            }
            _ => Some(item),
        }
    }
}

impl RealEnding {
    /// Whether the run succeeded before the faults, and its result does not reach the
    /// consumer now: `json` and `text` print it at the end, after a closed stdout.
    fn lost(&self) -> bool {
        let printed_at_end = self.printed_as != OutputFormat::StreamJson;
        self.state.borrow().succeeded && (!self.reader.result || (printed_at_end && self.reader.closed))
    }
}

/// Applies the faults that act on events (before the output format is rendered).
pub fn apply_events(frames: Frames, applied: &Applied) -> Frames {
    applied.stages(frames, false)
}

/// Applies the faults that act on the rendered output lines.
pub fn apply_output(frames: Frames, applied: &Applied) -> Frames {
    applied.stages(frames, true)
}

struct Stage {
    inner: Frames,
    fault: Fault,
    index: usize,
    state: Rc<RefCell<State>>,
    now_ms: u64,
    /// Stdout lines seen so far.
    seen: usize,
    /// Stdout bytes seen so far.
    written: usize,
    /// The placement was reached, but the fault waits for a JSON object line.
    armed: bool,
    /// The fault acted where it is placed (one-shot faults act once).
    fired: bool,
    /// The fault changed the stream, somewhere.
    acted: bool,
    /// For a fault that changes events in a format that prints only some of them:
    /// what the consumer sees without it and with it. It is reported as fired only
    /// when the two differ.
    witness: Option<Witnesses>,
    /// The stream has ended here (a cut).
    done: bool,
    /// Lines held back (`reorder`).
    held: Vec<Line>,
    queue: VecDeque<FrameResult>,
}

impl Iterator for Stage {
    type Item = FrameResult;

    fn next(&mut self) -> Option<FrameResult> {
        loop {
            if let Some(item) = self.queue.pop_front() {
                return Some(item);
            }
            if self.done {
                return None;
            }
            match self.inner.next()? {
                Ok(Frame::Line(line)) if line.stream == Stream::Stdout => self.on_stdout(line),
                Ok(Frame::End(end)) => self.on_end(end),
                other => {
                    // Lines held back (`reorder`) come before whatever follows them.
                    self.release_held();
                    self.queue.push_back(other);
                }
            }
        }
    }
}

/// The output of the events a stage takes (`before`) and gives (`after`).
struct Witnesses {
    before: Witness,
    after: Witness,
}

/// Whether the fault's only effect is on which stdout events there are, and what they
/// hold: whether it shows depends on the output format.
fn changes_events(fault: &Fault) -> bool {
    matches!(
        fault,
        Fault::Drop { .. }
            | Fault::Duplicate { .. }
            | Fault::Reorder
            | Fault::UnknownEvent { .. }
            | Fault::UnknownField { .. }
            | Fault::Huge { .. }
            | Fault::Insert { .. }
    )
}

fn placement(fault: &Fault) -> Option<&Placement> {
    match fault {
        Fault::Eof { at }
        | Fault::Stderr { at, .. }
        | Fault::StderrFlood { at, .. }
        | Fault::Signal { at, .. }
        | Fault::Stall { at, .. }
        | Fault::CloseStdout { at }
        | Fault::Malformed { at }
        | Fault::Noise { at, .. }
        | Fault::Duplicate { at }
        | Fault::UnknownEvent { at }
        | Fault::UnknownField { at }
        | Fault::Huge { at, .. }
        | Fault::InvalidUtf8 { at }
        | Fault::Insert { at, .. } => Some(at),
        _ => None,
    }
}

fn is_object(line: &Line) -> bool {
    line.bytes.first() == Some(&b'{')
        && line.bytes.last() == Some(&b'}')
        && Peek::parse(&line.bytes).is_some()
}

impl Stage {
    fn fire(&mut self) {
        self.fired = true;
        self.mark();
    }

    /// Records that the fault acted, without disarming it (`unknown-field` on every
    /// event). A fault with witnesses is reported at the end, by what they saw.
    fn mark(&mut self) {
        self.acted = true;
        if self.witness.is_none() {
            self.report(true);
        }
    }

    fn report(&self, fired: bool) {
        if let Some(slot) = self.state.borrow_mut().fired.get_mut(self.index) {
            *slot = fired;
        }
    }

    fn push(&mut self, line: Line) {
        if let Some(witness) = &mut self.witness {
            if line.stream == Stream::Stdout {
                witness.after.line(&line.bytes);
            }
        }
        self.queue.push_back(Ok(Frame::Line(line)));
    }

    fn observe(&self, peek: Option<&Peek<'_>>) {
        let Some(peek) = peek else { return };
        let mut state = self.state.borrow_mut();
        if state.session_id.is_none() {
            state.session_id = peek.session_id().map(|s| s.into_owned());
        }
        if let Some(ts) = peek.timestamp_ms() {
            state.timestamp_ms = Some(ts);
        }
    }

    /// Fills `{session_id}` and `{timestamp_ms}` in a template.
    fn fill(&self, template: &str) -> String {
        let state = self.state.borrow();
        let session_id = state
            .session_id
            .as_deref()
            .unwrap_or("00000000-0000-4000-8000-000000000000");
        let timestamp = state.timestamp_ms.unwrap_or(self.now_ms);
        template
            .replace("{session_id}", session_id)
            .replace("{timestamp_ms}", &timestamp.to_string())
    }

    fn on_stdout(&mut self, mut line: Line) {
        if let Some(witness) = &mut self.witness {
            witness.before.line(&line.bytes);
        }
        let (reached, completed_tool, dropped) = {
            let peek = Peek::parse(&line.bytes);
            self.observe(peek.as_ref());
            let is_type = |kind: &str| peek.as_ref().is_some_and(|p| p.is_type(kind));
            let reached = !self.fired
                && match placement(&self.fault).map(|p| &p.anchor) {
                    Some(Anchor::After(n)) => self.seen == *n,
                    Some(Anchor::At(kind)) => is_type(kind),
                    Some(Anchor::Every) => true,
                    Some(Anchor::End) | None => false,
                };
            let completed_tool = is_type(event_type::TOOL_CALL)
                && peek.as_ref().is_some_and(|p| p.is_subtype(subtype::COMPLETED));
            let dropped = matches!(&self.fault, Fault::Drop { kind } if is_type(kind));
            (reached, completed_tool, dropped)
        };
        self.seen += 1;
        match self.fault.clone() {
            Fault::Drop { .. } => {
                if dropped {
                    self.fire();
                } else {
                    self.push(line);
                }
            }
            // The executor splits and joins the writes (`chunk`, `coalesce`): here
            // the stage only sees whether there is anything for it to act on.
            Fault::Chunk(chunking) => {
                self.written += line.bytes.len() + usize::from(line.newline);
                let splits = match chunking {
                    Chunking::Size(size) => self.written > size,
                    Chunking::Random => self.written > 1,
                };
                if splits && !self.fired {
                    self.fire();
                }
                self.push(line);
            }
            Fault::Coalesce => {
                if self.seen >= 2 && !self.fired {
                    self.fire();
                }
                self.push(line);
            }
            Fault::Reorder => {
                if completed_tool && !self.fired {
                    self.held.push(line);
                } else {
                    self.release_held();
                    self.push(line);
                }
            }
            Fault::Crlf => {
                if line.newline {
                    line.bytes.push(b'\r');
                    self.fire();
                }
                self.push(line);
            }
            Fault::UnknownField { .. } | Fault::Huge { .. } | Fault::InvalidUtf8 { .. } => {
                let every = matches!(placement(&self.fault).map(|p| &p.anchor), Some(Anchor::Every));
                self.armed |= reached;
                if self.armed && is_object(&line) {
                    self.change(&mut line);
                    if !every {
                        self.fire();
                        self.armed = false;
                    } else {
                        self.mark();
                    }
                }
                self.push(line);
            }
            _ if reached => self.act(Some(line)),
            _ => self.push(line),
        }
    }

    fn release_held(&mut self) {
        let mut held = std::mem::take(&mut self.held);
        if held.len() >= 2 {
            // The first pair of parallel completions finishes the other way round.
            let times: Vec<Duration> = held.iter().map(|l| l.at).collect();
            held.reverse();
            for (line, at) in held.iter_mut().zip(times) {
                line.at = at;
            }
            self.fire();
        }
        for line in held {
            self.push(line);
        }
    }

    fn on_end(&mut self, mut end: Ending) {
        self.release_held();
        if let Fault::Exit { code } = self.fault {
            // A process that dies by a signal (a `signal` fault before) keeps dying so.
            if let Exit::Code(_) = end.exit {
                end.exit = Exit::Code(code);
                self.fire();
            }
        } else if !self.fired && placement(&self.fault).is_some_and(|p| p.anchor != Anchor::Every) {
            self.act_at_end(end);
            if self.done {
                return;
            }
        }
        if let Some(witness) = &self.witness {
            self.report(self.acted && witness.before.end(end.exit) != witness.after.end(end.exit));
        }
        self.queue.push_back(Ok(Frame::End(end)));
    }

    /// Acts with the end frame in hand (the placement was never reached).
    fn act_at_end(&mut self, end: Ending) {
        match self.fault.clone() {
            Fault::Eof { .. } => self.fire(),
            Fault::Signal { signal, .. } => {
                self.fire();
                self.queue.push_back(Ok(Frame::End(Ending {
                    at: end.at,
                    exit: Exit::Signal(signal),
                })));
                self.done = true;
            }
            Fault::UnknownField { .. }
            | Fault::Huge { .. }
            | Fault::InvalidUtf8 { .. }
            | Fault::Duplicate { .. } => {}
            _ => self.act_before(end.at),
        }
    }

    /// Acts at the placement, before `line`.
    fn act(&mut self, line: Option<Line>) {
        let Some(line) = line else { return };
        let at = line.at;
        match self.fault.clone() {
            Fault::Eof { at: place } | Fault::Signal { at: place, .. } => {
                self.fire();
                if let Some(k) = place.byte {
                    let cut = k.min(line.bytes.len());
                    self.push(Line {
                        bytes: line.bytes[..cut].to_vec(),
                        newline: k > line.bytes.len() && line.newline,
                        ..line
                    });
                }
                let exit = match &self.fault {
                    Fault::Signal { signal, .. } => Some(Exit::Signal(*signal)),
                    _ => None,
                };
                self.cut(at, exit);
            }
            Fault::Stall { at: place, .. } | Fault::CloseStdout { at: place } => {
                // Past the end of the line, as for `eof`: the whole line, then the fault.
                if place.byte.is_some_and(|k| k >= line.bytes.len()) {
                    self.push(line);
                    self.act_before(at);
                    return;
                }
                let rest = match place.byte {
                    Some(k) => {
                        self.push(Line {
                            bytes: line.bytes[..k].to_vec(),
                            newline: false,
                            ..line.clone()
                        });
                        Line {
                            bytes: line.bytes[k..].to_vec(),
                            ..line
                        }
                    }
                    _ => line,
                };
                self.act_before(at);
                self.push(rest);
            }
            Fault::Duplicate { .. } => {
                self.fire();
                self.push(line.clone());
                self.push(line);
            }
            Fault::Malformed { .. } => {
                self.fire();
                let half = (line.bytes.len() / 2).max(1).min(line.bytes.len());
                self.push(Line::stdout(at, line.bytes[..half].to_vec()));
                self.push(line);
            }
            _ => {
                self.act_before(at);
                self.push(line);
            }
        }
    }

    /// Inserts what the fault inserts, at time `at`.
    fn act_before(&mut self, at: Duration) {
        match self.fault.clone() {
            Fault::Stderr { text, .. } => self.push(Line::stderr(at, self.fill(&text))),
            Fault::StderrFlood { bytes, .. } => self.push(Line {
                at,
                stream: Stream::Stderr,
                bytes: flood(bytes),
                newline: false,
            }),
            Fault::Stall { duration, .. } => self.queue.push_back(Ok(Frame::Stall { at, duration })),
            Fault::CloseStdout { .. } => self.queue.push_back(Ok(Frame::CloseStdout { at })),
            Fault::Noise { text, .. } => self.push(Line::stdout(at, text)),
            Fault::Malformed { .. } => self.push(Line::stdout(
                at,
                format!(
                    r#"{{"type":"{}","message":{{"role":"assis"#,
                    event_type::ASSISTANT
                ),
            )),
            Fault::UnknownEvent { .. } => {
                let line = self.fill(
                    r#"{"type":"mock_unknown_event","subtype":"added","session_id":"{session_id}","timestamp_ms":{timestamp_ms},"payload":{"note":"an event type no consumer knows","items":[1,2,3]}}"#,
                );
                self.push(Line::stdout(at, line));
            }
            Fault::Insert { lines, .. } => {
                for template in lines {
                    let line = self.fill(&template);
                    self.push(Line::stdout(at, line));
                }
            }
            _ => return,
        }
        self.fire();
    }

    /// Ends the stream here: the rest of the plan is skipped, and the process ends as
    /// the plan ends (or by `exit`).
    fn cut(&mut self, at: Duration, exit: Option<Exit>) {
        let mut planned = None;
        for item in self.inner.by_ref() {
            match item {
                Ok(Frame::End(end)) => {
                    planned = Some(end.exit);
                    break;
                }
                Ok(_) => {}
                Err(e) => {
                    self.queue.push_back(Err(e));
                    self.done = true;
                    return;
                }
            }
        }
        let exit = exit.or(planned).unwrap_or(Exit::Code(0));
        self.queue.push_back(Ok(Frame::End(Ending { at, exit })));
        self.done = true;
    }

    fn change(&self, line: &mut Line) {
        match &self.fault {
            Fault::UnknownField { .. } => insert_field(
                &mut line.bytes,
                r#""mock_unknown_field":{"added_by":"mock-agent","values":[1,"two",null]}"#.as_bytes(),
            ),
            Fault::Huge { bytes, .. } => {
                // `,"mock_padding":""` is 18 bytes more than the line.
                let overhead = line.bytes.len() + 18;
                let padding = bytes.saturating_sub(overhead);
                let mut field = br#""mock_padding":""#.to_vec();
                field.extend(std::iter::repeat_n(b'x', padding));
                field.push(b'"');
                insert_field(&mut line.bytes, &field);
            }
            Fault::InvalidUtf8 { .. } => match string_value(&line.bytes) {
                // Inside a string, so the line stays JSON but for its UTF-8.
                Some(at) => {
                    line.bytes.splice(at..at, INVALID_UTF8);
                }
                None => {
                    let mut field = br#""mock_invalid_utf8":""#.to_vec();
                    field.extend_from_slice(&INVALID_UTF8);
                    field.push(b'"');
                    insert_field(&mut line.bytes, &field);
                }
            },
            _ => {}
        }
    }
}

/// Inserts `"key":value` as the last field of a JSON object line.
fn insert_field(bytes: &mut Vec<u8>, field: &[u8]) {
    let Some(close) = bytes.iter().rposition(|b| *b == b'}') else {
        return;
    };
    let empty = bytes[..close].iter().rev().find(|b| !b.is_ascii_whitespace()) == Some(&b'{');
    let mut insert = Vec::with_capacity(field.len() + 1);
    if !empty {
        insert.push(b',');
    }
    insert.extend_from_slice(field);
    bytes.splice(close..close, insert);
}

/// The bytes `invalid-utf8` puts into a line: no character of UTF-8 starts so.
const INVALID_UTF8: [u8; 3] = [0xff, 0xfe, 0xc3];

/// Where the first string value of a JSON line starts (after its opening quote),
/// the value of a `"text"` key first, however the line is spaced; `None` when the
/// line holds no string value.
fn string_value(line: &[u8]) -> Option<usize> {
    let (mut first, mut key, mut after_colon, mut in_string, mut escaped) = (None, None, false, false, false);
    let mut start = 0;
    for (i, &b) in line.iter().enumerate() {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => {
                    in_string = false;
                    key = Some(&line[start..i]);
                }
                _ => {}
            }
            continue;
        }
        match b {
            b'"' if after_colon => {
                if key == Some(b"text".as_slice()) {
                    return Some(i + 1);
                }
                first = first.or(Some(i + 1));
                in_string = true;
                start = i + 1;
                after_colon = false;
            }
            b'"' => {
                in_string = true;
                start = i + 1;
            }
            b':' => after_colon = true,
            _ if b.is_ascii_whitespace() => {}
            _ => after_colon = false,
        }
    }
    first
}

use crate::faults::flood;

#[cfg(test)]
mod tests {
    use super::string_value;

    /// The first string value, a `"text"` one first, however the line is spaced; never
    /// a key, nor a quote escaped inside a string.
    #[test]
    fn a_string_value_is_found_however_the_line_is_spaced() {
        fn at(line: &str) -> Option<&str> {
            string_value(line.as_bytes()).map(|i| &line[i..])
        }
        assert_eq!(at(r#"{"type":"a","text":"b"}"#), Some(r#"b"}"#));
        assert_eq!(at(r#"{"type": "a", "text" : "b"}"#), Some(r#"b"}"#));
        assert_eq!(at(r#"{"type": "a"}"#), Some(r#"a"}"#));
        assert_eq!(
            at(r#"{"q": "say \"text\": \"x\"", "n": 1, "text":"y"}"#),
            Some(r#"y"}"#)
        );
        assert_eq!(at(r#"{"list": ["a"], "n": 1}"#), None);
        assert_eq!(at(r#"{"n": 1, "m": {"k": true}}"#), None);
    }
}
