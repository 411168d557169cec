//! What a dialect is, to the machinery: the trait each dialect's folder implements.
//!
//! The runner, `cases`, `fuzz`, `judge`, the report and the process's commands take a
//! `&'static dyn Dialect` and ask it what they need to know; none of them names a
//! dialect. The dialects themselves, and the one list of them, are in
//! [`crate::dialects`] (built on this module, never imported by it).
//!
//! A dialect provides: its names (the `--dialect` name, the executables put on a
//! consumer's `PATH`), its section of the one fault catalogue and how its faults read,
//! its default matrix, how a source and faults make a [`Case`] (what a correct
//! consumer concludes), how a run's journal refines it ([`Dialect::lived`]), the
//! verdicts only it can give (`answers-requests`, what it writes that is undocumented,
//! where a fault makes either conclusion right), its fuzzer, how the report tells and
//! draws a run, and how a cassette is known to be its own and checked (lint).

use crate::cassette::Header;
use crate::check::Lint;
use crate::error::{CassetteError, Diagnostic, Origin};
use crate::faults::Described;
use crate::format::OutputFormat;
use crate::journal::Entry;

#[cfg(feature = "generate")]
use super::fuzz::{Fuzz, FuzzReport};
use super::matrix::{Case, CaseSource};
use super::Outcome;
#[cfg(feature = "generate")]
use super::{RunError, Runner};
#[cfg(feature = "generate")]
use {crate::error::WriteError, std::path::Path};

