//! Codex's command line, as the SDKs and scripts give it: `codex exec ...`, `codex
//! exec resume ID ...`, `codex app-server ...`, `codex --version`. Every flag of
//! `codex exec --help` (0.163.0) is taken in the `--flag value`, `--flag=value`, `-f
//! value` and `-fvalue` forms, both spellings of `--json` (`--experimental-json`), `-c`
//! repeated, before and after `resume`. Errors are clap's, in clap's words (the real
//! CLI is a clap program): for stderr, exit 2.
//!
//! Pure: no process, no environment; what the arguments say, read.

use super::wire::argv::{COLORS, FLAGS, LISTEN_STDIO, LOCAL_PROVIDERS, RESUME_FLAGS, SHORT, VALUED};
use super::wire::{policies, sandboxes, MODEL};
use crate::exit_codes;

/// The exit code of an argument error (clap's).
pub const USAGE_EXIT: i32 = 2;

/// What the command line asks for.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    /// `codex --version`, `codex -V` (and `codex exec -V`): print
    /// [`super::wire::VERSION_LINE`], exit 0.
    Version,
    /// `--help`, `-h`: print this text, exit 0.
    Help(&'static str),
    /// `codex exec ...`.
    Exec(Box<ExecArgs>),
    /// `codex app-server ...`.
    AppServer(AppServerArgs),
    /// No subcommand (or a word that is not one, as `mcp-server` since 0.154.0): the
    /// interactive UI, which needs a terminal (`Error: stdin is not a terminal`, exit 1
    /// with a piped stdin).
    Interactive {
        /// The word taken as a prompt.
        prompt: Option<String>,
    },
}

/// `codex exec`'s arguments, read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExecArgs {
    /// `--json` or `--experimental-json`: JSONL events on stdout.
    pub json: bool,
    /// `-c`, `--config key=value`, in order (the top level's first).
    pub config: Vec<String>,
    /// `-m`, `--model`.
    pub model: Option<String>,
    /// `-s`, `--sandbox`.
    pub sandbox: Option<String>,
    /// `-C`, `--cd`.
    pub cd: Option<String>,
    /// `--add-dir`, in order.
    pub add_dirs: Vec<String>,
    /// `-i`, `--image`, in order.
    pub images: Vec<String>,
    /// `--skip-git-repo-check`.
    pub skip_git_repo_check: bool,
    /// `--output-schema FILE`.
    pub output_schema: Option<String>,
    /// `-o`, `--output-last-message FILE`.
    pub output_last_message: Option<String>,
    /// `--dangerously-bypass-approvals-and-sandbox`.
    pub bypass: bool,
    /// `--ephemeral`: no rollout is kept.
    pub ephemeral: bool,
    /// `-p`, `--profile`.
    pub profile: Option<String>,
    /// `--thread-source`.
    pub thread_source: Option<String>,
    /// `--color`.
    pub color: Option<String>,
    /// Every other flag given, by its long name, with its value (`oss`, `enable`, ...):
    /// taken and left alone.
    pub others: Vec<(String, Option<String>)>,
    /// The prompt in argv (`-` reads stdin, as no prompt does).
    pub prompt: Option<String>,
    /// `resume [ID] [PROMPT]`.
    pub resume: Option<Resume>,
}

/// `codex exec resume`'s arguments.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Resume {
    /// The thread: a UUID or a thread name (`None` with `--last`).
    pub id: Option<String>,
    /// `--last`: the most recent thread.
    pub last: bool,
    /// `--all`: any folder's threads.
    pub all: bool,
}

/// `codex app-server`'s arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AppServerArgs {
    /// `-c`, `--config key=value` given before `app-server`.
    pub config: Vec<String>,
    /// `--listen` (`stdio://`, the default and the only one the stand-in serves).
    pub listen: String,
}

/// An argument error: what goes on stderr, and the exit code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgError {
    /// The whole text for stderr (ends with a newline).
    pub message: String,
    /// 2 for clap's errors; [`exit_codes::USAGE`] for the mock's own.
    pub exit_code: i32,
}

