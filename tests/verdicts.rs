//! Verdicts that must say what happened: a program whose command line the agent's
//! CLI refused is told so (the CLI's words, `valid-arguments`), not judged as if the
//! agent had played the case; `no-leftover` names the processes left; each case's
//! repro line has a folder of its own; a case where either conclusion is right says
//! so; a `PostToolUse` hook is called as the real Claude Code calls it.

use std::process::Output;

use crate::support::{bin, mock_std};

/// The mock run as `word ARGS` with a journal: its output and the journal's entry.
fn refused(word: &str, args: &[&str]) -> (Output, harness::journal::Entry) {
    let dir = tempfile::tempdir().expect("temp dir");
    let journal = dir.path().join("journal.jsonl");
    let mut cmd = std::process::Command::new(bin());
    harness::run::child::without_mock_env(&mut cmd);
    let output = cmd
        .arg(word)
        .args(args)
        .current_dir(dir.path())
        .env("MOCK_AGENT_JOURNAL", &journal)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("runs");
    let mut entries = harness::journal::read(&journal).expect("a journal");
    assert_eq!(entries.len(), 1, "{word} {args:?}");
    (output, entries.remove(0))
}

/// Each CLI that can refuse a command line journals what it said, as it said it on
/// stderr, and that it played nothing.
#[test]
fn each_cli_journals_the_command_line_it_refused() {
    for (word, args, code) in [
        ("codex", &["exec", "--json", "--full-auto", "hi"][..], 2),
        ("codex", &["app-server", "--bogus"][..], 2),
        ("claude", &["-p", "hi", "--bogus"][..], 1),
        ("gemini", &["-p", "hi", "--bogus"][..], 1),
        ("agent", &["-p", "hi", "--bogus"][..], 1),
    ] {
        let (output, entry) = refused(word, args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(code), "{word} {args:?}: {stderr}");
        assert_eq!(
            entry.rejected.as_deref().map(str::trim_end),
            Some(stderr.trim_end()),
            "{word} {args:?}"
        );
        assert_eq!(entry.source, None, "{word} {args:?}");
        // A command line it takes is no refusal.
        let (_, entry) = refused(word, &["--version"]);
        assert_eq!(entry.rejected, None, "{word} --version");
    }
}

/// `mock-agent test` on a program that passes a flag the CLI refuses: every case
/// breaks `valid-arguments` with the CLI's words; none is judged as the agent's
/// success, and a case that writes an unknown line does not blame the program for it.
#[test]
fn a_program_whose_arguments_the_agent_refuses_is_told_so() {
    for (dialect, consumer, said) in [
        (
            "codex",
            "echo hi | codex exec --json --full-auto",
            "error: unexpected argument '--full-auto' found",
        ),
        (
            "claude",
            "claude -p hi --bogus",
            "error: unknown option '--bogus'",
        ),
        ("gemini", "gemini -p hi --bogus", "Unknown argument: bogus"),
    ] {
        let output = mock_std()
            .args(["test", "--dialect", dialect, "--consumer", consumer])
            .output()
            .expect("runs");
        let report =
            String::from_utf8_lossy(&output.stdout).into_owned() + &String::from_utf8_lossy(&output.stderr);
        assert_eq!(
            output.status.code(),
            Some(harness::exit_codes::CASES_FAILED),
            "{dialect}: {report}"
        );
        assert!(
            report.contains("the agent refused the program's arguments") && report.contains(said),
            "{dialect}: {report}"
        );
        for wrong in ["the agent succeeded", "breaks ignores-unknown", "breaks reports-"] {
            assert!(!report.contains(wrong), "{dialect}: `{wrong}` in {report}");
        }
    }
}

/// `mock-agent test ARGS` off CI, in a temporary directory of its own (`TMPDIR`, where
/// the repro lines' folders are made): its stdout and stderr, and its exit code.
fn test_in(tmp: &std::path::Path, args: &[&str]) -> (String, Option<i32>) {
    let output = mock_std()
        .arg("test")
        .args(args)
        .env("TMPDIR", tmp)
        .env_remove("CI")
        .env_remove("INSTA_UPDATE")
        .env_remove("INSTA_FORCE_PASS")
        .output()
        .expect("runs");
    let report =
        String::from_utf8_lossy(&output.stdout).into_owned() + &String::from_utf8_lossy(&output.stderr);
    (report, output.status.code())
}

/// `mock-agent test --dialect DIALECT --fault FAULT --consumer CONSUMER` in `tmp`, as
/// [`test_in`].
fn test_fault(tmp: &std::path::Path, dialect: &str, fault: &str, consumer: &str) -> (String, Option<i32>) {
    test_in(
        tmp,
        &["--dialect", dialect, "--fault", fault, "--consumer", consumer],
    )
}

