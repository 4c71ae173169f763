//! Claude Code's calls in the ledger: a response's figures (Anthropic usage, 1-hour writes, the
//! cost early versions recorded), the parts its request log refers to, the call and its summary call.

use serde_json::{json, Map, Value};

use super::super::sink::{Sink, Usage};
use super::super::{str_at, value_at};
use crate::calls::claude_log as claude_requests;
use crate::cost::AnthropicUsage;
use crate::error::Result;
use crate::store::{Purpose, RequestSource, WireApi};

use super::*;

impl Claude {
    /// A response's figures as the record says them (Anthropic usage; the 1-hour part of the
    /// cache writes; the cost the first versions recorded per response).
    pub(super) fn usage_of(record: &Value, message: &Value, model: String, seq: i64, at: &str) -> Usage {
        let usage = &message["usage"];
        let tokens = AnthropicUsage::read(usage);
        Usage {
            model,
            prompt_tokens: tokens.prompt,
            cached_tokens: tokens.cache_read,
            cache_write_tokens: tokens.cache_write,
            cache_write_1h_tokens: tokens.cache_write_1h,
            recorded_cost_pd: record.get("costUSD").and_then(picodollars),
            // `standard` unless the response was billed at another tier.
            service_tier: usage["service_tier"]
                .as_str()
                .and_then(crate::cost::Tier::parse)
                .map(|t| t.as_str().to_string()),
            agent_cache_reason: cache_miss_reason(record, usage),
            completion_tokens: tokens.output,
            finish_reason: message["stop_reason"].as_str().map(str::to_string),
            response_seq: Some(seq),
            started_at: at.to_string(),
            ..Usage::new(Purpose::Turn, WireApi::Messages)
        }
    }

    /// The parts a transcript record's message stands for in the request log.
    pub(super) fn keep_parts(&self, sink: &mut Sink<'_, '_>, record: &Value) -> Result<()> {
        if let Some(message) = record.get("message") {
            for (hash, part) in claude_requests::transcript_parts(message) {
                sink.part(&hash, "message", &part)?;
            }
        }
        Ok(())
    }

    /// A ledger row for an `api-request` the agent logged: its exact request by reference, and
    /// the answer when one arrived. Returns the row.
    pub(super) fn record_call(
        &mut self,
        sink: &mut Sink<'_, '_>,
        request: &Value,
        answer: Option<Usage>,
    ) -> Result<i64> {
        let source = str_at(request, "/querySource").unwrap_or_default().to_string();
        let purpose = claude_requests::purpose(&source);
        // The request it builds on (`base`): the newest of its chain, or of any chain.
        let base = str_at(request, "/base");
        let previous = base.and_then(|base| {
            let mut chains = self.chains.get(&source).into_iter().chain(self.chains.values());
            chains.find(|(id, _)| id == base).map(|(_, row)| *row)
        });
        if let Some(model) = str_at(request, "/params/model") {
            self.model = model.to_string();
        }
        let at = str_at(request, "/timestamp").unwrap_or_default().to_string();
        let mut usage =
            answer.unwrap_or_else(|| Usage { started_at: at.clone(), ..Usage::new(purpose, WireApi::Messages) });
        if usage.model.is_empty() {
            usage.model = str_at(request, "/params/model").unwrap_or_default().to_string();
        }
        usage.purpose = purpose;
        usage.started_at = if at.is_empty() { usage.started_at } else { at };
        usage.request_source = RequestSource::AgentLog;
        usage.request_ref = Some(claude_requests::reference(request, previous));
        let snapshot = sink.state.snapshot();
        let row = sink.model_call(&snapshot, usage)?;
        // A part the log names but never wrote (and no transcript record stands for): the body
        // cannot be put together whole, and the row says so.
        let tail: Vec<&str> = request["tail"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
        let kept = request["keep"].as_u64().unwrap_or(0) > 0;
        let inherited = previous.filter(|_| kept).and_then(|p| self.gaps.get(&p).copied()).unwrap_or(0);
        let gaps = sink.missing_parts(&tail)? + inherited;
        if gaps > 0 {
            sink.set_request_gaps(row, gaps)?;
            self.gaps.insert(row, gaps);
        }
        let id = str_at(request, "/id").unwrap_or_default().to_string();
        self.chains.insert(source, (id, row));
        Ok(row)
    }

    /// The call that wrote a compaction's summary: Claude Code does not log it, so its row is
    /// rebuilt from the conversation it summarized, its system prompt and tools estimated from
    /// the newest logged request and the instructions it appended said to be left out.
    pub(super) fn summary_call(&mut self, sink: &mut Sink<'_, '_>, at: &str) -> Result<i64> {
        let mut reference = Map::new();
        if let Some((system, tools)) = self.shape_tokens {
            reference.insert("estimates".into(), json!({"system": system, "tools": tools}));
        }
        reference
            .insert("omitted".into(), json!(["the summarizer's instructions (Claude Code does not log this call)"]));
        let usage = Usage {
            model: self.model.clone(),
            started_at: at.to_string(),
            request_ref: Some(Value::Object(reference)),
            ..Usage::new(Purpose::Compaction, WireApi::Messages)
        };
        let snapshot = sink.state.snapshot();
        sink.model_call(&snapshot, usage)
    }
}

/// A recorded dollar figure (a JSON number or numeric string) as whole picodollars.
pub(crate) fn picodollars(value: &Value) -> Option<i64> {
    let text = match value {
        Value::Number(n) => n.to_string(),
        Value::String(s) => s.trim().to_string(),
        _ => return None,
    };
    crate::cost::parse_picodollars(&text)
}

/// The reason Claude Code recorded for a cache miss, where its record has one (on the usage or
/// beside the message, depending on the version).
pub(super) fn cache_miss_reason(record: &Value, usage: &Value) -> Option<String> {
    ["cache_miss_reason", "cacheMissReason"]
        .iter()
        .find_map(|key| {
            usage.get(*key).or_else(|| record.get(*key)).or_else(|| value_at(record, &format!("/message/{key}")))
        })
        .and_then(|v| v.as_str().map(str::to_string).or_else(|| (!v.is_null()).then(|| v.to_string())))
}
