//! Gemini CLI's registration (`gemini -p`, headless): how the machinery plays,
//! judges, fuzzes and checks a run of it (see [`crate::run::Dialect`]).

use super::check::GeminiChecker;
use super::expect::{conclude, judged};
use super::faults::{parse, written, GeminiFault, Out, FROM_ENV};
use super::recording::Recording;
use super::wire::{events, fields, DIALECT};
use crate::check::Lint;
use crate::error::CassetteError;
use crate::faults::catalogue::presets;
use crate::format::OutputFormat;
use crate::run::dialect::{About, CaseResult};
use crate::run::lines;
use crate::run::{Case, CaseSource, Dialect, Matrix};

/// Google's Gemini CLI, headless: `gemini -p` with `-o stream-json|json|text`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Gemini;

/// Gemini CLI's names and what it takes.
static ABOUT: About = About::typed::<GeminiFault>(
    (
        DIALECT,
        "gemini (Google Gemini CLI, headless `gemini -p` / `mock-agent gemini`)",
        &["gemini"],
    ),
    gemini_faults,
)
.consumer("Gemini CLI program")
// `gemini -p` reads its prompt and writes: one way; the consumer's `{format}` is
// `-o`'s value: `stream-json`, `json` or `text`.
.one_way()
.takes_format()
.unknown("an event of an unknown type", &[super::wire::undocumented::EVENT])
.owns(super::wire::OWN_OBJECTS);

/// What the mock writes in `stream-json` for a case of `source` with `faults` (see
/// [`super::faults::written`] and [`Recording::written`]).
pub fn written_by(source: &CaseSource, faults: &[GeminiFault]) -> Result<Vec<Out>, CassetteError> {
    Ok(match source {
        CaseSource::Cassette(path) => Recording::open(path)?.written(faults, OutputFormat::StreamJson),
        #[cfg(feature = "generate")]
        CaseSource::Generated(seed) => written(&super::generate::from_seed(*seed), faults, *seed),
        _ => written(&super::default_session("/work"), faults, 0),
    })
}

impl Case {
    /// A case of Gemini CLI's dialect in `format`: its expectation is what a careful
    /// consumer concludes from what the mock writes for the source with the faults
    /// (see [`super::expect`]); every format ends as `stream-json` does.
    pub fn gemini(
        source: CaseSource,
        format: OutputFormat,
        faults: &str,
        name: String,
    ) -> Result<Case, CassetteError> {
        let parsed = parse(faults, FROM_ENV).map_err(CassetteError::from)?;
        let concluded = conclude(&written_by(&source, &parsed)?);
        Ok(crate::run::lines::case(
            super::super::GEMINI,
            name,
            (source, format),
            (faults, &parsed),
            concluded,
        ))
    }
}

impl Matrix {
    /// Gemini CLI's matrix over the default session (and generated sessions), with
    /// [`gemini_faults`].
    pub fn gemini(cassettes: Vec<std::path::PathBuf>) -> Self {
        Matrix::of(super::super::GEMINI, cassettes)
    }
}

/// Gemini CLI's standard faults: the ways the real CLI fails (every preset of its
/// section, named as users see them), where a run can stop (an exit, a signal, the relaunched child
/// killed with its parent exiting 0, a cut line, a stall) at the places a consumer is
/// in the middle of something (a tool call, the answer, the end), the relaunched
/// parent that ignores SIGTERM while the run stalls, what parsers cannot read (a line
/// that is not JSON, a huge one), and what they must let pass (an unknown event type,
/// a stderr line).
pub fn gemini_faults() -> Vec<(String, String)> {
    let (result, tool_use, tool_result, message) = (
        events::RESULT,
        events::TOOL_USE,
        events::TOOL_RESULT,
        events::MESSAGE,
    );
    let placed: Vec<(&str, String)> = vec![
        ("exit-1@tool-use", format!("exit:code=1,at={tool_use}")),
        (
            "signal-term@tool-result",
            format!("signal:name=TERM,at={tool_result}"),
        ),
        (
            "child-killed@tool-result",
            format!("child-killed:at={tool_result}"),
        ),
        ("child-killed@result", format!("child-killed:at={result}")),
        ("eof@result", format!("eof:at={result},byte=40")),
        ("stall@result", format!("stall:at={result}")),
        ("relaunched-stall@result", format!("relaunch;stall:at={result}")),
        ("stall-2s@tool-result", format!("stall:ms=2000,at={tool_result}")),
        ("unknown-event", "unknown:after=2".into()),
    ];
    let stderr = lines::stderr_faults("[STARTUP] Phase 'cleanup_ops' was started but never ended.");
    lines::matrix(
        &presets(super::faults::CATALOGUE),
        [placed, lines::unreadable(message), stderr].concat(),
    )
}