impl ExecArgs {
    /// The last `-c KEY=VALUE` of `key`, its value read as TOML reads a string (quotes
    /// taken off), else as given.
    pub fn config_value(&self, key: &str) -> Option<String> {
        self.config.iter().rev().find_map(|kv| {
            let (k, v) = kv.split_once('=')?;
            (k.trim() == key).then(|| unquote(v.trim()))
        })
    }

    /// The model: `-m`, else `-c model=`, else [`MODEL`].
    pub fn model(&self) -> String {
        self.model
            .clone()
            .or_else(|| self.config_value("model"))
            .unwrap_or_else(|| MODEL.to_owned())
    }

    /// The approval policy: `never` with `--dangerously-bypass-approvals-and-sandbox`,
    /// else `-c approval_policy=`, else `never` (`exec`'s default).
    pub fn approval_policy(&self) -> String {
        if self.bypass {
            return policies::NEVER.to_owned();
        }
        self.config_value("approval_policy")
            .unwrap_or_else(|| policies::NEVER.to_owned())
    }

    /// Whether the Git-repository check is skipped: `--skip-git-repo-check`, or the bypass.
    pub fn skips_git_check(&self) -> bool {
        self.skip_git_repo_check || self.bypass
    }

    /// The folder the run works in: `-C DIR` (relative to `cwd`), else `cwd`.
    pub fn workdir(&self, cwd: &std::path::Path) -> std::path::PathBuf {
        self.cd.as_ref().map_or(cwd.to_path_buf(), |dir| cwd.join(dir))
    }

    /// The sandbox mode: `danger-full-access` with the bypass flag, else `--sandbox`,
    /// else `-c sandbox_mode=`, else `workspace-write` (what a trusted folder gets;
    /// the real CLI's first run in an untrusted folder says `read-only`).
    pub fn sandbox_mode(&self) -> String {
        if self.bypass {
            return sandboxes::DANGER_FULL_ACCESS.to_owned();
        }
        self.sandbox
            .clone()
            .or_else(|| self.config_value("sandbox_mode"))
            .unwrap_or_else(|| sandboxes::WORKSPACE_WRITE.to_owned())
    }

    /// Whether the prompt is read from stdin (no prompt in argv, or `-`).
    pub fn prompt_from_stdin(&self) -> bool {
        matches!(self.prompt.as_deref(), None | Some("-"))
    }
}

/// `value` as TOML reads a basic or literal string; anything else as given.
fn unquote(value: &str) -> String {
    for quote in ['"', '\''] {
        if let Some(inner) = value.strip_prefix(quote).and_then(|v| v.strip_suffix(quote)) {
            return inner.to_owned();
        }
    }
    value.to_owned()
}

/// The top level's options that take a value (before the subcommand).
const TOP_VALUED: &[(&str, &str)] = &[
    ("config", "key=value"),
    ("enable", "FEATURE"),
    ("disable", "FEATURE"),
    ("image", "FILE"),
    ("model", "MODEL"),
    ("profile", "CONFIG_PROFILE"),
    ("sandbox", "SANDBOX_MODE"),
    ("ask-for-approval", "APPROVAL_POLICY"),
    ("cd", "DIR"),
    ("add-dir", "DIR"),
];

/// The usage lines clap prints for each command (without a flag used).
const EXEC_USAGE: &str = "codex exec [OPTIONS] [PROMPT]\n       codex exec [OPTIONS] <COMMAND> [ARGS]";
const TOP_USAGE: &str = "codex [OPTIONS] [PROMPT]\n       codex [OPTIONS] <COMMAND> [ARGS]";
const APP_SERVER_USAGE: &str = "codex app-server [OPTIONS] [COMMAND]";

