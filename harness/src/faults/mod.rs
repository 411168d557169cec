//! Faults: every way an agent's output can go wrong, placed exactly.
//!
//! A fault list is given as `MOCK_AGENT_FAULTS` (for the program under test) or
//! repeated `--fault` (for `mock-agent replay`): `;`-separated items of
//! `name[:key=value[,key=value...]]` (see [`parse`]). Faults compose in the order
//! given, each acting on what the ones before it produced.
//!
//! # Placement
//!
//! - `after=N`: after the N-th stdout event (0: before the first);
//! - `at=TYPE`: before the first event of that type (`at=result`, `at=tool_call`);
//!   `at=end`: at the end;
//! - `byte=K` (for the cutting faults `eof`, `signal`, `stall`, `close-stdout`): after
//!   the first K bytes of that line.
//!
//! A placement that is never reached (`after=50` on a shorter stream, `at=result` on
//! a failed run) acts at the end. Each fault has a default placement, listed by
//! [`catalogue`].
//!
//! # What the faults act on
//!
//! Faults change the session, so they act on the `stream-json` events before the
//! output format is rendered: in `json` format a run that a fault breaks prints no
//! JSON, its stderr message, and exits non-zero, as the documentation defines a
//! failure. Only the faults that change how bytes reach the consumer (`malformed`,
//! `noise`, `crlf`, `invalid-utf8`, `chunk`, `coalesce`) act on the rendered lines.

mod apply;
mod spec;

use std::time::Duration;

pub use apply::{apply_events, apply_output, Applied};
pub use spec::MAX_BYTES;
pub use spec::{parse, FROM_ENV, FROM_FLAG};
pub(crate) use spec::{split_items, Args, Item};

use crate::frames::{Chunking, Signal};

/// Where a fault acts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Anchor {
    /// Before the stdout event with this 0-based index (after the N-th).
    After(usize),
    /// Before the first stdout event of this type.
    At(String),
    /// At the end, before the process ends.
    End,
    /// On every event (`unknown-field` without a placement).
    Every,
}

/// An anchor and, for cutting faults, a byte offset inside the line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placement {
    /// Which line.
    pub anchor: Anchor,
    /// After how many bytes of it.
    pub byte: Option<usize>,
}

/// One fault.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Fault {
    /// Stdout stops at the placement and the process ends.
    Eof {
        /// Where.
        at: Placement,
    },
    /// A message on stderr.
    Stderr {
        /// The text; `{session_id}` is replaced by the session's id.
        text: String,
        /// Where.
        at: Placement,
    },
    /// Many bytes on stderr, before going on.
    StderrFlood {
        /// How many.
        bytes: usize,
        /// Where.
        at: Placement,
    },
    /// The process ends with this exit code.
    Exit {
        /// The code.
        code: i32,
    },
    /// The process dies by this signal at the placement.
    Signal {
        /// Which signal.
        signal: Signal,
        /// Where.
        at: Placement,
    },
    /// Nothing more is written for a while, or forever.
    Stall {
        /// How long; `None` is forever (until a signal).
        duration: Option<Duration>,
        /// Where.
        at: Placement,
    },
    /// Stdout is closed at the placement; the process goes on.
    CloseStdout {
        /// Where.
        at: Placement,
    },
    /// A line that is not valid JSON: the start of the next event.
    Malformed {
        /// Where.
        at: Placement,
    },
    /// A line that is not JSON.
    Noise {
        /// The text.
        text: String,
        /// Where.
        at: Placement,
    },
    /// Every event of this type is left out.
    Drop {
        /// The event type.
        kind: String,
    },
    /// An event is written twice.
    Duplicate {
        /// Which.
        at: Placement,
    },
    /// Parallel tool calls complete in the other order.
    Reorder,
    /// An event of a type no consumer knows.
    UnknownEvent {
        /// Where.
        at: Placement,
    },
    /// A field no consumer knows, on one event or every event.
    UnknownField {
        /// Which.
        at: Placement,
    },
    /// Stdout writes split across line boundaries.
    Chunk(Chunking),
    /// Many lines in one write.
    Coalesce,
    /// One event grows to this many bytes, still valid JSON.
    Huge {
        /// The line's length, without its newline.
        bytes: usize,
        /// Which event.
        at: Placement,
    },
    /// Lines end with `\r\n`.
    Crlf,
    /// Bytes that are not UTF-8 inside an event's text.
    InvalidUtf8 {
        /// Which event.
        at: Placement,
    },
    /// Stdout lines written at the placement (the presets' events). `{session_id}` and
    /// `{timestamp_ms}` are filled in from the stream.
    Insert {
        /// The lines.
        lines: Vec<String>,
        /// Where.
        at: Placement,
    },
}

