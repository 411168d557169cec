//! The harness proves itself on example consumers: the careful one copes with the
//! whole matrix, and each one with a classic bug is caught by the property named for
//! it. Also: timeouts kill the whole process group, leftovers are found, and cases run
//! in parallel do not see each other.

use std::path::PathBuf;
use std::time::Duration;

use harness::run::{
    self, report, Case, CaseSource, Consumer, Matrix, MockBinary, Properties, Runner, Status,
};
use harness::OutputFormat;

use crate::support::{bin, root};

fn run_all(consumer: &Consumer, cases: &[Case], jobs: usize) -> Vec<run::CaseResult> {
    let mock = MockBinary::new(bin());
    Runner::new(consumer, &mock)
        .jobs(jobs)
        .run_all(cases, |_| {})
        .expect("runs")
}

fn run_case(consumer: &Consumer, case: &Case) -> run::Outcome {
    Runner::new(consumer, &MockBinary::new(bin()))
        .run_case(case)
        .expect("runs")
}

fn python(script: &str) -> Consumer {
    let path = root().join("tests/consumers").join(script);
    Consumer::new(format!("python3 {}", path.display()))
        .timeout(Duration::from_secs(6))
        // The careful consumer gives up on an agent silent this long (the matrix's
        // finite stall is 2 s).
        .env("CONSUMER_IDLE_TIMEOUT", "3")
}

fn cases(sources: &[CaseSource], filter: Option<&str>) -> Vec<Case> {
    let mut matrix = Matrix::standard(Vec::new());
    matrix.default_session = false;
    let mut cases = Vec::new();
    for source in sources {
        for (label, spec) in &matrix.faults {
            let name = format!("{}/{label}", source.name());
            if filter.is_some_and(|f| !name.contains(f)) {
                continue;
            }
            cases.push(Case::new(source.clone(), OutputFormat::StreamJson, spec, name).expect("case"));
        }
    }
    cases
}

fn broken(consumer: &Consumer, case_filter: &str) -> Vec<String> {
    let cases = cases(&[CaseSource::Default], Some(case_filter));
    assert!(!cases.is_empty(), "no case matches {case_filter}");
    crate::support::broken_in(&run_all(consumer, &cases, 2))
}

#[test]
fn the_careful_python_consumer_copes_with_the_whole_matrix() {
    // Every case of the default session, each record kept as a snapshot ...
    run::assert_matrix(
        &python("careful.py"),
        &Matrix::standard(Vec::new()),
        &Properties::new(),
        &MockBinary::new(bin()),
        &root().join("tests/snapshots/consumers/careful"),
    );
    // ... and every property held on a recorded and two generated sources too, whose
    // records would repeat the default session's but for the names.
    let cases = cases(
        &[
            CaseSource::Cassette(root().join("cassettes/parallel-tools.cassette")),
            CaseSource::Generated(0),
            CaseSource::Generated(1),
        ],
        None,
    );
    let results = run_all(&python("careful.py"), &cases, 2);
    let summary = run::Summary::new(&results, &[]);
    assert!(summary.passed(), "{summary}");
}

#[test]
fn the_careful_rust_consumer_copes_with_the_matrix() {
    let example = bin()
        .parent()
        .map(|d| d.join("examples/careful_consumer"))
        .unwrap_or_default();
    assert!(example.exists(), "cargo test builds the examples: {example:?}");
    let consumer = Consumer::new(example.display().to_string()).timeout(Duration::from_secs(12));
    // The stall for ever waits out the consumer's own 8 s watchdog: left out here, the
    // Python consumer covers it.
    let cases: Vec<Case> = cases(&[CaseSource::Default], None)
        .into_iter()
        .filter(|c| !c.name.ends_with("stall@at-result"))
        .collect();
    let results = run_all(&consumer, &cases, 2);
    // `reorder` has no parallel tool calls to act on in the default session: not
    // applicable, neither passed nor failed.
    let failed: Vec<String> = results
        .iter()
        .filter(|r| !(r.passed() || r.not_applicable.is_some() && r.case.name == "default/reorder"))
        .map(report::record)
        .collect();
    assert!(failed.is_empty(), "{}", failed.join("\n\n"));
}

