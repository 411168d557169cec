//! Property tests: a cassette written by the library replays byte for byte through the
//! binary, whatever the bytes are. (The event model and cassette write -> read round
//! trips are the harness's own tests, `harness/tests/`.)

use std::os::unix::process::ExitStatusExt;

use harness::{Ending, Exit, Frame, Stream};
use proptest::prelude::*;

#[path = "../harness/tests/shared.rs"]
pub mod shared;

pub use shared::cases;
use shared::{frames, write};

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(48)))]

    /// Cassette write -> replay by the binary gives the recorded bytes per stream and
    /// the recorded ending, whatever the bytes are.
    #[test]
    fn cassettes_replay_byte_for_byte(frames in frames()) {
        let dir = tempfile::tempdir().map_err(|e| TestCaseError::fail(e.to_string()))?;
        let path = dir.path().join("x.cassette");
        write(&path, &frames)?;
        // Replayed the way it was recorded (the header says: without the flag).
        let output = crate::support::mock()
            .current_dir(dir.path())
            .args(["replay"])
            .arg(&path)
            .output()
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        let (mut out, mut err) = (Vec::new(), Vec::new());
        for frame in &frames {
            if let Frame::Line(line) = frame {
                let sink = if line.stream == Stream::Stdout { &mut out } else { &mut err };
                sink.extend_from_slice(&line.bytes);
                if line.newline {
                    sink.push(b'\n');
                }
            }
        }
        prop_assert_eq!(output.stdout, out);
        prop_assert_eq!(output.stderr, err);
        match frames.last() {
            Some(Frame::End(Ending { exit: Exit::Code(code), .. })) => prop_assert_eq!(output.status.code(), Some(*code)),
            Some(Frame::End(Ending { exit: Exit::Signal(signal), .. })) => prop_assert_eq!(output.status.signal(), Some(signal.number())),
            _ => prop_assert!(false, "no ending"),
        }
    }
}
