//! Settings of the mock: `MOCK_AGENT_*`, from the environment or a file beside it.
//!
//! The program under test spawns the mock with the real CLI's arguments, so
//! everything that is the mock's own comes from `MOCK_AGENT_*` settings. Each is read
//! from, in this order (the first that has it wins):
//!
//! 1. the mock's environment (a variable set, even empty);
//! 2. the settings file `.mock-agent.env` in the directory of the path the mock was run
//!    by (the path `execve` was given: `bin/claude` run from `PATH` reads
//!    `bin/.mock-agent.env`; the symlink's target is not followed), one `NAME=VALUE`
//!    line each (see [`harness::journal::settings`]). `mock-agent test` writes it in
//!    each case's `bin/`, so that the case's settings reach a mock whose consumer passes
//!    it an allow-listed environment.
//!
//! Reading them costs one `open` of the file when it is absent. The journal entry (and
//! the start record of `MOCK_AGENT_STARTED`) says which settings were read and from
//! where.
//!
//! A mock that finds no setting at all (neither in its environment nor in a file)
//! looks up the processes that started it (up to 16) for `MOCK_AGENT_STARTED` in their
//! environment: one that has it ran the mock in a case of `mock-agent test` whose
//! settings were lost on the way (an allow-listed environment, and the mock run by a
//! path with no file beside it). The mock then plays nothing: it records its start as
//! lost there, says why on stderr (`mock-agent: this agent was run in a case ...`) and
//! exits 64, and the runner reports the case as not run. Run on its own, nothing has
//! the variable, and the mock plays the default session.
//!
//! | variable | meaning | default |
//! | --- | --- | --- |
//! | `MOCK_AGENT_STARTED` | append one JSON line per start (its settings and where from) to this file: a mock killed before its end leaves it | none |
//! | `MOCK_AGENT_CLI` | the CLI the mock stands in for when it is run by its own name (not by a link named `claude`, `codex`, ...) with arguments that are none of its commands: a program name, e.g. `codex`; read from the environment only (`mock-agent test` sets it in each case, for programs that resolve the link they are given and run its target) | `cursor-agent` |
//! | `MOCK_AGENT_CASSETTE` | replay this cassette or bare capture | the built-in default session |
//! | `MOCK_AGENT_JOURNAL` | append one JSON line per invocation to this file | no journal |
//! | `MOCK_AGENT_CLI_VERSION` | what `--version` prints | [`DEFAULT_CLI_VERSION`] |
//! | `MOCK_AGENT_ACCOUNT` | who `status` says is logged in; empty: nobody | `someone@example.com` |
//! | `MOCK_AGENT_FAULTS` | faults, `;`-separated (see [`harness::faults`], the catalogue of both modes) | none |
//! | `MOCK_AGENT_TIMING` | when frames are written (see [`harness::timing`]) | `instant` |
//! | `MOCK_AGENT_SEED` | the seed of every random choice | `0` |
//! | `MOCK_AGENT_GENERATE` | serve the session generated from this seed (see [`harness::generate`]) | off |
//! | `MOCK_AGENT_PROFILE` | what generated sessions hold: `real` or `seeds` | `real` |
//! | `MOCK_AGENT_RECORD` | the shim's record mode: `none`, `once`, `new_episodes`, `all`, `passthrough` (the Cursor CLI's cassette library) | off |
//! | `MOCK_AGENT_LIBRARY` | the directory of cassettes the record modes use | none |
//! | `MOCK_AGENT_REAL` | the real CLI, for the record modes that run it | none |
//! | `MOCK_AGENT_MATCH_ON` | the fields an invocation is matched on, or changes to the default (`+argv,-model`) | `prompt,output_format,partial,model` |
//! | `MOCK_AGENT_PLAYBACK_REPEATS` | `1`: replay the last matching cassette again once all are used | off |
//! | `MOCK_AGENT_STRICT` | server mode: answer where the client diverges from the recording with a JSON-RPC error | off |
//! | `MOCK_AGENT_JSONRPC` | server mode: `cursor` ignores a line that is no JSON-RPC message, as the real agent; `strict` answers it `-32700` or `-32600`, as JSON-RPC 2.0 says | `cursor` |
//! | `MOCK_AGENT_STEP` | step mode: read one byte from this FIFO (or `/dev/fd/N`) before each stdout line | off |
//!
//! An empty variable counts as unset (but `MOCK_AGENT_ACCOUNT`). A bad value is an
//! error of the mock's own that names the variable and the column.

