//! Atomic cassette writer: a temporary file beside the target, renamed into place
//! when complete. A crash or an error leaves nothing under the final name.
//!
//! The file is not synced before the rename, on purpose. The rename is what makes a
//! cassette appear, whole: a process that dies (a crash, a kill, an error) before it
//! leaves nothing under the name, synced or not. Only a crash of the machine itself
//! (a power cut) in the seconds after the rename can lose what the kernel had not yet
//! written out, as it can of any file a program has just written; git does not sync
//! its objects by default either. A sync would make every recording wait for the
//! disk: for a 100 MB stream, longer than the recording itself.
//!
//! On Linux the temporary file has no name (`O_TMPFILE` in the cassette's folder) and
//! is linked into place at the end: a writer killed before it finished (SIGKILL, a
//! crash) leaves nothing at all. Where the system or the file system has no unnamed
//! files, the temporary file is `.mock-agent-PID-XXXXXX.cassette.tmp`, beside the
//! cassette, and a killed writer leaves it: a partial recording, without its end,
//! that no reader takes for a cassette (`lint` and the library look at `*.cassette`
//! only). The next writer in that folder removes the temporary files of writers that
//! no longer run (no process PID): see [`stale_temporaries`].

use std::fs::File;
use std::io::{Seek, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, SyncSender};
use std::thread::JoinHandle;
use std::time::Duration;

use base64::Engine as _;
use serde::de::IgnoredAny;
use tempfile::NamedTempFile;

use super::{Header, MAX_LINE_BYTES};
use crate::error::WriteError;
use crate::frames::{Exit, Frame, Stream};

/// How many bytes of frames are gathered before they are written to the file: few
/// large writes rather than many small ones.
const BUFFER: usize = 1 << 20;

/// Room in a buffer past [`BUFFER`] for the frame that fills it: a buffer grows only
/// for a frame longer than this.
const SLACK: usize = 64 << 10;

/// Writes a cassette frame by frame; [`Writer::finish`] makes it appear.
///
/// Frames are encoded into a buffer, and full buffers are written to the file. A
/// cassette larger than one buffer is written by a thread of its own, so that the
/// next frames are encoded while the kernel copies the last ones: at most two full
/// buffers wait for it.
#[derive(Debug)]
pub struct Writer {
    path: PathBuf,
    sink: Sink,
    /// Frames encoded and not yet written to the file: up to [`BUFFER`] bytes, and one
    /// frame more.
    buffer: Vec<u8>,
}

/// Where full buffers go.
#[derive(Debug)]
enum Sink {
    /// The file itself, until the first buffer is full.
    File(Temporary),
    /// The thread that writes to the file.
    Thread(Spiller),
    /// Neither: the writer finished, or failed.
    Gone,
}

/// The thread that writes full buffers to the file, and gives them back.
#[derive(Debug)]
struct Spiller {
    full: SyncSender<Vec<u8>>,
    empty: Receiver<Vec<u8>>,
    thread: JoinHandle<std::io::Result<Temporary>>,
}

impl Spiller {
    fn start(mut file: Temporary) -> std::io::Result<Spiller> {
        let (full, full_rx) = std::sync::mpsc::sync_channel::<Vec<u8>>(1);
        let (empty_tx, empty) = std::sync::mpsc::channel();
        let thread = std::thread::Builder::new()
            .name("cassette writer".into())
            .spawn(move || {
                for mut buffer in full_rx {
                    file.write_all(&buffer)?;
                    buffer.clear();
                    // A long line made the buffer grow: that memory goes back.
                    buffer.shrink_to(BUFFER + SLACK);
                    let _ = empty_tx.send(buffer);
                }
                Ok(file)
            })?;
        Ok(Spiller { full, empty, thread })
    }

    /// Waits for the thread to write what it was given, and takes the file back.
    fn stop(self) -> std::io::Result<Temporary> {
        drop(self.full);
        self.thread
            .join()
            .unwrap_or_else(|_| Err(std::io::Error::other("the cassette's writer thread panicked")))
    }
}

