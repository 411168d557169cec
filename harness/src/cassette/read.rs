//! Streaming reader of cassettes and bare captures.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;
use serde_json::value::RawValue;

use super::{Header, FORMAT_VERSION, MAGIC_KEY, MAX_LINE_BYTES};
use crate::error::{CassetteError, Diagnostic, ProblemKind};
use crate::frames::{Ending, Exit, Frame, Line, Stream};
use crate::peek::Peek;

pub(crate) use super::line::millis_f64;
use super::line::{bare_message, canonical_out, skim, trim_newline, LastHead, RawFrame};

/// The time and event of `line` (no newline) when it is a stdout frame of the
/// writer's own shape (`{"t":MS,"out":{...}}`), read without a parse as the fast reader
/// reads it: a look ahead of [`Reader::fast_lines_ahead`] reads the lines after one so.
pub fn out_event(line: &[u8]) -> Option<(Duration, &[u8])> {
    canonical_out(line)
}

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
    if file.metadata().is_ok_and(|m| m.is_dir()) {
        return Err(CassetteError::Open {
            path: path.to_owned(),
            source: std::io::Error::new(std::io::ErrorKind::IsADirectory, "it is a directory, not a file"),
        });
    }
    Reader::new(path, BufReader::with_capacity(256 << 10, file))
}

/// Where a reader of a cassette is, between two frames: enough for another reader of
/// the same file to read on from there ([`Reader::resume`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Position {
    /// Bytes from the start of the file.
    pub offset: u64,
    /// The 1-based line of the last frame read; 0 before any.
    pub line: u64,
    /// The time of the last frame read: a frame without `t` is at this time.
    pub at: Duration,
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
    /// Bytes of the input consumed, from the start of the file.
    offset: u64,
    /// A line read ahead while detecting the kind.
    pending: bool,
    done: bool,
    /// Read frames of the writer's own shape without validating their JSON.
    fast: bool,
    /// Fast reading: how many bytes at the front of the read buffer are valid UTF-8.
    utf8_checked: usize,
    /// Fast reading of a file read through once already ([`Reader::resume`]): its
    /// UTF-8 was checked then.
    reread: bool,
    last_at: Duration,
    /// Fast reading: the last line's head and time.
    head: LastHead,
    /// Captures: the first `timestamp_ms` seen, the origin of time.
    first_timestamp: Option<u64>,
    /// Captures: whether the last event was a successful `result`.
    ends_in_result: bool,
    /// Captures: whether a line was a JSON object (an event). A file with none is not
    /// a capture.
    seen_event: bool,
    /// Captures: the start of the first line that is not blank, for the error of a
    /// file that holds no event.
    first_line: Option<Vec<u8>>,
}

/// What a capture is, for the errors about files that are none.
const WHAT_A_CAPTURE_IS: &str = "a capture holds one JSON event per line, as \
    `cursor-agent -p --output-format stream-json` prints them, and a cassette starts with \
    its header line (see docs/cassette-format.md)";

/// What a frame is, for the errors about frames.
const FRAME_HELP: &str = "a frame is `{\"t\":MS,\"out\":EVENT_OR_TEXT}`, `\"err\":TEXT`, \
    `\"exit\":CODE` or `\"signal\":NAME`; see docs/cassette-format.md";

/// How much of a line an error about the whole line shows.
const SHOWN_BYTES: usize = 200;

