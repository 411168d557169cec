//! What recording `gemini` takes of it: `gemini -p` is one way (the prompt in argv
//! and on stdin, then the output on stdout), under a header that says Gemini CLI
//! ([`harness::dialects::gemini::recording::header`]). `GEMINI_API_KEY` and
//! `GOOGLE_API_KEY` are among the recorder's secrets. `gemini --acp` is a conversation,
//! recorded as the ACP agent's ([`super::acp::Recording`]).

use harness::cassette::{Header, Invocation};
use harness::dialects::gemini::args::{self, Args, Command};
use harness::dialects::gemini::recording;
use harness::dialects::gemini::wire::DIALECT;

use crate::record::{after_command, cli_args, redacted, Recorded, Redact};

/// Recording `gemini -p`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Recording;

/// The ACP agent's recording, for `gemini --acp`.
const ACP: super::acp::Recording = super::acp::Recording;

impl Recorded for Recording {
    /// `gemini -p` reads its prompt, then writes; `gemini --acp` converses.
    fn converses(&self, program: &str, argv: &[String]) -> bool {
        gemini_args(program, argv).is_some_and(harness::dialects::gemini::acp::is_acp)
    }

    fn records(&self, program: &str, argv: &[String]) -> bool {
        gemini_args(program, argv)
            .is_some_and(|argv| headless(argv).is_some() || harness::dialects::gemini::acp::is_acp(argv))
    }

    /// With `-p` the prompt is in argv (stdin, when piped, comes before it).
    fn prompt_in_argv(&self, argv: &[String]) -> bool {
        headless(argv).is_some_and(|a| a.prompt.is_some() || a.query.is_some())
    }

    fn invocation(&self, argv: &[String], stdin: Option<&[u8]>, redact: Redact<'_>) -> Invocation {
        if harness::dialects::gemini::acp::is_acp(argv) {
            return ACP.invocation(argv, stdin, redact);
        }
        let text = |bytes: &[u8]| redacted(redact, bytes);
        let parsed = headless(argv);
        let stdin = stdin.map(|s| String::from_utf8_lossy(s).into_owned());
        let prompt = parsed
            .as_ref()
            .and_then(|a| a.prompt_with(stdin.as_deref()))
            .map(|p| text(p.as_bytes()));
        recording::header(Invocation {
            argv: argv.iter().map(|a| text(a.as_bytes())).collect(),
            prompt,
            output_format: parsed.map(|a| a.format()),
            ..Invocation::default()
        })
        .invocation
    }

    fn header(&self, invocation: Invocation) -> Header {
        if invocation.acp {
            return ACP.header(invocation);
        }
        recording::header(invocation)
    }

    fn credentials_out(&self, line: &[u8], marker: &str) -> Option<Vec<u8>> {
        ACP.credentials_out(line, marker)
    }
}

/// A headless run's arguments in `argv` (after the program, or after `gemini` when the
/// program is `mock-agent`).
fn headless(argv: &[String]) -> Option<Args> {
    match args::parse(after_command(argv, DIALECT)) {
        Ok(Command::Run(args)) => Some(*args),
        _ => None,
    }
}

/// The arguments of Gemini CLI when `program ARGV` runs it: a program named `gemini`,
/// or the npm package's script it links to (`bundle/gemini.js`), or `mock-agent
/// gemini`.
fn gemini_args<'a>(program: &str, argv: &'a [String]) -> Option<&'a [String]> {
    let is_cli = |name: &str| name == DIALECT || name == format!("{DIALECT}.js");
    cli_args(program, argv, is_cli, DIALECT)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::argv;

    #[test]
    fn gemini_runs_are_its_own_one_way_but_acp() {
        let run = argv(&["-o", "stream-json", "-p", "Say hi"]);
        assert!(Recording.records("/opt/bin/gemini", &run));
        assert!(Recording.records("/opt/lib/@google/gemini-cli/bundle/gemini.js", &run));
        assert!(Recording.records("mock-agent", &argv(&["gemini", "-p", "x"])));
        // `--acp` is a conversation, recorded as the ACP agent's.
        assert!(Recording.records("/opt/bin/gemini", &argv(&["--acp"])));
        assert!(Recording.converses("/opt/bin/gemini", &argv(&["--acp"])));
        let acp = Recording.invocation(&argv(&["--acp"]), None, &|b| b.to_vec());
        assert!(acp.acp && Recording.header(acp).invocation.acp);
        assert!(!Recording.records("claude", &run));
        assert!(!Recording.converses("gemini", &run));
        assert!(Recording.prompt_in_argv(&run));
        assert!(!Recording.prompt_in_argv(&argv(&["-o", "json"])));
        let invocation = Recording.invocation(&run, Some(b"ctx\n"), &|b| b.to_vec());
        assert_eq!(invocation.prompt.as_deref(), Some("ctx\n\n\nSay hi"));
        assert!(recording::is_gemini(&Recording.header(invocation)));
    }
}
