//! The emulation of the real CLI: `cursor-agent ARGS` in print mode.
//!
//! [`run`] parses the real CLI's arguments, answers its subcommands, and otherwise
//! replays the configured source (see [`crate::settings`]) in the requested output
//! format; [`replay`] is the pipeline itself, shared with `mock-agent replay`, and
//! `shim` the record modes that replay from a library or run the real CLI.

mod replay;
mod shim;

pub use replay::{replay, Replayed};

use std::io::{IsTerminal, Read, Write};
use std::os::fd::AsFd;

use crate::execute;
use crate::settings::Settings;
use harness::exit_codes;
use harness::frames::Exit;
use harness::journal::{self, Entry};
use harness::render::RenderOptions;
use harness::scenario::Scenario;
use harness::source::Source;

use crate::args::{self, AgentArgs, Command};

/// Whether the consumer left stdin open: `None` when stdin is not a pipe.
fn stdin_open(read_to_end: bool) -> Option<bool> {
    use nix::poll::{poll, PollFd, PollFlags, PollTimeout};
    use nix::sys::stat::{fstat, SFlag};
    let stdin = std::io::stdin();
    let stat = fstat(stdin.as_fd()).ok()?;
    if SFlag::from_bits_truncate(stat.st_mode) & SFlag::S_IFMT != SFlag::S_IFIFO {
        return None;
    }
    if read_to_end {
        return Some(false);
    }
    let mut fds = [PollFd::new(stdin.as_fd(), PollFlags::POLLIN)];
    poll(&mut fds, PollTimeout::ZERO).ok()?;
    let hung_up = fds[0].revents().is_some_and(|r| r.contains(PollFlags::POLLHUP));
    Some(!hung_up)
}

/// Runs the emulated CLI with the arguments after the program name, and returns how
/// the process is to end.
pub fn run(argv: &[String]) -> Exit {
    let started_at_ms = execute::now_ms();
    let settings = match Settings::from_env() {
        Ok(settings) => settings,
        Err(e) => {
            eprintln!("mock-agent: {e}");
            return Exit::Code(exit_codes::USAGE);
        }
    };
    let mut entry = Entry::new(std::process::id(), argv.to_vec(), started_at_ms);
    entry.cwd = std::env::current_dir().ok().map(|d| d.display().to_string());
    entry.seed = settings.seed;
    let exit = match args::parse(argv) {
        Err(e) => {
            eprintln!("{e}");
            Exit::Code(exit_codes::AGENT_ERROR)
        }
        Ok(args) => dispatch(&args, &settings, &mut entry),
    };
    entry.exit = exit.into();
    entry.stdin_open = stdin_open(entry.stdin.is_some());
    entry.ended_at_ms = execute::now_ms();
    if let Some(path) = &settings.journal {
        if let Err(e) = journal::append(path, &entry) {
            eprintln!("mock-agent: {e}");
            return Exit::Code(e.exit_code());
        }
    }
    exit
}

fn print(text: &str) -> Exit {
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(text.as_bytes()).and_then(|()| stdout.flush()) {
        Ok(()) => Exit::Code(exit_codes::OK),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Exit::Code(exit_codes::OK),
        Err(e) => {
            eprintln!("mock-agent: cannot write to stdout: {e}");
            Exit::Code(exit_codes::IO_ERROR)
        }
    }
}

fn dispatch(args: &AgentArgs, settings: &Settings, entry: &mut Entry) -> Exit {
    if args.help {
        return print(&args::help());
    }
    if args.version {
        return print(&format!("{}\n", settings.cli_version));
    }
    if args.list_models || args.command == Some(Command::Models) {
        let list: String = harness::models::MODELS
            .iter()
            .map(|(id, name)| format!("{id} - {name}\n"))
            .collect();
        return print(&list);
    }
    match args.command {
        Some(Command::CreateChat) => return print(&format!("{}\n", uuid::Uuid::new_v4())),
        Some(Command::Status | Command::Whoami) => {
            return match &settings.account {
                Some(account) => print(&format!("✓ Logged in as {account}\n")),
                None => {
                    let exit = print("Not logged in\n");
                    if exit.success() {
                        Exit::Code(exit_codes::AGENT_ERROR)
                    } else {
                        exit
                    }
                }
            }
        }
        Some(Command::NotEmulated(name)) => {
            eprintln!(
                "mock-agent: `cursor-agent {name}` is not emulated; the mock answers print mode, \
                 `create-chat`, `status`, `whoami`, `models` and `--version`"
            );
            return Exit::Code(exit_codes::USAGE);
        }
        Some(Command::Models) | None => {}
    }
    let (prompt, stdin) = match args.prompt() {
        Some(prompt) => (prompt, None),
        None => {
            let stdin = read_stdin();
            let prompt = stdin
                .as_deref()
                .unwrap_or_default()
                .trim_end_matches(['\n', '\r']);
            (prompt.to_owned(), stdin)
        }
    };
    if let Some(mode) = settings.record {
        entry.prompt = Some(prompt.clone());
        entry.stdin = stdin.clone();
        entry.output_format = Some(args.output_format);
        entry.stream_partial_output = args.stream_partial_output;
        return shim::shim(mode, args, &entry.argv.clone(), &prompt, stdin, settings, entry);
    }
    let source = match (settings.generate, &settings.cassette) {
        (Some(seed), _) => Source::Generated {
            seed,
            config: harness::generate::SessionConfig::default().profile(settings.profile),
        },
        (None, Some(path)) => Source::Cassette(path.clone()),
        (None, None) => Source::Default,
    };
    let scenario = scenario(args, settings, entry.started_at_ms);
    entry.prompt = Some(prompt.clone());
    entry.stdin = stdin;
    entry.output_format = Some(args.output_format);
    entry.stream_partial_output = args.stream_partial_output;
    entry.source = Some(source.describe());
    let replayed = replay(&source, &prompt, &scenario, settings.journal.is_some());
    entry.stdout_closed = replayed.stdout_closed_at.is_some();
    entry.stdout_closed_at_ms = replayed.stdout_closed_at.map(|d| d.as_millis() as u64);
    entry.signal = replayed.signal.map(|s| s.name().to_owned());
    entry.faults = replayed.faults;
    entry.error = replayed.error;
    replayed.exit
}

/// The scenario of an invocation: its CLI options and the mock's settings.
fn scenario(args: &AgentArgs, settings: &Settings, now_ms: u64) -> Scenario {
    let mut scenario = Scenario::new(
        RenderOptions::new(args.output_format)
            .stream_partial_output(args.stream_partial_output)
            .resume(args.resume.clone().flatten())
            .now_ms(now_ms),
    );
    scenario.faults = settings.faults.clone();
    scenario.timing = settings.timing;
    scenario.seed = settings.seed;
    scenario.step = settings.step.clone();
    scenario
}

/// The prompt from stdin, read to its end; `None` when stdin is a terminal.
fn read_stdin() -> Option<String> {
    let mut stdin = std::io::stdin().lock();
    if stdin.is_terminal() {
        return None;
    }
    let mut bytes = Vec::new();
    stdin.read_to_end(&mut bytes).ok()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}
