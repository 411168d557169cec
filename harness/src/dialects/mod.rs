//! Dialects: each agent CLI's protocol in one folder, and the one list of them.
//!
//! A dialect's folder holds its typed wire model (every name of the protocol said
//! once), its section of the fault catalogue and how its faults act, its rules (lint),
//! what a correct consumer must do, its generator strategies, how a recording becomes
//! a script, and its registration: a type that implements
//! [`run::Dialect`](crate::run::Dialect), the trait through which the machinery (the
//! runner, `cases`, `fuzz`, `judge`, the report, lint, the process's commands) asks
//! what it needs. Nothing below this module names a dialect.
//!
//! Adding one is a folder here and a line in [`ALL`] (see `docs/adding-a-dialect.md`);
//! the conformance suite (`tests/conformance.rs`) then runs it.

pub mod claude;
pub mod codex;
pub mod cursor_acp;
pub mod cursor_print;
pub mod gemini;

// A second mode of a CLI whose folder holds it (`codex exec` and `codex app-server`,
// `gemini -p` and `gemini --acp`: one argv, one recorder, one drift) is also at the
// path of its dialect's name.
/// The ACP machinery, where the first releases had it (it is no dialect: each ACP
/// agent is one, with its profile).
pub use crate::acp;
/// `codex app-server`'s folder, by the name of its dialect (it lives in Codex's).
pub use codex::app_server as codex_app_server;
/// `gemini --acp`'s folder, by the name of its dialect (it lives in Gemini CLI's).
pub use gemini::acp as gemini_acp;

/// Print mode's pipeline and generator, which the crate's root re-exports where the
/// first releases had them (`harness::scenario`, `harness::generate`,
/// `harness::RenderOptions`), when print mode was the only dialect.
#[doc(hidden)]
pub mod first_releases {
    #[cfg(feature = "generate")]
    pub use super::cursor_print::generate;
    pub use super::cursor_print::render::RenderOptions;
    pub use super::cursor_print::scenario;
}

use std::path::Path;

use crate::cassette::Header;
use crate::check::Report;
use crate::error::CassetteError;

pub use crate::run::Dialect;

/// Cursor's print mode: `cursor-agent -p`, one stream of events on stdout
/// (`stream-json`, `json` or `text`), nothing read from the consumer. The default.
pub static CURSOR_PRINT: &dyn Dialect = &cursor_print::dialect::CursorPrint;

/// Cursor's server mode: `cursor-agent acp`, the Agent Client Protocol (JSON-RPC 2.0
/// both ways, one message a line).
pub static CURSOR_ACP: &dyn Dialect = &cursor_acp::DIALECT;

/// Claude Code: `claude` as the Claude Agent SDKs run it, stream-json on stdout and
/// stdin with a control protocol both ways (and `claude -p`).
pub static CLAUDE: &dyn Dialect = &claude::dialect::Claude;

/// OpenAI's Codex: `codex exec --json`, one turn a process, as the TypeScript SDK runs
/// it.
pub static CODEX: &dyn Dialect = &codex::dialect::Codex;

/// OpenAI's Codex: `codex app-server`, JSON-RPC over stdio, as the Python SDK runs it.
pub static CODEX_APP_SERVER: &dyn Dialect = &codex::app_server::dialect::CodexAppServer;

/// Google's Gemini CLI, headless: `gemini -p` with `-o stream-json|json|text`, one
/// prompt a process.
pub static GEMINI: &dyn Dialect = &gemini::dialect::Gemini;

/// Gemini CLI's ACP mode: `gemini --acp`, the ACP machinery with Gemini's profile.
pub static GEMINI_ACP: &dyn Dialect = &gemini::acp::DIALECT;

/// A session with no recording of an ACP agent (the built-in default session, a
/// print-mode cassette, a capture), as the story an ACP agent tells
/// ([`acp::tell::Story`]): Cursor's print-mode events. Every ACP profile of this
/// registry tells these.
pub fn print_mode_story(recording: crate::cassette::Recording) -> Result<acp::tell::Story, CassetteError> {
    cursor_print::story::of_recording(recording)
}

