//! Configuration (README "Configuration"): `$ALISIO_HOME/config.json` overlaid by `--config FILE`.
//! Defaults live only in the `Default` impls below. Unknown keys are kept in the raw document and
//! ignored; a mistyped or out-of-range value fails before anything is sent, naming the key.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{Error, Result};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Config {
    pub provider: ProviderConfig,
    pub compaction: CompactionConfig,
    pub cache_compact: CacheCompactConfig,
    pub limits: LimitsConfig,
    pub plugin_hooks: PluginHooksConfig,
    pub plugins: Vec<PluginConfig>,
    pub permissions: PermissionsConfig,
    pub instructions: Option<String>,
    /// Named provider settings (I12); `activeProfile` (or `--profile`) selects one.
    pub profiles: std::collections::BTreeMap<String, ProfileConfig>,
    pub active_profile: Option<String>,
    /// MCP tool servers (I10), by name.
    pub mcp_servers: std::collections::BTreeMap<String, McpServerConfig>,
    /// Traces to a team's trace store (I9).
    pub telemetry: TelemetryConfig,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct TelemetryConfig {
    pub otlp: OtlpConfig,
}

/// An OTLP/HTTP trace endpoint; without `endpoint` nothing is exported.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct OtlpConfig {
    pub endpoint: Option<String>,
    pub protocol: String,
    /// Header values, literal or `env:NAME` (read from the environment).
    pub headers: std::collections::BTreeMap<String, String>,
    /// Attach message content (redacted) to the spans.
    pub content: bool,
    pub service_name: String,
}

impl Default for OtlpConfig {
    fn default() -> Self {
        Self {
            endpoint: None,
            protocol: "http/protobuf".into(),
            headers: Default::default(),
            content: false,
            service_name: "alisio".into(),
        }
    }
}

/// One MCP server: a child process speaking stdio (`command`) or a streamable-HTTP endpoint (`url`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct McpServerConfig {
    pub command: Option<String>,
    pub args: Vec<String>,
    pub env: std::collections::BTreeMap<String, String>,
    pub cwd: Option<PathBuf>,
    pub url: Option<String>,
    /// Header values, literal or `env:NAME` (read from the environment when the server starts).
    pub headers: std::collections::BTreeMap<String, String>,
    pub enabled: bool,
    pub startup_timeout_ms: u64,
    pub tool_timeout_ms: u64,
    pub permission: Permission,
}

impl Default for McpServerConfig {
    fn default() -> Self {
        Self {
            command: None,
            args: Vec::new(),
            env: Default::default(),
            cwd: None,
            url: None,
            headers: Default::default(),
            enabled: true,
            startup_timeout_ms: 10_000,
            tool_timeout_ms: 120_000,
            permission: Permission::Ask,
        }
    }
}

/// A connection profile: the provider values it sets (absent ones keep `provider`'s).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ProfileConfig {
    pub base_url: Option<String>,
    pub model: Option<String>,
    pub api: Option<Api>,
    /// The environment variable holding the key; `null` sends none.
    pub api_key_env: Option<String>,
    /// The second source of the window: after `provider.contextWindow`, before the server's report.
    pub context_window: Option<u64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum Api {
    Chat,
    Responses,
}

