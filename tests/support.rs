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

/// `mock-agent` off CI, with insta's variables unset (insta's defaults).
pub fn mock_off_ci() -> Command {
    let mut cmd = mock();
    for name in [
        "CI",
        "TF_BUILD",
        "INSTA_UPDATE",
        "INSTA_FORCE_PASS",
        "INSTA_FORCE_UPDATE",
    ] {
        cmd.env_remove(name);
    }
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

/// An ACP client's answer to the agent's request `request`: allow-once to a
/// `session/request_permission`, nothing to any other.
pub fn allow_once(request: &serde_json::Value) -> Option<String> {
    answer_permission(request, "allow-once")
}

/// The answer `option` to a `session/request_permission`, nothing to any other request.
pub fn answer_permission(request: &serde_json::Value, option: &str) -> Option<String> {
    (request["method"] == "session/request_permission").then(|| {
        serde_json::json!({"jsonrpc": "2.0", "id": request["id"], "result": {"outcome": {"outcome": "selected", "optionId": option}}})
            .to_string()
    })
}

/// Runs `cmd` (an `acp` agent; its streams are piped here) as an ACP client does:
/// writes `requests` (lines) at once, answers each request of the agent's when it is
/// asked (with `answer`'s line; none leaves it unanswered), and closes stdin once the
/// last request of `requests` has its response, or once stdout ends. What the agent
/// wrote and how it ended, as [`std::process::Command::output`] gives them.
pub fn converse(
    mut cmd: std::process::Command,
    requests: &str,
    mut answer: impl FnMut(&serde_json::Value) -> Option<String>,
) -> Output {
    use std::io::{Read, Write};
    let last = requests
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .rfind(|m| m.get("method").is_some() && m.get("id").is_some())
        .map(|m| m["id"].clone());
    let mut child = spawn_piped(&mut cmd);
    let mut stderr = child.stderr.take().expect("stderr");
    let stderr = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = stderr.read_to_end(&mut bytes);
        bytes
    });
    let lines = line_by_line(child.stdout.take().expect("stdout"), |line| line);
    let mut stdin = child.stdin.take();
    // The agent may end before it reads everything.
    if let Some(stdin) = stdin.as_mut() {
        let _ = stdin.write_all(requests.as_bytes());
    }
    let mut written = Vec::new();
    for line in lines {
        written.extend_from_slice(&line);
        let Ok(message) = serde_json::from_slice::<serde_json::Value>(&line) else {
            continue;
        };
        match (message.get("method"), message.get("id")) {
            (Some(_), Some(_)) => {
                if let (Some(reply), Some(stdin)) = (answer(&message), stdin.as_mut()) {
                    let _ = stdin.write_all(format!("{reply}\n").as_bytes());
                }
            }
            (None, Some(id)) if Some(id) == last.as_ref() => drop(stdin.take()),
            _ => {}
        }
    }
    drop(stdin);
    let status = child.wait().expect("waits");
    Output {
        status,
        stdout: written,
        stderr: stderr.join().expect("reads stderr"),
    }
}

/// Spawns `cmd` with its three streams piped to the test.
pub fn spawn_piped(cmd: &mut std::process::Command) -> std::process::Child {
    use std::process::Stdio;
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawns")
}

/// The lines of `stream` (each with its newline; a cut last line as is), read by a
/// thread of their own as they come, each made into what `each` makes of it; the
/// channel ends with the stream (or at its first read error), and the thread once
/// nobody receives.
pub fn line_by_line<T: Send + 'static>(
    stream: impl std::io::Read + Send + 'static,
    each: impl Fn(Vec<u8>) -> T + Send + 'static,
) -> std::sync::mpsc::Receiver<T> {
    use std::io::BufRead;
    let (sender, lines) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut reader = std::io::BufReader::new(stream);
        loop {
            let mut line = Vec::new();
            match reader.read_until(b'\n', &mut line) {
                Ok(0) | Err(_) => return,
                Ok(_) if sender.send(each(line)).is_ok() => {}
                Ok(_) => return,
            }
        }
    });
    lines
}