/// Reads the arguments after the program's name.
pub fn parse(argv: &[String]) -> Result<Command, ArgError> {
    let mut config = Vec::new();
    let mut top = Parser::new("codex", TOP_USAGE, TOP_VALUED, &["help", "version", "oss"]);
    let mut rest = argv.iter().map(String::as_str).peekable();
    while let Some(arg) = rest.next() {
        match top.token(arg, &mut rest)? {
            Token::Flag(name, value) => match name.as_str() {
                "help" => return Ok(Command::Help(HELP)),
                "version" => return Ok(Command::Version),
                "config" => config.extend(value),
                "ask-for-approval" => {
                    let policy = value.unwrap_or_default();
                    if !policies::ALL.contains(&policy.as_str()) {
                        return Err(invalid_value(
                            &policy,
                            "--ask-for-approval <APPROVAL_POLICY>",
                            policies::ALL,
                        ));
                    }
                    config.push(format!("approval_policy=\"{policy}\""));
                }
                "model" => config.push(format!("model=\"{}\"", value.unwrap_or_default())),
                "sandbox" => config.push(format!("sandbox_mode=\"{}\"", value.unwrap_or_default())),
                _ => {}
            },
            Token::Word(word) => {
                let after: Vec<&str> = rest.collect();
                return match word {
                    "exec" | "e" => parse_exec(config, &after),
                    "app-server" => parse_app_server(config, &after),
                    "--" => Ok(Command::Interactive {
                        prompt: after.first().map(|s| (*s).to_owned()),
                    }),
                    other => Ok(Command::Interactive {
                        prompt: Some(other.to_owned()),
                    }),
                };
            }
        }
    }
    Ok(Command::Interactive { prompt: None })
}

/// `codex exec ...` (and its `--help`, `--version`).
fn parse_exec(config: Vec<String>, argv: &[&str]) -> Result<Command, ArgError> {
    let mut args = ExecArgs {
        config,
        ..ExecArgs::default()
    };
    let mut parser = Parser::new("codex exec", EXEC_USAGE, VALUED, FLAGS);
    let mut rest = argv.iter().copied().peekable();
    let mut positionals: Vec<String> = Vec::new();
    let mut in_resume = false;
    while let Some(arg) = rest.next() {
        let token = match arg {
            "--last" | "--all" if in_resume => Token::Flag(arg[2..].to_owned(), None),
            _ => parser.token(arg, &mut rest)?,
        };
        match token {
            Token::Word("--") => positionals.extend(rest.by_ref().map(str::to_owned)),
            Token::Word(word) => {
                if positionals.is_empty() && !in_resume && args.prompt.is_none() {
                    match word {
                        "resume" => {
                            in_resume = true;
                            args.resume = Some(Resume::default());
                            parser = Parser::new("codex exec resume", RESUME_USAGE, VALUED, FLAGS);
                            continue;
                        }
                        "fork" | "review" => {
                            return Err(ArgError {
                                message: format!(
                                    "mock-agent: `codex exec {word}` is not played by the stand-in; it plays `codex exec` and `codex exec resume`\n"
                                ),
                                exit_code: exit_codes::USAGE,
                            })
                        }
                        _ => {}
                    }
                }
                positionals.push(word.to_owned());
            }
            Token::Flag(name, value) => {
                if RESUME_FLAGS.contains(&name.as_str()) {
                    let resume = args.resume.get_or_insert_with(Resume::default);
                    resume.last |= name == "last";
                    resume.all |= name == "all";
                    continue;
                }
                match name.as_str() {
                    "help" => return Ok(Command::Help(EXEC_HELP)),
                    "version" => return Ok(Command::Version),
                    _ => exec_flag(&mut args, &name, value)?,
                }
            }
        }
    }
    let max = if in_resume { 2 } else { 1 };
    if let Some(extra) = positionals.get(max) {
        return Err(parser.unexpected(extra, false));
    }
    let mut positionals = positionals.into_iter();
    if let Some(resume) = args.resume.as_mut() {
        if !resume.last {
            resume.id = positionals.next();
        }
    }
    args.prompt = positionals.next();
    if let Some(extra) = positionals.next() {
        return Err(parser.unexpected(&extra, false));
    }
    Ok(Command::Exec(Box::new(args)))
}

const RESUME_USAGE: &str = "codex exec resume [OPTIONS] [SESSION_ID] [PROMPT]";

