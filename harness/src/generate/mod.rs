//! Generated sessions: proptest strategies for streams nobody recorded.
//!
//! A session is not random event soup: it is built from a *plan* (the prompt, the
//! model calls with their text, thinking and tool calls, and how the run ends) by the
//! same rules the real CLI follows, so every generated session is valid and passes the
//! [`crate::check`]er. Proptest shrinks the plan, so a failing case shrinks to a
//! short, readable session: fewer model calls, fewer tools, shorter text.
//!
//! ```
//! use harness::generate::{session, SessionConfig};
//! use proptest::prelude::*;
//!
//! proptest! {
//!     #![proptest_config(ProptestConfig::with_cases(16))]
//!     // In a test suite, with `#[test]` on it.
//!     fn my_consumer_copes(session in session(SessionConfig::default())) {
//!         let stdout = session.stdout();          // what `cursor-agent -p` prints
//!         let answer = session.answer();          // Some(text) when the run succeeds
//!         prop_assert_eq!(answer.is_some(), stdout.contains("\"type\":\"result\""));
//!     }
//! }
//! # my_consumer_copes();
//! ```
//!
//! [`faulted`] overlays faults (see [`crate::faults`]) and labels each [`Faulted`] with
//! what a correct consumer concludes. [`from_seed`] makes the session of a seed, the
//! same on every run and machine (for one version of mock-agent), as
//! `mock-agent generate --seed N` and `MOCK_AGENT_GENERATE=N` do. A session, or a
//! case that failed a property, is written as an ordinary cassette with
//! [`Session::write_cassette`] / [`Faulted::write_cassette`].

use std::path::{Path, PathBuf};
use std::time::Duration;

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use serde_json::{json, Value};

use crate::cassette::Recording;
use crate::cassette::{Header, Invocation, Writer};
use crate::error::WriteError;
use crate::events::Event;
use crate::expect::{expectation_of, Expectation};
use crate::faults::Fault;
use crate::format::OutputFormat;
use crate::frames::{Ending, Exit, Frame, Line};
use crate::peek::Peek;
use crate::render::{segments::split_deltas, RenderOptions};
use crate::scenario::Scenario;

/// What a session may hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Profile {
    /// Only what the documentation describes: `system`, `user`, `assistant`,
    /// `tool_call` with `readToolCall`, `writeToolCall` and `function`, `result`; no
    /// timestamps, no thinking.
    Seeds,
    /// Everything shared/REAL-CLI.md describes: thinking, every tool kind, parallel
    /// calls completing out of order, `timestamp_ms`, `model_call_id`, `usage`,
    /// connection trouble.
    Real,
}

/// The knobs of [`session`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SessionConfig {
    /// What the session may hold.
    pub profile: Profile,
    /// At most this many model calls (each: text, then maybe tool calls).
    pub max_model_calls: usize,
    /// At most this many tool calls in parallel.
    pub max_parallel_tools: usize,
    /// At most this many characters of assistant text per segment.
    pub max_text: usize,
    /// `Some(true)`: recorded with `--stream-partial-output` (deltas, then the whole
    /// segment); `Some(false)`: without; `None`: either.
    pub stream_partial_output: Option<bool>,
    /// How often a run fails (no result, a message on stderr, exit 1), in percent.
    pub failure_percent: u32,
    /// At most this many events, about (at least 4: init, user, text, result); `None`:
    /// no limit.
    pub max_events: Option<usize>,
}

impl Default for SessionConfig {
    fn default() -> Self {
        SessionConfig {
            profile: Profile::Real,
            max_model_calls: 4,
            max_parallel_tools: 3,
            max_text: 80,
            stream_partial_output: None,
            failure_percent: 20,
            max_events: None,
        }
    }
}

impl SessionConfig {
    /// The documented profile only.
    #[must_use]
    pub fn seeds() -> Self {
        SessionConfig {
            profile: Profile::Seeds,
            stream_partial_output: Some(false),
            ..SessionConfig::default()
        }
    }

    /// Large sessions: many model calls, long text.
    #[must_use]
    pub fn large() -> Self {
        SessionConfig {
            max_model_calls: 40,
            max_text: 4_000,
            ..SessionConfig::default()
        }
    }

