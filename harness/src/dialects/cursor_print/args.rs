//! The command line of the real CLI, parsed the way it parses it (it is built on
//! commander.js): `--flag value` and `--flag=value`, combined short flags (`-pf`),
//! the prompt anywhere or after `--`, and commander's error messages.

use crate::acp::wire::modes;
use crate::format::OutputFormat;

/// A subcommand of the real CLI.
///
/// `agent [prompt...]` is not one: it is the same as no subcommand, so [`parse`]
/// drops the word and keeps what follows it as the prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    /// `create-chat`: prints a new chat id.
    CreateChat,
    /// `status`: who is logged in.
    Status,
    /// `whoami`: the same as `status`.
    Whoami,
    /// `models`: the models one can pass to `--model`.
    Models,
    /// `about`: the version, the model, the system and the account.
    About,
    /// `acp`: server mode, an Agent Client Protocol agent on stdin and stdout.
    Acp,
    /// `login`, `logout`, `ls`, `resume`, `update`, `mcp`: recognized, not emulated.
    NotEmulated(&'static str),
}

impl Command {
    /// The word that names the subcommand on the command line.
    pub fn name(self) -> &'static str {
        COMMANDS
            .iter()
            .find(|(_, command)| *command == self)
            .map_or("", |(name, _)| name)
    }
}

/// The word that selects the default command, the agent itself.
const AGENT: &str = "agent";

const COMMANDS: &[(&str, Command)] = &[
    ("create-chat", Command::CreateChat),
    ("status", Command::Status),
    ("whoami", Command::Whoami),
    ("models", Command::Models),
    ("about", Command::About),
    ("acp", Command::Acp),
    ("login", Command::NotEmulated("login")),
    ("logout", Command::NotEmulated("logout")),
    ("ls", Command::NotEmulated("ls")),
    ("resume", Command::NotEmulated("resume")),
    ("update", Command::NotEmulated("update")),
    ("mcp", Command::NotEmulated("mcp")),
];

/// How `status`, `whoami` and `about` print what they say: `--format text|json`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum InfoFormat {
    /// Lines for people (the default).
    #[default]
    Text,
    /// One JSON object.
    Json,
}

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
    /// `--format text|json` of `status`, `whoami` and `about`.
    pub format: InfoFormat,
    /// A subcommand, when the first word is one (`agent` is none: see [`Command`]).
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

fn put(slot: &mut Option<String>, value: Option<String>) -> Result<(), String> {
    *slot = value;
    Ok(())
}

/// An option that takes no value.
const fn flag(long: &'static str, short: Option<char>, apply: Apply) -> Opt {
    Opt {
        long,
        short,
        takes: Takes::Nothing,
        choices: &[],
        apply,
    }
}

/// An option that takes a value (`name` in errors), one of `choices` unless empty.
const fn value(
    long: &'static str,
    short: Option<char>,
    name: &'static str,
    choices: &'static [&'static str],
    apply: Apply,
) -> Opt {
    Opt {
        long,
        short,
        takes: Takes::Value(name),
        choices,
        apply,
    }
}

const OPTIONS: &[Opt] = &[
    flag("print", Some('p'), |a, _| set(&mut a.print)),
    Opt {
        long: "output-format",
        short: None,
        takes: Takes::Value("format"),
        choices: &["text", "json", "stream-json"],
        apply: |a, v| {
            a.output_format = v
                .unwrap_or_default()
                .parse()
                .map_err(|e: crate::format::UnknownFormat| e.to_string())?;
            Ok(())
        },
    },
    flag("stream-partial-output", None, |a, _| {
        set(&mut a.stream_partial_output)
    }),
    value("model", None, "model", &[], |a, v| put(&mut a.model, v)),
    flag("force", Some('f'), |a, _| set(&mut a.force)),
    flag("yolo", None, |a, _| set(&mut a.yolo)),
    flag("trust", None, |a, _| set(&mut a.trust)),
    // The CLI's modes are the agent's modes, as ACP names them; `--plan` is `--mode plan`.
    value("mode", None, "mode", &[modes::PLAN, modes::ASK], |a, v| {
        put(&mut a.mode, v)
    }),
    flag(modes::PLAN, None, |a, _| set(&mut a.plan)),
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
    flag("continue", None, |a, _| set(&mut a.continue_session)),
    value("workspace", None, "path", &[], |a, v| put(&mut a.workspace, v)),
    value("api-key", None, "key", &[], |a, v| put(&mut a.api_key, v)),
    value("sandbox", None, "mode", &["enabled", "disabled"], |a, v| {
        put(&mut a.sandbox, v)
    }),
    flag("approve-mcps", None, |a, _| set(&mut a.approve_mcps)),
    value("add-dir", None, "dir", &[], |a, v| {
        a.add_dirs.extend(v);
        Ok(())
    }),
    value("endpoint", Some('e'), "url", &[], |a, v| put(&mut a.endpoint, v)),
    value("header", Some('H'), "header", &[], |a, v| {
        a.headers.extend(v);
        Ok(())
    }),
    flag("show-thinking", None, |a, _| set(&mut a.show_thinking)),
    flag("list-models", None, |a, _| set(&mut a.list_models)),
    flag("version", Some('v'), |a, _| set(&mut a.version)),
    flag("help", Some('h'), |a, _| set(&mut a.help)),
];

/// Options of some subcommands only, with the subcommands they belong to. Given
/// with any other (or none), the real CLI does not know them: `unknown option`.
const COMMAND_OPTIONS: &[(&[&str], Opt)] = &[(
    &["status", "whoami", "about"],
    Opt {
        long: "format",
        short: None,
        takes: Takes::Value("format"),
        choices: &["text", "json"],
        apply: |a, v| {
            a.format = match v.as_deref() {
                Some("json") => InfoFormat::Json,
                _ => InfoFormat::Text,
            };
            Ok(())
        },
    },
)];

