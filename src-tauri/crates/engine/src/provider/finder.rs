//! Finding the model servers people run on this machine (first start, Settings → "Find servers"):
//! the usual ports on 127.0.0.1 are asked for `/v1/models` with a short timeout, and each server
//! that answers is listed with its models and the window it reports.

use std::time::Duration;

use serde::Serialize;

use super::{Provider, WindowSource};
use crate::config::{ProviderConfig, ProviderFile};

/// The usual local servers: `(port, what usually listens there)`.
pub const USUAL_PORTS: [(u16, &str); 4] = [(8080, "llama.cpp"), (11434, "Ollama"), (1234, "LM Studio"), (8000, "vLLM")];

/// A server that answered.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct FoundServer {
    /// What usually listens on that port (a suggestion for the profile's name).
    pub name: String,
    pub base_url: String,
    pub models: Vec<String>,
    /// The window the server reports for its first model, and where it came from.
    pub context_window: Option<u64>,
    pub window_source: Option<WindowSource>,
}

/// Asks every `(port, name)` on `host` at once; those that do not answer within `timeout` are left out.
pub async fn find_servers(host: &str, ports: &[(u16, &str)], timeout: Duration) -> Vec<FoundServer> {
    let probes = ports.iter().map(|(port, name)| probe(format!("http://{host}:{port}/v1"), name.to_string(), timeout));
    futures_util::future::join_all(probes).await.into_iter().flatten().collect()
}

async fn probe(base_url: String, name: String, timeout: Duration) -> Option<FoundServer> {
    let mut config = ProviderConfig::from(ProviderFile {
        base_url: base_url.clone(),
        api_key_env: String::new(),
        timeout_ms: timeout.as_millis() as u64,
        max_retries: 0,
        ..ProviderFile::default()
    });
    let listed = tokio::time::timeout(timeout, Provider::new(&config).ok()?.list_models()).await.ok()?.ok()?;
    let models = super::model_ids(&listed);
    config.model = models.first().cloned().unwrap_or_default();
    let provider = Provider::new(&config).ok()?;
    let window = tokio::time::timeout(timeout * 2, provider.discover_window(Some(&listed)))
        .await
        .ok()
        .and_then(Result::ok)
        .flatten();
    Some(FoundServer {
        name,
        base_url,
        models,
        context_window: window.map(|w| w.tokens),
        window_source: window.map(|w| w.source),
    })
}
