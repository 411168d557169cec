//! The process's stdout and stderr as [`AsyncWrite`]s: written in place on the fast
//! path, or on a blocking thread when the executor must listen for signals meanwhile.

use std::future::Future as _;
use std::io;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use tokio::io::AsyncWrite;

/// The file written and what runs once it is closed.
struct Sink {
    file: Option<std::fs::File>,
    on_close: Option<Box<dyn FnOnce() + Send>>,
}

impl Sink {
    fn new(file: std::fs::File) -> Self {
        Sink {
            file: Some(file),
            on_close: None,
        }
    }

    #[must_use]
    fn on_close(self, f: impl FnOnce() + Send + 'static) -> Self {
        Sink {
            on_close: Some(Box::new(f)),
            ..self
        }
    }

    /// Closes the file, then runs what is to run then.
    fn close(&mut self) -> Poll<io::Result<()>> {
        self.file = None;
        if let Some(f) = self.on_close.take() {
            f();
        }
        Poll::Ready(Ok(()))
    }
}

impl std::fmt::Debug for Sink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sink")
            .field("file", &self.file)
            .finish_non_exhaustive()
    }
}

/// An [`AsyncWrite`] over a file (the process's stdout or stderr) that writes in
/// place: each write blocks until the pipe takes it.
///
/// For the fast path, where the executor runs alone on a current-thread runtime and
/// listens for no signal: a blocking write costs nothing there. Shutting it down closes
/// the file; [`Blocking::on_close`] runs then, as for [`Threaded`].
#[derive(Debug)]
pub struct Blocking(Sink);

impl Blocking {
    /// Writes to `file` in place.
    pub fn new(file: std::fs::File) -> Self {
        Blocking(Sink::new(file))
    }

    /// Runs `f` when the writer is shut down, after the file is closed.
    #[must_use]
    pub fn on_close(self, f: impl FnOnce() + Send + 'static) -> Self {
        Blocking(self.0.on_close(f))
    }
}

impl AsyncWrite for Blocking {
    fn poll_write(mut self: Pin<&mut Self>, _: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        use std::io::Write;
        Poll::Ready(match self.0.file.as_mut() {
            Some(file) => file.write(buf),
            None => Err(io::ErrorKind::BrokenPipe.into()),
        })
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.0.close()
    }
}

/// A write done on the blocking thread: the file and the buffer come back with its
/// result.
type Wrote = (std::fs::File, Vec<u8>, io::Result<usize>);

/// An [`AsyncWrite`] that writes on a blocking thread, so that the executor can
/// listen for signals while a write waits for a full pipe.
///
/// Shutting it down closes the file; [`Threaded::on_close`] runs then (the binary
/// points the process's stdout at `/dev/null`, so the consumer sees end of file).
#[derive(Debug)]
pub struct Threaded {
    sink: Sink,
    pending: Option<tokio::task::JoinHandle<Wrote>>,
    /// The buffer handed to the blocking thread, back for the next write.
    spare: Vec<u8>,
}

impl Threaded {
    /// Writes to `file` on a blocking thread.
    pub fn new(file: std::fs::File) -> Self {
        Threaded {
            sink: Sink::new(file),
            pending: None,
            spare: Vec::new(),
        }
    }

    /// Runs `f` when the writer is shut down, after the file is closed.
    #[must_use]
    pub fn on_close(mut self, f: impl FnOnce() + Send + 'static) -> Self {
        self.sink = self.sink.on_close(f);
        self
    }
}

impl AsyncWrite for Threaded {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        use std::io::Write;
        if self.pending.is_none() {
            let Some(mut file) = self.sink.file.take() else {
                return Poll::Ready(Err(io::ErrorKind::BrokenPipe.into()));
            };
            let mut data = std::mem::take(&mut self.spare);
            data.clear();
            data.extend_from_slice(buf);
            self.pending = Some(tokio::task::spawn_blocking(move || {
                let written = file.write(&data);
                (file, data, written)
            }));
        }
        let Some(handle) = self.pending.as_mut() else {
            return Poll::Ready(Err(io::ErrorKind::BrokenPipe.into()));
        };
        let joined = ready!(Pin::new(handle).poll(cx));
        self.pending = None;
        match joined {
            Ok((file, data, written)) => {
                self.sink.file = Some(file);
                self.spare = data;
                Poll::Ready(written)
            }
            Err(e) => Poll::Ready(Err(io::Error::other(e))),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.sink.close()
    }
}
