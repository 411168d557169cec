//! `mock-agent test` and `mock-agent fuzz` as their users see them: failures that
//! explain themselves, repeats, how a consumer reports failure, fuzz's flags, and
//! snapshots without Rust.

use std::path::Path;
use std::process::Output;

use crate::support::{root, text};

/// `mock-agent ARGS` off CI, with insta's variables unset.
fn harness(args: &[&str]) -> Output {
    crate::support::mock_off_ci().args(args).output().expect("runs")
}

/// `mock-agent test --consumer CONSUMER --filter default/clean EXTRA...` off CI.
fn test_on_clean(consumer: &str, extra: &[&str]) -> Output {
    harness(
        &[
            &["test", "--consumer", consumer, "--filter", "default/clean"][..],
            extra,
        ]
        .concat(),
    )
}

/// `python3 DIR/NAME`, `source` written there.
fn python_consumer(dir: &Path, name: &str, source: &str) -> String {
    let script = dir.join(name);
    std::fs::write(&script, source).expect("writes");
    format!("python3 {}", script.display())
}

/// A consumer that runs the agent, logs 20,000 lines on stderr, then dies of an
/// uncaught exception whose message says how many bytes the agent printed.
fn write_crashing_consumer(dir: &Path) -> String {
    python_consumer(
        dir,
        "crash.py",
        "import subprocess, sys\n\
         out = subprocess.run(['cursor-agent', '-p', 'hi', '--output-format', 'stream-json'], capture_output=True).stdout\n\
         sys.stderr.write('log: working\\n' * 20000)\n\
         raise ValueError('the agent printed %d bytes' % len(out))\n",
    )
}

#[test]
fn a_failure_shows_what_broke_the_end_of_stderr_and_a_line_that_reproduces_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    let consumer = write_crashing_consumer(dir.path());
    let junit = dir.path().join("junit.xml");
    let output = test_on_clean(&consumer, &["--junit", junit.to_str().expect("utf-8")]);
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
        "    the agent exited 0\n",
        "by cause:\n  1 case breaks no-crash: died of an uncaught Python exception (ValueError: the agent printed ",
        "  1 case breaks reports-success: the agent succeeded, but the consumer exited 1: default/clean\n",
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
    let again = shell.args(["-c", repro]).current_dir("/").output().expect("runs");
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

#[test]
fn repeat_reports_a_case_whose_verdict_differs_between_runs_as_flaky() {
    let dir = tempfile::tempdir().expect("temp dir");
    // Fails its odd runs (exit 3), copes in its even ones.
    let consumer = format!(
        "f={count}; n=$(cat $f 2>/dev/null || echo 0); echo $((n+1)) > $f; \
         if [ $((n % 2)) = 1 ]; then exec python3 tests/consumers/careful.py; fi; \
         cursor-agent -p hi >/dev/null; exit 3",
        count = dir.path().join("count").display()
    );
    let output = test_on_clean(&consumer, &["--repeat", "3", "--jobs", "1"]);
    let stdout = text(&output.stdout);
    assert_eq!(
        output.status.code(),
        Some(harness::exit_codes::CASES_FAILED),
        "{stdout}"
    );
    assert!(
        stdout.contains("flaky: default/clean: 2 of 3 runs failed; reports-success broke in runs 1, 3"),
        "{stdout}"
    );
    assert!(
        stdout.contains("1 case: 0 passed, 1 failed (1 flaky)"),
        "{stdout}"
    );
    // A consumer that fails every run is not flaky.
    let output = harness(&[
        "test",
        "--consumer",
        "cursor-agent -p hi >/dev/null; exit 3",
        "--filter",
        "default/clean",
        "--repeat",
        "2",
    ]);
    let stdout = text(&output.stdout);
    assert_eq!(output.status.code(), Some(harness::exit_codes::CASES_FAILED));
    assert!(!stdout.contains("flaky"), "{stdout}");
}

/// A bot that always asks for the JSON answer, prints it, and on a failure prints
/// `ERROR: ...` on stdout and exits with its first argument (0 unless given).
fn write_reporting_bot(dir: &Path) -> String {
    python_consumer(
        dir,
        "bot.py",
        "import json, subprocess, sys\n\
         p = subprocess.run(['cursor-agent', '-p', 'hi', '--output-format', 'json'], capture_output=True, text=True)\n\
         try:\n    r = json.loads(p.stdout)\nexcept ValueError:\n    r = None\n\
         if p.returncode != 0 or not isinstance(r, dict) or r.get('is_error'):\n\
         \x20   print('ERROR: the agent failed')\n\
         \x20   sys.exit(int(sys.argv[1]) if len(sys.argv) > 1 else 0)\n\
         print(r['result'])\n",
    )
}

