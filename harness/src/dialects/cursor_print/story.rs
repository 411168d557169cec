//! A print-mode session (Cursor's events: the built-in default session, a print-mode
//! cassette, a capture) as the story the ACP teller tells
//! ([`Story`]).
//!
//! | print mode (`stream-json`) | the story |
//! | --- | --- |
//! | `assistant` (a whole segment) | [`Beat::Said`] with its text |
//! | `thinking` delta | [`Beat::Thought`] with its text |
//! | `tool_call` started | [`Beat::Called`]: id = `call_id`, a title, the ACP kind, input = the tool's `args` |
//! | `tool_call` completed | [`Beat::Ended`]: failed for a `failure`, `error` or `rejected` result, output = the tool's `result` |
//! | `result` success | [`Ending::Success`] (unless the process failed) |
//! | a failed run (no successful `result`) | [`Ending::Failure`] with the `result`'s text or the first stderr line |
//! | a run that failed with `Authentication required` on stderr | [`Ending::AuthRequired`] |
//! | stderr lines | [`Beat::Stderr`] |
//! | `user` | the prompt |
//! | `system`, `connection`, `retry`, unknown types | nothing (`system` gives the folder) |
//!
//! Tool kinds: `readToolCall` read; `writeToolCall`, `editToolCall` edit;
//! `deleteToolCall` delete; `shellToolCall` execute; `grepToolCall`, `globToolCall`,
//! `lsToolCall` search; any other other.

use serde_json::{json, Value};

use super::events::{event_type, field, is_tool_key, subtype, tool_key};
use super::render::RenderOptions;
use super::scenario::Scenario;
use crate::acp::tell::{Beat, Call, Ending, Story, Tool};
use crate::acp::wire::tool_kinds;
use crate::cassette::Recording;
use crate::error::CassetteError;
use crate::format::OutputFormat;
use crate::frames::{Exit, Frame, FrameResult, Stream};

/// How the real CLI begins the stderr line of a run that is not logged in.
const NOT_LOGGED_IN: &str = "Authentication required";

/// The story of a print-mode recording (played as `stream-json`, whole segments).
pub fn of_recording(recording: Recording) -> Result<Story, CassetteError> {
    let plan = Scenario::new(RenderOptions::new(OutputFormat::StreamJson)).plan(recording)?;
    of_frames(plan.frames)
}

