//! Gemini CLI's stand-in through the binary (`mock-agent gemini`, or the binary linked
//! as `gemini`), as REAL-GEMINI.md describes the real CLI headless: the command line and
//! its errors, `-o stream-json|json|text` equal to the harness's pure player byte for
//! byte (with every matrix fault), the presets' endings, trust, `--resume` across
//! processes, the relaunched parent that ignores SIGTERM, cassettes replayed and
//! recorded, and the harness on a careful program and planted bugs.

use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Output, Stdio};
use std::time::Duration;

use serde_json::Value;

use harness::dialects::gemini::default_session;
use harness::dialects::gemini::dialect::gemini_faults;
use harness::dialects::gemini::faults::{parse, written, written_in, Context, Out, FROM_ENV};
use harness::dialects::gemini::recording::{is_gemini, Recording};
use harness::format::OutputFormat;
use harness::frames::Exit;

use crate::support::{
    assert_caught, assert_clean_passes, assert_passes_generated_and_curated, assert_ran_as_expected, bin,
    ended, json_lines, mock_std, newline_ended, record_keys_out, root, run_with_stdin, test_dialect, text,
};

/// `mock-agent gemini ARGS` with `stdin`, `HOME` at `home`, and `env`.
fn gemini(args: &[&str], stdin: Option<&str>, home: &Path, env: &[(&str, &str)]) -> Output {
    let mut cmd = mock_std();
    cmd.arg("gemini")
        .args(args)
        .env("HOME", home)
        .env_remove("GEMINI_CLI_HOME");
    for (name, value) in env {
        cmd.env(name, value);
    }
    run_with_stdin(cmd, stdin)
}

/// What `outs` put on stdout, and how they end.
fn expected(outs: &[Out]) -> (Vec<u8>, Exit) {
    crate::support::stdout_and_end(outs.iter().filter_map(|out| match out {
        Out::Line(line) => Some(Ok((&line[..], true))),
        Out::Raw(bytes) | Out::Cut(bytes) => Some(Ok((&bytes[..], false))),
        Out::End(exit) => Some(Err(*exit)),
        Out::Stderr(_) | Out::Stall(_) => None,
    }))
}

/// The arguments of a run the harness's context matches: prompt `hi`.
const RUN: &[&str] = &["--skip-trust", "-o", "stream-json", "-p", "hi"];

