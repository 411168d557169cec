//! Sources: where the frames of a run come from.
//!
//! - [`Source::Default`]: the documentation's example session (read `README.md`, write
//!   `summary.txt`), built into the binary, its `user` event carrying the prompt the
//!   mock was actually given;
//! - [`Source::Cassette`]: a cassette or a bare capture, read as a stream. One of up
//!   to [`PREFLIGHT_LIMIT`] bytes is checked whole first: a broken cassette fails
//!   before the first byte is replayed. Of a larger one, what comes before its first
//!   event is checked first: a file that holds no event is refused before replay.

use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::cassette::{self, Recording};
use crate::dialects::cursor_print::events::{event_type, role, Event, Message, UserEvent};
use crate::error::CassetteError;
use crate::frames::{Ending, Exit, Frame, Line};

/// The documentation's example session, one event per line.
pub const DEFAULT_SESSION: &str = include_str!("../../../../cassettes/seed-example.ndjson");

impl Source {
    /// Opens the source. `prompt` is what the mock was asked; the default session
    /// puts it in its `user` event.
    pub fn open(&self, prompt: &str) -> Result<Recording, CassetteError> {
        match self {
            Source::Default => Ok(Recording {
                name: PathBuf::from("<default session>"),
                header: None,
                stream_partial_output: Some(false),
                frames: Box::new(default_session(prompt).into_iter().map(Ok)),
            }),
            Source::Cassette(path) => open_cassette(path),
            #[cfg(feature = "generate")]
            Source::Generated { seed, config } => {
                let mut recording =
                    crate::dialects::cursor_print::generate::from_seed(*seed, config).recording();
                recording.name = PathBuf::from(format!("<generated session {seed}>"));
                Ok(recording)
            }
        }
    }
}

pub use crate::cassette::PREFLIGHT_LIMIT;
pub use crate::source::Source;

/// Checks a cassette or capture before replay: one of up to [`PREFLIGHT_LIMIT`] bytes
/// in full, a larger one until its first event. Returns whether `path` is a regular
/// file (a pipe or a FIFO can be read once only: it is checked as it streams).
fn check(path: &Path) -> Result<bool, CassetteError> {
    let Some(size) = std::fs::metadata(path)
        .ok()
        .filter(std::fs::Metadata::is_file)
        .map(|m| m.len())
    else {
        return Ok(false);
    };
    if size <= PREFLIGHT_LIMIT {
        cassette::open(path)?.try_for_each(|frame| frame.map(drop))?;
        return Ok(true);
    }
    // Too large to check twice: at least it must hold an event (a capture of anything
    // but JSON is the wrong file) before a byte of it is replayed.
    let mut reader = cassette::open(path)?.fast();
    while !reader.has_event() {
        match reader.next() {
            Some(Ok(_)) => {}
            Some(Err(e)) => return Err(e),
            None => break,
        }
    }
    Ok(true)
}

fn open_cassette(path: &Path) -> Result<Recording, CassetteError> {
    let file = check(path)?;
    let reader = cassette::open(path)?;
    let reader = if file { reader.fast() } else { reader };
    Ok(recording(path, reader))
}

/// The recording a reader of the cassette or capture `path` reads.
pub fn recording(path: &Path, reader: cassette::Reader<BufReader<File>>) -> Recording {
    Recording {
        name: path.to_owned(),
        header: reader.header().cloned(),
        stream_partial_output: reader.header().map(|h| h.invocation.stream_partial_output),
        frames: Box::new(reader),
    }
}

/// A regular file to replay, checked as [`Source::open`] checks it, opened to be
/// copied where nothing asks for a line to change ([`copyable`]).
#[derive(Debug)]
pub enum Copyable {
    /// A bare capture, opened to be copied as its bytes ([`cassette::copy_capture`]).
    Capture(File),
    /// A cassette, its header read: a fast reader ([`cassette::copy_cassette`]).
    Cassette(Box<cassette::Reader<BufReader<File>>>),
}