/// The story of the frames of a print-mode run (`stream-json`, whole segments).
pub fn of_frames(frames: impl IntoIterator<Item = FrameResult>) -> Result<Story, CassetteError> {
    let mut story = Story {
        read_output,
        ..Story::default()
    };
    let mut ending = None;
    let mut stderr_first = None;
    let mut exit = Exit::Code(0);
    for frame in frames {
        let frame = frame?;
        story.end = story.end.max(frame.at());
        let line = match frame {
            Frame::Line(line) => line,
            Frame::End(end) => {
                exit = end.exit;
                continue;
            }
            Frame::Stall { .. } | Frame::CloseStdout { .. } => continue,
        };
        let at = line.at;
        match line.stream {
            Stream::Stdin => continue,
            Stream::Stderr => {
                stderr_first.get_or_insert_with(|| String::from_utf8_lossy(&line.bytes).into_owned());
                story.beats.push(Beat::Stderr { at, line: line.bytes });
                continue;
            }
            Stream::Stdout => {}
        }
        let Ok(event) = serde_json::from_slice::<Value>(&line.bytes) else {
            continue;
        };
        if story.session_id.is_none() {
            story.session_id = event[field::SESSION_ID].as_str().map(str::to_owned);
        }
        match (event[field::TYPE].as_str(), event[field::SUBTYPE].as_str()) {
            (Some(event_type::SYSTEM), _) => {
                story.cwd = story.cwd.or_else(|| event["cwd"].as_str().map(str::to_owned));
            }
            (Some(event_type::ASSISTANT), _) => {
                let text = message_text(&event);
                if !text.is_empty() {
                    story.beats.push(Beat::Said { at, text });
                }
            }
            (Some(event_type::THINKING), Some(subtype::DELTA)) => {
                if let Some(text) = event["text"].as_str().filter(|t| !t.is_empty()) {
                    story.beats.push(Beat::Thought {
                        at,
                        text: text.to_owned(),
                    });
                }
            }
            (Some(event_type::TOOL_CALL), Some(subtype::STARTED)) => {
                let (key, body) = tool(&event);
                let args = &body["args"];
                let call = Call {
                    id: event["call_id"].clone(),
                    kind: kind_of(&key),
                    title: title_of(&key, args),
                    input: args.clone(),
                    tool: tool_of(&key, args),
                };
                story.beats.push(Beat::Called { at, call });
            }
            (Some(event_type::TOOL_CALL), Some(subtype::COMPLETED)) => {
                let (key, body) = tool(&event);
                // A tool's `result` is keyed as the event type is named.
                let result = &body[event_type::RESULT];
                story.beats.push(Beat::Ended {
                    at,
                    id: event["call_id"].clone(),
                    failure: failure_of(result),
                    output: result.clone(),
                    tool: tool_of(&key, &body["args"]),
                });
            }
            (Some(event_type::USER), _) => story.prompt = message_text(&event),
            (Some(event_type::RESULT), kind) => {
                let ok = kind == Some(subtype::SUCCESS) && event["is_error"] != Value::Bool(true);
                ending = Some(if ok {
                    Ending::Success
                } else {
                    Ending::Failure(
                        event[event_type::RESULT]
                            .as_str()
                            .unwrap_or("the agent failed")
                            .to_owned(),
                    )
                });
            }
            _ => {}
        }
    }
    story.ending = match ending {
        Some(Ending::Success) if !exit.success() => Ending::Failure(format!("the agent ended with {exit}")),
        Some(ending) => ending,
        None if stderr_first
            .as_deref()
            .is_some_and(|line| line.starts_with(NOT_LOGGED_IN)) =>
        {
            Ending::AuthRequired
        }
        None => Ending::Failure(
            stderr_first.unwrap_or_else(|| format!("the agent ended with {exit} and no result")),
        ),
    };
    Ok(story)
}

/// What a print-mode tool does, as far as a client could run it: a read, a write of
/// a whole file, a shell command.
fn tool_of(key: &str, args: &Value) -> Tool {
    let text = |name: &str| args[name].as_str().map(str::to_owned);
    match (key, text("path"), text("command")) {
        (tool_key::READ, Some(path), _) => Tool::Read { path },
        (tool_key::WRITE, Some(path), _) => Tool::Write {
            path,
            content: text("fileText").unwrap_or_default(),
        },
        (tool_key::SHELL, _, Some(command)) => Tool::Shell { command },
        (_, path, _) => Tool::Other { path },
    }
}

/// A read's `result` in print mode, of the file's text.
fn read_output(content: &str) -> Value {
    json!({(subtype::SUCCESS): {"content": content, "isEmpty": content.is_empty(), "totalLines": content.lines().count(), "totalChars": content.chars().count()}})
}

/// Why a tool failed, if its result says it did (a `failure`, `error` or `rejected`
/// result): the result's message, else what it holds.
fn failure_of(result: &Value) -> Option<String> {
    let (key, why) = ["failure", "error", "rejected"]
        .iter()
        .find_map(|k| result.get(*k).map(|why| (*k, why)))?;
    let text = match why {
        Value::String(text) => Some(text.clone()),
        _ => ["message", "error", "stderr", "reason"]
            .iter()
            .find_map(|m| why[*m].as_str().filter(|t| !t.is_empty()).map(str::to_owned)),
    };
    Some(text.unwrap_or_else(|| format!("the tool's {key}: {why}")))
}

