//! The HTTP server (axum on tokio, loopback only): picks the step that answers each
//! request, logs the request, and turns the API's [`Reply`] into a response.

use std::io::Write;
use std::net::{SocketAddr, TcpListener};
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderName, HeaderValue, Method, StatusCode, Uri};
use axum::response::sse::{Event, Sse};
use axum::response::{IntoResponse, Response};
use axum::Router;
use futures_util::stream::{self, Stream, StreamExt};
use serde::Serialize;
use serde_json::Value;

use super::scenario::{End, Scenario, Step};
use super::{Api, Ask, Reply, Route, SseEvent, ToolResult};

/// The largest request body read (a long conversation with its tools is a few MB).
const MAX_BODY: usize = 64 << 20;

/// At most this many requests are kept for [`Server::requests`] (the oldest go first).
const MAX_KEPT: usize = 10_000;

/// One request the server got, as it logs it (one JSON object a line).
#[derive(Debug, Clone, Serialize)]
#[non_exhaustive]
pub struct RequestRecord {
    /// Its number, from 1.
    pub n: u64,
    /// `POST`, ...
    pub method: String,
    /// The path with its query.
    pub path: String,
    /// The model it asked for.
    pub model: Option<String>,
    /// Whether it asked for a stream.
    pub stream: bool,
    /// The names of the tools it offered.
    pub tools: Vec<String>,
    /// The index of the scenario step that answered it (none: a side request, or a
    /// path the API does not serve).
    pub step: Option<usize>,
    /// The tool results it carried back (those after its last message).
    pub tool_results: Vec<ToolResult>,
    /// The HTTP status answered.
    pub status: u16,
}

/// How a [`Server`] listens and logs.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct ServerOptions {
    /// The port on 127.0.0.1 (0: any free one).
    pub port: u16,
    /// Append each [`RequestRecord`] to this file, one JSON line each.
    pub log: Option<PathBuf>,
    /// Write each [`RequestRecord`] on stderr.
    pub log_stderr: bool,
    /// Keep the records for [`Server::requests`] (the last 10,000).
    pub keep: bool,
}

impl ServerOptions {
    /// Listens on `port`.
    #[must_use]
    pub fn port(mut self, port: u16) -> Self {
        self.port = port;
        self
    }

    /// Logs to `path`.
    #[must_use]
    pub fn log(mut self, path: Option<PathBuf>) -> Self {
        self.log = path;
        self
    }
}

/// Where the steps are, and what was asked.
struct Cursor {
    /// The step answering the next request.
    step: usize,
    /// How many requests it answered already.
    used: u32,
    /// Requests so far.
    n: u64,
    /// The kept records.
    kept: std::collections::VecDeque<RequestRecord>,
}

/// What the handler shares.
struct Shared {
    api: Api,
    scenario: Scenario,
    cursor: Mutex<Cursor>,
    log: Option<Mutex<std::fs::File>>,
    log_stderr: bool,
    keep: bool,
}

impl Shared {
    /// The step for the next agent request (the last one repeats), with its index.
    fn next_step(&self, cursor: &mut Cursor) -> (usize, Step) {
        let steps = &self.scenario.steps;
        let index = cursor.step.min(steps.len() - 1);
        let step = steps[index].clone();
        cursor.used += 1;
        if cursor.used >= step.times.max(1) && index + 1 < steps.len() {
            cursor.step = index + 1;
            cursor.used = 0;
        }
        (index, step)
    }

    fn record(&self, cursor: &mut Cursor, record: RequestRecord) {
        if self.log_stderr || self.log.is_some() {
            let line = serde_json::to_string(&record).unwrap_or_default();
            if self.log_stderr {
                eprintln!("{line}");
            }
            if let Some(file) = &self.log {
                if let Ok(mut file) = file.lock() {
                    let _ = writeln!(file, "{line}");
                }
            }
        }
        if self.keep {
            if cursor.kept.len() == MAX_KEPT {
                cursor.kept.pop_front();
            }
            cursor.kept.push_back(record);
        }
    }
}

