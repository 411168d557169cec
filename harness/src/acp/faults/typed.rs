//! Server mode's faults (`cursor-agent acp`), in the grammar of print mode's, placed
//! by method, update kind or count:
//!
//! - `method=M` (for `crash`, `error`, `no-response`, `late`): on the agent's answer to
//!   the client's request `M` (`method=session/new`);
//! - `at=KIND`: before the first agent message that is a `session/update` of that
//!   kind (`at=tool_call`), or a request of that method
//!   (`at=session/request_permission`); `at=asking`: while the agent waits for the
//!   client's answer to its request;
//! - `after=N`: after the N-th message the agent sends (0: before the first);
//! - `byte=K` (for `eof`): after the first K bytes of that message.
//!
//! The ACP names here (methods, update kinds, stop reasons, error codes) are the
//! protocol's, as its wire model ([`crate::acp::wire`]) says them; the
//! faults are applied by [`crate::acp::faults::Injector`].

use std::time::Duration;

use serde_json::Value;

use super::super::rpc::codes;
use super::super::wire::{methods, stop_reasons, updates};
use super::catalogue::CATALOGUE;
use crate::error::Diagnostic;
use crate::faults::catalogue::Described;
use crate::faults::spec::{Args, Typed, Words, Written};
use crate::faults::MAX_BYTES;
use crate::frames::{Chunking, Exit, Signal};

/// Where a fault acts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    /// On the answer to the client's request of this method.
    Method(String),
    /// Before the first agent message of this update kind or request method.
    At(String),
    /// After this many agent messages.
    After(u64),
    /// While the agent waits for the client's answer to its request.
    Asking,
}

/// One fault of server mode.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum AcpFault {
    /// The request is answered with a JSON-RPC error.
    Error {
        /// The request's method.
        method: String,
        /// The error code.
        code: i64,
        /// The error message.
        message: String,
        /// The error data, when given.
        data: Option<Value>,
    },
    /// The request is never answered (what else the agent sends still comes).
    NoResponse {
        /// The request's method.
        method: String,
    },
    /// The answer to the request comes this much later.
    Late {
        /// The request's method.
        method: String,
        /// How much later.
        delay: Duration,
    },
    /// A turn that ends with `end_turn` ends with this stop reason instead.
    StopReason {
        /// `refusal`, `max_tokens`, `max_turn_requests`, `cancelled`.
        reason: String,
    },
    /// The process dies there, after a stderr line.
    Crash {
        /// Where.
        at: Place,
        /// How.
        exit: Exit,
        /// What it says on stderr first.
        text: Option<String>,
    },
    /// Stdout stops in the middle of a message and the process exits 1.
    Eof {
        /// Where.
        at: Place,
        /// After how many bytes of that message (default: half of it).
        byte: Option<usize>,
    },
    /// A line that is not JSON, before the message.
    Malformed {
        /// Where.
        at: Place,
    },
    /// A line on stderr.
    Stderr {
        /// The text.
        text: String,
        /// Where.
        at: Place,
    },
    /// This many bytes on stderr, at the start.
    StderrFlood {
        /// How many.
        bytes: usize,
    },
    /// Every update of this kind is dropped.
    Drop {
        /// The `sessionUpdate` kind.
        kind: String,
    },
    /// The message is sent twice.
    Duplicate {
        /// Where.
        at: Place,
    },
    /// Each two updates in a row go out in the other order.
    Reorder,
    /// An update of a kind no client knows, before the message.
    UnknownUpdate {
        /// Where.
        at: Place,
    },
    /// Every update carries a field no client knows.
    UnknownField,
    /// The first update of a new session comes before the `session/new` answer.
    EarlyUpdate,
    /// An `agent_message_chunk` of this many bytes, before the message.
    Huge {
        /// How many bytes of text.
        bytes: usize,
        /// Where.
        at: Place,
    },
    /// Stdout writes split (`chunk:size=N`, `chunk:random`).
    Chunk(Chunking),
    /// Several messages in one write.
    Coalesce,
    /// The agent asks the client to read and write files and run commands (`fs/*`,
    /// `terminal/*`) although its `initialize` did not offer them: as if it had offered
    /// every one.
    UnofferedTools,
}

