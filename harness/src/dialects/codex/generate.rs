//! Generated Codex sessions: a proptest strategy of [`Session`]s (turns of reasoning,
//! agent messages, command executions, file changes, usage; some ending in the real
//! CLI's failures), typed fault strategies of the catalogue's `codex` section, and
//! the session of a seed. Shrinking makes a failing session smaller: fewer turns,
//! fewer items, shorter texts, a completed turn instead of a failed one.

use proptest::prelude::*;

use super::dialect::Codex;
use super::faults::{parse, CodexFault, FROM_ENV};
use super::recording::write_cassette;
use super::session::{Change, Command, End, Failure, FileChange, Item, Session, Turn, Usage};
use super::wire::{change_kinds, events, items, messages};
use crate::faults::strategy;
use crate::run::generator::{Draws, Generator, WriteCassette};
use crate::run::Generated;

/// The words of a text that are not plain: not ASCII, a line break, quotes.
const ODD: &[&str] = &[
    "naïve",
    "日本語",
    "emoji 🎉",
    "line\nbreak",
    "\"quoted\" 'single' \\ back",
];

/// A piece of text: words, some of them not ASCII, sometimes a line break.
fn text() -> impl Strategy<Value = String> {
    strategy::text(ODD, 1..12)
}

fn command() -> impl Strategy<Value = Command> {
    (
        prop::sample::select(vec![
            "ls -la",
            "cargo test",
            "echo hello",
            "cat README.md",
            "touch made.txt",
        ]),
        text(),
        prop_oneof![4 => Just(0), 1 => 1i32..4],
    )
        .prop_map(|(command, output, exit_code)| Command {
            command: command.to_owned(),
            output,
            exit_code,
            asks: command.starts_with("touch"),
        })
}

fn file_change() -> impl Strategy<Value = FileChange> {
    prop::collection::vec(
        ("[a-z]{1,8}", prop::sample::select(change_kinds::ALL.to_vec())),
        1..3,
    )
    .prop_map(|files| FileChange {
        changes: files
            .into_iter()
            .map(|(name, kind)| Change {
                path: format!("/work/{name}.md"),
                kind: kind.to_owned(),
                diff: String::new(),
            })
            .collect(),
        asks: true,
    })
}

fn item() -> impl Strategy<Value = Item> {
    prop_oneof![
        2 => text().prop_map(Item::Reasoning),
        3 => text().prop_map(Item::AgentMessage),
        3 => command().prop_map(Item::Command),
        2 => file_change().prop_map(Item::FileChange),
    ]
}

fn end() -> impl Strategy<Value = End> {
    prop_oneof![
        8 => Just(End::Completed),
        1 => Just(End::Failed(Failure::RateLimited)),
        1 => Just(End::Failed(Failure::Unauthorized)),
        1 => text().prop_map(|message| End::Failed(Failure::Other { message })),
        1 => text().prop_map(|partial| End::Failed(Failure::StreamCut { partial })),
    ]
}

fn usage() -> impl Strategy<Value = Usage> {
    (1u64..5000, 0u64..100, 1u64..2000, 0u64..100).prop_map(|(input, cached, output, reasoning)| Usage {
        input_tokens: input,
        cached_input_tokens: cached.min(input),
        cache_write_input_tokens: 0,
        output_tokens: output,
        reasoning_output_tokens: reasoning.min(output),
    })
}

/// A turn: items that end with an agent message (the answer), its end and usage.
fn turn() -> impl Strategy<Value = Turn> {
    (prop::collection::vec(item(), 0..6), text(), end(), usage()).prop_map(|(mut items, last, end, usage)| {
        items.push(Item::AgentMessage(last));
        Turn { items, end, usage }
    })
}

impl Generator for Codex {
    type Session = Session;
    type Fault = CodexFault;
    const SALT: &'static [u8] = b"codex";
    const PLAYED: (&'static str, &'static str, &'static str) = ("events", "replay", "codex exec --json");
    const DEFAULT_SESSION: fn() -> Session = || super::session::default_session("/work");
    const WRITE_CASSETTE: WriteCassette<Session> = write_cassette;
    const FAULTS: Draws<CodexFault> = Draws {
        after: 14,
        at: &[
            events::TURN_STARTED,
            events::TURN_COMPLETED,
            events::TURN_FAILED,
            events::ITEM_STARTED,
            items::AGENT_MESSAGE,
            items::COMMAND_EXECUTION,
            items::FILE_CHANGE,
        ],
        own: &[
            "signal:name=TERM,{place}",
            "unknown:kind=item,{place}",
            "stderr:text=\"WARN codex_core: slow network\",{place}",
        ],
        presets: || {
            let quota = format!("turn-failed:text=\"{}\"", messages::QUOTA);
            let presets = ["unauthorized", "rate-limited", "unknown-model", "stream-cut"].map(String::from);
            presets.into_iter().chain([quota]).collect()
        },
        parse: |spec| parse(spec, FROM_ENV),
    };

    /// Generated sessions of 1 to 3 turns (one a process; `exec resume` plays the next).
    fn sessions() -> impl Strategy<Value = Session> {
        prop::collection::vec(turn(), 1..4).prop_map(|turns| Session { turns })
    }

    /// How many stdout lines the session's first turn has.
    fn lines(session: &Session, seed: u64) -> usize {
        exec_lines(session, seed).len()
    }

    /// One line a line, as `codex exec --json` writes them.
    fn told(session: &Session, seed: u64) -> Generated {
        Generated::told(exec_lines(session, seed))
    }
}

/// The stdout lines of the session's first turn, with the thread of `seed`.
fn exec_lines(session: &Session, seed: u64) -> Vec<Vec<u8>> {
    super::faults::exec_lines(session, super::exec::Thread::new(seed, 0)).0
}

/// The session of a seed ([`Generator::from_seed`]): the same on every run and
/// machine, for one version.
pub fn from_seed(seed: u64) -> Session {
    Codex::from_seed(seed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialects::codex::check::CodexChecker;
    use crate::dialects::codex::recording::Recording;

    #[test]
    fn a_seed_is_one_session_that_reads_back_and_every_drawn_fault_parses() {
        crate::run::generator::assert_generator::<Codex, _, _>(
            |spec| parse(spec, FROM_ENV),
            |path| {
                let recording = Recording::open(path).expect("a Codex cassette");
                (
                    recording.stdout.len(),
                    recording.session().turns[0].final_message().map(str::to_owned),
                )
            },
            |session| {
                (
                    Codex::lines(session, 0),
                    session.turns[0].final_message().map(str::to_owned),
                )
            },
        );
    }

    proptest! {
        #[test]
        fn every_generated_run_is_lint_clean(session in Codex::sessions()) {
            let (lines, exit) = super::super::faults::exec_lines(&session, super::super::exec::Thread::new(1, 0));
            let report = crate::check::lines::report::<CodexChecker>(&lines, Some(exit));
            prop_assert!(report.findings.is_empty(), "{:?}", report);
        }
    }
}
