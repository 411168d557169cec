//! Whether a Node.js consumer ended only because a top-level `await` never settled,
//! told by Node.js itself: the runner adds a `--require` of a small note to the
//! consumer's `NODE_OPTIONS` that notes each Node.js program's start and, at its exit,
//! whether it exits 13 without having asked to (`process.exit(13)` is asked; Node.js
//! exits 13 of its own when the event loop empties while the module's top-level
//! `await` waits: Node.js 20 says nothing on stderr then). A program that awaits the
//! end of an agent's stream that never comes looks, without the note, as if it
//! reported a failure (a non-zero exit); it waited for ever in all but name, and a
//! program that keeps something alive (a server, a bot, a timer) hangs there.
//!
//! The note changes nothing else: it writes one line at the start and maybe one at
//! the exit to a file of the case.

use std::path::{Path, PathBuf};

/// The environment variable that names the file the notes go to.
const ENDS: &str = "MOCK_AGENT_NODE_ENDS";

/// The note's file name, in the case's folder.
pub(super) const FILE: &str = "node-note.cjs";

/// The note (CommonJS, so that `--require` loads it for ES modules too).
const NOTE: &str = r#"// Written by mock-agent's runner: notes whether a Node.js program of a case
// ended because a top-level await never settled (exit 13 not asked for), for the
// `ends` property. It changes nothing else.
"use strict";
(() => {
  const fs = require("fs");
  const path = process.env.MOCK_AGENT_NODE_ENDS;
  if (!path) return;
  const write = (line) => {
    try {
      fs.appendFileSync(path, line + "\n");
    } catch {}
  };
  const ancestors = [];
  let pid = process.ppid;
  for (let i = 0; i < 64 && pid > 1; i++) {
    ancestors.push(String(pid));
    try {
      const stat = fs.readFileSync("/proc/" + pid + "/stat", "utf8");
      pid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    } catch {
      break;
    }
  }
  write("start " + process.pid + " " + ancestors.join(","));
  let asked = false;
  const exit = process.exit;
  process.exit = function (code) {
    if (code !== undefined && code !== null) asked = true;
    return exit.apply(this, arguments);
  };
  process.on("exit", (code) => {
    write("ended " + process.pid + " " + code + (asked ? ":asked" : ""));
  });
})();
"#;

/// How the consumer's outermost Node.js program ended, as its note says: the code its
/// `exit` event carried, and whether it asked for it (`process.exit(code)`). When a
/// top-level `await` never settled, Node.js 20 emits `exit` with code 0 and then exits
/// 13; Node.js 22 emits it with 13 and says so on stderr (`Warning: Detected unsettled
/// top-level await at ...`). A program that sets `process.exitCode = 13` itself has
/// 13 in its `exit` event too, and no such warning.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NodeEnd {
    /// The code of its `exit` event (`None`: it noted its start, not its end).
    pub code: Option<i32>,
    /// Whether the program asked for that code.
    pub asked: bool,
}

impl NodeEnd {
    /// Whether a consumer that exited `status`, having written `stderr`, ended because
    /// a top-level `await` never settled: it exited 13 without asking for it, and its
    /// Node.js program meant to end well (Node.js 20), or meant 13 where Node.js said
    /// on stderr that it was for an unsettled `await` (Node.js 22; without that word,
    /// the program set `process.exitCode = 13` itself).
    pub fn unsettled(&self, status: super::Status, stderr: &[u8]) -> bool {
        status == super::Status::Exited(13)
            && !self.asked
            && match self.code {
                Some(0) => true,
                Some(13) => memchr::memmem::find(stderr, UNSETTLED_WARNING.as_bytes()).is_some(),
                _ => false,
            }
    }
}

/// What Node.js 22 writes on stderr when it exits 13 for a top-level `await` that never
/// settled.
const UNSETTLED_WARNING: &str = "Warning: Detected unsettled top-level await at";

/// Writes the note in `dir`; its path.
pub(super) fn install(dir: &Path) -> std::io::Result<PathBuf> {
    let file = dir.join(FILE);
    std::fs::write(&file, NOTE)?;
    Ok(file)
}

/// Whether the note in `dir` is as [`install`] wrote it.
pub(super) fn untouched(dir: &Path) -> bool {
    std::fs::read(dir.join(FILE)).is_ok_and(|text| text == NOTE.as_bytes())
}

/// Has the consumer's Node.js programs take the note: `--require NOTE` after the
/// `NODE_OPTIONS` the consumer would have (its own setting in `env`, else the
/// harness's), and the file it goes to.
pub(super) fn take_note(cmd: &mut std::process::Command, env: &[(String, String)], note: &Path, ends: &Path) {
    let theirs = env
        .iter()
        .rev()
        .find(|(name, _)| name == "NODE_OPTIONS")
        .map(|(_, value)| std::ffi::OsString::from(value))
        .or_else(|| std::env::var_os("NODE_OPTIONS"));
    cmd.env("NODE_OPTIONS", options_with(note, theirs.as_deref()));
    cmd.env(ENDS, ends);
}