/// An agent CLI's protocol, as the machinery sees it. Implemented once per dialect, in
/// its folder under [`crate::dialects`]; listed once in [`crate::dialects::ALL`].
///
/// The methods with a default are what most dialects share: a dialect says only where
/// it differs.
pub trait Dialect: Send + Sync + 'static {
    /// What it is called, what it stands in for and what it takes, as plain data: the
    /// methods of the same names read it.
    fn about(&self) -> &About;

    /// Its name, as `--dialect` and the fault catalogue spell it (`claude`).
    fn name(&self) -> &'static str {
        self.about().name
    }

    /// What it stands in for, in a few words (`Claude Code, \`claude\``): the heading
    /// of its section in `mock-agent faults`, and of `mock-agent dialects`.
    fn title(&self) -> &'static str {
        self.about().title
    }

    /// The executables a case puts on the consumer's `PATH` (the mock, under these
    /// names); the first is the one `{mock}` names.
    fn programs(&self) -> &'static [&'static str] {
        self.about().programs
    }

    /// The environment a case gives the consumer (and so the agent) beside the mock's
    /// settings, with `dir` the case's own directory: where the agent keeps its state
    /// (a variable naming a folder of `dir`), so that no case reads what another
    /// wrote, nor the user's own. The consumer's `--env` overrides it.
    fn case_env(&self, dir: &std::path::Path) -> Vec<(String, String)> {
        let _ = dir;
        Vec::new()
    }

    /// Whether the agent reads the consumer's messages (a conversation), or only
    /// writes (a one-way plan).
    fn is_conversation(&self) -> bool {
        self.about().conversation
    }

    /// What the program under test is called in messages (`ACP client`).
    fn consumer_noun(&self) -> &'static str {
        self.about().consumer
    }

    /// Why the agent the consumer ran did not play the case: it stopped at a check of
    /// its environment that the case did not ask for (Gemini CLI's folder trust),
    /// before anything of the case. Such a case is not run, with what to do; `None`
    /// when the agent played it.
    fn refused(&self, case: &Case, outcome: &Outcome) -> Option<super::NotRun> {
        let _ = (case, outcome);
        None
    }

    /// What to tell a user whose consumer never ran the mock in a case (shown with the
    /// case, not run): where programs of this dialect find their agent, and how to
    /// hand them the mock.
    fn never_ran_hint(&self) -> String {
        let program = self.programs().first().copied().unwrap_or("mock-agent");
        format!(
            "the {} never ran `{program}` from PATH, nor the path `{{mock}}` or `--mock-env` gives: make it run the agent by that name or that path",
            self.consumer_noun()
        )
    }

    /// The flags of `mock-agent test` that select it (`--dialect claude`; empty for
    /// the default dialect), as a command shown to a user writes them.
    fn test_flags(&self) -> String {
        match self.about().test_flags {
            Some(flags) => flags.to_owned(),
            None => format!("--dialect {}", self.name()),
        }
    }

    /// Its section of the one fault catalogue, in documentation order.
    fn catalogue(&self) -> &'static [Described] {
        self.about().catalogue
    }

    /// Reads a `;`-separated fault list as its faults would be read, for the error
    /// alone: a name it does not know, or a key its fault does not take.
    fn check_faults(&self, spec: &str, origin: Origin<'_>) -> Result<(), Diagnostic> {
        (self.about().check_faults)(spec, origin)
    }

    /// The faults of its standard matrix, `(label, spec)`.
    fn matrix_faults(&self) -> Vec<(String, String)> {
        (self.about().matrix_faults)()
    }

    /// Whether its cases come in each output format the consumer takes (`{format}`).
    fn takes_format(&self) -> bool {
        self.about().takes_format
    }

    /// A case of `source` with `faults`: what a correct consumer concludes, worked out
    /// from what the mock would write.
    fn case(&self, source: CaseSource, format: OutputFormat, faults: &str, name: String) -> CaseResult;

    /// Whether the fault list `faults` means something on `source`: a case of a
    /// fault that cannot act there (a preset that rewrites a session, on a recording
    /// replayed as it was) is left out of the matrix rather than run as a clean case.
    fn applies(&self, source: &CaseSource, faults: &str) -> bool {
        let _ = (source, faults);
        true
    }

    /// The case as the consumer played it: its expectation from what the run's
    /// journal shows (the requests the client sent, the faults that acted).
    fn lived(&self, case: &Case, outcome: &Outcome) -> Case {
        let _ = outcome;
        case.clone()
    }

    /// Whether the run's success or failure stands as a verdict: `false` where a
    /// fault breaks what the consumer's SDK can read, so either conclusion is right.
    fn judged(&self, case: &Case) -> bool {
        let _ = case;
        true
    }

    /// Whether the case writes something no documentation names (an unknown type or
    /// field), which the consumer must shrug off (`ignores-unknown`).
    fn writes_unknown(&self, case: &Case) -> bool {
        let _ = case;
        false
    }

    /// The names the undocumented things a case's faults write go by (a message type,
    /// an update kind, a field): a consumer that breaks on one tends to name it.
    fn unknown_words(&self) -> &'static [&'static str] {
        self.about().unknown.1
    }

    /// The undocumented things a case's faults write, in the dialect's own terms, for
    /// `ignores-unknown`'s detail ("{it} broke the client"): ACP's by default.
    fn unknown_told(&self) -> &'static str {
        self.about().unknown.0
    }

    /// `answers-requests`: every request of the agent's that the client asked for got
    /// an answer. `None` for a dialect whose agent asks nothing.
    fn answers_requests(&self, outcome: &Outcome) -> Option<Result<(), String>> {
        let _ = outcome;
        None
    }

    /// Whether a consumer must read stdout to its end (`reads-to-end`).
    fn reads_to_end(&self) -> bool {
        self.about().reads_to_end
    }

    /// Whether a failed run shows the agent's ending (its exit or signal): not where a
    /// turn fails inside a conversation that goes on.
    fn ends_with_the_agent(&self) -> bool {
        self.about().ends_with_the_agent
    }

    /// The JSON objects the agent writes as its output (its events, its envelope), as
    /// their shapes tell them apart from a consumer's own JSON: what
    /// [`shown_text`](Dialect::shown_text) takes out of a consumer's output when the
    /// consumer passes them on. None unless said ([`About::owns`]).
    fn own_objects(&self) -> &'static [OwnObject] {
        self.about().own_objects
    }

    /// The output a consumer's user sees in `output`: the agent's own JSON objects
    /// ([`own_objects`](Dialect::own_objects)), and what the case's faults added that
    /// is no answer, taken out.
    fn shown_text(&self, output: &str, faults: &str) -> String {
        let _ = faults;
        super::properties::without_events(output, self.own_objects())
    }

    /// The conversation of one run, told as text for a failure's record, with the
    /// notes that go under it (divergences from a recording): `None` when the entry
    /// holds none of this dialect's.
    fn told(&self, entry: &Entry) -> Option<(String, Vec<String>)> {
        let _ = entry;
        None
    }

    /// The frames the mock performed in a case of a one-way dialect (its plan, as the
    /// mock makes it, for the run `entry` journalled), with the case's faults and
    /// without: the report draws the first on a timeline and marks where it parts from
    /// the second. `None` where the dialect cannot tell.
    fn planned(
        &self,
        case: &Case,
        entry: &Entry,
    ) -> Option<(Vec<crate::frames::Frame>, Vec<crate::frames::Frame>)> {
        let _ = (case, entry);
        None
    }

    /// Whether the report draws a run of it as a sequence of messages (a
    /// conversation) rather than a timeline of lines.
    fn draws_messages(&self) -> bool {
        self.is_conversation()
    }

    /// The journal's conversation of a run of this dialect, if it has one.
    fn conversation<'e>(&self, entry: &'e Entry) -> Option<&'e crate::journal::Conversation> {
        let _ = entry;
        None
    }

    /// A message of this dialect's (one JSON value), labelled for the report's
    /// picture; `None` where the picture's JSON-RPC reading serves.
    fn label(&self, value: &serde_json::Value) -> Option<Label> {
        let _ = value;
        None
    }

    /// What drift (`mock-agent drift`) must know of its lines to compare the real
    /// CLI's with the stand-in's: which keys name a line's kind, which fields are
    /// compared by value, which objects are keyed by data ([`crate::drift::Rules`]).
    fn drift_rules(&self) -> crate::drift::Rules {
        crate::drift::Rules::DEFAULT
    }

    /// Whether a cassette with this header is one of this dialect's: its invocation
    /// names the dialect ([`Header::dialect`]) unless said.
    fn claims(&self, header: &Header) -> bool {
        header.dialect() == Some(self.name())
    }

    /// The checker of a recording of this dialect (lint): its lines by its rules.
    fn checker(&self) -> Box<dyn Lint>;

    /// The session (or conversation) generated from `seed`, of at most about `size`
    /// lines: written as a cassette at `out`, or, without `out`, told as text (what
    /// `mock-agent generate --dialect NAME` does).
    #[cfg(feature = "generate")]
    fn generate(&self, seed: u64, size: Option<usize>, out: Option<&Path>) -> Result<Generated, WriteError>;

    /// Fuzzes `runner`'s consumer with this dialect's generated sessions and faults.
    #[cfg(feature = "generate")]
    fn fuzz(&self, fuzz: &Fuzz, runner: &Runner<'_>) -> Result<FuzzReport, RunError>;
}