#[test]
fn version_help_and_argument_errors_in_the_real_cli_s_words() {
    let home = tempfile::tempdir().expect("temp dir");
    let out = gemini(&["--version"], None, home.path(), &[]);
    assert_eq!(
        (text(&out.stdout).as_str(), out.status.code()),
        ("0.61.0\n", Some(0))
    );
    let out = gemini(&["-h"], None, home.path(), &[]);
    assert!(text(&out.stdout).starts_with("Usage: gemini [options] [command]"));
    let errors: &[(&[&str], &str)] = &[
        (&["--formatt", "json", "-p", "x"], "Unknown argument: formatt\n"),
        (&["-p"], "Not enough arguments following: p\n"),
        (
            &["-o", "xml", "-p", "x"],
            "Invalid values:\n  Argument: output-format, Given: \"xml\", Choices: \"text\", \"json\", \"stream-json\"\n",
        ),
    ];
    for (args, said) in errors {
        let out = gemini(args, None, home.path(), &[]);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{args:?}");
        assert!(stderr.starts_with(said), "{args:?}: {stderr}");
        assert!(
            stderr.contains("Usage: gemini [options]"),
            "{args:?}: the help follows"
        );
    }
    // No prompt, an empty stdin: exit 42, the real CLI's words.
    let out = gemini(&["--skip-trust", "-o", "json"], Some(""), home.path(), &[]);
    assert_eq!(out.status.code(), Some(42));
    assert_eq!(
        text(&out.stderr),
        "No input provided via stdin. Input can be provided by piping data into gemini or using the --prompt option.\n"
    );
    // `--acp` is the ACP agent (tests/gemini_acp.rs): it answers `initialize`.
    let out = gemini(
        &["--acp"],
        Some("{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":1}}\n"),
        home.path(),
        &[],
    );
    assert!(
        text(&out.stdout).starts_with("{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":"),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
}

#[test]
fn the_binary_linked_as_gemini_is_gemini_and_trust_is_checked() {
    let dir = tempfile::tempdir().expect("temp dir");
    let link = dir.path().join("gemini");
    std::os::unix::fs::symlink(bin(), &link).expect("symlink");
    let linked = |args: &[&str], env: &[(&str, &str)]| {
        let mut cmd = std::process::Command::new(&link);
        cmd.args(args).env("HOME", dir.path()).current_dir(dir.path());
        harness::run::child::without_mock_env(&mut cmd);
        for (name, value) in env {
            cmd.env(name, value);
        }
        run_with_stdin(cmd, None)
    };
    let out = linked(&["-o", "stream-json", "-p", "hi"], &[]);
    assert_eq!(out.status.code(), Some(55), "{}", text(&out.stderr));
    assert!(out.stdout.is_empty());
    assert!(text(&out.stderr).contains("Gemini CLI is not running in a trusted directory."));
    for (args, env) in [
        (RUN, &[][..]),
        (
            &["-o", "stream-json", "-p", "hi"][..],
            &[("GEMINI_CLI_TRUST_WORKSPACE", "true")][..],
        ),
    ] {
        let out = linked(args, env);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let events = json_lines(&out);
        assert_eq!(events[0]["type"], "init");
        assert_eq!(events.last().expect("a line")["status"], "success");
    }
    // A folder trusted in ~/.gemini/trustedFolders.json.
    std::fs::create_dir_all(dir.path().join(".gemini")).expect("mkdir");
    let folders = serde_json::json!({dir.path().display().to_string(): "TRUST_FOLDER"});
    std::fs::write(
        dir.path().join(".gemini/trustedFolders.json"),
        folders.to_string(),
    )
    .expect("writes");
    assert_eq!(linked(&["-p", "hi"], &[]).status.code(), Some(0));
}

#[test]
fn each_format_is_the_pure_player_s_byte_for_byte() {
    let home = tempfile::tempdir().expect("temp dir");
    for (format, name) in [
        (OutputFormat::StreamJson, "stream-json"),
        (OutputFormat::Json, "json"),
        (OutputFormat::Text, "text"),
    ] {
        let out = gemini(&["--skip-trust", "-o", name, "-p", "hi"], None, home.path(), &[]);
        let (stdout, exit) = expected(&written_in(
            &default_session("/work"),
            &[],
            &Context::of_seed(0),
            format,
        ));
        assert_eq!(text(&out.stdout), text(&stdout), "{name}");
        assert_eq!(ended(&out), exit, "{name}");
    }
    let out = gemini(
        &["--skip-trust", "-o", "json", "-p", "hi"],
        None,
        home.path(),
        &[],
    );
    let stdout = text(&out.stdout);
    assert!(
        stdout.starts_with("{\n  \"session_id\": ") && stdout.ends_with('}'),
        "{stdout}"
    );
    let document: Value = serde_json::from_str(&stdout).expect("one document");
    assert_eq!(document["response"], "The README says hi.");
    let out = gemini(&["--skip-trust", "-p", "hi"], None, home.path(), &[]);
    assert_eq!(
        text(&out.stdout),
        "I'll read the README first.\nThe README says hi.\n"
    );
    assert!(text(&out.stderr).starts_with("Warning: 256-color support not detected."));
}

#[test]
fn every_matrix_case_writes_what_its_case_expects() {
    let home = tempfile::tempdir().expect("temp dir");
    let journal = home.path().join("journal.jsonl");
    for (label, spec) in gemini_faults() {
        // A stall for ever is the consumer's to end (the runner's cases show it).
        if label.contains("stall@") {
            continue;
        }
        let faults = parse(&spec, FROM_ENV).expect("faults");
        let (stdout, exit) = expected(&written(&default_session("/work"), &faults, 0));
        let out = gemini(
            RUN,
            None,
            home.path(),
            &[
                ("MOCK_AGENT_FAULTS", spec.as_str()),
                ("MOCK_AGENT_JOURNAL", journal.to_str().expect("utf-8")),
            ],
        );
        let entry = assert_ran_as_expected((&label, &spec), &out, (stdout, exit), &journal);
        assert_eq!(
            entry["source"],
            if spec.contains("no-auth") || spec.contains("untrusted") {
                Value::Null
            } else {
                "default".into()
            },
            "{label}"
        );
    }
}

#[test]
fn each_preset_ends_as_the_real_cli_does() {
    let home = tempfile::tempdir().expect("temp dir");
    let presets: &[(&str, i32, Option<&str>)] = &[
        ("unauthorized", 145, Some("[API Error: {\"error\":{\"code\":401,")),
        ("rate-limited", 173, Some("Please wait and try again later.")),
        ("server-error", 244, Some("\"code\":500")),
        ("model-not-found", 1, Some("NOT_FOUND")),
        ("turn-limit", 53, Some("Reached max session turns")),
        ("empty-answer", 0, None),
    ];
    for (preset, code, words) in presets {
        let out = gemini(RUN, None, home.path(), &[("MOCK_AGENT_FAULTS", preset)]);
        assert_eq!(out.status.code(), Some(*code), "{preset}");
        let events = json_lines(&out);
        let result = events.last().expect("a result");
        assert_eq!(
            (&result["type"], &result["status"]),
            (&"result".into(), &"error".into()),
            "{preset}"
        );
        match words {
            Some(words) => assert!(
                result["error"]["message"]
                    .as_str()
                    .is_some_and(|m| m.contains(words)),
                "{preset}: {result}"
            ),
            None => {
                assert!(result.get("error").is_none(), "{preset}");
                assert_eq!(events[events.len() - 2]["type"], "error");
            }
        }
        // json: nothing on stdout but the empty answer's document; the error document
        // on stderr.
        let out = gemini(
            &["--skip-trust", "-o", "json", "-p", "hi"],
            None,
            home.path(),
            &[("MOCK_AGENT_FAULTS", preset)],
        );
        assert_eq!(out.status.code(), Some(*code), "{preset}");
        if *code == 0 {
            let document: Value = serde_json::from_str(&text(&out.stdout)).expect("a document");
            assert_eq!(document["error"]["type"], "INVALID_STREAM");
        } else {
            assert!(out.stdout.is_empty(), "{preset}");
            assert!(text(&out.stderr).contains("\"error\": {"), "{preset}");
        }
    }
    let out = gemini(RUN, None, home.path(), &[("MOCK_AGENT_FAULTS", "no-auth")]);
    assert_eq!(out.status.code(), Some(41));
    assert!(out.stdout.is_empty());
    assert!(text(&out.stderr).starts_with(&format!(
        "Please set an Auth method in your {}/.gemini/settings.json",
        home.path().display()
    )));
}

#[test]
fn resume_and_session_id_go_on_across_processes() {
    let home = tempfile::tempdir().expect("temp dir");
    let id = "3a3cae87-816e-49fe-a6b1-6b280c5be7c7";
    let args = |extra: &[&'static str]| [RUN, extra].concat();
    let out = gemini(&args(&["--session-id", id]), None, home.path(), &[]);
    assert_eq!(json_lines(&out)[0]["session_id"], id);
    let out = gemini(&args(&["-r", "latest"]), None, home.path(), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(json_lines(&out)[0]["session_id"], id);
    let out = gemini(&args(&["--resume", id]), None, home.path(), &[]);
    assert_eq!(json_lines(&out)[0]["session_id"], id);
    let out = gemini(&args(&["-r", "nope"]), None, home.path(), &[]);
    assert_eq!(out.status.code(), Some(42));
    assert!(out.stdout.is_empty());
    assert!(text(&out.stderr).starts_with("Error resuming session: Invalid session identifier \"nope\"."));
    // stdin comes before -p.
    let out = gemini(
        &["--skip-trust", "-o", "stream-json", "-p", "and argv"],
        Some("from stdin\n"),
        home.path(),
        &[],
    );
    assert_eq!(json_lines(&out)[1]["content"], "from stdin\n\n\nand argv");
}

/// Whether the process `pid` is alive.
fn alive(pid: i32) -> bool {
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), None).is_ok()
}

#[test]
fn the_relaunched_parent_ignores_sigterm_and_the_group_ends_it() {
    use std::os::unix::process::CommandExt;
    let home = tempfile::tempdir().expect("temp dir");
    let mut cmd = mock_std();
    cmd.arg("gemini")
        .args(RUN)
        .env("HOME", home.path())
        .env("MOCK_AGENT_FAULTS", "relaunch;stall:at=result")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .process_group(0);
    let mut child = cmd.spawn().expect("spawns");
    let pid = i32::try_from(child.id()).expect("a pid");
    // The lines before the stall come: the child runs.
    let mut stdout = child.stdout.take().expect("stdout");
    let mut first = [0u8; 14];
    std::io::Read::read_exact(&mut stdout, &mut first).expect("the first line");
    assert_eq!(&first, b"{\"type\":\"init\"");
    let term =
        |pid: i32| nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), nix::sys::signal::Signal::SIGTERM);
    term(pid).expect("SIGTERM");
    let _ = nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), nix::sys::signal::Signal::SIGINT);
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        child.try_wait().expect("waits").is_none(),
        "the parent ignored SIGTERM and SIGINT"
    );
    // The group: parent and child end; the parent exits 0, the child killed.
    nix::sys::signal::killpg(nix::unistd::Pid::from_raw(pid), nix::sys::signal::Signal::SIGTERM)
        .expect("killpg");
    let status = child.wait().expect("waits");
    assert_eq!(status.code(), Some(0));
    assert!(!alive(pid));

    // The child killed at a tool's result: the lines so far, no result, exit 0.
    let out = gemini(
        RUN,
        None,
        home.path(),
        &[("MOCK_AGENT_FAULTS", "child-killed:at=tool_result")],
    );
    assert_eq!(out.status.code(), Some(0));
    let events = json_lines(&out);
    assert_eq!(events.last().expect("a line")["type"], "tool_use");
    // Without the relaunch, the one process dies by the signal.
    let out = gemini(
        RUN,
        None,
        home.path(),
        &[
            ("MOCK_AGENT_FAULTS", "child-killed:at=tool_result"),
            ("GEMINI_CLI_NO_RELAUNCH", "true"),
        ],
    );
    assert_eq!(out.status.signal(), Some(9));
}