/// The start of a writer's temporary file's name; the writer's process id follows.
const TEMPORARY_PREFIX: &str = ".mock-agent-";

/// The end of a writer's temporary file's name.
const TEMPORARY_SUFFIX: &str = ".cassette.tmp";

/// The temporary files in `dir` left by writers that no longer run: partial
/// recordings of killed recorders (their process id is in the name, and no process
/// has it now). A file whose writer may still run is not one of them.
pub fn stale_temporaries(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut stale: Vec<PathBuf> = entries
        .filter_map(|e| e.ok())
        .filter(|e| {
            let name = e.file_name();
            let Some(pid) = name
                .to_str()
                .and_then(|n| n.strip_prefix(TEMPORARY_PREFIX))
                .filter(|n| n.ends_with(TEMPORARY_SUFFIX))
                .and_then(|n| n.split('-').next())
                .and_then(|pid| pid.parse::<i32>().ok())
                .filter(|pid| *pid > 0)
            else {
                return false;
            };
            let gone = nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), None)
                == Err(nix::errno::Errno::ESRCH);
            gone && pid != std::process::id() as i32
        })
        .map(|e| e.path())
        .collect();
    stale.sort();
    stale
}

impl Writer {
    /// Starts a cassette at `path` with this header. The file appears only on
    /// [`Writer::finish`].
    pub fn create(path: &Path, header: &Header) -> Result<Self, WriteError> {
        let io = |source| WriteError::Io {
            path: path.to_owned(),
            source,
        };
        let dir = match path.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir,
            _ => Path::new("."),
        };
        for stale in stale_temporaries(dir) {
            // Best effort: another writer may remove it first.
            let _ = std::fs::remove_file(stale);
        }
        let file = Temporary::create(dir).map_err(io)?;
        let mut writer = Writer {
            path: path.to_owned(),
            sink: Sink::File(file),
            buffer: Vec::with_capacity(BUFFER + SLACK),
        };
        serde_json::to_writer(&mut writer.buffer, header).map_err(|e| io(e.into()))?;
        writer.buffer.push(b'\n');
        Ok(writer)
    }

    /// Appends one frame.
    pub fn write(&mut self, frame: &Frame) -> Result<(), WriteError> {
        let start = self.buffer.len();
        encode_frame(frame, &mut self.buffer);
        let stream = match frame {
            Frame::Line(line) => line.stream,
            _ => Stream::Stdout,
        };
        self.within_limit(start, stream)?;
        self.spill()
    }

    /// Appends the frame of one line, as [`Writer::write`] does with a
    /// [`Frame::Line`], without making one: `bytes` (without the newline) were written
    /// on `stream` at `at`, and ended with a newline or not.
    pub fn write_line(
        &mut self,
        at: Duration,
        stream: Stream,
        bytes: &[u8],
        newline: bool,
    ) -> Result<(), WriteError> {
        let payload = Payload::of(bytes);
        // A line whose payload alone is past the limit is refused before it is
        // encoded: escaped, it could take six times its size here first.
        if bytes.len() > MAX_LINE_BYTES / 6 && payload.encoded_len() > MAX_LINE_BYTES {
            return Err(self.too_long(stream));
        }
        let start = self.buffer.len();
        encode_payload(at, stream, payload, newline, &mut self.buffer);
        self.within_limit(start, stream)?;
        self.spill()
    }

    /// Takes back the frame encoded from `start` when its line is longer than
    /// [`MAX_LINE_BYTES`]: no reader would accept the cassette.
    fn within_limit(&mut self, start: usize, stream: Stream) -> Result<(), WriteError> {
        // The frame's line, without its newline, as a reader measures it.
        if self.buffer.len() - start <= MAX_LINE_BYTES + 1 {
            return Ok(());
        }
        self.buffer.truncate(start);
        self.buffer.shrink_to(BUFFER + SLACK);
        Err(self.too_long(stream))
    }

    fn too_long(&self, stream: Stream) -> WriteError {
        line_too_long(&self.path, stream)
    }

    /// Hands the buffer to the writer thread once it holds [`BUFFER`] bytes.
    fn spill(&mut self) -> Result<(), WriteError> {
        if self.buffer.len() < BUFFER {
            return Ok(());
        }
        if let Sink::File(_) = self.sink {
            if let Sink::File(file) = std::mem::replace(&mut self.sink, Sink::Gone) {
                self.sink = Sink::Thread(Spiller::start(file).map_err(|e| self.error(e))?);
            }
        }
        let Sink::Thread(spiller) = &mut self.sink else {
            return Err(self.error(failed_before()));
        };
        let next = spiller
            .empty
            .try_recv()
            .unwrap_or_else(|_| Vec::with_capacity(BUFFER + SLACK));
        let full = std::mem::replace(&mut self.buffer, next);
        if spiller.full.send(full).is_err() {
            // The thread stopped on an error: that error.
            if let Sink::Thread(spiller) = std::mem::replace(&mut self.sink, Sink::Gone) {
                let source = spiller.stop().err().unwrap_or_else(failed_before);
                return Err(self.error(source));
            }
        }
        Ok(())
    }

    fn error(&self, source: std::io::Error) -> WriteError {
        WriteError::Io {
            path: self.path.clone(),
            source,
        }
    }

    /// Writes what is left and links or renames the cassette into place (without a
    /// sync: see the module's documentation).
    pub fn finish(mut self) -> Result<PathBuf, WriteError> {
        let mut file = match std::mem::replace(&mut self.sink, Sink::Gone) {
            Sink::File(file) => file,
            Sink::Thread(spiller) => spiller.stop().map_err(|e| self.error(e))?,
            Sink::Gone => return Err(self.error(failed_before())),
        };
        file.write_all(&self.buffer).map_err(|e| self.error(e))?;
        file.persist(&self.path).map_err(|e| self.error(e))?;
        Ok(self.path.clone())
    }
}