/// A kind of JSON object the agent writes as its output (a line of its JSON events, its
/// JSON envelope), told by its keys: an object that has every one of [`keys`](Self::keys)
/// and, where [`kind`](Self::kind) says, a string under its key that is one of its
/// names. A consumer that prints such an object passes the agent's JSON on, and the
/// answer's text inside it is JSON-escaped, not shown ([`Dialect::own_objects`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OwnObject {
    /// The keys every object of this kind has.
    pub keys: &'static [&'static str],
    /// The key whose string value names the kind, and the names it takes (empty: any
    /// string); `None` where the keys alone tell it.
    pub kind: Option<(&'static str, &'static [&'static str])>,
}

impl OwnObject {
    /// Whether `object` is one of this kind.
    pub fn matches(&self, object: &serde_json::Map<String, serde_json::Value>) -> bool {
        let kind = self.kind.is_none_or(|(key, names)| {
            object
                .get(key)
                .and_then(serde_json::Value::as_str)
                .is_some_and(|name| names.is_empty() || names.contains(&name))
        });
        kind && self.keys.iter().all(|key| object.contains_key(*key))
    }
}

/// [`Dialect::generate`] and [`Dialect::fuzz`] of a dialect (a unit struct) whose
/// sessions and faults a [`Generator`](super::generator::Generator) `$generator`
/// draws: the session of a seed written or told
/// ([`Generator::generate`](super::generator::Generator::generate); `size` is not
/// taken), and its cases fuzzed as the dialect's
/// ([`Generator::fuzz`](super::generator::Generator::fuzz)). Written in the dialect's
/// `impl Dialect`: a trait that is called through `dyn` cannot hand its `'static`
/// self to a generic default.
macro_rules! generated_by {
    ($generator:ty) => {
        #[cfg(feature = "generate")]
        fn generate(
            &self,
            seed: u64,
            size: Option<usize>,
            out: Option<&std::path::Path>,
        ) -> Result<$crate::run::Generated, $crate::error::WriteError> {
            let _ = size;
            <$generator as $crate::run::generator::Generator>::generate(seed, out)
        }

        #[cfg(feature = "generate")]
        fn fuzz(
            &self,
            fuzz: &$crate::run::fuzz::Fuzz,
            runner: &$crate::run::Runner<'_>,
        ) -> Result<$crate::run::fuzz::FuzzReport, $crate::run::RunError> {
            <$generator as $crate::run::generator::Generator>::fuzz(fuzz, runner, &Self)
        }
    };
}
pub(crate) use generated_by;

/// What a dialect is called, what it stands in for and what it takes: the plain data
/// of [`Dialect`], made with [`About::new`] and the methods that say where a dialect
/// differs from the most common case.
#[derive(Debug, Clone, Copy)]
pub struct About {
    /// [`Dialect::name`].
    pub name: &'static str,
    /// [`Dialect::title`].
    pub title: &'static str,
    /// [`Dialect::programs`].
    pub programs: &'static [&'static str],
    /// [`Dialect::consumer_noun`]: `consumer` unless said.
    pub consumer: &'static str,
    /// [`Dialect::is_conversation`]: a conversation unless said.
    pub conversation: bool,
    /// [`Dialect::takes_format`]: no unless said.
    pub takes_format: bool,
    /// [`Dialect::reads_to_end`]: no unless said.
    pub reads_to_end: bool,
    /// [`Dialect::ends_with_the_agent`]: yes unless said.
    pub ends_with_the_agent: bool,
    /// [`Dialect::test_flags`]: `--dialect NAME` unless said.
    pub test_flags: Option<&'static str>,
    /// [`Dialect::catalogue`].
    pub catalogue: &'static [Described],
    /// [`Dialect::check_faults`].
    pub check_faults: fn(&str, Origin<'_>) -> Result<(), Diagnostic>,
    /// [`Dialect::matrix_faults`].
    pub matrix_faults: fn() -> Vec<(String, String)>,
    /// [`Dialect::unknown_told`] and [`Dialect::unknown_words`]: ACP's unless said.
    pub unknown: (&'static str, &'static [&'static str]),
    /// [`Dialect::own_objects`]: none unless said.
    pub own_objects: &'static [OwnObject],
}

impl About {
    /// A dialect `name` that stands in for `title`, run as `programs`, with its
    /// section of the fault catalogue (`catalogue`, read by `check_faults`) and its
    /// standard matrix (`matrix_faults`); a conversation with a `consumer` that reads
    /// no `{format}`, and ends when the agent does, until said otherwise.
    pub const fn new(
        (name, title, programs): (&'static str, &'static str, &'static [&'static str]),
        catalogue: &'static [Described],
        check_faults: fn(&str, Origin<'_>) -> Result<(), Diagnostic>,
        matrix_faults: fn() -> Vec<(String, String)>,
    ) -> About {
        About {
            name,
            title,
            programs,
            consumer: "consumer",
            conversation: true,
            takes_format: false,
            reads_to_end: false,
            ends_with_the_agent: true,
            test_flags: None,
            catalogue,
            check_faults,
            matrix_faults,
            unknown: ("an update of an unknown kind or with an unknown field", &[]),
            own_objects: &[],
        }
    }

    /// [`new`](About::new) for a dialect whose faults are `F`: its section of the
    /// catalogue is `F`'s, read by `F`'s parser.
    pub(crate) const fn typed<F: crate::faults::spec::Typed>(
        names: (&'static str, &'static str, &'static [&'static str]),
        matrix_faults: fn() -> Vec<(String, String)>,
    ) -> About {
        About::new(names, F::CATALOGUE, check_faults::<F>, matrix_faults)
    }

    /// What the program under test is called in messages (`Codex program`).
    #[must_use]
    pub const fn consumer(self, consumer: &'static str) -> About {
        About { consumer, ..self }
    }

    /// The agent reads its prompt and writes: one way (a plan, not a conversation).
    #[must_use]
    pub const fn one_way(self) -> About {
        About {
            conversation: false,
            ..self
        }
    }

    /// Its cases come in each output format the consumer takes (`{format}`).
    #[must_use]
    pub const fn takes_format(self) -> About {
        About {
            takes_format: true,
            ..self
        }
    }

    /// A consumer must read stdout to its end (`reads-to-end`).
    #[must_use]
    pub const fn reads_to_end(self) -> About {
        About {
            reads_to_end: true,
            ..self
        }
    }

    /// A failed turn leaves the agent running: the run's end is the client's.
    #[must_use]
    pub const fn outlives_a_failure(self) -> About {
        About {
            ends_with_the_agent: false,
            ..self
        }
    }

    /// The flags of `mock-agent test` that select it, where not `--dialect NAME`.
    #[must_use]
    pub const fn test_flags(self, flags: &'static str) -> About {
        About {
            test_flags: Some(flags),
            ..self
        }
    }

    /// The JSON objects it writes as its output, told by their shapes
    /// ([`Dialect::own_objects`]).
    #[must_use]
    pub const fn owns(self, own_objects: &'static [OwnObject]) -> About {
        About { own_objects, ..self }
    }

    /// The undocumented things its faults write, told (`an event of an unknown
    /// type`), and the names they go by.
    #[must_use]
    pub const fn unknown(self, told: &'static str, words: &'static [&'static str]) -> About {
        About {
            unknown: (told, words),
            ..self
        }
    }
}

/// Whether `spec` reads as faults of the type `F` ([`About::typed`]).
fn check_faults<F: crate::faults::spec::Typed>(spec: &str, origin: Origin<'_>) -> Result<(), Diagnostic> {
    crate::faults::spec::parse_as::<F>(spec, origin).map(drop)
}

/// A case, as [`Dialect::case`] makes it, or why it could not.
pub type CaseResult = Result<Case, CassetteError>;

/// A generated session, as [`Dialect::generate`] made it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Generated {
    /// Written as a cassette.
    Written {
        /// Where.
        path: std::path::PathBuf,
        /// How many lines it has (both directions of a conversation).
        lines: usize,
        /// What its lines are (`events`, `messages`).
        unit: &'static str,
        /// How to play it (`serve it with ...`).
        play: String,
    },
    /// Told as text, one line a message.
    Told(String),
}

impl Generated {
    /// Written as a cassette at `path`, of `lines` `unit`, played by `verb` (`replay`,
    /// `serve`) with `command`: `VERB it with `MOCK_AGENT_CASSETTE=PATH COMMAND``.
    pub fn cassette(
        path: std::path::PathBuf,
        lines: usize,
        unit: &'static str,
        verb: &str,
        command: &str,
    ) -> Generated {
        let play = format!(
            "{verb} it with `MOCK_AGENT_CASSETTE={} {command}`",
            path.display()
        );
        Generated::Written {
            path,
            lines,
            unit,
            play,
        }
    }

    /// Told as text: `lines`, each followed by a newline.
    pub fn told<L: AsRef<[u8]>>(lines: impl IntoIterator<Item = L>) -> Generated {
        let mut told = String::new();
        for line in lines {
            told.push_str(&String::from_utf8_lossy(line.as_ref()));
            told.push('\n');
        }
        Generated::Told(told)
    }
}

/// A message as the report's picture draws it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Label {
    /// Its type (and subtype): `control_request can_use_tool`.
    pub label: String,
    /// Whether it asks the other side for an answer.
    pub asks: bool,
    /// Whether it tells an error.
    pub error: bool,
}

impl std::fmt::Debug for dyn Dialect {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::fmt::Display for dyn Dialect {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl PartialEq for dyn Dialect {
    fn eq(&self, other: &Self) -> bool {
        self.name() == other.name()
    }
}

impl Eq for dyn Dialect {}

impl std::hash::Hash for dyn Dialect {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.name().hash(state);
    }
}

/// Asserts that each fault of `dialect`'s matrix reads and, on the default session,
/// ends as the real CLI does: a failure unless its label is one of `passes`, a
/// verdict that stands unless its label is one of `open` (either conclusion right).
#[cfg(test)]
#[track_caller]
pub(crate) fn assert_matrix_ends(dialect: &dyn Dialect, passes: &[&str], open: &[&str]) {
    for (label, spec) in dialect.matrix_faults() {
        let case = dialect
            .case(
                CaseSource::Default,
                OutputFormat::StreamJson,
                &spec,
                label.clone(),
            )
            .expect("a case");
        assert_eq!(
            case.expect == crate::expect::Expectation::Failure,
            !passes.contains(&label.as_str()),
            "{dialect} {label}: {:?}",
            case.expect
        );
        assert_eq!(
            dialect.judged(&case),
            !open.contains(&label.as_str()),
            "{dialect} {label}"
        );
    }
}

/// Asserts what a careful consumer concludes of `dialect`'s default session with
/// each fault list (its [`Dialect::case`]): with none, a success with `answer`; a
/// failure with each of `failures`; a success (whatever its answer) with each of
/// `harmless`, the faults that leave the run as it was. Gives the clean case's
/// segments (what the consumer is told on the way).
#[cfg(test)]
#[track_caller]
pub(crate) fn assert_concludes<'a>(
    dialect: &dyn Dialect,
    answer: &str,
    failures: impl IntoIterator<Item = &'a str>,
    harmless: &[&str],
) -> Vec<String> {
    let case = |spec: &str| {
        let (source, format) = (CaseSource::Default, OutputFormat::StreamJson);
        dialect.case(source, format, spec, spec.to_owned()).expect(spec)
    };
    let clean = case("");
    let answer = answer.to_owned();
    assert_eq!(clean.expect, crate::expect::Expectation::Success { answer });
    for spec in failures {
        assert_eq!(case(spec).expect, crate::expect::Expectation::Failure, "{spec}");
    }
    for spec in harmless {
        let expect = case(spec).expect;
        assert!(
            matches!(expect, crate::expect::Expectation::Success { .. }),
            "{spec}: {expect:?}"
        );
    }
    clean.segments
}

/// The outcome of a consumer that wrote `stdout` and `stderr` and exited 1, having run
/// no agent (its journal empty), for tests of verdicts.
#[cfg(test)]
pub(crate) fn failed_outcome(stdout: &str, stderr: &str) -> Outcome {
    Outcome::ended(
        super::Status::Exited(1),
        (stdout.into(), stderr.into()),
        Vec::new(),
        "/tmp/case".into(),
    )
}
