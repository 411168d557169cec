//! Interrupting a run: a handle its caller owns, not a state of the library's.
//!
//! A process that runs consumers and is interrupted (SIGINT, SIGTERM) must kill them
//! itself: they run in process groups of their own, which the terminal's signal does
//! not reach. It makes a [`Cancel`], hands it to the [`Runner`](super::Runner), and
//! calls [`Cancel::interrupt`] from its signal handler.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

/// What an interrupted run kills and removes: the process groups of the consumers
/// running now, and the case directories.
#[derive(Debug, Default)]
pub(super) struct Running {
    groups: Vec<i32>,
    dirs: Vec<PathBuf>,
}

impl Running {
    /// A consumer's process group, started.
    pub(super) fn add_group(&mut self, group: i32) {
        self.groups.push(group);
    }

    /// A case directory, made.
    pub(super) fn add_dir(&mut self, dir: &Path) {
        self.dirs.push(dir.to_owned());
    }
}

/// Stops the runs it is given to: [`interrupt`](Cancel::interrupt) kills every consumer
/// running under it, removes their case directories, and lets no other consumer start
/// or directory be made. Clones share one state; a run given none gets one that nobody
/// interrupts.
#[derive(Debug, Clone)]
pub struct Cancel {
    /// `None` once interrupted.
    running: Arc<Mutex<Option<Running>>>,
}

impl Default for Cancel {
    fn default() -> Self {
        Cancel::new()
    }
}

impl Cancel {
    /// A handle that nothing has interrupted yet.
    pub fn new() -> Self {
        Cancel {
            running: Arc::new(Mutex::new(Some(Running::default()))),
        }
    }

    /// Kills every running consumer's process group and removes the case directories.
    ///
    /// It holds the lock that starting a consumer and making or removing a case
    /// directory take until it is done: a run that finds itself interrupted finds
    /// every consumer killed and every directory removed, and the process can end.
    /// A second call waits for the first to finish, then does nothing.
    pub fn interrupt(&self) {
        let Some(running) = self.lock().take() else {
            return;
        };
        for group in running.groups {
            kill_group(group);
        }
        for dir in running.dirs {
            remove_dir(&dir);
        }
    }

    /// Whether [`interrupt`](Cancel::interrupt) was called.
    pub fn is_interrupted(&self) -> bool {
        self.lock().is_none()
    }

    /// The state, locked: `None` once interrupted.
    pub(super) fn lock(&self) -> MutexGuard<'_, Option<Running>> {
        self.running.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Forgets a consumer's group that has ended.
    pub(super) fn forget_group(&self, group: i32) {
        if let Some(running) = self.lock().as_mut() {
            running.groups.retain(|g| *g != group);
        }
    }

    /// Removes a case directory and forgets it, under the lock.
    pub(super) fn remove_dir(&self, dir: &Path) {
        let mut running = self.lock();
        remove_dir(dir);
        if let Some(running) = running.as_mut() {
            running.dirs.retain(|d| d != dir);
        }
    }
}

/// SIGKILL to a process group.
pub(super) fn kill_group(group: i32) {
    use nix::sys::signal::{killpg, Signal};
    let _ = killpg(nix::unistd::Pid::from_raw(group), Signal::SIGKILL);
}

/// Removes a case directory that a process being killed may still write to (its
/// journal): a removal that meets an entry just made is tried again, so that the
/// process can end right after without leaving the directory behind.
fn remove_dir(dir: &Path) {
    for _ in 0..5 {
        match std::fs::remove_dir_all(dir) {
            Ok(()) => return,
            Err(e) if e.kind() == std::io::ErrorKind::DirectoryNotEmpty => {
                std::thread::sleep(Duration::from_millis(2));
            }
            Err(_) => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_interrupt_removes_the_directories_and_is_seen_by_every_clone() {
        let cancel = Cancel::new();
        let other = cancel.clone();
        let dir = tempfile::tempdir().expect("temp dir").keep();
        cancel.lock().as_mut().expect("not interrupted").add_dir(&dir);
        assert!(!other.is_interrupted());
        other.interrupt();
        assert!(cancel.is_interrupted());
        assert!(!dir.exists());
        cancel.interrupt();
        assert!(
            !Cancel::new().is_interrupted(),
            "a new handle shares nothing with the others"
        );
    }
}
