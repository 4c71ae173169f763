//! A scripted OpenAI-compatible model server on 127.0.0.1: each POST takes the next scripted reply
//! and renders it in the wire shape the request asked for (Chat or Responses, streamed or whole).
//! Every request is recorded so tests can assert on the exact bodies the model received. The one
//! scripted server of the Rust suites; `tests/scripted_server.rs` runs it as a program for the
//! window tests (which read the bodies from `GET /v1/__received`).

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use super::context::Applied;
pub use super::prompt_cache::PromptCache;
use super::prompt_cache::{diagnose, prompt_cache};

#[derive(Clone, Debug, Default)]
pub struct Answer {
    pub text: String,
    pub tool_calls: Vec<(String, String, String)>,
    pub finish: Option<String>,
    /// (prompt, completion, cached)
    pub usage: Option<(u64, u64, u64)>,
    /// Responses API only: opaque items emitted before the message (e.g. encrypted reasoning).
    pub opaque_items: Vec<Value>,
}

impl Answer {
    pub fn text(text: &str) -> Self {
        Self { text: text.into(), usage: Some((100, 10, 0)), ..Default::default() }
    }

    pub fn calls(calls: &[(&str, &str, Value)]) -> Self {
        Self {
            tool_calls: calls
                .iter()
                .map(|(id, name, args)| (id.to_string(), name.to_string(), args.to_string()))
                .collect(),
            usage: Some((100, 10, 0)),
            ..Default::default()
        }
    }

    fn finish_reason(&self) -> String {
        self.finish
            .clone()
            .unwrap_or_else(|| if self.tool_calls.is_empty() { "stop".into() } else { "tool_calls".into() })
    }
}

#[derive(Clone, Debug)]
pub enum Reply {
    Answer(Answer),
    /// An HTTP error status with a body.
    Status(u16, String),
    /// A 200 whose body is this raw text (e.g. malformed JSON).
    Raw(String),
    /// A 200 with this content type and body (e.g. a proxy's HTML page).
    Typed(String, String),
    /// Never answers.
    Hang,
    /// Starts streaming the answer, then closes the connection before it is complete.
    CutStream(Answer),
    /// A 200 event stream written piece by piece, with this pause before each piece but the first.
    Paced(Vec<String>, Duration),
}

#[derive(Clone, Debug)]
pub struct Received {
    pub method: String,
    pub path: String,
    pub headers: HashMap<String, String>,
    pub body: Value,
    /// The body's bytes as received.
    pub raw: Vec<u8>,
}

impl Received {
    /// A request to a model endpoint (the others are lookups and probes).
    pub fn is_model_call(&self) -> bool {
        let path = self.path.split('?').next().unwrap_or_default();
        self.method == "POST"
            && (path.ends_with("/chat/completions") || path.ends_with("/responses") || path.ends_with("/messages"))
    }
}

#[derive(Default)]
struct State {
    script: VecDeque<Reply>,
    received: Vec<Received>,
    models: Option<Value>,
    /// Fixed JSON answers by exact path, for any method (server-specific endpoints).
    routes: HashMap<String, Value>,
    /// What an Anthropic prompt cache holds: each `/messages` request's prefix up to its last
    /// `cache_control` breakpoint, serialized.
    cached_prefixes: Vec<String>,
    /// Cache diagnostics' fingerprints by message id: (system, tools, messages) serialized.
    fingerprints: HashMap<String, [String; 3]>,
    /// The APIs' own context management (compaction items issued).
    managed: super::context::Managed,
}

#[derive(Clone)]
pub struct ScriptedServer {
    pub base_url: String,
    state: Arc<Mutex<State>>,
}

impl ScriptedServer {
    pub async fn start(script: Vec<Reply>) -> Self {
        Self::start_on(0, script).await
    }

    /// On a given port of 127.0.0.1 (0: any free one).
    pub async fn start_on(port: u16, script: Vec<Reply>) -> Self {
        let listener = TcpListener::bind(("127.0.0.1", port))
            .await
            .unwrap_or_else(|e| panic!("cannot listen on 127.0.0.1:{port}: {e}"));
        let addr = listener.local_addr().unwrap();
        let state = Arc::new(Mutex::new(State { script: script.into(), ..Default::default() }));
        let shared = state.clone();
        tokio::spawn(async move {
            loop {
                let Ok((socket, _)) = listener.accept().await else { break };
                let state = shared.clone();
                tokio::spawn(async move {
                    let _ = serve(socket, state).await;
                });
            }
        });
        Self { base_url: format!("http://{addr}/v1"), state }
    }

