//! Gemini CLI's rules (`mock-agent lint` of a cassette of `gemini -p -o stream-json`):
//! its stdout, one JSON object a line.
//!
//! | rule | what |
//! | --- | --- |
//! | `not-json` (error) | a line that is not a JSON object |
//! | `event-type` (warning) | a line without a `type`, or of a type 0.61.0 does not write |
//! | `init-first` (error) | the first line is `init`, and it comes once |
//! | `one-user` (error) | the prompt is echoed once, as the second line |
//! | `tool-call-pairs` | a `tool_result` answers a `tool_use` before it, once (an error); a `tool_use` without a result is an error in a run that succeeded, a warning in one that failed or was cut |
//! | `one-result` (error) | one `result` a run |
//! | `result-last` (error) | nothing comes after `result` |
//! | `result` | a run that says how it ended has a `result` (a warning: the real CLI's relaunched child killed ends so, exit 0) |
//! | `fields` (error) | a line of a known type has what consumers read: `timestamp`; `session_id` and `model`; a message's `role` and `content`; `tool_name`, `tool_id`, `parameters`; `status`; `severity` and `message`; a failed `result`'s `error.message` when it has an `error` |

use std::collections::HashMap;

use serde_json::Value;

use super::wire::{events, roles, status};
use crate::check::findings::{Report, Rule, Severity, Tally, SHOWN_PER_RULE};
use crate::check::lines::{self, StdoutLint};
use crate::frames::Exit;

/// The most tool calls a checker keeps track of: past it, pairs are not checked.
const MAX_TRACKED: usize = 10_000;

/// Checks a run of `gemini -p -o stream-json`, line by line, in bounded memory.
#[derive(Debug)]
pub struct GeminiChecker {
    findings: Tally,
    lines: u64,
    init: bool,
    users: u64,
    /// The `result`'s line and whether it succeeded.
    result: Option<(u64, bool)>,
    /// After `result`: reported once.
    told_after: bool,
    /// Open tool calls: id -> the line of their `tool_use`; `None` once answered.
    tools: HashMap<String, Option<u64>>,
}

impl Default for GeminiChecker {
    fn default() -> Self {
        GeminiChecker {
            findings: Tally::new(SHOWN_PER_RULE),
            lines: 0,
            init: false,
            users: 0,
            result: None,
            told_after: false,
            tools: HashMap::new(),
        }
    }
}

impl GeminiChecker {
    fn fields(&mut self, line: u64, kind: &str, value: &Value) {
        let string = |key: &str| value.get(key).is_some_and(Value::is_string);
        let mut missing: Vec<&str> = Vec::new();
        if events::ALL.contains(&kind) && !string("timestamp") {
            missing.push("a `timestamp`");
        }
        match kind {
            events::INIT if !string("session_id") || !string("model") => {
                missing.push("`session_id` and `model`")
            }
            events::MESSAGE if !string("role") || !string("content") => missing.push("`role` and `content`"),
            events::TOOL_USE
                if !string("tool_name") || !string("tool_id") || !value["parameters"].is_object() =>
            {
                missing.push("`tool_name`, `tool_id` and `parameters`")
            }
            events::TOOL_RESULT if !string("tool_id") || !string("status") => {
                missing.push("`tool_id` and `status`")
            }
            events::ERROR if !string("severity") || !string("message") => {
                missing.push("`severity` and `message`")
            }
            events::RESULT if !string("status") => missing.push("a `status`"),
            events::RESULT if value.get("error").is_some_and(|e| !e["message"].is_string()) => {
                missing.push("the `error`'s `message`")
            }
            _ => {}
        }
        lines::missing(&mut self.findings, line, kind, &missing);
    }
}

/// A recording of `gemini -p -o stream-json`: its stdout lines by these rules.
impl StdoutLint for GeminiChecker {
    const NOT_JSON: &'static str = "a consumer's JSON.parse or json.loads throws";

    fn tally(&mut self) -> (&mut Tally, &mut u64) {
        (&mut self.findings, &mut self.lines)
    }

    const OPENS: (&'static str, &'static str) = (events::INIT, "a run has one session");
    const KNOWN: (&'static [&'static str], &'static str) = (events::ALL, "0.61.0 does not write");

    fn ended(&mut self) -> Option<String> {
        let (end, _) = self.result.filter(|_| !self.told_after)?;
        self.told_after = true;
        Some(format!("the `result` of line {end}"))
    }

