//! Claude Code's rules (`mock-agent lint` of a Claude Code cassette): both sides of a
//! recorded conversation, its `in` lines the client's and its `out` lines the CLI's.
//!
//! | rule | what |
//! | --- | --- |
//! | `not-json` (warning) | a line that is not a JSON object (an SDK skips it, or raises when it starts with `{`) |
//! | `event-type` (warning) | a line without a `type`, or of a type the SDKs do not know |
//! | `fields` (error) | a line of a known type without the fields the Python SDK requires (`message.model` and a `message.content` list of an assistant message; a result's `subtype`, `duration_ms`, `duration_api_ms`, `is_error`, `num_turns`, `session_id`; a stream event's `uuid`, `session_id`, `event`; a system message's `subtype`) |
//! | `answered-once` (error) | each control request is answered once, by the other side, with its `request_id`; one still waiting at the end is a warning |
//! | `init-first` (error) | a turn's first message (after state and control lines) is `system/init` |
//! | `result` | each user message gets a `result`: an error when the process exited 0 without, a warning when the recording says nothing of its end |
//! | `one-session` (error) | every line that names a session names the same one |

use std::collections::HashMap;

use serde_json::Value;

use super::wire::{system, types};
use crate::check::findings::{Report, Rule, Severity, Tally, SHOWN_PER_RULE};
use crate::frames::Exit;

/// The most requests a checker keeps track of: past it, answers are not checked.
const MAX_TRACKED: usize = 10_000;

/// Checks a Claude Code conversation, line by line, in bounded memory.
#[derive(Debug)]
pub struct ClaudeChecker {
    findings: Tally,
    /// Requests waiting for an answer: `request_id` (as JSON text), the side that
    /// asked (`true`: the CLI), the line.
    waiting: HashMap<String, (bool, u64)>,
    /// The client's user messages, and the CLI's results.
    prompts: u64,
    results: u64,
    /// A turn has begun and its first message is still to come.
    turn_opened: Option<u64>,
    session: Option<String>,
}

impl Default for ClaudeChecker {
    fn default() -> Self {
        ClaudeChecker {
            findings: Tally::new(SHOWN_PER_RULE),
            waiting: HashMap::new(),
            prompts: 0,
            results: 0,
            turn_opened: None,
            session: None,
        }
    }
}

impl ClaudeChecker {
    /// One line (without its newline), of the CLI (`agent`) or of the client; `line` is
    /// where it is.
    pub fn line(&mut self, line: u64, agent: bool, bytes: &[u8]) {
        let Ok(value) = serde_json::from_slice::<Value>(bytes) else {
            self.findings.add(Severity::Warning, line, Rule::NotJson, || {
                "not a JSON object: an SDK skips it, or (Python, a line starting with `{`) raises".into()
            });
            return;
        };
        let Some(kind) = value.get("type").and_then(Value::as_str) else {
            self.findings.add(Severity::Warning, line, Rule::EventType, || {
                "a line without a `type`".into()
            });
            return;
        };
        if !types::ALL.contains(&kind) {
            let kind = kind.to_owned();
            self.findings.add(Severity::Warning, line, Rule::EventType, || {
                format!("`{kind}` is a type the SDKs do not know: they skip it")
            });
        }
        match kind {
            types::CONTROL_REQUEST => self.asked(line, agent, &value),
            types::CONTROL_RESPONSE => self.answered(line, agent, &value),
            types::USER if !agent => {
                self.prompts += 1;
                self.turn_opened = Some(line);
            }
            _ if agent => self.message(line, kind, &value),
            _ => {}
        }
    }

    fn asked(&mut self, line: u64, agent: bool, value: &Value) {
        let id = value.get("request_id").map(Value::to_string).unwrap_or_default();
        if self.waiting.len() < MAX_TRACKED {
            self.waiting.insert(id, (agent, line));
        }
    }

    fn answered(&mut self, line: u64, agent: bool, value: &Value) {
        let id = value
            .pointer("/response/request_id")
            .map(Value::to_string)
            .unwrap_or_default();
        match self.waiting.remove(&id) {
            Some((asked_by_agent, _)) if asked_by_agent != agent => {}
            Some(_) | None if self.waiting.len() >= MAX_TRACKED => {}
            _ => {
                let who = if agent { "the CLI" } else { "the client" };
                self.findings.add(Severity::Error, line, Rule::AnsweredOnce, || {
                    format!(
                        "{who} answers request {id}, which the other side did not ask (or it was answered)"
                    )
                });
            }
        }
    }

