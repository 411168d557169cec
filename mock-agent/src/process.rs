//! The process's own ends: writing its messages, and ending the way a plan says (an
//! exit code, or death by a signal).

use std::io::Write;

use harness::frames::{Exit, Signal};

/// Ends the process: `exit(code)`, or death by the signal, as a real process dies.
///
/// Dying by `SEGV` or `ABRT` writes no core file: the core size limit is set to 0
/// first, so a test run does not litter its working directory.
pub fn terminate(exit: Exit) -> ! {
    match exit {
        Exit::Code(code) => std::process::exit(code),
        Exit::Signal(signal) => {
            die_by(signal);
            // Only reached if the signal could not be raised.
            std::process::exit(128 + signal.number())
        }
    }
}

fn die_by(signal: Signal) {
    use nix::sys::resource::{setrlimit, Resource};
    use nix::sys::signal::{self as sig, SigHandler};
    let Ok(number) = sig::Signal::try_from(signal.number()) else {
        return;
    };
    let _ = setrlimit(Resource::RLIMIT_CORE, 0, 0);
    // SAFETY: restoring the default disposition installs no handler, so no code of
    // ours can run in signal context. The Rust runtime ignores SIGPIPE and the
    // executor may handle TERM and INT; the default makes the signal fatal again.
    #[allow(unsafe_code)]
    let _ = unsafe { sig::signal(number, SigHandler::SigDfl) };
    let _ = sig::pthread_sigmask(
        sig::SigmaskHow::SIG_UNBLOCK,
        Some(&sig::SigSet::from(number)),
        None,
    );
    let _ = sig::raise(number);
}

/// Writes a line to stderr. A closed stderr is not an error: the consumer stopped
/// listening, and `eprintln!` would panic.
pub fn stderr_line(args: std::fmt::Arguments<'_>) {
    let mut stderr = std::io::stderr().lock();
    let _ = stderr.write_fmt(args).and_then(|()| stderr.write_all(b"\n"));
}

/// Writes a line to stdout. A closed stdout is not an error: the reader has what it
/// wanted (`mock-agent faults | head -1`), and `println!` would panic.
pub fn stdout_line(args: std::fmt::Arguments<'_>) {
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_fmt(args).and_then(|()| stdout.write_all(b"\n"));
}

/// Calls `handler` on a thread of its own each time the process gets SIGTERM or SIGINT
/// (which then no longer end it by themselves).
pub fn on_term_or_int(mut handler: impl FnMut(Signal) + Send + 'static) {
    std::thread::spawn(move || {
        let Ok(runtime) = tokio::runtime::Builder::new_current_thread().enable_io().build() else {
            return;
        };
        runtime.block_on(async move {
            use tokio::signal::unix::{signal, SignalKind};
            let (Ok(mut term), Ok(mut int)) =
                (signal(SignalKind::terminate()), signal(SignalKind::interrupt()))
            else {
                return;
            };
            loop {
                let signal = tokio::select! {
                    _ = term.recv() => Signal::Term,
                    _ = int.recv() => Signal::Int,
                };
                handler(signal);
            }
        });
    });
}
