//! A record/replay test harness for programs that drive an AI coding agent's CLI
//! (first `cursor-agent` in print mode): what a test author imports.
//!
//! The library is one pipeline, a stage a module, and the runner on top:
//!
//! ```text
//! source ──> events ──> render ──> frames ──> faults ──> timing ──> (the mock-agent process)
//! (cassette,  (typed,    (stream-json,  (bytes on     (what goes  (when)
//!  capture,   lossless)   json, text)    stdout/       wrong)
//!  default,                              stderr)
//!  generated)
//! ```
//!
//! # Dialects
//!
//! Each agent CLI's protocol is a folder of [`dialects`]: its typed wire model (every
//! name of the protocol said once), its rules (lint), what a correct consumer must
//! do, its generator strategies, and how a recording becomes a script. Cursor's print
//! mode is [`dialects::cursor_print`] (its wire model is
//! [`events`](dialects::cursor_print::events)); the Agent Client Protocol's machinery
//! is [`acp`] (its wire model is [`wire`](acp::wire), checked against the official
//! schema crate), of which each ACP agent's folder is a profile.
//! Everything else is written once and takes a [`Dialect`](dialects::Dialect): the
//! frames and the cassette format, the one fault catalogue ([`faults`]), the one clock
//! ([`timing`]), generation's skeleton ([`generate`]), the checker's findings
//! ([`check`]) and the [`run`]ner. A one-way print-mode plan is a script with no waits.
//!
//! # Layers
//!
//! Lowest first; a module imports only from the modules listed before it
//! (`tests/layers.rs` checks it). A dialect's folder spans layers: its wire model is
//! at the bottom, its rules, scripts and strategies on the machinery they use.
//!
//! 1. the stream model and each dialect's wire model: [`exit_codes`], [`digest`],
//!    [`error`], [`dialects`] (the enum), the wire models, `peek`,
//!    [`format`](mod@format), [`frames`], [`models`], server mode's conversation model;
//! 2. recorded runs: [`cassette`], [`journal`];
//! 3. the pure stages: rendering, the clock ([`timing`]), the fault catalogue
//!    ([`faults`]) and each dialect's applier of it, each dialect's rules and the
//!    [`check`]er on files, what a correct consumer concludes, [`scenario`]s (a run's
//!    options, faults and timing, and the plan they make), how a recording becomes a
//!    script, [`generate`]d sessions and conversations, [`source`]s;
//! 4. the [`run`]ner: a consumer played against a matrix of cases, its properties
//!    checked and its records snapshotted.
//!
//! The process that performs a plan (the executor, signals, the emulated CLI, the
//! recording proxy) is the `mock-agent` crate, built on this one.
//!
//! # Features
//!
//! - `generate` (default): proptest strategies for sessions ([`generate`]), generated
//!   sources and fuzzing ([`run::fuzz`]). Without it, the model, the pipeline, the
//!   checker and the runner build without proptest.

pub mod capture;
pub mod dialects;
pub mod digest;
pub mod error;
pub mod exit_codes;
pub mod format;
pub mod frames;
pub mod jsonrpc;
pub mod models;
mod peek;

pub mod cassette;
pub mod journal;

pub mod check;
pub mod drift;
pub mod expect;
pub mod faults;
pub mod source;
pub mod timing;

pub mod run;

// The Agent Client Protocol's one machinery, not a dialect: each ACP agent is it with
// its profile, registered as a dialect.
pub mod acp;

pub use dialects::first_releases::RenderOptions;
pub use error::{CassetteError, Diagnostic, ProblemKind};
pub use format::OutputFormat;
pub use frames::{Ending, Exit, Frame, Line, Signal, Stream};
pub use source::Source;
// Print mode's pipeline and generator, where the first releases had them.
#[cfg(feature = "generate")]
pub use dialects::first_releases::generate;
pub use dialects::first_releases::scenario;

/// The Rust examples of README.md and the guide (docs/), compiled and run as doctests
/// (with the `generate` feature: some of them generate sessions). tests/docs.rs checks
/// that every page with Rust examples is here.
#[doc = include_str!("../../README.md")]
#[doc = include_str!("../../docs/library.md")]
#[doc = include_str!("../../docs/fuzz.md")]
#[doc = include_str!("../../docs/acp-client.md")]
#[cfg(all(doctest, feature = "generate"))]
pub struct ReadmeDoctests;