/// A scripted model API listening on 127.0.0.1, served from a thread of its own until
/// dropped.
pub struct Server {
    base_url: String,
    addr: SocketAddr,
    shared: Arc<Shared>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("api", &self.shared.api)
            .field("base_url", &self.base_url)
            .finish_non_exhaustive()
    }
}

impl Server {
    /// Serves `api` from `scenario` on a free port of 127.0.0.1, keeping every request
    /// for [`Server::requests`].
    pub fn start(api: Api, scenario: Scenario) -> std::io::Result<Server> {
        let options = ServerOptions {
            keep: true,
            ..ServerOptions::default()
        };
        Server::start_with(api, scenario, &options)
    }

    /// Serves `api` from `scenario` as `options` say.
    pub fn start_with(api: Api, scenario: Scenario, options: &ServerOptions) -> std::io::Result<Server> {
        let (listener, shared) = bind(api, scenario, options)?;
        let addr = listener.local_addr()?;
        let (stop, stopped) = tokio::sync::oneshot::channel();
        let app = app(Arc::clone(&shared));
        let runtime = runtime()?;
        let thread = std::thread::Builder::new()
            .name("model-api".to_owned())
            .spawn(move || {
                runtime.block_on(serve(listener, app, async {
                    let _ = stopped.await;
                }));
            })?;
        Ok(Server {
            base_url: base_url(api, addr),
            addr,
            shared,
            stop: Some(stop),
            thread: Some(thread),
        })
    }

    /// The base URL a client is given (`http://127.0.0.1:PORT`, with `/v1` for OpenAI).
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// The address listened on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The requests so far, oldest first.
    pub fn requests(&self) -> Vec<RequestRecord> {
        self.shared
            .cursor
            .lock()
            .map(|c| c.kept.iter().cloned().collect())
            .unwrap_or_default()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Binds 127.0.0.1:`port` and makes the shared state.
fn bind(
    api: Api,
    scenario: Scenario,
    options: &ServerOptions,
) -> std::io::Result<(TcpListener, Arc<Shared>)> {
    let listener = TcpListener::bind(("127.0.0.1", options.port))?;
    listener.set_nonblocking(true)?;
    let log = match &options.log {
        Some(path) => Some(Mutex::new(
            std::fs::OpenOptions::new().create(true).append(true).open(path)?,
        )),
        None => None,
    };
    let shared = Arc::new(Shared {
        api,
        scenario,
        cursor: Mutex::new(Cursor {
            step: 0,
            used: 0,
            n: 0,
            kept: std::collections::VecDeque::new(),
        }),
        log,
        log_stderr: options.log_stderr,
        keep: options.keep,
    });
    Ok((listener, shared))
}

fn base_url(api: Api, addr: SocketAddr) -> String {
    format!("http://{addr}{}", api.base_path())
}

fn runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .enable_time()
        .build()
}

fn app(shared: Arc<Shared>) -> Router {
    Router::new()
        .fallback(handle)
        .with_state(shared)
        .layer(DefaultBodyLimit::max(MAX_BODY))
}

/// Serves until `stop` completes; connections still open then (a stalled stream) are
/// dropped with the runtime.
async fn serve(listener: TcpListener, app: Router, stop: impl std::future::Future<Output = ()>) {
    let Ok(listener) = tokio::net::TcpListener::from_std(listener) else {
        return;
    };
    tokio::select! {
        _ = axum::serve(listener, app) => {}
        () = stop => {}
    }
}

/// Runs the server in this thread until `stop` completes: the command line's way.
pub(super) fn run_blocking(
    api: Api,
    scenario: Scenario,
    options: &ServerOptions,
    ready: impl FnOnce(&str),
    stop: impl std::future::Future<Output = ()>,
) -> std::io::Result<()> {
    let (listener, shared) = bind(api, scenario, options)?;
    let addr = listener.local_addr()?;
    let runtime = runtime()?;
    ready(&base_url(api, addr));
    runtime.block_on(serve(listener, app(shared), stop));
    Ok(())
}

/// Answers one request.
async fn handle(State(shared): State<Arc<Shared>>, method: Method, uri: Uri, body: Bytes) -> Response {
    let api = shared.api;
    let path = uri
        .path_and_query()
        .map_or_else(|| uri.path().to_owned(), |p| p.as_str().to_owned());
    let json: Option<Value> = serde_json::from_slice(&body).ok();
    let null = Value::Null;
    let request = json.as_ref().unwrap_or(&null);
    let offered = api.offered(request);
    let mut record = RequestRecord {
        n: 0,
        method: method.as_str().to_owned(),
        path: path.clone(),
        model: api.requested_model(&path, request),
        stream: api.streams(&path, request),
        tools: offered.iter().map(|t| t.name.clone()).collect(),
        step: None,
        tool_results: api.tool_results(request),
        status: 200,
    };
    let (n, step) = {
        let Ok(mut cursor) = shared.cursor.lock() else {
            return StatusCode::INTERNAL_SERVER_ERROR.into_response();
        };
        cursor.n += 1;
        let n = cursor.n;
        record.n = n;
        let step = match api.route(method.as_str(), &path) {
            Route::Unknown => None,
            Route::Answer if json.is_none() => None,
            Route::Answer if shared.scenario.every_request || !offered.is_empty() => {
                let (index, step) = shared.next_step(&mut cursor);
                record.step = Some(index);
                Some(step)
            }
            Route::Answer => Some(shared.scenario.side.clone()),
        };
        let reply_status = match (&step, api.route(method.as_str(), &path)) {
            (Some(step), _) => step.error.as_ref().map_or(200, |e| e.status),
            (None, Route::Unknown) => 404,
            (None, Route::Answer) => 400,
        };
        record.status = reply_status;
        shared.record(&mut cursor, record.clone());
        (n, step)
    };
    let Some(step) = step else {
        let message = if record.status == 404 {
            format!(
                "mock-agent model-api ({}): no such endpoint: {} {path}",
                api.name(),
                method
            )
        } else {
            format!(
                "mock-agent model-api ({}): the request body is not JSON",
                api.name()
            )
        };
        return into_response(api.error(record.status, Some(&message), n));
    };
    if step.delay_ms > 0 {
        tokio::time::sleep(Duration::from_millis(step.delay_ms)).await;
    }
    if let Some(error) = &step.error {
        let mut reply = match &error.body {
            Some(body) => Reply::json(error.status, body.clone()),
            None => api.error(error.status, error.message.as_deref(), n),
        };
        if let Some(seconds) = error.retry_after {
            reply = reply.with_header("retry-after", seconds.to_string());
        }
        return into_response(reply);
    }
    let model = shared
        .scenario
        .model
        .clone()
        .or(record.model)
        .unwrap_or_else(|| "mock-model".to_owned());
    let ask = Ask {
        n,
        model,
        stream: record.stream,
        offered: &offered,
        now_s: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs()),
    };
    into_response(api.answer(&step, &ask))
}

