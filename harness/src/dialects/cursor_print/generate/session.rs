//! A generated run, and what it turns into: stdout, frames, a recording, a cassette.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::cassette::{Header, Invocation, Recording, Writer};
use crate::dialects::cursor_print::events::{event_type, Event};
use crate::error::WriteError;
use crate::format::OutputFormat;
use crate::frames::{Ending, Exit, Frame, Line};
use crate::peek::Peek;

/// A generated run: its stdout events, its stderr, and how it ends.
#[derive(Debug, Clone, PartialEq)]
pub struct Session {
    /// The prompt.
    pub prompt: String,
    /// Whether it is streamed as with `--stream-partial-output`.
    pub stream_partial_output: bool,
    /// The stdout lines, one event each, in order.
    pub lines: Vec<String>,
    /// The stderr lines.
    pub stderr: Vec<String>,
    /// How the process ends.
    pub exit: Exit,
}

impl Session {
    /// The events, parsed.
    pub fn events(&self) -> Vec<Event> {
        self.lines
            .iter()
            .filter_map(|l| Event::from_slice(l.as_bytes()).ok())
            .collect()
    }

    /// Stdout as `--output-format stream-json` prints it.
    pub fn stdout(&self) -> String {
        self.lines.iter().map(|l| format!("{l}\n")).collect()
    }

    /// The answer a consumer reports: `result.result` of a successful run.
    pub fn answer(&self) -> Option<String> {
        if !self.exit.success() {
            return None;
        }
        self.lines
            .iter()
            .rev()
            .find_map(|l| {
                Peek::parse(l.as_bytes())
                    .filter(|p| p.is_type(event_type::RESULT))
                    .and_then(|p| p.result_text())
            })
            .map(|t| t.into_owned())
    }

    /// The frames of the run, 10 ms apart.
    pub fn frames(&self) -> Vec<Frame> {
        let step = Duration::from_millis(10);
        let mut frames: Vec<Frame> = self
            .lines
            .iter()
            .enumerate()
            .map(|(i, l)| Frame::Line(Line::stdout(step * i as u32, l.as_bytes())))
            .collect();
        let end = step * self.lines.len() as u32;
        frames.extend(
            self.stderr
                .iter()
                .map(|l| Frame::Line(Line::stderr(end, l.as_bytes()))),
        );
        frames.push(Frame::End(Ending {
            at: end,
            exit: self.exit,
        }));
        frames
    }

    /// The session as a recording, to render or run as [`crate::dialects::cursor_print::source::Source`]s are.
    pub fn recording(&self) -> Recording {
        Recording {
            name: PathBuf::from("<generated session>"),
            header: Some(self.header()),
            stream_partial_output: Some(self.stream_partial_output),
            frames: Box::new(self.frames().into_iter().map(Ok)),
        }
    }

    /// The cassette header: the invocation the real CLI would have had.
    pub(crate) fn header(&self) -> Header {
        let mut argv = vec![
            "-p".to_owned(),
            "--output-format".to_owned(),
            "stream-json".to_owned(),
        ];
        if self.stream_partial_output {
            argv.push("--stream-partial-output".into());
        }
        argv.push(self.prompt.clone());
        Header::new(Invocation {
            argv,
            prompt: Some(self.prompt.clone()),
            output_format: Some(OutputFormat::StreamJson),
            stream_partial_output: self.stream_partial_output,
            ..Invocation::default()
        })
    }

    /// Writes the session as a cassette, atomically: `mock-agent replay PATH` (or
    /// `MOCK_AGENT_CASSETTE=PATH`) replays it.
    pub fn write_cassette(&self, path: &Path) -> Result<PathBuf, WriteError> {
        let mut writer = Writer::create(path, &self.header())?;
        for frame in self.frames() {
            writer.write(&frame)?;
        }
        writer.finish()
    }
}