/// What the report's `no-leftover` verdict says: its line without the name.
fn no_leftover(report: &str) -> &str {
    report
        .lines()
        .find_map(|l| l.trim().strip_prefix("no-leftover: "))
        .unwrap_or_else(|| panic!("a no-leftover verdict in:\n{report}"))
}

/// Whether process `pid` still runs (not a zombie) after a SIGKILL had up to 2 s to
/// act (it is delivered, and the process torn down, after `kill` returns).
fn runs(pid: u32) -> bool {
    let running = || {
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .ok()
            .and_then(|stat| Some(stat.rsplit_once(')')?.1.split_whitespace().next()? != "Z"))
            .unwrap_or(false)
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(2);
    while running() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    running()
}

/// A program that leaves processes running in its group is told which: their ids,
/// command lines and, where known, who started them; they were killed.
#[test]
fn no_leftover_names_each_process_left_running() {
    let tmp = tempfile::tempdir().expect("temp dir");
    // The subshell outlives the program and starts the sleep.
    let (report, code) = test_fault(
        tmp.path(),
        "claude",
        "exit:code=1",
        "claude -p hi > /dev/null; s=$?; (sleep 37.25; true) & exit $s",
    );
    assert_eq!(code, Some(harness::exit_codes::CASES_FAILED), "{report}");
    let said = no_leftover(&report);
    assert!(
        said.starts_with("left 2 processes running after it ended: "),
        "{said}"
    );
    assert!(said.ends_with("; they were killed"), "{said}");
    // `PID `sleep 37.25` (started by PPID sh -c ...)`: the subshell started it.
    let sleep = said
        .split("; ")
        .find(|p| p.contains("`sleep 37.25`"))
        .unwrap_or_else(|| panic!("the sleep named: {said}"));
    let pid: u32 = sleep
        .trim_start_matches("left 2 processes running after it ended: ")
        .split(' ')
        .next()
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("its pid: {sleep}"));
    let parent = sleep
        .split_once("(started by ")
        .map(|(_, p)| p.trim_end_matches(')'))
        .unwrap_or_else(|| panic!("who started it: {sleep}"));
    let (ppid, command) = parent.split_once(' ').expect("pid and command line");
    assert!(ppid.parse::<u32>().is_ok(), "{parent}");
    assert!(
        command.starts_with("sh -c claude -p hi"),
        "the subshell: {parent}"
    );
    assert!(
        said.contains(&format!("{ppid} `sh -c claude -p hi")),
        "the subshell named too: {said}"
    );
    assert!(!runs(pid), "the sleep {pid} was killed");
    // The cause, shared by the cases that leave processes, names none.
    assert!(
        report.contains("  1 case breaks no-leftover: left 2 processes running after it ended: ...; ...; they were killed: default/given\n"),
        "{report}"
    );
}

/// An agent started in a session of its own and left running is named with who started
/// it, as its start record says (its parent has ended by then).
#[test]
fn no_leftover_names_the_agent_left_outside_the_group_and_who_started_it() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let (report, code) = test_fault(
        tmp.path(),
        "claude",
        "stall:at=result",
        "setsid claude -p left-behind > /dev/null 2>&1 < /dev/null & \
             while [ ! -s \"$MOCK_AGENT_STARTED\" ]; do sleep 0.01; done; exit 1",
    );
    assert_eq!(code, Some(harness::exit_codes::CASES_FAILED), "{report}");
    let said = no_leftover(&report);
    // `left the agent running after it ended (process PID `claude -p left-behind`
    // (started by PPID sh -c setsid claude ...)), outside its own process group: ...`
    let which = said
        .strip_prefix("left the agent running after it ended (process ")
        .unwrap_or_else(|| panic!("{said}"));
    let (pid, rest) = which.split_once(' ').expect("a pid first");
    let pid: u32 = pid.parse().unwrap_or_else(|_| panic!("{said}"));
    assert!(rest.starts_with("`claude -p left-behind` (started by "), "{said}");
    assert!(
        rest.contains(" sh -c setsid claude -p left-behind"),
        "its parent, the shell: {said}"
    );
    assert!(said.ends_with("; it was killed"), "{said}");
    assert!(!runs(pid), "the agent {pid} was killed");
}

