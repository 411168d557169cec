//! Print mode's generated sessions (see [`crate::generate`]): one step a module: the
//! plan and the strategies that draw it (`plan`), the typed events a plan makes
//! (`build`, with the tool calls in `tools`), and the [`Session`] they make
//! (`session`).

mod build;
mod plan;
mod session;
mod tools;

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

use crate::generate::config::SessionConfig;

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
