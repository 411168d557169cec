//! How a case's settings reach the mock when its consumer passes the agent an
//! allow-listed environment (`bin/.mock-agent.env` beside the mock), and a case whose
//! agent never ran, or never got its settings, reported as not run: no verdict.

use std::process::Output;

use crate::support::mock;

/// `mock-agent test ARGS`, run in a temporary directory, off CI.
fn test(args: &[&str]) -> (Output, String) {
    let mut cmd = mock();
    for name in ["CI", "INSTA_UPDATE", "INSTA_FORCE_PASS"] {
        cmd.env_remove(name);
    }
    let output = cmd.arg("test").args(args).output().expect("runs");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    (output, stdout)
}

#[test]
fn the_settings_file_beside_the_path_run_is_read_and_the_environment_wins() {
    let dir = tempfile::tempdir().expect("temp dir");
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).expect("mkdir");
    std::os::unix::fs::symlink(crate::support::bin(), bin.join("claude")).expect("symlink");
    let journal = dir.path().join("journal.jsonl");
    let started = dir.path().join("started.jsonl");
    std::fs::write(
        bin.join(".mock-agent.env"),
        format!(
            "# a comment\nMOCK_AGENT_JOURNAL={}\nMOCK_AGENT_STARTED={}\nMOCK_AGENT_FAULTS=exit:code=3\nMOCK_AGENT_CLI_VERSION=from-file\n",
            journal.display(),
            started.display()
        ),
    )
    .expect("writes");
    // Found by PATH, with nothing of the mock's in the environment: the file's faults act.
    let path = format!("{}:/usr/bin:/bin", bin.display());
    let run = |env: &[(&str, &str)]| {
        let mut cmd = std::process::Command::new("env");
        cmd.args(["-i", &format!("PATH={path}")]);
        for (name, value) in env {
            cmd.arg(format!("{name}={value}"));
        }
        cmd.args(["claude", "-p", "hi"])
            .stdin(std::process::Stdio::null())
            .output()
            .expect("runs")
    };
    assert_eq!(run(&[]).status.code(), Some(3), "the file's fault acted");
    // A variable of the environment wins over the file's line.
    assert_eq!(
        run(&[("MOCK_AGENT_FAULTS", "exit:code=4")]).status.code(),
        Some(4)
    );
    let entries = harness::journal::read(&journal).expect("the file's journal");
    assert_eq!(entries.len(), 2);
    let from = |entry: &harness::journal::Entry, name: &str| {
        let setting = entry.settings.iter().find(|s| s.name == name).expect(name);
        (setting.value.clone(), format!("{:?}", setting.from))
    };
    assert_eq!(
        from(&entries[0], "MOCK_AGENT_FAULTS"),
        ("exit:code=3".into(), "File".into())
    );
    assert_eq!(
        from(&entries[1], "MOCK_AGENT_FAULTS"),
        ("exit:code=4".into(), "Env".into())
    );
    assert_eq!(
        from(&entries[1], "MOCK_AGENT_CLI_VERSION"),
        ("from-file".into(), "File".into())
    );
    let file = bin.join(".mock-agent.env");
    assert_eq!(entries[0].settings_file.as_deref(), file.to_str());
    // Each start is recorded as well, with the same settings.
    let starts = harness::journal::settings::read_starts(&started);
    assert_eq!(starts.len(), 2);
    assert_eq!(starts[1].settings, entries[1].settings);
    // Run by the binary's own path, the file beside the link is not read.
    let direct = std::process::Command::new("env")
        .args(["-i", "PATH=/usr/bin:/bin"])
        .arg(crate::support::bin())
        .args(["claude", "-p", "hi"])
        .stdin(std::process::Stdio::null())
        .output()
        .expect("runs");
    assert_eq!(
        direct.status.code(),
        Some(0),
        "no fault: the file is beside the link only"
    );
    assert_eq!(harness::journal::read(&journal).expect("reads").len(), 2);
}

#[test]
fn a_consumer_that_passes_an_allow_listed_environment_still_gets_its_cases_faults() {
    // `claude -p` ends as the agent does: exit 1 when a fault ends it. Without the case's
    // faults the mock would play a clean session and every case would fail.
    for (dialect, command, faults) in [
        (
            "claude",
            "env -i PATH=\"$PATH\" HOME=\"$HOME\" claude -p hi",
            "exit:code=1",
        ),
        (
            "cursor-print",
            "env -i PATH=\"$PATH\" HOME=\"$HOME\" cursor-agent -p hi --output-format stream-json",
            "exit:code=1",
        ),
    ] {
        let (output, stdout) = test(&[
            "--dialect",
            dialect,
            "--consumer",
            command,
            "--fault",
            faults,
            "--timeout",
            "20",
        ]);
        assert_eq!(output.status.code(), Some(0), "{dialect}:\n{stdout}");
        assert!(stdout.contains("1 passed, 0 failed;"), "{dialect}:\n{stdout}");
        assert!(!stdout.contains("not run"), "{dialect}:\n{stdout}");
    }
}

