//! What the protocol checkers share: findings, reports, and reading a recording to
//! check.
//!
//! Each dialect's rules are in its folder, in a checker that implements [`Lint`];
//! [`check_file_with`] reads a recording and feeds its lines to the checker its
//! header calls for (the dialect that claims it: `crate::dialects::check_file`).
//!
//! # Bounded memory
//!
//! A checker keeps the first few findings of each rule
//! (`shown_per_rule`, 5 unless set) and only counts the rest, which the
//! [`Report`] gives as [`Elided`] counts per rule: checking a file of ten million broken
//! lines takes as little memory as checking one of ten. What the print checker keeps of
//! the run is the ids of its tool calls and its assistant text.

mod file;
pub mod findings;
pub mod lines;

pub use file::{check_file_with, older, secret_like, Lint};
pub use findings::{Elided, Finding, Report, Rule, Severity, SHOWN_PER_RULE};
