//! What a dialect that generates sessions gives, once: its strategies of sessions and
//! faults, its default session, and how a session is written and told. The session of
//! a seed ([`Generator::from_seed`]), the faulted sessions fuzz draws
//! ([`Generator::faulted`]), `mock-agent generate` ([`Generator::generate`]) and the
//! fuzzer ([`Generator::fuzz`]) follow from it, the same for every dialect.

use std::fmt::Debug;
use std::path::{Path, PathBuf};

use proptest::strategy::Strategy;

use super::dialect::{Dialect, Generated};
use super::fuzz::{Fuzz, FuzzReport, LiveCase};
use super::{RunError, Runner};
use crate::error::WriteError;
use crate::faults::strategy::{self, Drawn};

/// A dialect's generator of sessions and faults (implemented by the dialect's own
/// type, in its folder). A generated case is a [`Faulted`] of it: a session, written
/// as a cassette, and faults that act on the live run (given in `MOCK_AGENT_FAULTS`).
pub trait Generator: Debug + Clone + Sized + 'static {
    /// Its sessions.
    type Session: Clone + Debug + PartialEq;
    /// Its typed faults.
    type Fault: Clone + Debug;

    /// The salt of its seeds (see [`strategy::draw`]): its name, so that two dialects'
    /// sessions of one seed are two streams of the generator; dialects that draw the
    /// same sessions share one.
    const SALT: &'static [u8];

    /// How a session written as a cassette is played, as `mock-agent generate` says
    /// it: what its lines are (`events`, `messages`), the verb (`replay`, `serve`) and
    /// the command (`codex exec --json`).
    const PLAYED: (&'static str, &'static str, &'static str);

    /// Generated sessions: shrinking makes a failing one smaller.
    fn sessions() -> impl Strategy<Value = Self::Session>;

    /// How it draws a fault of its section of the catalogue.
    const FAULTS: Draws<Self::Fault>;

    /// One fault of its section of the catalogue, drawn as its text in the grammar and
    /// typed as the parser makes it ([`FAULTS`](Generator::FAULTS)).
    fn fault() -> impl Strategy<Value = Drawn<Self::Fault>> {
        let draws = &Self::FAULTS;
        let place = strategy::line_place(draws.after, draws.at);
        strategy::line_faults(place, draws.own, (draws.presets)(), draws.parse)
    }

    /// The session a seed stands for when [`sessions`](Generator::sessions) rejects
    /// every value.
    const DEFAULT_SESSION: fn() -> Self::Session;

    /// Writes a session as a cassette of the dialect at a path (the seed makes its
    /// ids), as the mock plays it with no fault.
    const WRITE_CASSETTE: WriteCassette<Self::Session>;

    /// How many lines the run of `session` has (`seed` makes its ids), for a fuzz
    /// failure's summary.
    fn lines(session: &Self::Session, seed: u64) -> usize;

    /// How many lines `mock-agent generate` says a written session has:
    /// [`lines`](Generator::lines) unless said.
    fn size(session: &Self::Session, seed: u64) -> usize {
        Self::lines(session, seed)
    }

    /// `session` told as text (`mock-agent generate` without `--out`).
    fn told(session: &Self::Session, seed: u64) -> Generated;

    /// The session of a seed: the same on every run and machine, for one version.
    fn from_seed(seed: u64) -> Self::Session {
        strategy::seeded(&Self::sessions(), seed, Self::SALT, Self::DEFAULT_SESSION)
    }

    /// Generated sessions with up to `most` faults: what the fuzzer plays, and shrinks.
    fn faulted(most: usize) -> impl Strategy<Value = Faulted<Self>> {
        strategy::faulted(Self::sessions(), Self::fault(), most)
    }

    /// The session of `seed` written as a cassette at `out`, or, without `out`, told
    /// as text ([`Dialect::generate`]).
    fn generate(seed: u64, out: Option<&Path>) -> Result<Generated, WriteError> {
        let session = Self::from_seed(seed);
        let Some(out) = out else {
            return Ok(Self::told(&session, seed));
        };
        let (unit, verb, command) = Self::PLAYED;
        let path = (Self::WRITE_CASSETTE)(&session, seed, out)?;
        Ok(Generated::cassette(
            path,
            Self::size(&session, seed),
            unit,
            verb,
            command,
        ))
    }

    /// Fuzzes `runner`'s consumer with generated sessions and faults, played as cases
    /// of `dialect` ([`Dialect::fuzz`]); a failure's minimal case is written as
    /// `OUT/fuzz-NAME-SEED.cassette` (and `.faults`), NAME the dialect's.
    fn fuzz(fuzz: &Fuzz, runner: &Runner<'_>, dialect: &'static dyn Dialect) -> Result<FuzzReport, RunError> {
        let prefix = format!("fuzz-{}", dialect.name());
        fuzz.search_live(runner, dialect, &prefix, Self::faulted(2))
    }
}

/// How a dialect draws its faults ([`Generator::FAULTS`]): a fault every line dialect
/// has or one of its `own`, at a place, or one of its `presets`; each read by `parse`.
#[derive(Debug, Clone, Copy)]
pub struct Draws<F: 'static> {
    /// A placed fault acts after a number of lines up to `after`, or at one of `at`
    /// (the line types, item types or methods it has).
    pub after: u64,
    /// See [`after`](Draws::after).
    pub at: &'static [&'static str],
    /// Its own placed faults, beyond every line dialect's: `{place}` stands for the
    /// place drawn.
    pub own: &'static [&'static str],
    /// Its presets, as the grammar writes them.
    pub presets: fn() -> Vec<String>,
    /// Its parser of faults given in `MOCK_AGENT_FAULTS`.
    pub parse: fn(&str) -> Result<Vec<F>, crate::error::Diagnostic>,
}

/// How a generator writes a session as a cassette ([`Generator::WRITE_CASSETTE`]).
pub type WriteCassette<S> = fn(&S, u64, &Path) -> Result<PathBuf, WriteError>;

/// A generated session of `G` with its faults, as drawn.
pub type Faulted<G> = strategy::Faulted<<G as Generator>::Session, <G as Generator>::Fault, G>;

impl<G: Generator> LiveCase for strategy::Faulted<G::Session, G::Fault, G> {
    fn write_cassette(&self, path: &Path) -> Result<PathBuf, WriteError> {
        (G::WRITE_CASSETTE)(&self.session, 0, path)
    }

    fn spec(&self) -> String {
        strategy::Faulted::spec(self)
    }

    fn lines(&self) -> usize {
        G::lines(&self.session, 0)
    }
}

/// Asserts what every generator promises: the session of a seed is one session, and
/// another for another seed; every fault it draws parses (by `parse`, the dialect's
/// parser) as the faults it stands for; the session of a seed, written as a cassette,
/// has lines and reads back (`read` of the cassette is `of` the session).
#[cfg(test)]
#[track_caller]
pub(crate) fn assert_generator<G, E, T>(
    parse: impl Fn(&str) -> Result<Vec<G::Fault>, E>,
    read: impl Fn(&Path) -> T,
    of: impl Fn(&G::Session) -> T,
) where
    G: Generator,
    E: Debug,
    T: PartialEq + Debug,
{
    strategy::assert_generates(G::from_seed, G::fault(), parse);
    let dir = tempfile::tempdir().expect("temp dir");
    let session = G::from_seed(3);
    let path = (G::WRITE_CASSETTE)(&session, 0, &dir.path().join("g.cassette")).expect("writes");
    assert!(G::lines(&session, 0) > 0, "{session:?}");
    assert_eq!(read(&path), of(&session));
}