#[test]
fn a_consumer_that_never_runs_the_agent_is_not_run_with_no_verdict() {
    let dir = tempfile::tempdir().expect("temp dir");
    let junit = dir.path().join("junit.xml");
    let (output, stdout) = test(&[
        "--dialect",
        "claude",
        "--consumer",
        "echo done",
        "--filter",
        "default/clean",
        "--junit",
        junit.to_str().expect("utf-8"),
    ]);
    assert_eq!(
        output.status.code(),
        Some(harness::exit_codes::CASES_NOT_RUN),
        "{stdout}"
    );
    assert_ne!(
        harness::exit_codes::CASES_NOT_RUN,
        harness::exit_codes::CASES_FAILED
    );
    for needle in [
        "not run (no verdict: the mock was not part of the case as the case set it):\n",
        "  default/clean                                  the Claude Code program never ran the agent\n",
        "  help: if the program got as far as starting Claude Code, it did not run `claude` from PATH: a Python SDK program runs the CLI bundled in its wheel first",
        "`ClaudeAgentOptions(cli_path=...)`",
        "1 case: 0 passed, 0 failed, 1 not run;",
    ] {
        assert!(stdout.contains(needle), "{needle:?} in:\n{stdout}");
    }
    assert!(!stdout.contains("broken properties"), "no verdict:\n{stdout}");
    assert!(!stdout.contains("by cause"), "no verdict:\n{stdout}");
    let xml = std::fs::read_to_string(&junit).expect("the JUnit report");
    assert!(
        xml.contains("failures=\"0\" errors=\"1\"")
            && xml.contains(
                "<error type=\"not-run\" message=\"not run: the Claude Code program never ran the agent\">"
            ),
        "{xml}"
    );
    // The default dialect's hint names its program.
    let (output, stdout) = test(&["--consumer", "true", "--filter", "default/clean"]);
    assert_eq!(output.status.code(), Some(harness::exit_codes::CASES_NOT_RUN));
    assert!(
        stdout.contains("help: the consumer never ran `cursor-agent` from PATH"),
        "{stdout}"
    );
}

#[test]
fn an_agent_that_got_other_settings_than_the_cases_is_not_run() {
    // The consumer sets the faults itself: the agent plays another case.
    let (output, stdout) = test(&[
        "--dialect",
        "claude",
        "--consumer",
        "MOCK_AGENT_FAULTS=exit:code=2 claude -p hi",
        "--fault",
        "exit:code=1",
    ]);
    assert_eq!(
        output.status.code(),
        Some(harness::exit_codes::CASES_NOT_RUN),
        "{stdout}"
    );
    for needle in [
        "  default/given                                  the agent got other settings than the case's: MOCK_AGENT_FAULTS was `exit:code=2` (from the environment), the case's is `exit:code=1`\n",
        "  help: the mock reads its settings from its environment, else from `.mock-agent.env` beside the path it was run by",
        "1 case: 0 passed, 0 failed, 1 not run;",
    ] {
        assert!(stdout.contains(needle), "{needle:?} in:\n{stdout}");
    }
    // An empty variable shadows the file: the agent played no fault at all.
    let (output, stdout) = test(&[
        "--dialect",
        "claude",
        "--consumer",
        "MOCK_AGENT_FAULTS= claude -p hi",
        "--fault",
        "exit:code=1",
    ]);
    assert_eq!(output.status.code(), Some(harness::exit_codes::CASES_NOT_RUN));
    assert!(
        stdout.contains("MOCK_AGENT_FAULTS was unset, the case's is `exit:code=1`"),
        "{stdout}"
    );
}

#[test]
fn an_agent_killed_before_its_end_still_ran() {
    // SIGKILL leaves no journal entry; the start record says the agent ran, with the
    // case's settings, so the case is judged.
    let (output, stdout) = test(&[
        "--dialect",
        "claude",
        "--consumer",
        "claude -p hi & p=$!; while [ ! -s \"$MOCK_AGENT_STARTED\" ]; do sleep 0.01; done; kill -9 $p; wait $p; echo killed >&2; exit 1",
        "--fault",
        "stall:at=result",
        "--timeout",
        "20",
    ]);
    assert!(!stdout.contains("not run"), "{stdout}");
    assert_eq!(output.status.code(), Some(0), "{stdout}");
}
