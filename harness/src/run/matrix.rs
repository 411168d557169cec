//! The standard matrix: every source, in each output format the consumer uses, with
//! no fault and with each fault and preset in the placements that matter.
//!
//! Case names are stable and readable: `SOURCE/FAULT@PLACE`, with `/FORMAT` when the
//! consumer takes the format (`{format}` in its command), e.g.
//! `shell-command/eof@mid-line` or `generated-3/json/quota`.

use std::path::PathBuf;

use crate::dialects::cursor_acp::wire::{methods, stop_reasons, updates};
use crate::dialects::cursor_print::events::event_type;
use crate::dialects::cursor_print::expect::{
    expectation_of, misbehaving_of, segments_of, Expectation, MISBEHAVING,
};
use crate::dialects::cursor_print::render::RenderOptions;
use crate::dialects::Dialect;
use crate::error::CassetteError;
use crate::faults::{self, Fault};
use crate::format::OutputFormat;
#[cfg(feature = "generate")]
use crate::generate::SessionConfig;
use crate::scenario::Scenario;
use crate::source::Source;

/// Where a case's stream comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CaseSource {
    /// The built-in default session.
    Default,
    /// A cassette or capture.
    Cassette(PathBuf),
    /// The session generated from this seed; in server mode, the conversation.
    #[cfg(feature = "generate")]
    Generated(u64),
}

impl CaseSource {
    /// The name in case names: `default`, the file's stem, `generated-N`.
    pub fn name(&self) -> String {
        match self {
            CaseSource::Default => "default".to_owned(),
            CaseSource::Cassette(path) => path.file_stem().map_or_else(
                || path.display().to_string(),
                |s| s.to_string_lossy().into_owned(),
            ),
            #[cfg(feature = "generate")]
            CaseSource::Generated(seed) => format!("generated-{seed}"),
        }
    }

    pub(crate) fn source(&self) -> Source {
        match self {
            CaseSource::Default => Source::Default,
            CaseSource::Cassette(path) => Source::Cassette(path.clone()),
            #[cfg(feature = "generate")]
            CaseSource::Generated(seed) => Source::Generated {
                seed: *seed,
                config: SessionConfig::default(),
            },
        }
    }
}

/// One case: a source, the output format, faults, and what a correct consumer
/// concludes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Case {
    /// A stable name.
    pub name: String,
    /// Where the stream comes from.
    pub source: CaseSource,
    /// The output format the consumer is given (`{format}`).
    pub format: OutputFormat,
    /// The faults, `;`-separated as in `MOCK_AGENT_FAULTS`; empty for none.
    pub faults: String,
    /// What a correct consumer concludes.
    pub expect: Expectation,
    /// The assistant's text segments, in order, when the run succeeds (see
    /// [`crate::dialects::cursor_print::expect::segments_of`]); in server mode, the turn's message chunks.
    pub segments: Vec<String>,
    /// Print mode, or server mode (`cursor-agent acp`).
    pub dialect: Dialect,
}

