//! The output pumps: one thread a stream gives what the command writes to the caller
//! at once (between two pipes, without copying it: see [`pass_on`]), and only then
//! queues a copy for the cassette. The queue is bounded, and its buffers are used
//! again: a cassette writer that falls behind holds the pumps back rather than using
//! more memory.
//!
//! In a conversation (server mode) the bytes go both ways, and what one side sends
//! may be an answer to what it was just given: there a pump queues the bytes *before*
//! it passes them on ([`Order::Causal`]), so that a message is in the queue before
//! anything it caused can be read, and the cassette keeps the order in which the
//! messages passed, whatever the threads' scheduling.

use std::io::{Read, Write};
use std::os::fd::AsFd;
use std::sync::atomic::{AtomicBool, Ordering as AtomicOrdering};
use std::sync::mpsc::{Receiver, Sender, SyncSender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use harness::frames::Stream;
use nix::errno::Errno;
use nix::fcntl::SpliceFFlags;

/// How much one read takes at most.
const CHUNK: usize = 256 << 10;

/// How many chunks the queue holds at most: with [`CHUNK`], 8 MiB.
const QUEUE: usize = 32;

/// The size asked for the command's pipes (Linux's default is 64 KiB): fewer, larger
/// reads when the command writes fast.
const PIPE: i32 = 1 << 20;

/// The caller may have stopped reading: once the recorder got SIGTERM or SIGINT, a
/// write to the caller that blocks is cut short, and from then on that stream is no
/// longer passed on (the rest is still recorded). The command gets the signal too,
/// ends, and the recording ends with it: a recorder whose caller went silent still
/// ends, with what passed so far in its cassette.
///
/// A blocked write is cut short by a signal of its own (`SIGURG`, caught by a handler
/// that does nothing) sent to the pump's thread every few milliseconds after the
/// recorder's signal, until the pumps are retired.
#[derive(Debug, Clone, Default)]
pub(super) struct Halt {
    halted: Arc<AtomicBool>,
    retired: Arc<AtomicBool>,
    /// The threads of the pumps that write to the caller, while they run: a pump
    /// takes itself out before its thread ends, so no id here is of an ended thread.
    pumps: Arc<Mutex<Vec<nix::sys::pthread::Pthread>>>,
}

/// How often a halted pump's thread is poked.
const POKE: Duration = Duration::from_millis(5);

impl Halt {
    /// A halt, with the handler of the poking signal installed.
    pub(super) fn new() -> Self {
        poke_handler();
        Halt::default()
    }

    /// Whether the recorder was told to end.
    fn halted(&self) -> bool {
        self.halted.load(AtomicOrdering::SeqCst)
    }

    /// The recorder was told to end: blocked writes to the caller are cut short from
    /// now on, until [`Halt::retire`].
    pub(super) fn halt(&self) {
        if self.halted.swap(true, AtomicOrdering::SeqCst) {
            return;
        }
        let (pumps, retired) = (Arc::clone(&self.pumps), Arc::clone(&self.retired));
        std::thread::spawn(move || loop {
            if retired.load(AtomicOrdering::SeqCst) {
                return;
            }
            {
                let Ok(pumps) = pumps.lock() else { return };
                for thread in pumps.iter() {
                    let _ = nix::sys::pthread::pthread_kill(*thread, nix::sys::signal::Signal::SIGURG);
                }
            }
            std::thread::sleep(POKE);
        });
    }

    /// The pumps are joined: nothing is poked any more.
    pub(super) fn retire(&self) {
        self.retired.store(true, AtomicOrdering::SeqCst);
    }

    /// The calling thread is a pump to poke when halted.
    fn register(&self) {
        if let Ok(mut pumps) = self.pumps.lock() {
            pumps.push(nix::sys::pthread::pthread_self());
        }
    }

    /// The calling thread, a pump, is about to end.
    fn deregister(&self) {
        let own = nix::sys::pthread::pthread_self();
        if let Ok(mut pumps) = self.pumps.lock() {
            pumps.retain(|thread| *thread != own);
        }
    }
}

/// Installs a handler of `SIGURG` that does nothing, without `SA_RESTART`: a blocked
/// write of the thread it is sent to returns `EINTR`.
#[allow(unsafe_code)]
fn poke_handler() {
    use nix::sys::signal::{sigaction, SaFlags, SigAction, SigHandler, SigSet};
    extern "C" fn nothing(_: nix::libc::c_int) {}
    let action = SigAction::new(SigHandler::Handler(nothing), SaFlags::empty(), SigSet::empty());
    // SAFETY: the handler does nothing at all.
    let _ = unsafe { sigaction(nix::sys::signal::Signal::SIGURG, &action) };
}

/// When a pump queues bytes for the cassette: after passing them on, or before.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Order {
    /// Passed on first (without copying them, where both ends are pipes), then
    /// queued: the caller gets them soonest. For one-way streams.
    CallerFirst,
    /// Queued first, then passed on: nothing they cause is queued before them.
    Causal,
}

