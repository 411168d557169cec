//! The conformance suite: what every registered dialect must do, run for each of
//! `harness::dialects::ALL`. A dialect is tested here by registering it; one that has
//! no curated cassettes listed in `CURATED` fails until it has.

use std::path::{Path, PathBuf};
use std::process::Command;

use harness::dialects::{self, Dialect};
use harness::faults::FROM_FLAG;
use harness::run::{CaseSource, Matrix};

use crate::support::{bin, mock, root};

mod played;

/// Each dialect's folder of curated cassettes, by its name.
const CURATED: &[(&str, &str)] = &[
    ("cursor-print", "cassettes"),
    ("cursor-acp", "cassettes/acp"),
    ("claude", "cassettes/claude"),
    ("codex", "cassettes/codex"),
    ("codex-app-server", "cassettes/codex-app-server"),
    ("gemini", "cassettes/gemini"),
    ("gemini-acp", "cassettes/gemini-acp"),
];

/// Each dialect's example programs (tests/consumers): how they are run, the careful
/// one, which passes every case of the dialect's matrix, and planted bugs, each with
/// the cases (a filter) where it shows and the property that catches it.
struct Consumers {
    dialect: &'static str,
    /// The interpreter that runs them.
    interpreter: fn() -> String,
    careful: &'static str,
    /// Their arguments (`{format}`: the case's output format).
    args: &'static str,
    /// Their environment, beyond `CONSUMER_IDLE_TIMEOUT=3`.
    env: &'static [(&'static str, &'static str)],
    /// Seconds a case may take.
    timeout: u64,
    planted: &'static [(&'static str, &'static str, &'static str)],
}

/// The matrix's cases whose faults the careful example program of a dialect never
/// meets, and why: each other fault of a case must act (the journal says it fired),
/// or the case plays a clean run under a fault's name.
const INERT: &[(&str, &str, &str)] = &[
    (
        "cursor-acp",
        "default/authenticate-hangs",
        "the program never authenticates",
    ),
    (
        "cursor-acp",
        "default/stderr@after-turn",
        "its conversation ends before the 30th line",
    ),
    (
        "gemini-acp",
        "default/stderr@after-turn",
        "its conversation ends before the 30th line",
    ),
];

/// The planted bugs of `dialect`'s example programs in [`CONSUMERS`]: script, the cases
/// where it shows (a filter), the property that catches it.
pub(crate) fn planted(dialect: &str) -> &'static [(&'static str, &'static str, &'static str)] {
    CONSUMERS
        .iter()
        .find(|c| c.dialect == dialect)
        .unwrap_or_else(|| panic!("no example programs of {dialect} in tests/conformance.rs"))
        .planted
}

fn python3() -> String {
    "python3".to_owned()
}

/// The Python of the Claude Agent SDK's environment (scripts/claude-sdks.sh).
fn claude_sdk_python() -> String {
    crate::claude_sdks::sdks().python.display().to_string()
}

/// The Python of the Codex SDKs' environment (scripts/codex-sdks.sh).
fn codex_sdk_python() -> String {
    crate::codex_sdks::python().display().to_string()
}

