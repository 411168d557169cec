//! What recording `codex` takes of it: `codex exec --json` is one way (the prompt in
//! argv or on stdin, then JSONL on stdout), under a header that says Codex
//! ([`harness::dialects::codex::recording::header`]); `codex app-server` is a
//! conversation (both directions recorded as they pass), under a header that says
//! `codex-app-server` ([`harness::dialects::codex::app_server::recording::header`]).

use harness::cassette::{Header, Invocation};
use harness::dialects::codex::args::{self, Command, ExecArgs};
use harness::dialects::codex::recording;
use harness::dialects::codex::wire::DIALECT;
use harness::format::OutputFormat;

use crate::record::{after_command, cli_args, redacted, Recorded, Redact};

/// Recording `codex exec`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Recording;

impl Recorded for Recording {
    /// `codex exec` reads its prompt, then writes; `codex app-server` converses.
    fn converses(&self, program: &str, argv: &[String]) -> bool {
        codex_args(program, argv).is_some_and(is_app_server)
    }

    fn records(&self, program: &str, argv: &[String]) -> bool {
        codex_args(program, argv).is_some()
    }

    fn prompt_in_argv(&self, argv: &[String]) -> bool {
        exec(argv).is_some_and(|a| !a.prompt_from_stdin())
    }

    fn invocation(&self, argv: &[String], stdin: Option<&[u8]>, redact: Redact<'_>) -> Invocation {
        let text = |bytes: &[u8]| redacted(redact, bytes);
        let parsed = exec(argv);
        let prompt = match &parsed {
            Some(a) if a.prompt_from_stdin() => stdin.map(|s| text(s).trim_end_matches('\n').to_owned()),
            Some(a) => a.prompt.as_deref().map(|p| text(p.as_bytes())),
            None => None,
        };
        recording::header(Invocation {
            argv: argv.iter().map(|a| text(a.as_bytes())).collect(),
            prompt,
            output_format: parsed.map(|a| {
                if a.json {
                    OutputFormat::StreamJson
                } else {
                    OutputFormat::Text
                }
            }),
            ..Invocation::default()
        })
        .invocation
    }

    fn header(&self, invocation: Invocation) -> Header {
        if is_app_server(&invocation.argv) {
            return harness::dialects::codex::app_server::recording::header(invocation);
        }
        recording::header(invocation)
    }
}

/// Whether `argv` (after the program) runs `codex app-server`.
fn is_app_server(argv: &[String]) -> bool {
    matches!(
        args::parse(after_command(argv, DIALECT)),
        Ok(Command::AppServer(_))
    )
}

/// `codex exec`'s arguments in `argv` (after the program, or after `codex` when the
/// program is `mock-agent`).
fn exec(argv: &[String]) -> Option<ExecArgs> {
    match args::parse(after_command(argv, DIALECT)) {
        Ok(Command::Exec(args)) => Some(*args),
        _ => None,
    }
}

/// The arguments of Codex's CLI when `program ARGV` runs it: a program named `codex`
/// (or `mock-agent codex`).
fn codex_args<'a>(program: &str, argv: &'a [String]) -> Option<&'a [String]> {
    cli_args(program, argv, |name| name == DIALECT, DIALECT)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::argv;

    #[test]
    fn codex_runs_are_its_own_and_one_way() {
        let sdk = argv(&["exec", "--experimental-json"]);
        assert!(Recording.records("/opt/bin/codex", &sdk));
        assert!(Recording.records("mock-agent", &argv(&["codex", "exec", "--json"])));
        assert!(!Recording.records("claude", &sdk));
        assert!(!Recording.converses("codex", &sdk));
        assert!(!Recording.prompt_in_argv(&sdk));
        assert!(Recording.prompt_in_argv(&argv(&["exec", "--json", "hi"])));
        let invocation = Recording.invocation(&sdk, Some(b"Say hi\n"), &|b| b.to_vec());
        assert_eq!(invocation.prompt.as_deref(), Some("Say hi"));
        assert!(harness::dialects::codex::recording::is_codex(
            &Recording.header(invocation)
        ));
        let server = argv(&["-c", "model=\"gpt-5.5\"", "app-server", "--listen", "stdio://"]);
        assert!(Recording.records("/opt/bin/codex", &server));
        assert!(Recording.converses("/opt/bin/codex", &server));
        let invocation = Recording.invocation(&server, None, &|b| b.to_vec());
        assert!(harness::dialects::codex::app_server::recording::is_app_server(
            &Recording.header(invocation)
        ));
    }
}