#[test]
fn a_real_cassette_replays_as_recorded_and_with_a_preset() {
    let home = tempfile::tempdir().expect("temp dir");
    let path = root().join("cassettes/gemini/real-tool.cassette");
    let cassette = path.to_str().expect("utf-8");
    let recording = Recording::open(&path).expect("the curated cassette");
    let out = gemini(RUN, None, home.path(), &[("MOCK_AGENT_CASSETTE", cassette)]);
    assert_eq!(text(&out.stdout), text(&newline_ended(&recording.stdout)));
    assert_eq!(ended(&out), recording.exit);
    assert!(text(&out.stderr).starts_with("Warning: 256-color support not detected."));
    // With a preset, the session it tells played again, on its session and model (the
    // prompt is the run's: the recorded one here).
    let faults = parse("unauthorized", FROM_ENV).expect("a preset");
    let (stdout, exit) = expected(&recording.written(&faults, OutputFormat::StreamJson));
    let prompt = recording.prompt().expect("a prompt");
    let out = gemini(
        &["--skip-trust", "-o", "stream-json", "-p", &prompt],
        None,
        home.path(),
        &[
            ("MOCK_AGENT_CASSETTE", cassette),
            ("MOCK_AGENT_FAULTS", "unauthorized"),
        ],
    );
    assert_eq!(text(&out.stdout), text(&stdout));
    assert_eq!(ended(&out), exit);
    // In json, the recorded session's answer.
    let out = gemini(
        &["--skip-trust", "-o", "json", "-p", "hi"],
        None,
        home.path(),
        &[("MOCK_AGENT_CASSETTE", cassette)],
    );
    let document: Value = serde_json::from_str(&text(&out.stdout)).expect("a document");
    assert_eq!(document["response"], "The folder is empty.");
}

