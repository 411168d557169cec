//! Server mode's applier of the fault catalogue: the [`Injector`] plays a
//! conversation with its faults (parsed from the one catalogue, see
//! its `parse`) as it goes, for the mock that performs them and for the
//! harness that works out what a correct client concludes.
//!
//! The typed faults, their parser and their catalogue are [`crate::faults`]'s; they
//! are named here too, as they always were.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use super::rpc::{self, Kind, Message};
use super::wire::{self, stop_reasons, updates};
use super::{methods, Step, Steps};
mod catalogue;
mod typed;

#[cfg(feature = "generate")]
use crate::faults::strategy::{self, Drawn};
use crate::faults::Described;
use crate::frames::{Chunking, Exit};
pub use catalogue::CATALOGUE;
pub use typed::*;

/// Server mode's entries of the fault catalogue.
pub fn catalogue() -> Vec<&'static Described> {
    CATALOGUE.iter().collect()
}

/// What a message is, for placing faults: its `sessionUpdate` kind, or its method.
pub fn kind_of(message: &Message<'_>) -> Option<String> {
    if message.method() == super::methods::SESSION_UPDATE {
        return message.params_value()["update"]["sessionUpdate"]
            .as_str()
            .map(str::to_owned);
    }
    message.method.as_deref().map(str::to_owned)
}

/// What the agent writes because of the faults, besides its messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Out {
    /// A line on stdout; `newline: false` for one cut short.
    Line {
        /// The bytes.
        bytes: Vec<u8>,
        /// Whether a newline follows.
        newline: bool,
    },
    /// A line on stderr.
    Stderr(Vec<u8>),
}

/// Whether `step` sends the response to the request `id` (JSON text).
fn responds(step: &Step, id: &str) -> bool {
    match step {
        Step::Send { line, .. } => responds_with(line, id).is_some(),
        _ => false,
    }
}

/// `line` read, when it is the response to the request `id` (JSON text).
fn responds_with<'a>(line: &'a [u8], id: &str) -> Option<Message<'a>> {
    if rpc::surely_not_response(line) {
        return None;
    }
    Message::parse(line).filter(|m| m.kind == Kind::Response && m.id_text() == id)
}

/// What comes of one agent message: what to write, and whether the process ends
/// after it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Sent {
    /// What to write, in order.
    pub out: Vec<Out>,
    /// The process ends after writing it.
    pub end: Option<Exit>,
}

/// The faults of a server run, applied as the conversation goes: the same decisions
/// for the mock that performs them and for the harness that works out what a
/// correct client concludes.
#[derive(Debug, Clone)]
pub struct Injector {
    faults: Vec<AcpFault>,
    fired: Vec<bool>,
    /// Agent lines written so far.
    sent: u64,
    /// Agent bytes written so far.
    written: u64,
    /// An update held back by `reorder`.
    held: Option<Vec<u8>>,
    /// Of a fault that acts on steps as they are played (`stop-reason`), whether it
    /// has acted: set by the steps (shared with a clone).
    acted: Vec<Option<Arc<AtomicBool>>>,
    /// With `unoffered-tools`, what the client's `initialize` really offered: the
    /// fault acts when the agent sends a request it did not.
    offered: Option<wire::Capabilities>,
}

impl Injector {
    /// An injector of these faults, none fired.
    pub fn new(faults: Vec<AcpFault>) -> Self {
        Injector {
            fired: vec![false; faults.len()],
            acted: vec![None; faults.len()],
            offered: None,
            faults,
            sent: 0,
            written: 0,
            held: None,
        }
    }

    /// The faults and whether each acted.
    pub fn report(&self) -> Vec<(&'static str, bool)> {
        self.faults
            .iter()
            .zip(self.fired.iter().zip(&self.acted))
            .map(|(f, (fired, acted))| {
                let acted = acted.as_ref().is_some_and(|a| a.load(Ordering::Relaxed));
                (f.name(), *fired || acted)
            })
            .collect()
    }

    /// How stdout is written: chunked, coalesced.
    pub fn chunking(&self) -> Option<Chunking> {
        self.faults.iter().find_map(|f| match f {
            AcpFault::Chunk(chunking) => Some(*chunking),
            _ => None,
        })
    }

    /// Whether messages are coalesced.
    pub fn coalesce(&self) -> bool {
        self.faults.iter().any(|f| matches!(f, AcpFault::Coalesce))
    }

