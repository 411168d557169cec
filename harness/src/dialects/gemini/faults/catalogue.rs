//! Gemini CLI's section of the one fault catalogue (`gemini`, `gemini -p`): the real
//! CLI's failures as it ends them (its presets), its process shape (a parent that
//! ignores SIGTERM), the process ending anywhere, and what parsers trip on.

use super::super::wire::events;
use crate::faults::lines;
use crate::faults::{e, Described, Site, CUT, LINE};

/// Gemini CLI's faults and presets, in documentation order.
pub const CATALOGUE: &[Described] = &[
    e(
        "exit",
        "code=C, after=N|at=TYPE",
        "the process exits with code C there, without `result` (default 1, at=result); TYPE is a line's type",
        "exit:code=1,at=tool_use",
    )
    .placed(LINE, Some(Site::At(events::RESULT)))
    .misbehaving("`exit:code=0`: the process ends without `result` and exit 0 (the real CLI does so when its child is killed: `child-killed`)"),
    e(
        "signal",
        "name=KILL|TERM|INT|..., after=N|at=TYPE, byte=K",
        "the process dies by that signal there (default KILL at=result)",
        "signal:name=TERM,at=tool_result",
    )
    .placed(CUT, Some(Site::At(events::RESULT))),
    e(
        "eof",
        "after=N|at=TYPE, byte=K",
        "stdout stops in the middle of that line (in `json` mode, of the document) and the process exits 1 (default at=result)",
        "eof:at=result,byte=40",
    )
    .placed(CUT, Some(Site::At(events::RESULT))),
    e(
        "stall",
        "ms=N, after=N|at=TYPE",
        "writes nothing for N ms, or forever; SIGTERM/SIGINT end it (unless `relaunch`: then only the group's) (default at=result)",
        "stall:ms=2000,at=tool_result",
    )
    .placed(LINE, Some(Site::At(events::RESULT))),
    e(
        "malformed",
        "after=N|at=TYPE",
        "a `stream-json` line that starts as JSON and is not (default after=2)",
        "malformed:at=tool_use",
    )
    .placed(LINE, Some(Site::After(2))),
    e(
        "unknown",
        "after=N|at=TYPE",
        "a `stream-json` line of an event type 0.61.0 does not write (`thought`) before that line (default after=2)",
        "unknown:at=result",
    )
    .placed(LINE, Some(Site::After(2))),
    e(
        "huge",
        "bytes=N, after=N|at=TYPE",
        "an assistant `message` line of N bytes (default 1 MiB + 1, past a line reader's buffer; at=result)",
        "huge:bytes=2000000",
    )
    .placed(LINE, Some(Site::At(events::RESULT))),
    lines::stderr_entry("text=T, after=N|at=TYPE", "stderr:text=\"[STARTUP] Phase 'cleanup_ops' was started but never ended.\""),
    lines::STDERR_FLOOD,
    e(
        "child-killed",
        "after=N|at=TYPE",
        "the relaunched child dies by a signal there: the lines so far, no `result`, and the parent exits **0** (observed) (default at=result)",
        "child-killed:at=tool_result",
    )
    .placed(LINE, Some(Site::At(events::RESULT))),
    e(
        "relaunch",
        "",
        "the process is a parent that ignores SIGTERM and SIGINT and waits for a child that does the work, as the real CLI relaunches itself: a consumer must kill the process group",
        "relaunch",
    ),
    e(
        "unauthorized",
        "",
        "preset: the API answers 401: `result` `error` with `[API Error: {...401...}]` and zero stats, exit 145 (json: the error document on stderr; text: exit 1)",
        "unauthorized",
    )
    .preset(),
    e(
        "rate-limited",
        "",
        "preset: the API answers 429 after the retries: `result` `error` with the API error and the quota hint, exit 173",
        "rate-limited",
    )
    .preset(),
    e(
        "server-error",
        "",
        "preset: the API answers 500 after the retries: `result` `error`, exit 244",
        "server-error",
    )
    .preset(),
    e(
        "model-not-found",
        "",
        "preset: the API answers 404 for the model: `result` `error`, exit 1",
        "model-not-found",
    )
    .preset(),
    e(
        "empty-answer",
        "",
        "preset: the model's last answer is empty: an `error` line, then `result` `error` without an `error` field, exit **0** (json: the document with `error`, exit 0)",
        "empty-answer",
    )
    .preset(),
    e(
        "turn-limit",
        "",
        "preset: `maxSessionTurns` is reached after the first tool call: `result` with `FatalTurnLimitedError`, exit 53",
        "turn-limit",
    )
    .preset(),
    e(
        "no-auth",
        "",
        "preset: no auth method configured: nothing on stdout, `Please set an Auth method ...` on stderr (json: an error document), exit 41",
        "no-auth",
    )
    .preset(),
    e(
        "untrusted-folder",
        "",
        "preset: a folder not trusted (no `--skip-trust`): nothing on stdout, the trust message on stderr, exit 55",
        "untrusted-folder",
    )
    .preset(),
];
