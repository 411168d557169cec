//! Gemini CLI's command line, as consumers give it: `gemini [options] [query..]`, read
//! as yargs reads it (`--flag value`, `--flag=value`, `-f value`, `--no-flag` for a
//! switch), with yargs' errors in its words (on stderr, the message first and the help
//! after it, exit 1: observed, 0.61.0).
//!
//! Pure: no process, no environment; what the arguments say, read.

use super::wire::argv::{APPROVAL_MODES, FORMATS, LATEST};
use crate::format::OutputFormat;

/// The exit code of an argument error (yargs').
pub const USAGE_EXIT: i32 = 1;

/// What the command line asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// `--version`, `-v`: print the version, exit 0.
    Version,
    /// `--help`, `-h`: print [`HELP`], exit 0.
    Help,
    /// `--acp` or `--experimental-acp`: the ACP agent (served elsewhere).
    Acp(Box<Args>),
    /// A headless run (or an interactive one, which a stand-in cannot be).
    Run(Box<Args>),
}

/// A run's options, read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Args {
    /// `-m`, `--model`.
    pub model: Option<String>,
    /// `-p`, `--prompt`.
    pub prompt: Option<String>,
    /// `-i`, `--prompt-interactive`.
    pub prompt_interactive: Option<String>,
    /// The positional words (`query..`), joined with spaces.
    pub query: Option<String>,
    /// `-o`, `--output-format` (text when not given).
    pub output_format: Option<String>,
    /// `--approval-mode`.
    pub approval_mode: Option<String>,
    /// `-y`, `--yolo`.
    pub yolo: bool,
    /// `-r`, `--resume` (`latest`, an index or a UUID).
    pub resume: Option<String>,
    /// `--session-id UUID`.
    pub session_id: Option<String>,
    /// `--skip-trust`.
    pub skip_trust: bool,
    /// `-d`, `--debug`.
    pub debug: bool,
    /// Every other option given, by its long name, with its value: taken and left
    /// alone (`--sandbox`, `--include-directories`, ...).
    pub others: Vec<(String, Option<String>)>,
}

impl Args {
    /// The output format (`text` when not given).
    pub fn format(&self) -> OutputFormat {
        match self.output_format.as_deref() {
            Some("json") => OutputFormat::Json,
            Some("stream-json") => OutputFormat::StreamJson,
            _ => OutputFormat::Text,
        }
    }

    /// The approval mode: `yolo` with `--yolo`, else `--approval-mode`, else
    /// `default`.
    pub fn approval(&self) -> &str {
        if self.yolo {
            return "yolo";
        }
        self.approval_mode.as_deref().unwrap_or("default")
    }

    /// Whether `-r latest` was given.
    pub fn resumes_latest(&self) -> bool {
        self.resume.as_deref() == Some(LATEST)
    }

    /// The prompt of a headless run: piped `stdin` first, then `-p` (or the
    /// positional query), two blank lines apart (observed: `from stdin\n` and
    /// `-p "and argv"` make `from stdin\n\n\nand argv`); `None` when there is none.
    pub fn prompt_with(&self, stdin: Option<&str>) -> Option<String> {
        let argv = self.prompt.clone().or_else(|| self.query.clone());
        let stdin = stdin.filter(|s| !s.trim().is_empty());
        match (stdin, argv) {
            (Some(stdin), Some(argv)) => Some(format!("{stdin}\n\n{argv}")),
            (Some(stdin), None) => Some(stdin.to_owned()),
            (None, Some(argv)) => Some(argv),
            (None, None) => None,
        }
    }
}

/// An argument error: what goes on stderr (with the help), exit 1.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgError {
    /// The whole text for stderr (ends with a newline).
    pub message: String,
    /// The exit code ([`USAGE_EXIT`]).
    pub exit_code: i32,
}

impl ArgError {
    fn new(said: String) -> Self {
        ArgError {
            message: format!("{said}\n\n{HELP}"),
            exit_code: USAGE_EXIT,
        }
    }
}

