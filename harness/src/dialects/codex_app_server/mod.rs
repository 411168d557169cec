//! OpenAI's Codex as `codex app-server` (`codex-app-server`): JSON-RPC over stdio,
//! as the Python SDK (`openai-codex`) and the IDE extensions run it. Built on Codex's
//! folder ([`super::codex`]: the wire names, the session model, the pure player
//! [`super::codex::app_server`], the faults with their app-server section).
//!
//! - [`expect`]: the conversation a careful client has with the player, and what it
//!   concludes; the requests a run left unanswered;
//! - [`recording`]: a cassette of `codex app-server`, read as the session it tells,
//!   and a conversation written as one;
//! - [`check`]: its lint rules;
//! - `generate`: generated conversations and faults (proptest);
//! - [`dialect`]: its registration.

pub mod check;
pub mod dialect;
pub mod expect;
#[cfg(feature = "generate")]
pub mod generate;
pub mod recording;
