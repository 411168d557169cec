//! Generated conversations of server mode: proptest strategies for ACP conversations
//! nobody recorded.
//!
//! A conversation is not random message soup: it is built from a *plan* by the
//! protocol's state machine, so every generated conversation is one a real client
//! and the real agent could have had:
//!
//! 1. the handshake: `initialize`, then maybe `authenticate`;
//! 2. sessions: the first one `session/new` (answered, then
//!    `available_commands_update`), later ones new or `session/load`ed (their history
//!    replayed as `user_message_chunk`s and `agent_message_chunk`s before the answer);
//!    maybe a `session/set_mode` from the client;
//! 3. turns: `session/prompt`, then `agent_thought_chunk`s, `agent_message_chunk`s,
//!    `plan`s and tool calls of every ACP kind (`read`, `edit`, `delete`, `move`,
//!    `search`, `execute`, `think`, `fetch`, `switch_mode`, `other`): each a
//!    `tool_call` (`pending`), maybe a `session/request_permission` the agent waits
//!    on (the client allows once, always, or rejects), then its `tool_call_update`
//!    (`completed`, or `failed`), parallel ones completing out of order; a
//!    `switch_mode` tool is followed by `current_mode_update`;
//! 4. the end of each turn: `stopReason: end_turn`, or a failed end (a JSON-RPC
//!    error, `refusal`, `max_tokens`, `max_turn_requests`), or the client's
//!    `session/cancel` (while the agent streams, or while its permission request
//!    waits: then the client answers it `cancelled`) and `stopReason: cancelled`.
//!
//! The client cancels only turns after the first: a client that sends one prompt, as
//! most do (and as [`super::expect`]'s canonical client does), never meets a cancel
//! the recording has and it does not send (the mock would wait
//! [`super::CANCEL_WAIT`] for it).
//!
//! A generated conversation is a [`Transcript`]: the client's messages (`in`) and the
//! agent's (`out`) in order, in the shapes the real agent sends. Written as a cassette
//! ([`Transcript::write_cassette`], format 2, `Header::acp`), `mock-agent acp`
//! replays it with `MOCK_AGENT_CASSETTE`; [`from_seed`] makes the conversation of a
//! seed, the same on every run and machine (for one version of mock-agent), as
//! `mock-agent generate --acp --seed N` and `MOCK_AGENT_GENERATE=N cursor-agent acp`
//! do. Proptest shrinks the plan, not bytes: a failing conversation shrinks to fewer
//! sessions, turns, steps and tools, and texts of fewer words (words, ids and paths
//! stay as drawn: when each shrink step is a run of the client under test, that keeps
//! shrinking short).
//!
//! ```
//! use harness::acp::generate::{conversation, ConversationConfig};
//! use proptest::prelude::*;
//!
//! proptest! {
//!     #![proptest_config(ProptestConfig::with_cases(16))]
//!     // In a test suite, with `#[test]` on it.
//!     fn every_turn_is_answered(transcript in conversation(ConversationConfig::default())) {
//!         let prompts = transcript.summary().lines().filter(|l| l.starts_with("-> session/prompt")).count();
//!         prop_assert!(prompts >= 1);
//!     }
//! }
//! # every_turn_is_answered();
//! ```
//!
//! [`faulted`] overlays server-mode faults (see [`super::faults`]) and labels each
//! [`FaultedTranscript`] with what a correct client concludes ([`super::expect`]).

use std::path::{Path, PathBuf};
use std::time::Duration;

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use serde_json::{json, Value};

use super::faults::AcpFault;
use super::rpc::{self, codes};
use super::script::Script;
use super::{expect, methods, tell};
use crate::cassette::{Header, Invocation, Recording, Writer};
use crate::error::{CassetteError, WriteError};
use crate::expect::Expectation;
use crate::frames::{Ending, Exit, Frame, Line, Stream};

/// The knobs of [`conversation`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ConversationConfig {
    /// At most this many sessions (the first new, later ones new or loaded).
    pub max_sessions: usize,
    /// At most this many turns (prompts) a session.
    pub max_turns: usize,
    /// At most this many steps a turn: a thought, a message chunk, a plan, a batch
    /// of tool calls.
    pub max_steps: usize,
    /// At most this many tool calls in parallel.
    pub max_parallel_tools: usize,
    /// At most this many characters of text a chunk.
    pub max_text: usize,
    /// How often a turn fails (a JSON-RPC error, `refusal`, `max_tokens`,
    /// `max_turn_requests`), in percent.
    pub failure_percent: u32,
    /// How often the client cancels a turn after the first, in percent.
    pub cancel_percent: u32,
    /// At most this many messages, both directions (at least [`MIN_MESSAGES`]: the
    /// handshake, a session and one turn); `None`: no limit.
    pub max_messages: Option<usize>,
}

/// The fewest messages a conversation has: `initialize` and its answer,
/// `session/new`, its answer and `available_commands_update`, a prompt and its
/// answer.
pub const MIN_MESSAGES: usize = 7;

