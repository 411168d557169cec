//! The end of every stand-in's run: how it ended kept in its journal entry, and the
//! entry appended to the journal the settings name.

use harness::frames::Exit;
use harness::journal::{self, Entry, Spooled};

use super::now_ms;
use crate::settings::Settings;

/// Runs a stand-in with `argv` (its arguments, without the program): its settings
/// and journal entry begun (or the process ends as that says), `body` run with them
/// (it may keep a conversation spooled on disk as it passes), then the run ended as
/// [`end_run`] ends it.
pub fn run(argv: &[String], body: impl FnOnce(&Settings, &mut Entry, &mut Option<Spooled>) -> Exit) -> Exit {
    let (settings, mut entry) = match crate::settings::begin(argv, now_ms()) {
        Ok(begun) => begun,
        Err(exit) => return exit,
    };
    let mut spooled = None;
    let exit = body(&settings, &mut entry, &mut spooled);
    end_run(&settings, &mut entry, spooled, exit)
}

/// Keeps `exit` and the time in `entry` and appends it to the journal `settings` name
/// (with the conversation `spooled` on disk as it passed, if any). Returns how the
/// process ends: `exit`, or the mock's own error when the journal cannot be written.
pub fn end_run(settings: &Settings, entry: &mut Entry, spooled: Option<Spooled>, exit: Exit) -> Exit {
    entry.exit = exit.into();
    entry.ended_at_ms = now_ms();
    if let Some(path) = &settings.journal {
        let appended = match spooled {
            Some(spooled) => journal::append_spooled(path, entry, spooled),
            None => journal::append(path, entry),
        };
        if let Err(e) = appended {
            eprintln!("mock-agent: {e}");
            return Exit::Code(e.exit_code());
        }
    }
    exit
}
