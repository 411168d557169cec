//! Real ACP clients, unmodified, drive the mock as `gemini --acp`, as
//! `shared/REAL-GEMINI.md` says they drive the real CLI: `acpx` (npm) with its
//! built-in `gemini` agent (it runs `gemini --version`, then `gemini --acp`, from
//! `PATH`), and a program on the Python ACP SDK (PyPI `agent-client-protocol`,
//! `tests/consumers/gemini_acp_sdk.py`). Both are pinned and installed once by
//! `scripts/acp-clients.sh` under the target directory. Each: a run, a failure
//! surfaced, an approval with Gemini's option ids.

use std::path::PathBuf;
use std::process::{Command, Output};
use std::sync::OnceLock;

use crate::support::{bin, root};

/// What `scripts/acp-clients.sh WHAT` installed (once), or the test fails saying why:
/// nothing is skipped.
fn installed(what: &str) -> PathBuf {
    static PATHS: OnceLock<std::sync::Mutex<Vec<(String, PathBuf)>>> = OnceLock::new();
    let paths = PATHS.get_or_init(Default::default);
    let mut paths = paths.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some((_, path)) = paths.iter().find(|(w, _)| w == what) {
        return path.clone();
    }
    let made = Command::new(root().join("scripts/acp-clients.sh"))
        .arg(what)
        .output()
        .expect("runs scripts/acp-clients.sh");
    assert!(
        made.status.success(),
        "scripts/acp-clients.sh {what} could not install it ({}); the first run needs PyPI or \
         the npm registry:\n{}",
        made.status,
        String::from_utf8_lossy(&made.stderr)
    );
    let path = PathBuf::from(String::from_utf8_lossy(&made.stdout).trim());
    paths.push((what.to_owned(), path.clone()));
    path
}

/// A folder with `gemini`, a link to the binary under test, and a project folder
/// where the client runs (what the session writes lands there), and a home.
struct Place {
    dir: tempfile::TempDir,
}

impl Place {
    fn new() -> Place {
        let dir = tempfile::tempdir().expect("temp dir");
        for sub in ["bin", "project", "home"] {
            std::fs::create_dir(dir.path().join(sub)).expect("mkdir");
        }
        std::os::unix::fs::symlink(bin(), dir.path().join("bin/gemini")).expect("symlink");
        Place { dir }
    }

    /// `program ARGS` in the project folder, `gemini` first on `PATH`, with the key
    /// set and a journal.
    fn command(&self, program: &std::path::Path, args: &[&str], env: &[(&str, &str)]) -> Command {
        let mut cmd = Command::new(program);
        harness::run::child::without_mock_env(&mut cmd);
        let path = format!(
            "{}:{}",
            self.dir.path().join("bin").display(),
            std::env::var("PATH").unwrap_or_default()
        );
        cmd.args(args)
            .current_dir(self.dir.path().join("project"))
            .env("PATH", path)
            .env("HOME", self.dir.path().join("home"))
            .env("GEMINI_API_KEY", "k")
            .env("MOCK_AGENT_JOURNAL", self.journal());
        for (name, value) in env {
            cmd.env(name, value);
        }
        cmd
    }

    fn journal(&self) -> PathBuf {
        self.dir.path().join("journal.jsonl")
    }

    /// The lines the mock wrote or read as `gemini --acp`, by direction.
    fn messages(&self) -> Vec<(String, serde_json::Value)> {
        let text = std::fs::read_to_string(self.journal()).unwrap_or_default();
        text.lines()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .flat_map(|entry| entry["acp"]["messages"].as_array().cloned().unwrap_or_default())
            .filter_map(|m| {
                let line = serde_json::from_str(m["line"].as_str()?).ok()?;
                Some((m["dir"].as_str()?.to_owned(), line))
            })
            .collect()
    }
}

fn run(mut cmd: Command) -> Output {
    let output = cmd.output().expect("runs the client");
    eprintln!(
        "{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// The option the client chose in its answer to the agent's permission request.
fn chosen(place: &Place) -> Option<String> {
    let messages = place.messages();
    let (_, asked) = messages
        .iter()
        .find(|(dir, m)| dir == "out" && m["method"] == "session/request_permission")?;
    messages
        .iter()
        .find(|(dir, m)| dir == "in" && m["id"] == asked["id"] && m.get("method").is_none())
        .and_then(|(_, m)| m["result"]["outcome"]["optionId"].as_str().map(str::to_owned))
}

#[test]
fn acpx_runs_gemini_through_a_turn_and_approves_with_gemini_s_option_ids() {
    let acpx = installed("acpx");
    let place = Place::new();
    let output = run(place.command(
        &acpx,
        &["--approve-all", "gemini", "exec", "Summarize the repo"],
        &[],
    ));
    assert!(output.status.success(), "{output:?}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("read the README.md file") && stdout.contains("end_turn"),
        "{stdout}"
    );
    // It ran `gemini --acp` (after asking `gemini --version`), authenticated nothing
    // it had no credential for, and answered with one of Gemini's options.
    let option = chosen(&place).expect("answered the permission request");
    assert!(
        ["proceed_once", "proceed_always"].contains(&option.as_str()),
        "{option}"
    );
    assert!(
        place.dir.path().join("project/summary.txt").exists(),
        "the write went through the client"
    );
}

#[test]
fn acpx_surfaces_gemini_s_failure() {
    let acpx = installed("acpx");
    let place = Place::new();
    let fault = "error:method=session/prompt,code=-32603,message=\"Internal error\"";
    let output = run(place.command(
        &acpx,
        &["--approve-all", "gemini", "exec", "Summarize the repo"],
        &[("MOCK_AGENT_FAULTS", fault)],
    ));
    assert!(!output.status.success(), "{output:?}");
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(said.contains("Internal error"), "{said}");
}

#[test]
fn the_python_acp_sdk_runs_gemini_with_its_key_and_approves_with_its_option_ids() {
    let python = installed("python");
    let place = Place::new();
    let program = root().join("tests/consumers/gemini_acp_sdk.py");
    let output = run(place.command(&python, &[&program.to_string_lossy(), "Summarize the repo"], &[]));
    assert!(output.status.success(), "{output:?}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(
        lines.contains(&"auth oauth-personal,gemini-api-key,vertex-ai,gateway"),
        "{stdout}"
    );
    // The SDK's example approves with the first allow option Gemini lists.
    assert!(
        lines.contains(&"permission proceed_always,proceed_once,cancel -> proceed_always"),
        "{stdout}"
    );
    assert!(
        lines.contains(&"stop end_turn") && lines.contains(&"quota 24 16"),
        "{stdout}"
    );
    assert!(
        !lines.contains(&"terminal/create"),
        "Gemini never asks for a terminal: {stdout}"
    );
    // The key reached the agent in `_meta["api-key"]`.
    let messages = place.messages();
    let auth = messages
        .iter()
        .find(|(dir, m)| dir == "in" && m["method"] == "authenticate")
        .expect("authenticated");
    assert_eq!(auth.1["params"]["methodId"], "gemini-api-key");
    assert_eq!(auth.1["params"]["_meta"]["api-key"], "k");
    assert_eq!(chosen(&place).as_deref(), Some("proceed_always"));
}

#[test]
fn the_python_acp_sdk_surfaces_gemini_s_failure() {
    let python = installed("python");
    let place = Place::new();
    let program = root().join("tests/consumers/gemini_acp_sdk.py");
    let output = run(place.command(
        &python,
        &[&program.to_string_lossy()],
        &[("MOCK_AGENT_FAULTS", "session-services-failed")],
    ));
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.starts_with("error: "), "{stderr}");
}