/// One of `codex exec`'s flags, read into `args`.
fn exec_flag(args: &mut ExecArgs, name: &str, value: Option<String>) -> Result<(), ArgError> {
    let check = |value: &str, display: &str, allowed: &[&str]| {
        if allowed.contains(&value) {
            Ok(())
        } else {
            Err(invalid_value(value, display, allowed))
        }
    };
    match name {
        "json" | "experimental-json" => args.json = true,
        "config" => args.config.extend(value),
        "model" => args.model = value,
        "sandbox" => {
            let mode = value.unwrap_or_default();
            check(&mode, "--sandbox <SANDBOX_MODE>", sandboxes::ALL)?;
            args.sandbox = Some(mode);
        }
        "color" => {
            let color = value.unwrap_or_default();
            check(&color, "--color <COLOR>", COLORS)?;
            args.color = Some(color);
        }
        "local-provider" => {
            let provider = value.clone().unwrap_or_default();
            check(&provider, "--local-provider <OSS_PROVIDER>", LOCAL_PROVIDERS)?;
            args.others.push((name.to_owned(), value));
        }
        "cd" => args.cd = value,
        "add-dir" => args.add_dirs.extend(value),
        "image" => args.images.extend(value),
        "skip-git-repo-check" => args.skip_git_repo_check = true,
        "output-schema" => args.output_schema = value,
        "output-last-message" => args.output_last_message = value,
        "dangerously-bypass-approvals-and-sandbox" => args.bypass = true,
        "ephemeral" => args.ephemeral = true,
        "profile" => args.profile = value,
        "thread-source" => args.thread_source = value,
        _ => args.others.push((name.to_owned(), value)),
    }
    Ok(())
}

/// `codex app-server ...`.
fn parse_app_server(config: Vec<String>, argv: &[&str]) -> Result<Command, ArgError> {
    let mut parser = Parser::new(
        "codex app-server",
        APP_SERVER_USAGE,
        &[("listen", "URL"), ("config", "key=value")],
        &["help", "analytics-default-enabled"],
    );
    let mut args = AppServerArgs {
        config,
        listen: LISTEN_STDIO.to_owned(),
    };
    let mut rest = argv.iter().copied().peekable();
    while let Some(arg) = rest.next() {
        match parser.token(arg, &mut rest)? {
            Token::Flag(name, value) => match name.as_str() {
                "help" => return Ok(Command::Help(APP_SERVER_HELP)),
                "listen" => args.listen = value.unwrap_or_default(),
                "config" => args.config.extend(value),
                _ => {}
            },
            Token::Word(word @ ("daemon" | "proxy" | "generate-ts" | "generate-json-schema")) => {
                return Err(ArgError {
                    message: format!("mock-agent: `codex app-server {word}` is not played by the stand-in; it serves `codex app-server --listen stdio://`\n"),
                    exit_code: exit_codes::USAGE,
                })
            }
            Token::Word(word) => return Err(parser.unexpected(word, false)),
        }
    }
    Ok(Command::AppServer(args))
}

/// An argument, read.
enum Token<'a> {
    /// A flag by its long name, with its value when it takes one.
    Flag(String, Option<String>),
    /// A word that is not a flag (or `--`).
    Word(&'a str),
}

/// One command's flags, and what was given so far (for clap's usage line).
struct Parser {
    name: &'static str,
    usage: &'static str,
    valued: &'static [(&'static str, &'static str)],
    flags: &'static [&'static str],
    /// The flags given so far, as clap shows them in a usage line, in order.
    used: Vec<String>,
}

