//! A case's directory: the mock under the names of the case's dialect (`cursor-agent`
//! and `agent`, `claude`, ...) in its `bin/` with the case's settings beside it
//! (`.mock-agent.env`), and the journal and start records the mock appends to.

use std::path::{Path, PathBuf};

use super::cancel::Cancel;
use super::RunError;

/// Where cases run: a temporary directory whose `bin/` holds the mock under the names
/// of the case's dialect (first on the consumer's `PATH`), and the journal the
/// mock appends to. A worker runs case after case in one, each as if in a fresh one:
/// the journal is removed after each case, and a directory that a case changed
/// otherwise, or that a process of a case may still use, is not used again.
/// (Creating and removing a directory per case costs more than a case's two
/// processes on some file systems.)
pub(super) struct Workdir {
    pub(super) dir: tempfile::TempDir,
    pub(super) bin: PathBuf,
    pub(super) journal: PathBuf,
    /// The file the mock records each start in (`MOCK_AGENT_STARTED`).
    pub(super) started: PathBuf,
    /// The case's settings beside the mock, `bin/.mock-agent.env`.
    pub(super) settings: PathBuf,
    /// The folder of the note Python programs take of their end (see
    /// [`super::python`]), first on a consumer's `PYTHONPATH`.
    pub(super) python: PathBuf,
    /// The file they note it in.
    pub(super) python_ends: PathBuf,
    /// The note Node.js programs take of their end (see [`super::node`]), required by
    /// a consumer's `NODE_OPTIONS`, and the file they note it in.
    pub(super) node_note: PathBuf,
    pub(super) node_ends: PathBuf,
    mock: PathBuf,
    /// The names the mock has in `bin/`, sorted as `names_in` lists a folder.
    pub(super) names: Vec<&'static str>,
    /// The run's handle, which removes the directory when interrupted.
    cancel: Cancel,
    /// The consumer's `PATH` last time, and `sh` found on it.
    shell: Option<(std::ffi::OsString, Option<PathBuf>)>,
}

impl Workdir {
    /// A new case directory for the mock at `mock`, removed by [`Cancel::interrupt`]
    /// too. It is made under the lock `interrupt` takes: once the run is interrupted
    /// no directory is made, and one being made is removed with the others (the
    /// process ends right after, before a worker could remove it).
    pub(super) fn new(mock: &Path, cancel: &Cancel, names: &[&'static str]) -> Result<Workdir, RunError> {
        let mut names = names.to_vec();
        names.sort_unstable();
        let mut state = cancel.lock();
        let running = state.as_mut().ok_or(RunError::Interrupted)?;
        let setup = |source| RunError::Workdir { source };
        let dir = tempfile::Builder::new()
            .prefix("mock-agent-case-")
            .tempdir()
            .map_err(setup)?;
        let bin = dir.path().join("bin");
        std::fs::create_dir(&bin).map_err(setup)?;
        for name in &names {
            std::os::unix::fs::symlink(mock, bin.join(name)).map_err(setup)?;
        }
        let python = super::python::install(dir.path()).map_err(setup)?;
        let node_note = super::node::install(dir.path()).map_err(setup)?;
        running.add_dir(dir.path());
        drop(state);
        Ok(Workdir {
            python,
            python_ends: dir.path().join("python-ends"),
            node_note,
            node_ends: dir.path().join("node-ends"),
            journal: dir.path().join("journal.jsonl"),
            started: dir.path().join("started.jsonl"),
            settings: bin.join(crate::journal::settings::FILE_NAME),
            bin,
            dir,
            mock: mock.to_owned(),
            names,
            cancel: cancel.clone(),
            shell: None,
        })
    }

    /// The mock's binary, as the runner was given it.
    pub(super) fn mock(&self) -> &Path {
        &self.mock
    }

    /// Makes it ready for the next case, as it was new: false when that cannot be
    /// done (the case left a file of its own, or changed `bin/`). The journal is
    /// removed, not emptied: on ext4 a file truncated and written again is flushed
    /// when it is closed (`auto_da_alloc`), and the next truncation waits for that
    /// (several milliseconds, in the mock's time and the runner's), while a file
    /// removed before it was ever written back costs a few microseconds.
    pub(super) fn reset(&self) -> bool {
        for file in [
            &self.journal,
            &self.started,
            &self.settings,
            &self.python_ends,
            &self.node_ends,
        ] {
            match std::fs::remove_file(file) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(_) => return false,
            }
        }
        names_in(self.dir.path())
            .is_some_and(|names| names == ["bin", super::node::FILE, super::python::FOLDER])
            && super::python::untouched(self.dir.path())
            && super::node::untouched(self.dir.path())
            && names_in(&self.bin).is_some_and(|names| names == self.names)
            && self
                .names
                .iter()
                .all(|name| std::fs::read_link(self.bin.join(name)).is_ok_and(|to| to == self.mock))
    }

    /// `sh` as a consumer with this `PATH` finds it (see [`find_shell`]).
    pub(super) fn shell(&mut self, path: &std::ffi::OsStr) -> Option<PathBuf> {
        match &self.shell {
            Some((cached, shell)) if cached == path => shell.clone(),
            _ => {
                let shell = find_shell(path);
                self.shell = Some((path.to_owned(), shell.clone()));
                shell
            }
        }
    }
}

impl Drop for Workdir {
    /// Removes the directory under the lock [`Cancel::interrupt`] takes, for the same
    /// reason as [`Workdir::new`] makes it so.
    fn drop(&mut self) {
        self.cancel.remove_dir(self.dir.path());
    }
}

/// The names in a directory, sorted.
fn names_in(dir: &Path) -> Option<Vec<String>> {
    let mut names = std::fs::read_dir(dir)
        .ok()?
        .map(|entry| entry.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
        .collect::<Option<Vec<String>>>()?;
    names.sort();
    Some(names)
}

/// The `sh` that `execvp` would run with this `PATH`: the first executable file
/// `sh` in its directories; `None` when a directory is relative or empty (the
/// consumer's working directory decides) or none has one. The consumer's shell is
/// started by this path, so that it is spawned rather than forked (the standard
/// library forks a command whose program it must find on a `PATH` of the child's
/// own, and a fork costs more the more the harness holds).
fn find_shell(path: &std::ffi::OsStr) -> Option<PathBuf> {
    for dir in std::env::split_paths(path) {
        if !dir.is_absolute() {
            return None;
        }
        let shell = dir.join("sh");
        if shell.is_file() && nix::unistd::access(&shell, nix::unistd::AccessFlags::X_OK).is_ok() {
            return Some(shell);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shell_is_found_as_exec_would_find_it() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("temp dir");
        let (plain, runnable) = (dir.path().join("plain"), dir.path().join("runnable"));
        for (sub, mode) in [(&plain, 0o644), (&runnable, 0o755)] {
            std::fs::create_dir(sub).expect("mkdir");
            std::fs::write(sub.join("sh"), "").expect("writes");
            std::fs::set_permissions(sub.join("sh"), std::fs::Permissions::from_mode(mode)).expect("chmod");
        }
        let path = |dirs: &[&Path]| std::env::join_paths(dirs).expect("joins");
        assert_eq!(
            find_shell(&path(&[dir.path(), &plain, &runnable])),
            Some(runnable.join("sh")),
            "a file that is not executable is passed over, as execvp does"
        );
        assert_eq!(
            find_shell(&path(&[Path::new("relative"), &runnable])),
            None,
            "a relative directory first: left to exec"
        );
        assert_eq!(find_shell(&path(&[dir.path()])), None, "none at all");
    }
}
