//! From a plan to a session: typed events, by the rules the real CLI follows
//! (shared/REAL-CLI.md), serialized one a line.
//!
//! - `system/init` and `user` first; then each model call: `thinking` deltas and their
//!   `completed`, the assistant text (deltas then the whole segment with
//!   `--stream-partial-output`), the tool calls `started` in order and `completed` in
//!   the order they finish; then `result`, or a failure (no `result`, maybe
//!   `connection` and `retry`, the message on stderr, exit 1).
//! - In the real profile, stamped lines carry `timestamp_ms` from a clock that starts
//!   at [`BASE_MS`] and ticks 37 ms per stamp, and tool calls carry `model_call_id`
//!   and `toolCallId`. The seeds profile has neither.
//!
//! The bytes of a seed depend on every detail here: the order of the clock's ticks,
//! the ids, and the order of the fields (the order the event structs declare them in).

use super::plan::{CallPlan, EndPlan, StreamPlan};
use super::session::Session;
use super::tools::{self, Call};
use crate::dialects::cursor_print::events::{
    field, role, subtype, AssistantEvent, ConnectionEvent, Event, Extra, Message, ResultEvent, RetryEvent,
    System, ThinkingEvent, Tool, ToolCall, ToolCallEvent, Usage, UserEvent,
};
use crate::dialects::cursor_print::generate::config::{Profile, SessionConfig};
use crate::dialects::cursor_print::generate::config::{BASE_MS, PROJECT};
use crate::dialects::cursor_print::render::segments::split_deltas;
use crate::frames::Exit;

/// Milliseconds between two stamped events.
const TICK_MS: u64 = 37;

/// Builds the session of a plan.
pub(super) fn build(plan: &StreamPlan, config: &SessionConfig) -> Session {
    let mut builder = Builder {
        plan,
        real: config.profile == Profile::Real,
        clock: BASE_MS,
    };
    let max_events = config.max_events.unwrap_or(usize::MAX).max(4);
    let mut events = vec![builder.init(), builder.user()];
    let mut answer = String::new();
    for (n, call) in plan.calls.iter().enumerate() {
        let turn = builder.model_call(n, call);
        if events.len() + turn.len() + 1 > max_events {
            if let (0, Some(first)) = (n, call.segments.first()) {
                // Keep at least one segment of text.
                events.push(Event::Assistant(builder.assistant(first)));
                answer.push_str(first);
            }
            break;
        }
        answer.extend(call.segments.iter().map(String::as_str));
        events.extend(turn);
    }
    let (stderr, exit) = builder.end(&plan.end, &mut events, answer);
    Session {
        prompt: plan.prompt.clone(),
        stream_partial_output: plan.partial && builder.real,
        lines: events.iter().map(Event::to_line).collect(),
        stderr,
        exit,
    }
}

/// What every event of a session shares: its plan, its profile and its clock.
struct Builder<'a> {
    plan: &'a StreamPlan,
    real: bool,
    clock: u64,
}

