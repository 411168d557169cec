//! The mock's own subcommands (`replay`, `generate`, `record`, `lint`, `test`,
//! `fuzz`, ...): their grammar, parsed with clap, and what each does. None collides
//! with a subcommand of the real CLI.

mod cases;
mod drift;
mod error;
mod judge;
mod lint;
mod snapshots;
mod test;

pub use error::Error;

use std::path::PathBuf;

use crate::dialects::default_play::Play;
use clap::{Args, Parser, Subcommand};
use harness::exit_codes;
use harness::format::OutputFormat;
use harness::frames::Exit;
use harness::generate::Profile;

/// The mock's own subcommands; any other first argument goes to the emulated CLI.
const OWN_COMMANDS: &[&str] = &[
    "replay",
    "record",
    "unused",
    "generate",
    "lint",
    "test",
    "fuzz",
    "snapshots",
    "faults",
    "dialects",
    "cases",
    "judge",
    "model-api",
    "drift",
    "help",
    "--help",
    "-h",
];

/// A stand-in for AI coding agents' CLIs, for testing programs that drive them.
///
/// Run it under a CLI's name (a link named `cursor-agent`, `claude`, `codex` or
/// `gemini`), or as `mock-agent WORD ARGS` (below), with the real CLI's arguments, and
/// it plays a recorded session (MOCK_AGENT_CASSETTE) or the built-in default one as
/// that CLI does; `mock-agent -p "prompt"` is `cursor-agent -p "prompt"`.
#[derive(Parser)]
#[command(name = "mock-agent", version, disable_version_flag = true)]
struct Cli {
    #[command(subcommand)]
    command: Own,
}

