//! GitHub Copilot CLI sessions (`~/.copilot/session-state/<uuid>/events.jsonl`,
//! docs/formats/copilot-cli.md): an append-only event log — the system prompt, the user text as
//! sent, each answer with its tool requests, each tool's result as the model got it, a usage
//! record per model call, and compactions whose summary message lists every earlier prompt.

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use super::sink::{title_of, Record, Sink, Snapshot, TitleFrom, Usage};
use super::{str_at, value_at, Skip};
use crate::error::Result;
use crate::events::CompactionReason;
use crate::store::compactions::{Trigger, TriggerKind};
use crate::store::{Purpose, WireApi};
use crate::transcript::{Role, ToolCall};

/// Whether the first event of a JSONL file is Copilot CLI's session start.
pub fn is_start(record: &Value) -> bool {
    record.get("type").and_then(Value::as_str) == Some("session.start")
        && (str_at(record, "/data/producer") == Some("copilot-agent")
            || value_at(record, "/data/copilotVersion").is_some())
}

/// What the importer remembers between events of one log.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Copilot {
    titled: bool,
    /// Every prompt as typed: a compaction's summary message lists them.
    prompts: Vec<String>,
    /// The model call a `session.usage_record` announced, waiting for its `assistant.message`.
    pending: Option<(Snapshot, Value)>,
    /// A compaction under way: the request it summarized, and where the messages it keeps begin.
    compacting: Option<(Snapshot, i64)>,
    /// The messages of the summarizer's request as Copilot logged them (`requestMessages` of a
    /// manual compaction's `model.model_call_success`).
    #[serde(default)]
    logged: Option<Value>,
    /// The log records each call (`session.usage_record`, 1.0.93 on): shutdown totals repeat them.
    #[serde(default)]
    per_call: bool,
    /// Answers since the log began and since the last shutdown: whether a shutdown's
    /// `modelMetrics` are the session's running totals (1.0.9x) or its process's (1.0.1x).
    #[serde(default)]
    answers: u64,
    #[serde(default)]
    answers_since_shutdown: u64,
    /// Output tokens the answers since the last shutdown recorded each (1.0.1x writes them on
    /// `assistant.message`; its shutdown totals count fewer).
    #[serde(default)]
    output_since_shutdown: Option<u64>,
    /// The running totals of the last shutdown, per model, to subtract from the next.
    #[serde(default)]
    totals: std::collections::BTreeMap<String, Value>,
}

impl Copilot {
    pub fn line(&mut self, sink: &mut Sink<'_, '_>, record: &Value) -> Result<Skip> {
        let at = str_at(record, "/timestamp").unwrap_or_default().to_string();
        let data = record.get("data").unwrap_or(&Value::Null);
        match record.get("type").and_then(Value::as_str).unwrap_or_default() {
            "system.message" => {
                if let Some(prompt) = str_at(data, "/content") {
                    sink.set_system_prompt(prompt)?;
                }
            }
            "user.message" => {
                let typed = str_at(data, "/content").unwrap_or_default().to_string();
                let sent = str_at(data, "/transformedContent").map(str::to_string).unwrap_or_else(|| typed.clone());
                if !self.titled && !typed.trim().is_empty() {
                    sink.offer_title(&title_of(&typed), TitleFrom::Prompt)?;
                    self.titled = true;
                }
                self.prompts.push(typed.clone());
                sink.push(Record::new(Role::User, sent, &at).id(str_at(record, "/id")).meta("typed", json!(typed)))?;
            }
            "session.shutdown" => self.shutdown(sink, data, &at)?,
            "session.usage_record" => {
                self.per_call = true;
                self.pending = Some((sink.state.snapshot(), data.get("usage").cloned().unwrap_or(Value::Null)));
            }
            "assistant.message" => self.answer(sink, record, data, &at)?,
            "tool.execution_complete" => {
                let content = match value_at(data, "/result/content") {
                    Some(Value::String(s)) => s.clone(),
                    Some(other) => other.to_string(),
                    None => str_at(data, "/error/message").map(|e| format!("error: {e}")).unwrap_or_default(),
                };
                let mut result = Record::new(Role::Tool, content, &at)
                    .id(str_at(record, "/id"))
                    .meta("success", data.get("success").cloned().unwrap_or(Value::Null))
                    .meta("shellExecution", data.get("shellExecution").cloned().unwrap_or(Value::Null));
                result.tool_call_id = str_at(data, "/toolCallId").map(str::to_string);
                sink.push(result)?;
            }
            "session.compaction_start" => {
                self.compacting = Some((sink.state.snapshot(), sink.state.next_seq));
            }
            "model.model_call_success" if self.compacting.is_some() => {
                let logged = str_at(data, "/requestMessages").and_then(|m| serde_json::from_str::<Value>(m).ok());
                self.logged = logged.filter(Value::is_array);
            }
            "session.compaction_complete" => return self.compaction(sink, data, &at),
            _ => {} // turn marks, shutdown/resume bookkeeping, the summarizer's model.* events
        }
        sink.touch(&at)?;
        Ok(Skip::No)
    }

