//! `mock-agent model-api`: a scripted model API from the command line.

use std::path::PathBuf;

use harness::exit_codes;
use harness::frames::Exit;

use super::scenario::{Scenario, ScenarioError};
use super::server::{run_blocking, ServerOptions};
use super::Api;

/// `mock-agent model-api`'s arguments.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The API to serve: anthropic (Messages API, Claude Code), openai (Responses API,
    /// Codex), google (Gemini API, Gemini CLI).
    #[arg(long, value_enum)]
    pub api: Api,
    /// What it answers, request after request (JSON; see the scenario format in
    /// docs/model-api.md). Without one: a text and a shell call of `echo hello`, then a final
    /// text once the tool's result is back.
    #[arg(long, value_name = "FILE")]
    pub scenario: Option<PathBuf>,
    /// The port on 127.0.0.1 (0: any free one; the base URL printed says which).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub port: u16,
    /// Append each request as a JSON line to this file instead of stderr.
    #[arg(long, value_name = "FILE")]
    pub log: Option<PathBuf>,
}

/// Serves the API: prints its base URL as the first line of stdout, logs each
/// request, and serves until killed, or until stdin ends when stdin is a pipe. A bad
/// scenario or a port that cannot be had ends it at once with the mock's own error.
pub fn command(args: &Args) -> Exit {
    let scenario = match &args.scenario {
        Some(path) => match Scenario::read(path) {
            Ok(scenario) => scenario,
            Err(e) => {
                eprintln!("mock-agent: {}", harness::error::report(&e));
                return Exit::Code(match e {
                    ScenarioError::Read { .. } => exit_codes::NO_INPUT,
                    _ => exit_codes::INVALID_INPUT,
                });
            }
        },
        None => Scenario::builtin(),
    };
    let options = ServerOptions {
        port: args.port,
        log: args.log.clone(),
        log_stderr: args.log.is_none(),
        keep: false,
    };
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    // Kept, never sent, when stdin is not a pipe: the server runs until it is killed.
    let mut _unsent = None;
    if stdin_is_pipe() {
        std::thread::spawn(move || {
            let _ = std::io::copy(&mut std::io::stdin().lock(), &mut std::io::sink());
            let _ = stop.send(());
        });
    } else {
        _unsent = Some(stop);
    }
    let served = run_blocking(
        args.api,
        scenario,
        &options,
        |url| {
            if let Err(e) = crate::process::print(&format!("{url}\n")) {
                eprintln!("mock-agent: model-api: cannot write the base URL to stdout: {e}");
            }
        },
        async {
            let _ = stopped.await;
        },
    );
    match served {
        Ok(()) => Exit::Code(exit_codes::OK),
        Err(e) => {
            let log = args
                .log
                .as_ref()
                .map(|p| format!(" (or open the log {})", p.display()))
                .unwrap_or_default();
            eprintln!(
                "mock-agent: model-api: cannot listen on 127.0.0.1:{}{log}: {e}",
                args.port
            );
            Exit::Code(exit_codes::IO_ERROR)
        }
    }
}

/// Whether stdin is a pipe (a terminal, `/dev/null` or a closed stdin never ends the
/// server: a background job's stdin is `/dev/null`).
fn stdin_is_pipe() -> bool {
    nix::sys::stat::fstat(std::io::stdin())
        .map(|st| st.st_mode & nix::libc::S_IFMT == nix::libc::S_IFIFO)
        .unwrap_or(false)
}
