//! The progress of `mock-agent record`: drawn for a person at a terminal whose output
//! goes elsewhere, and not one byte of it anywhere a program reads the agent's stderr.
//! The terminal is a pseudo-terminal; the recorded command is the mock itself, slowed
//! down (`fixed=` timing) so that the recording lasts long enough to be drawn.

use std::io::Read;
use std::os::fd::OwnedFd;
use std::path::Path;
use std::process::{Command, Stdio};

use crate::support::{bin, install_as_cursor_agent, mock_std};

/// The command recorded: the mock, one line every 120 ms (about 1.5 s), with a
/// warning on stderr.
fn slow_agent() -> Vec<String> {
    vec![
        "env".into(),
        "MOCK_AGENT_TIMING=fixed=120".into(),
        "MOCK_AGENT_FAULTS=stderr:text=\"warning: slow network\"".into(),
        bin().display().to_string(),
        "-p".into(),
        "hi".into(),
    ]
}

/// What reached the terminal (the pseudo-terminal's other end) while `command` ran
/// with its stdin and stderr on it (and stdout too when `stdout_tty`), and what came
/// on a piped stdout.
fn on_a_terminal(mut command: Command, stdout_tty: bool) -> (String, Vec<u8>, std::process::ExitStatus) {
    let pty = nix::pty::openpty(None, None).expect("a pseudo-terminal");
    let slave = |pty: &OwnedFd| Stdio::from(pty.try_clone().expect("dup"));
    command.stdin(slave(&pty.slave)).stderr(slave(&pty.slave));
    if stdout_tty {
        command.stdout(slave(&pty.slave));
    } else {
        command.stdout(Stdio::piped());
    }
    let mut child = command.spawn().expect("spawns");
    // The command holds copies of the terminal's end too: gone with it, so that the
    // end is seen once the child and its children are.
    drop(command);
    drop(pty.slave);
    let mut master = std::fs::File::from(pty.master);
    // Read until every holder of the terminal's end is gone (EIO).
    let reader = std::thread::spawn(move || {
        let mut seen = Vec::new();
        let mut buf = [0u8; 4096];
        while let Ok(n) = master.read(&mut buf) {
            if n == 0 {
                break;
            }
            seen.extend_from_slice(&buf[..n]);
        }
        seen
    });
    let mut stdout = Vec::new();
    if let Some(mut out) = child.stdout.take() {
        out.read_to_end(&mut stdout).expect("reads");
    }
    let status = child.wait().expect("waits");
    let seen = reader.join().expect("the reader");
    (String::from_utf8_lossy(&seen).into_owned(), stdout, status)
}

fn record(cassette: &Path, flags: &[&str]) -> Command {
    let mut command = mock_std();
    command
        .args(["record", "--out"])
        .arg(cassette)
        .args(flags)
        .arg("--")
        .args(slow_agent());
    command
}

/// The recorded command's own stdout and stderr, run without the recorder.
fn direct() -> std::process::Output {
    let agent = slow_agent();
    Command::new(&agent[0])
        .args(&agent[1..])
        .stdin(Stdio::null())
        .output()
        .expect("runs")
}

#[test]
fn a_pipe_on_stderr_gets_the_commands_bytes_and_nothing_else() {
    let dir = tempfile::tempdir().expect("temp dir");
    let cassette = dir.path().join("slow.cassette");
    let recorded = record(&cassette, &[])
        .stdin(Stdio::null())
        .output()
        .expect("runs");
    assert!(recorded.status.success());
    let alone = direct();
    assert_eq!(
        String::from_utf8_lossy(&recorded.stderr),
        "warning: slow network\n"
    );
    assert_eq!(
        recorded.stderr, alone.stderr,
        "stderr is the command's, byte for byte"
    );
    assert_eq!(recorded.stdout, alone.stdout);
}

#[test]
fn a_person_at_a_terminal_whose_output_goes_to_a_file_sees_the_progress() {
    let dir = tempfile::tempdir().expect("temp dir");
    let cassette = dir.path().join("slow.cassette");
    let (seen, stdout, status) = on_a_terminal(record(&cassette, &[]), false);
    assert!(status.success());
    assert!(seen.contains("recording"), "{seen:?}");
    assert!(
        seen.contains("stdout ") && seen.contains(" lines ("),
        "the counts: {seen:?}"
    );
    assert!(seen.contains("warning: slow network"), "{seen:?}");
    // The stream and the cassette are as without it.
    let alone = direct();
    assert_eq!(stdout, alone.stdout);
    let replayed = mock_std().arg("replay").arg(&cassette).output().expect("replays");
    assert_eq!(replayed.stdout, alone.stdout);
    assert_eq!(replayed.stderr, alone.stderr);
}

#[test]
fn no_progress_where_it_would_cut_into_the_stream_or_was_not_asked_for() {
    let dir = tempfile::tempdir().expect("temp dir");
    let cassette = dir.path().join("slow.cassette");
    // The stream scrolls on the terminal itself.
    let (seen, _, status) = on_a_terminal(record(&cassette, &[]), true);
    assert!(status.success());
    assert!(seen.contains("\"type\":\"result\""), "{seen:?}");
    assert!(!seen.contains("recording"), "{seen:?}");
    // Switched off.
    let (seen, _, status) = on_a_terminal(record(&cassette, &["--no-progress"]), false);
    assert!(status.success());
    assert_eq!(seen, "warning: slow network\r\n");
    // The shim, recording as `cursor-agent` under the program under test: its stderr
    // is the consumer's.
    let installed = install_as_cursor_agent();
    let mut shim = Command::new(installed.path().join("cursor-agent"));
    harness::run::child::without_mock_env(&mut shim)
        .args(["-p", "hi"])
        .env("MOCK_AGENT_RECORD", "all")
        .env("MOCK_AGENT_LIBRARY", dir.path().join("library"))
        .env("MOCK_AGENT_REAL", bin())
        .env("MOCK_AGENT_TIMING", "fixed=120");
    let (seen, stdout, status) = on_a_terminal(shim, false);
    assert!(status.success(), "{seen}");
    assert!(String::from_utf8_lossy(&stdout).contains("\"type\":\"result\""));
    assert_eq!(seen, "", "nothing but the real CLI's stderr (none)");
}
