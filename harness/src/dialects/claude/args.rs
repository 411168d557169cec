//! Claude Code's command line, as the Agent SDKs and scripts give it: every flag in
//! the `--flag value` and the `--flag=value` form (Python's SDK writes the first,
//! TypeScript's the second), the flags that change the output read, the others
//! taken and left alone. Errors are worded as the real CLI's (Commander's), for
//! stderr, exit 1.

use crate::dialects::claude::wire::argv::{FLAGS, VALUED};
use crate::dialects::claude::wire::PERMISSION_MODES;

/// `--output-format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OutputFormat {
    /// The result's text.
    #[default]
    Text,
    /// The result object, one line.
    Json,
    /// Every message, one a line.
    StreamJson,
}

/// The command line, read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Args {
    /// `-v`, `--version`.
    pub version: bool,
    /// `-h`, `--help`.
    pub help: bool,
    /// `-p`, `--print`.
    pub print: bool,
    /// The prompt given in argv.
    pub prompt: Option<String>,
    /// `--output-format`.
    pub output_format: OutputFormat,
    /// `--input-format stream-json`: user messages and control requests on stdin.
    pub stream_input: bool,
    /// `--verbose`.
    pub verbose: bool,
    /// `--include-partial-messages`.
    pub partial: bool,
    /// `--permission-prompt-tool stdio`.
    pub prompt_tool: bool,
    /// `--permission-mode`.
    pub permission_mode: Option<String>,
    /// `--model`.
    pub model: Option<String>,
    /// `--max-turns`.
    pub max_turns: Option<u32>,
    /// `--session-id` or `--resume`: the session's id.
    pub session_id: Option<String>,
    /// `--resume`: the session to go on with.
    pub resume: Option<String>,
    /// `--replay-user-messages`: each user message read is echoed.
    pub replay_user: bool,
    /// `--tools`: the only tools the model has (none: `--tools ""`); all without it.
    pub tools: Option<Vec<String>>,
}

/// Reads the arguments after the program's name; `Err` is the real CLI's message.
pub fn parse(argv: &[String]) -> Result<Args, String> {
    let mut args = Args::default();
    let mut input_format = None;
    let mut rest = argv.iter();
    let mut positional = Vec::new();
    while let Some(arg) = rest.next() {
        let (name, inline) = match arg.strip_prefix("--") {
            Some("") => {
                positional.extend(rest.by_ref().cloned());
                break;
            }
            Some(long) => match long.split_once('=') {
                Some((name, value)) => (name.to_owned(), Some(value.to_owned())),
                None => (long.to_owned(), None),
            },
            None => match arg.as_str() {
                "-p" => ("print".to_owned(), None),
                "-v" => ("version".to_owned(), None),
                "-h" => ("help".to_owned(), None),
                "-c" => ("continue".to_owned(), None),
                "-r" => ("resume".to_owned(), None),
                "-d" => ("debug".to_owned(), None),
                short if short.starts_with('-') && short.len() > 1 => {
                    return Err(format!("error: unknown option '{short}'"));
                }
                _ => {
                    positional.push(arg.clone());
                    continue;
                }
            },
        };
        if FLAGS.contains(&name.as_str()) {
            if inline.is_some() && name != "debug" {
                return Err(format!("error: option '--{name}' does not take an argument"));
            }
            match name.as_str() {
                "print" => args.print = true,
                "verbose" => args.verbose = true,
                "include-partial-messages" => args.partial = true,
                "replay-user-messages" => args.replay_user = true,
                "version" => args.version = true,
                "help" => args.help = true,
                "dangerously-skip-permissions" => args.permission_mode = Some("bypassPermissions".into()),
                _ => {}
            }
            continue;
        }
        if !VALUED.contains(&name.as_str()) {
            return Err(format!("error: unknown option '--{name}'"));
        }
        let value = match inline {
            Some(value) => value,
            None => rest
                .next()
                .cloned()
                .ok_or_else(|| format!("error: option '--{name} <value>' argument missing"))?,
        };
        match name.as_str() {
            "output-format" => {
                args.output_format = match value.as_str() {
                    "text" => OutputFormat::Text,
                    "json" => OutputFormat::Json,
                    "stream-json" => OutputFormat::StreamJson,
                    other => {
                        return Err(choices(
                            "--output-format <format>",
                            other,
                            &["text", "json", "stream-json"],
                        ))
                    }
                }
            }
            "input-format" => match value.as_str() {
                "text" | "stream-json" => input_format = Some(value),
                other => {
                    return Err(choices(
                        "--input-format <format>",
                        other,
                        &["text", "stream-json"],
                    ))
                }
            },
            "permission-mode" => {
                if !PERMISSION_MODES.contains(&value.as_str()) {
                    return Err(choices("--permission-mode <mode>", &value, PERMISSION_MODES));
                }
                args.permission_mode = Some(value);
            }
            "permission-prompt-tool" => args.prompt_tool = value == "stdio",
            "model" => args.model = Some(value),
            "max-turns" => {
                args.max_turns = Some(value.parse().map_err(|_| {
                    format!(
                        "error: option '--max-turns <turns>' argument '{value}' is invalid. Not a number."
                    )
                })?);
            }
            "session-id" => args.session_id = Some(value),
            "tools" => {
                let tools = value.split([',', ' ']).map(str::trim).filter(|t| !t.is_empty());
                args.tools = Some(tools.map(str::to_owned).collect());
            }
            "resume" => {
                args.session_id = Some(value.clone());
                args.resume = Some(value);
            }
            _ => {}
        }
    }
    args.stream_input = input_format.as_deref() == Some("stream-json");
    args.prompt = (!positional.is_empty()).then(|| positional.join(" "));
    if args.version || args.help {
        return Ok(args);
    }
    if args.stream_input && args.output_format != OutputFormat::StreamJson {
        return Err("Error: --input-format=stream-json requires output-format=stream-json.".into());
    }
    if args.output_format == OutputFormat::StreamJson && !args.verbose {
        return Err("Error: When using --print, --output-format=stream-json requires --verbose".into());
    }
    Ok(args)
}

