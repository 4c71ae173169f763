//! Claude Code sessions (`~/.claude/projects/<dir>/<uuid>.jsonl`): `user` / `assistant` /
//! `attachment` / `system` records in file order, `compact_boundary` + the `isCompactSummary`
//! record as a compaction, sidechain records kept apart.

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use super::sink::{title_of, Record, Sink, Usage};
use super::{str_at, value_at, Skip};
use crate::calls::claude_log as claude_requests;
use crate::error::Result;
use crate::events::CompactionReason;
use crate::store::compactions::{Trigger, TriggerKind};
use crate::store::{Purpose, RequestSource, WireApi};
use crate::transcript::{estimate_tokens, Role, ToolCall};

#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Claude {
    titled: bool,
    /// A boundary whose summary record has not arrived yet.
    boundary: Option<i64>,
    /// The Anthropic message id of the last response put in the ledger (a response split over
    /// several records counts once).
    last_response: Option<String>,
    /// The file is a sub-agent's own transcript: its sidechain records are its thread.
    #[serde(skip)]
    pub own_sidechain: bool,
    /// An `api-request` whose answer has not arrived yet.
    #[serde(default)]
    pending_request: Option<Value>,
    /// The newest logged request of each chain (`querySource`) and its ledger row: what the next
    /// request's `base` names and keeps a prefix of.
    #[serde(default)]
    chains: std::collections::BTreeMap<String, (String, i64)>,
    /// Estimated tokens of the system prompt and tools of the newest logged request shape.
    #[serde(default)]
    shape_tokens: Option<(u64, u64)>,
    /// The model of the newest logged request.
    #[serde(default)]
    model: String,
    /// The reconstructed row of a compaction whose summary record has not arrived yet.
    #[serde(default)]
    summary_call: Option<i64>,
}

/// Record types that are bookkeeping, not transcript: the request log, queue, cost and mode.
const BOOKKEEPING: [&str; 8] = [
    "queue-operation",
    "last-prompt",
    "cost-state",
    "tools-used",
    "mode",
    "atis-latch",
    "summary",
    "file-history-snapshot",
];

impl Claude {
    pub fn line(&mut self, sink: &mut Sink<'_, '_>, record: &Value) -> Result<Skip> {
        let kind = record.get("type").and_then(Value::as_str).unwrap_or_default();
        let at = str_at(record, "/timestamp").unwrap_or_default().to_string();
        let sidechain = record.get("isSidechain").and_then(Value::as_bool) == Some(true) && !self.own_sidechain;
        let uuid = str_at(record, "/uuid");
        let skip = match kind {
            "user" => self.user(sink, record, uuid, sidechain, &at)?,
            "assistant" => self.assistant(sink, record, uuid, sidechain, &at)?,
            "attachment" => self.attachment(sink, record, uuid, sidechain, &at)?,
            "system" => self.system(sink, record, uuid, sidechain, &at)?,
            "api-request-shape" => {
                let system = value_at(record, "/shape/system").and_then(Value::as_array);
                let texts: Vec<&str> = system.into_iter().flatten().filter_map(|b| b["text"].as_str()).collect();
                if !texts.is_empty() {
                    sink.set_system_prompt(&texts.join("\n\n"))?;
                }
                match (str_at(record, "/shapeHash"), record.get("shape")) {
                    (Some(hash), Some(shape)) => {
                        let tokens = |key: &str| {
                            estimate_tokens(shape.get(key).map_or(0, |v| v.to_string().chars().count() as u64))
                        };
                        self.shape_tokens = Some((tokens("system"), tokens("tools")));
                        sink.part(hash, "shape", shape)?;
                        Skip::No
                    }
                    _ => Skip::Yes("an api-request-shape without shapeHash or shape".into()),
                }
            }
            "api-request-blob" => match (str_at(record, "/hash"), record.get("message")) {
                (Some(hash), Some(message)) => {
                    sink.part(hash, "message", message)?;
                    Skip::No
                }
                _ => Skip::Yes("an api-request-blob without hash or message".into()),
            },
            "api-request" => {
                // A request still waiting for its answer had none: it is a ledger row of its own.
                if let Some(earlier) = self.pending_request.take() {
                    self.record_call(sink, &earlier, None)?;
                }
                self.pending_request = Some(record.clone());
                Skip::No
            }
            _ if BOOKKEEPING.contains(&kind) => Skip::No,
            "" => Skip::Yes("a record without a type".into()),
            _ => Skip::No,
        };
        sink.touch(&at)?;
        Ok(skip)
    }

