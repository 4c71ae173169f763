//! What one exchange through the proxy becomes in the ledger: the request body as sent with the
//! caller's credentials taken out, the answer as received, its status, timing and usage (read from
//! a whole JSON answer or from the events of a stream, in any of the three APIs).

use std::io::Read;

use serde_json::{json, Value};

use super::join::fingerprint;
use crate::store::{CapturedCall, WireApi};

/// Answers are kept up to this size (a larger one is kept cut, and said to be).
pub const RECEIVED_CAP: usize = 16 << 20;

/// What is put in place of a credential found in a body.
pub const CREDENTIAL: &str = "[credential]";

/// Headers that carry credentials.
pub const CREDENTIAL_HEADERS: [&str; 5] =
    ["authorization", "x-api-key", "api-key", "x-goog-api-key", "proxy-authorization"];

/// The API a recorded path speaks, or `None` for a path passed through unrecorded.
pub fn recorded_api(path: &str) -> Option<WireApi> {
    let path = path.trim_end_matches('/');
    if path.ends_with("/chat/completions") {
        Some(WireApi::Chat)
    } else if path.ends_with("/responses") {
        Some(WireApi::Responses)
    } else if path.ends_with("/messages") {
        Some(WireApi::Messages)
    } else {
        None
    }
}

/// The credential values of a request's headers (an `Authorization` value with and without its
/// scheme).
pub fn credentials<'h>(headers: impl Iterator<Item = (&'h str, &'h str)>) -> Vec<String> {
    let mut out = Vec::new();
    for (name, value) in headers {
        if CREDENTIAL_HEADERS.contains(&name.to_ascii_lowercase().as_str()) && !value.trim().is_empty() {
            out.push(value.trim().to_string());
            if let Some((_, token)) = value.trim().split_once(' ') {
                if !token.trim().is_empty() {
                    out.push(token.trim().to_string());
                }
            }
        }
    }
    out.sort_by_key(|c| std::cmp::Reverse(c.len()));
    out.dedup();
    out
}

/// `text` with every credential taken out (a value equal to one, or — for credentials long enough
/// not to be ordinary words — containing one).
pub fn scrub(text: &str, credentials: &[String]) -> String {
    let mut out = text.to_string();
    for credential in credentials {
        if out == *credential {
            return CREDENTIAL.to_string();
        }
        if credential.chars().count() >= 8 && out.contains(credential.as_str()) {
            out = out.replace(credential.as_str(), CREDENTIAL);
        }
    }
    out
}