#[derive(Subcommand)]
enum Own {
    /// Replay a cassette or a bare stream-json capture on stdout and stderr.
    Replay {
        /// The cassette (`.cassette`) or capture (`.ndjson`) to replay.
        cassette: PathBuf,
        #[command(flatten)]
        play: Play,
        /// The seed of every random choice (jitter, random chunks).
        #[arg(long, default_value_t = 0)]
        seed: u64,
    },
    /// Print the session generated from a seed, as the CLI would, or save it as a cassette.
    ///
    /// The same seed gives the same bytes on every run and machine. With `--acp`, the
    /// conversation of server mode generated from the seed (what `MOCK_AGENT_GENERATE=N
    /// cursor-agent acp` serves), told one message a line, or saved as a cassette.
    Generate {
        /// The seed of the session (and of every random choice).
        #[arg(long)]
        seed: u64,
        /// At most about this many events (with `--acp`: messages, both directions).
        #[arg(long, value_name = "M")]
        events: Option<usize>,
        /// `real`: everything the real CLI prints; `seeds`: only what its documentation shows.
        #[arg(long, default_value = "real", value_parser = parse_profile)]
        profile: Profile,
        /// Write the session, faults applied, as a cassette to this file instead of printing it.
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
        /// A conversation of server mode (`cursor-agent acp`) instead of a print-mode
        /// session (`--dialect cursor-acp`).
        #[arg(long, conflicts_with_all = ["profile", "output_format", "stream_partial_output", "resume", "faults", "timing", "dialect"])]
        acp: bool,
        /// The dialect whose session to generate: `cursor-print` (the default),
        /// `cursor-acp`, `claude`, ... (`mock-agent dialects` lists them); another
        /// than the default takes `--seed`, `--events` and `--out` only.
        #[arg(long, value_name = "NAME", value_parser = cases::parse_dialect)]
        dialect: Option<&'static dyn harness::dialects::Dialect>,
        #[command(flatten)]
        play: Play,
    },
    /// Check cassettes and captures (or directories of them) against the protocol:
    /// errors and warnings by line.
    ///
    /// After 5 findings of one rule in a file, the rest are counted on one line
    /// (`... and N more [rule]`). Exits 0 when no file has an error, 1 when one breaks
    /// the protocol, and with the mock's own code (65, 66) when one cannot be read.
    Lint(lint::LintArgs),
    /// Run a consumer against every case of the matrix, check its properties, and
    /// compare each case's record with its snapshot.
    ///
    /// Exits 0 when every property held and every snapshot matched, 100 when a case
    /// failed; 64 on a wrong command line, 69 when the consumer cannot be started.
    Test(TestArgs),
    /// Run a consumer against generated sessions with faults; shrink a failure to a cassette.
    ///
    /// Exits 0 when every case held every property, 100 when one failed (the minimal
    /// failing stream is written as a cassette, with the command that replays it).
    ///
    /// With `--acp`, the consumer is an ACP client: generated conversations of server
    /// mode with server-mode faults; a failure is shrunk to a conversation written as
    /// a cassette, its faults beside it.
    Fuzz(FuzzArgs),
    /// Review, accept or reject the snapshots `mock-agent test` left for review
    /// (`CASE.snap.new`), without Rust or cargo-insta (`cargo insta review` works too).
    Snapshots {
        #[command(subcommand)]
        command: snapshots::SnapshotsCommand,
    },
    /// Run the real CLI as a transparent proxy and write what it did as a cassette.
    ///
    /// Its stdout and stderr reach you unchanged, stdin is passed on, SIGINT and
    /// SIGTERM are forwarded, and the proxy ends the way the command ended. Secrets
    /// (CURSOR_API_KEY, CURSOR_AUTH_TOKEN, --api-key, -H, and --redact ones) never
    /// reach the cassette.
    Record {
        /// The cassette to write (atomically: nothing under this name until the end).
        #[arg(long, value_name = "FILE", required_unless_present = "script")]
        out: Option<PathBuf>,
        /// A string to keep out of the cassette (repeatable).
        #[arg(long = "redact", value_name = "TEXT")]
        redact: Vec<String>,
        /// An environment variable whose value is a secret (repeatable).
        #[arg(long = "redact-env", value_name = "NAME")]
        redact_env: Vec<String>,
        /// Replace the home directory by `~`.
        #[arg(long)]
        redact_home: bool,
        /// Run `COMMAND --version` first and keep what it prints in the cassette.
        #[arg(long)]
        cli_version: bool,
        /// Draw no progress. It is drawn only for a person at a terminal (stdin and
        /// stderr terminals) whose stdout goes to a file or a pipe, in print mode; a
        /// pipe or file on stderr never gets a byte but the command's.
        #[arg(long)]
        no_progress: bool,
        /// The command to record, after `--`: `-- cursor-agent -p "hi"`.
        #[arg(last = true, required_unless_present = "script", value_name = "COMMAND")]
        command: Vec<String>,
        /// For the Python and npm packages: print the POSIX shell body of the
        /// executable that records or replays a program's runs (docs/commands.md).
        #[arg(long, hide = true, conflicts_with_all = ["out", "redact", "redact_env", "redact_home", "cli_version", "no_progress", "command"])]
        script: bool,
    },
    /// List the cassettes of a library that no invocation in a journal played.
    Unused {
        /// The library (MOCK_AGENT_LIBRARY).
        #[arg(long, value_name = "DIR")]
        library: PathBuf,
        /// The journal of the test run (MOCK_AGENT_JOURNAL).
        #[arg(long, value_name = "FILE")]
        journal: PathBuf,
    },
    /// List every fault and preset, with its meaning and an example (with `--dialect`,
    /// that dialect's section only).
    Faults {
        /// Only this dialect's section (as `mock-agent dialects` lists them).
        #[arg(long, value_name = "NAME", value_parser = cases::parse_dialect)]
        dialect: Option<&'static dyn harness::dialects::Dialect>,
    },
    /// List the cases of the matrix `test` runs (with `--json`, each case's settings and expectation).
    Cases(cases::CasesArgs),
    /// Judge one run of a consumer made elsewhere (a pytest test, a script): each
    /// property of the case, as `test` judges it, the broken ones with why.
    ///
    /// The case: `--case NAME` (with the matrix flags `cases` takes) or `--case-json
    /// LINE` (a line of `cases --json`). The run: `--exit`, `--signal` or `--timed-out`;
    /// `--stdout` and `--stderr` files; `--journal` (MOCK_AGENT_JOURNAL). Exits 0 when
    /// no property broke, 100 when one did.
    Judge(Box<judge::JudgeArgs>),
    /// Serve a scripted model API (Anthropic, OpenAI, Gemini) on 127.0.0.1, for a real CLI to run against offline.
    ModelApi(crate::model_api::Args),
    /// Check a stand-in against its real CLI: both run on the same scenarios (the real
    /// one against a scripted model API, recorded), their lines, fields, order and
    /// endings compared.
    ///
    /// Prints a table of differences (`CASE TYPE FIELD real stand-in`) and exits 0
    /// when each is in the allow-list (`tests/drift/DIALECT.allow`, or `--allow`), 1
    /// when one is not. `--update` re-records the curated cassette from the real CLI.
    /// `MOCK_AGENT_FAULTS`, when set, is added to every stand-in run.
    Drift(drift::DriftArgs),
    /// List the dialects this mock stands in for: each one's name (what `--dialect`
    /// takes), the executables it answers to, and what it is.
    ///
    /// With `--json`, one JSON object a line: `name`, `title`, `programs`,
    /// `conversation` (whether the agent reads the client's messages), `word` (what
    /// `mock-agent WORD ARGS` runs it by, when it is a CLI of its own).
    Dialects {
        /// One JSON object a line, for programs (the pytest plugin asks so).
        #[arg(long)]
        json: bool,
    },
    /// Run as the CLI: `mock-agent agent -p "hi"` is `cursor-agent -p "hi"`.
    Agent {
        /// The real CLI's arguments.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
}

/// The seconds a case of `test` and `fuzz` may take unless told.
const DEFAULT_TIMEOUT: f64 = 10.0;

/// `mock-agent test`.
#[derive(Args)]
struct TestArgs {
    /// The consumer: a shell command; `{mock}` is the mock's path, `{format}` the case's output format.
    #[arg(long, value_name = "CMD", required_unless_present = "command")]
    consumer: Option<String>,
    /// The consumer as a command after `--`, each argument as it is:
    /// `mock-agent test --dialect claude -- python app.py`.
    #[arg(last = true, value_name = "COMMAND", conflicts_with = "consumer")]
    command: Vec<String>,
    #[command(flatten)]
    matrix: cases::MatrixArgs,
    /// Where the snapshots are (`NAME.snap`; new and changed ones are written as `.snap.new`).
    #[arg(long, value_name = "DIR")]
    snapshots: Option<PathBuf>,
    /// Take new and changed snapshots as they are.
    #[arg(long)]
    accept: bool,
    /// Seconds a case may take before the consumer is killed.
    #[arg(long, value_name = "SECONDS", default_value_t = DEFAULT_TIMEOUT)]
    timeout: f64,
    /// Cases run at once.
    #[arg(long, value_name = "N", default_value_t = 2)]
    jobs: usize,
    /// Run each case N times: a case whose verdicts differ between its runs is
    /// reported as flaky, and fails the run.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    repeat: u32,
    /// Write JUnit XML here.
    #[arg(long, value_name = "FILE")]
    junit: Option<PathBuf>,
    /// Write a report to look at here: one self-contained HTML file (the summary, each
    /// case with its properties, output, repro line, snapshot diff and a picture).
    #[arg(long, value_name = "FILE")]
    report: Option<PathBuf>,
    #[command(flatten)]
    run: ConsumerRun,
}

/// The consumer's shell command: `--consumer CMD` as it is, or the command after `--`
/// with each argument quoted for the shell.
fn consumer_command(consumer: &Option<String>, command: &[String]) -> String {
    match consumer {
        Some(consumer) => consumer.clone(),
        None => command
            .iter()
            .map(|a| shell_quoted(a))
            .collect::<Vec<_>>()
            .join(" "),
    }
}

/// `arg` as one word of a POSIX shell: as it is when it holds nothing the shell reads,
/// else in single quotes (`'` written `'\''`). `{mock}` and `{format}` stay readable.
fn shell_quoted(arg: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "-_./=:+@%{}".contains(c);
    if !arg.is_empty() && arg.chars().all(plain) {
        arg.to_owned()
    } else {
        format!("'{}'", arg.replace('\'', "'\\''"))
    }
}

/// How the consumer is run and judged, for `test` and `fuzz`: the variable it finds
/// the mock by, and what is checked of it.
#[derive(Args)]
struct ConsumerRun {
    /// A variable to set to the mock's path, for consumers that take it so.
    #[arg(long, value_name = "NAME")]
    mock_env: Option<String>,
    #[command(flatten)]
    judge: Judge,
}

impl ConsumerRun {
    /// The flags that say how the consumer was run and judged, as `mock-agent test`
    /// takes them again (a fuzz failure's replay line): `--mock-env`, `--timeout` when
    /// it is not the default, `--off` and the `--failure-when-*` flags.
    fn flags(&self, timeout: f64) -> Vec<String> {
        let mut flags = Vec::new();
        let mut flag = |name: &str, value: String| flags.extend([name.to_owned(), value]);
        if let Some(name) = &self.mock_env {
            flag("--mock-env", name.clone());
        }
        if timeout != DEFAULT_TIMEOUT {
            flag("--timeout", timeout.to_string());
        }
        for property in &self.judge.off {
            flag("--off", property.to_string());
        }
        if let Some(regex) = &self.judge.failure_when_stdout {
            flag("--failure-when-stdout", regex.clone());
        }
        if let Some(regex) = &self.judge.failure_when_stderr {
            flag("--failure-when-stderr", regex.clone());
        }
        for code in &self.judge.failure_when_exit {
            flag("--failure-when-exit", code.to_string());
        }
        flags
    }