impl Fault {
    /// The fault's name in the grammar (presets appear as the faults they stand for).
    pub fn name(&self) -> &'static str {
        match self {
            Fault::Eof { .. } => "eof",
            Fault::Stderr { .. } => "stderr",
            Fault::StderrFlood { .. } => "stderr-flood",
            Fault::Exit { .. } => "exit",
            Fault::Signal { .. } => "signal",
            Fault::Stall { .. } => "stall",
            Fault::CloseStdout { .. } => "close-stdout",
            Fault::Malformed { .. } => "malformed",
            Fault::Noise { .. } => "noise",
            Fault::Drop { .. } => "drop",
            Fault::Duplicate { .. } => "duplicate",
            Fault::Reorder => "reorder",
            Fault::UnknownEvent { .. } => "unknown-event",
            Fault::UnknownField { .. } => "unknown-field",
            Fault::Chunk(_) => "chunk",
            Fault::Coalesce => "coalesce",
            Fault::Huge { .. } => "huge",
            Fault::Crlf => "crlf",
            Fault::InvalidUtf8 { .. } => "invalid-utf8",
            Fault::Insert { .. } => "insert",
        }
    }

    /// Whether the fault acts on the rendered output lines rather than the events.
    pub fn acts_on_output(&self) -> bool {
        matches!(
            self,
            Fault::Malformed { .. } | Fault::Noise { .. } | Fault::Crlf | Fault::InvalidUtf8 { .. }
        )
    }
}

/// The real CLI's failures, reproduced as shared/REAL-CLI.md describes them: stdout so
/// far, the message on stderr, exit 1, no result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Preset {
    /// Not logged in.
    AuthRequired,
    /// The workspace is not trusted.
    TrustRequired,
    /// Out of usage, after `init` and `user`.
    Quota,
    /// `--model` names a model the account cannot use.
    UnknownModel,
    /// `--resume` names a session in use.
    SessionInUse,
    /// The connection drops after `init` and `user`; reconnect and retry events.
    ConnectionLost,
}

/// The message of [`Preset::AuthRequired`].
pub const AUTH_REQUIRED: &str = "Authentication required. Please run 'cursor-agent login' first, or set CURSOR_API_KEY environment variable.";

