//! Print mode's section of the one fault catalogue (`cursor-agent -p`).

use super::super::events::event_type;
use crate::faults::{e, Described, Site, CUT, LINE};

/// Print mode's faults and presets, in documentation order.
pub const CATALOGUE: &[Described] = &[
    e(
        "eof",
        "after=N|at=TYPE, byte=K",
        "stdout stops there; before the result, the run ends as the real CLI fails: a stderr line, exit 1 (default at=result)",
        "eof:after=3,byte=10",
    )
    .placed(CUT, Some(Site::At(event_type::RESULT))),
    e(
        "stderr",
        "text=T, after=N|at=TYPE",
        "writes T on stderr (default at the end)",
        "stderr:text=\"Error: boom\"",
    )
    .placed(LINE, Some(Site::End)),
    e(
        "stderr-flood",
        "bytes=N, after=N|at=TYPE",
        "writes N bytes on stderr before going on (default 1 MiB, first)",
        "stderr-flood:bytes=1048576",
    )
    .placed(LINE, Some(Site::After(0))),
    e(
        "exit",
        "code=N",
        "the process exits with code N, however the run went (no stderr line is added)",
        "exit:code=2",
    )
    .misbehaving("`exit:code=0` on a run without a result (after `eof`, `drop:type=result`, `close-stdout`, a preset): exit 0 and no result"),
    e(
        "signal",
        "name=KILL|TERM|SEGV|ABRT|..., after=N|at=TYPE, byte=K",
        "the process dies by that signal there (default KILL at=result)",
        "signal:name=SEGV,after=4",
    )
    .placed(CUT, Some(Site::At(event_type::RESULT))),
    e(
        "stall",
        "ms=N, after=N|at=TYPE, byte=K",
        "writes nothing for N ms, or forever; SIGTERM/SIGINT end it (default at=result)",
        "stall:ms=5000,at=tool_call",
    )
    .placed(CUT, Some(Site::At(event_type::RESULT))),
    e(
        "close-stdout",
        "after=N|at=TYPE, byte=K",
        "closes stdout there and goes on without it; a result not yet written makes the run fail: a stderr line, exit 1 (default at=result)",
        "close-stdout:at=result;stall",
    )
    .placed(CUT, Some(Site::At(event_type::RESULT))),
    e(
        "malformed",
        "after=N|at=TYPE",
        "a line that is not valid JSON: the start of the next event (default after=1)",
        "malformed:after=2",
    )
    .placed(LINE, Some(Site::After(1))),
    e(
        "noise",
        "text=T, after=N|at=TYPE",
        "a line that is not JSON (default `[debug] mock-agent noise`, after=1)",
        "noise:text=\"[debug] warming up\"",
    )
    .placed(LINE, Some(Site::After(1))),
    e(
        "drop",
        "type=T",
        "leaves out every event of type T (`result`: the run fails, a stderr line, exit 1)",
        "drop:type=result",
    ),
    e(
        "duplicate",
        "after=N|at=TYPE",
        "writes an event twice (default at=result)",
        "duplicate:at=tool_call",
    )
    .placed(LINE, Some(Site::At(event_type::RESULT))),
    e(
        "reorder",
        "",
        "parallel tool calls complete in the other order",
        "reorder",
    ),
    e(
        "unknown-event",
        "after=N|at=TYPE",
        "an event of a type no consumer knows (default after=1)",
        "unknown-event:at=result",
    )
    .placed(LINE, Some(Site::After(1))),
    e(
        "unknown-field",
        "after=N|at=TYPE",
        "a field no consumer knows (default on every event)",
        "unknown-field",
    )
    .placed(LINE, Some(Site::Every)),
    e(
        "chunk",
        "size=N | random",
        "stdout writes split at N bytes or at seeded offsets, across lines",
        "chunk:size=7",
    ),
    e(
        "coalesce",
        "",
        "many lines in one write, even with timing",
        "coalesce",
    ),
    e(
        "huge",
        "bytes=N, after=N|at=TYPE",
        "one event grows to N bytes, still valid JSON (default 1 MiB + 1, at=result)",
        "huge:bytes=70000",
    )
    .placed(LINE, Some(Site::At(event_type::RESULT))),
    e("crlf", "", "every stdout line ends with \\r\\n", "crlf"),
    e(
        "invalid-utf8",
        "after=N|at=TYPE",
        "bytes that are not UTF-8 inside an event's text (default at=assistant)",
        "invalid-utf8",
    )
    .placed(LINE, Some(Site::At(event_type::ASSISTANT))),
    e(
        "auth-required",
        "",
        "preset: nothing on stdout, the login message on stderr, exit 1",
        "auth-required",
    )
    .preset(),
    e(
        "trust-required",
        "",
        "preset: nothing on stdout, Workspace Trust Required on stderr, exit 1",
        "trust-required",
    )
    .preset(),
    e(
        "quota",
        "",
        "preset: init and user, then out of usage on stderr, exit 1",
        "quota",
    )
    .preset(),
    e(
        "unknown-model",
        "model=M",
        "preset: nothing on stdout, Cannot use this model on stderr, exit 1",
        "unknown-model:model=gpt-9",
    )
    .preset(),
    e(
        "session-in-use",
        "",
        "preset: nothing on stdout, Session ID is already in use on stderr, exit 1",
        "session-in-use",
    )
    .preset(),
    e(
        "connection-lost",
        "",
        "preset: init and user, reconnecting and retry events, RetriableError on stderr, exit 1",
        "connection-lost",
    )
    .preset(),
];
