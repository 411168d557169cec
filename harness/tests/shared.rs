//! Strategies and helpers shared by the harness's own tests and the end-to-end suite
//! (`tests/roundtrip.rs` at the workspace root includes this file with `#[path]`):
//! arbitrary events and frames, cassettes written from frames, sessions rendered.

use std::time::Duration;

use harness::cassette::{Header, Invocation, Recording, Writer};
use harness::dialects::cursor_print::events::{
    AssistantEvent, ConnectionEvent, Content, ErrorEvent, Event, Extra, FunctionCall, Message, ReadArgs,
    ResultEvent, RetryEvent, ShellArgs, System, ThinkingEvent, Tool, ToolCall, ToolCallEvent, ToolError,
    ToolResult, ToolUse as Call, Usage, UserEvent, WriteArgs,
};
use harness::{Ending, Exit, Frame, Line, OutputFormat, RenderOptions, Signal, Stream};
use proptest::prelude::*;
use serde_json::Value;

/// `PROPTEST_CASES` runs the properties longer than the default `n`.
pub fn cases(n: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(n)
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => "(?s).{0,12}",
        1 => Just("line\nbreak \"quoted\" \\ \u{0}".to_owned()),
    ]
}

/// Unknown fields: their keys never collide with known ones.
pub fn extra() -> impl Strategy<Value = Extra> {
    let value = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        text().prop_map(Value::String),
        prop::collection::vec(any::<u32>().prop_map(Value::from), 0..3).prop_map(Value::Array),
    ];
    prop::collection::vec(("x_[a-z]{1,6}", value), 0..3).prop_map(|pairs| pairs.into_iter().collect())
}

fn opt<T: std::fmt::Debug + Clone>(s: impl Strategy<Value = T>) -> impl Strategy<Value = Option<T>> {
    prop::option::of(s)
}

fn message(role: &'static str) -> impl Strategy<Value = Message> {
    (prop::collection::vec((text(), extra()), 1..3), extra()).prop_map(move |(blocks, extra)| Message {
        role: role.to_owned(),
        content: blocks
            .into_iter()
            .map(|(t, extra)| Content {
                kind: "text".into(),
                text: Some(t),
                extra,
            })
            .collect(),
        extra,
    })
}

fn tool_result() -> impl Strategy<Value = ToolResult> {
    prop_oneof![
        extra().prop_map(ToolResult::Success),
        extra().prop_map(ToolResult::Failure),
        extra().prop_map(ToolResult::Rejected),
        (text(), extra()).prop_map(|(m, extra)| ToolResult::Error(ToolError {
            error_message: m,
            extra
        })),
        (any::<u8>(), extra()).prop_map(|(n, mut extra)| {
            extra.insert("x_outcome".into(), Value::from(n));
            ToolResult::Other(extra)
        }),
    ]
}

fn tool() -> impl Strategy<Value = Tool> {
    let result = opt(tool_result()).boxed();
    prop_oneof![
        (opt((text(), extra())), result.clone(), extra()).prop_map(|(args, result, extra)| Tool::Read(
            Call {
                args: args.map(|(path, extra)| ReadArgs { path, extra }),
                result,
                extra
            }
        )),
        (text(), text(), opt(text()), result.clone()).prop_map(|(path, file_text, id, result)| Tool::Write(
            Call {
                args: Some(WriteArgs {
                    path,
                    file_text,
                    tool_call_id: id,
                    extra: Extra::new()
                }),
                result,
                extra: Extra::new()
            }
        )),
        (
            text(),
            opt(text()),
            opt(any::<u64>()),
            opt(prop::collection::vec("[a-z]{1,6}", 0..3)),
            opt(extra().prop_map(Value::Object)),
            opt(any::<bool>()),
            extra(),
            result.clone()
        )
            .prop_map(
                |(command, wd, timeout, simple, parsing, bg, extra, result)| Tool::Shell(Call {
                    args: Some(ShellArgs {
                        command,
                        working_directory: wd,
                        timeout,
                        tool_call_id: None,
                        simple_commands: simple,
                        parsing_result: parsing,
                        is_background: bg,
                        description: None,
                        extra
                    }),
                    result,
                    extra: Extra::new()
                })
            ),
        (text(), opt(text()), extra()).prop_map(|(name, arguments, extra)| Tool::Function(FunctionCall {
            name,
            arguments: arguments.map(Value::String),
            result: None,
            extra
        })),
        ("[a-z]{1,8}", extra()).prop_map(|(kind, value)| Tool::Other {
            key: format!("{kind}ToolCall"),
            value: Value::Object(value)
        }),
    ]
    .prop_filter("unknown kinds only", |t| match t {
        Tool::Other { key, .. } => {
            !harness::dialects::cursor_print::events::TOOL_KEYS.contains(&key.as_str())
        }
        _ => true,
    })
}

