//! The errors of the mock's own subcommands, each with its exit code. They are
//! returned to [`crate::main`], which reports them (`mock-agent: ` and the error with
//! its causes, each said once) and ends with the code.

use std::path::PathBuf;

use harness::exit_codes;

/// Why a subcommand of the mock's own failed (not the consumer's failure, nor the
/// emulated agent's).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A wrong command line: what is wrong, and how to fix it.
    #[error("{0}")]
    Usage(String),
    /// A bad `--fault` or `--timing` value.
    #[error(transparent)]
    Spec(#[from] harness::Diagnostic),
    /// A cassette or capture cannot be read.
    #[error(transparent)]
    Cassette(#[from] harness::CassetteError),
    /// A cassette cannot be written.
    #[error(transparent)]
    Write(#[from] harness::error::WriteError),
    /// The journal cannot be read.
    #[error(transparent)]
    Journal(#[from] harness::journal::JournalError),
    /// The recorder failed.
    #[error(transparent)]
    Record(#[from] crate::record::RecordError),
    /// A case cannot be run.
    #[error(transparent)]
    Run(#[from] harness::run::RunError),
    /// A matrix cannot be run.
    #[error(transparent)]
    Matrix(#[from] harness::run::MatrixError),
    /// A file the command writes (a snapshot, the JUnit report) cannot be written.
    #[error("{}: cannot write the {what}", path.display())]
    CannotWrite {
        /// The file or directory.
        path: PathBuf,
        /// What it is.
        what: &'static str,
        /// Why.
        source: std::io::Error,
    },
    /// A directory of inputs cannot be read.
    #[error("{}: cannot list the {what}", path.display())]
    CannotList {
        /// The directory.
        path: PathBuf,
        /// What is listed.
        what: &'static str,
        /// Why.
        source: std::io::Error,
    },
    /// A file the command reads (a consumer's saved output) cannot be read.
    #[error("{}: cannot read the {what}", path.display())]
    CannotRead {
        /// The file.
        path: PathBuf,
        /// What it is.
        what: &'static str,
        /// Why.
        source: std::io::Error,
    },
    /// Writing to stdout failed (other than a closed pipe, which is a quiet end).
    #[error("cannot write to stdout")]
    Stdout(#[source] std::io::Error),
    /// A drift run could not be made.
    #[error(transparent)]
    Drift(#[from] crate::drift::DriftError),
    /// The mock cannot find its own binary, to serve as the agent.
    #[error("cannot find its own binary to serve as the agent")]
    OwnBinary(#[source] std::io::Error),
}

impl From<crate::dialects::PlayError> for Error {
    fn from(e: crate::dialects::PlayError) -> Self {
        match e {
            crate::dialects::PlayError::Spec(e) => Error::Spec(e),
            crate::dialects::PlayError::Write(e) => Error::Write(e),
            crate::dialects::PlayError::Stdout(e) => Error::Stdout(e),
        }
    }
}

impl Error {
    /// The exit code the process ends with (see [`harness::exit_codes`]).
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Usage(_) | Error::Spec(_) => exit_codes::USAGE,
            Error::Cassette(e) => e.exit_code(),
            Error::Write(e) => e.exit_code(),
            Error::Journal(_) => exit_codes::NO_INPUT,
            Error::Record(e) => e.exit_code(),
            Error::Run(e) => e.exit_code(),
            Error::Matrix(e) => e.exit_code(),
            Error::CannotWrite { .. } => exit_codes::CANNOT_CREATE,
            Error::CannotList { .. } | Error::CannotRead { .. } => exit_codes::NO_INPUT,
            Error::Stdout(_) => exit_codes::IO_ERROR,
            Error::OwnBinary(_) => exit_codes::INTERNAL,
            Error::Drift(crate::drift::DriftError::Scenario { .. }) => exit_codes::INTERNAL,
            Error::Drift(_) => exit_codes::IO_ERROR,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_cause_is_said_once() {
        let e = Error::CannotWrite {
            path: "out/report.xml".into(),
            what: "JUnit report",
            source: std::io::Error::new(std::io::ErrorKind::PermissionDenied, "Permission denied"),
        };
        assert_eq!(
            harness::error::report(&e),
            "out/report.xml: cannot write the JUnit report: Permission denied"
        );
        assert_eq!(e.exit_code(), exit_codes::CANNOT_CREATE);
    }
}
