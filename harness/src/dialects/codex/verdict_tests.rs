//! The runner's verdicts on Codex's runs (`run::Properties`, from a dialect's side:
//! the machinery names no dialect): a command line the CLI refused, and
//! `ignores-unknown` in Codex's words.

use crate::expect::Expectation;
use crate::run::dialect::failed_outcome as outcome;
use crate::run::{Properties, Status, Verdict};

/// A case of `dialect` with `faults` whose careful client answers `ok`.
fn case(dialect: &'static dyn crate::run::Dialect, faults: &str) -> crate::run::Case {
    crate::run::Case::conversation(
        dialect,
        format!("default/{faults}"),
        crate::run::CaseSource::Default,
        faults,
        (Expectation::Success { answer: "ok".into() }, vec!["ok".into()]),
    )
}

/// One run of the agent, as the journal tells it: it refused `argv` saying
/// `said` and ended `code`, or (`said` empty) it played the default session.
fn entry(argv: &[&str], said: &str, code: i32) -> crate::journal::Entry {
    let mut entry = crate::journal::Entry::new(7, argv.iter().map(|a| (*a).to_owned()).collect(), 0);
    entry.exit = crate::journal::ExitRecord::Code(code);
    if said.is_empty() {
        entry.source = Some("default".into());
    } else {
        entry.rejected = Some(said.into());
    }
    entry
}

#[test]
fn a_refused_command_line_is_the_agent_s_failure_and_the_program_s_doing() {
    let said = "error: unexpected argument '--full-auto' found\n\n  tip: to pass '--full-auto' as a value, use '-- --full-auto'\n\nUsage: codex exec --json [PROMPT]\n\nFor more information, try '--help'.\n";
    let argv = ["exec", "--json", "--full-auto", "-"];
    let properties = Properties::new();
    for dialect in [crate::dialects::CODEX, crate::dialects::CODEX_APP_SERVER] {
        for faults in ["", "unknown:kind=item"] {
            // The program reports the failure: it is no success missed, and the
            // unknown item the agent never wrote is not blamed; the arguments are.
            let mut failed = outcome("", "codex exited 2\n");
            failed.journal = vec![entry(&argv, said, 2)];
            let (lived, verdicts) = properties.judge(&case(dialect, faults), &failed);
            assert_eq!(lived.expect, Expectation::Failure);
            let broken: Vec<&Verdict> = verdicts.iter().filter(|v| !v.held).collect();
            assert_eq!(broken.len(), 1, "{faults}: {verdicts:?}");
            assert_eq!(broken[0].name, "valid-arguments");
            assert!(
                broken[0].detail.starts_with(
                    "the agent refused the program's arguments and ran nothing (exit 2); it said: error: unexpected argument '--full-auto' found | tip:"
                ),
                "{}",
                broken[0].detail
            );
            assert!(!verdicts.iter().any(|v| v.name == "ignores-unknown"));
            assert!(!verdicts.iter().any(|v| v.name == "reports-success"));
            // A program that takes the refusal for success is told so.
            let mut quiet = failed.clone();
            quiet.status = Status::Exited(0);
            let (_, verdicts) = properties.judge(&case(dialect, faults), &quiet);
            let reports = verdicts
                .iter()
                .find(|v| v.name == "reports-failure")
                .expect("judged");
            assert!(!reports.held && reports.detail.contains("refused the program's arguments"));
            assert!(
                reports.detail.ends_with("but the consumer exited 0"),
                "{}",
                reports.detail
            );
        }
    }
    // A program that tries a flag, is refused, and runs the agent otherwise: judged
    // on the run that played.
    let mut retried = outcome("ok\n", "");
    retried.status = Status::Exited(0);
    retried.journal = vec![entry(&argv, said, 2), entry(&["exec", "--json", "-"], "", 0)];
    let (lived, verdicts) = properties.judge(&case(crate::dialects::CODEX, ""), &retried);
    assert!(matches!(lived.expect, Expectation::Success { .. }));
    assert!(verdicts.iter().all(|v| v.held), "{verdicts:?}");
}

#[test]
fn ignores_unknown_says_what_was_unknown_in_the_dialect_s_words() {
    let properties = Properties::new();
    for (dialect, faults, words) in [
        (
            crate::dialects::CODEX,
            "unknown:kind=item",
            "an event or an item of an unknown type",
        ),
        (
            crate::dialects::CODEX_APP_SERVER,
            "unknown:kind=item",
            "a notification of an unknown method or an item of an unknown type",
        ),
    ] {
        let mut died = outcome("", "");
        died.status = Status::Signaled(11);
        died.journal = vec![entry(&["exec"], "", 0)];
        let (_, verdicts) = properties.judge(&case(dialect, faults), &died);
        let verdict = verdicts
            .iter()
            .find(|v| v.name == "ignores-unknown")
            .unwrap_or_else(|| panic!("judged: {verdicts:?}"));
        assert_eq!(verdict.detail, format!("{words} broke the client"));
    }
}
