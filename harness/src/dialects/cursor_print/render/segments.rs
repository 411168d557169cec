//! `--stream-partial-output`: assistant text as deltas, or as whole segments.
//!
//! With the flag, the real CLI prints a segment as small deltas (each with
//! `timestamp_ms`, none with `model_call_id`) and then one line that repeats the whole
//! segment. Without it, only that whole-segment line appears.
//!
//! A run of consecutive assistant lines is read as follows: a line whose text equals
//! the text of the lines before it in its segment *closes* that segment, and those
//! lines were its deltas. Deltas are shaped so (`timestamp_ms`, no `model_call_id`),
//! and a closing line is not: a line closes only a run of delta-shaped lines. Any line of the run that no later line closes is a whole
//! segment of its own. Then:
//!
//! | recorded | flag given | flag not given |
//! | --- | --- | --- |
//! | deltas + closing line | as recorded | the closing line alone |
//! | whole segment line | deltas made from its text, then the line | as recorded |
//!
//! Deltas are cut after white space, at least [`MIN_DELTA_BYTES`] long; they carry
//! the segment's `timestamp_ms`, else the last one seen in the stream, else the clock
//! of the run.
//!
//! Lines are held back only while a segment is open, and at most [`MAX_HELD_BYTES`] of
//! them: a longer run is let go as whole segments. Without the flag, lines that say
//! first that they are not `assistant` lines are not parsed at all.

use std::collections::VecDeque;

use crate::dialects::cursor_print::events::{event_type, role, AssistantEvent, Event, Extra, Message};
use crate::frames::FrameResult;
use crate::frames::{Frame, Line, Stream};
use crate::peek::Peek;

use super::pass::Pass;

/// Deltas made from a whole segment are at least this many bytes, but the last.
pub const MIN_DELTA_BYTES: usize = 8;

/// A run of assistant lines held back is let go, as whole segments, once it holds this
/// many bytes: memory stays bounded whatever the stream.
pub const MAX_HELD_BYTES: usize = 1 << 20;

/// An assistant line held back while its segment is open.
struct Held {
    line: Line,
    /// Its text, and whether it is shaped like a delta, once parsed (a line alone is
    /// not parsed without the flag).
    parsed: Option<(String, bool)>,
    session_id: String,
    timestamp_ms: Option<u64>,
}

impl Held {
    fn parsed(&mut self) -> &(String, bool) {
        self.parsed
            .get_or_insert_with(|| match Peek::parse(&self.line.bytes) {
                Some(peek) => (peek.message_text().unwrap_or_default(), peek.is_delta_shaped()),
                None => (String::new(), false),
            })
    }

    fn text(&mut self) -> &str {
        &self.parsed().0
    }
}

pub(crate) struct Segments {
    partial: bool,
    now_ms: u64,
    last_timestamp: Option<u64>,
    /// The assistant lines since the current segment began.
    held: Vec<Held>,
    held_bytes: usize,
    /// Their text, concatenated, once more than one is held.
    text: String,
    queue: VecDeque<FrameResult>,
}

impl Segments {
    pub(crate) fn new(partial: bool, now_ms: u64) -> Self {
        Segments {
            partial,
            now_ms,
            last_timestamp: None,
            held: Vec::new(),
            held_bytes: 0,
            text: String::new(),
            queue: VecDeque::new(),
        }
    }

