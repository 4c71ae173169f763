//! Configuration (docs/configuration-guide.md): `$ALISIO_HOME/config.json` overlaid by `--config FILE`.
//! [`ConfigFile`] is the document as written — its defaults live only in the `Default` impls below,
//! its ranges and option lists only in the `schemars` attributes, and the JSON schema generated
//! from it drives both validation ([`validate`]) and the window's settings forms. [`Config`] is the
//! configuration in force: the file with the active connection profile applied. Unknown keys are
//! kept in the raw document and ignored; a mistyped or out-of-range value fails before anything is
//! sent, naming the key.

mod archive;
mod compaction;
mod load;
mod prices;
mod validate;

use std::collections::BTreeMap;
use std::ops::Deref;
use std::path::PathBuf;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use archive::ArchiveConfig;
pub use compaction::{CacheCompactConfig, CompactionConfig, ProviderCompactionConfig, Strategy};
pub use load::{from_value, load, open, save, with_profile, LoadedConfig};
pub use prices::{LongContextConfig, PriceConfig};
pub use validate::{find_command, header_values};

/// The configuration file: every key `config.json` may hold, with its default.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, rename_all = "camelCase")]
pub struct ConfigFile {
    pub provider: ProviderFile,
    /// When and how the history is compacted as the context fills up.
    pub compaction: CompactionConfig,
    /// The cache-compatible strategy: a summary appended to the unchanged request, then the whole history cut.
    pub cache_compact: CacheCompactConfig,
    /// Hard limits on what one request and one turn may take.
    pub limits: LimitsConfig,
    /// Compaction plugins' hooks.
    pub plugin_hooks: PluginHooksConfig,
    /// Compaction plugins: each is asked before and after a compaction (`memory` is built in).
    pub plugins: Vec<PluginConfig>,
    /// Whether the shell and file writes run without asking.
    pub permissions: PermissionsConfig,
    /// Extra instructions appended to the system prompt.
    pub instructions: Option<String>,
    /// Named provider settings; `activeProfile` (or `--profile`) selects one.
    pub profiles: BTreeMap<String, ProfileConfig>,
    /// The profile in force (a key of `profiles`); `--profile` overrides it.
    pub active_profile: Option<String>,
    /// MCP tool servers, by name.
    pub mcp_servers: BTreeMap<String, McpServerConfig>,
    /// How much of a request MCP tools may take.
    pub mcp: McpConfig,
    /// Traces to a team's trace store.
    pub telemetry: TelemetryConfig,
    /// Prices (USD per million tokens) by model name or pattern (`*`), over the table shipped with
    /// Alisio; a model named here is priced from here only.
    pub prices: BTreeMap<String, PriceConfig>,
    /// How long a provider keeps a prompt cache: a call after a longer gap whose prefix was intact
    /// but not reused is a miss of cause `expired`.
    #[schemars(range(min = 1, max = 86_400))]
    pub cache_ttl_seconds: u64,
    /// Team archives (PostgreSQL) that `alisio push` sends sessions to, by name.
    pub archives: BTreeMap<String, ArchiveConfig>,
}

/// The MCP tool catalog's budget: past it, tools are deferred behind `tool_search`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, rename_all = "camelCase")]
pub struct McpConfig {
    /// The most tokens MCP tools may take in a request; `null`: a tenth of the window in force.
    #[schemars(range(min = 0))]
    pub max_catalog_tokens: Option<u64>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, rename_all = "camelCase")]
pub struct TelemetryConfig {
    pub otlp: OtlpConfig,
}

/// An OTLP/HTTP trace endpoint; without `endpoint` nothing is exported.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, rename_all = "camelCase")]
pub struct OtlpConfig {
    /// The OTLP/HTTP traces endpoint; none: nothing is exported.
    pub endpoint: Option<String>,
    /// The only protocol spoken: `http/protobuf`.
    pub protocol: String,
    /// Header values, literal or `env:NAME` (read from the environment).
    pub headers: BTreeMap<String, String>,
    /// Attach message content (redacted) to the spans.
    pub content: bool,
    /// The most bytes of one content attribute; longer content is cut and marked truncated.
    #[schemars(range(min = 1024, max = 67_108_864))]
    pub max_content_bytes: usize,
    /// How long one export may take (an answer later than this is a failure, reported once).
    #[schemars(range(min = 100, max = 120_000))]
    pub timeout_ms: u64,
    /// `service.name` of the exported traces.
    pub service_name: String,
}

