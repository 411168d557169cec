//! `--output-format json`: the terminal `result` line alone, at the end of a
//! successful run; nothing on stdout when the run failed.
//!
//! A run with no `result` has failed, whatever its exit code says (a recording cut
//! short, or a fault that removed the result): it exits 1 if it would exit 0, as the
//! documentation says a failure does, with [`NO_RESULT`] on stderr.

use std::collections::VecDeque;

use crate::dialects::cursor_print::events::event_type;
use crate::frames::FrameResult;
use crate::frames::{Frame, Line, Stream};
use crate::peek::Peek;

use super::pass::{Pass, Whole};

/// What stderr says when a run that would exit 0 has no result.
pub const NO_RESULT: &str = "Error: the agent ended without a result";

/// Holds the `result` line back until the end.
pub(crate) struct Json {
    result: Option<Line>,
    whole: Whole,
    /// Whether a run that would exit 0 without a result fails (see [`NO_RESULT`]);
    /// not when an `exit` fault decides how the run ends.
    fails_without_result: bool,
}

impl Json {
    pub(crate) fn new(fails_without_result: bool) -> Self {
        Json {
            result: None,
            whole: Whole::default(),
            fails_without_result,
        }
    }

    fn stdout(&mut self, line: Line) {
        if Peek::parse(&line.bytes).is_some_and(|p| p.is_type(event_type::RESULT)) {
            self.result = Some(line);
        }
    }
}

impl Pass for Json {
    fn frame(&mut self, frame: FrameResult, out: &mut VecDeque<FrameResult>) {
        match frame {
            Ok(Frame::Line(line)) if line.stream == Stream::Stdout => {
                if let Some(line) = self.whole.line(line) {
                    self.stdout(line);
                }
            }
            Ok(Frame::End(mut end)) => {
                if let Some(line) = self.whole.rest() {
                    self.stdout(line);
                }
                match (end.exit.success(), self.result.take()) {
                    (true, Some(mut line)) => {
                        line.at = end.at;
                        line.newline = true;
                        out.push_back(Ok(Frame::Line(line)));
                    }
                    (true, None) if self.fails_without_result => {
                        // The documented failure: no JSON, a message, a non-zero exit.
                        out.push_back(Ok(Frame::Line(Line::stderr(end.at, NO_RESULT))));
                        end.exit = crate::frames::Exit::Code(1);
                    }
                    (true, None) | (false, _) => {}
                }
                out.push_back(Ok(Frame::End(end)));
            }
            other => out.push_back(other),
        }
    }
}
