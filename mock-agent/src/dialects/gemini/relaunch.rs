//! The real CLI's process shape: `gemini` relaunches itself as a child (`node
//! --max-old-space-size=N gemini.js ...`, stdio inherited, `GEMINI_CLI_NO_RELAUNCH`
//! set in the child) and the parent waits for it. Observed (0.61.0): SIGTERM and
//! SIGINT to the parent do nothing; the child killed, the parent exits **0**. A
//! consumer must kill the process group.
//!
//! The stand-in takes this shape when its faults ask for it (`relaunch`,
//! `child-killed`) and `GEMINI_CLI_NO_RELAUNCH` is not set.

use std::os::unix::process::ExitStatusExt;

use harness::dialects::gemini::faults::parse;
use harness::dialects::gemini::wire::env::NO_RELAUNCH;
use harness::frames::Exit;
use nix::sys::signal::{SigSet, Signal};

/// Whether this process is the relaunched child.
pub fn is_child() -> bool {
    std::env::var_os(NO_RELAUNCH).is_some()
}

/// Runs as the parent when the faults ask for the relaunch: starts the child (this
/// binary as `gemini` with the same arguments and `GEMINI_CLI_NO_RELAUNCH=true`),
/// ignores SIGTERM and SIGINT (blocks them), and ends as the child did (exit 0 when it died by a
/// signal). `None`: run as one process.
pub fn as_parent(argv: &[String]) -> Option<Exit> {
    if is_child() {
        return None;
    }
    // The faults as the run reads them (the environment, or the settings file beside
    // the link); a bad list is the child's to report.
    let settings = crate::settings::Settings::from_env().ok()?;
    let faults = settings.faults.read(parse).ok()?;
    if !faults.iter().any(|f| f.relaunches()) {
        return None;
    }
    let me = match std::env::current_exe() {
        Ok(me) => me,
        Err(e) => {
            eprintln!("mock-agent: cannot find its own binary to relaunch as Gemini CLI's child: {e}");
            return Some(Exit::Code(harness::exit_codes::INTERNAL));
        }
    };
    let mut command = std::process::Command::new(me);
    command
        .arg(harness::dialects::GEMINI.name())
        .args(argv)
        .env(NO_RELAUNCH, "true");
    // The child runs as the binary itself, beside which no settings file lies: what
    // the parent read from the file beside its link (a program that passes its agent
    // an allow-listed environment) reaches the child in its environment.
    let beside = crate::settings::invoked_path().and_then(|path| crate::settings::file_beside(&path));
    for (name, value) in beside.map(|(_, settings)| settings).unwrap_or_default() {
        if std::env::var_os(&name).is_none() {
            command.env(name, value);
        }
    }
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(e) => {
            eprintln!("mock-agent: cannot relaunch as Gemini CLI's child: {e}");
            return Some(Exit::Code(harness::exit_codes::INTERNAL));
        }
    };
    // Blocked, they stay pending and do nothing (the child, started before, keeps
    // its own mask).
    let mut deaf = SigSet::empty();
    deaf.add(Signal::SIGTERM);
    deaf.add(Signal::SIGINT);
    let _ = deaf.thread_block();
    Some(match child.wait() {
        Ok(status) => match (status.code(), status.signal()) {
            (Some(code), _) => Exit::Code(code),
            // The child killed: the parent exits 0 (observed).
            _ => Exit::Code(0),
        },
        Err(e) => {
            eprintln!("mock-agent: cannot wait for Gemini CLI's child: {e}");
            Exit::Code(harness::exit_codes::INTERNAL)
        }
    })
}