/// What a pump tells the cassette writer.
#[derive(Debug)]
pub(super) enum Event {
    /// The command wrote these bytes on the stream; they reached the caller.
    Chunk {
        /// The stream.
        stream: Stream,
        /// When they were read, from the start of the run.
        at: Duration,
        /// A buffer whose first `len` bytes are the chunk; give it back with
        /// [`Queue::recycle`].
        buffer: Vec<u8>,
        /// How many bytes of the buffer are the chunk.
        len: usize,
    },
    /// The stream ended.
    Closed {
        /// The stream.
        stream: Stream,
        /// When, from the start of the run.
        at: Duration,
    },
}

/// The pumps' side of the queue, and the buffers the writer gives back.
#[derive(Debug, Clone)]
pub(super) struct Queue {
    sender: SyncSender<Event>,
    /// Buffers given back. A pump makes a new buffer only when none is there, so
    /// there are never more than the queue holds, plus one a pump and one the writer.
    spare: Sender<Vec<u8>>,
    spares: Arc<Mutex<Receiver<Vec<u8>>>>,
}

impl Queue {
    /// A queue, and the writer's end of it.
    pub(super) fn new() -> (Queue, Receiver<Event>) {
        let (sender, receiver) = std::sync::mpsc::sync_channel(QUEUE);
        let (spare, spares) = std::sync::mpsc::channel();
        let queue = Queue {
            sender,
            spare,
            spares: Arc::new(Mutex::new(spares)),
        };
        (queue, receiver)
    }

    /// Gives a buffer back to the pumps once its bytes are written.
    pub(super) fn recycle(&self, buffer: Vec<u8>) {
        let _ = self.spare.send(buffer);
    }

    /// A buffer of [`CHUNK`] bytes: one given back, or a new one.
    fn buffer(&self) -> Vec<u8> {
        self.spares
            .lock()
            .ok()
            .and_then(|spares| spares.try_recv().ok())
            .unwrap_or_else(|| vec![0; CHUNK])
    }
}

/// Starts the pump of one stream: `source`'s bytes go to the recorder's own stream
/// of that name, then to the queue. A caller that went away stops getting them and
/// the recording goes on; a writer that went away (it failed) stops getting them and
/// the caller goes on getting them.
///
/// When the command's stdout ends, so does the recorder's own (it writes nothing else
/// there): a caller sees the end of the agent's output when the agent ends it, not
/// when the recorder exits.
pub(super) fn start(
    stream: Stream,
    source: Option<impl Read + AsFd + Send + 'static>,
    order: Order,
    started: Instant,
    queue: Queue,
    halt: &Halt,
) -> JoinHandle<()> {
    let sink = match stream {
        Stream::Stdout => std::io::stdout().as_fd().try_clone_to_owned().ok(),
        Stream::Stderr | Stream::Stdin => std::io::stderr().as_fd().try_clone_to_owned().ok(),
    };
    let after = (stream == Stream::Stdout).then_some(close_stdout as fn());
    let sink = sink.map(std::fs::File::from);
    start_to(
        stream,
        source,
        sink,
        order,
        started,
        queue,
        (after, Some(halt.clone())),
    )
}

