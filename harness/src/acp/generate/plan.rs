//! What a conversation will be, drawn by proptest: the plan of its sessions, turns,
//! steps and tool calls, and the faults to overlay. Proptest shrinks these plans, not
//! bytes.

use proptest::prelude::*;

use super::config::ConversationConfig;
use crate::acp::profile::Profile;
use crate::acp::rpc::codes;
use crate::acp::wire::{content_types, modes, option_kinds, stop_reasons, tool_kinds};

/// The ACP tool kinds, in the order tool plans draw them.
pub const TOOL_KINDS: &[&str] = tool_kinds::ALL;

/// The session modes, as `session/new` lists them.
pub(super) const MODES: &[&str] = modes::ALL;

/// Clients, as `initialize`'s `clientInfo` names them.
pub(super) const CLIENTS: &[(&str, &str)] = &[
    ("zed", "0.210.4"),
    ("jetbrains-acp", "1.2.0"),
    ("acpx", "0.4.1"),
    ("openab", "2.0.0"),
];

/// The errors a failed turn answers with: code, message, data.
pub(super) const ERRORS: &[(i64, &str, Option<&str>)] = &[
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
pub(super) enum Answer {
    AllowOnce,
    AllowAlways,
    Reject,
    RejectAlways,
}

impl Answer {
    /// The id of the option the answer chooses among `profile`'s (rejecting once
    /// where the agent offers no "always" for it).
    pub(super) fn option_id(self, profile: &Profile) -> String {
        let kind = match self {
            Answer::AllowOnce => option_kinds::ALLOW_ONCE,
            Answer::AllowAlways => option_kinds::ALLOW_ALWAYS,
            Answer::Reject => option_kinds::REJECT_ONCE,
            Answer::RejectAlways => option_kinds::REJECT_ALWAYS,
        };
        profile
            .option_id(kind)
            .or_else(|| {
                profile.option_id(if self.rejects() {
                    option_kinds::REJECT_ONCE
                } else {
                    option_kinds::ALLOW_ONCE
                })
            })
            .unwrap_or_default()
    }

    /// Whether the answer rejects the tool.
    pub(super) fn rejects(self) -> bool {
        matches!(self, Answer::Reject | Answer::RejectAlways)
    }
}

/// One tool call of a plan.
#[derive(Debug, Clone)]
pub(super) struct ToolPlan {
    pub(super) kind: usize,
    pub(super) path: String,
    pub(super) text: String,
    pub(super) ok: bool,
    /// The permission request, and the client's answer.
    pub(super) ask: Option<Answer>,
    /// Whether the client's tool (a file read or write, a terminal), when the client
    /// offers it, answers without an error.
    pub(super) client_ok: bool,
}

/// One step of a turn.
#[derive(Debug, Clone)]
pub(super) enum StepPlan {
    Message(String),
    Thought(String),
    /// Tool calls in parallel, and a permutation seed for the order they complete in.
    Tools(Vec<ToolPlan>, Vec<u8>),
    /// A plan's entries: content, priority, status.
    Plan(Vec<(String, usize, usize)>),
    /// A message chunk that is not text: an image, an embedded resource (this text),
    /// a resource link ([`MEDIA`]).
    Media(usize, String),
}

/// The content block types of [`StepPlan::Media`].
pub(super) const MEDIA: &[&str] = &[
    content_types::IMAGE,
    content_types::RESOURCE,
    content_types::RESOURCE_LINK,
];

/// How a turn ends, when the client does not cancel it.
#[derive(Debug, Clone)]
pub(super) enum EndPlan {
    EndTurn,
    Error(usize),
    StopReason(&'static str),
}

#[derive(Debug, Clone)]
pub(super) struct TurnPlan {
    pub(super) prompt: String,
    pub(super) steps: Vec<StepPlan>,
    pub(super) end: EndPlan,
    /// After how many steps the client cancels (turns after the first only).
    pub(super) cancel: Option<usize>,
}

#[derive(Debug, Clone)]
pub(super) struct SessionPlan {
    pub(super) id: String,
    /// Loaded rather than new (sessions after the first only), with this history.
    pub(super) load: Option<Vec<(String, String)>>,
    /// The client sets this mode before its first prompt.
    pub(super) set_mode: Option<usize>,
    pub(super) turns: Vec<TurnPlan>,
}

#[derive(Debug, Clone)]
pub(super) struct ConversationPlan {
    pub(super) client: usize,
    pub(super) fs: bool,
    pub(super) terminal: bool,
    pub(super) authenticate: bool,
    pub(super) sessions: Vec<SessionPlan>,
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
        1 => Just(Answer::RejectAlways),
    ]
}

/// How often the agent asks permission for a tool of this kind, in percent: shell
/// commands mostly (outside the allowlist), changes sometimes, reads never.
fn asks_percent(kind: &str) -> u8 {
    use tool_kinds::{DELETE, EDIT, EXECUTE, FETCH, MOVE, OTHER, SWITCH_MODE};
    match kind {
        EXECUTE => 70,
        EDIT | DELETE | MOVE | FETCH | SWITCH_MODE | OTHER => 25,
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
        prop::bool::weighted(0.8),
    )
        .prop_map(|(kind, path, text, ok, roll, answer, client_ok)| {
            let asks = roll >= 100 - asks_percent(TOOL_KINDS[kind]);
            ToolPlan {
                kind,
                path,
                text,
                ok,
                ask: asks.then_some(answer),
                client_ok,
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
        1 => (0..MEDIA.len(), text(40)).prop_map(|(kind, text)| StepPlan::Media(kind, text)),
    ]
}

fn end_plan(config: &ConversationConfig) -> impl Strategy<Value = EndPlan> {
    let failure = f64::from(config.failure_percent.min(100)) / 100.0;
    prop::bool::weighted(failure).prop_flat_map(|fail| {
        if fail {
            prop_oneof![
                (0..ERRORS.len()).prop_map(EndPlan::Error),
                Just(EndPlan::StopReason(stop_reasons::REFUSAL)),
                Just(EndPlan::StopReason(stop_reasons::MAX_TOKENS)),
                Just(EndPlan::StopReason(stop_reasons::MAX_TURN_REQUESTS)),
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

pub(super) const UUID: &str = "[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}";

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

pub(super) fn plan(config: &ConversationConfig) -> impl Strategy<Value = ConversationPlan> {
    // Who the client is (its name, whether it offers files and a terminal, whether
    // it logs in), then its sessions.
    let client = (
        0..CLIENTS.len(),
        any::<bool>(),
        any::<bool>(),
        prop::bool::weighted(0.3),
    );
    let sessions = prop::collection::vec(session_plan(config), 1..=config.max_sessions.max(1));
    (client, sessions).prop_map(
        |((client, fs, terminal, authenticate), sessions)| ConversationPlan {
            client,
            fs,
            terminal,
            authenticate,
            sessions,
        },
    )
}
pub(super) fn fallback_plan() -> ConversationPlan {
    ConversationPlan {
        client: 0,
        fs: false,
        terminal: false,
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
