//! The window in force and where it came from — one rule for the context meter, `alisio models`
//! and Settings → Test connection: `provider.contextWindow`, else the active profile's
//! `contextWindow`, else what the server reports.

use serde::Serialize;
use serde_json::Value;

use super::{Provider, Window, WindowSource};
use crate::config::ProviderConfig;
use crate::error::Result;

/// The window the configuration itself sets, if any: `provider.contextWindow`, else the profile's.
pub fn configured_window(config: &ProviderConfig) -> Option<Window> {
    match (config.context_window, config.profile_context_window) {
        (Some(tokens), _) => Some(Window { tokens, source: WindowSource::Provider }),
        (None, Some(tokens)) => Some(Window { tokens, source: WindowSource::Profile }),
        (None, None) => None,
    }
}

/// The window in force: the configured one, else the server's report.
pub fn window_in_force(config: &ProviderConfig, reported: Option<Window>) -> Option<Window> {
    configured_window(config).or(reported)
}

/// What the server says about its models and the window in force (`alisio models`, Test connection).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ModelsReport {
    pub base_url: String,
    pub model: String,
    /// `provider.contextWindow` as configured.
    pub configured_context_window: Option<u64>,
    /// What the server reports (`/models`, `/props`, Ollama, LM Studio), whatever the configuration says.
    pub reported_context_window: Option<u64>,
    /// The window in force, and the source that gave it.
    pub context_window: Option<u64>,
    pub window_source: Option<WindowSource>,
    pub profile: Option<String>,
    /// The model ids the server lists.
    pub model_ids: Vec<String>,
    /// The server's `/models` document as received.
    #[cfg_attr(feature = "ts", ts(type = "JsonValue"))]
    pub models: Value,
}

impl Provider {
    /// Asks the server for its models and its window; the window in force follows [`window_in_force`].
    pub async fn report(&self) -> Result<ModelsReport> {
        let config = self.config();
        let models = self.list_models().await?;
        let reported = self.discover_window(Some(&models)).await?;
        let in_force = window_in_force(config, reported);
        Ok(ModelsReport {
            base_url: config.base_url.clone(),
            model: config.model.clone(),
            configured_context_window: config.context_window,
            reported_context_window: reported.map(|w| w.tokens),
            context_window: in_force.map(|w| w.tokens),
            window_source: in_force.map(|w| w.source),
            profile: config.profile.clone(),
            model_ids: model_ids(&models),
            models,
        })
    }
}

/// The ids of a `/models` document (`data[].id`).
pub fn model_ids(models: &Value) -> Vec<String> {
    models
        .get("data")
        .and_then(Value::as_array)
        .map(|list| list.iter().filter_map(|m| m.get("id").and_then(Value::as_str).map(str::to_string)).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_configuration_wins_then_the_profile_then_the_server() {
        let reported = Some(Window { tokens: 4096, source: WindowSource::Props });
        let mut config = ProviderConfig::default();
        assert_eq!(window_in_force(&config, reported), reported);
        config.profile_context_window = Some(32_768);
        assert_eq!(window_in_force(&config, reported), Some(Window { tokens: 32_768, source: WindowSource::Profile }));
        config.context_window = Some(8192);
        assert_eq!(window_in_force(&config, reported), Some(Window { tokens: 8192, source: WindowSource::Provider }));
        assert_eq!(window_in_force(&ProviderConfig::default(), None), None);
    }
}
