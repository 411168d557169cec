//! Child processes, as the runner and the recording proxy start them: an environment
//! without the mock's own settings, and pipes read to their end on threads of their
//! own.

use std::io::Read;
use std::process::Command;
use std::sync::mpsc::{self, Receiver};

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
