//! Recording server mode: `mock-agent record -- cursor-agent acp` is a transparent
//! proxy in both directions; what it writes replays to the same bytes and the same
//! journal; secrets stay out; the shim's record modes work for `acp`.

use std::path::Path;

use proptest::prelude::*;
use serde_json::Value;

use crate::support::{allow_once, bin, converse, mock_std};

/// The client's requests: a handshake, an authenticate with a credential, a session,
/// a prompt (the agent's permission requests are answered when asked:
/// [`crate::support::converse`]).
fn client() -> String {
    let mut lines = vec![
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}"#.to_owned(),
        r#"{"jsonrpc":"2.0","id":1,"method":"authenticate","params":{"methodId":"cursor_login","token":"tok-SECRET-42"}}"#.to_owned(),
        r#"{"jsonrpc":"2.0","id":"new","method":"session/new","params":{"cwd":"/w","mcpServers":[]}}"#.to_owned(),
    ];
    lines.push(r#"{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"SESSION","prompt":[{"type":"text","text":"go"}]}}"#.to_owned());
    lines.iter().map(|l| format!("{l}\n")).collect()
}

struct Played {
    stdout: Vec<u8>,
    code: Option<i32>,
    journal: Value,
}

/// Runs `mock-agent ARGS` with the client piped in and the journal read back.
fn play(args: &[&str], env: &[(&str, &Path)], input: &str, dir: &Path) -> Played {
    let journal = dir.join("journal.jsonl");
    let _ = std::fs::remove_file(&journal);
    let mut cmd = mock_std();
    cmd.args(args).env("MOCK_AGENT_JOURNAL", &journal);
    for (name, value) in env {
        cmd.env(name, value);
    }
    let output = converse(cmd, input, allow_once);
    let text = std::fs::read_to_string(&journal).unwrap_or_default();
    Played {
        stdout: output.stdout,
        code: output.status.code(),
        journal: text
            .lines()
            .last()
            .and_then(|l| serde_json::from_str(l).ok())
            .unwrap_or(Value::Null),
    }
}

