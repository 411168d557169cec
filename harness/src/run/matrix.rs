//! The standard matrix: every source, in each output format the consumer uses, with
//! no fault and with each fault and preset in the placements that matter.
//!
//! Case names are stable and readable: `SOURCE/FAULT@PLACE`, with `/FORMAT` when the
//! consumer takes the format (`{format}` in its command), e.g.
//! `shell-command/eof@mid-line` or `generated-3/json/quota`.

use std::path::PathBuf;

use super::Dialect;
use crate::error::CassetteError;
use crate::expect::Expectation;
use crate::format::OutputFormat;

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
    /// The assistant's text segments, in order, when the run succeeds: the pieces the
    /// answer is made of, each of which a consumer may show on its own.
    pub segments: Vec<String>,
    /// The dialect it is played in.
    pub dialect: &'static dyn Dialect,
}

impl Case {
    /// A case of a dialect whose cases are in `stream-json` (a conversation), with
    /// what a correct client concludes and the answer's segments.
    pub fn conversation(
        dialect: &'static dyn Dialect,
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

    /// The case as the consumer played it (see [`Dialect::lived`]).
    pub fn lived(&self, outcome: &super::Outcome) -> Case {
        self.dialect.lived(self, outcome)
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

/// `(label, spec)` pairs with owned labels.
pub fn labelled(faults: Vec<(&str, String)>) -> Vec<(String, String)> {
    faults
        .into_iter()
        .map(|(label, spec)| (label.to_owned(), spec))
        .collect()
}

/// What to run a consumer against.
#[derive(Debug, Clone)]
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
    /// The faults, `(label, spec)`; the dialect's ([`Dialect::matrix_faults`]) by
    /// default.
    pub faults: Vec<(String, String)>,
    /// Only cases whose name contains one of these (all cases when empty): several
    /// filters run the union of what each keeps.
    pub filters: Vec<String>,
    /// The dialect its cases are played in.
    pub dialect: &'static dyn Dialect,
}

impl Matrix {
    /// The standard matrix of `dialect` over these cassettes and the default session,
    /// with the dialect's faults, in `stream-json`.
    pub fn of(dialect: &'static dyn Dialect, cassettes: Vec<PathBuf>) -> Self {
        Matrix {
            cassettes,
            default_session: true,
            #[cfg(feature = "generate")]
            generated: 0,
            formats: vec![OutputFormat::StreamJson],
            faults: dialect.matrix_faults(),
            filters: Vec::new(),
            dialect,
        }
    }

    /// With the sessions generated from seeds `0..n` as sources too (in a dialect with
    /// its own generator, the sessions or conversations it generates from them).
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
        let with_format = with_format && self.dialect.takes_format();
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
                    if !(self.filters.is_empty() || self.filters.iter().any(|f| name.contains(f.as_str())))
                        || !self.dialect.applies(source, spec)
                    {
                        continue;
                    }
                    cases.push(self.dialect.case(source.clone(), *format, spec, name)?);
                }
            }
        }
        Ok(cases)
    }
}
