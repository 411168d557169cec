//! The end-to-end suite of the workspace: runs the `mock-agent` binary as users do.

mod support;

mod acp; // server mode: a real ACP client through whole sessions, hand-written JSON for the rest
mod cli; // the emulated CLI's command line, subcommands and errors
mod consumers; // the harness on example consumers: the careful one copes, each bug is caught
mod faults; // every fault and preset through the binary, signals, stalls, closed pipes
mod formats; // every curated cassette rendered in every output format (snapshots)
mod generate; // generated sessions: strategies, checker, seeds, cassettes
mod invalid; // one snapshot per malformed file under cassettes/invalid/
mod journal; // MOCK_AGENT_JOURNAL records each invocation
mod layers; // each crate's modules import only from the layers below them
mod lint; // the protocol checker on files
mod record; // recording real runs as cassettes, secrets kept out
mod replay; // byte-exact replay, pipes closed early, the mock's own subcommands
mod roundtrip; // property tests: event model and cassette write -> read -> replay
mod timing; // timing schedules and step mode
