//! `gemini -p`, as a process: the prompt read, the folder's trust and the resumed
//! session checked, the source told by the harness's pure player with the faults
//! acting on its lines as [`harness::dialects::gemini::faults::written_in`] makes them
//! (so the live run is what the case expects, byte for byte), performed by the
//! executor on the one clock, and the session kept for `--resume`.
//!
//! A cassette replayed in `stream-json` without a preset gives its recorded lines and
//! stderr, each at its recorded time; otherwise the session it tells is played again.
//! Played lines are [`PACE_MS`] apart.

use std::cell::RefCell;
use std::path::Path;
use std::rc::Rc;
use std::time::Duration;

use harness::dialects::gemini::args::Args;
use harness::dialects::gemini::faults::{render, with_faults, Context, GeminiFault, Injector, Lines, Out};
use harness::dialects::gemini::play::PACE_MS;
use harness::dialects::gemini::recording::Recording;
use harness::dialects::gemini::wire::{env, exits, stderr, MODEL};
use harness::exit_codes;
use harness::faults::lines;
use harness::format::OutputFormat;
use harness::frames::{Exit, FrameResult};
use harness::journal::Entry;

use super::relaunch::is_child;
use super::sessions::{gemini_dir, Store};
use crate::execute;
use crate::execute::planned::{own_error, Plan};
use crate::execute::recorded;
use crate::settings::Settings;

/// Runs `gemini -p` with `args`, journaling into `entry`.
pub fn run(args: &Args, settings: &Settings, entry: &mut Entry) -> Exit {
    match prepare(args, settings, entry) {
        Ok(planned) => perform(settings, entry, planned),
        Err(exit) => exit,
    }
}

/// The real CLI's refusal before any line: its stderr lines, its exit code.
fn refused(lines: &[String], code: i32) -> Exit {
    for line in lines {
        eprintln!("{line}");
    }
    Exit::Code(code)
}

/// What a run writes, ready to be performed.
struct Planned {
    writes: Writes,
    /// The faults, shared with a replay (which acts through them as it goes).
    injector: Rc<RefCell<Injector>>,
}

/// What a run writes.
enum Writes {
    /// These, the nth stdout write [`PACE_MS`] apart: a session played.
    Outs(Vec<Out>),
    /// A recording replayed as it stands, read as it is written.
    Replay(Box<recorded::Replay<Lines>>),
}

impl Planned {
    fn outs(outs: Vec<Out>, injector: Injector) -> Self {
        Planned {
            writes: Writes::Outs(outs),
            injector: Rc::new(RefCell::new(injector)),
        }
    }
}

/// Whether the working folder is trusted: `--skip-trust`,
/// `GEMINI_CLI_TRUST_WORKSPACE=true`, or the folder (or one above it) marked
/// `TRUST_FOLDER` in `~/.gemini/trustedFolders.json`.
fn trusted(args: &Args, cwd: &Path) -> bool {
    if args.skip_trust || std::env::var(env::TRUST_WORKSPACE).is_ok_and(|v| v == "true" || v == "1") {
        return true;
    }
    let Some(file) = gemini_dir().map(|d| d.join("trustedFolders.json")) else {
        return false;
    };
    let Ok(text) = std::fs::read_to_string(file) else {
        return false;
    };
    let Ok(serde_json::Value::Object(folders)) = serde_json::from_str(&text) else {
        return false;
    };
    cwd.ancestors().any(|dir| {
        folders
            .get(dir.to_string_lossy().as_ref())
            .and_then(serde_json::Value::as_str)
            .is_some_and(|how| how == "TRUST_FOLDER" || (dir != cwd && how == "TRUST_PARENT"))
    })
}

