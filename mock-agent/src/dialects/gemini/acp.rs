//! `gemini --acp` (and `--experimental-acp`): the hook the ACP half of Gemini CLI's
//! stand-in plugs into. The headless stand-in does not serve ACP: until the ACP
//! machinery's Gemini agent profile replaces the body of [`run`], it is the mock's own
//! error.

use harness::dialects::gemini::args::Args;
use harness::frames::Exit;

/// The mock's own words for `gemini --acp`, which this stand-in does not serve.
pub const NOT_YET: &str = "mock-agent: gemini --acp is not served by the headless stand-in; it plays `gemini -p` (-o text|json|stream-json) and `gemini --version`";

/// Runs `gemini --acp` with `args` (read from `argv`, the arguments after the
/// program). The ACP half replaces this body.
pub fn run(args: &Args, argv: &[String]) -> Exit {
    let _ = (args, argv);
    eprintln!("{NOT_YET}");
    Exit::Code(harness::exit_codes::USAGE)
}
