//! A recording of `codex app-server` (a cassette whose invocation says
//! `"dialect":"codex-app-server"`): both directions of the conversation, the client's
//! lines on stdin. It is replayed as the session it tells (each turn's completed
//! items, how the turn ended, its usage), played again by the player to whatever the
//! client sends: ids, times and the client's own choices (approvals) are the live
//! run's, the agent's items and endings the recording's.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;

use super::expect::conversation;
use crate::cassette::{Header, Invocation, Writer};
use crate::dialects::codex::faults::Out;
use crate::dialects::codex::recording::Recording;
use crate::dialects::codex::session::{
    Change, Command, End, Failure, FileChange, Item, Session, Turn, Usage,
};
use crate::dialects::codex::wire::rpc::{items, notifications, status};
use crate::dialects::codex::wire::VERSION_LINE;
use crate::error::{CassetteError, WriteError};
use crate::frames::{Ending, Exit, Frame, Line, Stream};

/// The dialect's name, as cassettes and `--dialect` spell it.
pub const DIALECT: &str = "codex-app-server";

/// The argv the Python SDK gives `codex`.
pub fn sdk_argv() -> Vec<String> {
    ["app-server", "--listen", "stdio://"].map(str::to_owned).to_vec()
}

/// A cassette header for a recording of `codex app-server` made with `invocation`.
pub fn header(invocation: Invocation) -> Header {
    Header::of_dialect(invocation, DIALECT)
}

/// Whether a cassette's header says it is a recording of `codex app-server`.
pub fn is_app_server(header: &Header) -> bool {
    header.dialect() == Some(DIALECT)
}

/// The session a Codex cassette tells: a recording of `codex app-server` read by its
/// notifications, one of `codex exec --json` by its events.
pub fn open_session(path: &Path) -> Result<Session, CassetteError> {
    let reader = crate::cassette::open(path)?;
    let app_server = reader.header().is_some_and(is_app_server);
    drop(reader);
    if !app_server {
        return Ok(Recording::open(path)?.session());
    }
    // The server's lines read as they come, not held: only what the session keeps
    // stays in memory.
    let mut told = Told::default();
    for frame in crate::cassette::open(path)? {
        if let Frame::Line(line) = frame? {
            if line.stream == Stream::Stdout {
                told.line(&line.bytes);
            }
        }
    }
    Ok(told.session())
}

/// The session the server's lines tell: one turn per `turn/started`.
pub fn session_of<'a>(lines: impl IntoIterator<Item = &'a [u8]>) -> Session {
    let mut told = Told::default();
    for line in lines {
        told.line(line);
    }
    told.session()
}

/// A session being told, line by line.
#[derive(Default)]
struct Told {
    turns: Vec<Turn>,
    turn: Option<Turn>,
}

/// Whether a server line may be one [`Told::line`] reads: it names one of the
/// notifications the session is told by, or holds an escape that may spell one
/// (`\u`, `\/`). Any other line (a delta, a started item, a response) is not parsed.
fn may_tell(line: &[u8]) -> bool {
    const TOLD: [&str; 4] = [
        notifications::TURN_STARTED,
        notifications::ITEM_COMPLETED,
        notifications::TOKEN_USAGE_UPDATED,
        notifications::TURN_COMPLETED,
    ];
    memchr::memmem::find(line, b"\\u").is_some()
        || memchr::memmem::find(line, b"\\/").is_some()
        || TOLD
            .iter()
            .any(|method| memchr::memmem::find(line, method.as_bytes()).is_some())
}

impl Told {
    fn line(&mut self, line: &[u8]) {
        if !may_tell(line) {
            return;
        }
        let Ok(value) = serde_json::from_slice::<Value>(line) else {
            return;
        };
        let (turns, turn) = (&mut self.turns, &mut self.turn);
        let params = &value["params"];
        match value.get("method").and_then(Value::as_str) {
            Some(notifications::TURN_STARTED) => {
                *turn = Some(Turn {
                    items: Vec::new(),
                    end: End::Completed,
                    usage: Usage::default(),
                });
            }
            Some(notifications::ITEM_COMPLETED) => {
                if let (Some(turn), Some(item)) = (turn.as_mut(), item(&params["item"])) {
                    turn.items.push(item);
                }
            }
            Some(notifications::TOKEN_USAGE_UPDATED) => {
                if let Some(turn) = turn.as_mut() {
                    // One a model call: the turn used them all.
                    turn.usage += usage_of(&params["tokenUsage"]["last"]);
                }
            }
            Some(notifications::TURN_COMPLETED) => {
                if let Some(mut done) = turn.take() {
                    if params.pointer("/turn/status").and_then(Value::as_str) == Some(status::FAILED) {
                        let message = params
                            .pointer("/turn/error/message")
                            .and_then(Value::as_str)
                            .unwrap_or_default()
                            .to_owned();
                        done.end = End::Failed(Failure::Other { message });
                    }
                    turns.push(done);
                }
            }
            _ => {}
        }
    }

