//! Streaming reader of cassettes and bare captures.

use std::borrow::Cow;
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::time::Duration;

use base64::Engine as _;
use serde::Deserialize;
use serde_json::value::RawValue;

use super::{Header, FORMAT_VERSION, MAGIC_KEY};
use crate::error::{CassetteError, Diagnostic, ProblemKind};
use crate::frames::{Ending, Exit, Frame, Line, Signal, Stream};
use crate::peek::Peek;

/// How far past a line that opens a multi-line JSON value the reader looks for its
/// end, to report where a pretty-printed value goes wrong.
const PRETTY_LOOKAHEAD_LINES: usize = 10_000;
const PRETTY_LOOKAHEAD_BYTES: usize = 4 << 20;

/// Opens a cassette or a bare capture.
pub fn open(path: &Path) -> Result<Reader<BufReader<File>>, CassetteError> {
    let file = File::open(path).map_err(|source| CassetteError::Open {
        path: path.to_owned(),
        source,
    })?;
    Reader::new(path, BufReader::with_capacity(64 << 10, file))
}

/// What kind of file is being read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Cassette,
    Capture,
}

/// Reads frames from a cassette or capture, one line at a time.
///
/// An iterator of [`Frame`]s that ends with one [`Frame::End`]; an error ends it too.
#[derive(Debug)]
pub struct Reader<R> {
    path: PathBuf,
    input: R,
    kind: Kind,
    header: Option<Header>,
    buf: Vec<u8>,
    /// The 1-based number of the line in `buf`.
    line_no: u64,
    /// A line read ahead while detecting the kind.
    pending: bool,
    done: bool,
    last_at: Duration,
    /// Captures: the first `timestamp_ms` seen, the origin of time.
    first_timestamp: Option<u64>,
    /// Captures: whether the last event was a successful `result`.
    ends_in_result: bool,
}

impl<R: BufRead> Reader<R> {
    /// Reads the first line to tell a cassette (header line) from a capture. `path`
    /// names the input in errors.
    pub fn new(path: &Path, input: R) -> Result<Self, CassetteError> {
        let mut reader = Reader {
            path: path.to_owned(),
            input,
            kind: Kind::Capture,
            header: None,
            buf: Vec::with_capacity(1024),
            line_no: 0,
            pending: false,
            done: false,
            last_at: Duration::ZERO,
            first_timestamp: None,
            ends_in_result: false,
        };
        if !reader.read_line()? {
            return Err(reader.diagnostic(
                1,
                0,
                ProblemKind::Truncated,
                "the file is empty",
                "a cassette starts with a header line (see docs/cassette-format.md); \
                 a capture holds at least one line of `--output-format stream-json` output",
            ));
        }
        if let Some(header) = reader.parse_header()? {
            reader.kind = Kind::Cassette;
            reader.header = Some(header);
        } else if path.extension().is_some_and(|e| e == "cassette") {
            return Err(reader
                .diagnostic(
                    1,
                    1,
                    ProblemKind::Data,
                    format!("a `.cassette` file starts with a header line `{{\"{MAGIC_KEY}\":1,...}}`"),
                    "add the header line, or rename the file to `.ndjson` if it is a bare \
                     capture of stream-json output",
                )
                .with_line(&reader.buf));
        } else {
            reader.pending = true;
        }
        Ok(reader)
    }

    /// The cassette's header, or `None` for a bare capture.
    pub fn header(&self) -> Option<&Header> {
        self.header.as_ref()
    }

    /// Whether the input is a bare capture rather than a cassette.
    pub fn is_capture(&self) -> bool {
        self.kind == Kind::Capture
    }

    /// Reads the next line into `buf`; `false` at end of input.
    fn read_line(&mut self) -> Result<bool, CassetteError> {
        self.buf.clear();
        let n = self
            .input
            .read_until(b'\n', &mut self.buf)
            .map_err(|source| CassetteError::Read {
                path: self.path.clone(),
                line: self.line_no + 1,
                source,
            })?;
        if n == 0 {
            return Ok(false);
        }
        self.line_no += 1;
        Ok(true)
    }