    /// With at most `events` events.
    #[must_use]
    pub fn max_events(mut self, events: usize) -> Self {
        self.max_events = Some(events.max(4));
        self
    }

    /// With this share of failed runs, in percent.
    #[must_use]
    pub fn failures(mut self, percent: u32) -> Self {
        self.failure_percent = percent.min(100);
        self
    }

    /// With this profile.
    #[must_use]
    pub fn profile(mut self, profile: Profile) -> Self {
        self.profile = profile;
        if profile == Profile::Seeds {
            self.stream_partial_output = Some(false);
        }
        self
    }
}

/// A generated run: its stdout events, its stderr, and how it ends.
#[derive(Debug, Clone, PartialEq)]
pub struct Session {
    /// The prompt.
    pub prompt: String,
    /// Whether it is streamed as with `--stream-partial-output`.
    pub stream_partial_output: bool,
    /// The stdout lines, one event each, in order.
    pub lines: Vec<String>,
    /// The stderr lines.
    pub stderr: Vec<String>,
    /// How the process ends.
    pub exit: Exit,
}

impl Session {
    /// The events, parsed.
    pub fn events(&self) -> Vec<Event> {
        self.lines
            .iter()
            .filter_map(|l| Event::from_slice(l.as_bytes()).ok())
            .collect()
    }

    /// Stdout as `--output-format stream-json` prints it.
    pub fn stdout(&self) -> String {
        self.lines.iter().map(|l| format!("{l}\n")).collect()
    }

    /// The answer a consumer reports: `result.result` of a successful run.
    pub fn answer(&self) -> Option<String> {
        if !self.exit.success() {
            return None;
        }
        self.lines
            .iter()
            .rev()
            .find_map(|l| {
                Peek::parse(l.as_bytes())
                    .filter(|p| p.is_type("result"))
                    .and_then(|p| p.result_text())
            })
            .map(|t| t.into_owned())
    }

    /// The frames of the run, 10 ms apart.
    pub fn frames(&self) -> Vec<Frame> {
        let step = Duration::from_millis(10);
        let mut frames: Vec<Frame> = self
            .lines
            .iter()
            .enumerate()
            .map(|(i, l)| Frame::Line(Line::stdout(step * i as u32, l.as_bytes())))
            .collect();
        let end = step * self.lines.len() as u32;
        frames.extend(
            self.stderr
                .iter()
                .map(|l| Frame::Line(Line::stderr(end, l.as_bytes()))),
        );
        frames.push(Frame::End(Ending {
            at: end,
            exit: self.exit,
        }));
        frames
    }

    /// The session as a recording, to render or run as [`crate::source::Source`]s are.
    pub fn recording(&self) -> Recording {
        Recording {
            name: PathBuf::from("<generated session>"),
            header: Some(self.header()),
            stream_partial_output: Some(self.stream_partial_output),
            frames: Box::new(self.frames().into_iter().map(Ok)),
        }
    }

    fn header(&self) -> Header {
        let mut argv = vec![
            "-p".to_owned(),
            "--output-format".to_owned(),
            "stream-json".to_owned(),
        ];
        if self.stream_partial_output {
            argv.push("--stream-partial-output".into());
        }
        argv.push(self.prompt.clone());
        Header::new(Invocation {
            argv,
            prompt: Some(self.prompt.clone()),
            output_format: Some(OutputFormat::StreamJson),
            stream_partial_output: self.stream_partial_output,
            ..Invocation::default()
        })
    }

    /// Writes the session as a cassette, atomically: `mock-agent replay PATH` (or
    /// `MOCK_AGENT_CASSETTE=PATH`) replays it.
    pub fn write_cassette(&self, path: &Path) -> Result<PathBuf, WriteError> {
        let mut writer = Writer::create(path, &self.header())?;
        for frame in self.frames() {
            writer.write(&frame)?;
        }
        writer.finish()
    }
}