fn scrub_json(value: &mut Value, credentials: &[String]) {
    match value {
        Value::String(text) => {
            let clean = scrub(text, credentials);
            if clean != *text {
                *text = clean;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| scrub_json(v, credentials)),
        Value::Object(map) => map.values_mut().for_each(|v| scrub_json(v, credentials)),
        _ => {}
    }
}

/// One exchange as the proxy saw it.
pub struct Exchange {
    pub path: String,
    pub api: WireApi,
    pub request: Vec<u8>,
    pub credentials: Vec<String>,
    pub status: u16,
    /// The answer's bytes as received (up to [`RECEIVED_CAP`]).
    pub received: Vec<u8>,
    pub received_truncated: bool,
    /// The answer's `Content-Encoding`, when it had one.
    pub encoding: Option<String>,
    pub ttfb_ms: Option<u64>,
    pub duration_ms: u64,
    pub error: Option<String>,
    pub started_at: String,
}

/// The ledger row of an exchange.
pub fn captured(exchange: Exchange) -> CapturedCall {
    let credentials = &exchange.credentials;
    let mut body = match serde_json::from_slice::<Value>(&exchange.request) {
        Ok(value) => value,
        Err(_) => Value::String(String::from_utf8_lossy(&exchange.request).into_owned()),
    };
    scrub_json(&mut body, credentials);
    let text = decoded(&exchange.received, exchange.encoding.as_deref());
    let text = scrub(&text, credentials);
    let usage = usage(&text);
    let print = fingerprint(&body);
    let mut response = json!({"status": exchange.status, "received": text});
    if exchange.received_truncated {
        response["receivedTruncated"] = json!(true);
    }
    if let Some(encoding) = &exchange.encoding {
        response["encoding"] = json!(encoding);
    }
    let error = exchange
        .error
        .or_else(|| (exchange.status >= 400).then(|| format!("HTTP {}", exchange.status)))
        .map(|e| scrub(&e, credentials));
    CapturedCall {
        api: exchange.api,
        model: body.get("model").and_then(Value::as_str).unwrap_or_default().to_string(),
        path: exchange.path,
        request_chars: String::from_utf8_lossy(&exchange.request).chars().count() as u64,
        body,
        response,
        status: exchange.status,
        prompt_tokens: usage.prompt,
        cached_tokens: usage.cached,
        cache_write_tokens: usage.cache_write,
        completion_tokens: usage.completion,
        ttft_ms: exchange.ttfb_ms,
        duration_ms: exchange.duration_ms,
        error,
        started_at: exchange.started_at,
        key: print.as_ref().map(|p| p.key.clone()),
        prefix_key: print.and_then(|p| p.prefix_key),
    }
}

/// The answer as text: gzip and deflate undone (the bytes passed on are never touched).
fn decoded(bytes: &[u8], encoding: Option<&str>) -> String {
    let mut out = Vec::new();
    let done = match encoding.map(str::trim) {
        Some("gzip") => flate2::read::MultiGzDecoder::new(bytes).read_to_end(&mut out).is_ok(),
        Some("deflate") => flate2::read::ZlibDecoder::new(bytes).read_to_end(&mut out).is_ok(),
        _ => false,
    };
    String::from_utf8_lossy(if done { &out } else { bytes }).into_owned()
}

#[derive(Debug, Default, PartialEq, Eq)]
pub struct Usage {
    pub prompt: Option<u64>,
    pub cached: Option<u64>,
    pub cache_write: Option<u64>,
    pub completion: Option<u64>,
}

/// Usage from a JSON answer or from the `data:` events of a stream (the last figures win).
pub fn usage(text: &str) -> Usage {
    let mut out = Usage::default();
    let trimmed = text.trim_start();
    if trimmed.starts_with('{') {
        if let Ok(value) = serde_json::from_str::<Value>(trimmed) {
            read_usage(&value, &mut out);
        }
        return out;
    }
    for line in text.lines() {
        let Some(data) = line.strip_prefix("data:") else { continue };
        if let Ok(value) = serde_json::from_str::<Value>(data.trim()) {
            read_usage(&value, &mut out);
        }
    }
    out
}

fn read_usage(value: &Value, out: &mut Usage) {
    // Chat: `usage`; Responses: `response.usage` (stream) or `usage`; Anthropic: `message.usage`
    // (message_start) or `usage` (message_delta, a whole answer).
    let usage = value
        .get("usage")
        .or_else(|| value.pointer("/response/usage"))
        .or_else(|| value.pointer("/message/usage"))
        .filter(|u| u.is_object());
    let Some(usage) = usage else { return };
    let n = |key: &str| usage.pointer(key).and_then(Value::as_u64);
    if let Some(prompt) = n("/prompt_tokens") {
        out.prompt = Some(prompt);
        out.cached = n("/prompt_tokens_details/cached_tokens").or(out.cached);
    }
    if let Some(completion) = n("/completion_tokens") {
        out.completion = Some(completion);
    }
    if let Some(input) = n("/input_tokens") {
        if crate::cost::AnthropicUsage::is_anthropic(usage) {
            let read = crate::cost::AnthropicUsage::read(usage);
            out.prompt = read.prompt;
            out.cached = Some(read.cache_read.unwrap_or(0));
            out.cache_write = Some(read.cache_write.unwrap_or(0));
        } else {
            out.prompt = Some(input);
            out.cached = n("/input_tokens_details/cached_tokens").or(out.cached);
        }
    }
    if let Some(output) = n("/output_tokens") {
        out.completion = Some(output);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usage_is_read_from_every_api_whole_or_streamed() {
        let chat = r#"{"choices":[],"usage":{"prompt_tokens":12,"completion_tokens":3,"prompt_tokens_details":{"cached_tokens":8}}}"#;
        assert_eq!(usage(chat), Usage { prompt: Some(12), cached: Some(8), cache_write: None, completion: Some(3) });
        let responses = "event: response.created\ndata: {\"type\":\"response.created\",\"response\":{\"usage\":null}}\n\n\
                         event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"usage\":{\"input_tokens\":50,\"input_tokens_details\":{\"cached_tokens\":40},\"output_tokens\":5}}}\n\n";
        assert_eq!(
            usage(responses),
            Usage { prompt: Some(50), cached: Some(40), cache_write: None, completion: Some(5) }
        );
        let anthropic = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":3,\"cache_read_input_tokens\":100,\"cache_creation_input_tokens\":7,\"output_tokens\":1}}}\n\n\
                         event: message_delta\ndata: {\"type\":\"message_delta\",\"usage\":{\"output_tokens\":9}}\n\n";
        assert_eq!(
            usage(anthropic),
            Usage { prompt: Some(110), cached: Some(100), cache_write: Some(7), completion: Some(9) }
        );
    }

    #[test]
    fn credentials_never_stay_in_what_is_stored() {
        let credentials = credentials(
            [("Authorization", "Bearer sk-live-0123456789"), ("x-api-key", "ant-key-abcdefgh"), ("accept", "*/*")]
                .into_iter(),
        );
        assert_eq!(credentials.len(), 3);
        let exchange = Exchange {
            path: "/v1/chat/completions".into(),
            api: WireApi::Chat,
            request: br#"{"model":"m","api_key":"sk-live-0123456789","messages":[{"role":"user","content":"my key is ant-key-abcdefgh"}]}"#.to_vec(),
            credentials,
            status: 401,
            received: br#"{"error":{"message":"bad key sk-live-0123456789"}}"#.to_vec(),
            received_truncated: false,
            encoding: None,
            ttfb_ms: Some(1),
            duration_ms: 2,
            error: None,
            started_at: "t".into(),
        };
        let call = captured(exchange);
        let stored = format!("{} {} {:?}", call.body, call.response, call.error);
        assert!(!stored.contains("sk-live-0123456789") && !stored.contains("ant-key-abcdefgh"), "{stored}");
        assert_eq!(call.body["api_key"], CREDENTIAL);
        assert_eq!(call.error.as_deref(), Some("HTTP 401"));
        assert_eq!(call.model, "m");
    }
}