/// A writer's file until it is complete: unnamed where the system has unnamed files,
/// else named beside the cassette (see the module's documentation).
#[derive(Debug)]
enum Temporary {
    /// An unnamed file (`O_TMPFILE`) in the cassette's folder `dir`.
    Unnamed { file: File, dir: PathBuf },
    /// `.mock-agent-PID-XXXXXX.cassette.tmp` beside the cassette.
    Named(NamedTempFile),
}

impl Temporary {
    /// A temporary file in `dir`: unnamed if it can be, else named.
    fn create(dir: &Path) -> std::io::Result<Temporary> {
        #[cfg(target_os = "linux")]
        if let Some(file) = unnamed(dir)? {
            return Ok(Temporary::Unnamed {
                file,
                dir: dir.to_owned(),
            });
        }
        named(dir).map(Temporary::Named)
    }

    /// Makes the file appear at `path`, replacing what was there.
    fn persist(self, path: &Path) -> std::io::Result<()> {
        match self {
            Temporary::Named(file) => file.persist(path).map(drop).map_err(|e| e.error),
            Temporary::Unnamed { mut file, dir } => {
                // Linked under a fresh name, then renamed over `path`: a link cannot
                // replace a file.
                let proc = PathBuf::from(format!(
                    "/proc/self/fd/{}",
                    std::os::fd::AsRawFd::as_raw_fd(&file)
                ));
                let linked = tempfile::Builder::new()
                    .prefix(&format!("{TEMPORARY_PREFIX}{}-", std::process::id()))
                    .suffix(TEMPORARY_SUFFIX)
                    .make_in(&dir, |name| {
                        nix::unistd::linkat(
                            nix::fcntl::AT_FDCWD,
                            proc.as_path(),
                            nix::fcntl::AT_FDCWD,
                            name,
                            nix::fcntl::AtFlags::AT_SYMLINK_FOLLOW,
                        )
                        .map_err(std::io::Error::from)
                    });
                match linked {
                    Ok(linked) => linked.persist(path).map(drop).map_err(|e| e.error),
                    // No `/proc`, say: the bytes are copied to a named file.
                    Err(_) => {
                        let mut copy = named(&dir)?;
                        file.rewind()?;
                        std::io::copy(&mut file, &mut copy)?;
                        copy.persist(path).map(drop).map_err(|e| e.error)
                    }
                }
            }
        }
    }
}