    fn parse_header(&self) -> Result<Option<Header>, CassetteError> {
        #[derive(Deserialize)]
        struct Magic<'a> {
            #[serde(rename = "mock_agent_cassette", borrow)]
            version: Option<&'a RawValue>,
        }
        let line = trim_newline(&self.buf).0;
        let Ok(Magic {
            version: Some(version),
        }) = serde_json::from_slice::<Magic<'_>>(line)
        else {
            return Ok(None);
        };
        match version.get().parse::<u64>() {
            Ok(FORMAT_VERSION) => {}
            Ok(found) => {
                let (message, help) = if found > FORMAT_VERSION {
                    (
                        format!(
                            "this cassette is format {found}; this mock-agent reads format {FORMAT_VERSION}"
                        ),
                        "upgrade mock-agent to a release that reads this format".to_owned(),
                    )
                } else {
                    (
                        format!(
                            "format {found} does not exist; this mock-agent reads format {FORMAT_VERSION}"
                        ),
                        format!("set `\"{MAGIC_KEY}\":{FORMAT_VERSION}` in the header"),
                    )
                };
                return Err(self
                    .diagnostic(1, 1, ProblemKind::Version, message, help)
                    .with_line(line));
            }
            Err(_) => {
                return Err(self
                    .diagnostic(
                        1,
                        1,
                        ProblemKind::Data,
                        format!("`{MAGIC_KEY}` is `{}`, not a version number", version.get()),
                        format!("set `\"{MAGIC_KEY}\":{FORMAT_VERSION}` in the header"),
                    )
                    .with_line(line))
            }
        }
        serde_json::from_slice::<Header>(line)
            .map(Some)
            .map_err(|e| self.json_error(&e, "fix the header line; see docs/cassette-format.md"))
    }

    fn diagnostic(
        &self,
        line: u64,
        column: u64,
        kind: ProblemKind,
        message: impl Into<String>,
        help: impl Into<String>,
    ) -> CassetteError {
        CassetteError::from(Diagnostic {
            path: self.path.clone(),
            line,
            column,
            kind,
            message: message.into(),
            source_line: None,
            help: help.into(),
        })
    }

    /// A diagnostic for a serde_json error on the current line.
    fn json_error(&self, e: &serde_json::Error, help: &str) -> CassetteError {
        let kind = match e.classify() {
            serde_json::error::Category::Syntax => ProblemKind::Syntax,
            serde_json::error::Category::Eof => ProblemKind::Truncated,
            _ => ProblemKind::Data,
        };
        let message = match kind {
            ProblemKind::Truncated => "the line ends in the middle of a JSON value".to_owned(),
            _ => bare_message(e),
        };
        self.diagnostic(self.line_no, e.column() as u64, kind, message, help)
            .with_line(&self.buf)
    }

    fn next_cassette_frame(&mut self) -> Result<Option<Frame>, CassetteError> {
        loop {
            if !self.read_line()? {
                return Err(self.diagnostic(
                    self.line_no,
                    0,
                    ProblemKind::Truncated,
                    "the cassette ends without its end line (`{\"exit\":CODE}` or `{\"signal\":\"NAME\"}`)",
                    "the file was cut short: record it again, or add the end line by hand",
                ));
            }
            let (line, _) = trim_newline(&self.buf);
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let raw: RawFrame<'_> = match serde_json::from_slice(line) {
                Ok(raw) => raw,
                Err(e) => {
                    let help = if e.classify() == serde_json::error::Category::Eof {
                        "the file was cut short or a line was split: each frame is one JSON object on one line"
                    } else {
                        "each line after the header is one frame; see docs/cassette-format.md"
                    };
                    return Err(self.json_error(&e, help));
                }
            };
            let at = match raw.t {
                None => self.last_at,
                Some(t) if t.is_finite() && t >= 0.0 => Duration::from_secs_f64(t / 1000.0),
                Some(t) => {
                    return Err(self.frame_error(format!("`t` is {t}; it must be milliseconds, 0 or more")))
                }
            };
            if at < self.last_at {
                return Err(self.frame_error(format!(
                    "`t` goes back in time ({} ms after {} ms)",
                    millis(at),
                    millis(self.last_at)
                )));
            }
            self.last_at = at;
            return raw.into_frame(at).map(Some).map_err(|msg| self.frame_error(msg));
        }
    }

    fn frame_error(&self, message: String) -> CassetteError {
        self.diagnostic(
            self.line_no,
            1,
            ProblemKind::Data,
            message,
            "a frame is `{\"t\":MS,\"out\":EVENT_OR_TEXT}`, `\"err\":TEXT`, `\"exit\":CODE` or \
             `\"signal\":NAME`; see docs/cassette-format.md",
        )
        .with_line(&self.buf)
    }

    fn check_after_end(&mut self) -> Result<(), CassetteError> {
        while self.read_line()? {
            if !self.buf.iter().all(u8::is_ascii_whitespace) {
                return Err(self
                    .diagnostic(
                        self.line_no,
                        1,
                        ProblemKind::Data,
                        "a frame follows the end line",
                        "the end line (`exit` or `signal`) is the last line of a cassette: \
                         move it to the end",
                    )
                    .with_line(&self.buf));
            }
        }
        Ok(())
    }

    fn next_capture_frame(&mut self) -> Result<Option<Frame>, CassetteError> {
        if self.pending {
            self.pending = false;
        } else if !self.read_line()? {
            let code = if self.ends_in_result { 0 } else { 1 };
            return Ok(Some(Frame::End(Ending {
                at: self.last_at,
                exit: Exit::Code(code),
            })));
        }
        let (bytes, newline) = trim_newline(&self.buf);
        let looks_like_object = bytes.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{');
        if looks_like_object {
            match serde_json::from_slice::<Peek<'_>>(bytes) {
                Ok(peek) => {
                    if let Some(ts) = peek.timestamp_ms() {
                        let origin = *self.first_timestamp.get_or_insert(ts);
                        self.last_at = self.last_at.max(Duration::from_millis(ts.saturating_sub(origin)));
                    }
                    self.ends_in_result = peek.is_type("result") && !peek.is_error();
                }
                // The last line of a stream that was cut off: kept as it is.
                Err(e) if !newline && e.classify() == serde_json::error::Category::Eof => {
                    self.ends_in_result = false;
                }
                Err(e) if e.classify() == serde_json::error::Category::Eof => {
                    return Err(self.multi_line_error());
                }
                Err(e) => {
                    return Err(self.json_error(
                        &e,
                        "each line of a capture is one event of `--output-format stream-json`; \
                         fix the line, or remove it",
                    ))
                }
            }
        } else {
            self.ends_in_result = false;
        }
        Ok(Some(Frame::Line(Line {
            at: self.last_at,
            stream: Stream::Stdout,
            bytes: bytes.to_vec(),
            newline,
        })))
    }

    /// A line opens a JSON value that does not close on it: read on to report either
    /// where the multi-line value goes wrong, or that it is pretty-printed.
    fn multi_line_error(&mut self) -> CassetteError {
        let start = self.line_no;
        let first_line = self.buf.clone();
        let mut text = self.buf.clone();
        let mut lines = 1;
        while lines < PRETTY_LOOKAHEAD_LINES && text.len() < PRETTY_LOOKAHEAD_BYTES {
            match self.read_line() {
                Ok(true) => {
                    text.extend_from_slice(&self.buf);
                    lines += 1;
                }
                Ok(false) | Err(_) => break,
            }
        }
        let mut values = serde_json::Deserializer::from_slice(&text).into_iter::<serde::de::IgnoredAny>();
        let help_flat = "a capture holds one JSON event per line: write it compactly \
                         (e.g. `jq -c . FILE`), or fix the JSON";
        match values.next() {
            Some(Ok(_)) => {
                let end = start
                    + text[..values.byte_offset()]
                        .iter()
                        .filter(|b| **b == b'\n')
                        .count() as u64;
                self.diagnostic(
                    start,
                    1,
                    ProblemKind::Data,
                    format!("a JSON value spans lines {start} to {end} (pretty-printed?)"),
                    help_flat,
                )
                .with_line(&first_line)
            }
            Some(Err(e)) => {
                let line = start + e.line() as u64 - 1;
                let source = text
                    .split(|b| *b == b'\n')
                    .nth(e.line().saturating_sub(1))
                    .unwrap_or_default();
                let kind = match e.classify() {
                    serde_json::error::Category::Eof => ProblemKind::Truncated,
                    serde_json::error::Category::Syntax => ProblemKind::Syntax,
                    _ => ProblemKind::Data,
                };
                let message = if kind == ProblemKind::Truncated {
                    format!("the JSON value opened on line {start} never closes")
                } else {
                    format!("{} (in the JSON value opened on line {start})", bare_message(&e))
                };
                self.diagnostic(line, e.column() as u64, kind, message, help_flat)
                    .with_line(source)
            }
            None => self
                .diagnostic(
                    start,
                    1,
                    ProblemKind::Truncated,
                    "the line ends in the middle of a JSON value",
                    help_flat,
                )
                .with_line(&first_line),
        }
    }
}