impl Parser {
    fn new(
        name: &'static str,
        usage: &'static str,
        valued: &'static [(&'static str, &'static str)],
        flags: &'static [&'static str],
    ) -> Self {
        Parser {
            name,
            usage,
            valued,
            flags,
            used: Vec::new(),
        }
    }

    /// Reads `arg` (and its value from `rest` when it takes one).
    fn token<'a, I: Iterator<Item = &'a str>>(
        &mut self,
        arg: &'a str,
        rest: &mut std::iter::Peekable<I>,
    ) -> Result<Token<'a>, ArgError> {
        let (long, inline) = if let Some(long) = arg.strip_prefix("--") {
            if long.is_empty() {
                return Ok(Token::Word(arg));
            }
            match long.split_once('=') {
                Some((name, value)) => (name.to_owned(), Some(value.to_owned())),
                None => (long.to_owned(), None),
            }
        } else if let Some(short) = arg.strip_prefix('-').filter(|s| !s.is_empty()) {
            let mut chars = short.chars();
            let letter = chars.next().unwrap_or_default();
            let Some((_, long)) = SHORT.iter().find(|(s, _)| *s == letter) else {
                return Err(self.unexpected(&format!("-{letter}"), true));
            };
            let tail = chars.as_str();
            let inline = (!tail.is_empty()).then(|| tail.strip_prefix('=').unwrap_or(tail).to_owned());
            ((*long).to_owned(), inline)
        } else {
            return Ok(Token::Word(arg));
        };
        if self.flags.contains(&long.as_str()) {
            if let Some(value) = inline {
                return Err(self.error(
                    &format!("unexpected value '{value}' for '--{long}' found; no more were expected"),
                    true,
                ));
            }
            if long != "help" && long != "version" {
                self.use_arg(format!("--{long}"));
            }
            return Ok(Token::Flag(long, None));
        }
        let Some((_, value_name)) = self.valued.iter().find(|(name, _)| *name == long) else {
            return Err(self.unexpected(&format!("--{long}"), true));
        };
        let display = format!("--{long} <{value_name}>");
        let value = match inline {
            Some(value) => value,
            None => match rest.peek() {
                Some(next) if !next.starts_with('-') || *next == "-" => {
                    rest.next().unwrap_or_default().to_owned()
                }
                _ => {
                    let allowed = match long.as_str() {
                        "sandbox" => sandboxes::ALL,
                        "color" => COLORS,
                        "local-provider" => LOCAL_PROVIDERS,
                        _ => &[],
                    };
                    return Err(invalid_value("", &display, allowed));
                }
            },
        };
        self.use_arg(display);
        Ok(Token::Flag(long, Some(value)))
    }

    fn use_arg(&mut self, shown: String) {
        if !self.used.contains(&shown) {
            self.used.push(shown);
        }
    }

    /// clap's usage line: the plain one, or the flags given and the positionals.
    fn usage(&self) -> String {
        if self.used.is_empty() {
            return format!("Usage: {}", self.usage);
        }
        let positionals = self
            .usage
            .lines()
            .next()
            .and_then(|line| line.split_once("[OPTIONS]"))
            .map(|(_, after)| after.trim())
            .unwrap_or_default();
        format!("Usage: {} {} {positionals}", self.name, self.used.join(" "))
            .trim_end()
            .to_owned()
    }

    /// `error: unexpected argument 'ARG' found`, with clap's tips: a similar flag of
    /// this command, or (for a flag no name is near) how to pass it as a value.
    fn unexpected(&mut self, arg: &str, flag: bool) -> ArgError {
        let mut message = format!("error: unexpected argument '{arg}' found\n");
        let similar = arg.strip_prefix("--").and_then(|long| {
            let names = self
                .valued
                .iter()
                .map(|(n, _)| *n)
                .chain(self.flags.iter().copied());
            similar(long, names)
        });
        if let Some(name) = similar {
            message.push_str(&format!("\n  tip: a similar argument exists: '--{name}'\n"));
            let shown = match self.valued.iter().find(|(n, _)| *n == name) {
                Some((_, value_name)) => format!("--{name} <{value_name}>"),
                None => format!("--{name}"),
            };
            self.use_arg(shown);
        } else if flag && arg.starts_with("--") && self.name != "codex app-server" {
            message.push_str(&format!("\n  tip: to pass '{arg}' as a value, use '-- {arg}'\n"));
        }
        message.push('\n');
        message.push_str(&self.usage());
        message.push_str("\n\nFor more information, try '--help'.\n");
        ArgError {
            message,
            exit_code: USAGE_EXIT,
        }
    }

    /// Any other clap error, with the usage line.
    fn error(&self, what: &str, usage: bool) -> ArgError {
        let usage = if usage {
            format!("\n\n{}", self.usage())
        } else {
            String::new()
        };
        ArgError {
            message: format!("error: {what}{usage}\n\nFor more information, try '--help'.\n"),
            exit_code: USAGE_EXIT,
        }
    }
}