impl Dialect for Gemini {
    fn about(&self) -> &About {
        &ABOUT
    }

    fn case(&self, source: CaseSource, format: OutputFormat, faults: &str, name: String) -> CaseResult {
        Case::gemini(source, format, faults, name)
    }

    /// A run the real CLI refuses before playing anything, for how the consumer ran it
    /// (a folder not trusted without `--skip-trust`: exit 55; no input: 42; an unknown
    /// `--resume`: 42; an argument error: 1), failed, whatever the case's source says:
    /// the journal shows no source played and a non-zero exit.
    fn lived(&self, case: &Case, outcome: &crate::run::Outcome) -> Case {
        let mut lived = case.clone();
        let played_or_refused = |e: &&crate::journal::Entry| {
            e.source.is_some() || !matches!(e.exit, crate::journal::ExitRecord::Code(0))
        };
        let refused = outcome
            .journal
            .iter()
            .rev()
            .find(played_or_refused)
            .is_some_and(|entry| entry.source.is_none());
        if refused {
            lived.expect = crate::expect::Expectation::Failure;
            lived.segments.clear();
        }
        // A program that asks for its own format (its command has no `{format}`) is
        // judged by what that format lets it see: a text run killed after its answer
        // tells the program nothing (see `judged`).
        if let Some(format) = outcome
            .journal
            .iter()
            .rev()
            .find(|e| e.source.is_some())
            .and_then(|e| e.output_format)
        {
            lived.format = format;
        }
        lived
    }

    /// A run that ended at the folder-trust check (exit 55, nothing of the case
    /// acted) in a case that is not `untrusted-folder` tested nothing of it: the
    /// program passes no `--skip-trust`, and the test's folder is trusted nowhere.
    fn refused(&self, case: &Case, outcome: &crate::run::Outcome) -> Option<crate::run::NotRun> {
        let asked = parse(&case.faults, FROM_ENV)
            .ok()?
            .iter()
            .any(|f| matches!(f, GeminiFault::Refusal(super::faults::Refusal::Untrusted)));
        let stopped = outcome.journal.iter().any(|entry| {
            entry.exit == crate::journal::ExitRecord::Code(super::wire::exits::UNTRUSTED)
                && entry.faults.iter().all(|f| !f.fired)
        });
        (stopped && !asked).then(|| crate::run::NotRun {
            reason: format!(
                "the agent stopped at Gemini CLI's folder-trust check (exit {}) before the case began: \
                 the program passes no `--skip-trust`, and the folder it runs in is not trusted",
                super::wire::exits::UNTRUSTED
            ),
            hint: "run the program with `GEMINI_CLI_TRUST_WORKSPACE=true` (`--consumer \
                   'GEMINI_CLI_TRUST_WORKSPACE=true python app.py'`), as a headless run in a \
                   folder of its own needs; or make it pass `--skip-trust`"
                .to_owned(),
        })
    }

    fn judged(&self, case: &Case) -> bool {
        parse(&case.faults, FROM_ENV)
            .map_or(true, |faults| judged(&faults, case.format == OutputFormat::Text))
    }

    fn writes_unknown(&self, case: &Case) -> bool {
        case.format == OutputFormat::StreamJson
            && parse(&case.faults, FROM_ENV).is_ok_and(|faults| crate::faults::lines::writes_unknown(&faults))
    }

    /// Lines are told apart by `type` and a message's `role`; the enums a consumer
    /// branches on are compared by value; `stats.models` is keyed by model name.
    fn drift_rules(&self) -> crate::drift::Rules {
        crate::drift::Rules {
            kind_keys: &["type", "role"],
            values: &[
                fields::STATUS,
                fields::SEVERITY,
                fields::DELTA,
                fields::ERROR_TYPE,
            ],
            maps: &["stats.models"],
        }
    }

    fn checker(&self) -> Box<dyn Lint> {
        Box::<crate::check::lines::Stdout<GeminiChecker>>::default()
    }

    crate::run::dialect::generated_by!(Gemini);
}
