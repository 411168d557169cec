//! Stdout written by a writing thread, fed a buffer at a time: the hand-offs between
//! the executor and the thread are few (one a [`HANDOFF`] bytes, or a flush), and
//! the executor listens for signals while a write waits for a full pipe.

use std::fs::File;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

/// The most stdout bytes handed to the writing thread at once.
pub const HANDOFF: usize = 512 << 10;

/// Stdout of a run: the bytes are handed to a writing thread a buffer ([`HANDOFF`]
/// bytes) at a time, and the executor fills the next buffer while the thread writes
/// the last one, so that reading a long turn and writing it to the pipe overlap.
/// Two buffers at most: one written, one filled. A flush returns once every byte is
/// written. A failed write is reported by the next call. Shutting it down writes what
/// it holds, closes the file, and runs [`Handoff::on_close`]'s function.
pub struct Handoff {
    /// The file, when no write holds it.
    file: Option<File>,
    /// The buffer being filled.
    filling: Vec<u8>,
    /// The buffer last written, emptied, for the next turn of filling.
    spare: Vec<u8>,
    /// The write under way.
    writing: Option<tokio::task::JoinHandle<Written>>,
    /// The buffer last taken whole ([`TakeBuffer::poll_take`]) and written, emptied,
    /// for the caller to fill next.
    taken: Vec<u8>,
    /// What runs once the file is closed.
    on_close: Option<Box<dyn FnOnce() + Send>>,
}

impl std::fmt::Debug for Handoff {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Handoff")
            .field("file", &self.file)
            .field("filling", &self.filling.len())
            .finish_non_exhaustive()
    }
}

/// A write done: the file and the buffers come back with its result (the second, a
/// buffer taken whole, is empty but for [`TakeBuffer::poll_take`]'s writes).
type Written = (File, Vec<u8>, Vec<u8>, io::Result<()>);

impl Handoff {
    /// Writes to `file` on a writing thread.
    pub fn new(file: File) -> Self {
        Handoff {
            file: Some(file),
            filling: Vec::new(),
            spare: Vec::new(),
            writing: None,
            taken: Vec::new(),
            on_close: None,
        }
    }

    /// Runs `f` when the writer is shut down, after the file is closed.
    #[must_use]
    pub fn on_close(mut self, f: impl FnOnce() + Send + 'static) -> Self {
        self.on_close = Some(Box::new(f));
        self
    }

    /// Waits for the write under way, if any; its result.
    fn poll_written(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let Some(writing) = self.writing.as_mut() else {
            return Poll::Ready(Ok(()));
        };
        let joined = ready!(Pin::new(writing).poll(cx));
        self.writing = None;
        Poll::Ready(match joined {
            Ok((file, mut buffer, mut taken, written)) => {
                self.file = Some(file);
                buffer.clear();
                self.spare = buffer;
                if taken.capacity() > 0 {
                    taken.clear();
                    self.taken = taken;
                }
                written
            }
            Err(e) => Err(io::Error::other(e)),
        })
    }

    /// Hands the buffer filled to the writing thread; none is under way.
    fn hand_over(&mut self) -> io::Result<()> {
        self.hand_over_with(Vec::new())
    }

    /// Hands the buffer filled, then `taken`, to the writing thread; none is under way.
    fn hand_over_with(&mut self, taken: Vec<u8>) -> io::Result<()> {
        let Some(mut file) = self.file.take() else {
            return Err(io::ErrorKind::BrokenPipe.into());
        };
        let buffer = std::mem::replace(&mut self.filling, std::mem::take(&mut self.spare));
        self.writing = Some(tokio::task::spawn_blocking(move || {
            let written = io::Write::write_all(&mut file, &buffer)
                .and_then(|()| io::Write::write_all(&mut file, &taken));
            (file, buffer, taken, written)
        }));
        Ok(())
    }
}

