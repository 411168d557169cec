//! What a consumer sees of a stream of events in one output format, as a digest: two
//! streams whose digests differ print differently.
//!
//! The faults that act on events use it to tell whether what they did reached the
//! consumer: a `duplicate`, `unknown-event` or `huge` on an event that `json` or
//! `text` leaves out changes nothing the consumer sees, and is reported as not fired.
//! The rules are those of [`super::json`] and [`super::text`].

use std::hash::{Hash, Hasher};

use super::text::{in_text, InText};
use crate::dialects::cursor_print::events::event_type;
use crate::digest::{fnv1a, Fnv1a};
use crate::format::OutputFormat;
use crate::frames::Exit;
use crate::peek::Peek;

/// The digest of the output of one format, fed the stdout lines of the event stream
/// and its ending.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Witness {
    format: OutputFormat,
    /// Every line that shows (`stream-json`: each line; `text`: each action line).
    shown: u64,
    /// What the end prints, as far as the last line that counts (`json`: the last
    /// `result` line; `text`: the last `result` text).
    last: Option<u64>,
}

impl Witness {
    /// A witness of an empty stream in this format.
    pub fn new(format: OutputFormat) -> Self {
        Witness {
            format,
            shown: 0,
            last: None,
        }
    }

    fn show(&mut self, bytes: &[u8]) {
        let mut hasher = Fnv1a::default();
        self.shown.hash(&mut hasher);
        bytes.hash(&mut hasher);
        self.shown = hasher.finish();
    }

    /// Takes the next stdout line of the event stream.
    pub fn line(&mut self, bytes: &[u8]) {
        match self.format {
            OutputFormat::StreamJson => self.show(bytes),
            OutputFormat::Json => {
                if Peek::parse(bytes).is_some_and(|p| p.is_type(event_type::RESULT)) {
                    self.last = Some(fnv1a(bytes));
                }
            }
            OutputFormat::Text => match in_text(bytes) {
                Some(InText::Action(action)) => self.show(action.as_bytes()),
                Some(InText::Answer(answer)) => self.last = answer.map(|t| fnv1a(t.as_bytes())),
                None => {}
            },
        }
    }

    /// The digest of the whole output, for a stream that ends so.
    pub fn end(&self, exit: Exit) -> u64 {
        let mut hasher = Fnv1a::default();
        match self.format {
            // Nothing of a failed run's events is printed in `json`.
            OutputFormat::Json if !exit.success() => {}
            _ => (self.shown, self.last, exit.success()).hash(&mut hasher),
        }
        hasher.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialects::cursor_print::events::{subtype, tool_key};

    fn witness(format: OutputFormat, lines: &[&str]) -> Witness {
        let mut w = Witness::new(format);
        for line in lines {
            w.line(line.as_bytes());
        }
        w
    }

    /// A completed `readToolCall`.
    fn read() -> String {
        format!(
            r#"{{"type":"{0}","subtype":"{1}","call_id":"1","{0}":{{"{2}":{{"args":{{"path":"a"}}}}}}}}"#,
            event_type::TOOL_CALL,
            subtype::COMPLETED,
            tool_key::READ
        )
    }

    /// A successful `result` with the text `done`, then `tail`.
    fn result(tail: &str) -> String {
        format!(
            r#"{{"type":"{0}","subtype":"{1}","is_error":false,"{0}":"done"{tail}}}"#,
            event_type::RESULT,
            subtype::SUCCESS
        )
    }

    const UNKNOWN: &str = r#"{"type":"mock_unknown_event"}"#;

    #[test]
    fn tells_apart_only_what_the_format_prints() {
        let (read, result, padded) = (read(), result(""), result(r#","mock_padding":"xx""#));
        let (read, result, padded) = (read.as_str(), result.as_str(), padded.as_str());
        let ok = Exit::Code(0);
        let same = |format, a: &[&str], b: &[&str]| witness(format, a).end(ok) == witness(format, b).end(ok);
        // An event `json` and `text` leave out.
        assert!(same(OutputFormat::Json, &[result], &[UNKNOWN, result]));
        assert!(same(OutputFormat::Text, &[result], &[UNKNOWN, result]));
        assert!(!same(OutputFormat::StreamJson, &[result], &[UNKNOWN, result]));
        // A result written twice is printed once.
        assert!(same(OutputFormat::Json, &[result], &[result, result]));
        assert!(same(OutputFormat::Text, &[result], &[result, result]));
        // A completed tool call written twice is two action lines.
        assert!(!same(OutputFormat::Text, &[read, result], &[read, read, result]));
        // A field added to the result line: `json` prints the line, `text` its text.
        assert!(!same(OutputFormat::Json, &[result], &[padded]));
        assert!(same(OutputFormat::Text, &[result], &[padded]));
        // A failed run prints no JSON, whatever its events.
        assert_eq!(
            witness(OutputFormat::Json, &[result]).end(Exit::Code(1)),
            witness(OutputFormat::Json, &[padded]).end(Exit::Code(1))
        );
    }
}