/// The cassette or bare capture at `path`, checked as [`Source::open`] checks it and
/// opened to be copied; `None` when `path` is not a regular file (a pipe is read once,
/// as it streams).
pub fn copyable(path: &Path) -> Result<Option<Copyable>, CassetteError> {
    if !check(path)? {
        return Ok(None);
    }
    let reader = cassette::open(path)?;
    if !reader.is_capture() {
        return Ok(Some(Copyable::Cassette(Box::new(reader.fast()))));
    }
    File::open(path)
        .map(|file| Some(Copyable::Capture(file)))
        .map_err(|source| CassetteError::Open {
            path: path.to_owned(),
            source,
        })
}

/// The bare capture at `path`, checked as [`Source::open`] checks it, opened to be
/// replayed as a copy of its bytes ([`cassette::copy_capture`]); `None` when `path`
/// is a cassette, or not a regular file.
pub fn capture_file(path: &Path) -> Result<Option<File>, CassetteError> {
    match copyable(path)? {
        Some(Copyable::Capture(file)) => Ok(Some(file)),
        _ => Ok(None),
    }
}

/// The frames of the default session for this prompt.
pub fn default_session(prompt: &str) -> Vec<Frame> {
    let mut frames: Vec<Frame> = DEFAULT_SESSION
        .lines()
        .map(|line| {
            // Only the user event changes; the others are not parsed (startup time).
            let bytes = if crate::peek::sniff_type(line.as_bytes()) == Some(event_type::USER.as_bytes()) {
                user_line(line, prompt)
            } else {
                line.to_owned()
            };
            Frame::Line(Line::stdout(Duration::ZERO, bytes))
        })
        .collect();
    frames.push(Frame::End(Ending {
        at: Duration::ZERO,
        exit: Exit::Code(0),
    }));
    frames
}

/// The seed's user event with `prompt` as its text: the text's value replaced in
/// place (its shape is the seed's, known), or the event rebuilt if that shape changed.
fn user_line(line: &str, prompt: &str) -> String {
    const TEXT: &str = r#"{"type":"text","text":""#;
    let spliced = line.find(TEXT).and_then(|at| {
        let start = at + TEXT.len() - 1;
        let len = line[start + 1..].find(['"', '\\'])?;
        let end = start + 1 + len;
        (line.as_bytes()[end] == b'"').then(|| {
            let text = serde_json::to_string(prompt).unwrap_or_default();
            format!("{}{text}{}", &line[..start], &line[end + 1..])
        })
    });
    spliced.unwrap_or_else(|| match Event::from_slice(line.as_bytes()) {
        Ok(Event::User(event)) => Event::User(UserEvent {
            message: Message::text(role::USER, prompt),
            ..event
        })
        .to_line(),
        _ => line.to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_session_is_the_seed_with_the_prompt() {
        let frames = default_session("Say \"hi\"");
        let lines: Vec<String> = frames
            .iter()
            .filter_map(|f| match f {
                Frame::Line(l) => Some(String::from_utf8_lossy(&l.bytes).into_owned()),
                _ => None,
            })
            .collect();
        let seed: Vec<&str> = DEFAULT_SESSION.lines().collect();
        assert_eq!(lines.len(), seed.len());
        assert_eq!(lines[0], seed[0]);
        assert_eq!(
            lines[1],
            format!(
                r#"{{"type":"{}","message":{{"role":"{}","content":[{{"type":"text","text":"Say \"hi\""}}]}},"session_id":"c6b62c6f-7ead-4fd6-9922-e952131177ff"}}"#,
                event_type::USER,
                role::USER
            )
        );
        assert_eq!(lines[2..], seed[2..]);
    }

    #[test]
    fn the_prompt_goes_where_the_event_model_puts_it() {
        let seed = DEFAULT_SESSION.lines().nth(1).unwrap_or_default();
        for prompt in ["", "hi", "a \"quoted\" \\ line\nbreak \u{1} é →"] {
            let Ok(Event::User(event)) = Event::from_slice(seed.as_bytes()) else {
                panic!("the seed's second line is its user event");
            };
            let rebuilt = Event::User(UserEvent {
                message: Message::text(role::USER, prompt),
                ..event
            })
            .to_line();
            assert_eq!(user_line(seed, prompt), rebuilt, "{prompt:?}");
        }
    }
}
