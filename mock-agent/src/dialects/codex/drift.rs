//! Codex under `mock-agent drift`: the real `codex exec --json` against the scripted
//! Responses API, and the stand-in on the same scenarios.
//!
//! | scenario | the Responses API answers | the stand-in plays |
//! | --- | --- | --- |
//! | `text` | one text | its default session (it has no text-only one: its reasoning, command and file change are allowed) |
//! | `tool` | a text and an `exec_command` call of `echo hello`, then a text once the output is back | its default session (a reasoning, a text, a command execution, a file change, a text) |
//! | `http-401` | HTTP 401 | the `unauthorized` preset |
//! | `http-429` | HTTP 429 (`retry-after: 0`) | the `rate-limited` preset |
//! | `stream-cut` | a text whose stream ends before `response.completed` | the `stream-cut` preset |
//!
//! Each under three invocations: `sdk`, the TypeScript SDK's argv (`exec
//! --experimental-json --model M --skip-git-repo-check`, the prompt on stdin, stdin
//! closed; `CODEX_INTERNAL_ORIGINATOR_OVERRIDE=codex_sdk_ts`), `exec`, `codex exec
//! --json --model M --skip-git-repo-check PROMPT` from a script, and `no-git`, the same
//! without `--skip-git-repo-check`: both run in a scratch folder that is in no Git
//! repository, where the real CLI refuses the last before any thread (`Not inside a
//! trusted directory and --skip-git-repo-check was not specified.`, exit 1), whatever
//! the API would answer; and `no-cd`, `exec`'s with `-C` to a folder that is not there,
//! which both end before the prompt is read (`Error: No such file or directory (os
//! error 2)`, exit 1). The model is
//! `gpt-5.5`, which gets `exec_command` (REAL-CODEX.md). The real CLI gets
//! `CODEX_API_KEY`, and a custom model provider on the loopback API before `exec`
//! (`-c model_provider=mock -c model_providers.mock={...}`, no analytics): the built-in
//! `openai` provider does not read `OPENAI_BASE_URL` in 0.163.0, it goes to
//! `api.openai.com`.
//!
//! `codex app-server` (`--dialect codex-app-server`) is a conversation: the drift
//! client drives it as the Python SDK does (`initialize`, `initialized`,
//! `thread/start` under `untrusted`, `turn/start`, until `turn/completed`), the real
//! server with the same `-c` arguments.
//!
//! | scenario | the Responses API answers | the client | the stand-in plays |
//! | --- | --- | --- | --- |
//! | `text` | one text | - | its default session |
//! | `approved` | a `touch made.txt` call, then a text | accepts the approval | its default session (its command and patch ask under `untrusted`) |
//! | `declined` | the same | declines it | the same, declined |
//! | `cancel` | the same | cancels it | the same, cancelled |
//! | `http-401` | HTTP 401 | - | the `unauthorized` preset |
//! | `http-429` | HTTP 429 (`retry-after: 0`) | - | the `rate-limited` preset |
//! | `interrupted` | a text that stalls after its first words | sends `turn/interrupt` at the first delta | a stall after its first answer's first delta |

use harness::dialects::codex::wire::rpc::{
    self, client_notifications, methods, notifications, server_requests,
};
use harness::run::Dialect;
use serde_json::json;

use crate::drift::{api, owned, owned_env, Curated, Drift, Invocation, Scenario, Script, SendOn, PROMPT};
use crate::model_api::Api;

/// Codex's drift table for `codex exec --json`.
#[derive(Debug, Clone, Copy, Default)]
pub struct CodexDrift;

/// The model: the one whose tools include `exec_command`.
const MODEL: &str = "gpt-5.5";

/// The TypeScript SDK's argv for `thread.run(prompt)` with `model` and
/// `skipGitRepoCheck` set (REAL-CODEX.md); the prompt goes on stdin.
const SDK_ARGV: &[&str] = &[
    "exec",
    "--experimental-json",
    "--model",
    MODEL,
    "--skip-git-repo-check",
];