use std::cell::RefCell;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use harness::error::Diagnostic;
use harness::error::Origin;
use harness::faults::FaultSpec;
use harness::timing::Timing;

/// What `--version` prints unless `MOCK_AGENT_CLI_VERSION` says otherwise.
pub const DEFAULT_CLI_VERSION: &str = "2026.10.01-e373342";

/// Who `status` says is logged in unless `MOCK_AGENT_ACCOUNT` says otherwise.
pub const DEFAULT_ACCOUNT: &str = "someone@example.com";

/// The mock's settings.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Settings {
    /// `MOCK_AGENT_CASSETTE`.
    pub cassette: Option<PathBuf>,
    /// `MOCK_AGENT_JOURNAL`.
    pub journal: Option<PathBuf>,
    /// `MOCK_AGENT_CLI_VERSION`.
    pub cli_version: String,
    /// `MOCK_AGENT_ACCOUNT`; `None` when logged out.
    pub account: Option<String>,
    /// `MOCK_AGENT_FAULTS`: each dialect's faults are read from it once the command
    /// line says which dialect (a list of print mode's faults is an error in server
    /// mode, and the reverse).
    pub faults: FaultSpec,
    /// `MOCK_AGENT_TIMING`, parsed.
    pub timing: Timing,
    /// `MOCK_AGENT_SEED`.
    pub seed: u64,
    /// `MOCK_AGENT_STEP`.
    pub step: Option<PathBuf>,
    /// `MOCK_AGENT_GENERATE`: the seed of the session to serve.
    pub generate: Option<u64>,
    /// `MOCK_AGENT_PROFILE`.
    pub profile: harness::generate::Profile,
    /// `MOCK_AGENT_RECORD`.
    pub record: Option<RecordMode>,
    /// `MOCK_AGENT_LIBRARY`.
    pub library: Option<PathBuf>,
    /// `MOCK_AGENT_REAL`.
    pub real: Option<PathBuf>,
    /// `MOCK_AGENT_MATCH_ON`.
    pub match_on: MatchOn,
    /// `MOCK_AGENT_PLAYBACK_REPEATS`.
    pub playback_repeats: bool,
    /// `MOCK_AGENT_STRICT`.
    pub strict: bool,
    /// `MOCK_AGENT_JSONRPC=strict`.
    pub jsonrpc_strict: bool,
    /// `MOCK_AGENT_STARTED`.
    pub started: Option<PathBuf>,
    /// Each setting that was set, and where from, in name order.
    pub read: Vec<harness::journal::settings::Setting>,
    /// The settings file read, if one was found.
    pub file: Option<PathBuf>,
}

/// The shim's record modes, as VCR's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecordMode {
    /// Replay only: an invocation with no cassette is an error.
    None,
    /// Record what the library has no cassette for; replay the rest.
    Once,
    /// Replay what matches a cassette not yet played; record what does not.
    NewEpisodes,
    /// Always record.
    All,
    /// Run the real CLI; record nothing.
    Passthrough,
}

impl RecordMode {
    fn parse(text: &str) -> Option<RecordMode> {
        Some(match text.trim() {
            "none" => RecordMode::None,
            "once" => RecordMode::Once,
            "new_episodes" => RecordMode::NewEpisodes,
            "all" => RecordMode::All,
            "passthrough" => RecordMode::Passthrough,
            _ => return None,
        })
    }
}

