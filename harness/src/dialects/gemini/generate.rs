//! Generated Gemini CLI sessions: a proptest strategy of [`Session`]s (rounds of text
//! chunks and tool calls, some failing; some runs ending in the real CLI's failures),
//! typed fault strategies of the catalogue's `gemini` section, and the session of a
//! seed. Shrinking makes a failing session smaller: fewer rounds, fewer chunks and
//! tools, shorter texts, a completed run instead of a failed one.

use proptest::prelude::*;
use serde_json::json;

use super::dialect::Gemini;
use super::faults::{parse, GeminiFault, FROM_ENV};
use super::recording::write_cassette;
use super::session::{ApiError, End, Round, Session, Tool, ToolResult, Usage};
use super::wire::{error_types, events};
use crate::faults::strategy;
use crate::run::generator::{Draws, Generator, WriteCassette};
use crate::run::Generated;

/// A piece of text: words, some of them not ASCII, sometimes a line break.
fn text() -> impl Strategy<Value = String> {
    strategy::text(&["é", "日本", "\n"], 1..8)
}

fn tool() -> impl Strategy<Value = Tool> {
    let names = [
        "read_file",
        "list_directory",
        "grep_search",
        "glob",
        "run_shell_command",
        "write_file",
    ];
    (
        prop::sample::select(names.to_vec()),
        "[a-z]{1,8}",
        any::<bool>(),
        text(),
    )
        .prop_map(|(name, arg, ok, output)| Tool {
            name: name.to_owned(),
            parameters: json!({"file_path": format!("{arg}.md")}),
            result: if ok {
                ToolResult::Success(output)
            } else {
                ToolResult::Error {
                    output: "File not found.".into(),
                    kind: error_types::FILE_NOT_FOUND.into(),
                    message: format!("File not found: /work/{arg}.md"),
                }
            },
        })
}

fn round() -> impl Strategy<Value = Round> {
    (
        prop::collection::vec(text(), 0..4),
        prop::collection::vec(tool(), 1..3),
    )
        .prop_map(|(chunks, tools)| Round { chunks, tools })
}

fn end() -> impl Strategy<Value = End> {
    prop_oneof![
        8 => Just(End::Completed),
        1 => Just(End::Api(ApiError::unauthorized())),
        1 => Just(End::Api(ApiError::rate_limited())),
        1 => Just(End::EmptyAnswer),
        1 => Just(End::TurnLimit),
    ]
}

impl Generator for Gemini {
    type Session = Session;
    type Fault = GeminiFault;
    const SALT: &'static [u8] = b"gemini";
    const PLAYED: (&'static str, &'static str, &'static str) =
        ("events", "replay", "gemini -o stream-json -p hi");
    const DEFAULT_SESSION: fn() -> Session = || super::session::default_session("/work");
    const WRITE_CASSETTE: WriteCassette<Session> = write_cassette;
    const FAULTS: Draws<GeminiFault> = Draws {
        after: 12,
        at: &[
            events::MESSAGE,
            events::TOOL_USE,
            events::TOOL_RESULT,
            events::RESULT,
        ],
        own: &[
            "signal:name=TERM,{place}",
            "child-killed:{place}",
            "stderr:text=\"[STARTUP] slow\",{place}",
        ],
        presets: || {
            let presets = [
                "unauthorized",
                "rate-limited",
                "server-error",
                "empty-answer",
                "turn-limit",
            ];
            presets
                .into_iter()
                .chain(["no-auth", "untrusted-folder"])
                .map(String::from)
                .collect()
        },
        parse: |spec| parse(spec, FROM_ENV),
    };

    /// Generated sessions: up to three rounds that call tools, then the answer's round.
    fn sessions() -> impl Strategy<Value = Session> {
        (
            prop::collection::vec(round(), 0..4),
            prop::collection::vec(text(), 1..4),
            end(),
            (1u64..5000, 0u64..100, 1u64..2000),
        )
            .prop_map(|(mut rounds, last, end, (input, cached, output))| {
                match &end {
                    End::Api(_) => rounds.clear(),
                    End::TurnLimit => rounds.truncate(1),
                    End::EmptyAnswer => {}
                    End::Completed => rounds.push(Round {
                        chunks: last,
                        tools: Vec::new(),
                    }),
                }
                if matches!(end, End::TurnLimit) && rounds.is_empty() {
                    rounds.push(Round {
                        chunks: vec!["Looking.".into()],
                        tools: Vec::new(),
                    });
                }
                Session {
                    rounds,
                    end,
                    usage: Usage {
                        input_tokens: input,
                        output_tokens: output,
                        cached: cached.min(input),
                    },
                }
            })
    }

    fn lines(session: &Session, seed: u64) -> usize {
        super::faults::stream_lines(session, seed).0.len()
    }

    /// One line a line, as `gemini -o stream-json` writes them.
    fn told(session: &Session, seed: u64) -> Generated {
        Generated::told(super::faults::stream_lines(session, seed).0)
    }
}

/// The session of a seed ([`Generator::from_seed`]): the same on every run and
/// machine, for one version.
pub fn from_seed(seed: u64) -> Session {
    Gemini::from_seed(seed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialects::gemini::check::GeminiChecker;
    use crate::dialects::gemini::recording::Recording;

    #[test]
    fn a_seed_is_one_session_that_reads_back_and_every_drawn_fault_parses() {
        crate::run::generator::assert_generator::<Gemini, _, _>(
            |spec| parse(spec, FROM_ENV),
            |path| {
                Recording::open(path)
                    .expect("a Gemini cassette")
                    .session()
                    .answer()
            },
            Session::answer,
        );
    }

    proptest! {
        #[test]
        fn every_generated_run_is_lint_clean(session in Gemini::sessions()) {
            let (lines, exit) = super::super::faults::stream_lines(&session, 1);
            let report = crate::check::lines::report::<GeminiChecker>(&lines, Some(exit));
            prop_assert!(report.findings.is_empty(), "{:?}", report);
        }
    }
}
