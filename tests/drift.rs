//! `mock-agent drift`: Claude Code 2.1.331, Codex 0.163.0 (`exec --json` and
//! `app-server`) and Gemini CLI 0.61.0 (`-p` and `--acp`), installed by
//! scripts/real-clis.sh, and their stand-ins on the same scenarios differ only as
//! tests/drift/*.allow explain; a stand-in that changes an exit code, or a field renamed
//! in its output, fails it. One table a kind of check, one row a dialect.

use harness::drift::{compare, AllowList, Run};
use harness::frames::Exit;
use harness::run::Dialect;
use serde_json::Value;

use crate::model_api::real;
use crate::support::{mock_std, root};

fn allow_list_of(dialect: &str) -> AllowList {
    let path = root().join(format!("tests/drift/{dialect}.allow"));
    let text = std::fs::read_to_string(&path).expect("reads the allow-list");
    AllowList::parse(&text, &path).expect("a valid allow-list")
}

/// A dialect's drift at the pinned version of its real CLI.
struct Pinned {
    /// `--dialect`.
    dialect: &'static str,
    /// The real CLI (`scripts/real-clis.sh NAME`).
    cli: &'static str,
    /// What the real CLI's `--version` says (each kept cassette's `cli_version`).
    version: &'static str,
    /// A kept cassette of the real run.
    kept: &'static str,
    /// The header's `dialect`, when the recorder writes one.
    header_dialect: Option<&'static str>,
    /// Cases in which real and stand-in agree to the line: types, order, fields, ending.
    agree: &'static [&'static str],
}

const PINNED: &[Pinned] = &[
    Pinned {
        dialect: "claude",
        cli: "claude",
        version: "2.1.331 (Claude Code)",
        kept: "tool-sdk.cassette",
        header_dialect: Some("claude"),
        agree: &[],
    },
    Pinned {
        dialect: "codex",
        cli: "codex",
        version: "codex-cli 0.163.0",
        kept: "tool-sdk.cassette",
        header_dialect: Some("codex"),
        // Outside a Git repository without `--skip-git-repo-check`, and with `-C` to a
        // folder that is not there, both refuse alike whatever the API would answer.
        agree: &[
            "http-401/sdk",
            "http-401/exec",
            "http-429/sdk",
            "http-429/exec",
            "text/no-git",
            "tool/no-git",
            "http-401/no-git",
            "http-429/no-git",
            "stream-cut/no-git",
            "text/no-cd",
            "tool/no-cd",
            "http-401/no-cd",
            "http-429/no-cd",
            "stream-cut/no-cd",
        ],
    },
    Pinned {
        dialect: "codex-app-server",
        cli: "codex",
        version: "codex-cli 0.163.0",
        kept: "approved-sdk.cassette",
        header_dialect: Some("codex-app-server"),
        agree: &["http-401/sdk", "http-429/sdk"],
    },
    Pinned {
        dialect: "gemini",
        cli: "gemini",
        version: "0.61.0",
        kept: "tool-stream.cassette",
        header_dialect: Some("gemini"),
        agree: &["http-401/stream", "http-401/json", "tool/json"],
    },
    Pinned {
        dialect: "gemini-acp",
        cli: "gemini",
        version: "0.61.0",
        kept: "permission-acp.cassette",
        header_dialect: None,
        agree: &["http-401/acp"],
    },
];

fn pinned(dialect: &str) -> &'static Pinned {
    PINNED.iter().find(|p| p.dialect == dialect).expect("a row")
}

/// Runs drift of `row` against its pinned real CLI: exit 0, nothing `NEW`, no stale
/// allow-list entry, the version named, the agreeing cases without a difference, and
/// the real runs kept as cassettes that say which CLI they were recorded from.
fn assert_drift_at_the_pinned_version(row: &Pinned) {
    let Some(cli) = real(row.cli) else {
        return;
    };
    let kept = tempfile::tempdir().unwrap();
    let output = mock_std()
        .args(["drift", "--dialect", row.dialect, "--real"])
        .arg(&cli)
        .arg("--keep")
        .arg(kept.path())
        .output()
        .expect("runs drift");
    let (stdout, stderr) = (
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr),
    );
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}: {stdout}\n{stderr}",
        row.dialect
    );
    assert!(!stdout.contains("NEW"), "{stdout}");
    assert!(
        stdout.is_empty() || stdout.starts_with("CASE "),
        "the table: {stdout}"
    );
    assert!(stderr.contains(", 0 not in the allow-list"), "{stderr}");
    assert!(stderr.contains(&format!("({})", row.version)), "{stderr}");
    assert!(
        !stderr.contains("allows nothing"),
        "a stale allow-list entry: {stderr}"
    );
    for case in row.agree {
        assert!(
            stderr
                .lines()
                .any(|l| l.starts_with(&format!("{case:<20} real: ")) && l.ends_with("; 0 differences")),
            "{case}: {stderr}"
        );
    }
    let cassette = kept.path().join(row.kept);
    let header: Value = serde_json::from_str(
        std::fs::read_to_string(&cassette)
            .expect("the real run's cassette")
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(header["invocation"]["cli_version"], row.version);
    if let Some(dialect) = row.header_dialect {
        assert_eq!(header["invocation"]["dialect"], dialect);
    }
}