/// The concatenated text blocks of a message event.
fn message_text(event: &Value) -> String {
    event["message"]["content"]
        .as_array()
        .map(|blocks| blocks.iter().filter_map(|b| b["text"].as_str()).collect())
        .unwrap_or_default()
}

/// The tool key (`readToolCall`, ...) and its body of a `tool_call` event.
fn tool(event: &Value) -> (String, Value) {
    // The tool call's object is keyed as the event type is named.
    event[event_type::TOOL_CALL]
        .as_object()
        .and_then(|tool| tool.iter().find(|(k, _)| is_tool_key(k)))
        .map(|(k, v)| (k.clone(), v.clone()))
        .unwrap_or_else(|| (tool_key::FUNCTION.to_owned(), Value::Null))
}

/// The ACP tool kind of a print-mode tool key.
pub fn kind_of(key: &str) -> &'static str {
    match key {
        tool_key::READ => tool_kinds::READ,
        tool_key::WRITE | tool_key::EDIT => tool_kinds::EDIT,
        tool_key::DELETE => tool_kinds::DELETE,
        tool_key::SHELL => tool_kinds::EXECUTE,
        tool_key::GREP | tool_key::GLOB | tool_key::LS => tool_kinds::SEARCH,
        _ => tool_kinds::OTHER,
    }
}

fn title_of(key: &str, args: &Value) -> String {
    let path = args["path"].as_str().unwrap_or_default();
    match key {
        tool_key::READ => format!("Read {path}"),
        tool_key::WRITE => format!("Write {path}"),
        tool_key::EDIT => format!("Edit {path}"),
        tool_key::DELETE => format!("Delete {path}"),
        tool_key::SHELL => format!("`{}`", args["command"].as_str().unwrap_or_default()),
        tool_key::GREP => format!("Grep {}", args["pattern"].as_str().unwrap_or_default()),
        tool_key::GLOB => format!("Glob {}", args["globPattern"].as_str().unwrap_or_default()),
        tool_key::LS => format!("List {path}"),
        other => other.trim_end_matches(tool_key::SUFFIX).to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Source;

    #[test]
    fn the_default_session_is_a_text_a_read_a_text_and_a_write() {
        let story = of_recording(Source::Default.open("hi").expect("opens")).expect("tells");
        assert_eq!(story.ending, Ending::Success);
        assert!(story.session_id.is_some());
        let calls: Vec<&Call> = story
            .beats
            .iter()
            .filter_map(|b| match b {
                Beat::Called { call, .. } => Some(call),
                _ => None,
            })
            .collect();
        assert_eq!(
            calls.iter().map(|c| c.kind).collect::<Vec<_>>(),
            [tool_kinds::READ, tool_kinds::EDIT]
        );
        assert!(
            matches!(&calls[1].tool, Tool::Write { path, content } if path == "summary.txt" && !content.is_empty())
        );
        assert!(matches!(story.beats[0], Beat::Said { .. }));
    }

    #[test]
    fn a_run_without_a_result_fails_with_its_first_stderr_line_or_is_not_logged_in() {
        use crate::frames::{Ending as End, Line};
        use std::time::Duration;
        let err = |text: &str| {
            Ok(Frame::Line(Line {
                at: Duration::ZERO,
                stream: Stream::Stderr,
                bytes: text.as_bytes().to_vec(),
                newline: true,
            }))
        };
        let end = || {
            Ok(Frame::End(End {
                at: Duration::from_millis(5),
                exit: Exit::Code(1),
            }))
        };
        let failed = of_frames([err("boom"), end()]).expect("tells");
        assert_eq!(failed.ending, Ending::Failure("boom".to_owned()));
        assert_eq!(failed.end, Duration::from_millis(5));
        let out = of_frames([err("Authentication required. Run agent login"), end()]).expect("tells");
        assert_eq!(out.ending, Ending::AuthRequired);
    }
}
