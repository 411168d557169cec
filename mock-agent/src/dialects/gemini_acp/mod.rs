//! `gemini --acp` as a process: the one ACP server ([`super::acp`]) with Gemini's
//! profile (`harness::dialects::gemini_acp`).
//!
//! [`serve`] is what the `gemini` CLI runs when its arguments hold `--acp` or
//! `--experimental-acp`; until the headless `gemini` CLI is registered, this folder's
//! [`GeminiAcp`] answers to the name `gemini` itself (and to `mock-agent gemini-acp`),
//! and serves ACP whatever the arguments.

use harness::cassette::{Header, Invocation};
use harness::dialects::gemini_acp::{self, PROFILE};
use harness::frames::Exit;
use harness::run::Dialect;

use crate::record::Recorded;

/// What `gemini --version` prints: the version the profile stands in for.
const VERSION: &str = "0.61.0";

/// `gemini --acp`, as a process (see [`crate::dialects::Cli`]).
#[derive(Debug, Clone, Copy, Default)]
pub struct GeminiAcp;

impl crate::dialects::Cli for GeminiAcp {
    fn dialect(&self) -> &'static dyn Dialect {
        harness::dialects::GEMINI_ACP
    }

    fn word(&self) -> &'static str {
        "gemini-acp"
    }

    /// `--version` (`-v`) prints the version, as clients that pick between `--acp`
    /// and `--experimental-acp` ask first (acpx); anything else serves ACP.
    fn run(&self, args: &[String]) -> Exit {
        match args.first().map(String::as_str) {
            Some("--version" | "-v") if args.len() == 1 => crate::process::answer(&format!("{VERSION}\n")),
            _ => serve(args),
        }
    }

    fn recorded(&self) -> &'static dyn Recorded {
        &Recording
    }
}

/// Runs `gemini --acp` with `argv` (the arguments after the program, the flag among
/// them or not): Gemini CLI's ACP agent on stdin and stdout, playing the source the
/// settings name (`MOCK_AGENT_CASSETTE`, `MOCK_AGENT_GENERATE`, else the default
/// session), with `MOCK_AGENT_FAULTS`, timing and journal. Its global flags (`-m`,
/// `--approval-mode`, `-y`, `--sandbox`, `--debug`) change nothing.
pub fn serve(argv: &[String]) -> Exit {
    super::acp::run(&PROFILE, argv)
}

/// Recording `gemini --acp`: both directions as they pass, the credentials of
/// `authenticate` (its `_meta["api-key"]`) kept out.
#[derive(Debug, Clone, Copy, Default)]
pub struct Recording;

impl Recorded for Recording {
    fn converses(&self, program: &str, argv: &[String]) -> bool {
        let _ = program;
        gemini_acp::is_acp(argv)
    }

    fn invocation(
        &self,
        argv: &[String],
        stdin: Option<&[u8]>,
        redact: &dyn Fn(&[u8]) -> Vec<u8>,
    ) -> Invocation {
        let _ = stdin;
        let text = |s: &str| String::from_utf8_lossy(&redact(s.as_bytes())).into_owned();
        Invocation {
            argv: argv.iter().map(|a| text(a)).collect(),
            acp: true,
            ..Invocation::default()
        }
    }

    fn header(&self, invocation: Invocation) -> Header {
        Header::acp(invocation)
    }

    fn credentials_out(&self, line: &[u8], marker: &str) -> Option<Vec<u8>> {
        super::cursor_print::record::credentials_out(line, marker)
    }
}
