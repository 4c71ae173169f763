//! pi sessions (`~/.pi/agent/sessions/--<cwd>--/<time>_<uuid>.jsonl`, docs/formats/pi.md): a
//! `session` header (format 1 has no `version`, format 3 has one; a branch names the file it came
//! from: `branchedFrom` then `parentSession`), then `message` records (user, assistant with its
//! usage and recorded cost, toolResult), `session_info` (the name given) and `compaction` records
//! whose summary replaces what came before the first entry kept (`firstKeptEntryId`, or in format
//! 1, whose records have no ids, `firstKeptEntryIndex`: the line's index in the file).

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use super::sink::{title_of, Record, Sink, TitleFrom, Usage};
use super::{str_at, Skip};
use crate::error::Result;
use crate::events::CompactionReason;
use crate::store::{Purpose, WireApi};
use crate::transcript::Role;

/// The text pi puts before a compaction's summary in every later request.
const SUMMARY_LEAD: &str = "The conversation history before this point was compacted into the following summary:";

/// Whether the first record of a JSONL file is pi's session header.
pub fn is_header(record: &Value) -> bool {
    record.get("type").and_then(Value::as_str) == Some("session")
        && record.get("cwd").is_some()
        && record.get("id").is_some()
        && record.get("timestamp").is_some()
}

/// What the importer remembers between records of one file.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Pi {
    titled: bool,
    model: String,
    /// The records read so far (their index in the file) and, for format 1, the seq of each
    /// message among them: a compaction there names the first kept by its index.
    #[serde(default)]
    records: usize,
    #[serde(default)]
    seq_at: std::collections::BTreeMap<usize, i64>,
    /// The file being read (a branch's parent is named by its path).
    #[serde(skip)]
    pub path: std::path::PathBuf,
}

impl Pi {
    pub fn line(&mut self, sink: &mut Sink<'_, '_>, record: &Value) -> Result<Skip> {
        let at = str_at(record, "/timestamp").unwrap_or_default().to_string();
        let index = self.records;
        self.records += 1;
        let skip = match record.get("type").and_then(Value::as_str).unwrap_or_default() {
            "session" => {
                // A branch or fork names the file it came from; that file's header names the session.
                let parent = str_at(record, "/parentSession").or_else(|| str_at(record, "/branchedFrom"));
                if let Some(parent) = parent.and_then(|p| self.session_of_file(p)) {
                    sink.set_parent(&super::session_id(crate::store::SourceKind::Pi, &parent), None)?;
                }
                Skip::No
            }
            "session_info" => {
                if let Some(name) = str_at(record, "/name").filter(|n| !n.trim().is_empty()) {
                    sink.offer_title(&title_of(name), TitleFrom::Custom)?;
                }
                Skip::No
            }
            "thinking_level_change" | "label" | "custom" => Skip::No,
            "model_change" => {
                if let Some(model) = str_at(record, "/modelId") {
                    self.model = model.to_string();
                }
                Skip::No
            }
            "message" => {
                let before = sink.state.next_seq;
                let skip = self.message(sink, record, &at)?;
                if record.get("id").is_none() && sink.state.next_seq > before {
                    self.seq_at.insert(index, before);
                }
                skip
            }
            "compaction" => self.compaction(sink, record, &at)?,
            other => Skip::Yes(format!("a record of type {other:?}")),
        };
        sink.touch(&at)?;
        Ok(skip)
    }

