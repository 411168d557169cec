//! A recording of `codex exec --json` (a cassette whose invocation says
//! `"dialect":"codex"`): its stdout lines, its stderr lines and how it ended, replayed
//! as recorded; and, for the presets that change how the turn ends, the session it
//! tells (its items, its usage), played again with the preset.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::exec::Thread;
use super::faults::{exec_lines, with_faults, CodexFault, Injector, Out};
use super::session::{Change, Command, End, Failure, FileChange, Item, Session, Turn, Usage};
use super::wire::{events, items, stderr, usage, DIALECT, VERSION_LINE};
use crate::cassette::{Header, Invocation};
use crate::error::WriteError;
use crate::frames::Stream;
use crate::run::lines;

/// A cassette header for a recording of `codex exec` made with `invocation`.
pub fn header(invocation: Invocation) -> Header {
    Header::of_dialect(invocation, DIALECT)
}

/// Whether a cassette's header says it is a recording of Codex.
pub fn is_codex(header: &Header) -> bool {
    header.dialect() == Some(DIALECT)
}

/// Writes `session`'s first turn as a cassette of `codex exec --experimental-json
/// --skip-git-repo-check` at `path` (the TypeScript SDK's with `skipGitRepoCheck`, as a
/// run in `/work`, which is in no Git repository, needs), as the mock plays it with no
/// fault on a thread made from `seed`: the prompt read from stdin (stderr), the lines,
/// the exit; all at time zero.
pub fn write_cassette(session: &Session, seed: u64, path: &Path) -> Result<PathBuf, WriteError> {
    let mut argv = super::faults::sdk_argv();
    argv.push("--skip-git-repo-check".into());
    let invocation = Invocation {
        argv,
        prompt: Some("hi".into()),
        cwd: Some("/work".into()),
        cli_version: Some(VERSION_LINE.into()),
        ..Invocation::default()
    };
    let (lines, exit) = exec_lines(session, Thread::new(seed, super::faults::THREAD_MS));
    let prompt = (Stream::Stderr, stderr::READING_PROMPT.as_bytes().to_vec());
    let lines = std::iter::once(prompt).chain(lines.into_iter().map(|l| (Stream::Stdout, l)));
    lines::write_cassette(path, &header(invocation), lines, exit)
}

/// A recorded run of `codex exec --json`.
pub type Recording = lines::Recorded<super::dialect::Codex>;

impl Recording {
    /// The thread it started (`thread.started`'s id).
    pub fn thread_id(&self) -> Option<String> {
        self.values().find_map(|v| {
            (v.get("type").and_then(Value::as_str) == Some(events::THREAD_STARTED))
                .then(|| v.get("thread_id").and_then(Value::as_str).map(str::to_owned))
                .flatten()
        })
    }

    /// The session the recording tells: one turn of its completed items, ending as it
    /// ended (a `turn.failed` as its message), with the usage it reports.
    pub fn session(&self) -> Session {
        let mut turn = Turn {
            items: Vec::new(),
            end: End::Completed,
            usage: Usage::default(),
        };
        for value in self.values() {
            match value.get("type").and_then(Value::as_str) {
                Some(events::ITEM_COMPLETED) => turn.items.extend(item(&value["item"])),
                Some(events::TURN_COMPLETED) => turn.usage = usage_of(&value["usage"]),
                Some(events::TURN_FAILED) => {
                    let message = value
                        .pointer("/error/message")
                        .and_then(Value::as_str)
                        .unwrap_or_default();
                    turn.end = End::Failed(Failure::Other {
                        message: message.to_owned(),
                    });
                }
                _ => {}
            }
        }
        Session { turns: vec![turn] }
    }

    /// What the mock writes replaying it with `faults`: the recorded lines and ending
    /// with the faults acting on them; with a preset, the session it tells played
    /// again on its thread, the preset deciding how the turn ends.
    pub fn written(&self, faults: &[CodexFault]) -> Vec<Out> {
        let mut injector = Injector::new(faults.to_vec());
        let mut outs: Vec<Out> = self.stderr.iter().cloned().map(Out::Stderr).collect();
        if injector.has_preset() {
            let mut session = self.session();
            injector.prepare(&mut session);
            let mut thread = Thread::new(0, super::faults::THREAD_MS);
            if let Some(id) = self.thread_id() {
                thread.id = id;
            }
            let (lines, exit) = exec_lines(&session, thread);
            outs.extend(with_faults(lines, exit, &mut injector));
        } else {
            outs.extend(with_faults(self.stdout.clone(), self.exit, &mut injector));
        }
        outs
    }
}

