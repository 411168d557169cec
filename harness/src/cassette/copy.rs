//! A bare capture replayed as a copy of its bytes, when nothing asks for a line to
//! change (`stream-json`, no `--resume`, no `--stream-partial-output`, no fault, no
//! timing).
//!
//! The lines of such a replay are the file's bytes, except for deltas: a capture that
//! was recorded with `--stream-partial-output` replays without its deltas when the flag
//! is not given. So the copy looks, without parsing, for the only lines that could be
//! deltas (one that holds `assistant` in quotes and `timestamp_ms`, or an escape that could
//! spell it); when one is, the copy stops before it and the rest is read line by line
//! ([`Copied::Stopped`]). The ending comes from the last line that is
//! not blank, read as the line-by-line reader reads it: a successful `result` exits
//! 0, anything else 1.
//!
//! Memory stays flat: a block of [`COPY_BLOCK`] bytes, and the line that crosses a block's
//! end (at most [`MAX_LINE_BYTES`]).

use std::fs::File;
use std::io::{self, Write};
use std::os::fd::{AsFd, BorrowedFd};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use memchr::memmem;
use nix::errno::Errno;

use super::read::{capture_rest, capture_tail};
use super::{Reader, MAX_LINE_BYTES};
use crate::capture::{self as field, ASSISTANT};
use crate::error::CassetteError;
use crate::frames::{Exit, Frame, Frames, Stream};
use crate::peek::Peek;

/// The size of the blocks read and written.
pub const COPY_BLOCK: usize = 256 << 10;

/// How a copy ended.
#[derive(Debug)]
pub enum Copied {
    /// Every byte was copied (or stdout was closed), and the capture ends so.
    End {
        /// How the process ends.
        exit: Exit,
        /// Whether a write hit a closed pipe (`EPIPE`): the rest was not written.
        stdout_closed: bool,
    },
    /// The copy stopped before a line that may be a delta: the rest of the capture is
    /// read line by line by this reader, from that line on.
    Stopped(Box<Reader<io::BufReader<File>>>),
}

/// A failure of a copy: reading the capture, or writing stdout.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CopyError {
    /// The capture cannot be read, or is wrong.
    #[error(transparent)]
    Cassette(#[from] CassetteError),
    /// Writing stdout failed (other than a closed pipe).
    #[error("cannot write to stdout: {0}")]
    Write(io::Error),
}

/// Copies the capture `file` (opened from `path`, which names it in errors) to `out`.
///
/// The capture must be one ([`Reader::is_capture`]) and known to hold an event; the
/// caller checks that first (see [`crate::source`]).
pub fn copy_capture<W: Write>(path: &Path, file: File, out: &mut W) -> Result<Copied, CopyError> {
    copy_capture_with(path, file, out, None)
}

/// [`copy_capture`] to a file (the process's stdout): the bytes checked go from the
/// capture to `out` with `sendfile(2)`, without passing through this process (into a
/// pipe, the pipe takes the capture's pages from the page cache); where `out` takes
/// no `sendfile` (a terminal), they are written as [`copy_capture`] writes them.
pub fn copy_capture_to(path: &Path, file: File, out: &File) -> Result<Copied, CopyError> {
    let mut writer = out;
    copy_capture_with(path, file, &mut writer, Some(out.as_fd()))
}

fn copy_capture_with<W: Write>(
    path: &Path,
    file: File,
    out: &mut W,
    send_to: Option<BorrowedFd<'_>>,
) -> Result<Copied, CopyError> {
    let mut copy = Copy {
        path: path.to_owned(),
        file,
        out,
        send_to,
        offset: 0,
        line: Vec::new(),
        closed: false,
        finders: Finders::new(),
    };
    let mut block = vec![0u8; COPY_BLOCK];
    // Once the consumer has closed stdout, only the ending is left to find.
    while !copy.closed {
        let n = match copy.file.read_at(&mut block, copy.offset) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(source) => return Err(copy.read_error(source).into()),
        };
        if let Some(stop) = copy.block(&block[..n])? {
            let line = lines_before(&copy.file, stop).map_err(|e| copy.read_error(e))? + 1;
            return Ok(Copied::Stopped(Box::new(capture_rest(
                path, copy.file, stop, line,
            )?)));
        }
    }
    // The last line, without its newline (a stream that was cut off).
    if !copy.line.is_empty() {
        let line = std::mem::take(&mut copy.line);
        let start = copy.offset - line.len() as u64;
        if copy.finders.may_be_delta(&line) {
            let line = lines_before(&copy.file, start).map_err(|e| copy.read_error(e))? + 1;
            return Ok(Copied::Stopped(Box::new(capture_rest(
                path, copy.file, start, line,
            )?)));
        }
        copy.write(&line, start)?;
    }
    // After a closed stdout, the copy did not read to the end: the ending is the file's.
    let len = match copy.closed {
        true => copy.file.metadata().map_err(|e| copy.read_error(e))?.len(),
        false => copy.offset,
    };
    let exit = copy.ending(len)?;
    Ok(Copied::End {
        exit,
        stdout_closed: copy.closed,
    })
}

