//! Codex's stand-in through the binary (`mock-agent codex`, or the binary linked as
//! `codex`), as REAL-CODEX.md describes the real CLI: the command line and its errors,
//! `codex exec --json` equal to the harness's pure player byte for byte (with every
//! matrix fault), the presets' endings, `resume` across processes, `-o` and
//! `--output-schema`, text mode, a cassette replayed and recorded, and the harness on a
//! careful Codex program and two planted bugs.

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

use harness::dialects::codex::default_session;
use harness::dialects::codex::dialect::codex_faults;
use harness::dialects::codex::faults::{parse, written, Out, FROM_ENV};
use harness::dialects::codex::recording::{is_codex, Recording};
use harness::frames::Exit;

use crate::support::{
    assert_passes_generated_and_curated, assert_ran_as_expected, bin, ended, json_lines, last_journal_entry,
    mock_std, newline_ended, record_keys_out, root, run_with_stdin, test_dialect, text,
};

/// The curated cassette, recorded from the real CLI (`mock-agent drift --dialect codex --update`).
fn curated() -> PathBuf {
    root().join("cassettes/codex/real-tool.cassette")
}

/// `mock-agent codex ARGS` with `stdin` on stdin, `CODEX_HOME` at `home`, and `env`.
fn codex(args: &[&str], stdin: &str, home: &Path, env: &[(&str, &str)]) -> Output {
    let mut cmd = mock_std();
    cmd.arg("codex").args(args).env("CODEX_HOME", home);
    for (name, value) in env {
        cmd.env(name, value);
    }
    run_with_stdin(cmd, Some(stdin))
}

/// `codex exec --json -C /work --skip-git-repo-check -` (the default session's paths
/// are `/work`'s, which is in no Git repository) with the prompt on stdin and
/// `MOCK_AGENT_FAULTS=faults`.
fn exec_json(faults: &str, home: &Path) -> Output {
    codex(
        &["exec", "--json", "-C", "/work", "--skip-git-repo-check", "-"],
        "Say hi\n",
        home,
        &[("MOCK_AGENT_FAULTS", faults)],
    )
}

/// What `outs` put on stdout, and how they end.
fn expected(outs: &[Out]) -> (Vec<u8>, Exit) {
    crate::support::stdout_and_end(outs.iter().filter_map(|out| match out {
        Out::Line(line) => Some(Ok((&line[..], true))),
        Out::Cut(bytes) => Some(Ok((&bytes[..], false))),
        Out::End(exit) => Some(Err(*exit)),
        Out::Stderr(_) | Out::Stall(_) => None,
    }))
}

#[test]
fn version_help_and_argument_errors_in_the_real_cli_s_words() {
    let home = tempfile::tempdir().expect("temp dir");
    let out = codex(&["--version"], "", home.path(), &[]);
    assert_eq!(
        (text(&out.stdout).as_str(), out.status.code()),
        ("codex-cli 0.163.0\n", Some(0))
    );
    let out = codex(&["exec", "--help"], "", home.path(), &[]);
    assert!(text(&out.stdout).contains("Usage: codex exec [OPTIONS] [PROMPT]"));
    assert_eq!(out.status.code(), Some(0));

    let errors: &[(&[&str], &[&str])] = &[
        (
            &["exec", "--jsonn"],
            &[
                "error: unexpected argument '--jsonn' found",
                "tip: a similar argument exists: '--json'",
            ],
        ),
        (
            &["exec", "--sandbox", "bogus"],
            &[
                "error: invalid value 'bogus' for '--sandbox <SANDBOX_MODE>'",
                "[possible values: read-only, workspace-write, danger-full-access]",
            ],
        ),
        (
            &["exec", "--model"],
            &["error: a value is required for '--model <MODEL>' but none was supplied"],
        ),
        (
            &["exec", "--json", "--full-auto"],
            &["error: unexpected argument '--full-auto' found"],
        ),
    ];
    for (args, said) in errors {
        let out = codex(args, "", home.path(), &[]);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{args:?}");
        for words in *said {
            assert!(stderr.contains(words), "{args:?}: {stderr}");
        }
    }
    // No prompt on stdin: the real CLI's words, exit 1, stdout empty.
    let out = codex(&["exec", "--json"], "", home.path(), &[]);
    assert_eq!(
        (text(&out.stderr).as_str(), out.status.code()),
        (
            "Reading prompt from stdin...\nNo prompt provided via stdin.\n",
            Some(1)
        )
    );
    assert!(out.stdout.is_empty());
    // The interactive UI needs a terminal (`mcp-server` is a prompt since 0.154.0).
    let out = codex(&["mcp-server"], "", home.path(), &[]);
    assert_eq!(
        (text(&out.stderr).as_str(), out.status.code()),
        ("Error: stdin is not a terminal\n", Some(1))
    );
    // app-server serves stdio: nothing asked, nothing said, exit 0 at the end of stdin.
    let out = codex(&["app-server", "--listen", "stdio://"], "", home.path(), &[]);
    assert_eq!((out.stdout.len(), out.status.code()), (0, Some(0)));
}