/// The repro lines of two failing cases: short, each with a folder of its own named by
/// its case, and run at once each plays its own case.
#[test]
fn each_case_s_repro_line_has_a_folder_of_its_own() {
    let tmp = tempfile::tempdir().expect("temp dir");
    // The consumer exits 0 whatever the agent did, so that each case fails, and
    // prints the faults the settings file beside its agent holds (after a moment, so
    // that two lines run at once overlap).
    let (report, code) = test_in(
        tmp.path(),
        &[
            "--dialect",
            "claude",
            "--filter",
            "default/not-logged-in",
            "--filter",
            "default/exit-1@result",
            "--jobs",
            "1",
            "--consumer",
            "sleep 0.5; claude -p hi > /dev/null; grep FAULTS \"$(dirname \"$(command -v claude)\")/.mock-agent.env\"",
        ],
    );
    assert_eq!(code, Some(harness::exit_codes::CASES_FAILED), "{report}");
    let repros: Vec<&str> = report
        .lines()
        .filter_map(|l| l.strip_prefix("    repro: "))
        .collect();
    assert_eq!(repros.len(), 2, "{report}");
    let root = tmp.path().join("mock-agent-repro");
    let mut folders = Vec::new();
    for repro in &repros {
        assert!(repro.len() < 400 + root.as_os_str().len(), "short: {repro}");
        let folder = repro
            .strip_prefix("(d=")
            .and_then(|r| r.split_once(" && "))
            .map(|(d, _)| d)
            .unwrap_or_else(|| panic!("the folder first: {repro}"));
        assert!(folder.starts_with(&root.display().to_string()), "{folder}");
        folders.push(folder.to_owned());
    }
    assert_ne!(folders[0], folders[1], "{repros:?}");
    assert!(
        folders.iter().any(|f| f.ends_with("/default-not-logged-in")),
        "{folders:?}"
    );
    assert!(
        folders.iter().any(|f| f.ends_with("/default-exit-1@result")),
        "{folders:?}"
    );
    // Both at once, as they are printed: each agent got its own case's fault.
    let spawn = |repro: &str| {
        let mut shell = std::process::Command::new("sh");
        harness::run::child::without_mock_env(&mut shell);
        shell
            .args(["-c", repro])
            .current_dir("/")
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("runs")
    };
    let running: Vec<_> = repros.iter().map(|r| spawn(r)).collect();
    for (child, repro) in running.into_iter().zip(&repros) {
        let output = child.wait_with_output().expect("ends");
        // `printf '%s\n' 'MOCK_AGENT_FAULTS=...' > "$d"/.mock-agent.env`
        let faults = repro
            .split("printf '%s\\n' ")
            .nth(1)
            .and_then(|rest| rest.split(" > ").next())
            .map(|quoted| quoted.trim_matches('\''))
            .unwrap_or_else(|| panic!("the settings written: {repro}"));
        assert!(faults.starts_with("MOCK_AGENT_FAULTS="), "{repro}");
        assert_eq!(String::from_utf8_lossy(&output.stdout).trim(), faults, "{repro}");
    }
}

/// A failing case where a fault breaks what the program's SDK can read, so that a
/// failure and a success are both right, says so where it says what was expected.
#[test]
fn a_case_where_either_conclusion_is_right_says_so() {
    let tmp = tempfile::tempdir().expect("temp dir");
    // Exits 0 and shows nothing: neither conclusion.
    let (report, code) = test_fault(
        tmp.path(),
        "gemini",
        "malformed",
        "GEMINI_CLI_TRUST_WORKSPACE=true gemini -p hi > /dev/null",
    );
    assert_eq!(code, Some(harness::exit_codes::CASES_FAILED), "{report}");
    assert!(
        report.contains("    expected: either: failure, or success: \""),
        "{report}"
    );
    assert!(!report.contains("    expected: success"), "{report}");
}

/// The Python Agent SDK's `PostToolUse` hook is called after each tool that ran, with
/// the tool's response, as its `PreToolUse` hook is before `Write`.
#[test]
fn a_post_tool_use_hook_is_called_after_each_tool_that_ran() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::os::unix::fs::symlink(bin(), dir.path().join("claude")).expect("symlink");
    let output = crate::claude_sdks::sdks()
        .program(
            crate::sdks::Sdk::Python,
            "tests/claude",
            "post_tool_use",
            dir.path(),
        )
        .env("CLAUDE_CLI", dir.path().join("claude"))
        .output()
        .expect("runs the program");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let report = format!("{stdout}{}", String::from_utf8_lossy(&output.stderr));
    assert!(output.status.success(), "{report}");
    let lines: Vec<&str> = stdout.lines().collect();
    let at = |prefix: &str| {
        lines
            .iter()
            .position(|l| l.starts_with(prefix))
            .unwrap_or_else(|| panic!("`{prefix}` in:\n{report}"))
    };
    let pre = at("hook PreToolUse Write id_matches=True");
    let post = at("hook PostToolUse Write id_matches=True response=File created successfully at: ");
    assert!(pre < post, "after the tool: {report}");
    // Every tool that ran, not only the one PreToolUse matches.
    let used = lines
        .iter()
        .filter(|l| l.starts_with("assistant tool_use "))
        .count();
    let called = lines
        .iter()
        .filter(|l| l.starts_with("hook PostToolUse "))
        .count();
    assert!(used >= 2, "a session of more than one tool: {report}");
    assert_eq!(called, used, "one PostToolUse per tool: {report}");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("result success is_error=false")),
        "the turn went on: {report}"
    );
    assert_eq!(lines.last(), Some(&"done"), "{report}");
}

