//! README.md and the guide (every `.md` under docs/, found by walking the folder, so a
//! page added later is covered as soon as it is there) stay true:
//!
//! - each ```` ```sh ```` (or `bash`, `shell`) block is run by `sh` in a folder of its
//!   own, with `mock-agent` and the names it answers to on `PATH` (this build of the
//!   binary), and each of its commands must end as [`EXPECTED`] says (0 unless listed
//!   there), without an error of the mock's own (`mock-agent: ...` on stderr);
//! - each ```` ```python ```` block runs: a block with `def test_` as a pytest file (the
//!   plugin from python/, the suite's virtual environment of scripts/python-env.sh),
//!   any other as a script (the Python Claude Agent SDK's environment of
//!   scripts/claude-sdks.sh when it imports the SDK); it must pass, exit 0;
//! - each ```` ```js ```` block runs under `node` beside the TypeScript Claude Agent
//!   SDK's `node_modules`; a ```` ```ts ```` block must be run by a test of its own
//!   (its page in [`RUN_ELSEWHERE`], which takes its ```` ```js ```` blocks too) or
//!   be marked;
//! - a block that cannot run as it stands (a fragment, a command that needs the real
//!   CLIs, which a test of their own runs) says so and why in its info string:
//!   ```` ```python no-run: REASON ````; there are at most [`MAX_NOT_RUN`] of them;
//! - every relative link (and `#anchor`) resolves, docs/SUMMARY.md lists every page
//!   of the guide, README.md is under [`README_LINES`] lines, and each page with Rust
//!   examples is compiled as doctests (harness/src/lib.rs includes it).
//!
//! What stands in for the reader's machine, and why:
//! - the programs the examples call `my_bot.py`, `my_consumer`, `my_acp_client.py`,
//!   `my_client.py`, `my-editor-plugin`, `my_sdk_bot.py`, `my_codex_bot.py`,
//!   `my_program.py` (Gemini's) and `my_gemini_client.py` are the
//!   project's example consumers (`tests/consumers/careful.py`, `acp_careful.py`,
//!   `claude_careful.py`, `codex_careful.py`, or a reader of stdin), run by the Python
//!   Claude Agent SDK's environment (a python3 that has the SDK);
//! - `cassettes/` is a copy of the curated cassettes (an example records into it);
//! - `/tmp/` is a folder of the run's own (tests run in parallel), where `bin/claude`
//!   is a link to the mock;
//! - `cargo run --release -p mock-agent --` is the binary under test; the other `cargo`
//!   lines (build, install, test, bench, insta) are what CI runs itself, and are
//!   skipped, as are `pip install .`, `pytest` (the pytest examples run as Python
//!   blocks; tests/pytest.rs runs the plugin, `scripts/pip-install-check.sh` the
//!   install, which builds a release) and `npm`/`npx` (the npm packages' own test
//!   installs the tarballs);
//! - `mock-agent test` plays the cases of one source (`--filter`): the whole matrices
//!   are played by the consumer tests, and take minutes.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use crate::support::{bin, root};

mod links;

/// The commands that end with another status than 0, with why: a line that changes
/// must be listed here again, so a changed example is looked at.
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
    (
        "PATH=/tmp/fake-bin:$PATH MOCK_AGENT_FAULTS=connection-lost python3 my_bot.py",
        1,
        "the bot reports the agent's lost connection with its exit code",
    ),
    (
        "MOCK_AGENT_FAULTS=rate-limited bin/gemini --skip-trust -o stream-json -p \"Say hi\"",
        173,
        "Gemini CLI 0.61.0 ends a 429 with the HTTP status mod 256",
    ),
];

/// The pages whose TypeScript and JavaScript examples a test of their own runs
/// (installing the packed npm packages into a fresh project), with that test.
const RUN_ELSEWHERE: &[(&str, &str)] = &[
    (
        "docs/npm.md",
        "tests/npm.rs installs the packed tarballs into a fresh project and runs its example",
    ),
    (
        "docs/codex.md",
        "tests/codex_sdks.rs runs the TypeScript SDK on the mock as `codexPathOverride`",
    ),
];

/// How many blocks may be marked `no-run`: exceptions stay few.
const MAX_NOT_RUN: usize = 6;

/// README.md is the way in, not the manual.
const README_LINES: usize = 250;

/// How long one block may take.
const LIMIT: Duration = Duration::from_secs(600);

/// A page: its path from the workspace root, and its text.
struct Page {
    path: String,
    text: String,
}

