//! Verdicts that must say what happened: a program whose command line the agent's
//! CLI refused is told so (the CLI's words, `valid-arguments`), not judged as if the
//! agent had played the case.

use std::process::Output;

use crate::support::{bin, mock_std};

/// The mock run as `word ARGS` with a journal: its output and the journal's entry.
fn refused(word: &str, args: &[&str]) -> (Output, harness::journal::Entry) {
    let dir = tempfile::tempdir().expect("temp dir");
    let journal = dir.path().join("journal.jsonl");
    let mut cmd = std::process::Command::new(bin());
    harness::run::child::without_mock_env(&mut cmd);
    let output = cmd
        .arg(word)
        .args(args)
        .current_dir(dir.path())
        .env("MOCK_AGENT_JOURNAL", &journal)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("runs");
    let mut entries = harness::journal::read(&journal).expect("a journal");
    assert_eq!(entries.len(), 1, "{word} {args:?}");
    (output, entries.remove(0))
}

/// Each CLI that can refuse a command line journals what it said, as it said it on
/// stderr, and that it played nothing.
#[test]
fn each_cli_journals_the_command_line_it_refused() {
    for (word, args, code) in [
        ("codex", &["exec", "--json", "--full-auto", "hi"][..], 2),
        ("codex", &["app-server", "--bogus"][..], 2),
        ("claude", &["-p", "hi", "--bogus"][..], 1),
        ("gemini", &["-p", "hi", "--bogus"][..], 1),
        ("agent", &["-p", "hi", "--bogus"][..], 1),
    ] {
        let (output, entry) = refused(word, args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(code), "{word} {args:?}: {stderr}");
        assert_eq!(
            entry.rejected.as_deref().map(str::trim_end),
            Some(stderr.trim_end()),
            "{word} {args:?}"
        );
        assert_eq!(entry.source, None, "{word} {args:?}");
        // A command line it takes is no refusal.
        let (_, entry) = refused(word, &["--version"]);
        assert_eq!(entry.rejected, None, "{word} --version");
    }
}

/// `mock-agent test` on a program that passes a flag the CLI refuses: every case
/// breaks `valid-arguments` with the CLI's words; none is judged as the agent's
/// success, and a case that writes an unknown line does not blame the program for it.
#[test]
fn a_program_whose_arguments_the_agent_refuses_is_told_so() {
    for (dialect, consumer, said) in [
        (
            "codex",
            "echo hi | codex exec --json --full-auto",
            "error: unexpected argument '--full-auto' found",
        ),
        (
            "claude",
            "claude -p hi --bogus",
            "error: unknown option '--bogus'",
        ),
        ("gemini", "gemini -p hi --bogus", "Unknown argument: bogus"),
    ] {
        let output = mock_std()
            .args(["test", "--dialect", dialect, "--consumer", consumer])
            .output()
            .expect("runs");
        let report =
            String::from_utf8_lossy(&output.stdout).into_owned() + &String::from_utf8_lossy(&output.stderr);
        assert_eq!(
            output.status.code(),
            Some(harness::exit_codes::CASES_FAILED),
            "{dialect}: {report}"
        );
        assert!(
            report.contains("the agent refused the program's arguments") && report.contains(said),
            "{dialect}: {report}"
        );
        for wrong in ["the agent succeeded", "breaks ignores-unknown", "breaks reports-"] {
            assert!(!report.contains(wrong), "{dialect}: `{wrong}` in {report}");
        }
    }
}
