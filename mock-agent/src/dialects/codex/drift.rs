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
//! Each under two invocations: `sdk`, the TypeScript SDK's argv (`exec
//! --experimental-json --model M --skip-git-repo-check`, the prompt on stdin, stdin
//! closed; `CODEX_INTERNAL_ORIGINATOR_OVERRIDE=codex_sdk_ts`), and `exec`, `codex exec
//! --json --model M --skip-git-repo-check PROMPT` from a script. The model is
//! `gpt-5.5`, which gets `exec_command` (REAL-CODEX.md). The real CLI gets
//! `CODEX_API_KEY`, and a custom model provider on the loopback API before `exec`
//! (`-c model_provider=mock -c model_providers.mock={...}`, no analytics): the built-in
//! `openai` provider does not read `OPENAI_BASE_URL` in 0.163.0, it goes to
//! `api.openai.com`.

use crate::drift::{Curated, Drift, Invocation, Scenario};
use crate::model_api::Api;

/// Codex's drift table.
#[derive(Debug, Clone, Copy, Default)]
pub struct CodexDrift;

/// The prompt of every case (the scripted API answers whatever is asked).
const PROMPT: &str = "Do what the script says.";

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

const SCENARIOS: &[Scenario] = &[
    Scenario {
        name: "text",
        about: "one text answer",
        model_api: r#"{"steps": [{"text": "Hello."}]}"#,
        stand_in_faults: "",
    },
    Scenario {
        name: "tool",
        about: "a text and a shell call whose output is read back, then a text",
        model_api: r#"{"steps": [{"text": "I'll run a command.", "tool": {"shell": "echo hello"}}, {"text": "The command printed hello."}]}"#,
        stand_in_faults: "",
    },
    Scenario {
        name: "http-401",
        about: "the API answers 401",
        model_api: r#"{"steps": [{"error": {"status": 401, "retry_after": 0}}]}"#,
        stand_in_faults: "unauthorized",
    },
    Scenario {
        name: "http-429",
        about: "the API answers 429",
        model_api: r#"{"steps": [{"error": {"status": 429, "retry_after": 0}}]}"#,
        stand_in_faults: "rate-limited",
    },
    Scenario {
        name: "stream-cut",
        about: "the answer's stream ends before `response.completed`",
        model_api: r#"{"steps": [{"text": "Half an answer", "end": "cut"}]}"#,
        stand_in_faults: "stream-cut",
    },
];

impl Drift for CodexDrift {
    fn api(&self) -> Api {
        Api::Openai
    }

    fn real_env(&self, base_url: &str) -> Vec<(String, String)> {
        let _ = base_url;
        // The scratch HOME is under /tmp, where 0.163.0 refuses to make its helper
        // links (`WARNING: proceeding, even though we could not create PATH aliases:
        // Refusing to create helper binaries under temporary dir "/tmp"`, stderr's first
        // line); with another temporary folder its stderr starts as a user's does.
        [("CODEX_API_KEY", "sk-drift-not-a-key"), ("TMPDIR", "/var/tmp")]
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    fn real_args(&self, base_url: &str) -> Vec<String> {
        let provider = format!(
            "model_providers.mock={{name=\"mock\",base_url=\"{base_url}\",env_key=\"CODEX_API_KEY\",wire_api=\"responses\"}}"
        );
        [
            "-c",
            "model_provider=\"mock\"",
            "-c",
            &provider,
            "-c",
            "analytics.enabled=false",
        ]
        .map(str::to_owned)
        .to_vec()
    }

    fn scenarios(&self) -> &'static [Scenario] {
        SCENARIOS
    }

    fn invocations(&self) -> Vec<Invocation> {
        let owned = |argv: &[&str]| argv.iter().map(|a| (*a).to_owned()).collect();
        vec![
            Invocation {
                name: "sdk",
                argv: owned(SDK_ARGV),
                stdin: PROMPT.as_bytes().to_vec(),
                env: SDK_ENV.to_vec(),
            },
            Invocation {
                name: "exec",
                argv: owned(EXEC_ARGV),
                stdin: Vec::new(),
                env: Vec::new(),
            },
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

#[cfg(test)]
mod tests {
    use super::*;
    use harness::dialects::codex::args::{self, Command};

    #[test]
    fn every_scenario_is_a_model_api_scenario_and_its_faults_parse() {
        for scenario in SCENARIOS {
            crate::model_api::Scenario::parse(scenario.model_api, std::path::Path::new(scenario.name))
                .unwrap_or_else(|e| panic!("{}: {e}", scenario.name));
            harness::dialects::codex::faults::parse(
                scenario.stand_in_faults,
                harness::dialects::codex::faults::FROM_ENV,
            )
            .unwrap_or_else(|e| panic!("{}: {e}", scenario.name));
        }
    }

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
    }

    #[test]
    fn the_real_cli_is_pointed_at_the_api_by_a_custom_provider() {
        let args = CodexDrift.real_args("http://127.0.0.1:1/v1");
        assert!(args
            .iter()
            .any(|a| a.contains("base_url=\"http://127.0.0.1:1/v1\"")));
        assert_eq!(args.len() % 2, 0);
    }
}