/// A session with faults overlaid, and what a correct consumer concludes from it.
#[derive(Debug, Clone, PartialEq)]
pub struct Faulted {
    /// The session.
    pub session: Session,
    /// The faults, as given to `MOCK_AGENT_FAULTS` (`;`-joined).
    pub faults: Vec<String>,
    /// What a correct consumer concludes.
    pub expect: Expectation,
}

impl Faulted {
    /// The faults, parsed.
    pub fn parsed_faults(&self) -> Vec<Fault> {
        let origin = crate::faults::FROM_ENV;
        self.faults
            .iter()
            .filter_map(|f| crate::faults::parse(f, origin).ok())
            .flatten()
            .collect()
    }

    /// The frames of the case as the mock performs them in `stream-json`, faults applied.
    pub fn frames(&self) -> Vec<Frame> {
        planned_frames(&self.session, self.parsed_faults())
    }

    /// Writes the case, faults applied, as a cassette that replays it exactly
    /// (including stalls and a closed stdout).
    pub fn write_cassette(&self, path: &Path) -> Result<PathBuf, WriteError> {
        write_planned(&self.session, &self.parsed_faults(), path)
    }
}

/// Writes a session with these faults applied, in `stream-json`, as a cassette.
pub fn write_planned(session: &Session, faults: &[Fault], path: &Path) -> Result<PathBuf, WriteError> {
    let mut writer = Writer::create(path, &session.header())?;
    for frame in planned_frames(session, faults.to_vec()) {
        writer.write(&frame)?;
    }
    writer.finish()
}

fn planned_frames(session: &Session, faults: Vec<Fault>) -> Vec<Frame> {
    let scenario = Scenario {
        render: RenderOptions::new(OutputFormat::StreamJson)
            .stream_partial_output(session.stream_partial_output)
            .now_ms(BASE_MS),
        faults,
        ..Scenario::default()
    };
    match scenario.plan(session.recording()) {
        Ok(plan) => plan.frames.filter_map(Result::ok).collect(),
        Err(_) => session.frames(),
    }
}

/// What a correct consumer concludes from a session with faults: success when the
/// stream still holds a readable `result` and the process exits 0.
pub fn expectation(session: &Session, faults: &[Fault]) -> Expectation {
    expectation_of(&planned_frames(session, faults.to_vec()))
}

/// Milliseconds since the epoch at which generated sessions start.
const BASE_MS: u64 = 1_790_000_000_000;

/// One tool call of a plan.
#[derive(Debug, Clone)]
struct ToolPlan {
    kind: usize,
    path: String,
    text: String,
    ok: bool,
}

/// One model call: thinking, text segments, then tool calls in parallel.
#[derive(Debug, Clone)]
struct CallPlan {
    thinking: Vec<String>,
    segments: Vec<String>,
    tools: Vec<ToolPlan>,
    /// A permutation seed for the order the tools complete in.
    completion: Vec<u8>,
}

/// How a run ends.
#[derive(Debug, Clone)]
enum EndPlan {
    Success {
        usage: (u32, u32),
    },
    Failure {
        keep: usize,
        message: usize,
        connection: bool,
    },
}

#[derive(Debug, Clone)]
struct Plan {
    prompt: String,
    session_id: String,
    partial: bool,
    calls: Vec<CallPlan>,
    end: EndPlan,
}

const SEEDS_TOOLS: &[&str] = &["readToolCall", "writeToolCall", "function"];
const REAL_TOOLS: &[&str] = crate::events::TOOL_KEYS;

const FAILURES: &[&str] = &[
    crate::faults::AUTH_REQUIRED,
    "ActionRequiredError: Increase limits for faster responses You're out of usage.",
    "Cannot use this model: gpt-9. Available models: auto, sonnet-4.5, gpt-5",
    "RetriableError: [unavailable] upstream connect error or disconnect/reset before headers",
];

