//! The emulation of the real CLI: `cursor-agent ARGS` in print mode.
//!
//! [`run`] parses the real CLI's arguments, answers its subcommands, and otherwise
//! replays the configured source (see [`crate::settings`]) in the requested output
//! format; [`replay`] is the pipeline itself, shared with `mock-agent replay`, and
//! `shim` the record modes that replay from a library or run the real CLI.

pub use harness::dialects::cursor_print::args;
pub mod library;
pub mod play;
pub mod record;
mod replay;
mod shim;

pub use replay::{replay, Replayed};

use std::io::{IsTerminal, Read};
use std::os::fd::AsFd;

use crate::execute;
use crate::settings::Settings;
use harness::acp::profile::Profile;
use harness::dialects::cursor_print::render::RenderOptions;
use harness::exit_codes;
use harness::frames::Exit;
use harness::journal::{self, Entry};
use harness::models;
use harness::scenario::Scenario;
use harness::source::Source;

use args::{AgentArgs, Command, InfoFormat};

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

/// The Cursor Agent CLI, as a process (see [`crate::dialects::Cli`]): print mode, and
/// under `acp` the ACP agent of `server`'s profile (the registry gives it Cursor's).
#[derive(Clone, Copy)]
pub struct Cursor {
    /// The ACP agent `cursor-agent acp` serves.
    pub server: &'static Profile,
}

impl std::fmt::Debug for Cursor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cursor")
            .field("server", &self.server.name)
            .finish()
    }
}

impl crate::dialects::Cli for Cursor {
    fn dialect(&self) -> &'static dyn harness::run::Dialect {
        harness::dialects::CURSOR_PRINT
    }

    fn word(&self) -> &'static str {
        "agent"
    }

    fn run(&self, args: &[String]) -> Exit {
        run(args, self.server)
    }

    fn recorded(&self) -> &'static dyn crate::record::Recorded {
        &record::Recording
    }
}

/// Runs the CLI with `argv` (its arguments, without the program), serving `server`'s
/// agent under `acp`.
pub fn run(argv: &[String], server: &'static Profile) -> Exit {
    let (settings, mut entry) = match crate::settings::begin(argv, execute::now_ms()) {
        Ok(begun) => begun,
        Err(exit) => return exit,
    };
    // A server's conversation, kept on disk as it passes.
    let mut spooled = None;
    let exit = match args::parse(argv) {
        Err(e) => {
            eprintln!("{e}");
            entry.rejected = Some(e.to_string());
            Exit::Code(exit_codes::AGENT_ERROR)
        }
        Ok(args) => dispatch(&args, server, &settings, &mut entry, &mut spooled),
    };
    entry.stdin_open = stdin_open(entry.stdin.is_some());
    execute::journaled::end_run(&settings, &mut entry, spooled, exit)
}

fn print(text: &str) -> Exit {
    crate::process::answer(text)
}

/// `status` and `whoami`: `✓ Logged in as EMAIL` (or `Not logged in`, exit 1); with
/// `--format json`, the object consumers of the real CLI parse, exit 0 either way.
fn status(format: InfoFormat, account: Option<&str>) -> Exit {
    match (format, account) {
        (InfoFormat::Json, _) => print(&format!("{}\n", status_json(account))),
        (_, Some(account)) => print(&format!("✓ Logged in as {account}\n")),
        (_, None) => match print("Not logged in\n") {
            exit if exit.success() => Exit::Code(exit_codes::AGENT_ERROR),
            exit => exit,
        },
    }
}

/// The `status --format json` object: the fields programs read from the real one
/// (`status`, `isAuthenticated`, `hasAccessToken`, `hasRefreshToken`,
/// `userInfo.email`).
fn status_json(account: Option<&str>) -> serde_json::Value {
    match account {
        Some(email) => serde_json::json!({
            "status": "authenticated",
            "isAuthenticated": true,
            "hasAccessToken": true,
            "hasRefreshToken": true,
            "userInfo": {"email": email},
        }),
        None => serde_json::json!({
            "status": "unauthenticated",
            "isAuthenticated": false,
            "hasAccessToken": false,
            "hasRefreshToken": false,
        }),
    }
}

/// What `about` tells: the CLI's version, the model, the account, and the machine
/// it runs on, named as Node.js names them (the real CLI runs on Node.js).
#[derive(Debug, Clone, PartialEq, Eq)]
struct About<'a> {
    cli_version: &'a str,
    /// The display name of the current model ("Auto").
    model: &'a str,
    /// `None` when nobody is logged in.
    email: Option<&'a str>,
    /// `process.platform`: `linux`, `darwin`, `win32`.
    platform: &'static str,
    /// `process.arch`: `x64`, `arm64`.
    arch: &'static str,
    /// `TERM_PROGRAM`, or `unknown`.
    terminal: String,
    /// The last part of `SHELL`, or `unknown`.
    shell: String,
}

/// The subscription tier `about` shows for a logged-in account.
const TIER: &str = "Pro";

