//! The default CLI's sessions played by the mock's own commands: `mock-agent replay`
//! (a cassette or capture, as `cursor-agent -p` prints it), `mock-agent generate` (the
//! session of a seed, printed or saved with its faults applied) and `mock-agent
//! unused` (the library's cassettes no run played).

use std::path::{Path, PathBuf};

use clap::Args;
use harness::exit_codes;
use harness::faults::FROM_FLAG;
use harness::format::OutputFormat;
use harness::frames::Exit;
use harness::generate::{self, Profile, SessionConfig};
use harness::scenario::Scenario;
use harness::source::Source;
use harness::timing::Timing;
use harness::RenderOptions;

use crate::dialects::PlayError;

/// How a run is played: the CLI's output options, faults and timing.
#[derive(Debug, Args)]
pub struct Play {
    /// The output format to render: text, json or stream-json.
    #[arg(long, default_value = "stream-json", value_parser = parse_format)]
    pub output_format: OutputFormat,
    /// Render assistant text as deltas, as `--stream-partial-output` does.
    #[arg(long)]
    pub stream_partial_output: bool,
    /// Make every `session_id` of the output equal this id.
    #[arg(long, value_name = "ID")]
    pub resume: Option<String>,
    /// A fault to inject, e.g. `eof:after=3,byte=10` (repeatable; see `mock-agent faults`).
    #[arg(long = "fault", value_name = "SPEC")]
    pub faults: Vec<String>,
    /// When to write: instant, recorded, scale=F, fixed=MS, jitter=MS, first-byte=MS.
    #[arg(long, value_name = "SPEC", default_value = "instant")]
    pub timing: String,
}

fn parse_format(text: &str) -> Result<OutputFormat, String> {
    text.parse()
        .map_err(|e: harness::format::UnknownFormat| e.to_string())
}

impl Play {
    /// The scenario these options make, with `seed` for every random choice.
    pub fn scenario(self, seed: u64) -> Result<Scenario, harness::Diagnostic> {
        let render = RenderOptions::new(self.output_format)
            .stream_partial_output(self.stream_partial_output)
            .resume(self.resume)
            .now_ms(crate::execute::now_ms());
        let mut scenario = Scenario::new(render);
        for spec in &self.faults {
            scenario
                .faults
                .extend(harness::dialects::cursor_print::faults::parse(spec, FROM_FLAG)?);
        }
        scenario.timing = Timing::parse(&self.timing, Timing::FROM_FLAG)?;
        scenario.seed = seed;
        Ok(scenario)
    }
}

/// `mock-agent replay CASSETTE`: the cassette or capture, played as the CLI prints it.
pub fn replay(cassette: PathBuf, play: Play, seed: u64) -> Result<Exit, PlayError> {
    let scenario = play.scenario(seed)?;
    Ok(super::replay(&Source::Cassette(cassette), "", &scenario, false).exit)
}

/// `mock-agent generate`: the session of `seed` (at most about `events` events, of
/// `profile`), printed as the CLI would, or written with its faults applied to `out`.
pub fn generate(
    seed: u64,
    events: Option<usize>,
    profile: Profile,
    out: Option<&Path>,
    play: Play,
) -> Result<Exit, PlayError> {
    let mut config = SessionConfig::default().profile(profile);
    if let Some(events) = events {
        config = config.max_events(events);
    }
    let scenario = play.scenario(seed)?;
    let Some(path) = out else {
        return Ok(super::replay(&Source::Generated { seed, config }, "", &scenario, false).exit);
    };
    let session = generate::from_seed(seed, &config);
    let path = generate::write_planned(&session, &scenario.faults, path)?;
    let play = format!("replay it with `mock-agent replay {}`", path.display());
    Ok(crate::dialects::wrote(
        &path,
        session.lines.len(),
        "events",
        &play,
    ))
}

/// `mock-agent unused LIBRARY JOURNAL`: the library's cassettes that no run of the
/// journal played, one a line.
pub fn unused(library: &Path, journal: &Path) -> Result<Exit, harness::journal::JournalError> {
    let entries = harness::journal::read(journal)?;
    for path in super::library::unused(library, &entries) {
        println!("{}", path.display());
    }
    Ok(Exit::Code(exit_codes::OK))
}