/// What the TypeScript SDK 0.163.0 adds to the environment.
const SDK_ENV: &[(&str, &str)] = &[("CODEX_INTERNAL_ORIGINATOR_OVERRIDE", "codex_sdk_ts")];

/// A script's argv: `--json`, the prompt last.
const EXEC_ARGV: &[&str] = &[
    "exec",
    "--json",
    "--model",
    MODEL,
    "--skip-git-repo-check",
    PROMPT,
];

/// A script's argv that leaves the Git-repository check on: outside a repository, the
/// refusal.
const NO_GIT_ARGV: &[&str] = &["exec", "--json", "--model", MODEL, PROMPT];

/// `exec`'s, working in a folder that is not there (`-C`).
const NO_CD_ARGV: &[&str] = &[
    "exec",
    "--json",
    "--model",
    MODEL,
    "--skip-git-repo-check",
    "-C",
    "/no/such/folder",
    PROMPT,
];

const SCENARIOS: &[Scenario] = &[
    Scenario::new("text", "one text answer", api::TEXT, ""),
    Scenario::new(
        "tool",
        "a text and a shell call whose output is read back, then a text",
        api::SHELL,
        "",
    ),
    Scenario::new("http-401", "the API answers 401", api::HTTP_401, "unauthorized"),
    Scenario::new("http-429", "the API answers 429", api::HTTP_429, "rate-limited"),
    Scenario::new(
        "stream-cut",
        "the answer's stream ends before `response.completed`",
        api::STREAM_CUT,
        "stream-cut",
    ),
];

impl Drift for CodexDrift {
    fn dialect(&self) -> &'static dyn Dialect {
        harness::dialects::CODEX
    }

    fn api(&self) -> Api {
        Api::Openai
    }

    fn real_env(&self, base_url: &str) -> Vec<(String, String)> {
        let _ = base_url;
        // The scratch HOME is under /tmp, where 0.163.0 refuses to make its helper
        // links (`WARNING: proceeding, even though we could not create PATH aliases:
        // Refusing to create helper binaries under temporary dir "/tmp"`, stderr's first
        // line); with another temporary folder its stderr starts as a user's does.
        owned_env(&[("CODEX_API_KEY", "sk-drift-not-a-key"), ("TMPDIR", "/var/tmp")])
    }

    fn real_args(&self, base_url: &str) -> Vec<String> {
        provider_args(base_url)
    }

    fn scenarios(&self) -> &'static [Scenario] {
        SCENARIOS
    }

    fn invocations(&self) -> Vec<Invocation> {
        vec![
            Invocation::new("sdk", SDK_ARGV, PROMPT.as_bytes(), SDK_ENV),
            Invocation::new("exec", EXEC_ARGV, b"", &[]),
            Invocation::new("no-git", NO_GIT_ARGV, b"", &[]),
            Invocation::new("no-cd", NO_CD_ARGV, b"", &[]),
        ]
    }

    fn curated(&self) -> Curated {
        Curated {
            scenario: "tool",
            invocation: "sdk",
            path: "cassettes/codex/real-tool.cassette",
        }
    }

    fn allow_list(&self) -> &'static str {
        "tests/drift/codex.allow"
    }
}

/// `-c` arguments that point the real CLI at `base_url` by a custom model provider
/// (the built-in `openai` one does not read `OPENAI_BASE_URL` in 0.163.0), without
/// analytics.
fn provider_args(base_url: &str) -> Vec<String> {
    let provider = format!(
        "model_providers.mock={{name=\"mock\",base_url=\"{base_url}\",env_key=\"CODEX_API_KEY\",wire_api=\"responses\"}}"
    );
    owned(&[
        "-c",
        "model_provider=\"mock\"",
        "-c",
        &provider,
        "-c",
        "analytics.enabled=false",
    ])
}

/// Codex's drift table for `codex app-server`, driven as the Python SDK drives it.
#[derive(Debug, Clone, Copy, Default)]
pub struct CodexAppServerDrift;

