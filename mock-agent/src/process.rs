//! The process's own ends: writing its messages, and ending the way a plan says (an
//! exit code, or death by a signal).

use std::io::Write;
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicI32, Ordering};

use harness::frames::{Exit, Signal};

/// What std's runtime would do before `main` and the process needs: standard
/// descriptors that are closed are opened on `/dev/null` (so a file opened later never
/// becomes "stdout"), and SIGPIPE is ignored (a closed reader is an `EPIPE` error).
#[allow(unsafe_code)]
pub fn start() {
    use nix::libc;
    let mut fds = [0, 1, 2].map(|fd| libc::pollfd {
        fd,
        events: 0,
        revents: 0,
    });
    // SAFETY: `poll` reads and writes only the three entries of the local array, and
    // `open` and `signal(SIG_IGN)` take no pointers of ours but a static C string.
    unsafe {
        if libc::poll(fds.as_mut_ptr(), 3, 0) != -1 {
            for pollfd in fds {
                if pollfd.revents & libc::POLLNVAL != 0
                    && libc::open(c"/dev/null".as_ptr(), libc::O_RDWR) == -1
                {
                    libc::abort();
                }
            }
        }
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
    }
}

/// Ends the process: `exit(code)`, or death by the signal, as a real process dies.
///
/// Dying by a signal that dumps core (`QUIT`, `ILL`, `TRAP`, `ABRT`, `BUS`, `FPE`,
/// `SEGV`, `XCPU`, `XFSZ`, `SYS`) writes no core file: the core size limit is set to 0
/// first, so a test run does not litter its working directory. A signal that does not
/// end a process (`CHLD`, `CONT`, `STOP`, `TSTP`, `TTIN`, `TTOU`, `URG`, `WINCH`) is
/// not raised: the process exits with 128 + its number, as a shell reports it.
pub fn terminate(exit: Exit) -> ! {
    match exit {
        Exit::Code(code) => std::process::exit(code),
        Exit::Signal(signal) => {
            if signal.ends_process() {
                die_by(signal);
            }
            // Only reached if the signal could not be raised.
            std::process::exit(128 + signal.number())
        }
    }
}

/// Raises the signal with its default action, unblocked, on this thread. Raw
/// numbers, because real-time signals have no `nix` name.
#[allow(unsafe_code)]
fn die_by(signal: Signal) {
    use nix::libc;
    use nix::sys::resource::{setrlimit, Resource};
    let number = signal.number();
    // No core file, whatever the signal: a limit of 0 stops every core file written
    // by the kernel itself (`core_pattern` a file name).
    let _ = setrlimit(Resource::RLIMIT_CORE, 0, 0);
    // SAFETY: `signal(2)` with SIG_DFL installs no handler, so no code of ours can run
    // in signal context; the Rust runtime ignores SIGPIPE and the executor may handle
    // TERM and INT, and the default makes the signal fatal again. The set is a local
    // initialized by `sigemptyset` before use, and `raise` only sends the signal.
    unsafe {
        libc::signal(number, libc::SIG_DFL);
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, number);
        libc::pthread_sigmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
        libc::raise(number);
    }
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

/// Prints `text` on stdout as a command's whole answer: how the process ends (0, or
/// the mock's own I/O error, said on stderr).
pub fn answer(text: &str) -> Exit {
    match print(text) {
        Ok(()) => Exit::Code(harness::exit_codes::OK),
        Err(e) => {
            eprintln!("mock-agent: cannot write to stdout: {e}");
            Exit::Code(harness::exit_codes::IO_ERROR)
        }
    }
}

/// Writes text to stdout, flushed. A closed stdout is not an error (the reader has
/// what it wanted); any other failure is.
pub fn print(text: &str) -> std::io::Result<()> {
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(text.as_bytes()).and_then(|()| stdout.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e),
        _ => Ok(()),
    }
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