/// Every dialect, in the order `mock-agent faults` lists them; the first is the
/// default.
pub static ALL: &[&dyn Dialect] = &[
    CURSOR_PRINT,
    CURSOR_ACP,
    CLAUDE,
    CODEX,
    CODEX_APP_SERVER,
    GEMINI,
    GEMINI_ACP,
];

/// The dialect named `name` (as `--dialect` spells it).
pub fn by_name(name: &str) -> Option<&'static dyn Dialect> {
    ALL.iter().copied().find(|d| d.name() == name)
}

/// The names of every dialect, `, `-joined (for an error that lists them).
pub fn names() -> String {
    ALL.iter().map(|d| d.name()).collect::<Vec<_>>().join(", ")
}

/// The dialect a cassette with this header was recorded in: the first of the others
/// that claims it, else the default, which holds the rest (a capture has no header:
/// print mode's stdout).
pub fn of_header(header: Option<&Header>) -> &'static dyn Dialect {
    let (default, others) = (ALL[0], &ALL[1..]);
    header
        .and_then(|h| others.iter().copied().find(|d| d.claims(h)))
        .unwrap_or(default)
}

/// Checks a cassette or capture by the rules of the dialect it was recorded in (see
/// [`crate::check::check_file_with`]).
pub fn check_file(path: &Path) -> Result<Report, CassetteError> {
    check_file_with(path, None)
}

/// [`check_file`], and a warning when the cassette was recorded with a CLI older than
/// `max_age` (e.g. `2026.10.01`), or with one it does not name.
pub fn check_file_with(path: &Path, max_age: Option<&str>) -> Result<Report, CassetteError> {
    crate::check::check_file_with(path, max_age, |header| of_header(header).checker())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_dialect_has_its_own_name_and_names_a_fault_once() {
        let mut names: Vec<_> = ALL.iter().map(|d| d.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), ALL.len());
        for dialect in ALL {
            let mut names: Vec<_> = dialect.catalogue().iter().map(|e| e.name).collect();
            let count = names.len();
            names.sort_unstable();
            names.dedup();
            assert_eq!(names.len(), count, "{dialect}");
            assert_eq!(by_name(dialect.name()), Some(*dialect));
        }
    }

    /// Each fault of a line dialect's standard matrix reads and, on the default session,
    /// ends as the real CLI does: a failure unless it is one the dialect passes, a
    /// verdict that stands unless either conclusion is right (`open`).
    #[test]
    fn each_matrix_ends_as_the_real_cli() {
        let ends: [(&dyn Dialect, &str, &str); 3] = [
            (
                CODEX,
                "clean reconnect-then-ok unknown-event unknown-item malformed huge-1m stderr-message \
                 stderr-flood stall-2s@file-change",
                "malformed huge-1m",
            ),
            (
                CODEX_APP_SERVER,
                "clean approval reconnect-then-ok unknown-notification unknown-item malformed \
                 stderr-message stderr-flood",
                "malformed",
            ),
            (
                GEMINI,
                "clean unknown-event malformed huge-1m stderr-message stderr-flood stall-2s@tool-result",
                "malformed huge-1m",
            ),
        ];
        for (dialect, passes, open) in ends {
            let words = |list: &'static str| list.split_whitespace().collect::<Vec<_>>();
            crate::run::dialect::assert_matrix_ends(dialect, &words(passes), &words(open));
        }
    }

    #[test]
    fn a_fault_placed_by_default_is_placed_by_a_key() {
        for dialect in ALL {
            for entry in dialect.catalogue() {
                assert!(
                    entry.default.is_none() || !entry.places.is_empty(),
                    "{dialect}: {}",
                    entry.name
                );
            }
        }
    }
}
