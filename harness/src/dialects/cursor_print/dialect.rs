//! Print mode's registration: how the machinery plays, judges, fuzzes and draws a run
//! of `cursor-agent -p` (see [`crate::run::Dialect`]).

use std::path::PathBuf;

use super::check::Checker;
use super::events::event_type;
use super::expect::{expectation_of, misbehaving_of, segments_of, Expectation, MISBEHAVING};
use super::render::RenderOptions;
use super::scenario::Scenario;
use super::source::Source;
use crate::cassette::Header;
use crate::check::Lint;
use crate::error::CassetteError;
use crate::format::OutputFormat;
use crate::frames::Frame;
use crate::journal::Entry;
use crate::run::dialect::{About, CaseResult};
#[cfg(feature = "generate")]
use crate::run::fuzz::{Fuzz, FuzzReport};
use crate::run::{Case, CaseSource, Dialect, Matrix};
#[cfg(feature = "generate")]
use crate::run::{Generated, RunError, Runner};
#[cfg(feature = "generate")]
use {crate::error::WriteError, std::path::Path};

/// Cursor's print mode: `cursor-agent -p`.
#[derive(Debug, Clone, Copy, Default)]
pub struct CursorPrint;

/// Print mode's names and what it takes: the default dialect (no flag selects it),
/// one way, in each `--output-format`, read to its end.
static ABOUT: About = About::typed::<super::faults::Fault>(
    (
        "cursor-print",
        "print mode (`cursor-agent -p`)",
        &["cursor-agent", "agent"],
    ),
    standard_faults,
)
.one_way()
.takes_format()
.reads_to_end()
.test_flags("")
.owns(super::expect::OWN_OBJECTS);

impl CaseSource {
    /// The print-mode source of a case: the session every dialect serves (a generated
    /// one with the default knobs).
    pub fn source(&self) -> Source {
        match self {
            CaseSource::Default => Source::Default,
            CaseSource::Cassette(path) => Source::Cassette(path.clone()),
            #[cfg(feature = "generate")]
            CaseSource::Generated(seed) => Source::Generated {
                seed: *seed,
                config: super::generate::SessionConfig::default(),
            },
        }
    }
}

impl Case {
    /// A case; its expectation is worked out from the source with the faults applied.
    pub fn new(
        source: CaseSource,
        format: OutputFormat,
        faults: &str,
        name: String,
    ) -> Result<Case, CassetteError> {
        let parsed: Vec<super::faults::Fault> =
            super::faults::parse(faults, crate::faults::FROM_ENV).map_err(CassetteError::from)?;
        let frames = |format: OutputFormat| -> Result<Vec<crate::frames::Frame>, CassetteError> {
            let mut scenario = Scenario::new(RenderOptions::new(format));
            scenario.faults = parsed.clone();
            let plan = scenario.plan(source.source().open("hi")?)?;
            plan.frames.collect()
        };
        let stream = frames(OutputFormat::StreamJson)?;
        let mut expect = expectation_of(&stream);
        // A run the real CLI never makes (asked for with `exit:code=0`) says so.
        let mut name = name;
        if misbehaving_of(&stream).is_some() && !name.ends_with(MISBEHAVING) {
            name.push_str(MISBEHAVING);
        }
        let segments = match expect {
            Expectation::Success { .. } => segments_of(&stream),
            Expectation::Failure => Vec::new(),
        };
        if format == OutputFormat::Text && expect == Expectation::Failure {
            // Text says nothing of a result: a run cut short that exits 0 is, to a
            // text consumer, a success with whatever text came.
            let text = frames(OutputFormat::Text)?;
            let hangs = text
                .iter()
                .any(|f| matches!(f, crate::frames::Frame::Stall { duration: None, .. }));
            let exits_0 = text
                .iter()
                .any(|f| matches!(f, crate::frames::Frame::End(e) if e.exit.success()));
            if exits_0 && !hangs {
                expect = Expectation::Success {
                    answer: String::new(),
                };
            }
        }
        Ok(Case {
            name,
            source,
            format,
            faults: faults.to_owned(),
            expect,
            segments,
            dialect: super::super::CURSOR_PRINT,
        })
    }
}

