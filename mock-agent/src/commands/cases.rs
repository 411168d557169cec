//! `mock-agent cases`: the cases of the matrix `mock-agent test` would run, listed
//! without running anything, for test runners of other languages that give each case
//! a test of its own (the `mock_agent` pytest plugin parametrizes over them).
//!
//! With `--json`, one JSON object a line, in the matrix's order:
//!
//! ```json
//! {"name":"default/eof@mid-line","dialect":"cursor-print","format":"stream-json","faults":"eof:after=3,byte=10","env":{"MOCK_AGENT_FAULTS":"eof:after=3,byte=10"},"succeeds":false,"either":false,"answer":null,"segments":[]}
//! ```
//!
//! `env` holds the `MOCK_AGENT_*` settings that make the agent play the case (an
//! absolute `MOCK_AGENT_CASSETTE`, `MOCK_AGENT_GENERATE`, `MOCK_AGENT_FAULTS`);
//! `succeeds` is what a correct consumer concludes: whether the agent succeeded (then
//! `answer` is `result.result` and `segments` the assistant's text segments); `either`
//! is `true` where either conclusion is right (a fault breaks what the consumer's SDK
//! can read: the SDK itself may raise, or skip the broken line), so a test must not
//! hold the consumer to `succeeds` there. Fields may be added; none will change its
//! meaning.
//!
//! The line is also how a case is handed back: `mock-agent judge --case-json LINE`
//! judges a run of the case ([`from_json`] reads it).

use std::path::PathBuf;

use clap::Args;
use harness::dialects::Dialect;
use harness::exit_codes;
use harness::frames::Exit;
use harness::run::{Case, Matrix};

use super::{parse_format, Error};
use harness::format::OutputFormat;

/// The flags that make the matrix, as `test` and `cases` take them.
#[derive(Args)]
pub(super) struct MatrixArgs {
    /// Cassettes and captures to test with, or directories of them (default: the default session only).
    #[arg(long = "cassettes", value_name = "PATH")]
    pub(super) cassettes: Vec<PathBuf>,
    /// Leave out the built-in default session.
    #[arg(long)]
    pub(super) no_default: bool,
    /// Test an ACP client: the consumer runs `cursor-agent acp` and talks to it; the
    /// matrix is server mode's sources and faults (`--dialect cursor-acp`).
    #[arg(long, conflicts_with = "dialect")]
    pub(super) acp: bool,
    /// The agent CLI the consumer drives, by the name `mock-agent dialects` lists (the
    /// first is the default); the mock is that CLI's executables on the consumer's
    /// PATH.
    #[arg(long, value_name = "NAME", value_parser = parse_dialect)]
    pub(super) dialect: Option<&'static dyn Dialect>,
    /// Also test with the sessions generated from seeds 0..N (with `--acp`: the
    /// conversations generated from them).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub(super) generated: u64,
    /// Instead of the matrix's faults, one case a source with these faults (repeatable;
    /// the case is named `SOURCE/given`); e.g. the faults `mock-agent fuzz` found.
    #[arg(long = "fault", value_name = "SPEC")]
    pub(super) faults: Vec<String>,
    /// An output format the consumer uses (repeatable; with `{format}` in its command).
    #[arg(long = "format", value_name = "F", value_parser = parse_format)]
    pub(super) formats: Vec<OutputFormat>,
    /// Only cases whose name contains this (repeatable: the cases any of them keeps).
    #[arg(long = "filter", value_name = "TEXT")]
    pub(super) filters: Vec<String>,
}

/// A dialect by its name.
pub(super) fn parse_dialect(name: &str) -> Result<&'static dyn Dialect, String> {
    harness::dialects::by_name(name).ok_or_else(|| {
        format!(
            "`{name}` is not a dialect; use one of {}",
            harness::dialects::names()
        )
    })
}

impl MatrixArgs {
    /// The dialect of the matrix.
    pub(super) fn dialect(&self) -> &'static dyn Dialect {
        crate::dialects::chosen(self.acp, self.dialect)
    }

    /// The matrix these flags make.
    pub(super) fn matrix(&self) -> Result<Matrix, Error> {
        let mut cassettes = Vec::new();
        for path in &self.cassettes {
            if path.is_dir() {
                let found = Matrix::cassettes_in(path).map_err(|source| Error::CannotList {
                    path: path.clone(),
                    what: "cassettes",
                    source,
                })?;
                cassettes.extend(found);
            } else {
                cassettes.push(path.clone());
            }
        }
        let dialect = self.dialect();
        let mut matrix = Matrix::of(dialect, cassettes).generated(self.generated);
        matrix.default_session = !self.no_default;
        if !self.formats.is_empty() {
            matrix.formats = self.formats.clone();
        }
        matrix.filters = self.filters.clone();
        if !self.faults.is_empty() {
            check_faults(&self.faults, dialect)?;
            matrix.faults = vec![("given".to_owned(), self.faults.join(";"))];
        }
        Ok(matrix)
    }
}

/// Checks `--fault` specs in the grammar of the dialect.
fn check_faults(specs: &[String], dialect: &dyn Dialect) -> Result<(), harness::Diagnostic> {
    use harness::error::Origin;
    const FLAG: Origin<'static> = Origin {
        name: "--fault",
        help: "`mock-agent faults` lists every fault, each dialect's in its section, with an example",
    };
    for spec in specs {
        dialect.check_faults(spec, FLAG)?;
    }
    Ok(())
}

