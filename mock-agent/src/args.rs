//! The command line of the real CLI, parsed the way it parses it (it is built on
//! commander.js): `--flag value` and `--flag=value`, combined short flags (`-pf`),
//! the prompt anywhere or after `--`, and commander's error messages.

use harness::format::OutputFormat;

/// A subcommand of the real CLI.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Command {
    /// `create-chat`: prints a new chat id.
    CreateChat,
    /// `status`: who is logged in.
    Status,
    /// `whoami`: the same as `status`.
    Whoami,
    /// `models`: the models one can pass to `--model`.
    Models,
    /// `about`, `login`, `logout`, `ls`, `resume`, `update`, `mcp`: recognized, not
    /// emulated.
    NotEmulated(&'static str),
}

const COMMANDS: &[(&str, Command)] = &[
    ("create-chat", Command::CreateChat),
    ("status", Command::Status),
    ("whoami", Command::Whoami),
    ("models", Command::Models),
    ("about", Command::NotEmulated("about")),
    ("login", Command::NotEmulated("login")),
    ("logout", Command::NotEmulated("logout")),
    ("ls", Command::NotEmulated("ls")),
    ("resume", Command::NotEmulated("resume")),
    ("update", Command::NotEmulated("update")),
    ("mcp", Command::NotEmulated("mcp")),
];

/// The parsed command line of the CLI.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct AgentArgs {
    /// `-p`/`--print`.
    pub print: bool,
    /// `--output-format`; the documented default, `stream-json`, when not given.
    pub output_format: OutputFormat,
    /// `--stream-partial-output`.
    pub stream_partial_output: bool,
    /// `--model`.
    pub model: Option<String>,
    /// `-f`/`--force`.
    pub force: bool,
    /// `--yolo`.
    pub yolo: bool,
    /// `--trust`.
    pub trust: bool,
    /// `--mode plan|ask`.
    pub mode: Option<String>,
    /// `--plan`.
    pub plan: bool,
    /// `--resume [ID]`: `Some(None)` without an id.
    pub resume: Option<Option<String>>,
    /// `--continue`.
    pub continue_session: bool,
    /// `--workspace`.
    pub workspace: Option<String>,
    /// `--api-key`.
    pub api_key: Option<String>,
    /// `--sandbox enabled|disabled`.
    pub sandbox: Option<String>,
    /// `--approve-mcps`.
    pub approve_mcps: bool,
    /// `--add-dir`, repeatable.
    pub add_dirs: Vec<String>,
    /// `-e`/`--endpoint`.
    pub endpoint: Option<String>,
    /// `-H`/`--header`, repeatable.
    pub headers: Vec<String>,
    /// `--show-thinking`.
    pub show_thinking: bool,
    /// `--list-models`.
    pub list_models: bool,
    /// `-v`/`--version`.
    pub version: bool,
    /// `-h`/`--help`.
    pub help: bool,
    /// A subcommand, when the first word is one.
    pub command: Option<Command>,
    /// The prompt words, in order.
    pub prompt: Vec<String>,
}

impl AgentArgs {
    /// The prompt given on the command line, if any: the words joined by spaces.
    pub fn prompt(&self) -> Option<String> {
        (!self.prompt.is_empty()).then(|| self.prompt.join(" "))
    }
}

/// A command line the real CLI rejects; the message is the real one's.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("error: {0}")]
pub struct ArgError(pub String);

