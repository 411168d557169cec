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

/// The value `strategy` draws from `seed` with `salt` (see [`draw`]): a dialect's
/// session of a seed, the same on every run and machine. `otherwise` only serves a
/// strategy that rejects every value.
pub fn seeded<S: Strategy>(
    strategy: &S,
    seed: u64,
    salt: &[u8],
    otherwise: impl FnOnce() -> S::Value,
) -> S::Value {
    draw(strategy, seed, salt).unwrap_or_else(otherwise)
}

/// A piece of text, as the dialects' generated sessions say it: `words` words (a range
/// of counts), each `[a-z]{1,8}` or, one time in `6 + odd.len()` for each, one of
/// `odd` (words not ASCII, a line break, quotes), joined by spaces.
pub fn text(odd: &'static [&'static str], words: std::ops::Range<usize>) -> impl Strategy<Value = String> {
    let plain = std::iter::once((6, "[a-z]{1,8}".boxed()));
    let odd = odd.iter().map(|word| (1, Just((*word).to_owned()).boxed()));
    let word = prop::strategy::Union::new_weighted(plain.chain(odd).collect());
    prop::collection::vec(word, words).prop_map(|words| words.join(" "))
}

/// Asserts what every dialect's generator promises: `from_seed` gives one session a
/// seed and another for another seed ([`assert_seeded`]), and each fault `faults`
/// draws stands for some faults that `parse` reads its text as ([`drawn_parses`]),
/// over proptest's default number of cases.
#[cfg(test)]
#[track_caller]
pub(crate) fn assert_generates<T, F, E>(
    from_seed: impl Fn(u64) -> T,
    faults: impl Strategy<Value = Drawn<F>>,
    parse: impl Fn(&str) -> Result<Vec<F>, E>,
) where
    T: PartialEq + std::fmt::Debug,
    F: std::fmt::Debug,
    E: std::fmt::Debug,
{
    assert_seeded(from_seed);
    let mut runner = proptest::test_runner::TestRunner::default();
    if let Err(e) = runner.run(&faults, |drawn| drawn_parses(&drawn, &parse)) {
        panic!("a drawn fault does not parse as drawn: {e}");
    }
}

/// Asserts that `from_seed` gives one value a seed, and another for another seed.
#[cfg(test)]
#[track_caller]
pub(crate) fn assert_seeded<T: PartialEq + std::fmt::Debug>(from_seed: impl Fn(u64) -> T) {
    assert_eq!(from_seed(7), from_seed(7));
    assert_ne!(from_seed(7), from_seed(8));
}

/// Whether `drawn` stands for some faults, and `parse` reads its text as that many.
#[cfg(test)]
pub(crate) fn drawn_parses<F, E: std::fmt::Debug>(
    drawn: &Drawn<F>,
    parse: impl Fn(&str) -> Result<Vec<F>, E>,
) -> Result<(), TestCaseError> {
    prop_assert_eq!(parse(&drawn.spec).expect("parses").len(), drawn.faults.len());
    prop_assert!(!drawn.faults.is_empty(), "{}", drawn.spec);
    Ok(())
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

/// Where a generated fault acts on a stream of lines: after 0 to `after - 1` lines,
/// or at one of `words` (`at=WORD`), each as likely as the other.
pub fn line_place(after: u64, words: &[&str]) -> impl Strategy<Value = String> + Clone {
    let at: Vec<String> = words.iter().map(|word| format!("at={word}")).collect();
    prop_oneof![
        (0..after).prop_map(|n| format!("after={n}")),
        prop::sample::select(at),
    ]
}

/// The line faults every dialect whose faults act on its lines draws, as items of
/// [`line_faults`]: an exit, a kill, a cut line, a stall, a line of an unknown type.
pub const LINE_FAULTS: &[&str] = &[
    "exit:code=1,{place}",
    "signal:name=KILL,{place}",
    "eof:{place},byte={byte}",
    "stall:ms=1500,{place}",
    "unknown:{place}",
];

/// One fault of a dialect whose faults act on its lines, drawn as its text in the
/// grammar and typed by `parse`: one of [`LINE_FAULTS`] and the dialect's own `placed`
/// items, whose `{place}` is a place `place` draws and whose `{byte}` is a byte offset
/// below 80, or one of `presets`; each item as likely as another. Every text must be
/// in the grammar (each dialect's `every_drawn_fault_parses` checks it; one `parse`
/// refuses stands for no fault); `presets` must not be empty.
pub fn line_faults<F: Clone + std::fmt::Debug, E: 'static>(
    place: impl Strategy<Value = String> + Clone,
    placed: &[&'static str],
    presets: impl IntoIterator<Item = impl Into<String>>,
    parse: fn(&str) -> Result<Vec<F>, E>,
) -> impl Strategy<Value = Drawn<F>> {
    let placed = [LINE_FAULTS, placed].concat();
    let presets: Vec<String> = presets.into_iter().map(Into::into).collect();
    let weights = (placed.len() as u32, presets.len() as u32);
    prop_oneof![
        weights.0 => (prop::sample::select(placed), place, 0usize..80).prop_map(|(item, place, byte)| {
            item.replace("{place}", &place).replace("{byte}", &byte.to_string())
        }),
        weights.1 => prop::sample::select(presets),
    ]
    .prop_map(move |spec| {
        let faults = parse(&spec).unwrap_or_default();
        Drawn::many(spec, faults)
    })
}

/// A generated session with its faults, as drawn: what a dialect's fuzzer plays, and
/// shrinks. `D` tells apart two dialects that share a session and a fault type.
#[derive(Debug, Clone, PartialEq)]
pub struct Faulted<S, F, D = ()> {
    /// The session.
    pub session: S,
    /// Its faults, as drawn.
    pub faults: Vec<Drawn<F>>,
    /// The dialect it is played as.
    pub dialect: std::marker::PhantomData<D>,
}

impl<S, F, D> Faulted<S, F, D> {
    /// `session` with `faults`.
    pub fn new(session: S, faults: Vec<Drawn<F>>) -> Self {
        Faulted {
            session,
            faults,
            dialect: std::marker::PhantomData,
        }
    }

    /// The faults in the grammar, `;`-joined (`MOCK_AGENT_FAULTS`).
    pub fn spec(&self) -> String {
        self.faults
            .iter()
            .map(|d| d.spec.as_str())
            .collect::<Vec<_>>()
            .join(";")
    }
}

/// Sessions of `sessions` with up to `most` faults of `faults`.
pub fn faulted<S, F, D>(
    sessions: impl Strategy<Value = S>,
    faults: impl Strategy<Value = Drawn<F>>,
    most: usize,
) -> impl Strategy<Value = Faulted<S, F, D>>
where
    S: Clone + std::fmt::Debug,
    F: Clone + std::fmt::Debug,
    D: std::fmt::Debug,
{
    (sessions, prop::collection::vec(faults, 0..=most))
        .prop_map(|(session, faults)| Faulted::new(session, faults))
}