    /// Takes a stdout line: an assistant line is held, anything else is given back.
    fn take(&mut self, line: Line) -> Option<Line> {
        if !self.partial {
            // Without the flag nothing but the assistant lines matters, and most lines
            // say their type first: those are not parsed at all.
            match crate::peek::sniff_type(&line.bytes) {
                Some(kind) if kind != event_type::ASSISTANT.as_bytes() => return Some(line),
                Some(_) if self.held.is_empty() => {
                    self.hold(Held {
                        line,
                        parsed: None,
                        session_id: String::new(),
                        timestamp_ms: None,
                    });
                    return None;
                }
                _ => {}
            }
        }
        let (text, session_id, timestamp_ms, can_close) = {
            let Some(peek) = Peek::parse(&line.bytes) else {
                return Some(line);
            };
            let timestamp_ms = peek.timestamp_ms();
            self.last_timestamp = timestamp_ms.or(self.last_timestamp);
            if !peek.is_type(event_type::ASSISTANT) {
                return Some(line);
            }
            let Some(text) = peek.message_text() else {
                return Some(line);
            };
            let session_id = peek.session_id().unwrap_or_default().into_owned();
            (text, session_id, timestamp_ms, !peek.is_delta_shaped())
        };
        // Only a run of deltas is closed: a whole line held closes nothing later, and
        // goes first (two whole segments alike stay two).
        if !self.held.iter_mut().all(|h| h.parsed().1) {
            self.release();
        }
        if !self.held.is_empty() {
            if self.held.len() == 1 {
                self.text = self.held[0].text().to_owned();
            }
            if can_close && text.len() == self.text.len() && text == self.text {
                // It repeats the segment: the lines held were its deltas.
                self.close(line);
                return None;
            }
            self.text.push_str(&text);
        }
        self.hold(Held {
            line,
            parsed: Some((text, !can_close)),
            session_id,
            timestamp_ms,
        });
        if self.held_bytes > MAX_HELD_BYTES {
            self.release();
        }
        None
    }

    fn hold(&mut self, held: Held) {
        self.held_bytes += held.line.bytes.len();
        self.held.push(held);
    }

    fn clear(&mut self) -> Vec<Held> {
        self.held_bytes = 0;
        self.text.clear();
        std::mem::take(&mut self.held)
    }

    /// A closing line: its deltas go with the flag, and are left out without it.
    fn close(&mut self, closing: Line) {
        let deltas = self.clear();
        if self.partial {
            for held in deltas {
                self.queue.push_back(Ok(Frame::Line(held.line)));
            }
        }
        self.queue.push_back(Ok(Frame::Line(closing)));
    }

    /// The lines held were whole segments: as they are without the flag, cut into
    /// deltas first with it.
    fn release(&mut self) {
        for mut held in self.clear() {
            if self.partial {
                let timestamp = held.timestamp_ms.or(self.last_timestamp).unwrap_or(self.now_ms);
                let at = held.line.at;
                let session_id = std::mem::take(&mut held.session_id);
                for piece in split_deltas(held.text()) {
                    let delta = Event::Assistant(AssistantEvent {
                        message: Message::text(role::ASSISTANT, piece),
                        session_id: session_id.clone(),
                        timestamp_ms: Some(timestamp),
                        model_call_id: None,
                        extra: Extra::new(),
                    });
                    self.queue
                        .push_back(Ok(Frame::Line(Line::stdout(at, delta.to_line()))));
                }
            }
            self.queue.push_back(Ok(Frame::Line(held.line)));
        }
    }
}

impl Pass for Segments {
    fn frame(&mut self, frame: FrameResult, out: &mut VecDeque<FrameResult>) {
        let next = match frame {
            Ok(Frame::Line(line)) if line.stream == Stream::Stdout => {
                self.take(line).map(Frame::Line).map(Ok)
            }
            other => Some(other),
        };
        if let Some(next) = next {
            self.release();
            self.queue.push_back(next);
        }
        out.append(&mut self.queue);
    }

    fn finish(&mut self, out: &mut VecDeque<FrameResult>) {
        self.release();
        out.append(&mut self.queue);
    }
}

/// Cuts text into deltas after white space, each at least [`MIN_DELTA_BYTES`] long
/// but the last. Concatenated, they give the text back.
pub fn split_deltas(text: &str) -> Vec<&str> {
    let mut deltas = Vec::new();
    let mut start = 0;
    for (i, c) in text.char_indices() {
        let end = i + c.len_utf8();
        if c.is_whitespace() && end - start >= MIN_DELTA_BYTES {
            deltas.push(&text[start..end]);
            start = end;
        }
    }
    if start < text.len() {
        deltas.push(&text[start..]);
    }
    deltas
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn deltas_concatenate_to_the_text(text in "\\PC*") {
            let deltas = split_deltas(&text);
            prop_assert_eq!(deltas.concat(), text.clone());
            for d in &deltas[..deltas.len().saturating_sub(1)] {
                prop_assert!(d.len() >= MIN_DELTA_BYTES);
            }
        }
    }
}
