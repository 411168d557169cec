//! A recording of `gemini -p -o stream-json` (a cassette whose invocation says
//! `"dialect":"gemini"`): its stdout lines, its stderr lines and how it ended,
//! replayed as recorded; and, for the presets and the other output formats, the
//! session it tells (its rounds, its tools, its usage), played again.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::faults::{stream_lines, with_faults, Context, GeminiFault, Injector, Out};
use super::play::Said;
use super::session::{ApiError, End, Round, Session, Tool, ToolResult, Usage};
use super::wire::{events, roles, stats, status, DIALECT, VERSION};
use crate::cassette::{Header, Invocation};
use crate::error::WriteError;
use crate::format::OutputFormat;
use crate::frames::{Exit, Stream};
use crate::run::lines;

/// A cassette header for a recording of `gemini` made with `invocation`.
pub fn header(invocation: Invocation) -> Header {
    Header::of_dialect(invocation, DIALECT)
}

/// Whether a cassette's header says it is a recording of Gemini CLI.
pub fn is_gemini(header: &Header) -> bool {
    header.dialect() == Some(DIALECT)
}

/// The argv the harness's cassettes say they were run with.
pub fn harness_argv() -> Vec<String> {
    ["-o", "stream-json", "--skip-trust", "-p", "hi"]
        .map(str::to_owned)
        .to_vec()
}

/// Writes `session` as a cassette of `gemini -o stream-json -p hi` at `path`, as the
/// mock plays it with no fault in the context of `seed`; all at time zero.
pub fn write_cassette(session: &Session, seed: u64, path: &Path) -> Result<PathBuf, WriteError> {
    let invocation = Invocation {
        argv: harness_argv(),
        prompt: Some("hi".into()),
        cwd: Some("/work".into()),
        cli_version: Some(VERSION.into()),
        output_format: Some(OutputFormat::StreamJson),
        ..Invocation::default()
    };
    let (lines, exit) = stream_lines(session, seed);
    let lines = lines.into_iter().map(|l| (Stream::Stdout, l));
    lines::write_cassette(path, &header(invocation), lines, exit)
}

/// A recorded run of `gemini -p -o stream-json`.
pub type Recording = lines::Recorded<super::dialect::Gemini>;

impl Recording {
    /// The `init` line's session id and model.
    pub fn init(&self) -> Option<(String, String)> {
        self.values().find_map(|v| {
            (v["type"] == events::INIT).then(|| {
                (
                    v["session_id"].as_str().unwrap_or_default().to_owned(),
                    v["model"].as_str().unwrap_or_default().to_owned(),
                )
            })
        })
    }

    /// The prompt it echoed.
    pub fn prompt(&self) -> Option<String> {
        self.values().find_map(|v| {
            (v["type"] == events::MESSAGE && v["role"] == roles::USER)
                .then(|| v["content"].as_str().unwrap_or_default().to_owned())
        })
    }

    /// The session the recording tells: its rounds and tools, ending as it ended,
    /// with the usage it reports.
    pub fn session(&self) -> Session {
        let mut session = Session {
            rounds: Vec::new(),
            end: End::Completed,
            usage: Usage::default(),
        };
        let mut round = Round {
            chunks: Vec::new(),
            tools: Vec::new(),
        };
        let mut calls: Vec<(String, Tool)> = Vec::new();
        let mut empty = false;
        for value in self.values() {
            match value.get("type").and_then(Value::as_str) {
                Some(events::MESSAGE) if value["role"] == roles::ASSISTANT => {
                    if !round.tools.is_empty() {
                        session.rounds.push(std::mem::replace(
                            &mut round,
                            Round {
                                chunks: Vec::new(),
                                tools: Vec::new(),
                            },
                        ));
                    }
                    round
                        .chunks
                        .push(value["content"].as_str().unwrap_or_default().to_owned());
                }
                Some(events::TOOL_USE) => calls.push((
                    value["tool_id"].as_str().unwrap_or_default().to_owned(),
                    Tool {
                        name: value["tool_name"].as_str().unwrap_or_default().to_owned(),
                        parameters: value["parameters"].clone(),
                        result: ToolResult::Success(String::new()),
                    },
                )),
                Some(events::TOOL_RESULT) => {
                    let id = value["tool_id"].as_str().unwrap_or_default();
                    if let Some(n) = calls.iter().position(|(i, _)| i == id) {
                        let (_, mut tool) = calls.remove(n);
                        let output = value["output"].as_str().unwrap_or_default().to_owned();
                        tool.result = if value["status"] == status::SUCCESS {
                            ToolResult::Success(output)
                        } else {
                            ToolResult::Error {
                                output,
                                kind: value
                                    .pointer("/error/type")
                                    .and_then(Value::as_str)
                                    .unwrap_or_default()
                                    .to_owned(),
                                message: value
                                    .pointer("/error/message")
                                    .and_then(Value::as_str)
                                    .unwrap_or_default()
                                    .to_owned(),
                            }
                        };
                        round.tools.push(tool);
                    }
                }
                Some(events::ERROR) => empty = true,
                Some(events::RESULT) => {
                    let count = |k: &str| value["stats"][k].as_u64().unwrap_or_default();
                    session.usage = Usage {
                        input_tokens: count(stats::INPUT_TOKENS),
                        output_tokens: count(stats::OUTPUT_TOKENS),
                        cached: count(stats::CACHED),
                    };
                    if value["status"] != status::SUCCESS {
                        let message = value
                            .pointer("/error/message")
                            .and_then(Value::as_str)
                            .unwrap_or_default();
                        session.end = match (value.pointer("/error/type").and_then(Value::as_str), self.exit)
                        {
                            (None, _) if empty => End::EmptyAnswer,
                            (Some(super::wire::error_types::TURN_LIMITED), _) => End::TurnLimit,
                            (_, Exit::Code(code)) => End::Api(ApiError {
                                code: u16::try_from(code).unwrap_or(1),
                                status: String::new(),
                                message: message.to_owned(),
                            }),
                            _ => End::EmptyAnswer,
                        };
                    }
                }
                _ => {}
            }
        }
        if !round.chunks.is_empty() || !round.tools.is_empty() {
            session.rounds.push(round);
        }
        session
    }