#[test]
fn each_classic_bug_is_caught_by_its_property() {
    let expectations: &[(&str, &str, &[&str])] = &[
        ("stderr_after_stdout.py", "stderr-flood", &["ends"]),
        (
            "fatal_non_json.py",
            "noise@mid-stream",
            &["no-crash", "reports-success"],
        ),
        ("ignores_exit.py", "auth-required", &["reports-failure"]),
        (
            "one_object_per_read.py",
            "coalesce",
            &["no-crash", "reports-success"],
        ),
        ("hangs_without_result.py", "eof@at-result", &["ends"]),
        ("line_cap_64k.py", "huge-64k", &["reports-success"]),
    ];
    for (script, case, expected) in expectations {
        let consumer = python(script);
        // Replay writes as fast as the pipe takes it, so several lines share a read
        // from the first case on: that bug shows without any fault.
        if *script != "one_object_per_read.py" {
            assert_eq!(
                broken(&consumer, "default/clean"),
                Vec::<String>::new(),
                "{script} copes with a clean run"
            );
        }
        let found = broken(&consumer, case);
        for name in *expected {
            assert!(
                found.iter().any(|f| f == name),
                "{script} on {case}: broke {found:?}, expected {name}"
            );
        }
    }
}

#[test]
fn a_timeout_kills_the_whole_process_group() {
    let dir = tempfile::tempdir().expect("temp dir");
    let pid_file = dir.path().join("pid");
    let consumer = Consumer::new(format!("sleep 30 & echo $! > {}; sleep 30", pid_file.display()))
        .timeout(Duration::from_millis(500));
    let case = Case::new(CaseSource::Default, OutputFormat::StreamJson, "", "sleepy".into()).expect("case");
    let outcome = run_case(&consumer, &case);
    assert_eq!(outcome.status, Status::TimedOut);
    let pid: i32 = std::fs::read_to_string(&pid_file)
        .expect("pid")
        .trim()
        .parse()
        .expect("a pid");
    // Dead, or a zombie not yet reaped by whoever adopted it.
    let state = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let running = state
        .rsplit(')')
        .next()
        .and_then(|rest| rest.split_whitespace().next())
        .is_some_and(|s| s != "Z");
    assert!(
        !running,
        "the background sleep was killed with its group: {state}"
    );
}

#[test]
fn a_mock_left_running_is_found_and_killed() {
    let consumer =
        Consumer::new("cursor-agent -p hi > /dev/null & echo started").timeout(Duration::from_secs(5));
    let case = Case::new(
        CaseSource::Default,
        OutputFormat::StreamJson,
        "stall",
        "left".into(),
    )
    .expect("case");
    let outcome = run_case(&consumer, &case);
    assert_eq!(outcome.status, Status::Exited(0));
    assert!(outcome.left_running);
    let verdicts = Properties::new().check(&case, &outcome);
    assert!(
        verdicts.iter().any(|v| v.name == "no-leftover" && !v.held),
        "{verdicts:?}"
    );
}

#[test]
fn cases_run_in_parallel_are_isolated() {
    // Each case sees its own cassette and writes its own journal, whatever runs beside it.
    let consumer =
        Consumer::new("cursor-agent -p --output-format json hi; echo; cat \"$MOCK_AGENT_JOURNAL\" | wc -l");
    let sources: Vec<CaseSource> = crate::support::curated()
        .into_iter()
        .map(CaseSource::Cassette)
        .collect();
    let all: Vec<Case> = sources
        .iter()
        .map(|s| Case::new(s.clone(), OutputFormat::StreamJson, "", s.name()).expect("case"))
        .collect();
    let one = run_all(&consumer, &all, 1);
    let four = run_all(&consumer, &all, 4);
    for (a, b) in one.iter().zip(&four) {
        assert_eq!(a.case.name, b.case.name);
        assert_eq!(a.outcome.stdout, b.outcome.stdout, "{}", a.case.name);
        assert!(
            String::from_utf8_lossy(&a.outcome.stdout).ends_with("1\n"),
            "one journal line each"
        );
    }
}