#[test]
fn drift_of_claude_code_at_the_pinned_version_is_all_in_the_allow_list() {
    assert_drift_at_the_pinned_version(pinned("claude"));
}

#[test]
fn drift_of_codex_exec_at_the_pinned_version_is_all_in_the_allow_list() {
    assert_drift_at_the_pinned_version(pinned("codex"));
}

#[test]
fn drift_of_codex_app_server_at_the_pinned_version_is_all_in_the_allow_list() {
    assert_drift_at_the_pinned_version(pinned("codex-app-server"));
}

#[test]
fn drift_of_gemini_cli_at_the_pinned_version_is_all_in_the_allow_list() {
    assert_drift_at_the_pinned_version(pinned("gemini"));
}

#[test]
fn drift_of_gemini_acp_at_the_pinned_version_is_all_in_the_allow_list() {
    assert_drift_at_the_pinned_version(pinned("gemini-acp"));
}

/// A stand-in that exits otherwise (`MOCK_AGENT_FAULTS`) on one scenario.
struct Broken {
    dialect: &'static str,
    cli: &'static str,
    scenario: &'static str,
    faults: &'static str,
    /// The ending row: its words.
    row: &'static [&'static str],
}

const BROKEN: &[Broken] = &[
    // The stand-in's result goes, and it exits 3.
    Broken {
        dialect: "claude",
        cli: "claude",
        scenario: "text",
        faults: "exit:code=3,at=result",
        row: &["text/print", "(end)", "exit", "exit", "0", "exit", "3", "NEW"],
    },
    Broken {
        dialect: "codex",
        cli: "codex",
        scenario: "tool",
        faults: "exit:code=3,at=turn.completed",
        row: &["tool/exec", "(end)", "exit", "exit", "0", "exit", "3", "NEW"],
    },
    // The server exits 3 where turn/completed was due: the client never sees the end.
    Broken {
        dialect: "codex-app-server",
        cli: "codex",
        scenario: "http-401",
        faults: "exit:code=3,at=turn/completed",
        row: &["http-401/sdk", "(end)", "exit", "exit", "0", "exit", "3", "NEW"],
    },
    Broken {
        dialect: "gemini",
        cli: "gemini",
        scenario: "http-401",
        faults: "exit:code=3,at=result",
        row: &[
            "http-401/stream",
            "(end)",
            "exit",
            "exit",
            "145",
            "exit",
            "3",
            "NEW",
        ],
    },
];

#[test]
fn a_stand_in_that_changes_an_exit_code_makes_drift_fail() {
    for broken in BROKEN {
        let Some(cli) = real(broken.cli) else {
            return;
        };
        let output = mock_std()
            .args([
                "drift",
                "--dialect",
                broken.dialect,
                "--scenario",
                broken.scenario,
                "--real",
            ])
            .arg(&cli)
            .env("MOCK_AGENT_FAULTS", broken.faults)
            .output()
            .expect("runs drift");
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert_eq!(output.status.code(), Some(1), "{}: {stdout}", broken.dialect);
        let row = stdout
            .lines()
            .find(|l| l.starts_with(broken.row[0]) && l.contains("(end)"))
            .unwrap_or_else(|| panic!("{}: an ending row: {stdout}", broken.dialect));
        let words: Vec<&str> = row.split_whitespace().collect();
        assert_eq!(words, broken.row, "{}", broken.dialect);
    }
}

/// A stand-in's output, and a field renamed in it (as a stand-in change would).
struct Renamed {
    dialect: &'static dyn Dialect,
    /// Its case's name in the comparison.
    case: &'static str,
    /// The stand-in's run.
    run: fn() -> Run,
    /// `(object pointer, old name, new name)`, in every line that has it.
    rename: (&'static str, &'static str, &'static str),
    /// The differences no allow-list entry covers: `KEY real stand-in`.
    new: &'static [&'static str],
}