#[derive(Clone, Copy)]
enum Takes {
    Nothing,
    Value(&'static str),
    OptionalValue(&'static str),
}

type Apply = fn(&mut AgentArgs, Option<String>) -> Result<(), String>;

struct Opt {
    long: &'static str,
    short: Option<char>,
    takes: Takes,
    choices: &'static [&'static str],
    apply: Apply,
}

fn set(flag: &mut bool) -> Result<(), String> {
    *flag = true;
    Ok(())
}

const OPTIONS: &[Opt] = &[
    Opt {
        long: "print",
        short: Some('p'),
        takes: Takes::Nothing,
        choices: &[],
        apply: |a, _| set(&mut a.print),
    },
    Opt {
        long: "output-format",
        short: None,
        takes: Takes::Value("format"),
        choices: &["text", "json", "stream-json"],
        apply: |a, v| {
            a.output_format = v
                .unwrap_or_default()
                .parse()
                .map_err(|e: harness::format::UnknownFormat| e.to_string())?;
            Ok(())
        },
    },
    Opt {
        long: "stream-partial-output",
        short: None,
        takes: Takes::Nothing,
        choices: &[],
        apply: |a, _| set(&mut a.stream_partial_output),
    },
    Opt {
        long: "model",
        short: None,
        takes: Takes::Value("model"),
        choices: &[],
        apply: |a, v| {
            a.model = v;
            Ok(())
        },
    },
    Opt {
        long: "force",
        short: Some('f'),
        takes: Takes::Nothing,
        choices: &[],
        apply: |a, _| set(&mut a.force),
    },
    Opt {
        long: "yolo",
        short: None,
        takes: Takes::Nothing,
        choices: &[],
        apply: |a, _| set(&mut a.yolo),
    },
    Opt {
        long: "trust",
        short: None,
        takes: Takes::Nothing,
        choices: &[],
        apply: |a, _| set(&mut a.trust),
    },
    Opt {
        long: "mode",
        short: None,
        takes: Takes::Value("mode"),
        choices: &["plan", "ask"],
        apply: |a, v| {
            a.mode = v;
            Ok(())
        },
    },
    Opt {
        long: "plan",
        short: None,
        takes: Takes::Nothing,
        choices: &[],
        apply: |a, _| set(&mut a.plan),
    },
    Opt {
        long: "resume",
        short: None,
        takes: Takes::OptionalValue("chatId"),
        choices: &[],
        apply: |a, v| {
            a.resume = Some(v);
            Ok(())
        },
    },
    Opt {
        long: "continue",
        short: None,
        takes: Takes::Nothing,
        choices: &[],
        apply: |a, _| set(&mut a.continue_session),
    },
    Opt {
        long: "workspace",
        short: None,
        takes: Takes::Value("path"),
        choices: &[],
        apply: |a, v| {
            a.workspace = v;
            Ok(())
        },
    },
    Opt {
        long: "api-key",
        short: None,
        takes: Takes::Value("key"),
        choices: &[],
        apply: |a, v| {
            a.api_key = v;
            Ok(())
        },
    },
    Opt {
        long: "sandbox",
        short: None,
        takes: Takes::Value("mode"),
        choices: &["enabled", "disabled"],
        apply: |a, v| {
            a.sandbox = v;
            Ok(())
        },
    },
    Opt {
        long: "approve-mcps",
        short: None,
        takes: Takes::Nothing,
        choices: &[],
        apply: |a, _| set(&mut a.approve_mcps),
    },
    Opt {
        long: "add-dir",
        short: None,
        takes: Takes::Value("dir"),
        choices: &[],
        apply: |a, v| {
            a.add_dirs.extend(v);
            Ok(())
        },
    },
    Opt {
        long: "endpoint",
        short: Some('e'),
        takes: Takes::Value("url"),
        choices: &[],
        apply: |a, v| {
            a.endpoint = v;
            Ok(())
        },
    },
    Opt {
        long: "header",
        short: Some('H'),
        takes: Takes::Value("header"),
        choices: &[],
        apply: |a, v| {
            a.headers.extend(v);
            Ok(())
        },
    },
    Opt {
        long: "show-thinking",
        short: None,
        takes: Takes::Nothing,
        choices: &[],
        apply: |a, _| set(&mut a.show_thinking),
    },
    Opt {
        long: "list-models",
        short: None,
        takes: Takes::Nothing,
        choices: &[],
        apply: |a, _| set(&mut a.list_models),
    },
    Opt {
        long: "version",
        short: Some('v'),
        takes: Takes::Nothing,
        choices: &[],
        apply: |a, _| set(&mut a.version),
    },
    Opt {
        long: "help",
        short: Some('h'),
        takes: Takes::Nothing,
        choices: &[],
        apply: |a, _| set(&mut a.help),
    },
];

impl Opt {
    fn flags(&self) -> String {
        let mut flags = String::new();
        if let Some(short) = self.short {
            flags.push_str(&format!("-{short}, "));
        }
        flags.push_str("--");
        flags.push_str(self.long);
        match self.takes {
            Takes::Nothing => {}
            Takes::Value(name) => flags.push_str(&format!(" <{name}>")),
            Takes::OptionalValue(name) => flags.push_str(&format!(" [{name}]")),
        }
        flags
    }