impl Write for Temporary {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        match self {
            Temporary::Unnamed { file, .. } => file.write(bytes),
            Temporary::Named(file) => file.write(bytes),
        }
    }

    fn write_all(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        match self {
            Temporary::Unnamed { file, .. } => file.write_all(bytes),
            Temporary::Named(file) => file.write_all(bytes),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Temporary::Unnamed { file, .. } => file.flush(),
            Temporary::Named(file) => file.flush(),
        }
    }
}

/// A named temporary file in `dir`, `.mock-agent-PID-XXXXXX.cassette.tmp`.
fn named(dir: &Path) -> std::io::Result<NamedTempFile> {
    tempfile::Builder::new()
        .prefix(&format!("{TEMPORARY_PREFIX}{}-", std::process::id()))
        .suffix(TEMPORARY_SUFFIX)
        .tempfile_in(dir)
}

/// An unnamed file in `dir` (`O_TMPFILE`, mode 0600 as a named one's); `None` where
/// the kernel or the file system has none, or `/proc` is missing (it links the file
/// into place).
#[cfg(target_os = "linux")]
fn unnamed(dir: &Path) -> std::io::Result<Option<File>> {
    use nix::errno::Errno;
    use nix::fcntl::OFlag;
    if !Path::new("/proc/self/fd").is_dir() {
        return Ok(None);
    }
    let flags = OFlag::O_TMPFILE | OFlag::O_RDWR | OFlag::O_CLOEXEC;
    match nix::fcntl::open(dir, flags, nix::sys::stat::Mode::from_bits_truncate(0o600)) {
        Ok(fd) => Ok(Some(File::from(fd))),
        // No unnamed files here (an old kernel opens the folder itself).
        Err(Errno::EOPNOTSUPP | Errno::EISDIR | Errno::EINVAL | Errno::ENOSYS) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// The error of a writer used again after it failed.
fn failed_before() -> std::io::Error {
    std::io::Error::other("an earlier write failed")
}

impl Drop for Writer {
    /// A writer dropped unfinished leaves nothing: its thread is done with the
    /// temporary file before the file is removed.
    fn drop(&mut self) {
        if let Sink::Thread(spiller) = std::mem::replace(&mut self.sink, Sink::Gone) {
            let _ = spiller.stop();
        }
    }
}

/// The error of a line of `stream` longer than a line of the cassette at `path`
/// may hold ([`MAX_LINE_BYTES`]).
pub fn line_too_long(path: &Path, stream: Stream) -> WriteError {
    WriteError::LineTooLong {
        path: path.to_owned(),
        stream: stream.name(),
        limit: MAX_LINE_BYTES,
    }
}

/// Appends the cassette line of one frame, with its newline, to `out`.
pub fn encode_frame(frame: &Frame, out: &mut Vec<u8>) {
    if let Frame::Line(line) = frame {
        return encode_line(line.at, line.stream, &line.bytes, line.newline, out);
    }
    out.extend_from_slice(b"{\"t\":");
    write_millis(frame.at(), out);
    match frame {
        Frame::Line(_) => {}
        Frame::Stall { duration, .. } => {
            push_key(out, "stall_ms");
            match duration {
                Some(d) => write_millis(*d, out),
                None => out.extend_from_slice(b"null"),
            }
        }
        Frame::CloseStdout { .. } => {
            push_key(out, "close");
            out.extend_from_slice(b"\"stdout\"");
        }
        Frame::End(end) => match end.exit {
            Exit::Code(code) => {
                push_key(out, "exit");
                out.extend_from_slice(itoa::Buffer::new().format(code).as_bytes());
            }
            Exit::Signal(signal) => {
                push_key(out, "signal");
                // A signal with no name (a real-time one) is written as its number.
                if signal.is_named() {
                    out.push(b'"');
                    out.extend_from_slice(signal.name().as_bytes());
                    out.push(b'"');
                } else {
                    out.extend_from_slice(itoa::Buffer::new().format(signal.number()).as_bytes());
                }
            }
        },
    }
    out.extend_from_slice(b"}\n");
}

/// Appends the cassette line of a line frame: an embedded object, a string, or base64.
fn encode_line(at: Duration, stream: Stream, bytes: &[u8], newline: bool, out: &mut Vec<u8>) {
    encode_payload(at, stream, Payload::of(bytes), newline, out);
}

/// How a line is kept in its frame.
#[derive(Clone, Copy)]
enum Payload<'a> {
    /// A JSON object, embedded as it is.
    Object(&'a [u8]),
    /// Other UTF-8 text, as a JSON string.
    Text(&'a str),
    /// Bytes that are not UTF-8, in base64.
    Binary(&'a [u8]),
}

impl<'a> Payload<'a> {
    fn of(bytes: &'a [u8]) -> Payload<'a> {
        match simdutf8::basic::from_utf8(bytes) {
            Ok(text) if is_embeddable_object(text) => Payload::Object(bytes),
            Ok(text) => Payload::Text(text),
            Err(_) => Payload::Binary(bytes),
        }
    }

    /// Its length once encoded, quotes included.
    fn encoded_len(self) -> usize {
        match self {
            Payload::Object(bytes) => bytes.len(),
            // As serde_json escapes a string.
            Payload::Text(text) => {
                let escapes: usize = text
                    .bytes()
                    .map(|b| match b {
                        b'"' | b'\\' | 0x08 | b'\t' | b'\n' | 0x0c | b'\r' => 1,
                        0..0x20 => 5,
                        _ => 0,
                    })
                    .sum();
                text.len() + escapes + 2
            }
            Payload::Binary(bytes) => bytes.len().div_ceil(3) * 4 + 2,
        }
    }
}

fn encode_payload(at: Duration, stream: Stream, payload: Payload<'_>, newline: bool, out: &mut Vec<u8>) {
    out.extend_from_slice(b"{\"t\":");
    write_millis(at, out);
    let key = match stream {
        Stream::Stdout => "out",
        Stream::Stderr => "err",
        Stream::Stdin => "in",
    };
    match payload {
        Payload::Object(bytes) => {
            push_key(out, key);
            out.extend_from_slice(bytes);
        }
        Payload::Text(text) => {
            push_key(out, key);
            // Writing a string to a Vec cannot fail.
            let _ = serde_json::to_writer(&mut *out, text);
        }
        Payload::Binary(bytes) => {
            push_key(out, &format!("{key}_b64"));
            out.push(b'"');
            out.extend_from_slice(base64::engine::general_purpose::STANDARD.encode(bytes).as_bytes());
            out.push(b'"');
        }
    }
    if !newline {
        out.extend_from_slice(b",\"nl\":false");
    }
    out.extend_from_slice(b"}\n");
}

fn push_key(out: &mut Vec<u8>, key: &str) {
    out.extend_from_slice(b",\"");
    out.extend_from_slice(key.as_bytes());
    out.extend_from_slice(b"\":");
}

/// Milliseconds, with microsecond precision and no trailing `.0`.
fn write_millis(at: Duration, out: &mut Vec<u8>) {
    let micros = at.as_micros();
    let millis = micros / 1000;
    let mut digits = itoa::Buffer::new();
    out.extend_from_slice(
        match u64::try_from(millis) {
            Ok(millis) => digits.format(millis),
            Err(_) => digits.format(millis),
        }
        .as_bytes(),
    );
    // Below 1000, so a u16.
    let frac = (micros % 1000) as u16;
    if frac != 0 {
        let fraction = [
            b'.',
            b'0' + (frac / 100) as u8,
            b'0' + (frac / 10 % 10) as u8,
            b'0' + (frac % 10) as u8,
        ];
        // Not all zeros, so the loop stops at a digit.
        let mut len = fraction.len();
        while len > 2 && fraction[len - 1] == b'0' {
            len -= 1;
        }
        out.extend_from_slice(&fraction[..len]);
    }
}

/// Whether a line of text can be stored as an embedded object and read back byte
/// for byte: one JSON object, nothing around it.
fn is_embeddable_object(text: &str) -> bool {
    text.starts_with('{') && text.ends_with('}') && serde_json::from_str::<IgnoredAny>(text).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frames::{Ending, Line, Signal};

    fn encode(frame: Frame) -> String {
        let mut out = Vec::new();
        encode_frame(&frame, &mut out);
        String::from_utf8(out).expect("utf-8")
    }

    /// The names in `dir`, sorted.
    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .expect("lists")
            .flatten()
            .filter_map(|e| e.file_name().into_string().ok())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn a_temporary_file_appears_whole_over_what_was_there_and_leaves_nothing_else() {
        let dir = tempfile::tempdir().expect("temp dir");
        let target = dir.path().join("a.cassette");
        for kind in ["created", "named"] {
            std::fs::write(&target, "old").expect("writes");
            let file = if kind == "created" {
                Temporary::create(dir.path()).expect("creates")
            } else {
                Temporary::Named(named(dir.path()).expect("creates"))
            };
            if kind == "created" && cfg!(target_os = "linux") {
                assert!(matches!(file, Temporary::Unnamed { .. }), "unnamed on Linux");
                assert_eq!(names(dir.path()), ["a.cassette"], "no name while it is written");
            }
            let mut file = file;
            file.write_all(b"new ").expect("writes");
            file.write_all(kind.as_bytes()).expect("writes");
            file.persist(&target).expect("persists");
            assert_eq!(
                std::fs::read_to_string(&target).expect("reads"),
                format!("new {kind}")
            );
            assert_eq!(names(dir.path()), ["a.cassette"]);
        }
        // Dropped unfinished: nothing.
        drop(Temporary::create(dir.path()).expect("creates"));
        assert_eq!(names(dir.path()), ["a.cassette"]);
    }

    /// The length [`Payload::encoded_len`] says is the length written.
    #[test]
    fn payload_lengths_are_the_encoded_lengths() {
        let all_bytes: Vec<u8> = (0..=255).collect();
        let text: String = (0u8..0x80)
            .map(char::from)
            .chain("é\u{2028}\"\\".chars())
            .collect();
        for bytes in [
            &br#"{"type":"x","n":[1,2]}"#[..],
            text.as_bytes(),
            &all_bytes,
            b"",
            b"ab",
            b"abcd",
        ] {
            let payload = Payload::of(bytes);
            let mut out = Vec::new();
            encode_payload(Duration::ZERO, Stream::Stdout, payload, true, &mut out);
            let prefix = b"{\"t\":0,\"out\":".len() + usize::from(matches!(payload, Payload::Binary(_))) * 4;
            assert_eq!(out.len() - prefix - 2, payload.encoded_len(), "{bytes:?}");
        }
    }

    #[test]
    fn lines_are_embedded_as_objects_strings_or_base64() {
        let at = Duration::from_micros(12_345);
        assert_eq!(
            encode(Frame::Line(Line::stdout(at, r#"{"type":"x"}"#))),
            "{\"t\":12.345,\"out\":{\"type\":\"x\"}}\n"
        );
        assert_eq!(
            encode(Frame::Line(Line::stderr(Duration::from_millis(3), "oops \"x\""))),
            "{\"t\":3,\"err\":\"oops \\\"x\\\"\"}\n"
        );
        let mut cut = Line::stdout(Duration::ZERO, vec![0xff, b'{']);
        cut.newline = false;
        assert_eq!(
            encode(Frame::Line(cut)),
            "{\"t\":0,\"out_b64\":\"/3s=\",\"nl\":false}\n"
        );
        // An object with bytes that are not UTF-8 in a string is no JSON text: base64.
        let mut bytes = br#"{"text":""#.to_vec();
        bytes.extend([0xff, 0xfe]);
        bytes.extend(br#""}"#);
        assert!(encode(Frame::Line(Line::stdout(Duration::ZERO, bytes))).contains("\"out_b64\""));
        // Leading white space would be lost by an embedded object: stored as text.
        assert_eq!(
            encode(Frame::Line(Line::stdout(Duration::ZERO, " {}"))),
            "{\"t\":0,\"out\":\" {}\"}\n"
        );
        assert_eq!(
            encode(Frame::End(Ending {
                at: Duration::from_millis(1500),
                exit: Exit::Signal(Signal::Term)
            })),
            "{\"t\":1500,\"signal\":\"TERM\"}\n"
        );
        assert_eq!(
            encode(Frame::End(Ending {
                at: Duration::ZERO,
                exit: Exit::Signal(Signal::from_number(34).expect("a signal"))
            })),
            "{\"t\":0,\"signal\":34}\n"
        );
    }

    #[test]
    fn times_are_milliseconds_with_no_trailing_zeros() {
        for (micros, text) in [
            (0, "0"),
            (1, "0.001"),
            (10, "0.01"),
            (100, "0.1"),
            (1_500, "1.5"),
            (1_050, "1.05"),
            (1_005, "1.005"),
            (999_999, "999.999"),
            (1_000_000, "1000"),
            (u64::MAX, "18446744073709551.615"),
        ] {
            let mut out = Vec::new();
            write_millis(Duration::from_micros(micros), &mut out);
            assert_eq!(String::from_utf8_lossy(&out), text);
        }
        let mut out = Vec::new();
        write_millis(Duration::MAX, &mut out);
        let expected = format!("{}.999", Duration::MAX.as_micros() / 1000);
        assert_eq!(String::from_utf8_lossy(&out), expected);
    }

    #[test]
    fn a_writer_gathers_frames_and_writes_them_whole() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let path = dir.path().join("x.cassette");
        let mut writer = Writer::create(&path, &Header::new(Default::default())).expect("creates");
        // More than the buffer holds, in lines of every kind, and one line larger.
        let mut expected = Vec::new();
        serde_json::to_writer(&mut expected, &Header::new(Default::default())).expect("a header");
        expected.push(b'\n');
        let huge = format!("{{\"text\":\"{}\"}}", "x".repeat(3 * BUFFER));
        let event = format!(r#"{{"type":"{}"}}"#, crate::capture::ASSISTANT);
        let lines: [&[u8]; 4] = [event.as_bytes(), b"plain", b"\xff", huge.as_bytes()];
        for i in 0..20_000u64 {
            let line = if i % 997 == 0 {
                lines[3]
            } else {
                lines[(i % 3) as usize]
            };
            let at = Duration::from_micros(i * 7);
            writer.write_line(at, Stream::Stdout, line, true).expect("writes");
            encode_frame(&Frame::Line(Line::stdout(at, line)), &mut expected);
        }
        assert!(!path.exists(), "nothing under the name before finish");
        assert_eq!(writer.finish().expect("finishes"), path);
        assert_eq!(std::fs::read(&path).expect("reads"), expected);
    }
}
