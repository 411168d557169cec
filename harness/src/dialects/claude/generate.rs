//! Generated Claude Code sessions: a proptest strategy of [`Session`]s (texts,
//! thinking, tool calls that ask or not, undocumented lines, how each turn ends), and
//! the session of a seed. Shrinking makes a failing session smaller: fewer turns,
//! fewer steps, shorter texts, a success instead of an error.

use proptest::prelude::*;
use serde_json::json;

use std::time::Duration;

use super::cassette::header;
use super::dialect::Claude;
use super::play::{self, Next, Options, Player};
use super::session::{End, Session, Step, ToolCall, Turn};
use super::wire::{behaviors, control, results, system, types};
use crate::cassette::{Invocation, Writer};
use crate::dialects::claude::faults::{parse, ClaudeFault, FROM_ENV};
use crate::error::WriteError;
use crate::faults::strategy;
use crate::frames::{Ending, Exit, Frame, Line, Stream};
use crate::run::generator::{Draws, Generator, WriteCassette};
use crate::run::Generated;

/// A piece of text: words, some of them not ASCII, sometimes a line break.
fn text() -> impl Strategy<Value = String> {
    strategy::text(
        &["naïve", "日本語", "emoji 🎉", "line\nbreak", "\"quoted\" \\ back"],
        1..12,
    )
}

fn tool() -> impl Strategy<Value = ToolCall> {
    prop_oneof![
        ("[a-z]{1,8}", text()).prop_map(|(name, content)| ToolCall {
            name: "Write".into(),
            input: json!({"file_path": format!("/work/{name}.txt"), "content": content}),
            asks: true,
            output: format!("File created successfully at: /work/{name}.txt"),
        }),
        ("[a-z]{1,8}", text()).prop_map(|(name, content)| ToolCall {
            name: "Read".into(),
            input: json!({"file_path": format!("/work/{name}.md")}),
            asks: false,
            output: content,
        }),
        (text(), any::<bool>()).prop_map(|(output, asks)| ToolCall {
            name: "Bash".into(),
            input: json!({"command": "ls -la", "description": "List files"}),
            asks,
            output,
        }),
    ]
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        5 => text().prop_map(Step::Text),
        1 => text().prop_map(Step::Thinking),
        3 => tool().prop_map(Step::Tool),
        1 => prop_oneof![
            Just(json!({"type": types::RATE_LIMIT_EVENT, "rate_limit_info": {"status": "allowed"}})),
            Just(json!({"type": types::SYSTEM, "subtype": "compact_boundary", "compact_metadata": {"trigger": "auto", "pre_tokens": 1000}})),
            Just(json!({"type": types::SYSTEM, "subtype": "future_subtype", "note": "not documented"})),
        ]
        .prop_map(Step::Unknown),
    ]
}

fn end() -> impl Strategy<Value = End> {
    prop_oneof![
        8 => Just(End::Success),
        1 => Just(End::ApiError {
            status: 401,
            text: crate::dialects::claude::faults::NOT_LOGGED_IN.into(),
            error: crate::dialects::claude::faults::AUTH_ERROR.into(),
        }),
        1 => text().prop_map(|t| End::Error {
            subtype: results::ERROR_DURING_EXECUTION.into(),
            errors: vec![t],
        }),
    ]
}

/// A turn: steps that end with a text (the answer), and its end.
fn turn() -> impl Strategy<Value = Turn> {
    (prop::collection::vec(step(), 0..6), text(), end()).prop_map(|(mut steps, last, end)| {
        steps.push(Step::Text(last));
        Turn { steps, end }
    })
}

impl Generator for Claude {
    type Session = Session;
    type Fault = ClaudeFault;
    const SALT: &'static [u8] = b"claude";
    const PLAYED: (&'static str, &'static str, &'static str) = (
        "messages",
        "serve",
        "claude --input-format stream-json --output-format stream-json --verbose",
    );
    const DEFAULT_SESSION: fn() -> Session = || super::session::default_session("/work");
    const WRITE_CASSETTE: WriteCassette<Session> = write_cassette;
    const FAULTS: Draws<ClaudeFault> = Draws {
        after: 14,
        at: &[
            types::RESULT,
            types::ASSISTANT,
            types::USER,
            system::INIT,
            control::CAN_USE_TOOL,
        ],
        own: &["stderr:text=\"warning: slow network\",{place}"],
        presets: || {
            let initialize = control::INITIALIZE;
            let presets = ["not-logged-in", "invalid-api-key", "max-turns"].map(String::from);
            let error = "error-result:text=\"Tool execution failed\"".to_owned();
            let asked = [
                format!("no-response:method={initialize}"),
                format!("error:method={initialize},message=\"Not ready\""),
            ];
            presets.into_iter().chain([error]).chain(asked).collect()
        },
        parse: |spec| parse(spec, FROM_ENV),
    };

    /// Generated sessions of 1 to 3 turns.
    fn sessions() -> impl Strategy<Value = Session> {
        prop::collection::vec(turn(), 1..4).prop_map(|turns| Session { turns })
    }

    /// How many lines the session's conversation has, both ways.
    fn lines(session: &Session, seed: u64) -> usize {
        let _ = seed;
        conversation(session).len()
    }

