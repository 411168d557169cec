//! Codex's rules (`mock-agent lint` of a cassette of `codex exec --json`): its stdout,
//! one JSON object a line, one turn a process.
//!
//! | rule | what |
//! | --- | --- |
//! | `not-json` (error) | a line that is not a JSON object (the TypeScript SDK throws `Failed to parse item`) |
//! | `event-type` (warning) | a line without a `type`, or of a line or item type 0.163.0 does not write (the SDK passes it on) |
//! | `init-first` (error) | the first line is `thread.started`, and it comes once |
//! | `turn-order` (error) | no item comes before `turn.started`, but the warnings (`error` items) the CLI writes before it |
//! | `tool-call-pairs` | an item is started once and completed once, by its id, and updated only between (an error); one started and never completed is an error in a completed turn, a warning in a turn that failed or was cut |
//! | `one-result` (error) | a turn ends once: one `turn.completed` or `turn.failed` per `turn.started` |
//! | `result-last` (error) | nothing comes after the turn's end |
//! | `result` | a run that exits 0 has a `turn.completed` (an error); one that does not say how it ended and has none was cut short (a warning) |
//! | `fields` (error) | a line of a known type has what the SDK reads: `thread_id`, `usage`, `error.message`, `message`, an `item` with `id` and `type`, an agent message's or reasoning's `text` |

use std::collections::HashMap;

use serde_json::Value;

use super::wire::{events, items};
use crate::check::findings::{Report, Rule, Severity, Tally, SHOWN_PER_RULE};
use crate::check::lines::{self, StdoutLint};
use crate::frames::Exit;

/// The most items a checker keeps track of: past it, pairs are not checked.
const MAX_TRACKED: usize = 10_000;

/// Where an item stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Started(u64),
    Completed,
}

/// Checks a run of `codex exec --json`, line by line, in bounded memory.
#[derive(Debug)]
pub struct CodexChecker {
    findings: Tally,
    /// How many stdout lines were seen.
    lines: u64,
    /// `thread.started` was seen.
    thread: bool,
    /// A turn is open (started, not ended).
    open: bool,
    /// How many turns completed, and ended at all.
    completed: u64,
    ended: u64,
    /// The line of the last turn's end, while nothing came after it.
    ended_at: Option<u64>,
    items: HashMap<String, State>,
}

impl Default for CodexChecker {
    fn default() -> Self {
        CodexChecker {
            findings: Tally::new(SHOWN_PER_RULE),
            lines: 0,
            thread: false,
            open: false,
            completed: 0,
            ended: 0,
            ended_at: None,
            items: HashMap::new(),
        }
    }
}

impl CodexChecker {
    fn turn_end(&mut self, line: u64, kind: &str) {
        if !self.open {
            let kind = kind.to_owned();
            self.findings.add(Severity::Error, line, Rule::OneResult, || {
                format!("`{kind}` ends no turn: each `turn.started` ends once")
            });
        }
        let completed = kind == events::TURN_COMPLETED;
        self.unfinished(completed);
        self.open = false;
        self.ended += 1;
        self.completed += u64::from(completed);
        self.ended_at = Some(line);
    }

    /// Reports the items started and never completed: errors in a completed turn.
    fn unfinished(&mut self, completed: bool) {
        let mut open: Vec<(String, u64)> = self
            .items
            .iter()
            .filter_map(|(id, state)| match state {
                State::Started(line) => Some((id.clone(), *line)),
                State::Completed => None,
            })
            .collect();
        open.sort_by_key(|(_, line)| *line);
        let severity = if completed {
            Severity::Error
        } else {
            Severity::Warning
        };
        for (id, line) in open {
            self.items.insert(id.clone(), State::Completed);
            self.findings.add(severity, line, Rule::ToolCallPairs, || {
                format!("item `{id}` is started and never completed")
            });
        }
    }

