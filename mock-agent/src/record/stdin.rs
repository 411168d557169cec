//! The tee of stdin: what the caller gives goes on to the recorded command, and its
//! first [`MAX_STDIN`] bytes are kept for the cassette (the prompt, when the
//! arguments have none).

use std::io::{Read, Write};
use std::process::ChildStdin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use super::MAX_STDIN;

/// What stdin gave so far, shared with the thread that passes it on.
#[derive(Debug, Clone)]
pub(super) struct Kept {
    bytes: Arc<Mutex<Vec<u8>>>,
    ended: Arc<AtomicBool>,
}

impl Kept {
    fn new(ended: bool) -> Self {
        Kept {
            bytes: Arc::default(),
            ended: Arc::new(AtomicBool::new(ended)),
        }
    }

    fn keep(&self, bytes: &[u8]) {
        if let Ok(mut kept) = self.bytes.lock() {
            let room = MAX_STDIN.saturating_sub(kept.len());
            kept.extend_from_slice(&bytes[..bytes.len().min(room)]);
        }
    }

    /// Whether what is kept is final: stdin ended, or [`MAX_STDIN`] bytes are kept.
    pub(super) fn is_final(&self) -> bool {
        self.ended.load(Ordering::Acquire) || self.bytes.lock().is_ok_and(|k| k.len() >= MAX_STDIN)
    }

    /// What is kept so far.
    pub(super) fn bytes(&self) -> Vec<u8> {
        self.bytes.lock().map(|k| k.clone()).unwrap_or_default()
    }
}

/// Passes the recorder's stdin (or the `given` bytes) on to the command on a thread
/// of its own, and closes the command's stdin at the end. With no pipe to the
/// command there is nothing to pass on, and nothing is kept.
pub(super) fn tee(to_child: Option<ChildStdin>, given: Option<Vec<u8>>) -> Kept {
    let Some(mut to_child) = to_child else {
        return Kept::new(true);
    };
    let kept = Kept::new(false);
    let shared = kept.clone();
    std::thread::spawn(move || {
        match given {
            Some(bytes) => {
                shared.keep(&bytes);
                let _ = to_child.write_all(&bytes);
            }
            None => {
                let mut buf = vec![0u8; 64 << 10];
                let mut stdin = std::io::stdin().lock();
                while let Ok(n) = stdin.read(&mut buf) {
                    if n == 0 || to_child.write_all(&buf[..n]).is_err() {
                        break;
                    }
                    shared.keep(&buf[..n]);
                }
            }
        }
        drop(to_child);
        shared.ended.store(true, Ordering::Release);
    });
    kept
}
