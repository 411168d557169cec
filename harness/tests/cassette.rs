//! A cassette written by the library reads back as the frames written, whatever the
//! bytes are.

use harness::cassette;
use harness::Frame;
use proptest::prelude::*;

use crate::shared::{cases, frames, write};

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(256)))]

    /// Cassette write -> read gives the same frames.
    #[test]
    fn cassettes_round_trip(frames in frames()) {
        let dir = tempfile::tempdir().map_err(|e| TestCaseError::fail(e.to_string()))?;
        let path = dir.path().join("x.cassette");
        write(&path, &frames)?;
        let read: Result<Vec<Frame>, _> = cassette::open(&path).map_err(|e| TestCaseError::fail(e.to_string()))?.collect();
        prop_assert_eq!(read.map_err(|e| TestCaseError::fail(e.to_string()))?, frames);
    }
}