/// The conversation of a journal entry, without times.
fn messages(journal: &Value) -> Vec<(String, String)> {
    journal["acp"]["messages"]
        .as_array()
        .map(|m| {
            m.iter()
                .map(|m| {
                    (
                        m["dir"].as_str().unwrap_or("").to_owned(),
                        m["line"].as_str().unwrap_or("").to_owned(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Records `mock-agent acp` with `env`, then replays the cassette: both give the
/// client the same bytes, and the replay's journal holds the same conversation.
fn record_then_replay(env: &[(&str, &str)]) -> (Played, Played, String) {
    let dir = tempfile::tempdir().expect("temp dir");
    let cassette = dir.path().join("acp.cassette");
    // The recorded agent is the mock itself, run with the settings given here (a
    // recorder passes none of its own MOCK_AGENT_* on).
    let wrapper = dir.path().join("agent.sh");
    let exports: String = env.iter().map(|(k, v)| format!("export {k}='{v}'\n")).collect();
    std::fs::write(
        &wrapper,
        format!("#!/bin/sh\n{exports}exec {} \"$@\"\n", bin().display()),
    )
    .expect("writes");
    std::fs::set_permissions(&wrapper, std::os::unix::fs::PermissionsExt::from_mode(0o755)).expect("chmod");
    let args = [
        "record",
        "--out",
        cassette.to_str().expect("utf-8"),
        "--",
        wrapper.to_str().expect("utf-8"),
        "--api-key",
        "key-SECRET-7",
        "acp",
    ];
    let recorded = play(&args, &[], &client(), dir.path());
    let text = std::fs::read_to_string(&cassette).expect("the cassette");
    let replayed = play(
        &["acp"],
        &[("MOCK_AGENT_CASSETTE", &cassette)],
        &client(),
        dir.path(),
    );
    (recorded, replayed, text)
}

#[test]
fn a_recorded_conversation_replays_the_same_bytes_and_keeps_secrets_out() {
    let (recorded, replayed, cassette) = record_then_replay(&[]);
    assert_eq!(recorded.code, Some(0));
    assert!(!recorded.stdout.is_empty());
    assert_eq!(
        String::from_utf8_lossy(&replayed.stdout),
        String::from_utf8_lossy(&recorded.stdout)
    );
    assert_eq!(replayed.code, Some(0));
    assert!(cassette.starts_with(r#"{"mock_agent_cassette":2,"#) && cassette.contains(r#""acp":true"#));
    assert!(
        cassette.contains(r#""in":{"jsonrpc":"2.0","id":0,"method":"initialize""#),
        "the client's messages"
    );
    for secret in ["key-SECRET-7", "tok-SECRET-42"] {
        assert!(!cassette.contains(secret), "{secret} reached the disk");
    }
    assert_eq!(replayed.journal["acp"]["divergences"], Value::Array(Vec::new()));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(6))]

    /// For generated conversations, record -> replay gives the client the same bytes
    /// and the same journal.
    #[test]
    fn record_then_replay_is_the_identity_for_generated_conversations(seed in 0u64..1_000) {
        let seed = seed.to_string();
        let (recorded, replayed, _) = record_then_replay(&[("MOCK_AGENT_GENERATE", &seed)]);
        prop_assert_eq!(&replayed.stdout, &recorded.stdout);
        prop_assert_eq!(replayed.code, recorded.code);
        // The replay's journal: the same messages both ways; nothing diverged.
        let inner = replayed.journal.clone();
        prop_assert_eq!(&inner["acp"]["divergences"], &Value::Array(Vec::new()));
        let out: Vec<_> = messages(&inner).into_iter().filter(|(d, _)| d == "out").map(|(_, l)| l).collect();
        let recorded_out: Vec<String> = String::from_utf8_lossy(&recorded.stdout).lines().map(str::to_owned).collect();
        prop_assert_eq!(out, recorded_out);
    }
}

#[test]
fn the_shim_records_a_conversation_once_and_replays_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    let library = dir.path().join("library");
    let env: [(&str, &Path); 2] = [("MOCK_AGENT_LIBRARY", &library), ("MOCK_AGENT_REAL", &bin())];
    // Each run a test run of its own (a journal of its own): in one journal, each
    // cassette plays once.
    let run = |journal: &str| {
        let journal = dir.path().join(journal);
        let mut cmd = mock_std();
        cmd.arg("acp")
            .env("MOCK_AGENT_RECORD", "once")
            .envs(env.iter().map(|(k, v)| (*k, v.as_os_str())))
            .env("MOCK_AGENT_JOURNAL", &journal);
        let output = converse(cmd, &client(), allow_once);
        let entry: Value = std::fs::read_to_string(&journal)
            .ok()
            .and_then(|t| t.lines().last().and_then(|l| serde_json::from_str(l).ok()))
            .unwrap_or(Value::Null);
        (output.stdout, entry)
    };
    let (first, recorded) = run("first.jsonl");
    let cassettes: Vec<_> = std::fs::read_dir(&library)
        .expect("the library")
        .flatten()
        .collect();
    assert_eq!(cassettes.len(), 1, "one conversation recorded");
    let (second, replayed) = run("second.jsonl");
    assert_eq!(String::from_utf8_lossy(&second), String::from_utf8_lossy(&first));
    // The first ran the real agent through the recorder; the second served the
    // recording itself.
    assert!(recorded["acp"].is_null(), "{recorded}");
    assert_eq!(replayed["source"], recorded["source"]);
    assert!(replayed["acp"]["messages"]
        .as_array()
        .is_some_and(|m| !m.is_empty()));
}

/// A stand-in for a real agent in `dir`: `agent.sh acp` runs this shell command.
fn fake_agent(dir: &Path, command: &str) -> std::path::PathBuf {
    let wrapper = dir.join("agent.sh");
    std::fs::write(&wrapper, format!("#!/bin/sh\n{command}\n")).expect("writes");
    std::fs::set_permissions(&wrapper, std::os::unix::fs::PermissionsExt::from_mode(0o755)).expect("chmod");
    wrapper
}

/// Kills the process `pid` if the test still runs after a minute: a recorder that
/// hangs fails the test instead of hanging it.
fn watchdog(pid: u32) -> std::sync::mpsc::Sender<()> {
    let (done, wait) = std::sync::mpsc::channel::<()>();
    std::thread::spawn(move || {
        if wait.recv_timeout(std::time::Duration::from_secs(60)).is_err() {
            let _ = nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(pid as i32),
                nix::sys::signal::Signal::SIGKILL,
            );
        }
    });
    done
}

/// The recorder of `agent acp`, with its stdin and stdout piped to the test.
fn recorder(agent: &Path, cassette: &Path) -> std::process::Child {
    crate::support::mock_std()
        .args(["record", "--out"])
        .arg(cassette)
        .arg("--")
        .arg(agent)
        .arg("acp")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawns the recorder")
}

/// The frames of a cassette, as JSON values, header and end left out.
fn frames(cassette: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(cassette).expect("the cassette");
    text.lines()
        .skip(1)
        .map(|l| serde_json::from_str(l).expect("a frame"))
        .filter(|f: &Value| f.get("in").is_some() || f.get("out").is_some())
        .collect()
}

#[test]
fn a_recording_keeps_the_order_in_which_messages_passed() {
    use std::io::{BufRead, Write};
    let dir = tempfile::tempdir().expect("temp dir");
    // The quickest agent there is: each line back at once, as its own message.
    let agent = fake_agent(dir.path(), "exec cat");
    let cassette = dir.path().join("ordered.cassette");
    let mut child = recorder(&agent, &cassette);
    let done = watchdog(child.id());
    let mut to = child.stdin.take().expect("stdin");
    let mut from = std::io::BufReader::new(child.stdout.take().expect("stdout"));
    // Each answer is caused by its request: a request passed on and then queued
    // could be recorded after its own answer. Many quick exchanges give a race many
    // chances.
    let rounds = 300;
    for id in 0..rounds {
        writeln!(
            to,
            r#"{{"jsonrpc":"2.0","id":{id},"method":"x/ping","params":{{}}}}"#
        )
        .expect("writes");
        let mut answer = String::new();
        from.read_line(&mut answer).expect("reads the answer");
        assert!(answer.contains(&format!(r#""id":{id},"#)), "{answer}");
    }
    drop(to);
    assert!(child.wait().expect("waits").success());
    let _ = done.send(());
    let frames = frames(&cassette);
    assert_eq!(frames.len(), 2 * rounds, "every message recorded");
    let misordered: Vec<usize> = frames
        .chunks(2)
        .enumerate()
        .filter(|(i, pair)| pair[0]["in"]["id"] != *i || pair[1]["out"]["id"] != *i)
        .map(|(i, _)| i)
        .collect();
    assert_eq!(misordered, Vec::<usize>::new(), "exchanges recorded answer first");
}

#[test]
fn the_client_sees_the_agent_end_while_it_keeps_stdin_open() {
    use std::io::{Read, Write};
    let dir = tempfile::tempdir().expect("temp dir");
    // One answer, then the agent dies with the client's pipe still open.
    let agent = fake_agent(
        dir.path(),
        r#"read line; echo '{"jsonrpc":"2.0","id":0,"result":{}}'; echo 'agent: gone' >&2; exit 3"#,
    );
    let cassette = dir.path().join("died.cassette");
    let mut child = recorder(&agent, &cassette);
    let done = watchdog(child.id());
    let mut to = child.stdin.take().expect("stdin");
    writeln!(
        to,
        r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{}}}}"#
    )
    .expect("writes");
    // stdin stays open (`to` lives to the end of the test): the end of stdout is the
    // agent's death, passed on at once, and the recorder ends as the agent did.
    let mut out = String::new();
    child
        .stdout
        .take()
        .expect("stdout")
        .read_to_string(&mut out)
        .expect("reads to the end");
    assert!(out.contains(r#""id":0"#), "{out}");
    assert_eq!(
        child.wait().expect("waits").code(),
        Some(3),
        "ends as the agent ended, not killed by the watchdog"
    );
    let _ = done.send(());
    let text = std::fs::read_to_string(&cassette).expect("the cassette is written");
    assert!(text.trim_end().ends_with(r#""exit":3}"#), "{text}");
    drop(to);
}

#[test]
fn authenticate_credentials_stay_off_the_disk_whatever_the_shape_of_the_line() {
    use std::io::Write;
    let dir = tempfile::tempdir().expect("temp dir");
    // An agent that reads and says nothing: only the client's lines are recorded.
    let agent = fake_agent(dir.path(), "exec cat >/dev/null");
    let cassette = dir.path().join("auth.cassette");
    let deep = format!("{}\"tok-SECRET-6\"{}", "[".repeat(200), "]".repeat(200));
    let shapes: Vec<Vec<u8>> = vec![
        br#"{"jsonrpc":"2.0","id":1,"method":"authenticate","params":{"methodId":"cursor_login","token":"tok-SECRET-1"}}"#.to_vec(),
        br#"{"jsonrpc":"2.0","id":2,"method":"authenticate","params":["tok-SECRET-2"]}"#.to_vec(),
        br#"{"jsonrpc":"2.0","id":3,"method":"authenticate","params":"tok-SECRET-3"}"#.to_vec(),
        br#"{"jsonrpc":"2.0","id":4,"method":"authenticate","params":{"methodId":"x"},"params":{"token":"tok-SECRET-4"}}"#.to_vec(),
        br#"{"jsonrpc":"2.0","id":5,"id":"tok-SECRET-5","method":"authenticate","params":{}}"#.to_vec(),
        format!(r#"{{"jsonrpc":"2.0","id":6,"method":"authenticate","params":{{"methodId":"x","token":{deep}}}}}"#).into_bytes(),
        [&br#"{"jsonrpc":"2.0","id":7,"method":"authenticate","params":{"token":"tok-SECRET-7"#[..], b"\xff\"}}"].concat(),
        br#"{"jsonrpc":"2.0","id":8,"method":"\u0061uthenticate","params":{"token":"tok-SECRET-8"}}"#.to_vec(),
        br#"{"jsonrpc":"2.0","id":9,"method":"authenticate","params":{"methodId":"a","methodId":"tok-SECRET-9"}}"#.to_vec(),
    ];
    let mut child = recorder(&agent, &cassette);
    let done = watchdog(child.id());
    let mut to = child.stdin.take().expect("stdin");
    for shape in &shapes {
        to.write_all(shape).expect("writes");
        to.write_all(b"\n").expect("writes");
    }
    drop(to);
    assert!(child.wait().expect("waits").success());
    let _ = done.send(());
    let bytes = std::fs::read(&cassette).expect("the cassette");
    assert_eq!(
        memchr::memmem::find(&bytes, b"SECRET"),
        None,
        "a credential reached the disk:\n{}",
        String::from_utf8_lossy(&bytes)
    );
    let text = String::from_utf8_lossy(&bytes);
    // The plain request keeps its shape, and the method it names.
    assert!(
        text.contains(r#""params":{"methodId":"cursor_login","token":"[REDACTED]"}"#),
        "{text}"
    );
}
