//! A stand-in's one-way run (its frames planned before they are written, no client
//! listened to): performed on this process's stdout and stderr as the
//! settings say (timing, step mode, seed; SIGTERM and SIGINT heard), and what it did
//! kept in the run's journal entry.

use harness::exit_codes;
use harness::frames::{Delivery, Exit, Frames};
use harness::journal::{Entry, FaultRecord};
use harness::timing::Timing;

use super::{block_on, perform, ExecOptions, Handoff, Performed, Threaded};
use crate::process::Interrupts;
use crate::settings::Settings;

/// The mock's own error: said on stderr, kept in the journal; the process ends with
/// `code`.
pub fn own_error(entry: &mut Entry, message: String, code: i32) -> Exit {
    eprintln!("mock-agent: {message}");
    entry.error = Some(message);
    Exit::Code(code)
}

/// The session a one-way stand-in plays, noted in `entry.source`: the recording
/// `settings` names (opened by `open`; its session, and it with its path), else the
/// session generated from `settings`' seed, else the default one. `Err`: how the
/// process ends (a recording that cannot be read, the mock's own error).
pub fn told<R, S>(
    settings: &Settings,
    entry: &mut Entry,
    open: impl FnOnce(&std::path::Path) -> Result<R, harness::error::CassetteError>,
    session_of: impl FnOnce(&R) -> S,
    generated: impl FnOnce(u64) -> S,
    default: impl FnOnce() -> S,
) -> Result<(S, Option<(R, std::path::PathBuf)>), Exit> {
    Ok(match (&settings.cassette, settings.generate) {
        (Some(path), _) => {
            entry.source = Some(path.display().to_string());
            let recording = open(path).map_err(|e| own_error(entry, e.to_string(), e.exit_code()))?;
            (session_of(&recording), Some((recording, path.clone())))
        }
        (None, Some(seed)) => {
            entry.source = Some(format!("generated:{seed}"));
            (generated(seed), None)
        }
        (None, None) => {
            entry.source = Some("default".to_owned());
            (default(), None)
        }
    })
}