/// `line` without its newline (a cut line as is).
pub fn without_newline(mut line: Vec<u8>) -> Vec<u8> {
    if line.last() == Some(&b'\n') {
        line.pop();
    }
    line
}

/// Asserts that the process of `out` exited with `code`; what it said (stdout, then
/// stderr), shown when it did not.
#[track_caller]
pub fn assert_said(out: &Output, code: i32) -> String {
    let report = said(out);
    assert_eq!(out.status.code(), Some(code), "{report}");
    report
}

/// Asserts that a run of `mock-agent test` passed (exit 0) and that its summary says
/// `summary` (e.g. `21 cases: 21 passed, 0 failed`); what it said.
#[track_caller]
pub fn assert_passed(out: &Output, summary: &str) -> String {
    let report = assert_said(out, 0);
    assert!(report.contains(summary), "{report}");
    report
}

/// Asserts that `output`, of `mock-agent test`, says its cases failed, naming `case`
/// and `property` (the case's broken property); its stdout.
#[track_caller]
pub fn assert_case_broke(output: &Output, case: &str, property: &str) -> String {
    let stdout = text(&output.stdout);
    assert_eq!(
        output.status.code(),
        Some(harness::exit_codes::CASES_FAILED),
        "{stdout}"
    );
    assert!(stdout.contains(case) && stdout.contains(property), "{stdout}");
    stdout
}

/// The names of the properties broken in any of `results`, sorted, each once.
pub fn broken_in(results: &[harness::run::CaseResult]) -> Vec<String> {
    let mut names: Vec<String> = results
        .iter()
        .flat_map(|r| r.broken().into_iter().map(str::to_owned))
        .collect();
    names.sort();
    names.dedup();
    names
}

/// The peak resident memory of process `pid`, in KiB (`VmHWM`).
pub fn peak_rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("reads /proc");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM")
}