impl tokio::io::AsyncWrite for Handoff {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        if self.filling.len() >= HANDOFF {
            ready!(self.poll_written(cx))?;
            self.hand_over()?;
        }
        if self.filling.capacity() == 0 {
            self.filling.reserve_exact(HANDOFF);
        }
        let n = buf.len().min(HANDOFF - self.filling.len());
        self.filling.extend_from_slice(&buf[..n]);
        Poll::Ready(Ok(n))
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.poll_written(cx))?;
        if !self.filling.is_empty() {
            self.hand_over()?;
            ready!(self.poll_written(cx))?;
        }
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let flushed = ready!(self.as_mut().poll_flush(cx));
        self.filling.clear();
        self.file = None;
        if let Some(f) = self.on_close.take() {
            f();
        }
        Poll::Ready(flushed)
    }
}

/// A stdout that can be handed a buffer of bytes whole ([`super::Output::perform_buffer`]):
/// [`Handoff`] gives it to its writing thread as it is, not copied; any other writer
/// (the default) copies it, as [`tokio::io::AsyncWriteExt::write_all`] does.
pub trait TakeBuffer: tokio::io::AsyncWrite + Unpin {
    /// Writes the bytes of `buf` after every byte written before, taking the buffer
    /// or copying it; `buf` is left empty (a buffer to fill next, with or without
    /// room). A write that fails is reported here or by the next call.
    fn poll_take(&mut self, cx: &mut Context<'_>, buf: &mut Vec<u8>) -> Poll<io::Result<()>> {
        while !buf.is_empty() {
            let n = ready!(Pin::new(&mut *self).poll_write(cx, buf))?;
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            buf.drain(..n);
        }
        Poll::Ready(Ok(()))
    }
}

impl<T: tokio::io::AsyncWrite + Unpin + ?Sized> TakeBuffer for &mut T {}

impl TakeBuffer for Handoff {
    /// Waits for the write under way, then hands what was filled and `buf` to the
    /// writing thread, in that order; `buf` gets the buffer taken the time before
    /// (emptied), so that two such buffers at most are in play.
    fn poll_take(&mut self, cx: &mut Context<'_>, buf: &mut Vec<u8>) -> Poll<io::Result<()>> {
        if buf.is_empty() {
            return Poll::Ready(Ok(()));
        }
        ready!(self.poll_written(cx))?;
        let taken = std::mem::replace(buf, std::mem::take(&mut self.taken));
        Poll::Ready(self.hand_over_with(taken))
    }
}

#[cfg(test)]
mod tests {
    use std::io::{Read, Seek};

    use tokio::io::AsyncWriteExt;

    use super::*;

    /// Bytes written and buffers taken reach the file in the order given; each buffer
    /// taken leaves an empty one to fill next.
    #[tokio::test]
    async fn buffers_taken_whole_keep_their_place_among_the_writes() {
        let mut file = tempfile::tempfile().expect("a file");
        let mut out = Handoff::new(file.try_clone().expect("clones"));
        let mut expected = Vec::new();
        let mut run = Vec::new();
        for n in 0..200u32 {
            let written = format!("w{n} ").repeat(1 + (n as usize * 7919) % 5000);
            out.write_all(written.as_bytes()).await.expect("writes");
            expected.extend_from_slice(written.as_bytes());
            assert!(run.is_empty());
            run.extend_from_slice(
                format!("t{n} ")
                    .repeat(1 + (n as usize * 104_729) % 90_000)
                    .as_bytes(),
            );
            expected.extend_from_slice(&run);
            std::future::poll_fn(|cx| out.poll_take(cx, &mut run))
                .await
                .expect("takes");
            assert!(run.is_empty(), "an empty buffer comes back");
        }
        out.shutdown().await.expect("shuts down");
        let mut written = Vec::new();
        file.rewind().expect("rewinds");
        file.read_to_end(&mut written).expect("reads");
        assert!(
            written == expected,
            "{} bytes, {} expected",
            written.len(),
            expected.len()
        );
    }

    /// Any other writer copies what it is handed.
    #[tokio::test]
    async fn another_writer_copies_a_buffer() {
        let mut out: Vec<u8> = b"a".to_vec();
        let mut run = b"bc".to_vec();
        let mut sink = &mut out;
        std::future::poll_fn(|cx| sink.poll_take(cx, &mut run))
            .await
            .expect("takes");
        assert!(run.is_empty());
        assert_eq!(out, b"abc");
    }
}