/// Reads what the run needs and plans it; `Err`: how the process ends before.
fn prepare(args: &Args, settings: &Settings, entry: &mut Entry) -> Result<Planned, Exit> {
    let faults: Vec<GeminiFault> = settings
        .faults
        .read(harness::dialects::gemini::faults::parse)
        .map_err(|e| own_error(entry, e.to_string(), exit_codes::USAGE))?;
    let format = args.format();
    entry.output_format = Some(format);
    let stdin =
        recorded::read_stdin(false).map_err(|message| own_error(entry, message, exit_codes::USAGE))?;
    entry.stdin.clone_from(&stdin);
    let interactive = stdin.is_none() && args.prompt.is_none();
    if interactive {
        return Err(own_error(
            entry,
            "the stand-in plays Gemini CLI's headless mode only: give `-p PROMPT`, or pipe the prompt on stdin".into(),
            exit_codes::USAGE,
        ));
    }
    let Some(prompt) = args.prompt_with(stdin.as_deref()) else {
        return Err(refused(&[stderr::NO_INPUT.to_owned()], exits::NO_INPUT));
    };
    entry.prompt = Some(prompt.clone());
    let cwd = std::env::current_dir().unwrap_or_else(|_| "/".into());
    let mut injector = Injector::new(faults);
    if is_child() {
        injector.relaunched();
    }
    let seed = settings.generate.unwrap_or(settings.seed);
    let mut context = Context::of_seed(seed);
    context.prompt = prompt;
    context.yolo = args.approval() == "yolo";
    context.model = args
        .model
        .clone()
        .or_else(|| std::env::var(env::MODEL).ok().filter(|m| !m.is_empty()))
        .unwrap_or_else(|| MODEL.to_owned());
    if let Some(dir) = gemini_dir() {
        context.settings = dir.join("settings.json").display().to_string();
    }
    // The refusals a preset asks for come first (they are the environment's).
    if let Some(refusal) = injector.refusal() {
        let outs = harness::dialects::gemini::faults::refused(refusal, format, &context);
        return Ok(Planned::outs(outs, injector));
    }
    if !trusted(args, &cwd) {
        return Err(refused(&[stderr::UNTRUSTED.to_owned()], exits::UNTRUSTED));
    }
    let store = Store::of_env();
    if let Some(which) = &args.resume {
        let found = store.as_ref().and_then(|s| s.find(which));
        match found {
            Some(id) => context.session_id = id,
            None => {
                let dir = store
                    .as_ref()
                    .map(|s| s.dir().display().to_string())
                    .unwrap_or_default();
                return Err(refused(&stderr::no_session(which, &dir), exits::NO_INPUT));
            }
        }
    } else if let Some(id) = &args.session_id {
        context.session_id.clone_from(id);
    }
    if let Some(store) = &store {
        // A session the stand-in cannot keep is one `--resume` does not find.
        let _ = store.save(&context.session_id);
    }
    // A recording's own run, as it stands: streamed from the cassette.
    if let (Some(path), true) = (
        &settings.cassette,
        format == OutputFormat::StreamJson && !injector.has_preset(),
    ) {
        entry.source = Some(path.display().to_string());
        let summary = recorded::Summary::read(path, |_| {})
            .map_err(|e| own_error(entry, e.to_string(), e.exit_code()))?;
        let injector = Rc::new(RefCell::new(injector));
        let pace = Duration::from_millis(PACE_MS);
        let replay = recorded::Replay::new(path, &summary, pace, Rc::clone(&injector))
            .map_err(|e| own_error(entry, e.to_string(), e.exit_code()))?
            .at_once(recorded::untimed(settings));
        return Ok(Planned {
            writes: Writes::Replay(Box::new(replay)),
            injector,
        });
    }
    let (session, recording) = execute::planned::told(
        settings,
        entry,
        Recording::open,
        Recording::session,
        harness::dialects::gemini::generate::from_seed,
        || harness::dialects::gemini::default_session(&cwd.display().to_string()),
    )?;
    // A recording played again keeps its session and model (the prompt is this run's).
    if let Some((recording, _)) = recording
        .as_ref()
        .filter(|_| args.resume.is_none() && args.session_id.is_none())
    {
        let recorded = recording.context();
        context.model = recorded.model;
        context.session_id = recorded.session_id;
    }
    let mut session = session;
    injector.prepare(&mut session, &context.model);
    let played = context.play(&session);
    let outs = with_faults(played.said.clone(), Exit::Code(played.exit), &mut injector);
    let outs = render(outs, format, &played);
    if format != OutputFormat::StreamJson {
        // What `-o json` and `-o text` write leaves out lines of `stream-json` (an event
        // of an unknown type, a line that is no JSON, an assistant message under json):
        // line faults whose line is left out acted on nothing, and are journaled so.
        let clean = with_faults(
            played.said.clone(),
            Exit::Code(played.exit),
            &mut Injector::new(Vec::new()),
        );
        if render(clean, format, &played) == outs {
            for (fault, fired) in injector.faults_mut() {
                *fired &= !matches!(fault, GeminiFault::Line(_));
            }
        }
    }
    Ok(Planned::outs(outs, injector))
}

