//! Reading the context window out of what servers report, whatever their dialect. A server may
//! report the window it has loaded and the maximum the model was trained for; the loaded one is the
//! window in force. Field names as the servers document them:
//! - OpenAI-style `/models`: `max_model_len` (vLLM, loaded), `context_length` (OpenRouter),
//!   `context_window`; llama.cpp's `meta.n_ctx_train` (trained);
//! - llama.cpp `/props`: `default_generation_settings.n_ctx` (loaded);
//! - Ollama `POST /api/show`: `model_info["<arch>.context_length"]` (trained), `GET /api/ps`:
//!   `models[].context_length` (loaded);
//! - LM Studio `GET /api/v0/models`: `loaded_context_length` (loaded), `max_context_length` (trained).

use serde::Serialize;
use serde_json::Value;

/// Which source gave the window in force (`alisio models --json` → `windowSource`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, strum::IntoStaticStr)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
#[strum(serialize_all = "lowercase")]
pub enum WindowSource {
    Provider,
    Profile,
    Models,
    Props,
    Ollama,
    Lmstudio,
}

/// A window and where it came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    pub tokens: u64,
    pub source: WindowSource,
}

/// What one document says: the loaded window and the trained maximum.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Reported {
    pub loaded: Option<u64>,
    pub trained: Option<u64>,
}

fn number(v: Option<&Value>) -> Option<u64> {
    v.and_then(Value::as_u64).filter(|n| *n > 0)
}

fn entry_name(entry: &Value) -> Option<&str> {
    entry.get("id").or_else(|| entry.get("name")).or_else(|| entry.get("model")).and_then(Value::as_str)
}

/// The entry of `model` in a list document (`data` or `models`), else the only or first entry
/// that says anything; the document itself when it is not a list.
fn entries_for<'a>(doc: &'a Value, model: &str) -> Vec<&'a Value> {
    match doc.get("data").or_else(|| doc.get("models")).and_then(Value::as_array) {
        Some(entries) => {
            let mine: Vec<&Value> = entries.iter().filter(|e| entry_name(e) == Some(model)).collect();
            if mine.is_empty() {
                entries.iter().collect()
            } else {
                mine
            }
        }
        None => vec![doc],
    }
}

fn first<'a>(entries: &[&'a Value], read: impl Fn(&'a Value) -> Option<u64>) -> Option<u64> {
    entries.iter().find_map(|e| read(e))
}

/// An OpenAI-style `/models` answer (vLLM, OpenRouter, llama.cpp, LM Studio's `/v1`).
pub fn from_models(doc: &Value, model: &str) -> Reported {
    let entries = entries_for(doc, model);
    Reported {
        loaded: first(&entries, |e| {
            number(e.get("max_model_len"))
                .or_else(|| number(e.get("context_length")))
                .or_else(|| number(e.get("context_window")))
                .or_else(|| number(e.get("n_ctx")))
                .or_else(|| number(e.pointer("/meta/n_ctx")))
                .or_else(|| number(e.pointer("/top_provider/context_length")))
        }),
        trained: first(&entries, |e| number(e.pointer("/meta/n_ctx_train"))),
    }
}

/// llama.cpp's `/props`.
pub fn from_props(doc: &Value) -> Reported {
    Reported {
        loaded: number(doc.pointer("/default_generation_settings/n_ctx")).or_else(|| number(doc.get("n_ctx"))),
        trained: None,
    }
}

/// Ollama's `/api/ps` (loaded models) and `/api/show` (the model's metadata).
pub fn from_ollama(ps: Option<&Value>, show: Option<&Value>, model: &str) -> Reported {
    let loaded = ps.and_then(|doc| {
        let models = doc.get("models").and_then(Value::as_array)?;
        let base = |name: &str| name.split(':').next().unwrap_or(name).to_string();
        models
            .iter()
            .find(|m| entry_name(m).is_some_and(|n| n == model || base(n) == base(model)))
            .and_then(|m| number(m.get("context_length")))
    });
    let trained = show.and_then(|doc| {
        let info = doc.get("model_info").and_then(Value::as_object)?;
        info.iter().find(|(k, _)| k.ends_with(".context_length")).and_then(|(_, v)| number(Some(v)))
    });
    Reported { loaded, trained }
}

/// LM Studio's `/api/v0/models`.
pub fn from_lmstudio(doc: &Value, model: &str) -> Reported {
    let entries = entries_for(doc, model);
    Reported {
        loaded: first(&entries, |e| number(e.get("loaded_context_length"))),
        trained: first(&entries, |e| number(e.get("max_context_length"))),
    }
}

/// The window of `model` (or of the only/first listed model) in a `/models` or `/props` document:
/// the loaded window, else the trained maximum.
pub fn parse_context_window(doc: &Value, model: &str) -> Option<u64> {
    let models = from_models(doc, model);
    models.loaded.or_else(|| from_props(doc).loaded).or(models.trained)
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
            (json!({"data": [{"id": "m", "meta": {"n_ctx_train": 131072}}]}), Some(131072)),
            (json!({"data": [{"id": "m"}]}), None),
        ];
        for (doc, want) in cases {
            assert_eq!(parse_context_window(&doc, "m"), want, "{doc}");
        }
    }

    #[test]
    fn loaded_windows_win_over_trained_maxima() {
        let llama = from_models(&json!({"data": [{"id": "m", "meta": {"n_ctx_train": 131072}}]}), "m");
        assert_eq!(llama, Reported { loaded: None, trained: Some(131072) });
        let ps = json!({"models": [{"name": "qwen2.5:7b", "context_length": 4096}]});
        let show = json!({"model_info": {"general.architecture": "qwen2", "qwen2.context_length": 32768}});
        assert_eq!(
            from_ollama(Some(&ps), Some(&show), "qwen2.5:7b"),
            Reported { loaded: Some(4096), trained: Some(32768) }
        );
        assert_eq!(from_ollama(None, Some(&show), "qwen2.5:7b"), Reported { loaded: None, trained: Some(32768) });
        let lms = json!({"data": [{"id": "m", "max_context_length": 32768, "loaded_context_length": 8192}]});
        assert_eq!(from_lmstudio(&lms, "m"), Reported { loaded: Some(8192), trained: Some(32768) });
    }
}
