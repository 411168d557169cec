//! Print mode's checker: the invariants of the output format as a state machine over
//! the stdout lines of a run.
//!
//! Errors break what the documentation promises:
//!
//! - `system`/`init` comes first;
//! - there is one `user` event;
//! - a `tool_call` is `started` before it is `completed`, with the same `call_id`, and
//!   each started call completes once (parallel calls may interleave);
//! - there is at most one `result`, and nothing comes after it; a run that ends with
//!   exit code 0 has one;
//! - every event carries the same `session_id`;
//! - `result.result` is the assistant text, concatenated (a segment streamed as deltas
//!   and then repeated whole counts once);
//! - every event of a known type has the fields of that type, of the right types.
//!
//! Warnings are what a careful consumer must cope with, but the documentation does not
//! describe: an unknown event type or tool kind, a non-standard subtype (such as the
//! `"correcto"` of the Spanish page), a line that is not JSON, a run that ends with no
//! result.
//!
//! Findings and reports are shared with the other dialects' checkers
//! ([`crate::check`]).

use std::collections::HashMap;

mod rules;
mod text;

use text::AssistantText;

use super::events::Event;
use crate::check::findings::{Report, Rule, Severity, Tally, SHOWN_PER_RULE};
use crate::frames::Exit;
use crate::peek::Peek;

/// The checker: feed it stdout lines, then how the run ended.
#[derive(Debug)]
pub struct Checker {
    found: Tally,
    events: u64,
    users: u64,
    session_id: Option<String>,
    result_line: Option<u64>,
    result_text: Option<String>,
    after_result_reported: bool,
    open_calls: HashMap<String, u64>,
    done_calls: HashMap<String, u64>,
    text: AssistantText,
}

impl Default for Checker {
    fn default() -> Self {
        Checker::new()
    }
}

impl Checker {
    /// A checker at the start of a run.
    pub fn new() -> Self {
        Checker {
            found: Tally::new(SHOWN_PER_RULE),
            events: 0,
            users: 0,
            session_id: None,
            result_line: None,
            result_text: None,
            after_result_reported: false,
            open_calls: HashMap::new(),
            done_calls: HashMap::new(),
            text: AssistantText::default(),
        }
    }

    /// Keep the first `n` findings of each rule (default [`SHOWN_PER_RULE`]); the rest
    /// are only counted ([`Report::elided`]).
    #[must_use]
    pub fn shown_per_rule(mut self, n: usize) -> Self {
        self.found.shown_per_rule = n;
        self
    }

    /// Checks one stdout line (without its newline); `line` is where it is.
    pub fn line(&mut self, line: u64, bytes: &[u8]) {
        let Some(peek) = Peek::parse(bytes) else {
            self.text.end_run();
            self.not_json(line, bytes);
            return;
        };
        self.events += 1;
        let event = match Event::from_slice_strict(bytes) {
            Ok(event) => event,
            Err(e) => {
                self.text.end_run();
                self.wrong_fields(line, bytes, &e);
                return;
            }
        };
        self.init_first(line, &peek, &event);
        self.result_last(line, &event);
        self.one_session(line, &event);
        self.subtype(line, bytes, &event);
        if !matches!(event, Event::Assistant(_)) {
            self.text.end_run();
        }
        match event {
            Event::User(_) => self.user(line),
            Event::Assistant(event) => {
                // Deltas carry `timestamp_ms` and no `model_call_id`; a closing line not.
                let delta = event.timestamp_ms.is_some() && event.model_call_id.is_none();
                self.text.line(&event.message.joined_text(), delta);
            }
            Event::ToolCall(call) => {
                self.tool_kind(line, &call);
                self.tool_call_pairs(line, call);
            }
            Event::Result(result) => self.one_result(line, result),
            Event::Other(map) => self.event_type(line, &map),
            _ => {}
        }
        self.user_comes_second(line);
    }

    /// Finishes the run: `exit` is how it ended, where known (a capture does not say).
    pub fn finish(mut self, exit: Option<Exit>) -> Report {
        self.text.end_run();
        self.no_open_calls();
        self.some_user();
        self.result_text();
        self.has_result(exit);
        self.found.report()
    }

    /// A finding about the recording rather than its stream (secrets, versions).
    pub(crate) fn recording_finding(&mut self, line: u64, rule: Rule, message: impl FnOnce() -> String) {
        self.found.add(Severity::Warning, line, rule, message);
    }

    /// The findings so far, with no end-of-run checks.
    pub(crate) fn into_report(self) -> Report {
        self.found.report()
    }
}

/// A recording of print mode: its stdout lines are the events; a recording made in
/// `json` or `text` holds none to check.
impl crate::check::Lint for Checker {
    fn recording_finding(&mut self, line: u64, rule: Rule, message: String) {
        Checker::recording_finding(self, line, rule, || message);
    }

    fn line(&mut self, line: u64, stream: crate::frames::Stream, bytes: &[u8]) {
        if stream == crate::frames::Stream::Stdout {
            Checker::line(self, line, bytes);
        }
    }

    fn finish(self: Box<Self>, exit: Option<Exit>) -> Report {
        Checker::finish(*self, exit)
    }

    fn stop(self: Box<Self>) -> Report {
        self.into_report()
    }

    fn needs_stream_json(&self) -> bool {
        true
    }
}

