//! `mock-agent judge`: the properties of one run of a consumer made elsewhere (a
//! pytest test, a script), judged by the code that judges `mock-agent test`'s runs
//! ([`harness::run::Properties::judge`]), so that a test runner of another language
//! asks the mock rather than judging again by rules of its own.
//!
//! The case is named as `mock-agent cases` lists it (`--case NAME` with the same
//! matrix flags), or handed back as the line `cases --json` printed for it
//! (`--case-json LINE`, or `--case-file FILE` holding it: a case whose answer is too long
//! for a command line). The run is how the consumer ended (`--exit`, `--signal`,
//! `--timed-out`), its stdout and stderr (files), and the mock's journal of the run
//! (`--journal`, `MOCK_AGENT_JOURNAL`). What cannot be told from these is not judged,
//! and said so: `no-leftover` (only the runner sees the processes a consumer leaves),
//! and without a journal `reads-to-end` and `answers-requests`.
//!
//! It prints each property's verdict, the broken ones with why, what a correct consumer
//! concludes and how this one ended; with `--json`, one object:
//!
//! ```json
//! {"case":"default/clean","expected":"success: \"...\"","seen":"exit code 0","shown":"...",
//!  "held":["ends","no-crash"],"broken":[{"name":"reports-success","detail":"the agent succeeded, but its answer is not in the consumer's stdout"}],
//!  "unjudged":[{"name":"no-leftover","why":"..."}]}
//! ```
//!
//! `shown` is the consumer's stdout as its user reads it, the agent's own JSON events
//! and noise lines left out (what `reports-success` looks for the answer in), at most
//! [`SHOWN`] bytes of it. Fields may be added; none will change its meaning. Exits 0
//! when no property broke, 100 when one did.

use std::path::PathBuf;

use clap::{ArgGroup, Args};
use harness::dialects::Dialect;
use harness::exit_codes;
use harness::frames::{Exit, Signal};
use harness::run::{self, Case, Outcome, Property, Status, Verdict};

use super::cases::MatrixArgs;
use super::{Error, Judge};

/// At most this much of the shown stdout is printed.
pub const SHOWN: usize = 4000;

/// `mock-agent judge`.
#[derive(Args)]
#[command(group(ArgGroup::new("end").required(true).args(["exit", "signal", "timed_out"])))]
#[command(group(ArgGroup::new("which").required(true).args(["case", "case_json", "case_file"])))]
pub(super) struct JudgeArgs {
    /// The case, by name, in the matrix the flags below make (as `mock-agent cases` lists it).
    #[arg(long, value_name = "NAME")]
    case: Option<String>,
    /// The case as a line of `mock-agent cases --json` (the matrix flags are then not needed).
    #[arg(long, value_name = "JSON")]
    case_json: Option<String>,
    /// A file holding the case as a line of `mock-agent cases --json` (for a case too long
    /// for a command line: `huge`'s answer is a megabyte).
    #[arg(long, value_name = "FILE")]
    case_file: Option<PathBuf>,
    #[command(flatten)]
    matrix: MatrixArgs,
    /// The consumer exited with this code.
    #[arg(long, value_name = "CODE", allow_negative_numbers = true)]
    exit: Option<i32>,
    /// The consumer died by this signal (`KILL`, `SIGKILL` or `9`).
    #[arg(long, value_name = "SIGNAL")]
    signal: Option<String>,
    /// The consumer did not end within this many seconds, and was killed.
    #[arg(long, value_name = "SECONDS")]
    timed_out: Option<f64>,
    /// A file with what the consumer printed on stdout (default: nothing).
    #[arg(long, value_name = "FILE")]
    stdout: Option<PathBuf>,
    /// A file with what the consumer printed on stderr (default: nothing).
    #[arg(long, value_name = "FILE")]
    stderr: Option<PathBuf>,
    /// The mock's journal of the run (MOCK_AGENT_JOURNAL; a file not there: the
    /// consumer never ran the agent). Without it, `reads-to-end` and
    /// `answers-requests` are not judged.
    #[arg(long, value_name = "FILE")]
    journal: Option<PathBuf>,
    /// One JSON object: `case`, `expected`, `seen`, `shown`, `held`, `broken` (`name`,
    /// `detail`), `unjudged` (`name`, `why`).
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    judge: Judge,
}