    /// What is written when the agent starts (`stderr-flood`).
    pub fn start(&mut self) -> Vec<Out> {
        let mut out = Vec::new();
        for index in 0..self.faults.len() {
            if let AcpFault::StderrFlood { bytes } = self.faults[index] {
                self.fired[index] = true;
                let line = "mock-agent stderr flood: the agent writes more than a pipe holds ".repeat(16);
                let mut left = bytes;
                while left > 0 {
                    let take = left.min(line.len() + 1);
                    out.push(Out::Stderr(line.as_bytes()[..take - 1].to_vec()));
                    left -= take;
                }
            }
        }
        out
    }

    /// The faults on the answer to the client's request `method` (id `id`, JSON
    /// text): the steps to play, or what to write before the process ends there.
    /// The faults act on each step as it is played, so that steps read from a
    /// cassette are still read one at a time; but `early-update` holds the answer to
    /// `session/new` (a few messages) to reorder it.
    pub fn on_request(&mut self, method: &str, id: &str, mut steps: Steps) -> Result<Steps, Sent> {
        if let Some(sent) = self.crash(|place| matches!(place, Place::Method(m) if m == method)) {
            return Err(sent);
        }
        let answers_it = |step: &Step| responds(step, id);
        for index in 0..self.faults.len() {
            match &self.faults[index] {
                AcpFault::Error {
                    method: m,
                    code,
                    message,
                    data,
                } if m == method => {
                    let error = rpc::error(id, *code, message, data.as_ref());
                    steps = Steps::from(vec![Step::Send {
                        at: Duration::ZERO,
                        line: error,
                    }]);
                    self.fired[index] = true;
                }
                AcpFault::NoResponse { method: m } if m == method => {
                    let id = id.to_owned();
                    steps =
                        Steps::new(steps.filter(move |step| !step.as_ref().is_ok_and(|s| responds(s, &id))));
                    self.fired[index] = true;
                }
                AcpFault::StopReason { reason } if method == methods::SESSION_PROMPT => {
                    let acted = Arc::clone(self.acted[index].get_or_insert_with(Arc::default));
                    let (id, reason) = (id.to_owned(), reason.clone());
                    let end_turn = format!("\"{}\"", stop_reasons::END_TURN);
                    steps = Steps::new(steps.map(move |step| {
                        let mut step = step?;
                        if let Step::Send { line, .. } = &mut step {
                            let ends_turn = responds_with(line, &id)
                                .is_some_and(|m| m.result.is_some_and(|r| r.get().contains(&end_turn)));
                            if ends_turn {
                                *line = rpc::response(&id, &wire::stop(&reason));
                                acted.store(true, Ordering::Relaxed);
                            }
                        }
                        Ok(step)
                    }));
                }
                AcpFault::EarlyUpdate if method == methods::SESSION_NEW => {
                    // The answer to `session/new` is a few messages: held to reorder.
                    let mut held: Vec<_> = steps.collect();
                    let response = held.iter().position(|s| s.as_ref().is_ok_and(answers_it));
                    let update = held.iter().position(|s| match s {
                        Ok(Step::Send { line, .. }) => {
                            Message::parse(line).is_some_and(|m| m.method() == methods::SESSION_UPDATE)
                        }
                        _ => false,
                    });
                    if let (Some(response), Some(update)) = (response, update) {
                        if update > response {
                            let moved = held.remove(update);
                            held.insert(response, moved);
                            self.fired[index] = true;
                        }
                    }
                    steps = Steps::new(held.into_iter());
                }
                _ => {}
            }
        }
        Ok(steps)
    }

    /// The client's request `message` as the conversation is to take it: with
    /// `unoffered-tools`, an `initialize` that offers every tool the client can run for
    /// the agent (the line to take instead), whatever it offered; `None` to take it as
    /// it is. The journal still has what the client sent. The fault acts when the agent
    /// sends a request the client did not offer ([`message`](Injector::message)).
    pub fn client_request(&mut self, message: &Message<'_>) -> Option<Vec<u8>> {
        if message.method() != methods::INITIALIZE {
            return None;
        }
        self.faults
            .iter()
            .position(|f| matches!(f, AcpFault::UnofferedTools))?;
        let params = message.params_value();
        let offered = wire::Capabilities::of_initialize(&params);
        if offered == wire::Capabilities::ALL {
            return None;
        }
        self.offered = Some(offered);
        let params = wire::Capabilities::ALL.offered_in(&params);
        Some(rpc::request_with_id(message.id_text(), message.method(), &params))
    }