impl Api {
    pub fn as_str(self) -> &'static str {
        match self {
            Api::Chat => "chat",
            Api::Responses => "responses",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ProviderConfig {
    pub id: String,
    pub base_url: String,
    pub model: String,
    pub api_key_env: String,
    pub api: Api,
    pub context_window: Option<u64>,
    /// Stream answers over SSE (default) or wait for one JSON document.
    pub stream: bool,
    /// Longest wait, in ms, for the server's first byte and between streamed chunks.
    pub timeout_ms: u64,
    /// Retries on 429, 5xx and connection errors, with exponential backoff.
    pub max_retries: u32,
    pub retry_base_ms: u64,
    /// The profile whose values are in force (set from `activeProfile` / `--profile`).
    #[serde(skip)]
    pub profile: Option<String>,
    /// That profile's `contextWindow`.
    #[serde(skip)]
    pub profile_context_window: Option<u64>,
    /// Every environment variable named as a key (provider and profiles): kept from tools, redacted.
    #[serde(skip)]
    pub key_env_names: Vec<String>,
}

impl Default for ProviderConfig {
    fn default() -> Self {
        Self {
            id: "local".into(),
            base_url: "http://127.0.0.1:8080/v1".into(),
            model: "default".into(),
            api_key_env: "OPENAI_API_KEY".into(),
            api: Api::Chat,
            context_window: None,
            stream: true,
            timeout_ms: 300_000,
            max_retries: 3,
            retry_base_ms: 500,
            profile: None,
            profile_context_window: None,
            key_env_names: vec!["OPENAI_API_KEY".into()],
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Strategy {
    Native,
    Cache,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct CompactionConfig {
    pub auto: bool,
    pub threshold: f64,
    pub keep_turns: u32,
    pub max_output_tokens: u32,
    pub strategy: Strategy,
}

impl Default for CompactionConfig {
    fn default() -> Self {
        Self { auto: true, threshold: 0.85, keep_turns: 2, max_output_tokens: 16_000, strategy: Strategy::Native }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct CacheCompactConfig {
    pub threshold: f64,
    pub models: Vec<String>,
    pub summary_max_tokens: u32,
    pub context_limit: u64,
    pub auto_resume: bool,
    pub abort_on_trip: bool,
    pub disable_prune: bool,
    pub debug: bool,
    /// The user message `autoResume` sends after a cut.
    pub resume_prompt: String,
}

impl Default for CacheCompactConfig {
    fn default() -> Self {
        Self {
            threshold: 68.0,
            models: Vec::new(),
            summary_max_tokens: 1200,
            context_limit: 131_072,
            auto_resume: true,
            abort_on_trip: true,
            disable_prune: true,
            debug: false,
            resume_prompt: "Continue the task from the summary above.".into(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct LimitsConfig {
    pub max_context_chars: u64,
    pub max_output_tokens: u32,
    pub max_tokens: Option<u64>,
    pub max_steps_per_turn: u32,
}

impl Default for LimitsConfig {
    fn default() -> Self {
        Self { max_context_chars: 800_000, max_output_tokens: 8192, max_tokens: None, max_steps_per_turn: 50 }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct PluginHooksConfig {
    pub timeout_ms: u64,
}

impl Default for PluginHooksConfig {
    fn default() -> Self {
        Self { timeout_ms: 5000 }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PluginConfig {
    pub name: String,
    #[serde(default)]
    pub builtin: bool,
    #[serde(default)]
    pub command: Option<String>,
    #[serde(default)]
    pub args: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum Permission {
    Allow,
    Ask,
    Deny,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct PermissionsConfig {
    pub shell: Permission,
    pub write: Permission,
}

impl Default for PermissionsConfig {
    fn default() -> Self {
        Self { shell: Permission::Ask, write: Permission::Ask }
    }
}

impl Default for Config {
    fn default() -> Self {
        Self {
            provider: ProviderConfig::default(),
            compaction: CompactionConfig::default(),
            cache_compact: CacheCompactConfig::default(),
            limits: LimitsConfig::default(),
            plugin_hooks: PluginHooksConfig::default(),
            plugins: vec![PluginConfig { name: "memory".into(), builtin: true, command: None, args: Vec::new() }],
            permissions: PermissionsConfig::default(),
            instructions: None,
            profiles: Default::default(),
            active_profile: None,
            mcp_servers: Default::default(),
            telemetry: TelemetryConfig::default(),
        }
    }
}

/// The effective configuration plus the raw merged document (unknown keys included).
#[derive(Debug, Clone)]
pub struct LoadedConfig {
    pub config: Config,
    pub raw: Value,
    pub sources: Vec<PathBuf>,
}

/// Loads `<home>/config.json` (if present) and overlays `overlay` (if given; it must exist).
pub fn load(home: &Path, overlay: Option<&Path>) -> Result<LoadedConfig> {
    let mut raw = Value::Object(Default::default());
    let mut sources = Vec::new();
    let base = home.join(crate::home::CONFIG_FILE);
    if base.exists() {
        merge(&mut raw, read_document(&base)?);
        sources.push(base);
    }
    if let Some(path) = overlay {
        if !path.exists() {
            return Err(Error::Config(format!("config file {} does not exist", path.display())));
        }
        merge(&mut raw, read_document(path)?);
        sources.push(path.to_path_buf());
    }
    let config = from_value(&raw)?;
    Ok(LoadedConfig { config, raw, sources })
}

/// Parses and validates a merged document; the active profile's values are put in force.
pub fn from_value(raw: &Value) -> Result<Config> {
    let mut config: Config = serde_path_to_error::deserialize(raw).map_err(|err| {
        let key = err.path().to_string();
        Error::Config(format!("{key}: {}", err.inner()))
    })?;
    validate(&config)?;
    apply_profile(&mut config)?;
    Ok(config)
}

/// `document` with `profile` as its active profile (`--profile NAME`), parsed and validated.
pub fn with_profile(document: &Value, profile: &str) -> Result<Config> {
    let mut raw = document.clone();
    if let Value::Object(map) = &mut raw {
        map.insert("activeProfile".into(), Value::String(profile.to_string()));
    }
    from_value(&raw)
}

/// Overrides `provider` with the active profile's values and records which one is in force.
fn apply_profile(config: &mut Config) -> Result<()> {
    let mut names: Vec<String> = vec![config.provider.api_key_env.clone()];
    names.extend(config.profiles.values().filter_map(|p| p.api_key_env.clone()));
    names.retain(|n| !n.trim().is_empty());
    names.dedup();
    config.provider.key_env_names = names;
    let Some(name) = config.active_profile.clone() else { return Ok(()) };
    let Some(profile) = config.profiles.get(&name).cloned() else {
        let known: Vec<&str> = config.profiles.keys().map(String::as_str).collect();
        return Err(Error::Config(format!(
            "activeProfile / --profile = {name:?}: no such profile (profiles: {})",
            if known.is_empty() { "none defined".to_string() } else { known.join(", ") }
        )));
    };
    let provider = &mut config.provider;
    if let Some(url) = profile.base_url {
        provider.base_url = url;
    }
    if let Some(model) = profile.model {
        provider.model = model;
    }
    if let Some(api) = profile.api {
        provider.api = api;
    }
    // A profile that names no key variable sends no key.
    provider.api_key_env = profile.api_key_env.unwrap_or_default();
    provider.profile = Some(name);
    provider.profile_context_window = profile.context_window;
    Ok(())
}

fn read_document(path: &Path) -> Result<Value> {
    let text =
        std::fs::read_to_string(path).map_err(|e| Error::Config(format!("cannot read {}: {e}", path.display())))?;
    let value: Value =
        serde_json::from_str(&text).map_err(|e| Error::Config(format!("{} is not valid JSON: {e}", path.display())))?;
    if !value.is_object() {
        return Err(Error::Config(format!("{} must contain a JSON object", path.display())));
    }
    Ok(value)
}

/// Deep merge: objects merge key by key, anything else in `overlay` replaces.
fn merge(base: &mut Value, overlay: Value) {
    match (base, overlay) {
        (Value::Object(base), Value::Object(overlay)) => {
            for (key, value) in overlay {
                merge(base.entry(key).or_insert(Value::Null), value);
            }
        }
        (slot, value) => *slot = value,
    }
}

fn range_f64(key: &str, value: f64, min: f64, max: f64) -> Result<()> {
    if value.is_finite() && (min..=max).contains(&value) {
        Ok(())
    } else {
        Err(Error::Config(format!("{key} = {value} is out of range (allowed {min}–{max})")))
    }
}

fn range_u64(key: &str, value: u64, min: u64, max: u64) -> Result<()> {
    if (min..=max).contains(&value) {
        Ok(())
    } else {
        Err(Error::Config(format!("{key} = {value} is out of range (allowed {min}–{max})")))
    }
}

/// `url` must be an http(s) URL; the error names `key` and shows `example`.
fn http_url(key: &str, url: &str, example: &str) -> Result<()> {
    if (url.starts_with("http://") || url.starts_with("https://")) && reqwest::Url::parse(url).is_ok() {
        Ok(())
    } else {
        Err(Error::Config(format!("{key} = {url:?} is not an http(s) URL (for example \"{example}\")")))
    }
}

fn validate(c: &Config) -> Result<()> {
    http_url("provider.baseUrl", &c.provider.base_url, "http://127.0.0.1:8080/v1")?;
    if c.provider.model.trim().is_empty() {
        return Err(Error::Config("provider.model must not be empty".into()));
    }
    if let Some(window) = c.provider.context_window {
        range_u64("provider.contextWindow", window, 1, u64::MAX)?;
    }
    for (name, profile) in &c.profiles {
        if let Some(url) = &profile.base_url {
            http_url(&format!("profiles.{name}.baseUrl"), url, "http://127.0.0.1:11434/v1")?;
        }
        if profile.model.as_deref().is_some_and(|m| m.trim().is_empty()) {
            return Err(Error::Config(format!("profiles.{name}.model must not be empty")));
        }
        if let Some(window) = profile.context_window {
            range_u64(&format!("profiles.{name}.contextWindow"), window, 1, u64::MAX)?;
        }
    }
    range_u64("provider.timeoutMs", c.provider.timeout_ms, 100, 3_600_000)?;
    range_u64("provider.maxRetries", c.provider.max_retries.into(), 0, 10)?;
    range_u64("provider.retryBaseMs", c.provider.retry_base_ms, 0, 60_000)?;
    range_f64("compaction.threshold", c.compaction.threshold, 0.1, 0.99)?;
    range_u64("compaction.keepTurns", c.compaction.keep_turns.into(), 0, 20)?;
    range_u64("compaction.maxOutputTokens", c.compaction.max_output_tokens.into(), 256, 1_000_000)?;
    range_f64("cacheCompact.threshold", c.cache_compact.threshold, 1.0, 99.0)?;
    range_u64("cacheCompact.summaryMaxTokens", c.cache_compact.summary_max_tokens.into(), 16, 1_000_000)?;
    range_u64("cacheCompact.contextLimit", c.cache_compact.context_limit, 1024, 100_000_000)?;
    if c.cache_compact.resume_prompt.trim().is_empty() {
        return Err(Error::Config("cacheCompact.resumePrompt must not be empty".into()));
    }
    for (i, entry) in c.cache_compact.models.iter().enumerate() {
        if !entry.contains('/') {
            return Err(Error::Config(format!(
                "cacheCompact.models[{i}] = {entry:?} must be \"providerID/modelID\" (for example \"local/default\")"
            )));
        }
    }
    range_u64("limits.maxContextChars", c.limits.max_context_chars, 4000, 1_000_000_000)?;
    range_u64("limits.maxOutputTokens", c.limits.max_output_tokens.into(), 1, 1_000_000)?;
    if let Some(max) = c.limits.max_tokens {
        range_u64("limits.maxTokens", max, 1, u64::MAX)?;
    }
    range_u64("limits.maxStepsPerTurn", c.limits.max_steps_per_turn.into(), 1, 10_000)?;
    range_u64("pluginHooks.timeoutMs", c.plugin_hooks.timeout_ms, 1, 600_000)?;
    for (name, server) in &c.mcp_servers {
        validate_mcp_server(name, server)?;
    }
    validate_otlp(&c.telemetry.otlp)?;
    for (i, plugin) in c.plugins.iter().enumerate() {
        if !plugin.builtin && plugin.command.is_none() {
            return Err(Error::Config(format!(
                "plugins[{i}] ({}) needs either \"builtin\": true or a \"command\"",
                plugin.name
            )));
        }
    }
    Ok(())
}

fn validate_otlp(o: &OtlpConfig) -> Result<()> {
    if let Some(endpoint) = &o.endpoint {
        http_url("telemetry.otlp.endpoint", endpoint, "http://127.0.0.1:4318/v1/traces")?;
    }
    if o.protocol != "http/protobuf" {
        return Err(Error::Config(format!(
            "telemetry.otlp.protocol = {:?} is not supported; use \"http/protobuf\"",
            o.protocol
        )));
    }
    if o.service_name.trim().is_empty() {
        return Err(Error::Config("telemetry.otlp.serviceName must not be empty".into()));
    }
    if o.endpoint.is_some() {
        header_values("telemetry.otlp.headers", &o.headers)?;
    }
    Ok(())
}

/// Header values as sent: literal, or `env:NAME` read from the environment (an unset variable is
/// an error naming `key.<header>`). The values are secrets: they go nowhere but the request.
pub fn header_values(
    key: &str,
    headers: &std::collections::BTreeMap<String, String>,
) -> Result<std::collections::HashMap<String, String>> {
    headers
        .iter()
        .map(|(name, value)| {
            let value = match value.strip_prefix("env:") {
                Some(var) => std::env::var(var)
                    .map_err(|_| Error::Config(format!("{key}.{name} refers to {var}, which is not set")))?,
                None => value.clone(),
            };
            Ok((name.clone(), value))
        })
        .collect()
}

/// Where `command` would be run from: a path (relative ones against `cwd`) that is an executable
/// file, or the first executable of that name on `PATH`.
pub fn find_command(command: &str, cwd: Option<&Path>) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let executable = |p: &Path| p.metadata().is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0);
    if command.contains('/') {
        let path = match cwd {
            Some(dir) if Path::new(command).is_relative() => dir.join(command),
            _ => PathBuf::from(command),
        };
        return executable(&path).then_some(path);
    }
    std::env::split_paths(&std::env::var_os("PATH")?).map(|dir| dir.join(command)).find(|p| executable(p))
}

fn validate_mcp_server(name: &str, s: &McpServerConfig) -> Result<()> {
    let key = format!("mcpServers.{name}");
    if name.trim().is_empty() {
        return Err(Error::Config("mcpServers: a server needs a non-empty name".into()));
    }
    match (&s.command, &s.url) {
        (Some(_), Some(_)) => {
            return Err(Error::Config(format!("{key} has both \"command\" and \"url\"; give one (stdio or HTTP)")))
        }
        (None, None) => {
            return Err(Error::Config(format!(
                "{key} needs a \"command\" (a stdio server, e.g. \"mcp-server-time\") or a \"url\" (streamable HTTP)"
            )))
        }
        (Some(command), None) => {
            if s.enabled && find_command(command, s.cwd.as_deref()).is_none() {
                return Err(Error::Config(format!(
                    "{key}.command = {command:?} is not found (not an executable path, nor on PATH)"
                )));
            }
        }
        (None, Some(url)) => http_url(&format!("{key}.url"), url, "http://127.0.0.1:9000/mcp")?,
    }
    if let Some(cwd) = &s.cwd {
        if !cwd.is_dir() {
            return Err(Error::Config(format!("{key}.cwd = {} is not a directory", cwd.display())));
        }
    }
    if s.enabled {
        header_values(&format!("{key}.headers"), &s.headers)?;
    }
    range_u64(&format!("{key}.startupTimeoutMs"), s.startup_timeout_ms, 100, 600_000)?;
    range_u64(&format!("{key}.toolTimeoutMs"), s.tool_timeout_ms, 100, 3_600_000)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn err(doc: Value) -> String {
        match from_value(&doc) {
            Err(e) => e.to_string(),
            Ok(_) => panic!("{doc} should be rejected"),
        }
    }

    #[test]
    fn defaults_match_interfaces() {
        let c = from_value(&json!({})).unwrap();
        assert_eq!(c, Config::default());
        assert_eq!(c.compaction.threshold, 0.85);
        assert_eq!(c.limits.max_context_chars, 800_000);
        assert_eq!(c.cache_compact.context_limit, 131_072);
    }

    #[test]
    fn out_of_range_and_mistyped_values_name_the_key() {
        let cases = [
            (json!({"compaction": {"threshold": 1.5}}), "compaction.threshold", "0.1–0.99"),
            (json!({"compaction": {"threshold": 0.05}}), "compaction.threshold", "0.1–0.99"),
            (json!({"compaction": {"keepTurns": 21}}), "compaction.keepTurns", "0–20"),
            (json!({"compaction": {"keepTurns": "two"}}), "compaction.keepTurns", "expected u32"),
            (json!({"compaction": {"strategy": "fast"}}), "compaction.strategy", "native"),
            (json!({"permissions": {"shell": "sometimes"}}), "permissions.shell", "allow"),
            (json!({"provider": {"api": "grpc"}}), "provider.api", "chat"),
            (json!({"provider": {"baseUrl": "localhost:8080"}}), "provider.baseUrl", "http"),
            (json!({"cacheCompact": {"threshold": 120}}), "cacheCompact.threshold", "1–99"),
            (json!({"limits": {"maxStepsPerTurn": 0}}), "limits.maxStepsPerTurn", "1–10000"),
        ];
        for (doc, key, hint) in cases {
            let message = err(doc);
            assert!(message.contains(key), "{message} should name {key}");
            assert!(message.contains(hint), "{message} should mention {hint}");
        }
    }

    #[test]
    fn the_active_profile_overrides_the_provider_and_unknown_ones_are_refused() {
        let doc = json!({
            "provider": {"baseUrl": "http://127.0.0.1:8080/v1", "model": "default", "contextWindow": null},
            "profiles": {
                "ollama": {"baseUrl": "http://127.0.0.1:11434/v1", "model": "qwen3", "apiKeyEnv": null, "contextWindow": 32768},
                "cloud": {"baseUrl": "https://api.example.com/v1", "model": "big", "api": "responses", "apiKeyEnv": "CLOUD_KEY"}
            },
            "activeProfile": "ollama"
        });
        let c = from_value(&doc).unwrap();
        assert_eq!((c.provider.base_url.as_str(), c.provider.model.as_str()), ("http://127.0.0.1:11434/v1", "qwen3"));
        assert_eq!((c.provider.api_key_env.as_str(), c.provider.profile_context_window), ("", Some(32768)));
        assert_eq!(c.provider.profile.as_deref(), Some("ollama"));
        assert_eq!(c.provider.key_env_names, ["OPENAI_API_KEY", "CLOUD_KEY"]);
        let cloud = with_profile(&doc, "cloud").unwrap();
        assert_eq!((cloud.provider.api, cloud.provider.api_key_env.as_str()), (Api::Responses, "CLOUD_KEY"));
        assert_eq!(cloud.provider.profile_context_window, None);
        let message = with_profile(&doc, "nope").unwrap_err().to_string();
        assert!(message.contains("\"nope\": no such profile (profiles: cloud, ollama)"), "{message}");
        let bad = err(json!({"profiles": {"x": {"baseUrl": "localhost:1"}}}));
        assert!(bad.contains("profiles.x.baseUrl"), "{bad}");
    }

    #[test]
    fn unknown_keys_are_kept_and_overlay_merges_deeply() {
        let mut raw = json!({"compaction": {"threshold": 0.5}, "future": {"x": 1}});
        merge(&mut raw, json!({"compaction": {"keepTurns": 3}}));
        let c = from_value(&raw).unwrap();
        assert_eq!(c.compaction.threshold, 0.5);
        assert_eq!(c.compaction.keep_turns, 3);
        assert_eq!(raw["future"]["x"], 1);
    }
}
