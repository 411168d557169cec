//! The end-to-end suite of the workspace: runs the `mock-agent` binary as users do.

mod support;

mod acp; // server mode: a real ACP client (the ACP crate) through whole sessions
mod acp_at_once; // server mode's plain runs write what a replay a message at a time writes, large and small
mod acp_cassettes; // the curated ACP cassettes lint clean and replay through `mock-agent acp` (snapshots)
mod acp_client_tools; // a client's files and terminals as the agent uses them: offered, refused, not offered, answered never or late, generated conversations
mod acp_consumers; // the harness on example ACP clients: the careful one copes, each bug is caught
mod acp_faults; // server mode's faults and presets through the binary
mod acp_generate; // generated conversations: protocol rules, replay through the binary, seeds, test and fuzz --acp
mod acp_record; // recording server mode both ways: same bytes on replay, secrets out, the shim
mod acp_schema; // every message server mode sends validates against the official ACP schema
mod acp_server; // recorded conversations replayed with live ids, divergences, step mode
mod acp_tools; // the client's file and terminal answers: errors, never, the unoffered-tools fault
mod acp_wire; // server mode by hand-written JSON lines: what a client library never sends, the journal, the end of stdin
mod claude; // Claude Code's stand-in as the Agent SDKs drive it: argv, the control protocol, states, hooks, -p
mod claude_consumers; // programs on the Python Claude Agent SDK on generated sessions (the conformance suite runs the rest)
mod claude_faults; // the catalogue's `claude` faults through the binary, ending as the real CLI
mod claude_flags; // flags and variables the real CLI honours: --replay-user-messages, the host's state variable, --resume of an unknown session
mod claude_fuzz; // fuzz --dialect claude: generated sessions with faults, shrunk to a Claude cassette that replays
mod claude_hostile; // the Claude Code stand-in under a hostile client: a line over the limit, floods, a journaled flood, a closed stdout
mod claude_permissions; // Claude Code's stand-in asking the host's permission: can_use_tool allowed, denied, interrupted, without the prompt tool, the end of stdin while it waits, a PreToolUse hook
mod claude_replay; // Claude Code cassettes: recording the mock as `claude` both ways, replay with live ids, divergences
mod claude_sdks; // the real Claude Agent SDKs (Python, TypeScript), unmodified, drive the mock as `claude`
mod claude_stream; // what the Claude Code stand-in streams: partial messages, timing, the journal
mod cli; // the emulated CLI's command line, subcommands and errors
mod codex; // Codex's stand-in (`codex exec --json`) through the binary: argv, the pure player's bytes, presets, resume, -o, schemas, cassettes, record, the careful program and planted bugs
mod codex_app_server; // `codex app-server` through the binary, and `test --dialect codex-app-server` on Python SDK clients: the careful one passes the matrix, each planted bug is caught
mod codex_sdks; // the real Codex SDKs (TypeScript on `exec`, Python on `app-server`), unmodified, drive the mock as `codex`
mod conformance; // what every registered dialect must do: names, faults, matrix, curated cassettes lint clean and replay losslessly, record then replay, the careful program passes, planted bugs caught
mod consumers; // the harness on example consumers: the careful one copes, each bug is caught
mod docs; // README.md and the guide (docs/): every shell, Python and JavaScript example runs, every link resolves
mod drift; // `mock-agent drift`: the real Claude Code and its stand-in on the same scenarios, differences only as the allow-list explains
mod faults; // every fault and preset through the binary, signals, stalls, closed pipes
mod formats; // every curated cassette rendered in every output format (snapshots)
mod gemini; // Gemini CLI's stand-in headless (`gemini -p`) through the binary: argv, the three formats byte for byte, presets, trust, resume, the relaunch, cassettes, record, the careful program and planted bugs
mod gemini_acp; // gemini --acp: Gemini CLI's profile of the ACP machinery, its recordings, its careful client and bugs
mod gemini_acp_clients; // real clients unmodified (acpx, the Python ACP SDK) drive the mock as gemini --acp
mod generate; // generated sessions through the binary: generate, MOCK_AGENT_GENERATE, saved cassettes
mod invalid; // one snapshot per malformed file under cassettes/invalid/
mod journal; // MOCK_AGENT_JOURNAL records each invocation
mod judge; // `mock-agent judge`: a run made elsewhere judged as `test` judges its own
mod layers; // each crate's modules import only from the layers below them
mod lint; // the protocol checker on files
mod model_api; // the scripted model APIs through the binary, and the real Claude Code, Codex and Gemini CLI run offline against them
mod npm; // the npm packages packed, installed by npm into a project, and run by vitest: the API, three SDK programs over their matrix, planted bugs caught
mod pytest; // the pytest plugin (python/mock_agent) on the example consumers, from a cached venv
mod record; // recording real runs as cassettes, secrets kept out
mod record_progress; // `record` draws its progress for a person at a terminal only, never on a pipe
mod record_signals; // `record` and signals: a killed recorder leaves nothing, signals passed on, recorded and raised again, SIGTERM to a recorder whose caller stopped reading
mod replay; // byte-exact replay, pipes closed early, the mock's own subcommands
mod report; // `test --report`: the HTML report rendered by headless Chromium, its DOM checked
mod roundtrip; // property tests: a cassette written by the library replays byte for byte
mod runner; // `mock-agent test` and `fuzz` as users see them: explained failures, repeats, flags, snapshots
mod sdks; // shared by the SDK tests: the SDKs a script installs, the command that runs a program of theirs
mod settings; // case settings beside the mock for allow-listed environments; cases whose agent never ran or got other settings are not run
mod structure; // the shape of the code: file lengths, no mutable global, wire names said once
mod timing; // timing schedules and step mode
mod trial_fixes; // what the trial of public programs found in the runner: multi-line exceptions, --filter twice, --format refused, not applicable cases
mod verdicts; // verdicts that say what happened: a command line the agent's CLI refused, the processes left named, a repro folder per case, either conclusion allowed, PostToolUse hooks
