//! What the tests of the real SDKs share (claude_sdks.rs, codex_sdks.rs): the SDKs a
//! script installs once at their pinned versions, and the command that runs one of
//! their programs against the mock.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::root;

/// The two environments: the Python SDK's python and the TypeScript SDK's node_modules.
pub(crate) struct Sdks {
    pub(crate) python: PathBuf,
    pub(crate) node_modules: PathBuf,
}

/// Which SDK runs a program.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Sdk {
    Python,
    TypeScript,
}

impl Sdks {
    /// Installs `what` (`the Codex SDKs`) by `script` (`scripts/codex-sdks.sh`, which
    /// keeps them under the target directory and prints `python=` and
    /// `node_modules=`), or fails the test saying why, e.g. that a registry could not
    /// be reached: nothing is skipped.
    pub(crate) fn install(script: &str, what: &str) -> Sdks {
        let made = Command::new(root().join(script))
            .output()
            .unwrap_or_else(|e| panic!("runs {script}: {e}"));
        let stdout = String::from_utf8_lossy(&made.stdout);
        assert!(
            made.status.success(),
            "{script} could not install {what} ({}); the first run needs PyPI and the npm \
             registry:\n{stdout}{}",
            made.status,
            String::from_utf8_lossy(&made.stderr)
        );
        let path = |key: &str| {
            stdout
                .lines()
                .find_map(|line| line.strip_prefix(key))
                .map(PathBuf::from)
                .unwrap_or_else(|| panic!("{script} printed no {key}: {stdout}"))
        };
        Sdks {
            python: path("python="),
            node_modules: path("node_modules="),
        }
    }

    /// The command that runs the program `name` of `sdk` from the folder `programs`
    /// (`tests/codex`: its `sdk-py/NAME.py` by the Python SDK's python, or its
    /// `sdk-ts/NAME.mjs` by node), in `dir`, without the mock's own environment.
    pub(crate) fn program(&self, sdk: Sdk, programs: &str, name: &str, dir: &Path) -> Command {
        let mut command = match sdk {
            Sdk::Python => {
                let mut command = Command::new(&self.python);
                command
                    .arg(root().join(programs).join("sdk-py").join(format!("{name}.py")))
                    .env("PYTHONDONTWRITEBYTECODE", "1");
                command
            }
            Sdk::TypeScript => {
                // Node finds a package from the importing file's folder: the programs run
                // from a copy beside a link to the installed node_modules.
                let copied = dir.join("programs");
                std::fs::create_dir(&copied).expect("programs folder");
                copy_programs(&root().join(programs).join("sdk-ts"), &copied);
                std::os::unix::fs::symlink(&self.node_modules, copied.join("node_modules"))
                    .expect("links node_modules");
                let mut command = Command::new("node");
                command.arg(copied.join(format!("{name}.mjs")));
                command
            }
        };
        harness::run::child::without_mock_env(&mut command).current_dir(dir);
        command
    }
}

/// Copies the TypeScript programs (`*.mjs`) of `from` into `to`.
fn copy_programs(from: &Path, to: &Path) {
    let programs = std::fs::read_dir(from).unwrap_or_else(|e| panic!("{}: {e}", from.display()));
    for entry in programs.flatten() {
        let path = entry.path();
        if path.extension().is_some_and(|e| e == "mjs") {
            std::fs::copy(&path, to.join(entry.file_name())).expect("copies a program");
        }
    }
}
