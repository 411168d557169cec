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

/// A process a consumer left running after it ended (it was killed): which one, as
/// `/proc` told it just before.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Leftover {
    /// Its process id.
    pub pid: u32,
    /// Its command line, as `/proc/PID/cmdline` gives it (the arguments joined by
    /// spaces; cut at 200 characters); empty when it could not be read.
    pub command: String,
    /// Who started it, when known (`4200 python3 bot.py`): the parent the mock's start
    /// record names, for an agent; else its parent, if that still runs in the
    /// consumer's process group (a parent that ended hands its children to another
    /// process, which did not start them).
    pub started_by: Option<String>,
}

/// How many characters of a leftover's command line are kept.
pub const COMMAND_CHARS: usize = 200;

impl Leftover {
    /// `pid` as `/proc` tells it now, left by the consumer of process group `group`;
    /// `starts` name the parents of the mock's processes.
    pub(super) fn of(pid: u32, starts: &[Start], group: i32) -> Self {
        let recorded = starts
            .iter()
            .find(|s| s.pid == pid)
            .and_then(|s| s.parent.clone());
        let parent = || {
            let ppid = stat(pid)?.get(1)?.parse::<u32>().ok()?;
            (ppid > 1 && group_of(ppid) == Some(group)).then(|| format!("{ppid} {}", command_line(ppid)))
        };
        Leftover {
            pid,
            command: command_line(pid),
            started_by: recorded.or_else(parent).map(|p| p.trim_end().to_owned()),
        }
    }
}

impl std::fmt::Display for Leftover {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.pid)?;
        if !self.command.is_empty() {
            write!(f, " `{}`", self.command)?;
        }
        if let Some(parent) = &self.started_by {
            write!(f, " (started by {parent})")?;
        }
        Ok(())
    }
}

/// The command line of `pid`, as `/proc/PID/cmdline` gives it: its arguments joined
/// by spaces, cut at [`COMMAND_CHARS`]; empty when it cannot be read (it ended, or is
/// a zombie).
pub fn command_line(pid: u32) -> String {
    let bytes = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
    let text = String::from_utf8_lossy(&bytes);
    let args: Vec<&str> = text.split('\0').filter(|a| !a.is_empty()).collect();
    let line = args.join(" ");
    if line.chars().count() > COMMAND_CHARS {
        format!("{}...", line.chars().take(COMMAND_CHARS).collect::<String>())
    } else {
        line
    }
}

/// The processes of `group` still running (not zombies), from `/proc`, in pid order.
pub(super) fn in_group(group: i32) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let mut pids: Vec<u32> = entries
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
        .filter(|&pid| {
            stat(pid)
                .is_some_and(|fields| fields.len() > 2 && fields[0] != "Z" && fields[2].parse() == Ok(group))
        })
        .collect();
    pids.sort_unstable();
    pids
}

/// The processes still running in the consumer's `group`, told (the mock's `starts`
/// name who started an agent whose parent is gone), then killed with the group.
pub(super) fn end_group(group: i32, starts: &[Start]) -> Vec<Leftover> {
    let left = in_group(group)
        .into_iter()
        .map(|pid| Leftover::of(pid, starts, group))
        .collect();
    super::cancel::kill_group(group);
    left
}

/// Waits up to `grace` for the mocks of `starts` outside the consumer's `group` to
/// end, then kills those left and their groups. Returns them, as `/proc` told them
/// just before.
pub(super) fn reap(
    starts: &[Start],
    mock: &Path,
    group: i32,
    grace: Duration,
    watch: &mut Watch<'_>,
) -> Vec<Leftover> {
    let mock = std::fs::canonicalize(mock).unwrap_or_else(|_| mock.to_owned());
    let running = |start: &&Start| is_running_mock(start.pid, &mock) && group_of(start.pid) != Some(group);
    let deadline = Instant::now() + grace;
    let mut left: Vec<u32> = starts.iter().filter(running).map(|s| s.pid).collect();
    while !left.is_empty() && Instant::now() < deadline {
        watch.until(Instant::now() + Duration::from_millis(5), |_| false);
        left.retain(|&pid| is_running_mock(pid, &mock));
    }
    left.sort_unstable();
    left.dedup();
    let told: Vec<Leftover> = left.iter().map(|&pid| Leftover::of(pid, starts, group)).collect();
    for &pid in &left {
        kill(pid, group);
    }
    told
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
