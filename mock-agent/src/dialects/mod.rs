//! The CLIs the mock stands in for: each dialect's process side (what cannot be pure:
//! reading stdin, the executor's player, the real CLI's subcommands), in its folder,
//! and the one list of them.
//!
//! The library's `harness::dialects` holds each dialect's pure side; here is what runs
//! as the process. The machinery of this crate (the executor, the recorder, the
//! settings, the mock's own commands) names no dialect: `main` finds the CLI the mock
//! was run as in [`ALL`], by the name it was installed under or by `mock-agent WORD`.

pub mod claude;
pub mod cursor_acp;
pub mod cursor_print;

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
}

/// `cursor-agent` (and `agent`): print mode, and server mode under `acp`.
pub static CURSOR: &dyn Cli = &cursor_print::Cursor;

/// `claude`: Claude Code, as the Agent SDKs run it.
pub static CLAUDE: &dyn Cli = &claude::Claude;

/// Every CLI; the first is the one `mock-agent ARGS` runs when `ARGS` is none of the
/// mock's own commands.
pub static ALL: &[&dyn Cli] = &[CURSOR, CLAUDE];

/// The CLI installed under the name `program` (a link named `claude`).
pub fn by_program(program: &str) -> Option<&'static dyn Cli> {
    ALL.iter()
        .copied()
        .find(|cli| cli.dialect().programs().contains(&program))
}

/// What recording `command` (the program and its arguments) needs to know of its CLI:
/// the first CLI but the default that records it as a conversation (`claude` with
/// stream-json input), else the default's.
pub fn recorded_for(command: &[String]) -> &'static dyn Recorded {
    let (default, others) = (ALL[0], &ALL[1..]);
    let Some((program, argv)) = command.split_first() else {
        return default.recorded();
    };
    others
        .iter()
        .map(|cli| cli.recorded())
        .find(|recorded| recorded.converses(program, argv))
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
            assert!(by_word(cli.word()).is_some_and(|found| std::ptr::eq(found, *cli)));
            for program in cli.dialect().programs() {
                assert!(
                    by_program(program).is_some_and(|found| std::ptr::eq(found, *cli)),
                    "{program}"
                );
            }
        }
        assert!(by_program("mock-agent").is_none());
    }
}
