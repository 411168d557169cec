//! The picture of a case, as shapes for the report's template to draw in SVG: in print
//! mode a timeline of what the mock wrote on which stream, where the fault hit and how
//! each side ended; in server mode a sequence diagram of the conversation.
//!
//! Shapes hold numbers and text only; the template writes (and escapes) them.

use crate::frames::{Exit, Frame, Stream};
use crate::journal::{self, Entry, ExitRecord};

use super::super::{report, CaseResult};

/// A picture: its size and shapes.
#[derive(Debug, Clone, Default)]
pub struct Picture {
    /// Its width, in pixels.
    pub width: u32,
    /// Its height.
    pub height: u32,
    /// What it says, for screen readers.
    pub label: String,
    /// Boxes.
    pub rects: Vec<Rect>,
    /// Lines (arrows when `arrow`).
    pub lines: Vec<Segment>,
    /// Words.
    pub texts: Vec<Text>,
}

/// A box, with what it stands for as its tooltip.
#[derive(Debug, Clone)]
pub struct Rect {
    /// Left.
    pub x: u32,
    /// Top.
    pub y: u32,
    /// Width.
    pub w: u32,
    /// Height.
    pub h: u32,
    /// Its class, for its colour: `stdout`, `stderr`, `fault`, `stall`, `end`, ...
    pub class: &'static str,
    /// Its tooltip.
    pub title: String,
}

/// A line from (x1, y1) to (x2, y2).
#[derive(Debug, Clone)]
pub struct Segment {
    /// Start.
    pub x1: u32,
    /// Start.
    pub y1: u32,
    /// End.
    pub x2: u32,
    /// End.
    pub y2: u32,
    /// Its class: `in`, `out`, `ask`, `fault`, `life`, `axis`.
    pub class: &'static str,
    /// Whether it ends in an arrow head.
    pub arrow: bool,
    /// Its tooltip (empty for none).
    pub title: String,
}

/// A word or a few.
#[derive(Debug, Clone)]
pub struct Text {
    /// Where it starts.
    pub x: u32,
    /// Its baseline.
    pub y: u32,
    /// Its class: `label`, `fault`, `end`, `small`.
    pub class: &'static str,
    /// `start`, `middle` or `end`.
    pub anchor: &'static str,
    /// What it says.
    pub text: String,
}

/// At most this many frames (print mode) or messages (server mode) are drawn; the
/// rest are counted.
const MOST: usize = 120;

/// The longest tooltip.
const TOOLTIP: usize = 240;

/// The picture of a case: `None` when the consumer never ran the agent.
pub fn of(result: &CaseResult) -> Option<Picture> {
    let entry = result.outcome.journal.last()?;
    let dialect = result.case.dialect;
    if dialect.draws_messages() {
        dialect
            .conversation(entry)
            .map(|conversation| sequence(result, entry, conversation))
    } else {
        timeline(result, entry)
    }
}

fn clip(text: &str, most: usize) -> String {
    let mut short: String = text.chars().take(most).collect();
    if short.len() < text.len() {
        short.push('…');
    }
    short
}

/// How the mock ended, in words.
fn mock_end(entry: &Entry) -> String {
    match &entry.exit {
        ExitRecord::Code(code) => format!("agent exit {code}"),
        ExitRecord::Signal(signal) => format!("agent SIG{signal}"),
    }
}

