//! The emulated CLI's command line: flags in both forms, the prompt from anywhere,
//! subcommands, and the real CLI's errors.

use std::process::Output;

use predicates::prelude::*;

use crate::support::{install_as_cursor_agent, mock, transcript};

const SEED: &str = include_str!("../cassettes/seed-example.ndjson");

fn user_line(prompt: &str) -> String {
    let line = SEED.lines().nth(1).expect("user line");
    let seed_prompt = "Read README.md and create a summary";
    line.replace(
        seed_prompt,
        serde_json::to_string(prompt).expect("json").trim_matches('"'),
    )
}

#[test]
fn the_main_job_prints_the_seed_example() {
    mock()
        .args(["-p", "Read README.md and create a summary"])
        .assert()
        .success()
        .stdout(SEED)
        .stderr("");
}

#[test]
fn installed_as_cursor_agent_or_agent_it_is_the_cli() {
    let dir = install_as_cursor_agent();
    for name in ["cursor-agent", "agent"] {
        let out = std::process::Command::new(dir.path().join(name))
            .args(["-p", "--output-format", "json", "hi"])
            .output()
            .expect("runs");
        assert_eq!(out.status.code(), Some(0), "{name}");
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            format!("{}\n", SEED.lines().last().unwrap_or_default())
        );
    }
    mock()
        .args(["agent", "--version"])
        .assert()
        .success()
        .stdout("2026.10.01-e373342\n");
}

#[test]
fn the_prompt_comes_from_anywhere_in_argv_after_dashes_or_stdin() {
    let cases: &[(&[&str], Option<&str>, &str)] = &[
        (
            &["fix", "-p", "the", "--model", "gpt-5", "bug"],
            None,
            "fix the bug",
        ),
        (
            &["-p", "--model=gpt-5", "--", "--yolo", "is", "a", "flag"],
            None,
            "--yolo is a flag",
        ),
        (&["-p"], Some("from stdin\n"), "from stdin"),
        (
            &["-p", "--output-format", "stream-json"],
            Some("multi\nline\n"),
            "multi\nline",
        ),
    ];
    for (args, stdin, prompt) in cases {
        let out = mock()
            .args(*args)
            .write_stdin(stdin.unwrap_or_default())
            .output()
            .expect("runs");
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        let second = String::from_utf8_lossy(&out.stdout)
            .lines()
            .nth(1)
            .unwrap_or_default()
            .to_owned();
        assert_eq!(second, user_line(prompt), "{args:?}");
    }
}

#[test]
fn every_documented_flag_is_accepted_in_both_forms() {
    let flags = [
        ("--model", "gpt-5"),
        ("--mode", "plan"),
        ("--workspace", "/tmp"),
        ("--api-key", "key"),
        ("--sandbox", "disabled"),
        ("--add-dir", "/tmp"),
        ("--endpoint", "https://example.invalid"),
        ("--header", "X-A: b"),
        ("--output-format", "text"),
        ("--resume", "chat-1"),
    ];
    for (flag, value) in flags {
        mock().args(["-p", flag, value, "hi"]).assert().success();
        mock()
            .args(["-p", &format!("{flag}={value}"), "hi"])
            .assert()
            .success();
    }
    mock()
        .args([
            "-p",
            "-f",
            "--force",
            "--yolo",
            "--trust",
            "--plan",
            "--continue",
            "--approve-mcps",
            "--show-thinking",
            "--stream-partial-output",
            "-e",
            "https://x.invalid",
            "-H",
            "A: b",
            "hi",
        ])
        .assert()
        .success();
    mock().args(["-pf", "hi"]).assert().success();
}

#[test]
fn an_unknown_option_fails_before_anything_is_printed() {
    mock()
        .args(["-p", "--formatt", "json", "hi"])
        .assert()
        .code(1)
        .stdout("")
        .stderr("error: unknown option '--formatt'\n");
    mock()
        .args(["-p", "--output-format", "xml", "hi"])
        .assert()
        .code(1)
        .stdout("")
        .stderr("error: option '--output-format <format>' argument 'xml' is invalid. Allowed choices are text, json, stream-json.\n");
    mock()
        .args(["-p", "hi", "--model"])
        .assert()
        .code(1)
        .stdout("")
        .stderr("error: option '--model <model>' argument missing\n");
}

