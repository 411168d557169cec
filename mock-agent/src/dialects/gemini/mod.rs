//! Google Gemini CLI's stand-in: `gemini ARGS` (a link named `gemini`) or `mock-agent
//! gemini ARGS`, as programs run it headless.
//!
//! - `gemini -p PROMPT [-o text|json|stream-json]` (or a prompt piped on stdin, which
//!   comes before `-p`'s): one run of the session (`headless.rs`), with `-m`,
//!   `--approval-mode`, `-y/--yolo`, `-r/--resume latest|N|UUID`, `--session-id`,
//!   `--skip-trust`; the sessions kept under `$GEMINI_CLI_HOME` (else `$HOME`) so
//!   that `--resume` finds them (`sessions.rs`).
//! - A folder not trusted (no `--skip-trust`, no `GEMINI_CLI_TRUST_WORKSPACE=true`,
//!   not in `~/.gemini/trustedFolders.json`) ends as 0.61.0 ends it: the trust
//!   message, exit 55.
//! - `gemini --version`, `gemini --help`; argument errors in yargs' words, exit 1
//!   ([`harness::dialects::gemini::args`]).
//! - The relaunch (`relaunch.rs`): with the `relaunch` or `child-killed` fault, a
//!   parent that ignores SIGTERM and SIGINT and a child that does the work, as the
//!   real CLI runs (`GEMINI_CLI_NO_RELAUNCH` turns it off, as it does the real one's).
//! - `gemini --acp` is the ACP agent, served by [`acp::serve`].
//!
//! Faults come from the catalogue's `gemini` section (`mock-agent faults`), timing from
//! `MOCK_AGENT_TIMING`, the session from `MOCK_AGENT_CASSETTE` (a Gemini cassette),
//! `MOCK_AGENT_GENERATE` (a seed) or the built-in default session.

pub mod acp;
pub mod drift;
mod headless;
pub mod record;
mod relaunch;
mod sessions;

use harness::dialects::gemini::args::{self, Command, HELP};
use harness::dialects::gemini::wire::VERSION;
use harness::frames::Exit;

use crate::execute;

/// Gemini CLI, as a process (see [`crate::dialects::Cli`]).
#[derive(Debug, Clone, Copy, Default)]
pub struct Gemini;

impl crate::dialects::Cli for Gemini {
    fn dialect(&self) -> &'static dyn harness::run::Dialect {
        harness::dialects::GEMINI
    }

    fn word(&self) -> &'static str {
        harness::dialects::GEMINI.name()
    }

    fn run(&self, args: &[String]) -> Exit {
        run(args)
    }

    fn recorded(&self) -> &'static dyn crate::record::Recorded {
        &record::Recording
    }

    fn drift(&self) -> &'static [&'static dyn crate::drift::Drift] {
        &[&drift::GeminiDrift, &drift::GeminiAcpDrift]
    }
}

/// Runs the stand-in with `argv` (its arguments, without the program).
pub fn run(argv: &[String]) -> Exit {
    if let Some(exit) = relaunch::as_parent(argv) {
        return exit;
    }
    let command = args::parse(argv);
    if let Ok(Command::Acp(_)) = &command {
        return acp::serve(argv);
    }
    execute::journaled::run(argv, |settings, entry, _| match command {
        Err(e) => {
            eprint!("{}", e.message);
            entry.rejected = Some(e.message);
            Exit::Code(e.exit_code)
        }
        Ok(Command::Version) => crate::process::answer(&format!("{VERSION}\n")),
        Ok(Command::Help) => crate::process::answer(HELP),
        Ok(Command::Run(args)) => headless::run(&args, settings, entry),
        // Handled above.
        Ok(Command::Acp(_)) => Exit::Code(harness::exit_codes::INTERNAL),
    })
}
