//! The conformance suite: what every registered dialect must do, run for each of
//! `harness::dialects::ALL`. A dialect is tested here by registering it; one that has
//! no curated cassettes listed in `CURATED` fails until it has.

use harness::dialects::{self, Dialect};
use harness::faults::FROM_FLAG;
use harness::run::{CaseSource, Matrix};

use crate::support::{mock, root};

/// Each dialect's folder of curated cassettes, by its name.
const CURATED: &[(&str, &str)] = &[
    ("cursor-print", "cassettes"),
    ("cursor-acp", "cassettes/acp"),
    ("claude", "cassettes/claude"),
    ("codex", "cassettes/codex"),
    ("codex-app-server", "cassettes/codex-app-server"),
];

fn curated(dialect: &dyn Dialect) -> std::path::PathBuf {
    let Some((_, dir)) = CURATED.iter().find(|(name, _)| *name == dialect.name()) else {
        panic!(
            "{dialect}: no curated cassettes listed in tests/conformance.rs (record some, then add a line to CURATED)"
        );
    };
    root().join(dir)
}

#[test]
fn each_dialect_has_its_own_name_programs_and_fault_section() {
    for dialect in dialects::ALL {
        assert_eq!(dialects::by_name(dialect.name()), Some(*dialect));
        assert!(
            !dialect.programs().is_empty(),
            "{dialect}: no executable to put on PATH"
        );
        assert!(!dialect.catalogue().is_empty(), "{dialect}: no faults");
        // Every example of its section reads as its faults.
        for entry in dialect.catalogue() {
            dialect
                .check_faults(entry.example, FROM_FLAG)
                .unwrap_or_else(|e| panic!("{dialect}: the example of `{}`: {e}", entry.name));
        }
        // And what is none of its faults is an error that names the flag.
        let e = dialect
            .check_faults("no-such-fault", FROM_FLAG)
            .expect_err("unknown");
        assert!(e.to_string().starts_with("--fault:1:1:"), "{dialect}: {e}");
    }
}

#[test]
fn each_dialect_s_matrix_makes_its_cases_from_every_source() {
    for dialect in dialects::ALL {
        let cassettes = Matrix::cassettes_in(&curated(*dialect)).expect("lists the cassettes");
        // The built-in and generated sessions, then the curated ones (a curated
        // cassette may be named `default` too).
        let mut cases = Matrix::of(*dialect, Vec::new())
            .generated(1)
            .cases(false)
            .unwrap_or_else(|e| panic!("{dialect}: the matrix: {e}"));
        let mut recorded = Matrix::of(*dialect, cassettes);
        recorded.default_session = false;
        cases.extend(
            recorded
                .cases(false)
                .unwrap_or_else(|e| panic!("{dialect}: the matrix of its cassettes: {e}")),
        );
        let sources: std::collections::BTreeSet<String> =
            cases.iter().map(|c| format!("{:?}", c.source)).collect();
        assert!(sources.len() >= 3, "{dialect}: {sources:?}");
        // A case per source and fault, but where the fault cannot act on the source.
        let mut distinct: Vec<&CaseSource> = cases.iter().map(|c| &c.source).collect();
        distinct.dedup();
        let expected: usize = distinct
            .iter()
            .map(|source| {
                dialect
                    .matrix_faults()
                    .iter()
                    .filter(|(_, spec)| dialect.applies(source, spec))
                    .count()
            })
            .sum();
        assert_eq!(cases.len(), expected, "{dialect}: a case per source and fault");
        assert!(
            dialect
                .matrix_faults()
                .iter()
                .all(|(_, spec)| dialect.applies(&CaseSource::Default, spec)),
            "{dialect}: every fault acts on the built-in session"
        );
        for case in &cases {
            assert_eq!(case.dialect, *dialect, "{}", case.name);
        }
        // A case is the same whether made by the matrix or by the dialect alone.
        let first = &cases[0];
        let again = dialect
            .case(
                first.source.clone(),
                first.format,
                &first.faults,
                first.name.clone(),
            )
            .expect("the case again");
        assert_eq!(&again, first);
        assert_eq!(CaseSource::Default.name(), "default");
    }
}