struct Copy<'a, W> {
    path: PathBuf,
    file: File,
    out: &'a mut W,
    /// `out`'s descriptor, while it takes `sendfile(2)`.
    send_to: Option<BorrowedFd<'a>>,
    /// Bytes read so far.
    offset: u64,
    /// The start of a line that crosses the end of the blocks read so far.
    line: Vec<u8>,
    /// Stdout was closed by the consumer: nothing more is written.
    closed: bool,
    finders: Finders,
}

/// The searches of [`may_be_delta`], made once.
struct Finders {
    assistant: memmem::Finder<'static>,
    escape: memmem::Finder<'static>,
    timestamp: memmem::Finder<'static>,
}

impl Finders {
    fn new() -> Self {
        Finders {
            assistant: memmem::Finder::new(format!("\"{ASSISTANT}\"").as_bytes()).into_owned(),
            escape: memmem::Finder::new(b"\\u"),
            timestamp: memmem::Finder::new(field::TIMESTAMP_MS.as_bytes()),
        }
    }

    /// Whether a line may be an `assistant` delta: one with `timestamp_ms` and no
    /// `model_call_id` (print mode's rendering of segments). A line without `assistant` in
    /// quotes is none, nor one without `timestamp_ms` or an escape that could spell it, nor one whose last
    /// members, in the compact shape, include `model_call_id`; any other line that
    /// holds `timestamp_ms` is parsed.
    fn may_be_delta(&self, line: &[u8]) -> bool {
        let line = line.strip_suffix(b"\n").unwrap_or(line);
        self.assistant.find(line).is_some() && self.may_be_delta_assistant(line)
    }

    /// [`Finders::may_be_delta`] of a line known to hold `assistant` in quotes.
    fn may_be_delta_assistant(&self, line: &[u8]) -> bool {
        let line = line.strip_suffix(b"\n").unwrap_or(line);
        if self.timestamp.find(line).is_none() && self.escape.find(line).is_none() {
            return false;
        }
        // The closing line of a segment before a tool call, in the CLI's shape, says
        // so at its end.
        if last_keys(line).any(|key| key == field::MODEL_CALL_ID.as_bytes()) {
            return false;
        }
        Peek::parse(line)
            .is_some_and(|p| p.is_type(ASSISTANT) && p.is_delta_shaped() && p.message_text().is_some())
    }
}

