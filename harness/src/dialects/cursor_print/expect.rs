//! What a correct consumer concludes from a run: worked out from the frames the mock
//! performs, so that the runner can tell a consumer that copes from one that does not.

use crate::dialects::cursor_print::events::event_type;
use crate::frames::{Frame, Stream};
use crate::peek::Peek;

/// What a correct consumer concludes from a case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expectation {
    /// The run succeeded with this answer.
    Success {
        /// `result.result`.
        answer: String,
    },
    /// The run failed (or hangs: then the consumer must give up and say so).
    Failure,
}

/// What a correct consumer concludes from the frames a mock performs (in
/// `stream-json`): success when they hold a readable `result` before stdout is
/// closed, the process exits 0, and nothing stalls for ever.
pub fn expectation_of(frames: &[Frame]) -> Expectation {
    let mut answer = None;
    let mut exit = None;
    let mut hangs = false;
    let mut closed = false;
    // A line written in parts (a fault that pauses inside it, then goes on) is read
    // whole, as a consumer reads it: only where it ends does it count.
    let mut partial: Vec<u8> = Vec::new();
    for frame in frames {
        match frame {
            // What comes after stdout is closed never reaches the consumer.
            Frame::CloseStdout { .. } => closed = true,
            Frame::Line(line) if line.stream == Stream::Stdout && !line.newline && !closed => {
                partial.extend_from_slice(&line.bytes);
            }
            Frame::Line(line) if line.stream == Stream::Stdout && line.newline && !closed => {
                let whole: std::borrow::Cow<'_, [u8]> = if partial.is_empty() {
                    (&line.bytes[..]).into()
                } else {
                    [std::mem::take(&mut partial), line.bytes.clone()].concat().into()
                };
                if let Some(peek) =
                    Peek::parse(&whole).filter(|p| p.is_type(event_type::RESULT) && !p.is_error())
                {
                    answer = peek.result_text().map(|t| t.into_owned());
                }
            }
            Frame::Stall { duration: None, .. } => hangs = true,
            Frame::End(end) => exit = Some(end.exit),
            _ => {}
        }
    }
    match (answer, exit, hangs) {
        (Some(answer), Some(exit), false) if exit.success() => Expectation::Success { answer },
        _ => Expectation::Failure,
    }
}

/// The misbehaviour a run shows that the real CLI never does, if it shows one: the
/// frames a mock performs (in `stream-json`) end with exit 0, yet no readable `result`
/// reached stdout (the real CLI ends every failure with exit 1 and a message on
/// stderr). Only a fault list that asks for it makes one (`exit:code=0` after a fault
/// that loses the result): a case built from it says so in its name.
pub fn misbehaving_of(frames: &[Frame]) -> Option<&'static str> {
    let hangs = frames
        .iter()
        .any(|f| matches!(f, Frame::Stall { duration: None, .. }));
    let exits_0 = frames
        .iter()
        .any(|f| matches!(f, Frame::End(end) if end.exit.success()));
    let failed = expectation_of(frames) == Expectation::Failure;
    (exits_0 && failed && !hangs).then_some("exits 0 without a result")
}

/// What the name of a case ends with when only a misbehaving agent makes its run (see
/// [`misbehaving_of`]).
pub const MISBEHAVING: &str = "+misbehaving-agent";

/// The assistant's text segments of a successful run, in order, as the frames show
/// them in `stream-json` without `--stream-partial-output`: the pieces `result.result`
/// is made of. A consumer that posts each segment as a message of its own reports
/// the answer as well as one that prints `result.result`.
pub fn segments_of(frames: &[Frame]) -> Vec<String> {
    frames
        .iter()
        .filter_map(|frame| match frame {
            Frame::Line(line) if line.stream == Stream::Stdout => Peek::parse(&line.bytes)
                .filter(|p| p.is_type(event_type::ASSISTANT) && !p.is_delta_shaped())
                .and_then(|p| p.message_text()),
            _ => None,
        })
        .filter(|text| !text.trim().is_empty())
        .collect()
}

/// The consumer's output as its user reads the answer in it: without the agent's own
/// lines that it passed on as they came.
///
/// - A line the faults inserted that is not JSON (`noise`) and that a live display
///   shows between two parts of the answer is taken out, with its newline, so that
///   the parts around it meet again.
/// - An event of the agent's printed as JSON (the raw line, or the event
///   re-serialized: an object with a `type` and a `session_id`) is taken out whole:
///   the answer's text inside it is JSON-escaped between fields, not shown as text.
///
/// `faults` is the case's fault list (print mode's; another dialect's takes nothing
/// out but events).
pub fn shown_text(output: &str, faults: &str) -> String {
    let mut shown = without_events(output);
    let noise = crate::faults::parse(faults, crate::faults::FROM_ENV).unwrap_or_default();
    for fault in noise {
        if let crate::faults::Fault::Noise { text, .. } = fault {
            if text.trim().is_empty() {
                continue;
            }
            // Whole lines only: a short text may also be a word of the answer.
            shown = shown.replace(&format!("{text}\r\n"), "");
            shown = shown.replace(&format!("{text}\n"), "");
        }
    }
    shown
}

/// `output` without the JSON objects in it that are events of the agent's.
fn without_events(output: &str) -> String {
    const START: &str = "{\"type\"";
    if !output.contains(START) {
        return output.to_owned();
    }
    let mut kept = String::with_capacity(output.len());
    let mut rest = output;
    while let Some(at) = rest.find(START) {
        kept.push_str(&rest[..at]);
        let from = &rest[at..];
        let mut values = serde_json::Deserializer::from_str(from).into_iter::<serde_json::Value>();
        let event = match values.next() {
            Some(Ok(serde_json::Value::Object(object)))
                if object.get("type").is_some_and(serde_json::Value::is_string)
                    && object.contains_key("session_id") =>
            {
                Some(values.byte_offset())
            }
            _ => None,
        };
        match event {
            Some(end) => rest = &from[end..],
            None => {
                kept.push_str(&from[..1]);
                rest = &from[1..];
            }
        }
    }
    kept.push_str(rest);
    kept
}

#[cfg(test)]
mod tests {
    use super::shown_text;
    use crate::dialects::cursor_print::events::{event_type, subtype};

    #[test]
    fn the_agent_s_own_lines_are_not_the_answer_shown() {
        let (result, success) = (event_type::RESULT, subtype::SUCCESS);
        let raw = format!(
            r#"{{"type":"{result}","subtype":"{success}","is_error":false,"{result}":"Hello there","session_id":"s"}}"#
        );
        assert_eq!(shown_text(&format!("{raw}\n"), ""), "\n");
        let dumped =
            format!(r#"answer: {{"type": "{result}", "{result}": "Hello there", "session_id": "s"}}"#);
        assert_eq!(shown_text(&dumped, ""), "answer: ");
        // JSON of the consumer's own, or text with braces, is kept.
        let own = "{\"answer\": \"Hello there\"}\n{\"type\" is a word}\n";
        assert_eq!(shown_text(own, ""), own);
        assert_eq!(
            shown_text(
                "I'll read the [debug] x\nREADME.md file\n",
                r#"noise:text="[debug] x",after=5"#
            ),
            "I'll read the README.md file\n"
        );
        assert_eq!(
            shown_text("a [debug] x b", "error:method=initialize"),
            "a [debug] x b"
        );
        assert_eq!(
            shown_text("a b\n", "noise:text=a"),
            "a b\n",
            "not a word of the answer"
        );
    }
}
