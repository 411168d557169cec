//! What a correct consumer concludes from a Claude Code run: the session played
//! with the faults against a careful client (one prompt; every permission request
//! allowed), as the mock would play it.
//!
//! The run succeeded when a readable `result` that is not an error arrives and the
//! process ends with exit 0; it failed on an error result, an exit or a signal
//! before the result, a cut line, a stall for ever. Faults that break what the SDKs
//! can read (`missing`, `malformed`, `huge`: the SDKs' known limits) leave the verdict
//! open ([`judged`]): a consumer may report either, and is judged on ending and not
//! crashing.

use serde_json::Value;

use super::faults::{Answer, Injector, Out};
use super::play::{Next, Options, Player};
use super::session::Session;
use super::wire::{content, control, fields, types};
use crate::dialects::claude::faults::ClaudeFault;
use crate::expect::Expectation;
use crate::frames::Exit;

/// What a careful consumer concludes from `session` played with `faults`, and the
/// assistant's text blocks in order (empty on a failure). `argv` is the CLI's
/// command line as the consumer gave it, when known: without
/// `--permission-prompt-tool stdio` the CLI asks nothing (and denies what needs
/// asking), so the faults placed at a permission request act elsewhere: one that ends
/// the run, before the result (see [`super::faults`]).
pub fn expectation(
    session: &Session,
    faults: &[ClaudeFault],
    argv: Option<&[String]>,
) -> (Expectation, Vec<String>) {
    let mut session = session.clone();
    let mut options = Options::new("/work", 0);
    options.prompt_tool = argv.is_none_or(asks);
    let mut injector = Injector::new(faults.to_vec());
    injector.prepare(&mut session, &mut options);
    if matches!(
        injector.answer(control::INITIALIZE),
        Some(Answer::Never | Answer::Error(_))
    ) {
        return (Expectation::Failure, Vec::new());
    }
    let mut player = Player::new(session, options);
    player.begin("hi");
    let mut texts = Vec::new();
    let mut answer: Option<(bool, String)> = None;
    loop {
        let line = match player.step() {
            Next::Send(line) | Next::Ask { line, .. } => line,
            Next::Waiting => {
                player.answer(Ok(serde_json::json!({"behavior": "allow"})));
                continue;
            }
            Next::Done => break,
        };
        for out in injector.line(line) {
            match out {
                Out::Line(line) => read(&line, &mut texts, &mut answer),
                Out::End(exit) => return ended(exit, answer, texts),
                Out::Cut(_) => return (Expectation::Failure, Vec::new()),
                // A process that never ends leaves its consumer waiting, result or not.
                Out::Stall(None) => return (Expectation::Failure, Vec::new()),
                Out::Stall(_) | Out::Stderr(_) => {}
            }
        }
    }
    for out in injector.end() {
        match out {
            Out::Line(line) => read(&line, &mut texts, &mut answer),
            Out::End(exit) => return ended(exit, answer, texts),
            Out::Cut(_) | Out::Stall(None) => return (Expectation::Failure, Vec::new()),
            _ => {}
        }
    }
    let exit = Exit::Code(i32::from(player.last_is_error()));
    ended(exit, answer, texts)
}

/// What a careful consumer concludes from what the mock wrote in one run, as its
/// journal keeps it (`entry`): its lines on stdout in order (a line cut short is not
/// kept: the consumer read no line there) and how the process ended. The truth of
/// the run, where the case's expectation is the same session simulated: it follows
/// what the consumer's argv did (`--max-turns 1` ending `error_max_turns`, `-p`
/// asking nothing). `None` when the entry holds no conversation of Claude Code's.
pub fn from_journal(entry: &crate::journal::Entry) -> Option<(Expectation, Vec<String>)> {
    let conversation = entry.claude.as_ref()?;
    let mut texts = Vec::new();
    let mut answer = None;
    for message in conversation
        .messages
        .iter()
        .filter(|m| m.dir == crate::journal::OUT)
    {
        read(message.line.as_bytes(), &mut texts, &mut answer);
    }
    let exit = match entry.exit {
        crate::journal::ExitRecord::Code(code) if entry.signal.is_none() => Exit::Code(code),
        _ => return Some((Expectation::Failure, Vec::new())),
    };
    Some(ended(exit, answer, texts))
}

/// Whether `argv` has `--permission-prompt-tool stdio` (in either form): whether the
/// client asked to be asked.
pub fn asks(argv: &[String]) -> bool {
    argv.iter().enumerate().any(|(i, arg)| {
        arg == "--permission-prompt-tool=stdio"
            || (arg == "--permission-prompt-tool" && argv.get(i + 1).is_some_and(|v| v == "stdio"))
    })
}