    fn item(&mut self, line: u64, kind: &str, item: &Value) {
        let item_type = item.get("type").and_then(Value::as_str).unwrap_or_default();
        if !item_type.is_empty() && !items::ALL.contains(&item_type) {
            let item_type = item_type.to_owned();
            self.findings.add(Severity::Warning, line, Rule::EventType, || {
                format!("`{item_type}` is an item type the CLI does not write: the SDK passes it on")
            });
        }
        if !self.open && item_type != items::ERROR && self.ended == 0 {
            let item_type = item_type.to_owned();
            self.findings.add(Severity::Error, line, Rule::TurnOrder, || {
                format!(
                    "an item (`{item_type}`) before `{}`: only warnings come before the turn",
                    events::TURN_STARTED
                )
            });
        }
        let Some(id) = item.get("id").and_then(Value::as_str) else {
            return;
        };
        let state = self.items.get(id).copied();
        let wrong = match (kind, state) {
            (events::ITEM_STARTED, None) | (events::ITEM_COMPLETED, None | Some(State::Started(_))) => None,
            (events::ITEM_UPDATED, Some(State::Started(_))) => None,
            (events::ITEM_STARTED, Some(_)) => Some("started again"),
            (events::ITEM_UPDATED, _) => Some("updated while not in progress"),
            _ => Some("completed again"),
        };
        if let Some(wrong) = wrong {
            let id = id.to_owned();
            self.findings.add(Severity::Error, line, Rule::ToolCallPairs, || {
                format!("item `{id}` is {wrong}")
            });
        }
        if self.items.len() < MAX_TRACKED || state.is_some() {
            let next = if kind == events::ITEM_COMPLETED {
                State::Completed
            } else {
                state.unwrap_or(State::Started(line))
            };
            self.items.insert(id.to_owned(), next);
        }
    }

    fn fields(&mut self, line: u64, kind: &str, value: &Value) {
        let string = |pointer: &str| value.pointer(pointer).is_some_and(Value::is_string);
        let mut missing: Vec<&str> = Vec::new();
        match kind {
            events::THREAD_STARTED if !string("/thread_id") => missing.push("a `thread_id`"),
            events::TURN_COMPLETED if !value.get("usage").is_some_and(Value::is_object) => {
                missing.push("a `usage` object (the TypeScript SDK throws a TypeError)");
            }
            events::TURN_FAILED if !string("/error/message") => missing.push("`error.message`"),
            events::ERROR if !string("/message") => missing.push("a `message`"),
            events::ITEM_STARTED | events::ITEM_UPDATED | events::ITEM_COMPLETED => {
                if !string("/item/id") || !string("/item/type") {
                    missing.push("an `item` with an `id` and a `type`");
                }
                let item_type = value.pointer("/item/type").and_then(Value::as_str);
                if matches!(item_type, Some(items::AGENT_MESSAGE | items::REASONING)) && !string("/item/text")
                {
                    missing.push("the item's `text`");
                }
            }
            _ => {}
        }
        lines::missing(&mut self.findings, line, kind, &missing);
    }
}

/// A recording of `codex exec --json`: its stdout lines by these rules.
impl StdoutLint for CodexChecker {
    const NOT_JSON: &'static str = "the TypeScript SDK throws `Failed to parse item`";

    fn tally(&mut self) -> (&mut Tally, &mut u64) {
        (&mut self.findings, &mut self.lines)
    }

    const OPENS: (&'static str, &'static str) = (events::THREAD_STARTED, "a run starts one thread");
    const KNOWN: (&'static [&'static str], &'static str) =
        (events::ALL, "the CLI does not write: the SDK passes it on");

    fn ended(&mut self) -> Option<String> {
        let end = self.ended_at.take()?;
        Some(format!("the turn ended on line {end}"))
    }

    fn value(&mut self, line: u64, kind: &str, value: &Value) {
        self.fields(line, kind, value);
        match kind {
            events::THREAD_STARTED => self.thread = true,
            events::TURN_STARTED => self.open = true,
            events::TURN_COMPLETED | events::TURN_FAILED => self.turn_end(line, kind),
            events::ITEM_STARTED | events::ITEM_UPDATED | events::ITEM_COMPLETED => {
                self.item(line, kind, &value["item"]);
            }
            _ => {}
        }
    }

