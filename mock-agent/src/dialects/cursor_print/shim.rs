//! The shim's record modes: replay from a cassette library, or run the real CLI (and
//! record it), as `MOCK_AGENT_RECORD` says (see [`crate::dialects::cursor_print::library`]).

use harness::exit_codes;
use harness::frames::Exit;
use harness::journal::{self, Entry};
use harness::source::Source;

use super::{replay, scenario};
use crate::dialects::cursor_print::args::AgentArgs;
use crate::settings::Settings;

/// The shim's record modes: replay from the library, or run the real CLI (and record
/// it), as `mode` says (see [`crate::dialects::cursor_print::library`]); a conversation played from the
/// library journals to `spooled`.
pub(super) fn shim(
    mode: crate::settings::RecordMode,
    (args, server): (&AgentArgs, &'static harness::acp::profile::Profile),
    prompt: &str,
    stdin: Option<String>,
    settings: &Settings,
    entry: &mut Entry,
    spooled: &mut Option<journal::Spooled>,
) -> Exit {
    let argv = &entry.argv.clone()[..];
    use crate::dialects::cursor_print::library::{self, Found, Key};
    use crate::settings::RecordMode;
    let fail = |entry: &mut Entry, message: String, code: i32| {
        eprintln!("mock-agent: {message}");
        entry.error = Some(message);
        Exit::Code(code)
    };
    let Some(dir) = settings.library.clone() else {
        let message = "MOCK_AGENT_RECORD needs a library: set MOCK_AGENT_LIBRARY=DIR".to_owned();
        return fail(entry, message, exit_codes::USAGE);
    };
    let real = || settings.real.clone().map(|r| r.display().to_string());
    let stdin_bytes = stdin.map(String::into_bytes);
    if mode == RecordMode::Passthrough {
        let Some(real) = real() else {
            let message =
                "MOCK_AGENT_RECORD=passthrough runs the real CLI: set MOCK_AGENT_REAL=PATH".to_owned();
            return fail(entry, message, exit_codes::USAGE);
        };
        entry.source = Some(format!("passthrough:{real}"));
        let command: Vec<String> = std::iter::once(real).chain(argv.iter().cloned()).collect();
        return match crate::record::passthrough(&command, stdin_bytes) {
            Ok(exit) => exit,
            Err(e) => fail(entry, e.to_string(), e.exit_code()),
        };
    }
    let entries = library::entries(&dir, &settings.match_on);
    let cwd = entry.cwd.clone().unwrap_or_default();
    let key = Key::of(args, argv, prompt, &cwd, &settings.match_on);
    let journal = settings
        .journal
        .as_deref()
        .and_then(|p| journal::read(p).ok())
        .unwrap_or_default();
    let found = library::find(&entries, &key, &journal, settings.playback_repeats);
    let record = match (mode, &found) {
        (RecordMode::All, _) => true,
        (_, Found::Play(_)) => false,
        (RecordMode::None, Found::Miss) => {
            let message = format!(
                "{} (MOCK_AGENT_RECORD=none replays only)\nhelp: record it with MOCK_AGENT_RECORD=once and MOCK_AGENT_REAL, or change MOCK_AGENT_MATCH_ON",
                library::miss_message(&dir, &entries, &key)
            );
            return fail(entry, message, exit_codes::NO_INPUT);
        }
        (RecordMode::None | RecordMode::Once, Found::UsedUp(n)) => {
            let message = format!(
                "the {n} cassette(s) in {} for this invocation were all played\nhelp: set MOCK_AGENT_PLAYBACK_REPEATS=1 to replay the last again, or record more with MOCK_AGENT_RECORD=new_episodes",
                dir.display()
            );
            return fail(entry, message, exit_codes::NO_INPUT);
        }
        _ => true,
    };
    if !record {
        let Found::Play(path) = found else {
            return fail(
                entry,
                "no cassette to play (a bug in mock-agent)".into(),
                exit_codes::INTERNAL,
            );
        };
        let source = Source::Cassette(path);
        if args.command == Some(crate::dialects::cursor_print::args::Command::Acp) {
            return super::acp(&source, server, settings, entry, spooled);
        }
        let scenario = scenario(args, settings, entry.started_at_ms);
        entry.source = Some(source.describe());
        let replayed = replay(&source, prompt, &scenario, settings.journal.is_some());
        entry.stdout_closed = replayed.stdout_closed_at.is_some();
        entry.error = replayed.error;
        return replayed.exit;
    }
    let Some(real) = real() else {
        let message = format!(
            "{}; recording it needs the real CLI: set MOCK_AGENT_REAL=PATH",
            library::miss_message(&dir, &entries, &key)
        );
        return fail(entry, message, exit_codes::USAGE);
    };
    if let Err(e) = std::fs::create_dir_all(&dir) {
        return fail(
            entry,
            format!("{}: cannot create the library: {e}", dir.display()),
            exit_codes::CANNOT_CREATE,
        );
    }
    let path = library::new_path(&dir, &key, &entries);
    let mut options = crate::record::RecordOptions::new(path.clone());
    options.stdin = stdin_bytes;
    let command: Vec<String> = std::iter::once(real).chain(argv.iter().cloned()).collect();
    entry.source = Some(path.display().to_string());
    match crate::record::record(&command, &options, &super::record::Recording) {
        Ok(exit) => exit,
        Err(e) => fail(entry, e.to_string(), e.exit_code()),
    }
}
