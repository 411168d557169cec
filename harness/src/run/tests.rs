//! The runner's unit tests.

use super::*;
use crate::format::OutputFormat;

/// A journal line as the mock writes it, the least of one.
pub(super) const ENTRY: &str = r#"{"pid":1,"argv":[],"prompt":null,"stdin":null,"cwd":null,"output_format":null,"stream_partial_output":false,"source":null,"exit":{"code":0},"stdout_closed":false,"error":null,"started_at_ms":0,"ended_at_ms":0}"#;

fn cases(n: usize) -> Vec<Case> {
    (0..n)
        .map(|i| {
            Case::new(
                CaseSource::Default,
                OutputFormat::StreamJson,
                "",
                format!("case-{i}"),
            )
            .expect("a case")
        })
        .collect()
}

/// A consumer that lists its case directory (the parent of `{mock}`'s directory),
/// writes one journal entry as the mock would, then runs `rest`.
fn lister(rest: &str) -> Consumer {
    Consumer::new(format!(
        "d=$(dirname \"$(dirname {{mock}})\"); ls \"$d\"; echo '{ENTRY}' >> \"$MOCK_AGENT_JOURNAL\"; {rest}"
    ))
}

fn run(consumer: &Consumer, n: usize) -> Vec<CaseResult> {
    Runner::new(consumer, &MockBinary::new("/bin/true"))
        .run_all(&cases(n), |_| {})
        .expect("runs")
}

#[test]
fn a_worker_runs_its_cases_in_one_directory_each_as_new() {
    let results = run(&lister("true"), 3);
    for result in &results {
        let outcome = &result.outcome;
        assert_eq!(
            String::from_utf8_lossy(&outcome.stdout),
            "bin\nnode-note.cjs\npython\n",
            "{}",
            result.case.name
        );
        assert_eq!(
            outcome.journal.len(),
            1,
            "only the case's own journal: {}",
            result.case.name
        );
        assert_eq!(
            outcome.dir, results[0].outcome.dir,
            "one directory for the worker"
        );
    }
    assert!(!results[0].outcome.dir.exists(), "removed once the run is over");
}

#[test]
fn a_directory_a_case_left_a_file_in_is_not_used_again() {
    let results = run(&lister("touch \"$d/left-behind\""), 3);
    for result in &results {
        assert_eq!(
            String::from_utf8_lossy(&result.outcome.stdout),
            "bin\nnode-note.cjs\npython\n",
            "{}",
            result.case.name
        );
        assert_eq!(result.outcome.journal.len(), 1);
    }
    let dirs: std::collections::BTreeSet<&PathBuf> = results.iter().map(|r| &r.outcome.dir).collect();
    assert_eq!(dirs.len(), 3, "a new directory after each case");
}

#[test]
fn output_is_read_to_its_end_while_the_consumer_runs() {
    // 200 kB on stdout and stderr each, more than a pipe holds, while the consumer
    // is still running.
    let consumer = Consumer::new("head -c 200000 /dev/zero; head -c 200000 /dev/zero >&2; exit 3");
    let outcome = Runner::new(&consumer, &MockBinary::new("/bin/true"))
        .run_case(&cases(1)[0])
        .expect("runs");
    assert_eq!(outcome.status, Status::Exited(3));
    assert_eq!(outcome.stdout.len(), 200_000);
    assert_eq!(outcome.stderr.len(), 200_000);
    assert!(!outcome.left_running);
    // A result keeps the start and the end of each.
    let result = &run(&consumer, 1)[0];
    let kept = KEPT + child::omitted((200_000 - KEPT - child::TAIL) as u64).len() + child::TAIL;
    assert_eq!(result.outcome.stdout.len(), kept);
}

#[test]
fn a_case_that_times_out_is_stopped_and_its_directory_not_used_again() {
    let consumer = Consumer::new("sleep 30").timeout(Duration::from_millis(100));
    let results = run(&consumer, 2);
    for result in &results {
        assert_eq!(result.outcome.status, Status::TimedOut);
        assert!(!result.passed(), "not run: the consumer never ran the agent");
        assert!(result.not_run.is_some() && result.verdicts.is_empty());
    }
    assert_ne!(results[0].outcome.dir, results[1].outcome.dir);
}

#[test]
fn an_interrupt_kills_the_consumer_and_removes_its_directory() {
    let seen = tempfile::tempdir().expect("temp dir");
    let note = seen.path().join("journal");
    let consumer = Consumer::new(format!(
        "echo \"$MOCK_AGENT_JOURNAL\" > {}; sleep 30",
        note.display()
    ))
    .timeout(Duration::from_secs(20));
    let mock = MockBinary::new("/bin/true");
    let cancel = Cancel::new();
    let runner = Runner::new(&consumer, &mock).cancel(&cancel);
    let started = Instant::now();
    let result = std::thread::scope(|scope| {
        let run = scope.spawn(|| runner.run_all(&cases(3), |_| {}));
        // Once the first consumer runs (however loaded the machine is).
        let waited = Instant::now();
        while std::fs::read_to_string(&note).map_or(true, |n| !n.ends_with('\n'))
            && waited.elapsed() < Duration::from_secs(10)
        {
            std::thread::sleep(Duration::from_millis(10));
        }
        cancel.interrupt();
        run.join().expect("the run ends")
    });
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "the consumer was killed, not timed out"
    );
    match result {
        // The first case ended by the kill; the next one could not start.
        Err(RunError::Interrupted) => {}
        other => panic!("expected the run to stop as interrupted: {other:?}"),
    }
    assert!(cancel.is_interrupted());
    let journal = std::fs::read_to_string(&note).expect("the consumer ran");
    let case_dir = Path::new(journal.trim()).parent().expect("the case directory");
    assert!(!case_dir.exists(), "removed: {case_dir:?}");
    assert!(
        matches!(runner.run_case(&cases(1)[0]), Err(RunError::Interrupted)),
        "no case starts once interrupted"
    );
}