/// The options that take a value, by long name, with their short letter.
const VALUED: &[(&str, Option<char>)] = &[
    ("model", Some('m')),
    ("prompt", Some('p')),
    ("prompt-interactive", Some('i')),
    ("worktree", Some('w')),
    ("approval-mode", None),
    ("policy", None),
    ("admin-policy", None),
    ("allowed-mcp-server-names", None),
    ("allowed-tools", None),
    ("extensions", Some('e')),
    ("resume", Some('r')),
    ("session-file", None),
    ("session-id", None),
    ("delete-session", None),
    ("include-directories", None),
    ("output-format", Some('o')),
    ("fake-responses", None),
    ("fake-responses-non-strict", None),
    ("record-responses", None),
];

/// The switches, by long name, with their short letter.
const SWITCHES: &[(&str, Option<char>)] = &[
    ("skip-trust", None),
    ("sandbox", Some('s')),
    ("yolo", Some('y')),
    ("acp", None),
    ("experimental-acp", None),
    ("list-extensions", Some('l')),
    ("list-sessions", None),
    ("screen-reader", None),
    ("raw-output", None),
    ("accept-raw-output-risk", None),
    ("debug", Some('d')),
    ("version", Some('v')),
    ("help", Some('h')),
];

/// The help yargs prints (the start of `gemini --help`, 0.61.0).
pub const HELP: &str = "Usage: gemini [options] [command]

Gemini CLI - Defaults to interactive mode. Use -p/--prompt for non-interactive (headless) mode.

Commands:
  gemini [query..]             Launch Gemini CLI  [default]
  gemini mcp                   Manage MCP servers
  gemini extensions <command>  Manage Gemini CLI extensions.  [aliases: extension]
  gemini skills <command>      Manage agent skills.  [aliases: skill]
  gemini hooks <command>       Manage Gemini CLI hooks.  [aliases: hook]

Positionals:
  query  Initial prompt. Runs in interactive mode by default; use -p/--prompt for non-interactive.

