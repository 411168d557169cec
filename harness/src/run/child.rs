//! Child processes, as the runner and the recording proxy start them: an environment
//! without the mock's own settings, and pipes read to their end on threads of their
//! own ([`drain`]) or, in the runner, on the caller's thread while a thread that lives
//! as long as the runner's worker waits for the child.

use std::fs::File;
use std::io::{PipeReader, PipeWriter, Read};
use std::os::fd::{AsFd, OwnedFd};
use std::process::{Child, ChildStderr, ChildStdout, Command, ExitStatus};
use std::sync::mpsc::{self, Receiver};
use std::time::Instant;

use nix::poll::{poll, PollFd, PollFlags, PollTimeout};

/// Removes every `MOCK_AGENT_*` variable of this process from the child's
/// environment: a child never inherits the settings of the mock that started it (a
/// recording never records a mock by accident; a case gets only its own settings).
pub fn without_mock_env(command: &mut Command) -> &mut Command {
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("MOCK_AGENT_") {
            command.env_remove(name);
        }
    }
    command
}

/// Reads `pipe` to its end on a thread of its own and sends what it read, at most its
/// first `cap` bytes, once the pipe has ended. `None` (a stream not piped) sends
/// nothing read.
pub fn drain(pipe: Option<impl Read + Send + 'static>, cap: usize) -> Receiver<Vec<u8>> {
    let (sender, receiver) = mpsc::channel();
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        if let Some(mut pipe) = pipe {
            let mut buf = [0u8; 64 << 10];
            loop {
                match pipe.read(&mut buf) {
                    Ok(0) => break,
                    Ok(n) => {
                        let room = cap.saturating_sub(bytes.len());
                        bytes.extend_from_slice(&buf[..n.min(room)]);
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(_) => break,
                }
            }
        }
        let _ = sender.send(bytes);
    });
    receiver
}

/// Waits for children on a thread of its own, one at a time, for as long as it lives:
/// the runner learns of a consumer's end at once without a thread per case (a
/// thread's creation and its stack cost more than the rest of the runner's work on a
/// case).
pub(super) struct Reaper {
    children: mpsc::Sender<(Child, PipeWriter)>,
    statuses: Receiver<std::io::Result<ExitStatus>>,
}

impl Reaper {
    /// Starts the thread; it ends when the reaper is dropped (once the child it waits
    /// for, if any, has ended).
    pub(super) fn new() -> std::io::Result<Reaper> {
        let (children, to_wait) = mpsc::channel::<(Child, PipeWriter)>();
        let (ended, statuses) = mpsc::channel();
        std::thread::Builder::new()
            .name("mock-agent-reaper".to_owned())
            .stack_size(64 << 10)
            .spawn(move || {
                for (mut child, end) in to_wait {
                    // The status first, then the end of the pipe: whoever sees the end
                    // finds the status waiting.
                    if ended.send(child.wait()).is_err() {
                        break;
                    }
                    drop(end);
                }
            })?;
        Ok(Reaper { children, statuses })
    }

    /// Waits for `child`; the returned pipe reads its end (EOF) once the child has
    /// ended, and [`Reaper::status`] then says how. On an error the child is
    /// returned, not waited for.
    pub(super) fn watch(&self, child: Child, end: PipeWriter) -> Result<(), Child> {
        self.children.send((child, end)).map_err(|e| e.0 .0)
    }

    /// How the child last watched ended, once it has.
    pub(super) fn status(&self) -> std::io::Result<ExitStatus> {
        self.statuses
            .recv()
            .unwrap_or_else(|_| Err(std::io::Error::other("the thread that waits for consumers ended")))
    }
}

/// A child's stdout and stderr, read as they come on the caller's thread (with
/// `poll`), each up to a cap and then its last [`TAIL`] bytes, and a pipe that reads its end once the child has ended
/// (see [`Reaper::watch`]).
pub(super) struct Watch<'a> {
    streams: [Stream; 2],
    end: Option<PipeReader>,
    /// Where reads go first (only what came is kept): at least [`READ`] bytes.
    scratch: &'a mut Vec<u8>,
}

/// One of a child's output streams.
struct Stream {
    /// `None` once it has ended.
    pipe: Option<File>,
    /// What was read, up to `cap` bytes, then the last [`TAIL`] bytes.
    kept: Kept,
}

/// What is kept of a stream: its first `cap` bytes, and past them its last [`TAIL`]
/// bytes (the end of a traceback is what says what broke), and how many were dropped
/// between.
struct Kept {
    head: Vec<u8>,
    cap: usize,
    /// The bytes past `head`, of which the last `TAIL` are kept (the rest dropped
    /// from the front now and then, so that keeping costs no more than copying).
    tail: Vec<u8>,
    dropped: u64,
}

