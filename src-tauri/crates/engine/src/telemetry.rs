//! Traces to a team's trace store with the OpenTelemetry SDK over OTLP/HTTP (protobuf).
//!
//! Spans are built from what the store recorded — messages, the ledger, the tool journal and the
//! compaction records, each with its own timestamps — so a turn just run (exported when it ends)
//! and a past session (`sessions export --format otlp`) come out the same way: one trace per turn,
//! `invoke_agent alisio` with `chat {model}`, `execute_tool {name}` and `compaction {reason}`
//! children, following the GenAI semantic conventions. Export never blocks a turn: spans go to the
//! SDK's batch processor (a bounded queue on its own thread); a collector that fails is reported
//! once (a log line, and an event through [`Telemetry::take_failure`]) and the spans of failed
//! batches are counted as dropped.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use opentelemetry::trace::{Span as _, SpanKind, Status, TraceContextExt, Tracer as _, TracerProvider as _};
use opentelemetry::{Context, KeyValue};
use opentelemetry_otlp::{Protocol, WithExportConfig, WithHttpConfig};
use opentelemetry_sdk::error::OTelSdkResult;
use opentelemetry_sdk::trace::{BatchConfigBuilder, BatchSpanProcessor, SdkTracerProvider, SpanData, SpanExporter};
use opentelemetry_sdk::Resource;
use serde_json::Value;

use crate::calls;
use crate::config::OtlpConfig;
use crate::error::{Error, Result};
use crate::lock;
use crate::redact::{Redactions, Redactor};
use crate::store::compactions::{CompactionRecord, RecordDetail};
use crate::store::{ModelCallRecord, Session, SessionId, Store};
use crate::transcript::estimate_tokens;

/// Spans waiting for export at most; past this they are dropped (and counted by the SDK).
const QUEUE: usize = 4096;
/// A past session's spans are handed over in slices of this many, each sent before the next is
/// queued: backpressure, so no span is dropped however long the session.
const SLICE: usize = QUEUE / 2;

/// One span to export, with its children.
#[derive(Debug, Clone, PartialEq)]
pub struct SpanRecord {
    pub name: String,
    pub kind: SpanKind,
    pub start: SystemTime,
    pub end: SystemTime,
    pub attributes: Vec<KeyValue>,
    pub error: Option<String>,
    pub children: Vec<SpanRecord>,
}

impl SpanRecord {
    pub fn count(&self) -> usize {
        1 + self.children.iter().map(SpanRecord::count).sum::<usize>()
    }
}

/// The OTLP pipeline of one process (absent without an endpoint).
pub struct Telemetry {
    pipeline: Option<Pipeline>,
    /// With `content`: the most bytes of one content attribute.
    content: Option<usize>,
}

struct Pipeline {
    provider: SdkTracerProvider,
    state: Arc<ExportState>,
}

#[derive(Debug, Default)]
struct ExportState {
    endpoint: String,
    /// How long one export may take before it counts as failed.
    timeout: Duration,
    failed: AtomicBool,
    unreported: Mutex<Option<String>>,
    sent: AtomicU64,
    dropped: AtomicU64,
}

/// What `sessions export --format otlp` sent.
#[derive(Debug, Clone)]
pub struct ExportReport {
    pub endpoint: String,
    pub traces: usize,
    pub spans: usize,
    pub redactions: Redactions,
}

impl Telemetry {
    pub fn off() -> Self {
        Self { pipeline: None, content: None }
    }