/// Any event: each known type with arbitrary fields and unknown ones, and unknown
/// types.
pub fn event() -> impl Strategy<Value = Event> {
    let sid = "[0-9a-f-]{1,12}";
    prop_oneof![
        (opt(text()), opt(sid), opt(text()), extra()).prop_map(|(cwd, session_id, model, extra)| {
            Event::System(System {
                subtype: "init".into(),
                api_key_source: Some("env".into()),
                cwd,
                session_id,
                model,
                permission_mode: None,
                extra,
            })
        }),
        (message("user"), sid, extra()).prop_map(|(message, session_id, extra)| Event::User(UserEvent {
            message,
            session_id,
            extra
        })),
        (message("assistant"), sid, opt(any::<u64>()), opt(text()), extra()).prop_map(
            |(message, session_id, timestamp_ms, model_call_id, extra)| Event::Assistant(AssistantEvent {
                message,
                session_id,
                timestamp_ms,
                model_call_id,
                extra
            })
        ),
        (
            prop_oneof![Just("delta"), Just("completed")],
            opt(text()),
            sid,
            opt(any::<u64>())
        )
            .prop_map(
                |(subtype, text, session_id, timestamp_ms)| Event::Thinking(ThinkingEvent {
                    subtype: subtype.into(),
                    text,
                    session_id,
                    timestamp_ms,
                    extra: Extra::new()
                })
            ),
        (
            prop_oneof![Just("started"), Just("completed")],
            text(),
            tool(),
            extra(),
            sid,
            opt(text()),
            extra()
        )
            .prop_map(
                |(subtype, call_id, tool, beside, session_id, model_call_id, extra)| {
                    Event::ToolCall(ToolCallEvent {
                        subtype: subtype.into(),
                        call_id,
                        tool_call: ToolCall { tool, extra: beside },
                        session_id,
                        model_call_id,
                        timestamp_ms: None,
                        extra,
                    })
                }
            ),
        (
            text(),
            any::<bool>(),
            text(),
            sid,
            opt((any::<u32>(), any::<u32>())),
            extra()
        )
            .prop_map(
                |(subtype, is_error, result, session_id, usage, extra)| Event::Result(ResultEvent {
                    subtype,
                    duration_ms: Some(1234),
                    duration_api_ms: None,
                    is_error,
                    result,
                    session_id,
                    request_id: None,
                    usage: usage.map(|(i, o)| Usage {
                        input_tokens: i.into(),
                        output_tokens: o.into(),
                        cache_read_tokens: Some(0),
                        cache_write_tokens: None,
                        extra: Extra::new()
                    }),
                    extra,
                })
            ),
        (sid, opt(any::<u64>())).prop_map(|(session_id, attempt)| Event::Connection(ConnectionEvent {
            subtype: "reconnecting".into(),
            session_id,
            timestamp_ms: Some(1),
            attempt,
            extra: Extra::new()
        })),
        (sid, opt(any::<bool>())).prop_map(|(session_id, is_resume)| Event::Retry(RetryEvent {
            subtype: "starting".into(),
            session_id,
            timestamp_ms: None,
            attempt: Some(1),
            is_resume,
            extra: Extra::new()
        })),
        (text(), opt(sid)).prop_map(|(message, session_id)| Event::Error(ErrorEvent {
            message,
            session_id,
            extra: Extra::new()
        })),
        ("[a-z_]{1,10}", extra()).prop_map(|(kind, mut extra)| {
            let mut map = Extra::new();
            map.insert("type".into(), Value::String(format!("x_{kind}")));
            map.append(&mut extra);
            Event::Other(map)
        }),
    ]
}