/// The approval requests of `codex app-server` (REAL-CODEX.md, "Requests from the
/// server").
const APPROVALS: [&str; 2] = [
    server_requests::COMMAND_APPROVAL,
    server_requests::FILE_CHANGE_APPROVAL,
];

/// The Python SDK's default answers: it accepts every approval.
const ACCEPT: &[(&str, &str)] = &[
    (APPROVALS[0], r#"{"decision":"accept"}"#),
    (APPROVALS[1], r#"{"decision":"accept"}"#),
];

/// A client that declines every approval.
const DECLINE: &[(&str, &str)] = &[
    (APPROVALS[0], r#"{"decision":"decline"}"#),
    (APPROVALS[1], r#"{"decision":"decline"}"#),
];

/// A client that cancels at the first approval.
const CANCEL: &[(&str, &str)] = &[
    (APPROVALS[0], r#"{"decision":"cancel"}"#),
    (APPROVALS[1], r#"{"decision":"cancel"}"#),
];

/// A shell call of `touch made.txt`, which `untrusted` asks about (`echo` it does
/// not), then a text.
const TOUCH: &str =
    r#"{"steps": [{"text": "I'll make a file.", "tool": {"shell": "touch made.txt"}}, {"text": "Done."}]}"#;

const APP_SERVER_SCENARIOS: &[Scenario] = &[
    Scenario::new("text", "one text answer", api::TEXT, ""),
    Scenario::new(
        "approved",
        "a shell call asks for approval under `untrusted`; the client accepts",
        TOUCH,
        "",
    )
    .answering(ACCEPT),
    Scenario::new(
        "declined",
        "the same; the client declines, the turn goes on",
        TOUCH,
        "",
    )
    .answering(DECLINE),
    Scenario::new(
        "cancel",
        "the same; the client cancels, the turn ends interrupted",
        TOUCH,
        "",
    )
    .answering(CANCEL),
    Scenario::new("http-401", "the API answers 401", api::HTTP_401, "unauthorized"),
    Scenario::new("http-429", "the API answers 429", api::HTTP_429, "rate-limited"),
    Scenario::new(
        "interrupted",
        "the answer stalls after its first words; the client sends `turn/interrupt`",
        STALL,
        // The default session's 14th line is its first answer's first delta.
        "stall:after=14",
    )
    .sending_on(INTERRUPT),
];

/// A text that stalls after its first words (the stream stays open and silent).
const STALL: &str = r#"{"steps": [{"text": "Half an answer", "end": "stall"}]}"#;

/// `turn/interrupt` of the turn started, at the first words of the answer.
const INTERRUPT: &[SendOn] = &[(
    notifications::AGENT_MESSAGE_DELTA,
    || json!({"method": methods::TURN_INTERRUPT, "id": 3, "params": {"threadId": "$thread", "turnId": "$turn"}}),
)];

impl Drift for CodexAppServerDrift {
    fn dialect(&self) -> &'static dyn Dialect {
        harness::dialects::CODEX_APP_SERVER
    }

    fn api(&self) -> Api {
        Api::Openai
    }

    fn real_env(&self, base_url: &str) -> Vec<(String, String)> {
        CodexDrift.real_env(base_url)
    }

    fn real_args(&self, base_url: &str) -> Vec<String> {
        provider_args(base_url)
    }

    fn scenarios(&self) -> &'static [Scenario] {
        APP_SERVER_SCENARIOS
    }

    /// `sdk`: the Python SDK's argv (`app-server --listen stdio://`) and handshake
    /// (`initialize` as `codex_python_sdk` 0.163.0, `initialized`), then `thread/start`
    /// under `untrusted` with the workspace-write sandbox and one `turn/start`, until
    /// `turn/completed`.
    fn invocations(&self) -> Vec<Invocation> {
        let script = Script {
            messages: vec![
                json!({"method": methods::INITIALIZE, "id": 0, "params": {
                    "clientInfo": {"name": "codex_python_sdk", "title": "Codex Python SDK", "version": "0.163.0"},
                    "capabilities": {"experimentalApi": true}}}),
                json!({"method": client_notifications::INITIALIZED}),
                json!({"method": methods::THREAD_START, "id": 1, "params": {
                    "model": MODEL, "approvalPolicy": "untrusted", "sandbox": "workspace-write"}}),
                json!({"method": methods::TURN_START, "id": 2, "params": {
                    "threadId": "$thread", "input": [{"type": "text", "text": PROMPT}]}}),
            ],
            captures: &[("thread", "/thread/id"), ("turn", "/turn/id")],
            answers: ACCEPT,
            turn_end: Some(notifications::TURN_COMPLETED),
            result: rpc::RESULT,
        };
        vec![Invocation::conversation(
            "sdk",
            &["app-server", "--listen", "stdio://"],
            &[],
            script,
        )]
    }

    fn curated(&self) -> Curated {
        Curated {
            scenario: "approved",
            invocation: "sdk",
            path: "cassettes/codex-app-server/real-drift-approved.cassette",
        }
    }

    fn allow_list(&self) -> &'static str {
        "tests/drift/codex-app-server.allow"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use harness::dialects::codex::args::{self, Command};

    #[test]
    fn both_invocations_are_codex_exec_with_json_and_the_sdk_s_prompt_is_on_stdin() {
        for invocation in CodexDrift.invocations() {
            match args::parse(&invocation.argv) {
                Ok(Command::Exec(exec)) => assert!(exec.json, "{}", invocation.name),
                _ => panic!("{}: not `codex exec`", invocation.name),
            }
        }
        let sdk = &CodexDrift.invocations()[0];
        assert_eq!(sdk.stdin, PROMPT.as_bytes());
        assert!(!sdk.argv.iter().any(|a| a == PROMPT));
        // With the check skipped, and without: the refusal is compared too.
        let skips: Vec<(&str, bool)> = CodexDrift
            .invocations()
            .iter()
            .map(|i| match args::parse(&i.argv) {
                Ok(Command::Exec(exec)) => (i.name, exec.skips_git_check()),
                _ => unreachable!("checked above"),
            })
            .collect();
        assert_eq!(
            skips,
            [("sdk", true), ("exec", true), ("no-git", false), ("no-cd", true)]
        );
    }

    #[test]
    fn the_real_cli_is_pointed_at_the_api_by_a_custom_provider() {
        let args = CodexDrift.real_args("http://127.0.0.1:1/v1");
        assert!(args
            .iter()
            .any(|a| a.contains("base_url=\"http://127.0.0.1:1/v1\"")));
        assert_eq!(args.len() % 2, 0);
        assert_eq!(CodexAppServerDrift.real_args("http://127.0.0.1:1/v1"), args);
    }

    #[test]
    fn the_app_server_s_invocation_is_the_python_sdk_s_and_its_client_ends_at_turn_completed() {
        let [sdk] = &CodexAppServerDrift.invocations()[..] else {
            panic!("one invocation");
        };
        match args::parse(&sdk.argv) {
            Ok(Command::AppServer(app)) => assert_eq!(app.listen, "stdio://"),
            _ => panic!("not `codex app-server`"),
        }
        let script = sdk.client.as_ref().expect("a client");
        let sent: Vec<&str> = script
            .messages
            .iter()
            .filter_map(|m| m["method"].as_str())
            .collect();
        assert_eq!(
            sent,
            [
                methods::INITIALIZE,
                client_notifications::INITIALIZED,
                methods::THREAD_START,
                methods::TURN_START
            ]
        );
        assert_eq!(script.turn_end, Some(notifications::TURN_COMPLETED));
        let declined = APP_SERVER_SCENARIOS
            .iter()
            .find(|s| s.name == "declined")
            .unwrap();
        assert!(declined.answers.iter().all(|(_, a)| a.contains("decline")));
    }
}
