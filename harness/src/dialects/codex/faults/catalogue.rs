//! Codex's section of the one fault catalogue (`codex`, `codex exec --json`): the
//! real CLI's failures as it ends them (its presets), the process ending anywhere, and
//! what the SDKs cannot read.

use super::super::wire::events;
use super::super::wire::rpc::notifications;
use crate::faults::lines;
use crate::faults::{e, Described, Site, CUT, LINE};

/// Codex's faults and presets, in documentation order.
pub const CATALOGUE: &[Described] = &[
    e(
        "exit",
        "code=C, after=N|at=TYPE",
        "the process exits with code C there, without `turn.completed` (default 1, at=turn.completed); TYPE is a line's type or an item's",
        "exit:code=1,at=command_execution",
    )
    .placed(LINE, Some(Site::At(events::TURN_COMPLETED)))
    .misbehaving("`exit:code=0`: the process ends without `turn.completed` and exit 0"),
    e(
        "signal",
        "name=KILL|TERM|INT|..., after=N|at=TYPE, byte=K",
        "the process dies by that signal there (default KILL at=turn.completed)",
        "signal:name=TERM,at=agent_message",
    )
    .placed(CUT, Some(Site::At(events::TURN_COMPLETED))),
    e(
        "eof",
        "after=N|at=TYPE, byte=K",
        "stdout stops in the middle of that line and the process exits 1 (default at=turn.completed)",
        "eof:at=turn.completed,byte=40",
    )
    .placed(CUT, Some(Site::At(events::TURN_COMPLETED))),
    e(
        "stall",
        "ms=N, after=N|at=TYPE",
        "writes nothing for N ms, or forever; SIGTERM/SIGINT end it (default at=turn.completed)",
        "stall:ms=2000,at=agent_message",
    )
    .placed(LINE, Some(Site::At(events::TURN_COMPLETED))),
    e(
        "malformed",
        "after=N|at=TYPE",
        "a line that starts as JSON and is not (the TypeScript SDK's `Failed to parse item`; default after=1)",
        "malformed:at=agent_message",
    )
    .placed(LINE, Some(Site::After(1))),
    e(
        "unknown",
        "kind=event|item, after=N|at=TYPE",
        "a line of an event type no SDK knows (`turn.forecast`), or an `item.completed` of an unknown item type (`kind=item`), before that line (default after=1)",
        "unknown:kind=item,at=turn.completed",
    )
    .placed(LINE, Some(Site::After(1))),
    e(
        "huge",
        "bytes=N, after=N|at=TYPE",
        "a reasoning item line of N bytes (default 1 MiB + 1, past a line reader's buffer; at=turn.completed)",
        "huge:bytes=2000000",
    )
    .placed(LINE, Some(Site::At(events::TURN_COMPLETED))),
    lines::stderr_entry("text=T, after=N|at=TYPE", "stderr:text=\"WARN codex_core: slow network\""),
    lines::STDERR_FLOOD,
    e(
        "unauthorized",
        "",
        "preset: the API answers 401: five `Reconnecting... n/5 (unexpected status 401 Unauthorized: ...)` errors, then `error` and `turn.failed` with that message, exit 1",
        "unauthorized",
    )
    .preset(),
    e(
        "rate-limited",
        "",
        "preset: the API answers 429: five `Reconnecting... n/5 (exceeded retry limit, last status: 429 Too Many Requests)` errors, then `error` and `turn.failed`, exit 1",
        "rate-limited",
    )
    .preset(),
    e(
        "unknown-model",
        "",
        "preset: a model the API does not serve: the metadata warning item before `turn.started`, then the API's 400 body as `error` and `turn.failed`, exit 1",
        "unknown-model",
    )
    .preset(),
    e(
        "turn-failed",
        "text=T",
        "preset: the turn's last model call fails with T (default: the context window is full): `error` and `turn.failed`, no retry, exit 1",
        "turn-failed:text=\"Quota exceeded. Check your plan and billing details.\"",
    )
    .preset(),
    e(
        "stream-cut",
        "",
        "preset: the model's stream ends before its last message completes: the partial message again on each of five retries, then `error` and `turn.failed`, exit 1",
        "stream-cut",
    )
    .preset(),
    e(
        "reconnect-then-ok",
        "",
        "preset: the API answers 429 once, then the turn goes on: an `error` line `Reconnecting... 1/5 (exceeded retry limit, last status: 429 Too Many Requests)` after `turn.started`, then the turn as without, `turn.completed`, exit 0 (not a failure)",
        "reconnect-then-ok",
    )
    .preset(),
];