/// README.md and every `.md` under docs/, in name order.
fn pages() -> Vec<Page> {
    let mut paths = vec![root().join("README.md")];
    let mut folders = vec![root().join("docs")];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).expect("reads docs/") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                paths.push(path);
            }
        }
    }
    paths[1..].sort();
    paths
        .into_iter()
        .map(|path| Page {
            text: std::fs::read_to_string(&path).expect("reads a page"),
            path: path
                .strip_prefix(root())
                .expect("under the root")
                .to_string_lossy()
                .into_owned(),
        })
        .collect()
}

/// A fenced block: its language, what its info string says besides, the line its
/// first line is on, and its lines.
struct Block {
    lang: String,
    info: String,
    line: usize,
    lines: Vec<String>,
}

impl Block {
    /// The reason given by `no-run: REASON`, if the block is marked so.
    fn not_run(&self) -> Option<&str> {
        self.info
            .split_once("no-run")
            .map(|(_, reason)| reason.trim_start_matches(':').trim())
    }
}

/// The fenced blocks of a page (fences may be indented, in a list).
fn blocks(text: &str) -> Vec<Block> {
    let mut found = Vec::new();
    let mut open: Option<(String, Block)> = None;
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        match open.as_mut() {
            Some((indent, block)) => {
                if trimmed.starts_with("```") {
                    found.extend(open.take().map(|(_, b)| b));
                } else {
                    let line = line.strip_prefix(indent.as_str()).unwrap_or(line);
                    block.lines.push(line.to_owned());
                }
            }
            None => {
                if let Some(info) = trimmed.strip_prefix("```") {
                    let (lang, rest) = info.split_once(' ').unwrap_or((info, ""));
                    let indent = line[..line.len() - trimmed.len()].to_owned();
                    open = Some((
                        indent,
                        Block {
                            lang: lang.trim().to_owned(),
                            info: rest.trim().to_owned(),
                            line: i + 2,
                            lines: Vec::new(),
                        },
                    ));
                }
            }
        }
    }
    assert!(open.is_none(), "a ``` block is not closed");
    found
}

/// A command of a shell block: the line it starts on, and its text (continuation
/// lines joined).
struct Example {
    line: usize,
    text: String,
}

/// The commands of a shell block.
fn commands(block: &Block) -> Vec<Example> {
    let mut commands = Vec::new();
    let mut pending: Option<Example> = None;
    for (i, line) in block.lines.iter().enumerate() {
        let example = match pending.take() {
            Some(mut started) => {
                started.text.push('\n');
                started.text.push_str(line);
                started
            }
            None if line.trim().is_empty() => continue,
            None => Example {
                line: block.line + i,
                text: line.clone(),
            },
        };
        if line.ends_with('\\') {
            pending = Some(example);
        } else {
            commands.push(example);
        }
    }
    commands.extend(pending);
    commands
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
    if matches!(program, "cargo" | "pip" | "pytest" | "npm" | "npx") {
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

/// Prints `KEY=PATH` lines; the path after `key=`.
fn printed(script: &str, args: &[&str], key: &str) -> PathBuf {
    let made = Command::new(root().join(script))
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("runs {script}: {e}"));
    let stdout = String::from_utf8_lossy(&made.stdout);
    assert!(
        made.status.success(),
        "{script} failed ({}); its first run needs the package registries:\n{stdout}{}",
        made.status,
        String::from_utf8_lossy(&made.stderr)
    );
    let line = stdout
        .lines()
        .find_map(|l| {
            if key.is_empty() {
                Some(l)
            } else {
                l.strip_prefix(key)
            }
        })
        .unwrap_or_else(|| panic!("{script} printed no {key}: {stdout}"));
    PathBuf::from(line.trim())
}

/// The suite's python with pytest (scripts/python-env.sh).
fn pytest_python() -> &'static Path {
    static PYTHON: OnceLock<PathBuf> = OnceLock::new();
    PYTHON.get_or_init(|| printed("scripts/python-env.sh", &[], ""))
}

/// The python of the Python Claude Agent SDK's environment (scripts/claude-sdks.sh).
fn sdk_python() -> &'static Path {
    static PYTHON: OnceLock<PathBuf> = OnceLock::new();
    PYTHON.get_or_init(|| printed("scripts/claude-sdks.sh", &["py"], ""))
}

