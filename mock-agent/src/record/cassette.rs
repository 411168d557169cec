//! Writing the cassette: the chunks the pumps queue are cut into lines, each
//! stamped with the time of the chunk that ended it, redacted, checked for secrets
//! left, and written, on the recorder's own thread, off the caller's path.
//!
//! The header needs the prompt; when it comes on stdin, it is known once stdin has
//! ended (or given all that is kept of it). Until then lines wait in memory, at most
//! [`MAX_BACKLOG`] bytes of them: past that the header is written with what stdin gave
//! so far.

use std::path::Path;
use std::sync::mpsc::Receiver;
use std::time::Duration;

use harness::cassette::{Header, Invocation, Writer, MAX_LINE_BYTES};
use harness::frames::{Ending, Exit, Frame, Line, Stream};

use super::pump::{Event, Queue};
use super::stdin::Kept;
use super::{RecordError, Redactor};

/// How many bytes of lines wait in memory at most for the header.
pub(super) const MAX_BACKLOG: usize = 16 << 20;

/// What the recorder needs to know of the CLI it records, which only the CLI's
/// dialect knows: given to [`record`](super::record) by its caller (`mock-agent
/// record` finds it among the CLIs by the command; the shim knows its own).
pub trait Recorded: Sync {
    /// Whether `program ARGV` runs the CLI as a conversation: both directions are
    /// recorded as they pass (server mode, a stream-json client).
    fn converses(&self, program: &str, argv: &[String]) -> bool;

    /// Whether `program ARGV` runs this CLI in a way only its dialect records (its
    /// header, its prompt): a conversation, or a one-way run under its own header.
    /// `mock-agent record` takes the first CLI after the default that says so.
    fn records(&self, program: &str, argv: &[String]) -> bool {
        self.converses(program, argv)
    }

    /// Whether the prompt is in `argv` (then stdin is not the prompt, and the header
    /// is written at once).
    fn prompt_in_argv(&self, argv: &[String]) -> bool {
        let _ = argv;
        false
    }

    /// The invocation of the header, its text passed through `redact`: the
    /// arguments, and what stdin gave when it is the prompt.
    fn invocation(&self, argv: &[String], stdin: Option<&[u8]>, redact: Redact<'_>) -> Invocation;

    /// The environment variables that change what the CLI writes: those set for the
    /// recorded run are kept in the header ([`Invocation::env`]), so that a replay can
    /// be driven as the run was.
    fn env(&self) -> &'static [&'static str] {
        &[]
    }

    /// The header of a cassette of `invocation`.
    fn header(&self, invocation: Invocation) -> Header {
        Header::new(invocation)
    }

    /// A client's line that may carry credentials, made safe to keep (`Some`: the
    /// line to keep instead), `marker` standing for what is taken out.
    fn credentials_out(&self, line: &[u8], marker: &str) -> Option<Vec<u8>> {
        let _ = (line, marker);
        None
    }
}

/// What takes secrets out of a text of the header ([`Recorded::invocation`]).
pub type Redact<'a> = &'a dyn Fn(&[u8]) -> Vec<u8>;

/// `bytes` through `redact`, as text.
pub fn redacted(redact: Redact<'_>, bytes: &[u8]) -> String {
    String::from_utf8_lossy(&redact(bytes)).into_owned()
}

/// The arguments of a CLI when `program ARGV` runs it: all of `argv` when the
/// program's file name is the CLI's (`is_cli`), what follows `command` when `argv`
/// begins with it (`mock-agent COMMAND ...`); `None` when it runs no such CLI.
pub fn cli_args<'a>(
    program: &str,
    argv: &'a [String],
    is_cli: impl Fn(&str) -> bool,
    command: &str,
) -> Option<&'a [String]> {
    let name = Path::new(program)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    match argv.split_first() {
        _ if is_cli(name) => Some(argv),
        Some((first, rest)) if first == command => Some(rest),
        _ => None,
    }
}

/// `argv` without its first argument when that is `command` (`mock-agent COMMAND
/// ...`): the CLI's own arguments.
pub fn after_command<'a>(argv: &'a [String], command: &str) -> &'a [String] {
    match argv.split_first() {
        Some((first, rest)) if first == command => rest,
        _ => argv,
    }
}

/// Owned arguments, as tests write them.
#[cfg(test)]
pub(crate) fn argv(args: &[&str]) -> Vec<String> {
    args.iter().map(|a| (*a).to_owned()).collect()
}