impl<R: BufRead> Iterator for Reader<R> {
    type Item = Result<Frame, CassetteError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let next = match self.kind {
            Kind::Cassette => self.next_cassette_frame(),
            Kind::Capture => self.next_capture_frame(),
        };
        let next = match next {
            Ok(Some(Frame::End(end))) if self.kind == Kind::Cassette => {
                self.check_after_end().map(|()| Some(Frame::End(end)))
            }
            other => other,
        };
        match next {
            Ok(Some(frame)) => {
                self.done = matches!(frame, Frame::End(_));
                Some(Ok(frame))
            }
            Ok(None) => {
                self.done = true;
                None
            }
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}

trait WithLine {
    fn with_line(self, line: &[u8]) -> Self;
}

impl WithLine for CassetteError {
    fn with_line(self, line: &[u8]) -> Self {
        match self {
            CassetteError::Invalid(d) => CassetteError::Invalid(Box::new(d.with_source(line))),
            other => other,
        }
    }
}

/// One frame line as written: exactly one of the content keys.
#[derive(Deserialize)]
struct RawFrame<'a> {
    #[serde(default)]
    t: Option<f64>,
    #[serde(borrow, default)]
    out: Option<&'a RawValue>,
    #[serde(borrow, default)]
    out_b64: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    err: Option<&'a RawValue>,
    #[serde(borrow, default)]
    err_b64: Option<Cow<'a, str>>,
    #[serde(default)]
    nl: Option<bool>,
    #[serde(default)]
    exit: Option<i32>,
    #[serde(borrow, default)]
    signal: Option<Cow<'a, str>>,
}