/// Parses a profile name: `real` or `seeds`.
pub fn parse_profile(text: &str, origin: Origin<'_>) -> Result<harness::generate::Profile, Diagnostic> {
    match text.trim() {
        "real" => Ok(harness::generate::Profile::Real),
        "seeds" => Ok(harness::generate::Profile::Seeds),
        other => Err(origin.error(
            text,
            1,
            format!("`{other}` is not a profile; use `real` or `seeds`"),
        )),
    }
}

/// Where the seed comes from, for errors.
pub const SEED_ORIGIN: Origin<'static> = Origin {
    name: "MOCK_AGENT_SEED",
    help: "a seed is a whole number from 0 to 18446744073709551615",
};

/// Parses a seed: a whole number from 0 to 2^64 - 1.
pub fn parse_seed(text: &str, origin: Origin<'_>) -> Result<u64, Diagnostic> {
    text.trim()
        .parse()
        .map_err(|_| origin.error(text, 1, format!("`{text}` is not a seed")))
}

/// The start of a run of the emulated CLI with `argv` (after the program's name) at
/// `started_at_ms`: the settings of the process's environment and the run's journal
/// entry, or, when the settings cannot be read, how the process ends (the error said
/// on stderr).
pub fn begin(
    argv: &[String],
    started_at_ms: u64,
) -> Result<(Settings, harness::journal::Entry), harness::frames::Exit> {
    let settings = Settings::from_env().map_err(|e| {
        eprintln!("mock-agent: {e}");
        harness::frames::Exit::Code(harness::exit_codes::USAGE)
    })?;
    if settings.read.is_empty() && settings.file.is_none() {
        if let Some((pid, started)) = case_of_ancestor() {
            return Err(lost_case(pid, &started));
        }
    }
    if let Some(path) = &settings.started {
        let start = harness::journal::settings::Start::new(
            std::process::id(),
            settings.read.clone(),
            settings.file.as_ref().map(|f| f.display().to_string()),
        )
        .parent(parent());
        if let Err(e) = harness::journal::settings::append_start(path, &start) {
            eprintln!(
                "mock-agent: cannot append to {}: {e}\nhelp: check MOCK_AGENT_STARTED",
                path.display()
            );
        }
    }
    let entry = settings.entry(argv, started_at_ms);
    Ok((settings, entry))
}

/// How many processes up [`case_of_ancestor`] looks.
const ANCESTORS: usize = 16;

/// The nearest process that started this one (its parent, its parent's parent, ...)
/// with `MOCK_AGENT_STARTED` in its environment (as it started): its id and that
/// file. Looked for only when the mock got no setting at all, so that a mock run in a
/// case that lost its settings on the way says so (see [`lost_case`]).
fn case_of_ancestor() -> Option<(u32, PathBuf)> {
    let name = format!("\0{}=", harness::journal::settings::STARTED);
    let mut pid = std::os::unix::process::parent_id();
    for _ in 0..ANCESTORS {
        if pid <= 1 {
            return None;
        }
        if let Ok(bytes) = std::fs::read(format!("/proc/{pid}/environ")) {
            // Each variable after a NUL, the first too; found by the standard
            // library's substring search, which is fast in any build.
            let environ = format!("\0{}", String::from_utf8_lossy(&bytes));
            let found = environ.find(&name).map(|at| &environ[at + name.len()..]);
            let path = found.and_then(|rest| rest.split('\0').next()).unwrap_or_default();
            if !path.is_empty() {
                return Some((pid, PathBuf::from(path)));
            }
        }
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        pid = stat.rsplit_once(')')?.1.split_whitespace().nth(1)?.parse().ok()?;
    }
    None
}