#[test]
fn subcommands_answer_as_the_cli_does() {
    let out = mock().arg("create-chat").output().expect("runs");
    let id = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success());
    let id = id.strip_suffix('\n').expect("one line");
    assert!(uuid_like(id), "{id:?}");
    let other = mock().arg("create-chat").output().expect("runs");
    assert_ne!(out.stdout, other.stdout, "a fresh id each time");

    mock()
        .arg("status")
        .assert()
        .success()
        .stdout("✓ Logged in as someone@example.com\n");
    mock()
        .arg("whoami")
        .env("MOCK_AGENT_ACCOUNT", "dev@example.org")
        .assert()
        .success()
        .stdout("✓ Logged in as dev@example.org\n");
    mock()
        .arg("status")
        .env("MOCK_AGENT_ACCOUNT", "")
        .assert()
        .code(1)
        .stdout("Not logged in\n");
    for args in [&["models"][..], &["--list-models"]] {
        mock()
            .args(args)
            .assert()
            .success()
            .stdout(predicate::str::starts_with(
                "Available models\n\nauto - Auto  (current)\n",
            ));
    }
    for flag in ["-v", "--version"] {
        mock().arg(flag).assert().success().stdout("2026.10.01-e373342\n");
    }
    mock()
        .arg("--version")
        .env("MOCK_AGENT_CLI_VERSION", "2026.01.15-abc1234")
        .assert()
        .success()
        .stdout("2026.01.15-abc1234\n");
    mock()
        .arg("login")
        .assert()
        .code(64)
        .stdout("")
        .stderr(predicate::str::starts_with(
            "mock-agent: `cursor-agent login` is not emulated",
        ));
    mock()
        .args(["agent", "--help"])
        .assert()
        .success()
        .stdout(predicate::str::contains("--output-format <format>"));
}

fn uuid_like(id: &str) -> bool {
    let groups: Vec<usize> = id.split('-').map(str::len).collect();
    groups == [8, 4, 4, 4, 12] && id.chars().all(|c| c == '-' || c.is_ascii_hexdigit())
}