/// SIGTERM to a replay whose stdout is held unread, once it is stuck writing to the
/// full pipe (so past its start, its handler of signals set: a fixed wait was too
/// short on a loaded machine), and how it ended: it must end within 20 s.
pub fn term_when_stuck(child: &mut std::process::Child) -> std::process::ExitStatus {
    wait_stuck_writing(child.id());
    let pid = nix::unistd::Pid::from_raw(i32::try_from(child.id()).expect("a pid"));
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM).expect("SIGTERM");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        if let Some(status) = child.try_wait().expect("waits") {
            return status;
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            panic!("the replay did not end on SIGTERM");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// Waits (20 s at most, where `/proc` does not tell it) until a thread of process
/// `pid` sleeps in a write to a full pipe, as `/proc/PID/task/*/wchan` tells it.
fn wait_stuck_writing(pid: u32) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while std::time::Instant::now() < deadline {
        let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
            return;
        };
        let stuck = tasks.flatten().any(|task| {
            let wchan = std::fs::read_to_string(task.path().join("wchan")).unwrap_or_default();
            wchan.contains("pipe_write") || wchan.contains("pipe_wait")
        });
        if stuck {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

/// Sends `signal` to `child` and waits for its end; the signal that ended it, if one
/// did.
pub fn signal_and_wait(child: &mut std::process::Child, signal: nix::sys::signal::Signal) -> Option<i32> {
    use std::os::unix::process::ExitStatusExt;
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(child.id() as i32), signal).expect("signals");
    child.wait().expect("waits").signal()
}

/// `mock-agent acp` with these variables set, its stdin and stdout piped to the test,
/// its stderr dropped.
pub fn acp_server(env: &[(&str, &std::ffi::OsStr)]) -> std::process::Child {
    let mut cmd = mock_std();
    cmd.arg("acp");
    for (name, value) in env {
        cmd.env(name, value);
    }
    cmd.stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawns the mock")
}

/// A child driven as the Agent SDKs drive Claude Code: lines written to its stdin as
/// the test goes, its stdout read line by line with a timeout (so that no test can
/// hang), its stderr kept for the end.
pub struct Conversation {
    child: std::process::Child,
    stdin: Option<std::process::ChildStdin>,
    lines: std::sync::mpsc::Receiver<Vec<u8>>,
    stderr: std::sync::mpsc::Receiver<Vec<u8>>,
    /// Every stdout line read so far, without its newline (a cut last line as is).
    pub read: Vec<Vec<u8>>,
}

/// How long a test waits for one line, or for the child's end.
pub const PATIENCE: std::time::Duration = std::time::Duration::from_secs(20);

/// How a [`Conversation`] ended.
pub struct Ended {
    /// The exit status.
    pub status: std::process::ExitStatus,
    /// Every stdout line of the run, without newlines.
    pub stdout: Vec<Vec<u8>>,
    /// The whole stderr.
    pub stderr: String,
}

impl Ended {
    /// The stdout lines that parse as JSON.
    pub fn json(&self) -> Vec<serde_json::Value> {
        self.stdout
            .iter()
            .filter_map(|l| serde_json::from_slice(l).ok())
            .collect()
    }
}

impl Conversation {
    /// Spawns `cmd` with its three streams piped.
    pub fn spawn(mut cmd: std::process::Command) -> Self {
        let mut child = spawn_piped(&mut cmd);
        let stderr = harness::run::child::drain(child.stderr.take(), 1 << 20);
        let lines = line_by_line(child.stdout.take().expect("stdout"), without_newline);
        Conversation {
            stdin: child.stdin.take(),
            child,
            lines,
            stderr,
            read: Vec::new(),
        }
    }

    /// Writes `line` and a newline (a child that is gone is not an error here).
    pub fn send(&mut self, line: &str) {
        use std::io::Write;
        if let Some(stdin) = self.stdin.as_mut() {
            let _ = stdin.write_all(format!("{line}\n").as_bytes());
            let _ = stdin.flush();
        }
    }

    /// Writes `value` as one line.
    pub fn send_json(&mut self, value: &serde_json::Value) {
        self.send(&value.to_string());
    }

    /// Takes the child's stdin, to write on another thread ([`Conversation::give_stdin`]
    /// gives it back); `None` once closed.
    pub fn take_stdin(&mut self) -> Option<std::process::ChildStdin> {
        self.stdin.take()
    }

    /// Gives back the stdin taken by [`Conversation::take_stdin`].
    pub fn give_stdin(&mut self, stdin: std::process::ChildStdin) {
        self.stdin = Some(stdin);
    }

    /// Closes the child's stdin.
    pub fn close(&mut self) {
        drop(self.stdin.take());
    }

    /// The next stdout line, `None` at its end; panics after [`PATIENCE`].
    pub fn next_line(&mut self) -> Option<Vec<u8>> {
        match self.lines.recv_timeout(PATIENCE) {
            Ok(line) => {
                self.read.push(line.clone());
                Some(line)
            }
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => None,
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                let _ = self.child.kill();
                panic!("no line within {PATIENCE:?}; read so far:\n{}", self.shown());
            }
        }
    }

    /// The next stdout line, read as JSON; panics at the end of stdout or on a line
    /// that is not JSON.
    pub fn next_json(&mut self) -> serde_json::Value {
        let line = self
            .next_line()
            .unwrap_or_else(|| panic!("stdout ended; read:\n{}", self.shown()));
        serde_json::from_slice(&line)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&line)))
    }

    /// The JSON lines up to and with the first one `stop` takes.
    pub fn until(&mut self, stop: impl Fn(&serde_json::Value) -> bool) -> Vec<serde_json::Value> {
        let mut lines = Vec::new();
        loop {
            let line = self.next_json();
            let done = stop(&line);
            lines.push(line);
            if done {
                return lines;
            }
        }
    }

    /// The lines read so far, for a failure's message.
    pub fn shown(&self) -> String {
        self.read
            .iter()
            .map(|l| String::from_utf8_lossy(&l[..l.len().min(300)]).into_owned())
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The child's pid.
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// Closes stdin, reads stdout to its end and waits for the child (killed, and the
    /// test failed, after [`PATIENCE`]).
    pub fn finish(mut self) -> Ended {
        self.close();
        while self.next_line().is_some() {}
        let deadline = std::time::Instant::now() + PATIENCE;
        let status = loop {
            if let Some(status) = self.child.try_wait().expect("waits") {
                break status;
            }
            if std::time::Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("the child did not end within {PATIENCE:?}");
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        };
        let stderr = self.stderr.recv_timeout(PATIENCE).unwrap_or_default();
        Ended {
            status,
            stdout: std::mem::take(&mut self.read),
            stderr: String::from_utf8_lossy(&stderr).into_owned(),
        }
    }
}