#[test]
fn recording_the_mock_as_gemini_keeps_the_keys_out_and_replays() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (gemini_key, google_key) = ("AIza-gemini-SECRET-0123456789", "AIza-google-SECRET-9876543210");
    let (out, cassette, kept) = record_keys_out(
        "gemini",
        dir.path(),
        &[
            "--skip-trust",
            "-o",
            "stream-json",
            "-p",
            &format!("use {gemini_key} and {google_key}"),
        ],
        &[
            ("HOME", dir.path().as_os_str()),
            ("GEMINI_API_KEY", gemini_key.as_ref()),
            ("GOOGLE_API_KEY", google_key.as_ref()),
        ],
        None,
        [gemini_key, google_key],
    );
    let header = harness::cassette::open(&cassette).expect("opens");
    assert!(header.header().is_some_and(is_gemini), "{kept}");
    let replayed = gemini(
        RUN,
        None,
        &dir.path().join("home2"),
        &[("MOCK_AGENT_CASSETTE", cassette.to_str().expect("utf-8"))],
    );
    // What passed, the keys out.
    let passed = text(&out.stdout)
        .replace(gemini_key, "[REDACTED]")
        .replace(google_key, "[REDACTED]");
    assert_eq!(text(&replayed.stdout), passed);
    assert_eq!(replayed.status.code(), Some(0));
}