impl Default for ConversationConfig {
    fn default() -> Self {
        ConversationConfig {
            max_sessions: 2,
            max_turns: 2,
            max_steps: 5,
            max_parallel_tools: 3,
            max_text: 80,
            failure_percent: 20,
            cancel_percent: 15,
            max_messages: None,
        }
    }
}

impl ConversationConfig {
    /// Large conversations: many sessions, turns and steps, long text.
    #[must_use]
    pub fn large() -> Self {
        ConversationConfig {
            max_sessions: 3,
            max_turns: 4,
            max_steps: 12,
            max_text: 1_000,
            ..ConversationConfig::default()
        }
    }

    /// With at most `messages` messages (at least [`MIN_MESSAGES`]).
    #[must_use]
    pub fn max_messages(mut self, messages: usize) -> Self {
        self.max_messages = Some(messages.max(MIN_MESSAGES));
        self
    }

    /// With this share of failed turns, in percent.
    #[must_use]
    pub fn failures(mut self, percent: u32) -> Self {
        self.failure_percent = percent.min(100);
        self
    }

    /// With this share of turns after the first cancelled by the client, in percent.
    #[must_use]
    pub fn cancels(mut self, percent: u32) -> Self {
        self.cancel_percent = percent.min(100);
        self
    }
}

/// Who sent a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// The client (an `in` frame of the cassette: what the agent read).
    In,
    /// The agent (an `out` frame: what it wrote).
    Out,
}

impl Direction {
    /// `in` or `out`, as cassettes, journals and [`super::summary`] name them.
    pub fn as_str(self) -> &'static str {
        match self {
            Direction::In => "in",
            Direction::Out => "out",
        }
    }
}

/// One message of a conversation: a JSON-RPC line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    /// Who sent it.
    pub dir: Direction,
    /// The line, without its newline.
    pub line: String,
}

/// A generated conversation: every message of the client's and the agent's, in order.
/// The agent exits 0 when the client closes its stdin at the end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transcript {
    /// The messages.
    pub messages: Vec<Message>,
}

/// How far apart messages are, in a transcript's frames.
const STEP: Duration = Duration::from_millis(10);

impl Transcript {
    /// The frames of the recording: `in` frames for the client's messages, `out` for
    /// the agent's, 10 ms apart, then the end (exit 0).
    pub fn frames(&self) -> Vec<Frame> {
        let mut frames: Vec<Frame> = self
            .messages
            .iter()
            .enumerate()
            .map(|(i, message)| {
                let stream = match message.dir {
                    Direction::In => Stream::Stdin,
                    Direction::Out => Stream::Stdout,
                };
                Frame::Line(Line {
                    at: STEP * i as u32,
                    stream,
                    bytes: message.line.as_bytes().to_vec(),
                    newline: true,
                })
            })
            .collect();
        frames.push(Frame::End(Ending {
            at: STEP * self.messages.len() as u32,
            exit: Exit::Code(0),
        }));
        frames
    }

    /// The header of its cassette: `cursor-agent acp`, format 2.
    pub fn header() -> Header {
        Header::acp(Invocation {
            argv: vec!["acp".to_owned()],
            ..Invocation::default()
        })
    }

    /// The conversation as a recording, as [`crate::source::Source`]s open.
    pub fn recording(&self) -> Recording {
        Recording {
            name: PathBuf::from("<generated conversation>"),
            header: Some(Self::header()),
            stream_partial_output: Some(false),
            frames: Box::new(self.frames().into_iter().map(Ok)),
        }
    }

    /// Writes the conversation as a cassette, atomically: `mock-agent acp` with
    /// `MOCK_AGENT_CASSETTE=PATH` replays it.
    pub fn write_cassette(&self, path: &Path) -> Result<PathBuf, WriteError> {
        let mut writer = Writer::create(path, &Self::header())?;
        for frame in self.frames() {
            writer.write(&frame)?;
        }
        writer.finish()
    }

    /// The conversation told readably, one message a line (see [`super::summary`]).
    pub fn summary(&self) -> String {
        super::summary(self.messages.iter().map(|m| (m.dir.as_str(), m.line.as_str())))
    }

    /// The conversation as the mock plays it: a recording replayed as a script.
    pub fn script(&self) -> Result<Script, CassetteError> {
        Script::new(self.frames().into_iter().map(Ok))
    }

    /// What a correct client concludes from the conversation with these faults, and
    /// the answer's chunks in order (see [`super::expect`]).
    pub fn expectation(&self, faults: Vec<AcpFault>) -> (Expectation, Vec<String>) {
        match self.script() {
            Ok(mut script) => expect::expectation(&mut script, faults),
            Err(_) => (Expectation::Failure, Vec::new()),
        }
    }
}

/// A conversation with faults overlaid, and what a correct client concludes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FaultedTranscript {
    /// The conversation.
    pub transcript: Transcript,
    /// The faults, each as given to `MOCK_AGENT_FAULTS`.
    pub faults: Vec<String>,
    /// What a correct client concludes.
    pub expect: Expectation,
}

