//! What Cline and Roo Code hide of a task's history, replayed as compactions: Cline's hidden ranges
//! (each new one applied right after the message it was decided on) and Roo Code's condenses and
//! truncations (what each hides, its summary or marker).

use std::collections::{BTreeMap, HashMap, HashSet};

use serde_json::{json, Map, Value};

use super::super::sink::{Record, Sink, Usage};
use super::super::str_at;
use crate::error::Result;
use crate::events::CompactionReason;
use crate::store::compactions::{Trigger, TriggerKind};
use crate::store::{Purpose, WireApi};
use crate::transcript::Role;

use super::*;

impl Replay<'_> {
    /// Cline: the history in order; each new hidden range (as the chat's messages first carry
    /// it) applied right after the message it was decided on.
    pub(super) fn cline(&mut self, sink: &mut Sink<'_, '_>) -> Result<()> {
        let mut events: Vec<RangeEvent> = Vec::new();
        let mut last: Option<Value> = None;
        let mut asked = None;
        for ui in &self.task.ui {
            match (str_at(ui, "/ask"), str_at(ui, "/say")) {
                (Some("condense"), _) => asked = Some(CompactionReason::Manual),
                (_, Some("tool")) if str_at(ui, "/text").is_some_and(|t| t.contains("\"summarizeTask\"")) => {
                    asked = Some(CompactionReason::Auto)
                }
                _ => {}
            }
            let Some(range) = ui.get("conversationHistoryDeletedRange").filter(|r| r.is_array()) else { continue };
            if last.as_ref() == Some(range) {
                continue;
            }
            last = Some(range.clone());
            let index = ui.get("conversationHistoryIndex").and_then(Value::as_i64).unwrap_or(-1);
            events.push(RangeEvent {
                range: (range[0].as_u64().unwrap_or(0) as usize, range[1].as_u64().unwrap_or(0) as usize),
                after: index.max(0) as usize,
                ts: ui.get("ts").and_then(Value::as_i64).unwrap_or(i64::MAX),
                condense: asked.take(),
            });
        }
        if events.is_empty() {
            // No chat to time it by: the task's latest range, at the end.
            if let Some(range) = self.task.item.get("conversationHistoryDeletedRange").filter(|r| r.is_array()) {
                events.push(RangeEvent {
                    range: (range[0].as_u64().unwrap_or(0) as usize, range[1].as_u64().unwrap_or(0) as usize),
                    after: self.task.history.len().saturating_sub(1),
                    ts: i64::MAX,
                    condense: None,
                });
            }
        }
        let mut events = events.into_iter().peekable();
        let mut restated: Vec<i64> = Vec::new();
        for index in 0..self.task.history.len() {
            let seqs = self.push(sink, index)?;
            self.record(index, seqs);
            while let Some(event) = events.next_if(|e| e.after <= index) {
                restated = self.cline_range(sink, &event, &restated)?;
            }
        }
        for event in events {
            restated = self.cline_range(sink, &event, &restated)?;
        }
        Ok(())
    }

    /// Hides `event`'s range with the first two messages (and their last restatement), then
    /// restates those two as Cline sends them from then on.
    pub(super) fn cline_range(
        &mut self,
        sink: &mut Sink<'_, '_>,
        event: &RangeEvent,
        restated: &[i64],
    ) -> Result<Vec<i64>> {
        let (start, end) = event.range;
        // What is shown stays unless it is the range, the first two messages or their restatement
        // (one look per message shown, however long the range: a hostile one costs nothing).
        let hidden = |seq: &i64| {
            restated.contains(seq) || self.index_of.get(seq).is_some_and(|i| *i < 2 || (start..=end).contains(i))
        };
        let keep: Vec<i64> = sink.state.live.iter().map(|l| l.seq).filter(|s| !hidden(s)).collect();
        let previous = self.context_before(event.ts);
        let (reason, kind) = match event.condense {
            Some(CompactionReason::Manual) => (CompactionReason::Manual, TriggerKind::Manual),
            Some(_) => (CompactionReason::Auto, TriggerKind::Threshold),
            None => (CompactionReason::Budget, TriggerKind::Threshold),
        };
        let mut fields = Map::new();
        fields.insert("conversationHistoryDeletedRange".into(), json!([start, end]));
        fields.insert("kind".into(), json!(if event.condense.is_some() { "condense" } else { "truncation" }));
        let trigger = Trigger::measured(kind, previous);
        let at = if event.ts == i64::MAX { String::new() } else { super::super::opencode::iso(event.ts) };
        let id = sink.compaction(reason, &keep, None, fields, Some(trigger), &at)?;
        let anchor = sink.lead_anchor().unwrap_or(0);
        let mut seqs = Vec::new();
        for index in 0..2.min(self.task.history.len()) {
            let message = self.edited(index, event.ts);
            let at = at_of(&message);
            let record = if str_at(&message, "/role") == Some("assistant") {
                let mut record = Record::new(Role::Assistant, texts_only(&message).join("\n\n"), &at);
                record.tool_calls = tool_uses(&message);
                record
            } else {
                Record::new(Role::User, texts_only(&message).join("\n\n"), &at)
            };
            let calls = record.tool_calls.clone();
            let seq = if index == 0 {
                sink.checkpoint_at(id, record, Some(anchor))?
            } else {
                sink.restated_at(id, record, anchor)?
            };
            seqs.push(seq);
            seqs.extend(self.missing_results(sink, index, &calls, Some((id, anchor)))?);
        }
        Ok(seqs)
    }

    /// History message `index` with the text Cline sends in its place as of `ts`
    /// (`context_history.json`: the newest rewrite of each block made by then).
    pub(super) fn edited(&self, index: usize, ts: i64) -> Value {
        let mut message = self.task.history[index].clone();
        for entry in self.task.context.as_array().into_iter().flatten() {
            if entry[0].as_u64() != Some(index as u64) {
                continue;
            }
            for block in entry[1][1].as_array().into_iter().flatten() {
                let Some(b) = block[0].as_u64() else { continue };
                let newest = block[1]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter(|u| u[0].as_i64().is_some_and(|t| t <= ts))
                    .filter_map(|u| u[2][0].as_str())
                    .next_back();
                if let (Some(text), Some(target)) = (newest, message.pointer_mut(&format!("/content/{b}"))) {
                    if target.get("text").is_some() {
                        target["text"] = json!(text);
                    } else if target.is_string() {
                        *target = json!(text);
                    }
                }
                if let (Some(text), Some(Value::String(whole))) = (newest, message.get_mut("content")) {
                    if b == 0 {
                        *whole = text.to_string();
                    }
                }
            }
        }
        message
    }

    /// The context of the last request made before `ts`, as Cline measures it.
    pub(super) fn context_before(&self, ts: i64) -> Option<u64> {
        let before = self.contexts.partition_point(|(t, _)| *t < ts);
        before.checked_sub(1).map(|i| self.contexts[i].1)
    }

    /// Roo Code: the history in order, its truncation markers left for the moment the chat says
    /// each truncation happened; a summary is a condense where it stands.
    pub(super) fn roo(&mut self, sink: &mut Sink<'_, '_>) -> Result<()> {
        let mut truncations: BTreeMap<i64, Value> = BTreeMap::new();
        let mut condenses: HashMap<String, (i64, Value)> = HashMap::new();
        for ui in &self.task.ui {
            let ts = ui.get("ts").and_then(Value::as_i64).unwrap_or(0);
            if let Some(t) = ui.get("contextTruncation").filter(|t| t.is_object()) {
                truncations.insert(ts, t.clone());
            }
            if let Some(c) = ui.get("contextCondense").filter(|c| c.is_object()) {
                let id = str_at(c, "/condenseId").unwrap_or_default().to_string();
                condenses.insert(id, (ts, c.clone()));
            }
        }
        let markers: HashMap<&str, usize> = self
            .task
            .history
            .iter()
            .enumerate()
            .filter(|(_, m)| m.get("isTruncationMarker").and_then(Value::as_bool) == Some(true))
            .filter_map(|(i, m)| Some((str_at(m, "/truncationId")?, i)))
            .collect();
        let mut pending: Vec<(i64, String)> = Vec::new();
        for (ts, t) in &truncations {
            if let Some(id) = str_at(t, "/truncationId").filter(|id| markers.contains_key(id)) {
                pending.push((*ts, id.to_string()));
            }
        }
        let timed: HashSet<String> = pending.iter().map(|(_, id)| id.clone()).collect();
        // Markers the chat does not time come last.
        for (id, _) in markers.iter().filter(|(id, _)| !timed.contains(**id)) {
            pending.push((i64::MAX, id.to_string()));
        }
        pending.sort();
        let mut pending = pending.into_iter().peekable();
        let task = self.task;
        for index in 0..task.history.len() {
            let message = &task.history[index];
            if message.get("isTruncationMarker").and_then(Value::as_bool) == Some(true) || message.get("role").is_none()
            {
                continue; // a marker comes when its truncation happened; a bare reasoning item is never sent
            }
            let ts = message.get("ts").and_then(Value::as_i64).unwrap_or(i64::MAX);
            while let Some((_, id)) = pending.next_if(|(t, _)| *t < ts) {
                self.roo_truncation(sink, &id, markers[id.as_str()], &truncations)?;
            }
            if message.get("isSummary").and_then(Value::as_bool) == Some(true) {
                self.roo_condense(sink, index, &condenses)?;
            } else {
                let seqs = self.push(sink, index)?;
                self.record(index, seqs);
            }
        }
        for (_, id) in pending {
            self.roo_truncation(sink, &id, markers[id.as_str()], &truncations)?;
        }
        Ok(())
    }

    /// What the messages tagged with `id` hold is hidden, the marker read right after the first
    /// message shown (after earlier markers).
    pub(super) fn roo_truncation(
        &mut self,
        sink: &mut Sink<'_, '_>,
        id: &str,
        marker: usize,
        truncations: &BTreeMap<i64, Value>,
    ) -> Result<()> {
        let task = self.task;
        let tagged = |seq: &i64| {
            self.index_of.get(seq).is_some_and(|i| str_at(&task.history[*i], "/truncationParent") == Some(id))
        };
        let keep: Vec<i64> = sink.state.live.iter().map(|l| l.seq).filter(|s| !tagged(s)).collect();
        let (ts, figures) = truncations
            .iter()
            .find(|(_, t)| str_at(t, "/truncationId") == Some(id))
            .map(|(ts, t)| (*ts, t.clone()))
            .unwrap_or((i64::MAX, Value::Null));
        let mut fields = Map::new();
        fields.insert("kind".into(), json!("truncation"));
        fields.insert("truncationId".into(), json!(id));
        if let Some(removed) = figures.get("messagesRemoved") {
            fields.insert("messagesRemoved".into(), removed.clone());
        }
        let trigger =
            Trigger::measured(TriggerKind::Threshold, figures.get("prevContextTokens").and_then(Value::as_u64));
        let at = if ts == i64::MAX { String::new() } else { super::super::opencode::iso(ts) };
        let compaction = sink.compaction(CompactionReason::Budget, &keep, None, fields, Some(trigger), &at)?;
        // Right after the first message shown (and any marker already there).
        let first = sink.state.live.first().map(|l| l.seq);
        let record = Record::new(Role::User, texts(&task.history[marker]).join("\n\n"), &at);
        let seq = sink.checkpoint_at(compaction, record, first)?;
        self.record(marker, vec![seq]);
        Ok(())
    }

    /// A condense: every message shown until now is replaced by the summary, which the next
    /// request carries alone; the summarizer's call (the chat keeps only its cost) as a row.
    pub(super) fn roo_condense(
        &mut self,
        sink: &mut Sink<'_, '_>,
        index: usize,
        condenses: &HashMap<String, (i64, Value)>,
    ) -> Result<()> {
        let task = self.task;
        let message = &task.history[index];
        let at = at_of(message);
        let id = str_at(message, "/condenseId").unwrap_or_default();
        let figures = condenses.get(id).map(|(_, c)| c.clone()).unwrap_or(Value::Null);
        let text = texts(message).join("\n\n");
        for t in texts(message) {
            self.note_model(&t);
        }
        // Roo Code adds the environment details to an automatic condense's summary only.
        let automatic = text.contains("<environment_details>");
        let (reason, kind) = if automatic {
            (CompactionReason::Auto, TriggerKind::Threshold)
        } else {
            (CompactionReason::Manual, TriggerKind::Manual)
        };
        let request = sink.state.snapshot();
        let mut usage = Usage {
            model: self.model.clone(),
            started_at: at.clone(),
            ..Usage::new(Purpose::Compaction, WireApi::Chat)
        };
        let mut response = json!({"text": str_at(&figures, "/summary").unwrap_or(&text)});
        if let Some(cost) = figures.get("cost").and_then(Value::as_f64) {
            response["recordedCostUsd"] = json!(cost);
        }
        usage.recorded_cost_pd = figures.get("cost").and_then(super::super::claude::picodollars);
        usage.response = Some(response);
        let call = sink.model_call(&request, usage)?;
        let mut fields = Map::new();
        fields.insert("kind".into(), json!("condense"));
        fields.insert("condenseId".into(), json!(id));
        if let Some(after) = figures.get("newContextTokens") {
            fields.insert("newContextTokens".into(), after.clone());
        }
        let trigger = Trigger::measured(kind, figures.get("prevContextTokens").and_then(Value::as_u64));
        let compaction = sink.compaction(reason, &[], Some(call), fields, Some(trigger), &at)?;
        let seq = sink.checkpoint(compaction, Record::new(Role::User, text, &at), true)?;
        self.record(index, vec![seq]);
        sink.touch(&at)?;
        Ok(())
    }
}

/// A new hidden range of Cline's history, and when it was decided.
pub(super) struct RangeEvent {
    range: (usize, usize),
    /// The index of the newest history message when it was decided.
    after: usize,
    ts: i64,
    /// A condense asked for it (`/smol`, or the model's `summarize_task`); else a truncation.
    condense: Option<CompactionReason>,
}
