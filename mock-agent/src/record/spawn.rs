//! The recorded command: started with the caller's environment less `MOCK_AGENT_*`,
//! its stdout and stderr piped to the recorder, SIGINT and SIGTERM passed on to it.

use std::io::Write;
use std::process::{Child, Command, Stdio};

use harness::frames::Exit;

use super::pump::Halt;
use super::RecordError;

/// Starts the command with piped stdout and stderr, and a piped stdin when the
/// recorder's own is one (or when the bytes are given): otherwise the command
/// shares the recorder's terminal.
/// A signal to the recorder halts its pumps (see [`Halt`]) once it is passed on.
pub(super) fn start(
    program: &str,
    argv: &[String],
    stdin_piped: bool,
    halt: &Halt,
) -> Result<Child, RecordError> {
    let child = clean(Command::new(program))
        .args(argv)
        .stdin(if stdin_piped {
            Stdio::piped()
        } else {
            Stdio::inherit()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|source| spawn_error(program, source))?;
    forward_signals(&child, Some(halt.clone()));
    Ok(child)
}

/// The first line `PROGRAM --version` prints, if it prints one.
pub(super) fn cli_version(program: &str) -> Option<String> {
    clean(Command::new(program))
        .arg("--version")
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|v| v.lines().next().map(str::to_owned))
}

/// How the child ended.
pub(super) fn wait(program: &str, child: &mut Child) -> Result<Exit, RecordError> {
    let status = child.wait().map_err(|source| spawn_error(program, source))?;
    Ok(Exit::from_status(status))
}

pub(super) fn spawn_error(program: &str, source: std::io::Error) -> RecordError {
    RecordError::Spawn {
        command: program.to_owned(),
        source,
    }
}

/// Runs the command with the caller's stdin, stdout and stderr (less `MOCK_AGENT_*`
/// settings), recording nothing, and returns how it ended.
pub fn passthrough(command: &[String], stdin: Option<Vec<u8>>) -> Result<Exit, RecordError> {
    let (program, argv) = command.split_first().ok_or(RecordError::NoCommand)?;
    let mut cmd = clean(Command::new(program));
    cmd.args(argv);
    if stdin.is_some() {
        cmd.stdin(Stdio::piped());
    }
    let mut child = cmd.spawn().map_err(|source| spawn_error(program, source))?;
    forward_signals(&child, None);
    if let (Some(mut to_child), Some(bytes)) = (child.stdin.take(), stdin) {
        let _ = to_child.write_all(&bytes);
    }
    wait(program, &mut child)
}

/// The command with the caller's environment less every `MOCK_AGENT_*` setting: a
/// mock never records itself by accident.
fn clean(mut command: Command) -> Command {
    harness::run::child::without_mock_env(&mut command);
    command
}

/// SIGINT and SIGTERM to the recorder go to the recorded process instead; then the
/// pumps are halted, if there are any.
fn forward_signals(child: &Child, halt: Option<Halt>) {
    let pid = nix::unistd::Pid::from_raw(child.id() as i32);
    crate::process::on_term_or_int(move |signal| {
        if let Ok(signal) = nix::sys::signal::Signal::try_from(signal.number()) {
            let _ = nix::sys::signal::kill(pid, signal);
        }
        if let Some(halt) = &halt {
            halt.halt();
        }
    });
}
