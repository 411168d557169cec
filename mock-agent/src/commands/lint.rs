//! `mock-agent lint`.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use clap::Args;
use harness::check::Report;
use harness::dialects::check_file_with;
use harness::error::CassetteError;
use harness::exit_codes;
use harness::frames::Exit;
use harness::run::Matrix;

/// `mock-agent lint`'s arguments.
#[derive(Args)]
pub(super) struct LintArgs {
    /// The cassettes (`.cassette`) and captures (`.ndjson`) to check, or directories:
    /// a directory's `*.cassette` and `*.ndjson` files are checked in name order (its
    /// subdirectories are not). A cassette of `cursor-agent acp` (`"acp":true` in its
    /// header) is checked against the Agent Client Protocol, in both directions.
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<PathBuf>,
    /// Warn about cassettes recorded with a CLI older than this (e.g. `2026.10.01`).
    #[arg(long, value_name = "VERSION")]
    max_age: Option<String>,
}

/// `mock-agent lint`: one line per finding, `FILE:LINE: severity: message [rule]`
/// (severity `error`, `warning` or `note`); past the first few findings of a rule in
/// a file, one `FILE: ... and N more [rule]` line; then a summary per file. Only
/// errors fail (exit 1). A closed stdout ends it quietly.
pub(super) fn lint(args: &LintArgs) -> Result<Exit, super::Error> {
    let mut out = io::stdout().lock();
    match lint_to(&mut out, args).and_then(|code| out.flush().map(|()| code)) {
        Ok(code) => Ok(Exit::Code(code)),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(Exit::Code(exit_codes::OK)),
        Err(e) => Err(super::Error::Stdout(e)),
    }
}

/// Lints every file `args` names, writing to `out`; the exit code, or why `out`
/// failed.
fn lint_to(out: &mut impl Write, args: &LintArgs) -> io::Result<i32> {
    let mut code = exit_codes::OK;
    for path in &args.paths {
        let files = match files_of(path) {
            Ok(files) => files,
            Err(message) => {
                eprintln!("mock-agent: {message}");
                code = exit_codes::NO_INPUT;
                continue;
            }
        };
        for file in files {
            match check_file_with(&file, args.max_age.as_deref()) {
                Ok(report) => {
                    print_report(out, &file, &report)?;
                    if !report.passes() && code == exit_codes::OK {
                        code = exit_codes::AGENT_ERROR;
                    }
                }
                Err(e) => {
                    report_error(&e);
                    code = e.exit_code();
                }
            }
        }
    }
    Ok(code)
}

/// The files a path names: itself, or a directory's cassettes and captures, sorted.
fn files_of(path: &Path) -> Result<Vec<PathBuf>, String> {
    if !path.is_dir() {
        return Ok(vec![path.to_owned()]);
    }
    let files = Matrix::cassettes_in(path)
        .map_err(|e| format!("{}: cannot read the directory: {e}", path.display()))?;
    if files.is_empty() {
        return Err(format!(
            "{}: the directory has no `.cassette` or `.ndjson` file to lint\n\
             help: lint takes cassettes (`.cassette`), captures (`.ndjson`), and directories that hold them",
            path.display()
        ));
    }
    Ok(files)
}

/// A file that cannot be checked, as a `mock-agent:` error; one that cannot be opened
/// with lint's own help.
fn report_error(e: &CassetteError) {
    match e {
        CassetteError::Open { path, source } => eprintln!(
            "mock-agent: {}: cannot open: {source}\n\
             help: lint takes cassettes (`.cassette`), captures (`.ndjson`), and directories that hold them",
            path.display()
        ),
        e => eprintln!("mock-agent: {e}"),
    }
}

fn print_report(out: &mut impl Write, path: &Path, report: &Report) -> io::Result<()> {
    let path = path.display();
    for finding in &report.findings {
        match finding.line {
            0 => writeln!(out, "{path}: {finding}")?,
            line => writeln!(out, "{path}:{line}: {finding}")?,
        }
    }
    for elided in &report.elided {
        writeln!(out, "{path}: {elided}")?;
    }
    writeln!(out, "{path}: {}", report.summary())
}