/// SIGTERM and SIGINT caught without a runtime, for a plan performed with blocking
/// writes ([`crate::execute::perform_blocking`]) that must still end on them, with its
/// journal written (the untimed replay of `mock-agent test`).
///
/// The handler notes the signal and points the descriptors the plan writes to (the
/// [`Watched`] ones) at `/dev/null`: a write blocked on a full pipe, or about to be,
/// then completes at once (to nowhere), and the plan stops before its next frame. No
/// write can wait for ever once a signal came, whenever it came: there is no window
/// between looking at the note and writing.
///
/// The handler stays installed for the rest of the process: a signal that comes once
/// the plan has ended is noted and changes nothing (the run is complete; its journal
/// is still written), as with the runtime's handler of a timed replay.
///
/// The plan is performed on one thread, the one that gets the signal (the process has
/// no other then), so the handler runs either before a [`Watched`] is dropped or after:
/// never on a descriptor number that a file opened later reuses.
#[derive(Debug)]
pub struct Interrupts(());

/// A descriptor that the handler of [`Interrupts`] points at `/dev/null` on a signal,
/// until it is dropped (the handler forgets it before it is closed).
#[derive(Debug)]
pub struct Watched {
    file: std::fs::File,
    slot: usize,
}

/// The signal caught, by number; 0 for none.
static CAUGHT: AtomicI32 = AtomicI32::new(0);
/// The descriptors the plan writes to; -1 for none.
static WATCHED: [AtomicI32; 2] = [AtomicI32::new(-1), AtomicI32::new(-1)];

#[allow(unsafe_code)]
extern "C" fn caught(number: nix::libc::c_int) {
    use nix::libc;
    // The interrupted code may look at errno after the call the signal cut short.
    let errno = nix::errno::Errno::last_raw();
    CAUGHT.store(number, Ordering::SeqCst);
    // SAFETY: `open`, `dup2` and `close` are async-signal-safe (signal-safety(7)) and
    // the path is a static C string. A descriptor in `WATCHED` is open: a `Watched`
    // holds it, and takes it out before closing it, on the thread this runs on.
    unsafe {
        let null = libc::open(c"/dev/null".as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
        if null >= 0 {
            for fd in &WATCHED {
                let fd = fd.load(Ordering::SeqCst);
                if fd >= 0 {
                    libc::dup2(null, fd);
                }
            }
            libc::close(null);
        }
    }
    nix::errno::Errno::set_raw(errno);
}

impl Interrupts {
    /// Catches SIGTERM and SIGINT from now on; `stdout` and `stderr` are the
    /// descriptors the plan writes to, returned watched.
    #[allow(unsafe_code)]
    pub fn catch(
        stdout: std::fs::File,
        stderr: std::fs::File,
    ) -> std::io::Result<(Interrupts, Watched, Watched)> {
        use nix::sys::signal::{sigaction, SaFlags, SigAction, SigHandler, SigSet};
        let action = SigAction::new(SigHandler::Handler(caught), SaFlags::SA_RESTART, SigSet::empty());
        for signal in [nix::sys::signal::SIGTERM, nix::sys::signal::SIGINT] {
            // SAFETY: the handler only stores atomics and calls async-signal-safe
            // functions.
            unsafe { sigaction(signal, &action) }.map_err(std::io::Error::from)?;
        }
        let watch = |file: std::fs::File, slot: usize| {
            WATCHED[slot].store(file.as_raw_fd(), Ordering::SeqCst);
            Watched { file, slot }
        };
        Ok((Interrupts(()), watch(stdout, 0), watch(stderr, 1)))
    }

    /// The signal caught so far, if one was.
    pub fn caught(&self) -> Option<Signal> {
        match CAUGHT.load(Ordering::SeqCst) {
            0 => None,
            number => Signal::from_number(number),
        }
    }
}

impl Write for Watched {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.file.write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        self.file.write_all(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

impl Drop for Watched {
    fn drop(&mut self) {
        // Before `file` closes: the handler must not touch its number once it is free.
        WATCHED[self.slot].store(-1, Ordering::SeqCst);
    }
}
