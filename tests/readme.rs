//! Every shell example of README.md runs, as a user would type it, so that README stays
//! true: each ```` ```sh ```` block is run by `sh` in a folder of its own, with
//! `mock-agent` and `cursor-agent` on `PATH` (this build of the binary), and each of its
//! commands must end as [`EXPECTED`] says (0 unless listed there), without an error of
//! the mock's own (`mock-agent: ...` on stderr).
//!
//! What stands in for the reader's machine, and why:
//! - the programs README calls `my_bot.py`, `my_consumer`, `my_acp_client.py`,
//!   `my_client.py` and `my-editor-plugin` are the project's example consumers
//!   (`tests/consumers/careful.py`, `acp_careful.py`, or a reader of stdin);
//! - `cassettes/` is a copy of the curated cassettes (an example records into it);
//! - `/tmp/` is a folder of the run's own (tests run in parallel);
//! - `cargo run --release -p mock-agent --` is the binary under test; the other `cargo`
//!   lines (build, test, bench, insta) are what CI runs itself, and are skipped, as
//!   are `pip install .` and `pytest` (the Python quick start: tests/pytest.rs runs
//!   the plugin, `scripts/pip-install-check.sh` the install, which builds a release);
//! - `mock-agent test` plays the cases of one cassette (`--filter`): the whole matrices
//!   are played by the consumer tests, and take minutes.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::{bin, root};

/// The commands that end with another status than 0, with why: a README line that
/// changes must be listed here again, so a changed example is looked at.
const EXPECTED: &[(&str, i32, &str)] = &[
    (
        "MOCK_AGENT_FAULTS='eof:after=3,byte=10' cursor-agent -p hi",
        1,
        "a stream cut before its result ends as the real CLI ends a failed run",
    ),
    (
        "mock-agent replay cassettes/shell-command.cassette --fault 'noise:after=0' --fault 'exit:code=2'",
        2,
        "the `exit:code=2` fault makes the replay end with 2",
    ),
    (
        "MOCK_AGENT_FAULTS='stall:at=tool_call' python3 my_bot.py",
        1,
        "the bot's watchdog gives up on the stalled agent and reports failure",
    ),
    (
        "MOCK_AGENT_FAULTS='quota' python3 my_bot.py",
        1,
        "the agent fails as the real CLI does, and the bot reports it",
    ),
];

/// How long one block may take.
const LIMIT: Duration = Duration::from_secs(600);

/// A command of a block: the README line it starts on, and its text (continuation
/// lines joined).
struct Example {
    line: usize,
    text: String,
}

/// The `sh` blocks of README, as commands.
fn examples(readme: &str) -> Vec<Vec<Example>> {
    let mut blocks = Vec::new();
    let mut block: Option<Vec<Example>> = None;
    let mut pending: Option<Example> = None;
    for (i, line) in readme.lines().enumerate() {
        let number = i + 1;
        if let Some(commands) = block.as_mut() {
            if line.starts_with("```") {
                blocks.extend(block.take());
                continue;
            }
            let example = match pending.take() {
                Some(mut started) => {
                    started.text.push('\n');
                    started.text.push_str(line);
                    started
                }
                None if line.trim().is_empty() => continue,
                None => Example {
                    line: number,
                    text: line.to_owned(),
                },
            };
            if line.ends_with('\\') {
                pending = Some(example);
            } else {
                commands.push(example);
            }
        } else if line.trim_end() == "```sh" {
            block = Some(Vec::new());
        }
    }
    assert!(block.is_none(), "README.md: a ```sh block is not closed");
    blocks
}

/// The command as run here, or `None` when it is skipped.
fn adapted(text: &str, tmp: &Path) -> Option<String> {
    let text = text.replace("/tmp/", &format!("{}/", tmp.display()));
    if let Some(rest) = text.strip_prefix("cargo run --release -p mock-agent --") {
        return Some(format!("mock-agent{rest}"));
    }
    // `NAME=value cargo ...` too.
    let program = text
        .split_whitespace()
        .find(|word| !word.contains('='))
        .unwrap_or_default();
    if matches!(program, "cargo" | "pip" | "pytest") {
        return None;
    }
    if text.starts_with("mock-agent test ") {
        // The whole matrices are played by tests/consumers.rs and acp_consumers.rs.
        return Some(format!("{text} --filter {}", slice(&text)));
    }
    Some(text)
}

/// The cases a `mock-agent test` example plays here: those of one source.
fn slice(command: &str) -> &'static str {
    if command.contains("--cassettes") {
        "shell-"
    } else if command.contains("--generated") {
        "generated-1/"
    } else {
        "default/"
    }
}