impl RawFrame<'_> {
    fn into_frame(self, at: Duration) -> Result<Frame, String> {
        let present = [
            self.out.is_some(),
            self.out_b64.is_some(),
            self.err.is_some(),
            self.err_b64.is_some(),
            self.exit.is_some(),
            self.signal.is_some(),
        ]
        .iter()
        .filter(|p| **p)
        .count();
        if present != 1 {
            return Err(format!(
                "a frame holds exactly one of `out`, `out_b64`, `err`, `err_b64`, `exit`, `signal`; this one holds {present}"
            ));
        }
        let newline = self.nl.unwrap_or(true);
        let line = |stream, bytes| {
            Ok(Frame::Line(Line {
                at,
                stream,
                bytes,
                newline,
            }))
        };
        if let Some(raw) = self.out {
            return line(Stream::Stdout, embedded_line("out", raw)?);
        }
        if let Some(raw) = self.err {
            return line(Stream::Stderr, embedded_line("err", raw)?);
        }
        if let Some(b64) = self.out_b64 {
            return line(Stream::Stdout, decode_b64("out_b64", &b64)?);
        }
        if let Some(b64) = self.err_b64 {
            return line(Stream::Stderr, decode_b64("err_b64", &b64)?);
        }
        if let Some(code) = self.exit {
            return Ok(Frame::End(Ending {
                at,
                exit: Exit::Code(code),
            }));
        }
        let name = self.signal.unwrap_or_default();
        let signal = Signal::parse(&name).ok_or_else(|| {
            let names: Vec<_> = Signal::all().map(Signal::name).collect();
            format!("`signal` is `{name}`; it must be one of {}", names.join(", "))
        })?;
        Ok(Frame::End(Ending {
            at,
            exit: Exit::Signal(signal),
        }))
    }
}

/// The bytes of a line stored as an embedded JSON object (exact) or a JSON string.
fn embedded_line(key: &str, raw: &RawValue) -> Result<Vec<u8>, String> {
    let text = raw.get();
    match text.as_bytes().first() {
        Some(b'{') => Ok(text.as_bytes().to_vec()),
        Some(b'"') => serde_json::from_str::<String>(text)
            .map(String::into_bytes)
            .map_err(|e| format!("`{key}`: {e}")),
        _ => Err(format!(
            "`{key}` holds `{text}`; it must be a JSON object (an event) or a string (any other line)"
        )),
    }
}

fn decode_b64(key: &str, text: &str) -> Result<Vec<u8>, String> {
    base64::engine::general_purpose::STANDARD
        .decode(text)
        .map_err(|e| format!("`{key}` is not valid base64: {e}"))
}

/// Splits a line read with `read_until` into its bytes and whether it had `\n`.
fn trim_newline(buf: &[u8]) -> (&[u8], bool) {
    match buf.strip_suffix(b"\n") {
        Some(line) => (line, true),
        None => (buf, false),
    }
}

/// serde_json's message without its " at line L column C" suffix.
fn bare_message(e: &serde_json::Error) -> String {
    let text = e.to_string();
    match text.rfind(" at line ") {
        Some(i) => text[..i].to_owned(),
        None => text,
    }
}

fn millis(d: Duration) -> String {
    let ms = d.as_secs_f64() * 1000.0;
    format!("{ms}")
}
