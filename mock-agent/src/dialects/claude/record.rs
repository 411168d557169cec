//! What recording `claude` takes of it: a run with stream-json input (as the Agent
//! SDKs start it) is a conversation, both ways, under a header that says Claude Code.

use harness::cassette::{Header, Invocation};
use harness::dialects::claude::cassette as claude_cassette;

use crate::record::{redacted, Recorded, Redact};

/// Recording Claude Code with stream-json input.
#[derive(Debug, Clone, Copy, Default)]
pub struct Recording;

impl Recorded for Recording {
    fn converses(&self, program: &str, argv: &[String]) -> bool {
        is_claude(program, argv)
    }

    /// Every run of `claude` is recorded under Claude Code's header: a conversation
    /// both ways with stream-json input, one way in print mode (`claude -p`).
    fn records(&self, program: &str, argv: &[String]) -> bool {
        claude_args(program, argv).is_some()
    }

    fn prompt_in_argv(&self, argv: &[String]) -> bool {
        super::args::parse(argv).is_ok_and(|a| a.stream_input || a.prompt.is_some())
    }

    fn invocation(&self, argv: &[String], stdin: Option<&[u8]>, redact: Redact<'_>) -> Invocation {
        let text = |bytes: &[u8]| redacted(redact, bytes);
        let parsed = super::args::parse(argv).ok();
        // Print mode's prompt, from the arguments or from stdin.
        let prompt = parsed
            .as_ref()
            .filter(|a| a.print && !a.stream_input)
            .and_then(|a| a.prompt.as_deref().map(|p| text(p.as_bytes())))
            .or_else(|| stdin.filter(|s| !s.is_empty()).map(text));
        claude_cassette::header(Invocation {
            argv: argv.iter().map(|a| text(a.as_bytes())).collect(),
            prompt,
            output_format: Some(
                parsed
                    .as_ref()
                    .map_or(harness::format::OutputFormat::StreamJson, |a| {
                        match a.output_format {
                            super::args::OutputFormat::Text => harness::format::OutputFormat::Text,
                            super::args::OutputFormat::Json => harness::format::OutputFormat::Json,
                            super::args::OutputFormat::StreamJson => {
                                harness::format::OutputFormat::StreamJson
                            }
                        }
                    }),
            ),
            ..Invocation::default()
        })
        .invocation
    }

    fn header(&self, invocation: Invocation) -> Header {
        claude_cassette::header(invocation)
    }

    fn env(&self) -> &'static [&'static str] {
        super::flags::OUTPUT_ENV
    }
}

/// The arguments of Claude Code when `program ARGV` runs it (a program named
/// `claude`, or `mock-agent claude`).
fn claude_args<'a>(program: &str, argv: &'a [String]) -> Option<&'a [String]> {
    let cli = harness::dialects::claude::cassette::DIALECT;
    crate::record::cli_args(program, argv, |name| name == cli, cli)
}

/// Whether `program ARGV` runs Claude Code with stream-json input, as the Agent SDKs
/// do: a program named `claude` (or `mock-agent claude`) given `--input-format
/// stream-json`. Its recording is a conversation, both ways.
pub fn is_claude(program: &str, argv: &[String]) -> bool {
    let Some(args) = claude_args(program, argv) else {
        return false;
    };
    args.iter()
        .position(|a| a == "--input-format")
        .and_then(|i| args.get(i + 1))
        .is_some_and(|f| f == "stream-json")
        || args.iter().any(|a| a == "--input-format=stream-json")
}

#[cfg(test)]
mod tests {
    use super::is_claude;
    use crate::record::argv;

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