    fn message(&mut self, sink: &mut Sink<'_, '_>, record: &Value, at: &str) -> Result<Skip> {
        let message = &record["message"];
        let id = str_at(record, "/id");
        match str_at(message, "/role").unwrap_or_default() {
            "user" => {
                let text = text_of(message.get("content"));
                if !self.titled && !text.trim().is_empty() {
                    sink.offer_title(&title_of(&text), TitleFrom::Prompt)?;
                    self.titled = true;
                }
                sink.push(Record::new(Role::User, text, at).id(id))?;
            }
            "assistant" => {
                let request = sink.state.snapshot();
                let mut texts = Vec::new();
                let mut thinking = Vec::new();
                let mut calls = Vec::new();
                for block in message.get("content").and_then(Value::as_array).into_iter().flatten() {
                    match str_at(block, "/type") {
                        Some("text") => texts.push(str_at(block, "/text").unwrap_or_default()),
                        Some("thinking") => thinking.push(str_at(block, "/thinking").unwrap_or_default().to_string()),
                        Some("toolCall") => calls.push(super::tool_call(block, "arguments")),
                        _ => {}
                    }
                }
                let mut answer = Record::new(Role::Assistant, texts.join("\n\n"), at).id(id);
                if !thinking.is_empty() {
                    answer = answer.meta("thinking", json!(thinking));
                }
                if let Some(reason) = message.get("stopReason") {
                    answer = answer.meta("stopReason", reason.clone());
                }
                answer.tool_calls = calls;
                let seq = sink.push(answer)?;
                if let Some(usage) = message.get("usage") {
                    let n = |key: &str| usage.get(key).and_then(Value::as_u64);
                    // pi's `input` leaves out what was read from or written to the cache.
                    let prompt = [n("input"), n("cacheRead"), n("cacheWrite")].iter().flatten().sum::<u64>();
                    let model = str_at(message, "/model").map(str::to_string).unwrap_or_else(|| self.model.clone());
                    let recorded = usage.pointer("/cost/total").cloned().unwrap_or(Value::Null);
                    let finish = match str_at(message, "/stopReason") {
                        Some("toolUse") => Some("tool_calls".to_string()),
                        Some(other) => Some(other.to_string()),
                        None => None,
                    };
                    sink.model_call(
                        &request,
                        Usage {
                            model,
                            prompt_tokens: Some(prompt),
                            cached_tokens: n("cacheRead"),
                            cache_write_tokens: n("cacheWrite"),
                            completion_tokens: n("output"),
                            recorded_cost_pd: usage.pointer("/cost/total").and_then(super::claude::picodollars),
                            finish_reason: finish,
                            response_seq: Some(seq),
                            response: Some(
                                json!({"recordedCostUsd": recorded, "responseId": message.get("responseId")}),
                            ),
                            started_at: at.to_string(),
                            ..Usage::new(Purpose::Turn, WireApi::Chat)
                        },
                    )?;
                }
            }
            "toolResult" => {
                let mut text = text_of(message.get("content"));
                if message.get("isError").and_then(Value::as_bool) == Some(true) {
                    text = format!("error: {text}");
                }
                let mut result = Record::new(Role::Tool, text, at)
                    .id(id)
                    .meta("details", message.get("details").cloned().unwrap_or(Value::Null));
                result.tool_call_id = str_at(message, "/toolCallId").map(str::to_string);
                sink.push(result)?;
            }
            other => return Ok(Skip::Yes(format!("a message of role {other:?}"))),
        }
        Ok(Skip::No)
    }

    /// Everything before `firstKeptEntryId` is replaced by the summary, which leads the view.
    fn compaction(&mut self, sink: &mut Sink<'_, '_>, record: &Value, at: &str) -> Result<Skip> {
        let Some(summary) = str_at(record, "/summary") else {
            return Ok(Skip::Yes("a compaction record without a summary".into()));
        };
        let first_kept = match (str_at(record, "/firstKeptEntryId"), record.get("firstKeptEntryIndex")) {
            (Some(entry), _) => sink.seq_of(entry)?,
            // Format 1: the first kept record by its index in the file (the first message at or
            // after it, if that record was no message).
            (None, Some(index)) => index.as_u64().and_then(|i| self.seq_at.range(i as usize..).next().map(|(_, s)| *s)),
            (None, None) => None,
        };
        let keep: Vec<i64> = match first_kept {
            Some(first) => sink.state.live.iter().map(|l| l.seq).filter(|seq| *seq >= first).collect(),
            None => Vec::new(),
        };
        let mut fields = Map::new();
        for key in ["firstKeptEntryId", "tokensBefore", "details", "fromHook"] {
            if let Some(v) = record.get(key).filter(|v| !v.is_null()) {
                fields.insert(key.to_string(), v.clone());
            }
        }
        // pi does not record whether it was asked for or fired by its threshold: no trigger
        // (its `tokensBefore` stays with the record's fields).
        let id = sink.compaction(CompactionReason::Unknown, &keep, None, fields, None, at)?;
        let text = format!("{SUMMARY_LEAD}\n\n<summary>\n{summary}\n</summary>");
        sink.checkpoint(id, Record::new(Role::User, text, at).id(str_at(record, "/id")), true)?;
        Ok(Skip::No)
    }
}

impl Pi {
    /// The session id in the header of the pi file at `path` (a branch's parent), else the id
    /// its name ends with (`<time>_<uuid>.jsonl`).
    fn session_of_file(&self, path: &str) -> Option<String> {
        use std::io::BufRead;
        let path = std::path::Path::new(path);
        let from_header = super::open_regular(path).ok().and_then(|file| {
            let mut line = String::new();
            std::io::BufReader::new(file).read_line(&mut line).ok()?;
            let header: Value = serde_json::from_str(&line).ok()?;
            str_at(&header, "/id").map(str::to_string)
        });
        from_header.or_else(|| {
            let stem = path.file_stem()?.to_str()?;
            Some(stem.rsplit_once('_').map_or(stem, |(_, id)| id).to_string())
        })
    }
}

/// The text of a pi `content` (a string, or text blocks joined).
fn text_of(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(blocks)) => {
            blocks.iter().filter_map(|b| b.get("text").and_then(Value::as_str)).collect::<Vec<_>>().join("\n\n")
        }
        _ => String::new(),
    }
}
