//! The end of every stand-in's run: how it ended kept in its journal entry, and the
//! entry appended to the journal the settings name.

use harness::frames::Exit;
use harness::journal::{self, Entry, Spooled};

use super::now_ms;
use crate::settings::Settings;

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