#[test]
fn resume_makes_every_session_id_the_given_one() {
    let out = mock()
        .args(["-p", "--resume", "0000-resumed", "hi"])
        .output()
        .expect("runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(stdout.lines().count(), SEED.lines().count());
    for line in stdout.lines() {
        let event: serde_json::Value = serde_json::from_str(line).expect("json");
        assert_eq!(event["session_id"], "0000-resumed", "{line}");
    }
    // Without an id, the recorded session goes on.
    let out = mock()
        .args(["-p", "--resume", "--", "hi"])
        .output()
        .expect("runs");
    assert!(String::from_utf8_lossy(&out.stdout).contains("c6b62c6f-7ead-4fd6-9922-e952131177ff"));
}

#[test]
fn the_mock_s_own_usage_errors_say_mock_agent() {
    mock()
        .arg("replay")
        .assert()
        .code(64)
        .stdout("")
        .stderr(predicate::str::starts_with("mock-agent: "));
    mock()
        .args([
            "replay",
            "cassettes/seed-example.ndjson",
            "--output-format",
            "yaml",
        ])
        .assert()
        .code(64)
        .stderr(predicate::str::starts_with("mock-agent: invalid value 'yaml'"));
    mock()
        .arg("help")
        .assert()
        .success()
        .stdout(predicate::str::contains("replay"));
}

#[test]
fn every_exit_code_is_documented_in_the_guide() {
    let table = std::fs::read_to_string(crate::support::root().join("docs/exit-codes.md"))
        .expect("docs/exit-codes.md");
    for (code, name, _) in harness::exit_codes::ALL.iter().filter(|(c, _, _)| *c >= 64) {
        assert!(
            table.contains(&format!("| {code} | `{name}` |")),
            "docs/exit-codes.md's table lacks {code} {name}"
        );
    }
}

/// `cursor-agent ARGS` through a link named so, with a journal, in the workspace root.
fn cursor_agent(dir: &tempfile::TempDir, journal: &std::path::Path, args: &[&str]) -> Output {
    let mut cmd = std::process::Command::new(dir.path().join("cursor-agent"));
    cmd.current_dir(crate::support::root());
    harness::run::child::without_mock_env(&mut cmd);
    cmd.env("MOCK_AGENT_JOURNAL", journal)
        .args(args)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("runs")
}

#[test]
fn agent_is_the_default_command_with_options_before_and_after_it() {
    let dir = install_as_cursor_agent();
    let journal = dir.path().join("journal.jsonl");
    let json_result = format!("{}\n", SEED.lines().last().unwrap_or_default());
    let cases: &[(&[&str], &str)] = &[
        (&["agent", "-p", "hi"], "hi"),
        (
            &[
                "--resume",
                "X",
                "--model",
                "auto",
                "agent",
                "--print",
                "--output-format",
                "json",
                "fix the bug",
            ],
            "fix the bug",
        ),
        // After `agent`, every word is the prompt, subcommand names too.
        (&["agent", "-p", "status"], "status"),
        (&["-p", "agent", "agent"], "agent"),
        (&["-p", "--", "agent", "acp"], "acp"),
    ];
    for (args, prompt) in cases {
        let out = cursor_agent(&dir, &journal, args);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", transcript(&out));
        assert_eq!(String::from_utf8_lossy(&out.stderr), "", "{args:?}");
        let stdout = String::from_utf8_lossy(&out.stdout);
        if args.contains(&"json") {
            // The resumed run keeps the given session id.
            assert_eq!(
                stdout,
                json_result.replace("c6b62c6f-7ead-4fd6-9922-e952131177ff", "X")
            );
        } else {
            let expected: Vec<String> = SEED
                .lines()
                .enumerate()
                .map(|(n, line)| {
                    if n == 1 {
                        user_line(prompt)
                    } else {
                        line.to_owned()
                    }
                })
                .collect();
            assert_eq!(stdout.lines().collect::<Vec<_>>(), expected, "{args:?}");
        }
    }
    let entries = harness::journal::read(&journal).expect("journal");
    let prompts: Vec<Option<&str>> = entries.iter().map(|e| e.prompt.as_deref()).collect();
    let expected: Vec<Option<&str>> = cases.iter().map(|(_, p)| Some(*p)).collect();
    assert_eq!(prompts, expected);
    assert_eq!(entries[1].output_format, Some(harness::OutputFormat::Json));
}

#[test]
fn acp_serves_the_agent_client_protocol_with_global_flags_before_it() {
    let initialize = r#"{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":1}}"#;
    for args in [
        &["acp"][..],
        &["--api-key", "K", "acp"],
        &["-p", "acp"],
        &["--model", "gpt-5", "--workspace", "/tmp", "acp"],
    ] {
        let output = mock()
            .args(args)
            .write_stdin(format!("{initialize}\n"))
            .output()
            .expect("runs");
        assert_eq!(output.status.code(), Some(0), "{args:?}");
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            stdout.starts_with(r#"{"jsonrpc":"2.0","id":7,"result":{"protocolVersion":1,"#),
            "{args:?}: {stdout}"
        );
        assert_eq!(stdout.lines().count(), 1, "nothing but ACP on stdout: {stdout}");
    }
}

#[test]
fn format_belongs_to_status_whoami_and_about_only() {
    for args in [
        &["-p", "--format", "json", "hi"][..],
        &["--format=json", "models"],
        &["--format"],
    ] {
        let spelled = args.iter().find(|a| a.starts_with("--format")).copied();
        mock().args(args).assert().code(1).stdout("").stderr(format!(
            "error: unknown option '{}'\n",
            spelled.unwrap_or_default()
        ));
    }
    mock()
        .args(["status", "--format", "yaml"])
        .assert()
        .code(1)
        .stdout("")
        .stderr(
            "error: option '--format <format>' argument 'yaml' is invalid. Allowed choices are text, json.\n",
        );
    mock().args(["--format", "json", "whoami"]).assert().success();
}

/// One snapshot in `snapshots/cli/` of `cursor-agent ARGS` (a link to the binary),
/// with a fixed shell and terminal and the machine's OS and architecture redacted.
fn snapshot(name: &str, args: &[&str], account: Option<&str>) {
    let dir = install_as_cursor_agent();
    let mut cmd = std::process::Command::new(dir.path().join("cursor-agent"));
    harness::run::child::without_mock_env(&mut cmd);
    cmd.args(args)
        .env("SHELL", "/bin/bash")
        .env_remove("TERM_PROGRAM");
    if let Some(account) = account {
        cmd.env("MOCK_AGENT_ACCOUNT", account);
    }
    let output = cmd.output().expect("runs");
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path("snapshots/cli");
    settings.set_prepend_module_to_snapshot(false);
    let account = account.map_or(String::new(), |a| format!("MOCK_AGENT_ACCOUNT={a:?} "));
    settings.set_info(&format!("{account}cursor-agent {}", args.join(" ")));
    settings.add_filter(r"(?m)^OS( +)\S+ \(\S+\)$", "OS$1[platform] ([arch])");
    settings.add_filter(
        r#""osPlatform":"[^"]*","osArch":"[^"]*""#,
        r#""osPlatform":"[platform]","osArch":"[arch]""#,
    );
    settings.bind(|| insta::assert_snapshot!(name, transcript(&output)));
}

#[test]
fn models_status_and_about_print_what_the_real_cli_prints() {
    snapshot("models", &["models"], None);
    snapshot(
        "list-models-current-gpt-5",
        &["--list-models", "--model", "gpt-5"],
        None,
    );
    snapshot(
        "models-unknown-model-marks-auto",
        &["models", "--model", "gpt-9"],
        None,
    );
    snapshot("status-json", &["status", "--format", "json"], None);
    snapshot("whoami-json-logged-out", &["whoami", "--format=json"], Some(""));
    snapshot("status-text-logged-out", &["status"], Some(""));
    snapshot("about", &["about"], None);
    snapshot(
        "about-logged-out-sonnet",
        &["--model", "sonnet-4.5", "about"],
        Some(""),
    );
    snapshot("about-json", &["about", "--format", "json"], None);
    snapshot("about-json-logged-out", &["about", "--format", "json"], Some(""));
}

#[test]
fn about_names_the_machine_as_node_does() {
    let out = mock()
        .args(["about", "--format", "json"])
        .env("TERM_PROGRAM", "iTerm.app")
        .env("SHELL", "/usr/local/bin/zsh")
        .output()
        .expect("runs");
    let about: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    let platform = about["osPlatform"].as_str().unwrap_or_default();
    let arch = about["osArch"].as_str().unwrap_or_default();
    assert!(
        ["linux", "darwin", "win32", "freebsd"].contains(&platform),
        "{about}"
    );
    assert!(["x64", "arm64", "ia32"].contains(&arch), "{about}");
    let text = mock()
        .arg("about")
        .env("TERM_PROGRAM", "iTerm.app")
        .env("SHELL", "/usr/local/bin/zsh")
        .output()
        .expect("runs");
    let text = String::from_utf8_lossy(&text.stdout).into_owned();
    assert!(
        text.contains(&format!("\nOS                  {platform} ({arch})\n")),
        "{text}"
    );
    assert!(text.contains("\nTerminal            iTerm.app\n"), "{text}");
    assert!(text.contains("\nShell               zsh\n"), "{text}");
}

/// The process does itself what std's start-up would (its entry point is C's `main`):
/// closed standard descriptors are opened on `/dev/null`, so neither the cassette nor
/// the journal it opens becomes its stdout, and SIGPIPE is ignored.
#[test]
fn started_with_standard_descriptors_closed_it_writes_into_no_file_it_opened() {
    let dir = tempfile::tempdir().expect("temp dir");
    let cassette = dir.path().join("seed.ndjson");
    std::fs::write(&cassette, SEED).expect("writes the cassette");
    let journal = dir.path().join("journal.ndjson");
    let status = std::process::Command::new("sh")
        .args(["-c", r#"exec "$0" -p hi <&- >&- 2>&-"#])
        .arg(crate::support::bin())
        .env("MOCK_AGENT_CASSETTE", &cassette)
        .env("MOCK_AGENT_JOURNAL", &journal)
        .status()
        .expect("runs");
    assert_eq!(status.code(), Some(0), "{status}");
    assert_eq!(std::fs::read_to_string(&cassette).expect("reads"), SEED);
    let journal = std::fs::read_to_string(&journal).expect("a journal");
    let entries: Vec<serde_json::Value> = journal
        .lines()
        .map(|line| serde_json::from_str(line).expect("journal lines are JSON"))
        .collect();
    assert_eq!(entries.len(), 1, "one entry and nothing else:\n{journal}");
    assert!(entries[0].get("argv").is_some(), "{journal}");
}

#[test]
fn a_reader_gone_before_the_start_ends_it_quietly_not_by_sigpipe() {
    let (reader, writer) = std::io::pipe().expect("a pipe");
    drop(reader);
    let output = std::process::Command::new(crate::support::bin())
        .args(["-p", "hi"])
        .stdout(writer)
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(0), "{}", transcript(&output));
    assert_eq!(String::from_utf8_lossy(&output.stderr), "");
}