#[test]
fn the_consumer_s_way_of_reporting_failure_is_given_on_the_command_line() {
    let dir = tempfile::tempdir().expect("temp dir");
    let bot = write_reporting_bot(dir.path());
    let code = |consumer: &str, filter: &str, flags: &[&str]| {
        let mut args = vec!["test", "--consumer", consumer, "--filter", filter];
        args.extend_from_slice(flags);
        let output = harness(&args);
        (output.status.code(), text(&output.stdout) + &text(&output.stderr))
    };
    let failed = Some(harness::exit_codes::CASES_FAILED);
    // By default a failure is a non-zero exit: this bot exits 0.
    let (got, out) = code(&bot, "default/quota", &[]);
    assert_eq!(got, failed, "{out}");
    assert!(
        out.contains("1 case breaks reports-failure: the agent failed, but the consumer exited 0 (the agent exited 1): default/quota\n"),
        "{out}"
    );
    let (got, out) = code(&bot, "default/quota", &["--failure-when-stdout", "^ERROR:"]);
    assert_eq!(got, Some(0), "{out}");
    let (got, out) = code(&bot, "default/clean", &["--failure-when-stdout", "^ERROR:"]);
    assert_eq!(got, Some(0), "the answer still reports success: {out}");
    let (got, out) = code(&bot, "default/quota", &["--failure-when-stderr", "^ERROR:"]);
    assert_eq!(got, failed, "it says so on stdout, not stderr: {out}");
    assert!(
        out.contains("the agent failed, but the consumer did not report it (its failure check"),
        "not by its exit, which the check replaced: {out}"
    );
    // By an exit code of its own.
    let bot_3 = format!("{bot} 3");
    let (got, out) = code(&bot_3, "default/quota", &["--failure-when-exit", "4"]);
    assert_eq!(got, failed, "{out}");
    let (got, out) = code(&bot_3, "default/quota", &["--failure-when-exit", "3"]);
    assert_eq!(got, Some(0), "{out}");
    // A pattern that is not one is a usage error that says so.
    let (got, out) = code(&bot, "default/quota", &["--failure-when-stdout", "(unclosed"]);
    assert_eq!(got, Some(harness::exit_codes::USAGE), "{out}");
    assert!(
        out.contains("mock-agent: --failure-when-stdout (unclosed: not a regular expression"),
        "{out}"
    );
}

#[test]
fn fuzz_shows_progress_bounds_shrinking_and_takes_the_properties_off() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().to_str().expect("utf-8");
    // A consumer that crashes after a second: each shrinking step takes that long.
    let started = std::time::Instant::now();
    let output = harness(&[
        "fuzz",
        "--consumer",
        "cursor-agent -p hi >/dev/null 2>&1; sleep 1; kill -SEGV $$",
        "--cases",
        "4",
        "--jobs",
        "2",
        "--shrink-time",
        "2",
        "--out",
        out,
    ]);
    let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
    assert_eq!(
        output.status.code(),
        Some(harness::exit_codes::CASES_FAILED),
        "{stderr}"
    );
    assert!(
        started.elapsed() < std::time::Duration::from_secs(40),
        "{:?}",
        started.elapsed()
    );
    assert!(stderr.contains("[   1/4] FAIL\n"), "{stderr}");
    assert!(
        stderr.contains("shrinking: step 1, 1 smaller failing cases, "),
        "{stderr}"
    );
    assert!(
        stdout.contains("(shrinking stopped after --shrink-time 2 s)")
            && stdout.contains("no-crash: died by signal 11"),
        "{stdout}"
    );
    // The properties a consumer cannot hold are switched off.
    let output = harness(&[
        "fuzz",
        "--consumer",
        "cursor-agent -p hi >/dev/null 2>&1",
        "--cases",
        "5",
        "--off",
        "reports-success",
        "--off",
        "reports-failure",
        "--out",
        out,
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stdout));
}

