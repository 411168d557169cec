//! The protocol checker: the invariants of the output format as a state machine over
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

use std::collections::HashMap;
use std::fmt;

use serde_json::Value;

use crate::events::{Event, Tool};
use crate::frames::Exit;
use crate::peek::Peek;

/// How bad a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// Something a consumer must cope with, but the protocol allows or does not say.
    Warning,
    /// A broken invariant of the protocol.
    Error,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Warning => "warning",
            Severity::Error => "error",
        })
    }
}

/// One broken rule, at a line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// Error or warning.
    pub severity: Severity,
    /// The line of the file (or the 1-based stdout line) it is about; 0 for the end.
    pub line: u64,
    /// A short name of the rule, stable, e.g. `init-first`.
    pub rule: &'static str,
    /// What is wrong, in plain words.
    pub message: String,
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {} [{}]", self.severity, self.message, self.rule)
    }
}

/// Collects a line's share of the assistant text, counting a segment streamed as
/// deltas and then repeated whole once.
#[derive(Debug, Default)]
struct AssistantText {
    /// The text of the open segment's lines.
    open: String,
    open_lines: usize,
    /// Whether every open line is shaped like a delta.
    open_deltas: bool,
    total: String,
}

impl AssistantText {
    fn line(&mut self, text: &str, delta: bool) {
        // A whole line closes nothing later: it counts as it is.
        if self.open_lines > 0 && !self.open_deltas {
            self.end_run();
        }
        if !delta && self.open_lines > 0 && text == self.open {
            // A closing line: the open lines were its deltas.
            self.total.push_str(text);
            self.open.clear();
            self.open_lines = 0;
        } else {
            self.open.push_str(text);
            self.open_lines += 1;
            self.open_deltas = delta;
        }
    }

    /// Something else came: the open lines were whole segments.
    fn end_run(&mut self) {
        self.total.push_str(&self.open);
        self.open.clear();
        self.open_lines = 0;
    }
}

/// The checker: feed it stdout lines, then how the run ended.
#[derive(Debug, Default)]
pub struct Checker {
    findings: Vec<Finding>,
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

/// The findings of a run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    /// Every finding, in line order (end-of-run findings last).
    pub findings: Vec<Finding>,
}

impl Report {
    /// How many findings have this severity.
    pub fn count(&self, severity: Severity) -> usize {
        self.findings.iter().filter(|f| f.severity == severity).count()
    }

    /// Whether no finding is an error.
    pub fn passes(&self) -> bool {
        self.count(Severity::Error) == 0
    }
}

const SUBTYPES: &[(&str, &[&str])] = &[
    ("system", &["init"]),
    ("tool_call", &["started", "completed"]),
    ("thinking", &["delta", "completed"]),
    ("result", &["success"]),
];

impl Checker {
    /// A checker at the start of a run.
    pub fn new() -> Self {
        Checker::default()
    }

    fn find(&mut self, severity: Severity, line: u64, rule: &'static str, message: String) {
        self.findings.push(Finding {
            severity,
            line,
            rule,
            message,
        });
    }