impl<W: Write> Copy<'_, W> {
    /// Checks and writes one block; the offset of a line that may be a delta, where
    /// the copy stops.
    fn block(&mut self, block: &[u8]) -> Result<Option<u64>, CopyError> {
        let start = self.offset;
        self.offset += block.len() as u64;
        // Where the bytes of this block not yet written start.
        let mut from = 0;
        let Some(first_end) = memchr::memchr(b'\n', block) else {
            // All of it is inside one line.
            if self.line.len() + block.len() > MAX_LINE_BYTES {
                return Err(self.too_long(start).into());
            }
            self.line.extend_from_slice(block);
            return Ok(None);
        };
        // The line that crossed from the blocks before, now complete.
        if !self.line.is_empty() {
            if self.line.len() + first_end > MAX_LINE_BYTES {
                return Err(self.too_long(start).into());
            }
            self.line.extend_from_slice(&block[..=first_end]);
            let line = std::mem::take(&mut self.line);
            let line_start = start - (line.len() - first_end - 1) as u64;
            if self.finders.may_be_delta(&line) {
                return Ok(Some(line_start));
            }
            self.write(&line, line_start)?;
            self.line = line;
            self.line.clear();
            from = first_end + 1;
        } else if self.finders.may_be_delta(&block[..=first_end]) {
            return Ok(Some(start));
        }
        let whole = memchr::memrchr(b'\n', block).map_or(0, |last| last + 1);
        let lines = &block[first_end + 1..whole];
        if let Some(at) = self.first_delta(lines) {
            let stop = first_end + 1 + at;
            self.write(&block[from..stop], start + from as u64)?;
            return Ok(Some(start + stop as u64));
        }
        self.write(&block[from..whole], start + from as u64)?;
        self.line.extend_from_slice(&block[whole..]);
        Ok(None)
    }

    /// The offset in `lines` (whole lines) of the first that may be a delta. Only the
    /// lines that hold `assistant` in quotes are looked at: an event's type is compared as
    /// written ([`Peek::is_type`]), so an `assistant` event holds those bytes.
    fn first_delta(&self, lines: &[u8]) -> Option<usize> {
        let mut checked_to = 0;
        for at in self.finders.assistant.find_iter(lines) {
            if at < checked_to {
                continue;
            }
            let start = memchr::memrchr(b'\n', &lines[..at]).map_or(0, |i| i + 1);
            let end = memchr::memchr(b'\n', &lines[at..]).map_or(lines.len(), |i| at + i + 1);
            if self.finders.may_be_delta_assistant(&lines[start..end]) {
                return Some(start);
            }
            checked_to = end;
        }
        None
    }

    /// Writes `bytes`, which are the capture's from `offset` on.
    fn write(&mut self, bytes: &[u8], offset: u64) -> Result<(), CopyError> {
        if self.closed || bytes.is_empty() {
            return Ok(());
        }
        let sent = self.send(bytes.len(), offset)?;
        match self.out.write_all(&bytes[sent..]) {
            Ok(()) => Ok(()),
            // The consumer stopped reading: the rest is dropped, the ending stays.
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
                self.closed = true;
                Ok(())
            }
            Err(e) => Err(CopyError::Write(e)),
        }
    }

    /// Sends up to `len` bytes of the capture from `offset` on with `sendfile(2)`, while
    /// `out` takes it: how many went. A closed pipe closes the copy.
    fn send(&mut self, len: usize, offset: u64) -> Result<usize, CopyError> {
        let mut sent = 0;
        while let Some(out) = self.send_to {
            if sent == len {
                break;
            }
            let mut at = (offset + sent as u64) as i64;
            match nix::sys::sendfile::sendfile64(out, &self.file, Some(&mut at), len - sent) {
                Ok(n) if n > 0 => sent += n,
                Err(Errno::EINTR) => {}
                Err(Errno::EPIPE) => {
                    self.closed = true;
                    return Ok(len);
                }
                // The file got shorter under the copy (0), or `out` takes no
                // `sendfile`: the rest is written from the block read.
                Ok(_) | Err(Errno::EINVAL | Errno::ENOSYS | Errno::EOPNOTSUPP | Errno::ESPIPE) => {
                    self.send_to = None
                }
                Err(e) => return Err(CopyError::Write(e.into())),
            }
        }
        Ok(sent)
    }

    fn read_error(&self, source: io::Error) -> CassetteError {
        CassetteError::Read {
            path: self.path.clone(),
            line: lines_before(&self.file, self.offset).unwrap_or(0) + 1,
            source,
        }
    }

    /// The error of the line that crosses `start`, too long to be one.
    fn too_long(&self, start: u64) -> CassetteError {
        let line_start = start - self.line.len() as u64;
        let line = lines_before(&self.file, line_start).unwrap_or(0) + 1;
        super::read::too_long(&self.path, line, &self.line)
    }

    /// How the capture ends: the last line that is not blank of its first `len`
    /// bytes, read as the line-by-line reader reads it.
    fn ending(&self, len: u64) -> Result<Exit, CassetteError> {
        let io = |source| CassetteError::Read {
            path: self.path.clone(),
            line: 0,
            source,
        };
        let Some((start, bytes)) = last_line(&self.file, len).map_err(io)? else {
            return Ok(Exit::Code(1));
        };
        let ending = |line, bytes| {
            let mut exit = Exit::Code(1);
            for frame in capture_tail(&self.path, line, bytes) {
                if let Frame::End(end) = frame? {
                    exit = end.exit;
                }
            }
            Ok(exit)
        };
        // The line's number is counted only for an error to name it.
        ending(1, bytes.clone()).or_else(|_: CassetteError| {
            let line = lines_before(&self.file, start).map_err(io)? + 1;
            ending(line, bytes)
        })
    }
}

/// How a copy of a cassette ended ([`copy_cassette`]).
pub enum CassetteCopied {
    /// Every stdout line was copied (or stdout was closed), and the cassette ends so.
    End {
        /// How the process ends.
        exit: Exit,
        /// Whether a write hit a closed pipe (`EPIPE`): the rest was not written.
        stdout_closed: bool,
    },
    /// The copy stopped at a frame other than a stdout line (a stderr line, a stall,
    /// a closed stdout): that frame and the rest, to perform as every replay does.
    Stopped {
        /// The frame, then the rest of the cassette.
        rest: Frames,
        /// Whether a write hit a closed pipe (`EPIPE`).
        stdout_closed: bool,
    },
}

