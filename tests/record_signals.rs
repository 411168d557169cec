//! `mock-agent record` and signals: a recorder killed leaves no file behind, a signal
//! to the recorder is passed on to the command, a command ended by a signal is
//! recorded so and raised again on replay, and SIGTERM ends a recording whose caller
//! stopped reading.

use std::io::{BufRead, BufReader};
use std::os::unix::process::ExitStatusExt;
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::support::{bin, mock};

#[test]
fn a_killed_recorder_leaves_nothing() {
    let dir = tempfile::tempdir().expect("temp dir");
    let cassette = dir.path().join("killed.cassette");
    // An agent run with a prompt: the cassette is started at once.
    let agent = dir.path().join("agent.sh");
    std::fs::write(&agent, "#!/bin/sh\necho started; sleep 5\n").expect("writes");
    std::fs::set_permissions(&agent, std::os::unix::fs::PermissionsExt::from_mode(0o755)).expect("chmod");
    let mut child = Command::new(bin())
        .args(["record", "--out"])
        .arg(&cassette)
        .arg("--")
        .arg(&agent)
        .args(["-p", "hi"])
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawns");
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut line)
        .expect("reads");
    assert_eq!(line, "started\n");
    child.kill().expect("kills");
    child.wait().expect("waits");
    assert!(!cassette.exists(), "nothing under the final name");
    // The recording was an unnamed file (`O_TMPFILE`): only the agent is left.
    assert_eq!(std::fs::read_dir(dir.path()).expect("lists").count(), 1);
    // Without unnamed files, a killed recorder leaves its partial recording named
    // with its process id (here, one that has ended), which no reader takes.
    let mut ended = Command::new("true").spawn().expect("spawns");
    ended.wait().expect("waits");
    let stale = format!(".mock-agent-{}-abc123.cassette.tmp", ended.id());
    std::fs::write(dir.path().join(stale), "{}").expect("writes");
    let lint = mock().arg("lint").arg(dir.path()).output().expect("lints");
    assert!(
        String::from_utf8_lossy(&lint.stderr).contains("no `.cassette` or `.ndjson` file"),
        "a folder with only a partial recording has nothing to lint: {lint:?}"
    );
    // A temporary file whose writer still runs (this test's own process) is kept.
    let running = dir
        .path()
        .join(format!(".mock-agent-{}-live.cassette.tmp", std::process::id()));
    std::fs::write(&running, "{}").expect("writes");
    // The next recording in the folder removes what a killed recorder left.
    let next = mock()
        .args(["record", "--out"])
        .arg(dir.path().join("next.cassette"))
        .args(["--", "sh", "-c", "echo done"])
        .output()
        .expect("records");
    assert!(next.status.success(), "{next:?}");
    assert_eq!(
        temporaries(dir.path()),
        vec![running
            .file_name()
            .and_then(|n| n.to_str())
            .expect("name")
            .to_owned()]
    );
    // lint of the folder looks at the cassette only.
    let lint = mock().arg("lint").arg(dir.path()).output().expect("lints");
    let said = String::from_utf8_lossy(&lint.stdout);
    assert!(
        said.contains("next.cassette") && !said.contains("cassette.tmp"),
        "{said}"
    );
}

/// The names of the temporary files in `dir`, sorted.
fn temporaries(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("reads the folder")
        .flatten()
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| n.ends_with(".cassette.tmp"))
        .collect();
    names.sort();
    names
}