/// Any recorded run: lines on both streams (events, events with bytes that are not
/// UTF-8, any bytes, text), with or without their newline, then an ending.
pub fn frames() -> impl Strategy<Value = Vec<Frame>> {
    // Boxed once: the event strategy nests deep, and a test thread's stack is small.
    let events = event().boxed();
    let line = (
        prop_oneof![Just(Stream::Stdout), Just(Stream::Stderr)],
        prop_oneof![
            2 => prop::collection::vec(any::<u8>(), 0..40),
            2 => events.clone().prop_map(|e| e.to_line().into_bytes()),
            // An event with bytes that are not UTF-8 inside a string.
            1 => events.prop_map(|e| {
                let mut bytes = e.to_line().into_bytes();
                if let Some(i) = bytes.windows(3).position(|w| w == b"\":\"") {
                    bytes.splice(i + 3..i + 3, [0xff, 0xfe]);
                }
                bytes
            }),
            1 => text().prop_map(String::into_bytes),
        ]
        .prop_map(|bytes| bytes.into_iter().filter(|b| *b != b'\n').collect::<Vec<u8>>()),
        any::<bool>(),
        0u64..5_000,
    );
    let exit = prop_oneof![
        (0i32..256).prop_map(Exit::Code),
        prop::sample::select(vec![
            Signal::Term,
            Signal::Kill,
            Signal::Segv,
            Signal::Abrt,
            Signal::Int,
            Signal::Hup
        ])
        .prop_map(Exit::Signal),
    ];
    (prop::collection::vec(line, 0..12), exit).prop_map(|(lines, exit)| {
        let mut at = Duration::ZERO;
        let mut frames: Vec<Frame> = lines
            .into_iter()
            .map(|(stream, bytes, newline, gap_us)| {
                at += Duration::from_micros(gap_us);
                Frame::Line(Line {
                    at,
                    stream,
                    bytes,
                    newline,
                })
            })
            .collect();
        frames.push(Frame::End(Ending { at, exit }));
        frames
    })
}

/// Writes the frames as a cassette at `path`.
pub fn write(path: &std::path::Path, frames: &[Frame]) -> Result<(), TestCaseError> {
    let mut writer = Writer::create(path, &Header::new(Invocation::default()))
        .map_err(|e| TestCaseError::fail(e.to_string()))?;
    for frame in frames {
        writer
            .write(frame)
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
    }
    writer.finish().map_err(|e| TestCaseError::fail(e.to_string()))?;
    Ok(())
}

/// Renders a recording as the mock would for these options: stdout text and exit.
#[allow(dead_code)] // Used with the `generate` feature only.
pub fn render(recording: Recording, format: OutputFormat, partial: bool) -> (String, Exit) {
    let options = RenderOptions::new(format)
        .stream_partial_output(partial)
        .now_ms(1);
    let frames = harness::dialects::cursor_print::render::render(recording, &options).expect("renders");
    let (mut out, mut exit) = (String::new(), None);
    for frame in frames {
        match frame.expect("frame") {
            Frame::Line(line) if line.stream == Stream::Stdout => {
                out.push_str(&String::from_utf8_lossy(&line.bytes));
                out.push('\n');
            }
            Frame::End(end) => exit = Some(end.exit),
            _ => {}
        }
    }
    (out, exit.expect("an end"))
}

/// The FNV-1a digest of some bytes: a short, stable name for a generated stream.
#[allow(unused_imports)] // Used with the `generate` feature only.
pub use harness::digest::fnv1a;
