//! The checker of server mode: the rules of the Agent Client Protocol (see
//! [`acp::check`](crate::acp::check), where they are said) with their findings tallied as every dialect's checker tallies its own, into
//! a [`Report`]; and the [`Lint`] that `mock-agent lint` feeds a recording to.

use super::{AcpRule, Checker, Findings, Level, Side};
use crate::check::findings::Tally;
use crate::check::{Lint, Report, Rule, Severity, SHOWN_PER_RULE};
use crate::frames::{Exit, Stream};

impl Findings for Tally {
    fn add(&mut self, level: Level, line: u64, rule: AcpRule, message: impl FnOnce() -> String) {
        let severity = match level {
            Level::Note => Severity::Note,
            Level::Warning => Severity::Warning,
            Level::Error => Severity::Error,
        };
        let rule = match rule {
            AcpRule::JsonRpc => Rule::JsonRpc,
            AcpRule::AnsweredOnce => Rule::AnsweredOnce,
            AcpRule::TurnOrder => Rule::TurnOrder,
            AcpRule::KnownSession => Rule::KnownSession,
            AcpRule::ToolCallPairs => Rule::ToolCallPairs,
            AcpRule::StopReason => Rule::StopReason,
            AcpRule::Capability => Rule::Capability,
            AcpRule::Fields => Rule::Fields,
            AcpRule::ToolKind => Rule::ToolKind,
            AcpRule::UpdateKind => Rule::UpdateKind,
            AcpRule::Method => Rule::Method,
            AcpRule::CursorHabit => Rule::CursorHabit,
        };
        Tally::add(self, severity, line, rule, message);
    }
}

/// The checker of a recorded ACP conversation: feed it the lines in recorded order,
/// then how the process ended.
#[derive(Debug)]
pub struct AcpChecker(Checker<Tally>);

impl Default for AcpChecker {
    fn default() -> Self {
        AcpChecker::new()
    }
}

impl AcpChecker {
    /// A checker at the start of a conversation.
    pub fn new() -> Self {
        AcpChecker(Checker::new(Tally::new(SHOWN_PER_RULE)))
    }

    /// Keep the first `n` findings of each rule (default [`SHOWN_PER_RULE`]); the rest
    /// are only counted ([`Report::elided`]).
    #[must_use]
    pub fn shown_per_rule(mut self, n: usize) -> Self {
        self.0.findings().shown_per_rule = n;
        self
    }

    /// Checks one line (without its newline) that `side` wrote; `line` is where it is.
    pub fn line(&mut self, line: u64, side: Side, bytes: &[u8]) {
        self.0.line(line, side, bytes);
    }

    /// Finishes the conversation: `exit` is how the process ended, where known.
    pub fn finish(self, exit: Option<Exit>) -> Report {
        self.0.finish(exit).report()
    }

    /// A finding about the recording rather than its conversation (secrets, versions).
    pub(crate) fn recording_finding(&mut self, line: u64, rule: Rule, message: impl FnOnce() -> String) {
        self.0.findings().add(Severity::Warning, line, rule, message);
    }
}

/// A recording of server mode: its `in` frames (stdin) are the client's messages, its
/// `out` frames the agent's.
impl Lint for AcpChecker {
    fn recording_finding(&mut self, line: u64, rule: Rule, message: String) {
        AcpChecker::recording_finding(self, line, rule, || message);
    }

    fn line(&mut self, line: u64, stream: Stream, bytes: &[u8]) {
        match stream {
            Stream::Stdout => AcpChecker::line(self, line, Side::Agent, bytes),
            Stream::Stdin => AcpChecker::line(self, line, Side::Client, bytes),
            Stream::Stderr => {}
        }
    }

    fn finish(self: Box<Self>, exit: Option<Exit>) -> Report {
        AcpChecker::finish(*self, exit)
    }

    fn stop(self: Box<Self>) -> Report {
        AcpChecker::finish(*self, None)
    }
}

/// Checks a conversation given as `(side, line)` pairs, numbered from 1.
pub fn check_conversation<'a>(
    lines: impl IntoIterator<Item = (Side, &'a str)>,
    exit: Option<Exit>,
) -> Report {
    let mut checker = AcpChecker::new();
    for (i, (side, line)) in lines.into_iter().enumerate() {
        checker.line(i as u64 + 1, side, line.as_bytes());
    }
    checker.finish(exit)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::acp::check::MAX_TRACKED;
    use crate::acp::rpc;
    use crate::acp::wire::{self, methods, stop_reasons};

    #[test]
    fn tracked_state_is_capped() {
        let mut checker = AcpChecker::new();
        for id in 0..(MAX_TRACKED as u64 + 10) {
            let line = rpc::request(id, methods::SESSION_PROMPT, &json!({"sessionId": "s"}));
            checker.line(id + 1, Side::Client, &line);
        }
        assert_eq!(checker.0.waiting(Side::Client), (MAX_TRACKED, true));
        // An answer to an id it could not keep is not called unknown.
        let id = (MAX_TRACKED as u64 + 5).to_string();
        let answer = rpc::response(&id, &wire::stop(stop_reasons::END_TURN));
        checker.line(1 << 20, Side::Agent, &answer);
        let report = checker.finish(None);
        assert!(
            !report.findings.iter().any(|f| f.severity == Severity::Error),
            "{report:?}"
        );
    }
}
