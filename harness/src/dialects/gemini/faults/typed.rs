//! Gemini CLI's faults (`gemini`), in the one grammar: placed at a `stream-json` line
//! the CLI writes (`after=N`, or `at=TYPE` where TYPE is a line's `type`:
//! `at=result`, `at=tool_use`). Applied by [`Injector`](super::Injector).

use super::catalogue::CATALOGUE;
use crate::error::Diagnostic;
use crate::faults::catalogue::Described;
use crate::faults::lines::{self, Faults, LineFault};
use crate::faults::spec::{Args, Typed};

/// Where a fault acts: before the first line of a type, or after a number of lines.
pub use crate::faults::LinePlace as Place;

/// How the run ends, by a preset: the real CLI's failures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// HTTP 401.
    Unauthorized,
    /// HTTP 429.
    RateLimited,
    /// HTTP 500.
    ServerError,
    /// HTTP 404.
    ModelNotFound,
    /// An empty answer (exit 0).
    EmptyAnswer,
    /// The turn limit (exit 53).
    TurnLimit,
}

/// How the run is refused before any line, by a preset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// No auth method (exit 41).
    NoAuth,
    /// An untrusted folder (exit 55).
    Untrusted,
}

/// One fault of Gemini CLI's dialect.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum GeminiFault {
    /// A fault on the `stream-json` lines (`exit`, `signal`, `eof`, `stall`,
    /// `malformed`, `unknown`: a line of an undocumented event type, `huge`: an
    /// assistant message line, `stderr`).
    Line(LineFault),
    /// The relaunched child dies there; the parent exits 0.
    ChildKilled {
        /// Where.
        at: Place,
    },
    /// The process relaunches itself: a parent that ignores SIGTERM and SIGINT.
    Relaunch,
    /// The run ends so.
    Ending(Ending),
    /// The run is refused so.
    Refusal(Refusal),
}

impl GeminiFault {
    /// The fault's name in the catalogue.
    pub fn name(&self) -> &'static str {
        match self {
            GeminiFault::Line(fault) => fault.name(),
            GeminiFault::ChildKilled { .. } => "child-killed",
            GeminiFault::Relaunch => "relaunch",
            GeminiFault::Ending(Ending::Unauthorized) => "unauthorized",
            GeminiFault::Ending(Ending::RateLimited) => "rate-limited",
            GeminiFault::Ending(Ending::ServerError) => "server-error",
            GeminiFault::Ending(Ending::ModelNotFound) => "model-not-found",
            GeminiFault::Ending(Ending::EmptyAnswer) => "empty-answer",
            GeminiFault::Ending(Ending::TurnLimit) => "turn-limit",
            GeminiFault::Refusal(Refusal::NoAuth) => "no-auth",
            GeminiFault::Refusal(Refusal::Untrusted) => "untrusted-folder",
        }
    }

    /// Where the fault acts, when it acts at a line.
    pub fn place(&self) -> Option<&Place> {
        match self {
            GeminiFault::Line(fault) => Some(fault.place()),
            GeminiFault::ChildKilled { at } => Some(at),
            GeminiFault::Relaunch | GeminiFault::Ending(_) | GeminiFault::Refusal(_) => None,
        }
    }

    /// Whether the process runs as a relaunched parent and child (`relaunch`, and
    /// `child-killed`, whose child it is).
    pub fn relaunches(&self) -> bool {
        matches!(self, GeminiFault::Relaunch | GeminiFault::ChildKilled { .. })
    }
}

impl Faults for GeminiFault {
    type Kind = ();

    fn name(&self) -> &'static str {
        GeminiFault::name(self)
    }

    fn line(&self) -> Option<&LineFault> {
        match self {
            GeminiFault::Line(fault) => Some(fault),
            _ => None,
        }
    }

    fn place(&self) -> Option<&Place> {
        GeminiFault::place(self)
    }
}

crate::faults::spec::typed! {
    GeminiFault: "Gemini CLI's dialect", CATALOGUE, build,
        lines::stdout_words("give one of `at=TYPE`, `after=N`", "`at=` needs a line type (`at=result`, `at=tool_use`)");
    parser "Gemini CLI's", listed "Gemini CLI: its `gemini` section"
}

fn build(entry: &Described, args: &mut Args<'_>) -> Result<Vec<GeminiFault>, Diagnostic> {
    let column = args.column();
    if let Some(fault) = lines::build(entry, args, &GeminiFault::WORDS, lines::HUGE, |_| Ok(()))? {
        return Ok(vec![GeminiFault::Line(fault)]);
    }
    let fault = match entry.name {
        "child-killed" => GeminiFault::ChildKilled {
            at: args.line_place(entry, &GeminiFault::WORDS)?,
        },
        "relaunch" => GeminiFault::Relaunch,
        "unauthorized" => GeminiFault::Ending(Ending::Unauthorized),
        "rate-limited" => GeminiFault::Ending(Ending::RateLimited),
        "server-error" => GeminiFault::Ending(Ending::ServerError),
        "model-not-found" => GeminiFault::Ending(Ending::ModelNotFound),
        "empty-answer" => GeminiFault::Ending(Ending::EmptyAnswer),
        "turn-limit" => GeminiFault::Ending(Ending::TurnLimit),
        "no-auth" => GeminiFault::Refusal(Refusal::NoAuth),
        "untrusted-folder" => GeminiFault::Refusal(Refusal::Untrusted),
        other => return Err(args.err(column, GeminiFault::unknown(other))),
    };
    Ok(vec![fault])
}

crate::faults::lines::parser_tests!(
    GeminiFault,
    refused: [("not-logged-in", "not a fault of Gemini CLI")],
    defaults: (crate::dialects::gemini::wire::events::RESULT, 2)
);