impl FaultedTranscript {
    /// The faults as one `MOCK_AGENT_FAULTS` value (`;`-joined); empty for none.
    pub fn spec(&self) -> String {
        self.faults.join(";")
    }
}

/// The faults of a spec list, parsed; the ones that do not parse are left out.
fn parse_faults(specs: &[String]) -> Vec<AcpFault> {
    specs
        .iter()
        .filter_map(|spec| super::faults::parse(spec, super::faults::FROM_ENV).ok())
        .flatten()
        .collect()
}

/// The ACP tool kinds, in the order tool plans draw them.
pub const TOOL_KINDS: &[&str] = &[
    "read",
    "edit",
    "delete",
    "move",
    "search",
    "execute",
    "think",
    "fetch",
    "switch_mode",
    "other",
];

/// The session modes, as `session/new` lists them.
const MODES: &[&str] = &["agent", "plan", "ask"];

/// Clients, as `initialize`'s `clientInfo` names them.
const CLIENTS: &[(&str, &str)] = &[
    ("zed", "0.210.4"),
    ("jetbrains-acp", "1.2.0"),
    ("acpx", "0.4.1"),
    ("openab", "2.0.0"),
];

/// The errors a failed turn answers with: code, message, data.
const ERRORS: &[(i64, &str, Option<&str>)] = &[
    (
        codes::INTERNAL_ERROR,
        "Internal error",
        Some("model provider unavailable"),
    ),
    (
        codes::INTERNAL_ERROR,
        "Internal error",
        Some("Connection lost: stream closed"),
    ),
    (codes::AUTH_REQUIRED, "Authentication required", None),
    (
        codes::INTERNAL_ERROR,
        "You're out of usage. Increase limits for faster responses",
        None,
    ),
];

/// How the client answers a permission request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Answer {
    AllowOnce,
    AllowAlways,
    Reject,
}

impl Answer {
    fn option_id(self) -> &'static str {
        match self {
            Answer::AllowOnce => "allow-once",
            Answer::AllowAlways => "allow-always",
            Answer::Reject => "reject-once",
        }
    }
}

/// One tool call of a plan.
#[derive(Debug, Clone)]
struct ToolPlan {
    kind: usize,
    path: String,
    text: String,
    ok: bool,
    /// The permission request, and the client's answer.
    ask: Option<Answer>,
}

/// One step of a turn.
#[derive(Debug, Clone)]
enum StepPlan {
    Message(String),
    Thought(String),
    /// Tool calls in parallel, and a permutation seed for the order they complete in.
    Tools(Vec<ToolPlan>, Vec<u8>),
    /// A plan's entries: content, priority, status.
    Plan(Vec<(String, usize, usize)>),
}

