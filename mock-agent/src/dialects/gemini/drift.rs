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

use crate::drift::{Curated, Drift, Invocation, Scenario};
use crate::model_api::Api;

/// Gemini CLI's drift table.
#[derive(Debug, Clone, Copy, Default)]
pub struct GeminiDrift;

/// The model asked for: without `-m`, 0.61.0 routes through `auto` (a classifier
/// request first), which the scripted API does not script.
const MODEL: &str = "gemini-2.5-flash";

/// The prompt of every case.
const PROMPT: &str = "Do what the script says.";

const SCENARIOS: &[Scenario] = &[
    Scenario {
        name: "text",
        about: "one text answer",
        model_api: r#"{"steps": [{"text": "Hello."}]}"#,
        stand_in_faults: "",
    },
    Scenario {
        name: "tool",
        about: "a text and a list_directory call whose result is read back, then a text",
        model_api: r#"{"steps": [{"text": "I'll look around first.", "tool": {"call": {"name": "list_directory", "input": {"dir_path": "."}}}}, {"text": "The folder is empty."}]}"#,
        stand_in_faults: "",
    },
    Scenario {
        name: "http-401",
        about: "the API answers 401",
        model_api: r#"{"steps": [{"error": {"status": 401}}]}"#,
        stand_in_faults: "unauthorized",
    },
    Scenario {
        name: "empty",
        about: "the model answers with an empty candidate",
        model_api: r#"{"steps": [{"text": ""}, {"text": ""}, {"text": ""}, {"text": ""}]}"#,
        stand_in_faults: "empty-answer",
    },
];

impl Drift for GeminiDrift {
    fn api(&self) -> Api {
        Api::Google
    }

    fn real_env(&self, base_url: &str) -> Vec<(String, String)> {
        let home = settings_home();
        [
            ("GEMINI_API_KEY", "drift-not-a-key"),
            ("GOOGLE_GEMINI_BASE_URL", base_url),
            ("GEMINI_CLI_HOME", home.as_str()),
        ]
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
    }

    fn scenarios(&self) -> &'static [Scenario] {
        SCENARIOS
    }

    fn invocations(&self) -> Vec<Invocation> {
        let owned = |format: &str| {
            ["-m", MODEL, "--skip-trust", "-o", format, "-p", PROMPT]
                .map(str::to_owned)
                .to_vec()
        };
        vec![
            Invocation {
                name: "stream",
                argv: owned("stream-json"),
                stdin: Vec::new(),
                env: Vec::new(),
            },
            Invocation {
                name: "json",
                argv: owned("json"),
                stdin: Vec::new(),
                env: Vec::new(),
            },
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
    fn every_scenario_is_a_model_api_scenario_and_its_faults_parse() {
        for scenario in SCENARIOS {
            crate::model_api::Scenario::parse(scenario.model_api, std::path::Path::new(scenario.name))
                .unwrap_or_else(|e| panic!("{}: {e}", scenario.name));
            harness::dialects::gemini::faults::parse(
                scenario.stand_in_faults,
                harness::dialects::gemini::faults::FROM_ENV,
            )
            .unwrap_or_else(|e| panic!("{}: {e}", scenario.name));
        }
    }

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
}
