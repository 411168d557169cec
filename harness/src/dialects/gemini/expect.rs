//! What a correct consumer of `gemini -p` concludes from what the mock writes (the
//! session played with the faults, [`super::faults::written`], or a recording
//! replayed with them): worked out from the very `stream-json` lines, so it agrees
//! with the live run by construction. The `json` and `text` modes are rendered from
//! the same lines and end the same way.
//!
//! The run succeeded when a `result` with status `success` arrives and the
//! process exits 0: its answer is the last round's text (the assistant chunks after
//! the last tool call: `json` mode's `response`), its segments each round's text. It
//! failed on a `result` `error` (also the empty answer's, which exits **0**), an exit
//! or a signal before `result` (also the relaunched child killed, whose parent exits
//! 0), a cut line, a stall for ever. Faults that break what a parser can read
//! (`malformed`, `huge`) leave the verdict open ([`judged`]).

use serde_json::Value;

use super::faults::{GeminiFault, Out};
use super::wire::{events, roles, status};
use crate::expect::Expectation;
use crate::faults::lines;
use crate::frames::Exit;

/// What a careful consumer concludes from `outs` (`stream-json`, in order, ending
/// with the process's end), and each round's text in order (empty on a failure).
pub fn conclude(outs: &[Out]) -> (Expectation, Vec<String>) {
    let mut rounds: Vec<String> = vec![String::new()];
    let mut succeeded = None;
    for out in outs {
        match out {
            Out::Line(line) => read(line, &mut rounds, &mut succeeded),
            Out::End(Exit::Code(0)) if succeeded == Some(true) => {
                let answer = rounds.last().cloned().unwrap_or_default();
                let segments = rounds.into_iter().filter(|r| !r.is_empty()).collect();
                return (Expectation::Success { answer }, segments);
            }
            Out::End(_) | Out::Cut(_) | Out::Stall(None) => return (Expectation::Failure, Vec::new()),
            Out::Raw(_) | Out::Stall(Some(_)) | Out::Stderr(_) => {}
        }
    }
    (Expectation::Failure, Vec::new())
}

fn read(line: &[u8], rounds: &mut Vec<String>, succeeded: &mut Option<bool>) {
    let Ok(value) = serde_json::from_slice::<Value>(line) else {
        return;
    };
    match value.get("type").and_then(Value::as_str) {
        Some(events::MESSAGE) if value["role"] == roles::ASSISTANT => {
            let text = value["content"].as_str().unwrap_or_default();
            if let Some(round) = rounds.last_mut() {
                round.push_str(text);
            }
        }
        Some(events::TOOL_USE) if rounds.last().is_some_and(|r| !r.is_empty()) => rounds.push(String::new()),
        Some(events::TOOL_USE) => {}
        Some(events::RESULT) => *succeeded = Some(value["status"] == status::SUCCESS),
        _ => {}
    }
}

/// Whether the case's verdict on success or failure stands: not when a fault breaks
/// what a parser can read, nor in `text` mode when the relaunched child is killed
/// (its partial text and exit 0 are all a text consumer has).
pub fn judged(faults: &[GeminiFault], text: bool) -> bool {
    let child_killed = |f: &GeminiFault| matches!(f, GeminiFault::ChildKilled { .. });
    !(lines::unreadable(faults, None) || (text && faults.iter().any(child_killed)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialects::gemini::dialect::Gemini;
    use crate::dialects::gemini::faults::{parse, FROM_ENV};

    #[test]
    fn the_default_session_succeeds_with_its_last_round_and_failures_fail() {
        let refused_or_stopped = [
            "no-auth",
            "untrusted-folder",
            "child-killed:at=tool_use",
            "eof",
            "signal",
            "exit",
            "exit:code=0,at=message",
            "stall",
        ];
        let harmless = [
            "unknown",
            "stderr:text=x",
            "stall:ms=10,at=tool_use",
            "relaunch",
            "huge:bytes=100",
            "malformed",
        ];
        let failures = super::super::faults::RUN_FAILURES
            .iter()
            .chain(&refused_or_stopped);
        let answer = "The README says hi.";
        let segments = crate::run::dialect::assert_concludes(&Gemini, answer, failures.copied(), &harmless);
        assert_eq!(segments, ["I'll read the README first.", answer]);
    }

    #[test]
    fn verdicts_stand_unless_a_line_cannot_be_read() {
        let faults = |spec| parse(spec, FROM_ENV).expect("faults");
        assert!(judged(&faults("eof;unknown;unauthorized"), false));
        assert!(!judged(&faults("malformed"), false) && !judged(&faults("huge"), false));
        assert!(judged(&faults("child-killed"), false) && !judged(&faults("child-killed"), true));
        assert!(lines::writes_unknown(&faults("unknown")) && !lines::writes_unknown(&faults("eof")));
        assert!(lines::exits_zero(&faults("exit:code=0")) && !lines::exits_zero(&faults("child-killed")));
    }
}
