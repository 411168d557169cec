//! Server mode's section of the one fault catalogue (`cursor-agent acp`).

use super::super::wire::{methods, stop_reasons, updates};
use crate::faults::{e, Described, Site, ANYWHERE, MESSAGE, MESSAGE_CUT, REQUEST};

/// The update kind server mode's faults act on by default (an ACP `sessionUpdate`).
const FIRST_CHUNK: Site = Site::At(updates::AGENT_MESSAGE_CHUNK);

/// Server mode's faults and presets, in documentation order.
pub const CATALOGUE: &[Described] = &[
    e(
        "error",
        "method=M, code=C, message=T, data=JSON",
        "the request M is answered with a JSON-RPC error (default -32603)",
        "error:method=session/new,code=-32603,message=\"Failed to initialize session services\"",
    )
    .placed(REQUEST, None),
    e(
        "no-response",
        "method=M",
        "the request M is never answered",
        "no-response:method=authenticate",
    )
    .placed(REQUEST, None),
    e(
        "late",
        "method=M, ms=MS",
        "the answer to M comes MS later",
        "late:method=session/new,ms=3000",
    )
    .placed(REQUEST, None),
    e(
        "stop-reason",
        "reason=R",
        "a turn that ends with end_turn ends with R",
        "stop-reason:reason=refusal",
    ),
    e(
        "crash",
        "at=initialize|asking|KIND|METHOD, method=M, after=N, code=C|signal=S, text=T",
        "the process dies there (default exit 1), after T on stderr when given",
        "crash:at=asking,signal=KILL",
    )
    .placed(ANYWHERE, Some(Site::Method(methods::SESSION_PROMPT))),
    e(
        "eof",
        "at=KIND|after=N, byte=K",
        "stdout stops in the middle of that message and the process exits 1",
        "eof:at=agent_message_chunk,byte=20",
    )
    .placed(MESSAGE_CUT, Some(FIRST_CHUNK)),
    e(
        "malformed",
        "at=KIND|after=N",
        "a line that is not JSON on stdout before that message",
        "malformed:after=2",
    )
    .placed(MESSAGE, Some(Site::After(1))),
    e(
        "stderr",
        "text=T, at=KIND|after=N",
        "T on stderr before that message (default at the start)",
        "stderr:text=\"[warn] slow\",at=tool_call",
    )
    .placed(MESSAGE, Some(Site::After(0))),
    e(
        "stderr-flood",
        "bytes=N",
        "N bytes on stderr at the start (default 1 MiB)",
        "stderr-flood:bytes=200000",
    ),
    e(
        "drop",
        "kind=KIND",
        "every update of that kind is dropped",
        "drop:kind=tool_call_update",
    ),
    e(
        "duplicate",
        "at=KIND|after=N",
        "that message is sent twice",
        "duplicate:at=tool_call",
    )
    .placed(MESSAGE, Some(FIRST_CHUNK)),
    e(
        "reorder",
        "",
        "each two updates in a row go out in the other order",
        "reorder",
    ),
    e(
        "unknown-update",
        "at=KIND|after=N",
        "an update of a kind no client knows before that message",
        "unknown-update:at=agent_message_chunk",
    )
    .placed(MESSAGE, Some(FIRST_CHUNK)),
    e(
        "unknown-field",
        "",
        "every update carries a field no client knows",
        "unknown-field",
    ),
    e(
        "early-update",
        "",
        "a new session's first update comes before the session/new answer",
        "early-update",
    ),
    e(
        "huge",
        "bytes=N, at=KIND|after=N",
        "an agent_message_chunk of N bytes before that message (default 1 MiB)",
        "huge:bytes=2000000,at=agent_message_chunk",
    )
    .placed(MESSAGE, Some(FIRST_CHUNK)),
    e(
        "chunk",
        "size=N|random",
        "stdout written in pieces of N bytes (or random sizes)",
        "chunk:size=7",
    ),
    e("coalesce", "", "several messages in one write", "coalesce"),
    e(
        "unoffered-tools",
        "",
        "the agent reads, writes files and runs commands through a client whose initialize did not offer them (fs/*, terminal/* requests it must not send)",
        "unoffered-tools",
    ),
    e(
        "auth-required",
        "",
        "preset: session methods answer -32000 Authentication required",
        "auth-required",
    )
    .preset(),
    e(
        "authenticate-hangs",
        "",
        "preset: authenticate is never answered",
        "authenticate-hangs",
    )
    .preset(),
    e(
        "session-services-failed",
        "",
        "preset: session/new answers -32603 Failed to initialize session services",
        "session-services-failed",
    )
    .preset(),
    e(
        "crash-on-initialize",
        "",
        "preset: the process dies on initialize, a message on stderr",
        "crash-on-initialize",
    )
    .preset(),
    e(
        "crash-while-asking",
        "",
        "preset: the process dies while its permission request waits",
        "crash-while-asking",
    )
    .preset(),
    // Named after the stop reason.
    e(
        stop_reasons::REFUSAL,
        "",
        "preset: the turn ends with stopReason refusal",
        stop_reasons::REFUSAL,
    )
    .preset(),
    e(
        "max-tokens",
        "",
        "preset: the turn ends with stopReason max_tokens",
        "max-tokens",
    )
    .preset(),
];