/// How a turn ends, when the client does not cancel it.
#[derive(Debug, Clone)]
enum EndPlan {
    EndTurn,
    Error(usize),
    StopReason(&'static str),
}

#[derive(Debug, Clone)]
struct TurnPlan {
    prompt: String,
    steps: Vec<StepPlan>,
    end: EndPlan,
    /// After how many steps the client cancels (turns after the first only).
    cancel: Option<usize>,
}

#[derive(Debug, Clone)]
struct SessionPlan {
    id: String,
    /// Loaded rather than new (sessions after the first only), with this history.
    load: Option<Vec<(String, String)>>,
    /// The client sets this mode before its first prompt.
    set_mode: Option<usize>,
    turns: Vec<TurnPlan>,
}

#[derive(Debug, Clone)]
struct Plan {
    client: usize,
    fs: bool,
    authenticate: bool,
    sessions: Vec<SessionPlan>,
}

/// Text: mostly words, some Unicode, quotes, backslashes and newlines; at least one
/// word.
fn text(max: usize) -> BoxedStrategy<String> {
    prop::collection::vec(
        prop_oneof![
            6 => "[a-zA-Z]{1,8}",
            1 => "[0-9]{1,4}",
            1 => prop::sample::select(vec!["café", "日本語", "🦀", "—", "\"quoted\"", "back\\slash", "new\nline", "`code`"])
                .prop_map(str::to_owned),
            1 => any::<char>().prop_map(String::from),
        ]
        // A failing text shrinks to fewer words, not to other words: each shrink step
        // of a fuzz case is a run of the client.
        .no_shrink(),
        1..=max.div_ceil(5).max(1),
    )
    .prop_map(move |words| {
        let mut text = words.join(" ");
        if let Some((cut, _)) = text.char_indices().nth(max.max(1)) {
            text.truncate(cut);
        }
        text
    })
    .boxed()
}

/// `Some` of the strategy's value with probability `p` (0 and 1 included), shrinking
/// to `None`.
fn maybe<S>(p: f64, strategy: S) -> BoxedStrategy<Option<S::Value>>
where
    S: Strategy + 'static,
    S::Value: Clone + std::fmt::Debug,
{
    if p <= 0.0 {
        Just(None).boxed()
    } else if p >= 1.0 {
        strategy.prop_map(Some).boxed()
    } else {
        prop::option::weighted(p, strategy).boxed()
    }
}

fn answer() -> impl Strategy<Value = Answer> {
    prop_oneof![
        6 => Just(Answer::AllowOnce),
        1 => Just(Answer::AllowAlways),
        1 => Just(Answer::Reject),
    ]
}

/// How often the agent asks permission for a tool of this kind, in percent: shell
/// commands mostly (outside the allowlist), changes sometimes, reads never.
fn asks_percent(kind: &str) -> u8 {
    match kind {
        "execute" => 70,
        "edit" | "delete" | "move" | "fetch" | "switch_mode" | "other" => 25,
        _ => 0,
    }
}

fn tool_plan() -> impl Strategy<Value = ToolPlan> {
    (
        0..TOOL_KINDS.len(),
        "[a-z]{1,8}(/[a-z]{1,8}){0,2}\\.(rs|md|txt|toml)".no_shrink(),
        text(40),
        prop::bool::weighted(0.85),
        // Shrinks towards 0: no permission asked.
        0u8..100,
        answer(),
    )
        .prop_map(|(kind, path, text, ok, roll, answer)| {
            let asks = roll >= 100 - asks_percent(TOOL_KINDS[kind]);
            ToolPlan {
                kind,
                path,
                text,
                ok,
                ask: asks.then_some(answer),
            }
        })
}

fn step_plan(config: &ConversationConfig) -> impl Strategy<Value = StepPlan> {
    let entry = (text(40), 0usize..3, 0usize..3);
    prop_oneof![
        3 => text(config.max_text).prop_map(StepPlan::Message),
        2 => text(30).prop_map(StepPlan::Thought),
        3 => (
            prop::collection::vec(tool_plan(), 1..=config.max_parallel_tools.max(1)),
            prop::collection::vec(any::<u8>(), 3),
        )
            .prop_map(|(tools, order)| StepPlan::Tools(tools, order)),
        1 => prop::collection::vec(entry, 1..=4).prop_map(StepPlan::Plan),
    ]
}

fn end_plan(config: &ConversationConfig) -> impl Strategy<Value = EndPlan> {
    let failure = f64::from(config.failure_percent.min(100)) / 100.0;
    prop::bool::weighted(failure).prop_flat_map(|fail| {
        if fail {
            prop_oneof![
                (0..ERRORS.len()).prop_map(EndPlan::Error),
                Just(EndPlan::StopReason("refusal")),
                Just(EndPlan::StopReason("max_tokens")),
                Just(EndPlan::StopReason("max_turn_requests")),
            ]
            .boxed()
        } else {
            Just(EndPlan::EndTurn).boxed()
        }
    })
}

fn turn_plan(config: &ConversationConfig) -> impl Strategy<Value = TurnPlan> {
    let cancel = f64::from(config.cancel_percent.min(100)) / 100.0;
    (
        text(60),
        prop::collection::vec(step_plan(config), 0..=config.max_steps),
        end_plan(config),
        maybe(cancel, 0..=config.max_steps),
    )
        .prop_map(|(prompt, steps, end, cancel)| TurnPlan {
            prompt,
            steps,
            end,
            cancel,
        })
}

const UUID: &str = "[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}";

fn session_plan(config: &ConversationConfig) -> impl Strategy<Value = SessionPlan> {
    (
        UUID.no_shrink(),
        maybe(
            0.4,
            prop::collection::vec((text(40), text(config.max_text)), 1..=2),
        ),
        maybe(0.3, 0..MODES.len()),
        prop::collection::vec(turn_plan(config), 1..=config.max_turns.max(1)),
    )
        .prop_map(|(id, load, set_mode, turns)| SessionPlan {
            id,
            load,
            set_mode,
            turns,
        })
}

fn plan(config: &ConversationConfig) -> impl Strategy<Value = Plan> {
    (
        0..CLIENTS.len(),
        any::<bool>(),
        prop::bool::weighted(0.3),
        prop::collection::vec(session_plan(config), 1..=config.max_sessions.max(1)),
    )
        .prop_map(|(client, fs, authenticate, sessions)| Plan {
            client,
            fs,
            authenticate,
            sessions,
        })
}

/// A strategy for valid conversations with these knobs.
pub fn conversation(config: ConversationConfig) -> impl Strategy<Value = Transcript> {
    plan(&config).prop_map(move |plan| build(&plan, &config))
}

/// The fault specs [`faulted`] draws from: every fault of server mode, in the
/// placements that matter. Left out: those that make a correct client wait for its
/// own time limit (`no-response`, `authenticate-hangs`, a long `late`).
fn fault_spec() -> impl Strategy<Value = String> {
    let at = prop_oneof![
        (0u64..40).prop_map(|n| format!("after={n}")),
        prop::sample::select(vec![
            "at=agent_message_chunk",
            "at=agent_thought_chunk",
            "at=tool_call",
            "at=tool_call_update",
            "at=plan",
            "at=current_mode_update",
            "at=available_commands_update",
            "at=session/request_permission",
        ])
        .prop_map(str::to_owned),
    ];
    let method = prop::sample::select(vec![
        "initialize",
        "authenticate",
        "session/new",
        "session/load",
        "session/set_mode",
        "session/prompt",
    ]);
    let cut = (at.clone(), prop::option::of(0usize..120)).prop_map(|(p, byte)| match byte {
        Some(k) => format!("{p},byte={k}"),
        None => p,
    });
    prop_oneof![
        cut.prop_map(|p| format!("eof:{p}")),
        (
            prop_oneof![
                at.clone(),
                method.clone().prop_map(|m| format!("method={m}")),
                Just("at=asking".to_owned()),
            ],
            prop::sample::select(vec![
                "",
                ",signal=KILL",
                ",code=2",
                ",text=\"Error: the agent stopped\""
            ]),
        )
            .prop_map(|(p, how)| format!("crash:{p}{how}")),
        at.clone().prop_map(|p| format!("malformed:{p}")),
        at.clone().prop_map(|p| format!("stderr:text=oops,{p}")),
        at.clone().prop_map(|p| format!("duplicate:{p}")),
        at.clone().prop_map(|p| format!("unknown-update:{p}")),
        at.prop_map(|p| format!("huge:bytes=70000,{p}")),
        (
            method.clone(),
            prop::sample::select(vec![
                codes::INTERNAL_ERROR,
                codes::AUTH_REQUIRED,
                codes::INVALID_PARAMS
            ]),
        )
            .prop_map(|(m, code)| format!("error:method={m},code={code}")),
        (method, 1u64..200).prop_map(|(m, ms)| format!("late:method={m},ms={ms}")),
        prop::sample::select(super::faults::STOP_REASONS.to_vec())
            .prop_map(|r| format!("stop-reason:reason={r}")),
        prop::sample::select(vec![
            "agent_message_chunk",
            "agent_thought_chunk",
            "tool_call",
            "tool_call_update",
            "plan",
            "available_commands_update",
        ])
        .prop_map(|k| format!("drop:kind={k}")),
        prop::sample::select(vec![
            "reorder",
            "unknown-field",
            "early-update",
            "chunk:size=7",
            "chunk:random",
            "coalesce",
            "stderr-flood:bytes=100000",
            "auth-required",
            "session-services-failed",
            "crash-on-initialize",
            "crash-while-asking",
            "refusal",
            "max-tokens",
        ])
        .prop_map(str::to_owned),
    ]
}

/// A strategy for conversations with 0 to `max_faults` server-mode faults overlaid,
/// each labelled with what a correct client concludes.
pub fn faulted(config: ConversationConfig, max_faults: usize) -> impl Strategy<Value = FaultedTranscript> {
    (
        conversation(config),
        prop::collection::vec(fault_spec(), 0..=max_faults),
    )
        .prop_map(|(transcript, faults)| {
            let (expect, _) = transcript.expectation(parse_faults(&faults));
            FaultedTranscript {
                transcript,
                faults,
                expect,
            }
        })
}

/// The conversation of a seed: the same on every run and machine, for one version.
pub fn from_seed(seed: u64, config: &ConversationConfig) -> Transcript {
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    // Not the print-mode session of the same seed: another stream of the generator.
    bytes[8..11].copy_from_slice(b"acp");
    let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &bytes);
    let mut runner = TestRunner::new_with_rng(Config::default(), rng);
    match plan(config).new_tree(&mut runner) {
        Ok(tree) => build(&tree.current(), config),
        // Only a filter that rejects everything fails; the plan has none.
        Err(_) => build(&fallback_plan(), config),
    }
}