impl<R: BufRead> Reader<R> {
    /// Reads the first line to tell a cassette (header line) from a capture. `path`
    /// names the input in errors.
    pub fn new(path: &Path, input: R) -> Result<Self, CassetteError> {
        let mut reader = Reader::unread(path, input);
        if !reader.read_line()? {
            return Err(reader.diagnostic(
                1,
                1,
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

    /// A reader of a capture that has read nothing yet.
    fn unread(path: &Path, input: R) -> Self {
        Reader {
            path: path.to_owned(),
            input,
            kind: Kind::Capture,
            header: None,
            buf: Vec::with_capacity(1024),
            line_no: 0,
            offset: 0,
            pending: false,
            done: false,
            fast: false,
            utf8_checked: 0,
            reread: false,
            last_at: Duration::ZERO,
            head: LastHead::default(),
            first_timestamp: None,
            ends_in_result: false,
            seen_event: false,
            first_line: None,
        }
    }

    /// Reads stdout frames of the shape the writer makes (`{"t":MS,"out":{...}}`) without
    /// validating the JSON of their event: the bytes are checked to be UTF-8 and passed
    /// on. Every other line is read as usual. For replay, after a full pass has checked
    /// the file, or where a file is too large to check twice.
    #[must_use]
    pub fn fast(mut self) -> Self {
        self.fast = true;
        self
    }

    /// A reader of the cassette `path` that reads on from `position`, where a reader
    /// of the same file was ([`Reader::position`]); `input` reads the file from
    /// `position.offset` on. It reads as [`Reader::fast`] does, but for the UTF-8 of
    /// the lines of the writer's shape, which the first reader checked; it has no
    /// header.
    pub fn resume(path: &Path, input: R, position: Position) -> Self {
        let mut reader = Reader::unread(path, input).fast();
        reader.reread = true;
        reader.kind = Kind::Cassette;
        reader.offset = position.offset;
        reader.line_no = position.line;
        reader.last_at = position.at;
        reader
    }

    /// Where the reader is: after the last frame it read. Of a cassette only (a
    /// capture's reader has more to remember).
    pub fn position(&self) -> Position {
        Position {
            offset: self.offset,
            line: self.line_no,
            at: self.last_at,
        }
    }

    /// The path the reader names in its errors.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The cassette's header, or `None` for a bare capture.
    pub fn header(&self) -> Option<&Header> {
        self.header.as_ref()
    }

    /// The 1-based line of the input that the last frame came from.
    pub fn line_no(&self) -> u64 {
        self.line_no
    }

    /// Whether the input is a bare capture rather than a cassette.
    pub fn is_capture(&self) -> bool {
        self.kind == Kind::Capture
    }

    /// Whether the input is known to hold what it should: a cassette has its header;
    /// a capture, once a line read so far was a JSON event. (A capture that ends
    /// without one is an error.)
    pub fn has_event(&self) -> bool {
        self.kind == Kind::Cassette || self.seen_event
    }

    /// Reads the next line into `buf`; `false` at end of input. A line longer than
    /// [`MAX_LINE_BYTES`] is an error, found without holding more than that.
    fn read_line(&mut self) -> Result<bool, CassetteError> {
        self.buf.clear();
        let mut n = 0;
        loop {
            let available = match self.input.fill_buf() {
                Ok(available) => available,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(source) => {
                    return Err(CassetteError::Read {
                        path: self.path.clone(),
                        line: self.line_no + 1,
                        source,
                    })
                }
            };
            if available.is_empty() {
                break;
            }
            let (take, ends) = match memchr::memchr(b'\n', available) {
                Some(end) => (end + 1, true),
                None => (available.len(), false),
            };
            let length = self.buf.len() + take - usize::from(ends);
            if length > MAX_LINE_BYTES {
                let shown = (SHOWN_BYTES.saturating_sub(self.buf.len())).min(take);
                self.buf.extend_from_slice(&available[..shown]);
                return Err(self.too_long());
            }
            self.buf.extend_from_slice(&available[..take]);
            self.input.consume(take);
            self.offset += take as u64;
            n += take;
            if ends {
                break;
            }
        }
        // What was checked for UTF-8 at the front of the buffer is consumed first.
        self.utf8_checked = self.utf8_checked.saturating_sub(n);
        if n == 0 {
            return Ok(false);
        }
        self.line_no += 1;
        Ok(true)
    }

    /// The error of a line longer than [`MAX_LINE_BYTES`]; `buf` holds its start.
    fn too_long(&self) -> CassetteError {
        too_long(&self.path, self.line_no + 1, &self.buf)
    }

    /// The error of a capture in which no line is a JSON event.
    fn no_event(&self) -> CassetteError {
        let first = self.first_line.as_deref().unwrap_or_default();
        self.diagnostic(
            1,
            0,
            ProblemKind::Data,
            "no line of this file is a JSON event: it is neither a capture nor a cassette",
            format!("is this the file you meant? {WHAT_A_CAPTURE_IS}"),
        )
        .with_line(first)
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
            Ok(1..=FORMAT_VERSION) => {}
            Ok(found) => {
                let (message, help) = if found > FORMAT_VERSION {
                    (
                        format!(
                            "this cassette is format {found}; this mock-agent reads formats 1 to {FORMAT_VERSION}"
                        ),
                        "upgrade mock-agent to a release that reads this format".to_owned(),
                    )
                } else {
                    (
                        format!(
                            "format {found} does not exist; this mock-agent reads formats 1 to {FORMAT_VERSION}"
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

    /// The next line, if it has the writer's own shape, straight from the read buffer.
    ///
    /// UTF-8 is checked a buffer at a time, up to its last complete line (a line end
    /// is a character boundary): `utf8_checked` counts the bytes at the front of the
    /// buffer known to be valid.
    fn fast_frame(&mut self) -> Result<Option<Frame>, CassetteError> {
        let buf = self.input.fill_buf().map_err(|source| CassetteError::Read {
            path: self.path.clone(),
            line: self.line_no + 1,
            source,
        })?;
        let Some(end) = memchr::memchr(b'\n', buf) else {
            return Ok(None);
        };
        if !self.reread && self.utf8_checked <= end {
            let lines = memchr::memrchr(b'\n', buf).map_or(0, |last| last + 1);
            match simdutf8::compat::from_utf8(&buf[..lines]) {
                Ok(_) => self.utf8_checked = lines,
                Err(e) => self.utf8_checked = e.valid_up_to(),
            }
            if self.utf8_checked <= end {
                // Not UTF-8: the full reader says where and why.
                return Ok(None);
            }
        }
        let Some((at, event)) = self.head.canonical_out(&buf[..end]) else {
            return Ok(None);
        };
        if at < self.last_at {
            return Ok(None);
        }
        let bytes = event.to_vec();
        self.input.consume(end + 1);
        self.offset += end as u64 + 1;
        self.utf8_checked = self.utf8_checked.saturating_sub(end + 1);
        self.line_no += 1;
        self.last_at = at;
        Ok(Some(Frame::Line(Line {
            at,
            stream: Stream::Stdout,
            bytes,
            newline: true,
        })))
    }

    /// Fast reading for a copy ([`super::copy_cassette`], a line dialect's replay):
    /// the events of the stdout frames of the writer's shape whole in the read buffer,
    /// appended to `out` each with its newline, while `out` holds less than `limit`
    /// bytes; how many. 0 when the next line is not such a frame, or crosses the end of
    /// the read buffer: [`Iterator::next`] reads it. The same frames as
    /// [`Iterator::next`] reads, without a `Frame` each; [`Reader::position`] is after
    /// the last one (its time too).
    pub fn fast_events(&mut self, out: &mut Vec<u8>, limit: usize) -> Result<u64, CassetteError> {
        self.fast_lines(|_, event| {
            if out.len() >= limit {
                return false;
            }
            out.extend_from_slice(event);
            out.push(b'\n');
            true
        })
    }

    /// A player's run of lines due together, for a [`Reader::fast`] reader of a
    /// cassette: the events of the stdout frames of the writer's shape whole in the
    /// read buffer (their times in order), appended to `out` each with its newline,
    /// while `out` holds less than `limit` bytes, at most `most` of them, and only
    /// while `keep` takes the next one's event (a line it does not take is left for
    /// [`Iterator::next`]); how many were appended. Where the reader is after them is
    /// [`Reader::position`].
    pub fn fast_run(
        &mut self,
        out: &mut Vec<u8>,
        limit: usize,
        most: usize,
        mut keep: impl FnMut(&[u8]) -> bool,
    ) -> Result<usize, CassetteError> {
        let mut taken = 0;
        self.fast_lines(|_, event| {
            if out.len() >= limit || taken >= most || !keep(event) {
                return false;
            }
            out.extend_from_slice(event);
            out.push(b'\n');
            taken += 1;
            true
        })?;
        Ok(taken)
    }

    /// Fast reading for a pass that looks at the stdout lines without keeping them:
    /// each stdout frame of the writer's shape whole in the read buffer handed to
    /// `visit` (its time, its event, borrowed from the read buffer) until `visit`
    /// declines one (`false`: it is not read); how many were read. 0 as
    /// [`Reader::fast_events`] says: [`Iterator::next`] reads the next frame. Only a
    /// fast reader ([`Reader::fast`]) of a cassette reads so; any other reads none.
    pub fn fast_lines(
        &mut self,
        mut visit: impl FnMut(Duration, &[u8]) -> bool,
    ) -> Result<u64, CassetteError> {
        self.fast_lines_ahead(|at, event, _| visit(at, event))
    }

    /// As [`Reader::fast_lines`], `visit` also handed the bytes after the line that
    /// the read buffer holds (checked for UTF-8 as far as the lines are whole), to
    /// look ahead without reading: a pass that indexes a cassette as it plays it
    /// decides a line by what follows it.
    pub fn fast_lines_ahead(
        &mut self,
        mut visit: impl FnMut(Duration, &[u8], &[u8]) -> bool,
    ) -> Result<u64, CassetteError> {
        if !self.fast || self.done || self.kind != Kind::Cassette {
            return Ok(0);
        }
        let buf = self.input.fill_buf().map_err(|source| CassetteError::Read {
            path: self.path.clone(),
            line: self.line_no + 1,
            source,
        })?;
        let lines = memchr::memrchr(b'\n', buf).map_or(0, |last| last + 1);
        if !self.reread && self.utf8_checked < lines {
            match simdutf8::compat::from_utf8(&buf[..lines]) {
                Ok(_) => self.utf8_checked = lines,
                Err(e) => self.utf8_checked = e.valid_up_to(),
            }
        }
        let checked = if self.reread {
            lines
        } else {
            self.utf8_checked.min(lines)
        };
        let (mut at, mut count) = (0, 0);
        for end in memchr::memchr_iter(b'\n', &buf[..checked]) {
            let Some((t, event)) = self.head.canonical_out(&buf[at..end]) else {
                break;
            };
            if t < self.last_at || !visit(t, event, &buf[end + 1..checked]) {
                break;
            }
            self.last_at = t;
            at = end + 1;
            count += 1;
        }
        self.input.consume(at);
        self.offset += at as u64;
        self.utf8_checked = self.utf8_checked.saturating_sub(at);
        self.line_no += count;
        Ok(count)
    }

    /// After [`Reader::fast_lines_ahead`] stopped at a line (its visitor returned
    /// `false` for it), takes that line and the whole lines after it that the visitor
    /// read from the `rest` it was handed, up to where `left` bytes of that `rest`
    /// remain: `lines` lines in all, the last of them at `at`. For a visitor that takes
    /// a line with the lines its look ahead read after it, each read once; it checked
    /// them as [`Reader::fast_lines_ahead`] checks a line (the writer's shape, a time
    /// that does not go back). Nothing is read from the input.
    pub fn fast_take_ahead(&mut self, left: usize, lines: u64, at: Duration) -> Result<(), CassetteError> {
        if !self.fast || self.done || self.kind != Kind::Cassette {
            return Ok(());
        }
        // The line stopped at is in the buffer: nothing is read.
        let buf = self.input.fill_buf().map_err(|source| CassetteError::Read {
            path: self.path.clone(),
            line: self.line_no + 1,
            source,
        })?;
        let whole = memchr::memrchr(b'\n', buf).map_or(0, |last| last + 1);
        let checked = if self.reread {
            whole
        } else {
            self.utf8_checked.min(whole)
        };
        let take = checked.saturating_sub(left);
        self.input.consume(take);
        self.offset += take as u64;
        self.utf8_checked = self.utf8_checked.saturating_sub(take);
        self.line_no += lines;
        self.last_at = at;
        Ok(())
    }

    fn next_cassette_frame(&mut self) -> Result<Option<Frame>, CassetteError> {
        loop {
            if self.fast {
                if let Some(frame) = self.fast_frame()? {
                    return Ok(Some(frame));
                }
            }
            if !self.read_line()? {
                return Err(self.diagnostic(
                    self.line_no,
                    1,
                    ProblemKind::Truncated,
                    "the cassette ends without its end line (`{\"exit\":CODE}` or `{\"signal\":\"NAME\"}`)",
                    "the file was cut short: record it again, or add the end line by hand",
                ));
            }
            let (line, _) = trim_newline(&self.buf);
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            if let Some(e) = self.not_an_object(line) {
                return Err(e);
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
            let frame = raw.decode(line, self.last_at).map_err(|e| {
                self.diagnostic(self.line_no, e.column, ProblemKind::Data, e.message, FRAME_HELP)
                    .with_line(&self.buf)
            })?;
            self.last_at = frame.at();
            return Ok(Some(frame));
        }
    }

    /// The error of a frame line that is valid JSON but no object (`null`, `[]`, `5`);
    /// `None` for an object, or for a line that is not JSON at all (the parser says
    /// where it goes wrong).
    fn not_an_object(&self, line: &[u8]) -> Option<CassetteError> {
        let start = line.iter().position(|b| !b.is_ascii_whitespace())?;
        if line[start] == b'{' || serde_json::from_slice::<serde::de::IgnoredAny>(line).is_err() {
            return None;
        }
        let what = match line[start] {
            b'n' => "`null`".to_owned(),
            b't' | b'f' => "a boolean".to_owned(),
            b'"' => "a string".to_owned(),
            b'[' => "an array".to_owned(),
            _ => "a number".to_owned(),
        };
        Some(
            self.diagnostic(
                self.line_no,
                start as u64 + 1,
                ProblemKind::Data,
                format!("a frame is a JSON object; this line is {what}"),
                FRAME_HELP,
            )
            .with_line(line),
        )
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
            if !self.seen_event {
                return Err(self.no_event());
            }
            let code = if self.ends_in_result { 0 } else { 1 };
            return Ok(Some(Frame::End(Ending {
                at: self.last_at,
                exit: Exit::Code(code),
            })));
        }
        let (bytes, newline) = trim_newline(&self.buf);
        let looks_like_object = bytes.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{');
        if self.first_line.is_none() && !bytes.iter().all(u8::is_ascii_whitespace) {
            self.first_line = Some(bytes[..bytes.len().min(SHOWN_BYTES)].to_vec());
        }
        let skimmed = if self.fast && newline && looks_like_object {
            skim(bytes)
        } else {
            None
        };
        if let Some(skim) = skimmed {
            // A line in the usual shape, its time (if any) at its end: read without
            // parsing it (a full pass has checked the file, or it is too large to).
            if let Some(ts) = skim.timestamp_ms {
                let origin = *self.first_timestamp.get_or_insert(ts);
                self.last_at = self.last_at.max(Duration::from_millis(ts.saturating_sub(origin)));
            }
            self.ends_in_result = false;
            self.seen_event = true;
        } else if looks_like_object {
            match serde_json::from_slice::<Peek<'_>>(bytes) {
                Ok(peek) => {
                    self.seen_event = true;
                    if let Some(ts) = peek.timestamp_ms() {
                        let origin = *self.first_timestamp.get_or_insert(ts);
                        self.last_at = self.last_at.max(Duration::from_millis(ts.saturating_sub(origin)));
                    }
                    self.ends_in_result = peek.is_type(crate::capture::RESULT) && !peek.is_error();
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
        } else if !bytes.iter().all(u8::is_ascii_whitespace) {
            // A blank line (an editor's last newline) does not change how it ends.
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

/// The error of line `line` of `path`, longer than [`MAX_LINE_BYTES`]; `start` is its
/// start.
pub(super) fn too_long(path: &Path, line: u64, start: &[u8]) -> CassetteError {
    let shown = &start[..start.len().min(SHOWN_BYTES)];
    CassetteError::from(Diagnostic {
        path: path.to_owned(),
        line,
        column: 0,
        kind: ProblemKind::Data,
        message: format!(
            "the line is longer than {} MiB, the most a line of a cassette or capture may hold \
             (no event of the CLI comes near it)",
            MAX_LINE_BYTES >> 20
        ),
        source_line: None,
        help: format!("is this the file you meant? {WHAT_A_CAPTURE_IS}"),
    })
    .with_line(shown)
}

/// A reader of the rest of the capture `path`, from `offset` in `file`, which is the
/// start of line `line`; what came before held an event.
pub(super) fn capture_rest(
    path: &Path,
    mut file: File,
    offset: u64,
    line: u64,
) -> Result<Reader<BufReader<File>>, CassetteError> {
    use std::io::{Seek, SeekFrom};
    file.seek(SeekFrom::Start(offset))
        .map_err(|source| CassetteError::Read {
            path: path.to_owned(),
            line,
            source,
        })?;
    let mut reader = Reader::unread(path, BufReader::with_capacity(256 << 10, file)).fast();
    reader.line_no = line - 1;
    reader.seen_event = true;
    Ok(reader)
}

/// A reader of the last line of a capture (`bytes`, line `line` of `path`): its frame
/// and the capture's ending, read as the whole capture would be read.
pub(super) fn capture_tail(path: &Path, line: u64, bytes: Vec<u8>) -> Reader<std::io::Cursor<Vec<u8>>> {
    let mut reader = Reader::unread(path, std::io::Cursor::new(bytes));
    reader.line_no = line - 1;
    reader.seen_event = true;
    reader
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