impl Matrix {
    /// Print mode's standard matrix over these cassettes and the default session, in
    /// `stream-json`, with [`standard_faults`].
    pub fn standard(cassettes: Vec<PathBuf>) -> Self {
        Matrix::of(super::super::CURSOR_PRINT, cassettes)
    }
}

/// The placements that matter, by name.
pub const PLACES: &[(&str, &str)] = &[
    ("before-init", "after=0"),
    ("mid-stream", "after=3"),
    ("mid-line", "after=3,byte=10"),
    ("at-result", "at=result"),
    ("after-result", "at=end"),
];

/// The standard faults: `(label, spec)`.
pub fn standard_faults() -> Vec<(String, String)> {
    let mut faults = vec![("clean".to_owned(), String::new())];
    for (place, spec) in PLACES {
        faults.push((format!("eof@{place}"), format!("eof:{spec}")));
    }
    for (place, spec) in &PLACES[..4] {
        faults.push((format!("signal-kill@{place}"), format!("signal:name=KILL,{spec}")));
    }
    for (place, spec) in [PLACES[0], PLACES[1], PLACES[4]] {
        faults.push((format!("noise@{place}"), format!("noise:{spec}")));
        faults.push((format!("malformed@{place}"), format!("malformed:{spec}")));
    }
    let (result, tool_call) = (event_type::RESULT, event_type::TOOL_CALL);
    let more: Vec<(&str, String)> = vec![
        ("stall@at-result", format!("stall:at={result}")),
        ("stall-2s@mid-line", "stall:ms=2000,after=3,byte=10".into()),
        (
            "close-stdout@mid-stream",
            "close-stdout:after=3;stall:ms=2000,after=3".into(),
        ),
        ("stderr-flood", "stderr-flood:bytes=1048576".into()),
        ("stderr-message", "stderr:text=\"warning: slow network\"".into()),
        ("exit-1@after-success", "exit:code=1".into()),
        ("drop-result", format!("drop:type={result}")),
        ("duplicate@tool-call", format!("duplicate:at={tool_call}")),
        ("duplicate@result", format!("duplicate:at={result}")),
        ("reorder", "reorder".into()),
        ("unknown-event", "unknown-event:after=3".into()),
        ("unknown-field", "unknown-field".into()),
        ("chunk-7", "chunk:size=7".into()),
        ("chunk-random", "chunk:random".into()),
        ("coalesce", "coalesce".into()),
        ("huge-64k", "huge:bytes=70000".into()),
        ("huge-1m", "huge:bytes=1048577".into()),
        ("crlf", "crlf".into()),
        ("invalid-utf8", "invalid-utf8".into()),
        ("auth-required", "auth-required".into()),
        ("trust-required", "trust-required".into()),
        ("quota", "quota".into()),
        ("unknown-model", "unknown-model".into()),
        ("session-in-use", "session-in-use".into()),
        ("connection-lost", "connection-lost".into()),
    ];
    faults.extend(more.into_iter().map(|(label, spec)| (label.to_owned(), spec)));
    faults
}

impl Dialect for CursorPrint {
    fn about(&self) -> &About {
        &ABOUT
    }

    /// A preset of the matrix is left out where one of its faults has nothing to act
    /// on (`reorder` on a session with no parallel tool calls): played, the case would
    /// be a clean run under a fault's name. A fault asked for by name always plays.
    fn applies(&self, source: &CaseSource, faults: &str) -> bool {
        if !standard_faults().iter().any(|(_, spec)| spec == faults) {
            return true;
        }
        if let CaseSource::Cassette(path) = source {
            // Too large to plan twice: played as asked.
            if std::fs::metadata(path).map_or(true, |m| m.len() > crate::source::PREFLIGHT_LIMIT) {
                return true;
            }
        }
        let acts = || -> Option<bool> {
            let mut scenario = Scenario::new(RenderOptions::new(OutputFormat::StreamJson));
            scenario.faults = super::faults::parse(faults, crate::faults::FROM_ENV).ok()?;
            let plan = scenario.plan(source.source().open("hi").ok()?).ok()?;
            for frame in plan.frames {
                frame.ok()?;
            }
            Some(plan.applied.report().iter().all(|(_, fired)| *fired))
        };
        acts().unwrap_or(true)
    }