impl Case {
    /// A case; its expectation is worked out from the source with the faults applied.
    pub fn new(
        source: CaseSource,
        format: OutputFormat,
        faults: &str,
        name: String,
    ) -> Result<Case, CassetteError> {
        let parsed: Vec<Fault> =
            faults::parse(faults, crate::faults::FROM_ENV).map_err(CassetteError::from)?;
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
            dialect: Dialect::CursorPrint,
        })
    }

    /// A case of server mode: its expectation is what a correct ACP client concludes
    /// from the source's conversation with the faults (see [`crate::dialects::cursor_acp::expect`]). A
    /// generated source is the conversation generated from its seed
    /// ([`crate::dialects::cursor_acp::generate::from_seed`], default knobs), not a print-mode session
    /// told through ACP.
    pub fn acp(source: CaseSource, faults: &str, name: String) -> Result<Case, CassetteError> {
        let parsed =
            crate::dialects::cursor_acp::faults::parse(faults, crate::dialects::cursor_acp::faults::FROM_ENV)
                .map_err(CassetteError::from)?;
        // What `cursor-agent acp` serves for the source (a generated source: the
        // conversation generated from the seed).
        let (mut conversation, _) = crate::dialects::cursor_acp::conversation(&source.source())?;
        let (expect, segments) =
            crate::dialects::cursor_acp::expect::expectation(conversation.as_mut(), parsed);
        Ok(Case::conversation(
            Dialect::CursorAcp,
            name,
            source,
            faults,
            (expect, segments),
        ))
    }

    /// A case of a dialect that converses (`stream-json` both ways), with what a
    /// correct client concludes and the answer's segments.
    fn conversation(
        dialect: Dialect,
        name: String,
        source: CaseSource,
        faults: &str,
        (expect, segments): (Expectation, Vec<String>),
    ) -> Case {
        Case {
            name,
            source,
            format: OutputFormat::StreamJson,
            faults: faults.to_owned(),
            expect,
            segments,
            dialect,
        }
    }

    /// A case of Claude Code's dialect: its expectation is what a careful SDK program
    /// concludes from the source's session with the faults, every permission asked
    /// for allowed (see [`crate::dialects::claude::expect`]).
    pub fn claude(source: CaseSource, faults: &str, name: String) -> Result<Case, CassetteError> {
        let parsed = crate::faults::claude::parse(faults, crate::faults::claude::FROM_ENV)
            .map_err(CassetteError::from)?;
        let (expect, segments) = match source.source() {
            Source::Cassette(path) => {
                let script = crate::dialects::claude::cassette::Script::open(&path)?;
                crate::dialects::claude::cassette::expectation(&script, &parsed)
            }
            other => {
                let session = crate::dialects::claude::session_of(&other)?;
                crate::dialects::claude::expect::expectation(&session, &parsed, None)
            }
        };
        let mut name = name;
        if parsed.iter().any(|f| {
            matches!(
                f,
                crate::faults::claude::ClaudeFault::Exit {
                    exit: crate::frames::Exit::Code(0),
                    ..
                }
            )
        }) && !name.ends_with(MISBEHAVING)
        {
            name.push_str(MISBEHAVING);
        }
        Ok(Case::conversation(
            Dialect::Claude,
            name,
            source,
            faults,
            (expect, segments),
        ))
    }

    /// The case as the consumer played it: in Claude Code's dialect, with the faults
    /// that acted; in server mode, with what a correct client
    /// concludes from the requests it actually sent (the last conversation of the
    /// run's journal, see [`crate::dialects::cursor_acp::expect::expectation_of_run`]);
    /// otherwise, or when the client sent no request, the case as it is.
    pub fn lived(&self, outcome: &super::Outcome) -> Case {
        let mut case = self.clone();
        if self.dialect == Dialect::Claude {
            return self.lived_claude(outcome);
        }
        if self.dialect != Dialect::CursorAcp {
            return case;
        }
        let Some(run) = outcome.journal.iter().rev().find_map(|e| e.acp.as_ref()) else {
            return case;
        };
        let Ok(faults) = crate::dialects::cursor_acp::faults::parse(
            &self.faults,
            crate::dialects::cursor_acp::faults::FROM_ENV,
        ) else {
            return case;
        };
        let Ok((mut conversation, _)) = crate::dialects::cursor_acp::conversation(&self.source.source())
        else {
            return case;
        };
        if let Some((expect, segments)) =
            crate::dialects::cursor_acp::expect::expectation_of_run(conversation.as_mut(), faults, run)
        {
            case.expect = expect;
            case.segments = segments;
        }
        case
    }

    /// A Claude Code case as the consumer played it: the expectation with only the
    /// faults that acted in its last run (a fault on `initialize` does nothing to a
    /// consumer that never sends it: `claude -p`).
    fn lived_claude(&self, outcome: &super::Outcome) -> Case {
        let mut case = self.clone();
        let Some(entry) = outcome.journal.iter().rev().find(|e| e.claude.is_some()) else {
            return case;
        };
        let Ok(faults) = crate::faults::claude::parse(&self.faults, crate::faults::claude::FROM_ENV) else {
            return case;
        };
        if faults.len() != entry.faults.len() {
            return case;
        }
        let acted: Vec<_> = faults
            .into_iter()
            .zip(&entry.faults)
            .filter(|(_, record)| record.fired)
            .map(|(fault, _)| fault)
            .collect();
        let lived = match self.source.source() {
            Source::Cassette(path) => crate::dialects::claude::cassette::Script::open(&path)
                .ok()
                .map(|script| crate::dialects::claude::cassette::expectation(&script, &acted)),
            other => crate::dialects::claude::session_of(&other).ok().map(|session| {
                crate::dialects::claude::expect::expectation(&session, &acted, Some(&entry.argv))
            }),
        };
        if let Some((expect, segments)) = lived {
            case.expect = expect;
            case.segments = segments;
        }
        case
    }

    /// The mock's settings for the case.
    pub fn env(&self) -> Vec<(String, String)> {
        let mut env = Vec::new();
        match &self.source {
            CaseSource::Default => {}
            CaseSource::Cassette(path) => {
                // The consumer runs elsewhere: the path must not depend on where.
                let path = std::path::absolute(path).unwrap_or_else(|_| path.clone());
                env.push(("MOCK_AGENT_CASSETTE".into(), path.display().to_string()));
            }
            #[cfg(feature = "generate")]
            CaseSource::Generated(seed) => env.push(("MOCK_AGENT_GENERATE".into(), seed.to_string())),
        }
        if !self.faults.is_empty() {
            env.push(("MOCK_AGENT_FAULTS".into(), self.faults.clone()));
        }
        env
    }
}

