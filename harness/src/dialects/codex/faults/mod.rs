//! The catalogue's faults of Codex's dialect, applied to what `codex exec --json`
//! writes: the presets change the session before it is played ([`Injector::prepare`]),
//! the others act on the stdout lines ([`Injector::line`]) and at the end
//! ([`Injector::end`]). [`written`] is the whole of it: a session played as the SDK
//! runs `codex exec`, with the faults, as what the process writes and how it ends. See
//! [`parse`] for the grammar.

use serde_json::{json, Value};

use super::exec::{self, Run, Thread};
use super::session::{End, Failure, Item, Session};
use super::wire::{events, items, undocumented};
pub mod app_server_lines;
mod catalogue;
mod typed;

use crate::faults::lines;
pub use crate::faults::lines::Out;
use crate::frames::Exit;
pub use catalogue::{APP_SERVER_CATALOGUE, CATALOGUE};
pub use typed::*;

/// Faults that fail a turn of `codex exec` and of `codex app-server` alike: the
/// presets of a failed turn, a cut stream, a signal.
#[cfg(test)]
pub(crate) const TURN_FAILURES: &[&str] = &[
    "unauthorized",
    "rate-limited",
    "unknown-model",
    "turn-failed",
    "stream-cut",
    "eof",
    "signal",
];

/// Which of the CLI's protocols the faults act on: what the lines they write look
/// like.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Shape {
    /// `codex exec --json`: events told apart by `type`.
    #[default]
    Exec,
    /// `codex app-server`: JSON-RPC messages told apart by `method`.
    AppServer,
}

/// What Codex writes on stdout, as its faults read it and write into it.
#[derive(Debug, Clone, Default)]
pub struct Lines {
    shape: Shape,
    /// The thread's and the turn's ids the app-server lines last named (the lines the
    /// faults add name them too, so that a client routes them to the turn).
    ids: Option<(Value, Value)>,
}

impl lines::Stream for Lines {
    type Fault = CodexFault;

    /// A line's own `type` (app-server's: its `method`), and its item's.
    fn words(&self, line: &[u8]) -> Vec<String> {
        kinds_of(line)
    }

    fn see(&mut self, line: &[u8]) {
        if self.shape == Shape::AppServer {
            self.ids = ids_of(line).or(self.ids.take());
        }
    }

    fn malformed(&self) -> Vec<u8> {
        match self.shape {
            Shape::Exec => malformed_line(),
            Shape::AppServer => app_server_lines::malformed(),
        }
    }

    fn unknown(&self, kind: &Unknown) -> Vec<u8> {
        match self.shape {
            Shape::Exec => unknown_line(*kind),
            Shape::AppServer => app_server_lines::unknown(*kind, self.ids.as_ref()),
        }
    }

    fn huge(&self, bytes: usize) -> Vec<u8> {
        match self.shape {
            Shape::Exec => huge_line(bytes),
            Shape::AppServer => app_server_lines::huge(bytes),
        }
    }

    fn final_line(&self) -> Vec<u8> {
        match self.shape {
            Shape::Exec => json!({"type": events::TURN_COMPLETED}).to_string().into_bytes(),
            Shape::AppServer => app_server_lines::turn_completed(),
        }
    }
}

/// Applies faults to one run.
pub type Injector = lines::Injector<Lines>;

impl Injector {
    /// An injector of `faults`, on what `codex app-server` writes.
    pub fn app_server(faults: Vec<CodexFault>) -> Self {
        Injector::on(
            Lines {
                shape: Shape::AppServer,
                ids: None,
            },
            faults,
        )
    }

    /// Whether `approval` is among the faults: every command and patch asks, whatever
    /// the policy (it acts when the session is prepared).
    pub fn asks_always(&mut self) -> bool {
        let mut asks = false;
        for (fault, acted) in self.faults_mut() {
            if matches!(fault, CodexFault::Approval) {
                *acted = true;
                asks = true;
            }
        }
        asks
    }

    /// Whether a preset is among the faults (a recording is then played from its
    /// session, not replayed line by line).
    pub fn has_preset(&self) -> bool {
        self.faults().iter().any(|(f, _)| {
            matches!(
                f,
                CodexFault::Ending(_) | CodexFault::Approval | CodexFault::ReconnectThenOk
            )
        })
    }

    /// The presets: every turn of `session` ends as they say. A failed login, a rate
    /// limit and an unknown model fail the turn's first API call, so no item comes
    /// before the failure; a failed call and a cut stream fail the turn's last call,
    /// the one that would have said the final message.
    pub fn prepare(&mut self, session: &mut Session) {
        for (fault, acted) in self.faults_mut() {
            if let CodexFault::ReconnectThenOk = fault {
                *acted = true;
                for turn in &mut session.turns {
                    turn.items.insert(
                        0,
                        Item::Reconnect {
                            reason: super::wire::messages::RATE_LIMITED.to_owned(),
                            http_status: Some(429),
                        },
                    );
                }
                continue;
            }
            let CodexFault::Ending(ending) = fault else {
                continue;
            };
            *acted = true;
            for turn in &mut session.turns {
                let last = turn
                    .items
                    .iter()
                    .rposition(|i| matches!(i, Item::AgentMessage(_)));
                let failure = match ending {
                    Ending::Unauthorized => Failure::Unauthorized,
                    Ending::RateLimited => Failure::RateLimited,
                    Ending::UnknownModel => Failure::UnknownModel,
                    // The default: the context window is full, as the real CLI tells it
                    // (app-server's `codexErrorInfo: contextWindowExceeded`).
                    Ending::TurnFailed(message) if message == super::wire::messages::CONTEXT_WINDOW => {
                        Failure::ContextWindow
                    }
                    Ending::TurnFailed(message) => Failure::Other {
                        message: message.clone(),
                    },
                    Ending::StreamCut => Failure::StreamCut {
                        partial: match last.map(|n| &turn.items[n]) {
                            Some(Item::AgentMessage(text)) => half(text),
                            _ => String::from("Working on it"),
                        },
                    },
                };
                match ending {
                    Ending::TurnFailed(_) | Ending::StreamCut => {
                        turn.items.truncate(last.unwrap_or(turn.items.len()));
                    }
                    _ => turn.items.clear(),
                }
                turn.end = End::Failed(failure);
            }
        }
    }
}