    pub fn set_models(&self, models: Value) {
        self.state.lock().unwrap().models = Some(models);
    }

    /// Answers `path` (exactly, any method) with `body`, leaving the script alone.
    pub fn set_route(&self, path: &str, body: Value) {
        self.state.lock().unwrap().routes.insert(path.to_string(), body);
    }

    /// Every POST body received, in order.
    /// Every request body sent to a model endpoint (chat completions or responses), in order.
    pub fn bodies(&self) -> Vec<Value> {
        self.received().into_iter().filter(Received::is_model_call).map(|r| r.body).collect()
    }

    pub fn received(&self) -> Vec<Received> {
        self.state.lock().unwrap().received.clone()
    }
}

async fn read_request(socket: &mut TcpStream) -> Option<Received> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    let header_end = loop {
        let n = socket.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
        if let Some(pos) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break pos + 4;
        }
    };
    let head = String::from_utf8_lossy(&buf[..header_end]).to_string();
    let mut lines = head.split("\r\n");
    let mut first = lines.next()?.split_whitespace();
    let method = first.next()?.to_string();
    let path = first.next()?.to_string();
    let headers: HashMap<String, String> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let length: usize = headers.get("content-length").and_then(|v| v.parse().ok()).unwrap_or(0);
    while buf.len() < header_end + length {
        let n = socket.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    let raw = buf[header_end..header_end + length].to_vec();
    let body = serde_json::from_slice(&raw).unwrap_or(Value::Null);
    Some(Received { method, path, headers, body, raw })
}

async fn write_head(socket: &mut TcpStream, status: u16, content_type: &str) -> std::io::Result<()> {
    let head = format!("HTTP/1.1 {status} Scripted\r\nContent-Type: {content_type}\r\nConnection: close\r\n\r\n");
    socket.write_all(head.as_bytes()).await
}

/// A request that is no model call: the received bodies (`/__received`, for the window tests in
/// another process), the model list (`…/models`), or not found.
async fn lookup(
    socket: &mut TcpStream,
    state: &Arc<Mutex<State>>,
    request: &Received,
    models: Option<Value>,
) -> std::io::Result<()> {
    if request.path.ends_with("/__received") {
        let bodies: Vec<Value> = {
            let state = state.lock().unwrap();
            state.received.iter().filter(|r| r.is_model_call()).map(|r| r.body.clone()).collect()
        };
        write_head(socket, 200, "application/json").await?;
        socket.write_all(Value::Array(bodies).to_string().as_bytes()).await?;
        return socket.shutdown().await;
    }
    match models {
        Some(models) if request.path.ends_with("/models") => {
            write_head(socket, 200, "application/json").await?;
            socket.write_all(models.to_string().as_bytes()).await?;
        }
        _ => {
            write_head(socket, 404, "text/plain").await?;
            socket.write_all(b"not found").await?;
        }
    }
    socket.shutdown().await
}

/// An answer as Anthropic's Messages API writes it: an event stream, or one message.
async fn write_anthropic(
    socket: &mut TcpStream,
    answer: &Answer,
    (cache, applied): (&PromptCache, &Applied),
    stream: bool,
) -> std::io::Result<()> {
    if stream {
        write_head(socket, 200, "text/event-stream").await?;
        let mut events = anthropic_events(answer, cache);
        super::context::decorate_anthropic_events(&mut events, applied);
        for event in events {
            let name = event["type"].as_str().unwrap_or_default().to_string();
            socket.write_all(format!("event: {name}\ndata: {event}\n\n").as_bytes()).await?;
            socket.flush().await?;
        }
        Ok(())
    } else {
        write_head(socket, 200, "application/json").await?;
        let mut message = anthropic_message(answer, cache);
        super::context::decorate_anthropic_message(&mut message, applied);
        socket.write_all(message.to_string().as_bytes()).await
    }
}

/// A refusal or a standalone compaction: the status and the JSON body.
async fn write_json(socket: &mut TcpStream, (status, body): (u16, String)) -> std::io::Result<()> {
    write_head(socket, status, "application/json").await?;
    socket.write_all(body.as_bytes()).await?;
    socket.shutdown().await
}