/// The faults of server mode's matrix, in the placements that matter: at
/// `initialize`, at `session/new`, mid-turn, while a permission request waits, at the
/// prompt's response and after it; and those a client must shrug off. Whether a
/// correct client fails on `authenticate-hangs` depends on whether it authenticates:
/// what it concludes is worked out from the requests it sent ([`Case::lived`]).
pub fn acp_faults() -> Vec<(String, String)> {
    let (initialize, prompt) = (methods::INITIALIZE, methods::SESSION_PROMPT);
    let (chunk, tool_call) = (updates::AGENT_MESSAGE_CHUNK, updates::TOOL_CALL);
    let (refusal, tool_updates) = (stop_reasons::REFUSAL, updates::TOOL_CALL_UPDATE);
    let faults: Vec<(&str, String)> = vec![
        ("clean", String::new()),
        ("crash@initialize", "crash-on-initialize".into()),
        ("late@initialize", format!("late:method={initialize},ms=300")),
        ("auth-required", "auth-required".into()),
        ("authenticate-hangs", "authenticate-hangs".into()),
        ("session-services-failed", "session-services-failed".into()),
        ("early-update@session-new", "early-update".into()),
        (
            "crash@mid-turn",
            format!("crash:at={chunk},text=\"Error: lost the model connection\""),
        ),
        (
            "signal-kill@mid-turn",
            format!("crash:at={tool_call},signal=KILL"),
        ),
        ("eof@mid-line", format!("eof:at={chunk},byte=20")),
        ("malformed@mid-turn", format!("malformed:at={tool_call}")),
        ("crash@asking", "crash-while-asking".into()),
        (
            "error@prompt",
            format!("error:method={prompt},code=-32603,message=\"Internal error\""),
        ),
        ("no-response@prompt", format!("no-response:method={prompt}")),
        ("late@prompt", format!("late:method={prompt},ms=500")),
        // The preset is named after the stop reason.
        (refusal, refusal.into()),
        ("max-tokens", "max-tokens".into()),
        (
            "stderr@after-turn",
            "stderr:text=\"warning: slow network\",after=30".into(),
        ),
        ("stderr-flood", "stderr-flood:bytes=1048576".into()),
        ("unknown-update", format!("unknown-update:at={tool_call}")),
        ("unknown-field", "unknown-field".into()),
        ("duplicate@tool-call", format!("duplicate:at={tool_call}")),
        ("drop-tool-updates", format!("drop:kind={tool_updates}")),
        ("reorder", "reorder".into()),
        ("huge-1m", format!("huge:bytes=1048577,at={chunk}")),
        ("chunk-7", "chunk:size=7".into()),
        ("chunk-random", "chunk:random".into()),
        ("coalesce", "coalesce".into()),
        // Requests a client did not offer: a correct one answers them with an error.
        ("unoffered-tools", "unoffered-tools".into()),
    ];
    labelled(faults)
}

