//! Ending the process the way a plan says: an exit code, or death by a signal.

use crate::frames::{Exit, Signal};

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
