//! `codex exec`, as a process: the prompt read, the thread found or started, the
//! source told by the harness's pure player ([`harness::dialects::codex::exec::play`])
//! with the faults acting on its lines as [`harness::dialects::codex::faults::written`]
//! makes them (so the live run is what the case expects, byte for byte), performed by
//! the executor on the one clock, and the thread kept for `exec resume`.
//!
//! A cassette whose turn is replayed as it stands (`--json`, a new thread, no preset,
//! no `--output-schema`) gives its recorded lines and stderr, each at its recorded
//! time; otherwise the session it tells is played again. Played lines are recorded
//! [`PACE`] apart (what `MOCK_AGENT_TIMING=recorded` spaces them by).

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use harness::dialects::codex::args::ExecArgs;
use harness::dialects::codex::exec::{
    self as player, check_repository, read_prompt, read_schema, unknown_thread, workdir_unresolved, Refusal,
    Run, Thread,
};
use harness::dialects::codex::faults::{with_faults, CodexFault, Injector, Out, THREAD_MS};
use harness::dialects::codex::recording::Recording;
use harness::dialects::codex::session::Session;
use harness::exit_codes;
use harness::faults::lines::LineFault;
use harness::format::OutputFormat;
use harness::frames::{Exit, Signal};
use harness::journal::Entry;

use super::stream;
use super::threads::Store;
use crate::execute;
use crate::execute::planned::{own_error, Plan};
use crate::execute::recorded;
use crate::settings::Settings;

/// How far apart played stdout lines are on the recording's clock.
pub const PACE: Duration = Duration::from_millis(40);

/// Runs `codex exec` with `args`, journaling into `entry`.
pub fn run(args: &ExecArgs, settings: &Settings, entry: &mut Entry) -> Exit {
    match prepare(args, settings, entry) {
        Ok(planned) => perform(args, settings, entry, planned),
        Err(exit) => exit,
    }
}

/// The real CLI's refusal before any thread: its stderr lines, exit 1.
fn refused(said: &[String], refusal: &Refusal) -> Exit {
    for line in said.iter().chain(&refusal.stderr) {
        eprintln!("{line}");
    }
    Exit::Code(refusal.exit_code)
}

/// What a run writes and keeps, ready to be performed.
struct Planned {
    writes: Writes,
    injector: Rc<RefCell<Injector>>,
    /// The thread after the turn, to keep.
    thread: Option<Thread>,
    /// What `-o FILE` gets when the run ends as planned.
    last_message: Option<String>,
    /// The faults that had nothing to act on (see [`writes_a_json_line`]).
    idle: Vec<&'static str>,
}

/// Whether the fault writes a JSON line of its own (`malformed`, `unknown`, `huge`):
/// without `--json` the real CLI writes only its final message on stdout, and such a
/// fault has nothing to stand for. It does not act, and the journal says so (the case
/// is not applicable to a program that reads the final message).
fn writes_a_json_line(fault: &CodexFault) -> bool {
    matches!(
        fault,
        CodexFault::Line(LineFault::Malformed { .. } | LineFault::Unknown { .. } | LineFault::Huge { .. })
    )
}

/// What a run writes.
enum Writes {
    /// These, the nth stdout line at `times[n]` (else `n` [`PACE`]s): a session
    /// played.
    Outs { outs: Vec<Out>, times: Vec<Duration> },
    /// A recording replayed as it stands, read as it is written.
    Replay(Box<stream::Replay>),
}