/// Text: any Unicode, mostly words, sometimes large.
fn text(max: usize) -> BoxedStrategy<String> {
    let words = prop::collection::vec(
        prop_oneof![
            6 => "[a-zA-Z]{1,8}",
            1 => "[0-9]{1,4}",
            1 => prop::sample::select(vec!["café", "naïve", "日本語", "🦀", "—", "\"quoted\"", "back\\slash", "tab\there", "new\nline", "`code`"]).prop_map(str::to_owned),
            1 => any::<char>().prop_map(String::from),
        ],
        0..=max.div_ceil(5).max(1),
    )
    .prop_map(move |words| {
        let mut text = words.join(" ");
        if let Some((cut, _)) = text.char_indices().nth(max) {
            text.truncate(cut);
        }
        text
    });
    words.boxed()
}

fn tool_plan(profile: Profile) -> impl Strategy<Value = ToolPlan> {
    let kinds = match profile {
        Profile::Seeds => SEEDS_TOOLS.len(),
        Profile::Real => REAL_TOOLS.len(),
    };
    (
        0..kinds,
        "[a-z]{1,8}(/[a-z]{1,8}){0,2}\\.(rs|md|txt|toml)",
        text(40),
        prop::bool::weighted(0.85),
    )
        .prop_map(|(kind, path, text, ok)| ToolPlan { kind, path, text, ok })
}

fn call_plan(config: &SessionConfig) -> impl Strategy<Value = CallPlan> {
    let thinking = match config.profile {
        Profile::Seeds => Just(Vec::new()).boxed(),
        Profile::Real => prop::collection::vec(text(30), 0..3).boxed(),
    };
    let parallel = match config.profile {
        Profile::Seeds => 0..=1usize,
        Profile::Real => 0..=config.max_parallel_tools,
    };
    (
        thinking,
        prop::collection::vec(text(config.max_text), 1..=2),
        prop::collection::vec(tool_plan(config.profile), parallel),
        prop::collection::vec(any::<u8>(), 3),
    )
        .prop_map(|(thinking, segments, tools, completion)| CallPlan {
            thinking,
            segments,
            tools,
            completion,
        })
        // A segment that repeats the segments before it would read as their closing
        // line: the real CLI never streams that, so neither does the generator.
        .prop_filter("segments that read as deltas and their closing line", |call| {
            let mut before = String::new();
            call.segments.iter().all(|s| {
                let ok = before.is_empty() || *s != before;
                before.push_str(s);
                ok
            })
        })
}

fn plan(config: &SessionConfig) -> impl Strategy<Value = Plan> {
    let partial = match config.stream_partial_output {
        Some(p) => Just(p).boxed(),
        None => any::<bool>().boxed(),
    };
    let failure = (config.failure_percent.min(100)) as f64 / 100.0;
    let end = prop_oneof![
        (1u32..20_000, 1u32..2_000).prop_map(|usage| EndPlan::Success { usage }),
        (0usize..64, 0..FAILURES.len(), any::<bool>()).prop_map(|(keep, message, connection)| {
            EndPlan::Failure {
                keep,
                message,
                connection,
            }
        }),
    ];
    let end = prop::bool::weighted(failure).prop_flat_map(move |fail| {
        let end = end.clone();
        end.prop_filter("success or failure as weighted", move |e| {
            matches!(e, EndPlan::Failure { .. }) == fail
        })
    });
    (
        text(60),
        "[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}",
        partial,
        prop::collection::vec(call_plan(config), 1..=config.max_model_calls.max(1)),
        end,
    )
        .prop_map(|(prompt, session_id, partial, calls, end)| Plan {
            prompt,
            session_id,
            partial,
            calls,
            end,
        })
}

/// A strategy for valid sessions with these knobs.
pub fn session(config: SessionConfig) -> impl Strategy<Value = Session> {
    plan(&config).prop_map(move |plan| build(&plan, &config))
}

