//! Gemini CLI under `mock-agent drift`: the real `gemini -p` against the scripted
//! Gemini API (`mock-agent model-api --api google`), and the stand-in on the same
//! scenarios.
//!
//! | scenario | the Gemini API answers | the stand-in plays |
//! | --- | --- | --- |
//! | `text` | one text | its default session (a text, a `read_file` call, a text) |
//! | `tool` | a text and a `list_directory` call of the (empty) working folder, then a text once the result is back | its default session |
//! | `http-401` | HTTP 401 | the `unauthorized` preset |
//! | `empty` | an empty candidate | the `empty-answer` preset |
//!
//! Each under two invocations: `stream`, `gemini -m gemini-2.5-flash --skip-trust -o
//! stream-json -p PROMPT` (what headless consumers such as agentabi run, with the trust flag 0.61.0
//! needs), and `json`, the same with `-o json`. The real CLI gets
//! `GEMINI_API_KEY`, `GOOGLE_GEMINI_BASE_URL` pointing at the loopback API, and a
//! `settings.json` that selects the API key (`GOOGLE_GEMINI_BASE_URL` alone selects
//! the `gateway` auth, which headless 0.61.0 rejects) and turns usage statistics off:
//! written under a `GEMINI_CLI_HOME` of the scratch folder, by the real CLI's
//! environment pointing at it.
//!
//! `gemini --acp` (`--dialect gemini-acp`) is a conversation: the drift client sends
//! `initialize`, `session/new` and one `session/prompt`, and answers the agent's
//! permission requests; the real CLI gets the same environment.
//!
//! | scenario | the Gemini API answers | the client | the stand-in plays |
//! | --- | --- | --- | --- |
//! | `text` | one text | - | its default session |
//! | `permission` | a `write_file` call, then a text | allows it once (`proceed_once`) | its default session (a read, then a write it asks about) |
//! | `http-401` | HTTP 401 | - | `session/prompt` answered with error 401 (the `error` fault) |

use harness::acp::wire::methods;
use harness::run::Dialect;
use serde_json::json;

use crate::drift::{api, owned_env, Curated, Drift, Invocation, Scenario, Script, PROMPT};
use crate::model_api::Api;

/// Gemini CLI's drift table for headless runs (`gemini -p`).
#[derive(Debug, Clone, Copy, Default)]
pub struct GeminiDrift;

/// The model asked for: without `-m`, 0.61.0 routes through `auto` (a classifier
/// request first), which the scripted API does not script.
const MODEL: &str = "gemini-2.5-flash";

const SCENARIOS: &[Scenario] = &[
    Scenario::new("text", "one text answer", api::TEXT, ""),
    Scenario::new(
        "tool",
        "a text and a list_directory call whose result is read back, then a text",
        r#"{"steps": [{"text": "I'll look around first.", "tool": {"call": {"name": "list_directory", "input": {"dir_path": "."}}}}, {"text": "The folder is empty."}]}"#,
        "",
    ),
    Scenario::new(
        "http-401",
        "the API answers 401",
        r#"{"steps": [{"error": {"status": 401}}]}"#,
        "unauthorized",
    ),
    Scenario::new(
        "empty",
        "the model answers with an empty candidate",
        r#"{"steps": [{"text": ""}, {"text": ""}, {"text": ""}, {"text": ""}]}"#,
        "empty-answer",
    ),
];

impl Drift for GeminiDrift {
    fn dialect(&self) -> &'static dyn Dialect {
        harness::dialects::GEMINI
    }

    fn api(&self) -> Api {
        Api::Google
    }

    fn real_env(&self, base_url: &str) -> Vec<(String, String)> {
        let home = settings_home();
        owned_env(&[
            ("GEMINI_API_KEY", "drift-not-a-key"),
            ("GOOGLE_GEMINI_BASE_URL", base_url),
            ("GEMINI_CLI_HOME", home.as_str()),
        ])
    }

    fn scenarios(&self) -> &'static [Scenario] {
        SCENARIOS
    }

    fn invocations(&self) -> Vec<Invocation> {
        let argv = |format| ["-m", MODEL, "--skip-trust", "-o", format, "-p", PROMPT];
        vec![
            Invocation::new("stream", &argv("stream-json"), b"", &[]),
            Invocation::new("json", &argv("json"), b"", &[]),
        ]
    }

    fn curated(&self) -> Curated {
        Curated {
            scenario: "tool",
            invocation: "stream",
            path: "cassettes/gemini/real-tool.cassette",
        }
    }

    fn allow_list(&self) -> &'static str {
        "tests/drift/gemini.allow"
    }
}

/// Gemini CLI's drift table for its ACP agent (`gemini --acp`).
#[derive(Debug, Clone, Copy, Default)]
pub struct GeminiAcpDrift;

/// The answer that allows a tool once.
const ALLOW_ONCE: &[(&str, &str)] = &[(
    methods::REQUEST_PERMISSION,
    r#"{"outcome":{"outcome":"selected","optionId":"proceed_once"}}"#,
)];