impl Default for OtlpConfig {
    fn default() -> Self {
        Self {
            endpoint: None,
            protocol: "http/protobuf".into(),
            headers: Default::default(),
            content: false,
            max_content_bytes: 64 * 1024,
            timeout_ms: 5000,
            service_name: "alisio".into(),
        }
    }
}

/// One MCP server: a child process speaking stdio (`command`) or a streamable-HTTP endpoint (`url`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, rename_all = "camelCase")]
pub struct McpServerConfig {
    /// The stdio server's executable.
    pub command: Option<String>,
    /// Its arguments.
    pub args: Vec<String>,
    /// Environment variables for it (the provider's key is never passed).
    pub env: BTreeMap<String, String>,
    /// Its working directory (default: the one Alisio runs in).
    pub cwd: Option<PathBuf>,
    /// A streamable-HTTP server's endpoint.
    pub url: Option<String>,
    /// Header values, literal or `env:NAME` (read from the environment when the server starts).
    pub headers: BTreeMap<String, String>,
    /// Start it (false keeps the entry but offers none of its tools).
    pub enabled: bool,
    /// How long it may take to start and list its tools, in ms.
    #[schemars(range(min = 100, max = 600_000))]
    pub startup_timeout_ms: u64,
    /// How long one of its tool calls may take, in ms.
    #[schemars(range(min = 100, max = 3_600_000))]
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
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, rename_all = "camelCase")]
pub struct ProfileConfig {
    /// The server's base URL.
    pub base_url: Option<String>,
    /// The model id.
    pub model: Option<String>,
    /// The wire API.
    pub api: Option<Api>,
    /// The environment variable holding the key; `null` sends none.
    pub api_key_env: Option<String>,
    /// The second source of the window: after `provider.contextWindow`, before the server's report.
    #[schemars(range(min = 1))]
    pub context_window: Option<u64>,
}

/// The wire API a provider speaks.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    JsonSchema,
    strum::IntoStaticStr,
    strum::EnumString,
    strum::Display,
)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
#[strum(serialize_all = "lowercase")]
pub enum Api {
    Chat,
    Responses,
    Anthropic,
}

impl Api {
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// The provider as written in the file (`provider`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, rename_all = "camelCase")]
pub struct ProviderFile {
    /// A name for the provider, used in `cacheCompact.models` entries (`id/model`).
    pub id: String,
    /// The server's OpenAI- or Anthropic-compatible base URL.
    pub base_url: String,
    /// The model id sent with each request.
    pub model: String,
    /// The environment variable holding the API key (never stored, never seen by tools).
    pub api_key_env: String,
    pub api: Api,
    /// The window in tokens; first of the window's sources (then the profile's, then the server's report).
    #[schemars(range(min = 1))]
    pub context_window: Option<u64>,
    /// Stream answers over SSE (default) or wait for one JSON document.
    pub stream: bool,
    /// Longest wait, in ms, for the server's first byte and between streamed chunks.
    #[schemars(range(min = 100, max = 3_600_000))]
    pub timeout_ms: u64,
    /// Retries on 429, 5xx and connection errors, with exponential backoff.
    #[schemars(range(min = 0, max = 10))]
    pub max_retries: u32,
    /// The first retry's delay, in ms; each later one doubles it.
    #[schemars(range(min = 0, max = 60_000))]
    pub retry_base_ms: u64,
    /// Anthropic: ask the API why the prompt cache missed (cache diagnostics: each request names
    /// the previous answer's id); its stated reason is kept beside Alisio's own.
    pub cache_diagnostics: bool,
}

impl Default for ProviderFile {
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
            cache_diagnostics: false,
        }
    }
}

/// The provider in force: the file's values with the active profile's applied, and what that
/// profile adds (its name, its window, every key variable the configuration names).
#[derive(Debug, Clone, PartialEq)]
pub struct ProviderConfig {
    pub settings: ProviderFile,
    /// The profile whose values are in force (`activeProfile` / `--profile`).
    pub profile: Option<String>,
    /// That profile's `contextWindow`.
    pub profile_context_window: Option<u64>,
    /// Every environment variable named as a key (provider and profiles): kept from tools, redacted.
    pub key_env_names: Vec<String>,
}

