//! Faulted cases: a generated session with faults overlaid, labelled with what a
//! correct consumer concludes from it.

use std::path::{Path, PathBuf};

use proptest::prelude::*;

use super::config::SessionConfig;
use super::Session;
use super::BASE_MS;
use crate::cassette::Writer;
use crate::dialects::cursor_print::expect::{expectation_of, Expectation};
use crate::dialects::cursor_print::faults::{self, Fault};
use crate::dialects::cursor_print::render::RenderOptions;
use crate::dialects::cursor_print::scenario::Scenario;
use crate::error::WriteError;
use crate::format::OutputFormat;
use crate::frames::Frame;

/// A session with faults overlaid, and what a correct consumer concludes from it.
#[derive(Debug, Clone, PartialEq)]
pub struct Faulted {
    /// The session.
    pub session: Session,
    /// The faults, as given to `MOCK_AGENT_FAULTS` (`;`-joined).
    pub faults: Vec<String>,
    /// What a correct consumer concludes.
    pub expect: Expectation,
}

impl Faulted {
    /// The faults, parsed.
    pub fn parsed_faults(&self) -> Vec<Fault> {
        parse_all(&self.faults)
    }

    /// The frames of the case as the mock performs them in `stream-json`, faults applied.
    pub fn frames(&self) -> Vec<Frame> {
        planned_frames(&self.session, self.parsed_faults())
    }

    /// Writes the case, faults applied, as a cassette that replays it exactly
    /// (including stalls and a closed stdout).
    pub fn write_cassette(&self, path: &Path) -> Result<PathBuf, WriteError> {
        write_planned(&self.session, &self.parsed_faults(), path)
    }
}

/// The faults of these specs, in order (a spec that does not parse, which none that
/// [`faulted`] draws is, is left out).
fn parse_all(specs: &[String]) -> Vec<Fault> {
    specs
        .iter()
        .filter_map(|spec| faults::parse(spec, crate::faults::FROM_ENV).ok())
        .flatten()
        .collect()
}

/// Writes a session with these faults applied, in `stream-json`, as a cassette.
pub fn write_planned(session: &Session, faults: &[Fault], path: &Path) -> Result<PathBuf, WriteError> {
    let mut writer = Writer::create(path, &session.header())?;
    for frame in planned_frames(session, faults.to_vec()) {
        writer.write(&frame)?;
    }
    writer.finish()
}

/// The frames the mock performs for a session with these faults, in `stream-json`.
fn planned_frames(session: &Session, faults: Vec<Fault>) -> Vec<Frame> {
    let scenario = Scenario {
        render: RenderOptions::new(OutputFormat::StreamJson)
            .stream_partial_output(session.stream_partial_output)
            .now_ms(BASE_MS),
        faults,
        ..Scenario::default()
    };
    match scenario.plan(session.recording()) {
        Ok(plan) => plan.frames.filter_map(Result::ok).collect(),
        Err(_) => session.frames(),
    }
}

/// What a correct consumer concludes from a session with faults: success when the
/// stream still holds a readable `result` and the process exits 0.
pub fn expectation(session: &Session, faults: &[Fault]) -> Expectation {
    expectation_of(&planned_frames(session, faults.to_vec()))
}

/// A strategy for sessions with 0 to `max_faults` faults overlaid (every fault of print
/// mode, in the placements that matter: [`faults::strategy::print`]), each labelled
/// with what a correct consumer concludes.
pub fn faulted(config: SessionConfig, max_faults: usize) -> impl Strategy<Value = Faulted> {
    (
        super::session(config),
        crate::faults::strategy::list(faults::strategy::print(), max_faults),
    )
        .prop_map(|(session, (specs, faults))| {
            let expect = expectation(&session, &faults);
            Faulted {
                session,
                faults: specs,
                expect,
            }
        })
}
