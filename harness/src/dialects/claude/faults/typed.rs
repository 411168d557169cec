//! Claude Code's faults (`claude`), in the one grammar: placed at a line the CLI
//! writes (`after=N`, `at=TYPE` where TYPE is a line's `type`, its `subtype`, or a
//! request's subtype: `at=result`, `at=init`, `at=can_use_tool`), or on the answer to
//! one of the client's control requests (`method=initialize`). Applied by
//! `harness::dialects::claude::faults::Injector`: a fault that ends the run (`exit`,
//! `signal`, `eof`) and whose place has not come when a result is due acts there,
//! before the result; the others, never reached, act at the end.

use super::super::wire::control;
use super::catalogue::CATALOGUE;
use crate::error::Diagnostic;
use crate::faults::catalogue::Described;
use crate::faults::lines::{self, Faults, LineFault};
use crate::faults::spec::{Args, Typed, Words, Written};

/// Where a fault acts: before the first line of a kind, or after a number of lines.
pub use crate::faults::LinePlace as Place;

/// How a turn ends, by a preset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ending {
    /// Nobody is logged in: the API call fails with 401.
    NotLoggedIn,
    /// The API key is wrong: 401.
    InvalidApiKey,
    /// The API answers 429, and no retry is left.
    RateLimited,
    /// The answer's stream is cut short, and no retry is left.
    ConnectionLost,
    /// `--max-turns 1` was reached at the first tool call.
    MaxTurns,
    /// `error_during_execution` with these errors.
    Error(String),
}

/// One fault of Claude Code's dialect.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ClaudeFault {
    /// A fault on the lines the CLI writes (`exit`, `signal`, `eof`, `stall`,
    /// `malformed`, `unknown`: a line of an undocumented type, `huge`: an assistant
    /// text line, `stderr`, `stderr-flood`).
    Line(LineFault),
    /// The field is left out of every line that has it.
    Missing {
        /// The field's name (top level, or in `message`).
        field: String,
    },
    /// The client's request is never answered.
    NoResponse {
        /// Its subtype.
        method: String,
    },
    /// The client's request is answered with an error.
    Error {
        /// Its subtype.
        method: String,
        /// The error's text.
        message: String,
    },
    /// Every turn ends so.
    Ending(Ending),
}

impl ClaudeFault {
    /// The fault's name in the catalogue.
    pub fn name(&self) -> &'static str {
        match self {
            ClaudeFault::Line(fault) => fault.name(),
            ClaudeFault::Missing { .. } => "missing",
            ClaudeFault::NoResponse { .. } => "no-response",
            ClaudeFault::Error { .. } => "error",
            ClaudeFault::Ending(Ending::InvalidApiKey) => "invalid-api-key",
            ClaudeFault::Ending(Ending::NotLoggedIn) => "not-logged-in",
            ClaudeFault::Ending(Ending::MaxTurns) => "max-turns",
            ClaudeFault::Ending(Ending::RateLimited) => "rate-limited",
            ClaudeFault::Ending(Ending::ConnectionLost) => "connection-lost",
            ClaudeFault::Ending(Ending::Error(_)) => "error-result",
        }
    }

    /// Where the fault acts, when it acts at a line.
    pub fn place(&self) -> Option<&Place> {
        match self {
            ClaudeFault::Line(fault) => Some(fault.place()),
            _ => None,
        }
    }
}

impl Faults for ClaudeFault {
    type Kind = ();

    fn name(&self) -> &'static str {
        ClaudeFault::name(self)
    }

    fn line(&self) -> Option<&LineFault> {
        match self {
            ClaudeFault::Line(fault) => Some(fault),
            _ => None,
        }
    }
}

/// The text of the `not-logged-in` preset, as the real CLI says it.
pub const NOT_LOGGED_IN: &str = "Not logged in · Please run /login";
/// The text of the `invalid-api-key` preset.
pub const INVALID_KEY: &str = "Invalid API key · Fix external API key";
/// The synthetic message's `error` for both presets.
pub const AUTH_ERROR: &str = "authentication_failed";
/// The text of the `rate-limited` preset (observed, Claude Code 2.1.331).
pub const RATE_LIMITED: &str =
    "API Error: Request rejected (429) · Number of requests has exceeded your rate limit.";
/// The synthetic message's `error` of the `rate-limited` preset.
pub const RATE_LIMIT_ERROR: &str = "rate_limit";
/// The text of the `connection-lost` preset (observed, Claude Code 2.1.331).
pub const CONNECTION_LOST: &str =
    "API Error: Connection lost mid-response. The response above may be incomplete.";
/// The synthetic message's `error` of the `connection-lost` preset.
pub const SERVER_ERROR: &str = "server_error";

crate::faults::spec::typed! {
    ClaudeFault: "Claude Code's dialect", CATALOGUE, build, Words {
        after: "a number of lines",
        no_method: Some("this fault acts on a line: place it with `at=TYPE` or `after=N` (`method=M` places no-response and error)"),
        ..lines::stdout_words("give one of `at=TYPE`, `after=N`",
            "`at=` needs a type, a subtype or a request subtype (`at=result`, `at=can_use_tool`)")
    };
    parser "Claude Code's", listed "Claude Code: its `claude` section"
}

fn method(entry: &Described, args: &mut Args<'_>) -> Result<String, Diagnostic> {
    Ok(match args.site(entry, &ClaudeFault::WORDS)? {
        Some(Written::Method(m)) => m,
        _ => control::INITIALIZE.to_owned(),
    })
}

fn build(entry: &Described, args: &mut Args<'_>) -> Result<Vec<ClaudeFault>, Diagnostic> {
    let column = args.column();
    let huge = super::super::expect::PYTHON_SDK_MAX_LINE + 1;
    if let Some(fault) = lines::build(entry, args, &ClaudeFault::WORDS, huge, |_| Ok(()))? {
        return Ok(vec![ClaudeFault::Line(fault)]);
    }
    let fault = match entry.name {
        "missing" => ClaudeFault::Missing {
            field: args.text("field").filter(|f| !f.is_empty()).ok_or_else(|| {
                args.err(
                    column,
                    "`missing` needs `field=...`, e.g. `missing:field=num_turns`".into(),
                )
            })?,
        },
        "no-response" => ClaudeFault::NoResponse {
            method: method(entry, args)?,
        },
        "error" => ClaudeFault::Error {
            method: method(entry, args)?,
            message: args
                .text("message")
                .unwrap_or_else(|| "Internal error".to_owned()),
        },
        "not-logged-in" => ClaudeFault::Ending(Ending::NotLoggedIn),
        "invalid-api-key" => ClaudeFault::Ending(Ending::InvalidApiKey),
        "max-turns" => ClaudeFault::Ending(Ending::MaxTurns),
        "rate-limited" => ClaudeFault::Ending(Ending::RateLimited),
        "connection-lost" => ClaudeFault::Ending(Ending::ConnectionLost),
        "error-result" => ClaudeFault::Ending(Ending::Error(
            args.text("text")
                .unwrap_or_else(|| "Tool execution failed".to_owned()),
        )),
        other => return Err(args.err(column, ClaudeFault::unknown(other))),
    };
    Ok(vec![fault])
}

crate::faults::lines::parser_tests!(
    ClaudeFault,
    refused: [
        ("session-new-error", "not a fault of Claude Code"),
        ("eof:method=initialize", "acts on a line"),
    ]
);
