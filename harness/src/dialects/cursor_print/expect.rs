//! What a correct consumer concludes from a run: worked out from the frames the mock
//! performs, so that the runner can tell a consumer that copes from one that does not.

use crate::dialects::cursor_print::events::event_type;
use crate::frames::{Frame, Stream};
use crate::peek::Peek;

pub use crate::expect::{Expectation, MISBEHAVING};

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

/// The events `cursor-agent -p` writes (`stream-json` lines, the `json` result), as a
/// consumer that passes them on prints them: a string `type` and the `session_id`.
pub const OWN_OBJECTS: &[crate::run::OwnObject] = &[crate::run::OwnObject {
    keys: &[super::events::field::SESSION_ID],
    kind: Some((super::events::field::TYPE, &[])),
}];

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
    let mut shown = crate::run::properties::without_events(output, OWN_OBJECTS);
    let noise = super::faults::parse(faults, crate::faults::FROM_ENV).unwrap_or_default();
    for fault in noise {
        if let super::faults::Fault::Noise { text, .. } = fault {
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
