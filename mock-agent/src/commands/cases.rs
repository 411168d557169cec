//! `mock-agent cases`: the cases of the matrix `mock-agent test` would run, listed
//! without running anything, for test runners of other languages that give each case
//! a test of its own (the `mock_agent` pytest plugin parametrizes over them).
//!
//! With `--json`, one JSON object a line, in the matrix's order:
//!
//! ```json
//! {"name":"default/eof@mid-line","dialect":"cursor-print","format":"stream-json","faults":"eof:after=3,byte=10","env":{"MOCK_AGENT_FAULTS":"eof:after=3,byte=10"},"succeeds":false,"answer":null,"segments":[]}
//! ```
//!
//! `env` holds the `MOCK_AGENT_*` settings that make the agent play the case (an
//! absolute `MOCK_AGENT_CASSETTE`, `MOCK_AGENT_GENERATE`, `MOCK_AGENT_FAULTS`);
//! `succeeds` is what a correct consumer concludes: whether the agent succeeded (then
//! `answer` is `result.result` and `segments` the assistant's text segments). Fields
//! may be added; none will change its meaning.

use std::path::PathBuf;

use clap::Args;
use harness::exit_codes;
use harness::frames::Exit;
use harness::run::{Case, Matrix};

use super::{parse_format, Error};
use harness::format::OutputFormat;

/// `mock-agent cases`.
#[derive(Args)]
pub(super) struct CasesArgs {
    /// Cassettes and captures, or directories of them (default: the default session only).
    #[arg(long = "cassettes", value_name = "PATH")]
    cassettes: Vec<PathBuf>,
    /// Leave out the built-in default session.
    #[arg(long)]
    no_default: bool,
    /// The matrix of server mode (`cursor-agent acp`): its sources and faults.
    #[arg(long)]
    acp: bool,
    /// Also the sessions generated from seeds 0..N.
    #[arg(long, value_name = "N", default_value_t = 0)]
    generated: u64,
    /// Instead of the matrix's faults, one case a source with these faults (repeatable;
    /// the case is named `SOURCE/given`).
    #[arg(long = "fault", value_name = "SPEC")]
    faults: Vec<String>,
    /// Cases in this output format, named with it (repeatable), as `test` makes them
    /// for a consumer that takes `{format}`.
    #[arg(long = "format", value_name = "F", value_parser = parse_format)]
    formats: Vec<OutputFormat>,
    /// Only cases whose name contains this.
    #[arg(long, value_name = "TEXT")]
    filter: Option<String>,
    /// One JSON object a case (its settings and expectation) instead of its name.
    #[arg(long)]
    json: bool,
}

/// `mock-agent cases`: lists the matrix's cases.
pub(super) fn cases(args: &CasesArgs) -> Result<Exit, Error> {
    let mut cassettes = Vec::new();
    for path in &args.cassettes {
        if path.is_dir() {
            let found = Matrix::cassettes_in(path).map_err(|source| Error::CannotList {
                path: path.clone(),
                source,
            })?;
            cassettes.extend(found);
        } else {
            cassettes.push(path.clone());
        }
    }
    let mut matrix = if args.acp {
        Matrix::acp(cassettes)
    } else {
        Matrix::standard(cassettes)
    }
    .generated(args.generated);
    matrix.default_session = !args.no_default;
    if !args.formats.is_empty() {
        matrix.formats = args.formats.clone();
    }
    matrix.filter = args.filter.clone();
    if !args.faults.is_empty() {
        // Checked as flags first, so that an error names `--fault`.
        for spec in &args.faults {
            harness::faults::parse_for(matrix.dialect, spec, harness::faults::FROM_FLAG)?;
        }
        matrix.faults = vec![("given".to_owned(), args.faults.join(";"))];
    }
    let mut text = String::new();
    for case in matrix.cases(!args.formats.is_empty())? {
        if args.json {
            text.push_str(&json(&case).to_string());
        } else {
            text.push_str(&case.name);
        }
        text.push('\n');
    }
    crate::process::print(&text).map_err(Error::Stdout)?;
    Ok(Exit::Code(exit_codes::OK))
}

/// A case as one JSON object (see the module's documentation).
fn json(case: &Case) -> serde_json::Value {
    use harness::dialects::cursor_print::expect::Expectation;
    let answer = match &case.expect {
        Expectation::Success { answer } => Some(answer.as_str()),
        Expectation::Failure => None,
    };
    let env: serde_json::Map<String, serde_json::Value> = case
        .env()
        .into_iter()
        .map(|(name, value)| (name, value.into()))
        .collect();
    serde_json::json!({
        "name": case.name,
        "dialect": case.dialect.name(),
        "format": case.format.as_str(),
        "faults": case.faults,
        "env": env,
        "succeeds": answer.is_some(),
        "answer": answer,
        "segments": case.segments,
    })
}