/// The Claude stand-in on the Python SDK's argv, stream-json both ways.
fn claude_run() -> Run {
    let mut stdin = harness::dialects::claude::play::initialize_request("req_1");
    stdin.push(b'\n');
    stdin.extend(harness::dialects::claude::play::user_message("hi"));
    stdin.push(b'\n');
    let args = [
        "claude",
        "--output-format",
        "stream-json",
        "--verbose",
        "--input-format",
        "stream-json",
    ];
    one_way(&args, &stdin, &[])
}

fn codex_run() -> Run {
    let home = tempfile::tempdir().unwrap();
    let home = home.path().display().to_string();
    one_way(
        &["codex", "exec", "--json", "--skip-git-repo-check", "hi"],
        b"",
        &[("CODEX_HOME", &home)],
    )
}

fn gemini_run() -> Run {
    let home = tempfile::tempdir().unwrap();
    let home = home.path().display().to_string();
    one_way(
        &["gemini", "--skip-trust", "-o", "stream-json", "-p", "hi"],
        b"",
        &[("HOME", &home)],
    )
}

/// `mock-agent ARGS` with `stdin` written and closed, as drift reads it.
fn one_way(args: &[&str], stdin: &[u8], env: &[(&str, &str)]) -> Run {
    let mut child = mock_std()
        .args(args)
        .envs(env.iter().copied())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawns the stand-in");
    std::io::Write::write_all(child.stdin.as_mut().unwrap(), stdin).unwrap();
    drop(child.stdin.take());
    let output = child.wait_with_output().unwrap();
    Run::from_output(
        &output.stdout,
        &output.stderr,
        Some(Exit::from_status(output.status)),
    )
}

/// The stand-in of a conversation (its default session), driven by the drift client
/// of `table`'s first invocation.
fn conversation(table: &dyn mock_agent::drift::Drift, word: &str) -> Run {
    let invocation = &table.invocations()[0];
    let script = invocation.client.as_ref().expect("a conversation");
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = mock_std();
    cmd.arg(word)
        .args(&invocation.argv)
        .env("HOME", dir.path())
        .current_dir(dir.path());
    mock_agent::drift::client::converse(
        cmd,
        script,
        &Default::default(),
        &dir.path().display().to_string(),
    )
    .expect("drives the stand-in")
}

fn codex_app_server_run() -> Run {
    conversation(&mock_agent::dialects::codex::drift::CodexAppServerDrift, "codex")
}

fn gemini_acp_run() -> Run {
    conversation(&mock_agent::dialects::gemini::drift::GeminiAcpDrift, "gemini")
}

const RENAMED: &[Renamed] = &[
    Renamed {
        dialect: harness::dialects::CLAUDE,
        case: "tool/sdk",
        run: claude_run,
        rename: ("", "num_turns", "turns"),
        new: &[
            "tool/sdk result/success num_turns number -",
            "tool/sdk result/success turns - number",
        ],
    },
    Renamed {
        dialect: harness::dialects::CODEX,
        case: "tool/sdk",
        run: codex_run,
        rename: ("/item", "aggregated_output", "output"),
        new: &[
            "tool/sdk item.completed item.aggregated_output string -",
            "tool/sdk item.completed item.output - string",
            "tool/sdk item.started item.aggregated_output string -",
            "tool/sdk item.started item.output - string",
        ],
    },
    Renamed {
        dialect: harness::dialects::CODEX_APP_SERVER,
        case: "approved/sdk",
        run: codex_app_server_run,
        rename: ("/params/turn", "rootTurnId", "root_turn_id"),
        new: &[
            "approved/sdk turn/completed params.turn.rootTurnId string -",
            "approved/sdk turn/completed params.turn.root_turn_id - string",
            "approved/sdk turn/started params.turn.rootTurnId string -",
            "approved/sdk turn/started params.turn.root_turn_id - string",
        ],
    },
    Renamed {
        dialect: harness::dialects::GEMINI,
        case: "tool/stream",
        run: gemini_run,
        rename: ("", "tool_id", "call_id"),
        new: &[
            "tool/stream tool_result call_id - string",
            "tool/stream tool_result tool_id string -",
            "tool/stream tool_use call_id - string",
            "tool/stream tool_use tool_id string -",
        ],
    },
    Renamed {
        dialect: harness::dialects::GEMINI_ACP,
        case: "permission/acp",
        run: gemini_acp_run,
        rename: ("/result", "stopReason", "stop_reason"),
        new: &[
            "permission/acp answer:session/prompt result.stopReason \"end_turn\" -",
            "permission/acp answer:session/prompt result.stop_reason - string",
        ],
    },
];