/// `codex app-server`'s faults and presets (the `codex-app-server` section), in
/// documentation order: placed at the lines the server writes (`at=METHOD` or an item
/// type, `after=N`).
pub const APP_SERVER_CATALOGUE: &[Described] = &[
    e(
        "exit",
        "code=C, after=N|at=METHOD",
        "the server exits with code C there (default 1, at=turn/completed); METHOD is a notification's method or an item's type",
        "exit:code=1,at=commandExecution",
    )
    .placed(LINE, Some(Site::At(notifications::TURN_COMPLETED))),
    e(
        "signal",
        "name=KILL|TERM|INT|..., after=N|at=METHOD, byte=K",
        "the server dies by that signal there (default KILL at=turn/completed)",
        "signal:name=TERM,at=agentMessage",
    )
    .placed(CUT, Some(Site::At(notifications::TURN_COMPLETED))),
    e(
        "eof",
        "after=N|at=METHOD, byte=K",
        "stdout stops in the middle of that line and the server exits 1 (default at=turn/completed)",
        "eof:at=turn/completed,byte=40",
    )
    .placed(CUT, Some(Site::At(notifications::TURN_COMPLETED))),
    e(
        "stall",
        "ms=N, after=N|at=METHOD",
        "writes nothing for N ms, or forever; SIGTERM/SIGINT end it (default at=turn/completed)",
        "stall:ms=2000,at=agentMessage",
    )
    .placed(LINE, Some(Site::At(notifications::TURN_COMPLETED))),
    e(
        "malformed",
        "after=N|at=METHOD",
        "a line that starts as JSON and is not (the Python SDK's `Invalid JSON-RPC line`; default after=1)",
        "malformed:at=turn/started",
    )
    .placed(LINE, Some(Site::After(1))),
    e(
        "unknown",
        "kind=event|item, after=N|at=METHOD",
        "a notification no SDK knows (`turn/forecast`), or an `item/completed` of an unknown item type (`kind=item`), before that line (default after=1)",
        "unknown:kind=item,at=turn/completed",
    )
    .placed(LINE, Some(Site::After(1))),
    e(
        "huge",
        "bytes=N, after=N|at=METHOD",
        "an `item/completed` reasoning line of N bytes (default 1 MiB + 1; at=turn/completed)",
        "huge:bytes=2000000",
    )
    .placed(LINE, Some(Site::At(notifications::TURN_COMPLETED))),
    lines::stderr_entry("text=T, after=N|at=METHOD", "stderr:text=\"WARN codex_core: slow network\""),
    lines::STDERR_FLOOD,
    e(
        "approval",
        "",
        "preset: every command and patch of the session asks the client for approval, whatever the thread's policy (as `untrusted` does); a client that never answers waits for ever",
        "approval",
    )
    .preset(),
    e(
        "unauthorized",
        "",
        "preset: the API answers 401: five `error` notifications with `willRetry: true`, `systemError`, then `error` and a failed `turn/completed` (`codexErrorInfo: unauthorized`)",
        "unauthorized",
    )
    .preset(),
    e(
        "rate-limited",
        "",
        "preset: the API answers 429: five retries, then `error` and a failed `turn/completed` (`responseTooManyFailedAttempts`)",
        "rate-limited",
    )
    .preset(),
    e(
        "unknown-model",
        "",
        "preset: a model the API does not serve: the API's 400 body as `error` and a failed `turn/completed`",
        "unknown-model",
    )
    .preset(),
    e(
        "turn-failed",
        "text=T",
        "preset: the turn's last model call fails with T (default: the context window is full): `error` and a failed `turn/completed`, no retry",
        "turn-failed:text=\"Quota exceeded. Check your plan and billing details.\"",
    )
    .preset(),
    e(
        "stream-cut",
        "",
        "preset: the model's stream ends before its last message completes: five retries, then `error` and a failed `turn/completed`",
        "stream-cut",
    )
    .preset(),
    e(
        "reconnect-then-ok",
        "",
        "preset: the API answers 429 once, then the turn goes on: an `error` notification `Reconnecting... 1/5` with `willRetry: true` after the user message, then the turn as without, `turn/completed` `completed` (not a failure)",
        "reconnect-then-ok",
    )
    .preset(),
];
