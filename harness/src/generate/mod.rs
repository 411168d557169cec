//! Generated sessions: proptest strategies for streams nobody recorded.
//!
//! A session is not random event soup: it is built from a *plan* (the prompt, the
//! model calls with their text, thinking and tool calls, and how the run ends) by the
//! same rules the real CLI follows, so every generated session is valid and passes the
//! [`crate::check`]er. Proptest shrinks the plan, so a failing case shrinks to a
//! short, readable session: fewer model calls, fewer tools, shorter text.
//!
//! ```
//! use harness::generate::{session, SessionConfig};
//! use proptest::prelude::*;
//!
//! proptest! {
//!     #![proptest_config(ProptestConfig::with_cases(16))]
//!     // In a test suite, with `#[test]` on it.
//!     fn my_consumer_copes(session in session(SessionConfig::default())) {
//!         let stdout = session.stdout();          // what `cursor-agent -p` prints
//!         let answer = session.answer();          // Some(text) when the run succeeds
//!         prop_assert_eq!(answer.is_some(), stdout.contains("\"type\":\"result\""));
//!     }
//! }
//! # my_consumer_copes();
//! ```
//!
//! [`faulted`] overlays faults (see [`crate::faults`]) and labels each [`Faulted`] with
//! what a correct consumer concludes. [`from_seed`] makes the session of a seed, the
//! same on every run and machine (for one version of mock-agent), as
//! `mock-agent generate --seed N` and `MOCK_AGENT_GENERATE=N` do. A session, or a
//! case that failed a property, is written as an ordinary cassette with
//! [`Session::write_cassette`] / [`Faulted::write_cassette`].
//!
//! Inside: the knobs (`config`) and faulted cases (`faulted`) here; the plan, the
//! strategies that draw it and the typed events it makes are print mode's, in
//! [`crate::dialects::cursor_print::generate`].

pub(crate) mod config;
mod faulted;

pub use crate::dialects::cursor_print::generate::{from_seed, session, Session};
pub use config::{Profile, SessionConfig};
pub use faulted::{expectation, faulted, write_planned, Faulted};

use config::BASE_MS;
