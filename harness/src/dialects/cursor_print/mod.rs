//! Cursor's print mode (`cursor-agent -p`): stream-json, json and text, one way.
//!
//! - [`events`]: the typed wire model, every name of the protocol said once;
//! - [`render`]: from the recorded `stream-json` to what the CLI prints for the options
//!   asked for (`--resume`, `--stream-partial-output`, `json`, `text`);
//! - [`check`]: the rules a stream must follow (lint);
//! - [`expect`]: what a correct consumer concludes from a run;
//! - [`faults`]: the applier of the fault catalogue's print-mode faults to a plan's
//!   frames (on the events before rendering, and on the rendered lines);
//! - `generate` (with the `generate` feature): the strategies that draw valid sessions.

pub mod args;
pub mod check;
pub mod dialect;
pub mod events;
pub mod expect;
pub mod faults;
#[cfg(feature = "generate")]
pub mod generate;
pub mod render;
pub mod scenario;
pub mod source;
pub mod story;