/// Checks the stdout lines of a run given as text, one event per line.
pub fn check_lines(text: &str, exit: Option<Exit>) -> Report {
    let mut checker = Checker::new();
    for (i, line) in text.lines().enumerate() {
        checker.line(i as u64 + 1, line.as_bytes());
    }
    checker.finish(exit)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::findings::Elided;
    use crate::dialects::cursor_print::events::{event_type, role, subtype};

    const SEED: &str = include_str!("../../../../../cassettes/seed-example.ndjson");

    fn rules(report: &Report) -> Vec<(Severity, &'static str)> {
        report
            .findings
            .iter()
            .map(|f| (f.severity, f.rule.as_str()))
            .collect()
    }

    #[test]
    fn the_seed_example_passes_clean() {
        let report = check_lines(SEED, Some(Exit::Code(0)));
        assert_eq!(report.findings, vec![]);
    }

    #[test]
    fn each_broken_invariant_is_found() {
        let lines: Vec<&str> = SEED.lines().collect();
        let without = |skip: usize| -> String {
            lines
                .iter()
                .enumerate()
                .filter(|(i, _)| *i != skip)
                .map(|(_, l)| format!("{l}\n"))
                .collect()
        };
        // No init first.
        assert!(rules(&check_lines(&without(0), None)).contains(&(Severity::Error, "init-first")));
        // A completed call that never started (line 5 of the seed starts it).
        assert!(rules(&check_lines(&without(4), None)).contains(&(Severity::Error, "tool-call-pairs")));
        // The result's text no longer matches the assistant text.
        assert!(rules(&check_lines(&without(2), None)).contains(&(Severity::Error, "result-text")));
        // Exit 0 without a result.
        assert!(rules(&check_lines(&without(9), Some(Exit::Code(0))))
            .contains(&(Severity::Error, Rule::Result.as_str())));
        // A failed run without a result is fine.
        assert!(check_lines(&without(9), Some(Exit::Code(1))).passes());
        // Two sessions, an event after the result, a second result.
        let other_session = format!("{SEED}{}\n", lines[2].replace("c6b62c6f", "deadbeef"));
        let found = rules(&check_lines(&other_session, None));
        assert!(found.contains(&(Severity::Error, "one-session")), "{found:?}");
        assert!(found.contains(&(Severity::Error, "result-last")), "{found:?}");
        let twice = format!("{SEED}{}\n", lines[9]);
        assert!(rules(&check_lines(&twice, None)).contains(&(Severity::Error, "one-result")));
        // A known event with a missing field.
        let tool_call = format!(r#""{}""#, event_type::TOOL_CALL);
        let broken = SEED.replacen(
            &format!(r#""call_id":"toolu_vrtx_01NnjaR886UcE8whekg2MGJd",{tool_call}"#),
            &tool_call,
            1,
        );
        assert!(rules(&check_lines(&broken, None)).contains(&(Severity::Error, "fields")));
    }

    #[test]
    fn warnings_for_what_consumers_must_cope_with() {
        let lines: Vec<&str> = SEED.lines().collect();
        let mut text: String = lines[..9].iter().map(|l| format!("{l}\n")).collect();
        text.push_str("[debug] noise\n");
        text.push_str(r#"{"type":"telemetry","session_id":"c6b62c6f-7ead-4fd6-9922-e952131177ff"}"#);
        text.push('\n');
        text.push_str(&lines[9].replace(
            &format!(r#""subtype":"{}""#, subtype::SUCCESS),
            r#""subtype":"correcto""#,
        ));
        let report = check_lines(&text, Some(Exit::Code(0)));
        assert!(report.passes(), "{report:?}");
        assert_eq!(
            rules(&report),
            vec![
                (Severity::Warning, "not-json"),
                (Severity::Warning, "event-type"),
                (Severity::Warning, "subtype")
            ]
        );
    }

    #[test]
    fn past_the_first_few_findings_of_a_rule_only_counts_are_kept() {
        let mut checker = Checker::new().shown_per_rule(3);
        for line in 1..=100_000 {
            checker.line(line, b"");
        }
        let report = checker.finish(None);
        assert_eq!(
            rules(&report),
            vec![
                (Severity::Warning, "not-json"),
                (Severity::Warning, "not-json"),
                (Severity::Warning, "not-json"),
                (Severity::Warning, Rule::Result.as_str()),
            ]
        );
        assert_eq!(
            report.elided,
            vec![Elided {
                rule: Rule::NotJson,
                errors: 0,
                warnings: 99_997,
                notes: 0
            }]
        );
        assert_eq!(report.count(Severity::Warning), 100_001);
        assert!(report.passes());
    }

    #[test]
    fn deltas_and_their_closing_line_count_once() {
        let sid = "s";
        let message = |kind: &str, text: &str, ts: bool| {
            let ts = if ts { r#","timestamp_ms":1"# } else { "" };
            format!(
                r#"{{"type":"{kind}","message":{{"role":"{kind}","content":[{{"type":"text","text":"{text}"}}]}},"session_id":"{sid}"{ts}}}"#
            )
        };
        let assistant = |text: &str, ts: bool| message(role::ASSISTANT, text, ts);
        let (system, init) = (event_type::SYSTEM, subtype::INIT);
        let (result, success) = (event_type::RESULT, subtype::SUCCESS);
        let text = [
            format!(r#"{{"type":"{system}","subtype":"{init}","session_id":"{sid}"}}"#),
            message(role::USER, "hi", false),
            assistant("Hel", true),
            assistant("lo", true),
            assistant("Hello", false),
            format!(r#"{{"type":"{result}","subtype":"{success}","is_error":false,"{result}":"Hello","session_id":"{sid}"}}"#),
        ]
        .join("\n");
        assert_eq!(check_lines(&text, Some(Exit::Code(0))).findings, vec![]);
    }
}