/// The APIs' own context management of `request`, before the script is read (a paused compaction
/// reads none): what it does to the answer, or a whole answer (`/responses/compact`, a refusal).
fn manage(
    state: &Mutex<State>,
    request: &Received,
    anthropic: bool,
) -> Result<Result<Applied, (u16, String)>, (u16, String)> {
    let mut state = state.lock().unwrap();
    let (managed, body) = (&mut state.managed, &request.body);
    if request.path.ends_with("/responses/compact") {
        super::context::standalone(managed, body).map(|v| Err((200, v.to_string())))
    } else if anthropic {
        super::context::anthropic(managed, body, request.headers.get("anthropic-beta").map(String::as_str)).map(Ok)
    } else {
        super::context::responses(managed, body).map(|compaction| Ok(Applied { compaction, ..Applied::default() }))
    }
}

async fn serve(mut socket: TcpStream, state: Arc<Mutex<State>>) -> std::io::Result<()> {
    let Some(request) = read_request(&mut socket).await else { return Ok(()) };
    let route = state.lock().unwrap().routes.get(&request.path).cloned();
    let (responses, anthropic) = (request.path.ends_with("/responses"), request.path.ends_with("/messages"));
    let applied =
        match route.map(|body| Err((200, body.to_string()))).unwrap_or_else(|| manage(&state, &request, anthropic)) {
            Ok(Ok(applied)) => applied,
            Ok(Err(answer)) | Err(answer) => {
                state.lock().unwrap().received.push(request.clone());
                return write_json(&mut socket, answer).await;
            }
        };
    let (reply, models) = {
        let mut state = state.lock().unwrap();
        state.received.push(request.clone());
        // Only the model endpoints answer from the script; any other request is a lookup (GET
        // /models, or a probe such as Ollama's POST /api/show) that a real server may not know.
        if !request.is_model_call() {
            (None, Some(state.models.clone()))
        } else if applied.pause {
            (Some(Reply::Answer(Answer { usage: Some((0, 0, 0)), ..Answer::default() })), None)
        } else {
            (state.script.pop_front(), None)
        }
    };
    if let Some(models) = models {
        return lookup(&mut socket, &state, &request, models).await;
    }
    let stream = request.body.get("stream").and_then(Value::as_bool).unwrap_or(false);
    // Anthropic's usage comes from a prompt cache kept here, as the API would count it.
    let cache = anthropic.then(|| {
        let mut state = state.lock().unwrap();
        let mut cache = prompt_cache(&mut state.cached_prefixes, &applied.effective);
        cache.id = format!("msg_{:02}", state.received.len());
        cache.diagnostics = diagnose(&mut state.fingerprints, &cache.id, &request.body);
        cache
    });
    match reply {
        None => {
            write_head(&mut socket, 500, "text/plain").await?;
            socket.write_all(b"the scripted server has no reply left").await?;
        }
        Some(Reply::Status(code, body)) => {
            write_head(&mut socket, code, "application/json").await?;
            socket.write_all(body.as_bytes()).await?;
        }
        Some(Reply::Raw(body)) => {
            write_head(&mut socket, 200, if stream { "text/event-stream" } else { "application/json" }).await?;
            socket.write_all(body.as_bytes()).await?;
        }
        Some(Reply::Typed(content_type, body)) => {
            write_head(&mut socket, 200, &content_type).await?;
            socket.write_all(body.as_bytes()).await?;
        }
        Some(Reply::Hang) => tokio::time::sleep(Duration::from_secs(60)).await,
        Some(Reply::Answer(answer)) if anthropic => {
            write_anthropic(&mut socket, &answer, (&cache.unwrap_or_default(), &applied), stream).await?;
        }
        Some(Reply::Answer(mut answer)) => {
            answer.opaque_items.splice(0..0, applied.compaction);
            if stream {
                write_head(&mut socket, 200, "text/event-stream").await?;
                let events = if responses { responses_events(&answer) } else { chat_chunks(&answer) };
                for event in events {
                    socket.write_all(format!("data: {event}\n\n").as_bytes()).await?;
                    socket.flush().await?;
                }
                if !responses {
                    socket.write_all(b"data: [DONE]\n\n").await?;
                }
            } else {
                write_head(&mut socket, 200, "application/json").await?;
                let body = if responses { response_object(&answer) } else { chat_completion(&answer) };
                socket.write_all(body.to_string().as_bytes()).await?;
            }
        }
        Some(Reply::Paced(pieces, pause)) => {
            write_head(&mut socket, 200, "text/event-stream").await?;
            for (i, piece) in pieces.iter().enumerate() {
                if i > 0 {
                    tokio::time::sleep(pause).await;
                }
                socket.write_all(piece.as_bytes()).await?;
                socket.flush().await?;
            }
        }
        Some(Reply::CutStream(answer)) => {
            write_head(&mut socket, 200, "text/event-stream").await?;
            let events = if responses { responses_events(&answer) } else { chat_chunks(&answer) };
            // Only the first chunks: no finish reason, no completion event.
            for event in events.iter().take(2) {
                socket.write_all(format!("data: {event}\n\n").as_bytes()).await?;
            }
        }
    }
    socket.flush().await?;
    socket.shutdown().await
}

