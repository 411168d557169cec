//! `--stream-partial-output`: assistant text as deltas, or as whole segments.
//!
//! With the flag, the real CLI prints a segment as small deltas (each with
//! `timestamp_ms`, none with `model_call_id`) and then one line that repeats the whole
//! segment. Without it, only that whole-segment line appears.
//!
//! A run of consecutive assistant lines is read as follows: a line whose text equals
//! the text of the lines before it in its segment *closes* that segment, and those
//! lines were its deltas. Any line of the run that no later line closes is a whole
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

use std::collections::VecDeque;

use crate::events::{AssistantEvent, Event, Extra, Message};
use crate::frames::{Frame, Line, Stream};
use crate::peek::Peek;
use crate::source::FrameResult;

/// Deltas made from a whole segment are at least this many bytes, but the last.
pub const MIN_DELTA_BYTES: usize = 8;

/// An assistant line of the current run.
struct Item {
    line: Line,
    text: String,
    session_id: String,
    timestamp_ms: Option<u64>,
}

pub(crate) struct Segments<I> {
    inner: I,
    partial: bool,
    now_ms: u64,
    last_timestamp: Option<u64>,
    run: Vec<Item>,
    queue: VecDeque<FrameResult>,
}

impl<I> Segments<I> {
    pub(crate) fn new(inner: I, partial: bool, now_ms: u64) -> Self {
        Segments {
            inner,
            partial,
            now_ms,
            last_timestamp: None,
            run: Vec::new(),
            queue: VecDeque::new(),
        }
    }

    /// Takes an assistant line into the run; gives any other line back.
    fn assistant(&mut self, line: Line) -> Result<Item, Line> {
        let Some(peek) = Peek::parse(&line.bytes) else {
            return Err(line);
        };
        let timestamp_ms = peek.timestamp_ms();
        self.last_timestamp = timestamp_ms.or(self.last_timestamp);
        let text = peek.is_type("assistant").then(|| peek.message_text()).flatten();
        let session_id = peek.session_id().unwrap_or_default().into_owned();
        match text {
            Some(text) => Ok(Item {
                line,
                text,
                session_id,
                timestamp_ms,
            }),
            None => Err(line),
        }
    }

    /// Emits the current run of assistant lines.
    fn flush(&mut self) {
        let run = std::mem::take(&mut self.run);
        let mut segment_start = 0;
        let mut text = String::new();
        let mut closes = vec![false; run.len()];
        for (i, item) in run.iter().enumerate() {
            if i > segment_start && item.text.len() == text.len() && item.text == text {
                closes[i] = true;
                segment_start = i + 1;
                text.clear();
            } else {
                text.push_str(&item.text);
            }
        }
        // Lines before the last closing line are deltas of a closed segment; the
        // lines after it are whole segments.
        let last_close = closes.iter().rposition(|c| *c);
        for (i, item) in run.into_iter().enumerate() {
            let in_closed_segment = last_close.is_some_and(|last| i <= last);
            match (in_closed_segment, closes[i], self.partial) {
                // A recorded delta, and the flag was not given: left out.
                (true, false, false) => {}
                // A whole segment, and the flag was given: deltas first.
                (false, _, true) => {
                    let timestamp = item.timestamp_ms.or(self.last_timestamp).unwrap_or(self.now_ms);
                    for piece in split_deltas(&item.text) {
                        let delta = Event::Assistant(AssistantEvent {
                            message: Message::text("assistant", piece),
                            session_id: item.session_id.clone(),
                            timestamp_ms: Some(timestamp),
                            model_call_id: None,
                            extra: Extra::new(),
                        });
                        self.queue
                            .push_back(Ok(Frame::Line(Line::stdout(item.line.at, delta.to_line()))));
                    }
                    self.queue.push_back(Ok(Frame::Line(item.line)));
                }
                _ => self.queue.push_back(Ok(Frame::Line(item.line))),
            }
        }
    }
}

impl<I: Iterator<Item = FrameResult>> Iterator for Segments<I> {
    type Item = FrameResult;

    fn next(&mut self) -> Option<FrameResult> {
        loop {
            if let Some(item) = self.queue.pop_front() {
                return Some(item);
            }
            let Some(next) = self.inner.next() else {
                self.flush();
                return self.queue.pop_front();
            };
            let next = match next {
                Ok(Frame::Line(line)) if line.stream == Stream::Stdout => match self.assistant(line) {
                    Ok(item) => {
                        self.run.push(item);
                        continue;
                    }
                    Err(line) => Ok(Frame::Line(line)),
                },
                other => other,
            };
            self.flush();
            self.queue.push_back(next);
        }
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
