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

/// Asserts what a careful consumer concludes of a dialect's default session with each
/// fault list, as `expect` works it out from the list: with none, a success with
/// `answer`; a failure with each of `failures`; a success (whatever its answer) with
/// each of `harmless`, the faults that leave the run as it was.
#[cfg(test)]
#[track_caller]
pub(crate) fn assert_concludes<'a>(
    expect: impl Fn(&str) -> Expectation,
    answer: &str,
    failures: impl IntoIterator<Item = &'a str>,
    harmless: &[&str],
) {
    let answer = answer.to_owned();
    assert_eq!(expect(""), Expectation::Success { answer });
    for spec in failures {
        assert_eq!(expect(spec), Expectation::Failure, "{spec}");
    }
    for spec in harmless {
        assert!(matches!(expect(spec), Expectation::Success { .. }), "{spec}");
    }
}
