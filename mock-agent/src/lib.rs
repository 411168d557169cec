//! `mock-agent`, the process: a stand-in for the agent CLIs (`cursor-agent`, `claude`,
//! ...).
//!
//! Installed under one of a CLI's names (a link named `claude`), or run as `mock-agent
//! WORD ARGS` (`mock-agent claude ARGS`, `mock-agent agent ARGS`), it behaves as that
//! real CLI ([`dialects`]); run as `mock-agent ARGS` with arguments that are not one of
//! its own subcommands, as the first of them (`cursor-agent`). Its own subcommands are
//! in [`commands`]. The model, the pipeline and the runner are the `harness` crate's.
//!
//! No top-level module imports one that imports it back (`tests/layers.rs` checks
//! it); from the bottom:
//!
//! 1. [`process`] (the process's own ends: messages, exit, signals, children),
//!    [`settings`] (`MOCK_AGENT_*`);
//! 2. [`execute`]: the tokio executor that performs a plan, and the bounded inbox
//!    of a conversation's stdin;
//! 3. [`record`]: the recording proxy; [`model_api`]: the scripted model APIs
//!    (loopback HTTP stand-ins of the APIs the real CLIs call);
//! 4. [`dialects`]: each CLI's process side, in its folder (Cursor's CLI in print
//!    mode and its ACP server, Claude Code's stand-in), and the list of them;
//! 5. [`commands`]: the mock's own subcommands.

/// `eprintln!` that does not panic on a closed stderr.
macro_rules! eprintln {
    ($($arg:tt)*) => { $crate::process::stderr_line(format_args!($($arg)*)) };
}

/// `println!` that does not panic on a closed stdout.
macro_rules! println {
    ($($arg:tt)*) => { $crate::process::stdout_line(format_args!($($arg)*)) };
}

pub mod process;
pub mod settings;

pub mod execute;

pub mod model_api;
pub mod record;

pub mod drift;

// The Agent Client Protocol's one machinery, not a dialect: each ACP agent is it with
// its profile, registered as a dialect.
pub mod acp;
pub mod dialects;

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
    if let Some(cli) = dialects::by_program(program) {
        return cli.run(argv.get(1..).unwrap_or_default());
    }
    match argv.get(1).map(String::as_str) {
        Some(word) if dialects::by_word(word).is_some() => {
            dialects::by_word(word).map_or(Exit::Code(0), |cli| cli.run(&argv[2..]))
        }
        Some(word) if commands::is_own(word) => commands::run(argv).unwrap_or_else(|e| report(&e)),
        _ => match stood_in_for() {
            Ok(cli) => cli.run(argv.get(1..).unwrap_or_default()),
            Err(exit) => exit,
        },
    }
}

/// The CLI the mock run by its own name with a CLI's arguments stands in for:
/// `MOCK_AGENT_CLI`'s (a case of `mock-agent test` sets it, for a program that runs
/// the target of the link it was given), else the first.
fn stood_in_for() -> Result<&'static dyn dialects::Cli, Exit> {
    let name = harness::journal::settings::CLI;
    let Some(program) = std::env::var_os(name).filter(|v| !v.is_empty()) else {
        return Ok(dialects::ALL[0]);
    };
    let program = program.to_string_lossy();
    dialects::by_program(&program).ok_or_else(|| {
        let known: Vec<&str> = dialects::ALL
            .iter()
            .flat_map(|cli| cli.dialect().programs().iter().copied())
            .collect();
        eprintln!(
            "mock-agent: {name}=`{program}` (column 1) names no CLI the mock stands in for; \
             set it to one of {}, or unset it",
            known.join(", ")
        );
        Exit::Code(harness::exit_codes::USAGE)
    })
}

/// The one place the errors of the mock's own subcommands are reported: `mock-agent: `
/// and the error with its causes, each said once, on stderr; the process then ends
/// with the error's exit code (see [`harness::exit_codes`]).
fn report(e: &commands::Error) -> Exit {
    eprintln!("mock-agent: {}", harness::error::report(e));
    Exit::Code(e.exit_code())
}