    fn accept(&self, args: &mut AgentArgs, value: Option<String>) -> Result<(), ArgError> {
        if let Some(v) = &value {
            if !self.choices.is_empty() && !self.choices.contains(&v.as_str()) {
                return Err(ArgError(format!(
                    "option '{}' argument '{v}' is invalid. Allowed choices are {}.",
                    self.flags(),
                    self.choices.join(", ")
                )));
            }
        }
        (self.apply)(args, value).map_err(|e| ArgError(format!("option '{}' {e}", self.flags())))
    }
}

/// Parses the arguments after the program name.
pub fn parse(argv: &[String]) -> Result<AgentArgs, ArgError> {
    let mut args = AgentArgs::default();
    let mut words: Vec<String> = Vec::new();
    let mut i = 0;
    let missing = |opt: &Opt| ArgError(format!("option '{}' argument missing", opt.flags()));
    while i < argv.len() {
        let arg = &argv[i];
        i += 1;
        if arg == "--" {
            words.extend(argv[i..].iter().cloned());
            break;
        }
        if let Some(long) = arg.strip_prefix("--") {
            let (name, inline) = match long.split_once('=') {
                Some((name, value)) => (name, Some(value.to_owned())),
                None => (long, None),
            };
            let opt = OPTIONS
                .iter()
                .find(|o| o.long == name)
                .ok_or_else(|| ArgError(format!("unknown option '{arg}'")))?;
            let value = match (opt.takes, inline) {
                (Takes::Nothing, Some(_)) => return Err(ArgError(format!("unknown option '{arg}'"))),
                (Takes::Nothing, None) => None,
                (_, Some(value)) => Some(value),
                (Takes::Value(_), None) => match argv.get(i) {
                    Some(next) if !next.starts_with('-') || next.len() == 1 => {
                        i += 1;
                        Some(next.clone())
                    }
                    _ => return Err(missing(opt)),
                },
                (Takes::OptionalValue(_), None) => match argv.get(i) {
                    Some(next) if !next.starts_with('-') => {
                        i += 1;
                        Some(next.clone())
                    }
                    _ => None,
                },
            };
            opt.accept(&mut args, value)?;
        } else if arg.len() > 1 && arg.starts_with('-') {
            // One or more short flags: `-p`, `-pf`, `-e URL`, `-eURL`.
            let mut rest = &arg[1..];
            while let Some(c) = rest.chars().next() {
                rest = &rest[c.len_utf8()..];
                let opt = OPTIONS
                    .iter()
                    .find(|o| o.short == Some(c))
                    .ok_or_else(|| ArgError(format!("unknown option '-{c}'")))?;
                match opt.takes {
                    Takes::Nothing => opt.accept(&mut args, None)?,
                    Takes::Value(_) | Takes::OptionalValue(_) => {
                        let value = if !rest.is_empty() {
                            Some(std::mem::take(&mut rest).to_owned())
                        } else if let Some(next) = argv.get(i).filter(|n| !n.starts_with('-')) {
                            i += 1;
                            Some(next.clone())
                        } else {
                            return Err(missing(opt));
                        };
                        opt.accept(&mut args, value)?;
                    }
                }
            }
        } else {
            words.push(arg.clone());
        }
    }
    if let Some(first) = words.first() {
        if let Some((_, command)) = COMMANDS.iter().find(|(name, _)| name == first) {
            args.command = Some(*command);
            words.remove(0);
        }
    }
    args.prompt = words;
    Ok(args)
}

/// The help text of the emulated CLI.
pub fn help() -> String {
    let mut text = String::from(
        "Usage: cursor-agent [options] [command] [prompt...]\n\n\
         Start the Cursor Agent (emulated by mock-agent: print mode only)\n\n\
         Arguments:\n  prompt                        Initial prompt for the agent\n\nOptions:\n",
    );
    for opt in OPTIONS {
        text.push_str(&format!("  {:<30}{}\n", opt.flags(), describe(opt.long)));
    }
    text.push_str("\nCommands:\n");
    for (name, _) in COMMANDS {
        text.push_str(&format!("  {name}\n"));
    }
    text
}

fn describe(long: &str) -> &'static str {
    match long {
        "print" => "Print responses to the console (for scripts and non-interactive use)",
        "output-format" => "Output format, with --print: text | json | stream-json (default: stream-json)",
        "stream-partial-output" => "Stream assistant text as deltas (with stream-json)",
        "model" => "Model to use",
        "force" => "Allow commands unless explicitly denied",
        "yolo" => "Alias for --force",
        "trust" => "Trust the workspace without asking",
        "mode" => "Agent mode: plan | ask",
        "plan" => "Start in plan mode",
        "resume" => "Resume a chat session",
        "continue" => "Continue the previous session",
        "workspace" => "Workspace directory",
        "api-key" => "API key (or CURSOR_API_KEY)",
        "sandbox" => "Sandbox mode: enabled | disabled",
        "approve-mcps" => "Approve all MCP servers",
        "add-dir" => "Add a directory to the workspace",
        "endpoint" => "API endpoint (or CURSOR_API_ENDPOINT)",
        "header" => "Extra request header, repeatable",
        "show-thinking" => "Show thinking",
        "list-models" => "List the available models",
        "version" => "Output the version number",
        _ => "Display help",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_str(args: &str) -> Result<AgentArgs, ArgError> {
        let argv: Vec<String> = args.split_whitespace().map(str::to_owned).collect();
        parse(&argv)
    }

    #[test]
    fn both_value_forms_and_prompt_anywhere() {
        let a = parse_str("fix --output-format json -p the --model=gpt-5 bug").expect("parses");
        assert!(a.print);
        assert_eq!(a.output_format, OutputFormat::Json);
        assert_eq!(a.model.as_deref(), Some("gpt-5"));
        assert_eq!(a.prompt().as_deref(), Some("fix the bug"));
        let a = parse_str("-pf --output-format=text -- --not-an-option").expect("parses");
        assert!(a.print && a.force);
        assert_eq!(a.output_format, OutputFormat::Text);
        assert_eq!(a.prompt().as_deref(), Some("--not-an-option"));
    }

    #[test]
    fn resume_takes_an_optional_id() {
        assert_eq!(parse_str("--resume -p hi").expect("ok").resume, Some(None));
        let a = parse_str("--resume abc hi").expect("ok");
        assert_eq!(a.resume, Some(Some("abc".into())));
        assert_eq!(a.prompt().as_deref(), Some("hi"));
        assert_eq!(
            parse_str("--resume=x").expect("ok").resume,
            Some(Some("x".into()))
        );
    }

    #[test]
    fn errors_read_like_commander() {
        let e = |s| parse_str(s).expect_err("fails").to_string();
        assert_eq!(e("--formatt json"), "error: unknown option '--formatt'");
        assert_eq!(e("-x"), "error: unknown option '-x'");
        assert_eq!(e("--model"), "error: option '--model <model>' argument missing");
        assert_eq!(
            e("--output-format xml"),
            "error: option '--output-format <format>' argument 'xml' is invalid. Allowed choices are text, json, stream-json."
        );
        assert_eq!(e("--force=yes"), "error: unknown option '--force=yes'");
    }

    #[test]
    fn subcommands_are_first_words() {
        assert_eq!(
            parse_str("create-chat").expect("ok").command,
            Some(Command::CreateChat)
        );
        assert_eq!(parse_str("-p status").expect("ok").command, Some(Command::Status));
        let a = parse_str("explain status codes").expect("ok");
        assert_eq!(a.command, None);
        assert_eq!(a.prompt().as_deref(), Some("explain status codes"));
    }
}
