//! A record/replay test harness for programs that drive an AI coding agent's CLI
//! (first `cursor-agent` in print mode): what a test author imports.
//!
//! The library is one pipeline, one module per stage, and the runner on top:
//!
//! ```text
//! source ──> events ──> render ──> frames ──> faults ──> timing ──> (the mock-agent process)
//! (cassette,  (typed,    (stream-json,  (bytes on     (what goes  (when)
//!  capture,   lossless)   json, text)    stdout/       wrong)
//!  default,                              stderr)
//!  generated)
//! ```
//!
//! Layers, lowest first; a module imports only from the modules listed before it
//! (`tests/layers.rs` checks it):
//!
//! 1. the stream model: [`exit_codes`], [`digest`], [`error`], [`events`], `peek`, [`format`](mod@format),
//!    [`frames`], [`models`];
//! 2. recorded runs: [`cassette`], [`journal`];
//! 3. the pure stages: [`render`], [`faults`], [`timing`]; then the protocol
//!    [`check`]er, what a correct consumer concludes ([`expect`]), [`scenario`]s (a run's options, faults and timing, and the plan they
//!    make), [`generate`]d sessions, [`source`]s, and server mode's conversations
//!    ([`dialects::cursor_acp`], whose wire model is at the bottom, and whose old path
//!    [`acp`] still works);
//! 4. the [`run`]ner: a consumer played against a matrix of cases, its properties
//!    checked and its records snapshotted.
//!
//! Each agent protocol is a folder of [`dialects`] spanning these layers: print mode's
//! ([`dialects::cursor_print`]) holds its wire model ([`events`], at layer 1), its
//! rendering ([`render`]), its rules ([`check`]er), what a correct consumer concludes
//! ([`expect`]) and its session strategies ([`generate`]); the paths above are theirs,
//! re-exported.
//!
//! The process that performs a plan (the executor, signals, the emulated CLI, the
//! recording proxy) is the `mock-agent` crate, built on this one.
//!
//! # Features
//!
//! - `generate` (default): proptest strategies for sessions ([`generate`]), generated
//!   sources and fuzzing ([`run::fuzz`]). Without it, the model, the pipeline, the
//!   checker and the runner build without proptest.

pub mod dialects;
pub mod digest;
pub mod error;
pub mod exit_codes;
pub mod format;
pub mod frames;
pub mod models;
mod peek;

pub mod cassette;
pub mod journal;

pub mod check;
pub mod faults;
#[cfg(feature = "generate")]
pub mod generate;
pub mod scenario;
pub mod source;
pub mod timing;

pub mod run;

// Print mode's modules at their former paths, while code moves to
// `dialects::cursor_print`.
pub use dialects::cursor_print::{events, expect, render};
/// The old path of server mode, [`dialects::cursor_acp`], kept while callers move.
pub use dialects::cursor_acp as acp;

pub use error::{CassetteError, Diagnostic, ProblemKind};
pub use format::OutputFormat;
pub use frames::{Ending, Exit, Frame, Line, Signal, Stream};
pub use render::RenderOptions;
pub use source::Source;

/// The README's Rust examples, compiled and run as doctests (with the `generate`
/// feature: some of them generate sessions).
#[doc = include_str!("../../README.md")]
#[cfg(all(doctest, feature = "generate"))]
pub struct ReadmeDoctests;
