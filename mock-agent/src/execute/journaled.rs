//! The end of every stand-in's run: how it ended kept in its journal entry, and the
//! entry appended to the journal the settings name.

use harness::frames::Exit;
use harness::journal::{self, Entry, Spooled};

use super::{now_ms, Stop};
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

/// What the faults of a run did, as its journal entry keeps it: `report`, each fault's
/// name and whether it acted, in the order the injector reports them.
pub fn fault_records<'a>(report: impl IntoIterator<Item = (&'a str, bool)>) -> Vec<journal::FaultRecord> {
    report
        .into_iter()
        .map(|(name, fired)| journal::FaultRecord {
            name: name.to_owned(),
            fired,
        })
        .collect()
}

/// Keeps in `entry` what the faults of a conversation did (`report`, as
/// [`fault_records`] reads it) and whether and when (`closed`, since the run started)
/// the client closed stdout.
pub fn keep_faults_and_close<'a>(
    entry: &mut Entry,
    report: impl IntoIterator<Item = (&'a str, bool)>,
    closed: Option<std::time::Duration>,
) {
    entry.faults = fault_records(report);
    entry.stdout_closed = closed.is_some();
    entry.stdout_closed_at_ms = closed.map(|at| u64::try_from(at.as_millis()).unwrap_or(u64::MAX));
}

/// How the process ends after a conversation that `ended` so, kept in `entry`: as it
/// ended, by the signal that came (kept), or with the mock's own error (said on stderr,
/// kept) and its exit code.
pub fn stopped(entry: &mut Entry, ended: Result<Exit, Stop>) -> Exit {
    match ended {
        Ok(exit) => exit,
        Err(Stop::Signal(signal)) => {
            entry.signal = Some(signal.name().to_owned());
            Exit::Signal(signal)
        }
        Err(Stop::Error(e)) => {
            eprintln!("mock-agent: {e}");
            entry.error = Some(e.to_string());
            Exit::Code(e.exit_code())
        }
    }
}
