//! An OTLP/HTTP trace receiver on 127.0.0.1 for the tests: it answers each POST with the next
//! scripted status (200 once the script is used up), keeps every request, and decodes the
//! protobuf payloads (`ExportTraceServiceRequest`) into spans with their attributes.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::any_value::Value as Any;
use opentelemetry_proto::tonic::common::v1::AnyValue;
use prost::Message;
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

#[derive(Clone, Debug)]
pub struct OtlpRequest {
    pub path: String,
    pub headers: HashMap<String, String>,
    pub body: Vec<u8>,
    pub status: u16,
}

/// A decoded span: ids in hex, attributes as JSON values, the resource's `service.name`.
#[derive(Clone, Debug)]
pub struct Span {
    pub name: String,
    pub trace_id: String,
    pub span_id: String,
    pub parent_span_id: String,
    pub start_unix_nano: u64,
    pub end_unix_nano: u64,
    pub attributes: HashMap<String, Value>,
    pub service: String,
    pub error: bool,
}

#[derive(Clone)]
pub struct OtlpReceiver {
    pub endpoint: String,
    requests: Arc<Mutex<Vec<OtlpRequest>>>,
}

impl OtlpReceiver {
    pub async fn start(statuses: Vec<u16>) -> Self {
        Self::start_with_delay(statuses, std::time::Duration::ZERO).await
    }

    /// A receiver that answers each request only after `delay` (a collector that is slow).
    pub async fn start_with_delay(statuses: Vec<u16>, delay: std::time::Duration) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let requests: Arc<Mutex<Vec<OtlpRequest>>> = Arc::default();
        let statuses = Arc::new(Mutex::new(VecDeque::from(statuses)));
        let kept = requests.clone();
        tokio::spawn(async move {
            loop {
                let Ok((mut socket, _)) = listener.accept().await else { break };
                let kept = kept.clone();
                let statuses = statuses.clone();
                tokio::spawn(async move {
                    // One request per connection at a time; keep-alive connections are served in a loop.
                    while let Some((path, headers, body)) = read_request(&mut socket).await {
                        let status = statuses.lock().unwrap().pop_front().unwrap_or(200);
                        kept.lock().unwrap().push(OtlpRequest { path, headers, body, status });
                        tokio::time::sleep(delay).await;
                        let reason = if status == 200 { "OK" } else { "Internal Server Error" };
                        let head = format!(
                            "HTTP/1.1 {status} {reason}\r\ncontent-type: application/x-protobuf\r\ncontent-length: 0\r\n\r\n"
                        );
                        if socket.write_all(head.as_bytes()).await.is_err() {
                            break;
                        }
                    }
                });
            }
        });
        Self { endpoint: format!("http://{addr}/v1/traces"), requests }
    }

    pub fn requests(&self) -> Vec<OtlpRequest> {
        self.requests.lock().unwrap().clone()
    }

    /// Every span of the requests answered 200, decoded.
    pub fn spans(&self) -> Vec<Span> {
        let mut spans = Vec::new();
        for request in self.requests().iter().filter(|r| r.status == 200) {
            let decoded = ExportTraceServiceRequest::decode(request.body.as_slice())
                .unwrap_or_else(|e| panic!("not an OTLP protobuf payload ({e}): {} bytes", request.body.len()));
            for resource in decoded.resource_spans {
                let service = resource
                    .resource
                    .iter()
                    .flat_map(|r| &r.attributes)
                    .find(|a| a.key == "service.name")
                    .and_then(|a| a.value.as_ref())
                    .map(any_json)
                    .and_then(|v| v.as_str().map(str::to_string))
                    .unwrap_or_default();
                for scope in resource.scope_spans {
                    for span in scope.spans {
                        spans.push(Span {
                            name: span.name,
                            trace_id: hex(&span.trace_id),
                            span_id: hex(&span.span_id),
                            parent_span_id: hex(&span.parent_span_id),
                            start_unix_nano: span.start_time_unix_nano,
                            end_unix_nano: span.end_time_unix_nano,
                            attributes: span
                                .attributes
                                .iter()
                                .map(|a| (a.key.clone(), a.value.as_ref().map(any_json).unwrap_or(Value::Null)))
                                .collect(),
                            service: service.clone(),
                            error: span.status.is_some_and(|s| s.code == 2),
                        });
                    }
                }
            }
        }
        spans
    }

    /// Waits until at least `n` spans arrived (the exporter sends in the background).
    pub async fn wait_for_spans(&self, n: usize) -> Vec<Span> {
        for _ in 0..100 {
            let spans = self.spans();
            if spans.len() >= n {
                return spans;
            }
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
        panic!("expected {n} spans, got {:?}", self.spans().iter().map(|s| &s.name).collect::<Vec<_>>());
    }
}

fn any_json(value: &AnyValue) -> Value {
    match &value.value {
        Some(Any::StringValue(s)) => json!(s),
        Some(Any::BoolValue(b)) => json!(b),
        Some(Any::IntValue(i)) => json!(i),
        Some(Any::DoubleValue(d)) => json!(d),
        Some(Any::ArrayValue(a)) => Value::Array(a.values.iter().map(any_json).collect()),
        Some(other) => json!(format!("{other:?}")),
        None => Value::Null,
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

async fn read_request(socket: &mut tokio::net::TcpStream) -> Option<(String, HashMap<String, String>, Vec<u8>)> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    let end = loop {
        if let Some(at) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break at;
        }
        let n = socket.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..end]).to_string();
    let mut lines = head.lines();
    let path = lines.next()?.split_whitespace().nth(1)?.to_string();
    let headers: HashMap<String, String> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let length: usize = headers.get("content-length").and_then(|v| v.parse().ok()).unwrap_or(0);
    let mut body = buf[end + 4..].to_vec();
    while body.len() < length {
        let n = socket.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        body.extend_from_slice(&chunk[..n]);
    }
    Some((path, headers, body))
}
