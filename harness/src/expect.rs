//! What a correct consumer concludes from a run: every dialect's cases say it in
//! these words, and the runner's properties hold the consumer to it.

/// What a correct consumer concludes from a case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expectation {
    /// The run succeeded with this answer.
    Success {
        /// The answer (print mode's `result.result`; each dialect's final text).
        answer: String,
    },
    /// The run failed (or hangs: then the consumer must give up and say so).
    Failure,
}

/// What the name of a case ends with when only a misbehaving agent makes its run (an
/// ending the real CLI never makes, asked for with `exit:code=0`).
pub const MISBEHAVING: &str = "+misbehaving-agent";