    /// Checks one stdout line (without its newline); `line` is where it is.
    pub fn line(&mut self, line: u64, bytes: &[u8]) {
        let Some(peek) = Peek::parse(bytes) else {
            self.text.end_run();
            let shown: String = String::from_utf8_lossy(bytes).chars().take(60).collect();
            self.find(
                Severity::Warning,
                line,
                "not-json",
                format!("a line that is not a JSON event: `{shown}`"),
            );
            return;
        };
        self.events += 1;
        let kind = match Event::from_slice_strict(bytes) {
            Ok(event) => event,
            Err(e) => {
                self.text.end_run();
                let kind = serde_json::from_slice::<Value>(bytes)
                    .ok()
                    .and_then(|v| v.get("type").and_then(Value::as_str).map(str::to_owned))
                    .unwrap_or_default();
                let message = e.to_string();
                let message = message.split(" at line ").next().unwrap_or(&message).to_owned();
                self.find(
                    Severity::Error,
                    line,
                    "fields",
                    format!("a `{kind}` event with a wrong field: {message}"),
                );
                return;
            }
        };
        if self.events == 1 && !(peek.is_type("system") && peek.is_subtype("init")) {
            self.find(
                Severity::Error,
                line,
                "init-first",
                format!("the first event is `{}`, not `system`/`init`", kind.type_name()),
            );
        }
        if let Some(result_line) = self.result_line.filter(|_| !matches!(kind, Event::Result(_))) {
            if !self.after_result_reported {
                self.after_result_reported = true;
                self.find(
                    Severity::Error,
                    line,
                    "result-last",
                    format!(
                        "a `{}` event after the result (line {result_line})",
                        kind.type_name()
                    ),
                );
            }
        }
        if let Some(id) = kind.session_id() {
            match &self.session_id {
                None => self.session_id = Some(id.to_owned()),
                Some(first) if first != id => {
                    let message = format!("session_id `{id}` differs from the run's `{first}`");
                    self.find(Severity::Error, line, "one-session", message);
                }
                Some(_) => {}
            }
        }
        let name = kind.type_name().to_owned();
        if let Some((_, known)) = SUBTYPES.iter().find(|(t, _)| *t == name) {
            let subtype = serde_json::from_slice::<Value>(bytes)
                .ok()
                .and_then(|v| v.get("subtype").and_then(Value::as_str).map(str::to_owned))
                .unwrap_or_default();
            if !known.contains(&subtype.as_str()) {
                self.find(
                    Severity::Warning,
                    line,
                    "subtype",
                    format!(
                        "`{name}` with subtype `{subtype}`; the documented ones are {}",
                        known.join(", ")
                    ),
                );
            }
        }
        if !matches!(kind, Event::Assistant(_)) {
            self.text.end_run();
        }
        match kind {
            Event::User(_) => {
                self.users += 1;
                if self.users == 2 {
                    self.find(Severity::Error, line, "one-user", "a second `user` event".into());
                }
            }
            Event::Assistant(event) => {
                // Deltas carry `timestamp_ms` and no `model_call_id`; a closing line not.
                let delta = event.timestamp_ms.is_some() && event.model_call_id.is_none();
                self.text.line(&event.message.joined_text(), delta);
            }
            Event::ToolCall(call) => {
                if let Tool::Other { key, .. } = &call.tool_call.tool {
                    let message = format!("a tool kind this version does not know: `{key}`");
                    self.find(Severity::Warning, line, "tool-kind", message);
                }
                let id = call.call_id.clone();
                match call.subtype.as_str() {
                    "started" => {
                        if let Some(first) = self.open_calls.get(&id).or(self.done_calls.get(&id)) {
                            let message = format!("tool call {id:?} started again (first on line {first})");
                            self.find(Severity::Error, line, "tool-call-pairs", message);
                        } else {
                            self.open_calls.insert(id, line);
                        }
                    }
                    "completed" => {
                        if self.open_calls.remove(&id).is_some() {
                            self.done_calls.insert(id, line);
                        } else if let Some(first) = self.done_calls.get(&id) {
                            let message = format!("tool call {id:?} completed again (first on line {first})");
                            self.find(Severity::Error, line, "tool-call-pairs", message);
                        } else {
                            let message = format!("tool call {id:?} completed but never started");
                            self.find(Severity::Error, line, "tool-call-pairs", message);
                        }
                    }
                    _ => {}
                }
            }
            Event::Result(result) => {
                if let Some(first) = self.result_line {
                    let message = format!("a second `result` (the first on line {first})");
                    self.find(Severity::Error, line, "one-result", message);
                } else {
                    self.result_line = Some(line);
                    self.result_text = Some(result.result);
                    self.after_result_reported = false;
                }
            }
            Event::Other(map) => {
                let kind = map.get("type").and_then(Value::as_str).unwrap_or("");
                let message = if kind.is_empty() {
                    "an object with no `type`".to_owned()
                } else {
                    format!("an event type this version does not know: `{kind}`")
                };
                self.find(Severity::Warning, line, "event-type", message);
            }
            _ => {}
        }
        if self.users == 0 && self.events == 2 {
            self.find(
                Severity::Error,
                line,
                "one-user",
                "the second event is not the `user` event".into(),
            );
        }
    }