    /// A message of the CLI's: its fields, its session, where it stands in its turn.
    fn message(&mut self, line: u64, kind: &str, value: &Value) {
        let subtype = value.get("subtype").and_then(Value::as_str);
        let state = kind == types::SYSTEM && subtype.is_some_and(|s| s != system::INIT);
        if let Some(opened) = self.turn_opened.filter(|_| !state) {
            self.turn_opened = None;
            if !(kind == types::SYSTEM && subtype == Some(system::INIT)) {
                let kind = kind.to_owned();
                self.findings.add(Severity::Error, line, Rule::InitFirst, || {
                    format!("the turn of the prompt on line {opened} opens with `{kind}`, not `system/init`")
                });
            }
        }
        let missing = required(kind, value);
        if !missing.is_empty() {
            let kind = kind.to_owned();
            self.findings.add(Severity::Error, line, Rule::Fields, || {
                format!(
                    "a line of type `{kind}` without {}: the Python SDK raises",
                    missing.join(", ")
                )
            });
        }
        if kind == types::RESULT {
            self.results += 1;
        }
        if let Some(session) = value
            .get("session_id")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
        {
            match &self.session {
                None => self.session = Some(session.to_owned()),
                Some(first) if first != session => {
                    let (first, session) = (first.clone(), session.to_owned());
                    self.findings.add(Severity::Error, line, Rule::OneSession, || {
                        format!("session `{session}`, where the conversation is `{first}`")
                    });
                }
                Some(_) => {}
            }
        }
    }

    /// The end of the recording: `exit` is how the CLI ended, where known.
    pub fn finish(mut self, exit: Option<Exit>) -> Report {
        let mut waiting: Vec<_> = self.waiting.drain().collect();
        waiting.sort_by_key(|(_, (_, line))| *line);
        for (id, (agent, line)) in waiting {
            let who = if agent { "the CLI's" } else { "the client's" };
            self.findings
                .add(Severity::Warning, line, Rule::AnsweredOnce, || {
                    format!("{who} request {id} is never answered")
                });
        }
        if self.results < self.prompts {
            let (prompts, results) = (self.prompts, self.results);
            let severity = match exit {
                Some(Exit::Code(0)) => Severity::Error,
                _ => Severity::Warning,
            };
            self.findings.add(severity, 0, Rule::Result, || {
                format!("{prompts} prompts and {results} results: a turn ended without its result")
            });
        }
        self.findings.report()
    }

    /// A finding about the recording rather than its conversation (secrets).
    pub(crate) fn recording_finding(&mut self, line: u64, rule: Rule, message: impl FnOnce() -> String) {
        self.findings.add(Severity::Warning, line, rule, message);
    }
}

/// A recording of Claude Code: stdout the CLI's lines, stdin the client's.
impl crate::check::Lint for ClaudeChecker {
    fn recording_finding(&mut self, line: u64, rule: Rule, message: String) {
        ClaudeChecker::recording_finding(self, line, rule, || message);
    }

    fn line(&mut self, line: u64, stream: crate::frames::Stream, bytes: &[u8]) {
        match stream {
            crate::frames::Stream::Stdout => ClaudeChecker::line(self, line, true, bytes),
            crate::frames::Stream::Stdin => ClaudeChecker::line(self, line, false, bytes),
            crate::frames::Stream::Stderr => {}
        }
    }

    fn finish(self: Box<Self>, exit: Option<Exit>) -> Report {
        ClaudeChecker::finish(*self, exit)
    }

    fn stop(self: Box<Self>) -> Report {
        ClaudeChecker::finish(*self, None)
    }

    fn needs_stream_json(&self) -> bool {
        true
    }
}

/// The fields the Python SDK requires of a line of each type (its message parser
/// raises `MessageParseError` without one), as JSON pointers and as said.
const REQUIRED: &[(&str, &[(&str, &str)])] = &[
    (
        types::ASSISTANT,
        &[
            ("/message/model", "message.model"),
            ("/message/content", "message.content"),
        ],
    ),
    (
        types::RESULT,
        &[
            ("/subtype", "subtype"),
            ("/duration_ms", "duration_ms"),
            ("/duration_api_ms", "duration_api_ms"),
            ("/is_error", "is_error"),
            ("/num_turns", "num_turns"),
            ("/session_id", "session_id"),
        ],
    ),
    (
        types::STREAM_EVENT,
        &[
            ("/uuid", "uuid"),
            ("/session_id", "session_id"),
            ("/event", "event"),
        ],
    ),
    (types::SYSTEM, &[("/subtype", "subtype")]),
    (
        types::RATE_LIMIT_EVENT,
        &[
            ("/rate_limit_info/status", "rate_limit_info.status"),
            ("/uuid", "uuid"),
            ("/session_id", "session_id"),
        ],
    ),
    (
        types::CONVERSATION_RESET,
        &[
            ("/new_conversation_id", "new_conversation_id"),
            ("/uuid", "uuid"),
            ("/session_id", "session_id"),
        ],
    ),
];