    /// `consumer`, told the mock's path in `--mock-env`'s variable when it is given.
    fn consumer(&self, consumer: harness::run::Consumer) -> harness::run::Consumer {
        match &self.mock_env {
            Some(name) => consumer.mock_env(name.clone()),
            None => consumer,
        }
    }
}

/// What is checked of the consumer, for `test`, `fuzz` and `judge`: the properties,
/// and how it says that the agent failed.
#[derive(Args)]
struct Judge {
    /// Switch a property off (repeatable): ends, no-crash, reports-failure, reports-success, no-leftover, reads-to-end, answers-requests, ignores-unknown, valid-arguments.
    #[arg(long = "off", value_name = "PROPERTY", value_parser = parse_property)]
    off: Vec<harness::run::Property>,
    /// The consumer reports a failure by printing a line that matches this regular
    /// expression on stdout (`^` and `$` match at each line), not by a non-zero exit.
    #[arg(long, value_name = "REGEX")]
    failure_when_stdout: Option<String>,
    /// The consumer reports a failure by printing a line that matches this regular
    /// expression on stderr.
    #[arg(long, value_name = "REGEX")]
    failure_when_stderr: Option<String>,
    /// The consumer reports a failure by exiting with this code (repeatable). Given
    /// any of these three ways, a failure is reported when one of them matches.
    #[arg(long, value_name = "CODE", allow_negative_numbers = true)]
    failure_when_exit: Vec<i32>,
}

/// `mock-agent fuzz`.
#[derive(Args)]
#[command(mut_arg("mock_env", |arg| arg.help(
    "A variable to set to the mock's path, for consumers that take it so (as `test --mock-env`)"
)))]
struct FuzzArgs {
    /// The consumer: a shell command; `{mock}` is the mock's path.
    #[arg(long, value_name = "CMD", required_unless_present = "command")]
    consumer: Option<String>,
    /// The consumer as a command after `--`, each argument as it is.
    #[arg(last = true, value_name = "COMMAND", conflicts_with = "consumer")]
    command: Vec<String>,
    /// Fuzz an ACP client (`cursor-agent acp`) instead of a print-mode consumer
    /// (`--dialect cursor-acp`).
    #[arg(long, conflicts_with = "dialect")]
    acp: bool,
    /// The agent CLI the consumer drives, by the name `mock-agent dialects` lists (the
    /// first is the default).
    #[arg(long, value_name = "NAME", value_parser = cases::parse_dialect)]
    dialect: Option<&'static dyn harness::dialects::Dialect>,
    /// How many cases.
    #[arg(long, value_name = "N", default_value_t = 100)]
    cases: u32,
    /// The seed: the same seed runs the same cases, whatever `--jobs`.
    #[arg(long, value_name = "S", default_value_t = 0)]
    seed: u64,
    /// Seconds a case may take before the consumer is killed.
    #[arg(long, value_name = "SECONDS", default_value_t = DEFAULT_TIMEOUT)]
    timeout: f64,
    /// Cases run at once (shrinking runs one at a time).
    #[arg(long, value_name = "N", default_value_t = 2)]
    jobs: usize,
    /// Go on after a failure: run every case, and shrink each failure that breaks a
    /// set of properties no earlier one broke (`fuzz-SEED.cassette`, `fuzz-SEED-2.cassette`, ...).
    #[arg(long)]
    keep_going: bool,
    /// Seconds to shrink a failure for, at most (a step under way ends first): the
    /// smallest failing case found by then is written.
    #[arg(long, value_name = "SECONDS", default_value_t = 60.0)]
    shrink_time: f64,
    /// Where the minimal failing case is written.
    #[arg(long, value_name = "DIR", default_value = "fuzz-failures")]
    out: PathBuf,
    /// Write a report to look at here: one self-contained HTML file with each minimal
    /// failing case, run again (see `test --report`).
    #[arg(long, value_name = "FILE")]
    report: Option<PathBuf>,
    #[command(flatten)]
    run: ConsumerRun,
}