/// `mock-agent test --dialect gemini --consumer CONSUMER EXTRA...`, `HOME` the folder
/// `home`.
fn test_gemini(consumer: &str, extra: &[&str], home: &std::path::Path) -> Output {
    test_dialect("gemini", consumer, extra, &[("HOME", home)])
}

/// `mock-agent test --dialect gemini` on a program of tests/consumers: its report.
fn test_with(script: &str, extra: &[&str]) -> Output {
    let home = tempfile::tempdir().expect("temp dir");
    // Only the careful program is told the case's format (`{format}`).
    let format = if script == "gemini_careful.py" {
        "{format}"
    } else {
        ""
    };
    let script = crate::support::consumer_path(script);
    let consumer = format!("CONSUMER_IDLE_TIMEOUT=3 CONSUMER_TOTAL_TIMEOUT=7 python3 {script} {format}");
    test_gemini(&consumer, extra, home.path())
}

/// A program that runs `gemini -p` in text mode of its own accord (its command has no
/// `{format}`) is judged by what text mode lets it see: a child killed after the
/// answer leaves it nothing to tell a failure by, so either conclusion stands (a
/// false alarm before: `reports-failure`, found on public programs).
#[test]
fn a_program_that_asks_for_text_is_judged_by_what_text_shows() {
    let home = tempfile::tempdir().expect("temp dir");
    let out = test_gemini(
        "gemini -p hi -o text --skip-trust",
        &["--filter", "child-killed", "--filter", "default/clean"],
        home.path(),
    );
    crate::support::assert_passed(&out, "3 cases: 3 passed, 0 failed");
    // In stream-json the same program can tell (no `result` line): the verdict stands.
    let out = test_gemini(
        "gemini -p hi -o stream-json --skip-trust",
        &["--filter", "child-killed@result"],
        home.path(),
    );
    let report = crate::support::assert_said(&out, harness::exit_codes::CASES_FAILED);
    assert!(report.contains("reports-failure"), "{report}");
}

