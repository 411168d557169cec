//! Claude Code cassettes: `mock-agent record -- claude ... --input-format stream-json`
//! records both ways with secrets out; a Claude cassette replays to a live client
//! byte for byte but the request ids, which are the client's, and a permission
//! answer unlike the recorded one is journaled as a divergence.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::{json, Value};

use crate::claude::{with_prompt_tool, PYTHON};
use crate::support::{bin, root};

/// What a client saw: the CLI's lines, its exit code.
struct Seen {
    lines: Vec<String>,
    code: Option<i32>,
}

/// Runs `cmd` as an Agent SDK does: `initialize` with the id `init_id`, then one
/// prompt once it is answered; each `can_use_tool` is answered with `behavior`; stdin
/// closes after the result.
fn sdk(mut cmd: Command, init_id: &str, prompt: &str, behavior: &str) -> Seen {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawns");
    let mut stdin = child.stdin.take();
    let stdout = child.stdout.take().expect("stdout");
    let (sender, receiver) = std::sync::mpsc::channel::<String>();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if sender.send(line).is_err() {
                return;
            }
        }
    });
    let write = |stdin: &mut Option<std::process::ChildStdin>, value: Value| {
        if let Some(stdin) = stdin.as_mut() {
            let _ = stdin.write_all(format!("{value}\n").as_bytes());
        }
    };
    write(
        &mut stdin,
        json!({"type": "control_request", "request_id": init_id, "request": {"subtype": "initialize", "hooks": null}}),
    );
    let mut lines = Vec::new();
    while let Ok(line) = receiver.recv_timeout(Duration::from_secs(30)) {
        let message: Value = serde_json::from_str(&line).unwrap_or(Value::Null);
        lines.push(line);
        match message["type"].as_str() {
            Some("control_response") if message["response"]["request_id"] == init_id => write(
                &mut stdin,
                json!({"type": "user", "session_id": "", "message": {"role": "user", "content": prompt}, "parent_tool_use_id": null}),
            ),
            Some("control_request") => {
                let response = if behavior == "allow" {
                    json!({"behavior": "allow", "updatedInput": message["request"]["input"]})
                } else {
                    json!({"behavior": "deny", "message": "Not now"})
                };
                write(
                    &mut stdin,
                    json!({"type": "control_response", "response": {"subtype": "success",
                        "request_id": message["request_id"], "response": response}}),
                );
            }
            Some("result") => drop(stdin.take()),
            _ => {}
        }
    }
    drop(stdin);
    Seen {
        lines,
        code: child.wait().expect("waits").code(),
    }
}

/// A folder with a link named `claude` to the binary.
fn installed() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    let claude = dir.path().join("claude");
    std::os::unix::fs::symlink(bin(), &claude).expect("symlink");
    (dir, claude)
}

/// `claude ARGV` (the link; the argv the Python Agent SDK gives the CLI with a
/// permission callback) with no `MOCK_AGENT_*` but `env`, and the state
/// variable the SDKs set.
fn claude(link: &Path, env: &[(&str, &Path)]) -> Command {
    let mut cmd = Command::new(link);
    cmd.args(with_prompt_tool())
        .current_dir(root())
        .env("CLAUDE_CODE_SDK_READS_SESSION_STATE", "1");
    harness::run::child::without_mock_env(&mut cmd);
    for (name, value) in env {
        cmd.env(name, value);
    }
    cmd
}

/// The divergences of the last journal entry.
fn divergences(journal: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(journal).expect("the journal");
    let entry: Value = serde_json::from_str(text.lines().last().expect("an entry")).expect("JSON");
    entry["claude"]["divergences"]
        .as_array()
        .map(|d| d.iter().filter_map(|d| d.as_str().map(str::to_owned)).collect())
        .unwrap_or_default()
}

/// The CLI's lines of a cassette (its `out` frames), as recorded.
fn recorded_lines(cassette: &Path) -> Vec<String> {
    harness::cassette::open(cassette)
        .expect("opens")
        .filter_map(|frame| match frame.expect("reads") {
            harness::frames::Frame::Line(line) if line.stream == harness::frames::Stream::Stdout => {
                Some(String::from_utf8(line.bytes).expect("utf-8"))
            }
            _ => None,
        })
        .collect()
}