/// What the faults of a run did: `eof (fired)`.
fn faults(entry: &Entry) -> String {
    entry
        .faults
        .iter()
        .map(|f| format!("{} ({})", f.name, if f.fired { "fired" } else { "not reached" }))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Print mode: a lane for stdout and one for stderr, a box a line in the order
/// written (its tooltip the line), the stalls and the closing of stdout, a mark where
/// the run first differs from the one without faults, the mock's end, and the
/// consumer's.
fn timeline(result: &CaseResult, entry: &Entry) -> Option<Picture> {
    let (faulted, clean) = result.case.dialect.planned(&result.case, entry)?;
    // Where the fault hit: the first frame that is not the clean run's.
    let hit = (!result.case.faults.is_empty()).then(|| {
        faulted
            .iter()
            .zip(&clean)
            .position(|(a, b)| a != b)
            .unwrap_or(faulted.len().min(clean.len()))
    });
    let shown = faulted.len().min(MOST);
    // A box a frame: wide when there are few.
    let step = (640 / shown.max(1) as u32).clamp(8, 44);
    let (left, lane) = (70u32, 28u32);
    let top = 34u32;
    let (stdout_y, stderr_y, events_y) = (top, top + lane, top + 2 * lane);
    let width = left + step * (shown as u32 + 2) + 190;
    let mut picture = Picture {
        width: width.max(520),
        height: events_y + lane + 46,
        label: format!("timeline of case {}", result.case.name),
        ..Picture::default()
    };
    let label = |y: u32, text: &str| Text {
        x: 8,
        y: y + 14,
        class: "label",
        anchor: "start",
        text: text.to_owned(),
    };
    picture.texts.push(label(stdout_y, "stdout"));
    picture.texts.push(label(stderr_y, "stderr"));
    picture.texts.push(label(events_y, "events"));
    let elapsed = entry.ended_at_ms.saturating_sub(entry.started_at_ms);
    picture.texts.push(Text {
        x: 8,
        y: 16,
        class: "small",
        anchor: "start",
        text: format!(
            "the mock wrote {} frames in {elapsed} ms ({}); faults: {}",
            faulted.len(),
            entry.output_format.map_or("?", |f| f.as_str()),
            if entry.faults.is_empty() {
                "none".to_owned()
            } else {
                faults(entry)
            }
        ),
    });
    let x_of = |i: usize| left + step * i as u32;
    for (i, frame) in faulted.iter().take(shown).enumerate() {
        let x = x_of(i);
        let at = frame.at().as_millis();
        match frame {
            Frame::Line(line) => {
                let (y, class) = match line.stream {
                    Stream::Stderr => (stderr_y, "stderr"),
                    _ => (stdout_y, "stdout"),
                };
                let text = String::from_utf8_lossy(&line.bytes);
                let cut = if line.newline {
                    ""
                } else {
                    " (cut off: no newline)"
                };
                picture.rects.push(Rect {
                    x,
                    y: y + 3,
                    w: step - 2,
                    h: lane - 8,
                    class: if line.newline { class } else { "cut" },
                    title: format!("#{} at {at} ms{cut}: {}", i + 1, clip(&text, TOOLTIP)),
                });
            }
            Frame::Stall { duration, .. } => {
                let long = duration.map_or("until SIGTERM".to_owned(), |d| format!("{} ms", d.as_millis()));
                picture.rects.push(Rect {
                    x,
                    y: stdout_y + 3,
                    w: step - 2,
                    h: 2 * lane - 8,
                    class: "stall",
                    title: format!("#{} at {at} ms: nothing written for {long}", i + 1),
                });
            }
            Frame::CloseStdout { .. } => picture.rects.push(Rect {
                x,
                y: events_y + 3,
                w: step - 2,
                h: lane - 8,
                class: "fault",
                title: format!("#{} at {at} ms: the mock closed its stdout", i + 1),
            }),
            Frame::End(end) => {
                let how = match end.exit {
                    Exit::Code(code) => format!("exit {code}"),
                    Exit::Signal(signal) => format!("SIG{}", signal.name()),
                };
                picture.rects.push(Rect {
                    x,
                    y: events_y + 3,
                    w: step - 2,
                    h: lane - 8,
                    class: "end",
                    title: format!("#{} at {at} ms: the mock ends: {how}", i + 1),
                });
            }
        }
    }
    if faulted.len() > shown {
        picture.texts.push(Text {
            x: x_of(shown) + 4,
            y: stdout_y + 18,
            class: "small",
            anchor: "start",
            text: format!("… {} more", faulted.len() - shown),
        });
    }
    if let Some(hit) = hit.filter(|h| *h <= shown) {
        let x = x_of(hit).saturating_sub(2);
        picture.lines.push(Segment {
            x1: x,
            y1: top - 4,
            x2: x,
            y2: events_y + lane,
            class: "fault",
            arrow: false,
            title: format!("the fault hit here: {}", result.case.faults),
        });
        picture.texts.push(Text {
            x,
            y: events_y + lane + 16,
            class: "fault",
            anchor: "start",
            text: format!("fault: {}", clip(&result.case.faults, 40)),
        });
    }
    if let Some(closed) = entry.stdout_closed_at_ms {
        picture.texts.push(Text {
            x: 8,
            y: events_y + lane + 30,
            class: "small",
            anchor: "start",
            text: format!("the consumer closed the mock's stdout after {closed} ms"),
        });
    }
    // How each side ended, after the last frame drawn.
    let end_x = x_of(shown) + 8;
    picture.texts.push(Text {
        x: end_x,
        y: events_y + 16,
        class: "end",
        anchor: "start",
        text: format!("{} after {elapsed} ms", mock_end(entry)),
    });
    picture.texts.push(Text {
        x: end_x,
        y: events_y + lane + 30,
        class: "end",
        anchor: "start",
        text: format!(
            "consumer: {} after {} ms",
            report::status(result.outcome.status),
            result.outcome.wall.as_millis()
        ),
    });
    picture.lines.push(Segment {
        x1: left - 4,
        y1: events_y + lane + 2,
        x2: end_x - 4,
        y2: events_y + lane + 2,
        class: "axis",
        arrow: true,
        title: "the order the mock wrote in".to_owned(),
    });
    Some(picture)
}

/// What a JSON-RPC message is: a request (with its method), a notification, or an
/// answer to a request (with its id and whether it is an error).
enum Kind {
    Request(String),
    Notification(String),
    Answer {
        id: String,
        error: bool,
    },
    /// A message its dialect labels (see [`Dialect::label`](super::super::Dialect::label)).
    Labelled {
        label: String,
        ask: bool,
        error: bool,
    },
    Other,
}

fn kind(dialect: &dyn super::super::Dialect, line: &str) -> (Kind, serde_json::Value) {
    let Ok(value) = serde_json::from_str::<serde_json::Value>(line) else {
        return (Kind::Other, serde_json::Value::Null);
    };
    if let Some(label) = dialect.label(&value) {
        let kind = Kind::Labelled {
            label: label.label,
            ask: label.asks,
            error: label.error,
        };
        return (kind, value);
    }
    let method = value.get("method").and_then(|m| m.as_str()).map(str::to_owned);
    let id = value.get("id").map(|id| id.to_string());
    let kind = match (method, id) {
        (Some(method), Some(_)) => Kind::Request(method),
        (Some(method), None) => Kind::Notification(method),
        (None, Some(id)) => Kind::Answer {
            error: value.get("error").is_some(),
            id,
        },
        (None, None) => Kind::Other,
    };
    (kind, value)
}

/// Server mode: the client's and the agent's lifelines, an arrow a message (requests,
/// answers, updates; the agent's requests, such as asking permission, stand out), the
/// agent's stderr lines, the faults and divergences, and how each side ended.
fn sequence(result: &CaseResult, entry: &Entry, conversation: &journal::Conversation) -> Picture {
    let messages = &conversation.messages;
    let shown: Vec<&journal::MessageRecord> = messages.iter().take(MOST).collect();
    let (client_x, agent_x, stderr_x) = (120u32, 520u32, 640u32);
    let (top, step) = (56u32, 22u32);
    let bottom = top + step * (shown.len() as u32 + 1);
    let mut picture = Picture {
        width: 980,
        height: bottom + 70,
        label: format!("sequence diagram of case {}", result.case.name),
        ..Picture::default()
    };
    let head = |x: u32, text: &str| Text {
        x,
        y: top - 22,
        class: "label",
        anchor: "middle",
        text: text.to_owned(),
    };
    picture.texts.push(head(client_x, "client (consumer)"));
    picture.texts.push(head(agent_x, "agent (mock)"));
    picture.texts.push(head(stderr_x + 60, "agent's stderr"));
    for x in [client_x, agent_x] {
        picture.lines.push(Segment {
            x1: x,
            y1: top - 14,
            x2: x,
            y2: bottom,
            class: "life",
            arrow: false,
            title: String::new(),
        });
    }
    for (i, message) in shown.iter().enumerate() {
        let y = top + step * i as u32 + 8;
        let at = message.at_ms;
        if message.dir == journal::ERR {
            picture.texts.push(Text {
                x: stderr_x,
                y: y + 4,
                class: "stderr",
                anchor: "start",
                text: clip(&message.line, 34),
            });
            picture.rects.push(Rect {
                x: agent_x + 4,
                y: y - 3,
                w: 6,
                h: 6,
                class: "stderr",
                title: format!("at {at} ms, stderr: {}", clip(&message.line, TOOLTIP)),
            });
            continue;
        }
        let from_client = message.dir == journal::IN;
        let (kind, value) = kind(result.case.dialect, &message.line);
        let mut class = if from_client { "in" } else { "out" };
        let label = match &kind {
            Kind::Request(method) => {
                if !from_client {
                    class = "ask";
                }
                let id = value.get("id").map(|id| id.to_string()).unwrap_or_default();
                format!("{method} #{id}")
            }
            Kind::Notification(method) => method.clone(),
            Kind::Answer { id, error } => {
                if *error {
                    class = "error";
                    let message = value
                        .pointer("/error/message")
                        .and_then(|m| m.as_str())
                        .unwrap_or("");
                    format!("error #{id}: {}", clip(message, 30))
                } else {
                    format!("result #{id}")
                }
            }
            Kind::Labelled { label, ask, error } => {
                if *error {
                    class = "error";
                } else if *ask && !from_client {
                    class = "ask";
                }
                label.clone()
            }
            Kind::Other => "(not JSON)".to_owned(),
        };
        let (x1, x2) = if from_client {
            (client_x, agent_x)
        } else {
            (agent_x, client_x)
        };
        picture.lines.push(Segment {
            x1,
            y1: y,
            x2,
            y2: y,
            class,
            arrow: true,
            title: format!("at {at} ms, {}: {}", message.dir, clip(&message.line, TOOLTIP)),
        });
        picture.texts.push(Text {
            x: (client_x + agent_x) / 2,
            y: y - 4,
            class: "small",
            anchor: "middle",
            text: clip(&label, 56),
        });
        picture.texts.push(Text {
            x: client_x - 10,
            y: y + 4,
            class: "small",
            anchor: "end",
            text: format!("{at} ms"),
        });
    }
    // Where a fault that acted shows: the agent's first message out of the ordinary
    // (an error answer, a line that is not JSON-RPC), else the end of the agent's
    // and the client's messages when it did not exit 0.
    if entry.faults.iter().any(|f| f.fired) {
        let odd = shown.iter().position(|m| {
            m.dir == journal::OUT
                && matches!(
                    kind(result.case.dialect, &m.line).0,
                    Kind::Other | Kind::Answer { error: true, .. }
                )
        });
        let crashed = entry.exit != ExitRecord::Code(0);
        let last = shown.iter().rposition(|m| m.dir != journal::ERR);
        let at = odd.or_else(|| crashed.then(|| last.map_or(0, |i| i + 1)));
        if let Some(at) = at {
            let y = top + step * at as u32 - 3;
            picture.lines.push(Segment {
                x1: client_x - 40,
                y1: y,
                x2: stderr_x + 40,
                y2: y,
                class: "fault",
                arrow: false,
                title: format!("the fault shows here: {}", result.case.faults),
            });
            picture.texts.push(Text {
                x: stderr_x + 44,
                y: y + 4,
                class: "fault",
                anchor: "start",
                text: format!("fault: {}", clip(&result.case.faults, 30)),
            });
        }
    }
    if messages.len() > shown.len() {
        picture.texts.push(Text {
            x: (client_x + agent_x) / 2,
            y: bottom - 4,
            class: "small",
            anchor: "middle",
            text: format!("… {} more messages", messages.len() - shown.len()),
        });
    }
    let mut notes = Vec::new();
    if !entry.faults.is_empty() {
        notes.push(("fault", format!("faults: {}", faults(entry))));
    }
    for divergence in conversation.divergences.iter().take(3) {
        notes.push(("fault", format!("divergence: {}", clip(divergence, 100))));
    }
    let elapsed = entry.ended_at_ms.saturating_sub(entry.started_at_ms);
    notes.push(("end", format!("{} after {elapsed} ms", mock_end(entry))));
    notes.push((
        "end",
        format!(
            "consumer: {} after {} ms",
            report::status(result.outcome.status),
            result.outcome.wall.as_millis()
        ),
    ));
    picture.height = bottom + 24 + 14 * notes.len() as u32;
    for (n, (class, text)) in notes.into_iter().enumerate() {
        picture.texts.push(Text {
            x: 8,
            y: bottom + 16 + 14 * n as u32,
            class,
            anchor: "start",
            text,
        });
    }
    picture
}
