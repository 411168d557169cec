//! What a correct consumer of `codex exec --json` concludes from what the mock writes
//! (the session played with the faults, [`super::faults::written`], or a recording
//! replayed with them, [`super::recording::Recording::written`]): worked out from the
//! very lines, so it agrees with the live run by construction.
//!
//! The run succeeded when `turn.completed` arrives, no `turn.failed` came, and the
//! process exits 0: its answer is the last `agent_message` (the TypeScript SDK's
//! `finalResponse`), its segments every agent message in order. It failed on a
//! `turn.failed`, an exit or a signal before `turn.completed`, a cut line, a stall for
//! ever. (The TypeScript SDK's `run()` returns quietly on an exit 0 without
//! `turn.completed`; a careful consumer does not take that as an answer.) Faults that
//! break what an SDK can read (`malformed`: `Failed to parse item`; `huge`: past a
//! line reader's buffer) leave the verdict open ([`judged`]).

use serde_json::Value;

use super::faults::{CodexFault, Out};
use super::wire::{events, items};
use crate::expect::Expectation;
use crate::faults::lines;
use crate::frames::Exit;

/// What a careful consumer concludes from `outs` (what the process wrote, in order,
/// ending with its end), and the agent messages in order (empty on a failure).
pub fn conclude(outs: &[Out]) -> (Expectation, Vec<String>) {
    let mut texts = Vec::new();
    let mut completed = false;
    let mut failed = false;
    for out in outs {
        match out {
            Out::Line(line) => read(line, &mut texts, &mut completed, &mut failed),
            Out::End(exit) => return ended(*exit, completed && !failed, texts),
            // A cut line is no `turn.completed`; a stall for ever leaves the consumer
            // waiting for stdout to end, whatever it read.
            Out::Cut(_) | Out::Stall(None) => return (Expectation::Failure, Vec::new()),
            Out::Stall(Some(_)) | Out::Stderr(_) => {}
        }
    }
    // A process always ends; what says nothing of its end failed.
    (Expectation::Failure, Vec::new())
}

/// Whether the case's verdict on success or failure stands: not when a fault breaks
/// what an SDK can read (then either conclusion is the consumer's right).
pub fn judged(faults: &[CodexFault]) -> bool {
    !lines::unreadable(faults, None)
}

fn ended(exit: Exit, completed: bool, texts: Vec<String>) -> (Expectation, Vec<String>) {
    match exit {
        Exit::Code(0) if completed => {
            let answer = texts.last().cloned().unwrap_or_default();
            (Expectation::Success { answer }, texts)
        }
        _ => (Expectation::Failure, Vec::new()),
    }
}

fn read(line: &[u8], texts: &mut Vec<String>, completed: &mut bool, failed: &mut bool) {
    let Ok(value) = serde_json::from_slice::<Value>(line) else {
        return;
    };
    match value.get("type").and_then(Value::as_str) {
        Some(events::ITEM_COMPLETED)
            if value.pointer("/item/type").and_then(Value::as_str) == Some(items::AGENT_MESSAGE) =>
        {
            if let Some(text) = value.pointer("/item/text").and_then(Value::as_str) {
                texts.push(text.to_owned());
            }
        }
        Some(events::TURN_COMPLETED) => *completed = true,
        Some(events::TURN_FAILED) => *failed = true,
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialects::codex::dialect::Codex;
    use crate::dialects::codex::faults::{parse, FROM_ENV};

    #[test]
    fn the_default_session_succeeds_with_its_last_message_and_failures_fail() {
        let placed = [
            "signal:name=TERM,at=command_execution",
            "exit",
            "exit:code=0,at=agent_message",
            "stall",
            "eof:after=0",
        ];
        let harmless = [
            "unknown",
            "unknown:kind=item,at=turn.completed",
            "stderr:text=x",
            "stall:ms=10,at=agent_message",
            "exit:code=0,after=99",
            "huge:bytes=100",
            "malformed:after=1",
        ];
        // An exit with a code after `turn.completed` is still a failure.
        let failures = crate::dialects::codex::faults::TURN_FAILURES
            .iter()
            .chain(&placed);
        let failures = failures.copied().chain(["exit:code=1,after=99"]);
        let answer = "Created made.txt and notes.md.";
        let segments = crate::run::dialect::assert_concludes(&Codex, answer, failures, &harmless);
        assert_eq!(segments, ["I'll create made.txt, then add notes.md.", answer]);
    }

    #[test]
    fn verdicts_stand_unless_a_line_cannot_be_read() {
        let faults = |spec| parse(spec, FROM_ENV).expect("faults");
        assert!(judged(&faults("eof;unknown;unauthorized")));
        assert!(!judged(&faults("malformed")) && !judged(&faults("huge")));
        assert!(
            lines::writes_unknown(&faults("unknown:kind=item")) && !lines::writes_unknown(&faults("eof"))
        );
        assert!(lines::exits_zero(&faults("exit:code=0")) && !lines::exits_zero(&faults("exit")));
    }
}