/// The TypeScript Claude Agent SDK's node_modules (scripts/claude-sdks.sh).
fn sdk_node_modules() -> &'static Path {
    static MODULES: OnceLock<PathBuf> = OnceLock::new();
    MODULES.get_or_init(|| printed("scripts/claude-sdks.sh", &["ts"], ""))
}

/// The folder an example runs in: the consumers, the cassettes, the binary under the
/// names it answers to. Returns the `PATH` to run it with.
fn stage(dir: &Path) -> String {
    let consumers = root().join("tests/consumers");
    let bin_dir = dir.join("bin");
    for folder in ["bin", "tmp/bin", "target/release"] {
        std::fs::create_dir_all(dir.join(folder)).expect("makes a folder");
    }
    let link = |to: &Path, at: &Path| std::os::unix::fs::symlink(to, at).expect("links");
    for name in ["mock-agent", "cursor-agent", "agent", "claude", "codex", "gemini"] {
        link(&bin(), &bin_dir.join(name));
    }
    link(&bin(), &dir.join("tmp/bin/claude"));
    link(&bin(), &dir.join("target/release/mock-agent"));
    for (name, from) in [
        ("my_bot.py", "careful.py"),
        ("my_acp_client.py", "acp_careful.py"),
        ("my_client.py", "acp_careful.py"),
        ("my_sdk_bot.py", "claude_careful.py"),
        ("my_codex_bot.py", "codex_careful.py"),
        ("my_program.py", "gemini_careful.py"),
        ("my_gemini_client.py", "gemini_acp_careful.py"),
        // What they import.
        ("acp_careful.py", "acp_careful.py"),
        ("event_lines.py", "event_lines.py"),
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
    copy_folder(&root().join("cassettes"), &dir.join("cassettes"));
    let python_dir = sdk_python().parent().expect("the venv's bin").to_owned();
    let path = std::env::var_os("PATH").unwrap_or_default();
    let dirs = [bin_dir, python_dir]
        .into_iter()
        .chain(std::env::split_paths(&path));
    std::env::join_paths(dirs)
        .expect("PATH")
        .to_string_lossy()
        .into_owned()
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

/// A program run in the staged folder, with no `MOCK_AGENT_*` setting of ours.
fn command(program: &Path, dir: &Path, path: &str) -> Command {
    let mut command = Command::new(program);
    harness::run::child::without_mock_env(&mut command)
        .current_dir(dir)
        .env("PATH", path)
        .env("MOCK_AGENT_BIN", bin())
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env_remove("CI")
        .stdin(Stdio::null());
    command
}

/// Runs a child to its end within [`LIMIT`]: its stdout and stderr, and its exit code
/// (`None`: killed, or out of time).
fn finish(mut command: Command) -> (Option<i32>, String) {
    let started = Instant::now();
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("runs the example");
    let out = harness::run::child::drain(child.stdout.take(), 1 << 20);
    let err = harness::run::child::drain(child.stderr.take(), 1 << 20);
    let status = loop {
        if let Some(status) = child.try_wait().expect("waits") {
            break status.code();
        }
        if started.elapsed() > LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let text = |r: std::sync::mpsc::Receiver<Vec<u8>>| {
        String::from_utf8_lossy(&r.recv().unwrap_or_default()).into_owned()
    };
    (status, format!("{}{}", text(out), text(err)))
}

/// Runs a shell block as one script (an example may start something in the
/// background and talk to it in the next lines); each command writes its status to
/// fd 9.
fn run_shell(page: &str, block: &Block, dir: &Path, path: &str) -> Vec<String> {
    let tmp = dir.join("tmp");
    let mut script = String::from("exec 9>statuses\n");
    let mut run = Vec::new();
    let examples = commands(block);
    for example in &examples {
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
            run.push(example);
        }
    }
    if script.lines().count() == 1 {
        return Vec::new();
    }
    let mut sh = command(Path::new("sh"), dir, path);
    sh.arg("-c").arg(&script);
    let mut child = sh
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("runs sh");
    let stderr = child.stderr.take().expect("stderr");
    let reader = std::thread::spawn(move || std::io::read_to_string(stderr).unwrap_or_default());
    let started = Instant::now();
    while child.try_wait().expect("waits").is_none() {
        if started.elapsed() > LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            return vec![format!(
                "{page}:{}: the block did not end within {LIMIT:?}",
                block.line
            )];
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let stderr = reader.join().unwrap_or_default();
    let written = std::fs::read_to_string(dir.join("statuses")).unwrap_or_default();
    let mut problems = Vec::new();
    for example in run {
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
                "{page}:{}: `{first}` ended with {status:?}, expected {expected}",
                example.line
            ));
        }
    }
    for line in stderr.lines().filter(|l| l.starts_with("mock-agent:")) {
        problems.push(format!(
            "{page}:{}: the block printed an error of the mock's: {line}",
            block.line
        ));
    }
    if !problems.is_empty() {
        problems.push(format!("stderr of the block:\n{stderr}"));
    }
    problems
}