/// Why a property of a case of `dialect` is not judged, when it is not.
fn unjudged(property: Property, dialect: &dyn Dialect, journal: bool) -> Option<&'static str> {
    const JOURNAL: &str = "it is told by the mock's journal of the run: give --journal";
    match (property, dialect) {
        (Property::NoLeftover, _) => {
            Some("only `mock-agent test` sees the processes a consumer leaves running")
        }
        (Property::ReadsToEnd, _) if dialect.reads_to_end() && !journal => Some(JOURNAL),
        (Property::AnswersRequests, _) if dialect.is_conversation() && !journal => Some(JOURNAL),
        _ => None,
    }
}

/// `mock-agent judge`: the verdicts on one run.
pub(super) fn judge(args: &JudgeArgs) -> Result<Exit, Error> {
    let case = case(args)?;
    let status = status(args)?;
    let read = |path: &Option<PathBuf>, what: &'static str| -> Result<Vec<u8>, Error> {
        let Some(path) = path else { return Ok(Vec::new()) };
        std::fs::File::open(path)
            .and_then(|file| run::child::read_kept(file, run::MAX_OUTPUT))
            .map_err(|source| Error::CannotRead {
                path: path.clone(),
                what,
                source,
            })
    };
    let journal = match &args.journal {
        None => Vec::new(),
        Some(path) if !path.exists() => Vec::new(),
        Some(path) => harness::journal::read(path)?,
    };
    let output = (
        read(&args.stdout, "consumer's stdout")?,
        read(&args.stderr, "consumer's stderr")?,
    );
    let outcome = Outcome {
        wall: match status {
            Status::TimedOut => std::time::Duration::from_secs_f64(args.timed_out.unwrap_or_default()),
            _ => std::time::Duration::ZERO,
        },
        ..Outcome::ended(
            status,
            output,
            journal,
            std::env::current_dir().unwrap_or_default(),
        )
    };
    let journal = args.journal.is_some();
    let mut properties = args.judge.properties()?;
    let mut left_out = Vec::new();
    for property in Property::ALL {
        if let Some(why) = unjudged(property, case.dialect, journal).filter(|_| properties.checks(property)) {
            left_out.push((property, why));
            properties = properties.without(property);
        }
    }
    let (case, verdicts) = properties.judge(&case, &outcome);
    let not_applicable = run::properties::not_applicable(&case, &outcome, &verdicts);
    let text = if args.json {
        let mut json = json(&case, &outcome, &verdicts, &left_out);
        json["not_applicable"] = not_applicable.into();
        json.to_string() + "\n"
    } else {
        let mut text = text(&case, &outcome, &verdicts, &left_out);
        if let Some(why) = not_applicable {
            text += &format!("not applicable (no verdict: no fault of the case acted): {why}\n");
        }
        text
    };
    crate::process::print(&text).map_err(Error::Stdout)?;
    Ok(Exit::Code(if verdicts.iter().all(|v| v.held) {
        exit_codes::OK
    } else {
        exit_codes::CASES_FAILED
    }))
}

/// The case the flags name.
fn case(args: &JudgeArgs) -> Result<Case, Error> {
    let from_file = match &args.case_file {
        Some(path) => Some(std::fs::read_to_string(path).map_err(|source| Error::CannotRead {
            path: path.clone(),
            what: "case (--case-file)",
            source,
        })?),
        None => None,
    };
    if let Some(line) = args.case_json.as_deref().or(from_file.as_deref()) {
        let matrix = &args.matrix;
        let flags = !matrix.cassettes.is_empty()
            || matrix.no_default
            || matrix.acp
            || matrix.generated > 0
            || !matrix.faults.is_empty()
            || !matrix.formats.is_empty()
            || !matrix.filters.is_empty();
        if flags {
            return Err(Error::Usage(
                "--case-json and --case-file say the whole case: the matrix flags (--cassettes, --acp, --fault, ...) go with --case NAME\nhelp: drop them, or name the case with --case".into(),
            ));
        }
        return super::cases::from_json(line.trim_end());
    }
    let name = args.case.as_deref().unwrap_or_default();
    let mut matrix = args.matrix.matrix()?;
    // The cases whose name holds it: the one named so is among them.
    matrix.filters = vec![name.to_owned()];
    let found = matrix.cases(!args.matrix.formats.is_empty())?;
    if let Some(case) = found.iter().find(|c| c.name == name) {
        return Ok(case.clone());
    }
    let near: Vec<&str> = found.iter().take(5).map(|c| c.name.as_str()).collect();
    let help = if near.is_empty() {
        "`mock-agent cases` with the same flags lists the cases (a cassette's case needs --cassettes, a server-mode one --acp)".to_owned()
    } else {
        format!("did you mean {}?", near.join(", "))
    };
    Err(Error::Usage(format!(
        "--case {name}: no case of the matrix is named so\nhelp: {help}"
    )))
}