impl From<ProviderFile> for ProviderConfig {
    fn from(settings: ProviderFile) -> Self {
        let key_env_names = Some(settings.api_key_env.clone()).filter(|n| !n.trim().is_empty()).into_iter().collect();
        Self { settings, profile: None, profile_context_window: None, key_env_names }
    }
}

impl Default for ProviderConfig {
    fn default() -> Self {
        ProviderFile::default().into()
    }
}

impl Deref for ProviderConfig {
    type Target = ProviderFile;

    fn deref(&self) -> &ProviderFile {
        &self.settings
    }
}

impl std::ops::DerefMut for ProviderConfig {
    fn deref_mut(&mut self) -> &mut ProviderFile {
        &mut self.settings
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, rename_all = "camelCase")]
pub struct LimitsConfig {
    /// The hard limit on a request's conversation characters (the tool catalog not counted).
    #[schemars(range(min = 4000, max = 1_000_000_000))]
    pub max_context_chars: u64,
    /// The most tokens one answer may have.
    #[schemars(range(min = 1, max = 1_000_000))]
    pub max_output_tokens: u32,
    /// A token budget per turn; `null`: none.
    #[schemars(range(min = 1))]
    pub max_tokens: Option<u64>,
    /// The most model calls in one turn.
    #[schemars(range(min = 1, max = 10_000))]
    pub max_steps_per_turn: u32,
}

impl Default for LimitsConfig {
    fn default() -> Self {
        Self { max_context_chars: 800_000, max_output_tokens: 8192, max_tokens: None, max_steps_per_turn: 50 }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, rename_all = "camelCase")]
pub struct PluginHooksConfig {
    /// How long a plugin's hook may take, in ms, before it is skipped.
    #[schemars(range(min = 1, max = 600_000))]
    pub timeout_ms: u64,
}

impl Default for PluginHooksConfig {
    fn default() -> Self {
        Self { timeout_ms: 5000 }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PluginConfig {
    /// The plugin's name (`memory` for the built-in one).
    pub name: String,
    /// A plugin shipped with Alisio (no command).
    #[serde(default)]
    pub builtin: bool,
    /// The plugin's executable (it speaks JSON on stdin/stdout).
    #[serde(default)]
    pub command: Option<String>,
    /// Its arguments.
    #[serde(default)]
    pub args: Vec<String>,
}

/// Whether a tool runs without asking, after asking, or never.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    JsonSchema,
    strum::IntoStaticStr,
    strum::EnumString,
    strum::Display,
)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
#[strum(serialize_all = "lowercase")]
pub enum Permission {
    Allow,
    Ask,
    Deny,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
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

impl Default for ConfigFile {
    fn default() -> Self {
        Self {
            provider: ProviderFile::default(),
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
            mcp: McpConfig::default(),
            telemetry: TelemetryConfig::default(),
            prices: BTreeMap::new(),
            cache_ttl_seconds: 300,
            archives: BTreeMap::new(),
        }
    }
}

/// The configuration in force: the file's values (reached through `Deref`) with the provider
/// resolved against the active profile.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    file: ConfigFile,
    pub provider: ProviderConfig,
}

impl Deref for Config {
    type Target = ConfigFile;

    fn deref(&self) -> &ConfigFile {
        &self.file
    }
}

impl Default for Config {
    fn default() -> Self {
        Config::resolve(ConfigFile::default()).unwrap_or_else(|_| unreachable!("the defaults name no profile"))
    }
}

impl Config {
    /// The file as given, with the active profile put in force (an unknown one is an error).
    pub fn resolve(file: ConfigFile) -> crate::Result<Config> {
        let provider = load::resolve_provider(&file)?;
        Ok(Config { file, provider })
    }

    /// The file's values, for changing some before resolving again (tests, the demo).
    pub fn file(&self) -> &ConfigFile {
        &self.file
    }

    /// The configuration in force as one document: every default filled in, the provider as the
    /// active profile makes it.
    pub fn effective_document(&self) -> Value {
        let mut document = serde_json::to_value(&self.file).unwrap_or(Value::Null);
        if let (Value::Object(map), Ok(provider)) = (&mut document, serde_json::to_value(&self.provider.settings)) {
            map.insert("provider".into(), provider);
        }
        document
    }
}

/// The JSON schema of the configuration file: defaults, ranges, option lists, descriptions.
pub fn schema() -> Value {
    serde_json::to_value(schemars::schema_for!(ConfigFile)).unwrap_or(Value::Null)
}

#[cfg(test)]
mod tests;
