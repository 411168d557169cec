//! `mock-agent lint`.

use std::path::PathBuf;

use harness::exit_codes;
use harness::frames::Exit;

/// `mock-agent lint`: one line per finding, `FILE:LINE: severity: message [rule]`, and a
/// summary per file.
pub(super) fn lint(files: &[PathBuf], max_age: Option<&str>) -> Exit {
    use harness::check::{check_file_with, Severity};
    let mut code = exit_codes::OK;
    for path in files {
        match check_file_with(path, max_age) {
            Ok(report) => {
                for finding in &report.findings {
                    match finding.line {
                        0 => println!("{}: {finding}", path.display()),
                        line => println!("{}:{line}: {finding}", path.display()),
                    }
                }
                let (errors, warnings) = (report.count(Severity::Error), report.count(Severity::Warning));
                println!("{}: {errors} error(s), {warnings} warning(s)", path.display());
                if errors > 0 && code == exit_codes::OK {
                    code = exit_codes::AGENT_ERROR;
                }
            }
            Err(e) => {
                eprintln!("mock-agent: {e}");
                code = e.exit_code();
            }
        }
    }
    Exit::Code(code)
}
