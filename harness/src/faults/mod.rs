//! Faults: every way an agent can go wrong, placed exactly, in one catalogue for
//! every dialect.
//!
//! A fault list is given as `MOCK_AGENT_FAULTS` (for the program under test) or
//! repeated `--fault` (for `mock-agent replay`): `;`-separated items of
//! `name[:key=value[,key=value...]]`. Faults compose in the order given, each acting
//! on what the ones before it produced.
//!
//! [`CATALOGUE`] is the one table of faults and presets: each entry says the dialects
//! it applies to, its keys, the keys that place it ([`Key`]) and where it acts when not
//! placed ([`Site`]). One parser reads a list for a dialect ([`parse_for`], or
//! [`FaultSpec`] for a list given before the dialect is known) and makes that
//! dialect's typed faults: [`Fault`] for print mode, [`acp::AcpFault`] for server
//! mode. Each dialect has its applier, in its folder:
//! [`dialects::cursor_print::faults`](crate::dialects::cursor_print::faults) on print
//! mode's frames, [`dialects::cursor_acp::faults`](crate::dialects::cursor_acp::faults)
//! (its `Injector`) on server mode's conversation.
//!
//! # Placement
//!
//! One vocabulary, each dialect taking the keys that mean something in it:
//!
//! - `after=N`: after the N-th stdout event, or agent message (0: before the first);
//! - `at=WORD`: before the first event of that type (`at=result`, `at=tool_call`;
//!   `at=end`: at the end), or agent message of that update kind or request method
//!   (`at=tool_call`, `at=session/request_permission`; `at=asking`: while the agent
//!   waits for the client's answer);
//! - `byte=K` (for the cutting faults `eof`, `signal`, `stall`, `close-stdout`): after
//!   the first K bytes of that line or message;
//! - `method=M` (server mode): on the answer to the client's request `M`.
//!
//! A placement that is never reached (`after=50` on a shorter stream, `at=result` on
//! a failed run) acts at the end.
//!
//! # What print mode's faults act on
//!
//! Faults change the session, so they act on the `stream-json` events before the
//! output format is rendered: in `json` format a run that a fault breaks prints no
//! JSON, its stderr message, and exits non-zero, as the documentation defines a
//! failure. Only the faults that change how bytes reach the consumer (`malformed`,
//! `noise`, `crlf`, `invalid-utf8`, `chunk`, `coalesce`) act on the rendered lines.

pub mod acp;
mod catalogue;
pub mod claude;
mod print;
mod spec;
#[cfg(feature = "generate")]
pub mod strategy;

pub use catalogue::{catalogue_of, entry, Described, Key, Site, CATALOGUE};
pub use print::{parse, Anchor, Fault, Placement, Preset, AUTH_REQUIRED};
pub use spec::{FROM_ENV, FROM_FLAG, MAX_BYTES};

use crate::dialects::Dialect;
use crate::error::{Diagnostic, Origin};

/// Print mode's entries of the catalogue (see [`catalogue_of`]).
pub fn catalogue() -> Vec<&'static Described> {
    catalogue_of(Dialect::CursorPrint).collect()
}

/// A dialect's faults.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Faults {
    /// Print mode's.
    CursorPrint(Vec<Fault>),
    /// Server mode's.
    CursorAcp(Vec<acp::AcpFault>),
    /// Claude Code's.
    Claude(Vec<claude::ClaudeFault>),
}

/// Parses a `;`-separated list of faults for `dialect`: a name that is not one of the
/// dialect's faults, or a key its fault does not take, is an error.
pub fn parse_for(dialect: Dialect, spec: &str, origin: Origin<'_>) -> Result<Faults, Diagnostic> {
    Ok(match dialect {
        Dialect::CursorPrint => Faults::CursorPrint(parse(spec, origin)?),
        Dialect::CursorAcp => Faults::CursorAcp(acp::parse(spec, origin)?),
        Dialect::Claude => Faults::Claude(claude::parse(spec, origin)?),
    })
}

/// A fault list as given in `MOCK_AGENT_FAULTS`, before the command line says which
/// dialect it is for: each dialect's faults are read from it when asked for, and an
/// error names the variable.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FaultSpec {
    text: Option<String>,
}

impl FaultSpec {
    /// The list `text` (`None`, or only blanks: no faults).
    pub fn new(text: Option<String>) -> Self {
        FaultSpec {
            text: text.filter(|t| !t.trim().is_empty()),
        }
    }

    /// The list as given, unless none was.
    pub fn text(&self) -> Option<&str> {
        self.text.as_deref()
    }

    /// Whether no fault was given.
    pub fn is_empty(&self) -> bool {
        self.text.is_none()
    }

    /// The list for `dialect`, read as `MOCK_AGENT_FAULTS` (with the dialect's help).
    pub fn faults(&self, dialect: Dialect) -> Result<Faults, Diagnostic> {
        Ok(match dialect {
            Dialect::CursorPrint => Faults::CursorPrint(self.print()?),
            Dialect::CursorAcp => Faults::CursorAcp(self.acp()?),
            Dialect::Claude => Faults::Claude(self.claude()?),
        })
    }

    /// Print mode's faults.
    pub fn print(&self) -> Result<Vec<Fault>, Diagnostic> {
        parse(self.text().unwrap_or_default(), FROM_ENV)
    }

    /// Claude Code's faults.
    pub fn claude(&self) -> Result<Vec<claude::ClaudeFault>, Diagnostic> {
        claude::parse(self.text().unwrap_or_default(), claude::FROM_ENV)
    }

    /// Server mode's faults.
    pub fn acp(&self) -> Result<Vec<acp::AcpFault>, Diagnostic> {
        acp::parse(self.text().unwrap_or_default(), acp::FROM_ENV)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spec_gives_each_dialect_its_faults_or_the_error() {
        let both = FaultSpec::new(Some("eof:after=1".into()));
        assert_eq!(both.print().expect("print mode's").len(), 1);
        assert_eq!(both.acp().expect("server mode's").len(), 1);
        let acp = FaultSpec::new(Some("authenticate-hangs".into()));
        let error = acp.print().expect_err("not print mode's").to_string();
        assert!(error.starts_with("MOCK_AGENT_FAULTS:1:1: invalid data: unknown fault `authenticate-hangs`"));
        assert!(matches!(acp.faults(Dialect::CursorAcp), Ok(Faults::CursorAcp(f)) if f.len() == 1));
        let none = FaultSpec::new(Some(" ".into()));
        assert!(
            none.is_empty() && none.print().expect("none").is_empty() && none.acp().expect("none").is_empty()
        );
    }
}