    /// Before 1.0.93 the log records usage only at each shutdown (`modelMetrics`: per model, the
    /// requests and their token totals): one ledger row per model standing for those requests.
    /// 1.0.1x counts the process that ends; 1.0.9x the whole session so far (told apart by the
    /// answers the log holds: the count is this process's, or every one's).
    fn shutdown(&mut self, sink: &mut Sink<'_, '_>, data: &Value, at: &str) -> Result<()> {
        let since = std::mem::take(&mut self.answers_since_shutdown);
        let answered_output = self.output_since_shutdown.take();
        if self.per_call {
            return Ok(());
        }
        let metrics = data.get("modelMetrics").and_then(Value::as_object).cloned().unwrap_or_default();
        let count = |m: &Value| value_at(m, "/requests/count").and_then(Value::as_u64).unwrap_or(0);
        let all: u64 = metrics.values().map(count).sum();
        let running = all == self.answers && all != since;
        // The answers' own output counts, where they carry them, over the shutdown's total; with
        // several models at one shutdown they cannot be told apart, so the totals stay.
        let answered_output = answered_output.filter(|_| metrics.len() == 1);
        for (model, metric) in metrics {
            let before = if running { self.totals.get(&model).cloned() } else { None };
            let figure = |key: &str| {
                let now = value_at(&metric, &format!("/usage/{key}")).and_then(Value::as_u64).unwrap_or(0);
                let then = before.as_ref().and_then(|b| value_at(b, &format!("/usage/{key}"))).and_then(Value::as_u64);
                now.saturating_sub(then.unwrap_or(0))
            };
            let requests = count(&metric).saturating_sub(before.as_ref().map(count).unwrap_or(0));
            self.totals.insert(model.clone(), metric.clone());
            if requests == 0 {
                continue;
            }
            let request = sink.state.snapshot();
            sink.model_call(
                &request,
                Usage {
                    model: model.clone(),
                    prompt_tokens: Some(figure("inputTokens")),
                    cached_tokens: Some(figure("cacheReadTokens")),
                    cache_write_tokens: Some(figure("cacheWriteTokens")),
                    completion_tokens: Some(answered_output.unwrap_or_else(|| figure("outputTokens"))),
                    requests,
                    started_at: at.to_string(),
                    request_ref: Some(
                        json!({"omitted": ["each request: Copilot CLI recorded only the total of these at shutdown"]}),
                    ),
                    ..Usage::new(Purpose::Turn, WireApi::Chat)
                },
            )?;
        }
        Ok(())
    }