impl<'a> About<'a> {
    fn of_this_machine(cli_version: &'a str, model: &'static str, email: Option<&'a str>) -> Self {
        let env = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
        let shell = env("SHELL").and_then(|path| {
            let name = std::path::Path::new(&path).file_name()?;
            Some(name.to_string_lossy().into_owned())
        });
        About {
            cli_version,
            model: models::name(model).unwrap_or(model),
            email,
            platform: match std::env::consts::OS {
                "macos" => "darwin",
                "windows" => "win32",
                os => os,
            },
            arch: match std::env::consts::ARCH {
                "x86_64" => "x64",
                "aarch64" => "arm64",
                "x86" => "ia32",
                arch => arch,
            },
            terminal: env("TERM_PROGRAM").unwrap_or_else(|| "unknown".into()),
            shell: shell.unwrap_or_else(|| "unknown".into()),
        }
    }

    fn render(&self, format: InfoFormat) -> String {
        match format {
            InfoFormat::Text => self.text(),
            InfoFormat::Json => format!("{}\n", self.json()),
        }
    }

    /// The real CLI's layout: a title, a blank line, then each name padded to 20
    /// columns and its value.
    fn text(&self) -> String {
        let os = format!("{} ({})", self.platform, self.arch);
        let rows = [
            ("CLI Version", self.cli_version),
            ("Model", self.model),
            ("Subscription Tier", self.email.map_or("Unknown", |_| TIER)),
            ("OS", &os),
            ("Terminal", &self.terminal),
            ("Shell", &self.shell),
            ("User Email", self.email.unwrap_or("Not logged in")),
        ];
        let mut text = String::from("About Cursor CLI\n\n");
        for (name, value) in rows {
            text.push_str(&format!("{name:<20}{value}\n"));
        }
        text
    }

    /// `about --format json`: the fields programs read from the real one.
    fn json(&self) -> serde_json::Value {
        serde_json::json!({
            "cliVersion": self.cli_version,
            "model": self.model,
            "subscriptionTier": self.email.map(|_| TIER),
            "osPlatform": self.platform,
            "osArch": self.arch,
            "userEmail": self.email,
        })
    }
}

fn dispatch(
    args: &AgentArgs,
    server: &'static Profile,
    settings: &Settings,
    entry: &mut Entry,
    spooled: &mut Option<journal::Spooled>,
) -> Exit {
    if args.help {
        return print(&args::help());
    }
    if args.version {
        return print(&format!("{}\n", settings.cli_version));
    }
    let model = models::current(args.model.as_deref());
    if args.list_models || args.command == Some(Command::Models) {
        return print(&models::listing(model));
    }
    let account = settings.account.as_deref();
    match args.command {
        Some(Command::CreateChat) => return print(&format!("{}\n", uuid::Uuid::new_v4())),
        Some(Command::Status | Command::Whoami) => return status(args.format, account),
        Some(Command::About) => {
            let about = About::of_this_machine(&settings.cli_version, model, account);
            return print(&about.render(args.format));
        }
        Some(Command::Acp) => {
            return match settings.record {
                Some(mode) => shim::shim(
                    mode,
                    (args, server),
                    crate::dialects::cursor_print::library::ACP_PROMPT,
                    None,
                    settings,
                    entry,
                    spooled,
                ),
                None => acp(&settings.source(), server, settings, entry, spooled),
            }
        }
        Some(Command::NotEmulated(name)) => {
            eprintln!(
                "mock-agent: `cursor-agent {name}` is not emulated; the mock answers print mode \
                 (also as `agent`), `acp`, `create-chat`, `status`, `whoami`, `models`, `about` \
                 and `--version`"
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
        return shim::shim(mode, (args, server), &prompt, stdin, settings, entry, spooled);
    }
    if let Err(e) = settings
        .faults
        .read(harness::dialects::cursor_print::faults::parse)
    {
        let message = e.to_string();
        eprintln!("mock-agent: {message}");
        entry.error = Some(message);
        return Exit::Code(exit_codes::USAGE);
    }
    let source = settings.source();
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

/// `cursor-agent acp`: server mode, `server`'s agent playing the source's
/// conversation; what it journals of it goes to `spooled`.
fn acp(
    source: &Source,
    server: &'static Profile,
    settings: &Settings,
    entry: &mut Entry,
    spooled: &mut Option<journal::Spooled>,
) -> Exit {
    crate::acp::serve_source(source, server, settings, entry, spooled)
}

/// The scenario of an invocation: its CLI options and the mock's settings.
fn scenario(args: &AgentArgs, settings: &Settings, now_ms: u64) -> Scenario {
    let mut scenario = Scenario::new(
        RenderOptions::new(args.output_format)
            .stream_partial_output(args.stream_partial_output)
            .resume(args.resume.clone().flatten())
            .now_ms(now_ms),
    );
    // A list that is not print mode's was refused before (the shim plays without it).
    scenario.faults = settings
        .faults
        .read(harness::dialects::cursor_print::faults::parse)
        .unwrap_or_default();
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
