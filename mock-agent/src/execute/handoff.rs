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

/// A write done: the file and the buffer come back with its result.
type Written = (File, Vec<u8>, io::Result<()>);

impl Handoff {
    /// Writes to `file` on a writing thread.
    pub fn new(file: File) -> Self {
        Handoff {
            file: Some(file),
            filling: Vec::new(),
            spare: Vec::new(),
            writing: None,
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
            Ok((file, mut buffer, written)) => {
                self.file = Some(file);
                buffer.clear();
                self.spare = buffer;
                written
            }
            Err(e) => Err(io::Error::other(e)),
        })
    }

    /// Hands the buffer filled to the writing thread; none is under way.
    fn hand_over(&mut self) -> io::Result<()> {
        let Some(mut file) = self.file.take() else {
            return Err(io::ErrorKind::BrokenPipe.into());
        };
        let buffer = std::mem::replace(&mut self.filling, std::mem::take(&mut self.spare));
        self.writing = Some(tokio::task::spawn_blocking(move || {
            let written = io::Write::write_all(&mut file, &buffer);
            (file, buffer, written)
        }));
        Ok(())
    }
}

impl Handoff {
    /// Hands `run` itself to the writing thread (no copy of it), after what this
    /// writer holds already (in order): waits for the write under way, if any, and
    /// for the bytes being filled, if any; gives back an empty buffer to fill next
    /// (the one written before, so two buffers take turns). A failed write is
    /// reported by this call or the next, as [`tokio::io::AsyncWrite::poll_write`]
    /// reports it.
    pub async fn hand_owned(&mut self, run: Vec<u8>) -> io::Result<Vec<u8>> {
        std::future::poll_fn(|cx| self.poll_written(cx)).await?;
        if !self.filling.is_empty() {
            self.hand_over()?;
            std::future::poll_fn(|cx| self.poll_written(cx)).await?;
        }
        let back = std::mem::take(&mut self.spare);
        self.filling = run;
        self.hand_over()?;
        Ok(back)
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
