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
//! Inside: the knobs (`config`), faulted cases (`faulted`), the plan, the strategies
//! that draw it and the typed events it makes.

mod build;
pub(crate) mod config;
mod faulted;
mod plan;
mod session;
mod tools;

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

pub use config::{Profile, SessionConfig};
pub use faulted::{expectation, faulted, write_planned, Faulted};

pub use session::Session;

/// A strategy for valid sessions with these knobs.
pub fn session(config: SessionConfig) -> impl Strategy<Value = Session> {
    plan::plan(&config).prop_map(move |plan| build::build(&plan, &config))
}

/// The session of a seed: the same on every run and machine, for one version.
pub fn from_seed(seed: u64, config: &SessionConfig) -> Session {
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &bytes);
    let mut runner = TestRunner::new_with_rng(Config::default(), rng);
    match plan::plan(config).new_tree(&mut runner) {
        Ok(tree) => build::build(&tree.current(), config),
        // Only a filter that rejects everything fails; the generator's do not.
        Err(_) => build::build(&plan::fallback(), config),
    }
}

use config::BASE_MS;