    fn case(&self, source: CaseSource, format: OutputFormat, faults: &str, name: String) -> CaseResult {
        Case::new(source, format, faults, name)
    }

    fn shown_text(&self, output: &str, faults: &str) -> String {
        super::expect::shown_text(output, faults)
    }

    fn planned(&self, case: &Case, entry: &Entry) -> Option<(Vec<Frame>, Vec<Frame>)> {
        let format = entry.output_format.unwrap_or(case.format);
        let prompt = entry.prompt.as_deref().unwrap_or("hi");
        let plan = |faults: &str| -> Option<Vec<Frame>> {
            let mut scenario = Scenario::new(RenderOptions::new(format));
            scenario.faults = super::faults::parse(faults, crate::faults::FROM_ENV).ok()?;
            let recording = case.source.source().open(prompt).ok()?;
            let plan = scenario.plan(recording).ok()?;
            plan.frames.collect::<Result<Vec<_>, _>>().ok()
        };
        Some((plan(&case.faults)?, plan("")?))
    }

    /// Print mode holds what no other dialect claims: a capture, a cassette of `-p`.
    fn claims(&self, header: &Header) -> bool {
        let _ = header;
        true
    }

    fn checker(&self) -> Box<dyn Lint> {
        Box::new(Checker::new())
    }

    /// The session of `seed` with the default knobs: written as a cassette, or told as
    /// the CLI prints it in `stream-json`.
    #[cfg(feature = "generate")]
    fn generate(&self, seed: u64, size: Option<usize>, out: Option<&Path>) -> Result<Generated, WriteError> {
        use super::generate::{from_seed, write_planned, SessionConfig};
        let mut config = SessionConfig::default();
        if let Some(size) = size {
            config = config.max_events(size);
        }
        let session = from_seed(seed, &config);
        let Some(out) = out else {
            return Ok(crate::run::Generated::Told(session.stdout()));
        };
        let path = write_planned(&session, &[], out)?;
        let play = format!("replay it with `mock-agent replay {}`", path.display());
        Ok(crate::run::Generated::Written {
            path,
            lines: session.lines.len(),
            unit: "events",
            play,
        })
    }

    /// Generated sessions with print-mode faults. Each case is written as a cassette
    /// with its faults applied and replayed from it, so what fails is exactly what the
    /// cassette holds. (The faults that only split or join writes, `chunk` and
    /// `coalesce`, are not in cassettes and are not drawn.)
    #[cfg(feature = "generate")]
    fn fuzz(&self, fuzz: &Fuzz, runner: &Runner<'_>) -> Result<FuzzReport, RunError> {
        use std::path::Path;

        use proptest::strategy::Strategy;

        use super::generate::{faulted, SessionConfig};
        use crate::run::fuzz::{write_case, FuzzFailure};
        let strategy = faulted(SessionConfig::default(), 2).prop_filter(
            "chunk and coalesce are not in cassettes",
            |case| {
                !case
                    .faults
                    .iter()
                    .any(|f| f.starts_with("chunk") || f.starts_with("coalesce"))
            },
        );
        let case_of = |case: &crate::generate::Faulted, path: &Path, n: u64| {
            case.write_cassette(path).map_err(|e| write_case(path, e))?;
            Case::new(
                CaseSource::Cassette(path.to_owned()),
                OutputFormat::StreamJson,
                "",
                format!("fuzz-{n}"),
            )
            .map_err(|e| write_case(path, e))
        };
        let save = |minimal: crate::generate::Faulted, cassette: PathBuf| {
            minimal
                .write_cassette(&cassette)
                .map_err(|e| write_case(&cassette, e))?;
            Ok(FuzzFailure {
                cassette,
                dialect: super::super::CURSOR_PRINT,
                faults: String::new(),
                broken: Vec::new(),
                shrink_stopped: false,
                lines: minimal
                    .frames()
                    .iter()
                    .filter(|f| matches!(f, crate::frames::Frame::Line(l) if l.stream == crate::frames::Stream::Stdout))
                    .count(),
            })
        };
        fuzz.search(runner, "fuzz", strategy, case_of, save)
    }
}
