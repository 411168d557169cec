//! The event model round-trips through JSON, and keeps what it does not know.

use harness::dialects::cursor_print::events::Event;
use proptest::prelude::*;
use serde_json::Value;

use crate::shared::{cases, event, extra};

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(512)))]

    /// Typed events survive serialize -> parse.
    #[test]
    fn events_round_trip(event in event()) {
        let line = event.to_line();
        prop_assert!(!line.contains('\n'));
        let back = Event::from_slice(line.as_bytes()).map_err(|e| TestCaseError::fail(format!("{e}: {line}")))?;
        prop_assert_eq!(back, event);
    }

    /// Any JSON object survives parse -> serialize as the same JSON value, whether or
    /// not the model knows its type, and keeps its keys in order.
    #[test]
    fn events_are_lossless(event in event(), more in extra()) {
        let mut value = serde_json::to_value(&event).map_err(|e| TestCaseError::fail(e.to_string()))?;
        if let Value::Object(map) = &mut value {
            map.extend(more);
        }
        let line = serde_json::to_string(&value).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let parsed = Event::from_slice(line.as_bytes()).map_err(|e| TestCaseError::fail(format!("{e}: {line}")))?;
        prop_assert_eq!(parsed.to_line(), line);
    }
}