/// Runs a Python block: a pytest file when it holds tests, else a script.
fn run_python(block: &Block, dir: &Path, path: &str) -> (Option<i32>, String) {
    let source = block
        .lines
        .join("\n")
        .replace("/tmp/", &format!("{}/", dir.join("tmp").display()));
    let uses_sdk = source.contains("claude_agent_sdk");
    if source.contains("def test_") {
        std::fs::write(dir.join("test_example.py"), source).expect("writes the example");
        let mut pythonpath = vec![root().join("python")];
        if uses_sdk {
            pythonpath.push(site_packages(sdk_python()));
        }
        let mut pytest = command(pytest_python(), dir, path);
        pytest
            .args(["-m", "pytest", "-p", "mock_agent.pytest_plugin"])
            .args(["-p", "no:cacheprovider", "-q", "test_example.py"])
            .env(
                "PYTHONPATH",
                std::env::join_paths(pythonpath).expect("PYTHONPATH"),
            );
        finish(pytest)
    } else {
        std::fs::write(dir.join("example.py"), source).expect("writes the example");
        let python = if uses_sdk { sdk_python() } else { pytest_python() };
        let mut script = command(python, dir, path);
        script.arg("example.py").env("PYTHONPATH", root().join("python"));
        finish(script)
    }
}

/// Where an environment's python keeps its packages.
fn site_packages(python: &Path) -> PathBuf {
    let out = Command::new(python)
        .args(["-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"])
        .output()
        .expect("asks python");
    PathBuf::from(String::from_utf8_lossy(&out.stdout).trim())
}

/// Runs a JavaScript block as an ES module beside the TypeScript SDK's node_modules.
fn run_js(block: &Block, dir: &Path, path: &str) -> (Option<i32>, String) {
    let source = block
        .lines
        .join("\n")
        .replace("/tmp/", &format!("{}/", dir.join("tmp").display()));
    std::fs::write(dir.join("example.mjs"), source).expect("writes the example");
    std::os::unix::fs::symlink(sdk_node_modules(), dir.join("node_modules")).expect("links node_modules");
    let mut node = command(Path::new("node"), dir, path);
    node.arg("example.mjs");
    finish(node)
}