    /// The context it was played in: its session id, model and prompt.
    pub fn context(&self) -> Context {
        let mut context = Context::of_seed(0);
        if let Some((id, model)) = self.init() {
            context.session_id = id;
            context.model = model;
        }
        if let Some(prompt) = self.prompt() {
            context.prompt = prompt;
        }
        context
    }

    /// What the mock writes replaying it with `faults` in `format`: the recorded lines
    /// and ending with the faults acting on them (`stream-json`, no preset); else the
    /// session it tells played again in its context.
    pub fn written(&self, faults: &[GeminiFault], format: OutputFormat) -> Vec<Out> {
        let injector = Injector::new(faults.to_vec());
        if injector.has_preset() || format != OutputFormat::StreamJson {
            return super::faults::written_in(&self.session(), faults, &self.context(), format);
        }
        let mut injector = injector;
        let mut outs: Vec<Out> = Vec::new();
        let said: Vec<Said> = self
            .stderr
            .iter()
            .map(|l| Said::Stderr(String::from_utf8_lossy(l).into_owned()))
            .chain(
                self.stdout
                    .iter()
                    .map(|l| Said::Line(String::from_utf8_lossy(l).into_owned())),
            )
            .collect();
        outs.extend(with_faults(said, self.exit, &mut injector));
        outs
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialects::gemini::session::default_session;

    #[test]
    fn a_played_session_reads_back_as_itself() {
        let session = default_session("/work");
        let (lines, exit) = stream_lines(&session, 1);
        let recording = Recording::new(lines, Vec::new(), exit);
        let told = recording.session();
        assert_eq!(told.rounds, session.rounds);
        assert_eq!(told.usage, session.usage);
        assert_eq!(told.end, End::Completed);
        assert_eq!(recording.prompt().as_deref(), Some("hi"));
    }

    #[test]
    fn a_written_cassette_is_a_gemini_recording() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path =
            write_cassette(&default_session("/work"), 0, &dir.path().join("d.cassette")).expect("writes");
        let header = crate::cassette::open(&path).expect("opens");
        assert!(header.header().is_some_and(is_gemini));
        let recording = Recording::open(&path).expect("reads");
        assert_eq!(recording.session().answer(), "The README says hi.");
    }
}

#[cfg(test)]
mod curated {
    use super::*;
    use crate::dialects::gemini::session::default_session;

    /// The curated cassette of the default session, as this version writes it.
    const CURATED: &str = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../cassettes/gemini/default.cassette"
    );

    /// Writes `cassettes/gemini/default.cassette` again (after a change to what the
    /// default session writes): `MOCK_AGENT_WRITE_CURATED=1 cargo test -p harness
    /// curated_gemini`. The real CLI's are `real-*.cassette` beside it.
    #[test]
    fn the_curated_gemini_cassette_is_the_default_session_s() {
        let path = Path::new(CURATED);
        if std::env::var_os("MOCK_AGENT_WRITE_CURATED").is_some() {
            std::fs::create_dir_all(path.parent().expect("a folder")).expect("the folder");
            write_cassette(&default_session("/work"), 0, path).expect("writes");
        }
        let recording = Recording::open(path).expect("the curated cassette");
        let (lines, exit) = stream_lines(&default_session("/work"), 0);
        assert_eq!((recording.stdout, recording.exit), (lines, exit));
    }
}
