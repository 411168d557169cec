//! Claude Code under `mock-agent drift`: the real CLI against the scripted Messages
//! API, and the stand-in on the same scenarios.
//!
//! | scenario | the Messages API answers | the stand-in plays |
//! | --- | --- | --- |
//! | `text` | one text | its default session (it has no text-only one: its tool rounds are allowed) |
//! | `tool` | a text and a `Bash` call of `echo hello`, then a text once the result is back | its default session (a `Read`, a `Write`, texts) |
//! | `http-401` | HTTP 401 | the `invalid-api-key` preset |
//! | `http-429` | HTTP 429 (`retry-after: 0`) | the `rate-limited` preset |
//! | `stream-cut` | a text whose stream ends before `message_stop` | the `connection-lost` preset (without the CLI's three retries) |
//!
//! Each under two invocations: `sdk`, the Python SDK's argv and environment (stream-json
//! both ways: `initialize`, then the prompt as a user message; `CLAUDE_CODE_ENTRYPOINT`,
//! `CLAUDE_CODE_SDK_READS_SESSION_STATE`), and `print`, `claude -p --output-format
//! stream-json --verbose PROMPT` from a script. The real CLI gets `ANTHROPIC_BASE_URL`,
//! a made-up key, no retries, no telemetry.

use harness::dialects::claude::play::{initialize_request, user_message};
use harness::run::Dialect;

use crate::drift::{api, owned_env, Curated, Drift, Invocation, Scenario, PROMPT};
use crate::model_api::Api;

/// Claude Code's drift table.
#[derive(Debug, Clone, Copy, Default)]
pub struct ClaudeDrift;

/// The Python SDK's argv for `query(prompt)` with no options (REAL-CLAUDE.md).
pub const SDK_ARGV: &[&str] = &[
    "--output-format",
    "stream-json",
    "--verbose",
    "--system-prompt",
    "",
    "--input-format",
    "stream-json",
];

/// What the Python SDK 0.2.188 adds to the environment.
const SDK_ENV: &[(&str, &str)] = &[
    ("CLAUDE_CODE_ENTRYPOINT", "sdk-py"),
    ("CLAUDE_AGENT_SDK_VERSION", "0.2.188"),
    ("CLAUDE_CODE_SDK_READS_SESSION_STATE", "1"),
];

/// A script's argv: print mode, the prompt last.
const PRINT_ARGV: &[&str] = &["-p", "--output-format", "stream-json", "--verbose", PROMPT];

const SCENARIOS: &[Scenario] = &[
    Scenario::new("text", "one text answer", api::TEXT, ""),
    Scenario::new(
        "tool",
        "a text and a shell call whose result is read back, then a text",
        api::SHELL,
        "",
    ),
    Scenario::new(
        "http-401",
        "the API answers 401",
        api::HTTP_401,
        "invalid-api-key",
    ),
    Scenario::new("http-429", "the API answers 429", api::HTTP_429, "rate-limited"),
    Scenario::new(
        "stream-cut",
        "the answer's stream ends before its closing events",
        api::STREAM_CUT,
        "connection-lost",
    ),
];

impl Drift for ClaudeDrift {
    fn dialect(&self) -> &'static dyn Dialect {
        harness::dialects::CLAUDE
    }

    fn api(&self) -> Api {
        Api::Anthropic
    }

    fn real_env(&self, base_url: &str) -> Vec<(String, String)> {
        owned_env(&[
            ("ANTHROPIC_BASE_URL", base_url),
            ("ANTHROPIC_API_KEY", "sk-drift-not-a-key"),
            ("CLAUDE_CODE_MAX_RETRIES", "0"),
            ("DISABLE_TELEMETRY", "1"),
            ("DISABLE_AUTOUPDATER", "1"),
            ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1"),
        ])
    }

    fn scenarios(&self) -> &'static [Scenario] {
        SCENARIOS
    }

    fn invocations(&self) -> Vec<Invocation> {
        let mut stdin = initialize_request("req_1_d41f7a2c");
        stdin.push(b'\n');
        stdin.extend(user_message(PROMPT));
        stdin.push(b'\n');
        vec![
            Invocation::new("sdk", SDK_ARGV, &stdin, SDK_ENV),
            Invocation::new("print", PRINT_ARGV, b"", &[]),
        ]
    }

    fn curated(&self) -> Curated {
        Curated {
            scenario: "tool",
            invocation: "sdk",
            path: "cassettes/claude/real-tool.cassette",
        }
    }

    fn allow_list(&self) -> &'static str {
        "tests/drift/claude.allow"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sdk_writes_initialize_then_the_prompt() {
        let sdk = &ClaudeDrift.invocations()[0];
        let lines: Vec<serde_json::Value> = sdk
            .stdin
            .split(|b| *b == b'\n')
            .filter(|l| !l.is_empty())
            .map(|l| serde_json::from_slice(l).expect("JSON"))
            .collect();
        assert_eq!(lines.len(), 2);
        assert!(crate::dialects::claude::record::is_claude("claude", &sdk.argv));
    }
}