/// What is wrong with running a block of a page, if anything (`None`: not code to run).
fn check_block(page: &Page, block: &Block) -> Option<Vec<String>> {
    let at = format!("{}:{}", page.path, block.line);
    let lang = block.lang.as_str();
    let code = matches!(
        lang,
        "sh" | "bash" | "shell" | "python" | "js" | "javascript" | "ts" | "typescript"
    );
    if !code {
        return None;
    }
    if let Some(reason) = block.not_run() {
        return Some(if reason.len() < 10 {
            vec![format!("{at}: `no-run` needs a reason: `no-run: why`")]
        } else {
            Vec::new()
        });
    }
    let elsewhere = RUN_ELSEWHERE.iter().any(|(p, _)| *p == page.path);
    if elsewhere && matches!(lang, "js" | "javascript" | "ts" | "typescript") {
        return Some(Vec::new());
    }
    if matches!(lang, "ts" | "typescript") {
        return Some(vec![format!(
            "{at}: a TypeScript example nothing runs: write it as ```js, or mark it \
             `no-run: why`, or list its page in RUN_ELSEWHERE with the test that runs it"
        )]);
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let path = stage(dir.path());
    let (status, output) = match lang {
        "python" => run_python(block, dir.path(), &path),
        "js" | "javascript" => run_js(block, dir.path(), &path),
        _ => return Some(run_shell(&page.path, block, dir.path(), &path)),
    };
    Some(if status == Some(0) {
        Vec::new()
    } else {
        vec![format!(
            "{at}: the {lang} example ended with {status:?}:\n{output}"
        )]
    })
}

/// Runs the examples of the pages `which` picks: the problems, and how many ran.
fn run_examples(which: impl Fn(&Page) -> bool) -> (Vec<String>, usize) {
    let mut problems = Vec::new();
    let mut ran = 0;
    for page in pages().iter().filter(|p| which(p)) {
        for block in blocks(&page.text) {
            if let Some(found) = check_block(page, &block) {
                ran += usize::from(block.not_run().is_none());
                problems.extend(found);
            }
        }
    }
    (problems, ran)
}

#[test]
fn every_example_of_the_readme_runs() {
    let (problems, ran) = run_examples(|p| p.path == "README.md");
    assert!(ran >= 6, "only {ran} examples of README.md ran");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn every_example_of_the_guide_runs() {
    let (problems, ran) = run_examples(|p| p.path != "README.md");
    assert!(ran >= 20, "only {ran} examples of docs/ ran");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn exceptions_are_few() {
    let marked: Vec<String> = pages()
        .iter()
        .flat_map(|p| {
            blocks(&p.text)
                .into_iter()
                .filter(|b| b.not_run().is_some())
                .map(|b| format!("{}:{}", p.path, b.line))
                .collect::<Vec<_>>()
        })
        .collect();
    assert!(
        marked.len() <= MAX_NOT_RUN,
        "{} blocks are marked no-run, at most {MAX_NOT_RUN}: run them instead: {marked:?}",
        marked.len()
    );
}

#[test]
fn every_exception_is_still_in_the_docs() {
    let all: String = pages().into_iter().map(|p| p.text).collect();
    for (text, _, why) in EXPECTED {
        assert!(
            all.contains(text),
            "no page says `{text}` any more ({why}): drop it from EXPECTED"
        );
    }
}

#[test]
fn blocks_are_read_whole_and_cargo_is_left_to_ci() {
    let text = "```sh\na \\\n  b\n\ncargo bench\n```\ntext\n- item\n  ```python no-run: a fragment\n  x = 1\n  ```\n";
    let found = blocks(text);
    let texts: Vec<Vec<String>> = found
        .iter()
        .map(|b| commands(b).into_iter().map(|e| e.text).collect())
        .collect();
    assert_eq!(texts, vec![vec!["a \\\n  b", "cargo bench"], vec!["x = 1"]]);
    assert_eq!(commands(&found[0])[1].line, 5);
    assert_eq!(found[1].lang, "python");
    assert_eq!(found[1].not_run(), Some("a fragment"));
    assert_eq!(found[0].not_run(), None);
    let tmp = Path::new("/x");
    assert_eq!(adapted("cargo bench", tmp), None);
    assert_eq!(adapted("INSTA_UPDATE=always cargo test", tmp), None);
    assert_eq!(adapted("pip install .", tmp), None);
    assert_eq!(adapted("npm install ./a.tgz", tmp), None);
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

#[test]
fn an_unmarked_typescript_example_and_a_reasonless_exception_are_refused() {
    let page = Page {
        path: "docs/x.md".into(),
        text: "```ts\nlet a: number = 1;\n```\n```python no-run\nx\n```\n".into(),
    };
    let problems: Vec<String> = blocks(&page.text)
        .iter()
        .flat_map(|b| check_block(&page, b).unwrap_or_default())
        .collect();
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert!(problems[0].contains("TypeScript example nothing runs"));
    assert!(problems[1].contains("needs a reason"));
}

#[test]
fn the_readme_is_short() {
    let readme = std::fs::read_to_string(root().join("README.md")).expect("reads README.md");
    let lines = readme.lines().count();
    assert!(
        lines < README_LINES,
        "README.md has {lines} lines; keep it under {README_LINES} and move the rest to docs/"
    );
}

#[test]
fn the_readme_gives_the_test_command_ci_runs() {
    let ci = std::fs::read_to_string(root().join(".ci/run")).expect("reads .ci/run");
    let readme = std::fs::read_to_string(root().join("README.md")).expect("reads README.md");
    let tests: Vec<&str> = ci
        .lines()
        .filter(|l| l.trim_start().starts_with("cargo test"))
        .collect();
    assert_eq!(tests.len(), 1, ".ci/run runs one test command: {tests:?}");
    let first: Vec<String> = blocks(&readme)
        .into_iter()
        .find(|b| b.lang == "sh")
        .map(|b| b.lines)
        .unwrap_or_default();
    assert!(
        first.iter().any(|l| l.trim() == tests[0].trim()),
        "README.md's first sh block (set up) must give `{}`, what .ci/run runs",
        tests[0].trim()
    );
    assert!(
        first
            .iter()
            .any(|l| l.starts_with("cargo run --release -p mock-agent -- ")),
        "README.md's set-up block must build and run the default session"
    );
}
