//! Server mode: `cursor-agent acp`, Cursor's agent of the Agent Client Protocol,
//! served by the one ACP machinery ([`super::acp`]) with Cursor's [`PROFILE`].
//!
//! The machinery's modules are here under their first names too
//! (`cursor_acp::wire`, `cursor_acp::script`, ...): this is where they lived before
//! ACP had more than one agent.

pub mod dialect;
mod profile;

#[cfg(feature = "generate")]
pub use crate::acp::generate;
pub use crate::acp::methods;
pub use crate::acp::{
    check, conversation, expect, faults, rpc, script, summary, tell, wire, Conversation, Reply, Step, Steps,
    Wait, CANCEL_WAIT,
};
pub use dialect::{acp_faults, settled, DIALECT};
pub use profile::PROFILE;

use crate::error::CassetteError;
use crate::source::Source;

/// The conversation `cursor-agent acp` plays for a source (see
/// [`crate::acp::conversation_of`]).
pub fn conversation(source: &Source) -> Result<(Box<dyn Conversation + Send>, bool), CassetteError> {
    crate::acp::conversation_of(source, &PROFILE)
}

/// Conversations of `cursor-agent acp`, of the usual size (the configuration of the
/// releases before ACP had more than one agent).
#[cfg(feature = "generate")]
impl Default for generate::ConversationConfig {
    fn default() -> Self {
        generate::ConversationConfig::of(&PROFILE)
    }
}

#[cfg(feature = "generate")]
impl generate::ConversationConfig {
    /// Large conversations of `cursor-agent acp`: many sessions, turns and steps,
    /// long text.
    #[must_use]
    pub fn large() -> Self {
        generate::ConversationConfig::of(&PROFILE).larger()
    }
}