/// The folder an example runs in: the consumers, the cassettes, the binary.
fn stage(dir: &Path) -> PathBuf {
    let consumers = root().join("tests/consumers");
    let bin_dir = dir.join("bin");
    std::fs::create_dir_all(&bin_dir).expect("bin");
    std::fs::create_dir_all(dir.join("tmp")).expect("tmp");
    std::fs::create_dir_all(dir.join("target/release")).expect("target");
    let link = |to: &Path, at: &Path| std::os::unix::fs::symlink(to, at).expect("links");
    link(&bin(), &bin_dir.join("mock-agent"));
    link(&bin(), &bin_dir.join("cursor-agent"));
    link(&bin(), &dir.join("target/release/mock-agent"));
    for (name, from) in [
        ("my_bot.py", "careful.py"),
        ("my_acp_client.py", "acp_careful.py"),
        ("my_client.py", "acp_careful.py"),
    ] {
        std::fs::copy(consumers.join(from), dir.join(name)).expect("copies a consumer");
    }
    let plugin = bin_dir.join("my-editor-plugin");
    std::fs::copy(consumers.join("acp_careful.py"), &plugin).expect("copies a client");
    let consumer = bin_dir.join("my_consumer");
    std::fs::write(&consumer, "#!/bin/sh\nexec cat >/dev/null\n").expect("writes");
    for program in [&plugin, &consumer] {
        std::fs::set_permissions(program, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .expect("chmod");
    }
    let cassettes = dir.join("cassettes");
    copy_folder(&root().join("cassettes"), &cassettes);
    bin_dir
}

fn copy_folder(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("makes the folder");
    for entry in std::fs::read_dir(from).expect("reads the folder") {
        let entry = entry.expect("entry");
        let path = entry.path();
        if path.is_dir() {
            copy_folder(&path, &to.join(entry.file_name()));
        } else {
            std::fs::copy(&path, to.join(entry.file_name())).expect("copies");
        }
    }
}

/// Runs a block as one script (an example may start something in the background and
/// talk to it in the next lines); each command writes its status to fd 9.
fn run_block(block: &[Example], dir: &Path, path: &str) -> Vec<String> {
    let tmp = dir.join("tmp");
    let statuses = dir.join("statuses");
    let mut script = String::from("exec 9>statuses\n");
    let mut run = Vec::new();
    for example in block {
        let Some(command) = adapted(&example.text, &tmp) else {
            continue;
        };
        let background = command
            .trim_end()
            .split('#')
            .next()
            .unwrap_or("")
            .trim_end()
            .ends_with('&');
        script.push_str(&command);
        script.push('\n');
        if !background {
            script.push_str(&format!("echo {} $? >&9\n", example.line));
        }
        run.push((example, background));
    }
    if run.is_empty() {
        return Vec::new();
    }
    let started = Instant::now();
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(&script)
        .current_dir(dir)
        .env("PATH", path)
        .env_remove("CI")
        .env_remove("MOCK_AGENT_CASSETTE")
        .env_remove("MOCK_AGENT_FAULTS")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("runs sh");
    let stderr = child.stderr.take().expect("stderr");
    let reader = std::thread::spawn(move || std::io::read_to_string(stderr).unwrap_or_default());
    loop {
        if child.try_wait().expect("waits").is_some() {
            break;
        }
        if started.elapsed() > LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            return vec![format!(
                "README.md:{}: the block did not end within {LIMIT:?}",
                block[0].line
            )];
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let stderr = reader.join().unwrap_or_default();
    let written = std::fs::read_to_string(&statuses).unwrap_or_default();
    let mut problems = Vec::new();
    for (example, background) in run {
        if background {
            continue;
        }
        let status = written.lines().find_map(|l| {
            let (line, status) = l.split_once(' ')?;
            (line.parse::<usize>().ok()? == example.line).then(|| status.parse::<i32>().ok())?
        });
        let first = example.text.lines().next().unwrap_or("");
        let expected = EXPECTED
            .iter()
            .find(|(text, _, _)| first.starts_with(text))
            .map_or(0, |(_, code, _)| *code);
        if status != Some(expected) {
            problems.push(format!(
                "README.md:{}: `{first}` ended with {status:?}, expected {expected}",
                example.line
            ));
        }
    }
    for line in stderr.lines().filter(|l| l.starts_with("mock-agent:")) {
        problems.push(format!(
            "README.md:{}: the block printed an error of the mock's: {line}",
            block[0].line
        ));
    }
    if !problems.is_empty() {
        problems.push(format!("stderr of the block:\n{stderr}"));
    }
    problems
}

#[test]
fn every_shell_example_of_the_readme_runs() {
    let readme = std::fs::read_to_string(root().join("README.md")).expect("reads README.md");
    let blocks = examples(&readme);
    assert!(blocks.len() >= 10, "README.md has {} sh blocks", blocks.len());
    let mut problems = Vec::new();
    for block in &blocks {
        let dir = tempfile::tempdir().expect("temp dir");
        let bin_dir = stage(dir.path());
        let path = format!(
            "{}:{}",
            bin_dir.display(),
            std::env::var("PATH").unwrap_or_default()
        );
        problems.extend(run_block(block, dir.path(), &path));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn every_exception_is_still_in_the_readme() {
    let readme = std::fs::read_to_string(root().join("README.md")).expect("reads README.md");
    for (text, _, why) in EXPECTED {
        assert!(
            readme.contains(text),
            "README.md no longer says `{text}` ({why}): drop it from EXPECTED"
        );
    }
}

#[test]
fn commands_are_read_whole_and_cargo_is_left_to_ci() {
    let blocks = examples("```sh\na \\\n  b\n\ncargo bench\n```\ntext\n```sh\nc # x\n```\n");
    let texts: Vec<Vec<&str>> = blocks
        .iter()
        .map(|b| b.iter().map(|e| e.text.as_str()).collect())
        .collect();
    assert_eq!(texts, vec![vec!["a \\\n  b", "cargo bench"], vec!["c # x"]]);
    assert_eq!(blocks[0][1].line, 5);
    let tmp = Path::new("/x");
    assert_eq!(adapted("cargo bench", tmp), None);
    assert_eq!(adapted("INSTA_UPDATE=always cargo test", tmp), None);
    assert_eq!(adapted("pip install .", tmp), None);
    assert_eq!(
        adapted("mock-agent test --acp --cassettes c", tmp).as_deref(),
        Some("mock-agent test --acp --cassettes c --filter shell-")
    );
    assert_eq!(
        adapted("cargo run --release -p mock-agent -- -p hi", tmp).as_deref(),
        Some("mock-agent -p hi")
    );
    assert_eq!(adapted("ls /tmp/a", tmp).as_deref(), Some("ls /x/a"));
}