#[test]
fn recording_the_mock_as_claude_then_replaying_gives_the_same_bytes_but_the_ids() {
    let (dir, link) = installed();
    let cassette = dir.path().join("sdk.cassette");
    let secret = "sk-ant-api03-SECRET-0123456789";
    let mut record = Command::new(bin());
    record
        .args(["record", "--out"])
        .arg(&cassette)
        .arg("--")
        .arg(&link)
        .args(with_prompt_tool())
        .current_dir(root())
        .env("ANTHROPIC_API_KEY", secret)
        .env("CLAUDE_CODE_SDK_READS_SESSION_STATE", "1");
    harness::run::child::without_mock_env(&mut record);
    record.env("ANTHROPIC_API_KEY", secret);
    let recorded = sdk(record, "req_1_aaaa", &format!("use the key {secret}"), "allow");
    assert_eq!(recorded.code, Some(0));
    assert!(recorded.lines.iter().any(|l| l.contains(r#""type":"result""#)));

    let text = std::fs::read_to_string(&cassette).expect("the cassette");
    assert!(!text.contains(secret), "the key reached the disk:\n{text}");
    assert!(text.contains("use the key [REDACTED]"), "{text}");
    let header: Value = serde_json::from_str(text.lines().next().expect("header")).expect("JSON");
    assert_eq!(header["mock_agent_cassette"], 2);
    assert_eq!(header["invocation"]["dialect"], "claude");
    assert!(
        text.contains(r#""in":{"type":"control_response""#),
        "the answer is recorded"
    );
    // What passed through is what was recorded.
    assert_eq!(recorded.lines, recorded_lines(&cassette));

    let journal = dir.path().join("journal.jsonl");
    let replayed = sdk(
        claude(
            &link,
            &[
                ("MOCK_AGENT_CASSETTE", &cassette),
                ("MOCK_AGENT_JOURNAL", &journal),
            ],
        ),
        "req_7_live",
        "another prompt",
        "allow",
    );
    assert_eq!(replayed.code, Some(0));
    let expected: Vec<String> = recorded
        .lines
        .iter()
        .map(|l| l.replace("req_1_aaaa", "req_7_live"))
        .collect();
    assert_eq!(replayed.lines, expected);
    assert_eq!(divergences(&journal), Vec::<String>::new());
}

#[test]
fn the_curated_cassette_replays_with_live_ids_and_a_deny_is_a_divergence() {
    let cassette = root().join("cassettes/claude/default.cassette");
    let recorded = recorded_lines(&cassette);
    let (dir, link) = installed();
    let journal = dir.path().join("journal.jsonl");
    let env = [
        ("MOCK_AGENT_CASSETTE", cassette.as_path()),
        ("MOCK_AGENT_JOURNAL", journal.as_path()),
    ];
    let allowed = sdk(claude(&link, &env), "live-1", "hi", "allow");
    assert_eq!(allowed.code, Some(0));
    assert_eq!(allowed.lines.len(), recorded.len());
    assert_eq!(allowed.lines[0], recorded[0].replace("req_1_abcd", "live-1"));
    assert!(allowed.lines[0].contains(r#""request_id":"live-1""#));
    assert_eq!(allowed.lines[1..], recorded[1..]);
    assert_eq!(divergences(&journal), Vec::<String>::new());

    let denied = sdk(claude(&link, &env), "live-2", "hi", "deny");
    assert_eq!(denied.code, Some(0));
    assert_eq!(
        denied.lines[1..],
        recorded[1..],
        "the recording goes on as recorded"
    );
    let noted = divergences(&journal);
    assert_eq!(noted.len(), 1, "{noted:?}");
    assert!(
        noted[0].contains("can_use_tool") && noted[0].contains("`deny`") && noted[0].contains("`allow`"),
        "{}",
        noted[0]
    );
}

#[test]
fn a_recording_asks_and_tells_states_only_to_a_client_that_asked() {
    // The curated recording asked `can_use_tool` of an SDK client with a permission
    // callback, which read session states; this client has neither.
    let cassette = root().join("cassettes/claude/default.cassette");
    let recorded = recorded_lines(&cassette);
    let (dir, link) = installed();
    let journal = dir.path().join("journal.jsonl");
    let mut cmd = Command::new(&link);
    cmd.args(PYTHON)
        .current_dir(root())
        .env_remove("CLAUDE_CODE_SDK_READS_SESSION_STATE");
    harness::run::child::without_mock_env(&mut cmd);
    cmd.env("MOCK_AGENT_CASSETTE", &cassette)
        .env("MOCK_AGENT_JOURNAL", &journal);
    let seen = sdk(cmd, "req_1_abcd", "hi", "allow");
    assert_eq!(seen.code, Some(0));
    let kept: Vec<&String> = recorded
        .iter()
        .filter(|l| {
            !l.contains(r#""subtype":"session_state_changed""#) && !l.contains(r#""type":"control_request""#)
        })
        .collect();
    assert!(
        kept.len() + 5 <= recorded.len(),
        "the recording asks and has states"
    );
    assert_eq!(seen.lines.iter().collect::<Vec<_>>(), kept);
    let noted = divergences(&journal);
    assert_eq!(noted.len(), 1, "{noted:?}");
    assert!(
        noted[0].contains("can_use_tool") && noted[0].contains("--permission-prompt-tool stdio"),
        "{}",
        noted[0]
    );
}

#[test]
fn a_claude_cassette_is_a_case_expecting_its_recorded_result() {
    let cassette = root().join("cassettes/claude/default.cassette");
    let case = harness::run::matrix::Case::claude(
        harness::run::matrix::CaseSource::Cassette(cassette),
        "",
        "default".into(),
    )
    .expect("a case");
    assert_eq!(
        case.expect,
        harness::dialects::cursor_print::expect::Expectation::Success {
            answer: "Created summary.txt with a one-line summary of the README.".into()
        }
    );
}

#[test]
fn a_cassette_of_another_dialect_is_the_mock_s_own_error() {
    let (_dir, link) = installed();
    let acp = root().join("cassettes/acp/edit.cassette");
    let output = claude(&link, &[("MOCK_AGENT_CASSETTE", &acp)])
        .stdin(Stdio::null())
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_ne!(output.status.code(), Some(0), "{stderr}");
    assert!(stderr.starts_with("mock-agent: "), "{stderr}");
    assert!(stderr.contains("not a recording of Claude Code"), "{stderr}");
}

/// A preset rewrites the session before it is played; a cassette is replayed as
/// recorded: its cases with a preset are not in the matrix (they would play clean).
#[test]
fn a_cassette_s_matrix_has_no_preset_case() {
    let listed = Command::new(bin())
        .args(["cases", "--dialect", "claude", "--no-default", "--cassettes"])
        .arg(root().join("cassettes/claude"))
        .output()
        .expect("runs");
    assert!(listed.status.success());
    let names = String::from_utf8_lossy(&listed.stdout).into_owned();
    assert!(names.contains("default/clean"), "{names}");
    assert!(names.contains("default/exit-1@result"), "{names}");
    for preset in ["not-logged-in", "invalid-api-key", "max-turns", "error-result"] {
        assert!(!names.contains(&format!("/{preset}")), "{preset} in {names}");
    }
    // The built-in session takes them.
    let built_in = Command::new(bin())
        .args(["cases", "--dialect", "claude", "--filter", "not-logged-in"])
        .output()
        .expect("runs");
    assert!(String::from_utf8_lossy(&built_in.stdout).contains("default/not-logged-in"));
}

/// `claude -p` recorded: a Claude Code cassette (not print mode's of Cursor), which
/// lints clean and replays the same lines in stream-json; one recorded in `text` holds
/// no lines of the CLI's, and replaying it is refused with what to do.
#[test]
fn claude_print_mode_is_recorded_as_claude_code() {
    let (dir, link) = installed();
    let record = |out: &Path, format: &str| {
        let mut cmd = Command::new(bin());
        harness::run::child::without_mock_env(&mut cmd);
        let done = cmd
            .args(["record", "--out"])
            .arg(out)
            .arg("--")
            .arg(&link)
            .args(["-p", "hi", "--output-format", format, "--verbose"])
            .current_dir(dir.path())
            .stdin(Stdio::null())
            .output()
            .expect("records");
        crate::support::assert_said(&done, 0);
        done.stdout
    };
    let stream = dir.path().join("p.cassette");
    let recorded = record(&stream, "stream-json");
    let header: Value = serde_json::from_str(
        std::fs::read_to_string(&stream)
            .expect("the cassette")
            .lines()
            .next()
            .expect("a header"),
    )
    .expect("JSON");
    assert_eq!(header["invocation"]["dialect"], "claude", "{header}");
    assert_eq!(header["invocation"]["prompt"], "hi", "{header}");
    let lint = Command::new(bin())
        .arg("lint")
        .arg(&stream)
        .output()
        .expect("lints");
    crate::support::assert_said(&lint, 0);
    let mut replay = Command::new(&link);
    harness::run::child::without_mock_env(&mut replay);
    let replayed = replay
        .args(["-p", "hi", "--output-format", "stream-json", "--verbose"])
        .env("MOCK_AGENT_CASSETTE", &stream)
        .current_dir(dir.path())
        .stdin(Stdio::null())
        .output()
        .expect("replays");
    assert_eq!(replayed.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&replayed.stdout).lines().count(),
        String::from_utf8_lossy(&recorded).lines().count()
    );
    let text = dir.path().join("t.cassette");
    record(&text, "text");
    let mut replay = Command::new(&link);
    harness::run::child::without_mock_env(&mut replay);
    let refused = replay
        .args(["-p", "hi"])
        .env("MOCK_AGENT_CASSETTE", &text)
        .current_dir(dir.path())
        .stdin(Stdio::null())
        .output()
        .expect("runs");
    assert_eq!(refused.status.code(), Some(harness::exit_codes::INVALID_INPUT));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        stderr.starts_with("mock-agent: ")
            && stderr.contains("--output-format text")
            && stderr.contains("help: record it with `--output-format stream-json --verbose`"),
        "{stderr}"
    );
}

/// `claude -p PROMPT --output-format stream-json --verbose` (and `extra`) replaying
/// `cassette`: its stdout lines, parsed.
fn replayed_lines(cassette: &Path, extra: &[&str]) -> Vec<Value> {
    let output = Command::new(bin())
        .arg("claude")
        .args(["-p", "hi", "--output-format", "stream-json", "--verbose"])
        .args(extra)
        .env("MOCK_AGENT_CASSETTE", cassette)
        .stdin(Stdio::null())
        .output()
        .expect("runs the mock");
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).expect("a JSON line"))
        .collect()
}

/// A recording made without `--include-partial-messages`, replayed to a client that
/// asks for them (Zed's ACP adapter and the Agent Framework always do, and read the
/// answer from the deltas alone): each `assistant` line comes with the stream events
/// the real CLI writes around it, the deltas spelling its blocks, and every recorded
/// line is still there, byte for byte, in its order.
#[test]
fn a_recording_without_partial_messages_streams_them_to_a_client_that_asks() {
    let cassette = root().join("cassettes/claude/real-tool.cassette");
    let plain = replayed_lines(&cassette, &[]);
    let partial = replayed_lines(&cassette, &["--include-partial-messages"]);
    let kind = |v: &Value| v["type"].as_str().unwrap_or_default().to_owned();
    assert!(
        plain.iter().all(|v| kind(v) != "stream_event"),
        "none asked, none told"
    );
    let added = |v: &Value| kind(v) == "stream_event" || (kind(v) == "system" && v["subtype"] == "status");
    let kept: Vec<&Value> = partial.iter().filter(|v| !added(v)).collect();
    let plain_kept: Vec<&Value> = plain.iter().filter(|v| !added(v)).collect();
    assert_eq!(kept, plain_kept, "every recorded line, in its order");
    let deltas: String = partial
        .iter()
        .filter(|v| v["event"]["delta"]["type"] == "text_delta")
        .filter_map(|v| v["event"]["delta"]["text"].as_str())
        .collect();
    let texts: String = plain
        .iter()
        .filter(|v| kind(v) == "assistant")
        .flat_map(|v| v["message"]["content"].as_array().cloned().unwrap_or_default())
        .filter(|block| block["type"] == "text")
        .filter_map(|block| block["text"].as_str().map(str::to_owned))
        .collect();
    assert!(!texts.is_empty());
    assert_eq!(deltas, texts, "the deltas spell the answer");
    let events: Vec<String> = partial
        .iter()
        .filter(|v| kind(v) == "stream_event")
        .map(|v| v["event"]["type"].as_str().unwrap_or_default().to_owned())
        .collect();
    let starts = events.iter().filter(|e| *e == "message_start").count();
    let stops = events.iter().filter(|e| *e == "message_stop").count();
    assert!(starts >= 1 && starts == stops, "{events:?}");
    assert_eq!(
        events.last().map(String::as_str),
        Some("message_stop"),
        "{events:?}"
    );
    let result = partial
        .iter()
        .position(|v| kind(v) == "result")
        .expect("a result");
    assert!(partial[..result]
        .iter()
        .rev()
        .find(|v| kind(v) == "stream_event")
        .is_some_and(|v| v["event"]["type"] == "message_stop"));
}

/// `real-tool.cassette` with the lines of its turn's stream (its `assistant` and
/// `user` lines) repeated until the file is over `PREFLIGHT_LIMIT` (read once, as it
/// plays), written to `to`.
fn large_recording(to: &Path) {
    use harness::frames::{Frame, Stream};
    let streamed = |f: &Frame| {
        matches!(f, Frame::Line(l) if l.stream == Stream::Stdout
            && (l.bytes.starts_with(br#"{"type":"assistant","#) || l.bytes.starts_with(br#"{"type":"user","#)))
    };
    let plan = |frames: &[Frame]| {
        let first = frames.iter().position(streamed).expect("a line of the stream");
        let last = frames.iter().rposition(streamed).expect("a line of the stream");
        let bytes: usize = frames[first..=last]
            .iter()
            .map(|f| match f {
                Frame::Line(l) => l.bytes.len(),
                _ => 0,
            })
            .sum();
        let repeats = (harness::cassette::PREFLIGHT_LIMIT as usize).div_ceil(bytes) + 1;
        (first..last + 1, repeats)
    };
    let from = root().join("cassettes/claude/real-tool.cassette");
    crate::support::repeated_frames(&from, to, plan, None);
    assert!(std::fs::metadata(to).expect("written").len() > harness::cassette::PREFLIGHT_LIMIT);
}

/// A large recording replayed with nothing to wait for (its runs of lines read into a
/// buffer handed as it is to the writing thread, the stdout pipe grown) writes what
/// the same replay writes a line at a time (a timing that waits for nothing makes it
/// so), and its journal entry says the same; so for the curated recording.
#[test]
fn a_claude_replay_at_once_writes_what_a_replay_a_line_at_a_time_writes() {
    let dir = tempfile::tempdir().expect("temp dir");
    let large = dir.path().join("large.cassette");
    large_recording(&large);
    for cassette in [root().join("cassettes/claude/default.cassette"), large] {
        let play = |timing: Option<&str>| {
            let (dir, link) = installed();
            let journal = dir.path().join("journal.jsonl");
            let mut cmd = claude(
                &link,
                &[
                    ("MOCK_AGENT_CASSETTE", cassette.as_path()),
                    ("MOCK_AGENT_JOURNAL", journal.as_path()),
                ],
            );
            if let Some(timing) = timing {
                cmd.env("MOCK_AGENT_TIMING", timing);
            }
            let seen = sdk(cmd, "live-1", "hi", "allow");
            let text = std::fs::read_to_string(&journal).expect("the journal");
            let entry: Value = serde_json::from_str(text.lines().last().expect("an entry")).expect("JSON");
            let went: Vec<Value> = ["exit", "faults", "error", "signal", "stdout_closed", "source"]
                .iter()
                .map(|key| entry[*key].clone())
                .collect();
            (seen, went, entry["claude"]["divergences"].clone())
        };
        let (at_once, went, divergences) = play(None);
        let (one_by_one, went_one_by_one, divergences_one_by_one) = play(Some("scale=0"));
        assert_eq!(at_once.code, Some(0), "{}", cassette.display());
        assert!(at_once.lines.len() > 5, "{}", cassette.display());
        assert!(
            at_once.lines == one_by_one.lines,
            "{}: the lines differ ({} and {})",
            cassette.display(),
            at_once.lines.len(),
            one_by_one.lines.len()
        );
        assert_eq!(at_once.code, one_by_one.code);
        assert_eq!(went, went_one_by_one, "{}", cassette.display());
        assert_eq!(divergences, divergences_one_by_one, "{}", cassette.display());
    }
}

/// A large recording replayed at once to a client that reads none of it (the write of
/// a run waits on the full pipe) still ends on SIGTERM: the process dies by the signal,
/// and its journal says so.
#[test]
fn a_claude_replay_at_once_ends_on_sigterm_with_its_stdout_full() {
    use std::os::unix::process::ExitStatusExt;
    let dir = tempfile::tempdir().expect("temp dir");
    let cassette = dir.path().join("large.cassette");
    large_recording(&cassette);
    let (home, link) = installed();
    let journal = home.path().join("journal.jsonl");
    let mut child = claude(
        &link,
        &[
            ("MOCK_AGENT_CASSETTE", cassette.as_path()),
            ("MOCK_AGENT_JOURNAL", journal.as_path()),
        ],
    )
    .stdin(Stdio::piped())
    .stdout(Stdio::piped())
    .stderr(Stdio::null())
    .spawn()
    .expect("spawns");
    let mut stdin = child.stdin.take().expect("stdin");
    for line in [
        json!({"type": "control_request", "request_id": "live-1", "request": {"subtype": "initialize", "hooks": null}}),
        json!({"type": "user", "session_id": "", "message": {"role": "user", "content": "hi"}, "parent_tool_use_id": null}),
    ] {
        stdin.write_all(format!("{line}\n").as_bytes()).expect("writes");
    }
    // Stdout is held and never read; stdin stays open.
    let _held = child.stdout.take();
    let status = crate::support::term_when_stuck(&mut child);
    drop(stdin);
    assert_eq!(status.signal(), Some(15), "{status:?}");
    assert_eq!(crate::support::last_journal_entry(&journal)["signal"], "TERM");
}