    /// Finishes the run: `exit` is how it ended, where known (a capture does not say).
    pub fn finish(mut self, exit: Option<Exit>) -> Report {
        self.text.end_run();
        let mut open: Vec<(String, u64)> = self.open_calls.drain().collect();
        open.sort_by_key(|(_, line)| *line);
        let failed = exit.is_some_and(|e| !e.success());
        for (id, started) in open {
            let severity = if self.result_line.is_some() {
                Severity::Error
            } else {
                Severity::Warning
            };
            let message = format!("tool call {id:?} (line {started}) never completed");
            self.find(severity, 0, "tool-call-pairs", message);
        }
        if self.events > 0 && self.users == 0 {
            self.find(Severity::Error, 0, "one-user", "no `user` event".into());
        }
        match (&self.result_text, self.result_line) {
            (Some(result), Some(line)) if *result != self.text.total => {
                let message = format!(
                    "result.result is {:?} but the assistant text is {:?}",
                    shorten(result),
                    shorten(&self.text.total)
                );
                self.find(Severity::Error, line, "result-text", message);
            }
            (None, _) if exit.is_some_and(Exit::success) => {
                self.find(
                    Severity::Error,
                    0,
                    "result",
                    "the run exits 0 but has no `result`".into(),
                );
            }
            (None, _) if !failed => {
                let message = "no `result`: the run failed or was cut short".to_owned();
                self.find(Severity::Warning, 0, "result", message);
            }
            _ => {}
        }
        let mut findings = self.findings;
        findings.sort_by_key(|f| if f.line == 0 { u64::MAX } else { f.line });
        Report { findings }
    }
}

fn shorten(text: &str) -> String {
    const MAX: usize = 60;
    if text.chars().count() <= MAX {
        text.to_owned()
    } else {
        let head: String = text.chars().take(MAX).collect();
        format!("{head}…")
    }
}

/// Checks a cassette or capture: the protocol of its stdout, and, for a cassette, the
/// way it ends. Findings name the lines of the file. A recording made in `json` or
/// `text` format holds no event stream: its report has one warning saying so. Values
/// that look like secrets are warnings wherever they are.
pub fn check_file(path: &std::path::Path) -> Result<Report, crate::CassetteError> {
    check_file_with(path, None)
}

/// [`check_file`], and a warning when the cassette was recorded with a CLI older than
/// `max_age` (e.g. `2026.10.01`), or with one it does not name.
pub fn check_file_with(
    path: &std::path::Path,
    max_age: Option<&str>,
) -> Result<Report, crate::CassetteError> {
    use crate::format::OutputFormat;
    use crate::frames::{Frame, Stream};
    let mut reader = crate::cassette::open(path)?;
    let mut early = Vec::new();
    if let Some(header) = reader.header() {
        if let Some(min) = max_age {
            match header.invocation.cli_version.as_deref() {
                Some(version) if older(version, min) => early.push(Finding {
                    severity: Severity::Warning,
                    line: 1,
                    rule: "cli-version",
                    message: format!("recorded with CLI {version}, older than {min}: record it again"),
                }),
                Some(_) => {}
                None => early.push(Finding {
                    severity: Severity::Warning,
                    line: 1,
                    rule: "cli-version",
                    message: "the cassette does not say which CLI recorded it (record with --cli-version)"
                        .into(),
                }),
            }
        }
        let text = serde_json::to_string(header).unwrap_or_default();
        if let Some(secret) = secret_like(&text) {
            early.push(secret_finding(1, &secret));
        }
        if let Some(format) = header
            .invocation
            .output_format
            .filter(|f| *f != OutputFormat::StreamJson)
        {
            early.push(Finding {
                severity: Severity::Warning,
                line: 1,
                rule: "format",
                message: format!("recorded with `--output-format {format}`: there are no events to check"),
            });
            return Ok(Report { findings: early });
        }
    }
    let mut checker = Checker::new();
    checker.findings = early;
    let mut exit = None;
    while let Some(frame) = reader.next() {
        match frame? {
            Frame::Line(line) => {
                if let Some(secret) = secret_like(&String::from_utf8_lossy(&line.bytes)) {
                    checker.findings.push(secret_finding(reader.line_no(), &secret));
                }
                if line.stream == Stream::Stdout {
                    checker.line(reader.line_no(), &line.bytes);
                }
            }
            Frame::End(end) => exit = Some(end.exit),
            _ => {}
        }
    }
    // A capture's exit is made up from its last line: it says nothing.
    Ok(checker.finish(if reader.is_capture() { None } else { exit }))
}