fn parse_profile(text: &str) -> Result<Profile, String> {
    match text {
        "real" => Ok(Profile::Real),
        "seeds" => Ok(Profile::Seeds),
        other => Err(format!("`{other}` is not a profile; use `real` or `seeds`")),
    }
}

fn parse_property(text: &str) -> Result<harness::run::Property, String> {
    text.parse()
        .map_err(|e: harness::run::UnknownProperty| e.to_string())
}

/// The CLIs the mock stands in for, as `--help` lists them: each one's word, the
/// programs it answers to, and its dialects (from the registries).
fn clis_help() -> String {
    let mut text =
        String::from("Agent CLIs (`mock-agent WORD ARGS...`, or a link named as one of its programs):\n");
    for cli in crate::dialects::ALL {
        let programs = cli.dialect().programs();
        let modes: Vec<&str> = harness::dialects::ALL
            .iter()
            .filter(|d| d.programs().first() == programs.first())
            .map(|d| d.name())
            .collect();
        text.push_str(&format!(
            "  {:<8} {} (--dialect {})\n",
            cli.word(),
            programs.join(", "),
            modes.join(", ")
        ));
    }
    text.push_str("`mock-agent dialects` says what each dialect stands in for.");
    text
}

fn parse_format(text: &str) -> Result<OutputFormat, String> {
    text.parse()
        .map_err(|e: harness::format::UnknownFormat| e.to_string())
}

