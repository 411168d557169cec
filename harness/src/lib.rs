//! A record/replay test harness for programs that drive an AI coding agent's CLI
//! (first `cursor-agent` in print mode).
//!
//! The library is one pipeline, one module per stage:
//!
//! ```text
//! source ──> events ──> render ──> frames ──> faults ──> timing ──> execute
//! (cassette,  (typed,    (stream-json,  (bytes on     (what goes  (when)    (writes them, ends with
//!  capture,   lossless)   json, text)    stdout/       wrong)                an exit code or a signal)
//!  default)                              stderr)
//! ```
//!
//! - [`events`]: the typed, lossless event model of `--output-format stream-json`;
//! - [`cassette`]: recorded runs, read as a stream and written atomically;
//! - [`source`]: where a run's frames come from;
//! - [`generate`]: proptest strategies for valid sessions, and seeded generation;
//! - [`render`]: the three output formats and the CLI options that change the stream;
//! - [`frames`]: the lines and the ending that make up a run;
//! - [`faults`]: every way the output can go wrong, placed exactly;
//! - [`timing`]: when each frame is written;
//! - [`scenario`]: a run's options, faults and timing, and the plan they make;
//! - [`execute`]: performs the frames on two output streams, on time;
//! - [`check`]: the protocol checker behind `mock-agent lint`;
//! - [`agent`]: the emulation of the real CLI's command line;
//! - [`record`]: capturing real runs as cassettes, secrets kept out;
//! - [`library`]: cassettes matched to invocations, for the shim's record modes;
//! - [`run`]: running a consumer against a matrix of cases, checking its properties;
//! - [`settings`], [`journal`], [`exit_codes`], [`error`], [`process`]: the rest of the
//!   contract with users.
//!
//! The `mock-agent` binary is [`agent::run`] plus the mock's own subcommands.

/// `eprintln!` that does not panic on a closed stderr.
macro_rules! eprintln {
    ($($arg:tt)*) => { $crate::process::stderr_line(format_args!($($arg)*)) };
}

pub mod agent;
pub mod cassette;
pub mod check;
pub mod error;
pub mod events;
pub mod execute;
pub mod exit_codes;
pub mod faults;
pub mod frames;
pub mod generate;
pub mod journal;
pub mod library;
mod peek;
pub mod process;
pub mod record;
pub mod render;
pub mod run;
pub mod scenario;
pub mod settings;
pub mod source;
pub mod timing;

pub use error::{CassetteError, Diagnostic, ProblemKind};
pub use frames::{Ending, Exit, Frame, Line, Signal, Stream};
pub use render::{OutputFormat, RenderOptions};
pub use source::Source;

/// The README's Rust examples, compiled and run as doctests.
#[doc = include_str!("../../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