/// How much of a stream's end is kept past its first bytes.
pub const TAIL: usize = 64 << 10;

impl Kept {
    fn new(cap: usize) -> Self {
        Kept {
            head: Vec::new(),
            cap,
            tail: Vec::new(),
            dropped: 0,
        }
    }

    fn push(&mut self, bytes: &[u8]) {
        let room = self.cap.saturating_sub(self.head.len());
        let (head, rest) = bytes.split_at(bytes.len().min(room));
        self.head.extend_from_slice(head);
        if rest.is_empty() {
            return;
        }
        self.tail.extend_from_slice(rest);
        if self.tail.len() > 2 * TAIL {
            let drop = self.tail.len() - TAIL;
            self.tail.drain(..drop);
            self.dropped += drop as u64;
        }
    }

    /// The bytes kept: all of them when nothing was dropped, else the head, a line
    /// that says how much was left out, and the tail.
    fn into_bytes(self) -> Vec<u8> {
        let Kept {
            mut head,
            mut tail,
            mut dropped,
            ..
        } = self;
        if tail.len() > TAIL {
            let drop = tail.len() - TAIL;
            tail.drain(..drop);
            dropped += drop as u64;
        }
        if dropped > 0 {
            head.extend_from_slice(omitted(dropped).as_bytes());
        }
        head.extend_from_slice(&tail);
        head
    }
}

/// Of `bytes`, the first `cap` and the last [`TAIL`], with a line that says how much
/// was left out between them (nothing is when they are all kept).
pub fn keep(bytes: Vec<u8>, cap: usize) -> Vec<u8> {
    if bytes.len() <= cap + TAIL {
        return bytes;
    }
    let mut kept = Kept::new(cap);
    kept.push(&bytes);
    kept.into_bytes()
}