    /// The end of the recording: `exit` is how the CLI ended, where known.
    fn finish(mut self, exit: Option<Exit>) -> Report {
        if self.open {
            self.unfinished(false);
        }
        if self.completed == 0 && (self.thread || matches!(exit, Some(Exit::Code(0)))) {
            let (severity, said) = match exit {
                Some(Exit::Code(0)) => (Severity::Error, "the run exits 0"),
                None if self.ended == 0 => (Severity::Warning, "the run was cut short"),
                _ => (Severity::Warning, ""),
            };
            if !said.is_empty() {
                self.findings.add(severity, 0, Rule::Result, || {
                    format!("{said} without `{}`", events::TURN_COMPLETED)
                });
            }
        }
        self.findings.report()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::dialects::codex::faults::{exec_lines, written, CodexFault, Out};
    use crate::dialects::codex::session::default_session;

    fn rules(report: &Report) -> Vec<&'static str> {
        report.findings.iter().map(|f| f.rule.as_str()).collect()
    }

    fn check(lines: &[Vec<u8>], exit: Option<Exit>) -> Report {
        crate::check::lines::report::<CodexChecker>(lines, exit)
    }

    #[test]
    fn what_exec_writes_is_clean_ended_well_or_not() {
        let session = default_session("/work");
        let (lines, exit) = exec_lines(&session, crate::dialects::codex::exec::Thread::new(2, 0));
        let report = check(&lines, Some(exit));
        assert!(report.findings.is_empty(), "{report:?}");
        for preset in [
            "unauthorized",
            "rate-limited",
            "unknown-model",
            "turn-failed",
            "stream-cut",
        ] {
            let faults: Vec<CodexFault> =
                crate::dialects::codex::faults::parse(preset, crate::dialects::codex::faults::FROM_ENV)
                    .expect("a preset");
            let outs = written(&session, &faults, 1);
            let lines: Vec<Vec<u8>> = outs.into_iter().filter_map(Out::into_line).collect();
            let report = check(&lines, Some(Exit::Code(1)));
            assert!(report.findings.is_empty(), "{preset}: {report:?}");
        }
    }

    #[test]
    fn broken_runs_are_found() {
        let line = |v: Value| serde_json::to_vec(&v).expect("JSON");
        let item = |kind: &str, id: &str, t: &str| {
            line(json!({"type": kind, "item": {"id": id, "type": t, "text": "x"}}))
        };
        let lines = vec![
            line(json!({"type": events::TURN_STARTED})),
            item(events::ITEM_STARTED, "item_0", items::COMMAND_EXECUTION),
            b"{oops".to_vec(),
            item(events::ITEM_STARTED, "item_0", items::COMMAND_EXECUTION),
            item(events::ITEM_COMPLETED, "item_1", "hologram"),
            line(json!({"type": events::TURN_COMPLETED})),
            line(json!({"type": events::TURN_FAILED, "error": {"message": "m"}})),
        ];
        let report = check(&lines, Some(Exit::Code(0)));
        let expected = [
            Rule::InitFirst,
            // The command started on line 2 and never completed, told at its line.
            Rule::ToolCallPairs,
            Rule::NotJson,
            Rule::ToolCallPairs,
            Rule::EventType,
            Rule::Fields,
            Rule::ResultLast,
            Rule::OneResult,
        ];
        assert_eq!(rules(&report), expected.map(Rule::as_str));
        let early = vec![
            line(json!({"type": events::THREAD_STARTED, "thread_id": "t"})),
            item(events::ITEM_COMPLETED, "item_0", items::AGENT_MESSAGE),
        ];
        let report = check(&early, Some(Exit::Code(0)));
        assert_eq!(rules(&report), [Rule::TurnOrder, Rule::Result].map(Rule::as_str));
    }
}