/// clap's error for a value not among `allowed` (`value` empty: none was given).
fn invalid_value(value: &str, display: &str, allowed: &[&str]) -> ArgError {
    let mut message = if value.is_empty() {
        format!("error: a value is required for '{display}' but none was supplied")
    } else {
        format!("error: invalid value '{value}' for '{display}'")
    };
    if !allowed.is_empty() {
        message.push_str(&format!("\n  [possible values: {}]", allowed.join(", ")));
    }
    if let Some(near) = similar(value, allowed.iter().copied()).filter(|_| !value.is_empty()) {
        message.push_str(&format!("\n\n  tip: a similar value exists: '{near}'"));
    }
    message.push_str("\n\nFor more information, try '--help'.\n");
    ArgError {
        message,
        exit_code: USAGE_EXIT,
    }
}

/// The name most like `given` with a Jaro similarity over 0.7 (clap's suggestion
/// rule; a later name wins a tie).
fn similar<'a>(given: &str, names: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let mut best: Option<(f64, &str)> = None;
    for name in names {
        let score = jaro(given, name);
        if score > 0.7 && best.is_none_or(|(b, _)| score >= b) {
            best = Some((score, name));
        }
    }
    best.map(|(_, name)| name)
}

/// The Jaro similarity of two strings, by characters (as `strsim::jaro`).
fn jaro(a: &str, b: &str) -> f64 {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    if a.is_empty() && b.is_empty() {
        return 1.0;
    }
    if a.is_empty() || b.is_empty() {
        return 0.0;
    }
    let range = (a.len().max(b.len()) / 2).saturating_sub(1);
    let mut a_hit = vec![false; a.len()];
    let mut b_hit = vec![false; b.len()];
    let mut matches = 0usize;
    for (i, ca) in a.iter().enumerate() {
        let low = i.saturating_sub(range);
        let high = (i + range + 1).min(b.len());
        for j in low..high {
            if !b_hit[j] && b[j] == *ca {
                a_hit[i] = true;
                b_hit[j] = true;
                matches += 1;
                break;
            }
        }
    }
    if matches == 0 {
        return 0.0;
    }
    let a_matched = a.iter().zip(&a_hit).filter(|(_, h)| **h).map(|(c, _)| c);
    let b_matched = b.iter().zip(&b_hit).filter(|(_, h)| **h).map(|(c, _)| c);
    let transpositions = a_matched.zip(b_matched).filter(|(x, y)| x != y).count() / 2;
    let m = matches as f64;
    (m / a.len() as f64 + m / b.len() as f64 + (m - transpositions as f64) / m) / 3.0
}

/// What `codex --help` prints (the stand-in's commands).
pub const HELP: &str = "\
Codex CLI (mock-agent's stand-in)

Usage: codex [OPTIONS] [PROMPT]
       codex [OPTIONS] <COMMAND> [ARGS]

Commands:
  exec        Run Codex non-interactively [aliases: e]
  app-server  [experimental] Run the app server or related tooling

Options:
  -c, --config <key=value>  Override a configuration value
  -m, --model <MODEL>       Model the agent should use
  -h, --help                Print help
  -V, --version             Print version
";

/// What `codex exec --help` prints.
pub const EXEC_HELP: &str = "\
Run Codex non-interactively

Usage: codex exec [OPTIONS] [PROMPT]
       codex exec [OPTIONS] <COMMAND> [ARGS]

Commands:
  resume  Resume a previous session by id or pick the most recent with --last

Arguments:
  [PROMPT]  Initial instructions for the agent. If not provided as an argument (or if `-` is used), instructions are read from stdin

Options:
  -c, --config <key=value>            Override a configuration value
  -i, --image <FILE>...               Optional image(s) to attach to the initial prompt
  -m, --model <MODEL>                 Model the agent should use
  -s, --sandbox <SANDBOX_MODE>        [possible values: read-only, workspace-write, danger-full-access]
  -C, --cd <DIR>                      Tell the agent to use the specified directory as its working root
      --skip-git-repo-check           Allow running Codex outside a Git repository
      --output-schema <FILE>          Path to a JSON Schema file describing the model's final response shape
      --json                          Print events to stdout as JSONL
  -o, --output-last-message <FILE>    Specifies file where the last message from the agent should be written
  -h, --help                          Print help
  -V, --version                       Print version
