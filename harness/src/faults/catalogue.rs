//! The one fault catalogue: every fault and preset of every dialect, with the
//! dialects it applies to, the keys that place it and where it acts when not placed.
//!
//! A name may stand in several entries: `eof` cuts a stdout line in print mode and an
//! agent message in server mode, with each dialect's default and words. A dialect's
//! entries, in the order of this table, are what `mock-agent faults` lists for it and
//! what its parser knows.

use crate::dialects::claude::wire::{control as claude_control, types as claude_types};
use crate::dialects::cursor_acp::wire::{methods, stop_reasons, updates};
use crate::dialects::cursor_print::events::event_type;
use crate::dialects::Dialect;

/// A key that places a fault: the one placement vocabulary of every dialect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Key {
    /// `after=N`: after the N-th line (print mode) or message (server mode) the agent
    /// writes; 0 is before the first.
    After,
    /// `at=WORD`: before the first line of that event type (print mode: `at=result`,
    /// `at=end`), or message of that update kind or request method (server mode:
    /// `at=tool_call`, `at=session/request_permission`; `at=asking`: while the agent
    /// waits for the client's answer).
    At,
    /// `byte=K`: after the first K bytes of that line or message.
    Byte,
    /// `method=M`: on the agent's answer to the client's request `M` (server mode).
    Method,
}

/// Where a fault acts when it is not placed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Site {
    /// After the N-th line or message.
    After(u64),
    /// Before the first line or message of this kind.
    At(&'static str),
    /// On the answer to this request.
    Method(&'static str),
    /// At the end.
    End,
    /// On every line (`unknown-field` in print mode).
    Every,
}

/// One entry of the fault catalogue: what `mock-agent faults` prints, and what the
/// parser reads.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct Described {
    /// The fault's name.
    pub name: &'static str,
    /// The dialects it applies to, with these keys and this meaning.
    pub dialects: &'static [Dialect],
    /// Its keys.
    pub usage: &'static str,
    /// What it does, in one line.
    pub meaning: &'static str,
    /// An example.
    pub example: &'static str,
    /// The keys that place it.
    pub places: &'static [Key],
    /// Where it acts when not placed (`None`: it is not placed, or must be).
    pub default: Option<Site>,
    /// Whether it is a preset: the real agent's failure, as faults.
    pub preset: bool,
    /// The scenario only a misbehaving agent makes with it (never the real CLI), which
    /// it gives only when asked for: `None` when it has none.
    pub misbehaving: Option<&'static str>,
}

impl Described {
    /// Whether the fault is placed with `key`.
    pub fn takes(&self, key: Key) -> bool {
        self.places.contains(&key)
    }

    /// Whether the fault applies to `dialect`.
    pub fn applies_to(&self, dialect: Dialect) -> bool {
        self.dialects.contains(&dialect)
    }

    const fn placed(self, places: &'static [Key], default: Option<Site>) -> Self {
        Described {
            places,
            default,
            ..self
        }
    }

    const fn preset(self) -> Self {
        Described { preset: true, ..self }
    }

    const fn misbehaving(self, scenario: &'static str) -> Self {
        Described {
            misbehaving: Some(scenario),
            ..self
        }
    }
}

const PRINT: &[Dialect] = &[Dialect::CursorPrint];
const ACP: &[Dialect] = &[Dialect::CursorAcp];
const CLAUDE: &[Dialect] = &[Dialect::Claude];

/// An entry that is not placed.
const fn e(
    dialects: &'static [Dialect],
    name: &'static str,
    usage: &'static str,
    meaning: &'static str,
    example: &'static str,
) -> Described {
    Described {
        name,
        dialects,
        usage,
        meaning,
        example,
        places: &[],
        default: None,
        preset: false,
        misbehaving: None,
    }
}

/// `after=N|at=TYPE`.
const LINE: &[Key] = &[Key::After, Key::At];
/// `after=N|at=TYPE, byte=K`.
const CUT: &[Key] = &[Key::After, Key::At, Key::Byte];
/// Server mode's `at=KIND|after=N`.
const MESSAGE: &[Key] = &[Key::At, Key::After];
/// Server mode's `at=KIND|after=N, byte=K`.
const MESSAGE_CUT: &[Key] = &[Key::At, Key::After, Key::Byte];
/// Server mode's `method=M`.
const REQUEST: &[Key] = &[Key::Method];
/// Server mode's `method=M|at=KIND|after=N`.
const ANYWHERE: &[Key] = &[Key::Method, Key::At, Key::After];