fn split_in_two(s: &str) -> (String, String) {
    let mid = s.chars().count() / 2;
    (s.chars().take(mid).collect(), s.chars().skip(mid).collect())
}

fn usage_json(answer: &Answer) -> Value {
    let (prompt, completion, cached) = answer.usage.unwrap_or((0, 0, 0));
    json!({"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion,
           "prompt_tokens_details": {"cached_tokens": cached}})
}

/// Chat chunks: text in two pieces; each tool call's header, then its arguments in two pieces.
pub fn chat_chunks(answer: &Answer) -> Vec<Value> {
    let chunk = |delta: Value, finish: Value| json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]});
    let mut out = vec![chunk(json!({"role": "assistant", "content": ""}), Value::Null)];
    if !answer.text.is_empty() {
        let (a, b) = split_in_two(&answer.text);
        out.push(chunk(json!({"content": a}), Value::Null));
        out.push(chunk(json!({"content": b}), Value::Null));
    }
    for (index, (id, name, args)) in answer.tool_calls.iter().enumerate() {
        out.push(chunk(json!({"tool_calls": [{"index": index, "id": id, "type": "function", "function": {"name": name, "arguments": ""}}]}), Value::Null));
        let (a, b) = split_in_two(args);
        out.push(chunk(json!({"tool_calls": [{"index": index, "function": {"arguments": a}}]}), Value::Null));
        out.push(chunk(json!({"tool_calls": [{"index": index, "function": {"arguments": b}}]}), Value::Null));
    }
    out.push(chunk(json!({}), json!(answer.finish_reason())));
    if answer.usage.is_some() {
        out.push(
            json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "choices": [], "usage": usage_json(answer)}),
        );
    }
    out
}

pub fn chat_completion(answer: &Answer) -> Value {
    let calls: Vec<Value> = answer
        .tool_calls
        .iter()
        .map(|(id, name, args)| json!({"id": id, "type": "function", "function": {"name": name, "arguments": args}}))
        .collect();
    let mut message =
        json!({"role": "assistant", "content": if answer.text.is_empty() { Value::Null } else { json!(answer.text) }});
    if !calls.is_empty() {
        message["tool_calls"] = json!(calls);
    }
    json!({"id": "chatcmpl-1", "object": "chat.completion", "choices": [{"index": 0, "message": message, "finish_reason": answer.finish_reason()}], "usage": usage_json(answer)})
}

pub fn response_object(answer: &Answer) -> Value {
    let mut output: Vec<Value> = answer.opaque_items.clone();
    if !answer.text.is_empty() {
        output.push(json!({"type": "message", "id": "msg_1", "role": "assistant", "status": "completed", "content": [{"type": "output_text", "text": answer.text, "annotations": []}]}));
    }
    for (id, name, args) in &answer.tool_calls {
        output.push(json!({"type": "function_call", "id": format!("fc_{id}"), "call_id": id, "name": name, "arguments": args, "status": "completed"}));
    }
    let (prompt, completion, cached) = answer.usage.unwrap_or((0, 0, 0));
    let incomplete = answer.finish.as_deref() == Some("length");
    json!({
        "id": "resp_1", "object": "response",
        "status": if incomplete { "incomplete" } else { "completed" },
        "incomplete_details": if incomplete { json!({"reason": "max_output_tokens"}) } else { Value::Null },
        "output": output,
        "usage": {"input_tokens": prompt, "output_tokens": completion, "total_tokens": prompt + completion, "input_tokens_details": {"cached_tokens": cached}},
    })
}