impl AcpFault {
    /// The fault's name, as in `mock-agent faults`.
    pub fn name(&self) -> &'static str {
        match self {
            AcpFault::Error { .. } => "error",
            AcpFault::NoResponse { .. } => "no-response",
            AcpFault::Late { .. } => "late",
            AcpFault::StopReason { .. } => "stop-reason",
            AcpFault::Crash { .. } => "crash",
            AcpFault::Eof { .. } => "eof",
            AcpFault::Malformed { .. } => "malformed",
            AcpFault::Stderr { .. } => "stderr",
            AcpFault::StderrFlood { .. } => "stderr-flood",
            AcpFault::Drop { .. } => "drop",
            AcpFault::Duplicate { .. } => "duplicate",
            AcpFault::Reorder => "reorder",
            AcpFault::UnknownUpdate { .. } => "unknown-update",
            AcpFault::UnknownField => "unknown-field",
            AcpFault::EarlyUpdate => "early-update",
            AcpFault::Huge { .. } => "huge",
            AcpFault::Chunk(_) => "chunk",
            AcpFault::Coalesce => "coalesce",
            AcpFault::UnofferedTools => "unoffered-tools",
        }
    }

    /// Where the fault acts, for those placed on one message.
    pub fn place(&self) -> Option<&Place> {
        match self {
            AcpFault::Crash { at, .. }
            | AcpFault::Eof { at, .. }
            | AcpFault::Malformed { at }
            | AcpFault::Stderr { at, .. }
            | AcpFault::Duplicate { at }
            | AcpFault::UnknownUpdate { at }
            | AcpFault::Huge { at, .. } => Some(at),
            _ => None,
        }
    }
}

/// The stop reasons of ACP ([`stop_reasons::ALL`]).
pub const STOP_REASONS: &[&str] = stop_reasons::ALL;

crate::faults::spec::typed! {
    AcpFault: "server mode", CATALOGUE, build, Words {
        after: "a number of agent messages", byte: "a byte offset inside the message",
        one_of: "give one of `method=M`, `at=KIND`, `after=N`", empty_at: None,
        no_method: Some("this fault acts on an agent message: place it with `at=KIND` or `after=N` \
            (`method=M` places crash, error, no-response and late)"),
    };
    parser "server mode's", listed "server mode: the acp section"
}

impl std::fmt::Display for Place {
    /// The place in the grammar: `method=M`, `at=KIND`, `at=asking`, `after=N`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Place::Method(m) => write!(f, "method={m}"),
            Place::At(at) => write!(f, "at={at}"),
            Place::After(n) => write!(f, "after={n}"),
            Place::Asking => f.write_str("at=asking"),
        }
    }
}

impl Place {
    fn from_written(written: Written) -> Place {
        match written {
            Written::Method(m) => Place::Method(m),
            Written::At(at) if at == "asking" => Place::Asking,
            Written::At(at) if at == methods::INITIALIZE => Place::Method(at),
            Written::At(at) => Place::At(at),
            Written::After(n) => Place::After(n),
        }
    }
}

/// Where a server-mode fault acts: placed, or at its entry's default.
fn place(entry: &Described, args: &mut Args<'_>) -> Result<Place, Diagnostic> {
    Ok(match args.site(entry, &AcpFault::WORDS)? {
        Some(written) => Place::from_written(written),
        None => Place::from_written(entry.default.and_then(Written::of).unwrap_or(Written::After(0))),
    })
}

