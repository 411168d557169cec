//! An [`Outcome`] made from what a consumer left (its status, output and the mock's
//! journal) rather than watched by the runner: `mock-agent judge` and tests.

use std::path::PathBuf;
use std::time::Duration;

use super::{journal, Outcome, Status};

impl Outcome {
    /// The outcome of a consumer that ended with `status` having written `stdout` and
    /// `stderr`, the mock having journaled `journal`, run in `dir`: no time taken,
    /// nothing left running, no start records, no Python or Node.js note (what the
    /// runner alone observes).
    pub fn ended(
        status: Status,
        (stdout, stderr): (Vec<u8>, Vec<u8>),
        journal: Vec<journal::Entry>,
        dir: PathBuf,
    ) -> Outcome {
        Outcome {
            status,
            stdout,
            stderr,
            wall: Duration::ZERO,
            journal,
            starts: Vec::new(),
            left_running: false,
            left_processes: Vec::new(),
            left_agents: Vec::new(),
            python: None,
            node: None,
            dir,
        }
    }
}
