//! Faults: every way an agent can go wrong, placed exactly, in one catalogue for
//! every dialect.
//!
//! A fault list is given as `MOCK_AGENT_FAULTS` (for the program under test) or
//! repeated `--fault` (for `mock-agent replay`): `;`-separated items of
//! `name[:key=value[,key=value...]]`. Faults compose in the order given, each acting
//! on what the ones before it produced.
//!
//! The catalogue is one table a dialect: each dialect's section (its `CATALOGUE`, in
//! its folder, what `Dialect::catalogue` gives) lists its faults and presets, each
//! entry ([`Described`]) with its keys, the keys that place it ([`Key`]) and where it
//! acts when not placed ([`Site`]). One parser (the grammar of `spec`) reads a list
//! for a dialect and makes that dialect's typed faults, with the dialect's words for
//! placements; each dialect applies its faults, in its folder. [`FaultSpec`] holds a
//! list given before the dialect is known.
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

pub(crate) mod catalogue;
pub mod lines;
pub(crate) mod spec;
#[cfg(feature = "generate")]
pub mod strategy;

pub use catalogue::{e, entry, Described, Key, Site, ANYWHERE, CUT, LINE, MESSAGE, MESSAGE_CUT, REQUEST};
pub use spec::{LinePlace, FROM_ENV, FROM_FLAG, MAX_BYTES};

use crate::error::{Diagnostic, Origin};

/// `n` bytes of stderr text, in lines (what every dialect's `stderr-flood` writes).
pub fn flood(n: usize) -> Vec<u8> {
    const LINE: &[u8] =
        b"[stderr flood] a consumer must read stderr while it reads stdout, or both sides wait\n";
    LINE.iter().copied().cycle().take(n).collect()
}

/// A fault list as given in `MOCK_AGENT_FAULTS`, before the command line says which
/// dialect it is for: each dialect reads its faults from it ([`FaultSpec::read`]), and
/// an error names the variable.
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

    /// The list read by a dialect's parser, as `MOCK_AGENT_FAULTS`.
    pub fn read<F>(
        &self,
        parse: impl FnOnce(&str, Origin<'_>) -> Result<Vec<F>, Diagnostic>,
    ) -> Result<Vec<F>, Diagnostic> {
        parse(self.text().unwrap_or_default(), FROM_ENV)
    }
}