    /// The pipeline for `config` (off without an endpoint). Header values `env:NAME` are read now.
    pub fn new(config: &OtlpConfig) -> Result<Self> {
        let Some(endpoint) = &config.endpoint else { return Ok(Self::off()) };
        crate::provider::ensure_tls();
        let headers = crate::config::header_values("telemetry.otlp.headers", &config.headers)?;
        let exporter = opentelemetry_otlp::SpanExporter::builder()
            .with_http()
            .with_protocol(Protocol::HttpBinary)
            .with_endpoint(endpoint.clone())
            .with_headers(headers)
            .with_timeout(Duration::from_millis(config.timeout_ms))
            .build()
            .map_err(|e| Error::Config(format!("telemetry.otlp: cannot set up the exporter: {e}")))?;
        let state = Arc::new(ExportState {
            endpoint: endpoint.clone(),
            timeout: Duration::from_millis(config.timeout_ms),
            ..ExportState::default()
        });
        let processor = BatchSpanProcessor::builder(Reporting { inner: exporter, state: state.clone() })
            .with_batch_config(
                BatchConfigBuilder::default()
                    .with_max_queue_size(QUEUE)
                    .with_scheduled_delay(Duration::from_millis(500))
                    .build(),
            )
            .build();
        let provider = SdkTracerProvider::builder()
            .with_span_processor(processor)
            .with_resource(Resource::builder().with_service_name(config.service_name.clone()).build())
            .build();
        Ok(Self { pipeline: Some(Pipeline { provider, state }), content: content_cap(config) })
    }

    pub fn enabled(&self) -> bool {
        self.pipeline.is_some()
    }

    /// Queues the traces of the turn that began with user message `from_seq` (non-blocking).
    pub fn export_turn(&self, store: &Store, session: &SessionId, from_seq: i64) {
        if !self.enabled() {
            return;
        }
        match live_redactor().and_then(|r| session_traces(store, session, Some(from_seq), self.content, r.as_ref())) {
            Ok((traces, _)) => self.emit(&traces),
            Err(err) => tracing::warn!("telemetry: cannot read the turn's records: {err}"),
        }
    }

    /// Queues the compactions recorded since `since` (one trace each; non-blocking).
    pub fn export_compactions(&self, store: &Store, session: &SessionId, since: SystemTime) {
        if !self.enabled() {
            return;
        }
        match compaction_traces(store, session, since, self.content) {
            Ok(traces) => self.emit(&traces),
            Err(err) => tracing::warn!("telemetry: cannot read the compaction's records: {err}"),
        }
    }

    /// Hands spans to the batch processor.
    pub fn emit(&self, traces: &[SpanRecord]) {
        let Some(pipeline) = &self.pipeline else { return };
        let tracer = pipeline.provider.tracer("alisio");
        for root in traces {
            emit_span_counted(&tracer, root, &Context::new(), &mut |_| true);
        }
    }

    /// Hands spans over `slice` at a time, sending each slice before queuing more (blocking; off
    /// async threads): backpressure for a past session of any length. Stops at a failure.
    pub fn emit_in_slices(&self, traces: &[SpanRecord], slice: usize) {
        let Some(pipeline) = &self.pipeline else { return };
        let tracer = pipeline.provider.tracer("alisio");
        let mut queued = 0;
        let mut sent = |count: usize| -> bool {
            queued += count;
            if queued >= slice {
                queued = 0;
                self.flush();
            }
            !self.failed()
        };
        for root in traces {
            if !emit_span_counted(&tracer, root, &Context::new(), &mut sent) {
                break;
            }
        }
    }

    /// Sends what is queued now (blocking, bounded by the export timeout); call off async threads.
    pub fn flush(&self) {
        if let Some(pipeline) = &self.pipeline {
            if let Err(err) = pipeline.provider.force_flush() {
                pipeline.state.failed(&format!("the export did not finish: {err}"), 0);
            }
        }
    }

    /// A failure not reported yet: `(endpoint, error)`, once per process.
    pub fn take_failure(&self) -> Option<(String, String)> {
        let pipeline = self.pipeline.as_ref()?;
        let error = lock(&pipeline.state.unreported).take()?;
        Some((pipeline.state.endpoint.clone(), error))
    }

    /// Whether an export has failed.
    pub fn failed(&self) -> bool {
        self.pipeline.as_ref().is_some_and(|p| p.state.failed.load(Ordering::Relaxed))
    }

    /// Spans sent and dropped so far.
    pub fn counts(&self) -> (u64, u64) {
        self.pipeline
            .as_ref()
            .map_or((0, 0), |p| (p.state.sent.load(Ordering::Relaxed), p.state.dropped.load(Ordering::Relaxed)))
    }