#[test]
fn mock_agent_test_runs_the_matrix_and_writes_snapshots() {
    let dir = tempfile::tempdir().expect("temp dir");
    let snapshots = dir.path().join("snaps");
    let junit = dir.path().join("junit.xml");
    let consumer = format!(
        "python3 {}",
        root().join("tests/consumers/ignores_exit.py").display()
    );
    let run = |accept: bool| {
        let mut cmd = crate::support::mock_off_ci();
        cmd.args([
            "test",
            "--consumer",
            &consumer,
            "--filter",
            "default/",
            "--timeout",
            "5",
        ])
        .arg("--snapshots")
        .arg(&snapshots)
        .arg("--junit")
        .arg(&junit);
        if accept {
            cmd.arg("--accept");
        }
        cmd.output().expect("runs")
    };
    let first = run(false);
    assert_eq!(
        first.status.code(),
        Some(harness::exit_codes::CASES_FAILED),
        "ignores_exit.py breaks reports-failure"
    );
    let stdout = String::from_utf8_lossy(&first.stdout);
    assert!(
        stdout.contains("default/auth-required") && stdout.contains("reports-failure"),
        "{stdout}"
    );
    let new: Vec<PathBuf> = std::fs::read_dir(&snapshots)
        .expect("snapshots")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    assert!(
        new.iter().all(|p| p.extension().is_some_and(|x| x == "snap")),
        "off CI, new snapshots are written: {new:?}"
    );
    assert!(std::fs::read_to_string(&junit)
        .expect("junit")
        .contains("<failure message=\"reports-failure"));
    let accepted = run(true);
    assert_eq!(
        accepted.status.code(),
        Some(harness::exit_codes::CASES_FAILED),
        "properties still break"
    );
    assert!(std::fs::read_dir(&snapshots)
        .expect("snapshots")
        .all(|e| { e.is_ok_and(|e| e.path().extension().is_some_and(|x| x == "snap")) }));
    let snap =
        std::fs::read_to_string(run::snapshot::snapshot_path(&snapshots, "default/quota")).expect("snapshot");
    assert!(
        snap.starts_with("---\nsource: mock-agent test\n"),
        "insta's format: {snap}"
    );
    assert!(snap.contains("FAIL reports-failure"));
}

#[test]
fn a_bot_that_posts_each_segment_reports_success() {
    // The seeds' session has three segments; a bot that posts them one by one (and
    // never prints `result.result` verbatim) reports the answer.
    let cases = cases(
        &[
            CaseSource::Default,
            CaseSource::Cassette(root().join("cassettes/edit-file.cassette")),
        ],
        Some("clean"),
    );
    let results = run_all(&python("segment_poster.py"), &cases, 2);
    assert_eq!(results.len(), 2);
    let summary = run::Summary::new(&results, &[]);
    assert!(summary.passed(), "{summary}");
    assert!(
        results.iter().all(|r| r.case.segments.len() > 1),
        "several segments"
    );
}