/// The frames of `outs`: the nth stdout write at `times[n]` (else `n` paces), what
/// comes between them at the time of the write before (`json`'s and `text`'s bytes
/// are written as they are).
fn frames(outs: Vec<Out>, times: &[Duration]) -> Vec<FrameResult> {
    let written = outs.into_iter().map(|out| match out {
        Out::Line(bytes) => lines::Out::Line(bytes),
        Out::Raw(bytes) | Out::Cut(bytes) => lines::Out::Cut(bytes),
        Out::Stderr(bytes) => lines::Out::Stderr(bytes),
        Out::Stall(duration) => lines::Out::Stall(duration),
        Out::End(exit) => lines::Out::End(exit),
    });
    recorded::frames(written, times, Duration::from_millis(PACE_MS))
}

/// Performs the plan and journals the run.
fn perform(settings: &Settings, entry: &mut Entry, planned: Planned) -> Exit {
    let Planned { writes, injector } = planned;
    let plan = match writes {
        Writes::Outs(outs) => Plan::Frames(Box::new(frames(outs, &[]).into_iter())),
        Writes::Replay(replay) => Plan::Replay(replay),
    };
    let performed =
        match execute::planned::perform_plan_on_stdio(plan, settings, entry, || injector.borrow().report()) {
            Ok(performed) => performed,
            Err(exit) => return exit,
        };
    if injector.borrow().acted("child-killed") {
        // The child dies by a signal; relaunched, its parent exits 0, which is what the
        // consumer sees and the journal keeps.
        let seen = if is_child() {
            Exit::Code(0)
        } else {
            Exit::Signal(harness::frames::Signal::Kill)
        };
        if let Some(path) = &settings.journal {
            entry.exit = seen.into();
            entry.ended_at_ms = execute::now_ms();
            let _ = harness::journal::append(path, entry);
        }
        let _ = nix::sys::signal::raise(nix::sys::signal::Signal::SIGKILL);
    }
    performed.exit()
}

#[cfg(test)]
mod tests {
    use super::*;
    use harness::cassette::Invocation;
    use harness::dialects::gemini::faults::{parse, stream_lines, FROM_ENV};
    use harness::dialects::gemini::play::Said;
    use harness::dialects::gemini::recording::header;

    /// A recording of the generated session of `seed`: a stderr line, its lines 10 ms
    /// apart, its ending.
    fn recording(seed: u64, path: &Path) {
        let session = harness::dialects::gemini::generate::from_seed(seed);
        let (lines, exit) = stream_lines(&session, seed);
        let header = header(Invocation::default());
        recorded::testing::write(path, &header, b"Loaded cached credentials.", lines, exit);
    }

    fn injector(spec: &str) -> Injector {
        Injector::new(parse(spec, FROM_ENV).expect("faults"))
    }

    /// What the run performed of the recording read whole first, as it did before
    /// it was streamed.
    fn whole(path: &Path, spec: &str) -> Vec<String> {
        let recording = Recording::open(path).expect("opens");
        let mut injector = injector(spec);
        let said: Vec<Said> = recording
            .stderr
            .iter()
            .map(|l| Said::Stderr(String::from_utf8_lossy(l).into_owned()))
            .chain(
                recording
                    .stdout
                    .iter()
                    .map(|l| Said::Line(String::from_utf8_lossy(l).into_owned())),
            )
            .collect();
        let outs = with_faults(said, recording.exit, &mut injector);
        let times = recorded::testing::stdout_times(path);
        recorded::testing::shown(frames(outs, &times), || injector.report())
    }

    fn streamed(path: &Path, spec: &str) -> Vec<String> {
        let summary = recorded::Summary::read(path, |_| {}).expect("reads");
        let injector = Rc::new(RefCell::new(injector(spec)));
        let pace = Duration::from_millis(PACE_MS);
        let replay =
            recorded::Replay::<Lines>::new(path, &summary, pace, Rc::clone(&injector)).expect("opens");
        recorded::testing::performed(replay, &injector)
    }

    #[test]
    fn a_streamed_replay_performs_what_the_whole_recording_gave() {
        let specs = [
            "",
            "exit:code=1,at=tool_use",
            "signal:name=TERM,at=tool_result",
            "eof:at=result,byte=40",
            "stall:ms=5,at=tool_result",
            "malformed:at=tool_use",
            "unknown:at=result",
            "huge:bytes=2000",
            "stderr:text=\"note\"",
            "exit:code=3,after=2",
        ];
        recorded::testing::assert_streamed_as_whole(recording, &specs, streamed, whole);
    }
}