    fn base(record: &Value, role: Role, content: String, uuid: Option<&str>, sidechain: bool, at: &str) -> Record {
        let mut out = Record::new(role, content, at).id(uuid);
        if sidechain {
            out.off_view = true;
            out =
                out.meta("sidechain", json!(true)).meta("agentId", record.get("agentId").cloned().unwrap_or_default());
        }
        out
    }

    fn user(
        &mut self,
        sink: &mut Sink<'_, '_>,
        record: &Value,
        uuid: Option<&str>,
        sidechain: bool,
        at: &str,
    ) -> Result<Skip> {
        let Some(content) = value_at(record, "/message/content") else {
            return Ok(Skip::Yes("a user record without message.content".into()));
        };
        self.keep_parts(sink, record)?;
        let is_meta = record.get("isMeta").and_then(Value::as_bool) == Some(true);
        if record.get("isCompactSummary").and_then(Value::as_bool) == Some(true) && !sidechain {
            let text = text_of(content);
            let id = match self.boundary.take() {
                Some(id) => id,
                None => sink.compaction(CompactionReason::Unknown, &[], None, Map::new(), None, at)?,
            };
            let out = Self::base(record, Role::User, text, uuid, false, at).meta(
                "summarizedTurnPromptUuids",
                record.get("summarizedTurnPromptUuids").cloned().unwrap_or_default(),
            );
            let seq = sink.checkpoint(id, out, true)?;
            if let Some(call) = self.summary_call.take() {
                sink.answered(call, seq)?;
            }
            return Ok(Skip::No);
        }
        match content {
            Value::String(text) => {
                if !is_meta && !sidechain && !self.titled && !text.starts_with('<') {
                    sink.set_title(&title_of(text))?;
                    self.titled = true;
                }
                let out = Self::base(record, Role::User, text.clone(), uuid, sidechain, at)
                    .meta("isMeta", if is_meta { json!(true) } else { Value::Null })
                    .meta("promptId", record.get("promptId").cloned().unwrap_or_default());
                sink.push(out)?;
            }
            Value::Array(blocks) => {
                let mut texts = Vec::new();
                let mut other = Vec::new();
                for block in blocks {
                    match block.get("type").and_then(Value::as_str) {
                        Some("tool_result") => {
                            let mut out =
                                Self::base(record, Role::Tool, text_of(&block["content"]), uuid, sidechain, at)
                                    .meta("isError", block.get("is_error").cloned().unwrap_or_default())
                                    .meta("toolUseResult", tool_use_result(record.get("toolUseResult")));
                            out.tool_call_id = block.get("tool_use_id").and_then(Value::as_str).map(str::to_string);
                            sink.push(out)?;
                        }
                        Some("text") => texts.push(block["text"].as_str().unwrap_or_default().to_string()),
                        _ => other.push(block.clone()),
                    }
                }
                if !texts.is_empty() || !other.is_empty() {
                    let text = texts.join("\n\n");
                    if !is_meta && !sidechain && !self.titled && !text.is_empty() && !text.starts_with('<') {
                        sink.set_title(&title_of(&text))?;
                        self.titled = true;
                    }
                    let out = Self::base(record, Role::User, text, uuid, sidechain, at)
                        .meta("isMeta", if is_meta { json!(true) } else { Value::Null })
                        .meta("blocks", if other.is_empty() { Value::Null } else { Value::Array(other) });
                    sink.push(out)?;
                }
            }
            _ => return Ok(Skip::Yes("message.content is neither text nor blocks".into())),
        }
        Ok(Skip::No)
    }