/// `(label, spec)` pairs with owned labels.
fn labelled(faults: Vec<(&str, String)>) -> Vec<(String, String)> {
    faults
        .into_iter()
        .map(|(label, spec)| (label.to_owned(), spec))
        .collect()
}

/// The placements that matter, by name.
pub const PLACES: &[(&str, &str)] = &[
    ("before-init", "after=0"),
    ("mid-stream", "after=3"),
    ("mid-line", "after=3,byte=10"),
    ("at-result", "at=result"),
    ("after-result", "at=end"),
];

/// Claude Code's standard faults: the ways the real CLI fails (its presets), where a
/// run can stop (an exit, a signal, a cut line, a stall) at the places an SDK program
/// is in the middle of something (the `initialize` answer, a permission request, the
/// result), what the SDKs are known not to read (a line past the Python SDK's
/// buffer, a missing `num_turns`, a line that is not JSON), and what they must
/// ignore (an undocumented type, a stderr line).
pub fn claude_faults() -> Vec<(String, String)> {
    use crate::dialects::claude::wire::{control, types};
    let (result, asking, assistant) = (types::RESULT, control::CAN_USE_TOOL, types::ASSISTANT);
    let faults: Vec<(&str, String)> = vec![
        ("clean", String::new()),
        ("not-logged-in", "not-logged-in".into()),
        ("invalid-api-key", "invalid-api-key".into()),
        ("max-turns", "max-turns".into()),
        ("error-result", "error-result".into()),
        ("exit-1@asking", format!("exit:code=1,at={asking}")),
        ("exit-1@result", format!("exit:code=1,at={result}")),
        (
            "signal-kill@assistant",
            format!("signal:name=KILL,at={assistant}"),
        ),
        ("eof@result", format!("eof:at={result},byte=40")),
        ("stall@result", format!("stall:at={result}")),
        ("stall-2s@assistant", format!("stall:ms=2000,at={assistant}")),
        (
            "no-response@initialize",
            format!("no-response:method={}", control::INITIALIZE),
        ),
        (
            "error@initialize",
            format!("error:method={},message=\"Not ready\"", control::INITIALIZE),
        ),
        ("unknown-type", "unknown:after=2".into()),
        ("stderr-message", "stderr:text=\"warning: slow network\"".into()),
        ("malformed", format!("malformed:at={assistant}")),
        ("huge-1m", "huge".into()),
        ("missing-num-turns", "missing:field=num_turns".into()),
    ];
    labelled(faults)
}

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

/// What to run a consumer against.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct Matrix {
    /// Cassettes and captures.
    pub cassettes: Vec<PathBuf>,
    /// Whether the built-in default session is a source.
    pub default_session: bool,
    /// Generated sessions: seeds `0..generated` (in server mode, the conversations
    /// generated from them).
    #[cfg(feature = "generate")]
    pub generated: u64,
    /// The output formats the consumer uses; cases in each when it takes `{format}`.
    pub formats: Vec<OutputFormat>,
    /// The faults, `(label, spec)`; [`standard_faults`] by default.
    pub faults: Vec<(String, String)>,
    /// Only cases whose name contains this.
    pub filter: Option<String>,
    /// Print mode or server mode.
    pub dialect: Dialect,
}

