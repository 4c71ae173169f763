//! Reading a context window out of `/models` and `/props` answers, whatever the server's dialect.

use serde_json::Value;

const WINDOW_KEYS: &[&str] = &["context_length", "max_model_len", "context_window", "n_ctx"];

fn window_in(entry: &Value) -> Option<u64> {
    for key in WINDOW_KEYS {
        if let Some(n) = entry.get(*key).and_then(Value::as_u64) {
            return Some(n);
        }
    }
    for nested in ["meta", "default_generation_settings", "top_provider"] {
        if let Some(n) = entry.get(nested).and_then(window_in) {
            return Some(n);
        }
    }
    None
}

/// The window of `model` (or of the only/first listed model) in a `/models` or `/props` document.
pub fn parse_context_window(doc: &Value, model: &str) -> Option<u64> {
    let list = doc.get("data").or_else(|| doc.get("models")).and_then(Value::as_array);
    match list {
        Some(entries) => {
            let by_id = entries.iter().find(|e| {
                e.get("id").or_else(|| e.get("name")).or_else(|| e.get("model")).and_then(Value::as_str) == Some(model)
            });
            by_id.and_then(window_in).or_else(|| entries.iter().find_map(window_in))
        }
        None => window_in(doc),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn dialects() {
        let cases = [
            (json!({"data": [{"id": "a", "context_length": 100}, {"id": "m", "context_length": 200}]}), Some(200)),
            (json!({"data": [{"id": "m", "max_model_len": 32768}]}), Some(32768)),
            (json!({"data": [{"id": "x", "context_window": 4096}]}), Some(4096)),
            (json!({"data": [{"id": "m", "meta": {"n_ctx": 8192}}]}), Some(8192)),
            (json!({"default_generation_settings": {"n_ctx": 2048}}), Some(2048)),
            (json!({"data": [{"id": "m"}]}), None),
        ];
        for (doc, want) in cases {
            assert_eq!(parse_context_window(&doc, "m"), want, "{doc}");
        }
    }
}