/// The longest line the Python SDK reads (`max_buffer_size`): past it, it raises.
pub const PYTHON_SDK_MAX_LINE: usize = 1 << 20;

/// Whether the case's verdict on success or failure stands: not when a fault breaks
/// what an SDK can read (then either conclusion is the consumer's right): a line that
/// is not JSON, a line longer than the Python SDK reads, a field it requires left out.
/// A shorter line, or a field no SDK requires, every SDK reads: the verdict stands.
pub fn judged(faults: &[ClaudeFault]) -> bool {
    !crate::faults::lines::unreadable(faults, Some(PYTHON_SDK_MAX_LINE))
        && !faults.iter().any(|f| match f {
            ClaudeFault::Missing { field } => super::check::sdk_requires(field),
            _ => false,
        })
}

/// What a careful consumer concludes from what the CLI did, in order (`outs`: its
/// lines and what the faults made of them), the process ending with `exit` unless
/// one of them ends it first; and the assistant's text blocks (empty on a failure).
pub(crate) fn conclude(outs: Vec<Out>, exit: Exit) -> (Expectation, Vec<String>) {
    let mut texts = Vec::new();
    let mut answer = None;
    for out in outs {
        match out {
            Out::Line(line) => read(&line, &mut texts, &mut answer),
            Out::End(exit) => return ended(exit, answer, texts),
            Out::Cut(_) => return (Expectation::Failure, Vec::new()),
            Out::Stall(None) if answer.is_none() => return (Expectation::Failure, Vec::new()),
            Out::Stall(_) | Out::Stderr(_) => {}
        }
    }
    ended(exit, answer, texts)
}

fn ended(exit: Exit, answer: Option<(bool, String)>, texts: Vec<String>) -> (Expectation, Vec<String>) {
    match (exit, answer) {
        (Exit::Code(0), Some((false, answer))) => (Expectation::Success { answer }, texts),
        _ => (Expectation::Failure, Vec::new()),
    }
}

fn read(line: &[u8], texts: &mut Vec<String>, answer: &mut Option<(bool, String)>) {
    let Ok(value) = serde_json::from_slice::<Value>(line) else {
        return;
    };
    match value.get("type").and_then(Value::as_str) {
        Some(types::ASSISTANT) => {
            for block in content(&value) {
                if let Some(text) = block.get("text").and_then(Value::as_str) {
                    texts.push(text.to_owned());
                }
            }
        }
        Some(types::RESULT) if answer.is_none() => {
            let is_error = value
                .get(fields::IS_ERROR)
                .and_then(Value::as_bool)
                .unwrap_or(true);
            let text = value
                .get(fields::RESULT)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            *answer = Some((is_error, text));
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialects::claude::faults::{parse, FROM_ENV};
    use crate::dialects::claude::session::default_session;

    #[test]
    fn the_default_session_succeeds_with_its_last_text_and_failures_fail() {
        let failures = [
            "not-logged-in",
            "max-turns",
            "error-result",
            "eof",
            "signal",
            "exit",
            "stall",
            "no-response",
            "error:method=initialize",
        ];
        let harmless = ["unknown", "stderr:text=x", "stall:ms=10", "exit:code=0,at=end"];
        let answer = "Created summary.txt with a one-line summary of the README.";
        crate::run::dialect::assert_concludes(&super::super::dialect::Claude, answer, failures, &harmless);
    }

    #[test]
    fn a_cli_that_asks_nothing_ends_before_the_result_where_the_fault_acts_instead() {
        let faults = parse("exit:code=1,at=can_use_tool", FROM_ENV).expect("faults");
        let print = ["-p".to_owned(), "hi".to_owned()];
        let sdk = ["--permission-prompt-tool=stdio".to_owned()];
        // Never asked: the exit acts before the result, which is never written; asked,
        // at the request. Both fail.
        for argv in [&print[..], &sdk[..]] {
            assert_eq!(
                expectation(&default_session("/w"), &faults, Some(argv)).0,
                Expectation::Failure,
                "{argv:?}"
            );
        }
        // After the last result: the run succeeded.
        let end = parse("exit:code=0,at=end", FROM_ENV).expect("faults");
        assert!(matches!(
            expectation(&default_session("/w"), &end, Some(&print)).0,
            Expectation::Success { .. }
        ));
        assert!(asks(&sdk) && !asks(&print));
    }
}