/// Runs one of the mock's own subcommands; `argv` starts with the program name. How
/// the process is to end, or the error that ends it ([`crate::main`] reports it).
pub fn run(argv: &[String]) -> Result<Exit, Error> {
    use clap::{CommandFactory, FromArgMatches};
    let parsed = Cli::command()
        .after_long_help(clis_help())
        .try_get_matches_from(argv)
        .and_then(|matches| Cli::from_arg_matches(&matches));
    let cli = match parsed {
        Ok(cli) => cli,
        Err(e) => return clap_error(&e),
    };
    match cli.command {
        Own::Replay { cassette, play, seed } => {
            Ok(crate::dialects::default_play::replay(cassette, play, seed)?)
        }
        Own::Generate {
            seed,
            events,
            profile,
            out,
            play,
            acp,
            dialect,
        } => {
            let dialect = crate::dialects::chosen(acp, dialect);
            if dialect == harness::dialects::ALL[0] {
                Ok(crate::dialects::default_play::generate(
                    seed,
                    events,
                    profile,
                    out.as_deref(),
                    play,
                )?)
            } else {
                Ok(crate::dialects::generate(dialect, seed, events, out.as_deref())?)
            }
        }
        Own::Lint(args) => lint::lint(&args),
        Own::Unused { library, journal } => Ok(crate::dialects::default_play::unused(&library, &journal)?),
        Own::Test(args) => test::test(args),
        Own::Record {
            out,
            redact,
            redact_env,
            redact_home,
            cli_version,
            no_progress,
            command,
            script,
        } => {
            if script {
                print!("{}", crate::record::SCRIPT);
                return Ok(Exit::Code(exit_codes::OK));
            }
            // Clap asks for `--out` without `--script`.
            let Some(out) = out else {
                return Err(Error::Usage(
                    "give the cassette to write: `mock-agent record --out FILE -- COMMAND...`".to_owned(),
                ));
            };
            let mut options = crate::record::RecordOptions::new(out);
            options.secrets = redact;
            options.secret_env = redact_env;
            options.redact_home = redact_home;
            options.cli_version = cli_version;
            options.progress = !no_progress;
            let recorded = crate::dialects::recorded_for(&command);
            Ok(crate::record::record(&command, &options, recorded)?)
        }
        Own::Fuzz(args) => test::fuzz(&args),
        Own::Snapshots { command } => snapshots::snapshots(command),
        Own::Faults { dialect } => {
            list_faults(dialect);
            Ok(Exit::Code(exit_codes::OK))
        }
        Own::Dialects { json } => {
            list_dialects(json);
            Ok(Exit::Code(exit_codes::OK))
        }
        Own::Agent { args } => Ok(crate::dialects::ALL[0].run(&args)),
        Own::Cases(args) => cases::cases(&args),
        Own::Judge(args) => judge::judge(&args),
        Own::ModelApi(args) => Ok(crate::model_api::command(&args)),
        Own::Drift(args) => drift::drift(&args),
    }
}