impl std::fmt::Debug for CassetteCopied {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CassetteCopied::End { exit, stdout_closed } => f
                .debug_struct("End")
                .field("exit", exit)
                .field("stdout_closed", stdout_closed)
                .finish(),
            CassetteCopied::Stopped { stdout_closed, .. } => f
                .debug_struct("Stopped")
                .field("stdout_closed", stdout_closed)
                .finish_non_exhaustive(),
        }
    }
}

/// Copies the stdout lines of a cassette to `out` in writes of [`COPY_BLOCK`] bytes
/// or more, up to its end or to its first frame of another kind. For a replay that
/// changes no line: the cassette was recorded in `stream-json` the way it is replayed
/// (with or without `--stream-partial-output`), and no fault, timing or journal asks
/// for anything but its lines. `reader` is a fast reader ([`Reader::fast`]) of a
/// cassette, checked as [`crate::source`] checks one; the frames of the writer's own
/// shape are copied from its read buffer without a `Frame` each.
pub fn copy_cassette<W: Write>(
    mut reader: Reader<io::BufReader<File>>,
    out: &mut W,
) -> Result<CassetteCopied, CopyError> {
    let mut buffer = Vec::with_capacity(COPY_BLOCK + (64 << 10));
    let mut closed = false;
    let mut flush = |buffer: &mut Vec<u8>, closed: &mut bool| {
        let written = match *closed {
            true => Ok(()),
            false => out.write_all(buffer),
        };
        buffer.clear();
        match written {
            Ok(()) => Ok(()),
            // The consumer stopped reading: the rest is dropped, the ending stays.
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
                *closed = true;
                Ok(())
            }
            Err(e) => Err(CopyError::Write(e)),
        }
    };
    loop {
        if reader.fast_events(&mut buffer, COPY_BLOCK)? == 0 {
            match reader.next() {
                Some(Ok(Frame::Line(line))) if line.stream == Stream::Stdout => {
                    buffer.extend_from_slice(&line.bytes);
                    if line.newline {
                        buffer.push(b'\n');
                    }
                }
                Some(Ok(Frame::End(end))) => {
                    flush(&mut buffer, &mut closed)?;
                    return Ok(CassetteCopied::End {
                        exit: end.exit,
                        stdout_closed: closed,
                    });
                }
                // What came before is written before the error is told.
                Some(Err(e)) => {
                    flush(&mut buffer, &mut closed)?;
                    return Err(e.into());
                }
                frame => {
                    flush(&mut buffer, &mut closed)?;
                    return Ok(CassetteCopied::Stopped {
                        rest: Box::new(frame.into_iter().chain(reader)),
                        stdout_closed: closed,
                    });
                }
            }
        }
        if buffer.len() >= COPY_BLOCK {
            flush(&mut buffer, &mut closed)?;
        }
    }
}

/// The keys of the last members of a compact JSON object line (`...,"k":"v","n":1}`),
/// last first, as far as they are simple: a string without escapes or a number. Such
/// a member before the final `}` of a line is a member of the line's own object, for
/// the structure around it (`,` `"` `:` `"` or a digit) cannot be inside a string.
fn last_keys(line: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut rest = line.strip_suffix(b"}").unwrap_or_default();
    std::iter::from_fn(move || {
        // The value: a string without `\` or `"`, or a number.
        let value_start = match rest.last()? {
            b'"' => {
                let open = memchr::memrchr(b'"', &rest[..rest.len() - 1])?;
                if rest[open + 1..rest.len() - 1].contains(&b'\\') {
                    return None;
                }
                open
            }
            _ => {
                let digits = rest
                    .iter()
                    .rev()
                    .take_while(|b| b.is_ascii_digit() || matches!(b, b'-' | b'+' | b'.' | b'e' | b'E'))
                    .count();
                if digits == 0 {
                    return None;
                }
                rest.len() - digits
            }
        };
        let key_end = rest[..value_start].strip_suffix(b":")?.strip_suffix(b"\"")?;
        let open = memchr::memrchr(b'"', key_end)?;
        let key = &key_end[open + 1..];
        if key.contains(&b'\\') {
            return None;
        }
        let before = &key_end[..open];
        match before.last()? {
            b',' => rest = &before[..before.len() - 1],
            b'{' => rest = &[],
            _ => return None,
        }
        Some(key)
    })
}