    /// Flushes and stops the pipeline, logging the spans dropped (blocking; off async threads).
    pub fn shutdown(&self) {
        let Some(pipeline) = &self.pipeline else { return };
        let _ = pipeline.provider.shutdown();
        let dropped = pipeline.state.dropped.load(Ordering::Relaxed);
        if dropped > 0 {
            tracing::warn!("telemetry: {dropped} spans could not be sent to {}", pipeline.state.endpoint);
        }
    }
}

impl Drop for Pipeline {
    fn drop(&mut self) {
        let _ = self.provider.shutdown();
    }
}

/// `alisio sessions export --format otlp`: every turn of a past session, with the times the ledger
/// recorded; fails when the collector did not take them.
pub async fn export_session(
    config: &OtlpConfig,
    store: &Store,
    session: &SessionId,
    redactor: Option<&Redactor>,
) -> Result<ExportReport> {
    let Some(endpoint) = config.endpoint.clone() else {
        return Err(Error::Config(
            "telemetry.otlp.endpoint is not set: say where to send the traces (for example \"http://127.0.0.1:4318/v1/traces\")".into(),
        ));
    };
    let (traces, redactions) = session_traces(store, session, None, content_cap(config), redactor)?;
    let spans = traces.iter().map(SpanRecord::count).sum();
    let config = config.clone();
    let count = traces.len();
    let (sent, failure) = tokio::task::spawn_blocking(move || -> Result<(u64, Option<String>)> {
        let telemetry = Telemetry::new(&config)?;
        // In slices, each sent before the next is queued, so the bounded queue never overflows.
        telemetry.emit_in_slices(&traces, SLICE);
        telemetry.flush();
        let failure = telemetry.take_failure().map(|(_, e)| e);
        let (sent, _) = telemetry.counts();
        telemetry.shutdown();
        Ok((sent, failure))
    })
    .await
    .map_err(|e| Error::Provider(format!("the OTLP export stopped: {e}")))??;
    if let Some(error) = failure {
        return Err(Error::Provider(format!("the traces were not accepted by {endpoint}: {error}")));
    }
    if (sent as usize) < spans {
        return Err(Error::Provider(format!("only {sent} of {spans} spans reached {endpoint}")));
    }
    Ok(ExportReport { endpoint, traces: count, spans, redactions })
}

/// Wraps the OTLP exporter: counts what was sent and dropped, and keeps the first failure.
#[derive(Debug)]
struct Reporting {
    inner: opentelemetry_otlp::SpanExporter,
    state: Arc<ExportState>,
}

impl ExportState {
    /// Counts `n` spans as dropped and keeps the first failure, to be reported once.
    fn failed(&self, error: &str, n: u64) {
        self.dropped.fetch_add(n, Ordering::Relaxed);
        if !self.failed.swap(true, Ordering::Relaxed) {
            tracing::warn!(
                "telemetry: the collector at {} did not take {n} spans ({error}); later failures are not logged",
                self.endpoint
            );
            *lock(&self.unreported) = Some(error.to_string());
        }
    }
}

impl SpanExporter for Reporting {
    async fn export(&self, batch: Vec<SpanData>) -> OTelSdkResult {
        let n = batch.len() as u64;
        let started = std::time::Instant::now();
        let result = self.inner.export(batch).await;
        match &result {
            // A collector that answers only after the timeout has not taken them in time: the
            // batch is reported as failed even if the client let the late answer through.
            Ok(()) if started.elapsed() > self.state.timeout + Duration::from_millis(500) => self.state.failed(
                &format!("it answered after {:.1} s (telemetry.otlp.timeoutMs)", started.elapsed().as_secs_f64()),
                n,
            ),
            Ok(()) => {
                self.state.sent.fetch_add(n, Ordering::Relaxed);
            }
            Err(err) => self.state.failed(&err.to_string(), n),
        }
        result
    }

    fn shutdown_with_timeout(&self, timeout: Duration) -> OTelSdkResult {
        self.inner.shutdown_with_timeout(timeout)
    }