fn fallback_plan() -> Plan {
    Plan {
        client: 0,
        fs: false,
        authenticate: false,
        sessions: vec![SessionPlan {
            id: "00000000-0000-4000-8000-000000000000".into(),
            load: None,
            set_mode: None,
            turns: vec![TurnPlan {
                prompt: "hi".into(),
                steps: vec![StepPlan::Message("Hello.".into())],
                end: EndPlan::EndTurn,
                cancel: None,
            }],
        }],
    }
}

/// Writes the messages of a conversation, counting ids and keeping to the budget.
struct Builder {
    messages: Vec<Message>,
    /// The client's next request id.
    client_id: u64,
    /// The agent's next request id (agent-initiated requests count from 0).
    agent_id: u64,
    /// Tool calls so far, for unique ids.
    tools: usize,
    /// Messages left.
    left: usize,
}

impl Builder {
    fn push(&mut self, dir: Direction, line: Vec<u8>) {
        self.left = self.left.saturating_sub(1);
        self.messages.push(Message {
            dir,
            line: String::from_utf8_lossy(&line).into_owned(),
        });
    }

    fn fits(&self, messages: usize) -> bool {
        messages <= self.left
    }

    /// A request of the client's; its id, as JSON text.
    fn request(&mut self, method: &str, params: &Value) -> String {
        let id = self.client_id;
        self.client_id += 1;
        self.push(Direction::In, rpc::request(id, method, params));
        id.to_string()
    }