    /// How much later the answer to `method` comes (`late`).
    pub fn late(&mut self, method: &str) -> Option<Duration> {
        let index = self
            .faults
            .iter()
            .position(|f| matches!(f, AcpFault::Late { method: m, .. } if m == method))?;
        self.fired[index] = true;
        match self.faults[index] {
            AcpFault::Late { delay, .. } => Some(delay),
            _ => None,
        }
    }

    /// A crash while the agent waits for the client's answer to its request.
    pub fn asking(&mut self) -> Option<Sent> {
        self.crash(|place| *place == Place::Asking)
    }

    fn crash(&mut self, here: impl Fn(&Place) -> bool) -> Option<Sent> {
        let index = self
            .faults
            .iter()
            .position(|f| matches!(f, AcpFault::Crash { at, .. } if here(at)))?;
        self.fired[index] = true;
        let AcpFault::Crash { exit, text, .. } = &self.faults[index] else {
            return None;
        };
        Some(Sent {
            out: text.iter().map(|t| Out::Stderr(t.clone().into_bytes())).collect(),
            end: Some(*exit),
        })
    }

    /// One agent message, with the faults placed on it.
    pub fn message(&mut self, line: Vec<u8>) -> Sent {
        if self.faults.is_empty() {
            // The common case, a long turn without faults: nothing to look at.
            self.sent += 1;
            return Sent {
                out: vec![Out::Line {
                    bytes: line,
                    newline: true,
                }],
                end: None,
            };
        }
        // The executor splits and joins the writes (`chunk`, `coalesce`): they act
        // once there is something to split, or a second message to join.
        self.written += line.len() as u64 + 1;
        for (fault, fired) in self.faults.iter().zip(self.fired.iter_mut()) {
            *fired |= match fault {
                AcpFault::Chunk(Chunking::Size(size)) => self.written > *size as u64,
                AcpFault::Chunk(Chunking::Random) => self.written > 1,
                AcpFault::Coalesce => self.sent >= 1,
                _ => false,
            };
        }
        let message = Message::parse(&line);
        if let (Some(offered), Some(request)) = (self.offered, &message) {
            if request.kind == Kind::Request && !offered.allow(request.method()) {
                let unoffered = self
                    .faults
                    .iter()
                    .position(|f| matches!(f, AcpFault::UnofferedTools));
                if let Some(index) = unoffered {
                    self.fired[index] = true;
                }
            }
        }
        let kind = message.as_ref().and_then(kind_of);
        let update = message
            .as_ref()
            .is_some_and(|m| m.method() == methods::SESSION_UPDATE);
        let session = message
            .as_ref()
            .and_then(|m| m.params_value()["sessionId"].as_str().map(str::to_owned))
            .unwrap_or_default();
        let n = self.sent;
        let mut sent = Sent::default();
        let mut stderr = Vec::new();
        let mut before = Vec::new();
        let mut copies = 1;
        let mut cut = None;
        let mut line = line.clone();
        for index in 0..self.faults.len() {
            let fault = &self.faults[index];
            let Some(place) = fault.place() else {
                match fault {
                    AcpFault::Drop { kind: dropped }
                        if update && kind.as_deref() == Some(dropped.as_str()) =>
                    {
                        self.fired[index] = true;
                        copies = 0;
                    }
                    AcpFault::UnknownField if update => {
                        self.fired[index] = true;
                        line = with_unknown_field(&line);
                    }
                    _ => {}
                }
                continue;
            };
            let here = match place {
                Place::After(k) => n == *k,
                Place::At(at) => !self.fired[index] && kind.as_deref() == Some(at.as_str()),
                Place::Method(_) | Place::Asking => false,
            };
            if !here {
                continue;
            }
            self.fired[index] = true;
            match fault {
                AcpFault::Crash { exit, text, .. } => {
                    stderr.extend(text.clone().map(String::into_bytes));
                    sent.end = Some(*exit);
                }
                AcpFault::Eof { byte, .. } => {
                    cut = Some(byte.unwrap_or(line.len() / 2).min(line.len()));
                    sent.end = Some(Exit::Code(1));
                }
                AcpFault::Malformed { .. } => before.push(b"{\"jsonrpc\":\"2.0\",\"method\":".to_vec()),
                AcpFault::Stderr { text, .. } => stderr.push(text.clone().into_bytes()),
                AcpFault::Duplicate { .. } => copies = 2,
                AcpFault::UnknownUpdate { .. } => before.push(super::tell::update_line(
                    &session,
                    &wire::text_chunk(wire::undocumented::UPDATE, "an update no client knows"),
                )),
                AcpFault::Huge { bytes, .. } => before.push(super::tell::update_line(
                    &session,
                    &wire::text_chunk(updates::AGENT_MESSAGE_CHUNK, &"x".repeat(*bytes)),
                )),
                _ => {}
            }
        }
        sent.out.extend(stderr.into_iter().map(Out::Stderr));
        let mut lines: Vec<(Vec<u8>, bool)> = before.into_iter().map(|b| (b, true)).collect();
        if sent.end.is_some() {
            if let Some(bytes) = cut {
                line.truncate(bytes);
                lines.push((line, false));
            }
        } else {
            let reorder = update && self.faults.iter().any(|f| matches!(f, AcpFault::Reorder));
            for _ in 0..copies {
                match (reorder, self.held.take()) {
                    (true, None) => self.held = Some(line.clone()),
                    (true, Some(held)) => {
                        for (fault, fired) in self.faults.iter().zip(self.fired.iter_mut()) {
                            *fired |= matches!(fault, AcpFault::Reorder);
                        }
                        lines.push((line.clone(), true));
                        lines.push((held, true));
                    }
                    (false, held) => {
                        lines.extend(held.map(|h| (h, true)));
                        lines.push((line.clone(), true));
                    }
                }
            }
        }
        self.sent += lines.len() as u64;
        sent.out.extend(
            lines
                .into_iter()
                .map(|(bytes, newline)| Out::Line { bytes, newline }),
        );
        sent
    }
}