    fn value(&mut self, line: u64, kind: &str, value: &Value) {
        self.fields(line, kind, value);
        let id = || {
            value
                .get("tool_id")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned()
        };
        match kind {
            events::INIT => self.init = true,
            events::MESSAGE if value["role"] == roles::USER => {
                self.users += 1;
                if self.users > 1 || self.lines != 2 {
                    self.findings.add(Severity::Error, line, Rule::OneUser, || {
                        "the prompt is echoed once, right after `init`".into()
                    });
                }
            }
            events::TOOL_USE => {
                let id = id();
                if self.tools.contains_key(&id) {
                    self.findings.add(Severity::Error, line, Rule::ToolCallPairs, || {
                        format!("tool call `{id}` is made again")
                    });
                } else if self.tools.len() < MAX_TRACKED {
                    self.tools.insert(id, Some(line));
                }
            }
            events::TOOL_RESULT => {
                let id = id();
                let full = self.tools.len() >= MAX_TRACKED;
                match self.tools.get_mut(&id) {
                    Some(open @ Some(_)) => *open = None,
                    Some(None) => self.findings.add(Severity::Error, line, Rule::ToolCallPairs, || {
                        format!("tool call `{id}` has a second result")
                    }),
                    None if full => {}
                    None => self.findings.add(Severity::Error, line, Rule::ToolCallPairs, || {
                        format!("a result for `{id}`, which no `tool_use` made")
                    }),
                }
            }
            events::RESULT => {
                if let Some((before, _)) = self.result {
                    self.findings.add(Severity::Error, line, Rule::OneResult, || {
                        format!("a second `result` (the first on line {before})")
                    });
                } else {
                    self.result = Some((line, value["status"] == status::SUCCESS));
                }
            }
            _ => {}
        }
    }

    /// The end of the recording: `exit` is how the CLI ended, where known.
    fn finish(mut self, exit: Option<Exit>) -> Report {
        let succeeded = self.result.is_some_and(|(_, ok)| ok);
        let mut open: Vec<(String, u64)> = self
            .tools
            .iter()
            .filter_map(|(id, line)| line.map(|line| (id.clone(), line)))
            .collect();
        open.sort_by_key(|(_, line)| *line);
        for (id, line) in open {
            let severity = if succeeded {
                Severity::Error
            } else {
                Severity::Warning
            };
            self.findings.add(severity, line, Rule::ToolCallPairs, || {
                format!("tool call `{id}` has no `tool_result`")
            });
        }
        if self.init && self.result.is_none() {
            let said = match exit {
                Some(Exit::Code(0)) => {
                    "the run exits 0 without `result` (as when the relaunched child is killed)"
                }
                _ => "the run was cut short: no `result`",
            };
            self.findings
                .add(Severity::Warning, 0, Rule::Result, || said.to_owned());
        }
        self.findings.report()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialects::gemini::faults::{parse, written, Out, FROM_ENV};
    use crate::dialects::gemini::session::default_session;

    fn check(lines: &[Vec<u8>], exit: Option<Exit>) -> Report {
        crate::check::lines::report::<GeminiChecker>(lines, exit)
    }

    #[test]
    fn what_the_player_writes_is_clean_ended_well_or_not() {
        for spec in [""].iter().chain(super::super::faults::RUN_FAILURES) {
            let outs = written(&default_session("/w"), &parse(spec, FROM_ENV).expect("faults"), 0);
            let exit = match outs.last() {
                Some(Out::End(exit)) => Some(*exit),
                _ => None,
            };
            let line = |o: Out| if let Out::Line(l) = o { Some(l) } else { None };
            let lines: Vec<Vec<u8>> = outs.into_iter().filter_map(line).collect();
            let report = check(&lines, exit);
            assert!(report.findings.is_empty(), "{spec}: {report:?}");
        }
    }

    #[test]
    fn broken_runs_are_found() {
        use crate::dialects::gemini::wire::events::{MESSAGE, RESULT, TOOL_RESULT, TOOL_USE};
        use serde_json::json;
        let t = "2026-11-27T12:00:00.000Z";
        let lines: Vec<Vec<u8>> = vec![
            json!({"type": MESSAGE, "timestamp": t, "role": roles::USER, "content": "hi"})
                .to_string()
                .into_bytes(),
            json!({"type": TOOL_RESULT, "timestamp": t, "tool_id": "x", "status": status::SUCCESS})
                .to_string()
                .into_bytes(),
            b"{oops".to_vec(),
            json!({"type": TOOL_USE, "timestamp": t, "tool_name": "a", "tool_id": "y", "parameters": {}})
                .to_string()
                .into_bytes(),
            json!({"type": RESULT, "timestamp": t, "status": status::SUCCESS})
                .to_string()
                .into_bytes(),
            json!({"type": RESULT, "timestamp": t}).to_string().into_bytes(),
        ];
        let report = check(&lines, Some(Exit::Code(0)));
        let rules: Vec<&str> = report.findings.iter().map(|f| f.rule.as_str()).collect();
        assert_eq!(
            rules,
            [
                "init-first",
                "one-user",
                "tool-call-pairs",
                "not-json",
                "tool-call-pairs",
                "result-last",
                "fields",
                "one-result"
            ]
        );
    }
}
