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
use harness::dialects::claude::cassette as claude_cassette;
use harness::dialects::cursor_acp::wire::methods;
use harness::dialects::cursor_print::events::Extra;
use harness::frames::{Ending, Exit, Frame, Line, Stream};

use super::pump::{Event, Queue};
use super::stdin::Kept;
use super::{RecordError, Redactor};
use crate::args;

/// How many bytes of lines wait in memory at most for the header.
pub(super) const MAX_BACKLOG: usize = 16 << 20;

/// What the header of the cassette says, but stdin.
#[derive(Debug)]
pub(super) struct Invoked<'a> {
    /// The arguments, without the program.
    pub argv: &'a [String],
    /// What `--version` printed.
    pub cli_version: Option<String>,
    /// A recording of Claude Code with stream-json input ([`is_claude`]).
    pub claude: bool,
}

impl Invoked<'_> {
    /// The invocation, redacted, with what stdin gave when it is the prompt.
    fn invocation(&self, redactor: &Redactor, stdin: Option<&[u8]>) -> Invocation {
        if self.claude {
            return claude_cassette::header(Invocation {
                argv: self.argv.iter().map(|a| redactor.apply_str(a)).collect(),
                output_format: Some(harness::format::OutputFormat::StreamJson),
                cwd: std::env::current_dir()
                    .ok()
                    .map(|d| redactor.apply_str(&d.display().to_string())),
                cli_version: self.cli_version.clone(),
                ..Invocation::default()
            })
            .invocation;
        }
        let parsed = args::parse(self.argv).ok();
        let mut extra = Extra::new();
        if let Some(stdin) = stdin.filter(|s| !s.is_empty()) {
            extra.insert(
                "stdin".into(),
                serde_json::Value::String(String::from_utf8_lossy(&redactor.redact(stdin)).into_owned()),
            );
        }
        Invocation {
            argv: self.argv.iter().map(|a| redactor.apply_str(a)).collect(),
            prompt: parsed
                .as_ref()
                .and_then(args::AgentArgs::prompt)
                .map(|p| redactor.apply_str(&p)),
            output_format: parsed.as_ref().map(|a| a.output_format),
            stream_partial_output: parsed.as_ref().is_some_and(|a| a.stream_partial_output),
            cwd: std::env::current_dir()
                .ok()
                .map(|d| redactor.apply_str(&d.display().to_string())),
            acp: self.acp(),
            cli_version: self.cli_version.clone(),
            extra,
        }
    }

    /// Whether the prompt is in the arguments (so stdin is not the prompt).
    /// Whether the recorded command is server mode.
    fn acp(&self) -> bool {
        is_acp(self.argv)
    }

    fn prompt_in_argv(&self) -> bool {
        args::parse(self.argv)
            .ok()
            .as_ref()
            .and_then(args::AgentArgs::prompt)
            .is_some()
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
        if recorder.invoked.claude
            || recorder.invoked.prompt_in_argv()
            || !stdin_piped
            || recorder.invoked.acp()
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
        // (Claude Code's client lines are not JSON-RPC: no `authenticate` there.)
        let authenticate = (stream == Stream::Stdin && !self.invoked.claude)
            .then(|| credentials_out(bytes))
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
        self.writer = Some(create(self.out, invocation, self.redactor)?);
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

/// Whether `program ARGV` runs Claude Code with stream-json input, as the Agent SDKs
/// do: a program named `claude` (or `mock-agent claude`) given `--input-format
/// stream-json`. Its recording is a conversation, both ways.
pub(super) fn is_claude(program: &str, argv: &[String]) -> bool {
    let name = std::path::Path::new(program)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    let args = match argv.split_first() {
        _ if name == claude_cassette::DIALECT => argv,
        Some((first, rest)) if first == claude_cassette::DIALECT => rest,
        _ => return false,
    };
    args.iter()
        .position(|a| a == "--input-format")
        .and_then(|i| args.get(i + 1))
        .is_some_and(|f| f == "stream-json")
        || args.iter().any(|a| a == "--input-format=stream-json")
}

/// Whether these arguments run the CLI in server mode (`acp`).
pub(super) fn is_acp(argv: &[String]) -> bool {
    args::parse(argv).is_ok_and(|a| a.command == Some(args::Command::Acp))
}

/// A client's line that may carry credentials, made safe to keep: `Some` replaces it.
///
/// An `authenticate` request keeps its shape with every string of its `params` (an
/// object, an array or a string) replaced by the marker, but a `methodId` said once.
/// A line that could be one but cannot be read for sure (not UTF-8, not JSON, nested
/// deeper than the parser goes, a key said twice) is replaced whole by the marker:
/// what is not understood is not kept. A line that does not spell `authenticate`
/// (not even with JSON escapes) is kept as it is.
fn credentials_out(line: &[u8]) -> Option<Vec<u8>> {
    if memchr::memmem::find(line, methods::AUTHENTICATE.as_bytes()).is_none()
        && memchr::memmem::find(line, b"\\u").is_none()
    {
        return None;
    }
    let whole = || Some(super::MARKER.as_bytes().to_vec());
    // A key said twice is read one way here and maybe another by the agent.
    if harness::dialects::cursor_acp::rpc::Message::parse(line).is_none() {
        return whole();
    }
    let Ok(mut value) = serde_json::from_slice::<serde_json::Value>(line) else {
        return whole();
    };
    if value.get("method").and_then(serde_json::Value::as_str) != Some(methods::AUTHENTICATE) {
        return None;
    }
    fn blank(value: &mut serde_json::Value) {
        match value {
            serde_json::Value::String(s) => *s = super::MARKER.to_owned(),
            serde_json::Value::Array(items) => items.iter_mut().for_each(blank),
            serde_json::Value::Object(fields) => fields.values_mut().for_each(blank),
            _ => {}
        }
    }
    let said_once = memchr::memmem::find_iter(line, b"methodId").count() == 1;
    match value.get_mut("params") {
        Some(serde_json::Value::Object(fields)) => {
            for (key, field) in fields.iter_mut() {
                if key != "methodId" || !said_once {
                    blank(field);
                }
            }
        }
        Some(params) => blank(params),
        None => {}
    }
    serde_json::to_vec(&value).ok().or_else(whole)
}

/// Starts the cassette, unless a secret is left in its header.
fn create(path: &Path, invocation: Invocation, redactor: &Redactor) -> Result<Writer, RecordError> {
    let header = if invocation.acp {
        Header::acp(invocation)
    } else if invocation.extra.contains_key(claude_cassette::DIALECT_KEY) {
        claude_cassette::header(invocation)
    } else {
        Header::new(invocation)
    };
    let text = serde_json::to_string(&header).unwrap_or_default();
    if let Some(hint) = redactor.leak(text.as_bytes()) {
        return Err(RecordError::SecretLeft {
            place: "invocation",
            hint,
        });
    }
    Ok(Writer::create(path, &header)?)
}

#[cfg(test)]
mod tests {
    use super::is_claude;

    fn argv(args: &[&str]) -> Vec<String> {
        args.iter().map(|a| (*a).to_owned()).collect()
    }

    #[test]
    fn claude_with_stream_json_input_is_a_conversation() {
        let sdk = argv(&[
            "--output-format",
            "stream-json",
            "--verbose",
            "--input-format",
            "stream-json",
        ]);
        assert!(is_claude("claude", &sdk));
        assert!(is_claude("/opt/bin/claude", &sdk));
        assert!(is_claude(
            "claude",
            &argv(&["--output-format=stream-json", "--input-format=stream-json"])
        ));
        let mut via_mock = argv(&["claude"]);
        via_mock.extend(sdk.iter().cloned());
        assert!(is_claude("mock-agent", &via_mock));
        // Print mode, another program, or no stream-json input: not a conversation.
        assert!(!is_claude(
            "claude",
            &argv(&["-p", "hi", "--output-format", "stream-json"])
        ));
        assert!(!is_claude("cursor-agent", &sdk));
        assert!(!is_claude("claude", &argv(&["--input-format", "text"])));
    }
}