#[test]
fn the_binary_linked_as_codex_is_codex() {
    let dir = tempfile::tempdir().expect("temp dir");
    let link = dir.path().join("codex");
    std::os::unix::fs::symlink(bin(), &link).expect("symlink");
    let mut cmd = std::process::Command::new(&link);
    cmd.args(["exec", "--experimental-json"])
        .env("CODEX_HOME", dir.path().join("home"));
    harness::run::child::without_mock_env(&mut cmd);
    let out = run_with_stdin(cmd, Some("hi"));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let events = json_lines(&out);
    assert_eq!(events[0]["type"], "thread.started");
    assert_eq!(events.last().expect("a line")["type"], "turn.completed");
}

#[test]
fn the_default_session_is_the_pure_player_s_byte_for_byte() {
    let home = tempfile::tempdir().expect("temp dir");
    let out = exec_json("", home.path());
    let (stdout, exit) = expected(&written(&default_session("/work"), &[], 0));
    assert_eq!(text(&out.stdout), text(&stdout));
    assert_eq!(ended(&out), exit);
    assert_eq!(text(&out.stderr), "Reading prompt from stdin...\n");
    // The usage keys, and the final message last.
    let events = json_lines(&out);
    let last = &events[events.len() - 1];
    assert_eq!(last["usage"]["input_tokens"], 30);
    assert_eq!(
        events[events.len() - 2]["item"]["text"],
        "Created made.txt and notes.md."
    );
}

#[test]
fn every_matrix_case_writes_what_its_case_expects() {
    let home = tempfile::tempdir().expect("temp dir");
    let journal = home.path().join("journal.jsonl");
    for (label, spec) in codex_faults() {
        // A stall for ever is the consumer's to end (the runner's cases show it).
        if label == "stall@turn-completed" {
            continue;
        }
        let faults = parse(&spec, FROM_ENV).expect("faults");
        let (stdout, exit) = expected(&written(&default_session("/work"), &faults, 0));
        // The TypeScript SDK's argv with `skipGitRepoCheck` (`/work` is in no repository).
        let out = codex(
            &[
                "exec",
                "--experimental-json",
                "-C",
                "/work",
                "--skip-git-repo-check",
            ],
            "hi",
            home.path(),
            &[
                ("MOCK_AGENT_FAULTS", spec.as_str()),
                ("MOCK_AGENT_JOURNAL", journal.to_str().expect("utf-8")),
            ],
        );
        let entry = assert_ran_as_expected((&label, &spec), &out, (stdout, exit), &journal);
        assert_eq!(entry["stdout_closed"], false);
        assert_eq!(entry["source"], "default");
    }
}