/// The first half of `text` (by characters; at least one).
fn half(text: &str) -> String {
    let count = text.chars().count();
    text.chars().take(count.div_ceil(2).max(1)).collect()
}

/// The types a line answers to in `at=TYPE`: its own `type` (app-server's: its
/// `method`), and its item's.
fn kinds_of(line: &[u8]) -> Vec<String> {
    let Ok(value) = serde_json::from_slice::<Value>(line) else {
        return Vec::new();
    };
    [
        value.get("type"),
        value.pointer("/item/type"),
        value.get("method"),
        value.pointer("/params/item/type"),
    ]
    .into_iter()
    .flatten()
    .filter_map(Value::as_str)
    .map(str::to_owned)
    .collect()
}

/// The `threadId` and `turnId` an app-server line names, when it names both.
fn ids_of(line: &[u8]) -> Option<(Value, Value)> {
    let value = serde_json::from_slice::<Value>(line).ok()?;
    let params = value.get("params")?;
    Some((params.get("threadId")?.clone(), params.get("turnId")?.clone()))
}

/// A line that starts as an item and is not JSON.
pub fn malformed_line() -> Vec<u8> {
    let start = json!({"type": events::ITEM_COMPLETED}).to_string();
    let mut line = start.trim_end_matches('}').as_bytes().to_vec();
    line.extend_from_slice(b",\"item\":{\"id\":\"item_");
    line
}

/// A line of a type no SDK knows: an event, or a completed item.
pub fn unknown_line(kind: Unknown) -> Vec<u8> {
    let value = match kind {
        Unknown::Event => json!({"type": undocumented::EVENT, "note": "not documented"}),
        Unknown::Item => json!({"type": events::ITEM_COMPLETED, "item": {
            "id": undocumented::ITEM_ID, "type": undocumented::ITEM, "text": "not documented"}}),
    };
    value.to_string().into_bytes()
}

/// A completed reasoning item `bytes` long (as close as JSON allows: at least the
/// item without text).
pub fn huge_line(bytes: usize) -> Vec<u8> {
    let empty = json!({"type": events::ITEM_COMPLETED, "item": {
        "id": undocumented::ITEM_ID, "type": items::REASONING, "text": ""}})
    .to_string();
    let text = "x".repeat(bytes.saturating_sub(empty.len()));
    json!({"type": events::ITEM_COMPLETED, "item": {
        "id": undocumented::ITEM_ID, "type": items::REASONING, "text": text}})
    .to_string()
    .into_bytes()
}

/// The command line the TypeScript SDK gives `codex` with no option set:
/// `exec --experimental-json`.
pub fn sdk_argv() -> Vec<String> {
    ["exec", "--experimental-json"].map(str::to_owned).to_vec()
}

/// [`sdk_argv`], read.
pub fn sdk_args() -> super::args::ExecArgs {
    match super::args::parse(&sdk_argv()) {
        Ok(super::args::Command::Exec(args)) => *args,
        // The words above are `codex exec`'s; they always read as it.
        _ => super::args::ExecArgs {
            json: true,
            ..super::args::ExecArgs::default()
        },
    }
}

/// The lines `codex exec --json` writes for the first turn of `session` on
/// `thread`, and its exit code.
pub fn exec_lines(session: &Session, thread: Thread) -> (Vec<Vec<u8>>, Exit) {
    let args = sdk_args();
    let outcome = exec::play(&Run {
        session,
        args: &args,
        thread,
        prompt: "hi",
        cwd: "/work",
        schema: None,
    });
    let lines = outcome.stdout.into_iter().map(String::into_bytes).collect();
    (lines, Exit::Code(outcome.exit_code))
}

/// The time (Unix milliseconds) the threads of played runs are made at: their ids'
/// first bits, the same on every run.
pub const THREAD_MS: u64 = 0x019e_c5a0_0000;

/// Everything the process writes for `lines` (what it meant to write, ending with
/// `exit`) with `faults` acting on them: the lines, what the faults made of them, and
/// how it ends (always last).
pub fn with_faults(lines: Vec<Vec<u8>>, exit: Exit, injector: &mut Injector) -> Vec<Out> {
    injector.play(lines.into_iter().map(Out::Line), exit)
}

/// What the process writes for the first turn of `session` with `faults`: the
/// presets applied to the session, the session played as `codex exec --json` (a
/// thread made from `seed`), the other faults on its lines.
pub fn written(session: &Session, faults: &[CodexFault], seed: u64) -> Vec<Out> {
    let mut session = session.clone();
    let mut injector = Injector::new(faults.to_vec());
    injector.prepare(&mut session);
    let (lines, exit) = exec_lines(&session, Thread::new(seed, THREAD_MS));
    with_faults(lines, exit, &mut injector)
}

#[cfg(test)]
mod tests;