#[test]
fn fuzz_keeps_going_to_collect_distinct_failures() {
    let dir = tempfile::tempdir().expect("temp dir");
    // Reads the agent to its end and always exits 0: a success's answer is never
    // shown (reports-success), a failure never reported (reports-failure).
    let output = harness(&[
        "fuzz",
        "--consumer",
        "cursor-agent -p hi >/dev/null 2>&1; exit 0",
        "--cases",
        "20",
        "--seed",
        "1",
        "--timeout",
        "3",
        "--shrink-time",
        "2",
        "--keep-going",
        "--out",
        dir.path().to_str().expect("utf-8"),
    ]);
    let stdout = text(&output.stdout);
    assert_eq!(
        output.status.code(),
        Some(harness::exit_codes::CASES_FAILED),
        "{stdout}"
    );
    assert!(stdout.contains(" distinct failures ("), "{stdout}");
    // How many of the generated cases failed, all 20 run (`--keep-going`).
    assert!(stdout.contains(" of 20 cases failed; "), "{stdout}");
    for broken in ["  reports-success: ", "  reports-failure: "] {
        assert!(stdout.contains(broken), "{broken} in {stdout}");
    }
    for file in ["fuzz-1.cassette", "fuzz-1-2.cassette"] {
        assert!(dir.path().join(file).exists(), "{file}: {stdout}");
    }
}

#[test]
fn an_interrupted_fuzz_leaves_no_temporary_directory() {
    let dir = tempfile::tempdir().expect("temp dir");
    let pids = dir.path().join("pids");
    nix::unistd::mkfifo(&pids, nix::sys::stat::Mode::S_IRWXU).expect("mkfifo");
    let tmp = tempfile::tempdir().expect("temp dir");
    let consumer = format!("echo $$ > {}; sleep 30", pids.display());
    let mut fuzz = crate::support::mock_std()
        .env("TMPDIR", tmp.path())
        .args(["fuzz", "--consumer", &consumer, "--timeout", "60", "--out"])
        .arg(dir.path().join("out"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawns");
    let mut pid = String::new();
    std::io::BufRead::read_line(&mut crate::support::fifo_reader(&pids), &mut pid).expect("a consumer runs");
    let ended_by = crate::support::signal_and_wait(&mut fuzz, nix::sys::signal::Signal::SIGINT);
    assert_eq!(ended_by, Some(2));
    let left: Vec<_> = std::fs::read_dir(tmp.path())
        .expect("reads")
        .map(|entry| entry.expect("an entry").path())
        .collect();
    assert_eq!(left, Vec::<std::path::PathBuf>::new(), "left behind");
}

#[test]
fn every_flag_of_test_and_fuzz_is_documented_in_the_guide() {
    let readme = std::fs::read_to_string(root().join("docs/commands.md")).expect("docs/commands.md");
    for command in ["test", "fuzz"] {
        let help = text(&harness(&[command, "--help"]).stdout);
        for word in help.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-')) {
            if word.starts_with("--") && word.len() > 2 && word != "--help" {
                assert!(
                    readme.contains(&format!("`{word}")),
                    "`mock-agent {command} {word}` is not in docs/commands.md"
                );
            }
        }
    }
}

/// `mock-agent test` of the careful consumer on `default/clean`, with snapshots in
/// `dir`, a JUnit report beside them and `env`: its exit code and stdout, and the
/// report.
fn careful_snapshots(dir: &Path, consumer_tail: &str, env: &[(&str, &str)]) -> (Option<i32>, String, String) {
    let junit = dir.join("junit.xml");
    let consumer = format!(
        "python3 {}{consumer_tail}",
        root().join("tests/consumers/careful.py").display()
    );
    let mut cmd = crate::support::mock_off_ci();
    let output = cmd
        .envs(env.iter().copied())
        .args(["test", "--consumer", &consumer])
        .args(["--filter", "default/clean", "--snapshots"])
        .arg(dir.join("snaps"))
        .arg("--junit")
        .arg(&junit)
        .output()
        .expect("runs");
    let report = std::fs::read_to_string(&junit).unwrap_or_default();
    (output.status.code(), text(&output.stdout), report)
}

#[test]
fn a_new_snapshot_is_written_and_passes_off_ci_and_fails_on_ci() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (code, stdout, report) = careful_snapshots(dir.path(), "", &[("CI", "true")]);
    assert_eq!(code, Some(harness::exit_codes::CASES_FAILED), "{stdout}");
    assert!(report.contains("failures=\"1\""), "{report}");
    assert!(!dir.path().join("snaps/default__clean.snap").exists());
    let (code, stdout, report) = careful_snapshots(dir.path(), "", &[]);
    assert_eq!(code, Some(0), "{stdout}");
    assert!(
        report.contains("failures=\"0\""),
        "JUnit calls no new snapshot a failure: {report}"
    );
    assert!(dir.path().join("snaps/default__clean.snap").exists());
    assert!(stdout.contains("snapshots: 1 new (1 accepted)"), "{stdout}");
}