/// The fault specs [`faulted`] draws from: every fault, in the placements that matter.
fn fault_spec() -> impl Strategy<Value = String> {
    let placement = prop_oneof![
        Just("after=0".to_owned()),
        (1usize..12).prop_map(|n| format!("after={n}")),
        prop::sample::select(vec!["at=assistant", "at=tool_call", "at=result", "at=end"])
            .prop_map(str::to_owned),
    ];
    let cut = (placement.clone(), prop::option::of(0usize..120)).prop_map(|(p, byte)| match byte {
        Some(k) => format!("{p},byte={k}"),
        None => p,
    });
    prop_oneof![
        cut.clone().prop_map(|p| format!("eof:{p}")),
        cut.clone().prop_map(|p| format!("signal:name=TERM,{p}")),
        (1u32..30, cut).prop_map(|(ms, p)| format!("stall:ms={ms},{p}")),
        placement.clone().prop_map(|p| format!("malformed:{p}")),
        placement.clone().prop_map(|p| format!("noise:{p}")),
        placement.clone().prop_map(|p| format!("duplicate:{p}")),
        placement.clone().prop_map(|p| format!("unknown-event:{p}")),
        placement.clone().prop_map(|p| format!("stderr:text=oops,{p}")),
        placement.prop_map(|p| format!("huge:bytes=70000,{p}")),
        prop::sample::select(vec![
            "drop:type=result",
            "drop:type=tool_call",
            "drop:type=assistant",
            "exit:code=1",
            "exit:code=0",
            "reorder",
            "unknown-field",
            "crlf",
            "invalid-utf8",
            "chunk:size=7",
            "chunk:random",
            "coalesce",
            "stderr-flood:bytes=100000",
            "auth-required",
            "trust-required",
            "quota",
            "unknown-model",
            "session-in-use",
            "connection-lost",
        ])
        .prop_map(str::to_owned),
    ]
}

/// A strategy for sessions with 0 to `max_faults` faults overlaid, each labelled with
/// what a correct consumer concludes.
pub fn faulted(config: SessionConfig, max_faults: usize) -> impl Strategy<Value = Faulted> {
    (
        session(config),
        prop::collection::vec(fault_spec(), 0..=max_faults),
    )
        .prop_map(|(session, faults)| {
            let parsed: Vec<Fault> = faults
                .iter()
                .filter_map(|f| crate::faults::parse(f, crate::faults::FROM_ENV).ok())
                .flatten()
                .collect();
            let expect = expectation(&session, &parsed);
            Faulted {
                session,
                faults,
                expect,
            }
        })
}

/// The session of a seed: the same on every run and machine, for one version.
pub fn from_seed(seed: u64, config: &SessionConfig) -> Session {
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &bytes);
    let mut runner = TestRunner::new_with_rng(Config::default(), rng);
    match plan(config).new_tree(&mut runner) {
        Ok(tree) => build(&tree.current(), config),
        // Only a filter that rejects everything fails; the generator's do not.
        Err(_) => build(&fallback_plan(), config),
    }
}

fn fallback_plan() -> Plan {
    Plan {
        prompt: "hi".into(),
        session_id: "00000000-0000-4000-8000-000000000000".into(),
        partial: false,
        calls: vec![CallPlan {
            thinking: Vec::new(),
            segments: vec!["Hello.".into()],
            tools: Vec::new(),
            completion: Vec::new(),
        }],
        end: EndPlan::Success { usage: (1, 1) },
    }
}