/// `NODE_OPTIONS` with the note required after `theirs`.
fn options_with(note: &Path, theirs: Option<&std::ffi::OsStr>) -> std::ffi::OsString {
    let mut options = std::ffi::OsString::new();
    if let Some(theirs) = theirs.filter(|t| !t.is_empty()) {
        options.push(theirs);
        options.push(" ");
    }
    // Node.js reads `NODE_OPTIONS` as a shell would: the path in double quotes, its
    // `"` and `\` escaped.
    let path = note
        .display()
        .to_string()
        .replace('\\', "\\\\")
        .replace('"', "\\\"");
    options.push(format!("--require \"{path}\""));
    options
}

/// Reads the notes: `None` when no Node.js program took the note. Of several
/// outermost programs (a shell that runs two), the one that said the highest code.
pub(super) fn read(notes: &[u8]) -> Option<NodeEnd> {
    let text = String::from_utf8_lossy(notes);
    let ends = super::python::outermost_ends(&text, "ended")?;
    let read = |said: &str| {
        let (code, asked) = said
            .split_once(':')
            .map_or((said, false), |(code, _)| (code, true));
        NodeEnd {
            code: code.parse().ok(),
            asked,
        }
    };
    Some(
        ends.into_iter()
            .map(read)
            .max_by_key(|end| end.code)
            .unwrap_or(NodeEnd {
                code: None,
                asked: false,
            }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The note as Node.js takes it: a program whose top-level `await` never settles
    /// is noted; one that exits 13 by asking, or ends well, is not; a helper it runs
    /// is not it.
    #[test]
    fn node_notes_a_top_level_await_that_never_settles() {
        if std::process::Command::new("node")
            .arg("-e")
            .arg("")
            .status()
            .is_err()
        {
            eprintln!("no node here: the note's JavaScript is not tried");
            return;
        }
        let dir = tempfile::tempdir().expect("a temporary folder");
        let note = install(dir.path()).expect("installs the note");
        let run = |program: &str| {
            let ends = dir.path().join("ends");
            let _ = std::fs::remove_file(&ends);
            let file = dir.path().join("program.mjs");
            std::fs::write(&file, program).expect("writes the program");
            let mut cmd = std::process::Command::new("node");
            cmd.arg(&file);
            take_note(&mut cmd, &[], &note, &ends);
            let output = cmd.output().expect("runs node");
            let end = read(&std::fs::read(&ends).unwrap_or_default()).expect("a note");
            let status = crate::run::Status::Exited(output.status.code().expect("an exit code"));
            end.unsettled(status, &output.stderr)
        };
        assert!(run("await new Promise(() => {});\nconsole.log('never');\n"));
        assert!(!run("process.exit(13);\n"));
        assert!(!run("process.exitCode = 13;\n"));
        assert!(!run("console.log('hi');\n"));
        let helper = "import { spawnSync } from 'node:child_process';\n\
                      spawnSync(process.execPath, ['--input-type=module', '-e', 'await new Promise(() => {})'], { stdio: 'ignore' });\n\
                      process.exitCode = 2;\n";
        assert!(!run(helper));
        assert!(untouched(dir.path()));
    }

    /// Node.js 22's ends, as its note and stderr say them (Node.js 22.23.3: the
    /// `exit` event carries 13 in both).
    #[test]
    fn node_22_s_unsettled_await_is_told_by_its_warning() {
        let end = NodeEnd {
            code: Some(13),
            asked: false,
        };
        let exited = crate::run::Status::Exited(13);
        let warned = b"Warning: Detected unsettled top-level await at file:///p.mjs:1\nawait x;\n^\n";
        assert!(end.unsettled(exited, warned));
        assert!(!end.unsettled(exited, b"it set process.exitCode itself\n"));
        assert!(!end.unsettled(crate::run::Status::Exited(1), warned));
        assert!(!NodeEnd { asked: true, ..end }.unsettled(exited, warned));
    }

    #[test]
    fn the_note_is_required_after_the_consumer_s_options() {
        let note = Path::new("/tmp/case \"x\"/node-note.cjs");
        assert_eq!(
            options_with(note, Some(std::ffi::OsStr::new("--max-old-space-size=64"))),
            "--max-old-space-size=64 --require \"/tmp/case \\\"x\\\"/node-note.cjs\""
        );
        assert_eq!(
            options_with(Path::new("/t/n.cjs"), None),
            "--require \"/t/n.cjs\""
        );
    }
}