#[test]
fn snapshots_are_reviewed_and_accepted_with_mock_agent_itself() {
    let dir = tempfile::tempdir().expect("temp dir");
    let snaps = dir.path().join("snaps");
    let snap = snaps.join("default__clean.snap");
    let review = snaps.join("default__clean.snap.new");
    assert_eq!(careful_snapshots(dir.path(), "", &[]).0, Some(0));
    let first = std::fs::read_to_string(&snap).expect("the snapshot");
    // A consumer that now says more: the record changed, left for review.
    let (code, stdout, _) = careful_snapshots(dir.path(), "; echo one more line", &[]);
    assert_eq!(code, Some(harness::exit_codes::CASES_FAILED), "{stdout}");
    assert!(review.exists());
    assert!(stdout.contains("mock-agent snapshots review "), "{stdout}");
    // Reviewed in a folder with no Cargo project: the diff, then rejected.
    let settle = |args: &[&str], answers: &str| {
        let mut cmd = crate::support::mock_std();
        cmd.current_dir(dir.path())
            .args(args)
            .arg(&snaps)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped());
        let mut child = cmd.spawn().expect("spawns");
        std::io::Write::write_all(&mut child.stdin.take().expect("stdin"), answers.as_bytes())
            .expect("answers");
        let output = child.wait_with_output().expect("runs");
        assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
        text(&output.stdout)
    };
    let shown = settle(&["snapshots", "review"], "r\n");
    assert!(shown.contains("default/clean (changed): "), "{shown}");
    assert!(shown.contains("\n+one more line\n"), "{shown}");
    assert!(shown.contains("0 accepted, 1 rejected, 0 skipped"), "{shown}");
    assert!(!review.exists());
    assert_eq!(std::fs::read_to_string(&snap).expect("kept"), first);
    // Left again, and accepted, in one go or in review.
    for (args, answers) in [
        (&["snapshots", "accept"][..], ""),
        (&["snapshots", "review"][..], "x\na\n"),
    ] {
        std::fs::write(&snap, &first).expect("restores");
        assert_eq!(
            careful_snapshots(dir.path(), "; echo one more line", &[]).0,
            Some(harness::exit_codes::CASES_FAILED)
        );
        let said = settle(args, answers);
        assert!(said.contains("1 accepted, 0 rejected, 0 skipped"), "{said}");
        assert!(!review.exists());
        assert!(std::fs::read_to_string(&snap)
            .expect("accepted")
            .contains("one more line"));
        assert_eq!(
            careful_snapshots(dir.path(), "; echo one more line", &[]).0,
            Some(0),
            "it matches now"
        );
    }
}

#[test]
fn fuzz_runs_the_same_cases_whatever_jobs() {
    let dir = tempfile::tempdir().expect("temp dir");
    // Shrinking stopped at once: the case written is the first failing one (not the
    // first case: this consumer shows the answer, and breaks only reports-failure).
    let first_failing = |jobs: &str| {
        let out = dir.path().join(jobs);
        let output = harness(&[
            "fuzz",
            "--consumer",
            "cursor-agent -p hi --output-format stream-json; exit 0",
            "--cases",
            "12",
            "--seed",
            "5",
            "--jobs",
            jobs,
            "--shrink-time",
            "0.001",
            "--out",
            out.to_str().expect("utf-8"),
        ]);
        assert_eq!(
            output.status.code(),
            Some(harness::exit_codes::CASES_FAILED),
            "{}",
            text(&output.stdout)
        );
        std::fs::read(out.join("fuzz-5.cassette")).expect("the failing case")
    };
    assert_eq!(first_failing("1"), first_failing("4"));
}

/// `fuzz --mock-env NAME`, as `test --mock-env`: the consumer finds the mock by that
/// variable; without it, it never runs the agent, and fuzz says so.
#[test]
fn fuzz_sets_the_mock_env_variable() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().to_str().expect("utf-8");
    let consumer = "[ -n \"$AGENT\" ] || exit 3; \"$AGENT\" -p hi >/dev/null 2>&1";
    let off: Vec<&str> = [
        "ends",
        "reports-failure",
        "reports-success",
        "no-leftover",
        "reads-to-end",
        "answers-requests",
        "ignores-unknown",
    ]
    .into_iter()
    .flat_map(|p| ["--off", p])
    .collect();
    let run = |mock_env: &[&str]| {
        let mut args = vec!["fuzz", "--cases", "2", "--shrink-time", "1", "--out", out];
        args.extend_from_slice(mock_env);
        args.extend_from_slice(&off);
        args.extend(["--consumer", consumer]);
        harness(&args)
    };
    let with = run(&["--mock-env", "AGENT"]);
    assert_eq!(with.status.code(), Some(0), "{}", text(&with.stderr));
    let without = run(&[]);
    assert!(
        text(&without.stderr).contains("never ran the agent"),
        "{}",
        text(&without.stderr)
    );
}
