//! The agents a consumer leaves running outside its process group.
//!
//! The runner starts the consumer in a group of its own and kills that group once the
//! consumer has ended. A consumer that starts the agent in a session of its own
//! (`start_new_session=True`, `setsid`) takes it out of that group: when it then kills
//! only the agent's first process (Gemini CLI relaunches itself as a child, and
//! ignores SIGTERM), the rest keeps running, after the case and after the suite. The
//! mock's start records name every process it ran as; those still running, and still
//! the mock (a process id may have been taken again), are the leftovers.

use std::path::Path;
use std::time::{Duration, Instant};

use super::child::Watch;
use crate::journal::settings::Start;

/// Waits up to `grace` for the mocks of `starts` outside the consumer's `group` to
/// end, then kills those left and their groups. Returns their process ids.
pub(super) fn reap(
    starts: &[Start],
    mock: &Path,
    group: i32,
    grace: Duration,
    watch: &mut Watch<'_>,
) -> Vec<u32> {
    let mock = std::fs::canonicalize(mock).unwrap_or_else(|_| mock.to_owned());
    let running = |start: &&Start| is_running_mock(start.pid, &mock) && group_of(start.pid) != Some(group);
    let deadline = Instant::now() + grace;
    let mut left: Vec<u32> = starts.iter().filter(running).map(|s| s.pid).collect();
    while !left.is_empty() && Instant::now() < deadline {
        watch.until(Instant::now() + Duration::from_millis(5), |_| false);
        left.retain(|&pid| is_running_mock(pid, &mock));
    }
    for &pid in &left {
        kill(pid, group);
    }
    left.sort_unstable();
    left.dedup();
    left
}

/// SIGKILL to `pid`, and to its group when it leads one other than the consumer's.
fn kill(pid: u32, consumer_group: i32) {
    use nix::sys::signal::{kill, killpg, Signal};
    use nix::unistd::Pid;
    if let Some(own) = group_of(pid) {
        if own == pid as i32 && own != consumer_group {
            let _ = killpg(Pid::from_raw(own), Signal::SIGKILL);
        }
    }
    let _ = kill(Pid::from_raw(pid as i32), Signal::SIGKILL);
}

/// Whether `pid` is running (not a zombie) and is the binary at `mock`.
fn is_running_mock(pid: u32, mock: &Path) -> bool {
    let exe = std::fs::read_link(format!("/proc/{pid}/exe"));
    exe.is_ok_and(|exe| exe == mock)
        && stat(pid).is_some_and(|fields| fields.first() != Some(&"Z".to_owned()))
}

/// The process group of `pid`, from `/proc`.
fn group_of(pid: u32) -> Option<i32> {
    stat(pid)?.get(2)?.parse().ok()
}

/// The fields of `/proc/PID/stat` after `comm` (`state ppid pgrp ...`).
pub(super) fn stat(pid: u32) -> Option<Vec<String>> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // `pid (comm) state ppid pgrp ...`; comm may hold spaces and parentheses.
    let (_, rest) = stat.rsplit_once(')')?;
    Some(rest.split_whitespace().map(str::to_owned).collect())
}
