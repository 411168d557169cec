//! The protocol checkers, one a dialect, and what they share: findings, reports, and
//! reading a recording to check.
//!
//! A recording of print mode is checked by the [`Checker`] (its rules are in
//! [`crate::dialects::cursor_print::check`]); a recording of server mode
//! (`cursor-agent acp`, a cassette whose header says `"acp":true`) is a conversation in
//! both directions: the [`AcpChecker`] checks it against the Agent Client Protocol (see
//! [`acp`] for its rules), and [`check_file`] chooses it from the header.
//!
//! # Bounded memory
//!
//! A checker keeps the first few findings of each rule
//! ([`Checker::shown_per_rule`], 5 unless set) and only counts the rest, which the
//! [`Report`] gives as [`Elided`] counts per rule: checking a file of ten million broken
//! lines takes as little memory as checking one of ten. What the print checker keeps of
//! the run is the ids of its tool calls and its assistant text.

pub mod acp;
mod file;
pub mod findings;

pub use acp::{check_conversation, AcpChecker, Side};
pub use file::{check_file, check_file_with, older, secret_like};
pub use findings::{Elided, Finding, Report, Rule, Severity, SHOWN_PER_RULE};

pub use crate::dialects::cursor_print::check::{check_lines, Checker};
