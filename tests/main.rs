//! The end-to-end suite: runs the `mock-agent` binary as users do.

mod support;