#[test]
fn a_field_renamed_in_a_stand_in_s_output_is_a_difference_no_entry_allows() {
    for renamed in RENAMED {
        let name = renamed.dialect.name();
        let rules = renamed.dialect.drift_rules();
        let allow = allow_list_of(name);
        let truth = (renamed.run)();
        assert!(!truth.lines.is_empty(), "{name}: the stand-in wrote nothing");
        assert!(
            compare(renamed.case, &truth, &truth.clone(), &rules).is_empty(),
            "{name}"
        );
        let (at, from, to) = renamed.rename;
        let mut doctored = truth.clone();
        for line in &mut doctored.lines {
            if let Some(object) = line.pointer_mut(at).and_then(Value::as_object_mut) {
                if let Some(value) = object.remove(from) {
                    object.insert(to.to_owned(), value);
                }
            }
        }
        let found = compare(renamed.case, &truth, &doctored, &rules);
        let new: Vec<String> = found
            .iter()
            .filter(|d| allow.allowing(d).is_none())
            .map(|d| format!("{} {} {}", d.key(), d.real, d.stand_in))
            .collect();
        assert_eq!(new, renamed.new, "{name}");
    }
}

#[test]
fn every_table_s_scenarios_are_model_api_scenarios_whose_faults_and_answers_parse() {
    let tables: Vec<_> = mock_agent::dialects::ALL
        .iter()
        .flat_map(|cli| cli.drift())
        .collect();
    let names: Vec<&str> = tables.iter().map(|t| t.dialect().name()).collect();
    assert_eq!(
        names,
        ["claude", "codex", "codex-app-server", "gemini", "gemini-acp"]
    );
    for table in tables {
        let dialect = table.dialect();
        let conversation = table.invocations().iter().all(|i| i.client.is_some());
        for scenario in table.scenarios() {
            let at = format!("{} {}", dialect.name(), scenario.name);
            mock_agent::model_api::Scenario::parse(scenario.model_api, std::path::Path::new(scenario.name))
                .unwrap_or_else(|e| panic!("{at}: {e}"));
            let origin = harness::error::Origin {
                name: "MOCK_AGENT_FAULTS",
                help: "",
            };
            dialect
                .check_faults(scenario.stand_in_faults, origin)
                .unwrap_or_else(|e| panic!("{at}: {e}"));
            for (method, answer) in scenario.answers {
                serde_json::from_str::<Value>(answer).unwrap_or_else(|e| panic!("{at}: {method}: {e}"));
            }
            assert!(
                scenario.answers.is_empty() || conversation,
                "{at}: answers for a one-way CLI"
            );
        }
    }
}

#[test]
fn drift_s_own_errors_say_what_to_do() {
    let missing = mock_std()
        .args(["drift", "--dialect", "claude", "--real", "/nonexistent/claude"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&missing.stderr);
    assert_eq!(missing.status.code(), Some(66), "{stderr}");
    assert!(
        stderr.starts_with("mock-agent: /nonexistent/claude: cannot read the real CLI (give its executable;"),
        "{stderr}"
    );
    let none = mock_std()
        .args(["drift", "--dialect", "cursor-acp", "--real", "/bin/sh"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&none.stderr);
    assert_eq!(none.status.code(), Some(64), "{stderr}");
    assert!(stderr.contains("`cursor-acp` has no drift scenarios"), "{stderr}");
    assert!(
        stderr.contains("drift knows: claude, codex, codex-app-server, gemini, gemini-acp"),
        "{stderr}"
    );
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.allow");
    std::fs::write(&bad, "text/sdk (end) exit\n").unwrap();
    let output = mock_std()
        .args(["drift", "--dialect", "claude", "--real", "/bin/sh", "--allow"])
        .arg(&bad)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(64), "{stderr}");
    assert!(
        stderr.starts_with(&format!("mock-agent: {}:1:20:", bad.display())),
        "{stderr}"
    );
    assert!(stderr.contains("does not say why"), "{stderr}");
    for (dialect, names) in [
        ("claude", "text, tool"),
        (
            "codex-app-server",
            "text, approved, declined, cancel, http-401, http-429, interrupted",
        ),
        ("gemini-acp", "text, permission, http-401"),
    ] {
        let unknown = mock_std()
            .args([
                "drift",
                "--dialect",
                dialect,
                "--real",
                "/bin/sh",
                "--scenario",
                "nope",
            ])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&unknown.stderr);
        assert!(
            stderr.contains(&format!(
                "`nope` is not a scenario of {dialect}; use one of {names}"
            )),
            "{stderr}"
        );
    }
}
