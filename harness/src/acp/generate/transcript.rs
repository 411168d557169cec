//! A generated conversation: its messages in order, as frames, a recording, a cassette,
//! a script, and what a correct client concludes from it.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::acp::expect;
use crate::acp::faults::AcpFault;
use crate::acp::profile::Profile;
use crate::acp::script::Script;
use crate::cassette::{Header, Invocation, Recording, Writer};
use crate::error::{CassetteError, WriteError};
use crate::expect::Expectation;
use crate::frames::{Ending, Exit, Frame, Line, Stream};

/// Who sent a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// The client (an `in` frame of the cassette: what the agent read).
    In,
    /// The agent (an `out` frame: what it wrote).
    Out,
}

impl Direction {
    /// `in` or `out`, as cassettes, journals and [`summary`](crate::acp::conversation::summary) name them.
    pub fn as_str(self) -> &'static str {
        match self {
            Direction::In => "in",
            Direction::Out => "out",
        }
    }
}

/// One message of a conversation, in the order it was sent: who sent it, and the
/// JSON-RPC line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exchange {
    /// Who sent it.
    pub dir: Direction,
    /// The line, without its newline.
    pub line: String,
}

/// A generated conversation: every message of the client's and the agent's, in order.
/// The agent exits 0 when the client closes its stdin at the end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transcript {
    /// The messages.
    pub messages: Vec<Exchange>,
    /// The agent that spoke them.
    pub profile: &'static Profile,
}

/// How far apart messages are, in a transcript's frames.
const STEP: Duration = Duration::from_millis(10);

impl Transcript {
    /// The frames of the recording: `in` frames for the client's messages, `out` for
    /// the agent's, 10 ms apart, then the end (exit 0).
    pub fn frames(&self) -> Vec<Frame> {
        let mut frames: Vec<Frame> = self
            .messages
            .iter()
            .enumerate()
            .map(|(i, message)| {
                let stream = match message.dir {
                    Direction::In => Stream::Stdin,
                    Direction::Out => Stream::Stdout,
                };
                Frame::Line(Line {
                    at: STEP * i as u32,
                    stream,
                    bytes: message.line.as_bytes().to_vec(),
                    newline: true,
                })
            })
            .collect();
        frames.push(Frame::End(Ending {
            at: STEP * self.messages.len() as u32,
            exit: Exit::Code(0),
        }));
        frames
    }

    /// The header of a cassette of `profile`'s agent: launched as it is, format 2.
    pub fn header_of(profile: &Profile) -> Header {
        Header::acp(Invocation {
            argv: profile.argv.iter().map(|a| (*a).to_owned()).collect(),
            ..Invocation::default()
        })
    }

    /// The conversation as a recording, as a [`crate::Source`] opens one.
    pub fn recording(&self) -> Recording {
        Recording {
            name: PathBuf::from("<generated conversation>"),
            header: Some(Self::header_of(self.profile)),
            stream_partial_output: Some(false),
            frames: Box::new(self.frames().into_iter().map(Ok)),
        }
    }

    /// Writes the conversation as a cassette, atomically: `mock-agent acp` with
    /// `MOCK_AGENT_CASSETTE=PATH` replays it.
    pub fn write_cassette(&self, path: &Path) -> Result<PathBuf, WriteError> {
        let mut writer = Writer::create(path, &Self::header_of(self.profile))?;
        for frame in self.frames() {
            writer.write(&frame)?;
        }
        writer.finish()
    }

    /// The conversation told readably, one message a line (see [`summary`](crate::acp::conversation::summary)).
    pub fn summary(&self) -> String {
        crate::acp::conversation::summary(self.messages.iter().map(|m| (m.dir.as_str(), m.line.as_str())))
    }

    /// The conversation as the mock plays it: a recording replayed as a script.
    pub fn script(&self) -> Result<Script, CassetteError> {
        Script::new(self.frames().into_iter().map(Ok), self.profile)
    }

    /// What a correct client concludes from the conversation with these faults, and
    /// the answer's chunks in order (see [`expect`](crate::acp::expect)).
    pub fn expectation(&self, faults: Vec<AcpFault>) -> (Expectation, Vec<String>) {
        match self.script() {
            Ok(mut script) => expect::expectation(&mut script, faults),
            Err(_) => (Expectation::Failure, Vec::new()),
        }
    }
}
