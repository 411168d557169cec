//! How a case's settings reach the mock, and how the mock tells the runner what it got.
//!
//! The runner hands a case's settings (`MOCK_AGENT_*`) to the mock two ways: in the
//! consumer's environment, and in a file beside the mock on the consumer's `PATH`,
//! `bin/.mock-agent.env` ([`FILE_NAME`]). Many programs pass their child an
//! allow-listed environment (only `ANTHROPIC_*`, `CLAUDE_*`, `HOME`, `PATH`, ...), so
//! the variables never arrive; the file does, since the mock finds it beside the path
//! it was run by. A variable of the environment wins over the file's line of the same
//! name.
//!
//! The file holds one `NAME=VALUE` line per setting (the value is the rest of the line,
//! as is: no quotes, no escapes); blank lines, lines starting with `#` and names
//! without the `MOCK_AGENT_` prefix are skipped. A value holding a line break cannot be
//! written in it (it travels in the environment only).
//!
//! Each start of the mock is recorded, when `MOCK_AGENT_STARTED` names a file, as one
//! JSON line ([`Start`]): its process, each setting it read and from where. A mock
//! killed before its end (`SIGKILL`, which writes no journal entry) leaves that line,
//! so the runner tells a consumer that never ran the agent from one that killed it.
//!
//! A mock that got no setting at all (the program gave it an allow-listed environment
//! and ran it by a path with no settings file beside it: a copy, the binary itself)
//! looks for `MOCK_AGENT_STARTED` in the environments of the processes that started
//! it; found, it was run in a case and cannot know which: it records its start there
//! with why ([`Start::lost`]), says so on stderr and exits 64, and the runner reports
//! the case as not run. It never plays the default session as if it were the case's.
//!
//! ```json
//! {"pid":4242,"settings":[{"name":"MOCK_AGENT_FAULTS","value":"eof","from":"file"}],"settings_file":"/tmp/mock-agent-case-x/bin/.mock-agent.env"}
//! ```

use std::io::Write as _;
use std::path::Path;

use serde::{Deserialize, Serialize};

/// The name of the settings file beside the mock on a consumer's `PATH`.
pub const FILE_NAME: &str = ".mock-agent.env";

/// The prefix of the mock's settings.
pub const PREFIX: &str = "MOCK_AGENT_";

/// The setting that names the file each start of the mock is recorded in.
pub const STARTED: &str = "MOCK_AGENT_STARTED";

/// The setting that names the CLI a mock run by its own name stands in for (the
/// program name of a link, e.g. `codex`): `mock-agent test` sets it in each case, so
/// that a program that runs the link's target (the `mock-agent` binary, found by
/// resolving the link, as some SDKs do to find a CLI's companion files) still gets
/// the case's CLI.
pub const CLI: &str = "MOCK_AGENT_CLI";

/// One setting the mock read, and where from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Setting {
    /// Its name (`MOCK_AGENT_FAULTS`).
    pub name: String,
    /// Its value, as read.
    pub value: String,
    /// Where it came from.
    pub from: From,
}

/// Where a setting came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum From {
    /// The mock's environment.
    Env,
    /// The settings file beside the path the mock was run by ([`FILE_NAME`]).
    File,
}

impl std::fmt::Display for From {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            From::Env => "the environment",
            From::File => FILE_NAME,
        })
    }
}

/// One start of the mock, as recorded in the file `MOCK_AGENT_STARTED` names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Start {
    /// The mock's process id.
    pub pid: u32,
    /// Each setting it read (set, in the environment or the file), in name order.
    #[serde(default)]
    pub settings: Vec<Setting>,
    /// The settings file it read, if it found one.
    #[serde(default)]
    pub settings_file: Option<String>,
    /// The process that started it, as it was then: `PID COMMAND LINE` (`4200 python3
    /// bot.py`), for the runner to say who started an agent left running.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
    /// Why the mock could not know its case, when it could not: it got no setting at
    /// all (none in its environment, no settings file beside the path it was run by)
    /// while a process that started it had `MOCK_AGENT_STARTED` (this record's file),
    /// so it was run in a case, and lost it. Such a mock plays nothing: it says so and
    /// exits 64.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lost: Option<String>,
}