const ACP_SCENARIOS: &[Scenario] = &[
    Scenario::new("text", "one text answer", api::TEXT, ""),
    Scenario::new(
        "permission",
        "a write_file call, which asks the client's permission (allowed once), then a text",
        r#"{"steps": [{"text": "I'll write a file.", "tool": {"call": {"name": "write_file", "input": {"file_path": "out.txt", "content": "hi\n"}}}}, {"text": "Done."}]}"#,
        "",
    )
    .answering(ALLOW_ONCE),
    Scenario::new(
        "http-401",
        "the API answers 401: session/prompt is answered with error 401",
        r#"{"steps": [{"error": {"status": 401}}]}"#,
        "error:method=session/prompt,code=401,message=\"Request had invalid authentication credentials.\"",
    ),
];

impl Drift for GeminiAcpDrift {
    fn dialect(&self) -> &'static dyn Dialect {
        harness::dialects::GEMINI_ACP
    }

    fn api(&self) -> Api {
        Api::Google
    }

    fn real_env(&self, base_url: &str) -> Vec<(String, String)> {
        GeminiDrift.real_env(base_url)
    }

    fn scenarios(&self) -> &'static [Scenario] {
        ACP_SCENARIOS
    }

    /// `acp`: `gemini -m M --acp`, as acpx starts it (with the model, see `MODEL`);
    /// `initialize` with neither `fs` nor `terminal` (the agent writes files itself),
    /// `session/new` in the working folder, one `session/prompt`, until its answer.
    fn invocations(&self) -> Vec<Invocation> {
        let script = Script {
            messages: vec![
                json!({"jsonrpc": "2.0", "id": 0, "method": methods::INITIALIZE, "params": {
                    "protocolVersion": 1,
                    "clientCapabilities": {"fs": {"readTextFile": false, "writeTextFile": false}, "terminal": false},
                    "clientInfo": {"name": "mock-agent-drift", "version": "1"}}}),
                json!({"jsonrpc": "2.0", "id": 1, "method": methods::SESSION_NEW, "params": {
                    "cwd": "$cwd", "mcpServers": []}}),
                json!({"jsonrpc": "2.0", "id": 2, "method": methods::SESSION_PROMPT, "params": {
                    "sessionId": "$session", "prompt": [{"type": "text", "text": PROMPT}]}}),
            ],
            captures: &[("session", "/sessionId")],
            answers: ALLOW_ONCE,
            turn_end: None,
            result: harness::acp::rpc::members::RESULT,
        };
        vec![Invocation::conversation(
            "acp",
            &["-m", MODEL, "--acp"],
            &[],
            script,
        )]
    }

    fn curated(&self) -> Curated {
        Curated {
            scenario: "permission",
            invocation: "acp",
            path: "cassettes/gemini-acp/real-drift-permission.cassette",
        }
    }

    fn allow_list(&self) -> &'static str {
        "tests/drift/gemini-acp.allow"
    }
}

/// A `GEMINI_CLI_HOME` whose `.gemini/settings.json` selects the API key and turns
/// usage statistics off: one folder in the temporary directory, its settings written
/// afresh for each run (the real CLI rewrites the file on start). An empty string when
/// it cannot be made: then the real CLI says which auth it lacks (exit 41), and drift
/// shows it.
fn settings_home() -> String {
    let home = std::env::temp_dir().join("mock-agent-gemini-drift-home");
    let settings = r#"{"security":{"auth":{"selectedType":"gemini-api-key"}},"privacy":{"usageStatisticsEnabled":false},"general":{"enableAutoUpdate":false}}"#;
    let made = std::fs::create_dir_all(home.join(".gemini"))
        .and_then(|()| std::fs::write(home.join(".gemini/settings.json"), settings));
    match made {
        Ok(()) => home.display().to_string(),
        Err(_) => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use harness::dialects::gemini::args::{self, Command};

    #[test]
    fn both_invocations_are_headless_runs_that_skip_the_trust_check() {
        for invocation in GeminiDrift.invocations() {
            match args::parse(&invocation.argv) {
                Ok(Command::Run(run)) => {
                    assert!(run.skip_trust && run.prompt.is_some(), "{}", invocation.name)
                }
                _ => panic!("{}: not a headless run", invocation.name),
            }
        }
        let env = GeminiDrift.real_env("http://127.0.0.1:1");
        let home = &env
            .iter()
            .find(|(k, _)| k == "GEMINI_CLI_HOME")
            .expect("a home")
            .1;
        let settings = std::fs::read_to_string(std::path::Path::new(home).join(".gemini/settings.json"))
            .expect("settings");
        assert!(settings.contains("gemini-api-key"));
    }

    #[test]
    fn the_acp_invocation_runs_the_acp_agent_and_asks_until_the_prompt_s_answer() {
        let [acp] = &GeminiAcpDrift.invocations()[..] else {
            panic!("one invocation");
        };
        assert!(harness::dialects::gemini::acp::is_acp(&acp.argv));
        let script = acp.client.as_ref().expect("a client");
        assert_eq!(script.turn_end, None);
        assert_eq!(script.messages[2]["params"]["sessionId"], "$session");
    }
}