/// The number of `\n` in the first `end` bytes of `file`.
fn lines_before(file: &File, end: u64) -> io::Result<u64> {
    let mut buf = vec![0u8; COPY_BLOCK];
    let mut at = 0;
    let mut count = 0;
    while at < end {
        let want = (end - at).min(COPY_BLOCK as u64) as usize;
        let n = file.read_at(&mut buf[..want], at)?;
        if n == 0 {
            break;
        }
        count += memchr::memchr_iter(b'\n', &buf[..n]).count() as u64;
        at += n as u64;
    }
    Ok(count)
}

/// The last line of the first `len` bytes of `file` that is not blank: its offset and
/// its bytes, with its newline if it has one.
fn last_line(file: &File, len: u64) -> io::Result<Option<(u64, Vec<u8>)>> {
    let mut buf = vec![0u8; 64 << 10];
    // Back over the blank end, to the last byte that is not white space.
    let mut end = len;
    let last = loop {
        if end == 0 {
            return Ok(None);
        }
        let from = end.saturating_sub(buf.len() as u64);
        let chunk = &mut buf[..(end - from) as usize];
        file.read_exact_at(chunk, from)?;
        if let Some(i) = chunk.iter().rposition(|b| !b.is_ascii_whitespace()) {
            break from + i as u64;
        }
        end = from;
    };
    // Back to the start of its line, and on to its end.
    let mut start = last;
    loop {
        let from = start.saturating_sub(buf.len() as u64);
        let chunk = &mut buf[..(start - from) as usize];
        file.read_exact_at(chunk, from)?;
        match memchr::memrchr(b'\n', chunk) {
            Some(i) => {
                start = from + i as u64 + 1;
                break;
            }
            None if from == 0 => {
                start = 0;
                break;
            }
            None => start = from,
        }
        if last - start > MAX_LINE_BYTES as u64 {
            break;
        }
    }
    let mut line = Vec::new();
    let mut at = start;
    while at < len {
        let want = (len - at).min(buf.len() as u64) as usize;
        let chunk = &mut buf[..want];
        file.read_exact_at(chunk, at)?;
        match memchr::memchr(b'\n', chunk) {
            Some(i) => {
                line.extend_from_slice(&chunk[..=i]);
                break;
            }
            None => line.extend_from_slice(chunk),
        }
        at += want as u64;
    }
    Ok(Some((start, line)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn last_keys_are_read_back_to_the_first_that_is_not_simple() {
        let keys = |line: &str| {
            last_keys(line.as_bytes())
                .map(|k| String::from_utf8_lossy(k).into_owned())
                .collect::<Vec<_>>()
        };
        assert_eq!(
            keys(&format!(
                r#"{{"type":"{}","message":{{"a":1}},"session_id":"s","model_call_id":"m-1","timestamp_ms":17}}"#,
                ASSISTANT
            )),
            [field::TIMESTAMP_MS, field::MODEL_CALL_ID, field::SESSION_ID]
        );
        assert_eq!(keys(r#"{"a":"x","b":-1.5e3}"#), ["b", "a"]);
        // Escapes and nested values stop the walk.
        assert_eq!(keys(r#"{"a":"x\"","b":1}"#), ["b"]);
        assert_eq!(keys(r#"{"m":{"model_call_id":"x"}}"#), Vec::<String>::new());
        assert_eq!(keys(r#"{"t":"a,\"model_call_id\":\"x"}"#), Vec::<String>::new());
        assert_eq!(keys(r#"{"t":"x","model_call_id" : "y"}"#), Vec::<String>::new());
    }

    #[test]
    fn only_delta_shaped_assistant_lines_may_be_deltas() {
        let finders = Finders::new();
        // An `assistant` line with the text `hi `, then `tail` after `session_id`.
        let assistant = |tail: &str| {
            format!(
                r#"{{"type":"{ASSISTANT}","message":{{"role":"{ASSISTANT}","content":[{{"type":"text","text":"hi "}}]}},"session_id":"s"{tail}}}"#
            )
        };
        let delta = assistant(r#","timestamp_ms":7"#);
        let closing = assistant(r#","model_call_id":"m","timestamp_ms":7"#);
        let whole = assistant("");
        let escaped = assistant(r#","timestamp\u005fms":7"#);
        assert!(finders.may_be_delta(delta.as_bytes()));
        assert!(finders.may_be_delta(escaped.as_bytes()));
        assert!(!finders.may_be_delta(closing.as_bytes()));
        assert!(!finders.may_be_delta(whole.as_bytes()));
    }
}