#[test]
fn each_dialect_s_curated_cassettes_are_its_own_and_lint_clean() {
    for dialect in dialects::ALL {
        let cassettes = Matrix::cassettes_in(&curated(*dialect)).expect("lists the cassettes");
        assert!(!cassettes.is_empty(), "{dialect}: no curated cassette");
        for path in cassettes {
            let reader = harness::cassette::open(&path).expect("opens");
            assert_eq!(
                dialects::of_header(reader.header()),
                *dialect,
                "{} is claimed by another dialect",
                path.display()
            );
            let lint = mock().arg("lint").arg(&path).output().expect("runs");
            assert_eq!(
                lint.status.code(),
                Some(0),
                "{}: lints with errors:\n{}",
                path.display(),
                String::from_utf8_lossy(&lint.stdout)
            );
        }
    }
}

#[test]
fn each_dialect_s_generated_sessions_are_its_own_and_lint_clean() {
    let dir = tempfile::tempdir().expect("temp dir");
    for dialect in dialects::ALL {
        for seed in 0..4u64 {
            let path = dir.path().join(format!("{}-{seed}.cassette", dialect.name()));
            let generated = dialect
                .generate(seed, None, Some(&path))
                .unwrap_or_else(|e| panic!("{dialect}: seed {seed}: {e}"));
            let harness::run::Generated::Written { path, lines, .. } = generated else {
                panic!("{dialect}: seed {seed}: told, not written");
            };
            assert!(lines > 0, "{dialect}: seed {seed}: an empty session");
            let reader = harness::cassette::open(&path).expect("opens");
            assert_eq!(
                dialects::of_header(reader.header()),
                *dialect,
                "{}",
                path.display()
            );
            let report = dialects::check_file(&path).expect("checks");
            assert!(
                report.passes(),
                "{dialect}: the session of seed {seed} lints with errors: {:?}",
                report.findings
            );
            // Without a file, the same session is told.
            assert!(matches!(
                dialect.generate(seed, None, None),
                Ok(harness::run::Generated::Told(text)) if !text.is_empty()
            ));
        }
    }
}

/// `mock-agent dialects` lists what the library registers, and each listed CLI name
/// runs the mock as that CLI (as the pytest plugin and the runner put it on `PATH`).
#[test]
fn mock_agent_dialects_lists_every_registered_dialect() {
    let listed = crate::support::mock_std()
        .args(["dialects", "--json"])
        .output()
        .expect("runs");
    assert!(listed.status.success());
    let lines: Vec<serde_json::Value> = String::from_utf8_lossy(&listed.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    assert_eq!(lines.len(), dialects::ALL.len());
    for (line, dialect) in lines.iter().zip(dialects::ALL) {
        assert_eq!(line["name"], dialect.name());
        assert_eq!(line["title"], dialect.title());
        assert_eq!(line["conversation"], dialect.is_conversation());
        let programs: Vec<&str> = line["programs"]
            .as_array()
            .expect("a list")
            .iter()
            .filter_map(|p| p.as_str())
            .collect();
        assert_eq!(programs, dialect.programs());
        // The word of `mock-agent WORD` runs it, and so does a link of each name.
        let word = line["word"].as_str().expect("a CLI of its own");
        let version = crate::support::mock_std()
            .args([word, "--version"])
            .output()
            .expect("runs");
        assert!(version.status.success(), "mock-agent {word} --version");
        let dir = tempfile::tempdir().expect("temp dir");
        for program in &programs {
            let link = dir.path().join(program);
            std::os::unix::fs::symlink(crate::support::bin(), &link).expect("links");
            let mut cmd = std::process::Command::new(&link);
            harness::run::child::without_mock_env(&mut cmd);
            let linked = cmd.arg("--version").output().expect("runs");
            assert!(linked.status.success(), "{program} --version");
            assert_eq!(linked.stdout, version.stdout, "{program} is `mock-agent {word}`");
        }
    }
    let plain = crate::support::mock_std().arg("dialects").output().expect("runs");
    let text = String::from_utf8_lossy(&plain.stdout);
    for dialect in dialects::ALL {
        assert!(
            text.contains(dialect.name()) && text.contains(dialect.title()),
            "{text}"
        );
    }
}
