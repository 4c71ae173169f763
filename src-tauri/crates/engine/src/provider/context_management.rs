//! The APIs' own compaction (`compaction.strategy: "provider"`), as their documentation of
//! January 2026 defines it: Anthropic's server compaction (`compact_20260112`, beta
//! `compact-2026-01-12`: a readable `compaction` block opens the answer and the server drops every
//! block before it from then on) and context editing (`clear_tool_uses_20250919`,
//! `clear_thinking_20251015`, beta `context-management-2025-06-27`: reported in
//! `context_management.applied_edits`); OpenAI Responses' `context_management` compaction (an
//! opaque, encrypted `compaction` output item the next request carries) and `POST
//! /responses/compact`. What goes in a request, which betas it needs, and how to read what came back.

use serde_json::{json, Value};

use crate::config::{Api, ProviderCompactionConfig};

/// The beta that enables Anthropic's server compaction.
pub const COMPACT_BETA: &str = "compact-2026-01-12";
/// The beta that enables Anthropic's context editing.
pub const CONTEXT_MANAGEMENT_BETA: &str = "context-management-2025-06-27";
/// Anthropic refuses a compaction trigger under this many input tokens.
pub const ANTHROPIC_MIN_TRIGGER: u64 = 50_000;
/// The type of the item (Responses) or block (Anthropic) that carries a compaction.
pub const COMPACTION: &str = "compaction";

/// `context_management` for a turn of `api` (none on Chat Completions, which has no such thing):
/// compaction at `trigger` input tokens, plus Anthropic's context editing as configured. With
/// `pause`, Anthropic stops right after the compaction block (a compaction asked for by hand).
pub fn request_field(api: Api, settings: &ProviderCompactionConfig, trigger: u64, pause: bool) -> Option<Value> {
    match api {
        Api::Chat => None,
        Api::Responses => Some(json!([{"type": COMPACTION, "compact_threshold": trigger}])),
        Api::Anthropic => {
            let mut edits = Vec::new();
            // The thinking edit must come first when both clear.
            if settings.clear_thinking {
                edits.push(json!({"type": "clear_thinking_20251015", "keep": "all"}));
            }
            if settings.clear_tool_uses {
                let mut edit = json!({"type": "clear_tool_uses_20250919", "keep": {"type": "tool_uses", "value": settings.keep_tool_uses}});
                if let Some(at) = settings.clear_tool_uses_trigger {
                    edit["trigger"] = json!({"type": "input_tokens", "value": at});
                }
                if let Some(least) = settings.clear_at_least {
                    edit["clear_at_least"] = json!({"type": "input_tokens", "value": least});
                }
                edits.push(edit);
            }
            let mut compact = json!({
                "type": "compact_20260112",
                "trigger": {"type": "input_tokens", "value": trigger.max(ANTHROPIC_MIN_TRIGGER)},
            });
            if pause {
                compact["pause_after_compaction"] = json!(true);
            }
            if let Some(instructions) = settings.instructions.as_deref().filter(|i| !i.trim().is_empty()) {
                compact["instructions"] = json!(instructions);
            }
            edits.push(compact);
            Some(json!({"edits": edits}))
        }
    }
}

/// The `anthropic-beta` values a body's `context_management` needs.
pub fn betas(body: &Value) -> Vec<&'static str> {
    let Some(edits) = body.pointer("/context_management/edits").and_then(Value::as_array) else {
        return Vec::new();
    };
    let kind = |e: &Value| e.get("type").and_then(Value::as_str).unwrap_or_default().to_string();
    let mut betas = Vec::new();
    if edits.iter().any(|e| kind(e).starts_with("clear_")) {
        betas.push(CONTEXT_MANAGEMENT_BETA);
    }
    if edits.iter().any(|e| kind(e).starts_with("compact_")) {
        betas.push(COMPACT_BETA);
    }
    betas
}

