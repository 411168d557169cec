//! `gemini --acp` (formerly `--experimental-acp`): Gemini CLI's agent of the Agent
//! Client Protocol, served by the one ACP machinery ([`super::acp`]) with Gemini's
//! [`PROFILE`] (`shared/REAL-GEMINI.md`, "ACP mode").
//!
//! What differs from `cursor-agent acp` is data and small hooks: four auth methods
//! (the key in `_meta["api-key"]`), modes `default`/`autoEdit`/`yolo`/`plan` and no
//! `configOptions`, permission options
//! `proceed_always`/`proceed_once`/`cancel` asked before the tool call is announced,
//! no `rawInput`/`rawOutput`, `_meta.quota` in the prompt result, `session/load`
//! answering before its replay ends, no `terminal/*` (and `fs/*` for edits only), and
//! its error shapes.

mod profile;

pub use profile::PROFILE;

use crate::acp::dialect::AcpDialect;
use crate::acp::Conversation;
use crate::error::CassetteError;
use crate::source::Source;

/// `gemini --acp` as a dialect.
pub static DIALECT: AcpDialect = AcpDialect::new(&PROFILE);

/// The conversation `gemini --acp` plays for a source (see
/// [`crate::acp::conversation_of`]).
pub fn conversation(source: &Source) -> Result<(Box<dyn Conversation + Send>, bool), CassetteError> {
    crate::acp::conversation_of(source, &PROFILE)
}

/// Whether these arguments (after the program) run Gemini CLI as an ACP agent:
/// `--acp` or `--experimental-acp`.
pub fn is_acp(argv: &[String]) -> bool {
    argv.iter().any(|a| profile::FLAGS.contains(&a.as_str()))
}