fn build(entry: &Described, args: &mut Args<'_>) -> Result<Vec<AcpFault>, Diagnostic> {
    let column = args.column();
    let faults = match entry.name {
        "error" => vec![AcpFault::Error {
            method: method(args)?,
            code: args
                .number::<i64>("code", "a JSON-RPC error code")?
                .unwrap_or(codes::INTERNAL_ERROR),
            message: args.text("message").unwrap_or_else(|| ERROR_MESSAGE.to_owned()),
            data: match args.get("data") {
                None => None,
                Some((text, column)) => Some(
                    serde_json::from_str(text)
                        .map_err(|e| args.err(column, format!("`data` is not JSON: {e}")))?,
                ),
            },
        }],
        "no-response" => vec![AcpFault::NoResponse {
            method: method(args)?,
        }],
        "late" => vec![AcpFault::Late {
            method: method(args)?,
            delay: Duration::from_millis(args.number::<u64>("ms", "milliseconds")?.unwrap_or(2_000)),
        }],
        "stop-reason" => {
            let (reason, column) = args
                .get("reason")
                .ok_or_else(|| args.err(column, "`stop-reason` needs `reason=...`".into()))?;
            if !STOP_REASONS.contains(&reason) {
                return Err(args.err(
                    column,
                    format!(
                        "`{reason}` is not a stop reason; use one of {}",
                        STOP_REASONS.join(", ")
                    ),
                ));
            }
            vec![AcpFault::StopReason {
                reason: reason.to_owned(),
            }]
        }
        "crash" => {
            let at = place(entry, args)?;
            let exit = match (
                args.number::<i32>("code", "an exit code, 0 to 255")?,
                args.get("signal"),
            ) {
                (Some(_), Some((_, column))) => {
                    return Err(args.err(column, "give `code=C` or `signal=S`, not both".into()))
                }
                (Some(code), None) if (0..=255).contains(&code) => Exit::Code(code),
                (Some(code), None) => {
                    return Err(args.err(column, format!("`code={code}`: an exit code is 0 to 255")))
                }
                (None, Some((name, column))) => Exit::Signal(
                    Signal::parse(name)
                        .ok_or_else(|| args.err(column, format!("`{name}` is not a signal")))?,
                ),
                (None, None) => Exit::Code(1),
            };
            vec![AcpFault::Crash {
                at,
                exit,
                text: args.text("text"),
            }]
        }
        "eof" => vec![AcpFault::Eof {
            at: place(entry, args)?,
            byte: args.byte(entry, &AcpFault::WORDS)?,
        }],
        "malformed" => vec![AcpFault::Malformed {
            at: place(entry, args)?,
        }],
        "stderr" => vec![AcpFault::Stderr {
            text: args
                .text("text")
                .ok_or_else(|| args.err(column, "`stderr` needs `text=...`".into()))?,
            at: place(entry, args)?,
        }],
        "stderr-flood" => vec![AcpFault::StderrFlood {
            bytes: args.size("bytes")?.unwrap_or(1 << 20),
        }],
        "drop" => vec![AcpFault::Drop {
            kind: args.text("kind").filter(|k| !k.is_empty()).ok_or_else(|| {
                args.err(
                    column,
                    format!(
                        "`drop` needs `kind=...`, e.g. `drop:kind={}`",
                        updates::TOOL_CALL_UPDATE
                    ),
                )
            })?,
        }],
        "duplicate" => vec![AcpFault::Duplicate {
            at: place(entry, args)?,
        }],
        "reorder" => vec![AcpFault::Reorder],
        "unknown-update" => vec![AcpFault::UnknownUpdate {
            at: place(entry, args)?,
        }],
        "unknown-field" => vec![AcpFault::UnknownField],
        "early-update" => vec![AcpFault::EarlyUpdate],
        "huge" => vec![AcpFault::Huge {
            bytes: args.size("bytes")?.unwrap_or(1 << 20).min(MAX_BYTES),
            at: place(entry, args)?,
        }],
        "chunk" => {
            let size = args.number::<usize>("size", "a number of bytes, 1 or more")?;
            let random = args.get("random").is_some();
            vec![AcpFault::Chunk(match (size, random) {
                (Some(n), false) if n > 0 => Chunking::Size(n),
                (None, true) => Chunking::Random,
                _ => return Err(args.err(column, "`chunk` takes `size=N` (1 or more) or `random`".into())),
            })]
        }
        "coalesce" => vec![AcpFault::Coalesce],
        "unoffered-tools" => vec![AcpFault::UnofferedTools],
        other => preset(other).ok_or_else(|| args.err(column, AcpFault::unknown(other)))?,
    };
    Ok(faults)
}

