//! The plan of a session and the strategies that draw it.
//!
//! A plan says what happens (the prompt, the model calls with their thinking, text and
//! tool calls, how the run ends) and nothing about how it is written: [`super::build`]
//! turns it into events. Proptest shrinks plans, so a failing case shrinks to fewer
//! model calls, fewer tools and shorter text.
//!
//! The strategies are part of the bytes of a seed: drawing a value in another way
//! (another range, another order of the tuple) changes every generated session.

use proptest::prelude::*;

use super::tools::ToolKind;
use crate::dialects::cursor_print::generate::config::{Profile, SessionConfig};

/// What a session does.
#[derive(Debug, Clone)]
pub(super) struct StreamPlan {
    /// The prompt.
    pub prompt: String,
    /// The session id, a version 4 UUID.
    pub session_id: String,
    /// Whether it streams as with `--stream-partial-output` (in the real profile).
    pub partial: bool,
    /// The model calls, at least one.
    pub calls: Vec<CallPlan>,
    /// How the run ends.
    pub end: EndPlan,
}

/// One model call: thinking, text segments, then tool calls in parallel.
#[derive(Debug, Clone)]
pub(super) struct CallPlan {
    /// Thinking deltas (the real profile only).
    pub thinking: Vec<String>,
    /// Assistant text segments, one or two.
    pub segments: Vec<String>,
    /// The tool calls, started in this order.
    pub tools: Vec<ToolPlan>,
    /// A permutation seed for the order the tools complete in.
    pub completion: Vec<u8>,
}

/// One tool call.
#[derive(Debug, Clone)]
pub(super) struct ToolPlan {
    /// Which tool.
    pub kind: ToolKind,
    /// The file it works on, relative.
    pub path: String,
    /// The text it reads, writes, prints or searches for.
    pub text: String,
    /// Whether it succeeds.
    pub ok: bool,
}

/// How a run ends.
#[derive(Debug, Clone)]
pub(super) enum EndPlan {
    /// A `result`, exit 0.
    Success {
        /// Input and output tokens.
        usage: (u32, u32),
    },
    /// No `result`: the message on stderr, exit 1.
    Failure {
        /// How many stdout events are kept: 0, 2 (`init` and `user`), or more, as
        /// the message's [`FailsAt`] allows.
        keep: usize,
        /// What the real CLI says on stderr.
        message: &'static str,
        /// Whether `connection` and `retry` events come before the end.
        connection: bool,
    },
}

/// Where the real CLI stops its stdout when it fails (shared/REAL-CLI.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum FailsAt {
    /// Before any output: the command line, the login, the model are checked first.
    Start,
    /// After `init` and `user`: the first model call is refused.
    FirstCall,
    /// After `init` and `user` or further on, with `connection` and `retry` events in
    /// the real profile: the connection drops.
    Anywhere,
}

/// The failures of the real CLI, as it prints them on stderr, and where each stops
/// stdout: an error that happens before any output has no output before it.
pub(super) const FAILURES: &[(&str, FailsAt)] = &[
    (
        crate::dialects::cursor_print::faults::AUTH_REQUIRED,
        FailsAt::Start,
    ),
    (
        "ActionRequiredError: Increase limits for faster responses You're out of usage.",
        FailsAt::FirstCall,
    ),
    (
        "Cannot use this model: gpt-9. Available models: auto, sonnet-4.5, gpt-5",
        FailsAt::Start,
    ),
    (
        "RetriableError: [unavailable] upstream connect error or disconnect/reset before headers",
        FailsAt::Anywhere,
    ),
];

/// The plans of sessions with these knobs.
pub(super) fn plan(config: &SessionConfig) -> impl Strategy<Value = StreamPlan> {
    let partial = match config.stream_partial_output {
        Some(p) => Just(p).boxed(),
        None => any::<bool>().boxed(),
    };
    (
        text(60),
        "[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}",
        partial,
        prop::collection::vec(call_plan(config), 1..=config.max_model_calls.max(1)),
        end_plan(config.failure_percent),
    )
        .prop_map(|(prompt, session_id, partial, calls, end)| StreamPlan {
            prompt,
            session_id,
            partial,
            calls,
            end,
        })
}

