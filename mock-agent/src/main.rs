//! `mock-agent`: a stand-in for the `cursor-agent` CLI.
//!
//! Installed under the name `cursor-agent` or `agent`, run as `mock-agent agent ARGS`,
//! or run as `mock-agent ARGS` with arguments that are not one of its own subcommands,
//! it behaves as the real CLI in print mode (see `harness::agent`). Its own
//! subcommands are parsed here; everything they do is in the `harness` library.

use std::path::{Path, PathBuf};

use clap::{Parser, Subcommand};
use harness::agent;
use harness::exit_codes;
use harness::faults;
use harness::frames::Exit;
use harness::render::{OutputFormat, RenderOptions};
use harness::scenario::Scenario;
use harness::source::Source;
use harness::timing::Timing;

/// The mock's own subcommands; any other first argument goes to the emulated CLI.
const OWN_COMMANDS: &[&str] = &["replay", "lint", "faults", "help", "--help", "-h"];

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
        /// The seed of every random choice (jitter, random chunks).
        #[arg(long, default_value_t = 0)]
        seed: u64,
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

fn scenario(
    render: RenderOptions,
    specs: &[String],
    timing: &str,
    seed: u64,
) -> Result<Scenario, harness::Diagnostic> {
    const FAULT: faults::Origin<'static> = faults::Origin {
        name: "--fault",
        help: "`mock-agent faults` lists every fault with an example",
    };
    const TIMING: faults::Origin<'static> = faults::Origin {
        name: "--timing",
        help: "timing is instant, recorded, scale=F, fixed=MS, jitter=MS, first-byte=MS, joined by commas",
    };
    let mut scenario = Scenario::new(render);
    for spec in specs {
        scenario.faults.extend(faults::parse(spec, FAULT)?);
    }
    scenario.timing = Timing::parse(timing, TIMING)?;
    scenario.seed = seed;
    Ok(scenario)
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
        Own::Replay {
            cassette,
            output_format,
            stream_partial_output,
            resume,
            faults,
            timing,
            seed,
        } => {
            let render = RenderOptions::new(output_format)
                .stream_partial_output(stream_partial_output)
                .resume(resume)
                .now_ms(harness::execute::now_ms());
            let scenario = match scenario(render, &faults, &timing, seed) {
                Ok(scenario) => scenario,
                Err(e) => {
                    eprintln!("mock-agent: {e}");
                    return Exit::Code(exit_codes::USAGE);
                }
            };
            agent::replay(&Source::Cassette(cassette), "", &scenario, false).exit
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
        print!("{text}");
        return Exit::Code(exit_codes::OK);
    }
    eprint!("mock-agent: {}", text.strip_prefix("error: ").unwrap_or(&text));
    Exit::Code(exit_codes::USAGE)
}