    fn answer(&mut self, sink: &mut Sink<'_, '_>, record: &Value, data: &Value, at: &str) -> Result<()> {
        self.answers += 1;
        self.answers_since_shutdown += 1;
        if let Some(output) = data.get("outputTokens").and_then(Value::as_u64) {
            *self.output_since_shutdown.get_or_insert(0) += output;
        }
        let (request, usage) = self.pending.take().unwrap_or_else(|| (sink.state.snapshot(), Value::Null));
        let mut answer =
            Record::new(Role::Assistant, str_at(data, "/content").unwrap_or_default(), at).id(str_at(record, "/id"));
        if let Some(reasoning) = data.get("reasoningText").filter(|r| !r.is_null()) {
            answer = answer.meta("reasoning", reasoning.clone());
        }
        answer.tool_calls = data
            .get("toolRequests")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|t| ToolCall {
                id: str_at(t, "/toolCallId").unwrap_or_default().to_string(),
                name: str_at(t, "/name").unwrap_or_default().to_string(),
                arguments: match t.get("arguments") {
                    Some(Value::String(s)) => s.clone(),
                    Some(other) => other.to_string(),
                    None => "{}".to_string(),
                },
            })
            .collect();
        let seq = sink.push(answer)?;
        if !usage.is_null() {
            let model = str_at(&usage, "/model").or_else(|| str_at(data, "/model")).unwrap_or_default().to_string();
            sink.model_call(&request, usage_row(&usage, Purpose::Turn, model, Some(seq), at))?;
        }
        Ok(())
    }

    /// The summary message Copilot sends after a compaction (every prompt so far, then the
    /// summary) leads the view; what the turn added while it ran in the background stays.
    fn compaction(&mut self, sink: &mut Sink<'_, '_>, data: &Value, at: &str) -> Result<Skip> {
        let applied = data.get("success").and_then(Value::as_bool) != Some(false)
            && str_at(data, "/outcome").is_none_or(|o| o == "applied");
        let logged = self.logged.take();
        let Some(summary) = str_at(data, "/summaryContent").filter(|_| applied) else {
            self.compacting = None;
            return Ok(Skip::Yes("a compaction that was not applied".into()));
        };
        let (request, from) = self.compacting.take().unwrap_or_else(|| (sink.state.snapshot(), sink.state.next_seq));
        let keep: Vec<i64> = sink.state.live.iter().map(|l| l.seq).filter(|seq| *seq >= from).collect();
        let call = match data.get("compactionTokensUsed").filter(|u| u.is_object()) {
            Some(used) => {
                let model = str_at(used, "/model").unwrap_or_default().to_string();
                let mut row = usage_row(used, Purpose::Compaction, model, None, at);
                row.response = Some(json!({"text": summary}));
                if let Some(messages) = logged {
                    // Its messages as sent; its tools were not logged (only their size).
                    let tools = data.get("toolDefinitionsTokens").and_then(Value::as_u64).unwrap_or(0);
                    row.request_ref = Some(json!({"messages": messages, "estimates": {"tools": tools}}));
                }
                Some(sink.model_call(&request, row)?)
            }
            None => None,
        };
        let manual = str_at(data, "/trigger") == Some("manual");
        let (reason, kind) = if manual {
            (CompactionReason::Manual, TriggerKind::Manual)
        } else {
            (CompactionReason::Auto, TriggerKind::Threshold)
        };
        let trigger = Trigger {
            kind,
            prompt_tokens: data.get("preCompactionTokens").and_then(Value::as_u64),
            window: data.get("tokenLimit").and_then(Value::as_u64),
            threshold: None,
        };
        let mut fields = Map::new();
        for key in [
            "preCompactionMessagesLength",
            "messagesRemoved",
            "postCompactionTokens",
            "checkpointNumber",
            "checkpointPath",
        ] {
            if let Some(v) = data.get(key).filter(|v| !v.is_null()) {
                fields.insert(key.to_string(), v.clone());
            }
        }
        let id = sink.compaction(reason, &keep, call, fields, Some(trigger), at)?;
        let mut text = String::from(
            "Some of the conversation history has been summarized to free up context.\n\nYou were originally given \
             instructions from a user over one or more turns. Here were the user messages:\n",
        );
        for prompt in &self.prompts {
            text.push_str(&format!("<user_message>\n{prompt}\n</user_message>\n"));
        }
        text.push_str(&format!("\nHere is a summary of the prior context:\n<summary>\n{summary}\n</summary>\n"));
        sink.checkpoint(id, Record::new(Role::User, text, at), true)?;
        sink.touch(at)?;
        Ok(Skip::No)
    }
}

/// A Copilot usage object (`inputTokens` includes the cached ones) as a ledger row.
fn usage_row(usage: &Value, purpose: Purpose, model: String, response_seq: Option<i64>, at: &str) -> Usage {
    // 1.0.1x names a compaction's figures `input`, `output`, `cachedInput`.
    let n = |keys: &[&str]| keys.iter().find_map(|key| usage.get(*key).and_then(Value::as_u64));
    Usage {
        model,
        prompt_tokens: n(&["inputTokens", "input"]),
        cached_tokens: n(&["cacheReadTokens", "cachedInput"]),
        cache_write_tokens: n(&["cacheWriteTokens"]).filter(|w| *w > 0),
        completion_tokens: n(&["outputTokens", "output"]),
        ttft_ms: n(&["timeToFirstTokenMs"]),
        duration_ms: n(&["duration"]),
        finish_reason: str_at(usage, "/finishReason").map(str::to_string),
        response_seq,
        started_at: at.to_string(),
        ..Usage::new(purpose, WireApi::Chat)
    }
}
