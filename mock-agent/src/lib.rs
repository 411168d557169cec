//! `mock-agent`, the process: a stand-in for the `cursor-agent` CLI.
//!
//! Installed under the name `claude`, or run as `mock-agent claude ARGS`, it stands in
//! for Claude Code ([`claude`]).
//!
//! Installed under the name `cursor-agent` or `agent`, run as `mock-agent agent ARGS`,
//! or run as `mock-agent ARGS` with arguments that are not one of its own subcommands,
//! it behaves as the real CLI ([`agent`]). Its own subcommands are in [`commands`].
//! The model, the pipeline and the runner are the `harness` crate's.
//!
//! Modules, lowest first; a module imports only from the modules listed before it
//! (`tests/layers.rs` checks it):
//!
//! 1. [`process`] (the process's own ends: messages, exit, signals, children),
//!    [`args`] (the real CLI's command line), [`library`] (the shim's cassettes),
//!    [`settings`] (`MOCK_AGENT_*`);
//! 2. [`execute`]: the tokio executor that performs a plan;
//! 3. [`record`]: the recording proxy; [`serve`]: the ACP server loop;
//!    [`model_api`]: the scripted model APIs (loopback HTTP stand-ins of the APIs the
//!    real CLIs call); [`claude`]: Claude Code's stand-in;
//! 4. [`agent`]: the emulated CLI (replay, the shim's record modes);
//! 5. [`commands`]: the mock's own subcommands.

/// `eprintln!` that does not panic on a closed stderr.
macro_rules! eprintln {
    ($($arg:tt)*) => { $crate::process::stderr_line(format_args!($($arg)*)) };
}

/// `println!` that does not panic on a closed stdout.
macro_rules! println {
    ($($arg:tt)*) => { $crate::process::stdout_line(format_args!($($arg)*)) };
}

pub mod args;
pub mod library;
pub mod process;
pub mod settings;

pub mod execute;

pub mod claude;
pub mod model_api;
pub mod record;
pub mod serve;

pub mod agent;

pub mod commands;

use std::path::Path;

use harness::frames::Exit;

/// Runs the mock with the process's arguments (`argv[0]` is the program) and returns
/// how the process is to end.
pub fn main(argv: &[String]) -> Exit {
    let program = argv
        .first()
        .and_then(|p| Path::new(p).file_stem())
        .and_then(|s| s.to_str())
        .unwrap_or("mock-agent");
    if program == "cursor-agent" || program == "agent" {
        return agent::run(argv.get(1..).unwrap_or_default());
    }
    if program == "claude" {
        return claude::run(argv.get(1..).unwrap_or_default());
    }
    match argv.get(1).map(String::as_str) {
        Some("agent") => agent::run(&argv[2..]),
        Some("claude") => claude::run(&argv[2..]),
        Some(word) if commands::is_own(word) => commands::run(argv).unwrap_or_else(|e| report(&e)),
        _ => agent::run(argv.get(1..).unwrap_or_default()),
    }
}

/// The one place the errors of the mock's own subcommands are reported: `mock-agent: `
/// and the error with its causes, each said once, on stderr; the process then ends
/// with the error's exit code (see [`harness::exit_codes`]).
fn report(e: &commands::Error) -> Exit {
    eprintln!("mock-agent: {}", harness::error::report(e));
    Exit::Code(e.exit_code())
}