    fn assistant(
        &mut self,
        sink: &mut Sink<'_, '_>,
        record: &Value,
        uuid: Option<&str>,
        sidechain: bool,
        at: &str,
    ) -> Result<Skip> {
        let Some(message) = record.get("message").filter(|m| m.is_object()) else {
            return Ok(Skip::Yes("an assistant record without message".into()));
        };
        self.keep_parts(sink, record)?;
        let request = sink.state.snapshot();
        let mut texts = Vec::new();
        let mut calls = Vec::new();
        let mut other = Vec::new();
        for block in message["content"].as_array().into_iter().flatten() {
            match block.get("type").and_then(Value::as_str) {
                Some("text") => texts.push(block["text"].as_str().unwrap_or_default().to_string()),
                Some("tool_use") => calls.push(ToolCall {
                    id: block["id"].as_str().unwrap_or_default().to_string(),
                    name: block["name"].as_str().unwrap_or_default().to_string(),
                    arguments: block.get("input").map(Value::to_string).unwrap_or_else(|| "{}".into()),
                }),
                _ => other.push(block.clone()),
            }
        }
        let model = message["model"].as_str().unwrap_or_default().to_string();
        let mut out = Self::base(record, Role::Assistant, texts.join("\n\n"), uuid, sidechain, at)
            .meta("model", json!(model))
            .meta("messageId", message.get("id").cloned().unwrap_or_default())
            .meta("blocks", if other.is_empty() { Value::Null } else { Value::Array(other) });
        out.tool_calls = calls;
        let seq = sink.push(out)?;
        let response_id = message["id"].as_str().map(str::to_string);
        if !sidechain && (response_id.is_none() || response_id != self.last_response) {
            self.last_response = response_id;
            let usage = &message["usage"];
            let input = usage["input_tokens"].as_u64();
            let read = usage["cache_read_input_tokens"].as_u64();
            let created = usage["cache_creation_input_tokens"].as_u64().unwrap_or(0);
            let answer = Usage {
                model,
                prompt_tokens: input.map(|i| i + read.unwrap_or(0) + created),
                cached_tokens: read,
                cache_write_tokens: input.map(|_| created),
                agent_cache_reason: cache_miss_reason(record, usage),
                completion_tokens: usage["output_tokens"].as_u64(),
                finish_reason: message["stop_reason"].as_str().map(str::to_string),
                response_seq: Some(seq),
                started_at: at.to_string(),
                ..Usage::new(Purpose::Turn, WireApi::Messages)
            };
            match self.pending_request.take() {
                Some(request_record) => self.record_call(sink, &request_record, Some(answer))?,
                None => {
                    sink.model_call(&request, answer)?;
                }
            }
        }
        Ok(Skip::No)
    }

    /// The parts a transcript record's message stands for in the request log.
    fn keep_parts(&self, sink: &mut Sink<'_, '_>, record: &Value) -> Result<()> {
        if let Some(message) = record.get("message") {
            for (hash, part) in claude_requests::transcript_parts(message) {
                sink.part(&hash, "message", &part)?;
            }
        }
        Ok(())
    }

    /// A ledger row for an `api-request` the agent logged: its exact request by reference, and
    /// the answer when one arrived.
    fn record_call(&mut self, sink: &mut Sink<'_, '_>, request: &Value, answer: Option<Usage>) -> Result<()> {
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
        let id = str_at(request, "/id").unwrap_or_default().to_string();
        self.chains.insert(source, (id, row));
        Ok(())
    }

