//! `mock-agent test` and `mock-agent fuzz` as their users see them: failures that
//! explain themselves, repeats, how a consumer reports failure, fuzz's flags, and
//! snapshots without Rust.

use std::path::Path;
use std::process::Output;

use crate::support::{mock, root};

/// `mock-agent ARGS` off CI, with insta's variables unset.
fn harness(args: &[&str]) -> Output {
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
    cmd.args(args).output().expect("runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A consumer that runs the agent, logs 20,000 lines on stderr, then dies of an
/// uncaught exception whose message says how many bytes the agent printed.
fn write_crashing_consumer(dir: &Path) -> String {
    let script = dir.join("crash.py");
    std::fs::write(
        &script,
        "import subprocess, sys\n\
         out = subprocess.run(['cursor-agent', '-p', 'hi', '--output-format', 'stream-json'], capture_output=True).stdout\n\
         sys.stderr.write('log: working\\n' * 20000)\n\
         raise ValueError('the agent printed %d bytes' % len(out))\n",
    )
    .expect("writes");
    format!("python3 {}", script.display())
}

#[test]
fn a_failure_shows_what_broke_the_end_of_stderr_and_a_line_that_reproduces_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    let consumer = write_crashing_consumer(dir.path());
    let junit = dir.path().join("junit.xml");
    let output = harness(&[
        "test",
        "--consumer",
        &consumer,
        "--filter",
        "default/clean",
        "--junit",
        junit.to_str().expect("utf-8"),
    ]);
    assert_eq!(output.status.code(), Some(harness::exit_codes::CASES_FAILED));
    let stdout = text(&output.stdout);
    // The property, what was expected and what was seen, the end of stderr.
    for needle in [
        "    no-crash: died of an uncaught Python exception",
        "    expected: success: ",
        "; seen: exit code 1",
        "    stdout: nothing",
        "    stderr, last 4 lines:\n      | Traceback (most recent call last):",
        "      | ValueError: the agent printed ",
        "by cause:\n  1 case breaks no-crash: died of an uncaught Python exception (default/clean)\n",
    ] {
        assert!(stdout.contains(needle), "{needle:?} in:\n{stdout}");
    }
    let last = stdout
        .lines()
        .find_map(|l| l.strip_prefix("      | ValueError: "))
        .expect("the exception's line")
        .to_owned();
    // The record (in the JUnit report, and the snapshot) keeps the end too.
    let report = std::fs::read_to_string(&junit).expect("the report");
    assert!(report.contains(&format!("ValueError: {last}")), "{report}");
    assert!(report.contains("more bytes ...]"), "{report}");
    // The repro line, run in a shell elsewhere, does the same.
    let repro = stdout
        .lines()
        .find_map(|l| l.strip_prefix("    repro: "))
        .expect("a repro line");
    let mut shell = std::process::Command::new("sh");
    harness::run::child::without_mock_env(&mut shell);
    let again = shell
        .args(["-c", repro])
        .current_dir("/")
        .output()
        .expect("runs");
    assert_eq!(again.status.code(), Some(1), "{repro}\n{}", text(&again.stderr));
    let stderr = text(&again.stderr);
    assert_eq!(
        stderr.lines().last(),
        Some(format!("ValueError: {last}").as_str()),
        "the same agent output: {repro}"
    );
}

#[test]
fn what_a_run_keeps_of_a_consumer_s_output_is_bounded() {
    // 100 MB on each stream: the harness keeps 4 MiB of the start of each while the
    // case runs, and peaks at about 23 MiB (it kept 16 MiB of each before); measured by a
    // parent of its own, which sees only the harness and what it ran).
    let measure = format!(
        "import resource, subprocess, sys\n\
         subprocess.run([{bin:?}, 'test', '--consumer', 'head -c 100000000 /dev/zero; head -c 100000000 /dev/zero >&2', '--filter', 'default/clean', '--timeout', '60'], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n\
         print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n",
        bin = crate::support::bin().display().to_string()
    );
    let output = std::process::Command::new("python3")
        .args(["-c", &measure])
        .current_dir(root())
        .output()
        .expect("runs");
    let kib: u64 = text(&output.stdout).trim().parse().expect("a number");
    assert!(kib < 32 << 10, "peak RSS {kib} KiB");
}