    fn respond(&mut self, id: &str, result: &Value) {
        self.push(Direction::Out, rpc::response(id, result));
    }

    fn update(&mut self, session: &str, update: &Value) {
        self.push(Direction::Out, tell::update_line(session, update));
    }

    /// A request of the agent's and the client's answer.
    fn ask(&mut self, session: &str, tool_call: &Value, answer: &Value) {
        let id = self.agent_id;
        self.agent_id += 1;
        self.push(
            Direction::Out,
            rpc::request(
                id,
                methods::REQUEST_PERMISSION,
                &tell::permission_params(session, tool_call),
            ),
        );
        self.push(Direction::In, rpc::response(&id.to_string(), answer));
    }

    fn cancel(&mut self, session: &str) {
        self.push(
            Direction::In,
            rpc::notification(methods::SESSION_CANCEL, &json!({"sessionId": session})),
        );
    }
}

/// Builds the messages of a plan, by the protocol's state machine.
fn build(plan: &Plan, config: &ConversationConfig) -> Transcript {
    let mut b = Builder {
        messages: Vec::new(),
        client_id: 0,
        agent_id: 0,
        tools: 0,
        left: config.max_messages.map_or(usize::MAX, |m| m.max(MIN_MESSAGES)),
    };
    let (name, version) = CLIENTS[plan.client % CLIENTS.len()];
    let id = b.request(
        methods::INITIALIZE,
        &json!({
            "protocolVersion": 1,
            "clientCapabilities": {"fs": {"readTextFile": plan.fs, "writeTextFile": plan.fs}, "terminal": false},
            "clientInfo": {"name": name, "version": version}
        }),
    );
    b.respond(&id, &tell::initialize_result());
    if plan.authenticate && b.fits(2 + MIN_MESSAGES - 2) {
        let id = b.request(methods::AUTHENTICATE, &json!({"methodId": "cursor_login"}));
        b.respond(&id, &json!({}));
    }
    for (s, session) in plan.sessions.iter().enumerate() {
        let first = s == 0;
        let sid = session.id.as_str();
        let load = session.load.as_ref().filter(|_| !first);
        let opening = load.map_or(3, |history| 2 + 2 * history.len());
        // A session that cannot hold a turn is left out (the first never is).
        if !first && !b.fits(opening + 2) {
            break;
        }
        let cwd = "/home/dev/project";
        match load {
            None => {
                let id = b.request(methods::SESSION_NEW, &json!({"cwd": cwd, "mcpServers": []}));
                b.respond(&id, &tell::session_new_result(sid));
                b.update(sid, &tell::available_commands());
            }
            Some(history) => {
                let id = b.request(
                    methods::SESSION_LOAD,
                    &json!({"sessionId": sid, "cwd": cwd, "mcpServers": []}),
                );
                for (prompt, answer) in history {
                    b.update(
                        sid,
                        &json!({"sessionUpdate": "user_message_chunk", "content": {"type": "text", "text": prompt}}),
                    );
                    b.update(
                        sid,
                        &json!({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": answer}}),
                    );
                }
                b.respond(&id, &json!({}));
            }
        }
        let mut mode = MODES[0];
        if let Some(m) = session.set_mode.filter(|_| b.fits(4)) {
            mode = MODES[m % MODES.len()];
            let id = b.request(
                methods::SESSION_SET_MODE,
                &json!({"sessionId": sid, "modeId": mode}),
            );
            b.respond(&id, &json!({}));
        }
        for (t, turn) in session.turns.iter().enumerate() {
            let first_turn = first && t == 0;
            if !first_turn && !b.fits(2) {
                break;
            }
            play_turn(&mut b, sid, turn, first_turn, &mut mode);
        }
    }
    Transcript { messages: b.messages }
}

/// The messages of one turn.
fn play_turn(b: &mut Builder, sid: &str, turn: &TurnPlan, first: bool, mode: &mut &'static str) {
    let id = b.request(
        methods::SESSION_PROMPT,
        &json!({"sessionId": sid, "prompt": [{"type": "text", "text": turn.prompt}]}),
    );
    let cancel = turn.cancel.filter(|_| !first).filter(|_| b.fits(3));
    // What the end of the turn takes: the answer, and the cancel before it.
    let closing = 1 + usize::from(cancel.is_some());
    for (k, step) in turn.steps.iter().enumerate() {
        if cancel == Some(k) {
            if let StepPlan::Tools(tools, _) = step {
                if cancel_while_asking(b, sid, tools) {
                    b.respond(&id, &json!({"stopReason": "cancelled"}));
                    return;
                }
            }
            break;
        }
        if !b.fits(cost(step) + closing) {
            break;
        }
        match step {
            StepPlan::Message(text) => b.update(
                sid,
                &json!({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}}),
            ),
            StepPlan::Thought(text) => b.update(
                sid,
                &json!({"sessionUpdate": "agent_thought_chunk", "content": {"type": "text", "text": text}}),
            ),
            StepPlan::Plan(entries) => {
                let entries: Vec<Value> = entries
                    .iter()
                    .map(|(content, priority, status)| {
                        let priority = ["high", "medium", "low"][priority % 3];
                        let status = ["pending", "in_progress", "completed"][status % 3];
                        json!({"content": content, "priority": priority, "status": status})
                    })
                    .collect();
                b.update(sid, &json!({"sessionUpdate": "plan", "entries": entries}));
            }
            StepPlan::Tools(tools, order) => run_tools(b, sid, tools, order, mode),
        }
    }
    if cancel.is_some() {
        b.cancel(sid);
        b.respond(&id, &json!({"stopReason": "cancelled"}));
        return;
    }
    match &turn.end {
        EndPlan::EndTurn => b.respond(&id, &json!({"stopReason": "end_turn"})),
        EndPlan::StopReason(reason) => b.respond(&id, &json!({"stopReason": reason})),
        EndPlan::Error(n) => {
            let (code, message, data) = ERRORS[n % ERRORS.len()];
            let data = data.map(|d| json!({"details": d}));
            b.push(Direction::Out, rpc::error(&id, code, message, data.as_ref()));
        }
    }
}

/// How many messages a step takes.
fn cost(step: &StepPlan) -> usize {
    match step {
        StepPlan::Tools(tools, _) => tools
            .iter()
            .map(|t| 2 + 2 * usize::from(t.ask.is_some()) + usize::from(TOOL_KINDS[t.kind] == "switch_mode"))
            .sum(),
        _ => 1,
    }
}

/// The tool calls of a batch up to the first that asks permission, its request, and
/// the client's cancel while it waits (then its answer, `cancelled`); `false`, and
/// nothing written, when none asks or there is no room.
fn cancel_while_asking(b: &mut Builder, sid: &str, tools: &[ToolPlan]) -> bool {
    let Some(asking) = tools.iter().position(|t| t.ask.is_some()) else {
        return false;
    };
    if !b.fits(asking + 1 + 4) {
        return false;
    }
    let calls: Vec<(Value, Value)> = tools[..=asking]
        .iter()
        .map(|tool| tool_call(b, sid, tool))
        .collect();
    for (call, _) in &calls {
        b.update(sid, call);
    }
    let id = b.agent_id;
    b.agent_id += 1;
    b.push(
        Direction::Out,
        rpc::request(
            id,
            methods::REQUEST_PERMISSION,
            &tell::permission_params(sid, &permission_call(&calls[asking].0)),
        ),
    );
    b.cancel(sid);
    b.push(
        Direction::In,
        rpc::response(&id.to_string(), &json!({"outcome": {"outcome": "cancelled"}})),
    );
    true
}

/// A batch of tool calls: each `tool_call`, the permission requests and answers, then
/// each `tool_call_update` in the order they finish.
fn run_tools(b: &mut Builder, sid: &str, tools: &[ToolPlan], order: &[u8], mode: &mut &'static str) {
    let calls: Vec<(Value, Value)> = tools.iter().map(|tool| tool_call(b, sid, tool)).collect();
    for (call, _) in &calls {
        b.update(sid, call);
    }
    for (tool, (call, _)) in tools.iter().zip(&calls) {
        if let Some(answer) = tool.ask {
            let outcome = json!({"outcome": {"outcome": "selected", "optionId": answer.option_id()}});
            b.ask(sid, &permission_call(call), &outcome);
        }
    }
    let mut finished: Vec<usize> = (0..tools.len()).collect();
    for (i, seed) in order.iter().enumerate().take(finished.len()) {
        let j = usize::from(*seed) % finished.len();
        finished.swap(i, j);
    }
    for i in finished {
        let tool = &tools[i];
        let rejected = tool.ask == Some(Answer::Reject);
        let (call, output) = &calls[i];
        let (status, output) = match (rejected, tool.ok) {
            (true, _) => ("failed", json!({"error": "Rejected by the user"})),
            (false, true) => ("completed", output.clone()),
            (false, false) => ("failed", failure(tool)),
        };
        b.update(
            sid,
            &json!({"sessionUpdate": "tool_call_update", "toolCallId": call["toolCallId"], "status": status, "rawOutput": output}),
        );
        if TOOL_KINDS[tool.kind] == "switch_mode" && status == "completed" {
            *mode = switched(mode);
            b.update(
                sid,
                &json!({"sessionUpdate": "current_mode_update", "currentModeId": *mode}),
            );
        }
    }
}

/// The mode a `switch_mode` tool switches to: plan from any other, agent from plan.
fn switched(mode: &str) -> &'static str {
    if mode == "plan" {
        "agent"
    } else {
        "plan"
    }
}

