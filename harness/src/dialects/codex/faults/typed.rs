//! Codex's faults (`codex`), in the one grammar: placed at a line `codex exec --json`
//! writes (`after=N`, or `at=TYPE` where TYPE is a line's `type` or its item's:
//! `at=turn.completed`, `at=command_execution`). Applied by
//! [`Injector`](super::Injector).

use super::catalogue::{APP_SERVER_CATALOGUE, CATALOGUE};
use crate::error::{Diagnostic, Origin};
use crate::faults::catalogue::Described;
use crate::faults::lines::{self, Faults, LineFault};
use crate::faults::spec::{parse_as, Args, Build, Typed, Words};

/// Where a fault acts: before the first line of a kind, or after a number of lines.
pub use crate::faults::LinePlace as Place;

/// How every turn ends, by a preset: the real CLI's failures.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ending {
    /// HTTP 401, retried five times.
    Unauthorized,
    /// HTTP 429, retried five times.
    RateLimited,
    /// A model the API does not serve.
    UnknownModel,
    /// The turn's last model call fails with this message, no retry.
    TurnFailed(String),
    /// The model's stream ends before its last message completes.
    StreamCut,
}

/// What `unknown` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unknown {
    /// A line of an unknown event type.
    Event,
    /// An `item.completed` of an unknown item type.
    Item,
}

/// One fault of Codex's dialect.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum CodexFault {
    /// A fault on the stdout lines (`exit`, `signal`, `eof`, `stall`, `malformed`,
    /// `unknown`: a line of an undocumented event or item type, `huge`: a reasoning
    /// item line, `stderr`).
    Line(LineFault<Unknown>),
    /// Every turn ends so.
    Ending(Ending),
    /// `approval` (app-server): every command and patch asks, whatever the policy.
    Approval,
    /// `reconnect-then-ok`: every turn's first model call answers HTTP 429 once, is
    /// retried, and the turn goes on as it would.
    ReconnectThenOk,
}

impl CodexFault {
    /// The fault's name in the catalogue.
    pub fn name(&self) -> &'static str {
        match self {
            CodexFault::Line(fault) => fault.name(),
            CodexFault::Ending(Ending::Unauthorized) => "unauthorized",
            CodexFault::Ending(Ending::RateLimited) => "rate-limited",
            CodexFault::Ending(Ending::UnknownModel) => "unknown-model",
            CodexFault::Ending(Ending::TurnFailed(_)) => "turn-failed",
            CodexFault::Ending(Ending::StreamCut) => "stream-cut",
            CodexFault::Approval => "approval",
            CodexFault::ReconnectThenOk => "reconnect-then-ok",
        }
    }

    /// Where the fault acts, when it acts at a line.
    pub fn place(&self) -> Option<&Place> {
        match self {
            CodexFault::Line(fault) => Some(fault.place()),
            CodexFault::Ending(_) | CodexFault::Approval | CodexFault::ReconnectThenOk => None,
        }
    }
}

impl Faults for CodexFault {
    type Kind = Unknown;

    fn name(&self) -> &'static str {
        CodexFault::name(self)
    }

    fn line(&self) -> Option<&LineFault<Unknown>> {
        match self {
            CodexFault::Line(fault) => Some(fault),
            _ => None,
        }
    }
}

crate::faults::spec::typed! {
    CodexFault: "Codex's dialect", CATALOGUE, build, lines::stdout_words("give one of `at=TYPE`, `after=N`",
        "`at=` needs a line type or an item type (`at=turn.completed`, `at=agent_message`)");
    parser "Codex's", listed "Codex: its `codex` section"
}

/// `codex app-server`'s faults given in `MOCK_AGENT_FAULTS`.
pub const APP_SERVER_FROM_ENV: Origin<'static> = lines::from_env(
    "`mock-agent faults` lists every fault (Codex's app-server: its `codex-app-server` section) with an example",
);

/// Parses a `;`-separated list of `codex app-server`'s faults (its section of the
/// catalogue: [`APP_SERVER_CATALOGUE`]).
pub fn parse_app_server(spec: &str, origin: Origin<'_>) -> Result<Vec<CodexFault>, Diagnostic> {
    parse_as::<AppServerFault>(spec, origin).map(|faults| faults.into_iter().map(|f| f.0).collect())
}

/// A fault of `codex app-server`'s section: the same faults, placed at its lines.
pub(crate) struct AppServerFault(CodexFault);

impl Typed for AppServerFault {
    const CATALOGUE: &'static [Described] = APP_SERVER_CATALOGUE;
    const WORDS: Words = lines::stdout_words(
        "give one of `at=METHOD`, `after=N`",
        "`at=` needs a method or an item type (`at=turn/completed`, `at=agentMessage`)",
    );

    const OF: &'static str = "Codex's app-server dialect";
    const BUILD: Build<Self> =
        |entry, args| Ok(build(entry, args)?.into_iter().map(AppServerFault).collect());
}

/// What `unknown` writes: `kind=event` (the default) or `kind=item`.
fn unknown_kind(args: &mut Args<'_>) -> Result<Unknown, Diagnostic> {
    match args.get("kind") {
        None | Some(("event", _)) => Ok(Unknown::Event),
        Some(("item", _)) => Ok(Unknown::Item),
        Some((other, column)) => Err(args.err(
            column,
            format!("`kind={other}`: give `kind=event` or `kind=item`"),
        )),
    }
}

fn build(entry: &Described, args: &mut Args<'_>) -> Result<Vec<CodexFault>, Diagnostic> {
    let column = args.column();
    if let Some(fault) = lines::build(entry, args, &CodexFault::WORDS, lines::HUGE, unknown_kind)? {
        return Ok(vec![CodexFault::Line(fault)]);
    }
    let fault = match entry.name {
        "unauthorized" => CodexFault::Ending(Ending::Unauthorized),
        "rate-limited" => CodexFault::Ending(Ending::RateLimited),
        "unknown-model" => CodexFault::Ending(Ending::UnknownModel),
        "turn-failed" => CodexFault::Ending(Ending::TurnFailed(
            args.text("text")
                .unwrap_or_else(|| super::super::wire::messages::CONTEXT_WINDOW.to_owned()),
        )),
        "stream-cut" => CodexFault::Ending(Ending::StreamCut),
        "approval" => CodexFault::Approval,
        "reconnect-then-ok" => CodexFault::ReconnectThenOk,
        other => return Err(args.err(column, CodexFault::unknown(other))),
    };
    Ok(vec![fault])
}

crate::faults::lines::parser_tests!(
    CodexFault,
    refused: [
        ("not-logged-in", "not a fault of Codex"),
        ("unknown:kind=thing", "kind=item"),
        ("eof:method=initialize", "method"),
    ],
    defaults: (crate::dialects::codex::wire::events::TURN_COMPLETED, 1)
);
