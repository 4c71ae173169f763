//! Settings: the configuration file as written and in force, its schema (the forms' defaults,
//! ranges and options), saving it, testing a connection before saving, finding local servers.

use std::time::Duration;

use alisio_engine::config;
use alisio_engine::home::CONFIG_FILE;
use alisio_engine::provider::finder::{find_servers as find, FoundServer, USUAL_PORTS};
use alisio_engine::provider::{ModelsReport, Provider};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

use crate::error::{ApiError, ApiResult};
use crate::sessions::Nothing;
use crate::App;

#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ConfigDocument {
    pub path: String,
    /// The user's config file as stored (unknown keys included).
    #[ts(type = "JsonValue")]
    pub raw: Value,
    /// The configuration in force, every default filled in (with `--config` and `--profile`).
    #[ts(type = "JsonValue")]
    pub effective: Value,
    /// The profile in force, when one is.
    pub profile: Option<String>,
}

/// A configuration document, as the settings forms hold it.
#[derive(Debug, Clone, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct RawConfig {
    #[ts(type = "JsonValue")]
    pub raw: Value,
}

pub async fn get(app: &App, _: Nothing) -> ApiResult<ConfigDocument> {
    let path = app.home().join(CONFIG_FILE);
    let raw = match std::fs::read_to_string(&path) {
        Ok(text) => serde_json::from_str(&text)
            .map_err(|e| ApiError::invalid(format!("{} is not valid JSON: {e}", path.display())))?,
        Err(_) => Value::Object(Default::default()),
    };
    let config = app.config();
    Ok(ConfigDocument {
        path: path.display().to_string(),
        raw,
        effective: config.effective_document(),
        profile: config.provider.profile.clone(),
    })
}

/// Checks the document exactly as loading does (naming the key and range), writes `config.json`,
/// and puts it in force.
pub async fn save(app: &App, request: RawConfig) -> ApiResult<ConfigDocument> {
    config::save(app.home(), &request.raw)?;
    app.reload()?;
    get(app, Nothing {}).await
}

/// Asks the server of an unsaved document for its models and window — the same report, and the
/// same window in force, as `alisio models` and the context meter.
pub async fn test_connection(_app: &App, request: RawConfig) -> ApiResult<ModelsReport> {
    let config = config::from_value(&request.raw)?;
    Ok(Provider::new(&config.provider)?.report().await?)
}

/// The model servers answering on the usual local ports (llama.cpp 8080, Ollama 11434,
/// LM Studio 1234, vLLM 8000), each with its models and window.
pub async fn find_servers(_app: &App, _: Nothing) -> ApiResult<Vec<FoundServer>> {
    Ok(find("127.0.0.1", &USUAL_PORTS, Duration::from_millis(1500)).await)
}