/// Performs `frames` (timed as `settings` say) on stdout and stderr, and keeps in
/// `entry` what the faults did (`report`, asked once the run is over), whether and
/// when the consumer closed stdout, the signal that ended the run and the mock's own
/// error. `Err`: how the process ends when the run could not start.
pub fn perform_on_stdio(
    frames: Frames,
    settings: &Settings,
    entry: &mut Entry,
    report: impl FnOnce() -> Vec<(&'static str, bool)>,
) -> Result<Performed, Exit> {
    let frames = settings.timing.apply(frames, settings.seed);
    let mut delivery = Delivery::default();
    delivery.timed = settings.timing != Timing::default();
    delivery.signals = true;
    delivery.step.clone_from(&settings.step);
    delivery.seed = settings.seed;
    let options = ExecOptions {
        precise: true,
        ..ExecOptions::new(delivery)
    };
    let (out, err) = match super::std_streams() {
        Ok(streams) => streams,
        Err(e) => {
            return Err(own_error(
                entry,
                format!("cannot open stdout or stderr: {e}"),
                exit_codes::IO_ERROR,
            ))
        }
    };
    let performed = block_on(
        perform(frames, Handoff::new(out), Threaded::new(err), &options),
        true,
    );
    let performed = match performed {
        Ok(performed) => performed,
        Err(e) => {
            return Err(own_error(
                entry,
                format!("cannot start the runtime: {e}"),
                exit_codes::INTERNAL,
            ))
        }
    };
    Ok(kept(performed, entry, report))
}

/// [`perform_on_stdio`] for a plan that waits for nothing (no timing, no step mode:
/// [`super::blocking`]), as a copy is performed: with blocking writes on this thread
/// and no runtime ([`super::perform_blocking`]), SIGTERM and SIGINT caught by a plain
/// handler ([`Interrupts`]), the stdout pipe made larger first ([`grow_pipe`]). What
/// is written, and what `entry` keeps, is what [`perform_on_stdio`] gives; a plan
/// that waits is performed by it.
pub fn perform_at_once_on_stdio(
    frames: Frames,
    settings: &Settings,
    entry: &mut Entry,
    report: impl FnOnce() -> Vec<(&'static str, bool)>,
) -> Result<Performed, Exit> {
    let mut delivery = Delivery::default();
    delivery.timed = settings.timing != Timing::default();
    delivery.step.clone_from(&settings.step);
    if !super::blocking(&delivery) {
        return perform_on_stdio(frames, settings, entry, report);
    }
    let frames = settings.timing.apply(frames, settings.seed);
    let streams = super::std_streams().map_err(|e| {
        own_error(
            entry,
            format!("cannot open stdout or stderr: {e}"),
            exit_codes::IO_ERROR,
        )
    })?;
    grow_pipe(&streams.0);
    let (signals, out, err) = Interrupts::catch(streams.0, streams.1).map_err(|e| {
        own_error(
            entry,
            format!("cannot listen for signals: {e}"),
            exit_codes::INTERNAL,
        )
    })?;
    let performed = super::perform_blocking(frames, out, err, || {}, Some(&signals));
    Ok(kept(performed, entry, report))
}

/// The size a copy makes the stdout pipe (Linux's default is 64 KiB; an unprivileged
/// process may ask for up to `/proc/sys/fs/pipe-max-size`, 1 MiB by default): a
/// fourth as many wake-ups of the consumer and of the mock.
pub const COPY_PIPE: i32 = 1 << 20;

/// Makes `out` [`COPY_PIPE`] bytes large if it is a smaller pipe; a file that is no
/// pipe, or a pipe that cannot grow (the user's pipe pages are spent), is left as it is.
pub fn grow_pipe(out: &std::fs::File) {
    use nix::fcntl::{fcntl, FcntlArg};
    if fcntl(out, FcntlArg::F_GETPIPE_SZ).is_ok_and(|size| size < COPY_PIPE) {
        let _ = fcntl(out, FcntlArg::F_SETPIPE_SZ(COPY_PIPE));
    }
}

/// What a run did, kept in `entry`: what the faults did (`report`), whether and when
/// the consumer closed stdout, the signal that ended the run, the mock's own error
/// (said on stderr).
fn kept(
    performed: Performed,
    entry: &mut Entry,
    report: impl FnOnce() -> Vec<(&'static str, bool)>,
) -> Performed {
    entry.faults = report()
        .into_iter()
        .map(|(name, fired)| FaultRecord {
            name: name.to_owned(),
            fired,
        })
        .collect();
    entry.stdout_closed = performed.stdout_closed();
    entry.stdout_closed_at_ms = performed
        .stdout_closed_at
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
    entry.signal = performed.signal().map(|s| s.name().to_owned());
    if let Some(e) = performed.error() {
        let message = e.to_string();
        eprintln!("mock-agent: {message}");
        entry.error = Some(message);
    }
    performed
}

/// What a one-way run performs: the replay of a recording as it stands, or frames made
/// otherwise (of a session, or of a recording read whole).
pub enum Plan<S: harness::faults::lines::Stream> {
    /// A recording replayed as it is read.
    Replay(Box<super::recorded::Replay<S>>),
    /// Frames made before.
    Frames(Frames),
}

/// Performs `plan` on stdout and stderr: a replay that changes no line and waits for
/// none ([`super::recorded::Replay::copies`]) as a copy is
/// ([`perform_at_once_on_stdio`]), anything else as [`perform_on_stdio`] does.
pub fn perform_plan_on_stdio<S: harness::faults::lines::Stream + 'static>(
    plan: Plan<S>,
    settings: &Settings,
    entry: &mut Entry,
    report: impl FnOnce() -> Vec<(&'static str, bool)>,
) -> Result<Performed, Exit> {
    match plan {
        Plan::Replay(replay) if replay.copies() => perform_at_once_on_stdio(replay, settings, entry, report),
        Plan::Replay(replay) => perform_on_stdio(replay, settings, entry, report),
        Plan::Frames(frames) => perform_on_stdio(frames, settings, entry, report),
    }
}
