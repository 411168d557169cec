//! `codex app-server`'s rules (`mock-agent lint` of a recording of it): both
//! directions, one JSON object a line, as 0.163.0 frames them.
//!
//! | rule | what |
//! | --- | --- |
//! | `not-json` (error) | a server line that is not a JSON object (the Python SDK fails every waiter: `Invalid JSON-RPC line`) |
//! | `json-rpc` | a server line is a request (`method`, `id`), a notification (`method`, no `id`) or a response (`id`, one of `result`, `error`), with no `jsonrpc` member (an error); a client line that is none of these is a warning |
//! | `event-type` (warning) | a notification or server request 0.163.0's schema does not name here |
//! | `answered-once` | each request is answered once with its id (an error); one still waiting at the end is a warning |
//! | `turn-order` (error) | an item or a turn's end comes only inside a turn (after `turn/started`, before `turn/completed`) |
//! | `fields` (error) | `turn/completed` has `turn.id` and `turn.status`, `item/*` have `item.type` and `item.id`, `error` has `error.message` |

use std::collections::HashMap;

use serde_json::Value;

use crate::check::findings::{Report, Rule, Severity, Tally, SHOWN_PER_RULE};
use crate::dialects::codex::wire::rpc::{notifications, server_requests, ERROR, RESULT};
use crate::frames::{Exit, Stream};

/// The most requests a checker keeps track of.
const MAX_TRACKED: usize = 10_000;

/// Checks a recording of `codex app-server`, line by line, in bounded memory.
#[derive(Debug)]
pub struct AppServerChecker {
    findings: Tally,
    /// Requests waiting for an answer, by which side asked (`true`: the server) and
    /// id (as JSON text): the line they were asked at.
    asked: HashMap<(bool, String), u64>,
    /// Turns open.
    open: u64,
}

impl Default for AppServerChecker {
    fn default() -> Self {
        AppServerChecker {
            findings: Tally::new(SHOWN_PER_RULE),
            asked: HashMap::new(),
            open: 0,
        }
    }
}

impl AppServerChecker {
    /// One line, `server` when the server wrote it.
    pub fn line(&mut self, line: u64, server: bool, bytes: &[u8]) {
        let severity = if server {
            Severity::Error
        } else {
            Severity::Warning
        };
        let value = match serde_json::from_slice::<Value>(bytes) {
            Ok(value) if value.is_object() => value,
            _ if server => {
                self.findings.add(Severity::Error, line, Rule::NotJson, || {
                    "not a JSON object: the Python SDK fails every waiter (`Invalid JSON-RPC line`)".into()
                });
                return;
            }
            // The server gives no answer to a client line it cannot read (observed).
            _ => return,
        };
        if server && value.get("jsonrpc").is_some() {
            self.findings.add(Severity::Error, line, Rule::JsonRpc, || {
                "a `jsonrpc` member: 0.163.0 writes none".into()
            });
        }
        let method = value.get("method").and_then(Value::as_str);
        let id = value.get("id").map(Value::to_string);
        match (method, id) {
            (Some(method), Some(id)) => {
                if server && !server_requests::ALL.contains(&method) {
                    let method = method.to_owned();
                    self.findings.add(Severity::Warning, line, Rule::EventType, || {
                        format!("a server request `{method}` this version does not name")
                    });
                }
                if self.asked.len() < MAX_TRACKED && self.asked.insert((server, id.clone()), line).is_some() {
                    self.findings.add(severity, line, Rule::JsonRpc, || {
                        format!("a second request with id {id} while the first waits")
                    });
                }
            }
            (Some(method), None) => {
                if server {
                    self.notification(line, method, &value);
                }
            }
            (None, Some(id)) => {
                let one = usize::from(value.get(RESULT).is_some()) + usize::from(value.get(ERROR).is_some());
                if one != 1 {
                    self.findings.add(severity, line, Rule::JsonRpc, || {
                        "a response with not exactly one of `result` and `error`".into()
                    });
                }
                if self.asked.remove(&(!server, id.clone())).is_none() {
                    self.findings.add(severity, line, Rule::AnsweredOnce, || {
                        format!("an answer to id {id}, which no request waits on")
                    });
                }
            }
            (None, None) => self.findings.add(severity, line, Rule::JsonRpc, || {
                "neither a `method` nor an `id`".into()
            }),
        }
    }

    fn notification(&mut self, line: u64, method: &str, value: &Value) {
        if !notifications::ALL.contains(&method) {
            let method = method.to_owned();
            self.findings.add(Severity::Warning, line, Rule::EventType, || {
                format!("a notification `{method}` this version does not name here")
            });
        }
        let has = |pointer: &str| value.pointer(pointer).is_some();
        let needs: &[&str] = match method {
            notifications::TURN_STARTED => {
                self.open += 1;
                &["/params/turn/id"]
            }
            notifications::TURN_COMPLETED => {
                if self.open == 0 {
                    self.findings.add(Severity::Error, line, Rule::TurnOrder, || {
                        "`turn/completed` of no turn started".into()
                    });
                }
                self.open = self.open.saturating_sub(1);
                &["/params/turn/id", "/params/turn/status"]
            }
            notifications::ITEM_STARTED | notifications::ITEM_COMPLETED => {
                if self.open == 0 {
                    let method = method.to_owned();
                    self.findings.add(Severity::Error, line, Rule::TurnOrder, || {
                        format!("`{method}` outside a turn")
                    });
                }
                &["/params/item/type", "/params/item/id"]
            }
            notifications::ERROR => &["/params/error/message"],
            _ => &[],
        };
        let missing: Vec<&str> = needs.iter().copied().filter(|p| !has(p)).collect();
        if !missing.is_empty() {
            let (method, missing) = (method.to_owned(), missing.join(", "));
            self.findings.add(Severity::Error, line, Rule::Fields, || {
                format!("a `{method}` without {missing}")
            });
        }
    }

    /// The end of the recording.
    pub fn finish(mut self, exit: Option<Exit>) -> Report {
        let _ = exit;
        let mut waiting: Vec<_> = self.asked.drain().collect();
        waiting.sort_by_key(|(_, line)| *line);
        for ((server, id), line) in waiting {
            let who = if server { "the server's" } else { "the client's" };
            self.findings
                .add(Severity::Warning, line, Rule::AnsweredOnce, || {
                    format!("{who} request {id} still waits for its answer at the end")
                });
        }
        self.findings.report()
    }
}

/// A recording of `codex app-server`: both directions by these rules.
impl crate::check::Lint for AppServerChecker {
    fn recording_finding(&mut self, line: u64, rule: Rule, message: String) {
        self.findings.add(Severity::Warning, line, rule, || message);
    }

    fn line(&mut self, line: u64, stream: Stream, bytes: &[u8]) {
        match stream {
            Stream::Stdout => AppServerChecker::line(self, line, true, bytes),
            Stream::Stdin => AppServerChecker::line(self, line, false, bytes),
            Stream::Stderr => {}
        }
    }

    fn finish(self: Box<Self>, exit: Option<Exit>) -> Report {
        AppServerChecker::finish(*self, exit)
    }

    fn stop(self: Box<Self>) -> Report {
        AppServerChecker::finish(*self, None)
    }
}
