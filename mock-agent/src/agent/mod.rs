//! The emulation of the real CLI: `cursor-agent ARGS` in print mode.
//!
//! [`run`] parses the real CLI's arguments, answers its subcommands, and otherwise
//! replays the configured source (see [`crate::settings`]) in the requested output
//! format; [`replay`] is the pipeline itself, shared with `mock-agent replay`.

use std::io::{IsTerminal, Read, Write};
use std::os::fd::AsFd;

use crate::execute::{self, Blocking, ExecOptions, Threaded};
use crate::settings::Settings;
use harness::exit_codes;
use harness::frames::Exit;
use harness::journal::{self, Entry};
use harness::render::RenderOptions;
use harness::scenario::{Plan, Scenario};
use harness::source::Source;

use crate::args::{self, AgentArgs, Command};

/// What a replay did.
#[derive(Debug)]
pub struct Replayed {
    /// How the process is to end.
    pub exit: Exit,
    /// When the consumer closed stdout early, from the start.
    pub stdout_closed_at: Option<std::time::Duration>,
    /// The signal that ended the run.
    pub signal: Option<harness::frames::Signal>,
    /// The faults and whether each acted.
    pub faults: Vec<journal::FaultRecord>,
    /// The mock's own error, already printed on stderr.
    pub error: Option<String>,
}

/// Replays `source` for `scenario` on this process's stdout and stderr. The mock's
/// own errors are printed on stderr, prefixed `mock-agent:`, and end with their
/// documented exit code. `listen` makes SIGTERM and SIGINT end the run even when the
/// plan never waits (so that the journal can say which came).
pub fn replay(source: &Source, prompt: &str, scenario: &Scenario, listen: bool) -> Replayed {
    let failed = |message: String, code: i32| {
        eprintln!("mock-agent: {message}");
        Replayed {
            exit: Exit::Code(code),
            stdout_closed_at: None,
            signal: None,
            faults: Vec::new(),
            error: Some(message),
        }
    };
    let plan = match source.open(prompt).and_then(|r| scenario.plan(r)) {
        Ok(plan) => plan,
        Err(e) => return failed(e.to_string(), e.exit_code()),
    };
    let Plan {
        frames,
        applied,
        mut delivery,
    } = plan;
    delivery.signals |= listen;
    let options = ExecOptions {
        precise: true,
        ..ExecOptions::new(delivery)
    };
    let streams = std::io::stdout()
        .as_fd()
        .try_clone_to_owned()
        .and_then(|out| Ok((out, std::io::stderr().as_fd().try_clone_to_owned()?)));
    let (out, err) = match streams {
        Ok(fds) => fds,
        Err(e) => return failed(format!("cannot open stdout or stderr: {e}"), exit_codes::IO_ERROR),
    };
    let (out, err) = (std::fs::File::from(out), std::fs::File::from(err));
    let signals = options.delivery.signals;
    let outcome = if signals {
        let stdout = Threaded::new(out).on_close(point_stdout_at_null);
        execute::block_on(
            execute::perform(frames, stdout, Threaded::new(err), &options),
            true,
        )
    } else {
        let stdout = Blocking::new(out).on_close(point_stdout_at_null);
        execute::block_on(
            execute::perform(frames, stdout, Blocking::new(err), &options),
            false,
        )
    };
    let outcome = match outcome {
        Ok(outcome) => outcome,
        Err(e) => return failed(format!("cannot start the runtime: {e}"), exit_codes::INTERNAL),
    };
    let faults = applied
        .report()
        .into_iter()
        .map(|(fault, fired)| journal::FaultRecord {
            name: fault.name().to_owned(),
            fired,
        })
        .collect();
    let replayed = |exit, error| Replayed {
        exit,
        stdout_closed_at: outcome.stdout_closed_at,
        signal: outcome.signal,
        faults,
        error,
    };
    match (outcome.exit, outcome.error) {
        (Some(exit), None) => replayed(exit, None),
        (_, Some(e)) => {
            let message = e.to_string();
            eprintln!("mock-agent: {message}");
            replayed(Exit::Code(e.exit_code()), Some(message))
        }
        (None, None) => {
            let message = "the plan ended without an exit".to_owned();
            eprintln!("mock-agent: {message}");
            replayed(Exit::Code(exit_codes::INTERNAL), Some(message))
        }
    }
}

/// After `close-stdout`: the process's stdout becomes `/dev/null`, so that the last
/// open copy of the pipe is gone and the consumer reads end of file.
fn point_stdout_at_null() {
    if let Ok(null) = std::fs::OpenOptions::new().write(true).open("/dev/null") {
        let _ = nix::unistd::dup2_stdout(&null);
    }
}

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
        return shim(mode, args, &entry.argv.clone(), &prompt, stdin, settings, entry);
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