impl Builder<'_> {
    /// The next stamp of the clock.
    fn tick(&mut self) -> u64 {
        self.clock += TICK_MS;
        self.clock
    }

    fn session_id(&self) -> String {
        self.plan.session_id.clone()
    }

    /// The request id: the first 8 characters of the session id.
    fn request(&self) -> &str {
        let id = self.plan.session_id.as_str();
        id.get(..8).unwrap_or(id)
    }

    fn init(&self) -> Event {
        Event::System(System {
            subtype: subtype::INIT.into(),
            api_key_source: Some("login".into()),
            cwd: Some(PROJECT.into()),
            session_id: Some(self.session_id()),
            model: Some(
                if self.real {
                    "Claude 4.5 Sonnet"
                } else {
                    "Claude 4 Sonnet"
                }
                .into(),
            ),
            permission_mode: Some("default".into()),
            extra: Extra::new(),
        })
    }

    fn user(&self) -> Event {
        Event::User(UserEvent {
            message: Message::text(role::USER, self.plan.prompt.as_str()),
            session_id: self.session_id(),
            extra: Extra::new(),
        })
    }

    /// An assistant line with this text and no stamps.
    fn assistant(&self, text: &str) -> AssistantEvent {
        AssistantEvent {
            message: Message::text(role::ASSISTANT, text),
            session_id: self.session_id(),
            model_call_id: None,
            timestamp_ms: None,
            extra: Extra::new(),
        }
    }

    /// The events of the `n`-th model call: thinking, text, tool calls.
    fn model_call(&mut self, n: usize, call: &CallPlan) -> Vec<Event> {
        // `<request uuid>-<n>-<4 chars>`.
        let model_call_id = format!("{}-{n}-{:04x}", self.plan.session_id, (n * 7919) % 65_536);
        let mut events = Vec::new();
        if self.real && !call.thinking.is_empty() {
            for thought in &call.thinking {
                events.push(self.thinking(subtype::DELTA, Some(thought.as_str())));
            }
            events.push(self.thinking(subtype::COMPLETED, None));
        }
        for (i, segment) in call.segments.iter().enumerate() {
            if self.plan.partial && self.real {
                for piece in split_deltas(segment) {
                    let mut delta = self.assistant(piece);
                    delta.timestamp_ms = Some(self.tick());
                    events.push(Event::Assistant(delta));
                }
            }
            let mut whole = self.assistant(segment);
            let closes_before_tool = i + 1 == call.segments.len() && !call.tools.is_empty();
            if self.real && closes_before_tool {
                whole.model_call_id = Some(model_call_id.clone());
                whole.timestamp_ms = Some(self.tick());
            }
            events.push(Event::Assistant(whole));
        }
        events.extend(self.tool_calls(n, call, &model_call_id));
        events
    }

    fn thinking(&mut self, subtype: &str, text: Option<&str>) -> Event {
        Event::Thinking(ThinkingEvent {
            subtype: subtype.into(),
            text: text.map(str::to_owned),
            session_id: self.session_id(),
            timestamp_ms: Some(self.tick()),
            extra: Extra::new(),
        })
    }

    /// The tool calls of the `n`-th model call: each `started` in order, then each
    /// `completed` in the order they finish, stamped when they do.
    fn tool_calls(&mut self, n: usize, call: &CallPlan, model_call_id: &str) -> Vec<Event> {
        let mut events = Vec::new();
        let mut completed = Vec::new();
        for (t, tool) in call.tools.iter().enumerate() {
            let call_id = self.call_id(n, t);
            let Call {
                started,
                completed: done,
            } = tools::call(tool, &call_id);
            let mut start = self.tool_call(subtype::STARTED, &call_id, started, model_call_id);
            if self.real {
                start.timestamp_ms = Some(self.tick());
            }
            events.push(Event::ToolCall(start));
            completed.push(Some(self.tool_call(
                subtype::COMPLETED,
                &call_id,
                done,
                model_call_id,
            )));
        }
        for i in self.completion_order(call, completed.len()) {
            if let Some(mut done) = completed.get_mut(i).and_then(Option::take) {
                if self.real {
                    done.timestamp_ms = Some(self.tick());
                }
                events.push(Event::ToolCall(done));
            }
        }
        events
    }

    /// The id of the `t`-th tool call of the `n`-th model call. The real CLI's ids
    /// may hold a newline.
    fn call_id(&self, n: usize, t: usize) -> String {
        let request = self.request();
        if self.real && t % 2 == 1 {
            format!("call-{request}-{n}-{t}\nfc_{request}_{t}")
        } else {
            format!("toolu_{request}{n:02}{t:02}")
        }
    }

    /// A `tool_call` line, unstamped.
    fn tool_call(&self, subtype: &str, call_id: &str, tool: Tool, model_call_id: &str) -> ToolCallEvent {
        let mut beside = Extra::new();
        if self.real {
            beside.insert(field::TOOL_CALL_ID.into(), call_id.into());
        }
        ToolCallEvent {
            subtype: subtype.into(),
            call_id: call_id.into(),
            tool_call: ToolCall { tool, extra: beside },
            session_id: self.session_id(),
            model_call_id: self.real.then(|| model_call_id.to_owned()),
            timestamp_ms: None,
            extra: Extra::new(),
        }
    }

    /// The order in which `len` parallel tool calls complete: the order they started
    /// in, swapped by the plan's permutation seed (the real profile only).
    fn completion_order(&self, call: &CallPlan, len: usize) -> Vec<usize> {
        let mut order: Vec<usize> = (0..len).collect();
        if self.real {
            for (i, seed) in call.completion.iter().enumerate().take(len) {
                order.swap(i, usize::from(*seed) % len);
            }
        }
        order
    }

    /// Ends the run: a `result`, or a failure that cuts the stream. Returns stderr and
    /// the exit.
    fn end(&mut self, end: &EndPlan, events: &mut Vec<Event>, answer: String) -> (Vec<String>, Exit) {
        match end {
            EndPlan::Success { usage } => {
                let duration = events.len() as u64 * TICK_MS;
                events.push(Event::Result(ResultEvent {
                    subtype: subtype::SUCCESS.into(),
                    duration_ms: Some(duration),
                    duration_api_ms: Some(duration),
                    is_error: false,
                    result: answer,
                    session_id: self.session_id(),
                    request_id: Some(format!("{}-req", self.request())),
                    usage: self.real.then(|| Usage {
                        input_tokens: usage.0.into(),
                        output_tokens: usage.1.into(),
                        cache_read_tokens: Some(0),
                        cache_write_tokens: Some(0),
                        extra: Extra::new(),
                    }),
                    extra: Extra::new(),
                }));
                (Vec::new(), Exit::Code(0))
            }
            EndPlan::Failure {
                keep,
                message,
                connection,
            } => {
                // The real CLI fails with nothing on stdout, or after `init` and
                // `user`, or further on (as the message's `FailsAt` allows); never
                // between the two.
                events.truncate(if *keep == 1 { 2 } else { *keep });
                if self.real && *connection && events.len() >= 2 {
                    events.extend(self.connection_trouble());
                }
                (vec![(*message).to_owned()], Exit::Code(1))
            }
        }
    }

    /// The first attempt to reconnect, then the retry it starts.
    fn connection_trouble(&mut self) -> [Event; 2] {
        let reconnecting = ConnectionEvent {
            subtype: subtype::RECONNECTING.into(),
            session_id: self.session_id(),
            timestamp_ms: Some(self.tick()),
            attempt: Some(1),
            extra: Extra::new(),
        };
        let retry = RetryEvent {
            subtype: subtype::STARTING.into(),
            timestamp_ms: Some(self.tick()),
            is_resume: Some(false),
            session_id: reconnecting.session_id.clone(),
            attempt: reconnecting.attempt,
            extra: Extra::new(),
        };
        [Event::Connection(reconnecting), Event::Retry(retry)]
    }
}