impl Drop for Conversation {
    /// A test that failed half-way leaves no child behind.
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Bytes a program wrote, as text (lossy).
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// What a run of `mock-agent` said: its stdout, then its stderr.
pub fn said(out: &Output) -> String {
    text(&out.stdout) + &text(&out.stderr)
}

/// `mock-agent test --dialect DIALECT --consumer CONSUMER EXTRA...`, with `env` set.
pub fn test_dialect(dialect: &str, consumer: &str, extra: &[&str], env: &[(&str, &Path)]) -> Output {
    let mut cmd = mock_std();
    cmd.args(["test", "--dialect", dialect, "--consumer", consumer])
        .args(extra)
        .envs(env.iter().copied());
    cmd.output().expect("runs")
}

/// Asserts that the planted bug of `script`, run by `test_with` on the one case of
/// the matrix `filter` picks (`/LABEL`), breaks `property` there; returns what the run
/// said.
#[track_caller]
pub fn assert_caught(
    test_with: impl Fn(&str, &[&str]) -> Output,
    (script, filter, property): (&str, &str, &str),
) -> String {
    let out = test_with(script, &["--filter", filter]);
    let report = said(&out);
    assert_eq!(
        out.status.code(),
        Some(harness::exit_codes::CASES_FAILED),
        "{script} on {filter}: {report}"
    );
    assert!(
        report.contains(&format!("1 case breaks {property}")),
        "{script} on {filter}: {report}"
    );
    report
}

/// The planted bugs of `dialect`'s example programs that tests/conformance.rs lists
/// (script, the cases where it shows as a filter, the property that catches it), then
/// `more`.
pub fn planted_with(
    dialect: &str,
    more: &[(&'static str, &'static str, &'static str)],
) -> Vec<(&'static str, &'static str, &'static str)> {
    crate::conformance::planted(dialect)
        .iter()
        .chain(more)
        .copied()
        .collect()
}

/// Asserts of each planted bug of `caught` that it breaks its property on its case
/// ([`assert_caught`]) and does not show on a clean run ([`assert_clean_passes`]).
#[track_caller]
pub fn assert_each_caught(test_with: impl Fn(&str, &[&str]) -> Output + Copy, caught: &[(&str, &str, &str)]) {
    for &bug in caught {
        assert_caught(test_with, bug);
        assert_clean_passes(test_with, bug.0);
    }
}

/// Asserts that `script`, run by `test_with`, passes every case of `generated`
/// generated sessions and of the curated cassettes in `cassettes` (a folder below the
/// workspace), the default session left out.
#[track_caller]
pub fn assert_passes_generated_and_curated(
    test_with: impl Fn(&str, &[&str]) -> Output,
    script: &str,
    generated: &str,
    cassettes: &str,
) {
    let cassettes = root().join(cassettes);
    let cassettes = cassettes.to_str().expect("utf-8");
    let out = test_with(
        script,
        &["--generated", generated, "--cassettes", cassettes, "--no-default"],
    );
    assert_said(&out, 0);
}

/// Asserts that the bug planted in `script`, run by `test_with`, does not show on a
/// clean run.
#[track_caller]
pub fn assert_clean_passes(test_with: impl Fn(&str, &[&str]) -> Output, script: &str) {
    let out = test_with(script, &["--filter", "/clean"]);
    assert_eq!(out.status.code(), Some(0), "{script}: {}", text(&out.stdout));
}

/// Records the mock linked as `cli` in `dir` as a user records the real CLI
/// (`mock-agent record --out DIR/run.cassette -- LINK ARGS`, in the workspace, with
/// `env` and `stdin`), `keys` the values of its two secret variables, which the prompt
/// says (`use KEY and KEY`). Asserts that the recording succeeds and its cassette has
/// the keys out, replaced: the run's output, the cassette and its text.
#[track_caller]
pub fn record_keys_out(
    cli: &str,
    dir: &Path,
    args: &[&str],
    env: &[(&str, &std::ffi::OsStr)],
    stdin: Option<&str>,
    keys: [&str; 2],
) -> (Output, PathBuf, String) {
    let link = dir.join(cli);
    std::os::unix::fs::symlink(bin(), &link).expect("symlink");
    let cassette = dir.join("run.cassette");
    let mut record = std::process::Command::new(bin());
    record
        .args(["record", "--out"])
        .arg(&cassette)
        .arg("--")
        .arg(&link)
        .args(args)
        .current_dir(root());
    harness::run::child::without_mock_env(&mut record);
    record.envs(env.iter().copied());
    let out = run_with_stdin(record, stdin);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let kept = std::fs::read_to_string(&cassette).expect("the cassette");
    assert!(!kept.contains(keys[0]) && !kept.contains(keys[1]), "{kept}");
    assert!(kept.contains("use [REDACTED] and [REDACTED]"), "{kept}");
    (out, cassette, kept)
}

/// Runs `cmd` with `stdin` written to it (`None`: stdin is `/dev/null`), stdout and
/// stderr kept.
pub fn run_with_stdin(mut cmd: std::process::Command, stdin: Option<&str>) -> Output {
    let piped = || std::process::Stdio::piped();
    cmd.stdin(if stdin.is_some() {
        piped()
    } else {
        std::process::Stdio::null()
    })
    .stdout(piped())
    .stderr(piped());
    let mut child = cmd.spawn().expect("spawns");
    let input = child.stdin.take();
    let stdin = stdin.unwrap_or_default().to_owned();
    let writer = std::thread::spawn(move || {
        if let Some(mut input) = input {
            let _ = std::io::Write::write_all(&mut input, stdin.as_bytes());
        }
    });
    let output = child.wait_with_output().expect("waits");
    writer.join().expect("writes");
    output
}

/// A run's stdout, one JSON value a line.
pub fn json_lines(output: &Output) -> Vec<serde_json::Value> {
    text(&output.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

/// How a run ended: its exit code or its signal.
pub fn ended(output: &Output) -> harness::frames::Exit {
    use std::os::unix::process::ExitStatusExt;
    match (output.status.code(), output.status.signal()) {
        (Some(code), _) => harness::frames::Exit::Code(code),
        (None, Some(signal)) => {
            harness::frames::Exit::Signal(harness::frames::Signal::from_number(signal).expect("a signal"))
        }
        _ => panic!("neither a code nor a signal"),
    }
}

/// The path of the consumer program `script` of tests/consumers, as a shell command
/// says it.
pub fn consumer_path(script: &str) -> String {
    root().join("tests/consumers").join(script).display().to_string()
}

/// `lines`, each ended by a newline: what a CLI that writes them puts on stdout.
pub fn newline_ended(lines: &[Vec<u8>]) -> Vec<u8> {
    lines
        .iter()
        .flat_map(|line| line.iter().chain(b"\n"))
        .copied()
        .collect()
}

/// Asserts that the run `out` of the matrix case `label` (faults `spec`) wrote
/// `stdout` and ended with `exit`, as the case expects, and that its first fault
/// fired; returns the run's entry of the journal at `journal`.
#[track_caller]
pub fn assert_ran_as_expected(
    (label, spec): (&str, &str),
    out: &Output,
    (stdout, exit): (Vec<u8>, harness::frames::Exit),
    journal: &Path,
) -> serde_json::Value {
    assert_eq!(text(&out.stdout), text(&stdout), "{label}");
    assert_eq!(ended(out), exit, "{label}");
    let entry = last_journal_entry(journal);
    if !spec.is_empty() {
        assert_eq!(entry["faults"][0]["fired"], true, "{label}: {entry}");
    }
    entry
}

/// The last entry of the journal at `path` (`MOCK_AGENT_JOURNAL`), as JSON.
pub fn last_journal_entry(path: &Path) -> serde_json::Value {
    let journal = std::fs::read_to_string(path).expect("the journal");
    serde_json::from_str(journal.lines().last().expect("an entry")).expect("JSON")
}

/// The reading end of the FIFO at `path` that a test's consumers write lines to,
/// opened for writing too, so that it has no end of file between their writes. Open
/// it once the run that writes it has started.
pub fn fifo_reader(path: &Path) -> std::io::BufReader<std::fs::File> {
    let fifo = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)
        .expect("opens the FIFO");
    std::io::BufReader::new(fifo)
}

/// Writes at `to` the one-way recording at `from` with its stdout lines repeated
/// `repeats` times (runs of lines then cross the read buffer's end and the copy's
/// block; `repeats` large enough makes it a cassette over `PREFLIGHT_LIMIT`, read
/// without a preflight) and a stderr line `late` between the first and the second
/// repetition (none with one), times kept in order.
pub fn repeated_recording(from: &Path, to: &Path, repeats: usize, late: &[u8]) {
    use harness::frames::{Frame, Stream};
    let is_stdout = |f: &Frame| matches!(f, Frame::Line(l) if l.stream == Stream::Stdout);
    let body = |frames: &[Frame]| {
        let first = frames.iter().position(is_stdout).expect("a stdout line");
        let last = frames.iter().rposition(is_stdout).expect("a stdout line");
        first..last + 1
    };
    repeated_frames(from, to, |frames| (body(frames), repeats), Some(late));
}

/// The cassette `from` written to `to` with the frames `plan` picks repeated as many
/// times as it says, `late` (a stderr line) before the second repetition when given,
/// times kept in order.
pub fn repeated_frames(
    from: &Path,
    to: &Path,
    plan: impl FnOnce(&[harness::frames::Frame]) -> (std::ops::Range<usize>, usize),
    late: Option<&[u8]>,
) {
    use harness::cassette::Writer;
    use harness::frames::{Frame, Line};
    let mut reader = harness::cassette::open(from).expect("opens");
    let header = reader.header().cloned().expect("a header");
    let frames: Vec<Frame> = reader.by_ref().map(|f| f.expect("reads")).collect();
    let (range, repeats) = plan(&frames);
    let mut writer = Writer::create(to, &header).expect("creates");
    let mut at = std::time::Duration::ZERO;
    let mut put = |frame: &Frame| {
        let mut frame = frame.clone();
        let time = match &mut frame {
            Frame::Line(line) => &mut line.at,
            Frame::Stall { at, .. } | Frame::CloseStdout { at } => at,
            Frame::End(ending) => &mut ending.at,
        };
        *time = (*time).max(at);
        at = *time;
        writer.write(&frame).expect("writes");
    };
    frames[..range.start].iter().for_each(&mut put);
    for n in 0..repeats {
        if let Some(late) = late.filter(|_| n == 1) {
            // At the time of the line before (`put` keeps times in order).
            put(&Frame::Line(Line::stderr(
                std::time::Duration::ZERO,
                late.to_vec(),
            )));
        }
        frames[range.clone()].iter().for_each(&mut put);
    }
    frames[range.end..].iter().for_each(&mut put);
    writer.finish().expect("finishes");
}

/// The journal entry's fields that say how a run went (not when).
pub fn how_it_went(entry: &serde_json::Value) -> Vec<serde_json::Value> {
    ["exit", "faults", "error", "signal", "stdout_closed", "source"]
        .iter()
        .map(|key| entry[*key].clone())
        .collect()
}

/// Asserts that the one-way `recording`, replayed as it stands (nothing to change, no
/// line to wait for: performed as a copy is), writes the stdout and stderr, ends and is
/// journaled as the same replay a line at a time on the runtime (`scale=0`, a timing
/// that waits for nothing), its stdout lines repeated 1, 3 and 20,000 times
/// ([`repeated_recording`]: a cassette checked in full first, and one over
/// `PREFLIGHT_LIMIT`) with a stderr line late in it. `play(home, env)` runs the
/// dialect's CLI with `env` and a home of its own. The replays at once, in that order.
#[track_caller]
pub fn assert_replay_at_once_as_a_line_at_a_time(
    recording: &Path,
    play: impl Fn(&Path, &[(&str, &str)]) -> Output,
) -> Vec<Output> {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut at_once = Vec::new();
    for repeats in [1, 3, 20_000] {
        let cassette = dir.path().join(format!("{repeats}.cassette"));
        repeated_recording(recording, &cassette, repeats, b"a late line");
        let large = std::fs::metadata(&cassette).expect("written").len() > harness::cassette::PREFLIGHT_LIMIT;
        assert_eq!(large, repeats > 3, "{repeats} repeats");
        let run = |timing: Option<&str>| {
            let home = tempfile::tempdir().expect("temp dir");
            let journal = home.path().join("journal.jsonl");
            let mut env = vec![
                ("MOCK_AGENT_CASSETTE", cassette.to_str().expect("utf-8")),
                ("MOCK_AGENT_JOURNAL", journal.to_str().expect("utf-8")),
            ];
            env.extend(timing.map(|t| ("MOCK_AGENT_TIMING", t)));
            let out = play(home.path(), &env);
            (out, how_it_went(&last_journal_entry(&journal)))
        };
        let (out, entry) = run(None);
        let (one_by_one, entry_one_by_one) = run(Some("scale=0"));
        assert!(out.stdout.len() > repeats * 500, "{repeats} repeats");
        assert!(
            out.stdout == one_by_one.stdout,
            "{repeats} repeats: stdout differs"
        );
        assert_eq!(text(&out.stderr), text(&one_by_one.stderr), "{repeats} repeats");
        assert_eq!(ended(&out), ended(&one_by_one), "{repeats} repeats");
        assert_eq!(entry, entry_one_by_one, "{repeats} repeats");
        at_once.push(out);
    }
    at_once
}

/// What a run puts on stdout, and how it ends, from what it does in order: `Ok((bytes,
/// newline))` written on stdout (a whole line when `newline`), `Err(exit)` its end.
#[track_caller]
pub fn stdout_and_end<'a>(
    writes: impl IntoIterator<Item = Result<(&'a [u8], bool), harness::frames::Exit>>,
) -> (Vec<u8>, harness::frames::Exit) {
    let mut stdout = Vec::new();
    for write in writes {
        match write {
            Ok((bytes, newline)) => {
                stdout.extend_from_slice(bytes);
                if newline {
                    stdout.push(b'\n');
                }
            }
            Err(exit) => return (stdout, exit),
        }
    }
    panic!("no end")
}