Options:
  -d, --debug                     Run in debug mode (open debug console with F12)  [boolean] [default: false]
  -m, --model                     Model  [string]
  -p, --prompt                    Run in non-interactive (headless) mode with the given prompt. Appended to input on stdin (if any).  [string]
  -i, --prompt-interactive        Execute the provided prompt and continue in interactive mode  [string]
      --skip-trust                Trust the current workspace for this session.  [boolean] [default: false]
  -s, --sandbox                   Run in sandbox?  [boolean]
  -y, --yolo                      Automatically accept all actions (aka YOLO mode)  [boolean] [default: false]
      --approval-mode             Set the approval mode  [string] [choices: \"default\", \"auto_edit\", \"yolo\", \"plan\"]
      --acp                       Starts the agent in ACP mode  [boolean]
      --experimental-acp          Starts the agent in ACP mode (deprecated, use --acp instead)  [boolean]
  -r, --resume                    Resume a previous session. Use \"latest\" for most recent or index number (e.g. --resume 5)  [string]
      --session-id                Start a new session with a manually provided UUID.  [string]
      --list-sessions             List available sessions for the current project and exit.  [boolean]
  -o, --output-format             The format of the CLI output.  [string] [choices: \"text\", \"json\", \"stream-json\"]
  -v, --version                   Show version number  [boolean]
  -h, --help                      Show help  [boolean]
";

fn long_of(short: char) -> Option<(&'static str, bool)> {
    VALUED
        .iter()
        .find(|(_, s)| *s == Some(short))
        .map(|(l, _)| (*l, true))
        .or_else(|| {
            SWITCHES
                .iter()
                .find(|(_, s)| *s == Some(short))
                .map(|(l, _)| (*l, false))
        })
}

fn kind_of(long: &str) -> Option<bool> {
    if VALUED.iter().any(|(l, _)| *l == long) {
        Some(true)
    } else if SWITCHES.iter().any(|(l, _)| *l == long) {
        Some(false)
    } else {
        None
    }
}

/// Reads the arguments after the program's name.
pub fn parse(argv: &[String]) -> Result<Command, ArgError> {
    let mut args = Args::default();
    let mut query: Vec<String> = Vec::new();
    let mut flags: Vec<(String, Option<String>, String)> = Vec::new();
    let mut unknown: Vec<String> = Vec::new();
    let mut rest = argv.iter().peekable();
    let mut positional_only = false;
    while let Some(arg) = rest.next() {
        if positional_only || arg == "-" || !arg.starts_with('-') {
            query.push(arg.clone());
            continue;
        }
        if arg == "--" {
            positional_only = true;
            continue;
        }
        // The option's long name, an inline value, and how the user wrote it.
        let (long, inline, written): (String, Option<String>, String) = if let Some(body) =
            arg.strip_prefix("--")
        {
            let (name, value) = match body.split_once('=') {
                Some((n, v)) => (n.to_owned(), Some(v.to_owned())),
                None => (body.to_owned(), None),
            };
            (name.clone(), value, name)
        } else {
            let body = &arg[1..];
            let mut chars = body.chars();
            let Some(letter) = chars.next() else {
                query.push(arg.clone());
                continue;
            };
            let after: String = chars.collect();
            match long_of(letter) {
                Some((long, valued)) => {
                    let inline = match after.strip_prefix('=') {
                        Some(v) => Some(v.to_owned()),
                        None if !after.is_empty() && valued => Some(after.clone()),
                        None if !after.is_empty() => {
                            // Bundled switches (`-yd`): each read.
                            for other in after.chars() {
                                match long_of(other) {
                                    Some((l, false)) => flags.push((l.to_owned(), None, other.to_string())),
                                    _ => unknown.push(other.to_string()),
                                }
                            }
                            None
                        }
                        None => None,
                    };
                    (long.to_owned(), inline, letter.to_string())
                }
                None => {
                    unknown.push(body.to_owned());
                    continue;
                }
            }
        };
        let negated = long.strip_prefix("no-").filter(|l| kind_of(l) == Some(false));
        if let Some(switch) = negated {
            flags.push((switch.to_owned(), Some("false".into()), written));
            continue;
        }
        match kind_of(&long) {
            None => unknown.push(long),
            Some(false) => flags.push((long, inline, written)),
            Some(true) => {
                let value = match inline {
                    Some(v) => Some(v),
                    None => match rest.peek() {
                        Some(next) if !next.starts_with('-') || next.as_str() == "-" => rest.next().cloned(),
                        _ => None,
                    },
                };
                let Some(value) = value else {
                    return Err(ArgError::new(format!(
                        "Not enough arguments following: {written}"
                    )));
                };
                flags.push((long, Some(value), written));
            }
        }
    }
    if !unknown.is_empty() {
        let said = if unknown.len() == 1 {
            format!("Unknown argument: {}", unknown[0])
        } else {
            format!("Unknown arguments: {}", unknown.join(", "))
        };
        return Err(ArgError::new(said));
    }
    let mut acp = false;
    for (long, value, _) in flags {
        let on = value.as_deref() != Some("false");
        match long.as_str() {
            "version" if on => return Ok(Command::Version),
            "help" if on => return Ok(Command::Help),
            "model" => args.model = value,
            "prompt" => args.prompt = value,
            "prompt-interactive" => args.prompt_interactive = value,
            "output-format" => {
                let given = value.unwrap_or_default();
                if !FORMATS.contains(&given.as_str()) {
                    return Err(invalid("output-format", &given, FORMATS));
                }
                args.output_format = Some(given);
            }
            "approval-mode" => {
                let given = value.unwrap_or_default();
                if !APPROVAL_MODES.contains(&given.as_str()) {
                    return Err(invalid("approval-mode", &given, APPROVAL_MODES));
                }
                args.approval_mode = Some(given);
            }
            "yolo" => args.yolo = on,
            "resume" => args.resume = value,
            "session-id" => args.session_id = value,
            "skip-trust" => args.skip_trust = on,
            "debug" => args.debug = on,
            "acp" | "experimental-acp" => acp = on,
            _ => args.others.push((long, value)),
        }
    }
    if args.yolo && args.approval_mode.as_deref().is_some_and(|m| m != "yolo") {
        return Err(ArgError::new(
            "Cannot use both --yolo (-y) and --approval-mode together. Use --approval-mode=yolo instead."
                .into(),
        ));
    }
    if !query.is_empty() {
        args.query = Some(query.join(" "));
    }
    Ok(if acp {
        Command::Acp(Box::new(args))
    } else {
        Command::Run(Box::new(args))
    })
}

/// yargs' words for a value not among the choices.
fn invalid(name: &str, given: &str, choices: &[&str]) -> ArgError {
    let choices = choices
        .iter()
        .map(|c| format!("\"{c}\""))
        .collect::<Vec<_>>()
        .join(", ");
    ArgError::new(format!(
        "Invalid values:\n  Argument: {name}, Given: \"{given}\", Choices: {choices}"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(args: &[&str]) -> Vec<String> {
        args.iter().map(|a| (*a).to_owned()).collect()
    }

    fn run(args: &[&str]) -> Args {
        match parse(&argv(args)) {
            Ok(Command::Run(args)) => *args,
            other => panic!("{args:?}: {other:?}"),
        }
    }

    #[test]
    fn the_flags_consumers_pass_read_in_each_form() {
        let a = run(&[
            "-p",
            "hi",
            "-o",
            "stream-json",
            "-m",
            "gemini-2.5-pro",
            "--approval-mode=yolo",
        ]);
        assert_eq!(a.prompt.as_deref(), Some("hi"));
        assert_eq!(a.format(), OutputFormat::StreamJson);
        assert_eq!(a.model.as_deref(), Some("gemini-2.5-pro"));
        assert_eq!(a.approval(), "yolo");
        let a = run(&[
            "--prompt=x",
            "--output-format",
            "json",
            "-y",
            "-r",
            "latest",
            "--skip-trust",
        ]);
        assert_eq!(
            (a.format(), a.yolo, a.resumes_latest(), a.skip_trust),
            (OutputFormat::Json, true, true, true)
        );
        let a = run(&[
            "--session-id",
            "u",
            "--sandbox",
            "--include-directories",
            "a,b",
            "say",
            "hi",
        ]);
        assert_eq!(a.session_id.as_deref(), Some("u"));
        assert_eq!(a.query.as_deref(), Some("say hi"));
        assert_eq!(a.format(), OutputFormat::Text);
        assert_eq!(parse(&argv(&["-v"])), Ok(Command::Version));
        assert!(matches!(parse(&argv(&["--acp", "-m", "x"])), Ok(Command::Acp(_))));
        assert!(matches!(
            parse(&argv(&["--experimental-acp"])),
            Ok(Command::Acp(_))
        ));
    }

    #[test]
    fn errors_are_yargs_words() {
        let e = parse(&argv(&["--formatt", "json"])).unwrap_err();
        assert!(
            e.message.starts_with("Unknown argument: formatt\n"),
            "{}",
            e.message
        );
        assert_eq!(e.exit_code, 1);
        let e = parse(&argv(&["-p"])).unwrap_err();
        assert!(e.message.starts_with("Not enough arguments following: p\n"));
        let e = parse(&argv(&["-o", "xml"])).unwrap_err();
        assert!(e.message.starts_with(
            "Invalid values:\n  Argument: output-format, Given: \"xml\", Choices: \"text\", \"json\", \"stream-json\"\n"
        ));
    }

    #[test]
    fn stdin_comes_before_the_prompt() {
        let a = run(&["-p", "and argv"]);
        assert_eq!(
            a.prompt_with(Some("from stdin\n")).as_deref(),
            Some("from stdin\n\n\nand argv")
        );
        assert_eq!(a.prompt_with(Some("")).as_deref(), Some("and argv"));
        assert_eq!(run(&[]).prompt_with(Some("  \n")), None);
    }
}