fn secret_finding(line: u64, secret: &str) -> Finding {
    let shown: String = secret.chars().take(8).collect();
    Finding {
        severity: Severity::Warning,
        line,
        rule: "secret",
        message: format!(
            "a value that looks like a secret (`{shown}…`): redact it (`mock-agent record --redact`)"
        ),
    }
}

/// Prefixes of API keys and tokens.
const SECRET_PREFIXES: &[&str] = &[
    "sk-", "sk_", "key_", "crsr_", "ghp_", "gho_", "xoxb-", "xoxp-", "AKIA", "Bearer ",
];

/// A value in `text` that looks like a secret: a known key prefix followed by 16 or
/// more token characters.
pub fn secret_like(text: &str) -> Option<String> {
    let token = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.';
    for prefix in SECRET_PREFIXES {
        let mut from = 0;
        while let Some(i) = text[from..].find(prefix) {
            let start = from + i;
            let boundary = text[..start].chars().next_back().is_none_or(|c| !token(c));
            let body: String = text[start + prefix.len()..]
                .chars()
                .take_while(|c| token(*c))
                .collect();
            if boundary && body.len() >= 16 && !body.contains("REDACTED") {
                return Some(format!("{prefix}{body}"));
            }
            from = start + prefix.len();
        }
    }
    None
}

/// Whether CLI version `a` is older than `b`: their dates (`2026.10.01`) compared.
pub fn older(a: &str, b: &str) -> bool {
    let date = |v: &str| -> Vec<u64> {
        v.split('-')
            .next()
            .unwrap_or("")
            .split('.')
            .map(|n| n.parse().unwrap_or(0))
            .collect()
    };
    date(a) < date(b)
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

    const SEED: &str = include_str!("../../cassettes/seed-example.ndjson");

    fn rules(report: &Report) -> Vec<(Severity, &'static str)> {
        report.findings.iter().map(|f| (f.severity, f.rule)).collect()
    }

    #[test]
    fn secrets_and_versions() {
        assert_eq!(
            secret_like("key sk-live-0123456789abcdef in text"),
            Some("sk-live-0123456789abcdef".into())
        );
        assert_eq!(secret_like("Bearer [REDACTED]"), None);
        assert_eq!(
            secret_like("task-0123456789abcdefgh"),
            None,
            "a word that merely ends in sk-"
        );
        assert!(older("2026.01.15-abc1234", "2026.10.01"));
        assert!(!older("2026.10.01-e373342", "2026.10.01"));
        assert!(!older("2027.01.01-x", "2026.12.31"));
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
        assert!(rules(&check_lines(&without(9), Some(Exit::Code(0)))).contains(&(Severity::Error, "result")));
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
        let broken = SEED.replacen(
            r#""call_id":"toolu_vrtx_01NnjaR886UcE8whekg2MGJd","tool_call""#,
            r#""tool_call""#,
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
        text.push_str(&lines[9].replace(r#""subtype":"success""#, r#""subtype":"correcto""#));
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
    fn deltas_and_their_closing_line_count_once() {
        let sid = "s";
        let assistant = |text: &str, ts: bool| {
            let ts = if ts { r#","timestamp_ms":1"# } else { "" };
            format!(
                r#"{{"type":"assistant","message":{{"role":"assistant","content":[{{"type":"text","text":"{text}"}}]}},"session_id":"{sid}"{ts}}}"#
            )
        };
        let text = [
            format!(r#"{{"type":"system","subtype":"init","session_id":"{sid}"}}"#),
            format!(r#"{{"type":"user","message":{{"role":"user","content":[{{"type":"text","text":"hi"}}]}},"session_id":"{sid}"}}"#),
            assistant("Hel", true),
            assistant("lo", true),
            assistant("Hello", false),
            format!(r#"{{"type":"result","subtype":"success","is_error":false,"result":"Hello","session_id":"{sid}"}}"#),
        ]
        .join("\n");
        assert_eq!(check_lines(&text, Some(Exit::Code(0))).findings, vec![]);
    }
}