/// Reads what the run needs and plans it; `Err`: how the process ends before.
fn prepare(args: &ExecArgs, settings: &Settings, entry: &mut Entry) -> Result<Planned, Exit> {
    let faults: Vec<CodexFault> = settings
        .faults
        .read(harness::dialects::codex::faults::parse)
        .map_err(|e| own_error(entry, e.to_string(), exit_codes::USAGE))?;
    entry.output_format = Some(if args.json {
        OutputFormat::StreamJson
    } else {
        OutputFormat::Text
    });
    // `-C DIR` is resolved first: a folder that is not there ends the run at once.
    let here = std::env::current_dir().unwrap_or_default();
    if args.cd.is_some() {
        if let Err(e) = std::fs::canonicalize(args.workdir(&here)) {
            return Err(refused(&[], &workdir_unresolved(&e.to_string())));
        }
    }
    let stdin = recorded::read_stdin(args.prompt_from_stdin())
        .map_err(|message| own_error(entry, message, exit_codes::USAGE))?;
    entry.stdin.clone_from(&stdin);
    let (prompt, said) = read_prompt(args, stdin.as_deref()).map_err(|r| refused(&[], &r))?;
    entry.prompt = Some(prompt.clone());
    let schema = match &args.output_schema {
        Some(path) => {
            let read = std::fs::read_to_string(path).map_err(|e| e.to_string());
            Some(read_schema(path, read).map_err(|r| refused(&said, &r))?)
        }
        None => None,
    };
    // Outside a Git repository, without the flag that skips the check: the real CLI's
    // refusal, once the prompt is read and before any thread.
    check_repository(args, &args.workdir(&here)).map_err(|r| refused(&said, &r))?;
    let store = (!args.ephemeral).then(Store::of_env).flatten();
    let resumed = match &args.resume {
        None => None,
        Some(resume) => {
            let found = match (&resume.id, &store) {
                (_, None) => None,
                (Some(id), Some(store)) => store.load(id),
                (None, Some(store)) => store.last(),
            };
            let id = resume.id.clone().unwrap_or_default();
            Some(found.ok_or_else(|| refused(&said, &unknown_thread(&id)))?)
        }
    };
    let cwd = args
        .cd
        .clone()
        .or_else(|| entry.cwd.clone())
        .unwrap_or_else(|| "/".to_owned());
    let (faults, idle): (Vec<CodexFault>, Vec<CodexFault>) = faults
        .into_iter()
        .partition(|f| args.json || !writes_a_json_line(f));
    let idle: Vec<&'static str> = idle.iter().map(CodexFault::name).collect();
    let mut injector = Injector::new(faults);
    let thread_seed = settings.generate.unwrap_or(settings.seed);
    let new_thread = || Thread::new(thread_seed, THREAD_MS);
    // A recording's own turn, as it stands: streamed from the cassette.
    let stands = args.json && resumed.is_none() && schema.is_none() && !injector.has_preset();
    if let (Some(path), true) = (&settings.cassette, stands) {
        entry.source = Some(path.display().to_string());
        let summary =
            stream::Summary::read(path).map_err(|e| own_error(entry, e.to_string(), e.exit_code()))?;
        let thread = summary.thread_id.clone().map(|id| Thread {
            id,
            prior: if summary.failed {
                Default::default()
            } else {
                summary.usage
            },
            turns: 1,
        });
        let completed = !summary.failed && summary.exit == Exit::Code(0);
        let last_message = completed.then(|| summary.final_message.clone()).flatten();
        let injector = Rc::new(RefCell::new(injector));
        let replay = stream::Replay::new(path, &summary.recorded, PACE, Rc::clone(&injector))
            .map_err(|e| own_error(entry, e.to_string(), e.exit_code()))?
            .at_once(recorded::untimed(settings));
        return Ok(Planned {
            writes: Writes::Replay(Box::new(replay)),
            injector,
            thread,
            last_message,
            idle,
        });
    }
    let (session, recording) = execute::planned::told(
        settings,
        entry,
        Recording::open,
        Recording::session,
        harness::dialects::codex::generate::from_seed,
        || harness::dialects::codex::default_session(&cwd),
    )?;
    let mut outs: Vec<Out> = match &recording {
        Some((recording, _)) => recording.stderr.iter().cloned().map(Out::Stderr).collect(),
        None => said.iter().map(|l| Out::Stderr(l.clone().into_bytes())).collect(),
    };
    let mut session: Session = session;
    injector.prepare(&mut session);
    let mut thread = resumed.unwrap_or_else(new_thread);
    if let Some((recording, _)) = recording.as_ref().filter(|_| args.resume.is_none()) {
        if let Some(id) = recording.thread_id() {
            thread.id = id;
        }
    }
    let outcome = player::play(&Run {
        session: &session,
        args,
        thread: thread.clone(),
        prompt: &prompt,
        cwd: &cwd,
        schema: schema.as_ref(),
    });
    // The answer a schema made is not the session's: the journal says what it was.
    if schema.is_some() {
        entry.answer.clone_from(&outcome.last_message);
    }
    outs.extend(outcome.stderr.iter().map(|l| Out::Stderr(l.clone().into_bytes())));
    let lines = outcome.stdout.iter().map(|l| l.clone().into_bytes()).collect();
    outs.extend(with_faults(lines, Exit::Code(outcome.exit_code), &mut injector));
    Ok(Planned {
        writes: Writes::Outs {
            outs,
            times: Vec::new(),
        },
        injector: Rc::new(RefCell::new(injector)),
        thread: Some(Thread {
            id: thread.id,
            prior: outcome.usage,
            turns: thread.turns + 1,
        }),
        last_message: outcome.last_message,
        idle,
    })
}

/// Keeps the thread, performs the plan, writes `-o FILE`, and journals the run.
fn perform(args: &ExecArgs, settings: &Settings, entry: &mut Entry, planned: Planned) -> Exit {
    let Planned {
        writes,
        injector,
        thread,
        last_message,
        idle,
    } = planned;
    // The real CLI keeps its rollout as the turn goes: a run killed part way can be
    // resumed.
    if let (Some(store), Some(thread)) = ((!args.ephemeral).then(Store::of_env).flatten(), &thread) {
        let _ = store.save(thread);
    }
    let plan = match writes {
        Writes::Outs { outs, times } => {
            Plan::Frames(Box::new(recorded::frames(outs, &times, PACE).into_iter()))
        }
        Writes::Replay(replay) => Plan::Replay(replay),
    };
    let performed = match execute::planned::perform_plan_on_stdio(plan, settings, entry, || {
        let mut report = injector.borrow().report();
        report.extend(idle.iter().map(|name| (*name, false)));
        report
    }) {
        Ok(performed) => performed,
        Err(exit) => return exit,
    };
    let exit = match performed.exit() {
        // SIGINT: the real CLI stops the turn and exits 1, with no final line.
        Exit::Signal(Signal::Int) => Exit::Code(exit_codes::AGENT_ERROR),
        exit => exit,
    };
    if let (Some(path), Some(message), Exit::Code(0)) = (&args.output_last_message, &last_message, exit) {
        if let Err(e) = std::fs::write(path, message) {
            return own_error(
                entry,
                format!("cannot write {path} (-o): {e}"),
                exit_codes::CANNOT_CREATE,
            );
        }
    }
    exit
}