const CONSUMERS: &[Consumers] = &[
    Consumers {
        dialect: "cursor-print",
        interpreter: python3,
        careful: "careful.py",
        args: "hi",
        env: &[],
        timeout: 6,
        planted: &[
            ("ignores_exit.py", "/auth-required", "reports-failure"),
            ("hangs_without_result.py", "/eof@at-result", "ends"),
            ("fatal_non_json.py", "/noise@mid-stream", "no-crash"),
        ],
    },
    Consumers {
        dialect: "cursor-acp",
        interpreter: python3,
        careful: "acp_careful.py",
        args: "hi",
        env: &[],
        timeout: 20,
        planted: &[
            ("acp_never_answers.py", "default/clean", "answers-requests"),
            (
                "acp_error_as_success.py",
                "default/error@prompt",
                "reports-failure",
            ),
            ("acp_waits_forever.py", "default/crash@mid-turn", "ends"),
            (
                "acp_fatal_unknown.py",
                "default/unknown-update",
                "ignores-unknown",
            ),
        ],
    },
    Consumers {
        dialect: "claude",
        interpreter: claude_sdk_python,
        careful: "claude_careful.py",
        args: "hi",
        env: &[],
        timeout: 25,
        planted: &[
            ("claude_error_as_success.py", "/not-logged-in", "reports-failure"),
            ("claude_hangs.py", "/stall@result", "ends"),
            ("claude_never_answers.py", "/clean", "answers-requests"),
        ],
    },
    Consumers {
        dialect: "codex",
        interpreter: python3,
        careful: "codex_careful.py",
        args: "hi",
        env: &[],
        timeout: 10,
        planted: &[
            ("codex_error_as_success.py", "/turn-failed", "reports-failure"),
            ("codex_crashes_on_unknown.py", "/unknown-item", "ignores-unknown"),
            ("codex_silent_on_unreadable.py", "/malformed", "reports-success"),
        ],
    },
    Consumers {
        dialect: "gemini",
        interpreter: python3,
        careful: "gemini_careful.py",
        args: "{format}",
        env: &[("CONSUMER_TOTAL_TIMEOUT", "7")],
        timeout: 10,
        planted: &[
            ("gemini_error_as_success.py", "/empty-answer", "reports-failure"),
            ("gemini_kills_the_pid.py", "/relaunched-stall@result", "ends"),
            (
                "gemini_crashes_on_unknown.py",
                "/unknown-event",
                "ignores-unknown",
            ),
        ],
    },
    Consumers {
        dialect: "gemini-acp",
        interpreter: python3,
        careful: "gemini_acp_careful.py",
        args: "",
        env: &[("CONSUMER_IDLE_TIMEOUT", "8"), ("GEMINI_API_KEY", "k")],
        timeout: 30,
        planted: &[
            ("gemini_acp_never_answers.py", "default/clean", "answers-requests"),
            (
                "gemini_acp_error_as_success.py",
                "default/error@prompt",
                "reports-failure",
            ),
            (
                "gemini_acp_fatal_unknown.py",
                "default/unknown-update",
                "ignores-unknown",
            ),
        ],
    },
    Consumers {
        dialect: "codex-app-server",
        interpreter: codex_sdk_python,
        careful: "codex_sdk_careful.py",
        args: "hi",
        env: &[],
        // Its watchdog gives up at 10 s; then the SDK's `close()` (stdin closed,
        // SIGTERM, a wait, SIGKILL) and, on a loaded machine, the SDK's import take
        // more than 5 s: 15 s made the stalled case's `ends` a flake there.
        timeout: 30,
        planted: &[
            ("codex_sdk_error_as_success.py", "/turn-failed", "reports-failure"),
            ("codex_sdk_hangs.py", "/stall@turn-completed", "ends"),
            (
                "codex_sdk_crashes_on_unknown.py",
                "/unknown-item",
                "ignores-unknown",
            ),
            ("codex_sdk_never_answers.py", "/approval", "answers-requests"),
        ],
    },
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
        // Every fault acts on some source (print mode's `reorder` needs parallel tool
        // calls, which the built-in session has not).
        for (label, spec) in dialect.matrix_faults() {
            assert!(
                distinct.iter().any(|source| dialect.applies(source, &spec)),
                "{dialect}: `{label}` acts on no source of the matrix"
            );
        }
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
fn each_dialect_s_generated_sessions_are_its_own_lint_clean_and_replay() {
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
            // It replays as it was generated, to the client it was generated with.
            let recorded = played::Recorded::read(&path);
            let dir = installed(*dialect, &[("MOCK_AGENT_CASSETTE", &path)]);
            let home = tempfile::tempdir().expect("temp dir");
            let program = dir.path().join(dialect.programs()[0]);
            let what = format!("{dialect}: the session of seed {seed} replayed");
            let run = recorded.play(&what, command(&program, home.path()));
            assert_eq!(run, recorded.run, "{what}");
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
    // A table: each row's programs start in the same column, after the longest name.
    let starts: Vec<usize> = text
        .lines()
        .zip(dialects::ALL)
        .map(|(row, dialect)| {
            let after_name = dialect.name().len();
            after_name
                + row[after_name..]
                    .find(dialect.programs()[0])
                    .expect("the programs are listed")
        })
        .collect();
    assert!(
        starts.windows(2).all(|w| w[0] == w[1]),
        "the columns are aligned:\n{text}"
    );
}

/// A folder with the mock linked as each of `dialect`'s executables and these settings
/// in the file beside them (a recorder passes its child no `MOCK_AGENT_*` variable).
fn installed(dialect: &dyn Dialect, settings: &[(&str, &Path)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    for program in dialect.programs() {
        std::os::unix::fs::symlink(bin(), dir.path().join(program)).expect("links");
    }
    let lines: String = settings
        .iter()
        .map(|(name, value)| format!("{name}={}\n", value.display()))
        .collect();
    let file = dir.path().join(harness::journal::settings::FILE_NAME);
    std::fs::write(file, lines).expect("writes the settings");
    dir
}

/// `program` run in a home of its own (what a CLI keeps between runs goes there).
fn command(program: &Path, home: &Path) -> Command {
    let mut command = Command::new(program);
    harness::run::child::without_mock_env(&mut command);
    command.current_dir(home).env("HOME", home);
    command
}

/// Every curated cassette of every dialect, with its dialect (not the bare captures of
/// a stream: they hold no invocation to play them with).
fn every_curated() -> Vec<(&'static dyn Dialect, PathBuf)> {
    dialects::ALL
        .iter()
        .flat_map(|dialect| {
            Matrix::cassettes_in(&curated(*dialect))
                .expect("lists the cassettes")
                .into_iter()
                .filter(|path| path.extension().is_some_and(|e| e == "cassette"))
                .map(move |path| (*dialect, path))
        })
        .collect()
}

/// Replay is lossless: each curated cassette, played by the mock as its dialect's CLI
/// to a client that sends what the recorded one sent, gives back every line the CLI
/// wrote, byte for byte, its stderr and its ending.
#[test]
fn each_dialect_s_curated_cassettes_replay_as_recorded() {
    for (dialect, path) in every_curated() {
        let recorded = played::Recorded::read(&path);
        let dir = installed(dialect, &[("MOCK_AGENT_CASSETTE", &path)]);
        let home = tempfile::tempdir().expect("temp dir");
        let program = dir.path().join(dialect.programs()[0]);
        let what = format!("{dialect}: {} replayed", path.display());
        let run = recorded.play(&what, command(&program, home.path()));
        assert_eq!(run, recorded.run, "{what}");
    }
}

/// Record then replay: recording the mock while it replays a curated cassette, to the
/// same client, makes a cassette of the same run, claimed by the dialect and lint
/// clean; and that recording replays as it was recorded.
#[test]
fn each_dialect_s_recording_of_a_replay_is_the_same_run() {
    for (dialect, path) in every_curated() {
        let recorded = played::Recorded::read(&path);
        let dir = installed(dialect, &[("MOCK_AGENT_CASSETTE", &path)]);
        let home = tempfile::tempdir().expect("temp dir");
        let again = home.path().join("again.cassette");
        let program = dir.path().join(dialect.programs()[0]);
        let mut record = command(&bin(), home.path());
        record
            .arg("record")
            .arg("--out")
            .arg(&again)
            .arg("--")
            .arg(&program);
        let what = format!("{dialect}: {} through record", path.display());
        let run = recorded.play(&what, record);
        assert_eq!(run, recorded.run, "{what}");
        let rerecorded = played::Recorded::read(&again);
        assert_eq!(
            rerecorded.run,
            recorded.run,
            "{dialect}: the recording of {}",
            path.display()
        );
        let reader = harness::cassette::open(&again).expect("opens");
        assert_eq!(
            dialects::of_header(reader.header()),
            dialect,
            "{}",
            path.display()
        );
        let report = dialects::check_file(&again).expect("checks");
        assert!(report.passes(), "{dialect}: {:?}", report.findings);
        let dir = installed(dialect, &[("MOCK_AGENT_CASSETTE", &again)]);
        let program = dir.path().join(dialect.programs()[0]);
        let what = format!("{dialect}: the recording of {} replayed", path.display());
        let replayed = rerecorded.play(&what, command(&program, home.path()));
        assert_eq!(replayed, recorded.run, "{what}");
    }
}

/// `mock-agent test --dialect NAME` with the example program `script` of `consumers`,
/// in a home of its own: its exit code and report.
fn test_with(consumers: &Consumers, script: &str, extra: &[&str]) -> (Option<i32>, String) {
    let home = tempfile::tempdir().expect("temp dir");
    let env: String = consumers.env.iter().map(|(k, v)| format!("{k}={v} ")).collect();
    let consumer = format!(
        "CONSUMER_IDLE_TIMEOUT=3 {env}{} {} {}",
        (consumers.interpreter)(),
        root().join("tests/consumers").join(script).display(),
        consumers.args
    );
    let timeout = consumers.timeout.to_string();
    let out = command(&bin(), home.path())
        .args(["test", "--dialect", consumers.dialect, "--consumer", &consumer])
        .args(["--timeout", &timeout])
        .args(extra)
        .output()
        .expect("runs");
    let report = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.code(), report)
}

/// The careful program of each dialect passes every case of its matrix (run by the
/// library's runner, as a Rust test author runs it), and a fault that ends the
/// process ends it as it says (the agent's journal); each planted bug is caught by its
/// property, through `mock-agent test` as a user runs it.
#[test]
fn each_dialect_s_careful_program_passes_faults_end_as_said_and_planted_bugs_are_caught() {
    use harness::journal::ExitRecord;
    use harness::run::{report, Consumer, MockBinary, Runner};
    for dialect in dialects::ALL {
        let Some(consumers) = CONSUMERS.iter().find(|c| c.dialect == dialect.name()) else {
            panic!("{dialect}: no example programs listed in tests/conformance.rs (write a careful one and planted bugs, then add them to CONSUMERS)");
        };
        let home = tempfile::tempdir().expect("temp dir");
        let mut careful = Consumer::new(format!(
            "{} {} {}",
            (consumers.interpreter)(),
            root().join("tests/consumers").join(consumers.careful).display(),
            consumers.args
        ))
        .timeout(std::time::Duration::from_secs(consumers.timeout))
        .env("CONSUMER_IDLE_TIMEOUT", "3")
        .env("HOME", home.path().to_str().expect("utf-8"));
        for (name, value) in consumers.env {
            careful = careful.env(*name, *value);
        }
        let cases = Matrix::of(*dialect, Vec::new())
            .cases(false)
            .unwrap_or_else(|e| panic!("{dialect}: the matrix: {e}"));
        let results = Runner::new(&careful, &MockBinary::new(bin()))
            .jobs(2)
            .run_all(&cases, |_| {})
            .expect("runs");
        let mut wrong = Vec::new();
        for result in &results {
            let name = &result.case.name;
            let inert = INERT
                .iter()
                .any(|(d, case, _)| *d == dialect.name() && case == name);
            // A case whose faults the program never meets is not applicable, not passed.
            if !(result.passed() || inert && result.not_applicable.is_some()) {
                wrong.push(report::record(result));
            }
            if result.case.faults.is_empty() {
                continue;
            }
            let journal = &result.outcome.journal;
            // Each fault of the case acts: the case plays what its name says (unless
            // the consumer ended the run first: closed its end, or killed the agent).
            for entry in journal
                .iter()
                .filter(|e| !inert && !e.stdout_closed && e.signal.is_none())
            {
                let idle: Vec<&str> = entry
                    .faults
                    .iter()
                    .filter(|f| !f.fired)
                    .map(|f| f.name.as_str())
                    .collect();
                if !idle.is_empty() && !matches!(entry.exit, ExitRecord::Signal(_)) {
                    wrong.push(format!(
                        "{name}: `{}` never acted ({}), the run ended {:?}",
                        result.case.faults,
                        idle.join(", "),
                        entry.exit
                    ));
                }
            }
            // A fault that ends the process ends it as it says.
            for fault in result.case.faults.split(';') {
                let (kind, args) = fault.split_once(':').unwrap_or((fault, ""));
                let arg = |key: &str| {
                    args.split(',')
                        .find_map(|kv| kv.strip_prefix(key)?.strip_prefix('=').map(str::to_owned))
                };
                let ended = match (kind, arg("code"), arg("name")) {
                    ("exit", Some(code), _) => Some(ExitRecord::Code(code.parse().expect("a code"))),
                    ("signal", _, Some(signal)) => Some(ExitRecord::Signal(signal)),
                    _ => None,
                };
                // (A journal is written at the end: none when the consumer killed the
                // agent outright, as a careful one does when it stalls for ever.)
                if let Some(ended) = ended.filter(|_| !journal.is_empty()) {
                    if !journal.iter().any(|entry| entry.exit == ended) {
                        let exits: Vec<_> = journal.iter().map(|e| &e.exit).collect();
                        wrong.push(format!("{name}: `{fault}`, but the agent ended {exits:?}"));
                    }
                }
            }
        }
        assert!(wrong.is_empty(), "{dialect}:\n{}", wrong.join("\n\n"));
        for (script, filter, property) in consumers.planted {
            let (code, report) = test_with(consumers, script, &["--filter", filter]);
            assert_eq!(
                code,
                Some(harness::exit_codes::CASES_FAILED),
                "{dialect}: {script} on {filter}:\n{report}"
            );
            assert!(
                report.contains(&format!(" breaks {property}")),
                "{dialect}: {script} on {filter} is not caught by {property}:\n{report}"
            );
        }
    }
}