/// The five usage keys of a `turn.completed`.
pub fn usage_of(value: &Value) -> Usage {
    let key = |k: &str| value.get(k).and_then(Value::as_u64).unwrap_or_default();
    Usage {
        input_tokens: key(usage::INPUT_TOKENS),
        cached_input_tokens: key(usage::CACHED_INPUT_TOKENS),
        cache_write_input_tokens: key(usage::CACHE_WRITE_INPUT_TOKENS),
        output_tokens: key(usage::OUTPUT_TOKENS),
        reasoning_output_tokens: key(usage::REASONING_OUTPUT_TOKENS),
    }
}

/// A completed item as the session model holds it (`None` for an empty reasoning).
fn item(value: &Value) -> Option<Item> {
    let text = |k: &str| str_field(value, k);
    Some(match value.get("type").and_then(Value::as_str) {
        Some(items::AGENT_MESSAGE) => Item::AgentMessage(text("text")),
        Some(items::REASONING) => Item::Reasoning(text("text")),
        Some(items::ERROR) => Item::Warning(text("message")),
        Some(items::COMMAND_EXECUTION) => {
            let line = text("command");
            Item::Command(Command {
                command: unquoted(&line).unwrap_or(line),
                output: text("aggregated_output"),
                exit_code: value
                    .get("exit_code")
                    .and_then(Value::as_i64)
                    .and_then(|c| i32::try_from(c).ok())
                    .unwrap_or_default(),
                asks: false,
            })
        }
        Some(items::FILE_CHANGE) => Item::FileChange(FileChange {
            changes: value
                .get("changes")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .map(|c| Change {
                    path: str_field(c, "path"),
                    kind: str_field(c, "kind"),
                    diff: String::new(),
                })
                .collect(),
            asks: false,
        }),
        _ => Item::Unknown(value.clone()),
    })
    .filter(|item| !matches!(item, Item::Reasoning(text) if text.is_empty()))
}

/// The string `key` of `value` (empty when it has none).
pub(crate) fn str_field(value: &Value, key: &str) -> String {
    value
        .get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

/// The command inside the CLI's shell line `/bin/bash -lc '<command>'`.
fn unquoted(line: &str) -> Option<String> {
    let quoted = line.strip_prefix("/bin/bash -lc '")?.strip_suffix('\'')?;
    Some(quoted.replace(r#"'"'"'"#, "'"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialects::codex::session::default_session;

    #[test]
    fn the_default_session_written_as_a_cassette_reads_back_as_played() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path =
            write_cassette(&default_session("/work"), 0, &dir.path().join("d.cassette")).expect("writes");
        let recording = Recording::open(&path).expect("the cassette");
        let (lines, exit) = exec_lines(
            &default_session("/work"),
            Thread::new(0, super::super::faults::THREAD_MS),
        );
        assert_eq!((recording.stdout, recording.exit), (lines, exit));
        let header = crate::cassette::open(&path).expect("opens");
        assert!(header.header().is_some_and(is_codex));
    }

    #[test]
    fn a_played_session_reads_back_as_itself() {
        let session = default_session("/work");
        let (lines, exit) = exec_lines(&session, Thread::new(1, 0));
        let recording = Recording::new(lines, Vec::new(), exit);
        let told = recording.session();
        let turn = &session.turns[0];
        assert_eq!(told.turns[0].usage, turn.usage);
        assert_eq!(told.turns[0].final_message(), turn.final_message());
        assert_eq!(told.turns[0].items.len(), turn.items.len());
        let Item::Command(command) = &told.turns[0].items[2] else {
            panic!("the third item is the command")
        };
        assert_eq!(command.command, "touch made.txt");
        assert!(recording.thread_id().is_some());
        assert_eq!(unquoted("/bin/bash -lc 'it'\"'\"'s'").as_deref(), Some("it's"));
    }
}