/// A mock run in a case (process `pid` has `MOCK_AGENT_STARTED`, `started`) that got
/// none of its settings: its start recorded as lost, why said on stderr, and the
/// usage error it exits with.
fn lost_case(pid: u32, started: &Path) -> harness::frames::Exit {
    let path = invoked_path().map_or_else(
        || "the path it was run by".to_owned(),
        |p| p.display().to_string(),
    );
    let why = format!(
        "it got no MOCK_AGENT_* setting: none in its environment, and no `{}` beside {path}",
        harness::journal::settings::FILE_NAME
    );
    let start = harness::journal::settings::Start::new(std::process::id(), Vec::new(), None)
        .parent(parent())
        .lost(why.clone());
    let _ = harness::journal::settings::append_start(started, &start);
    eprintln!(
        "mock-agent: this agent was run in a case of `mock-agent test` (process {pid} has {}), but {why}, \
         so it cannot know the case's session or faults: it plays nothing\n\
         help: run the agent by the path the case puts first on PATH (its `bin/`), or `{{mock}}`, \
         or pass it the MOCK_AGENT_* variables",
        harness::journal::settings::STARTED
    );
    harness::frames::Exit::Code(harness::exit_codes::USAGE)
}

/// The process that started this one, `PID COMMAND LINE` (its arguments joined by
/// spaces, as `/proc/PID/cmdline` gives them), for the start record: `None` when it is
/// gone already (the process was handed to `init`) or cannot be read.
fn parent() -> Option<String> {
    let ppid = std::os::unix::process::parent_id();
    let bytes = std::fs::read(format!("/proc/{ppid}/cmdline")).ok()?;
    let text = String::from_utf8_lossy(&bytes);
    let args: Vec<&str> = text.split('\0').filter(|a| !a.is_empty()).collect();
    let line: String = args.join(" ").chars().take(200).collect();
    (ppid > 1 && !line.is_empty()).then(|| format!("{ppid} {line}"))
}

/// The path this process was run by, as `execve` was given it (`bin/claude`, found on
/// `PATH` by the program that ran it), not the file a symlink leads to: the kernel's
/// `AT_EXECFN`, else `argv[0]` looked up on `PATH` as `execvp` does.
pub fn invoked_path() -> Option<PathBuf> {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: `getauxval` only reads the auxiliary vector the kernel handed the
        // process; `AT_EXECFN` is a NUL-terminated string that lives as long as it.
        #[allow(unsafe_code)]
        let name = unsafe {
            let at = nix::libc::getauxval(nix::libc::AT_EXECFN) as *const std::ffi::c_char;
            (!at.is_null()).then(|| std::ffi::CStr::from_ptr(at).to_bytes().to_vec())
        };
        if let Some(name) = name.filter(|n| !n.is_empty()) {
            use std::os::unix::ffi::OsStringExt as _;
            return Some(PathBuf::from(OsString::from_vec(name)));
        }
    }
    let argv0 = PathBuf::from(std::env::args_os().next()?);
    if argv0.components().count() > 1 {
        return Some(argv0);
    }
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(&argv0))
        .find(|path| path.is_file())
}

/// The settings file beside `invoked` (the path the mock was run by), read: its path
/// and its settings. `None` when there is none.
pub fn file_beside(invoked: &Path) -> Option<(PathBuf, Vec<(String, String)>)> {
    let dir = invoked.parent().unwrap_or(Path::new(""));
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    let path = dir.join(harness::journal::settings::FILE_NAME);
    let text = std::fs::read_to_string(&path).ok()?;
    let path = std::path::absolute(&path).unwrap_or(path);
    Some((path, harness::journal::settings::parse(&text)))
}

impl Settings {
    /// What the settings say to play as a session of events (print mode's, which a
    /// server tells too): a generated one (`MOCK_AGENT_GENERATE`, of the settings'
    /// profile), a cassette (`MOCK_AGENT_CASSETTE`), or the default.
    pub fn source(&self) -> harness::source::Source {
        use harness::source::Source;
        match (self.generate, &self.cassette) {
            (Some(seed), _) => Source::Generated {
                seed,
                config: harness::generate::SessionConfig::default().profile(self.profile),
            },
            (None, Some(path)) => Source::Cassette(path.clone()),
            (None, None) => Source::Default,
        }
    }