type EventStream = Pin<Box<dyn Stream<Item = Result<Event, std::io::Error>> + Send>>;

fn event(sse: SseEvent) -> Result<Event, std::io::Error> {
    let event = match sse.event {
        Some(name) => Event::default().event(name),
        None => Event::default(),
    };
    Ok(event.data(sse.data))
}

fn into_response(reply: Reply) -> Response {
    match reply {
        Reply::Json {
            status,
            headers,
            body,
        } => {
            let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
            let mut response = (
                status,
                [(axum::http::header::CONTENT_TYPE, "application/json")],
                body.to_string(),
            )
                .into_response();
            for (name, value) in headers {
                if let Ok(value) = HeaderValue::from_str(&value) {
                    response
                        .headers_mut()
                        .insert(HeaderName::from_static(name), value);
                }
            }
            response
        }
        Reply::Stream { events, closing, end } => {
            let head = stream::iter(events.into_iter().map(event));
            let tail: EventStream = match end {
                End::Complete => Box::pin(stream::iter(closing.into_iter().map(event))),
                End::Cut => Box::pin(stream::empty()),
                End::Drop => Box::pin(stream::once(async {
                    Err(std::io::Error::other("the scenario drops the connection here"))
                })),
                End::Stall => Box::pin(stream::pending()),
            };
            Sse::new(head.chain(tail)).into_response()
        }
    }
}
