//! `mock-agent`: a stand-in for the `cursor-agent` CLI.
//!
//! Installed under the name `cursor-agent` or `agent`, run as `mock-agent agent ARGS`,
//! or run as `mock-agent ARGS` with arguments that are not one of its own subcommands,
//! it behaves as the real CLI in print mode (see `harness::agent`). Its own
//! subcommands are parsed here; everything they do is in the `harness` library.

use std::path::{Path, PathBuf};

/// `eprintln!` and `println!` that do not panic on a closed pipe.
macro_rules! eprintln {
    ($($arg:tt)*) => { harness::process::stderr_line(format_args!($($arg)*)) };
}
macro_rules! println {
    ($($arg:tt)*) => { harness::process::stdout_line(format_args!($($arg)*)) };
}

use clap::{Args, Parser, Subcommand};
use harness::agent;
use harness::exit_codes;
use harness::faults;
use harness::frames::Exit;
use harness::generate::{self, Profile, SessionConfig};
use harness::render::{OutputFormat, RenderOptions};
use harness::scenario::Scenario;
use harness::source::Source;
use harness::timing::Timing;

/// The mock's own subcommands; any other first argument goes to the emulated CLI.
const OWN_COMMANDS: &[&str] = &["replay", "generate", "lint", "faults", "help", "--help", "-h"];

/// A stand-in for the cursor-agent CLI, for testing programs that drive it.
///
/// Run with the real CLI's arguments (`mock-agent -p "prompt" --output-format json`),
/// or install it as `cursor-agent`, and it replays a recorded session
/// (MOCK_AGENT_CASSETTE) or the built-in default one, exactly as the CLI prints it.
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
    /// The same seed gives the same bytes on every run and machine.
    Generate {
        /// The seed of the session (and of every random choice).
        #[arg(long)]
        seed: u64,
        /// At most about this many events.
        #[arg(long, value_name = "M")]
        events: Option<usize>,
        /// `real`: everything the real CLI prints; `seeds`: only what its documentation shows.
        #[arg(long, default_value = "real", value_parser = parse_profile)]
        profile: Profile,
        /// Write the session, faults applied, as a cassette to this file instead of printing it.
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
        #[command(flatten)]
        play: Play,
    },
    /// Check cassettes and captures against the protocol: errors and warnings by line.
    ///
    /// Exits 0 when no file has an error, 1 when one breaks the protocol, and with the
    /// mock's own code (65, 66) when one cannot be read.
    Lint {
        /// The cassettes (`.cassette`) and captures (`.ndjson`) to check.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// List every fault and preset, with its meaning and an example.
    Faults,
    /// Run as the CLI: `mock-agent agent -p "hi"` is `cursor-agent -p "hi"`.
    Agent {
        /// The real CLI's arguments.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
}

/// How a run is played: the CLI's output options, faults and timing.
#[derive(Args)]
struct Play {
    /// The output format to render: text, json or stream-json.
    #[arg(long, default_value = "stream-json", value_parser = parse_format)]
    output_format: OutputFormat,
    /// Render assistant text as deltas, as `--stream-partial-output` does.
    #[arg(long)]
    stream_partial_output: bool,
    /// Make every `session_id` of the output equal this id.
    #[arg(long, value_name = "ID")]
    resume: Option<String>,
    /// A fault to inject, e.g. `eof:after=3,byte=10` (repeatable; see `mock-agent faults`).
    #[arg(long = "fault", value_name = "SPEC")]
    faults: Vec<String>,
    /// When to write: instant, recorded, scale=F, fixed=MS, jitter=MS, first-byte=MS.
    #[arg(long, value_name = "SPEC", default_value = "instant")]
    timing: String,
}

impl Play {
    fn scenario(self, seed: u64) -> Result<Scenario, harness::Diagnostic> {
        const FAULT: faults::Origin<'static> = faults::Origin {
            name: "--fault",
            help: "`mock-agent faults` lists every fault with an example",
        };
        const TIMING: faults::Origin<'static> = faults::Origin {
            name: "--timing",
            help:
                "timing is instant, recorded, scale=F, fixed=MS, jitter=MS, first-byte=MS, joined by commas",
        };
        let render = RenderOptions::new(self.output_format)
            .stream_partial_output(self.stream_partial_output)
            .resume(self.resume)
            .now_ms(harness::execute::now_ms());
        let mut scenario = Scenario::new(render);
        for spec in &self.faults {
            scenario.faults.extend(faults::parse(spec, FAULT)?);
        }
        scenario.timing = Timing::parse(&self.timing, TIMING)?;
        scenario.seed = seed;
        Ok(scenario)
    }
}