/// A program that gives the agent an allow-listed environment still gets its case's
/// faults by the mock on PATH; one that also runs the mock by another path, where no
/// settings file is, gets a mock that says it cannot know its case and plays nothing,
/// and the case is not run: never judged as the default session it would have played.
#[test]
fn an_agent_that_cannot_know_its_case_says_so() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let (report, code) = test_fault(
        tmp.path(),
        "claude",
        "exit:code=1",
        "env -i PATH=\"$PATH\" HOME=\"$HOME\" claude -p hi",
    );
    assert_eq!(
        code,
        Some(0),
        "the faults reached it by the file on PATH: {report}"
    );
    let other = tmp.path().join("other");
    std::fs::create_dir(&other).expect("mkdir");
    std::os::unix::fs::symlink(bin(), other.join("claude")).expect("symlink");
    // (`; exit $?`: the shell waits for it rather than be replaced by it.)
    let consumer = format!(
        "env -i PATH={}:/usr/bin:/bin HOME=\"$HOME\" claude -p hi; exit $?",
        other.display()
    );
    let (report, code) = test_fault(tmp.path(), "claude", "exit:code=1", &consumer);
    assert_eq!(code, Some(harness::exit_codes::CASES_NOT_RUN), "{report}");
    for needle in [
        format!(
            "the agent ran without the case's settings: it got no MOCK_AGENT_* setting: none in its environment, and no `.mock-agent.env` beside {}",
            other.join("claude").display()
        ),
        "help: the Claude Code program must run the agent by the path the case puts first on PATH".to_owned(),
    ] {
        assert!(report.contains(&needle), "{needle:?} in:\n{report}");
    }
    assert!(!report.contains("never ran the agent"), "{report}");
    // What the mock says, and records, where a process that started it has the case's
    // start records.
    let started = tmp.path().join("started.jsonl");
    let mut shell = std::process::Command::new("sh");
    harness::run::child::without_mock_env(&mut shell);
    let lost = shell
        .args(["-c", &consumer])
        .env("MOCK_AGENT_STARTED", &started)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("runs");
    assert_eq!(lost.status.code(), Some(harness::exit_codes::USAGE));
    assert!(lost.stdout.is_empty(), "it plays nothing");
    let said = String::from_utf8_lossy(&lost.stderr);
    assert!(
        said.starts_with("mock-agent: this agent was run in a case of `mock-agent test` (process ")
            && said.contains("so it cannot know the case's session or faults: it plays nothing\nhelp: "),
        "{said}"
    );
    let starts = harness::journal::settings::read_starts(&started);
    assert_eq!(starts.len(), 1, "{starts:?}");
    assert!(starts[0]
        .lost
        .as_deref()
        .is_some_and(|l| l.starts_with("it got no MOCK_AGENT_* setting")));
    // Run on its own, with nothing of a case around it, the mock plays the default session.
    let alone = std::process::Command::new("env")
        .args(["-i", "PATH=/usr/bin:/bin"])
        .arg(other.join("claude"))
        .args(["-p", "hi"])
        .stdin(std::process::Stdio::null())
        .output()
        .expect("runs");
    assert_eq!(
        alone.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&alone.stderr)
    );
}

/// A program that keeps the agent's answer between runs (a cache in its user folders)
/// runs the agent in the first case only: the others are not run, and the summary
/// says why a program that found the agent once did not again (found on PyPI
/// `agent-dispatcher-mcp`, whose cache of read-only answers made every later case
/// "never ran the agent").
#[test]
fn a_program_that_answers_from_its_own_cache_is_told_why_it_did_not_run_the_agent() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let cache = tmp.path().join("answer-cache");
    let consumer = format!(
        "[ -f '{cache}' ] || cursor-agent -p hi > '{cache}'; cat '{cache}' > /dev/null",
        cache = cache.display()
    );
    let (report, code) = test_in(
        tmp.path(),
        &[
            "--jobs",
            "1",
            "--filter",
            "default/clean",
            "--filter",
            "default/eof@mid-line",
            "--consumer",
            &consumer,
        ],
    );
    assert_eq!(code, Some(harness::exit_codes::CASES_NOT_RUN), "{report}");
    assert!(report.contains("never ran the agent"), "{report}");
    assert!(
        report.contains("help: it ran the agent in other cases of this run"),
        "{report}"
    );
    // Where it never ran the agent at all, the path is what to look at, not a cache.
    let (report, _) = test_in(tmp.path(), &["--filter", "default/clean", "--consumer", "true"]);
    assert!(report.contains("never ran the agent"), "{report}");
    assert!(!report.contains("in other cases of this run"), "{report}");
}