/// An update line with a field no client knows, added to its `update` object.
fn with_unknown_field(line: &[u8]) -> Vec<u8> {
    const MARKER: &[u8] = b"\"update\":{";
    match line.windows(MARKER.len()).position(|w| w == MARKER) {
        Some(at) => {
            let split = at + MARKER.len();
            [
                &line[..split],
                b"\"mockAgentUnknownField\":{\"added\":true},".as_slice(),
                &line[split..],
            ]
            .concat()
        }
        None => line.to_vec(),
    }
}

/// The update kinds of a turn that the faults [`strategy`] draws are placed at, or drop.
#[cfg(feature = "generate")]
const UPDATES: &[&str] = &[
    updates::AGENT_MESSAGE_CHUNK,
    updates::AGENT_THOUGHT_CHUNK,
    updates::TOOL_CALL,
    updates::TOOL_CALL_UPDATE,
    updates::PLAN,
];

/// Server mode's faults as proptest draws them, typed, in the placements that matter:
/// every fault and preset but those that make a correct client wait for its own time
/// limit (`no-response`, `authenticate-hangs`, a long `late`).
#[cfg(feature = "generate")]
pub fn strategy() -> impl proptest::strategy::Strategy<Value = Drawn<AcpFault>> {
    use proptest::prelude::*;
    let at = prop_oneof![
        (0u64..40).prop_map(Place::After),
        prop::sample::select(
            [
                UPDATES,
                &[
                    updates::CURRENT_MODE_UPDATE,
                    updates::AVAILABLE_COMMANDS_UPDATE,
                    methods::REQUEST_PERMISSION
                ]
            ]
            .concat()
        )
        .prop_map(|kind| Place::At(kind.to_owned())),
    ];
    let method = prop::sample::select(vec![
        methods::INITIALIZE,
        methods::AUTHENTICATE,
        methods::SESSION_NEW,
        methods::SESSION_LOAD,
        methods::SESSION_SET_MODE,
        methods::SESSION_PROMPT,
    ])
    .prop_map(str::to_owned);
    let on = |name, keys, fault: fn(Place) -> AcpFault| strategy::placed(at.clone(), name, keys, fault);
    let crash = (
        prop_oneof![
            at.clone(),
            method.clone().prop_map(Place::Method),
            Just(Place::Asking),
        ],
        prop::sample::select(vec![
            ("", Exit::Code(1), None),
            (",signal=KILL", Exit::Signal(crate::frames::Signal::Kill), None),
            (",code=2", Exit::Code(2), None),
            (
                ",text=\"Error: the agent stopped\"",
                Exit::Code(1),
                Some("Error: the agent stopped"),
            ),
        ]),
    );
    prop_oneof![
        strategy::cut(at.clone()).prop_map(|(at, byte)| {
            let spec = match byte {
                Some(k) => format!("eof:{at},byte={k}"),
                None => format!("eof:{at}"),
            };
            Drawn::one(spec, AcpFault::Eof { at, byte })
        }),
        crash.prop_map(|(at, (how, exit, text))| Drawn::one(
            format!("crash:{at}{how}"),
            AcpFault::Crash {
                at,
                exit,
                text: text.map(str::to_owned)
            }
        )),
        on("malformed", "", |at| AcpFault::Malformed { at }),
        on("stderr", "text=oops", |at| AcpFault::Stderr {
            text: "oops".to_owned(),
            at
        }),
        on("duplicate", "", |at| AcpFault::Duplicate { at }),
        on("unknown-update", "", |at| AcpFault::UnknownUpdate { at }),
        on("huge", "bytes=70000", |at| AcpFault::Huge { bytes: 70_000, at }),
        (
            method.clone(),
            prop::sample::select(vec![
                rpc::codes::INTERNAL_ERROR,
                rpc::codes::AUTH_REQUIRED,
                rpc::codes::INVALID_PARAMS
            ]),
        )
            .prop_map(|(method, code)| Drawn::one(
                format!("error:method={method},code={code}"),
                AcpFault::Error {
                    method,
                    code,
                    message: crate::acp::faults::ERROR_MESSAGE.to_owned(),
                    data: None
                }
            )),
        (method, 1u64..200).prop_map(|(method, ms)| Drawn::one(
            format!("late:method={method},ms={ms}"),
            AcpFault::Late {
                method,
                delay: Duration::from_millis(ms)
            }
        )),
        prop::sample::select(STOP_REASONS.to_vec()).prop_map(|reason| Drawn::one(
            format!("stop-reason:reason={reason}"),
            AcpFault::StopReason {
                reason: reason.to_owned()
            }
        )),
        prop::sample::select([UPDATES, &[updates::AVAILABLE_COMMANDS_UPDATE]].concat()).prop_map(|kind| {
            Drawn::one(
                format!("drop:kind={kind}"),
                AcpFault::Drop {
                    kind: kind.to_owned(),
                },
            )
        }),
        prop::sample::select(unplaced()),
    ]
}