/// The compaction an answer's items carry (a Responses output item, or the block Anthropic's
/// answer opened with, kept as an item), if any.
pub fn compaction_item(provider_items: Option<&Value>) -> Option<&Value> {
    provider_items?.as_array()?.iter().rev().find(|i| i.get("type").and_then(Value::as_str) == Some(COMPACTION))
}

/// What a compaction record keeps as its checkpoint: Anthropic's summary as written; a Responses
/// item as what it is — opaque, its id and size, never a guess at what it holds.
pub fn checkpoint_of(item: &Value) -> Value {
    if let Some(text) = item.get("content").and_then(Value::as_str) {
        return json!({"text": text});
    }
    let id = item.get("id").and_then(Value::as_str).unwrap_or("(no id)");
    let chars = item.get("encrypted_content").and_then(Value::as_str).map_or(0, |c| c.chars().count());
    json!({
        "text": format!("[opaque compaction item {id}: {chars} characters of encrypted content, readable only by the provider]"),
        "opaque": true,
    })
}

/// Where a standalone compaction goes, after the base URL (the ledger's `params.endpoint`).
pub const COMPACT_ENDPOINT: &str = "responses/compact";

/// A Responses body as `/responses/compact` takes it: the model, the system prompt (the first
/// item) as `instructions`, the other items as `input` (the tools and options stay out).
pub fn compact_body(body: &Value) -> Value {
    let mut input = body.get("input").and_then(Value::as_array).cloned().unwrap_or_default();
    let mut compact = json!({"model": body["model"]});
    if input.first().and_then(|i| i.get("role")).and_then(Value::as_str) == Some("system") {
        compact["instructions"] = input.remove(0)["content"].take();
    }
    compact["input"] = Value::Array(input);
    compact
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anthropic_edits_are_ordered_and_betas_follow_the_body() {
        let mut settings = ProviderCompactionConfig::default();
        let field = request_field(Api::Anthropic, &settings, 20_000, false).unwrap();
        assert_eq!(
            field,
            json!({"edits": [{"type": "compact_20260112", "trigger": {"type": "input_tokens", "value": 50_000}}]}),
            "under Anthropic's minimum, the minimum"
        );
        assert_eq!(betas(&json!({"context_management": field})), vec![COMPACT_BETA]);
        settings.clear_thinking = true;
        settings.clear_tool_uses = true;
        settings.clear_at_least = Some(5_000);
        let field = request_field(Api::Anthropic, &settings, 120_000, true).unwrap();
        let kinds: Vec<&str> = field["edits"].as_array().unwrap().iter().map(|e| e["type"].as_str().unwrap()).collect();
        assert_eq!(kinds, ["clear_thinking_20251015", "clear_tool_uses_20250919", "compact_20260112"]);
        assert_eq!(field["edits"][1]["clear_at_least"]["value"], 5_000);
        assert_eq!(field["edits"][2]["pause_after_compaction"], true);
        assert_eq!(betas(&json!({"context_management": field})), vec![CONTEXT_MANAGEMENT_BETA, COMPACT_BETA]);
        assert_eq!(
            request_field(Api::Responses, &settings, 9_000, false),
            Some(json!([{"type": "compaction", "compact_threshold": 9_000}]))
        );
        assert_eq!(request_field(Api::Chat, &settings, 9_000, false), None);
        assert!(betas(&json!({"model": "m"})).is_empty());
    }

    #[test]
    fn an_opaque_item_is_described_never_read() {
        let item = json!({"type": "compaction", "id": "cmp_1", "encrypted_content": "gAAAA123"});
        assert_eq!(compaction_item(Some(&json!([{"type": "message"}, item.clone()]))), Some(&item));
        let checkpoint = checkpoint_of(&item);
        assert_eq!(checkpoint["opaque"], true);
        assert!(checkpoint["text"].as_str().unwrap().contains("cmp_1: 8 characters"));
        assert_eq!(
            checkpoint_of(&json!({"type": "compaction", "content": "We fixed a.rs."})),
            json!({"text": "We fixed a.rs."})
        );
        assert_eq!(compaction_item(Some(&json!([{"type": "message"}]))), None);
    }
}
