//! The CLIs the mock stands in for: each dialect's process side (what cannot be pure:
//! reading stdin, the executor's player, the real CLI's subcommands), in its folder,
//! and the one list of them.
//!
//! The library's `harness::dialects` holds each dialect's pure side; here is what runs
//! as the process. The machinery of this crate (the executor, the recorder, the
//! settings, the mock's own commands) names no dialect: `main` finds the CLI the mock
//! was run as in [`ALL`], by the name it was installed under or by `mock-agent WORD`.

pub mod claude;
pub mod codex;
pub mod cursor_print;
pub mod gemini;

use harness::frames::Exit;
use harness::run::Dialect;

use crate::record::Recorded;

/// An agent CLI as a process: the names it is run by, and how it runs.
pub trait Cli: Sync {
    /// The dialect whose names it answers to (its `programs()`: a link named so runs
    /// it). One CLI may serve several dialects (`cursor-agent -p` and `cursor-agent
    /// acp`): this is the one whose executables it is.
    fn dialect(&self) -> &'static dyn Dialect;

    /// The word of `mock-agent WORD ARGS` that runs it (`agent`, `claude`).
    fn word(&self) -> &'static str;

    /// Runs it with `args` (the arguments after the program), as the real CLI would.
    fn run(&self, args: &[String]) -> Exit;

    /// What `mock-agent record` needs to know of a run of the real CLI.
    fn recorded(&self) -> &'static dyn Recorded;

    /// Its drift checks (`mock-agent drift`), one a mode (dialect): the scenarios its
    /// real CLI and the stand-in are run on. None: a CLI on no registry.
    fn drift(&self) -> &'static [&'static dyn crate::drift::Drift] {
        &[]
    }
}

/// `cursor-agent` (and `agent`): print mode, and server mode under `acp`.
pub static CURSOR: &dyn Cli = &cursor_print::Cursor {
    server: &harness::dialects::cursor_acp::PROFILE,
};

/// `claude`: Claude Code, as the Agent SDKs run it.
pub static CLAUDE: &dyn Cli = &claude::Claude;

/// `codex`: OpenAI's Codex CLI, as its TypeScript SDK runs it (`codex exec --json`).
pub static CODEX: &dyn Cli = &codex::Codex;

/// `gemini`: Google's Gemini CLI, headless (`gemini -p`), and its ACP agent
/// (`gemini --acp`, served by [`gemini::acp::serve`]).
pub static GEMINI: &dyn Cli = &gemini::Gemini;

/// Every CLI; the first is the one `mock-agent ARGS` runs when `ARGS` is none of the
/// mock's own commands.
pub static ALL: &[&dyn Cli] = &[CURSOR, CLAUDE, CODEX, GEMINI];

/// The CLI installed under the name `program` (a link named `claude`).
pub fn by_program(program: &str) -> Option<&'static dyn Cli> {
    ALL.iter()
        .copied()
        .find(|cli| cli.dialect().programs().contains(&program))
}

/// The default CLI's sessions as the mock's own commands play them (`replay`,
/// `generate` of the default dialect, `unused`).
pub use cursor_print::play as default_play;

/// Why a session could not be played or written for one of the mock's own commands.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PlayError {
    /// A bad `--fault` or `--timing` value.
    #[error(transparent)]
    Spec(#[from] harness::Diagnostic),
    /// The cassette cannot be written.
    #[error(transparent)]
    Write(#[from] harness::error::WriteError),
    /// Writing to stdout failed (other than a closed pipe, a quiet end).
    #[error("cannot write to stdout")]
    Stdout(#[source] std::io::Error),
}

/// Says what was written, and how to play it.
pub fn wrote(path: &std::path::Path, count: usize, what: &str, play: &str) -> Exit {
    eprintln!("wrote {} ({count} {what}); {play}", path.display());
    Exit::Code(harness::exit_codes::OK)
}

/// `mock-agent generate` in a dialect other than the default: its session (or
/// conversation) of `seed`, told or written as a cassette.
pub fn generate(
    dialect: &dyn Dialect,
    seed: u64,
    size: Option<usize>,
    out: Option<&std::path::Path>,
) -> Result<Exit, PlayError> {
    match dialect.generate(seed, size, out)? {
        harness::run::Generated::Told(text) => {
            crate::process::print(&text).map_err(PlayError::Stdout)?;
            Ok(Exit::Code(harness::exit_codes::OK))
        }
        harness::run::Generated::Written {
            path,
            lines,
            unit,
            play,
        } => Ok(wrote(&path, lines, unit, &play)),
        _ => Ok(Exit::Code(harness::exit_codes::OK)),
    }
}

/// The dialect the mock's own commands play: `--dialect NAME`, or `--acp`, short for
/// `--dialect cursor-acp` (the first dialect that converses with the CLI's names), or
/// the default.
pub fn chosen(acp: bool, named: Option<&'static dyn Dialect>) -> &'static dyn Dialect {
    match (acp, named) {
        (true, _) => harness::dialects::CURSOR_ACP,
        (false, Some(dialect)) => dialect,
        (false, None) => harness::dialects::ALL[0],
    }
}

/// What recording `command` (the program and its arguments) needs to know of its CLI:
/// the first CLI but the default that records it its own way (`claude` with
/// stream-json input, `codex`), else the default's.
pub fn recorded_for(command: &[String]) -> &'static dyn Recorded {
    let (default, others) = (ALL[0], &ALL[1..]);
    let Some((program, argv)) = command.split_first() else {
        return default.recorded();
    };
    others
        .iter()
        .map(|cli| cli.recorded())
        .find(|recorded| recorded.records(program, argv))
        .unwrap_or(default.recorded())
}

/// The CLI that `mock-agent WORD ARGS` runs.
pub fn by_word(word: &str) -> Option<&'static dyn Cli> {
    ALL.iter().copied().find(|cli| cli.word() == word)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_cli_answers_to_its_names_and_its_word() {
        for cli in ALL {
            assert!(by_word(cli.word()).is_some_and(|found| found.word() == cli.word()));
            for program in cli.dialect().programs() {
                assert!(
                    by_program(program).is_some_and(|found| found.word() == cli.word()),
                    "{program}"
                );
            }
        }
        assert!(by_program("mock-agent").is_none());
    }
}
