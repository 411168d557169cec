//! `gemini --acp` as a process: the one ACP server ([`crate::acp`]) with Gemini's
//! profile (`harness::dialects::gemini::acp`).
//!
//! [`serve`] is what the `gemini` CLI ([`super`]) runs when its arguments hold
//! `--acp` or `--experimental-acp`, and [`Recording`] how `mock-agent record` takes
//! such a run.

use harness::cassette::{Header, Invocation};
use harness::dialects::gemini::acp::{is_acp, PROFILE};
use harness::frames::Exit;

use crate::record::{redacted, Recorded, Redact};

/// Runs `gemini --acp` with `argv` (the arguments after the program, the flag among
/// them or not): Gemini CLI's ACP agent on stdin and stdout, playing the source the
/// settings name (`MOCK_AGENT_CASSETTE`, `MOCK_AGENT_GENERATE`, else the default
/// session), with `MOCK_AGENT_FAULTS`, timing and journal. Its global flags (`-m`,
/// `--approval-mode`, `-y`, `--sandbox`, `--debug`) change nothing.
pub fn serve(argv: &[String]) -> Exit {
    // What 0.61.0 logs at the start in a folder it does not trust (observed by `mock-agent
    // drift`, and in shared/REAL-GEMINI.md), with the default session: a cassette
    // replays its own stderr, and a generated session has none.
    let default_session = crate::settings::Settings::from_env()
        .is_ok_and(|settings| settings.cassette.is_none() && settings.generate.is_none());
    if default_session && !trusted(argv) {
        eprintln!("{UNTRUSTED_AGENTS}\n{UNTRUSTED_HOOKS}");
    }
    crate::acp::run(&PROFILE, argv)
}

/// The first line 0.61.0 writes on stderr in a folder it does not trust.
const UNTRUSTED_AGENTS: &str =
    "Skipping project agents due to untrusted folder. To enable, ensure that the project root is trusted.";

/// Its next line there.
const UNTRUSTED_HOOKS: &str = "Project hooks disabled because the folder is not trusted.";

/// Whether the folder is trusted as far as the agent's start is concerned:
/// `--skip-trust`, or `GEMINI_CLI_TRUST_WORKSPACE=true` (the folders marked trusted in
/// `~/.gemini/trustedFolders.json` are not read here).
fn trusted(argv: &[String]) -> bool {
    argv.iter().any(|a| a == "--skip-trust")
        || std::env::var(harness::dialects::gemini::wire::env::TRUST_WORKSPACE)
            .is_ok_and(|v| v == "true" || v == "1")
}

/// Recording `gemini --acp`: both directions as they pass, the credentials of
/// `authenticate` (its `_meta["api-key"]`) kept out.
#[derive(Debug, Clone, Copy, Default)]
pub struct Recording;

impl Recorded for Recording {
    fn converses(&self, _program: &str, argv: &[String]) -> bool {
        is_acp(argv)
    }

    fn invocation(&self, argv: &[String], stdin: Option<&[u8]>, redact: Redact<'_>) -> Invocation {
        let _ = stdin;
        Invocation {
            argv: argv.iter().map(|a| redacted(redact, a.as_bytes())).collect(),
            acp: true,
            ..Invocation::default()
        }
    }

    fn header(&self, invocation: Invocation) -> Header {
        Header::acp(invocation)
    }

    fn credentials_out(&self, line: &[u8], marker: &str) -> Option<Vec<u8>> {
        crate::acp::record::credentials_out(line, marker)
    }
}
