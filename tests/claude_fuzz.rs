//! `mock-agent fuzz --dialect claude`: generated Claude Code sessions with faults of
//! the catalogue's `claude` section against a program that drives `claude`; a
//! failure is shrunk and written as a Claude Code cassette that `mock-agent test`
//! replays.

use std::process::Command;

use crate::support::bin;

fn fuzz(consumer: &str, out: &std::path::Path) -> std::process::Output {
    Command::new(bin())
        .args([
            "fuzz",
            "--dialect",
            "claude",
            "--seed",
            "1",
            "--cases",
            "30",
            "--jobs",
            "2",
        ])
        .args(["--shrink-time", "60", "--timeout", "10", "--consumer", consumer])
        .arg("--out")
        .arg(out)
        .output()
        .expect("runs fuzz")
}

#[test]
fn a_program_that_exits_0_on_a_failed_run_is_found_and_its_case_replays() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("found");
    let found = fuzz("timeout 5 claude -p hi; exit 0", &out);
    let stdout = String::from_utf8_lossy(&found.stdout);
    assert_eq!(
        found.status.code(),
        Some(100),
        "{stdout}{}",
        String::from_utf8_lossy(&found.stderr)
    );
    assert!(stdout.contains("reports-failure"), "{stdout}");
    let cassette = out.join("fuzz-claude-1.cassette");
    assert!(cassette.is_file(), "{stdout}");
    // The minimal case, replayed by `mock-agent test` as the fuzz run says.
    let replay = stdout
        .lines()
        .find_map(|l| l.strip_prefix("replay it: mock-agent "))
        .expect("a replay line");
    let again = Command::new("sh")
        .arg("-c")
        .arg(format!("{} {replay}", bin().display()))
        .current_dir(dir.path())
        .output()
        .expect("replays");
    let told = String::from_utf8_lossy(&again.stdout);
    assert_eq!(again.status.code(), Some(100), "{told}");
    assert!(told.contains("reports-failure"), "{told}");
}

#[test]
fn a_careful_program_passes_every_generated_case() {
    let dir = tempfile::tempdir().expect("temp dir");
    let passed = fuzz("timeout 5 claude -p hi", &dir.path().join("none"));
    let stdout = String::from_utf8_lossy(&passed.stdout);
    let stderr = String::from_utf8_lossy(&passed.stderr);
    assert!(passed.status.success(), "{stdout}{stderr}");
    assert!(
        stderr.contains("30 cases passed") || stdout.contains("30 cases passed"),
        "{stdout}{stderr}"
    );
}