impl Matrix {
    /// The standard matrix over these cassettes and the default session, in
    /// `stream-json`.
    pub fn standard(cassettes: Vec<PathBuf>) -> Self {
        Matrix {
            cassettes,
            default_session: true,
            #[cfg(feature = "generate")]
            generated: 0,
            formats: vec![OutputFormat::StreamJson],
            faults: standard_faults(),
            filter: None,
            dialect: Dialect::CursorPrint,
        }
    }

    /// Server mode's matrix over these cassettes (ACP recordings, and print-mode
    /// sessions served over ACP) and the default session, with [`acp_faults`].
    pub fn acp(cassettes: Vec<PathBuf>) -> Self {
        Matrix {
            faults: acp_faults(),
            dialect: Dialect::CursorAcp,
            ..Matrix::standard(cassettes)
        }
    }

    /// Claude Code's matrix (`claude`, as the Agent SDKs run it) over the default
    /// session (and generated sessions), with [`claude_faults`].
    pub fn claude(cassettes: Vec<PathBuf>) -> Self {
        Matrix {
            faults: claude_faults(),
            dialect: Dialect::Claude,
            ..Matrix::standard(cassettes)
        }
    }

    /// With the sessions generated from seeds `0..n` as sources too (in server mode,
    /// the conversations of [`crate::dialects::cursor_acp::generate::from_seed`]).
    #[cfg(feature = "generate")]
    #[must_use]
    pub fn generated(mut self, n: u64) -> Self {
        self.generated = n;
        self
    }

    /// The curated cassettes of a directory (`*.cassette`, `*.ndjson`), sorted.
    pub fn cassettes_in(dir: &std::path::Path) -> std::io::Result<Vec<PathBuf>> {
        let mut files: Vec<PathBuf> = std::fs::read_dir(dir)?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "cassette" || e == "ndjson"))
            .collect();
        files.sort();
        Ok(files)
    }

    /// The cases. `with_format`: the consumer takes the format, so cases name it.
    pub fn cases(&self, with_format: bool) -> Result<Vec<Case>, CassetteError> {
        let mut sources = Vec::new();
        if self.default_session {
            sources.push(CaseSource::Default);
        }
        sources.extend(self.cassettes.iter().cloned().map(CaseSource::Cassette));
        #[cfg(feature = "generate")]
        sources.extend((0..self.generated).map(CaseSource::Generated));
        let with_format = with_format && self.dialect == Dialect::CursorPrint;
        let formats = if with_format && !self.formats.is_empty() {
            self.formats.clone()
        } else {
            vec![self.formats.first().copied().unwrap_or_default()]
        };
        let mut names = std::collections::BTreeSet::new();
        for source in &sources {
            if !names.insert(source.name()) {
                return Err(crate::error::Diagnostic {
                    path: match source {
                        CaseSource::Cassette(path) => path.clone(),
                        _ => source.name().into(),
                    },
                    line: 1,
                    column: 1,
                    kind: crate::error::ProblemKind::Unsupported,
                    message: format!("two sources would both name their cases `{}/...`", source.name()),
                    source_line: None,
                    help: "rename one of the files: case names come from file names without their extension"
                        .into(),
                }
                .into());
            }
        }
        let mut cases = Vec::new();
        for source in &sources {
            for format in &formats {
                for (label, spec) in &self.faults {
                    let mut name = source.name();
                    if with_format {
                        name = format!("{name}/{format}");
                    }
                    name = format!("{name}/{label}");
                    if self.filter.as_deref().is_some_and(|f| !name.contains(f)) {
                        continue;
                    }
                    cases.push(match self.dialect {
                        Dialect::CursorPrint => Case::new(source.clone(), *format, spec, name)?,
                        Dialect::CursorAcp => Case::acp(source.clone(), spec, name)?,
                        Dialect::Claude => Case::claude(source.clone(), spec, name)?,
                    });
                }
            }
        }
        Ok(cases)
    }
}