    /// The journal entry of a run of the emulated CLI with `argv` (after the
    /// program's name), begun at `started_at_ms`: its process, folder and seed.
    pub fn entry(&self, argv: &[String], started_at_ms: u64) -> harness::journal::Entry {
        let mut entry = harness::journal::Entry::new(std::process::id(), argv.to_vec(), started_at_ms);
        entry.cwd = std::env::current_dir().ok().map(|d| d.display().to_string());
        entry.seed = self.seed;
        entry.settings = self.read.clone();
        entry.settings_file = self.file.as_ref().map(|f| f.display().to_string());
        entry
    }

    /// Reads the settings from the process environment, and from the settings file
    /// beside the path the process was run by (see the module's documentation).
    pub fn from_env() -> Result<Self, Diagnostic> {
        let file = invoked_path().and_then(|path| file_beside(&path));
        Self::from_sources(|name| std::env::var_os(name), file)
    }

    /// Reads the settings through `lookup` alone (for tests).
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<OsString>) -> Result<Self, Diagnostic> {
        Self::from_sources(lookup, None)
    }

    /// Reads the settings through `env`, then from `file` (its path and settings) for
    /// those `env` does not have.
    pub fn from_sources(
        env: impl Fn(&str) -> Option<OsString>,
        file: Option<(PathBuf, Vec<(String, String)>)>,
    ) -> Result<Self, Diagnostic> {
        use harness::journal::settings::{From, Setting};
        let read: RefCell<Vec<Setting>> = RefCell::new(Vec::new());
        let lookup = |name: &str| {
            let (value, from) = match env(name) {
                Some(value) => (value, From::Env),
                None => {
                    let lines = &file.as_ref()?.1;
                    let (_, value) = lines.iter().rev().find(|(n, _)| n == name)?;
                    (OsString::from(value), From::File)
                }
            };
            let mut read = read.borrow_mut();
            if !read.iter().any(|s| s.name == name) {
                read.push(Setting {
                    name: name.to_owned(),
                    value: value.to_string_lossy().into_owned(),
                    from,
                });
            }
            Some(value)
        };
        let mut settings = Self::read(lookup)?;
        let mut read = read.into_inner();
        read.sort_by(|a, b| a.name.cmp(&b.name));
        settings.read = read;
        settings.file = file.map(|(path, _)| path);
        Ok(settings)
    }

    fn read(lookup: impl Fn(&str) -> Option<OsString>) -> Result<Self, Diagnostic> {
        let path = |name: &str| lookup(name).filter(|v| !v.is_empty()).map(PathBuf::from);
        let text = |name: &str| lookup(name).map(|v| v.to_string_lossy().into_owned());
        let set = |name: &str| text(name).filter(|v| !v.trim().is_empty());
        Ok(Settings {
            faults: FaultSpec::new(set("MOCK_AGENT_FAULTS")),
            timing: match set("MOCK_AGENT_TIMING") {
                Some(spec) => Timing::parse(&spec, Timing::FROM_ENV)?,
                None => Timing::default(),
            },
            seed: match set("MOCK_AGENT_SEED") {
                Some(seed) => parse_seed(&seed, SEED_ORIGIN)?,
                None => 0,
            },
            step: path("MOCK_AGENT_STEP"),
            generate: match set("MOCK_AGENT_GENERATE") {
                Some(seed) => Some(parse_seed(
                    &seed,
                    Origin {
                        name: "MOCK_AGENT_GENERATE",
                        help: SEED_ORIGIN.help,
                    },
                )?),
                None => None,
            },
            record: match set("MOCK_AGENT_RECORD") {
                Some(mode) => Some(RecordMode::parse(&mode).ok_or_else(|| {
                    Origin {
                        name: "MOCK_AGENT_RECORD",
                        help: "the record modes are none, once, new_episodes, all and passthrough",
                    }
                    .error(&mode, 1, format!("`{mode}` is not a record mode"))
                })?),
                None => None,
            },
            library: path("MOCK_AGENT_LIBRARY"),
            real: path("MOCK_AGENT_REAL"),
            match_on: match set("MOCK_AGENT_MATCH_ON") {
                Some(spec) => MatchOn::parse(&spec).map_err(|message| {
                    Origin {
                        name: "MOCK_AGENT_MATCH_ON",
                        help: "name the fields, e.g. `prompt,model`, or change the default, e.g. `+argv,-model`",
                    }
                    .error(&spec, 1, message)
                })?,
                None => MatchOn::default(),
            },
            playback_repeats: set("MOCK_AGENT_PLAYBACK_REPEATS").is_some_and(|v| v != "0" && v != "false"),
            strict: set("MOCK_AGENT_STRICT").is_some_and(|v| v != "0" && v != "false"),
            jsonrpc_strict: match set("MOCK_AGENT_JSONRPC") {
                None => false,
                Some(value) => match value.trim() {
                    "cursor" => false,
                    "strict" => true,
                    other => {
                        return Err(Origin {
                            name: "MOCK_AGENT_JSONRPC",
                            help: "`cursor` ignores a line that is no JSON-RPC message, as the real agent does; `strict` answers it with -32700 or -32600",
                        }
                        .error(&value, 1, format!("`{other}` is not a JSON-RPC mode; use `cursor` or `strict`")))
                    }
                },
            },
            profile: match set("MOCK_AGENT_PROFILE") {
                Some(name) => parse_profile(
                    &name,
                    Origin {
                        name: "MOCK_AGENT_PROFILE",
                        help: "generated sessions hold everything the real CLI prints (`real`) or only what the documentation shows (`seeds`)",
                    },
                )?,
                None => harness::generate::Profile::Real,
            },
            started: path(harness::journal::settings::STARTED),
            read: Vec::new(),
            file: None,
            cassette: path("MOCK_AGENT_CASSETTE"),
            journal: path("MOCK_AGENT_JOURNAL"),
            cli_version: text("MOCK_AGENT_CLI_VERSION")
                .filter(|v| !v.is_empty())
                .unwrap_or_else(|| DEFAULT_CLI_VERSION.to_owned()),
            account: match text("MOCK_AGENT_ACCOUNT") {
                None => Some(DEFAULT_ACCOUNT.to_owned()),
                Some(v) if v.is_empty() => None,
                Some(v) => Some(v),
            },
        })
    }
}