fn choices(option: &str, value: &str, allowed: &[&str]) -> String {
    format!(
        "error: option '{option}' argument '{value}' is invalid. Allowed choices are {}.",
        allowed.join(", ")
    )
}

/// What `claude --help` prints: the usage of the flags the mock reads.
pub const HELP: &str = "\
Usage: claude [options] [prompt]

Claude Code (mock-agent's stand-in) - starts an interactive session by default, use
-p/--print for non-interactive output

Options:
  -p, --print                      Print response and exit (useful for pipes)
  --output-format <format>         Output format (only works with --print): \"text\", \"json\", or \"stream-json\"
  --input-format <format>          Input format (only works with --print): \"text\" or \"stream-json\"
  --verbose                        Override verbose mode setting from config
  --include-partial-messages       Include partial message chunks as they arrive
  --replay-user-messages           Re-emit user messages from stdin back on stdout for acknowledgment
  --permission-prompt-tool <tool>  MCP tool to use for permission prompts (the SDKs: stdio)
  --permission-mode <mode>         Permission mode to use for the session
  --model <model>                  Model for the current session
  --max-turns <turns>              Maximum number of agentic turns in non-interactive mode
  --session-id <uuid>              Use a specific session ID for the conversation
  -r, --resume [sessionId]         Resume a conversation
  -v, --version                    Output the version number
  -h, --help                       Display help for command
";

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_all(args: &[&str]) -> Result<Args, String> {
        parse(&args.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>())
    }

    #[test]
    fn both_sdks_argv() {
        let python = parse_all(&[
            "--output-format",
            "stream-json",
            "--verbose",
            "--system-prompt",
            "",
            "--max-turns",
            "3",
            "--model",
            "sonnet",
            "--permission-prompt-tool",
            "stdio",
            "--permission-mode",
            "default",
            "--setting-sources=",
            "--input-format",
            "stream-json",
        ])
        .expect("python argv");
        assert!(python.prompt_tool && python.stream_input && python.max_turns == Some(3));
        // (No argument of it holds a space.)
        let typescript: Vec<&str> = "--output-format stream-json --verbose --input-format stream-json \
            --max-turns=3 --model=sonnet --permission-prompt-tool=stdio --permission-mode=acceptEdits \
            --resume=abc"
            .split_whitespace()
            .collect();
        let typescript = parse_all(&typescript).expect("typescript argv");
        assert_eq!(typescript.model.as_deref(), Some("sonnet"));
        assert_eq!(typescript.session_id.as_deref(), Some("abc"));
        assert_eq!(typescript.permission_mode.as_deref(), Some("acceptEdits"));
    }

    #[test]
    fn errors_as_the_real_cli() {
        assert_eq!(
            parse_all(&["--formatt", "x"]),
            Err("error: unknown option '--formatt'".into())
        );
        assert_eq!(
            parse_all(&["-p", "--output-format", "xml"]),
            Err("error: option '--output-format <format>' argument 'xml' is invalid. Allowed choices are text, json, stream-json.".into())
        );
        assert_eq!(
            parse_all(&["-p", "--output-format", "stream-json", "hi"]),
            Err("Error: When using --print, --output-format=stream-json requires --verbose".into())
        );
        assert_eq!(
            parse_all(&["--input-format", "stream-json"]),
            Err("Error: --input-format=stream-json requires output-format=stream-json.".into())
        );
    }
}