#[test]
fn signals_are_passed_on_and_the_proxy_ends_as_the_command_did() {
    let dir = tempfile::tempdir().expect("temp dir");
    let cassette = dir.path().join("term.cassette");
    let mut child = Command::new(bin())
        .args(["record", "--out"])
        .arg(&cassette)
        .args([
            "--",
            "sh",
            "-c",
            "trap 'echo got TERM; exit 7' TERM; echo ready; while :; do sleep 0.05; done",
        ])
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawns");
    let mut out = BufReader::new(child.stdout.take().expect("stdout"));
    let mut line = String::new();
    out.read_line(&mut line).expect("reads");
    assert_eq!(line, "ready\n");
    std::thread::sleep(Duration::from_millis(50));
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGTERM,
    )
    .expect("signals");
    let status = child.wait().expect("waits");
    assert_eq!(status.code(), Some(7), "{status:?}");
    let text = std::fs::read_to_string(&cassette).expect("written");
    assert!(
        text.contains(r#""out":"got TERM""#) && text.trim_end().ends_with(r#""exit":7}"#),
        "{text}"
    );
    // And a command killed by a signal makes the proxy die by it too.
    let killed = mock()
        .args(["record", "--out"])
        .arg(dir.path().join("kill.cassette"))
        .args(["--", "sh", "-c", "kill -KILL $$"])
        .output()
        .expect("runs");
    assert_eq!(killed.status.signal(), Some(9));
}