/// The plan of a session when the strategy draws none (only a filter that rejects
/// everything would): one model call saying hello.
pub(super) fn fallback() -> StreamPlan {
    StreamPlan {
        prompt: "hi".into(),
        session_id: "00000000-0000-4000-8000-000000000000".into(),
        partial: false,
        calls: vec![CallPlan {
            thinking: Vec::new(),
            segments: vec!["Hello.".into()],
            tools: Vec::new(),
            completion: Vec::new(),
        }],
        end: EndPlan::Success { usage: (1, 1) },
    }
}

/// Success or failure, failing `failure_percent` percent of the time.
fn end_plan(failure_percent: u32) -> impl Strategy<Value = EndPlan> {
    let failure = failure_percent.min(100) as f64 / 100.0;
    let end = prop_oneof![
        (1u32..20_000, 1u32..2_000).prop_map(|usage| EndPlan::Success { usage }),
        (0usize..64, prop::sample::select(FAILURES), any::<bool>()).prop_map(
            |(keep, (message, at), connection)| EndPlan::Failure {
                keep: match at {
                    FailsAt::Start => 0,
                    FailsAt::FirstCall => 2,
                    FailsAt::Anywhere => keep.max(2),
                },
                message,
                connection: connection && at == FailsAt::Anywhere,
            }
        ),
    ];
    prop::bool::weighted(failure).prop_flat_map(move |fail| {
        end.clone()
            .prop_filter("success or failure as weighted", move |e| {
                matches!(e, EndPlan::Failure { .. }) == fail
            })
    })
}

fn call_plan(config: &SessionConfig) -> impl Strategy<Value = CallPlan> {
    let thinking = match config.profile {
        Profile::Seeds => Just(Vec::new()).boxed(),
        Profile::Real => prop::collection::vec(text(30), 0..3).boxed(),
    };
    let parallel = match config.profile {
        Profile::Seeds => 0..=1usize,
        Profile::Real => 0..=config.max_parallel_tools,
    };
    (
        thinking,
        prop::collection::vec(text(config.max_text), 1..=2),
        prop::collection::vec(tool_plan(config.profile), parallel),
        prop::collection::vec(any::<u8>(), 3),
    )
        .prop_map(|(thinking, segments, tools, completion)| CallPlan {
            thinking,
            segments,
            tools,
            completion,
        })
        // A segment that repeats the segments before it would read as their closing
        // line: the real CLI never streams that, so neither does the generator.
        .prop_filter("segments that read as deltas and their closing line", |call| {
            let mut before = String::new();
            call.segments.iter().all(|s| {
                let ok = before.is_empty() || *s != before;
                before.push_str(s);
                ok
            })
        })
}

fn tool_plan(profile: Profile) -> impl Strategy<Value = ToolPlan> {
    (
        prop::sample::select(ToolKind::of(profile)),
        "[a-z]{1,8}(/[a-z]{1,8}){0,2}\\.(rs|md|txt|toml)",
        text(40),
        prop::bool::weighted(0.85),
    )
        .prop_map(|(kind, path, text, ok)| ToolPlan { kind, path, text, ok })
}

/// Text: any Unicode, mostly words, sometimes large; at most `max` characters.
fn text(max: usize) -> BoxedStrategy<String> {
    let words = prop::collection::vec(
        prop_oneof![
            6 => "[a-zA-Z]{1,8}",
            1 => "[0-9]{1,4}",
            1 => prop::sample::select(vec!["café", "naïve", "日本語", "🦀", "—", "\"quoted\"", "back\\slash", "tab\there", "new\nline", "`code`"]).prop_map(str::to_owned),
            1 => any::<char>().prop_map(String::from),
        ],
        0..=max.div_ceil(5).max(1),
    )
    .prop_map(move |words| {
        let mut text = words.join(" ");
        if let Some((cut, _)) = text.char_indices().nth(max) {
            text.truncate(cut);
        }
        text
    });
    words.boxed()
}