/// [`start`] with the bytes passed on to `sink` (in server mode, the client's
/// messages from the recorder's stdin to the command's): its end closes the sink;
/// then `after` runs, if given. With a [`Halt`], the sink is the caller, whose blocked
/// writes a halt cuts short.
pub(super) fn start_to(
    stream: Stream,
    source: Option<impl Read + AsFd + Send + 'static>,
    sink: Option<std::fs::File>,
    order: Order,
    started: Instant,
    queue: Queue,
    (after, halt): (Option<fn()>, Option<Halt>),
) -> JoinHandle<()> {
    if let Some(pipe) = &source {
        // Best effort: a smaller pipe only means smaller reads.
        let _ = nix::fcntl::fcntl(pipe.as_fd(), nix::fcntl::FcntlArg::F_SETPIPE_SZ(PIPE));
    }
    std::thread::spawn(move || {
        let halt = halt.unwrap_or_default();
        halt.register();
        let mut sink = Sink { file: sink, halt };
        let mut recording = true;
        let mut tee = true;
        if let Some(mut source) = source {
            // Once the writer is gone, one buffer does.
            let mut own = Vec::new();
            loop {
                let mut buffer = if recording && order == Order::CallerFirst {
                    queue.buffer()
                } else if own.is_empty() {
                    vec![0; CHUNK]
                } else {
                    std::mem::take(&mut own)
                };
                if order == Order::Causal {
                    let Some(len) = read(&mut source, &mut buffer) else {
                        break;
                    };
                    let at = started.elapsed();
                    if recording {
                        let mut copy = queue.buffer();
                        copy[..len].copy_from_slice(&buffer[..len]);
                        let event = Event::Chunk {
                            stream,
                            at,
                            buffer: copy,
                            len,
                        };
                        recording = queue.sender.send(event).is_ok();
                    }
                    sink.write(&buffer[..len]);
                    own = buffer;
                    continue;
                }
                let Some(len) = pass_on(&mut source, &mut sink, &mut buffer, &mut tee) else {
                    break;
                };
                let at = started.elapsed();
                if recording {
                    let event = Event::Chunk {
                        stream,
                        at,
                        buffer,
                        len,
                    };
                    recording = queue.sender.send(event).is_ok();
                } else {
                    own = buffer;
                }
            }
        }
        let _ = queue.sender.send(Event::Closed {
            stream,
            at: started.elapsed(),
        });
        let Sink { file, halt } = sink;
        drop(file);
        if let Some(after) = after {
            after();
        }
        halt.deregister();
    })
}

/// Ends the recorder's stdout: `/dev/null` takes its place, so that the last
/// descriptor of the caller's pipe is closed (the pump's own copy is already).
fn close_stdout() {
    if let Ok(null) = std::fs::OpenOptions::new().write(true).open("/dev/null") {
        let _ = nix::unistd::dup2_stdout(null);
    }
}

/// The next bytes of `source` in `buffer`: how many, or `None` at its end.
fn read(source: &mut impl Read, buffer: &mut [u8]) -> Option<usize> {
    loop {
        match source.read(buffer) {
            Ok(0) => return None,
            Ok(len) => return Some(len),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return None,
        }
    }
}

/// Where a pump passes bytes on: a sink that fails, or blocks once the recorder is
/// halted, is dropped (the caller gets no more, and the recording goes on).
struct Sink {
    file: Option<std::fs::File>,
    halt: Halt,
}

impl Sink {
    /// Writes `bytes` to the sink.
    fn write(&mut self, bytes: &[u8]) {
        let Some(out) = self.file.as_mut() else {
            return;
        };
        let mut rest = bytes;
        while !rest.is_empty() {
            match out.write(rest) {
                Ok(0) => break,
                Ok(len) => rest = &rest[len..],
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted && !self.halt.halted() => {}
                Err(_) => break,
            }
        }
        if !rest.is_empty() {
            self.file = None;
        }
    }
}

/// Passes the next bytes of `source` on to `sink`, then reads them into `buffer`:
/// how many, or `None` at the end of `source`.
///
/// Where both are pipes, `tee(2)` passes them on without copying them (and without
/// taking them from `source`), which halves what this thread copies; `tee` is true
/// until it fails once (a sink that is no pipe, a caller gone), and from then on the
/// bytes are read, then written, as everywhere else. A sink that fails is dropped:
/// the caller gets no more, and the recording goes on.
fn pass_on(
    source: &mut (impl Read + AsFd),
    sink: &mut Sink,
    buffer: &mut [u8],
    tee: &mut bool,
) -> Option<usize> {
    while *tee {
        let Some(out) = sink.file.as_ref() else {
            break;
        };
        match nix::fcntl::tee(source.as_fd(), out.as_fd(), buffer.len(), SpliceFFlags::empty()) {
            Ok(0) => return None,
            // The bytes are in the pipe still: one read takes them all.
            Ok(len) => return source.read_exact(&mut buffer[..len]).ok().map(|()| len),
            // Blocked on a caller that does not read, and the recorder is to end.
            Err(Errno::EINTR) if sink.halt.halted() => sink.file = None,
            Err(Errno::EINTR) => {}
            Err(_) => *tee = false,
        }
    }
    let len = read(source, buffer)?;
    sink.write(&buffer[..len]);
    Some(len)
}