/// The `toolCall` of a permission request: the tool call's id, title, kind, status.
fn permission_call(call: &Value) -> Value {
    json!({"toolCallId": call["toolCallId"], "title": call["title"], "kind": call["kind"], "status": "pending"})
}

/// A tool call's `tool_call` update, and the `rawOutput` it completes with.
fn tool_call(b: &mut Builder, sid: &str, tool: &ToolPlan) -> (Value, Value) {
    let n = b.tools;
    b.tools += 1;
    // As the real agent's: a literal newline between the call and the function id.
    let id = format!("call-{}-{n}\nfc_{}_{n}", &sid[..8], &sid[sid.len() - 12..]);
    let kind = TOOL_KINDS[tool.kind % TOOL_KINDS.len()];
    let path = &tool.path;
    let abs = format!("/home/dev/project/{path}");
    let text = &tool.text;
    let lines = text.lines().count();
    let (title, input, output) = match kind {
        "read" => (
            format!("Read {path}"),
            json!({"path": abs}),
            json!({"content": text, "totalLines": lines}),
        ),
        "edit" => (
            format!("Edit {path}"),
            json!({"path": abs, "streamContent": text}),
            json!({"linesAdded": lines, "linesRemoved": 1, "diffString": format!("-old\n+{text}")}),
        ),
        "delete" => (
            format!("Delete {path}"),
            json!({"path": abs}),
            json!({"deleted": true}),
        ),
        "move" => (
            format!("Move {path} to old/{path}"),
            json!({"source": abs, "destination": format!("/home/dev/project/old/{path}")}),
            json!({}),
        ),
        "search" => (
            format!("Grep {}", text.lines().next().unwrap_or_default()),
            json!({"pattern": text, "path": "/home/dev/project"}),
            json!({"files": [path], "totalMatches": 1}),
        ),
        "execute" => (
            format!("`cat {path}`"),
            json!({"command": format!("cat {path}")}),
            json!({"exitCode": 0, "stdout": text, "stderr": ""}),
        ),
        "think" => ("Thinking".to_owned(), json!({"thought": text}), json!({})),
        "fetch" => (
            format!("Fetch https://example.com/{path}"),
            json!({"url": format!("https://example.com/{path}")}),
            json!({"status": 200, "content": text}),
        ),
        "switch_mode" => (
            "Switch mode".to_owned(),
            json!({"reason": text}),
            json!({"switched": true}),
        ),
        _ => (
            "docs-search".to_owned(),
            json!({"name": "docs-search", "arguments": {"q": text}}),
            json!({"content": [{"type": "text", "text": text}]}),
        ),
    };
    let mut call = json!({"sessionUpdate": "tool_call", "toolCallId": id, "title": title, "kind": kind, "status": "pending", "rawInput": input});
    if matches!(kind, "read" | "edit" | "delete" | "move") {
        call["locations"] = json!([{"path": abs}]);
    }
    (call, output)
}