#[test]
fn each_preset_ends_as_the_real_cli_does() {
    let home = tempfile::tempdir().expect("temp dir");
    let presets = [
        ("unauthorized", "401 Unauthorized", 5),
        ("rate-limited", "429 Too Many Requests", 5),
        ("unknown-model", "gpt-5.5", 0),
        ("turn-failed", "", 0),
        ("stream-cut", "stream disconnected before completion", 5),
    ];
    for (preset, words, reconnects) in presets {
        let out = exec_json(preset, home.path());
        assert_eq!(out.status.code(), Some(1), "{preset}");
        assert_eq!(text(&out.stderr), "Reading prompt from stdin...\n", "{preset}");
        let events = json_lines(&out);
        assert_eq!(events[0]["type"], "thread.started", "{preset}");
        let failed = &events[events.len() - 1];
        let error = &events[events.len() - 2];
        assert_eq!(failed["type"], "turn.failed", "{preset}");
        assert_eq!(error["type"], "error", "{preset}");
        assert_eq!(failed["error"]["message"], error["message"], "{preset}");
        let message = error["message"].as_str().expect("a message");
        assert!(message.contains(words), "{preset}: {message}");
        let reconnecting = events
            .iter()
            .filter(|e| {
                e["message"]
                    .as_str()
                    .is_some_and(|m| m.starts_with("Reconnecting..."))
            })
            .count();
        assert_eq!(reconnecting, reconnects, "{preset}");
        assert!(!events.iter().any(|e| e["type"] == "turn.completed"), "{preset}");
        let (stdout, _) = expected(&written(
            &default_session("/work"),
            &parse(preset, FROM_ENV).expect("a preset"),
            0,
        ));
        assert_eq!(text(&out.stdout), text(&stdout), "{preset}");
    }
}