/// The update kind server mode's faults act on by default (an ACP `sessionUpdate`).
const FIRST_CHUNK: Site = Site::At(updates::AGENT_MESSAGE_CHUNK);

/// Every fault and preset of every dialect, each dialect's in documentation order.
pub const CATALOGUE: &[Described] = &[
    // Print mode (`cursor-agent -p`).
    e(
        PRINT,
        "eof",
        "after=N|at=TYPE, byte=K",
        "stdout stops there; before the result, the run ends as the real CLI fails: a stderr line, exit 1 (default at=result)",
        "eof:after=3,byte=10",
    )
    .placed(CUT, Some(Site::At(event_type::RESULT))),
    e(
        PRINT,
        "stderr",
        "text=T, after=N|at=TYPE",
        "writes T on stderr (default at the end)",
        "stderr:text=\"Error: boom\"",
    )
    .placed(LINE, Some(Site::End)),
    e(
        PRINT,
        "stderr-flood",
        "bytes=N, after=N|at=TYPE",
        "writes N bytes on stderr before going on (default 1 MiB, first)",
        "stderr-flood:bytes=1048576",
    )
    .placed(LINE, Some(Site::After(0))),
    e(
        PRINT,
        "exit",
        "code=N",
        "the process exits with code N, however the run went (no stderr line is added)",
        "exit:code=2",
    )
    .misbehaving("`exit:code=0` on a run without a result (after `eof`, `drop:type=result`, `close-stdout`, a preset): exit 0 and no result"),
    e(
        PRINT,
        "signal",
        "name=KILL|TERM|SEGV|ABRT|..., after=N|at=TYPE, byte=K",
        "the process dies by that signal there (default KILL at=result)",
        "signal:name=SEGV,after=4",
    )
    .placed(CUT, Some(Site::At(event_type::RESULT))),
    e(
        PRINT,
        "stall",
        "ms=N, after=N|at=TYPE, byte=K",
        "writes nothing for N ms, or forever; SIGTERM/SIGINT end it (default at=result)",
        "stall:ms=5000,at=tool_call",
    )
    .placed(CUT, Some(Site::At(event_type::RESULT))),
    e(
        PRINT,
        "close-stdout",
        "after=N|at=TYPE, byte=K",
        "closes stdout there and goes on without it; a result not yet written makes the run fail: a stderr line, exit 1 (default at=result)",
        "close-stdout:at=result;stall",
    )
    .placed(CUT, Some(Site::At(event_type::RESULT))),
    e(
        PRINT,
        "malformed",
        "after=N|at=TYPE",
        "a line that is not valid JSON: the start of the next event (default after=1)",
        "malformed:after=2",
    )
    .placed(LINE, Some(Site::After(1))),
    e(
        PRINT,
        "noise",
        "text=T, after=N|at=TYPE",
        "a line that is not JSON (default `[debug] mock-agent noise`, after=1)",
        "noise:text=\"[debug] warming up\"",
    )
    .placed(LINE, Some(Site::After(1))),
    e(
        PRINT,
        "drop",
        "type=T",
        "leaves out every event of type T (`result`: the run fails, a stderr line, exit 1)",
        "drop:type=result",
    ),
    e(
        PRINT,
        "duplicate",
        "after=N|at=TYPE",
        "writes an event twice (default at=result)",
        "duplicate:at=tool_call",
    )
    .placed(LINE, Some(Site::At(event_type::RESULT))),
    e(
        PRINT,
        "reorder",
        "",
        "parallel tool calls complete in the other order",
        "reorder",
    ),
    e(
        PRINT,
        "unknown-event",
        "after=N|at=TYPE",
        "an event of a type no consumer knows (default after=1)",
        "unknown-event:at=result",
    )
    .placed(LINE, Some(Site::After(1))),
    e(
        PRINT,
        "unknown-field",
        "after=N|at=TYPE",
        "a field no consumer knows (default on every event)",
        "unknown-field",
    )
    .placed(LINE, Some(Site::Every)),
    e(
        PRINT,
        "chunk",
        "size=N | random",
        "stdout writes split at N bytes or at seeded offsets, across lines",
        "chunk:size=7",
    ),
    e(
        PRINT,
        "coalesce",
        "",
        "many lines in one write, even with timing",
        "coalesce",
    ),
    e(
        PRINT,
        "huge",
        "bytes=N, after=N|at=TYPE",
        "one event grows to N bytes, still valid JSON (default 1 MiB + 1, at=result)",
        "huge:bytes=70000",
    )
    .placed(LINE, Some(Site::At(event_type::RESULT))),
    e(PRINT, "crlf", "", "every stdout line ends with \\r\\n", "crlf"),
    e(
        PRINT,
        "invalid-utf8",
        "after=N|at=TYPE",
        "bytes that are not UTF-8 inside an event's text (default at=assistant)",
        "invalid-utf8",
    )
    .placed(LINE, Some(Site::At(event_type::ASSISTANT))),
    e(
        PRINT,
        "auth-required",
        "",
        "preset: nothing on stdout, the login message on stderr, exit 1",
        "auth-required",
    )
    .preset(),
    e(
        PRINT,
        "trust-required",
        "",
        "preset: nothing on stdout, Workspace Trust Required on stderr, exit 1",
        "trust-required",
    )
    .preset(),
    e(
        PRINT,
        "quota",
        "",
        "preset: init and user, then out of usage on stderr, exit 1",
        "quota",
    )
    .preset(),
    e(
        PRINT,
        "unknown-model",
        "model=M",
        "preset: nothing on stdout, Cannot use this model on stderr, exit 1",
        "unknown-model:model=gpt-9",
    )
    .preset(),
    e(
        PRINT,
        "session-in-use",
        "",
        "preset: nothing on stdout, Session ID is already in use on stderr, exit 1",
        "session-in-use",
    )
    .preset(),
    e(
        PRINT,
        "connection-lost",
        "",
        "preset: init and user, reconnecting and retry events, RetriableError on stderr, exit 1",
        "connection-lost",
    )
    .preset(),
    // Server mode (`cursor-agent acp`).
    e(
        ACP,
        "error",
        "method=M, code=C, message=T, data=JSON",
        "the request M is answered with a JSON-RPC error (default -32603)",
        "error:method=session/new,code=-32603,message=\"Failed to initialize session services\"",
    )
    .placed(REQUEST, None),
    e(
        ACP,
        "no-response",
        "method=M",
        "the request M is never answered",
        "no-response:method=authenticate",
    )
    .placed(REQUEST, None),
    e(
        ACP,
        "late",
        "method=M, ms=MS",
        "the answer to M comes MS later",
        "late:method=session/new,ms=3000",
    )
    .placed(REQUEST, None),
    e(
        ACP,
        "stop-reason",
        "reason=R",
        "a turn that ends with end_turn ends with R",
        "stop-reason:reason=refusal",
    ),
    e(
        ACP,
        "crash",
        "at=initialize|asking|KIND|METHOD, method=M, after=N, code=C|signal=S, text=T",
        "the process dies there (default exit 1), after T on stderr when given",
        "crash:at=asking,signal=KILL",
    )
    .placed(ANYWHERE, Some(Site::Method(methods::SESSION_PROMPT))),
    e(
        ACP,
        "eof",
        "at=KIND|after=N, byte=K",
        "stdout stops in the middle of that message and the process exits 1",
        "eof:at=agent_message_chunk,byte=20",
    )
    .placed(MESSAGE_CUT, Some(FIRST_CHUNK)),
    e(
        ACP,
        "malformed",
        "at=KIND|after=N",
        "a line that is not JSON on stdout before that message",
        "malformed:after=2",
    )
    .placed(MESSAGE, Some(Site::After(1))),
    e(
        ACP,
        "stderr",
        "text=T, at=KIND|after=N",
        "T on stderr before that message (default at the start)",
        "stderr:text=\"[warn] slow\",at=tool_call",
    )
    .placed(MESSAGE, Some(Site::After(0))),
    e(
        ACP,
        "stderr-flood",
        "bytes=N",
        "N bytes on stderr at the start (default 1 MiB)",
        "stderr-flood:bytes=200000",
    ),
    e(
        ACP,
        "drop",
        "kind=KIND",
        "every update of that kind is dropped",
        "drop:kind=tool_call_update",
    ),
    e(
        ACP,
        "duplicate",
        "at=KIND|after=N",
        "that message is sent twice",
        "duplicate:at=tool_call",
    )
    .placed(MESSAGE, Some(FIRST_CHUNK)),
    e(
        ACP,
        "reorder",
        "",
        "each two updates in a row go out in the other order",
        "reorder",
    ),
    e(
        ACP,
        "unknown-update",
        "at=KIND|after=N",
        "an update of a kind no client knows before that message",
        "unknown-update:at=agent_message_chunk",
    )
    .placed(MESSAGE, Some(FIRST_CHUNK)),
    e(
        ACP,
        "unknown-field",
        "",
        "every update carries a field no client knows",
        "unknown-field",
    ),
    e(
        ACP,
        "early-update",
        "",
        "a new session's first update comes before the session/new answer",
        "early-update",
    ),
    e(
        ACP,
        "huge",
        "bytes=N, at=KIND|after=N",
        "an agent_message_chunk of N bytes before that message (default 1 MiB)",
        "huge:bytes=2000000,at=agent_message_chunk",
    )
    .placed(MESSAGE, Some(FIRST_CHUNK)),
    e(
        ACP,
        "chunk",
        "size=N|random",
        "stdout written in pieces of N bytes (or random sizes)",
        "chunk:size=7",
    ),
    e(ACP, "coalesce", "", "several messages in one write", "coalesce"),
    e(
        ACP,
        "unoffered-tools",
        "",
        "the agent reads, writes files and runs commands through a client whose initialize did not offer them (fs/*, terminal/* requests it must not send)",
        "unoffered-tools",
    ),
    e(
        ACP,
        "auth-required",
        "",
        "preset: session methods answer -32000 Authentication required",
        "auth-required",
    )
    .preset(),
    e(
        ACP,
        "authenticate-hangs",
        "",
        "preset: authenticate is never answered",
        "authenticate-hangs",
    )
    .preset(),
    e(
        ACP,
        "session-services-failed",
        "",
        "preset: session/new answers -32603 Failed to initialize session services",
        "session-services-failed",
    )
    .preset(),
    e(
        ACP,
        "crash-on-initialize",
        "",
        "preset: the process dies on initialize, a message on stderr",
        "crash-on-initialize",
    )
    .preset(),
    e(
        ACP,
        "crash-while-asking",
        "",
        "preset: the process dies while its permission request waits",
        "crash-while-asking",
    )
    .preset(),
    // Named after the stop reason.
    e(
        ACP,
        stop_reasons::REFUSAL,
        "",
        "preset: the turn ends with stopReason refusal",
        stop_reasons::REFUSAL,
    )
    .preset(),
    e(
        ACP,
        "max-tokens",
        "",
        "preset: the turn ends with stopReason max_tokens",
        "max-tokens",
    )
    .preset(),
    // Claude Code (`claude`, stream-json both ways).
    e(
        CLAUDE,
        "exit",
        "code=C, after=N|at=TYPE",
        "the process exits with code C there, without a result (default 1, at=result)",
        "exit:code=1,at=can_use_tool",
    )
    .placed(LINE, Some(Site::At(claude_types::RESULT)))
    .misbehaving("`exit:code=0`: the process ends without a result and exit 0"),
    e(
        CLAUDE,
        "signal",
        "name=KILL|TERM|SEGV|ABRT|..., after=N|at=TYPE, byte=K",
        "the process dies by that signal there (default KILL at=result)",
        "signal:name=KILL,at=assistant",
    )
    .placed(CUT, Some(Site::At(claude_types::RESULT))),
    e(
        CLAUDE,
        "eof",
        "after=N|at=TYPE, byte=K",
        "stdout stops in the middle of that line and the process exits 1 (default at=result)",
        "eof:at=result,byte=40",
    )
    .placed(CUT, Some(Site::At(claude_types::RESULT))),
    e(
        CLAUDE,
        "stall",
        "ms=N, after=N|at=TYPE",
        "writes nothing for N ms, or forever; SIGTERM/SIGINT end it (default at=result)",
        "stall:at=result",
    )
    .placed(LINE, Some(Site::At(claude_types::RESULT))),
    e(
        CLAUDE,
        "malformed",
        "after=N|at=TYPE",
        "a line that starts as JSON and is not (the SDKs' CLIJSONDecodeError; default after=1)",
        "malformed:at=assistant",
    )
    .placed(LINE, Some(Site::After(1))),
    e(
        CLAUDE,
        "unknown",
        "after=N|at=TYPE",
        "a line of a type no SDK knows (`forecast_event`) before that line (default after=1)",
        "unknown:at=result",
    )
    .placed(LINE, Some(Site::After(1))),
    e(
        CLAUDE,
        "huge",
        "bytes=N, after=N|at=TYPE",
        "an assistant text line of N bytes (default 1 MiB + 1, past the Python SDK's buffer; at=result)",
        "huge:bytes=2000000",
    )
    .placed(LINE, Some(Site::At(claude_types::RESULT))),
    e(
        CLAUDE,
        "missing",
        "field=F",
        "leaves the field F out of every line that has it (`num_turns`, `model`, `session_id`)",
        "missing:field=num_turns",
    ),
    e(
        CLAUDE,
        "stderr",
        "text=T, after=N|at=TYPE",
        "writes T on stderr before that line (default at the start)",
        "stderr:text=\"[warn] slow\"",
    )
    .placed(LINE, Some(Site::After(0))),
    e(
        CLAUDE,
        "no-response",
        "method=M",
        "the client's control request M (`initialize`, `set_model`, ...) is never answered",
        "no-response:method=initialize",
    )
    .placed(REQUEST, Some(Site::Method(claude_control::INITIALIZE))),
    e(
        CLAUDE,
        "error",
        "method=M, message=T",
        "the client's control request M is answered with an error",
        "error:method=initialize,message=\"Not ready\"",
    )
    .placed(REQUEST, Some(Site::Method(claude_control::INITIALIZE))),
    e(
        CLAUDE,
        "not-logged-in",
        "",
        "preset: a synthetic assistant message `Not logged in · Please run /login`, an error result (is_error), exit 1",
        "not-logged-in",
    )
    .preset(),
    e(
        CLAUDE,
        "invalid-api-key",
        "",
        "preset: the API answers 401: `Invalid API key · Fix external API key`, an error result, exit 1",
        "invalid-api-key",
    )
    .preset(),
    e(
        CLAUDE,
        "max-turns",
        "",
        "preset: the turn stops after its first tool call with `error_max_turns`, exit 1",
        "max-turns",
    )
    .preset(),
    e(
        CLAUDE,
        "error-result",
        "text=T",
        "preset: the turn ends with an `error_during_execution` result whose errors are [T], exit 1",
        "error-result:text=\"Tool execution failed\"",
    )
    .preset(),
];

/// The entries of `dialect`, in documentation order.
pub fn catalogue_of(dialect: Dialect) -> impl Iterator<Item = &'static Described> {
    CATALOGUE.iter().filter(move |e| e.applies_to(dialect))
}

/// The entry of `dialect` named `name`.
pub fn entry(dialect: Dialect, name: &str) -> Option<&'static Described> {
    catalogue_of(dialect).find(|e| e.name == name)
}

/// The names of `dialect`'s faults and presets, `, `-joined.
pub(crate) fn names(dialect: Dialect) -> String {
    catalogue_of(dialect)
        .map(|e| e.name)
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_dialect_names_a_fault_once() {
        for dialect in Dialect::ALL {
            let mut names: Vec<_> = catalogue_of(*dialect).map(|e| e.name).collect();
            let count = names.len();
            names.sort_unstable();
            names.dedup();
            assert_eq!(names.len(), count, "{dialect}");
        }
    }

    #[test]
    fn a_fault_placed_by_default_is_placed_by_a_key() {
        for entry in CATALOGUE {
            assert!(
                entry.default.is_none() || !entry.places.is_empty(),
                "{}",
                entry.name
            );
            assert!(!entry.dialects.is_empty(), "{}", entry.name);
        }
    }
}