fn parse_profile(text: &str) -> Result<Profile, String> {
    match text {
        "real" => Ok(Profile::Real),
        "seeds" => Ok(Profile::Seeds),
        other => Err(format!("`{other}` is not a profile; use `real` or `seeds`")),
    }
}

fn parse_format(text: &str) -> Result<OutputFormat, String> {
    text.parse()
        .map_err(|e: harness::render::UnknownFormat| e.to_string())
}

fn main() {
    let argv: Vec<String> = std::env::args_os()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let program = argv
        .first()
        .and_then(|p| Path::new(p).file_stem())
        .and_then(|s| s.to_str())
        .unwrap_or("mock-agent");
    let exit = if program == "cursor-agent" || program == "agent" {
        agent::run(&argv[1..])
    } else {
        match argv.get(1).map(String::as_str) {
            Some("agent") => agent::run(&argv[2..]),
            Some(word) if OWN_COMMANDS.contains(&word) => own(&argv),
            _ => agent::run(argv.get(1..).unwrap_or_default()),
        }
    };
    harness::process::terminate(exit)
}

fn own(argv: &[String]) -> Exit {
    let cli = match Cli::try_parse_from(argv) {
        Ok(cli) => cli,
        Err(e) => return clap_error(&e),
    };
    match cli.command {
        Own::Replay { cassette, play, seed } => match play.scenario(seed) {
            Ok(scenario) => agent::replay(&Source::Cassette(cassette), "", &scenario, false).exit,
            Err(e) => usage(&e),
        },
        Own::Generate {
            seed,
            events,
            profile,
            out,
            play,
        } => {
            let mut config = SessionConfig::default().profile(profile);
            if let Some(events) = events {
                config = config.max_events(events);
            }
            let scenario = match play.scenario(seed) {
                Ok(scenario) => scenario,
                Err(e) => return usage(&e),
            };
            match out {
                Some(path) => save_generated(seed, &config, &scenario, &path),
                None => agent::replay(&Source::Generated { seed, config }, "", &scenario, false).exit,
            }
        }
        Own::Lint { files } => lint(&files),
        Own::Faults => {
            for entry in faults::catalogue() {
                println!("{:<16} {}", entry.name, entry.meaning);
                println!("{:<16} e.g. {}", "", entry.example);
            }
            Exit::Code(exit_codes::OK)
        }
        Own::Agent { args } => agent::run(&args),
    }
}

fn usage(e: &harness::Diagnostic) -> Exit {
    eprintln!("mock-agent: {e}");
    Exit::Code(exit_codes::USAGE)
}

/// `generate --out FILE`: the session with its faults applied, as a cassette.
fn save_generated(seed: u64, config: &SessionConfig, scenario: &Scenario, path: &Path) -> Exit {
    let session = generate::generate(seed, config);
    match generate::write_planned(&session, &scenario.faults, path) {
        Ok(path) => {
            eprintln!(
                "wrote {} ({} events); replay it with `mock-agent replay {}`",
                path.display(),
                session.lines.len(),
                path.display()
            );
            Exit::Code(exit_codes::OK)
        }
        Err(e) => {
            eprintln!("mock-agent: {e}");
            Exit::Code(e.exit_code())
        }
    }
}

/// `mock-agent lint`: one line per finding, `FILE:LINE: severity: message [rule]`, and a
/// summary per file.
fn lint(files: &[PathBuf]) -> Exit {
    use harness::check::{check_file, Severity};
    let mut code = exit_codes::OK;
    for path in files {
        match check_file(path) {
            Ok(report) => {
                for finding in &report.findings {
                    match finding.line {
                        0 => println!("{}: {finding}", path.display()),
                        line => println!("{}:{line}: {finding}", path.display()),
                    }
                }
                let (errors, warnings) = (report.count(Severity::Error), report.count(Severity::Warning));
                println!("{}: {errors} error(s), {warnings} warning(s)", path.display());
                if errors > 0 && code == exit_codes::OK {
                    code = exit_codes::AGENT_ERROR;
                }
            }
            Err(e) => {
                eprintln!("mock-agent: {e}");
                code = e.exit_code();
            }
        }
    }
    Exit::Code(code)
}

/// Prints a clap error as a `mock-agent:` error (help and version as they are).
fn clap_error(e: &clap::Error) -> Exit {
    use clap::error::ErrorKind;
    let text = e.render().to_string();
    if matches!(
        e.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        println!("{}", text.trim_end_matches('\n'));
        return Exit::Code(exit_codes::OK);
    }
    eprintln!(
        "mock-agent: {}",
        text.strip_prefix("error: ")
            .unwrap_or(&text)
            .trim_end_matches('\n')
    );
    Exit::Code(exit_codes::USAGE)
}