/// Builds the events of a plan, by the rules of the real CLI.
fn build(plan: &Plan, config: &SessionConfig) -> Session {
    let real = config.profile == Profile::Real;
    let sid = plan.session_id.as_str();
    let max_events = config.max_events.unwrap_or(usize::MAX).max(4);
    let mut clock = BASE_MS;
    let mut tick = || {
        clock += 37;
        clock
    };
    let mut lines: Vec<Value> = vec![
        json!({"type":"system","subtype":"init","apiKeySource":"login","cwd":"/home/dev/project","session_id":sid,"model": if real {"Claude 4.5 Sonnet"} else {"Claude 4 Sonnet"},"permissionMode":"default"}),
        json!({"type":"user","message":{"role":"user","content":[{"type":"text","text":plan.prompt}]},"session_id":sid}),
    ];
    let mut answer = String::new();
    let request = &plan.session_id[..8];
    'calls: for (n, call) in plan.calls.iter().enumerate() {
        let mut events: Vec<Value> = Vec::new();
        // `<request uuid>-<n>-<4 chars>`.
        let model_call_id = format!("{}-{n}-{:04x}", plan.session_id, (n * 7919) % 65_536);
        let model_call_id = model_call_id.as_str();
        if real && !call.thinking.is_empty() {
            for thought in &call.thinking {
                events.push(json!({"type":"thinking","subtype":"delta","text":thought,"session_id":sid,"timestamp_ms":tick()}));
            }
            events.push(
                json!({"type":"thinking","subtype":"completed","session_id":sid,"timestamp_ms":tick()}),
            );
        }
        for (i, segment) in call.segments.iter().enumerate() {
            let closes_before_tool = i + 1 == call.segments.len() && !call.tools.is_empty();
            let message = json!({"role":"assistant","content":[{"type":"text","text":segment}]});
            if plan.partial && real {
                for piece in split_deltas(segment) {
                    let delta = json!({"role":"assistant","content":[{"type":"text","text":piece}]});
                    events.push(
                        json!({"type":"assistant","message":delta,"session_id":sid,"timestamp_ms":tick()}),
                    );
                }
            }
            let mut whole = json!({"type":"assistant","message":message,"session_id":sid});
            if real && closes_before_tool {
                whole["model_call_id"] = json!(model_call_id);
                whole["timestamp_ms"] = json!(tick());
            }
            events.push(whole);
        }
        let mut started = Vec::new();
        for (t, tool) in call.tools.iter().enumerate() {
            let call_id = if real && t % 2 == 1 {
                format!("call-{request}-{n}-{t}\nfc_{request}_{t}")
            } else {
                format!("toolu_{request}{n:02}{t:02}")
            };
            let (key, args, result) = tool_body(tool, real, &call_id);
            // `function` holds `name` and `arguments` itself; the others hold `args`.
            let (begun, ended) = if key == "function" {
                let mut ended = args.clone();
                ended["result"] = result;
                (args, ended)
            } else {
                (
                    json!({"args": args.clone()}),
                    json!({"args": args, "result": result}),
                )
            };
            let mut start = json!({"type":"tool_call","subtype":"started","call_id":call_id,"tool_call":{key.clone(): begun},"session_id":sid});
            let mut done = json!({"type":"tool_call","subtype":"completed","call_id":call_id,"tool_call":{key: ended},"session_id":sid});
            if real {
                for event in [&mut start, &mut done] {
                    event["tool_call"]["toolCallId"] = json!(call_id);
                    event["model_call_id"] = json!(model_call_id);
                }
                start["timestamp_ms"] = json!(tick());
            }
            events.push(start);
            started.push(done);
        }
        // Parallel calls complete in the order they finish, each stamped when it does.
        let mut order: Vec<usize> = (0..started.len()).collect();
        if real {
            for (i, seed) in call.completion.iter().enumerate().take(order.len()) {
                let j = (*seed as usize) % order.len();
                order.swap(i, j);
            }
        }
        for i in order {
            let mut done = started[i].clone();
            if real {
                done["timestamp_ms"] = json!(tick());
            }
            events.push(done);
        }
        if lines.len() + events.len() + 1 > max_events {
            if n == 0 {
                // Keep at least one segment of text.
                lines.push(json!({"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":call.segments[0]}]},"session_id":sid}));
                answer.push_str(&call.segments[0]);
            }
            break 'calls;
        }
        answer.extend(call.segments.iter().map(String::as_str));
        lines.extend(events);
    }
    let mut stderr = Vec::new();
    let exit = match &plan.end {
        EndPlan::Success { usage } => {
            let mut result = json!({"type":"result","subtype":"success","duration_ms":lines.len() as u64 * 37,"duration_api_ms":lines.len() as u64 * 37,"is_error":false,"result":answer,"session_id":sid,"request_id":format!("{request}-req")});
            if real {
                result["usage"] = json!({"inputTokens":usage.0,"outputTokens":usage.1,"cacheReadTokens":0,"cacheWriteTokens":0});
            }
            lines.push(result);
            Exit::Code(0)
        }
        EndPlan::Failure {
            keep,
            message,
            connection,
        } => {
            // The real CLI fails with nothing on stdout, or after `init` and `user`, or
            // further on; never between the two.
            let keep = if *keep == 1 { 2 } else { *keep };
            lines.truncate(keep.min(lines.len()));
            if real && *connection && lines.len() >= 2 {
                lines.push(json!({"type":"connection","subtype":"reconnecting","session_id":sid,"timestamp_ms":tick(),"attempt":1}));
                lines.push(json!({"type":"retry","subtype":"starting","session_id":sid,"timestamp_ms":tick(),"attempt":1,"is_resume":false}));
            }
            stderr.push(FAILURES[*message % FAILURES.len()].to_owned());
            Exit::Code(1)
        }
    };
    Session {
        prompt: plan.prompt.clone(),
        stream_partial_output: plan.partial && real,
        lines: lines.iter().map(Value::to_string).collect(),
        stderr,
        exit,
    }
}

