//! Claude Code's records beside the conversation: attachments (files and hook output the user's
//! turn carried) and `system` records (compaction boundaries, local commands, notices).

use serde_json::{json, Map, Value};

use super::super::sink::Sink;
use super::super::{str_at, value_at, Skip};
use crate::error::Result;
use crate::events::CompactionReason;
use crate::store::compactions::{Trigger, TriggerKind};
use crate::transcript::Role;

use super::*;

impl Claude {
    pub(super) fn attachment(
        &mut self,
        sink: &mut Sink<'_, '_>,
        record: &Value,
        uuid: Option<&str>,
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
        let out = Self::base(record, role, text, uuid, at).meta("attachment", json!(kind));
        sink.push(out)?;
        Ok(Skip::No)
    }

    pub(super) fn system(
        &mut self,
        sink: &mut Sink<'_, '_>,
        thread: &mut Thread,
        record: &Value,
        uuid: Option<&str>,
        at: &str,
    ) -> Result<Skip> {
        let subtype = str_at(record, "/subtype").unwrap_or_default();
        if subtype == "compact_boundary" {
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
            thread.summary_call = Some(call);
            thread.boundary = Some(sink.compaction(reason, &keep, Some(call), fields, trigger, at)?);
            return Ok(Skip::No);
        }
        // Local command output and notices: shown, but not what the model reads.
        let mut out =
            Self::base(record, Role::System, text_of(record.get("content").unwrap_or(&Value::Null)), uuid, at)
                .meta("subtype", json!(subtype))
                .meta("level", record.get("level").cloned().unwrap_or_default());
        out.off_view = true;
        sink.push(out)?;
        Ok(Skip::No)
    }
}