/// How the consumer ended, from the flags.
fn status(args: &JudgeArgs) -> Result<Status, Error> {
    if let Some(code) = args.exit {
        return Ok(Status::Exited(code));
    }
    if let Some(name) = &args.signal {
        let signal = Signal::parse(name).ok_or_else(|| {
            Error::Usage(format!(
                "--signal {name}: no such signal\nhelp: name it as `kill -l` does (KILL, SIGTERM) or by number (9)"
            ))
        })?;
        return Ok(Status::Signaled(signal.number()));
    }
    match args.timed_out {
        Some(seconds) if seconds.is_finite() && seconds >= 0.0 => Ok(Status::TimedOut),
        seconds => Err(Error::Usage(format!(
            "--timed-out {}: give the seconds the consumer had",
            seconds.unwrap_or_default()
        ))),
    }
}

/// The consumer's stdout as its user reads it (what `reports-success` looks in),
/// at most [`SHOWN`] bytes of it.
fn shown(case: &Case, outcome: &Outcome) -> String {
    let stdout = String::from_utf8_lossy(&outcome.stdout);
    let mut shown = case.dialect.shown_text(&stdout, &case.faults);
    if shown.len() > SHOWN {
        let mut end = SHOWN;
        while !shown.is_char_boundary(end) {
            end -= 1;
        }
        shown.truncate(end);
        shown.push_str("...");
    }
    shown
}

fn json(
    case: &Case,
    outcome: &Outcome,
    verdicts: &[Verdict],
    left_out: &[(Property, &str)],
) -> serde_json::Value {
    let held: Vec<&str> = verdicts
        .iter()
        .filter(|v| v.held)
        .map(|v| v.name.as_str())
        .collect();
    let broken: Vec<serde_json::Value> = verdicts
        .iter()
        .filter(|v| !v.held)
        .map(|v| serde_json::json!({"name": v.name, "detail": v.detail}))
        .collect();
    let unjudged: Vec<serde_json::Value> = left_out
        .iter()
        .map(|(property, why)| serde_json::json!({"name": property.name(), "why": why}))
        .collect();
    serde_json::json!({
        "case": case.name,
        "expected": run::report::expected(case),
        "seen": run::report::status(outcome.status),
        "shown": shown(case, outcome),
        "held": held,
        "broken": broken,
        "unjudged": unjudged,
    })
}

fn text(case: &Case, outcome: &Outcome, verdicts: &[Verdict], left_out: &[(Property, &str)]) -> String {
    use std::fmt::Write as _;
    let mut text = String::new();
    let _ = writeln!(text, "case: {}", case.name);
    let _ = writeln!(text, "expected: {}", run::report::expected(case));
    let _ = writeln!(text, "seen: {}", run::report::status(outcome.status));
    for verdict in verdicts {
        if verdict.held {
            let _ = writeln!(text, "  ok   {}", verdict.name);
        } else {
            let _ = writeln!(text, "  FAIL {}: {}", verdict.name, verdict.detail);
        }
    }
    for (property, why) in left_out {
        let _ = writeln!(text, "  --   {}: not judged: {why}", property.name());
    }
    if verdicts
        .iter()
        .any(|v| !v.held && v.name == Property::ReportsSuccess.name())
    {
        let _ = writeln!(
            text,
            "shown (its stdout as its user reads it, the agent's events and noise lines left out): {:?}",
            shown(case, outcome)
        );
    }
    text
}