    fn force_flush(&self) -> OTelSdkResult {
        self.inner.force_flush()
    }

    fn set_resource(&mut self, resource: &Resource) {
        self.inner.set_resource(resource);
    }
}

/// Starts and ends `record` and its children as spans, calling `ended(1)` after each ends; stops
/// when it returns false.
fn emit_span_counted(
    tracer: &opentelemetry_sdk::trace::SdkTracer,
    record: &SpanRecord,
    parent: &Context,
    ended: &mut dyn FnMut(usize) -> bool,
) -> bool {
    let mut span = tracer
        .span_builder(record.name.clone())
        .with_kind(record.kind.clone())
        .with_start_time(record.start)
        .with_attributes(record.attributes.clone())
        .start_with_context(tracer, parent);
    if let Some(error) = &record.error {
        span.set_status(Status::error(error.clone()));
    }
    let cx = parent.with_span(span);
    let mut going = true;
    for child in &record.children {
        if going {
            going = emit_span_counted(tracer, child, &cx, ended);
        }
    }
    cx.span().end_with_timestamp(record.end);
    ended(1) && going
}

/// The traces of a session (or of the turn starting at user message `from_seq`): one root
/// `invoke_agent alisio` per turn. With `content`, the messages sent and received are attached
/// (redacted unless `redacting` is off).
pub fn session_traces(
    store: &Store,
    session: &SessionId,
    from_seq: Option<i64>,
    content: Option<usize>,
    redactor: Option<&Redactor>,
) -> Result<(Vec<SpanRecord>, Redactions)> {
    // Only what the spans need: message times (not contents), the ledger, the journal, the records.
    let record = store.resolve_session(session)?;
    let id = record.id.clone();
    let messages: Vec<(i64, bool, SystemTime)> = store
        .message_times(&id, from_seq.unwrap_or(0))?
        .into_iter()
        .filter_map(|(seq, prompt, at)| Some((seq, prompt, time(&at)?)))
        .collect();
    let model_calls = &store.model_calls(&id)?;
    let journal = store.journal(&id)?;
    let compactions = store.compactions(&id)?;
    let mut found = Redactions::default();
    // A turn begins at each prompt the user typed.
    let prompts: Vec<(i64, SystemTime)> =
        messages.iter().filter(|(_, prompt, _)| *prompt).map(|&(seq, _, at)| (seq, at)).collect();
    let mut traces = Vec::new();
    for (i, &(seq, start)) in prompts.iter().enumerate() {
        let until = prompts.get(i + 1).map(|&(_, t)| t);
        let within = |t: SystemTime| t >= start && until.is_none_or(|u| t < u);
        let mut children = Vec::new();
        for call in model_calls.iter().filter(|c| time(&c.started_at).is_some_and(within)) {
            children.push(chat_span(store, &record, call, content, redactor, &mut found)?);
        }
        for entry in journal.iter().filter(|e| time(&e.requested_at).is_some_and(within)) {
            let begin = entry
                .started_at
                .as_deref()
                .and_then(time)
                .unwrap_or_else(|| time(&entry.requested_at).unwrap_or(start));
            let end = entry.finished_at.as_deref().and_then(time).unwrap_or(begin);
            children.push(SpanRecord {
                name: format!("execute_tool {}", entry.name),
                kind: SpanKind::Internal,
                start: begin,
                end,
                attributes: vec![
                    KeyValue::new("gen_ai.operation.name", "execute_tool"),
                    KeyValue::new("gen_ai.tool.name", entry.name.clone()),
                    KeyValue::new("gen_ai.tool.call.id", entry.call_id.clone()),
                    KeyValue::new("gen_ai.conversation.id", id.to_string()),
                ],
                error: (entry.ok == Some(false)).then(|| "the tool reported an error".to_string()),
                children: Vec::new(),
            });
        }
        for record in compactions.iter().filter(|r| time(&r.created_at).is_some_and(within)) {
            children.push(compaction_span(record, model_calls, &id));
        }
        children.sort_by_key(|c| c.start);
        let last_message = messages.iter().map(|&(_, _, at)| at).filter(|&t| within(t)).max().unwrap_or(start);
        let end = children.iter().map(|c| c.end).chain([last_message]).max().unwrap_or(start);
        let error =
            model_calls.iter().filter(|c| time(&c.started_at).is_some_and(within)).find_map(|c| c.error.clone());
        traces.push(SpanRecord {
            name: "invoke_agent alisio".into(),
            kind: SpanKind::Internal,
            start,
            end,
            attributes: vec![
                KeyValue::new("gen_ai.operation.name", "invoke_agent"),
                KeyValue::new("gen_ai.agent.name", "alisio"),
                KeyValue::new("gen_ai.conversation.id", id.to_string()),
                KeyValue::new("alisio.turn.user_seq", seq),
            ],
            error,
            children,
        });
    }
    Ok((traces, found))
}