pub fn responses_events(answer: &Answer) -> Vec<Value> {
    let mut out =
        vec![json!({"type": "response.created", "response": {"id": "resp_1", "status": "in_progress", "output": []}})];
    if !answer.text.is_empty() {
        let (a, b) = split_in_two(&answer.text);
        let index = answer.opaque_items.len();
        let item =
            json!({"type": "message", "id": "msg_1", "role": "assistant", "status": "in_progress", "content": []});
        out.push(json!({"type": "response.output_item.added", "output_index": index, "item": item}));
        out.push(json!({"type": "response.output_text.delta", "delta": a}));
        out.push(json!({"type": "response.output_text.delta", "delta": b}));
    }
    // Each output item done before the response is (clients such as Codex read items from these).
    let response = response_object(answer);
    for (i, item) in response["output"].as_array().into_iter().flatten().enumerate() {
        out.push(json!({"type": "response.output_item.done", "output_index": i, "item": item}));
    }
    out.push(json!({"type": "response.completed", "response": response}));
    out
}

fn anthropic_usage(answer: &Answer, cache: &PromptCache) -> Value {
    let (_, completion, _) = answer.usage.unwrap_or((0, 0, 0));
    json!({"input_tokens": cache.input, "cache_read_input_tokens": cache.read,
           "cache_creation_input_tokens": cache.written, "output_tokens": completion})
}

fn stop_reason(answer: &Answer) -> &'static str {
    match answer.finish_reason().as_str() {
        "length" => "max_tokens",
        "tool_calls" => "tool_use",
        _ => "end_turn",
    }
}

/// A whole Anthropic message.
pub fn anthropic_message(answer: &Answer, cache: &PromptCache) -> Value {
    let mut content = Vec::new();
    if !answer.text.is_empty() {
        content.push(json!({"type": "text", "text": answer.text}));
    }
    for (id, name, args) in &answer.tool_calls {
        let input: Value = serde_json::from_str(args).unwrap_or(json!({}));
        content.push(json!({"type": "tool_use", "id": id, "name": name, "input": input}));
    }
    let mut message = json!({"id": cache.id, "type": "message", "role": "assistant", "model": "scripted", "content": content,
           "stop_reason": stop_reason(answer), "stop_sequence": null, "usage": anthropic_usage(answer, cache)});
    if let Some(diagnostics) = &cache.diagnostics {
        message["diagnostics"] = diagnostics.clone();
    }
    message
}

/// The events of a streamed Anthropic message, as the API sends them (a `ping` among them).
pub fn anthropic_events(answer: &Answer, cache: &PromptCache) -> Vec<Value> {
    let mut start_usage = anthropic_usage(answer, cache);
    start_usage["output_tokens"] = json!(1);
    let mut out = vec![
        json!({"type": "message_start", "message": {"id": cache.id, "type": "message", "role": "assistant", "model": "scripted",
               "content": [], "stop_reason": null, "stop_sequence": null, "usage": start_usage}}),
        json!({"type": "ping"}),
    ];
    let mut index = 0;
    if !answer.text.is_empty() {
        let (a, b) = split_in_two(&answer.text);
        out.push(json!({"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}}));
        out.push(json!({"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": a}}));
        out.push(json!({"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": b}}));
        out.push(json!({"type": "content_block_stop", "index": index}));
        index += 1;
    }
    for (id, name, args) in &answer.tool_calls {
        let (a, b) = split_in_two(args);
        out.push(json!({"type": "content_block_start", "index": index, "content_block": {"type": "tool_use", "id": id, "name": name, "input": {}}}));
        out.push(json!({"type": "content_block_delta", "index": index, "delta": {"type": "input_json_delta", "partial_json": a}}));
        out.push(json!({"type": "content_block_delta", "index": index, "delta": {"type": "input_json_delta", "partial_json": b}}));
        out.push(json!({"type": "content_block_stop", "index": index}));
        index += 1;
    }
    let (_, completion, _) = answer.usage.unwrap_or((0, 0, 0));
    let mut delta = json!({"type": "message_delta", "delta": {"stop_reason": stop_reason(answer), "stop_sequence": null},
                           "usage": {"output_tokens": completion}});
    if let Some(diagnostics) = &cache.diagnostics {
        delta["diagnostics"] = diagnostics.clone();
    }
    out.push(delta);
    out.push(json!({"type": "message_stop"}));
    out
}