    /// One line a message, summarised.
    fn told(session: &Session, seed: u64) -> Generated {
        let _ = seed;
        let lines = conversation_lines(session);
        let told = super::wire::summary(lines.iter().map(|(dir, line)| (dir.as_str(), line.as_str())));
        Generated::Told(format!("{told}\n"))
    }
}

/// Writes the session as a Claude Code cassette at `path`: the conversation a
/// client that allows every permission request has with it, one prompt a turn, as
/// the mock plays it with no fault (the faults are given apart, in
/// `MOCK_AGENT_FAULTS`). Replayed, it follows the live client. `seed` is not taken.
fn write_cassette(
    session: &Session,
    seed: u64,
    path: &std::path::Path,
) -> Result<std::path::PathBuf, WriteError> {
    let _ = seed;
    // As the SDKs run the CLI: `conversation` has a prompt tool and states.
    let invocation = Invocation {
        argv: super::wire::argv::SDK.iter().map(|a| (*a).to_owned()).collect(),
        output_format: Some(crate::format::OutputFormat::StreamJson),
        cwd: Some(CWD.to_owned()),
        env: [(super::wire::env::READS_SESSION_STATE.to_owned(), "1".to_owned())].into(),
        ..Invocation::default()
    };
    let mut writer = Writer::create(path, &header(invocation))?;
    for frame in conversation(session) {
        writer.write(&frame)?;
    }
    writer.finish()
}

/// The conversation of `session` with a client that sends `initialize`, then one
/// prompt a turn, and allows every permission request: the frames of its cassette,
/// all at time zero.
/// The conversation of `session` as `(direction, line)` pairs (`in`: the client's,
/// `out`: the CLI's), as [`Generator::WRITE_CASSETTE`] writes it.
pub fn conversation_lines(session: &Session) -> Vec<(String, String)> {
    conversation(session)
        .into_iter()
        .filter_map(|frame| match frame {
            Frame::Line(line) => {
                let dir = if line.stream == Stream::Stdin {
                    crate::journal::IN
                } else {
                    crate::journal::OUT
                };
                Some((dir.to_owned(), String::from_utf8_lossy(&line.bytes).into_owned()))
            }
            _ => None,
        })
        .collect()
}

/// The working directory of a generated conversation.
const CWD: &str = "/work";

fn conversation(session: &Session) -> Vec<Frame> {
    let mut options = Options::new(CWD, 0);
    options.prompt_tool = true;
    options.states = true;
    let mut frames = Vec::new();
    let mut line = |stream: Stream, bytes: Vec<u8>| {
        frames.push(Frame::Line(Line {
            at: Duration::ZERO,
            stream,
            bytes,
            newline: true,
        }));
    };
    let id = "req_1_00000000";
    line(Stream::Stdin, play::initialize_request(id));
    line(
        Stream::Stdout,
        play::success(&json!(id), play::initialized(&options, 0)),
    );
    let mut player = Player::new(session.clone(), options);
    for _ in &session.turns {
        line(Stream::Stdin, play::user_message("hi"));
        player.begin("hi");
        loop {
            match player.step() {
                Next::Send(bytes) => line(Stream::Stdout, bytes),
                Next::Ask { id, line: bytes } => {
                    line(Stream::Stdout, bytes);
                    let allow = json!({"behavior": behaviors::ALLOW});
                    line(Stream::Stdin, play::success(&json!(id), allow.clone()));
                    player.answer(Ok(allow));
                }
                Next::Waiting | Next::Done => break,
            }
        }
    }
    frames.push(Frame::End(Ending {
        at: Duration::ZERO,
        exit: Exit::Code(i32::from(player.last_is_error())),
    }));
    frames
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seed_is_one_session_that_replays_from_its_cassette_and_every_drawn_fault_parses() {
        crate::run::generator::assert_generator::<Claude, _, _>(
            |spec| parse(spec, FROM_ENV),
            |path| {
                let script =
                    crate::dialects::claude::cassette::Script::open(path).expect("a Claude cassette");
                script.session().expect("reads").turns.len()
            },
            |session| session.turns.len(),
        );
        assert!(Claude::lines(&Claude::from_seed(3), 0) > 4);
    }

    proptest! {
        #[test]
        fn every_generated_turn_is_well_formed(session in Claude::sessions()) {
            let mut options = Options::new("/work", 1);
            options.prompt_tool = true;
            options.states = true;
            options.partial = true;
            let mut player = Player::new(session, options);
            player.begin("hi");
            let mut results = 0;
            loop {
                match player.step() {
                    Next::Send(line) | Next::Ask { line, .. } => {
                        let value: serde_json::Value = serde_json::from_slice(&line).expect("JSON");
                        prop_assert!(value.get("type").is_some());
                        results += usize::from(value["type"] == types::RESULT);
                        prop_assert!(value["subtype"] != system::INIT || value["session_id"].is_string());
                    }
                    Next::Waiting => player.answer(Ok(json!({"behavior": "deny", "message": "no"}))),
                    Next::Done => break,
                }
            }
            prop_assert_eq!(results, 1);
        }
    }
}