impl Start {
    /// The start of process `pid` with these settings, read from `settings_file`.
    pub fn new(pid: u32, settings: Vec<Setting>, settings_file: Option<String>) -> Self {
        Start {
            pid,
            settings,
            settings_file,
            parent: None,
            lost: None,
        }
    }

    /// The same start, of a mock that could not know its case, and why.
    #[must_use]
    pub fn lost(mut self, why: String) -> Self {
        self.lost = Some(why);
        self
    }

    /// The same start, by the process `parent` (`PID COMMAND LINE`).
    #[must_use]
    pub fn parent(mut self, parent: Option<String>) -> Self {
        self.parent = parent;
        self
    }
}

/// The settings file's text for these settings: names without the prefix, and values
/// with a line break, left out.
pub fn render<'a>(settings: impl IntoIterator<Item = (&'a str, &'a str)>) -> String {
    let mut text =
        String::from("# The mock-agent settings of this case (see `harness::journal::settings`).\n");
    for (name, value) in settings {
        if name.starts_with(PREFIX) && !name.contains('=') && !value.contains(['\n', '\r']) {
            text.push_str(name);
            text.push('=');
            text.push_str(value);
            text.push('\n');
        }
    }
    text
}

/// The settings of a settings file's text, in order.
pub fn parse(text: &str) -> Vec<(String, String)> {
    text.lines()
        .filter(|line| !line.trim_start().starts_with('#'))
        .filter_map(|line| line.split_once('='))
        .filter(|(name, _)| name.starts_with(PREFIX))
        .map(|(name, value)| (name.to_owned(), value.to_owned()))
        .collect()
}

/// Appends the record of one start to the file at `path`, in one `write` (lines of
/// processes started at once do not interleave).
pub fn append_start(path: &Path, start: &Start) -> std::io::Result<()> {
    let mut line = serde_json::to_vec(start)?;
    line.push(b'\n');
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?
        .write_all(&line)
}

/// The starts recorded in the file at `path`: none when it does not exist; a line
/// that does not read (cut short by a kill) is passed over.
pub fn read_starts(path: &Path) -> Vec<Start> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_reads_back_what_was_written_but_what_it_cannot_hold() {
        let text = render([
            ("MOCK_AGENT_FAULTS", "eof:at=mid-line;exit:code=2"),
            ("MOCK_AGENT_ACCOUNT", ""),
            ("MOCK_AGENT_CASSETTE", "/a b/c=d.cassette"),
            ("PATH", "/bin"),
            ("MOCK_AGENT_SEED", "1\n2"),
        ]);
        assert_eq!(
            parse(&text),
            [
                (
                    "MOCK_AGENT_FAULTS".to_owned(),
                    "eof:at=mid-line;exit:code=2".to_owned()
                ),
                ("MOCK_AGENT_ACCOUNT".to_owned(), String::new()),
                ("MOCK_AGENT_CASSETTE".to_owned(), "/a b/c=d.cassette".to_owned()),
            ]
        );
    }

    #[test]
    fn starts_round_trip_and_a_cut_line_is_passed_over() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("starts.jsonl");
        assert!(read_starts(&path).is_empty(), "no file: no start");
        let start = Start::new(
            7,
            vec![Setting {
                name: "MOCK_AGENT_FAULTS".into(),
                value: "eof".into(),
                from: From::File,
            }],
            Some("/x/.mock-agent.env".into()),
        );
        append_start(&path, &start).expect("appends");
        std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .and_then(|mut f| f.write_all(b"{\"pid\":8,\"sett"))
            .expect("appends");
        assert_eq!(read_starts(&path), [start]);
    }
}