    /// The call that wrote a compaction's summary: Claude Code does not log it, so its row is
    /// rebuilt from the conversation it summarized, its system prompt and tools estimated from
    /// the newest logged request and the instructions it appended said to be left out.
    fn summary_call(&mut self, sink: &mut Sink<'_, '_>, at: &str) -> Result<i64> {
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

    fn attachment(
        &mut self,
        sink: &mut Sink<'_, '_>,
        record: &Value,
        uuid: Option<&str>,
        sidechain: bool,
        at: &str,
    ) -> Result<Skip> {
        let kind = str_at(record, "/attachment/type").unwrap_or("attachment");
        let Some(rendered) = record.get("rendered").and_then(Value::as_array) else {
            // Not sent as it is (the system prompt snapshot, session context): nothing the model reads.
            if kind == "prompt_snapshot" {
                let parts = value_at(record, "/attachment/systemPrompt").and_then(Value::as_array);
                let texts: Vec<&str> = parts.into_iter().flatten().filter_map(Value::as_str).collect();
                if !texts.is_empty() {
                    sink.set_system_prompt(&texts.join("\n\n"))?;
                }
            }
            return Ok(Skip::No);
        };
        let text = rendered.iter().filter_map(|r| r["content"].as_str()).collect::<Vec<_>>().join("\n\n");
        let role = if str_at(record, "/renderedRole") == Some("user") { Role::User } else { Role::System };
        let out = Self::base(record, role, text, uuid, sidechain, at).meta("attachment", json!(kind));
        sink.push(out)?;
        Ok(Skip::No)
    }

    fn system(
        &mut self,
        sink: &mut Sink<'_, '_>,
        record: &Value,
        uuid: Option<&str>,
        sidechain: bool,
        at: &str,
    ) -> Result<Skip> {
        let subtype = str_at(record, "/subtype").unwrap_or_default();
        if subtype == "compact_boundary" && !sidechain {
            let metadata = record.get("compactMetadata").cloned().unwrap_or_default();
            let reason = match metadata["trigger"].as_str() {
                Some("manual") => CompactionReason::Manual,
                Some("auto") => CompactionReason::Auto,
                _ => CompactionReason::Unknown,
            };
            let preserved = metadata
                .pointer("/preservedMessages/uuids")
                .or_else(|| metadata.pointer("/preservedMessages/allUuids"))
                .and_then(Value::as_array);
            let mut keep = Vec::new();
            for id in preserved.into_iter().flatten().filter_map(Value::as_str) {
                if let Some(seq) = sink.seq_of(id)? {
                    keep.push(seq);
                }
            }
            let mut fields = Map::new();
            for key in ["preTokens", "postTokens", "durationMs", "cumulativeDroppedTokens"] {
                if let Some(v) = metadata.get(key).filter(|v| !v.is_null()) {
                    fields.insert(key.to_string(), v.clone());
                }
            }
            // Why it fired, as Claude Code recorded it: the trigger and the prompt's tokens then.
            let pre_tokens = metadata["preTokens"].as_u64();
            let trigger = match reason {
                CompactionReason::Auto => Some(TriggerKind::Threshold),
                CompactionReason::Manual => Some(TriggerKind::Manual),
                _ => None,
            }
            .map(|kind| Trigger::measured(kind, pre_tokens));
            let call = self.summary_call(sink, at)?;
            self.summary_call = Some(call);
            self.boundary = Some(sink.compaction(reason, &keep, Some(call), fields, trigger, at)?);
            return Ok(Skip::No);
        }
        // Local command output and notices: shown, but not what the model reads.
        let mut out = Self::base(
            record,
            Role::System,
            text_of(record.get("content").unwrap_or(&Value::Null)),
            uuid,
            sidechain,
            at,
        )
        .meta("subtype", json!(subtype))
        .meta("level", record.get("level").cloned().unwrap_or_default());
        out.off_view = true;
        sink.push(out)?;
        Ok(Skip::No)
    }
}

/// The text of a content value: a string, or the text blocks of an array.
fn text_of(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => {
            blocks.iter().filter_map(|b| b.get("text").and_then(Value::as_str)).collect::<Vec<_>>().join("\n\n")
        }
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// What `toolUseResult` adds to the result text (stderr, interruption, exit code), without the
/// stdout it repeats.
fn tool_use_result(value: Option<&Value>) -> Value {
    match value {
        Some(Value::Object(map)) => {
            let kept: Map<String, Value> = map
                .iter()
                .filter(|(k, v)| k.as_str() != "stdout" && !(v.is_string() && v.as_str() == Some("")))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            if kept.is_empty() {
                Value::Null
            } else {
                Value::Object(kept)
            }
        }
        Some(Value::String(s)) if !s.is_empty() => json!(s),
        _ => Value::Null,
    }
}

/// The reason Claude Code recorded for a cache miss, where its record has one (on the usage or
/// beside the message, depending on the version).
fn cache_miss_reason(record: &Value, usage: &Value) -> Option<String> {
    ["cache_miss_reason", "cacheMissReason"]
        .iter()
        .find_map(|key| {
            usage.get(*key).or_else(|| record.get(*key)).or_else(|| value_at(record, &format!("/message/{key}")))
        })
        .and_then(|v| v.as_str().map(str::to_string).or_else(|| (!v.is_null()).then(|| v.to_string())))
}
