//! Typed fault strategies: a dialect's faults as proptest draws them, typed as the
//! parser makes them, each with its text in the grammar (what `MOCK_AGENT_FAULTS` is
//! given to replay it). One skeleton ([`Drawn`], [`cut`], [`list`]) serves every
//! dialect; each dialect's strategy is in its folder.

use std::fmt::Display;

use proptest::prelude::*;

/// The value `strategy` draws from `seed`, the same on every run and machine (for one
/// version): the seed's bytes, then `salt` (a dialect's name, so that two dialects'
/// sessions of one seed are two streams of the generator). `None` only when the
/// strategy rejects every value.
pub fn draw<S: Strategy>(strategy: &S, seed: u64, salt: &[u8]) -> Option<S::Value> {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    let salt = &salt[..salt.len().min(24)];
    bytes[8..8 + salt.len()].copy_from_slice(salt);
    let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &bytes);
    let mut runner = TestRunner::new_with_rng(Config::default(), rng);
    strategy.new_tree(&mut runner).ok().map(|tree| tree.current())
}

/// One item of a fault list as a strategy draws it: its text in the grammar, and the
/// typed faults it stands for (several for a preset).
#[derive(Debug, Clone, PartialEq)]
pub struct Drawn<F> {
    /// The item in the grammar, e.g. `eof:after=3,byte=10`.
    pub spec: String,
    /// Its faults, as the dialect's parser makes them of `spec`.
    pub faults: Vec<F>,
}

impl<F> Drawn<F> {
    /// One fault, written `spec`.
    pub fn one(spec: impl Into<String>, fault: F) -> Self {
        Drawn {
            spec: spec.into(),
            faults: vec![fault],
        }
    }

    /// Several faults (a preset), written `spec`.
    pub fn many(spec: impl Into<String>, faults: Vec<F>) -> Self {
        Drawn {
            spec: spec.into(),
            faults,
        }
    }

    /// A fault placed at `place`, written `name:{place}` (or `name:{keys},{place}`).
    pub(crate) fn placed<P: Display>(name: &str, keys: &str, place: P, fault: impl FnOnce(P) -> F) -> Self {
        let spec = match keys {
            "" => format!("{name}:{place}"),
            keys => format!("{name}:{keys},{place}"),
        };
        Drawn::one(spec, fault(place))
    }
}

/// The items' texts and their faults, in order.
pub fn split<F>(items: Vec<Drawn<F>>) -> (Vec<String>, Vec<F>) {
    let mut specs = Vec::with_capacity(items.len());
    let mut faults = Vec::new();
    for item in items {
        specs.push(item.spec);
        faults.extend(item.faults);
    }
    (specs, faults)
}

/// Lists of 0 to `max` items of `item`: their texts and their faults.
pub fn list<F: Clone + std::fmt::Debug>(
    item: impl Strategy<Value = Drawn<F>>,
    max: usize,
) -> impl Strategy<Value = (Vec<String>, Vec<F>)> {
    prop::collection::vec(item, 0..=max).prop_map(split)
}

/// A place, and whether (and after how many bytes, below 120) the line is cut there:
/// `(place, byte)`, for the cutting faults of every dialect.
pub fn cut<P: Clone + std::fmt::Debug>(
    place: impl Strategy<Value = P> + Clone,
) -> impl Strategy<Value = (P, Option<usize>)> + Clone {
    (place, prop::option::of(0usize..120))
}

/// The fault `fault` at each place `places` draws, written `name:{place}` (or
/// `name:{keys},{place}`).
pub fn placed<P, F>(
    places: impl Strategy<Value = P> + Clone,
    name: &'static str,
    keys: &'static str,
    fault: fn(P) -> F,
) -> impl Strategy<Value = Drawn<F>> + Clone
where
    P: Display + Clone + std::fmt::Debug,
    F: Clone + std::fmt::Debug,
{
    places.prop_map(move |p| Drawn::placed(name, keys, p, fault))
}