/// A compaction's summarizer call and whether its summary was cut (a reduction has neither).
fn checkpoint_facts(r: &CompactionRecord) -> (Option<i64>, bool) {
    match &r.detail {
        RecordDetail::Checkpoint(detail) => (detail.model_call_id, detail.partial),
        RecordDetail::Reduction => (None, false),
    }
}

/// A compaction's span: from its summarizer's call (when it had one) to the record.
fn compaction_span(r: &CompactionRecord, model_calls: &[ModelCallRecord], session: &SessionId) -> SpanRecord {
    let reason = r.reason.as_str();
    let (call, partial) = checkpoint_facts(r);
    let at = time(&r.created_at).unwrap_or(SystemTime::UNIX_EPOCH);
    let began =
        call.and_then(|cid| model_calls.iter().find(|m| m.id == cid)).and_then(|m| time(&m.started_at)).unwrap_or(at);
    SpanRecord {
        name: format!("compaction {reason}"),
        kind: SpanKind::Internal,
        start: began.min(at),
        end: at,
        attributes: vec![
            KeyValue::new("alisio.compaction.reason", reason),
            KeyValue::new("alisio.compaction.before_tokens", estimate_tokens(r.before_chars) as i64),
            KeyValue::new("alisio.compaction.after_tokens", estimate_tokens(r.after_chars) as i64),
            KeyValue::new("alisio.compaction.partial", partial),
            KeyValue::new("alisio.compaction.id", r.id),
            KeyValue::new("gen_ai.conversation.id", session.to_string()),
        ],
        error: None,
        children: Vec::new(),
    }
}

/// The compactions of `session` recorded at or after `since` (run outside a turn: `alisio compact`,
/// Compact… in the window), each its own trace with its summarizer's call as a child.
pub fn compaction_traces(
    store: &Store,
    session: &SessionId,
    since: SystemTime,
    content: Option<usize>,
) -> Result<Vec<SpanRecord>> {
    let redactor = live_redactor()?;
    let session = store.resolve_session(session)?;
    let id = session.id.clone();
    let model_calls = store.model_calls(&id)?;
    let mut found = Redactions::default();
    let mut traces = Vec::new();
    for record in store.compactions(&id)?.iter().filter(|r| time(&r.created_at).is_some_and(|t| t >= since)) {
        let mut span = compaction_span(record, &model_calls, &id);
        if let Some(call) = checkpoint_facts(record).0.and_then(|cid| model_calls.iter().find(|m| m.id == cid)) {
            let chat = chat_span(store, &session, call, content, redactor.as_ref(), &mut found)?;
            span.end = span.end.max(chat.end);
            span.children.push(chat);
        }
        traces.push(span);
    }
    Ok(traces)
}

