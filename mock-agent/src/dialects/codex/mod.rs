//! OpenAI Codex's stand-in: `codex ARGS` (a link named `codex`) or `mock-agent codex
//! ARGS`, as the TypeScript SDK (`@openai/codex-sdk`) and scripts run it.
//!
//! - `codex exec [OPTIONS] [PROMPT]` and `codex exec resume ID [PROMPT]`: one turn of
//!   the session (`exec.rs`): the prompt from argv, `-` or stdin, JSONL events on
//!   stdout with `--json` (`--experimental-json`), the final message alone otherwise;
//!   `--output-schema FILE`, `-o FILE`; the thread kept under `CODEX_HOME`
//!   (`threads.rs`) so that `resume` goes on with it.
//! - `codex --version`, `codex exec --help` and `codex --help`.
//! - Argument errors in clap's words, exit 2 (the harness's parser,
//!   [`harness::dialects::codex::args`]).
//! - `codex app-server [--listen stdio://]`: JSON-RPC over stdio, as the Python SDK
//!   and the IDE extensions run it (`app_server.rs`): the handshake, threads started
//!   and resumed (kept under `CODEX_HOME` too), turns, interrupts, approval requests
//!   and their answers, the real server's errors.
//! - Any other word is a prompt for the interactive UI, which needs a terminal:
//!   `Error: stdin is not a terminal`, exit 1, as the real CLI with a piped stdin
//!   (`codex mcp-server`, removed in 0.154.0, ends so too).
//!
//! Faults come from the catalogue's `codex` section (`mock-agent faults`), timing from
//! `MOCK_AGENT_TIMING`, the session from `MOCK_AGENT_CASSETTE` (a Codex cassette),
//! `MOCK_AGENT_GENERATE` (a seed) or the built-in default session.

mod app_server;
pub mod drift;
mod exec;
pub mod record;
mod stream;
mod threads;

use harness::dialects::codex::args::{self, Command};
use harness::dialects::codex::wire::{stderr, VERSION_LINE};
use harness::exit_codes;
use harness::frames::Exit;

use crate::execute;

/// Codex's CLI, as a process (see [`crate::dialects::Cli`]).
#[derive(Debug, Clone, Copy, Default)]
pub struct Codex;

impl crate::dialects::Cli for Codex {
    fn dialect(&self) -> &'static dyn harness::run::Dialect {
        harness::dialects::CODEX
    }

    fn word(&self) -> &'static str {
        harness::dialects::CODEX.name()
    }

    fn run(&self, args: &[String]) -> Exit {
        run(args)
    }

    fn recorded(&self) -> &'static dyn crate::record::Recorded {
        &record::Recording
    }

    fn drift(&self) -> &'static [&'static dyn crate::drift::Drift] {
        &[&drift::CodexDrift, &drift::CodexAppServerDrift]
    }
}

/// Runs the stand-in with `argv` (its arguments, without the program).
pub fn run(argv: &[String]) -> Exit {
    // A served conversation's journal, kept on disk as it passes.
    execute::journaled::run(argv, |settings, entry, spooled| match args::parse(argv) {
        Err(e) => {
            eprint!("{}", e.message);
            entry.rejected = Some(e.message);
            Exit::Code(e.exit_code)
        }
        Ok(Command::Version) => crate::process::answer(&format!("{VERSION_LINE}\n")),
        Ok(Command::Help(text)) => crate::process::answer(text),
        Ok(Command::Exec(args)) => exec::run(&args, settings, entry),
        Ok(Command::AppServer(args)) => app_server::run(&args, settings, entry, spooled),
        Ok(Command::Interactive { .. }) => {
            eprintln!("{}", stderr::NOT_A_TERMINAL);
            Exit::Code(exit_codes::AGENT_ERROR)
        }
    })
}
