//! The emulated CLI's command line: flags in both forms, the prompt from anywhere,
//! subcommands, and the real CLI's errors.

use predicates::prelude::*;

use crate::support::{install_as_cursor_agent, mock};

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
            .stdout(predicate::str::starts_with("auto - Auto (default)\n"));
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
fn every_exit_code_is_documented_in_the_readme() {
    let readme = std::fs::read_to_string(crate::support::root().join("README.md")).expect("README");
    for (code, name, _) in harness::exit_codes::ALL.iter().filter(|(c, _, _)| *c >= 64) {
        assert!(
            readme.contains(&format!("| {code} | `{name}` |")),
            "README's table lacks {code} {name}"
        );
    }
}