/// The fields of a key, in order.
pub const FIELDS: &[&str] = &["prompt", "output_format", "partial", "model", "argv", "cwd"];

/// The fields matched on unless `MOCK_AGENT_MATCH_ON` says otherwise.
pub const DEFAULT_FIELDS: &[&str] = &["prompt", "output_format", "partial", "model"];

/// Which fields an invocation is matched on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MatchOn(Vec<&'static str>);

impl Default for MatchOn {
    fn default() -> Self {
        MatchOn(DEFAULT_FIELDS.to_vec())
    }
}

impl MatchOn {
    /// Parses `prompt,model`, or changes to the default: `+argv,-model`.
    pub fn parse(spec: &str) -> Result<MatchOn, String> {
        let items: Vec<&str> = spec.split(',').map(str::trim).filter(|s| !s.is_empty()).collect();
        let relative = items.iter().all(|i| i.starts_with('+') || i.starts_with('-'));
        let mut fields: Vec<&'static str> = if relative {
            DEFAULT_FIELDS.to_vec()
        } else {
            Vec::new()
        };
        for item in items {
            let (sign, name) = match item.chars().next() {
                Some(c @ ('+' | '-')) => (Some(c), &item[1..]),
                _ => (None, item),
            };
            let Some(field) = FIELDS.iter().copied().find(|f| *f == name) else {
                return Err(format!(
                    "`{name}` is not a field to match on; use {}",
                    FIELDS.join(", ")
                ));
            };
            match sign {
                Some('-') => fields.retain(|f| *f != field),
                _ if !fields.contains(&field) => fields.push(field),
                _ => {}
            }
        }
        Ok(MatchOn(fields))
    }

    /// The fields, in order.
    pub fn fields(&self) -> &[&'static str] {
        &self.0
    }
}