/// What the header of the cassette says, but stdin.
pub(super) struct Invoked<'a> {
    /// The arguments, without the program.
    pub argv: &'a [String],
    /// What `--version` printed.
    pub cli_version: Option<String>,
    /// What only the CLI's dialect knows.
    pub recorded: &'a dyn Recorded,
    /// Whether it is recorded as a conversation.
    pub converses: bool,
}

impl Invoked<'_> {
    /// The invocation, redacted, with what stdin gave when it is the prompt.
    fn invocation(&self, redactor: &Redactor, stdin: Option<&[u8]>) -> Invocation {
        let mut invocation = self
            .recorded
            .invocation(self.argv, stdin, &|bytes| redactor.redact(bytes).into_owned());
        invocation.cwd = std::env::current_dir()
            .ok()
            .map(|d| redactor.apply_str(&d.display().to_string()));
        invocation.cli_version = self.cli_version.clone();
        for name in self.recorded.env() {
            if let Some(value) = std::env::var_os(name) {
                let value = redactor.apply_str(&value.to_string_lossy());
                invocation.env.insert((*name).to_owned(), value);
            }
        }
        invocation
    }
}

/// The cassette being written.
pub(super) struct Recorder<'a> {
    out: &'a Path,
    redactor: &'a Redactor,
    invoked: Invoked<'a>,
    stdin: Kept,
    writer: Option<Writer>,
    /// Lines waiting for the header, and their size.
    backlog: Vec<Line>,
    backlog_bytes: usize,
    /// The part of the last line of each stream that has no newline yet.
    pending: [Vec<u8>; 3],
    /// The time of the frame written last: the two streams are read by two threads,
    /// and a frame is never written before the one written last.
    last: Duration,
}

impl<'a> Recorder<'a> {
    /// A cassette for `out`; the header is written at once when stdin cannot be the
    /// prompt (the arguments have one, or stdin is not a pipe).
    pub(super) fn new(
        out: &'a Path,
        redactor: &'a Redactor,
        invoked: Invoked<'a>,
        stdin: Kept,
        stdin_piped: bool,
    ) -> Result<Self, RecordError> {
        let mut recorder = Recorder {
            out,
            redactor,
            invoked,
            stdin,
            writer: None,
            backlog: Vec::new(),
            backlog_bytes: 0,
            pending: [Vec::new(), Vec::new(), Vec::new()],
            last: Duration::ZERO,
        };
        if recorder.invoked.converses
            || recorder.invoked.recorded.prompt_in_argv(recorder.invoked.argv)
            || !stdin_piped
        {
            recorder.start(None)?;
        }
        Ok(recorder)
    }

    /// Writes what the pumps queue until the command's stdout and stderr are closed
    /// (in a conversation, what the client sent after that is not the recording's:
    /// the agent was gone). On an error the queue is dropped, so that the pumps go on
    /// passing the output through.
    pub(super) fn run(&mut self, events: Receiver<Event>, queue: &Queue) -> Result<(), RecordError> {
        let mut open = 2;
        while open > 0 {
            match events.recv() {
                Ok(Event::Chunk {
                    stream,
                    at,
                    buffer,
                    len,
                }) => {
                    let written = self.chunk(stream, at, &buffer[..len]);
                    queue.recycle(buffer);
                    written?;
                }
                Ok(Event::Closed { stream, at }) => {
                    let pending = std::mem::take(&mut self.pending[index(stream)]);
                    if !pending.is_empty() {
                        self.line(stream, at, &pending, false)?;
                    }
                    if stream != Stream::Stdin {
                        open -= 1;
                    }
                }
                Err(_) => break,
            }
        }
        Ok(())
    }

    /// Writes the end line and renames the cassette into place.
    pub(super) fn finish(mut self, at: Duration, exit: Exit) -> Result<(), RecordError> {
        if self.writer.is_none() {
            // What stdin gave so far (a caller may keep it open past the end).
            self.start(Some(self.stdin.bytes()))?;
        }
        let at = at.max(self.last);
        if let Some(mut writer) = self.writer.take() {
            writer.write(&Frame::End(Ending { at, exit }))?;
            writer.finish()?;
        }
        Ok(())
    }

