//! Helpers shared by the suite.

use std::path::{Path, PathBuf};
use std::process::Output;

use assert_cmd::Command;

/// The `mock-agent` binary under test.
pub fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_mock-agent"))
}

/// The workspace root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// `mock-agent ARGS`, run in the workspace root with no `MOCK_AGENT_*` setting.
pub fn mock() -> Command {
    Command::from_std(mock_std())
}

/// [`mock`] as a std `Command`, for a test that sets its stdin or spawns it.
pub fn mock_std() -> std::process::Command {
    let mut cmd = std::process::Command::new(bin());
    cmd.current_dir(root());
    harness::run::child::without_mock_env(&mut cmd);
    cmd
}

/// A directory holding links named `cursor-agent` and `agent` to the binary.
pub fn install_as_cursor_agent() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    for name in ["cursor-agent", "agent"] {
        std::os::unix::fs::symlink(bin(), dir.path().join(name)).expect("symlink");
    }
    dir
}

/// A readable record of a run for snapshots: exit status, stdout, stderr.
pub fn transcript(output: &Output) -> String {
    use std::os::unix::process::ExitStatusExt;
    let status = match (output.status.code(), output.status.signal()) {
        (Some(code), _) => format!("exit code {code}"),
        (None, Some(signal)) => format!("signal {signal}"),
        (None, None) => "unknown".to_owned(),
    };
    format!(
        "{status}\n--- stdout ---\n{}--- stderr ---\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// The curated cassettes and captures, sorted.
pub fn curated() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(root().join("cassettes"))
        .expect("cassettes/")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "cassette" || e == "ndjson"))
        .collect();
    files.sort();
    files
}

/// Every `.rs` file under `dir` (a source folder of the workspace), sorted.
pub fn rust_sources(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir)
            .expect("reads the source folder")
            .flatten()
        {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}