    fn session(self) -> Session {
        let Told { mut turns, turn } = self;
        turns.extend(turn);
        if turns.is_empty() {
            turns.push(Turn {
                items: Vec::new(),
                end: End::Completed,
                usage: Usage::default(),
            });
        }
        Session { turns }
    }
}

fn usage_of(value: &Value) -> Usage {
    let key = |k: &str| value.get(k).and_then(Value::as_u64).unwrap_or_default();
    Usage {
        input_tokens: key("inputTokens"),
        cached_input_tokens: key("cachedInputTokens"),
        cache_write_input_tokens: key("cacheWriteInputTokens"),
        output_tokens: key("outputTokens"),
        reasoning_output_tokens: key("reasoningOutputTokens"),
    }
}

/// A completed v2 item as the session model holds it (`None`: the user's message, an
/// empty reasoning).
fn item(value: &Value) -> Option<Item> {
    let text = |k: &str| {
        value
            .get(k)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    Some(match value.get("type").and_then(Value::as_str)? {
        items::USER_MESSAGE => return None,
        items::AGENT_MESSAGE => Item::AgentMessage(text("text")),
        items::REASONING => {
            let summary: Vec<&str> = value["summary"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            if summary.is_empty() {
                return None;
            }
            Item::Reasoning(summary.join("\n"))
        }
        items::COMMAND_EXECUTION => {
            let command = value
                .pointer("/commandActions/0/command")
                .and_then(Value::as_str)
                .map_or_else(|| text("command"), str::to_owned);
            Item::Command(Command {
                command,
                output: text("aggregatedOutput"),
                exit_code: value
                    .get("exitCode")
                    .and_then(Value::as_i64)
                    .and_then(|c| i32::try_from(c).ok())
                    .unwrap_or_default(),
                asks: true,
            })
        }
        items::FILE_CHANGE => Item::FileChange(FileChange {
            changes: value["changes"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|c| Change {
                    path: c["path"].as_str().unwrap_or_default().to_owned(),
                    kind: c
                        .pointer("/kind/type")
                        .or_else(|| c.get("kind"))
                        .and_then(Value::as_str)
                        .unwrap_or("update")
                        .to_owned(),
                    diff: c["diff"].as_str().unwrap_or_default().to_owned(),
                })
                .collect(),
            asks: true,
        }),
        _ => Item::Unknown(value.clone()),
    })
}

/// Writes the conversation a careful client has with a server of `session` (seeded by
/// `seed`) as a cassette of `codex app-server` at `path`: the client's lines on stdin,
/// the server's on stdout, all at time zero.
pub fn write_cassette(session: &Session, seed: u64, path: &Path) -> Result<PathBuf, WriteError> {
    let invocation = Invocation {
        argv: sdk_argv(),
        cwd: Some("/work".into()),
        cli_version: Some(VERSION_LINE.into()),
        ..Invocation::default()
    };
    let mut writer = Writer::create(path, &header(invocation))?;
    let (outs, sent) = conversation(session, &[], seed);
    let line = |stream: Stream, bytes: Vec<u8>| {
        Frame::Line(Line {
            at: Duration::ZERO,
            stream,
            bytes,
            newline: true,
        })
    };
    let mut sent = sent.into_iter().peekable();
    let mut exit = Exit::Code(0);
    for (n, out) in outs.into_iter().enumerate() {
        while let Some((_, bytes)) = sent.next_if(|(before, _)| *before <= n) {
            writer.write(&line(Stream::Stdin, bytes))?;
        }
        match out {
            Out::Line(bytes) => writer.write(&line(Stream::Stdout, bytes))?,
            Out::Stderr(bytes) => writer.write(&line(Stream::Stderr, bytes))?,
            Out::End(end) => exit = end,
            Out::Cut(_) | Out::Stall(_) => {}
        }
    }
    for (_, bytes) in sent {
        writer.write(&line(Stream::Stdin, bytes))?;
    }
    writer.write(&Frame::End(Ending {
        at: Duration::ZERO,
        exit,
    }))?;
    writer.finish()
}
