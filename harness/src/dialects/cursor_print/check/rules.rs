//! The rules, one method each: what [`Checker::line`] and [`Checker::finish`] apply.

use serde_json::Value;

use super::{Checker, Rule, Severity};
use crate::dialects::cursor_print::events::{
    event_type, field, subtype, Event, Extra, ResultEvent, Tool, ToolCallEvent,
};
use crate::frames::Exit;
use crate::peek::Peek;

/// The value of a top-level string field of a JSON line, or `""`.
fn string_field(bytes: &[u8], name: &str) -> String {
    serde_json::from_slice::<Value>(bytes)
        .ok()
        .and_then(|v| v.get(name).and_then(Value::as_str).map(str::to_owned))
        .unwrap_or_default()
}

impl Checker {
    /// `not-json`: a line that is not a JSON object.
    pub(super) fn not_json(&mut self, line: u64, bytes: &[u8]) {
        self.found.add(Severity::Warning, line, Rule::NotJson, || {
            let shown: String = String::from_utf8_lossy(bytes).chars().take(60).collect();
            format!("a line that is not a JSON event: `{shown}`")
        });
    }

    /// `fields`: an event of a known type whose fields do not fit it.
    pub(super) fn wrong_fields(&mut self, line: u64, bytes: &[u8], error: &serde_json::Error) {
        self.found.add(Severity::Error, line, Rule::Fields, || {
            let kind = string_field(bytes, field::TYPE);
            let message = error.to_string();
            let message = message.split(" at line ").next().unwrap_or(&message);
            format!("a `{kind}` event with a wrong field: {message}")
        });
    }

    /// `init-first`: the first event is `system`/`init`.
    pub(super) fn init_first(&mut self, line: u64, peek: &Peek<'_>, event: &Event) {
        if self.events == 1 && !(peek.is_type(event_type::SYSTEM) && peek.is_subtype(subtype::INIT)) {
            self.found.add(Severity::Error, line, Rule::InitFirst, || {
                format!("the first event is `{}`, not `system`/`init`", event.type_name())
            });
        }
    }

    /// `result-last`: nothing but another `result` comes after the result (reported
    /// once per result).
    pub(super) fn result_last(&mut self, line: u64, event: &Event) {
        if matches!(event, Event::Result(_)) || self.after_result_reported {
            return;
        }
        if let Some(result_line) = self.result_line {
            self.after_result_reported = true;
            self.found.add(Severity::Error, line, Rule::ResultLast, || {
                format!(
                    "a `{}` event after the result (line {result_line})",
                    event.type_name()
                )
            });
        }
    }

    /// `one-session`: every event carries the first event's `session_id`.
    pub(super) fn one_session(&mut self, line: u64, event: &Event) {
        let Some(id) = event.session_id() else {
            return;
        };
        match &self.session_id {
            None => self.session_id = Some(id.to_owned()),
            Some(first) if first != id => {
                self.found.add(Severity::Error, line, Rule::OneSession, || {
                    format!("session_id `{id}` differs from the run's `{first}`")
                });
            }
            Some(_) => {}
        }
    }

    /// `subtype`: an event of a known type has a documented subtype.
    pub(super) fn subtype(&mut self, line: u64, bytes: &[u8], event: &Event) {
        let name = event.type_name();
        let Some((_, known)) = subtype::DOCUMENTED.iter().find(|(t, _)| *t == name) else {
            return;
        };
        let subtype = string_field(bytes, field::SUBTYPE);
        if !known.contains(&subtype.as_str()) {
            self.found.add(Severity::Warning, line, Rule::Subtype, || {
                format!(
                    "`{name}` with subtype `{subtype}`; the documented ones are {}",
                    known.join(", ")
                )
            });
        }
    }

    /// `one-user`: a `user` event, an error when it is the second.
    pub(super) fn user(&mut self, line: u64) {
        self.users += 1;
        if self.users == 2 {
            self.found.add(Severity::Error, line, Rule::OneUser, || {
                "a second `user` event".into()
            });
        }
    }

    /// `one-user`: the second event is the `user` event.
    pub(super) fn user_comes_second(&mut self, line: u64) {
        if self.users == 0 && self.events == 2 {
            self.found.add(Severity::Error, line, Rule::OneUser, || {
                "the second event is not the `user` event".into()
            });
        }
    }

    /// `one-user`, at the end: there was a `user` event.
    pub(super) fn some_user(&mut self) {
        if self.events > 0 && self.users == 0 {
            self.found
                .add(Severity::Error, 0, Rule::OneUser, || "no `user` event".into());
        }
    }