#[test]
fn mock_agent_test_keeps_snapshots_as_insta_does() {
    let dir = tempfile::tempdir().expect("temp dir");
    let snapshots = dir.path().join("snaps");
    let consumer = format!("python3 {}", root().join("tests/consumers/careful.py").display());
    let run = |env: &[(&str, &str)]| {
        let mut cmd = crate::support::mock_off_ci();
        cmd.envs(env.iter().copied())
            .args(["test", "--consumer", &consumer])
            .args(["--filter", "default/clean", "--snapshots"])
            .arg(&snapshots);
        let output = cmd.output().expect("runs");
        let files: Vec<String> = std::fs::read_dir(&snapshots)
            .map(|d| {
                d.flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        (
            output.status.code(),
            String::from_utf8_lossy(&output.stdout).into_owned(),
            files,
        )
    };
    // On CI, a new snapshot is written nowhere and fails the run.
    let (code, stdout, files) = run(&[("CI", "true")]);
    assert_eq!(
        (code, files.len()),
        (Some(harness::exit_codes::CASES_FAILED), 0),
        "{stdout}"
    );
    assert!(
        stdout.contains("default/clean") && stdout.contains("new snapshot"),
        "{stdout}"
    );
    // INSTA_FORCE_PASS: written for review, and the run passes.
    let (code, _, files) = run(&[("INSTA_UPDATE", "new"), ("INSTA_FORCE_PASS", "1")]);
    assert_eq!(
        (code, files),
        (Some(0), vec!["default__clean.snap.new".to_owned()])
    );
    // unseen accepts a new snapshot; then it matches.
    let (code, _, files) = run(&[("INSTA_UPDATE", "unseen")]);
    assert_eq!((code, files), (Some(0), vec!["default__clean.snap".to_owned()]));
    let (code, stdout, _) = run(&[("CI", "true")]);
    assert_eq!(code, Some(0), "{stdout}");
    // A bad value is the mock's own usage error.
    let (code, _, _) = run(&[("INSTA_UPDATE", "sometimes")]);
    assert_eq!(code, Some(64));
}

#[test]
fn fuzz_shrinks_a_failure_to_a_cassette_that_replays_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    let script = root().join("tests/consumers/ignores_exit.py");
    let consumer = format!("python3 {}", script.display());
    let output = crate::support::mock()
        .args(["fuzz", "--consumer", &consumer, "--cases", "30", "--seed", "1"])
        .args(["--timeout", "5", "--out"])
        .arg(dir.path())
        .output()
        .expect("runs");
    crate::support::assert_said(&output, harness::exit_codes::CASES_FAILED);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("reports-failure"), "{stdout}");
    let cassette = dir.path().join("fuzz-1.cassette");
    let replay = format!(
        "replay it: mock-agent test --no-default --cassettes {} --filter clean --timeout 5 --consumer 'python3 ",
        cassette.display()
    );
    assert!(stdout.contains(&replay), "{stdout}");
    // The command it prints reproduces the failure.
    let replayed = crate::support::mock()
        .args([
            "test",
            "--no-default",
            "--filter",
            "clean",
            "--timeout",
            "5",
            "--consumer",
            &consumer,
        ])
        .arg("--cassettes")
        .arg(&cassette)
        .output()
        .expect("runs");
    assert_eq!(replayed.status.code(), Some(harness::exit_codes::CASES_FAILED));
    assert!(String::from_utf8_lossy(&replayed.stdout).contains("reports-failure"));
    // The cassette reproduces the failure.
    let case = Case::new(
        CaseSource::Cassette(cassette),
        OutputFormat::StreamJson,
        "",
        "replayed".into(),
    )
    .expect("case");
    let outcome = run_case(&python("ignores_exit.py"), &case);
    let verdicts = Properties::new().check(&case, &outcome);
    assert!(
        verdicts.iter().any(|v| v.name == "reports-failure" && !v.held),
        "{verdicts:?}"
    );
    // The careful consumer passes the same cases.
    mock_fuzz_passes("careful.py");
}

fn mock_fuzz_passes(script: &str) {
    let dir = tempfile::tempdir().expect("temp dir");
    let consumer = format!(
        "CONSUMER_IDLE_TIMEOUT=3 python3 {}",
        crate::support::consumer_path(script)
    );
    let output = crate::support::mock()
        .args(["fuzz", "--consumer", &consumer, "--cases", "20", "--seed", "1"])
        .args(["--timeout", "6", "--out"])
        .arg(dir.path())
        .output()
        .expect("runs");
    crate::support::assert_said(&output, 0);
}