fn chat_span(
    store: &Store,
    session: &Session,
    call: &ModelCallRecord,
    content: Option<usize>,
    redactor: Option<&Redactor>,
    found: &mut Redactions,
) -> Result<SpanRecord> {
    let start = time(&call.started_at).unwrap_or(SystemTime::UNIX_EPOCH);
    let end = start + Duration::from_millis(call.duration_ms.unwrap_or(0));
    let mut attributes = vec![
        KeyValue::new("gen_ai.operation.name", "chat"),
        KeyValue::new("gen_ai.provider.name", provider_name(call)),
        KeyValue::new("gen_ai.request.model", call.model.clone()),
        KeyValue::new("gen_ai.conversation.id", session.id.to_string()),
        KeyValue::new("alisio.call.purpose", call.purpose.as_str()),
    ];
    let mut int = |key: &'static str, value: Option<u64>| {
        if let Some(v) = value {
            attributes.push(KeyValue::new(key, v as i64));
        }
    };
    int("gen_ai.usage.input_tokens", call.prompt_tokens);
    int("gen_ai.usage.output_tokens", call.completion_tokens);
    int("gen_ai.usage.cache_read.input_tokens", call.cached_tokens);
    int("alisio.time_to_first_token_ms", call.ttft_ms);
    if let Some(ttft) = call.ttft_ms {
        attributes.push(KeyValue::new("gen_ai.response.time_to_first_chunk", ttft as f64 / 1000.0));
    }
    if let Some(reason) = &call.finish_reason {
        let reasons = opentelemetry::Array::String(vec![reason.clone().into()]);
        attributes.push(KeyValue::new("gen_ai.response.finish_reasons", opentelemetry::Value::Array(reasons)));
    }
    if let Some(profile) = call.params.get("profile").and_then(Value::as_str) {
        attributes.push(KeyValue::new("alisio.profile", profile.to_string()));
    }
    if let Some(cap) = content {
        let (mut body, mut response) = calls::request_body(store, session, call)?;
        let key = if body.get("input").is_some() { "input" } else { "messages" };
        let mut input = body.get_mut(key).map(Value::take).unwrap_or(Value::Null);
        if let Some(r) = redactor {
            let at = format!("model call {} content", call.id);
            r.json(&mut input, &at, found);
            if let Some(answer) = response.as_mut() {
                r.json(answer, &at, found);
            }
        }
        let mut truncated = false;
        let mut attach = |key: &'static str, text: String| {
            let (text, cut) = cap_content(text, cap);
            truncated |= cut;
            attributes.push(KeyValue::new(key, text));
        };
        attach("gen_ai.input.messages", input.to_string());
        if let Some(r) = response {
            let output =
                serde_json::json!([{"role": "assistant", "content": r.get("text"), "tool_calls": r.get("toolCalls")}]);
            attach("gen_ai.output.messages", output.to_string());
        }
        if truncated {
            attributes.push(KeyValue::new("alisio.content.truncated", true));
        }
    }
    let error = call.error.clone().map(|e| match redactor {
        Some(r) => r.text(&e, &format!("model call {} error", call.id), found),
        None => e,
    });
    Ok(SpanRecord {
        name: format!("chat {}", call.model),
        kind: SpanKind::Client,
        start,
        end: end.max(start),
        attributes,
        error,
        children: Vec::new(),
    })
}

/// `gen_ai.provider.name`: what the ledger knows of the server (OpenAI's API shape, or the
/// agent an imported call came from).
fn provider_name(call: &ModelCallRecord) -> String {
    match call.params.get("source").and_then(Value::as_str) {
        Some(source) => source.to_string(),
        None => "openai".into(),
    }
}

/// The content cap of `config`: `None` when content is not attached.
fn content_cap(config: &OtlpConfig) -> Option<usize> {
    config.content.then_some(config.max_content_bytes)
}

/// Spans of live turns always carry redacted content; a catalog that cannot run attaches none.
fn live_redactor() -> Result<Option<Redactor>> {
    Redactor::catalog().map(Some)
}

/// `text` cut to at most `cap` bytes (on a character boundary) with the cut said at its end.
fn cap_content(text: String, cap: usize) -> (String, bool) {
    if text.len() <= cap {
        return (text, false);
    }
    let mut end = cap;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let total = text.len();
    (format!("{}… [truncated: {total} bytes in full]", &text[..end]), true)
}

fn time(text: &str) -> Option<SystemTime> {
    chrono::DateTime::parse_from_rfc3339(text).ok().map(SystemTime::from)
}
