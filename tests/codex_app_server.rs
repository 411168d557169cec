//! `codex app-server` through the binary (the handshake and the real server's errors,
//! threads kept across processes), and `mock-agent test --dialect codex-app-server` on
//! programs built on the Python SDK (`openai-codex`, tests/consumers/codex_sdk_*.py):
//! the careful one passes every matrix case, each planted bug is caught by its property.

use std::io::Write;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

use crate::support::{assert_caught, assert_clean_passes, bin, root, test_dialect, text};

/// The mock as `codex app-server`, fed `lines` then the end of stdin.
fn serve(lines: &[&str], home: &std::path::Path, faults: &str) -> Output {
    let mut child = crate::support::spawn_piped(
        Command::new(bin())
            .args(["codex", "app-server", "--listen", "stdio://"])
            .env("CODEX_HOME", home)
            .env("MOCK_AGENT_FAULTS", faults),
    );
    let mut stdin = child.stdin.take().expect("stdin");
    for line in lines {
        writeln!(stdin, "{line}").expect("writes");
    }
    drop(stdin);
    child.wait_with_output().expect("ends")
}

fn values(output: &Output) -> Vec<Value> {
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

const INIT: &str = r#"{"method":"initialize","id":0,"params":{"clientInfo":{"name":"probe","version":"1"}}}"#;

#[test]
fn the_handshake_and_the_real_server_s_errors() {
    let home = tempfile::tempdir().expect("temp dir");
    let out = serve(
        &[
            r#"{"method":"thread/start","id":1,"params":{}}"#,
            INIT,
            INIT,
            "{not json",
            r#"{"method":"no/such","id":2}"#,
            r#"{"method":"turn/start","id":3,"params":{"threadId":"nope","input":[]}}"#,
            r#"{"method":"thread/resume","id":4,"params":{"threadId":"00000000-0000-0000-0000-000000000000"}}"#,
        ],
        home.path(),
        "",
    );
    assert_eq!(out.status.code(), Some(0));
    let all = values(&out);
    assert!(all.iter().all(|v| v.get("jsonrpc").is_none()));
    // The handshake's notifications follow `initialize`'s answer; the answers, in order.
    let handshake: Vec<&str> = all.iter().filter_map(|v| v["method"].as_str()).collect();
    assert_eq!(handshake, ["configWarning", "remoteControl/status/changed"]);
    let values: Vec<&Value> = all.iter().filter(|v| v.get("method").is_none()).collect();
    assert_eq!(values[0]["error"]["message"], "Not initialized");
    assert!(values[1]["result"]["userAgent"]
        .as_str()
        .is_some_and(|a| a.starts_with("probe/0.163.0 ")));
    assert_eq!(values[2]["error"]["message"], "Already initialized");
    let errors: Vec<(i64, String)> = values[3..]
        .iter()
        .map(|v| {
            (
                v["error"]["code"].as_i64().unwrap_or(0),
                v["error"]["message"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect();
    assert!(errors.iter().all(|(code, _)| *code == -32600), "{errors:?}");
    assert!(errors[0].1.contains("unknown variant `no/such`"), "{errors:?}");
    assert!(
        errors[1].1.starts_with("invalid thread id: invalid character"),
        "{errors:?}"
    );
    assert!(
        errors[2].1.starts_with("no rollout found for thread id"),
        "{errors:?}"
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("Failed to deserialize JSONRPCMessage"));
}

#[test]
fn a_listener_other_than_stdio_is_the_mock_s_own_error() {
    let out = Command::new(bin())
        .args(["codex", "app-server", "--listen", "ws://127.0.0.1:1"])
        .stdin(Stdio::null())
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(harness::exit_codes::USAGE));
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("mock-agent: codex app-server --listen ws://"));
}

/// A client line over 64 MiB is the mock's own error (exit 65, one line on stderr),
/// never a wait for ever for an answer to a line nobody read.
#[test]
fn a_line_over_64_mib_is_the_mock_s_own_error() {
    let home = tempfile::tempdir().expect("temp dir");
    let mut child = crate::support::spawn_piped(
        Command::new(bin())
            .args(["codex", "app-server", "--listen", "stdio://"])
            .env("CODEX_HOME", home.path()),
    );
    let mut stdin = child.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || {
        // The mock stops reading past the limit: the rest may meet a closed pipe.
        let _ = writeln!(stdin, "{INIT}");
        let _ = stdin.write_all(br#"{"method":"thread/start","id":1,"params":{"x":""#);
        let chunk = vec![b'x'; 1 << 20];
        for _ in 0..65 {
            if stdin.write_all(&chunk).is_err() {
                return;
            }
        }
        let _ = stdin.write_all(b"\"}}\n");
    });
    let out = child.wait_with_output().expect("ends");
    writer.join().expect("writer");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(harness::exit_codes::INVALID_INPUT),
        "{stderr}"
    );
    // After what the real server writes at its start (its sandbox warning).
    let last = stderr.lines().last().unwrap_or_default();
    assert!(
        last.starts_with("mock-agent: a line on stdin is over 64 MiB ("),
        "{stderr}"
    );
    assert_eq!(stderr.matches("mock-agent:").count(), 1, "{stderr}");
}

/// `mock-agent test --dialect codex-app-server` on a program of tests/consumers, run by
/// the Python SDK's python.
fn test_with(script: &str, extra: &[&str]) -> Output {
    let python = crate::codex_sdks::python();
    let consumer = format!(
        "CONSUMER_TOTAL_TIMEOUT=6 {} {}",
        python.display(),
        crate::support::consumer_path(script)
    );
    test_dialect("codex-app-server", &consumer, extra, &[])
}

#[test]
fn the_careful_sdk_client_passes_every_matrix_case() {
    // Its watchdog (6 s) and the SDK's `close()` (up to 2 s for the server to end)
    // end a stalled case; a loaded machine adds seconds to Python's start.
    let out = test_with("codex_sdk_careful.py", &["--timeout", "15"]);
    crate::support::assert_passed(&out, "17 cases: 17 passed, 0 failed");
}

#[test]
fn each_planted_sdk_client_bug_is_caught_by_its_property() {
    for &bug in crate::conformance::planted("codex-app-server") {
        let script = bug.0;
        assert_caught(test_with, bug);
        // The bug does not show on a clean run (where nothing asks the one that never
        // answers, which prints no answer either).
        if script == "codex_sdk_never_answers.py" {
            continue;
        }
        assert_clean_passes(test_with, script);
    }
}

/// A conversation as a sequence of labels: direction, method (or `result`), and the
/// item's type and status, or the thread's status.
fn labels<'a>(messages: impl IntoIterator<Item = (&'a str, &'a str)>) -> Vec<String> {
    messages
        .into_iter()
        .filter(|(dir, _)| *dir == "in" || *dir == "out")
        .filter_map(|(dir, line)| {
            let v: Value = serde_json::from_str(line).ok()?;
            let kind = v["method"].as_str().unwrap_or(if v.get("result").is_some() {
                "result"
            } else {
                "error"
            });
            let params = &v["params"];
            let extra = match (params.get("item"), params.get("status")) {
                (Some(item), _) => format!(" {} {}", item["type"], item["status"]),
                (None, Some(status)) => format!(" {status}"),
                _ => String::new(),
            };
            Some(format!("{dir} {kind}{extra}"))
        })
        .collect()
}

/// What a consumer cannot tell apart from the real server: each curated cassette,
/// recorded from the real Codex 0.163.0 through the Python SDK, replayed by the
/// stand-in (as a script) to the same SDK client, gives the same conversation, message
/// for message. (How the pure player's own telling of a recording's session compares
/// with the real server is a unit test of `harness::dialects::codex_app_server::expect`.)
#[test]
fn each_real_recording_replays_to_the_same_client_as_recorded() {
    for (name, policy, decision) in [
        ("real-turn", "default", "accept"),
        ("real-approval-accept", "untrusted", "accept"),
        ("real-approval-decline", "untrusted", "decline"),
    ] {
        let cassette = root().join(format!("cassettes/codex-app-server/{name}.cassette"));
        let dir = tempfile::tempdir().expect("temp dir");
        let codex = dir.path().join("codex");
        std::os::unix::fs::symlink(bin(), &codex).expect("symlink");
        let journal = dir.path().join("journal.jsonl");
        let mut command = Command::new(crate::codex_sdks::python());
        harness::run::child::without_mock_env(&mut command);
        let out = command
            .arg(root().join("tests/codex/sdk-py/conversation.py"))
            .args([policy, decision])
            .current_dir(dir.path())
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .env("CODEX_CLI", &codex)
            .env("CODEX_HOME", dir.path())
            .env("MOCK_AGENT_CASSETTE", &cassette)
            .env("MOCK_AGENT_JOURNAL", &journal)
            .output()
            .expect("runs the client");
        assert!(out.status.success(), "{name}: {}", text(&out.stderr));
        let entries = harness::journal::read(&journal).expect("the journal");
        let conversation = entries
            .iter()
            .rev()
            .find_map(|e| e.acp.as_ref())
            .expect("a conversation");
        let played = labels(
            conversation
                .messages
                .iter()
                .map(|m| (m.dir.as_str(), m.line.as_str())),
        );
        let recorded_text = std::fs::read_to_string(&cassette).expect("reads");
        let recorded: Vec<(String, String)> = recorded_text
            .lines()
            .skip(1)
            .filter_map(|l| {
                let v: Value = serde_json::from_str(l).ok()?;
                ["in", "out"]
                    .into_iter()
                    .find_map(|dir| v.get(dir).map(|m| (dir.to_owned(), m.to_string())))
            })
            .collect();
        let recorded = labels(recorded.iter().map(|(d, l)| (d.as_str(), l.as_str())));
        // The server's lines in order, and the client's: the real server writes the
        // handshake's two notifications a moment after `initialize`'s answer, so they
        // fall among the client's next requests (where, varies from run to run).
        let split = |labels: Vec<String>| -> (Vec<String>, Vec<String>) {
            let (outs, ins): (Vec<String>, Vec<String>) =
                labels.into_iter().partition(|l| l.starts_with("out "));
            let handshake =
                |l: &String| l.starts_with("out configWarning") || l.starts_with("out remoteControl/");
            let (early, outs): (Vec<String>, Vec<String>) = outs.into_iter().partition(handshake);
            assert_eq!(early.len(), 2, "{name}: {early:?}");
            (outs, ins)
        };
        assert_eq!(split(played), split(recorded), "{name}");
    }
}

/// A server under way, its lines read as they come.
struct Live {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    lines: std::sync::mpsc::Receiver<Value>,
}

impl Live {
    fn start(home: &std::path::Path) -> Live {
        Live::with_faults(home, "")
    }

    fn with_faults(home: &std::path::Path, faults: &str) -> Live {
        let mut child = Command::new(bin())
            .args(["codex", "app-server"])
            .env("CODEX_HOME", home)
            .env("MOCK_AGENT_FAULTS", faults)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawns");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = child.stdout.take().expect("stdout");
        let (send, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            use std::io::BufRead;
            for line in std::io::BufReader::new(stdout).lines().map_while(Result::ok) {
                if send
                    .send(serde_json::from_str(&line).unwrap_or(Value::Null))
                    .is_err()
                {
                    return;
                }
            }
        });
        Live { child, stdin, lines }
    }

    /// Initializes, starts a thread with `params` (id 1) and its first turn (id 2):
    /// the thread's id, the `turn/start` line, the turn's id.
    fn first_turn(&mut self, params: &str) -> (String, String, Value) {
        self.send(INIT);
        self.send(r#"{"method":"initialized"}"#);
        self.send(&format!(
            r#"{{"method":"thread/start","id":1,"params":{params}}}"#
        ));
        let thread = self.until(|v| v["id"] == 1).pop().expect("an answer")["result"]["thread"]["id"]
            .as_str()
            .expect("a thread id")
            .to_owned();
        let start = format!(
            r#"{{"method":"turn/start","id":2,"params":{{"threadId":"{thread}","input":[{{"type":"text","text":"hi"}}]}}}}"#
        );
        self.send(&start);
        let turn = self.until(|v| v["id"] == 2).pop().expect("an answer")["result"]["turn"]["id"].clone();
        (thread, start, turn)
    }

    fn send(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").expect("writes");
    }

    /// The lines up to the first that `done` takes, that one included.
    fn until(&self, done: impl Fn(&Value) -> bool) -> Vec<Value> {
        let mut seen = Vec::new();
        loop {
            let line = self
                .lines
                .recv_timeout(std::time::Duration::from_secs(10))
                .unwrap_or_else(|_| panic!("no such line; seen {seen:#?}"));
            let last = done(&line);
            seen.push(line);
            if last {
                return seen;
            }
        }
    }
}

#[test]
fn an_interrupt_at_an_approval_ends_the_turn_interrupted_and_the_thread_goes_on() {
    let home = tempfile::tempdir().expect("temp dir");
    let mut live = Live::start(home.path());
    let (thread, start, turn) = live.first_turn(r#"{"approvalPolicy":"untrusted"}"#);
    let asked = live.until(|v| v["method"] == "item/commandExecution/requestApproval");
    assert_eq!(asked.last().expect("the request")["id"], 0);
    live.send(&format!(
        r#"{{"method":"turn/interrupt","id":3,"params":{{"threadId":"{thread}","turnId":{turn}}}}}"#
    ));
    let ended = live.until(|v| v["method"] == "turn/completed");
    assert!(ended
        .iter()
        .any(|v| v["id"] == 3 && v["result"] == serde_json::json!({})));
    let item = ended
        .iter()
        .find(|v| v["method"] == "item/completed")
        .expect("the held command ends");
    assert_eq!(item["params"]["item"]["status"], "declined");
    assert_eq!(
        ended.last().expect("the end")["params"]["turn"]["status"],
        "interrupted"
    );
    // The thread takes the next turn; the end of stdin ends the server with 0.
    live.send(&start.replace("\"id\":2", "\"id\":4"));
    live.until(|v| v["method"] == "item/commandExecution/requestApproval");
    live.send(r#"{"id":1,"result":{"decision":"cancel"}}"#);
    let ended = live.until(|v| v["method"] == "turn/completed");
    assert_eq!(
        ended.last().expect("the end")["params"]["turn"]["status"],
        "interrupted"
    );
    drop(live.stdin);
    assert_eq!(live.child.wait().expect("ends").code(), Some(0));
}

/// The real 0.163.0, its model stream stalled, answers `turn/interrupt` (`{}`) and
/// ends the turn `interrupted` (observed); so does the mock in a stall, for ever or
/// not, and the thread takes the next turn. A stall at `turn/completed` (the turn's
/// end already told) ends there: the turn completes as told, and the interrupt is
/// answered.
#[test]
fn an_interrupt_in_a_stall_is_answered_and_ends_the_turn_interrupted() {
    for (faults, ends) in [
        ("stall:at=agentMessage", "interrupted"),
        ("stall:ms=60000,at=agentMessage", "interrupted"),
        ("stall:at=turn/completed", "completed"),
    ] {
        let home = tempfile::tempdir().expect("temp dir");
        let mut live = Live::with_faults(home.path(), faults);
        let (thread, start, turn) = live.first_turn("{}");
        live.until(|v| v["method"] == "turn/started");
        live.send(&format!(
            r#"{{"method":"turn/interrupt","id":3,"params":{{"threadId":"{thread}","turnId":{turn}}}}}"#
        ));
        // The answer and the turn's end, in either order.
        let mut ended = live.until(|v| v["method"] == "turn/completed" || v["id"] == 3);
        ended.extend(live.until(|v| v["method"] == "turn/completed" || v["id"] == 3));
        assert!(
            ended
                .iter()
                .any(|v| v["id"] == 3 && v["result"] == serde_json::json!({})),
            "{faults}: {ended:#?}"
        );
        if ends == "interrupted" {
            assert!(
                !ended
                    .iter()
                    .any(|v| v["params"]["item"]["type"] == "agentMessage"),
                "{faults}: nothing of the stalled turn after the interrupt"
            );
        }
        let end = ended
            .iter()
            .find(|v| v["method"] == "turn/completed")
            .expect("the end");
        assert_eq!(end["params"]["turn"]["status"], ends, "{faults}");
        // The next turn is played in full; the end of stdin ends the server with 0.
        live.send(&start.replace("\"id\":2", "\"id\":4"));
        let next = live.until(|v| v["method"] == "turn/completed");
        assert_eq!(
            next.last().expect("the end")["params"]["turn"]["status"],
            "completed",
            "{faults}"
        );
        drop(live.stdin);
        assert_eq!(live.child.wait().expect("ends").code(), Some(0), "{faults}");
    }
}

/// `mock-agent record -- codex app-server` through the Python SDK's client: both
/// directions under a `codex-app-server` header, lint clean, the key kept out; the
/// recording replays to the same client.
#[test]
fn recording_the_mock_as_codex_app_server_keeps_both_ways_and_replays() {
    let dir = tempfile::tempdir().expect("temp dir");
    let cassette = dir.path().join("server.cassette");
    let codex = dir.path().join("codex");
    let mock = bin();
    std::fs::write(
        &codex,
        format!(
            "#!/bin/sh\nexec '{}' record --out '{}' --no-progress -- '{}' codex \"$@\"\n",
            mock.display(),
            cassette.display(),
            mock.display()
        ),
    )
    .expect("writes the wrapper");
    let mut permissions = std::fs::metadata(&codex).expect("stat").permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, 0o755);
    std::fs::set_permissions(&codex, permissions).expect("chmod");
    let client = |codex: &std::path::Path, env: &[(&str, &std::path::Path)]| {
        let mut command = Command::new(crate::codex_sdks::python());
        harness::run::child::without_mock_env(&mut command);
        command
            .arg(root().join("tests/codex/sdk-py/conversation.py"))
            .args(["untrusted", "accept"])
            .current_dir(dir.path())
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .env("CODEX_CLI", codex)
            .env("CODEX_HOME", dir.path())
            .env("CODEX_API_KEY", "sk-this-is-secret");
        for (name, value) in env {
            command.env(name, value);
        }
        command.output().expect("runs the client")
    };
    let out = client(&codex, &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "status completed asked 2\n");
    let recorded = std::fs::read_to_string(&cassette).expect("the cassette");
    assert!(!recorded.contains("sk-this-is-secret"));
    assert!(recorded
        .lines()
        .next()
        .is_some_and(|h| h.contains(r#""dialect":"codex-app-server""#)));
    assert!(recorded.contains(r#""in":"#) && recorded.contains("requestApproval"));
    let report = harness::dialects::check_file(&cassette).expect("lints");
    assert!(report.passes(), "{report:?}");
    // Replayed: the same turn, asked the same.
    let link = dir.path().join("bin");
    std::fs::create_dir(&link).expect("bin");
    std::os::unix::fs::symlink(&mock, link.join("codex")).expect("symlink");
    let out = client(&link.join("codex"), &[("MOCK_AGENT_CASSETTE", &cassette)]);
    assert_eq!(
        text(&out.stdout),
        "status completed asked 2\n",
        "{}",
        text(&out.stderr)
    );
}

/// A recording's lines replayed in one piece (no fault, journal, timing or step mode:
/// notifications and the answers written as they stand run together) are the bytes
/// the replay writes a line at a time (a journal makes it so), whether the client's
/// request ids are the recorded ones or others (whose answers are rewritten).
#[test]
fn a_replay_in_one_piece_writes_what_it_writes_a_line_at_a_time() {
    use harness::cassette::{Header, Writer};
    use harness::frames::{Frame, Stream};

    let dialect = harness::dialects::by_name("codex-app-server").expect("registered");
    let dir = tempfile::tempdir().expect("temp dir");
    for (seed, repeats) in [(0, 1), (1, 1), (2, 1), (3, 1), (7, 1), (7, 3000)] {
        let generated = dir.path().join(format!("{seed}.generated.cassette"));
        dialect.generate(seed, None, Some(&generated)).expect("generates");
        let mut reader = harness::cassette::open(&generated).expect("opens");
        let header: Header = reader.header().cloned().expect("a header");
        let frames: Vec<Frame> = reader.by_ref().map(|f| f.expect("reads")).collect();
        // The turn after the client's last line, repeated: runs cross the read
        // buffer's end and the run's bound.
        let last_in = frames
            .iter()
            .rposition(|f| matches!(f, Frame::Line(l) if l.stream == Stream::Stdin))
            .expect("a client line");
        let cassette = dir.path().join(format!("{seed}-{repeats}.cassette"));
        let mut writer = Writer::create(&cassette, &header).expect("creates");
        let (head, tail) = frames.split_at(last_in + 1);
        let (turn, end) = tail.split_at(tail.len() - 1);
        for frame in head.iter().chain((0..repeats).flat_map(|_| turn)).chain(end) {
            writer.write(frame).expect("writes");
        }
        writer.finish().expect("finishes");
        let sent: Vec<String> = frames
            .iter()
            .filter_map(|f| match f {
                Frame::Line(l) if l.stream == Stream::Stdin => {
                    Some(String::from_utf8_lossy(&l.bytes).into_owned())
                }
                _ => None,
            })
            .collect();
        // The client's ids as recorded, then others.
        let shifted: Vec<String> = sent
            .iter()
            .map(|line| {
                let mut value: Value = serde_json::from_str(line).expect("json");
                if let Some(id) = value.get("id").and_then(Value::as_i64) {
                    value["id"] = Value::from(id + 100);
                }
                value.to_string()
            })
            .collect();
        for lines in [&sent, &shifted] {
            let played = |journal: bool| {
                let home = tempfile::tempdir().expect("temp dir");
                let mut command = Command::new(bin());
                harness::run::child::without_mock_env(&mut command);
                command
                    .args(["codex", "app-server", "--listen", "stdio://"])
                    .env("CODEX_HOME", home.path())
                    .env("MOCK_AGENT_CASSETTE", &cassette)
                    .stdin(Stdio::piped())
                    .stdout(Stdio::piped())
                    .stderr(Stdio::null());
                if journal {
                    command.env("MOCK_AGENT_JOURNAL", home.path().join("journal.jsonl"));
                }
                let mut child = command.spawn().expect("spawns");
                let mut stdin = child.stdin.take().expect("stdin");
                for line in lines {
                    writeln!(stdin, "{line}").expect("writes");
                }
                // stdin stays open until the recording's end: the server ends there.
                let mut stdout = Vec::new();
                std::io::Read::read_to_end(&mut child.stdout.take().expect("stdout"), &mut stdout)
                    .expect("reads");
                drop(stdin);
                assert!(child.wait().expect("ends").success(), "seed {seed}");
                stdout
            };
            let (whole, one) = (played(false), played(true));
            assert!(!whole.is_empty(), "seed {seed}");
            assert!(whole == one, "seed {seed}, {repeats}: the bytes differ");
        }
    }
}
