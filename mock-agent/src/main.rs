//! `mock-agent`: a stand-in for the `cursor-agent` CLI.
//!
//! Everything is in the `mock_agent` library; this only hands it the arguments and
//! ends the process the way it says (an exit code, or death by a signal).

fn main() {
    let argv: Vec<String> = std::env::args_os()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    mock_agent::process::terminate(mock_agent::main(&argv))
}