/// Server mode's faults drawn as they are, not placed.
#[cfg(feature = "generate")]
fn unplaced() -> Vec<Drawn<AcpFault>> {
    let preset = |name: &str| Drawn::many(name, crate::acp::faults::preset(name).unwrap_or_default());
    vec![
        Drawn::one("reorder", AcpFault::Reorder),
        Drawn::one("unknown-field", AcpFault::UnknownField),
        Drawn::one("early-update", AcpFault::EarlyUpdate),
        Drawn::one("chunk:size=7", AcpFault::Chunk(Chunking::Size(7))),
        Drawn::one("chunk:random", AcpFault::Chunk(Chunking::Random)),
        Drawn::one("coalesce", AcpFault::Coalesce),
        Drawn::one("unoffered-tools", AcpFault::UnofferedTools),
        Drawn::one(
            "stderr-flood:bytes=100000",
            AcpFault::StderrFlood { bytes: 100_000 },
        ),
        preset("auth-required"),
        preset("session-services-failed"),
        preset("crash-on-initialize"),
        preset("crash-while-asking"),
        preset(stop_reasons::REFUSAL),
        preset("max-tokens"),
    ]
}

#[cfg(all(test, feature = "generate"))]
mod tests {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        #[test]
        fn a_drawn_fault_is_what_its_text_parses_to(drawn in strategy()) {
            let parsed = parse(&drawn.spec, FROM_ENV).map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert_eq!(parsed, drawn.faults);
        }
    }

    #[test]
    fn every_unplaced_fault_is_what_its_text_parses_to() {
        for drawn in unplaced() {
            assert_eq!(
                parse(&drawn.spec, FROM_ENV).expect("parses"),
                drawn.faults,
                "{}",
                drawn.spec
            );
        }
    }
}