/// An option of [`COMMAND_OPTIONS`] as given, applied once the subcommand is known.
struct Scoped {
    spelled: String,
    commands: &'static [&'static str],
    opt: &'static Opt,
    /// The value, or the error of a missing one (told only when the option is known).
    value: Result<Option<String>, ArgError>,
}

/// The option named `--name`, and the subcommands it is limited to (none: all).
fn long_option(name: &str) -> Option<(&'static Opt, &'static [&'static str])> {
    OPTIONS
        .iter()
        .find(|o| o.long == name)
        .map(|o| (o, &[][..]))
        .or_else(|| {
            COMMAND_OPTIONS
                .iter()
                .find(|(_, o)| o.long == name)
                .map(|(commands, o)| (o, *commands))
        })
}

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
    let mut scoped: Vec<Scoped> = Vec::new();
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
            let (opt, commands) =
                long_option(name).ok_or_else(|| ArgError(format!("unknown option '{arg}'")))?;
            let value = match (opt.takes, inline) {
                (Takes::Nothing, Some(_)) => return Err(ArgError(format!("unknown option '{arg}'"))),
                (Takes::Nothing, None) => Ok(None),
                (_, Some(value)) => Ok(Some(value)),
                (Takes::Value(_), None) => match argv.get(i) {
                    Some(next) if !next.starts_with('-') || next.len() == 1 => {
                        i += 1;
                        Ok(Some(next.clone()))
                    }
                    _ => Err(missing(opt)),
                },
                (Takes::OptionalValue(_), None) => match argv.get(i) {
                    Some(next) if !next.starts_with('-') => {
                        i += 1;
                        Ok(Some(next.clone()))
                    }
                    _ => Ok(None),
                },
            };
            if commands.is_empty() {
                opt.accept(&mut args, value?)?;
            } else {
                scoped.push(Scoped {
                    spelled: arg.clone(),
                    commands,
                    opt,
                    value,
                });
            }
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
    match words.first().map(String::as_str) {
        Some(AGENT) => {
            words.remove(0);
        }
        Some(first) => {
            if let Some((_, command)) = COMMANDS.iter().find(|(name, _)| *name == first) {
                args.command = Some(*command);
                words.remove(0);
            }
        }
        None => {}
    }
    for option in scoped {
        let command = args.command.map(Command::name);
        if !command.is_some_and(|c| option.commands.contains(&c)) {
            return Err(ArgError(format!("unknown option '{}'", option.spelled)));
        }
        option.opt.accept(&mut args, option.value?)?;
    }
    args.prompt = words;
    Ok(args)
}

/// The help text of the emulated CLI.
pub fn help() -> String {
    let mut text = String::from(
        "Usage: cursor-agent [options] [command] [prompt...]\n\n\
         Start the Cursor Agent (emulated by mock-agent: print mode and `acp`)\n\n\
         Arguments:\n  prompt                        Initial prompt for the agent\n\nOptions:\n",
    );
    for opt in OPTIONS {
        text.push_str(&format!("  {:<30}{}\n", opt.flags(), describe(opt.long)));
    }
    text.push_str("\nCommands:\n");
    for (name, _) in COMMANDS {
        let has_options = COMMAND_OPTIONS
            .iter()
            .any(|(commands, _)| commands.contains(name));
        let options = if has_options { " [options]" } else { "" };
        text.push_str(&format!("  {name}{options}\n"));
    }
    text.push_str(&format!("  {AGENT} [prompt...]\n"));
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
        modes::PLAN => "Start in plan mode",
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
        assert_eq!(
            parse_str("--api-key k acp").expect("ok").command,
            Some(Command::Acp)
        );
        assert_eq!(parse_str("about").expect("ok").command, Some(Command::About));
    }

    #[test]
    fn agent_is_the_default_command_and_what_follows_is_the_prompt() {
        let a = parse_str("--resume X --model auto agent --print hi").expect("ok");
        assert_eq!(a.command, None);
        assert!(a.print);
        assert_eq!(a.resume, Some(Some("X".into())));
        assert_eq!(a.model.as_deref(), Some("auto"));
        assert_eq!(a.prompt().as_deref(), Some("hi"));
        let a = parse_str("agent status now").expect("ok");
        assert_eq!(a.command, None);
        assert_eq!(a.prompt().as_deref(), Some("status now"));
        assert_eq!(parse_str("agent").expect("ok").prompt(), None);
    }

    #[test]
    fn format_is_known_to_status_whoami_and_about_only() {
        let a = parse_str("status --format json").expect("ok");
        assert_eq!(a.format, InfoFormat::Json);
        assert_eq!(
            parse_str("--format=text about").expect("ok").format,
            InfoFormat::Text
        );
        assert_eq!(parse_str("whoami").expect("ok").format, InfoFormat::Text);
        let e = |s| parse_str(s).expect_err("fails").to_string();
        assert_eq!(e("-p --format json hi"), "error: unknown option '--format'");
        assert_eq!(e("models --format=json"), "error: unknown option '--format=json'");
        assert_eq!(e("--format"), "error: unknown option '--format'");
        assert_eq!(
            e("about --format"),
            "error: option '--format <format>' argument missing"
        );
        assert_eq!(
            e("status --format xml"),
            "error: option '--format <format>' argument 'xml' is invalid. Allowed choices are text, json."
        );
    }

    #[test]
    fn each_command_knows_its_name() {
        for (name, command) in COMMANDS {
            assert_eq!(command.name(), *name);
        }
    }
}