/// Whether the Python SDK requires a field named `field` (at the top of a line or in
/// its `message`) of a line of some type.
pub(crate) fn sdk_requires(field: &str) -> bool {
    REQUIRED
        .iter()
        .flat_map(|(_, needs)| needs.iter())
        .any(|(_, said)| said.rsplit('.').next() == Some(field))
}

/// The fields the Python SDK requires of a line of `kind` that `value` lacks.
fn required(kind: &str, value: &Value) -> Vec<&'static str> {
    let has = |pointer: &str| value.pointer(pointer).is_some_and(|v| !v.is_null());
    let needs: &[(&str, &str)] = REQUIRED
        .iter()
        .find(|(of, _)| *of == kind)
        .map_or(&[], |(_, needs)| needs);
    let mut missing: Vec<&'static str> = needs
        .iter()
        .filter(|(pointer, _)| !has(pointer))
        .map(|(_, name)| *name)
        .collect();
    if kind == types::ASSISTANT && value.pointer("/message/content").is_some_and(|c| !c.is_array()) {
        missing.push("a list as message.content");
    }
    missing
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::dialects::claude::wire::control;
    use crate::frames::{Frame, Stream};

    fn rules(report: &Report) -> Vec<&'static str> {
        report.findings.iter().map(|f| f.rule.as_str()).collect()
    }

    fn line(value: &Value) -> Vec<u8> {
        serde_json::to_vec(value).expect("JSON")
    }

    #[test]
    fn the_curated_recording_is_clean() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../cassettes/claude/default.cassette"
        );
        let mut reader = crate::cassette::open(std::path::Path::new(path)).expect("opens");
        let mut checker = ClaudeChecker::default();
        let mut exit = None;
        while let Some(frame) = reader.next() {
            match frame.expect("a frame") {
                Frame::Line(l) => checker.line(reader.line_no(), l.stream == Stream::Stdout, &l.bytes),
                Frame::End(end) => exit = Some(end.exit),
                _ => {}
            }
        }
        let report = checker.finish(exit);
        assert!(report.findings.is_empty(), "{report:?}");
    }

    #[test]
    fn the_types_the_python_sdk_parses_need_their_fields() {
        let mut checker = ClaudeChecker::default();
        let good = json!({"type": types::RATE_LIMIT_EVENT, "rate_limit_info": {"status": "allowed"},
            "uuid": "u", "session_id": "s"});
        checker.line(1, true, &line(&good));
        let bad = json!({"type": types::RATE_LIMIT_EVENT, "rate_limit_info": {}, "session_id": "s"});
        checker.line(2, true, &line(&bad));
        let report = checker.finish(None);
        let found: Vec<(u64, Rule)> = report.findings.iter().map(|f| (f.line, f.rule)).collect();
        assert!(!found.iter().any(|(l, _)| *l == 1), "{report:?}");
        assert!(found.contains(&(2, Rule::Fields)), "{report:?}");
        assert!(
            !found.iter().any(|(_, r)| *r == Rule::EventType),
            "a known type: {report:?}"
        );
    }

    #[test]
    fn broken_conversations_are_found() {
        let mut checker = ClaudeChecker::default();
        checker.line(
            1,
            false,
            &line(&json!({"type": types::USER, "message": {"content": "hi"}})),
        );
        checker.line(
            2,
            true,
            &line(&json!({"type": types::ASSISTANT, "message": {"content": []}, "session_id": "a"})),
        );
        let stray = json!({"type": types::CONTROL_RESPONSE, "response": {"subtype": control::SUCCESS, "request_id": "x"}});
        checker.line(3, true, &line(&stray));
        checker.line(
            4,
            true,
            &line(&json!({"type": types::SYSTEM, "subtype": system::INIT, "session_id": "b"})),
        );
        checker.line(5, true, b"{oops");
        let report = checker.finish(Some(Exit::Code(0)));
        let expected = [
            Rule::InitFirst,
            Rule::Fields,
            Rule::AnsweredOnce,
            Rule::OneSession,
            Rule::NotJson,
            Rule::Result,
        ];
        assert_eq!(rules(&report), expected.map(Rule::as_str));
    }
}