/// The `rawOutput` of a tool that failed.
fn failure(tool: &ToolPlan) -> Value {
    match TOOL_KINDS[tool.kind % TOOL_KINDS.len()] {
        "execute" => {
            json!({"exitCode": 1, "stdout": "", "stderr": format!("cat: {}: No such file or directory", tool.path)})
        }
        _ => json!({"error": format!("cannot open {}", tool.path)}),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seed_gives_the_same_conversation_and_another_seed_another() {
        let config = ConversationConfig::default();
        assert_eq!(from_seed(7, &config), from_seed(7, &config));
        assert_ne!(from_seed(7, &config), from_seed(8, &config));
    }

    #[test]
    fn the_budget_keeps_a_conversation_whole() {
        let configs = [
            (ConversationConfig::default().max_messages(12), 50),
            (ConversationConfig::large().max_messages(40), 3),
            (ConversationConfig::default().max_messages(0), 10),
        ];
        for (config, seed) in configs
            .iter()
            .flat_map(|(c, n)| (0..*n).map(move |seed| (c, seed)))
        {
            let transcript = from_seed(seed, config);
            let most = config.max_messages.unwrap_or_default();
            assert!(transcript.messages.len() <= most, "{}", transcript.summary());
            let prompts = transcript
                .messages
                .iter()
                .filter(|m| m.line.contains(r#""method":"session/prompt""#))
                .count();
            assert!(prompts >= 1, "{}", transcript.summary());
        }
    }

    #[test]
    fn the_first_turn_is_never_cancelled_and_a_correct_client_concludes_from_it() {
        let config = ConversationConfig::default().cancels(100).failures(0);
        for seed in 0..20 {
            let transcript = from_seed(seed, &config);
            let summary = transcript.summary();
            let lines: Vec<&str> = summary.lines().collect();
            let ended = lines.iter().position(|l| l.ends_with(" end_turn"));
            let cancelled = lines.iter().position(|l| l.starts_with("-> session/cancel"));
            assert!(
                ended.is_some_and(|e| cancelled.is_none_or(|c| e < c)),
                "{summary}"
            );
            let (expect, _) = transcript.expectation(Vec::new());
            assert!(matches!(expect, Expectation::Success { .. }), "{summary}");
        }
    }
}