/// Reads `reader` to its end and keeps of it what the runner keeps of a consumer's
/// stream while a case runs: its first `cap` bytes and its last [`TAIL`], with a line
/// that says how much was left out between them. For streams saved elsewhere
/// (`mock-agent judge`), judged as the runner judges its own.
pub fn read_kept(mut reader: impl Read, cap: usize) -> std::io::Result<Vec<u8>> {
    let mut kept = Kept::new(cap);
    let mut buf = vec![0u8; READ];
    loop {
        match reader.read(&mut buf) {
            Ok(0) => return Ok(kept.into_bytes()),
            Ok(n) => kept.push(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

/// The line that stands for `n` bytes left out of a stream.
pub fn omitted(n: u64) -> String {
    format!("\n[... {n} bytes left out ...]\n")
}

impl Stream {
    fn new(pipe: Option<File>, cap: usize) -> Self {
        Stream {
            pipe,
            kept: Kept::new(cap),
        }
    }

    /// Reads what the pipe has (it said it has something, or has ended) through
    /// `scratch`: the first `cap` bytes are kept, and the last [`TAIL`].
    fn read(&mut self, scratch: &mut [u8]) {
        let Some(pipe) = self.pipe.as_mut() else {
            return;
        };
        match pipe.read(scratch) {
            Ok(0) => self.pipe = None,
            Ok(n) => self.kept.push(&scratch[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => self.pipe = None,
        }
    }
}

/// The most read from a pipe at once.
const READ: usize = 64 << 10;

/// Which of a child's output streams.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Which {
    /// Its stdout.
    Stdout = 0,
    /// Its stderr.
    Stderr = 1,
}

impl<'a> Watch<'a> {
    /// Watches a child's streams (`None`: not piped, nothing read) and the pipe that
    /// reads its end, reading through `scratch` (kept from child to child, so that
    /// no case allocates a buffer of its own).
    pub(super) fn new(
        stdout: Option<ChildStdout>,
        stderr: Option<ChildStderr>,
        end: PipeReader,
        cap: usize,
        scratch: &'a mut Vec<u8>,
    ) -> Watch<'a> {
        if scratch.len() < READ {
            scratch.resize(READ, 0);
        }
        let file = |fd: OwnedFd| File::from(fd);
        Watch {
            streams: [
                Stream::new(stdout.map(|p| file(p.into())), cap),
                Stream::new(stderr.map(|p| file(p.into())), cap),
            ],
            end: Some(end),
            scratch,
        }
    }

    /// Whether the child has ended.
    pub(super) fn exited(&self) -> bool {
        self.end.is_none()
    }

    /// Whether a stream has ended (all its writers have closed it).
    pub(super) fn closed(&self, which: Which) -> bool {
        self.streams[which as usize].pipe.is_none()
    }

    /// Reads the streams as they come until `done` holds (true) or `deadline` passes
    /// (false). Until then, nothing written to the streams waits for the reader.
    pub(super) fn until(&mut self, deadline: Instant, done: impl Fn(&Self) -> bool) -> bool {
        loop {
            if done(self) {
                return true;
            }
            let now = Instant::now();
            if now >= deadline {
                return false;
            }
            // Milliseconds, rounded up, so that a wait never ends early.
            let left = (deadline - now).as_micros().div_ceil(1000);
            let timeout = PollTimeout::try_from(left).unwrap_or(PollTimeout::MAX);
            let [out, err] = &self.streams;
            let pipes = [out.pipe.as_ref(), err.pipe.as_ref()];
            let mut fds: Vec<PollFd<'_>> = Vec::with_capacity(3);
            let mut whose = Vec::with_capacity(3);
            for (index, pipe) in pipes.iter().enumerate() {
                if let Some(pipe) = pipe {
                    fds.push(PollFd::new(pipe.as_fd(), PollFlags::POLLIN));
                    whose.push(Some(index));
                }
            }
            if let Some(end) = &self.end {
                fds.push(PollFd::new(end.as_fd(), PollFlags::POLLIN));
                whose.push(None);
            }
            match poll(&mut fds, timeout) {
                Ok(_) => {}
                Err(nix::errno::Errno::EINTR) => continue,
                // Out of kernel memory, say: tried again in a moment, until the
                // deadline.
                Err(_) => {
                    std::thread::sleep(std::time::Duration::from_millis(1));
                    continue;
                }
            }
            let ready: Vec<Option<usize>> = fds
                .iter()
                .zip(&whose)
                .filter(|(fd, _)| fd.revents().is_some_and(|r| !r.is_empty()))
                .map(|(_, who)| *who)
                .collect();
            for who in ready {
                match who {
                    Some(index) => self.streams[index].read(self.scratch),
                    // The reaper holds the other end, and closes it once the child
                    // has ended.
                    None => self.end = None,
                }
            }
        }
    }

    /// What each stream gave: its bytes, or `None` when it has not ended (a process
    /// still holds it open).
    pub(super) fn into_output(self) -> [Option<Vec<u8>>; 2] {
        self.streams
            .map(|s| s.pipe.is_none().then(|| s.kept.into_bytes()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Stdio;
    use std::time::Duration;

    #[test]
    fn a_watch_keeps_the_first_bytes_up_to_its_cap_then_the_last_and_sees_the_end() {
        let reaper = Reaper::new().expect("a thread");
        let mut scratch = Vec::new();
        for run in 0..2 {
            let mut child = Command::new("sh")
                .args(["-c", "head -c 100000 /dev/zero; printf abc >&2"])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("spawns");
            let (end, ended) = std::io::pipe().expect("a pipe");
            let mut watch = Watch::new(child.stdout.take(), child.stderr.take(), end, 1000, &mut scratch);
            assert!(reaper.watch(child, ended).is_ok());
            let deadline = Instant::now() + Duration::from_secs(60);
            assert!(watch.until(deadline, Watch::exited), "run {run}: the end is seen");
            assert!(reaper.status().expect("a status").success());
            for which in [Which::Stdout, Which::Stderr] {
                assert!(watch.until(deadline, |w| w.closed(which)));
            }
            let [stdout, stderr] = watch.into_output();
            let stdout = stdout.expect("ended");
            let mut kept = vec![0u8; 1000];
            kept.extend_from_slice(omitted(100_000 - 1000 - TAIL as u64).as_bytes());
            kept.extend_from_slice(&[0u8; TAIL]);
            assert_eq!(stdout, kept, "run {run}: the first 1000 bytes and the last TAIL");
            assert_eq!(stderr.as_deref(), Some(&b"abc"[..]));
        }
    }

    #[test]
    fn a_stream_read_from_a_file_is_kept_as_a_piped_one() {
        let bytes: Vec<u8> = (0..300_000u32).map(|i| (i % 251) as u8).collect();
        for (len, cap) in [(0, 1000), (5000, 1000), (300_000, 1000), (300_000, 200_000)] {
            let read = read_kept(&bytes[..len], cap).expect("reads");
            assert_eq!(read, keep(bytes[..len].to_vec(), cap), "{len} bytes, cap {cap}");
        }
    }
}