/// Runs `mock-agent ARGS` with core files allowed (as far as the hard limit goes),
/// in `dir`: a core file would be written there, and the status would say so.
fn with_cores(dir: &std::path::Path, args: &[&std::ffi::OsStr]) -> std::process::Output {
    let mut cmd = Command::new("sh");
    cmd.args(["-c", r#"ulimit -c unlimited 2>/dev/null; exec "$@""#, "sh"])
        .arg(bin())
        .args(args)
        .current_dir(dir);
    harness::run::child::without_mock_env(&mut cmd);
    cmd.output().expect("runs")
}

/// A child that dies by any signal (named or real-time) makes the recorder die by
/// it, the cassette says it, and its replay dies by it too; none writes a core file.
#[test]
fn every_signal_is_recorded_and_raised_again() {
    let dir = tempfile::tempdir().expect("temp dir");
    for (name, written) in [
        ("USR1", r#""USR1""#),
        ("ALRM", r#""ALRM""#),
        ("TRAP", r#""TRAP""#),
        ("SYS", r#""SYS""#),
        ("FPE", r#""FPE""#),
        ("BUS", r#""BUS""#),
        ("XCPU", r#""XCPU""#),
        ("USR2", r#""USR2""#),
        ("ILL", r#""ILL""#),
        ("SEGV", r#""SEGV""#),
        ("34", "34"),
        ("64", "64"),
    ] {
        let signal = harness::Signal::parse(name).expect("a signal");
        let cassette = dir.path().join(format!("{name}.cassette"));
        // The recorded shell writes no core file of its own.
        let script = format!("ulimit -c 0; echo before; kill -{} $$", signal.number());
        let live = with_cores(
            dir.path(),
            &[
                "record".as_ref(),
                "--out".as_ref(),
                cassette.as_os_str(),
                "--".as_ref(),
                "sh".as_ref(),
                "-c".as_ref(),
                script.as_ref(),
            ],
        );
        assert_eq!(
            live.status.signal(),
            Some(signal.number()),
            "record, {name}: {live:?}"
        );
        assert!(!live.status.core_dumped(), "record, {name}: no core file");
        assert_eq!(live.stdout, b"before\n");
        let text = std::fs::read_to_string(&cassette).expect("written");
        let end = text.lines().last().unwrap_or_default();
        assert!(
            end.ends_with(&format!(r#""signal":{written}}}"#)),
            "{name}: {end}"
        );
        let replayed = with_cores(dir.path(), &["replay".as_ref(), cassette.as_os_str()]);
        assert_eq!(replayed.status.signal(), Some(signal.number()), "replay, {name}");
        assert!(!replayed.status.core_dumped(), "replay, {name}: no core file");
        assert_eq!(replayed.stdout, b"before\n");
    }
    let cores: Vec<_> = std::fs::read_dir(dir.path())
        .expect("lists")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("core"))
        .collect();
    assert!(cores.is_empty(), "core files: {cores:?}");
}

/// A cassette's end line as older versions wrote it, and every other spelling, still
/// reads; every signal round-trips through a cassette.
#[test]
fn every_signal_round_trips_through_a_cassette() {
    let dir = tempfile::tempdir().expect("temp dir");
    for signal in harness::Signal::every() {
        let path = dir.path().join(format!("{}.cassette", signal.number()));
        let mut writer =
            harness::cassette::Writer::create(&path, &harness::cassette::Header::new(Default::default()))
                .expect("creates");
        writer
            .write(&harness::Frame::End(harness::Ending {
                at: Duration::ZERO,
                exit: harness::Exit::Signal(signal),
            }))
            .expect("writes");
        writer.finish().expect("finishes");
        let frames: Vec<_> = harness::cassette::open(&path)
            .expect("opens")
            .collect::<Result<_, _>>()
            .expect("reads");
        assert_eq!(
            frames.last(),
            Some(&harness::Frame::End(harness::Ending {
                at: Duration::ZERO,
                exit: harness::Exit::Signal(signal),
            })),
            "{signal}"
        );
    }
    for (spelled, number) in [
        (r#""TERM""#, 15),
        (r#""SIGSEGV""#, 11),
        (r#""9""#, 9),
        (r#""usr1""#, 10),
        (r#""SIGRTMIN+1""#, 35),
        ("34", 34),
    ] {
        let path = dir.path().join("old.cassette");
        std::fs::write(
            &path,
            format!("{{\"mock_agent_cassette\":1,\"invocation\":{{}}}}\n{{\"t\":1,\"signal\":{spelled}}}\n"),
        )
        .expect("writes");
        let replayed = mock().arg("replay").arg(&path).output().expect("runs");
        assert_eq!(replayed.status.signal(), Some(number), "{spelled}");
    }
}

/// SIGTERM to a recorder whose caller stopped reading: the command gets it and ends,
/// and so does the recorder, by the signal, with what passed so far in its cassette.
fn record_for_a_caller_that_stopped_reading(mode: &[&str]) {
    use std::io::Read;
    let dir = tempfile::tempdir().expect("temp dir");
    let agent = dir.path().join("agent.sh");
    std::fs::write(
        &agent,
        "#!/bin/sh\nexec yes '{\"type\":\"system\",\"subtype\":\"init\"}'\n",
    )
    .expect("writes");
    std::fs::set_permissions(&agent, std::os::unix::fs::PermissionsExt::from_mode(0o755)).expect("chmod");
    let cassette = dir.path().join("stopped.cassette");
    let mut child = Command::new(bin())
        .args(["record", "--out"])
        .arg(&cassette)
        .arg("--")
        .arg(&agent)
        .args(mode)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawns");
    let pid = nix::unistd::Pid::from_raw(child.id() as i32);
    let mut stdout = child.stdout.take().expect("stdout");
    let mut first = [0u8; 16];
    stdout.read_exact(&mut first).expect("the command runs");
    // The caller reads no more (its pipe, and the recorder's writes, fill up).
    std::thread::sleep(Duration::from_millis(200));
    let (done, wait) = std::sync::mpsc::channel::<()>();
    std::thread::spawn(move || {
        if wait.recv_timeout(Duration::from_secs(60)).is_err() {
            let _ = nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGKILL);
        }
    });
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM).expect("signals");
    let status = child.wait().expect("waits");
    let _ = done.send(());
    assert_eq!(
        status.signal(),
        Some(15),
        "ended by the signal it got, not the watchdog's"
    );
    let text = std::fs::read_to_string(&cassette).expect("what was recorded is kept");
    assert!(text.lines().count() > 2, "the lines that passed");
    assert!(
        text.trim_end().ends_with(r#""signal":"TERM"}"#),
        "{}",
        text.lines().last().unwrap_or("")
    );
    drop(stdout);
}

#[test]
fn sigterm_ends_a_recording_whose_caller_stopped_reading() {
    record_for_a_caller_that_stopped_reading(&["-p", "hi"]);
}

#[test]
fn sigterm_ends_a_recorded_conversation_whose_client_stopped_reading() {
    record_for_a_caller_that_stopped_reading(&["acp"]);
}