#[test]
fn resume_goes_on_with_the_thread_and_its_usage_across_processes() {
    let home = tempfile::tempdir().expect("temp dir");
    let first = exec_json("", home.path());
    let events = json_lines(&first);
    let id = events[0]["thread_id"].as_str().expect("a thread id").to_owned();
    let usage = |events: &[Value]| events.last().expect("a line")["usage"].clone();
    assert_eq!(usage(&events)["input_tokens"], 30);

    let second = codex(&["exec", "--json", "resume", &id, "-"], "again", home.path(), &[]);
    assert_eq!(second.status.code(), Some(0), "{}", text(&second.stderr));
    let events = json_lines(&second);
    assert_eq!(events[0]["thread_id"], id.as_str());
    let total = usage(&events);
    assert_eq!(
        (
            &total["input_tokens"],
            &total["cached_input_tokens"],
            &total["output_tokens"],
            &total["reasoning_output_tokens"]
        ),
        (
            &Value::from(60),
            &Value::from(8),
            &Value::from(24),
            &Value::from(4)
        )
    );
    // A third process, by `--last`.
    let third = codex(&["exec", "--json", "resume", "--last"], "more", home.path(), &[]);
    assert_eq!(usage(&json_lines(&third))["input_tokens"], 90);

    // A thread no rollout has: stdout empty, exit 1, the real CLI's words.
    let unknown = "00000000-0000-7000-8000-000000000000";
    let out = codex(&["exec", "--json", "resume", unknown], "hi", home.path(), &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert!(text(&out.stderr).ends_with(&format!(
        "Error: thread/resume: thread/resume failed: no rollout found for thread id {unknown} (code -32600)\n"
    )));
    // Another CODEX_HOME knows no thread.
    let elsewhere = tempfile::tempdir().expect("temp dir");
    let out = codex(&["exec", "--json", "resume", &id], "hi", elsewhere.path(), &[]);
    assert_eq!(out.status.code(), Some(1));
}

/// `codex exec --json FLAG PATH` on the prompt `hi`.
fn exec_with(flag: &str, path: &Path, home: &Path, env: &[(&str, &str)]) -> Output {
    codex(
        &["exec", "--json", flag, path.to_str().expect("utf-8")],
        "hi",
        home,
        env,
    )
}

#[test]
fn output_last_message_and_output_schema() {
    let home = tempfile::tempdir().expect("temp dir");
    let last = home.path().join("last.txt");
    let out = codex(
        &["exec", "--json", "-o", last.to_str().expect("utf-8")],
        "hi",
        home.path(),
        &[],
    );
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        std::fs::read_to_string(&last).expect("-o is written"),
        "Created made.txt and notes.md."
    );
    // A failed turn writes no last message.
    let failed = home.path().join("failed.txt");
    let out = exec_with(
        "--output-last-message",
        &failed,
        home.path(),
        &[("MOCK_AGENT_FAULTS", "turn-failed")],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(!failed.exists());

    let schema = home.path().join("schema.json");
    std::fs::write(
        &schema,
        r#"{"type":"object","properties":{"answer":{"type":"string"},"count":{"type":"integer"}},"required":["answer","count"],"additionalProperties":false}"#,
    )
    .expect("writes");
    let out = exec_with("--output-schema", &schema, home.path(), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let messages: Vec<Value> = json_lines(&out)
        .into_iter()
        .filter(|e| e["item"]["type"] == "agent_message")
        .collect();
    assert_eq!(messages.len(), 1, "the one answer the schema shapes");
    let answer: Value =
        serde_json::from_str(messages[0]["item"]["text"].as_str().expect("text")).expect("JSON text");
    assert!(
        answer["answer"].is_string() && answer["count"].is_i64(),
        "{answer}"
    );

    // A schema file that is missing, or not JSON: exit 1, stdout empty.
    let missing = home.path().join("missing.json");
    let out = exec_with("--output-schema", &missing, home.path(), &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert!(text(&out.stderr).contains(&format!(
        "Failed to read output schema file {}: No such file or directory (os error 2)",
        missing.display()
    )));
    std::fs::write(&schema, "{nope}").expect("writes");
    let out = exec_with("--output-schema", &schema, home.path(), &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("is not valid JSON: key must be a string at line 1 column 2"));
}

#[test]
fn without_json_stdout_holds_the_final_message_only() {
    let home = tempfile::tempdir().expect("temp dir");
    let out = codex(&["exec", "Say hi"], "", home.path(), &[]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(text(&out.stdout), "Created made.txt and notes.md.\n");
    let stderr = text(&out.stderr);
    assert!(
        stderr.starts_with("Reading additional input from stdin...\nOpenAI Codex v0.163.0\n"),
        "{stderr}"
    );
    assert!(stderr.contains("tokens used\n38"), "{stderr}");
}

/// A program that asks for `--output-schema` gets a message that follows the schema,
/// and a correct one reports that message: the run's journal says what the mock told,
/// and the verdict expects it (not the session's own answer, a false alarm before).
#[test]
fn a_program_that_gives_a_schema_is_expected_to_report_the_schema_s_answer() {
    let home = tempfile::tempdir().expect("temp dir");
    let schema = home.path().join("schema.json");
    std::fs::write(
        &schema,
        r#"{"type":"object","properties":{"summary":{"type":"string"}},"required":["summary"],"additionalProperties":false}"#,
    )
    .expect("writes");
    let consumer = format!("codex exec --output-schema {} 'Say hi'", schema.display());
    let out = test_codex(
        &consumer,
        &["--filter", "default/clean", "--filter", "default/turn-failed"],
        home.path(),
    );
    crate::support::assert_passed(&out, "2 cases: 2 passed, 0 failed");
    // A program that prints something else than the schema's answer still fails.
    let wrong = format!(
        "codex exec --output-schema {} 'Say hi' > /dev/null; echo 'Created made.txt and notes.md.'",
        schema.display()
    );
    let out = test_codex(&wrong, &["--filter", "default/clean"], home.path());
    let report = crate::support::assert_said(&out, harness::exit_codes::CASES_FAILED);
    assert!(report.contains("reports-success"), "{report}");
}

/// A Node.js program that awaits a turn's end that never comes exits 13 when nothing
/// is left to wait on (Node.js 20 says nothing): `ends` tells it, where the non-zero
/// exit once passed for a reported failure. Found by trying public programs
/// (ai-sdk-provider-codex-cli's app-server stream).
#[test]
fn a_node_program_whose_top_level_await_never_settles_breaks_ends() {
    let dir = tempfile::tempdir().expect("temp dir");
    let program = dir.path().join("waits.mjs");
    std::fs::write(
        &program,
        "import { spawn } from 'node:child_process';\n\
         const child = spawn('codex', ['exec', '--json', 'hi'], { stdio: ['ignore', 'pipe', 'ignore'] });\n\
         let seen = '';\n\
         await new Promise((resolve) => child.stdout.on('data', (d) => {\n\
           seen += d;\n\
           if (seen.includes('turn.completed')) resolve();\n\
         }));\n\
         console.log(JSON.parse(seen.trim().split('\\n').filter((l) => l.includes('agent_message')).pop()).item.text);\n",
    )
    .expect("writes");
    let consumer = format!("node {}", program.display());
    let out = test_codex(
        &consumer,
        &["--filter", "default/clean", "--filter", "default/exit-1@command"],
        dir.path(),
    );
    let report = crate::support::assert_said(&out, harness::exit_codes::CASES_FAILED);
    assert!(
        report.contains("ends: it ended only because nothing was left to wait on: a top-level `await` never settled (Node.js exit 13)"),
        "{report}"
    );
    assert!(report.contains("2 cases: 1 passed, 1 failed"), "{report}");
}

/// Without `--json` there is no JSON line for `unknown`, `malformed` or `huge` to
/// stand for: stdout is the final message alone, the faults do not act, and for a
/// program that reads the final message those cases are not applicable (neither
/// passed nor failed), where they once wrote JSON on its text.
#[test]
fn without_json_the_faults_that_write_json_lines_do_not_act() {
    let home = tempfile::tempdir().expect("temp dir");
    for fault in [
        "unknown:after=2",
        "unknown:kind=item,at=turn.completed",
        "malformed:at=agent_message",
        "huge",
    ] {
        let out = codex(
            &["exec", "Say hi"],
            "",
            home.path(),
            &[("MOCK_AGENT_FAULTS", fault)],
        );
        assert_eq!(out.status.code(), Some(0), "{fault}");
        assert_eq!(text(&out.stdout), "Created made.txt and notes.md.\n", "{fault}");
    }
    let filters = ["unknown-event", "unknown-item", "malformed", "huge-1m"].map(|f| format!("default/{f}"));
    let mut extra = Vec::new();
    for filter in &filters {
        extra.extend(["--filter", filter.as_str()]);
    }
    let out = test_codex("codex exec 'Say hi'", &extra, home.path());
    crate::support::assert_passed(&out, "4 cases: 0 passed, 0 failed, 4 not applicable");
}

#[test]
fn a_codex_cassette_replays_as_recorded_and_with_a_preset() {
    let home = tempfile::tempdir().expect("temp dir");
    let cassette = curated();
    let cassette = cassette.to_str().expect("utf-8");
    let recording = Recording::open(&curated()).expect("the curated cassette");
    let out = codex(
        &["exec", "--experimental-json"],
        "hi",
        home.path(),
        &[("MOCK_AGENT_CASSETTE", cassette)],
    );
    assert_eq!(text(&out.stdout), text(&newline_ended(&recording.stdout)));
    assert_eq!(ended(&out), recording.exit);
    let faults = parse("turn-failed", FROM_ENV).expect("a preset");
    let (stdout, exit) = expected(&recording.written(&faults));
    let out = codex(
        &["exec", "--experimental-json"],
        "hi",
        home.path(),
        &[
            ("MOCK_AGENT_CASSETTE", cassette),
            ("MOCK_AGENT_FAULTS", "turn-failed"),
        ],
    );
    assert_eq!(text(&out.stdout), text(&stdout));
    assert_eq!(ended(&out), exit);
}

#[test]
fn recording_the_mock_as_codex_keeps_the_keys_out_and_replays() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (codex_key, openai_key) = ("sk-codex-SECRET-0123456789", "sk-openai-SECRET-9876543210");
    let home = dir.path().join("home");
    let (out, cassette, kept) = record_keys_out(
        "codex",
        dir.path(),
        &["exec", "--experimental-json", "-"],
        &[
            ("CODEX_HOME", home.as_os_str()),
            ("CODEX_API_KEY", codex_key.as_ref()),
            ("OPENAI_API_KEY", openai_key.as_ref()),
        ],
        Some(&format!("use {codex_key} and {openai_key}")),
        [codex_key, openai_key],
    );
    let header = harness::cassette::open(&cassette).expect("opens");
    assert!(header.header().is_some_and(is_codex), "{kept}");
    // Replayed, it writes what passed.
    let replayed = codex(
        &["exec", "--experimental-json"],
        "hi",
        &dir.path().join("home2"),
        &[("MOCK_AGENT_CASSETTE", cassette.to_str().expect("utf-8"))],
    );
    assert_eq!(text(&replayed.stdout), text(&out.stdout));
    assert_eq!(replayed.status.code(), Some(0));
}

/// `mock-agent test --dialect codex --consumer CONSUMER EXTRA...`, `CODEX_HOME` the folder
/// `home`.
fn test_codex(consumer: &str, extra: &[&str], home: &std::path::Path) -> Output {
    test_dialect("codex", consumer, extra, &[("CODEX_HOME", home)])
}

/// `mock-agent test --dialect codex` on a program of tests/consumers: its report. The
/// cases' threads go to a `CODEX_HOME` of the test's own.
fn test_with(script: &str, extra: &[&str]) -> Output {
    let home = tempfile::tempdir().expect("temp dir");
    let script = crate::support::consumer_path(script);
    test_codex(
        &format!("CONSUMER_IDLE_TIMEOUT=4 python3 {script}"),
        extra,
        home.path(),
    )
}

#[test]
fn the_careful_codex_program_passes_every_matrix_case() {
    assert_passes_generated_and_curated(test_with, "codex_careful.py", "1", "cassettes/codex");
    let out = test_with("codex_careful.py", &[]);
    crate::support::assert_passed(&out, "21 cases: 21 passed, 0 failed");
}

#[test]
fn each_planted_codex_bug_is_caught_by_its_property() {
    // The conformance suite's, then a failed command's exit, and a retry's `error`
    // notice taken for the turn's failure (as npm ai-sdk-provider-codex-cli 2.2.1 takes it).
    let caught = crate::support::planted_with(
        "codex",
        &[
            ("codex_error_as_success.py", "/exit-1@command", "reports-failure"),
            (
                "codex_error_event_fatal.py",
                "/reconnect-then-ok",
                "reports-success",
            ),
        ],
    );
    crate::support::assert_each_caught(test_with, &caught);
}

/// A recording replayed as it stands, with nothing to change and no line to wait for,
/// is performed as a copy is (runs of lines, blocking writes, no runtime): its stdout,
/// stderr, ending and journal entry are those of the same replay a line at a time on
/// the runtime (a timing that waits for nothing makes it so), for a cassette checked in
/// full first and for one over `PREFLIGHT_LIMIT`, with a stderr line late in it.
#[test]
fn a_replay_at_once_writes_what_a_replay_a_line_at_a_time_writes() {
    let at_once = crate::support::assert_replay_at_once_as_a_line_at_a_time(&curated(), |home, env| {
        codex(&["exec", "--json", "-"], "hi", home, env)
    });
    for out in at_once {
        assert!(out.status.success(), "{}", text(&out.stderr));
    }
}

/// A replay performed as a copy is still ends on SIGTERM with its stdout full (a
/// consumer that reads nothing: its write waits), as the runtime's replay does: the
/// process dies by the signal, and its journal says so.
#[test]
fn a_replay_at_once_ends_on_sigterm_with_its_stdout_full() {
    use std::os::unix::process::ExitStatusExt;
    use std::process::Stdio;
    let dir = tempfile::tempdir().expect("temp dir");
    let cassette = dir.path().join("big.cassette");
    // Over 3 MB of stdout: more than the largest pipe holds.
    crate::support::repeated_recording(&curated(), &cassette, 3_000, b"a late line");
    let journal = dir.path().join("journal.jsonl");
    let mut cmd = mock_std();
    cmd.args(["codex", "exec", "--json", "-"])
        .env("CODEX_HOME", dir.path())
        .env("MOCK_AGENT_CASSETTE", &cassette)
        .env("MOCK_AGENT_JOURNAL", &journal)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let mut child = cmd.spawn().expect("spawns");
    // The prompt, then stdin closed; stdout is held and never read.
    let mut stdin = child.stdin.take().expect("stdin");
    std::io::Write::write_all(&mut stdin, b"hi").expect("writes the prompt");
    drop(stdin);
    let _held = child.stdout.take();
    let status = crate::support::term_when_stuck(&mut child);
    assert_eq!(status.signal(), Some(15), "{status:?}");
    assert_eq!(last_journal_entry(&journal)["signal"], "TERM");
}

/// `mock-agent codex ARGS` run in `dir`, `hi` on stdin, `CODEX_HOME` at `home`.
fn codex_in(dir: &Path, args: &[&str], home: &Path) -> Output {
    let mut cmd = mock_std();
    cmd.arg("codex")
        .args(args)
        .env("CODEX_HOME", home)
        .current_dir(dir);
    run_with_stdin(cmd, Some("hi"))
}

/// `-C DIR` naming no folder ends `codex exec` at once, as 0.163.0 ends it (observed,
/// without `RUST_BACKTRACE`): the OS's words on stderr, exit 1, nothing on stdout,
/// before its prompt is read (stdin is left open here) and before the Git check.
#[test]
fn a_workdir_that_is_not_there_ends_codex_exec_before_its_prompt() {
    use std::process::Stdio;
    let home = tempfile::tempdir().expect("temp dir");
    for prompt in ["-", "hi"] {
        let mut child = mock_std()
            .args(["codex", "exec", "--json", "-C", "/no/such/folder", prompt])
            .env("CODEX_HOME", home.path())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawns");
        let _open = child.stdin.take();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while child.try_wait().expect("waits").is_none() {
            assert!(
                std::time::Instant::now() < deadline,
                "{prompt}: it waited for its prompt"
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let out = child.wait_with_output().expect("ends");
        assert_eq!(out.status.code(), Some(1), "{prompt}");
        assert!(out.stdout.is_empty(), "{prompt}: {}", text(&out.stdout));
        assert_eq!(
            text(&out.stderr),
            "Error: No such file or directory (os error 2)\n",
            "{prompt}"
        );
    }
}

/// Outside a Git repository, `codex exec` without `--skip-git-repo-check` refuses as
/// 0.163.0 does (observed): its prompt read, then the refusal, exit 1, nothing on
/// stdout, before any thread (`exec resume` too, before it looks for one). The flag,
/// `--dangerously-bypass-approvals-and-sandbox`, `-C` into a repository, or a `.git`
/// here or above (a file, or a folder with a `HEAD`) let it run; an empty `.git`
/// folder is no repository.
#[test]
fn outside_a_git_repository_codex_exec_refuses_without_the_flag() {
    const REFUSAL: &str = "Not inside a trusted directory and --skip-git-repo-check was not specified.\n";
    let home = tempfile::tempdir().expect("temp dir");
    let dir = tempfile::tempdir().expect("temp dir");
    let (dir, home) = (dir.path(), home.path());
    for (args, said) in [
        (
            &["exec", "--json", "hi"][..],
            "Reading additional input from stdin...\n",
        ),
        (&["exec", "--json", "-"][..], "Reading prompt from stdin...\n"),
        (
            &["exec", "--json", "-C", "."][..],
            "Reading prompt from stdin...\n",
        ),
    ] {
        let out = codex_in(dir, args, home);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", text(&out.stderr));
        assert!(out.stdout.is_empty(), "{args:?}: {}", text(&out.stdout));
        assert_eq!(text(&out.stderr), format!("{said}{REFUSAL}"), "{args:?}");
    }
    let out = codex_in(dir, &["exec", "--json", "resume", "--last"], home);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).ends_with(REFUSAL), "{}", text(&out.stderr));
    assert!(
        std::fs::read_dir(home).expect("reads").next().is_none(),
        "no thread kept"
    );
    let repository = root().display().to_string();
    for args in [
        &["exec", "--json", "--skip-git-repo-check", "hi"][..],
        &[
            "exec",
            "--json",
            "--dangerously-bypass-approvals-and-sandbox",
            "hi",
        ][..],
        &["exec", "--json", "-C", &repository, "hi"][..],
    ] {
        let out = codex_in(dir, args, home);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", text(&out.stderr));
        assert!(!text(&out.stderr).contains(REFUSAL), "{args:?}");
    }
    // What makes a folder a repository, to the real CLI.
    let empty = dir.join("empty");
    std::fs::create_dir_all(empty.join(".git")).expect("mkdir");
    let out = codex_in(&empty, &["exec", "--json", "hi"], home);
    assert_eq!(out.status.code(), Some(1), "an empty .git folder is none");
    let with_head = dir.join("with-head");
    std::fs::create_dir_all(with_head.join(".git")).expect("mkdir");
    std::fs::write(with_head.join(".git/HEAD"), "ref: refs/heads/main\n").expect("writes");
    let pointer = dir.join("pointer");
    std::fs::create_dir_all(&pointer).expect("mkdir");
    std::fs::write(pointer.join(".git"), "gitdir: /elsewhere/.git/worktrees/x\n").expect("writes");
    let below = with_head.join("a/b");
    std::fs::create_dir_all(below.join(".git")).expect("mkdir");
    for inside in [&with_head, &pointer, &below] {
        let out = codex_in(inside, &["exec", "--json", "hi"], home);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}: {}",
            inside.display(),
            text(&out.stderr)
        );
    }
}

/// `mock-agent test` runs the program where the user runs it: in a Git repository, a
/// program that does not pass `--skip-git-repo-check` passes (as with the real CLI
/// there); outside one, its case is not run, with what to do, and not failed: the
/// folder is the user's choice, not the program's bug.
#[test]
fn a_program_that_leaves_the_git_check_on_is_played_where_the_user_runs_the_test() {
    let home = tempfile::tempdir().expect("temp dir");
    let args = ["--filter", "default/clean"];
    // Without `--json`, stdout holds the final message only: the answer shown.
    let out = test_codex("codex exec hi", &args, home.path());
    crate::support::assert_passed(&out, "1 case: 1 passed, 0 failed");
    let elsewhere = tempfile::tempdir().expect("temp dir");
    let out = mock_std()
        .args(["test", "--dialect", "codex", "--consumer", "codex exec hi"])
        .args(args)
        .env("CODEX_HOME", home.path())
        .current_dir(elsewhere.path())
        .output()
        .expect("runs");
    let report = text(&out.stdout) + &text(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(harness::exit_codes::CASES_NOT_RUN),
        "{report}"
    );
    assert!(
        report.contains("the agent stopped at codex exec's Git-repository check"),
        "{report}"
    );
    assert!(report.contains("pass `--skip-git-repo-check`"), "{report}");
    assert!(!report.contains("reports-success"), "{report}");
}