    /// `tool-kind`: a tool kind this version knows.
    pub(super) fn tool_kind(&mut self, line: u64, call: &ToolCallEvent) {
        if let Tool::Other { key, .. } = &call.tool_call.tool {
            self.found.add(Severity::Warning, line, Rule::ToolKind, || {
                format!("a tool kind this version does not know: `{key}`")
            });
        }
    }

    /// `tool-call-pairs`: each call is started once, then completed once.
    pub(super) fn tool_call_pairs(&mut self, line: u64, call: ToolCallEvent) {
        let id = call.call_id;
        match call.subtype.as_str() {
            subtype::STARTED => {
                if let Some(first) = self.open_calls.get(&id).or(self.done_calls.get(&id)) {
                    self.found.add(Severity::Error, line, Rule::ToolCallPairs, || {
                        format!("tool call {id:?} started again (first on line {first})")
                    });
                } else {
                    self.open_calls.insert(id, line);
                }
            }
            subtype::COMPLETED => {
                if self.open_calls.remove(&id).is_some() {
                    self.done_calls.insert(id, line);
                } else if let Some(first) = self.done_calls.get(&id) {
                    self.found.add(Severity::Error, line, Rule::ToolCallPairs, || {
                        format!("tool call {id:?} completed again (first on line {first})")
                    });
                } else {
                    self.found.add(Severity::Error, line, Rule::ToolCallPairs, || {
                        format!("tool call {id:?} completed but never started")
                    });
                }
            }
            _ => {}
        }
    }

    /// `tool-call-pairs`, at the end: every started call completed. A call left open
    /// by a run with no result (cut short) is a warning.
    pub(super) fn no_open_calls(&mut self) {
        let mut open: Vec<(String, u64)> = self.open_calls.drain().collect();
        open.sort_by_key(|(_, line)| *line);
        let severity = if self.result_line.is_some() {
            Severity::Error
        } else {
            Severity::Warning
        };
        for (id, started) in open {
            self.found.add(severity, 0, Rule::ToolCallPairs, || {
                format!("tool call {id:?} (line {started}) never completed")
            });
        }
    }

    /// `one-result`: the first `result` is kept; a second is an error.
    pub(super) fn one_result(&mut self, line: u64, result: ResultEvent) {
        if let Some(first) = self.result_line {
            self.found.add(Severity::Error, line, Rule::OneResult, || {
                format!("a second `result` (the first on line {first})")
            });
        } else {
            self.result_line = Some(line);
            self.result_text = Some(result.result);
            self.after_result_reported = false;
        }
    }

    /// `event-type`: an event type this version knows.
    pub(super) fn event_type(&mut self, line: u64, map: &Extra) {
        self.found.add(Severity::Warning, line, Rule::EventType, || {
            match map.get(field::TYPE).and_then(Value::as_str).unwrap_or("") {
                "" => "an object with no `type`".to_owned(),
                kind => format!("an event type this version does not know: `{kind}`"),
            }
        });
    }

    /// `result-text`, at the end: `result.result` is the assistant text.
    pub(super) fn result_text(&mut self) {
        let (Some(result), Some(line)) = (&self.result_text, self.result_line) else {
            return;
        };
        let total = &self.text.total;
        if result != total {
            self.found.add(Severity::Error, line, Rule::ResultText, || {
                format!(
                    "result.result is {:?} but the assistant text is {:?}",
                    shorten(result),
                    shorten(total)
                )
            });
        }
    }

    /// `result`, at the end: a run that exits 0 has a `result`; one that does not say
    /// how it ended and has none was cut short.
    pub(super) fn has_result(&mut self, exit: Option<Exit>) {
        if self.result_text.is_some() {
            return;
        }
        match exit {
            Some(exit) if exit.success() => self.found.add(Severity::Error, 0, Rule::Result, || {
                "the run exits 0 but has no `result`".into()
            }),
            None => self.found.add(Severity::Warning, 0, Rule::Result, || {
                "no `result`: the run failed or was cut short".into()
            }),
            // A failed run has no result.
            Some(_) => {}
        }
    }
}

/// The first 60 characters of a text, and `…` when there is more.
fn shorten(text: &str) -> String {
    const MAX: usize = 60;
    if text.chars().count() <= MAX {
        text.to_owned()
    } else {
        let head: String = text.chars().take(MAX).collect();
        format!("{head}…")
    }
}
