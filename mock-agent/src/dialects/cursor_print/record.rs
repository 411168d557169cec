//! What recording `cursor-agent` takes of it: the header of a run (its prompt,
//! output format, server mode), and an ACP client's credentials kept out.

use harness::cassette::{Header, Invocation};

use super::args;
use crate::record::{redacted, Recorded, Redact};

/// Recording `cursor-agent`, in print mode or server mode.
#[derive(Debug, Clone, Copy, Default)]
pub struct Recording;

impl Recorded for Recording {
    fn converses(&self, _program: &str, argv: &[String]) -> bool {
        is_acp(argv)
    }

    fn prompt_in_argv(&self, argv: &[String]) -> bool {
        args::parse(argv)
            .ok()
            .as_ref()
            .and_then(args::AgentArgs::prompt)
            .is_some()
    }

    fn invocation(&self, argv: &[String], stdin: Option<&[u8]>, redact: Redact<'_>) -> Invocation {
        let text = |s: &str| redacted(redact, s.as_bytes());
        let parsed = args::parse(argv).ok();
        let mut extra = harness::cassette::Extra::new();
        if let Some(stdin) = stdin.filter(|s| !s.is_empty()) {
            extra.insert("stdin".into(), serde_json::Value::String(redacted(redact, stdin)));
        }
        Invocation {
            argv: argv.iter().map(|a| text(a)).collect(),
            prompt: parsed
                .as_ref()
                .and_then(args::AgentArgs::prompt)
                .map(|p| text(&p)),
            output_format: parsed.as_ref().map(|a| a.output_format),
            stream_partial_output: parsed.as_ref().is_some_and(|a| a.stream_partial_output),
            acp: is_acp(argv),
            extra,
            ..Invocation::default()
        }
    }

    fn header(&self, invocation: Invocation) -> Header {
        if invocation.acp {
            Header::acp(invocation)
        } else {
            Header::new(invocation)
        }
    }

    fn credentials_out(&self, line: &[u8], marker: &str) -> Option<Vec<u8>> {
        crate::acp::record::credentials_out(line, marker)
    }
}

/// Whether these arguments run the CLI in server mode (`acp`).
pub fn is_acp(argv: &[String]) -> bool {
    args::parse(argv).is_ok_and(|a| a.command == Some(args::Command::Acp))
}