/// The key, `args` and `result` of a tool call.
fn tool_body(tool: &ToolPlan, real: bool, call_id: &str) -> (String, Value, Value) {
    let key = if real {
        REAL_TOOLS[tool.kind % REAL_TOOLS.len()]
    } else {
        SEEDS_TOOLS[tool.kind % SEEDS_TOOLS.len()]
    };
    let path = &tool.path;
    let text = &tool.text;
    let lines = text.lines().count() as u64;
    let (args, success) = match key {
        "readToolCall" => (
            json!({"path":path}),
            json!({"content":text,"isEmpty":text.is_empty(),"exceededLimit":false,"totalLines":lines,"fileSize":text.len(),"path":path}),
        ),
        "writeToolCall" => (
            json!({"path":path,"fileText":text,"toolCallId":call_id}),
            json!({"path":format!("/home/dev/project/{path}"),"linesCreated":lines,"fileSize":text.len()}),
        ),
        "editToolCall" => (
            json!({"path":path,"streamContent":text}),
            json!({"path":path,"linesAdded":lines,"linesRemoved":1,"diffString":format!("-old\n+{text}"),"afterFullFileContent":text,"message":"Edited"}),
        ),
        "shellToolCall" => (
            json!({"command":format!("cat {path}"),"workingDirectory":"/home/dev/project","timeout":30000,"toolCallId":call_id,"simpleCommands":["cat"],"isBackground":false,"description":"Show the file"}),
            json!({"command":format!("cat {path}"),"exitCode":if tool.ok {0} else {1},"signal":"","stdout":text,"stderr":"","executionTime":12,"interleavedOutput":text}),
        ),
        "globToolCall" => (
            json!({"globPattern":format!("**/{path}"),"targetDirectory":"/home/dev/project"}),
            json!({"pattern":path,"path":"/home/dev/project","files":[path],"totalFiles":1,"clientTruncated":false,"ripgrepTruncated":false}),
        ),
        "grepToolCall" => (
            json!({"pattern":text,"path":path,"caseInsensitive":false,"multiline":false,"offset":0}),
            json!({"pattern":text,"path":path,"outputMode":"content","workspaceResults":{}}),
        ),
        "lsToolCall" => (
            json!({"path":path,"ignore":[]}),
            json!({"directoryTreeRoot":{"absPath":path,"childrenDirs":[],"childrenFiles":[]}}),
        ),
        "deleteToolCall" => (json!({"path":path}), json!({"path":path})),
        "updateTodosToolCall" => (
            json!({"todos":[{"id":"1","content":text,"status":"TODO_STATUS_PENDING"}],"merge":false}),
            json!({"todos":[],"totalCount":1,"wasMerge":false}),
        ),
        "mcpToolCall" => (
            json!({"name":"docs-search","toolName":"search","serverIdentifier":"docs","args":{"q":text}}),
            json!({"content":[{"text":text}],"isError":false}),
        ),
        _ => (
            json!({"name":"lookup","arguments":json!({"q":text}).to_string()}),
            json!({"output":text}),
        ),
    };
    let result = match (tool.ok, key) {
        (true, _) => json!({"success": success}),
        (false, "shellToolCall") => json!({"failure": success}),
        (false, _) => json!({"error": {"errorMessage": format!("cannot open {path}")}}),
    };
    (key.to_owned(), args, result)
}