/// A program that passes its agent an allow-listed environment (the MCP SDK's stdio
/// client does) still gets the case's faults through the settings file beside the
/// link, in the relaunched child too: the child, run as the binary itself, gets what
/// the parent read in its environment (it played the clean session, journaled
/// nothing, and the case was "not run" before; found on PyPI `agent-dispatcher-mcp`).
#[test]
fn a_relaunched_child_gets_the_settings_its_parent_read_beside_the_link() {
    let home = tempfile::tempdir().expect("temp dir");
    let out = test_gemini(
        "env -i PATH=\"$PATH\" HOME=\"$HOME\" gemini -p hi -o stream-json --skip-trust",
        &["--filter", "child-killed@result"],
        home.path(),
    );
    let report = crate::support::assert_said(&out, harness::exit_codes::CASES_FAILED);
    assert!(report.contains("1 case breaks reports-failure"), "{report}");
    assert!(!report.contains("not run"), "{report}");
}

#[test]
fn the_careful_gemini_program_passes_every_matrix_case_in_both_formats() {
    assert_passes_generated_and_curated(test_with, "gemini_careful.py", "2", "cassettes/gemini");
    let out = test_with(
        "gemini_careful.py",
        &["--format", "stream-json", "--format", "json"],
    );
    crate::support::assert_passed(&out, "44 cases: 41 passed, 0 failed, 3 not applicable");
}

#[test]
fn each_planted_gemini_bug_is_caught_by_its_property() {
    // The conformance suite's, and a killed child's run, which exits 0 too.
    let caught = crate::support::planted_with(
        "gemini",
        &[(
            "gemini_error_as_success.py",
            "/child-killed@tool-result",
            "reports-failure",
        )],
    );
    for bug in caught {
        let (script, report) = (bug.0, assert_caught(test_with, bug));
        // It started the CLI in a session of its own, outside the runner's reach: the
        // relaunched agent it could not stop is named, and killed (not left running).
        if script == "gemini_kills_the_pid.py" {
            assert!(
                report.contains("so was the agent it started outside its process group"),
                "{report}"
            );
        }
        assert_clean_passes(test_with, script);
    }
}

/// The python of scripts/gemini-consumers.sh (agentabi 0.4.0); `None`, said, when PyPI
/// cannot be reached.
fn agentabi_python() -> Option<String> {
    let made = std::process::Command::new(root().join("scripts/gemini-consumers.sh"))
        .output()
        .expect("runs scripts/gemini-consumers.sh");
    if made.status.code() == Some(75) {
        eprintln!(
            "skipped: agentabi cannot be installed, PyPI out of reach:\n{}",
            text(&made.stderr)
        );
        return None;
    }
    assert!(made.status.success(), "{}", text(&made.stderr));
    Some(text(&made.stdout).trim().to_owned())
}

