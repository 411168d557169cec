//! Claude Code's section of the one fault catalogue (`claude`, stream-json both ways).

use super::super::wire::{control as claude_control, types as claude_types};
use crate::faults::lines;
use crate::faults::{e, Described, Site, CUT, LINE, REQUEST};

/// Claude Code's faults and presets, in documentation order.
pub const CATALOGUE: &[Described] = &[
    e(
        "exit",
        "code=C, after=N|at=TYPE",
        "the process exits with code C there, without a result (default 1, at=result)",
        "exit:code=1,at=can_use_tool",
    )
    .placed(LINE, Some(Site::At(claude_types::RESULT)))
    .misbehaving("`exit:code=0`: the process ends without a result and exit 0"),
    e(
        "signal",
        "name=KILL|TERM|SEGV|ABRT|..., after=N|at=TYPE, byte=K",
        "the process dies by that signal there (default KILL at=result)",
        "signal:name=KILL,at=assistant",
    )
    .placed(CUT, Some(Site::At(claude_types::RESULT))),
    e(
        "eof",
        "after=N|at=TYPE, byte=K",
        "stdout stops in the middle of that line and the process exits 1 (default at=result)",
        "eof:at=result,byte=40",
    )
    .placed(CUT, Some(Site::At(claude_types::RESULT))),
    e(
        "stall",
        "ms=N, after=N|at=TYPE",
        "writes nothing for N ms, or forever; SIGTERM/SIGINT end it (default at=result)",
        "stall:at=result",
    )
    .placed(LINE, Some(Site::At(claude_types::RESULT))),
    e(
        "malformed",
        "after=N|at=TYPE",
        "a line that starts as JSON and is not (the SDKs' CLIJSONDecodeError; default after=1)",
        "malformed:at=assistant",
    )
    .placed(LINE, Some(Site::After(1))),
    e(
        "unknown",
        "after=N|at=TYPE",
        "a line of a type no SDK knows (`forecast_event`) before that line (default after=1)",
        "unknown:at=result",
    )
    .placed(LINE, Some(Site::After(1))),
    e(
        "huge",
        "bytes=N, after=N|at=TYPE",
        "an assistant text line of N bytes (default 1 MiB + 1, past the Python SDK's buffer; at=result)",
        "huge:bytes=2000000",
    )
    .placed(LINE, Some(Site::At(claude_types::RESULT))),
    e(
        "missing",
        "field=F",
        "leaves the field F out of every line that has it (`num_turns`, `model`, `session_id`)",
        "missing:field=num_turns",
    ),
    lines::stderr_entry("text=T, after=N|at=TYPE", "stderr:text=\"[warn] slow\""),
    lines::STDERR_FLOOD,
    e(
        "no-response",
        "method=M",
        "the client's control request M (`initialize`, `set_model`, ...) is never answered",
        "no-response:method=initialize",
    )
    .placed(REQUEST, Some(Site::Method(claude_control::INITIALIZE))),
    e(
        "error",
        "method=M, message=T",
        "the client's control request M is answered with an error",
        "error:method=initialize,message=\"Not ready\"",
    )
    .placed(REQUEST, Some(Site::Method(claude_control::INITIALIZE))),
    e(
        "not-logged-in",
        "",
        "preset: a synthetic assistant message `Not logged in · Please run /login`, an error result (is_error), exit 1",
        "not-logged-in",
    )
    .preset(),
    e(
        "invalid-api-key",
        "",
        "preset: the API answers 401: `Invalid API key · Fix external API key`, an error result, exit 1",
        "invalid-api-key",
    )
    .preset(),
    e(
        "rate-limited",
        "",
        "preset: the API answers 429 and no retry is left: `API Error: Request rejected (429) · ...`, an error result, exit 1",
        "rate-limited",
    )
    .preset(),
    e(
        "connection-lost",
        "",
        "preset: the answer's stream is cut short and no retry is left: `API Error: Connection lost mid-response. ...`, an error result, exit 1",
        "connection-lost",
    )
    .preset(),
    e(
        "max-turns",
        "",
        "preset: the turn stops after its first tool call with `error_max_turns`, exit 1",
        "max-turns",
    )
    .preset(),
    e(
        "error-result",
        "text=T",
        "preset: the turn ends with an `error_during_execution` result whose errors are [T], exit 1",
        "error-result:text=\"Tool execution failed\"",
    )
    .preset(),
];