/// The shim's record modes: replay from the library, or run the real CLI (and record
/// it), as `mode` says (see [`crate::library`]).
fn shim(
    mode: crate::settings::RecordMode,
    args: &AgentArgs,
    argv: &[String],
    prompt: &str,
    stdin: Option<String>,
    settings: &Settings,
    entry: &mut Entry,
) -> Exit {
    use crate::library::{self, Found, Key};
    use crate::settings::RecordMode;
    let fail = |entry: &mut Entry, message: String, code: i32| {
        eprintln!("mock-agent: {message}");
        entry.error = Some(message);
        Exit::Code(code)
    };
    let Some(dir) = settings.library.clone() else {
        let message = "MOCK_AGENT_RECORD needs a library: set MOCK_AGENT_LIBRARY=DIR".to_owned();
        return fail(entry, message, exit_codes::USAGE);
    };
    let real = || settings.real.clone().map(|r| r.display().to_string());
    let stdin_bytes = stdin.map(String::into_bytes);
    if mode == RecordMode::Passthrough {
        let Some(real) = real() else {
            let message =
                "MOCK_AGENT_RECORD=passthrough runs the real CLI: set MOCK_AGENT_REAL=PATH".to_owned();
            return fail(entry, message, exit_codes::USAGE);
        };
        entry.source = Some(format!("passthrough:{real}"));
        let command: Vec<String> = std::iter::once(real).chain(argv.iter().cloned()).collect();
        return match crate::record::passthrough(&command, stdin_bytes) {
            Ok(exit) => exit,
            Err(e) => fail(entry, e.to_string(), e.exit_code()),
        };
    }
    let entries = library::entries(&dir, &settings.match_on);
    let cwd = entry.cwd.clone().unwrap_or_default();
    let key = Key::of(args, argv, prompt, &cwd, &settings.match_on);
    let journal = settings
        .journal
        .as_deref()
        .and_then(|p| journal::read(p).ok())
        .unwrap_or_default();
    let found = library::find(&entries, &key, &journal, settings.playback_repeats);
    let record = match (mode, &found) {
        (RecordMode::All, _) => true,
        (_, Found::Play(_)) => false,
        (RecordMode::None, Found::Miss) => {
            let message = format!(
                "{} (MOCK_AGENT_RECORD=none replays only)\nhelp: record it with MOCK_AGENT_RECORD=once and MOCK_AGENT_REAL, or change MOCK_AGENT_MATCH_ON",
                library::miss_message(&dir, &entries, &key)
            );
            return fail(entry, message, exit_codes::NO_INPUT);
        }
        (RecordMode::None | RecordMode::Once, Found::UsedUp(n)) => {
            let message = format!(
                "the {n} cassette(s) in {} for this invocation were all played\nhelp: set MOCK_AGENT_PLAYBACK_REPEATS=1 to replay the last again, or record more with MOCK_AGENT_RECORD=new_episodes",
                dir.display()
            );
            return fail(entry, message, exit_codes::NO_INPUT);
        }
        _ => true,
    };
    if !record {
        let Found::Play(path) = found else {
            return fail(
                entry,
                "no cassette to play (a bug in mock-agent)".into(),
                exit_codes::INTERNAL,
            );
        };
        let source = Source::Cassette(path);
        let scenario = scenario(args, settings, entry.started_at_ms);
        entry.source = Some(source.describe());
        let replayed = replay(&source, prompt, &scenario, settings.journal.is_some());
        entry.stdout_closed = replayed.stdout_closed_at.is_some();
        entry.error = replayed.error;
        return replayed.exit;
    }
    let Some(real) = real() else {
        let message = format!(
            "{}; recording it needs the real CLI: set MOCK_AGENT_REAL=PATH",
            library::miss_message(&dir, &entries, &key)
        );
        return fail(entry, message, exit_codes::USAGE);
    };
    if let Err(e) = std::fs::create_dir_all(&dir) {
        return fail(
            entry,
            format!("{}: cannot create the library: {e}", dir.display()),
            exit_codes::CANNOT_CREATE,
        );
    }
    let path = library::new_path(&dir, &key, &entries);
    let mut options = crate::record::RecordOptions::new(path.clone());
    options.stdin = stdin_bytes;
    let command: Vec<String> = std::iter::once(real).chain(argv.iter().cloned()).collect();
    entry.source = Some(path.display().to_string());
    match crate::record::record(&command, &options) {
        Ok(exit) => exit,
        Err(e) => fail(entry, e.to_string(), e.exit_code()),
    }
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