/// The message of an `error` that gives none.
pub(crate) const ERROR_MESSAGE: &str = "Internal error";

/// The faults of the preset `name`, the real agent's failure.
pub fn preset(name: &str) -> Option<Vec<AcpFault>> {
    Some(match name {
        "auth-required" => [
            methods::SESSION_NEW,
            methods::SESSION_LOAD,
            methods::SESSION_PROMPT,
        ]
        .iter()
        .map(|m| AcpFault::Error {
            method: (*m).to_owned(),
            code: codes::AUTH_REQUIRED,
            message: "Authentication required".to_owned(),
            data: None,
        })
        .collect(),
        "authenticate-hangs" => vec![AcpFault::NoResponse {
            method: methods::AUTHENTICATE.to_owned(),
        }],
        "session-services-failed" => vec![AcpFault::Error {
            method: methods::SESSION_NEW.to_owned(),
            code: codes::INTERNAL_ERROR,
            message: "Failed to initialize session services".to_owned(),
            data: None,
        }],
        "crash-on-initialize" => vec![AcpFault::Crash {
            at: Place::Method(methods::INITIALIZE.to_owned()),
            exit: Exit::Code(1),
            text: Some("Error: Failed to start the agent: connection refused".to_owned()),
        }],
        "crash-while-asking" => vec![AcpFault::Crash {
            at: Place::Asking,
            exit: Exit::Code(1),
            text: Some("Error: the agent stopped unexpectedly".to_owned()),
        }],
        // The preset is named after the stop reason.
        stop_reasons::REFUSAL => vec![AcpFault::StopReason {
            reason: stop_reasons::REFUSAL.to_owned(),
        }],
        "max-tokens" => vec![AcpFault::StopReason {
            reason: stop_reasons::MAX_TOKENS.to_owned(),
        }],
        _ => return None,
    })
}

fn method(args: &mut Args<'_>) -> Result<String, Diagnostic> {
    args.text("method").filter(|m| !m.is_empty()).ok_or_else(|| {
        args.err(
            args.column(),
            format!(
                "`{}` needs `method=...`, e.g. `method={}`",
                args.name(),
                methods::SESSION_NEW
            ),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn faults_and_presets_parse_with_their_places() {
        let ok = |spec: &str| parse(spec, FROM_ENV).expect(spec);
        assert_eq!(
            ok(&format!("no-response:method={}", methods::AUTHENTICATE)),
            vec![AcpFault::NoResponse {
                method: methods::AUTHENTICATE.into()
            }]
        );
        assert_eq!(ok("auth-required").len(), 3);
        assert_eq!(
            ok("crash:at=asking,signal=KILL"),
            vec![AcpFault::Crash {
                at: Place::Asking,
                exit: Exit::Signal(Signal::Kill),
                text: None
            }]
        );
        assert_eq!(
            ok("eof:after=3,byte=10"),
            vec![AcpFault::Eof {
                at: Place::After(3),
                byte: Some(10)
            }]
        );
        for entry in CATALOGUE.iter() {
            parse(entry.example, FROM_ENV).unwrap_or_else(|e| panic!("{}: {e}", entry.example));
        }
        let err = |spec: &str| parse(spec, FROM_ENV).expect_err(spec).to_string();
        assert!(err("late:ms=3").contains("needs `method=...`"));
        assert!(err("stop-reason:reason=tired").contains("not a stop reason"));
        assert!(err("eof:at=a,after=2").contains("give one of"));
        assert!(err(&format!("eof:method={}", methods::SESSION_NEW))
            .contains("place it with `at=KIND` or `after=N`"));
        assert!(err("nonsense").contains("not a fault of server mode"));
        assert!(err("reorder:x=1").contains("does not take `x`"));
    }
}