    /// Cuts a chunk into lines; the last part waits for its newline.
    fn chunk(&mut self, stream: Stream, at: Duration, chunk: &[u8]) -> Result<(), RecordError> {
        if self.writer.is_none() && self.stdin.is_final() {
            // The prompt came on stdin, and all of it that is kept is there.
            self.start(Some(self.stdin.bytes()))?;
        }
        let mut rest = chunk;
        while let Some(i) = memchr::memchr(b'\n', rest) {
            let pending = &mut self.pending[index(stream)];
            if pending.is_empty() {
                self.line(stream, at, &rest[..i], true)?;
            } else {
                pending.extend_from_slice(&rest[..i]);
                let whole = std::mem::take(pending);
                self.line(stream, at, &whole, true)?;
            }
            rest = &rest[i + 1..];
        }
        let pending = &mut self.pending[index(stream)];
        pending.extend_from_slice(rest);
        // A line a cassette cannot hold is not held here either.
        if pending.len() > MAX_LINE_BYTES {
            *pending = Vec::new();
            return Err(self.too_long(stream));
        }
        Ok(())
    }

    /// Writes one line, or keeps it until the header is known.
    fn line(&mut self, stream: Stream, at: Duration, bytes: &[u8], newline: bool) -> Result<(), RecordError> {
        if bytes.len() > MAX_LINE_BYTES {
            return Err(self.too_long(stream));
        }
        if self.writer.is_none() {
            self.backlog_bytes += bytes.len();
            self.backlog.push(Line {
                at,
                stream,
                bytes: bytes.to_vec(),
                newline,
            });
            if self.backlog_bytes > MAX_BACKLOG {
                self.start(Some(self.stdin.bytes()))?;
            }
            return Ok(());
        }
        self.last = self.last.max(at);
        let authenticate = (stream == Stream::Stdin)
            .then(|| self.invoked.recorded.credentials_out(bytes, super::MARKER))
            .flatten();
        let bytes = authenticate.as_deref().unwrap_or(bytes);
        let redacted = self.redactor.redact(bytes);
        if let Some(hint) = self.redactor.leak(&redacted) {
            return Err(RecordError::SecretLeft {
                place: stream.name(),
                hint,
            });
        }
        if let Some(writer) = self.writer.as_mut() {
            writer.write_line(self.last, stream, &redacted, newline)?;
        }
        Ok(())
    }

    /// The error of a line longer than a cassette holds, found before encoding it
    /// (its frame would be longer still).
    fn too_long(&self, stream: Stream) -> RecordError {
        RecordError::Write(harness::cassette::line_too_long(self.out, stream))
    }

    /// Writes the header, then the lines that waited for it.
    fn start(&mut self, stdin: Option<Vec<u8>>) -> Result<(), RecordError> {
        let invocation = self.invoked.invocation(self.redactor, stdin.as_deref());
        self.writer = Some(create(
            self.out,
            self.invoked.recorded.header(invocation),
            self.redactor,
        )?);
        self.backlog_bytes = 0;
        for line in std::mem::take(&mut self.backlog) {
            self.line(line.stream, line.at, &line.bytes, line.newline)?;
        }
        Ok(())
    }
}

/// Fails, before the command runs, when the cassette's folder is not there: a run
/// that cannot be recorded is better not started.
pub(super) fn check_folder(out: &Path) -> Result<(), RecordError> {
    let folder = match out.parent() {
        Some(folder) if !folder.as_os_str().is_empty() => folder,
        _ => Path::new("."),
    };
    match std::fs::metadata(folder) {
        Ok(meta) if meta.is_dir() => Ok(()),
        Ok(_) => Err(io_error(out, std::io::ErrorKind::NotADirectory.into())),
        Err(source) => Err(io_error(out, source)),
    }
}

fn io_error(out: &Path, source: std::io::Error) -> RecordError {
    RecordError::Write(harness::error::WriteError::Io {
        path: out.to_owned(),
        source,
    })
}

fn index(stream: Stream) -> usize {
    match stream {
        Stream::Stdout => 0,
        Stream::Stderr => 1,
        Stream::Stdin => 2,
    }
}

/// Starts the cassette, unless a secret is left in its header.
fn create(path: &Path, header: Header, redactor: &Redactor) -> Result<Writer, RecordError> {
    let text = serde_json::to_string(&header).unwrap_or_default();
    if let Some(hint) = redactor.leak(text.as_bytes()) {
        return Err(RecordError::SecretLeft {
            place: "invocation",
            hint,
        });
    }
    Ok(Writer::create(path, &header)?)
}
