//! OpenAI's Codex CLI (`codex`), as its SDKs drive it: `codex exec --json` (the
//! TypeScript SDK: one turn a process, JSONL on stdout) and `codex app-server` (the
//! Python SDK and the IDE extensions: JSON-RPC over stdio, with approval requests).
//!
//! - [`wire`]: every name of both protocols, said once;
//! - [`args`]: the command line, read, with clap's errors;
//! - [`session`]: the session model (a thread's turns of items) and the built-in
//!   default session;
//! - [`schema`]: a final message that follows `--output-schema`;
//! - [`exec`]: a session told as `codex exec`'s stdout, stderr and exit code;
//! - [`app_server`]: a session told as `codex app-server`'s answers and
//!   notifications, following the client (a pure player), and the `codex-app-server`
//!   dialect on it (its expectations, recordings, lint, generator and registration:
//!   `app_server::{expect, recording, check, generate, dialect}`);
//! - [`faults`]: the catalogue's `codex` section, applied to what `exec` writes;
//! - [`recording`]: a cassette of `codex exec --json`, read and replayed, and a
//!   session written as one;
//! - [`expect`]: what a correct consumer of `codex exec --json` concludes;
//! - [`check`]: its lint rules;
//! - `generate`: generated sessions and faults (proptest), the session of a seed;
//! - [`dialect`]: its registration (`codex`, the `exec --json` mode).

pub mod app_server;
pub mod args;
pub mod check;
pub mod dialect;
pub mod exec;
pub mod expect;
pub mod faults;
#[cfg(feature = "generate")]
pub mod generate;
pub mod recording;
pub mod schema;
pub mod session;
pub mod wire;

pub use session::{default_session, Session};

#[cfg(test)]
mod app_server_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod verdict_tests;