/// `mock-agent dialects`: every registered dialect.
fn list_dialects(json: bool) {
    // The columns as wide as their widest entry.
    let name_width = harness::dialects::ALL
        .iter()
        .map(|d| d.name().len())
        .max()
        .unwrap_or(0);
    let programs_width = harness::dialects::ALL
        .iter()
        .map(|d| d.programs().join(", ").len())
        .max()
        .unwrap_or(0);
    for dialect in harness::dialects::ALL {
        let word = crate::dialects::ALL
            .iter()
            .find(|cli| cli.dialect().programs() == dialect.programs())
            .map(|cli| cli.word());
        if json {
            let line = serde_json::json!({
                "name": dialect.name(),
                "title": dialect.title(),
                "programs": dialect.programs(),
                "conversation": dialect.is_conversation(),
                "word": word,
            });
            println!("{line}");
        } else {
            println!(
                "{:<name_width$}  {:<programs_width$}  {}",
                dialect.name(),
                dialect.programs().join(", "),
                dialect.title()
            );
        }
    }
}

/// `mock-agent faults`: every registered dialect's section of the catalogue (or `only`'s), the
/// default dialect's first and without a heading (it was the only one once).
fn list_faults(only: Option<&'static dyn harness::dialects::Dialect>) {
    let chosen = |d: &&&dyn harness::dialects::Dialect| only.is_none_or(|o| o.name() == d.name());
    for (n, dialect) in harness::dialects::ALL
        .iter()
        .enumerate()
        .filter(|(_, d)| chosen(d))
    {
        let width = if n == 0 { 16 } else { 24 };
        if n > 0 {
            if only.is_none() {
                println!("");
            }
            println!("{}, in MOCK_AGENT_FAULTS:", dialect.title());
        }
        for entry in dialect.catalogue() {
            println!("{:<width$} {}", entry.name, entry.meaning);
            println!("{:<width$} e.g. {}", "", entry.example);
            if let Some(scenario) = entry.misbehaving {
                let words = if n == 0 {
                    "misbehaving agent (never the real CLI, only when asked for)"
                } else {
                    "misbehaving agent (only when asked for)"
                };
                println!("{:<width$} {words}: {scenario}", "");
            }
        }
    }
}

/// Whether `word`, the first argument, names one of the mock's own subcommands.
pub fn is_own(word: &str) -> bool {
    OWN_COMMANDS.contains(&word)
}

/// Help and version as they are; a clap error as a usage error.
fn clap_error(e: &clap::Error) -> Result<Exit, Error> {
    use clap::error::ErrorKind;
    let text = e.render().to_string();
    if matches!(
        e.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        println!("{}", text.trim_end_matches('\n'));
        return Ok(Exit::Code(exit_codes::OK));
    }
    Err(Error::Usage(
        text.strip_prefix("error: ")
            .unwrap_or(&text)
            .trim_end_matches('\n')
            .to_owned(),
    ))
}
