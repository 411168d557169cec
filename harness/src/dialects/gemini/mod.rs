//! Google's Gemini CLI (`gemini`) in headless mode, as programs drive it: `gemini -p
//! PROMPT -o stream-json|json|text` (one prompt a process, the answer on stdout). Its
//! ACP mode (`gemini --acp`, the dialect `gemini-acp`) is [`acp`]: the ACP machinery
//! with Gemini's agent profile.
//!
//! - [`wire`]: every name of the headless protocol, said once;
//! - [`args`]: the command line, read, with yargs' errors;
//! - [`session`]: the session model (rounds of text and tool calls, an ending) and the
//!   built-in default session;
//! - [`play`]: a session told as `gemini -p` tells it, in the three formats;
//! - [`faults`]: the catalogue's `gemini` section, applied to what `play` writes;
//! - [`recording`]: a cassette of `gemini -p -o stream-json`, read and replayed, and a
//!   session written as one;
//! - [`expect`]: what a correct consumer concludes;
//! - [`check`]: its lint rules;
//! - `generate`: generated sessions and faults (proptest), the session of a seed;
//! - [`dialect`]: its registration (`gemini`).

pub mod acp;
pub mod args;
pub mod check;
pub mod dialect;
pub mod expect;
pub mod faults;
#[cfg(feature = "generate")]
pub mod generate;
pub mod play;
pub mod recording;
pub mod session;
pub mod wire;

pub use session::{default_session, Session};