#[test]
fn the_consumer_runs_where_the_harness_was_started() {
    // A relative path, as in the README: the consumer finds its files.
    crate::support::mock()
        .args([
            "test",
            "--consumer",
            "python3 tests/consumers/careful.py",
            "--filter",
            "default/clean",
            "--timeout",
            "5",
        ])
        .assert()
        .success();
    crate::support::mock()
        .args(["test", "--consumer", "true", "--filter", "nothing-matches"])
        .assert()
        .code(64)
        .stderr(predicates::str::contains("matches none"));
}

#[test]
fn an_interrupted_harness_takes_its_consumers_with_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    // Each consumer says its pid on a FIFO that the test reads: the test waits for
    // the consumers to run, without a clock.
    let pids = dir.path().join("pids");
    nix::unistd::mkfifo(&pids, nix::sys::stat::Mode::S_IRWXU).expect("mkfifo");
    let consumer = format!("echo $$ > {}; sleep 30", pids.display());
    // The case directories are made under TMPDIR: none is left behind.
    let tmp = tempfile::tempdir().expect("temp dir");
    let mut harness = std::process::Command::new(bin())
        .current_dir(root())
        .env("TMPDIR", tmp.path())
        .args([
            "test",
            "--consumer",
            &consumer,
            "--filter",
            "default/eof",
            "--timeout",
            "60",
            "--jobs",
            "2",
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawns");
    let mut fifo = crate::support::fifo_reader(&pids);
    let running: Vec<String> = (0..2)
        .map(|_| {
            let mut pid = String::new();
            std::io::BufRead::read_line(&mut fifo, &mut pid).expect("a consumer's pid");
            pid.trim().to_owned()
        })
        .collect();
    let ended_by = crate::support::signal_and_wait(&mut harness, nix::sys::signal::Signal::SIGTERM);
    assert_eq!(ended_by, Some(15));
    std::thread::sleep(Duration::from_millis(100));
    for pid in &running {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        let state = stat
            .rsplit(')')
            .next()
            .and_then(|rest| rest.split_whitespace().next())
            .unwrap_or("gone");
        assert!(
            state == "gone" || state == "Z",
            "consumer {pid} still runs: {stat}"
        );
    }
    let left: Vec<_> = std::fs::read_dir(tmp.path())
        .expect("reads")
        .map(|entry| entry.expect("an entry").path())
        .collect();
    assert_eq!(
        left,
        Vec::<std::path::PathBuf>::new(),
        "case directories left behind"
    );
}

#[test]
fn mock_agent_test_exits_by_what_happened() {
    use harness::exit_codes;
    let test = |path: Option<&str>, args: &[&str]| {
        let mut cmd = crate::support::mock();
        if let Some(path) = path {
            cmd.env("PATH", path);
        }
        let output = cmd
            .args(["test", "--filter", "default/clean", "--timeout", "5"])
            .args(args)
            .output()
            .expect("runs");
        (
            output.status.code(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    };
    // A wrong command line: a usage error, said once.
    let (code, stderr) = test(None, &["--consumer", "true", "--off", "typo"]);
    assert_eq!(code, Some(exit_codes::USAGE), "{stderr}");
    assert!(
        stderr.starts_with("mock-agent: ")
            && stderr.contains("no property `typo`; the properties are ends, "),
        "{stderr}"
    );
    // A consumer that breaks a property: failing cases, not an agent error.
    let (code, stderr) = test(None, &["--consumer", "cursor-agent -p hi; exit 1"]);
    assert_eq!(code, Some(exit_codes::CASES_FAILED), "{stderr}");
    // A consumer that never runs the agent: a case not run, neither passed nor failed.
    let (code, stderr) = test(None, &["--consumer", "true"]);
    assert_eq!(code, Some(exit_codes::CASES_NOT_RUN), "{stderr}");
    assert_ne!(exit_codes::CASES_FAILED, exit_codes::AGENT_ERROR);
    // No shell to run the consumer with: the mock's own error, each cause said once.
    let (code, stderr) = test(Some("/nonexistent"), &["--consumer", "true"]);
    assert_eq!(code, Some(exit_codes::CANNOT_RUN), "{stderr}");
    let error = stderr
        .lines()
        .find(|l| l.starts_with("mock-agent: "))
        .unwrap_or_default();
    assert!(error.starts_with("mock-agent: cannot run `true`: "), "{stderr}");
    let cause = error.trim_start_matches("mock-agent: cannot run `true`: ");
    assert!(!cause.is_empty() && !cause.contains("cannot run"), "{stderr}");
    // Each documented and distinct.
    let codes = [
        exit_codes::USAGE,
        exit_codes::CASES_FAILED,
        exit_codes::CASES_NOT_RUN,
        exit_codes::CANNOT_RUN,
    ];
    for code in codes {
        assert!(exit_codes::ALL.iter().any(|(c, _, _)| *c == code));
        assert_eq!(codes.iter().filter(|c| **c == code).count(), 1);
    }
}

/// `mock-agent test` of the careful consumer with one fault: its exit code.
fn careful_with(fault: &str) -> Option<i32> {
    let consumer = format!("python3 {}", root().join("tests/consumers/careful.py").display());
    crate::support::mock()
        .args(["test", "--consumer", &consumer, "--fault", fault])
        .output()
        .expect("runs")
        .status
        .code()
}

#[test]
fn a_fault_that_leaves_the_output_as_the_clean_run_s_expects_what_the_clean_run_expects() {
    // A pause inside the result line: the same bytes, the same exit as the clean run.
    assert_eq!(
        careful_with("stall:ms=1,at=result,byte=1"),
        Some(0),
        "the careful consumer is not accused"
    );
    // The line cut there for good is a failure, which the careful consumer reports.
    assert_eq!(careful_with("eof:at=result,byte=1"), Some(0));
}

#[test]
fn a_raw_json_line_shown_as_the_answer_breaks_reports_success() {
    // The answer's words are inside the raw `result` line it prints, JSON-escaped
    // between fields: not the answer shown as text. All else it does right.
    let sources = [
        CaseSource::Default,
        CaseSource::Cassette(root().join("cassettes/edit-file.cassette")),
    ];
    let results = run_all(
        &python("raw_line_as_answer.py"),
        &cases(&sources, Some("clean")),
        2,
    );
    assert_eq!(results.len(), 2);
    for result in &results {
        assert_eq!(result.broken(), ["reports-success"], "{}", report::record(result));
    }
    // It reports a failure as a failure.
    assert_eq!(
        broken(&python("raw_line_as_answer.py"), "auth-required"),
        Vec::<String>::new()
    );
}

#[test]
fn a_live_display_that_shows_noise_between_parts_of_the_answer_reports_success() {
    // With `--stream-partial-output` it prints each delta as it comes and the agent's
    // non-JSON line where it came: between two parts of the answer, even inside a
    // segment. The whole answer is shown, in order.
    let sources = [
        CaseSource::Default,
        CaseSource::Cassette(root().join("cassettes/partial-thinking.cassette")),
        CaseSource::Cassette(root().join("cassettes/shell-command.cassette")),
    ];
    let mut cases = Vec::new();
    for source in &sources {
        for after in 0..10 {
            let spec = format!("noise:after={after}");
            let name = format!("{}/noise@{after}", source.name());
            cases.push(Case::new(source.clone(), OutputFormat::StreamJson, &spec, name).expect("case"));
        }
    }
    let results = run_all(&python("live_display.py"), &cases, 2);
    let summary = run::Summary::new(&results, &[]);
    assert!(summary.passed(), "{summary}");
}
