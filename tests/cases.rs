//! The project's example consumers, one test per case (`harness::run::trials`): a test
//! target of its own (`harness = false`), not a module of the e2e suite, so that
//! `cargo nextest run -p mock-agent --test cases` lists, filters, retries and partitions
//! the cases one by one (`--partition count:1/4`), and
//! `cargo test -p mock-agent --test cases -- print/default/eof` runs a few.
//!
//! The careful consumers, `tests/consumers/careful.py` in print mode (trials
//! `print/...`) and `tests/consumers/acp_careful.py` over ACP (`acp/...`), against:
//!
//! - the default session with every fault of its mode's matrix (40 and 27 cases);
//! - each curated cassette (`cassettes/`, `cassettes/acp/`) with [`PRINT_FAULTS`] or
//!   [`ACP_FAULTS`]: a clean run, and the faults whose placement depends on the
//!   recording (a line cut where that session has one, a crash or a kill mid-stream,
//!   a tool call repeated or an error answering its prompt). The rest of the matrix
//!   on every cassette is ten times as many cases, mostly the default session's again:
//!   the e2e suite's `consumers` and `acp_consumers` run those faults, and the rest
//!   fit this target in a minute on two cores.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use harness::run::trials::{self, Trial, Trials};
use harness::run::{Consumer, Matrix, MockBinary, Runner};

/// The print-mode faults run on each curated cassette.
const PRINT_FAULTS: &[&str] = &[
    "clean",
    "eof@mid-line",
    "signal-kill@mid-stream",
    "duplicate@tool-call",
];

/// The ACP faults run on each curated ACP cassette.
const ACP_FAULTS: &[&str] = &["clean", "eof@mid-line", "crash@mid-turn", "error@prompt"];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace")
        .to_owned()
}

/// An example consumer in `tests/consumers/`.
fn consumer(script: &str, timeout: u64) -> Consumer {
    let path = root().join("tests/consumers").join(script);
    Consumer::new(format!("python3 {}", path.display()))
        .timeout(Duration::from_secs(timeout))
        // The careful consumers give up on an agent silent this long (the matrix's
        // finite stall is 2 s).
        .env("CONSUMER_IDLE_TIMEOUT", "3")
}

/// The trials of `matrix` over the default session, and of the cassettes in `dir`
/// with only `faults`.
fn trials(runner: &Runner<'_>, prefix: &str, matrix: Matrix, dir: &str, faults: &[&str]) -> Vec<Trial> {
    let trials = Trials::new(runner).prefix(prefix);
    let mut all = trials.of(&matrix).expect("the default session's matrix");
    let mut cassettes = matrix;
    cassettes.default_session = false;
    cassettes.cassettes = Matrix::cassettes_in(&root().join(dir)).expect("the curated cassettes");
    cassettes
        .faults
        .retain(|(label, _)| faults.contains(&label.as_str()));
    assert_eq!(
        cassettes.faults.len(),
        faults.len(),
        "{faults:?} are faults of the matrix"
    );
    all.extend(trials.of(&cassettes).expect("the cassettes' matrix"));
    all
}

fn main() -> ExitCode {
    let mock = MockBinary::new(env!("CARGO_BIN_EXE_mock-agent"));
    let (print, acp) = (consumer("careful.py", 6), consumer("acp_careful.py", 20));
    let mut all = trials(
        &Runner::new(&print, &mock),
        "print",
        Matrix::standard(Vec::new()),
        "cassettes",
        PRINT_FAULTS,
    );
    all.extend(trials(
        &Runner::new(&acp, &mock),
        "acp",
        Matrix::acp(Vec::new()),
        "cassettes/acp",
        ACP_FAULTS,
    ));
    trials::main(all)
}