impl Preset {
    const ALL: [(Preset, &'static str); 6] = [
        (Preset::AuthRequired, "auth-required"),
        (Preset::TrustRequired, "trust-required"),
        (Preset::Quota, "quota"),
        (Preset::UnknownModel, "unknown-model"),
        (Preset::SessionInUse, "session-in-use"),
        (Preset::ConnectionLost, "connection-lost"),
    ];

    /// The preset with this name.
    pub fn from_name(name: &str) -> Option<Preset> {
        Self::ALL.iter().find(|(_, n)| *n == name).map(|(p, _)| *p)
    }

    /// The faults the preset stands for. `model` names the model of `unknown-model`.
    pub fn faults(self, model: Option<&str>) -> Vec<Fault> {
        let at = |anchor| Placement { anchor, byte: None };
        let stdout_until = |anchor| Fault::Eof { at: at(anchor) };
        let message = |text: String| Fault::Stderr {
            text,
            at: at(Anchor::End),
        };
        let fail = Fault::Exit { code: 1 };
        // `init` and `user` are the first two events.
        let after_user = Anchor::After(2);
        match self {
            Preset::AuthRequired => vec![stdout_until(Anchor::After(0)), message(AUTH_REQUIRED.into()), fail],
            Preset::TrustRequired => vec![
                stdout_until(Anchor::After(0)),
                message(
                    "⚠ Workspace Trust Required\n\nThe agent can read, edit and run commands in this directory.\n\
                     Pass --trust, --yolo, or -f if you trust this directory"
                        .into(),
                ),
                fail,
            ],
            Preset::Quota => vec![
                stdout_until(after_user),
                message(
                    "ActionRequiredError: Increase limits for faster responses You're out of usage. \
                     Switch to Auto, or ask your admin to increase your limits."
                        .into(),
                ),
                fail,
            ],
            Preset::UnknownModel => vec![
                stdout_until(Anchor::After(0)),
                message(format!(
                    "Cannot use this model: {}. Available models: {}",
                    model.unwrap_or("gpt-9"),
                    crate::models::ids().collect::<Vec<_>>().join(", ")
                )),
                fail,
            ],
            Preset::SessionInUse => vec![
                stdout_until(Anchor::After(0)),
                message("Error: Session ID \"{session_id}\" is already in use.".into()),
                fail,
            ],
            Preset::ConnectionLost => vec![
                stdout_until(after_user),
                Fault::Insert {
                    lines: vec![
                        r#"{"type":"connection","subtype":"reconnecting","session_id":"{session_id}","timestamp_ms":{timestamp_ms},"attempt":1}"#.into(),
                        r#"{"type":"retry","subtype":"starting","session_id":"{session_id}","timestamp_ms":{timestamp_ms},"attempt":1,"is_resume":false}"#.into(),
                    ],
                    at: at(Anchor::End),
                },
                message("RetriableError: [unavailable] upstream connect error or disconnect/reset before headers".into()),
                fail,
            ],
        }
    }
}

/// One entry of the fault catalogue: what `mock-agent faults` prints.
#[derive(Debug, Clone, Copy)]
pub struct Described {
    /// The fault's name.
    pub name: &'static str,
    /// Its keys.
    pub usage: &'static str,
    /// What it does, in one line.
    pub meaning: &'static str,
    /// An example.
    pub example: &'static str,
}

/// One entry of a catalogue (print mode's, server mode's).
pub(crate) const fn described(
    name: &'static str,
    usage: &'static str,
    meaning: &'static str,
    example: &'static str,
) -> Described {
    Described {
        name,
        usage,
        meaning,
        example,
    }
}

/// Every fault and preset, in documentation order.
pub fn catalogue() -> &'static [Described] {
    use described as e;
    const CATALOGUE: &[Described] = &[
        e(
            "eof",
            "after=N|at=TYPE, byte=K",
            "stdout stops there and the process ends (default at=result)",
            "eof:after=3,byte=10",
        ),
        e(
            "stderr",
            "text=T, after=N|at=TYPE",
            "writes T on stderr (default at the end)",
            "stderr:text=\"Error: boom\"",
        ),
        e(
            "stderr-flood",
            "bytes=N, after=N|at=TYPE",
            "writes N bytes on stderr before going on (default 1 MiB, first)",
            "stderr-flood:bytes=1048576",
        ),
        e("exit", "code=N", "the process exits with code N", "exit:code=2"),
        e(
            "signal",
            "name=KILL|TERM|SEGV|ABRT|..., after=N|at=TYPE, byte=K",
            "the process dies by that signal there (default KILL at=result)",
            "signal:name=SEGV,after=4",
        ),
        e(
            "stall",
            "ms=N, after=N|at=TYPE, byte=K",
            "writes nothing for N ms, or forever; SIGTERM/SIGINT end it (default at=result)",
            "stall:ms=5000,at=tool_call",
        ),
        e(
            "close-stdout",
            "after=N|at=TYPE, byte=K",
            "closes stdout there and goes on without it (default at=result)",
            "close-stdout:at=result;stall",
        ),
        e(
            "malformed",
            "after=N|at=TYPE",
            "a line that is not valid JSON: the start of the next event (default after=1)",
            "malformed:after=2",
        ),
        e(
            "noise",
            "text=T, after=N|at=TYPE",
            "a line that is not JSON (default `[debug] mock-agent noise`, after=1)",
            "noise:text=\"[debug] warming up\"",
        ),
        e(
            "drop",
            "type=T",
            "leaves out every event of type T",
            "drop:type=result",
        ),
        e(
            "duplicate",
            "after=N|at=TYPE",
            "writes an event twice (default at=result)",
            "duplicate:at=tool_call",
        ),
        e(
            "reorder",
            "",
            "parallel tool calls complete in the other order",
            "reorder",
        ),
        e(
            "unknown-event",
            "after=N|at=TYPE",
            "an event of a type no consumer knows (default after=1)",
            "unknown-event:at=result",
        ),
        e(
            "unknown-field",
            "after=N|at=TYPE",
            "a field no consumer knows (default on every event)",
            "unknown-field",
        ),
        e(
            "chunk",
            "size=N | random",
            "stdout writes split at N bytes or at seeded offsets, across lines",
            "chunk:size=7",
        ),
        e(
            "coalesce",
            "",
            "many lines in one write, even with timing",
            "coalesce",
        ),
        e(
            "huge",
            "bytes=N, after=N|at=TYPE",
            "one event grows to N bytes, still valid JSON (default 1 MiB + 1, at=result)",
            "huge:bytes=70000",
        ),
        e("crlf", "", "every stdout line ends with \\r\\n", "crlf"),
        e(
            "invalid-utf8",
            "after=N|at=TYPE",
            "bytes that are not UTF-8 inside an event's text (default at=assistant)",
            "invalid-utf8",
        ),
        e(
            "auth-required",
            "",
            "preset: nothing on stdout, the login message on stderr, exit 1",
            "auth-required",
        ),
        e(
            "trust-required",
            "",
            "preset: nothing on stdout, Workspace Trust Required on stderr, exit 1",
            "trust-required",
        ),
        e(
            "quota",
            "",
            "preset: init and user, then out of usage on stderr, exit 1",
            "quota",
        ),
        e(
            "unknown-model",
            "model=M",
            "preset: nothing on stdout, Cannot use this model on stderr, exit 1",
            "unknown-model:model=gpt-9",
        ),
        e(
            "session-in-use",
            "",
            "preset: nothing on stdout, Session ID is already in use on stderr, exit 1",
            "session-in-use",
        ),
        e(
            "connection-lost",
            "",
            "preset: init and user, reconnecting and retry events, RetriableError on stderr, exit 1",
            "connection-lost",
        ),
    ];
    CATALOGUE
}