";

/// What `codex app-server --help` prints.
pub const APP_SERVER_HELP: &str = "\
[experimental] Run the app server or related tooling

Usage: codex app-server [OPTIONS] [COMMAND]

Options:
      --listen <URL>  Transport endpoint URL [default: stdio://]
  -h, --help          Print help
";

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_all(words: &[&str]) -> Result<Command, ArgError> {
        parse(&words.iter().map(|w| (*w).to_owned()).collect::<Vec<_>>())
    }

    fn exec(words: &[&str]) -> ExecArgs {
        match parse_all(words) {
            Ok(Command::Exec(args)) => *args,
            other => panic!("{words:?}: {other:?}"),
        }
    }

    fn error(words: &[&str]) -> String {
        match parse_all(words) {
            Err(ArgError {
                message,
                exit_code: 2,
            }) => message,
            other => panic!("{words:?}: {other:?}"),
        }
    }

    #[test]
    fn the_typescript_sdks_argv() {
        let args = exec(&[
            "exec",
            "--experimental-json",
            "--config",
            "sandbox_workspace_write.network_access=true",
            "--config",
            "openai_base_url=\"http://127.0.0.1:9/v1\"",
            "--model",
            "gpt-5.5",
            "--thread-source",
            "sdk",
            "--sandbox",
            "workspace-write",
            "--cd",
            "/w",
            "--add-dir",
            "/a",
            "--add-dir",
            "/b",
            "--skip-git-repo-check",
            "--output-schema",
            "/tmp/codex-output-schema-x/schema.json",
            "--cyber-access-program",
            "standard",
            "--config",
            "model_reasoning_effort=\"high\"",
            "--config",
            "web_search=\"live\"",
            "--config",
            "approval_policy=\"untrusted\"",
            "resume",
            "01a21d00-ede8-7e30-9c0b-291a62274862",
            "--image",
            "/tmp/a.png",
        ]);
        assert!(args.json && args.skip_git_repo_check);
        assert_eq!(args.model(), "gpt-5.5");
        assert_eq!(args.sandbox_mode(), "workspace-write");
        assert_eq!(args.approval_policy(), "untrusted");
        assert_eq!(
            args.config_value("openai_base_url").as_deref(),
            Some("http://127.0.0.1:9/v1")
        );
        assert_eq!(args.add_dirs, ["/a", "/b"]);
        assert_eq!(args.images, ["/tmp/a.png"]);
        assert_eq!(args.cd.as_deref(), Some("/w"));
        assert_eq!(
            args.resume,
            Some(Resume {
                id: Some("01a21d00-ede8-7e30-9c0b-291a62274862".into()),
                last: false,
                all: false
            })
        );
        assert!(args.prompt_from_stdin());
    }

    #[test]
    fn other_consumers_argv() {
        // ai-sdk-provider-codex-cli: `-c`, `--output-last-message`, `--`, `-`.
        let args = exec(&[
            "exec",
            "--experimental-json",
            "-c",
            "approval_policy=on-failure",
            "-c",
            "sandbox_mode=workspace-write",
            "--skip-git-repo-check",
            "-m",
            "gpt-5",
            "--output-last-message",
            "/tmp/last.txt",
            "--",
            "-",
        ]);
        assert_eq!(args.approval_policy(), "on-failure");
        assert_eq!(args.model(), "gpt-5");
        assert_eq!(args.prompt.as_deref(), Some("-"));
        assert!(args.prompt_from_stdin());
        // Both spellings, `=` forms, short forms glued.
        let args = exec(&[
            "e",
            "--json",
            "--model=o3",
            "-C/w",
            "-s=read-only",
            "-ofile",
            "fix it",
        ]);
        assert_eq!(
            (
                args.model(),
                args.cd.as_deref(),
                args.sandbox_mode(),
                args.prompt.as_deref()
            ),
            (
                "o3".to_owned(),
                Some("/w"),
                "read-only".to_owned(),
                Some("fix it")
            )
        );
        assert_eq!(args.output_last_message.as_deref(), Some("file"));
        let bypass = exec(&["exec", "--dangerously-bypass-approvals-and-sandbox", "hi"]);
        assert_eq!(
            (bypass.approval_policy(), bypass.sandbox_mode()),
            ("never".into(), "danger-full-access".into())
        );
        let last = exec(&["exec", "resume", "--last", "go on"]);
        assert_eq!(
            last.resume.as_ref().map(|r| (r.last, r.id.clone())),
            Some((true, None))
        );
        assert_eq!(last.prompt.as_deref(), Some("go on"));
    }

    #[test]
    fn the_python_sdk_and_the_top_level() {
        let server = parse_all(&[
            "--config",
            "model=\"gpt-5.5\"",
            "app-server",
            "--listen",
            "stdio://",
        ]);
        assert_eq!(
            server,
            Ok(Command::AppServer(AppServerArgs {
                config: vec!["model=\"gpt-5.5\"".into()],
                listen: "stdio://".into()
            }))
        );
        assert_eq!(parse_all(&["--version"]), Ok(Command::Version));
        assert_eq!(parse_all(&["-V"]), Ok(Command::Version));
        assert_eq!(parse_all(&["exec", "--help"]), Ok(Command::Help(EXEC_HELP)));
        assert_eq!(
            parse_all(&["mcp-server"]),
            Ok(Command::Interactive {
                prompt: Some("mcp-server".into())
            })
        );
        let top = exec(&["-c", "a=1", "exec", "-c", "b=2", "hi"]);
        assert_eq!(top.config, ["a=1", "b=2"]);
        assert_eq!(parse_all(&["exec", "fork"]).map_err(|e| e.exit_code), Err(64));
    }

    #[test]
    fn errors_in_clap_words_exit_2() {
        assert_eq!(
            error(&["exec", "--jsonn"]),
            "error: unexpected argument '--jsonn' found\n\n  tip: a similar argument exists: '--json'\n\n\
             Usage: codex exec --json [PROMPT]\n\nFor more information, try '--help'.\n"
        );
        assert_eq!(
            error(&["exec", "--json", "--full-auto"]),
            "error: unexpected argument '--full-auto' found\n\n  tip: to pass '--full-auto' as a value, use '-- --full-auto'\n\n\
             Usage: codex exec --json [PROMPT]\n\nFor more information, try '--help'.\n"
        );
        assert_eq!(
            error(&["exec", "--sandbox", "bogus"]),
            "error: invalid value 'bogus' for '--sandbox <SANDBOX_MODE>'\n  \
             [possible values: read-only, workspace-write, danger-full-access]\n\nFor more information, try '--help'.\n"
        );
        assert_eq!(
            error(&["exec", "--model"]),
            "error: a value is required for '--model <MODEL>' but none was supplied\n\nFor more information, try '--help'.\n"
        );
        assert_eq!(
            error(&["exec", "--model", "--json"]),
            "error: a value is required for '--model <MODEL>' but none was supplied\n\nFor more information, try '--help'.\n"
        );
        // clap's usage line names the flags given before the error (checked against
        // clap 4.6.7).
        assert_eq!(
            error(&["exec", "-m", "x", "-c", "a=1", "-c", "b=2", "--jsonn"]),
            "error: unexpected argument '--jsonn' found\n\n  tip: a similar argument exists: '--json'\n\n\
             Usage: codex exec --model <MODEL> --config <key=value> --json [PROMPT]\n\nFor more information, try '--help'.\n"
        );
        assert!(error(&["exec", "--sandbox", "read-onyl"])
            .contains("\n\n  tip: a similar value exists: 'read-only'\n"));
        assert!(error(&["exec", "one", "two"])
            .starts_with("error: unexpected argument 'two' found\n\nUsage: codex exec [OPTIONS] [PROMPT]\n"));
        assert!(error(&["exec", "--json=yes"])
            .starts_with("error: unexpected value 'yes' for '--json' found; no more were expected"));
    }

    #[test]
    fn jaro_as_strsim() {
        assert!((jaro("martha", "marhta") - 0.944).abs() < 0.001);
        assert_eq!(jaro("", ""), 1.0);
        assert_eq!(jaro("a", ""), 0.0);
        assert!(jaro("full-auto", "ephemeral") <= 0.7);
    }
}
