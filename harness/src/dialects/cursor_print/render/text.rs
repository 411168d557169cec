//! `--output-format text`: one line per completed tool call, as it completes, then
//! the final answer.
//!
//! | tool key | line |
//! | --- | --- |
//! | `readToolCall` | `Read file` |
//! | `writeToolCall` | `Created new file` |
//! | `editToolCall` | `Edited file` |
//! | `shellToolCall` | `Ran terminal command` |
//! | `deleteToolCall` | `Deleted file` |
//! | `globToolCall` | `Searched files` |
//! | `grepToolCall` | `Searched code` |
//! | `lsToolCall` | `Listed directory` |
//! | `updateTodosToolCall` | `Updated todos` |
//! | `mcpToolCall` | `Called MCP tool` |
//! | `function` and any other | `Called tool` |
//!
//! The first four are the documentation's; the others follow their pattern.

use std::collections::VecDeque;

use crate::dialects::cursor_print::events::{event_type, subtype, tool_key};
use crate::frames::FrameResult;
use crate::frames::{Frame, Line, Stream};
use crate::peek::Peek;

use super::pass::{Pass, Whole};

/// The action line for a completed call of this tool key.
pub fn action_line(tool_key: &str) -> &'static str {
    match tool_key {
        tool_key::READ => "Read file",
        tool_key::WRITE => "Created new file",
        tool_key::EDIT => "Edited file",
        tool_key::SHELL => "Ran terminal command",
        tool_key::DELETE => "Deleted file",
        tool_key::GLOB => "Searched files",
        tool_key::GREP => "Searched code",
        tool_key::LS => "Listed directory",
        tool_key::UPDATE_TODOS => "Updated todos",
        tool_key::MCP => "Called MCP tool",
        _ => "Called tool",
    }
}

/// Lets out an action line as each tool call completes, and the answer at the end.
#[derive(Default)]
pub(crate) struct Text {
    answer: Option<String>,
    whole: Whole,
}

impl Pass for Text {
    fn frame(&mut self, frame: FrameResult, out: &mut VecDeque<FrameResult>) {
        let line = match frame {
            Ok(Frame::Line(line)) if line.stream == Stream::Stdout => match self.whole.line(line) {
                Some(line) => line,
                None => return,
            },
            Ok(Frame::End(end)) => {
                if let Some(line) = self.whole.rest() {
                    self.event(line, out);
                }
                if let Some(answer) = self.answer.take() {
                    let answer = answer.strip_suffix('\n').unwrap_or(&answer);
                    out.push_back(Ok(Frame::Line(Line::stdout(end.at, answer))));
                }
                return out.push_back(Ok(Frame::End(end)));
            }
            other => return out.push_back(other),
        };
        self.event(line, out);
    }
}

impl Text {
    /// What one whole stdout line prints, if anything.
    fn event(&mut self, line: Line, out: &mut VecDeque<FrameResult>) {
        match in_text(&line.bytes) {
            Some(InText::Action(action)) => out.push_back(Ok(Frame::Line(Line::stdout(line.at, action)))),
            Some(InText::Answer(answer)) => self.answer = answer.map(|t| t.into_owned()),
            None => {}
        }
    }
}

/// What one whole stdout line of the event stream comes to in `text`.
pub(super) enum InText<'a> {
    /// A completed tool call: its action line, printed as it comes.
    Action(&'static str),
    /// A `result`: the answer printed at the end (none when it has no text).
    Answer(Option<std::borrow::Cow<'a, str>>),
}

/// What `line` (a whole stdout line of the event stream) comes to in `text`: nothing
/// for a line that is not an event, or an event that prints nothing.
pub(super) fn in_text(line: &[u8]) -> Option<InText<'_>> {
    let peek = Peek::parse(line)?;
    if peek.is_type(event_type::TOOL_CALL) && peek.is_subtype(subtype::COMPLETED) {
        let key = peek.tool_key(crate::dialects::cursor_print::events::is_tool_key);
        Some(InText::Action(action_line(&key.unwrap_or_default())))
    } else if peek.is_type(event_type::RESULT) {
        Some(InText::Answer(peek.result_text()))
    } else {
        None
    }
}