/// `mock-agent cases`.
#[derive(Args)]
pub(super) struct CasesArgs {
    #[command(flatten)]
    matrix: MatrixArgs,
    /// One JSON object a case (its settings and expectation) instead of its name.
    #[arg(long)]
    json: bool,
}

/// `mock-agent cases`: lists the matrix's cases.
pub(super) fn cases(args: &CasesArgs) -> Result<Exit, Error> {
    let matrix = args.matrix.matrix()?;
    let mut text = String::new();
    for case in matrix.cases(!args.matrix.formats.is_empty())? {
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
pub(super) fn json(case: &Case) -> serde_json::Value {
    use harness::expect::Expectation;
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
        "either": !case.dialect.judged(case),
        "answer": answer,
        "segments": case.segments,
    })
}

/// The case a line of `cases --json` describes: its source (from its `env`: an
/// absolute `MOCK_AGENT_CASSETTE`, `MOCK_AGENT_GENERATE`, else the default session),
/// dialect, format and faults, its expectation worked out again from the source. A
/// line whose `succeeds` or `answer` the source no longer gives (the cassette changed
/// since it was listed) is an error.
pub(super) fn from_json(line: &str) -> Result<Case, Error> {
    use harness::run::CaseSource;
    let wrong = |what: String| {
        Error::Usage(format!(
            "--case-json: {what}\nhelp: give a line of `mock-agent cases --json` as it is"
        ))
    };
    let record: serde_json::Value = serde_json::from_str(line).map_err(|e| {
        wrong(format!(
            "not JSON (line {}, column {}): {e}",
            e.line(),
            e.column()
        ))
    })?;
    let text = |field: &str| -> Result<&str, Error> {
        record
            .get(field)
            .and_then(serde_json::Value::as_str)
            .ok_or_else(|| wrong(format!("no `{field}` string")))
    };
    let name = text("name")?.to_owned();
    let faults = record
        .get("faults")
        .and_then(serde_json::Value::as_str)
        .unwrap_or_default();
    let mut source = CaseSource::Default;
    let env = record.get("env").and_then(serde_json::Value::as_object);
    for (variable, value) in env.into_iter().flatten() {
        let value = value
            .as_str()
            .ok_or_else(|| wrong(format!("`env.{variable}` is not a string")))?;
        source = match variable.as_str() {
            "MOCK_AGENT_CASSETTE" => CaseSource::Cassette(PathBuf::from(value)),
            "MOCK_AGENT_GENERATE" => CaseSource::Generated(
                value
                    .parse()
                    .map_err(|_| wrong(format!("`env.MOCK_AGENT_GENERATE` is no seed: {value:?}")))?,
            ),
            "MOCK_AGENT_FAULTS" if value == faults => source,
            "MOCK_AGENT_FAULTS" => {
                return Err(wrong(format!(
                    "`env.MOCK_AGENT_FAULTS` is not `faults` ({value:?} vs {faults:?})"
                )))
            }
            other => {
                return Err(wrong(format!(
                    "`env.{other}`: this mock-agent makes no case with it (a newer one listed the case?)"
                )))
            }
        };
    }
    let dialect = text("dialect")?;
    let Some(dialect) = harness::dialects::by_name(dialect) else {
        return Err(wrong(format!(
            "no dialect `{dialect}`; the dialects are {}",
            harness::dialects::names()
        )));
    };
    let format = match record.get("format") {
        Some(_) => parse_format(text("format")?).map_err(wrong)?,
        None => OutputFormat::StreamJson,
    };
    let case = dialect.case(source, format, faults, name)?;
    let now = json(&case);
    for field in ["succeeds", "either", "answer"] {
        if let Some(listed) = record.get(field).filter(|v| now.get(field) != Some(*v)) {
            return Err(Error::Usage(format!(
                "--case-json: case {}: listed with `{field}` {listed}, but its source now gives {}\nhelp: list the cases again (`mock-agent cases --json`): the cassette changed since",
                case.name, now[field]
            )));
        }
    }
    Ok(case)
}

#[cfg(test)]
mod tests {
    use super::{from_json, json};
    use harness::run::Matrix;

    #[test]
    fn a_listed_case_reads_back_as_itself() {
        let cassettes =
            Matrix::cassettes_in(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../cassettes"))
                .expect("the curated cassettes");
        let print = Matrix::standard(cassettes[..2].to_vec()).generated(1);
        let acp = Matrix::acp(Vec::new()).generated(1);
        let mut cases = print.cases(false).expect("cases");
        cases.extend(acp.cases(false).expect("cases"));
        assert!(cases.len() > 100);
        for case in cases {
            let line = json(&case).to_string();
            assert_eq!(from_json(&line).expect(&line), case);
        }
    }

    #[test]
    fn a_line_that_no_longer_fits_its_source_is_refused() {
        let case = &Matrix::standard(Vec::new()).cases(false).expect("cases")[0];
        let mut record = json(case);
        record["answer"] = "another answer".into();
        let e = from_json(&record.to_string()).expect_err("refused").to_string();
        assert!(e.contains("list the cases again"), "{e}");
        for (line, says) in [
            ("{", "not JSON"),
            (
                r#"{"name":"x","dialect":"cursor-cli","faults":""}"#,
                "no dialect `cursor-cli`",
            ),
            (
                r#"{"name":"x","dialect":"cursor-print","format":"stream-json","faults":"","env":{"MOCK_AGENT_TIMING":"instant"}}"#,
                "MOCK_AGENT_TIMING",
            ),
        ] {
            let e = from_json(line).expect_err(line).to_string();
            assert!(e.contains(says), "{line}: {e}");
        }
    }
}
