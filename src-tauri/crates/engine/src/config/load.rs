//! Reading, merging, resolving and saving the configuration: `config.json` overlaid by
//! `--config FILE`, the active profile (or `--profile`) put in force, and the file written back
//! whole only once it is valid.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{Config, ConfigFile, ProviderConfig};
use crate::error::{Error, Result};

/// The configuration in force plus the raw merged document (unknown keys included).
#[derive(Debug, Clone)]
pub struct LoadedConfig {
    pub config: Config,
    pub raw: Value,
    pub sources: Vec<PathBuf>,
}

/// The configuration every face opens with: `<home>/config.json`, overlaid by `overlay` (it must
/// exist), with `profile` (`--profile NAME`) in force instead of `activeProfile` when given.
pub fn open(home: &Path, overlay: Option<&Path>, profile: Option<&str>) -> Result<LoadedConfig> {
    let mut loaded = load(home, overlay)?;
    if let Some(profile) = profile {
        loaded.config = with_profile(&loaded.raw, profile)?;
    }
    Ok(loaded)
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

/// Checks `raw` exactly as loading does, then writes it as `<home>/config.json` (whole, through a
/// temporary file): an invalid document writes nothing.
pub fn save(home: &Path, raw: &Value) -> Result<()> {
    from_value(raw)?;
    let path = home.join(crate::home::CONFIG_FILE);
    let text = serde_json::to_string_pretty(raw)? + "\n";
    crate::home::write_atomically(&path, text.as_bytes())
}

/// Parses and validates a merged document; the active profile's values are put in force.
pub fn from_value(raw: &Value) -> Result<Config> {
    let file: ConfigFile = serde_path_to_error::deserialize(raw).map_err(|err| {
        let key = err.path().to_string();
        Error::Config(format!("{key}: {}", err.inner()))
    })?;
    super::validate::validate(&file)?;
    Config::resolve(file)
}

/// `document` with `profile` as its active profile (`--profile NAME`), parsed and validated.
pub fn with_profile(document: &Value, profile: &str) -> Result<Config> {
    let mut raw = document.clone();
    if let Value::Object(map) = &mut raw {
        map.insert("activeProfile".into(), Value::String(profile.to_string()));
    }
    from_value(&raw)
}

/// The provider in force: `provider` overridden by the active profile's values, with which
/// profile that is and every key variable the file names.
pub(super) fn resolve_provider(file: &ConfigFile) -> Result<ProviderConfig> {
    let mut names: Vec<String> = vec![file.provider.api_key_env.clone()];
    names.extend(file.profiles.values().filter_map(|p| p.api_key_env.clone()));
    names.retain(|n| !n.trim().is_empty());
    names.dedup();
    let mut provider = ProviderConfig::from(file.provider.clone());
    provider.key_env_names = names;
    let Some(name) = file.active_profile.clone() else { return Ok(provider) };
    let Some(profile) = file.profiles.get(&name).cloned() else {
        let known: Vec<&str> = file.profiles.keys().map(String::as_str).collect();
        return Err(Error::Config(format!(
            "activeProfile / --profile = {name:?}: no such profile (profiles: {})",
            if known.is_empty() { "none defined".to_string() } else { known.join(", ") }
        )));
    };
    let settings = &mut provider.settings;
    if let Some(url) = profile.base_url {
        settings.base_url = url;
    }
    if let Some(model) = profile.model {
        settings.model = model;
    }
    if let Some(api) = profile.api {
        settings.api = api;
    }
    // A profile that names no key variable sends no key.
    settings.api_key_env = profile.api_key_env.unwrap_or_default();
    provider.profile = Some(name);
    provider.profile_context_window = profile.context_window;
    Ok(provider)
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
pub(super) fn merge(base: &mut Value, overlay: Value) {
    match (base, overlay) {
        (Value::Object(base), Value::Object(overlay)) => {
            for (key, value) in overlay {
                merge(base.entry(key).or_insert(Value::Null), value);
            }
        }
        (slot, value) => *slot = value,
    }
}