/// agentabi 0.4.0 (PyPI), unmodified, through `mock-agent test --dialect gemini`. Its
/// GeminiNativeProvider (read, `providers/gemini_native.py` and `providers/base.py`):
/// a `result` with `"status":"error"` is fatal (a failure); an exit code without a
/// `result` is only a non-fatal error (`Process exited with code N`), so the run stays
/// "success" with no text; a `timeout` kills the pid alone (the relaunched child keeps
/// stdout open: the read never ends); lines are read with asyncio's 64 KiB limit (a
/// longer line raises). The harness finds exactly these, and nothing else.
#[test]
fn agentabi_s_verdicts_hold_by_its_source() {
    let Some(python) = agentabi_python() else {
        return;
    };
    let script = root().join("tests/consumers/gemini_agentabi.py");
    let home = tempfile::tempdir().expect("temp dir");
    let run = |env: &str, extra: &[&str]| {
        let consumer = format!("{env} AGENTABI_TIMEOUT=4 {python} {}", script.display());
        let mut cmd = mock_std();
        cmd.args([
            "test",
            "--dialect",
            "gemini",
            "--timeout",
            "10",
            "--consumer",
            &consumer,
        ])
        .args(extra)
        .env("HOME", home.path());
        let out = cmd.output().expect("runs");
        (out.status.code(), text(&out.stdout) + &text(&out.stderr))
    };
    let (code, report) = run("GEMINI_CLI_TRUST_WORKSPACE=true", &[]);
    assert_eq!(code, Some(harness::exit_codes::CASES_FAILED), "{report}");
    // The 1 MiB line crashes agentabi's reader (asyncio's 64 KiB limit) unless its own
    // timeout kills the CLI first, which a loaded machine allows: either is its right.
    assert!(
        report.contains("22 cases: 12 passed, 10 failed") || report.contains("22 cases: 13 passed, 9 failed"),
        "{report}"
    );
    let broken = |case: &str, property: &str| {
        report
            .lines()
            .any(|l| l.starts_with(&format!("default/{case} ")) && l.trim_end().ends_with(property))
    };
    for case in [
        "no-auth",
        "untrusted-folder",
        "exit-1@tool-use",
        "signal-term@tool-result",
        "child-killed@tool-result",
        "child-killed@result",
        "eof@result",
    ] {
        assert!(broken(case, "reports-failure"), "{case}: {report}");
    }
    assert!(broken("relaunched-stall@result", "ends"), "{report}");
    // It reads stderr only once the CLI has ended (`collect_subprocess_errors`): a
    // megabyte of it fills the pipe, and the CLI and agentabi wait on each other: until
    // the case's time is up (`ends`), or agentabi's own timeout kills the CLI, and the
    // answer is lost (`reports-success`), whichever comes first on a loaded machine.
    assert!(
        report.lines().any(|l| l.starts_with("default/stderr-flood ")
            && (l.contains("ends") || l.contains("reports-success"))),
        "{report}"
    );
    // Without `--skip-trust` (agentabi never passes it) 0.61.0 refuses the folder, exit
    // 55, and agentabi reports success: `untrusted-folder` says so, trusted or not.
    let (code, report) = run("", &["--filter", "/untrusted-folder"]);
    assert_eq!(code, Some(harness::exit_codes::CASES_FAILED), "{report}");
    assert!(report.contains("the agent exited 55"), "{report}");
    // Any other case stopped at the trust check tested nothing of itself: not run, with
    // what to do (it was all green for a program that reports the failure).
    let (code, report) = run("", &["--filter", "/clean"]);
    assert_eq!(code, Some(harness::exit_codes::CASES_NOT_RUN), "{report}");
    assert!(report.contains("folder-trust check (exit 55)"), "{report}");
    assert!(report.contains("GEMINI_CLI_TRUST_WORKSPACE=true"), "{report}");
}

/// A recording replayed as it stands, with nothing to change and no line to wait for,
/// is performed as a copy is (runs of lines, blocking writes, no runtime): its stdout,
/// stderr, ending and journal entry are those of the same replay a line at a time on
/// the runtime (a timing that waits for nothing makes it so), for a cassette checked in
/// full first and for one over `PREFLIGHT_LIMIT`, with a stderr line late in it.
#[test]
fn a_replay_at_once_writes_what_a_replay_a_line_at_a_time_writes() {
    let real = root().join("cassettes/gemini/real-tool.cassette");
    crate::support::assert_replay_at_once_as_a_line_at_a_time(&real, |home, env| {
        gemini(RUN, None, home, env)
    });
}
